/*
 * gsu_core.h — the numerical core of pg_gsu.
 *
 * Pure C11 plus BLAS; no PostgreSQL headers.  The core never allocates with
 * palloc and never raises errors: every fallible function returns a
 * gsu_status that the PostgreSQL glue turns into an ereport.
 *
 * Notation (Tzelepis et al., "Linear Maximum Margin Classifier for Learning
 * from Uncertain Data", TPAMI 2018).  A row is a Gaussian N(x, Σ) with label
 * y ∈ {−1, +1}; the classifier is f(z) = wᵀz + b.  With
 *
 *     d_x = 1 − y (wᵀx + b),      d_Σ = √(2 wᵀΣw),      u = d_x / d_Σ,
 *
 * the expected hinge loss under the Gaussian is
 *
 *     L = d_x/2 · (1 + erf u) + d_Σ/(2√π) · exp(−u²)  =  d_Σ · h(u),
 *     h(u) = u/2 · erfc(−u) + exp(−u²)/(2√π).
 *
 * Its partial derivatives are  ∂L/∂d_x = ½ erfc(−u) =: p  and
 * ∂L/∂d_Σ = exp(−u²)/(2√π) =: q, which give (label factors restored, unlike
 * the paper's eqs. 7–8)
 *
 *     ∂L/∂w = 2q/d_Σ · Σw − p·y·x,        ∂L/∂b = −p·y.
 *
 * As d_Σ → 0 the loss tends to the hinge max(0, d_x); below GSU_DSIGMA_FLOOR,
 * or when |u| > GSU_U_SATURATE, the hinge form is used exactly.
 */
#ifndef GSU_CORE_H
#define GSU_CORE_H

#include <stddef.h>
#include <stdint.h>

typedef enum gsu_status
{
	GSU_OK = 0,
	GSU_ENOMEM,				/* an allocation failed */
	GSU_EINVAL,				/* an argument is out of its domain */
	GSU_ENOTFINITE,			/* a NaN or infinity appeared in the iterate */
	GSU_ECANCELLED,			/* the progress callback asked to stop */
	GSU_ENOTSYMMETRIC,		/* a covariance matrix is not symmetric */
	GSU_ENOTPSD				/* a covariance matrix is not positive semi-definite */
} gsu_status;

const char *gsu_status_string(gsu_status s);

/* Below this d_Σ the loss is the hinge loss exactly. */
#define GSU_DSIGMA_FLOOR 1e-150
/* For |u| beyond this, erfc and exp(−u²) saturate in double precision. */
#define GSU_U_SATURATE 40.0

/* ---------------------------------------------------------------- erf */

/*
 * h(u) = u/2·erfc(−u) + exp(−u²)/(2√π), accurate to about 1e-14 relative for
 * every u (a continued fraction avoids the cancellation for u ≪ 0); 0 below
 * u = −40, where it underflows.
 */
double		gsu_h(double u);

/* Φ(z), the standard normal CDF, via erfc (accurate in both tails). */
double		gsu_normal_cdf(double z);

/* ----------------------------------------------------------- covariances */

/* The covariance of one row: its kind, and its values. */
typedef enum gsu_cov_kind
{
	GSU_COV_NONE = 0,			/* Sigma = 0 */
	GSU_COV_ISO,				/* Sigma = iso I */
	GSU_COV_DIAG,				/* Sigma = diag(data) */
	GSU_COV_FULL,				/* Sigma = data, d x d row-major */
	GSU_COV_FACTOR				/* Sigma = L Lᵀ, L = data, d x rank row-major */
} gsu_cov_kind;

typedef struct gsu_cov
{
	gsu_cov_kind kind;
	double		iso;
	const double *data;
	int			rank;			/* GSU_COV_FACTOR: the columns r of L, 1 ≤ r < d */
} gsu_cov;

