/*
 * gsu_train.c — the gsu.train aggregate.
 *
 * One aggregate, two kinds of state, chosen by the "solver" option on the
 * first row:
 *  - newton / pegasos: the rows are buffered in the state (compact dense
 *    arrays, bounded by gsu.max_training_memory) and solved in the final
 *    function;
 *  - sgd: the transition function takes one Pegasos step per row in scan
 *    order; the state is O(dim).
 * Options are read once, from the first row that is not skipped.
 *
 * Parallel aggregation: buffered states are concatenated by the combine
 * function (the worker order is not deterministic, but the solution of the
 * convex problem does not depend on row order up to rounding); sgd states
 * are averaged with row weights, an approximation of one sequential pass.
 */
#include "gsu_pg.h"
#include "gsu_json.h"

#include <math.h>
#include <time.h>

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_train_transfn);
PG_FUNCTION_INFO_V1(gsu_train_iso_transfn);
PG_FUNCTION_INFO_V1(gsu_train_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_train_combinefn);
PG_FUNCTION_INFO_V1(gsu_train_serialfn);
PG_FUNCTION_INFO_V1(gsu_train_deserialfn);
PG_FUNCTION_INFO_V1(gsu_train_finalfn);

typedef struct GsuTrainOptions
{
	int32		loss;
	int32		solver;
	double		lambda;
	double		tolerance;
	double		smoothing;
	int32		max_iterations;
	int32		epochs;
	int32		batch_size;
	int32		pad;
	uint64		seed;
} GsuTrainOptions;

typedef struct GsuTrainState
{
	GsuTrainOptions opt;
	int32		dim;			/* 0 until the first row */
	int64		n;				/* rows seen */
	int64		n_pos;
	int64		n_neg;
	/* buffered solvers */
	int64		cap;			/* rows the buffers can hold */
	double	   *x;				/* cap × dim */
	double	   *y;				/* cap */
	double	   *s;				/* cap isotropic variances, or NULL */
	double	   *v;				/* cap × dim diagonal variances, or NULL */
	/* sgd */
	double	   *theta;			/* dim + 1 */
	double		loss_sum;		/* Σ of each row's loss before its step */
} GsuTrainState;

static const char *const option_keys[] = {
	"lambda", "loss", "solver", "tolerance", "smoothing", "max_iterations",
	"epochs", "batch_size", "seed", NULL
};

static void
parse_options(Jsonb *jb, GsuTrainOptions *o)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	gsu_solve_options d;
	const char *s;
	int64		i64;

	gsu_solve_options_default(&d);
	memset(o, 0, sizeof(*o));
	o->loss = GSU_LOSS_GSU;
	o->solver = GSU_SOLVER_NEWTON;
	o->lambda = d.lambda;
	o->tolerance = d.tolerance;
	o->smoothing = d.smoothing;
	o->max_iterations = d.max_iterations;
	o->epochs = d.epochs;
	o->batch_size = d.batch_size;
	o->seed = d.seed;
	if (jb == NULL)
		return;
	if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"lambda\": 0.001}'.")));
	gsu_json_check_object(&cx, &jb->root, option_keys);

	if (gsu_json_number(&cx, &jb->root, "lambda", &o->lambda) && !(o->lambda > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"lambda\" must be positive, not %g", o->lambda)));
	if (gsu_json_string(&cx, &jb->root, "loss", &s))
	{
		if (strcmp(s, "gsu") == 0)
			o->loss = GSU_LOSS_GSU;
		else if (strcmp(s, "hinge") == 0)
			o->loss = GSU_LOSS_HINGE;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown loss \"%s\"", s),
					 errhint("Valid losses are: gsu, hinge.")));
	}
	if (gsu_json_string(&cx, &jb->root, "solver", &s))
	{
		if (strcmp(s, "newton") == 0)
			o->solver = GSU_SOLVER_NEWTON;
		else if (strcmp(s, "pegasos") == 0)
			o->solver = GSU_SOLVER_PEGASOS;
		else if (strcmp(s, "sgd") == 0)
			o->solver = GSU_SOLVER_SGD;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown solver \"%s\"", s),
					 errhint("Valid solvers are: newton, pegasos, sgd.")));
	}
	if (gsu_json_number(&cx, &jb->root, "tolerance", &o->tolerance) &&
		!(o->tolerance > 0.0 && o->tolerance < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"tolerance\" must be in (0, 1), not %g", o->tolerance)));
	if (gsu_json_number(&cx, &jb->root, "smoothing", &o->smoothing) &&
		!(o->smoothing > 0.0 && o->smoothing <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"smoothing\" must be in (0, 1], not %g", o->smoothing)));
	if (gsu_json_int64(&cx, &jb->root, "max_iterations", 1, 1000000, &i64))
		o->max_iterations = (int32) i64;
	if (gsu_json_int64(&cx, &jb->root, "epochs", 1, 100000, &i64))
		o->epochs = (int32) i64;
	if (gsu_json_int64(&cx, &jb->root, "batch_size", 1, 1000000, &i64))
		o->batch_size = (int32) i64;
	if (gsu_json_int64(&cx, &jb->root, "seed", 0, PG_INT64_MAX, &i64))
		o->seed = (uint64) i64;
}

