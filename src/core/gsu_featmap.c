/*
 * gsu_featmap.c — random Fourier and Nyström feature maps of the Gaussian
 * kernel, the exact moments of the mapped features under a Gaussian input,
 * and the worst-case feature-space bounds of Couellan & Jan (Sect. 4).
 * The formulas are stated (and derived) in gsu_featmap.h.
 */
#include "gsu_featmap.h"
#include "gsu_eig.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int64_t
gsu_featmap_length(int kind, int dim, int p, int landmarks)
{
	int64_t		len;

	if (dim < 1 || p < 1)
		return -1;
	switch (kind)
	{
		case GSU_MAP_RFF:
			if (dim % 2 != 0 || landmarks != 0)
				return -1;
			len = (int64_t) (dim / 2) * p;
			break;
		case GSU_MAP_NYSTROEM:
			if (landmarks < 1 || dim > landmarks)
				return -1;
			len = (int64_t) landmarks * p + (int64_t) landmarks * dim;
			break;
		default:
			return -1;
	}
	return len > INT32_MAX ? -1 : len;
}

void
gsu_featmap_bind(gsu_featmap *f, int kind, int p, int dim, int landmarks,
				 double sigma, const double *block)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->p = p;
	f->dim = dim;
	f->landmarks = kind == GSU_MAP_NYSTROEM ? landmarks : 0;
	f->sigma = sigma;
	if (kind == GSU_MAP_RFF)
		f->omega = block;
	else if (kind == GSU_MAP_NYSTROEM)
	{
		f->z = block;
		f->proj = block + (size_t) landmarks * p;
	}
}

gsu_status
gsu_rff_build(int p, int dim, double sigma, uint64_t seed, double *omega)
{
	gsu_rng		rng;
	size_t		i,
				len;

	if (p < 1 || dim < 2 || dim % 2 != 0 || !(sigma > 0.0) || !isfinite(sigma))
		return GSU_EINVAL;
	gsu_rng_seed(&rng, seed);
	len = (size_t) (dim / 2) * p;
	for (i = 0; i < len; i++)
		omega[i] = gsu_rng_normal(&rng) / sigma;
	return GSU_OK;
}

/* exp(−‖a − b‖²/(2σ²)) */
static inline double
gauss_kernel(int p, const double *a, const double *b, double inv2s2)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k < p; k++)
	{
		double		t = a[k] - b[k];

		s += t * t;
	}
	return exp(-s * inv2s2);
}

