/*
 * gsu_solve.h — the solvers' common terms: the solver kinds, the options
 * and result of a solve, the per-pass report, the schedule of a smoothing
 * continuation; and the batch solvers of gsu_solve.c, Newton and Pegasos.
 * The other solvers' entry points are in their own headers: gsu_dcd.h,
 * gsu_span.h, gsu_robust.h, gsu_binary.h (the one that picks a loss's
 * solver), gsu_scan_newton.h and gsu_continuation.h (gsu.fit's).
 */
#ifndef GSU_SOLVE_H
#define GSU_SOLVE_H

#include "gsu_dataset.h"
#include "gsu_rng.h"

typedef enum gsu_solver_kind
{
	GSU_SOLVER_NEWTON = 0,		/* trust-region Newton-CG, batch; gsu.fit: Newton by scans */
	GSU_SOLVER_PEGASOS = 1,		/* mini-batch stochastic subgradient */
	GSU_SOLVER_SGD = 2,			/* streaming, one step per row */
	GSU_SOLVER_LBFGS = 3,		/* gsu.fit: passes of L-BFGS over a relation */
	GSU_SOLVER_DCD = 4			/* hinge loss, certain rows: dual coordinate descent */
} gsu_solver_kind;

/*
 * A solver's per-pass report: called after each outer iteration (a Newton
 * or gradient step, an epoch of a stochastic solver, a stage of dcd, a
 * round of tsvc's alternation) with the iteration's number (increasing
 * within one call of a solver; a solver that hands over to another may
 * start again at 1), the objective (the smoothed F_μ where the solver
 * works on it; an estimate from the sampled rows for pegasos epochs), and
 * a gradient norm and a gap to the optimum where the solver has them,
 * GSU_TRACE_NONE where it has not.  It must not stop the solver (that is
 * gsu_progress_fn's part) and costs the solver nothing but the call.
 */
typedef void (*gsu_trace_fn) (void *arg, int64_t pass, double objective,
							  double gradient_norm, double gap);
#define GSU_TRACE_NONE (-1.0)

/*
 * The schedule of a smoothing continuation (gsu.fit's two solvers): the
 * next μ after a stage at mu is μ/10, or the target smoothing when that is
 * (within rounding) no larger: 1·0.1·0.1·0.1 is 0.0010000000000000002, not
 * 1e-3, and must not cost a stage of its own.  After the last stage, one
 * more at μ = 0 (the true objective) when the loss reads covariances and
 * every row keeps d_Σ above 100μ, where the objective is smooth.
 */
static inline double
gsu_next_smoothing(double mu, double smoothing)
{
	mu *= 0.1;
	return mu <= smoothing * (1.0 + 1e-9) ? smoothing : mu;
}

static inline int
gsu_finish_unsmoothed(double mu, int uses_covariance, double min_dsigma)
{
	return mu > 0.0 && uses_covariance && min_dsigma > 100.0 * mu;
}

typedef struct gsu_solve_options
{
	double		lambda;			/* > 0 */
	double		tolerance;		/* Newton: stop when ‖∇F‖ ≤ tolerance·‖∇F(0)‖ */
	double		smoothing;		/* Newton: final μ of the continuation */
	int			max_iterations; /* Newton iterations over all stages */
	int			epochs;			/* Pegasos */
	int			batch_size;		/* Pegasos */
	uint64_t	seed;			/* Pegasos */
	int			warm_start;		/* Newton: theta is near the optimum, skip the continuation */
	int64_t		t0;				/* Pegasos: steps already taken (warm start) */
	gsu_progress_fn progress;
	void	   *progress_arg;
	gsu_trace_fn trace;			/* NULL: no per-pass report (gsu_trace_fn) */
	void	   *trace_arg;
} gsu_solve_options;

/* o's trace, when it has one */
static inline void
gsu_solve_trace(const gsu_solve_options *o, int64_t pass, double objective,
				double gradient_norm, double gap)
{
	if (o->trace)
		o->trace(o->trace_arg, pass, objective, gradient_norm, gap);
}

typedef struct gsu_solve_result
{
	double		objective;		/* true objective F(w, b), μ = 0 */
	double		gradient_norm;	/* ‖∇F_μ‖ at the result (μ = final smoothing) */
	double		gradient_norm0; /* ‖∇F_μ(0)‖, the scale of the tolerance */
	double		gap_estimate;	/* estimated F(w, b) − min F (Newton only) */
	int64_t		iterations;		/* Newton iterations or Pegasos steps */
	int64_t		passes;			/* passes over the data */
	int			converged;		/* Newton: tolerance met */
	int			degenerate;		/* GSU_DEGENERATE_*: tsvc and robust solvers only */
	int64_t		free_rows;		/* gsu_train_binary: see gsu_binary.h */
} gsu_solve_result;

/*
 * gsu_solve_result.degenerate (see gsu_robust_solve.c, settle_degenerate):
 * the solution is the zero model w = 0 (it predicts sign(b) for every row), or
 * TSVC's relaxation ended with its norm bound ‖w‖ ≤ γ inactive (the result
 * is then not a TSVC solution).
 */
#define GSU_DEGENERATE_NONE 0
#define GSU_DEGENERATE_ZERO 1
#define GSU_DEGENERATE_BOUND 2
/* the bound counts as inactive below (1 − this)·γ */
#define GSU_TSVC_BOUND_SLACK 1e-3

void		gsu_solve_options_default(gsu_solve_options *o);

/*
 * Minimize F over theta (length d+1, used as the starting point).
 * Deterministic: the same data in the same order gives bit-identical output.
 */
gsu_status	gsu_solve_newton(const gsu_dataset *ds, const gsu_solve_options *o,
							 double *theta, gsu_solve_result *res);
gsu_status	gsu_solve_pegasos(const gsu_dataset *ds, const gsu_solve_options *o,
							  double *theta, gsu_solve_result *res);

/*
 * A row drawn with probability c_i / W for the weighted stochastic solvers:
 * cum holds the running sums of the weights c (cum[n − 1] = W > 0); a row
 * of weight 0 is never drawn.
 */
int64_t		gsu_draw_weighted(gsu_rng *rng, const double *cum, const double *c, int64_t n);

#endif							/* GSU_SOLVE_H */
