/*
 * test_regression.c — unit tests of regression on uncertain inputs
 * (src/core/gsu_regression.c), no PostgreSQL: the expected ε-insensitive
 * and squared losses against Monte Carlo for every covariance kind, their
 * gradients and Hessians against central finite differences, the s → 0
 * limit, extreme μ/s, ridge-GSU against the augmented normal equations
 * solved here in long double (and ordinary ridge in 1-D when Σ = 0),
 * SVR-GSU's optimum (gradient ~0; with Σ = 0 the plain ε-SVR found by an
 * exact search in 1-D), cancellation and invalid arguments.
 * Deterministic: fixed seeds.  GSU_TEST_QUICK=1 shrinks the Monte Carlo.
 */
#include "gsu_regression.h"
#include "gsu_loss.h"
#include "gsu_rng.h"
#include "gsu_test.h"

#define D 3
#define R 2						/* the factor's rank */
#define NKINDS 5

static const gsu_cov_kind kinds[NKINDS] =
{GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL, GSU_COV_FACTOR};

/* one row's covariance of a kind, with its square root for sampling */
typedef struct test_cov
{
	gsu_cov		cov;
	double		data[D * D];
	double		root[D * D];	/* z = x + root·ξ (d × k, row-major) */
	int			k;				/* columns of root */
} test_cov;

static void
make_cov(test_cov *t, gsu_cov_kind kind, uint64_t *st)
{
	int			i,
				j,
				l;

	memset(t, 0, sizeof(*t));
	t->cov.kind = kind;
	switch (kind)
	{
		case GSU_COV_NONE:
			t->k = 0;
			break;
		case GSU_COV_ISO:
			t->cov.iso = 0.2 + test_unif(st);
			t->k = D;
			for (j = 0; j < D; j++)
				t->root[j * D + j] = sqrt(t->cov.iso);
			break;
		case GSU_COV_DIAG:
			t->k = D;
			for (j = 0; j < D; j++)
			{
				t->data[j] = 0.1 + 1.5 * test_unif(st);
				t->root[j * D + j] = sqrt(t->data[j]);
			}
			t->cov.data = t->data;
			break;
		case GSU_COV_FULL:
		case GSU_COV_FACTOR:
			t->k = kind == GSU_COV_FULL ? D : R;
			for (i = 0; i < D; i++)
				for (l = 0; l < t->k; l++)
					t->root[i * t->k + l] = 2.0 * test_unif(st) - 1.0;
			if (kind == GSU_COV_FACTOR)
			{
				memcpy(t->data, t->root, sizeof(double) * D * R);
				t->cov.rank = R;
			}
			else
				for (i = 0; i < D; i++)
					for (j = 0; j < D; j++)
					{
						double		s = 0.0;

						for (l = 0; l < D; l++)
							s += t->root[i * D + l] * t->root[j * D + l];
						t->data[i * D + j] = s;
					}
			t->cov.data = t->data;
			break;
	}
}

static void
rand_vec(int n, double *v, double scale, uint64_t *st)
{
	int			j;

	for (j = 0; j < n; j++)
		v[j] = scale * (2.0 * test_unif(st) - 1.0);
}

/* ------------------------------------------------ closed forms vs MC */

static void
test_monte_carlo(void)
{
	int64_t		ndraw = quick ? 100000 : 1000000;
	uint64_t	st = 11;
	int			kk,
				trial;

	for (kk = 0; kk < NKINDS; kk++)
		for (trial = 0; trial < 3; trial++)
		{
			test_cov	tc;
			double		theta[D + 1],
						x[D],
						work[D],
						xi[D],
						y,
						eps = trial == 0 ? 0.0 : 0.4 * trial,
						sum = 0.0,
						sum2 = 0.0,
						sq = 0.0,
						sq2 = 0.0,
						el,
						esq,
						mean,
						se;
			gsu_rng		rng;
			int64_t		t;
			int			j,
						l;

			make_cov(&tc, kinds[kk], &st);
			rand_vec(D + 1, theta, 1.0, &st);
			rand_vec(D, x, 1.0, &st);
			y = gsu_decision(D, theta, x) + (trial - 1) * 0.7;
			el = gsu_svr_row_loss_grad(D, theta, x, &tc.cov, y, eps, 0.0, 1.0, NULL, work);
			esq = gsu_ridge_row_loss_grad(D, theta, x, &tc.cov, y, 1.0, NULL, work);
			gsu_rng_seed(&rng, 1000 + kk * 10 + trial);
			for (t = 0; t < ndraw; t++)
			{
				double		r = y - theta[D],
							li;

				for (l = 0; l < tc.k; l++)
					xi[l] = gsu_rng_normal(&rng);
				for (j = 0; j < D; j++)
				{
					double		z = x[j];

					for (l = 0; l < tc.k; l++)
						z += tc.root[j * tc.k + l] * xi[l];
					r -= theta[j] * z;
				}
				li = fmax(0.0, fabs(r) - eps);
				sum += li;
				sum2 += li * li;
				sq += r * r;
				sq2 += r * r * r * r;
			}
			mean = sum / ndraw;
			se = sqrt(fmax(sum2 / ndraw - mean * mean, 0.0) / ndraw);
			/* 5 standard errors (a certain row: the draws are all the same value) */
			CHECK(fabs(mean - el) <= 5.0 * se + 1e-12 * (1.0 + el),
				  "kind %d trial %d: eps-loss %.10g vs MC %.10g (se %.3g)", kk, trial, el, mean, se);
			mean = sq / ndraw;
			se = sqrt(fmax(sq2 / ndraw - mean * mean, 0.0) / ndraw);
			CHECK(fabs(mean - esq) <= 5.0 * se + 1e-12 * (1.0 + esq),
				  "kind %d trial %d: squared %.10g vs MC %.10g (se %.3g)", kk, trial, esq, mean, se);
		}
}

