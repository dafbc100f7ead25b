/*
 * test_core.c — unit tests of the numerical core (src/core), no PostgreSQL.
 *
 *   cc -std=c11 -O2 -g -Wall -Wextra -Werror -Isrc/core -o test/test_core
 *      test/test_core.c src/core/[*].c -lopenblas -lm     (from the top)
 *   ./test/test_core
 *
 * Every test checks the core against a reference computed here
 * independently (long double formulas, asymptotic series, Monte Carlo,
 * finite differences, a local xoshiro256** implementation), never against
 * the function under test.  Deterministic: fixed seeds throughout.  Set
 * GSU_TEST_QUICK=1 (e.g. under valgrind) to shrink the Monte Carlo sizes.
 *
 * Output: failure diagnostics on stderr, then exactly one line
 * "N passed, M failed" (counts of test functions) on stdout; the exit
 * status is non-zero when any test failed.
 */
#include "gsu_core.h"
#include "gsu_test.h"
#include "gsu_span.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- reference maths */

#define PI_L 3.141592653589793238462643383279502884L
#define SQRTPI_L 1.772453850905516027298167483341145182L

/*
 * h(u) directly, in long double: good for u ≥ −8 (the two terms cancel by a
 * factor ~2u², so the 64-bit mantissa keeps ~1e−17 relative accuracy).
 */
static long double
ref_h_direct(long double u)
{
	return u / 2 * erfcl(-u) + expl(-u * u) / (2 * SQRTPI_L);
}

/*
 * h(−t) for t > 0 from the asymptotic expansion of erfc:
 *   erfc(t) = e^{−t²}/(t√π) Σ_{k≥0} (−1)^k (2k−1)!!/(2t²)^k
 * so   h(−t) = e^{−t²}/(2√π) − t/2·erfc(t)
 *           = e^{−t²}/(2√π) Σ_{k≥1} (−1)^{k+1} (2k−1)!!/(2t²)^k.
 * The series is alternating with terms decreasing while 2k+1 < 2t², so the
 * error of a truncation is below the first omitted term.  The smallest
 * term, at k ≈ t², is about √2·e^{−t²}, i.e. ≈ 2t²·√2·e^{−t²} relative to
 * the sum: 3e−26 at t = 8.  Used for t ≥ 8; *ok says the terms fell below
 * 1e−20 relative before they started to grow.
 */
static long double
ref_h_neg_series(long double t, int *ok)
{
	long double x = 1 / (2 * t * t);
	long double term = x;		/* k = 1: 1!!/(2t²) */
	long double sum = 0;
	int			k;

	*ok = 0;
	for (k = 1; k < 2000; k++)
	{
		long double next = term * (2 * k + 1) * x;

		sum += (k % 2 == 1) ? term : -term;
		if (next > term)
			break;				/* past the smallest term: stop here */
		if (fabsl(next) < 1e-24L * fabsl(sum))
			break;
		term = next;
	}
	*ok = fabsl(term) < 1e-20L * fabsl(sum);
	return expl(-t * t) / (2 * SQRTPI_L) * sum;
}

static long double
ref_h(long double u)
{
	int			ok;

	if (u >= -8)
		return ref_h_direct(u);
	return ref_h_neg_series(-u, &ok);
}

/* the expected hinge L(dx, ds) = ds·h(dx/ds), or max(0, dx) for ds = 0 */
static long double
ref_loss(long double dx, long double ds)
{
	if (ds == 0)
		return dx > 0 ? dx : 0;
	return ds * ref_h(dx / ds);
}

/* Φ(z) = ½ erfc(−z/√2) */
static long double
ref_cdf(long double z)
{
	return 0.5L * erfcl(-z / sqrtl(2.0L));
}

/* reference row loss from (w, b, x, Σ, y), all long double */
static long double
ref_row_loss(int d, const double *theta, const double *x, const double *var,
			 double iso, double y, double mu)
{
	long double f = theta[d],
				quad = 0;
	int			j;

	for (j = 0; j < d; j++)
	{
		long double vj = var ? var[j] : iso;

		f += (long double) theta[j] * x[j];
		quad += vj * theta[j] * theta[j];
	}
	return ref_loss(1 - y * f, sqrtl(2 * quad + (long double) mu * mu));
}

/* F_μ(θ) by a plain loop in long double */
static long double
ref_objective(const gsu_dataset *ds, double lambda, double mu, const double *theta)
{
	long double sum = 0,
				ww = 0;
	int64_t		i;
	int			j,
				d = ds->d;

	for (i = 0; i < ds->n; i++)
	{
		gsu_cov		c = gsu_cov_row(ds->cov_kind, ds->cov, d, 0, i);

		sum += ref_row_loss(d, theta, ds->x + i * d,
							c.kind == GSU_COV_DIAG ? c.data : NULL, c.iso, ds->y[i], mu);
	}
	for (j = 0; j < d; j++)
		ww += (long double) theta[j] * theta[j];
	return lambda / 2.0L * ww + sum / ds->n;
}

static double
objective(const gsu_dataset *ds, double lambda, double mu, const double *theta)
{
	double		f = NAN;
	gsu_status	st = gsu_objective(ds, lambda, mu, theta, &f, NULL);

	if (st != GSU_OK)
		return NAN;
	return f;
}

/* central finite-difference gradient of gsu_objective's f */
static void
fd_gradient(const gsu_dataset *ds, double lambda, double mu,
			const double *theta, double step, double *g)
{
	int			m = ds->d + 1,
				k;
	double	   *t = malloc(sizeof(double) * m);

	memcpy(t, theta, sizeof(double) * m);
	for (k = 0; k < m; k++)
	{
		double		hk = step * fmax(1.0, fabs(theta[k]));
		double		fp,
					fm;

		t[k] = theta[k] + hk;
		fp = objective(ds, lambda, mu, t);
		t[k] = theta[k] - hk;
		fm = objective(ds, lambda, mu, t);
		t[k] = theta[k];
		g[k] = (fp - fm) / ((theta[k] + hk) - (theta[k] - hk));
	}
	free(t);
}

/* ---------------------------------------------------- 1. gsu_h */

static void
test_h(void)
{
	double		u;
	double		worst = 0.0,
				worst_u = 0.0;
	static const double neg[] = {-8.0, -9.0, -10.0, -12.5, -15.0,
	-20.0, -25.0, -26.0};
	int			i;

	/* [−5, 30] against the direct long double formula */
	for (i = 0; i <= 3500; i++)
	{
		double		got,
					ref,
					e;

		u = -5.0 + i * 0.01;
		got = gsu_h(u);
		ref = (double) ref_h_direct(u);
		e = reldiff(got, ref, 0.0);
		if (e > worst)
		{
			worst = e;
			worst_u = u;
		}
	}
	/* also points that are not on a decimal grid, around the branch at −2 */
	for (i = -100; i <= 100; i++)
	{
		double		got,
					ref,
					e;

		u = -2.0 + i * 1.0e-3 / 7.0;
		got = gsu_h(u);
		ref = (double) ref_h_direct(u);
		e = reldiff(got, ref, 0.0);
		if (e > worst)
		{
			worst = e;
			worst_u = u;
		}
	}
	CHECK(worst < 1e-12, "max relative error on [-5,30] = %.3g at u = %.17g",
		  worst, worst_u);

	/* the far negative tail against the asymptotic series */
	for (i = 0; i < (int) (sizeof(neg) / sizeof(neg[0])); i++)
	{
		int			ok;
		double		ref = (double) ref_h_neg_series(-(long double) neg[i], &ok);
		double		got = gsu_h(neg[i]);

		CHECK(ok, "reference series did not converge at t = %g", -neg[i]);
		CHECK(reldiff(got, ref, 0.0) < 1e-12,
			  "h(%g) = %.17g, series reference %.17g (rel %.3g)",
			  neg[i], got, ref, reldiff(got, ref, 0.0));
	}
	/* the series and the direct formula agree where both are valid */
	{
		int			ok;
		long double a = ref_h_neg_series(8.5L, &ok);
		long double b = ref_h_direct(-8.5L);

		CHECK(ok && fabsl(a - b) <= 1e-15L * fabsl(a),
			  "reference self-check: series %.20Lg direct %.20Lg", a, b);
	}
	/* a grid of the tail: direct formula to −8, the series beyond */
	for (u = -26.0; u <= -5.0; u += 0.37)
	{
		double		ref = (double) ref_h(u);
		double		got = gsu_h(u);

		CHECK(reldiff(got, ref, 0.0) < 1e-12,
			  "h(%.17g) = %.17g, ref %.17g", u, got, ref);
	}
	/* deeper: values become subnormal or 0; check absolutely */
	for (u = -45.0; u < -26.0; u += 0.5)
	{
		double		ref = (double) ref_h(u);
		double		got = gsu_h(u);

		CHECK(got >= 0.0 && fabs(got - ref) <= 1e-305,
			  "h(%g) = %.6g, ref %.6g", u, got, ref);
	}

	/* h(u) ≥ max(u, 0), monotone, and h(u) − u = h(−u) → 0 */
	{
		double		prev = -1.0;

		for (u = -50.0; u <= 60.0; u += 0.0625)
		{
			double		hu = gsu_h(u);

			CHECK(hu >= 0.0 && hu >= u, "h(%g) = %.17g below max(u,0)", u, hu);
			CHECK(hu >= prev, "h not monotone at u = %g: %.17g < %.17g",
				  u, hu, prev);
			prev = hu;
		}
		for (u = 0.5; u <= 5.0; u += 0.25)
		{
			double		lhs = gsu_h(u) - gsu_h(-u);

			CHECK(fabs(lhs - u) <= 4 * DBL_EPSILON * u,
				  "h(u) - h(-u) = %.17g, expected u = %g", lhs, u);
		}
		/* h(u) − u = h(−u) < 1e−40 for u ≥ 10: h(u) == u in double */
		for (u = 10.0; u <= 1000.0; u *= 1.7)
			CHECK(gsu_h(u) == u, "h(%g) = %.17g, expected exactly u", u, gsu_h(u));
	}

	/* extreme arguments: finite (or the exact limit), never NaN */
	CHECK(gsu_h(1e300) == 1e300, "h(1e300) = %g", gsu_h(1e300));
	CHECK(gsu_h(-1e300) == 0.0, "h(-1e300) = %g", gsu_h(-1e300));
	CHECK(gsu_h(-HUGE_VAL) == 0.0, "h(-inf) = %g", gsu_h(-HUGE_VAL));
	/* h(+inf) = +inf is the limit; at least it must not be NaN */
	CHECK(gsu_h(HUGE_VAL) == HUGE_VAL, "h(+inf) = %g", gsu_h(HUGE_VAL));
	CHECK(isnan(gsu_h(NAN)), "h(NaN) = %g", gsu_h(NAN));
	CHECK(gsu_h(0.0) == (double) (1 / (2 * SQRTPI_L)),
		  "h(0) = %.17g", gsu_h(0.0));
	CHECK(gsu_h(-DBL_MIN) > 0.0 && gsu_h(DBL_MIN) > 0.0, "h near 0");
}

