/*
 * gsu_geu_refset.c — the gsu.refset type (a reference set of rows with optional
 * labels), the gsu.refset_agg aggregate that builds one, and the functions
 * that search it: GEU uncertainty estimation (gsu.nn_variance) and k-NN
 * classification (gsu.knn_predict).
 *
 * A reference set is one value holding every row, so a query can pass it to
 * a per-row function (typically as a scalar subquery, evaluated once).  The
 * per-row functions detoast it once per query (gsu_detoast_cached) and find
 * neighbours with the exact blocked search of src/core/gsu_nn.c.
 */
#include "gsu_geu_refset.h"
#include "gsu_json.h"
#include "gsu_memory.h"

#include <math.h>

#include "access/detoast.h"
#include "core/gsu_nn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_refset_in);
PG_FUNCTION_INFO_V1(gsu_refset_out);
PG_FUNCTION_INFO_V1(gsu_refset_recv);
PG_FUNCTION_INFO_V1(gsu_refset_send);
PG_FUNCTION_INFO_V1(gsu_refset_describe);
PG_FUNCTION_INFO_V1(gsu_refset_agg_transfn);
PG_FUNCTION_INFO_V1(gsu_refset_agg_combinefn);
PG_FUNCTION_INFO_V1(gsu_refset_agg_serialfn);
PG_FUNCTION_INFO_V1(gsu_refset_agg_deserialfn);
PG_FUNCTION_INFO_V1(gsu_refset_agg_finalfn);
PG_FUNCTION_INFO_V1(gsu_nn_variance_fn);
PG_FUNCTION_INFO_V1(gsu_knn_predict_fn);

#define DatumGetGsuRefset(x) ((GsuRefset *) PG_DETOAST_DATUM(x))
#define PG_GETARG_GSU_REFSET(n) DatumGetGsuRefset(PG_GETARG_DATUM(n))
#define PG_GETARG_GSU_REFSET_CACHED(n) ((GsuRefset *) gsu_detoast_cached(fcinfo, n))

/* ------------------------------------------------------------------ type */

GsuRefset *
gsu_refset_alloc(int dim, int64 rows, bool labelled)
{
	Size		size;
	GsuRefset  *r;

	Assert(dim >= 1 && rows >= 1);
	if ((double) rows * ((double) dim + 1.5) * sizeof(double) > (double) GSU_GEU_MAX_VARLENA)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.refset of " INT64_FORMAT " rows of dimension %d is too large",
						rows, dim),
				 errdetail("A value is limited to 1 GB.")));
	size = GSU_REFSET_SIZE(dim, rows, labelled);
	r = (GsuRefset *) palloc0(size);
	SET_VARSIZE(r, size);
	r->format = GSU_REFSET_FORMAT;
	r->flags = labelled ? GSU_REFSET_LABELLED : 0;
	r->dim = dim;
	r->rows = (int32) rows;
	return r;
}

/*
 * puts the rows in canonical form (−0 → +0, gsu_canonical_zero: text cannot
 * keep the sign of zero) and recomputes the derived norms; every value made
 * (text and binary input, the aggregate) passes here
 */
static void
refset_finish(GsuRefset *r)
{
	gsu_canonicalize_zeros(GSU_REFSET_X(r), (Size) r->rows * r->dim);
	gsu_row_sqnorms(r->rows, r->dim, GSU_REFSET_X(r), GSU_REFSET_NORMS(r));
}

static const char *const top_keys[] = {"format", "dim", "rows", "labels", NULL};

