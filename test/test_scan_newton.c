/*
 * test_scan_newton.c — unit tests of gsu_scan_newton.c: the per-row sums of
 * one scan (loss, gradient, packed Hessian) against the batch objective's
 * gradient and Hessian-vector products (gsu_objective.c) for every kind of
 * covariance, and the scan-by-scan Newton driver against the batch Newton
 * solver's optimum, from θ = 0 and from a warm start, counting scans.
 * Deterministic.
 */
#include "gsu_objective.h"
#include "gsu_polish.h"
#include "gsu_scan_newton.h"
#include "gsu_test.h"

#include <cblas.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 300
#define D 4
#define M (D + 1)
#ifndef MU_START
#define MU_START 1e-2	/* the continuation's first smoothing */
#endif

typedef struct problem
{
	double		x[N * D],
				y[N],
				s[N],
				v[N * D],
				c[N * D * D];
	gsu_dataset ds;
} problem;

/* kind: 0 none, 1 iso, 2 diag, 3 full */
static void
make_problem(problem *p, int kind, double vscale, uint64_t seed)
{
	gsu_rng		r;
	int			i,
				j,
				k;

	gsu_rng_seed(&r, seed);
	for (i = 0; i < N; i++)
	{
		double		a[D * D];

		p->y[i] = i % 3 ? 1.0 : -1.0;
		p->s[i] = vscale * (0.1 + gsu_rng_uniform(&r));
		for (j = 0; j < D; j++)
		{
			p->x[i * D + j] = 0.5 * p->y[i] * (j + 1) / D + gsu_rng_normal(&r);
			p->v[i * D + j] = vscale * (0.1 + gsu_rng_uniform(&r));
		}
		for (j = 0; j < D * D; j++)
			a[j] = gsu_rng_normal(&r);
		/* Σ = vscale·A Aᵀ / D */
		for (j = 0; j < D; j++)
			for (k = 0; k < D; k++)
			{
				double		acc = 0.0;
				int			l;

				for (l = 0; l < D; l++)
					acc += a[j * D + l] * a[k * D + l];
				p->c[(size_t) i * D * D + j * D + k] = vscale * acc / D;
			}
	}
	memset(&p->ds, 0, sizeof(p->ds));
	p->ds.n = N;
	p->ds.d = D;
	p->ds.x = p->x;
	p->ds.y = p->y;
	test_set_cov(&p->ds, kind == 1 ? p->s : NULL, kind == 2 ? p->v : NULL, kind == 3 ? p->c : NULL);
}

typedef struct sums
{
	double		loss,
				loss0,
				min_ds,
				g[M],
				h[M * (M + 1) / 2],
				yx[M];
} sums;

/* one "scan": the sums of gsu_row_loss_grad_hess over the rows, row i of weight cw(i) */
static void
scan_weighted(const problem *p, const double *theta, double mu, double (*cw) (int64_t), sums *s)
{
	double		work[2 * M];
	int64_t		i;
	int			j;

	memset(s, 0, sizeof(*s));
	s->min_ds = INFINITY;
	for (i = 0; i < N; i++)
	{
		gsu_cov		c = gsu_cov_row(p->ds.cov_kind, p->ds.cov, D, 0, i);
		double		ds;

		s->loss += gsu_row_loss_grad_hess(D, theta, p->x + i * D, &c, p->y[i], cw ? cw(i) : 1.0,
										  mu, s->g, s->h, &s->loss0, &ds, work);
		s->min_ds = fmin(s->min_ds, ds);
		for (j = 0; j < D; j++)
			s->yx[j] += p->y[i] * p->x[i * D + j];
		s->yx[D] += p->y[i];
	}
}

static void
scan(const problem *p, const double *theta, double mu, sums *s)
{
	scan_weighted(p, theta, mu, NULL, s);
}

