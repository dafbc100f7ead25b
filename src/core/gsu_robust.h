/*
 * gsu_robust.h — the other uncertainty-aware SVMs of pg_gsu: TSVC (Bi &
 * Zhang, NIPS 2004) and the worst-case robust / chance-constrained SVM
 * (Couellan & Jan, arXiv 1706.09795, Sect. 3).  Pure C11 + BLAS/LAPACKE.
 *
 * Notation: θ = (w, b), d_x = 1 − y(wᵀx + b), h(t) = max(0, t).
 *
 * Worst-case robust loss.  Row i may move anywhere in
 *
 *     U_i = { x_i + A_iᵀu : ‖u‖_p ≤ γ_i },
 *
 * and the loss is the hinge at the worst point of U_i:
 *
 *     max_{u} h(1 − y(wᵀ(x + Aᵀu) + b)) = h(d_x + γ·max_{‖u‖_p≤1} (−y·Aw)ᵀu)
 *                                       = h(d_x + γ‖A w‖_q),   1/p + 1/q = 1,
 *
 * by the definition of the dual norm (p = 2 ↔ q = 2, p = ∞ ↔ q = 1,
 * p = 1 ↔ q = ∞).  For a Gaussian row A = Σ^{1/2} (symmetric), so the term
 * is γ‖Σ^{1/2}w‖_q; for q = 2 it is γ√(wᵀΣw).  A_i is a full d×d matrix, a
 * diagonal or a multiple of I, so feature-space bounds can supply their own.
 * The maximizer is u* = −y·g with g ∈ ∂‖·‖_q(Aw) (the dual-norm subgradient:
 * ‖g‖_p ≤ 1, gᵀAw = ‖Aw‖_q), and by Danskin's theorem the hinge subgradient
 * at the worst point x* = x + γAᵀu*, −y·x* = −y·x + γAᵀg, is a subgradient of
 * the robust loss.
 *
 * Chance constraint.  For ξ ~ N(x, Σ), y·wᵀξ ~ N(y·wᵀx, wᵀΣw), so
 * P(y(wᵀξ + b) ≥ 1 − s) ≥ 1 − ε  ⇔  d_x + Φ⁻¹(1 − ε)·√(wᵀΣw) ≤ s: the
 * robust loss with q = 2 and γ = Φ⁻¹(1 − ε).  For any distribution with
 * that mean and covariance, Cantelli's one-sided Chebyshev inequality
 * P(Z ≤ EZ − kσ) ≤ 1/(1 + k²) gives the same with γ = √((1 − ε)/ε).
 *
 * TSVC.  Row i may move by ‖Δx‖₂ ≤ δ_i in the direction that helps it:
 *
 *     min_{‖Δx‖≤δ} h(1 − y(wᵀ(x + Δx) + b)) = h(d_x − δ‖w‖),   Δx* = y·δ·w/‖w‖.
 *
 * The objective λ/2‖w‖² + (1/n)Σ h(d_x − δ_i‖w‖) is not convex; its convex
 * relaxation (Bi & Zhang) bounds the norm, ‖w‖ ≤ γ, and shifts the margin by
 * γδ_i: λ/2‖w‖² + (1/n)Σ h(d_x − γδ_i) over ‖w‖ ≤ γ, exact whenever the
 * bound is active at the solution.  The alternating algorithm (their
 * Algorithm 1) descends on the non-convex objective instead.
 */
#ifndef GSU_ROBUST_H
#define GSU_ROBUST_H

#include "gsu_solve.h"

/* loss codes, the same as the model's */
#define GSU_RLOSS_TSVC 2
#define GSU_RLOSS_ROBUST 3

/* q = 0 stands for q = ∞ (the model's robust_q) */
#define GSU_Q_INF 0

/* the dual exponent: 1 ↔ ∞, 2 ↔ 2 (0 stands for ∞ on both sides) */
int			gsu_dual_exponent(int p);

/* Φ⁻¹(p) for p ∈ (0, 1), to about 1e-15 relative (Acklam + one Halley step) */
double		gsu_normal_quantile(double p);

/* --------------------------------------------------------------- norms */

