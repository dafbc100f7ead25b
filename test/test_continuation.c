/*
 * test_continuation.c — unit tests of gsu_continuation.c: the smoothing
 * continuation of gsu.fit around L-BFGS, in reverse communication.
 *
 * The driver here plays gsu.fit: it evaluates F_μ and ∇F_μ with
 * gsu_objective on a small data set held in memory (gsu.fit does it with a
 * pass of an aggregate) and reports the rows' smallest d_Σ.  The reference
 * is the batch Newton solver's optimum of the same problem, which the
 * continuation must reach to the tolerance; the schedule of μ (1, 0.1, …,
 * the smoothing, then 0) and the bookkeeping are checked step by step.
 * Deterministic.
 */
#include "gsu_continuation.h"
#include "gsu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 120
#define D 3

typedef struct problem
{
	double		x[N * D],
				y[N],
				v[N * D];
	gsu_dataset ds;
} problem;

static void
make_problem(problem *p, double vscale, uint64_t seed)
{
	gsu_rng		r;
	int			i,
				j;

	gsu_rng_seed(&r, seed);
	for (i = 0; i < N; i++)
	{
		p->y[i] = i % 2 ? 1.0 : -1.0;
		for (j = 0; j < D; j++)
		{
			p->x[i * D + j] = 0.6 * p->y[i] * (j + 1) / D + gsu_rng_normal(&r);
			p->v[i * D + j] = vscale * (0.2 + gsu_rng_uniform(&r));
		}
	}
	memset(&p->ds, 0, sizeof(p->ds));
	p->ds.n = N;
	p->ds.d = D;
	p->ds.x = p->x;
	p->ds.y = p->y;
	test_set_cov(&p->ds, NULL, p->v, NULL);
}

/* min_i d_Σ = √(2 wᵀΣ_i w) at theta */
static double
min_dsigma(const problem *p, const double *theta)
{
	double		m = INFINITY;
	int			i;

	for (i = 0; i < N; i++)
	{
		gsu_cov		c = gsu_cov_row(p->ds.cov_kind, p->ds.cov, D, 0, i);

		m = fmin(m, sqrt(2.0 * gsu_cov_quad(D, &c, theta, NULL)));
	}
	return m;
}

typedef struct run
{
	int			evaluations;
	int			accepted_calls;
	double		mus[64];		/* the distinct μ asked for, in order */
	int			nmu;
	int			done;
} run;

/* the caller's loop; budget: evaluations allowed (0: unlimited) */
static void
drive(const problem *p, gsu_continuation *c, double lambda, int budget, run *r)
{
	double		g[D + 1];

	memset(r, 0, sizeof(*r));
	for (;;)
	{
		double		f;
		gsu_status	st;
		int			a;

		if (budget > 0 && r->evaluations >= budget)
		{
			gsu_continuation_stop(c);
			return;
		}
		if (r->nmu == 0 || r->mus[r->nmu - 1] != c->mu)
		{
			if (r->nmu < 64)
				r->mus[r->nmu++] = c->mu;
		}
		st = gsu_objective(&p->ds, lambda, c->mu, c->x, &f, g);
		CHECK(st == GSU_OK, "objective: %s", gsu_status_string(st));
		r->evaluations++;
		a = gsu_continuation_tell(c, f, g, min_dsigma(p, c->x), &st);
		CHECK(st == GSU_OK, "tell: %s", gsu_status_string(st));
		if (a & GSU_CONT_ACCEPTED)
			r->accepted_calls++;
		if (a & GSU_CONT_DONE)
		{
			r->done = 1;
			return;
		}
		if (r->evaluations > 20000)
		{
			CHECK(0, "no end after 20000 evaluations");
			return;
		}
	}
}

/* the batch Newton solver's optimum of F (μ = 0) */
static void
newton_optimum(const problem *p, double lambda, double *theta, double *fstar)
{
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_status	st;

	gsu_solve_options_default(&o);
	o.lambda = lambda;
	o.tolerance = 1e-10;
	memset(theta, 0, sizeof(double) * (D + 1));
	st = gsu_solve_newton(&p->ds, &o, theta, &res);
	CHECK(st == GSU_OK && res.converged, "newton: %s", gsu_status_string(st));
	*fstar = res.objective;
}

