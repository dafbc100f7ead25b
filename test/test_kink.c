/*
 * test_kink.c — unit tests of gsu_polish_kink.c: the exact minimizer of
 * the SVM-GSU objective (μ = 0) with rows held at their kink (margin 0,
 * wᵀΣ_iw = 0), for rows whose covariance is a factor or a diagonal.
 *
 * The references: the same rows given as dense covariances LLᵀ (the
 * polish factors them itself), no lower; and the
 * objective itself, which is convex, so a point no worse than any nearby
 * one in hundreds of random directions, at three scales, is its minimizer
 * (up to the gap the polish reports).  A point the polish
 * certifies must pass both; one it refuses must be left as it was.
 * Deterministic.
 */
#include "gsu_polish.h"
#include "gsu_loss.h"
#include "gsu_test.h"

#define D 30
#define N 12
#define R 2

typedef struct kink_rows
{
	double		x[N * D];
	double		y[N];
	double		l[N * D * R];	/* factors, d × r row-major */
	double		full[N * D * D];	/* LLᵀ */
	double		v[N * D];		/* diagonals, zero outside a row's support */
	double		w[N];
} kink_rows;

/*
 * Two classes around ±(1, …, 1)·0.6 with unit noise, rank-2 factors of
 * entries N(0, scale²), diagonals of 3 random coordinates; weights in
 * [0.5, 2.5] with one row of weight 0.
 */
static void
make_rows(kink_rows *r, uint64_t seed, double scale)
{
	gsu_rng		rng;
	int			i,
				j,
				k,
				c;

	gsu_rng_seed(&rng, seed);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < N; i++)
	{
		r->y[i] = i % 2 ? 1.0 : -1.0;
		r->w[i] = i == 5 ? 0.0 : 0.5 + 2.0 * gsu_rng_uniform(&rng);
		for (j = 0; j < D; j++)
			r->x[i * D + j] = 0.6 * r->y[i] + gsu_rng_normal(&rng);
		for (j = 0; j < D * R; j++)
			r->l[i * D * R + j] = scale * gsu_rng_normal(&rng);
		for (j = 0; j < D; j++)
			for (k = 0; k < D; k++)
				for (c = 0; c < R; c++)
					r->full[(size_t) i * D * D + j * D + k] +=
						r->l[i * D * R + j * R + c] * r->l[i * D * R + k * R + c];
		for (c = 0; c < 3; c++)
			r->v[i * D + gsu_rng_below(&rng, D)] = scale * scale * (0.5 + gsu_rng_uniform(&rng));
	}
}

/* r->full: the diagonals as dense matrices (make_rows leaves LLᵀ there) */
static void
dense_diagonals(kink_rows *r)
{
	memset(r->full, 0, sizeof(r->full));
	for (int i = 0; i < N; i++)
		for (int j = 0; j < D; j++)
			r->full[(size_t) i * D * D + j * D + j] = r->v[i * D + j];
}

static gsu_dataset
rows_of(kink_rows *r, gsu_cov_kind kind, int weighted)
{
	gsu_dataset ds = {N, D, r->x, r->y, kind,
		kind == GSU_COV_FACTOR ? r->l : kind == GSU_COV_FULL ? r->full : r->v,
	weighted ? r->w : NULL, kind == GSU_COV_FACTOR ? R : 0};

	return ds;
}

/* the rows at their kink at θ: margin and deviation below 1e-7 */
static int
kink_rows_at(const gsu_dataset *ds, const double *theta)
{
	int			k = 0;

	for (int64_t i = 0; i < ds->n; i++)
	{
		gsu_cov		cov = gsu_cov_row(ds->cov_kind, ds->cov, ds->d, ds->cov_rank, i);
		double		work[2 * D],
					z = theta[ds->d];

		for (int j = 0; j < ds->d; j++)
			z += ds->x[i * ds->d + j] * theta[j];
		if (fabs(1.0 - ds->y[i] * z) <= 1e-7 &&
			sqrt(fmax(gsu_cov_quad(ds->d, &cov, theta, work), 0.0)) <= 1e-7)
			k++;
	}
	return k;
}

/*
 * newton on the factor (or diagonal) rows: converged, rows at their kink,
 * and a local (so global) minimum; the same rows as dense matrices (LLᵀ,
 * diag v), whose ranges the polish judges by a pivoted Cholesky
 * factorization: no lower, and within the smoothing's bound when not
 * finished.
 */
