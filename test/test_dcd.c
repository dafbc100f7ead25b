/*
 * test_dcd.c — unit tests of gsu_dcd.c: the hinge-loss SVM of certain rows
 * by dual coordinate descent with the polish's exact finish.
 *
 * The reference is the smoothed Newton solver with its own polish
 * (gsu_solve_newton): on small random problems both must reach the same
 * objective to 1e-9 relative, DCD with a certified gap; and with row weights,
 * separable classes, duplicate rows and a zero row.  GSU_TEST_DCD_N=rows
 * GSU_TEST_DCD_D=dim times one larger problem (not a check).
 */
#define _POSIX_C_SOURCE 199309L
#include "gsu_dcd.h"
#include "gsu_objective.h"
#include "gsu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* rows uniform in [-1, 1]^d, the classes shifted by ±shift, a fraction flip of labels flipped */
static void
make_rows(int64_t n, int d, double shift, double flip, uint64_t seed, double *x, double *y)
{
	gsu_rng		r;

	gsu_rng_seed(&r, seed);
	for (int64_t i = 0; i < n; i++)
	{
		double		c = (i % 2) ? 1.0 : -1.0;

		for (int j = 0; j < d; j++)
			x[i * d + j] = 2.0 * gsu_rng_uniform(&r) - 1.0 + c * shift;
		y[i] = gsu_rng_uniform(&r) < flip ? -c : c;
	}
}

/* DCD and Newton on ds: the same objective, DCD's gap certified */
static void
compare(const gsu_dataset *ds, double lambda, const char *what)
{
	gsu_solve_options o;
	gsu_solve_result rd,
				rn;
	double	   *td = calloc(ds->d + 1, sizeof(double)),
			   *tn = calloc(ds->d + 1, sizeof(double)),
				f;

	gsu_solve_options_default(&o);
	o.lambda = lambda;
	o.tolerance = 1e-9;
	o.smoothing = 1e-8;
	CHECK(gsu_solve_dcd(ds, &o, td, &rd) == GSU_OK, "%s: dcd failed", what);
	CHECK(gsu_solve_newton(ds, &o, tn, &rn) == GSU_OK, "%s: newton failed", what);
	CHECK(rd.objective <= rn.objective * (1.0 + 1e-9) + 1e-300,
		  "%s: dcd F %.17g above newton's %.17g", what, rd.objective, rn.objective);
	CHECK(fabs(rd.objective - rn.objective) <= 1e-9 * fabs(rn.objective) + 1e-15,
		  "%s: dcd F %.17g vs newton's %.17g", what, rd.objective, rn.objective);
	CHECK(rd.converged, "%s: not converged (kkt %g)", what, rd.gradient_norm);
	CHECK(rd.gap_estimate >= 0.0 && rd.gap_estimate <= 1e-9 * fmax(1.0, rd.objective),
		  "%s: gap %g", what, rd.gap_estimate);
	/* the reported objective is the objective of the returned point */
	CHECK(gsu_objective(ds, lambda, 0.0, td, &f, NULL) == GSU_OK, "objective");
	CHECK_CLOSE(f, rd.objective, 1e-14 * fmax(1.0, f));
	free(td);
	free(tn);
}

static void
test_random(void)
{
	/*
	 * C·(‖x‖² + 1) ≤ 0.5 (coordinate descent) for the larger λ on the larger
	 * sets, above it (the Newton hand-over) for the others
	 */
	const double lambdas[] = {1e-1, 1e-2, 1e-3, 1e-4};
	int			sizes[][2] = {{60, 2}, {200, 5}, {400, 12}, {3000, 4}};

	for (int s = 0; s < 4; s++)
		for (int l = 0; l < 4; l++)
		{
			int64_t		n = sizes[s][0];
			int			d = sizes[s][1];
			double	   *x = malloc(sizeof(double) * n * d),
					   *y = malloc(sizeof(double) * n);
			gsu_dataset ds = {n, d, x, y, GSU_COV_NONE, NULL, NULL, 0};
			char		what[64];

			make_rows(n, d, 0.1, 0.1, 7 + s * 10 + l, x, y);
			snprintf(what, sizeof(what), "n %d d %d lambda %g", (int) n, d, lambdas[l]);
			compare(&ds, lambdas[l], what);
			free(x);
			free(y);
		}
}

/* row weights: the box 0 ≤ α_i ≤ c_i/(λW), a weight 0 row ignored */
static void
test_weights(void)
{
	enum
	{
	N = 150, D = 4};
	double		x[N * D],
				y[N],
				c[N];
	gsu_dataset ds = {N, D, x, y, GSU_COV_NONE, NULL, c, 0};

	make_rows(N, D, 0.2, 0.1, 3, x, y);
	for (int i = 0; i < N; i++)
		c[i] = (i % 7 == 0) ? 0.0 : 0.25 + (i % 5) * 0.5;
	compare(&ds, 1e-1, "weights");
	compare(&ds, 1e-2, "weights, newton's regime");
	compare(&ds, 1e-4, "weights, small lambda");
}

/* separable classes: the hard-margin regime of a small λ */
static void
test_separable(void)
{
	enum
	{
	N = 100, D = 3};
	double		x[N * D],
				y[N];
	gsu_dataset ds = {N, D, x, y, GSU_COV_NONE, NULL, NULL, 0};

	make_rows(N, D, 1.5, 0.0, 11, x, y);
	compare(&ds, 0.5, "separable");
	compare(&ds, 1e-3, "separable, newton's regime");
	compare(&ds, 1e-6, "separable, tiny lambda");
}

