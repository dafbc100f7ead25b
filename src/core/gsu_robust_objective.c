/*
 * gsu_robust_objective.c — the robust / TSVC problem over all rows
 * (gsu_robust_data): its validation, the objective F_μ and its gradient,
 * the exact TSVC objective, the Lagrangian dual lower bound with the
 * duality gap, and the certificates (best point, best bound) the solvers of
 * gsu_robust_solve.c keep.  The equations are derived in gsu_robust.h.
 */
#include "gsu_robust.h"
#include "gsu_robust_internal.h"
#include "gsu_loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

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
double
gsu_robust_data_row_loss(const gsu_robust_data *rd, int64_t i, const double *theta,
						 double mu, double scale, double *grad, double *work)
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

		(void) mu;				/* the callers keep μ = 0 (gsu_robust_check_data) */
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

gsu_status
gsu_robust_check_data(const gsu_robust_data *rd)
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
	gsu_status	st = gsu_robust_check_data(rd);

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
		double		c = gsu_robust_row_weight(rd, i);

		if (c != 0.0)
			sum += c * gsu_robust_data_row_loss(rd, i, theta, mu, c / total, grad, work);
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
		sum += gsu_robust_row_weight(rd, i) *
			gsu_tsvc_row_loss(d, theta, rd->x + (size_t) i * d, rd->y[i],
							  rd->delta[i] * wn, 0.0, 0.0, NULL);
	return 0.5 * lambda * wn * wn + sum / weight_total(rd);
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
		sum += gsu_robust_row_weight(rd, i) * fmax(0.0, dx + (c - 1.0) + gam * r);
		if (mu > 0.0)
			(void) gsu_expected_hinge(dx + (c - 1.0) + gam * rmu, mu, &p, NULL);
		else
			p = dx + (c - 1.0) + gam * r > 0.0 ? 1.0 : 0.0;
		alpha = p * gsu_robust_row_weight(rd, i) / total;
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
	gsu_status	st = gsu_robust_check_data(rd);

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

void
gsu_robust_certify(const gsu_robust_data *rd, double lambda, double mu, const double *theta,
				   gsu_robust_certificate *c)
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

int
gsu_robust_certified(const gsu_robust_certificate *c, double tol)
{
	return c->f - c->lower <= tol * (1.0 + fabs(c->f));
}
