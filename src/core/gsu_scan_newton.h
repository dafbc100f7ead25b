/*
 * gsu_scan_newton.h — the scan-efficient solver of gsu.fit (solver
 * "newton"): a trust-region Newton method with the exact Hessian, one
 * evaluation of (F_μ, ∇F_μ, ∇²F_μ) per scan of the table, in reverse
 * communication.
 *
 * The sums one scan adds up, row by row (gsu_row_loss_grad_hess), combine
 * exactly: Σ L_i at μ and at 0, Σ ∇L_i, the upper triangle of Σ ∇²L_i
 * (packed, (d+1)(d+2)/2 doubles) and Σ y_i (x_i, 1), which gives ‖∇F_μ(0)‖,
 * the scale of the stopping rule, without a scan at θ = 0.  From them
 * (gsu_scan_newton_tell)
 *
 *     F_μ = λ/2‖w‖² + (1/n) Σ L_i,   ∇F_μ = (λw, 0) + (1/n) Σ ∇L_i,
 *     ∇²F_μ = λ·diag(1, …, 1, 0) + (1/n) Σ ∇²L_i,
 *
 * and the next point θ + s with s = −(∇²F_μ + σI)⁻¹∇F_μ, σ ≥ 0 the smallest
 * that keeps ‖s‖ within the trust radius (σ = 0, the Newton step, inside
 * it; the radius starts unbounded, for a warm start near the optimum).  The
 * next scan gives F_μ there: the step is accepted when the decrease is at
 * least 10⁻⁴ of the model's, else the radius shrinks and the step is taken
 * again from the same point (that scan is lost).  When the loss reads
 * covariances and every row keeps d_Σ above 100·μ, the scans go on at
 * μ = 0 (the true objective), as in the other solvers.  Done when
 * ‖∇F_μ‖ ≤ tolerance·‖∇F_μ(0)‖ at an accepted point, or no decrease is
 * possible in double precision.
 */
#ifndef GSU_SCAN_NEWTON_H
#define GSU_SCAN_NEWTON_H

#include "gsu_cov.h"

/* doubles of the packed upper triangle of an m×m symmetric matrix */
#define GSU_PACKED_SIZE(m) ((size_t) (m) * ((size_t) (m) + 1) / 2)

/*
 * One row's smoothed loss c·L (returned, D = √(2wᵀΣw + μ²)) for a row of
 * weight c ≥ 0 (1: unweighted), with c times
 * ∂L/∂θ added to grad (d + 1), ∇²L added to hess (the packed upper
 * triangle of (d+1)×(d+1), row-major), the true loss (μ = 0) added to
 * *loss0 and the row's d_Σ = √(2wᵀΣw) in *dsigma.  ∇²L is that of
 * gsu_objective.c: (2q/D)·v vᵀ − (q/D)·∂D ∂Dᵀ + (2q/D)·Σ̃, with
 * v = −y(x, 1) − u·∂D and ∂D = (2Σw/D, 0).  work: 2(d + 1) doubles.
 * A factor Σ = LLᵀ (d × r) is read through Lᵀw and the columns of L: the
 * gradient in O(d·r), Σ̃ added as r rank-1 updates, O(r·d²), without Σ.
 */
double		gsu_row_loss_grad_hess(int d, const double *theta, const double *x,
								   const gsu_cov *cov, double y, double c, double mu,
								   double *grad, double *hess, double *loss0,
								   double *dsigma, double *work);

/*
 * A block of pending rank-1 terms of a packed Hessian (gsu.hessian's rows):
 * gsu_row_loss_grad_hess_blocked puts a row's terms c·w·a aᵀ here (c the
 * row's weight), a scaled by √|w| into the rows of w ≥ 0 or < 0, and
 * gsu_hess_block_flush adds
 * them to the packed upper triangle with dsyrk (and dgemm beside the
 * diagonal block when the matrix is folded in panels of rows), not with one
 * dspr per term: the sums agree with the per-row ones to rounding.  The
 * caller provides the memory (gsu_hess_block_doubles) and must flush before
 * it reads the Hessian.
 */
typedef struct gsu_hess_block
{
	int			m;				/* the Hessian is m × m */
	int			cap;			/* rows of pos and of neg */
	int			panel;			/* rows of the Hessian folded at once */
	int			npos;
	int			nneg;
	double		c;				/* the terms' common factor (a row's weight) */
	double	   *pos;			/* cap × m: √w·a of the terms of weight w ≥ 0 */
	double	   *neg;			/* cap × m: √(−w)·a of the others */
	double	   *scratch;		/* panel × m */
} gsu_hess_block;

/* the doubles a block of cap terms of each sign needs (panel ≤ 0: the default) */
size_t		gsu_hess_block_doubles(int m, int cap, int panel);
/* a block in mem (gsu_hess_block_doubles of them); panel ≤ 0: m up to 256, then 65536 / m */
void		gsu_hess_block_init(gsu_hess_block *b, int m, int cap, int panel, double *mem);
/*
 * hess += c·w·a aᵀ, through the block (flushed into hess when full, or when
 * c is not the factor of the terms in it): c is the common factor of a
 * block's terms, dsyrk's alpha, so that the sums of rows of weight 2 are
 * exactly twice those of weight 1, as with one dspr a term
 */
