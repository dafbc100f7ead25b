/*
 * gsu_robust.c — TSVC and the worst-case robust / chance-constrained SVM:
 * per-row losses, their worst (or, for TSVC, best) perturbations, and the
 * solvers.  The equations are derived in gsu_robust.h.
 */
#include "gsu_robust.h"
#include "gsu_objective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#define TWO_SQRT_PI 3.5449077018110320546
#define SQRT_2PI 2.5066282746310005024
#define LN2 0.69314718055994530942

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
gsu_tsvc_radius(int d, const double *var, double iso, const double *cov, double scale)
{
	double		s = 0.0;
	int			j;

	if (cov)
		for (j = 0; j < d; j++)
			s += cov[(size_t) j * d + j];
	else if (var)
		for (j = 0; j < d; j++)
			s += var[j];
	else
		s = iso * d;
	s /= d;
	return s > 0.0 ? scale * sqrt(s) : 0.0;
}

/* ---------------------------------------------------------- problem */

gsu_ushape
gsu_robust_row_shape(const gsu_robust_data *rd, int64_t i)
{
	gsu_ushape	a = {GSU_USHAPE_NONE, 0.0, NULL};
	size_t		d = (size_t) rd->d;

	if (rd->a_full)
	{
		a.kind = GSU_USHAPE_FULL;
		a.m = rd->a_full + (size_t) i * d * d;
	}
	else if (rd->a_diag)
	{
		a.kind = GSU_USHAPE_DIAG;
		a.m = rd->a_diag + (size_t) i * d;
	}
	else if (rd->a_iso)
	{
		a.kind = GSU_USHAPE_ISO;
		a.iso = rd->a_iso[i];
	}
	return a;
}

static double
row_gamma(const gsu_robust_data *rd, int64_t i)
{
	return rd->gamma_row ? rd->gamma_row[i] : rd->gamma;
}

/* the loss of row i (μ-smoothed), adding scale·∂L/∂θ to grad */
static double
row_loss(const gsu_robust_data *rd, int64_t i, const double *theta, double mu,
		 double scale, double *grad, double *work)
{
	const double *x = rd->x + (size_t) i * rd->d;

	if (rd->loss == GSU_RLOSS_TSVC)
		return gsu_tsvc_row_loss(rd->d, theta, x, rd->y[i], rd->gamma * rd->delta[i],
								 mu, scale, grad);
	else if (rd->row_term)
	{
		/* h(d_x + ρ_i(w)): ∂/∂w = p·(−y·x + ∂ρ_i), ∂/∂b = −p·y, p = [t > 0] */
		int			d = rd->d;
		double		y = rd->y[i];
		double	   *g = work;
		double		t;

		(void) mu;				/* check_data and the callers keep μ = 0 */
		if (grad)
			memset(g, 0, sizeof(double) * (size_t) d);
		t = 1.0 - y * gsu_decision(d, theta, x) +
			rd->row_term(rd->row_term_arg, i, theta, y, 1.0, grad ? g : NULL);
		if (!(t > 0.0))
			return 0.0;
		if (grad)
		{
			cblas_daxpy(d, -scale * y, x, 1, grad, 1);
			cblas_daxpy(d, scale, g, 1, grad, 1);
			grad[d] -= scale * y;
		}
		return t;
	}
	else
	{
		gsu_ushape	a = gsu_robust_row_shape(rd, i);

		return gsu_robust_row_loss(rd->d, theta, x, rd->y[i], &a, rd->q,
								   row_gamma(rd, i), mu, scale, grad, work);
	}
}

/* W = Σ c_i (n without weights); 0 when a weight is negative or not finite */
static double
weight_total(const gsu_robust_data *rd)
{
	double		w = 0.0;
	int64_t		i;

	if (!rd->weight)
		return (double) rd->n;
	for (i = 0; i < rd->n; i++)
	{
		if (!(rd->weight[i] >= 0.0) || !isfinite(rd->weight[i]))
			return 0.0;
		w += rd->weight[i];
	}
	return isfinite(w) ? w : 0.0;
}

