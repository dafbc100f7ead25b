/*
 * gsu_evaluation_significance.c — significance tests comparing two classifiers as
 * aggregates: gsu.mcnemar (McNemar's exact test on two methods' predictions
 * over the same rows) and gsu.paired_ttest (the paired t-test over runs,
 * with Nadeau & Bengio's correction for overlapping training sets).  The
 * distributions are core/gsu_stats.c; this file holds the states, their
 * parallel combine / serial / deserial functions and the jsonb results.
 *
 *  - mcnemar: four counts (both right, only A right, only B right, both
 *    wrong); combine adds them, so parallel results are exact;
 *  - paired t-test: the row count, the means of A, of B and of the
 *    difference A − B and the sum of squared deviations of the difference
 *    (Welford; Chan et al.'s pairwise update in combine), and the
 *    test/train ratio, which every row must repeat.
 */
#include "gsu_evaluation.h"
#include "gsu_json.h"
#include "core/gsu_stats.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"


PG_FUNCTION_INFO_V1(gsu_mcnemar_transfn);
PG_FUNCTION_INFO_V1(gsu_mcnemar_combinefn);
PG_FUNCTION_INFO_V1(gsu_mcnemar_serialfn);
PG_FUNCTION_INFO_V1(gsu_mcnemar_deserialfn);
PG_FUNCTION_INFO_V1(gsu_mcnemar_finalfn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_transfn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_ratio_transfn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_combinefn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_serialfn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_deserialfn);
PG_FUNCTION_INFO_V1(gsu_paired_ttest_finalfn);

#define GSU_MCNEMAR_MAGIC 0x4753554D	/* "GSUM" */
#define GSU_TTEST_MAGIC 0x47535554	/* "GSUT" */

/* a failure of the p-value's computation (the continued fraction's step limit) */
static void
significance_status(gsu_status s, const char *agg)
{
	if (s == GSU_OK)
		return;
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the p-value did not converge", agg),
				 errdetail("The incomplete beta function's continued fraction took more than %d steps.",
						   GSU_BETAINC_MAX_STEPS)));
	gsu_report_status(s, agg);
}

/* ============================================================== McNemar */

typedef struct GsuMcnemarState
{
	int64		n11;			/* both right */
	int64		n10;			/* A right, B wrong: McNemar's b */
	int64		n01;			/* A wrong, B right: McNemar's c */
	int64		n00;			/* both wrong */
} GsuMcnemarState;

static int64
mcnemar_n(const GsuMcnemarState *st)
{
	return st->n11 + st->n10 + st->n01 + st->n00;
}

/* a ← a + b, refusing a total past int64 */
static void
mcnemar_add(GsuMcnemarState *a, const GsuMcnemarState *b)
{
	if (mcnemar_n(b) > PG_INT64_MAX - mcnemar_n(a))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsu.mcnemar counted more than " INT64_FORMAT " rows", PG_INT64_MAX)));
	a->n11 += b->n11;
	a->n10 += b->n10;
	a->n01 += b->n01;
	a->n00 += b->n00;
}

Datum
gsu_mcnemar_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_mcnemar_transfn");
	GsuMcnemarState *st = PG_ARGISNULL(0) ? NULL : (GsuMcnemarState *) PG_GETARG_POINTER(0);
	GsuMcnemarState one = {0, 0, 0, 0};
	bool		a_right,
				b_right;
	int32		label;

	/* a row with a NULL prediction or label is skipped */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	label = PG_GETARG_INT32(3);
	a_right = PG_GETARG_INT32(1) == label;
	b_right = PG_GETARG_INT32(2) == label;
	if (st == NULL)
		st = MemoryContextAllocZero(aggctx, sizeof(GsuMcnemarState));
	if (a_right)
	{
		if (b_right)
			one.n11 = 1;
		else
			one.n10 = 1;
	}
	else if (b_right)
		one.n01 = 1;
	else
		one.n00 = 1;
	mcnemar_add(st, &one);
	PG_RETURN_POINTER(st);
}

