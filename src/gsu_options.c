/*
 * gsu_options.c — the training options, described once (see gsu_options.h).
 *
 * The table `options` below is the schema: a row per option, in the order
 * of the "Valid keys" hint and of the model's "hyperparameters" text.  The
 * generic code reads, range-checks and stores the scalar and enumerated
 * options from it; the options whose value is an object or that set several
 * fields ("class_weight" in gsu_options_class_weight.c, "norm", "confidence",
 * "features") have a reader of their own below, and the rules between
 * options follow the table in gsu_options_parse.  The options know nothing
 * of gsu.model: the "init" model is read by the model's side through the
 * reader gsu_options_parse is given (gsu_parse_train_options,
 * gsu_model_text.c), and gsu_model_hyper.c reads and writes a trained
 * model's hyperparameters from this table.  What the list of the stored
 * options (GSU_STORED_OPTIONS, gsu_options.h) derives on the options' side
 * is here too: their defaults, their copy into the core's options and the
 * options of gsu.fit's sample.
 */
#include "gsu_options.h"
#include "gsu_options_table.h"
#include "gsu_glue.h"
#include "core/gsu_robust.h"

#include <errno.h>
#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"


static const char *const solver_names[] = {"newton", "pegasos", "sgd", "lbfgs", "dcd", NULL};
static const int solver_values[] = {GSU_SOLVER_NEWTON, GSU_SOLVER_PEGASOS, GSU_SOLVER_SGD,
GSU_SOLVER_LBFGS, GSU_SOLVER_DCD};
static const char *const subspace_mode_names[] = {"gaussian", "covariance", NULL};
static const int subspace_mode_values[] = {GSU_SUBSPACE_GAUSSIAN, GSU_SUBSPACE_COVARIANCE};
static const char *const missing_names[] = {"error", "feature_moments", NULL};
static const int missing_values[] = {GSU_MISSING_ERROR, GSU_MISSING_FEATURE_MOMENTS};
static const char *const bound_names[] = {"gaussian", "chebyshev", NULL};
static const int bound_values[] = {GSU_BOUND_GAUSSIAN, GSU_BOUND_CHEBYSHEV};
static const char *const tsvc_names[] = {"projected", "alternating", NULL};
static const int tsvc_values[] = {GSU_TSVC_PROJECTED, GSU_TSVC_ALTERNATING};

#define NONE (-1)
#define INF_ (HUGE_VAL)

