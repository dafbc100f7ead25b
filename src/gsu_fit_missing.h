/*
 * gsu_fit_missing.h — the option "missing" of gsu.fit (gsu_fit_missing.c),
 * above the passes (gsu_fit_pass.h) as "standardize" is.  Not for other
 * files.
 */
#ifndef GSU_FIT_MISSING_H
#define GSU_FIT_MISSING_H

#include "gsu_fit_pass.h"

/*
 * The scan of "missing", gsu.missing_moments of the extension's schema:
 * fp->miss (and fp->dim) from the rows training reads (a mean, a label
 * and, with the row-weight column weight, a weight above 0), each counted
 * once: the feature moments and counts of gsu.train's missing block, the
 * user's "missing_mean"/"missing_variance" (options) in place of the
 * observed ones.  fp->miss stays NULL when the relation has no rows.
 */
void		gsu_fit_missing_moments(FitPass *fp, Oid relid, const char *schema, const char *weight,
									Jsonb *options);

/* the options of "missing" for the sample's gsu.train: its moments given, appended to buf */
void		gsu_fit_missing_sample_options(const FitPass *fp, StringInfo buf);

#endif							/* GSU_FIT_MISSING_H */