/* ------------------------------------------- 2. expected hinge (MC) */

static void
test_expected_hinge_mc(void)
{
	struct
	{
		double		w[3],
					b,
					x[3],
					var[3],
					y;
	}			cfg[] = {
		{{0.8, -0.5, 0.3}, 0.1, {0.4, 0.2, -0.3}, {0.5, 0.8, 0.3}, 1.0},
		{{1.5, 0.7, -1.0}, -0.4, {0.1, 0.9, 0.5}, {0.2, 0.1, 0.6}, -1.0},
		{{0.3, 0.3, 0.3}, 0.0, {1.0, 1.5, 0.5}, {1.0, 2.0, 0.5}, 1.0},
	};
	int			ncfg = (int) (sizeof(cfg) / sizeof(cfg[0]));
	int			nsamp = quick ? 15000 : 60000;
	int			c;
	gsu_rng		r;

	gsu_rng_seed(&r, 20240501);
	for (c = 0; c < ncfg; c++)
	{
		const double *w = cfg[c].w,
				   *x = cfg[c].x,
				   *var = cfg[c].var;
		double		b = cfg[c].b,
					y = cfg[c].y;
		double		f = b,
					quad_ref = 0.0,
					dx,
					ds,
					p,
					q,
					L,
					sum = 0.0,
					sum2 = 0.0,
					mean,
					se;
		int			j,
					k;

		for (j = 0; j < 3; j++)
		{
			f += w[j] * x[j];
			quad_ref += var[j] * w[j] * w[j];
		}
		CHECK(reldiff(gsu_cov_quad(3, DIAG_COV(var), w, NULL), quad_ref, 0.0) < 1e-15,
			  "quad_diag = %.17g, expected %.17g",
			  gsu_cov_quad(3, DIAG_COV(var), w, NULL), quad_ref);
		dx = 1.0 - y * f;
		ds = sqrt(2.0 * gsu_cov_quad(3, DIAG_COV(var), w, NULL));
		L = gsu_expected_hinge(dx, ds, &p, &q);

		for (k = 0; k < nsamp; k++)
		{
			double		fz = b,
						loss;

			for (j = 0; j < 3; j++)
				fz += w[j] * (x[j] + sqrt(var[j]) * gsu_rng_normal(&r));
			loss = 1.0 - y * fz;
			if (loss < 0.0)
				loss = 0.0;
			sum += loss;
			sum2 += loss * loss;
		}
		mean = sum / nsamp;
		se = sqrt((sum2 / nsamp - mean * mean) / (nsamp - 1));
		CHECK(fabs(L - mean) <= 4.0 * se,
			  "config %d: L = %.6f, Monte Carlo %.6f ± %.6f (dx %.4f ds %.4f)",
			  c, L, mean, se, dx, ds);
		/* the smoothing must matter in these configs (test can fail) */
		CHECK(L - fmax(0.0, dx) > 10.0 * se,
			  "config %d: L - hinge = %.6f too small for a meaningful test",
			  c, L - fmax(0.0, dx));

		/* L vs the long double formula */
		CHECK(reldiff(L, (double) ref_loss(dx, ds), 0.0) < 1e-13,
			  "config %d: L = %.17g, ref %.17g", c, L, (double) ref_loss(dx, ds));

		/* p = ∂L/∂dx, q = ∂L/∂ds by central differences of the reference */
		{
			double		hx = 1e-5,
						hs = 1e-5;
			double		pfd = (double) ((ref_loss((long double) dx + hx, ds) -
										 ref_loss((long double) dx - hx, ds)) / (2 * hx));
			double		qfd = (double) ((ref_loss(dx, (long double) ds + hs) -
										 ref_loss(dx, (long double) ds - hs)) / (2 * hs));
			/* and by central differences of the function under test */
			double		pfd2 = (gsu_expected_hinge(dx + hx, ds, NULL, NULL) -
								gsu_expected_hinge(dx - hx, ds, NULL, NULL)) / (2 * hx);
			double		qfd2 = (gsu_expected_hinge(dx, ds + hs, NULL, NULL) -
								gsu_expected_hinge(dx, ds - hs, NULL, NULL)) / (2 * hs);

			CHECK(fabs(p - pfd) < 1e-8, "config %d: p = %.15g, FD %.15g", c, p, pfd);
			CHECK(fabs(q - qfd) < 1e-8, "config %d: q = %.15g, FD %.15g", c, q, qfd);
			CHECK(fabs(p - pfd2) < 1e-8, "config %d: p = %.15g, FD(impl) %.15g",
				  c, p, pfd2);
			CHECK(fabs(q - qfd2) < 1e-8, "config %d: q = %.15g, FD(impl) %.15g",
				  c, q, qfd2);
		}
	}

	/* p, q over a grid of (dx, ds) vs FD of the long double reference */
	{
		static const double dxs[] = {-3.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.5};
		static const double dss[] = {0.05, 0.3, 1.0, 4.0};
		int			a,
					bb;

		for (a = 0; a < 7; a++)
			for (bb = 0; bb < 4; bb++)
			{
				double		dx = dxs[a],
							ds = dss[bb],
							p,
							q;
				long double hx = 1e-6L * ds;
				double		pfd,
							qfd;

				(void) gsu_expected_hinge(dx, ds, &p, &q);
				pfd = (double) ((ref_loss(dx + hx, ds) - ref_loss(dx - hx, ds)) / (2 * hx));
				qfd = (double) ((ref_loss(dx, ds + hx) - ref_loss(dx, ds - hx)) / (2 * hx));
				CHECK(fabs(p - pfd) < 1e-8 && fabs(q - qfd) < 1e-8,
					  "dx %g ds %g: p %.15g (FD %.15g) q %.15g (FD %.15g)",
					  dx, ds, p, pfd, q, qfd);
			}
	}
}

/* ---------------------------------------------- 3. the Σ → 0 limit */

static void
test_sigma_zero_limit(void)
{
	static const double dxs[] = {0.0, 1e-300, -1e-300, 1e-160, -1e-160,
		1e-10, -1e-10, 1e-3, -1e-3, 0.5, -0.5, 1.0, -1.0, 1e10, -1e10,
	1e300, -1e300};
	static const double dss[] = {0.0, 1e-300, 1e-200, 1e-150, 1e-100,
	1e-8, 1e-3, 1.0, 1e10, 1e300};
	int			ndx = (int) (sizeof(dxs) / sizeof(dxs[0]));
	int			nds = (int) (sizeof(dss) / sizeof(dss[0]));
	int			a,
				b;

	for (a = 0; a < ndx; a++)
		for (b = 0; b < nds; b++)
		{
			double		dx = dxs[a],
						ds = dss[b],
						p = NAN,
						q = NAN;
			double		L = gsu_expected_hinge(dx, ds, &p, &q);
			double		hinge = dx > 0.0 ? dx : 0.0;

			CHECK(isfinite(L) && isfinite(p) && isfinite(q),
				  "dx %g ds %g: L %g p %g q %g", dx, ds, L, p, q);
			CHECK(p >= 0.0 && p <= 1.0 && q >= 0.0 &&
				  q <= (double) (1 / (2 * SQRTPI_L)) * (1 + 1e-15),
				  "dx %g ds %g: p %g q %g out of range", dx, ds, p, q);
			if (ds <= GSU_DSIGMA_FLOOR)
			{
				CHECK(L == hinge, "dx %g ds %g: L = %.17g, expected hinge %.17g",
					  dx, ds, L, hinge);
				CHECK(q == 0.0 && p == (dx > 0.0 ? 1.0 : 0.0),
					  "dx %g ds %g: p %g q %g, expected hinge partials",
					  dx, ds, p, q);
			}
			else
			{
				/* 0 ≤ L − max(0, dx) ≤ ds·exp(−u²)/(2√π) */
				long double u = (long double) dx / ds;
				long double bound = ds * expl(-u * u) / (2 * SQRTPI_L);

				CHECK(L >= hinge * (1 - 4 * DBL_EPSILON),
					  "dx %g ds %g: L = %.17g below hinge %.17g", dx, ds, L, hinge);
				CHECK((long double) L - hinge <= bound * (1 + 1e-13L) +
					  4 * DBL_EPSILON * hinge + 1e-300L,
					  "dx %g ds %g: L - hinge = %.6Lg exceeds bound %.6Lg",
					  dx, ds, (long double) L - hinge, bound);
			}
		}

	/* small ds: the limit is approached, with the exact size at the kink */
	{
		static const double small[] = {1e-3, 1e-8};
		int			k;

		for (k = 0; k < 2; k++)
		{
			double		ds = small[k];
			double		L0 = gsu_expected_hinge(0.0, ds, NULL, NULL);

			CHECK(reldiff(L0, (double) (ds / (2 * SQRTPI_L)), 0.0) < 1e-14,
				  "L(0, %g) = %.17g, expected ds/(2 sqrt(pi))", ds, L0);
			CHECK(fabs(gsu_expected_hinge(1.0, ds, NULL, NULL) - 1.0) <= DBL_EPSILON,
				  "L(1, %g) = %.17g", ds, gsu_expected_hinge(1.0, ds, NULL, NULL));
			CHECK(gsu_expected_hinge(-1.0, ds, NULL, NULL) == 0.0,
				  "L(-1, %g) = %.17g", ds, gsu_expected_hinge(-1.0, ds, NULL, NULL));
			/* dx = ds: L = ds·h(1) */
			CHECK(reldiff(gsu_expected_hinge(ds, ds, NULL, NULL),
						  (double) (ds * ref_h_direct(1.0L)), 0.0) < 1e-14,
				  "L(ds, ds) at ds %g = %.17g", ds,
				  gsu_expected_hinge(ds, ds, NULL, NULL));
		}
	}
	/* the kink itself, ds = 0 */
	{
		double		p = -1,
					q = -1,
					L = gsu_expected_hinge(0.0, 0.0, &p, &q);

		CHECK(L == 0.0 && p == 0.0 && q == 0.0, "L(0,0) = %g p %g q %g", L, p, q);
	}
	/* NULL partial pointers are allowed */
	CHECK(gsu_expected_hinge(0.5, 0.5, NULL, NULL) > 0.5, "NULL p/q");
}

