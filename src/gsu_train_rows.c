/*
 * gsu_train_rows.c — the rows gsu.train buffers: compact dense arrays of means,
 * labels, row weights and covariances (at the level of the most general row
 * seen), grown without copying once large, and bounded by
 * gsu.max_training_memory.
 */
#include "gsu_train_rows.h"
#include "core/gsu_regression.h"

#include <math.h>

#include "utils/memutils.h"
#include <sys/mman.h>

/*
 * Advise the kernel to back a large buffer with transparent huge pages, so
 * that filling it takes one page fault per 2 MB instead of one per 4 kB
 * (a 130 MB training buffer is 33000 faults otherwise, a tenth of a
 * training's time where faults are slow, as under virtualization).  Only
 * advice: Linux with THP in "madvise" or "always" mode honours it, any
 * other system or setting ignores it, and so does this on failure.
 */
void
gsu_advise_huge_pages(void *p, Size bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = 2 * 1024 * 1024;
	uintptr_t	start = TYPEALIGN(huge, (uintptr_t) p);
	uintptr_t	end = TYPEALIGN_DOWN(huge, (uintptr_t) p + bytes);

	if (end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#else
	(void) p;
	(void) bytes;
#endif
}

/*
 * Growable buffers (the training aggregate's rows).  Doubling a palloc'd
 * buffer copies everything stored so far at each step (glibc's realloc
 * copies unless the block happens to be mmap'd), and the copies fault in
 * fresh pages: a quarter of the time of buffering 160000 rows in the
 * benchmark.  Once a buffer reaches GROWBUF_MAP_MIN (1 MB), it moves, once, into
 * an anonymous mapping that reserves address space for max_bytes, the most
 * it may ever hold (gsu.max_training_memory); from then on it grows in
 * place, and the kernel backs pages only as they are first written.  The
 * reservation is MAP_NORESERVE, so it is not counted against memory until
 * used; where mmap refuses (strict overcommit, an address-space limit) the
 * buffer simply stays with repalloc.
 *
 * The mapping is not memory-context memory: its owner must call
 * gsu_growbuf_unmap from a reset callback of the context that holds the
 * pointer, and free with gsu_growbuf_free.
 */
#define GROWBUF_MAP_MIN ((Size) 1024 * 1024)

void *
gsu_growbuf_resize(GsuGrowBuf *g, void *p, Size used_bytes, Size new_bytes, Size max_bytes)
{
	if (g->map != NULL)
	{
		void	   *q;

		if (new_bytes <= g->map_bytes)
			return p;
		/* past the reservation (the bound was raised): back to palloc */
		q = palloc_extended(new_bytes, MCXT_ALLOC_HUGE);
		memcpy(q, p, used_bytes);
		gsu_growbuf_unmap(g);
		gsu_advise_huge_pages(q, new_bytes);
		return q;
	}
#ifdef MAP_NORESERVE
	if (new_bytes >= GROWBUF_MAP_MIN && max_bytes >= new_bytes &&
		max_bytes <= MaxAllocHugeSize)
	{
		Size		len = TYPEALIGN((Size) 2 * 1024 * 1024, max_bytes);
		void	   *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
							 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m != MAP_FAILED)
		{
			gsu_advise_huge_pages(m, len);
			elog(DEBUG1, "pg_gsu: a buffer of %zu kB moved into a mapping of %zu kB",
				 new_bytes / 1024, len / 1024);
			if (p != NULL)
			{
				memcpy(m, p, used_bytes);
				pfree(p);
			}
			g->map = m;
			g->map_bytes = len;
			return m;
		}
	}
#endif
	p = p ? repalloc_huge(p, new_bytes) : palloc_extended(new_bytes, MCXT_ALLOC_HUGE);
	gsu_advise_huge_pages(p, new_bytes);
	return p;
}

void
gsu_growbuf_unmap(GsuGrowBuf *g)
{
	if (g->map != NULL)
		(void) munmap(g->map, g->map_bytes);
	g->map = NULL;
	g->map_bytes = 0;
}

void
gsu_growbuf_free(GsuGrowBuf *g, void *p)
{
	if (g->map != NULL)
		gsu_growbuf_unmap(g);
	else if (p != NULL)
		pfree(p);
}

/* ------------------------------------------------------------- buffers */

/* doubles a buffered row takes: mean, label, covariance, weight if any */
Size
gsu_rows_doubles_per_row(const GsuTrainState *st, GsuCovKind level, bool weighted)
{
	return (Size) st->dim + 1 + gsu_cov_doubles(level, st->dim, st->rank) + (weighted ? 1 : 0);
}

/*
 * The error of gsu.max_training_memory, for the row store and for the
 * estimate of the whole training path alike: one wording, one SQLSTATE, the
 * hint telling a split aggregate's share (gsu_mem_errhint).
 */
