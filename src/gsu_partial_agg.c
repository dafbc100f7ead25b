/*
 * gsu_partial_agg.c — the row functions of the aggregates whose state is a
 * gsu.partial (gsu_partial.c): gsu.gradient and gsu.hessian, the passes of
 * gsu.fit (a row's loss, gradient and Hessian at a model's θ, and the rows
 * near the margin for the hinge polish), and gsu.train_sgd (one Pegasos
 * step a row).  Their combine, and the value's checks, are gsu_partial.c.
 *
 * The aggregates' state type is gsu.partial itself (not internal): the
 * transition functions allocate it in the aggregate context on the first
 * row and then update it in place, which PostgreSQL allows for a
 * pass-by-reference state returned unchanged.  Distributed engines that push
 * partial aggregation to workers need exactly that.
 */
#include "gsu_model.h"
#include "gsu_partial.h"
#include "gsu_json.h"
#include "gsu_memory.h"
#include "core/gsu_scan_newton.h"
#include "core/gsu_standardize.h"

#include <math.h>

#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_partial_combinefn);
PG_FUNCTION_INFO_V1(gsu_gradient_transfn);
PG_FUNCTION_INFO_V1(gsu_hessian_transfn);
PG_FUNCTION_INFO_V1(gsu_hessian_final);
PG_FUNCTION_INFO_V1(gsu_sgd_partial_transfn);

/* ------------------------------------------------------------ aggregates */

/* Per-call cache: scratch for preparing a row's covariance, and the model read once. */
typedef struct GradCache
{
	int			dim;
	double	   *scratch;		/* a row's prepared covariance: scratch_len doubles */
	Size		scratch_len;	/* dim; dim × dim once full, dim × r for a factor of rank r */
	double	   *mean_scratch;	/* dim: a row's mean projected onto its subspace */
	double	   *work;			/* dim */
	double	   *zeros;			/* dim + 1 zeros: θ when no model is given */
	double	   *hwork;			/* 2(dim + 1): gsu_row_loss_grad_hess's scratch */
	GsuModelCache *at;			/* the model θ, read once */
	struct varlena *checked;	/* a copy of the last model that passed the checks */
	uint64		checked_point;	/* and its point (NULL model: the zeros') */
	bool		zeros_checked;
	double	   *std_x;			/* a standardized row's mean (dim), made on first use */
	double	   *std_cov;		/* ... and covariance (std_len doubles) */
	Size		std_len;
	int			hess_blocks;	/* gsu.hessian states given a block of terms (HessState) */
} GradCache;

/*
 * A buffer of at least need doubles in *buf (*len of them now), grown in
 * mcxt: the room for a row's covariance, dim × dim for a full one and
 * dim × r for a factor (never dim × dim for a factor).
 */
static void
grad_cache_room(double **buf, Size *len, Size need, MemoryContext mcxt)
{
	if (need > *len)
	{
		if (*buf)
			pfree(*buf);
		*buf = MemoryContextAllocHuge(mcxt, sizeof(double) * need);
		*len = need;
	}
}

/* the doubles of a row's covariance values (at least dim: the diagonal forms) */
static Size
cov_room(const GsuRowCov *rc, int dim)
{
	return Max(gsu_cov_doubles(rc->kind, dim, rc->rank), (Size) dim);
}

/*
 * The fingerprint of a gradient's point θ (dim + 1 doubles), never 0 (which
 * stands for an unknown point).  A group's rows must share it, and so must
 * the partials that gsu.sum adds: it lives in the state, because a hash
 * aggregate interleaves the rows of its groups.
 */
static uint64
point_fingerprint(const double *theta, int dim)
{
	uint64		h = hash_bytes_extended((const unsigned char *) theta,
										(int) (sizeof(double) * ((Size) dim + 1)), 0);

	return h != 0 ? h : 1;
}

/*
 * gsu_partial_check_produced for a row's transition, which changed only
 * the loss sum and vec[0..n): those are checked (in one pass that
 * vectorizes, gsu_canonicalize_finite) and made canonical; the rest were
 * checked when made.
 */
static inline void
check_produced_prefix(GsuPartial *p, Size n)
{
	int			bad = !isfinite(p->loss_sum);

	bad |= !gsu_canonicalize_finite(p->vec, n);
	p->loss_sum += 0.0;
	p->min_dsigma += 0.0;
	if (unlikely(bad))
		gsu_partial_check_produced(p);
}

/*
 * check_produced_prefix after a transition that checked and canonicalized
 * vec[0..n) itself (gsu_row_loss_grad_diag): vec_finite says whether those
 * were finite.
 */
