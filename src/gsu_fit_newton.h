/*
 * gsu_fit_newton.h — gsu.fit's solver newton (gsu_fit_newton.c), above the
 * passes (gsu_fit_pass.h).  Not for other files.
 */
#ifndef GSU_FIT_NEWTON_H
#define GSU_FIT_NEWTON_H

#include "gsu_fit_pass.h"

/* one row's shape, read before the scans (LIMIT 1): dimension and covariance doubles */
typedef struct RowShape
{
	bool		found;
	int			dim;
	Size		cov_doubles;
	int			rank;			/* a factor's columns, else 0 */
} RowShape;

/* one row's shape (LIMIT 1), before the scans */
RowShape	gsu_fit_probe_row(const FitPass *fp, Oid relid, const char *schema);

/*
 * Whether the solver newton polishes with the band of the margin: rows it
 * reads as certain (a loss without covariances, or no variance column),
 * whose exact hinge optimum the polish finds (gsu_hinge_polish_sums).
 */
bool		gsu_fit_newton_band(const FitPass *fp);

/* the solver newton: the model's fields into m, its theta into *theta_out */
void		gsu_fit_newton(FitPass *fp, GsuModel *init, Oid relid, const char *schema,
						   const RowShape *shape, GsuModel *m, double **theta_out,
						   const struct timespec *t0);

#endif							/* GSU_FIT_NEWTON_H */