void		gsu_hess_block_add(gsu_hess_block *b, double c, double w, const double *a,
							   double *hess);
/* adds the pending terms to hess (packed upper, row-major) and empties the block */
void		gsu_hess_block_flush(gsu_hess_block *b, double *hess);

/*
 * gsu_row_loss_grad_hess with the Hessian's rank-1 terms through blk (NULL:
 * straight into hess, as gsu_row_loss_grad_hess); hess is complete only
 * after gsu_hess_block_flush.
 */
double		gsu_row_loss_grad_hess_blocked(int d, const double *theta, const double *x,
										   const gsu_cov *cov, double y, double c, double mu,
										   double *grad, double *hess, double *loss0,
										   double *dsigma, double *work, gsu_hess_block *blk);

/*
 * ‖∇F_μ(0)‖ from yx = Σ_i y_i (x_i, 1) over n rows: at θ = 0 every row has
 * d = 1 and D = μ, so ∇F_μ(0) = −½erfc(−1/μ)·yx/n.
 */
double		gsu_gradient_norm_at_zero(int m, const double *yx, double n, double mu);

/* what gsu_scan_newton_tell reports (a bit mask) */
/* a stage of the continuation ends at ‖∇F_μ‖ ≤ this·‖∇F_μ(0)‖ */
#ifndef GSU_SN_STAGE_TOL
#define GSU_SN_STAGE_TOL 1e-3
#endif
/*
 * A predicted decrease below this fraction of |F| is within the rounding of
 * a scan's sums (ε per addition, over many rows): the gradient norm judges
 * such a step instead of F
 */
#ifndef GSU_SN_F_RESOLUTION
#define GSU_SN_F_RESOLUTION 1e-13
#endif
#define GSU_SN_ACCEPTED 1		/* the point was accepted: theta, f, gnorm, … */
#define GSU_SN_DONE 2			/* converged, or stuck: theta is the result */

typedef struct gsu_scan_newton
{
	/* for the caller to read */
	const double *x;			/* the point to evaluate next (m) */
	double		mu;				/* and its smoothing */
	double	   *theta;			/* the accepted point (the caller's m doubles) */
	double		f;				/* F_μ there (μ = f_mu) */
	double		f_mu;
	double		f_true;			/* F_0 there */
	double		gnorm;			/* ‖∇F_μ‖ there */
	double		decrement;		/* ½∇Fᵀ(∇²F)⁻¹∇F there: the estimated F_μ − min F_μ */
	double		gnorm0;			/* the scale of the stopping rule (0 until set) */
	int			converged;
	int			stuck;			/* done short of the tolerance: no step decreases F or ‖∇F‖ */
	int64_t		accepted;
	int64_t		rejected;
	/* private */
	int			m;
	double		lambda;
	double		smoothing;
	double		tolerance;
	int			uses_covariance;
	int			have_point;
	int			fresh;			/* the next point starts a stage: accepted as it is */
	double		delta;			/* trust radius (HUGE_VAL: none; 0: ‖∇F‖ at the first point) */
	double		pred;			/* the model's decrease for the pending step */
	double		snorm;
	double	   *xt;				/* m: the pending point */
	double	   *g;				/* m */
	double	   *h;				/* packed: ∇²F_μ at theta */
	double	   *fac;			/* packed: factor scratch */
	double	   *s;				/* m */
} gsu_scan_newton;

/*
 * Starts at theta (m = d + 1 doubles, updated in place on every accepted
 * point): the first point told is accepted whatever it is.  GSU_ENOMEM,
 * GSU_EINVAL, or GSU_OK.
 */
gsu_status	gsu_scan_newton_init(gsu_scan_newton *c, int m, double *theta, double lambda,
								 double mu_start, double smoothing, double tolerance,
								 int uses_covariance);

/*
 * Reports the sums of one scan at c->x and c->mu over n rows (loss_sum at μ,
 * loss0_sum at 0, grad_sum and the packed hess_sum as gsu_row_loss_grad_hess
 * adds them) and the rows' smallest d_Σ.  gnorm0 > 0 sets the scale of the
 * stopping rule on the first call (later calls ignore it).  Returns
 * GSU_SN_* bits; *status: GSU_ENOMEM or GSU_ENOTFINITE when the next step
 * cannot be computed (then also GSU_SN_DONE), else GSU_OK.
 */
int			gsu_scan_newton_tell(gsu_scan_newton *c, double n, double loss_sum,
								 double loss0_sum, const double *grad_sum,
								 const double *hess_sum, double min_dsigma,
								 double gnorm0, gsu_status *status);

void		gsu_scan_newton_free(gsu_scan_newton *c);

#endif							/* GSU_SCAN_NEWTON_H */
