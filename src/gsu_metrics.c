/*
 * gsu_metrics.c — evaluation aggregates: gsu.confusion, gsu.roc_auc,
 * gsu.average_precision, gsu.roc_curve, gsu.pr_curve and gsu.log_loss.
 * The math is in core/gsu_metrics.c; this file holds the aggregate states,
 * their parallel combine / serial / deserial functions, input checks and
 * the jsonb results.
 *
 * Three kinds of state:
 *  - confusion: a hash table of (predicted, actual) → count cells; combine
 *    adds counts, so parallel results are exact;
 *  - ranking (shared by roc_auc, average_precision, roc_curve, pr_curve,
 *    which have the same transition function, so one query computing
 *    several of them buffers the rows once): the scores of the positive and
 *    of the negative rows in two arrays, 8 bytes per row, bounded by
 *    gsu.max_training_memory; combine concatenates; the final functions sort
 *    the arrays in place (the multiset, hence every result, is unchanged);
 *  - log loss: a row count and a compensated sum.
 */
#include "gsu_glue.h"
#include "gsu_json.h"
#include "core/gsu_metrics.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_confusion_transfn);
PG_FUNCTION_INFO_V1(gsu_confusion_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_confusion_combinefn);
PG_FUNCTION_INFO_V1(gsu_confusion_serialfn);
PG_FUNCTION_INFO_V1(gsu_confusion_deserialfn);
PG_FUNCTION_INFO_V1(gsu_confusion_finalfn);
PG_FUNCTION_INFO_V1(gsu_ranking_transfn);
PG_FUNCTION_INFO_V1(gsu_ranking_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_ranking_combinefn);
PG_FUNCTION_INFO_V1(gsu_ranking_serialfn);
PG_FUNCTION_INFO_V1(gsu_ranking_deserialfn);
PG_FUNCTION_INFO_V1(gsu_roc_auc_finalfn);
PG_FUNCTION_INFO_V1(gsu_average_precision_finalfn);
PG_FUNCTION_INFO_V1(gsu_roc_curve_finalfn);
PG_FUNCTION_INFO_V1(gsu_pr_curve_finalfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_transfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_combinefn);
PG_FUNCTION_INFO_V1(gsu_log_loss_serialfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_deserialfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_finalfn);

/* a curve with more points than this is an error (jsonb would near its 256 MB limit) */
#define GSU_CURVE_MAX_POINTS 1000000
/* more distinct labels than this in gsu.confusion is an error */
#define GSU_CONFUSION_MAX_CLASSES 100000

#define GSU_CONFUSION_MAGIC 0x47535543	/* "GSUC" */
#define GSU_RANKING_MAGIC 0x47535552	/* "GSUR" */
#define GSU_LOG_LOSS_MAGIC 0x4753554C	/* "GSUL" */

/* ------------------------------------------------------------- helpers */

static Size
memory_limit(void)
{
	return (Size) gsu_max_training_memory_kb * 1024;
}

/* −1/+1 → false/true; anything else is an error */
static bool
binary_label(int32 label)
{
	if (label == 1)
		return true;
	if (label != -1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("label must be -1 or 1, not %d", label),
				 errhint("Binary metrics take labels -1 and 1, with 1 the positive class; "
						 "pass 2 * label - 1 for 0/1 labels, or a boolean such as label = 1.")));
	return false;
}

static void
check_score(double s)
{
	if (isnan(s))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("score is NaN"),
				 errdetail("Scores are ranked, and NaN has no rank.")));
}

/* a double or, for NaN (an undefined ratio), null */
static void
append_double_or_null(StringInfo buf, double x)
{
	if (isnan(x))
		appendStringInfoString(buf, "null");
	else if (isinf(x))
		appendStringInfoString(buf, x > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		gsu_append_double(buf, x);
}

static void
append_kd(StringInfo buf, const char *key, double x)
{
	appendStringInfo(buf, "\"%s\": ", key);
	append_double_or_null(buf, x);
	appendStringInfoString(buf, ", ");
}

static void
append_ki(StringInfo buf, const char *key, int64 x)
{
	appendStringInfo(buf, "\"%s\": " INT64_FORMAT ", ", key, x);
}

/* drops a trailing ", " */
static void
trim_comma(StringInfo buf)
{
	if (buf->len >= 2 && buf->data[buf->len - 2] == ',')
	{
		buf->len -= 2;
		buf->data[buf->len] = '\0';
	}
}

static Jsonb *
text_to_jsonb(StringInfo buf)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf->data)));
}

