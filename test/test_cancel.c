/*
 * test_cancel.c — every long computation of the core stops when its
 * progress callback says so: it returns GSU_ECANCELLED and leaks nothing
 * (run under valgrind by make valgrind-coretest), and a callback that never
 * stops changes nothing.  Also: gsu_syevr agrees with LAPACK's dsyevr.
 */
#include "gsu_test.h"

#include <lapacke.h>

#include "gsu_core.h"
#include "gsu_eig.h"
#include "gsu_featmap.h"
#include "gsu_geu.h"
#include "gsu_robust.h"

static int	calls;

/* counts its calls; stops from the call numbered stop_at on (0: never) */
static int	stop_at;

static int
progress(void *arg)
{
	(void) arg;
	calls++;
	return stop_at > 0 && calls >= stop_at;
}

static void
reset(int at)
{
	calls = 0;
	stop_at = at;
}

/* two noisy classes in d dimensions with diagonal variances */
static const test_rows noisy_rows = {.kind = GSU_COV_DIAG, .shift = 0.3, .full_shift = 1,
	.spread = 1.0, .vlo = 0.01, .vhi = 0.21};

static void
test_solvers(void)
{
	int64_t		n = quick ? 400 : 2000;
	int			d = 20;
	test_data	td;
	double	   *x,
			   *y,
			   *v,
			   *a = malloc(sizeof(double) * n * d),
			   *delta = malloc(sizeof(double) * n);
	double		th[21],
				th2[21];
	gsu_dataset ds;
	gsu_robust_data rd;
	gsu_solve_options o;
	gsu_solve_result res;

	make_data(&td, n, d, &noisy_rows, 3);
	ds = td.ds;
	x = td.x;
	y = td.y;
	v = td.v;
	gsu_solve_options_default(&o);
	o.progress = progress;

	/* newton: asked before its first iteration */
	reset(1);
	memset(th, 0, sizeof(th));
	CHECK(gsu_solve_newton(&ds, &o, th, &res) == GSU_ECANCELLED, "newton");
	CHECK(calls == 1, "newton asked %d times", calls);
	/* stopping inside the CG (the second call is a Hessian product's) */
	reset(2);
	memset(th, 0, sizeof(th));
	CHECK(gsu_solve_newton(&ds, &o, th, &res) == GSU_ECANCELLED, "newton, in the CG");
	/* a callback that never stops changes nothing */
	reset(0);
	memset(th, 0, sizeof(th));
	CHECK(gsu_solve_newton(&ds, &o, th, &res) == GSU_OK, "newton, not stopped");
	CHECK(calls > res.iterations, "newton asked %d times in %lld iterations", calls,
		  (long long) res.iterations);
	o.progress = NULL;
	memset(th2, 0, sizeof(th2));
	CHECK(gsu_solve_newton(&ds, &o, th2, &res) == GSU_OK, "newton, no callback");
	CHECK(memcmp(th, th2, sizeof(th)) == 0, "the callback changed the result");
	o.progress = progress;

	/* pegasos: work-counted, so enough steps to reach GSU_PROGRESS_WORK */
	o.epochs = (int) (2 * GSU_PROGRESS_WORK / ((double) n * d)) + 2;
	reset(1);
	memset(th, 0, sizeof(th));
	CHECK(gsu_solve_pegasos(&ds, &o, th, &res) == GSU_ECANCELLED, "pegasos");
	CHECK(calls == 1, "pegasos asked %d times", calls);

	/* the robust batch and pegasos solvers, TSVC alternating */
	for (int64_t i = 0; i < n * d; i++)
		a[i] = sqrt(v[i]);
	memset(&rd, 0, sizeof(rd));
	rd.n = n;
	rd.d = d;
	rd.x = x;
	rd.y = y;
	rd.loss = GSU_RLOSS_ROBUST;
	rd.gamma = 1.0;
	rd.q = 2;
	rd.a_diag = a;
	reset(1);
	memset(th, 0, sizeof(th));
	CHECK(gsu_robust_solve_batch(&rd, &o, th, &res) == GSU_ECANCELLED, "robust batch");
	reset(1);
	memset(th, 0, sizeof(th));
	CHECK(gsu_robust_solve_pegasos(&rd, &o, th, &res) == GSU_ECANCELLED, "robust pegasos");
	for (int64_t i = 0; i < n; i++)
		delta[i] = 0.1;
	rd.loss = GSU_RLOSS_TSVC;
	rd.a_diag = NULL;
	rd.delta = delta;
	rd.gamma = 10.0;
	reset(1);
	memset(th, 0, sizeof(th));
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, th, &res) == GSU_ECANCELLED, "tsvc alternating");
	/* its inner newton stops too */
	reset(2);
	memset(th, 0, sizeof(th));
	CHECK(gsu_tsvc_solve_alternating(&rd, &o, th, &res) == GSU_ECANCELLED,
		  "tsvc alternating, inner newton");
	test_data_free(&td);
	free(a);
	free(delta);
}