gsu_status
gsu_nystroem_build(int64_t n, int p, const double *x, int m, double sigma,
				   uint64_t seed, double *z, double *proj, int *r, gsu_progress *pg)
{
	gsu_rng		rng;
	int64_t    *idx;
	double	   *K,
			   *evals,
			   *evecs;
	double		inv2s2;
	int			i,
				j,
				kept;
	gsu_status	st;

	*r = 0;
	if (m < 1 || (int64_t) m > n || p < 1 || !(sigma > 0.0) || !isfinite(sigma))
		return GSU_EINVAL;

	/* landmarks: the first m of a partial Fisher–Yates shuffle of 0..n−1 */
	idx = malloc(sizeof(int64_t) * (size_t) n);
	if (idx == NULL)
		return GSU_ENOMEM;
	for (int64_t t = 0; t < n; t++)
		idx[t] = t;
	gsu_rng_seed(&rng, seed);
	for (i = 0; i < m; i++)
	{
		int64_t		k = i + (int64_t) gsu_rng_below(&rng, (uint64_t) (n - i));
		int64_t		tmp = idx[i];

		idx[i] = idx[k];
		idx[k] = tmp;
		memcpy(z + (size_t) i * p, x + (size_t) idx[i] * p, sizeof(double) * p);
	}
	free(idx);

	/*
	 * K (m × m) and the eigenvalues are the only scratch: the eigenvectors
	 * go into proj (its capacity is m × m), column-major, which is turned
	 * into the row-major m × r projection in place.  K is symmetric, so it
	 * reads the same in column-major order.
	 */
	K = malloc(sizeof(double) * ((size_t) m * m + m));
	if (K == NULL)
		return GSU_ENOMEM;
	evecs = proj;
	evals = K + (size_t) m * m;
	inv2s2 = 1.0 / (2.0 * sigma * sigma);
	for (i = 0; i < m; i++)
	{
		if (gsu_progress_tick(pg, (double) (m - i) * p))
		{
			free(K);
			return GSU_ECANCELLED;
		}
		K[(size_t) i * m + i] = 1.0;
		for (j = i + 1; j < m; j++)
			K[(size_t) i * m + j] = K[(size_t) j * m + i] =
				gauss_kernel(p, z + (size_t) i * p, z + (size_t) j * p, inv2s2);
	}
	/*
	 * dsyevr's steps, interruptible (minutes at m = 10,000); K is symmetric,
	 * so it reads the same in column-major order, and evecs comes out
	 * column-major: component i of eigenvector j at evecs[j·m + i]
	 */
	st = gsu_syevr(m, K, evals, evecs, pg);
	if (st != GSU_OK)
	{
		free(K);
		return st;
	}
	/* dsyevr sorts ascending; keep the largest, in descending order */
	kept = 0;
	for (j = m - 1; j >= 0; j--)
		if (evals[j] > GSU_NYSTROEM_REL_EIG * evals[m - 1])
			kept++;
	/* column c of evecs is eigenvector c: scale, reverse the column order, transpose */
	for (j = 0; j < m; j++)
	{
		double		sc = evals[j] > 0.0 ? 1.0 / sqrt(evals[j]) : 0.0;

		if (gsu_progress_tick(pg, 8.0 * m))
		{
			free(K);
			return GSU_ECANCELLED;
		}

		for (i = 0; i < m; i++)
			evecs[(size_t) j * m + i] *= sc;
	}
	for (j = 0; j < m / 2; j++)
		for (i = 0; i < m; i++)
		{
			double		t = evecs[(size_t) j * m + i];

			evecs[(size_t) j * m + i] = evecs[(size_t) (m - 1 - j) * m + i];
			evecs[(size_t) (m - 1 - j) * m + i] = t;
		}
	for (i = 0; i < m; i++)
	{
		if (gsu_progress_tick(pg, 8.0 * (m - i)))
		{
			free(K);
			return GSU_ECANCELLED;
		}
		for (j = i + 1; j < m; j++)
		{
			double		t = evecs[(size_t) i * m + j];

			evecs[(size_t) i * m + j] = evecs[(size_t) j * m + i];
			evecs[(size_t) j * m + i] = t;
		}
	}
	/* row i keeps its first kept entries: compact the rows to stride kept */
	for (i = 1; i < m; i++)
		memmove(proj + (size_t) i * kept, evecs + (size_t) i * m, sizeof(double) * kept);
	/* sign convention (the eigenvectors' signs are arbitrary): largest |entry| positive */
	for (j = 0; j < kept; j++)
	{
		double		big = 0.0;

		if (gsu_progress_tick(pg, 8.0 * m))
		{
			free(K);
			return GSU_ECANCELLED;
		}

		for (i = 0; i < m; i++)
			if (fabs(proj[(size_t) i * kept + j]) > fabs(big))
				big = proj[(size_t) i * kept + j];
		if (big < 0.0)
			for (i = 0; i < m; i++)
				proj[(size_t) i * kept + j] = -proj[(size_t) i * kept + j];
	}
	free(K);
	*r = kept;
	return kept > 0 ? GSU_OK : GSU_ENOTFINITE;
}

size_t
gsu_nystroem_build_bytes(int64_t n, int m)
{
	/* idx, K and the eigenvalues, isuppz, and dsyevr's workspace (26m doubles, 10m ints) */
	return sizeof(int64_t) * (size_t) n + sizeof(double) * ((size_t) m * m + m)
		+ sizeof(lapack_int) * 2 * (size_t) m
		+ sizeof(double) * 26 * (size_t) m + sizeof(lapack_int) * 10 * (size_t) m;
}

size_t
gsu_featmap_apply_work_size(const gsu_featmap *f)
{
	return f->kind == GSU_MAP_NYSTROEM ? (size_t) f->landmarks : 0;
}

size_t
gsu_featmap_work_size(const gsu_featmap *f)
{
	if (f->kind == GSU_MAP_RFF)
		return 2 * (size_t) f->dim + 2 * (size_t) f->p;
	return (size_t) f->landmarks * f->landmarks + 2 * (size_t) f->landmarks
		+ 4 * (size_t) f->p;
}

