/*
 * gsu_featmap_moments.c — the exact moments of the mapped features φ(z) for
 * a Gaussian input z ~ N(μ, Σ): the means and variances (gsu_featmap_moments),
 * the full covariance (gsu_featmap_covariance) and the quadratic forms
 * wᵀ Cov φ(z) w without the D × D matrix (gsu_featmap_quad_prepare/_block),
 * on the helpers on Σ of gsu_featmap_sigma.c.  The formulas are stated in
 * gsu_featmap.h.
 */
#include "gsu_featmap.h"
#include "gsu_featmap_sigma.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#define SQRT2 1.4142135623730951	/* √2, for √(2x) = √x·√2 without overflowing 2x */

/*
 * E[k(x, a) k(x, b)] for a Gaussian x ~ N(mu, diag(v)) and landmarks a, b of
 * dimension p, with s2 = sigma^2 and logdet2 the log-determinant term of
 * the product kernel (the pairwise term of the Nystroem moments).
 */
static double
pair_moment(int p, const double *a, const double *b, const double *mu, const double *v,
			double s2, double logdet2)
{
	double		e = 0.0,
				d2 = 0.0;
	int			k;

	for (k = 0; k < p; k++)
	{
		double		t = mu[k] - 0.5 * (a[k] + b[k]),
					u = a[k] - b[k];

		e += t * t / (v[k] + 0.5 * s2);
		d2 += u * u;
	}
	/* (d2/s2)/4 = d2/(4·s2) to the bit, without 4·s2 overflowing for σ near 1e154 */
	if (e <= DBL_MAX && d2 <= DBL_MAX)
		return exp(-0.25 * (d2 / s2) - 0.5 * (logdet2 + e));

	/*
	 * A square overflowed (rows near 1e154, σ too): the same sums of ratios
	 * squared, (t/√(v + s2/2))² and ((a − b)/(2σ))², which overflow only when
	 * the exponent itself does (the moment is then 0)
	 */
	{
		double		sd = sqrt(s2),
					q = 0.0;

		e = 0.0;
		for (k = 0; k < p; k++)
		{
			double		t = mu[k] - (0.5 * a[k] + 0.5 * b[k]),
						w = t / (sqrt(0.5 * v[k] + 0.25 * s2) * SQRT2),
						z = (0.5 * a[k] - 0.5 * b[k]) / sd;

			e += w * w;
			q += z * z;
		}
		return exp(-q - 0.5 * (logdet2 + e));
	}
}

/*
 * E k(x, z_l) for x ~ N(mu, diag(v)) and the Gaussian kernel of width
 * s (s2 = s²), for each landmark z_l (row l of z, m × p):
 * exp(−½(logdet1 + Σ_k (mu_k − z_lk)² / (v_k + s2))), logdet1 = Σ_k log(1 + v_k/s2).
 */
static void
kernel_means(int m, int p, const double *z, const double *mu, const double *v, double s2,
			 double logdet1, double *ek)
{
	for (int l = 0; l < m; l++)
	{
		const double *a = z + (size_t) l * p;
		double		e = 0.0;

		for (int k = 0; k < p; k++)
		{
			double		t = mu[k] - a[k];

			e += t * t / (v[k] + s2);
		}
		if (!(e <= DBL_MAX))
		{
			/* a square overflowed: the ratios squared, (t/√(v + s2))² (as in pair_moment) */
			e = 0.0;
			for (int k = 0; k < p; k++)
			{
				double		t = mu[k] - a[k],
							w;

				w = t / (sqrt(0.5 * v[k] + 0.5 * s2) * SQRT2);
				e += w * w;
			}
		}
		ek[l] = exp(-0.5 * (logdet1 + e));
	}
}

/*
 * Nyström moments for a diagonal Σ = diag(v); mu, z in the same basis.
 * O(m²(p + r)) for one row: pg is ticked per landmark and per feature.
 */