static inline void
check_produced_scalars(GsuPartial *p, int vec_finite)
{
	p->loss_sum += 0.0;
	p->min_dsigma += 0.0;
	if (unlikely(!vec_finite || !isfinite(p->loss_sum)))
		gsu_partial_check_produced(p);
}

/* The cache in *slot, (re)made for dim in mcxt. */
static GradCache *
grad_cache(MemoryContext mcxt, GradCache **slot, int dim)
{
	GradCache  *c = *slot;

	if (c == NULL || c->dim != dim)
	{
		c = MemoryContextAllocZero(mcxt, sizeof(GradCache));
		c->dim = dim;
		c->scratch = MemoryContextAlloc(mcxt, sizeof(double) * (Size) dim);
		c->scratch_len = (Size) dim;
		c->mean_scratch = MemoryContextAlloc(mcxt, sizeof(double) * (Size) dim);
		c->work = MemoryContextAlloc(mcxt, sizeof(double) * dim);
		c->zeros = MemoryContextAllocZero(mcxt, sizeof(double) * (dim + 1));
		c->hwork = MemoryContextAlloc(mcxt, sizeof(double) * 2 * ((Size) dim + 1));
		*slot = c;
	}
	return c;
}

/* One row of a pass of gsu.gradient or gsu.hessian, at the model's θ and prepared for its loss. */
typedef struct PassRow
{
	GsuVec		mean;
	const double *x;			/* the mean the loss sees (projected onto a subspace) */
	GsuRowCov	rc;				/* the covariance it sees */
	double		y;
	double		c;				/* the row's weight (1: the unweighted aggregates) */
	double		mu;
	const GsuModel *at;			/* NULL: θ = 0 and the gsu loss */
	const double *theta;
	uint64		point;
	int			loss;
	int			mode;
	double		p;
	double		lambda;
	GradCache  *cache;
} PassRow;

/*
 * The point of a pass row at the model at (NULL: θ = 0), after the model's
 * checks (c->dim is the row's dimension).  Every row of a pass usually
 * carries the same model: the checks and the hash of θ (and of the
 * statistics of a standardized model) are done once, and a later row's
 * model is compared with a copy of the checked one byte for byte (a memcmp
 * is much cheaper than the hash), so a model that changes from row to row
 * is still checked and hashed on every row.
 */
static uint64
pass_point(GradCache *c, const GsuModel *at, const char *fn, MemoryContext mcxt)
{
	if (at == NULL)
	{
		if (!c->zeros_checked)
		{
			c->zeros_checked = true;
			c->checked_point = point_fingerprint(c->zeros, c->dim);
			if (c->checked)
				pfree(c->checked);
			c->checked = NULL;
		}
		return c->checked_point;
	}
	if (c->checked == NULL || VARSIZE(c->checked) != VARSIZE(at) ||
		memcmp(c->checked, at, VARSIZE(at)) != 0)
	{
		char	   *what = psprintf("the model of %s", fn);

		/* a regression model's sums are gsu.regression_hessian's (gsu_partial_regression.c) */
		if (gsu_model_is_regression(at))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s takes a classifier, not a regression model (loss \"%s\")",
							what, gsu_loss_name(at->loss)),
					 errhint("Sum a regression model's rows with gsu.regression_hessian(mean, variance, "
							 "target, at, smoothing); gsu.fit trains regression with a regression \"loss\".")));
		gsu_model_require_plain_binary(at, what);
		pfree(what);
		if (at->dim != c->dim)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("mean has %d elements, but the model has dimension %d",
							c->dim, at->dim)));
		gsu_require_gradient_loss(at->loss, fn);
		if (c->checked)
			pfree(c->checked);
		c->checked = MemoryContextAlloc(mcxt, VARSIZE(at));
		memcpy(c->checked, at, VARSIZE(at));
		c->checked_point = point_fingerprint(GSU_MODEL_THETA(at, 0), at->dim);
		if (at->flags & GSU_MODEL_STANDARDIZED)
		{
			/* the same θ at other statistics is another point: mix them in */
			uint64		h = hash_bytes_extended((const unsigned char *) GSU_MODEL_STD_MEAN(at),
												(int) (sizeof(double) * GSU_MODEL_STD_LEN(at)),
												c->checked_point);

			c->checked_point = h != 0 ? h : 1;
		}
		if (at->flags & GSU_MODEL_MISSING)
		{
			/* so are other feature moments of "missing" */
			uint64		h = hash_bytes_extended((const unsigned char *) GSU_MODEL_MISS_MEAN(at),
												(int) (sizeof(double) * GSU_MODEL_MISS_LEN(at)),
												c->checked_point);

			c->checked_point = h != 0 ? h : 1;
		}
		c->zeros_checked = false;
	}
	return c->checked_point;
}