void
gsu_featmap_apply(const gsu_featmap *f, const double *x, double *phi, double *work)
{
	int			j,
				k;

	if (f->kind == GSU_MAP_RFF)
	{
		double		c = sqrt(2.0 / f->dim);

		for (j = 0; j < f->dim / 2; j++)
		{
			const double *om = f->omega + (size_t) j * f->p;
			double		t = 0.0;

			for (k = 0; k < f->p; k++)
				t += om[k] * x[k];
			phi[2 * j] = c * cos(t);
			phi[2 * j + 1] = c * sin(t);
		}
	}
	else
	{
		double		inv2s2 = 1.0 / (2.0 * f->sigma * f->sigma);
		double	   *km = work;
		int			l;

		for (l = 0; l < f->landmarks; l++)
			km[l] = gauss_kernel(f->p, x, f->z + (size_t) l * f->p, inv2s2);
		for (j = 0; j < f->dim; j++)
			phi[j] = 0.0;
		for (l = 0; l < f->landmarks; l++)
		{
			const double *pr = f->proj + (size_t) l * f->dim;

			for (j = 0; j < f->dim; j++)
				phi[j] += pr[j] * km[l];
		}
	}
}

/* ωᵀΣω for Σ = cov (full), diag(var) or iso·I */
static double
quad_form(int p, const double *om, const double *var, double iso, const double *cov)
{
	double		s = 0.0;
	int			k,
				l;

	if (cov != NULL)
	{
		for (k = 0; k < p; k++)
		{
			double		t = 0.0;

			for (l = 0; l < p; l++)
				t += cov[(size_t) k * p + l] * om[l];
			s += om[k] * t;
		}
	}
	else if (var != NULL)
		for (k = 0; k < p; k++)
			s += om[k] * om[k] * var[k];
	else
	{
		for (k = 0; k < p; k++)
			s += om[k] * om[k];
		s *= iso;
	}
	return s > 0.0 ? s : 0.0;
}

/*
 * Eigen-decomposition of a full Σ (p × p): vals ascending (negative
 * rounding noise clamped to 0), vecs row-major with eigenvectors as
 * columns.  Allocates vals and vecs in one block (*block, caller frees).
 */
static gsu_status
eigen_full(int p, const double *cov, double **block, double **vals, double **vecs)
{
	double	   *a;
	lapack_int *isuppz;
	lapack_int	found = 0,
				info;
	int			k;

	*block = malloc(sizeof(double) * ((size_t) p * p * 2 + p));
	isuppz = malloc(sizeof(lapack_int) * 2 * (size_t) p);
	if (*block == NULL || isuppz == NULL)
	{
		free(*block);
		free(isuppz);
		*block = NULL;
		return GSU_ENOMEM;
	}
	a = *block;
	*vecs = a + (size_t) p * p;
	*vals = *vecs + (size_t) p * p;
	memcpy(a, cov, sizeof(double) * p * p);
	info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', p, a, p, 0.0, 0.0, 0, 0,
						  0.0, &found, *vals, *vecs, p, isuppz);
	free(isuppz);
	if (info != 0 || found != p)
	{
		free(*block);
		*block = NULL;
		return GSU_ENOTFINITE;
	}
	for (k = 0; k < p; k++)
		if ((*vals)[k] < 0.0)
			(*vals)[k] = 0.0;
	return GSU_OK;
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
			const double *b = z + (size_t) l2 * p;
			double		e = 0.0,
						d2 = 0.0,
						cv;

			for (k = 0; k < p; k++)
			{
				double		t = mu[k] - 0.5 * (a[k] + b[k]),
							u = a[k] - b[k];

				e += t * t / (v[k] + 0.5 * s2);
				d2 += u * u;
			}
			cv = exp(-d2 / (4.0 * s2) - 0.5 * (logdet2 + e)) - ek[l] * ek[l2];
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
gsu_featmap_moments(const gsu_featmap *f, const double *mu, const double *var,
					double iso, const double *cov, double *mean, double *var_out,
					double *work, gsu_progress *pg)
{
	int			p = f->p,
				j,
				k;

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
			s2 = quad_form(p, om, var, iso, cov);
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

		st = eigen_full(p, cov, &block, &vals, &vecs);
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
	if (f->kind == GSU_MAP_RFF)
	{
		size_t		h = (size_t) f->dim / 2;

		return h * h + 2 * h + 2 * (size_t) f->p;
	}
	return gsu_featmap_work_size(f) + (size_t) f->dim + (size_t) f->landmarks * f->dim;
}

