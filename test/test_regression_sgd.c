/*
 * test_regression_sgd.c — unit tests of regression's streaming SGD step
 * (src/core/gsu_regression_sgd.c), no PostgreSQL: the gradient the step
 * takes against central finite differences of the expected loss computed
 * here from μ and s (every covariance kind, both losses, a weight share),
 * the step size and the unregularized bias, the squared loss's capped
 * early steps at a small λ, and many epochs of the step reaching the batch
 * optimum of gsu_solve_svr / gsu_solve_ridge (the solvers of
 * gsu.train_regression) within a stated tolerance of the objective.
 * Deterministic: fixed seeds.
 */
#include "gsu_regression.h"
#include "gsu_loss.h"
#include "gsu_test.h"

#define D 3
#define NKINDS 5

static const gsu_cov_kind kinds[NKINDS] =
{GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL, GSU_COV_FACTOR};

typedef struct reg_rows
{
	gsu_dataset ds;
	double	   *x,
			   *y,
			   *cov,
			   *w;
} reg_rows;

/* y = xᵀβ + 0.5 + noise, x of unit scale; covariances of a kind; weights when weighted */
static void
make_rows(reg_rows *rd, int64_t n, int d, gsu_cov_kind kind, int weighted, uint64_t seed)
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
			rd->x[i * d + j] = 2.0 * test_unif(&st) - 1.0;
			t += (j % 2 ? -1.0 : 1.0) * (1.0 + 0.5 * j) * rd->x[i * d + j];
		}
		rd->y[i] = t + 0.3 * (2.0 * test_unif(&st) - 1.0);
		if (weighted)
			rd->w[i] = 0.5 + 2.0 * test_unif(&st);
		if (kind == GSU_COV_ISO)
			rd->cov[i] = 0.01 + 0.2 * test_unif(&st);
		else if (kind == GSU_COV_DIAG)
			for (j = 0; j < d; j++)
				rd->cov[i * d + j] = 0.01 + 0.2 * test_unif(&st);
		else if (kind == GSU_COV_FACTOR)
			for (j = 0; j < d * r; j++)
				rd->cov[i * per + j] = 0.3 * (2.0 * test_unif(&st) - 1.0);
		else if (kind == GSU_COV_FULL)
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
free_rows(reg_rows *rd)
{
	free(rd->x);
	free(rd->y);
	free(rd->cov);
	free(rd->w);
}

/* wᵀΣw written out from the covariance's values, not by gsu_cov_quad */
static double
quad_here(int d, const gsu_cov *c, const double *w)
{
	double		q = 0.0;
	int			i,
				j;

	switch (c->kind)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			for (j = 0; j < d; j++)
				q += c->iso * w[j] * w[j];
			break;
		case GSU_COV_DIAG:
			for (j = 0; j < d; j++)
				q += c->data[j] * w[j] * w[j];
			break;
		case GSU_COV_FULL:
			for (i = 0; i < d; i++)
				for (j = 0; j < d; j++)
					q += w[i] * c->data[i * d + j] * w[j];
			break;
		case GSU_COV_FACTOR:
			for (j = 0; j < c->rank; j++)
			{
				double		v = 0.0;

				for (i = 0; i < d; i++)
					v += c->data[i * c->rank + j] * w[i];
				q += v * v;
			}
			break;
	}
	return q;
}

/* the expected loss of the row at θ, from μ and s formed here */
static double
loss_here(int d, const double *theta, const double *x, const gsu_cov *c, double y,
		  int squared, double eps)
{
	double		mu = y - theta[d],
				s2,
				s;
	gsu_eps_loss e;
	int			j;

	for (j = 0; j < d; j++)
		mu -= theta[j] * x[j];
	s2 = quad_here(d, c, theta);
	if (squared)
		return mu * mu + s2;
	s = sqrt(fmax(s2, 0.0));
	gsu_expected_eps_insensitive(mu, s, eps, &e);
	return e.loss;
}

/* ------------------------------------------------ the step's gradient */

