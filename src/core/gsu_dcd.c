/*
 * gsu_dcd.c — the hinge-loss SVM of certain rows by dual coordinate
 * descent, finished exactly by an interior-point method on a band of rows
 * (gsu_polish_band.c).
 *
 * The derivation: src/core/README, section gsu_dcd.c.
 */
#include "gsu_dcd.h"
#include "gsu_objective.h"
#include "gsu_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

/* B, the scale of the bias feature (liblinear's -B 1) */
#define DCD_BIAS_SCALE 1.0
/* the first stage's tolerance on max PG − min PG (liblinear's default) */
#define DCD_EPS_START 0.1
/* a stage that has not met its tolerance is polished after this many epochs, then twice as many, … */
#define DCD_FIRST_CHECK 50
/*
 * Above this dimension the Newton solver solves the problem from the start:
 * the polish factors a d × d matrix at each of its iterations, and its
 * memory bound (gsu_hinge_polish_band_doubles) grows as 8d².  Measured
 * (bench/hinge_dims.sh): at 1000 and 2000 dimensions DCD and the polish took
 * 0.13–0.20 of Newton's time for the same certified optimum
 */
#ifndef DCD_MAX_DIM
#define DCD_MAX_DIM 2000
#endif
/* the polish's rounds at most (each an interior-point solve and a pass) */
#define DCD_POLISH_ROUNDS 10
/* epochs of DCD at most before the Newton solver takes over */
#define DCD_MAX_EPOCHS 400
/* the last one before the Newton finish */
#define DCD_EPS_FLOOR 1e-7

/* c_i: the weight of row i (1 without weights) */
#define ROW_WEIGHT(ds, i) ((ds)->weight ? (ds)->weight[i] : 1.0)

typedef struct dcd_state
{
	const gsu_dataset *ds;
	double	   *alpha;			/* n */
	double	   *qii;			/* n: ‖x_i‖² + B² */
	double	   *upper;			/* n: U_i = C c_i */
	int64_t    *index;			/* n: active rows first */
	double	   *w;				/* d */
	double		s;				/* Σ α_i y_i */
	double		centre;			/* b_k */
	int64_t		active;
	double		pg_max_old,
				pg_min_old;
	gsu_rng		rng;
	int64_t		epochs;
	double		rows_visited;
} dcd_state;

/*
 * Epochs of coordinate descent until max PG − min PG ≤ eps over all rows
 * (*met = 1), or max_epochs in all (*met = 0).  GSU_ECANCELLED when the
 * callback says stop.
 */
static gsu_status
dcd_stage(dcd_state *st, double eps, int64_t max_epochs, gsu_progress *pg, int *met)
{
	const gsu_dataset *ds = st->ds;
	int			d = ds->d;
	const double b2 = DCD_BIAS_SCALE * DCD_BIAS_SCALE;

	*met = 0;
	while (st->epochs < max_epochs)
	{
		double		pg_max = -HUGE_VAL,
					pg_min = HUGE_VAL;
		double		mbar = st->pg_max_old > 0.0 ? st->pg_max_old : HUGE_VAL,
					nbar = st->pg_min_old < 0.0 ? st->pg_min_old : -HUGE_VAL;
		int64_t		k;

		st->epochs++;
		/* a random order of the active rows (Fisher–Yates) */
		for (k = 0; k + 1 < st->active; k++)
		{
			int64_t		j = k + (int64_t) gsu_rng_below(&st->rng, (uint64_t) (st->active - k));
			int64_t		t = st->index[k];

			st->index[k] = st->index[j];
			st->index[j] = t;
		}
		st->rows_visited += (double) st->active;
		for (k = 0; k < st->active; k++)
		{
			int64_t		i = st->index[k];
			const double *x = ds->x + (size_t) i * d;
			double		y = ds->y[i];
			double		a = st->alpha[i],
						u = st->upper[i];
			double		g,
						p;

			if (gsu_progress_tick(pg, 4.0 * d))
				return GSU_ECANCELLED;
			g = y * (cblas_ddot(d, x, 1, st->w, 1) + st->centre + b2 * st->s) - 1.0;
			p = 0.0;
			if (a == 0.0)
			{
				/* shrunk: at its lower bound and far inside */
				if (g > mbar || u == 0.0)
				{
					st->active--;
					st->index[k] = st->index[st->active];
					st->index[st->active] = i;
					k--;
					continue;
				}
				if (g < 0.0)
					p = g;
			}
			else if (a == u)
			{
				if (g < nbar)
				{
					st->active--;
					st->index[k] = st->index[st->active];
					st->index[st->active] = i;
					k--;
					continue;
				}
				if (g > 0.0)
					p = g;
			}
			else
				p = g;
			if (p > pg_max)
				pg_max = p;
			if (p < pg_min)
				pg_min = p;
			if (fabs(p) > 1e-12)
			{
				double		an = fmin(fmax(a - g / st->qii[i], 0.0), u);
				double		delta = (an - a) * y;

				st->alpha[i] = an;
				cblas_daxpy(d, delta, x, 1, st->w, 1);
				st->s += delta;
			}
		}
		if (pg_max == -HUGE_VAL)
			pg_max = 0.0;
		if (pg_min == HUGE_VAL)
			pg_min = 0.0;
		if (pg_max - pg_min <= eps)
		{
			if (st->active == ds->n)
			{
				*met = 1;
				return GSU_OK;
			}
			/* the shrunk rows come back for a check of all rows */
			st->active = ds->n;
			st->pg_max_old = HUGE_VAL;
			st->pg_min_old = -HUGE_VAL;
			continue;
		}
		st->pg_max_old = pg_max;
		st->pg_min_old = pg_min;
	}
	return GSU_OK;
}

