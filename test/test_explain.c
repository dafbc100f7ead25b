/*
 * test_explain.c — the per-feature split of a linear decision under a
 * Gaussian input (src/core/gsu_explain.c).
 *
 * Checked against references computed here: contributions against the
 * decision value gsu_decision computes; variance shares against plain
 * long-double sums w_j Σ_k Σ_jk w_k and their total against the wᵀΣw the
 * scoring functions use (gsu_cov_quad); by hand on small
 * cases (a negative share of a full Σ); and by Monte Carlo against what a
 * share means: s_j = Cov(w_j z_j, wᵀz) for z ~ N(x, Σ).
 */
#include "gsu_core.h"
#include "gsu_explain.h"
#include "gsu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a random symmetric positive semi-definite d×d matrix A Aᵀ / d (rank r) */
static void
random_cov(gsu_rng *r, int d, int rank, double *cov)
{
	double	   *a = malloc(sizeof(double) * (size_t) d * rank);
	int			j,
				k,
				l;

	for (j = 0; j < d * rank; j++)
		a[j] = gsu_rng_normal(r);
	for (j = 0; j < d; j++)
		for (k = 0; k < d; k++)
		{
			double		acc = 0.0;

			for (l = 0; l < rank; l++)
				acc += a[(size_t) j * rank + l] * a[(size_t) k * rank + l];
			cov[(size_t) j * d + k] = acc / d;
		}
	free(a);
}

static void
test_contributions(void)
{
	gsu_rng		r;
	int			trial;

	gsu_rng_seed(&r, 11);
	for (trial = 0; trial < 50; trial++)
	{
		int			d = 1 + (int) gsu_rng_below(&r, 200);
		double	   *theta = malloc(sizeof(double) * (d + 1));
		double	   *x = malloc(sizeof(double) * d);
		double	   *c = malloc(sizeof(double) * d);
		double		f,
					ref;
		long double sum = 0;
		int			j;

		for (j = 0; j <= d; j++)
			theta[j] = 10 * gsu_rng_normal(&r);
		for (j = 0; j < d; j++)
			x[j] = gsu_rng_normal(&r) * (j % 3 == 0 ? 1e3 : 1);
		f = gsu_explain_contributions(d, theta, x, c);
		ref = gsu_decision(d, theta, x);
		CHECK_CLOSE(f, ref, 1e-12 * (1 + fabs(ref)));
		for (j = 0; j < d; j++)
		{
			CHECK(c[j] == theta[j] * x[j], "c[%d] = %g", j, c[j]);
			sum += c[j];
		}
		CHECK_CLOSE((double) (sum + theta[d]), ref, 1e-10 * (1 + fabs(ref)));
		free(theta);
		free(x);
		free(c);
	}
}

static void
test_shares_diag(void)
{
	gsu_rng		r;
	int			trial;

	gsu_rng_seed(&r, 12);
	for (trial = 0; trial < 50; trial++)
	{
		int			d = 1 + (int) gsu_rng_below(&r, 200);
		double	   *w = malloc(sizeof(double) * d);
		double	   *v = malloc(sizeof(double) * d);
		double	   *s = malloc(sizeof(double) * d);
		double		q,
					iso = gsu_rng_uniform(&r);
		int			j;

		for (j = 0; j < d; j++)
		{
			w[j] = gsu_rng_normal(&r);
			v[j] = j % 5 == 0 ? 0.0 : gsu_rng_uniform(&r);
		}
		q = gsu_explain_shares(d, w, VI_COV(v, 0.0), s);
		CHECK(q == gsu_cov_quad(d, DIAG_COV(v), w, NULL), "diag total %.17g", q);
		for (j = 0; j < d; j++)
			CHECK_CLOSE(s[j], v[j] * w[j] * w[j], 1e-15 * (v[j] * w[j] * w[j]));
		q = gsu_explain_shares(d, w, VI_COV(NULL, iso), s);
		CHECK(q == gsu_cov_quad(d, ISO_COV(iso), w, NULL), "iso total %.17g", q);
		for (j = 0; j < d; j++)
			CHECK_CLOSE(s[j], iso * w[j] * w[j], 1e-15 * (iso * w[j] * w[j]));
		free(w);
		free(v);
		free(s);
	}
}

