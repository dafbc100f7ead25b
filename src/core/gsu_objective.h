/*
 * gsu_objective.h — internal to the core: an evaluator of the objective that
 * caches the per-row quantities needed by Hessian-vector products.
 */
#ifndef GSU_OBJECTIVE_H
#define GSU_OBJECTIVE_H

#include "gsu_core.h"

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

/*
 * For a dataset of certain rows only (the hinge SVM): from an approximate
 * minimizer, solve the optimality conditions with the rows whose margin
 * d_i is within tau of zero as support vectors, moving one row between the
 * sets per round for at most max_rounds rounds (each costs a pass).  On success (returns 1)
 * theta is the exact minimizer, *gap the certified duality gap and *kkt the
 * norm of the residual of the optimality conditions; on failure theta is
 * unchanged.  progress (NULL allowed) is asked every round; when it says
 * stop, the polish fails (the caller asks it again to learn why).
 */
int			gsu_hinge_polish(const gsu_dataset *ds, double lambda, double tau,
							 int max_rounds, double *theta, double *gap, double *kkt,
							 gsu_progress_fn progress, void *progress_arg);

/*
 * The same by an interior-point method on a band of rows (gsu_polish_band.c),
 * for dual coordinate descent's stages: the band holds the rows whose α
 * (alpha, n values in units where a row of weight c_i is at its bound at
 * alpha_unit·c_i; NULL: none) is strictly inside its box and the rows within
 * tau of the margin at theta, the other rows are held on the side of their
 * α (or margin); each round solves the band's dual exactly and certifies it
 * by a pass over all rows, and the rows whose margins contradict their side
 * join the band for the next, max_rounds rounds at most.  Its cost does not
 * grow with C = 1/(λW).  Same results and failure as gsu_hinge_polish.
 */
int			gsu_hinge_polish_band(const gsu_dataset *ds, double lambda, const double *alpha,
								  double alpha_unit, double tau, int max_rounds, double *theta,
								  double *gap, double *kkt, gsu_progress_fn progress,
								  void *progress_arg);

/*
 * A row drawn with probability c_i / W for the weighted stochastic solvers:
 * cum holds the running sums of the weights c (cum[n − 1] = W > 0); a row
 * of weight 0 is never drawn.
 */
int64_t		gsu_draw_weighted(gsu_rng *rng, const double *cum, const double *c, int64_t n);

#endif							/* GSU_OBJECTIVE_H */
