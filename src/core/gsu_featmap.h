/*
 * gsu_featmap.h — explicit feature maps of the Gaussian kernel
 * k(x, x') = exp(−‖x − x'‖²/(2σ²)) for nonlinear SVMs on uncertain data
 * (Couellan & Jan, "Feature uncertainty bounding schemes for large robust
 * nonlinear SVM classifiers", arXiv 1706.09795, Sect. 4–5).
 *
 * Random Fourier features (Rahimi & Recht), paired cos/sin form: with
 * ω_1..ω_{D/2} ~ N(0, σ⁻²I) and c = √(2/D),
 *
 *     φ(x) = c · (cos ω_1ᵀx, sin ω_1ᵀx, …, cos ω_{D/2}ᵀx, sin ω_{D/2}ᵀx),
 *     φ(x)ᵀφ(x') = (2/D) Σ_j cos ω_jᵀ(x − x')  →  k(x, x')   (E_ω cos ωᵀt = e^{−‖t‖²/(2σ²)}).
 *
 * Nyström: landmarks z_1..z_m drawn without replacement from the training
 * means, K_mm = U Λ Uᵀ (gsu_syevr: dsyevr's steps, cancellable), eigenpairs with λ_j ≤
 * GSU_NYSTROEM_REL_EIG·λ_max dropped (r kept), and
 *
 *     φ(x) = Λ_r^{−1/2} U_rᵀ k_m(x),  k_m(x)_l = k(x, z_l),   so
 *     φ(x)ᵀφ(x') = k_m(x)ᵀ K_mm⁺ k_m(x')  (the rank-r Nyström kernel).
 *
 * The projection P = Λ_r^{−1/2}U_rᵀ (r × m) is stored transposed, as the
 * m × r matrix proj with proj[l·r + j] = U_lj / √λ_j.
 *
 * The exact degree-2 polynomial map of k(x, x') = (xᵀx')² (Bi & Zhang's TSVC
 * experiment): φ(x) = (x_i x_j for i ≤ j, times √2 when i < j), of dimension
 * p(p+1)/2, with no parameters and no stored block; its moments (Isserlis'
 * theorem) and worst-case box are in gsu_featmap_poly2.c.
 *
 * Uncertainty in feature space comes from the input Gaussian N(μ, Σ):
 * gsu_featmap_moments gives E φ(z) and the diagonal of Cov φ(z) exactly
 * (closed forms below), the feature-space row SVM-GSU trains on.  The
 * worst-case bounds (robust loss) take the input uncertainty set
 * U = {δ : ‖Σ^{−1/2}δ‖_p ≤ γ} (Σ^{1/2} the symmetric root) and bound
 * φ(μ + δ) − φ(μ) over it.
 */
#ifndef GSU_FEATMAP_H
#define GSU_FEATMAP_H

#include "gsu_cov.h"

#include "gsu_featmap_type.h"
#include "gsu_featmap_poly2.h"

/* Nyström: eigenvalues of K_mm at or below this fraction of the largest are dropped. */
#define GSU_NYSTROEM_REL_EIG 1e-8


/*
 * Doubles in the map's matrix block: RFF (D/2)·p, Nyström m·p + m·D,
 * poly2 0 (it has no block); −1 when the arguments are inconsistent (odd D,
 * non-positive sizes, poly2 with D ≠ p(p+1)/2 or landmarks, an unknown kind)
 * or the length exceeds INT32_MAX.
 */
int64_t		gsu_featmap_length(int kind, int dim, int p, int landmarks);

/* Points f's matrices into block (of gsu_featmap_length doubles). */
void		gsu_featmap_bind(gsu_featmap *f, int kind, int p, int dim, int landmarks,
							 double sigma, const double *block);

/* RFF: fills omega ((D/2)·p doubles) with N(0, σ⁻²) draws of gsu_rng(seed). */
gsu_status	gsu_rff_build(int p, int dim, double sigma, uint64_t seed, double *omega);