gsu_status
gsu_featmap_covariance(const gsu_featmap *f, const double *mu, const double *var,
					   double iso, const double *cov, double *mean, double *C,
					   double *work, gsu_progress *pg)
{
	int			D = f->dim,
				p = f->p,
				j,
				k,
				l;

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
		gsu_status	st = gsu_featmap_moments(f, mu, var, iso, cov, mean, vdiag, work, pg);

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

/* ------------------------------------------------- worst-case bounds */

/* ‖u‖_q, q ∈ {1, 2, 0 = ∞} */
static double
qnorm(int n, const double *u, int q)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k < n; k++)
	{
		double		a = fabs(u[k]);

		if (q == 1)
			s += a;
		else if (q == 2)
			s += a * a;
		else if (a > s)
			s = a;
	}
	return q == 2 ? sqrt(s) : s;
}

gsu_status
gsu_rff_phase_bounds(const gsu_featmap *f, const double *var, double iso,
					 const double *cov, double gamma, int q, double *tau)
{
	int			p = f->p,
				h = f->dim / 2,
				j,
				k,
				i;

	if (q != 0 && q != 1 && q != 2)
		return GSU_EINVAL;
	if (cov != NULL && q == 2)
	{
		for (j = 0; j < h; j++)
			tau[j] = gamma * sqrt(quad_form(p, f->omega + (size_t) j * p, NULL, 0.0, cov));
		return GSU_OK;
	}
	if (cov == NULL)
	{
		for (j = 0; j < h; j++)
		{
			const double *om = f->omega + (size_t) j * p;
			double		s = 0.0;

			for (k = 0; k < p; k++)
			{
				double		a = fabs(om[k]) * sqrt(var != NULL ? var[k] : iso);

				if (q == 1)
					s += a;
				else if (q == 2)
					s += a * a;
				else if (a > s)
					s = a;
			}
			tau[j] = gamma * (q == 2 ? sqrt(s) : s);
		}
		return GSU_OK;
	}
	else
	{
		/* full Σ, q ∈ {1, ∞}: Σ^{1/2} = Q Λ^{1/2} Qᵀ */
		double	   *block,
				   *vals,
				   *vecs,
				   *root,
				   *u;
		gsu_status	st = eigen_full(p, cov, &block, &vals, &vecs);

		if (st != GSU_OK)
			return st;
		root = malloc(sizeof(double) * ((size_t) p * p + p));
		if (root == NULL)
		{
			free(block);
			return GSU_ENOMEM;
		}
		u = root + (size_t) p * p;
		for (i = 0; i < p; i++)
			for (k = 0; k < p; k++)
			{
				double		t = 0.0;
				int			e;

				for (e = 0; e < p; e++)
					t += vecs[(size_t) i * p + e] * sqrt(vals[e]) * vecs[(size_t) k * p + e];
				root[(size_t) i * p + k] = t;
			}
		for (j = 0; j < h; j++)
		{
			const double *om = f->omega + (size_t) j * p;

			for (i = 0; i < p; i++)
			{
				double		t = 0.0;

				for (k = 0; k < p; k++)
					t += root[(size_t) i * p + k] * om[k];
				u[i] = t;
			}
			tau[j] = gamma * qnorm(p, u, q);
		}
		free(root);
		free(block);
		return GSU_OK;
	}
}

void
gsu_rff_box(const gsu_featmap *f, const double *tau, double *lo, double *hi)
{
	double		c = sqrt(2.0 / f->dim);
	int			j;

	for (j = 0; j < f->dim / 2; j++)
	{
		double		t1 = fmin(tau[j], M_PI),
					t2 = fmin(tau[j], 0.5 * M_PI);

		lo[2 * j] = -c * (1.0 - cos(t1));
		hi[2 * j] = 0.0;
		lo[2 * j + 1] = -c * sin(t2);
		hi[2 * j + 1] = c * sin(t2);
	}
}

