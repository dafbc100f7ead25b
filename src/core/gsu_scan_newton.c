/*
 * gsu_scan_newton.c — Newton's method with the exact Hessian, one
 * evaluation per scan of the table (gsu.fit's solver "newton"); see
 * gsu_scan_newton.h for the method and gsu_objective.c for the derivatives.
 */
#include "gsu_scan_newton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

double
gsu_row_loss_grad_hess(int d, const double *theta, const double *x, const gsu_cov *cov,
					   double y, double mu, double *grad, double *hess, double *loss0,
					   double *dsigma, double *work)
{
	int			m = d + 1,
				j;
	double	   *sw = work;		/* Σw, then ∂D */
	double	   *v = work + m;
	double		dx = 1.0 - y * gsu_decision(d, theta, x);
	double		quad = fmax(gsu_cov_quad(d, cov, theta, sw), 0.0);
	double		big_d = sqrt(2.0 * quad + mu * mu);
	double		p,
				q,
				loss,
				u,
				cq;

	*dsigma = sqrt(2.0 * quad);
	*loss0 += mu == 0.0 ? 0.0 : gsu_expected_hinge(dx, *dsigma, NULL, NULL);
	loss = gsu_expected_hinge(dx, big_d, &p, &q);
	if (mu == 0.0)
		*loss0 += loss;
	cq = q > 0.0 ? 2.0 * q / big_d : 0.0;
	/* ∂L/∂w = (2q/D)·Σw − p·y·x,  ∂L/∂b = −p·y */
	for (j = 0; j < d; j++)
		grad[j] += cq * sw[j] - p * y * x[j];
	grad[d] += -p * y;
	if (q <= 0.0)
		return loss;			/* the hinge's flat or linear part: no curvature */

	u = dx / big_d;
	for (j = 0; j < d; j++)
	{
		sw[j] *= 2.0 / big_d;	/* ∂D */
		v[j] = -y * x[j] - u * sw[j];
	}
	sw[d] = 0.0;
	v[d] = -y;
	cblas_dspr(CblasRowMajor, CblasUpper, m, cq, v, 1, hess);
	if (cov->kind != GSU_COV_NONE)
	{
		cblas_dspr(CblasRowMajor, CblasUpper, m, -0.5 * cq, sw, 1, hess);
		/* + (2q/D)·Σ̃: row j of the packed upper triangle starts at j·m − j(j−1)/2 */
		for (j = 0; j < d; j++)
		{
			double	   *row = hess + (size_t) j * m - (size_t) j * (j - 1) / 2;

			if (cov->kind == GSU_COV_DIAG)
				row[0] += cq * cov->data[j];
			else if (cov->kind == GSU_COV_ISO)
				row[0] += cq * cov->iso;
			else
				cblas_daxpy(d - j, cq, cov->data + (size_t) j * d + j, 1, row, 1);
		}
	}
	return loss;
}

double
gsu_gradient_norm_at_zero(int m, const double *yx, double n, double mu)
{
	double		p;

	(void) gsu_expected_hinge(1.0, mu, &p, NULL);
	return p * cblas_dnrm2(m, yx, 1) / n;
}

gsu_status
gsu_scan_newton_init(gsu_scan_newton *c, int m, double *theta, double lambda,
					 double mu_start, double smoothing, double tolerance, int uses_covariance)
{
	memset(c, 0, sizeof(*c));
	if (m < 2 || !(lambda > 0.0) || !(tolerance > 0.0) || !(smoothing >= 0.0) ||
		!(mu_start >= smoothing))
		return GSU_EINVAL;
	c->m = m;
	c->theta = theta;
	c->lambda = lambda;
	c->smoothing = smoothing;
	c->tolerance = tolerance;
	c->uses_covariance = uses_covariance;
	c->delta = HUGE_VAL;
	c->mu = mu_start;
	c->xt = malloc(sizeof(double) * (size_t) m);
	c->g = malloc(sizeof(double) * (size_t) m);
	c->s = malloc(sizeof(double) * (size_t) m);
	c->h = malloc(sizeof(double) * GSU_PACKED_SIZE(m));
	c->fac = malloc(sizeof(double) * GSU_PACKED_SIZE(m));
	if (!c->xt || !c->g || !c->s || !c->h || !c->fac)
	{
		gsu_scan_newton_free(c);
		return GSU_ENOMEM;
	}
	memcpy(c->xt, theta, sizeof(double) * (size_t) m);
	c->x = c->xt;
	return GSU_OK;
}