/* ‖z‖_q, q ∈ {1, 2, GSU_Q_INF} */
double		gsu_norm_q(int d, const double *z, int q);

/*
 * g ∈ ∂‖z‖_q: ‖g‖_p ≤ 1 and gᵀz = ‖z‖_q (q = 2: z/‖z‖; q = 1: sign(z);
 * q = ∞: sign(z_k)·e_k at the first k of largest |z_k|); g = 0 at z = 0.
 */
void		gsu_norm_q_subgradient(int d, const double *z, int q, double *g);

/*
 * A smooth convex upper approximation r_μ of ‖z‖_q, with its gradient in g
 * (may be NULL): q = 2: √(‖z‖² + μ²); q = 1: Σ√(z_j² + μ²);
 * q = ∞: μ·log Σ_j 2cosh(z_j/μ).  0 ≤ r_μ − ‖z‖_q ≤ gsu_norm_q_smoothing_bound.
 */
double		gsu_norm_q_smooth(int d, const double *z, int q, double mu, double *g);
double		gsu_norm_q_smoothing_bound(int d, int q, double mu);

/* -------------------------------------------------------- uncertainty */

/* The shape A of one row's uncertainty set. */
typedef enum gsu_ushape_kind
{
	GSU_USHAPE_NONE = 0,		/* A = 0: a certain row */
	GSU_USHAPE_ISO,				/* A = iso·I */
	GSU_USHAPE_DIAG,			/* A = diag(m) */
	GSU_USHAPE_FULL				/* A = m, d×d row-major (any matrix) */
} gsu_ushape_kind;

typedef struct gsu_ushape
{
	gsu_ushape_kind kind;
	double		iso;
	const double *m;
} gsu_ushape;

/* z = A·w */
void		gsu_ushape_apply(int d, const gsu_ushape *a, const double *w, double *z);
/* out += alpha·Aᵀg */
void		gsu_ushape_apply_t_add(int d, const gsu_ushape *a, double alpha,
								   const double *g, double *out);

/*
 * In place: a symmetric positive semi-definite Σ (d×d) becomes its
 * symmetric square root Σ^{1/2} = V·diag(√max(λ, 0))·Vᵀ (LAPACK dsyevr).
 */
gsu_status	gsu_sqrtm_psd(int d, double *a);

/* --------------------------------------------------------- row losses */

/*
 * The robust loss of one row, h(d_x + γ‖Aw‖_q), or for μ > 0 its smooth
 * upper approximation H_μ(d_x + γ·r_μ(Aw)) with H_μ the Gaussian-smoothed
 * hinge of gsu_expected_hinge (H_μ − h ≤ μ/(2√π)).  Adds scale·∂L/∂θ to
 * grad (length d + 1; NULL: no gradient): for μ = 0 the subgradient above.
 * work: 2d doubles.
 */
double		gsu_robust_row_loss(int d, const double *theta, const double *x, double y,
								const gsu_ushape *a, int q, double gamma, double mu,
								double scale, double *grad, double *work);

/* An upper bound of the μ-smoothed robust loss minus the exact one. */
double		gsu_robust_smoothing_bound(int d, int q, double gamma, double mu);

/*
 * The worst point of U = {x + Aᵀu : ‖u‖_p ≤ γ} for the row (x, y) under θ:
 * xstar = x + γAᵀu*, where the hinge equals the closed-form bound
 * d_x + γ‖Aw‖_q (when positive).  work: d doubles.
 */
void		gsu_robust_worst_case(int d, const double *theta, const double *x, double y,
								  const gsu_ushape *a, int q, double gamma,
								  double *xstar, double *work);

/*
 * The TSVC row loss h(d_x − shift) (shift = γδ for the relaxation, δ‖w‖ for
 * the original), or H_μ(d_x − shift) for μ > 0; adds scale·∂L/∂θ (shift
 * held fixed) to grad when not NULL.
 */
double		gsu_tsvc_row_loss(int d, const double *theta, const double *x, double y,
							  double shift, double mu, double scale, double *grad);