static void
test_step_gradient_fd(void)
{
	uint64_t	st = 17;
	int			kk,
				squared,
				rep;

	for (kk = 0; kk < NKINDS; kk++)
		for (squared = 0; squared < 2; squared++)
			for (rep = 0; rep < 4; rep++)
			{
				reg_rows	rd;
				gsu_cov		c;
				double		theta[D + 1],
							after[D + 1],
							lambda = 0.5,
							scale = 0.7,
							eps = rep % 2 ? 0.0 : 0.3,
							eta,
							loss,
							h = 1e-6;
				int64_t		t = 1000000;
				int			j;

				make_rows(&rd, 1, D, kinds[kk], 0, 100 + 10 * kk + rep);
				c = gsu_cov_row(rd.ds.cov_kind, rd.cov, D, rd.ds.cov_rank, 0);
				for (j = 0; j <= D; j++)
					theta[j] = 1.5 * (2.0 * test_unif(&st) - 1.0);
				memcpy(after, theta, sizeof(theta));
				eta = gsu_regression_sgd_eta(D, lambda, t, rd.x, &c, squared, scale);
				CHECK(eta == 1.0 / (lambda * (double) t), "kind %d: η %.17g is capped", kk, eta);
				loss = gsu_regression_sgd_step(D, after, lambda, t, rd.x, &c, rd.y[0],
											   squared, eps, scale, test_work());
				CHECK(reldiff(loss, loss_here(D, theta, rd.x, &c, rd.y[0], squared, eps), 1e-12) <= 1e-12,
					  "kind %d squared %d: loss %.17g", kk, squared, loss);
				for (j = 0; j <= D; j++)
				{
					/* w ← (1 − ηλ)w − η·scale·g_w; b ← b − η·scale·g_b */
					double		keep = j < D ? (1.0 - eta * lambda) * theta[j] : theta[j];
					double		g = (keep - after[j]) / (eta * scale);
					double		tp[D + 1],
								tm[D + 1],
								fd;

					memcpy(tp, theta, sizeof(theta));
					memcpy(tm, theta, sizeof(theta));
					tp[j] += h;
					tm[j] -= h;
					fd = (loss_here(D, tp, rd.x, &c, rd.y[0], squared, eps) -
						  loss_here(D, tm, rd.x, &c, rd.y[0], squared, eps)) / (2.0 * h);
					CHECK(fabs(g - fd) <= 2e-6 * (1.0 + fabs(fd)),
						  "kind %d squared %d rep %d θ_%d: step's gradient %.12g vs FD %.12g",
						  kk, squared, rep, j, g, fd);
				}
				free_rows(&rd);
			}
}

/* t = 1 at scale 0: the step is the shrink (1 − 1/t) = 0 of w alone; b stays */
static void
test_step_shrink_bias(void)
{
	double		theta[D + 1] = {1.0, -2.0, 3.0, 0.25},
				x[D] = {0.5, 0.5, 0.5};
	int			squared;

	for (squared = 0; squared < 2; squared++)
	{
		double		th[D + 1];
		int			j;

		memcpy(th, theta, sizeof(th));
		(void) gsu_regression_sgd_step(D, th, 0.1, 1, x, ISO_COV(0.2), 1.0, squared, 0.1, 0.0,
									   test_work());
		for (j = 0; j < D; j++)
			CHECK(th[j] == 0.0, "squared %d: w_%d %.17g", squared, j, th[j]);
		CHECK(th[D] == 0.25, "squared %d: b %.17g", squared, th[D]);
	}
	/* the squared loss's cap: at t = 1 and λ = 0.1, 1/λ is capped at 1/(λ + scale·L) */
	CHECK(gsu_regression_sgd_eta(D, 0.1, 1, x, ISO_COV(0.2), 1, 1.0) ==
		  1.0 / (0.1 + 2.0 * (0.75 + 1.0 + 0.2)), "cap");
	CHECK(gsu_regression_sgd_eta(D, 0.1, 1, x, ISO_COV(0.2), 0, 1.0) == 10.0, "no cap for SVR");
}

/* ------------------------------------------------- epochs vs the batch */

/* F at the end of epochs passes of the step over the rows in order, t continuing */
static double
sgd_epochs(const reg_rows *rd, int squared, double lambda, double eps, int epochs,
		   double *theta)
{
	int			d = rd->ds.d;
	double		wmean = 1.0,
				f;
	int64_t		i,
				t = 0;
	int			e;

	if (rd->w)
	{
		wmean = 0.0;
		for (i = 0; i < rd->ds.n; i++)
			wmean += rd->w[i] / (double) rd->ds.n;
	}
	memset(theta, 0, sizeof(double) * (size_t) (d + 1));
	for (e = 0; e < epochs; e++)
		for (i = 0; i < rd->ds.n; i++)
		{
			gsu_cov		c = gsu_cov_row(rd->ds.cov_kind, rd->cov, d, rd->ds.cov_rank, i);

			(void) gsu_regression_sgd_step(d, theta, lambda, ++t, rd->x + i * d, &c, rd->y[i],
										   squared, eps, rd->w ? rd->w[i] / wmean : 1.0,
										   test_work());
		}
	if (squared)
		CHECK(gsu_ridge_objective(&rd->ds, lambda, theta, &f, NULL) == GSU_OK, "objective");
	else
		CHECK(gsu_svr_objective(&rd->ds, lambda, eps, 0.0, theta, &f, NULL) == GSU_OK, "objective");
	return f;
}

