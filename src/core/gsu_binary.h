/*
 * gsu_binary.h — one binary problem, any loss: the one place that decides
 * how a loss is solved.
 *
 * The Gaussian family (gsu, hinge) goes to the batch Newton solver or
 * Pegasos (gsu_solve.h) on the rows as given (Newton in the span of the rows
 * and their covariances' ranges when these are full and of low rank,
 * gsu_span.c), the hinge loss without their covariances and, with the
 * solver dcd, to dual coordinate descent (gsu_dcd.c); the worst-case family (tsvc, robust, psvm) to the robust
 * core (gsu_robust.h) with each row's shape computed here from its
 * covariance: TSVC's radius δ_i, PSVM's given radius r_i, the robust
 * loss's Σ_i^½ or, in feature space, the caller's boxes.  A new loss is a
 * row in gsu_loss_info (gsu_loss_table.c) and, when it needs a solver of its
 * own, a branch here.
 */
#ifndef GSU_BINARY_H
#define GSU_BINARY_H

#include "gsu_loss_table.h"
#include "gsu_solve.h"
#include "gsu_featmap.h"

typedef struct gsu_binary_problem
{
	const gsu_dataset *ds;		/* rows, ±1 labels, covariances, weights */
	gsu_loss_kind loss;
	gsu_solver_kind solver;		/* GSU_SOLVER_NEWTON, _PEGASOS or _DCD (certain rows) */
	/* the worst-case family */
	double		gamma;			/* robust: radius γ; tsvc: norm bound γ */
	int			q;				/* robust: the norm of ‖A_i w‖_q (1, 2 or 0 for ∞) */
	double		delta_scale;	/* tsvc: δ_i = delta_scale·√(mean variance) */
	int			tsvc_alternating;	/* tsvc: the alternating algorithm, not the relaxation */
	/* robust with a feature map's exact worst case over boxes, or NULL */
	const gsu_featmap_rows *worst_case;
} gsu_binary_problem;

/*
 * Minimizes the loss's objective over theta (length d + 1, the starting
 * point; a warm start when o->warm_start).  res->free_rows receives, for a
 * TSVC solution that is the zero model, the rows whose shift γδ_i reaches
 * the margin 1 (0 otherwise).  GSU_EINVAL for a loss of the worst-case
 * family on rows without covariances (the caller says why first), or for
 * an unknown loss; otherwise the solver's status.
 */
gsu_status	gsu_train_binary(const gsu_binary_problem *p, const gsu_solve_options *o,
							 double *theta, gsu_solve_result *res);

#endif							/* GSU_BINARY_H */