/* ------------------------------------- the scalar function and its parts */

#define SQRT2PI_L 2.506628274631000502415765284811045253L

/*
 * H(t) = tΦ(t) + φ(t) in long double: directly for t ≥ −8, and below from
 * the asymptotic series H(−t) = φ(t) Σ_{k≥1} (−1)^{k+1} (2k−1)!!/t^{2k}
 * (Mills' ratio), which has no cancellation (under valgrind long double is
 * double, and the direct form loses ~t² of its precision)
 */
static long double
ref_H(long double t)
{
	long double x,
				term,
				sum = 0;
	int			k;

	if (t >= -8)
		return t * 0.5L * erfcl(-t / sqrtl(2.0L)) + expl(-t * t / 2) / SQRT2PI_L;
	x = 1 / (t * t);
	term = x;
	for (k = 1; k < 2000; k++)
	{
		long double next = term * (2 * k + 1) * x;

		sum += (k % 2 == 1) ? term : -term;
		if (next > term || fabsl(next) < 1e-24L * fabsl(sum))
			break;
		term = next;
	}
	return expl(-t * t / 2) / SQRT2PI_L * sum;
}

static void
test_scalar_reference(void)
{
	static const double mus[] = {-7.0, -2.5, -1.0, -0.3, 0.0, 0.2, 0.9, 1.7, 4.0, 8.0};
	static const double ss[] = {0.05, 0.3, 1.0, 2.5};
	static const double epss[] = {0.0, 0.5, 2.0};
	size_t		a,
				b,
				c;

	for (a = 0; a < sizeof(mus) / sizeof(mus[0]); a++)
		for (b = 0; b < sizeof(ss) / sizeof(ss[0]); b++)
			for (c = 0; c < sizeof(epss) / sizeof(epss[0]); c++)
			{
				double		mu = mus[a],
							s = ss[b],
							eps = epss[c],
							h = 1e-5 * s;
				long double a1 = (mu - eps) / (long double) s,
							a2 = (-mu - eps) / (long double) s;
				long double ref = s * (ref_H(a1) + ref_H(a2));
				gsu_eps_loss e,
							ep,
							em;

				gsu_expected_eps_insensitive(mu, s, eps, &e);
				CHECK(reldiff(e.loss, (double) ref, 1e-300) <= 1e-12 || fabs(e.loss - (double) ref) < 1e-300,
					  "mu %g s %g eps %g: %.17g vs %.17Lg", mu, s, eps, e.loss, ref);
				/* ∂/∂μ, ∂/∂s and the (μ, s) Hessian by central differences */
				gsu_expected_eps_insensitive(mu + h, s, eps, &ep);
				gsu_expected_eps_insensitive(mu - h, s, eps, &em);
				CHECK(fabs((ep.loss - em.loss) / (2 * h) - e.d_mu) <= 1e-6,
					  "d_mu mu %g s %g eps %g: %.10g vs %.10g", mu, s, eps,
					  (ep.loss - em.loss) / (2 * h), e.d_mu);
				CHECK(fabs((ep.d_mu - em.d_mu) / (2 * h) - e.h_mumu) <= 1e-5 * (1.0 + fabs(e.h_mumu)),
					  "h_mumu mu %g s %g: %.10g vs %.10g", mu, s, (ep.d_mu - em.d_mu) / (2 * h), e.h_mumu);
				CHECK(fabs((ep.d_s - em.d_s) / (2 * h) - e.h_mus) <= 1e-5 * (1.0 + fabs(e.h_mus)),
					  "h_mus mu %g s %g: %.10g vs %.10g", mu, s, (ep.d_s - em.d_s) / (2 * h), e.h_mus);
				gsu_expected_eps_insensitive(mu, s + h, eps, &ep);
				gsu_expected_eps_insensitive(mu, s - h, eps, &em);
				CHECK(fabs((ep.loss - em.loss) / (2 * h) - e.d_s) <= 1e-6,
					  "d_s mu %g s %g eps %g: %.10g vs %.10g", mu, s, eps,
					  (ep.loss - em.loss) / (2 * h), e.d_s);
				CHECK(fabs((ep.d_s - em.d_s) / (2 * h) - e.h_ss) <= 1e-5 * (1.0 + fabs(e.h_ss)),
					  "h_ss mu %g s %g: %.10g vs %.10g", mu, s, (ep.d_s - em.d_s) / (2 * h), e.h_ss);
				/* Jensen: never below the plain loss; PSD Hessian */
				CHECK(e.loss >= fmax(0.0, fabs(mu) - eps), "below the plain loss");
				CHECK(e.h_mumu >= 0.0 && e.h_ss >= 0.0 &&
					  e.h_mumu * e.h_ss - e.h_mus * e.h_mus >= -1e-12 * (1.0 + e.h_mumu * e.h_ss),
					  "Hessian not PSD at mu %g s %g", mu, s);
			}
}

