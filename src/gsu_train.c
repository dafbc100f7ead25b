/*
 * gsu_train.c — the gsu.train aggregate.
 *
 * One aggregate, two kinds of state, chosen by the "solver" option on the
 * first row:
 *  - newton / pegasos: the rows are buffered in the state (compact dense
 *    arrays, bounded by gsu.max_training_memory) and solved in the final
 *    function;
 *  - sgd: the transition function takes one Pegasos step per row in scan
 *    order; the state is O(dim).
 * Options are read once, from the first row that is not skipped.
 *
 * Parallel aggregation: buffered states are concatenated by the combine
 * function (the worker order is not deterministic, but the solution of the
 * convex problem does not depend on row order up to rounding); sgd states
 * are averaged with row weights, an approximation of one sequential pass.
 */
#include "gsu_pg.h"
#include "gsu_json.h"
#include "core/gsu_featmap.h"
#include "core/gsu_robust.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(gsu_train_transfn);
PG_FUNCTION_INFO_V1(gsu_train_iso_transfn);
PG_FUNCTION_INFO_V1(gsu_train_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_train_weighted_transfn);
PG_FUNCTION_INFO_V1(gsu_train_combinefn);
PG_FUNCTION_INFO_V1(gsu_train_combine_support);
PG_FUNCTION_INFO_V1(gsu_train_serialfn);
PG_FUNCTION_INFO_V1(gsu_train_deserialfn);
PG_FUNCTION_INFO_V1(gsu_train_finalfn);


typedef struct GsuTrainState
{
	GsuTrainOptions opt;
	int32		dim;			/* 0 until the first row */
	int64		n;				/* rows seen */
	int64		n_pos;			/* rows with label 1 */
	int64		n_neg;			/* rows with another label */
	/* buffered solvers */
	int64		cap;			/* rows the buffers can hold */
	double	   *x;				/* cap × dim */
	double	   *y;				/* cap labels (any int4: one-vs-rest for more than 2) */
	double	   *wt;				/* cap row weights (> 0), or NULL while all are 1 */
	/*
	 * Covariances are kept at the level of the most general row seen so
	 * far, in one buffer: none, s (cap isotropic variances), v (cap × dim
	 * diagonals) or c (cap × dim × dim full matrices).
	 */
	GsuCovKind	level;
	double	   *cov;
	/* how x, y, wt and cov grow (gsu_growbuf_resize), and what unmaps them */
	GsuGrowBuf	gx,
				gy,
				gwt,
				gcov;
	MemoryContextCallback unmap;
	/* a row's covariance being prepared: dim doubles, dim × dim once a full one came */
	double	   *scratch;
	bool		scratch_full;
	double	   *work;			/* dim doubles */
	/* sgd */
	double	   *theta;			/* dim + 1 */
	double		loss_sum;		/* Σ c_i L_i, each row's loss before its step */
	double		weight_sum;		/* sgd: Σ c_i, row times class weight (n without weights) */
	int64		t0;				/* steps taken before this pass (warm start) */
	/* the "init" model: the starting point (and, for sgd, the step count) */
	GsuModel   *init;
	/* explicit class weights (class_weight = {...}), else NULL */
	GsuClassWeights *cw;
	/* the first row's options, to check that every row has the same */
	Jsonb	   *options;
	Pointer		options_seen;	/* a constant options datum found equal to them */
	/*
	 * feature_bound "worst_case": set only in the mapped copy train_mapped
	 * solves on, the map, the input means and the per-row boxes
	 * (gsu_featmap_row_box), n × gsu_featmap_box_len
	 */
	const gsu_featmap *fmap;
	const double *fmap_x;
	const double *fbox;
} GsuTrainState;

/* the string-valued options: names and the values they stand for (gsu_json_choice) */
static const char *const tsvc_names[] = {"projected", "alternating", NULL};
static const int tsvc_values[] = {GSU_TSVC_PROJECTED, GSU_TSVC_ALTERNATING};
static const char *const bound_names[] = {"gaussian", "chebyshev", NULL};
static const int bound_values[] = {GSU_BOUND_GAUSSIAN, GSU_BOUND_CHEBYSHEV};
static const char *const map_names[] = {"rff", "nystroem", NULL};
static const int map_values[] = {GSU_MAP_RFF, GSU_MAP_NYSTROEM};

static const char *const option_keys[] = {
	"lambda", "loss", "solver", "tolerance", "smoothing", "subspace_fraction",
	"max_iterations", "epochs", "batch_size", "seed", "init", "class_weight",
	"gamma", "delta_scale", "norm", "confidence", "bound", "tsvc_algorithm", "features",
	"feature_bound", NULL
};

/* ------------------------------------------------------- class weights */

/* An object key as an int4 label: optional sign and decimal digits only. */
static int32
class_weight_label(const char *key, int len)
{
	char	   *str = pnstrdup(key, len);
	char	   *end;
	long		v;
	int			i = (str[0] == '-' || str[0] == '+') ? 1 : 0;

	errno = 0;
	v = strtol(str, &end, 10);
	if (str[i] < '0' || str[i] > '9' || *end != '\0' || errno != 0 ||
		v < PG_INT32_MIN || v > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("class_weight key \"%s\" is not an int4 label", str),
				 errhint("Give weights by label, e.g. '{\"class_weight\": {\"-1\": 1, \"1\": 5}}'.")));
	pfree(str);
	return (int32) v;
}

/*
 * Reads and checks an explicit class_weight object: keys are int4 labels
 * (each at most once), values finite positive numbers.  out may be NULL.
 */
static void
read_class_weight(JsonbContainer *obj, GsuClassWeights *out)
{
	int			size = JsonContainerSize(obj);
	int32	   *labels = palloc(sizeof(int32) * Max(size, 1));
	double	   *weights = palloc(sizeof(double) * Max(size, 1));
	int			n = 0,
				k;
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	v;
	JsonbIteratorToken tok;
	int32		label = 0;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		double		w;

		if (tok == WJB_KEY)
		{
			label = class_weight_label(v.val.string.val, v.val.string.len);
			for (k = 0; k < n; k++)
				if (labels[k] == label)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("class_weight gives label %d twice", label)));
			continue;
		}
		if (tok != WJB_VALUE)
			continue;
		if (v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight of label %d must be a number, not %s", label,
							v.type == jbvString ? "a string" :
							v.type == jbvNull ? "null" :
							v.type == jbvBool ? "a boolean" : "an array or object")));
		w = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(v.val.numeric)));
		if (!(w > 0.0) || !isfinite(w))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight of label %d must be positive and finite, not %g",
							label, w)));
		labels[n] = label;
		weights[n] = w;
		n++;
	}
	if (out)
	{
		out->n = n;
		out->label = labels;
		out->weight = weights;
	}
	else
	{
		pfree(labels);
		pfree(weights);
	}
}

/* Reads the class_weight option (absent: GSU_CLASS_WEIGHT_NONE). */
static int32
parse_class_weight_mode(JsonbContainer *root)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(root, "class_weight", strlen("class_weight"), &v) == NULL ||
		v.type == jbvNull)
		return GSU_CLASS_WEIGHT_NONE;
	if (v.type == jbvString)
	{
		if (v.val.string.len == 8 && memcmp(v.val.string.val, "balanced", 8) == 0)
			return GSU_CLASS_WEIGHT_BALANCED;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown class_weight \"%.*s\"", v.val.string.len, v.val.string.val),
				 errhint("Use \"balanced\" or an object of weights by label, e.g. "
						 "'{\"class_weight\": {\"-1\": 1, \"1\": 5}}'.")));
	}
	if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"class_weight\" must be \"balanced\" or an object of weights by label, not %s",
						v.type == jbvNumeric ? "a number" :
						v.type == jbvBool ? "a boolean" : "an array")));
	read_class_weight(v.val.binary.data, NULL);
	return GSU_CLASS_WEIGHT_EXPLICIT;
}

GsuClassWeights *
gsu_parse_class_weight(Jsonb *jb)
{
	JsonbValue	v;
	GsuClassWeights *cw;

	if (jb == NULL || JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb) ||
		getKeyJsonValueFromContainer(&jb->root, "class_weight", strlen("class_weight"), &v) == NULL ||
		v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		return NULL;
	cw = palloc0(sizeof(GsuClassWeights));
	read_class_weight(v.val.binary.data, cw);
	return cw;
}

void
gsu_reject_class_weight(const GsuTrainOptions *o, const char *fn)
{
	if (o->class_weight != GSU_CLASS_WEIGHT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not support the option \"class_weight\"", fn),
				 errhint("Train with gsu.train, which takes \"class_weight\" and per-row weights.")));
}

double
gsu_class_weight_of(const GsuClassWeights *cw, int32 label)
{
	int			k;

	if (cw)
		for (k = 0; k < cw->n; k++)
			if (cw->label[k] == label)
				return cw->weight[k];
	return 1.0;
}

static void
option_needs_loss(const char *key, const char *losses)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" applies only to %s", key, losses)));
}

/*
 * The options of the losses tsvc and robust (gsu_robust.h): "gamma",
 * "delta_scale", "norm" (p of the uncertainty set ‖u‖_p ≤ γ: 1, 2 or
 * "inf"; the loss uses the dual q), "confidence" with "bound", and
 * "tsvc_algorithm".  Options of another loss are an error, not ignored.
 */
