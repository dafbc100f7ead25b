/*
 * gsu_loss.h — the expected hinge loss of one Gaussian row, its gradients,
 * the streaming SGD step on it and the scoring functions built on it
 * (gsu_loss.c).  The losses as a model names them, and their table, are
 * gsu_loss_table.h.
 *
 * Notation (Tzelepis et al., "Linear Maximum Margin Classifier for Learning
 * from Uncertain Data", TPAMI 2018).  A row is a Gaussian N(x, Σ) with label
 * y ∈ {−1, +1}; the classifier is f(z) = wᵀz + b.  With
 *
 *     d_x = 1 − y (wᵀx + b),      d_Σ = √(2 wᵀΣw),      u = d_x / d_Σ,
 *
 * the expected hinge loss under the Gaussian is
 *
 *     L = d_x/2 · (1 + erf u) + d_Σ/(2√π) · exp(−u²)  =  d_Σ · h(u),
 *     h(u) = u/2 · erfc(−u) + exp(−u²)/(2√π).
 *
 * Its partial derivatives are  ∂L/∂d_x = ½ erfc(−u) =: p  and
 * ∂L/∂d_Σ = exp(−u²)/(2√π) =: q, which give (label factors restored, unlike
 * the paper's eqs. 7–8)
 *
 *     ∂L/∂w = 2q/d_Σ · Σw − p·y·x,        ∂L/∂b = −p·y.
 *
 * As d_Σ → 0 the loss tends to the hinge max(0, d_x); below GSU_DSIGMA_FLOOR,
 * or when |u| > GSU_U_SATURATE, the hinge form is used exactly.
 */
#ifndef GSU_LOSS_H
#define GSU_LOSS_H

#include "gsu_cov.h"

/* Below this d_Σ the loss is the hinge loss exactly. */
#define GSU_DSIGMA_FLOOR 1e-150
/* For |u| beyond this, erfc and exp(−u²) saturate in double precision. */
#define GSU_U_SATURATE 40.0

/* ---------------------------------------------------------------- erf */

/*
 * h(u) = u/2·erfc(−u) + exp(−u²)/(2√π), accurate to about 1e-14 relative for
 * every u (a continued fraction avoids the cancellation for u ≪ 0); 0 below
 * u = −40, where it underflows.
 */
double		gsu_h(double u);

/* Φ(z), the standard normal CDF, via erfc (accurate in both tails). */
double		gsu_normal_cdf(double z);

/* --------------------------------------------------------- per-row loss */

/*
 * The expected hinge loss and its partials for one row given d_x and d_Σ:
 * *p = ∂L/∂d_x, *q = ∂L/∂d_Σ (either pointer may be NULL).  Exact hinge for
 * d_Σ ≤ GSU_DSIGMA_FLOOR or |d_x| > GSU_U_SATURATE·d_Σ, where q = 0 and
 * p ∈ {0, 1} (p = 0 at the kink d_x = 0).
 */
double		gsu_expected_hinge(double dx, double ds, double *p, double *q);

/*
 * One row's loss under the Gaussian-smoothed hinge of gsu_objective (D =
 * √(2wᵀΣw + μ²); μ = 0 is the plain expected hinge), adding scale·∂L/∂θ
 * to grad (length d + 1).  work: d doubles.
 */
double		gsu_row_loss_grad(int d, const double *theta, const double *x,
							  const gsu_cov *cov, double y, double mu,
							  double scale, double *grad, double *work);

/*
 * gsu_row_loss_grad with wᵀΣw (quad) and Σw (sw, d doubles) already
 * computed, as gsu_cov_quad returns and fills them.
 */
double		gsu_row_loss_grad_quad(int d, const double *theta, const double *x,
								   double quad, const double *sw, double y, double mu,
								   double scale, double *grad);

