/*
 * gsu_fit_missing.c — the option "missing": "feature_moments" of gsu.fit
 * (docs/missing.md): one scan before the solver's reads the rows through a
 * cursor and computes what gsu.train's final function computes from its
 * buffered rows, each feature's mean over the rows where it is present and
 * its variance by the law of total variance (the population variance of
 * those means, by Welford's update, plus the average of those rows' Σ_jj),
 * and the counts; every later scan passes a model `at` that carries them,
 * whose rows gsu.gradient and gsu.hessian fill (gsu_partial_missing.c).
 */
#include "gsu_fit_missing.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

typedef struct MissSums
{
	MemoryContext keep;			/* where the sums live (the rows' memory is reset) */
	int			dim;
	int64	   *count;			/* rows where the feature is present */
	double	   *mean,
			   *m2,				/* Welford: running mean and Σ (x − mean)² */
			   *vsum;			/* Σ Σ_jj over those rows */
	int64		rows,			/* rows with a missing element */
				elements;		/* missing elements */
} MissSums;

static void
sums_init(MissSums *s, int dim)
{
	s->dim = dim;
	s->count = MemoryContextAllocZero(s->keep, sizeof(int64) * dim);
	s->mean = MemoryContextAllocZero(s->keep, sizeof(double) * dim);
	s->m2 = MemoryContextAllocZero(s->keep, sizeof(double) * dim);
	s->vsum = MemoryContextAllocZero(s->keep, sizeof(double) * dim);
	s->rows = s->elements = 0;
}

/* Σ_jj of a row's variance datum (NULL: 0), as the passes read it; x has NaN where missing */
static double
row_variance(ArrayType *va, const double *x, int d, int j, GsuRowCov *rc)
{
	double		v = 0.0;
	int			k;

	if (va == NULL)
		return 0.0;
	if (rc->data == NULL)
	{
		if (ARR_NDIM(va) == 2)
			*rc = gsu_cov_from_array(va, d);
		else
		{
			rc->kind = GSU_COV_DIAG;
			rc->data = gsu_variance_from_array_nulls(va, d, x).data;
		}
	}
	if (rc->kind == GSU_COV_DIAG)
		return rc->data[j];
	if (rc->kind == GSU_COV_FULL)
		return rc->data[(Size) j * d + j];
	for (k = 0; k < rc->rank; k++)
		v += rc->data[(Size) j * rc->rank + k] * rc->data[(Size) j * rc->rank + k];
	return v;
}

/* one row into s */
static void
sums_add(MissSums *s, ArrayType *ma, ArrayType *va, bool nan_missing)
{
	int			nmiss,
				j;
	GsuVec		x = gsu_vec_from_array_missing(ma, "mean", nan_missing, &nmiss);
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};

	if (s->dim == 0)
		sums_init(s, x.n);
	else if (x.n != s->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", x.n, s->dim)));
	s->rows += nmiss > 0;
	s->elements += nmiss;
	for (j = 0; j < s->dim; j++)
	{
		double		delta;

		if (isnan(x.data[j]))
			continue;
		s->count[j]++;
		delta = x.data[j] - s->mean[j];
		s->mean[j] += delta / (double) s->count[j];
		s->m2[j] += delta * (x.data[j] - s->mean[j]);
		s->vsum[j] += row_variance(va, x.data, s->dim, j, &rc);
	}
}

/* the block of gsu.train's missing moments from s, the user's moments in place of the observed */
static double *
sums_block(const MissSums *s, int64 n, Jsonb *options, int given)
{
	int			d = s->dim,
				j;
	double	   *block = SPI_palloc(sizeof(double) * GSU_MISSING_BLOCK_LEN(d));
	double	   *um = palloc(sizeof(double) * d),
			   *uv = palloc(sizeof(double) * d);

	if (given)
		(void) gsu_options_missing_moments(options ? &options->root : NULL, d, um, uv);
	for (j = 0; j < d; j++)
	{
		if (s->count[j] == 0 && given != (GSU_MISSING_GIVEN_MEAN | GSU_MISSING_GIVEN_VARIANCE))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("feature %d is missing (NULL) in every one of the " INT64_FORMAT " training rows", j + 1, n),
					 errdetail("With \"missing\": \"feature_moments\" a feature's mean and variance come from the rows where it is present.")));
		block[j] = (given & GSU_MISSING_GIVEN_MEAN) ? um[j] : s->mean[j];
		block[d + j] = (given & GSU_MISSING_GIVEN_VARIANCE) ? uv[j] :
			(s->m2[j] + s->vsum[j]) / (double) s->count[j];
		if (!isfinite(block[j]) || !isfinite(block[d + j]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the moments of feature %d over the training rows are out of range", j + 1)));
	}
	block[2 * (Size) d] = (double) s->rows;
	block[2 * (Size) d + 1] = (double) s->elements;
	return block;
}

void
gsu_fit_missing_moments(FitPass *fp, Oid relid, const char *weight, Jsonb *options)
{
	StringInfoData sql;
	SPIPlanPtr	plan;
	Portal		cur;
	MissSums	s = {0};
	int64		n = 0;
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "gsu.fit missing moments",
												 ALLOCSET_DEFAULT_SIZES),
				old;

	s.keep = CurrentMemoryContext;

	/* the rows a pass reads: a mean, a label and (with a weight column) a weight above 0 */
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s, %s FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL%s%s%s",
					 fp->mean_sql, fp->var_sql ? fp->var_sql : "NULL::pg_catalog.float8[]",
					 gsu_fit_qualified_name(relid), fp->mean_sql, fp->label_sql,
					 weight ? " AND " : "", weight ? quote_identifier(weight) : "",
					 weight ? " OPERATOR(pg_catalog.>) 0::pg_catalog.float8" : "");
	plan = SPI_prepare_cursor(sql.data, 0, NULL, 0);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The query of the missing values' moments was: %s", sql.data)));
	cur = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(cur, true, 1024);
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(rowcxt);
		for (i = 0; i < SPI_processed; i++)
		{
			bool		mnull,
						vnull;
			Datum		md = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &mnull);
			Datum		vd = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &vnull);

			sums_add(&s, DatumGetArrayTypeP(md), vnull ? NULL : DatumGetArrayTypeP(vd),
					 fp->opt.missing_nan != 0);
			n++;
			MemoryContextReset(rowcxt);
		}
		MemoryContextSwitchTo(old);
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(cur);
	MemoryContextDelete(rowcxt);
	fp->passes++;
	if (n == 0)
		return;
	if (fp->dim != 0 && s.dim != fp->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the rows have dimension %d, but the starting model has %d", s.dim, fp->dim)));
	fp->dim = s.dim;
	fp->miss = sums_block(&s, n, options, fp->opt.missing_given);
}

void
gsu_fit_missing_sample_options(const FitPass *fp, StringInfo buf)
{
	int			k,
				j;

	appendStringInfo(buf, ", \"missing\": \"feature_moments\", \"missing_nan\": %s",
					 fp->opt.missing_nan ? "true" : "false");
	for (k = 0; k < 2; k++)
	{
		appendStringInfo(buf, ", \"%s\": [", k == 0 ? "missing_mean" : "missing_variance");
		for (j = 0; j < fp->dim; j++)
			appendStringInfo(buf, "%s%.17g", j ? ", " : "", fp->miss[(Size) k * fp->dim + j]);
		appendStringInfoChar(buf, ']');
	}
}