static void
test_s_to_zero(void)
{
	static const double mus[] = {-3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0};
	size_t		a;

	for (a = 0; a < sizeof(mus) / sizeof(mus[0]); a++)
	{
		double		mu = mus[a],
					eps = 0.5,
					plain = fmax(0.0, fabs(mu) - eps),
					sub = fabs(mu) > eps ? (mu > 0 ? 1.0 : -1.0) : 0.0;
		gsu_eps_loss e;
		double		s;

		gsu_expected_eps_insensitive(mu, 0.0, eps, &e);
		CHECK(e.loss == plain, "s = 0, mu %g: %.17g vs %.17g", mu, e.loss, plain);
		CHECK(e.d_mu == sub, "s = 0, mu %g: subgradient %g vs %g", mu, e.d_mu, sub);
		CHECK(e.d_s == 0.0 && e.h_mumu == 0.0 && e.h_ss == 0.0 && e.h_mus == 0.0,
			  "s = 0: no curvature");
		/* 0 ≤ L(μ, s) − L(μ, 0) ≤ s·2φ(0) */
		for (s = 1e-1; s > 1e-200; s *= 1e-3)
		{
			gsu_expected_eps_insensitive(mu, s, eps, &e);
			CHECK(e.loss >= plain && e.loss - plain <= s * 0.7978845608028654 * (1 + 1e-12) + 1e-300,
				  "mu %g s %g: %.17g vs plain %.17g", mu, s, e.loss, plain);
			if (fabs(fabs(mu) - eps) > 1e-3 && s < 1e-6)
				CHECK(e.d_mu == sub, "mu %g s %g: d_mu %.17g vs %g", mu, s, e.d_mu, sub);
		}
	}
}

static void
test_extreme(void)
{
	static const double mus[] = {-1e300, -1e10, -50.0, -1.0, 0.0, 1e-300, 1.0, 50.0, 1e10, 1e300};
	static const double ss[] = {0.0, 1e-300, 1e-150, 1e-10, 1.0, 1e10, 1e150, 1e300};
	static const double epss[] = {0.0, 1.0, 1e300};
	size_t		a,
				b,
				c;

	for (a = 0; a < sizeof(mus) / sizeof(mus[0]); a++)
		for (b = 0; b < sizeof(ss) / sizeof(ss[0]); b++)
			for (c = 0; c < sizeof(epss) / sizeof(epss[0]); c++)
			{
				gsu_eps_loss e;
				double		mu = mus[a],
							s = ss[b],
							eps = epss[c];

				gsu_expected_eps_insensitive(mu, s, eps, &e);
				CHECK(isfinite(e.loss) && isfinite(e.d_mu) && isfinite(e.d_s) &&
					  isfinite(e.h_mumu) && isfinite(e.h_mus) && isfinite(e.h_ss),
					  "mu %g s %g eps %g: %g %g %g %g %g %g", mu, s, eps, e.loss, e.d_mu,
					  e.d_s, e.h_mumu, e.h_mus, e.h_ss);
				CHECK(e.loss >= fmax(0.0, fabs(mu) - eps) * (1 - 1e-15),
					  "mu %g s %g eps %g: %g below the plain loss", mu, s, eps, e.loss);
				CHECK(fabs(e.d_mu) <= 1.0 && e.d_s >= 0.0 && e.d_s <= 0.8,
					  "mu %g s %g eps %g: partials %g %g", mu, s, eps, e.d_mu, e.d_s);
			}
	/* far outside the tube the loss is |μ| − ε exactly */
	{
		gsu_eps_loss e;

		gsu_expected_eps_insensitive(30.0, 1.0, 0.0, &e);
		CHECK(reldiff(e.loss, 30.0, 1.0) <= 1e-15 && e.d_mu == 1.0, "mu 30 s 1: %.17g %.17g", e.loss, e.d_mu);
		gsu_expected_eps_insensitive(-30.0, 1.0, 2.0, &e);
		CHECK(reldiff(e.loss, 28.0, 1.0) <= 1e-15 && e.d_mu == -1.0, "mu -30 s 1: %.17g %.17g", e.loss, e.d_mu);
	}
}

/* ------------------------------------------- per-row gradients, Hessians */

