/*
 * gsu_regression_sums.c — ridge-GSU from the sums of one scan (gsu.fit's
 * regression path): the objective F(θ) = λ/2‖w‖² + (1/W) Σ c_i E[r_i²] is
 * quadratic in θ, so the sums of gsu.regression_hessian at θ = 0 — Σ c_i ℓ_i(0)
 * = Σ c_i y_i², g = Σ c_i ∇ℓ_i(0) = −2 Σ c_i y_i z_i and H = Σ c_i ∇²ℓ_i =
 * 2 Σ c_i (z_i z_iᵀ + diag(Σ_i, 0)), z = (x, 1) — give the minimizer in one
 * Cholesky solve:
 *
 *     (λ·diag(1, …, 1, 0) + H/W) θ = −g/W,
 *
 * and F at it exactly from the same sums, F(θ) = λ/2‖w‖² + (L0 + gᵀθ +
 * ½θᵀHθ)/W.  The sums are not centred (a scan adds them up row by row), so
 * the system's condition grows with ‖x̄‖²/var(x): gsu_solve_ridge centres
 * them and is the reference (test_regression_sums checks the two agree).
 * And SVR-GSU's Newton step from such sums at a point (gsu_svr_step_from_sums),
 * for gsu.fit's Newton over scans.
 */
#include "gsu_regression.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

gsu_status
gsu_ridge_from_sums(int d, double lambda, double wsum, double loss0, const double *grad0,
					const double *hess, double *theta, double *objective, double *gradient_norm)
{
	int			m = d + 1,
				j;
	size_t		np = (size_t) m * (m + 1) / 2,
				k;
	double	   *ap,
			   *hv,
				q,
				f;
	lapack_int	info;

	if (d < 1 || !(isfinite(lambda) && lambda > 0.0) || !(isfinite(wsum) && wsum > 0.0) ||
		!isfinite(loss0) || grad0 == NULL || hess == NULL || theta == NULL)
		return GSU_EINVAL;
	ap = malloc(sizeof(double) * np);
	hv = malloc(sizeof(double) * (size_t) m);
	if (ap == NULL || hv == NULL)
	{
		free(ap);
		free(hv);
		return GSU_ENOMEM;
	}
	/* ∇²F = λ·diag(I, 0) + H/W, packed upper by rows; the right side −∇F(0) */
	for (k = 0; k < np; k++)
		ap[k] = hess[k] / wsum;
	for (j = 0, k = 0; j < d; k += (size_t) (m - j), j++)
		ap[k] += lambda;
	for (j = 0; j < m; j++)
		theta[j] = -grad0[j] / wsum;
	info = LAPACKE_dpptrf(LAPACK_ROW_MAJOR, 'U', m, ap);
	if (info == 0)
		info = LAPACKE_dpptrs(LAPACK_ROW_MAJOR, 'U', m, 1, ap, theta, 1);
	free(ap);
	for (j = 0; j < m && info == 0; j++)
		if (!isfinite(theta[j]))
			info = -1;
	if (info != 0)
	{
		/*
		 * H/W + λ is positive definite for finite sums (H is a sum of PSD
		 * terms, the bias entry 2 > 0): only sums out of range get here
		 */
		free(hv);
		return GSU_ENOTFINITE;
	}
	/* Hθ, then F(θ) and ∇F(θ) = λ(w, 0) + (g + Hθ)/W */
	cblas_dspmv(CblasRowMajor, CblasUpper, m, 1.0, hess, theta, 1, 0.0, hv, 1);
	q = 0.0;
	for (j = 0; j < m; j++)
		q += theta[j] * (grad0[j] + 0.5 * hv[j]);
	f = 0.5 * lambda * cblas_ddot(d, theta, 1, theta, 1);
	/* the expected losses are ≥ 0: rounding of L0 + q below zero is rounding */
	f += fmax(loss0 + q, 0.0) / wsum;
	for (j = 0; j < m; j++)
		hv[j] = (grad0[j] + hv[j]) / wsum + (j < d ? lambda * theta[j] : 0.0);
	if (objective)
		*objective = f;
	if (gradient_norm)
		*gradient_norm = cblas_dnrm2(m, hv, 1);
	free(hv);
	return isfinite(f) ? GSU_OK : GSU_ENOTFINITE;
}

/*
 * The Newton step of SVR-GSU from one scan's sums (gsu.fit's regression
 * path), as gsu_solve_svr takes it in memory: ∇F = λ(w, 0) + grad/W and
 * ∇²F = λ·diag(1, …, 1, 0) + H/W, the bias's curvature taken at least λ
 * (rows off the tube's smoothed edges add none), Cholesky of ∇²F + shift·I
 * with the shift raised from 0 only when rounding broke positivity.
 */
gsu_status
gsu_svr_step_from_sums(int d, double lambda, double wsum, const double *theta,
					   const double *grad_sum, const double *hess_sum, double *grad,
					   double *step, double *slope)
{
	int			m = d + 1,
				j,
				tries;
	size_t		np = (size_t) m * (m + 1) / 2,
				k,
				bias;
	double	   *h,
			   *th,
				hmax = 0.0,
				shift = 0.0;
	lapack_int	info = -1;

	if (d < 1 || !(isfinite(lambda) && lambda > 0.0) || !(isfinite(wsum) && wsum > 0.0) ||
		theta == NULL || grad_sum == NULL || hess_sum == NULL || grad == NULL || step == NULL ||
		slope == NULL)
		return GSU_EINVAL;
	h = malloc(sizeof(double) * np);
	th = malloc(sizeof(double) * np);
	if (h == NULL || th == NULL)
	{
		free(h);
		free(th);
		return GSU_ENOMEM;
	}
	for (k = 0; k < np; k++)
	{
		h[k] = hess_sum[k] / wsum;
		if (!isfinite(h[k]))
		{
			/* no shift makes a system with a NaN or an infinity solvable */
			free(h);
			free(th);
			return GSU_ENOTFINITE;
		}
	}
	for (j = 0, k = 0; j < m; k += (size_t) (m - j), j++)
	{
		if (j < d)
			h[k] += lambda;
		hmax = fmax(hmax, h[k]);
	}
	bias = np - 1;				/* the last diagonal entry, packed by rows */
	if (h[bias] < lambda)
		h[bias] = lambda;
	hmax = fmax(hmax, h[bias]);
	for (j = 0; j < m; j++)
		grad[j] = grad_sum[j] / wsum + (j < d ? lambda * theta[j] : 0.0);
	for (tries = 0; tries < 12; tries++)
	{
		memcpy(th, h, sizeof(double) * np);
		for (j = 0, k = 0; j < m; k += (size_t) (m - j), j++)
			th[k] += shift;
		info = LAPACKE_dpptrf(LAPACK_ROW_MAJOR, 'U', m, th);
		if (info == 0 || info < 0 || !isfinite(hmax))
			break;
		shift = shift == 0.0 ? 1e-12 * hmax : 10.0 * shift;
	}
	if (info == 0)
	{
		for (j = 0; j < m; j++)
			step[j] = -grad[j];
		info = LAPACKE_dpptrs(LAPACK_ROW_MAJOR, 'U', m, 1, th, step, 1);
	}
	free(h);
	free(th);
	if (info != 0)
		return GSU_ENOTFINITE;
	*slope = cblas_ddot(m, grad, 1, step, 1);
	return isfinite(*slope) ? GSU_OK : GSU_ENOTFINITE;
}