static GsuRefset *
refset_from_jsonb(JsonbContainer *root)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.refset key"};
	JsonbContainer *rows,
			   *labels;
	int64		format,
				dim;
	int			n,
				i;
	GsuRefset  *r;

	gsu_json_check_object(&cx, root, top_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &format))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.refset key \"format\" is missing")));
	if (format != GSU_REFSET_FORMAT)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("unsupported gsu.refset format " INT64_FORMAT, format),
				 errdetail("This version of pg_gsu reads format %d.", GSU_REFSET_FORMAT)));
	if (!gsu_json_int64(&cx, root, "dim", 1, GSU_MAX_DIM, &dim))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.refset key \"dim\" is missing")));
	rows = gsu_json_container(&cx, root, "rows", true);
	if (rows == NULL)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.refset key \"rows\" is missing")));
	n = gsu_json_array_length(rows);
	if (n < 1)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.refset must have at least one row")));
	labels = gsu_json_container(&cx, root, "labels", true);
	if (labels && gsu_json_array_length(labels) != n)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.refset has %d labels but %d rows",
						gsu_json_array_length(labels), n)));
	r = gsu_refset_alloc((int) dim, n, labels != NULL);
	for (i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(rows, i);

		if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.refset row %d must be an array of numbers", i + 1)));
		if (gsu_json_array_length(v->val.binary.data) != dim)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.refset row %d has %d elements, expected " INT64_FORMAT,
							i + 1, gsu_json_array_length(v->val.binary.data), dim)));
		gsu_json_number_array(&cx, v->val.binary.data, "rows",
							  GSU_REFSET_X(r) + (Size) i * dim, (int) dim);
	}
	if (labels)
	{
		int32	   *lab = GSU_REFSET_LABELS(r);

		for (i = 0; i < n; i++)
		{
			JsonbValue *v = getIthJsonbValueFromContainer(labels, i);
			double		d;

			if (v == NULL || v->type != jbvNumeric)
				ereport(ERROR,
						(errcode(cx.errcode),
						 errmsg("gsu.refset label %d must be an integer", i + 1)));
			d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
												   NumericGetDatum(v->val.numeric)));
			if (d != floor(d) || d < PG_INT32_MIN || d > PG_INT32_MAX)
				ereport(ERROR,
						(errcode(cx.errcode),
						 errmsg("gsu.refset label %d must be an int4 integer", i + 1)));
			lab[i] = (int32) d;
		}
	}
	refset_finish(r);
	return r;
}

static char *
refset_to_text(const GsuRefset *r)
{
	StringInfoData buf;
	const double *x = GSU_REFSET_X(r);
	const int32 *lab = GSU_REFSET_LABELS(r);
	int			i,
				l;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"dim\": %d, \"rows\": [", r->format, r->dim);
	for (i = 0; i < r->rows; i++)
	{
		appendStringInfoString(&buf, i > 0 ? ", [" : "[");
		for (l = 0; l < r->dim; l++)
		{
			if (l > 0)
				appendStringInfoString(&buf, ", ");
			gsu_append_double(&buf, x[(Size) i * r->dim + l]);
		}
		appendStringInfoChar(&buf, ']');
	}
	appendStringInfoChar(&buf, ']');
	if (lab)
	{
		appendStringInfoString(&buf, ", \"labels\": [");
		for (i = 0; i < r->rows; i++)
			appendStringInfo(&buf, "%s%d", i > 0 ? ", " : "", lab[i]);
		appendStringInfoChar(&buf, ']');
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

Datum
gsu_refset_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(str)));

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type gsu.refset: \"%s\"", str),
				 errdetail("A gsu.refset is written as a JSON object.")));
	PG_RETURN_POINTER(refset_from_jsonb(&jb->root));
}

Datum
gsu_refset_out(PG_FUNCTION_ARGS)
{
	GsuRefset  *r = PG_GETARG_GSU_REFSET(0);

	PG_RETURN_CSTRING(refset_to_text(r));
}

/*
 * Binary form: format, flags (int16 each), dim, rows, reserved (int32 each),
 * then rows·dim float8 and, when labelled, rows int32.  The norms are not
 * sent; they are recomputed.
 */
#define REFSET_SEND_HEADER (2 + 2 + 4 + 4 + 4)