/* gsu_syevr: dsyevr's eigenvalues exactly, its eigenvectors to rounding */
static void
test_syevr(void)
{
	int			sizes[] = {1, 5, 32, 33, 61, 150, 400};

	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++)
	{
		int			m = sizes[t];
		double	   *a = malloc(sizeof(double) * m * m),
				   *b = malloc(sizeof(double) * m * m),
				   *z = malloc(sizeof(double) * m * m),
				   *z2 = malloc(sizeof(double) * m * m),
				   *w = malloc(sizeof(double) * m),
				   *w2 = malloc(sizeof(double) * m);
		lapack_int *isuppz = malloc(sizeof(lapack_int) * 2 * m),
					found = 0;
		gsu_rng		rng;
		gsu_progress pg = gsu_progress_make(progress, NULL);
		double		worst = 0.0;

		gsu_rng_seed(&rng, 11 + t);
		for (int i = 0; i < m; i++)
			for (int j = i; j < m; j++)
				a[i * m + j] = a[j * m + i] = gsu_rng_normal(&rng);
		memcpy(b, a, sizeof(double) * m * m);
		CHECK(LAPACKE_dsyevr(LAPACK_COL_MAJOR, 'V', 'A', 'U', m, b, m, 0.0, 0.0, 0, 0, 0.0,
							 &found, w, z, m, isuppz) == 0, "dsyevr");
		memcpy(b, a, sizeof(double) * m * m);
		reset(0);
		CHECK(gsu_syevr(m, b, w2, z2, &pg) == GSU_OK, "gsu_syevr m = %d", m);
		for (int i = 0; i < m; i++)
			CHECK(w[i] == w2[i], "m = %d: eigenvalue %d: %.17g vs %.17g", m, i, w[i], w2[i]);
		for (int i = 0; i < m * m; i++)
			worst = fmax(worst, fabs(z[i] - z2[i]));
		CHECK(worst <= 1e-13, "m = %d: eigenvectors differ by %g", m, worst);
		/* stopped: nothing leaks (valgrind), whichever piece it stops in */
		for (int at = 1; at <= 3; at++)
		{
			memcpy(b, a, sizeof(double) * m * m);
			reset(at);
			pg = gsu_progress_make(progress, NULL);
			pg.work = GSU_PROGRESS_WORK;	/* the first tick calls */
			CHECK(gsu_syevr(m, b, w2, z2, &pg) == GSU_ECANCELLED || calls < at,
				  "m = %d, stop at call %d", m, at);
		}
		free(a);
		free(b);
		free(z);
		free(z2);
		free(w);
		free(w2);
		free(isuppz);
	}
}