void
gsu_state_memory_error(const GsuTrainState *st, Size need, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("training data needs more than gsu.max_training_memory (%d kB)",
					gsu_max_training_memory_kb),
			 errdetail("%s needs %zu kB.", detail, (need + 1023) / 1024),
			 gsu_mem_errhint(st->mem, hint)));
}

Size
gsu_state_memory_room(const GsuTrainState *st)
{
	return gsu_mem_room_for(st->mem, 0);
}

/* what st's buffers hold at their capacity, counted by its charge */
static void
account(GsuTrainState *st)
{
	if (st->mem == NULL)
		return;
	gsu_mem_set(st->mem, sizeof(double) * (Size) st->cap *
				gsu_rows_doubles_per_row(st, st->level, st->wt != NULL) +
				(st->mem->deserialized ? st->wire_bytes : 0));
}

/* see gsu_train_rows.h */
void
gsu_train_state_release(GsuTrainState *st)
{
	if (st->mem == NULL || !st->mem->deserialized)
		return;
	gsu_growbuf_free(&st->gx, st->x);
	gsu_growbuf_free(&st->gy, st->y);
	gsu_growbuf_free(&st->gwt, st->wt);
	gsu_growbuf_free(&st->gcov, st->cov);
	st->x = st->y = st->wt = st->cov = NULL;
	st->n = st->cap = 0;
	account(st);
}

static void
check_memory(const GsuTrainState *st, int64 rows, GsuCovKind level, bool weighted)
{
	Size		limit = gsu_mem_room_for(st->mem, st->mem && st->mem->deserialized ? st->wire_bytes : 0);
	Size		per_row = gsu_rows_doubles_per_row(st, level, weighted);
	Size		need;

	if ((Size) rows > MaxAllocHugeSize / sizeof(double) / per_row)
		need = MaxAllocHugeSize;
	else
		need = (Size) rows * per_row * sizeof(double);
	if (need > limit)
		gsu_state_memory_error(st, need, psprintf("Buffering " INT64_FORMAT " rows of dimension %d",
												  rows, st->dim), GSU_MEMORY_HINT(st));
}

/* see gsu_train_rows.h */
void
gsu_rows_check_deserialized(GsuTrainState *st, int64 rows, GsuCovKind level, bool weighted)
{
	check_memory(st, rows, level, weighted);
	gsu_mem_set(st->mem, sizeof(double) * (Size) rows *
				gsu_rows_doubles_per_row(st, level, weighted) + st->wire_bytes);
}

double *
gsu_rows_alloc(int64 rows, Size per_row)
{
	Size		bytes = sizeof(double) * (Size) Max(rows, 1) * Max(per_row, 1);
	double	   *p = (double *) palloc_extended(bytes, MCXT_ALLOC_HUGE);

	gsu_advise_huge_pages(p, bytes);
	return p;
}

/* The row buffers of st that went into mappings go when its context does. */
void
gsu_rows_unmap(void *arg)
{
	GsuTrainState *st = (GsuTrainState *) arg;

	gsu_growbuf_unmap(&st->gx);
	gsu_growbuf_unmap(&st->gy);
	gsu_growbuf_unmap(&st->gwt);
	gsu_growbuf_unmap(&st->gcov);
}

/* Grows one row buffer of st from st->n used rows to cap, in place once large. */
static double *
grow_rows(GsuTrainState *st, GsuGrowBuf *g, double *p, int64 cap, int64 limit_rows, Size width)
{
	Size		row = sizeof(double) * Max(width, 1);

	return (double *) gsu_growbuf_resize(g, p, row * (Size) st->n, row * (Size) Max(cap, 1),
										 row * (Size) Max(limit_rows, 1));
}

/* The covariance of buffered row i, at the buffer's level. */
GsuRowCov
gsu_rows_cov(const GsuTrainState *st, int64 i)
{
	GsuRowCov	rc = {st->level, 0.0, NULL, 0};

	switch (st->level)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			rc.iso = st->cov[i];
			break;
		case GSU_COV_DIAG:
			rc.data = st->cov + i * st->dim;
			break;
		case GSU_COV_FULL:
			rc.data = st->cov + i * st->dim * st->dim;
			break;
		case GSU_COV_FACTOR:
			rc.data = st->cov + i * st->dim * st->rank;
			rc.rank = st->rank;
			break;
	}
	return rc;
}

