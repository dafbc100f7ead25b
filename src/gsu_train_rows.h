/*
 * gsu_train_rows.h — the state of the gsu.train aggregate (GsuTrainState)
 * and the rows it buffers (gsu_train_rows.c): buffers that grow without moving
 * once large (an mmap'd reservation), bounded by gsu.max_training_memory.
 * The row store knows the options and the memory kit, never the aggregate's
 * other files: gsu_train.h (gsu_train.c, gsu_train_wire.c,
 * gsu_train_solve.c) sits above it.
 */
#ifndef GSU_TRAIN_ROWS_H
#define GSU_TRAIN_ROWS_H

#include "gsu_glue.h"
#include "gsu_options.h"
#include "gsu_memory.h"
#include "core/gsu_featmap.h"

struct GsuModel;

/*
 * A buffer that grows without moving once it is large: see gsu_growbuf_resize.
 * Zeroed, it stands for a buffer that is palloc'd (or absent).
 */
typedef struct GsuGrowBuf
{
	void	   *map;			/* base of an mmap'd reservation, or NULL */
	Size		map_bytes;		/* its length */
} GsuGrowBuf;

void	   *gsu_growbuf_resize(GsuGrowBuf *g, void *p, Size used_bytes, Size new_bytes,
							   Size max_bytes);
void		gsu_growbuf_free(GsuGrowBuf *g, void *p);
void		gsu_growbuf_unmap(GsuGrowBuf *g);

typedef struct GsuTrainState
{
	GsuTrainOptions opt;
	int32		dim;			/* 0 until the first row */
	int64		n;				/* rows seen */
	int64		n_pos;			/* rows with label 1 */
	int64		n_neg;			/* rows with another label */
	/* buffered solvers */
	int64		cap;			/* rows the buffers can hold */
	double	   *x;				/* cap × dim */
	double	   *y;				/* cap labels (any int4: one-vs-rest for more than 2) */
	double	   *wt;				/* cap row weights (> 0), or NULL while all are 1 */
	/*
	 * Covariances are kept at the level of the most general row seen so
	 * far, in one buffer: none, s (cap isotropic variances), v (cap × dim
	 * diagonals) or c (cap × dim × dim full matrices); or factors, cap ×
	 * dim × rank (GSU_COV_FACTOR, which mixes only with certain rows, stored
	 * as zero factors).
	 */
	GsuCovKind	level;
	int32		rank;			/* GSU_COV_FACTOR: the columns of every row's L, else 0 */
	double	   *cov;
	/* how x, y, wt and cov grow (gsu_growbuf_resize), and what unmaps them */
	GsuGrowBuf	gx,
				gy,
				gwt,
				gcov;
	MemoryContextCallback unmap;
	/* what the buffers count against the limit (gsu_memory.h), and for a
	 * deserialized state the serialized bytes it came from */
	GsuMemCharge *mem;
	Size		wire_bytes;
	/* a row's covariance being prepared: scratch_len doubles (dim, grown to
	 * dim × dim for a full one or dim × rank for a factor restricted to its subspace) */
	double	   *scratch;
	Size		scratch_len;
	double	   *mean_scratch;	/* dim doubles: a row's mean projected onto its subspace */
	double	   *work;			/* dim doubles */
	/* sgd */
	double	   *theta;			/* dim + 1 */
	double		loss_sum;		/* Σ c_i L_i, each row's loss before its step */
	double		weight_sum;		/* sgd: Σ c_i, row times class weight (n without weights) */
	int64		t0;				/* steps taken before this pass (warm start) */
	/* the "init" model: the starting point (and, for sgd, the step count) */
	struct GsuModel *init;
	/* explicit class weights (class_weight = {...}), else NULL */
	GsuClassWeights *cw;
	/* the first row's options, to check that every row has the same */
	Jsonb	   *options;
	/* the hint past gsu.max_training_memory with the gsu.fit call of this query, or NULL */
	const char *fit_hint;
	/*
	 * feature_bound "worst_case": set only in the mapped copy train_mapped
	 * solves on, the map, the input means and the per-row boxes
	 * (gsu_featmap_row_box), n × gsu_featmap_box_len
	 */
	const gsu_featmap *fmap;
	const double *fmap_x;
	const double *fbox;
	/*
	 * option "missing": "feature_moments": a missing mean element is buffered
	 * as NaN until the final function computes the features' observed moments
	 * and fills the rows (gsu_train_fill_missing); then the moments block
	 * (GSU_MISSING_BLOCK_LEN(dim) doubles, in the aggregate context), else NULL
	 */
	double	   *miss_block;
	/*
	 * with the block: the observed means and the population variances of
	 * the present means alone (2·dim doubles, NaN for a feature never
	 * present), which "standardize" uses whatever the user gave; else NULL
	 */
	double	   *miss_observed;
	/*
	 * option "missing": "feature_moments": per feature, the sum over the
	 * rows where its mean element is present of the row's variance Σ_jj as
	 * given (before a loss drops it), which a combine adds and the
	 * serialized state carries (dim doubles, from the first row); else NULL
	 */
	double	   *miss_var_sum;
} GsuTrainState;

