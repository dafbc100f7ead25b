/*
 * gsu_options.h — the training options of gsu.train, gsu.fit and
 * gsu.train_sgd (a jsonb object in SQL), described once.
 *
 * Every option is a row of one table (gsu_options.c): its name, type, field
 * in GsuTrainOptions, range, and the losses it applies to.  From the table
 * come the key check and its "Valid keys" hint, the range checks of the
 * options, of a model's stored hyperparameters (text, binary) and of a
 * serialized training state, the defaults a model's text falls back to, and
 * the model's "hyperparameters" JSON, read and written.  Adding a scalar
 * option is a row there, a field in GsuTrainOptions (and, when a model
 * stores it, a GsuModel field and its line in hyper_fields of
 * gsu_model_hyper.c), and the code that uses it.
 *
 * The options are a leaf of the glue: they know the kit (gsu_json.h) and the
 * core, never gsu.model.  The model's side of the options (a model's
 * hyperparameters, the "init" model) is in gsu_model.h.
 */
#ifndef GSU_OPTIONS_H
#define GSU_OPTIONS_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "gsu_json.h"

/* Training options; fixed-width, copied by value (and compared bytewise). */
typedef struct GsuTrainOptions
{
	int32		loss;			/* gsu_loss_kind */
	int32		solver;			/* gsu_solver_kind */
	double		lambda;
	double		tolerance;
	double		smoothing;
	double		subspace_fraction;
	int32		subspace_mode;	/* GSU_SUBSPACE_*: what subspace_fraction restricts */
	int32		max_iterations;
	int32		epochs;
	int32		batch_size;
	int32		class_weight;	/* GSU_CLASS_WEIGHT_* */
	uint64		seed;
	/* losses tsvc and robust (gsu_robust.h) */
	double		gamma;			/* robust: radius gamma; tsvc: norm bound gamma */
	double		delta_scale;	/* tsvc: delta_i = delta_scale * sqrt(mean variance) */
	double		epsilon;		/* robust: 1 - confidence, or 0 when gamma was given */
	int32		robust_q;		/* robust: q = 1, 2 or 0 (infinity), dual of "norm" */
	int32		bound;			/* GSU_BOUND_* (with "confidence") */
	int32		tsvc_algorithm; /* GSU_TSVC_* */
	int32		feature_bound;	/* GSU_FEATURE_BOUND_* (robust loss with "features") */
	/* option "features": an explicit feature map (gsu_featmap.h) */
	int32		map_kind;		/* GSU_MAP_*; GSU_MAP_NONE without the option */
	int32		map_dim;		/* rff: D */
	int32		map_landmarks;	/* nystroem: m */
	int32		map_full_cov;	/* gsu loss: train on the full Cov phi(z), not its diagonal */
	double		map_sigma;
	uint64		map_seed;
	/* option "standardize": train on x' = D^-1 (x - m), Sigma' = D^-1 Sigma D^-1 (gsu_standardize.h) */
	int32		standardize;
} GsuTrainOptions;

/* the "features" option: the feature map applied to the mean before the linear model */
#define GSU_MAP_NONE 0
#define GSU_MAP_RFF 1
#define GSU_MAP_NYSTROEM 2
#define GSU_MAP_MAX 2

/* the "feature_bound" option: how the robust loss bounds a mapped row */
#define GSU_FEATURE_BOUND_MOMENTS 0 /* the ellipsoid of the feature-space moments */
#define GSU_FEATURE_BOUND_WORST_CASE 1	/* the exact worst case over the paper's box */

/* the "class_weight" option */
#define GSU_CLASS_WEIGHT_NONE 0
#define GSU_CLASS_WEIGHT_BALANCED 1 /* c = n / (K n_c), K classes, n_c rows of class c */
#define GSU_CLASS_WEIGHT_EXPLICIT 2 /* an object {"label": weight, ...} */

/*
 * The "subspace_mode" option: with subspace_fraction p < 1, each row's
 * Gaussian N(x, Σ) is restricted to the span U_k of its leading
 * eigenvectors.  "gaussian" (the default, Tzelepis et al. eqs. 9-12)
 * projects the whole Gaussian, N(U_kU_kᵀx, U_kΛ_kU_kᵀ); "covariance" (the
 * only reading before format 3 of gsu.model, whose models read as it)
 * restricts the covariance and keeps the mean, N(x, U_kΛ_kU_kᵀ).  The value
 * 0 is "covariance", so that the zero bytes of the older formats read as it.
 */
#define GSU_SUBSPACE_COVARIANCE 0
#define GSU_SUBSPACE_GAUSSIAN 1

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
 * Errors are 22023.  gsu_parse_train_options (gsu_model.h) is the call
 * with the model's reader.
 */
void		gsu_options_default(GsuTrainOptions *o);
void		gsu_options_parse(Jsonb *jb, GsuTrainOptions *o, GsuInitReader read_init,
							  void **init);

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
 * "seed": n} or {"map": "nystroem", "landmarks": m, ...}.
 */
void		gsu_parse_features_option(const GsuJsonCtx *cx, JsonbContainer *f, GsuTrainOptions *o);

/* SQL names of the enumerated options ("?" when out of range) */
const char *gsu_solver_name(int solver);
const char *gsu_subspace_mode_name(int mode);
const char *gsu_map_name(int map_kind);

#endif							/* GSU_OPTIONS_H */
