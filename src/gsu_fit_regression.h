/*
 * gsu_fit_regression.h — gsu.fit's regression (gsu_fit_regression.c): the
 * options that make a call a regression, ridge-GSU from one scan of
 * gsu.regression_hessian, and SVR-GSU's Newton over such scans.  A solver floor of gsu.fit, on the passes
 * (gsu_fit_pass.h); gsu_fit.c calls it.  Not for other files.
 */
#ifndef GSU_FIT_REGRESSION_H
#define GSU_FIT_REGRESSION_H

#include "gsu_fit_pass.h"

/*
 * Whether options name a regression loss ("loss": "squared" or
 * "epsilon_insensitive"): then they are read as gsu.train_regression's
 * into *opt (its keys only, its errors) and true; else false, *opt
 * untouched.
 */
bool		gsu_fit_regression_options(Jsonb *options, GsuTrainOptions *opt);

/*
 * Ridge-GSU over the relation: a row read for the dimension (unless
 * "standardize" found it), one scan of gsu.regression_hessian at θ = 0
 * and the closed form from its sums (core gsu_ridge_from_sums); the
 * model's fields into m and θ into *theta (SPI memory).  *found false when
 * no row is read (nothing trained).  fp's columns, weight, leaves and
 * statistics are set; schema is the extension's, quoted.
 */
void		gsu_fit_ridge(FitPass *fp, Oid relid, const char *schema, GsuModel *m, double **theta,
						  bool *found);

/*
 * SVR-GSU over the relation: gsu_solve_svr's damped Newton method over a
 * smoothing continuation, each evaluation a scan of gsu.regression_hessian
 * (F, ∇F and ∇²F at a point), the same stopping rule; fields and *found as
 * gsu_fit_ridge.
 */
void		gsu_fit_svr(FitPass *fp, Oid relid, const char *schema, GsuModel *m, double **theta,
						bool *found);

#endif							/* GSU_FIT_REGRESSION_H */
