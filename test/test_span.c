/*
 * test_span.c — unit tests of gsu_span.c: the Gaussian loss on full
 * covariances of low rank in many dimensions, solved in the span S of the
 * means and the covariances' ranges.  The reduced rows must give the same
 * wᵀx_i and wᵀΣ_iw as the originals for every w in S, the basis must be
 * orthonormal, and the solution in S must be the optimum that Newton finds
 * on the rows as given (with weights, with a zero covariance, from a warm
 * start outside S, and through the fall-back), for full covariances and for
 * the same covariances given as factors.  Deterministic.
 */
#include "gsu_binary.h"
#include "gsu_span.h"
#include "gsu_test.h"

#include <math.h>
#include <string.h>

#define D 64
#define N 4
#define R 2						/* each Σ_i = F_iF_iᵀ, F_i of D × R */
#define K (N + N * R)			/* dim S */

typedef struct rows
{
	double		x[N * D],
				y[N],
				cov[N * D * D],
				fac[N * D * R],	/* the same Σ_i as factors F_i, D × R row-major */
				w[N];
	gsu_dataset ds;
} rows;

/*
 * Labels alternating, means a class shift on the first coordinates plus
 * noise, Σ_i = F_iF_iᵀ with F_i's columns Gaussian (row zero_row: Σ = 0)
 */
static void
make_rows(rows *r, uint64_t seed, int zero_row)
{
	gsu_rng		g;
	double		f[D * R];
	int			i,
				j,
				l,
				c;

	gsu_rng_seed(&g, seed);
	for (i = 0; i < N; i++)
	{
		r->y[i] = i % 2 ? 1.0 : -1.0;
		for (j = 0; j < D; j++)
			r->x[i * D + j] = (j < 4 ? 0.4 * r->y[i] : 0.0) + 0.3 * gsu_rng_normal(&g);
		for (j = 0; j < D * R; j++)
			f[j] = i == zero_row ? 0.0 : 0.2 * gsu_rng_normal(&g);
		memcpy(r->fac + (size_t) i * D * R, f, sizeof(f));
		for (j = 0; j < D; j++)
			for (l = 0; l < D; l++)
			{
				double		s = 0.0;

				for (c = 0; c < R; c++)
					s += f[j * R + c] * f[l * R + c];
				r->cov[((size_t) i * D + j) * D + l] = s;
			}
		r->w[i] = 0.5 + i;
	}
	memset(&r->ds, 0, sizeof(r->ds));
	r->ds.n = N;
	r->ds.d = D;
	r->ds.x = r->x;
	r->ds.y = r->y;
	test_set_cov(&r->ds, NULL, NULL, r->cov);
}

/* r's rows with their covariances given as the factors F_i */
static gsu_dataset
factor_rows(const rows *r)
{
	gsu_dataset ds = r->ds;

	ds.cov_kind = GSU_COV_FACTOR;
	ds.cov = r->fac;
	ds.cov_rank = R;
	return ds;
}

static void
options(gsu_solve_options *o)
{
	gsu_solve_options_default(o);
	o->lambda = 0.05;
	o->tolerance = 1e-7;
	o->max_iterations = 5000;
}

static double
dot(const double *a, const double *b, int n)
{
	double		s = 0.0;

	for (int j = 0; j < n; j++)
		s += a[j] * b[j];
	return s;
}

/* vᵀAv for A n × n */
static double
quad(const double *a, const double *v, int n)
{
	double		s = 0.0;

	for (int j = 0; j < n; j++)
		s += v[j] * dot(a + (size_t) j * n, v, n);
	return s;
}