Datum
gsu_refset_send(PG_FUNCTION_ARGS)
{
	GsuRefset  *r = PG_GETARG_GSU_REFSET(0);
	StringInfoData buf;
	const double *x = GSU_REFSET_X(r);
	const int32 *lab = GSU_REFSET_LABELS(r);
	Size		i,
				count = (Size) r->rows * r->dim;

	pq_begintypsend(&buf);
	pq_sendint16(&buf, r->format);
	pq_sendint16(&buf, r->flags);
	pq_sendint32(&buf, r->dim);
	pq_sendint32(&buf, r->rows);
	pq_sendint32(&buf, r->reserved);
	for (i = 0; i < count; i++)
		pq_sendfloat8(&buf, x[i]);
	if (lab)
		for (i = 0; i < (Size) r->rows; i++)
			pq_sendint32(&buf, lab[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_refset_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	uint16		format,
				flags;
	int32		dim,
				rows,
				reserved;
	GsuRefset  *r;
	double	   *x;
	int32	   *lab;
	Size		i,
				count,
				expect;

	if (buf->len - buf->cursor < REFSET_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.refset binary value is too short")));
	format = (uint16) pq_getmsgint(buf, 2);
	flags = (uint16) pq_getmsgint(buf, 2);
	dim = (int32) pq_getmsgint(buf, 4);
	rows = (int32) pq_getmsgint(buf, 4);
	reserved = (int32) pq_getmsgint(buf, 4);
	if (format != GSU_REFSET_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.refset format %d", format)));
	if ((flags & ~GSU_REFSET_FLAGS_KNOWN) != 0 || reserved != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.refset has unknown flags 0x%04x or a non-zero reserved field",
						flags)));
	if (dim < 1 || dim > GSU_MAX_DIM || rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.refset of %d rows of dimension %d is out of range", rows, dim)));
	if ((double) rows * ((double) dim + 1.5) * sizeof(double) > (double) GSU_GEU_MAX_VARLENA)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.refset of %d rows of dimension %d is too large", rows, dim)));
	count = (Size) rows * dim;
	expect = sizeof(double) * count + ((flags & GSU_REFSET_LABELLED) ? sizeof(int32) * rows : 0);
	if ((Size) (buf->len - buf->cursor) != expect)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.refset binary value has the wrong length for %d rows of dimension %d",
						rows, dim)));
	r = gsu_refset_alloc(dim, rows, (flags & GSU_REFSET_LABELLED) != 0);
	x = GSU_REFSET_X(r);
	for (i = 0; i < count; i++)
	{
		x[i] = pq_getmsgfloat8(buf);
		if (!isfinite(x[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("gsu.refset row %zu element %zu is not finite",
							i / dim + 1, i % dim + 1)));
	}
	lab = GSU_REFSET_LABELS(r);
	if (lab)
		for (i = 0; i < (Size) rows; i++)
			lab[i] = (int32) pq_getmsgint(buf, 4);
	refset_finish(r);
	PG_RETURN_POINTER(r);
}

static int
cmp_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a,
				y = *(const int32 *) b;

	return x < y ? -1 : x > y;
}

