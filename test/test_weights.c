/*
 * test_weights.c — row weights in the core: F(θ) = λ/2‖w‖² + (1/W)Σ c_i L_i.
 *
 * Checked against references computed here: the weighted objective against
 * a sum over rows of the per-row loss, its gradient and Hessian-vector
 * products against central finite differences; the solvers against the
 * problems weights are meant to be equal to (an integer weight k: k copies
 * of the row; weight 0: no row; all weights scaled: the same problem); the
 * exact hinge polish against its optimality conditions re-derived here
 * (α_i ∈ [0, c_i], w = (1/(λW))Σα_i y_i x_i, Σα_i y_i = 0).
 */
#include "gsu_core.h"
#include "gsu_objective.h"
#include "gsu_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The data sets (make_data, test/gsu_test.h): two overlapping classes, class +1
 * a quarter of the rows (so weights matter), random covariances; weights drawn
 * from wvals when weighted.
 */
#define WEIGHTED_ROWS(kind_, wvals_, nw_) \
	(&(test_rows) {.kind = (kind_), .shift = 0.8, .spread = 1.0, .vlo = 0.0, .vhi = 0.5, \
				   .pos_every = 4, .wvals = (wvals_), .nw = (nw_)})

/* The rows of a repeated round(c_i) times, unweighted (c_i integers). */
static void
expand(const test_data *a, test_data *b)
{
	int64_t		n = 0,
				i,
				m = 0;
	int			d = a->ds.d,
				k;
	gsu_cov_kind kind = a->c ? GSU_COV_FULL : a->v ? GSU_COV_DIAG : a->s ? GSU_COV_ISO : GSU_COV_NONE;

	for (i = 0; i < a->ds.n; i++)
		n += (int64_t) llround(a->w[i]);
	test_data_alloc(b, n, d, kind, 0);
	for (i = 0; i < a->ds.n; i++)
		for (k = 0; k < (int) llround(a->w[i]); k++, m++)
		{
			memcpy(b->x + m * d, a->x + i * d, sizeof(double) * d);
			b->y[m] = a->y[i];
			if (b->s)
				b->s[m] = a->s[i];
			if (b->v)
				memcpy(b->v + m * d, a->v + i * d, sizeof(double) * d);
			if (b->c)
				memcpy(b->c + m * d * d, a->c + i * d * d, sizeof(double) * d * d);
		}
}

/* Σ_i c_i L_i / Σ_i c_i + λ/2‖w‖², row by row with gsu_row_loss_grad. */
static double
ref_objective(const test_data *a, double lambda, double mu, const double *theta)
{
	int			d = a->ds.d;
	double	   *g = calloc(d + 1, sizeof(double));
	double	   *work = calloc(d, sizeof(double));
	long double sum = 0.0L,
				wsum = 0.0L,
				ww = 0.0L;
	int64_t		i;
	int			j;

	for (i = 0; i < a->ds.n; i++)
	{
		double		ci = a->w ? a->w[i] : 1.0;
		gsu_cov		c = gsu_cov_row(a->ds.cov_kind, a->ds.cov, d, 0, i);
		double		li = gsu_row_loss_grad(d, theta, a->x + i * d, &c, a->y[i], mu,
										   0.0, g, work);

		sum += (long double) ci * li;
		wsum += ci;
	}
	for (j = 0; j < d; j++)
		ww += (long double) theta[j] * theta[j];
	free(g);
	free(work);
	return (double) (0.5L * lambda * ww + sum / wsum);
}

static double
objective(const gsu_dataset *ds, double lambda, double mu, const double *theta)
{
	double		f = NAN;

	CHECK(gsu_objective(ds, lambda, mu, theta, &f, NULL) == GSU_OK, "objective failed");
	return f;
}

static void
random_theta(int m, double scale, uint64_t seed, double *theta)
{
	gsu_rng		r;
	int			j;

	gsu_rng_seed(&r, seed);
	for (j = 0; j < m; j++)
		theta[j] = scale * gsu_rng_normal(&r);
}

/* ------------------------------------------------------------- tests */

static const double wvals_mixed[] = {0.0, 0.25, 1.0, 2.5, 7.0};
static const double wvals_int[] = {0.0, 1.0, 2.0, 3.0};

