/*
 * gsu_train_wire.c — gsu.train under parallel workers: the combine function
 * and its planner support, and the serialized state (checked as if hostile).
 */
#include "gsu_train.h"

#include <math.h>

#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_train_combinefn);
PG_FUNCTION_INFO_V1(gsu_train_combine_support);
PG_FUNCTION_INFO_V1(gsu_train_serialfn);
PG_FUNCTION_INFO_V1(gsu_train_deserialfn);

/* ------------------------------------------------------------- parallel */

Datum
gsu_train_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_combinefn");
	GsuTrainState *a = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainState *b = PG_ARGISNULL(1) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int64		i;

	if (b == NULL || (b->n == 0 && a != NULL))
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = gsu_train_state_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo));
		a->opt = b->opt;
		a->t0 = b->t0;
		a->init = b->init;
		a->options = b->options;
		a->cw = b->cw;
	}
	else if (!gsu_train_same_options(a->options, b->options))
		gsu_train_options_differ();
	if (b->n == 0)
	{
		MemoryContextSwitchTo(old);
		PG_RETURN_POINTER(a);
	}
	if (a->dim == 0)
		gsu_train_state_set_dim(a, b->dim);
	else if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine training states of dimensions %d and %d",
						a->dim, b->dim)));

	if (a->opt.solver == GSU_SOLVER_SGD)
	{
		/* weighted average of the two iterates (by the sum of c_i, n without weights) */
		gsu_sgd_merge(a->dim, a->theta, a->weight_sum, b->theta, b->weight_sum);
		gsu_train_missing_combine(a, b);
		a->loss_sum += b->loss_sum;
		a->weight_sum += b->weight_sum;
		gsu_rows_check_weight_sum(a->weight_sum);
		a->n += b->n;
		a->n_pos += b->n_pos;
		a->n_neg += b->n_neg;
	}
	else
	{
		/* A + B is checked against the limit before a grows */
		gsu_rows_reserve_for(a, b);
		/* rows were prepared when b stored them: store them as they are */
		for (i = 0; i < b->n; i++)
		{
			GsuRowCov	rc = gsu_rows_cov(b, i);

			gsu_rows_store(a, b->x + i * b->dim, &rc, b->y[i], b->wt ? b->wt[i] : 1.0);
		}
		gsu_train_missing_combine(a, b);
		/* store_row counted b's labels */
		gsu_train_state_release(b);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/*
 * The planner's cost of gsu.train's combine step, per partial state (the
 * support function of gsu.train_combinefn).  In a parallel plan a buffered
 * state carries every row its worker read, and moving it to the leader
 * (serialized, through the tuple queue, deserialized, appended) costs more
 * than the parallel scan saves: 2 workers made the default solver 2x slower
 * in bench/run.sh.  The planner has no way to know that, so unless
 * gsu.parallel_training is on, each partial state is priced at 1e10 cost
 * units, PostgreSQL's own disable_cost: the transition function's measured
 * cost (300, docs/performance.md) lets 2 workers save about 0.4 units a row,
 * more than any lesser price once a table has a few hundred thousand rows,
 * so this keeps gsu.train serial on any table; on, it is an ordinary
 * function call.
 */
#define GSU_SERIAL_COMBINE_COST 1.0e10

Datum
gsu_train_combine_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;

		req->startup = 0.0;
		req->per_tuple = gsu_parallel_training ? cpu_operator_cost : GSU_SERIAL_COMBINE_COST;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * Serialized state: a header of fixed-width fields (options, dim, counts,
 * covariance level), then the arrays.  Only parallel workers of the same
 * server produce it, but it is checked as if it were hostile.
 */
typedef struct GsuTrainWire
{
	uint32		magic;
	int32		dim;
	int64		n;
	int64		n_pos;
	int64		n_neg;
	int32		level;
	int32		options_size;	/* bytes of the options jsonb after the header, or 0 */
	int64		t0;
	double		loss_sum;
	double		weight_sum;
	int32		weighted;		/* 1: n row weights follow the labels */
	int32		rank;			/* level GSU_COV_FACTOR: the factors' columns, 1 ≤ rank < dim; else 0 */
	GsuTrainOptions opt;
} GsuTrainWire;

/*
 * "GSU5".  The options travel as GsuTrainOptions' bytes, whose layout the
 * stored options' list decides (GSU_STORED_OPTIONS, gsu_options.h):
 * deserialization parses the options again and compares the two, so an
 * option added or moved needs no new magic number (serialized states pass
 * between processes of one server only).
 */
#define GSU_TRAIN_MAGIC 0x47535535

/*
 * the doubles after a state's rows: with "missing", the per-feature sums of
 * the rows' variances (GsuTrainState.miss_var_sum)
 */
#define WIRE_VAR_SUMS(opt, dim) ((opt).missing != GSU_MISSING_ERROR ? (Size) (dim) : 0)
/* the doubles after an sgd state's weights: with "missing", its block's two counts */
#define WIRE_SGD_COUNTS(opt) ((opt).missing != GSU_MISSING_ERROR ? (Size) 2 : 0)

/* copies n bytes to p and returns the end of the copy */
static char *
append_bytes(char *p, const void *src, Size n)
{
	memcpy(p, src, n);
	return p + n;
}

Datum
gsu_train_serialfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainWire w;
	Size		total;
	bytea	   *out;
	char	   *p;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_TRAIN_MAGIC;
	w.dim = st->dim;
	w.n = st->n;
	w.n_pos = st->n_pos;
	w.n_neg = st->n_neg;
	w.level = st->level;
	w.rank = st->level == GSU_COV_FACTOR ? st->rank : 0;
	w.options_size = st->options ? VARSIZE(st->options) : 0;
	w.t0 = st->t0;
	w.loss_sum = st->loss_sum;
	w.weight_sum = st->weight_sum;
	w.weighted = st->wt != NULL && st->n > 0;
	w.opt = st->opt;

	/*
	 * One allocation of the exact size: a buffered state is the whole
	 * partition's rows, and growing a StringInfo by doubling would copy
	 * them several times over
	 */
	total = sizeof(w) + (Size) w.options_size;
	if (st->dim > 0 && st->opt.solver == GSU_SOLVER_SGD)
		total += sizeof(double) * (st->dim + 1 + WIRE_SGD_COUNTS(st->opt));
	else if (st->dim > 0 && st->n > 0)
		total += sizeof(double) * st->n * ((Size) st->dim + 1 + (w.weighted ? 1 : 0) +
										   gsu_cov_doubles(st->level, st->dim, st->rank)) +
			sizeof(double) * WIRE_VAR_SUMS(st->opt, st->dim);
	out = (bytea *) palloc_extended(VARHDRSZ + total, MCXT_ALLOC_HUGE);
	gsu_advise_huge_pages(out, VARHDRSZ + total);
	SET_VARSIZE(out, VARHDRSZ + total);
	p = VARDATA(out);
	p = append_bytes(p, &w, sizeof(w));
	if (st->options)
		p = append_bytes(p, st->options, VARSIZE(st->options));
	if (st->dim > 0)
	{
		if (st->opt.solver == GSU_SOLVER_SGD)
		{
			p = append_bytes(p, st->theta, sizeof(double) * (st->dim + 1));
			if (WIRE_SGD_COUNTS(st->opt))
				p = append_bytes(p, st->miss_block + 2 * (Size) st->dim, sizeof(double) * 2);
		}
		else if (st->n > 0)
		{
			p = append_bytes(p, st->x, sizeof(double) * st->n * st->dim);
			p = append_bytes(p, st->y, sizeof(double) * st->n);
			if (w.weighted)
				p = append_bytes(p, st->wt, sizeof(double) * st->n);
			if (st->level != GSU_COV_NONE)
				p = append_bytes(p, st->cov, sizeof(double) * st->n * gsu_cov_doubles(st->level, st->dim, st->rank));
			if (WIRE_VAR_SUMS(st->opt, st->dim))
				p = append_bytes(p, st->miss_var_sum, sizeof(double) * st->dim);
		}
	}
	Assert(p == VARDATA(out) + total);
	PG_RETURN_BYTEA_P(out);
}

