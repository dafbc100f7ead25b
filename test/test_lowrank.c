/*
 * test_lowrank.c — low-rank covariances Σ = LLᵀ given by their factor L
 * (GSU_COV_FACTOR, d × r) against the same covariances written out dense
 * (GSU_COV_FULL): wᵀΣw and Σw, the objective and its gradient, the
 * Hessian-vector products (all-rows and active-rows paths), the optimum of
 * the solvers newton and pegasos, the streaming step, the explanation's
 * variance shares, the standardized covariance, and the factor of an image's
 * translation covariance (gsu_image_covariance_factor), and the sums of a
 * scan of gsu.fit (gsu_row_loss_grad_hess, and the gradient pass's
 * gsu_cov_quad + gsu_row_loss_grad_quad).  Deterministic (a fixed
 * generator).
 */
#include "gsu_core.h"
#include "gsu_objective.h"
#include "gsu_scan_newton.h"
#include "gsu_explain.h"
#include "gsu_image.h"
#include "gsu_span.h"
#include "gsu_standardize.h"
#include "gsu_test.h"

static uint64_t rng_state = 20261128;

/* the shared splitmix64 generator (test/gsu_test.c) on this file's state */
#define unif() test_unif(&rng_state)

/* n rows of dimension d with factors of rank r, and the same rows dense */
typedef struct pair
{
	gsu_dataset lo,
				dense;
	double	   *x,
			   *y,
			   *L,
			   *full,
			   *wt;
} pair;

static void
make_pair(pair *p, int64_t n, int d, int r, double scale, int weighted)
{
	int64_t		i;
	int			j;

	memset(p, 0, sizeof(*p));
	p->x = malloc(sizeof(double) * n * d);
	p->y = malloc(sizeof(double) * n);
	p->L = malloc(sizeof(double) * n * d * r);
	p->full = malloc(sizeof(double) * n * d * d);
	p->wt = weighted ? malloc(sizeof(double) * n) : NULL;
	for (i = 0; i < n; i++)
	{
		double		score = 0.0;

		for (j = 0; j < d; j++)
		{
			p->x[i * d + j] = 2.0 * unif() - 1.0;
			score += p->x[i * d + j] * (j % 3 - 1.0 + 0.3 * j);
		}
		p->y[i] = score + 0.8 * (unif() - 0.5) > 0.0 ? 1.0 : -1.0;
		for (j = 0; j < d * r; j++)
			p->L[i * d * r + j] = scale * (2.0 * unif() - 1.0);
		/* a few certain rows: zero factors */
		if (i % 7 == 3)
			memset(p->L + i * d * r, 0, sizeof(double) * d * r);
		gsu_factor_to_full(d, r, p->L + i * d * r, p->full + i * d * d);
		if (p->wt)
			p->wt[i] = 0.25 + 2.0 * unif();
	}
	p->lo.n = p->dense.n = n;
	p->lo.d = p->dense.d = d;
	p->lo.x = p->dense.x = p->x;
	p->lo.y = p->dense.y = p->y;
	p->lo.weight = p->dense.weight = p->wt;
	p->lo.cov_kind = GSU_COV_FACTOR;
	p->lo.cov = p->L;
	p->lo.cov_rank = r;
	p->dense.cov_kind = GSU_COV_FULL;
	p->dense.cov = p->full;
}

static void
free_pair(pair *p)
{
	free(p->x);
	free(p->y);
	free(p->L);
	free(p->full);
	free(p->wt);
}

static void
random_theta(int d, double *theta, double scale)
{
	int			j;

	for (j = 0; j <= d; j++)
		theta[j] = scale * (2.0 * unif() - 1.0);
}

/* wᵀΣw, Σw, the shares of gsu.explain and D⁻¹ΣD⁻¹ */
static void
test_quad(void)
{
	enum
	{
		D = 9, R = 3
	};
	double		L[D * R],
				full[D * D],
				w[D],
				sw1[D],
				sw2[D],
				s1[D],
				s2[D],
				scale[D],
				buf1[D * R],
				buf2[D * D],
				back[D * D];
	gsu_cov		f = {GSU_COV_FACTOR, 0.0, L, R},
				c = {GSU_COV_FULL, 0.0, full, 0},
				fo,
				co;
	int			j;

	for (j = 0; j < D * R; j++)
		L[j] = 2.0 * unif() - 1.0;
	gsu_factor_to_full(D, R, L, full);
	for (j = 0; j < D; j++)
	{
		w[j] = 2.0 * unif() - 1.0;
		scale[j] = 0.5 + unif();
	}
	CHECK_CLOSE(gsu_cov_quad(D, &f, w, sw1), gsu_cov_quad(D, &c, w, sw2), 1e-13);
	CHECK(max_abs_diff(D, sw1, sw2) <= 1e-13, "Sigma w differs by %g", max_abs_diff(D, sw1, sw2));
	CHECK_CLOSE(gsu_cov_quad(D, &f, w, NULL), gsu_cov_quad(D, &c, w, NULL), 1e-13);
	CHECK_CLOSE(gsu_explain_shares(D, w, &f, s1), gsu_explain_shares(D, w, &c, s2), 1e-13);
	CHECK(max_abs_diff(D, s1, s2) <= 1e-13, "shares differ by %g", max_abs_diff(D, s1, s2));
	gsu_standardize_cov(D, scale, &f, &fo, buf1);
	gsu_standardize_cov(D, scale, &c, &co, buf2);
	CHECK(fo.kind == GSU_COV_FACTOR && fo.rank == R, "kind %d rank %d", fo.kind, fo.rank);
	gsu_factor_to_full(D, R, fo.data, back);
	CHECK(max_abs_diff(D * D, back, co.data) <= 1e-12, "standardized differs by %g",
		  max_abs_diff(D * D, back, co.data));
}

