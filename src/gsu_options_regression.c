/*
 * gsu_options_regression.c — the options of gsu.train_regression (see
 * gsu_options.h): a few keys of the options table read with its ranges,
 * the regression losses, the tube's half-width "epsilon", and a clear
 * refusal of every option of gsu.train that has no meaning for regression.
 */
#include "gsu_options.h"
#include "gsu_options_table.h"

#include <math.h>

/* the keys gsu.train_regression reads, in the order of its hint */
static const char *const regression_keys[] = {
	"loss", "epsilon", "lambda", "tolerance", "max_iterations", "standardize", "missing", "missing_mean", "missing_variance",
	"missing_nan", "solver", "init", NULL
};

/* the keys of gsu.train_regression that gsu.fit's regression does not take */
static const char *const streaming_keys[] = {"solver", "init", NULL};

#define REGRESSION_KEYS_HINT "gsu.train_regression takes the options loss " \
	"(epsilon_insensitive or squared), epsilon, lambda, tolerance, max_iterations, standardize, missing, missing_mean, missing_variance, " \
	"missing_nan, solver (newton or sgd) and init."
#define REGRESSION_LOSSES_HINT "The regression losses are epsilon_insensitive (the default: SVR-GSU) " \
	"and squared (ridge-GSU); train a classifier with gsu.train."

static const GsuOptionDef *
table_row(const char *name)
{
	int			i;

	for (i = 0; i < gsu_options_count; i++)
		if (strcmp(gsu_options_table[i].name, name) == 0)
			return &gsu_options_table[i];
	elog(ERROR, "pg_gsu: no option \"%s\" in the table", name);
	pg_unreachable();
}

/* a number option of the table, range-checked by its row */
static void
read_number(const GsuJsonCtx *cx, JsonbContainer *root, const char *name, double *out)
{
	const GsuOptionDef *d = table_row(name);
	double		x;

	if (!gsu_json_number(cx, root, name, &x))
		return;
	if (!gsu_option_in_range(d, x))
		gsu_option_range_error(d, "option", cx->errcode, x);
	*out = x;
}

/* the option "loss": a regression loss by name */
static void
read_loss(const GsuJsonCtx *cx, JsonbContainer *root, GsuTrainOptions *o)
{
	const char *s;
	int			k;

	if (!gsu_json_string(cx, root, "loss", &s))
		return;
	k = gsu_loss_by_name(s);
	if (k >= 0 && gsu_loss_info(k)->regression)
	{
		o->loss = k;
		return;
	}
	ereport(ERROR,
			(errcode(cx->errcode),
			 k >= 0 ? errmsg("loss \"%s\" is a classification loss", s) :
			 errmsg("unknown loss \"%s\"", s),
			 errhint(REGRESSION_LOSSES_HINT)));
}

/* a key of the options object that gsu.train_regression does not read */
static void
refuse_key(const char *key)
{
	int			i;


	for (i = 0; i < gsu_options_count; i++)
		if (gsu_options_table[i].option && strcmp(gsu_options_table[i].name, key) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" does not apply to regression", key),
					 errhint(REGRESSION_KEYS_HINT)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown option \"%s\"", key),
			 errhint(REGRESSION_KEYS_HINT)));
}

/* a key of gsu.train_regression that gsu.fit's scans have no use for */
static void
refuse_fit_key(const char *key)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("gsu.fit's regression takes no option \"%s\"", key),
			 errdetail("gsu.fit solves ridge-GSU from one scan and SVR-GSU by Newton steps over scans, from zero."),
			 errhint("Omit \"%s\"; to stream the rows, use gsu.train_regression with '{\"solver\": \"sgd\"}'.", key)));
}

/* every key of the object is one of regression_keys (gsu.fit: not a streaming one) */
static void
check_keys(JsonbContainer *root, bool train)
{
	JsonbIterator *it = JsonbIteratorInit(root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			char	   *key = pnstrdup(v.val.string.val, v.val.string.len);
			int			k;

			for (k = 0; regression_keys[k] != NULL; k++)
				if (strcmp(key, regression_keys[k]) == 0)
					break;
			if (regression_keys[k] == NULL)
				refuse_key(key);
			for (k = 0; !train && streaming_keys[k] != NULL; k++)
				if (strcmp(key, streaming_keys[k]) == 0)
					refuse_fit_key(key);
			pfree(key);
		}
}

