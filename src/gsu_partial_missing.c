/*
 * gsu_partial_missing.c — rows of the gsu.partial aggregates with missing
 * mean elements (option "missing", docs/missing.md), filled as gsu.train
 * fills its buffered rows: a missing element reads as its feature's mean,
 * with the feature's variance added to the row's covariance there.
 *
 *  - a pass row of gsu.gradient, gsu.hessian and the regression passes: the
 *    pass's model carries the feature moments (the flag GSU_MODEL_MISSING,
 *    and GSU_MODEL_MISSING_NAN for "missing_nan");
 *  - a row of the streaming sgd aggregates (gsu.train_sgd, gsu.sgd_partial,
 *    gsu.train_regression_sgd, gsu.regression_sgd_partial): the user gave
 *    both moments ("missing_mean", "missing_variance"), which the partial
 *    keeps with its counts (GSU_PARTIAL_MISSING, gsu_partial.h).
 */
#include "gsu_model.h"
#include "gsu_partial.h"

#include <math.h>

/*
 * The covariance of a row whose mean x (dim doubles, NaN at its missing
 * elements, a copy the caller owns) has missing elements, from its variance
 * argument var_arg (NULL: none; diagonal variances, NULL where the mean is
 * missing; a full covariance; a factor is refused): a palloc'd diagonal or
 * full covariance with the feature variances mv added at the missing
 * elements, and x filled with the feature means mm there.
 */
static GsuRowCov
fill_row(FunctionCallInfo fcinfo, int var_arg, int d, double *x, const double *mm,
		 const double *mv)
{
	GsuRowCov	rc = {GSU_COV_DIAG, 0.0, NULL, 0};
	double	   *v;

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
			rc.kind = GSU_COV_FULL;
		}
		else
		{
			/* a copy: the variances may be the array's own bytes */
			GsuVec		given = gsu_variance_from_array_nulls(va, d, x);

			v = palloc(sizeof(double) * d);
			memcpy(v, given.data, sizeof(double) * d);
		}
	}
	(void) gsu_cov_fill_missing(d, x, rc.kind, v, mm, mv);
	rc.data = v;
	return rc;
}

bool
gsu_partial_missing_row(const GsuModel *at, FunctionCallInfo fcinfo, int mean_arg, int var_arg,
						GsuVec *mean, GsuRowCov *rc)
{
	GsuVec		x;
	int			nmiss;

	if (at == NULL || !(at->flags & GSU_MODEL_MISSING))
		return false;
	/* NULL elements, and NaN ones for a model of "missing_nan" (else a NaN is the usual error) */
	x = gsu_vec_from_array_missing(PG_GETARG_ARRAYTYPE_P(mean_arg), "mean",
								   (at->flags & GSU_MODEL_MISSING_NAN) != 0, &nmiss);
	if (nmiss == 0)
		return false;
	gsu_check_dims(x.n, at->input_dim, "mean");
	/* x.data is a copy when an element is missing */
	*rc = fill_row(fcinfo, var_arg, x.n, (double *) x.data, GSU_MODEL_MISS_MEAN(at),
				   GSU_MODEL_MISS_VAR(at));
	*mean = x;
	return true;
}

uint16
gsu_partial_sgd_flags(const GsuTrainOptions *o)
{
	if (o->missing == GSU_MISSING_ERROR)
		return 0;
	return GSU_PARTIAL_MISSING | (o->missing_nan ? GSU_PARTIAL_MISSING_NAN : 0);
}

GsuPartial *
gsu_partial_sgd_state(MemoryContext aggctx, int dim, const GsuTrainOptions *o, Jsonb *options)
{
	GsuPartial *st = gsu_partial_alloc_sgd(aggctx, dim, gsu_partial_sgd_flags(o));

	/* both moments given (gsu_require_missing_moments), one value per feature */
	if (st->flags & GSU_PARTIAL_MISSING)
		(void) gsu_options_missing_moments(options ? &options->root : NULL, dim,
										   GSU_PARTIAL_MISS(st), GSU_PARTIAL_MISS(st) + dim);
	return st;
}

bool
gsu_partial_sgd_same_moments(const GsuPartial *st, Jsonb *options)
{
	Size		d = (Size) st->dim;
	double	   *m;
	bool		same;

	if (!(st->flags & GSU_PARTIAL_MISSING))
		return true;
	m = palloc(sizeof(double) * 2 * d);
	(void) gsu_options_missing_moments(options ? &options->root : NULL, st->dim, m, m + d);
	same = memcmp(m, GSU_PARTIAL_MISS(st), sizeof(double) * 2 * d) == 0;
	pfree(m);
	return same;
}

GsuVec
gsu_partial_sgd_mean(const GsuTrainOptions *o, ArrayType *a, int *nmiss)
{
	*nmiss = 0;
	if (o->missing == GSU_MISSING_ERROR)
		return gsu_vec_from_array(a, "mean");
	return gsu_vec_from_array_missing(a, "mean", o->missing_nan != 0, nmiss);
}

GsuRowCov
gsu_partial_sgd_fill(GsuPartial *st, FunctionCallInfo fcinfo, int var_arg, GsuVec *mean, int nmiss)
{
	double	   *block = GSU_PARTIAL_MISS(st);
	int			d = st->dim;
	GsuRowCov	rc;

	Assert(nmiss > 0 && (st->flags & GSU_PARTIAL_MISSING) && mean->n == d);
	/* mean->data is a copy (gsu_vec_from_array_missing) */
	rc = fill_row(fcinfo, var_arg, d, (double *) mean->data, block, block + d);
	block[2 * (Size) d] += 1.0;
	block[2 * (Size) d + 1] += (double) nmiss;
	return rc;
}
