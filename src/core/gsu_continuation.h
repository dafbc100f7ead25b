/*
 * gsu_continuation.h — the smoothing continuation of the out-of-core solver
 * (gsu.fit), in reverse communication.
 *
 * L-BFGS (gsu_lbfgs.h) minimizes the Gaussian-smoothed objective F_μ
 * (gsu_objective) for μ = 1, 10⁻¹, … down to the smoothing option; a stage
 * ends when ‖∇F_μ‖ ≤ tol·gnorm0 (tol = the tolerance in the last stage,
 * max(tolerance, 1e-5) before it) or the line search is stuck.  After the
 * last stage, when the loss reads covariances and every row's d_Σ stays
 * above 100·μ, one more stage runs at μ = 0, the true objective.  A warm
 * start skips the continuation (it is already near the optimum).
 *
 * The caller evaluates F_μ and ∇F_μ at c->x with μ = c->mu (for gsu.fit,
 * one pass of an aggregate over a table) and reports them with
 * gsu_continuation_tell, until it returns GSU_CONT_DONE or the caller's
 * budget of evaluations runs out (gsu_continuation_stop).
 */
#ifndef GSU_CONTINUATION_H
#define GSU_CONTINUATION_H

#include "gsu_base.h"
#include "gsu_lbfgs.h"

/* what gsu_continuation_tell reports (a bit mask) */
#define GSU_CONT_ACCEPTED 1		/* a step was accepted: step_f, gnorm, step_mu */
#define GSU_CONT_DONE 2			/* the last stage ended: theta is the result */

typedef struct gsu_continuation
{
	/* for the caller to read */
	const double *x;			/* the point to evaluate next (n) */
	double		mu;				/* and its smoothing */
	double	   *theta;			/* the last accepted point (the caller's n doubles) */
	double		gnorm;			/* ‖∇F_μ‖ there; gnorm0 until a step is accepted */
	double		step_f;			/* F_μ of the step just accepted */
	double		step_mu;		/* and its μ */
	double		f;				/* F_μ at the accepted point of the last ended stage */
	int			f_is_true;		/* that stage's μ was 0: f is the true objective */
	int64_t		accepted;		/* accepted steps over all stages (a stage's start is none) */
	/* private */
	gsu_lbfgs	L;
	int			n;
	int			final_stage;
	int			uses_covariance;
	double		smoothing;
	double		tolerance;
	double		gnorm0;
	double		rel_tol;
} gsu_continuation;

/*
 * Starts at theta (n doubles, updated in place with every accepted step).
 * gnorm0 > 0 scales the stopping rule (‖∇F_μ‖ at 0, for gsu.fit).
 * GSU_ENOMEM, or GSU_OK.
 */
gsu_status	gsu_continuation_init(gsu_continuation *c, int n, double *theta,
								  double smoothing, double tolerance, double gnorm0,
								  int warm, int uses_covariance);

/*
 * Reports F_μ (f) and ∇F_μ (g, n doubles) at c->x and c->mu, and the
 * smallest d_Σ of the rows there (min_dsigma, for the finish at μ = 0).
 * Returns GSU_CONT_* bits; *status receives GSU_ENOMEM when the next stage
 * cannot start (then also GSU_CONT_DONE), else GSU_OK.
 */
int			gsu_continuation_tell(gsu_continuation *c, double f, const double *g,
								  double min_dsigma, gsu_status *status);

/* Ends the current stage early (the caller's budget): records its f. */
void		gsu_continuation_stop(gsu_continuation *c);

void		gsu_continuation_free(gsu_continuation *c);

/*
 * The bound on F(θ) − min F reported with a result: λ-strong convexity in w
 * bounds it by ‖∇F‖²/(2λ), plus μ/(2√π) for the smoothing; min F ≥ 0
 * bounds it by F too (which keeps it finite for a tiny λ).
 */
double		gsu_gap_bound(double gnorm, double lambda, double mu, double f_true);

#endif							/* GSU_CONTINUATION_H */
