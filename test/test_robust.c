/*
 * test_robust.c — unit tests of gsu_robust_loss.c, gsu_robust_objective.c and
 * gsu_robust_solve.c: TSVC and the worst-case robust / chance-constrained SVM.
 *
 * The closed forms are checked against brute force: perturbations sampled
 * inside each uncertainty set never beat the bound and the analytic
 * maximizer attains it; gradients against finite differences; the solvers
 * against a nested ternary search of the (convex) objective in 2-D; the
 * chance constraint against Monte Carlo.  Set GSU_TEST_VERBOSE=1 to print
 * the measured test errors of the TSVC experiment.
 */
#include "gsu_core.h"
#include "gsu_robust.h"
#include "gsu_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int qs[3] = {1, 2, GSU_Q_INF};

static double
norm_p(int d, const double *u, int p)
{
	/* p = 0 is ∞ */
	return gsu_norm_q(d, u, p);
}

/* a random point u with ‖u‖_p = radius·s, s uniform in [0, 1] (or 1: boundary) */
static void
sample_in_ball(gsu_rng *r, int d, int p, double radius, int boundary, double *u)
{
	double		n;
	int			j;

	for (j = 0; j < d; j++)
	{
		/* mix Gaussian directions with sparse and sign-vector ones */
		double		k = gsu_rng_uniform(r);

		u[j] = k < 0.2 ? 0.0 : k < 0.4 ? (gsu_rng_uniform(r) < 0.5 ? -1.0 : 1.0) :
			gsu_rng_normal(r);
	}
	n = norm_p(d, u, p);
	if (n == 0.0)
	{
		u[0] = 1.0;
		n = 1.0;
	}
	for (j = 0; j < d; j++)
		u[j] *= radius * (boundary ? 1.0 : gsu_rng_uniform(r)) / n;
}

/* a random SPD matrix B Bᵀ + 0.1 I (d×d) */
static void
random_cov(gsu_rng *r, int d, double *c)
{
	double	   *b = malloc(sizeof(double) * d * d);
	int			i,
				j,
				k;

	for (i = 0; i < d * d; i++)
		b[i] = gsu_rng_normal(r) * 0.7;
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			double		s = i == j ? 0.1 : 0.0;

			for (k = 0; k < d; k++)
				s += b[i * d + k] * b[j * d + k];
			c[i * d + j] = s;
		}
	free(b);
}

/* ---------------------------------------------------------- Φ⁻¹ */

static void
test_quantile(void)
{
	static const double ps[] = {1e-300, 1e-100, 1e-20, 1e-8, 0.001, 0.02, 0.02425, 0.1,
	0.3, 0.5, 0.7, 0.9, 0.95, 0.975, 0.999, 1 - 1e-9};
	size_t		i;

	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
	{
		double		x = gsu_normal_quantile(ps[i]);
		double		back = gsu_normal_cdf(x);
		double		tail = ps[i] > 0.5 ? 1.0 - ps[i] : ps[i];
		double		backtail = ps[i] > 0.5 ? gsu_normal_cdf(-x) : back;

		CHECK(fabs(backtail - tail) <= 1e-13 * tail, "p = %g: Φ(Φ⁻¹(p)) = %.17g", ps[i], back);
	}
	CHECK_CLOSE(gsu_normal_quantile(0.975), 1.959963984540054, 1e-14);
	CHECK_CLOSE(gsu_normal_quantile(0.95), 1.6448536269514722, 1e-14);
	CHECK_CLOSE(gsu_normal_quantile(0.5), 0.0, 1e-16);
	CHECK(gsu_normal_quantile(0.0) == -HUGE_VAL && gsu_normal_quantile(1.0) == HUGE_VAL,
		  "endpoints");
	CHECK(isnan(gsu_normal_quantile(1.5)) && isnan(gsu_normal_quantile(NAN)), "outside");
}

/* ------------------------------------------------------- dual norms */

static void
test_dual_norms(void)
{
	gsu_rng		r;
	double		z[6],
				g[6],
				u[6];
	int			t,
				k,
				d = 6;

	gsu_rng_seed(&r, 11);
	CHECK(gsu_dual_exponent(1) == GSU_Q_INF && gsu_dual_exponent(GSU_Q_INF) == 1 &&
		  gsu_dual_exponent(2) == 2, "dual exponents");
	for (t = 0; t < 300; t++)
	{
		int			q = qs[t % 3],
					p = gsu_dual_exponent(q);
		double		nz;
		int			j;

		for (j = 0; j < d; j++)
			z[j] = (t % 7 == 0 && j % 2) ? z[0] : gsu_rng_normal(&r);	/* ties too */
		nz = gsu_norm_q(d, z, q);
		gsu_norm_q_subgradient(d, z, q, g);
		/* the subgradient is a dual-norm maximizer: ‖g‖_p ≤ 1, gᵀz = ‖z‖_q */
		CHECK(norm_p(d, g, p) <= 1.0 + 1e-12, "q %d: ‖g‖_p = %g", q, norm_p(d, g, p));
		{
			double		gz = 0.0;

			for (j = 0; j < d; j++)
				gz += g[j] * z[j];
			CHECK(fabs(gz - nz) <= 1e-12 * nz, "q %d: gᵀz %g vs ‖z‖ %g", q, gz, nz);
		}
		/* no point of the p-ball does better (Hölder) */
		for (k = 0; k < 50; k++)
		{
			double		uz = 0.0;

			sample_in_ball(&r, d, p, 1.0, k % 2, u);
			for (j = 0; j < d; j++)
				uz += u[j] * z[j];
			CHECK(uz <= nz * (1 + 1e-12), "q %d: uᵀz %g > ‖z‖_q %g", q, uz, nz);
		}
		/* the smooth version: an upper approximation within its bound, gradient by FD */
		{
			double		mu = 0.05 + 0.3 * gsu_rng_uniform(&r);
			double		rs = gsu_norm_q_smooth(d, z, q, mu, g);
			double		h = 1e-6;

			CHECK(rs >= nz - 1e-12 && rs - nz <= gsu_norm_q_smoothing_bound(d, q, mu) + 1e-12,
				  "q %d: smooth %g vs %g", q, rs, nz);
			for (j = 0; j < d; j++)
			{
				double		zj = z[j],
							fp,
							fm;

				z[j] = zj + h;
				fp = gsu_norm_q_smooth(d, z, q, mu, NULL);
				z[j] = zj - h;
				fm = gsu_norm_q_smooth(d, z, q, mu, NULL);
				z[j] = zj;
				CHECK(fabs((fp - fm) / (2 * h) - g[j]) <= 1e-6, "q %d: ∂r_μ/∂z_%d %g vs FD %g",
					  q, j, g[j], (fp - fm) / (2 * h));
			}
		}
	}
}

/* --------------------------------------------------------- sqrtm */

