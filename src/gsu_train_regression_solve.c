/*
 * gsu_train_regression_solve.c — the solve of gsu.train_regression's final
 * function (gsu_train_finalfn, for a state whose loss is a regression
 * loss): the buffered rows as the core's data set, with their targets in y,
 * solved by gsu_solve_svr (SVR-GSU, damped Newton) or gsu_solve_ridge
 * (ridge-GSU, closed form) of core/gsu_regression.h into a model of one
 * vector, with the solver's result and its per-pass history; or, for the
 * solver sgd, the iterate the transition's steps left.  It calls the
 * row store, the model and the core only (no other file of gsu.train).
 */
#include "gsu_train.h"
#include "gsu_progress.h"
#include "core/gsu_regression.h"

/* the bytes of the rows and the solver against gsu.max_training_memory, before solving */
static void
check_memory(const GsuTrainState *st)
{
	/*
	 * the row store at its capacity, and the solver's memory from the core's
	 * loss table, with "standardize" the standardized copy of the rows
	 * (isotropic variances become diagonal), as gsu_train_buffered_bytes counts
	 */
	Size		cov = gsu_cov_doubles(st->level, st->dim, st->rank);
	double		need = (double) st->cap * gsu_rows_doubles_per_row(st, st->level, st->wt != NULL) *
		sizeof(double) + gsu_solver_doubles(st->opt.loss, st->opt.solver, st->n, st->dim, cov, 0, 0) *
		sizeof(double);

	if (st->opt.standardize)
		need += (double) st->n * ((double) st->dim + (double) (cov == 1 ? (Size) st->dim : cov)) *
			sizeof(double);

	if (need > (double) gsu_state_memory_room(st))
		gsu_state_memory_error(st, (Size) Min(need, (double) MaxAllocHugeSize),
							   psprintf("Training on " INT64_FORMAT " rows of dimension %d", st->n, st->dim),
							   "Raise gsu.max_training_memory, or train on a sample of the rows.");
}

/*
 * Solves the rows of st (the buffered ones, or their standardized copy)
 * into vector 0 of m, with the solver's result; the passes go to trace.
 */
static void
solve_rows(const GsuTrainState *st, GsuModel *m, GsuTrace *trace)
{
	gsu_dataset ds;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_binary_problem p;
	gsu_status	s;
	double	   *theta = GSU_MODEL_THETA(m, 0);

	memset(&ds, 0, sizeof(ds));
	ds.n = st->n;
	ds.d = st->dim;
	ds.x = st->x;
	ds.y = st->y;				/* the targets */
	ds.cov_kind = st->level;
	ds.cov = st->cov;
	ds.cov_rank = st->level == GSU_COV_FACTOR ? st->rank : 0;
	ds.weight = st->wt;
	memset(theta, 0, sizeof(double) * ((Size) st->dim + 1));

	gsu_solve_options_default(&o);
	memset(&p, 0, sizeof(p));
	gsu_options_to_core(&st->opt, &o, &p);
	o.progress = gsu_interrupt_pending;
	o.progress_arg = NULL;
	o.trace = gsu_trace_pass;
	o.trace_arg = trace;
	memset(&res, 0, sizeof(res));
	if (st->opt.loss == GSU_LOSS_SQUARED)
		s = gsu_solve_ridge(&ds, &o, theta, &res);
	else
		s = gsu_solve_svr(&ds, st->opt.epsilon, &o, theta, &res);
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("gsu.train_regression diverged: the objective or the solution is out of range "
						"for type double precision"),
				 errhint("Rescale the features or the targets, or raise \"lambda\".")));
	gsu_report_status(s, "gsu.train_regression");
	m->objective = res.objective;
	m->gradient_norm = res.gradient_norm;
	m->gap_estimate = res.gap_estimate;
	m->iterations = res.iterations;
	m->passes = res.passes;
	if (res.converged)
		m->flags |= GSU_MODEL_CONVERGED;
	else
		ereport(WARNING,
				(errmsg("gsu.train_regression did not converge in %d iterations", st->opt.max_iterations),
				 errhint("Raise \"max_iterations\" or \"tolerance\".")));
}

/*
 * The solver sgd: the rows were stepped on as they came (gsu_rows_store),
 * so the model is the iterate, with the progressive objective (each row's
 * loss before its own step) and the step count, as gsu.train's sgd.
 */
static GsuModel *
streamed_model(const GsuTrainState *st)
{
	GsuModel   *m = gsu_model_from_options(st->dim, 2, 0, &st->opt);

	memcpy(GSU_MODEL_THETA(m, 0), st->theta, sizeof(double) * ((Size) st->dim + 1));
	m->objective = gsu_objective_from_sums(st->dim, st->theta, st->opt.lambda,
										   st->loss_sum, st->weight_sum);
	m->iterations = st->t0 + st->n;
	m->passes = 1;
	return m;
}

GsuModel *
gsu_train_solve_regression(GsuTrainState *st)
{
	GsuModel   *m;
	GsuTrace	trace;
	Size		len;
	double	   *block;

	if (st->opt.solver == GSU_SOLVER_SGD)
		return streamed_model(st);
	check_memory(st);
	m = gsu_model_from_options(st->dim, 2, 0, &st->opt);
	gsu_trace_init(&trace, "gsu.train_regression", 1, NULL);
	gsu_trace_class(&trace, 0);
	if (st->opt.standardize)
	{
		/* on x' = D⁻¹(x − m), Σ' = D⁻¹ΣD⁻¹; the model keeps m and D and scores in original units */
		double	   *mean = palloc(sizeof(double) * st->dim),
				   *scale = palloc(sizeof(double) * st->dim);
		GsuTrainState std = gsu_train_standardized_copy(st, mean, scale);
		GsuModel   *r;

		solve_rows(&std, m, &trace);
		gsu_train_standardized_free(&std);
		r = gsu_model_with_standardization(m, mean, scale);
		pfree(m);
		pfree(mean);
		pfree(scale);
		m = r;
	}
	else
		solve_rows(st, m, &trace);
	gsu_trace_finish(&trace);
	block = gsu_trace_block(&trace, &len);
	if (len > 0)
	{
		GsuModel   *r = gsu_model_with_history(m, block, len);

		pfree(m);
		m = r;
	}
	pfree(block);
	return m;
}