/* {"format", "dim", "rows", "labelled", "classes": {"label": count, …}} */
Datum
gsu_refset_describe(PG_FUNCTION_ARGS)
{
	GsuRefset  *r = PG_GETARG_GSU_REFSET(0);
	const int32 *lab = GSU_REFSET_LABELS(r);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"dim\": %d, \"rows\": %d, \"labelled\": %s",
					 r->format, r->dim, r->rows, lab ? "true" : "false");
	if (lab)
	{
		int32	   *s = palloc(sizeof(int32) * r->rows);
		int			i,
					j;

		memcpy(s, lab, sizeof(int32) * r->rows);
		qsort(s, r->rows, sizeof(int32), cmp_int32);
		appendStringInfoString(&buf, ", \"classes\": {");
		for (i = 0; i < r->rows; i = j)
		{
			for (j = i; j < r->rows && s[j] == s[i]; j++)
				;
			appendStringInfo(&buf, "%s\"%d\": %d", i > 0 ? ", " : "", s[i], j - i);
		}
		appendStringInfoChar(&buf, '}');
	}
	appendStringInfoChar(&buf, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/* ------------------------------------------------------------- aggregate */

typedef struct RefsetState
{
	int32		dim;			/* 0 until the first row */
	bool		labelled;
	int64		n;
	int64		cap;
	double	   *x;				/* cap × dim */
	int32	   *labels;			/* cap, when labelled */
	GsuMemCharge *mem;			/* what x and labels count (gsu_memory.h) */
	Size		wire_bytes;		/* a deserialized state: the bytes it came from */
} RefsetState;

static Size
refset_state_bytes(int dim, int64 rows, bool labelled)
{
	return (Size) rows * ((Size) dim * sizeof(double) + (labelled ? sizeof(int32) : 0));
}

/*
 * The rows' bytes, plus extra (a deserialized state's serialized bytes, a
 * final function's result), must fit in what st's charge may hold.
 */
static void
refset_check_memory_extra(const RefsetState *st, int64 rows, Size extra)
{
	Size		need = refset_state_bytes(st->dim, rows, st->labelled) + extra;

	if (need > gsu_mem_room(st->mem))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("reference set needs more than gsu.max_training_memory (%d kB)",
						gsu_max_training_memory_kb),
				 errdetail("Holding " INT64_FORMAT " rows of dimension %d needs %zu kB.",
						   rows, st->dim, (need + 1023) / 1024),
				 gsu_mem_errhint(st->mem, "Raise gsu.max_training_memory, or build the reference set from a sample.")));
	if ((double) rows * ((double) st->dim + 1.5) * sizeof(double) > (double) GSU_GEU_MAX_VARLENA)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.refset of " INT64_FORMAT " rows of dimension %d is too large",
						rows, st->dim),
				 errdetail("A value is limited to 1 GB.")));
}

static void
refset_check_memory(const RefsetState *st, int64 rows)
{
	refset_check_memory_extra(st, rows, 0);
}

/*
 * Makes room for want rows (at least), within what the state may hold;
 * exact: exactly want (a combine appending a whole state)
 */
static void
refset_state_reserve(RefsetState *st, int64 want, bool exact)
{
	if (want > st->cap)
	{
		int64		cap = exact ? want : (st->cap == 0 ? 64 : st->cap * 2);
		Size		room;

		refset_check_memory(st, want);
		room = gsu_mem_room(st->mem);
		cap = Max(cap, want);
		if (refset_state_bytes(st->dim, cap, st->labelled) > room)
			cap = want + want / 8;
		if (refset_state_bytes(st->dim, cap, st->labelled) > room)
			cap = want;
		gsu_mem_set(st->mem, refset_state_bytes(st->dim, cap, st->labelled));
		if (st->x == NULL)
		{
			st->x = palloc_extended(sizeof(double) * (Size) cap * st->dim, MCXT_ALLOC_HUGE);
			if (st->labelled)
				st->labels = palloc_extended(sizeof(int32) * (Size) cap, MCXT_ALLOC_HUGE);
		}
		else
		{
			st->x = repalloc_huge(st->x, sizeof(double) * (Size) cap * st->dim);
			if (st->labelled)
				st->labels = repalloc_huge(st->labels, sizeof(int32) * (Size) cap);
		}
		st->cap = cap;
	}
}

/* appends one row; call in the aggregate context */
static void
refset_state_add(RefsetState *st, const double *x, int32 label)
{
	if (st->n == st->cap)
		refset_state_reserve(st, st->n + 1, false);
	memcpy(st->x + st->n * st->dim, x, sizeof(double) * st->dim);
	if (st->labelled)
		st->labels[st->n] = label;
	st->n++;
}

