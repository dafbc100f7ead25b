/*
 * test_polish.c — unit tests of gsu_polish.c: the exact minimizer of the
 * hinge-loss SVM λ/2‖w‖² + (1/W)Σ c_i max(0, 1 − y_i(x_iᵀw + b)) from an
 * approximate one.
 *
 * References: a two-point problem solved by hand, and a 2-D problem solved
 * here by nested ternary searches of the (convex) objective over w₁, w₂, b;
 * the polished point must match it, have a tiny certified gap, and be
 * no worse than any nearby point.  Every case runs both finishes, the
 * active-set gsu_hinge_polish and the interior-point gsu_hinge_polish_band
 * (without coordinate descent's α); on a larger problem the band's rounds
 * (rows joining from a rough start) reach the active set's optimum, with
 * and without an α to start from, and at a large C.  Deterministic.
 */
#include "gsu_polish.h"
#include "gsu_test.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef int (*polish_fn) (const gsu_dataset *ds, double lambda, double tau, int max_rounds,
						  double *theta, double *gap, double *kkt, gsu_progress_fn progress,
						  void *progress_arg);

/* the band's polish without an α from coordinate descent */
static int
band_from_margins(const gsu_dataset *ds, double lambda, double tau, int max_rounds,
				  double *theta, double *gap, double *kkt, gsu_progress_fn progress,
				  void *progress_arg)
{
	return gsu_hinge_polish_band(ds, lambda, NULL, 1.0, tau, max_rounds, theta, gap, kkt,
								 progress, progress_arg);
}

static const polish_fn polishes[2] = {gsu_hinge_polish, band_from_margins};
static const char *const polish_names[2] = {"active set", "band"};

static double
primal(const gsu_dataset *ds, double lambda, const double *th)
{
	double		s = 0.0,
				w2 = 0.0,
				tot = 0.0;

	for (int j = 0; j < ds->d; j++)
		w2 += th[j] * th[j];
	for (int64_t i = 0; i < ds->n; i++)
	{
		double		z = th[ds->d],
					c = ds->weight ? ds->weight[i] : 1.0;

		for (int j = 0; j < ds->d; j++)
			z += ds->x[i * ds->d + j] * th[j];
		s += c * fmax(0.0, 1.0 - ds->y[i] * z);
		tot += c;
	}
	return 0.5 * lambda * w2 + s / tot;
}

/* min over th[k] of primal, th[k+1..] minimized inside, by ternary search */
static double
ternary(const gsu_dataset *ds, double lambda, double *th, int k, int iters)
{
	double		lo = -6.0,
				hi = 6.0;

	for (int it = 0; it < iters; it++)
	{
		double		m1 = lo + (hi - lo) / 3.0,
					m2 = hi - (hi - lo) / 3.0,
					f1,
					f2;

		th[k] = m1;
		f1 = k == ds->d ? primal(ds, lambda, th) : ternary(ds, lambda, th, k + 1, iters);
		th[k] = m2;
		f2 = k == ds->d ? primal(ds, lambda, th) : ternary(ds, lambda, th, k + 1, iters);
		if (f1 < f2)
			hi = m2;
		else
			lo = m1;
	}
	th[k] = 0.5 * (lo + hi);
	return k == ds->d ? primal(ds, lambda, th) : ternary(ds, lambda, th, k + 1, iters);
}

/*
 * Both finishes from th on the two rows x = ±1, y = ±1 (and any of weight
 * 0), λ = 0.3: both rows are support vectors, w = 1, b = 0, α_1 = α_2 = λ,
 * P = λ/2
 */
static void
check_two_points(const gsu_dataset *ds, const double *th)
{
	for (int p = 0; p < 2; p++)
	{
		double		t[2] = {th[0], th[1]},
					gap = -1.0,
					kkt = -1.0;

		CHECK(polishes[p](ds, 0.3, 0.2, 20, t, &gap, &kkt, NULL, NULL) == 1, "%s: polish failed",
			  polish_names[p]);
		CHECK_CLOSE(t[0], 1.0, 1e-12);
		CHECK_CLOSE(t[1], 0.0, 1e-12);
		CHECK(gap >= -1e-12 && gap <= 1e-12, "%s: gap %g", polish_names[p], gap);
		CHECK(kkt >= 0.0 && kkt <= 1e-12, "%s: kkt %g", polish_names[p], kkt);
		CHECK_CLOSE(primal(ds, 0.3, t), 0.15, 1e-12);
	}
}