/* ------------------------------------------------------------- buffers */

static Size
state_bytes(const GsuTrainState *st, int64 cap, bool with_s, bool with_v)
{
	Size		per_row = (Size) st->dim + 1 + (with_s ? 1 : 0) + (with_v ? st->dim : 0);

	return (Size) cap * per_row * sizeof(double);
}

static void
check_memory(const GsuTrainState *st, int64 cap, bool with_s, bool with_v)
{
	Size		limit = (Size) gsu_max_training_memory_kb * 1024;
	Size		need = state_bytes(st, cap, with_s, with_v);

	if (need > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("training data needs more than gsu.max_training_memory (%d kB)",
						gsu_max_training_memory_kb),
				 errdetail("Buffering " INT64_FORMAT " rows of dimension %d needs %zu kB.",
						   cap, st->dim, need / 1024),
				 errhint("Raise gsu.max_training_memory, or train in streaming mode with "
						 "'{\"solver\": \"sgd\"}', which needs memory for one row only.")));
}

static double *
grow(double *p, Size old_bytes, Size new_bytes)
{
	if (p == NULL)
		return (double *) palloc_extended(new_bytes, MCXT_ALLOC_HUGE);
	(void) old_bytes;
	return (double *) repalloc_huge(p, new_bytes);
}

/* Makes room for one more row; call in the aggregate context. */
static void
reserve_row(GsuTrainState *st)
{
	int64		cap;

	if (st->n < st->cap)
		return;
	cap = st->cap == 0 ? 64 : st->cap * 2;
	check_memory(st, st->n + 1, st->s != NULL, st->v != NULL);
	/* grow geometrically, but never past the limit if one more row fits */
	if (state_bytes(st, cap, st->s != NULL, st->v != NULL) >
		(Size) gsu_max_training_memory_kb * 1024)
		cap = st->n + 1 + st->n / 8;
	if (state_bytes(st, cap, st->s != NULL, st->v != NULL) >
		(Size) gsu_max_training_memory_kb * 1024)
		cap = st->n + 1;
	st->x = grow(st->x, 0, sizeof(double) * (Size) cap * st->dim);
	st->y = grow(st->y, 0, sizeof(double) * (Size) cap);
	if (st->s)
		st->s = grow(st->s, 0, sizeof(double) * (Size) cap);
	if (st->v)
		st->v = grow(st->v, 0, sizeof(double) * (Size) cap * st->dim);
	st->cap = cap;
}

