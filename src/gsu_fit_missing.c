/*
 * gsu_fit_missing.c — the option "missing": "feature_moments" of gsu.fit
 * (docs/missing.md): one scan before the solver's runs the aggregate
 * gsu.missing_moments (gsu_missing_moments.c; parallel workers when the
 * planner allows) over the rows training reads and so computes what
 * gsu.train's final function computes from its buffered rows, each
 * feature's mean over the rows where it is present and its variance by the
 * law of total variance, and the counts; every later scan passes a model
 * `at` that carries them, whose rows gsu.gradient and gsu.hessian fill
 * (gsu_partial_missing.c).
 */
#include "gsu_fit_missing.h"
#include "gsu_json.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

/* key of object c of gsu.missing_moments' result, an array (or an object) it always has */
static JsonbContainer *
result_key(JsonbContainer *c, const char *key, bool array)
{
	GsuJsonCtx	cx = {ERRCODE_INTERNAL_ERROR, "gsu.missing_moments key"};
	JsonbContainer *v = gsu_json_container(&cx, c, key, array);

	if (v == NULL)
		elog(ERROR, "gsu.fit: the result of gsu.missing_moments has no \"%s\"", key);
	return v;
}

/* a count of gsu.missing_moments' result */
static int64
result_count(JsonbContainer *r, const char *key, int64 min)
{
	GsuJsonCtx	cx = {ERRCODE_INTERNAL_ERROR, "gsu.missing_moments key"};
	int64		v;

	if (!gsu_json_int64(&cx, result_key(r, "counts", false), key, min, PG_INT64_MAX, &v))
		elog(ERROR, "gsu.fit: the result of gsu.missing_moments has no count \"%s\"", key);
	return v;
}

/*
 * The block of gsu.train's missing moments from the result r of
 * gsu.missing_moments over n rows: the user's moments in place of the
 * observed ones where given; a feature never present is an error unless
 * both of its moments are given.
 */
static double *
result_block(JsonbContainer *r, int d, int64 n, Jsonb *options, int given)
{
	GsuJsonCtx	cx = {ERRCODE_INTERNAL_ERROR, "gsu.missing_moments key"};
	JsonbContainer *present = result_key(result_key(r, "counts", false), "present", true);
	JsonbContainer *arr[2];
	double	   *block = SPI_palloc(sizeof(double) * GSU_MISSING_BLOCK_LEN(d));
	double	   *um = palloc(sizeof(double) * d),
			   *uv = palloc(sizeof(double) * d),
			   *cnt = palloc(sizeof(double) * d);
	int			j,
				k;

	arr[0] = result_key(r, "missing_mean", true);
	arr[1] = result_key(r, "missing_variance", true);
	gsu_json_number_array(&cx, present, "present", cnt, d);
	if (given)
		(void) gsu_options_missing_moments(options ? &options->root : NULL, d, um, uv);
	for (j = 0; j < d; j++)
	{
		if (cnt[j] == 0 && given != (GSU_MISSING_GIVEN_MEAN | GSU_MISSING_GIVEN_VARIANCE))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("feature %d is missing (NULL) in every one of the " INT64_FORMAT " training rows", j + 1, n),
					 errdetail("With \"missing\": \"feature_moments\" a feature's mean and variance come from the rows where it is present.")));
		for (k = 0; k < 2; k++)
		{
			bool		mine = (given & (k == 0 ? GSU_MISSING_GIVEN_MEAN : GSU_MISSING_GIVEN_VARIANCE)) != 0;
			JsonbValue *v = mine ? NULL : getIthJsonbValueFromContainer(arr[k], j);

			if (mine)
				block[(Size) k * d + j] = k == 0 ? um[j] : uv[j];
			else if (v == NULL || v->type != jbvNumeric)
				elog(ERROR, "gsu.fit: gsu.missing_moments gave no moment of feature %d", j + 1);
			else
				block[(Size) k * d + j] = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																			NumericGetDatum(v->val.numeric)));
		}
	}
	block[2 * (Size) d] = (double) result_count(r, "rows_missing", 0);
	block[2 * (Size) d + 1] = (double) result_count(r, "elements_missing", 0);
	return block;
}

void
gsu_fit_missing_moments(FitPass *fp, Oid relid, const char *schema, const char *weight,
						Jsonb *options)
{
	StringInfoData sql;
	SPIPlanPtr	plan;
	bool		isnull;
	int			ret,
				d;
	int64		n;
	Datum		r;
	JsonbContainer *root;

	CHECK_FOR_INTERRUPTS();
	/* the rows a pass reads: a mean, a label and (with a weight column) a weight above 0 */
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s.missing_moments(%s, %s, '{\"missing_nan\": %s}'::pg_catalog.jsonb) "
					 "FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL%s%s%s",
					 schema, fp->mean_sql, fp->var_sql ? fp->var_sql : "NULL::pg_catalog.float8[]",
					 fp->opt.missing_nan ? "true" : "false",
					 gsu_fit_qualified_name(relid), fp->mean_sql, fp->label_sql,
					 weight ? " AND " : "", weight ? quote_identifier(weight) : "",
					 weight ? " OPERATOR(pg_catalog.>) 0::pg_catalog.float8" : "");
	plan = SPI_prepare_cursor(sql.data, 0, NULL, CURSOR_OPT_PARALLEL_OK);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The query of the missing values' moments was: %s", sql.data)));
	/* count 0: with a count, no parallel worker runs (gsu_fit_run_pass) */
	ret = SPI_execute_plan(plan, NULL, NULL, true, 0);
	gsu_fit_count_scan(fp, ret);
	r = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
	{
		/* no rows: the passes find none either */
		SPI_freetuptable(SPI_tuptable);
		return;
	}
	root = &DatumGetJsonbP(r)->root;
	n = result_count(root, "rows", 1);
	d = gsu_json_array_length(result_key(root, "missing_mean", true));
	if (fp->dim != 0 && d != fp->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the rows have dimension %d, but the starting model has %d", d, fp->dim)));
	fp->dim = d;
	fp->miss = result_block(root, d, n, options, fp->opt.missing_given);
	SPI_freetuptable(SPI_tuptable);
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