const GsuOptionDef gsu_options_table[] = {
	{"lambda", OPT_NUMBER, true, OPT(lambda), 0, INF_, true, true,
	"a positive finite number"},
	/* the names of the losses are those of the core (gsu_loss_info) */
	{"loss", OPT_CHOICE, true, OPT(loss)},
	{"solver", OPT_CHOICE, true, OPT(solver), .names = solver_names,
		.values = solver_values,
	.hint = "Valid solvers are: newton (gsu.train and gsu.fit), pegasos, sgd, dcd (gsu.train, loss hinge) and lbfgs (gsu.fit)."},
	{"tolerance", OPT_NUMBER, true, OPT(tolerance), 0, 1, true, true, "in (0, 1)"},
	{"smoothing", OPT_NUMBER, true, OPT(smoothing), 0, 1, true, false, "in (0, 1]"},
	{"subspace_fraction", OPT_NUMBER, true, OPT(subspace_fraction),
	0, 1, true, false, "in (0, 1]"},
	/* what subspace_fraction restricts: the whole Gaussian (the paper) or its covariance */
	{"subspace_mode", OPT_CHOICE, true, OPT(subspace_mode),
		.names = subspace_mode_names, .values = subspace_mode_values,
	.hint = "Valid subspace modes are: gaussian (the mean and the covariance are projected), covariance (only the covariance is restricted)."},
	{"max_iterations", OPT_INTEGER, true, OPT(max_iterations), 1, 1000000},
	{"epochs", OPT_INTEGER, true, OPT(epochs), 1, 100000},
	{"batch_size", OPT_INTEGER, true, OPT(batch_size), 1, 1000000},
	{"seed", OPT_SEED, true, OPT(seed)},
	{"init", OPT_CUSTOM, true, NONE},
	{"class_weight", OPT_CUSTOM, true, NONE},
	{"gamma", OPT_NUMBER, true, OPT(gamma), 0, INF_, false, true,
		"a non-negative finite number", LOSSES_GAMMA, "the losses tsvc and robust",
	LOSSES_GAMMA},
	{"delta_scale", OPT_NUMBER, true, OPT(delta_scale), 0, INF_, true, true,
	"a positive finite number", LOSS_BIT(GSU_LOSS_TSVC), "the loss tsvc", LOSSES_GAMMA},
	/* stored: 1 - confidence, 0 when gamma was given */
	/* epsilon_insensitive: the tube's half-width, [0, ∞) (gsu_options_regression.c) */
	{"epsilon", OPT_NUMBER, false, OPT(epsilon), 0, 1, false, true, "in [0, 1)",
		LOSS_BIT(GSU_LOSS_ROBUST) | LOSS_BIT(GSU_LOSS_EPS_INSENSITIVE), "the loss robust",
	LOSSES_GAMMA | LOSS_BIT(GSU_LOSS_EPS_INSENSITIVE)},
	{"norm", OPT_CUSTOM, true, NONE, .losses = LOSS_BIT(GSU_LOSS_ROBUST),
	.losses_text = "the loss robust"},
	{"confidence", OPT_CUSTOM, true, NONE, 0, 1, true, true, "in (0, 1)",
	LOSS_BIT(GSU_LOSS_ROBUST), "the loss robust"},
	{"bound", OPT_CHOICE, true, OPT(bound), .names = bound_names, .values = bound_values,
	.hint = "Valid bounds are: gaussian, chebyshev."},
	{"tsvc_algorithm", OPT_CHOICE, true, OPT(tsvc_algorithm),
		.losses = LOSS_BIT(GSU_LOSS_TSVC), .losses_text = "the loss tsvc",
		.names = tsvc_names, .values = tsvc_values,
	.hint = "Valid algorithms are: projected, alternating."},
	{"features", OPT_CUSTOM, true, NONE},
	{"feature_bound", OPT_CHOICE, true, OPT(feature_bound),
		.losses = LOSS_BIT(GSU_LOSS_ROBUST), .losses_text = "the loss robust",
		.names = gsu_feature_bound_names, .values = gsu_feature_bound_values,
	.hint = "Valid feature bounds are: moments, worst_case, couellan_jan."},
	/* p-bar of feature_bound "couellan_jan" (gsu_check_feature_bound) */
	{"feature_norm", OPT_CUSTOM, true, NONE, .losses = LOSS_BIT(GSU_LOSS_ROBUST),
	.losses_text = "the loss robust"},
	/* stored as the model's flag GSU_MODEL_STANDARDIZED with its statistics */
	{"standardize", OPT_BOOLEAN, true, OPT(standardize)},
	/* stored as the model's flag GSU_MODEL_MISSING with the feature moments (docs/missing.md) */
	{"missing", OPT_CHOICE, true, OPT(missing), .names = missing_names, .values = missing_values,
	.hint = "Valid values are: error (a NULL mean element is an error), feature_moments (a NULL mean element is the feature's mean over the training rows, with its variance)."},
	/* the user's moments for "missing" (gsu_options_missing_moments), read from the jsonb */
	{"missing_mean", OPT_CUSTOM, true, NONE},
	{"missing_variance", OPT_CUSTOM, true, NONE},
	/* a NaN mean element is missing too (gsu_options_missing_extras; the model's flag GSU_MODEL_MISSING_NAN) */
	{"missing_nan", OPT_CUSTOM, true, NONE},
};

const int	gsu_options_count = lengthof(gsu_options_table);

StaticAssertDecl(lengthof(gsu_options_table) < GSU_OPTIONS_MAX, "raise GSU_OPTIONS_MAX");

/* the option keys, NULL-ended, in table order (gsu_json_check_object) */
static const char *const *
option_keys(void)
{
	static const char *keys[lengthof(gsu_options_table) + 1];

	if (keys[0] == NULL)
	{
		int			i,
					n = 0;

		for (i = 0; i < (int) lengthof(gsu_options_table); i++)
			if (gsu_options_table[i].option)
				keys[n++] = gsu_options_table[i].name;
		keys[n] = NULL;
	}
	return keys;
}