static void
parse_robust_options(const GsuJsonCtx *cx, JsonbContainer *root, GsuTrainOptions *o)
{
	bool		tsvc = o->loss == GSU_LOSS_TSVC,
				robust = o->loss == GSU_LOSS_ROBUST;
	bool		has_gamma,
				has_confidence;
	double		confidence = 0.0,
				x;
	const char *s;
	JsonbValue	v;

	o->gamma = 1.0;
	o->delta_scale = tsvc ? 1.0 : 0.0;
	/* TSVC's perturbations lie in a Euclidean ball: its q is 2 as well */
	o->robust_q = (tsvc || robust) ? 2 : 0;
	has_gamma = gsu_json_number(cx, root, "gamma", &x);
	if (has_gamma)
	{
		if (!tsvc && !robust)
			option_needs_loss("gamma", "the losses tsvc and robust");
		if (!(x >= 0.0) || !isfinite(x))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"gamma\" must be a non-negative finite number, not %g", x)));
		o->gamma = x;
	}
	if (!tsvc && !robust)
		o->gamma = 0.0;
	if (gsu_json_number(cx, root, "delta_scale", &x))
	{
		if (!tsvc)
			option_needs_loss("delta_scale", "the loss tsvc");
		if (!(x > 0.0) || !isfinite(x))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"delta_scale\" must be a positive finite number, not %g", x)));
		o->delta_scale = x;
	}
	if (gsu_json_string(cx, root, "tsvc_algorithm", &s))
	{
		if (!tsvc)
			option_needs_loss("tsvc_algorithm", "the loss tsvc");
		o->tsvc_algorithm = gsu_json_choice(cx, s, tsvc_names, tsvc_values, "tsvc_algorithm",
											"Valid algorithms are: projected, alternating.");
		if (o->tsvc_algorithm == GSU_TSVC_ALTERNATING && has_gamma)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"gamma\" does not apply to tsvc_algorithm \"alternating\""),
					 errdetail("The alternating algorithm solves the non-convex problem, which has no norm bound.")));
		if (o->tsvc_algorithm == GSU_TSVC_ALTERNATING && o->solver != GSU_SOLVER_NEWTON)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("tsvc_algorithm \"alternating\" needs solver \"newton\", not \"%s\"",
							gsu_solver_name(o->solver))));
	}
	if (tsvc && o->tsvc_algorithm == GSU_TSVC_ALTERNATING)
		o->gamma = 0.0;
	if (getKeyJsonValueFromContainer(root, "norm", 4, &v) != NULL && v.type != jbvNull)
	{
		int			p = -1;

		if (!robust)
			option_needs_loss("norm", "the loss robust");
		if (v.type == jbvString)
		{
			if ((v.val.string.len == 3 && memcmp(v.val.string.val, "inf", 3) == 0) ||
				(v.val.string.len == 8 && memcmp(v.val.string.val, "infinity", 8) == 0))
				p = GSU_Q_INF;
		}
		else if (v.type == jbvNumeric)
		{
			double		n = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
															   NumericGetDatum(v.val.numeric)));

			if (n == 1.0 || n == 2.0)
				p = (int) n;
		}
		if (p < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 v.type == jbvString ?
					 errmsg("unknown norm \"%.*s\"", v.val.string.len, v.val.string.val) :
					 v.type == jbvNumeric ?
					 errmsg("unknown norm %s",
							DatumGetCString(DirectFunctionCall1(numeric_out,
																NumericGetDatum(v.val.numeric)))) :
					 errmsg("option \"norm\" must be a number or a string"),
					 errhint("Valid norms of the uncertainty set are: 1, 2, \"inf\".")));
		o->robust_q = gsu_dual_exponent(p);
	}
	has_confidence = gsu_json_number(cx, root, "confidence", &confidence);
	if (has_confidence)
	{
		if (!robust)
			option_needs_loss("confidence", "the loss robust");
		if (!(confidence > 0.0 && confidence < 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"confidence\" must be in (0, 1), not %g", confidence)));
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
		o->bound = GSU_BOUND_GAUSSIAN;
	}
	if (gsu_json_string(cx, root, "bound", &s))
	{
		if (!has_confidence)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"bound\" needs option \"confidence\"")));
		o->bound = gsu_json_choice(cx, s, bound_names, bound_values, "bound",
								   "Valid bounds are: gaussian, chebyshev.");
	}
	if (has_confidence)
	{
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
	if ((tsvc || robust) && o->solver == GSU_SOLVER_SGD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" has no streaming solver", tsvc ? "tsvc" : "robust"),
				 errhint("Use solver newton (the default) or pegasos.")));
}

static const char *const feature_keys[] = {
	"map", "dim", "landmarks", "sigma", "seed", "covariance", NULL
};

/* Largest Nyström landmark count (K_mm is m × m, decomposed densely). */
#define GSU_MAX_LANDMARKS 10000

/* The option "features": {"map": "rff", "dim": D, "sigma": s, "seed": n} or
 * {"map": "nystroem", "landmarks": m, "sigma": s, "seed": n}. */
static void
parse_features(const GsuJsonCtx *cx, JsonbContainer *f, GsuTrainOptions *o)
{
	GsuJsonCtx	fcx = {cx->errcode, "features key"};
	const char *s;
	int64		i64;
	bool		has_dim,
				has_m;

	gsu_json_check_object(&fcx, f, feature_keys);
	if (!gsu_json_string(&fcx, f, "map", &s))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"features\" needs a \"map\""),
				 errhint("For example '{\"features\": {\"map\": \"rff\", \"dim\": 200, \"sigma\": 1}}'.")));
	o->map_kind = gsu_json_choice(&fcx, s, map_names, map_values, "feature map",
								  "Valid maps are: rff, nystroem.");
	has_dim = gsu_json_int64(&fcx, f, "dim", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_dim)
		o->map_dim = (int32) i64;
	has_m = gsu_json_int64(&fcx, f, "landmarks", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_m)
		o->map_landmarks = (int32) i64;
	if (o->map_kind == GSU_MAP_RFF)
	{
		if (has_m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\" takes \"dim\", not \"landmarks\"")));
		if (!has_dim)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\" needs \"dim\", the number of features")));
		if (o->map_dim < 2 || o->map_dim % 2 != 0 || o->map_dim > GSU_MAX_DIM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\": \"dim\" must be an even number in [2, %d], not %d",
							GSU_MAX_DIM, o->map_dim),
					 errdetail("The features come in cos/sin pairs, one pair per random frequency.")));
	}
	else
	{
		if (has_dim)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" takes \"landmarks\", not \"dim\""),
					 errdetail("Its dimension is the rank of the landmarks' kernel matrix.")));
		if (!has_m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" needs \"landmarks\", the number of landmarks")));
		if (o->map_landmarks < 1 || o->map_landmarks > GSU_MAX_LANDMARKS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\": \"landmarks\" must be in [1, %d], not %d",
							GSU_MAX_LANDMARKS, o->map_landmarks)));
	}
	if (!gsu_json_number(&fcx, f, "sigma", &o->map_sigma))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\" needs \"sigma\", the Gaussian kernel's width", s)));
	/* the kernel divides by 2 sigma^2, which must stay finite */
	if (!(o->map_sigma > 0.0) || !isfinite(1.0 / (o->map_sigma * o->map_sigma)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\": \"sigma\" must be a positive number above 1e-154, not %g",
						s, o->map_sigma)));
	o->map_seed = o->seed;
	if (gsu_json_int64(&fcx, f, "seed", 0, PG_INT64_MAX, &i64))
		o->map_seed = (uint64) i64;
	if (gsu_json_string(&fcx, f, "covariance", &s))
	{
		static const char *const names[] = {"diagonal", "full", NULL};
		static const int values[] = {0, 1};

		o->map_full_cov = gsu_json_choice(&fcx, s, names, values, "feature covariance",
										  "Valid values are: diagonal, full.");
	}
}

/*
 * The option "feature_bound" of the robust loss on mapped features:
 * "moments" (the default: the robust loss on the exact feature-space
 * moments) or "worst_case" (each row's term is the exact worst case over
 * the box of Couellan & Jan, Prop. 4.1 / 4.2, which the Pegasos path of the
 * robust core trains; without an explicit "solver" it is chosen).
 */
static void
parse_feature_bound(const GsuJsonCtx *cx, JsonbContainer *root, GsuTrainOptions *o,
					bool features)
{
	const char *s,
			   *solver;

	o->feature_bound = GSU_FEATURE_BOUND_MOMENTS;
	if (!gsu_json_string(cx, root, "feature_bound", &s))
		return;
	if (o->loss != GSU_LOSS_ROBUST)
		option_needs_loss("feature_bound", "the loss robust");
	if (!features)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"feature_bound\" needs option \"features\""),
				 errdetail("It chooses how the robust loss bounds a row in feature space.")));
	{
		static const char *const names[] = {"moments", "worst_case", NULL};
		static const int values[] = {GSU_FEATURE_BOUND_MOMENTS, GSU_FEATURE_BOUND_WORST_CASE};

		o->feature_bound = gsu_json_choice(cx, s, names, values, "feature_bound",
										   "Valid feature bounds are: moments, worst_case.");
	}
	if (o->feature_bound == GSU_FEATURE_BOUND_MOMENTS)
		return;
	if (o->map_full_cov)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature covariance \"full\" does not apply to feature_bound \"worst_case\""),
				 errdetail("The worst case bounds the mapped row over its input uncertainty set, not by feature-space moments.")));
	if (gsu_json_string(cx, root, "solver", &solver) && o->solver != GSU_SOLVER_PEGASOS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature_bound \"worst_case\" needs solver \"pegasos\", not \"%s\"",
						solver),
				 errdetail("The exact worst case over the box is not smooth: it is trained by stochastic subgradient steps.")));
	o->solver = GSU_SOLVER_PEGASOS;
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

void
gsu_check_trained_model(const GsuModel *m, const char *fn)
{
	int			k,
				j;
	bool		ok = isfinite(m->objective) && isfinite(m->gradient_norm) &&
		isfinite(m->gap_estimate);

	for (k = 0; ok && k < GSU_MODEL_NVEC(m); k++)
		for (j = 0; ok && j <= m->dim; j++)
			ok = isfinite(GSU_MODEL_THETA(m, k)[j]);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s diverged: the model's weights or objective are out of range "
						"for type double precision", fn),
				 errhint("Rescale the features, raise \"lambda\", or start without \"init\".")));
}

