/*
 * gsu_evaluation_regression.c — the regression metrics gsu.rmse, gsu.mae,
 * gsu.r2 and gsu.nlpd (issue 33, part 1): aggregates over a float8[5]
 * state, the running moments of core/gsu_regmetrics.h (the rows, the
 * targets' mean and sum of squared deviations, the means of two per-row
 * terms), updated one row at a time and merged exactly, so that no sum
 * grows with the rows.  A state that arrives as an argument (the
 * transition and combine functions are callable) is checked.
 */
#include "gsu_glue.h"
#include "core/gsu_regmetrics.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"

PG_FUNCTION_INFO_V1(gsu_regression_metrics_transfn);
PG_FUNCTION_INFO_V1(gsu_nlpd_transfn);
PG_FUNCTION_INFO_V1(gsu_regression_metrics_combinefn);
PG_FUNCTION_INFO_V1(gsu_rmse_finalfn);
PG_FUNCTION_INFO_V1(gsu_mae_finalfn);
PG_FUNCTION_INFO_V1(gsu_r2_finalfn);
PG_FUNCTION_INFO_V1(gsu_nlpd_finalfn);

StaticAssertDecl(sizeof(gsu_regmoments) == GSU_REGMOMENTS_LEN * sizeof(double),
				 "gsu_regmoments is the float8[5] state");

/* the moments in a state array (checked), in place */
static gsu_regmoments *
state_of(ArrayType *a)
{
	gsu_regmoments *s;

	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != GSU_REGMOMENTS_LEN || ARR_HASNULL(a) ||
		ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a regression metrics state is a float8[] of %d elements", GSU_REGMOMENTS_LEN)));
	s = (gsu_regmoments *) ARR_DATA_PTR(a);
	if (!gsu_regmoments_valid(s))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("malformed regression metrics state")));
	return s;
}

static void
overflow_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("a regression metric is out of range for type double precision"),
			 errhint("Rescale the predictions and the targets.")));
}

/*
 * The state argument to update: itself inside an aggregate (its own copy in
 * the aggregate's context, as float8_accum does), a copy otherwise.
 */
static ArrayType *
state_for_update(FunctionCallInfo fcinfo)
{
	ArrayType  *a = AggCheckCallContext(fcinfo, NULL) ? PG_GETARG_ARRAYTYPE_P(0) :
		PG_GETARG_ARRAYTYPE_P_COPY(0);

	(void) state_of(a);
	return a;
}

static double
finite_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	double		v = PG_GETARG_FLOAT8(argno);

	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must be a finite number, not %g", what, v)));
	return v;
}

Datum
gsu_regression_metrics_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *st = state_for_update(fcinfo);
	double		p = finite_arg(fcinfo, 1, "prediction"),
				y = finite_arg(fcinfo, 2, "target"),
				e = p - y;

	if (gsu_regmoments_add(state_of(st), y, e * e, fabs(e)) != GSU_OK)
		overflow_error();
	PG_RETURN_ARRAYTYPE_P(st);
}

Datum
gsu_nlpd_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *st = state_for_update(fcinfo);
	double		mu = finite_arg(fcinfo, 1, "mean"),
				sd = finite_arg(fcinfo, 2, "sd"),
				y = finite_arg(fcinfo, 3, "target");

	if (!(sd > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sd must be positive, not %g", sd),
				 errdetail("A Gaussian prediction needs a positive standard deviation to have a density."),
				 errhint("Add the residual noise to the prediction's variance, e.g. sqrt(sd^2 + rmse^2) with the training rows' gsu.rmse.")));
	if (gsu_regmoments_add(state_of(st), y, gsu_nlpd_term(mu, sd, y), 0.0) != GSU_OK)
		overflow_error();
	PG_RETURN_ARRAYTYPE_P(st);
}

Datum
gsu_regression_metrics_combinefn(PG_FUNCTION_ARGS)
{
	gsu_regmoments *a = state_of(PG_GETARG_ARRAYTYPE_P(0)),
			   *b = state_of(PG_GETARG_ARRAYTYPE_P(1));
	ArrayType  *r = gsu_new_float8_array(1, GSU_REGMOMENTS_LEN, 0);

	if (gsu_regmoments_merge(a, b, (gsu_regmoments *) ARR_DATA_PTR(r)) != GSU_OK)
		overflow_error();
	PG_RETURN_ARRAYTYPE_P(r);
}

Datum
gsu_rmse_finalfn(PG_FUNCTION_ARGS)
{
	gsu_regmoments *s = state_of(PG_GETARG_ARRAYTYPE_P(0));

	if (s->n == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(sqrt(s->mean_a));
}

Datum
gsu_mae_finalfn(PG_FUNCTION_ARGS)
{
	gsu_regmoments *s = state_of(PG_GETARG_ARRAYTYPE_P(0));

	if (s->n == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(s->mean_b);
}

/* NULL when the targets do not vary (or fewer than two rows) */
Datum
gsu_r2_finalfn(PG_FUNCTION_ARGS)
{
	double		r2 = gsu_regmoments_r2(state_of(PG_GETARG_ARRAYTYPE_P(0)));

	if (isnan(r2))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r2);
}

Datum
gsu_nlpd_finalfn(PG_FUNCTION_ARGS)
{
	gsu_regmoments *s = state_of(PG_GETARG_ARRAYTYPE_P(0));

	if (s->n == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(s->mean_a);
}