void
gsu_scan_newton_free(gsu_scan_newton *c)
{
	free(c->xt);
	free(c->g);
	free(c->s);
	free(c->h);
	free(c->fac);
	c->xt = c->g = c->s = c->h = c->fac = NULL;
}

/*
 * s = −(H + σI)⁻¹g (H packed); 0 when the factorization fails (H + σI not
 * positive definite), else 1.
 */
static int
shifted_solve(gsu_scan_newton *c, double sigma)
{
	int			m = c->m,
				j;

	memcpy(c->fac, c->h, sizeof(double) * GSU_PACKED_SIZE(m));
	for (j = 0; j < m; j++)
		c->fac[(size_t) j * m - (size_t) j * (j - 1) / 2] += sigma;
	if (LAPACKE_dpptrf(LAPACK_ROW_MAJOR, 'U', m, c->fac) != 0)
		return 0;
	for (j = 0; j < m; j++)
		c->s[j] = -c->g[j];
	if (LAPACKE_dpptrs(LAPACK_ROW_MAJOR, 'U', m, 1, c->fac, c->s, 1) != 0)
		return 0;
	for (j = 0; j < m; j++)
		if (!isfinite(c->s[j]))
			return 0;
	return 1;
}

/* ½gᵀs + ... : the model's decrease −(gᵀs + ½sᵀHs) for the step in c->s */
static double
model_decrease(gsu_scan_newton *c)
{
	int			m = c->m;
	double		hs_s;

	cblas_dspmv(CblasRowMajor, CblasUpper, m, 1.0, c->h, c->s, 1, 0.0, c->fac, 1);
	hs_s = cblas_ddot(m, c->s, 1, c->fac, 1);
	return -(cblas_ddot(m, c->g, 1, c->s, 1) + 0.5 * hs_s);
}

/*
 * The step from theta within the trust radius: the Newton step when it is
 * inside (and H positive definite), else the smallest shift σ that brings
 * ‖s‖ to [0.9, 1]·delta, found by bisection on log σ.  Sets c->s, c->pred,
 * c->snorm, c->xt.  0 when no step can be computed.
 */
static int
compute_step(gsu_scan_newton *c)
{
	int			m = c->m,
				j,
				k;
	double		snorm = HUGE_VAL,
				lo,
				hi,
				hnorm = 0.0;

	if (shifted_solve(c, 0.0))
		snorm = cblas_dnrm2(m, c->s, 1);
	if (snorm > c->delta)
	{
		/* the largest diagonal entry of H bounds what a shift must exceed */
		for (j = 0; j < m; j++)
			hnorm = fmax(hnorm, fabs(c->h[(size_t) j * m - (size_t) j * (j - 1) / 2]));
		lo = 0.0;
		hi = cblas_dnrm2(m, c->g, 1) / (isfinite(c->delta) ? c->delta : 1e-300) + hnorm * m + 1e-300;
		if (!isfinite(hi))
			hi = 1e300;
		for (k = 0; k < 200; k++)
		{
			double		sigma = lo > 0.0 ? sqrt(lo * hi) : hi * 1e-12;

			if (!shifted_solve(c, sigma))
			{
				lo = sigma;
				continue;
			}
			snorm = cblas_dnrm2(m, c->s, 1);
			if (snorm > c->delta)
				lo = sigma;
			else if (snorm < 0.9 * c->delta && hi / (lo > 0.0 ? lo : hi * 1e-12) > 1.0 + 1e-12)
				hi = sigma;
			else
				break;
		}
		if (!shifted_solve(c, k < 200 ? (lo > 0.0 ? sqrt(lo * hi) : hi * 1e-12) : hi))
			return 0;
		snorm = cblas_dnrm2(m, c->s, 1);
	}
	c->snorm = snorm;
	c->pred = model_decrease(c);
	for (j = 0; j < m; j++)
		c->xt[j] = c->theta[j] + c->s[j];
	return isfinite(c->pred);
}

