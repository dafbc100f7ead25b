/*
 * gsu_calibrate.c — Platt calibration of a model on held-out rows
 * (aggregate gsu.calibrate) and calibrated probabilities (gsu.probability).
 * The fit itself is src/core/gsu_platt.c.
 *
 * The state keeps a copy of the model from the first row and the decision
 * value and label of every row; the model is assumed constant within a
 * group, as the options of gsu.train are.
 */
#include "gsu_pg.h"

#include <math.h>

#include "core/gsu_platt.h"
#include "libpq/pqformat.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_calibrate_transfn);
PG_FUNCTION_INFO_V1(gsu_calibrate_combinefn);
PG_FUNCTION_INFO_V1(gsu_calibrate_serialfn);
PG_FUNCTION_INFO_V1(gsu_calibrate_deserialfn);
PG_FUNCTION_INFO_V1(gsu_calibrate_finalfn);
PG_FUNCTION_INFO_V1(gsu_probability_fn);

typedef struct GsuCalState
{
	GsuModel   *model;			/* copy of the first row's model */
	Pointer		model_seen;		/* the model datum last found equal to it */
	int64		n;
	int64		n_pos;
	int64		cap;
	double	   *f;				/* decision values */
	double	   *y;				/* labels ±1 */
} GsuCalState;

/* Appends (f, y); the aggregate context must be current. */
static void
cal_append(GsuCalState *st, double f, double y)
{
	if (st->n == st->cap)
	{
		int64		cap = st->cap == 0 ? 256 : st->cap * 2;
		Size		limit = (Size) gsu_max_training_memory_kb * 1024;

		if ((Size) (st->n + 1) * 2 * sizeof(double) > limit)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("calibration data needs more than gsu.max_training_memory (%d kB)",
							gsu_max_training_memory_kb),
					 errhint("Calibrate on a sample of the held-out rows, or raise gsu.max_training_memory.")));
		if ((Size) cap * 2 * sizeof(double) > limit)
			cap = st->n + 1;
		st->f = st->f ? repalloc_huge(st->f, sizeof(double) * cap)
			: palloc_extended(sizeof(double) * cap, MCXT_ALLOC_HUGE);
		st->y = st->y ? repalloc_huge(st->y, sizeof(double) * cap)
			: palloc_extended(sizeof(double) * cap, MCXT_ALLOC_HUGE);
		st->cap = cap;
	}
	st->f[st->n] = f;
	st->y[st->n] = y;
	st->n++;
	if (y > 0)
		st->n_pos++;
}

static GsuModel *
copy_model(const GsuModel *m)
{
	GsuModel   *c = palloc(VARSIZE(m));

	memcpy(c, m, VARSIZE(m));
	return c;
}

