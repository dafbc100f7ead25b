/*
 * gsu_uncertainty_signal.c — the EEG pipeline of the SVM-GSU paper (Tzelepis et al.,
 * TPAMI 2018, Sect. 4.4) in SQL:
 *
 *   gsu.welch(signal, sampling_rate, options)  the mean and variance over
 *       Welch segments of each band's log power: one Gaussian training row
 *       (per channel) from a raw signal;
 *   gsu.fisher_score(features, label [, options])  aggregate: Fisher's
 *       discriminant score of each feature, to select features.
 *
 * The math is in src/core/gsu_welch.c (FFTW) and src/core/gsu_fisher.c;
 * this file reads and checks arguments and options, keeps FFTW plans, and
 * turns the core's status codes into errors (after the core has freed what
 * it allocated).
 */
#include "gsu_glue.h"
#include "gsu_memory.h"
#include "gsu_json.h"
#include "core/gsu_fisher.h"
#include "core/gsu_moments.h"
#include "core/gsu_welch.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_welch_sql);
PG_FUNCTION_INFO_V1(gsu_fisher_score_transfn);
PG_FUNCTION_INFO_V1(gsu_fisher_score_transfn_bool);
PG_FUNCTION_INFO_V1(gsu_fisher_score_combinefn);
PG_FUNCTION_INFO_V1(gsu_fisher_score_serialfn);
PG_FUNCTION_INFO_V1(gsu_fisher_score_deserialfn);
PG_FUNCTION_INFO_V1(gsu_fisher_score_finalfn);

/* ================================================================ welch */

/* more bands than anyone analyses; each costs its bins per segment */
#define GSU_WELCH_MAX_BANDS 1000

/*
 * FFTW plans kept for the backend's life, by length: planning is cheap with
 * FFTW_ESTIMATE but not free, and a query calls gsu.welch once per channel
 * and trial with one segment length.  A backend is single-threaded, so the
 * planner (not thread-safe) is safe here.  Lengths above CACHED_MAX get a
 * plan for the call only, so the cache holds at most a few MB of FFTW's
 * malloc'd buffers.
 */
#define PLAN_CACHE_SIZE 4
#define PLAN_CACHE_MAX_LENGTH 65536

static gsu_rfft *plan_cache[PLAN_CACHE_SIZE];
static int	plan_cache_next;

typedef struct WelchBand
{
	char	   *name;
	double		lo;
	double		hi;
} WelchBand;

typedef struct WelchOptions
{
	gsu_welch_params p;
	int			nbands;
	WelchBand  *bands;
	bool		default_bands;
	double		overlap;
	bool		default_length;
} WelchOptions;

static const char *const welch_keys[] = {
	"segment_length", "overlap", "window", "detrend", "bands", "scale", "floor",
	"estimator", NULL
};

static gsu_rfft *
plan_get(int L, bool *cached)
{
	gsu_rfft   *f;
	int			i;

	*cached = false;
	if (L <= PLAN_CACHE_MAX_LENGTH)
		for (i = 0; i < PLAN_CACHE_SIZE; i++)
			if (plan_cache[i] != NULL && gsu_rfft_length(plan_cache[i]) == L)
			{
				*cached = true;
				return plan_cache[i];
			}
	gsu_report_status(gsu_rfft_create(L, &f), "gsu.welch");
	if (L <= PLAN_CACHE_MAX_LENGTH)
	{
		gsu_rfft_destroy(plan_cache[plan_cache_next]);
		plan_cache[plan_cache_next] = f;
		plan_cache_next = (plan_cache_next + 1) % PLAN_CACHE_SIZE;
		*cached = true;
	}
	return f;
}

/* A band edge as written: the shortest decimal that reads back exactly. */
static char *
edge_text(double x)
{
	StringInfoData buf;

	initStringInfo(&buf);
	gsu_append_double(&buf, x);
	return buf.data;
}

