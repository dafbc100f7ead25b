/*
 * gsu_featmap_poly2.c — the exact degree-2 polynomial feature map of the
 * kernel k(x, z) = (xᵀz)² (Bi & Zhang's TSVC experiment):
 *
 *     φ(x) = (x_i x_j for i ≤ j, times √2 when i < j),  D = p(p+1)/2,
 *
 * in the order (0,0), (0,1), …, (0,p−1), (1,1), …, (p−1,p−1), so that
 * φ(x)ᵀφ(z) = Σ_i x_i²z_i² + 2Σ_{i<j} x_ix_jz_iz_j = (xᵀz)² exactly.  The map
 * has no parameters and no stored block.
 *
 * Moments for z ~ N(μ, Σ) (Isserlis' theorem), with c_a = √2 for a pair
 * a = (i, j), i < j, and 1 for i = j:
 *     E φ_a = c_a (μ_iμ_j + Σ_ij),
 *     Cov(φ_(i,j), φ_(k,l)) = c_(i,j) c_(k,l) [μ_iμ_kΣ_jl + μ_iμ_lΣ_jk + μ_jμ_kΣ_il
 *                                             + μ_jμ_lΣ_ik + Σ_ikΣ_jl + Σ_ilΣ_jk],
 * so Var φ_(i,j) = 2(μ_i²Σ_jj + μ_j²Σ_ii + 2μ_iμ_jΣ_ij + Σ_iiΣ_jj + Σ_ij²) for i < j
 * and Var φ_(i,i) = 4μ_i²Σ_ii + 2Σ_ii².
 *
 * A weight vector w is the symmetric p × p matrix W with W_ii = w_(i,i) and
 * W_ij = W_ji = w_(i,j)/√2, wᵀφ(z) = zᵀWz, and (Gaussian quadratic form)
 *     wᵀ Cov φ(z) w = Var zᵀWz = 2 tr(WΣWΣ) + 4 μᵀWΣWμ,
 * which the quad functions sum row by row of WΣ in O(p²) memory.
 *
 * Worst case over U = {δ : ‖Σ^{−1/2}δ‖_p ≤ γ}: |δ_k| ≤ τ_k = γ‖Σ^{1/2}e_k‖_q
 * (Hölder, q the dual of p; τ_k = γ√Σ_kk for q = 2 or a diagonal Σ), so U lies
 * in the box |δ_k| ≤ τ_k, and φ_(i,j)(x + δ) − φ_(i,j)(x) = c(x_iδ_j + x_jδ_i + δ_iδ_j)
 * for i < j is bilinear in (δ_i, δ_j): its range over the rectangle is
 * spanned by the four corners.  For i = j, 2x_iδ_i + δ_i² over [−τ_i, τ_i]
 * has the maximum 2|x_i|τ_i + τ_i² and the minimum −x_i² when |x_i| ≤ τ_i, else
 * τ_i² − 2|x_i|τ_i.  The box of the D intervals holds every φ(x + δ) − φ(x),
 * δ ∈ U, so ρ(w) = Σ_a max(−y w_a lo_a, −y w_a hi_a) bounds the worst case
 * from above (it is exact for a single coordinate, a relaxation otherwise).
 */
#include "gsu_featmap_poly2.h"
#include "gsu_featmap_sigma.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* √2 for an off-diagonal pair */
#define SQRT2 1.41421356237309504880

int64_t
gsu_poly2_dim(int p)
{
	return p < 1 ? -1 : (int64_t) p * (p + 1) / 2;
}

/* Σ_kl for Σ = cov (full), diag(var) or iso·I */
static inline double
sig(int p, const double *var, double iso, const double *cov, int k, int l)
{
	if (cov != NULL)
		return cov[(size_t) k * p + l];
	if (k != l)
		return 0.0;
	return var != NULL ? var[k] : iso;
}

void
gsu_poly2_apply(const gsu_featmap *f, const double *x, double *phi)
{
	int			p = f->p,
				i,
				j;
	size_t		a = 0;

	for (i = 0; i < p; i++)
	{
		phi[a++] = x[i] * x[i];
		for (j = i + 1; j < p; j++)
			phi[a++] = SQRT2 * x[i] * x[j];
	}
}

