/*
 * test_stats.c — unit tests of src/core/gsu_stats.c, no PostgreSQL.
 *
 *   make coretest            (or valgrind-coretest)
 *
 * References are independent of the code under test:
 *  - McNemar: exact big-integer sums 2 Σ_{j≤k} C(n, j) / 2ⁿ in Python's
 *    fractions (n up to 80,500; scipy 1.10.1's binom.cdf agrees with them to
 *    3·10⁻¹⁵), and the same sum term by term in mpmath for n up to 2·10⁹;
 *  - Student's t: mpmath 1.3.0 at 60 digits, betainc(df/2, 1/2, 0, df/(df+t²));
 *  - the incomplete beta: mpmath at 40 digits, binomial sums where
 *    mpmath's betainc does not converge, and I_0.2(3, 4) = P(Bin(6, 0.2) ≥ 3)
 *    = 0.09888 by hand;
 *  - Nadeau & Bengio's t by its formula, worked in the comments.
 * Tolerances are relative.
 */
#include "gsu_stats.h"
#include "gsu_test.h"

#include <math.h>
#include <stdint.h>

#define CHECK_REL(a, b, rel) \
	CHECK(fabs((double) (a) - (double) (b)) <= (rel) * fabs((double) (b)), \
		  "%.17g vs %.17g (relative %.3g)", (double) (a), (double) (b), \
		  fabs((double) (a) - (double) (b)) / fabs((double) (b)))

static void
test_betainc(void)
{
	static const struct
	{
		double		a,
					b,
					x,
					i,
					ic,
					rel;
	}			c[] = {
		{0.5, 0.5, 0.3, 0.36901011956554538, 0.63098988043445462, 1e-13},
		{3, 4, 0.2, 0.09888, 0.90112, 1e-13},
		{2.5, 0.5, 0.9, 0.48958974456442755, 0.51041025543557245, 1e-13},
		{0.2, 0.3, 0.999, 0.94583205474171713, 0.054167945258282868, 1e-13},
		{50, 0.5, 0.99, 0.31730439787419737, 0.68269560212580263, 1e-13},
		/*
		 * integer a, b: I_x(a, b) = P(Bin(a + b − 1, x) ≥ a), summed term by
		 * term in mpmath at 40 digits (scipy 1.10.1's betainc is off by
		 * 5·10⁻¹¹ and 10⁻⁹ relative on these, and mpmath's own betainc
		 * does not converge)
		 */
		{1e4, 2e4, 0.33, 0.1102055191274186369, 0.8897944808725813631, 1e-12},
		{1e4, 2e4, 0.34, 0.99271374801002720333, 0.0072862519899727966676, 1e-12},
		{1e6, 1e6, 0.4999, 0.38864871786231010186, 0.61135128213768989814, 1e-12},
	};
	size_t		i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
	{
		double		ix = -1,
					ic = -1;

		CHECK(gsu_betainc(c[i].a, c[i].b, c[i].x, 1.0 - c[i].x, &ix, &ic) == GSU_OK, "case %zu", i);
		CHECK_REL(ix, c[i].i, c[i].rel);
		CHECK_REL(ic, c[i].ic, c[i].rel);
	}
}

static void
test_betainc_domain(void)
{
	double		ix,
				ic;

	CHECK(gsu_betainc(1, 1, 0, 1, &ix, &ic) == GSU_OK && ix == 0 && ic == 1, "x = 0");
	CHECK(gsu_betainc(1, 1, 1, 0, &ix, &ic) == GSU_OK && ix == 1 && ic == 0, "x = 1");
	/* I_x(1, 1) = x */
	CHECK(gsu_betainc(1, 1, 0.25, 0.75, &ix, &ic) == GSU_OK, "uniform");
	CHECK_CLOSE(ix, 0.25, 1e-15);
	CHECK_CLOSE(ic, 0.75, 1e-15);
	CHECK(gsu_betainc(0, 1, 0.5, 0.5, &ix, &ic) == GSU_EINVAL, "a = 0");
	CHECK(gsu_betainc(1, -1, 0.5, 0.5, &ix, &ic) == GSU_EINVAL, "b < 0");
	CHECK(gsu_betainc(NAN, 1, 0.5, 0.5, &ix, &ic) == GSU_EINVAL, "a NaN");
	CHECK(gsu_betainc(INFINITY, 1, 0.5, 0.5, &ix, &ic) == GSU_EINVAL, "a infinite");
	CHECK(gsu_betainc(1, 1, 1.5, -0.5, &ix, &ic) == GSU_EINVAL, "x > 1");
	CHECK(gsu_betainc(1, 1, 0.5, 0.6, &ix, &ic) == GSU_EINVAL, "x + y != 1");
	CHECK(gsu_betainc(1, 1, NAN, 0.5, &ix, &ic) == GSU_EINVAL, "x NaN");
}