static int
band_cmp(const void *a, const void *b)
{
	const WelchBand *x = a,
			   *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* [lo, hi] of one band, hi null meaning fs/2; what names it in messages */
static void
read_band_edges(JsonbValue *v, const char *what, double fs, double *lo, double *hi)
{
	JsonbContainer *c;
	JsonbValue *e;
	int			i;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("band %s must be an array [low, high] of two frequencies in Hz", what),
				 errhint("For example {\"alpha\": [8, 12], \"gamma\": [30, null]}; null as high means half the sampling rate.")));
	c = v->val.binary.data;
	for (i = 0; i < 2; i++)
	{
		double		x;

		e = getIthJsonbValueFromContainer(c, i);
		if (i == 1 && e->type == jbvNull)
			x = 0.5 * fs;
		else if (e->type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("band %s must be an array [low, high] of two frequencies in Hz", what),
					 errhint("For example {\"alpha\": [8, 12], \"gamma\": [30, null]}; null as high means half the sampling rate.")));
		else
		{
			x = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
												   NumericGetDatum(e->val.numeric)));
			if (!isfinite(x))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("band %s has an edge out of range for float8", what)));
		}
		if (i == 0)
			*lo = x;
		else
			*hi = x;
	}
}

static void
parse_bands(JsonbValue *v, double fs, WelchOptions *o)
{
	JsonbContainer *c;
	int			n,
				i;

	if (v->type != jbvBinary)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"bands\" must be an object or an array"),
				 errhint("For example {\"theta\": [4, 8], \"alpha\": [8, 12]} or [[4, 8], [8, 12]].")));
	c = v->val.binary.data;
	n = JsonContainerSize(c);
	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"bands\" must hold at least one band")));
	if (n > GSU_WELCH_MAX_BANDS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("option \"bands\" has %d bands, more than the limit of %d",
						n, GSU_WELCH_MAX_BANDS)));
	o->nbands = n;
	o->bands = palloc(sizeof(WelchBand) * n);
	if (JsonContainerIsArray(c))
	{
		/* [[lo, hi], ...]: in the order given, named "lo-hi" */
		for (i = 0; i < n; i++)
		{
			WelchBand  *b = &o->bands[i];
			char		what[32];

			snprintf(what, sizeof(what), "%d", i + 1);
			read_band_edges(getIthJsonbValueFromContainer(c, i), what, fs, &b->lo, &b->hi);
			b->name = psprintf("%s-%s", edge_text(b->lo), edge_text(b->hi));
		}
	}
	else
	{
		/* {"name": [lo, hi], ...}: jsonb keeps no key order, so by frequency */
		JsonbIterator *it = JsonbIteratorInit(c);
		JsonbValue	kv;
		JsonbIteratorToken tok;

		i = 0;
		while ((tok = JsonbIteratorNext(&it, &kv, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
				o->bands[i].name = pnstrdup(kv.val.string.val, kv.val.string.len);
			else if (tok == WJB_VALUE)
			{
				char	   *what = psprintf("\"%s\"", o->bands[i].name);

				read_band_edges(&kv, what, fs, &o->bands[i].lo, &o->bands[i].hi);
				i++;
			}
		}
		qsort(o->bands, n, sizeof(WelchBand), band_cmp);
	}
}

static void
default_bands(double fs, WelchOptions *o)
{
	static const char *const names[] = {"theta", "slow_alpha", "alpha", "beta", "gamma"};
	static const double lo[] = {4, 8, 8, 12, 30};
	static const double hi[] = {8, 10, 12, 30, -1};
	int			i;

	o->nbands = 5;
	o->bands = palloc(sizeof(WelchBand) * 5);
	o->default_bands = true;
	for (i = 0; i < 5; i++)
	{
		o->bands[i].name = pstrdup(names[i]);
		o->bands[i].lo = lo[i];
		o->bands[i].hi = hi[i] < 0 ? 0.5 * fs : hi[i];
	}
}

static void
parse_welch_options(Jsonb *jb, double fs, WelchOptions *o)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	JsonbValue	v;
	int64		L;
	int			overlap_samples;

	memset(o, 0, sizeof(*o));
	gsu_json_options_object(&cx, jb, welch_keys, "{\"segment_length\": 256, \"overlap\": 0.5}");

	{
		static const char *const names[] = {"hann", "hamming", "rectangular", NULL};
		static const int values[] = {GSU_WINDOW_HANN, GSU_WINDOW_HAMMING, GSU_WINDOW_RECTANGULAR};

		o->p.window = gsu_json_choice_key(&cx, &jb->root, "window", names, values,
							 "Valid windows are: hann, hamming, rectangular.", GSU_WINDOW_HANN);
	}
	{
		static const char *const names[] = {"constant", "linear", "none", NULL};
		static const int values[] = {GSU_DETREND_CONSTANT, GSU_DETREND_LINEAR, GSU_DETREND_NONE};

		o->p.detrend = gsu_json_choice_key(&cx, &jb->root, "detrend", names, values,
							  "Valid detrend values are: constant, linear, none.",
							  GSU_DETREND_CONSTANT);
	}
	{
		static const char *const names[] = {"log", "log10", "db", "linear", NULL};
		static const int values[] = {GSU_SCALE_LOG, GSU_SCALE_LOG10, GSU_SCALE_DB, GSU_SCALE_LINEAR};

		o->p.scale = gsu_json_choice_key(&cx, &jb->root, "scale", names, values,
							"Valid scales are: log (natural), log10, db (10 log10), linear.",
							GSU_SCALE_LOG);
	}
	o->p.ddof = gsu_json_estimator(&cx, &jb->root);

	o->p.floor = 0.0;
	if (gsu_json_number(&cx, &jb->root, "floor", &o->p.floor) && !(o->p.floor >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"floor\" must be zero or positive, not %g", o->p.floor)));

	o->overlap = 0.5;
	if (gsu_json_number(&cx, &jb->root, "overlap", &o->overlap) &&
		!(o->overlap >= 0.0 && o->overlap < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"overlap\" must be in [0, 1), not %g", o->overlap),
				 errhint("It is the fraction of a segment shared with the next one; 0.5 is the usual choice.")));

	if (!gsu_json_int64(&cx, &jb->root, "segment_length", 2, GSU_WELCH_MAX_SEGMENT, &L))
	{
		/* 2 seconds: 0.5 Hz bins, fine enough for the 2 Hz wide slow alpha band */
		double		l2 = rint(2.0 * fs);

		o->default_length = true;
		if (!(l2 >= 2.0 && l2 <= (double) GSU_WELCH_MAX_SEGMENT))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the default segment length, 2 seconds at %g Hz, is %.0f samples, outside [2, %d]",
							fs, l2, GSU_WELCH_MAX_SEGMENT),
					 errhint("Pass the option \"segment_length\" (samples).")));
		L = (int64) l2;
	}
	o->p.segment_length = (int) L;
	overlap_samples = (int) floor(o->overlap * (double) L);
	o->p.step = (int) L - Min(overlap_samples, (int) L - 1);
	o->p.fs = fs;

	if (getKeyJsonValueFromContainer(&jb->root, "bands", 5, &v) != NULL && v.type != jbvNull)
		parse_bands(&v, fs, o);
	else
		default_bands(fs, o);
}