/* ----------------------------------------------------- gsu_train_rows.c */

/*
 * the reset callback of a state's context (GsuTrainState.unmap, set by
 * gsu_train_state_alloc): unmaps the row buffers that went into mappings
 */
void		gsu_rows_unmap(void *arg);

/* doubles one buffered row takes (mean, label, weight, covariance) */
Size	gsu_rows_doubles_per_row(const GsuTrainState *st, GsuCovKind level, bool weighted);
/* the row store's capacity once it holds n rows of per_row doubles (its growth: doubling from 64) */
int64	gsu_rows_capacity(int64 n, Size per_row);
/* an uninitialized buffer of rows x per_row doubles (huge allocations allowed) */
double	   *gsu_rows_alloc(int64 rows, Size per_row);
/* the covariance of buffered row i */
GsuRowCov	gsu_rows_cov(const GsuTrainState *st, int64 i);
/* an error unless a sum of row weights is finite */
void	gsu_rows_check_weight_sum(double sum);
/* appends one row (growing the buffers, raising the covariance level) */
void	gsu_rows_store(GsuTrainState *st, const double *x, const GsuRowCov *rc, double y, double weight);
/*
 * an error (22000) unless a row's covariance kind (and factor rank) can join
 * st's rows: a covariance factor mixes only with certain rows and factors of
 * its rank; the other kinds mix freely (the buffer takes the most general)
 */
void		gsu_rows_check_kind(const GsuTrainState *st, GsuCovKind kind, int rank);
/* raises the buffer's covariance level to level (not a factor), rewriting the rows stored so far */
void		gsu_rows_raise_level(GsuTrainState *st, GsuCovKind level);
/* a combine: room in a for b's rows, checked against the limit before anything grows */
void		gsu_rows_reserve_for(GsuTrainState *a, const GsuTrainState *b);
/* a deserialize: checks and counts rows at level (and weighted) before they are allocated */
void		gsu_rows_check_deserialized(GsuTrainState *st, int64 rows, GsuCovKind level, bool weighted);
/*
 * the error (54000) of a training over gsu.max_training_memory; st's charge
 * says whether the limit was shared by a parallel plan
 */
void		gsu_state_memory_error(const GsuTrainState *st, Size need, const char *detail,
								   const char *hint) pg_attribute_noreturn();
/* the bytes st's buffers may hold (its share of the limit, besides this process's other states) */
Size		gsu_state_memory_room(const GsuTrainState *st);
/* frees a deserialized state's rows once they are in the combined state */
void		gsu_train_state_release(GsuTrainState *st);

/*
 * the hint of a buffered training over gsu.max_training_memory, when the
 * gsu.fit call of the query is not known (GsuTrainState.fit_hint)
 */
#define GSU_STREAMING_HINT "Raise gsu.max_training_memory, or train out of core with " \
	"gsu.fit(relation, mean, variance, label, options), which reads the table in a few scans, " \
	"or in streaming mode with '{\"solver\": \"sgd\"}', which needs memory for one row only."
/* (covariance factors too: gsu.fit takes them, and the sgd solver) */
#define GSU_MEMORY_HINT(st) ((st)->fit_hint ? (st)->fit_hint : GSU_STREAMING_HINT)

/*
 * A core status of the training path as an error (gsu_train_rows.c):
 * divergence (GSU_ENOTFINITE) with advice on what to change, everything
 * else as gsu_report_status reports it.
 */
void	gsu_train_report_status(gsu_status s);

#endif							/* GSU_TRAIN_ROWS_H */
