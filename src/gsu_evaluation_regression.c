/*
 * gsu_evaluation_regression.c — the regression metrics gsu.rmse, gsu.mae,
 * gsu.r2 and gsu.nlpd (issue 33, part 1): aggregates over a float8[5]
 * state of running means, so that no sum grows with the rows,
 *
 *   [0] n            rows counted
 *   [1] mean_y       the targets' mean              (Welford)
 *   [2] m2_y         Σ (y − mean_y)²                (Welford)
 *   [3] mean_a       the mean squared error, or (gsu.nlpd) the mean NLPD term
 *   [4] mean_b       the mean absolute error (gsu.nlpd: 0)
 *
 * combined exactly as Chan, Golub and LeVeque's pairwise update: a parallel
 * plan gives the serial result up to rounding.  A state that arrives as an
 * argument (the transition and combine functions are callable) is checked.
 */
#include "gsu_glue.h"

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

#define STATE_LEN 5
#define LOG_2PI 1.8378770664093454836	/* log(2π) */

/* the state argument's five doubles, checked */
static double *
state_arg(FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(argno);
	double	   *s;
	int			i;

	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != STATE_LEN || ARR_HASNULL(a) ||
		ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a regression metrics state is a float8[] of %d elements", STATE_LEN)));
	s = (double *) ARR_DATA_PTR(a);
	for (i = 0; i < STATE_LEN; i++)
		if (!isfinite(s[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a regression metrics state has a non-finite element")));
	if (s[0] < 0.0 || s[0] != floor(s[0]) || s[0] > 9007199254740992.0 || s[2] < 0.0 ||
		s[4] < 0.0 || (s[0] == 0.0 && (s[1] != 0.0 || s[2] != 0.0 || s[3] != 0.0 || s[4] != 0.0)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("malformed regression metrics state")));
	return s;
}

/*
 * The state to update: the argument itself inside an aggregate (its own
 * copy in the aggregate's context, as float8_accum does), a copy otherwise.
 */
static ArrayType *
state_for_update(FunctionCallInfo fcinfo)
{
	(void) state_arg(fcinfo, 0);
	if (AggCheckCallContext(fcinfo, NULL))
		return PG_GETARG_ARRAYTYPE_P(0);
	return PG_GETARG_ARRAYTYPE_P_COPY(0);
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

/* one row: the target y and the two per-row terms a and b */
static void
accumulate(double *s, double y, double a, double b)
{
	double		n = s[0] + 1.0,
				d = y - s[1];

	s[0] = n;
	s[1] += d / n;
	s[2] += d * (y - s[1]);
	s[3] += (a - s[3]) / n;
	s[4] += (b - s[4]) / n;
	if (!isfinite(s[2]) || !isfinite(s[3]) || !isfinite(s[4]))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("a regression metric is out of range for type double precision"),
				 errhint("Rescale the predictions and the targets.")));
}

Datum
gsu_regression_metrics_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *st = state_for_update(fcinfo);
	double		p = finite_arg(fcinfo, 1, "prediction"),
				y = finite_arg(fcinfo, 2, "target"),
				e = p - y;

	accumulate((double *) ARR_DATA_PTR(st), y, e * e, fabs(e));
	PG_RETURN_ARRAYTYPE_P(st);
}

/* −log N(y; mean, sd²) = ½ log(2π) + log sd + ½ ((y − mean)/sd)² */
Datum
gsu_nlpd_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *st = state_for_update(fcinfo);
	double		mu = finite_arg(fcinfo, 1, "mean"),
				sd = finite_arg(fcinfo, 2, "sd"),
				y = finite_arg(fcinfo, 3, "target"),
				z;

	if (!(sd > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sd must be positive, not %g", sd),
				 errdetail("A Gaussian prediction needs a positive standard deviation to have a density."),
				 errhint("Add the residual noise to the prediction's variance, e.g. sqrt(sd^2 + rmse^2) with the training rows' gsu.rmse.")));
	z = (y - mu) / sd;
	accumulate((double *) ARR_DATA_PTR(st), y, 0.5 * LOG_2PI + log(sd) + 0.5 * z * z, 0.0);
	PG_RETURN_ARRAYTYPE_P(st);
}

Datum
gsu_regression_metrics_combinefn(PG_FUNCTION_ARGS)
{
	double	   *a = state_arg(fcinfo, 0),
			   *b = state_arg(fcinfo, 1);
	ArrayType  *r = gsu_new_float8_array(1, STATE_LEN, 0);
	double	   *s = (double *) ARR_DATA_PTR(r);
	double		n = a[0] + b[0],
				fb,
				d;
	int			i;

	if (a[0] == 0.0 || b[0] == 0.0)
	{
		memcpy(s, a[0] == 0.0 ? b : a, sizeof(double) * STATE_LEN);
		PG_RETURN_ARRAYTYPE_P(r);
	}
	fb = b[0] / n;
	d = b[1] - a[1];
	s[0] = n;
	s[1] = a[1] + d * fb;
	s[2] = a[2] + b[2] + d * d * a[0] * fb;
	for (i = 3; i < STATE_LEN; i++)
		s[i] = a[i] + (b[i] - a[i]) * fb;
	for (i = 0; i < STATE_LEN; i++)
		if (!isfinite(s[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("a regression metric is out of range for type double precision")));
	PG_RETURN_ARRAYTYPE_P(r);
}

Datum
gsu_rmse_finalfn(PG_FUNCTION_ARGS)
{
	double	   *s = state_arg(fcinfo, 0);

	if (s[0] == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(sqrt(s[3]));
}

Datum
gsu_mae_finalfn(PG_FUNCTION_ARGS)
{
	double	   *s = state_arg(fcinfo, 0);

	if (s[0] == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(s[4]);
}

/* 1 − SS_res/SS_tot: NULL when the targets do not vary (or fewer than two rows) */
Datum
gsu_r2_finalfn(PG_FUNCTION_ARGS)
{
	double	   *s = state_arg(fcinfo, 0);

	if (s[0] < 2.0 || s[2] == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(1.0 - s[0] * s[3] / s[2]);
}

Datum
gsu_nlpd_finalfn(PG_FUNCTION_ARGS)
{
	double	   *s = state_arg(fcinfo, 0);

	if (s[0] == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(s[3]);
}