/*
 * A pass row at a model trained with "standardize" (its statistics in
 * GSU_MODEL_STD_*): the row as the solver sees it, x' = D^-1(x - m) and
 * Sigma' = D^-1 Sigma D^-1 (gsu_standardize.h), in the cache's buffers.
 */
static void
standardize_pass_row(PassRow *r, MemoryContext mcxt)
{
	GradCache  *c = r->cache;
	GsuRowCov	out;

	if (c->std_x == NULL)
		c->std_x = MemoryContextAlloc(mcxt, sizeof(double) * (Size) c->dim);
	/* D⁻¹ΣD⁻¹, or for a factor D⁻¹L: dim × r, as the factor itself */
	grad_cache_room(&c->std_cov, &c->std_len, cov_room(&r->rc, c->dim), mcxt);
	gsu_standardize_mean(c->dim, GSU_MODEL_STD_MEAN(r->at), GSU_MODEL_STD_SCALE(r->at),
						 r->x, c->std_x);
	gsu_standardize_cov(c->dim, GSU_MODEL_STD_SCALE(r->at), &r->rc, &out, c->std_cov);
	r->x = c->std_x;
	r->rc = out;
}

/*
 * Reads the row of a pass: (state, mean, variance, label, at, smoothing),
 * or with weighted (state, mean, variance, label, weight, at, smoothing).
 * false for a row without a mean or label, or (weighted) whose weight is
 * NULL or 0, which the pass skips, as gsu.train's weighted form does.  fn
 * names the aggregate in messages; rows wider than max_dim are refused
 * with hint.
 */
static bool
read_pass_row(FunctionCallInfo fcinfo, const char *fn, int max_dim, const char *hint,
			  bool weighted, PassRow *r)
{
	int			o = weighted ? 1 : 0;	/* the arguments after label move by one */
	int			nmiss;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (weighted && PG_ARGISNULL(4)))
		return false;
	r->c = 1.0;
	if (weighted)
	{
		r->c = gsu_check_row_weight(PG_GETARG_FLOAT8(4));
		if (r->c == 0.0)
			return false;
	}
	/* missing elements (NULL, NaN) are allowed only by a model with moments, known below */
	r->mean = gsu_vec_from_array_or_missing(PG_GETARG_ARRAYTYPE_P(1), "mean", &nmiss);
	if (r->mean.n > max_dim)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s takes rows of dimension at most %d, not %d", fn, max_dim, r->mean.n),
				 hint ? errhint("%s", hint) : 0));
	r->y = gsu_check_label(PG_GETARG_INT32(3));
	r->mu = PG_ARGISNULL(5 + o) ? 0.0 : PG_GETARG_FLOAT8(5 + o);
	if (!(r->mu >= 0.0 && isfinite(r->mu)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("smoothing must be a finite non-negative number, not %g", r->mu)));
	r->cache = grad_cache(fcinfo->flinfo->fn_mcxt, (GradCache **) &fcinfo->flinfo->fn_extra,
						  r->mean.n);
	r->at = NULL;
	r->loss = GSU_LOSS_GSU;
	r->mode = GSU_SUBSPACE_GAUSSIAN;
	r->p = 1.0;
	if (!PG_ARGISNULL(4 + o))
	{
		r->at = gsu_model_arg(fcinfo, 4 + o, &r->cache->at);
		r->loss = r->at->loss;
		r->p = r->at->subspace_fraction;
		r->mode = r->at->subspace_mode;
	}
	r->lambda = r->at ? r->at->lambda : 1.0;
	r->theta = r->at ? GSU_MODEL_THETA(r->at, 0) : r->cache->zeros;
	r->point = pass_point(r->cache, r->at, fn, fcinfo->flinfo->fn_mcxt);
	r->rc.kind = GSU_COV_NONE;
	r->rc.iso = 0.0;
	r->rc.data = NULL;
	if (nmiss > 0 && !gsu_partial_missing_row(r->at, fcinfo, 1, 2, &r->mean, &r->rc))
		(void) gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");	/* their error */
	else if (nmiss == 0 && !PG_ARGISNULL(2))
		r->rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), r->mean.n);
	/*
	 * a factor L (dim × r) stays one: its restriction to a subspace is
	 * dim × r (gsu_prepare_cov), and every sum reads it through LᵀΘ, O(dim·r)
	 */
	if (r->rc.kind == GSU_COV_FULL || r->rc.kind == GSU_COV_FACTOR)
		grad_cache_room(&r->cache->scratch, &r->cache->scratch_len, cov_room(&r->rc, r->mean.n),
						fcinfo->flinfo->fn_mcxt);
	r->x = r->mean.data;
	if (r->at && (r->at->flags & GSU_MODEL_STANDARDIZED))
		standardize_pass_row(r, fcinfo->flinfo->fn_mcxt);
	r->rc = gsu_prepare_cov(r->rc, &r->x, r->loss, r->p, r->mode, r->mean.n, r->cache->scratch,
							r->cache->mean_scratch);
	return true;
}