static void
test_two_points(void)
{
	const double x[2] = {1.0, -1.0},
				y[2] = {1.0, -1.0},
				th[2] = {0.9, 0.05};
	gsu_dataset ds = {2, 1, x, y, GSU_COV_NONE, NULL, NULL, 0};

	check_two_points(&ds, th);
}

/* a 2-D problem with overlapping classes, against the ternary search */
static void
test_against_ternary(void)
{
	enum
	{
	N = 16};
	double		x[2 * N],
				y[N],
				ref[3],
				th[3],
				gap,
				kkt,
				fp,
				fr;
	gsu_dataset ds = {N, 2, x, y, GSU_COV_NONE, NULL, NULL, 0};
	const double lambda = 0.05;
	int			iters = quick ? 45 : 70;

	for (int i = 0; i < N; i++)
	{
		y[i] = i % 2 ? 1.0 : -1.0;
		x[2 * i] = y[i] * 0.8 + 1.3 * sin(2.1 * i + 0.3);
		x[2 * i + 1] = 0.5 * y[i] + 1.1 * cos(1.7 * i);
	}
	fr = ternary(&ds, lambda, ref, 0, iters);
	for (int p = 0; p < 2; p++)
	{
		memcpy(th, ref, sizeof(th));
		CHECK(polishes[p](&ds, lambda, 1e-3, 50, th, &gap, &kkt, NULL, NULL) == 1,
			  "%s: polish failed from (%g, %g, %g)", polish_names[p], ref[0], ref[1], ref[2]);
		fp = primal(&ds, lambda, th);
		CHECK(fp <= fr + 1e-12, "%s: polished F %.17g above the search's %.17g", polish_names[p], fp, fr);
		CHECK(fr - fp < 1e-6, "%s: search F %.17g far above %.17g", polish_names[p], fr, fp);
		for (int j = 0; j < 3; j++)
			CHECK_CLOSE(th[j], ref[j], quick ? 1e-3 : 1e-5);
		CHECK(gap >= -1e-12 && gap <= 1e-9, "%s: gap %g", polish_names[p], gap);
		CHECK(kkt <= 1e-9, "%s: kkt %g", polish_names[p], kkt);
		/* from a rougher start (sets guessed with a wider τ): the same point */
		{
			double		t[3] = {ref[0] + 0.02, ref[1] - 0.01, ref[2] + 0.015};

			CHECK(polishes[p](&ds, lambda, 0.1, 50, t, &gap, &kkt, NULL, NULL) == 1,
				  "%s: polish failed from a rough start", polish_names[p]);
			for (int j = 0; j < 3; j++)
				CHECK_CLOSE(t[j], th[j], 1e-12);
		}
		/* no nearby point is lower: optimality without trusting either method */
		for (int k = 0; k < 64; k++)
		{
			double		u[3] = {sin(k + 0.5), cos(3.0 * k), sin(2.0 * k + 1.0)},
						t[3];

			for (int j = 0; j < 3; j++)
				t[j] = th[j] + 1e-4 * u[j];
			CHECK(primal(&ds, lambda, t) >= fp - 1e-13, "%s: direction %d lowers F", polish_names[p], k);
		}
	}
}

/* a row of weight 0 takes no part: the same minimizer as without it */
static void
test_zero_weight_row(void)
{
	const double x[3] = {1.0, -1.0, 5.0},
				y[3] = {1.0, -1.0, -1.0},
				c[3] = {1.0, 1.0, 0.0},
				th[2] = {0.95, -0.02};
	gsu_dataset ds = {3, 1, x, y, GSU_COV_NONE, NULL, c, 0};

	check_two_points(&ds, th);
}

/* failure leaves θ unchanged: progress says stop; no positive weight */
static void
test_failures_keep_theta(void)
{
	const double x[2] = {1.0, -1.0},
				y[2] = {1.0, -1.0},
				zero[2] = {0.0, 0.0};
	gsu_dataset ds = {2, 1, x, y, GSU_COV_NONE, NULL, NULL, 0};
	double		th[2] = {0.9, 0.05},
				gap = 7.0,
				kkt = 7.0;
	int			calls = 0;

	for (int p = 0; p < 2; p++)
	{
		ds.weight = NULL;
		calls = 0;
		CHECK(polishes[p](&ds, 0.3, 0.2, 20, th, &gap, &kkt, stop_now, &calls) == 0,
			  "%s: polish ignored the stop", polish_names[p]);
		CHECK(calls >= 1, "%s: progress never asked", polish_names[p]);
		CHECK(th[0] == 0.9 && th[1] == 0.05, "%s: theta changed: %g %g", polish_names[p], th[0], th[1]);
		ds.weight = zero;
		CHECK(polishes[p](&ds, 0.3, 0.2, 20, th, &gap, &kkt, NULL, NULL) == 0,
			  "%s: all-zero weights accepted", polish_names[p]);
		CHECK(th[0] == 0.9 && th[1] == 0.05, "%s: theta changed: %g %g", polish_names[p], th[0], th[1]);
	}
}