/*
 * Nyström from the n × p training means x: m distinct rows drawn with
 * gsu_rng(seed) (partial Fisher–Yates) become the landmarks (z, m × p);
 * proj (capacity m × m) receives the m × r projection, *r the kept rank.
 * GSU_EINVAL when m > n or m < 1 or σ ≤ 0.  pg (NULL allowed) is ticked
 * while the kernel matrix is filled and decomposed: GSU_ECANCELLED when it
 * says stop.
 */
gsu_status	gsu_nystroem_build(int64_t n, int p, const double *x, int m, double sigma,
							   uint64_t seed, double *z, double *proj, int *r,
							   gsu_progress *pg);

/*
 * Bytes gsu_nystroem_build allocates besides z and proj (n rows, m
 * landmarks), LAPACK's workspace included: with n and m known before
 * anything is allocated, the caller can refuse a map it cannot afford.
 */
size_t		gsu_nystroem_build_bytes(int64_t n, int m);

/* Scratch (doubles) gsu_featmap_apply needs: m for Nyström, none for RFF and poly2. */
size_t		gsu_featmap_apply_work_size(const gsu_featmap *f);

/* Scratch (doubles) gsu_featmap_apply and gsu_featmap_moments need (Nyström: m² + O(m + p); poly2: none). */
size_t		gsu_featmap_work_size(const gsu_featmap *f);

/* φ(x) (length dim). */
void		gsu_featmap_apply(const gsu_featmap *f, const double *x, double *phi,
							  double *work);

/*
 * Exact first two moments of φ(z), z ~ N(μ, Σ), Σ = cov (p × p) when cov !=
 * NULL, else diag(var) when var != NULL, else iso·I:  mean = E φ(z) and
 * var_out = diag Cov φ(z) (the off-diagonal covariance is dropped).
 *
 * RFF, with a_j = ω_jᵀz ~ N(m_j, s_j²), m_j = ω_jᵀμ, s_j² = ω_jᵀΣω_j:
 *     E cos a = e^{−s²/2} cos m,   E sin a = e^{−s²/2} sin m,
 *     Var cos a = ½(1 − e^{−s²})(1 − e^{−s²} cos 2m),
 *     Var sin a = ½(1 − e^{−s²})(1 + e^{−s²} cos 2m)     (times c²).
 * Nyström (Σ diagonal; a full Σ is first rotated to its eigenbasis, which
 * the isotropic kernel does not see):
 *     E k(z, a) = Π_k (1 + v_k/σ²)^{−1/2} exp(−½ Σ_k (μ_k − a_k)²/(v_k + σ²)),
 *     E k(z, a) k(z, b) = e^{−‖a − b‖²/(4σ²)} Π_k (1 + 2v_k/σ²)^{−1/2}
 *                         · exp(−½ Σ_k (μ_k − (a_k + b_k)/2)²/(v_k + σ²/2)),
 *     E φ = P E k_m,  Var φ_j = Σ_{l,l'} P_jl P_jl' Cov(k_l, k_l').
 * GSU_ENOMEM, or GSU_ENOTFINITE when a full Σ cannot be decomposed (full Σ
 * with Nyström allocates for its eigenbasis).  One Nyström row costs
 * O(m²(p + D)): pg (NULL allowed) is ticked inside it, and GSU_ECANCELLED
 * returned (nothing left allocated) when it says stop.
 */
gsu_status	gsu_featmap_moments(const gsu_featmap *f, const double *mu,
								const gsu_cov *incov, double *mean, double *var_out,
								double *work, gsu_progress *pg);