/*
 * The state of a pass: made on the first row (with cap band rows), which
 * fixes its point, smoothing and model; a later row must share them (and
 * whatever else the caller compares: differs), else the error msg.
 */
static GsuPartial *
pass_state(GsuPartial *st, MemoryContext aggctx, const PassRow *r, int kind, int64 cap,
		   bool differs, const char *msg)
{
	if (st == NULL)
	{
		st = gsu_partial_alloc_cap(aggctx, r->mean.n, kind, cap);
		st->mu = r->mu;
		st->min_dsigma = HUGE_VAL;
		st->loss = r->loss;
		st->lambda = r->lambda;
		st->subspace_fraction = r->p;
		st->subspace_mode = (uint16) r->mode;
		st->point = r->point;
		return st;
	}
	if (st->dim != r->mean.n)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", r->mean.n, st->dim)));
	if (r->mu != st->mu || r->point != st->point || r->loss != st->loss ||
		r->p != st->subspace_fraction || r->mode != st->subspace_mode ||
		r->lambda != st->lambda || differs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", msg)));
	return st;
}

/*
 * gsu.gradient(mean, variance, label, [weight float8,] at gsu.model,
 * smoothing float8): adds the row's loss and gradient at the model's θ
 * (θ = 0 when at is NULL) under the model's loss and subspace fraction,
 * times the row's weight c (the weighted form: Σ c_i L_i and Σ c_i ∇L_i).
 */
Datum
gsu_gradient_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.gradient_transfn");
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : (GsuPartial *) PG_GETARG_POINTER(0);
	PassRow		r;
	double		loss,
				quad;
	int			grad_finite;

	if (!read_pass_row(fcinfo, "gsu.gradient", PG_INT32_MAX, NULL, PG_NARGS() == 7, &r))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	/* one point and one smoothing per group */
	st = pass_state(st, aggctx, &r, GSU_PARTIAL_GRADIENT, 0, false,
					"gsu.gradient needs the same model and smoothing on every row of a group");
	if (r.rc.kind == GSU_COV_FULL || r.rc.kind == GSU_COV_FACTOR)
	{
		/* Σθ: O(dim²) for a full Σ, L(Lᵀθ) in O(dim·r) for a factor */
		quad = gsu_cov_quad(r.mean.n, &r.rc, r.theta, r.cache->work);
		loss = gsu_row_loss_grad_quad(r.mean.n, r.theta, r.x, quad, r.cache->work, r.y, r.mu,
									  r.c, st->vec);
		grad_finite = 1;		/* checked below */
	}
	else
		loss = gsu_row_loss_grad_diag(r.mean.n, r.theta, r.x, &r.rc, r.y, r.mu, r.c, st->vec,
									  &quad, &grad_finite);
	st->loss_sum += r.c * loss;
	st->min_dsigma = fmin(st->min_dsigma, sqrt(2.0 * fmax(quad, 0.0)));
	st->n++;
	if (r.y > 0)
		st->n_pos++;
	if (r.rc.kind == GSU_COV_FULL || r.rc.kind == GSU_COV_FACTOR)
		check_produced_prefix(st, (Size) st->dim + 1);
	else
		check_produced_scalars(st, grad_finite);
	PG_RETURN_POINTER(st);
}

/*
 * A row's part in the support data of the hinge polish: rows with a
 * covariance are counted (the polish is for certain rows), the others by
 * their margin d = 1 − y(xᵀw + b): into Σ_V c·y(x, 1) and Σ_V c above the
 * band, kept as (x, y·c) (or counted when full) within it; c is the row's
 * weight (gsu_hinge_polish_sums reads the weighted sums).
 */
