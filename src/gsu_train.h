/*
 * gsu_train.h — the gsu.train aggregate, shared by its files: gsu_train.c
 * (the state's creation, transition, final), gsu_train_wire.c (combine and
 * the serialized state) and gsu_train_solve.c (classes, weights and the
 * solve dispatch); and gsu.train_regression's, gsu_train_regression.c (its
 * transition, calling gsu_train.c) and gsu_train_regression_solve.c (its
 * solve, called by gsu_train.c's final function).  The state and its
 * row buffers are gsu_train_rows.h, the level below (the row store
 * includes nothing of this header).
 */
#ifndef GSU_TRAIN_H
#define GSU_TRAIN_H

#include "gsu_model.h"
#include "gsu_train_rows.h"
#include "gsu_memory.h"

/* ------------------------------------------------------ gsu_train.c */

/* a zeroed state in the aggregate context, its buffers unmapped when that context goes */
GsuTrainState *gsu_train_state_alloc(MemoryContext aggctx, GsuMemCharge *mem);
/* the dimension, fixed by the first row (allocates the per-row work space) */
void	gsu_train_state_set_dim(GsuTrainState *st, int dim);
/* whether two options objects are equal as jsonb */
bool	gsu_train_same_options(Jsonb *a, Jsonb *b);
/* the error when the rows of one training give different options */
void	gsu_train_options_differ(void);
/* an error unless argument arg holds the state's options (the first row's) */
void	gsu_train_check_same_options(GsuTrainState *st, FunctionCallInfo fcinfo, int arg);
/* the transition on one validated row, x of y (a label or a target) and weight > 0 */
/* whether a transition skips its row (NULLs, weight 0); *weight the row's weight */
bool	gsu_train_row_skipped(FunctionCallInfo fcinfo, bool weighted, double *weight);
void	gsu_train_add_row(GsuTrainState *st, GsuVec mean, GsuRowCov rc, double y, double weight);

/* ------------------------------------------------ gsu_train_missing.c */

/*
 * A row of a training with "missing": "feature_moments" whose mean
 * (argument 1) has NULL elements (or, with "missing_nan", NaN elements):
 * *mean with NaN at them, and *rc a diagonal
 * covariance from argument 2 (diagonal variances, or NULL: zeros) whose NULL
 * elements at missing means read as 0 (the feature's variance is added by
 * gsu_train_fill_missing).  False, with nothing set, when the option is off
 * or the mean has no missing element.  iso_variance: argument 2 is a float8.
 */
bool	gsu_train_missing_row(GsuTrainState *st, FunctionCallInfo fcinfo, bool iso_variance,
							  GsuVec *mean, GsuRowCov *rc);
/*
 * With "missing": "feature_moments", when the first row fixes st->dim: the
 * per-feature sums of the rows' variances (st->miss_var_sum, zeros), and
 * the lengths of "missing_mean" and "missing_variance" checked against the
 * dimension (22023).  Nothing without the option.
 */
void	gsu_train_missing_start(GsuTrainState *st);
/*
 * A row's variances Σ_jj as given (rc before a loss drops it; x with NaN at
 * its missing elements) added to st->miss_var_sum where x_j is present.
 */
void	gsu_train_missing_add_variances(GsuTrainState *st, const double *x, const GsuRowCov *rc);
/* a combine: b's sums of variances added to a's */
void	gsu_train_missing_combine(GsuTrainState *a, const GsuTrainState *b);
/*
 * The solver sgd with "missing" (both moments given): a row's missing
 * elements (NaN in mean->data, from gsu_train_missing_row) filled from
 * st->miss_block, the feature's variance added to the row's diagonal
 * (copies), and the block's counts raised, before the step.  Nothing for
 * another solver or a row without a missing element.
 */
void	gsu_train_missing_fill_row(GsuTrainState *st, GsuVec *mean, GsuRowCov *rc);
/*
 * With "missing": "feature_moments", once every row is in: each feature's
 * mean over the rows where it is present and its variance by the law of
 * total variance (the population variance of those means plus the average
 * of those rows' Σ_jj), the
 * missing means set to the feature's mean and its variance added to their
 * rows' covariances, and st->miss_block set (only once: a second call
 * finds it).  Nothing without the option.
 */
void	gsu_train_fill_missing(GsuTrainState *st);

/* ---------------------------------------- gsu_train_regression_solve.c */

/* the regression model of a finished state of gsu.train_regression (its loss is a regression loss) */
GsuModel   *gsu_train_solve_regression(GsuTrainState *st);

/* ---------------------------------------------- gsu_train_features.c */

/*
 * The map of option "features" for the buffered rows: its matrix block
 * (gsu_featmap_length doubles, *len) and the mapped dimension (*dim).
 */
double	   *gsu_train_feature_map(const GsuTrainState *st, int *dim, int64 *len);
/*
 * The rows in feature space (*xo, n × D) and what the loss reads of them
 * (*vo: the feature-space moments, the per-row bounds of feature_bound, or
 * NULL); NOTICEs when sigma is small for the rows' uncertainty.
 */
void		gsu_train_map_rows(const GsuTrainState *st, const gsu_featmap *f, double **xo,
							   double **vo);

/* ------------------------------------------------ gsu_train_solve.c */

/*
 * the bytes gsu.train counts for n buffered rows, no feature map (rank: the
 * columns of factor covariances, else 0)
 */
double	gsu_train_buffered_bytes(const GsuTrainOptions *o, int64 n, int64 cap, int dim,
								 Size cov_doubles, int rank, bool weighted);
/* the model of a finished state (the final function's work) */
GsuModel   *gsu_train_solve(GsuTrainState *st);
/* a copy of st on standardized rows, its centres and scales in mean and scale (dim each) */
GsuTrainState gsu_train_standardized_copy(const GsuTrainState *st, double *mean, double *scale);
/* frees the rows of a copy of gsu_train_standardized_copy */
void	gsu_train_standardized_free(GsuTrainState *std);

#endif							/* GSU_TRAIN_H */
