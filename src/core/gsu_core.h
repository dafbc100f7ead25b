/*
 * gsu_core.h — the numerical core of pg_gsu, for the glue: its family
 * headers in one.  The files of the core include the headers they need, not
 * this one.
 *
 *   gsu_base.h        the status codes, the progress callback, gsu_dot
 *   gsu_rng.h         the random numbers
 *   gsu_cov.h         a row's covariance gsu_cov and its quadratic forms
 *   gsu_dataset.h     a training set gsu_dataset, its weights and labels
 *   gsu_loss.h        the expected hinge loss of a row (the notation),
 *                     its gradients, the SGD step, scoring
 *   gsu_objective.h   the regularized objective over a data set
 *   gsu_solve.h       the solvers' options, result and report; Newton and
 *                     Pegasos
 *   gsu_dcd.h         dual coordinate descent (the loss hinge)
 *   gsu_polish.h      the hinge polishes
 *   gsu_loss_table.h  the losses a model names, and their policies
 *
 * Pure C11 plus BLAS, LAPACKE and FFTW; no PostgreSQL headers (gsu_base.h).
 */
#ifndef GSU_CORE_H
#define GSU_CORE_H

#include "gsu_base.h"
#include "gsu_rng.h"
#include "gsu_cov.h"
#include "gsu_dataset.h"
#include "gsu_loss.h"
#include "gsu_objective.h"
#include "gsu_solve.h"
#include "gsu_dcd.h"
#include "gsu_polish.h"
#include "gsu_loss_table.h"

#endif							/* GSU_CORE_H */
