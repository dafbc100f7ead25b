/*
 * gsu_uncertainty_moments.c — the gsu.moments aggregate: per-group mean, variance (or
 * full covariance) and count of raw observation vectors, e.g. the frames of
 * a video, giving the Gaussian N(mean, Σ) of each group as a training row
 * (Tzelepis et al., TPAMI 2018, Sect. 4.6).  The math (Welford update,
 * Chan et al. merge, double-double mean) is in src/core/gsu_moments.c.
 *
 * The state is created with the first non-NULL observation, which fixes the
 * dimension and reads the options.  Parallel workers' states merge exactly
 * (Chan's formula), so a parallel plan gives the serial result up to
 * rounding.
 */
#include "gsu_glue.h"
#include "gsu_json.h"
#include "gsu_memory.h"
#include "core/gsu_moments.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_moments_transfn);
PG_FUNCTION_INFO_V1(gsu_moments_combinefn);
PG_FUNCTION_INFO_V1(gsu_moments_serialfn);
PG_FUNCTION_INFO_V1(gsu_moments_deserialfn);
PG_FUNCTION_INFO_V1(gsu_moments_finalfn);

/* The full covariance state and result hold d² doubles: 128 MB at this d. */
#define GSU_MOMENTS_MAX_FULL_DIM 4096

typedef struct GsuMomentsState
{
	int32		ddof;			/* 1: sample estimator, 0: population */
	int32		full;			/* 1: full covariance, 0: diagonal */
	GsuMemCharge *mem;			/* what the state counts (gsu_memory.h) */
	gsu_moments m;				/* its numbers follow the struct */
} GsuMomentsState;

#define MOMENTS_STATE_HDR MAXALIGN(sizeof(GsuMomentsState))

/* the transition's options, parsed once per value (in fn_extra) */
typedef struct OptionsCache
{
	GsuArgMemo	memo;
	int32		ddof;
	int32		full;
} OptionsCache;

static const char *const option_keys[] = {"estimator", "covariance", NULL};

static void
parse_options(Jsonb *jb, int32 *ddof, int32 *full)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};

	*ddof = 1;
	*full = 0;
	if (jb == NULL)
		return;
	gsu_json_options_object(&cx, jb, option_keys, "{\"estimator\": \"population\", \"covariance\": \"full\"}");
	*ddof = gsu_json_estimator(&cx, &jb->root);
	{
		static const char *const names[] = {"diagonal", "full", NULL};
		static const int values[] = {0, 1};

		*full = gsu_json_choice_key(&cx, &jb->root, "covariance", names, values,
									"Valid covariances are: diagonal, full.", 0);
	}
}

static void
check_full_dim(int d)
{
	if (d > GSU_MOMENTS_MAX_FULL_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("observation has %d elements, more than the limit of %d for a full covariance",
						d, GSU_MOMENTS_MAX_FULL_DIM),
				 errdetail("A full covariance holds d^2 numbers in the aggregate state and in the result."),
				 errhint("Use '{\"covariance\": \"diagonal\"}' for the per-feature variances.")));
}

/*
 * The limit's error for a state (or a result) of dimension d: a full
 * covariance is d² numbers.
 */
static void
check_memory(GsuMemCharge *mem, int d, int32 full, Size bytes, const char *what)
{
	gsu_mem_require(mem, bytes, "gsu.moments",
					psprintf("%s of dimension %d with %s", what, d,
							 full ? "a full covariance" : "diagonal variances"),
					full ? "Raise gsu.max_training_memory, or use '{\"covariance\": \"diagonal\"}' for the per-feature variances." :
					"Raise gsu.max_training_memory.");
}

static Size
state_bytes(int d, int32 full)
{
	return MOMENTS_STATE_HDR + sizeof(double) * gsu_moments_doubles(d, full);
}

/*
 * A new empty state, one block: the header, then the core's numbers,
 * counted against the limit by mem (in ctx) before it is allocated; extra:
 * bytes that the state counts besides its own (a deserialized state's
 * serialized bytes).
 */
static GsuMomentsState *
state_alloc(MemoryContext ctx, GsuMemCharge *mem, int d, int32 ddof, int32 full, Size extra)
{
	size_t		nd = gsu_moments_doubles(d, full);
	GsuMomentsState *st;

	check_memory(mem, d, full, state_bytes(d, full) + extra, "A state");
	st = MemoryContextAllocExtended(ctx, MOMENTS_STATE_HDR + sizeof(double) * nd,
									MCXT_ALLOC_HUGE);
	st->ddof = ddof;
	st->full = full;
	st->mem = mem;
	gsu_moments_init(&st->m, d, full, (double *) ((char *) st + MOMENTS_STATE_HDR));
	return st;
}