/*
 * The full covariance Cov φ(z) (dim × dim, row-major, into C) with the
 * mean E φ(z) (into mean), z ~ N(μ, Σ) as above.  RFF, with
 * s_jk = ω_jᵀΣω_k, v∓ = s_jj + s_kk ∓ 2s_jk and e∓ = e^{−v∓/2}:
 *     E cos a_j cos a_k = ½(e₋ cos(m_j − m_k) + e₊ cos(m_j + m_k)),
 *     E sin a_j sin a_k = ½(e₋ cos(m_j − m_k) − e₊ cos(m_j + m_k)),
 *     E sin a_j cos a_k = ½(e₊ sin(m_j + m_k) + e₋ sin(m_j − m_k)),
 * minus the products of the means (times c²).  Nyström: P Cov(k_m) Pᵀ.
 * work: gsu_featmap_cov_work_size doubles.  pg as in gsu_featmap_moments.
 * GSU_ENOMEM or GSU_ECANCELLED only.
 */
gsu_status	gsu_featmap_covariance(const gsu_featmap *f, const double *mu,
								   const gsu_cov *incov, double *mean, double *C,
								   double *work, gsu_progress *pg);

/* Scratch (doubles) gsu_featmap_covariance needs. */
size_t		gsu_featmap_cov_work_size(const gsu_featmap *f);

/*
 * The variances wᵀ Cov φ(z) w of nw weight vectors w[v] (length dim) and
 * the mean E φ(z), z ~ N(μ, Σ) as above, without the dim × dim matrix:
 * the double sum over pairs of frequencies (RFF, the entries of
 * gsu_featmap_covariance) or of landmarks (Nyström, gᵀ Cov(k_m) g with
 * g = proj·w) is accumulated one pair at a time, in O(dim + nw·m + m·p)
 * memory.  gsu_featmap_quad_prepare sets work up and fills mean and zeroes
 * quad; gsu_featmap_quad_block then adds the pairs whose larger index lies
 * in [j0, j1), 0 ≤ j0 ≤ j1 ≤ gsu_featmap_quad_outer(f), so the caller can
 * split the O(outer² · p) work and check for interrupts between blocks.
 * Both take the same incov; work has gsu_featmap_quad_work_size(f, nw,
 * incov->kind == GSU_COV_FULL) doubles.  GSU_ENOMEM or GSU_ENOTFINITE from
 * the eigen-decomposition of a full Σ (Nyström).
 */
size_t		gsu_featmap_quad_work_size(const gsu_featmap *f, int nw, int full);
int			gsu_featmap_quad_outer(const gsu_featmap *f);
gsu_status	gsu_featmap_quad_prepare(const gsu_featmap *f, const double *mu,
									 const gsu_cov *incov, int nw, const double *const *w,
									 double *mean, double *quad, double *work);
void		gsu_featmap_quad_block(const gsu_featmap *f, const gsu_cov *incov, int nw,
								   const double *const *w, int j0, int j1, double *quad,
								   double *work);

/* ------------------------------------------------- worst-case bounds */

/*
 * RFF, per-frequency phase bounds: the largest |ω_jᵀδ| over U,
 *     τ_j = γ ‖Σ^{1/2} ω_j‖_q,   1/p + 1/q = 1  (Hölder, attained),
 * q ∈ {1, 2, ∞} given as 1, 2 or 0 (∞).  Σ as in gsu_featmap_moments;
 * a full Σ with q ≠ 2 needs its symmetric root (eigen-decomposition).
 * tau has D/2 entries.
 */
gsu_status	gsu_rff_phase_bounds(const gsu_featmap *f, const gsu_cov *incov, double gamma,
								 int q, double *tau);

/*
 * v = R_i w at x (RFF, Couellan & Jan's Prop. 4.1): pair j rotated by −θ_j,
 * θ_j = ω_jᵀx; cs (2 per pair) receives (cos θ_j, sin θ_j); w = v = NULL
 * fills cs only.
 */
void		gsu_rff_rotate(const gsu_featmap *f, const double *x, const double *w, double *v,
						   double *cs);

