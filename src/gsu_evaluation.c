/*
 * gsu_evaluation.c — evaluation aggregates: gsu.confusion, gsu.roc_auc,
 * gsu.average_precision, gsu.roc_curve, gsu.pr_curve and gsu.log_loss.
 * The math is in core/gsu_metrics.c, the ranking metrics in gsu_evaluation_ranking.c; this file holds the aggregate states,
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
#include "gsu_evaluation.h"
#include "gsu_memory.h"
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
PG_FUNCTION_INFO_V1(gsu_log_loss_transfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_combinefn);
PG_FUNCTION_INFO_V1(gsu_log_loss_serialfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_deserialfn);
PG_FUNCTION_INFO_V1(gsu_log_loss_finalfn);

/* more distinct labels than this in gsu.confusion is an error */
#define GSU_CONFUSION_MAX_CLASSES 100000

#define GSU_CONFUSION_MAGIC 0x47535543	/* "GSUC" */
#define GSU_LOG_LOSS_MAGIC 0x4753554C	/* "GSUL" */


/* ------------------------------------------------------------- helpers */

/* −1/+1 → false/true; anything else is an error */
bool
gsu_eval_binary_label(int32 label)
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

void
gsu_eval_check_score(double s)
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

void
gsu_eval_append_kd(StringInfo buf, const char *key, double x)
{
	appendStringInfo(buf, "\"%s\": ", key);
	append_double_or_null(buf, x);
	appendStringInfoString(buf, ", ");
}

void
gsu_eval_append_ki(StringInfo buf, const char *key, int64 x)
{
	appendStringInfo(buf, "\"%s\": " INT64_FORMAT ", ", key, x);
}

/* drops a trailing ", " */
void
gsu_eval_trim_comma(StringInfo buf)
{
	if (buf->len >= 2 && buf->data[buf->len - 2] == ',')
	{
		buf->len -= 2;
		buf->data[buf->len] = '\0';
	}
}

Jsonb *
gsu_eval_text_to_jsonb(StringInfo buf)
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
	GsuMemCharge *mem;			/* what the cells count against the limit (gsu_memory.h) */
	Size		wire_bytes;		/* a deserialized state: the bytes it came from */
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

/* the cells' bytes, counted by st's charge */
static void
confusion_account(GsuConfusionState *st)
{
	if (st->mem)
		gsu_mem_set(st->mem, confusion_bytes(st->capcells) + st->wire_bytes);
}

/* call in the aggregate context */
static GsuConfusionState *
confusion_create(GsuMemCharge *mem, Size wire_bytes)
{
	GsuConfusionState *st = palloc0(sizeof(GsuConfusionState));

	st->mem = mem;
	st->wire_bytes = wire_bytes;
	st->capcells = 8;
	st->cells = palloc(sizeof(gsu_confusion_cell) * st->capcells);
	confusion_rehash(st, 16);
	confusion_account(st);
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
		if (cap > PG_INT32_MAX / 4 || confusion_bytes(cap) > gsu_mem_room_for(st->mem, st->wire_bytes))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("gsu.confusion needs more than gsu.max_training_memory (%d kB)",
							gsu_max_training_memory_kb),
					 errdetail("The confusion matrix has %d distinct (predicted, actual) pairs.",
							   st->ncells),
					 gsu_mem_errhint(st->mem, "Check that predicted and actual are class labels, not row "
									 "identifiers, or raise gsu.max_training_memory.")));
		st->cells = repalloc_huge(st->cells, sizeof(gsu_confusion_cell) * (Size) cap);
		st->capcells = (int32) cap;
		confusion_rehash(st, st->nslots * 2);
		confusion_account(st);
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
		st = confusion_create(gsu_mem_charge(aggctx, fcinfo), 0);
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
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
		a = confusion_create(gsu_mem_charge(aggctx, fcinfo), 0);
	/* each new cell of a is checked before a grows */
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
	st = confusion_create(gsu_mem_charge_deserialized(aggctx), VARSIZE_ANY(in));
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
	gsu_eval_append_ki(buf, "support", c->support);
	gsu_eval_append_ki(buf, "tp", c->tp);
	gsu_eval_append_ki(buf, "fp", c->fp);
	gsu_eval_append_ki(buf, "fn", c->fn);
	gsu_eval_append_ki(buf, "tn", c->tn);
	gsu_eval_append_kd(buf, "precision", c->precision);
	gsu_eval_append_kd(buf, "recall", c->recall);
	gsu_eval_append_kd(buf, "f1", c->f1);
	gsu_eval_trim_comma(buf);
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
	gsu_eval_append_ki(&buf, "n", s.n);
	gsu_eval_append_ki(&buf, "correct", s.correct);
	gsu_eval_append_kd(&buf, "accuracy", s.accuracy);
	gsu_eval_append_kd(&buf, "mcc", s.mcc);
	if (s.binary)
	{
		gsu_eval_append_ki(&buf, "tp", s.tp);
		gsu_eval_append_ki(&buf, "fp", s.fp);
		gsu_eval_append_ki(&buf, "tn", s.tn);
		gsu_eval_append_ki(&buf, "fn", s.fn);
		gsu_eval_append_kd(&buf, "precision", s.precision);
		gsu_eval_append_kd(&buf, "recall", s.recall);
		gsu_eval_append_kd(&buf, "f1", s.f1);
	}
	gsu_eval_append_kd(&buf, "macro_precision", s.macro_precision);
	gsu_eval_append_kd(&buf, "macro_recall", s.macro_recall);
	gsu_eval_append_kd(&buf, "macro_f1", s.macro_f1);
	appendStringInfoString(&buf, "\"classes\": [");
	for (i = 0; i < s.n_classes; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		append_class(&buf, &classes[i]);
	}
	appendStringInfoString(&buf, "]}");
	PG_RETURN_JSONB_P(gsu_eval_text_to_jsonb(&buf));
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
	positive = bool_label ? PG_GETARG_BOOL(2) : gsu_eval_binary_label(PG_GETARG_INT32(2));
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
		return gsu_combine_first(fcinfo);
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

