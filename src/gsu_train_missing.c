/*
 * gsu_train_missing.c — the option "missing": "feature_moments" of the
 * buffered aggregates gsu.train and gsu.train_regression (docs/missing.md):
 * a row whose mean has NULL elements is buffered with NaN there and a
 * diagonal covariance; the final function computes each feature's mean and
 * variance over the rows where it is present (after a parallel plan's
 * combine: over all rows) and fills the rows with them.  The variance is the
 * law of total variance's, the population variance of the present means
 * plus the average of the present rows' variances Σ_jj, whose sum the
 * transition keeps per feature (the state carries it through a combine).
 * The streaming solver sgd takes the option only with both moments given:
 * its block is made with the first row and each row is filled from it
 * before its step (gsu_train_missing_fill_row).
 */
#include "gsu_train.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/float.h"

/* the error of a missing mean element in a row whose variance is not diagonal */
static void
refuse_variance_form(const char *form)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a row with a missing mean element cannot have %s", form),
			 errdetail("With \"missing\": \"feature_moments\" a missing element's variance is added to the diagonal of the row's covariance, which a factor L of LL^T has not."),
			 errhint("Pass the full covariance L L^T (dim x dim), diagonal variances (NULL where the mean is missing), or NULL.")));
}

bool
gsu_train_missing_row(GsuTrainState *st, FunctionCallInfo fcinfo, bool iso_variance,
					  GsuVec *mean, GsuRowCov *rc)
{
	ArrayType  *a;
	int			nnull;
	GsuVec		v;

	if (st->opt.missing == GSU_MISSING_ERROR)
		return false;
	a = PG_GETARG_ARRAYTYPE_P(1);
	if (!ARR_HASNULL(a) && !st->opt.missing_nan)
		return false;
	/* NULL elements, and with "missing_nan" NaN ones: NaN in *mean */
	*mean = gsu_vec_from_array_missing(a, "mean", st->opt.missing_nan, &nnull);
	if (nnull == 0)
		return false;
	rc->iso = 0.0;
	rc->rank = 0;
	if (PG_ARGISNULL(2))
	{
		v.n = mean->n;
		v.data = palloc0(sizeof(double) * mean->n);
	}
	else if (iso_variance)
	{
		/* s·I: s on every diagonal element, the feature's variance added at the missing ones */
		double		iso = PG_GETARG_FLOAT8(2);
		double	   *d = palloc(sizeof(double) * mean->n);
		int			j;

		gsu_check_iso_variance(iso);
		for (j = 0; j < mean->n; j++)
			d[j] = iso;
		v.n = mean->n;
		v.data = d;
	}
	else
	{
		ArrayType  *va = PG_GETARG_ARRAYTYPE_P(2);

		if (ARR_NDIM(va) == 2)
		{
			/* a full covariance (checked as always): the feature's variance joins its diagonal */
			*rc = gsu_cov_from_array(va, mean->n);
			if (rc->kind == GSU_COV_FACTOR)
				refuse_variance_form("a covariance factor");
			return true;
		}
		v = gsu_variance_from_array_nulls(va, mean->n, mean->data);
	}
	rc->kind = GSU_COV_DIAG;
	rc->data = v.data;
	return true;
}

void
gsu_train_missing_start(GsuTrainState *st)
{
	double	   *mean,
			   *var;

	if (st->opt.missing == GSU_MISSING_ERROR)
		return;
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		/* the user's moments (both: the options' rule), the counts 0, in the state's context */
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(st));

		st->miss_block = palloc0(sizeof(double) * GSU_MISSING_BLOCK_LEN(st->dim));
		MemoryContextSwitchTo(old);
		(void) gsu_options_missing_moments(st->options ? &st->options->root : NULL, st->dim,
										   st->miss_block, st->miss_block + st->dim);
		return;
	}
	st->miss_var_sum = palloc0(sizeof(double) * (Size) st->dim);
	/* the user's moments have one value per feature: checked with the first row */
	if (st->opt.missing_given && st->options)
	{
		mean = palloc(sizeof(double) * (Size) st->dim);
		var = palloc(sizeof(double) * (Size) st->dim);
		(void) gsu_options_missing_moments(&st->options->root, st->dim, mean, var);
		pfree(mean);
		pfree(var);
	}
}