static void
support_add(GsuPartial *st, const double *theta, const double *x, const GsuRowCov *rc,
			double y, double c, int dim)
{
	Size		m = (Size) dim + 1;
	double		band = st->vec[GSU_SUP_BAND(dim)];
	double		di;
	int			j;

	if (rc->kind != GSU_COV_NONE)
	{
		st->vec[GSU_SUP_UNCERTAIN(dim)] += 1.0;
		return;
	}
	di = 1.0 - y * gsu_decision(dim, theta, x);
	if (di > band)
	{
		double	   *v = st->vec + GSU_PARTIAL_HESS_SUP(dim);

		for (j = 0; j < dim; j++)
			v[j] += c * y * x[j];
		v[dim] += c * y;
		st->vec[GSU_SUP_COUNT_V(dim)] += c;
	}
	else if (di >= -band)
	{
		int64		ns = (int64) st->vec[GSU_SUP_NS(dim)];

		if (ns < st->steps)
		{
			double	   *r = st->vec + GSU_SUP_ROWS(dim) + (Size) ns * m;

			memcpy(r, x, sizeof(double) * dim);
			r[dim] = y * c;
			st->vec[GSU_SUP_NS(dim)] = (double) (ns + 1);
		}
		else
			st->vec[GSU_SUP_OVER(dim)] += 1.0;
	}
}

/*
 * The running state of gsu.hessian: the gsu.partial value and a block of
 * the Hessian's pending rank-1 terms (core gsu_hess_block), which dsyrk
 * adds HESS_BLOCK_ROWS at a time rather than one packed update a term.  It
 * is an expanded object (utils/expandeddatum.h), so that whatever reads the
 * state as a value, the block is added first: the final function (which
 * PostgreSQL passes a read-only pointer to the object, hess_state_of), and
 * when a parallel worker's partial state goes to the leader or the state is
 * copied, its flattening (hess_flat_size).  The aggregate's state type stays
 * gsu.partial, and every such value is an ordinary one.  A state without
 * the room for a block under gsu.max_training_memory, or past the first
 * HESS_BLOCK_STATES of its aggregate in the process (the groups of a GROUP
 * BY), is a plain gsu.partial updated a row at a time, as before.
 */
#define HESS_BLOCK_ROWS 128
/*
 * The most states of one aggregate in one process with a block: a pass of
 * gsu.fit has one or two, while a GROUP BY of many groups would spend
 * gsu.max_training_memory on blocks (some 40 kB each at dimension 30, ten
 * times the state) that its later groups' states need
 */
#define HESS_BLOCK_STATES 8

typedef struct HessState
{
	ExpandedObjectHeader hdr;
	GsuPartial *p;				/* the value, in hdr.eoh_context */
	gsu_hess_block blk;			/* terms not yet in p's Hessian */
} HessState;

static Size hess_flat_size(ExpandedObjectHeader *eohptr);
static void hess_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods hess_methods = {hess_flat_size, hess_flatten_into};

/* adds the block's terms to the value's Hessian */
static void
hess_flush(HessState *h)
{
	gsu_hess_block_flush(&h->blk, h->p->vec + GSU_PARTIAL_HESS_H(h->p->dim));
}

static Size
hess_flat_size(ExpandedObjectHeader *eohptr)
{
	HessState  *h = (HessState *) eohptr;

	Assert(eohptr->eoh_methods == &hess_methods);
	/* the flat value is the complete one (this changes no value, only where its terms are) */
	hess_flush(h);
	return VARSIZE(h->p);
}

static void
hess_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	HessState  *h = (HessState *) eohptr;

	hess_flush(h);
	Assert(allocated_size == VARSIZE(h->p));
	memcpy(result, h->p, allocated_size);
}

/* the bytes of a state's block (its memory beyond the value) */
static Size
hess_block_bytes(int dim)
{
	return sizeof(HessState) + sizeof(double) *
		gsu_hess_block_doubles(dim + 1, HESS_BLOCK_ROWS, 0);
}

/*
 * The HessState d points to, read-write or read-only, else NULL (a plain
 * gsu.partial).  The transition function gets the aggregate's read-write
 * pointer, but the final function gets a read-only one: finalize_aggregate
 * passes its state through MakeExpandedObjectReadOnly.  A read-only pointer
 * is no flat value either: its bytes are the 10 of the pointer inside the
 * object's header, so taken for a gsu.partial they would be the header,
 * the block's fields and whatever lies past the HessState.
 */
static HessState *
hess_state_of(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == &hess_methods ? (HessState *) eoh : NULL;
}

/*
 * A new running state in aggctx holding the value p (allocated in its own
 * context, which the caller's p is moved into by copying).
 */