/* (state, mean [, label]): rows with a NULL mean or label are skipped */
Datum
gsu_refset_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_refset_agg_transfn");
	RefsetState *st = PG_ARGISNULL(0) ? NULL : (RefsetState *) PG_GETARG_POINTER(0);
	bool		labelled = PG_NARGS() > 2;
	MemoryContext old;
	GsuVec		x;

	if (PG_ARGISNULL(1) || (labelled && PG_ARGISNULL(2)))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL)
	{
		st = palloc0(sizeof(RefsetState));
		st->labelled = labelled;
		st->mem = gsu_mem_charge(aggctx, fcinfo);
	}
	if (st->dim == 0)
		st->dim = x.n;
	else if (x.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", x.n, st->dim)));
	refset_state_add(st, x.data, labelled ? PG_GETARG_INT32(2) : 0);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_refset_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_refset_agg_combinefn");
	RefsetState *a = PG_ARGISNULL(0) ? NULL : (RefsetState *) PG_GETARG_POINTER(0);
	RefsetState *b = PG_ARGISNULL(1) ? NULL : (RefsetState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int64		i;

	if (b == NULL || (b->n == 0 && a != NULL))
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = palloc0(sizeof(RefsetState));
		a->labelled = b->labelled;
		a->mem = gsu_mem_charge(aggctx, fcinfo);
	}
	if (b->n > 0)
	{
		if (a->dim == 0)
			a->dim = b->dim;
		else if (a->dim != b->dim)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("cannot combine reference sets of dimensions %d and %d",
							a->dim, b->dim)));
		if (a->labelled != b->labelled)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("cannot combine labelled and unlabelled reference set states")));
		/* A + B is checked before anything grows */
		refset_state_reserve(a, a->n + b->n, true);
		for (i = 0; i < b->n; i++)
			refset_state_add(a, b->x + i * b->dim, b->labelled ? b->labels[i] : 0);
		if (b->mem != NULL && b->mem->deserialized)
		{
			/* a worker's state, now in a: only its received bytes stay (PostgreSQL's copy) */
			pfree(b->x);
			if (b->labels)
				pfree(b->labels);
			b->x = NULL;
			b->labels = NULL;
			b->n = b->cap = 0;
			gsu_mem_set(b->mem, b->wire_bytes);
		}
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

typedef struct RefsetWire
{
	uint32		magic;
	int32		dim;
	int32		labelled;
	int32		pad;
	int64		n;
} RefsetWire;

#define REFSET_MAGIC 0x47524631	/* "GRF1" */

