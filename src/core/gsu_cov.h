/*
 * gsu_cov.h — a row's covariance: the one covariance type of the core,
 * gsu_cov, its quadratic forms wᵀΣw and Σw for every kind, and the checks
 * and subspace restriction of a row's covariance (gsu_cov.c).
 */
#ifndef GSU_COV_H
#define GSU_COV_H

#include "gsu_base.h"

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

/* tr Σ = ‖Σ^{1/2}‖_F² of a covariance of dimension d (0 for GSU_COV_NONE) */
static inline double
gsu_cov_trace(int d, const gsu_cov *c)
{
	double		t = 0.0;
	size_t		k,
				n = c->kind == GSU_COV_FACTOR ? (size_t) d * (size_t) c->rank : (size_t) d;

	if (c->kind == GSU_COV_ISO)
		return d * c->iso;
	if (c->kind == GSU_COV_NONE)
		return 0.0;
	for (k = 0; k < n; k++)
	{
		double		v = c->kind == GSU_COV_FULL ? c->data[k * (size_t) d + k] : c->data[k];

		t += c->kind == GSU_COV_FACTOR ? v * v : v;
	}
	return t;
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

/* wᵀΣw for a full symmetric Σ (d×d, row-major); sw (length d) receives Σw. */
double		gsu_quad_full(int d, const double *w, const double *cov, double *sw);

/* ---------------------------------------------------- checks, subspaces */

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

/*
 * The columns F = P·L(:, 1:r) of Σ's pivoted Cholesky factor PᵀΣP = LLᵀ
 * (LAPACK dpstrf, its default rank tolerance), so that Σ = FFᵀ up to that
 * tolerance: written to out (d × r_max column-major, r ≤ r_max); sigma is
 * d × d (symmetric), a (d × d) and piv (d) are scratch.  Returns r (0 for
 * Σ = 0), or −1 when r would exceed r_max or LAPACK fails.
 */
int			gsu_cov_range_columns(int d, const double *sigma, double *a, int *piv, int r_max,
								  double *out);

/*
 * A row's missing mean elements (NaN in x) read as the features' moments:
 * x_j = mean_j, and var_j added to the covariance's diagonal there (cov is
 * d values for GSU_COV_DIAG, d × d for GSU_COV_FULL; NULL or another kind:
 * the means only).  Returns how many elements were missing.
 */
int			gsu_cov_fill_missing(int d, double *x, gsu_cov_kind kind, double *cov,
								 const double *mean, const double *var);

/*
 * Σ_jj of a row's covariance c of dimension d: its isotropic variance, its
 * diagonal element, or for a factor L row j's sum of squares (LLᵀ)_jj; 0
 * for none.
 */
double		gsu_cov_variance_of(int d, const gsu_cov *c, int j);

#endif							/* GSU_COV_H */