/* First isotropic variance > 0: keep one per row from now on. */
static void
ensure_s(GsuTrainState *st)
{
	if (st->s || st->v)
		return;
	check_memory(st, st->cap, true, false);
	st->s = palloc_extended(sizeof(double) * (Size) Max(st->cap, 1),
							MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* First diagonal variance: keep dim per row, earlier rows as s_i·I. */
static void
ensure_v(GsuTrainState *st)
{
	int64		i;
	int			j;

	if (st->v)
		return;
	check_memory(st, st->cap, false, true);
	st->v = palloc_extended(sizeof(double) * (Size) Max(st->cap, 1) * st->dim,
							MCXT_ALLOC_HUGE);
	for (i = 0; i < st->n; i++)
		for (j = 0; j < st->dim; j++)
			st->v[i * st->dim + j] = st->s ? st->s[i] : 0.0;
	if (st->s)
	{
		pfree(st->s);
		st->s = NULL;
	}
}

static GsuTrainState *
state_create(MemoryContext aggctx, Jsonb *options)
{
	GsuTrainState *st = MemoryContextAllocZero(aggctx, sizeof(GsuTrainState));

	parse_options(options, &st->opt);
	return st;
}

/* Called with the first row; fixes the dimension. */
static void
state_set_dim(GsuTrainState *st, int dim)
{
	st->dim = dim;
	if (st->opt.solver == GSU_SOLVER_SGD)
		st->theta = palloc0(sizeof(double) * ((Size) dim + 1));
}

/*
 * The common transition: mean and variance are validated, label is ±1.
 * var_kind: 0 none, 1 isotropic (iso), 2 diagonal (var).
 */
static void
add_row(GsuTrainState *st, GsuVec mean, int var_kind, const double *var, double iso,
		double y)
{
	if (st->dim == 0)
		state_set_dim(st, mean.n);
	else if (mean.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", mean.n, st->dim)));
	if (var_kind == 2 && var == NULL)
		var_kind = 0;
	if (var_kind == 1 && iso == 0.0)
		var_kind = 0;
	if (st->opt.loss == GSU_LOSS_HINGE)
		var_kind = 0;			/* plain SVM: the variance is ignored */

	if (y > 0)
		st->n_pos++;
	else
		st->n_neg++;

	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		st->n++;
		st->loss_sum += gsu_sgd_step(st->dim, st->theta, st->opt.lambda, st->n,
									 mean.data, var_kind == 2 ? var : NULL,
									 var_kind == 1 ? iso : 0.0, y);
		return;
	}

	if (var_kind == 2)
		ensure_v(st);
	else if (var_kind == 1)
		ensure_s(st);
	reserve_row(st);
	memcpy(st->x + st->n * st->dim, mean.data, sizeof(double) * st->dim);
	st->y[st->n] = y;
	if (st->v)
	{
		double	   *dst = st->v + st->n * st->dim;
		int			j;

		if (var_kind == 2)
			memcpy(dst, var, sizeof(double) * st->dim);
		else
			for (j = 0; j < st->dim; j++)
				dst[j] = var_kind == 1 ? iso : 0.0;
	}
	else if (st->s)
		st->s[st->n] = var_kind == 1 ? iso : 0.0;
	st->n++;
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggctx;
}

/*
 * Shared body of the transition functions.  Arguments: 0 state, 1 mean,
 * 2 variance, 3 label, 4 options (optional).
 */
static Datum
train_trans(FunctionCallInfo fcinfo, int var_kind, bool bool_label)
{
	MemoryContext aggctx = agg_context(fcinfo, "gsu_train_transfn");
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		mean;
	const double *var = NULL;
	double		iso = 0.0;
	double		y;

	/* a row with a NULL mean or label is skipped, as aggregates skip NULLs */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
	{
		Jsonb	   *options = (PG_NARGS() > 4 && !PG_ARGISNULL(4)) ?
			PG_GETARG_JSONB_P(4) : NULL;

		st = state_create(aggctx, options);
	}

	mean = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	if (bool_label)
		y = PG_GETARG_BOOL(3) ? 1.0 : -1.0;
	else
		y = gsu_check_label(PG_GETARG_INT32(3));
	if (!PG_ARGISNULL(2))
	{
		if (var_kind == 1)
		{
			iso = PG_GETARG_FLOAT8(2);
			gsu_check_iso_variance(iso);
		}
		else
			var = gsu_variance_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n).data;
	}
	old = MemoryContextSwitchTo(aggctx);
	add_row(st, mean, var_kind, var, iso, y);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_train_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, 2, false);
}

