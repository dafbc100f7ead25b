/*
 * gsu_objective.h — the regularized objective over a data set
 * (gsu_objective.c): its value and gradient, and an evaluator that caches
 * the per-row quantities needed by Hessian-vector products.
 */
#ifndef GSU_OBJECTIVE_H
#define GSU_OBJECTIVE_H

#include "gsu_dataset.h"

/*
 * Regularized objective F(w, b) = λ/2‖w‖² + (1/W) Σ_i c_i L_i, with c_i the
 * row weights and W = Σ_i c_i (all c_i = 1, W = n, without weights), where
 * L_i uses D_i = √(2wᵀΣ_iw + μ²) in place of d_Σ: μ > 0 is the Gaussian
 * smoothing of the hinge kink used by the batch solver's continuation;
 * μ = 0 is the true objective.  theta = (w_1..w_d, b).  grad may be NULL.
 * Dividing by W rather than n makes an integer weight k the same problem as
 * k copies of the row, and a weight 0 the same as no row.
 */
gsu_status	gsu_objective(const gsu_dataset *ds, double lambda, double mu,
						  const double *theta, double *f, double *grad);

typedef struct gsu_eval
{
	const gsu_dataset *ds;
	double		lambda;
	double		mu;
	double		inv_w;			/* 1/W, W = Σ_i c_i (n without weights) */
	/* per row, valid after gsu_eval_at: D_i, u_i, q_i */
	double	   *big_d;
	double	   *u;
	double	   *q;
	/*
	 * the rows of non-zero curvature (q_i > 0) after gsu_eval_at, ascending:
	 * the others add nothing to a Hessian product, so when they are most of
	 * the data (a hinge-like problem near its optimum) the product visits
	 * only these
	 */
	int64_t    *act;
	int64_t		nact;
	int			dense;			/* 1: always the all-rows product (for tests) */
	/* per-row scratch */
	double	   *z;
	double	   *c1;
	double	   *c2;
	/* length d + 1: the point of the last evaluation, and scratch */
	double	   *w;
	double	   *t1;
	double	   *t2;
} gsu_eval;

gsu_status	gsu_eval_init(gsu_eval *ev, const gsu_dataset *ds, double lambda);
void		gsu_eval_free(gsu_eval *ev);

/* F_μ(θ) and, when grad != NULL, ∇F_μ(θ); caches what gsu_eval_hessvec needs. */
gsu_status	gsu_eval_at(gsu_eval *ev, double mu, const double *theta,
						double *f, double *grad);

/* hs = ∇²F_μ(θ)·s at the θ of the last gsu_eval_at. */
void		gsu_eval_hessvec(gsu_eval *ev, const double *s, double *hs);

#endif							/* GSU_OBJECTIVE_H */