static HessState *
hess_state_make(MemoryContext aggctx, GsuPartial *p)
{
	MemoryContext cxt = AllocSetContextCreate(aggctx, "gsu.hessian state", ALLOCSET_SMALL_SIZES);
	HessState  *h = MemoryContextAllocZero(cxt, sizeof(HessState));
	int			m = p->dim + 1;

	EOH_init_header(&h->hdr, &hess_methods, cxt);
	h->p = MemoryContextAllocHuge(cxt, VARSIZE(p));
	memcpy(h->p, p, VARSIZE(p));
	gsu_hess_block_init(&h->blk, m, HESS_BLOCK_ROWS, 0,
						MemoryContextAllocHuge(cxt, sizeof(double) *
											   gsu_hess_block_doubles(m, HESS_BLOCK_ROWS, 0)));
	return h;
}

/* see gsu_partial.h */
GsuPartial *
gsu_partial_state_value(Datum d)
{
	HessState  *h = hess_state_of(d);

	if (h != NULL)
	{
		hess_flush(h);
		return h->p;
	}
	/* a state made by a combine is a plain value, which this returns as it is */
	return (GsuPartial *) PG_DETOAST_DATUM(d);
}

/*
 * The combine function of gsu.partial aggregates: combines two partials of
 * the same kind and dimension (gsu_partial_combine_into), updating the first
 * in place when it is the aggregate's own state (for gsu.hessian an expanded
 * object, whose pending terms gsu_partial_state_value adds first).
 */
Datum
gsu_partial_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	GsuPartial *a,
			   *b;

	aggctx = gsu_agg_context(fcinfo, "gsu.partial_combine");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	b = gsu_partial_from_datum(PG_GETARG_DATUM(1));
	if (PG_ARGISNULL(0))
	{
		/* the first partial becomes the state: copy it into the aggregate context */
		a = MemoryContextAlloc(aggctx, VARSIZE(b));
		memcpy(a, b, VARSIZE(b));
		PG_RETURN_POINTER(a);
	}
	a = gsu_partial_state_value(PG_GETARG_DATUM(0));
	gsu_partial_combine_into(a, b);
	PG_RETURN_POINTER(a);
}

/*
 * gsu.hessian(mean, variance, label, [weight float8,] at gsu.model,
 * smoothing float8, band float8): adds the row's loss (at the smoothing and
 * at 0), gradient and Hessian at the model's θ (θ = 0 when at is NULL), and
 * y(x, 1), all times the row's weight c (1 in the unweighted form), under
 * the model's loss and subspace fraction: the sums of one scan of gsu.fit's
 * solver "newton" (core/gsu_scan_newton.h); with band > 0 also the support
 * data of the hinge polish (support_add).  O(dim²) a row (O(dim²·r) for a
 * covariance factor of rank r: r rank-1 updates, never the row's dim × dim Σ).
 */