static gsu_status
nystroem_moments_diag(const gsu_featmap *f, const double *mu, const double *v,
					  const double *z, double *mean, double *var_out, double *work,
					  gsu_progress *pg)
{
	int			m = f->landmarks,
				p = f->p,
				r = f->dim;
	double		s2 = f->sigma * f->sigma;
	double	   *ek = work;		/* m: E k_l */
	double	   *C = work + m;	/* m × m: Cov(k_l, k_l') */
	double		logdet1 = 0.0,
				logdet2 = 0.0;
	int			j,
				k,
				l,
				l2;

	for (k = 0; k < p; k++)
	{
		logdet1 += log1p(v[k] / s2);
		logdet2 += log1p(2.0 * v[k] / s2);
	}
	kernel_means(m, p, z, mu, v, s2, logdet1, ek);
	for (l = 0; l < m; l++)
	{
		const double *a = z + (size_t) l * p;

		if (gsu_progress_tick(pg, (double) (m - l) * p))
			return GSU_ECANCELLED;
		for (l2 = l; l2 < m; l2++)
		{
			double		cv = pair_moment(p, a, z + (size_t) l2 * p, mu, v, s2, logdet2) -
				ek[l] * ek[l2];
			C[(size_t) l * m + l2] = C[(size_t) l2 * m + l] = cv;
		}
	}
	for (j = 0; j < r; j++)
	{
		double		mj = 0.0,
					vj = 0.0;

		if (gsu_progress_tick(pg, (double) m * m))
			return GSU_ECANCELLED;
		for (l = 0; l < m; l++)
		{
			double		pl = f->proj[(size_t) l * r + j],
						t = 0.0;

			mj += pl * ek[l];
			for (l2 = 0; l2 < m; l2++)
				t += C[(size_t) l * m + l2] * f->proj[(size_t) l2 * r + j];
			vj += pl * t;
		}
		mean[j] = mj;
		var_out[j] = vj > 0.0 ? vj : 0.0;
	}
	return GSU_OK;
}

gsu_status
gsu_featmap_moments(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
					double *mean, double *var_out, double *work, gsu_progress *pg)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				j,
				k;

	if (f->kind == GSU_MAP_POLY2)
	{
		gsu_poly2_moments(f, mu, incov, mean, var_out);
		return GSU_OK;
	}
	if (f->kind == GSU_MAP_RFF)
	{
		double		c2 = 2.0 / f->dim;
		double		c = sqrt(c2);

		for (j = 0; j < f->dim / 2; j++)
		{
			const double *om = f->omega + (size_t) j * p;
			double		m = 0.0,
						s2,
						e1,
						g,
						c2m;

			for (k = 0; k < p; k++)
				m += om[k] * mu[k];
			s2 = gsu_sigma_quad_form(p, om, var, iso, cov);
			e1 = exp(-0.5 * s2);
			g = -expm1(-s2);	/* 1 − e^{−s²} */
			c2m = cos(2.0 * m);
			mean[2 * j] = c * e1 * cos(m);
			mean[2 * j + 1] = c * e1 * sin(m);
			var_out[2 * j] = c2 * 0.5 * g * (1.0 - e1 * e1 * c2m);
			var_out[2 * j + 1] = c2 * 0.5 * g * (1.0 + e1 * e1 * c2m);
		}
		return GSU_OK;
	}

	/* Nyström */
	if (cov == NULL)
	{
		double	   *v = work + (size_t) f->landmarks * f->landmarks + 2 * (size_t) f->landmarks;

		for (k = 0; k < p; k++)
			v[k] = var != NULL ? var[k] : iso;
		return nystroem_moments_diag(f, mu, v, f->z, mean, var_out, work, pg);
	}
	else
	{
		/* rotate μ and the landmarks to Σ's eigenbasis: Σ becomes diag(λ) */
		double	   *block,
				   *vals,
				   *vecs,
				   *zr,
				   *mur;
		gsu_status	st;
		int			m = f->landmarks,
					l,
					i;

		st = gsu_sigma_eigen(p, cov, &block, &vals, &vecs);
		if (st != GSU_OK)
			return st;
		zr = malloc(sizeof(double) * ((size_t) m * p + p));
		if (zr == NULL)
		{
			free(block);
			return GSU_ENOMEM;
		}
		mur = zr + (size_t) m * p;
		for (i = 0; i < p; i++)
		{
			double		t = 0.0;

			for (k = 0; k < p; k++)
				t += vecs[(size_t) k * p + i] * mu[k];
			mur[i] = t;
		}
		for (l = 0; l < m; l++)
			for (i = 0; i < p; i++)
			{
				double		t = 0.0;

				for (k = 0; k < p; k++)
					t += vecs[(size_t) k * p + i] * f->z[(size_t) l * p + k];
				zr[(size_t) l * p + i] = t;
			}
		st = nystroem_moments_diag(f, mur, vals, zr, mean, var_out, work, pg);
		free(zr);
		free(block);
		return st;
	}
}

