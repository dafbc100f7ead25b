/*
 * gsu_geu_fit.c — the gsu.geu_fit aggregate: learns an LDA or MFA projection,
 * with the GEU uncertainty terms when rows have variances (formulation in
 * src/core/gsu_geu.h), and the helpers the GEU glue shares.
 *
 * State, chosen by the "method" option on the first row:
 *  - lda: per-class sufficient statistics (count, mean, centred scatter, sum
 *    of the rows' covariances), O(dim²) per class whatever the row count;
 *    combined exactly by Chan et al.'s pairwise formulas;
 *  - mfa: the rows themselves (the k-NN graphs need them), bounded by
 *    gsu.max_training_memory; combined by concatenation.
 * The final function builds S and S^p and solves S v = λ S^p v (LAPACK
 * dsygvd), keeping the dims smallest eigenvalues.  The serialized state
 * (parallel workers) is gsu_geu_wire.c, which stands on this file.
 */
#include "gsu_geu_fit.h"
#include "gsu_json.h"

#include <math.h>

#include "core/gsu_geu.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_geu_fit_transfn);
PG_FUNCTION_INFO_V1(gsu_geu_fit_combinefn);
PG_FUNCTION_INFO_V1(gsu_geu_fit_finalfn);

#define GEU_DEFAULT_K1 5
#define GEU_DEFAULT_K2 20
/* where ε goes by default: see docs/geu.md (measured on the paper's Cancer protocol) */
#define GEU_DEFAULT_REGULARIZE GEU_REG_PENALTY

/* ------------------------------------------------------------- options */


static const char *const option_keys[] = {
	"method", "dims", "regularization", "regularize", "k1", "k2", NULL
};

static void
parse_options(Jsonb *jb, GeuOptions *o)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	int64		i64;
	bool		k1_given,
				k2_given;

	memset(o, 0, sizeof(*o));
	o->method = GSU_PROJ_LDA;
	o->regularize = GEU_DEFAULT_REGULARIZE;
	if (jb == NULL)
		return;
	gsu_json_options_object(&cx, jb, option_keys, "{\"method\": \"lda\", \"dims\": 2}");
	{
		static const char *const names[] = {"lda", "mfa", NULL};
		static const int values[] = {GSU_PROJ_LDA, GSU_PROJ_MFA};

		o->method = gsu_json_choice_key(&cx, &jb->root, "method", names, values,
										"Valid methods are: lda, mfa.", GSU_PROJ_LDA);
	}
	if (gsu_json_int64(&cx, &jb->root, "dims", 1, GSU_MAX_DIM, &i64))
		o->dims = (int32) i64;
	if (gsu_json_number(&cx, &jb->root, "regularization", &o->regularization) &&
		!(o->regularization >= 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"regularization\" must not be negative, not %g",
						o->regularization)));
	{
		static const char *const names[] = {"penalty", "both", NULL};
		static const int values[] = {GEU_REG_PENALTY, GEU_REG_BOTH};

		o->regularize = gsu_json_choice_key(&cx, &jb->root, "regularize", names, values,
											"Valid values are: penalty (εI on the penalty scatter only), both.",
											GEU_DEFAULT_REGULARIZE);
	}
	k1_given = gsu_json_int64(&cx, &jb->root, "k1", 1, GEU_MAX_K, &i64);
	o->k1 = k1_given ? (int32) i64 : 0;
	k2_given = gsu_json_int64(&cx, &jb->root, "k2", 1, GEU_MAX_K, &i64);
	o->k2 = k2_given ? (int32) i64 : 0;
	if (o->method == GSU_PROJ_LDA && (k1_given || k2_given))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" applies to method mfa only", k1_given ? "k1" : "k2")));
	if (o->method == GSU_PROJ_MFA)
	{
		if (!k1_given)
			o->k1 = GEU_DEFAULT_K1;
		if (!k2_given)
			o->k2 = GEU_DEFAULT_K2;
	}
}

/* --------------------------------------------------------------- state */

