/*
 * gsu_partial.c — gsu.partial, a training state that is an ordinary SQL
 * value, so that partial training can run where the data lives (a parallel
 * worker, a shard on another server) and be combined elsewhere.
 *
 * Two kinds:
 *  - gradient: Σ_i L_i and Σ_i ∇L_i at a given θ over some rows, with the
 *    row counts.  Sums combine exactly, so the partials of the shards of a
 *    table add up to the table's (gsu.fit drives passes of these);
 *  - sgd: a streaming SGD iterate after some rows; partials combine by
 *    row-weighted averaging (an approximation of one sequential pass);
 *  - hessian: the gradient's sums with the packed Hessian and the rows near
 *    the margin, for gsu.fit's solver newton (gsu.hessian).
 *
 * This file holds the value itself: its checks, its allocation and size,
 * the combine of two values (gsu_partial_combine_into, which the SQL
 * function gsu.partial_combine of gsu_partial_agg.c calls for gsu.sum and
 * every aggregate's combine), the class-weighted sum of gsu.fit and the model
 * of an sgd partial.  The aggregates' row functions (gsu.gradient, gsu.hessian,
 * gsu.train_sgd) are in gsu_partial_agg.c, which stands on this file; the
 * text and binary forms are in gsu_partial_io.c.
 */
#include "gsu_model.h"
#include "gsu_partial.h"
#include "core/gsu_scan_newton.h"

#include <math.h>

#include "common/int.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gsu_partial_to_model);

/* ------------------------------------------------------------ validation */

/* the canonical form: −0 becomes +0, as text (JSON) cannot keep the sign of zero */
static void
partial_canonicalize(GsuPartial *p)
{
	p->loss_sum = gsu_canonical_zero(p->loss_sum);
	p->mu = gsu_canonical_zero(p->mu);
	p->min_dsigma = gsu_canonical_zero(p->min_dsigma);
	gsu_canonicalize_zeros(p->vec, GSU_PARTIAL_VLEN(p));
}

/* see gsu_partial.h */
bool
gsu_partial_loss_ok(int loss, int kind)
{
	const gsu_loss_kind_info *l = gsu_loss_info(loss);

	return l != NULL && (l->gradient_pass || l->regression);
}

/*
 * An sgd partial's block of option "missing": variances ≥ 0, and counts of
 * rows (≤ the partial's rows) and of their missing elements (at least one,
 * at most dim a row) that are whole numbers.
 */
static void
validate_missing(const GsuPartial *p, int code)
{
	const double *b = GSU_PARTIAL_MISS(p);
	double		rows = b[2 * (Size) p->dim],
				elements = b[2 * (Size) p->dim + 1];
	int			j;

	for (j = 0; j < p->dim; j++)
		if (b[p->dim + j] < 0.0)
			ereport(ERROR, (errcode(code), errmsg("gsu.partial has a negative missing variance")));
	if (!(rows >= 0.0 && rows <= (double) p->n && rows == floor(rows)) ||
		!(elements >= rows && elements <= rows * p->dim && elements == floor(elements)))
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has bad counts of missing values")));
}

