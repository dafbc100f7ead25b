/*
 * test_regmetrics.c — unit tests of the running moments of the regression
 * metrics (core/gsu_regmetrics.c): values by hand, the two-pass sums of a
 * long series, merges of every split equal to the serial state, the NLPD
 * term, validity and overflow.
 */
#include "gsu_regmetrics.h"
#include "gsu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static gsu_regmoments
zero(void)
{
	gsu_regmoments s;

	memset(&s, 0, sizeof(s));
	return s;
}

/* the rows (p, y): squared and absolute errors as the two terms */
static gsu_regmoments
over(const double *p, const double *y, int from, int to)
{
	gsu_regmoments s = zero();
	int			i;

	for (i = from; i < to; i++)
		CHECK(gsu_regmoments_add(&s, y[i], (p[i] - y[i]) * (p[i] - y[i]), fabs(p[i] - y[i])) == GSU_OK,
			  "add row %d", i);
	return s;
}

/* predictions 1, 2, 4 of targets 2, 2, 2... and a hand R² */
static void
test_hand(void)
{
	static const double p[] = {1, 2, 4, 3},
				y[] = {2, 2, 2, 6};
	gsu_regmoments s = over(p, y, 0, 4);

	CHECK(s.n == 4.0 && CLOSE(s.mean_y, 3.0, 1e-15) && CLOSE(s.m2_y, 12.0, 1e-14), "target moments");
	CHECK(CLOSE(s.mean_a, (1.0 + 0 + 4 + 9) / 4, 1e-15), "mean squared error");
	CHECK(CLOSE(s.mean_b, (1.0 + 0 + 2 + 3) / 4, 1e-15), "mean absolute error");
	CHECK(CLOSE(gsu_regmoments_r2(&s), 1.0 - 14.0 / 12.0, 1e-15), "r2");
	s = over(p, y, 0, 3);
	CHECK(isnan(gsu_regmoments_r2(&s)), "constant target: r2 undefined");
	s = over(p, y, 0, 1);
	CHECK(isnan(gsu_regmoments_r2(&s)), "one row: r2 undefined");
	CHECK(gsu_regmoments_valid(&s), "a state made by add is valid");
}

/* a long series with a large offset: the running moments match two-pass sums */
static void
test_series(void)
{
	enum
	{
		N = 100000
	};
	double	   *p = malloc(sizeof(double) * N),
			   *y = malloc(sizeof(double) * N);
	double		my = 0,
				m2 = 0,
				mse = 0;
	gsu_regmoments s;
	int			i;

	for (i = 0; i < N; i++)
	{
		y[i] = 1e8 + sin(0.37 * i);
		p[i] = y[i] + 0.01 * cos(1.3 * i);
		my += y[i];
	}
	my /= N;
	for (i = 0; i < N; i++)
	{
		m2 += (y[i] - my) * (y[i] - my);
		mse += (p[i] - y[i]) * (p[i] - y[i]);
	}
	mse /= N;
	s = over(p, y, 0, N);
	CHECK(CLOSE(s.mean_y, my, 1e-6) && fabs(s.m2_y - m2) <= 1e-6 * m2, "Welford: %.17g %.17g", s.m2_y, m2);
	CHECK(fabs(s.mean_a - mse) <= 1e-9 * mse, "running mean of the squared errors");
	free(p);
	free(y);
}

/* merging the states of any split (and in either order) gives the serial state */
static void
test_merge(void)
{
	double		p[40],
				y[40];
	gsu_regmoments all,
				a,
				b,
				m,
				e = zero();
	int			i,
				cut;

	for (i = 0; i < 40; i++)
	{
		y[i] = 3.0 * sin(i) + (i > 20 ? 50.0 : 0.0);
		p[i] = y[i] + cos(2.0 * i);
	}
	all = over(p, y, 0, 40);
	for (cut = 0; cut <= 40; cut++)
	{
		a = over(p, y, 0, cut);
		b = over(p, y, cut, 40);
		CHECK(gsu_regmoments_merge(&a, &b, &m) == GSU_OK, "merge at %d", cut);
		CHECK(m.n == all.n && CLOSE(m.mean_y, all.mean_y, 1e-12) &&
			  fabs(m.m2_y - all.m2_y) <= 1e-12 * all.m2_y &&
			  CLOSE(m.mean_a, all.mean_a, 1e-13) && CLOSE(m.mean_b, all.mean_b, 1e-13),
			  "split at %d", cut);
		CHECK(gsu_regmoments_merge(&b, &a, &m) == GSU_OK && CLOSE(m.mean_y, all.mean_y, 1e-12),
			  "other order at %d", cut);
	}
	CHECK(gsu_regmoments_merge(&e, &all, &m) == GSU_OK && memcmp(&m, &all, sizeof(m)) == 0, "empty left");
	CHECK(gsu_regmoments_merge(&all, &e, &all) == GSU_OK && all.n == 40.0, "empty right, in place");
}

static void
test_nlpd(void)
{
	CHECK(CLOSE(gsu_nlpd_term(0, 1, 0), 0.5 * log(2 * 3.14159265358979323846), 1e-15), "standard normal at its mean");
	CHECK(CLOSE(gsu_nlpd_term(1, 2, 3), 0.5 * log(2 * 3.14159265358979323846) + log(2.0) + 0.5, 1e-15), "one sd away");
	CHECK(isnan(gsu_nlpd_term(0, 0, 1)) && isnan(gsu_nlpd_term(0, -1, 1)) && isnan(gsu_nlpd_term(0, NAN, 1)),
		  "sd must be positive");
}

static void
test_valid_and_overflow(void)
{
	gsu_regmoments s = zero(),
				t;

	CHECK(gsu_regmoments_valid(&s), "zero state");
	t = s;
	t.n = -1;
	CHECK(!gsu_regmoments_valid(&t), "negative count");
	t = s;
	t.n = 1.5;
	CHECK(!gsu_regmoments_valid(&t), "fractional count");
	t = s;
	t.mean_y = 1;
	CHECK(!gsu_regmoments_valid(&t), "moments without rows");
	t = s;
	t.n = 2;
	t.m2_y = -1;
	CHECK(!gsu_regmoments_valid(&t), "negative sum of squares");
	t.m2_y = INFINITY;
	CHECK(!gsu_regmoments_valid(&t), "infinite");
	CHECK(gsu_regmoments_add(&s, 1, 1e308 * 10, 0) == GSU_ENOTFINITE && s.n == 0.0, "overflow leaves s");
	CHECK(gsu_regmoments_add(&s, 1e308, 0, 0) == GSU_OK && gsu_regmoments_add(&s, -1e308, 0, 0) == GSU_ENOTFINITE,
		  "overflow of the squared deviations");
}

static const gsu_test_case tests[] = {
	{"hand", test_hand},
	{"series", test_series},
	{"merge", test_merge},
	{"nlpd", test_nlpd},
	{"valid_and_overflow", test_valid_and_overflow},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
