/*
 * gsu_regression.h — regression on uncertain inputs (issue 33, part 1):
 * the expected ε-insensitive loss (SVR-GSU) and the expected squared loss
 * (ridge-GSU) of one Gaussian row, their gradients and Hessians, the
 * objectives over a data set, and a solver for each (gsu_regression.c).
 * Derivation and numerics: src/core/README, section gsu_regression.c.
 *
 * A row is a Gaussian N(x, Σ) (Σ any gsu_cov kind) with a real target y;
 * the model is f(z) = wᵀz + b, θ = (w_1..w_d, b).  The residual
 * r = y − wᵀz − b is then N(μ, s²) with
 *
 *     μ = y − wᵀx − b,      s² = wᵀΣw.
 *
 * Expected ε-insensitive loss, with a = (μ − ε)/s, a' = (−μ − ε)/s and φ, Φ
 * the standard normal density and cdf:
 *
 *     E[max(0, |r| − ε)] = s·H(a) + s·H(a'),   H(t) = tΦ(t) + φ(t),
 *     ∂/∂μ = Φ(a) − Φ(a'),   ∂/∂s = φ(a) + φ(a'),
 *     ∇²_(μ,s) = φ(a)/s·(1, −a)(1, −a)ᵀ + φ(a')/s·(1, a')(1, a')ᵀ  (PSD).
 *
 * Expected squared loss: E[r²] = μ² + s².
 *
 * For a data set (gsu_dataset, whose y holds the targets here, any real),
 * both objectives are F(θ) = λ/2‖w‖² + (1/W) Σ_i c_i ℓ_i (b unregularized;
 * c_i the row weights, W their sum).  The SVR objective's smoothing τ ≥ 0
 * replaces s by s_τ = √(wᵀΣw + τ²/2) (the D = √(2wᵀΣw + τ²) of
 * gsu_objective.h, D = √2·s_τ), which makes it twice differentiable for
 * τ > 0 even on certain rows; τ = 0 is the true objective.
 */
#ifndef GSU_REGRESSION_H
#define GSU_REGRESSION_H

#include "gsu_solve.h"

/* ------------------------------------------------------- one residual */

/*
 * The expected ε-insensitive loss of a residual N(mu, s²) and its partial
 * derivatives.  The curvature is carried by the two rank-one terms: the
 * Hessian in (μ, s) is k1·(1, −a1)(1, −a1)ᵀ + k2·(1, a2)(1, a2)ᵀ.
 */
typedef struct gsu_eps_loss
{
	double		loss;			/* E[max(0, |r| − ε)] */
	double		d_mu;			/* ∂/∂μ = Φ(a1) − Φ(a2) */
	double		d_s;			/* ∂/∂s = φ(a1) + φ(a2) */
	double		a1,
				k1;				/* a1 = (μ − ε)/s, k1 = φ(a1)/s */
	double		a2,
				k2;				/* a2 = (−μ − ε)/s, k2 = φ(a2)/s */
	double		h_mumu,
				h_mus,
				h_ss;			/* the Hessian in (μ, s) */
} gsu_eps_loss;

/*
 * Fills *out for the residual N(mu, s²), s ≥ 0, ε ≥ 0.  Each half is the
 * core's expected hinge (gsu_expected_hinge, erfc forms with no
 * cancellation for any μ/s), so below s = GSU_DSIGMA_FLOOR/√2, or when
 * |μ ∓ ε| > 40√2·s, a half is the plain (μ ∓ ε)₊ exactly with its
 * subgradient 0 or 1 (0 at the kink) and no curvature (k = 0, a = 0); s = 0
 * gives the plain ε-insensitive loss.
 */
void		gsu_expected_eps_insensitive(double mu, double s, double eps, gsu_eps_loss *out);

/* ------------------------------------------------------------ one row */

/*
 * One row's expected ε-insensitive loss under θ with smoothing tau ≥ 0
 * (s_τ = √(wᵀΣw + τ²/2)), adding scale·∂ℓ/∂θ to grad (d + 1 doubles; NULL:
 * the loss only).  work: d doubles.
 */
double		gsu_svr_row_loss_grad(int d, const double *theta, const double *x,
								  const gsu_cov *cov, double y, double eps, double tau,
								  double scale, double *grad, double *work);

/*
 * Adds scale·∇²ℓ (the exact Hessian of the smoothed row loss, PSD) to hess
 * ((d+1)×(d+1), row-major; the full matrix is written, both triangles).
 * At s_τ = 0 (τ = 0 and wᵀΣw = 0) the loss is piecewise linear and nothing
 * is added.  work: 2(d + 1) doubles.
 */