void
gsu_train_missing_add_variances(GsuTrainState *st, const double *x, const GsuRowCov *rc)
{
	int			dim = st->dim,
				j;

	if (st->miss_var_sum == NULL || rc->kind == GSU_COV_NONE)
		return;
	for (j = 0; j < dim; j++)
		if (!isnan(x[j]))
			st->miss_var_sum[j] += gsu_cov_variance_of(dim, rc, j);
}

void
gsu_train_missing_combine(GsuTrainState *a, const GsuTrainState *b)
{
	int			j;

	/* the streaming solver's block: the same moments, its counts add */
	if (a->miss_block && b->miss_block && a->opt.solver == GSU_SOLVER_SGD)
	{
		a->miss_block[2 * (Size) a->dim] += b->miss_block[2 * (Size) a->dim];
		a->miss_block[2 * (Size) a->dim + 1] += b->miss_block[2 * (Size) a->dim + 1];
	}
	if (a->miss_var_sum == NULL || b->miss_var_sum == NULL)
		return;
	for (j = 0; j < a->dim; j++)
		a->miss_var_sum[j] += b->miss_var_sum[j];
}

void
gsu_train_missing_fill_row(GsuTrainState *st, GsuVec *mean, GsuRowCov *rc)
{
	int			d = st->dim,
				j,
				nmiss = 0;
	double	   *x,
			   *v;
	const double *mm,
			   *mv;

	if (st->miss_block == NULL || st->opt.solver != GSU_SOLVER_SGD)
		return;
	for (j = 0; j < d; j++)
		nmiss += isnan(mean->data[j]);
	if (nmiss == 0)
		return;
	mm = st->miss_block;
	mv = st->miss_block + d;
	/* copies: the row's arrays may be the argument's own bytes */
	x = palloc(sizeof(double) * d);
	memcpy(x, mean->data, sizeof(double) * d);
	if (rc->kind == GSU_COV_FULL)
	{
		v = palloc(sizeof(double) * d * d);
		memcpy(v, rc->data, sizeof(double) * d * d);
	}
	else
	{
		/* gsu_train_missing_row made it diagonal (zeros for a NULL variance) */
		Assert(rc->kind == GSU_COV_DIAG);
		v = palloc(sizeof(double) * d);
		memcpy(v, rc->data, sizeof(double) * d);
	}
	(void) gsu_cov_fill_missing(d, x, rc->kind == GSU_COV_FULL ? GSU_COV_FULL : GSU_COV_DIAG, v,
								mm, mv);
	mean->data = x;
	rc->data = v;
	st->miss_block[2 * (Size) d] += 1.0;
	st->miss_block[2 * (Size) d + 1] += (double) nmiss;
}

/*
 * each feature's observed mean and variance into block, the counts after
 * them, and into observed (2·dim doubles) the mean and the population
 * variance of the present means alone (what "standardize" scales by); a
 * feature never present is an error unless the user gave both its moments
 * (given: GSU_MISSING_GIVEN_*), when its observed moments are NaN
 */