Datum
gsu_hessian_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.hessian_transfn");
	HessState  *hs = PG_ARGISNULL(0) ? NULL : hess_state_of(PG_GETARG_DATUM(0));
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : hs ? hs->p : (GsuPartial *) PG_GETARG_POINTER(0);
	PassRow		r;
	double		band,
				dsigma;
	int			j;
	Size		m;
	bool		fresh = st == NULL;
	bool		weighted = PG_NARGS() == 8;

	if (!read_pass_row(fcinfo, "gsu.hessian", GSU_PARTIAL_HESS_MAX_DIM,
					   "gsu.fit trains such rows with \"solver\": \"lbfgs\" (passes of gsu.gradient).",
					   weighted, &r))
	{
		if (!PG_ARGISNULL(0))
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		PG_RETURN_NULL();
	}
	band = PG_ARGISNULL(weighted ? 7 : 6) ? 0.0 : PG_GETARG_FLOAT8(weighted ? 7 : 6);
	if (!(band >= 0.0 && isfinite(band)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("band must be a finite non-negative number, not %g", band)));
	if (fresh)
	{
		/*
		 * the state's O(dim²) sums count against gsu.max_training_memory
		 * with every other state of the query (gsu_memory.h), and so does
		 * the block of pending terms, which the state has only when there
		 * is room for it
		 */
		GsuMemCharge *charge = gsu_mem_charge(aggctx, fcinfo);
		Size		bytes = gsu_partial_hessian_bytes(r.mean.n, band > 0.0);

		gsu_mem_require(charge, bytes,
						"gsu.hessian", psprintf("A Hessian partial of dimension %d", r.mean.n),
						"Raise gsu.max_training_memory, or train with gsu.fit's \"solver\": \"lbfgs\", whose passes hold O(dim) a state.");
		st = pass_state(NULL, aggctx, &r, GSU_PARTIAL_HESSIAN,
						band > 0.0 ? gsu_partial_support_capacity(r.mean.n) : 0, false, NULL);
		if (band > 0.0)
			st->vec[GSU_SUP_BAND(r.mean.n)] = band;
		if (r.cache->hess_blocks < HESS_BLOCK_STATES &&
			bytes + hess_block_bytes(r.mean.n) <= gsu_mem_room(charge))
		{
			r.cache->hess_blocks++;
			gsu_mem_set(charge, bytes + hess_block_bytes(r.mean.n));
			hs = hess_state_make(aggctx, st);
			pfree(st);
			st = hs->p;
		}
	}
	else
		st = pass_state(st, aggctx, &r, GSU_PARTIAL_HESSIAN, 0,
						(st->steps > 0 ? st->vec[GSU_SUP_BAND(r.mean.n)] : 0.0) != band,
						"gsu.hessian needs the same model, smoothing and band on every row of a group");

	m = (Size) r.mean.n + 1;
	if (st->steps > 0)
		support_add(st, r.theta, r.x, &r.rc, r.y, r.c, r.mean.n);
	st->loss_sum += gsu_row_loss_grad_hess_blocked(r.mean.n, r.theta, r.x, &r.rc, r.y, r.c, r.mu,
												   st->vec, st->vec + GSU_PARTIAL_HESS_H(r.mean.n),
												   st->vec + GSU_PARTIAL_HESS_LOSS0(r.mean.n),
												   &dsigma, r.cache->hwork,
												   hs ? &hs->blk : NULL);
	for (j = 0; j < r.mean.n; j++)
		st->vec[m + j] += r.c * r.y * r.x[j];
	st->vec[m + r.mean.n] += r.c * r.y;
	st->min_dsigma = fmin(st->min_dsigma, dsigma);
	st->n++;
	if (r.y > 0)
		st->n_pos++;
	/*
	 * The O(dim²) sums are checked once, by the final function and by
	 * combine: a sum that overflowed stays non-finite.
	 */
	if (unlikely(!isfinite(st->loss_sum)))
	{
		if (hs)
			hess_flush(hs);
		gsu_partial_check_produced(st);
	}
	if (hs)
		PG_RETURN_DATUM(EOHPGetRWDatum(&hs->hdr));
	PG_RETURN_POINTER(st);
}

/*
 * gsu.hessian's final function: the state, checked (FINALFUNC_MODIFY =
 * READ_WRITE).  As an aggregate's final function it gets the aggregate's
 * own state, a HessState through a read-only pointer or a plain value;
 * called by itself (it is an SQL function) its argument is someone else's
 * value, maybe compressed or out of line, which it checks in a copy.
 */
Datum
gsu_hessian_final(PG_FUNCTION_ARGS)
{
	GsuPartial *st;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (AggCheckCallContext(fcinfo, NULL))
		st = gsu_partial_state_value(PG_GETARG_DATUM(0));	/* pending terms added */
	else
	{
		GsuPartial *v = gsu_partial_from_datum(PG_GETARG_DATUM(0));

		st = v;
		if ((Pointer) v == DatumGetPointer(PG_GETARG_DATUM(0)))
		{
			st = palloc(VARSIZE(v));
			memcpy(st, v, VARSIZE(v));
		}
	}
	gsu_partial_check_produced(st);
	PG_RETURN_POINTER(st);
}

/* Options of gsu.train_sgd, parsed once per distinct options datum. */
typedef struct SgdCache
{
	GsuArgMemo	options;		/* the options value opt was parsed from */
	GsuTrainOptions opt;
	GsuModel   *init;
	GradCache  *grad;
	bool		moments_checked;	/* the state's moments are the options' */
} SgdCache;

/*
 * gsu.train_sgd(mean, variance, label, options): one Pegasos step per row in
 * scan order, on a gsu.partial state (the iterate) updated in place.
 */