/* Checks every band against fs/2 and the bin spacing fs/L. */
static void
check_bands(const WelchOptions *o)
{
	double		fs = o->p.fs;
	int			i;

	for (i = 0; i < o->nbands; i++)
	{
		const WelchBand *b = &o->bands[i];

		if (!(b->lo < b->hi))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("band \"%s\" must have low < high, not [%g, %g]", b->name, b->lo, b->hi)));
		if (b->lo < 0.0 || b->hi > 0.5 * fs)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("band \"%s\" [%g, %g] Hz is outside [0, %g], the frequencies a signal sampled at %g Hz holds",
							b->name, b->lo, b->hi, 0.5 * fs, fs),
					 o->default_bands ?
					 errhint("The default bands reach 30 Hz and above, which needs a sampling rate above 60 Hz; pass the option \"bands\".") :
					 errhint("A sampled signal holds frequencies up to half its sampling rate (Nyquist).")));
		if (gsu_welch_band_bins(fs, o->p.segment_length, b->lo, b->hi) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("band \"%s\" [%g, %g] Hz holds no frequency bin", b->name, b->lo, b->hi),
					 errdetail("The bins of a %d-sample segment at %g Hz are %g Hz apart.",
							   o->p.segment_length, fs, fs / o->p.segment_length),
					 errhint("Use a longer \"segment_length\" or a wider band.")));
	}
}

/* The signal: a 1-D float8[] of finite samples, read in place. */
static const double *
read_signal(ArrayType *a, int64 *n)
{
	const double *x;
	int64		i;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("signal must be a float8 array")));
	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("signal must not be empty")));
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("signal must be a one-dimensional array, not %d-dimensional",
						ARR_NDIM(a))));
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("signal must not contain NULL elements")));
	*n = ARR_DIMS(a)[0];
	x = (const double *) ARR_DATA_PTR(a);
	for (i = 0; i < *n; i++)
		if (!isfinite(x[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("signal element " INT64_FORMAT " is %s", i + 1,
							isnan(x[i]) ? "NaN" : x[i] > 0 ? "Infinity" : "-Infinity"),
					 errdetail("Every sample must be a finite number.")));
	return x;
}

/*
 * gsu.welch(signal float8[], sampling_rate float8, options jsonb) →
 * gsu.welch_result (mean, variance, band, low, high, segments).
 */