static void
test_featmap(void)
{
	int64_t		n = 300;
	int			p = 3,
				m = quick ? 150 : 300,
				r = 0;
	test_data	td;
	double	   *x,
			   *v,
			   *block = malloc(sizeof(double) * ((size_t) m * p + (size_t) m * m)),
			   *proj = malloc(sizeof(double) * m * m);
	gsu_progress pg = gsu_progress_make(progress, NULL);
	gsu_featmap f;
	double	   *work,
			   *mean,
			   *out,
			   *C;

	make_data(&td, n, p, &noisy_rows, 5);
	x = td.x;
	v = td.v;
	reset(1);
	CHECK(gsu_nystroem_build(n, p, x, m, 1.0, 3, block, proj, &r, &pg) == GSU_ECANCELLED,
		  "nystroem build");
	reset(0);
	pg = gsu_progress_make(progress, NULL);
	CHECK(gsu_nystroem_build(n, p, x, m, 1.0, 3, block, proj, &r, &pg) == GSU_OK,
		  "nystroem build, not stopped");
	memcpy(block + (size_t) m * p, proj, sizeof(double) * m * r);
	gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, p, r, m, 1.0, block);
	work = malloc(sizeof(double) * gsu_featmap_cov_work_size(&f));
	mean = malloc(sizeof(double) * r);
	out = malloc(sizeof(double) * r);
	C = malloc(sizeof(double) * r * r);
	reset(1);
	pg = gsu_progress_make(progress, NULL);
	CHECK(gsu_featmap_moments(&f, x, COV3(v, 0.0, NULL), mean, out, work, &pg) == GSU_ECANCELLED,
		  "nystroem moments");
	reset(1);
	pg = gsu_progress_make(progress, NULL);
	CHECK(gsu_featmap_covariance(&f, x, COV3(v, 0.0, NULL), mean, C, work, &pg) == GSU_ECANCELLED,
		  "nystroem covariance");
	free(work);
	free(mean);
	free(out);
	free(C);

	/* RFF covariance: D/2 frequencies, a tick per frequency */
	{
		int			D = 2000;
		double	   *omega = malloc(sizeof(double) * (D / 2) * p);

		CHECK(gsu_rff_build(p, D, 1.0, 4, omega) == GSU_OK, "rff build");
		gsu_featmap_bind(&f, GSU_MAP_RFF, p, D, 0, 1.0, omega);
		work = malloc(sizeof(double) * gsu_featmap_cov_work_size(&f));
		mean = malloc(sizeof(double) * D);
		C = malloc(sizeof(double) * D * D);
		reset(1);
		pg = gsu_progress_make(progress, NULL);
		CHECK(gsu_featmap_covariance(&f, x, COV3(v, 0.0, NULL), mean, C, work, &pg) == GSU_ECANCELLED,
			  "rff covariance");
		free(work);
		free(mean);
		free(C);
		free(omega);
	}
	test_data_free(&td);
	free(block);
	free(proj);
}

static void
test_geu(void)
{
	int			d = quick ? 120 : 300,
				k = 2;
	int64_t		n = 2 * d;
	test_data	td;
	double	   *x,
			   *v,
			   *S = malloc(sizeof(double) * d * d),
			   *Sp = malloc(sizeof(double) * d * d),
			   *lam = malloc(sizeof(double) * k),
			   *vt = malloc(sizeof(double) * k * d);
	int32_t    *lab = malloc(sizeof(int32_t) * n);
	gsu_graph	gi,
				gp;
	gsu_geneig_info info;
	gsu_progress pg;

	make_data(&td, n, d, &noisy_rows, 9);
	x = td.x;
	v = td.v;
	for (int64_t i = 0; i < n; i++)
		lab[i] = (int32_t) td.y[i];
	CHECK(gsu_mfa_graphs(n, d, x, lab, 3, 10, &gi, &gp, NULL, NULL) == GSU_OK, "graphs");
	reset(1);
	pg = gsu_progress_make(progress, NULL);
	pg.work = GSU_PROGRESS_WORK;
	CHECK(gsu_graph_scatter(n, d, x, v, NULL, &gi, 0.1, S, &pg) == GSU_ECANCELLED, "scatter");
	reset(0);
	CHECK(gsu_graph_scatter(n, d, x, v, NULL, &gi, 0.1, S, NULL) == GSU_OK, "scatter");
	CHECK(gsu_graph_scatter(n, d, x, v, NULL, &gp, 0.1, Sp, NULL) == GSU_OK, "scatter");
	reset(1);
	pg = gsu_progress_make(progress, NULL);
	pg.work = GSU_PROGRESS_WORK;
	CHECK(gsu_geneig_smallest(d, S, Sp, k, lam, vt, &info, &pg) == GSU_ECANCELLED,
		  "geneig, stopped in the reduction");
	/* stopped later, inside gsu_syevr */
	reset(3);
	pg = gsu_progress_make(progress, NULL);
	pg.work = GSU_PROGRESS_WORK;
	CHECK(gsu_geneig_smallest(d, S, Sp, k, lam, vt, &info, &pg) == GSU_ECANCELLED,
		  "geneig, stopped later");
	gsu_graph_free(&gi);
	gsu_graph_free(&gp);
	test_data_free(&td);
	free(S);
	free(Sp);
	free(lam);
	free(vt);
	free(lab);
}

static const gsu_test_case tests[] = {
	{"solvers", test_solvers},
	{"syevr", test_syevr},
	{"featmap", test_featmap},
	{"geu", test_geu},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