/*
 * RFF box after the rotation R_i (Couellan & Jan, Prop. 4.1): the 2 × 2
 * block j of R_i turns the pair (cos θ_j, sin θ_j), θ_j = ω_jᵀx, onto
 * (1, 0), so a phase shift t, |t| ≤ τ_j, moves the rotated pair by
 * c·(cos t − 1, sin t), which lies in the box
 *     [−c(1 − cos min(τ_j, π)), 0] × [−c sin min(τ_j, π/2), c sin min(τ_j, π/2)].
 * lo, hi (length D) receive the box in rotated coordinates.
 */
void		gsu_rff_box(const gsu_featmap *f, const double *tau, double *lo, double *hi);

/*
 * The exact worst case over the RFF box (rotated coordinates, v = R_i w,
 * R_i the rotation at x, θ_j = ω_jᵀx):
 *     ρ(w) = max_{Δ ∈ R_iᵀB} −y wᵀΔ = max_{u ∈ B} −y vᵀu
 *          = Σ_k max(−y v_k lo_k, −y v_k hi_k),
 * convex in w; the robust loss is max(0, 1 − y(wᵀφ(x) + b) + ρ(w)).
 * When grad != NULL, scale·∂ρ/∂w (a subgradient) is added to grad
 * (length D); work: 2D doubles.
 */
double		gsu_rff_box_worst(const gsu_featmap *f, const double *x, const double *lo,
							  const double *hi, const double *w, double y, double scale,
							  double *grad, double *work);

/*
 * The per-row matrix A_i of the symmetric relaxation ‖A_i w‖_1 ≥ ρ(w)
 * (the box widened to [−max(|lo|,|hi|), +max(|lo|,|hi|)]), for a robust
 * loss of the form max(0, d_x + ‖A_i w‖_q) with q = 1.  RFF: A_i =
 * diag(r) R_i, D × D (block diagonal), row-major in A.  GSU_ENOMEM only.
 */
gsu_status	gsu_rff_bound_matrix(const gsu_featmap *f, const double *x, const double *lo,
								 const double *hi, double *A);

/*
 * Nyström (Couellan & Jan, Prop. 4.2): each k(x + δ, z_l) over U lies in
 * [e^{−d⁺²/(2σ²)}, e^{−d⁻²/(2σ²)}] with d∓ the least and greatest
 * ‖x + δ − z_l‖; lo, hi (length m) receive that interval minus k(x, z_l).
 * With a diagonal (or isotropic) Σ, d∓ are exact: for p = ∞ the box
 * δ_k ∈ [−γ√v_k, γ√v_k] separates by coordinate, for p = 2 the ellipsoid's
 * nearest and farthest points solve a secular equation (bisection, rounded
 * outwards).  Otherwise (p = 1, or a full Σ) U is enclosed in the ball of
 * radius ρ (see gsu_uncertainty_radius) and d⁻ = max(0, ‖x − z_l‖ − ρ),
 * d⁺ = ‖x − z_l‖ + ρ.  p is 1, 2 or 0 (∞).  *radius receives ρ.  work: p doubles.
 */
gsu_status	gsu_nystroem_box(const gsu_featmap *f, const double *x, const gsu_cov *incov,
							 double gamma, int p, double *lo, double *hi, double *radius,
							 double *work);

/*
 * The exact worst case of −y wᵀPΔk over Δk ∈ [lo, hi]:
 *     ρ(w) = Σ_l max(−y g_l lo_l, −y g_l hi_l),  g = Pᵀw = proj·w  (m),
 * adding scale·∂ρ/∂w to grad when grad != NULL.  work: m doubles.
 */
double		gsu_nystroem_box_worst(const gsu_featmap *f, const double *lo, const double *hi,
								   const double *w, double y, double scale, double *grad,
								   double *work);

/*
 * Γ_i of the symmetric relaxation for Nyström: A_i = diag(β) proj, m × D,
 * β_l = max(|lo_l|, |hi_l|), so ‖A_i w‖_1 = Σ_l β_l |g_l| ≥ ρ(w); the
 * Λ^{−1/2} weighting of the eigen-directions is inside proj.
 */