static const GsuOptionDef *
option_def(const char *name)
{
	int			i;

	for (i = 0; i < (int) lengthof(gsu_options_table); i++)
		if (strcmp(gsu_options_table[i].name, name) == 0)
			return &gsu_options_table[i];
	elog(ERROR, "pg_gsu: no option \"%s\" in the table", name);
	pg_unreachable();
}

bool
gsu_option_in_range(const GsuOptionDef *d, double x)
{
	return isfinite(x) && (d->lo_open ? x > d->lo : x >= d->lo) &&
		(d->hi_open ? x < d->hi : x <= d->hi);
}

/* the range error of a number: "<what> "name" must be <range>, not x" */
void
gsu_option_range_error(const GsuOptionDef *d, const char *what, int code, double x)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("%s \"%s\" must be %s, not %g", what, d->name, d->range, x)));
}

/* loss is in the set of losses (LOSS_BIT, LOSSES_GAMMA) */
static bool
loss_in(unsigned set, int loss)
{
	const gsu_loss_kind_info *l = gsu_loss_info(loss);

	if (l == NULL)
		return false;
	if ((set & LOSSES_GAMMA) && l->default_gamma > 0.0)
		return true;
	return (set & LOSS_BIT(loss)) != 0;
}

bool
gsu_option_applies_to(const GsuOptionDef *d, int loss)
{
	return d->losses == 0 || loss_in(d->losses, loss);
}

bool
gsu_option_shown_for(const GsuOptionDef *d, int loss)
{
	return d->shown == 0 || loss_in(d->shown, loss);
}

static bool
present(JsonbContainer *root, const char *key)
{
	return gsu_json_present(root, key);
}

const char *
gsu_subspace_mode_name(int mode)
{
	int			k;

	for (k = 0; subspace_mode_names[k] != NULL; k++)
		if (subspace_mode_values[k] == mode)
			return subspace_mode_names[k];
	return "?";
}

const char *
gsu_solver_name(int solver)
{
	return (solver >= 0 && solver <= GSU_SOLVER_DCD) ? solver_names[solver] : "?";
}


/* The names of the losses with (or without) the gradient pass: "a, b and c". */
static char *
losses_with_gradient_pass(bool gradient_pass)
{
	StringInfoData b;
	int			k,
				n = 0,
				total = 0;

	/* the classification losses (the regression ones are gsu.train_regression's) */
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		total += !gsu_loss_info(k)->regression &&
			(gsu_loss_info(k)->gradient_pass != 0) == gradient_pass;
	initStringInfo(&b);
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		if (!gsu_loss_info(k)->regression &&
			(gsu_loss_info(k)->gradient_pass != 0) == gradient_pass)
		{
			n++;
			appendStringInfo(&b, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
							 gsu_loss_name(k));
		}
	return b.data;
}

void
gsu_require_gradient_loss(int loss, const char *fn)
{
	if (gsu_loss_info(loss) != NULL && gsu_loss_info(loss)->gradient_pass)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s supports the losses %s, not \"%s\"", fn,
					losses_with_gradient_pass(true), gsu_loss_name(loss)),
			 errhint("Train the losses %s with gsu.train.", losses_with_gradient_pass(false))));
}

/* The loss named s (the core's names); an error with the valid names otherwise. */
static int
loss_by_name(const GsuJsonCtx *cx, const char *s)
{
	StringInfoData hint;
	int			k = gsu_loss_by_name(s);

	if (k >= 0 && gsu_loss_info(k)->regression)
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("loss \"%s\" is a regression loss", s),
				 errhint("Train a regression model with gsu.train_regression(mean, variance, target, options).")));
	if (k >= 0)
		return k;
	initStringInfo(&hint);
	for (k = 0; k <= GSU_LOSS_MAX; k++)
		if (!gsu_loss_info(k)->regression)
			appendStringInfo(&hint, "%s%s", k ? ", " : "Valid losses are: ", gsu_loss_name(k));
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("unknown loss \"%s\"", s),
			 errhint("%s.", hint.data)));
	pg_unreachable();
}