/* F, ∇F and the Hessian products, both paths, with and without weights and smoothing */
static void
test_objective(void)
{
	int			weighted;

	for (weighted = 0; weighted <= 1; weighted++)
	{
		pair		p;
		int			d = 12,
					r = 2,
					m = d + 1,
					dense;
		double		theta[13],
					s[13],
					g1[13],
					g2[13],
					h1[13],
					h2[13],
					f1,
					f2;
		double		mus[] = {0.0, 0.05};
		int			k;

		make_pair(&p, 150, d, r, 0.4, weighted);
		for (k = 0; k < 2; k++)
			for (dense = 0; dense <= 1; dense++)
			{
				gsu_eval	e1,
							e2;

				random_theta(d, theta, 1.5);
				random_theta(d, s, 1.0);
				CHECK(gsu_eval_init(&e1, &p.lo, 0.01) == GSU_OK, "init");
				CHECK(gsu_eval_init(&e2, &p.dense, 0.01) == GSU_OK, "init");
				e1.dense = e2.dense = dense;
				CHECK(gsu_eval_at(&e1, mus[k], theta, &f1, g1) == GSU_OK, "eval");
				CHECK(gsu_eval_at(&e2, mus[k], theta, &f2, g2) == GSU_OK, "eval");
				CHECK(CLOSE(f1, f2, 1e-12 * fabs(f2)), "F %.17g vs %.17g", f1, f2);
				CHECK(max_abs_diff(m, g1, g2) <= 1e-12, "gradient differs by %g",
					  max_abs_diff(m, g1, g2));
				gsu_eval_hessvec(&e1, s, h1);
				gsu_eval_hessvec(&e2, s, h2);
				CHECK(max_abs_diff(m, h1, h2) <= 1e-11, "Hs differs by %g (dense %d)",
					  max_abs_diff(m, h1, h2), dense);
				gsu_eval_free(&e1);
				gsu_eval_free(&e2);
			}
		free_pair(&p);
	}
}

/* the solvers' optimum: factor and dense rows give the same model */
static void
test_solvers(void)
{
	int			weighted;

	for (weighted = 0; weighted <= 1; weighted++)
	{
		pair		p;
		int			d = 10,
					r = 2;
		double		t1[11],
					t2[11];
		gsu_solve_options o;
		gsu_solve_result r1,
					r2;

		make_pair(&p, quick ? 200 : 600, d, r, 0.5, weighted);
		gsu_solve_options_default(&o);
		o.lambda = 0.01;
		o.tolerance = 1e-8;
		memset(t1, 0, sizeof(t1));
		memset(t2, 0, sizeof(t2));
		CHECK(gsu_solve_newton(&p.lo, &o, t1, &r1) == GSU_OK, "newton factor");
		CHECK(gsu_solve_newton(&p.dense, &o, t2, &r2) == GSU_OK, "newton dense");
		CHECK(r1.converged && r2.converged, "converged %d %d it %lld %lld g %g %g g0 %g %g gap %g %g", r1.converged, r2.converged, (long long) r1.iterations, (long long) r2.iterations, r1.gradient_norm, r2.gradient_norm, r1.gradient_norm0, r2.gradient_norm0, r1.gap_estimate, r2.gap_estimate);
		CHECK(max_abs_diff(d + 1, t1, t2) <= 1e-7, "newton optimum differs by %g",
			  max_abs_diff(d + 1, t1, t2));
		CHECK(CLOSE(r1.objective, r2.objective, 1e-12 * r2.objective), "objective %.17g vs %.17g",
			  r1.objective, r2.objective);
		/* the span solver (the glue's entry) leaves factors to newton */
		memset(t1, 0, sizeof(t1));
		CHECK(gsu_solve_newton_span(&p.lo, &o, t1, &r1) == GSU_OK, "span factor");
		CHECK(max_abs_diff(d + 1, t1, t2) <= 1e-7, "span optimum differs by %g",
			  max_abs_diff(d + 1, t1, t2));

		/* pegasos: the same draws, the same steps up to rounding */
		o.epochs = 3;
		o.batch_size = 8;
		o.seed = 7;
		memset(t1, 0, sizeof(t1));
		memset(t2, 0, sizeof(t2));
		CHECK(gsu_solve_pegasos(&p.lo, &o, t1, &r1) == GSU_OK, "pegasos factor");
		CHECK(gsu_solve_pegasos(&p.dense, &o, t2, &r2) == GSU_OK, "pegasos dense");
		CHECK(max_abs_diff(d + 1, t1, t2) <= 1e-9, "pegasos differs by %g",
			  max_abs_diff(d + 1, t1, t2));
		free_pair(&p);
	}
}