Datum
gsu_welch_sql(PG_FUNCTION_ARGS)
{
	ArrayType  *sig = PG_GETARG_ARRAYTYPE_P(0);
	double		fs = PG_GETARG_FLOAT8(1);
	Jsonb	   *jb = PG_GETARG_JSONB_P(2);
	WelchOptions o;
	int64		n,
				K;
	const double *x;
	double	   *lo,
			   *hi,
			   *mean,
			   *var;
	Datum	   *names;
	gsu_rfft   *plan;
	bool		cached;
	gsu_welch_info info;
	gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);
	gsu_status	s;
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	int			i;

	if (!(fs > 0.0) || !isfinite(fs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sampling_rate must be a positive finite number of samples per second, not %g", fs)));
	x = read_signal(sig, &n);
	parse_welch_options(jb, fs, &o);
	check_bands(&o);

	if (n < o.p.segment_length)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("signal of " INT64_FORMAT " samples is shorter than one segment of %d samples",
						n, o.p.segment_length),
				 o.default_length ?
				 errdetail("The default segment is 2 seconds long.") : 0,
				 errhint("Pass a shorter \"segment_length\", or a longer signal.")));
	K = gsu_welch_segments(n, o.p.segment_length, o.p.step);
	if (K < 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("signal of " INT64_FORMAT " samples gives " INT64_FORMAT " segment, and the variance over segments needs at least 2",
						n, K),
				 errdetail("Segments of %d samples start every %d samples (overlap %g).",
						   o.p.segment_length, o.p.step, o.overlap),
				 errhint("Use a shorter \"segment_length\" or a larger \"overlap\".")));

	o.p.nbands = o.nbands;
	lo = palloc(sizeof(double) * o.nbands);
	hi = palloc(sizeof(double) * o.nbands);
	mean = palloc(sizeof(double) * o.nbands);
	var = palloc(sizeof(double) * o.nbands);
	names = palloc(sizeof(Datum) * o.nbands);
	for (i = 0; i < o.nbands; i++)
	{
		lo[i] = o.bands[i].lo;
		hi[i] = o.bands[i].hi;
		names[i] = CStringGetTextDatum(o.bands[i].name);
	}
	o.p.lo = lo;
	o.p.hi = hi;

	plan = plan_get(o.p.segment_length, &cached);
	s = gsu_welch(x, n, &o.p, plan, mean, var, &info, &pg);
	if (!cached)
		gsu_rfft_destroy(plan);

	if (s == GSU_EINVAL && info.zero_band >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_LOG),
				 errmsg("band \"%s\" has zero power in segment " INT64_FORMAT ", and its logarithm is undefined",
						o.bands[info.zero_band].name, info.zero_segment + 1),
				 errhint("Set the option \"floor\" to a small positive power to take log(max(power, floor)), or use \"scale\": \"linear\".")));
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("band power overflows double precision"),
				 errhint("Scale the signal down.")));
	gsu_report_status(s, "gsu.welch");

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gsu_welch_sql must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = PointerGetDatum(gsu_float8_array(mean, o.nbands));
	values[1] = PointerGetDatum(gsu_float8_array(var, o.nbands));
	values[2] = PointerGetDatum(construct_array(names, o.nbands, TEXTOID, -1, false, TYPALIGN_INT));
	values[3] = PointerGetDatum(gsu_float8_array(lo, o.nbands));
	values[4] = PointerGetDatum(gsu_float8_array(hi, o.nbands));
	values[5] = Int64GetDatum(K);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ========================================================= fisher_score */

/*
 * The state: the moments of each class over one block of doubles, positive
 * class first (gsu_moments_doubles(d, 0) = 3d each).  Chan's merge makes
 * partial states combine exactly.
 */
typedef struct FisherState
{
	int32		ddof;
	int32		d;
	gsu_moments pos;
	gsu_moments neg;
	GsuMemCharge *mem;			/* what the state counts against the limit (gsu_memory.h) */
} FisherState;

#define FISHER_HDR MAXALIGN(sizeof(FisherState))

/* the transition's options, parsed once per value (in fn_extra) */
typedef struct FisherOptionsCache
{
	GsuArgMemo	memo;
	int32		ddof;
} FisherOptionsCache;
#define FISHER_DOUBLES(d) (2 * gsu_moments_doubles((d), 0))

/*
 * A new state of dimension d, counted by mem (in ctx) before it is
 * allocated, with extra bytes besides (a deserialized state's serialized
 * bytes).
 */
