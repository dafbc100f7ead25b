/*
 * gsu_featmap_cj.c — Couellan & Jan's own feature-space bounds (Props. 4.1
 * and 4.2), the option beside the exact boxes of gsu_featmap_bounds.c: one
 * number Γ_i a row, with ‖R_i Δφ‖_p̄ ≤ Γ_i for every perturbation of the
 * row's input set, and the robust term Γ_i‖R_i^{−T} w‖_q̄ it gives.  The
 * formulas and where they differ from the printed paper are stated in
 * gsu_featmap.h.
 */
#include "gsu_featmap.h"
#include "gsu_featmap_sigma.h"

#include <math.h>
#include <stdlib.h>

/* Hölder's dual exponent in the encoding 1, 2, 0 (∞) */
static int
dual_exponent(int p)
{
	return p == 2 ? 2 : p == 1 ? 0 : 1;
}

size_t
gsu_cj_work_size(const gsu_featmap *f)
{
	/* RFF: τ (D/2) for Γ, then v and (cos, sin) (2D) for the term; Nyström: g (m), and u and Σ^{1/2}u (2p) */
	size_t		a = f->kind == GSU_MAP_RFF ? 2 * (size_t) f->dim : (size_t) f->landmarks,
				b = 2 * (size_t) f->p;

	return a > b ? a : b;
}

/* Prop. 4.1: Γ from the phase bounds τ_j (gsu_rff_phase_bounds) */
static gsu_status
rff_gamma(const gsu_featmap *f, const gsu_cov *incov, double gamma, int p, int pbar,
		  double *Gamma, double *tau)
{
	int			h = f->dim / 2,
				j;
	double		sum_a = 0.0,
				sum_b = 0.0,
				max_ab = 0.0;
	gsu_status	st = gsu_rff_phase_bounds(f, incov, gamma, dual_exponent(p), tau);

	if (st != GSU_OK)
		return st;
	for (j = 0; j < h; j++)
	{
		double		alpha = fmin(2.0, 0.5 * tau[j] * tau[j]),
					beta = fmin(1.0, tau[j]);

		sum_a += alpha;
		sum_b += beta;
		max_ab = fmax(max_ab, fmax(alpha, beta));
	}
	if (pbar == 1)
		*Gamma = sqrt(2.0 / f->dim) * (sum_a + sum_b);
	else if (pbar == 2)
		*Gamma = sqrt(4.0 / f->dim * sum_a);
	else
		*Gamma = sqrt(2.0 / f->dim) * max_ab;
	return GSU_OK;
}

/*
 * h = an upper bound of |Δxᵀu| over the input set: γ‖Σ^{1/2}u‖_q (Hölder),
 * exact for a diagonal or isotropic Σ and for a full Σ with q = 2; a full Σ
 * with q ≠ 2 uses the enclosing ball, radius·‖u‖.  su: d doubles of scratch.
 */
static double
cross_bound(int d, const double *u, const gsu_cov *incov, double gamma, int q, double radius,
			double *su)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			k;

	if (cov != NULL)
		return q == 2 ? gamma * sqrt(gsu_sigma_quad_form(d, u, NULL, 0.0, cov)) :
			radius * gsu_qnorm(d, u, 2);
	for (k = 0; k < d; k++)
		su[k] = u[k] * sqrt(var != NULL ? var[k] : iso);
	return gamma * gsu_qnorm(d, su, q);
}

/*
 * Prop. 4.2: Γ² = r(Σ_l k_l²(1/τ_l² + 1) − 2ρ Σ_l k_l² τ_l), k_l = k(x, z_l),
 * τ_l = e^{−2h_l/(2σ²)}, ρ = e^{−R²/(2σ²)}, R bounding ‖Δx‖.  The products
 * k_l²/τ_l² are taken as one exponential, whose exponent is at most about
 * 2(γ‖Σ^{1/2}‖)²/σ²: finite unless the input set is far wider than σ, when
 * Γ is +∞ (GSU_ENOTFINITE from gsu_cj_row_gamma).
 */