static double
row_weight(const gsu_robust_data *rd, int64_t i)
{
	return rd->weight ? rd->weight[i] : 1.0;
}

static gsu_status
check_data(const gsu_robust_data *rd)
{
	if (rd->n < 1 || rd->d < 1 || !(rd->gamma >= 0.0) || !isfinite(rd->gamma))
		return GSU_EINVAL;
	if (!(weight_total(rd) > 0.0))
		return GSU_EINVAL;
	if (rd->loss == GSU_RLOSS_TSVC)
		return rd->delta && !rd->row_term ? GSU_OK : GSU_EINVAL;
	if (rd->loss != GSU_RLOSS_ROBUST)
		return GSU_EINVAL;
	if (rd->q != 1 && rd->q != 2 && rd->q != GSU_Q_INF)
		return GSU_EINVAL;
	return GSU_OK;
}

gsu_status
gsu_robust_objective(const gsu_robust_data *rd, double lambda, double mu,
					 const double *theta, double *f, double *grad)
{
	int			d = rd->d;
	double	   *work;
	double		sum = 0.0,
				ww,
				total;
	int64_t		i;
	gsu_status	st = check_data(rd);

	if (st == GSU_OK && rd->row_term && mu > 0.0)
		st = GSU_EINVAL;
	if (st != GSU_OK)
		return st;
	total = weight_total(rd);
	work = malloc(sizeof(double) * 2 * (size_t) d);
	if (!work)
		return GSU_ENOMEM;
	if (grad)
		memset(grad, 0, sizeof(double) * ((size_t) d + 1));
	for (i = 0; i < rd->n; i++)
	{
		double		c = row_weight(rd, i);

		if (c != 0.0)
			sum += c * row_loss(rd, i, theta, mu, c / total, grad, work);
	}
	free(work);
	ww = cblas_ddot(d, theta, 1, theta, 1);
	*f = 0.5 * lambda * ww + sum / total;
	if (grad)
		cblas_daxpy(d, lambda, theta, 1, grad, 1);
	return isfinite(*f) ? GSU_OK : GSU_ENOTFINITE;
}

double
gsu_tsvc_objective_exact(const gsu_robust_data *rd, double lambda, const double *theta)
{
	int			d = rd->d;
	double		wn = cblas_dnrm2(d, theta, 1);
	double		sum = 0.0;
	int64_t		i;

	for (i = 0; i < rd->n; i++)
		sum += row_weight(rd, i) *
			gsu_tsvc_row_loss(d, theta, rd->x + (size_t) i * d, rd->y[i],
							  rd->delta[i] * wn, 0.0, 0.0, NULL);
	return 0.5 * lambda * wn * wn + sum / weight_total(rd);
}

/* the feasible set: ‖w‖ ≤ radius (radius < 0: everything) */
static void
project_ball(int d, double *theta, double radius)
{
	double		n;

	if (radius < 0.0)
		return;
	n = cblas_dnrm2(d, theta, 1);
	if (n > radius)
		cblas_dscal(d, n > 0.0 ? radius / n : 0.0, theta, 1);
}

static double
feasible_radius(const gsu_robust_data *rd)
{
	return rd->loss == GSU_RLOSS_TSVC ? rd->gamma : -1.0;
}

/*
 * A certified lower bound on min F (μ = 0) by Lagrangian duality.  For
 * α_i ∈ [0, c_i/W] and ‖u_i‖_p ≤ 1, (c_i/W)·h(t_i) ≥ α_i·t_i and
 * ‖A_iw‖_q ≥ u_iᵀA_iw, so F(w, b) ≥ λ/2‖w‖² + Σ α_i(c_i − y_i(wᵀx_i + b)
 * + γu_iᵀA_iw) with c_i = 1 (robust) or 1 − γδ_i (tsvc).  Minimized over
 * b (−∞ unless Σ α_i y_i = 0) and w (over ‖w‖ ≤ γ for TSVC):
 *
 *     D = Σ α_i c_i − φ(v),   v = Σ α_i (y_i x_i − γA_iᵀu_i),
 *     φ(v) = ‖v‖²/(2λ), or γ‖v‖ − λγ²/2 when ‖v‖ > λγ under the ball.
 *
 * The dual point is built at θ: α_i = p_i·c_i/W with p_i = ∂H_μ/∂t at t_i (the
 * derivative the smoothed problem uses), the larger class's α scaled down
 * so that Σ α_i y_i = 0, and u_i = ∇r_μ(A_iw).  At the minimizer of F_μ,
 * v = λw and the gap F − D is about the smoothing error.  Also returns the
 * exact F(θ) in *f (the same pass).  work: 4d + 2 doubles.
 */
