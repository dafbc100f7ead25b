/*
 * test_standardize.c — unit tests of src/core/gsu_standardize.c: the
 * statistics (and that two merged halves give the serial ones), the row
 * transform of every covariance kind against D⁻¹ΣD⁻¹ written out, and the
 * fold of a standardized model into original units (decision value and
 * wᵀΣw unchanged).  Deterministic.
 *
 * Output: diagnostics on stderr, then exactly one line "N passed, M failed".
 */
#include "gsu_core.h"
#include "gsu_test.h"
#include "gsu_moments.h"
#include "gsu_standardize.h"

#define D 4
#define N 37

static unsigned long long rng = 88172645463325252ULL;

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double) (rng >> 11) / 9007199254740992.0;
}

/* rows: feature 0 offset 1e6, feature 1 small scale, feature 2 constant, feature 3 wide */
static void
make_rows(double *x)
{
	int			i;

	for (i = 0; i < N; i++)
	{
		x[i * D + 0] = 1e6 + uniform();
		x[i * D + 1] = 1e-3 * (uniform() - 0.5);
		x[i * D + 2] = 7.0;
		x[i * D + 3] = 100.0 * (uniform() - 0.5);
	}
}

static void
test_stats(void)
{
	double		x[N * D],
				store[3 * D],
				mean[D],
				scale[D];
	gsu_moments mo;
	int			i,
				j;

	make_rows(x);
	gsu_moments_init(&mo, D, 0, store);
	for (i = 0; i < N; i++)
		CHECK(gsu_moments_add(&mo, x + i * D) == GSU_OK, "add");
	CHECK(gsu_standardize_stats(&mo, mean, scale) == GSU_OK, "stats");
	for (j = 0; j < D; j++)
	{
		long double m = 0,
					v = 0;

		for (i = 0; i < N; i++)
			m += x[i * D + j];
		m /= N;
		for (i = 0; i < N; i++)
			v += (x[i * D + j] - m) * (x[i * D + j] - m);
		v /= N;					/* population */
		CHECK(fabs(mean[j] - (double) m) <= 1e-15 * fmax(1.0, fabs((double) m)),
			  "mean %d: %.17g vs %.17g", j, mean[j], (double) m);
		if (j == 2)
			CHECK(scale[j] == 1.0, "constant feature scale %.17g", scale[j]);
		else
			CHECK(fabs(scale[j] - (double) sqrtl(v)) <= 1e-12 * (double) sqrtl(v),
				  "scale %d: %.17g vs %.17g", j, scale[j], (double) sqrtl(v));
	}
	/* the empty state has no statistics */
	gsu_moments_init(&mo, D, 0, store);
	CHECK(gsu_standardize_stats(&mo, mean, scale) == GSU_EINVAL, "empty");
}

/* two states over halves of the rows, merged (Chan), give the serial statistics */
static void
test_merge(void)
{
	double		x[N * D],
				sa[3 * D],
				sb[3 * D],
				ss[3 * D],
				m1[D],
				s1[D],
				m2[D],
				s2[D];
	gsu_moments a,
				b,
				serial;
	int			i,
				j;

	make_rows(x);
	gsu_moments_init(&a, D, 0, sa);
	gsu_moments_init(&b, D, 0, sb);
	gsu_moments_init(&serial, D, 0, ss);
	for (i = 0; i < N; i++)
	{
		gsu_moments_add(&serial, x + i * D);
		gsu_moments_add(i < 11 ? &a : &b, x + i * D);
	}
	CHECK(gsu_moments_merge(&a, &b) == GSU_OK, "merge");
	CHECK(gsu_standardize_stats(&serial, m1, s1) == GSU_OK, "serial");
	CHECK(gsu_standardize_stats(&a, m2, s2) == GSU_OK, "merged");
	for (j = 0; j < D; j++)
	{
		CHECK(fabs(m1[j] - m2[j]) <= 1e-15 * fmax(1.0, fabs(m1[j])), "mean %d", j);
		CHECK(fabs(s1[j] - s2[j]) <= 1e-12 * s1[j], "scale %d: %.17g vs %.17g", j, s1[j], s2[j]);
	}
}