static void
test_row_derivatives(void)
{
	uint64_t	st = 5;
	int			kk,
				trial;

	for (kk = 0; kk < NKINDS; kk++)
		for (trial = 0; trial < 4; trial++)
		{
			test_cov	tc;
			double		theta[D + 1],
						x[D],
						work[2 * (D + 1)],
						g[D + 1],
						g2[D + 1],
						tp[D + 1],
						hs[(D + 1) * (D + 1)],
						hr[(D + 1) * (D + 1)],
						y,
						eps = 0.3,
						tau = trial % 2 ? 0.3 : 0.0;
			int			j,
						l;

			make_cov(&tc, kinds[kk], &st);
			rand_vec(D + 1, theta, 1.0, &st);
			rand_vec(D, x, 1.0, &st);
			y = gsu_decision(D, theta, x) + (trial - 1.5) * 0.5;
			memset(g, 0, sizeof(g));
			memset(hs, 0, sizeof(hs));
			gsu_svr_row_loss_grad(D, theta, x, &tc.cov, y, eps, tau, 1.0, g, work);
			gsu_svr_row_hessian(D, theta, x, &tc.cov, y, eps, tau, 1.0, hs, work);
			memset(hr, 0, sizeof(hr));
			gsu_ridge_row_hessian(D, x, &tc.cov, 1.0, hr);
			for (j = 0; j <= D; j++)
			{
				double		h = 1e-6,
							fp,
							fm,
							gr[D + 1],
							rp,
							rm;

				memcpy(tp, theta, sizeof(tp));
				tp[j] += h;
				memset(g2, 0, sizeof(g2));
				fp = gsu_svr_row_loss_grad(D, tp, x, &tc.cov, y, eps, tau, 1.0, g2, work);
				memset(gr, 0, sizeof(gr));
				rp = gsu_ridge_row_loss_grad(D, tp, x, &tc.cov, y, 1.0, gr, work);
				tp[j] -= 2 * h;
				fm = gsu_svr_row_loss_grad(D, tp, x, &tc.cov, y, eps, tau, -1.0, g2, work);
				rm = gsu_ridge_row_loss_grad(D, tp, x, &tc.cov, y, -1.0, gr, work);
				/* s = 0 (certain rows, τ = 0): piecewise linear, checked below */
				if (kinds[kk] != GSU_COV_NONE || tau > 0.0)
				{
					CHECK(fabs((fp - fm) / (2 * h) - g[j]) <= 1e-6,
						  "kind %d trial %d: grad %d %.10g vs %.10g", kk, trial, j, (fp - fm) / (2 * h), g[j]);
					for (l = 0; l <= D; l++)
						CHECK(fabs(g2[l] / (2 * h) - hs[j * (D + 1) + l]) <= 1e-5 * (1 + fabs(hs[j * (D + 1) + l])),
							  "kind %d trial %d: hess %d,%d %.10g vs %.10g", kk, trial, j, l,
							  g2[l] / (2 * h), hs[j * (D + 1) + l]);
				}
				{
					double		gq[D + 1];

					memset(gq, 0, sizeof(gq));
					gsu_ridge_row_loss_grad(D, theta, x, &tc.cov, y, 1.0, gq, work);
					CHECK(fabs((rp - rm) / (2 * h) - gq[j]) <= 1e-6 * (1 + fabs(gq[j])),
						  "ridge grad %d: %.10g vs %.10g", j, (rp - rm) / (2 * h), gq[j]);
					for (l = 0; l <= D; l++)
						CHECK(fabs(gr[l] / (2 * h) - hr[j * (D + 1) + l]) <= 1e-5 * (1 + fabs(hr[j * (D + 1) + l])),
							  "ridge hess %d,%d: %.10g vs %.10g", j, l, gr[l] / (2 * h), hr[j * (D + 1) + l]);
				}
			}
			/* certain rows: the gradient is the subgradient; check it off the kinks */
			if (kinds[kk] == GSU_COV_NONE)
			{
				double		mu = y - gsu_decision(D, theta, x),
							sub = fabs(mu) > eps + 1e-3 ? (mu > 0 ? 1.0 : -1.0) : 0.0;

				if (tau == 0.0 && fabs(fabs(mu) - eps) > 1e-3)
				{
					for (j = 0; j < D; j++)
						CHECK_CLOSE(g[j], -sub * x[j], 1e-12);
					CHECK_CLOSE(g[D], -sub, 1e-12);
				}
			}
		}
}

/* ---------------------------------------------------------- data sets */

typedef struct reg_data
{
	gsu_dataset ds;
	double	   *x,
			   *y,
			   *cov,
			   *w;
} reg_data;

/* y = xᵀβ + 0.5 + noise; covariances of a kind; weights when weighted */
static void
make_reg(reg_data *rd, int64_t n, int d, gsu_cov_kind kind, int weighted, uint64_t seed)
{
	uint64_t	st = seed;
	int			r = d > 1 ? d / 2 : 1;
	size_t		per = gsu_cov_doubles(kind, d, kind == GSU_COV_FACTOR ? r : 0);
	int64_t		i;
	int			j,
				k,
				l;

	memset(rd, 0, sizeof(*rd));
	rd->x = xcalloc((size_t) n * d, sizeof(double));
	rd->y = xcalloc((size_t) n, sizeof(double));
	rd->cov = per ? xcalloc((size_t) n * per, sizeof(double)) : NULL;
	rd->w = weighted ? xcalloc((size_t) n, sizeof(double)) : NULL;
	for (i = 0; i < n; i++)
	{
		double		t = 0.5;

		for (j = 0; j < d; j++)
		{
			rd->x[i * d + j] = 2.0 * test_unif(&st) - 1.0 + 0.3 * j;
			t += (j % 2 ? -1.0 : 1.0) * (1.0 + 0.5 * j) * rd->x[i * d + j];
		}
		rd->y[i] = t + 0.3 * (2.0 * test_unif(&st) - 1.0);
		if (weighted)
			rd->w[i] = i % 7 == 3 ? 0.0 : 0.5 + 2.0 * test_unif(&st);
		switch (kind)
		{
			case GSU_COV_NONE:
				break;
			case GSU_COV_ISO:
				rd->cov[i] = 0.01 + 0.2 * test_unif(&st);
				break;
			case GSU_COV_DIAG:
				for (j = 0; j < d; j++)
					rd->cov[i * d + j] = 0.01 + 0.2 * test_unif(&st);
				break;
			case GSU_COV_FACTOR:
				for (j = 0; j < d * r; j++)
					rd->cov[i * per + j] = 0.3 * (2.0 * test_unif(&st) - 1.0);
				break;
			case GSU_COV_FULL:
				{
					double		a[64];

					for (j = 0; j < d * d; j++)
						a[j] = 0.3 * (2.0 * test_unif(&st) - 1.0);
					for (j = 0; j < d; j++)
						for (k = 0; k < d; k++)
						{
							double		s = 0.0;

							for (l = 0; l < d; l++)
								s += a[j * d + l] * a[k * d + l];
							rd->cov[i * per + j * d + k] = s;
						}
				}
				break;
		}
	}
	rd->ds.n = n;
	rd->ds.d = d;
	rd->ds.x = rd->x;
	rd->ds.y = rd->y;
	rd->ds.cov_kind = kind;
	rd->ds.cov = rd->cov;
	rd->ds.weight = rd->w;
	rd->ds.cov_rank = kind == GSU_COV_FACTOR ? r : 0;
}