static double
dual_bound(const gsu_robust_data *rd, double lambda, double mu, const double *theta,
		   double *f, double *work)
{
	int			d = rd->d,
				j;
	double	   *vp = work,
			   *vn = work + d,
			   *z = work + 2 * d,
			   *g = work + 3 * d;
	double		sp = 0.0,
				sn = 0.0,
				rp = 0.0,
				rn = 0.0,
				sum = 0.0,
				cp,
				cn,
				vv = 0.0,
				phi,
				ww,
				total = weight_total(rd);
	int64_t		i;

	memset(vp, 0, sizeof(double) * 2 * (size_t) d);
	for (i = 0; i < rd->n; i++)
	{
		const double *x = rd->x + (size_t) i * d;
		double		y = rd->y[i];
		double		dx = 1.0 - y * gsu_decision(d, theta, x);
		double		gam = 0.0,
					c = 1.0,
					r = 0.0,
					rmu = 0.0,
					p,
					alpha;
		gsu_ushape	a = {GSU_USHAPE_NONE, 0.0, NULL};
		double	   *v = y > 0 ? vp : vn;

		if (rd->loss == GSU_RLOSS_TSVC)
			c = 1.0 - rd->gamma * rd->delta[i];
		else
		{
			a = gsu_robust_row_shape(rd, i);
			gam = row_gamma(rd, i);
			if (a.kind != GSU_USHAPE_NONE && gam != 0.0)
			{
				gsu_ushape_apply(d, &a, theta, z);
				r = gsu_norm_q(d, z, rd->q);
				rmu = mu > 0.0 ? gsu_norm_q_smooth(d, z, rd->q, mu, g) : r;
				if (!(mu > 0.0))
					gsu_norm_q_subgradient(d, z, rd->q, g);
			}
			else
				gam = 0.0;
		}
		/* the exact loss, and α from the smoothed problem's derivative */
		sum += row_weight(rd, i) * fmax(0.0, dx + (c - 1.0) + gam * r);
		if (mu > 0.0)
			(void) gsu_expected_hinge(dx + (c - 1.0) + gam * rmu, mu, &p, NULL);
		else
			p = dx + (c - 1.0) + gam * r > 0.0 ? 1.0 : 0.0;
		alpha = p * row_weight(rd, i) / total;
		if (alpha == 0.0)
			continue;
		if (y > 0)
		{
			sp += alpha;
			rp += alpha * c;
		}
		else
		{
			sn += alpha;
			rn += alpha * c;
		}
		cblas_daxpy(d, alpha * y, x, 1, v, 1);
		if (gam != 0.0)
			gsu_ushape_apply_t_add(d, &a, -alpha * gam, g, v);
	}
	ww = cblas_ddot(d, theta, 1, theta, 1);
	*f = 0.5 * lambda * ww + sum / total;
	/* balance the classes: Σ α_i y_i = 0 */
	cp = sp > sn ? (sp > 0.0 ? sn / sp : 0.0) : 1.0;
	cn = sn > sp ? (sn > 0.0 ? sp / sn : 0.0) : 1.0;
	for (j = 0; j < d; j++)
	{
		double		vj = cp * vp[j] + cn * vn[j];

		vv += vj * vj;
	}
	if (rd->loss == GSU_RLOSS_TSVC && sqrt(vv) > lambda * rd->gamma)
		phi = rd->gamma * sqrt(vv) - 0.5 * lambda * rd->gamma * rd->gamma;
	else
		phi = vv / (2.0 * lambda);
	return cp * rp + cn * rn - phi;
}