/* Reads one option of the table (not OPT_CUSTOM) into o; false when absent. */
static bool
read_option(const GsuJsonCtx *cx, JsonbContainer *root, const GsuOptionDef *d,
			GsuTrainOptions *o)
{
	double		x;
	int64		i64;
	const char *s;

	switch (d->type)
	{
		case OPT_NUMBER:
			if (!gsu_json_number(cx, root, d->name, &x))
				return false;
			if (!gsu_option_in_range(d, x))
				gsu_option_range_error(d, "option", cx->errcode, x);
			FIELD(o, d->opt_off, double) = x;
			return true;
		case OPT_INTEGER:
			if (!gsu_json_int64(cx, root, d->name, (int64) d->lo, (int64) d->hi, &i64))
				return false;
			FIELD(o, d->opt_off, int32) = (int32) i64;
			return true;
		case OPT_SEED:
			if (!gsu_json_int64(cx, root, d->name, 0, PG_INT64_MAX, &i64))
				return false;
			FIELD(o, d->opt_off, uint64) = (uint64) i64;
			return true;
		case OPT_CHOICE:
			if (!gsu_json_string(cx, root, d->name, &s))
				return false;
			FIELD(o, d->opt_off, int32) = d->names == NULL ? loss_by_name(cx, s) :
				gsu_json_choice(cx, s, d->names, d->values, d->name, d->hint);
			return true;
		case OPT_BOOLEAN:
			{
				bool		b;

				if (!gsu_json_bool(cx, root, d->name, &b))
					return false;
				FIELD(o, d->opt_off, int32) = b ? 1 : 0;
				return true;
			}
		case OPT_CUSTOM:
			break;
	}
	return false;
}

static void
option_needs_loss(const GsuOptionDef *d)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" applies only to %s", d->name, d->losses_text)));
}


/*
 * Without "solver" (and without "init", whose warm start is the Newton
 * solver's) the loss's default solver (gsu_loss_kind_info.default_solver:
 * dual coordinate descent for the hinge loss, which it solves only).
 */
static void
check_dcd(JsonbContainer *root, GsuTrainOptions *o)
{
	if (!present(root, "solver"))
	{
		if (!present(root, "init"))
			o->solver = gsu_loss_info(o->loss)->default_solver;
		return;
	}
	if (o->solver == GSU_SOLVER_DCD && o->loss != GSU_LOSS_HINGE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("solver \"dcd\" needs the loss hinge, not \"%s\"", gsu_loss_name(o->loss)),
				 errdetail("Dual coordinate descent solves the hinge loss of the rows' means."),
				 errhint("Use solver newton (the default) for this loss.")));
}

bool
gsu_options_solver_given(Jsonb *jb)
{
	return jb != NULL && JB_ROOT_IS_OBJECT(jb) && present(&jb->root, "solver");
}

void
gsu_check_stochastic_lambda(double lambda, int solver)
{
	if ((solver == GSU_SOLVER_SGD || solver == GSU_SOLVER_PEGASOS) &&
		lambda < GSU_MIN_STOCHASTIC_LAMBDA)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"lambda\" must be at least %g with solver \"%s\", not %g",
						GSU_MIN_STOCHASTIC_LAMBDA, gsu_solver_name(solver), lambda),
				 errdetail("The step size 1/(lambda*t) of the stochastic solvers overflows "
						   "for smaller values."),
				 errhint("Use a larger \"lambda\", or solver \"newton\".")));
}

/*
 * The rules of a loss that reads a radius per row (psvm): it is solved by
 * the alternating algorithm, whose rounds are Newton solves of the hinge
 * SVM on the rows moved within their balls, from w = 0; its balls lie in
 * the input space and have no subspace.
 */
static void
check_radius_loss(JsonbContainer *root, const GsuTrainOptions *o, const char *loss)
{
	static const char *const refused[] = {"subspace_fraction", "init", "features"};
	static const char *const why[] = {
		"A row's radius describes a ball, which has no leading subspace.",
		"The alternating algorithm starts from the hinge SVM of the rows themselves.",
		"A row's radius bounds its ball in the input space, not in a feature space."
	};
	int			i;

	if (o->solver != GSU_SOLVER_NEWTON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" needs solver \"newton\", not \"%s\"", loss,
						gsu_solver_name(o->solver)),
				 errdetail("It is solved by alternating Newton solves of the hinge SVM on the rows moved within their balls.")));
	for (i = 0; i < (int) lengthof(refused); i++)
		if (present(root, refused[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" does not apply to the loss %s", refused[i], loss),
					 errdetail("%s", why[i])));
}