Datum
gsu_refset_agg_serialfn(PG_FUNCTION_ARGS)
{
	RefsetState *st = (RefsetState *) PG_GETARG_POINTER(0);
	RefsetWire	w;
	StringInfoData buf;

	memset(&w, 0, sizeof(w));
	w.magic = REFSET_MAGIC;
	w.dim = st->dim;
	w.labelled = st->labelled;
	w.n = st->n;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	if (st->n > 0)
	{
		pq_sendbytes(&buf, (const char *) st->x, sizeof(double) * st->n * st->dim);
		if (st->labelled)
			pq_sendbytes(&buf, (const char *) st->labels, sizeof(int32) * st->n);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_refset_agg_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_refset_agg_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in),
				i;
	RefsetWire	w;
	RefsetState *st;
	MemoryContext old;

	if (len < sizeof(w))
		gsu_wire_error("gsu.refset_agg", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != REFSET_MAGIC)
		gsu_wire_error("gsu.refset_agg", "bad magic number");
	if (w.dim < 0 || w.dim > GSU_MAX_DIM || (w.labelled != 0 && w.labelled != 1) ||
		w.pad != 0 || w.n < 0 || (w.dim == 0 && w.n != 0) ||
		w.n > (int64) (MaxAllocHugeSize / sizeof(double) / ((Size) Max(w.dim, 1) + 1)))
		gsu_wire_error("gsu.refset_agg", "bad header");
	if (len - sizeof(w) !=
		(Size) w.n * ((Size) w.dim * sizeof(double) + (w.labelled ? sizeof(int32) : 0)))
		gsu_wire_error("gsu.refset_agg", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = palloc0(sizeof(RefsetState));
	st->dim = w.dim;
	st->labelled = w.labelled != 0;
	st->mem = gsu_mem_charge_deserialized(aggctx);
	st->wire_bytes = VARSIZE_ANY(in);
	if (w.n > 0)
	{
		/* the state and the serialized bytes it comes from, before allocating */
		refset_check_memory_extra(st, w.n, st->wire_bytes);
		gsu_mem_set(st->mem, refset_state_bytes(st->dim, w.n, st->labelled) + st->wire_bytes);
		st->cap = st->n = w.n;
		st->x = palloc_extended(sizeof(double) * (Size) w.n * w.dim, MCXT_ALLOC_HUGE);
		memcpy(st->x, p, sizeof(double) * (Size) w.n * w.dim);
		p += sizeof(double) * (Size) w.n * w.dim;
		for (i = 0; i < (Size) w.n * w.dim; i++)
			if (!isfinite(st->x[i]))
				gsu_wire_error("gsu.refset_agg", "non-finite value");
		if (st->labelled)
		{
			st->labels = palloc_extended(sizeof(int32) * (Size) w.n, MCXT_ALLOC_HUGE);
			memcpy(st->labels, p, sizeof(int32) * (Size) w.n);
		}
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_refset_agg_finalfn(PG_FUNCTION_ARGS)
{
	RefsetState *st = PG_ARGISNULL(0) ? NULL : (RefsetState *) PG_GETARG_POINTER(0);
	GsuRefset  *r;

	(void) gsu_agg_context(fcinfo, "gsu_refset_agg_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	/* the result is a copy of the rows: it counts too, until its context goes */
	if (st->mem != NULL)
	{
		GsuMemCharge *res = gsu_mem_charge(CurrentMemoryContext, fcinfo);

		res->copies = 1;
		refset_check_memory_extra(st, st->n, refset_state_bytes(st->dim, st->n, st->labelled));
		gsu_mem_set(res, refset_state_bytes(st->dim, st->n, st->labelled));
	}
	r = gsu_refset_alloc(st->dim, st->n, st->labelled);
	memcpy(GSU_REFSET_X(r), st->x, sizeof(double) * (Size) st->n * st->dim);
	if (st->labelled)
	{
		int32	   *lab = GSU_REFSET_LABELS(r);

		Assert(lab != NULL);
		memcpy((void *) lab, st->labels, sizeof(int32) * (Size) st->n);
	}
	refset_finish(r);
	PG_RETURN_POINTER(r);
}

/* -------------------------------------------------------------- searches */

static GsuVec
point_arg(const GsuRefset *r, FunctionCallInfo fcinfo, int argno, const char *what)
{
	GsuVec		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(argno), what);

	if (x.n != r->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has %d elements, but the reference set has dimension %d",
						what, x.n, r->dim)));
	return x;
}

static gsu_nn_set
nn_set(const GsuRefset *r)
{
	gsu_nn_set	s;

	s.n = r->rows;
	s.d = r->dim;
	s.x = GSU_REFSET_X(r);
	s.norms = GSU_REFSET_NORMS(r);
	s.labels = GSU_REFSET_LABELS(r);
	return s;
}

/*
 * gsu.nn_variance(refset, mean, label, sigma, supervised): the GEU estimate
 * Σ = σ·diag(x − x*)² (Laakom et al., Sect. III-B), x* the nearest reference
 * row other than x itself — among the rows of x's class when supervised.
 * "Itself" is one reference row equal to x element by element (with x's
 * label when both are known), so a table's own rows can be estimated from a
 * reference set built from the same table; exact duplicates further down
 * still count as neighbours (at distance 0).  NULL in, NULL out, except that
 * label may be NULL when not supervised.
 */
Datum
gsu_nn_variance_fn(PG_FUNCTION_ARGS)
{
	GsuRefset  *r;
	GsuVec		x;
	gsu_nn_set	set;
	const int32 *lab;
	int32		label = 0;
	bool		have_label,
				supervised;
	double		sigma;
	gsu_nn_dist dist;
	double	   *out;
	int64		self,
				nearest;
	int			count,
				l;
	gsu_status	s;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		PG_RETURN_NULL();
	supervised = PG_GETARG_BOOL(4);
	have_label = !PG_ARGISNULL(2);
	if (supervised && !have_label)
		PG_RETURN_NULL();
	if (have_label)
		label = PG_GETARG_INT32(2);
	sigma = gsu_canonical_zero(PG_GETARG_FLOAT8(3));	/* σ = −0 gives +0, not −0 */
	if (!(isfinite(sigma) && sigma >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sigma must be a finite non-negative number, not %g", sigma)));
	r = PG_GETARG_GSU_REFSET_CACHED(0);
	x = point_arg(r, fcinfo, 1, "mean");
	lab = GSU_REFSET_LABELS(r);
	if (supervised && lab == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("supervised estimation needs a labelled reference set"),
				 errhint("Build it with gsu.refset_agg(mean, label).")));

	set = nn_set(r);
	self = gsu_find_row(set.n, set.d, set.x, lab, x.data, have_label ? &label : NULL);
	s = gsu_knn(&set, 1, x.data, NULL, &label, supervised ? GSU_NN_SAME : GSU_NN_ANY,
				&self, 1, &nearest, &dist, &count, NULL, NULL);
	if (s != GSU_OK)
		gsu_report_status(s, "nearest-neighbour search");
	if (count == 0)
	{
		if (supervised)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("no reference row other than the row itself has label %d", label),
					 errdetail("Supervised estimation needs at least two rows of each class."),
					 errhint("Use unsupervised estimation for this row.")));
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the reference set has no row other than the row itself"),
				 errdetail("Estimation needs at least two reference rows.")));
	}
	out = palloc(sizeof(double) * x.n);
	if (gsu_nn_variance(x.n, x.data, set.x + nearest * set.d, sigma, out, &l) != GSU_OK)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("estimated variance element %d overflows", l + 1)));
	PG_RETURN_ARRAYTYPE_P(gsu_float8_array(out, x.n));
}

