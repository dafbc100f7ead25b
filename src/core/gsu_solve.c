/*
 * gsu_solve.c — solvers for min_θ F(θ) = λ/2‖w‖² + (1/W) Σ_i c_i L_i(θ)
 * (row weights c_i, W = Σ_i c_i; c_i = 1 and W = n without weights).
 *
 * The derivation: src/core/README, section gsu_solve.c.
 */
#include "gsu_solve.h"
#include "gsu_loss.h"
#include "gsu_objective.h"
#include "gsu_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#define TWO_SQRT_PI 3.5449077018110320546

void
gsu_solve_options_default(gsu_solve_options *o)
{
	memset(o, 0, sizeof(*o));
	o->lambda = 1e-3;
	o->tolerance = 1e-6;
	o->smoothing = 1e-5;
	o->max_iterations = 1000;
	o->epochs = 10;
	o->batch_size = 1;
	o->seed = 1;
}

static double
norm2(int n, const double *x)
{
	return cblas_dnrm2(n, x, 1);
}

/*
 * Steihaug–Toint CG for  min_s gᵀs + ½sᵀHs  subject to ‖s‖ ≤ delta
 * (delta ≤ 0 means unconstrained).  Returns the predicted reduction
 * −(gᵀs + ½sᵀHs) and counts Hessian products in *hv.  Each product is a
 * pass over the rows, so o's progress callback is asked before each; when
 * it says stop, *cancelled is set and the CG ends early.
 *
 * b_shift > 0 adds b_shift to the curvature of the last coordinate, the
 * bias b (H + b_shift·e_b e_bᵀ).  λ regularizes only w, so where every row
 * lies on a flat piece of its loss (all of them far inside the margin, say:
 * a large λ) H has next to no curvature along b, and the unconstrained
 * quadratic model's minimum, ½gᵀH⁻¹g, runs off to 10¹⁶⁰ or infinity from a
 * gradient of 10⁻¹⁷ — where F is flat, not quadratic.  The Newton decrement
 * (the gap estimate) is taken with b_shift = λ: b's curvature at least the
 * one λ gives every w coordinate.
 */
static double
trust_cg(gsu_eval *ev, int m, const double *g, double delta, double rtol,
		 int max_cg, double b_shift, double *s, double *r, double *dir, double *hd,
		 int64_t *hv, const gsu_solve_options *o, int *cancelled)
{
	double		rtr,
				cgtol;
	int			k;

	memset(s, 0, sizeof(double) * (size_t) m);
	for (k = 0; k < m; k++)
		r[k] = -g[k];
	memcpy(dir, r, sizeof(double) * (size_t) m);
	rtr = cblas_ddot(m, r, 1, r, 1);
	cgtol = rtol * sqrt(rtr);

	for (k = 0; k < max_cg; k++)
	{
		double		dhd,
					alpha,
					rtr_new;

		if (sqrt(rtr) <= cgtol)
			break;
		if (o->progress && o->progress(o->progress_arg))
		{
			*cancelled = 1;
			break;
		}
		gsu_eval_hessvec(ev, dir, hd);
		(*hv)++;
		if (b_shift > 0.0)
			hd[m - 1] += b_shift * dir[m - 1];
		dhd = cblas_ddot(m, dir, 1, hd, 1);
		if (!(dhd > 0.0))
		{
			/* no curvature along dir: go to the boundary (or stop) */
			if (delta > 0.0)
			{
				double		sd = cblas_ddot(m, s, 1, dir, 1);
				double		dd = cblas_ddot(m, dir, 1, dir, 1);
				double		ss = cblas_ddot(m, s, 1, s, 1);
				double		rad = sd * sd + dd * (delta * delta - ss);
				double		tau = (sqrt(rad > 0.0 ? rad : 0.0) - sd) / dd;

				cblas_daxpy(m, tau, dir, 1, s, 1);
				cblas_daxpy(m, -tau, hd, 1, r, 1);
			}
			break;
		}
		alpha = rtr / dhd;
		cblas_daxpy(m, alpha, dir, 1, s, 1);
		if (delta > 0.0 && norm2(m, s) > delta)
		{
			/* step back and stop on the boundary: ‖s + τ·dir‖ = delta */
			double		sd,
						dd,
						ss,
						rad,
						tau;

			cblas_daxpy(m, -alpha, dir, 1, s, 1);
			sd = cblas_ddot(m, s, 1, dir, 1);
			dd = cblas_ddot(m, dir, 1, dir, 1);
			ss = cblas_ddot(m, s, 1, s, 1);
			rad = sd * sd + dd * (delta * delta - ss);
			tau = (sqrt(rad > 0.0 ? rad : 0.0) - sd) / dd;
			cblas_daxpy(m, tau, dir, 1, s, 1);
			cblas_daxpy(m, -tau, hd, 1, r, 1);
			break;
		}
		cblas_daxpy(m, -alpha, hd, 1, r, 1);
		rtr_new = cblas_ddot(m, r, 1, r, 1);
		cblas_dscal(m, rtr_new / rtr, dir, 1);
		cblas_daxpy(m, 1.0, r, 1, dir, 1);
		rtr = rtr_new;
	}
	/* r = −g − Hs, so −(gᵀs + ½sᵀHs) = −½(gᵀs − rᵀs) */
	return -0.5 * (cblas_ddot(m, g, 1, s, 1) - cblas_ddot(m, r, 1, s, 1));
}

