/*
 * gsu_evaluation_ranking.c — the ranking metrics gsu.roc_auc, gsu.average_precision,
 * gsu.roc_curve and gsu.pr_curve: one state (the scores of the positive and
 * of the negative rows, bounded by gsu.max_training_memory) for all four, so
 * that one query computing several buffers the rows once.  The math is in
 * core/gsu_metrics.c.
 */
#include "gsu_evaluation.h"
#include "gsu_json.h"
#include "gsu_memory.h"
#include "core/gsu_metrics.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"


PG_FUNCTION_INFO_V1(gsu_ranking_transfn);
PG_FUNCTION_INFO_V1(gsu_ranking_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_ranking_combinefn);
PG_FUNCTION_INFO_V1(gsu_ranking_serialfn);
PG_FUNCTION_INFO_V1(gsu_ranking_deserialfn);
PG_FUNCTION_INFO_V1(gsu_roc_auc_finalfn);
PG_FUNCTION_INFO_V1(gsu_average_precision_finalfn);
PG_FUNCTION_INFO_V1(gsu_roc_curve_finalfn);
PG_FUNCTION_INFO_V1(gsu_pr_curve_finalfn);

#define GSU_RANKING_MAGIC 0x47535552	/* "GSUR" */

/* ======================================================= ranking metrics */

typedef struct GsuRankingState
{
	int64		n_pos;
	int64		n_neg;
	int64		cap_pos;
	int64		cap_neg;
	double	   *pos;			/* scores of the rows labelled 1 */
	double	   *neg;			/* scores of the rows labelled −1 */
	bool		sorted;			/* both arrays ascending */
	GsuMemCharge *mem;			/* what the arrays count against the limit (gsu_memory.h) */
	Size		wire_bytes;		/* a deserialized state: the bytes it came from */
} GsuRankingState;

static void
ranking_limit_error(const GsuRankingState *st, int64 rows)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("ranking metric needs more than gsu.max_training_memory (%d kB)",
					gsu_max_training_memory_kb),
			 errdetail("Buffering " INT64_FORMAT " scores takes 8 bytes each.", rows),
			 gsu_mem_errhint(st->mem, "Raise gsu.max_training_memory, or evaluate a sample of the rows.")));
}

/* the scores st may hold: its share of the limit, less a deserialized state's received bytes */
static int64
ranking_limit_rows(const GsuRankingState *st)
{
	return (int64) (gsu_mem_room_for(st->mem, st->wire_bytes) / sizeof(double));
}

/* what st's arrays hold at their capacities, counted by its charge */
static void
ranking_account(GsuRankingState *st)
{
	if (st->mem)
		gsu_mem_set(st->mem, sizeof(double) * (Size) (st->cap_pos + st->cap_neg) + st->wire_bytes);
}

/* a new state in the current (aggregate) context, with its charge */
static GsuRankingState *
ranking_new(GsuMemCharge *mem)
{
	GsuRankingState *st = palloc0(sizeof(GsuRankingState));

	st->mem = mem;
	return st;
}

static double *
resize(double *p, int64 cap)
{
	Size		bytes = sizeof(double) * (Size) Max(cap, 1);

	if (p == NULL)
		return palloc_extended(bytes, MCXT_ALLOC_HUGE);
	return repalloc_huge(p, bytes);
}

/*
 * Makes room for extra more scores of one class, keeping the capacity of
 * both arrays within gsu.max_training_memory; call in the aggregate context.
 */
static void
ranking_reserve(GsuRankingState *st, bool positive, int64 extra)
{
	int64		limit_rows = ranking_limit_rows(st);
	int64	   *n = positive ? &st->n_pos : &st->n_neg;
	int64	   *cap = positive ? &st->cap_pos : &st->cap_neg;
	int64	   *other_n = positive ? &st->n_neg : &st->n_pos;
	int64	   *other_cap = positive ? &st->cap_neg : &st->cap_pos;
	double	  **arr = positive ? &st->pos : &st->neg;
	double	  **other_arr = positive ? &st->neg : &st->pos;
	int64		need,
				newcap;

	if (extra > limit_rows || *n > limit_rows - extra)
		ranking_limit_error(st, st->n_pos + st->n_neg + extra);
	need = *n + extra;
	if (need <= *cap)
		return;
	if (need > limit_rows - *other_n)
		ranking_limit_error(st, st->n_pos + st->n_neg + extra);
	newcap = Max(Max(need, 64), *cap * 2);
	if (newcap > limit_rows - *other_cap)
	{
		/* near the limit: give the other array's slack back, then fit */
		if (*other_cap > *other_n)
		{
			*other_arr = resize(*other_arr, *other_n);
			*other_cap = *other_n;
		}
		newcap = Max(need, Min(newcap, limit_rows - *other_cap));
	}
	*arr = resize(*arr, newcap);
	*cap = newcap;
	ranking_account(st);
}

static void
ranking_push(GsuRankingState *st, bool positive, double score)
{
	ranking_reserve(st, positive, 1);
	if (positive)
		st->pos[st->n_pos++] = score;
	else
		st->neg[st->n_neg++] = score;
	st->sorted = false;
}