/*
 * A scatter matrix with an entry beyond double precision (squared
 * differences of rows near 1e154 and beyond) is an overflow (22003), not a
 * singular matrix, which is what the eigensolver would make of it.
 */
static void
check_scatter_finite(const double *S, Size d, const char *which)
{
	Size		i;

	for (i = 0; i < d * d; i++)
		if (!isfinite(S[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the %s scatter matrix is out of range for type double precision", which),
					 errhint("Scale the features to a moderate range.")));
}

/* see gsu_geu_fit.h */
void
gsu_geu_memory_error(const GeuFitState *st, double need, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("gsu.geu_fit needs more than gsu.max_training_memory (%d kB)",
					gsu_max_training_memory_kb),
			 errdetail("%s of dimension %d needs %.0f kB.", what, st->dim, ceil(need / 1024.0)),
			 st->opt.method == GSU_PROJ_MFA ?
			 gsu_mem_errhint(st->mem, "Raise gsu.max_training_memory, fit on a sample, or use method lda, which keeps O(dim^2) per class.") :
			 gsu_mem_errhint(st->mem, "Raise gsu.max_training_memory, or reduce the number of classes or features.")));
}

/* what the state holds now, counted by its charge */
static void
account(GeuFitState *st)
{
	double		held;

	if (st->mem == NULL)
		return;
	held = st->opt.method == GSU_PROJ_LDA ?
		(st->capclass > 0 ? lda_bytes(st, st->capclass, st->vfull != NULL) : 0.0) :
		mfa_bytes(st, st->cap, st->vd != NULL, st->vf != NULL);
	gsu_mem_set(st->mem, (Size) held + st->wire_bytes);
}

