/*
 * gsu_missing_moments.c — the aggregate gsu.missing_moments(mean, variance
 * [, options]): the feature moments that the option "missing":
 * "feature_moments" fills a missing mean element with (docs/missing.md),
 * over the rows where each feature is present: its mean, and its variance
 * by the law of total variance (the population variance of those means plus
 * the average of those rows' Σ_jj), with the counts.  Welford's update per
 * feature and Chan's merge of parallel workers' states, so that a parallel
 * plan gives the serial result up to rounding.  gsu.fit's scan of the
 * option runs it (gsu_fit_missing.c), and its result gives the streaming
 * aggregates, which need both moments before the first row, the options
 * "missing_mean" and "missing_variance".
 */
#include "gsu_glue.h"
#include "gsu_json.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_missing_moments_transfn);
PG_FUNCTION_INFO_V1(gsu_missing_moments_combinefn);
PG_FUNCTION_INFO_V1(gsu_missing_moments_serialfn);
PG_FUNCTION_INFO_V1(gsu_missing_moments_deserialfn);
PG_FUNCTION_INFO_V1(gsu_missing_moments_finalfn);

#define FN "gsu.missing_moments"

/*
 * The state: counts, then 4·dim doubles: per feature the rows where it is
 * present, the running mean and Σ (x − mean)² of its means, and Σ Σ_jj.
 */
typedef struct MissState
{
	int32		dim;
	int32		nan;			/* option "missing_nan" */
	int64		n;				/* rows */
	int64		rows;			/* rows with a missing element */
	int64		elements;		/* missing elements */
	double		data[FLEXIBLE_ARRAY_MEMBER];
} MissState;

#define ST_COUNT(s) ((s)->data)
#define ST_MEAN(s) ((s)->data + (s)->dim)
#define ST_M2(s) ((s)->data + 2 * (Size) (s)->dim)
#define ST_VSUM(s) ((s)->data + 3 * (Size) (s)->dim)
#define ST_SIZE(dim) (offsetof(MissState, data) + sizeof(double) * 4 * (Size) (dim))

/* the options, parsed again whenever their value changes (in fn_extra) */
typedef struct OptionsCache
{
	GsuArgMemo	memo;
	int32		nan;
} OptionsCache;

static int32
options_nan(FunctionCallInfo fcinfo)
{
	static const char *const keys[] = {"missing_nan", NULL};
	OptionsCache *oc = (OptionsCache *) fcinfo->flinfo->fn_extra;

	if (oc == NULL)
		oc = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(OptionsCache));
	if (!gsu_arg_memo_same(fcinfo, 3, &oc->memo))
	{
		GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
		bool		b = false;

		if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
		{
			Jsonb	   *jb = PG_GETARG_JSONB_P(3);

			if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg(FN " options must be a JSON object")));
			gsu_json_check_object(&cx, &jb->root, keys);
			(void) gsu_json_bool(&cx, &jb->root, "missing_nan", &b);
		}
		oc->nan = b ? 1 : 0;
		gsu_arg_memo_set(fcinfo, 3, &oc->memo);
	}
	return oc->nan;
}

/*
 * A row's variance va (NULL: none), checked as the training checks it:
 * diagonal variances, NULL where the mean x (NaN where missing) is
 * missing; a full covariance; a factor L only in a row without a missing
 * element (0A000, as the training refuses it).
 */
static GsuRowCov
row_cov(ArrayType *va, const double *x, int d, int nmiss)
{
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL, 0};

	if (va == NULL)
		return rc;
	if (ARR_NDIM(va) != 2)
	{
		rc.kind = GSU_COV_DIAG;
		rc.data = gsu_variance_from_array_nulls(va, d, x).data;
		return rc;
	}
	rc = gsu_cov_from_array(va, d);
	if (rc.kind == GSU_COV_FACTOR && nmiss > 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a row with a missing mean element cannot have a covariance factor"),
				 errdetail("With \"missing\": \"feature_moments\" a missing element's variance is added to the diagonal of the row's covariance, which a factor L of LL^T has not."),
				 errhint("Pass the full covariance L L^T (dim x dim), diagonal variances (NULL where the mean is missing), or NULL.")));
	return rc;
}