/* value against the reference, gradient and Hessian products against FD */
static void
test_objective_derivatives(void)
{
	const gsu_cov_kind kinds[] = {GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL};
	const double mus[] = {0.3, 1e-2};
	int			kk,
				mm;

	for (kk = 0; kk < 4; kk++)
		for (mm = 0; mm < 2; mm++)
		{
			int			d = 5,
						m = d + 1,
						j,
						l;
			double		lambda = 0.05,
						mu = mus[mm];
			double		theta[6],
						g[6],
						e[6],
						dir[6],
						hs[6],
						gp[6],
						gm[6],
						f;
			test_data	a;
			gsu_eval	ev;

			make_data(&a, 60, d, WEIGHTED_ROWS(kinds[kk], wvals_mixed, 5), 11 + kk);
			random_theta(m, 0.4, 100 + kk, theta);

			CHECK(gsu_objective(&a.ds, lambda, mu, theta, &f, g) == GSU_OK, "eval");
			CHECK(fabs(f - ref_objective(&a, lambda, mu, theta)) <= 1e-12 * fmax(1.0, fabs(f)),
				  "kind %d mu %g: F %.17g vs reference %.17g", kk, mu, f,
				  ref_objective(&a, lambda, mu, theta));
			for (j = 0; j < m; j++)
			{
				double		h = 1e-5,
							fd;

				memcpy(e, theta, sizeof(e));
				e[j] += h;
				fd = objective(&a.ds, lambda, mu, e);
				e[j] -= 2 * h;
				fd = (fd - objective(&a.ds, lambda, mu, e)) / (2 * h);
				CHECK(fabs(fd - g[j]) <= 1e-7 * fmax(1.0, fabs(g[j])),
					  "kind %d mu %g: dF/dθ_%d %.12g vs FD %.12g", kk, mu, j, g[j], fd);
			}

			/* H·s against (∇F(θ + hs) − ∇F(θ − hs)) / 2h */
			random_theta(m, 1.0, 200 + kk, dir);
			CHECK(gsu_eval_init(&ev, &a.ds, lambda) == GSU_OK, "init");
			CHECK(gsu_eval_at(&ev, mu, theta, &f, g) == GSU_OK, "eval_at");
			gsu_eval_hessvec(&ev, dir, hs);
			{
				double		h = 1e-5;

				for (l = 0; l < m; l++)
					e[l] = theta[l] + h * dir[l];
				CHECK(gsu_objective(&a.ds, lambda, mu, e, &f, gp) == GSU_OK, "eval");
				for (l = 0; l < m; l++)
					e[l] = theta[l] - h * dir[l];
				CHECK(gsu_objective(&a.ds, lambda, mu, e, &f, gm) == GSU_OK, "eval");
				for (l = 0; l < m; l++)
				{
					double		fd = (gp[l] - gm[l]) / (2 * h);

					CHECK(fabs(fd - hs[l]) <= 2e-6 * fmax(1.0, fabs(hs[l])),
						  "kind %d mu %g: (Hs)_%d %.12g vs FD %.12g", kk, mu, l, hs[l], fd);
				}
			}
			gsu_eval_free(&ev);
			test_data_free(&a);
		}
}

/* F with integer weights equals F on the expanded rows, at any θ */
static void
test_objective_duplicates(void)
{
	int			d = 4,
				t;
	test_data	a,
				b;
	double		theta[5];

	make_data(&a, 50, d, WEIGHTED_ROWS(GSU_COV_DIAG, wvals_int, 4), 21);
	expand(&a, &b);
	for (t = 0; t < 5; t++)
	{
		double		fa,
					fb,
					ga[5],
					gb[5];
		int			j;

		random_theta(d + 1, 0.5, 300 + t, theta);
		CHECK(gsu_objective(&a.ds, 0.1, 0.0, theta, &fa, ga) == GSU_OK, "eval a");
		CHECK(gsu_objective(&b.ds, 0.1, 0.0, theta, &fb, gb) == GSU_OK, "eval b");
		CHECK(fabs(fa - fb) <= 1e-13 * fabs(fb), "F weighted %.17g vs copies %.17g", fa, fb);
		for (j = 0; j <= d; j++)
			CHECK(fabs(ga[j] - gb[j]) <= 1e-12 * fmax(1.0, fabs(gb[j])),
				  "grad_%d weighted %.17g vs copies %.17g", j, ga[j], gb[j]);
	}
	test_data_free(&a);
	test_data_free(&b);
}