Datum
gsu_train_iso_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, 1, false);
}

Datum
gsu_train_bool_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, 2, true);
}

/* ------------------------------------------------------------- parallel */

Datum
gsu_train_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = agg_context(fcinfo, "gsu_train_combinefn");
	GsuTrainState *a = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainState *b = PG_ARGISNULL(1) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int64		i;

	if (b == NULL || b->n == 0)
	{
		if (a)
			PG_RETURN_POINTER(a);
		if (b == NULL)
			PG_RETURN_NULL();
	}
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = palloc0(sizeof(GsuTrainState));
		a->opt = b->opt;
	}
	if (b->n == 0)
	{
		MemoryContextSwitchTo(old);
		PG_RETURN_POINTER(a);
	}
	if (a->dim == 0)
		state_set_dim(a, b->dim);
	else if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine training states of dimensions %d and %d",
						a->dim, b->dim)));

	if (a->opt.solver == GSU_SOLVER_SGD)
	{
		/* row-weighted average of the two iterates */
		double		wa = (double) a->n / (double) (a->n + b->n);
		int			j;

		for (j = 0; j <= a->dim; j++)
			a->theta[j] = wa * a->theta[j] + (1.0 - wa) * b->theta[j];
		a->loss_sum += b->loss_sum;
		a->n += b->n;
		a->n_pos += b->n_pos;
		a->n_neg += b->n_neg;
	}
	else
	{
		if (b->v)
			ensure_v(a);
		else if (b->s)
			ensure_s(a);
		for (i = 0; i < b->n; i++)
		{
			int			kind = b->v ? 2 : (b->s && b->s[i] > 0.0) ? 1 : 0;
			GsuVec		mean = {b->dim, b->x + i * b->dim};

			add_row(a, mean, kind, b->v ? b->v + i * b->dim : NULL,
					b->s ? b->s[i] : 0.0, b->y[i]);
		}
		/* add_row counted b's labels */
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/*
 * Serialized state: a header of fixed-width fields (options, dim, counts,
 * flags), then the arrays.  Only parallel workers of the same server produce
 * it, but it is checked as if it were hostile.
 */
typedef struct GsuTrainWire
{
	uint32		magic;
	int32		dim;
	int64		n;
	int64		n_pos;
	int64		n_neg;
	int32		has_s;
	int32		has_v;
	double		loss_sum;
	GsuTrainOptions opt;
} GsuTrainWire;

#define GSU_TRAIN_MAGIC 0x47535531	/* "GSU1" */

Datum
gsu_train_serialfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainWire w;
	StringInfoData buf;
	bool		sgd = st->opt.solver == GSU_SOLVER_SGD;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_TRAIN_MAGIC;
	w.dim = st->dim;
	w.n = st->n;
	w.n_pos = st->n_pos;
	w.n_neg = st->n_neg;
	w.has_s = st->s != NULL;
	w.has_v = st->v != NULL;
	w.loss_sum = st->loss_sum;
	w.opt = st->opt;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	if (st->dim > 0)
	{
		if (sgd)
			pq_sendbytes(&buf, (const char *) st->theta, sizeof(double) * (st->dim + 1));
		else if (st->n > 0)
		{
			pq_sendbytes(&buf, (const char *) st->x, sizeof(double) * st->n * st->dim);
			pq_sendbytes(&buf, (const char *) st->y, sizeof(double) * st->n);
			if (st->s)
				pq_sendbytes(&buf, (const char *) st->s, sizeof(double) * st->n);
			if (st->v)
				pq_sendbytes(&buf, (const char *) st->v, sizeof(double) * st->n * st->dim);
		}
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static void
wire_error(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid serialized gsu.train state: %s", what)));
}

static void
check_finite_block(const double *p, Size count, bool nonneg, const char *what)
{
	Size		i;

	for (i = 0; i < count; i++)
		if (!isfinite(p[i]) || (nonneg && p[i] < 0.0))
			wire_error(what);
}

Datum
gsu_train_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = agg_context(fcinfo, "gsu_train_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuTrainWire w;
	GsuTrainState *st;
	MemoryContext old;
	Size		expect,
				rows;
	bool		sgd;
	int64		i;

	if (len < sizeof(w))
		wire_error("too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != GSU_TRAIN_MAGIC)
		wire_error("bad magic number");
	if (w.dim < 0 || w.dim > GSU_MAX_DIM || w.n < 0 || w.n_pos < 0 || w.n_neg < 0 ||
		w.n_pos + w.n_neg != w.n || (w.dim == 0 && w.n != 0))
		wire_error("bad counts");
	if (w.opt.loss < 0 || w.opt.loss > GSU_LOSS_MAX || w.opt.solver < 0 ||
		w.opt.solver > GSU_SOLVER_SGD || !(w.opt.lambda > 0.0) || !isfinite(w.opt.lambda) ||
		!(w.opt.tolerance > 0.0) || !(w.opt.smoothing > 0.0) || w.opt.epochs < 1 ||
		w.opt.batch_size < 1 || w.opt.max_iterations < 1 || !isfinite(w.loss_sum))
		wire_error("bad options");
	if ((w.has_s != 0 && w.has_s != 1) || (w.has_v != 0 && w.has_v != 1) ||
		(w.has_s && w.has_v))
		wire_error("bad flags");
	sgd = w.opt.solver == GSU_SOLVER_SGD;
	if (w.n > (int64) (MaxAllocHugeSize / sizeof(double) / (2 * (Size) Max(w.dim, 1) + 2)))
		wire_error("too many rows");
	rows = (Size) w.n;
	if (w.dim == 0)
		expect = 0;
	else if (sgd)
		expect = sizeof(double) * ((Size) w.dim + 1);
	else
		expect = sizeof(double) * rows *
			((Size) w.dim + 1 + (w.has_s ? 1 : 0) + (w.has_v ? (Size) w.dim : 0));
	if (len - sizeof(w) != expect)
		wire_error("wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = palloc0(sizeof(GsuTrainState));
	st->opt = w.opt;
	if (w.dim > 0)
		state_set_dim(st, w.dim);
	st->n = w.n;
	st->n_pos = w.n_pos;
	st->n_neg = w.n_neg;
	st->loss_sum = w.loss_sum;
	if (sgd && w.dim > 0)
	{
		memcpy(st->theta, p, expect);
		check_finite_block(st->theta, w.dim + 1, false, "non-finite weights");
	}
	else if (rows > 0)
	{
		int64		pos = 0;

		st->cap = w.n;
		st->x = palloc_extended(sizeof(double) * rows * w.dim, MCXT_ALLOC_HUGE);
		memcpy(st->x, p, sizeof(double) * rows * w.dim);
		p += sizeof(double) * rows * w.dim;
		check_finite_block(st->x, rows * w.dim, false, "non-finite mean");
		st->y = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
		memcpy(st->y, p, sizeof(double) * rows);
		p += sizeof(double) * rows;
		for (i = 0; i < w.n; i++)
		{
			if (st->y[i] == 1.0)
				pos++;
			else if (st->y[i] != -1.0)
				wire_error("bad label");
		}
		if (pos != w.n_pos)
			wire_error("label counts do not match");
		if (w.has_s)
		{
			st->s = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
			memcpy(st->s, p, sizeof(double) * rows);
			check_finite_block(st->s, rows, true, "bad variance");
		}
		if (w.has_v)
		{
			st->v = palloc_extended(sizeof(double) * rows * w.dim, MCXT_ALLOC_HUGE);
			memcpy(st->v, p, sizeof(double) * rows * w.dim);
			check_finite_block(st->v, rows * w.dim, true, "bad variance");
		}
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------- final */

static int
interrupt_pending(void *arg)
{
	(void) arg;
	return QueryCancelPending || ProcDiePending;
}

static void
report_core_error(gsu_status s)
{
	if (s == GSU_ECANCELLED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling gsu.train because of an interrupt")));
	}
	if (s == GSU_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while training")));
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("training failed: %s", gsu_status_string(s))));
}

Datum
gsu_train_finalfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuModel   *m;
	struct timespec t0,
				t1;

	(void) agg_context(fcinfo, "gsu_train_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	if (st->n_pos == 0 || st->n_neg == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("training data has only one class: every one of the " INT64_FORMAT
						" rows has label %d", st->n, st->n_pos ? 1 : -1),
				 errdetail("A classifier needs rows of both labels, -1 and 1.")));

	m = gsu_model_alloc(st->dim);
	m->loss = st->opt.loss;
	m->solver = st->opt.solver;
	m->lambda = st->opt.lambda;
	m->tolerance = st->opt.tolerance;
	m->smoothing = st->opt.smoothing;
	m->max_iterations = st->opt.max_iterations;
	m->epochs = st->opt.epochs;
	m->batch_size = st->opt.batch_size;
	m->seed = st->opt.seed;
	m->rows = st->n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		double		ww = 0.0;
		int			j;

		memcpy(m->theta, st->theta, sizeof(double) * (st->dim + 1));
		for (j = 0; j < st->dim; j++)
			ww += m->theta[j] * m->theta[j];
		/* progressive objective: each row's loss before its own step */
		m->objective = 0.5 * st->opt.lambda * ww + st->loss_sum / (double) st->n;
		m->iterations = st->n;
		m->passes = 1;
	}
	else
	{
		gsu_dataset ds;
		gsu_solve_options o;
		gsu_solve_result res;
		gsu_status	s;

		ds.n = st->n;
		ds.d = st->dim;
		ds.x = st->x;
		ds.y = st->y;
		ds.s = st->s;
		ds.v = st->v;
		gsu_solve_options_default(&o);
		o.lambda = st->opt.lambda;
		o.tolerance = st->opt.tolerance;
		o.smoothing = st->opt.smoothing;
		o.max_iterations = st->opt.max_iterations;
		o.epochs = st->opt.epochs;
		o.batch_size = st->opt.batch_size;
		o.seed = st->opt.seed;
		o.progress = interrupt_pending;
		o.progress_arg = NULL;

		if (st->opt.solver == GSU_SOLVER_NEWTON)
			s = gsu_solve_newton(&ds, &o, m->theta, &res);
		else
			s = gsu_solve_pegasos(&ds, &o, m->theta, &res);
		if (s != GSU_OK)
			report_core_error(s);
		m->objective = res.objective;
		m->gradient_norm = res.gradient_norm;
		m->gap_estimate = res.gap_estimate;
		m->iterations = res.iterations;
		m->passes = res.passes;
		if (res.converged)
			m->flags |= GSU_MODEL_CONVERGED;
		if (st->opt.solver == GSU_SOLVER_NEWTON && !res.converged)
			ereport(WARNING,
					(errmsg("gsu.train did not reach the tolerance %g in %d iterations",
							o.tolerance, o.max_iterations),
					 errdetail("The gradient norm is %g, %g of its value at zero.",
							   res.gradient_norm, res.gradient_norm / res.gradient_norm0),
					 errhint("Raise \"max_iterations\" or \"smoothing\", or standardize the features.")));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
	gsu_model_validate(m, ERRCODE_INTERNAL_ERROR);
	PG_RETURN_GSU_MODEL(m);
}
