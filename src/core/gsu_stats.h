/*
 * gsu_stats.h — distribution functions for significance tests: the
 * regularized incomplete beta function, Student's t distribution, the exact
 * two-sided binomial test with p = 1/2 (McNemar's exact test) and the
 * corrected resampled paired t-test of Nadeau & Bengio.
 *
 * Pure C11, no PostgreSQL headers, no allocation.
 */
#ifndef GSU_STATS_H
#define GSU_STATS_H

#include <stdint.h>

#include "gsu_base.h"

/*
 * The regularized incomplete beta function I_x(a, b) and its complement
 * 1 − I_x(a, b) = I_y(b, a), y = 1 − x (given separately, so that a caller
 * that knows y more precisely than 1 − x, as the t distribution does, keeps
 * it).  a > 0, b > 0, x, y ≥ 0 with x + y = 1 (to rounding).
 *
 * The continued fraction of Numerical Recipes (Lentz's method) on the side
 * where it converges fast (x < (a + 1)/(a + b + 2)), the other side as one
 * minus it; the factor x^a y^b / (a B(a, b)) in front is computed as a
 * binomial density by Loader's saddle-point expansion (stirlerr and bd0,
 * "Fast and accurate computation of binomial probabilities", 2000, as R's
 * dbinom does), which keeps its relative accuracy for large a and b, where
 * lgamma differences lose it; the fraction runs in long double.  The side
 * computed directly is accurate to a relative 10⁻¹² in the tests
 * (test/test_stats.c, up to a + b = 2·10⁹); the other side, one minus it,
 * in absolute terms.  The fraction needs about √max(a, b) steps
 * near the mean; past GSU_BETAINC_MAX_STEPS (a + b beyond about 10¹³) it
 * returns GSU_ENOTFINITE.
 *
 * GSU_EINVAL for arguments out of the domain (NaN included).
 */
#define GSU_BETAINC_MAX_STEPS 10000000

gsu_status	gsu_betainc(double a, double b, double x, double y, double *ix, double *ix_complement);

/*
 * Two-sided p-value of Student's t distribution with df > 0 degrees of
 * freedom: P(|T| ≥ |t|) = I_{df/(df + t²)}(df/2, 1/2).  t = ±∞ gives 0.
 * GSU_EINVAL when t is NaN or df is not positive and finite.
 */
gsu_status	gsu_student_t_two_sided(double t, double df, double *p);

/*
 * Lower tail of the binomial distribution with p = 1/2:
 * P(X ≤ k) = Σ_{j ≤ k} C(n, j) / 2ⁿ, X ~ Bin(n, 1/2); 0 ≤ k, n ≥ 0.
 */
gsu_status	gsu_binom_half_cdf(int64_t k, int64_t n, double *p);

/*
 * McNemar's exact test: b pairs where method A is right and B wrong, c the
 * reverse.  Two-sided p = min(1, 2 P(X ≤ min(b, c))), X ~ Bin(b + c, 1/2);
 * 1 when b + c = 0.  GSU_EINVAL for negative counts or b + c overflowing.
 */
gsu_status	gsu_mcnemar_exact(int64_t b, int64_t c, double *p);

/*
 * The corrected resampled t-test (Nadeau & Bengio, "Inference for the
 * generalization error", Machine Learning 52, 2003): J ≥ 2 runs, the mean m
 * and the sample variance s² (divisor J − 1) of the runs' differences,
 * ratio = n_test/n_train of one run (0 gives the ordinary paired t-test):
 *     t = m / √((1/J + ratio) s²),  df = J − 1,  p two-sided.
 * When s² = 0: t = ±∞ and p = 0 if m ≠ 0, t = NaN and p = NaN if m = 0.
 * GSU_EINVAL when J < 2, ratio is negative or not finite, m or s² not finite
 * or s² < 0.
 */
typedef struct gsu_ttest_result
{
	double		t;
	double		df;
	double		p;
	double		se;				/* √((1/J + ratio) s²) */
} gsu_ttest_result;

gsu_status	gsu_corrected_ttest(int64_t j, double mean, double var, double ratio,
								gsu_ttest_result *r);

/*
 * The running moments of paired scores (a_j, b_j) over runs: the means of a,
 * b and d = a − b and M2 = Σ (d_j − mean_d)².  gsu_paired_moments_merge adds
 * b's runs to a's (Chan, Golub & LeVeque's pairwise update; one run is
 * {1, a, b, a − b, 0}); the caller keeps a->n + b->n within int64.
 */
typedef struct gsu_paired_moments
{
	int64_t		n;
	double		mean_a;
	double		mean_b;
	double		mean_d;
	double		m2_d;
} gsu_paired_moments;

void		gsu_paired_moments_merge(gsu_paired_moments *a, const gsu_paired_moments *b);

#endif							/* GSU_STATS_H */