/* ====================================================== confusion matrix */

typedef struct GsuConfusionState
{
	int64		n;				/* rows counted */
	int32		ncells;
	int32		capcells;
	gsu_confusion_cell *cells;
	uint32	   *slots;			/* open addressing: cell index + 1, 0 empty */
	uint32		nslots;			/* power of two, ≥ 2·capcells */
	int32		last;			/* the cell of the previous row */
} GsuConfusionState;

static inline uint32
cell_hash(int32 predicted, int32 actual)
{
	uint64		k = ((uint64) (uint32) predicted << 32) | (uint32) actual;

	/* MurmurHash3's 64-bit finalizer */
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return (uint32) k;
}

static Size
confusion_bytes(int64 capcells)
{
	/* cells plus a table of at least 2 slots per cell */
	return (Size) capcells * (sizeof(gsu_confusion_cell) + 2 * sizeof(uint32));
}

static void
confusion_rehash(GsuConfusionState *st, uint32 nslots)
{
	int32		i;

	if (st->slots)
		pfree(st->slots);
	st->slots = palloc_extended(sizeof(uint32) * (Size) nslots,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	st->nslots = nslots;
	for (i = 0; i < st->ncells; i++)
	{
		uint32		h = cell_hash(st->cells[i].predicted, st->cells[i].actual) & (nslots - 1);

		while (st->slots[h] != 0)
			h = (h + 1) & (nslots - 1);
		st->slots[h] = (uint32) i + 1;
	}
}

/* call in the aggregate context */
static GsuConfusionState *
confusion_create(void)
{
	GsuConfusionState *st = palloc0(sizeof(GsuConfusionState));

	st->capcells = 8;
	st->cells = palloc(sizeof(gsu_confusion_cell) * st->capcells);
	confusion_rehash(st, 16);
	return st;
}

/* adds count rows to the (predicted, actual) cell; call in the aggregate context */
static void
confusion_add(GsuConfusionState *st, int32 predicted, int32 actual, int64 count)
{
	uint32		h;

	if (count > PG_INT64_MAX - st->n)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsu.confusion counted more than " INT64_FORMAT " rows", PG_INT64_MAX)));
	st->n += count;
	if (st->ncells > 0 && st->cells[st->last].predicted == predicted &&
		st->cells[st->last].actual == actual)
	{
		st->cells[st->last].count += count;
		return;
	}
	h = cell_hash(predicted, actual) & (st->nslots - 1);
	while (st->slots[h] != 0)
	{
		gsu_confusion_cell *c = &st->cells[st->slots[h] - 1];

		if (c->predicted == predicted && c->actual == actual)
		{
			c->count += count;
			st->last = (int32) (st->slots[h] - 1);
			return;
		}
		h = (h + 1) & (st->nslots - 1);
	}
	/* a new cell */
	if (st->ncells == st->capcells)
	{
		int64		cap = (int64) st->capcells * 2;

		if (cap > PG_INT32_MAX / 4 || confusion_bytes(cap) > memory_limit())
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("gsu.confusion needs more than gsu.max_training_memory (%d kB)",
							gsu_max_training_memory_kb),
					 errdetail("The confusion matrix has %d distinct (predicted, actual) pairs.",
							   st->ncells),
					 errhint("Check that predicted and actual are class labels, not row "
							 "identifiers, or raise gsu.max_training_memory.")));
		st->cells = repalloc_huge(st->cells, sizeof(gsu_confusion_cell) * (Size) cap);
		st->capcells = (int32) cap;
		confusion_rehash(st, st->nslots * 2);
		h = cell_hash(predicted, actual) & (st->nslots - 1);
		while (st->slots[h] != 0)
			h = (h + 1) & (st->nslots - 1);
	}
	st->cells[st->ncells].predicted = predicted;
	st->cells[st->ncells].actual = actual;
	st->cells[st->ncells].count = count;
	st->slots[h] = (uint32) st->ncells + 1;
	st->last = st->ncells;
	st->ncells++;
}

