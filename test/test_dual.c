/*
 * test_dual.c — unit tests of gsu_polish_dual.c: the SVM-GSU optimum for
 * rows with low-rank factors by an interior-point method on the dual, its
 * gap certified by a feasible dual point.
 *
 * The references: the objective itself, convex, so a point no lower than
 * any nearby one (hundreds of random directions, three scales) up to the
 * certified gap is its minimizer; and newton's own result, which no point
 * may beat by more than that gap.  Refusals must leave theta as it was.
 * Deterministic.  GSU_TEST_QUICK=1 (under valgrind): λ = 1e-6 only among
 * the separable cases, 40 of the non-separable rows, and no newton reference.
 */
#include "gsu_polish.h"
#include "gsu_test.h"

#define D 30
#define N 40
#define R 2

typedef struct dual_rows
{
	double		x[N * D];
	double		y[N];
	double		l[N * D * R];	/* factors, d × r row-major */
	double		w[N];
} dual_rows;

/*
 * Two classes around ±(1, …, 1)·0.6 with unit noise (separable in 30
 * dimensions at 40 rows, so small λ puts many rows at their kink), factors
 * of entries N(0, scale²); weights in [0.5, 2.5], row 5's 0.
 */
static void
make_rows(dual_rows *r, uint64_t seed, double scale)
{
	gsu_rng		rng;
	int			i,
				j;

	gsu_rng_seed(&rng, seed);
	for (i = 0; i < N; i++)
	{
		r->y[i] = i % 2 ? 1.0 : -1.0;
		r->w[i] = i == 5 ? 0.0 : 0.5 + 2.0 * gsu_rng_uniform(&rng);
		for (j = 0; j < D; j++)
			r->x[i * D + j] = 0.6 * r->y[i] + gsu_rng_normal(&rng);
		for (j = 0; j < D * R; j++)
			r->l[i * D * R + j] = scale * gsu_rng_normal(&rng);
	}
}

static gsu_dataset
rows_of(dual_rows *r, int n, int weighted)
{
	gsu_dataset ds = {n, D, r->x, r->y, GSU_COV_FACTOR, r->l, weighted ? r->w : NULL, R};

	return ds;
}

/*
 * From θ = 0: certified (gap ≤ 1e-10·F), the objective it reports is F at
 * its θ, a local (so global) minimum, and newton's result (20000
 * iterations) is not lower by more than the gap.
 */
static void
check_case(dual_rows *r, int weighted, double lambda, const char *what)
{
	gsu_dataset ds = rows_of(r, N, weighted);
	gsu_solve_options o;
	gsu_solve_result res;
	double		theta[D + 1] = {0},
				tn[D + 1] = {0},
				f = NAN,
				gap = NAN;

	CHECK(gsu_dual_polish(&ds, lambda, 1e-10, theta, &f, &gap, NULL, NULL, NULL) == 1, "%s: not certified", what);
	CHECK_CLOSE(f, gsu_test_objective(&ds, lambda, theta), 1e-15 * f);
	CHECK(gap >= 0.0 && gap <= 1e-10 * f, "%s: gap %g against %g", what, gap, f);
	gsu_test_local_minimum(&ds, lambda, theta, gap, 1e-13, what);
	if (quick)
		return;
	gsu_solve_options_default(&o);
	o.lambda = lambda;
	o.max_iterations = 20000;
	CHECK(gsu_solve_newton(&ds, &o, tn, &res) == GSU_OK, "%s: newton", what);
	CHECK(res.objective >= f - gap - 1e-13 * f, "%s: newton's %.17g below the certified %.17g",
		  what, res.objective, f);
}

static void
test_factor_rows(void)
{
	static dual_rows r;
	double		lambdas[3] = {1e-3, 1e-5, 1e-6};

	make_rows(&r, 21, 0.3);
	for (int k = quick ? 2 : 0; k < 3; k++)
	{
		char		what[64];

		snprintf(what, sizeof(what), "lambda %g", lambdas[k]);
		check_case(&r, 0, lambdas[k], what);
		snprintf(what, sizeof(what), "weighted, lambda %g", lambdas[k]);
		check_case(&r, 1, lambdas[k], what);
	}
}

/*
 * Rows that are not separable (classes ±0.1 apart with unit noise, 100 rows
 * in 5 dimensions): at λ = 1e-6 and 1e-9 F − D cancels badly when D is
 * formed from BᵀB, so the certificate sums non-negative pieces; whatever it
 * returns, a certified gap must be ≥ 0, and the lower bound F − gap no
 * higher than the objective at the start or at newton's result; 1e-6 must
 * certify.
 */