static void
free_reg(reg_data *rd)
{
	free(rd->x);
	free(rd->y);
	free(rd->cov);
	free(rd->w);
}

/* solves a (m×m, row-major, overwritten) z = b in long double, partial pivoting */
static void
solve_ld(int m, long double *a, long double *b)
{
	int			i,
				j,
				k;

	for (k = 0; k < m; k++)
	{
		int			p = k;

		for (i = k + 1; i < m; i++)
			if (fabsl(a[i * m + k]) > fabsl(a[p * m + k]))
				p = i;
		if (p != k)
		{
			for (j = 0; j < m; j++)
			{
				long double t = a[k * m + j];

				a[k * m + j] = a[p * m + j];
				a[p * m + j] = t;
			}
			{
				long double t = b[k];

				b[k] = b[p];
				b[p] = t;
			}
		}
		for (i = k + 1; i < m; i++)
		{
			long double f = a[i * m + k] / a[k * m + k];

			for (j = k; j < m; j++)
				a[i * m + j] -= f * a[k * m + j];
			b[i] -= f * b[k];
		}
	}
	for (k = m - 1; k >= 0; k--)
	{
		for (j = k + 1; j < m; j++)
			b[k] -= a[k * m + j] * b[j];
		b[k] /= a[k * m + k];
	}
}

static void
test_ridge_normal_equations(void)
{
	int			kk,
				weighted;

	for (kk = 0; kk < NKINDS; kk++)
		for (weighted = 0; weighted < 2; weighted++)
		{
			reg_data	rd;
			int			d = 4,
						m = d + 1,
						i,
						j;
			int64_t		n = 150,
						r;
			double		theta[5],
						grad[5],
						f,
						wsum = 0.0,
						hrow[25];
			long double a[25],
						b[5];
			gsu_solve_options o;
			gsu_solve_result res;
			gsu_status	st;

			make_reg(&rd, n, d, kinds[kk], weighted, 100 + kk);
			gsu_solve_options_default(&o);
			o.lambda = 0.05;
			st = gsu_solve_ridge(&rd.ds, &o, theta, &res);
			CHECK(st == GSU_OK, "kind %d: status %d", kk, st);
			/* the augmented system: (2/W)Σ c(x̃x̃ᵀ + Σ̃) + λ diag(I, 0), rhs (2/W)Σ c y x̃ */
			for (i = 0; i < m * m; i++)
				a[i] = 0;
			for (i = 0; i < m; i++)
				b[i] = 0;
			for (r = 0; r < n; r++)
				wsum += rd.w ? rd.w[r] : 1.0;
			for (r = 0; r < n; r++)
			{
				double		c = (rd.w ? rd.w[r] : 1.0) / wsum;
				gsu_cov		cv = gsu_cov_row(rd.ds.cov_kind, rd.cov, d, rd.ds.cov_rank, r);

				memset(hrow, 0, sizeof(hrow));
				gsu_ridge_row_hessian(d, rd.x + r * d, &cv, c, hrow);
				for (i = 0; i < m * m; i++)
					a[i] += hrow[i];
				for (i = 0; i < m; i++)
					b[i] += 2.0L * c * rd.y[r] * (i < d ? rd.x[r * d + i] : 1.0);
			}
			for (j = 0; j < d; j++)
				a[j * m + j] += o.lambda;
			solve_ld(m, a, b);
			for (j = 0; j < m; j++)
				CHECK(fabs(theta[j] - (double) b[j]) <= 1e-10 * (1 + fabsl(b[j])),
					  "kind %d weighted %d: theta %d %.15g vs %.15Lg", kk, weighted, j, theta[j], b[j]);
			st = gsu_ridge_objective(&rd.ds, o.lambda, theta, &f, grad);
			CHECK(st == GSU_OK && vnorm(m, grad) <= 1e-10, "gradient %.3g", vnorm(m, grad));
			CHECK(res.converged && CLOSE(res.objective, f, 1e-12 * (1 + f)), "result");
			free_reg(&rd);
		}
}