void
gsu_parse_train_options(Jsonb *jb, GsuTrainOptions *o, GsuModel **init)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	gsu_solve_options d;
	const char *s;
	int64		i64;

	gsu_solve_options_default(&d);
	memset(o, 0, sizeof(*o));
	o->loss = GSU_LOSS_GSU;
	o->solver = GSU_SOLVER_NEWTON;
	o->lambda = d.lambda;
	o->tolerance = d.tolerance;
	o->smoothing = d.smoothing;
	o->subspace_fraction = 1.0;
	o->max_iterations = d.max_iterations;
	o->epochs = d.epochs;
	o->batch_size = d.batch_size;
	o->seed = d.seed;
	if (init)
		*init = NULL;
	if (jb == NULL)
		return;
	if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"lambda\": 0.001}'.")));
	gsu_json_check_object(&cx, &jb->root, option_keys);

	if (gsu_json_number(&cx, &jb->root, "lambda", &o->lambda) && !(o->lambda > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"lambda\" must be positive, not %g", o->lambda)));
	if (gsu_json_string(&cx, &jb->root, "loss", &s))
	{
		static const char *const names[] = {"gsu", "hinge", "tsvc", "robust", NULL};
		static const int values[] = {GSU_LOSS_GSU, GSU_LOSS_HINGE, GSU_LOSS_TSVC, GSU_LOSS_ROBUST};

		o->loss = gsu_json_choice(&cx, s, names, values, "loss",
								  "Valid losses are: gsu, hinge, tsvc, robust.");
	}
	if (gsu_json_string(&cx, &jb->root, "solver", &s))
	{
		static const char *const names[] = {"newton", "pegasos", "sgd", "lbfgs", NULL};
		static const int values[] = {GSU_SOLVER_NEWTON, GSU_SOLVER_PEGASOS, GSU_SOLVER_SGD,
		GSU_SOLVER_LBFGS};

		o->solver = gsu_json_choice(&cx, s, names, values, "solver",
									"Valid solvers are: newton, pegasos, sgd (gsu.train) and lbfgs (gsu.fit).");
	}
	gsu_check_stochastic_lambda(o->lambda, o->solver);
	if (gsu_json_number(&cx, &jb->root, "tolerance", &o->tolerance) &&
		!(o->tolerance > 0.0 && o->tolerance < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"tolerance\" must be in (0, 1), not %g", o->tolerance)));
	if (gsu_json_number(&cx, &jb->root, "smoothing", &o->smoothing) &&
		!(o->smoothing > 0.0 && o->smoothing <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"smoothing\" must be in (0, 1], not %g", o->smoothing)));
	if (gsu_json_number(&cx, &jb->root, "subspace_fraction", &o->subspace_fraction) &&
		!(o->subspace_fraction > 0.0 && o->subspace_fraction <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"subspace_fraction\" must be in (0, 1], not %g",
						o->subspace_fraction)));
	if (gsu_json_int64(&cx, &jb->root, "max_iterations", 1, 1000000, &i64))
		o->max_iterations = (int32) i64;
	else if (o->loss == GSU_LOSS_TSVC || o->loss == GSU_LOSS_ROBUST)
		o->max_iterations = GSU_ROBUST_MAX_ITERATIONS;
	if (gsu_json_int64(&cx, &jb->root, "epochs", 1, 100000, &i64))
		o->epochs = (int32) i64;
	if (gsu_json_int64(&cx, &jb->root, "batch_size", 1, 1000000, &i64))
		o->batch_size = (int32) i64;
	if (gsu_json_int64(&cx, &jb->root, "seed", 0, PG_INT64_MAX, &i64))
		o->seed = (uint64) i64;
	parse_robust_options(&cx, &jb->root, o);
	{
		JsonbContainer *m = gsu_json_container(&cx, &jb->root, "init", false);

		if (m && init)
		{
			*init = gsu_model_from_jsonb(m);
			check_init_objective(*init, o->lambda);
			/* sgd and pegasos continue its step count: leave room for ~2^62 more steps */
			if ((*init)->iterations > PG_INT64_MAX / 2)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the \"init\" model's iteration count " INT64_FORMAT " is too large to continue from",
								(*init)->iterations),
						 errdetail("A warm start adds its steps to that count, which must stay below 2^63.")));
		}
	}
	o->class_weight = parse_class_weight_mode(&jb->root);
	{
		JsonbContainer *f = gsu_json_container(&cx, &jb->root, "features", false);

		if (f)
		{
			parse_features(&cx, f, o);
			if (o->solver == GSU_SOLVER_SGD)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"features\" needs a solver that buffers the rows, not \"sgd\""),
						 errhint("Use solver newton (the default) or pegasos.")));
			if (gsu_json_container(&cx, &jb->root, "init", false) != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"init\" cannot be combined with \"features\""),
						 errdetail("A warm start would need the init model's own feature map.")));
		}
		parse_feature_bound(&cx, &jb->root, o, f != NULL);
	}
}

/* ------------------------------------------------------------- buffers */

/* doubles a row takes in the covariance buffer at a level */
static Size
cov_doubles(GsuCovKind level, int dim)
{
	switch (level)
	{
		case GSU_COV_NONE:
			return 0;
		case GSU_COV_ISO:
			return 1;
		case GSU_COV_DIAG:
			return (Size) dim;
		case GSU_COV_FULL:
			return (Size) dim * dim;
	}
	return 0;
}

/* doubles a buffered row takes: mean, label, covariance, weight if any */
static Size
row_doubles(const GsuTrainState *st, GsuCovKind level, bool weighted)
{
	return (Size) st->dim + 1 + cov_doubles(level, st->dim) + (weighted ? 1 : 0);
}

/*
 * The error of gsu.max_training_memory, for the row store and for the
 * estimate of the whole training path alike: one wording, one SQLSTATE.
 */
static void
training_memory_error(Size need, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("training data needs more than gsu.max_training_memory (%d kB)",
					gsu_max_training_memory_kb),
			 errdetail("%s needs %zu kB.", detail, (need + 1023) / 1024),
			 errhint("%s", hint)));
}

#define STREAMING_HINT "Raise gsu.max_training_memory, or train in streaming mode with " \
	"'{\"solver\": \"sgd\"}', which needs memory for one row only."

static void
check_memory(const GsuTrainState *st, int64 rows, GsuCovKind level, bool weighted)
{
	Size		limit = (Size) gsu_max_training_memory_kb * 1024;
	Size		per_row = row_doubles(st, level, weighted);
	Size		need;

	if ((Size) rows > MaxAllocHugeSize / sizeof(double) / per_row)
		need = MaxAllocHugeSize;
	else
		need = (Size) rows * per_row * sizeof(double);
	if (need > limit)
		training_memory_error(need, psprintf("Buffering " INT64_FORMAT " rows of dimension %d",
											 rows, st->dim), STREAMING_HINT);
}

static double *
alloc_rows(int64 rows, Size per_row)
{
	Size		bytes = sizeof(double) * (Size) Max(rows, 1) * Max(per_row, 1);
	double	   *p = (double *) palloc_extended(bytes, MCXT_ALLOC_HUGE);

	gsu_advise_huge_pages(p, bytes);
	return p;
}

/* The row buffers of st that went into mappings go when its context does. */
static void
state_unmap(void *arg)
{
	GsuTrainState *st = (GsuTrainState *) arg;

	gsu_growbuf_unmap(&st->gx);
	gsu_growbuf_unmap(&st->gy);
	gsu_growbuf_unmap(&st->gwt);
	gsu_growbuf_unmap(&st->gcov);
}

/* A zeroed state in the aggregate's context. */
static GsuTrainState *
state_alloc(MemoryContext aggctx)
{
	GsuTrainState *st = MemoryContextAllocZero(aggctx, sizeof(GsuTrainState));

	st->unmap.func = state_unmap;
	st->unmap.arg = st;
	MemoryContextRegisterResetCallback(aggctx, &st->unmap);
	return st;
}

/* Grows one row buffer of st from st->n used rows to cap, in place once large. */
static double *
grow_rows(GsuTrainState *st, GsuGrowBuf *g, double *p, int64 cap, int64 limit_rows, Size width)
{
	Size		row = sizeof(double) * Max(width, 1);

	return (double *) gsu_growbuf_resize(g, p, row * (Size) st->n, row * (Size) Max(cap, 1),
										 row * (Size) Max(limit_rows, 1));
}

/* The covariance of buffered row i, at the buffer's level. */
static GsuRowCov
stored_cov(const GsuTrainState *st, int64 i)
{
	GsuRowCov	rc = {st->level, 0.0, NULL};

	switch (st->level)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			rc.iso = st->cov[i];
			break;
		case GSU_COV_DIAG:
			rc.data = st->cov + i * st->dim;
			break;
		case GSU_COV_FULL:
			rc.data = st->cov + i * st->dim * st->dim;
			break;
	}
	return rc;
}

/* Writes a row's covariance into slot i of buf, which is at level. */
static void
write_cov(double *buf, GsuCovKind level, int dim, int64 i, const GsuRowCov *rc)
{
	int			j;

	switch (level)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			Assert(rc->kind <= GSU_COV_ISO);
			buf[i] = rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
			break;
		case GSU_COV_DIAG:
			{
				double	   *dst = buf + i * dim;

				Assert(rc->kind <= GSU_COV_DIAG);
				if (rc->kind == GSU_COV_DIAG)
					memcpy(dst, rc->data, sizeof(double) * dim);
				else
					for (j = 0; j < dim; j++)
						dst[j] = rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
				break;
			}
		case GSU_COV_FULL:
			{
				double	   *dst = buf + i * dim * dim;

				if (rc->kind == GSU_COV_FULL)
				{
					memcpy(dst, rc->data, sizeof(double) * dim * dim);
					break;
				}
				memset(dst, 0, sizeof(double) * dim * dim);
				for (j = 0; j < dim; j++)
					dst[j * dim + j] = rc->kind == GSU_COV_DIAG ? rc->data[j] :
						rc->kind == GSU_COV_ISO ? rc->iso : 0.0;
				break;
			}
	}
}

/* Raises the buffer's level, rewriting the rows stored so far. */
static void
raise_level(GsuTrainState *st, GsuCovKind level)
{
	double	   *buf;
	int64		i;

	if (level <= st->level)
		return;
	check_memory(st, Max(st->cap, st->n + 1), level, st->wt != NULL);
	buf = alloc_rows(st->cap, cov_doubles(level, st->dim));
	for (i = 0; i < st->n; i++)
	{
		GsuRowCov	rc = stored_cov(st, i);

		write_cov(buf, level, st->dim, i, &rc);
	}
	gsu_growbuf_free(&st->gcov, st->cov);
	st->cov = buf;
	st->level = level;
}

/*
 * Starts keeping row weights (the first row whose weight is not 1): the rows
 * stored so far weigh 1.
 */
static void
start_weights(GsuTrainState *st)
{
	int64		i;

	check_memory(st, Max(st->cap, st->n + 1), st->level, true);
	st->wt = alloc_rows(st->cap, 1);
	for (i = 0; i < st->n; i++)
		st->wt[i] = 1.0;
}

/* Makes room for one more row. */
static void
reserve_row(GsuTrainState *st)
{
	Size		per_row = row_doubles(st, st->level, st->wt != NULL);
	Size		limit_rows = (Size) gsu_max_training_memory_kb * 1024 / sizeof(double) / per_row;
	int64		cap;

	if (st->n < st->cap)
		return;
	check_memory(st, st->n + 1, st->level, st->wt != NULL);
	/* grow geometrically, but never past the memory bound */
	cap = st->cap == 0 ? 64 : st->cap * 2;
	if ((Size) cap > limit_rows)
		cap = (int64) limit_rows;
	st->x = grow_rows(st, &st->gx, st->x, cap, (int64) limit_rows, st->dim);
	st->y = grow_rows(st, &st->gy, st->y, cap, (int64) limit_rows, 1);
	if (st->wt)
		st->wt = grow_rows(st, &st->gwt, st->wt, cap, (int64) limit_rows, 1);
	if (st->level != GSU_COV_NONE)
		st->cov = grow_rows(st, &st->gcov, st->cov, cap, (int64) limit_rows,
							cov_doubles(st->level, st->dim));
	st->cap = cap;
}

/* "balanced" needs the class counts before the first step: not for sgd */
static void
check_class_weight_solver(const GsuTrainOptions *o)
{
	if (o->solver == GSU_SOLVER_SGD && o->class_weight == GSU_CLASS_WEIGHT_BALANCED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("class_weight \"balanced\" is not available with the sgd solver"),
				 errdetail("The sgd solver steps on each row as it arrives, before the class counts are known."),
				 errhint("Give the weights by label, e.g. '{\"class_weight\": {\"-1\": 1, \"1\": 5}}', "
						 "or use the newton or pegasos solver.")));
}