/* F, ∇F and ∇²F from a scan's sums at the point x */
static double
regularized(gsu_scan_newton *c, const double *x, double n, double loss_sum,
			const double *grad_sum, const double *hess_sum, double *g, double *h)
{
	int			m = c->m,
				d = m - 1,
				j;
	double		ww = cblas_ddot(d, x, 1, x, 1);

	for (j = 0; j < m; j++)
		g[j] = grad_sum[j] / n + (j < d ? c->lambda * x[j] : 0.0);
	if (h)
	{
		size_t		np = GSU_PACKED_SIZE(m);
		size_t		i;

		for (i = 0; i < np; i++)
			h[i] = hess_sum[i] / n;
		for (j = 0; j < d; j++)
			h[(size_t) j * m - (size_t) j * (j - 1) / 2] += c->lambda;
	}
	return 0.5 * c->lambda * ww + loss_sum / n;
}

int
gsu_scan_newton_tell(gsu_scan_newton *c, double n, double loss_sum, double loss0_sum,
					 const double *grad_sum, const double *hess_sum, double min_dsigma,
					 double gnorm0, gsu_status *status)
{
	const double eta0 = 1e-4;
	int			m = c->m,
				stage_done;
	double		ww = cblas_ddot(m - 1, c->x, 1, c->x, 1);
	double		f = 0.5 * c->lambda * ww + loss_sum / n;
	double		f0 = 0.5 * c->lambda * ww + loss0_sum / n;

	*status = GSU_OK;
	if (!c->have_point && gnorm0 > 0.0)
		c->gnorm0 = gnorm0;
	if (c->have_point && !c->fresh)
	{
		/* the objective of this scan at the accepted point: F_μ, or F_0 after the switch */
		double		f_old = c->mu == c->f_mu ? c->f : c->f_true;
		double		actred = f_old - f;

		if (!(isfinite(f) && actred > eta0 * c->pred))
		{
			/* rejected: a smaller step from the same point */
			c->rejected++;
			c->delta = 0.25 * fmin(c->snorm, c->delta);
			if (!(c->delta > 1e-300 * (1.0 + cblas_dnrm2(m, c->theta, 1))) || !compute_step(c))
			{
				c->x = c->theta;
				return GSU_SN_DONE;
			}
			c->x = c->xt;
			return 0;
		}
		/* accepted: the radius grows after a good step that reached it */
		if (actred > 0.75 * c->pred && isfinite(c->delta) && c->snorm >= 0.9 * c->delta)
			c->delta *= 2.0;
		else if (actred < 0.25 * c->pred)
			c->delta = 0.5 * c->snorm;
	}
	/* accept x (unconditionally the first point of a stage) */
	c->fresh = 0;
	memcpy(c->theta, c->x, sizeof(double) * (size_t) m);
	c->f = regularized(c, c->x, n, loss_sum, grad_sum, hess_sum, c->g, c->h);
	c->f_mu = c->mu;
	c->f_true = f0;
	(void) f;
	c->gnorm = cblas_dnrm2(m, c->g, 1);
	if (!isfinite(c->f) || !isfinite(c->gnorm))
	{
		*status = GSU_ENOTFINITE;
		c->x = c->theta;
		return GSU_SN_ACCEPTED | GSU_SN_DONE;
	}
	c->have_point = 1;
	c->accepted++;
	c->converged = c->gnorm <= c->tolerance * (c->gnorm0 > 0.0 ? c->gnorm0 : 1.0);
	stage_done = c->gnorm <= fmax(c->tolerance, GSU_SN_STAGE_TOL) * (c->gnorm0 > 0.0 ? c->gnorm0 : 1.0);
	if (!compute_step(c))
	{
		c->decrement = 0.0;
		c->x = c->theta;
		return GSU_SN_ACCEPTED | GSU_SN_DONE;
	}
	c->decrement = c->pred;
	if (c->mu > c->smoothing)
	{
		/* a stage of the continuation: the next μ once near this one's optimum */
		c->converged = 0;
		if (stage_done)
		{
			c->mu *= 0.1;
			if (c->mu <= c->smoothing * (1.0 + 1e-9))
				c->mu = c->smoothing;
			c->fresh = 1;
		}
	}
	else if (c->mu > 0.0 && c->uses_covariance && min_dsigma > 100.0 * c->mu)
	{
		/* the true objective is smooth around θ when every row keeps d_Σ ≫ μ */
		c->mu = 0.0;
		c->converged = 0;		/* a gradient of F_0 decides */
		c->fresh = 1;
	}
	if (c->converged ||
		(fabs(c->pred) <= 1e-15 * fabs(c->f) && c->snorm <= 1e-12 * (1.0 + cblas_dnrm2(m, c->theta, 1))))
	{
		c->x = c->theta;
		return GSU_SN_ACCEPTED | GSU_SN_DONE;
	}
	c->x = c->xt;
	return GSU_SN_ACCEPTED;
}