static void
test_ridge_plain_1d(void)
{
	reg_data	rd;
	double		theta[2],
				sx = 0,
				sy = 0,
				sxx = 0,
				sxy = 0,
				w,
				b;
	int64_t		n = 200,
				i;
	gsu_solve_options o;

	make_reg(&rd, n, 1, GSU_COV_NONE, 0, 7);
	gsu_solve_options_default(&o);
	o.lambda = 0.3;
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_OK, "status");
	for (i = 0; i < n; i++)
	{
		sx += rd.x[i];
		sy += rd.y[i];
	}
	sx /= n;
	sy /= n;
	for (i = 0; i < n; i++)
	{
		sxx += (rd.x[i] - sx) * (rd.x[i] - sx) / n;
		sxy += (rd.x[i] - sx) * (rd.y[i] - sy) / n;
	}
	/* min λ/2 w² + mean (y − wx − b)²: w = cov(x, y)/(var x + λ/2), b = ȳ − w x̄ */
	w = sxy / (sxx + o.lambda / 2);
	b = sy - w * sx;
	CHECK_CLOSE(theta[0], w, 1e-12);
	CHECK_CLOSE(theta[1], b, 1e-12);
	free_reg(&rd);
}

static void
test_svr_optimum(void)
{
	int			kk,
				weighted;

	for (kk = 0; kk < NKINDS; kk++)
		for (weighted = 0; weighted < 2; weighted++)
		{
			reg_data	rd;
			int			d = 3,
						j,
						m = 4;
			double		theta[4] = {0, 0, 0, 0},
						grad[4],
						f,
						fp,
						tp[4],
						hess[16],
						hfd[4];
			gsu_solve_options o;
			gsu_solve_result res;
			gsu_status	st;

			make_reg(&rd, 120, d, kinds[kk], weighted, 300 + kk);
			gsu_solve_options_default(&o);
			o.lambda = 0.01;
			o.smoothing = 1e-3;
			o.tolerance = 1e-9;
			st = gsu_solve_svr(&rd.ds, 0.2, &o, theta, &res);
			CHECK(st == GSU_OK, "kind %d: status %d", kk, st);
			CHECK(res.converged, "kind %d weighted %d: not converged, ‖g‖ %.3g / %.3g, %lld its",
				  kk, weighted, res.gradient_norm, res.gradient_norm0, (long long) res.iterations);
			/*
			 * the gradient, recomputed, of the objective the solver ended on: the
			 * final smoothing's, or the true one's when every row keeps √2·s above
			 * 100τ (gsu_finish_unsmoothed)
			 */
			{
				double		g1;

				st = gsu_svr_objective(&rd.ds, o.lambda, 0.2, o.smoothing, theta, &f, grad);
				g1 = vnorm(m, grad);
				if (st == GSU_OK && kinds[kk] != GSU_COV_NONE)
					st = gsu_svr_objective(&rd.ds, o.lambda, 0.2, 0.0, theta, &f, grad);
				CHECK(st == GSU_OK && fmin(g1, vnorm(m, grad)) <= 1e-8 * res.gradient_norm0 + 1e-12,
					  "kind %d: ‖∇F_τ‖ %.3g, ‖∇F_0‖ %.3g", kk, g1, vnorm(m, grad));
			}
			/* the true objective no larger than at nearby points */
			gsu_svr_objective(&rd.ds, o.lambda, 0.2, 0.0, theta, &f, NULL);
			CHECK(CLOSE(res.objective, f, 1e-12 * (1 + f)), "objective %.17g vs %.17g", res.objective, f);
			for (j = 0; j < m; j++)
			{
				memcpy(tp, theta, sizeof(tp));
				tp[j] += 1e-2;
				gsu_svr_objective(&rd.ds, o.lambda, 0.2, 0.0, tp, &fp, NULL);
				CHECK(fp >= f - 1e-3 * 1e-2, "kind %d: F(θ+e_%d) %.17g < F(θ) %.17g", kk, j, fp, f);
			}
			/* the data set's Hessian against differences of its gradient */
			if (kinds[kk] != GSU_COV_NONE)
			{
				CHECK(gsu_svr_hessian(&rd.ds, o.lambda, 0.2, 0.1, theta, hess) == GSU_OK, "hessian");
				for (j = 0; j < m; j++)
				{
					int			l;
					double		gp[4],
								gm[4];

					memcpy(tp, theta, sizeof(tp));
					tp[j] += 1e-6;
					gsu_svr_objective(&rd.ds, o.lambda, 0.2, 0.1, tp, &fp, gp);
					tp[j] -= 2e-6;
					gsu_svr_objective(&rd.ds, o.lambda, 0.2, 0.1, tp, &fp, gm);
					for (l = 0; l < m; l++)
						hfd[l] = (gp[l] - gm[l]) / 2e-6;
					for (l = 0; l < m; l++)
						CHECK(fabs(hfd[l] - hess[j * m + l]) <= 1e-5 * (1 + fabs(hess[j * m + l])),
							  "kind %d: H %d,%d %.10g vs %.10g", kk, j, l, hfd[l], hess[j * m + l]);
				}
			}
			free_reg(&rd);
		}
}