/* Writes a row's covariance into slot i of buf, which is at level (rank: a factor's). */
static void
write_cov(double *buf, GsuCovKind level, int dim, int rank, int64 i, const GsuRowCov *rc)
{
	int			j;

	switch (level)
	{
		case GSU_COV_FACTOR:
			{
				double	   *dst = buf + i * dim * rank;

				/* gsu_rows_check_kind let only factors of this rank and certain rows here */
				Assert(rc->kind == GSU_COV_NONE || (rc->kind == GSU_COV_FACTOR && rc->rank == rank));
				if (rc->kind == GSU_COV_FACTOR)
					memcpy(dst, rc->data, sizeof(double) * dim * rank);
				else
					memset(dst, 0, sizeof(double) * dim * rank);
				break;
			}
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			Assert(rc->kind <= GSU_COV_ISO);
			buf[i] = rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
			break;
		case GSU_COV_DIAG:
			{
				double	   *dst = buf + i * dim;

				Assert(rc->kind <= GSU_COV_DIAG);
				if (rc->kind == GSU_COV_DIAG)
					memcpy(dst, rc->data, sizeof(double) * dim);
				else
					for (j = 0; j < dim; j++)
						dst[j] = rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
				break;
			}
		case GSU_COV_FULL:
			{
				double	   *dst = buf + i * dim * dim;

				Assert(rc->kind != GSU_COV_FACTOR);
				if (rc->kind == GSU_COV_FULL)
				{
					memcpy(dst, rc->data, sizeof(double) * dim * dim);
					break;
				}
				memset(dst, 0, sizeof(double) * dim * dim);
				for (j = 0; j < dim; j++)
					dst[j * dim + j] = rc->kind == GSU_COV_DIAG ? rc->data[j] :
						rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
				break;
			}
	}
}

/* see gsu_train_rows.h */
void
gsu_rows_check_kind(const GsuTrainState *st, GsuCovKind kind, int rank)
{
	if (kind == GSU_COV_NONE || (kind != GSU_COV_FACTOR && st->level != GSU_COV_FACTOR))
		return;
	if (kind == GSU_COV_FACTOR && st->level == GSU_COV_FACTOR && rank != st->rank)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("covariance factor has %d columns, but earlier rows' have %d", rank, st->rank),
				 errdetail("The rows of one training share one rank r: every variance is a dim x r array.")));
	if (kind != GSU_COV_FACTOR || (st->level != GSU_COV_FACTOR && st->level != GSU_COV_NONE))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("a covariance factor cannot be mixed with %s variances in one training",
						(kind == GSU_COV_FACTOR ? st->level : kind) == GSU_COV_FULL ? "full" :
						(kind == GSU_COV_FACTOR ? st->level : kind) == GSU_COV_DIAG ? "diagonal" : "isotropic"),
				 errdetail("Every row's variance is a dim x r factor (r < dim), or NULL for a certain row."),
				 errhint("Pass the full covariances L L^T (dim x dim) of the factor rows instead.")));
}

/* Raises the buffer's level (rank: a factor's), rewriting the rows stored so far. */
static void
raise_level(GsuTrainState *st, GsuCovKind level, int rank)
{
	double	   *buf;
	int64		i;

	gsu_rows_check_kind(st, level, rank);
	if (level == st->level || level == GSU_COV_NONE ||
		(level < st->level && st->level != GSU_COV_FACTOR))
		return;
	if (level == GSU_COV_FACTOR)
		st->rank = rank;
	check_memory(st, Max(st->cap, st->n + 1), level, st->wt != NULL);
	buf = gsu_rows_alloc(st->cap, gsu_cov_doubles(level, st->dim, st->rank));
	for (i = 0; i < st->n; i++)
	{
		GsuRowCov	rc = gsu_rows_cov(st, i);

		write_cov(buf, level, st->dim, st->rank, i, &rc);
	}
	gsu_growbuf_free(&st->gcov, st->cov);
	st->cov = buf;
	st->level = level;
	account(st);
}

void
gsu_rows_raise_level(GsuTrainState *st, GsuCovKind level)
{
	raise_level(st, level, 0);
}

/*
 * Starts keeping row weights (the first row whose weight is not 1): the rows
 * stored so far weigh 1.
 */
static void
start_weights(GsuTrainState *st)
{
	int64		i;

	check_memory(st, Max(st->cap, st->n + 1), st->level, true);
	st->wt = gsu_rows_alloc(st->cap, 1);
	for (i = 0; i < st->n; i++)
		st->wt[i] = 1.0;
	account(st);
}

/* the rows of per_row doubles that gsu.max_training_memory holds */
static Size
limit_rows_of(Size per_row)
{
	return (Size) gsu_max_training_memory_kb * 1024 / sizeof(double) / per_row;
}

/* the capacity after cap: geometric growth, but never past the memory bound */
static int64
next_capacity(int64 cap, Size limit_rows)
{
	cap = cap == 0 ? 64 : cap * 2;
	return (Size) cap > limit_rows ? (int64) limit_rows : cap;
}

int64
gsu_rows_capacity(int64 n, Size per_row)
{
	Size		limit_rows = limit_rows_of(per_row);
	int64		cap = 0;

	while (cap < n)
	{
		int64		next = next_capacity(cap, limit_rows);

		if (next <= cap)
			break;
		cap = next;
	}
	return Max(cap, n);
}