/* Σ = 0 gives zero shares even when w_j² overflows, as wᵀΣw is 0 for the scoring */
static void
test_shares_zero(void)
{
	double		w[3] = {1e200, -1e200, 2};
	double		v[3] = {0, 0, 0};
	double		cov[9] = {0};
	double		s[3];
	int			j;

	CHECK(gsu_explain_shares(3, w, VI_COV(NULL, 0.0), s) == 0.0, "iso 0");
	for (j = 0; j < 3; j++)
		CHECK(s[j] == 0.0, "iso 0: s[%d] = %g", j, s[j]);
	CHECK(gsu_explain_shares(3, w, VI_COV(v, 0.0), s) == 0.0, "diag 0");
	for (j = 0; j < 3; j++)
		CHECK(s[j] == 0.0, "diag 0: s[%d] = %g", j, s[j]);
	w[0] = w[1] = 1.0;
	CHECK(gsu_explain_shares(3, w, FULL_COV(cov), s) == 0.0, "full 0");
	for (j = 0; j < 3; j++)
		CHECK(s[j] == 0.0, "full 0: s[%d] = %g", j, s[j]);
}

static void
test_shares_full(void)
{
	gsu_rng		r;
	int			trial;

	gsu_rng_seed(&r, 13);
	for (trial = 0; trial < 30; trial++)
	{
		int			d = 1 + (int) gsu_rng_below(&r, 60);
		double	   *w = malloc(sizeof(double) * d);
		double	   *cov = malloc(sizeof(double) * d * d);
		double	   *s = malloc(sizeof(double) * d);
		double	   *sw = malloc(sizeof(double) * d);
		double		q,
					ref;
		long double total = 0;
		int			j,
					k;

		for (j = 0; j < d; j++)
			w[j] = gsu_rng_normal(&r);
		random_cov(&r, d, 1 + trial % d, cov);
		ref = gsu_quad_full(d, w, cov, sw);
		/* the lower triangle is not read */
		for (j = 0; j < d; j++)
			for (k = 0; k < j; k++)
				cov[(size_t) j * d + k] = NAN;
		q = gsu_explain_shares(d, w, FULL_COV(cov), s);
		CHECK(q == ref, "total %.17g vs gsu_quad_full %.17g", q, ref);
		for (j = 0; j < d; j++)
		{
			long double sj = 0;

			for (k = 0; k < d; k++)
				sj += (long double) w[j] * cov[k >= j ? (size_t) j * d + k : (size_t) k * d + j] * w[k];
			CHECK_CLOSE(s[j], (double) sj, 1e-12 * (1 + fabs(ref)));
			total += s[j];
		}
		CHECK_CLOSE((double) total, ref, 1e-12 * (1 + ref));
		free(w);
		free(cov);
		free(s);
		free(sw);
	}
}

/* by hand: w = (1, 1), Σ = [[4, −1.5], [−1.5, 1]]: Σw = (2.5, −0.5), total 2 */
static void
test_negative_share(void)
{
	double		w[2] = {1, 1};
	double		cov[4] = {4, -1.5, -1.5, 1};
	double		diag[2] = {4, 1};
	double		s[2];

	CHECK_CLOSE(gsu_explain_shares(2, w, FULL_COV(cov), s), 2.0, 1e-15);
	CHECK_CLOSE(s[0], 2.5, 1e-15);
	CHECK_CLOSE(s[1], -0.5, 1e-15);
	/* a diagonal Σ written in full gives the diagonal shares */
	cov[1] = cov[2] = 0.0;
	CHECK_CLOSE(gsu_explain_shares(2, w, FULL_COV(cov), s), 5.0, 1e-15);
	CHECK_CLOSE(s[0], 4.0, 1e-15);
	CHECK_CLOSE(s[1], 1.0, 1e-15);
	CHECK_CLOSE(gsu_explain_shares(2, w, VI_COV(diag, 0.0), s), 5.0, 1e-15);
	CHECK_CLOSE(s[0], 4.0, 1e-15);
	CHECK_CLOSE(s[1], 1.0, 1e-15);
}