/* plain ε-SVR objective in 1-D, and its minimum over b at fixed w (exact: breakpoints) */
static double
plain_svr_1d(int64_t n, const double *x, const double *y, double eps, double lambda,
			 double w, double b)
{
	double		s = 0.0;
	int64_t		i;

	for (i = 0; i < n; i++)
		s += fmax(0.0, fabs(y[i] - w * x[i] - b) - eps);
	return 0.5 * lambda * w * w + s / n;
}

static double
best_b(int64_t n, const double *x, const double *y, double eps, double lambda, double w,
	   double *bout)
{
	double		best = HUGE_VAL;
	int64_t		i;
	int			sgn;

	for (i = 0; i < n; i++)
		for (sgn = -1; sgn <= 1; sgn += 2)
		{
			double		b = y[i] - w * x[i] + sgn * eps,
						f = plain_svr_1d(n, x, y, eps, lambda, w, b);

			if (f < best)
			{
				best = f;
				*bout = b;
			}
		}
	return best;
}

static void
test_svr_plain_1d(void)
{
	reg_data	rd;
	int64_t		n = 80;
	double		theta[2] = {0, 0},
				eps = 0.15,
				lo = -5,
				hi = 5,
				bref = 0,
				fref,
				wref,
				fgot;
	gsu_solve_options o;
	gsu_solve_result res;
	int			it;

	make_reg(&rd, n, 1, GSU_COV_NONE, 0, 21);
	gsu_solve_options_default(&o);
	o.lambda = 0.02;
	o.smoothing = 1e-6;
	o.tolerance = 1e-10;
	CHECK(gsu_solve_svr(&rd.ds, eps, &o, theta, &res) == GSU_OK, "status");
	/* golden section on w of min_b F(w, b) (convex in w: a partial minimum) */
	for (it = 0; it < 200; it++)
	{
		double		w1 = hi - 0.6180339887498949 * (hi - lo),
					w2 = lo + 0.6180339887498949 * (hi - lo),
					b1,
					b2;

		if (best_b(n, rd.x, rd.y, eps, o.lambda, w1, &b1) <
			best_b(n, rd.x, rd.y, eps, o.lambda, w2, &b2))
			hi = w2;
		else
			lo = w1;
	}
	wref = 0.5 * (lo + hi);
	fref = best_b(n, rd.x, rd.y, eps, o.lambda, wref, &bref);
	fgot = plain_svr_1d(n, rd.x, rd.y, eps, o.lambda, theta[0], theta[1]);
	CHECK(fgot - fref <= 1e-6 && fgot >= fref - 1e-9, "F %.15g vs the exact search's %.15g", fgot, fref);
	CHECK(fabs(theta[0] - wref) <= 1e-3, "w %.12g vs %.12g", theta[0], wref);
	CHECK(fabs(res.objective - fgot) <= 1e-12, "objective %.17g vs %.17g", res.objective, fgot);
	free_reg(&rd);
}

/* an integer weight k is the same problem as k copies of the row (the 1/W convention) */
static void
test_weights_as_copies(void)
{
	reg_data	rd;
	int64_t		n = 40,
				i,
				k = 0;
	int			d = 2,
				j,
				solver;
	double	   *w = xcalloc((size_t) n, sizeof(double)),
			   *x2,
			   *y2,
			   *c2;
	gsu_dataset copies;
	gsu_solve_options o;

	make_reg(&rd, n, d, GSU_COV_DIAG, 0, 44);
	for (i = 0; i < n; i++)
		w[i] = (double) (i % 3);	/* 0, 1, 2 */
	x2 = xcalloc((size_t) n * 2 * d, sizeof(double));
	y2 = xcalloc((size_t) n * 2, sizeof(double));
	c2 = xcalloc((size_t) n * 2 * d, sizeof(double));
	for (i = 0; i < n; i++)
	{
		int			c;

		for (c = 0; c < (int) w[i]; c++, k++)
		{
			memcpy(x2 + k * d, rd.x + i * d, sizeof(double) * d);
			memcpy(c2 + k * d, rd.cov + i * d, sizeof(double) * d);
			y2[k] = rd.y[i];
		}
	}
	copies = rd.ds;
	copies.n = k;
	copies.x = x2;
	copies.y = y2;
	copies.cov = c2;
	rd.ds.weight = w;
	gsu_solve_options_default(&o);
	o.lambda = 0.05;
	o.tolerance = 1e-10;
	for (solver = 0; solver < 2; solver++)
	{
		double		ta[3] = {0, 0, 0},
					tb[3] = {0, 0, 0};
		gsu_status	sa,
					sb;

		sa = solver ? gsu_solve_svr(&rd.ds, 0.1, &o, ta, NULL) : gsu_solve_ridge(&rd.ds, &o, ta, NULL);
		sb = solver ? gsu_solve_svr(&copies, 0.1, &o, tb, NULL) : gsu_solve_ridge(&copies, &o, tb, NULL);
		CHECK(sa == GSU_OK && sb == GSU_OK, "status %d %d", sa, sb);
		for (j = 0; j <= d; j++)
			CHECK(fabs(ta[j] - tb[j]) <= 1e-7 * (1 + fabs(tb[j])),
				  "solver %d: theta %d %.15g vs copies %.15g", solver, j, ta[j], tb[j]);
	}
	free(x2);
	free(y2);
	free(c2);
	free(w);
	free_reg(&rd);
}