void
gsu_partial_validate(GsuPartial *p, int code)
{
	Size		i;

	if (p->format != (p->flags ? GSU_PARTIAL_FORMAT : GSU_PARTIAL_FORMAT_NO_FLAGS))
		ereport(ERROR, (errcode(code), errmsg("unsupported gsu.partial format %d", p->format)));
	if (p->kind != GSU_PARTIAL_GRADIENT && p->kind != GSU_PARTIAL_SGD &&
		p->kind != GSU_PARTIAL_HESSIAN)
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has unknown kind %d", p->kind)));
	if (p->dim < 1 || p->dim > GSU_MAX_DIM ||
		(p->kind == GSU_PARTIAL_HESSIAN && p->dim > GSU_PARTIAL_HESS_MAX_DIM) ||
		(p->kind == GSU_PARTIAL_HESSIAN && (p->steps < 0 || p->steps > GSU_SUPPORT_MAX_ROWS)) ||
		VARSIZE(p) != offsetof(GsuPartial, vec) + sizeof(double) * GSU_PARTIAL_VLEN(p))
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has a bad dimension or size")));
	if (p->n < 0 || p->n_pos < 0 || p->n_pos > p->n || p->steps < 0 ||
		!gsu_partial_loss_ok(p->loss, p->kind) || (p->flags & ~GSU_PARTIAL_FLAGS_KNOWN) != 0 ||
		(p->flags != 0 && (p->kind != GSU_PARTIAL_SGD || !(p->flags & GSU_PARTIAL_MISSING))) ||
		(gsu_loss_info(p->loss)->regression && p->kind == GSU_PARTIAL_HESSIAN && p->steps != 0) ||
		(gsu_loss_info(p->loss)->regression && p->n_pos != 0) ||
		(p->subspace_mode != GSU_SUBSPACE_GAUSSIAN && p->subspace_mode != GSU_SUBSPACE_COVARIANCE) ||
		(p->kind == GSU_PARTIAL_SGD && p->point != 0))
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has bad counts")));
	if (!isfinite(p->loss_sum) || p->loss_sum < 0.0 || !(p->mu >= 0.0 && isfinite(p->mu)) ||
		!(p->min_dsigma >= 0.0 && isfinite(p->min_dsigma)) ||
		!(p->lambda > 0.0 && isfinite(p->lambda)) ||
		!(p->subspace_fraction > 0.0 && p->subspace_fraction <= 1.0) ||
		/* a regression sgd partial's mu is the tube's ε: 0 for the squared loss */
		(p->kind == GSU_PARTIAL_SGD && p->loss == GSU_LOSS_SQUARED && p->mu != 0.0))
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has bad parameters")));
	for (i = 0; i < GSU_PARTIAL_VLEN(p); i++)
		if (!isfinite(p->vec[i]))
			ereport(ERROR, (errcode(code), errmsg("gsu.partial element %d is not finite", (int) i + 1)));
	if (p->kind == GSU_PARTIAL_HESSIAN && (p->vec[GSU_PARTIAL_HESS_LOSS0(p->dim)] < 0.0 || p->point == 0))
		ereport(ERROR, (errcode(code), errmsg("gsu.partial has bad parameters")));
	if (p->flags & GSU_PARTIAL_MISSING)
		validate_missing(p, code);
	if (p->kind == GSU_PARTIAL_HESSIAN && p->steps > 0)
	{
		double		ns = p->vec[GSU_SUP_NS(p->dim)];

		if (!(ns >= 0.0 && ns <= (double) p->steps && ns == floor(ns)) ||
			p->vec[GSU_SUP_COUNT_V(p->dim)] < 0.0 || p->vec[GSU_SUP_UNCERTAIN(p->dim)] < 0.0 ||
			p->vec[GSU_SUP_OVER(p->dim)] < 0.0 || !(p->vec[GSU_SUP_BAND(p->dim)] > 0.0))
			ereport(ERROR, (errcode(code), errmsg("gsu.partial has a bad support band")));
	}
	partial_canonicalize(p);
}

/* the size of a format-1 value: format 2 added the 8 bytes of point */
#define GSU_PARTIAL1_SIZE(dim) (GSU_PARTIAL_SIZE(dim) - sizeof(uint64))

GsuPartial *
gsu_partial_from_datum(Datum d)
{
	GsuPartial *p = (GsuPartial *) PG_DETOAST_DATUM(d),
			   *q;
	Size		head = offsetof(GsuPartial, point);

	/*
	 * format 2 is format 3 with subspace_mode 0, "covariance" (its zero
	 * reserved bytes), and format 3 is format 4 with no flags
	 */
	if (p->format != 1)
		return p;
	/* format 1: the same fields without point (stored values passed input's checks) */
	if (VARSIZE(p) < head || p->dim < 1 || p->dim > GSU_MAX_DIM ||
		VARSIZE(p) != GSU_PARTIAL1_SIZE(p->dim))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("gsu.partial of format 1 has a bad dimension or size")));
	q = palloc(GSU_PARTIAL_SIZE(p->dim));
	memcpy(q, p, head);
	q->point = 0;
	memcpy((char *) q + offsetof(GsuPartial, loss_sum), (char *) p + head, VARSIZE(p) - head);
	SET_VARSIZE(q, GSU_PARTIAL_SIZE(p->dim));
	q->format = GSU_PARTIAL_FORMAT;
	return q;
}

GsuPartial *
gsu_partial_alloc_in(MemoryContext mcxt, int dim, int kind)
{
	return gsu_partial_alloc_cap(mcxt, dim, kind, 0);
}