Datum
gsu_mcnemar_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_mcnemar_combinefn");
	GsuMcnemarState *a = PG_ARGISNULL(0) ? NULL : (GsuMcnemarState *) PG_GETARG_POINTER(0);
	GsuMcnemarState *b = PG_ARGISNULL(1) ? NULL : (GsuMcnemarState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	if (a == NULL)
		a = MemoryContextAllocZero(aggctx, sizeof(GsuMcnemarState));
	mcnemar_add(a, b);
	PG_RETURN_POINTER(a);
}

typedef struct GsuMcnemarWire
{
	uint32		magic;
	uint32		reserved;		/* zero */
	int64		n11;
	int64		n10;
	int64		n01;
	int64		n00;
} GsuMcnemarWire;

Datum
gsu_mcnemar_serialfn(PG_FUNCTION_ARGS)
{
	GsuMcnemarState *st = (GsuMcnemarState *) PG_GETARG_POINTER(0);
	GsuMcnemarWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_MCNEMAR_MAGIC;
	w.n11 = st->n11;
	w.n10 = st->n10;
	w.n01 = st->n01;
	w.n00 = st->n00;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_mcnemar_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_mcnemar_deserialfn");
	GsuMcnemarWire w;
	GsuMcnemarState *st;

	if (VARSIZE_ANY_EXHDR(in) != sizeof(w))
		gsu_wire_error("gsu.mcnemar", "wrong length");
	memcpy(&w, VARDATA_ANY(in), sizeof(w));
	if (w.magic != GSU_MCNEMAR_MAGIC)
		gsu_wire_error("gsu.mcnemar", "bad magic number");
	if (w.reserved != 0)
		gsu_wire_error("gsu.mcnemar", "reserved field is not zero");
	if (w.n11 < 0 || w.n10 < 0 || w.n01 < 0 || w.n00 < 0 ||
		w.n10 > PG_INT64_MAX - w.n11 || w.n01 > PG_INT64_MAX - w.n11 - w.n10 ||
		w.n00 > PG_INT64_MAX - w.n11 - w.n10 - w.n01)
		gsu_wire_error("gsu.mcnemar", "bad counts");
	st = MemoryContextAlloc(aggctx, sizeof(GsuMcnemarState));
	st->n11 = w.n11;
	st->n10 = w.n10;
	st->n01 = w.n01;
	st->n00 = w.n00;
	PG_RETURN_POINTER(st);
}

Datum
gsu_mcnemar_finalfn(PG_FUNCTION_ARGS)
{
	GsuMcnemarState *st = PG_ARGISNULL(0) ? NULL : (GsuMcnemarState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	int64		n;
	double		p;

	(void) gsu_agg_context(fcinfo, "gsu_mcnemar_finalfn");
	if (st == NULL || (n = mcnemar_n(st)) == 0)
		PG_RETURN_NULL();
	significance_status(gsu_mcnemar_exact(st->n10, st->n01, &p), "gsu.mcnemar");
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	gsu_eval_append_ki(&buf, "n", n);
	gsu_eval_append_ki(&buf, "both_right", st->n11);
	gsu_eval_append_ki(&buf, "b", st->n10);
	gsu_eval_append_ki(&buf, "c", st->n01);
	gsu_eval_append_ki(&buf, "both_wrong", st->n00);
	gsu_eval_append_kd(&buf, "accuracy_a", (double) (st->n11 + st->n10) / (double) n);
	gsu_eval_append_kd(&buf, "accuracy_b", (double) (st->n11 + st->n01) / (double) n);
	gsu_eval_append_kd(&buf, "p", p);
	gsu_eval_trim_comma(&buf);
	appendStringInfoChar(&buf, '}');
	PG_RETURN_JSONB_P(gsu_eval_text_to_jsonb(&buf));
}

/* ====================================================== paired t-test */

typedef struct GsuTtestState
{
	gsu_paired_moments m;		/* the runs' moments (src/core/gsu_stats.h) */
	double		ratio;			/* n_test/n_train, the same on every row */
} GsuTtestState;

static void
check_finite_score(double x, const char *what)
{
	if (!isfinite(x))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must be finite, not %g", what, x),
				 errdetail("gsu.paired_ttest takes one score of each method per run, such as its test accuracy.")));
}

