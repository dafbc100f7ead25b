/*
 * gsu_standardize.h — uncertainty-aware standardization of training rows
 * (option "standardize"): the per-feature statistics of the training means,
 * the transform of a Gaussian row N(x, Σ), and the fold of a model trained
 * on standardized rows back into the original units.
 *
 * With m_j the mean and s_j the population standard deviation of feature j
 * over the training means, D = diag(s):
 *
 *   x' = D⁻¹(x − m)
 *   Σ' = D⁻¹ Σ D⁻¹:   diagonal v'_j = v_j / s_j²,  full Σ'_jk = Σ_jk/(s_j s_k),
 *                     isotropic σ² I becomes the diagonal σ²/s_j²
 *
 * A feature with s_j = 0 (constant over the training rows) is centred only:
 * s_j = 1.  The statistics are those of gsu_moments (Welford's update, Chan's
 * merge), so states of parallel workers combine exactly.
 *
 * A weight vector w and bias b trained on standardized rows score a row in
 * original units exactly as the folded vector
 *
 *   w̃ = D⁻¹ w,   b̃ = b − w̃ᵀ m:     wᵀx' + b = w̃ᵀx + b̃,   wᵀΣ'w = w̃ᵀΣw̃.
 */
#ifndef GSU_STANDARDIZE_H
#define GSU_STANDARDIZE_H

#include "gsu_cov.h"
#include "gsu_moments.h"

/*
 * The centre and scale of a diagonal moments state (ddof 0): mean[j] = x̄_j,
 * scale[j] = √(M2_j / n), or 1 when that is 0.  GSU_EINVAL when the state is
 * empty or full; GSU_ENOTFINITE when a value is not finite.
 */
gsu_status	gsu_standardize_stats(const gsu_moments *mo, double *mean, double *scale);

/*
 * The scales of population variances var (d values): s_j = √var_j, or 1
 * when that is 0 (out may be var).  GSU_ENOTFINITE when a variance is not
 * finite, GSU_EINVAL when one is negative.
 */
gsu_status	gsu_standardize_scales(int d, const double *var, double *out);

/*
 * The inverse of gsu_standardize_fold: a vector (w~, b~) in original units
 * as it scores standardized rows, w = D w~, b = b~ + w~'m (out may be
 * folded).  GSU_ENOTFINITE on overflow.
 */
gsu_status	gsu_standardize_unfold(int d, const double *mean, const double *scale,
								   const double *folded, double *out);

/*
 * An error unless every scale is positive and finite and every centre
 * finite (GSU_EINVAL): the check of stored statistics.
 */
gsu_status	gsu_standardize_check(int d, const double *mean, const double *scale);

/* x' = D⁻¹(x − m) (out may be x) */
void		gsu_standardize_mean(int d, const double *mean, const double *scale,
								 const double *x, double *out);

/*
 * Σ' = D⁻¹ Σ D⁻¹ of a row's covariance c into out: GSU_COV_NONE stays none
 * (out->data unused), isotropic and diagonal become diagonal (d doubles in
 * buf), full stays full (d×d doubles in buf), a factor L stays a factor of
 * the same rank, D⁻¹L (d×r doubles in buf).  out->data points into buf.
 */
void		gsu_standardize_cov(int d, const double *scale, const gsu_cov *c, gsu_cov *out,
								double *buf);

/*
 * The folded vector: theta = (w_1..w_d, b) trained on standardized rows
 * becomes (w̃, b̃) in original units (out may be theta).  GSU_ENOTFINITE
 * when a value overflows.
 */
gsu_status	gsu_standardize_fold(int d, const double *mean, const double *scale,
								 const double *theta, double *out);

#endif							/* GSU_STANDARDIZE_H */