static void
test_sqrtm(void)
{
	gsu_rng		r;
	int			d,
				i,
				j,
				k;

	gsu_rng_seed(&r, 5);
	for (d = 1; d <= 7; d += 3)
	{
		double	   *c = malloc(sizeof(double) * d * d),
				   *a = malloc(sizeof(double) * d * d);
		double		scale = 0.0;

		random_cov(&r, d, c);
		if (d == 7)
		{
			/* rank deficient: a zero eigenvalue (row/column 0 zeroed) */
			for (i = 0; i < d; i++)
				c[i] = c[i * d] = 0.0;
		}
		memcpy(a, c, sizeof(double) * d * d);
		CHECK(gsu_sqrtm_psd(d, a) == GSU_OK, "dsyevr");
		for (i = 0; i < d; i++)
			scale = fmax(scale, c[i * d + i]);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
			{
				double		s = 0.0;

				for (k = 0; k < d; k++)
					s += a[i * d + k] * a[k * d + j];
				CHECK(fabs(s - c[i * d + j]) <= 1e-12 * scale, "d %d: (A²)_%d%d %g vs %g",
					  d, i, j, s, c[i * d + j]);
				CHECK(a[i * d + j] == a[j * d + i], "symmetric");
			}
		free(c);
		free(a);
	}
}

/* ---------------------------------------- robust bound vs brute force */

/* the three shapes for dimension d: iso, diag, full Σ^{1/2} */
static gsu_ushape
make_shape(gsu_rng *r, int kind, int d, double *buf)
{
	gsu_ushape	a = {GSU_USHAPE_NONE, 0.0, NULL};
	int			j;

	if (kind == 0)
	{
		a.kind = GSU_USHAPE_ISO;
		a.iso = 0.2 + gsu_rng_uniform(r);
	}
	else if (kind == 1)
	{
		a.kind = GSU_USHAPE_DIAG;
		for (j = 0; j < d; j++)
			buf[j] = j == 1 ? 0.0 : sqrt(gsu_rng_uniform(r));
		a.m = buf;
	}
	else
	{
		a.kind = GSU_USHAPE_FULL;
		random_cov(r, d, buf);
		(void) gsu_sqrtm_psd(d, buf);
		a.m = buf;
	}
	return a;
}

static void
test_worst_case(void)
{
	enum
	{
	D = 5};
	gsu_rng		r;
	double		theta[D + 1],
				x[D],
				xs[D],
				xp[D],
				u[D],
				au[D],
				work[2 * D],
				buf[D * D];
	int			t,
				k,
				j;
	int			samples = quick ? 200 : 2000;

	gsu_rng_seed(&r, 17);
	for (t = 0; t < 90; t++)
	{
		int			q = qs[t % 3],
					p = gsu_dual_exponent(q);
		int			kind = (t / 3) % 3;
		gsu_ushape	a = make_shape(&r, kind, D, buf);
		double		gamma = 0.1 + 2.0 * gsu_rng_uniform(&r);
		double		y = t % 2 ? 1.0 : -1.0;
		double		dx,
					bound,
					worst = -HUGE_VAL,
					at;

		for (j = 0; j <= D; j++)
			theta[j] = gsu_rng_normal(&r);
		for (j = 0; j < D; j++)
			x[j] = gsu_rng_normal(&r);
		dx = 1.0 - y * gsu_decision(D, theta, x);
		gsu_ushape_apply(D, &a, theta, au);
		bound = dx + gamma * gsu_norm_q(D, au, q);
		/* sampled perturbations x + Aᵀu, ‖u‖_p ≤ γ, never exceed the bound */
		for (k = 0; k < samples; k++)
		{
			double		v;

			sample_in_ball(&r, D, p, gamma, k % 2, u);
			memcpy(xp, x, sizeof(xp));
			gsu_ushape_apply_t_add(D, &a, 1.0, u, xp);
			v = 1.0 - y * gsu_decision(D, theta, xp);
			CHECK(v <= bound + 1e-12 * (1 + fabs(bound)), "q %d kind %d: sample %g > bound %g",
				  q, kind, v, bound);
			if (v > worst)
				worst = v;
		}
		/* the analytic maximizer attains it */
		gsu_robust_worst_case(D, theta, x, y, &a, q, gamma, xs, work);
		at = 1.0 - y * gsu_decision(D, theta, xs);
		CHECK(fabs(at - bound) <= 1e-12 * (1 + fabs(bound)), "q %d kind %d: at x* %g vs %g",
			  q, kind, at, bound);
		/* ... with a perturbation inside the set: xs − x = γAᵀu*, ‖u*‖_p ≤ 1 */
		{
			double		g[D],
						v[D];

			gsu_norm_q_subgradient(D, au, q, g);
			CHECK(norm_p(D, g, p) <= 1 + 1e-12, "‖u*‖_p");
			memcpy(v, x, sizeof(v));
			gsu_ushape_apply_t_add(D, &a, -y * gamma, g, v);
			for (j = 0; j < D; j++)
				CHECK_CLOSE(v[j], xs[j], 1e-12);
		}
		/* and the row loss is the hinge of the bound */
		CHECK_CLOSE(gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, 0.0, 0.0, NULL, work),
					fmax(bound, 0.0), 1e-12 * (1 + fabs(bound)));
		/* the sampled worst case comes close for q = 2 in low dimension */
		(void) worst;
	}

	/* q = 2 with a full Σ: γ‖Σ^{1/2}w‖ = γ√(wᵀΣw) */
	{
		double		c[D * D],
					sw[D],
					z[D];

		random_cov(&r, D, c);
		memcpy(buf, c, sizeof(c));
		(void) gsu_sqrtm_psd(D, buf);
		for (j = 0; j < D; j++)
			theta[j] = gsu_rng_normal(&r);
		{
			gsu_ushape	a = {GSU_USHAPE_FULL, 0.0, buf};

			gsu_ushape_apply(D, &a, theta, z);
			CHECK_CLOSE(gsu_norm_q(D, z, 2), sqrt(gsu_quad_full(D, theta, c, sw)), 1e-12);
		}
	}
}

/* ------------------------------------------------ gradients vs FD */