static void
check_ratio(double ratio)
{
	if (!(ratio >= 0.0) || !isfinite(ratio))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("test_train_ratio must be finite and not negative, not %g", ratio),
				 errhint("Pass the test rows of one run divided by its training rows, or 0 for the plain paired t-test.")));
}

static void
check_same_ratio(double have, double got)
{
	if (have != got)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("test_train_ratio must be the same on every row, not %g and %g", have, got),
				 errhint("The correction takes one ratio n_test/n_train for all runs; runs of different sizes need separate tests.")));
}

/* the moments overflowed: the scores are too large for double arithmetic */
static void
check_moments(const GsuTtestState *st)
{
	if (!isfinite(st->m.mean_a) || !isfinite(st->m.mean_b) || !isfinite(st->m.mean_d) ||
		!isfinite(st->m.m2_d))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("gsu.paired_ttest: the scores' moments are out of the range of float8"),
				 errhint("Scale the scores to a moderate range.")));
}

/*
 * a ← a ∪ b: Chan, Golub & LeVeque's pairwise update of the mean and the
 * sum of squared deviations (Welford's step when b holds one row)
 */
static void
ttest_merge(GsuTtestState *a, const GsuTtestState *b)
{
	if (b->m.n == 0)
		return;
	if (a->m.n == 0)
	{
		*a = *b;
		return;
	}
	check_same_ratio(a->ratio, b->ratio);
	if (b->m.n > PG_INT64_MAX - a->m.n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsu.paired_ttest counted more than " INT64_FORMAT " rows", PG_INT64_MAX)));
	gsu_paired_moments_merge(&a->m, &b->m);
	check_moments(a);
}

static Datum
ttest_trans(FunctionCallInfo fcinfo, bool with_ratio)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_paired_ttest_transfn");
	GsuTtestState *st = PG_ARGISNULL(0) ? NULL : (GsuTtestState *) PG_GETARG_POINTER(0);
	GsuTtestState one;
	double		a,
				b;

	/* a row with a NULL score or ratio is skipped */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || (with_ratio && PG_ARGISNULL(3)))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	a = PG_GETARG_FLOAT8(1);
	b = PG_GETARG_FLOAT8(2);
	check_finite_score(a, "score_a");
	check_finite_score(b, "score_b");
	memset(&one, 0, sizeof(one));
	one.m.n = 1;
	one.m.mean_a = a;
	one.m.mean_b = b;
	one.m.mean_d = a - b;
	one.ratio = with_ratio ? PG_GETARG_FLOAT8(3) : 0.0;
	check_ratio(one.ratio);
	check_moments(&one);
	if (st == NULL)
		st = MemoryContextAllocZero(aggctx, sizeof(GsuTtestState));
	ttest_merge(st, &one);
	PG_RETURN_POINTER(st);
}

Datum
gsu_paired_ttest_transfn(PG_FUNCTION_ARGS)
{
	return ttest_trans(fcinfo, false);
}

Datum
gsu_paired_ttest_ratio_transfn(PG_FUNCTION_ARGS)
{
	return ttest_trans(fcinfo, true);
}

Datum
gsu_paired_ttest_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_paired_ttest_combinefn");
	GsuTtestState *a = PG_ARGISNULL(0) ? NULL : (GsuTtestState *) PG_GETARG_POINTER(0);
	GsuTtestState *b = PG_ARGISNULL(1) ? NULL : (GsuTtestState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	if (a == NULL)
		a = MemoryContextAllocZero(aggctx, sizeof(GsuTtestState));
	ttest_merge(a, b);
	PG_RETURN_POINTER(a);
}

typedef struct GsuTtestWire
{
	uint32		magic;
	uint32		reserved;		/* zero */
	int64		n;
	double		mean_a;
	double		mean_b;
	double		mean_d;
	double		m2_d;
	double		ratio;
} GsuTtestWire;