#define NN 100
#define DN 5
static void
test_not_separable(void)
{
	static double x[NN * DN],
				y[NN],
				l[NN * DN * R];
	gsu_rng		rng;
	double		lambdas[2] = {1e-6, 1e-9};

	gsu_rng_seed(&rng, 3);
	for (int i = 0; i < NN; i++)
	{
		y[i] = i % 2 ? 1.0 : -1.0;
		for (int j = 0; j < DN; j++)
			x[i * DN + j] = 0.1 * y[i] + gsu_rng_normal(&rng);
		for (int j = 0; j < DN * R; j++)
			l[i * DN * R + j] = 0.3 * gsu_rng_normal(&rng);
	}
	for (int k = 0; k < 2; k++)
	{
		gsu_dataset ds = {quick ? 40 : NN, DN, x, y, GSU_COV_FACTOR, l, NULL, R};
		gsu_solve_options o;
		gsu_solve_result res;
		double		theta[DN + 1] = {0},
					tn[DN + 1] = {0},
					f0 = gsu_test_objective(&ds, lambdas[k], theta),
					f = NAN,
					gap = NAN;
		int64_t		passes = -1;

		int			ok = gsu_dual_polish(&ds, lambdas[k], 1e-10, theta, &f, &gap, &passes, NULL, NULL);

		/* at 1e-9 the honest gap is above 1e-10 of F: refused, or certified */
		CHECK(ok || k == 1, "lambda %g: not certified", lambdas[k]);
		CHECK(passes >= 2, "lambda %g: %lld passes", lambdas[k], (long long) passes);
		if (ok)
		{
			CHECK(gap >= 0.0 && gap <= 1e-10 * f, "lambda %g: gap %g against %g", lambdas[k], gap, f);
			CHECK(f - gap <= f0, "lambda %g: the lower bound %.17g above F(0) %.17g", lambdas[k],
				  f - gap, f0);
			if (quick)
				continue;
			gsu_solve_options_default(&o);
			o.lambda = lambdas[k];
			o.max_iterations = 20000;
			CHECK(gsu_solve_newton(&ds, &o, tn, &res) == GSU_OK, "newton");
			CHECK(f - gap <= res.objective * (1.0 + 1e-15), "lambda %g: the lower bound %.17g above newton's %.17g",
				  lambdas[k], f - gap, res.objective);
		}
	}
}

/*
 * newton cut short at small λ (its result unconverged) ends on the dual's
 * certified point: converged, the gap within 1e-10 of the objective, and
 * the same objective as the direct call.
 */
static void
test_newton_finish(void)
{
	static dual_rows r;
	gsu_dataset ds;
	gsu_solve_options o;
	gsu_solve_result res;
	double		theta[D + 1] = {0},
				direct[D + 1] = {0},
				f,
				gap;

	make_rows(&r, 22, 0.3);
	ds = rows_of(&r, N, 0);
	gsu_solve_options_default(&o);
	o.lambda = 1e-6;
	o.max_iterations = 50;
	CHECK(gsu_solve_newton(&ds, &o, theta, &res) == GSU_OK, "newton");
	CHECK(res.converged, "not converged: objective %g, gap %g", res.objective, res.gap_estimate);
	CHECK(res.gap_estimate <= 1e-10 * res.objective, "gap %g against %g", res.gap_estimate,
		  res.objective);
	CHECK_CLOSE(res.objective, gsu_test_objective(&ds, o.lambda, theta), 1e-15 * res.objective);
	CHECK(gsu_dual_polish(&ds, o.lambda, 1e-10, direct, &f, &gap, NULL, NULL, NULL) == 1, "direct call");
	CHECK_CLOSE(res.objective, f, 2e-10 * f);
}

/* a refusal leaves theta, the objective and the gap as they were */
static void
check_refused(const gsu_dataset *ds, const char *what)
{
	double		theta[D + 1],
				before[D + 1],
				f = -1.0,
				gap = -1.0;

	for (int j = 0; j <= D; j++)
		theta[j] = before[j] = 0.01 * j;
	CHECK(gsu_dual_polish(ds, 1e-4, 1e-10, theta, &f, &gap, NULL, NULL, NULL) == 0, "%s: not refused", what);
	CHECK(memcmp(theta, before, sizeof(theta)) == 0 && f == -1.0 && gap == -1.0,
		  "%s: changed its outputs", what);
}

static void
test_refusals(void)
{
	static dual_rows r;
	static double many_x[300 * D],
				many_y[300],
				many_l[300 * D * R];
	gsu_dataset ds;

	make_rows(&r, 23, 0.3);
	/* a diagonal covariance: (1 + d) variables a row, not this method's */
	ds = rows_of(&r, N, 0);
	ds.cov_kind = GSU_COV_DIAG;
	ds.cov_rank = 0;
	check_refused(&ds, "diagonal");
	/* one class: Σ ω_i y_i a_i = 0 has no interior */
	{
		double		ones[N];

		for (int i = 0; i < N; i++)
			ones[i] = 1.0;
		ds = rows_of(&r, N, 0);
		ds.y = ones;
		check_refused(&ds, "one class");
	}
	/* 300 rows × (1 + 2) variables: over the 600 it solves */
	for (int i = 0; i < 300; i++)
	{
		memcpy(many_x + i * D, r.x + (i % N) * D, sizeof(double) * D);
		memcpy(many_l + i * D * R, r.l + (i % N) * D * R, sizeof(double) * D * R);
		many_y[i] = r.y[i % N];
	}
	ds = rows_of(&r, N, 0);
	ds.n = 300;
	ds.x = many_x;
	ds.y = many_y;
	ds.cov = many_l;
	check_refused(&ds, "too many variables");
}

static const gsu_test_case tests[] = {
	{"factor_rows", test_factor_rows},
	{"not_separable", test_not_separable},
	{"newton_finish", test_newton_finish},
	{"refusals", test_refusals},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