static GsuTrainState *
state_create(MemoryContext aggctx, Jsonb *options)
{
	GsuTrainState *st = state_alloc(aggctx);

	MemoryContext old = MemoryContextSwitchTo(aggctx);

	gsu_parse_train_options(options, &st->opt, &st->init);
	if (options)
	{
		st->options = palloc(VARSIZE(options));
		memcpy(st->options, options, VARSIZE(options));
	}
	st->cw = gsu_parse_class_weight(st->options);
	MemoryContextSwitchTo(old);
	if (st->opt.solver == GSU_SOLVER_LBFGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("solver \"lbfgs\" runs passes over a table: use gsu.fit"),
				 errhint("gsu.train's solvers are newton, pegasos and sgd.")));
	check_class_weight_solver(&st->opt);
	return st;
}

/* Called with the first row; fixes the dimension. */
static void
state_set_dim(GsuTrainState *st, int dim)
{
	st->dim = dim;
	st->scratch = palloc(sizeof(double) * (Size) dim);
	st->work = palloc(sizeof(double) * (Size) dim);
	if (st->init && st->init->dim != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the \"init\" model has dimension %d, but the rows have %d",
						st->init->dim, dim)));
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		st->theta = palloc0(sizeof(double) * ((Size) dim + 1));
		if (st->init)
		{
			/* warm start: continue from the model and its step count */
			gsu_model_require_plain_binary(st->init, "the \"init\" model of solver \"sgd\"");
			memcpy(st->theta, GSU_MODEL_THETA(st->init, 0), sizeof(double) * ((Size) dim + 1));
			st->t0 = st->init->iterations;
		}
	}
}

/* Σ c_i must stay a float8: every c_i is finite, but the sum can overflow */
static void
check_weight_sum(double sum)
{
	if (!isfinite(sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the sum of the training weights is out of range for type double precision"),
				 errhint("Scale the weights down: only their ratios matter.")));
}

/*
 * Buffers a prepared row of weight > 0, or takes the streaming step on it.
 *
 * The sgd step estimates the gradient of (1/W)Σ c_i L_i from one row, with
 * c_i the row's weight times its class weight: the loss term is scaled by
 * c_i over the mean weight of the rows so far (1 without weights, so the
 * unweighted step is unchanged).
 */
static void
store_row(GsuTrainState *st, const double *x, const GsuRowCov *rc, double y, double weight)
{
	if (y == 1.0)
		st->n_pos++;
	else
		st->n_neg++;

	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		double		c = weight * gsu_class_weight_of(st->cw, (int32) y);
		double		loss;

		st->n++;
		st->weight_sum += c;
		check_weight_sum(st->weight_sum);
		loss = gsu_sgd_step_scaled(st->dim, st->theta, st->opt.lambda, st->t0 + st->n, x,
								   rc->kind == GSU_COV_DIAG ? rc->data : NULL,
								   rc->kind == GSU_COV_ISO ? rc->iso : 0.0,
								   rc->kind == GSU_COV_FULL ? rc->data : NULL,
								   y, c * (double) st->n / st->weight_sum, st->work);
		st->loss_sum += c * loss;
		return;
	}

	raise_level(st, rc->kind);
	if (weight != 1.0 && st->wt == NULL)
		start_weights(st);
	reserve_row(st);
	memcpy(st->x + st->n * st->dim, x, sizeof(double) * st->dim);
	st->y[st->n] = y;
	if (st->wt)
		st->wt[st->n] = weight;
	write_cov(st->cov, st->level, st->dim, st->n, rc);
	st->n++;
}

/* The transition on one validated row (the aggregate context is current). */
static void
add_row(GsuTrainState *st, GsuVec mean, GsuRowCov rc, double y, double weight)
{
	if (st->dim == 0)
		state_set_dim(st, mean.n);
	else if (mean.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", mean.n, st->dim)));
	if (rc.kind == GSU_COV_FULL && !st->scratch_full)
	{
		/* room to restrict a full covariance to its subspace */
		st->scratch = repalloc_huge(st->scratch, sizeof(double) * (Size) st->dim * st->dim);
		st->scratch_full = true;
	}
	rc = gsu_prepare_cov(rc, st->opt.loss, st->opt.subspace_fraction, st->dim, st->scratch);
	store_row(st, mean.data, &rc, y, weight);
}

/* jsonb equality: '{"lambda": 1.0}' and '{"lambda": 1}' are the same options */
static bool
same_options(Jsonb *a, Jsonb *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return DatumGetBool(DirectFunctionCall2(jsonb_eq, JsonbPGetDatum(a), JsonbPGetDatum(b)));
}

static void
options_differ(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("gsu.train options must be the same for every row of a group"),
			 errdetail("The options are read from the first row; a later row has different ones.")));
}

/*
 * The options are parsed once; a later row's must be equal.  A constant
 * argument is the same datum every time, so this is one comparison in all.
 */
static void
check_same_options(GsuTrainState *st, FunctionCallInfo fcinfo, int arg)
{
	Jsonb	   *o;

	if (PG_ARGISNULL(arg) || st->options == NULL)
	{
		if (!PG_ARGISNULL(arg) || st->options != NULL)
			options_differ();
		return;
	}
	if (DatumGetPointer(PG_GETARG_DATUM(arg)) == st->options_seen)
		return;
	o = PG_GETARG_JSONB_P(arg);
	if (!same_options(o, st->options))
		options_differ();
	if (gsu_agg_arg_is_const(fcinfo, arg))
		st->options_seen = DatumGetPointer(PG_GETARG_DATUM(arg));
}

/*
 * Shared body of the transition functions.  Arguments: 0 state, 1 mean,
 * 2 variance, 3 label, then (weighted) 4 weight, then options (optional).
 */
static Datum
train_trans(FunctionCallInfo fcinfo, bool iso_variance, bool bool_label, bool weighted)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_transfn");
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		mean;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};
	double		y;
	double		weight = 1.0;
	int			opt_arg = weighted ? 5 : 4;

	/*
	 * A row with a NULL mean, label or weight is skipped, as aggregates skip
	 * NULLs; so is a row of weight 0, which would not change the objective.
	 */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (weighted && PG_ARGISNULL(4)))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (weighted)
	{
		weight = PG_GETARG_FLOAT8(4);
		if (!isfinite(weight) || weight < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("weight must be a finite non-negative number, not %g", weight)));
		if (weight == 0.0)
		{
			if (st)
				PG_RETURN_POINTER(st);
			PG_RETURN_NULL();
		}
	}
	if (st == NULL)
	{
		Jsonb	   *options = (PG_NARGS() > opt_arg && !PG_ARGISNULL(opt_arg)) ?
			PG_GETARG_JSONB_P(opt_arg) : NULL;

		st = state_create(aggctx, options);
		if (options && gsu_agg_arg_is_const(fcinfo, opt_arg))
			st->options_seen = DatumGetPointer(PG_GETARG_DATUM(opt_arg));
	}
	else if (PG_NARGS() > opt_arg)
		check_same_options(st, fcinfo, opt_arg);

	mean = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	if (bool_label)
		y = PG_GETARG_BOOL(3) ? 1.0 : -1.0;
	else if (st->opt.solver == GSU_SOLVER_SGD)
		y = gsu_check_label(PG_GETARG_INT32(3));	/* steps are taken on ±1 labels */
	else
		y = (double) PG_GETARG_INT32(3);
	if (!PG_ARGISNULL(2))
	{
		if (iso_variance)
		{
			rc.kind = GSU_COV_ISO;
			rc.iso = PG_GETARG_FLOAT8(2);
			gsu_check_iso_variance(rc.iso);
		}
		else
			rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n);
	}
	old = MemoryContextSwitchTo(aggctx);
	add_row(st, mean, rc, y, weight);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_train_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, false, false);
}

Datum
gsu_train_iso_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, true, false, false);
}

Datum
gsu_train_bool_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, true, false);
}

Datum
gsu_train_weighted_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, false, true);
}

/* ------------------------------------------------------------- parallel */

