/*
 * gsu_partial_regression_sgd.c — regression's streaming SGD on a SQL state
 * (issue 33): the row function of gsu.train_regression_sgd and
 * gsu.regression_sgd_partial, whose state is a gsu.partial of kind sgd with
 * a regression loss.  Each row takes one step of the core's
 * gsu_regression_sgd_step (the step of gsu.train_regression's solver sgd);
 * the partial keeps the loss, λ and, in its field mu, the tube's ε, so
 * gsu.to_model makes the regression model, and gsu.sum and the parallel
 * combine average iterates by their rows as for classification's sgd
 * partials (gsu_partial_combine_into).  The target is a float8, so these
 * are aggregates of their own names: a float8 overload of gsu.train_sgd
 * would capture the untyped integer labels of classification calls.
 */
#include "gsu_model.h"
#include "gsu_partial.h"
#include "core/gsu_regression.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_regression_sgd_partial_transfn);

#define FN "gsu.train_regression_sgd"

/* the options, parsed again when their value changes, and the row's scratch */
typedef struct RegSgdCache
{
	GsuArgMemo	options;		/* the options value opt was parsed from */
	GsuTrainOptions opt;
	GsuModel   *init;			/* "init", in fn_mcxt */
	int			dim;
	double	   *work;			/* 2·dim + 1 */
	bool		moments_checked;	/* the state's moments are the options' */
} RegSgdCache;

static RegSgdCache *
reg_sgd_cache(FunctionCallInfo fcinfo, int argno)
{
	RegSgdCache *sc = (RegSgdCache *) fcinfo->flinfo->fn_extra;

	if (sc == NULL || !gsu_arg_memo_same(fcinfo, argno, &sc->options))
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		Jsonb	   *opt_value = PG_ARGISNULL(argno) ? NULL : PG_GETARG_JSONB_P(argno);

		if (sc == NULL)
			sc = palloc0(sizeof(RegSgdCache));
		sc->options.set = false;	/* sc->opt is rewritten below */
		sc->moments_checked = false;
		gsu_parse_regression_options(opt_value, &sc->opt, true, &sc->init);
		gsu_arg_memo_set(fcinfo, argno, &sc->options);
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = sc;
	}
	return sc;
}

/* the state on the first row, from the options and "init"; a later row's checks */
static GsuPartial *
reg_sgd_state(MemoryContext aggctx, GsuPartial *st, RegSgdCache *sc, int dim, Jsonb *options)
{
	double		eps = sc->opt.loss == GSU_LOSS_EPS_INSENSITIVE ? sc->opt.epsilon : 0.0;

	if (st == NULL)
	{
		st = gsu_partial_sgd_state(aggctx, dim, &sc->opt, options);
		sc->moments_checked = true;
		st->loss = sc->opt.loss;
		st->lambda = sc->opt.lambda;
		st->mu = eps;
		if (sc->init)
		{
			if (sc->init->dim != dim)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("the \"init\" model has dimension %d, but the rows have %d",
								sc->init->dim, dim)));
			/* warm start: continue from the model and its step count */
			memcpy(st->vec, GSU_MODEL_THETA(sc->init, 0), sizeof(double) * ((Size) dim + 1));
			st->steps = sc->init->iterations;
		}
		return st;
	}
	if (st->dim != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", dim, st->dim)));
	if (st->loss != sc->opt.loss || st->lambda != sc->opt.lambda || st->mu != eps ||
		st->flags != gsu_partial_sgd_flags(&sc->opt) ||
		(!sc->moments_checked && !gsu_partial_sgd_same_moments(st, options)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(FN " options must be the same for every row of a group"),
				 errdetail("The loss, lambda, epsilon and the options of \"missing\" are read from the first row; a later row has different ones.")));
	sc->moments_checked = true;
	return st;
}

/*
 * Arguments: 0 state, 1 mean, 2 variance (NULL: a certain row; any
 * covariance form gsu.train_regression takes), 3 target, 4 options.  A
 * row with a NULL mean or target is skipped.
 */
Datum
gsu_regression_sgd_partial_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.regression_sgd_partial_transfn");
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : (GsuPartial *) PG_GETARG_POINTER(0);
	RegSgdCache *sc;
	GsuVec		mean;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL, 0};
	double		y;
	int			nmiss;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	sc = reg_sgd_cache(fcinfo, 4);
	mean = gsu_partial_sgd_mean(&sc->opt, PG_GETARG_ARRAYTYPE_P(1), &nmiss);
	y = PG_GETARG_FLOAT8(3);
	if (!isfinite(y))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("target must be a finite number, not %g", y)));
	st = reg_sgd_state(aggctx, st, sc, mean.n, PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4));
	if (nmiss > 0)
		rc = gsu_partial_sgd_fill(st, fcinfo, 2, &mean, nmiss);
	else if (!PG_ARGISNULL(2))
		rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n);
	if (sc->work == NULL || sc->dim != mean.n)
	{
		if (sc->work)
			pfree(sc->work);
		sc->work = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
									  sizeof(double) * (2 * (Size) mean.n + 1));
		sc->dim = mean.n;
	}
	st->steps++;
	st->loss_sum += gsu_regression_sgd_step(st->dim, st->vec, st->lambda, st->steps, mean.data,
											&rc, y, st->loss == GSU_LOSS_SQUARED, st->mu, 1.0,
											sc->work);
	st->n++;
	gsu_partial_check_produced(st);
	PG_RETURN_POINTER(st);
}