/*
 * What a share means: s_j = Cov(w_j z_j, wᵀz), z ~ N(x, Σ) drawn as x + L e
 * with Σ = L Lᵀ (L = A/√d of random_cov, here built directly).
 */
static void
test_monte_carlo(void)
{
	enum
	{
		D = 4
	};
	gsu_rng		r;
	double		w[D] = {1.5, -2, 0.5, 0};
	double		x[D] = {0.3, -1, 2, 5};
	double		l[D][D] = {{1, 0, 0, 0}, {0.8, 0.6, 0, 0}, {-0.5, 0.2, 0.4, 0}, {0.3, 0.3, 0.3, 0.3}};
	double		cov[D * D];
	double		s[D];
	double		mc[D] = {0};
	double		mean_c[D] = {0};
	double		mean_f = 0.0;
	long		n = quick ? 20000 : 400000;
	long		i;
	int			j,
				k,
				t;
	double		q;

	for (j = 0; j < D; j++)
		for (k = 0; k < D; k++)
		{
			double		acc = 0.0;

			for (t = 0; t < D; t++)
				acc += l[j][t] * l[k][t];
			cov[j * D + k] = acc;
		}
	q = gsu_explain_shares(D, w, FULL_COV(cov), s);
	gsu_rng_seed(&r, 14);
	/* one pass of co-moments: Σ_i (c_ij − c̄_j)(f_i − f̄), shifted by the mean */
	for (i = 0; i < n; i++)
	{
		double		e[D],
					z,
					c[D],
					f = 0.0;

		for (t = 0; t < D; t++)
			e[t] = gsu_rng_normal(&r);
		for (j = 0; j < D; j++)
		{
			z = x[j];
			for (t = 0; t < D; t++)
				z += l[j][t] * e[t];
			c[j] = w[j] * (z - x[j]);
			f += c[j];
		}
		for (j = 0; j < D; j++)
		{
			mc[j] += c[j] * f;
			mean_c[j] += c[j];
		}
		mean_f += f;
	}
	for (j = 0; j < D; j++)
	{
		double		est = mc[j] / n - (mean_c[j] / n) * (mean_f / n);

		/* standard error of a product of two unit-scale normals: about √(q·Var c_j / n) */
		CHECK(fabs(est - s[j]) < 5 * sqrt((q + 1) * (q + 1) / n), "share %d: %g vs Monte Carlo %g",
			  j, s[j], est);
	}
	CHECK(s[3] == 0.0, "a zero weight has a zero share, got %g", s[3]);
}

/* every kind: the shares sum to wᵀΣw, which is what gsu_cov_quad gives */
static void
test_shares_kinds(void)
{
	double		w[3] = {1.0, -2.0, 0.5},
				var[3] = {0.5, 2.0, 4.0},
				full[9] = {1.0, 0.2, 0.0, 0.2, 2.0, 0.1, 0.0, 0.1, 3.0},
				s[3];
	gsu_cov		none = {GSU_COV_NONE, 0.0, NULL, 0};
	const gsu_cov *kinds[3] = {ISO_COV(0.25), DIAG_COV(var), FULL_COV(full)};
	int			j,
				k;

	s[0] = s[1] = s[2] = 7.0;
	CHECK(gsu_explain_shares(3, w, &none, s) == 0.0 && s[0] == 0.0 && s[1] == 0.0 && s[2] == 0.0,
		  "none");
	for (k = 0; k < 3; k++)
	{
		double		q = gsu_explain_shares(3, w, kinds[k], s),
					ref = gsu_cov_quad(3, kinds[k], w, NULL);

		CHECK_CLOSE(q, ref, 1e-14 * ref);
		CHECK_CLOSE(s[0] + s[1] + s[2], ref, 1e-14 * ref);
		for (j = 0; j < 3; j++)
			CHECK(isfinite(s[j]), "kind %d share %d", k, j);
	}
}

static const gsu_test_case tests[] = {
	{"contributions", test_contributions},
	{"shares_diag", test_shares_diag},
	{"shares_zero", test_shares_zero},
	{"shares_full", test_shares_full},
	{"negative_share", test_negative_share},
	{"monte_carlo", test_monte_carlo},
	{"shares_kinds", test_shares_kinds},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