/* the reduced rows give the originals' wᵀx_i and wᵀΣ_iw for w = Qv */
static void
test_reduced_rows(void)
{
	static rows r;
	gsu_span	sp;
	gsu_progress pg = gsu_progress_make(NULL, NULL);
	gsu_rng		g;
	double		v[K],
				v2[K],
				w[D],
				u[D];
	int			reduced,
				i,
				j;

	make_rows(&r, 1, 2);
	CHECK(gsu_span_reduce(&r.ds, &pg, &sp, &reduced) == GSU_OK && reduced, "not reduced");
	if (!reduced)
		return;
	/* the memory bound covers the reduced rows */
	CHECK(gsu_span_doubles(N, D, D) >= (double) N * sp.k * (sp.k + 1) + (double) D * D,
		  "bound %g", gsu_span_doubles(N, D, D));
	/* row 2's Σ = 0 adds no direction */
	CHECK(sp.k == K - R && sp.ds.d == sp.k && sp.ds.n == N && sp.ds.y == r.y &&
		  sp.ds.cov_kind == GSU_COV_FULL, "k %d", sp.k);
	gsu_rng_seed(&g, 7);
	for (j = 0; j < sp.k; j++)
		v[j] = gsu_rng_normal(&g);
	gsu_span_to_rows(&sp, v, w);
	/* Q is orthonormal: ‖Qv‖ = ‖v‖, and Qᵀ(Qv) = v with nothing outside S */
	CHECK_CLOSE(dot(w, w, D), dot(v, v, sp.k), 1e-12 * dot(v, v, sp.k));
	CHECK(gsu_span_from_rows(&sp, w, v2) < 1e-12 * sqrt(dot(v, v, sp.k)), "w outside S");
	for (j = 0; j < sp.k; j++)
		CHECK_CLOSE(v2[j], v[j], 1e-12);
	for (i = 0; i < N; i++)
	{
		double		q = quad(r.cov + (size_t) i * D * D, w, D);

		CHECK_CLOSE(dot(sp.ds.x + (size_t) i * sp.k, v, sp.k), dot(r.x + (size_t) i * D, w, D),
					1e-12 * (1.0 + fabs(dot(r.x + (size_t) i * D, w, D))));
		CHECK_CLOSE(quad(sp.ds.cov + (size_t) i * sp.k * sp.k, v, sp.k), q, 1e-12 * (1.0 + q));
	}
	/* a w of all of R^D: ‖w‖² = ‖Qᵀw‖² + ‖w − QQᵀw‖² */
	for (j = 0; j < D; j++)
		u[j] = gsu_rng_normal(&g);
	{
		double		out = gsu_span_from_rows(&sp, u, v2);

		CHECK(out > 1.0, "outside %g", out);
		CHECK_CLOSE(dot(u, u, D), dot(v2, v2, sp.k) + out * out, 1e-12 * dot(u, u, D));
	}
	gsu_span_free(&sp);
}

/* what is not reduced: other kinds, few dimensions, many rows, full rank */
static void
test_not_reduced(void)
{
	static rows r;
	static double big[D * D];
	gsu_span	sp;
	gsu_progress pg = gsu_progress_make(NULL, NULL);
	gsu_dataset ds;
	double		var[N * D];
	int			reduced = -1,
				j;

	make_rows(&r, 2, -1);
	ds = r.ds;
	for (j = 0; j < N * D; j++)
		var[j] = 0.1;
	test_set_cov(&ds, NULL, var, NULL);
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced == 0, "diagonal");
	/* below GSU_SPAN_MIN_DIM: the rows' first 63 coordinates, as a 63-D set */
	ds = r.ds;
	ds.d = GSU_SPAN_MIN_DIM - 1;
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced == 0, "63 dimensions");
	/* S above D/2: one row of full rank */
	for (j = 0; j < D; j++)
		big[j * D + j] = 1.0 + j;
	ds = r.ds;
	ds.n = 1;
	ds.cov = big;
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced == 0, "full rank");
	CHECK(sp.qr == NULL && sp.x == NULL && sp.cov == NULL, "left allocated");
	/* where it never reduces, its memory bound is 0 */
	CHECK(gsu_span_doubles(N, GSU_SPAN_MIN_DIM - 1, GSU_SPAN_MIN_DIM - 1) == 0.0 &&
		  gsu_span_doubles(D / 2, D, D) == 0.0 && gsu_span_doubles(D / 2 - 1, D, D) > 0.0,
		  "bound where not reduced");
	/* factors: not where n(1 + r) > D/2, nor below GSU_SPAN_MIN_DIM */
	ds = factor_rows(&r);
	ds.n = D / 2 / (1 + R) + 1;
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced == 0, "factors, large S");
	CHECK(gsu_span_doubles(ds.n, D, R) == 0.0 && gsu_span_doubles(ds.n - 1, D, R) > 0.0,
		  "factor bound where not reduced");
	ds = factor_rows(&r);
	ds.d = GSU_SPAN_MIN_DIM - 1;
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced == 0, "factors, 63 dimensions");
}

