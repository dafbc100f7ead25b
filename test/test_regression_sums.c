/*
 * test_regression_sums.c — unit tests of ridge-GSU from one scan's sums
 * (src/core/gsu_regression_sums.c), no PostgreSQL: for every covariance
 * kind, weighted and not, the sums a pass adds up row by row (Σ c ℓ(0),
 * Σ c ∇ℓ(0), the packed Σ c ∇²ℓ) solved by gsu_ridge_from_sums equal
 * gsu_solve_ridge's centred closed form, with its objective; the sums of a
 * data set split in two and added are the same solution (a parallel scan);
 * the packed row Hessians are the full ones' upper triangles, bit for bit;
 * SVR-GSU's Newton step from the sums of a pass at a point is
 * −(∇²F)⁻¹∇F of gsu_svr_objective and gsu_svr_hessian (the bias's curvature
 * at least λ), for every kind; invalid arguments.  Deterministic: fixed seeds.
 */
#include "gsu_regression.h"
#include "gsu_rng.h"
#include "gsu_test.h"

#define NKINDS 5
#define DMAX 4

static const gsu_cov_kind kinds[NKINDS] =
{GSU_COV_NONE, GSU_COV_ISO, GSU_COV_DIAG, GSU_COV_FULL, GSU_COV_FACTOR};

typedef struct sums
{
	double		loss0,
				wsum,
				grad[DMAX + 1],
				hess[(DMAX + 1) * (DMAX + 2) / 2];
} sums;

/* rows [from, to) of ds added into s, as gsu.regression_hessian adds them at θ = 0 */
static void
add_rows(const gsu_dataset *ds, int64_t from, int64_t to, sums *s)
{
	int			d = ds->d,
				m = d + 1,
				i,
				j;
	double		zero[DMAX + 1] = {0},
				work[DMAX],
				full[(DMAX + 1) * (DMAX + 1)];
	int64_t		r;

	for (r = from; r < to; r++)
	{
		double		c = ds->weight ? ds->weight[r] : 1.0;
		gsu_cov		cv = gsu_cov_row(ds->cov_kind, ds->cov, d, ds->cov_rank, r);
		size_t		k = 0;

		if (c == 0.0)
			continue;
		s->wsum += c;
		s->loss0 += c * gsu_ridge_row_loss_grad(d, zero, ds->x + r * d, &cv, ds->y[r], c,
												s->grad, work);
		double		packed[(DMAX + 1) * (DMAX + 2) / 2] = {0};

		memset(full, 0, sizeof(full));
		gsu_ridge_row_hessian(d, ds->x + r * d, &cv, c, full);
		gsu_ridge_row_hessian_packed(d, ds->x + r * d, &cv, c, packed);
		for (i = 0; i < m; i++)
			for (j = i; j < m; j++)
			{
				CHECK(packed[k] == full[i * m + j], "ridge packed (%d, %d)", i, j);
				s->hess[k++] += full[i * m + j];
			}
	}
}

/* n rows of dimension d, y = xᵀβ + 0.5 + noise, covariances of kind, weights */
static void
make_rows(gsu_dataset *ds, double **bufs, int64_t n, int d, gsu_cov_kind kind, int weighted,
		  uint64_t seed)
{
	uint64_t	st = seed;
	int			r = d / 2;
	size_t		per = gsu_cov_doubles(kind, d, kind == GSU_COV_FACTOR ? r : 0);
	int64_t		i;
	int			j,
				k,
				l;
	double	   *x = xcalloc((size_t) n * d, sizeof(double)),
			   *y = xcalloc((size_t) n, sizeof(double)),
			   *cov = per ? xcalloc((size_t) n * per, sizeof(double)) : NULL,
			   *w = weighted ? xcalloc((size_t) n, sizeof(double)) : NULL;

	for (i = 0; i < n; i++)
	{
		double		t = 0.5;

		for (j = 0; j < d; j++)
		{
			x[i * d + j] = 2.0 * test_unif(&st) - 1.0 + 0.3 * j;
			t += (j % 2 ? -1.0 : 1.0) * (1.0 + 0.5 * j) * x[i * d + j];
		}
		y[i] = t + 0.3 * (2.0 * test_unif(&st) - 1.0);
		if (w)
			w[i] = i % 7 == 3 ? 0.0 : 0.5 + 2.0 * test_unif(&st);
		if (kind == GSU_COV_ISO)
			cov[i] = 0.01 + 0.2 * test_unif(&st);
		else if (kind == GSU_COV_DIAG)
			for (j = 0; j < d; j++)
				cov[i * d + j] = 0.01 + 0.2 * test_unif(&st);
		else if (kind == GSU_COV_FACTOR)
			for (j = 0; j < d * r; j++)
				cov[i * per + j] = 0.3 * (2.0 * test_unif(&st) - 1.0);
		else if (kind == GSU_COV_FULL)
		{
			double		a[DMAX * DMAX];

			for (j = 0; j < d * d; j++)
				a[j] = 0.3 * (2.0 * test_unif(&st) - 1.0);
			for (j = 0; j < d; j++)
				for (k = 0; k < d; k++)
				{
					double		s = 0.0;

					for (l = 0; l < d; l++)
						s += a[j * d + l] * a[k * d + l];
					cov[i * per + j * d + k] = s;
				}
		}
	}
	memset(ds, 0, sizeof(*ds));
	ds->n = n;
	ds->d = d;
	ds->x = x;
	ds->y = y;
	ds->cov_kind = kind;
	ds->cov = cov;
	ds->cov_rank = kind == GSU_COV_FACTOR ? r : 0;
	ds->weight = w;
	bufs[0] = x;
	bufs[1] = y;
	bufs[2] = cov;
	bufs[3] = w;
}