/* ------------------------------------ 4. objective and its gradient */

static void
check_objective_case(const char *name, const gsu_dataset *ds, double lambda,
					 double mu, uint64_t seed)
{
	int			m = ds->d + 1,
				trial,
				k;
	double	   *theta = malloc(sizeof(double) * m);
	double	   *g = malloc(sizeof(double) * m);
	double	   *gfd = malloc(sizeof(double) * m);
	gsu_rng		r;

	gsu_rng_seed(&r, seed);
	for (trial = 0; trial < 3; trial++)
	{
		double		f = NAN,
					fref,
					err = 0.0;
		gsu_status	st;

		for (k = 0; k < m; k++)
			theta[k] = 0.7 * gsu_rng_normal(&r);
		st = gsu_objective(ds, lambda, mu, theta, &f, g);
		CHECK(st == GSU_OK, "%s: status %s", name, gsu_status_string(st));

		fref = (double) ref_objective(ds, lambda, mu, theta);
		CHECK(reldiff(f, fref, 0.0) < 1e-12, "%s trial %d: f = %.17g, ref %.17g",
			  name, trial, f, fref);

		/* grad == NULL gives the same f */
		{
			double		f2 = NAN;

			st = gsu_objective(ds, lambda, mu, theta, &f2, NULL);
			CHECK(st == GSU_OK && f2 == f, "%s: f without grad %.17g vs %.17g",
				  name, f2, f);
		}

		fd_gradient(ds, lambda, mu, theta, 1e-6, gfd);
		for (k = 0; k < m; k++)
			err += (g[k] - gfd[k]) * (g[k] - gfd[k]);
		err = sqrt(err) / fmax(vnorm(m, gfd), 1e-300);
		CHECK(err < 1e-6, "%s trial %d: gradient rel error %.3g (|g| %.6g, |gfd| %.6g)",
			  name, trial, err, vnorm(m, g), vnorm(m, gfd));
	}
	free(theta);
	free(g);
	free(gfd);
}

static void
test_objective_gradient(void)
{
	test_data a,
				b,
				c;

	make_data(&a, 40, 4, &(test_rows) {.kind = GSU_COV_DIAG, .shift = 1.0, .spread = 1.0, .vlo = 0.05, .vhi = 0.8}, 11);
	make_data(&b, 40, 4, &(test_rows) {.kind = GSU_COV_ISO, .shift = 1.0, .spread = 1.0, .vlo = 0.05, .vhi = 0.8}, 12);
	make_data(&c, 40, 4, &(test_rows) {.kind = GSU_COV_NONE, .shift = 1.0, .spread = 1.0, .vlo = 0.0, .vhi = 0.0}, 13);

	check_objective_case("diag, mu=0.3", &a.ds, 0.1, 0.3, 101);
	check_objective_case("diag, mu=0", &a.ds, 0.1, 0.0, 102);
	check_objective_case("iso, mu=0", &b.ds, 0.05, 0.0, 103);
	check_objective_case("iso, mu=0.1", &b.ds, 0.05, 0.1, 104);
	check_objective_case("certain, mu=0.5", &c.ds, 0.1, 0.5, 105);
	check_objective_case("certain, mu=0.05", &c.ds, 0.1, 0.05, 106);

	/* a zero-variance row inside a diagonal dataset, μ = 0 (hinge branch) */
	{
		int			j;

		for (j = 0; j < 4; j++)
			a.v[3 * 4 + j] = 0.0;
		check_objective_case("diag with a certain row, mu=0", &a.ds, 0.1, 0.0, 107);
	}
	test_data_free(&a);
	test_data_free(&b);
	test_data_free(&c);
}

/* ------------------------------------------------------ 5. Newton */

static void
check_local_min(const char *name, const gsu_dataset *ds, double lambda,
				const double *theta, const double *sizes, int nsizes,
				uint64_t seed)
{
	int			m = ds->d + 1,
				k,
				s,
				dir;
	double		f0 = objective(ds, lambda, 0.0, theta);
	double	   *t = malloc(sizeof(double) * m);
	gsu_rng		r;

	gsu_rng_seed(&r, seed);
	for (s = 0; s < nsizes; s++)
		for (dir = 0; dir < 8; dir++)
		{
			double		nrm,
						f1;
			double	   *delta = malloc(sizeof(double) * m);

			for (k = 0; k < m; k++)
				delta[k] = gsu_rng_normal(&r);
			nrm = vnorm(m, delta);
			for (k = 0; k < m; k++)
				t[k] = theta[k] + sizes[s] * delta[k] / nrm;
			f1 = objective(ds, lambda, 0.0, t);
			CHECK(f0 <= f1, "%s: F(theta*) = %.17g > F(theta*+delta) = %.17g "
				  "(|delta| = %g)", name, f0, f1, sizes[s]);
			free(delta);
		}
	/* coordinate perturbations */
	for (k = 0; k < m; k++)
		for (s = 0; s < nsizes; s++)
		{
			double		fp,
						fm;

			memcpy(t, theta, sizeof(double) * m);
			t[k] += sizes[s];
			fp = objective(ds, lambda, 0.0, t);
			t[k] -= 2 * sizes[s];
			fm = objective(ds, lambda, 0.0, t);
			CHECK(f0 <= fp && f0 <= fm,
				  "%s: coordinate %d step %g: F %.17g, F+ %.17g, F- %.17g",
				  name, k, sizes[s], f0, fp, fm);
		}
	free(t);
}