/* from 0: μ = 1, 0.1, …, the smoothing, then 0; the optimum to the tolerance */
static void
test_schedule_and_optimum(void)
{
	static problem p;
	double		lambda = 0.05,
				theta[D + 1] = {0},
				ref[D + 1],
				fstar,
				f,
				g[D + 1],
				g0[D + 1],
				gnorm0 = 0.0;
	gsu_continuation c;
	run			r;
	int			j;

	make_problem(&p, 1.0, 7);
	newton_optimum(&p, lambda, ref, &fstar);
	(void) gsu_objective(&p.ds, lambda, 1e-3, theta, &f, g0);
	for (j = 0; j <= D; j++)
		gnorm0 += g0[j] * g0[j];
	gnorm0 = sqrt(gnorm0);
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-3, 1e-8, gnorm0, 0, 1) == GSU_OK, "init");
	CHECK(c.mu == 1.0 && c.gnorm == gnorm0 && c.x != NULL, "start: mu %g", c.mu);
	drive(&p, &c, lambda, 0, &r);
	CHECK(r.done, "not done");
	/* 1, 0.1, 0.01, 0.001 (the smoothing), then 0: the rows keep d_Σ ≫ 100μ */
	CHECK(r.nmu == 5 && r.mus[0] == 1.0 && fabs(r.mus[1] - 0.1) < 1e-15 &&
		  fabs(r.mus[2] - 0.01) < 1e-15 && r.mus[3] == 1e-3 && r.mus[4] == 0.0,
		  "schedule: %d stages, last mu %g", r.nmu, r.mus[r.nmu - 1]);
	CHECK(c.mu == 0.0 && c.f_is_true, "the last stage is the true objective");
	CHECK(c.gnorm <= 1e-8 * gnorm0, "gradient norm %g, tolerance %g", c.gnorm, 1e-8 * gnorm0);
	(void) gsu_objective(&p.ds, lambda, 0.0, theta, &f, g);
	CHECK(f - fstar <= 1e-10 * fmax(1.0, fstar), "objective %.15g, optimum %.15g", f, fstar);
	CHECK(fabs(c.f - f) <= 1e-14 * f, "recorded f %.17g, at theta %.17g", c.f, f);
	for (j = 0; j <= D; j++)
		CHECK(fabs(theta[j] - ref[j]) <= 1e-5 * (1.0 + fabs(ref[j])),
			  "theta[%d] %.10g, newton %.10g", j, theta[j], ref[j]);
	CHECK(c.accepted > 0 && c.accepted < r.accepted_calls,
		  "accepted steps %lld of %d acceptances (a stage's start is no step)",
		  (long long) c.accepted, r.accepted_calls);
	gsu_continuation_free(&c);
}

/*
 * A loss that does not read covariances (hinge) ends at the smoothing; so
 * does a row with d_Σ below 100μ.  A warm start begins at the smoothing.
 */
static void
test_finish_rules(void)
{
	static problem p;
	double		theta[D + 1] = {0};
	gsu_continuation c;
	run			r;

	make_problem(&p, 1.0, 8);
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-2, 1e-6, 1.0, 0, 0) == GSU_OK, "init");
	drive(&p, &c, 0.05, 0, &r);
	CHECK(r.done && r.nmu == 3 && r.mus[2] == 1e-2 && c.mu == 1e-2 && !c.f_is_true,
		  "no covariance: %d stages, last mu %g", r.nmu, c.mu);
	gsu_continuation_free(&c);

	/* tiny variances: d_Σ stays below 100μ, so no stage at μ = 0 */
	make_problem(&p, 1e-12, 9);
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-2, 1e-6, 1.0, 0, 1) == GSU_OK, "init");
	drive(&p, &c, 0.05, 0, &r);
	CHECK(r.done && c.mu == 1e-2, "small d_sigma: last mu %g", c.mu);
	gsu_continuation_free(&c);

	/* warm: straight to the smoothing, then 0 */
	make_problem(&p, 1.0, 10);
	memset(theta, 0, sizeof(theta));
	theta[0] = 0.1;
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-3, 1e-6, 1.0, 1, 1) == GSU_OK, "init");
	CHECK(c.mu == 1e-3 && c.x[0] == 0.1, "warm start at mu %g", c.mu);
	drive(&p, &c, 0.05, 0, &r);
	CHECK(r.done && r.nmu == 2 && r.mus[0] == 1e-3 && r.mus[1] == 0.0,
		  "warm: %d stages", r.nmu);
	gsu_continuation_free(&c);
}

/* out of budget: stop records the stage's accepted f; theta is the last accepted point */
static void
test_stop(void)
{
	static problem p;
	double		theta[D + 1] = {0},
				f,
				g[D + 1];
	gsu_continuation c;
	run			r;

	make_problem(&p, 1.0, 11);
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-3, 1e-8, 1.0, 0, 1) == GSU_OK, "init");
	drive(&p, &c, 0.05, 4, &r);
	CHECK(!r.done && r.evaluations == 4 && c.x == NULL, "stopped after %d", r.evaluations);
	(void) gsu_objective(&p.ds, 0.05, 1.0, theta, &f, g);
	CHECK(r.accepted_calls > 0 && fabs(c.f - f) <= 1e-14 * fabs(f) && !c.f_is_true,
		  "stopped f %.17g, F_1 at theta %.17g", c.f, f);
	gsu_continuation_stop(&c);	/* twice is harmless */
	gsu_continuation_free(&c);

	/* a budget of 0 evaluations before the first: nothing accepted, f 0 */
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_continuation_init(&c, D + 1, theta, 1e-3, 1e-8, 1.0, 0, 1) == GSU_OK, "init");
	gsu_continuation_stop(&c);
	CHECK(c.f == 0.0 && c.accepted == 0 && c.gnorm == 1.0, "no evaluation");
	gsu_continuation_free(&c);
}

static void
test_gap_bound(void)
{
	/* ‖∇F‖²/(2λ) + μ/(2√π), capped by F */
	CHECK_CLOSE(gsu_gap_bound(0.1, 0.5, 0.0, 10.0), 0.01, 1e-17);
	CHECK_CLOSE(gsu_gap_bound(0.0, 0.5, 1e-3, 10.0), 1e-3 / 3.5449077018110320546, 1e-18);
	CHECK(gsu_gap_bound(1e200, 1e-300, 0.0, 2.5) == 2.5, "capped by F");
}

static const gsu_test_case tests[] = {
	{"schedule_and_optimum", test_schedule_and_optimum},
	{"finish_rules", test_finish_rules},
	{"stop", test_stop},
	{"gap_bound", test_gap_bound},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