/*
 * min_i √(2wᵀΣ_iw) over the rows of positive weight at the last evaluated
 * point, from D_i = √(2wᵀΣ_iw + μ²)
 */
static double
min_dsigma(const gsu_eval *ev, double mu)
{
	double		m = HUGE_VAL;
	int64_t		i;

	for (i = 0; i < ev->ds->n; i++)
	{
		double		d2 = ev->big_d[i] * ev->big_d[i] - mu * mu;

		if (ev->ds->weight && ev->ds->weight[i] == 0.0)
			continue;
		if (d2 < m)
			m = d2;
	}
	return m > 0.0 ? sqrt(m) : 0.0;
}

/* the state of one Newton solve */
typedef struct newton_ws
{
	gsu_eval	ev[2];			/* current point and trial point */
	double	   *g,
			   *g_new,
			   *s,
			   *r,
			   *dir,
			   *hd,
			   *theta_new;
	const gsu_dataset *ds;
	const gsu_solve_options *o;
	int			m;				/* d + 1 */
	size_t		vbytes;			/* m doubles */
	int			max_cg;
	gsu_eval   *cur;			/* ev[0] or ev[1]: the current point */
	gsu_eval   *trial;			/* the other */
	double		f;				/* F_μ at theta */
	double		gnorm;			/* ‖∇F_μ‖ at theta */
	double		gnorm0;			/* the scale of the stopping rule */
	double		delta;			/* the trust radius (−1: not set) */
	double		mu;
	int64_t		iters;
	int64_t		kink_tried_at;	/* the iteration of the last kink polish (gsu_kink_polish) */
	int			kink_ok;		/* rows whose covariance is a factor, a diagonal or a matrix */
	int64_t		kink_wait;		/* iterations before a try in a stage: 1000, doubled after a failure */
	int			kink_failed;	/* tries that failed */
	int			kinked;			/* theta is the kink polish's point */
	double		kink_f;			/* its objective (μ = 0) */
	double		kink_kkt;		/* its null-space gradient's norm */
	int64_t		hv;				/* Hessian-vector products */
	int64_t		evals;			/* evaluations */
	int			cancelled;
} newton_ws;

static void
newton_ws_free(newton_ws *ws)
{
	gsu_eval_free(&ws->ev[0]);
	gsu_eval_free(&ws->ev[1]);
	free(ws->g);
	free(ws->g_new);
	free(ws->s);
	free(ws->r);
	free(ws->dir);
	free(ws->hd);
	free(ws->theta_new);
}

