/*
 * gsu_fit_standardize.h — the option "standardize" of gsu.fit
 * (gsu_fit_standardize.c), above the passes (gsu_fit_pass.h).  Not for
 * other files.
 */
#ifndef GSU_FIT_STANDARDIZE_H
#define GSU_FIT_STANDARDIZE_H

#include "gsu_fit_pass.h"

/*
 * The scan of "standardize": fp->std (and fp->dim) from the statistics of
 * the means of the rows training reads (weight: the row-weight column, whose
 * rows of weight NULL or 0 it skips, or NULL); fp->std stays NULL when the
 * relation has no rows.
 */
void		gsu_fit_statistics(FitPass *fp, Oid relid, const char *schema, const char *weight);

/* theta from the sample's model sm, in the units fp trains in */
void		gsu_fit_start_theta(const FitPass *fp, const GsuModel *sm, double *theta);

#endif							/* GSU_FIT_STANDARDIZE_H */
