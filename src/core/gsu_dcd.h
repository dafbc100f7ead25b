/*
 * gsu_dcd.h — the hinge-loss SVM of certain rows by dual coordinate descent
 * (gsu_dcd.c).
 */
#ifndef GSU_DCD_H
#define GSU_DCD_H

#include "gsu_solve.h"

/*
 * The hinge-loss SVM of certain rows (ds->cov_kind GSU_COV_NONE, else
 * GSU_EINVAL) by dual coordinate descent with shrinking, in a random order
 * seeded by o->seed, each stage finished by the band's interior-point
 * polish (gsu_polish_band.c): on success res->gap_estimate is the certified
 * duality gap and res->gradient_norm the residual of the optimality
 * conditions; when no stage's polish succeeds within 400 epochs
 * gsu_solve_newton finishes from the last stage, and when d > 2000 it solves
 * the problem from w = 0.
 * theta's value on entry is not used (α starts at 0).  Deterministic.
 */
gsu_status	gsu_solve_dcd(const gsu_dataset *ds, const gsu_solve_options *o,
						  double *theta, gsu_solve_result *res);

#endif							/* GSU_DCD_H */