static void
test_transform(void)
{
	double		mean[D] = {1.0, -2.0, 0.5, 3.0},
				scale[D] = {2.0, 0.5, 1.0, 4.0},
				x[D] = {3.0, -1.0, 0.5, 7.0},
				xo[D],
				full[D * D],
				diag[D] = {4.0, 0.25, 9.0, 16.0},
				buf[D * D];
	gsu_cov		c,
				out;
	int			j,
				k;

	gsu_standardize_mean(D, mean, scale, x, xo);
	CHECK(xo[0] == 1.0 && xo[1] == 2.0 && xo[2] == 0.0 && xo[3] == 1.0,
		  "mean %g %g %g %g", xo[0], xo[1], xo[2], xo[3]);

	c.kind = GSU_COV_DIAG;
	c.data = diag;
	gsu_standardize_cov(D, scale, &c, &out, buf);
	CHECK(out.kind == GSU_COV_DIAG, "diag kind");
	for (j = 0; j < D; j++)
		CHECK_CLOSE(out.data[j], diag[j] / (scale[j] * scale[j]), 1e-15);

	c.kind = GSU_COV_ISO;
	c.iso = 2.0;
	gsu_standardize_cov(D, scale, &c, &out, buf);
	CHECK(out.kind == GSU_COV_DIAG, "iso becomes diagonal");
	for (j = 0; j < D; j++)
		CHECK_CLOSE(out.data[j], 2.0 / (scale[j] * scale[j]), 1e-15);

	for (j = 0; j < D; j++)
		for (k = 0; k < D; k++)
			full[j * D + k] = (j == k ? 3.0 : 0.0) + 0.1 * (j + 1) * (k + 1);
	c.kind = GSU_COV_FULL;
	c.data = full;
	gsu_standardize_cov(D, scale, &c, &out, buf);
	CHECK(out.kind == GSU_COV_FULL, "full kind");
	for (j = 0; j < D; j++)
		for (k = 0; k < D; k++)
			CHECK_CLOSE(out.data[j * D + k], full[j * D + k] / (scale[j] * scale[k]), 1e-15);

	c.kind = GSU_COV_NONE;
	gsu_standardize_cov(D, scale, &c, &out, buf);
	CHECK(out.kind == GSU_COV_NONE, "none stays none");
}

/* wᵀx' + b = w̃ᵀx + b̃ and wᵀΣ'w = w̃ᵀΣw̃ for random vectors and a full Σ */
static void
test_fold(void)
{
	double		mean[D],
				scale[D],
				theta[D + 1],
				folded[D + 1],
				x[D],
				xs[D],
				full[D * D],
				buf[D * D],
				sw[D];
	gsu_cov		c,
				cs;
	int			t,
				j,
				k;

	for (t = 0; t < 50; t++)
	{
		double		f1,
					f2,
					q1,
					q2;

		for (j = 0; j < D; j++)
		{
			mean[j] = 10.0 * (uniform() - 0.5);
			scale[j] = 0.01 + 5.0 * uniform();
			theta[j] = uniform() - 0.5;
			x[j] = 10.0 * (uniform() - 0.5);
		}
		theta[D] = uniform() - 0.5;
		for (j = 0; j < D; j++)
			for (k = 0; k <= j; k++)
				full[j * D + k] = full[k * D + j] = (j == k ? 2.0 : 0.3 * (uniform() - 0.5));
		CHECK(gsu_standardize_fold(D, mean, scale, theta, folded) == GSU_OK, "fold");
		gsu_standardize_mean(D, mean, scale, x, xs);
		f1 = theta[D];
		f2 = folded[D];
		for (j = 0; j < D; j++)
		{
			f1 += theta[j] * xs[j];
			f2 += folded[j] * x[j];
		}
		CHECK(fabs(f1 - f2) <= 1e-12 * fmax(1.0, fabs(f1)), "decision %.17g vs %.17g", f1, f2);
		c.kind = GSU_COV_FULL;
		c.iso = 0.0;
		c.data = full;
		gsu_standardize_cov(D, scale, &c, &cs, buf);
		q1 = gsu_cov_quad(D, &cs, theta, sw);
		q2 = gsu_cov_quad(D, &c, folded, sw);
		CHECK(fabs(q1 - q2) <= 1e-12 * q1, "quad %.17g vs %.17g", q1, q2);
	}
	/* unfold inverts fold */
	{
		double		back[D + 1];

		CHECK(gsu_standardize_unfold(D, mean, scale, folded, back) == GSU_OK, "unfold");
		for (j = 0; j <= D; j++)
			CHECK(fabs(back[j] - theta[j]) <= 1e-12 * fmax(1.0, fabs(theta[j])),
				  "unfold %d: %.17g vs %.17g", j, back[j], theta[j]);
	}
	theta[0] = 1e308;
	scale[0] = 1e-10;
	CHECK(gsu_standardize_fold(D, mean, scale, theta, folded) == GSU_ENOTFINITE, "overflow");
}

static void
test_scales(void)
{
	double		var[3] = {4.0, 0.0, 0.25},
				s[3];

	CHECK(gsu_standardize_scales(3, var, s) == GSU_OK, "scales");
	CHECK(s[0] == 2.0 && s[1] == 1.0 && s[2] == 0.5, "%g %g %g", s[0], s[1], s[2]);
	var[1] = -1.0;
	CHECK(gsu_standardize_scales(3, var, s) == GSU_EINVAL, "negative");
	var[1] = INFINITY;
	CHECK(gsu_standardize_scales(3, var, s) == GSU_ENOTFINITE, "infinite");
}

static void
test_check(void)
{
	double		mean[2] = {0.0, 1.0},
				scale[2] = {1.0, 2.0};

	CHECK(gsu_standardize_check(2, mean, scale) == GSU_OK, "good");
	scale[1] = 0.0;
	CHECK(gsu_standardize_check(2, mean, scale) == GSU_EINVAL, "zero scale");
	scale[1] = 1.0;
	mean[0] = NAN;
	CHECK(gsu_standardize_check(2, mean, scale) == GSU_EINVAL, "NaN mean");
}

static const gsu_test_case tests[] = {
	{"stats", test_stats},
	{"merge", test_merge},
	{"transform", test_transform},
	{"fold", test_fold},
	{"scales", test_scales},
	{"check", test_check},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
