/*
 * gsu_polish.h — the hinge polishes: the exact minimizer of the hinge-loss
 * SVM of certain rows from an approximate one, by its optimality conditions.
 * Three ways to it, one file each: from the rows of a data set by an
 * active-set iteration (gsu_polish.c; the batch solver newton's finish for
 * the loss hinge), from dual coordinate descent's stages by an
 * interior-point method on a band of rows (gsu_polish_band.c), and from the
 * sums of one scan of a table by SMO on the band (gsu_polish_sums.c,
 * gsu.fit's solver newton).  The derivations: src/core/README.
 */
#ifndef GSU_POLISH_H
#define GSU_POLISH_H

#include "gsu_dataset.h"

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
 * The doubles the solver dcd's exact finish (gsu_hinge_polish_band: its
 * band of rows, the interior-point method's vectors and factor) allocates
 * at most for n rows of dimension d, for gsu.max_training_memory's count
 */
double		gsu_hinge_polish_band_doubles(int64_t n, int d);


/*
 * The exact hinge optimum from the data of one scan at a point θ (certain
 * rows only; see gsu_polish.c for the optimality conditions): with the rows
 * of margin d_i > τ in V (α_i = c_i), those below −τ in N (α_i = 0), and the
 * n_s rows of the band |d_i| ≤ τ given one by one (srows: n_s rows of
 * (x_1..x_d, c_i y_i), c_i > 0 the row's weight, 1 without weights), the
 * dual restricted to the band, α_i ∈ [0, c_i] with Σ_band α_i y_i =
 * −Σ_V c_i y_i, is solved by SMO (the maximal violating pair), finished by an
 * active-set solve of the free rows' margin equations when SMO crawls.
 * n is W = Σ c_i over all rows, vsum = Σ_V c_i y_i (x_i, 1), count_v =
 * Σ_V c_i.  alpha (NULL: none) holds the band's start on entry, used when
 * it is feasible (a greedy feasible start otherwise), and the solution on
 * success.  On success (returns 1: the band's KKT violation max_up F −
 * min_low F within kkt_tol·(1 + |max_up F| + |min_low F|), in *kkt) theta is
 * the candidate and *dual the dual objective D(α) = (1/n)Σα_i − λ/2‖w‖² of
 * the whole problem (V's α at c_i); the primal objective at theta over all
 * rows minus *dual bounds its gap, which certifies it.  2: SMO (and the
 * active-set finish) stopped short of kkt_tol, but α is feasible: theta,
 * *dual (a true lower bound on the optimum, w recomputed from α), *kkt and
 * alpha as on success, a candidate that rarely certifies but a start.  0: no
 * candidate (theta unchanged): too few band rows for the constraint.
 */
int			gsu_hinge_polish_sums(int d, double lambda, double n, const double *vsum,
								  double count_v, int64_t n_s, const double *srows,
								  double *alpha, double kkt_tol, double *theta, double *dual,
								  double *kkt);

/*
 * rows of the band's kernel matrix kept (each n_s doubles), the least
 * recently used replaced: the whole matrix for a band of up to
 * GSU_POLISH_FULL_KERNEL rows (32 MB at most), else 64, or twice the d + 1
 * free rows of a face.  With the whole matrix an SMO step costs n_s, not
 * 2 n_s d: on 20000 × 200 nearly separable rows at λ = 1e-4 (a band of
 * about 500 rows) SMO within its bound then reaches the band's optimum,
 * where with 402 slots it gave up three times (540 scans instead of 15).
 */
#define GSU_POLISH_FULL_KERNEL 2048
#define GSU_POLISH_KERNEL_SLOTS(n_s, d) ((n_s) <= GSU_POLISH_FULL_KERNEL ? (double) (n_s) : \
	2 * ((d) + 1) > 64 ? 2.0 * ((d) + 1) : 64.0)

/*
 * The SVM-GSU objective's exact minimizer (μ = 0) for rows whose covariance
 * is a factor or a diagonal, from an approximate one (gsu_polish_kink.c):
 * the rows (of weight > 0) whose margin and deviation √(wᵀΣ_iw) are both
 * within tau of zero at theta are held at their kink, Newton's method
 * solves the rest on the constraints' affine set, and the multipliers must
 * lie in each held row's subdifferential, else the worst row is released
 * (one round each; at most 400 Newton iterations over the rounds).  Returns 1 when theta is replaced by a point certified
 * that way with the null-space gradient's norm ≤ tol (*kkt) and no worse
 * objective (*objective, at μ = 0); 0 leaves theta unchanged (no such rows,
 * another covariance kind, a failed certificate, or progress asked to stop).
 * *passes (NULL allowed): on entry the most passes over the rows it may
 * make (≤ 0: no limit), on return the passes it made, either way.
 */
int			gsu_kink_polish(const gsu_dataset *ds, double lambda, double tau, double tol,
							double *theta, double *objective, double *kkt, int64_t *passes,
							gsu_progress_fn progress, void *progress_arg);

/*
 * The SVM-GSU objective's minimizer (μ = 0) for rows whose covariances are
 * factors (gsu_polish_dual.c), by an interior-point method on the dual: for
 * at most 600 dual variables ((1 + r) per row of weight > 0) and both
 * classes present.  Returns 1 when theta is replaced by a point whose
 * objective (*objective, at μ = 0, over all rows) is no worse than theta's
 * and whose gap to the optimum, certified by a feasible dual point, is at
 * most rel_gap times it (*gap), or when theta itself is certified so (left
 * as it was, its objective and gap reported); 0 leaves theta unchanged.
 * *passes (NULL allowed): the passes over the rows it made.  progress (NULL
 * allowed) is asked every Newton step; when it says stop, it returns 0.
 */
int			gsu_dual_polish(const gsu_dataset *ds, double lambda, double rel_gap, double *theta,
							double *objective, double *gap, int64_t *passes,
							gsu_progress_fn progress, void *progress_arg);

#endif							/* GSU_POLISH_H */