/* ws's evaluators and vectors for ds and o (ws zeroed); freed on failure */
static gsu_status
newton_ws_init(newton_ws *ws, const gsu_dataset *ds, const gsu_solve_options *o)
{
	gsu_status	st;

	ws->ds = ds;
	ws->o = o;
	ws->m = ds->d + 1;
	ws->vbytes = sizeof(double) * (size_t) ws->m;
	ws->max_cg = ws->m < 200 ? 2 * ws->m + 10 : 400;
	st = gsu_eval_init(&ws->ev[0], ds, o->lambda);
	if (st == GSU_OK)
		st = gsu_eval_init(&ws->ev[1], ds, o->lambda);
	if (st != GSU_OK)
	{
		newton_ws_free(ws);
		return st;
	}
	ws->g = malloc(ws->vbytes);
	ws->g_new = malloc(ws->vbytes);
	ws->s = malloc(ws->vbytes);
	ws->r = malloc(ws->vbytes);
	ws->dir = malloc(ws->vbytes);
	ws->hd = malloc(ws->vbytes);
	ws->theta_new = malloc(ws->vbytes);
	if (!ws->g || !ws->g_new || !ws->s || !ws->r || !ws->dir || !ws->hd || !ws->theta_new)
	{
		newton_ws_free(ws);
		return GSU_ENOMEM;
	}
	ws->cur = &ws->ev[0];
	ws->trial = &ws->ev[1];
	return GSU_OK;
}

/*
 * The trust radius after a step of norm snorm with the actual and predicted
 * decreases actred and prered (Lin & Moré's rule; gs = ∇Fᵀs, f and f_new
 * the objective before and at the step).
 */
static double
newton_radius(double delta, double f, double f_new, double gs, double snorm,
			  double actred, double prered)
{
	/* trust-region constants of Lin & Moré */
	const double eta0 = 1e-4,
				eta1 = 0.25,
				eta2 = 0.75;
	const double sigma1 = 0.25,
				sigma2 = 0.5,
				sigma3 = 4.0;
	double		alpha;

	if (f_new - f - gs <= 0.0)
		alpha = sigma3;
	else
	{
		alpha = -0.5 * (gs / (f_new - f - gs));
		if (alpha < sigma1)
			alpha = sigma1;
	}
	if (actred < eta0 * prered)
		delta = fmin(alpha * snorm, sigma2 * delta);
	else if (actred < eta1 * prered)
		delta = fmax(sigma1 * delta, fmin(alpha * snorm, sigma2 * delta));
	else if (actred < eta2 * prered)
		delta = fmax(sigma1 * delta, fmin(alpha * snorm, sigma3 * delta));
	else
		delta = fmax(delta, fmin(alpha * snorm, sigma3 * delta));
	return delta;
}

/*
 * One stage of the continuation at ws->mu from theta (ws->f, ws->g and
 * ws->gnorm there): trust-region Newton steps until ‖∇F_μ‖ ≤ rel_tol·gnorm0,
 * the iteration limit, or no further progress in double precision.
 */
static int	newton_kink(newton_ws *ws, double *theta, gsu_status *st);

static gsu_status
newton_stage(newton_ws *ws, double *theta, double rel_tol)
{
	/* the first of Lin & Moré's constants: a step is taken above it */
	const double eta0 = 1e-4;
	const gsu_solve_options *o = ws->o;
	int			m = ws->m;
	gsu_status	st;

	while (ws->gnorm > rel_tol * ws->gnorm0 && ws->iters < o->max_iterations)
	{
		double		cg_rtol = sqrt(ws->gnorm / ws->gnorm0);
		double		prered,
					actred,
					f_new,
					gs,
					snorm;
		int			k;

		if (o->progress && o->progress(o->progress_arg))
			return GSU_ECANCELLED;
		ws->iters++;
		if (cg_rtol > 0.1)
			cg_rtol = 0.1;
		prered = trust_cg(ws->cur, m, ws->g, ws->delta, cg_rtol, ws->max_cg, 0.0,
						  ws->s, ws->r, ws->dir, ws->hd, &ws->hv, o, &ws->cancelled);
		if (ws->cancelled)
			return GSU_ECANCELLED;
		for (k = 0; k < m; k++)
			ws->theta_new[k] = theta[k] + ws->s[k];
		st = gsu_eval_at(ws->trial, ws->mu, ws->theta_new, &f_new, ws->g_new);
		ws->evals++;
		if (st == GSU_ENOTFINITE)
			f_new = HUGE_VAL;	/* reject the step, shrink the region */
		else if (st != GSU_OK)
			return st;

		actred = ws->f - f_new;
		gs = cblas_ddot(m, ws->g, 1, ws->s, 1);
		snorm = norm2(m, ws->s);
		if (ws->iters == 1 && snorm < ws->delta)
			ws->delta = snorm;
		ws->delta = newton_radius(ws->delta, ws->f, f_new, gs, snorm, actred, prered);

		if (actred > eta0 * prered)
		{
			gsu_eval   *tmp = ws->cur;

			ws->cur = ws->trial;
			ws->trial = tmp;
			memcpy(theta, ws->theta_new, ws->vbytes);
			memcpy(ws->g, ws->g_new, ws->vbytes);
			ws->f = f_new;
			ws->gnorm = norm2(m, ws->g);
		}
		gsu_solve_trace(o, ws->iters, ws->f, ws->gnorm, GSU_TRACE_NONE);
		/*
		 * A crawl towards rows at their kink (thousands of iterations): try
		 * the exact finish now and then
		 */
		if (ws->kink_ok && ws->mu <= 1e-2 && ws->iters - ws->kink_tried_at >= ws->kink_wait)
		{
			if (newton_kink(ws, theta, &st))
				return GSU_OK;
			if (st != GSU_OK)
				return st;
		}
		/* no further progress is possible in double precision */
		if (fabs(actred) <= 1e-15 * fabs(ws->f) && fabs(prered) <= 1e-15 * fabs(ws->f))
			break;
		if (!(ws->delta > 0.0))
			break;
	}
	return GSU_OK;
}