static void
check_finite_block(const double *p, Size count, bool nonneg, const char *what)
{
	Size		i;

	for (i = 0; i < count; i++)
		if (!isfinite(p[i]) || (nonneg && p[i] < 0.0))
			gsu_wire_error("gsu.train", what);
}

/* the header's counts, weights, covariance level and options size (len: the bytes after it) */
static void
check_wire_header(const GsuTrainWire *w, Size len)
{
	if (w->magic != GSU_TRAIN_MAGIC)
		gsu_wire_error("gsu.train", "bad magic number");
	if (w->dim < 0 || w->dim > GSU_MAX_DIM || w->n < 0 || w->n_pos < 0 || w->n_neg < 0 ||
		w->n_pos + w->n_neg != w->n || (w->dim == 0 && w->n != 0))
		gsu_wire_error("gsu.train", "bad counts");
	if (!isfinite(w->loss_sum))
		gsu_wire_error("gsu.train", "bad loss sum");
	if ((w->weighted != 0 && w->weighted != 1) ||
		(w->weighted && (w->opt.solver == GSU_SOLVER_SGD || w->n == 0)) ||
		!isfinite(w->weight_sum) || w->weight_sum < 0.0 ||
		(w->opt.solver == GSU_SOLVER_SGD ? (w->n > 0) != (w->weight_sum > 0.0) : w->weight_sum != 0.0))
		gsu_wire_error("gsu.train", "bad weights");
	if (w->level < GSU_COV_NONE || w->level > GSU_COV_FACTOR ||
		(w->level == GSU_COV_FACTOR ? w->rank < 1 || w->rank >= w->dim : w->rank != 0))
		gsu_wire_error("gsu.train", "bad covariance level");
	if (w->t0 < 0 || w->options_size < 0 || (Size) w->options_size > len)
		gsu_wire_error("gsu.train", "bad options size");
}