void		gsu_nystroem_bound_matrix(const gsu_featmap *f, const double *lo,
									  const double *hi, double *A);

/*
 * The radius ρ of the smallest centred ball holding U: γ√λ_max(Σ) for
 * p ∈ {1, 2}; for p = ∞, γ√(Σ_k v_k) with a diagonal Σ (the box's
 * half-diagonal) and γ√(p_dim·λ_max) with a full one (an enclosing ball).
 * The tightness check compares it with the kernel width.  Both bounds are informative only while ρ ≤ σ: beyond
 * it the RFF phase ranges τ_j ≈ ρ‖ω_j‖ (E‖ω‖² = p/σ²) pass π/2 and the
 * boxes saturate, and the Nyström intervals cover most of (0, 1].
 * Returns ρ (the caller compares with σ).  p as above.
 */
double		gsu_uncertainty_radius(int dim, const gsu_cov *incov, double gamma, int p);

/* ------------------------------------ per-row worst case, for training */

/* Doubles of one row's box (lo then hi): 2·D for RFF and poly2, 2·m for Nyström. */
size_t		gsu_featmap_box_len(const gsu_featmap *f);

/* Scratch (doubles) gsu_featmap_row_box and gsu_featmap_row_term need. */
size_t		gsu_featmap_box_work_size(const gsu_featmap *f);

/*
 * The doubles of one row's bound in training and the scratch to compute it
 * and its term: the box (gsu_featmap_box_len, gsu_featmap_box_work_size),
 * or with cj Couellan & Jan's one Γ_i (gsu_cj_work_size).
 */
size_t		gsu_featmap_bound_len(const gsu_featmap *f, int cj);
size_t		gsu_featmap_bound_work_size(const gsu_featmap *f, int cj);

/*
 * The box of one input row x with Σ as in gsu_featmap_moments, over the
 * input set U = {δ : ‖Σ^{−1/2}δ‖_p ≤ γ} (p = 1, 2 or 0 for ∞): RFF, the
 * phase bounds τ_j (gsu_rff_phase_bounds with the dual q) turned into the
 * rotated box (gsu_rff_box); Nyström, the kernel intervals minus k(x, z_l)
 * (gsu_nystroem_box); poly2, the products' ranges over the coordinate box
 * that holds U (gsu_poly2_row_box).  box receives lo (first half) and hi (second half),
 * gsu_featmap_box_len doubles.  work: gsu_featmap_box_work_size doubles.
 * GSU_EINVAL for a bad p, GSU_ENOMEM, GSU_ENOTFINITE.
 */
gsu_status	gsu_featmap_row_box(const gsu_featmap *f, const double *x, const gsu_cov *incov,
								double gamma, int p, double *box, double *work);

/*
 * The training rows of the feature-space worst-case robust loss: the map,
 * the n × p input means (the RFF rotation R_i depends on x_i) and the
 * n × gsu_featmap_box_len boxes; work (gsu_featmap_box_work_size doubles)
 * is scratch, so one value is used by one thread at a time.
 */
typedef struct gsu_featmap_rows
{
	const gsu_featmap *f;
	const double *x;
	const double *box;			/* n boxes, or with cj the n numbers Γ_i */
	double	   *work;			/* max(gsu_featmap_box_work_size, gsu_cj_work_size) */
	int			cj;				/* Couellan & Jan's Γ_i instead of the exact boxes */
	int			pbar;			/* with cj: p̄ of ‖R_iΔφ‖_p̄ ≤ Γ_i (1, 2 or 0 = ∞) */
} gsu_featmap_rows;

