/*
 * gsu_robust_solve.c — the solvers of the robust / TSVC problem: the
 * feasible ball, the degenerate solutions (zero model, best bias), the
 * batch solver (FISTA on the smoothed problem with a continuation in μ),
 * robust Pegasos and TSVC's alternating scheme, with the certificates of
 * gsu_robust_objective.c.  The equations are derived in gsu_robust.h.
 */
#include "gsu_robust.h"
#include "gsu_robust_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

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
		double		c = gsu_robust_row_weight(rd, i);
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

/* the batch solver's state: the problem, its iterates and counters */
typedef struct batch_ws
{
	const gsu_robust_data *rd;
	const gsu_solve_options *o;
	int			d;
	int			m;				/* d + 1 */
	size_t		vb;				/* m doubles */
	double	   *x;				/* the iterate */
	double	   *yv;				/* the extrapolated point */
	double	   *xn;				/* the step from yv */
	double	   *gy;				/* ∇F_μ at yv */
	gsu_robust_certificate cert;
	double		radius;			/* the feasible ball */
	double		mu;
	double		lip;			/* the Lipschitz estimate */
	double		g0;				/* the first gradient mapping (−1: none yet) */
	double		gmap;			/* the last gradient mapping */
	double		fx;				/* F_μ at x */
	double		fy;				/* F_μ at yv */
	double		fxn;			/* F_μ at xn */
	double		smooth_gap;		/* F_μ − F ≤ this at the final μ */
	int64_t		iters;
	int64_t		evals;
	int			converged;
} batch_ws;

/*
 * The projected gradient step from yv with backtracking on the quadratic
 * upper model at yv: xn, F_μ there in fxn, and *diff2 = ‖xn − yv‖²
 */
static gsu_status
batch_backtrack(batch_ws *bw, double *diff2)
{
	const gsu_robust_data *rd = bw->rd;
	int			m = bw->m,
				j;
	double		lin;
	gsu_status	st;

	for (;;)
	{
		for (j = 0; j < m; j++)
			bw->xn[j] = bw->yv[j] - bw->gy[j] / bw->lip;
		project_ball(bw->d, bw->xn, bw->radius);
		*diff2 = 0.0;
		lin = 0.0;
		for (j = 0; j < m; j++)
		{
			double		dj = bw->xn[j] - bw->yv[j];

			*diff2 += dj * dj;
			lin += bw->gy[j] * dj;
		}
		st = gsu_robust_objective(rd, bw->o->lambda, bw->mu, bw->xn, &bw->fxn, NULL);
		bw->evals++;
		if (st != GSU_OK)
			return st;
		if (bw->fxn <= bw->fy + lin + 0.5 * bw->lip * *diff2 + 1e-15 * fabs(bw->fy) || bw->lip > 1e300)
			return GSU_OK;
		bw->lip *= 2.0;
	}
}

/*
 * One stage of the continuation at bw->mu: accelerated projected gradient
 * steps (FISTA with adaptive restart) from x until the gradient mapping is
 * within tol of the first, the iteration limit, or a certified gap ends the
 * whole run (bw->converged)
 */
static gsu_status
batch_stage(batch_ws *bw, int last, double tol)
{
	const gsu_robust_data *rd = bw->rd;
	const gsu_solve_options *o = bw->o;
	int			m = bw->m;
	double		t = 1.0;
	int64_t		stage_iters = 0;
	gsu_status	st;

	st = gsu_robust_objective(rd, o->lambda, bw->mu, bw->x, &bw->fx, NULL);
	bw->evals++;
	if (st != GSU_OK)
		return st;
	memcpy(bw->yv, bw->x, bw->vb);
	for (;;)
	{
		double		tn,
					mom,
					diff2 = 0.0;
		int			j;

		/* every step is a few passes over the rows */
		if (o->progress && o->progress(o->progress_arg))
			return GSU_ECANCELLED;
		/*
		 * Every 16 steps: a certified gap, which may end the whole run.
		 * The dual point built from the smoothed derivatives cannot do
		 * much better than the smoothing error, so after 1000 steps of
		 * the last stage a gap below that bound is accepted too.
		 */
		if ((stage_iters % 16) == 0)
		{
			gsu_robust_certify(rd, o->lambda, bw->mu, bw->x, &bw->cert);
			bw->evals++;
			if (gsu_robust_certified(&bw->cert, o->tolerance) ||
				(last && stage_iters >= 1000 && bw->cert.f - bw->cert.lower <= bw->smooth_gap))
			{
				bw->converged = 1;
				break;
			}
		}
		st = gsu_robust_objective(rd, o->lambda, bw->mu, bw->yv, &bw->fy, bw->gy);
		bw->evals++;
		if (st != GSU_OK)
			return st;
		st = batch_backtrack(bw, &diff2);
		if (st != GSU_OK)
			return st;
		bw->iters++;
		stage_iters++;
		/* the gradient mapping L·(yv − xn): ∇F on the interior */
		bw->gmap = bw->lip * sqrt(diff2);
		if (bw->g0 < 0.0)
			bw->g0 = bw->gmap > 0.0 ? bw->gmap : 1.0;
		/* the gap certified at this step's start (every 16 steps) */
		gsu_solve_trace(o, bw->iters, fmin(bw->fxn, bw->fx), bw->gmap,
						(stage_iters % 16) == 1 ? fmax(bw->cert.f - bw->cert.lower, 0.0) : GSU_TRACE_NONE);
		if (bw->gmap <= tol * bw->g0 || bw->iters >= o->max_iterations)
		{
			if (bw->fxn <= bw->fx)
			{
				memcpy(bw->x, bw->xn, bw->vb);
				bw->fx = bw->fxn;
			}
			if (last && bw->gmap <= tol * bw->g0)
				bw->converged = 1;
			break;
		}
		if (bw->fxn > bw->fx)
		{
			/* adaptive restart (O'Donoghue & Candès): drop the momentum */
			memcpy(bw->yv, bw->x, bw->vb);
			t = 1.0;
			continue;
		}
		tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
		mom = (t - 1.0) / tn;
		for (j = 0; j < m; j++)
		{
			bw->yv[j] = bw->xn[j] + mom * (bw->xn[j] - bw->x[j]);
			bw->x[j] = bw->xn[j];
		}
		bw->fx = bw->fxn;
		t = tn;
		bw->lip *= 0.9;
	}
	return GSU_OK;
}