/* Arguments: 0 state, 1 mean (NULL: the row is skipped), 2 variance, 3 options. */
Datum
gsu_missing_moments_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.missing_moments_transfn");
	MissState  *st = PG_ARGISNULL(0) ? NULL : (MissState *) PG_GETARG_POINTER(0);
	int32		nan;
	int			nmiss,
				j;
	GsuVec		x;
	GsuRowCov	rc;

	if (PG_ARGISNULL(1))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	nan = options_nan(fcinfo);
	x = gsu_vec_from_array_missing(PG_GETARG_ARRAYTYPE_P(1), "mean", nan != 0, &nmiss);
	if (st == NULL)
	{
		st = MemoryContextAllocExtended(aggctx, ST_SIZE(x.n), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		st->dim = x.n;
		st->nan = nan;
	}
	else if (x.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", x.n, st->dim)));
	else if (nan != st->nan)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(FN " options must be the same for every row of a group")));
	rc = row_cov(PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2), x.data, st->dim, nmiss);
	st->n++;
	st->rows += nmiss > 0;
	st->elements += nmiss;
	for (j = 0; j < st->dim; j++)
	{
		double		c,
					delta;

		if (isnan(x.data[j]))
			continue;
		c = ++ST_COUNT(st)[j];
		delta = x.data[j] - ST_MEAN(st)[j];
		ST_MEAN(st)[j] += delta / c;
		ST_M2(st)[j] += delta * (x.data[j] - ST_MEAN(st)[j]);
		ST_VSUM(st)[j] += gsu_cov_variance_of(st->dim, &rc, j);
	}
	PG_RETURN_POINTER(st);
}

/* b into a: counts add, each feature's mean and M2 by Chan et al.'s merge */
static void
merge(MissState *a, const MissState *b)
{
	int			j;

	for (j = 0; j < a->dim; j++)
	{
		double		na = ST_COUNT(a)[j],
					nb = ST_COUNT(b)[j],
					n = na + nb,
					delta;

		if (nb == 0)
			continue;
		delta = ST_MEAN(b)[j] - ST_MEAN(a)[j];
		ST_MEAN(a)[j] += delta * (nb / n);
		ST_M2(a)[j] += ST_M2(b)[j] + delta * delta * (na * nb / n);
		ST_VSUM(a)[j] += ST_VSUM(b)[j];
		ST_COUNT(a)[j] = n;
	}
	a->n += b->n;
	a->rows += b->rows;
	a->elements += b->elements;
}

Datum
gsu_missing_moments_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.missing_moments_combinefn");
	MissState  *a = PG_ARGISNULL(0) ? NULL : (MissState *) PG_GETARG_POINTER(0);
	MissState  *b = PG_ARGISNULL(1) ? NULL : (MissState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	if (a == NULL)
	{
		/* a copy in the aggregate context; b is not ours to keep */
		a = MemoryContextAllocExtended(aggctx, ST_SIZE(b->dim), MCXT_ALLOC_HUGE);
		memcpy(a, b, ST_SIZE(b->dim));
		PG_RETURN_POINTER(a);
	}
	if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine " FN " states of dimensions %d and %d", a->dim, b->dim)));
	if (a->nan != b->nan)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine " FN " states with different options")));
	merge(a, b);
	PG_RETURN_POINTER(a);
}

/* The serialized state: magic, dim, nan (int32 each), n, rows, elements (int64 each), 4·dim doubles. */
#define MISS_MAGIC 0x47534d4d	/* "GSMM" */