/* Makes room for one more row (want rows: exactly that many, for a combine). */
static void
reserve_rows(GsuTrainState *st, int64 want)
{
	Size		per_row,
				limit_rows;
	int64		cap;

	if (want <= st->cap)
		return;
	per_row = gsu_rows_doubles_per_row(st, st->level, st->wt != NULL);
	limit_rows = gsu_state_memory_room(st) / sizeof(double) / per_row;
	check_memory(st, want, st->level, st->wt != NULL);
	cap = want > st->n + 1 ? want : next_capacity(st->cap, limit_rows);
	cap = Max(cap, want);
	st->x = grow_rows(st, &st->gx, st->x, cap, (int64) limit_rows, st->dim);
	st->y = grow_rows(st, &st->gy, st->y, cap, (int64) limit_rows, 1);
	if (st->wt)
		st->wt = grow_rows(st, &st->gwt, st->wt, cap, (int64) limit_rows, 1);
	if (st->level != GSU_COV_NONE)
		st->cov = grow_rows(st, &st->gcov, st->cov, cap, (int64) limit_rows,
							gsu_cov_doubles(st->level, st->dim, st->rank));
	st->cap = cap;
	account(st);
}

static void
reserve_row(GsuTrainState *st)
{
	reserve_rows(st, st->n + 1);
}

/*
 * A combine: checks that a can hold its rows and b's at the most general
 * level and weighting of the two before anything grows, and makes room.
 */
void
gsu_rows_reserve_for(GsuTrainState *a, const GsuTrainState *b)
{
	GsuCovKind	level = Max(a->level, b->level);
	bool		weighted = a->wt != NULL || b->wt != NULL;

	/* a factor state takes only certain rows and factors of its rank */
	gsu_rows_check_kind(a, b->level, b->rank);
	if (level == GSU_COV_FACTOR)
		a->rank = Max(a->rank, b->rank);
	check_memory(a, a->n + b->n, level, weighted);
	raise_level(a, level, a->rank);
	if (weighted && a->wt == NULL)
		start_weights(a);
	reserve_rows(a, a->n + b->n);
}

/* Σ c_i must stay a float8: every c_i is finite, but the sum can overflow */
void
gsu_rows_check_weight_sum(double sum)
{
	if (!isfinite(sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the sum of the training weights is out of range for type double precision"),
				 errhint("Scale the weights down: only their ratios matter.")));
}

/*
 * Buffers a prepared row of weight > 0, or takes the streaming step on it.
 *
 * The sgd step estimates the gradient of (1/W)Σ c_i L_i from one row, with
 * c_i the row's weight times its class weight: the loss term is scaled by
 * c_i over the mean weight of the rows so far (1 without weights, so the
 * unweighted step is unchanged).
 */
void
gsu_rows_store(GsuTrainState *st, const double *x, const GsuRowCov *rc, double y, double weight)
{
	if (y == 1.0)
		st->n_pos++;
	else
		st->n_neg++;

	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		/* a regression target is no label: no class weight */
		bool		regression = gsu_loss_info(st->opt.loss)->regression;
		double		c = regression ? weight : weight * gsu_class_weight_of(st->cw, (int32) y);
		double		loss;

		st->n++;
		st->weight_sum += c;
		gsu_rows_check_weight_sum(st->weight_sum);
		if (regression)
			loss = gsu_regression_sgd_step(st->dim, st->theta, st->opt.lambda, st->t0 + st->n, x, rc,
										   y, st->opt.loss == GSU_LOSS_SQUARED, st->opt.epsilon,
										   c * (double) st->n / st->weight_sum, st->work);
		else
			loss = gsu_sgd_step(st->dim, st->theta, st->opt.lambda, st->t0 + st->n, x, rc,
								y, c * (double) st->n / st->weight_sum, st->work);
		st->loss_sum += c * loss;
		return;
	}

	raise_level(st, rc->kind, rc->rank);
	if (weight != 1.0 && st->wt == NULL)
		start_weights(st);
	reserve_row(st);
	memcpy(st->x + st->n * st->dim, x, sizeof(double) * st->dim);
	st->y[st->n] = y;
	if (st->wt)
		st->wt[st->n] = weight;
	write_cov(st->cov, st->level, st->dim, st->rank, st->n, rc);
	st->n++;
}

/*
 * A core status of the training path as an error: divergence with advice on
 * what to change, everything else as every other caller reports it.
 */
void
gsu_train_report_status(gsu_status s)
{
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("gsu.train diverged: the objective or the iterate is out of range "
						"for type double precision"),
				 errhint("Rescale the features, raise \"lambda\", or start without \"init\".")));
	gsu_report_status(s, "gsu.train");
}
