/*
 * gsu_options.h — the training options of gsu.train, gsu.fit and
 * gsu.train_sgd (a jsonb object in SQL), described once.
 *
 * Every option is a row of one table (gsu_options.c): its name, type, field
 * in GsuTrainOptions, range, and the losses it applies to.  From the table
 * come the key check and its "Valid keys" hint, the range checks of the
 * options, of a model's stored hyperparameters (text, binary) and of a
 * serialized training state, the defaults a model's text falls back to, and
 * the model's "hyperparameters" JSON, read and written.  The options a
 * trained model keeps are declared once more, one line each, in
 * GSU_STORED_OPTIONS below, from which their fields here, their defaults,
 * the model's copy of them, the copy into the core's options and the
 * options of gsu.fit's sample come.  docs/architecture.md ("An option")
 * lists what a new option needs.
 *
 * The options are a leaf of the glue: they know the kit (gsu_json.h) and the
 * core, never gsu.model.  The model's side of the options (a model's
 * hyperparameters, gsu_model_hyper.h; the "init" model, gsu_model_text.h)
 * stands above them.
 */
#ifndef GSU_OPTIONS_H
#define GSU_OPTIONS_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "gsu_glue.h"
#include "gsu_json.h"
#include "core/gsu_binary.h"

/*
 * The stored options: the options a trained model keeps, one line each
 * (their order is free: a model's text lists them in the table's order, its
 * binary form in GsuModel's).  X(field, type, model_type, key, core,
 * core_field, sample, default):
 *
 *   field       the name of its field in GsuTrainOptions and in GsuModel
 *               (gsu_model_layout.h, whose GSU_MODEL_HEADER places it in
 *               the value's bytes)
 *   type        the field's C type in GsuTrainOptions
 *   model_type  ... and in GsuModel (a choice is stored in a byte)
 *   key         HYPER: a key of the model's "hyperparameters", read, checked
 *               and written from the option's row of the table
 *               (gsu_model_hyper.c); OWN: a key of its own (the model's
 *               "loss"; the hyperparameter "q", from the option "norm")
 *   core        what of the core reads it: SOLVE (gsu_solve_options), PROBLEM
 *               (gsu_binary_problem), GLUE (the glue applies it itself)
 *   core_field  its field there (gsu_options_to_core); - for GLUE
 *   sample      SAMPLE: gsu.fit's sample (a gsu.train) takes the problem's
 *               value (gsu_options_append_sample); NOSAMPLE: gsu.train's
 *               default for the sample's loss
 *   default     its value without options (gsu_options_default), before the
 *               loss's own defaults (gsu_options_loss_defaults);
 *               GSU_CORE_DEFAULT(f): the core's (gsu_solve_options_default)
 */
#define GSU_STORED_OPTIONS(X) \
	X(loss,              int32,  uint8,  OWN,   PROBLEM, loss,           SAMPLE,   GSU_LOSS_GSU) \
	X(lambda,            double, double, HYPER, SOLVE,   lambda,         SAMPLE,   GSU_CORE_DEFAULT(lambda)) \
	X(solver,            int32,  uint8,  HYPER, PROBLEM, solver,         NOSAMPLE, GSU_SOLVER_NEWTON) \
	X(tolerance,         double, double, HYPER, SOLVE,   tolerance,      SAMPLE,   GSU_CORE_DEFAULT(tolerance)) \
	X(smoothing,         double, double, HYPER, SOLVE,   smoothing,      SAMPLE,   GSU_CORE_DEFAULT(smoothing)) \
	X(subspace_fraction, double, double, HYPER, GLUE,    -,              SAMPLE,   1.0) \
	X(subspace_mode,     int32,  uint8,  HYPER, GLUE,    -,              SAMPLE,   GSU_SUBSPACE_COVARIANCE) \
	X(max_iterations,    int32,  int32,  HYPER, SOLVE,   max_iterations, NOSAMPLE, GSU_CORE_DEFAULT(max_iterations)) \
	X(epochs,            int32,  int32,  HYPER, SOLVE,   epochs,         NOSAMPLE, GSU_CORE_DEFAULT(epochs)) \
	X(batch_size,        int32,  int32,  HYPER, SOLVE,   batch_size,     NOSAMPLE, GSU_CORE_DEFAULT(batch_size)) \
	X(seed,              uint64, uint64, HYPER, SOLVE,   seed,           NOSAMPLE, GSU_CORE_DEFAULT(seed)) \
	X(gamma,             double, double, HYPER, PROBLEM, gamma,          NOSAMPLE, 0.0) \
	X(delta_scale,       double, double, HYPER, PROBLEM, delta_scale,    NOSAMPLE, 0.0) \
	X(epsilon,           double, double, HYPER, GLUE,    -,              NOSAMPLE, 0.0) \
	X(robust_q,          int32,  uint8,  OWN,   PROBLEM, q,              NOSAMPLE, 0)