static Datum
ranking_trans(FunctionCallInfo fcinfo, bool bool_label)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_ranking_transfn");
	GsuRankingState *st = PG_ARGISNULL(0) ? NULL : (GsuRankingState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	double		score;
	bool		positive;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	score = PG_GETARG_FLOAT8(1);
	gsu_eval_check_score(score);
	positive = bool_label ? PG_GETARG_BOOL(2) : gsu_eval_binary_label(PG_GETARG_INT32(2));
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL)
		st = ranking_new(gsu_mem_charge(aggctx, fcinfo));
	ranking_push(st, positive, score);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_ranking_transfn(PG_FUNCTION_ARGS)
{
	return ranking_trans(fcinfo, false);
}

Datum
gsu_ranking_bool_transfn(PG_FUNCTION_ARGS)
{
	return ranking_trans(fcinfo, true);
}

Datum
gsu_ranking_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_ranking_combinefn");
	GsuRankingState *a = PG_ARGISNULL(0) ? NULL : (GsuRankingState *) PG_GETARG_POINTER(0);
	GsuRankingState *b = PG_ARGISNULL(1) ? NULL : (GsuRankingState *) PG_GETARG_POINTER(1);
	MemoryContext old;

	if (b == NULL)
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = ranking_new(gsu_mem_charge(aggctx, fcinfo));
	/* A + B, checked before anything grows */
	if (b->n_pos + b->n_neg > ranking_limit_rows(a) - a->n_pos - a->n_neg)
		ranking_limit_error(a, a->n_pos + a->n_neg + b->n_pos + b->n_neg);
	if (b->n_pos > 0)
	{
		ranking_reserve(a, true, b->n_pos);
		memcpy(a->pos + a->n_pos, b->pos, sizeof(double) * (Size) b->n_pos);
		a->n_pos += b->n_pos;
	}
	if (b->n_neg > 0)
	{
		ranking_reserve(a, false, b->n_neg);
		memcpy(a->neg + a->n_neg, b->neg, sizeof(double) * (Size) b->n_neg);
		a->n_neg += b->n_neg;
	}
	a->sorted = false;
	if (b->mem != NULL && b->mem->deserialized)
	{
		/* a worker's state, now in a: only its received bytes stay counted */
		if (b->pos)
			pfree(b->pos);
		if (b->neg)
			pfree(b->neg);
		b->pos = b->neg = NULL;
		b->n_pos = b->n_neg = b->cap_pos = b->cap_neg = 0;
		ranking_account(b);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* serialized: this header, then n_pos and n_neg float8 scores */
typedef struct GsuRankingWire
{
	uint32		magic;
	uint32		reserved;		/* zero */
	int64		n_pos;
	int64		n_neg;
} GsuRankingWire;

Datum
gsu_ranking_serialfn(PG_FUNCTION_ARGS)
{
	GsuRankingState *st = (GsuRankingState *) PG_GETARG_POINTER(0);
	GsuRankingWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_RANKING_MAGIC;
	w.n_pos = st->n_pos;
	w.n_neg = st->n_neg;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	if (st->n_pos > 0)
		pq_sendbytes(&buf, (const char *) st->pos, sizeof(double) * (Size) st->n_pos);
	if (st->n_neg > 0)
		pq_sendbytes(&buf, (const char *) st->neg, sizeof(double) * (Size) st->n_neg);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_ranking_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_ranking_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuRankingWire w;
	GsuRankingState *st;
	MemoryContext old;
	int64		i;

	if (len < sizeof(w))
		gsu_wire_error("ranking metric", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != GSU_RANKING_MAGIC)
		gsu_wire_error("ranking metric", "bad magic number");
	if (w.reserved != 0)
		gsu_wire_error("ranking metric", "reserved field is not zero");
	if (w.n_pos < 0 || w.n_neg < 0 ||
		w.n_pos > (int64) (MaxAllocHugeSize / sizeof(double)) ||
		w.n_neg > (int64) (MaxAllocHugeSize / sizeof(double)))
		gsu_wire_error("ranking metric", "bad counts");
	if ((len - sizeof(w)) / sizeof(double) != (Size) (w.n_pos + w.n_neg) ||
		(len - sizeof(w)) % sizeof(double) != 0)
		gsu_wire_error("ranking metric", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = ranking_new(gsu_mem_charge_deserialized(aggctx));
	st->wire_bytes = VARSIZE_ANY(in);
	/* the scores and the serialized bytes they come from, before allocating */
	if (w.n_pos + w.n_neg > ranking_limit_rows(st))
		ranking_limit_error(st, w.n_pos + w.n_neg);
	if (w.n_pos > 0)
	{
		ranking_reserve(st, true, w.n_pos);
		memcpy(st->pos, p, sizeof(double) * (Size) w.n_pos);
		p += sizeof(double) * (Size) w.n_pos;
		st->n_pos = w.n_pos;
	}
	if (w.n_neg > 0)
	{
		ranking_reserve(st, false, w.n_neg);
		memcpy(st->neg, p, sizeof(double) * (Size) w.n_neg);
		st->n_neg = w.n_neg;
	}
	MemoryContextSwitchTo(old);
	for (i = 0; i < st->n_pos; i++)
		if (isnan(st->pos[i]))
			gsu_wire_error("ranking metric", "NaN score");
	for (i = 0; i < st->n_neg; i++)
		if (isnan(st->neg[i]))
			gsu_wire_error("ranking metric", "NaN score");
	PG_RETURN_POINTER(st);
}

/* the state with both arrays sorted, or NULL when there is none */
static GsuRankingState *
ranking_final_state(FunctionCallInfo fcinfo)
{
	GsuRankingState *st = PG_ARGISNULL(0) ? NULL : (GsuRankingState *) PG_GETARG_POINTER(0);

	(void) gsu_agg_context(fcinfo, "ranking metric final function");
	if (st == NULL)
		return NULL;
	if (!st->sorted)
	{
		gsu_report_status(gsu_sort_doubles(st->pos, (size_t) st->n_pos,
										   gsu_interrupt_pending, NULL), "ranking metric");
		gsu_report_status(gsu_sort_doubles(st->neg, (size_t) st->n_neg,
										   gsu_interrupt_pending, NULL), "ranking metric");
		st->sorted = true;
	}
	return st;
}

Datum
gsu_roc_auc_finalfn(PG_FUNCTION_ARGS)
{
	GsuRankingState *st = ranking_final_state(fcinfo);

	/* one class only: the AUC is undefined */
	if (st == NULL || st->n_pos == 0 || st->n_neg == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(gsu_roc_auc(st->pos, st->n_pos, st->neg, st->n_neg));
}

Datum
gsu_average_precision_finalfn(PG_FUNCTION_ARGS)
{
	GsuRankingState *st = ranking_final_state(fcinfo);

	/* no positive row: recall, hence AP, is undefined */
	if (st == NULL || st->n_pos == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(gsu_average_precision(st->pos, st->n_pos, st->neg, st->n_neg));
}

static gsu_curve_point *
ranking_points(GsuRankingState *st, const char *what, size_t extra, size_t *g)
{
	gsu_curve_point *pts;

	*g = gsu_rank_count_groups(st->pos, st->n_pos, st->neg, st->n_neg);
	if (*g + extra > GSU_CURVE_MAX_POINTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s would have %zu points, more than the limit of %d",
						what, *g + extra, GSU_CURVE_MAX_POINTS),
				 errdetail("A curve has one point per distinct score."),
				 errhint("Round the scores, e.g. round(score::numeric, 4)::float8, "
						 "to group them into fewer thresholds.")));
	pts = palloc(sizeof(gsu_curve_point) * Max(*g, 1));
	gsu_rank_curve(st->pos, st->n_pos, st->neg, st->n_neg, pts);
	return pts;
}

Datum
gsu_roc_curve_finalfn(PG_FUNCTION_ARGS)
{
	GsuRankingState *st = ranking_final_state(fcinfo);
	gsu_curve_point *pts;
	StringInfoData buf;
	size_t		g,
				i;

	if (st == NULL || st->n_pos == 0 || st->n_neg == 0)
		PG_RETURN_NULL();
	pts = ranking_points(st, "roc curve", 1, &g);
	initStringInfo(&buf);
	/* the origin: a threshold above every score calls no row positive */
	appendStringInfoString(&buf, "[{\"threshold\": null, \"tp\": 0, \"fp\": 0, "
						   "\"fpr\": 0, \"tpr\": 0}");
	for (i = 0; i < g; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		appendStringInfoString(&buf, ", {");
		gsu_eval_append_kd(&buf, "threshold", pts[i].threshold);
		gsu_eval_append_ki(&buf, "tp", pts[i].tp);
		gsu_eval_append_ki(&buf, "fp", pts[i].fp);
		gsu_eval_append_kd(&buf, "fpr", pts[i].fpr);
		gsu_eval_append_kd(&buf, "tpr", pts[i].tpr);
		gsu_eval_trim_comma(&buf);
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, ']');
	PG_RETURN_JSONB_P(gsu_eval_text_to_jsonb(&buf));
}

Datum
gsu_pr_curve_finalfn(PG_FUNCTION_ARGS)
{
	GsuRankingState *st = ranking_final_state(fcinfo);
	gsu_curve_point *pts;
	StringInfoData buf;
	size_t		g,
				i;

	if (st == NULL || st->n_pos == 0)
		PG_RETURN_NULL();
	pts = ranking_points(st, "precision-recall curve", 0, &g);
	initStringInfo(&buf);
	appendStringInfoChar(&buf, '[');
	for (i = 0; i < g; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoChar(&buf, '{');
		gsu_eval_append_kd(&buf, "threshold", pts[i].threshold);
		gsu_eval_append_ki(&buf, "tp", pts[i].tp);
		gsu_eval_append_ki(&buf, "fp", pts[i].fp);
		gsu_eval_append_kd(&buf, "precision", pts[i].precision);
		gsu_eval_append_kd(&buf, "recall", pts[i].tpr);
		gsu_eval_trim_comma(&buf);
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, ']');
	PG_RETURN_JSONB_P(gsu_eval_text_to_jsonb(&buf));
}