/* v = R w at x: pair j rotated by −θ_j, θ_j = ω_jᵀx; cs (2 per pair) gets (cos θ, sin θ) */
static void
rff_rotate(const gsu_featmap *f, const double *x, const double *w, double *v, double *cs)
{
	int			j,
				k;

	for (j = 0; j < f->dim / 2; j++)
	{
		const double *om = f->omega + (size_t) j * f->p;
		double		t = 0.0,
					ct,
					st;

		for (k = 0; k < f->p; k++)
			t += om[k] * x[k];
		ct = cos(t);
		st = sin(t);
		cs[2 * j] = ct;
		cs[2 * j + 1] = st;
		if (w != NULL)
		{
			v[2 * j] = ct * w[2 * j] + st * w[2 * j + 1];
			v[2 * j + 1] = -st * w[2 * j] + ct * w[2 * j + 1];
		}
	}
}

/* max(−y v lo, −y v hi) and its derivative in v */
static inline double
box_term(double v, double y, double lo, double hi, double *dv)
{
	double		a = -y * v * lo,
				b = -y * v * hi;

	if (a >= b)
	{
		*dv = -y * lo;
		return a;
	}
	*dv = -y * hi;
	return b;
}

double
gsu_rff_box_worst(const gsu_featmap *f, const double *x, const double *lo,
				  const double *hi, const double *w, double y, double scale,
				  double *grad, double *work)
{
	double	   *v = work,
			   *cs = work + f->dim;
	double		rho = 0.0;
	int			j;

	rff_rotate(f, x, w, v, cs);
	for (j = 0; j < f->dim / 2; j++)
	{
		double		d1,
					d2,
					ct = cs[2 * j],
					st = cs[2 * j + 1];

		rho += box_term(v[2 * j], y, lo[2 * j], hi[2 * j], &d1);
		rho += box_term(v[2 * j + 1], y, lo[2 * j + 1], hi[2 * j + 1], &d2);
		if (grad != NULL)
		{
			/* v = R w  ⇒  ∂ρ/∂w = Rᵀ ∂ρ/∂v */
			grad[2 * j] += scale * (ct * d1 - st * d2);
			grad[2 * j + 1] += scale * (st * d1 + ct * d2);
		}
	}
	return rho;
}

gsu_status
gsu_rff_bound_matrix(const gsu_featmap *f, const double *x, const double *lo,
					 const double *hi, double *A)
{
	int			D = f->dim,
				j;
	double	   *cs = malloc(sizeof(double) * D);

	if (cs == NULL)
		return GSU_ENOMEM;
	memset(A, 0, sizeof(double) * (size_t) D * D);
	rff_rotate(f, x, NULL, NULL, cs);
	for (j = 0; j < D / 2; j++)
	{
		double		r1 = fmax(fabs(lo[2 * j]), fabs(hi[2 * j])),
					r2 = fmax(fabs(lo[2 * j + 1]), fabs(hi[2 * j + 1])),
					ct = cs[2 * j],
					st = cs[2 * j + 1];
		size_t		a = (size_t) (2 * j) * D + 2 * j,
					b = (size_t) (2 * j + 1) * D + 2 * j;

		A[a] = r1 * ct;
		A[a + 1] = r1 * st;
		A[b] = -r2 * st;
		A[b + 1] = r2 * ct;
	}
	free(cs);
	return GSU_OK;
}

double
gsu_uncertainty_radius(int dim, const double *var, double iso, const double *cov,
					   double gamma, int p)
{
	double		lmax = 0.0;
	int			k;

	if (cov != NULL)
	{
		double	   *block,
				   *vals,
				   *vecs;

		if (eigen_full(dim, cov, &block, &vals, &vecs) != GSU_OK)
		{
			/* Gershgorin: λ_max ≤ max_k Σ_l |Σ_kl| */
			for (k = 0; k < dim; k++)
			{
				double		s = 0.0;

				for (int l = 0; l < dim; l++)
					s += fabs(cov[(size_t) k * dim + l]);
				lmax = fmax(lmax, s);
			}
		}
		else
		{
			lmax = vals[dim - 1];
			free(block);
		}
		return gamma * sqrt(lmax) * (p == 0 ? sqrt((double) dim) : 1.0);
	}
	if (var != NULL)
	{
		double		s = 0.0;

		for (k = 0; k < dim; k++)
		{
			lmax = fmax(lmax, var[k]);
			s += var[k];
		}
		/* p = ∞ with a diagonal Σ: the box's half-diagonal γ√(Σ v_k) */
		return gamma * sqrt(p == 0 ? s : lmax);
	}
	return gamma * sqrt(iso) * (p == 0 ? sqrt((double) dim) : 1.0);
}