/*
 * Each row's Q_ii = x_iᵀx_i + B², its bound c_i/(λW) (cscale = 1/(λW)) and
 * its place in the order; GSU_ENOTFINITE when one is not finite
 */
static gsu_status
dcd_rows(dcd_state *st, double cscale)
{
	const gsu_dataset *ds = st->ds;
	int64_t		n = ds->n,
				i;
	int			d = ds->d;

	for (i = 0; i < n; i++)
	{
		const double *x = ds->x + (size_t) i * d;

		st->qii[i] = cblas_ddot(d, x, 1, x, 1) + DCD_BIAS_SCALE * DCD_BIAS_SCALE;
		st->upper[i] = cscale * ROW_WEIGHT(ds, i);
		st->index[i] = i;
		if (!isfinite(st->qii[i]) || !isfinite(st->upper[i]))
			return GSU_ENOTFINITE;
	}
	return GSU_OK;
}

/*
 * The stages of coordinate descent, each finished by the band's polish,
 * within max_epochs epochs: *polished when a polish succeeded (theta the
 * optimum, *gap and *kkt its certificate), else theta is the last stage's
 * point.  *polishes counts the polishes tried.
 */
static gsu_status
dcd_stages(dcd_state *st, const gsu_solve_options *o, double cscale, int64_t max_epochs,
		   gsu_progress *pg, double *theta, int *polished, int64_t *polishes,
		   double *gap, double *kkt)
{
	const gsu_dataset *ds = st->ds;
	int			d = ds->d;
	double		eps = DCD_EPS_START;
	int64_t		next_check = DCD_FIRST_CHECK;
	gsu_status	s;

	while (eps >= DCD_EPS_FLOOR * 0.5 && st->epochs < max_epochs)
	{
		double		bias;
		int			met;

		s = dcd_stage(st, eps, next_check < max_epochs ? next_check : max_epochs, pg, &met);
		if (s != GSU_OK)
			return s;
		bias = st->centre + DCD_BIAS_SCALE * DCD_BIAS_SCALE * st->s;
		memcpy(theta, st->w, sizeof(double) * (size_t) d);
		theta[d] = bias;
		if (!isfinite(bias) || !isfinite(cblas_dnrm2(d, st->w, 1)))
			return GSU_ENOTFINITE;
		/* the exact finish from this point */
		(*polishes)++;
		if (gsu_hinge_polish_band(ds, o->lambda, st->alpha, cscale, fmax(eps, 1e-6), DCD_POLISH_ROUNDS,
								  theta, gap, kkt, o->progress, o->progress_arg))
		{
			*polished = 1;
			break;
		}
		if (o->progress && o->progress(o->progress_arg))
			return GSU_ECANCELLED;
		if (o->trace)
		{
			/* the stage's primal objective: a pass of its own, for the report only */
			double		f;

			if (gsu_objective(ds, o->lambda, 0.0, theta, &f, NULL) == GSU_OK)
				gsu_solve_trace(o, st->epochs, f, GSU_TRACE_NONE, GSU_TRACE_NONE);
		}
		if (!met)
		{
			/* a slow stage (a large C) is polished after 2^k·DCD_FIRST_CHECK epochs */
			next_check *= 2;
			continue;
		}
		/* the next stage: the proximal centre moves to this stage's bias */
		eps *= 0.1;
		st->centre = bias;
		st->pg_max_old = HUGE_VAL;
		st->pg_min_old = -HUGE_VAL;
		st->active = ds->n;
	}
	return GSU_OK;
}