static void
solve_both(const gsu_dataset *ds, const gsu_solve_options *o, const double *start,
		   const char *what)
{
	gsu_solve_result rs,
				rf;
	double		ts[D + 1],
				tf[D + 1];
	int			j;

	memcpy(ts, start, sizeof(ts));
	memcpy(tf, start, sizeof(tf));
	/* both agree on whether they converged (a warm start skips the continuation) */
	CHECK(gsu_solve_newton_span(ds, o, ts, &rs) == GSU_OK, "%s: span", what);
	CHECK(gsu_solve_newton(ds, o, tf, &rf) == GSU_OK, "%s: as given", what);
	CHECK(rs.converged == rf.converged && (rf.converged || o->warm_start), "%s: converged %d, %d",
		  what, rs.converged, rf.converged);
	CHECK(fabs(rs.objective - rf.objective) <= 1e-10 * rf.objective,
		  "%s: objective %.17g vs %.17g", what, rs.objective, rf.objective);
	CHECK_CLOSE(rs.gradient_norm0, rf.gradient_norm0, 1e-12 * rf.gradient_norm0);
	for (j = 0; j <= D; j++)
		CHECK(fabs(ts[j] - tf[j]) <= 1e-5 * (1.0 + fabs(tf[j])), "%s: theta[%d] %.12g vs %.12g",
			  what, j, ts[j], tf[j]);
}

/* the optimum in S is Newton's optimum on the rows as given */
static void
test_same_optimum(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_dataset weighted;
	gsu_rng		g;
	double		start[D + 1] = {0};
	int			j;

	make_rows(&r, 3, 4);
	options(&o);
	solve_both(&r.ds, &o, start, "plain");
	weighted = r.ds;
	weighted.weight = r.w;
	solve_both(&weighted, &o, start, "weighted");
	/*
	 * a warm start outside S (near the optimum, as a warm start is meant to
	 * be) starts from its projection
	 */
	{
		gsu_solve_result res;

		CHECK(gsu_solve_newton(&r.ds, &o, start, &res) == GSU_OK, "the optimum");
	}
	gsu_rng_seed(&g, 11);
	for (j = 0; j <= D; j++)
		start[j] += 1e-4 * gsu_rng_normal(&g);
	o.warm_start = 1;
	solve_both(&r.ds, &o, start, "warm");
}

/* gsu_train_binary takes this path for the Gaussian loss with the solver newton */
static void
test_binary_entry(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result r1,
				r2;
	gsu_binary_problem p;
	double		t1[D + 1] = {0},
				t2[D + 1] = {0};

	make_rows(&r, 4, -1);
	options(&o);
	memset(&p, 0, sizeof(p));
	p.ds = &r.ds;
	p.loss = GSU_LOSS_GSU;
	p.solver = GSU_SOLVER_NEWTON;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "gsu_train_binary");
	CHECK(gsu_solve_newton_span(&r.ds, &o, t2, &r2) == GSU_OK, "span");
	CHECK(memcmp(t1, t2, sizeof(t1)) == 0 && r1.passes == r2.passes, "differs");
}

/*
 * The fall-back: with a tolerance below the rounding of the check (the part
 * of ∇F outside S is about 1e-17, not 0), Newton goes on from the solution
 * in S on the rows as given (at least one iteration more than the solve in S
 * alone), and stays at the optimum.
 */
static void
test_fallback(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result rs,
				rf,
				rr;
	gsu_span	sp;
	gsu_progress pg = gsu_progress_make(NULL, NULL);
	double		ts[D + 1] = {0},
				tf[D + 1] = {0},
				tr[K + 1] = {0};
	int			reduced;

	make_rows(&r, 5, -1);
	options(&o);
	CHECK(gsu_solve_newton(&r.ds, &o, tf, &rf) == GSU_OK && rf.converged, "as given");
	o.tolerance = 1e-300;
	o.max_iterations = 200;
	CHECK(gsu_solve_newton_span(&r.ds, &o, ts, &rs) == GSU_OK, "span");
	CHECK(gsu_span_reduce(&r.ds, &pg, &sp, &reduced) == GSU_OK && reduced, "not reduced");
	if (reduced)
	{
		CHECK(gsu_solve_newton(&sp.ds, &o, tr, &rr) == GSU_OK, "in S alone");
		CHECK(rs.iterations > rr.iterations, "no fall-back: %ld iterations, %ld in S",
			  (long) rs.iterations, (long) rr.iterations);
		gsu_span_free(&sp);
	}
	CHECK(fabs(rs.objective - rf.objective) <= 1e-10 * rf.objective,
		  "objective %.17g vs %.17g", rs.objective, rf.objective);
}

/*
 * Factor rows: S from the means and the factors' columns, k = N(1 + R) with
 * a zero factor's columns counted; the reduced rows are factors QᵀF_i giving
 * the originals' wᵀx_i and ‖F_iᵀw‖² for w = Qv, within the memory bound
 */