static FisherState *
fisher_alloc(MemoryContext ctx, GsuMemCharge *mem, int d, int32 ddof, Size extra)
{
	FisherState *st;
	double	   *block;

	gsu_mem_require(mem, FISHER_HDR + sizeof(double) * FISHER_DOUBLES(d) + extra,
					"gsu.fisher_score", psprintf("A state of %d features", d),
					"Raise gsu.max_training_memory, or score fewer features at a time.");
	st = MemoryContextAllocExtended(ctx, FISHER_HDR + sizeof(double) * FISHER_DOUBLES(d),
									MCXT_ALLOC_HUGE);
	block = (double *) ((char *) st + FISHER_HDR);
	st->mem = mem;
	st->ddof = ddof;
	st->d = d;
	gsu_moments_init(&st->pos, d, 0, block);
	gsu_moments_init(&st->neg, d, 0, block + gsu_moments_doubles(d, 0));
	return st;
}

static int32
fisher_options(Jsonb *jb)
{
	static const char *const keys[] = {"estimator", NULL};
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};

	if (jb == NULL)
		return 1;
	return gsu_json_estimator(&cx, gsu_json_options_object(&cx, jb, keys,
														   "{\"estimator\": \"population\"}"));
}

static void
fisher_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("feature moments overflow double precision"),
			 errdetail("The features are too large (near 1e154 or beyond) for their variance to be represented.")));
}

/* 0 state, 1 features, 2 label (already ±1 here), 3 options (optional) */
static Datum
fisher_add(FunctionCallInfo fcinfo, int32 label)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_fisher_score_transfn");
	FisherState *st = PG_ARGISNULL(0) ? NULL : (FisherState *) PG_GETARG_POINTER(0);
	FisherOptionsCache *oc = (FisherOptionsCache *) fcinfo->flinfo->fn_extra;
	GsuVec		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "features");

	/* the options, parsed again whenever their value changes */
	if (oc == NULL)
		oc = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FisherOptionsCache));
	if (!gsu_arg_memo_same(fcinfo, 3, &oc->memo))
	{
		int32		ddof = fisher_options(PG_NARGS() > 3 && !PG_ARGISNULL(3) ? PG_GETARG_JSONB_P(3) : NULL);

		gsu_arg_memo_set(fcinfo, 3, &oc->memo);
		oc->ddof = ddof;
	}
	if (st == NULL)
		st = fisher_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo), x.n, oc->ddof, 0);
	else
	{
		if (x.n != st->d)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("features has %d elements, but earlier rows have %d", x.n, st->d)));
		if (oc->ddof != st->ddof)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gsu.fisher_score options must be the same for every row of a group"),
					 errdetail("The estimator is read from the first row; a later row has a different one.")));
	}
	if (gsu_moments_add(label > 0 ? &st->pos : &st->neg, x.data) != GSU_OK)
		fisher_overflow();
	PG_RETURN_POINTER(st);
}

/* A row with a NULL features or label is skipped, as aggregates skip NULLs. */
static Datum
fisher_trans(FunctionCallInfo fcinfo, bool bool_label)
{
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		(void) gsu_agg_context(fcinfo, "gsu_fisher_score_transfn");
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	return fisher_add(fcinfo, bool_label ? (PG_GETARG_BOOL(2) ? 1 : -1) :
					  (int32) gsu_check_label(PG_GETARG_INT32(2)));
}

Datum
gsu_fisher_score_transfn(PG_FUNCTION_ARGS)
{
	return fisher_trans(fcinfo, false);
}

Datum
gsu_fisher_score_transfn_bool(PG_FUNCTION_ARGS)
{
	return fisher_trans(fcinfo, true);
}

static FisherState *
fisher_copy(MemoryContext ctx, GsuMemCharge *mem, const FisherState *b)
{
	FisherState *a = fisher_alloc(ctx, mem, b->d, b->ddof, 0);

	memcpy(a->pos.mean, b->pos.mean, sizeof(double) * FISHER_DOUBLES(b->d));
	a->pos.n = b->pos.n;
	a->neg.n = b->neg.n;
	return a;
}

/* Serialized: a fixed header, then the two classes' blocks of doubles. */
typedef struct FisherWire
{
	uint32		magic;
	int32		d;
	int32		ddof;
	int32		reserved;
	int64		n_pos;
	int64		n_neg;
} FisherWire;

#define GSU_FISHER_MAGIC 0x47534631	/* "GSF1" */

