/*
 * test_platt.c — unit tests of gsu_platt.c: Platt's sigmoid calibration.
 *
 * The reference fit is computed here without Newton's method: the Platt
 * objective F(A, B) = Σ t_i·s(z_i) + (1 − t_i)·s(−z_i), z_i = A·f_i + B,
 * s = softplus, with Platt's smoothed targets t_i, is convex; for a fixed A
 * its minimizer in B is the root of Σ (t_i − p_i) (increasing in B), and
 * the profile's derivative in A is Σ f_i (t_i − p_i) at that B (increasing
 * in A).  Nested bisections in long double find both roots to machine
 * precision.  The core stops when both derivatives are below 10⁻⁵, so its
 * answer is compared loosely, and after one Newton step taken here
 * (second-order agreement) tightly.  Closed forms cover the one-class and
 * constant-score cases.
 * Deterministic (a fixed xorshift generator); GSU_TEST_QUICK=1 shrinks n.
 */
#include "gsu_platt.h"
#include "gsu_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* ------------------------------------------------------------ data */

static uint64_t rng_state;

static double
uniform01(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double) (rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal01(void)
{
	return sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01());
}

/*
 * n rows, a share pos of them labelled +1; scores f = shift + sep·y + noise·N(0, 1),
 * or (separable) f = y·(0.2 + U(0, 1)).
 */
static void
make_scores(int n, double pos, double shift, double sep, double noise, int separable,
		  uint64_t seed, double *f, double *y)
{
	rng_state = seed;
	for (int i = 0; i < n; i++)
	{
		y[i] = uniform01() < pos ? 1.0 : -1.0;
		if (separable)
			f[i] = y[i] * (0.2 + uniform01());
		else
			f[i] = shift + sep * y[i] + noise * normal01();
	}
}

/* ------------------------------------------------------- reference */

/* Platt's targets; raw = 1 gives the unsmoothed 1 and 0 */
static void
targets(int n, const double *y, int raw, long double *hi, long double *lo)
{
	long double np = 0,
				nn = 0;

	for (int i = 0; i < n; i++)
	{
		if (y[i] > 0.0)
			np += 1;
		else
			nn += 1;
	}
	*hi = raw ? 1.0L : (np + 1) / (np + 2);
	*lo = raw ? 0.0L : 1 / (nn + 2);
}

/* p = 1/(1 + e^z) */
static long double
sigm(long double z)
{
	return z >= 0 ? expl(-z) / (1 + expl(-z)) : 1 / (1 + expl(z));
}

/* Σ w_i (t_i − p_i) at (a, b), w_i = f_i (which = 1) or 1 */
static long double
residual(int n, const double *f, const double *y, long double hi, long double lo,
		 long double a, long double b, int which)
{
	long double s = 0;

	for (int i = 0; i < n; i++)
	{
		long double t = y[i] > 0.0 ? hi : lo,
					r = t - sigm(a * f[i] + b);

		s += which ? f[i] * r : r;
	}
	return s;
}

/* the root in x of an increasing g on [lo, hi] by bisection to the last bit */
#define BISECT(x, lo_, hi_, g) \
	do { \
		long double l_ = (lo_), h_ = (hi_); \
		for (int k_ = 0; k_ < 200; k_++) \
		{ \
			long double m_ = 0.5L * (l_ + h_); \
			if (m_ <= l_ || m_ >= h_) \
				break; \
			x = m_; \
			if ((g) > 0) \
				h_ = m_; \
			else \
				l_ = m_; \
		} \
		x = 0.5L * (l_ + h_); \
	} while (0)

static long double
best_b(int n, const double *f, const double *y, long double hi, long double lo,
	   long double a)
{
	long double b = 0;

	BISECT(b, -200.0L, 200.0L, residual(n, f, y, hi, lo, a, b, 0));
	return b;
}

static void
reference_fit(int n, const double *f, const double *y, int raw, double *a_out,
			  double *b_out)
{
	long double hi,
				lo,
				a = 0;

	targets(n, y, raw, &hi, &lo);
	BISECT(a, -200.0L, 200.0L, residual(n, f, y, hi, lo, a, best_b(n, f, y, hi, lo, a), 1));
	*a_out = (double) a;
	*b_out = (double) best_b(n, f, y, hi, lo, a);
}