/* the weights of the weighted tests: 1, 2.5, 0.25, … */
static double
weight_of(int64_t i)
{
	return i % 3 == 0 ? 1.0 : i % 3 == 1 ? 2.5 : 0.25;
}

/*
 * The Hessian's rank-1 terms through a block (gsu_row_loss_grad_hess_blocked,
 * flushed by dsyrk/dgemm) give the per-row sums to rounding, for every kind
 * of covariance (a factor of rank 1 too), blocks of 1, 3 and 64 terms, and
 * the matrix folded whole or in panels of 2 rows; the loss and gradient are
 * the same numbers.  The block's memory is NaN before it is used, so a read
 * of anything the flush did not write first (the scratch panel's lower
 * triangle, which dsyrk leaves alone; a BLAS that read C at beta 0) shows.
 */
static void
test_blocked_sums(void)
{
	static problem p;
	double		theta[M] = {0.3, -0.2, 0.1, 0.05, -0.1};
	int			kind,
				caps[3] = {1, 3, 64},
				panels[2] = {0, 2},
				ci,
				pi;

	for (kind = 0; kind <= 4; kind++)
	{
		sums		ref;
		double		work[2 * M];
		int64_t		i;

		make_problem(&p, kind == 4 ? 2 : kind, 1.0, 71 + kind);
		memset(&ref, 0, sizeof(ref));
		for (ci = 0; ci < 3; ci++)
			for (pi = 0; pi < 2; pi++)
			{
				sums		s;
				size_t		nd = gsu_hess_block_doubles(M, caps[ci], panels[pi]);
				double	   *mem = malloc(sizeof(double) * nd);
				gsu_hess_block blk;
				double		hmax = 0.0,
							err = 0.0;
				int			j;

				/*
				 * the block's memory starts as NaN: what the flush reads of
				 * it must have been written first (its rows of terms, and of
				 * the scratch panel what dsyrk and dgemm wrote with beta 0,
				 * the upper triangle beside the diagonal); a NaN read
				 * anywhere else would reach the sums
				 */
				for (j = 0; j < (int) nd; j++)
					mem[j] = NAN;
				gsu_hess_block_init(&blk, M, caps[ci], panels[pi], mem);
				memset(&s, 0, sizeof(s));
				memset(&ref, 0, sizeof(ref));
				for (i = 0; i < N; i++)
				{
					gsu_cov		c = kind == 4 ? (gsu_cov) {GSU_COV_FACTOR, 0.0, p.v + i * D, 1} :
						gsu_cov_row(p.ds.cov_kind, p.ds.cov, D, 0, i);
					double		ds;

					ref.loss += gsu_row_loss_grad_hess(D, theta, p.x + i * D, &c, p.y[i],
													   weight_of(i), 0.1, ref.g, ref.h,
													   &ref.loss0, &ds, work);
					s.loss += gsu_row_loss_grad_hess_blocked(D, theta, p.x + i * D, &c, p.y[i],
															 weight_of(i), 0.1, s.g, s.h,
															 &s.loss0, &ds, work, &blk);
				}
				gsu_hess_block_flush(&blk, s.h);
				CHECK(blk.npos == 0 && blk.nneg == 0, "kind %d: the flush empties the block", kind);
				CHECK(s.loss == ref.loss && s.loss0 == ref.loss0,
					  "kind %d: the same losses", kind);
				for (j = 0; j < M; j++)
					CHECK(s.g[j] == ref.g[j], "kind %d: the same gradient", kind);
				for (j = 0; j < M * (M + 1) / 2; j++)
				{
					hmax = fmax(hmax, fabs(ref.h[j]));
					err = fmax(err, fabs(s.h[j] - ref.h[j]));
				}
				CHECK(hmax > 0.0 && err <= 1e-13 * hmax,
					  "kind %d, block %d, panel %d: Hessian off by %g of %g", kind, caps[ci],
					  panels[pi], err, hmax);
				{
					/* rows of weight 2: exactly twice the sums of weight 1, through blocks too */
					sums		s1,
								s2;

					memset(&s1, 0, sizeof(s1));
					memset(&s2, 0, sizeof(s2));
					for (j = 0; j < (int) nd; j++)
						mem[j] = NAN;
					gsu_hess_block_init(&blk, M, caps[ci], panels[pi], mem);
					for (i = 0; i < N; i++)
					{
						gsu_cov		c = kind == 4 ? (gsu_cov) {GSU_COV_FACTOR, 0.0, p.v + i * D, 1} :
							gsu_cov_row(p.ds.cov_kind, p.ds.cov, D, 0, i);
						double		ds;

						s1.loss += gsu_row_loss_grad_hess_blocked(D, theta, p.x + i * D, &c, p.y[i], 1.0,
																  0.1, s1.g, s1.h, &s1.loss0, &ds, work, &blk);
					}
					gsu_hess_block_flush(&blk, s1.h);
					for (i = 0; i < N; i++)
					{
						gsu_cov		c = kind == 4 ? (gsu_cov) {GSU_COV_FACTOR, 0.0, p.v + i * D, 1} :
							gsu_cov_row(p.ds.cov_kind, p.ds.cov, D, 0, i);
						double		ds;

						s2.loss += gsu_row_loss_grad_hess_blocked(D, theta, p.x + i * D, &c, p.y[i], 2.0,
																  0.1, s2.g, s2.h, &s2.loss0, &ds, work, &blk);
					}
					gsu_hess_block_flush(&blk, s2.h);
					for (j = 0; j < M * (M + 1) / 2; j++)
						CHECK(s2.h[j] == 2.0 * s1.h[j], "kind %d, block %d: weight 2 gives twice the Hessian",
							  kind, caps[ci]);
				}
				free(mem);
			}
	}
}

