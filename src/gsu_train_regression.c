/*
 * gsu_train_regression.c — the gsu.train_regression aggregate: regression
 * on uncertain inputs (issue 33, part 1).  Its state is gsu.train's
 * (GsuTrainState, gsu_train_rows.h): the rows are buffered with their real
 * targets in y, bounded by gsu.max_training_memory, and combined,
 * serialized and finished by gsu.train's functions (gsu_train_wire.c,
 * gsu_train.c), which see from the state's loss, a regression loss of the
 * core's table, that it holds targets.  This file is the transition
 * (targets, the regression options, the "init" model of the solver sgd);
 * the solver sgd's step on each row is taken where gsu.train's is
 * (gsu_rows_store, on the core's gsu_regression_sgd_step), and the final
 * function's solve is gsu_train_regression_solve.c.
 */
#include "gsu_train.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_train_regression_transfn);
PG_FUNCTION_INFO_V1(gsu_train_regression_iso_transfn);
PG_FUNCTION_INFO_V1(gsu_train_regression_weighted_transfn);

static GsuTrainState *
regression_state_create(MemoryContext aggctx, FunctionCallInfo fcinfo, Jsonb *options)
{
	GsuTrainState *st = gsu_train_state_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo));
	MemoryContext old = MemoryContextSwitchTo(aggctx);
	gsu_parse_regression_options(options, &st->opt, false, &st->init);
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
	bool		missing;

	if (gsu_train_row_skipped(fcinfo, weighted, &weight))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
		st = regression_state_create(aggctx, fcinfo,
									 (PG_NARGS() > opt_arg && !PG_ARGISNULL(opt_arg)) ?
									 PG_GETARG_JSONB_P(opt_arg) : NULL);
	else if (PG_NARGS() > opt_arg)
		gsu_train_check_same_options(st, fcinfo, opt_arg);

	missing = gsu_train_missing_row(st, fcinfo, iso_variance, &mean, &rc);
	if (!missing)
		mean = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	y = PG_GETARG_FLOAT8(3);
	if (!isfinite(y))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("target must be a finite number, not %g", y)));
	if (!missing && !PG_ARGISNULL(2))
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