static int	cancel_calls;

static int
stop_after_two(void *arg)
{
	(void) arg;
	return ++cancel_calls > 2;
}

static void
test_cancel_and_invalid(void)
{
	reg_data	rd;
	double		theta[4] = {0, 0, 0, 0},
				f;
	gsu_solve_options o;
	gsu_dataset bad;

	make_reg(&rd, 50, 3, GSU_COV_DIAG, 0, 9);
	gsu_solve_options_default(&o);
	o.lambda = 0.1;
	o.progress = stop_after_two;
	cancel_calls = 0;
	CHECK(gsu_solve_svr(&rd.ds, 0.1, &o, theta, NULL) == GSU_ECANCELLED, "svr cancel");
	o.progress = stop_now;
	o.progress_arg = NULL;
	CHECK(gsu_solve_svr(&rd.ds, 0.1, &o, theta, NULL) == GSU_ECANCELLED, "svr cancel at once");
	o.progress = NULL;

	/* ε < 0, λ ≤ 0, n = 0, NaNs, smoothing < 0, a factor's rank */
	CHECK(gsu_solve_svr(&rd.ds, -0.1, &o, theta, NULL) == GSU_EINVAL, "eps < 0");
	CHECK(gsu_solve_svr(&rd.ds, NAN, &o, theta, NULL) == GSU_EINVAL, "eps NaN");
	CHECK(gsu_svr_objective(&rd.ds, 0.1, -1.0, 0.0, theta, &f, NULL) == GSU_EINVAL, "objective eps < 0");
	CHECK(gsu_svr_objective(&rd.ds, 0.1, 0.1, -1.0, theta, &f, NULL) == GSU_EINVAL, "objective tau < 0");
	o.lambda = 0.0;
	CHECK(gsu_solve_svr(&rd.ds, 0.1, &o, theta, NULL) == GSU_EINVAL, "svr lambda 0");
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_EINVAL, "ridge lambda 0");
	o.lambda = -1.0;
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_EINVAL, "ridge lambda < 0");
	o.lambda = NAN;
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_EINVAL, "ridge lambda NaN");
	o.lambda = 0.1;
	o.smoothing = -1.0;
	CHECK(gsu_solve_svr(&rd.ds, 0.1, &o, theta, NULL) == GSU_EINVAL, "smoothing < 0");
	o.smoothing = 1e-5;
	bad = rd.ds;
	bad.n = 0;
	CHECK(gsu_solve_svr(&bad, 0.1, &o, theta, NULL) == GSU_EINVAL, "svr n = 0");
	CHECK(gsu_solve_ridge(&bad, &o, theta, NULL) == GSU_EINVAL, "ridge n = 0");
	CHECK(gsu_ridge_objective(&bad, 0.1, theta, &f, NULL) == GSU_EINVAL, "ridge objective n = 0");
	bad = rd.ds;
	bad.cov_kind = GSU_COV_FACTOR;
	bad.cov_rank = 3;
	CHECK(gsu_solve_ridge(&bad, &o, theta, NULL) == GSU_EINVAL, "factor rank d");
	CHECK(gsu_solve_ridge(NULL, &o, theta, NULL) == GSU_EINVAL, "NULL data set");
	{
		double		wz[50] = {0};

		bad = rd.ds;
		bad.weight = wz;
		CHECK(gsu_solve_svr(&bad, 0.1, &o, theta, NULL) == GSU_EINVAL, "all weights 0");
	}
	/* a non-finite target or mean: GSU_ENOTFINITE, never a NaN model */
	rd.y[5] = NAN;
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_ENOTFINITE, "ridge NaN target");
	CHECK(gsu_solve_svr(&rd.ds, 0.1, &o, theta, NULL) == GSU_ENOTFINITE, "svr NaN target");
	rd.y[5] = 0.0;
	rd.x[7] = INFINITY;
	CHECK(gsu_solve_ridge(&rd.ds, &o, theta, NULL) == GSU_ENOTFINITE, "ridge infinite mean");
	free_reg(&rd);

	/* the ridge pass asks the callback between rows, every GSU_PROGRESS_WORK flops */
	make_reg(&rd, quick ? 6000 : 12000, 20, GSU_COV_NONE, 0, 10);
	o.progress = stop_now;
	{
		double		th[21];

		CHECK(gsu_solve_ridge(&rd.ds, &o, th, NULL) == GSU_ECANCELLED, "ridge cancel");
	}
	free_reg(&rd);
}

static const gsu_test_case tests[] = {
	{"monte_carlo", test_monte_carlo},
	{"scalar_reference", test_scalar_reference},
	{"s_to_zero", test_s_to_zero},
	{"extreme", test_extreme},
	{"row_derivatives", test_row_derivatives},
	{"ridge_normal_equations", test_ridge_normal_equations},
	{"ridge_plain_1d", test_ridge_plain_1d},
	{"svr_optimum", test_svr_optimum},
	{"svr_plain_1d", test_svr_plain_1d},
	{"weights_as_copies", test_weights_as_copies},
	{"cancel_and_invalid", test_cancel_and_invalid},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
