/*
 * gsu_model_calibrate.c — Platt calibration of a model on held-out rows
 * (aggregate gsu.calibrate) and calibrated probabilities (gsu.probability).
 * The fit itself is src/core/gsu_platt.c.
 *
 * The state keeps a copy of the model from the first row and the decision
 * value and label of every row; the model is assumed constant within a
 * group, as the options of gsu.train are.
 */
#include "gsu_model.h"
#include "gsu_memory.h"

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
PG_FUNCTION_INFO_V1(gsu_probabilities_fn);

typedef struct GsuCalState
{
	GsuModel   *model;			/* copy of the first row's model */
	GsuModel   *scoring;		/* ... that scores rows (gsu_model_for_scoring) */
	int			nvec;			/* decision values per row */
	int64		n;
	int64		cap;
	double	   *f;				/* decision values, n × nvec */
	double	   *y;				/* the index of each row's class in the model */
	double	   *frow;			/* nvec: the current row's decision values */
	GsuMemCharge *mem;			/* what f and y count against the limit (gsu_memory.h) */
	Size		wire_bytes;		/* a deserialized state: the bytes it came from */
} GsuCalState;

static GsuModel *copy_model(const GsuModel *m);

/* Appends a row (f[nvec], its class index); the aggregate context must be current. */
/*
 * Room for want rows (doubling, or exactly want for a combine), checked
 * against what the state may hold before anything grows.
 */
static void
cal_reserve(GsuCalState *st, int64 want, bool exact)
{
	if (want > st->cap)
	{
		int64		cap = exact ? want : Max(st->cap == 0 ? 256 : st->cap * 2, want);
		Size		limit = gsu_mem_room_for(st->mem, st->wire_bytes);

		if ((Size) want * (st->nvec + 1) * sizeof(double) > limit)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("calibration data needs more than gsu.max_training_memory (%d kB)",
							gsu_max_training_memory_kb),
					 errdetail("Holding " INT64_FORMAT " decision values and labels needs %zu kB.",
							   want, ((Size) want * (st->nvec + 1) * sizeof(double) + 1023) / 1024),
					 gsu_mem_errhint(st->mem, "Calibrate on a sample of the held-out rows, or raise gsu.max_training_memory.")));
		if ((Size) cap * (st->nvec + 1) * sizeof(double) > limit)
			cap = want;
		if (st->mem)
			gsu_mem_set(st->mem, (Size) cap * (st->nvec + 1) * sizeof(double) + st->wire_bytes);
		st->f = st->f ? repalloc_huge(st->f, sizeof(double) * cap * st->nvec)
			: palloc_extended(sizeof(double) * cap * st->nvec, MCXT_ALLOC_HUGE);
		st->y = st->y ? repalloc_huge(st->y, sizeof(double) * cap)
			: palloc_extended(sizeof(double) * cap, MCXT_ALLOC_HUGE);
		st->cap = cap;
	}
}

static void
cal_append(GsuCalState *st, const double *f, double y)
{
	if (st->n == st->cap)
		cal_reserve(st, st->n + 1, false);
	memcpy(st->f + st->n * st->nvec, f, sizeof(double) * st->nvec);
	st->y[st->n] = y;
	st->n++;
}