/* a weight c scales a row's loss, gradient and Hessian by c, for every kind of covariance */
static void
test_weighted_sums(void)
{
	int			kind;

	for (kind = 0; kind <= 3; kind++)
	{
		problem    *p = malloc(sizeof(problem));
		double		theta[M] = {0.3, -0.2, 0.5, 0.1, 0.05};
		sums		w,
					one;
		int64_t		i;
		int			j;

		make_problem(p, kind, 0.5, 11 + kind);
		scan_weighted(p, theta, 0.1, weight_of, &w);
		/* Σ c_i s_i from scans of one row each */
		memset(&one, 0, sizeof(one));
		for (i = 0; i < N; i++)
		{
			gsu_cov		c = gsu_cov_row(p->ds.cov_kind, p->ds.cov, D, 0, i);
			double		g[M] = {0},
						h[M * (M + 1) / 2] = {0},
						l0 = 0.0,
						ds,
						work[2 * M],
						l;

			l = gsu_row_loss_grad_hess(D, theta, p->x + i * D, &c, p->y[i], 1.0, 0.1, g, h, &l0,
									   &ds, work);
			one.loss += weight_of(i) * l;
			one.loss0 += weight_of(i) * l0;
			for (j = 0; j < M; j++)
				one.g[j] += weight_of(i) * g[j];
			for (j = 0; j < M * (M + 1) / 2; j++)
				one.h[j] += weight_of(i) * h[j];
		}
		CHECK_CLOSE(w.loss, one.loss, 1e-12 * one.loss);
		CHECK_CLOSE(w.loss0, one.loss0, 1e-12 * one.loss0);
		for (j = 0; j < M; j++)
			CHECK_CLOSE(w.g[j], one.g[j], 1e-12 * (1.0 + fabs(one.g[j])));
		for (j = 0; j < M * (M + 1) / 2; j++)
			CHECK_CLOSE(w.h[j], one.h[j], 1e-12 * (1.0 + fabs(one.h[j])));
		free(p);
	}
}