gsu_status
gsu_robust_dual_gap(const gsu_robust_data *rd, double lambda, double mu,
					const double *theta, double *f, double *lower)
{
	double	   *work;
	gsu_status	st = check_data(rd);

	if (st == GSU_OK && rd->row_term)
		st = GSU_EINVAL;
	if (st != GSU_OK)
		return st;
	work = malloc(sizeof(double) * (4 * (size_t) rd->d + 2));
	if (!work)
		return GSU_ENOMEM;
	*lower = dual_bound(rd, lambda, mu, theta, f, work);
	free(work);
	return isfinite(*f) && isfinite(*lower) ? GSU_OK : GSU_ENOTFINITE;
}

/* the best primal point and the best lower bound seen */
typedef struct certificate
{
	double		f;				/* exact F at best */
	double		lower;			/* max of the dual bounds */
	double	   *best;			/* d + 1 */
	double	   *work;
} certificate;

static void
certify(const gsu_robust_data *rd, double lambda, double mu, const double *theta,
		certificate *c)
{
	double		f,
				lo = dual_bound(rd, lambda, mu, theta, &f, c->work);

	if (lo > c->lower)
		c->lower = lo;
	if (f < c->f)
	{
		c->f = f;
		memcpy(c->best, theta, sizeof(double) * ((size_t) rd->d + 1));
	}
}

static int
certified(const certificate *c, double tol)
{
	return c->f - c->lower <= tol * (1.0 + fabs(c->f));
}

/* ------------------------------------------------- degenerate solutions */

typedef struct breakpoint
{
	double		beta;			/* where the row's hinge in b has its kink */
	double		c;				/* the row's weight */
} breakpoint;

static int
cmp_breakpoint(const void *a, const void *b)
{
	double		x = ((const breakpoint *) a)->beta,
				y = ((const breakpoint *) b)->beta;

	return (x > y) - (x < y);
}

/*
 * The best bias of the zero model.  At w = 0 the robust term γ‖A_i·0‖_q
 * vanishes and TSVC's shift stays γδ_i, so F(0, b) = (1/W) Σ c_i h(s_i −
 * y_i b) with s_i = 1 (robust) or 1 − γδ_i (tsvc): convex and piecewise
 * linear in b, with a kink at β_i = y_i s_i.  Its slope is −P at b = −∞
 * (P = Σ_{y_i = +1} c_i) and grows by c_i at every β_i (a positive row's
 * term stops, a negative row's starts), so a minimizer is the first β in
 * ascending order at which the weights passed reach P: a weighted
 * quantile.  (A row_term ρ_i is taken as 0 at w = 0; the caller evaluates
 * F there exactly anyway.)
 */
static gsu_status
zero_model_bias(const gsu_robust_data *rd, double *b0)
{
	breakpoint *bp = malloc(sizeof(breakpoint) * (size_t) (rd->n > 0 ? rd->n : 1));
	double		pos = 0.0,
				cum = 0.0;
	int64_t		i,
				k = 0;

	if (!bp)
		return GSU_ENOMEM;
	for (i = 0; i < rd->n; i++)
	{
		double		c = row_weight(rd, i);
		double		s = rd->loss == GSU_RLOSS_TSVC ? 1.0 - rd->gamma * rd->delta[i] : 1.0;

		if (c == 0.0)
			continue;
		bp[k].beta = rd->y[i] * s;
		bp[k].c = c;
		if (rd->y[i] > 0.0)
			pos += c;
		k++;
	}
	qsort(bp, (size_t) k, sizeof(breakpoint), cmp_breakpoint);
	*b0 = 0.0;
	for (i = 0; i < k; i++)
	{
		cum += bp[i].c;
		if (cum >= pos)
		{
			*b0 = bp[i].beta;
			break;
		}
	}
	free(bp);
	return GSU_OK;
}