/*
 * gsu_row_loss_grad for a covariance that is not GSU_COV_FULL (diagonal,
 * isotropic or none), in two passes over the row instead of four and
 * without a work buffer, to the same values: *quad receives wᵀΣw, and
 * *grad_finite whether every element of grad is finite after the update.
 * The updated elements of grad are made canonical (+0.0, not −0.0), as a
 * gsu.partial stores them.  A full covariance returns NaN, grad unchanged.
 */
double		gsu_row_loss_grad_diag(int d, const double *theta, const double *x,
								   const gsu_cov *cov, double y, double mu,
								   double scale, double *grad, double *quad,
								   int *grad_finite);

/*
 * One streaming SGD step (Pegasos with k = 1, taken in scan order) on the row
 * (x, cov, y): t is the step number (≥ 1), η_t = 1/(λt), and with the loss's
 * gradient scaled by scale ≥ 0 (1 for unweighted rows; for weighted ones the
 * row's weight over the mean weight, an unbiased estimate of the weighted
 * objective's gradient) w ← (1 − η_tλ)w − η_t·scale·∂L/∂w, b ← b −
 * η_t·scale·∂L/∂b; then w is projected onto the ball of radius 1/√λ.
 * Returns the row's loss before the step.  work: d doubles.
 */
double		gsu_sgd_step(int d, double *theta, double lambda, int64_t t,
						 const double *x, const gsu_cov *cov, double y,
						 double scale, double *work);

/*
 * Two streaming SGD iterates theta = (w, b) of one problem merged into a:
 * their average weighted by what each has seen (wa, wb: the sums of the rows'
 * weights, or row counts), an approximation of one sequential pass.
 */
void		gsu_sgd_merge(int d, double *a, double wa, const double *b, double wb);

/*
 * The primal objective lambda/2 ||w||^2 + loss_sum / weight of theta = (w, b)
 * (NULL: w = 0) from a sum of row losses over rows of total weight weight
 * (their count without weights); 0 when weight is 0.
 */
double		gsu_objective_from_sums(int d, const double *theta, double lambda,
									double loss_sum, double weight);

/* --------------------------------------------------------------- scoring */

/* wᵀx + b with theta = (w, b). */
double		gsu_decision(int d, const double *theta, const double *x);

/* Φ(|f| / √(wᵀΣw)): 1 when wᵀΣw = 0 and f ≠ 0, ½ when f = 0. */
double		gsu_confidence(int d, const double *theta, const double *x,
						   const gsu_cov *cov);

/* The expected hinge loss of one row under the model. */
double		gsu_row_loss(int d, const double *theta, const double *x,
						 const gsu_cov *cov, double y);

/*
 * The same two from a precomputed quad = wᵀΣw (for full covariances, from
 * gsu_quad_full).
 */
double		gsu_confidence_quad(int d, const double *theta, const double *x, double quad);

/*
 * The confidence of a decision value t whose variance is quad: P(N(t, quad)
 * > 0) = Phi(t / sqrt(quad)), and 1, 1/2 or 0 by the sign of t when quad = 0.
 */
double		gsu_positive_probability(double t, double quad);
double		gsu_row_loss_quad(int d, const double *theta, const double *x,
							  double quad, double y);

/*
 * The expected hinge E(m, s) = mΦ(m/σ) + σφ(m/σ) of a row with margin m and
 * s = Fᵀw (Σ = FFᵀ, σ = ‖s‖) is not differentiable at its kink m = 0, s = 0;
 * its subdifferential there is {(a, g): 0 ≤ a ≤ 1, ‖g‖ ≤ h(a)} with
 * h(a) = φ(Φ⁻¹(a)) (src/core/README, gsu_polish_kink.c).  The profile h
 * (0 outside (0, 1)), and the point (a*, h(a*)) of its curve nearest a point
 * (a, ρ) outside the set.
 */
double		gsu_hinge_kink_profile(double a);
void		gsu_hinge_kink_nearest(double a, double rho, double *pa, double *prho);

#endif							/* GSU_LOSS_H */