/*
 * Newton: the optimum with integer weights is the optimum of the expanded
 * rows (weights 0 remove rows), for every covariance kind; the hinge case
 * goes through the exact polish and must agree to rounding.
 */
static void
test_newton_duplicates(void)
{
	const gsu_cov_kind kinds[] = {GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL};
	int			kk;

	for (kk = 0; kk < 4; kk++)
	{
		int			d = 4;
		test_data	a,
					b;
		double		ta[5] = {0},
					tb[5] = {0};
		gsu_solve_options o;
		gsu_solve_result ra,
					rb;
		double		tol;

		make_data(&a, quick ? 60 : 200, d, WEIGHTED_ROWS(kinds[kk], wvals_int, 4), 31 + kk);
		expand(&a, &b);
		gsu_solve_options_default(&o);
		o.lambda = 0.02;
		o.tolerance = 1e-8;
		CHECK(gsu_solve_newton(&a.ds, &o, ta, &ra) == GSU_OK, "newton weighted");
		CHECK(gsu_solve_newton(&b.ds, &o, tb, &rb) == GSU_OK, "newton copies");
		CHECK(ra.converged && rb.converged, "kind %d: converged %d %d", kk, ra.converged,
			  rb.converged);
		if (getenv("GSU_TEST_VERBOSE"))
			fprintf(stderr, "kind %d: |Δθ| %g, F %.17g %.17g, g %g %g\n", kk,
					max_abs_diff(d + 1, ta, tb), ra.objective, rb.objective,
					ra.gradient_norm, rb.gradient_norm);
		/* the hinge optimum is exact; the smoothed ones are within the solver's reach */
		tol = kinds[kk] == GSU_COV_NONE ? 1e-9 : 1e-5;
		CHECK(max_abs_diff(d + 1, ta, tb) <= tol, "kind %d: θ differ by %g", kk,
			  max_abs_diff(d + 1, ta, tb));
		CHECK(fabs(ra.objective - rb.objective) <= 1e-9 * rb.objective,
			  "kind %d: F %.17g vs %.17g", kk, ra.objective, rb.objective);
		test_data_free(&a);
		test_data_free(&b);
	}
}

/*
 * Weight 0 removes a row: rows that would dominate the fit (far outliers
 * with the wrong label) change nothing when their weight is 0; and scaling
 * every weight by a constant leaves the problem unchanged.
 */
static void
test_zero_and_scale(void)
{
	const gsu_cov_kind kinds[] = {GSU_COV_NONE, GSU_COV_DIAG};
	int			kk;

	for (kk = 0; kk < 2; kk++)
	{
		int			d = 3,
					n = 80,
					extra = 10,
					i,
					j;
		test_data	a,
					b,
					c;
		double		ta[4] = {0},
					tb[4] = {0},
					tc[4] = {0};
		gsu_solve_options o;
		gsu_solve_result r;

		make_data(&a, n, d, WEIGHTED_ROWS(kinds[kk], NULL, 0), 41 + kk);
		test_data_alloc(&b, n + extra, d, kinds[kk], 1);
		test_data_alloc(&c, n, d, kinds[kk], 1);
		memcpy(b.x, a.x, sizeof(double) * n * d);
		memcpy(b.y, a.y, sizeof(double) * n);
		memcpy(c.x, a.x, sizeof(double) * n * d);
		memcpy(c.y, a.y, sizeof(double) * n);
		if (a.v)
		{
			memcpy(b.v, a.v, sizeof(double) * n * d);
			memcpy(c.v, a.v, sizeof(double) * n * d);
		}
		for (i = 0; i < n; i++)
		{
			b.w[i] = 1.0;
			c.w[i] = 3.7;
		}
		for (i = n; i < n + extra; i++)
		{
			b.y[i] = 1.0;
			for (j = 0; j < d; j++)
			{
				b.x[i * d + j] = -50.0;
				if (b.v)
					b.v[i * d + j] = 4.0;
			}
			b.w[i] = 0.0;
		}
		gsu_solve_options_default(&o);
		o.lambda = 0.01;
		o.tolerance = 1e-9;
		CHECK(gsu_solve_newton(&a.ds, &o, ta, &r) == GSU_OK, "plain");
		CHECK(gsu_solve_newton(&b.ds, &o, tb, &r) == GSU_OK, "zero-weight outliers");
		CHECK(gsu_solve_newton(&c.ds, &o, tc, &r) == GSU_OK, "scaled");
		CHECK(max_abs_diff(d + 1, ta, tb) <= 1e-6, "kind %d: weight-0 rows moved θ by %g",
			  kk, max_abs_diff(d + 1, ta, tb));
		CHECK(max_abs_diff(d + 1, ta, tc) <= 1e-6, "kind %d: scaled weights moved θ by %g",
			  kk, max_abs_diff(d + 1, ta, tc));
		/* pegasos never draws a row of weight 0: it fits the rows without the outliers */
		{
			double		tp[4] = {0},
						fa = 0.0,
						fp = 0.0;
			gsu_solve_result rp;

			o.epochs = 50;
			CHECK(gsu_solve_pegasos(&b.ds, &o, tp, &rp) == GSU_OK, "pegasos");
			fa = objective(&a.ds, o.lambda, 0.0, ta);
			fp = objective(&a.ds, o.lambda, 0.0, tp);
			CHECK(fp <= 1.05 * fa, "kind %d: pegasos with weight-0 outliers F %g vs %g", kk, fp, fa);
			CHECK(fabs(rp.objective - fp) <= 1e-12 * fp, "kind %d: reported F %g vs %g", kk,
				  rp.objective, fp);
		}
		test_data_free(&a);
		test_data_free(&b);
		test_data_free(&c);
	}
}