/* The helping move of TSVC: xstar = x + y·δ·w/‖w‖ (x itself when w = 0). */
void		gsu_tsvc_best_case(int d, const double *theta, const double *x, double y,
							   double delta, double *xstar);

/* δ_i = scale·√(mean variance) of one row: scale·√(trace Σ / d). */
double		gsu_tsvc_radius(int d, const gsu_cov *cov, double scale);

/*
 * The rows' shapes from their covariances (n rows at one kind, stored one
 * after the other in cov, gsu_cov_doubles(kind, d, 0) doubles each): for TSVC
 * the radii delta_i (out: n doubles, gsu_tsvc_radius with scale); for the
 * robust loss Sigma_i^(1/2) (out: n * gsu_cov_doubles(kind, d, 0) doubles: the
 * square roots of the variances, or each full matrix's PSD square root).
 * GSU_ECANCELLED when pg asks to stop between rows; GSU_EINVAL for
 * GSU_COV_FACTOR, which these losses do not take.
 */
gsu_status	gsu_robust_row_shapes(int64_t n, int d, gsu_cov_kind kind, const double *cov,
								  int tsvc, double scale, double *out, gsu_progress *pg);

/*
 * Power SVM (Zhang, Yu & Teng, CVPR 2012; the baseline [14] of SVM-GSU).
 * Row i is the ball B(x_i, r_i) of a radius r_i given with the row, its
 * "power", and is loss-free when any point of its ball is classified with
 * margin: the row loss is the best case over the ball,
 *
 *     min_{‖Δx‖≤r} h(1 − y(wᵀ(x + Δx) + b)) = h(d_x − r‖w‖),
 *
 * TSVC's row loss with δ_i = r_i (the radius read as given, not derived
 * from a covariance).  The objective λ/2‖w‖² + (1/W)Σ c_i h(d_x − r_i‖w‖)
 * is TSVC's non-convex one (gsu_tsvc_objective_exact with delta = r).
 */
double		gsu_psvm_row_loss(int d, const double *theta, const double *x, double y,
							  double r);

/*
 * The radii of n rows stored at one covariance kind: r_i = cov[i] for
 * GSU_COV_ISO (a row's single number is its radius), 0 for GSU_COV_NONE
 * (cov is not read).  GSU_EINVAL for GSU_COV_DIAG and GSU_COV_FULL, which
 * have no radius, and for a radius that is negative or not finite.
 */
gsu_status	gsu_psvm_radii(int64_t n, gsu_cov_kind kind, const double *cov, double *out);

/* ---------------------------------------------------------- the problem */

typedef struct gsu_robust_data
{
	int64_t		n;
	int			d;
	const double *x;			/* n × d */
	const double *y;			/* ±1 */
	int			loss;			/* GSU_RLOSS_TSVC or GSU_RLOSS_ROBUST */
	double		gamma;			/* robust: radius γ; tsvc: norm bound γ */
	/* robust: q and the shapes A_i: a_full (n×d×d) if set, else a_diag
	 * (n×d) if set, else a_iso[i]·I if set, else certain rows */
	int			q;
	const double *a_full;
	const double *a_diag;
	const double *a_iso;
	const double *gamma_row;	/* robust: per-row γ_i (n), or NULL for gamma */
	/* tsvc: the radius δ_i of every row (n) */
	const double *delta;
	/* row weights c_i ≥ 0 (n), or NULL: every row weighs 1; the mean loss
	 * becomes Σ c_i L_i / Σ c_i, as in gsu_dataset */
	const double *weight;

	/*
	 * robust: when set, row i's term γ_i‖A_i w‖_q is replaced by
	 * row_term(row_term_arg, i, w, y_i, scale, grad), a convex ρ_i(w) ≥ 0
	 * that returns its value and adds scale·∂ρ_i/∂w (a subgradient, length
	 * d) to grad when grad != NULL (e.g. gsu_featmap_row_term, the exact
	 * worst case over a feature-space box).  The loss is then
	 * h(d_x + ρ_i(w)).  Only the exact (μ = 0) losses take it:
	 * gsu_robust_solve_pegasos and gsu_robust_objective with μ = 0;
	 * the batch solver and the dual gap return GSU_EINVAL.
	 */
	double		(*row_term) (const void *arg, int64_t i, const double *w, double y,
							 double scale, double *grad);
	const void *row_term_arg;
} gsu_robust_data;