static void
test_student_t(void)
{
	/* mpmath, 60 digits */
	/*
	 * rel: 10⁻¹² but for 10⁶ degrees of freedom, where the continued
	 * fraction's long double gives 2·10⁻¹⁵ on x86-64 but valgrind, which
	 * runs x87 arithmetic in double precision, 2·10⁻¹¹
	 */
	static const struct
	{
		double		t,
					df,
					p,
					rel;
	}			c[] = {
		{0, 5, 1.0, 1e-12},
		{1e-8, 4, 0.9999999925, 1e-12},
		{1, 1, 0.5, 1e-12},
		{2.0, 9, 0.076552823770701041, 1e-12},
		{2.5, 2, 0.12961172022151081, 1e-12},
		{-3.1, 7, 0.017322289425497515, 1e-12},
		{50, 3, 1.7617152041271974e-5, 1e-12},
		{1e5, 1, 6.3661977234636068e-6, 1e-12},
		{4, 1e6, 6.3347034010048105e-5, 1e-10},	/* also mpmath.quad of the density */
		{2.0, 0.5, 0.44551489018313123, 1e-12},
		{1.7, 30, 0.099477875588516885, 1e-12},
		{10, 100, 9.9016889845941392e-17, 1e-12},
	};
	size_t		i;
	double		p;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
	{
		p = -1;
		CHECK(gsu_student_t_two_sided(c[i].t, c[i].df, &p) == GSU_OK, "case %zu", i);
		CHECK_REL(p, c[i].p, c[i].rel);
	}
	CHECK(gsu_student_t_two_sided(INFINITY, 3, &p) == GSU_OK && p == 0, "t = inf");
	CHECK(gsu_student_t_two_sided(-INFINITY, 3, &p) == GSU_OK && p == 0, "t = -inf");
	/* t² would overflow: p ≈ 2/(π|t|) for df = 1 */
	CHECK(gsu_student_t_two_sided(1e200, 1, &p) == GSU_OK && p >= 0 && p < 1e-150, "t = 1e200: %g", p);
	CHECK(gsu_student_t_two_sided(NAN, 3, &p) == GSU_EINVAL, "t NaN");
	CHECK(gsu_student_t_two_sided(1, 0, &p) == GSU_EINVAL, "df 0");
	CHECK(gsu_student_t_two_sided(1, INFINITY, &p) == GSU_EINVAL, "df inf");
}

