/*
 * gsu_loss_table.c — the losses a model is trained with, one row each
 * (gsu_loss_table.h): their SQL names, what the rest of the code asks of
 * them, and their policies, with the solver memory that follows from them.
 * It stands above the solvers: the memory of a solver is its own arithmetic
 * (gsu_hinge_polish_band_doubles, gsu_span_doubles).
 */
#include "gsu_loss_table.h"
#include "gsu_polish.h"
#include "gsu_solve.h"
#include "gsu_span.h"

#include <string.h>

/*
 * The losses: name, uses_covariance, robust, gradient_pass, radius, then
 * their policies (gsu_loss_table.h).  The robust core's batch solver takes 100000
 * gradient steps unless told.
 */
#define ROBUST_ITERATIONS 100000
static const gsu_loss_kind_info loss_table[] = {
	[GSU_LOSS_GSU] = {"gsu", 1, 0, 1, 0, .default_solver = GSU_SOLVER_NEWTON},
	/* dual coordinate descent solves the hinge loss of the means */
	[GSU_LOSS_HINGE] = {"hinge", 0, 0, 1, 0, .default_solver = GSU_SOLVER_DCD},
	[GSU_LOSS_TSVC] = {"tsvc", 1, 1, 0, 0, .default_solver = GSU_SOLVER_NEWTON,
		.default_gamma = 1.0, .default_delta_scale = 1.0,
	.default_max_iterations = ROBUST_ITERATIONS, .holds_shifted_rows = 1},
	[GSU_LOSS_ROBUST] = {"robust", 1, 1, 0, 0, .default_solver = GSU_SOLVER_NEWTON,
		.default_gamma = 1.0, .default_max_iterations = ROBUST_ITERATIONS,
	.holds_cov_copy = 1},
	/*
	 * solved by the robust core's alternating algorithm on TSVC's loss; it
	 * has no norm bound, and its rounds are Newton solves
	 */
	[GSU_LOSS_PSVM] = {"psvm", 1, 1, 0, 1, .default_solver = GSU_SOLVER_NEWTON,
	.holds_shifted_rows = 1},
	/* regression: gsu_solve_svr (damped Newton), gsu_solve_ridge (closed form) */
	[GSU_LOSS_EPS_INSENSITIVE] = {"epsilon_insensitive", 1, 0, 0, 0,
	.default_solver = GSU_SOLVER_NEWTON, .regression = 1},
	[GSU_LOSS_SQUARED] = {"squared", 1, 0, 0, 0, .default_solver = GSU_SOLVER_NEWTON,
	.regression = 1},
};

const gsu_loss_kind_info *
gsu_loss_info(int kind)
{
	return (kind >= 0 && kind <= GSU_LOSS_MAX) ? &loss_table[kind] : NULL;
}

const char *
gsu_loss_name(int kind)
{
	const gsu_loss_kind_info *l = gsu_loss_info(kind);

	return l ? l->name : "?";
}

int
gsu_loss_by_name(const char *name)
{
	int			k;

	for (k = 0; k <= GSU_LOSS_MAX; k++)
		if (strcmp(name, loss_table[k].name) == 0)
			return k;
	return -1;
}

double
gsu_solver_doubles(int loss, int solver, int64_t n, int d, size_t cov_per, int rank, int worst)
{
	const gsu_loss_kind_info *l = gsu_loss_info(loss);
	double		nd = (double) n,
				dd = (double) d,
				b = 10.0 * nd + 40.0 * (dd + 1.0);

	if (l == NULL)
		return b;
	if (l->regression)
		return b + 3.0 * (dd + 1.0) * (dd + 1.0);	/* Hessian, its factor, work */
	if (l->holds_cov_copy && !worst)
		b += nd * (double) cov_per;
	if (l->holds_shifted_rows)
		b += nd + nd * dd;
	if (!l->uses_covariance)
	{
		double		sv = nd < dd + 2.0 ? nd : dd + 2.0;

		if (sv > 3000.0)
			sv = 3000.0;
		b += sv * dd + (sv + 1.0) * (sv + 1.0);
	}
	if (solver == GSU_SOLVER_DCD)
		b += 4.0 * nd + gsu_hinge_polish_band_doubles(n, d);
	/* full covariances or factors of low rank: the rows reduced to their span (gsu_span.c) */
	if (solver == GSU_SOLVER_NEWTON && l->uses_covariance && rank >= 1 && rank < d &&
		cov_per == (size_t) d * (size_t) rank)
		b += gsu_span_doubles(n, d, rank);
	else if (solver == GSU_SOLVER_NEWTON && l->uses_covariance && cov_per == (size_t) d * (size_t) d)
		b += gsu_span_doubles(n, d, d);
	return b;
}