/* The shape of row i. */
gsu_ushape	gsu_robust_row_shape(const gsu_robust_data *rd, int64_t i);

/*
 * F_μ(θ) = λ/2‖w‖² + (1/W)Σ c_i L_μ,i(θ) (W = Σ c_i; n and 1 without
 * weights), grad may be NULL.  For TSVC this is
 * the relaxation (margin shift γδ_i); the constraint ‖w‖ ≤ γ is not part
 * of F.
 */
gsu_status	gsu_robust_objective(const gsu_robust_data *rd, double lambda, double mu,
								 const double *theta, double *f, double *grad);

/*
 * The exact objective F(θ) (μ = 0) in *f and a certified lower bound on
 * min F in *lower, from the Lagrangian dual point built at θ with the
 * derivatives of the μ-smoothed losses (see gsu_robust_objective.c);
 * F − lower bounds the distance to the optimum.
 */
gsu_status	gsu_robust_dual_gap(const gsu_robust_data *rd, double lambda, double mu,
								const double *theta, double *f, double *lower);

/* The non-convex TSVC objective λ/2‖w‖² + (1/n)Σ h(d_x − δ_i‖w‖). */
double		gsu_tsvc_objective_exact(const gsu_robust_data *rd, double lambda,
									 const double *theta);

/*
 * Batch solver: accelerated projected gradient (FISTA with backtracking and
 * adaptive restart) on F_μ over the feasible set (tsvc: ‖w‖ ≤ γ; robust:
 * everything), with a continuation μ = 1, 10⁻¹, … down to o->smoothing.
 * Every 16 steps the dual point of gsu_robust_dual_gap certifies a gap;
 * it stops (converged) when F − best lower bound ≤ o->tolerance·(1 + |F|)
 * (or, after 1000 steps of the last stage, ≤ the smoothing error bound),
 * or when the gradient mapping of the last stage falls below o->tolerance
 * times its first value; o->max_iterations bounds the steps over all
 * stages.  Returns the evaluated point of lowest exact F.  res: objective =
 * F_0, gradient_norm = the last gradient mapping, gap_estimate = the
 * certified gap F − (best dual bound) ≥ F − min F.  res->degenerate
 * flags a zero model (θ is then exactly (0, b)) or, for TSVC, a norm
 * bound ‖w‖ ≤ γ left inactive (see settle_degenerate in gsu_robust_solve.c).
 */
gsu_status	gsu_robust_solve_batch(const gsu_robust_data *rd, const gsu_solve_options *o,
								   double *theta, gsu_solve_result *res);

/*
 * Pegasos on the exact losses: η_t = 1/(λt), mini-batches of
 * o->batch_size, w projected onto ‖w‖ ≤ √(2/λ) (which holds the optimum:
 * λ/2‖w*‖² ≤ F(0) ≤ 1) and, for TSVC, onto ‖w‖ ≤ γ.  Without a row_term,
 * the zero model (0, b0) replaces the result when its objective is not
 * higher, and res->degenerate is set as by gsu_robust_solve_batch.
 */
gsu_status	gsu_robust_solve_pegasos(const gsu_robust_data *rd, const gsu_solve_options *o,
									 double *theta, gsu_solve_result *res);

/*
 * Bi & Zhang's alternating algorithm for the non-convex TSVC objective:
 * with Δx_i = 0, then Δx_i = y_i·δ_i·w/‖w‖ from the last w, solve the hinge
 * SVM on x_i + Δx_i (gsu_solve_newton); stop when the objective decreases by
 * less than o->tolerance relative, or after 100 rounds.  The objective
 * never increases.  gamma is not used.  res->objective is the non-convex
 * objective; iterations counts rounds.
 */
gsu_status	gsu_tsvc_solve_alternating(const gsu_robust_data *rd, const gsu_solve_options *o,
									   double *theta, gsu_solve_result *res);

#endif							/* GSU_ROBUST_H */