/*
 * Certain rows only: a try to jump from theta to the exact hinge optimum
 * (a cheap try at the early stages, a thorough one at the last).  Returns 1
 * when theta is the polished optimum (*gap, *kkt its certificate); 0, with
 * *st GSU_ECANCELLED when the progress callback asked to stop.
 */
static int
newton_polish(newton_ws *ws, double *theta, int final_stage, double *gap, double *kkt,
			  gsu_status *st)
{
	const gsu_solve_options *o = ws->o;

	memcpy(ws->theta_new, theta, ws->vbytes);
	ws->evals += 3;
	if (gsu_hinge_polish(ws->ds, o->lambda, 3.0 * ws->mu, final_stage ? 200 : 20, ws->theta_new,
						 gap, kkt, o->progress, o->progress_arg))
	{
		memcpy(theta, ws->theta_new, ws->vbytes);
		return 1;
	}
	/* the polish gives up when asked to stop */
	if (o->progress && o->progress(o->progress_arg))
		*st = GSU_ECANCELLED;
	return 0;
}

/*
 * Rows whose covariance is a factor, a diagonal or a matrix: a try to jump
 * from theta to the exact minimizer of F (μ = 0) with the rows at their kink
 * held there (gsu_kink_polish; its passes count as evaluations).  Returns 1
 * when theta is that point.
 */
static int
newton_kink(newton_ws *ws, double *theta, gsu_status *st)
{
	const gsu_solve_options *o = ws->o;
	double		tau = 10.0 * (ws->mu > 1e-6 ? ws->mu : 1e-6);
	/*
	 * at most as many passes as newton has made so far (5000 at least): the
	 * tries come after 1000, 2000, 4000 … iterations, so together they cost
	 * about what newton does
	 */
	int64_t		passes = ws->evals + ws->hv > 5000 ? ws->evals + ws->hv : 5000;
	int			ok;

	ws->kink_tried_at = ws->iters;
	memcpy(ws->theta_new, theta, ws->vbytes);
	ok = gsu_kink_polish(ws->ds, o->lambda, tau, o->tolerance * ws->gnorm0, ws->theta_new,
						 &ws->kink_f, &ws->kink_kkt, &passes, o->progress, o->progress_arg);
	ws->evals += passes;
	if (ok)
	{
		memcpy(theta, ws->theta_new, ws->vbytes);
		ws->kinked = 1;
		return 1;
	}
	ws->kink_wait *= 2;
	/* four failures: the rows are not at a kink newton can see */
	if (++ws->kink_failed >= 4)
		ws->kink_ok = 0;
	if (o->progress && o->progress(o->progress_arg))
		*st = GSU_ECANCELLED;
	return 0;
}

/*
 * After an unconverged result: the dual interior-point finish
 * (gsu_dual_polish), whose point replaces theta and the result when its
 * certified gap is within 1e-10 of its objective; gradient_norm reports the
 * gap as √(2λ·gap), the norm of a gradient that bounds it.
 */