static void
test_gradients(void)
{
	enum
	{
	D = 4};
	gsu_rng		r;
	double		theta[D + 1],
				x[D],
				work[2 * D],
				buf[D * D],
				g[D + 1],
				xs[D];
	int			t,
				j;

	gsu_rng_seed(&r, 23);
	for (t = 0; t < 180; t++)
	{
		int			q = qs[t % 3];
		int			kind = (t / 3) % 3;
		gsu_ushape	a = make_shape(&r, kind, D, buf);
		double		gamma = 0.5 + gsu_rng_uniform(&r);
		double		mu = (t / 9) % 2 ? 0.0 : 0.2;
		double		y = t % 2 ? 1.0 : -1.0;
		double		h = 1e-6,
					l0;

		for (j = 0; j <= D; j++)
			theta[j] = gsu_rng_normal(&r);
		for (j = 0; j < D; j++)
			x[j] = 0.3 * gsu_rng_normal(&r);
		memset(g, 0, sizeof(g));
		l0 = gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, mu, 1.0, g, work);
		if (mu == 0.0 && l0 == 0.0)
			continue;			/* the flat side: gradient 0, nothing to compare */
		for (j = 0; j <= D; j++)
		{
			double		tj = theta[j],
						fp,
						fm;

			theta[j] = tj + h;
			fp = gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, mu, 0, NULL, work);
			theta[j] = tj - h;
			fm = gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, mu, 0, NULL, work);
			theta[j] = tj;
			CHECK(fabs((fp - fm) / (2 * h) - g[j]) <= 1e-5 * (1 + fabs(g[j])),
				  "q %d kind %d mu %g: ∂L/∂θ_%d %.10g vs FD %.10g", q, kind, mu, j, g[j],
				  (fp - fm) / (2 * h));
		}
		/* Danskin: the subgradient is the hinge's at the worst point, −y·x* */
		if (mu == 0.0)
		{
			gsu_robust_worst_case(D, theta, x, y, &a, q, gamma, xs, work);
			for (j = 0; j < D; j++)
				CHECK_CLOSE(g[j], -y * xs[j], 1e-12);
			CHECK_CLOSE(g[D], -y, 0.0);
		}
		/* the smoothed loss is above the exact one, within its bound */
		{
			double		le = gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, 0.0, 0, NULL, work);
			double		ls = gsu_robust_row_loss(D, theta, x, y, &a, q, gamma, 0.1, 0, NULL, work);

			CHECK(ls >= le - 1e-12 && ls - le <= gsu_robust_smoothing_bound(D, q, gamma, 0.1) + 1e-12,
				  "smoothing: %g vs %g", ls, le);
		}
	}
}

/* ---------------------------------------------------- TSVC closed form */

static void
test_tsvc_best_case(void)
{
	enum
	{
	D = 3};
	gsu_rng		r;
	double		theta[D + 1],
				x[D],
				xs[D],
				u[D];
	int			t,
				k,
				j;

	gsu_rng_seed(&r, 31);
	for (t = 0; t < 100; t++)
	{
		double		y = t % 2 ? 1.0 : -1.0,
					delta = 2.0 * gsu_rng_uniform(&r),
					wn,
					best;

		for (j = 0; j <= D; j++)
			theta[j] = gsu_rng_normal(&r);
		for (j = 0; j < D; j++)
			x[j] = gsu_rng_normal(&r);
		wn = sqrt(theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]);
		best = gsu_tsvc_row_loss(D, theta, x, y, delta * wn, 0.0, 0, NULL);
		/* no move with ‖Δx‖ ≤ δ gives a lower hinge */
		for (k = 0; k < 500; k++)
		{
			double		v;

			sample_in_ball(&r, D, 2, delta, k % 2, u);
			for (j = 0; j < D; j++)
				u[j] += x[j];
			v = gsu_tsvc_row_loss(D, theta, u, y, 0.0, 0.0, 0, NULL);
			CHECK(v >= best - 1e-12, "moved %g < closed form %g", v, best);
		}
		/* y·δ·w/‖w‖ attains it */
		gsu_tsvc_best_case(D, theta, x, y, delta, xs);
		CHECK_CLOSE(gsu_tsvc_row_loss(D, theta, xs, y, 0.0, 0.0, 0, NULL), best, 1e-12);
	}
	/* δ = scale·√(mean variance) for each kind of covariance */
	{
		double		v[3] = {1.0, 4.0, 7.0},
					c[9] = {1, 0.5, 0, 0.5, 4, 0, 0, 0, 7};

		CHECK_CLOSE(gsu_tsvc_radius(3, DIAG_COV(v), 2.0), 2.0 * 2.0, 1e-15);
		CHECK_CLOSE(gsu_tsvc_radius(3, FULL_COV(c), 2.0), 2.0 * 2.0, 1e-15);
		CHECK_CLOSE(gsu_tsvc_radius(3, ISO_COV(0.25), 3.0), 1.5, 1e-15);
		CHECK(gsu_tsvc_radius(3, ISO_COV(0.0), 3.0) == 0.0, "certain row");
	}
}

/* ------------------------------------------------- the chance constraint */

static void
test_chance_constraint(void)
{
	enum
	{
	D = 3};
	gsu_rng		r;
	double		c[D * D],
				a[D * D],
				w[D + 1] = {0.7, -1.2, 0.4, 0.3},
				x[D] = {0.5, 0.1, -0.4},
				z[D],
				e[D],
				sw[D];
	int			n = quick ? 20000 : 400000,
				k,
				j,
				l;
	double		eps = 0.1;

	gsu_rng_seed(&r, 41);
	random_cov(&r, D, c);
	memcpy(a, c, sizeof(c));
	(void) gsu_sqrtm_psd(D, a);
	{
		double		sd = sqrt(gsu_quad_full(D, w, c, sw));
		double		f = gsu_decision(D, w, x);
		double		thr_g = f - gsu_normal_quantile(1 - eps) * sd;
		double		thr_c = f - sqrt((1 - eps) / eps) * sd;
		int			below_g = 0,
					below_c = 0;

		/* ξ = x + Σ^{1/2}e, e ~ N(0, I): P(wᵀξ + b < f − Φ⁻¹(1−ε)·sd) = ε */
		for (k = 0; k < n; k++)
		{
			for (j = 0; j < D; j++)
				e[j] = gsu_rng_normal(&r);
			for (j = 0; j < D; j++)
			{
				z[j] = x[j];
				for (l = 0; l < D; l++)
					z[j] += a[j * D + l] * e[l];
			}
			f = gsu_decision(D, w, z);
			below_g += f < thr_g;
			below_c += f < thr_c;
		}
		{
			double		pg = (double) below_g / n,
						se = sqrt(eps * (1 - eps) / n);

			CHECK(fabs(pg - eps) <= 5 * se, "Gaussian: %g vs ε = %g", pg, eps);
			/* Cantelli's bound holds (loosely for a Gaussian) */
			CHECK((double) below_c / n <= eps, "Chebyshev: %g > ε", (double) below_c / n);
		}
	}
}

/* --------------------------------------------- solvers vs brute force */

typedef struct brute
{
	const gsu_robust_data *rd;
	double		lambda;
	double		radius;			/* tsvc: ‖w‖ ≤ radius */
	double		w0;
	double		w1;
} brute;

static double
bf_f(const brute *b, double w0, double w1, double bias)
{
	double		th[3] = {w0, w1, bias},
				f;

	(void) gsu_robust_objective(b->rd, b->lambda, 0.0, th, &f, NULL);
	return f;
}

/*
 * Each ternary search keeps 2/3 of its interval a step: 70 steps shrink a span
 * of 40 to 2e-11, 52 (the quick run's, under valgrind: the three nested
 * searches are most of this program's time) to 3e-8, still far inside the
 * checks' 1e-6.
 */
#define BF_STEPS (quick ? 52 : 70)