static void
test_newton(void)
{
	test_data a,
				h;
	gsu_solve_options o;
	gsu_solve_result res,
				res2;
	gsu_status	st;
	int			d = 5,
				m = 6,
				k;
	double		theta[6],
				theta2[6],
				g[6],
				g0[6],
				zero[6] = {0};

	make_data(&a, 200, d, &(test_rows) {.kind = GSU_COV_DIAG, .shift = 0.6, .spread = 1.0, .vlo = 0.05, .vhi = 0.6}, 21);
	gsu_solve_options_default(&o);
	o.lambda = 1e-2;

	memset(theta, 0, sizeof(theta));
	st = gsu_solve_newton(&a.ds, &o, theta, &res);
	CHECK(st == GSU_OK, "newton status %s", gsu_status_string(st));
	CHECK(res.converged, "newton did not converge: |g| %.3g, |g0| %.3g, iters %lld",
		  res.gradient_norm, res.gradient_norm0, (long long) res.iterations);
	CHECK(res.gradient_norm <= o.tolerance * res.gradient_norm0,
		  "gradient_norm %.3g > tol * %.3g", res.gradient_norm, res.gradient_norm0);
	CHECK(reldiff(res.objective, objective(&a.ds, o.lambda, 0.0, theta), 0.0) < 1e-14,
		  "res.objective %.17g vs F(theta) %.17g", res.objective,
		  objective(&a.ds, o.lambda, 0.0, theta));
	/* the gap estimate is an upper bound on the real gap, and not absurd */
	{
		gsu_solve_options tight = o;
		gsu_solve_result rt;
		double		tt[6] = {0};

		tight.tolerance = 1e-10;
		tight.smoothing = 1e-8;
		st = gsu_solve_newton(&a.ds, &tight, tt, &rt);
		CHECK(st == GSU_OK, "tight newton status %s", gsu_status_string(st));
		CHECK(res.gap_estimate >= 0.0 && res.gap_estimate <= 1e-3,
			  "gap_estimate %.3g", res.gap_estimate);
		CHECK(res.objective - rt.objective <= res.gap_estimate + 1e-12,
			  "real gap %.3g exceeds gap_estimate %.3g",
			  res.objective - rt.objective, res.gap_estimate);
	}

	/* independent: FD gradient of F_μ at the result, relative to θ = 0 */
	fd_gradient(&a.ds, o.lambda, o.smoothing, theta, 1e-6, g);
	fd_gradient(&a.ds, o.lambda, o.smoothing, zero, 1e-6, g0);
	CHECK(vnorm(m, g) <= 1e-5 * vnorm(m, g0),
		  "FD gradient at the result %.3g (at 0: %.3g)", vnorm(m, g), vnorm(m, g0));
	{
		static const double sizes[] = {1e-3, 1e-2, 1e-1};

		check_local_min("newton diag", &a.ds, o.lambda, theta, sizes, 3, 31);
	}
	/* the result classifies the training data reasonably */
	{
		int			correct = 0;
		int64_t		i;

		for (i = 0; i < a.ds.n; i++)
			correct += (gsu_decision(d, theta, a.x + i * d) * a.y[i] > 0.0);
		CHECK(correct >= 150, "training accuracy %d/200", correct);
	}

	/* bit-identical on a second run */
	memset(theta2, 0, sizeof(theta2));
	st = gsu_solve_newton(&a.ds, &o, theta2, &res2);
	CHECK(st == GSU_OK && memcmp(theta, theta2, sizeof(theta)) == 0,
		  "second newton run differs");
	CHECK(memcmp(&res.objective, &res2.objective, sizeof(double)) == 0 &&
		  memcmp(&res.gradient_norm, &res2.gradient_norm, sizeof(double)) == 0 &&
		  res.iterations == res2.iterations && res.passes == res2.passes,
		  "second newton run reports differ");

	/* the hinge case: no covariance at all */
	make_data(&h, 200, d, &(test_rows) {.kind = GSU_COV_NONE, .shift = 0.6, .spread = 1.0, .vlo = 0.0, .vhi = 0.0}, 22);
	{
		double		th[6] = {0},
					tp[6] = {0};
		gsu_solve_result rp;
		gsu_solve_options op = o;
		static const double sizes[] = {3e-2, 1e-1};

		st = gsu_solve_newton(&h.ds, &o, th, &res);
		CHECK(st == GSU_OK, "newton hinge status %s", gsu_status_string(st));
		CHECK(res.converged, "newton hinge did not converge: |g| %.3g |g0| %.3g",
			  res.gradient_norm, res.gradient_norm0);
		check_local_min("newton hinge", &h.ds, o.lambda, th, sizes, 2, 32);

		op.epochs = quick ? 40 : 100;
		op.batch_size = 1;
		op.seed = 7;
		st = gsu_solve_pegasos(&h.ds, &op, tp, &rp);
		CHECK(st == GSU_OK, "pegasos status %s", gsu_status_string(st));
		{
			double		fn = objective(&h.ds, o.lambda, 0.0, th);
			double		fp = objective(&h.ds, o.lambda, 0.0, tp);

			CHECK(fn <= fp + 1e-9, "newton %.17g > pegasos %.17g", fn, fp);
			CHECK(fp - fn < 0.05 * fn, "pegasos %.17g far from newton %.17g", fp, fn);
		}
	}

	/* a bad argument is reported, not crashed on */
	{
		gsu_solve_options bad = o;
		double		tb[6] = {0};

		bad.lambda = 0.0;
		CHECK(gsu_solve_newton(&a.ds, &bad, tb, &res) == GSU_EINVAL,
			  "lambda = 0 not rejected");
	}
	for (k = 0; k < m; k++)
		CHECK(isfinite(theta[k]), "theta[%d] not finite", k);
	test_data_free(&a);
	test_data_free(&h);
}

/* ----------------------------------------------------- 6. Pegasos */

static void
test_pegasos(void)
{
	test_data a;
	gsu_solve_options o;
	gsu_solve_result r1,
				r2,
				r3;
	double		t1[5] = {0},
				t2[5] = {0},
				t3[5] = {0};
	int			d = 4;
	gsu_status	st;

	make_data(&a, 300, d, &(test_rows) {.kind = GSU_COV_DIAG, .shift = 1.5, .spread = 0.7, .vlo = 0.01, .vhi = 0.2}, 41);
	gsu_solve_options_default(&o);
	o.lambda = 0.05;
	o.epochs = 5;
	o.batch_size = 4;
	o.seed = 12345;

	st = gsu_solve_pegasos(&a.ds, &o, t1, &r1);
	CHECK(st == GSU_OK, "status %s", gsu_status_string(st));
	st = gsu_solve_pegasos(&a.ds, &o, t2, &r2);
	CHECK(st == GSU_OK && memcmp(t1, t2, sizeof(t1)) == 0,
		  "same seed, different theta");
	CHECK(memcmp(&r1.objective, &r2.objective, sizeof(double)) == 0,
		  "same seed, different objective");
	o.seed = 54321;
	st = gsu_solve_pegasos(&a.ds, &o, t3, &r3);
	CHECK(st == GSU_OK && memcmp(t1, t3, sizeof(t1)) != 0,
		  "different seed, identical theta");

	CHECK(vnorm(d, t1) <= 1.0 / sqrt(o.lambda) + 1e-12,
		  "|w| = %.17g > 1/sqrt(lambda) = %.17g", vnorm(d, t1), 1.0 / sqrt(o.lambda));
	CHECK(reldiff(r1.objective, objective(&a.ds, o.lambda, 0.0, t1), 0.0) < 1e-14,
		  "res.objective %.17g vs F %.17g", r1.objective,
		  objective(&a.ds, o.lambda, 0.0, t1));
	{
		int			correct = 0;
		int64_t		i;

		for (i = 0; i < a.ds.n; i++)
			correct += (gsu_decision(d, t1, a.x + i * d) * a.y[i] > 0.0);
		CHECK(correct >= 285, "training accuracy %d/300", correct);
	}
	/*
	 * Large features and a large λ make the projection bind (the unprojected
	 * iterate would be ~‖x‖/λ ≫ 1/√λ): ‖w‖ must sit on the ball.
	 */
	{
		test_data big;
		double		tt[5] = {0};
		double		radius;

		make_data(&big, 300, d, &(test_rows) {.kind = GSU_COV_DIAG, .shift = 100.0, .spread = 30.0, .vlo = 1.0, .vhi = 20.0}, 42);
		o.lambda = 50.0;
		o.seed = 3;
		o.epochs = 1;			/* one epoch of full batches: few steps */
		o.batch_size = 300;
		radius = 1.0 / sqrt(o.lambda);
		st = gsu_solve_pegasos(&big.ds, &o, tt, &r1);
		CHECK(st == GSU_OK && vnorm(d, tt) <= radius * (1 + 1e-12),
			  "|w| = %.17g > %.17g (lambda 50)", vnorm(d, tt), radius);
		CHECK(vnorm(d, tt) >= 0.5 * radius,
			  "test setup: projection does not bind (|w| = %.6g, radius %.6g)",
			  vnorm(d, tt), radius);
		test_data_free(&big);
	}
	test_data_free(&a);
}

/* -------------------------------------------------------- 7. SGD */

/* the largest dimension of the SGD tests' rows */
#define SGD_TEST_MAX_D 50

/* reference ∂L/∂θ by central differences of the long double loss */
static void
ref_row_grad(int d, const double *theta, const double *x, const double *var,
			 double iso, double y, long double *g)
{
	double		t[SGD_TEST_MAX_D + 1];
	int			k;

	for (k = 0; k <= d; k++)
	{
		double		hk = 1e-6;
		long double fp,
					fm;

		memcpy(t, theta, sizeof(double) * (d + 1));
		t[k] = theta[k] + hk;
		fp = ref_row_loss(d, t, x, var, iso, y, 0.0);
		t[k] = theta[k] - hk;
		fm = ref_row_loss(d, t, x, var, iso, y, 0.0);
		g[k] = (fp - fm) / ((long double) (theta[k] + hk) - (theta[k] - hk));
	}
}

static void
check_sgd_case(const char *name, int d, const double *theta0, double lambda,
			   int64_t t, const double *x, const double *var, double iso,
			   double y, int expect_projection)
{
	double		th[SGD_TEST_MAX_D + 1];
	long double g[SGD_TEST_MAX_D + 1],
				expect[SGD_TEST_MAX_D + 1],
				eta = 1.0L / (lambda * (long double) t),
				nrm2 = 0;
	double		loss,
				loss_ref;
	int			k,
				projected = 0;

	memcpy(th, theta0, sizeof(double) * (d + 1));
	loss_ref = (double) ref_row_loss(d, theta0, x, var, iso, y, 0.0);
	ref_row_grad(d, theta0, x, var, iso, y, g);
	for (k = 0; k < d; k++)
	{
		expect[k] = (1 - eta * lambda) * theta0[k] - eta * g[k];
		nrm2 += expect[k] * expect[k];
	}
	expect[d] = theta0[d] - eta * g[d];
	if (nrm2 * lambda > 1)
	{
		long double sc = 1 / sqrtl(nrm2 * lambda);

		projected = 1;
		for (k = 0; k < d; k++)
			expect[k] *= sc;
	}
	CHECK(expect_projection < 0 || projected == expect_projection,
		  "%s: test setup: projection %d", name, projected);

	loss = gsu_sgd_step(d, th, lambda, t, x, VI_COV(var, iso), y, 1.0, test_work());
	CHECK(reldiff(loss, loss_ref, 1e-300) < 1e-13, "%s: loss %.17g, ref %.17g",
		  name, loss, loss_ref);
	for (k = 0; k <= d; k++)
		CHECK(fabs(th[k] - (double) expect[k]) <= 1e-8 * fmax(1.0, fabsl(expect[k])),
			  "%s: theta[%d] = %.15g, expected %.15Lg", name, k, th[k], expect[k]);
	CHECK(vnorm(d, th) <= 1.0 / sqrt(lambda) * (1 + 1e-12),
		  "%s: |w| %.17g > %.17g", name, vnorm(d, th), 1.0 / sqrt(lambda));
}