/* gsu.calibrate(model, mean, label): rows with a NULL argument are skipped */
Datum
gsu_calibrate_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.calibrate support function");
	GsuCalState *st = PG_ARGISNULL(0) ? NULL : (GsuCalState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		x;
	double		y,
				f;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
	{
		GsuModel   *m = PG_GETARG_GSU_MODEL(1);

		old = MemoryContextSwitchTo(aggctx);
		st = palloc0(sizeof(GsuCalState));
		st->model = copy_model(m);
		MemoryContextSwitchTo(old);
		st->model_seen = DatumGetPointer(PG_GETARG_DATUM(1));
	}
	else if (DatumGetPointer(PG_GETARG_DATUM(1)) != st->model_seen)
	{
		/* one model per group: a constant argument is the same datum every row */
		GsuModel   *m = PG_GETARG_GSU_MODEL(1);

		if (VARSIZE(m) != VARSIZE(st->model) || memcmp(m, st->model, VARSIZE(m)) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gsu.calibrate was given different models in one group")));
		st->model_seen = DatumGetPointer(PG_GETARG_DATUM(1));
	}
	x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(2), "mean");
	if (x.n != st->model->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d",
						x.n, st->model->dim)));
	y = gsu_check_label(PG_GETARG_INT32(3));
	f = gsu_decision(st->model->dim, st->model->theta, x.data);
	if (!isfinite(f))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("decision value is out of range for type double precision")));
	old = MemoryContextSwitchTo(aggctx);
	cal_append(st, f, y);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_calibrate_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.calibrate support function");
	GsuCalState *a = PG_ARGISNULL(0) ? NULL : (GsuCalState *) PG_GETARG_POINTER(0);
	GsuCalState *b = PG_ARGISNULL(1) ? NULL : (GsuCalState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int64		i;

	if (b == NULL)
	{
		if (a)
			PG_RETURN_POINTER(a);
		PG_RETURN_NULL();
	}
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = palloc0(sizeof(GsuCalState));
		a->model = copy_model(b->model);
	}
	else if (VARSIZE(a->model) != VARSIZE(b->model) ||
			 memcmp(a->model, b->model, VARSIZE(a->model)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.calibrate was given different models in one group")));
	for (i = 0; i < b->n; i++)
		cal_append(a, b->f[i], b->y[i]);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* Serialized: the model's varlena, then n, then f[n], y[n]. */
Datum
gsu_calibrate_serialfn(PG_FUNCTION_ARGS)
{
	GsuCalState *st = (GsuCalState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) st->model, VARSIZE(st->model));
	pq_sendbytes(&buf, (const char *) &st->n, sizeof(int64));
	if (st->n > 0)
	{
		pq_sendbytes(&buf, (const char *) st->f, sizeof(double) * st->n);
		pq_sendbytes(&buf, (const char *) st->y, sizeof(double) * st->n);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static void
cal_wire_error(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid serialized gsu.calibrate state: %s", what)));
}

Datum
gsu_calibrate_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.calibrate support function");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	Size		msize;
	GsuCalState *st;
	MemoryContext old;
	int64		n,
				i;

	if (len < VARHDRSZ)
		cal_wire_error("too short");
	msize = VARSIZE(p);
	if (msize < offsetof(GsuModel, theta) || msize > len - sizeof(int64))
		cal_wire_error("bad model size");
	memcpy(&n, p + msize, sizeof(int64));
	if (n < 0 || (Size) n > (len - msize - sizeof(int64)) / (2 * sizeof(double)) ||
		len != msize + sizeof(int64) + 2 * sizeof(double) * (Size) n)
		cal_wire_error("wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = palloc0(sizeof(GsuCalState));
	st->model = palloc(msize);
	memcpy(st->model, p, msize);
	if (st->model->dim < 1 || st->model->dim > GSU_MAX_DIM ||
		msize != GSU_MODEL_SIZE(st->model->dim))
		cal_wire_error("bad model");
	gsu_model_validate(st->model, ERRCODE_INVALID_BINARY_REPRESENTATION);
	p += msize + sizeof(int64);
	for (i = 0; i < n; i++)
	{
		double		f,
					y;

		memcpy(&f, p + sizeof(double) * i, sizeof(double));
		memcpy(&y, p + sizeof(double) * (n + i), sizeof(double));
		if (!isfinite(f) || (y != 1.0 && y != -1.0))
			cal_wire_error("bad row");
		cal_append(st, f, y);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_calibrate_finalfn(PG_FUNCTION_ARGS)
{
	GsuCalState *st = PG_ARGISNULL(0) ? NULL : (GsuCalState *) PG_GETARG_POINTER(0);
	GsuModel   *m;
	double		a,
				b;
	gsu_status	s;

	(void) gsu_agg_context(fcinfo, "gsu.calibrate support function");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	gsu_check_two_classes(st->n, st->n_pos, "calibration");
	s = gsu_platt_fit(st->n, st->f, st->y, &a, &b, NULL);
	if (s != GSU_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("calibration failed: %s", gsu_status_string(s))));
	m = copy_model(st->model);
	m->platt_a = a;
	m->platt_b = b;
	m->flags |= GSU_MODEL_CALIBRATED;
	PG_RETURN_GSU_MODEL(m);
}

Datum
gsu_probability_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");

	if (x.n != m->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d", x.n, m->dim)));
	if (!(m->flags & GSU_MODEL_CALIBRATED))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("model is not calibrated"),
				 errhint("Fit a calibration on held-out rows with gsu.calibrate(model, mean, label).")));
	{
		double		f = gsu_decision(m->dim, m->theta, x.data);

		if (!isfinite(f))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("decision value is out of range for type double precision")));
		PG_RETURN_FLOAT8(gsu_platt_probability(m->platt_a, m->platt_b, f));
	}
}