/*
 * "solver" (newton, the default, or sgd) and "init" (solver sgd only: the
 * model to continue), with the rules of the streaming solver: a row is
 * stepped on when it arrives, so nothing that needs all rows first.
 */
static void
read_solver(const GsuJsonCtx *cx, JsonbContainer *root, GsuTrainOptions *o, int mode,
			GsuInitReader read_init, void **init)
{
	const GsuOptionDef *d = table_row("solver");
	const char *s;
	JsonbContainer *c;

	if (gsu_json_string(cx, root, "solver", &s))
		o->solver = gsu_json_choice(cx, s, d->names, d->values, d->name, d->hint);
	if (mode == GSU_REGRESSION_OPTIONS_STREAM && o->solver != GSU_SOLVER_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.train_regression_sgd and gsu.regression_sgd_partial run the solver sgd only, not \"%s\"",
						gsu_solver_name(o->solver)),
				 errhint("Omit \"solver\"; train with another solver with gsu.train_regression.")));
	if (o->solver != GSU_SOLVER_NEWTON && o->solver != GSU_SOLVER_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.train_regression runs the solvers newton and sgd, not \"%s\"",
						gsu_solver_name(o->solver)),
				 errhint("Omit \"solver\" (newton: SVR-GSU's Newton, ridge-GSU's closed form), or use \"sgd\" to stream the rows.")));
	c = gsu_json_container(cx, root, "init", false);
	if (c != NULL && o->solver != GSU_SOLVER_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"init\" of gsu.train_regression needs solver \"sgd\""),
				 errdetail("The solver newton starts from zero; solver sgd continues the init model's weights and step count.")));
	if (o->solver != GSU_SOLVER_SGD)
		return;
	gsu_check_stochastic_lambda(o->lambda, o->solver);
	if (o->standardize)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"standardize\" cannot be combined with solver \"sgd\""),
				 errdetail("A streaming pass steps on each row before the statistics of all rows are known."),
				 errhint("Standardize with gsu.train_regression's solver newton, or gsu.fit.")));
	/* with both moments given, each row is filled from them before its step */
	gsu_require_missing_moments(o, "train with gsu.train_regression's solver newton");
	if (c != NULL && init != NULL)
		*init = read_init(c, o->lambda);
}

void
gsu_regression_options_parse(Jsonb *jb, GsuTrainOptions *o, int mode,
							 GsuInitReader read_init, void **init)
{
	bool		train = mode != GSU_REGRESSION_OPTIONS_FIT;

	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	JsonbContainer *root;
	int64		i64;
	double		eps;

	gsu_options_default(o);
	o->loss = GSU_LOSS_EPS_INSENSITIVE;
	if (jb != NULL)
	{
		if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("options must be a JSON object"),
					 errhint("For example '{\"loss\": \"epsilon_insensitive\", \"epsilon\": 0.1}'.")));
		root = &jb->root;
		check_keys(root, train);
		read_loss(&cx, root, o);
	}
	gsu_options_loss_defaults(o);
	if (mode == GSU_REGRESSION_OPTIONS_STREAM)
		o->solver = GSU_SOLVER_SGD;
	if (jb == NULL)
		return;
	read_number(&cx, root, "lambda", &o->lambda);
	read_number(&cx, root, "tolerance", &o->tolerance);
	{
		bool		b;

		if (gsu_json_bool(&cx, root, "standardize", &b))
			o->standardize = b ? 1 : 0;
	}
	{
		const GsuOptionDef *d = table_row("missing");
		const char *s;

		if (gsu_json_string(&cx, root, "missing", &s))
			o->missing = gsu_json_choice(&cx, s, d->names, d->values, d->name, d->hint);
		gsu_options_missing_extras(root, o);
	}
	if (gsu_json_int64(&cx, root, "max_iterations", (int64) table_row("max_iterations")->lo,
					   (int64) table_row("max_iterations")->hi, &i64))
		o->max_iterations = (int32) i64;
	if (gsu_json_number(&cx, root, "epsilon", &eps))
	{
		if (o->loss != GSU_LOSS_EPS_INSENSITIVE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"epsilon\" applies only to the loss epsilon_insensitive"),
					 errdetail("The squared loss has no insensitive tube.")));
		if (!isfinite(eps) || eps < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"epsilon\" must be a non-negative finite number, not %g", eps)));
		o->epsilon = eps;
	}
	if (train)
		read_solver(&cx, root, o, mode, read_init, init);
}