gsu_status
gsu_robust_solve_batch(const gsu_robust_data *rd, const gsu_solve_options *o,
					   double *theta, gsu_solve_result *res)
{
	int			d = rd->d,
				m = d + 1;
	size_t		vb = sizeof(double) * (size_t) m;
	batch_ws	bw;
	double		mu_final = o->smoothing;
	gsu_status	st;

	memset(&bw, 0, sizeof(bw));
	bw.rd = rd;
	bw.o = o;
	bw.d = d;
	bw.m = m;
	bw.vb = vb;
	bw.x = malloc(vb);
	bw.yv = malloc(vb);
	bw.xn = malloc(vb);
	bw.gy = malloc(vb);
	bw.cert.f = HUGE_VAL;
	bw.cert.lower = -HUGE_VAL;
	bw.cert.best = malloc(vb);
	bw.cert.work = malloc(sizeof(double) * (4 * (size_t) d + 2));
	bw.radius = feasible_radius(rd);
	bw.lip = 1.0;
	bw.g0 = -1.0;
	bw.gmap = 0.0;
	st = gsu_robust_check_data(rd);
	if (st == GSU_OK && rd->row_term)
		st = GSU_EINVAL;

	/* F_μ − F ≤ this at μ = the final smoothing */
	bw.smooth_gap = rd->loss == GSU_RLOSS_TSVC ? mu_final / TWO_SQRT_PI :
		gsu_robust_smoothing_bound(rd->d, rd->q, rd->gamma, mu_final);
	memset(res, 0, sizeof(*res));
	if (st == GSU_OK && (!(o->lambda > 0.0) || !(mu_final > 0.0) || o->max_iterations < 1))
		st = GSU_EINVAL;
	if (st == GSU_OK && (!bw.x || !bw.yv || !bw.xn || !bw.gy || !bw.cert.best || !bw.cert.work))
		st = GSU_ENOMEM;
	if (st != GSU_OK)
		goto done;

	memcpy(bw.x, theta, vb);
	project_ball(d, bw.x, bw.radius);
	bw.mu = o->warm_start ? mu_final : (mu_final < 1.0 ? 1.0 : mu_final);
	for (;;)
	{
		int			last = bw.mu <= mu_final;
		double		tol = last ? o->tolerance : fmax(o->tolerance, 1e-3);

		st = batch_stage(&bw, last, tol);
		if (st != GSU_OK)
			goto done;
		if (last || bw.converged || bw.iters >= o->max_iterations)
			break;
		bw.mu = fmax(bw.mu * 0.1, mu_final);
	}
	gsu_robust_certify(rd, o->lambda, bw.mu, bw.x, &bw.cert);
	bw.evals++;
	memcpy(theta, bw.cert.best, vb);
	res->objective = bw.cert.f;
	res->gradient_norm = bw.gmap;
	res->gradient_norm0 = bw.g0;
	/* certified: F(θ) − min F ≤ F(θ) − (best dual bound) */
	res->gap_estimate = fmax(bw.cert.f - bw.cert.lower, 0.0);
	res->iterations = bw.iters;
	res->passes = bw.evals;
	res->converged = bw.converged;
	st = settle_degenerate(rd, o->lambda, o->tolerance, theta, res);
done:
	free(bw.x);
	free(bw.yv);
	free(bw.xn);
	free(bw.gy);
	free(bw.cert.best);
	free(bw.cert.work);
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
	gsu_status	st = gsu_robust_check_data(rd);

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
		{
			int64_t		i = cum ? gsu_draw_weighted(&rng, cum, rd->weight, rd->n) :
				(int64_t) gsu_rng_below(&rng, (uint64_t) rd->n);

			(void) gsu_robust_data_row_loss(rd, i, theta, 0.0, 1.0 / k, acc, work);
		}
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
	if (st == GSU_OK)
		gsu_solve_trace(o, o->epochs, res->objective, res->gradient_norm, GSU_TRACE_NONE);
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
		/* fix Δx: the hinge SVM on the moved rows (reported by round, below) */
		so.warm_start = 0;
		so.trace = NULL;
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
		gsu_solve_trace(o, round, obj, r.gradient_norm, GSU_TRACE_NONE);
		if (prev - obj <= o->tolerance * fabs(obj))
			break;
		prev = obj;
	}
	res->objective = obj;
done:
	free(xs);
	return st;
}