static void
test_equals_closed_form(void)
{
	int			kk,
				weighted,
				j;

	for (kk = 0; kk < NKINDS; kk++)
		for (weighted = 0; weighted < 2; weighted++)
		{
			gsu_dataset ds;
			double	   *bufs[4],
						ref[DMAX + 1],
						got[DMAX + 1],
						half[DMAX + 1],
						f,
						gn;
			int			d = DMAX;
			int64_t		n = 300;
			sums		s,
						a,
						b;
			gsu_solve_options o;
			gsu_solve_result res;
			gsu_status	st;

			make_rows(&ds, bufs, n, d, kinds[kk], weighted, 40 + kk);
			gsu_solve_options_default(&o);
			o.lambda = 0.01;
			st = gsu_solve_ridge(&ds, &o, ref, &res);
			CHECK(st == GSU_OK, "kind %d: closed form status %d", kk, st);
			memset(&s, 0, sizeof(s));
			add_rows(&ds, 0, n, &s);
			st = gsu_ridge_from_sums(d, o.lambda, s.wsum, s.loss0, s.grad, s.hess, got, &f, &gn);
			CHECK(st == GSU_OK, "kind %d: sums status %d", kk, st);
			for (j = 0; j <= d; j++)
				CHECK(fabs(got[j] - ref[j]) <= 1e-11 * (1 + fabs(ref[j])),
					  "kind %d weighted %d: theta %d %.15g vs %.15g", kk, weighted, j, got[j], ref[j]);
			CHECK(fabs(f - res.objective) <= 1e-11 * (1 + res.objective),
				  "kind %d: objective %.15g vs %.15g", kk, f, res.objective);
			CHECK(gn <= 1e-10, "kind %d: gradient norm %.3g", kk, gn);
			/* two halves summed apart and added (a parallel scan): the same solution */
			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			add_rows(&ds, 0, n / 3, &a);
			add_rows(&ds, n / 3, n, &b);
			a.wsum += b.wsum;
			a.loss0 += b.loss0;
			for (j = 0; j <= d; j++)
				a.grad[j] += b.grad[j];
			for (j = 0; j < (d + 1) * (d + 2) / 2; j++)
				a.hess[j] += b.hess[j];
			st = gsu_ridge_from_sums(d, o.lambda, a.wsum, a.loss0, a.grad, a.hess, half, NULL, NULL);
			CHECK(st == GSU_OK, "halves status");
			for (j = 0; j <= d; j++)
				CHECK(fabs(half[j] - got[j]) <= 1e-12 * (1 + fabs(got[j])), "halves theta %d", j);
			for (j = 0; j < 4; j++)
				free(bufs[j]);
		}
}


/* SVR rows [0, n) of ds added at theta and smoothing tau, as gsu.regression_hessian adds them */
static void
add_svr_rows(const gsu_dataset *ds, const double *theta, double eps, double tau, sums *s)
{
	int			d = ds->d,
				m = d + 1,
				i,
				j;
	double		work[2 * (DMAX + 1)],
				full[(DMAX + 1) * (DMAX + 1)];
	int64_t		r;

	for (r = 0; r < ds->n; r++)
	{
		double		c = ds->weight ? ds->weight[r] : 1.0;
		gsu_cov		cv = gsu_cov_row(ds->cov_kind, ds->cov, d, ds->cov_rank, r);
		size_t		k = 0;

		if (c == 0.0)
			continue;
		s->wsum += c;
		s->loss0 += c * gsu_svr_row_loss_grad(d, theta, ds->x + r * d, &cv, ds->y[r], eps, tau,
											  c, s->grad, work);
		double		packed[(DMAX + 1) * (DMAX + 2) / 2] = {0};

		memset(full, 0, sizeof(full));
		gsu_svr_row_hessian(d, theta, ds->x + r * d, &cv, ds->y[r], eps, tau, c, full, work);
		gsu_svr_row_hessian_packed(d, theta, ds->x + r * d, &cv, ds->y[r], eps, tau, c, packed,
								   work);
		for (i = 0; i < m; i++)
			for (j = i; j < m; j++)
			{
				CHECK(packed[k] == full[i * m + j], "svr packed (%d, %d)", i, j);
				s->hess[k++] += full[i * m + j];
			}
	}
}