/* the streaming step */
static void
test_sgd_step(void)
{
	pair		p;
	int			d = 8,
				r = 3;
	double		t1[9],
				t2[9],
				work[8];
	int64_t		i;

	make_pair(&p, 300, d, r, 0.6, 0);
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	for (i = 0; i < p.lo.n; i++)
	{
		gsu_cov		cf = gsu_cov_row(GSU_COV_FACTOR, p.L, d, r, i),
					cd = gsu_cov_row(GSU_COV_FULL, p.full, d, 0, i);
		double		l1 = gsu_sgd_step(d, t1, 0.05, i + 1, p.x + i * d, &cf, p.y[i], 1.0, work),
					l2 = gsu_sgd_step(d, t2, 0.05, i + 1, p.x + i * d, &cd, p.y[i], 1.0, work);

		CHECK(CLOSE(l1, l2, 1e-10 * (1.0 + fabs(l2))), "row %lld loss %.17g vs %.17g",
			  (long long) i, l1, l2);
	}
	CHECK(max_abs_diff(d + 1, t1, t2) <= 1e-10, "sgd differs by %g", max_abs_diff(d + 1, t1, t2));
	free_pair(&p);
}

/* gsu_image_covariance_factor: LLᵀ is gsu_image_covariance, to rounding */
static void
test_image_factor(void)
{
	enum
	{
		W = 5, H = 4, N = W * H
	};
	double		img[N],
				gx[N],
				gy[N],
				L[2 * N],
				c1[N * N],
				c2[N * N],
				bgx[2],
				bgy[2];
	int			j;

	for (j = 0; j < N; j++)
		img[j] = sin(0.7 * j) + 0.1 * (j % W);
	CHECK(gsu_image_gradient(W, H, img, gx, gy) == GSU_OK, "gradient");
	CHECK(gsu_image_covariance_factor(N, gx, gy, 0.3, L) == GSU_OK, "factor");
	CHECK(gsu_image_covariance(N, gx, gy, 0.3, c1) == GSU_OK, "covariance");
	gsu_factor_to_full(N, 2, L, c2);
	CHECK(max_abs_diff(N * N, c1, c2) <= 1e-14, "L L' differs by %g", max_abs_diff(N * N, c1, c2));
	CHECK(gsu_image_covariance_factor(N, gx, gy, -1.0, L) == GSU_EINVAL, "negative sigma2");
	CHECK(gsu_image_covariance_factor(N, gx, gy, NAN, L) == GSU_EINVAL, "NaN sigma2");
	bgx[0] = bgx[1] = 1e300;
	bgy[0] = bgy[1] = 0.0;
	CHECK(gsu_image_covariance_factor(2, bgx, bgy, 1e100, L) == GSU_ENOTFINITE, "overflow");
}

/* the subspace restriction of a factor equals that of its dense L Lᵀ, mean included */
static void
test_subspace(void)
{
	enum
	{
		D = 7, R = 3
	};
	double		L[D * R],
				full[D * D],
				back[D * D],
				x1[D],
				x2[D];
	const double ps[] = {0.3, 0.6, 0.9, 0.999, 1.0};
	int			i,
				k,
				k1,
				k2;

	for (k = 0; k < (int) (sizeof(ps) / sizeof(ps[0])); k++)
	{
		for (i = 0; i < D * R; i++)
			L[i] = unif() - 0.5;
		if (k == 4)
			for (i = 0; i < D; i++)
				L[i * R + 2] = 2.0 * L[i * R];	/* rank 2 in 3 columns */
		for (i = 0; i < D; i++)
			x1[i] = x2[i] = unif() - 0.5;
		gsu_factor_to_full(D, R, L, full);
		CHECK(gsu_subspace_factor(D, R, L, x1, ps[k], &k1) == GSU_OK, "factor p %g", ps[k]);
		CHECK(gsu_subspace_full(D, full, x2, ps[k], &k2) == GSU_OK, "full p %g", ps[k]);
		CHECK(k1 == (k == 4 ? 2 : k2), "kept %d vs %d at p %g", k1, k2, ps[k]);
		gsu_factor_to_full(D, R, L, back);
		CHECK(max_abs_diff(D * D, back, full) <= 1e-12, "covariance differs by %g at p %g",
			  max_abs_diff(D * D, back, full), ps[k]);
		if (k != 4)
			CHECK(max_abs_diff(D, x1, x2) <= 1e-12, "mean differs by %g at p %g",
				  max_abs_diff(D, x1, x2), ps[k]);
	}
	CHECK(gsu_subspace_factor(D, R, L, NULL, 0.0, NULL) == GSU_EINVAL, "p 0");
	CHECK(gsu_subspace_factor(D, R, L, NULL, 1.5, NULL) == GSU_EINVAL, "p 1.5");
}