/*
 * Recognizes the two degenerate outcomes of these losses and sets
 * res->degenerate (res->objective is F(θ) on entry, μ = 0).
 *
 * The zero model.  A penalty that grows with ‖w‖ can make w = 0 optimal:
 * TSVC's relaxation gives row i the loss h(d_x − γδ_i), which is 0 at
 * θ = 0 for every row with γδ_i ≥ 1 (and F(0) = 0 when all have it); the
 * robust loss h(d_x + γ‖A_iw‖_q) costs γ‖A_iw‖_q for any w, and w = 0 is
 * optimal once γ·‖A_i‖ outweighs what a direction gains on the hinge
 * (the Chebyshev chance constraint at confidence 0.9 has γ = 3).  First-
 * order solvers only approach w = 0 (λ-strong convexity puts an iterate
 * of objective gap ε within √(2ε/λ) of it, far from 0 for a small λ), so
 * the test compares objectives: with b0 the best bias at w = 0
 * (zero_model_bias), when F(0, b0) ≤ F(θ) + tol·(1 + |F(θ)|), tol the
 * solver's own stopping tolerance (0 for Pegasos, which has none), no
 * hyperplane beats the best constant by more than the solver can resolve.
 * Then θ becomes (0, b0) exactly, the flag is GSU_DEGENERATE_ZERO, and the
 * model says so by its weights alone (every weight 0).
 *
 * TSVC's bound.  On ‖w‖ ≤ γ the relaxed shift γδ_i is at least the true
 * δ_i‖w‖, so the relaxation R ≤ the TSVC objective G, with equality where
 * ‖w‖ = γ: a minimizer w* of R with ‖w*‖ = γ has G(w*) = R(w*) ≤ R ≤ G
 * on the ball, so it minimizes G over the ball (the relaxation is exact).
 * With ‖w*‖ < γ the bound is inactive: every row is credited a move of
 * γδ_i in decision value, γ/‖w*‖ times the δ_i‖w*‖ its radius allows, so
 * w* solves TSVC with radii inflated by γ/‖w*‖, not the problem asked
 * for.  The flag is GSU_DEGENERATE_BOUND when ‖w‖ < (1 −
 * GSU_TSVC_BOUND_SLACK)·γ (more than 0.1 % inflation).  The chance
 * constraint has no such bound: its only degenerate outcome is w = 0.
 */
static gsu_status
settle_degenerate(const gsu_robust_data *rd, double lambda, double tol, double *theta,
				  gsu_solve_result *res)
{
	int			d = rd->d,
				j;
	double	   *z = calloc((size_t) d + 1, sizeof(double));
	double		f = res->objective,
				b0,
				f0,
				fb;
	gsu_status	st;

	if (!z)
		return GSU_ENOMEM;
	st = zero_model_bias(rd, &b0);
	if (st != GSU_OK)
		goto done;
	/* the best of (0, b0) and (0, b) */
	z[d] = theta[d];
	st = gsu_robust_objective(rd, lambda, 0.0, z, &fb, NULL);
	if (st != GSU_OK)
		goto done;
	z[d] = b0;
	st = gsu_robust_objective(rd, lambda, 0.0, z, &f0, NULL);
	if (st != GSU_OK)
		goto done;
	if (fb <= f0)
	{
		z[d] = theta[d];
		f0 = fb;
	}
	res->passes += 2;
	if (f0 <= f + tol * (1.0 + fabs(f)))
	{
		res->degenerate = GSU_DEGENERATE_ZERO;
		/* the certified gap of θ grows by what the move to (0, b0) costs */
		res->gap_estimate = fmax(res->gap_estimate + (f0 - f), 0.0);
		res->objective = f0;
		memcpy(theta, z, sizeof(double) * ((size_t) d + 1));
	}
	else if (rd->loss == GSU_RLOSS_TSVC &&
			 cblas_dnrm2(d, theta, 1) < (1.0 - GSU_TSVC_BOUND_SLACK) * rd->gamma)
		res->degenerate = GSU_DEGENERATE_BOUND;
	for (j = 0; j < d; j++)
		theta[j] += 0.0;		/* no −0 */
done:
	free(z);
	return st;
}