/*
 * The rules of "standardize": the statistics are known only when every row
 * is in, so the row must not be changed before (a subspace restriction at
 * the transition, a streaming step, a feature map whose sigma is in the
 * input's units) and a radius must stay a radius (psvm's ball).
 */
static void
check_standardize(const GsuTrainOptions *o, const gsu_loss_kind_info *loss)
{
	const char *with = NULL,
			   *why = NULL;

	if (o->map_kind != GSU_MAP_NONE)
	{
		with = "option \"features\"";
		why = o->map_kind == GSU_MAP_POLY2 ?
			"A model with a feature map applies it to the raw input; standardize the columns before training instead." :
			"The feature map's sigma is in the units of the input, which standardization would change.";
	}
	else if (o->solver == GSU_SOLVER_SGD)
	{
		with = "solver \"sgd\"";
		why = "A streaming pass steps on each row before the statistics of all rows are known.";
	}
	else if (o->subspace_fraction < 1.0)
	{
		with = "option \"subspace_fraction\" below 1";
		why = "A row's subspace is computed when it arrives, before the statistics of all rows are known.";
	}
	else if (loss->radius)
	{
		with = psprintf("the loss %s", loss->name);
		why = "A row's radius describes a ball, which a per-feature scaling turns into an ellipsoid.";
	}
	if (with)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"standardize\" cannot be combined with %s", with),
				 errdetail("%s", why),
				 errhint("Standardize with gsu.train (solvers newton and pegasos) or gsu.fit.")));
}

/*
 * The rules of "missing": "feature_moments": the observed moments are known
 * only when every row is in, so as for "standardize" a row must not be
 * changed on arrival (a subspace, a streaming step unless the user gives
 * both moments, a feature map of the raw input), and a radius is not a
 * variance.
 */
static void
check_missing(const GsuTrainOptions *o, const gsu_loss_kind_info *loss)
{
	const char *with = NULL,
			   *why = NULL,
			   *hint = "Train with the solver newton, pegasos or dcd of gsu.train, or gsu.train_regression.";

	if (o->map_kind != GSU_MAP_NONE)
	{
		with = "option \"features\"";
		why = "The feature map is applied to each row's raw mean, which is not known before the moments of all rows are.";
	}
	else if (o->solver == GSU_SOLVER_SGD &&
			 o->missing_given != (GSU_MISSING_GIVEN_MEAN | GSU_MISSING_GIVEN_VARIANCE))
	{
		/* with both moments given, each row is filled from them before its step */
		gsu_require_missing_moments(o, "train with a solver that buffers the rows");
	}
	else if (o->subspace_fraction < 1.0)
	{
		with = "option \"subspace_fraction\" below 1";
		why = "A row's subspace is computed when it arrives, before the moments of all rows are known.";
	}
	else if (loss->radius)
	{
		with = psprintf("the loss %s", loss->name);
		why = "A row's radius describes a ball, not a per-feature variance.";
	}
	if (with)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"missing\": \"feature_moments\" cannot be combined with %s", with),
				 errdetail("%s", why),
				 errhint("%s", hint)));
}

int
gsu_options_missing_moments(JsonbContainer *root, int n, double *mean, double *var)
{
	static const char *const keys[] = {"missing_mean", "missing_variance"};
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	int			given = 0,
				k,
				j;

	for (k = 0; root != NULL && k < 2; k++)
	{
		JsonbContainer *arr = gsu_json_container(&cx, root, keys[k], true);
		int			len;
		double	   *out;

		if (arr == NULL)
			continue;
		len = gsu_json_array_length(arr);
		if (len < 1 || len > GSU_MAX_DIM || (n > 0 && len != n))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" has %d elements, but the rows have %d features",
							keys[k], len, n > 0 ? n : len),
					 errdetail("It gives one value per feature.")));
		out = n > 0 ? (k == 0 ? mean : var) : palloc(sizeof(double) * len);
		gsu_json_number_array(&cx, arr, keys[k], out, len);
		for (j = 0; k == 1 && j < len; j++)
			if (out[j] < 0.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"missing_variance\" element %d is negative: %g", j + 1, out[j])));
		if (n == 0)
			pfree(out);
		given |= k == 0 ? GSU_MISSING_GIVEN_MEAN : GSU_MISSING_GIVEN_VARIANCE;
	}
	return given;
}