static void
test_factor_rows(void)
{
	static rows r;
	gsu_span	sp;
	gsu_progress pg = gsu_progress_make(NULL, NULL);
	gsu_dataset ds;
	gsu_rng		g;
	double		v[K],
				v2[K],
				w[D];
	int			reduced,
				i,
				j,
				c;

	make_rows(&r, 8, 1);
	ds = factor_rows(&r);
	CHECK(gsu_span_reduce(&ds, &pg, &sp, &reduced) == GSU_OK && reduced, "not reduced");
	if (!reduced)
		return;
	CHECK(sp.k == K && sp.ds.d == K && sp.ds.n == N && sp.ds.cov_kind == GSU_COV_FACTOR &&
		  sp.ds.cov_rank == R, "k %d", sp.k);
	CHECK(gsu_span_doubles(N, D, R) >= (double) D * K + (double) N * K * (1 + R) + 2.0 * D + K,
		  "bound %g", gsu_span_doubles(N, D, R));
	gsu_rng_seed(&g, 9);
	for (j = 0; j < K; j++)
		v[j] = gsu_rng_normal(&g);
	gsu_span_to_rows(&sp, v, w);
	CHECK_CLOSE(dot(w, w, D), dot(v, v, K), 1e-12 * dot(v, v, K));
	CHECK(gsu_span_from_rows(&sp, w, v2) < 1e-12 * sqrt(dot(v, v, K)), "w outside S");
	for (i = 0; i < N; i++)
	{
		double		q = 0.0,
					qr = 0.0;

		for (c = 0; c < R; c++)
		{
			double		a = 0.0,
						b = 0.0;

			for (j = 0; j < D; j++)
				a += r.fac[((size_t) i * D + j) * R + c] * w[j];
			for (j = 0; j < K; j++)
				b += sp.ds.cov[((size_t) i * K + j) * R + c] * v[j];
			q += a * a;
			qr += b * b;
		}
		CHECK_CLOSE(dot(sp.ds.x + (size_t) i * K, v, K), dot(r.x + (size_t) i * D, w, D),
					1e-12 * (1.0 + fabs(dot(r.x + (size_t) i * D, w, D))));
		CHECK_CLOSE(qr, q, 1e-12 * (1.0 + q));
		/* the factor's wᵀΣ_iw is the full covariance's */
		CHECK_CLOSE(q, quad(r.cov + (size_t) i * D * D, w, D), 1e-12 * (1.0 + q));
	}
	gsu_span_free(&sp);
}

/*
 * The optimum in S of factor rows is Newton's on the factor rows as given,
 * and the optimum of the same Σ_i given in full
 */
static void
test_factor_optimum(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result rf,
				rs;
	gsu_dataset ds,
				weighted;
	double		start[D + 1] = {0},
				tf[D + 1] = {0},
				ts[D + 1] = {0};
	int			j;

	make_rows(&r, 10, 0);
	options(&o);
	ds = factor_rows(&r);
	solve_both(&ds, &o, start, "factors");
	weighted = ds;
	weighted.weight = r.w;
	solve_both(&weighted, &o, start, "factors, weighted");
	CHECK(gsu_solve_newton_span(&ds, &o, tf, &rf) == GSU_OK && rf.converged, "factors");
	CHECK(gsu_solve_newton_span(&r.ds, &o, ts, &rs) == GSU_OK && rs.converged, "full");
	CHECK(fabs(rf.objective - rs.objective) <= 1e-10 * rs.objective, "objective %.17g vs %.17g",
		  rf.objective, rs.objective);
	for (j = 0; j <= D; j++)
		CHECK(fabs(tf[j] - ts[j]) <= 1e-5 * (1.0 + fabs(ts[j])), "theta[%d] %.12g vs %.12g", j,
			  tf[j], ts[j]);
}

/* a cancel during the reduction */
static void
test_cancel(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result rs;
	double		ts[D + 1] = {0};

	make_rows(&r, 6, -1);
	options(&o);
	o.progress = stop_now;
	CHECK(gsu_solve_newton_span(&r.ds, &o, ts, &rs) == GSU_ECANCELLED, "not cancelled");
}

static const gsu_test_case tests[] = {
	{"reduced_rows", test_reduced_rows},
	{"not_reduced", test_not_reduced},
	{"same_optimum", test_same_optimum},
	{"binary_entry", test_binary_entry},
	{"fallback", test_fallback},
	{"factor_rows", test_factor_rows},
	{"factor_optimum", test_factor_optimum},
	{"cancel", test_cancel},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