/* the packed sums against gsu_eval's value, gradient and Hessian products */
static void
test_sums_match_objective(void)
{
	int			kind;

	for (kind = 0; kind <= 3; kind++)
	{
		problem    *p = malloc(sizeof(problem));
		double		theta[M] = {0.3, -0.2, 0.5, 0.1, 0.05};
		double		mus[2] = {0.1, 0.0};
		int			t;

		make_problem(p, kind, 0.5, 7 + kind);
		for (t = 0; t < 2; t++)
		{
			gsu_eval	ev;
			sums		s;
			double		f,
						f0,
						g[M],
						e[M],
						hs[M];
			int			j,
						k;

			CHECK(gsu_eval_init(&ev, &p->ds, 1e-2) == GSU_OK, "init");
			ev.dense = 1;
			CHECK(gsu_eval_at(&ev, mus[t], theta, &f, g) == GSU_OK, "eval");
			scan(p, theta, mus[t], &s);
			CHECK_CLOSE(0.5 * 1e-2 * (0.09 + 0.04 + 0.25 + 0.01) + s.loss / N, f, 1e-12);
			(void) gsu_objective(&p->ds, 1e-2, 0.0, theta, &f0, NULL);
			CHECK_CLOSE(0.5 * 1e-2 * (0.09 + 0.04 + 0.25 + 0.01) + s.loss0 / N, f0, 1e-12);
			for (j = 0; j < M; j++)
				CHECK_CLOSE(s.g[j] / N + (j < D ? 1e-2 * theta[j] : 0.0), g[j], 1e-12);
			/* column k of the Hessian: H e_k */
			for (k = 0; k < M; k++)
			{
				memset(e, 0, sizeof(e));
				e[k] = 1.0;
				gsu_eval_hessvec(&ev, e, hs);
				for (j = 0; j < M; j++)
				{
					int			a = j < k ? j : k,
								b = j < k ? k : j;
					double		hjk = s.h[a * M - a * (a - 1) / 2 + (b - a)] / N +
						(j == k && j < D ? 1e-2 : 0.0);

					CHECK(CLOSE(hjk, hs[j], 1e-10 * (1.0 + fabs(hs[j]))),
						  "kind %d mu %g H[%d][%d] %.17g vs %.17g", kind, mus[t], j, k, hjk, hs[j]);
				}
			}
			gsu_eval_free(&ev);
		}
		free(p);
	}
}

/* ‖∇F_μ(0)‖ from Σ y(x, 1) */
static void
test_gradient_at_zero(void)
{
	problem    *p = malloc(sizeof(problem));
	double		zero[M] = {0},
				g[M],
				f;
	sums		s;

	make_problem(p, 2, 0.5, 3);
	scan(p, zero, 0.3, &s);
	(void) gsu_objective(&p->ds, 1e-2, 0.3, zero, &f, g);
	CHECK_CLOSE(gsu_gradient_norm_at_zero(M, s.yx, N, 0.3), cblas_dnrm2(M, g, 1), 1e-13);
	free(p);
}

/*
 * drives the solver to its end from the trust radius delta0; returns the
 * scans.  noise > 0: each scan's loss sums are rounded to that relative
 * precision, as a large table's are (its sums' rounding errors are a step
 * function of θ: points closer than a step get the same loss).
 */