/* min over the bias (convex), ternary search */
static double
bf_min_b(const brute *b, double w0, double w1)
{
	double		lo = -20,
				hi = 20;
	int			k;

	for (k = 0; k < BF_STEPS; k++)
	{
		double		m1 = lo + (hi - lo) / 3,
					m2 = hi - (hi - lo) / 3;

		if (bf_f(b, w0, w1, m1) < bf_f(b, w0, w1, m2))
			hi = m2;
		else
			lo = m1;
	}
	return bf_f(b, w0, w1, 0.5 * (lo + hi));
}

static double
bf_min_w1(const brute *b, double w0)
{
	double		span = b->radius > 0 ? sqrt(fmax(b->radius * b->radius - w0 * w0, 0.0)) : 20;
	double		lo = -span,
				hi = span;
	int			k;

	for (k = 0; k < BF_STEPS; k++)
	{
		double		m1 = lo + (hi - lo) / 3,
					m2 = hi - (hi - lo) / 3;

		if (bf_min_b(b, w0, m1) < bf_min_b(b, w0, m2))
			hi = m2;
		else
			lo = m1;
	}
	return bf_min_b(b, w0, 0.5 * (lo + hi));
}

/* the minimum of the convex objective over (w0, w1, b): nested ternary searches */
static double
bf_min(const brute *b)
{
	double		span = b->radius > 0 ? b->radius : 20;
	double		lo = -span,
				hi = span;
	int			k;

	for (k = 0; k < BF_STEPS; k++)
	{
		double		m1 = lo + (hi - lo) / 3,
					m2 = hi - (hi - lo) / 3;

		if (bf_min_w1(b, m1) < bf_min_w1(b, m2))
			hi = m2;
		else
			lo = m1;
	}
	return bf_min_w1(b, 0.5 * (lo + hi));
}

static void
project_ball_test(double *th, double radius)
{
	double		n = sqrt(th[0] * th[0] + th[1] * th[1]);

	if (n > radius)
	{
		th[0] *= radius / n;
		th[1] *= radius / n;
	}
}

static void
make_problem(gsu_rng *r, int n, double *x, double *y, double *var, double *delta)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		y[i] = i % 2 ? 1.0 : -1.0;
		x[2 * i] = y[i] * 0.8 + gsu_rng_normal(r);
		x[2 * i + 1] = -y[i] * 0.3 + gsu_rng_normal(r);
		var[2 * i] = 0.5 * gsu_rng_uniform(r);
		var[2 * i + 1] = 0.5 * gsu_rng_uniform(r);
		delta[i] = gsu_tsvc_radius(2, DIAG_COV(var + 2 * i), 1.0);
	}
}

static void
test_solvers(void)
{
	enum
	{
	N = 24};
	gsu_rng		r;
	double		x[2 * N],
				y[N],
				var[2 * N],
				sd[2 * N],
				delta[N];
	int			c,
				i;

	gsu_rng_seed(&r, 51);
	make_problem(&r, N, x, y, var, delta);
	for (i = 0; i < 2 * N; i++)
		sd[i] = sqrt(var[i]);
	for (c = 0; c < (quick ? 2 : 4); c++)
	{
		gsu_robust_data rd;
		gsu_solve_options o;
		gsu_solve_result res;
		brute		b;
		double		theta[3] = {0, 0, 0},
					best;

		memset(&rd, 0, sizeof(rd));
		rd.n = N;
		rd.d = 2;
		rd.x = x;
		rd.y = y;
		if (c == 0)
		{
			rd.loss = GSU_RLOSS_TSVC;
			rd.gamma = 0.8;
			rd.delta = delta;
		}
		else
		{
			rd.loss = GSU_RLOSS_ROBUST;
			rd.gamma = 1.0;
			rd.q = qs[c - 1];
			rd.a_diag = sd;
		}
		gsu_solve_options_default(&o);
		o.lambda = 0.05;
		o.max_iterations = 200000;
		b.rd = &rd;
		b.lambda = o.lambda;
		b.radius = c == 0 ? rd.gamma : -1;
		best = bf_min(&b);
		/* the dual bound is a lower bound wherever it is built */
		{
			int			k;

			for (k = 0; k < 40; k++)
			{
				double		th[3] = {gsu_rng_normal(&r), gsu_rng_normal(&r), gsu_rng_normal(&r)},
							f,
							lo;

				if (c == 0)
					project_ball_test(th, rd.gamma);
				CHECK(gsu_robust_dual_gap(&rd, o.lambda, k % 2 ? 0.0 : 0.3 * gsu_rng_uniform(&r),
										  th, &f, &lo) == GSU_OK, "dual");
				CHECK(lo <= best + 1e-9, "case %d: dual bound %.10g above the optimum %.10g", c, lo, best);
				CHECK(f >= best - 1e-9, "case %d: F %.10g below the optimum %.10g", c, f, best);
			}
		}
		CHECK(gsu_robust_solve_batch(&rd, &o, theta, &res) == GSU_OK, "batch");
		/* the certified gap bounds the true one */
		CHECK(res.objective - best <= res.gap_estimate + 1e-9 && res.gap_estimate <= 1e-4,
			  "case %d: gap %g, true %g", c, res.gap_estimate, res.objective - best);
		CHECK(res.converged, "case %d: not converged (G %g)", c, res.gradient_norm);
		CHECK(res.objective - best <= 1e-4 * (1 + best) && res.objective >= best - 1e-6,
			  "case %d: batch %.10g vs brute force %.10g", c, res.objective, best);
		if (c == 0)
			CHECK(sqrt(theta[0] * theta[0] + theta[1] * theta[1]) <= rd.gamma * (1 + 1e-12),
				  "feasible");
		/* Pegasos comes near */
		memset(theta, 0, sizeof(theta));
		o.epochs = quick ? 200 : 2000;
		o.batch_size = 4;
		CHECK(gsu_robust_solve_pegasos(&rd, &o, theta, &res) == GSU_OK, "pegasos");
		CHECK(res.objective - best <= 2e-2 * (1 + best),
			  "case %d: pegasos %.10g vs brute force %.10g", c, res.objective, best);
	}
}

/*
 * Degenerate solutions (settle_degenerate): the zero model is returned as
 * exactly w = 0 with the best bias and flagged, and TSVC's flag says
 * whether the norm bound ended inactive.
 */