static GsuCalState *
cal_create(const GsuModel *m)
{
	GsuCalState *st = palloc0(sizeof(GsuCalState));

	st->model = copy_model(m);
	st->scoring = gsu_model_for_scoring(st->model);
	st->nvec = GSU_MODEL_NVEC(m);
	st->frow = palloc(sizeof(double) * st->nvec);
	return st;
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
	double		y;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
	{
		GsuModel   *m = PG_GETARG_GSU_MODEL(1);

		gsu_model_require_classifier(m, "gsu.calibrate");
		old = MemoryContextSwitchTo(aggctx);
		st = cal_create(m);
		st->mem = gsu_mem_charge(aggctx, fcinfo);
		MemoryContextSwitchTo(old);
	}
	else if (!gsu_varlena_same((struct varlena *) st->model, PG_GETARG_DATUM(1)))
	{
		/* one model per group, compared by value on every row */
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.calibrate was given different models in one group")));
	}
	x = gsu_model_mean_arg(st->scoring, fcinfo, 2);
	gsu_model_decisions(st->scoring, x.data, x.n, st->frow);
	y = gsu_model_class_index(st->model, PG_GETARG_INT32(3));
	old = MemoryContextSwitchTo(aggctx);
	cal_append(st, st->frow, y);
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
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = cal_create(b->model);
		a->mem = gsu_mem_charge(aggctx, fcinfo);
	}
	else if (VARSIZE(a->model) != VARSIZE(b->model) ||
			 memcmp(a->model, b->model, VARSIZE(a->model)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.calibrate was given different models in one group")));
	/* A + B, checked before a grows */
	cal_reserve(a, a->n + b->n, true);
	for (i = 0; i < b->n; i++)
		cal_append(a, b->f + i * b->nvec, b->y[i]);
	if (b->mem != NULL && b->mem->deserialized)
	{
		/* a worker's state, now in a: only its received bytes stay counted */
		if (b->f)
			pfree(b->f);
		if (b->y)
			pfree(b->y);
		b->f = b->y = NULL;
		b->n = b->cap = 0;
		gsu_mem_set(b->mem, b->wire_bytes);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* Serialized: the model's varlena, then n, then f[n × nvec], y[n]. */
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
		pq_sendbytes(&buf, (const char *) st->f, sizeof(double) * st->n * st->nvec);
		pq_sendbytes(&buf, (const char *) st->y, sizeof(double) * st->n);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
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
	GsuModel   *model;
	MemoryContext old;
	double	   *f;
	int			nvec;
	int64		n,
				i;

	/* a model's varlena header and the row count, at least */
	if (len < VARHDRSZ + sizeof(int64))
		gsu_wire_error("gsu.calibrate", "too short");
	msize = VARSIZE(p);
	if (msize < offsetof(GsuModel, data) || msize > len - sizeof(int64))
		gsu_wire_error("gsu.calibrate", "bad model size");
	model = palloc(msize);
	memcpy(model, p, msize);
	if (model->dim < 1 || model->dim > GSU_MAX_DIM || model->nclasses < 2 ||
		model->nclasses > GSU_MAX_CLASSES || model->map_len < 0 ||
		model->input_dim < 1 || model->input_dim > GSU_MAX_DIM ||
		msize < GSU_MODEL_SIZE(model->dim, model->nclasses, model->map_len) +
		sizeof(double) * (GSU_MODEL_STD_LEN(model) + GSU_MODEL_MISS_LEN(model)) ||
		(!(model->flags & GSU_MODEL_HISTORY) &&
		 msize != GSU_MODEL_SIZE(model->dim, model->nclasses, model->map_len) +
		 sizeof(double) * (GSU_MODEL_STD_LEN(model) + GSU_MODEL_MISS_LEN(model))))
		gsu_wire_error("gsu.calibrate", "bad model");
	/* a history's length is what the size leaves: gsu_model_validate checks it */
	gsu_model_validate(model, ERRCODE_INVALID_BINARY_REPRESENTATION);
	nvec = GSU_MODEL_NVEC(model);
	memcpy(&n, p + msize, sizeof(int64));
	if (n < 0 || (Size) n > (len - msize - sizeof(int64)) / ((nvec + 1) * sizeof(double)) ||
		len != msize + sizeof(int64) + (nvec + 1) * sizeof(double) * (Size) n)
		gsu_wire_error("gsu.calibrate", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = cal_create(model);
	st->mem = gsu_mem_charge_deserialized(aggctx);
	st->wire_bytes = VARSIZE_ANY(in);
	/* the rows and the serialized bytes they come from, before allocating */
	cal_reserve(st, n, true);
	f = palloc(sizeof(double) * nvec);
	p += msize + sizeof(int64);
	for (i = 0; i < n; i++)
	{
		double		y;
		int			k;

		memcpy(f, p + sizeof(double) * nvec * i, sizeof(double) * nvec);
		memcpy(&y, p + sizeof(double) * (nvec * n + i), sizeof(double));
		for (k = 0; k < nvec; k++)
			if (!isfinite(f[k]))
				gsu_wire_error("gsu.calibrate", "bad row");
		if (!(y >= 0 && y < model->nclasses && y == floor(y)))
			gsu_wire_error("gsu.calibrate", "bad row");
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
	double	   *f,
			   *y;
	int			v;
	int64		i;

	(void) gsu_agg_context(fcinfo, "gsu.calibrate support function");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	/* one weight vector's decision values and labels at a time, besides the state */
	if (st->mem)
	{
		GsuMemCharge *res = gsu_mem_charge(CurrentMemoryContext, fcinfo);

		res->copies = 1;
		gsu_mem_require(res, (Size) st->n * 2 * sizeof(double) +
						(Size) st->cap * (st->nvec + 1) * sizeof(double),
						"calibration data",
						psprintf("Fitting on " INT64_FORMAT " rows", st->n),
						"Calibrate on a sample of the held-out rows, or raise gsu.max_training_memory.");
		gsu_mem_set(res, (Size) st->n * 2 * sizeof(double));
	}
	m = copy_model(st->model);
	f = palloc(sizeof(double) * st->n);
	y = palloc(sizeof(double) * st->n);
	/* one sigmoid per weight vector, fitted on its own ±1 labels */
	for (v = 0; v < st->nvec; v++)
	{
		int			pos_class = m->nclasses == 2 ? 1 : v;
		int64		n_pos = 0;
		double		a,
					b;
		gsu_status	s;

		for (i = 0; i < st->n; i++)
		{
			f[i] = st->f[i * st->nvec + v];
			y[i] = st->y[i] == pos_class ? 1.0 : -1.0;
			n_pos += y[i] > 0;
		}
		if (m->nclasses == 2)
			gsu_check_two_classes(st->n, n_pos, "calibration");
		else if (n_pos == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("calibration data has no rows of class %d",
							(int) GSU_MODEL_CLASSES(m)[v]),
					 errdetail("Each one-vs-rest classifier is calibrated on rows of its own class and of the others.")));
		s = gsu_platt_fit(st->n, f, y, &a, &b, NULL);
		gsu_report_data_status(s, "gsu.calibrate", "calibration failed");
		GSU_MODEL_PLATT(m, v)[0] = a;
		GSU_MODEL_PLATT(m, v)[1] = b;
	}
	m->flags |= GSU_MODEL_CALIBRATED;
	PG_RETURN_GSU_MODEL(m);
}

static void
check_calibrated(const GsuModel *m)
{
	if (!(m->flags & GSU_MODEL_CALIBRATED))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("model is not calibrated"),
				 errhint("Fit a calibration on held-out rows with gsu.calibrate(model, mean, label).")));
}

Datum
gsu_probability_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = gsu_model_mean_arg(m, fcinfo, 1);
	double		f;

	gsu_model_require_classifier(m, "gsu.probability");
	if (m->nclasses != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a model of %d classes has one probability per class", m->nclasses),
				 errhint("Use gsu.probabilities(model, mean).")));
	gsu_model_decisions(m, x.data, x.n, &f);
	check_calibrated(m);
	PG_RETURN_FLOAT8(gsu_platt_probability(GSU_MODEL_PLATT(m, 0)[0], GSU_MODEL_PLATT(m, 0)[1], f));
}