/* a partial of kind with room for cap band rows (hessian) and the block of flags (sgd) */
static GsuPartial *
partial_alloc(MemoryContext mcxt, int dim, int kind, int64 cap, uint16 flags)
{
	Size		size = offsetof(GsuPartial, vec) + sizeof(double) *
		(GSU_PARTIAL_LEN3(kind, dim, cap) + ((flags & GSU_PARTIAL_MISSING) ? GSU_PARTIAL_MISS_LEN(dim) : 0));
	GsuPartial *p = MemoryContextAllocHuge(mcxt, size);

	memset(p, 0, size);
	if (kind == GSU_PARTIAL_HESSIAN)
		p->steps = cap;

	SET_VARSIZE(p, size);
	/* a value without flags has the bytes of format 3 (gsu_partial.h) */
	p->format = flags ? GSU_PARTIAL_FORMAT : GSU_PARTIAL_FORMAT_NO_FLAGS;
	p->kind = kind;
	p->flags = flags;
	p->dim = dim;
	p->lambda = 1.0;
	p->subspace_fraction = 1.0;
	p->subspace_mode = GSU_SUBSPACE_GAUSSIAN;
	return p;
}

GsuPartial *
gsu_partial_alloc_cap(MemoryContext mcxt, int dim, int kind, int64 cap)
{
	return partial_alloc(mcxt, dim, kind, cap, 0);
}

GsuPartial *
gsu_partial_alloc_sgd(MemoryContext mcxt, int dim, uint16 flags)
{
	return partial_alloc(mcxt, dim, GSU_PARTIAL_SGD, 0, flags);
}

const char *
gsu_partial_kind_name(int kind)
{
	return kind == GSU_PARTIAL_GRADIENT ? "gradient" : kind == GSU_PARTIAL_SGD ? "sgd" : "hessian";
}

/*
 * A partial that a function is about to return must be one that input
 * accepts (a dump of it must restore): sums that overflowed to ±Infinity
 * are an error here, not a value.
 */
void
gsu_partial_check_produced(GsuPartial *p)
{
	Size		j;

	if (!isfinite(p->loss_sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the loss sum of the gsu.partial is out of range for type double precision")));
	for (j = 0; j < GSU_PARTIAL_VLEN(p); j++)
		if (unlikely(!isfinite(p->vec[j])))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("element %d of the gsu.partial %s is out of range for type double precision",
							(int) j + 1, p->kind == GSU_PARTIAL_SGD ? "iterate" : gsu_partial_kind_name(p->kind)),
					 p->kind == GSU_PARTIAL_SGD ?
					 errhint("A larger lambda keeps the steps 1/(lambda t) of the iterate bounded.") : 0));
	partial_canonicalize(p);
}

/* a + b, or an error naming what is counted */
static int64
add_count(int64 a, int64 b, const char *what)
{
	int64		r;

	if (pg_add_s64_overflow(a, b, &r))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the %s of the combined gsu.partial values are out of range for type bigint", what)));
	return r;
}

/* see gsu_partial.h */
int64
gsu_partial_support_capacity(int dim)
{
	return Min((int64) GSU_SUPPORT_MAX_ROWS, 500 + 4 * ((int64) dim + 1));
}

/* see gsu_partial.h */
Size
gsu_partial_hessian_bytes(int dim, bool band)
{
	return offsetof(GsuPartial, vec) +
		sizeof(double) * GSU_PARTIAL_LEN3(GSU_PARTIAL_HESSIAN, dim, band ? gsu_partial_support_capacity(dim) : 0);
}

/*
 * b's sums added to a's, and b's band rows after a's while there is room
 * (the others are counted): two hessian partials with a support band.
 */
static void
combine_support(GsuPartial *a, const GsuPartial *b)
{
	int			dim = a->dim;
	Size		m = (Size) dim + 1,
				j;
	int64		na = (int64) a->vec[GSU_SUP_NS(dim)],
				nb = (int64) b->vec[GSU_SUP_NS(dim)],
				take = Min(nb, a->steps - na);

	for (j = 0; j < GSU_SUP_NS(dim); j++)
		a->vec[j] += b->vec[j];
	memcpy(a->vec + GSU_SUP_ROWS(dim) + (Size) na * m, b->vec + GSU_SUP_ROWS(dim),
		   sizeof(double) * m * (Size) take);
	a->vec[GSU_SUP_NS(dim)] = (double) (na + take);
	a->vec[GSU_SUP_OVER(dim)] += (double) (nb - take);
}

/*
 * The blocks of option "missing" of two sgd partials: both or neither, of
 * the same moments (the counts add; those of a row sum ≤ 2^53 exactly).
 */