/*
 * Training options; fixed-width, copied by value (and compared bytewise:
 * gsu_options_default zeroes the padding).
 */
typedef struct GsuTrainOptions
{
	/*
	 * the stored options (GSU_STORED_OPTIONS): loss (gsu_loss_kind), solver
	 * (gsu_solver_kind), subspace_mode (GSU_SUBSPACE_*: what
	 * subspace_fraction restricts); for the losses tsvc and robust
	 * (gsu_robust.h) gamma (robust: radius; tsvc: norm bound), delta_scale
	 * (tsvc: delta_i = delta_scale * sqrt(mean variance)), epsilon (robust:
	 * 1 - confidence, or 0 when gamma was given), robust_q (robust: q = 1, 2
	 * or 0 for infinity, the dual of "norm")
	 */
#define GSU_OPTION_FIELD(field, type, ...) type field;
	GSU_STORED_OPTIONS(GSU_OPTION_FIELD)
#undef GSU_OPTION_FIELD
	int32		class_weight;	/* GSU_CLASS_WEIGHT_* */
	int32		bound;			/* GSU_BOUND_* (with "confidence") */
	int32		tsvc_algorithm; /* GSU_TSVC_* */
	int32		feature_bound;	/* GSU_FEATURE_BOUND_* (robust loss with "features") */
	int32		feature_pbar;	/* "feature_norm" of couellan_jan: 1, 2 or GSU_Q_INF */
	/* option "features": an explicit feature map (gsu_featmap.h) */
	int32		map_kind;		/* GSU_MAP_*; GSU_MAP_NONE without the option */
	int32		map_dim;		/* rff: D */
	int32		map_landmarks;	/* nystroem: m */
	int32		map_full_cov;	/* gsu loss: train on the full Cov phi(z), not its diagonal */
	double		map_sigma;
	uint64		map_seed;
	/* option "standardize": train on x' = D^-1 (x - m), Sigma' = D^-1 Sigma D^-1 (gsu_standardize.h) */
	int32		standardize;
	/* option "missing": GSU_MISSING_*; a NULL mean element as the feature's moments (docs/missing.md) */
	int32		missing;
	/* "missing_mean", "missing_variance" given: GSU_MISSING_GIVEN_* (the values stay in the options' jsonb) */
	int32		missing_given;
	/* "missing_nan": a NaN mean element is missing too (stored as the model's flag GSU_MODEL_MISSING_NAN) */
	int32		missing_nan;
} GsuTrainOptions;

/* the "missing" option: what a NULL element of a row's mean is */
#define GSU_MISSING_ERROR 0		/* an error (22004), as always */
#define GSU_MISSING_FEATURE_MOMENTS 1	/* the feature's observed mean and variance */
#define GSU_MISSING_GIVEN_MEAN 1	/* "missing_mean": the user's means replace the observed ones */
#define GSU_MISSING_GIVEN_VARIANCE 2	/* "missing_variance": the user's variances */

/*
 * The options "missing_mean" and "missing_variance" of root (an options
 * object): arrays of finite numbers, the variances non-negative.  With n > 0
 * each given one must have n elements and is read into mean or var; with
 * n = 0 they are only checked.  Returns the GSU_MISSING_GIVEN_* bits of
 * those given (0 for a NULL root).
 */
int			gsu_options_missing_moments(JsonbContainer *root, int n, double *mean, double *var);

/*
 * The options that go with "missing" (o->missing already read) from root
 * (an options object, or NULL): o->missing_given ("missing_mean",
 * "missing_variance", checked) and o->missing_nan ("missing_nan", a
 * boolean).  "missing_mean" or "missing_variance" given, or "missing_nan"
 * true, without "missing": "feature_moments" is an error (22023).
 */
void		gsu_options_missing_extras(JsonbContainer *root, GsuTrainOptions *o);

