/*
 * gsu_robust_loss.c — the mathematics of TSVC and the worst-case robust /
 * chance-constrained SVM, one row at a time: the dual exponent, Φ⁻¹, the
 * q-norms with their subgradients and smoothings, the uncertainty shapes
 * A_i (and the PSD square root that makes them), the per-row losses with
 * their worst (or, for TSVC, best) perturbations, and the TSVC radius.
 * The problem over all rows is in gsu_robust_objective.c, the solvers in
 * gsu_robust_solve.c; the equations are derived in gsu_robust.h.
 */
#include "gsu_robust.h"
#include "gsu_robust_internal.h"
#include "gsu_loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#define SQRT_2PI 2.5066282746310005024

int
gsu_dual_exponent(int p)
{
	if (p == 2)
		return 2;
	if (p == 1)
		return GSU_Q_INF;
	return 1;
}

/* --------------------------------------------------------- Φ⁻¹ */

/*
 * Acklam's rational approximation (relative error < 1.2e-9), then one
 * Halley step on Φ(x) − p = 0, which triples the number of correct digits.
 * The upper half uses Φ⁻¹(p) = −Φ⁻¹(1 − p), 1 − p being exact for p ≥ ½.
 */
double
gsu_normal_quantile(double p)
{
	static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
	-3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
	-1.328068155288572e+01};
	static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
	4.374664141464968e+00, 2.938163982698783e+00};
	static const double dd[4] = {7.784695709041462e-03, 3.224671290700398e-01,
	2.445134137142996e+00, 3.754408661907416e+00};
	double		x,
				q,
				r,
				e,
				u;

	if (!(p > 0.0 && p < 1.0))
	{
		if (p == 0.0)
			return -HUGE_VAL;
		if (p == 1.0)
			return HUGE_VAL;
		return NAN;
	}
	if (p > 0.5)
		return -gsu_normal_quantile(1.0 - p);
	if (p < 0.02425)
	{
		q = sqrt(-2.0 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
			((((dd[0] * q + dd[1]) * q + dd[2]) * q + dd[3]) * q + 1.0);
	}
	else
	{
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
			(((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
	}
	/* Halley: f = Φ(x) − p, f' = φ(x), f''/f' = −x */
	e = gsu_normal_cdf(x) - p;
	u = e * SQRT_2PI * exp(0.5 * x * x);
	return x - u / (1.0 + 0.5 * x * u);
}

/* ------------------------------------------------------------- norms */

double
gsu_norm_q(int d, const double *z, int q)
{
	double		s = 0.0;
	int			j;

	if (q == 2)
		return cblas_dnrm2(d, z, 1);
	for (j = 0; j < d; j++)
	{
		double		a = fabs(z[j]);

		if (q == 1)
			s += a;
		else if (a > s)
			s = a;
	}
	return s;
}

void
gsu_norm_q_subgradient(int d, const double *z, int q, double *g)
{
	int			j;

	if (q == 2)
	{
		double		n = cblas_dnrm2(d, z, 1);

		for (j = 0; j < d; j++)
			g[j] = n > 0.0 ? z[j] / n : 0.0;
	}
	else if (q == 1)
	{
		for (j = 0; j < d; j++)
			g[j] = z[j] > 0.0 ? 1.0 : z[j] < 0.0 ? -1.0 : 0.0;
	}
	else
	{
		int			k = 0;

		for (j = 0; j < d; j++)
		{
			g[j] = 0.0;
			if (fabs(z[j]) > fabs(z[k]))
				k = j;
		}
		g[k] = z[k] > 0.0 ? 1.0 : z[k] < 0.0 ? -1.0 : 0.0;
	}
}

double
gsu_norm_q_smooth(int d, const double *z, int q, double mu, double *g)
{
	double		r = 0.0;
	int			j;

	if (q == 2)
	{
		double		zz = cblas_ddot(d, z, 1, z, 1);

		r = sqrt(zz + mu * mu);
		if (g)
			for (j = 0; j < d; j++)
				g[j] = r > 0.0 ? z[j] / r : 0.0;
		return r;
	}
	if (q == 1)
	{
		for (j = 0; j < d; j++)
		{
			double		s = sqrt(z[j] * z[j] + mu * mu);

			r += s;
			if (g)
				g[j] = s > 0.0 ? z[j] / s : 0.0;
		}
		return r;
	}
	/*
	 * q = ∞: r = μ·log Σ_j (e^{z_j/μ} + e^{−z_j/μ}), computed around
	 * m = max|z_j|: r = m + μ·log S, S = Σ_j (e^{(|z_j|−m)/μ} + e^{(−|z_j|−m)/μ}),
	 * ∂r/∂z_j = sinh(z_j/μ)/Σ_k cosh(z_k/μ).
	 */
	{
		double		m = 0.0,
					s = 0.0;

		if (!(mu > 0.0))
		{
			if (g)
				gsu_norm_q_subgradient(d, z, q, g);
			return gsu_norm_q(d, z, q);
		}
		for (j = 0; j < d; j++)
			if (fabs(z[j]) > m)
				m = fabs(z[j]);
		for (j = 0; j < d; j++)
		{
			/* terms below e^{−40} of the largest (which is 1) do not count */
			double		a = (m - fabs(z[j])) / mu,
						b = (m + fabs(z[j])) / mu,
						ep = a < 40.0 ? exp(-a) : 0.0,
						en = b < 40.0 ? exp(-b) : 0.0;

			s += ep + en;
			if (g)
				g[j] = (z[j] >= 0.0 ? 1.0 : -1.0) * (ep - en);
		}
		if (g)
			for (j = 0; j < d; j++)
				g[j] /= s;
		return m + mu * log(s);
	}
}

double
gsu_norm_q_smoothing_bound(int d, int q, double mu)
{
	if (q == 2)
		return mu;
	if (q == 1)
		return d * mu;
	/* log Σ 2cosh(z_j/μ) ≤ log(2d·cosh(m/μ)) ≤ log(2d) + m/μ */
	return mu * log(2.0 * d);
}

/* ------------------------------------------------------- uncertainty */

void
gsu_ushape_apply(int d, const gsu_ushape *a, const double *w, double *z)
{
	int			j;

	switch (a->kind)
	{
		case GSU_USHAPE_NONE:
			memset(z, 0, sizeof(double) * (size_t) d);
			break;
		case GSU_USHAPE_ISO:
			for (j = 0; j < d; j++)
				z[j] = a->iso * w[j];
			break;
		case GSU_USHAPE_DIAG:
			for (j = 0; j < d; j++)
				z[j] = a->m[j] * w[j];
			break;
		case GSU_USHAPE_FULL:
			cblas_dgemv(CblasRowMajor, CblasNoTrans, d, d, 1.0, a->m, d, w, 1, 0.0, z, 1);
			break;
	}
}

void
gsu_ushape_apply_t_add(int d, const gsu_ushape *a, double alpha, const double *g,
					   double *out)
{
	int			j;

	switch (a->kind)
	{
		case GSU_USHAPE_NONE:
			break;
		case GSU_USHAPE_ISO:
			cblas_daxpy(d, alpha * a->iso, g, 1, out, 1);
			break;
		case GSU_USHAPE_DIAG:
			for (j = 0; j < d; j++)
				out[j] += alpha * a->m[j] * g[j];
			break;
		case GSU_USHAPE_FULL:
			cblas_dgemv(CblasRowMajor, CblasTrans, d, d, alpha, a->m, d, g, 1, 1.0, out, 1);
			break;
	}
}

gsu_status
gsu_sqrtm_psd(int d, double *a)
{
	double	   *vals = malloc(sizeof(double) * (size_t) d);
	double	   *vecs = malloc(sizeof(double) * (size_t) d * d);
	lapack_int *isuppz = malloc(sizeof(lapack_int) * 2 * (size_t) d);
	lapack_int	found = 0;
	gsu_status	st = GSU_OK;
	int			j,
				k,
				l;

	if (!vals || !vecs || !isuppz)
	{
		st = GSU_ENOMEM;
		goto done;
	}
	for (j = 0; j < d * d; j++)
		if (!isfinite(a[j]))
		{
			st = GSU_ENOTFINITE;
			goto done;
		}
	/* dsyevr reads the upper triangle and overwrites it */
	if (LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', d, a, d, 0.0, 0.0, 0, 0, 0.0,
					   &found, vals, vecs, d, isuppz) != 0 || found != d)
	{
		st = GSU_EINVAL;
		goto done;
	}
	for (k = 0; k < d; k++)
		vals[k] = vals[k] > 0.0 ? sqrt(vals[k]) : 0.0;
	/* a = V·diag(√λ)·Vᵀ, symmetric by construction */
	for (j = 0; j < d; j++)
		for (l = j; l < d; l++)
		{
			double		s = 0.0;

			for (k = 0; k < d; k++)
				s += vecs[j * d + k] * vals[k] * vecs[l * d + k];
			a[j * d + l] = s;
			a[l * d + j] = s;
		}
done:
	free(vals);
	free(vecs);
	free(isuppz);
	return st;
}

/* ------------------------------------------------------- row losses */

/* max(0, t), or its Gaussian smoothing H_μ(t) when μ > 0; *p = its slope */
static double
hinge_at(double t, double mu, double *p)
{
	if (mu > 0.0)
		return gsu_expected_hinge(t, mu, p, NULL);
	*p = t > 0.0 ? 1.0 : 0.0;
	return t > 0.0 ? t : 0.0;
}

double
gsu_robust_row_loss(int d, const double *theta, const double *x, double y,
					const gsu_ushape *a, int q, double gamma, double mu,
					double scale, double *grad, double *work)
{
	double	   *z = work,
			   *g = work + d;
	double		dx = 1.0 - y * gsu_decision(d, theta, x);
	double		r,
				t,
				loss,
				p;
	int			certain = a->kind == GSU_USHAPE_NONE || gamma == 0.0 ||
		(a->kind == GSU_USHAPE_ISO && a->iso == 0.0);

	if (certain)
		r = 0.0;
	else
	{
		gsu_ushape_apply(d, a, theta, z);
		if (mu > 0.0)
			r = gsu_norm_q_smooth(d, z, q, mu, grad ? g : NULL);
		else
		{
			r = gsu_norm_q(d, z, q);
			if (grad)
				gsu_norm_q_subgradient(d, z, q, g);
		}
	}
	t = dx + gamma * r;
	loss = hinge_at(t, mu, &p);
	if (grad && p != 0.0)
	{
		/* ∂L/∂w = p·(−y·x + γ·Aᵀ∇r), ∂L/∂b = −p·y */
		cblas_daxpy(d, -scale * p * y, x, 1, grad, 1);
		if (!certain)
			gsu_ushape_apply_t_add(d, a, scale * p * gamma, g, grad);
		grad[d] -= scale * p * y;
	}
	return loss;
}

double
gsu_robust_smoothing_bound(int d, int q, double gamma, double mu)
{
	/* H_μ(t + γ(r_μ − r)) − h(t) ≤ μ/(2√π) + γ(r_μ − r): H_μ is 1-Lipschitz */
	return mu / TWO_SQRT_PI + gamma * gsu_norm_q_smoothing_bound(d, q, mu);
}

void
gsu_robust_worst_case(int d, const double *theta, const double *x, double y,
					  const gsu_ushape *a, int q, double gamma, double *xstar,
					  double *work)
{
	double	   *g = work;
	double	   *z = xstar;		/* Aw, before xstar is written */
	int			j;

	gsu_ushape_apply(d, a, theta, z);
	gsu_norm_q_subgradient(d, z, q, g);
	/* u* = −y·g, xstar = x + γ·Aᵀu* */
	for (j = 0; j < d; j++)
		xstar[j] = x[j];
	gsu_ushape_apply_t_add(d, a, -y * gamma, g, xstar);
}

double
gsu_tsvc_row_loss(int d, const double *theta, const double *x, double y,
				  double shift, double mu, double scale, double *grad)
{
	double		t = 1.0 - y * gsu_decision(d, theta, x) - shift;
	double		loss,
				p;

	loss = hinge_at(t, mu, &p);
	if (grad && p != 0.0)
	{
		cblas_daxpy(d, -scale * p * y, x, 1, grad, 1);
		grad[d] -= scale * p * y;
	}
	return loss;
}

void
gsu_tsvc_best_case(int d, const double *theta, const double *x, double y,
				   double delta, double *xstar)
{
	double		n = cblas_dnrm2(d, theta, 1);
	int			j;

	for (j = 0; j < d; j++)
		xstar[j] = x[j] + (n > 0.0 ? y * delta * theta[j] / n : 0.0);
}

double
gsu_tsvc_radius(int d, const gsu_cov *cov, double scale)
{
	double		s = 0.0;
	int			j;

	if (cov->kind == GSU_COV_FULL)
		for (j = 0; j < d; j++)
			s += cov->data[(size_t) j * d + j];
	else if (cov->kind == GSU_COV_DIAG)
		for (j = 0; j < d; j++)
			s += cov->data[j];
	else if (cov->kind == GSU_COV_ISO)
		s = cov->iso * d;
	s /= d;
	return s > 0.0 ? scale * sqrt(s) : 0.0;
}

double
gsu_psvm_row_loss(int d, const double *theta, const double *x, double y, double r)
{
	return gsu_tsvc_row_loss(d, theta, x, y, r * cblas_dnrm2(d, theta, 1), 0.0, 0.0, NULL);
}

gsu_status
gsu_psvm_radii(int64_t n, gsu_cov_kind kind, const double *cov, double *out)
{
	int64_t		i;

	if (kind == GSU_COV_NONE)
	{
		for (i = 0; i < n; i++)
			out[i] = 0.0;
		return GSU_OK;
	}
	if (kind != GSU_COV_ISO)
		return GSU_EINVAL;
	for (i = 0; i < n; i++)
	{
		if (!isfinite(cov[i]) || cov[i] < 0.0)
			return GSU_EINVAL;
		out[i] = cov[i];
	}
	return GSU_OK;
}

gsu_status
gsu_robust_row_shapes(int64_t n, int d, gsu_cov_kind kind, const double *cov, int tsvc,
					  double scale, double *out, gsu_progress *pg)
{
	size_t		per = gsu_cov_doubles(kind, d, 0),
				j;
	int64_t		i;
	gsu_status	s;

	/* a factor LLᵀ has no shape here (the glue refuses it for these losses) */
	if (kind == GSU_COV_FACTOR)
		return GSU_EINVAL;
	if (tsvc)
	{
		for (i = 0; i < n; i++)
		{
			gsu_cov		c = gsu_cov_row(kind, cov, d, 0, i);

			out[i] = gsu_tsvc_radius(d, &c, scale);
		}
		return GSU_OK;
	}
	memcpy(out, cov, sizeof(double) * (size_t) n * per);
	if (kind != GSU_COV_FULL)
	{
		for (j = 0; j < (size_t) n * per; j++)
			out[j] = sqrt(out[j]);
		return GSU_OK;
	}
	for (i = 0; i < n; i++)
	{
		if (gsu_progress_tick(pg, (double) per * d))
			return GSU_ECANCELLED;
		s = gsu_sqrtm_psd(d, out + (size_t) i * per);
		if (s != GSU_OK)
			return s;
	}
	return GSU_OK;
}