/*
 * A scan of gsu.fit's solver newton (gsu_row_loss_grad_hess) and a pass of
 * its lbfgs (gsu_row_loss_grad_quad with gsu_cov_quad's Σw) on factor rows
 * sum what the dense rows sum: the losses, the gradient, the packed Hessian
 * and d_Σ, weighted, at μ > 0 and μ = 0.
 */
static void
test_scan_sums(void)
{
	enum
	{
		N = 60, D = 7, R = 2, M = D + 1
	};
	pair		p;
	double		theta[M],
				work[2 * M],
				g[2][M],
				gq[2][M],
				h[2][GSU_PACKED_SIZE(M)];
	double		mus[2] = {0.05, 0.0};
	int			k,
				t;

	make_pair(&p, N, D, R, 0.6, 1);
	for (k = 0; k < 2; k++)
	{
		double		loss[2] = {0.0, 0.0},
					loss0[2] = {0.0, 0.0},
					lq[2] = {0.0, 0.0},
					dmin[2] = {1e300, 1e300};

		random_theta(D, theta, 0.8);
		memset(g, 0, sizeof(g));
		memset(gq, 0, sizeof(gq));
		memset(h, 0, sizeof(h));
		for (t = 0; t < 2; t++)
		{
			const gsu_dataset *ds = t == 0 ? &p.lo : &p.dense;
			int64_t		i;

			for (i = 0; i < N; i++)
			{
				gsu_cov		c = gsu_cov_row(ds->cov_kind, ds->cov, D, ds->cov_rank, i);
				double		ds_i,
							sw[D],
							quad;

				loss[t] += gsu_row_loss_grad_hess(D, theta, p.x + i * D, &c, p.y[i], p.wt[i], mus[k],
												  g[t], h[t], &loss0[t], &ds_i, work);
				dmin[t] = fmin(dmin[t], ds_i);
				quad = gsu_cov_quad(D, &c, theta, sw);
				lq[t] += gsu_row_loss_grad_quad(D, theta, p.x + i * D, quad, sw, p.y[i], mus[k],
												p.wt[i], gq[t]);
			}
		}
		CHECK(fabs(loss[0] - loss[1]) <= 1e-12 * fabs(loss[1]), "loss %g vs %g at mu %g",
			  loss[0], loss[1], mus[k]);
		CHECK(fabs(loss0[0] - loss0[1]) <= 1e-12 * fabs(loss0[1]), "loss0 %g vs %g", loss0[0], loss0[1]);
		CHECK(fabs(lq[0] - lq[1]) <= 1e-12 * fabs(lq[1]), "pass loss %g vs %g", lq[0], lq[1]);
		CHECK(fabs(dmin[0] - dmin[1]) <= 1e-12, "d_sigma %g vs %g", dmin[0], dmin[1]);
		CHECK(max_abs_diff(M, g[0], g[1]) <= 1e-11, "gradient differs by %g at mu %g",
			  max_abs_diff(M, g[0], g[1]), mus[k]);
		CHECK(max_abs_diff(M, gq[0], gq[1]) <= 1e-11, "pass gradient differs by %g",
			  max_abs_diff(M, gq[0], gq[1]));
		CHECK(max_abs_diff((int) GSU_PACKED_SIZE(M), h[0], h[1]) <= 1e-10,
			  "Hessian differs by %g at mu %g", max_abs_diff((int) GSU_PACKED_SIZE(M), h[0], h[1]), mus[k]);
		CHECK(loss[0] > 0.0 && h[0][0] > 0.0, "the sums are not trivial");
	}
	free_pair(&p);
}

static const gsu_test_case tests[] = {
	{"image_factor", test_image_factor},
	{"quad", test_quad},
	{"objective", test_objective},
	{"solvers", test_solvers},
	{"sgd_step", test_sgd_step},
	{"subspace", test_subspace},
	/* last: it draws from the generator the tests above share */
	{"scan_sums", test_scan_sums},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