/*
 * The rule of a streaming pass (a solver sgd, the gsu.partial sgd
 * aggregates): "missing": "feature_moments" only with both "missing_mean"
 * and "missing_variance" given, each row filled from them before its step;
 * else an error (22023) whose hint ends with hint (the other way to train).
 */
void		gsu_require_missing_moments(const GsuTrainOptions *o, const char *hint);

/* the "features" option: the feature map applied to the mean before the linear model */
#define GSU_MAP_NONE 0
#define GSU_MAP_RFF 1
#define GSU_MAP_NYSTROEM 2
#define GSU_MAP_POLY2 3			/* (x'z)^2, exact: no parameters, no stored block */
#define GSU_MAP_MAX 3

/*
 * Largest input dimension of the map "poly2": its p(p+1)/2 features stay at
 * most 500,500, and the full feature covariance of one row (option
 * "covariance": "full") at most 2 GB.
 */
#define GSU_POLY2_MAX_INPUT_DIM 1000

/* the "feature_bound" option: how the robust loss bounds a mapped row */
#define GSU_FEATURE_BOUND_MOMENTS 0 /* the ellipsoid of the feature-space moments */
#define GSU_FEATURE_BOUND_WORST_CASE 1	/* the exact worst case over a box holding the image */
#define GSU_FEATURE_BOUND_COUELLAN_JAN 2	/* the paper's Gamma_i (Props. 4.1, 4.2) */

/* the "class_weight" option */
#define GSU_CLASS_WEIGHT_NONE 0
#define GSU_CLASS_WEIGHT_BALANCED 1 /* c = n / (K n_c), K classes, n_c rows of class c */
#define GSU_CLASS_WEIGHT_EXPLICIT 2 /* an object {"label": weight, ...} */

/* the "subspace_mode" option: GSU_SUBSPACE_COVARIANCE, GSU_SUBSPACE_GAUSSIAN (gsu_glue.h) */

#define GSU_BOUND_NONE 0
#define GSU_BOUND_GAUSSIAN 1		/* gamma = Phi^-1(1 - eps), exact for Gaussian rows */
#define GSU_BOUND_CHEBYSHEV 2		/* gamma = sqrt((1 - eps)/eps), any distribution */

#define GSU_TSVC_PROJECTED 0		/* the convex relaxation, projected steps */
#define GSU_TSVC_ALTERNATING 1		/* Bi & Zhang's Algorithm 1 */

/* Largest Nystroem landmark count (K_mm is m x m, decomposed densely). */
#define GSU_MAX_LANDMARKS 10000

/*
 * The smallest lambda of the stochastic solvers (sgd, pegasos): their first
 * step 1/lambda and ball radius 1/sqrt(lambda) stay below 1e300 and 1e150,
 * which leaves room for the bias, a sum of at most (1 + ln t)/lambda.
 */
#define GSU_MIN_STOCHASTIC_LAMBDA 1e-300

/* Explicit class weights: n (label, weight) pairs, labels distinct. */
typedef struct GsuClassWeights
{
	int			n;
	int32	   *label;
	double	   *weight;			/* finite, > 0 */
} GsuClassWeights;

/*
 * The reader of the option "init" (an object, c): the caller's value for it
 * (gsu_model_hyper.c reads a gsu.model); lambda is the options' lambda.
 */
typedef void *(*GsuInitReader) (JsonbContainer *c, double lambda);

/*
 * The defaults (no options).  Reads the options of gsu.train / gsu.fit /
 * gsu.train_sgd (jb may be NULL: the defaults); *init (if init != NULL)
 * receives what read_init makes of the "init" option, or NULL without it.
 * Errors are 22023.  gsu_parse_train_options (gsu_model_text.h) is the
 * call with the model's reader.
 */
void		gsu_options_default(GsuTrainOptions *o);
void		gsu_options_parse(Jsonb *jb, GsuTrainOptions *o, GsuInitReader read_init,
							  void **init);

/*
 * The stored options the core reads (GSU_STORED_OPTIONS, core SOLVE and
 * PROBLEM) copied into its options so and problem p; the caller fills the
 * rest of them.
 */
void		gsu_options_to_core(const GsuTrainOptions *o, gsu_solve_options *so,
								gsu_binary_problem *p);

/*
 * The members "key": value of the stored options marked SAMPLE
 * (GSU_STORED_OPTIONS), without braces: the options of gsu.fit's sample.
 */