/* u = Σo for the input covariance Σ: full (cov), diagonal (var) or iso·I */
static void
sigma_times(int p, const double *var, double iso, const double *cov, const double *o, double *u)
{
	for (int l = 0; l < p; l++)
	{
		if (cov != NULL)
		{
			double		a = 0.0;

			for (int e = 0; e < p; e++)
				a += cov[(size_t) l * p + e] * o[e];
			u[l] = a;
		}
		else
			u[l] = (var != NULL ? var[l] : iso) * o[l];
	}
}

size_t
gsu_featmap_cov_work_size(const gsu_featmap *f)
{
	if (f->kind == GSU_MAP_POLY2)
		return 0;
	if (f->kind == GSU_MAP_RFF)
	{
		size_t		h = (size_t) f->dim / 2;

		return h * h + 2 * h + 2 * (size_t) f->p;
	}
	return gsu_featmap_work_size(f) + (size_t) f->dim + (size_t) f->landmarks * f->dim;
}

gsu_status
gsu_featmap_covariance(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
					   double *mean, double *C, double *work, gsu_progress *pg)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			D = f->dim,
				p = f->p,
				j,
				k,
				l;

	if (f->kind == GSU_MAP_POLY2)
		return gsu_poly2_covariance(f, mu, incov, mean, C, pg);
	if (f->kind == GSU_MAP_RFF)
	{
		int			h = D / 2;
		double		c2 = 2.0 / D,
					c = sqrt(c2);
		double	   *S = work;		/* h × h: ω_jᵀΣω_k */
		double	   *m = S + (size_t) h * h;	/* h: ω_jᵀμ */
		double	   *u = m + h;		/* p: Σω_j */

		for (j = 0; j < h; j++)
		{
			const double *oj = f->omega + (size_t) j * p;
			double		t = 0.0;

			if (gsu_progress_tick(pg, (double) p * (cov != NULL ? p + j : j + 1)))
				return GSU_ECANCELLED;
			for (l = 0; l < p; l++)
				t += oj[l] * mu[l];
			m[j] = t;
			sigma_times(p, var, iso, cov, oj, u);
			for (k = 0; k <= j; k++)
			{
				const double *ok = f->omega + (size_t) k * p;
				double		a = 0.0;

				for (l = 0; l < p; l++)
					a += ok[l] * u[l];
				S[(size_t) j * h + k] = S[(size_t) k * h + j] = a;
			}
		}
		for (j = 0; j < h; j++)
		{
			double		ej = exp(-0.5 * fmax(S[(size_t) j * h + j], 0.0));

			mean[2 * j] = c * ej * cos(m[j]);
			mean[2 * j + 1] = c * ej * sin(m[j]);
		}
		for (j = 0; j < h; j++)
		{
			if (gsu_progress_tick(pg, 40.0 * (j + 1)))
				return GSU_ECANCELLED;
			for (k = 0; k <= j; k++)
			{
				double		sjj = S[(size_t) j * h + j],
							skk = S[(size_t) k * h + k],
							sjk = S[(size_t) j * h + k],
							em = exp(-0.5 * fmax(sjj + skk - 2.0 * sjk, 0.0)),
							ep = exp(-0.5 * fmax(sjj + skk + 2.0 * sjk, 0.0)),
							cm = cos(m[j] - m[k]),
							cp = cos(m[j] + m[k]),
							sm = sin(m[j] - m[k]),
							sp = sin(m[j] + m[k]);
				double		cc = c2 * 0.5 * (em * cm + ep * cp) - mean[2 * j] * mean[2 * k],
							ss = c2 * 0.5 * (em * cm - ep * cp) - mean[2 * j + 1] * mean[2 * k + 1],
							sc = c2 * 0.5 * (ep * sp + em * sm) - mean[2 * j + 1] * mean[2 * k],
							cs = c2 * 0.5 * (ep * sp - em * sm) - mean[2 * j] * mean[2 * k + 1];
				size_t		r0 = (size_t) (2 * j) * D,
							r1 = (size_t) (2 * j + 1) * D;

				C[r0 + 2 * k] = cc;
				C[r0 + 2 * k + 1] = cs;
				C[r1 + 2 * k] = sc;
				C[r1 + 2 * k + 1] = ss;
				C[(size_t) (2 * k) * D + 2 * j] = cc;
				C[(size_t) (2 * k + 1) * D + 2 * j] = cs;
				C[(size_t) (2 * k) * D + 2 * j + 1] = sc;
				C[(size_t) (2 * k + 1) * D + 2 * j + 1] = ss;
			}
		}
		/* the diagonal from the cancellation-free forms of gsu_featmap_moments */
		for (j = 0; j < h; j++)
		{
			double		s2 = fmax(S[(size_t) j * h + j], 0.0),
						e1 = exp(-0.5 * s2),
						g = -expm1(-s2),
						c2m = cos(2.0 * m[j]);

			C[(size_t) (2 * j) * D + 2 * j] = c2 * 0.5 * g * (1.0 - e1 * e1 * c2m);
			C[(size_t) (2 * j + 1) * D + 2 * j + 1] = c2 * 0.5 * g * (1.0 + e1 * e1 * c2m);
		}
		return GSU_OK;
	}
	else
	{
		/* moments fill work with E k_m and Cov(k_m) (m × m at work + m) */
		int			m = f->landmarks;
		double	   *vdiag = work + gsu_featmap_work_size(f);
		double	   *Ck = work + m;
		double	   *T = vdiag + D;	/* m × D: Cov(k_m)·proj */
		gsu_status	st = gsu_featmap_moments(f, mu, incov, mean, vdiag, work, pg);

		if (st != GSU_OK)
			return st;

		for (l = 0; l < m; l++)
		{
			if (gsu_progress_tick(pg, (double) D * m))
				return GSU_ECANCELLED;
			for (k = 0; k < D; k++)
			{
				double		t = 0.0;

				for (int l2 = 0; l2 < m; l2++)
					t += Ck[(size_t) l * m + l2] * f->proj[(size_t) l2 * D + k];
				T[(size_t) l * D + k] = t;
			}
		}
		for (j = 0; j < D; j++)
		{
			if (gsu_progress_tick(pg, (double) (j + 1) * m))
				return GSU_ECANCELLED;
			for (k = 0; k <= j; k++)
			{
				double		a = 0.0;

				for (l = 0; l < m; l++)
					a += f->proj[(size_t) l * D + j] * T[(size_t) l * D + k];
				C[(size_t) j * D + k] = C[(size_t) k * D + j] = a;
			}
		}
		for (j = 0; j < D; j++)
			C[(size_t) j * D + j] = vdiag[j];
		return GSU_OK;
	}
}