/*
 * The one covariance type of the core: every function that reads a row's
 * covariance takes a gsu_cov (for data sets, a gsu_cov_kind and the rows'
 * values one after the other, gsu_cov_doubles each).  For GSU_COV_ISO the
 * value is iso and data is unused; for the others data holds
 * gsu_cov_doubles(kind, d, rank) values.
 *
 * GSU_COV_FACTOR, a low-rank covariance Σ = L Lᵀ given by its factor L
 * (d × r, row-major, r = rank < d): wᵀΣw = ‖Lᵀw‖² and Σw = L(Lᵀw) cost
 * O(d·r) where a full Σ costs O(d²).  rank is read for this kind only (0
 * for the others); the rows of a data set share one rank (cov_rank).
 */

/* doubles one row's covariance takes at a kind: 0, 1, d, d*d or d*rank */
static inline size_t
gsu_cov_doubles(gsu_cov_kind kind, int d, int rank)
{
	return kind == GSU_COV_NONE ? 0 : kind == GSU_COV_ISO ? 1 :
		kind == GSU_COV_DIAG ? (size_t) d :
		kind == GSU_COV_FACTOR ? (size_t) d * (size_t) rank : (size_t) d * (size_t) d;
}

/* Row i of n rows of one kind whose values are stored one after the other. */
static inline gsu_cov
gsu_cov_row(gsu_cov_kind kind, const double *values, int d, int rank, int64_t i)
{
	gsu_cov		c = {kind, 0.0, NULL, 0};

	if (kind == GSU_COV_ISO)
		c.iso = values[i];
	else if (kind != GSU_COV_NONE)
		c.data = values + (size_t) i * gsu_cov_doubles(kind, d, rank);
	if (kind == GSU_COV_FACTOR)
		c.rank = rank;
	return c;
}

/*
 * The products of a factor L (d × r, row-major) that Σ = L Lᵀ needs, in
 * O(d·r) without a buffer: (Lᵀa)·(Lᵀb), and g += alpha·L Lᵀ(ca·a + cb·b)
 * (b may be NULL when cb is 0; g must not alias a or b).
 */
double		gsu_factor_quad2(int d, int r, const double *L, const double *a, const double *b);
void		gsu_factor_apply(int d, int r, const double *L, double ca, const double *a,
							 double cb, const double *b, double *g);

/* Σ = L Lᵀ written out (d × d, row-major) from the factor L (d × r). */
void		gsu_factor_to_full(int d, int r, const double *L, double *cov);

/*
 * wᵀΣw for the covariance c; sw (d doubles, or NULL) receives Σw.  0 (and
 * sw = 0) for GSU_COV_NONE.
 */
double		gsu_cov_quad(int d, const gsu_cov *c, const double *w, double *sw);

/* --------------------------------------------------------- per-row loss */

/*
 * The expected hinge loss and its partials for one row given d_x and d_Σ:
 * *p = ∂L/∂d_x, *q = ∂L/∂d_Σ (either pointer may be NULL).  Exact hinge for
 * d_Σ ≤ GSU_DSIGMA_FLOOR or |d_x| > GSU_U_SATURATE·d_Σ, where q = 0 and
 * p ∈ {0, 1} (p = 0 at the kink d_x = 0).
 */
double		gsu_expected_hinge(double dx, double ds, double *p, double *q);

/* wᵀΣw for a full symmetric Σ (d×d, row-major); sw (length d) receives Σw. */
double		gsu_quad_full(int d, const double *w, const double *cov, double *sw);

/* -------------------------------------------------------- covariances */

/*
 * Checks that a full covariance (d×d, row-major) is symmetric,
 * |Σ_jk − Σ_kj| ≤ tol·max_j Σ_jj, and positive semi-definite, λ_min ≥
 * −tol·max(λ_max, 0); *min_eig receives λ_min (NULL allowed).  Returns
 * GSU_ENOTFINITE, GSU_ENOTSYMMETRIC, GSU_ENOTPSD, GSU_ENOMEM or GSU_OK.
 */
gsu_status	gsu_covariance_check(int d, const double *cov, double tol, double *min_eig);