static gsu_status
newton_dual(newton_ws *ws, double *theta, gsu_solve_result *res, int64_t report_at)
{
	const gsu_solve_options *o = ws->o;
	double		f,
				gap;
	int64_t		passes = 0;
	int			ok = gsu_dual_polish(ws->ds, o->lambda, 1e-10, theta, &f, &gap, &passes,
									 o->progress, o->progress_arg);

	res->passes += passes;
	if (!ok)
		return o->progress && o->progress(o->progress_arg) ? GSU_ECANCELLED : GSU_OK;
	res->objective = f;
	res->gap_estimate = gap;
	res->gradient_norm = sqrt(2.0 * o->lambda * gap);
	res->converged = res->gradient_norm <= o->tolerance * ws->gnorm0 &&
		gap <= sqrt(o->tolerance) * f;
	gsu_solve_trace(o, report_at, f, res->gradient_norm, gap);
	return GSU_OK;
}

/*
 * The result at the unpolished theta: F(θ) at μ = 0, the gap estimate
 * F_μ(θ) − min F_μ ≈ ½ gᵀH⁻¹g (an unconstrained CG solve) plus the
 * smoothing's bound, and whether it converged.
 */
static gsu_status
newton_result(newton_ws *ws, const double *theta, gsu_solve_result *res)
{
	const gsu_solve_options *o = ws->o;
	gsu_status	st;

	res->gradient_norm = ws->gnorm;

	/* F_μ(θ) − min F_μ ≈ ½ gᵀH⁻¹g from an unconstrained CG solve */
	{
		double		dec = trust_cg(ws->cur, ws->m, ws->g, -1.0, 1e-3, ws->max_cg, o->lambda,
								   ws->s, ws->r, ws->dir, ws->hd, &ws->hv, o, &ws->cancelled);
		double		f_true;

		if (ws->cancelled)
			return GSU_ECANCELLED;

		st = gsu_eval_at(ws->trial, 0.0, theta, &f_true, NULL);
		ws->evals++;
		if (st != GSU_OK)
			return st;
		res->objective = f_true;
		res->gap_estimate = fmax(0.0, dec) + ws->mu / TWO_SQRT_PI - (ws->f - f_true);
		if (res->gap_estimate < 0.0)
			res->gap_estimate = 0.0;
		/* the result: the true objective and the estimated gap */
		gsu_solve_trace(o, ws->iters + 1, f_true, ws->gnorm, res->gap_estimate);
	}
	/* one pass per evaluation, one per Hessian-vector product */
	res->passes = ws->evals + ws->hv;

	/*
	 * Converged: the gradient test, and an estimated gap small against the
	 * objective (with a tiny λ the smoothing alone can be larger than F).
	 */
	res->converged = ws->gnorm <= o->tolerance * ws->gnorm0 &&
		res->gap_estimate <= sqrt(o->tolerance) * res->objective;
	return GSU_OK;
}