static void *
grow(void *p, Size bytes)
{
	if (p == NULL)
		return palloc_extended(bytes, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	return repalloc_huge(p, bytes);
}

/* see gsu_geu_fit.h */
void
gsu_geu_set_dim(GeuFitState *st, int dim)
{
	st->dim = dim;
	st->work = palloc(sizeof(double) * 2 * (Size) dim);
}

/* LDA: index of the class of label, created when new (in the aggregate context) */
static int
lda_class(GeuFitState *st, int32 label)
{
	Size		d = st->dim,
				dd = d * d;
	int			c;

	if (st->last < st->nclass && st->labels[st->last] == label)
		return st->last;
	for (c = 0; c < st->nclass; c++)
		if (st->labels[c] == label)
			return st->last = c;
	if (st->nclass == st->capclass)
	{
		int			cap = st->capclass == 0 ? 4 : st->capclass * 2;
		double		need = lda_bytes(st, cap, st->vfull != NULL);

		if (lda_bytes(st, st->nclass + 1, st->vfull != NULL) > limit_bytes_of(st))
			gsu_geu_memory_error(st, lda_bytes(st, st->nclass + 1, st->vfull != NULL),
						 psprintf("Keeping statistics for %d classes", st->nclass + 1));
		if (need > limit_bytes_of(st) || cap > PG_INT32_MAX / 2)
			cap = st->nclass + 1;
		st->labels = grow(st->labels, sizeof(int32) * cap);
		st->counts = grow(st->counts, sizeof(int64) * cap);
		st->means = grow(st->means, sizeof(double) * cap * d);
		st->m2 = grow(st->m2, sizeof(double) * cap * dd);
		st->vdiag = grow(st->vdiag, sizeof(double) * cap * d);
		if (st->vfull)
			st->vfull = grow(st->vfull, sizeof(double) * cap * dd);
		/* repalloc does not zero: clear the new slots */
		memset(st->means + st->capclass * d, 0, sizeof(double) * (cap - st->capclass) * d);
		memset(st->m2 + st->capclass * dd, 0, sizeof(double) * (cap - st->capclass) * dd);
		memset(st->vdiag + st->capclass * d, 0, sizeof(double) * (cap - st->capclass) * d);
		if (st->vfull)
			memset(st->vfull + st->capclass * dd, 0,
				   sizeof(double) * (cap - st->capclass) * dd);
		st->capclass = cap;
		account(st);
	}
	c = st->nclass++;
	st->labels[c] = label;
	st->counts[c] = 0;
	return st->last = c;
}

static void
lda_ensure_vfull(GeuFitState *st)
{
	if (st->vfull)
		return;
	if (lda_bytes(st, Max(st->capclass, 1), true) > limit_bytes_of(st))
		gsu_geu_memory_error(st, lda_bytes(st, Max(st->capclass, 1), true),
					 psprintf("Keeping full covariance sums for %d class%s", Max(st->capclass, 1),
							   Max(st->capclass, 1) == 1 ? "" : "es"));
	st->vfull = palloc_extended(sizeof(double) * Max(st->capclass, 1) * (Size) st->dim * st->dim,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	account(st);
}

/*
 * Room for want rows (doubling, or exactly want rows for a combine) and the
 * variance buffers vd and vf, checked against the limit before anything grows.
 */
static void
mfa_reserve_rows(GeuFitState *st, int64 want, bool exact, bool vd, bool vf)
{
	Size		d = st->dim;
	int64		cap = st->cap;
	bool		need_vd = vd && st->vd == NULL,
				need_vf = vf && st->vf == NULL;

	vd = vd || st->vd;
	vf = vf || st->vf;
	if (want <= st->cap && !need_vd && !need_vf)
		return;
	if (mfa_bytes(st, Max(want, st->cap), vd, vf) > limit_bytes_of(st))
		gsu_geu_memory_error(st, mfa_bytes(st, Max(want, st->cap), vd, vf),
					 psprintf("Holding " INT64_FORMAT " rows", want));
	if (want > st->cap)
	{
		cap = exact ? want : Max(st->cap == 0 ? 64 : st->cap * 2, want);
		if (mfa_bytes(st, cap, vd, vf) > limit_bytes_of(st))
			cap = want + want / 8;
		if (mfa_bytes(st, cap, vd, vf) > limit_bytes_of(st))
			cap = want;
		st->x = grow(st->x, sizeof(double) * cap * d);
		st->y = grow(st->y, sizeof(int32) * cap);
	}
	/* variance buffers are zero for the rows before them (certain rows) */
	if (vd)
	{
		st->vd = grow(st->vd, sizeof(double) * cap * d);
		if (!need_vd && cap > st->cap)
			memset(st->vd + st->cap * d, 0, sizeof(double) * (cap - st->cap) * d);
	}
	if (vf)
	{
		st->vf = grow(st->vf, sizeof(double) * cap * d * d);
		if (!need_vf && cap > st->cap)
			memset(st->vf + st->cap * d * d, 0, sizeof(double) * (cap - st->cap) * d * d);
	}
	st->cap = cap;
	account(st);
}

static void
mfa_reserve(GeuFitState *st, bool vd, bool vf)
{
	mfa_reserve_rows(st, st->n + 1, false, vd, vf);
}

/* var: dim diagonal variances (full false) or dim×dim (full true), or NULL */
static void
add_row(GeuFitState *st, const double *x, const double *var, bool full, int32 label)
{
	Size		d = st->dim,
				i;

	if (var)
	{
		bool		nonzero = false;

		for (i = 0; i < (full ? d * d : d) && !nonzero; i++)
			nonzero = var[i] != 0.0;
		if (!nonzero)
			var = NULL;
		else
			st->uncertain = true;
	}
	if (st->opt.method == GSU_PROJ_LDA)
	{
		int			c = lda_class(st, label);

		gsu_stats_add(st->dim, &st->counts[c], st->means + c * d, st->m2 + c * d * d, x,
					  st->work);
		if (var && !full)
			for (i = 0; i < d; i++)
				st->vdiag[c * d + i] += var[i];
		else if (var)
		{
			lda_ensure_vfull(st);
			for (i = 0; i < d * d; i++)
				st->vfull[c * d * d + i] += var[i];
		}
	}
	else
	{
		mfa_reserve(st, var && !full, var && full);
		memcpy(st->x + st->n * d, x, sizeof(double) * d);
		st->y[st->n] = label;
		if (st->vd)
		{
			if (var && !full)
				memcpy(st->vd + st->n * d, var, sizeof(double) * d);
			else
				memset(st->vd + st->n * d, 0, sizeof(double) * d);
		}
		if (st->vf)
		{
			if (var && full)
				memcpy(st->vf + st->n * d * d, var, sizeof(double) * d * d);
			else
				memset(st->vf + st->n * d * d, 0, sizeof(double) * d * d);
		}
	}
	st->n++;
}

/* (state, mean, variance, label [, options]) */
Datum
gsu_geu_fit_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_geu_fit_transfn");
	GeuFitState *st = PG_ARGISNULL(0) ? NULL : (GeuFitState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		x;
	const double *var = NULL;
	bool		full = false;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(3))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
	{
		GeuOptions	opt;

		parse_options((PG_NARGS() > 4 && !PG_ARGISNULL(4)) ? PG_GETARG_JSONB_P(4) : NULL,
					  &opt);
		st = MemoryContextAllocZero(aggctx, sizeof(GeuFitState));
		st->opt = opt;
		st->mem = gsu_mem_charge(aggctx, fcinfo);
	}
	x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	if (st->dim != 0 && x.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", x.n, st->dim)));
	if (!PG_ARGISNULL(2))
	{
		GsuRowCov	rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), x.n);

		gsu_cov_no_factor(&rc, "gsu.geu_fit");
		var = rc.data;
		full = rc.kind == GSU_COV_FULL;
	}
	old = MemoryContextSwitchTo(aggctx);
	if (st->dim == 0)
		gsu_geu_set_dim(st, x.n);
	add_row(st, x.data, var, full, PG_GETARG_INT32(3));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* ------------------------------------------------------------- parallel */
/* (the serialized state: gsu_geu_wire.c) */

/*
 * A worker's state, once combined, is freed; its charge keeps the serialized
 * bytes it came from, which PostgreSQL holds until the workers are done.
 */
static void
release_deserialized(GeuFitState *b)
{
	void	   *bufs[10];
	int			i;

	if (b->mem == NULL || !b->mem->deserialized)
		return;
	bufs[0] = b->labels;
	bufs[1] = b->counts;
	bufs[2] = b->means;
	bufs[3] = b->m2;
	bufs[4] = b->vdiag;
	bufs[5] = b->vfull;
	bufs[6] = b->x;
	bufs[7] = b->y;
	bufs[8] = b->vd;
	bufs[9] = b->vf;
	for (i = 0; i < 10; i++)
		if (bufs[i])
			pfree(bufs[i]);
	b->labels = NULL;
	b->counts = NULL;
	b->means = b->m2 = b->vdiag = b->vfull = b->x = b->vd = b->vf = NULL;
	b->y = NULL;
	b->nclass = b->capclass = 0;
	b->n = b->cap = 0;
	gsu_mem_set(b->mem, b->wire_bytes);
}

Datum
gsu_geu_fit_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_geu_fit_combinefn");
	GeuFitState *a = PG_ARGISNULL(0) ? NULL : (GeuFitState *) PG_GETARG_POINTER(0);
	GeuFitState *b = PG_ARGISNULL(1) ? NULL : (GeuFitState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	Size		d,
				i;
	int64		r;
	int			c;

	if (b == NULL || (b->n == 0 && a != NULL))
		return gsu_combine_first(fcinfo);
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = palloc0(sizeof(GeuFitState));
		a->opt = b->opt;
		a->mem = gsu_mem_charge(aggctx, fcinfo);
	}
	if (b->n == 0)
	{
		MemoryContextSwitchTo(old);
		PG_RETURN_POINTER(a);
	}
	if (a->dim == 0)
		gsu_geu_set_dim(a, b->dim);
	else if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine gsu.geu_fit states of dimensions %d and %d",
						a->dim, b->dim)));
	d = a->dim;
	a->uncertain = a->uncertain || b->uncertain;
	if (a->opt.method == GSU_PROJ_LDA)
	{
		int			added = 0,
					j;

		/* A + B's new classes, checked before anything grows */
		for (c = 0; c < b->nclass; c++)
		{
			for (j = 0; j < a->nclass && a->labels[j] != b->labels[c]; j++)
				;
			added += j == a->nclass;
		}
		if (a->nclass + added > a->capclass &&
			lda_bytes(a, a->nclass + added, a->vfull || b->vfull) > limit_bytes_of(a))
			gsu_geu_memory_error(a, lda_bytes(a, a->nclass + added, a->vfull || b->vfull),
						 psprintf("Keeping statistics for %d classes", a->nclass + added));
		if (b->vfull)
			lda_ensure_vfull(a);
		for (c = 0; c < b->nclass; c++)
		{
			int			k = lda_class(a, b->labels[c]);

			gsu_stats_merge(a->dim, &a->counts[k], a->means + k * d, a->m2 + k * d * d,
							b->counts[c], b->means + c * d, b->m2 + c * d * d, a->work);
			for (i = 0; i < d; i++)
				a->vdiag[k * d + i] += b->vdiag[c * d + i];
			if (b->vfull)
				for (i = 0; i < d * d; i++)
					a->vfull[k * d * d + i] += b->vfull[c * d * d + i];
		}
		a->n += b->n;
	}
	else
	{
		/* A + B, checked before anything grows */
		mfa_reserve_rows(a, a->n + b->n, true, b->vd != NULL, b->vf != NULL);
		for (r = 0; r < b->n; r++)
		{
			/* add_row skips zero variances; copy the flags through */
			if (b->vf)
				add_row(a, b->x + r * d, b->vf + r * d * d, true, b->y[r]);
			else
				add_row(a, b->x + r * d, b->vd ? b->vd + r * d : NULL, false, b->y[r]);
			/* a row with both kinds: add the diagonal part too */
			if (b->vf && b->vd)
			{
				mfa_reserve(a, true, false);
				for (i = 0; i < d; i++)
					a->vd[(a->n - 1) * d + i] += b->vd[r * d + i];
				a->uncertain = true;
			}
		}
	}
	release_deserialized(b);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* ---------------------------------------------------------------- final */