static void
test_svr_step(void)
{
	int			kk,
				weighted,
				i,
				j;

	for (kk = 0; kk < NKINDS; kk++)
		for (weighted = 0; weighted < 2; weighted++)
		{
			gsu_dataset ds;
			double	   *bufs[4],
						theta[DMAX + 1] = {0.4, -0.3, 0.2, 0.1, 0.2},
						grad[DMAX + 1],
						step[DMAX + 1],
						g[DMAX + 1],
						h[(DMAX + 1) * (DMAX + 1)],
						f,
						slope;
			int			d = DMAX,
						m = d + 1;
			sums		s;
			gsu_status	st;

			make_rows(&ds, bufs, 200, d, kinds[kk], weighted, 70 + kk);
			memset(&s, 0, sizeof(s));
			add_svr_rows(&ds, theta, 0.1, 0.01, &s);
			st = gsu_svr_step_from_sums(d, 0.01, s.wsum, theta, s.grad, s.hess, grad, step, &slope);
			CHECK(st == GSU_OK, "kind %d: status %d", kk, st);
			/* the in-memory gradient and Hessian at the same point */
			st = gsu_svr_objective(&ds, 0.01, 0.1, 0.01, theta, &f, g);
			CHECK(st == GSU_OK, "objective");
			st = gsu_svr_hessian(&ds, 0.01, 0.1, 0.01, theta, h);
			CHECK(st == GSU_OK, "hessian");
			if (h[d * m + d] < 0.01)
				h[d * m + d] = 0.01;
			for (j = 0; j < m; j++)
				CHECK(fabs(grad[j] - g[j]) <= 1e-12 * (1 + fabs(g[j])), "kind %d: grad %d", kk, j);
			/* H·step = −∇F */
			for (i = 0; i < m; i++)
			{
				double		r = 0.0;

				for (j = 0; j < m; j++)
					r += h[i * m + j] * step[j];
				CHECK(fabs(r + g[i]) <= 1e-9 * (1 + fabs(g[i])),
					  "kind %d weighted %d: (H step)[%d] %.15g vs %.15g", kk, weighted, i, r, -g[i]);
			}
			CHECK(slope < 0.0, "descent");
			for (j = 0; j < 4; j++)
				free(bufs[j]);
		}
}

static void
test_invalid(void)
{
	double		g[2] = {1.0, 1.0},
				h[3] = {1.0, 0.0, 1.0},
				t[2],
				bad[3] = {1.0, 0.0, NAN};

	CHECK(gsu_ridge_from_sums(1, 0.0, 1.0, 0.0, g, h, t, NULL, NULL) == GSU_EINVAL, "lambda 0");
	CHECK(gsu_ridge_from_sums(1, 1.0, 0.0, 0.0, g, h, t, NULL, NULL) == GSU_EINVAL, "wsum 0");
	CHECK(gsu_ridge_from_sums(1, 1.0, NAN, 0.0, g, h, t, NULL, NULL) == GSU_EINVAL, "wsum NaN");
	CHECK(gsu_ridge_from_sums(0, 1.0, 1.0, 0.0, g, h, t, NULL, NULL) == GSU_EINVAL, "d 0");
	CHECK(gsu_ridge_from_sums(1, 1.0, 1.0, 0.0, NULL, h, t, NULL, NULL) == GSU_EINVAL, "NULL");
	CHECK(gsu_ridge_from_sums(1, 1.0, 1.0, 0.0, g, bad, t, NULL, NULL) == GSU_ENOTFINITE, "NaN sums");
	CHECK(gsu_ridge_from_sums(1, 1.0, 1.0, 0.0, g, h, t, NULL, NULL) == GSU_OK, "valid");
	{
		double		gr[2],
					st[2],
					sl;

		CHECK(gsu_svr_step_from_sums(1, 0.0, 1.0, t, g, h, gr, st, &sl) == GSU_EINVAL, "svr lambda 0");
		CHECK(gsu_svr_step_from_sums(1, 1.0, -1.0, t, g, h, gr, st, &sl) == GSU_EINVAL, "svr wsum");
		CHECK(gsu_svr_step_from_sums(1, 1.0, 1.0, t, g, bad, gr, st, &sl) == GSU_ENOTFINITE, "svr NaN");
		CHECK(gsu_svr_step_from_sums(1, 1.0, 1.0, t, g, h, gr, st, &sl) == GSU_OK && sl < 0, "svr valid");
	}
}

static const gsu_test_case tests[] = {
	{"equals_closed_form", test_equals_closed_form},
	{"svr_step", test_svr_step},
	{"invalid", test_invalid},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