gsu_status
gsu_solve_newton(const gsu_dataset *ds, const gsu_solve_options *o,
				 double *theta, gsu_solve_result *res)
{
	newton_ws	ws;
	gsu_status	st;
	int			hinge_only = ds->cov_kind == GSU_COV_NONE;
	int			polished = 0;
	double		polish_gap = 0.0,
				polish_kkt = 0.0;
	int64_t		report_at;

	memset(res, 0, sizeof(*res));
	memset(&ws, 0, sizeof(ws));
	if (ds->n < 1 || ds->d < 1 || !(o->lambda > 0.0) ||
		!(o->tolerance > 0.0) || !(o->smoothing >= 0.0))
		return GSU_EINVAL;

	st = newton_ws_init(&ws, ds, o);
	if (st != GSU_OK)
		return st;
	ws.kink_wait = 1000;
	ws.kink_ok = !hinge_only && (ds->cov_kind == GSU_COV_FACTOR || ds->cov_kind == GSU_COV_DIAG ||
								 ds->cov_kind == GSU_COV_FULL);

	/* the scale of the stopping rule: ‖∇F_μ‖ at θ = 0 for the final μ */
	memset(ws.theta_new, 0, ws.vbytes);
	st = gsu_eval_at(ws.trial, o->smoothing, ws.theta_new, &ws.f, ws.g);
	ws.evals++;
	if (st != GSU_OK)
		goto done;
	ws.gnorm0 = norm2(ws.m, ws.g);
	if (ws.gnorm0 == 0.0)
		ws.gnorm0 = 1.0;

	ws.mu = (o->warm_start || o->smoothing >= 1.0) ? o->smoothing : 1.0;
	ws.delta = -1.0;
	for (;;)
	{
		int			final_stage = ws.mu <= o->smoothing;	/* or μ = 0 */
		double		rel_tol = final_stage ? o->tolerance :
			(o->tolerance > 1e-5 ? o->tolerance : 1e-5);

		st = gsu_eval_at(ws.cur, ws.mu, theta, &ws.f, ws.g);
		ws.evals++;
		if (st != GSU_OK)
			goto done;
		ws.gnorm = norm2(ws.m, ws.g);
		if (ws.delta < 0.0)
			ws.delta = ws.gnorm;

		st = newton_stage(&ws, theta, rel_tol);
		if (st != GSU_OK)
			goto done;
		/* certain rows only: try to jump to the exact hinge optimum */
		if (hinge_only && ws.mu <= 1.5e-2)
		{
			polished = newton_polish(&ws, theta, final_stage, &polish_gap, &polish_kkt, &st);
			if (st != GSU_OK)
				goto done;
			if (polished)
				break;
		}
		/* the stage ended on the kink polish's point */
		if (ws.kinked)
			break;
		if (ws.iters >= o->max_iterations)
			break;
		if (final_stage)
		{
			/*
			 * When every row keeps d_Σ well above μ the true objective is
			 * smooth around θ: finish on it (μ = 0), so that the gap estimate
			 * needs no smoothing bound.
			 */
			if (ws.mu > 0.0 && !hinge_only && min_dsigma(ws.cur, ws.mu) > 100.0 * ws.mu)
			{
				ws.mu = 0.0;
				continue;
			}
			break;
		}
		ws.mu *= 0.1;
		if (ws.mu < o->smoothing)
			ws.mu = o->smoothing;
	}

	res->gradient_norm0 = ws.gnorm0;
	res->iterations = ws.iters;
	if (polished)
	{
		/* the KKT residual plays the gradient's part; the gap is certified */
		st = gsu_eval_at(ws.trial, 0.0, theta, &res->objective, NULL);
		ws.evals++;
		res->gradient_norm = polish_kkt;
		res->gap_estimate = polish_gap;
		res->converged = polish_kkt <= o->tolerance * ws.gnorm0;
		res->passes = ws.evals + ws.hv;
		if (st == GSU_OK)
			gsu_solve_trace(o, ws.iters + 1, res->objective, polish_kkt, polish_gap);
		goto done;
	}
	/* the report of the kink finish's point: after newton_result's, when that came first */
	report_at = ws.iters + 1;
	if (!ws.kinked)
	{
		st = newton_result(&ws, theta, res);
		/*
		 * Not converged, with rows at their kink (the smoothing's bound too
		 * large, or the iterations spent): the exact finish, whose point
		 * replaces the result when it is certified.
		 */
		if (st != GSU_OK || res->converged)
			goto done;
		if (!ws.kink_ok || ws.iters <= ws.kink_tried_at || !newton_kink(&ws, theta, &st))
		{
			/* a few rows with low-rank factors: their dual, solved exactly */
			if (st == GSU_OK)
				st = newton_dual(&ws, theta, res, report_at + 1);
			goto done;
		}
		report_at++;
	}
	{
		/* the null-space gradient plays the gradient's part */
		res->objective = ws.kink_f;
		res->gradient_norm = ws.kink_kkt;
		res->gap_estimate = ws.kink_kkt * ws.kink_kkt / (2.0 * o->lambda);
		res->converged = ws.kink_kkt <= o->tolerance * ws.gnorm0;
		res->passes = ws.evals + ws.hv;
		gsu_solve_trace(o, report_at, res->objective, ws.kink_kkt, res->gap_estimate);
	}

done:
	newton_ws_free(&ws);
	return st;
}

/*
 * A row drawn with probability c_i / W: the first i with cum_i > u·W, u
 * uniform in [0, 1) (a row of weight 0 is never drawn: its cum equals the
 * previous one).
 */
int64_t
gsu_draw_weighted(gsu_rng *rng, const double *cum, const double *c, int64_t n)
{
	double		target = gsu_rng_uniform(rng) * cum[n - 1];
	int64_t		lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;

		if (cum[mid] > target)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* target rounded up to W: the last row of positive weight */
	while (lo > 0 && c[lo] == 0.0)
		lo--;
	return lo;
}