static void
combine_missing(GsuPartial *a, const GsuPartial *b)
{
	Size		d = (Size) a->dim;
	double	   *x = GSU_PARTIAL_MISS(a);
	const double *y = GSU_PARTIAL_MISS(b);

	if (a->flags != b->flags)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine sgd partials trained with different options \"missing\" or \"missing_nan\"")));
	if (!(a->flags & GSU_PARTIAL_MISSING))
		return;
	if (memcmp(x, y, sizeof(double) * 2 * d) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine sgd partials that fill missing values with different \"missing_mean\" or \"missing_variance\"")));
	x[2 * d] += y[2 * d];
	x[2 * d + 1] += y[2 * d + 1];
}

/*
 * b added into a (both partials: the same kind and dimension, else an error
 * 22000); a then checked as a produced value.  The combine function of every
 * aggregate of gsu.partial values and gsu.sum's transition
 * (gsu_partial_combinefn, gsu_partial_agg.c).
 */
void
gsu_partial_combine_into(GsuPartial *a, const GsuPartial *b)
{
	Size		j;

	if (a->kind != b->kind && a->kind != GSU_PARTIAL_HESSIAN && b->kind != GSU_PARTIAL_HESSIAN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine a gradient partial with an sgd partial")));
	if (a->kind != b->kind)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.partial values of kinds %s and %s",
						gsu_partial_kind_name(a->kind), gsu_partial_kind_name(b->kind))));
	if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.partial values of dimensions %d and %d",
						a->dim, b->dim)));
	/* the mode matters only below p = 1, where rows are restricted */
	if (a->lambda != b->lambda || a->loss != b->loss ||
		a->subspace_fraction != b->subspace_fraction ||
		(a->subspace_fraction < 1.0 && a->subspace_mode != b->subspace_mode))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.partial values computed with different lambda, loss, subspace_fraction or subspace_mode")));
	if (a->kind == GSU_PARTIAL_HESSIAN &&
		(a->steps != b->steps ||
		 (a->steps > 0 && a->vec[GSU_SUP_BAND(a->dim)] != b->vec[GSU_SUP_BAND(a->dim)])))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine hessian partials with different support bands")));
	if (a->kind == GSU_PARTIAL_GRADIENT || a->kind == GSU_PARTIAL_HESSIAN)
	{
		if (a->mu != b->mu)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("cannot combine gradients computed with smoothing %g and %g",
							a->mu, b->mu)));
		if (a->point != 0 && b->point != 0 && a->point != b->point)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("cannot combine gradients computed at different models"),
					 errdetail("A sum of gradients is meaningful at one point only.")));
		if (b->point == 0)
			a->point = 0;		/* a format-1 part: the point is not known */
		if (a->kind == GSU_PARTIAL_HESSIAN && a->steps > 0)
			combine_support(a, b);
		else
			for (j = 0; j < GSU_PARTIAL_VLEN(a); j++)
				a->vec[j] += b->vec[j];
		a->min_dsigma = fmin(a->min_dsigma, b->min_dsigma);
	}
	else if (a->mu != b->mu)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine sgd partials computed with epsilon %g and %g",
						a->mu, b->mu)));
	else
	{
		combine_missing(a, b);
		if (a->n + b->n > 0)
		{
			gsu_sgd_merge(a->dim, a->vec, (double) a->n, b->vec, (double) b->n);
			a->steps = add_count(a->steps, b->steps, "steps");
		}
	}
	a->loss_sum += b->loss_sum;
	a->n = add_count(a->n, b->n, "row counts");
	a->n_pos = add_count(a->n_pos, b->n_pos, "row counts");
	gsu_partial_check_produced(a);
}

