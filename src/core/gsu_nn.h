/*
 * gsu_nn.h — exact k-nearest-neighbour search with BLAS-blocked distances.
 *
 * Distances are squared Euclidean, compared in a scaled form that neither
 * overflows nor underflows (gsu_nn_dist: v·2^(1200·scale), see gsu_sqdist_key), so rows
 * whose squared distances lie beyond double precision (coordinates near
 * 1e200, or below 1e-160) are still ordered by distance, not by row index.
 * The search screens candidates with
 *
 *     ‖q − r‖² ≈ ‖q‖² + ‖r‖² − 2 qᵀr,
 *
 * computing the qᵀr of a block of queries against a block of reference rows
 * with one dgemm, and then recomputes the distance of every row that the
 * screen cannot rule out directly (gsu_sqdist_key).  A row is ruled out only
 * when the screened value minus a rounding bound exceeds the current k-th
 * best exact distance, so the result is exactly the brute-force answer: the
 * k rows with the smallest gsu_sqdist_key, ties broken by the lower row
 * index.  Screened values that overflow (Inf or NaN) never rule a row out.
 *
 * Rounding bound (Higham, "Accuracy and Stability of Numerical Algorithms",
 * §3.1): a dot product of length d computed in any order, with or without
 * FMA, errs by at most γ_d Σ|q_l r_l| ≤ γ_d ‖q‖‖r‖ ≤ γ_d (‖q‖² + ‖r‖²)/2,
 * γ_d = d·u/(1 − d·u); the norms err by γ_d times themselves, the two final
 * additions by a few u, and gsu_sqdist_key by γ_d ‖q − r‖² ≤ 2γ_d (‖q‖² + ‖r‖²).
 * GSU_NN_SLACK·(d + 8)·ε·(‖q‖² + ‖r‖²) covers all of it with a margin.
 */
#ifndef GSU_NN_H
#define GSU_NN_H

#include "gsu_base.h"

#define GSU_NN_SLACK 4.0

/*
 * A squared distance held without overflow or underflow: its value is
 * v·2^(GSU_NN_DIST_SHIFT·scale), with scale 0 for the values of double's
 * normal range down to 2^-900 (v is then the value itself), 1 for values
 * of 2^1024 and above, −1 for those below 2^-900 (0 included, as v = 0),
 * and 2 with v = +∞ for no distance (an unused result slot).  The ranges do
 * not overlap, so keys order as (scale, v) lexicographically, which is the
 * order of the values; the common case costs nothing over a plain double.
 */
#define GSU_NN_DIST_SHIFT 1200
typedef struct gsu_nn_dist
{
	double		v;
	int			scale;
} gsu_nn_dist;

/*
 * ‖a − b‖² as a key: Σ_l (a_l − b_l)² in index order.  When that plain sum
 * is finite and not tiny (≥ 2^-900) the key is exactly that sum (scale 0);
 * otherwise the differences are scaled by the power of two of the largest
 * |a_l − b_l| first (as LAPACK's dnrm2 does; the differences themselves are
 * halved when one of them overflows), which is exact up to the same
 * rounding.  Every pair of finite rows has a key.
 */
gsu_nn_dist gsu_sqdist_key(int d, const double *a, const double *b);

/* −1, 0, 1 as a is below, equal to or above b */
int			gsu_nn_dist_cmp(gsu_nn_dist a, gsu_nn_dist b);

/* the key's value as a double: +∞ beyond DBL_MAX, rounded (maybe to 0) below DBL_MIN */
double		gsu_nn_dist_value(gsu_nn_dist k);

/* gsu_nn_dist_value(gsu_sqdist_key(d, a, b)): +∞ when ‖a − b‖² overflows */
double		gsu_sqdist(int d, const double *a, const double *b);

/*
 * The GEU estimate of a row's variances from its nearest neighbour xn
 * (Laakom et al., Sect. III-B): out[l] = σ·(x_l − xn_l)², with the
 * difference taken at half scale when it overflows itself.  GSU_ENOTFINITE
 * (and *bad the element) when a variance is beyond double precision.
 */
gsu_status	gsu_nn_variance(int d, const double *x, const double *xn, double sigma,
							double *out, int *bad);

/* norms[i] = ‖x_i‖² for the n rows of x (n×d, row-major). */
void		gsu_row_sqnorms(int64_t n, int d, const double *x, double *norms);

/*
 * Index of the first row of x (n×d) equal to q element by element and, when
 * labels and label are both non-NULL, with labels[i] == *label; −1 if none.
 */
int64_t		gsu_find_row(int64_t n, int d, const double *x, const int32_t *labels,
						 const double *q, const int32_t *label);

/* Which reference rows a query may return, by label. */
typedef enum gsu_nn_filter
{
	GSU_NN_ANY = 0,				/* every row */
	GSU_NN_SAME = 1,			/* rows with the query's label */
	GSU_NN_OTHER = 2			/* rows with another label */
} gsu_nn_filter;

/* A reference set: n rows of dimension d. */
typedef struct gsu_nn_set
{
	int64_t		n;
	int			d;
	const double *x;			/* n×d, row-major */
	const double *norms;		/* n values ‖x_i‖² (gsu_row_sqnorms) */
	const int32_t *labels;		/* n labels, or NULL */
} gsu_nn_set;

/*
 * The k nearest rows of ref to each of the m queries q (m×d, row-major):
 * for query i, idx[i·k + r] and dist[i·k + r] (squared distances as keys:
 * gsu_nn_dist_value gives the number), r = 0 .. count[i] − 1, in increasing
 * (distance, index) order; count[i] < k when fewer rows qualify, and the
 * unused slots hold −1 and the key of no distance (scale 2, v = +∞).
 * Every row must be finite; its squared norm may overflow to +∞.
 *
 * qnorms: ‖q_i‖², or NULL to compute them.  filter SAME / OTHER needs
 * ref->labels and qlabels (m labels).  exclude: for each query a reference
 * index never returned (−1 for none), or NULL.  progress is called once per
 * block of queries (non-zero: stop with GSU_ECANCELLED).
 *
 * GSU_EINVAL for k < 1 or a label filter without labels; GSU_ENOMEM.
 */
gsu_status	gsu_knn(const gsu_nn_set *ref, int64_t m, const double *q,
					const double *qnorms, const int32_t *qlabels, gsu_nn_filter filter,
					const int64_t *exclude, int k, int64_t *idx, gsu_nn_dist *dist,
					int *count, gsu_progress_fn progress, void *progress_arg);

/*
 * Majority label of the count nearest neighbours idx[0 .. count−1] (sorted
 * nearest first, count ≥ 1): the most frequent label; among equally
 * frequent labels the one whose nearest member ranks first.
 */
int32_t		gsu_knn_vote(int count, const int64_t *idx, const int32_t *labels);

#endif							/* GSU_NN_H */