Datum
gsu_missing_moments_serialfn(PG_FUNCTION_ARGS)
{
	MissState  *st = (MissState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint32(&buf, MISS_MAGIC);
	pq_sendint32(&buf, st->dim);
	pq_sendint32(&buf, st->nan);
	pq_sendint64(&buf, st->n);
	pq_sendint64(&buf, st->rows);
	pq_sendint64(&buf, st->elements);
	pq_sendbytes(&buf, (const char *) st->data, sizeof(double) * 4 * (Size) st->dim);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_missing_moments_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.missing_moments_deserialfn");
	StringInfoData buf;
	MissState  *st;
	int32		dim,
				nan;
	int64		n,
				rows,
				elements;
	int			j;

	buf.data = VARDATA_ANY(in);
	buf.len = VARSIZE_ANY_EXHDR(in);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	if (buf.len < 3 * 4 + 3 * 8)
		gsu_wire_error(FN, "too short");
	if ((uint32) pq_getmsgint(&buf, 4) != MISS_MAGIC)
		gsu_wire_error(FN, "bad magic number");
	dim = (int32) pq_getmsgint(&buf, 4);
	nan = (int32) pq_getmsgint(&buf, 4);
	n = pq_getmsgint64(&buf);
	rows = pq_getmsgint64(&buf);
	elements = pq_getmsgint64(&buf);
	/* elements ≤ rows·dim without the product (rows ≤ n may be large) */
	if (dim < 1 || dim > GSU_MAX_DIM || (nan != 0 && nan != 1) || n < 1 || rows < 0 || rows > n ||
		elements < rows || (elements > 0 && (elements - 1) / dim >= rows))
		gsu_wire_error(FN, "bad counts");
	if ((Size) (buf.len - buf.cursor) != sizeof(double) * 4 * (Size) dim)
		gsu_wire_error(FN, "wrong length");
	st = MemoryContextAllocExtended(aggctx, ST_SIZE(dim), MCXT_ALLOC_HUGE);
	st->dim = dim;
	st->nan = nan;
	st->n = n;
	st->rows = rows;
	st->elements = elements;
	pq_copymsgbytes(&buf, (char *) st->data, sizeof(double) * 4 * (Size) dim);
	for (j = 0; j < dim; j++)
	{
		double		c = ST_COUNT(st)[j];

		if (!(c >= (double) (n - rows) && c <= (double) n && c == floor(c)) || !isfinite(ST_MEAN(st)[j]) ||
			!(ST_M2(st)[j] >= 0 && isfinite(ST_M2(st)[j])) ||
			!(ST_VSUM(st)[j] >= 0 && isfinite(ST_VSUM(st)[j])) ||
			(c == 0 && (ST_MEAN(st)[j] != 0 || ST_M2(st)[j] != 0 || ST_VSUM(st)[j] != 0)))
			gsu_wire_error(FN, "inconsistent values");
	}
	PG_RETURN_POINTER(st);
}

/* a JSON array of the dim numbers f(st, j), null where the feature is never present */
static void
append_array(StringInfo buf, const MissState *st, int what)
{
	int			j;

	appendStringInfoChar(buf, '[');
	for (j = 0; j < st->dim; j++)
	{
		double		c = ST_COUNT(st)[j],
					v = what == 0 ? c : what == 1 ? ST_MEAN(st)[j] :
			(ST_M2(st)[j] + ST_VSUM(st)[j]) / c;

		if (j > 0)
			appendStringInfoString(buf, ", ");
		if (what > 0 && c == 0)
			appendStringInfoString(buf, "null");
		else if (!isfinite(v))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the moments of feature %d over the rows are out of range", j + 1)));
		else
			gsu_append_double(buf, v);
	}
	appendStringInfoChar(buf, ']');
}

/*
 * The result, the options of "missing" that fill rows with these moments,
 * and the counts: {"missing": "feature_moments", "missing_mean": [...],
 * "missing_variance": [...], ["missing_nan": true,] "counts": {"rows": n,
 * "rows_missing": r, "elements_missing": e, "present": [...]}}, a feature
 * never present null in both moments; NULL without rows.
 */
Datum
gsu_missing_moments_finalfn(PG_FUNCTION_ARGS)
{
	MissState  *st = PG_ARGISNULL(0) ? NULL : (MissState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	(void) gsu_agg_context(fcinfo, "gsu.missing_moments_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"missing\": \"feature_moments\", \"missing_mean\": ");
	append_array(&buf, st, 1);
	appendStringInfoString(&buf, ", \"missing_variance\": ");
	append_array(&buf, st, 2);
	if (st->nan)
		appendStringInfoString(&buf, ", \"missing_nan\": true");
	appendStringInfo(&buf, ", \"counts\": {\"rows\": " INT64_FORMAT ", \"rows_missing\": " INT64_FORMAT
					 ", \"elements_missing\": " INT64_FORMAT ", \"present\": ", st->n, st->rows, st->elements);
	append_array(&buf, st, 0);
	appendStringInfoString(&buf, "}}");
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}