static void
missing_moments(const GsuTrainState *st, double *block, double *observed, int given)
{
	int			dim = st->dim,
				j;
	double	   *mean = block,
			   *var = block + dim;
	int64	   *count = palloc0(sizeof(int64) * dim);
	int64		i,
				rows = 0,
				elements = 0;

	memset(block, 0, sizeof(double) * GSU_MISSING_BLOCK_LEN(dim));
	for (i = 0; i < st->n; i++)
	{
		const double *x = st->x + i * dim;
		bool		any = false;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		for (j = 0; j < dim; j++)
			if (isnan(x[j]))
				any = true, elements++;
			else
				mean[j] += x[j], count[j]++;
		rows += any;
	}
	for (j = 0; j < dim; j++)
	{
		if (count[j] == 0 && given == (GSU_MISSING_GIVEN_MEAN | GSU_MISSING_GIVEN_VARIANCE))
			continue;
		if (count[j] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("feature %d is missing (NULL) in every one of the " INT64_FORMAT " training rows", j + 1, st->n),
					 errdetail("With \"missing\": \"feature_moments\" a feature's mean and variance come from the rows where it is present.")));
		mean[j] /= (double) count[j];
	}
	for (i = 0; i < st->n; i++)
	{
		const double *x = st->x + i * dim;

		for (j = 0; j < dim; j++)
			if (!isnan(x[j]))
				var[j] += (x[j] - mean[j]) * (x[j] - mean[j]);
	}
	for (j = 0; j < dim; j++)
	{
		if (count[j] == 0)
		{
			mean[j] = var[j] = get_float8_nan();
			continue;
		}
		var[j] /= (double) count[j];
		observed[j] = mean[j];
		observed[dim + j] = var[j];
		/* the law of total variance: the means' spread plus the rows' average variance */
		var[j] += st->miss_var_sum[j] / (double) count[j];
		if (!isfinite(mean[j]) || !isfinite(var[j]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the moments of feature %d over the training rows are out of range", j + 1)));
	}
	for (j = 0; j < dim; j++)
		if (count[j] == 0)
			observed[j] = observed[dim + j] = get_float8_nan();
	block[2 * (Size) dim] = (double) rows;
	block[2 * (Size) dim + 1] = (double) elements;
	pfree(count);
}

/*
 * "missing_mean", "missing_variance": the user's moments replace the
 * observed ones in st->miss_block
 */
static void
use_given_moments(GsuTrainState *st)
{
	int			dim = st->dim;
	double	   *mean = palloc(sizeof(double) * dim),
			   *var = palloc(sizeof(double) * dim);
	int			given;

	given = gsu_options_missing_moments(st->options ? &st->options->root : NULL, dim, mean, var);
	if (given & GSU_MISSING_GIVEN_MEAN)
		memcpy(st->miss_block, mean, sizeof(double) * dim);
	if (given & GSU_MISSING_GIVEN_VARIANCE)
		memcpy(st->miss_block + dim, var, sizeof(double) * dim);
	pfree(mean);
	pfree(var);
}

void
gsu_train_fill_missing(GsuTrainState *st)
{
	MemoryContext old;
	int			dim = st->dim;
	int64		i;
	const double *mean,
			   *var;

	if (st->opt.missing == GSU_MISSING_ERROR || st->miss_block != NULL || st->n == 0)
		return;
	/* in the state's context: the block lives as long as the state */
	old = MemoryContextSwitchTo(GetMemoryChunkContext(st));
	st->miss_block = palloc(sizeof(double) * GSU_MISSING_BLOCK_LEN(dim));
	st->miss_observed = palloc(sizeof(double) * 2 * (Size) dim);
	MemoryContextSwitchTo(old);
	missing_moments(st, st->miss_block, st->miss_observed, st->opt.missing_given);
	if (st->opt.missing_given)
		use_given_moments(st);
	mean = st->miss_block;
	var = st->miss_block + dim;
	/*
	 * a row whose only variance is a missing element's was stored as a
	 * certain one (its diagonal was zero): the rows become diagonal
	 */
	if (st->miss_block[2 * (Size) dim] > 0 && gsu_loss_info(st->opt.loss)->uses_covariance &&
		(st->level == GSU_COV_NONE || st->level == GSU_COV_ISO))
		gsu_rows_raise_level(st, GSU_COV_DIAG);
	if (st->level == GSU_COV_FACTOR && st->miss_block[2 * (Size) dim] > 0)
		elog(ERROR, "pg_gsu: rows with missing elements among covariance factors");
	for (i = 0; i < st->n; i++)
		(void) gsu_cov_fill_missing(dim, st->x + i * dim, (gsu_cov_kind) st->level,
									st->level == GSU_COV_DIAG ? st->cov + i * dim :
									st->level == GSU_COV_FULL ? st->cov + i * dim * dim : NULL,
									mean, var);
}