static int
drive_noisy(const problem *p, double lambda, double *theta, double tol, double mu_start,
			double smoothing, double delta0, double noise, gsu_scan_newton *c)
{
	int			scans = 0;
	gsu_status	st;

	st = gsu_scan_newton_init(c, M, theta, lambda, mu_start, smoothing, tol, p->ds.cov_kind != GSU_COV_NONE);
	CHECK(st == GSU_OK, "init");
	c->delta = delta0;
	for (;;)
	{
		sums		s;
		int			a;

		scan(p, c->x, c->mu, &s);
		scans++;
		if (noise > 0.0)
		{
			/* a grid of that spacing: nearby points get the same loss */
			double		q = ldexp(1.0, ilogb(noise * s.loss));

			s.loss = nearbyint(s.loss / q) * q;
			s.loss0 = nearbyint(s.loss0 / q) * q;
		}
		a = gsu_scan_newton_tell(c, N, s.loss, s.loss0, s.g, s.h, s.min_ds,
								 gsu_gradient_norm_at_zero(M, s.yx, N, smoothing), &st);
		CHECK(st == GSU_OK, "tell: %s", gsu_status_string(st));
		if ((a & GSU_SN_DONE) || scans > 200)
			break;
	}
	return scans;
}

static int
drive_from(const problem *p, double lambda, double *theta, double tol, double mu_start,
		   double smoothing, double delta0, gsu_scan_newton *c)
{
	return drive_noisy(p, lambda, theta, tol, mu_start, smoothing, delta0, 0.0, c);
}

/* the same without a first radius (gsu.fit's warm start) */
static int
drive(const problem *p, double lambda, double *theta, double tol, double mu_start, double smoothing,
	  gsu_scan_newton *c)
{
	return drive_from(p, lambda, theta, tol, mu_start, smoothing, HUGE_VAL, c);
}

static double
batch_optimum(const problem *p, double lambda, double smoothing, double *theta)
{
	gsu_solve_options o;
	gsu_solve_result res;

	gsu_solve_options_default(&o);
	o.lambda = lambda;
	o.smoothing = smoothing;
	o.tolerance = 1e-10;
	memset(theta, 0, sizeof(double) * M);
	CHECK(gsu_solve_newton(&p->ds, &o, theta, &res) == GSU_OK, "newton");
	return res.objective;
}

/* kind's problem, its batch optimum into star (returned: F there), and θ: star moved by 5 % */
static double
warm_start(problem *p, int kind, uint64_t seed, double lambda, double smoothing, double *star,
		   double *theta)
{
	double		fstar;

	make_problem(p, kind, 0.5, seed);
	fstar = batch_optimum(p, lambda, smoothing, star);
	for (int j = 0; j < M; j++)
		theta[j] = star[j] * (1.0 + 0.05 * ((j % 2) ? 1 : -1));
	return fstar;
}

/* from θ = 0 and from a perturbed optimum, every kind: the batch optimum, in few scans */
static void
test_driver_reaches_optimum(void)
{
	int			kind;

	for (kind = 0; kind <= 3; kind++)
	{
		problem    *p = malloc(sizeof(problem));
		double		star[M],
					theta[M],
					fstar;
		gsu_scan_newton c;
		int			scans;
		double		smoothing = kind == 0 ? 1e-4 : 1e-5;

		/* warm: the optimum moved by 5% */
		fstar = warm_start(p, kind, 11 + kind, 1e-2, smoothing, star, theta);
		scans = drive(p, 1e-2, theta, 1e-8, MU_START, smoothing, &c);
		CHECK(c.converged || kind == 0, "kind %d warm: not converged, gnorm %g", kind, c.gnorm);
		CHECK(fabs(c.f_true - fstar) <= 1e-6 * fstar, "kind %d warm: %.17g vs %.17g", kind,
			  c.f_true, fstar);
		/* the hinge (kind 0) is the hard case of a Newton method: its kinks */
		CHECK(scans <= (kind == 0 ? 40 : 8), "kind %d warm: %d scans", kind, scans);
		gsu_scan_newton_free(&c);

		/*
		 * cold: from θ = 0 (not the hinge: without curvature Newton alone
		 * crawls there, and gsu.fit finishes it with the polish, tested below;
		 * its path also changes with the last bits, e.g. under valgrind)
		 */
		if (kind == 0)
		{
			free(p);
			continue;
		}
		memset(theta, 0, sizeof(theta));
		scans = drive(p, 1e-2, theta, 1e-8, MU_START, smoothing, &c);
		CHECK(fabs(c.f_true - fstar) <= 1e-6 * fstar, "kind %d cold: %.17g vs %.17g (%d scans)",
			  kind, c.f_true, fstar, scans);
		CHECK(scans <= 12, "kind %d cold: %d scans", kind, scans);
		gsu_scan_newton_free(&c);

		/*
		 * gsu.fit's cold start: at the first smoothing 0.1 and λ = 1e-4 the
		 * rows are on the hinge's linear side and the Hessian has little
		 * curvature along b; delta 0 asks for the first radius ‖∇F(0)‖
		 * (on gsu.fit's wide tables it saves tens of scans, see
		 * sql/fit_scans.sql)
		 */
		fstar = batch_optimum(p, 1e-4, 1e-5, star);
		memset(theta, 0, sizeof(theta));
		scans = drive_from(p, 1e-4, theta, 1e-8, 0.1, 1e-5, 0.0, &c);
		CHECK(fabs(c.f_true - fstar) <= 1e-6 * fstar, "kind %d cold, radius: %.17g vs %.17g (%d scans)",
			  kind, c.f_true, fstar, scans);
		CHECK(scans <= 14, "kind %d cold, radius: %d scans", kind, scans);
		gsu_scan_newton_free(&c);
		free(p);
	}
}