void
gsu_options_missing_extras(JsonbContainer *root, GsuTrainOptions *o)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	const char *needs = NULL;
	bool		b;

	o->missing_given = gsu_options_missing_moments(root, 0, NULL, NULL);
	if (root != NULL && gsu_json_bool(&cx, root, "missing_nan", &b))
		o->missing_nan = b ? 1 : 0;
	if (o->missing != GSU_MISSING_ERROR)
		return;
	if (o->missing_given)
		needs = (o->missing_given & GSU_MISSING_GIVEN_MEAN) ? "missing_mean" : "missing_variance";
	else if (o->missing_nan)
		needs = "missing_nan";
	if (needs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" needs \"missing\": \"feature_moments\"", needs),
				 o->missing_nan && !o->missing_given ?
				 errdetail("A NaN mean element is read as missing only where a NULL one is.") : 0));
}

void
gsu_require_missing_moments(const GsuTrainOptions *o, const char *hint)
{
	if (o->missing != GSU_MISSING_ERROR &&
		o->missing_given != (GSU_MISSING_GIVEN_MEAN | GSU_MISSING_GIVEN_VARIANCE))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"missing\": \"feature_moments\" cannot be combined with solver \"sgd\" without \"missing_mean\" and \"missing_variance\""),
				 errdetail("A streaming pass steps on each row before the observed moments of all rows are known."),
				 errhint("Give both \"missing_mean\" and \"missing_variance\" (one value per feature), or %s.", hint)));
}

/* "norm": p of the uncertainty set ||u||_p <= gamma (1, 2 or "inf"); the loss uses the dual q */
static void
read_norm(JsonbContainer *root, GsuTrainOptions *o)
{
	int			p = gsu_parse_pnorm(root, "norm", "Valid norms of the uncertainty set are: 1, 2, \"inf\".");

	if (p >= 0)
		o->robust_q = gsu_dual_exponent(p);
}

/*
 * "confidence" (with "bound"): the chance constraint P(row misclassified) <=
 * 1 - confidence chooses gamma, and is stored as epsilon = 1 - confidence.
 */
static void
read_confidence(const GsuJsonCtx *cx, JsonbContainer *root, GsuTrainOptions *o,
				bool has_gamma)
{
	const GsuOptionDef *d = option_def("confidence");
	double		confidence;

	if (!gsu_json_number(cx, root, "confidence", &confidence))
	{
		if (present(root, "bound"))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"bound\" needs option \"confidence\"")));
		return;
	}
	if (!gsu_option_in_range(d, confidence))
		gsu_option_range_error(d, "option", cx->errcode, confidence);
	if (has_gamma)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options \"gamma\" and \"confidence\" exclude each other"),
				 errdetail("The confidence level chooses gamma.")));
	if (o->robust_q != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"confidence\" needs norm 2"),
				 errdetail("The chance constraint of a row with covariance Sigma is the robust loss with ||Sigma^(1/2) w||_2.")));
	if (o->bound == GSU_BOUND_NONE)
		o->bound = GSU_BOUND_GAUSSIAN;
	o->epsilon = 1.0 - confidence;
	/* a confidence below 2^-54 leaves epsilon = 1 exactly: no constraint left */
	if (!(o->epsilon < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"confidence\" %g is too close to 0", confidence),
				 errdetail("1 - confidence must be below 1 in double precision.")));
	if (o->bound == GSU_BOUND_GAUSSIAN)
	{
		if (confidence < 0.5)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"confidence\" must be at least 0.5 with the gaussian bound, not %g",
							confidence),
					 errdetail("Below 0.5 gamma = Phi^-1(confidence) is negative and the problem is not convex.")));
		o->gamma = gsu_normal_quantile(confidence);
	}
	else
		o->gamma = sqrt(confidence / o->epsilon);
	if (!isfinite(o->gamma))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"confidence\" %g is too close to 1", confidence)));
}

