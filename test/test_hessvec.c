/*
 * test_hessvec.c — the Hessian-vector product over the rows of non-zero
 * curvature only (src/core/gsu_objective.c) against the all-rows product,
 * for every covariance kind, with and without row weights.
 *
 * Near the optimum of a hinge-like problem most rows have saturated
 * curvature (q_i = 0) and the product skips them; the two paths must agree
 * to rounding.  Deterministic (a fixed generator).
 */
#include "gsu_core.h"
#include "gsu_objective.h"
#include "gsu_test.h"

static uint64_t rng_state = 12345;

/* the shared splitmix64 generator (test/gsu_test.c) on this file's state */
#define unif() test_unif(&rng_state)

/*
 * The data sets (make_data, test/gsu_test.h): two well separated classes;
 * covariances of every kind with variances up to 2e-3, so that at the
 * optimum with μ = 1e-4 some 4–7 % of the uncertain rows stay active (the
 * sparse path has work, below the n/4 its check allows) and under 1 % of the
 * certain ones; weights (when weighted) in [0, 3), a tenth of them 0.
 */
static const gsu_cov_kind kinds[] = {GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL};
static const double wvals[] = {0.0, 0.2, 0.5, 0.9, 1.2, 1.5, 1.9, 2.2, 2.6, 2.9};

static const char *const kind_names[] = {"certain", "isotropic", "diagonal", "full"};

/*
 * the two products agree at the optimum of a smoothed problem, for random
 * directions, without and with row weights
 */
static void
test_active_matches_dense(void)
{
	int			kw;

	for (kw = 0; kw < 8; kw++)
	{
		int			kind = kw % 4,
					weighted = kw / 4;
		test_data	dt;
		int			d = 6;
		int64_t		n = quick ? 400 : 3000;
		double		theta[7] = {0},
					s[7],
					h1[7],
					h2[7],
					f;
		gsu_solve_options o;
		gsu_solve_result res;
		gsu_eval	ev;
		int			rep,
					j;

		make_data(&dt, n, d, &(test_rows) {.kind = kinds[kind], .shift = 2.0, .spread = 1.0, .vlo = 0.0,
				  .vhi = 2e-3, .wvals = weighted ? wvals : NULL, .nw = 10}, 1000 + kw);
		gsu_solve_options_default(&o);
		o.lambda = 1e-3;
		CHECK(gsu_solve_newton(&dt.ds, &o, theta, &res) == GSU_OK, "%s: solve", kind_names[kind]);
		CHECK(gsu_eval_init(&ev, &dt.ds, o.lambda) == GSU_OK, "init");
		/* a smoothing at which most rows are saturated, and one at which few are */
		for (rep = 0; rep < 2; rep++)
		{
			double		mu = rep == 0 ? 1e-4 : 1.0;
			int			t;

			gsu_eval_at(&ev, mu, theta, &f, NULL);
			if (rep == 0)
				CHECK(ev.nact <= n / 4, "%s: %lld active rows of %lld: the sparse path is not exercised",
					  kind_names[kind], (long long) ev.nact, (long long) n);
			else
				CHECK(ev.nact > n / 4, "%s: the dense path is not exercised", kind_names[kind]);
			for (t = 0; t < 5; t++)
			{
				double		scale = 0.0,
							err = 0.0;

				for (j = 0; j <= d; j++)
					s[j] = 2.0 * unif() - 1.0;
				ev.dense = 0;
				gsu_eval_hessvec(&ev, s, h1);
				ev.dense = 1;
				gsu_eval_hessvec(&ev, s, h2);
				for (j = 0; j <= d; j++)
				{
					scale = fmax(scale, fabs(h2[j]));
					err = fmax(err, fabs(h1[j] - h2[j]));
				}
				CHECK(err <= 1e-12 * fmax(scale, 1e-300), "%s mu %g: products differ by %g (scale %g)",
					  kind_names[kind], mu, err, scale);
			}
		}
		gsu_eval_free(&ev);
		test_data_free(&dt);
	}
}

static const gsu_test_case tests[] = {
	{"active_matches_dense", test_active_matches_dense},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