static int
count_classes(const GeuFitState *st, int32 *one_label)
{
	int32	   *s;
	int			c = 1;
	int64		i;

	if (st->opt.method == GSU_PROJ_LDA)
	{
		*one_label = st->labels[0];
		return st->nclass;
	}
	s = palloc_extended(sizeof(int32) * st->n, MCXT_ALLOC_HUGE);
	memcpy(s, st->y, sizeof(int32) * st->n);
	qsort(s, st->n, sizeof(int32), cmp_int32);
	for (i = 1; i < st->n; i++)
		c += s[i] != s[i - 1];
	*one_label = s[0];
	pfree(s);
	return c;
}

Datum
gsu_geu_fit_finalfn(PG_FUNCTION_ARGS)
{
	GeuFitState *st = PG_ARGISNULL(0) ? NULL : (GeuFitState *) PG_GETARG_POINTER(0);
	GsuProjection *proj;
	gsu_geneig_info info;
	gsu_status	s;
	double	   *S,
			   *Sp;
	Size		d;
	int			classes,
				dims;
	int32		one_label;
	bool		lda;
	gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);
	/* ε on the intrinsic scatter too only in the form "both" */
	double		eps_s = st && st->opt.regularize == GEU_REG_BOTH ? st->opt.regularization : 0.0;

	(void) gsu_agg_context(fcinfo, "gsu_geu_fit_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	lda = st->opt.method == GSU_PROJ_LDA;
	d = st->dim;
	classes = count_classes(st, &one_label);
	if (classes < 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("training data has only one class: every one of the " INT64_FORMAT
						" rows has label %d", st->n, one_label),
				 errdetail("%s needs rows of at least two classes.", lda ? "LDA" : "MFA")));
	dims = st->opt.dims > 0 ? st->opt.dims : Min(classes - 1, (int) d);
	if (dims > (int) d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"dims\" is %d, but the rows have only %d dimensions",
						dims, (int) d),
				 errdetail("A projection cannot have more dimensions than its input.")));
	/* the scatter matrices and the eigensolver's work, besides the state */
	{
		double		held = lda ? lda_bytes(st, st->capclass, st->vfull != NULL) :
			mfa_bytes(st, st->cap, st->vd != NULL, st->vf != NULL);

		if (held + (double) d * d * 6 * sizeof(double) > (double) limit_bytes_of(st))
			gsu_geu_memory_error(st, held + (double) d * d * 6 * sizeof(double), "The scatter matrices");
	}

	S = palloc_extended(sizeof(double) * d * d, MCXT_ALLOC_HUGE);
	Sp = palloc_extended(sizeof(double) * d * d, MCXT_ALLOC_HUGE);
	if (lda)
		gsu_lda_scatter(st->dim, st->nclass, st->counts, st->means, st->m2, st->vdiag,
						st->vfull, eps_s, st->opt.regularization, S, Sp, st->work);
	else
	{
		gsu_graph	gi,
					gp;
		/* the neighbour lists (an index and a 16-byte distance key a slot), pairs and edges */
		double		need = mfa_bytes(st, st->n, st->vd != NULL, st->vf != NULL) +
			(double) st->n * (Min(st->opt.k1, st->n) + Min(st->opt.k2, st->n)) * 4.5 * sizeof(double);

		if (need > limit_bytes_of(st))
			gsu_geu_memory_error(st, need, psprintf("Building the neighbour graphs of " INT64_FORMAT " rows", st->n));
		s = gsu_mfa_graphs(st->n, st->dim, st->x, st->y, st->opt.k1, st->opt.k2, &gi, &gp,
						   gsu_interrupt_pending, NULL);
		if (s != GSU_OK)
			gsu_report_status(s, "gsu.geu_fit");
		s = gsu_graph_scatter(st->n, st->dim, st->x, st->vd, st->vf, &gi,
							  eps_s, S, &pg);
		if (s == GSU_OK)
			s = gsu_graph_scatter(st->n, st->dim, st->x, st->vd, st->vf, &gp,
								  st->opt.regularization, Sp, &pg);
		gsu_graph_free(&gi);
		gsu_graph_free(&gp);
		if (s != GSU_OK)
			gsu_report_status(s, "gsu.geu_fit");
	}
	CHECK_FOR_INTERRUPTS();
	check_scatter_finite(S, d, lda ? "within-class" : "intrinsic");
	check_scatter_finite(Sp, d, lda ? "total" : "penalty");

	proj = gsu_projection_alloc(st->dim, dims);
	s = gsu_geneig_smallest(st->dim, S, Sp, dims, GSU_PROJ_EIGENVALUES(proj),
							GSU_PROJ_VT(proj), &info, &pg);
	if (s == GSU_ECANCELLED)
		gsu_report_status(s, "gsu.geu_fit");
	if (s != GSU_OK && info.singular)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the %s scatter matrix is singular", lda ? "total" : "penalty"),
				 info.rcond > 0.0 ?
				 errdetail("Its reciprocal condition number, scaled to unit diagonal, is below %g.",
						   GSU_GEU_RCOND_MIN) :
				 errdetail("Some direction has no spread, e.g. a constant feature or one that is a combination of others."),
				 lda ?
				 errhint("Set \"regularization\" to a positive value (regularized LDA), give the rows variances, or drop redundant features.") :
				 errhint("Set \"regularization\" to a positive value (regularized MFA), raise \"k2\", or give the rows variances.")));
	if (s != GSU_OK)
		gsu_report_status(s, "gsu.geu_fit");

	proj->method = (uint8) st->opt.method;
	proj->flags = st->uncertain ? GSU_PROJ_UNCERTAIN : 0;
	if (st->opt.regularize == GEU_REG_PENALTY && st->opt.regularization > 0.0)
		proj->flags |= GSU_PROJ_REG_PENALTY;
	proj->k1 = lda ? 0 : st->opt.k1;
	proj->k2 = lda ? 0 : st->opt.k2;
	proj->classes = classes;
	proj->rows = st->n;
	proj->regularization = st->opt.regularization;
	gsu_projection_validate(proj, ERRCODE_INTERNAL_ERROR);
	PG_RETURN_POINTER(proj);
}