/* ----------------------------------------------------------- tests */

/* the core's fit against the reference on one data set; returns the fit */
static void
check_against_reference(const char *what, int n, const double *f, const double *y,
						double *a, double *b)
{
	double		ra,
				rb;
	long double hi,
				lo,
				ga,
				gb,
				haa = 0,
				hab = 0,
				hbb = 0,
				det,
				na,
				nb;
	int			it = -1;

	CHECK(gsu_platt_fit(n, f, y, a, b, &it) == GSU_OK, "%s: status", what);
	CHECK(it >= 1 && it <= 12, "%s: %d Newton steps", what, it);
	reference_fit(n, f, y, 0, &ra, &rb);
	targets(n, y, 0, &hi, &lo);
	/* the stopping rule: both partial derivatives of F below 10⁻⁵ */
	ga = residual(n, f, y, hi, lo, *a, *b, 1);
	gb = residual(n, f, y, hi, lo, *a, *b, 0);
	CHECK(fabsl(ga) < 1e-5L && fabsl(gb) < 1e-5L, "%s: dF/dA %Lg, dF/dB %Lg", what, ga, gb);
	/* which leaves the fit within H⁻¹g of the optimum: close, not exact */
	CHECK(reldiff(*a, ra, 1.0) < 1e-5, "%s: A %.12g vs reference %.12g", what, *a, ra);
	CHECK(reldiff(*b, rb, 1.0) < 1e-5, "%s: B %.12g vs reference %.12g", what, *b, rb);
	/*
	 * One more Newton step from the fit, computed here, lands on the
	 * reference to second order: so the fit is the optimum of this very
	 * objective (other targets or another loss would not close the gap).
	 */
	for (int i = 0; i < n; i++)
	{
		long double p = sigm((long double) *a * f[i] + *b),
					w = p * (1 - p);

		haa += w * f[i] * f[i];
		hab += w * f[i];
		hbb += w;
	}
	det = haa * hbb - hab * hab;
	na = *a - (hbb * ga - hab * gb) / det;
	nb = *b - (haa * gb - hab * ga) / det;
	CHECK(reldiff((double) na, ra, 1.0) < 1e-9, "%s: A + Newton %.15Lg vs %.15g", what, na, ra);
	CHECK(reldiff((double) nb, rb, 1.0) < 1e-9, "%s: B + Newton %.15Lg vs %.15g", what, nb, rb);
}

static void
test_overlapping(void)
{
	int			n = quick ? 80 : 400;
	double	   *f = malloc(sizeof(double) * n),
			   *y = malloc(sizeof(double) * n),
				a,
				b;

	make_scores(n, 0.5, 0.0, 1.0, 1.0, 0, 11, f, y);
	check_against_reference("balanced", n, f, y, &a, &b);
	/* larger scores mean class +1: A < 0 */
	CHECK(a < -0.5 && a > -5.0, "A = %g", a);
	make_scores(n, 0.2, -0.7, 1.5, 2.0, 0, 12, f, y);
	check_against_reference("imbalanced, shifted", n, f, y, &a, &b);
	CHECK(a < 0.0, "A = %g", a);
	free(f);
	free(y);
}

/*
 * Separable scores: the unsmoothed likelihood has no maximum (A → −∞),
 * Platt's targets keep the fit finite; it still matches the reference.
 */
static void
test_separable(void)
{
	int			n = quick ? 60 : 300;
	double	   *f = malloc(sizeof(double) * n),
			   *y = malloc(sizeof(double) * n),
				a,
				b,
				hi,
				lo;
	int			np = 0;

	make_scores(n, 0.4, 0.0, 0.0, 0.0, 1, 13, f, y);
	for (int i = 0; i < n; i++)
		np += y[i] > 0.0;
	check_against_reference("separable", n, f, y, &a, &b);
	CHECK(isfinite(a) && a < -1.0, "A = %g", a);
	/* stationarity: Σ p_i = Σ t_i, the expected count of +1 rows is kept */
	{
		double		sp = 0.0;

		hi = (np + 1.0) / (np + 2.0);
		lo = 1.0 / (n - np + 2.0);
		for (int i = 0; i < n; i++)
			sp += gsu_platt_probability(a, b, f[i]);
		CHECK_CLOSE(sp, np * hi + (n - np) * lo, 1e-5);
	}
	free(f);
	free(y);
}