/* ------------------------------- wᵀ Cov φ(z) w without the D × D matrix */

int
gsu_featmap_quad_outer(const gsu_featmap *f)
{
	return f->kind == GSU_MAP_RFF ? f->dim / 2 :
		f->kind == GSU_MAP_POLY2 ? f->p : f->landmarks;
}

/*
 * work layout.  RFF (h = D/2): m_j, s_jj, cos m_j, sin m_j (4h), u (p).
 * Nyström: E k_l (m), g_v = proj·w_v (nw·m), μ and the variances (2p),
 * in Σ's eigenbasis for a full Σ, which also needs the landmarks rotated
 * to that basis (m·p).
 */
size_t
gsu_featmap_quad_work_size(const gsu_featmap *f, int nw, int full)
{
	if (f->kind == GSU_MAP_POLY2)
		return gsu_poly2_quad_work_size(f);
	if (f->kind == GSU_MAP_RFF)
		return 4 * ((size_t) f->dim / 2) + (size_t) f->p;
	return (size_t) f->landmarks * (1 + (size_t) nw + (full ? (size_t) f->p : 0)) +
		2 * (size_t) f->p;
}

gsu_status
gsu_featmap_quad_prepare(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
						 int nw, const double *const *w, double *mean, double *quad,
						 double *work)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				j,
				k,
				l;

	for (k = 0; k < nw; k++)
		quad[k] = 0.0;
	if (f->kind == GSU_MAP_POLY2)
	{
		gsu_poly2_quad_prepare(f, mu, incov, nw, w, mean, quad, work);
		return GSU_OK;
	}
	if (f->kind == GSU_MAP_RFF)
	{
		int			h = f->dim / 2;
		double		c = sqrt(2.0 / f->dim);
		double	   *mj = work,
				   *sjj = mj + h,
				   *cm = sjj + h,
				   *sm = cm + h;

		for (j = 0; j < h; j++)
		{
			const double *om = f->omega + (size_t) j * p;
			double		t = 0.0,
						e;

			for (l = 0; l < p; l++)
				t += om[l] * mu[l];
			mj[j] = t;
			sjj[j] = gsu_sigma_quad_form(p, om, var, iso, cov);
			cm[j] = cos(t);
			sm[j] = sin(t);
			e = exp(-0.5 * sjj[j]);
			mean[2 * j] = c * e * cm[j];
			mean[2 * j + 1] = c * e * sm[j];
		}
		return GSU_OK;
	}
	else
	{
		int			m = f->landmarks,
					r = f->dim;
		double	   *ek = work,
				   *g = ek + m,
				   *mur = g + (size_t) nw * m,
				   *v = mur + p,
				   *zr = v + p;
		const double *zb = f->z,
				   *mub = mu;
		double		s2 = f->sigma * f->sigma,
					logdet1 = 0.0;

		if (cov != NULL)
		{
			/* Σ's eigenbasis, where it is diag(λ) and the kernel unchanged */
			double	   *block,
					   *vals,
					   *vecs;
			gsu_status	st = gsu_sigma_eigen(p, cov, &block, &vals, &vecs);
			int			i;

			if (st != GSU_OK)
				return st;
			for (i = 0; i < p; i++)
			{
				double		t = 0.0;

				for (k = 0; k < p; k++)
					t += vecs[(size_t) k * p + i] * mu[k];
				mur[i] = t;
				v[i] = vals[i];
			}
			for (l = 0; l < m; l++)
				for (i = 0; i < p; i++)
				{
					double		t = 0.0;

					for (k = 0; k < p; k++)
						t += vecs[(size_t) k * p + i] * f->z[(size_t) l * p + k];
					zr[(size_t) l * p + i] = t;
				}
			free(block);
			zb = zr;
			mub = mur;
		}
		else
			for (k = 0; k < p; k++)
			{
				v[k] = var != NULL ? var[k] : iso;
				mur[k] = mu[k];
			}
		for (k = 0; k < p; k++)
			logdet1 += log1p(v[k] / s2);
		kernel_means(m, p, zb, mub, v, s2, logdet1, ek);
		for (j = 0; j < r; j++)
		{
			double		t = 0.0;

			for (l = 0; l < m; l++)
				t += f->proj[(size_t) l * r + j] * ek[l];
			mean[j] = t;
		}
		for (k = 0; k < nw; k++)
			for (l = 0; l < m; l++)
			{
				const double *pr = f->proj + (size_t) l * r;
				double		t = 0.0;

				for (j = 0; j < r; j++)
					t += pr[j] * w[k][j];
				g[(size_t) k * m + l] = t;
			}
		return GSU_OK;
	}
}