Datum
gsu_train_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_combinefn");
	GsuTrainState *a = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainState *b = PG_ARGISNULL(1) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(1);
	MemoryContext old;
	int64		i;

	if (b == NULL || b->n == 0)
	{
		if (a)
			PG_RETURN_POINTER(a);
		if (b == NULL)
			PG_RETURN_NULL();
	}
	old = MemoryContextSwitchTo(aggctx);
	if (a == NULL)
	{
		a = state_alloc(aggctx);
		a->opt = b->opt;
		a->t0 = b->t0;
		a->init = b->init;
		a->options = b->options;
		a->cw = b->cw;
	}
	else if (!same_options(a->options, b->options))
		options_differ();
	if (b->n == 0)
	{
		MemoryContextSwitchTo(old);
		PG_RETURN_POINTER(a);
	}
	if (a->dim == 0)
		state_set_dim(a, b->dim);
	else if (a->dim != b->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot combine training states of dimensions %d and %d",
						a->dim, b->dim)));

	if (a->opt.solver == GSU_SOLVER_SGD)
	{
		/* weighted average of the two iterates (by Σ c_i, n without weights) */
		double		wa = a->weight_sum / (a->weight_sum + b->weight_sum);
		int			j;

		for (j = 0; j <= a->dim; j++)
			a->theta[j] = wa * a->theta[j] + (1.0 - wa) * b->theta[j];
		a->loss_sum += b->loss_sum;
		a->weight_sum += b->weight_sum;
		check_weight_sum(a->weight_sum);
		a->n += b->n;
		a->n_pos += b->n_pos;
		a->n_neg += b->n_neg;
	}
	else
	{
		/* rows were prepared when b stored them: store them as they are */
		for (i = 0; i < b->n; i++)
		{
			GsuRowCov	rc = stored_cov(b, i);

			store_row(a, b->x + i * b->dim, &rc, b->y[i], b->wt ? b->wt[i] : 1.0);
		}
		/* store_row counted b's labels */
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/*
 * The planner's cost of gsu.train's combine step, per partial state (the
 * support function of gsu.train_combinefn).  In a parallel plan a buffered
 * state carries every row its worker read, and moving it to the leader
 * (serialized, through the tuple queue, deserialized, appended) costs more
 * than the parallel scan saves: 2 workers made the default solver 2x slower
 * in bench/run.sh.  The planner has no way to know that, so unless
 * gsu.parallel_training is on, each partial state is priced at 1e5 cost
 * units (the serial scan of a million 50-dimensional rows costs about
 * 1.2e5), which keeps gsu.train serial on any table the buffered solvers
 * can hold; on, it is an ordinary function call.
 */
#define GSU_SERIAL_COMBINE_COST 1.0e5

Datum
gsu_train_combine_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;

		req->startup = 0.0;
		req->per_tuple = gsu_parallel_training ? cpu_operator_cost : GSU_SERIAL_COMBINE_COST;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * Serialized state: a header of fixed-width fields (options, dim, counts,
 * covariance level), then the arrays.  Only parallel workers of the same
 * server produce it, but it is checked as if it were hostile.
 */
typedef struct GsuTrainWire
{
	uint32		magic;
	int32		dim;
	int64		n;
	int64		n_pos;
	int64		n_neg;
	int32		level;
	int32		options_size;	/* bytes of the options jsonb after the header, or 0 */
	int64		t0;
	double		loss_sum;
	double		weight_sum;
	int32		weighted;		/* 1: n row weights follow the labels */
	int32		reserved;		/* zero */
	GsuTrainOptions opt;
} GsuTrainWire;

#define GSU_TRAIN_MAGIC 0x47535533	/* "GSU3" */

/* copies n bytes to p and returns the end of the copy */
static char *
append_bytes(char *p, const void *src, Size n)
{
	memcpy(p, src, n);
	return p + n;
}

Datum
gsu_train_serialfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuTrainWire w;
	Size		total;
	bytea	   *out;
	char	   *p;

	memset(&w, 0, sizeof(w));
	w.magic = GSU_TRAIN_MAGIC;
	w.dim = st->dim;
	w.n = st->n;
	w.n_pos = st->n_pos;
	w.n_neg = st->n_neg;
	w.level = st->level;
	w.options_size = st->options ? VARSIZE(st->options) : 0;
	w.t0 = st->t0;
	w.loss_sum = st->loss_sum;
	w.weight_sum = st->weight_sum;
	w.weighted = st->wt != NULL && st->n > 0;
	w.opt = st->opt;

	/*
	 * One allocation of the exact size: a buffered state is the whole
	 * partition's rows, and growing a StringInfo by doubling would copy
	 * them several times over
	 */
	total = sizeof(w) + (Size) w.options_size;
	if (st->dim > 0 && st->opt.solver == GSU_SOLVER_SGD)
		total += sizeof(double) * (st->dim + 1);
	else if (st->dim > 0 && st->n > 0)
		total += sizeof(double) * st->n * ((Size) st->dim + 1 + (w.weighted ? 1 : 0) +
										   cov_doubles(st->level, st->dim));
	out = (bytea *) palloc_extended(VARHDRSZ + total, MCXT_ALLOC_HUGE);
	gsu_advise_huge_pages(out, VARHDRSZ + total);
	SET_VARSIZE(out, VARHDRSZ + total);
	p = VARDATA(out);
	p = append_bytes(p, &w, sizeof(w));
	if (st->options)
		p = append_bytes(p, st->options, VARSIZE(st->options));
	if (st->dim > 0)
	{
		if (st->opt.solver == GSU_SOLVER_SGD)
			p = append_bytes(p, st->theta, sizeof(double) * (st->dim + 1));
		else if (st->n > 0)
		{
			p = append_bytes(p, st->x, sizeof(double) * st->n * st->dim);
			p = append_bytes(p, st->y, sizeof(double) * st->n);
			if (w.weighted)
				p = append_bytes(p, st->wt, sizeof(double) * st->n);
			if (st->level != GSU_COV_NONE)
				p = append_bytes(p, st->cov, sizeof(double) * st->n * cov_doubles(st->level, st->dim));
		}
	}
	Assert(p == VARDATA(out) + total);
	PG_RETURN_BYTEA_P(out);
}

static void
check_finite_block(const double *p, Size count, bool nonneg, const char *what)
{
	Size		i;

	for (i = 0; i < count; i++)
		if (!isfinite(p[i]) || (nonneg && p[i] < 0.0))
			gsu_wire_error("gsu.train", what);
}

Datum
gsu_train_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	GsuTrainWire w;
	GsuTrainState *st;
	MemoryContext old;
	Size		expect,
				rows,
				per_cov;
	bool		sgd;
	int64		i,
				pos = 0;
	GsuModel   *init = NULL;
	Jsonb	   *options = NULL;

	if (len < sizeof(w))
		gsu_wire_error("gsu.train", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != GSU_TRAIN_MAGIC)
		gsu_wire_error("gsu.train", "bad magic number");
	if (w.dim < 0 || w.dim > GSU_MAX_DIM || w.n < 0 || w.n_pos < 0 || w.n_neg < 0 ||
		w.n_pos + w.n_neg != w.n || (w.dim == 0 && w.n != 0))
		gsu_wire_error("gsu.train", "bad counts");
	if (w.opt.loss < 0 || w.opt.loss > GSU_LOSS_MAX || w.opt.solver < 0 ||
		w.opt.solver > GSU_SOLVER_SGD || !(w.opt.lambda > 0.0) || !isfinite(w.opt.lambda) ||
		!(w.opt.tolerance > 0.0) || !(w.opt.smoothing > 0.0) ||
		!(w.opt.subspace_fraction > 0.0 && w.opt.subspace_fraction <= 1.0) ||
		w.opt.epochs < 1 || w.opt.batch_size < 1 || w.opt.max_iterations < 1 ||
		w.opt.class_weight < GSU_CLASS_WEIGHT_NONE ||
		w.opt.class_weight > GSU_CLASS_WEIGHT_EXPLICIT ||
		(w.opt.feature_bound != GSU_FEATURE_BOUND_MOMENTS &&
		 (w.opt.feature_bound != GSU_FEATURE_BOUND_WORST_CASE ||
		  w.opt.loss != GSU_LOSS_ROBUST || w.opt.map_kind == GSU_MAP_NONE)) ||
		!isfinite(w.loss_sum))
		gsu_wire_error("gsu.train", "bad options");
	if (w.reserved != 0 || (w.weighted != 0 && w.weighted != 1) ||
		(w.weighted && (w.opt.solver == GSU_SOLVER_SGD || w.n == 0)) ||
		!isfinite(w.weight_sum) || w.weight_sum < 0.0 ||
		(w.opt.solver == GSU_SOLVER_SGD ? (w.n > 0) != (w.weight_sum > 0.0) : w.weight_sum != 0.0))
		gsu_wire_error("gsu.train", "bad weights");
	if (w.level < GSU_COV_NONE || w.level > GSU_COV_FULL)
		gsu_wire_error("gsu.train", "bad covariance level");
	if (w.t0 < 0 || w.options_size < 0 || (Size) w.options_size > len - sizeof(w) ||
		(w.options_size > 0 && (w.options_size < (int32) VARHDRSZ ||
								(Size) w.options_size != VARSIZE(p))))
		gsu_wire_error("gsu.train", "bad options size");
	if (w.options_size > 0)
	{
		/* the options are parsed again: they are checked and give the init model */
		GsuTrainOptions again;

		options = palloc(w.options_size);
		memcpy(options, p, w.options_size);
		gsu_parse_train_options(options, &again, &init);
		if (memcmp(&again, &w.opt, sizeof(again)) != 0)
			gsu_wire_error("gsu.train", "options do not match");
		if (init && init->dim != w.dim)
			gsu_wire_error("gsu.train", "bad init model");
		p += w.options_size;
		len -= w.options_size;
	}
	sgd = w.opt.solver == GSU_SOLVER_SGD;
	per_cov = w.dim > 0 ? cov_doubles(w.level, w.dim) : 0;
	if (w.n > (int64) (MaxAllocHugeSize / sizeof(double) / ((Size) w.dim + 2 + per_cov)))
		gsu_wire_error("gsu.train", "too many rows");
	rows = (Size) w.n;
	if (w.dim == 0)
		expect = 0;
	else if (sgd)
		expect = sizeof(double) * ((Size) w.dim + 1);
	else
		expect = sizeof(double) * rows * ((Size) w.dim + 1 + per_cov + (Size) w.weighted);
	if (len - sizeof(w) != expect)
		gsu_wire_error("gsu.train", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = state_alloc(aggctx);
	st->opt = w.opt;
	st->t0 = w.t0;
	if (options)
	{
		/* parse again in the aggregate context, where the state lives */
		GsuTrainOptions again;

		st->options = palloc(VARSIZE(options));
		memcpy(st->options, options, VARSIZE(options));
		gsu_parse_train_options(st->options, &again, &st->init);
		st->cw = gsu_parse_class_weight(st->options);
	}
	if (w.dim > 0)
		state_set_dim(st, w.dim);
	st->n = w.n;
	st->n_pos = w.n_pos;
	st->n_neg = w.n_neg;
	st->loss_sum = w.loss_sum;
	st->weight_sum = w.weight_sum;
	if (sgd && w.dim > 0)
	{
		memcpy(st->theta, p, expect);
		check_finite_block(st->theta, w.dim + 1, false, "non-finite weights");
	}
	else if (rows > 0)
	{
		st->cap = w.n;
		st->x = alloc_rows(w.n, w.dim);
		memcpy(st->x, p, sizeof(double) * rows * w.dim);
		p += sizeof(double) * rows * w.dim;
		check_finite_block(st->x, rows * w.dim, false, "non-finite mean");
		st->y = alloc_rows(w.n, 1);
		memcpy(st->y, p, sizeof(double) * rows);
		p += sizeof(double) * rows;
		for (i = 0; i < w.n; i++)
		{
			if (st->y[i] == 1.0)
				pos++;
			else if (!(st->y[i] >= PG_INT32_MIN && st->y[i] <= PG_INT32_MAX &&
					   st->y[i] == floor(st->y[i])))
				gsu_wire_error("gsu.train", "bad label");
		}
		if (pos != w.n_pos)
			gsu_wire_error("gsu.train", "label counts do not match");
		if (w.weighted)
		{
			st->wt = alloc_rows(w.n, 1);
			memcpy(st->wt, p, sizeof(double) * rows);
			p += sizeof(double) * rows;
			for (i = 0; i < w.n; i++)
				if (!(st->wt[i] > 0.0) || !isfinite(st->wt[i]))
					gsu_wire_error("gsu.train", "bad row weight");
		}
		st->level = w.level;
		if (w.level != GSU_COV_NONE)
		{
			st->cov = alloc_rows(w.n, per_cov);
			memcpy(st->cov, p, sizeof(double) * rows * per_cov);
			/* variances are non-negative; full matrices were checked when stored */
			check_finite_block(st->cov, rows * per_cov, w.level != GSU_COV_FULL,
							   "bad covariance");
		}
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------- final */

/*
 * A core status of the training path as an error: divergence with advice on
 * what to change, everything else as every other caller reports it.
 */
static void
report_core_error(gsu_status s)
{
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("gsu.train diverged: the objective or the iterate is out of range "
						"for type double precision"),
				 errhint("Rescale the features, raise \"lambda\", or start without \"init\".")));
	gsu_report_status(s, "gsu.train");
}

/*
 * The distinct labels of the buffered rows, ascending, into classes (room
 * for GSU_MAX_CLASSES); returns their number.
 */