gsu_status
gsu_robust_solve_batch(const gsu_robust_data *rd, const gsu_solve_options *o,
					   double *theta, gsu_solve_result *res)
{
	int			d = rd->d,
				m = d + 1;
	size_t		vb = sizeof(double) * (size_t) m;
	double	   *x = malloc(vb),
			   *yv = malloc(vb),
			   *xn = malloc(vb),
			   *gy = malloc(vb);
	certificate cert = {HUGE_VAL, -HUGE_VAL, malloc(vb), malloc(sizeof(double) * (4 * (size_t) d + 2))};
	double		radius = feasible_radius(rd);
	double		mu_final = o->smoothing,
				mu,
				lip = 1.0,
				g0 = -1.0,
				gmap = 0.0,
				fx,
				fy,
				fxn;
	int64_t		iters = 0,
				evals = 0;
	int			converged = 0;
	double		smooth_gap;
	gsu_status	st = check_data(rd);

	if (st == GSU_OK && rd->row_term)
		st = GSU_EINVAL;

	/* F_μ − F ≤ this at μ = the final smoothing */
	smooth_gap = rd->loss == GSU_RLOSS_TSVC ? mu_final / TWO_SQRT_PI :
		gsu_robust_smoothing_bound(rd->d, rd->q, rd->gamma, mu_final);
	memset(res, 0, sizeof(*res));
	if (st == GSU_OK && (!(o->lambda > 0.0) || !(mu_final > 0.0) || o->max_iterations < 1))
		st = GSU_EINVAL;
	if (st == GSU_OK && (!x || !yv || !xn || !gy || !cert.best || !cert.work))
		st = GSU_ENOMEM;
	if (st != GSU_OK)
		goto done;

	memcpy(x, theta, vb);
	project_ball(d, x, radius);
	mu = o->warm_start ? mu_final : (mu_final < 1.0 ? 1.0 : mu_final);
	for (;;)
	{
		int			last = mu <= mu_final;
		double		tol = last ? o->tolerance : fmax(o->tolerance, 1e-3);
		double		t = 1.0;
		int64_t		stage_iters = 0;

		st = gsu_robust_objective(rd, o->lambda, mu, x, &fx, NULL);
		evals++;
		if (st != GSU_OK)
			goto done;
		memcpy(yv, x, vb);
		for (;;)
		{
			double		tn,
						mom,
						diff2 = 0.0,
						lin = 0.0;
			int			j;

			/* every step is a few passes over the rows */
			if (o->progress && o->progress(o->progress_arg))
			{
				st = GSU_ECANCELLED;
				goto done;
			}
			/*
			 * Every 16 steps: a certified gap, which may end the whole run.
			 * The dual point built from the smoothed derivatives cannot do
			 * much better than the smoothing error, so after 1000 steps of
			 * the last stage a gap below that bound is accepted too.
			 */
			if ((stage_iters % 16) == 0)
			{
				certify(rd, o->lambda, mu, x, &cert);
				evals++;
				if (certified(&cert, o->tolerance) ||
					(last && stage_iters >= 1000 && cert.f - cert.lower <= smooth_gap))
				{
					converged = 1;
					break;
				}
			}
			st = gsu_robust_objective(rd, o->lambda, mu, yv, &fy, gy);
			evals++;
			if (st != GSU_OK)
				goto done;
			/* backtracking on the quadratic upper model at yv */
			for (;;)
			{
				for (j = 0; j < m; j++)
					xn[j] = yv[j] - gy[j] / lip;
				project_ball(d, xn, radius);
				diff2 = 0.0;
				lin = 0.0;
				for (j = 0; j < m; j++)
				{
					double		dj = xn[j] - yv[j];

					diff2 += dj * dj;
					lin += gy[j] * dj;
				}
				st = gsu_robust_objective(rd, o->lambda, mu, xn, &fxn, NULL);
				evals++;
				if (st != GSU_OK)
					goto done;
				if (fxn <= fy + lin + 0.5 * lip * diff2 + 1e-15 * fabs(fy) || lip > 1e300)
					break;
				lip *= 2.0;
			}
			iters++;
			stage_iters++;
			/* the gradient mapping L·(yv − xn): ∇F on the interior */
			gmap = lip * sqrt(diff2);
			if (g0 < 0.0)
				g0 = gmap > 0.0 ? gmap : 1.0;
			if (gmap <= tol * g0 || iters >= o->max_iterations)
			{
				if (fxn <= fx)
				{
					memcpy(x, xn, vb);
					fx = fxn;
				}
				if (last && gmap <= tol * g0)
					converged = 1;
				break;
			}
			if (fxn > fx)
			{
				/* adaptive restart (O'Donoghue & Candès): drop the momentum */
				memcpy(yv, x, vb);
				t = 1.0;
				continue;
			}
			tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
			mom = (t - 1.0) / tn;
			for (j = 0; j < m; j++)
			{
				yv[j] = xn[j] + mom * (xn[j] - x[j]);
				x[j] = xn[j];
			}
			fx = fxn;
			t = tn;
			lip *= 0.9;
		}
		if (last || converged || iters >= o->max_iterations)
			break;
		mu = fmax(mu * 0.1, mu_final);
	}
	certify(rd, o->lambda, mu, x, &cert);
	evals++;
	memcpy(theta, cert.best, vb);
	res->objective = cert.f;
	res->gradient_norm = gmap;
	res->gradient_norm0 = g0;
	/* certified: F(θ) − min F ≤ F(θ) − (best dual bound) */
	res->gap_estimate = fmax(cert.f - cert.lower, 0.0);
	res->iterations = iters;
	res->passes = evals;
	res->converged = converged;
	st = settle_degenerate(rd, o->lambda, o->tolerance, theta, res);
done:
	free(x);
	free(yv);
	free(xn);
	free(gy);
	free(cert.best);
	free(cert.work);
	return st;
}