void
gsu_featmap_quad_block(const gsu_featmap *f, const gsu_cov *incov, int nw,
					   const double *const *w, int j0, int j1, double *quad, double *work)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				j,
				k,
				l,
				v;

	if (f->kind == GSU_MAP_POLY2)
	{
		gsu_poly2_quad_block(f, incov, nw, w, j0, j1, quad, work);
		return;
	}
	if (f->kind == GSU_MAP_RFF)
	{
		int			h = f->dim / 2;
		double		c2 = 2.0 / f->dim;
		double	   *mj = work,
				   *sjj = mj + h,
				   *cm = sjj + h,
				   *sm = cm + h,
				   *u = sm + h;

		for (j = j0; j < j1; j++)
		{
			const double *oj = f->omega + (size_t) j * p;
			double		ej = exp(-0.5 * sjj[j]),
						mcj = ej * cm[j],	/* the means over c */
						msj = ej * sm[j];

			sigma_times(p, var, iso, cov, oj, u);
			for (k = 0; k <= j; k++)
			{
				const double *ok = f->omega + (size_t) k * p;
				double		sjk = 0.0,
							ek = exp(-0.5 * sjj[k]),
							cc,
							ss,
							sc,
							cs;

				for (l = 0; l < p; l++)
					sjk += ok[l] * u[l];
				if (k == j)
				{
					/* the cancellation-free variances of gsu_featmap_moments */
					double		s2 = fmax(sjj[j], 0.0),
								e1 = exp(-0.5 * s2),
								g = -expm1(-s2),
								c2m = cm[j] * cm[j] - sm[j] * sm[j],
								ep = exp(-0.5 * fmax(4.0 * sjj[j], 0.0)),
								s2m = 2.0 * sm[j] * cm[j];

					cc = c2 * 0.5 * g * (1.0 - e1 * e1 * c2m);
					ss = c2 * 0.5 * g * (1.0 + e1 * e1 * c2m);
					cs = c2 * (0.5 * ep * s2m - mcj * msj);
					for (v = 0; v < nw; v++)
					{
						double		a = w[v][2 * j],
									b = w[v][2 * j + 1];

						quad[v] += a * a * cc + b * b * ss + 2.0 * a * b * cs;
					}
				}
				else
				{
					double		em = exp(-0.5 * fmax(sjj[j] + sjj[k] - 2.0 * sjk, 0.0)),
								ep = exp(-0.5 * fmax(sjj[j] + sjj[k] + 2.0 * sjk, 0.0)),
								cmk = cm[j] * cm[k] + sm[j] * sm[k],	/* cos(m_j − m_k) */
								cpk = cm[j] * cm[k] - sm[j] * sm[k],	/* cos(m_j + m_k) */
								smk = sm[j] * cm[k] - cm[j] * sm[k],	/* sin(m_j − m_k) */
								spk = sm[j] * cm[k] + cm[j] * sm[k],	/* sin(m_j + m_k) */
								mck = ek * cm[k],
								msk = ek * sm[k];

					cc = c2 * (0.5 * (em * cmk + ep * cpk) - mcj * mck);
					ss = c2 * (0.5 * (em * cmk - ep * cpk) - msj * msk);
					sc = c2 * (0.5 * (ep * spk + em * smk) - msj * mck);
					cs = c2 * (0.5 * (ep * spk - em * smk) - mcj * msk);
					for (v = 0; v < nw; v++)
					{
						const double *wv = w[v];

						quad[v] += 2.0 * (wv[2 * j] * (wv[2 * k] * cc + wv[2 * k + 1] * cs) +
										  wv[2 * j + 1] * (wv[2 * k] * sc + wv[2 * k + 1] * ss));
					}
				}
			}
		}
	}
	else
	{
		int			m = f->landmarks;
		double	   *ek = work,
				   *g = ek + m,
				   *mur = g + (size_t) nw * m,
				   *vv = mur + p,
				   *zr = vv + p;
		const double *zb = cov != NULL ? zr : f->z;
		double		s2 = f->sigma * f->sigma,
					logdet2 = 0.0;

		(void) var;
		(void) iso;
		for (k = 0; k < p; k++)
			logdet2 += log1p(2.0 * vv[k] / s2);
		/* Cov(k_l, k_l') on the fly, gᵀ Cov(k_m) g summed over l' ≤ l */
		for (l = j0; l < j1; l++)
		{
			const double *a = zb + (size_t) l * p;

			for (int l2 = 0; l2 <= l; l2++)
			{
				double		cv = pair_moment(p, a, zb + (size_t) l2 * p, mur, vv, s2, logdet2) -
					ek[l] * ek[l2];
				if (l2 != l)
					cv *= 2.0;
				for (v = 0; v < nw; v++)
					quad[v] += g[(size_t) v * m + l] * g[(size_t) v * m + l2] * cv;
			}
		}
	}
}
