/*
 * gsu_featmap_sigma.h — helpers on the input covariance Σ and the Gaussian
 * kernel that the files of the feature maps share (gsu_featmap_sigma.c):
 * the kind-specific values of a gsu_cov, ωᵀΣω, Σ's eigen-decomposition,
 * the kernel's exponent.  On gsu_cov.h only.  Not part of the core's API.
 */
#ifndef GSU_FEATMAP_SIGMA_H
#define GSU_FEATMAP_SIGMA_H

#include "gsu_cov.h"

#include <float.h>

/*
 * The kind-specific values the formulas of the feature maps read: diag(v)'s
 * v, a full matrix, or the isotropic value (NULL or 0 for other kinds).
 */
static inline const double *
gsu_cov_diag_data(const gsu_cov *c)
{
	return c->kind == GSU_COV_DIAG ? c->data : NULL;
}

static inline const double *
gsu_cov_full_data(const gsu_cov *c)
{
	return c->kind == GSU_COV_FULL ? c->data : NULL;
}

static inline double
gsu_cov_iso_value(const gsu_cov *c)
{
	return c->kind == GSU_COV_ISO ? c->iso : 0.0;
}

/* ‖u‖_q of u (length n), q ∈ {1, 2, 0 = ∞} */
double		gsu_qnorm(int n, const double *u, int q);

/* ωᵀΣω for Σ = cov (full, p × p), diag(var) or iso·I; clamped at 0 */
double		gsu_sigma_quad_form(int p, const double *om, const double *var, double iso,
								const double *cov);

/*
 * 1/(2σ²), the Gaussian kernel's factor exp(−‖a − b‖²·1/(2σ²)).  Computed
 * as written (so the kernel keeps its bits) unless 2σ² overflows or the
 * factor is subnormal (σ above about 1e153, which the option allows up to
 * σ² ≤ DBL_MAX): then as (0.5/σ)/σ, which stays positive, so a kernel is
 * never a constant 1 nor ∞·0 = NaN for a squared distance that overflows.
 */
static inline double
gsu_inv_2sigma2(double sigma)
{
	double		f = 1.0 / (2.0 * sigma * sigma);

	return f >= DBL_MIN ? f : 0.5 / sigma / sigma;
}

/*
 * ‖a − b‖²·inv2s2 = ‖a − b‖²/(2σ²) (inv2s2 = gsu_inv_2sigma2(σ)), the
 * Gaussian kernel's exponent: the plain sum times inv2s2 when the sum is
 * finite and inv2s2 normal (bit for bit what the kernel always computed),
 * else from the squared distance's scaled key (gsu_sqdist_key), so that
 * rows near 1e154 with σ near 1e154 keep their kernel values; +∞ only when
 * the ratio itself is beyond double precision (kernel 0, the limit).
 */
double		gsu_gauss_exponent(int p, const double *a, const double *b, double sigma,
							   double inv2s2);

/*
 * Eigen-decomposition of a full Σ (p × p): vals ascending (negative
 * rounding noise clamped to 0), vecs row-major with eigenvectors as
 * columns, both in one block (*block, caller frees).  GSU_ENOMEM, or
 * GSU_ENOTFINITE when dsyevr fails.
 */
gsu_status	gsu_sigma_eigen(int p, const double *cov, double **block, double **vals,
							double **vecs);

#endif							/* GSU_FEATMAP_SIGMA_H */
