/*
 * hinge_dims.c — the hinge loss's solver dcd (coordinate descent, then the
 * band's interior-point finish, gsu_polish_band.c) against the solver newton
 * on the same rows, for dimensions above DCD_MAX_DIM (gsu_dcd.c), where the
 * shipped dcd hands the problem to newton: bench/hinge_dims.sh builds the
 * core with that limit raised, so that the two can be compared there before
 * the limit is.  No server needed.
 *
 * The data, as bench/run.sh's benchmark 7 generates them in SQL (here with
 * the core's seeded generator): features uniform in [−1, 1] shifted by
 * ±0.04 with the class, a given share of labels flipped.  Each solve is
 * timed once (CLOCK_MONOTONIC).  Prints one table row; exits 1 when the two
 * objectives differ by more than 1e-9 relative (both are certified optima).
 */
#define _POSIX_C_SOURCE 200809L

#include "gsu_binary.h"
#include "gsu_objective.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int
solve(const gsu_dataset *ds, double lambda, gsu_solver_kind solver, double *theta,
	  gsu_solve_result *res, double *seconds)
{
	gsu_binary_problem p = {0};
	gsu_solve_options o;
	double		t;

	gsu_solve_options_default(&o);
	o.lambda = lambda;
	p.ds = ds;
	p.loss = GSU_LOSS_HINGE;
	p.solver = solver;
	memset(theta, 0, sizeof(double) * ((size_t) ds->d + 1));
	t = now();
	if (gsu_train_binary(&p, &o, theta, res) != GSU_OK)
		return 0;
	*seconds = now() - t;
	return 1;
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 20000;
	int			d = argc > 2 ? atoi(argv[2]) : 1000;
	double		lambda = argc > 3 ? atof(argv[3]) : 1e-3;
	double		noise = argc > 4 ? atof(argv[4]) : 0.05;
	double	   *x = malloc(sizeof(double) * (size_t) n * (size_t) d),
			   *y = malloc(sizeof(double) * (size_t) n),
			   *theta = malloc(sizeof(double) * ((size_t) d + 1));
	gsu_rng		rng;
	gsu_dataset ds = {0};
	gsu_solve_result rd,
				rn;
	double		td,
				tn;
	int64_t		i;
	int			j;

	if (n < 1 || d < 1 || !(lambda > 0.0) || !(noise >= 0.0) || !x || !y || !theta)
	{
		fprintf(stderr, "usage: hinge_dims [ROWS [DIM [LAMBDA [NOISE]]]]\n");
		return 2;
	}
	gsu_rng_seed(&rng, 7);
	for (i = 0; i < n; i++)
	{
		double		c = i % 2 ? 1.0 : -1.0;

		for (j = 0; j < d; j++)
			x[i * d + j] = 2.0 * gsu_rng_uniform(&rng) - 1.0 + 0.04 * c;
		y[i] = gsu_rng_uniform(&rng) < noise ? -c : c;
	}
	ds.n = n;
	ds.d = d;
	ds.x = x;
	ds.y = y;
	ds.cov_kind = GSU_COV_NONE;
	if (!solve(&ds, lambda, GSU_SOLVER_DCD, theta, &rd, &td) ||
		!solve(&ds, lambda, GSU_SOLVER_NEWTON, theta, &rn, &tn))
	{
		fprintf(stderr, "hinge_dims: a solve failed\n");
		return 1;
	}
	printf("| %lld × %d | %g | %g %% | %.2f | %lld | %.12f | %s | %.2f | %lld | %.12f | %s | **%.2f** |\n",
		   (long long) n, d, lambda, 100.0 * noise, td, (long long) rd.passes, rd.objective,
		   rd.converged ? "true" : "false", tn, (long long) rn.passes, rn.objective,
		   rn.converged ? "true" : "false", td / tn);
	return fabs(rd.objective - rn.objective) <= 1e-9 * fmax(1.0, fabs(rn.objective)) ? 0 : 1;
}
