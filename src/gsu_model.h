/*
 * gsu_model.h — the gsu.model family, for the files that use a model
 * (score, calibrate, explain, train, fit, partial).  Its floors, each
 * standing only on those below it:
 *
 *   gsu_model_layout.h   the value: layout, blocks, allocation, accessors
 *   gsu_model_features.h       its feature map, applied when scoring
 *   gsu_model_hyper.h    its stored hyperparameters (the options it keeps)
 *   gsu_model_check.h    the field-by-field check of a value
 *   gsu_model_text.h     the JSON text form
 *   gsu_model_init.h     the option "init": a model in that form, for the options parsers
 *   gsu_model.c          the type's SQL functions (binary form, inspection)
 *
 * The files of the family include the headers of the floors below them;
 * only gsu_model.c, the top floor, includes this one.
 */
#ifndef GSU_MODEL_H
#define GSU_MODEL_H

#include "gsu_model_layout.h"
#include "gsu_model_features.h"
#include "gsu_model_hyper.h"
#include "gsu_model_check.h"
#include "gsu_model_text.h"
#include "gsu_model_init.h"

/*
 * A scoring function's variance argument argno (float8 when iso_kind, else
 * float8[]) for model m (gsu_model_score.c).
 */
GsuRowCov	gsu_variance_arg(const GsuModel *m, FunctionCallInfo fcinfo, int argno, bool iso_kind);
/*
 * Option "missing" (docs/missing.md), for the scoring functions: the mean
 * argument argno, whose NULL elements a model with the missing block
 * (GSU_MODEL_MISSING) reads as its feature means (else gsu_vec_from_array);
 * and the row's covariance from the variance argument vargno, a diagonal
 * with the feature variances added at the missing elements (a NULL
 * variance: those alone; other forms refused), else gsu_variance_arg.
 */
GsuVec		gsu_model_mean_arg(const GsuModel *m, FunctionCallInfo fcinfo, int argno);
GsuRowCov	gsu_model_row_cov(const GsuModel *m, FunctionCallInfo fcinfo, int argno, int vargno,
							  bool iso_kind);

/*
 * Installs the planner hook of gsu_model_score.c (a parallel nested loop over a
 * cross-joined model materializes it); called once, by _PG_init.
 */
void		gsu_score_planner_init(void);

#endif							/* GSU_MODEL_H */