static void
test_sgd_step(void)
{
	static const double th0[3] = {0.3, -0.2, 0.1};
	static const double x[2] = {1.0, 2.0};
	static const double var[2] = {0.5, 0.25};
	static const double xbig[2] = {5.0, 4.0};

	/* hand-made example: dx = 1 − (0.3 − 0.4 + 0.1) = 1, ds = √(2·0.055) */
	check_sgd_case("diag", 2, th0, 0.5, 25, x, var, 0.0, 1.0, 0);
	check_sgd_case("diag y=-1", 2, th0, 0.5, 25, x, var, 0.0, -1.0, 0);
	check_sgd_case("diag t=3", 2, th0, 0.5, 3, x, var, 0.0, 1.0, 1);
	check_sgd_case("iso", 2, th0, 0.5, 30, x, NULL, 0.3, 1.0, 0);
	check_sgd_case("certain", 2, th0, 0.5, 20, x, NULL, 0.0, 1.0, 0);
	check_sgd_case("projection", 2, th0, 0.5, 1, xbig, var, 0.0, 1.0, 1);

	/* certain row with the margin satisfied: only the shrink applies */
	{
		double		th[3] = {0.3, -0.2, 0.1};
		static const double xs[2] = {10.0, -5.0};	/* f = 4.1, dx = −3.1 */
		double		loss = gsu_sgd_step(2, th, 0.5, 4, xs, ISO_COV(0.0), 1.0, 1.0, test_work());

		CHECK(loss == 0.0, "satisfied margin: loss %g", loss);
		CHECK(th[0] == 0.3 * 0.75 && th[1] == -0.2 * 0.75 && th[2] == 0.1,
			  "satisfied margin: theta (%.17g, %.17g, %.17g)", th[0], th[1], th[2]);
	}

	/* many random steps: the ball constraint holds after each */
	{
		gsu_rng		r;
		double		th[4] = {0},
					xs[3],
					vs[3],
					lambda = 0.01;
		int64_t		t;
		int			j,
					bad = 0;

		gsu_rng_seed(&r, 77);
		for (t = 1; t <= 2000; t++)
		{
			double		y = gsu_rng_uniform(&r) < 0.5 ? -1.0 : 1.0;

			for (j = 0; j < 3; j++)
			{
				xs[j] = 3.0 * y + 4.0 * gsu_rng_normal(&r);
				vs[j] = gsu_rng_uniform(&r);
			}
			(void) gsu_sgd_step(3, th, lambda, t, xs,
								VI_COV((t % 3) ? vs : NULL, (t % 3) ? 0.0 : 0.5), y,
								1.0, test_work());
			if (!(vnorm(3, th) <= 1.0 / sqrt(lambda) * (1 + 1e-12)) ||
				!isfinite(th[3]))
				bad++;
		}
		CHECK(bad == 0, "%d steps left |w| > 1/sqrt(lambda) or b non-finite", bad);
	}
}

/*
 * The SGD step as gsu_sgd_step computed it before its fused kernel (commit
 * 9164f5a): the margin, Σw and wᵀΣw by gsu_decision and gsu_cov_quad, the
 * update, then ‖w‖² by gsu_dot.  The kernel claims the same products summed
 * in the same order; this test build does not contract a·b + c into fused
 * multiply-adds (-std=c11: -ffp-contract=off), so the two must agree to the
 * bit.
 */
static double
unfused_sgd_step(int d, double *theta, double lambda, int64_t t, const double *x,
				 const gsu_cov *cov, double y, double scale)
{
	double		sw[SGD_TEST_MAX_D];
	double		eta = 1.0 / (lambda * (double) t);
	double		eta_c = eta * scale;
	double		dx = 1.0 - y * gsu_decision(d, theta, x);
	double		ds = sqrt(2.0 * fmax(gsu_cov_quad(d, cov, theta, sw), 0.0));
	double		p,
				q,
				loss = gsu_expected_hinge(dx, ds, &p, &q);
	double		shrink = 1.0 - eta * lambda;
	double		cs = q > 0.0 ? 2.0 * q / ds : 0.0;
	double		norm2;
	int			j;

	for (j = 0; j < d; j++)
		theta[j] = shrink * theta[j] - eta_c * (cs * sw[j] - p * y * x[j]);
	theta[d] += eta_c * p * y;
	norm2 = gsu_dot(d, theta, theta, NULL);
	if (norm2 * lambda > 1.0)
	{
		double		radius_scale = 1.0 / sqrt(norm2 * lambda);

		for (j = 0; j < d; j++)
			theta[j] *= radius_scale;
	}
	return loss;
}

/*
 * The step and the gradient of a row with a diagonal, isotropic or no
 * covariance run fused, vectorized kernels over blocks of 8 (the step) or 4
 * (the gradient) elements and a rest; the cases above, at d = 2, are all
 * rest.  At d = 8, 13 and 50 and for each kind of covariance: the step
 * against the long double reference, to the bit against the unfused step
 * and to rounding against the same covariance given as a full matrix (the
 * BLAS path); the gradient to the bit against gsu_row_loss_grad's unfused
 * sums, with its finiteness flag, its canonical zeros and its refusal of a
 * full covariance.
 */
static void
test_sgd_step_blocks(void)
{
	static const int dims[3] = {8, 13, SGD_TEST_MAX_D};
	gsu_rng		r;
	int			di;

	gsu_rng_seed(&r, 4242);
	for (di = 0; di < 3; di++)
	{
		int			d = dims[di];
		double		th0[SGD_TEST_MAX_D + 1],
					x[SGD_TEST_MAX_D],
					var[SGD_TEST_MAX_D],
					full[SGD_TEST_MAX_D * SGD_TEST_MAX_D];
		int			kind,
					j;

		for (j = 0; j < d; j++)
		{
			th0[j] = 0.3 * gsu_rng_normal(&r);
			x[j] = gsu_rng_normal(&r) / sqrt((double) d);
			var[j] = 0.05 + gsu_rng_uniform(&r);
		}
		th0[d] = 0.1;
		/* kind 0: diag(var); 1: 0.4·I; 2: 0·I; 3: no covariance (GSU_COV_NONE) */
		for (kind = 0; kind < 4; kind++)
		{
			const double *v = kind == 0 ? var : NULL;
			double		iso = kind == 1 ? 0.4 : 0.0;
			gsu_cov		cov = {kind == 0 ? GSU_COV_DIAG : kind == 3 ? GSU_COV_NONE : GSU_COV_ISO,
				iso, v, 0};
			char		name[64];
			double		ta[SGD_TEST_MAX_D + 1],
						tb[SGD_TEST_MAX_D + 1],
						tc[SGD_TEST_MAX_D + 1],
						ga[SGD_TEST_MAX_D + 1],
						gb[SGD_TEST_MAX_D + 1],
						la,
						lb,
						lc,
						quad = -1.0;
			int			t,
						m,
						finite = -1,
						same = 1;

			snprintf(name, sizeof(name), "d=%d kind=%d", d, kind);
			if (kind < 3)
			{
				/* a late step (no projection) and the first one (projected) */
				check_sgd_case(name, d, th0, 0.1, 1000, x, v, iso, 1.0, 0);
				check_sgd_case(name, d, th0, 0.1, 1000, x, v, iso, -1.0, 0);
				check_sgd_case(name, d, th0, 0.01, 1, x, v, iso, 1.0, 1);
			}

			/* 40 steps: unfused (to the bit) and through the full-covariance path */
			memset(full, 0, sizeof(double) * d * d);
			for (j = 0; j < d; j++)
				full[j * d + j] = v ? v[j] : iso;
			memcpy(ta, th0, sizeof(double) * (d + 1));
			memcpy(tb, th0, sizeof(double) * (d + 1));
			memcpy(tc, th0, sizeof(double) * (d + 1));
			for (t = 1; t <= 40; t++)
			{
				double		y = (t % 3) ? 1.0 : -1.0;

				la = gsu_sgd_step(d, ta, 0.05, t, x, &cov, y, 0.7, test_work());
				lb = gsu_sgd_step(d, tb, 0.05, t, x, FULL_COV(full), y, 0.7, test_work());
				lc = unfused_sgd_step(d, tc, 0.05, t, x, &cov, y, 0.7);
				CHECK(reldiff(la, lb, 1e-300) < 1e-12, "%s step %d: loss %.17g, full %.17g",
					  name, t, la, lb);
				same &= la == lc && memcmp(ta, tc, sizeof(double) * (d + 1)) == 0;
			}
			CHECK(same, "%s: the fused step differs from the unfused one", name);
			for (j = 0; j <= d; j++)
				CHECK(fabs(ta[j] - tb[j]) <= 1e-12 * fmax(1.0, fabs(tb[j])),
					  "%s: theta[%d] %.17g, full path %.17g", name, j, ta[j], tb[j]);

			/* the gradient kernel against the unfused sums, with μ 0 and 0.1 */
			for (m = 0; m < 2; m++)
			{
				double		mu = m ? 0.1 : 0.0;

				for (j = 0; j <= d; j++)
					ga[j] = gb[j] = 0.5 * j - 3.0;
				la = gsu_row_loss_grad_diag(d, th0, x, &cov, -1.0, mu, 2.5, ga, &quad, &finite);
				lb = gsu_row_loss_grad(d, th0, x, &cov, -1.0, mu, 2.5, gb, test_work());
				CHECK(finite == 1, "%s: finite flag %d", name, finite);
				CHECK(la == lb, "%s mu=%g: loss %.17g, unfused %.17g", name, mu, la, lb);
				CHECK(quad == gsu_cov_quad(d, &cov, th0, NULL), "%s: quad %.17g", name, quad);
				CHECK(memcmp(ga, gb, sizeof(double) * (d + 1)) == 0,
					  "%s mu=%g: the fused gradient differs from the unfused one", name, mu);
			}
		}

		/* an element summing to −0.0 is stored as +0.0; an overflow is flagged */
		{
			double		g[SGD_TEST_MAX_D + 1],
						quad;
			double		zx[SGD_TEST_MAX_D] = {0};
			double		zt[SGD_TEST_MAX_D + 1];
			int			finite = -1,
						m;

			/*
			 * θ = (−0, …, −0; b = 0), x = 0, a certain row: p = 1, q = 0, and
			 * each element of w's part adds 1·(0·(0·−0) − 1·1·0) = −0 to −0
			 */
			for (j = 0; j < d; j++)
				zt[j] = -0.0;
			zt[d] = 0.0;
			for (j = 0; j <= d; j++)
				g[j] = -0.0;
			(void) gsu_row_loss_grad_diag(d, zt, zx, ISO_COV(0.0), 1.0, 0.0, 1.0, g,
										  &quad, &finite);
			for (j = 0; j < d; j++)
				CHECK(g[j] == 0.0 && !signbit(g[j]), "d=%d: grad[%d] = %g, not +0", d, j, g[j]);
			CHECK(finite == 1 && g[d] == -1.0, "d=%d: finite %d, grad[d] %g", d, finite, g[d]);
			/* element 0 (in a vector block) and element d − 1 (in the rest unless 4 | d) */
			for (m = 0; m < 2; m++)
			{
				int			e = m ? d - 1 : 0;

				for (j = 0; j <= d; j++)
					g[j] = 0.0;
				memset(zx, 0, sizeof(zx));
				g[e] = 1.7e308;
				zx[e] = -1.0;
				(void) gsu_row_loss_grad_diag(d, zt, zx, ISO_COV(0.0), 1.0, 0.0, 1e308, g,
											  &quad, &finite);
				CHECK(finite == 0 && isinf(g[e]), "d=%d: overflow at %d: finite %d, grad %g",
					  d, e, finite, g[e]);
			}
			/* a full covariance is not the kernel's: NaN, grad unchanged */
			g[0] = 5.0;
			CHECK(isnan(gsu_row_loss_grad_diag(d, zt, zx, FULL_COV(full), 1.0, 0.0, 1.0, g,
											   &quad, &finite)) && finite == 0 && g[0] == 5.0,
				  "d=%d: full covariance", d);
		}
	}
}

