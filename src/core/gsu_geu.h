/*
 * gsu_geu.h — graph embedding with data uncertainty (GEU): LDA and MFA
 * projections learned from Gaussian rows N(x_i, Σ_i).
 *
 * Graph embedding (Yan et al., "Graph Embedding and Extensions: A General
 * Framework for Dimensionality Reduction", TPAMI 2007).  With an intrinsic
 * graph W (pairs that should stay close) and a penalty graph W^p (pairs that
 * should be apart), L = D − W and L^p = D^p − W^p their Laplacians and X the
 * d×n matrix of rows, the projection V (d×k) solves
 *
 *     min tr(Vᵀ S V)  subject to  Vᵀ S^p V = I,     S = X L Xᵀ,  S^p = X L^p Xᵀ,
 *
 * i.e. the generalized eigenproblem S v = λ S^p v, keeping the k smallest λ
 * (λ = vᵀSv / vᵀS^pv: within-graph spread per unit of penalty spread).  The
 * solution is S^p-orthonormal, so each direction is scaled to unit penalty
 * scatter.  S^p must be positive definite (checked; see gsu_geneig_smallest).
 *
 * GEU (Laakom et al., IEEE Access 2022, eqs. 18–20).  Replacing each x_i by
 * a Gaussian N(x_i, Σ_i), independent across rows, and taking expectations:
 * E[x_i x_jᵀ] = x_i x_jᵀ + δ_ij Σ_i, so
 *
 *     E[X L Xᵀ] = X L Xᵀ + Σ_i L_ii Σ_i,      E[X L^p Xᵀ] = X L^p Xᵀ + Σ_i L^p_ii Σ_i,
 *
 * which are the matrices used.  L_ii = D_ii − W_ii is the degree of row i
 * without its self-loop (the paper's D_ii for graphs without self-loops; a
 * Laplacian does not depend on self-loops, and neither does the expectation:
 * E‖x_i − x_i‖² = 0).  With every Σ_i = 0 the problem is the plain method.
 *
 * Regularization ε (RLDA / RMFA), in one of two forms: S^p + εI only (the
 * GEU paper's Sect. III-A, S̃_b = X L^p Xᵀ + εI, "penalty"), or S + εI and
 * S^p + εI ("both").  For LDA, whose S^p here is S_t = S_w + S_b, the penalty
 * form has the paper's eigenvectors: S_w v = μ (S_t + εI) v is
 * S_w v = λ (S_b + εI) v with λ = μ / (1 − μ), the same order.
 *
 * LDA (Yan et al. Table 1): W_ij = 1/n_c when rows i, j are both in class c,
 * W^p_ij = 1/N, so S = S_w (within-class scatter), S^p = S_t (total scatter),
 * L_ii = 1 − 1/n_{c_i}, L^p_ii = 1 − 1/N.  The smallest λ of S_w v = λ S_t v
 * are the largest Fisher ratios vᵀS_bv / vᵀS_wv = (1 − λ)/λ; beyond the first
 * (classes − 1) directions plain LDA has λ = 1 (S_b v = 0).
 *
 * MFA (Yan et al. Sect. 4.2): W_ij = 1 when i is among the k1 nearest rows of
 * j's class to j or vice versa (i ≠ j); W^p_ij = 1 when the pair (i, j) is
 * among the k2 nearest pairs between class c and the other classes, for c
 * the class of i or of j.  Nearest means smallest Euclidean distance of the
 * means, ties broken by row index.
 */
#ifndef GSU_GEU_H
#define GSU_GEU_H

#include "gsu_base.h"

/*
 * Smallest reciprocal condition number (1-norm, after scaling S^p to unit
 * diagonal) for which S^p counts as positive definite.
 */
#define GSU_GEU_RCOND_MIN 1e-12

/* ------------------------------------------------- class statistics (LDA) */

/*
 * Running mean and centred scatter of one class: with n rows so far,
 * mean = Σ x / n and m2 = Σ (x − mean)(x − mean)ᵀ (d×d, row-major; only the
 * upper triangle, j ≥ i, is maintained).  Welford's update: n ← n + 1,
 * δ = x − mean, mean ← mean + δ/n, m2 ← m2 + (n − 1)/n · δδᵀ.
 * work: d doubles.
 */
void		gsu_stats_add(int d, int64_t *n, double *mean, double *m2, const double *x,
						  double *work);

/*
 * Merges (nb, meanb, m2b) into (na, meana, m2a) (Chan, Golub & LeVeque):
 * δ = meanb − meana, mean ← meana + δ·nb/n, m2 ← m2a + m2b + δδᵀ·na·nb/n.
 */
void		gsu_stats_merge(int d, int64_t *na, double *meana, double *m2a, int64_t nb,
							const double *meanb, const double *m2b, double *work);