/*
 * A tolerance below what the sums resolve (1e-20 of ‖∇F(0)‖, with the loss
 * sums rounded to 1e-12 as a large table's can be, and λ = 1e-5): once a
 * step's predicted decrease is within F's rounding, the gradient norm
 * judges it, and the solver stops as stuck a few scans later (it used to
 * shrink the radius by 4 a scan for hundreds of scans, each a table scan
 * in gsu.fit)
 */
static void
test_unreachable_tolerance(void)
{
	int			kind;

	for (kind = 1; kind <= 3; kind++)
	{
		problem    *p = malloc(sizeof(problem));
		double		star[M],
					theta[M],
					fstar;
		gsu_scan_newton c;
		int			scans;

		fstar = warm_start(p, kind, 31 + kind, 1e-5, 1e-5, star, theta);
		scans = drive_noisy(p, 1e-5, theta, 1e-20, MU_START, 1e-5, HUGE_VAL, 1e-12, &c);
		CHECK(c.stuck && !c.converged, "kind %d: stuck %d converged %d", kind, c.stuck, c.converged);
		CHECK(scans <= 15, "kind %d: %d scans", kind, scans);
		CHECK(fabs(c.f_true - fstar) <= 1e-12 * fstar, "kind %d: %.17g vs %.17g", kind, c.f_true, fstar);
		CHECK(c.gnorm <= 1e-10 * c.gnorm0, "kind %d: gradient norm %g of %g", kind, c.gnorm, c.gnorm0);
		gsu_scan_newton_free(&c);
		free(p);
	}
}