/*
 * 3000 noisy rows in 8 dimensions, some weighted 0 and some 3: from a rough
 * point with a narrow τ the band misses support rows, which join it in
 * later rounds; the band's optimum is the Newton solver's (finished by the
 * active set), both certified.  With and without weights, at λ = 1e-2 and
 * at 1e-4 (C·‖x‖² ≈ 10, where SMO crawled), without an α and with one that
 * puts some rows on the wrong side
 */
static void
test_band_rounds(void)
{
	enum
	{
	NR = 3000, DR = 8};
	double	   *x = malloc(sizeof(double) * NR * DR),
			   *y = malloc(sizeof(double) * NR),
			   *c = malloc(sizeof(double) * NR);
	gsu_dataset ds = {NR, DR, x, y, GSU_COV_NONE, NULL, NULL, 0};
	gsu_rng		r;

	gsu_rng_seed(&r, 5);
	for (int i = 0; i < NR; i++)
	{
		double		cl = i % 2 ? 1.0 : -1.0;

		for (int j = 0; j < DR; j++)
			x[i * DR + j] = 2.0 * gsu_rng_uniform(&r) - 1.0 + 0.15 * cl;
		y[i] = gsu_rng_uniform(&r) < 0.05 ? -cl : cl;
		c[i] = i % 7 == 0 ? 0.0 : i % 5 == 0 ? 3.0 : 1.0;
	}
	for (int k = 0; k < 8; k++)
	{
		int			weighted = k & 1,
					hinted = (k >> 1) & 1;
		double		lambda = k & 4 ? 1e-4 : 1e-2;
		double		ref[DR + 1] = {0},
					th[DR + 1],
					gap,
					kkt;
		double	   *hint = hinted ? malloc(sizeof(double) * NR) : NULL;

		gsu_solve_options o;
		gsu_solve_result res;

		ds.weight = weighted ? c : NULL;
		gsu_solve_options_default(&o);
		o.lambda = lambda;
		o.smoothing = 1e-8;
		CHECK(gsu_solve_newton(&ds, &o, ref, &res) == GSU_OK && res.gap_estimate <= 1e-9,
			  "case %d: newton (its active-set polish) failed, gap %g", k, res.gap_estimate);
		for (int j = 0; j <= DR; j++)
			th[j] = ref[j] * (1.0 + 0.05 * sin(j + 1.0)) + 0.01;
		/*
		 * the hint: the sides of the optimum's margins in units of 2.5, the
		 * rows on the margin inside, every 97th row on the wrong side
		 */
		for (int i = 0; hint && i < NR; i++)
		{
			double		di = 1.0 - y[i] * (ref[DR] + cblas_ddot(DR, x + i * DR, 1, ref, 1)),
						ci = ds.weight ? c[i] : 1.0;

			hint[i] = 2.5 * ci * (fabs(di) <= 1e-9 ? 0.5 : (di > 0.0) != (i % 97 == 0) ? 1.0 : 0.0);
		}
		CHECK(gsu_hinge_polish_band(&ds, lambda, hint, 2.5, 1e-3, 20, th, &gap, &kkt, NULL, NULL) == 1,
			  "case %d: band failed", k);
		CHECK(gap >= 0.0 && gap <= 1e-9 * primal(&ds, lambda, th), "case %d: gap %g", k, gap);
		CHECK(fabs(primal(&ds, lambda, th) - primal(&ds, lambda, ref)) <= 1e-10 * primal(&ds, lambda, ref),
			  "case %d: band F %.17g, active set %.17g", k, primal(&ds, lambda, th),
			  primal(&ds, lambda, ref));
		free(hint);
	}
	free(x);
	free(y);
	free(c);
}

static const gsu_test_case tests[] = {
	{"two_points", test_two_points},
	{"against_ternary", test_against_ternary},
	{"zero_weight_row", test_zero_weight_row},
	{"failures_keep_theta", test_failures_keep_theta},
	{"band_rounds", test_band_rounds},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