gsu_status
gsu_solve_dcd(const gsu_dataset *ds, const gsu_solve_options *o, double *theta,
			  gsu_solve_result *res)
{
	int64_t		n = ds->n;
	int			d = ds->d;
	double		total,
				cscale,
				f0,
				gap = 0.0,
				kkt = 0.0;
	double	   *grad0 = NULL,
			   *zero = NULL;
	dcd_state	st;
	gsu_progress pg = gsu_progress_make(o->progress, o->progress_arg);
	gsu_status	s;
	int64_t		polishes = 0;
	int			polished = 0;
	int64_t		max_epochs = o->max_iterations < DCD_MAX_EPOCHS ? o->max_iterations : DCD_MAX_EPOCHS;

	memset(res, 0, sizeof(*res));
	memset(&st, 0, sizeof(st));
	if (n < 1 || d < 1 || !(o->lambda > 0.0) || !(o->tolerance > 0.0) ||
		ds->cov_kind != GSU_COV_NONE)
		return GSU_EINVAL;
	s = gsu_weight_total(ds, &total);
	if (s != GSU_OK)
		return s;
	cscale = 1.0 / (o->lambda * total);

	memset(theta, 0, sizeof(double) * (size_t) (d + 1));
	st.ds = ds;
	st.alpha = calloc((size_t) n, sizeof(double));
	st.qii = malloc(sizeof(double) * (size_t) n);
	st.upper = malloc(sizeof(double) * (size_t) n);
	st.index = malloc(sizeof(int64_t) * (size_t) n);
	st.w = calloc((size_t) d, sizeof(double));
	grad0 = malloc(sizeof(double) * (size_t) (d + 1));
	zero = calloc((size_t) (d + 1), sizeof(double));
	if (!st.alpha || !st.qii || !st.upper || !st.index || !st.w || !grad0 || !zero)
	{
		s = GSU_ENOMEM;
		goto out;
	}

	/* the scale of the stopping rule, as the Newton solver's: ‖∇F_μ(0)‖ */
	s = gsu_objective(ds, o->lambda, o->smoothing, zero, &f0, grad0);
	if (s != GSU_OK)
		goto out;
	res->gradient_norm0 = cblas_dnrm2(d + 1, grad0, 1);
	if (res->gradient_norm0 == 0.0)
		res->gradient_norm0 = 1.0;

	s = dcd_rows(&st, cscale);
	if (s != GSU_OK)
		goto out;
	st.active = n;
	st.pg_max_old = HUGE_VAL;
	st.pg_min_old = -HUGE_VAL;
	/* dimensions where the polish's factor is dear: Newton from the start */
	if (d > DCD_MAX_DIM)
		max_epochs = 0;
	gsu_rng_seed(&st.rng, o->seed);
	st.centre = 0.0;

	s = dcd_stages(&st, o, cscale, max_epochs, &pg, theta, &polished, &polishes, &gap, &kkt);
	if (s != GSU_OK)
		goto out;

	res->iterations = st.epochs;
	/* one pass per epoch's worth of rows visited, three per polish (as gsu_solve.c counts; the band's takes a pass for its sets and one a round) */
	res->passes = (int64_t) ceil(st.rows_visited / (double) n) + 3 * polishes;
	if (polished)
	{
		/* the certified gap and the residual of the optimality conditions */
		s = gsu_objective(ds, o->lambda, 0.0, theta, &res->objective, NULL);
		res->passes++;
		res->gradient_norm = kkt;
		res->gap_estimate = gap;
		res->converged = kkt <= o->tolerance * res->gradient_norm0;
		if (s == GSU_OK)
			gsu_solve_trace(o, st.epochs, res->objective, kkt, gap);
	}
	else
	{
		/* no certificate yet: the smoothed Newton solver finishes from the last stage */
		gsu_solve_options on = *o;
		gsu_solve_result rn;

		on.warm_start = 0;
		s = gsu_solve_newton(ds, &on, theta, &rn);
		if (s != GSU_OK)
			goto out;
		rn.iterations += res->iterations;
		rn.passes += res->passes;
		*res = rn;
	}

out:
	free(st.alpha);
	free(st.qii);
	free(st.upper);
	free(st.index);
	free(st.w);
	free(grad0);
	free(zero);
	return s;
}