gsu_status
gsu_solve_pegasos(const gsu_dataset *ds, const gsu_solve_options *o,
				  double *theta, gsu_solve_result *res)
{
	int			d = ds->d;
	int			m = d + 1;
	int			k = o->batch_size;
	int64_t		steps_per_epoch,
				total,
				t;
	double	   *acc,
			   *sw,
			   *cum = NULL;
	double		weight_total,
				epoch_loss = 0.0;
	gsu_rng		rng;
	gsu_progress pg = gsu_progress_make(o->progress, o->progress_arg);
	gsu_status	st = GSU_OK;

	memset(res, 0, sizeof(*res));
	if (ds->n < 1 || d < 1 || !(o->lambda > 0.0) || k < 1 || o->epochs < 1 ||
		gsu_weight_total(ds, &weight_total) != GSU_OK)
		return GSU_EINVAL;
	acc = malloc(sizeof(double) * (size_t) m);
	sw = malloc(sizeof(double) * (size_t) m);
	if (ds->weight)
		cum = malloc(sizeof(double) * (size_t) ds->n);
	if (!acc || !sw || (ds->weight && !cum))
	{
		free(acc);
		free(sw);
		free(cum);
		return GSU_ENOMEM;
	}
	if (cum)
	{
		/* cum_i = Σ_{j ≤ i} c_j */
		double		run = 0.0;
		int64_t		i;

		for (i = 0; i < ds->n; i++)
			cum[i] = (run += ds->weight[i]);
	}
	gsu_rng_seed(&rng, o->seed);
	steps_per_epoch = (ds->n + k - 1) / k;
	total = steps_per_epoch * (int64_t) o->epochs;

	for (t = 1; t <= total; t++)
	{
		/* a warm start continues the step-size schedule where it stopped */
		double		eta = 1.0 / (o->lambda * (double) (t + o->t0));
		double		shrink = 1.0 - eta * o->lambda;
		double		ww;
		int			j,
					b;


		/* a row costs O(d), or O(d²) with a full covariance */
		if (gsu_progress_tick(&pg, (double) k * (ds->cov_kind == GSU_COV_FULL ? (double) d * d :
								   ds->cov_kind == GSU_COV_FACTOR ? (double) d * ds->cov_rank : d)))
		{
			st = GSU_ECANCELLED;
			goto done;
		}
		memset(acc, 0, sizeof(double) * (size_t) m);
		for (b = 0; b < k; b++)
		{
			int64_t		i = cum ? gsu_draw_weighted(&rng, cum, ds->weight, ds->n)
				: (int64_t) gsu_rng_below(&rng, (uint64_t) ds->n);
			gsu_cov		c = gsu_cov_row(ds->cov_kind, ds->cov, d, ds->cov_rank, i);

			epoch_loss += gsu_row_loss_grad(d, theta, ds->x + (size_t) i * d, &c,
											ds->y[i], 0.0, 1.0 / k, acc, sw);
		}
		for (j = 0; j < d; j++)
			theta[j] = shrink * theta[j] - eta * acc[j];
		theta[d] -= eta * acc[d];
		ww = cblas_ddot(d, theta, 1, theta, 1);
		if (ww * o->lambda > 1.0)
			cblas_dscal(d, 1.0 / sqrt(ww * o->lambda), theta, 1);
		if (!isfinite(theta[d]))
		{
			st = GSU_ENOTFINITE;
			goto done;
		}
		if (t % steps_per_epoch == 0)
		{
			/* the epoch's sampled losses estimate the objective */
			gsu_solve_trace(o, t / steps_per_epoch,
							gsu_objective_from_sums(d, theta, o->lambda, epoch_loss,
													(double) steps_per_epoch * k),
							GSU_TRACE_NONE, GSU_TRACE_NONE);
			epoch_loss = 0.0;
		}
	}
	res->iterations = total;
	res->passes = o->epochs;
	{
		double	   *g = acc;

		st = gsu_objective(ds, o->lambda, 0.0, theta, &res->objective, g);
		if (st != GSU_OK)
			goto done;
		res->gradient_norm = norm2(m, g);
		memset(g, 0, sizeof(double) * (size_t) m);
	}
	res->passes += 1;
	gsu_solve_trace(o, res->passes, res->objective, res->gradient_norm, GSU_TRACE_NONE);

done:
	free(acc);
	free(sw);
	free(cum);
	return st;
}
