/*
 * gsu_scan_newton.c — Newton's method with the exact Hessian, one
 * evaluation per scan of the table (gsu.fit's solver "newton"); see
 * gsu_scan_newton.h for the method and gsu_objective.c for the derivatives.
 */
#include "gsu_scan_newton.h"
#include "gsu_loss.h"
#include "gsu_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

size_t
gsu_hess_block_doubles(int m, int cap, int panel)
{
	if (panel <= 0)
		panel = m <= 256 ? m : (65536 / m > 0 ? 65536 / m : 1);
	if (panel > m)
		panel = m;
	return 2 * (size_t) cap * (size_t) m + (size_t) panel * (size_t) m;
}

void
gsu_hess_block_init(gsu_hess_block *b, int m, int cap, int panel, double *mem)
{
	if (panel <= 0)
		panel = m <= 256 ? m : (65536 / m > 0 ? 65536 / m : 1);
	if (panel > m)
		panel = m;
	b->m = m;
	b->cap = cap;
	b->panel = panel;
	b->npos = b->nneg = 0;
	b->c = 0.0;
	b->pos = mem;
	b->neg = mem + (size_t) cap * m;
	b->scratch = mem + 2 * (size_t) cap * m;
}

void
gsu_hess_block_flush(gsu_hess_block *b, double *hess)
{
	int			m = b->m,
				j0;

	if (b->npos == 0 && b->nneg == 0)
		return;
	for (j0 = 0; j0 < m; j0 += b->panel)
	{
		int			p = m - j0 < b->panel ? m - j0 : b->panel,
					rest = m - j0 - p,
					ldc = m - j0,
					j,
					k;
		double	   *cpanel = b->scratch;
		double		beta = 0.0;

		/*
		 * rows j0 … j0+p−1 of Σ ±√|w|a (√|w|a)ᵀ from column j0 on: the
		 * diagonal block's upper triangle by dsyrk, the rest of the panel
		 * by dgemm
		 */
		if (b->npos > 0)
		{
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, p, b->npos, b->c,
						b->pos + j0, m, 0.0, cpanel, ldc);
			if (rest > 0)
				cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p, rest, b->npos, b->c,
							b->pos + j0, m, b->pos + j0 + p, m, 0.0, cpanel + p, ldc);
			beta = 1.0;
		}
		if (b->nneg > 0)
		{
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, p, b->nneg, -b->c,
						b->neg + j0, m, beta, cpanel, ldc);
			if (rest > 0)
				cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, p, rest, b->nneg, -b->c,
							b->neg + j0, m, b->neg + j0 + p, m, beta, cpanel + p, ldc);
		}
		/* row j of the packed upper triangle starts at j·m − j(j−1)/2 */
		for (j = j0; j < j0 + p; j++)
		{
			double	   *row = hess + (size_t) j * m - (size_t) j * (j - 1) / 2;
			const double *src = cpanel + (size_t) (j - j0) * ldc + (j - j0);

			for (k = 0; k < m - j; k++)
				row[k] += src[k];
		}
	}
	b->npos = b->nneg = 0;
}

void
gsu_hess_block_add(gsu_hess_block *b, double c, double w, const double *a, double *hess)
{
	int			m = b->m,
				j;
	double		s;
	double	   *dst;

	if (w == 0.0 || c == 0.0)
		return;
	/* one factor c a block: a row of another weight flushes the terms before it */
	if ((b->npos > 0 || b->nneg > 0) && c != b->c)
		gsu_hess_block_flush(b, hess);
	b->c = c;
	if (w > 0.0 ? b->npos == b->cap : b->nneg == b->cap)
		gsu_hess_block_flush(b, hess);
	s = sqrt(fabs(w));
	dst = w > 0.0 ? b->pos + (size_t) b->npos++ * m : b->neg + (size_t) b->nneg++ * m;
	for (j = 0; j < m; j++)
		dst[j] = s * a[j];
}

/*
 * hess += c·w·a aᵀ (m × m, packed upper), through blk when there is one;
 * without, the one dspr of weight c·w (the per-row sums as they were)
 */