static Datum
confusion_trans(FunctionCallInfo fcinfo, bool bool_labels)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_confusion_transfn");
	GsuConfusionState *st = PG_ARGISNULL(0) ? NULL : (GsuConfusionState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	int32		predicted,
				actual;

	/* a row with a NULL label is skipped */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (bool_labels)
	{
		predicted = PG_GETARG_BOOL(1) ? 1 : -1;
		actual = PG_GETARG_BOOL(2) ? 1 : -1;
	}
	else
	{
		predicted = PG_GETARG_INT32(1);
		actual = PG_GETARG_INT32(2);
	}
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL)
		st = confusion_create();
	confusion_add(st, predicted, actual, 1);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_confusion_transfn(PG_FUNCTION_ARGS)
{
	return confusion_trans(fcinfo, false);
}

Datum
gsu_confusion_bool_transfn(PG_FUNCTION_ARGS)
{
	return confusion_trans(fcinfo, true);
}

Datum
gsu_confusion_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_confusion_combinefn");
	GsuConfusionState *a = PG_ARGISNULL(0) ? NULL : (GsuConfusionState *) PG_GETARG_POINTER(0);
	GsuConfusionState *b = PG_ARGISNULL(1) ? NULL : (GsuConfusionState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int32		i;

	if (b == NULL)
	{
		if (a)
			PG_RETURN_POINTER(a);
		PG_RETURN_NULL();
	}
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = confusion_create();
	for (i = 0; i < b->ncells; i++)
		confusion_add(a, b->cells[i].predicted, b->cells[i].actual, b->cells[i].count);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* serialized: this header, then ncells cells of (int32, int32, int64) */
typedef struct GsuConfusionWire
{
	uint32		magic;
	uint32		reserved;		/* zero */
	int64		n;
	int32		ncells;
	int32		pad;			/* zero */
} GsuConfusionWire;

Datum
gsu_confusion_serialfn(PG_FUNCTION_ARGS)
{
	GsuConfusionState *st = (GsuConfusionState *) PG_GETARG_POINTER(0);
	GsuConfusionWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_CONFUSION_MAGIC;
	w.n = st->n;
	w.ncells = st->ncells;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	if (st->ncells > 0)
		pq_sendbytes(&buf, (const char *) st->cells,
					 sizeof(gsu_confusion_cell) * (Size) st->ncells);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_confusion_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_confusion_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuConfusionWire w;
	GsuConfusionState *st;
	MemoryContext old;
	int64		total = 0;
	int32		i;

	if (len < sizeof(w))
		gsu_wire_error("gsu.confusion", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != GSU_CONFUSION_MAGIC)
		gsu_wire_error("gsu.confusion", "bad magic number");
	if (w.reserved != 0 || w.pad != 0)
		gsu_wire_error("gsu.confusion", "reserved fields are not zero");
	if (w.n < 0 || w.ncells < 0 || (w.ncells == 0) != (w.n == 0))
		gsu_wire_error("gsu.confusion", "bad counts");
	if (len - sizeof(w) != sizeof(gsu_confusion_cell) * (Size) w.ncells)
		gsu_wire_error("gsu.confusion", "wrong length");
	for (i = 0; i < w.ncells; i++)
	{
		gsu_confusion_cell c;

		memcpy(&c, p + sizeof(c) * (Size) i, sizeof(c));
		if (c.count <= 0 || c.count > PG_INT64_MAX - total)
			gsu_wire_error("gsu.confusion", "bad cell count");
		total += c.count;
	}
	if (total != w.n)
		gsu_wire_error("gsu.confusion", "cell counts do not add up to the row count");

	old = MemoryContextSwitchTo(aggctx);
	st = confusion_create();
	for (i = 0; i < w.ncells; i++)
	{
		gsu_confusion_cell c;

		memcpy(&c, p + sizeof(c) * (Size) i, sizeof(c));
		confusion_add(st, c.predicted, c.actual, c.count);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

static void
append_class(StringInfo buf, const gsu_class_metrics *c)
{
	appendStringInfo(buf, "{\"label\": %d, ", c->label);
	append_ki(buf, "support", c->support);
	append_ki(buf, "tp", c->tp);
	append_ki(buf, "fp", c->fp);
	append_ki(buf, "fn", c->fn);
	append_ki(buf, "tn", c->tn);
	append_kd(buf, "precision", c->precision);
	append_kd(buf, "recall", c->recall);
	append_kd(buf, "f1", c->f1);
	trim_comma(buf);
	appendStringInfoChar(buf, '}');
}

Datum
gsu_confusion_finalfn(PG_FUNCTION_ARGS)
{
	GsuConfusionState *st = PG_ARGISNULL(0) ? NULL : (GsuConfusionState *) PG_GETARG_POINTER(0);
	gsu_class_metrics *classes;
	gsu_confusion_summary s;
	StringInfoData buf;
	size_t		i;

	(void) gsu_agg_context(fcinfo, "gsu_confusion_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	classes = palloc_extended(sizeof(gsu_class_metrics) * 2 * (Size) st->ncells, MCXT_ALLOC_HUGE);
	if (gsu_confusion_summarize(st->cells, st->ncells, classes, &s) != GSU_OK)
		elog(ERROR, "gsu.confusion: inconsistent cell counts");
	if (s.n_classes > GSU_CONFUSION_MAX_CLASSES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsu.confusion found %zu distinct labels, more than the limit of %d",
						s.n_classes, GSU_CONFUSION_MAX_CLASSES),
				 errhint("Check that predicted and actual are class labels, not row identifiers.")));

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	append_ki(&buf, "n", s.n);
	append_ki(&buf, "correct", s.correct);
	append_kd(&buf, "accuracy", s.accuracy);
	append_kd(&buf, "mcc", s.mcc);
	if (s.binary)
	{
		append_ki(&buf, "tp", s.tp);
		append_ki(&buf, "fp", s.fp);
		append_ki(&buf, "tn", s.tn);
		append_ki(&buf, "fn", s.fn);
		append_kd(&buf, "precision", s.precision);
		append_kd(&buf, "recall", s.recall);
		append_kd(&buf, "f1", s.f1);
	}
	append_kd(&buf, "macro_precision", s.macro_precision);
	append_kd(&buf, "macro_recall", s.macro_recall);
	append_kd(&buf, "macro_f1", s.macro_f1);
	appendStringInfoString(&buf, "\"classes\": [");
	for (i = 0; i < s.n_classes; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		append_class(&buf, &classes[i]);
	}
	appendStringInfoString(&buf, "]}");
	PG_RETURN_JSONB_P(text_to_jsonb(&buf));
}

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
} GsuRankingState;

static void
ranking_limit_error(int64 rows)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("ranking metric needs more than gsu.max_training_memory (%d kB)",
					gsu_max_training_memory_kb),
			 errdetail("Buffering " INT64_FORMAT " scores takes 8 bytes each.", rows),
			 errhint("Raise gsu.max_training_memory, or evaluate a sample of the rows.")));
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
	int64		limit_rows = (int64) (memory_limit() / sizeof(double));
	int64	   *n = positive ? &st->n_pos : &st->n_neg;
	int64	   *cap = positive ? &st->cap_pos : &st->cap_neg;
	int64	   *other_n = positive ? &st->n_neg : &st->n_pos;
	int64	   *other_cap = positive ? &st->cap_neg : &st->cap_pos;
	double	  **arr = positive ? &st->pos : &st->neg;
	double	  **other_arr = positive ? &st->neg : &st->pos;
	int64		need,
				newcap;

	if (extra > limit_rows || *n > limit_rows - extra)
		ranking_limit_error(st->n_pos + st->n_neg + extra);
	need = *n + extra;
	if (need <= *cap)
		return;
	if (need > limit_rows - *other_n)
		ranking_limit_error(st->n_pos + st->n_neg + extra);
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
	check_score(score);
	positive = bool_label ? PG_GETARG_BOOL(2) : binary_label(PG_GETARG_INT32(2));
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL)
		st = palloc0(sizeof(GsuRankingState));
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
	{
		if (a)
			PG_RETURN_POINTER(a);
		PG_RETURN_NULL();
	}
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = palloc0(sizeof(GsuRankingState));
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
	st = palloc0(sizeof(GsuRankingState));
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
		append_kd(&buf, "threshold", pts[i].threshold);
		append_ki(&buf, "tp", pts[i].tp);
		append_ki(&buf, "fp", pts[i].fp);
		append_kd(&buf, "fpr", pts[i].fpr);
		append_kd(&buf, "tpr", pts[i].tpr);
		trim_comma(&buf);
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, ']');
	PG_RETURN_JSONB_P(text_to_jsonb(&buf));
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
		append_kd(&buf, "threshold", pts[i].threshold);
		append_ki(&buf, "tp", pts[i].tp);
		append_ki(&buf, "fp", pts[i].fp);
		append_kd(&buf, "precision", pts[i].precision);
		append_kd(&buf, "recall", pts[i].tpr);
		trim_comma(&buf);
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, ']');
	PG_RETURN_JSONB_P(text_to_jsonb(&buf));
}

