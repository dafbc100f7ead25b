/*
 * gsu_robust_internal.h — what the files of the robust / TSVC problem share
 * beyond gsu_robust.h: the problem's validation and per-row loss
 * (gsu_robust_objective.c) and the certificates the solvers
 * (gsu_robust_solve.c) keep.  Not part of the core's API.
 */
#ifndef GSU_ROBUST_INTERNAL_H
#define GSU_ROBUST_INTERNAL_H

#include "gsu_robust.h"

/* 2√π: the smoothing error of H_μ is at most μ/(2√π) */
#define TWO_SQRT_PI 3.5449077018110320546

/* the weight c_i of row i (1 without weights) */
static inline double
gsu_robust_row_weight(const gsu_robust_data *rd, int64_t i)
{
	return rd->weight ? rd->weight[i] : 1.0;
}

/* GSU_EINVAL unless rd describes a problem the solvers accept */
gsu_status	gsu_robust_check_data(const gsu_robust_data *rd);

/* the loss of row i (μ-smoothed), adding scale·∂L/∂θ to grad; work: 2d */
double		gsu_robust_data_row_loss(const gsu_robust_data *rd, int64_t i,
									 const double *theta, double mu, double scale,
									 double *grad, double *work);

/* the best primal point and the best lower bound seen */
typedef struct gsu_robust_certificate
{
	double		f;				/* exact F at best */
	double		lower;			/* max of the dual bounds */
	double	   *best;			/* d + 1 */
	double	   *work;			/* 4d + 2 */
} gsu_robust_certificate;

/* updates c with θ's exact F and its dual lower bound (μ: the smoothing) */
void		gsu_robust_certify(const gsu_robust_data *rd, double lambda, double mu,
							   const double *theta, gsu_robust_certificate *c);

/* F − lower ≤ tol·(1 + |F|) */
int			gsu_robust_certified(const gsu_robust_certificate *c, double tol);

#endif							/* GSU_ROBUST_INTERNAL_H */