/*
 * The smoothed targets change the answer: the reference with raw 1/0
 * targets is measurably elsewhere, so the comparison above can tell them
 * apart.
 */
static void
test_targets_matter(void)
{
	int			n = 100;
	double		f[100],
				y[100],
				a,
				b,
				ra,
				rb;

	make_scores(n, 0.5, 0.0, 1.0, 1.0, 0, 14, f, y);
	CHECK(gsu_platt_fit(n, f, y, &a, &b, NULL) == GSU_OK, "status (iterations NULL)");
	reference_fit(n, f, y, 1, &ra, &rb);
	CHECK(reldiff(a, ra, 1.0) > 1e-3, "A %g equals the raw-target fit %g", a, ra);
	reference_fit(n, f, y, 0, &ra, &rb);
	CHECK(reldiff(a, ra, 1.0) < 1e-7, "A %g vs %g", a, ra);
}

/*
 * One class only: the targets are all t = (N + 1)/(N + 2) (or 1/(N + 2)),
 * the optimum is the constant sigmoid P = t, i.e. A = 0, B = ∓log(N + 1),
 * which is also the starting point: no Newton step.
 */
static void
test_one_class(void)
{
	double		f[7] = {-3.0, -1.0, 0.0, 0.5, 2.0, 4.0, 9.0},
				pos[7],
				neg[7],
				a = 99.0,
				b = 99.0;
	int			it = -1;

	for (int i = 0; i < 7; i++)
	{
		pos[i] = 1.0;
		neg[i] = -1.0;
	}
	CHECK(gsu_platt_fit(7, f, pos, &a, &b, &it) == GSU_OK, "status");
	CHECK(a == 0.0 && it == 0, "A %g after %d steps", a, it);
	CHECK_CLOSE(b, -log(8.0), 1e-15);
	CHECK_CLOSE(gsu_platt_probability(a, b, 123.0), 8.0 / 9.0, 1e-15);
	CHECK(gsu_platt_fit(7, f, neg, &a, &b, &it) == GSU_OK, "status");
	CHECK(a == 0.0 && it == 0, "A %g after %d steps", a, it);
	CHECK_CLOSE(b, log(8.0), 1e-15);
	CHECK_CLOSE(gsu_platt_probability(a, b, -5.0), 1.0 / 9.0, 1e-15);
	/* a single row */
	CHECK(gsu_platt_fit(1, f, pos, &a, &b, &it) == GSU_OK, "status n = 1");
	CHECK(a == 0.0, "A %g", a);
	CHECK_CLOSE(b, -log(2.0), 1e-15);
}

/*
 * Every score equal: only A·c + B is identified.  The fitted probability
 * at c is the mean target; for c = 0, A never moves from 0.
 */
static void
test_constant_scores(void)
{
	double		f[10],
				y[10],
				a,
				b,
				mean_t;
	int			it;

	for (int i = 0; i < 10; i++)
		y[i] = i < 3 ? 1.0 : -1.0;
	/* targets: 3 × 4/5 and 7 × 1/9 */
	mean_t = (3.0 * 4.0 / 5.0 + 7.0 / 9.0) / 10.0;
	for (int i = 0; i < 10; i++)
		f[i] = 0.0;
	CHECK(gsu_platt_fit(10, f, y, &a, &b, &it) == GSU_OK, "status c = 0");
	CHECK(a == 0.0, "A %g", a);
	CHECK_CLOSE(gsu_platt_probability(a, b, 0.0), mean_t, 1e-7);
	for (int i = 0; i < 10; i++)
		f[i] = 2.0;
	CHECK(gsu_platt_fit(10, f, y, &a, &b, &it) == GSU_OK, "status c = 2");
	CHECK(isfinite(a) && isfinite(b), "A %g B %g", a, b);
	CHECK_CLOSE(gsu_platt_probability(a, b, 2.0), mean_t, 1e-7);
}