Datum
gsu_sgd_partial_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : (GsuPartial *) PG_GETARG_POINTER(0);
	SgdCache   *sc = (SgdCache *) fcinfo->flinfo->fn_extra;
	GsuVec		mean;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};
	GradCache  *cache;
	const double *x;
	double		y;
	int			nmiss;

	aggctx = gsu_agg_context(fcinfo, "gsu.sgd_partial_transfn");
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	/* the options are parsed again when their value changes */
	if (sc == NULL || !gsu_arg_memo_same(fcinfo, 4, &sc->options))
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		Jsonb	   *opt_value = PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4);

		if (sc == NULL)
			sc = palloc0(sizeof(SgdCache));
		sc->options.set = false;	/* sc->opt is rewritten below */
		sc->moments_checked = false;
		gsu_parse_train_options(opt_value, &sc->opt, &sc->init);
		/* the loss hinge's default of gsu.train (dcd) counts as no solver */
		if (sc->opt.solver == GSU_SOLVER_DCD &&
			!gsu_options_solver_given(opt_value))
			sc->opt.solver = GSU_SOLVER_NEWTON;
		if (sc->opt.solver != GSU_SOLVER_NEWTON && sc->opt.solver != GSU_SOLVER_SGD)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gsu.train_sgd runs the sgd solver only")));
		gsu_reject_class_weight(&sc->opt, "gsu.train_sgd");
		gsu_require_missing_moments(&sc->opt, "train with gsu.train, whose solvers newton, pegasos and dcd buffer the rows");
		if (sc->opt.standardize)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gsu.train_sgd does not take the option \"standardize\""),
					 errdetail("A streaming pass steps on each row before the statistics of all rows are known."),
					 errhint("Standardize with gsu.train (solvers newton and pegasos) or gsu.fit.")));
		gsu_check_stochastic_lambda(sc->opt.lambda, GSU_SOLVER_SGD);
		gsu_require_gradient_loss(sc->opt.loss, "gsu.train_sgd");
		if (sc->opt.map_kind != GSU_MAP_NONE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("gsu.train_sgd does not take the option \"features\""),
					 errhint("Train a model with a feature map with the aggregate gsu.train.")));
		gsu_arg_memo_set(fcinfo, 4, &sc->options);
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = sc;
	}
	mean = gsu_partial_sgd_mean(&sc->opt, PG_GETARG_ARRAYTYPE_P(1), &nmiss);
	y = gsu_check_label(PG_GETARG_INT32(3));
	if (st == NULL)
	{
		st = gsu_partial_sgd_state(aggctx, mean.n, &sc->opt, PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4));
		sc->moments_checked = true;
		st->loss = sc->opt.loss;
		st->lambda = sc->opt.lambda;
		st->subspace_fraction = sc->opt.subspace_fraction;
		st->subspace_mode = (uint16) sc->opt.subspace_mode;
		if (sc->init)
		{
			gsu_model_require_plain_binary(sc->init, "the \"init\" model of gsu.train_sgd");
			if (sc->init->dim != mean.n)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("the \"init\" model has dimension %d, but the rows have %d",
								sc->init->dim, mean.n)));
			/* warm start: continue from the model and its step count */
			memcpy(st->vec, GSU_MODEL_THETA(sc->init, 0), sizeof(double) * ((Size) mean.n + 1));
			st->steps = sc->init->iterations;
		}
	}
	else if (st->dim != mean.n)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", mean.n, st->dim)));
	else if (st->loss != sc->opt.loss || st->lambda != sc->opt.lambda ||
			 st->subspace_fraction != sc->opt.subspace_fraction ||
			 st->subspace_mode != sc->opt.subspace_mode ||
			 st->flags != gsu_partial_sgd_flags(&sc->opt) ||
			 (!sc->moments_checked &&
			  !gsu_partial_sgd_same_moments(st, PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.train_sgd options must be the same for every row of a group"),
				 errdetail("The loss, lambda, subspace_fraction, subspace_mode and the options of \"missing\" are read from the first row; a later row has different ones.")));
	sc->moments_checked = true;
	cache = grad_cache(fcinfo->flinfo->fn_mcxt, &sc->grad, mean.n);
	if (nmiss > 0)
		rc = gsu_partial_sgd_fill(st, fcinfo, 2, &mean, nmiss);
	else if (!PG_ARGISNULL(2))
		rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n);
	gsu_cov_no_factor(&rc, "gsu.train_sgd");
	if (rc.kind == GSU_COV_FULL)
		grad_cache_room(&cache->scratch, &cache->scratch_len, cov_room(&rc, mean.n),
						fcinfo->flinfo->fn_mcxt);
	x = mean.data;
	rc = gsu_prepare_cov(rc, &x, sc->opt.loss, sc->opt.subspace_fraction, sc->opt.subspace_mode,
						 mean.n, cache->scratch, cache->mean_scratch);

	st->steps++;
	st->loss_sum += gsu_sgd_step(st->dim, st->vec, st->lambda, st->steps, x, &rc, y, 1.0,
								 cache->work);
	st->n++;
	if (y > 0)
		st->n_pos++;
	check_produced_prefix(st, (Size) st->dim + 1);
	PG_RETURN_POINTER(st);
}