/*
 * A worker's state, once combined, is freed; its charge keeps the
 * serialized bytes it came from, which PostgreSQL holds until the workers
 * are done.
 */
static void
fisher_release_deserialized(FisherState *b)
{
	GsuMemCharge *mem = b->mem;

	if (mem == NULL || !mem->deserialized)
		return;
	gsu_mem_set(mem, VARHDRSZ + sizeof(FisherWire) + sizeof(double) * FISHER_DOUBLES(b->d));
	pfree(b);
}

Datum
gsu_fisher_score_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_fisher_score_combinefn");
	FisherState *a = PG_ARGISNULL(0) ? NULL : (FisherState *) PG_GETARG_POINTER(0);
	FisherState *b = PG_ARGISNULL(1) ? NULL : (FisherState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	if (a == NULL)
	{
		/* b is not ours to keep */
		a = fisher_copy(aggctx, gsu_mem_charge(aggctx, fcinfo), b);
		fisher_release_deserialized(b);
		PG_RETURN_POINTER(a);
	}
	if (a->ddof != b->ddof)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine gsu.fisher_score states with different options"),
				 errdetail("The options are read from the first row each worker sees; keep them constant.")));
	if (a->d != b->d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.fisher_score states of dimensions %d and %d", a->d, b->d)));
	if (gsu_moments_merge(&a->pos, &b->pos) != GSU_OK ||
		gsu_moments_merge(&a->neg, &b->neg) != GSU_OK)
		fisher_overflow();
	fisher_release_deserialized(b);
	PG_RETURN_POINTER(a);
}


Datum
gsu_fisher_score_serialfn(PG_FUNCTION_ARGS)
{
	FisherState *st = (FisherState *) PG_GETARG_POINTER(0);
	FisherWire	w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_FISHER_MAGIC;
	w.d = st->d;
	w.ddof = st->ddof;
	w.n_pos = st->pos.n;
	w.n_neg = st->neg.n;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	pq_sendbytes(&buf, (const char *) st->pos.mean, sizeof(double) * FISHER_DOUBLES(st->d));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_fisher_score_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_fisher_score_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	FisherWire	w;
	FisherState *st;

	if (len < sizeof(w))
		gsu_wire_error("gsu.fisher_score", "too short");
	memcpy(&w, p, sizeof(w));
	if (w.magic != GSU_FISHER_MAGIC)
		gsu_wire_error("gsu.fisher_score", "bad magic number");
	if ((w.ddof != 0 && w.ddof != 1) || w.reserved != 0)
		gsu_wire_error("gsu.fisher_score", "bad options");
	if (w.d < 1 || w.d > GSU_MAX_DIM || w.n_pos < 0 || w.n_neg < 0 || w.n_pos + w.n_neg < 1)
		gsu_wire_error("gsu.fisher_score", "bad counts");
	if (len - sizeof(w) != sizeof(double) * FISHER_DOUBLES(w.d))
		gsu_wire_error("gsu.fisher_score", "wrong length");
	/* the state and the serialized bytes it comes from, checked before allocating */
	st = fisher_alloc(aggctx, gsu_mem_charge_deserialized(aggctx), w.d, w.ddof, VARSIZE_ANY(in));
	memcpy(st->pos.mean, p + sizeof(w), len - sizeof(w));
	st->pos.n = w.n_pos;
	st->neg.n = w.n_neg;
	if (gsu_moments_validate(&st->pos) != GSU_OK || gsu_moments_validate(&st->neg) != GSU_OK)
		gsu_wire_error("gsu.fisher_score", "inconsistent values");
	PG_RETURN_POINTER(st);
}

/*
 * NULL without rows, or when a class has too few rows for its variance
 * (none, or one with the sample estimator), as var_samp is NULL on one row.
 */
Datum
gsu_fisher_score_finalfn(PG_FUNCTION_ARGS)
{
	FisherState *st = PG_ARGISNULL(0) ? NULL : (FisherState *) PG_GETARG_POINTER(0);
	ArrayType  *out;

	(void) gsu_agg_context(fcinfo, "gsu_fisher_score_finalfn");
	if (st == NULL || st->pos.n <= st->ddof || st->neg.n <= st->ddof)
		PG_RETURN_NULL();
	out = gsu_new_float8_array(1, st->d, 0);
	gsu_report_status(gsu_fisher_score(&st->pos, &st->neg, st->ddof, (double *) ARR_DATA_PTR(out)),
					  "gsu.fisher_score");
	PG_RETURN_ARRAYTYPE_P(out);
}