/*
 * The options after the header (p, w->options_size bytes; none: the
 * defaults), parsed again: they are checked by being read, must give
 * w->opt, and their "init" model the state's dimension.  A copy of the
 * options jsonb, or NULL.
 */
static Jsonb *
check_wire_options(const GsuTrainWire *w, const char *p)
{
	GsuTrainOptions again;
	GsuModel   *init = NULL;
	Jsonb	   *options = NULL;

	if (w->options_size > 0 && (w->options_size < (int32) VARHDRSZ ||
								(Size) w->options_size != VARSIZE(p)))
		gsu_wire_error("gsu.train", "bad options size");
	if (w->options_size > 0)
	{
		options = palloc(w->options_size);
		memcpy(options, p, w->options_size);
	}
	/* a state of gsu.train_regression: its own options (an "init" is in the state's weights already) */
	if (gsu_loss_info(w->opt.loss) != NULL && gsu_loss_info(w->opt.loss)->regression)
		gsu_regression_options_parse(options, &again, GSU_REGRESSION_OPTIONS_TRAIN, NULL, NULL);
	else
		gsu_parse_train_options(options, &again, options ? &init : NULL);
	if (memcmp(&again, &w->opt, sizeof(again)) != 0)
		gsu_wire_error("gsu.train", "options do not match");
	if (init && init->dim != w->dim)
		gsu_wire_error("gsu.train", "bad init model");
	return options;
}

/* the buffered rows after the header and options (p): means, labels, weights, covariances */
static void
read_wire_rows(GsuTrainState *st, const GsuTrainWire *w, const char *p, Size per_cov)
{
	Size		rows = (Size) w->n;
	int64		i,
				pos = 0;

	/* the rows and the serialized bytes they come from, before allocating */
	st->rank = w->rank;
	gsu_rows_check_deserialized(st, w->n, (GsuCovKind) w->level, w->weighted != 0);
	st->cap = w->n;
	st->x = gsu_rows_alloc(w->n, w->dim);
	memcpy(st->x, p, sizeof(double) * rows * w->dim);
	p += sizeof(double) * rows * w->dim;
	/* "missing": a missing mean element waits as NaN for the final function's moments */
	if (w->opt.missing == GSU_MISSING_ERROR)
		check_finite_block(st->x, rows * w->dim, false, "non-finite mean");
	else
		for (i = 0; i < (int64) (rows * w->dim); i++)
			if (!isfinite(st->x[i]) && !isnan(st->x[i]))
				gsu_wire_error("gsu.train", "non-finite mean");
	st->y = gsu_rows_alloc(w->n, 1);
	memcpy(st->y, p, sizeof(double) * rows);
	p += sizeof(double) * rows;
	for (i = 0; i < w->n; i++)
	{
		if (st->y[i] == 1.0)
			pos++;
		else if (gsu_loss_info(w->opt.loss)->regression)
		{
			/* a regression target: any finite number */
			if (!isfinite(st->y[i]))
				gsu_wire_error("gsu.train", "bad target");
		}
		else if (!(st->y[i] >= PG_INT32_MIN && st->y[i] <= PG_INT32_MAX &&
				   st->y[i] == floor(st->y[i])))
			gsu_wire_error("gsu.train", "bad label");
	}
	if (pos != w->n_pos)
		gsu_wire_error("gsu.train", "label counts do not match");
	if (w->weighted)
	{
		st->wt = gsu_rows_alloc(w->n, 1);
		memcpy(st->wt, p, sizeof(double) * rows);
		p += sizeof(double) * rows;
		for (i = 0; i < w->n; i++)
			if (!(st->wt[i] > 0.0) || !isfinite(st->wt[i]))
				gsu_wire_error("gsu.train", "bad row weight");
	}
	st->level = w->level;
	if (w->level != GSU_COV_NONE)
	{
		st->cov = gsu_rows_alloc(w->n, per_cov);
		memcpy(st->cov, p, sizeof(double) * rows * per_cov);
		/* variances are non-negative; full matrices were checked when stored */
		check_finite_block(st->cov, rows * per_cov,
						   w->level != GSU_COV_FULL && w->level != GSU_COV_FACTOR,
						   "bad covariance");
		p += sizeof(double) * rows * per_cov;
	}
	if (WIRE_VAR_SUMS(w->opt, w->dim))
	{
		/* "missing": the sums of the rows' variances (allocated by gsu_train_state_set_dim) */
		memcpy(st->miss_var_sum, p, sizeof(double) * w->dim);
		check_finite_block(st->miss_var_sum, w->dim, true, "bad sums of variances");
	}
}