/* ------------------------------------------------ 8. scoring */

static void
test_scoring(void)
{
	static const double theta[4] = {1.0, -2.0, 0.5, 0.25};
	static const double x[3] = {2.0, 1.0, -4.0};	/* f = −1.75 */
	static const double x0[3] = {0.0, 0.0, -0.5};	/* f = 0 */
	static const double var[3] = {0.1, 0.2, 0.3};	/* wᵀΣw = 0.975 */
	static const double var0[3] = {0.0, 0.0, 0.0};
	double		c;

	CHECK(gsu_decision(3, theta, x) == -1.75, "decision %.17g",
		  gsu_decision(3, theta, x));
	CHECK(gsu_decision(3, theta, x0) == 0.0, "decision %.17g",
		  gsu_decision(3, theta, x0));

	c = gsu_confidence(3, theta, x, VI_COV(var, 0.0));
	CHECK(reldiff(c, 0.5 * erfc(1.75 / sqrt(0.975) / -sqrt(2.0)) , 0.0) < 1e-14 &&
		  reldiff(c, (double) ref_cdf(1.75L / sqrtl(0.975L)), 0.0) < 1e-14,
		  "confidence diag %.17g", c);
	c = gsu_confidence(3, theta, x, VI_COV(NULL, 0.5));	/* wᵀΣw = 0.5·5.25 */
	CHECK(reldiff(c, (double) ref_cdf(1.75L / sqrtl(2.625L)), 0.0) < 1e-14,
		  "confidence iso %.17g vs %.17g", c, (double) ref_cdf(1.75L / sqrtl(2.625L)));
	CHECK(gsu_confidence(3, theta, x, VI_COV(NULL, 0.0)) == 1.0, "confidence certain %.17g",
		  gsu_confidence(3, theta, x, VI_COV(NULL, 0.0)));
	CHECK(gsu_confidence(3, theta, x, VI_COV(var0, 0.0)) == 1.0, "confidence zero var %.17g",
		  gsu_confidence(3, theta, x, VI_COV(var0, 0.0)));
	CHECK(gsu_confidence(3, theta, x0, VI_COV(var, 0.0)) == 0.5, "confidence f=0 %.17g",
		  gsu_confidence(3, theta, x0, VI_COV(var, 0.0)));
	CHECK(gsu_confidence(3, theta, x0, VI_COV(NULL, 0.0)) == 0.5, "confidence f=0 certain %.17g",
		  gsu_confidence(3, theta, x0, VI_COV(NULL, 0.0)));

	/* row loss: hand values for certain rows, reference otherwise */
	CHECK(gsu_row_loss(3, theta, x, VI_COV(NULL, 0.0), 1.0) == 2.75, "row loss %.17g",
		  gsu_row_loss(3, theta, x, VI_COV(NULL, 0.0), 1.0));
	CHECK(gsu_row_loss(3, theta, x, VI_COV(NULL, 0.0), -1.0) == 0.0, "row loss %.17g",
		  gsu_row_loss(3, theta, x, VI_COV(NULL, 0.0), -1.0));
	CHECK(gsu_row_loss(3, theta, x0, VI_COV(var0, 0.0), -1.0) == 1.0, "row loss %.17g",
		  gsu_row_loss(3, theta, x0, VI_COV(var0, 0.0), -1.0));
	{
		double		l1 = gsu_row_loss(3, theta, x, VI_COV(var, 0.0), -1.0);
		/* dx = 1 − 1.75 = −0.75, ds = √1.95 */
		double		r1 = (double) ref_loss(-0.75L, sqrtl(1.95L));
		double		l2 = gsu_row_loss(3, theta, x, VI_COV(NULL, 0.5), 1.0);
		double		r2 = (double) ref_loss(2.75L, sqrtl(5.25L));
		double		l3 = gsu_row_loss(3, theta, x0, VI_COV(var, 0.0), 1.0);
		double		r3 = (double) (sqrtl(1.95L) * ref_h_direct(1 / sqrtl(1.95L)));

		CHECK(reldiff(l1, r1, 0.0) < 1e-13, "row loss diag %.17g ref %.17g", l1, r1);
		CHECK(reldiff(l2, r2, 0.0) < 1e-13, "row loss iso %.17g ref %.17g", l2, r2);
		CHECK(reldiff(l3, r3, 0.0) < 1e-13, "row loss f=0 %.17g ref %.17g", l3, r3);
	}

	/*
	 * Φ in both tails.  Rounding z/√2 to double perturbs erfc's argument by
	 * ~ε relative, which moves Φ(z) by ~z²·ε relative in the lower tail: that
	 * much is the conditioning of the formula, not an error of the code.
	 */
	{
		double		z;

		for (z = -37.5; z <= 8.0; z += 0.25)
		{
			double		got = gsu_normal_cdf(z),
						ref = (double) ref_cdf(z);
			double		tol = (16.0 + 2.0 * z * z) * DBL_EPSILON;

			CHECK(reldiff(got, ref, 0.0) < tol, "Phi(%g) = %.17g, ref %.17g (rel %.3g)",
				  z, got, ref, reldiff(got, ref, 0.0));
		}
		CHECK(gsu_normal_cdf(0.0) == 0.5, "Phi(0) = %.17g", gsu_normal_cdf(0.0));
	}
}

/* --------------------------------------------------------- 9. rng */

/* reference xoshiro256** seeded with splitmix64 (Blackman & Vigna) */
static uint64_t
ref_splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
ref_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
ref_xoshiro(uint64_t s[4])
{
	uint64_t	result = ref_rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ref_rotl(s[3], 45);
	return result;
}