/*
 * Learning in linear subspaces (Tzelepis et al. 2018, Sect. 3.2): replace a
 * row's Σ by its restriction to the span of its leading eigenvectors,
 * Σ ≈ P Λ Pᵀ, keeping the fewest directions whose eigenvalues sum to at
 * least the fraction p ∈ (0, 1] of the trace.  In place; *kept receives the
 * number of directions kept (NULL allowed).
 *
 * p = 1 keeps every direction of positive variance.  Diagonal: the
 * eigenvectors are the coordinate axes, so the largest variances are kept
 * and the others set to 0 (ties keep the lower index).
 * Full: eigen-decomposition with LAPACK dsyevr, Σ rebuilt as Σ_k λ_k u_k u_kᵀ
 * over the kept eigenpairs.
 *
 * x (d doubles, NULL allowed): the row's mean, replaced by its projection
 * onto the kept span, as the paper's eqs. 9-12 project the whole Gaussian
 * (z = P x, w_z = P w, so w_zᵀz = wᵀ(PᵀP x)).  Diagonal: the coordinates
 * whose variance was dropped are set to 0 (isotropic rows, passed as a
 * diagonal, follow the same lower-index-first rule).  Full: x ← U_k U_kᵀ x.
 * NULL leaves the mean alone (only the covariance is restricted).
 */
gsu_status	gsu_subspace_diag(int d, double *var, double *x, double p, int *kept);
gsu_status	gsu_subspace_full(int d, double *cov, double *x, double p, int *kept);

/*
 * The same restriction for a covariance given as its factor L (d×r,
 * row-major, Σ = LLᵀ), in O(d·r²): the eigenpairs of LLᵀ come from the r×r
 * matrix LᵀL = V Λ Vᵀ (u = L v/√λ).  L is overwritten by the kept part's
 * factor [L v_1 … L v_k 0 …] (still d×r, the dropped columns 0), so that
 * L Lᵀ = Σ_{j ≤ k} λ_j u_j u_jᵀ; x as in gsu_subspace_full.
 */
gsu_status	gsu_subspace_factor(int d, int r, double *L, double *x, double p, int *kept);

/* ---------------------------------------------------------------- data */

/*
 * A training set held as dense arrays (row-major n×d).  Every row's
 * covariance is of the kind cov_kind, row i's is gsu_cov_row(cov_kind, cov,
 * d, cov_rank, i): the full matrix cov[i·d·d ..] (d×d, row-major,
 * symmetric), the factor L = cov[i·d·r ..] of Σ = LLᵀ (d×r, r = cov_rank),
 * diag(cov[i·d ..]), cov[i]·I, or 0 (certain rows; cov unused).  Row i
 * weighs weight[i] (finite, ≥ 0, not all 0) in the objective when weight !=
 * NULL, else 1.
 */
typedef struct gsu_dataset
{
	int64_t		n;
	int			d;
	const double *x;
	const double *y;			/* ±1.0 */
	gsu_cov_kind cov_kind;
	const double *cov;			/* n · gsu_cov_doubles(cov_kind, d) values */
	const double *weight;		/* c_i ≥ 0; NULL: every row weighs 1 */
	int			cov_rank;		/* GSU_COV_FACTOR: the columns of each L, else 0 */
} gsu_dataset;

/*
 * W = Σ_i c_i (n when ds->weight is NULL); GSU_EINVAL unless every weight
 * is finite and ≥ 0 and W is finite and > 0.
 */
gsu_status	gsu_weight_total(const gsu_dataset *ds, double *total);

/*
 * Row weights c_i = a_i b_i (a: the rows' own weights, NULL for ones; c holds
 * b, the weights of their classes, on entry) scaled by one power of two so that
 * the largest is in [1/4, 1) whatever the magnitudes: the objective divides by
 * their sum, so the scale does not change the problem, and neither an
 * overflowing product nor a denormal one loses the ratios.  work: n doubles.
 */
void		gsu_weights_product(int64_t n, const double *a, double *c, double *work);

/* One-vs-rest labels: yk_i = +1 where y_i = pos, else -1. */
void		gsu_ovr_labels(int64_t n, const double *y, double pos, double *yk);

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

/*
 * One row's loss under the Gaussian-smoothed hinge of gsu_objective (D =
 * √(2wᵀΣw + μ²); μ = 0 is the plain expected hinge), adding scale·∂L/∂θ
 * to grad (length d + 1).  work: d doubles.
 */
double		gsu_row_loss_grad(int d, const double *theta, const double *x,
							  const gsu_cov *cov, double y, double mu,
							  double scale, double *grad, double *work);

