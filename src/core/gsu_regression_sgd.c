/*
 * gsu_regression_sgd.c — the streaming SGD step of regression on uncertain
 * inputs (issue 33, the streaming path): one Pegasos step on a row's
 * expected ε-insensitive loss (SVR-GSU) or expected squared loss
 * (ridge-GSU), whose gradients are gsu_regression.c's closed forms
 * (gsu_svr_row_loss_grad, gsu_ridge_row_loss_grad; any covariance kind).
 * The step size and the bias follow gsu_sgd_step (gsu_loss.c); the two
 * differences from classification's step, the cap of the squared loss's
 * early steps and the absent projection, are explained in src/core/README,
 * section gsu_regression_sgd.c.
 */
#include "gsu_regression.h"

#include <math.h>
#include <string.h>

/*
 * An upper bound of the largest eigenvalue of a row's squared-loss Hessian
 * 2[(x, 1)(x, 1)ᵀ + diag(Σ, 0)]: 2(‖x‖² + 1 + λ_max(Σ)), with λ_max(Σ)
 * bounded by iso, the largest variance, or tr Σ (full, factor).
 */
static double
ridge_row_curvature(int d, const double *x, const gsu_cov *cov)
{
	double		top = 0.0;
	int			j;

	if (cov->kind == GSU_COV_ISO)
		top = cov->iso;
	else if (cov->kind == GSU_COV_DIAG)
		for (j = 0; j < d; j++)
			top = fmax(top, cov->data[j]);
	else if (cov->kind != GSU_COV_NONE)
		top = gsu_cov_trace(d, cov);
	return 2.0 * (gsu_dot(d, x, x, NULL) + 1.0 + fmax(top, 0.0));
}

double
gsu_regression_sgd_eta(int d, double lambda, int64_t t, const double *x,
					   const gsu_cov *cov, int squared, double scale)
{
	double		eta = 1.0 / (lambda * (double) t);

	if (squared && scale > 0.0)
	{
		double		cap = 1.0 / (lambda + scale * ridge_row_curvature(d, x, cov));

		if (cap < eta)
			eta = cap;
	}
	return eta;
}

GSU_HOT double
gsu_regression_sgd_step(int d, double *theta, double lambda, int64_t t, const double *x,
						const gsu_cov *cov, double y, int squared, double eps,
						double scale, double *work)
{
	double	   *grad = work + d;	/* d + 1 doubles after the d of Σw */
	double		eta = gsu_regression_sgd_eta(d, lambda, t, x, cov, squared, scale);
	double		shrink = 1.0 - eta * lambda;
	double		loss;
	int			j;

	memset(grad, 0, sizeof(double) * (size_t) (d + 1));
	/* the gradient at the old θ, scaled by the row's weight share */
	loss = squared ?
		gsu_ridge_row_loss_grad(d, theta, x, cov, y, scale, grad, work) :
		gsu_svr_row_loss_grad(d, theta, x, cov, y, eps, 0.0, scale, grad, work);
	for (j = 0; j < d; j++)
		theta[j] = shrink * theta[j] - eta * grad[j];
	/* the bias is not regularized: no shrink, as gsu_sgd_step */
	theta[d] -= eta * grad[d];
	return loss;
}