Datum
gsu_train_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuTrainWire w;
	GsuTrainState *st;
	MemoryContext old;
	Size		expect,
				per_cov;
	bool		sgd;
	Jsonb	   *options;

	if (len < sizeof(w))
		gsu_wire_error("gsu.train", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	check_wire_header(&w, len - sizeof(w));
	options = check_wire_options(&w, p);
	p += w.options_size;
	len -= w.options_size;
	sgd = w.opt.solver == GSU_SOLVER_SGD;
	per_cov = w.dim > 0 ? gsu_cov_doubles(w.level, w.dim, w.rank) : 0;
	if (w.n > (int64) (MaxAllocHugeSize / sizeof(double) / ((Size) w.dim + 2 + per_cov)))
		gsu_wire_error("gsu.train", "too many rows");
	if (w.dim == 0)
		expect = 0;
	else if (sgd)
		expect = sizeof(double) * ((Size) w.dim + 1 + WIRE_SGD_COUNTS(w.opt));
	else
		expect = sizeof(double) * (Size) w.n * ((Size) w.dim + 1 + per_cov + (Size) w.weighted) +
			(w.n > 0 ? sizeof(double) * WIRE_VAR_SUMS(w.opt, w.dim) : 0);
	if (len - sizeof(w) != expect)
		gsu_wire_error("gsu.train", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = gsu_train_state_alloc(aggctx, gsu_mem_charge_deserialized(aggctx));
	st->wire_bytes = VARSIZE_ANY(in);
	st->opt = w.opt;
	st->t0 = w.t0;
	if (options)
	{
		/* parse again in the aggregate context, where the state lives */
		GsuTrainOptions again;

		st->options = palloc(VARSIZE(options));
		memcpy(st->options, options, VARSIZE(options));
		if (!gsu_loss_info(w.opt.loss)->regression)
		{
			/* (gsu.train_regression: an "init" is in the weights and t0 already; no "class_weight") */
			gsu_parse_train_options(st->options, &again, &st->init);
			st->cw = gsu_parse_class_weight(st->options);
		}
	}
	if (w.dim > 0)
		gsu_train_state_set_dim(st, w.dim);
	st->n = w.n;
	st->n_pos = w.n_pos;
	st->n_neg = w.n_neg;
	st->loss_sum = w.loss_sum;
	st->weight_sum = w.weight_sum;
	if (sgd && w.dim > 0)
	{
		memcpy(st->theta, p, sizeof(double) * ((Size) w.dim + 1));
		check_finite_block(st->theta, w.dim + 1, false, "non-finite weights");
		if (WIRE_SGD_COUNTS(w.opt))
		{
			/* "missing": the block's counts (the moments are the options', set by set_dim) */
			double	   *counts = st->miss_block + 2 * (Size) w.dim;

			memcpy(counts, p + sizeof(double) * ((Size) w.dim + 1), sizeof(double) * 2);
			if (!(counts[0] >= 0.0 && counts[1] >= counts[0] && counts[1] <= 9e15 &&
				  counts[0] == floor(counts[0]) && counts[1] == floor(counts[1])))
				gsu_wire_error("gsu.train", "bad missing-value counts");
		}
	}
	else if (w.n > 0)
		read_wire_rows(st, &w, p, per_cov);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}
