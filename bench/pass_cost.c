/*
 * pass_cost.c — the cost of one in-memory pass of the default (newton)
 * solver of the GSU loss against the floor of a pass that only reads the
 * buffered rows (issue #15, goal 2).  Built and run by bench/pass_cost.sh.
 *
 * The data: n rows of dimension d, means uniform in [−1, 1], diagonal
 * variances uniform in [0.05, 0.5], labels from a noisy linear rule (about
 * 8 % disagree with it), as bench/run.sh generates them in SQL (here with
 * the core's seeded generator).  The point: the solver's own optimum, so
 * that the pass is timed where the solver spends its passes.
 *
 * Timed, each the minimum over REPEAT runs (CLOCK_MONOTONIC):
 *   floor x     one dgemv over the means (n × d): reads the means once
 *   floor x+v   a dgemv over the means and one over the variances: reads
 *               every buffered value once, the least any pass can do
 *   f+grad      gsu_eval_at with the gradient: the solver's pass
 *   Hv          gsu_eval_hessvec: a Hessian-vector product of its CG
 *   solve       the whole default solve (gsu_train_binary), with its pass
 *               count, so that passes × pass cost can be read against it
 * Prints one table; the ratios are what to read (the absolute times depend
 * on the machine).
 */
#define _POSIX_C_SOURCE 200809L

#include "gsu_binary.h"
#include "gsu_objective.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEAT 9

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 100000;
	int			d = argc > 2 ? atoi(argv[2]) : 50;
	double		lambda = argc > 3 ? atof(argv[3]) : 1e-4;
	int			certain = argc > 4 && strcmp(argv[4], "hinge") == 0;
	double	   *x = malloc(sizeof(double) * (size_t) n * d),
			   *v = malloc(sizeof(double) * (size_t) n * d),
			   *y = malloc(sizeof(double) * (size_t) n),
			   *z = malloc(sizeof(double) * (size_t) n),
			   *theta = calloc((size_t) d + 1, sizeof(double)),
			   *grad = malloc(sizeof(double) * ((size_t) d + 1)),
			   *s = malloc(sizeof(double) * ((size_t) d + 1)),
			   *hs = malloc(sizeof(double) * ((size_t) d + 1));
	double		t_x[REPEAT],
				t_xv[REPEAT],
				t_fg[REPEAT],
				t_hv[REPEAT],
				t_solve,
				f,
				sink = 0.0;
	gsu_rng		rng;
	gsu_dataset ds;
	gsu_binary_problem p = {0};
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_eval	ev;
	int64_t		i;
	int			j,
				r;

	if (n < 1 || d < 1 || !(lambda > 0.0) || !x || !v || !y || !z || !theta || !grad || !s || !hs)
	{
		fprintf(stderr, "usage: pass_cost [ROWS [DIM [LAMBDA [gsu | hinge]]]]\n");
		return 2;
	}
	gsu_rng_seed(&rng, 42);
	for (i = 0; i < n; i++)
	{
		double		score = 0.0;

		for (j = 0; j < d; j++)
		{
			x[i * d + j] = 2.0 * gsu_rng_uniform(&rng) - 1.0;
			v[i * d + j] = 0.05 + 0.45 * gsu_rng_uniform(&rng);
			score += sin((double) (j + 1)) * x[i * d + j];
		}
		score += 0.2 * sqrt((double) d) * (2.0 * gsu_rng_uniform(&rng) - 1.0);
		y[i] = score > 0.0 ? 1.0 : -1.0;
	}
	ds.n = n;
	ds.d = d;
	ds.x = x;
	ds.y = y;
	ds.cov_kind = certain ? GSU_COV_NONE : GSU_COV_DIAG;
	ds.cov = certain ? NULL : v;
	ds.weight = NULL;

	/* the whole solve: its passes, and the optimum where the passes are timed */
	gsu_solve_options_default(&o);
	o.lambda = lambda;
	p.ds = &ds;
	p.loss = certain ? GSU_LOSS_HINGE : GSU_LOSS_GSU;
	p.solver = GSU_SOLVER_NEWTON;
	t_solve = now();
	if (gsu_train_binary(&p, &o, theta, &res) != GSU_OK)
	{
		fprintf(stderr, "pass_cost: the solve failed\n");
		return 1;
	}
	t_solve = now() - t_solve;

	if (gsu_eval_init(&ev, &ds, lambda) != GSU_OK)
		return 1;
	for (j = 0; j <= d; j++)
		s[j] = 1.0 / (1.0 + j);
	for (r = 0; r < REPEAT; r++)
	{
		double		t0 = now();

		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, x, d, theta, 1, 0.0, z, 1);
		sink += z[r % n];
		t_x[r] = now() - t0;

		t0 = now();
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, x, d, theta, 1, 0.0, z, 1);
		sink += z[r % n];
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, v, d, theta, 1, 0.0, z, 1);
		sink += z[r % n];
		t_xv[r] = now() - t0;

		t0 = now();
		if (gsu_eval_at(&ev, 0.0, theta, &f, grad) != GSU_OK)
			return 1;
		sink += f;
		t_fg[r] = now() - t0;

		t0 = now();
		gsu_eval_hessvec(&ev, s, hs);
		sink += hs[0];
		t_hv[r] = now() - t0;
	}
	qsort(t_x, REPEAT, sizeof(double), cmp_double);
	qsort(t_xv, REPEAT, sizeof(double), cmp_double);
	qsort(t_fg, REPEAT, sizeof(double), cmp_double);
	qsort(t_hv, REPEAT, sizeof(double), cmp_double);

	printf("rows %lld, dimension %d, %s, lambda %g (checksum %.3g)\n",
		   (long long) n, d, certain ? "the hinge loss (no variances), solver newton" :
		   "diagonal variances", lambda, sink);
	printf("| pass | ms (min of %d) | ratio to floor x+v | ratio to floor x |\n", REPEAT);
	printf("|---|---|---|---|\n");
	printf("| floor x: dgemv over the means | %.2f | %.2f | 1.00 |\n",
		   1e3 * t_x[0], t_x[0] / t_xv[0]);
	printf("| floor x+v: dgemv over the means and over the variances | %.2f | 1.00 | %.2f |\n",
		   1e3 * t_xv[0], t_xv[0] / t_x[0]);
	printf("| objective and gradient (gsu_eval_at) | %.2f | **%.2f** | %.2f |\n",
		   1e3 * t_fg[0], t_fg[0] / t_xv[0], t_fg[0] / t_x[0]);
	printf("| Hessian-vector product (gsu_eval_hessvec) | %.2f | **%.2f** | %.2f |\n",
		   1e3 * t_hv[0], t_hv[0] / t_xv[0], t_hv[0] / t_x[0]);
	printf("| the default solve: %lld passes, %lld iterations | %.2f | %.1f | %.1f |\n",
		   (long long) res.passes, (long long) res.iterations, 1e3 * t_solve,
		   t_solve / t_xv[0], t_solve / t_x[0]);
	printf("objective %.10g, converged %d\n", res.objective, res.converged);
	gsu_eval_free(&ev);
	free(x);
	free(v);
	free(y);
	free(z);
	free(theta);
	free(grad);
	free(s);
	free(hs);
	return 0;
}
