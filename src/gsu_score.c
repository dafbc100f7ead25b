/*
 * gsu_score.c — scoring rows with a gsu.model: decision value, label,
 * confidence under the row's Gaussian, and expected loss.  The math is in
 * src/core/gsu_loss.c; this file checks the arguments.
 */
#include "gsu_pg.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_decision_fn);
PG_FUNCTION_INFO_V1(gsu_predict_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_iso_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_iso_fn);

/* A finite model and finite input can still overflow: report, never return ±Inf/NaN. */
static double
finite_result(double v, const char *what)
{
	if (unlikely(!isfinite(v)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range for type double precision", what)));
	return v;
}

static GsuVec
model_input(const GsuModel *m, FunctionCallInfo fcinfo, int argno)
{
	GsuVec		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(argno), "mean");

	if (x.n != m->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d",
						x.n, m->dim)));
	return x;
}

Datum
gsu_decision_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = model_input(m, fcinfo, 1);

	PG_RETURN_FLOAT8(finite_result(gsu_decision(m->dim, m->theta, x.data), "decision value"));
}

Datum
gsu_predict_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = model_input(m, fcinfo, 1);

	PG_RETURN_INT32(finite_result(gsu_decision(m->dim, m->theta, x.data), "decision value") >= 0.0 ? 1 : -1);
}

/* wᵀΣw for the variance argument: an array (diagonal or full) or a scalar. */
static double
variance_quad(const GsuModel *m, FunctionCallInfo fcinfo, int argno, bool iso_kind)
{
	GsuRowCov	rc = {GSU_COV_ISO, 0.0, NULL};
	double	   *work = NULL;

	if (iso_kind)
	{
		rc.iso = PG_GETARG_FLOAT8(argno);
		gsu_check_iso_variance(rc.iso);
	}
	else
		rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(argno), m->dim);
	if (rc.kind == GSU_COV_FULL)
		work = palloc(sizeof(double) * m->dim);
	return gsu_cov_quad(&rc, m->dim, m->theta, work);
}

static Datum
confidence(FunctionCallInfo fcinfo, bool iso_kind)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = model_input(m, fcinfo, 1);
	double		quad = finite_result(variance_quad(m, fcinfo, 2, iso_kind), "w'Sigma w");

	(void) finite_result(gsu_decision(m->dim, m->theta, x.data), "decision value");
	PG_RETURN_FLOAT8(gsu_confidence_quad(m->dim, m->theta, x.data, quad));
}

Datum
gsu_confidence_fn(PG_FUNCTION_ARGS)
{
	return confidence(fcinfo, false);
}

Datum
gsu_confidence_iso_fn(PG_FUNCTION_ARGS)
{
	return confidence(fcinfo, true);
}

static Datum
expected_loss(FunctionCallInfo fcinfo, bool iso_kind)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = model_input(m, fcinfo, 1);
	double		quad = finite_result(variance_quad(m, fcinfo, 2, iso_kind), "w'Sigma w");
	double		y = gsu_check_label(PG_GETARG_INT32(3));

	(void) finite_result(gsu_decision(m->dim, m->theta, x.data), "decision value");
	PG_RETURN_FLOAT8(finite_result(gsu_row_loss_quad(m->dim, m->theta, x.data, quad, y),
								   "expected loss"));
}

Datum
gsu_expected_loss_fn(PG_FUNCTION_ARGS)
{
	return expected_loss(fcinfo, false);
}

Datum
gsu_expected_loss_iso_fn(PG_FUNCTION_ARGS)
{
	return expected_loss(fcinfo, true);
}