/*
 * gsu_row_loss_grad with wᵀΣw (quad) and Σw (sw, d doubles) already
 * computed, as gsu_cov_quad returns and fills them.
 */
double		gsu_row_loss_grad_quad(int d, const double *theta, const double *x,
								   double quad, const double *sw, double y, double mu,
								   double scale, double *grad);

/*
 * gsu_row_loss_grad for a covariance that is not GSU_COV_FULL (diagonal,
 * isotropic or none), in two passes over the row instead of four and
 * without a work buffer, to the same values: *quad receives wᵀΣw, and
 * *grad_finite whether every element of grad is finite after the update.
 * The updated elements of grad are made canonical (+0.0, not −0.0), as a
 * gsu.partial stores them.  A full covariance returns NaN, grad unchanged.
 */
double		gsu_row_loss_grad_diag(int d, const double *theta, const double *x,
								   const gsu_cov *cov, double y, double mu,
								   double scale, double *grad, double *quad,
								   int *grad_finite);

/*
 * Σ_j a_j b_j (c == NULL) or Σ_j c_j a_j b_j, in eight interleaved partial
 * sums added pairwise: one running sum is a chain of dependent additions
 * (about 4 cycles each, 200 a row at dimension 50, the largest cost of a
 * streaming pass), while eight independent ones fill the vector units.  The
 * order depends on n only, so the result is the same on every call.
 */
