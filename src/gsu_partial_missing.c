/*
 * gsu_partial_missing.c — a pass row of gsu.gradient or gsu.hessian with
 * missing mean elements (option "missing" of gsu.fit, docs/missing.md):
 * the pass's model carries the feature moments (the flag GSU_MODEL_MISSING,
 * and GSU_MODEL_MISSING_NAN for "missing_nan"), and a missing element reads
 * as the stored feature mean with the stored feature variance added to the
 * row's covariance there, exactly as gsu.train fills its buffered rows.
 */
#include "gsu_model.h"
#include "gsu_partial.h"

#include <math.h>

bool
gsu_partial_missing_row(const GsuModel *at, FunctionCallInfo fcinfo, int mean_arg, int var_arg,
						GsuVec *mean, GsuRowCov *rc)
{
	ArrayType  *a;
	GsuVec		x;
	double	   *v;
	int			nmiss,
				d;

	if (at == NULL || !(at->flags & GSU_MODEL_MISSING))
		return false;
	a = PG_GETARG_ARRAYTYPE_P(mean_arg);
	/* NULL elements, and NaN ones for a model of "missing_nan" (else a NaN is the usual error) */
	x = gsu_vec_from_array_missing(a, "mean", (at->flags & GSU_MODEL_MISSING_NAN) != 0, &nmiss);
	if (nmiss == 0)
		return false;
	gsu_check_dims(x.n, at->input_dim, "mean");
	d = x.n;
	rc->iso = 0.0;
	rc->rank = 0;
	rc->kind = GSU_COV_DIAG;
	if (PG_ARGISNULL(var_arg))
		v = palloc0(sizeof(double) * d);
	else
	{
		ArrayType  *va = PG_GETARG_ARRAYTYPE_P(var_arg);

		if (ARR_NDIM(va) == 2)
		{
			/* a full covariance as given, the feature variances joining its diagonal */
			GsuRowCov	given = gsu_cov_from_array(va, d);

			if (given.kind == GSU_COV_FACTOR)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("a row with a missing mean element cannot have a covariance factor"),
						 errdetail("A missing element's variance is added to the diagonal of the row's covariance, which a factor L of LL^T has not."),
						 errhint("Pass the full covariance L L^T (dim x dim), diagonal variances (NULL where the mean is missing), or NULL.")));
			v = palloc(sizeof(double) * d * d);
			memcpy(v, given.data, sizeof(double) * d * d);
			rc->kind = GSU_COV_FULL;
		}
		else
		{
			/* a copy: the variances may be the array's own bytes */
			GsuVec		given = gsu_variance_from_array_nulls(va, d, x.data);

			v = palloc(sizeof(double) * d);
			memcpy(v, given.data, sizeof(double) * d);
		}
	}
	/* x.data is a copy when an element is missing */
	(void) gsu_cov_fill_missing(d, (double *) x.data, rc->kind, v, GSU_MODEL_MISS_MEAN(at),
								GSU_MODEL_MISS_VAR(at));
	rc->data = v;
	*mean = x;
	return true;
}