/*
 * The least and greatest ‖e + δ‖² over the ellipsoid δ = diag(v)^{1/2}u,
 * ‖u‖ ≤ γ (Lagrange: u_k = ±√v_k e_k/(λ ∓ v_k), λ from the secular
 * equation Σ_k v_k e_k²/(λ ∓ v_k)² = γ², solved by bisection and taken on
 * the side of the root that keeps the interval conservative).
 *   max: λ ≥ max v_k, ‖e + δ‖² = Σ e_k² λ²/(λ − v_k)² (decreasing in λ); when
 *        e has no component on the widest axes and the equation has no root
 *        there (the "hard case"), λ = max v_k and the rest of the budget goes
 *        along those axes;
 *   min: 0 when e lies in the ellipsoid, else λ > 0 and
 *        ‖e + δ‖² = Σ e_k² λ²/(λ + v_k)² (increasing in λ).
 */
static void
ellipsoid_distance_range(int d, const double *e, const double *var, double iso,
						 double gamma, double *dmin2, double *dmax2)
{
	double		vmax = 0.0,
				e2 = 0.0,
				g2 = gamma * gamma,
				eS2 = 0.0,
				lo,
				hi,
				h0 = 0.0,
				fixed2 = 0.0;
	int			k,
				it;

#define V(k) (var != NULL ? var[k] : iso)
	for (k = 0; k < d; k++)
	{
		vmax = fmax(vmax, V(k));
		e2 += e[k] * e[k];
	}
	if (vmax <= 0.0 || g2 <= 0.0)
	{
		*dmin2 = *dmax2 = e2;
		return;
	}
	/* ---- greatest distance */
	for (k = 0; k < d; k++)
		if (V(k) == vmax)
			eS2 += e[k] * e[k];
	lo = vmax;
	hi = vmax + sqrt(vmax * e2) / gamma + vmax * 1e-12 + DBL_MIN;
	if (eS2 == 0.0)
	{
		double		g = 0.0,
					d2 = 0.0;

		for (k = 0; k < d; k++)
			if (V(k) < vmax)
			{
				double		t = vmax - V(k);

				g += V(k) * e[k] * e[k] / (t * t);
				d2 += e[k] * e[k] * vmax * vmax / (t * t);
			}
		if (g <= g2)
		{
			*dmax2 = d2 + vmax * (g2 - g);
			goto minimum;
		}
	}
	for (it = 0; it < 200; it++)
	{
		double		mid = 0.5 * (lo + hi),
					g = 0.0;

		if (mid <= lo || mid >= hi)
			break;
		for (k = 0; k < d; k++)
		{
			double		t = mid - V(k);

			g += V(k) * e[k] * e[k] / (t * t);
		}
		if (g > g2)
			lo = mid;
		else
			hi = mid;
	}
	/* lo: g ≥ γ², the larger distance */
	{
		double		d2 = 0.0;

		if (lo <= vmax)
			lo = nextafter(vmax, INFINITY);
		for (k = 0; k < d; k++)
		{
			double		r = lo / (lo - V(k));

			d2 += e[k] * e[k] * r * r;
		}
		*dmax2 = d2;
	}

minimum:
	/* ---- least distance */
	for (k = 0; k < d; k++)
	{
		if (V(k) > 0.0)
			h0 += e[k] * e[k] / V(k);
		else
			fixed2 += e[k] * e[k];
	}
	if (h0 <= g2)
	{
		*dmin2 = fixed2;
		return;
	}
	lo = 0.0;
	hi = sqrt(vmax * e2) / gamma + DBL_MIN;
	for (it = 0; it < 200; it++)
	{
		double		mid = 0.5 * (lo + hi),
					h = 0.0;

		if (mid <= lo || mid >= hi)
			break;
		for (k = 0; k < d; k++)
		{
			double		t = mid + V(k);

			h += V(k) * e[k] * e[k] / (t * t);
		}
		if (h > g2)
			lo = mid;
		else
			hi = mid;
	}
	/* lo: h ≥ γ², the smaller distance */
	{
		double		d2 = 0.0;

		for (k = 0; k < d; k++)
		{
			double		r = lo / (lo + V(k));

			d2 += e[k] * e[k] * r * r;
		}
		*dmin2 = d2;
	}
#undef V
}