static void
test_degenerate(void)
{
	enum
	{
	N = 24};
	gsu_rng		r;
	double		x[2 * N],
				y[N],
				var[2 * N],
				sd[2 * N],
				delta[N],
				small[N];
	int			c,
				i;

	gsu_rng_seed(&r, 77);
	make_problem(&r, N, x, y, var, delta);
	/* two thirds positive, so that the zero model's best bias is not 0 */
	for (i = 0; i < N; i++)
		if (i % 3 == 0)
			y[i] = 1.0;
	for (i = 0; i < 2 * N; i++)
		sd[i] = sqrt(var[i]);
	for (i = 0; i < N; i++)
		small[i] = 0.05 * delta[i];
	for (c = 0; c < 5; c++)
	{
		gsu_robust_data rd;
		gsu_solve_options o;
		gsu_solve_result res;
		brute		b;
		double		theta[3] = {0, 0, 0},
					best,
					wn,
					dmin = HUGE_VAL;
		int			expect;

		memset(&rd, 0, sizeof(rd));
		rd.n = N;
		rd.d = 2;
		rd.x = x;
		rd.y = y;
		rd.loss = c < 3 ? GSU_RLOSS_TSVC : GSU_RLOSS_ROBUST;
		rd.delta = c == 2 ? small : delta;
		rd.q = 2;
		rd.a_diag = sd;
		for (i = 0; i < N; i++)
			dmin = fmin(dmin, delta[i]);
		switch (c)
		{
			case 0:				/* γδ_i ≥ 1 for every row: F(0, 0) = 0 */
				rd.gamma = 1.0 / dmin;
				expect = GSU_DEGENERATE_ZERO;
				break;
			case 1:				/* a small bound: active */
				rd.gamma = 0.3;
				expect = GSU_DEGENERATE_NONE;
				break;
			case 2:				/* small radii, a large bound: inactive */
				rd.gamma = 50.0;
				expect = GSU_DEGENERATE_BOUND;
				break;
			case 3:				/* Chebyshev at 0.99: γ = √99 */
				rd.gamma = sqrt(99.0);
				expect = GSU_DEGENERATE_ZERO;
				break;
			default:			/* the plain robust loss, a small radius */
				rd.gamma = 0.2;
				expect = GSU_DEGENERATE_NONE;
				break;
		}
		gsu_solve_options_default(&o);
		o.lambda = 0.05;
		o.max_iterations = 200000;
		b.rd = &rd;
		b.lambda = o.lambda;
		b.radius = rd.loss == GSU_RLOSS_TSVC ? rd.gamma : -1;
		best = bf_min(&b);
		CHECK(gsu_robust_solve_batch(&rd, &o, theta, &res) == GSU_OK, "batch");
		wn = sqrt(theta[0] * theta[0] + theta[1] * theta[1]);
		CHECK(res.degenerate == expect, "case %d: degenerate %d, expected %d (||w|| %g)",
			  c, res.degenerate, expect, wn);
		CHECK(res.objective - best <= 1e-4 * (1 + best) && res.objective >= best - 1e-6,
			  "case %d: batch %.10g vs brute force %.10g", c, res.objective, best);
		if (expect == GSU_DEGENERATE_ZERO)
		{
			CHECK(theta[0] == 0.0 && theta[1] == 0.0, "case %d: w = (%g, %g)", c, theta[0], theta[1]);
			/* the reported objective is that of the returned point */
			CHECK_CLOSE(res.objective, bf_f(&b, 0.0, 0.0, theta[2]), 1e-12);
		}
		if (rd.loss == GSU_RLOSS_TSVC && expect != GSU_DEGENERATE_ZERO)
			CHECK((wn < (1.0 - GSU_TSVC_BOUND_SLACK) * rd.gamma) == (expect == GSU_DEGENERATE_BOUND),
				  "case %d: ||w|| %g, gamma %g", c, wn, rd.gamma);
		/* Pegasos: the same flag for the zero model, from any start */
		theta[0] = 0.3;
		theta[1] = -0.2;
		theta[2] = 0.0;
		o.epochs = quick ? 50 : 200;
		o.batch_size = 4;
		CHECK(gsu_robust_solve_pegasos(&rd, &o, theta, &res) == GSU_OK, "pegasos");
		if (expect == GSU_DEGENERATE_ZERO)
			CHECK(res.degenerate == GSU_DEGENERATE_ZERO && theta[0] == 0.0 && theta[1] == 0.0,
				  "case %d: pegasos degenerate %d, w = (%g, %g)", c, res.degenerate, theta[0], theta[1]);
		else
			CHECK(res.degenerate != GSU_DEGENERATE_ZERO, "case %d: pegasos zero model", c);
	}
	/* the zero model's bias: 2/3 positive rows put it at b = 1, F = 2·(1/3) */
	{
		gsu_robust_data rd;
		gsu_solve_options o;
		gsu_solve_result res;
		double		theta[3] = {0, 0, 0};
		double		pos = 0.0;

		memset(&rd, 0, sizeof(rd));
		rd.n = N;
		rd.d = 2;
		rd.x = x;
		rd.y = y;
		rd.loss = GSU_RLOSS_ROBUST;
		rd.q = 2;
		rd.a_diag = sd;
		rd.gamma = 1e3;
		for (i = 0; i < N; i++)
			pos += y[i] > 0;
		gsu_solve_options_default(&o);
		o.lambda = 0.05;
		CHECK(gsu_robust_solve_batch(&rd, &o, theta, &res) == GSU_OK, "batch");
		CHECK(res.degenerate == GSU_DEGENERATE_ZERO, "degenerate %d", res.degenerate);
		CHECK_CLOSE(theta[2], 1.0, 1e-12);
		CHECK_CLOSE(res.objective, 2.0 * (N - pos) / N, 1e-12);
	}
}

/* integer row weights are copies of the rows, weight 0 is no row */
static void
test_weights(void)
{
	enum
	{
	N = 30};
	gsu_rng		r;
	double		x[2 * N],
				y[N],
				var[2 * N],
				sd[2 * N],
				delta[N],
				wt[N];
	double		x2[2 * 2 * N],
				y2[2 * N],
				sd2[2 * 2 * N],
				delta2[2 * N];
	int			i,
				n2 = 0,
				c;

	gsu_rng_seed(&r, 71);
	make_problem(&r, N, x, y, var, delta);
	for (i = 0; i < N; i++)
	{
		int			k;

		wt[i] = (double) (i % 3);	/* 0, 1, 2 */
		for (k = 0; k < (int) wt[i]; k++, n2++)
		{
			x2[2 * n2] = x[2 * i];
			x2[2 * n2 + 1] = x[2 * i + 1];
			y2[n2] = y[i];
			sd2[2 * n2] = sqrt(var[2 * i]);
			sd2[2 * n2 + 1] = sqrt(var[2 * i + 1]);
			delta2[n2] = delta[i];
		}
		sd[2 * i] = sqrt(var[2 * i]);
		sd[2 * i + 1] = sqrt(var[2 * i + 1]);
	}
	for (c = 0; c < 3; c++)
	{
		gsu_robust_data a,
					b;
		gsu_solve_options o;
		gsu_solve_result ra,
					rb;
		double		ta[3] = {0},
					tb[3] = {0};

		memset(&a, 0, sizeof(a));
		a.n = N;
		a.d = 2;
		a.x = x;
		a.y = y;
		a.weight = wt;
		a.loss = c == 0 ? GSU_RLOSS_TSVC : GSU_RLOSS_ROBUST;
		a.gamma = c == 0 ? 0.8 : 1.0;
		a.q = c == 2 ? 1 : 2;
		a.delta = delta;
		a.a_diag = sd;
		b = a;
		b.n = n2;
		b.x = x2;
		b.y = y2;
		b.weight = NULL;
		b.delta = delta2;
		b.a_diag = sd2;
		gsu_solve_options_default(&o);
		o.lambda = 0.05;
		o.max_iterations = 200000;
		CHECK(gsu_robust_solve_batch(&a, &o, ta, &ra) == GSU_OK, "weighted");
		CHECK(gsu_robust_solve_batch(&b, &o, tb, &rb) == GSU_OK, "copies");
		CHECK(fabs(ra.objective - rb.objective) <= 2e-5 * (1 + rb.objective),
			  "case %d: weighted %.10g vs copies %.10g", c, ra.objective, rb.objective);
		/* the same objective at the same point */
		{
			double		fa,
						fb;

			(void) gsu_robust_objective(&a, o.lambda, 0.0, tb, &fa, NULL);
			(void) gsu_robust_objective(&b, o.lambda, 0.0, tb, &fb, NULL);
			CHECK_CLOSE(fa, fb, 1e-12 * (1 + fb));
		}
		if (c == 0)
		{
			/* the alternating algorithm too */
			memset(ta, 0, sizeof(ta));
			memset(tb, 0, sizeof(tb));
			CHECK(gsu_tsvc_solve_alternating(&a, &o, ta, &ra) == GSU_OK, "alt weighted");
			CHECK(gsu_tsvc_solve_alternating(&b, &o, tb, &rb) == GSU_OK, "alt copies");
			CHECK(fabs(ra.objective - rb.objective) <= 1e-6 * (1 + rb.objective),
				  "alternating: weighted %.10g vs copies %.10g", ra.objective, rb.objective);
		}
	}
}

