/*
 * test_binary.c — unit tests of gsu_binary.c: one binary problem for any
 * loss.  gsu_train_binary must give exactly what the solver it chooses
 * gives when called by hand on the rows prepared by hand (the hinge loss
 * without the covariances, TSVC with the radii of gsu_robust_row_shapes,
 * PSVM with its given radii), refuse what it cannot train, and count
 * TSVC's free rows of a zero model.  Deterministic.
 */
#include "gsu_binary.h"
#include "gsu_robust.h"
#include "gsu_test.h"

#include <math.h>
#include <string.h>

#define N 80
#define D 2

typedef struct rows
{
	double		x[N * D],
				y[N],
				v[N * D],
				s[N];
	gsu_dataset ds;
} rows;

static void
make_rows(rows *r, uint64_t seed)
{
	gsu_rng		g;
	int			i,
				j;

	gsu_rng_seed(&g, seed);
	for (i = 0; i < N; i++)
	{
		r->y[i] = i % 2 ? 1.0 : -1.0;
		for (j = 0; j < D; j++)
		{
			r->x[i * D + j] = r->y[i] * (j ? 0.5 : 1.0) + 0.8 * gsu_rng_normal(&g);
			r->v[i * D + j] = 0.05 + 0.3 * gsu_rng_uniform(&g);
		}
		r->s[i] = 0.1 * gsu_rng_uniform(&g);
	}
	memset(&r->ds, 0, sizeof(r->ds));
	r->ds.n = N;
	r->ds.d = D;
	r->ds.x = r->x;
	r->ds.y = r->y;
	test_set_cov(&r->ds, NULL, r->v, NULL);
}

static void
options(gsu_solve_options *o)
{
	gsu_solve_options_default(o);
	o->lambda = 0.05;
	o->tolerance = 1e-9;
}

static gsu_binary_problem
problem(const gsu_dataset *ds, gsu_loss_kind loss)
{
	gsu_binary_problem p;

	memset(&p, 0, sizeof(p));
	p.ds = ds;
	p.loss = loss;
	p.solver = GSU_SOLVER_NEWTON;
	p.gamma = 0.5;
	p.q = 2;
	p.delta_scale = 1.0;
	return p;
}

static int
same_theta(const double *a, const double *b)
{
	return memcmp(a, b, sizeof(double) * (D + 1)) == 0;
}

/* gsu: the Newton solver on the rows as given; pegasos likewise */
static void
test_gaussian_family(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result r1,
				r2;
	double		t1[D + 1] = {0},
				t2[D + 1] = {0};
	gsu_binary_problem p;
	gsu_dataset certain;

	make_rows(&r, 1);
	options(&o);
	p = problem(&r.ds, GSU_LOSS_GSU);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "gsu");
	CHECK(gsu_solve_newton(&r.ds, &o, t2, &r2) == GSU_OK, "newton");
	CHECK(same_theta(t1, t2) && r1.objective == r2.objective && r1.free_rows == 0,
		  "gsu: differs from gsu_solve_newton");

	/* hinge: the same rows without their covariances */
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	p.loss = GSU_LOSS_HINGE;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "hinge");
	certain = r.ds;
	test_set_cov(&certain, NULL, NULL, NULL);
	CHECK(gsu_solve_newton(&certain, &o, t2, &r2) == GSU_OK, "newton certain");
	CHECK(same_theta(t1, t2) && r1.objective == r2.objective,
		  "hinge: differs from gsu_solve_newton on certain rows");

	/* pegasos */
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	p.loss = GSU_LOSS_GSU;
	p.solver = GSU_SOLVER_PEGASOS;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "pegasos");
	CHECK(gsu_solve_pegasos(&r.ds, &o, t2, &r2) == GSU_OK, "pegasos by hand");
	CHECK(same_theta(t1, t2), "pegasos: differs");
}