Datum
gsu_paired_ttest_serialfn(PG_FUNCTION_ARGS)
{
	GsuTtestState *st = (GsuTtestState *) PG_GETARG_POINTER(0);
	GsuTtestWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_TTEST_MAGIC;
	w.n = st->m.n;
	w.mean_a = st->m.mean_a;
	w.mean_b = st->m.mean_b;
	w.mean_d = st->m.mean_d;
	w.m2_d = st->m.m2_d;
	w.ratio = st->ratio;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_paired_ttest_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_paired_ttest_deserialfn");
	GsuTtestWire w;
	GsuTtestState *st;

	if (VARSIZE_ANY_EXHDR(in) != sizeof(w))
		gsu_wire_error("gsu.paired_ttest", "wrong length");
	memcpy(&w, VARDATA_ANY(in), sizeof(w));
	if (w.magic != GSU_TTEST_MAGIC)
		gsu_wire_error("gsu.paired_ttest", "bad magic number");
	if (w.reserved != 0)
		gsu_wire_error("gsu.paired_ttest", "reserved field is not zero");
	if (w.n < 0)
		gsu_wire_error("gsu.paired_ttest", "bad count");
	if (!isfinite(w.mean_a) || !isfinite(w.mean_b) || !isfinite(w.mean_d) ||
		!isfinite(w.m2_d) || w.m2_d < 0.0 || !isfinite(w.ratio) || w.ratio < 0.0 ||
		(w.n == 0 && (w.mean_a != 0.0 || w.mean_b != 0.0 || w.mean_d != 0.0 ||
					  w.m2_d != 0.0 || w.ratio != 0.0)) ||
		(w.n == 1 && w.m2_d != 0.0))
		gsu_wire_error("gsu.paired_ttest", "bad moments");
	st = MemoryContextAlloc(aggctx, sizeof(GsuTtestState));
	st->m.n = w.n;
	st->m.mean_a = w.mean_a;
	st->m.mean_b = w.mean_b;
	st->m.mean_d = w.mean_d;
	st->m.m2_d = w.m2_d;
	st->ratio = w.ratio;
	PG_RETURN_POINTER(st);
}

Datum
gsu_paired_ttest_finalfn(PG_FUNCTION_ARGS)
{
	GsuTtestState *st = PG_ARGISNULL(0) ? NULL : (GsuTtestState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	gsu_ttest_result r;

	(void) gsu_agg_context(fcinfo, "gsu_paired_ttest_finalfn");
	if (st == NULL || st->m.n == 0)
		PG_RETURN_NULL();
	if (st->m.n >= 2)
		significance_status(gsu_corrected_ttest(st->m.n, st->m.mean_d, st->m.m2_d / (double) (st->m.n - 1),
												st->ratio, &r),
							"gsu.paired_ttest");
	else
	{
		/* one run: no spread, no test */
		r.t = NAN;
		r.df = 0.0;
		r.p = NAN;
	}
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	gsu_eval_append_ki(&buf, "runs", st->m.n);
	gsu_eval_append_ki(&buf, "df", st->m.n - 1);
	gsu_eval_append_kd(&buf, "mean_a", st->m.mean_a + 0.0);	/* +0 for -0 */
	gsu_eval_append_kd(&buf, "mean_b", st->m.mean_b + 0.0);
	gsu_eval_append_kd(&buf, "mean_difference", st->m.mean_d + 0.0);
	gsu_eval_append_kd(&buf, "sd_difference",
					   st->m.n >= 2 ? sqrt(st->m.m2_d / (double) (st->m.n - 1)) : NAN);
	gsu_eval_append_kd(&buf, "test_train_ratio", st->ratio);
	gsu_eval_append_kd(&buf, "t", r.t + 0.0);
	gsu_eval_append_kd(&buf, "p", r.p);
	gsu_eval_trim_comma(&buf);
	appendStringInfoChar(&buf, '}');
	PG_RETURN_JSONB_P(gsu_eval_text_to_jsonb(&buf));
}
