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

gsu_status
gsu_solve_newton(const gsu_dataset *ds, const gsu_solve_options *o,
				 double *theta, gsu_solve_result *res)
{
	/* trust-region constants of Lin & Moré */
	const double eta0 = 1e-4,
				eta1 = 0.25,
				eta2 = 0.75;
	const double sigma1 = 0.25,
				sigma2 = 0.5,
				sigma3 = 4.0;
	int			m = ds->d + 1;
	size_t		vbytes = sizeof(double) * (size_t) m;
	newton_ws	ws;
	gsu_eval   *cur,
			   *trial;
	gsu_status	st;
	double		f,
				gnorm,
				gnorm0,
				delta,
				mu;
	int			max_cg = m < 200 ? 2 * m + 10 : 400;
	int64_t		iters = 0,
				hv = 0,
				evals = 0;
	int			hinge_only = ds->cov_kind == GSU_COV_NONE;
	int			polished = 0,
				cancelled = 0;
	double		polish_gap = 0.0,
				polish_kkt = 0.0;

	memset(res, 0, sizeof(*res));
	memset(&ws, 0, sizeof(ws));
	if (ds->n < 1 || ds->d < 1 || !(o->lambda > 0.0) ||
		!(o->tolerance > 0.0) || !(o->smoothing >= 0.0))
		return GSU_EINVAL;

	st = gsu_eval_init(&ws.ev[0], ds, o->lambda);
	if (st == GSU_OK)
		st = gsu_eval_init(&ws.ev[1], ds, o->lambda);
	if (st != GSU_OK)
	{
		newton_ws_free(&ws);
		return st;
	}
	ws.g = malloc(vbytes);
	ws.g_new = malloc(vbytes);
	ws.s = malloc(vbytes);
	ws.r = malloc(vbytes);
	ws.dir = malloc(vbytes);
	ws.hd = malloc(vbytes);
	ws.theta_new = malloc(vbytes);
	if (!ws.g || !ws.g_new || !ws.s || !ws.r || !ws.dir || !ws.hd || !ws.theta_new)
	{
		newton_ws_free(&ws);
		return GSU_ENOMEM;
	}
	cur = &ws.ev[0];
	trial = &ws.ev[1];

	/* the scale of the stopping rule: ‖∇F_μ‖ at θ = 0 for the final μ */
	memset(ws.theta_new, 0, vbytes);
	st = gsu_eval_at(trial, o->smoothing, ws.theta_new, &f, ws.g);
	evals++;
	if (st != GSU_OK)
		goto done;
	gnorm0 = norm2(m, ws.g);
	if (gnorm0 == 0.0)
		gnorm0 = 1.0;

	mu = (o->warm_start || o->smoothing >= 1.0) ? o->smoothing : 1.0;
	delta = -1.0;
	for (;;)
	{
		int			final_stage = mu <= o->smoothing;	/* or μ = 0 */
		double		rel_tol = final_stage ? o->tolerance :
			(o->tolerance > 1e-5 ? o->tolerance : 1e-5);

		st = gsu_eval_at(cur, mu, theta, &f, ws.g);
		evals++;
		if (st != GSU_OK)
			goto done;
		gnorm = norm2(m, ws.g);
		if (delta < 0.0)
			delta = gnorm;

		while (gnorm > rel_tol * gnorm0 && iters < o->max_iterations)
		{
			double		cg_rtol = sqrt(gnorm / gnorm0);
			double		prered,
						actred,
						f_new,
						gs,
						snorm,
						alpha;
			int			k;

			if (o->progress && o->progress(o->progress_arg))
			{
				st = GSU_ECANCELLED;
				goto done;
			}
			iters++;
			if (cg_rtol > 0.1)
				cg_rtol = 0.1;
			prered = trust_cg(cur, m, ws.g, delta, cg_rtol, max_cg, 0.0,
							  ws.s, ws.r, ws.dir, ws.hd, &hv, o, &cancelled);
			if (cancelled)
			{
				st = GSU_ECANCELLED;
				goto done;
			}
			for (k = 0; k < m; k++)
				ws.theta_new[k] = theta[k] + ws.s[k];
			st = gsu_eval_at(trial, mu, ws.theta_new, &f_new, ws.g_new);
			evals++;
			if (st == GSU_ENOTFINITE)
				f_new = HUGE_VAL;	/* reject the step, shrink the region */
			else if (st != GSU_OK)
				goto done;
			st = GSU_OK;

			actred = f - f_new;
			gs = cblas_ddot(m, ws.g, 1, ws.s, 1);
			snorm = norm2(m, ws.s);
			if (iters == 1 && snorm < delta)
				delta = snorm;
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

			if (actred > eta0 * prered)
			{
				gsu_eval   *tmp = cur;

				cur = trial;
				trial = tmp;
				memcpy(theta, ws.theta_new, vbytes);
				memcpy(ws.g, ws.g_new, vbytes);
				f = f_new;
				gnorm = norm2(m, ws.g);
			}
			gsu_solve_trace(o, iters, f, gnorm, GSU_TRACE_NONE);
			/* no further progress is possible in double precision */
			if (fabs(actred) <= 1e-15 * fabs(f) && fabs(prered) <= 1e-15 * fabs(f))
				break;
			if (!(delta > 0.0))
				break;
		}
		/* certain rows only: try to jump to the exact hinge optimum */
		if (hinge_only && mu <= 1.5e-2)
		{
			memcpy(ws.theta_new, theta, vbytes);
			evals += 3;
			/* a cheap try at the early stages, a thorough one at the last */
			if (gsu_hinge_polish(ds, o->lambda, 3.0 * mu, final_stage ? 200 : 20, ws.theta_new,
								 &polish_gap, &polish_kkt, o->progress, o->progress_arg))
			{
				memcpy(theta, ws.theta_new, vbytes);
				polished = 1;
				break;
			}
			/* the polish gives up when asked to stop */
			if (o->progress && o->progress(o->progress_arg))
			{
				st = GSU_ECANCELLED;
				goto done;
			}
		}
		if (iters >= o->max_iterations)
			break;
		if (final_stage)
		{
			/*
			 * When every row keeps d_Σ well above μ the true objective is
			 * smooth around θ: finish on it (μ = 0), so that the gap estimate
			 * needs no smoothing bound.
			 */
			if (mu > 0.0 && !hinge_only && min_dsigma(cur, mu) > 100.0 * mu)
			{
				mu = 0.0;
				continue;
			}
			break;
		}
		mu *= 0.1;
		if (mu < o->smoothing)
			mu = o->smoothing;
	}

	res->gradient_norm0 = gnorm0;
	res->iterations = iters;
	if (polished)
	{
		/* the KKT residual plays the gradient's part; the gap is certified */
		st = gsu_eval_at(trial, 0.0, theta, &res->objective, NULL);
		evals++;
		res->gradient_norm = polish_kkt;
		res->gap_estimate = polish_gap;
		res->converged = polish_kkt <= o->tolerance * gnorm0;
		res->passes = evals + hv;
		if (st == GSU_OK)
			gsu_solve_trace(o, iters + 1, res->objective, polish_kkt, polish_gap);
		goto done;
	}
	res->gradient_norm = gnorm;

	/* F_μ(θ) − min F_μ ≈ ½ gᵀH⁻¹g from an unconstrained CG solve */
	{
		double		dec = trust_cg(cur, m, ws.g, -1.0, 1e-3, max_cg, o->lambda,
								   ws.s, ws.r, ws.dir, ws.hd, &hv, o, &cancelled);
		double		f_true;

		if (cancelled)
		{
			st = GSU_ECANCELLED;
			goto done;
		}

		st = gsu_eval_at(trial, 0.0, theta, &f_true, NULL);
		evals++;
		if (st != GSU_OK)
			goto done;
		res->objective = f_true;
		res->gap_estimate = fmax(0.0, dec) + mu / TWO_SQRT_PI - (f - f_true);
		if (res->gap_estimate < 0.0)
			res->gap_estimate = 0.0;
		/* the result: the true objective and the estimated gap */
		gsu_solve_trace(o, iters + 1, f_true, gnorm, res->gap_estimate);
	}
	/* one pass per evaluation, one per Hessian-vector product */
	res->passes = evals + hv;

	/*
	 * Converged: the gradient test, and an estimated gap small against the
	 * objective (with a tiny λ the smoothing alone can be larger than F).
	 */
	res->converged = gnorm <= o->tolerance * gnorm0 &&
		res->gap_estimate <= sqrt(o->tolerance) * res->objective;

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
