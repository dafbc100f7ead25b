/*
 * gsu_train_regression.c — the gsu.train_regression aggregate: regression
 * on uncertain inputs (issue 33, part 1).  Its state is gsu.train's
 * (GsuTrainState, gsu_train_rows.h): the rows are buffered with their real
 * targets in y, bounded by gsu.max_training_memory, and combined,
 * serialized and finished by gsu.train's functions (gsu_train_wire.c,
 * gsu_train.c), which see from the state's loss, a regression loss of the
 * core's table, that it holds targets.  Only the transition (targets, the
 * regression options) and the solve (gsu_solve_svr or gsu_solve_ridge of
 * core/gsu_regression.h) are this file's.
 */
#include "gsu_train.h"
#include "gsu_progress.h"
#include "core/gsu_regression.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_train_regression_transfn);
PG_FUNCTION_INFO_V1(gsu_train_regression_iso_transfn);
PG_FUNCTION_INFO_V1(gsu_train_regression_weighted_transfn);

static GsuTrainState *
regression_state_create(MemoryContext aggctx, FunctionCallInfo fcinfo, Jsonb *options)
{
	GsuTrainState *st = gsu_train_state_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo));
	MemoryContext old = MemoryContextSwitchTo(aggctx);

	gsu_regression_options_parse(options, &st->opt);
	if (options)
	{
		st->options = palloc(VARSIZE(options));
		memcpy(st->options, options, VARSIZE(options));
	}
	st->fit_hint = "Raise gsu.max_training_memory, or train on a sample of the rows.";
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * Arguments: 0 state, 1 mean, 2 variance, 3 target, then (weighted) 4
 * weight, then options (optional).  A row with a NULL mean, target or
 * weight, or a weight 0, is skipped.
 */
static Datum
regression_trans(FunctionCallInfo fcinfo, bool iso_variance, bool weighted)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_regression_transfn");
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		mean;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};
	double		y,
				weight = 1.0;
	int			opt_arg = weighted ? 5 : 4;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (weighted && PG_ARGISNULL(4)))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (weighted)
	{
		weight = gsu_check_row_weight(PG_GETARG_FLOAT8(4));
		if (weight == 0.0)
		{
			if (st)
				PG_RETURN_POINTER(st);
			PG_RETURN_NULL();
		}
	}
	if (st == NULL)
		st = regression_state_create(aggctx, fcinfo,
									 (PG_NARGS() > opt_arg && !PG_ARGISNULL(opt_arg)) ?
									 PG_GETARG_JSONB_P(opt_arg) : NULL);
	else if (PG_NARGS() > opt_arg)
		gsu_train_check_same_options(st, fcinfo, opt_arg);

	mean = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	y = PG_GETARG_FLOAT8(3);
	if (!isfinite(y))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("target must be a finite number, not %g", y)));
	if (!PG_ARGISNULL(2))
	{
		if (iso_variance)
		{
			rc.kind = GSU_COV_ISO;
			rc.iso = PG_GETARG_FLOAT8(2);
			gsu_check_iso_variance(rc.iso);
		}
		else
			rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n);
	}
	old = MemoryContextSwitchTo(aggctx);
	gsu_train_add_row(st, mean, rc, y, weight);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_train_regression_transfn(PG_FUNCTION_ARGS)
{
	return regression_trans(fcinfo, false, false);
}

Datum
gsu_train_regression_iso_transfn(PG_FUNCTION_ARGS)
{
	return regression_trans(fcinfo, true, false);
}

Datum
gsu_train_regression_weighted_transfn(PG_FUNCTION_ARGS)
{
	return regression_trans(fcinfo, false, true);
}

/* the bytes of the rows and the solver against gsu.max_training_memory, before solving */
static void
check_memory(const GsuTrainState *st)
{
	double		need = gsu_train_buffered_bytes(&st->opt, st->n, st->cap, st->dim,
												gsu_cov_doubles(st->level, st->dim, st->rank),
												st->wt != NULL);

	if (need > (double) gsu_state_memory_room(st))
		gsu_state_memory_error(st, (Size) Min(need, (double) MaxAllocHugeSize),
							   psprintf("Training on " INT64_FORMAT " rows of dimension %d", st->n, st->dim),
							   "Raise gsu.max_training_memory, or train on a sample of the rows.");
}

GsuModel *
gsu_train_solve_regression(GsuTrainState *st)
{
	gsu_dataset ds;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_binary_problem p;
	gsu_status	s;
	GsuModel   *m;
	GsuTrace	trace;
	double	   *theta;
	Size		len;
	double	   *block;

	check_memory(st);
	memset(&ds, 0, sizeof(ds));
	ds.n = st->n;
	ds.d = st->dim;
	ds.x = st->x;
	ds.y = st->y;
	ds.cov_kind = st->level;
	ds.cov = st->cov;
	ds.cov_rank = st->level == GSU_COV_FACTOR ? st->rank : 0;
	ds.weight = st->wt;

	m = gsu_model_from_options(st->dim, 2, 0, &st->opt);
	theta = GSU_MODEL_THETA(m, 0);
	memset(theta, 0, sizeof(double) * ((Size) st->dim + 1));

	gsu_solve_options_default(&o);
	memset(&p, 0, sizeof(p));
	gsu_options_to_core(&st->opt, &o, &p);
	o.progress = gsu_interrupt_pending;
	o.progress_arg = NULL;
	gsu_trace_init(&trace, "gsu.train_regression", 1, NULL);
	gsu_trace_class(&trace, 0);
	o.trace = gsu_trace_pass;
	o.trace_arg = &trace;
	memset(&res, 0, sizeof(res));
	if (st->opt.loss == GSU_LOSS_SQUARED)
		s = gsu_solve_ridge(&ds, &o, theta, &res);
	else
		s = gsu_solve_svr(&ds, st->opt.epsilon, &o, theta, &res);
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("gsu.train_regression diverged: the objective or the solution is out of range "
						"for type double precision"),
				 errhint("Rescale the features or the targets, or raise \"lambda\".")));
	gsu_report_status(s, "gsu.train_regression");
	m->objective = res.objective;
	m->gradient_norm = res.gradient_norm;
	m->gap_estimate = res.gap_estimate;
	m->iterations = res.iterations;
	m->passes = res.passes;
	if (res.converged)
		m->flags |= GSU_MODEL_CONVERGED;
	else
		ereport(WARNING,
				(errmsg("gsu.train_regression did not converge in %d iterations", st->opt.max_iterations),
				 errhint("Raise \"max_iterations\" or \"tolerance\".")));
	gsu_trace_finish(&trace);
	block = gsu_trace_block(&trace, &len);
	if (len > 0)
	{
		GsuModel   *r = gsu_model_with_history(m, block, len);

		pfree(m);
		m = r;
	}
	pfree(block);
	return m;
}