/* A model from an sgd partial (the streaming iterate). */
Datum
gsu_partial_to_model(PG_FUNCTION_ARGS)
{
	GsuPartial *p = gsu_partial_from_datum(PG_GETARG_DATUM(0));
	GsuModel   *m;
	GsuTrainOptions o;

	if (p->kind != GSU_PARTIAL_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only an sgd gsu.partial holds a model"),
				 errhint("A gradient partial is an input to gsu.fit's solver, not a model.")));
	/* the partial keeps the options that shape its steps; the others are the defaults */
	gsu_options_default(&o);
	o.loss = p->loss;
	if (gsu_loss_info(p->loss)->regression)
		o.epsilon = p->mu;		/* a regression sgd partial's mu is its ε (0: squared) */
	o.solver = GSU_SOLVER_SGD;
	o.lambda = p->lambda;
	o.subspace_fraction = p->subspace_fraction;
	o.subspace_mode = p->subspace_mode;
	m = gsu_model_from_options(p->dim, 2, 0, &o);
	memcpy(GSU_MODEL_THETA(m, 0), p->vec, sizeof(double) * ((Size) p->dim + 1));
	/* the moments that filled the rows, and their counts, as gsu.train's solver sgd keeps them */
	if (p->flags & GSU_PARTIAL_MISSING)
		m = gsu_model_with_missing(m, GSU_PARTIAL_MISS(p), (p->flags & GSU_PARTIAL_MISSING_NAN) != 0);
	m->rows = p->n;
	m->iterations = p->steps;
	m->passes = 1;
	m->objective = gsu_objective_from_sums(p->dim, GSU_MODEL_THETA(m, 0), p->lambda,
										   p->loss_sum, (double) p->n);
	gsu_check_trained_model(m, "sgd training");
	gsu_model_validate(m, ERRCODE_DATA_EXCEPTION);
	PG_RETURN_GSU_MODEL(m);
}

/*
 * a·x + b·y for two gradient or hessian partials of one point and smoothing
 * (x or y may be NULL: missing), a new value: the class-weighted sums of
 * gsu.fit's "balanced" class weights, whose passes sum each class apart
 * (x the rows of one class with weight a, y the other's).  Every sum over
 * rows scales; the counts (rows, the band's counts) add; a band row's
 * y·c is scaled with its class; band rows beyond the capacity are counted
 * as overflow, as combine does.
 */
GsuPartial *
gsu_partial_weighted_sum(const GsuPartial *x, double a, const GsuPartial *y, double b)
{
	const GsuPartial *f = x ? x : y;
	GsuPartial *r;
	Size		j,
				len;
	int			dim;

	if (f == NULL)
		return NULL;
	dim = f->dim;
	r = palloc(VARSIZE(f));
	memcpy(r, f, VARSIZE(f));
	if (x == NULL)
		a = b;					/* r is y */
	len = r->kind == GSU_PARTIAL_HESSIAN && r->steps > 0 ? GSU_SUP_UNCERTAIN(dim) : GSU_PARTIAL_VLEN(r);
	for (j = 0; j < len; j++)
		r->vec[j] *= a;
	r->loss_sum *= a;
	if (r->kind == GSU_PARTIAL_HESSIAN && r->steps > 0)
	{
		Size		m = (Size) dim + 1;
		int64		ns = (int64) r->vec[GSU_SUP_NS(dim)],
					i;

		for (i = 0; i < ns; i++)
			r->vec[GSU_SUP_ROWS(dim) + (Size) i * m + dim] *= a;
	}
	if (x == NULL || y == NULL)
		return r;
	if (y->kind != r->kind || y->dim != dim || y->steps != r->steps || y->point != r->point ||
		y->mu != r->mu)
		elog(ERROR, "gsu.fit: the class partials of a pass differ");
	for (j = 0; j < len; j++)
		r->vec[j] += b * y->vec[j];
	r->loss_sum += b * y->loss_sum;
	if (r->kind == GSU_PARTIAL_HESSIAN && r->steps > 0)
	{
		Size		m = (Size) dim + 1;
		int64		na = (int64) r->vec[GSU_SUP_NS(dim)],
					nb = (int64) y->vec[GSU_SUP_NS(dim)],
					take = Min(nb, r->steps - na),
					i;

		r->vec[GSU_SUP_UNCERTAIN(dim)] += y->vec[GSU_SUP_UNCERTAIN(dim)];
		r->vec[GSU_SUP_OVER(dim)] += y->vec[GSU_SUP_OVER(dim)] + (double) (nb - take);
		for (i = 0; i < take; i++)
		{
			double	   *row = r->vec + GSU_SUP_ROWS(dim) + (Size) (na + i) * m;

			memcpy(row, y->vec + GSU_SUP_ROWS(dim) + (Size) i * m, sizeof(double) * m);
			row[dim] *= b;
		}
		r->vec[GSU_SUP_NS(dim)] = (double) (na + take);
	}
	r->n = add_count(r->n, y->n, "row counts");
	r->n_pos = add_count(r->n_pos, y->n_pos, "row counts");
	r->min_dsigma = fmin(r->min_dsigma, y->min_dsigma);
	gsu_partial_check_produced(r);
	return r;
}