gsu_status
gsu_robust_solve_pegasos(const gsu_robust_data *rd, const gsu_solve_options *o,
						 double *theta, gsu_solve_result *res)
{
	int			d = rd->d,
				m = d + 1,
				k = o->batch_size;
	double	   *acc = malloc(sizeof(double) * (size_t) m);
	double	   *work = malloc(sizeof(double) * 2 * (size_t) d);
	double		radius = sqrt(2.0 / o->lambda);
	double	   *cum = NULL;
	int64_t		total,
				t;
	gsu_rng		rng;
	gsu_progress pg = gsu_progress_make(o->progress, o->progress_arg);
	gsu_status	st = check_data(rd);

	memset(res, 0, sizeof(*res));
	if (st == GSU_OK && (!(o->lambda > 0.0) || k < 1 || o->epochs < 1))
		st = GSU_EINVAL;
	if (st == GSU_OK && (!acc || !work))
		st = GSU_ENOMEM;
	if (st == GSU_OK && rd->weight)
	{
		/* weighted rows are drawn with probability c_i/W */
		int64_t		i;

		cum = malloc(sizeof(double) * (size_t) rd->n);
		if (!cum)
			st = GSU_ENOMEM;
		for (i = 0; cum && i < rd->n; i++)
			cum[i] = (i ? cum[i - 1] : 0.0) + rd->weight[i];
	}
	if (st != GSU_OK)
		goto done;
	if (rd->loss == GSU_RLOSS_TSVC && rd->gamma < radius)
		radius = rd->gamma;
	gsu_rng_seed(&rng, o->seed);
	total = (rd->n + k - 1) / k * (int64_t) o->epochs;
	for (t = 1; t <= total; t++)
	{
		double		eta = 1.0 / (o->lambda * (double) (t + o->t0));
		double		shrink = 1.0 - eta * o->lambda;
		int			b,
					j;

		/* a row costs O(d), or about O(d²) with a full shape or a feature-space box */
		if (gsu_progress_tick(&pg, (double) k * (rd->a_full || rd->row_term ? (double) d * d : d)))
		{
			st = GSU_ECANCELLED;
			goto done;
		}
		memset(acc, 0, sizeof(double) * (size_t) m);
		for (b = 0; b < k; b++)
			(void) row_loss(rd, cum ? gsu_draw_weighted(&rng, cum, rd->weight, rd->n) :
							(int64_t) gsu_rng_below(&rng, (uint64_t) rd->n), theta,
							0.0, 1.0 / k, acc, work);
		for (j = 0; j < d; j++)
			theta[j] = shrink * theta[j] - eta * acc[j];
		theta[d] -= eta * acc[d];
		project_ball(d, theta, radius);
		if (!isfinite(theta[d]))
		{
			st = GSU_ENOTFINITE;
			goto done;
		}
	}
	res->iterations = total;
	res->passes = o->epochs;
	st = gsu_robust_objective(rd, o->lambda, 0.0, theta, &res->objective, acc);
	res->gradient_norm = cblas_dnrm2(m, acc, 1);
	/* (the glue compares feature_bound "worst_case" with the zero model itself) */
	if (st == GSU_OK && !rd->row_term)
		st = settle_degenerate(rd, o->lambda, 0.0, theta, res);
	if (st == GSU_OK && res->degenerate == GSU_DEGENERATE_ZERO)
	{
		st = gsu_robust_objective(rd, o->lambda, 0.0, theta, &res->objective, acc);
		res->gradient_norm = cblas_dnrm2(m, acc, 1);
	}
done:
	free(acc);
	free(work);
	free(cum);
	return st;
}