/* the polish from a scan's support data: the exact hinge optimum in a few rounds, certified */
static void
test_hinge_polish_rounds(void)
{
	problem    *p = malloc(sizeof(problem));
	double		star[M],
				theta[M],
				fstar,
				vsum[M],
				srows[N * M],
				dual = 0.0,
				kkt = 0.0,
				f = 0.0;
	int			round,
				j,
				certified = 0;

	make_problem(p, 0, 0.5, 5);
	fstar = batch_optimum(p, 1e-2, 1e-5, star);
	/* from the optimum of the smoothed problem at μ = 0.05, as the Newton scans leave it */
	(void) batch_optimum(p, 1e-2, 0.05, theta);
	(void) j;
	for (round = 0; round < 8 && !certified; round++)
	{
		double		count_v = 0.0;
		int64_t		ns = 0,
					i;

		memset(vsum, 0, sizeof(vsum));
		/* the scan at theta: its primal objective (checks the last candidate) and the sets */
		(void) gsu_objective(&p->ds, 1e-2, 0.0, theta, &f, NULL);
		if (round > 0 && f - dual <= 1e-10 * f)
		{
			certified = 1;
			break;
		}
		for (i = 0; i < N; i++)
		{
			const double *x = p->x + i * D;
			double		di = 1.0 - p->y[i] * gsu_decision(D, theta, x);

			if (di > 0.1)
			{
				for (j = 0; j < D; j++)
					vsum[j] += p->y[i] * x[j];
				vsum[D] += p->y[i];
				count_v += 1.0;
			}
			else if (di >= -0.1)
			{
				memcpy(srows + ns * M, x, sizeof(double) * D);
				srows[ns * M + D] = p->y[i];
				ns++;
			}
		}
		CHECK(gsu_hinge_polish_sums(D, 1e-2, N, vsum, count_v, ns, srows, NULL, 1e-9, theta, &dual, &kkt),
			  "round %d: no candidate", round);
		CHECK(kkt < 1e-9, "round %d: kkt %g", round, kkt);
	}
	CHECK(certified, "not certified after %d rounds: f %.17g dual %.17g", round, f, dual);
	CHECK(fabs(f - fstar) <= 1e-10 * fstar, "%.17g vs %.17g", f, fstar);
	CHECK(round <= 4, "%d rounds", round);
	free(p);
}

/*
 * The weighted polish: rows of integer weight c (a band row's last element
 * y·c, the box 0 ≤ α ≤ c) give the candidate of the same rows repeated c
 * times, from the same sets.
 */
static void
test_hinge_polish_weighted(void)
{
	problem    *p = malloc(sizeof(problem));
	double		theta[M],
				cand_w[M],
				cand_r[M],
				vw[M] = {0},
				vr[M] = {0},
				*sw = malloc(sizeof(double) * N * M),
				*sr = malloc(sizeof(double) * 2 * N * M),
				cv_w = 0.0,
				cv_r = 0.0,
				wsum = 0.0,
				dual_w = 0.0,
				dual_r = 0.0,
				kkt = 0.0;
	int64_t		nw = 0,
				nr = 0,
				i;
	int			j;

	make_problem(p, 0, 0.5, 5);
	(void) batch_optimum(p, 1e-2, 0.05, theta);
	for (i = 0; i < N; i++)
	{
		const double *x = p->x + i * D;
		double		c = i % 2 ? 2.0 : 1.0,
					di = 1.0 - p->y[i] * gsu_decision(D, theta, x);
		int			k;

		wsum += c;
		if (di > 0.1)
		{
			for (j = 0; j < D; j++)
			{
				vw[j] += c * p->y[i] * x[j];
				vr[j] += c * p->y[i] * x[j];
			}
			vw[D] += c * p->y[i];
			vr[D] += c * p->y[i];
			cv_w += c;
			cv_r += c;
		}
		else if (di >= -0.1)
		{
			memcpy(sw + nw * M, x, sizeof(double) * D);
			sw[nw * M + D] = p->y[i] * c;
			nw++;
			for (k = 0; k < (int) c; k++)
			{
				memcpy(sr + nr * M, x, sizeof(double) * D);
				sr[nr * M + D] = p->y[i];
				nr++;
			}
		}
	}
	memcpy(cand_w, theta, sizeof(theta));
	memcpy(cand_r, theta, sizeof(theta));
	CHECK(gsu_hinge_polish_sums(D, 1e-2, wsum, vw, cv_w, nw, sw, NULL, 1e-9, cand_w, &dual_w, &kkt),
		  "weighted: no candidate");
	CHECK(gsu_hinge_polish_sums(D, 1e-2, wsum, vr, cv_r, nr, sr, NULL, 1e-9, cand_r, &dual_r, &kkt),
		  "repeated: no candidate");
	for (j = 0; j < M; j++)
		CHECK_CLOSE(cand_w[j], cand_r[j], 1e-7 * (1.0 + fabs(cand_r[j])));
	CHECK_CLOSE(dual_w, dual_r, 1e-9 * fabs(dual_r));
	free(sw);
	free(sr);
	free(p);
}