/* every row twice, and a zero row (Q_ii is B² only) */
static void
test_duplicates_zero(void)
{
	enum
	{
	N = 80, D = 3};
	double		x[2 * N * D],
				y[2 * N];
	gsu_dataset ds = {2 * N, D, x, y, GSU_COV_NONE, NULL, NULL, 0};

	make_rows(N, D, 0.3, 0.1, 5, x, y);
	memcpy(x + N * D, x, sizeof(double) * N * D);
	memcpy(y + N, y, sizeof(double) * N);
	for (int j = 0; j < D; j++)
		x[j] = 0.0;
	compare(&ds, 1e-1, "duplicates and a zero row");
	compare(&ds, 1e-2, "duplicates and a zero row, newton's regime");
}

/* rows with covariances, a bad λ: not its problem */
static void
test_einval(void)
{
	double		x[2] = {1.0, -1.0},
				y[2] = {1.0, -1.0},
				v[2] = {0.1, 0.1},
				th[2];
	gsu_dataset ds = {2, 1, x, y, GSU_COV_ISO, v, NULL, 0};
	gsu_solve_options o;
	gsu_solve_result r;

	gsu_solve_options_default(&o);
	CHECK(gsu_solve_dcd(&ds, &o, th, &r) == GSU_EINVAL, "covariances accepted");
	ds.cov_kind = GSU_COV_NONE;
	ds.cov = NULL;
	o.lambda = 0.0;
	CHECK(gsu_solve_dcd(&ds, &o, th, &r) == GSU_EINVAL, "lambda 0 accepted");
	/* the two-point problem: w = 1, b = 0 */
	o.lambda = 0.3;
	CHECK(gsu_solve_dcd(&ds, &o, th, &r) == GSU_OK, "two points");
	CHECK_CLOSE(th[0], 1.0, 1e-12);
	CHECK_CLOSE(th[1], 0.0, 1e-12);
}

static int	cancel_calls;
static int
cancel_after(void *arg)
{
	(void) arg;
	return ++cancel_calls > 2;
}

static void
test_cancel(void)
{
	int64_t		n = 20000;
	int			d = 20;
	double	   *x = malloc(sizeof(double) * n * d),
			   *y = malloc(sizeof(double) * n),
				th[21];
	gsu_dataset ds = {n, d, x, y, GSU_COV_NONE, NULL, NULL, 0};
	gsu_solve_options o;
	gsu_solve_result r;

	make_rows(n, d, 0.05, 0.05, 9, x, y);
	gsu_solve_options_default(&o);
	o.lambda = 1e-5;
	o.progress = cancel_after;
	CHECK(gsu_solve_dcd(&ds, &o, th, &r) == GSU_ECANCELLED, "not cancelled");
	free(x);
	free(y);
}

/* GSU_TEST_DCD_N / _D: a timing of one larger problem, printed */
static void
test_timing(void)
{
	const char *ns = getenv("GSU_TEST_DCD_N"),
			   *dsz = getenv("GSU_TEST_DCD_D"),
			   *ls = getenv("GSU_TEST_DCD_LAMBDA");
	int64_t		n;
	int			d;
	double	   *x,
			   *y,
			   *th;
	gsu_solve_options o;
	gsu_solve_result r;
	struct timespec t0,
				t1;

	if (ns == NULL)
		return;
	n = atoll(ns);
	d = dsz ? atoi(dsz) : 50;
	x = malloc(sizeof(double) * n * d);
	y = malloc(sizeof(double) * n);
	th = calloc(d + 1, sizeof(double));
	make_rows(n, d, 0.04, 0.05, 1, x, y);
	gsu_solve_options_default(&o);
	o.lambda = ls ? atof(ls) : 1e-3;
	{
		gsu_dataset ds = {n, d, x, y, GSU_COV_NONE, NULL, NULL, 0};

		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(gsu_solve_dcd(&ds, &o, th, &r) == GSU_OK, "dcd");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "dcd n %lld d %d lambda %g: %.3f s, F %.12g, gap %g, kkt %g, epochs %lld, passes %lld, converged %d\n",
				(long long) n, d, o.lambda,
				(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec),
				r.objective, r.gap_estimate, r.gradient_norm, (long long) r.iterations,
				(long long) r.passes, r.converged);
		if (getenv("GSU_TEST_DCD_NEWTON"))
		{
			memset(th, 0, sizeof(double) * (d + 1));
			clock_gettime(CLOCK_MONOTONIC, &t0);
			CHECK(gsu_solve_newton(&ds, &o, th, &r) == GSU_OK, "newton");
			clock_gettime(CLOCK_MONOTONIC, &t1);
			fprintf(stderr, "newton: %.3f s, F %.12g, gap %g, passes %lld\n",
					(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec),
					r.objective, r.gap_estimate, (long long) r.passes);
		}
	}
	free(x);
	free(y);
	free(th);
}

int
main(void)
{
	static const gsu_test_case tests[] = {
		{"random problems against newton", test_random},
		{"row weights", test_weights},
		{"separable", test_separable},
		{"duplicates and a zero row", test_duplicates_zero},
		{"bad arguments", test_einval},
		{"cancel", test_cancel},
		{"timing", test_timing},
	};

	return GSU_TEST_MAIN(tests);
}