void		gsu_options_append_sample(StringInfo buf, const GsuTrainOptions *o);

/*
 * Whether options jb name a "solver": without one a loss gets its default
 * solver (gsu_loss_kind_info.default_solver: dcd for the loss hinge), which
 * gsu.fit and gsu.train_sgd read as their default.
 */
bool		gsu_options_solver_given(Jsonb *jb);

/* An error (22023) when lambda is below GSU_MIN_STOCHASTIC_LAMBDA for a stochastic solver. */
void		gsu_check_stochastic_lambda(double lambda, int solver);

/*
 * The explicit "class_weight" object of options jb, palloc'd in the current
 * context; NULL when the option is absent or "balanced".
 */
GsuClassWeights *gsu_parse_class_weight(Jsonb *jb);
/*
 * An error unless o has no class_weight: for the aggregates whose state
 * (gsu.partial, gsu.fit's passes) has no room for weights (fn names them).
 */
void		gsu_reject_class_weight(const GsuTrainOptions *o, const char *fn);
/* The class_weight mode of an options object (absent: GSU_CLASS_WEIGHT_NONE); checks it. */
int32		gsu_parse_class_weight_mode(JsonbContainer *root);
/* The weight of a label: 1 when cw is NULL or does not name it. */
double		gsu_class_weight_of(const GsuClassWeights *cw, int32 label);

/*
 * An error (0A000) unless the loss has the Gaussian-family gradient pass
 * (gsu_loss_kind_info.gradient_pass): fn names the function refusing it.
 */
void		gsu_require_gradient_loss(int loss, const char *fn);

/*
 * The option "features" (object f): {"map": "rff", "dim": D, "sigma": s,
 * "seed": n}, {"map": "nystroem", "landmarks": m, ...} or {"map": "poly2"}.
 */
void		gsu_parse_features_option(const GsuJsonCtx *cx, JsonbContainer *f, GsuTrainOptions *o);

/*
 * The options "feature_bound" and "feature_norm" against the others (root the
 * options object; features whether "features" was given): errors 22023 and
 * 0A000; true for a per-row bound (worst_case, couellan_jan), which the
 * caller trains with pegasos (gsu_options_features.c).
 */
bool		gsu_check_feature_bound(JsonbContainer *root, GsuTrainOptions *o, bool features);

/* the names and values of "feature_bound", NULL-ended (the options' table) */
extern const char *const gsu_feature_bound_names[];
extern const int gsu_feature_bound_values[];

/*
 * A p-norm option: 1, 2 or GSU_Q_INF for "inf"; -1 when absent or null; an
 * error (22023) with hint for another value.
 */
int			gsu_parse_pnorm(JsonbContainer *root, const char *key, const char *hint);


/*
 * The options of gsu.train_regression (gsu_options_regression.c): "loss"
 * (epsilon_insensitive, the default, or squared), "epsilon" (the tube's
 * half-width, [0, ∞), GSU_SVR_DEFAULT_EPSILON unless given; stored in the
 * field epsilon), "lambda", "tolerance", "max_iterations", "standardize",
 * "missing" with its moments, and (mode TRAIN or STREAM, not gsu.fit's FIT)
 * "solver" (newton or sgd; STREAM: sgd, the default) and "init" (solver
 * sgd only; *init,
 * when init is not NULL, receives what read_init makes of it, and is left
 * alone without it); the other options of gsu.train are refused (22023),
 * as is every other key.  jb may be NULL (the defaults).
 */
#define GSU_SVR_DEFAULT_EPSILON 0.1
#define GSU_REGRESSION_OPTIONS_FIT 0	/* gsu.fit: no "solver" nor "init" */
#define GSU_REGRESSION_OPTIONS_TRAIN 1	/* gsu.train_regression: solver newton (default) or sgd */
#define GSU_REGRESSION_OPTIONS_STREAM 2 /* the regression sgd partials: solver sgd only */
void		gsu_regression_options_parse(Jsonb *jb, GsuTrainOptions *o, int mode,
										 GsuInitReader read_init, void **init);

/* SQL names of the enumerated options ("?" when out of range) */
const char *gsu_solver_name(int solver);
const char *gsu_subspace_mode_name(int mode);
const char *gsu_map_name(int map_kind);
const char *gsu_feature_bound_name(int feature_bound);

#endif							/* GSU_OPTIONS_H */