/*
 * The LDA matrices from c classes (arrays indexed by class): counts n[c],
 * means (c×d), m2 (c×d×d, upper triangles), and the per-class sums of the
 * rows' covariances, vdiag (c×d, diagonal parts) and vfull (c×d×d, full
 * parts, upper triangles), either may be NULL.  Writes the full symmetric
 * d×d matrices
 *
 *     S   = Σ_c m2_c + Σ_c (1 − 1/n_c) V_c + eps_s·I,
 *     S^p = Σ_c m2_c + Σ_c n_c (μ_c − μ)(μ_c − μ)ᵀ + (1 − 1/N) Σ_c V_c + eps_p·I,
 *
 * V_c = diag(vdiag_c) + vfull_c.  work: d doubles.
 */
void		gsu_lda_scatter(int d, int c, const int64_t *n, const double *means,
							const double *m2, const double *vdiag, const double *vfull,
							double eps_s, double eps_p, double *S, double *Sp, double *work);

/* ------------------------------------------------------------- MFA */

/* An undirected graph as a sorted list of edges i < j without repeats. */
typedef struct gsu_graph
{
	int64_t		m;				/* edges */
	int64_t    *a;				/* a[e] < b[e] */
	int64_t    *b;
} gsu_graph;

void		gsu_graph_free(gsu_graph *g);

/*
 * The MFA graphs of the n rows x (n×d) with labels: intrinsic (k1 nearest
 * same-class rows, symmetrized) and penalty (k2 nearest between-class pairs
 * per class).  Both are malloc'ed; free with gsu_graph_free.
 */
gsu_status	gsu_mfa_graphs(int64_t n, int d, const double *x, const int32_t *labels,
						   int k1, int k2, gsu_graph *intrinsic, gsu_graph *penalty,
						   gsu_progress_fn progress, void *progress_arg);

/*
 * S = Σ_{edges (i,j)} (x_i − x_j)(x_i − x_j)ᵀ + Σ_i deg_i Σ_i + εI for a
 * graph with 0/1 weights (deg_i = L_ii), Σ_i = diag(vdiag_i) + vfull_i
 * (vdiag n×d, vfull n×d×d, either NULL).  Writes the full symmetric d×d S.
 * pg (NULL allowed) is ticked per block of edges and per row: GSU_ECANCELLED
 * when it says stop.
 */
gsu_status	gsu_graph_scatter(int64_t n, int d, const double *x, const double *vdiag,
							  const double *vfull, const gsu_graph *g, double eps,
							  double *S, gsu_progress *pg);

/* ------------------------------------------------------- eigenproblem */

typedef struct gsu_geneig_info
{
	int			singular;		/* S^p is not numerically positive definite */
	double		rcond;			/* of S^p scaled to unit diagonal (0 if not computed) */
	int			lapack_info;	/* LAPACK's info when it failed */
} gsu_geneig_info;

/*
 * The k smallest eigenpairs of A v = λ B v (A symmetric, B symmetric
 * positive definite, both full d×d): lambda[0..k−1] ascending, and the
 * eigenvectors as the rows of vt (k×d, row-major), B-orthonormal, each with
 * its largest-magnitude component positive.  B is first scaled to unit
 * diagonal (D B D, D = diag(B_jj)^(−1/2)); it counts as singular when a
 * diagonal element is not positive, the Cholesky factorization fails, or
 * the reciprocal condition number is below GSU_GEU_RCOND_MIN — then
 * GSU_EINVAL with info->singular set.  dsygvd's reduction, B = UᵀU and
 * C = U⁻ᵀAU⁻¹, done by blocks of triangular solves, and the standard
 * problem by gsu_syevr, so that pg (NULL allowed) is ticked between pieces
 * of O(d²) to O(d²·block) work: GSU_ECANCELLED when it says stop (the
 * Cholesky factorization too is done by blocks).
 */
gsu_status	gsu_geneig_smallest(int d, const double *A, const double *B, int k,
								double *lambda, double *vt, gsu_geneig_info *info,
								gsu_progress *pg);

/* ----------------------------------------------------- using a projection */

/* z = Vᵀx for the k×d row-major vt. */
void		gsu_project(int k, int d, const double *vt, const double *x, double *z);

/* out_j = v_jᵀ diag(var) v_j. */
void		gsu_project_var_diag(int k, int d, const double *vt, const double *var,
								 double *out);

/*
 * out = Vᵀ Σ V (k×k, row-major, symmetric) for a full symmetric Σ (d×d);
 * work: k×d doubles.  A diagonal element below −tol_j, tol_j =
 * 8(d + 2)ε·max|Σ|·(Σ_l |v_jl|)², shows Σ is not positive semidefinite:
 * GSU_EINVAL with *bad = j; smaller negative values (rounding) become 0.
 */
gsu_status	gsu_project_cov(int k, int d, const double *vt, const double *sigma,
							double *out, double *work, int *bad);

#endif							/* GSU_GEU_H */