static void
test_rng(void)
{
	gsu_rng		a,
				b;
	int			i,
				same = 0,
				mismatch = 0;
	int			nn = quick ? 20000 : 100000;

	/* reference self-check: the published first output of splitmix64(0) */
	{
		uint64_t	x = 0;

		CHECK(ref_splitmix64(&x) == 0xe220a8397b1dcdafULL, "splitmix64 self-check");
	}
	/* same seed, same stream; equal to the reference algorithm */
	{
		static const uint64_t seeds[] = {0, 1, 42, 0xdeadbeefcafef00dULL};
		int			si;

		for (si = 0; si < 4; si++)
		{
			uint64_t	rs[4],
						x = seeds[si];
			int			k;

			for (k = 0; k < 4; k++)
				rs[k] = ref_splitmix64(&x);
			gsu_rng_seed(&a, seeds[si]);
			gsu_rng_seed(&b, seeds[si]);
			for (i = 0; i < 1000; i++)
			{
				uint64_t	va = gsu_rng_next(&a),
							vb = gsu_rng_next(&b),
							vr = ref_xoshiro(rs);

				mismatch += (va != vb) || (va != vr);
			}
		}
		CHECK(mismatch == 0, "%d draws differ from xoshiro256**/splitmix64", mismatch);
	}
	gsu_rng_seed(&a, 1);
	gsu_rng_seed(&b, 2);
	for (i = 0; i < 100; i++)
		same += gsu_rng_next(&a) == gsu_rng_next(&b);
	CHECK(same == 0, "seeds 1 and 2 share %d of 100 draws", same);

	/* gsu_rng_below: range, n = 1, and rough uniformity */
	{
		static const uint64_t ns[] = {1, 2, 3, 7, 10, 1000, 0x8000000000000001ULL,
		UINT64_MAX};
		int			k,
					out = 0;

		gsu_rng_seed(&a, 99);
		for (k = 0; k < 8; k++)
			for (i = 0; i < 2000; i++)
			{
				uint64_t	v = gsu_rng_below(&a, ns[k]);

				out += !(v < ns[k]);
			}
		CHECK(out == 0, "%d draws of gsu_rng_below out of range", out);
	}
	{
		long		cnt[10] = {0};
		double		chi2 = 0.0,
					e = nn / 10.0;
		int			k;

		gsu_rng_seed(&a, 5);
		for (i = 0; i < nn; i++)
			cnt[gsu_rng_below(&a, 10)]++;
		for (k = 0; k < 10; k++)
			chi2 += (cnt[k] - e) * (cnt[k] - e) / e;
		/* 9 degrees of freedom: P(chi2 > 45) ≈ 1e−6 */
		CHECK(chi2 < 45.0, "chi-square of gsu_rng_below(10) = %.2f", chi2);
	}
	{
		/* n = 3·2⁶²: x mod n would put half the mass below 2⁶², not a third */
		const uint64_t n = 3ULL << 62;
		long		third[3] = {0};
		int			k,
					m = quick ? 6000 : 30000;

		gsu_rng_seed(&a, 6);
		for (i = 0; i < m; i++)
			third[gsu_rng_below(&a, n) >> 62]++;
		for (k = 0; k < 3; k++)
			CHECK(fabs(third[k] / (double) m - 1.0 / 3.0) < 5.0 * sqrt(2.0 / 9.0 / m),
				  "gsu_rng_below(3*2^62): fraction in third %d = %.4f", k,
				  third[k] / (double) m);
	}
	/* uniform: range and mean */
	{
		double		s = 0.0;
		int			out = 0;

		gsu_rng_seed(&a, 8);
		for (i = 0; i < nn; i++)
		{
			double		u = gsu_rng_uniform(&a);

			out += !(u >= 0.0 && u < 1.0);
			s += u;
		}
		CHECK(out == 0, "%d uniforms outside [0,1)", out);
		CHECK(fabs(s / nn - 0.5) < 5.0 * sqrt(1.0 / 12.0 / nn), "uniform mean %.5f",
			  s / nn);
	}
	/* normal: mean, variance, tail mass */
	{
		double		s = 0.0,
					s2 = 0.0,
					mean,
					var,
					tail;
		long		big = 0;
		int			bad = 0;

		gsu_rng_seed(&a, 9);
		for (i = 0; i < nn; i++)
		{
			double		z = gsu_rng_normal(&a);

			bad += !isfinite(z);
			s += z;
			s2 += z * z;
			big += fabs(z) > 2.0;
		}
		mean = s / nn;
		var = s2 / nn - mean * mean;
		tail = (double) big / nn;
		CHECK(bad == 0, "%d non-finite normals", bad);
		CHECK(fabs(mean) < 5.0 / sqrt((double) nn), "normal mean %.5f", mean);
		CHECK(fabs(var - 1.0) < 5.0 * sqrt(2.0 / nn), "normal variance %.5f", var);
		/* P(|Z| > 2) = erfc(√2) */
		{
			double		pt = erfc(sqrt(2.0));

			CHECK(fabs(tail - pt) < 5.0 * sqrt(pt * (1 - pt) / nn),
				  "P(|z|>2) = %.5f, expected %.5f", tail, pt);
		}
	}
}

/* ------------------------------------------------ losses, merge, objective */

/* the loss table: names, and what each loss needs from the rest of the code */
static void
test_loss_kinds(void)
{
	static const char *const names[] = {"gsu", "hinge", "tsvc", "robust", "psvm",
	"epsilon_insensitive", "squared"};
	int			k;

	for (k = 0; k <= GSU_LOSS_MAX; k++)
	{
		CHECK(gsu_loss_info(k) != NULL, "loss %d", k);
		CHECK(strcmp(gsu_loss_name(k), names[k]) == 0, "loss %d is %s", k, gsu_loss_name(k));
	}
	CHECK(gsu_loss_info(-1) == NULL && gsu_loss_info(GSU_LOSS_MAX + 1) == NULL, "out of range");
	CHECK(strcmp(gsu_loss_name(GSU_LOSS_MAX + 1), "?") == 0, "unknown name");
	CHECK(!gsu_loss_info(GSU_LOSS_HINGE)->uses_covariance, "hinge ignores covariances");
	CHECK(gsu_loss_info(GSU_LOSS_GSU)->uses_covariance, "gsu uses them");
	CHECK(gsu_loss_info(GSU_LOSS_TSVC)->robust && gsu_loss_info(GSU_LOSS_ROBUST)->robust &&
		  !gsu_loss_info(GSU_LOSS_GSU)->robust, "robust family");
	CHECK(gsu_loss_info(GSU_LOSS_GSU)->gradient_pass && gsu_loss_info(GSU_LOSS_HINGE)->gradient_pass &&
		  !gsu_loss_info(GSU_LOSS_ROBUST)->gradient_pass, "gradient pass");
	/* psvm: the robust core's TSVC machinery on a radius given per row */
	CHECK(gsu_loss_info(GSU_LOSS_PSVM)->robust && gsu_loss_info(GSU_LOSS_PSVM)->uses_covariance &&
		  !gsu_loss_info(GSU_LOSS_PSVM)->gradient_pass, "psvm");
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		CHECK(gsu_loss_info(k)->radius == (k == GSU_LOSS_PSVM), "loss %d radius", k);
	/* the regression losses: the only ones flagged, never trained by gsu_train_binary */
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		CHECK(gsu_loss_info(k)->regression == (k == GSU_LOSS_EPS_INSENSITIVE || k == GSU_LOSS_SQUARED),
			  "loss %d regression", k);
}

/*
 * The loss table's policies: the default solver and options of each loss,
 * and the name lookup.
 */
static void
test_loss_policies(void)
{
	int			k;

	for (k = 0; k <= GSU_LOSS_MAX; k++)
		CHECK(gsu_loss_by_name(gsu_loss_name(k)) == k, "loss %d by name", k);
	CHECK(gsu_loss_by_name("svm") == -1 && gsu_loss_by_name("") == -1, "unknown names");
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		CHECK(gsu_loss_info(k)->default_solver ==
			  (k == GSU_LOSS_HINGE ? GSU_SOLVER_DCD : GSU_SOLVER_NEWTON), "loss %d solver", k);
	/* tsvc and robust take the norm bound gamma = 1 and 100000 gradient steps */
	for (k = 0; k <= GSU_LOSS_MAX; k++)
	{
		int			bound = k == GSU_LOSS_TSVC || k == GSU_LOSS_ROBUST;

		CHECK(gsu_loss_info(k)->default_gamma == (bound ? 1.0 : 0.0), "loss %d gamma", k);
		CHECK(gsu_loss_info(k)->default_max_iterations == (bound ? 100000 : 0),
			  "loss %d iterations", k);
		CHECK(gsu_loss_info(k)->default_delta_scale == (k == GSU_LOSS_TSVC ? 1.0 : 0.0),
			  "loss %d delta_scale", k);
	}
}

/*
 * The solvers' memory, as the glue computed it before the loss table held
 * it (solver_bytes of src/gsu_train_solve.c, in doubles): gsu_solver_doubles
 * must give the same numbers for every loss, solver and shape.
 */
static double
solver_doubles_before(int loss, int solver, int64_t n, int d, size_t cov_per, int worst)
{
	double		nd = (double) n,
				dd = (double) d,
				b = 10.0 * nd + 40.0 * (dd + 1.0);

	if (loss == GSU_LOSS_EPS_INSENSITIVE || loss == GSU_LOSS_SQUARED)
		return b + 3.0 * (dd + 1.0) * (dd + 1.0);
	if (loss == GSU_LOSS_ROBUST && !worst)
		b += nd * (double) cov_per;
	if (loss == GSU_LOSS_TSVC || loss == GSU_LOSS_PSVM)
		b += nd + nd * dd;
	if (loss == GSU_LOSS_HINGE)
	{
		double		sv = fmin(fmin(nd, dd + 2.0), 3000.0);

		b += sv * dd + (sv + 1.0) * (sv + 1.0);
	}
	if (solver == GSU_SOLVER_DCD)
		b += 4.0 * nd + gsu_hinge_polish_band_doubles(n, d);
	if (solver == GSU_SOLVER_NEWTON && loss != GSU_LOSS_HINGE && cov_per == (size_t) d * (size_t) d)
		b += gsu_span_doubles(n, d, d);
	return b;
}