static Size
state_size(const GsuMomentsState *st)
{
	return MOMENTS_STATE_HDR + sizeof(double) * gsu_moments_doubles(st->m.d, st->full);
}

static void
report_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("moments overflow double precision"),
			 errdetail("The observations are too large (near 1.8e308) for their mean or variance to be represented.")));
}

/*
 * Transition: 0 state, 1 observation, 2 options (optional).  A NULL
 * observation is skipped, as aggregates skip NULLs.
 */
Datum
gsu_moments_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_moments_transfn");
	GsuMomentsState *st = PG_ARGISNULL(0) ? NULL : (GsuMomentsState *) PG_GETARG_POINTER(0);
	OptionsCache *oc = (OptionsCache *) fcinfo->flinfo->fn_extra;
	GsuVec		x;

	if (PG_ARGISNULL(1))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "observation");
	/* the options, parsed again whenever their value changes */
	if (oc == NULL)
		oc = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(OptionsCache));
	if (!gsu_arg_memo_same(fcinfo, 2, &oc->memo))
	{
		int32		ddof,
					full;

		parse_options(PG_NARGS() > 2 && !PG_ARGISNULL(2) ? PG_GETARG_JSONB_P(2) : NULL, &ddof, &full);
		gsu_arg_memo_set(fcinfo, 2, &oc->memo);
		oc->ddof = ddof;
		oc->full = full;
	}
	if (st == NULL)
	{
		if (oc->full)
			check_full_dim(x.n);
		st = state_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo), x.n, oc->ddof, oc->full, 0);
	}
	else
	{
		if (x.n != st->m.d)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("observation has %d elements, but earlier rows have %d",
							x.n, st->m.d)));
		/* the options must say the same on every row */
		if (oc->ddof != st->ddof || oc->full != st->full)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gsu.moments options must be the same for every row of a group"),
					 errdetail("The estimator and covariance are read from the first row; a later row has different ones.")));
	}
	if (gsu_moments_add(&st->m, x.data) != GSU_OK)
		report_overflow();
	PG_RETURN_POINTER(st);
}

/* ------------------------------------------------------------- parallel */

/*
 * Serialized state: a fixed header, then the core's block of doubles
 * (mean, its rounding error, M2).  Only parallel workers of the same server
 * produce it, but it is checked as if it were hostile.
 */
typedef struct GsuMomentsWire
{
	uint32		magic;
	int32		d;
	int32		ddof;
	int32		full;
	int64		n;
} GsuMomentsWire;

#define GSU_MOMENTS_MAGIC 0x47534d31	/* "GSM1" */

/*
 * A worker's state, once combined, is freed; its charge keeps the serialized
 * bytes it came from, which PostgreSQL holds until the workers are done.
 */
static void
release_deserialized(GsuMomentsState *b)
{
	GsuMemCharge *mem = b->mem;

	if (mem == NULL || !mem->deserialized)
		return;
	gsu_mem_set(mem, VARHDRSZ + sizeof(GsuMomentsWire) +
				sizeof(double) * gsu_moments_doubles(b->m.d, b->full));
	pfree(b);
}

Datum
gsu_moments_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_moments_combinefn");
	GsuMomentsState *a = PG_ARGISNULL(0) ? NULL : (GsuMomentsState *) PG_GETARG_POINTER(0);
	GsuMomentsState *b = PG_ARGISNULL(1) ? NULL : (GsuMomentsState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	if (a == NULL)
	{
		/* a copy in the aggregate context; b is not ours to keep */
		Size		sz = state_size(b);
		GsuMemCharge *mem = gsu_mem_charge(aggctx, fcinfo);

		check_memory(mem, b->m.d, b->full, sz, "A state");
		a = MemoryContextAllocExtended(aggctx, sz, MCXT_ALLOC_HUGE);
		memcpy(a, b, sz);
		a->mem = mem;
		gsu_moments_attach(&a->m, b->m.d, b->full, b->m.n,
						   (double *) ((char *) a + MOMENTS_STATE_HDR));
		release_deserialized(b);
		PG_RETURN_POINTER(a);
	}
	if (a->ddof != b->ddof || a->full != b->full)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine gsu.moments states with different options"),
				 errdetail("The options are read from the first row each worker sees; keep them constant.")));
	if (a->m.d != b->m.d)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.moments states of dimensions %d and %d",
						a->m.d, b->m.d)));
	if (gsu_moments_merge(&a->m, &b->m) != GSU_OK)
		report_overflow();
	release_deserialized(b);
	PG_RETURN_POINTER(a);
}