void		gsu_svr_row_hessian(int d, const double *theta, const double *x,
								const gsu_cov *cov, double y, double eps, double tau,
								double scale, double *hess, double *work);

/*
 * One row's expected squared loss (y − wᵀx − b)² + wᵀΣw, adding
 * scale·∂ℓ/∂θ to grad (NULL allowed).  work: d doubles.
 */
double		gsu_ridge_row_loss_grad(int d, const double *theta, const double *x,
									const gsu_cov *cov, double y,
									double scale, double *grad, double *work);

/*
 * Adds scale·∇²ℓ = scale·2[(x, 1)(x, 1)ᵀ + diag(Σ, 0)] to hess ((d+1)²,
 * row-major, both triangles); it does not depend on θ.
 */
void		gsu_ridge_row_hessian(int d, const double *x, const gsu_cov *cov,
								  double scale, double *hess);

/*
 * gsu_svr_row_hessian and gsu_ridge_row_hessian adding to the upper
 * triangle of the (d+1)² Hessian packed by rows ((d+1)(d+2)/2 doubles, the
 * layout of gsu.regression_hessian's sums) instead of the full matrix: the
 * same numbers, each entry once.
 */
void		gsu_svr_row_hessian_packed(int d, const double *theta, const double *x,
									   const gsu_cov *cov, double y, double eps, double tau,
									   double scale, double *hess, double *work);
void		gsu_ridge_row_hessian_packed(int d, const double *x, const gsu_cov *cov,
										 double scale, double *hess);

/* ------------------------------------------------------ over a data set */

/*
 * F(θ) (and ∇F when grad != NULL) over ds; GSU_EINVAL for a bad data set
 * (n < 1, d < 1, bad weights, a factor rank out of 1..d−1), λ ≤ 0 or ε < 0
 * or τ < 0 (any not finite), GSU_ENOMEM, GSU_ENOTFINITE when F is not
 * finite.
 */
gsu_status	gsu_svr_objective(const gsu_dataset *ds, double lambda, double eps, double tau,
							  const double *theta, double *f, double *grad);
gsu_status	gsu_ridge_objective(const gsu_dataset *ds, double lambda,
								const double *theta, double *f, double *grad);

/* ∇²F(θ) of the SVR objective into hess ((d+1)², row-major, full). */
gsu_status	gsu_svr_hessian(const gsu_dataset *ds, double lambda, double eps, double tau,
							const double *theta, double *hess);

/* -------------------------------------------------------------- solvers */

/*
 * Ridge-GSU in closed form: θ = argmin F.  Eliminating b (its equation is
 * Σ c_i μ_i = 0, so b = ȳ − wᵀx̄ with the weighted means x̄, ȳ), w solves
 *
 *   [(1/W) Σ c_i ((x_i − x̄)(x_i − x̄)ᵀ + Σ_i) + λ/2·I] w = (1/W) Σ c_i (y_i − ȳ)(x_i − x̄),
 *
 * a d×d symmetric positive-definite system, by Cholesky (LAPACKE dpotrf,
 * dpotrs).  Reads o->lambda, o->progress (asked between blocks of rows;
 * GSU_ECANCELLED when it says stop) and o->trace (one report); theta
 * (d + 1 doubles) receives the solution.  res (NULL allowed): objective,
 * gradient_norm (‖∇F‖ at the solution, recomputed), gradient_norm0 = 0
 * (not computed), gap_estimate = 0, iterations = 1, passes, converged = 1.  Returns GSU_EINVAL as gsu_ridge_objective,
 * GSU_ENOMEM, GSU_ENOTFINITE (a non-finite target, mean or solution).
 */
gsu_status	gsu_solve_ridge(const gsu_dataset *ds, const gsu_solve_options *o,
							double *theta, gsu_solve_result *res);

/*
 * Ridge-GSU from the sums of one pass at θ = 0 (gsu_regression_sums.c, for
 * gsu.fit): wsum W = Σ c_i > 0, loss0 = Σ c_i ℓ_i(0), grad0 = Σ c_i ∇ℓ_i(0)
 * (d + 1), hess = Σ c_i ∇²ℓ_i (packed upper triangle by rows, (d+1)(d+2)/2;
 * the row's gsu_ridge_row_hessian).  theta (d + 1) receives the minimizer
 * of λ/2‖w‖² + (1/W) Σ c_i ℓ_i, by Cholesky; objective and gradient_norm
 * (NULL allowed) F and ‖∇F‖ there, from the sums.  GSU_EINVAL for d < 1,
 * λ ≤ 0, W ≤ 0 (any not finite) or NULL arrays, GSU_ENOMEM, GSU_ENOTFINITE
 * when the system is not positive definite or the result not finite (sums
 * out of range).
 */