/*
 * gsu.knn_predict(refset, point, k): the majority label of the k nearest
 * reference rows (fewer when the set is smaller); ties go to the label whose
 * nearest member is nearest.
 */
Datum
gsu_knn_predict_fn(PG_FUNCTION_ARGS)
{
	GsuRefset  *r = PG_GETARG_GSU_REFSET_CACHED(0);
	GsuVec		x;
	int32		k = PG_GETARG_INT32(2);
	gsu_nn_set	set;
	int64	   *idx;
	gsu_nn_dist *dist;
	int			count;
	gsu_status	s;

	if (k < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be at least 1, not %d", k)));
	x = point_arg(r, fcinfo, 1, "point");
	if (GSU_REFSET_LABELS(r) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("k-NN classification needs a labelled reference set"),
				 errhint("Build it with gsu.refset_agg(mean, label).")));
	if (k > r->rows)
		k = r->rows;
	set = nn_set(r);
	idx = palloc(sizeof(int64) * k);
	dist = palloc(sizeof(gsu_nn_dist) * k);
	s = gsu_knn(&set, 1, x.data, NULL, NULL, GSU_NN_ANY, NULL, k, idx, dist, &count,
				NULL, NULL);
	if (s != GSU_OK)
		gsu_report_status(s, "nearest-neighbour search");
	PG_RETURN_INT32(gsu_knn_vote(count, idx, set.labels));
}