static void
check_case(kink_rows *r, gsu_cov_kind kind, int weighted, double lambda, const char *what)
{
	gsu_dataset ds = rows_of(r, kind, weighted),
				dense = rows_of(r, GSU_COV_FULL, weighted);
	gsu_solve_options o;
	gsu_solve_result res,
				ref;
	double		theta[D + 1] = {0},
				tref[D + 1] = {0};

	if (kind == GSU_COV_DIAG)
		dense_diagonals(r);
	gsu_solve_options_default(&o);
	o.lambda = lambda;
	o.max_iterations = 20000;
	CHECK(gsu_solve_newton(&ds, &o, theta, &res) == GSU_OK, "%s: solve", what);
	CHECK(res.converged, "%s: not converged (gap %g)", what, res.gap_estimate);
	CHECK(gsu_solve_newton(&dense, &o, tref, &ref) == GSU_OK, "%s: dense solve", what);
	CHECK_CLOSE(res.objective, gsu_test_objective(&ds, lambda, theta), 1e-15 * res.objective);
	/* the dense rows: finished too (the same objective), or within the smoothing's bound */
	CHECK(res.objective <= ref.objective * (1.0 + 1e-10),
		  "%s: %.17g above the dense rows' %.17g", what, res.objective, ref.objective);
	CHECK(ref.objective - res.objective <= o.smoothing / 3.5449077018110320546 + ref.gap_estimate,
		  "%s: %.17g below the dense rows' %.17g by more than their bound", what,
		  res.objective, ref.objective);
	CHECK(res.gap_estimate <= 1e-9 * res.objective, "%s: gap %g", what, res.gap_estimate);
	/* the case exercises the polish: rows end at their kink */
	CHECK(kink_rows_at(&ds, theta) >= 1, "%s: no row at its kink", what);
	gsu_test_local_minimum(&ds, lambda, theta, res.gap_estimate, 1e-14, what);
}

static void
test_factor_rows(void)
{
	static kink_rows r;
	double		lambdas[3] = {1e-2, 1e-3, 1e-4};

	make_rows(&r, 11, 0.3);
	for (int k = 0; k < 3; k++)
	{
		char		what[64];

		snprintf(what, sizeof(what), "factors, lambda %g", lambdas[k]);
		check_case(&r, GSU_COV_FACTOR, 0, lambdas[k], what);
		snprintf(what, sizeof(what), "factors, weighted, lambda %g", lambdas[k]);
		check_case(&r, GSU_COV_FACTOR, 1, lambdas[k], what);
	}
}

static void
test_diagonal_rows(void)
{
	static kink_rows r;

	make_rows(&r, 12, 4.0);
	check_case(&r, GSU_COV_DIAG, 0, 1e-3, "diagonal, lambda 1e-3");
	check_case(&r, GSU_COV_DIAG, 1, 1e-4, "diagonal, weighted, lambda 1e-4");
}

/*
 * Called directly from wherever: a point it certifies is a local minimum
 * no worse than the start; a refusal leaves theta as it was.
 */
static void
test_direct_calls(void)
{
	static kink_rows r;
	gsu_dataset ds;
	gsu_solve_options o;
	gsu_solve_result res;
	double		theta[D + 1] = {0},
				start[D + 1],
				from[D + 1],
				f,
				kkt;
	double		lambdas[4] = {1e-1, 1e-2, 1e-3, 1e-5};
	int			certified = 0;

	make_rows(&r, 13, 0.3);
	ds = rows_of(&r, GSU_COV_FACTOR, 0);
	gsu_solve_options_default(&o);
	o.lambda = 1e-3;
	CHECK(gsu_solve_newton(&ds, &o, theta, &res) == GSU_OK && res.converged, "solve");
	for (int k = 0; k < 4; k++)
		for (int t = 0; t < 9; t++)
		{
			double		tau = t % 3 == 0 ? 1e-6 : t % 3 == 1 ? 1e-3 : 0.5;
			char		what[96];

			/* the optimum at λ = 1e-3, shrunk by 0.9, or moved by 0.02 per coordinate */
			for (int j = 0; j <= D; j++)
				start[j] = t < 3 ? theta[j] : t < 6 ? 0.9 * theta[j] : theta[j] + (j % 2 ? 0.02 : -0.02);
			memcpy(from, start, sizeof(start));
			snprintf(what, sizeof(what), "from lambda 1e-3's optimum (%d) to %g, tau %g", t / 3,
					 lambdas[k], tau);
			if (gsu_kink_polish(&ds, lambdas[k], tau, 1e-6, start, &f, &kkt, NULL, NULL, NULL))
			{
				certified++;
				CHECK(kkt <= 1e-6, "%s: kkt %g", what, kkt);
				CHECK_CLOSE(f, gsu_test_objective(&ds, lambdas[k], start), 1e-15 * f);
				CHECK(f <= gsu_test_objective(&ds, lambdas[k], from) * (1.0 + 1e-12), "%s: worse than its start",
					  what);
				gsu_test_local_minimum(&ds, lambdas[k], start, kkt * kkt / (2.0 * lambdas[k]), 1e-14, what);
			}
			else
				CHECK(memcmp(start, from, sizeof(start)) == 0, "%s: refused, but moved", what);
		}
	/* at its own λ from its own optimum, at least */
	CHECK(certified >= 1, "nothing certified");
}