gsu_status	gsu_ridge_from_sums(int d, double lambda, double wsum, double loss0,
								const double *grad0, const double *hess, double *theta,
								double *objective, double *gradient_norm);

/*
 * SVR-GSU's Newton step from the sums of one pass at theta (for gsu.fit):
 * grad_sum = Σ c_i ∇ℓ_i, hess_sum = Σ c_i ∇²ℓ_i (packed upper by rows) at
 * the pass's smoothing, W = wsum.  grad (d + 1) receives ∇F = λ(w, 0) +
 * grad_sum/W, step (d + 1) the Newton direction −(∇²F)⁻¹∇F of
 * gsu_solve_svr (the bias's curvature at least λ; a shift only where
 * rounding broke positivity), *slope = ∇Fᵀstep (< 0 unless ∇F = 0).
 * GSU_EINVAL as gsu_ridge_from_sums, GSU_ENOMEM, GSU_ENOTFINITE.
 */
gsu_status	gsu_svr_step_from_sums(int d, double lambda, double wsum, const double *theta,
								   const double *grad_sum, const double *hess_sum,
								   double *grad, double *step, double *slope);

/*
 * SVR-GSU: minimizes the SVR objective at tube half-width epsilon ≥ 0 by a
 * damped Newton method (dense Hessian of (d+1)² doubles, Cholesky, Armijo
 * backtracking) in a continuation over the smoothing τ = 1, 0.1, …, down to
 * o->smoothing (gsu_next_smoothing), then one stage at τ = 0 when every row
 * keeps √2·s above 100τ (gsu_finish_unsmoothed); o->warm_start starts at
 * τ = o->smoothing.  Each Newton step costs one pass over the rows and
 * O(d²) per row inside the tube's smoothed edges (the other rows add no
 * curvature) plus a (d+1)³/3 factorization.  Stops at ‖∇F_τ‖ ≤
 * o->tolerance·‖∇F_τ(0)‖ (τ the final smoothing), o->max_iterations Newton
 * steps over all stages, or when the line search cannot decrease F_τ.
 * theta (d + 1 doubles) is the start and receives the result; o->progress
 * is asked before each step (GSU_ECANCELLED), o->trace told after each.
 * res (NULL allowed): objective (τ = 0), gradient_norm (τ final),
 * gradient_norm0, gap_estimate (the Newton decrement ½gᵀH⁻¹g at the end,
 * plus the smoothing's bound τ/√π), iterations, passes, converged.
 */
gsu_status	gsu_solve_svr(const gsu_dataset *ds, double epsilon, const gsu_solve_options *o,
						  double *theta, gsu_solve_result *res);

/* ------------------------------------------------------------ streaming */

/*
 * One streaming SGD step (gsu_regression_sgd.c) on the row (x, cov, y) for
 * the expected squared loss (squared = 1) or the expected ε-insensitive
 * loss at eps ≥ 0 (squared = 0, no smoothing): Pegasos as gsu_sgd_step,
 * t the step number (≥ 1), scale ≥ 0 the row's weight over the mean weight
 * (1 unweighted), η the step of gsu_regression_sgd_eta, and with g =
 * scale·∂ℓ/∂θ at the old θ (gsu_svr_row_loss_grad, gsu_ridge_row_loss_grad)
 * w ← (1 − ηλ)w − η·g_w, b ← b − η·g_b (b unregularized).  Unlike the
 * hinge's step, w is not projected onto the ball of radius 1/√λ: a
 * regression optimum can lie outside it.  Returns the row's loss before
 * the step.  work: 2d + 1 doubles.
 */
double		gsu_regression_sgd_step(int d, double *theta, double lambda, int64_t t,
									const double *x, const gsu_cov *cov, double y,
									int squared, double eps, double scale, double *work);

/*
 * The step size of gsu_regression_sgd_step: η_t = 1/(λt), and for the
 * squared loss at most 1/(λ + scale·L) with L = 2(‖x‖² + 1 + λ_max(Σ))
 * bounded above (iso, the largest variance, tr Σ): the row's loss is
 * L-smooth and unbounded in slope, and a longer step on it diverges.
 */
double		gsu_regression_sgd_eta(int d, double lambda, int64_t t, const double *x,
								   const gsu_cov *cov, int squared, double scale);

#endif							/* GSU_REGRESSION_H */
