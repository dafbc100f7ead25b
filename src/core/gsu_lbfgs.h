/*
 * gsu_lbfgs.h — limited-memory BFGS in reverse communication: the caller
 * evaluates f and ∇f wherever the method asks, so each evaluation can be a
 * pass of a SQL aggregate over a table (gsu.fit).
 */
#ifndef GSU_LBFGS_H
#define GSU_LBFGS_H

#include "gsu_base.h"

typedef enum gsu_lbfgs_action
{
	GSU_LBFGS_EVALUATE,			/* evaluate at x; the last point was rejected */
	GSU_LBFGS_ACCEPTED,			/* the last point was accepted; evaluate at x */
	GSU_LBFGS_STUCK				/* the line search cannot decrease f further */
} gsu_lbfgs_action;

typedef struct gsu_lbfgs
{
	int			n;				/* number of parameters */
	int			m;				/* pairs kept */
	int			pairs;			/* pairs stored so far (≤ m) */
	int			head;			/* slot of the oldest pair */
	double	   *s,
			   *y,
			   *rho,
			   *alpha;			/* m×n, m×n, m, m */
	double	   *x;				/* the point to evaluate next */
	double	   *xc,
			   *gc;				/* the current (accepted) point and its gradient */
	double	   *dir;
	double		fc;				/* f at xc */
	double		step;
	double		slope;			/* ∇f(xc)ᵀdir */
	int			started;
} gsu_lbfgs;

/* x0 (length n) is the first point to evaluate. */
gsu_status	gsu_lbfgs_init(gsu_lbfgs *L, int n, int m, const double *x0);
void		gsu_lbfgs_free(gsu_lbfgs *L);

/*
 * Reports f and g at L->x.  The method then puts the next point to evaluate
 * in L->x.  After GSU_LBFGS_ACCEPTED, L->xc, L->gc and L->fc hold the newly
 * accepted point, the caller's place to test convergence.
 */
gsu_lbfgs_action gsu_lbfgs_tell(gsu_lbfgs *L, double f, const double *g);

#endif							/* GSU_LBFGS_H */
