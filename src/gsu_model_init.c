/*
 * gsu_model_init.c — the option "init" of the training options: a gsu.model
 * in its text form (gsu_model_text.c), read for the options parsers of
 * classification (gsu_options_parse: a classifier whose regularizer is
 * finite, gsu_parse_train_options) and of regression
 * (gsu_regression_options_parse: a regression model for the solver sgd,
 * gsu_parse_regression_options).  The floor above the text form.
 */
#include "gsu_model_init.h"
#include "gsu_model_text.h"

#include <math.h>

/*
 * The regularizer λ/2‖w‖² of every vector of the "init" model must be
 * finite, or the solvers start from an infinite objective (the data term
 * is checked where the rows are: gsu.fit's first pass, the solvers).
 */
static void
check_init_objective(const GsuModel *init, double lambda)
{
	int			k;

	for (k = 0; k < GSU_MODEL_NVEC(init); k++)
	{
		const double *w = GSU_MODEL_THETA(init, k);
		double		scale = 0.0,
					ssq = 1.0,
					norm;
		int			j;

		/* ‖w‖ without overflow (the LAPACK dnrm2 recurrence) */
		for (j = 0; j < init->dim; j++)
		{
			double		a = fabs(w[j]);

			if (a == 0.0)
				continue;
			if (scale < a)
			{
				ssq = 1.0 + ssq * (scale / a) * (scale / a);
				scale = a;
			}
			else
				ssq += (a / scale) * (a / scale);
		}
		norm = scale * sqrt(ssq);
		if (!isfinite(0.5 * lambda * norm * norm))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the objective of the \"init\" model is not finite"),
					 errdetail("Its weights have norm %g, and lambda/2 times the squared norm "
							   "overflows with lambda %g.", norm, lambda),
					 errhint("Start from a model trained on features of a similar scale, or "
							 "leave out \"init\".")));
	}
}


/* sgd and pegasos continue the init model's step count: leave room for ~2^62 more steps */
static void
check_init_iterations(const GsuModel *init)
{
	if (init->iterations > PG_INT64_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the \"init\" model's iteration count " INT64_FORMAT " is too large to continue from",
						init->iterations),
				 errdetail("A warm start adds its steps to that count, which must stay below 2^63.")));
}

/* The "init" model: the starting point (and, for sgd and pegasos, the step count). */
static void *
read_init(JsonbContainer *c, double lambda)
{
	GsuModel   *init = gsu_model_from_jsonb(c);

	gsu_model_require_classifier(init, "the option \"init\" of gsu.train");
	check_init_objective(init, lambda);
	check_init_iterations(init);
	return init;
}

void
gsu_parse_train_options(Jsonb *jb, GsuTrainOptions *o, GsuModel **init)
{
	void	   *v = NULL;

	if (init)
		*init = NULL;
	gsu_options_parse(jb, o, read_init, init ? &v : NULL);
	if (init)
		*init = (GsuModel *) v;
}

/*
 * The "init" model of gsu.train_regression's solver sgd and of the regression
 * sgd partials: a regression model (any regression loss) in the input's
 * units, whose weights and step count the steps continue; its dimension is
 * checked with the first row.
 */
static void *
read_regression_init(JsonbContainer *c, double lambda)
{
	GsuModel   *init = gsu_model_from_jsonb(c);

	if (!gsu_model_is_regression(init))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the option \"init\" of gsu.train_regression must be a regression model, not a classifier of loss \"%s\"",
						gsu_loss_name(init->loss))));
	if (init->flags & GSU_MODEL_STANDARDIZED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the \"init\" model of solver \"sgd\" must not be standardized"),
				 errdetail("Its weights are in the units of its standardized rows; the steps are in the input's units.")));
	check_init_objective(init, lambda);
	check_init_iterations(init);
	return init;
}

void
gsu_parse_regression_options(Jsonb *jb, GsuTrainOptions *o, bool stream, GsuModel **init)
{
	void	   *v = NULL;

	if (init)
		*init = NULL;
	gsu_regression_options_parse(jb, o, stream ? GSU_REGRESSION_OPTIONS_STREAM : GSU_REGRESSION_OPTIONS_TRAIN,
								 read_regression_init, init ? &v : NULL);
	if (init)
		*init = (GsuModel *) v;
}
