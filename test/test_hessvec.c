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

static double
unif(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double) (z >> 11) * 0x1.0p-53;
}

typedef struct data
{
	gsu_dataset ds;
	double	   *x,
			   *y,
			   *s,
			   *v,
			   *c,
			   *wt;
} data;

/* kind: 0 certain rows, 1 isotropic, 2 diagonal, 3 full (a few rows uncertain, tiny variances) */
static void
make_data(data *dt, int64_t n, int d, int kind, int weighted)
{
	int64_t		i;
	int			j,
				k;

	memset(dt, 0, sizeof(*dt));
	dt->x = malloc(sizeof(double) * n * d);
	dt->y = malloc(sizeof(double) * n);
	for (i = 0; i < n; i++)
	{
		double		score = 0.0;

		for (j = 0; j < d; j++)
		{
			dt->x[i * d + j] = 2.0 * unif() - 1.0;
			score += dt->x[i * d + j] * (j + 1);
		}
		dt->y[i] = (score + 0.5 * (unif() - 0.5) > 0) ? 1.0 : -1.0;
	}
	if (kind == 1)
	{
		dt->s = malloc(sizeof(double) * n);
		for (i = 0; i < n; i++)
			dt->s[i] = 1e-6 * unif();
	}
	else if (kind == 2)
	{
		dt->v = malloc(sizeof(double) * n * d);
		for (i = 0; i < n * d; i++)
			dt->v[i] = 1e-6 * unif();
	}
	else if (kind == 3)
	{
		dt->c = calloc((size_t) n * d * d, sizeof(double));
		for (i = 0; i < n; i++)
		{
			/* Σ = a aᵀ + diag, symmetric PSD */
			double		a[16];

			for (j = 0; j < d; j++)
				a[j] = 1e-3 * (unif() - 0.5);
			for (j = 0; j < d; j++)
				for (k = 0; k < d; k++)
					dt->c[(i * d + j) * d + k] = a[j] * a[k] + (j == k ? 1e-7 : 0.0);
		}
	}
	dt->ds.n = n;
	dt->ds.d = d;
	dt->ds.x = dt->x;
	dt->ds.y = dt->y;
	test_set_cov(&dt->ds, dt->s, dt->v, dt->c);
	if (weighted)
	{
		/* weights in [0, 3), a tenth of them 0 */
		dt->wt = malloc(sizeof(double) * n);
		for (i = 0; i < n; i++)
			dt->wt[i] = i % 10 == 3 ? 0.0 : 3.0 * unif();
		dt->ds.weight = dt->wt;
	}
}

static void
free_data(data *dt)
{
	free(dt->x);
	free(dt->y);
	free(dt->s);
	free(dt->v);
	free(dt->c);
	free(dt->wt);
}

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
		data		dt;
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

		make_data(&dt, n, d, kind, weighted);
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
		free_data(&dt);
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