static int
collect_classes(const GsuTrainState *st, double *classes)
{
	int			k = 0;
	int64		i;

	for (i = 0; i < st->n; i++)
	{
		double		y = st->y[i];
		int			lo = 0,
					hi = k;

		/* the rows usually repeat the last label found: test it first */
		if (k > 0 && (classes[k - 1] == y || classes[0] == y))
			continue;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (classes[mid] < y)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < k && classes[lo] == y)
			continue;
		if (k == GSU_MAX_CLASSES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("training data has more than %d classes", GSU_MAX_CLASSES)));
		memmove(classes + lo + 1, classes + lo, sizeof(double) * (k - lo));
		classes[lo] = y;
		k++;
	}
	return k;
}

/* The "init" model of a buffered solver must have the training data's classes. */
static void
check_init_classes(const GsuModel *init, const double *classes, int k)
{
	if (init->nclasses != k ||
		memcmp(GSU_MODEL_CLASSES(init), classes, sizeof(double) * k) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the \"init\" model has other classes than the training rows"),
				 errdetail("The init model has %d classes, the rows %d.", init->nclasses, k)));
	if (init->map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an \"init\" model with a feature map cannot warm-start gsu.train")));
}

/* The index of label y in classes[0..k−1] (ascending), or −1. */
static int
class_index(const double *classes, int k, double y)
{
	int			lo = 0,
				hi = k;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (classes[mid] < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < k && classes[lo] == y) ? lo : -1;
}

/*
 * Sets the model's class weights (GSU_MODEL_CLASS_WEIGHT, one per class of
 * m's classes) from the option: "balanced" gives class c the weight
 * n / (K·n_c), K the number of classes and n_c the rows of class c
 * (scikit-learn's definition: every class then weighs n/K in all, and
 * Σ_i c_i = n); explicit weights must name labels the rows have, and the
 * classes they leave out weigh 1.
 */
static void
set_class_weights(const GsuTrainState *st, GsuModel *m)
{
	const double *classes = GSU_MODEL_CLASSES(m);
	double	   *cw = GSU_MODEL_CLASS_WEIGHT(m);
	int			k;

	if (st->opt.class_weight == GSU_CLASS_WEIGHT_BALANCED)
	{
		int64	   *count = palloc0(sizeof(int64) * m->nclasses);
		int64		i;

		/* only buffered solvers: the sgd solver rejects "balanced" */
		for (i = 0; i < st->n; i++)
			count[class_index(classes, m->nclasses, st->y[i])]++;
		for (k = 0; k < m->nclasses; k++)
			cw[k] = (double) st->n / ((double) m->nclasses * (double) count[k]);
		pfree(count);
		return;
	}
	if (st->cw == NULL)
		return;
	for (k = 0; k < st->cw->n; k++)
		if (class_index(classes, m->nclasses, (double) st->cw->label[k]) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight names label %d, which no training row has",
							st->cw->label[k])));
	for (k = 0; k < m->nclasses; k++)
		cw[k] = gsu_class_weight_of(st->cw, (int32) classes[k]);
}

/*
 * c_i = the row's weight × its class's weight, the same in every
 * one-vs-rest problem (a row keeps its weight whichever side it is on); NULL
 * when every c_i is 1 (the unweighted problem, computed exactly as before
 * weights existed).
 *
 * Only the ratios of the c_i matter, so they are scaled by a power of two
 * (exact in binary) that brings the largest into [1/4, 1): then c_i < 1
 * and 1/4 ≤ Σ c_i < n whatever the weights' magnitude, denormal ones
 * included, with no overflow or underflow in the products or the sums.
 */
static double *
row_weights(const GsuTrainState *st, const GsuModel *m)
{
	const double *classes = GSU_MODEL_CLASSES(m);
	const double *cw = GSU_MODEL_CLASS_WEIGHT(m);
	bool		ones = st->wt == NULL;
	double	   *c,
			   *ex,
				e_max = -HUGE_VAL;
	int64		i;
	int			k;

	for (k = 0; k < m->nclasses && ones; k++)
		ones = cw[k] == 1.0;
	if (ones)
		return NULL;
	/*
	 * c_i = m_i·2^(e_i − E), with m_i·2^e_i the product of the two weights'
	 * mantissas and exponents and E the largest e_i: the largest c_i is in
	 * [1/4, 1), whatever the magnitudes (a factor 2^−E itself would not be
	 * a double for a denormal weight such as 5e-324, where E = −1073).
	 */
	c = alloc_rows(st->n, 1);
	ex = alloc_rows(st->n, 1);
	for (i = 0; i < st->n; i++)
	{
		int			e1,
					e2;

		c[i] = frexp(st->wt ? st->wt[i] : 1.0, &e1) *
			frexp(cw[class_index(classes, m->nclasses, st->y[i])], &e2);
		ex[i] = (double) e1 + e2;
		e_max = Max(e_max, ex[i]);
	}
	for (i = 0; i < st->n; i++)
		c[i] = ldexp(c[i], (int) (ex[i] - e_max));
	pfree(ex);
	return c;
}

/*
 * The robust loss with feature_bound "worst_case": rows φ(x_i), and each
 * row's term the exact worst case over its box (gsu_featmap_row_term),
 * trained by the robust Pegasos.
 */
static gsu_status
solve_worst_case(const GsuTrainState *st, const gsu_dataset *ds, const gsu_solve_options *o,
				 double *theta, gsu_solve_result *res)
{
	gsu_robust_data rd;
	gsu_featmap_rows rows;
	gsu_status	s;

	rows.f = st->fmap;
	rows.x = st->fmap_x;
	rows.box = st->fbox;
	rows.work = palloc(sizeof(double) * gsu_featmap_box_work_size(st->fmap));
	memset(&rd, 0, sizeof(rd));
	rd.n = st->n;
	rd.d = st->dim;
	rd.x = ds->x;
	rd.y = ds->y;
	rd.weight = ds->weight;
	rd.loss = GSU_RLOSS_ROBUST;
	rd.gamma = st->opt.gamma;
	rd.q = st->opt.robust_q;
	rd.row_term = gsu_featmap_row_term;
	rd.row_term_arg = &rows;
	s = gsu_robust_solve_pegasos(&rd, o, theta, res);
	pfree(rows.work);
	/*
	 * ρ_i(0) = 0, so the zero model has objective 1 (weighted mean of
	 * h(1)): above it the subgradient steps did not settle.  Nyström
	 * boxes weigh the coefficients g = proj·w, which the Λ^{−1/2} of
	 * small eigenvalues makes steep in w.
	 */
	if (s == GSU_OK && res->objective > 1.0)
		ereport(WARNING,
				(errmsg("gsu.train with feature_bound \"worst_case\" ended above the objective of the zero model"),
				 errdetail("The objective is %g; the zero model's is 1.", res->objective),
				 errhint("Raise \"lambda\" or \"epochs\", or use fewer Nystroem landmarks.")));
	return s;
}

/*
 * A WARNING for a degenerate solution of the tsvc or robust loss
 * (settle_degenerate in core/gsu_robust_solve.c): the zero model, or TSVC's norm
 * bound left inactive.  gsu.describe reports both from the weights.
 */
static void
warn_degenerate(const GsuTrainState *st, const gsu_robust_data *rd, const double *theta,
				int kind)
{
	bool		tsvc = rd->loss == GSU_RLOSS_TSVC;
	const char *sigma = st->opt.map_kind != GSU_MAP_NONE ?
		" With a feature map, a larger \"sigma\" also shrinks the feature-space uncertainty." : "";

	if (kind == GSU_DEGENERATE_ZERO && tsvc)
	{
		int64		free_rows = 0,
					i;

		for (i = 0; i < rd->n; i++)
			if (rd->gamma * rd->delta[i] >= 1.0)
				free_rows++;
		ereport(WARNING,
				(errmsg("gsu.train with loss \"tsvc\" returned the zero model, which predicts one class for every row"),
				 errdetail("The relaxation shifts row i's margin by gamma*delta_i; with gamma %g that "
						   "shift reaches the margin 1 for " INT64_FORMAT " of " INT64_FORMAT
						   " rows, and no hyperplane has a lower objective than w = 0.",
						   rd->gamma, free_rows, rd->n),
				 errhint("Use a smaller \"gamma\" or \"delta_scale\" (gamma*delta_i well below 1), "
						 "or \"tsvc_algorithm\": \"alternating\".%s", sigma)));
	}
	else if (kind == GSU_DEGENERATE_ZERO)
		ereport(WARNING,
				(errmsg("gsu.train with loss \"robust\" returned the zero model, which predicts one class for every row"),
				 errdetail("With gamma %g the worst case over each row's uncertainty set costs more "
						   "than any hyperplane gains, so no hyperplane has a lower objective than w = 0.",
						   rd->gamma),
				 errhint("%s%s", st->opt.bound == GSU_BOUND_CHEBYSHEV ?
						 "Use a lower \"confidence\", or \"bound\": \"gaussian\" when the rows are Gaussian." :
						 st->opt.bound == GSU_BOUND_GAUSSIAN ? "Use a lower \"confidence\"." :
						 "Use a smaller \"gamma\".", sigma)));
	else
	{
		double		ww = 0.0;
		int			j;

		for (j = 0; j < rd->d; j++)
			ww += theta[j] * theta[j];
		ereport(WARNING,
				(errmsg("gsu.train with loss \"tsvc\" ended with the norm bound inactive: ||w|| = %.4g is below gamma = %g",
						sqrt(ww), rd->gamma),
				 errdetail("The relaxation shifts row i's margin by gamma*delta_i, more than the "
						   "delta_i*||w|| its radius allows, so the model is not a TSVC solution."),
				 errhint("Use a \"gamma\" of about ||w|| or below, or \"tsvc_algorithm\": \"alternating\".%s",
						 sigma)));
	}
}

/*
 * The losses tsvc and robust on the buffered rows (gsu_robust.h).  TSVC
 * takes each row's radius δ_i = delta_scale·√(mean variance); the robust
 * loss takes the shapes A_i = Σ_i^{1/2}, computed into a copy (the state
 * is left as it is).  ds gives the rows and their ±1 labels for this
 * binary problem.
 */