/* the defaults that depend on the loss o->loss */
void
gsu_options_loss_defaults(GsuTrainOptions *o)
{
	const gsu_loss_kind_info *l = gsu_loss_info(o->loss);

	if (l->robust)
		/* TSVC's and PSVM's perturbations lie in a Euclidean ball: their q is 2 as well */
		o->robust_q = 2;
	/* the loss's own defaults: its row of the core's loss table */
	if (l->default_gamma > 0.0)
		o->gamma = l->default_gamma;
	if (l->default_max_iterations > 0)
		o->max_iterations = l->default_max_iterations;
	if (l->default_delta_scale > 0.0)
		o->delta_scale = l->default_delta_scale;
	if (o->loss == GSU_LOSS_EPS_INSENSITIVE)
		o->epsilon = GSU_SVR_DEFAULT_EPSILON;
}

void
gsu_options_default(GsuTrainOptions *o)
{
	gsu_solve_options core_defaults;

	gsu_solve_options_default(&core_defaults);
	memset(o, 0, sizeof(*o));
#define GSU_CORE_DEFAULT(f) (core_defaults.f)
#define SET_DEFAULT(field, type, model_type, key, core, core_field, sample, value) \
	o->field = (value);
	GSU_STORED_OPTIONS(SET_DEFAULT)
#undef SET_DEFAULT
#undef GSU_CORE_DEFAULT
	/* the options that are not stored and whose default is not zero */
	o->feature_pbar = 2;		/* couellan_jan: the Euclidean norm, which both props cover */
}

void
gsu_options_to_core(const GsuTrainOptions *o, gsu_solve_options *so, gsu_binary_problem *p)
{
#define TO_CORE_SOLVE(field, core_field) so->core_field = o->field;
#define TO_CORE_PROBLEM(field, core_field) p->core_field = o->field;
#define TO_CORE_GLUE(field, core_field)
#define TO_CORE(field, type, model_type, key, core, core_field, ...) \
	TO_CORE_##core(field, core_field)
	GSU_STORED_OPTIONS(TO_CORE)
#undef TO_CORE
}

/* the row of the table whose field is at byte offset off of GsuTrainOptions */
static const GsuOptionDef *
option_by_field(int off)
{
	int			i;

	for (i = 0; i < (int) lengthof(gsu_options_table); i++)
		if (gsu_options_table[i].opt_off == off)
			return &gsu_options_table[i];
	elog(ERROR, "pg_gsu: no option at offset %d in the table", off);
	pg_unreachable();
}

/* "name": the value of option d in o, JSON; after ", " unless *first */
static void
append_option(StringInfo buf, const GsuOptionDef *d, const GsuTrainOptions *o, bool *first)
{
	appendStringInfo(buf, "%s\"%s\": ", *first ? "" : ", ", d->name);
	*first = false;
	switch (d->type)
	{
		case OPT_NUMBER:
			gsu_append_double(buf, FIELD(o, d->opt_off, double));
			break;
		case OPT_INTEGER:
			appendStringInfo(buf, "%d", FIELD(o, d->opt_off, int32));
			break;
		case OPT_SEED:
			appendStringInfo(buf, UINT64_FORMAT, FIELD(o, d->opt_off, uint64));
			break;
		case OPT_CHOICE:
			{
				int			v = FIELD(o, d->opt_off, int32),
							k;

				if (d->names == NULL)
				{
					/* the loss: the core's names */
					appendStringInfo(buf, "\"%s\"", gsu_loss_name(v));
					break;
				}
				for (k = 0; d->names[k] != NULL && d->values[k] != v; k++)
					;
				appendStringInfo(buf, "\"%s\"", d->names[k] ? d->names[k] : "?");
				break;
			}
		case OPT_BOOLEAN:
			appendStringInfoString(buf, FIELD(o, d->opt_off, int32) ? "true" : "false");
			break;
		case OPT_CUSTOM:
			elog(ERROR, "pg_gsu: option \"%s\" has no value of its own", d->name);
	}
}

