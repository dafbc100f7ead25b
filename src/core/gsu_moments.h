/*
 * gsu_moments.h — running mean and (co)variance of a stream of vectors,
 * numerically stable and mergeable, for building a Gaussian N(mean, Σ) per
 * group of raw observations (e.g. the frames of one video, Tzelepis et al.,
 * TPAMI 2018, Sect. 4.6).
 *
 * The state keeps n, the mean x̄ and the co-moment M2 = Σ_i (x_i − x̄)(x_i − x̄)ᵀ
 * (only its diagonal for a diagonal state), updated by
 *
 *   Welford (1962), one row x:   δ = x − x̄,  x̄ ← x̄ + δ/n,  M2 ← M2 + (n−1)/n δδᵀ
 *                                (n the count after the row)
 *   Chan, Golub & LeVeque (1979), merge of A and B, n = n_A + n_B:
 *                                δ = x̄_B − x̄_A,  x̄ = x̄_A + δ n_B/n,
 *                                M2 = M2_A + M2_B + δδᵀ n_A n_B / n
 *
 * Neither subtracts two large sums, unlike the one-pass Σx² − n x̄² formula.
 * What limits the plain Welford update on data with a large offset
 * (1e9 + noise) is the running mean itself: rounded to double after every
 * row, it wanders by ulp(x̄) per step, which is the size of the noise when the
 * noise is small.  So x̄ is kept as an unevaluated double-double sum
 * x̄ = hi + lo (|lo| ≤ ulp(hi)/2, updated with Knuth's error-free TwoSum) and
 * δ = (x − hi) − lo, where x − hi is exact for x within a factor 2 of hi
 * (Sterbenz).  δ is then accurate to a few ulps of itself, and so is M2.
 *
 * The covariance is M2 / (n − ddof): ddof = 1 the unbiased sample
 * estimator, ddof = 0 the population (maximum-likelihood) one.
 *
 * The state's numbers live in one caller-owned block of
 * gsu_moments_doubles(d, full) doubles: hi (d), lo (d), then M2 — d values,
 * or d·d row-major of which only the upper triangle j ≥ i is maintained
 * (the rest stays 0).  The block is the whole serialized form.
 */
#ifndef GSU_MOMENTS_H
#define GSU_MOMENTS_H

#include "gsu_base.h"

typedef struct gsu_moments
{
	int			d;
	int			full;			/* 1: M2 is d×d (upper triangle); 0: its diagonal */
	int64_t		n;
	double	   *mean;			/* hi: the mean rounded to double */
	double	   *mean_lo;		/* lo: the mean's rounding error */
	double	   *m2;
} gsu_moments;

/* Doubles of storage a state of dimension d needs. */
size_t		gsu_moments_doubles(int d, int full);

/* An empty state (n = 0) over store, which it zeroes. */
void		gsu_moments_init(gsu_moments *m, int d, int full, double *store);

/*
 * A state over a block that already holds one (e.g. received from another
 * process); check it with gsu_moments_validate before use.
 */
void		gsu_moments_attach(gsu_moments *m, int d, int full, int64_t n, double *store);

/*
 * GSU_OK when the state is one the functions here could have produced:
 * n ≥ 0, every number finite, |lo| ≤ ε|hi|, the diagonal of M2 ≥ 0, the
 * lower triangle of a full M2 zero, and everything zero when n = 0.
 * GSU_EINVAL otherwise.
 */
gsu_status	gsu_moments_validate(const gsu_moments *m);

/*
 * Adds one observation x (d finite values).  GSU_ENOTFINITE when the mean
 * or a variance overflows (values near DBL_MAX); the state is then unusable.
 */
gsu_status	gsu_moments_add(gsu_moments *m, const double *x);

/*
 * a ← a ∪ b (b unchanged).  GSU_EINVAL when d or full differ,
 * GSU_ENOTFINITE on overflow.  An empty operand is the identity.
 */
gsu_status	gsu_moments_merge(gsu_moments *a, const gsu_moments *b);

/*
 * The covariance M2 / (n − ddof), ddof ∈ {0, 1}: d values, or the full
 * symmetric d×d matrix row-major.  GSU_EINVAL when n − ddof ≤ 0 (no rows, or
 * the sample estimator on a single row, where it is undefined);
 * GSU_ENOTFINITE when an entry is not finite.
 */
gsu_status	gsu_moments_covariance(const gsu_moments *m, int ddof, double *out);

#endif							/* GSU_MOMENTS_H */