/*
 * 200 epochs (60 000 steps) on 300 rows, λ = 0.1, every covariance kind,
 * both losses, with and without weights: the final iterate's objective is
 * within 0.1% of the batch optimum's (Pegasos' O(log T/(λT)); measured at
 * 0.003% at most) and each of its coefficients within 0.01 of the batch
 * ones (measured: 0.002 at most).  Quick: 60 epochs, 0.3% and 0.03.
 */
static void
test_epochs_reach_batch(void)
{
	int			kk,
				squared,
				weighted;
	int			epochs = quick ? 60 : 200;
	double		tol = quick ? 3e-3 : 1e-3;

	for (kk = 0; kk < NKINDS; kk++)
		for (squared = 0; squared < 2; squared++)
			for (weighted = 0; weighted < 2; weighted++)
			{
				reg_rows	rd;
				double		lambda = 0.1,
							eps = 0.2,
							batch[D + 1] = {0},
							sgd[D + 1],
							fb,
							fs;
				gsu_solve_options o;
				gsu_solve_result res;
				gsu_status	st;
				int			j;

				make_rows(&rd, 300, D, kinds[kk], weighted, 500 + kk);
				gsu_solve_options_default(&o);
				o.lambda = lambda;
				o.tolerance = 1e-10;
				o.smoothing = 1e-6;
				st = squared ? gsu_solve_ridge(&rd.ds, &o, batch, &res) :
					gsu_solve_svr(&rd.ds, eps, &o, batch, &res);
				CHECK(st == GSU_OK, "batch status %d", st);
				if (squared)
					(void) gsu_ridge_objective(&rd.ds, lambda, batch, &fb, NULL);
				else
					(void) gsu_svr_objective(&rd.ds, lambda, eps, 0.0, batch, &fb, NULL);
				fs = sgd_epochs(&rd, squared, lambda, eps, epochs, sgd);
				CHECK(fs >= fb - 1e-9 * fb, "kind %d squared %d: sgd %.12g below the optimum %.12g",
					  kk, squared, fs, fb);
				CHECK(fs - fb <= tol * fb,
					  "kind %d squared %d weighted %d: sgd's F %.10g vs batch %.10g (%.3g%%)",
					  kk, squared, weighted, fs, fb, 100.0 * (fs - fb) / fb);
				for (j = 0; j <= D; j++)
					CHECK(fabs(sgd[j] - batch[j]) <= (quick ? 0.03 : 0.01),
						  "kind %d squared %d weighted %d: θ_%d %.6g vs batch %.6g",
						  kk, squared, weighted, j, sgd[j], batch[j]);
				free_rows(&rd);
			}
}

/*
 * The squared loss at the smallest λ the stochastic solvers take (1e-4,
 * GSU_MIN_STOCHASTIC_LAMBDA of the glue) with targets near 100: without the
 * cap the first steps (η = 1/λ) would grow the iterate by a factor of about
 * 2‖x‖²/λ a step and overflow; with it one epoch stays finite and lowers F
 * far below F(0).
 */
static void
test_squared_small_lambda(void)
{
	reg_rows	rd;
	double		theta[D + 1],
				zero[D + 1] = {0},
				f0,
				f;
	int			j;
	int64_t		i;

	make_rows(&rd, 400, D, GSU_COV_DIAG, 0, 77);
	for (i = 0; i < rd.ds.n; i++)
		rd.y[i] += 100.0;
	f = sgd_epochs(&rd, 1, 1e-4, 0.0, 1, theta);
	(void) gsu_ridge_objective(&rd.ds, 1e-4, zero, &f0, NULL);
	for (j = 0; j <= D; j++)
		CHECK(isfinite(theta[j]), "θ_%d %g", j, theta[j]);
	CHECK(isfinite(f) && f < 1e-3 * f0, "F %.6g vs F(0) %.6g", f, f0);
	free_rows(&rd);
}

static const gsu_test_case tests[] = {
	{"step_gradient_fd", test_step_gradient_fd},
	{"step_shrink_bias", test_step_shrink_bias},
	{"epochs_reach_batch", test_epochs_reach_batch},
	{"squared_small_lambda", test_squared_small_lambda},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