/*
 * ρ_i(w), the exact worst case over row i's box of −y wᵀΔφ
 * (gsu_rff_box_worst, gsu_nystroem_box_worst or gsu_poly2_box_worst), or
 * with cj Couellan & Jan's Γ_i‖R_i^{−T}w‖_q̄ (gsu_cj_row_worst), adding scale·∂ρ_i/∂w to
 * grad (length D) when grad != NULL.  arg is a gsu_featmap_rows; the
 * signature is the row_term callback of gsu_robust_data.
 */
double		gsu_featmap_row_term(const void *arg, int64_t i, const double *w, double y,
								 double scale, double *grad);

/* ------------------ Couellan & Jan's own bounds (gsu_featmap_cj.c) */

/*
 * The paper's Props. 4.1 and 4.2 as an option beside the exact boxes above:
 * one number Γ_i a row with ‖R_iΔφ‖_p̄ ≤ Γ_i for every Δφ = φ(x_i + δ) − φ(x_i),
 * δ in the input set U_i = {δ : ‖Σ_i^{−1/2}δ‖_p ≤ γ}.  The worst case of
 * −y wᵀΔφ over that set is Γ_i‖R_i^{−T}w‖_q̄ (1/p̄ + 1/q̄ = 1); the paper's
 * eq. (10) prints ‖R_iᵀw‖_q̄, which is the same for RFF (R_i orthogonal) but
 * not for Nyström, where R_i = Λ^{1/2} and the term is Γ_i‖Λ^{−1/2}w‖₂ =
 * Γ_i‖proj·w‖₂.
 *
 * RFF (Prop. 4.1), any p̄: τ_j = γ‖Σ^{1/2}ω_j‖_q (q the dual of p, as
 * gsu_rff_phase_bounds), α_j = min(2, τ_j²/2), β_j = min(1, τ_j), c = √(2/D):
 *     p̄ = 1: Γ = c Σ_j (α_j + β_j);  p̄ = 2: Γ = √((4/D) Σ_j α_j);
 *     p̄ = ∞: Γ = c max(max_j α_j, max_j β_j),
 * with R_i the rotation of gsu_rff_box (pair j turned by −ω_jᵀx_i).
 * Nyström (Prop. 4.2), p̄ = 2 only: with k_l = k(x_i, z_l), h_l ≥ |δᵀ(x_i − z_l)|
 * (γ‖Σ^{1/2}(x_i − z_l)‖_q by Hölder; a full Σ with q ≠ 2 uses the ball of
 * gsu_uncertainty_radius), τ_l = e^{−2h_l/(2σ²)}, R ≥ ‖δ‖ (gsu_uncertainty_radius)
 * and ρ = e^{−R²/(2σ²)}:
 *     Γ² = r (Σ_l k_l²(1/τ_l² + 1) − 2ρ Σ_l k_l² τ_l),
 * r the map's dimension.  As printed, with its factor r, which
 * ‖UᵀΔk‖ ≤ ‖Δk‖ (U with orthonormal columns) shows to be unnecessary; for
 * p = 2 h_l and R are the paper's γ‖Σ^{T/2}(x_i − z_l)‖ and γ‖Σ^{1/2}‖.
 * poly2 has no such bound in the paper: GSU_EINVAL, as for p or p̄ outside
 * {1, 2, 0} and Nyström with p̄ ≠ 2.
 */
size_t		gsu_cj_work_size(const gsu_featmap *f);
gsu_status	gsu_cj_row_gamma(const gsu_featmap *f, const double *x, const gsu_cov *incov,
							 double gamma, int p, int pbar, double *Gamma, double *work);

/*
 * Γ·‖R^{−T}w‖_q̄ at row x (see above), adding scale·∂/∂w (a subgradient;
 * 0 at w = 0) to grad when grad != NULL.  work: gsu_cj_work_size doubles.
 */
double		gsu_cj_row_worst(const gsu_featmap *f, const double *x, double Gamma, int pbar,
							 const double *w, double scale, double *grad, double *work);

#endif							/* GSU_FEATMAP_H */