Datum
gsu_moments_serialfn(PG_FUNCTION_ARGS)
{
	GsuMomentsState *st = (GsuMomentsState *) PG_GETARG_POINTER(0);
	GsuMomentsWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_MOMENTS_MAGIC;
	w.d = st->m.d;
	w.ddof = st->ddof;
	w.full = st->full;
	w.n = st->m.n;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	pq_sendbytes(&buf, (const char *) st->m.mean,
				 sizeof(double) * gsu_moments_doubles(st->m.d, st->full));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_moments_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_moments_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuMomentsWire w;
	GsuMomentsState *st;

	if (len < sizeof(w))
		gsu_wire_error("gsu.moments", "too short");
	memcpy(&w, p, sizeof(w));
	if (w.magic != GSU_MOMENTS_MAGIC)
		gsu_wire_error("gsu.moments", "bad magic number");
	if ((w.ddof != 0 && w.ddof != 1) || (w.full != 0 && w.full != 1))
		gsu_wire_error("gsu.moments", "bad options");
	if (w.d < 1 || w.d > GSU_MAX_DIM || (w.full && w.d > GSU_MOMENTS_MAX_FULL_DIM) ||
		w.n < 1)
		gsu_wire_error("gsu.moments", "bad counts");
	if (len - sizeof(w) != sizeof(double) * gsu_moments_doubles(w.d, w.full))
		gsu_wire_error("gsu.moments", "wrong length");
	/* the state and the serialized bytes it comes from, checked before allocating */
	st = state_alloc(aggctx, gsu_mem_charge_deserialized(aggctx), w.d, w.ddof, w.full,
					 VARSIZE_ANY(in));
	memcpy(st->m.mean, p + sizeof(w), len - sizeof(w));
	st->m.n = w.n;
	if (gsu_moments_validate(&st->m) != GSU_OK)
		gsu_wire_error("gsu.moments", "inconsistent values");
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------- final */


Datum
gsu_moments_finalfn(PG_FUNCTION_ARGS)
{
	GsuMomentsState *st = PG_ARGISNULL(0) ? NULL : (GsuMomentsState *) PG_GETARG_POINTER(0);
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int			d;
	ArrayType  *mean;

	(void) gsu_agg_context(fcinfo, "gsu_moments_finalfn");
	if (st == NULL || st->m.n == 0)
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gsu_moments_finalfn must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);
	d = st->m.d;

	/*
	 * The result holds the mean and the covariance (d² numbers for a full
	 * one), in their arrays and again in the tuple: counted until its context
	 * goes, besides the state
	 */
	if (st->mem != NULL)
	{
		GsuMemCharge *res = gsu_mem_charge(CurrentMemoryContext, fcinfo);
		Size		arrays = 2 * (ARR_OVERHEAD_NONULLS(2) + sizeof(double) *
								  ((Size) d + (st->full ? (Size) d * d : (Size) d)));

		res->copies = 1;
		check_memory(res, d, st->full, arrays, "The result");
	}

	mean = gsu_new_float8_array(1, d, 0);
	memcpy(ARR_DATA_PTR(mean), st->m.mean, sizeof(double) * d);
	values[0] = PointerGetDatum(mean);

	/* the sample estimator is undefined for one row: NULL, not a made-up 0 */
	if (st->m.n - st->ddof <= 0)
		nulls[1] = true;
	else
	{
		ArrayType  *var = gsu_new_float8_array(st->full ? 2 : 1, d, d);

		gsu_status	s = gsu_moments_covariance(&st->m, st->ddof, (double *) ARR_DATA_PTR(var));

		if (s == GSU_ENOTFINITE)
			report_overflow();
		gsu_report_status(s, "gsu.moments");
		values[1] = PointerGetDatum(var);
	}
	values[2] = Int64GetDatum(st->m.n);

	/*
	 * The result as a palloc'd chunk of its own: HeapTupleGetDatum of a
	 * formed tuple points inside its chunk, which the executor copies again
	 * (a fourth d² block).  The arrays go before the copy is made, so at
	 * most two copies of the result are held, as counted above.
	 */
	{
		HeapTuple	tuple = heap_form_tuple(tupdesc, values, nulls);
		Datum		result;

		pfree(mean);
		if (!nulls[1])
			pfree(DatumGetPointer(values[1]));
		result = heap_copy_tuple_as_datum(tuple, tupdesc);
		heap_freetuple(tuple);
		PG_RETURN_DATUM(result);
	}
}