/* ============================================================ log loss */

typedef struct GsuLogLossState
{
	int64		n;
	gsu_sum		sum;
} GsuLogLossState;

static Datum
log_loss_trans(FunctionCallInfo fcinfo, bool bool_label)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_log_loss_transfn");
	GsuLogLossState *st = PG_ARGISNULL(0) ? NULL : (GsuLogLossState *) PG_GETARG_POINTER(0);
	double		p;
	bool		positive;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	p = PG_GETARG_FLOAT8(1);
	if (isnan(p))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("probability is NaN")));
	if (!(p >= 0.0 && p <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("probability must be between 0 and 1, not %g", p),
				 errdetail("gsu.log_loss takes the predicted probability of label 1.")));
	positive = bool_label ? PG_GETARG_BOOL(2) : binary_label(PG_GETARG_INT32(2));
	if (st == NULL)
		st = MemoryContextAllocZero(aggctx, sizeof(GsuLogLossState));
	st->n++;
	gsu_sum_add(&st->sum, gsu_log_loss_term(p, positive, GSU_LOG_LOSS_EPS));
	PG_RETURN_POINTER(st);
}

Datum
gsu_log_loss_transfn(PG_FUNCTION_ARGS)
{
	return log_loss_trans(fcinfo, false);
}

Datum
gsu_log_loss_bool_transfn(PG_FUNCTION_ARGS)
{
	return log_loss_trans(fcinfo, true);
}