static void
test_mcnemar(void)
{
	static const struct
	{
		int64_t		b,
					c;
		double		p;
	}			exact[] = {
		/* exact rational sums (Python fractions), rounded to double */
		{0, 0, 1},
		{1, 0, 1},
		{5, 0, 0.0625},			/* 2/2⁵ */
		{0, 6, 0.03125},		/* 2/2⁶ */
		{3, 10, 0.09228515625},	/* 2 (1 + 13 + 78 + 286)/2¹³ */
		{10, 3, 0.09228515625},
		{7, 7, 1},
		{8, 9, 1},
		{20, 40, 0.01348929373119186},
		{100, 150, 0.001883300935076157},
		{1000, 1100, 0.030720707864242296},
		{4000, 4200, 0.027972423571324383},
		{20000, 21000, 8.0585780267929587e-07},
		{40000, 40500, 0.07862036880510799},
	}, big[] = {
		/*
		 * mpmath at 40 digits, the terms C(n, j)/2ⁿ summed down from
		 * j = min(b, c) until they are below 10⁻³⁵ of the sum (scipy 1.10.1's
		 * 2 binom.cdf agrees to 10⁻¹⁴ on the first two, and is off by 2·10⁻⁸
		 * on the third)
		 */
		{1000000, 1003000, 0.034088365079439383217},
		{10000000, 10005000, 0.26370766826038323456},
		{1000000000, 1000100000, 0.025352444671547585555},
	};
	size_t		i;
	double		p;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
	{
		p = -1;
		CHECK(gsu_mcnemar_exact(exact[i].b, exact[i].c, &p) == GSU_OK, "case %zu", i);
		CHECK_REL(p, exact[i].p, 1e-12);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
	{
		p = -1;
		CHECK(gsu_mcnemar_exact(big[i].b, big[i].c, &p) == GSU_OK, "big case %zu", i);
		CHECK_REL(p, big[i].p, 1e-11);
	}
	/* log10 p = −7380.83 (mpmath): underflows to 0, not NaN */
	CHECK(gsu_mcnemar_exact(100000, 200000, &p) == GSU_OK && p == 0, "tiny p: %g", p);
	CHECK(gsu_mcnemar_exact(-1, 2, &p) == GSU_EINVAL, "negative b");
	CHECK(gsu_mcnemar_exact(INT64_MAX, 1, &p) == GSU_EINVAL, "b + c overflows");
	/* symmetric in b and c, monotone in the imbalance */
	{
		double		prev = 2;
		int64_t		b;

		for (b = 50; b >= 0; b--)
		{
			double		p1,
						p2;

			CHECK(gsu_mcnemar_exact(b, 100 - b, &p1) == GSU_OK, "b %d", (int) b);
			CHECK(gsu_mcnemar_exact(100 - b, b, &p2) == GSU_OK, "b %d", (int) b);
			CHECK(p1 == p2, "symmetry at %d", (int) b);
			CHECK(p1 <= prev, "monotone at %d", (int) b);
			prev = p1;
		}
	}
}

static void
test_binom_half_cdf(void)
{
	double		p;

	/* P(X ≤ 2), X ~ Bin(4, 1/2) = (1 + 4 + 6)/16 */
	CHECK(gsu_binom_half_cdf(2, 4, &p) == GSU_OK, "cdf");
	CHECK_REL(p, 11.0 / 16.0, 1e-14);
	CHECK(gsu_binom_half_cdf(0, 10, &p) == GSU_OK, "cdf");
	CHECK_REL(p, 1.0 / 1024.0, 1e-14);
	CHECK(gsu_binom_half_cdf(5, 5, &p) == GSU_OK && p == 1, "k = n");
	CHECK(gsu_binom_half_cdf(0, 0, &p) == GSU_OK && p == 1, "n = 0");
	CHECK(gsu_binom_half_cdf(-1, 5, &p) == GSU_EINVAL, "k < 0");
}

static void
test_corrected_ttest(void)
{
	gsu_ttest_result r;

	/*
	 * J = 10, m = 0.5, s² = 1, ratio 0: t = 0.5/√(0.1) = 1.5811388300841898,
	 * df 9; ratio 0.9: t = 0.5/√(1) = 0.5.  p of t = 2, df 9 is checked
	 * above; here m = 2·√0.1 gives t = 2 exactly (to rounding).
	 */
	CHECK(gsu_corrected_ttest(10, 0.5, 1.0, 0.0, &r) == GSU_OK, "plain");
	CHECK_REL(r.t, 1.5811388300841898, 1e-15);
	CHECK(r.df == 9, "df %g", r.df);
	CHECK(gsu_corrected_ttest(10, 0.5, 1.0, 0.9, &r) == GSU_OK, "corrected");
	CHECK_REL(r.t, 0.5, 1e-15);
	CHECK_REL(r.se, 1.0, 1e-15);
	CHECK(gsu_corrected_ttest(10, 2.0 * sqrt(0.1), 1.0, 0.0, &r) == GSU_OK, "t = 2");
	CHECK_REL(r.p, 0.076552823770701041, 1e-12);
	/* the correction only ever raises p */
	{
		gsu_ttest_result r0,
					r1;

		CHECK(gsu_corrected_ttest(10, 0.3, 0.2, 0.0, &r0) == GSU_OK, "r0");
		CHECK(gsu_corrected_ttest(10, 0.3, 0.2, 1.0 / 9.0, &r1) == GSU_OK, "r1");
		CHECK(r1.p > r0.p && fabs(r1.t) < fabs(r0.t), "%g %g", r0.p, r1.p);
	}
	/* no spread */
	CHECK(gsu_corrected_ttest(5, 0.1, 0.0, 0.0, &r) == GSU_OK && isinf(r.t) && r.t > 0 && r.p == 0,
		  "s = 0, m > 0");
	CHECK(gsu_corrected_ttest(5, -0.1, 0.0, 0.0, &r) == GSU_OK && isinf(r.t) && r.t < 0 && r.p == 0,
		  "s = 0, m < 0");
	CHECK(gsu_corrected_ttest(5, 0.0, 0.0, 0.0, &r) == GSU_OK && isnan(r.t) && isnan(r.p),
		  "s = 0, m = 0");
	CHECK(gsu_corrected_ttest(1, 0.1, 0.0, 0.0, &r) == GSU_EINVAL, "J = 1");
	CHECK(gsu_corrected_ttest(5, 0.1, 1.0, -0.1, &r) == GSU_EINVAL, "ratio < 0");
	CHECK(gsu_corrected_ttest(5, 0.1, 1.0, NAN, &r) == GSU_EINVAL, "ratio NaN");
	CHECK(gsu_corrected_ttest(5, 0.1, -1.0, 0.0, &r) == GSU_EINVAL, "s² < 0");
	CHECK(gsu_corrected_ttest(5, INFINITY, 1.0, 0.0, &r) == GSU_EINVAL, "m infinite");
}

static const gsu_test_case tests[] = {
	{"betainc", test_betainc},
	{"betainc_domain", test_betainc_domain},
	{"student_t", test_student_t},
	{"mcnemar", test_mcnemar},
	{"binom_half_cdf", test_binom_half_cdf},
	{"corrected_ttest", test_corrected_ttest},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