/*
 * One probability per class: for two classes (1 − p, p); one-vs-rest: each
 * classifier's calibrated probability, normalized to sum to 1.
 */
Datum
gsu_probabilities_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x = (gsu_model_require_classifier(m, "gsu.probabilities"),
					 gsu_model_mean_arg(m, fcinfo, 1));
	int			nvec = GSU_MODEL_NVEC(m),
				k;
	double	   *f = palloc(sizeof(double) * nvec);
	ArrayType  *a = gsu_new_float8_array(1, m->nclasses, 0);
	double	   *p = (double *) ARR_DATA_PTR(a),
				sum = 0.0;

	gsu_model_decisions(m, x.data, x.n, f);
	check_calibrated(m);
	if (m->nclasses == 2)
	{
		p[1] = gsu_platt_probability(GSU_MODEL_PLATT(m, 0)[0], GSU_MODEL_PLATT(m, 0)[1], f[0]);
		p[0] = 1.0 - p[1];
		PG_RETURN_ARRAYTYPE_P(a);
	}
	for (k = 0; k < nvec; k++)
	{
		p[k] = gsu_platt_probability(GSU_MODEL_PLATT(m, k)[0], GSU_MODEL_PLATT(m, k)[1], f[k]);
		sum += p[k];
	}
	for (k = 0; k < nvec; k++)
		p[k] = sum > 0.0 ? p[k] / sum : 1.0 / nvec;
	PG_RETURN_ARRAYTYPE_P(a);
}