/* tsvc and robust: the shapes of gsu_robust_row_shapes, the robust solvers */
static void
test_worst_case_family(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result r1,
				r2;
	double		t1[D + 1] = {0},
				t2[D + 1] = {0},
				shape[N * D];
	gsu_binary_problem p;
	gsu_robust_data rd;

	make_rows(&r, 2);
	options(&o);

	/* tsvc, the relaxation (batch) */
	p = problem(&r.ds, GSU_LOSS_TSVC);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "tsvc");
	CHECK(gsu_robust_row_shapes(N, D, GSU_COV_DIAG, r.v, 1, 1.0, shape, NULL) == GSU_OK,
		  "radii");
	memset(&rd, 0, sizeof(rd));
	rd.n = N;
	rd.d = D;
	rd.x = r.x;
	rd.y = r.y;
	rd.gamma = 0.5;
	rd.q = 2;
	rd.loss = GSU_RLOSS_TSVC;
	rd.delta = shape;
	memset(&r2, 0, sizeof(r2));
	CHECK(gsu_robust_solve_batch(&rd, &o, t2, &r2) == GSU_OK, "tsvc by hand");
	CHECK(same_theta(t1, t2) && r1.objective == r2.objective, "tsvc: differs");

	/* the robust loss: Σ_i^½ of a diagonal Σ_i is the square roots */
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	p.loss = GSU_LOSS_ROBUST;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "robust");
	CHECK(gsu_robust_row_shapes(N, D, GSU_COV_DIAG, r.v, 0, 1.0, shape, NULL) == GSU_OK,
		  "roots");
	rd.loss = GSU_RLOSS_ROBUST;
	rd.delta = NULL;
	rd.a_diag = shape;
	memset(&r2, 0, sizeof(r2));
	CHECK(gsu_robust_solve_batch(&rd, &o, t2, &r2) == GSU_OK, "robust by hand");
	CHECK(same_theta(t1, t2) && r1.objective == r2.objective, "robust: differs");

	/* both need covariances */
	test_set_cov(&r.ds, NULL, NULL, NULL);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_EINVAL, "robust without covariances");
	p.loss = GSU_LOSS_TSVC;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_EINVAL, "tsvc without covariances");
	p.loss = (gsu_loss_kind) (GSU_LOSS_MAX + 1);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_EINVAL, "an unknown loss");
	p.loss = GSU_LOSS_SQUARED;
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_EINVAL, "a regression loss");
}

/* psvm: the radii as given; radius 0 everywhere is the hinge SVM */
static void
test_psvm(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result r1,
				r2;
	double		t1[D + 1] = {0},
				t2[D + 1] = {0},
				zero[N] = {0};
	gsu_binary_problem p;
	gsu_robust_data rd;
	int			j;

	make_rows(&r, 3);
	options(&o);
	test_set_cov(&r.ds, r.s, NULL, NULL);
	p = problem(&r.ds, GSU_LOSS_PSVM);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "psvm");
	memset(&rd, 0, sizeof(rd));
	rd.n = N;
	rd.d = D;
	rd.x = r.x;
	rd.y = r.y;
	rd.loss = GSU_RLOSS_TSVC;
	rd.delta = r.s;
	memset(&r2, 0, sizeof(r2));
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, t2, &r2) == GSU_OK, "alternating by hand");
	CHECK(same_theta(t1, t2), "psvm: differs");

	test_set_cov(&r.ds, zero, NULL, NULL);
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_OK, "psvm radius 0");
	p.loss = GSU_LOSS_HINGE;
	CHECK(gsu_train_binary(&p, &o, t2, &r2) == GSU_OK, "hinge");
	for (j = 0; j <= D; j++)
		CHECK(fabs(t1[j] - t2[j]) <= 1e-8 * (1.0 + fabs(t2[j])), "theta[%d] %.15g vs %.15g",
			  j, t1[j], t2[j]);

	/* a diagonal variance is no radius */
	p.loss = GSU_LOSS_PSVM;
	test_set_cov(&r.ds, NULL, r.v, NULL);
	CHECK(gsu_train_binary(&p, &o, t1, &r1) == GSU_EINVAL, "psvm with a diagonal");
}

/* tsvc's zero model: every row whose shift γδ_i reaches 1 is counted */
static void
test_free_rows(void)
{
	static rows r;
	gsu_solve_options o;
	gsu_solve_result res;
	double		theta[D + 1] = {0},
				big[N];
	gsu_binary_problem p;
	int			i;

	make_rows(&r, 4);
	options(&o);
	/* δ_i = √iso: γδ_i = 10 for every row but the last, whose γδ is 1 exactly */
	for (i = 0; i < N; i++)
		big[i] = i < N - 1 ? 100.0 : 1.0;
	test_set_cov(&r.ds, big, NULL, NULL);
	p = problem(&r.ds, GSU_LOSS_TSVC);
	p.gamma = 1.0;
	CHECK(gsu_train_binary(&p, &o, theta, &res) == GSU_OK, "tsvc");
	/* every shifted margin is met by w = 0, which λ/2‖w‖² prefers */
	CHECK(res.degenerate == GSU_DEGENERATE_ZERO && res.free_rows == N,
		  "degenerate %d, free rows %lld", res.degenerate, (long long) res.free_rows);
	/* below 1 a row is not free */
	big[N - 1] = 0.81;
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_train_binary(&p, &o, theta, &res) == GSU_OK, "tsvc");
	CHECK(res.degenerate != GSU_DEGENERATE_ZERO || res.free_rows == N - 1,
		  "degenerate %d, free rows %lld", res.degenerate, (long long) res.free_rows);
}

static const gsu_test_case tests[] = {
	{"gaussian_family", test_gaussian_family},
	{"worst_case_family", test_worst_case_family},
	{"psvm", test_psvm},
	{"free_rows", test_free_rows},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