static gsu_status
solve_robust(const GsuTrainState *st, const gsu_dataset *ds, const gsu_solve_options *o,
			 double *theta, gsu_solve_result *res)
{
	gsu_robust_data rd;
	const char *loss = st->opt.loss == GSU_LOSS_TSVC ? "tsvc" : "robust";
	Size		per = cov_doubles(st->level, st->dim);
	double	   *buf = NULL;
	int64		i;
	Size		j;
	gsu_status	s;

	if (st->fbox)
		return solve_worst_case(st, ds, o, theta, res);
	if (st->level == GSU_COV_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" needs variances, but every row's variance is NULL or zero", loss),
				 errhint("Without uncertainty the loss is the hinge loss: use '{\"loss\": \"hinge\"}'.")));
	memset(&rd, 0, sizeof(rd));
	rd.n = st->n;
	rd.d = st->dim;
	rd.x = ds->x;
	rd.y = ds->y;
	rd.weight = ds->weight;
	rd.gamma = st->opt.gamma;
	rd.q = st->opt.robust_q;
	if (st->opt.loss == GSU_LOSS_TSVC)
	{
		double	   *delta = palloc_extended(sizeof(double) * (Size) st->n, MCXT_ALLOC_HUGE);

		rd.loss = GSU_RLOSS_TSVC;
		for (i = 0; i < st->n; i++)
		{
			GsuRowCov	rc = stored_cov(st, i);

			delta[i] = gsu_tsvc_radius(st->dim, rc.kind == GSU_COV_DIAG ? rc.data : NULL,
									   rc.iso, rc.kind == GSU_COV_FULL ? rc.data : NULL,
									   st->opt.delta_scale);
		}
		rd.delta = delta;
		buf = delta;
	}
	else
	{
		rd.loss = GSU_RLOSS_ROBUST;
		buf = palloc_extended(sizeof(double) * (Size) st->n * per, MCXT_ALLOC_HUGE);
		memcpy(buf, st->cov, sizeof(double) * (Size) st->n * per);
		if (st->level == GSU_COV_FULL)
		{
			for (i = 0; i < st->n; i++)
			{
				if ((i & 255) == 0)
					CHECK_FOR_INTERRUPTS();
				s = gsu_sqrtm_psd(st->dim, buf + (Size) i * per);
				if (s != GSU_OK)
				{
					pfree(buf);
					return s;
				}
			}
			rd.a_full = buf;
		}
		else
		{
			for (j = 0; j < (Size) st->n * per; j++)
				buf[j] = sqrt(buf[j]);
			if (st->level == GSU_COV_DIAG)
				rd.a_diag = buf;
			else
				rd.a_iso = buf;
		}
	}
	if (rd.loss == GSU_RLOSS_TSVC && st->opt.tsvc_algorithm == GSU_TSVC_ALTERNATING)
		s = gsu_tsvc_solve_alternating(&rd, o, theta, res);
	else if (st->opt.solver == GSU_SOLVER_PEGASOS)
		s = gsu_robust_solve_pegasos(&rd, o, theta, res);
	else
		s = gsu_robust_solve_batch(&rd, o, theta, res);
	if (s == GSU_OK && res->degenerate != GSU_DEGENERATE_NONE)
		warn_degenerate(st, &rd, theta, res->degenerate);
	pfree(buf);
	return s;
}

/* Solves one binary problem (labels ±1 in ds->y) into theta; adds its statistics to m. */
static void
solve_binary(GsuTrainState *st, const gsu_dataset *ds, GsuModel *m, double *theta,
			 bool warm, int64 t0)
{
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_status	s;

	gsu_solve_options_default(&o);
	o.lambda = st->opt.lambda;
	o.tolerance = st->opt.tolerance;
	o.smoothing = st->opt.smoothing;
	o.max_iterations = st->opt.max_iterations;
	o.epochs = st->opt.epochs;
	o.batch_size = st->opt.batch_size;
	o.seed = st->opt.seed;
	o.progress = gsu_interrupt_pending;
	o.progress_arg = NULL;
	o.warm_start = warm;
	o.t0 = t0;
	if (st->opt.loss == GSU_LOSS_TSVC || st->opt.loss == GSU_LOSS_ROBUST)
		s = solve_robust(st, ds, &o, theta, &res);
	else if (st->opt.solver == GSU_SOLVER_NEWTON)
		s = gsu_solve_newton(ds, &o, theta, &res);
	else
		s = gsu_solve_pegasos(ds, &o, theta, &res);
	report_core_error(s);
	m->objective += res.objective;
	m->gradient_norm = Max(m->gradient_norm, res.gradient_norm);
	m->gap_estimate += res.gap_estimate;
	m->iterations += res.iterations;
	m->passes += res.passes;
	if (!res.converged)
		m->flags &= ~GSU_MODEL_CONVERGED;
	if (st->opt.solver == GSU_SOLVER_NEWTON && !res.converged)
		ereport(WARNING,
				(errmsg("gsu.train did not reach the tolerance %g in %d iterations",
						o.tolerance, o.max_iterations),
				 errdetail("The gradient norm is %g, %g of its value at zero.",
						   res.gradient_norm, res.gradient_norm / res.gradient_norm0),
				 errhint("Raise \"max_iterations\" or \"smoothing\", or standardize the features.")));
}

/*
 * Two classes: one problem, the second class positive.  More: one-vs-rest,
 * one problem per class (its rows +1, the others −1).
 */
static void
train_buffered(GsuTrainState *st, GsuModel *m)
{
	gsu_dataset ds;
	double	   *yk = NULL;
	int			k,
				nvec = GSU_MODEL_NVEC(m);
	const double *classes = GSU_MODEL_CLASSES(m);
	bool		plain = m->nclasses == 2 && classes[0] == -1.0 && classes[1] == 1.0;

	ds.n = st->n;
	ds.d = st->dim;
	ds.x = st->x;
	ds.y = st->y;
	ds.s = st->level == GSU_COV_ISO ? st->cov : NULL;
	ds.v = st->level == GSU_COV_DIAG ? st->cov : NULL;
	ds.c = st->level == GSU_COV_FULL ? st->cov : NULL;
	ds.weight = row_weights(st, m);
	if (!plain)
		yk = palloc_extended(sizeof(double) * st->n, MCXT_ALLOC_HUGE);
	m->flags |= GSU_MODEL_CONVERGED;
	for (k = 0; k < nvec; k++)
	{
		double	   *theta = GSU_MODEL_THETA(m, k);
		double		pos = classes[m->nclasses == 2 ? 1 : k];
		int64		i;

		CHECK_FOR_INTERRUPTS();
		if (yk)
		{
			for (i = 0; i < st->n; i++)
				yk[i] = st->y[i] == pos ? 1.0 : -1.0;
			ds.y = yk;
		}
		if (st->init)
			memcpy(theta, GSU_MODEL_THETA(st->init, k), sizeof(double) * (st->dim + 1));
		solve_binary(st, &ds, m, theta, st->init != NULL, st->init ? st->init->iterations : 0);
	}
	if (yk)
		pfree(yk);
	if (ds.weight)
		pfree((double *) ds.weight);
}

/* ------------------------------------------------ training memory */

/*
 * Bytes the batch solvers allocate for n rows of dimension d with cov_per
 * covariance doubles a row: per-row vectors (objective terms, class
 * weights, labels), per-weight vectors (Newton, L-BFGS), the robust loss's
 * copy of the covariances, TSVC's radii and shifted rows, and the hinge
 * polish's support rows and system (a linear SVM in general position has
 * at most d + 1 rows on the margin, and the polish stops at 3000).
 */
static double
solver_bytes(const GsuTrainState *st, int64 n, int d, Size cov_per, bool worst)
{
	double		nd = (double) n,
				dd = (double) d,
				b = 10.0 * nd + 40.0 * (dd + 1.0);

	if (st->opt.loss == GSU_LOSS_ROBUST && !worst)
		b += nd * (double) cov_per;
	if (st->opt.loss == GSU_LOSS_TSVC)
		b += nd + nd * dd;
	if (st->opt.loss == GSU_LOSS_HINGE)
	{
		double		sv = Min(Min(nd, dd + 2.0), 3000.0);

		b += sv * dd + (sv + 1.0) * (sv + 1.0);
	}
	return b * sizeof(double);
}

/*
 * The peak bytes of the final function's training path, from sizes known
 * before anything is allocated, checked against gsu.max_training_memory:
 * the row store (held already) plus, without a feature map (D = 0), the
 * solver's buffers; with one of D features and a matrix block of
 * block_len doubles, the larger of the map's construction (the block and
 * the Nyström kernel matrix with LAPACK's scratch) and the training on the
 * mapped rows (the block, the model's copy of it, the mapped rows with
 * their moments or boxes, the mapping scratch, the solver's buffers).
 * Called with upper bounds before the map is built and again with its real
 * sizes after.
 */
static void
check_training_memory(const GsuTrainState *st, int D, int64 block_len)
{
	double		limit = (double) gsu_max_training_memory_kb * 1024.0;
	double		n = (double) st->n;
	double		need = (double) st->cap * row_doubles(st, st->level, st->wt != NULL) * sizeof(double);
	const char *detail;

	if (D == 0)
	{
		need += solver_bytes(st, st->n, st->dim, cov_doubles(st->level, st->dim), false);
		detail = psprintf("Training on " INT64_FORMAT " rows of dimension %d", st->n, st->dim);
	}
	else
	{
		const GsuTrainOptions *o = &st->opt;
		bool		worst = o->feature_bound == GSU_FEATURE_BOUND_WORST_CASE;
		bool		moments = !worst && o->loss != GSU_LOSS_HINGE && st->level != GSU_COV_NONE;
		bool		full = moments && o->map_full_cov;
		gsu_featmap f;
		double		block = (double) block_len * sizeof(double),
					build,
					work,
					per_row,
					train;

		memset(&f, 0, sizeof(f));
		f.kind = o->map_kind;
		f.p = st->dim;
		f.dim = D;
		f.landmarks = o->map_kind == GSU_MAP_NYSTROEM ? o->map_landmarks : 0;
		build = o->map_kind == GSU_MAP_NYSTROEM ?
			(double) gsu_nystroem_build_bytes(st->n, o->map_landmarks) : 0.0;
		work = (double) (full ? gsu_featmap_cov_work_size(&f) :
						 moments ? gsu_featmap_work_size(&f) : gsu_featmap_apply_work_size(&f));
		if (worst)
			work += (double) gsu_featmap_box_work_size(&f);
		per_row = (double) D * (moments ? (full ? (double) D + 1.0 : 2.0) : 1.0) +
			(worst ? (double) gsu_featmap_box_len(&f) : 0.0);
		train = 2.0 * block + (n * per_row + work) * sizeof(double) +
			solver_bytes(st, st->n, D, moments ? (full ? (Size) D * D : (Size) D) : 0, worst);
		need += Max(block + build, train);
		detail = psprintf("Training on " INT64_FORMAT " rows mapped to %d features", st->n, D);
	}
	if (need > limit)
		training_memory_error(need >= (double) MaxAllocHugeSize ? MaxAllocHugeSize : (Size) need,
							  detail, D == 0 ? STREAMING_HINT :
							  "Raise gsu.max_training_memory, or use fewer features or landmarks.");
}

/* ------------------------------------------------------ feature maps */

/*
 * The map of option "features" for the buffered rows: RFF frequencies from
 * the seed, or Nyström landmarks drawn from the rows' means and the
 * projection of their kernel matrix.  Returns the map's matrix block
 * (gsu_featmap_length doubles, *len) and sets *dim to the mapped dimension.
 */