Datum
gsu_log_loss_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_log_loss_combinefn");
	GsuLogLossState *a = PG_ARGISNULL(0) ? NULL : (GsuLogLossState *) PG_GETARG_POINTER(0);
	GsuLogLossState *b = PG_ARGISNULL(1) ? NULL : (GsuLogLossState *) PG_GETARG_POINTER(1);

	if (b == NULL)
	{
		if (a)
			PG_RETURN_POINTER(a);
		PG_RETURN_NULL();
	}
	if (a == NULL)
		a = MemoryContextAllocZero(aggctx, sizeof(GsuLogLossState));
	a->n += b->n;
	gsu_sum_merge(&a->sum, &b->sum);
	PG_RETURN_POINTER(a);
}

typedef struct GsuLogLossWire
{
	uint32		magic;
	uint32		reserved;		/* zero */
	int64		n;
	double		s;
	double		c;
} GsuLogLossWire;

Datum
gsu_log_loss_serialfn(PG_FUNCTION_ARGS)
{
	GsuLogLossState *st = (GsuLogLossState *) PG_GETARG_POINTER(0);
	GsuLogLossWire w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_LOG_LOSS_MAGIC;
	w.n = st->n;
	w.s = st->sum.s;
	w.c = st->sum.c;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_log_loss_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_log_loss_deserialfn");
	GsuLogLossWire w;
	GsuLogLossState *st;

	if (VARSIZE_ANY_EXHDR(in) != sizeof(w))
		gsu_wire_error("gsu.log_loss", "wrong length");
	memcpy(&w, VARDATA_ANY(in), sizeof(w));
	if (w.magic != GSU_LOG_LOSS_MAGIC)
		gsu_wire_error("gsu.log_loss", "bad magic number");
	if (w.reserved != 0)
		gsu_wire_error("gsu.log_loss", "reserved field is not zero");
	/* each term is in [0, −log ε], so the sum is finite and non-negative */
	if (w.n < 0 || !isfinite(w.s) || !isfinite(w.c) || !(w.s + w.c >= 0.0) ||
		(w.n == 0 && (w.s != 0.0 || w.c != 0.0)))
		gsu_wire_error("gsu.log_loss", "bad sum");
	st = MemoryContextAllocZero(aggctx, sizeof(GsuLogLossState));
	st->n = w.n;
	st->sum.s = w.s;
	st->sum.c = w.c;
	PG_RETURN_POINTER(st);
}

Datum
gsu_log_loss_finalfn(PG_FUNCTION_ARGS)
{
	GsuLogLossState *st = PG_ARGISNULL(0) ? NULL : (GsuLogLossState *) PG_GETARG_POINTER(0);

	(void) gsu_agg_context(fcinfo, "gsu_log_loss_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(gsu_sum_value(&st->sum) / (double) st->n);
}