gsu_status
gsu_nystroem_box(const gsu_featmap *f, const double *x, const double *var,
				 double iso, const double *cov, double gamma, int p,
				 double *lo, double *hi, double *radius, double *work)
{
	int			m = f->landmarks,
				d = f->p,
				l,
				k;
	double		inv2s2 = 1.0 / (2.0 * f->sigma * f->sigma);
	double		rho;
	int			exact_box = (p == 0 && cov == NULL);

	if (p != 0 && p != 1 && p != 2)
		return GSU_EINVAL;
	rho = gsu_uncertainty_radius(d, var, iso, cov, gamma, p);
	*radius = rho;
	for (l = 0; l < m; l++)
	{
		const double *zl = f->z + (size_t) l * d;
		double		dmin2 = 0.0,
					dmax2 = 0.0,
					k0;

		if (exact_box)
		{
			double		e2 = 0.0;

			for (k = 0; k < d; k++)
			{
				double		e = fabs(x[k] - zl[k]),
							rk = gamma * sqrt(var != NULL ? var[k] : iso),
							a = fmax(0.0, e - rk),
							b = e + rk;

				dmin2 += a * a;
				dmax2 += b * b;
				e2 += e * e;
			}
			k0 = exp(-e2 * inv2s2);
		}
		else if (p == 2 && cov == NULL)
		{
			double	   *ev = work,
						e2 = 0.0;

			for (k = 0; k < d; k++)
			{
				ev[k] = x[k] - zl[k];
				e2 += ev[k] * ev[k];
			}
			ellipsoid_distance_range(d, ev, var, iso, gamma, &dmin2, &dmax2);
			k0 = exp(-e2 * inv2s2);
		}
		else
		{
			double		e2 = 0.0,
						e,
						a,
						b;

			for (k = 0; k < d; k++)
			{
				double		t = x[k] - zl[k];

				e2 += t * t;
			}
			e = sqrt(e2);
			a = fmax(0.0, e - rho);
			b = e + rho;
			dmin2 = a * a;
			dmax2 = b * b;
			k0 = exp(-e2 * inv2s2);
		}
		lo[l] = exp(-dmax2 * inv2s2) - k0;
		hi[l] = exp(-dmin2 * inv2s2) - k0;
		if (lo[l] > 0.0)
			lo[l] = 0.0;
		if (hi[l] < 0.0)
			hi[l] = 0.0;
	}
	return GSU_OK;
}

double
gsu_nystroem_box_worst(const gsu_featmap *f, const double *lo, const double *hi,
					   const double *w, double y, double scale, double *grad,
					   double *work)
{
	int			m = f->landmarks,
				r = f->dim,
				l,
				j;
	double		rho = 0.0;

	(void) work;
	for (l = 0; l < m; l++)
	{
		const double *pr = f->proj + (size_t) l * r;
		double		g = 0.0,
					dg;

		for (j = 0; j < r; j++)
			g += pr[j] * w[j];
		rho += box_term(g, y, lo[l], hi[l], &dg);
		if (grad != NULL && dg != 0.0)
			for (j = 0; j < r; j++)
				grad[j] += scale * dg * pr[j];
	}
	return rho;
}

void
gsu_nystroem_bound_matrix(const gsu_featmap *f, const double *lo, const double *hi,
						  double *A)
{
	int			m = f->landmarks,
				r = f->dim,
				l,
				j;

	for (l = 0; l < m; l++)
	{
		double		beta = fmax(fabs(lo[l]), fabs(hi[l]));

		for (j = 0; j < r; j++)
			A[(size_t) l * r + j] = beta * f->proj[(size_t) l * r + j];
	}
}

/* ------------------------------------ per-row worst case, for training */

size_t
gsu_featmap_box_len(const gsu_featmap *f)
{
	return 2 * (size_t) (f->kind == GSU_MAP_RFF ? f->dim : f->landmarks);
}