static int
stop_at_once(void *arg)
{
	(void) arg;
	return 1;
}

/*
 * As the solver calls it: from near the optimum (moved by 1e-4, 1e-3 or
 * 1e-2 per coordinate), whose rows are near their kinks but not at them,
 * with a narrow or a wide set of rows; what it certifies is a local minimum
 * no worse than the start, and a refusal leaves the start as it was.
 */
static void
test_from_nearby(void)
{
	static kink_rows r;
	gsu_dataset ds;
	gsu_solve_options o;
	gsu_solve_result res;
	double		opt[D + 1],
				theta[D + 1],
				from[D + 1],
				f,
				kkt;
	int			certified = 0;

	for (int seed = 0; seed < 2; seed++)
	{
		make_rows(&r, 15 + seed, seed ? 4.0 : 0.3);
		for (int kind = 0; kind < 3; kind++)
		{
			ds = rows_of(&r, kind == 0 ? GSU_COV_FACTOR : kind == 1 ? GSU_COV_DIAG : GSU_COV_FULL, seed);
			if (kind == 1)
				dense_diagonals(&r);
			gsu_solve_options_default(&o);
			o.lambda = 1e-3;
			memset(opt, 0, sizeof(opt));
			CHECK(gsu_solve_newton(&ds, &o, opt, &res) == GSU_OK, "solve");
			for (int sm = 0; sm < 3; sm++)
				for (int t = 0; t < 3; t++)
				{
					double		tau = t == 0 ? 1e-2 : t == 1 ? 1e-1 : 0.5,
								move = sm == 0 ? 1e-4 : sm == 1 ? 1e-3 : 1e-2;
					char		what[96];

					for (int j = 0; j <= D; j++)
						theta[j] = opt[j] + (j % 3 == 0 ? move : j % 3 == 1 ? -move : 0.5 * move);
					memcpy(from, theta, sizeof(from));
					snprintf(what, sizeof(what), "seed %d, kind %d, moved %g, tau %g", seed, kind,
							 move, tau);
					if (gsu_kink_polish(&ds, o.lambda, tau, 1e-6, theta, &f, &kkt, NULL, NULL, NULL))
					{
						certified++;
						CHECK(f <= gsu_test_objective(&ds, o.lambda, from) * (1.0 + 1e-12),
							  "%s: worse than its start", what);
						gsu_test_local_minimum(&ds, o.lambda, theta, kkt * kkt / (2.0 * o.lambda), 1e-14, what);
					}
					else
						CHECK(memcmp(theta, from, sizeof(from)) == 0, "%s: refused, but moved", what);
				}
		}
	}
	CHECK(certified >= 1, "nothing certified");
}