static inline double
gsu_dot(int n, const double *a, const double *b, const double *c)
{
	double		s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
	int			j = 0,
				k;

	if (c == NULL)
		for (; j + 8 <= n; j += 8)
			for (k = 0; k < 8; k++)
				s[k] += a[j + k] * b[j + k];
	else
		for (; j + 8 <= n; j += 8)
			for (k = 0; k < 8; k++)
				s[k] += c[j + k] * a[j + k] * b[j + k];
	for (k = 0; j < n; j++, k++)
		s[k] += (c ? c[j] * a[j] : a[j]) * b[j];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* --------------------------------------------------------------- losses */

/*
 * The losses a model is trained with.  This enum and the table of
 * gsu_loss_kind_info (gsu_loss.c) are the one place a loss is declared: its
 * SQL name and what the rest of the code asks of it.  Adding a loss means a
 * value here, a row there (with its policies: default solver, default
 * options, what its solver holds in memory), its row loss (gsu_loss.c for
 * the Gaussian family, gsu_robust.h for the worst-case family) and, when it
 * needs a solver of its own, its branch in gsu_train_binary (gsu_binary.c).
 * The values are stored in gsu.model.
 */
typedef enum gsu_loss_kind
{
	GSU_LOSS_GSU = 0,			/* expected hinge loss under the row's Gaussian */
	GSU_LOSS_HINGE = 1,			/* the plain hinge loss on the means */
	GSU_LOSS_TSVC = 2,			/* Total SVC: best case over a ball per row */
	GSU_LOSS_ROBUST = 3,		/* worst case over an ellipsoid per row */
	GSU_LOSS_PSVM = 4			/* Power SVM: best case over a ball of a given radius */
} gsu_loss_kind;
#define GSU_LOSS_MAX GSU_LOSS_PSVM

typedef struct gsu_loss_kind_info
{
	const char *name;			/* the SQL name ("loss" option, model text) */
	int			uses_covariance;	/* 0: the rows' covariances are ignored */
	int			robust;			/* solved by the robust core (gsu_robust.h):
								 * reads gamma, delta_scale, epsilon, q */
	int			gradient_pass;	/* has the smoothed Gaussian-family gradient of
								 * gsu_row_loss_grad: streaming sgd, gsu.gradient,
								 * gsu.fit */
	int			radius;			/* a row's single number (gsu.train's float8
								 * "variance") is the radius of its ball, not a
								 * variance; rows take no covariance array */
	/* the loss's policies: its defaults and what its solvers hold */
	int			default_solver; /* gsu_solver_kind without an option "solver"
								 * (nor "init", the Newton solver's warm start) */
	double		default_gamma;	/* > 0: the loss takes the norm bound "gamma"
								 * (tsvc, robust), this value unless given */
	double		default_delta_scale;	/* > 0: its default "delta_scale" */
	int			default_max_iterations; /* > 0: its iterations unless given
										 * (else gsu_solve_options_default's) */
	int			holds_cov_copy; /* the solver copies the rows' covariances
								 * (the robust core's shapes; not the worst
								 * case over a feature map's box) */
	int			holds_shifted_rows; /* the solver keeps a radius and a shifted
									 * mean per row (TSVC's, PSVM's rounds) */
} gsu_loss_kind_info;

/* The description of a loss; NULL for a value that is not a loss. */
const gsu_loss_kind_info *gsu_loss_info(int kind);

/* The SQL name of a loss, "?" for a value that is not a loss. */
const char *gsu_loss_name(int kind);

/* The loss of a SQL name, −1 for a name that is not a loss's. */
int			gsu_loss_by_name(const char *name);

/*
 * The doubles that training n rows of dimension d with loss and solver (a
 * gsu_solver_kind) holds besides the rows themselves, from the loss's row of
 * the table: the per-row and per-weight vectors every solver keeps (10 a
 * row: margins, weights, labels; 40 a weight: Newton's and L-BFGS's
 * vectors), the robust core's copy of the covariances (cov_per doubles a
 * row, unless worst: the worst case over a feature map's box), TSVC's and
 * PSVM's radii and shifted rows, the hinge polish's support rows and system
 * for a loss that ignores covariances (at most d + 2 rows, 3000 at most),
 * the solver dcd's dual variables, diagonal, bounds and order (4 a row) with
 * the polish's band (gsu_hinge_polish_band_doubles), and, for the solver
 * newton with full covariances (cov_per = d²), the rows reduced to their
 * span (gsu_span_doubles).  The glue counts it against
 * gsu.max_training_memory before it trains.
 */
double		gsu_solver_doubles(int loss, int solver, int64_t n, int d, size_t cov_per, int worst);

/* ------------------------------------------------------------- solvers */

typedef enum gsu_solver_kind
{
	GSU_SOLVER_NEWTON = 0,		/* trust-region Newton-CG, batch; gsu.fit: Newton by scans */
	GSU_SOLVER_PEGASOS = 1,		/* mini-batch stochastic subgradient */
	GSU_SOLVER_SGD = 2,			/* streaming, one step per row */
	GSU_SOLVER_LBFGS = 3,		/* gsu.fit: passes of L-BFGS over a relation */
	GSU_SOLVER_DCD = 4			/* hinge loss, certain rows: dual coordinate descent */
} gsu_solver_kind;

/*
 * Called once per outer iteration; return non-zero to stop (the solver then
 * returns GSU_ECANCELLED).  The glue uses it for CHECK_FOR_INTERRUPTS.
 */
typedef int (*gsu_progress_fn) (void *arg);

/*
 * A progress callback with a work counter, for loops whose iterations cost
 * anything from a few flops to seconds: gsu_progress_tick adds an
 * iteration's work (about its flops) and calls the callback once at least
 * GSU_PROGRESS_WORK has accumulated (about a millisecond), so that a
 * cancel is seen within milliseconds while cheap iterations do not pay an
 * indirect call each.  fn may be NULL (never stop).
 */
#define GSU_PROGRESS_WORK 2000000
typedef struct gsu_progress
{
	gsu_progress_fn fn;
	void	   *arg;
	double		work;			/* since the last call */
} gsu_progress;

static inline gsu_progress
gsu_progress_make(gsu_progress_fn fn, void *arg)
{
	gsu_progress p = {fn, arg, 0.0};

	return p;
}

/* Non-zero when the callback asked to stop. */
static inline int
gsu_progress_tick(gsu_progress *p, double work)
{
	if (p == NULL || p->fn == NULL)
		return 0;
	p->work += work;
	if (p->work < GSU_PROGRESS_WORK)
		return 0;
	p->work = 0.0;
	return p->fn(p->arg) != 0;
}

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
 * The hinge-loss SVM of certain rows (ds->cov_kind GSU_COV_NONE, else
 * GSU_EINVAL) by dual coordinate descent with shrinking, in a random order
 * seeded by o->seed, each stage finished by the band's interior-point
 * polish (gsu_polish_band.c): on success res->gap_estimate is the certified
 * duality gap and res->gradient_norm the residual of the optimality
 * conditions; when no stage's polish succeeds within 400 epochs
 * gsu_solve_newton finishes from the last stage, and when d > 2000 it solves
 * the problem from w = 0.
 * theta's value on entry is not used (α starts at 0).  Deterministic.
 */
gsu_status	gsu_solve_dcd(const gsu_dataset *ds, const gsu_solve_options *o,
						  double *theta, gsu_solve_result *res);

/*
 * The doubles the solver dcd's exact finish (gsu_hinge_polish_band: its
 * band of rows, the interior-point method's vectors and factor) allocates
 * at most for n rows of dimension d, for gsu.max_training_memory's count
 */
double		gsu_hinge_polish_band_doubles(int64_t n, int d);

/*
 * One streaming SGD step (Pegasos with k = 1, taken in scan order) on the row
 * (x, cov, y): t is the step number (≥ 1), η_t = 1/(λt), and with the loss's
 * gradient scaled by scale ≥ 0 (1 for unweighted rows; for weighted ones the
 * row's weight over the mean weight, an unbiased estimate of the weighted
 * objective's gradient) w ← (1 − η_tλ)w − η_t·scale·∂L/∂w, b ← b −
 * η_t·scale·∂L/∂b; then w is projected onto the ball of radius 1/√λ.
 * Returns the row's loss before the step.  work: d doubles.
 */
double		gsu_sgd_step(int d, double *theta, double lambda, int64_t t,
						 const double *x, const gsu_cov *cov, double y,
						 double scale, double *work);

/*
 * Two streaming SGD iterates theta = (w, b) of one problem merged into a:
 * their average weighted by what each has seen (wa, wb: the sums of the rows'
 * weights, or row counts), an approximation of one sequential pass.
 */
void		gsu_sgd_merge(int d, double *a, double wa, const double *b, double wb);

/*
 * The primal objective lambda/2 ||w||^2 + loss_sum / weight of theta = (w, b)
 * (NULL: w = 0) from a sum of row losses over rows of total weight weight
 * (their count without weights); 0 when weight is 0.
 */
double		gsu_objective_from_sums(int d, const double *theta, double lambda,
									double loss_sum, double weight);

/* --------------------------------------------------------------- scoring */

/* wᵀx + b with theta = (w, b). */
double		gsu_decision(int d, const double *theta, const double *x);

/* Φ(|f| / √(wᵀΣw)): 1 when wᵀΣw = 0 and f ≠ 0, ½ when f = 0. */
double		gsu_confidence(int d, const double *theta, const double *x,
						   const gsu_cov *cov);

/* The expected hinge loss of one row under the model. */
double		gsu_row_loss(int d, const double *theta, const double *x,
						 const gsu_cov *cov, double y);

/*
 * The same two from a precomputed quad = wᵀΣw (for full covariances, from
 * gsu_quad_full).
 */
double		gsu_confidence_quad(int d, const double *theta, const double *x, double quad);

/*
 * The confidence of a decision value t whose variance is quad: P(N(t, quad)
 * > 0) = Phi(t / sqrt(quad)), and 1, 1/2 or 0 by the sign of t when quad = 0.
 */
double		gsu_positive_probability(double t, double quad);
double		gsu_row_loss_quad(int d, const double *theta, const double *x,
							  double quad, double y);

/* ------------------------------------------------------------------ rng */

/* xoshiro256** seeded by splitmix64: reproducible across platforms. */
typedef struct gsu_rng
{
	uint64_t	s[4];
} gsu_rng;

void		gsu_rng_seed(gsu_rng *r, uint64_t seed);
uint64_t	gsu_rng_next(gsu_rng *r);
/* Uniform integer in [0, n), n ≥ 1 (Lemire's multiply-shift, unbiased). */
uint64_t	gsu_rng_below(gsu_rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double		gsu_rng_uniform(gsu_rng *r);
/* Standard normal (Box–Muller, both values used in turn is not needed). */
double		gsu_rng_normal(gsu_rng *r);

#endif							/* GSU_CORE_H */