static gsu_status
nystroem_gamma(const gsu_featmap *f, const double *x, const gsu_cov *incov, double gamma,
			   int p, double *Gamma, double *u)
{
	int			d = f->p,
				m = f->landmarks,
				l,
				k;
	double		i2 = gsu_inv_2sigma2(f->sigma),
				radius = gsu_uncertainty_radius(d, incov, gamma, p),
				rho = exp(-radius * radius * i2),
				s = 0.0;

	for (l = 0; l < m; l++)
	{
		const double *zl = f->z + (size_t) l * d;
		double		e2 = 0.0,
					h;

		for (k = 0; k < d; k++)
		{
			u[k] = x[k] - zl[k];
			e2 += u[k] * u[k];
		}
		h = cross_bound(d, u, incov, gamma, dual_exponent(p), radius, u + d);
		s += exp(-2.0 * e2 * i2 + 4.0 * h * i2) + exp(-2.0 * e2 * i2)
			- 2.0 * rho * exp(-2.0 * e2 * i2 - 2.0 * h * i2);
	}
	*Gamma = sqrt(f->dim * fmax(s, 0.0));
	return GSU_OK;
}

gsu_status
gsu_cj_row_gamma(const gsu_featmap *f, const double *x, const gsu_cov *incov, double gamma,
				 int p, int pbar, double *Gamma, double *work)
{
	gsu_status	st;

	if ((p != 0 && p != 1 && p != 2) || (pbar != 0 && pbar != 1 && pbar != 2) ||
		!(gamma >= 0.0) || f->kind == GSU_MAP_POLY2 ||
		(f->kind == GSU_MAP_NYSTROEM && pbar != 2))
		return GSU_EINVAL;
	if (f->kind == GSU_MAP_RFF)
		st = rff_gamma(f, incov, gamma, p, pbar, Gamma, work);
	else
		st = nystroem_gamma(f, x, incov, gamma, p, Gamma, work);
	if (st == GSU_OK && !isfinite(*Gamma))
		return GSU_ENOTFINITE;
	return st;
}

/* ‖v‖_q and a subgradient s (length n; may be v) of it, q ∈ {1, 2, 0 = ∞}; s = 0 at v = 0 */
static double
norm_and_subgradient(int n, const double *v, int q, double *s)
{
	double		norm = gsu_qnorm(n, v, q);
	int			k,
				arg = -1;

	/* q = ∞: the first coordinate that attains the maximum */
	for (k = 0; q == 0 && arg < 0 && k < n; k++)
		if (fabs(v[k]) == norm)
			arg = k;
	for (k = 0; k < n; k++)
	{
		double		sg = v[k] > 0.0 ? 1.0 : v[k] < 0.0 ? -1.0 : 0.0;

		s[k] = q == 1 ? sg : q == 2 ? (norm > 0.0 ? v[k] / norm : 0.0) :
			(k == arg ? sg : 0.0);
	}
	return norm;
}

double
gsu_cj_row_worst(const gsu_featmap *f, const double *x, double Gamma, int pbar,
				 const double *w, double scale, double *grad, double *work)
{
	int			qbar = dual_exponent(pbar),
				j,
				l;
	double		norm;

	if (f->kind == GSU_MAP_RFF)
	{
		double	   *v = work,
				   *cs = work + f->dim;

		/* v = R_i w; R_i is orthogonal, so R_i^{−T} = R_i */
		gsu_rff_rotate(f, x, w, v, cs);
		/* the subgradient in v overwrites v pair by pair, after its norm is known */
		norm = norm_and_subgradient(f->dim, v, qbar, v);
		if (grad != NULL && norm > 0.0)
			for (j = 0; j < f->dim / 2; j++)
			{
				double		ct = cs[2 * j],
							st = cs[2 * j + 1],
							d1 = Gamma * v[2 * j],
							d2 = Gamma * v[2 * j + 1];

				grad[2 * j] += scale * (ct * d1 - st * d2);
				grad[2 * j + 1] += scale * (st * d1 + ct * d2);
			}
		return Gamma * norm;
	}
	else
	{
		/* g = proj·w = UΛ^{−1/2}w, so ‖g‖₂ = ‖Λ^{−1/2}w‖₂ (U has orthonormal columns) */
		double	   *g = work;
		int			r = f->dim,
					m = f->landmarks;

		for (l = 0; l < m; l++)
		{
			const double *pr = f->proj + (size_t) l * r;
			double		t = 0.0;

			for (j = 0; j < r; j++)
				t += pr[j] * w[j];
			g[l] = t;
		}
		norm = norm_and_subgradient(m, g, 2, g);
		if (grad != NULL && norm > 0.0)
			for (l = 0; l < m; l++)
			{
				const double *pr = f->proj + (size_t) l * r;
				double		dg = scale * Gamma * g[l];

				for (j = 0; j < r; j++)
					grad[j] += dg * pr[j];
			}
		return Gamma * norm;
	}
}