/* the alternating algorithm never increases the non-convex objective */
static void
test_alternating(void)
{
	enum
	{
	N = 60};
	gsu_rng		r;
	double		x[2 * N],
				y[N],
				var[2 * N],
				delta[N],
				theta[3] = {0, 0, 0},
				svm[3] = {0, 0, 0};
	gsu_robust_data rd;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_dataset ds;

	gsu_rng_seed(&r, 61);
	make_problem(&r, N, x, y, var, delta);
	memset(&rd, 0, sizeof(rd));
	rd.n = N;
	rd.d = 2;
	rd.x = x;
	rd.y = y;
	rd.loss = GSU_RLOSS_TSVC;
	rd.delta = delta;
	gsu_solve_options_default(&o);
	o.lambda = 0.05;
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, theta, &res) == GSU_OK, "alternating");
	CHECK(res.iterations >= 2, "rounds %lld", (long long) res.iterations);
	CHECK_CLOSE(res.objective, gsu_tsvc_objective_exact(&rd, o.lambda, theta), 1e-12);
	/* the first round is the plain SVM; its TSVC objective is not lower */
	memset(&ds, 0, sizeof(ds));
	ds.n = N;
	ds.d = 2;
	ds.x = x;
	ds.y = y;
	{
		gsu_solve_result r2;

		CHECK(gsu_solve_newton(&ds, &o, svm, &r2) == GSU_OK, "svm");
		CHECK(res.objective <= gsu_tsvc_objective_exact(&rd, o.lambda, svm) + 1e-9,
			  "alternating %g vs svm %g", res.objective,
			  gsu_tsvc_objective_exact(&rd, o.lambda, svm));
	}
}

/* ------------------------------------------------------------ Power SVM */

#define PI_ 3.14159265358979323846

/*
 * The PSVM row loss h(d_x − r‖w‖) against the best case over the disk
 * ‖Δx‖ ≤ r in 2-D found by brute force: a polar grid of the disk (the
 * hinge of an affine function is smallest on the boundary circle, at the
 * angle of y·w, or 0 inside), whose minimum approaches the closed form
 * from above to within the grid's resolution.
 */
static void
test_psvm_row_loss(void)
{
	enum
	{
	A = 3600, R = 20};
	gsu_rng		r;
	double		theta[3],
				x[2],
				p[2];
	int			t,
				a,
				k;

	gsu_rng_seed(&r, 71);
	for (t = 0; t < (quick ? 20 : 100); t++)
	{
		double		y = t % 2 ? 1.0 : -1.0,
					rad = t % 10 == 0 ? 0.0 : 2.0 * gsu_rng_uniform(&r),
					wn,
					closed,
					best = HUGE_VAL;

		for (k = 0; k < 3; k++)
			theta[k] = gsu_rng_normal(&r);
		x[0] = gsu_rng_normal(&r);
		x[1] = gsu_rng_normal(&r);
		wn = hypot(theta[0], theta[1]);
		closed = gsu_psvm_row_loss(2, theta, x, y, rad);
		CHECK_CLOSE(closed, fmax(0.0, 1.0 - y * (theta[0] * x[0] + theta[1] * x[1] + theta[2]) -
								 rad * wn), 1e-12);
		for (a = 0; a < A; a++)
			for (k = 0; k <= R; k++)
			{
				double		phi = 2.0 * PI_ * a / A,
							rho = rad * k / R,
							v;

				p[0] = x[0] + rho * cos(phi);
				p[1] = x[1] + rho * sin(phi);
				v = gsu_tsvc_row_loss(2, theta, p, y, 0.0, 0.0, 0.0, NULL);
				CHECK(v >= closed - 1e-12, "a point of the disk %g beats the closed form %g",
					  v, closed);
				best = fmin(best, v);
			}
		/* the grid's best point is within r·‖w‖·(1 − cos(π/A)) of the optimum */
		CHECK(best - closed <= rad * wn * (1.0 - cos(PI_ / A)) + 1e-12,
			  "grid %g vs closed form %g", best, closed);
	}
}

/* the radii: a row's own number, 0 for certain rows, nothing else */
static void
test_psvm_radii(void)
{
	double		iso[3] = {0.0, 0.5, 2.0},
				bad[2] = {1.0, -0.5},
				nan_[1] = {NAN},
				out[3] = {-1, -1, -1};

	CHECK(gsu_psvm_radii(3, GSU_COV_ISO, iso, out) == GSU_OK, "iso");
	CHECK(out[0] == 0.0 && out[1] == 0.5 && out[2] == 2.0, "radii %g %g %g", out[0], out[1], out[2]);
	CHECK(gsu_psvm_radii(3, GSU_COV_NONE, NULL, out) == GSU_OK, "none");
	CHECK(out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0, "certain rows");
	CHECK(gsu_psvm_radii(2, GSU_COV_ISO, bad, out) == GSU_EINVAL, "negative radius");
	CHECK(gsu_psvm_radii(1, GSU_COV_ISO, nan_, out) == GSU_EINVAL, "NaN radius");
	CHECK(gsu_psvm_radii(1, GSU_COV_DIAG, iso, out) == GSU_EINVAL, "diagonal");
	CHECK(gsu_psvm_radii(1, GSU_COV_FULL, iso, out) == GSU_EINVAL, "full");
}