static inline void
rank1(gsu_hess_block *blk, int m, double c, double w, const double *a, double *hess)
{
	if (blk)
		gsu_hess_block_add(blk, c, w, a, hess);
	else
		cblas_dspr(CblasRowMajor, CblasUpper, m, c * w, a, 1, hess);
}

double
gsu_row_loss_grad_hess(int d, const double *theta, const double *x, const gsu_cov *cov,
					   double y, double c, double mu, double *grad, double *hess,
					   double *loss0, double *dsigma, double *work)
{
	return gsu_row_loss_grad_hess_blocked(d, theta, x, cov, y, c, mu, grad, hess, loss0,
										  dsigma, work, NULL);
}

double
gsu_row_loss_grad_hess_blocked(int d, const double *theta, const double *x, const gsu_cov *cov,
							   double y, double c, double mu, double *grad, double *hess,
							   double *loss0, double *dsigma, double *work, gsu_hess_block *blk)
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
				cq,
				cq0;

	*dsigma = sqrt(2.0 * quad);
	*loss0 += mu == 0.0 ? 0.0 : c * gsu_expected_hinge(dx, *dsigma, NULL, NULL);
	loss = c * gsu_expected_hinge(dx, big_d, &p, &q);
	if (mu == 0.0)
		*loss0 += loss;
	/* the row's weight c scales L, ∇L and ∇²L */
	cq = q > 0.0 ? 2.0 * q / big_d : 0.0;
	p *= c;
	/* ∂L/∂w = (2q/D)·Σw − p·y·x,  ∂L/∂b = −p·y */
	for (j = 0; j < d; j++)
		grad[j] += c * cq * sw[j] - p * y * x[j];
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
	cq0 = cq;					/* 2q/D: the terms' weights are c times it */
	cq *= c;
	rank1(blk, m, c, cq0, v, hess);
	if (cov->kind != GSU_COV_NONE)
	{
		rank1(blk, m, c, -0.5 * cq0, sw, hess);
		/* + (2q/D)·Σ̃: row j of the packed upper triangle starts at j·m − j(j−1)/2 */
		if (cov->kind == GSU_COV_FACTOR)
		{
			/*
			 * Σ = LLᵀ: one rank-1 update per column l_k of L (in sw, now
			 * free, with a 0 for b), O(r·d²) where Σ itself would be
			 * d × d; the row's Σ is never formed
			 */
			int			k;

			for (k = 0; k < cov->rank; k++)
			{
				cblas_dcopy(d, cov->data + k, cov->rank, sw, 1);
				sw[d] = 0.0;
				rank1(blk, m, c, cq0, sw, hess);
			}
			return loss;
		}
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
	/* the largest diagonal entry of H bounds what a shift must exceed */
	for (j = 0; j < m; j++)
		hnorm = fmax(hnorm, fabs(c->h[(size_t) j * m - (size_t) j * (j - 1) / 2]));
	/*
	 * H is not positive definite (numerically: a direction of no curvature,
	 * such as b where every row is past the hinge) and there is no radius
	 * yet: the radius of TRON's first step, ‖∇F‖.
	 */
	if (!isfinite(snorm) && !isfinite(c->delta))
		c->delta = cblas_dnrm2(m, c->g, 1) + 1e-300;
	if (snorm > c->delta)
	{
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

/*
 * compute_step, with the radius halved while the step promises a decrease
 * larger than F itself: F ≥ 0, so such a step is beyond the reach of the
 * quadratic model (a start far from the optimum, a Hessian with little
 * curvature), and taking it would cost a rejected scan.
 */
static int
bounded_step(gsu_scan_newton *c)
{
	int			k;

	if (!compute_step(c))
		return 0;
	for (k = 0; k < 60 && c->f > 0.0 && c->pred > c->f; k++)
	{
		c->delta = 0.5 * c->snorm;
		if (!compute_step(c))
			return 0;
	}
	return 1;
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

/* ‖∇F_μ‖ at x, from a scan's gradient sum */
static double
gradient_norm(const gsu_scan_newton *c, const double *x, double n, const double *grad_sum)
{
	int			d = c->m - 1,
				j;
	double		ss = 0.0;

	for (j = 0; j <= d; j++)
	{
		double		gj = grad_sum[j] / n + (j < d ? c->lambda * x[j] : 0.0);

		ss += gj * gj;
	}
	return sqrt(ss);
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
	if (c->have_point && c->fresh)
	{
		/*
		 * The first point of a stage: F_μ' ≤ F_μ for μ' < μ, so a step whose
		 * F_μ' exceeds F_μ at the accepted point by more than the decrease
		 * the model promised went uphill: it is refused, and the accepted
		 * point itself is evaluated at μ' (and accepted then).
		 */
		if (!(isfinite(f) && f <= c->f + fabs(c->pred)) && c->x != c->theta)
		{
			c->rejected++;
			c->x = c->theta;
			return 0;
		}
	}
	else if (c->have_point)
	{
		/* the objective of this scan at the accepted point: F_μ, or F_0 after the switch */
		double		f_old = c->mu == c->f_mu ? c->f : c->f_true;
		double		actred = f_old - f;

		/*
		 * A decrease this small is below the rounding of F's sums over the
		 * rows: F cannot judge the step, the gradient can (a Newton step
		 * this close to the optimum shrinks it quadratically).
		 */
		int			unresolved = c->pred <= GSU_SN_F_RESOLUTION * fabs(f_old);

		if (unresolved && isfinite(f) && c->mu == c->f_mu &&
			gradient_norm(c, c->x, n, grad_sum) < c->gnorm)
			;					/* accepted below */
		else if (unresolved || !(isfinite(f) && actred > eta0 * c->pred))
		{
			/* rejected: a smaller step from the same point */
			c->rejected++;
			if (unresolved)
			{
				/* no step F can resolve decreases ‖∇F‖ either: stuck */
				c->x = c->theta;
				c->stuck = 1;
				return GSU_SN_DONE;
			}
			c->delta = 0.25 * fmin(c->snorm, c->delta);
			if (!(c->delta > 1e-300 * (1.0 + cblas_dnrm2(m, c->theta, 1))) || !bounded_step(c))
			{
				c->x = c->theta;
				c->stuck = 1;
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
	if (c->x != c->theta)
		memcpy(c->theta, c->x, sizeof(double) * (size_t) m);
	c->f = regularized(c, c->x, n, loss_sum, grad_sum, hess_sum, c->g, c->h);
	c->f_mu = c->mu;
	c->f_true = f0;
	(void) f;
	c->gnorm = cblas_dnrm2(m, c->g, 1);
	if (c->delta == 0.0)
		c->delta = c->gnorm;	/* a cold start: TRON's first radius */
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
	if (!bounded_step(c))
	{
		c->decrement = 0.0;
		c->stuck = !c->converged;
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
			/*
			 * Every row far from the kink at this μ (d_Σ > 100μ): the smaller
			 * μ of the schedule would change nothing near θ, and each would
			 * cost a scan; the true objective comes next.
			 */
			c->mu = gsu_finish_unsmoothed(c->mu, c->uses_covariance, min_dsigma) ? 0.0 :
				gsu_next_smoothing(c->mu, c->smoothing);
			c->fresh = 1;
		}
	}
	else if (gsu_finish_unsmoothed(c->mu, c->uses_covariance, min_dsigma))
	{
		/* the true objective is smooth around θ when every row keeps d_Σ ≫ μ */
		c->mu = 0.0;
		c->converged = 0;		/* a gradient of F_0 decides */
		c->fresh = 1;
	}
	if (c->converged ||
		(fabs(c->pred) <= 1e-15 * fabs(c->f) && c->snorm <= 1e-12 * (1.0 + cblas_dnrm2(m, c->theta, 1))))
	{
		c->stuck = !c->converged;
		c->x = c->theta;
		return GSU_SN_ACCEPTED | GSU_SN_DONE;
	}
	c->x = c->xt;
	return GSU_SN_ACCEPTED;
}