static double *
build_feature_map(const GsuTrainState *st, int *dim, int64 *len)
{
	const GsuTrainOptions *o = &st->opt;
	double	   *block;
	gsu_status	s;

	if (o->map_kind == GSU_MAP_RFF)
	{
		*dim = o->map_dim;
		*len = gsu_featmap_length(GSU_MAP_RFF, o->map_dim, st->dim, 0);
		if (*len < 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("feature map \"rff\" with %d features of dimension %d is too large",
							o->map_dim, st->dim)));
		block = palloc_extended(sizeof(double) * (Size) Max(*len, 1), MCXT_ALLOC_HUGE);
		s = gsu_rff_build(st->dim, o->map_dim, o->map_sigma, o->map_seed, block);
		gsu_report_status(s, "the random Fourier feature map");
		return block;
	}
	else
	{
		int			m = o->map_landmarks,
					r = 0;
		gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);

		if ((int64) m > st->n)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" asks for %d landmarks, but there are only "
							INT64_FORMAT " training rows", m, st->n),
					 errhint("Lower \"landmarks\" to at most the number of rows.")));
		if (gsu_featmap_length(GSU_MAP_NYSTROEM, m, st->dim, m) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("feature map \"nystroem\" with %d landmarks of dimension %d is too large",
							m, st->dim)));
		block = palloc_extended(sizeof(double) * ((Size) m * st->dim + (Size) m * m),
								MCXT_ALLOC_HUGE);
		s = gsu_nystroem_build(st->n, st->dim, st->x, m, o->map_sigma, o->map_seed,
							   block, block + (Size) m * st->dim, &r, &pg);
		if (s == GSU_ECANCELLED || s == GSU_ENOMEM)
			gsu_report_status(s, "the Nystroem feature map");
		if (s != GSU_OK)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("the Nystroem kernel matrix of %d landmarks could not be decomposed: %s",
							m, gsu_status_string(s))));
		*dim = r;
		*len = gsu_featmap_length(GSU_MAP_NYSTROEM, r, st->dim, m);
		return block;
	}
}

/*
 * The training rows in feature space, written to *xo (n × D) and, for the
 * GSU, tsvc and robust losses, *vo: the exact moments E φ(z_i) and diag Cov φ(z_i) (n × D) of
 * z_i ~ N(x_i, Σ_i) (gsu_featmap_moments), or with "covariance": "full" the
 * whole Cov φ(z_i) (n × D × D); the hinge loss ignores Σ and takes φ(x_i).  NOTICEs when σ is below the rows' uncertainty radius.
 */
static void
map_training_rows(const GsuTrainState *st, const gsu_featmap *f, double **xo, double **vo)
{
	int			D = f->dim;
	/*
	 * tsvc and robust take the same feature-space moments: the robust loss
	 * then bounds w'φ(z) over the ellipsoid of Cov φ(z) (with the Chebyshev
	 * confidence, a distribution-free chance constraint in feature space),
	 * and tsvc's radius comes from the feature variances
	 */
	bool		worst = st->opt.feature_bound == GSU_FEATURE_BOUND_WORST_CASE;
	bool		moments = !worst && st->opt.loss != GSU_LOSS_HINGE && st->level != GSU_COV_NONE;
	bool		full = moments && st->opt.map_full_cov;
	Size		boxlen = worst ? gsu_featmap_box_len(f) : 0;
	double	   *work = palloc(sizeof(double) * Max(1, full ? gsu_featmap_cov_work_size(f) :
												  moments ? gsu_featmap_work_size(f) :
												  gsu_featmap_apply_work_size(f)));
	double	   *bwork = worst ? palloc(sizeof(double) * gsu_featmap_box_work_size(f)) : NULL;
	int64		wide = 0;
	double		widest = 0.0;
	int64		i;
	/* one Nyström row's moments may take seconds: they check for a cancel inside */
	gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);

	/* sizes checked by check_training_memory before the map was built */
	if (worst && st->level == GSU_COV_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"robust\" needs variances, but every row's variance is NULL or zero"),
				 errhint("Without uncertainty the loss is the hinge loss: use '{\"loss\": \"hinge\"}'.")));
	*xo = alloc_rows(st->n, D);
	*vo = moments ? alloc_rows(st->n, full ? (Size) D * D : (Size) D) :
		worst ? alloc_rows(st->n, boxlen) : NULL;
	for (i = 0; i < st->n; i++)
	{
		const double *x = st->x + i * st->dim;

		CHECK_FOR_INTERRUPTS();	/* a Nystroem row's moments take O(m^2 p) */
		if (!moments)
			gsu_featmap_apply(f, x, *xo + i * D, work);
		if (worst || moments)
		{
			GsuRowCov	rc = stored_cov(st, i);
			const double *var = rc.kind == GSU_COV_DIAG ? rc.data : NULL;
			const double *cov = rc.kind == GSU_COV_FULL ? rc.data : NULL;
			double		rho;
			gsu_status	s;

			if (worst)
				/* p of the input set is the dual of the loss's q */
				s = gsu_featmap_row_box(f, x, var, rc.iso, cov, st->opt.gamma,
										gsu_dual_exponent(st->opt.robust_q), *vo + i * boxlen,
										bwork);
			else if (full)
				s = gsu_featmap_covariance(f, x, var, rc.iso, cov, *xo + i * D,
										   *vo + i * D * D, work, &pg);
			else
				s = gsu_featmap_moments(f, x, var, rc.iso, cov, *xo + i * D, *vo + i * D, work,
										&pg);
			report_core_error(s);
			/* one standard deviation along Σ_i's widest axis */
			rho = gsu_uncertainty_radius(st->dim, var, rc.iso, cov, 1.0, 2);
			if (rho > f->sigma)
			{
				wide++;
				widest = Max(widest, rho);
			}
		}
	}
	pfree(work);
	if (bwork)
		pfree(bwork);
	if (wide > 0)
		ereport(NOTICE,
				(errmsg("feature map \"sigma\" %g is below the input standard deviation of "
						INT64_FORMAT " of " INT64_FORMAT " rows (largest %g)",
						f->sigma, wide, st->n, widest),
				 errdetail("Where the input uncertainty reaches the kernel width, the mapped "
						   "features of a row average out towards zero and the feature-space "
						   "uncertainty bounds are no longer tight (Couellan & Jan, Sect. 5)."),
				 errhint("Use a larger \"sigma\", or rescale the features.")));
}

/*
 * Training with option "features": the map is built, the buffered rows are
 * replaced by their images (map_training_rows), and the linear problem is
 * solved in feature space.  The model's dim is the mapped dimension, its
 * input_dim that of the rows, and the map's matrices follow its weights.
 */
static GsuModel *
train_mapped(GsuTrainState *st, const double *classes, int k)
{
	GsuTrainState mapped;
	GsuModel   *m;
	gsu_featmap f;
	double	   *block,
			   *fx,
			   *fv;
	int			dim;
	int64		len;

	/* refuse before allocating, from the upper bounds D = "dim" or m */
	if (st->opt.map_kind == GSU_MAP_RFF)
		check_training_memory(st, Max(st->opt.map_dim, 1),
							  (int64) (st->opt.map_dim / 2) * st->dim);
	else
		check_training_memory(st, Max(st->opt.map_landmarks, 1),
							  (int64) st->opt.map_landmarks * st->dim +
							  (int64) st->opt.map_landmarks * st->opt.map_landmarks);
	block = build_feature_map(st, &dim, &len);
	check_training_memory(st, dim, len);
	gsu_featmap_bind(&f, st->opt.map_kind, st->dim, dim, st->opt.map_landmarks,
					 st->opt.map_sigma, block);
	map_training_rows(st, &f, &fx, &fv);
	m = gsu_model_from_options(dim, k, (int) len, &st->opt);
	m->input_dim = st->dim;
	memcpy(GSU_MODEL_CLASSES(m), classes, sizeof(double) * k);
	set_class_weights(st, m);
	memcpy(GSU_MODEL_MAP(m), block, sizeof(double) * len);
	/*
	 * Solve on a shallow copy of the state whose buffers are the mapped rows
	 * (with a diagonal covariance or none): the final function must leave
	 * the state as it found it, since PostgreSQL may finalize it again.
	 */
	mapped = *st;
	mapped.x = fx;
	mapped.dim = dim;
	if (st->opt.feature_bound == GSU_FEATURE_BOUND_WORST_CASE)
	{
		/* φ(x_i) without covariance; the boxes go to solve_worst_case */
		mapped.cov = NULL;
		mapped.level = GSU_COV_NONE;
		mapped.fmap = &f;
		mapped.fmap_x = st->x;
		mapped.fbox = fv;
	}
	else
	{
		mapped.cov = fv;
		mapped.level = fv == NULL ? GSU_COV_NONE : st->opt.map_full_cov ? GSU_COV_FULL : GSU_COV_DIAG;
	}
	train_buffered(&mapped, m);
	pfree(block);				/* f points into it */
	pfree(fx);
	if (fv)
		pfree(fv);
	return m;
}

Datum
gsu_train_finalfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuModel   *m;
	struct timespec t0,
				t1;

	(void) gsu_agg_context(fcinfo, "gsu_train_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		double		ww = 0.0;
		int			j;

		gsu_check_two_classes(st->n, st->n_pos, "training");
		m = gsu_model_from_options(st->dim, 2, 0, &st->opt);
		set_class_weights(st, m);	/* applied in the steps already */
		memcpy(GSU_MODEL_THETA(m, 0), st->theta, sizeof(double) * (st->dim + 1));
		for (j = 0; j < st->dim; j++)
			ww += st->theta[j] * st->theta[j];
		/* progressive objective: each row's loss before its own step */
		m->objective = 0.5 * st->opt.lambda * ww + st->loss_sum / st->weight_sum;
		m->iterations = st->t0 + st->n;
		m->passes = 1;
	}
	else
	{
		double	   *classes = palloc(sizeof(double) * GSU_MAX_CLASSES);
		int			k = collect_classes(st, classes);

		if (k < 2)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("training data has only one class: every one of the " INT64_FORMAT
							" rows has label %d", st->n, (int) classes[0]),
					 errdetail("A classifier needs rows of at least two labels.")));
		if (st->init)
			check_init_classes(st->init, classes, k);
		if (st->opt.map_kind == GSU_MAP_NONE)
		{
			m = gsu_model_from_options(st->dim, k, 0, &st->opt);
			memcpy(GSU_MODEL_CLASSES(m), classes, sizeof(double) * k);
			set_class_weights(st, m);
			check_training_memory(st, 0, 0);
			train_buffered(st, m);
		}
		else
			m = train_mapped(st, classes, k);
	}
	m->rows = st->n;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
	gsu_check_trained_model(m, "gsu.train");
	gsu_model_validate(m, ERRCODE_INTERNAL_ERROR);
	PG_RETURN_GSU_MODEL(m);
}