/* bad arguments */
/*
 * A nearly separable band in 40 dimensions at λ = 1e-4 (600 rows, all in
 * the band, none beyond it): the maximal violating pair alone stalled here
 * (no solution within its 320000 steps); the active-set finish from its
 * free rows gives the exact optimum, whose dual equals the primal objective
 */
static void
test_hinge_polish_degenerate(void)
{
	enum
	{
		NR = 600, DD = 40
	};
	double	   *rows = malloc(sizeof(double) * NR * (DD + 1)),
				vsum[DD + 1],
				theta[DD + 1] = {0},
				dual = 0.0,
				kkt = 0.0,
				primal = 0.0,
				ww = 0.0;
	int			i,
				j;

	for (i = 0; i < NR; i++)
	{
		double		s = 0.0,
					x;

		for (j = 0; j < DD; j++)
		{
			/* the regress tables' generator: a hash of (row, column) through sin() */
			x = sin((i + 1) * 12.9898 + (j + 1) * 78.233) * 43758.5453;
			rows[i * (DD + 1) + j] = 2.0 * (x - floor(x)) - 1.0;
			s += sin(j + 1.0) * rows[i * (DD + 1) + j];
		}
		x = sin((i + 1) * 12.9898 + 2.0) * 43758.5453;
		rows[i * (DD + 1) + DD] = s + 0.5 * (x - floor(x) - 0.5) > 0.0 ? 1.0 : -1.0;
	}
	memset(vsum, 0, sizeof(vsum));
	CHECK(gsu_hinge_polish_sums(DD, 1e-4, NR, vsum, 0.0, NR, rows, NULL, 1e-9, theta, &dual, &kkt),
		  "no solution");
	CHECK(kkt < 1e-9, "kkt %g", kkt);
	for (j = 0; j < DD; j++)
		ww += theta[j] * theta[j];
	for (i = 0; i < NR; i++)
	{
		double		f = theta[DD];

		for (j = 0; j < DD; j++)
			f += theta[j] * rows[i * (DD + 1) + j];
		primal += fmax(0.0, 1.0 - rows[i * (DD + 1) + DD] * f) / NR;
	}
	primal += 0.5 * 1e-4 * ww;
	CHECK(fabs(primal - dual) <= 1e-10 * primal, "primal %.17g dual %.17g", primal, dual);
	free(rows);
}

static void
test_init_rejects(void)
{
	gsu_scan_newton c;
	double		theta[M] = {0};

	CHECK(gsu_scan_newton_init(&c, 1, theta, 1e-2, 1e-5, 1e-5, 1e-6, 1) == GSU_EINVAL, "m");
	CHECK(gsu_scan_newton_init(&c, M, theta, 0.0, 1e-5, 1e-5, 1e-6, 1) == GSU_EINVAL, "lambda");
	CHECK(gsu_scan_newton_init(&c, M, theta, 1e-2, 1e-5, 1e-5, 0.0, 1) == GSU_EINVAL, "tolerance");
}

static const gsu_test_case tests[] = {
	{"sums_match_objective", test_sums_match_objective},
	{"gradient_at_zero", test_gradient_at_zero},
	{"driver_reaches_optimum", test_driver_reaches_optimum},
	{"unreachable_tolerance", test_unreachable_tolerance},
	{"hinge_polish_rounds", test_hinge_polish_rounds},
	{"hinge_polish_weighted", test_hinge_polish_weighted},
	{"hinge_polish_degenerate", test_hinge_polish_degenerate},
	{"weighted_sums", test_weighted_sums},
	{"blocked_sums", test_blocked_sums},
	{"init_rejects", test_init_rejects},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