/* PSVM's objective λ/2‖w‖² + (1/n)Σ h(d_x − r_i‖w‖) at θ */
static double
psvm_objective(int n, int d, const double *x, const double *y, const double *rad,
			   double lambda, const double *theta)
{
	double		ww = 0.0,
				sum = 0.0;
	int			i;

	for (i = 0; i < d; i++)
		ww += theta[i] * theta[i];

	for (i = 0; i < n; i++)
		sum += gsu_psvm_row_loss(d, theta, x + (size_t) i * d, y[i], rad[i]);
	return 0.5 * lambda * ww + sum / n;
}

/*
 * The solve (the alternating algorithm on the radii) on three problems:
 * (a) separable in 1-D, x = ±2 with radius r: each ball reaches to 2 + r,
 * so w* = 1/(2 + r), b* = 0 (for λ < 2/(2 + r)², where the data term's
 * slope exceeds the regularizer's); (b) a non-separable 2-D problem: the
 * objective is the exact PSVM one, not above the hinge SVM's, and no
 * small move of θ lowers it (a local minimum of the non-convex problem);
 * (c) radius 0 everywhere: exactly the hinge SVM's solution.
 */
static void
test_psvm_solve(void)
{
	enum
	{
	N = 60};
	gsu_rng		r;
	double		x[2 * N],
				y[N],
				var[2 * N],
				rad[N],
				zero[N],
				theta[3],
				svm[3];
	gsu_robust_data rd;
	gsu_solve_options o;
	gsu_solve_result res,
				r2;
	gsu_dataset ds;
	int			i,
				k,
				j;

	gsu_solve_options_default(&o);
	o.lambda = 1e-3;
	o.tolerance = 1e-10;
	/* (a) */
	{
		double		x1[2] = {2.0, -2.0},
					y1[2] = {1.0, -1.0},
					radii[4] = {0.0, 0.5, 1.0, 3.0};

		for (k = 0; k < 4; k++)
		{
			double		r1[2] = {radii[k], radii[k]},
						t1[2] = {0, 0};

			memset(&rd, 0, sizeof(rd));
			rd.n = 2;
			rd.d = 1;
			rd.x = x1;
			rd.y = y1;
			rd.loss = GSU_RLOSS_TSVC;
			rd.delta = r1;
			CHECK(gsu_tsvc_solve_alternating(&rd, &o, t1, &res) == GSU_OK, "separable");
			CHECK_CLOSE(t1[0], 1.0 / (2.0 + radii[k]), 1e-6);
			CHECK_CLOSE(t1[1], 0.0, 1e-6);
			CHECK_CLOSE(res.objective, psvm_objective(2, 1, x1, y1, r1, o.lambda, t1), 1e-12);
		}
	}
	/* (b) */
	gsu_rng_seed(&r, 73);
	make_problem(&r, N, x, y, var, rad);
	for (i = 0; i < N; i++)
		rad[i] = 1.5 * gsu_rng_uniform(&r);
	o.lambda = 0.05;
	o.tolerance = 1e-9;
	memset(&rd, 0, sizeof(rd));
	rd.n = N;
	rd.d = 2;
	rd.x = x;
	rd.y = y;
	rd.loss = GSU_RLOSS_TSVC;
	rd.delta = rad;
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, theta, &res) == GSU_OK, "non-separable");
	CHECK_CLOSE(res.objective, psvm_objective(N, 2, x, y, rad, o.lambda, theta), 1e-12);
	memset(&ds, 0, sizeof(ds));
	ds.n = N;
	ds.d = 2;
	ds.x = x;
	ds.y = y;
	memset(svm, 0, sizeof(svm));
	CHECK(gsu_solve_newton(&ds, &o, svm, &r2) == GSU_OK, "svm");
	CHECK(res.objective <= psvm_objective(N, 2, x, y, rad, o.lambda, svm) + 1e-9,
		  "psvm %g above the svm's %g", res.objective,
		  psvm_objective(N, 2, x, y, rad, o.lambda, svm));
	for (k = 0; k < 200; k++)
	{
		double		t[3];

		for (j = 0; j < 3; j++)
			t[j] = theta[j] + 1e-3 * gsu_rng_normal(&r);
		CHECK(psvm_objective(N, 2, x, y, rad, o.lambda, t) >= res.objective - 1e-6,
			  "a move lowers the objective: %g < %g",
			  psvm_objective(N, 2, x, y, rad, o.lambda, t), res.objective);
	}
	/* (c) */
	for (i = 0; i < N; i++)
		zero[i] = 0.0;
	rd.delta = zero;
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, theta, &res) == GSU_OK, "radius 0");
	for (j = 0; j < 3; j++)
		CHECK(theta[j] == svm[j], "radius 0: theta[%d] %.17g, the svm's %.17g", j, theta[j], svm[j]);
	CHECK_CLOSE(res.objective, r2.objective, 1e-12 * (1.0 + r2.objective));
}

/* ------------------------------------ Bi & Zhang's synthetic experiment */

/*
 * Points z uniform in [−5, 5]², label sign(z1 − z2); each training row is
 * observed as x = z + σ_i·e, e ~ N(0, I), with σ_i ~ U(0, 0.5) and, for a
 * fifth of the rows (the outliers), σ_i ~ U(2, 4); the row's variance is
 * σ_i² (isotropic).  Test points are clean and labelled by the target.
 * Averaged over several seeds: TSVC (both algorithms) has a lower test
 * error than the hinge SVM on the same rows.
 */