void
gsu_poly2_moments(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
				  double *mean, double *var_out)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				i,
				j;
	size_t		a = 0;

	for (i = 0; i < p; i++)
	{
		double		sii = sig(p, var, iso, cov, i, i),
					v;

		mean[a] = mu[i] * mu[i] + sii;
		v = 4.0 * mu[i] * mu[i] * sii + 2.0 * sii * sii;
		var_out[a++] = v > 0.0 ? v : 0.0;
		for (j = i + 1; j < p; j++)
		{
			double		sjj = sig(p, var, iso, cov, j, j),
						sij = sig(p, var, iso, cov, i, j);

			mean[a] = SQRT2 * (mu[i] * mu[j] + sij);
			v = 2.0 * (mu[i] * mu[i] * sjj + mu[j] * mu[j] * sii + 2.0 * mu[i] * mu[j] * sij +
					   sii * sjj + sij * sij);
			var_out[a++] = v > 0.0 ? v : 0.0;
		}
	}
}

gsu_status
gsu_poly2_covariance(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
					 double *mean, double *C, gsu_progress *pg)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				D = f->dim,
				i,
				j,
				k,
				l;
	size_t		a = 0;

	for (i = 0; i < p; i++)
		for (j = i; j < p; j++, a++)
		{
			double		ca = i == j ? 1.0 : SQRT2;
			size_t		b = 0;

			if (gsu_progress_tick(pg, 8.0 * (double) D))
				return GSU_ECANCELLED;
			mean[a] = ca * (mu[i] * mu[j] + sig(p, var, iso, cov, i, j));
			for (k = 0; k < p; k++)
				for (l = k; l < p; l++, b++)
				{
					double		cb = k == l ? 1.0 : SQRT2,
								sik = sig(p, var, iso, cov, i, k),
								sil = sig(p, var, iso, cov, i, l),
								sjk = sig(p, var, iso, cov, j, k),
								sjl = sig(p, var, iso, cov, j, l);

					if (b < a)
						continue;	/* the lower triangle is copied below */
					C[a * D + b] = C[b * D + a] =
						ca * cb * (mu[i] * mu[k] * sjl + mu[i] * mu[l] * sjk +
								   mu[j] * mu[k] * sil + mu[j] * mu[l] * sik +
								   sik * sjl + sil * sjk);
				}
		}
	/* the diagonal from gsu_poly2_moments's forms (clamped at 0) */
	{
		double	   *m2 = malloc(sizeof(double) * 2 * (size_t) D);

		if (m2 == NULL)
			return GSU_ENOMEM;
		gsu_poly2_moments(f, mu, incov, m2, m2 + D);
		for (a = 0; a < (size_t) D; a++)
			C[a * D + a] = m2[D + a];
		free(m2);
	}
	return GSU_OK;
}

/* W_kl of the weight vector w (the symmetric matrix with wᵀφ(z) = zᵀWz) */
static inline double
wmat(int p, const double *w, int k, int l)
{
	int			i = k < l ? k : l,
				j = k < l ? l : k;
	double		v = w[(size_t) i * p - (size_t) i * (i - 1) / 2 + (size_t) (j - i)];

	return i == j ? v : v / SQRT2;
}

size_t
gsu_poly2_quad_work_size(const gsu_featmap *f)
{
	return 2 * (size_t) f->p;
}

void
gsu_poly2_quad_prepare(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
					   int nw, const double *const *w, double *mean, double *quad,
					   double *work)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				v,
				k,
				l;
	double	   *a = work;
	size_t		m = 0;

	/* E φ: c_a (μ_iμ_j + Σ_ij) */
	for (k = 0; k < p; k++)
		for (l = k; l < p; l++)
			mean[m++] = (k == l ? 1.0 : SQRT2) * (mu[k] * mu[l] + sig(p, var, iso, cov, k, l));
	for (v = 0; v < nw; v++)
	{
		double		s = 0.0;

		/* a = Wμ, then 4 aᵀΣa */
		for (k = 0; k < p; k++)
		{
			double		t = 0.0;

			for (l = 0; l < p; l++)
				t += wmat(p, w[v], k, l) * mu[l];
			a[k] = t;
		}
		for (k = 0; k < p; k++)
		{
			if (cov != NULL)
			{
				double		t = 0.0;

				for (l = 0; l < p; l++)
					t += cov[(size_t) k * p + l] * a[l];
				s += a[k] * t;
			}
			else
				s += a[k] * a[k] * (var != NULL ? var[k] : iso);
		}
		quad[v] = 4.0 * s;
	}
}