size_t
gsu_featmap_box_work_size(const gsu_featmap *f)
{
	/* row_box: τ (D/2) or p; row_term: 2D (RFF) or m (Nyström) */
	size_t		a = f->kind == GSU_MAP_RFF ? 2 * (size_t) f->dim : (size_t) f->landmarks;
	size_t		b = f->kind == GSU_MAP_RFF ? (size_t) f->dim / 2 : (size_t) f->p;

	return a > b ? a : b;
}

gsu_status
gsu_featmap_row_box(const gsu_featmap *f, const double *x, const double *var,
					double iso, const double *cov, double gamma, int p,
					double *box, double *work)
{
	size_t		half = gsu_featmap_box_len(f) / 2,
				k;
	gsu_status	st;

	if (p != 0 && p != 1 && p != 2)
		return GSU_EINVAL;
	if (f->kind == GSU_MAP_RFF)
	{
		/* Hölder's dual: p = 1 ↔ q = ∞ (0), p = 2 ↔ 2, p = ∞ ↔ 1 */
		int			q = p == 2 ? 2 : p == 1 ? 0 : 1;

		st = gsu_rff_phase_bounds(f, var, iso, cov, gamma, q, work);
		if (st != GSU_OK)
			return st;
		gsu_rff_box(f, work, box, box + half);
	}
	else
	{
		double		radius;

		st = gsu_nystroem_box(f, x, var, iso, cov, gamma, p, box, box + half, &radius, work);
		if (st != GSU_OK)
			return st;
	}
	for (k = 0; k < 2 * half; k++)
		if (!isfinite(box[k]))
			return GSU_ENOTFINITE;
	return GSU_OK;
}

double
gsu_featmap_row_term(const void *arg, int64_t i, const double *w, double y,
					 double scale, double *grad)
{
	const gsu_featmap_rows *r = (const gsu_featmap_rows *) arg;
	const gsu_featmap *f = r->f;
	size_t		half = gsu_featmap_box_len(f) / 2;
	const double *lo = r->box + (size_t) i * 2 * half;

	if (f->kind == GSU_MAP_RFF)
		return gsu_rff_box_worst(f, r->x + (size_t) i * f->p, lo, lo + half, w, y, scale,
								 grad, r->work);
	return gsu_nystroem_box_worst(f, lo, lo + half, w, y, scale, grad, r->work);
}

/* ------------------------------- wᵀ Cov φ(z) w without the D × D matrix */

int
gsu_featmap_quad_outer(const gsu_featmap *f)
{
	return f->kind == GSU_MAP_RFF ? f->dim / 2 : f->landmarks;
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
	if (f->kind == GSU_MAP_RFF)
		return 4 * ((size_t) f->dim / 2) + (size_t) f->p;
	return (size_t) f->landmarks * (1 + (size_t) nw + (full ? (size_t) f->p : 0)) +
		2 * (size_t) f->p;
}

gsu_status
gsu_featmap_quad_prepare(const gsu_featmap *f, const double *mu, const double *var,
						 double iso, const double *cov, int nw, const double *const *w,
						 double *mean, double *quad, double *work)
{
	int			p = f->p,
				j,
				k,
				l;

	for (k = 0; k < nw; k++)
		quad[k] = 0.0;
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
			sjj[j] = quad_form(p, om, var, iso, cov);
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
			gsu_status	st = eigen_full(p, cov, &block, &vals, &vecs);
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
gsu_featmap_quad_block(const gsu_featmap *f, const double *var, double iso,
					   const double *cov, int nw, const double *const *w,
					   int j0, int j1, double *quad, double *work)
{
	int			p = f->p,
				j,
				k,
				l,
				v;

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
				const double *b = zb + (size_t) l2 * p;
				double		e = 0.0,
							d2 = 0.0,
							cv;

				for (k = 0; k < p; k++)
				{
					double		t = mur[k] - 0.5 * (a[k] + b[k]),
								uu = a[k] - b[k];

					e += t * t / (vv[k] + 0.5 * s2);
					d2 += uu * uu;
				}
				cv = exp(-d2 / (4.0 * s2) - 0.5 * (logdet2 + e)) - ek[l] * ek[l2];
				if (l2 != l)
					cv *= 2.0;
				for (v = 0; v < nw; v++)
					quad[v] += g[(size_t) v * m + l] * g[(size_t) v * m + l2] * cv;
			}
		}
	}
}
