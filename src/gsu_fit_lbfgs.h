/*
 * gsu_fit_lbfgs.h — gsu.fit's solver lbfgs (gsu_fit_lbfgs.c), above the
 * passes (gsu_fit_pass.h).  Not for other files.
 */
#ifndef GSU_FIT_LBFGS_H
#define GSU_FIT_LBFGS_H

#include "gsu_fit_pass.h"

/*
 * The solver lbfgs (passes of gsu.gradient under the core's continuation):
 * the model's fields into m, its theta into *theta_out; *empty when the
 * relation has no rows.
 */
void		gsu_fit_lbfgs(FitPass *fp, GsuModel *init, GsuModel *m, double **theta_out,
						  bool *empty);

#endif							/* GSU_FIT_LBFGS_H */