static void
test_solver_memory(void)
{
	static const int64_t ns[] = {1, 2, 11, 100, 2999, 3001, 100000, 50000000};
	static const int ds[] = {1, 2, 10, 500, 2998, 5000};
	int			loss,
				solver,
				i,
				j,
				c,
				worst;

	for (loss = 0; loss <= GSU_LOSS_MAX; loss++)
		for (solver = GSU_SOLVER_NEWTON; solver <= GSU_SOLVER_DCD; solver++)
			for (i = 0; i < (int) (sizeof(ns) / sizeof(ns[0])); i++)
				for (j = 0; j < (int) (sizeof(ds) / sizeof(ds[0])); j++)
					for (c = 0; c < 4; c++)
						for (worst = 0; worst <= 1; worst++)
						{
							int			d = ds[j];
							size_t		cov_per = c == 0 ? 0 : c == 1 ? 1 : c == 2 ? (size_t) d :
								(size_t) d * (size_t) d;
							double		got = gsu_solver_doubles(loss, solver, ns[i], d, cov_per, 0, worst),
										want = solver_doubles_before(loss, solver, ns[i], d, cov_per, worst);

							CHECK(got == want, "loss %d solver %d n %lld d %d cov %zu worst %d: %.17g, not %.17g",
								  loss, solver, (long long) ns[i], d, cov_per, worst, got, want);
						}
	/* a few by hand: n = 100, d = 10 */
	CHECK(gsu_solver_doubles(GSU_LOSS_GSU, GSU_SOLVER_NEWTON, 100, 10, 10, 0, 0) == 1440.0, "gsu diagonal");
	CHECK(gsu_solver_doubles(GSU_LOSS_HINGE, GSU_SOLVER_NEWTON, 100, 10, 0, 0, 0) == 1729.0, "hinge polish");
	CHECK(gsu_solver_doubles(GSU_LOSS_ROBUST, GSU_SOLVER_NEWTON, 100, 10, 10, 0, 0) == 2440.0, "robust copy");
	CHECK(gsu_solver_doubles(GSU_LOSS_ROBUST, GSU_SOLVER_PEGASOS, 100, 10, 10, 0, 1) == 1440.0, "robust worst case");
	CHECK(gsu_solver_doubles(GSU_LOSS_TSVC, GSU_SOLVER_NEWTON, 100, 10, 1, 0, 0) == 2540.0, "tsvc shifts");
	CHECK(gsu_solver_doubles(GSU_LOSS_PSVM, GSU_SOLVER_NEWTON, 100, 10, 1, 0, 0) == 2540.0, "psvm shifts");
	CHECK(gsu_solver_doubles(GSU_LOSS_HINGE, GSU_SOLVER_DCD, 100, 10, 0, 0, 0) ==
		  2129.0 + gsu_hinge_polish_band_doubles(100, 10), "dcd");
	CHECK(gsu_solver_doubles(GSU_LOSS_GSU, GSU_SOLVER_NEWTON, 100, 10, 100, 0, 0) ==
		  1440.0 + gsu_span_doubles(100, 10, 10), "full covariances, span");
	/*
	 * factors of 2 columns, n = 50, d = 784 (the SVM-GSU paper's MNIST rows):
	 * k = 150, reflectors 784·150, dgeqrf's 64·150, two vectors of 784, tau,
	 * the reduced rows 50·150·3; a rank-1 factor counts its span where a
	 * diagonal of the same doubles does not; n(1 + r) > d/2 is not reduced
	 */
	CHECK(gsu_span_doubles(50, 784, 2) == 784.0 * 150 + 64.0 * 150 + 2.0 * 784 + 150 + 50.0 * 150 * 3,
		  "factor span");
	CHECK(gsu_solver_doubles(GSU_LOSS_GSU, GSU_SOLVER_NEWTON, 50, 784, 784 * 2, 2, 0) ==
		  500.0 + 40.0 * 785 + gsu_span_doubles(50, 784, 2), "factors, span");
	CHECK(gsu_solver_doubles(GSU_LOSS_GSU, GSU_SOLVER_NEWTON, 50, 784, 784, 1, 0) >
		  gsu_solver_doubles(GSU_LOSS_GSU, GSU_SOLVER_NEWTON, 50, 784, 784, 0, 0), "rank-1 factor");
	CHECK(gsu_span_doubles(131, 784, 2) == 0.0 && gsu_span_doubles(130, 784, 2) > 0.0, "factor bound");
	/* the polish's support rows stop at 3000: 300040 + 3000·5000 + 3001² */
	CHECK(gsu_solver_doubles(GSU_LOSS_HINGE, GSU_SOLVER_NEWTON, 10000, 5000, 0, 0, 0) == 24306041.0,
		  "polish bound");
}

/* the weighted average of two iterates, and the objective from sums */
static void
test_merge_objective(void)
{
	double		a[3] = {1.0, -2.0, 4.0},
				b[3] = {3.0, 2.0, 0.0};
	double		theta[3] = {3.0, 4.0, 100.0};

	gsu_sgd_merge(2, a, 1.0, b, 3.0);
	CHECK(a[0] == 2.5 && a[1] == 1.0 && a[2] == 1.0, "merged %g %g %g", a[0], a[1], a[2]);
	/* lambda/2 ||w||^2 (the bias is not regularized) + mean loss */
	CHECK(gsu_objective_from_sums(2, theta, 0.5, 6.0, 4.0) == 0.25 * 25.0 + 1.5,
		  "objective %g", gsu_objective_from_sums(2, theta, 0.5, 6.0, 4.0));
	CHECK(gsu_objective_from_sums(2, NULL, 0.5, 6.0, 4.0) == 1.5, "w = 0");
	CHECK(gsu_objective_from_sums(2, theta, 0.5, 0.0, 0.0) == 0.0, "no rows");
	/* the confidence of a decision value */
	CHECK(gsu_positive_probability(2.0, 0.0) == 1.0 && gsu_positive_probability(-2.0, 0.0) == 0.0 &&
		  gsu_positive_probability(0.0, 0.0) == 0.5 && gsu_positive_probability(0.0, 4.0) == 0.5,
		  "limits");
	CHECK(fabs(gsu_positive_probability(2.0, 4.0) - 0.8413447460685429) < 1e-15 &&
		  fabs(gsu_positive_probability(-2.0, 4.0) - 0.15865525393145707) < 1e-15,
		  "Phi(1) %.17g", gsu_positive_probability(2.0, 4.0));
}

/* row weights times class weights, scaled; one-vs-rest labels */
static void
test_weights_product(void)
{
	double		a[3] = {2.0, 5e-324, 1e300},
				c[3] = {3.0, 1.0, 1e10},
				work[3],
				y[4] = {3.0, 1.0, 3.0, -2.0},
				yk[4];
	int			i;

	gsu_weights_product(3, a, c, work);
	/* the largest (1e310, not a double) lands in [1/4, 1); the ratios are kept */
	CHECK(c[2] >= 0.25 && c[2] < 1.0, "largest %g", c[2]);
	CHECK(fabs((log(c[2]) - log(c[0])) - (log(1e300) + log(1e10) - log(6.0))) < 1e-12,
		  "log ratio %.17g", log(c[2]) - log(c[0]));
	CHECK(c[1] == 0.0, "a denormal far below the largest underflows to 0: %g", c[1]);
	c[0] = 4.0;
	c[1] = 2.0;
	gsu_weights_product(2, NULL, c, work);
	CHECK(c[0] == 0.25 && c[1] == 0.125, "no row weights: %g %g", c[0], c[1]);
	gsu_ovr_labels(4, y, 3.0, yk);
	for (i = 0; i < 4; i++)
		CHECK(yk[i] == (y[i] == 3.0 ? 1.0 : -1.0), "label %d", i);
}

/* ------------------------------------------------------------- main */

/* what a solver's per-pass trace received */
typedef struct trace_log
{
	int			calls;
	int64_t		last_pass;
	int			increasing;
	int			measures_ok;
	double		last_objective;
	double		last_gap;
} trace_log;

static void
trace_record(void *arg, int64_t pass, double objective, double gradient_norm, double gap)
{
	trace_log  *t = (trace_log *) arg;

	if (pass <= t->last_pass)
		t->increasing = 0;
	if (!((objective >= 0.0 || objective == GSU_TRACE_NONE) &&
		  (gradient_norm >= 0.0 || gradient_norm == GSU_TRACE_NONE) &&
		  (gap >= 0.0 || gap == GSU_TRACE_NONE)))
		t->measures_ok = 0;
	t->last_pass = pass;
	t->last_objective = objective;
	t->last_gap = gap;
	t->calls++;
}

/*
 * The per-pass trace: newton reports every iteration and ends with the true
 * objective and its gap estimate; pegasos reports each epoch and the final
 * objective; the trace does not change the result.
 */
static void
test_trace(void)
{
	test_data a;
	gsu_solve_options o;
	gsu_solve_result res,
				res2;
	gsu_status	st;
	trace_log	t = {0, 0, 1, 1, 0.0, 0.0};
	double		theta[4] = {0},
				theta2[4] = {0};

	make_data(&a, 150, 3, &(test_rows) {.kind = GSU_COV_DIAG, .shift = 0.6, .spread = 1.0, .vlo = 0.05, .vhi = 0.6}, 5);
	gsu_solve_options_default(&o);
	o.lambda = 1e-2;
	st = gsu_solve_newton(&a.ds, &o, theta2, &res2);
	CHECK(st == GSU_OK, "newton status %s", gsu_status_string(st));
	o.trace = trace_record;
	o.trace_arg = &t;
	st = gsu_solve_newton(&a.ds, &o, theta, &res);
	CHECK(st == GSU_OK, "traced newton status %s", gsu_status_string(st));
	CHECK(memcmp(theta, theta2, sizeof(theta)) == 0, "the trace changed newton's result");
	CHECK(t.calls == res.iterations + 1, "newton traced %d passes for %lld iterations",
		  t.calls, (long long) res.iterations);
	CHECK(t.increasing && t.measures_ok, "newton's trace: increasing %d, measures %d",
		  t.increasing, t.measures_ok);
	CHECK(t.last_objective == res.objective && t.last_gap == res.gap_estimate,
		  "newton's last report %.17g (gap %.3g) is not the result %.17g (gap %.3g)",
		  t.last_objective, t.last_gap, res.objective, res.gap_estimate);

	memset(&t, 0, sizeof(t));
	t.increasing = t.measures_ok = 1;
	memset(theta, 0, sizeof(theta));
	o.epochs = 4;
	st = gsu_solve_pegasos(&a.ds, &o, theta, &res);
	CHECK(st == GSU_OK, "pegasos status %s", gsu_status_string(st));
	CHECK(t.calls == o.epochs + 1 && t.last_pass == res.passes,
		  "pegasos traced %d passes, the last %lld, for %d epochs", t.calls,
		  (long long) t.last_pass, o.epochs);
	CHECK(t.increasing && t.measures_ok && t.last_objective == res.objective,
		  "pegasos's trace: increasing %d, measures %d", t.increasing, t.measures_ok);
	test_data_free(&a);
}

static const gsu_test_case tests[] = {
	{"h", test_h},
	{"expected_hinge_mc", test_expected_hinge_mc},
	{"sigma_zero_limit", test_sigma_zero_limit},
	{"objective_gradient", test_objective_gradient},
	{"newton", test_newton},
	{"pegasos", test_pegasos},
	{"sgd_step", test_sgd_step},
	{"sgd_step_blocks", test_sgd_step_blocks},
	{"scoring", test_scoring},
	{"rng", test_rng},
	{"loss_kinds", test_loss_kinds},
	{"loss_policies", test_loss_policies},
	{"solver_memory", test_solver_memory},
	{"merge_objective", test_merge_objective},
	{"weights_product", test_weights_product},
	{"trace", test_trace},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