/*
 * Symmetries of the likelihood: negating the scores negates A (bit for bit:
 * the Newton iterates are mirrored), scaling them by c divides A by c.
 */
static void
test_symmetries(void)
{
	int			n = 120;
	double		f[120],
				g[120],
				y[120],
				a,
				b,
				a2,
				b2;

	make_scores(n, 0.6, 0.3, 0.8, 1.2, 0, 15, f, y);
	CHECK(gsu_platt_fit(n, f, y, &a, &b, NULL) == GSU_OK, "status");
	for (int i = 0; i < n; i++)
		g[i] = -f[i];
	CHECK(gsu_platt_fit(n, g, y, &a2, &b2, NULL) == GSU_OK, "status −f");
	CHECK(a2 == -a && b2 == b, "(%.17g, %.17g) vs (%.17g, %.17g)", a2, b2, -a, b);
	for (int i = 0; i < n; i++)
		g[i] = 4.0 * f[i];
	CHECK(gsu_platt_fit(n, g, y, &a2, &b2, NULL) == GSU_OK, "status 4f");
	CHECK(reldiff(4.0 * a2, a, 1.0) < 1e-7, "4·A' %.12g vs A %.12g", 4.0 * a2, a);
	CHECK(reldiff(b2, b, 1.0) < 1e-7, "B' %.12g vs B %.12g", b2, b);
}

/* n < 1: GSU_EINVAL, outputs untouched */
static void
test_invalid(void)
{
	double		f[1] = {0.0},
				y[1] = {1.0},
				a = 7.0,
				b = 8.0;
	int			it = 9;

	CHECK(gsu_platt_fit(0, f, y, &a, &b, &it) == GSU_EINVAL, "n = 0");
	CHECK(gsu_platt_fit(-5, f, y, &a, &b, &it) == GSU_EINVAL, "n < 0");
	CHECK(a == 7.0 && b == 8.0 && it == 9, "outputs written on error");
}

/* 1/(1 + exp(A·f + B)) against long double, and without overflow */
static void
test_probability(void)
{
	const double zs[] = {-700.0, -40.0, -3.5, -1e-3, 0.0, 2e-9, 0.75, 12.0, 36.0, 700.0};

	for (size_t k = 0; k < sizeof(zs) / sizeof(zs[0]); k++)
	{
		/* A·f + B as the core rounds it, then the reference there */
		double		z = 2.0 * ((zs[k] + 1.0) / 2.0) - 1.0,
					p = gsu_platt_probability(2.0, -1.0, (zs[k] + 1.0) / 2.0),
					q = gsu_platt_probability(1.0, 0.0, -zs[k]);
		long double r = 1.0L / (1.0L + expl((long double) z));

		CHECK(fabsl(p - r) <= 4e-16L * r, "z %g: %.17g vs %.17Lg", z, p, r);
		/* P(z) + P(−z) = 1 */
		CHECK(fabs(gsu_platt_probability(1.0, 0.0, zs[k]) + q - 1.0) <= 2.3e-16,
			  "z %g: symmetry", zs[k]);
	}
	CHECK(gsu_platt_probability(1.0, 0.0, 1e6) == 0.0, "large z");
	CHECK(gsu_platt_probability(1.0, 0.0, -1e6) == 1.0, "small z");
	CHECK(gsu_platt_probability(0.0, 0.0, 5.0) == 0.5, "z = 0");
}

static const gsu_test_case tests[] = {
	{"overlapping", test_overlapping},
	{"separable", test_separable},
	{"targets_matter", test_targets_matter},
	{"one_class", test_one_class},
	{"constant_scores", test_constant_scores},
	{"symmetries", test_symmetries},
	{"invalid", test_invalid},
	{"probability", test_probability},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