/*
 * Hinge with fractional weights: the polished optimum satisfies the
 * optimality conditions with α_i ∈ [0, c_i], recovered here from the
 * margins: α_i = c_i where d_i > 0, 0 where d_i < 0, and on the margin
 * the least-squares solution of w = (1/(λW))Σα_i y_i x_i, Σα_i y_i = 0.
 * Checked instead through what they imply and does not need α: the
 * objective does not decrease along any direction (convex, so optimal),
 * with the one-sided directional derivative computed exactly from the sets.
 */
static void
test_polish_kkt(void)
{
	int			d = 4,
				n = quick ? 80 : 300,
				t;
	test_data	a;
	double		theta[5] = {0};
	double		total = 0.0;
	gsu_solve_options o;
	gsu_solve_result r;
	int64_t		i;
	int			j;

	make_data(&a, n, d, WEIGHTED_ROWS(GSU_COV_NONE, wvals_mixed, 5), 51);
	for (i = 0; i < n; i++)
		total += a.w[i];
	gsu_solve_options_default(&o);
	o.lambda = 0.01;
	o.tolerance = 1e-9;
	CHECK(gsu_solve_newton(&a.ds, &o, theta, &r) == GSU_OK, "newton");
	CHECK(r.converged, "not converged");
	/* the polish certified its duality gap */
	CHECK(r.gap_estimate <= 1e-9 * fmax(1.0, r.objective), "gap %g", r.gap_estimate);

	/*
	 * F'(θ; s) = λwᵀs_w + (1/W)[Σ_{d_i>0} c_i g_iᵀs + Σ_{d_i=0} c_i max(0, g_iᵀs)],
	 * g_i = −y_i(x_i, 1): must be ≥ 0 for every s at the optimum.
	 */
	for (t = 0; t < 200; t++)
	{
		double		s[5],
					dd = 0.0;

		random_theta(d + 1, 1.0, 600 + t, s);
		for (j = 0; j < d; j++)
			dd += o.lambda * theta[j] * s[j];
		for (i = 0; i < n; i++)
		{
			double		z = theta[d],
						gs = -a.y[i] * s[d];

			for (j = 0; j < d; j++)
			{
				z += a.x[i * d + j] * theta[j];
				gs -= a.y[i] * a.x[i * d + j] * s[j];
			}
			z = 1.0 - a.y[i] * z;
			if (a.w[i] == 0.0)
				continue;
			if (z > 1e-9)
				dd += a.w[i] * gs / total;
			else if (z >= -1e-9)
				dd += a.w[i] * fmax(0.0, gs) / total;
		}
		CHECK(dd >= -1e-8, "direction %d: F' = %g < 0", t, dd);
	}
	test_data_free(&a);
}