static void
test_tsvc_synthetic(void)
{
	enum
	{
	N = 100, T = 2000};
	int			seeds = quick ? 3 : 20,
				s,
				i;
	double		err_svm = 0,
				err_alt = 0,
				err_proj = 0,
				err_rob = 0;
	double	   *x = malloc(sizeof(double) * 2 * N),
			   *y = malloc(sizeof(double) * N),
			   *iso = malloc(sizeof(double) * N),
			   *sd = malloc(sizeof(double) * N),
			   *delta = malloc(sizeof(double) * N),
			   *tz = malloc(sizeof(double) * 2 * T),
			   *ty = malloc(sizeof(double) * T);
	int			better = 0;

	for (s = 0; s < seeds; s++)
	{
		gsu_rng		r;
		gsu_dataset ds;
		gsu_robust_data rd;
		gsu_solve_options o;
		gsu_solve_result res;
		double		th_svm[3] = {0},
					th_alt[3] = {0},
					th_proj[3] = {0},
					th_rob[3] = {0};
		double		e[4] = {0};
		int			k;

		gsu_rng_seed(&r, 1000 + s);
		for (i = 0; i < N; i++)
		{
			double		z0 = -5 + 10 * gsu_rng_uniform(&r),
						z1 = -5 + 10 * gsu_rng_uniform(&r),
						sig = i % 5 == 0 ? 2 + 2 * gsu_rng_uniform(&r) : 0.5 * gsu_rng_uniform(&r);

			y[i] = z0 - z1 >= 0 ? 1.0 : -1.0;
			x[2 * i] = z0 + sig * gsu_rng_normal(&r);
			x[2 * i + 1] = z1 + sig * gsu_rng_normal(&r);
			iso[i] = sig * sig;
			sd[i] = sig;
			delta[i] = gsu_tsvc_radius(2, ISO_COV(iso[i]), 1.0);
		}
		for (i = 0; i < T; i++)
		{
			tz[2 * i] = -5 + 10 * gsu_rng_uniform(&r);
			tz[2 * i + 1] = -5 + 10 * gsu_rng_uniform(&r);
			ty[i] = tz[2 * i] - tz[2 * i + 1] >= 0 ? 1.0 : -1.0;
		}
		gsu_solve_options_default(&o);
		o.lambda = 0.01;
		o.max_iterations = 200000;
		memset(&ds, 0, sizeof(ds));
		ds.n = N;
		ds.d = 2;
		ds.x = x;
		ds.y = y;
		CHECK(gsu_solve_newton(&ds, &o, th_svm, &res) == GSU_OK, "svm");
		memset(&rd, 0, sizeof(rd));
		rd.n = N;
		rd.d = 2;
		rd.x = x;
		rd.y = y;
		rd.loss = GSU_RLOSS_TSVC;
		rd.delta = delta;
		CHECK(gsu_tsvc_solve_alternating(&rd, &o, th_alt, &res) == GSU_OK, "alternating");
		rd.gamma = 2.0;
		CHECK(gsu_robust_solve_batch(&rd, &o, th_proj, &res) == GSU_OK, "projected");
		rd.loss = GSU_RLOSS_ROBUST;
		rd.q = 2;
		rd.gamma = 1.0;
		rd.a_iso = sd;
		CHECK(gsu_robust_solve_batch(&rd, &o, th_rob, &res) == GSU_OK, "robust");
		for (i = 0; i < T; i++)
		{
			double	   *ths[4] = {th_svm, th_alt, th_proj, th_rob};

			for (k = 0; k < 4; k++)
				e[k] += (gsu_decision(2, ths[k], tz + 2 * i) * ty[i] <= 0) / (double) T;
		}
		err_svm += e[0] / seeds;
		err_alt += e[1] / seeds;
		err_proj += e[2] / seeds;
		err_rob += e[3] / seeds;
		better += e[1] <= e[0];
	}
	if (getenv("GSU_TEST_VERBOSE"))
		printf("# mean test error over %d seeds: svm %.4f, tsvc alternating %.4f, "
			   "tsvc projected (gamma 2) %.4f, robust q=2 (gamma 1) %.4f; "
			   "alternating <= svm in %d of %d\n",
			   seeds, err_svm, err_alt, err_proj, err_rob, better, seeds);
	/*
	 * The comparison needs the average over many data sets (TSVC is lower in
	 * 10 to 15 of 20 single ones); with 20 seeds and four other seed bases
	 * (1000 + s … 5000 + s) the means were 25–30 % lower.  The quick run
	 * (3 seeds, under valgrind) checks only that every method learns.
	 */
	if (!quick)
	{
		CHECK(err_alt < err_svm, "alternating %g vs svm %g", err_alt, err_svm);
		CHECK(err_proj < err_svm, "projected %g vs svm %g", err_proj, err_svm);
	}
	CHECK(err_svm < 0.1 && err_alt < 0.1 && err_proj < 0.1 && err_rob < 0.15,
		  "errors %g %g %g %g", err_svm, err_alt, err_proj, err_rob);
	free(x);
	free(y);
	free(iso);
	free(sd);
	free(delta);
	free(tz);
	free(ty);
}

/* the rows' shapes from their covariances: radii, or square roots */
static void
test_row_shapes(void)
{
	double		diag[4] = {4.0, 16.0, 1.0, 0.0},
				iso[2] = {9.0, 0.0},
				full[8] = {4.0, 0.0, 0.0, 9.0, 2.0, 1.0, 1.0, 2.0},
				out[8];
	gsu_progress pg = gsu_progress_make(NULL, NULL),
				stop = gsu_progress_make(stop_now, NULL);

	/* TSVC: scale * sqrt(mean variance) */
	CHECK(gsu_robust_row_shapes(2, 2, GSU_COV_DIAG, diag, 1, 2.0, out, &pg) == GSU_OK &&
		  fabs(out[0] - 2.0 * sqrt(10.0)) < 1e-15 && fabs(out[1] - 2.0 * sqrt(0.5)) < 1e-15,
		  "diag radii %g %g", out[0], out[1]);
	CHECK(gsu_robust_row_shapes(2, 3, GSU_COV_ISO, iso, 1, 1.0, out, &pg) == GSU_OK &&
		  out[0] == 3.0 && out[1] == 0.0, "iso radii %g %g", out[0], out[1]);
	CHECK(gsu_robust_row_shapes(2, 2, GSU_COV_FULL, full, 1, 1.0, out, &pg) == GSU_OK &&
		  fabs(out[0] - sqrt(6.5)) < 1e-15 && fabs(out[1] - sqrt(2.0)) < 1e-15,
		  "full radii %g %g", out[0], out[1]);
	/* robust: Sigma^(1/2) */
	CHECK(gsu_robust_row_shapes(2, 2, GSU_COV_DIAG, diag, 0, 1.0, out, &pg) == GSU_OK &&
		  out[0] == 2.0 && out[1] == 4.0 && out[2] == 1.0 && out[3] == 0.0, "diag roots");
	CHECK(gsu_robust_row_shapes(2, 2, GSU_COV_FULL, full, 0, 1.0, out, &pg) == GSU_OK,
		  "full roots");
	/* [[2,1],[1,2]]^(1/2) = [[a,b],[b,a]], a = (sqrt3 + 1)/2, b = (sqrt3 - 1)/2 */
	CHECK(fabs(out[0] - 2.0) < 1e-12 && fabs(out[3] - 3.0) < 1e-12 &&
		  fabs(out[4] - (sqrt(3.0) + 1.0) / 2.0) < 1e-12 &&
		  fabs(out[5] - (sqrt(3.0) - 1.0) / 2.0) < 1e-12, "roots %g %g", out[4], out[5]);
	stop.work = 1e300;
	CHECK(gsu_robust_row_shapes(2, 2, GSU_COV_FULL, full, 0, 1.0, out, &stop) == GSU_ECANCELLED,
		  "cancel between rows");
}

static const gsu_test_case tests[] = {
	{"quantile", test_quantile},
	{"dual_norms", test_dual_norms},
	{"sqrtm", test_sqrtm},
	{"worst_case", test_worst_case},
	{"gradients", test_gradients},
	{"tsvc_best_case", test_tsvc_best_case},
	{"chance_constraint", test_chance_constraint},
	{"solvers", test_solvers},
	{"degenerate", test_degenerate},
	{"weights", test_weights},
	{"alternating", test_alternating},
	{"psvm_row_loss", test_psvm_row_loss},
	{"psvm_radii", test_psvm_radii},
	{"psvm_solve", test_psvm_solve},
	{"tsvc_synthetic", test_tsvc_synthetic},
	{"row_shapes", test_row_shapes},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