void
gsu_options_append_sample(StringInfo buf, const GsuTrainOptions *o)
{
	bool		first = true;

#define SAMPLE_SAMPLE(field) append_option(buf, option_by_field(OPT(field)), o, &first);
#define SAMPLE_NOSAMPLE(field)
#define SAMPLE(field, type, model_type, key, core, core_field, sample, ...) \
	SAMPLE_##sample(field)
	GSU_STORED_OPTIONS(SAMPLE)
#undef SAMPLE
}

void
gsu_options_parse(Jsonb *jb, GsuTrainOptions *o, GsuInitReader read_init, void **init)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	JsonbContainer *root,
			   *features;
	const gsu_loss_kind_info *loss;
	bool		robust,
				has_gamma;
	int			i;

	gsu_options_default(o);
	if (init)
		*init = NULL;
	if (jb == NULL)
		return;
	root = gsu_json_options_object(&cx, jb, option_keys(), "{\"lambda\": 0.001}");

	/* the loss first: the other options' defaults and applicability depend on it */
	read_option(&cx, root, option_def("loss"), o);
	gsu_options_loss_defaults(o);
	loss = gsu_loss_info(o->loss);
	robust = loss->robust;

	/* every option of the table, in its order */
	for (i = 0; i < (int) lengthof(gsu_options_table); i++)
	{
		const GsuOptionDef *d = &gsu_options_table[i];

		if (!d->option || d->opt_off == OPT(loss))
			continue;
		if (!gsu_option_applies_to(d, o->loss) && present(root, d->name))
			option_needs_loss(d);
		if (d->type != OPT_CUSTOM)
			read_option(&cx, root, d, o);
	}
	check_dcd(root, o);
	gsu_check_stochastic_lambda(o->lambda, o->solver);

	/* the rules between options */
	has_gamma = present(root, "gamma");
	if (o->tsvc_algorithm == GSU_TSVC_ALTERNATING)
	{
		if (has_gamma)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"gamma\" does not apply to tsvc_algorithm \"alternating\""),
					 errdetail("The alternating algorithm solves the non-convex problem, which has no norm bound.")));
		if (o->solver != GSU_SOLVER_NEWTON)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("tsvc_algorithm \"alternating\" needs solver \"newton\", not \"%s\"",
							gsu_solver_name(o->solver))));
		o->gamma = 0.0;
	}
	read_norm(root, o);
	read_confidence(&cx, root, o, has_gamma);
	if (loss->radius)
		check_radius_loss(root, o, loss->name);
	if (robust && o->solver == GSU_SOLVER_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" has no streaming solver", loss->name),
				 errhint("Use solver newton (the default) or pegasos.")));
	if (init)
	{
		JsonbContainer *c = gsu_json_container(&cx, root, "init", false);

		*init = c != NULL ? read_init(c, o->lambda) : NULL;
	}
	o->class_weight = gsu_parse_class_weight_mode(root);
	features = gsu_json_container(&cx, root, "features", false);
	if (features)
	{
		gsu_parse_features_option(&cx, features, o);
		if (o->solver == GSU_SOLVER_SGD)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"features\" needs a solver that buffers the rows, not \"sgd\""),
					 errhint("Use solver newton (the default) or pegasos.")));
		if (present(root, "init"))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"init\" cannot be combined with \"features\""),
					 errdetail("A warm start would need the init model's own feature map.")));
	}
	if (gsu_check_feature_bound(root, o, features != NULL))
	{
		/* a per-row bound is not smooth: stochastic subgradient steps, chosen when not given */
		if (present(root, "solver") && o->solver != GSU_SOLVER_PEGASOS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature_bound \"%s\" needs solver \"pegasos\", not \"%s\"",
							gsu_feature_bound_name(o->feature_bound), gsu_solver_name(o->solver)),
					 errdetail("The %s is not smooth: it is trained by stochastic subgradient steps.",
							   o->feature_bound == GSU_FEATURE_BOUND_WORST_CASE ?
							   "exact worst case over the box" : "worst case over the paper's bound")));
		o->solver = GSU_SOLVER_PEGASOS;
	}
	if (o->standardize)
		check_standardize(o, loss);
	gsu_options_missing_extras(root, o);
	if (o->missing != GSU_MISSING_ERROR)
		check_missing(o, loss);
}