/* Pegasos with weights approaches the weighted optimum */
static void
test_pegasos_weighted(void)
{
	int			d = 4;
	test_data	a;
	double		tn[5] = {0},
				tp[5] = {0};
	gsu_solve_options o;
	gsu_solve_result rn,
				rp;

	make_data(&a, quick ? 100 : 400, d, WEIGHTED_ROWS(GSU_COV_DIAG, wvals_mixed, 5), 61);
	gsu_solve_options_default(&o);
	o.lambda = 0.05;
	o.epochs = quick ? 50 : 200;
	o.batch_size = 4;
	CHECK(gsu_solve_newton(&a.ds, &o, tn, &rn) == GSU_OK, "newton");
	CHECK(gsu_solve_pegasos(&a.ds, &o, tp, &rp) == GSU_OK, "pegasos");
	CHECK(rp.objective - rn.objective <= 0.02 * rn.objective,
		  "pegasos F %.6g vs optimum %.6g", rp.objective, rn.objective);
	CHECK(rp.objective >= rn.objective - 1e-9 * rn.objective,
		  "pegasos F %.17g below the optimum %.17g", rp.objective, rn.objective);
	test_data_free(&a);
}

/* the SGD step's scale multiplies the loss term only: scale 0 only shrinks */
static void
test_sgd_scaled(void)
{
	int			d = 3,
				j;
	double		x[3] = {0.5, -1.0, 2.0},
				v[3] = {0.1, 0.2, 0.3},
				ta[4] = {0.1, 0.2, -0.3, 0.05},
				tb[4],
				tc[4],
				work[3];
	double		la,
				lb;

	memcpy(tb, ta, sizeof(ta));
	memcpy(tc, ta, sizeof(ta));
	la = gsu_sgd_step(d, ta, 0.1, 7, x, DIAG_COV(v), -1.0, 0.5, work);
	lb = gsu_sgd_step(d, tb, 0.1, 7, x, DIAG_COV(v), -1.0, 0.25, work);
	CHECK(la == lb, "the loss before the step depends on the scale: %.17g %.17g", la, lb);
	(void) gsu_sgd_step(d, tc, 0.1, 7, x, DIAG_COV(v), -1.0, 0.0, work);
	/* no projection at these scales: the step is linear in the scale */
	for (j = 0; j <= d; j++)
		CHECK_CLOSE(ta[j] - tc[j], 2.0 * (tb[j] - tc[j]), 1e-15);
	/* w ← (1 − η_tλ)w with η_tλ = 1/t (‖w‖ stays inside the ball) */
	for (j = 0; j < d; j++)
		CHECK_CLOSE(tc[j], (6.0 / 7.0) * (j == 0 ? 0.1 : j == 1 ? 0.2 : -0.3), 1e-15);
	CHECK(tc[d] == 0.05, "bias moved with scale 0");
}

/* invalid weights are GSU_EINVAL, never a NaN model */
static void
test_invalid_weights(void)
{
	int			d = 2;
	test_data	a;
	double		theta[3] = {0},
				f;
	gsu_solve_options o;
	gsu_solve_result r;
	const double bad[] = {-1.0, NAN, INFINITY};
	int			k;
	int64_t		i;

	make_data(&a, 10, d, WEIGHTED_ROWS(GSU_COV_NONE, wvals_int, 4), 71);
	gsu_solve_options_default(&o);
	for (k = 0; k < 3; k++)
	{
		a.w[3] = bad[k];
		CHECK(gsu_objective(&a.ds, 0.1, 0.0, theta, &f, NULL) == GSU_EINVAL, "objective %g", bad[k]);
		CHECK(gsu_solve_newton(&a.ds, &o, theta, &r) == GSU_EINVAL, "newton %g", bad[k]);
		CHECK(gsu_solve_pegasos(&a.ds, &o, theta, &r) == GSU_EINVAL, "pegasos %g", bad[k]);
	}
	for (i = 0; i < a.ds.n; i++)
		a.w[i] = 0.0;
	CHECK(gsu_solve_newton(&a.ds, &o, theta, &r) == GSU_EINVAL, "all zero");
	CHECK(gsu_solve_pegasos(&a.ds, &o, theta, &r) == GSU_EINVAL, "all zero");
	test_data_free(&a);
}

static const gsu_test_case tests[] = {
	{"objective_derivatives", test_objective_derivatives},
	{"objective_duplicates", test_objective_duplicates},
	{"newton_duplicates", test_newton_duplicates},
	{"zero_and_scale", test_zero_and_scale},
	{"polish_kkt", test_polish_kkt},
	{"pegasos_weighted", test_pegasos_weighted},
	{"sgd_scaled", test_sgd_scaled},
	{"invalid_weights", test_invalid_weights},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