#define BAND_FREE 0				/* α solved for */
#define BAND_V 1				/* α = 1 */
#define BAND_N 2				/* α = 0 */

int
gsu_hinge_polish_sums(int d, double lambda, double n, const double *vsum, double count_v,
					  int64_t n_s, const double *srows, double *theta, double *dual,
					  double *kkt)
{
	int			m = d + 1,
				ok = 0;
	int64_t		i,
				j,
				round,
				keep = 2 * (int64_t) d + 4;
	double		inv_ln = 1.0 / (lambda * n);
	size_t		cnt = (size_t) (n_s > 0 ? n_s : 1);
	double	   *wv = malloc(sizeof(double) * (size_t) m),
			   *w = malloc(sizeof(double) * (size_t) m),
			   *a = NULL,
			   *rhs = NULL,
			   *sv = NULL,
			   *beta = calloc(cnt, sizeof(double)),
			   *margin = malloc(sizeof(double) * cnt);
	int64_t    *free_idx = malloc(sizeof(int64_t) * cnt);
	unsigned char *state = calloc(cnt, 1);

	if (!wv || !w || !beta || !margin || !free_idx || !state || n_s < 1 || !(n > 0.0) ||
		!(lambda > 0.0))
		goto out;
	/* the free set starts as the keep rows nearest the margin at theta, the others by side */
	for (i = 0; i < n_s; i++)
	{
		const double *r = srows + (size_t) i * m;

		margin[i] = 1.0 - r[d] * (cblas_ddot(d, r, 1, theta, 1) + theta[d]);
		state[i] = margin[i] > 0.0 ? BAND_V : BAND_N;
	}
	for (j = 0; j < keep && j < n_s; j++)
	{
		int64_t		best = -1;

		for (i = 0; i < n_s; i++)
			if (state[i] != BAND_FREE && (best < 0 || fabs(margin[i]) < fabs(margin[best])))
				best = i;
		state[best] = BAND_FREE;
	}
	for (round = 0; round < 4 * n_s + 100; round++)
	{
		int64_t		nf = 0,
					worst = -1;
		double		sum_yv = vsum[d],
					v_extra = 0.0,
					worst_v = 1e-9;
		lapack_int	rank;

		/* w_V and Σ_V y over V and the band rows in V */
		memcpy(wv, vsum, sizeof(double) * (size_t) m);
		for (i = 0; i < n_s; i++)
		{
			const double *r = srows + (size_t) i * m;

			if (state[i] == BAND_V)
			{
				cblas_daxpy(d, r[d], r, 1, wv, 1);
				sum_yv += r[d];
				v_extra += 1.0;
			}
			else if (state[i] == BAND_FREE)
				free_idx[nf++] = i;
		}
		cblas_dscal(d, inv_ln, wv, 1);
		free(a);
		free(rhs);
		free(sv);
		a = malloc(sizeof(double) * (size_t) (nf + 1) * (size_t) (nf + 1));
		rhs = malloc(sizeof(double) * (size_t) (nf + 1));
		sv = malloc(sizeof(double) * (size_t) (nf + 1));
		if (!a || !rhs || !sv)
			goto out;
		/* the system (column-major, (nf+1)²; the last row and column for Σβ and b) */
		for (i = 0; i < nf; i++)
		{
			const double *ri = srows + (size_t) free_idx[i] * m;

			for (j = 0; j <= i; j++)
			{
				const double *rj = srows + (size_t) free_idx[j] * m;
				double		kij = inv_ln * cblas_ddot(d, ri, 1, rj, 1);

				a[(size_t) j * (nf + 1) + i] = kij;
				a[(size_t) i * (nf + 1) + j] = kij;
			}
			a[(size_t) nf * (nf + 1) + i] = 1.0;	/* b */
			a[(size_t) i * (nf + 1) + nf] = 1.0;	/* Σβ */
			rhs[i] = ri[d] - cblas_ddot(d, ri, 1, wv, 1);
		}
		a[(size_t) nf * (nf + 1) + nf] = 0.0;
		rhs[nf] = -sum_yv;
		if (LAPACKE_dgelsd(LAPACK_COL_MAJOR, (lapack_int) (nf + 1), (lapack_int) (nf + 1), 1, a,
						   (lapack_int) (nf + 1), rhs, (lapack_int) (nf + 1), sv, 1e-12, &rank) != 0)
			goto out;
		for (i = 0; i < nf; i++)
			beta[free_idx[i]] = rhs[i];
		/* the candidate */
		memcpy(w, wv, sizeof(double) * (size_t) d);
		for (i = 0; i < nf; i++)
			cblas_daxpy(d, inv_ln * rhs[i], srows + (size_t) free_idx[i] * m, 1, w, 1);
		w[d] = rhs[nf];
		/* first the support row whose α is furthest outside [0, 1] leaves the free set */
		for (i = 0; i < nf; i++)
		{
			double		al = beta[free_idx[i]] * srows[(size_t) free_idx[i] * m + d];
			double		v = fmax(al - 1.0, -al);

			if (v > worst_v)
			{
				worst_v = v;
				worst = free_idx[i];
			}
		}
		if (worst >= 0)
		{
			state[worst] = beta[worst] * srows[(size_t) worst * m + d] > 1.0 ? BAND_V : BAND_N;
			continue;
		}
		/* then the margins at the candidate must agree with the sets */
		for (i = 0; i < n_s; i++)
		{
			const double *r = srows + (size_t) i * m;
			double		di = 1.0 - r[d] * (cblas_ddot(d, r, 1, w, 1) + w[d]);
			double		v = state[i] == BAND_V ? -di : state[i] == BAND_N ? di : fabs(di);

			margin[i] = di;
			if (v > worst_v)
			{
				worst_v = v;
				worst = i;
			}
		}
		if (worst >= 0)
		{
			state[worst] = state[worst] != BAND_FREE ? BAND_FREE :
				margin[worst] > 0.0 ? BAND_V : BAND_N;
			continue;
		}
		{
			double		sum_alpha = count_v + v_extra,
						ww = cblas_ddot(d, w, 1, w, 1),
						res = 0.0;

			for (i = 0; i < nf; i++)
			{
				const double *r = srows + (size_t) free_idx[i] * m;
				double		di = 1.0 - r[d] * (cblas_ddot(d, r, 1, w, 1) + w[d]);

				sum_alpha += beta[free_idx[i]] * r[d];
				res += di * di;
			}
			memcpy(theta, w, sizeof(double) * (size_t) m);
			*dual = sum_alpha / n - 0.5 * lambda * ww;
			*kkt = sqrt(res);
			ok = isfinite(*dual);
			goto out;
		}
	}
out:
	free(wv);
	free(w);
	free(a);
	free(rhs);
	free(sv);
	free(beta);
	free(margin);
	free(free_idx);
	free(state);
	return ok;
}