/* a cancel, another covariance kind, no row at its kink: refusals */
static void
test_refusals(void)
{
	static kink_rows r;
	gsu_dataset ds,
				iso;
	gsu_solve_options o;
	gsu_solve_result res;
	double		theta[D + 1] = {0},
				start[D + 1],
				f,
				kkt;

	make_rows(&r, 14, 0.3);
	ds = rows_of(&r, GSU_COV_FACTOR, 0);
	/* isotropic rows (their weights as variances): a kink only at w = 0, not taken */
	iso = rows_of(&r, GSU_COV_ISO, 0);
	iso.cov = r.w;
	gsu_solve_options_default(&o);
	o.lambda = 1e-3;
	CHECK(gsu_solve_newton(&ds, &o, theta, &res) == GSU_OK && res.converged, "solve");
	memcpy(start, theta, sizeof(start));
	CHECK(!gsu_kink_polish(&ds, 1e-3, 1e-3, 1e-8, start, &f, &kkt, NULL, stop_at_once, NULL),
		  "not cancelled");
	CHECK(memcmp(start, theta, sizeof(start)) == 0, "cancelled, but moved");
	CHECK(!gsu_kink_polish(&iso, 1e-3, 1e-3, 1e-8, start, &f, &kkt, NULL, NULL, NULL),
		  "isotropic covariances polished");
	/* θ = 0: every margin is 1, no row at its kink */
	memset(start, 0, sizeof(start));
	CHECK(!gsu_kink_polish(&ds, 1e-3, 1e-3, 1e-8, start, &f, &kkt, NULL, NULL, NULL),
		  "polished from zero");
}

/*
 * The subdifferential at the kink: h(Φ(t)) = φ(t); the nearest point of the
 * profile's curve beats a fine grid; and E's directional derivative at the
 * kink, (E(εδ) with ε = 1e-9)/ε, equals S's support function
 * max_{(a, g) ∈ S} aδm + gᵀδs = max_a aδm + h(a)‖δs‖ (a grid over a).
 */
static void
test_subdifferential(void)
{
	gsu_rng		rng;

	for (int k = -60; k <= 60; k++)
	{
		double		t = 0.1 * k,
					a = 0.5 * erfc(-t / sqrt(2.0));

		CHECK(fabs(gsu_hinge_kink_profile(a) - exp(-0.5 * t * t) / sqrt(2.0 * 3.14159265358979323846)) <=
			  1e-12, "h(Phi(%g))", t);
	}
	CHECK(gsu_hinge_kink_profile(0.0) == 0.0 && gsu_hinge_kink_profile(1.0) == 0.0 &&
		  gsu_hinge_kink_profile(-0.5) == 0.0 && gsu_hinge_kink_profile(1.5) == 0.0, "h off (0, 1)");
	gsu_rng_seed(&rng, 3);
	for (int k = 0; k < 200; k++)
	{
		double		a = -0.5 + 2.0 * gsu_rng_uniform(&rng),
					rho = 0.6 * gsu_rng_uniform(&rng),
					pa,
					prho,
					best = HUGE_VAL;

		if (a >= 0.0 && a <= 1.0 && rho <= gsu_hinge_kink_profile(a))
			continue;			/* inside S */
		gsu_hinge_kink_nearest(a, rho, &pa, &prho);
		for (int j = 0; j <= 20000; j++)
		{
			double		x = j / 20000.0,
						h = gsu_hinge_kink_profile(x);

			best = fmin(best, (x - a) * (x - a) + (h - rho) * (h - rho));
		}
		CHECK(prho == gsu_hinge_kink_profile(pa) &&
			  (pa - a) * (pa - a) + (prho - rho) * (prho - rho) <= best + 1e-9,
			  "nearest to (%g, %g): (%g, %g)", a, rho, pa, prho);
	}
	for (int k = 0; k < 100; k++)
	{
		double		dm = gsu_rng_normal(&rng),
					ds = fabs(gsu_rng_normal(&rng)),
					eps = 1e-9,
					support = -HUGE_VAL,
					e = gsu_expected_hinge(eps * dm, sqrt(2.0) * eps * ds, NULL, NULL) / eps;

		for (int j = 0; j <= 20000; j++)
		{
			double		x = j / 20000.0;

			support = fmax(support, x * dm + gsu_hinge_kink_profile(x) * ds);
		}
		CHECK(fabs(e - support) <= 1e-6 * (1.0 + fabs(support)),
			  "directional derivative along (%g, %g): %.12g, support %.12g", dm, ds, e, support);
	}
}

static const gsu_test_case tests[] = {
	{"subdifferential", test_subdifferential},
	{"factor_rows", test_factor_rows},
	{"diagonal_rows", test_diagonal_rows},
	{"direct_calls", test_direct_calls},
	{"from_nearby", test_from_nearby},
	{"refusals", test_refusals},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