void
gsu_poly2_quad_block(const gsu_featmap *f, const gsu_cov *incov, int nw,
					 const double *const *w, int j0, int j1, double *quad, double *work)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				v,
				j,
				k,
				l;
	double	   *row = work,		/* row j of WΣ */
			   *col = work + p;	/* column j of WΣ */

	for (v = 0; v < nw; v++)
		for (j = j0; j < j1; j++)
		{
			double		s = 0.0;

			for (k = 0; k < p; k++)
			{
				if (cov != NULL)
				{
					double		r = 0.0,
								c = 0.0;

					for (l = 0; l < p; l++)
					{
						r += wmat(p, w[v], j, l) * cov[(size_t) l * p + k];
						c += wmat(p, w[v], k, l) * cov[(size_t) l * p + j];
					}
					row[k] = r;
					col[k] = c;
				}
				else
				{
					double		sk = var != NULL ? var[k] : iso,
								sj = var != NULL ? var[j] : iso;

					row[k] = wmat(p, w[v], j, k) * sk;
					col[k] = wmat(p, w[v], k, j) * sj;
				}
			}
			/* 2 tr((WΣ)²) = 2 Σ_j Σ_k (WΣ)_jk (WΣ)_kj */
			for (k = 0; k < p; k++)
				s += row[k] * col[k];
			quad[v] += 2.0 * s;
		}
}

size_t
gsu_poly2_box_work_size(const gsu_featmap *f)
{
	return (size_t) f->p;
}

gsu_status
gsu_poly2_row_box(const gsu_featmap *f, const double *x, const gsu_cov *incov,
				  double gamma, int q, double *lo, double *hi, double *tau)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				i,
				j,
				k;
	size_t		a = 0;

	if (cov == NULL || q == 2)
		for (k = 0; k < p; k++)
			tau[k] = gamma * sqrt(fmax(sig(p, var, iso, cov, k, k), 0.0));
	else
	{
		/* τ_k = γ‖Σ^{1/2}e_k‖_q, Σ^{1/2} = Q Λ^{1/2} Qᵀ (column k of the root) */
		double	   *block,
				   *vals,
				   *vecs;
		gsu_status	st = gsu_sigma_eigen(p, cov, &block, &vals, &vecs);

		if (st != GSU_OK)
			return st;
		for (k = 0; k < p; k++)
		{
			double		s = 0.0;

			for (i = 0; i < p; i++)
			{
				double		t = 0.0;
				int			e;

				for (e = 0; e < p; e++)
					t += vecs[(size_t) i * p + e] * sqrt(vals[e]) * vecs[(size_t) k * p + e];
				t = fabs(t);
				if (q == 1)
					s += t;
				else if (t > s)
					s = t;
			}
			tau[k] = gamma * s;
		}
		free(block);
	}
	for (i = 0; i < p; i++)
	{
		double		ti = tau[i],
					ax = fabs(x[i]);

		hi[a] = 2.0 * ax * ti + ti * ti;
		lo[a] = ax <= ti ? -x[i] * x[i] : ti * ti - 2.0 * ax * ti;
		a++;
		for (j = i + 1; j < p; j++, a++)
		{
			double		tj = tau[j],
						mn = 0.0,
						mx = 0.0;
			int			si,
						sj;

			/* the corners (±τ_i, ±τ_j); δ = 0 (value 0) lies inside */
			for (si = -1; si <= 1; si += 2)
				for (sj = -1; sj <= 1; sj += 2)
				{
					double		di = si * ti,
								dj = sj * tj,
								g = x[i] * dj + x[j] * di + di * dj;

					mn = fmin(mn, g);
					mx = fmax(mx, g);
				}
			lo[a] = SQRT2 * mn;
			hi[a] = SQRT2 * mx;
		}
	}
	return GSU_OK;
}

double
gsu_poly2_box_worst(const gsu_featmap *f, const double *lo, const double *hi,
					const double *w, double y, double scale, double *grad)
{
	double		rho = 0.0;
	int			a;

	for (a = 0; a < f->dim; a++)
	{
		double		u = -y * w[a] * lo[a],
					v = -y * w[a] * hi[a];

		if (u >= v)
		{
			rho += u;
			if (grad != NULL)
				grad[a] += scale * (-y * lo[a]);
		}
		else
		{
			rho += v;
			if (grad != NULL)
				grad[a] += scale * (-y * hi[a]);
		}
	}
	return rho;
}

void
gsu_poly2_bound_matrix(const gsu_featmap *f, const double *lo, const double *hi, double *A)
{
	size_t		D = (size_t) f->dim;

	memset(A, 0, sizeof(double) * D * D);
	for (size_t a = 0; a < D; a++)
		A[a * D + a] = fmax(fabs(lo[a]), fabs(hi[a]));
}