gsu_status
gsu_tsvc_solve_alternating(const gsu_robust_data *rd, const gsu_solve_options *o,
						   double *theta, gsu_solve_result *res)
{
	int			d = rd->d;
	size_t		nd = (size_t) rd->n * d;
	double	   *xs = malloc(sizeof(double) * (nd ? nd : 1));
	double		prev = HUGE_VAL,
				obj = HUGE_VAL;
	gsu_dataset ds;
	gsu_solve_options so = *o;
	int			round;
	int64_t		i;
	gsu_status	st = GSU_OK;

	memset(res, 0, sizeof(*res));
	if (rd->loss != GSU_RLOSS_TSVC || !rd->delta || rd->n < 1 || d < 1)
		st = GSU_EINVAL;
	else if (!xs)
		st = GSU_ENOMEM;
	if (st != GSU_OK)
		goto done;
	memset(&ds, 0, sizeof(ds));
	ds.n = rd->n;
	ds.d = d;
	ds.x = xs;
	ds.y = rd->y;
	ds.weight = rd->weight;
	for (round = 1; round <= 100; round++)
	{
		gsu_solve_result r;

		if (o->progress && o->progress(o->progress_arg))
		{
			st = GSU_ECANCELLED;
			goto done;
		}
		/* fix w: Δx_i = y_i·δ_i·w/‖w‖ (0 in the first round, w = 0) */
		for (i = 0; i < rd->n; i++)
			gsu_tsvc_best_case(d, theta, rd->x + (size_t) i * d, rd->y[i],
							   round == 1 ? 0.0 : rd->delta[i], xs + (size_t) i * d);
		/* fix Δx: the hinge SVM on the moved rows */
		so.warm_start = 0;
		st = gsu_solve_newton(&ds, &so, theta, &r);
		if (st != GSU_OK)
			goto done;
		res->passes += r.passes;
		res->iterations = round;
		res->gradient_norm = r.gradient_norm;
		res->gradient_norm0 = r.gradient_norm0;
		res->gap_estimate = r.gap_estimate;
		res->converged = r.converged;
		obj = gsu_tsvc_objective_exact(rd, o->lambda, theta);
		res->passes++;
		if (prev - obj <= o->tolerance * fabs(obj))
			break;
		prev = obj;
	}
	res->objective = obj;
done:
	free(xs);
	return st;
}
