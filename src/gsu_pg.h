/*
 * gsu_pg.h — shared declarations of the PostgreSQL glue: the gsu.model
 * varlena, argument helpers and validation of arrays coming from SQL.
 */
#ifndef GSU_PG_H
#define GSU_PG_H

#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "core/gsu_core.h"
#include "core/gsu_featmap.h"

/* ---------------------------------------------------------------- model */

#define GSU_MODEL_FORMAT 2

/* loss */
#define GSU_LOSS_GSU 0
#define GSU_LOSS_HINGE 1
#define GSU_LOSS_TSVC 2
#define GSU_LOSS_ROBUST 3
#define GSU_LOSS_MAX 3

/* feature map applied to the mean before the linear model */
#define GSU_MAP_NONE 0
#define GSU_MAP_RFF 1
#define GSU_MAP_NYSTROEM 2
#define GSU_MAP_MAX 2

/* flags (every other bit must be zero) */
#define GSU_MODEL_CONVERGED 0x0001	/* the solver met its tolerance */
#define GSU_MODEL_CALIBRATED 0x0002 /* the Platt pairs are set */
#define GSU_MODEL_FLAGS_KNOWN 0x0003

#define GSU_MAX_DIM 1000000
#define GSU_MAX_CLASSES 1000

/*
 * A trained classifier (format 2).  The fixed header is followed by one
 * block of doubles, data[]:
 *
 *   classes        nclasses labels (int4 values, ascending)
 *   class_weight   nclasses weights applied to the rows of each class
 *   per vector k   theta_k = (w_1..w_dim, b), then Platt's (A, B)
 *                  (dim + 3 doubles; nvec = 1 vector for two classes, whose
 *                  positive side is classes[1], else one vector per class,
 *                  one-vs-rest)
 *   map            map_len doubles of the feature map (none: 0)
 *
 * dim is the length of w (the feature space: the mapped dimension when there
 * is a feature map); input_dim is the length of the mean vectors scored.
 * Stored and compared as raw bytes, so every padding byte is zeroed on
 * construction.
 */
typedef struct GsuModel
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	uint16		format;			/* GSU_MODEL_FORMAT */
	uint16		flags;
	int32		dim;
	int32		input_dim;
	int32		nclasses;		/* ≥ 2 */
	uint8		loss;
	uint8		solver;			/* gsu_solver_kind */
	uint8		map_kind;		/* GSU_MAP_* */
	uint8		robust_q;		/* robust loss: dual norm q = 1, 2, or 0 for ∞ */
	int32		epochs;
	int32		batch_size;
	int32		max_iterations;
	int32		map_landmarks;	/* Nyström: landmarks m; else 0 */
	int32		map_len;		/* doubles in the map block */
	int32		reserved;		/* must be zero */
	uint64		seed;
	uint64		map_seed;
	double		lambda;
	double		tolerance;
	double		smoothing;
	double		subspace_fraction;
	double		gamma;			/* tsvc: norm bound; robust: radius (0 unless used) */
	double		delta_scale;	/* tsvc: δ_i = delta_scale·√(mean variance) */
	double		epsilon;		/* chance constraint: 1 − confidence (0 unless used) */
	double		map_sigma;		/* feature map kernel width (0 without a map) */
	/* training statistics (one-vs-rest: summed over the classes) */
	int64		rows;
	int64		iterations;
	int64		passes;
	double		objective;
	double		gradient_norm;	/* one-vs-rest: the largest */
	double		gap_estimate;
	double		seconds;
	double		data[FLEXIBLE_ARRAY_MEMBER];
} GsuModel;

#define GSU_MODEL_NVEC(m) ((m)->nclasses == 2 ? 1 : (m)->nclasses)
#define GSU_MODEL_DATA_LEN(dim, nclasses, map_len) \
	(2 * (Size) (nclasses) + (Size) ((nclasses) == 2 ? 1 : (nclasses)) * ((Size) (dim) + 3) + \
	 (Size) (map_len))
#define GSU_MODEL_SIZE(dim, nclasses, map_len) \
	(offsetof(GsuModel, data) + sizeof(double) * GSU_MODEL_DATA_LEN(dim, nclasses, map_len))
#define GSU_MODEL_CLASSES(m) ((m)->data)
#define GSU_MODEL_CLASS_WEIGHT(m) ((m)->data + (m)->nclasses)
#define GSU_MODEL_THETA(m, k) ((m)->data + 2 * (Size) (m)->nclasses + (Size) (k) * ((Size) (m)->dim + 3))
#define GSU_MODEL_PLATT(m, k) (GSU_MODEL_THETA(m, k) + (m)->dim + 1)
#define GSU_MODEL_MAP(m) GSU_MODEL_THETA(m, GSU_MODEL_NVEC(m))

#define DatumGetGsuModel(x) ((GsuModel *) PG_DETOAST_DATUM(x))
#define PG_GETARG_GSU_MODEL(n) DatumGetGsuModel(PG_GETARG_DATUM(n))
#define PG_RETURN_GSU_MODEL(x) PG_RETURN_POINTER(x)

/*
 * A zeroed model of format 2: classes −1, +1 when nclasses = 2, else
 * 0..nclasses−1 (the caller sets them), class weights 1, input_dim = dim.
 */
GsuModel   *gsu_model_alloc(int dim, int nclasses, int map_len);

/* Doubles of the map block for these map parameters (GSU_MAP_NONE: 0). */
int64		gsu_map_length(int kind, int dim, int input_dim, int landmarks);

/*
 * The decision values of a mean of input_dim elements: out[k] = w_kᵀφ(x) + b_k
 * for each of the GSU_MODEL_NVEC(m) vectors (φ the feature map, or the
 * identity).  Errors when the dimension is wrong or a value overflows.
 */
void		gsu_model_decisions(const GsuModel *m, const double *x, int n, double *out);

/*
 * The class a decision vector picks: classes[1] when f[0] ≥ 0 else
 * classes[0] for two classes, else the class of the largest f_k (the lowest
 * label on ties).  *k receives its index in classes (NULL allowed).
 */
int32		gsu_model_pick(const GsuModel *m, const double *f, int *k);

/*
 * An error unless m is a two-class model of labels −1, 1 without a feature
 * map (what names the model in the message): the streaming and gradient
 * aggregates work on such models only.
 */
void		gsu_model_require_plain_binary(const GsuModel *m, const char *what);

/* The index of label in the model's classes; an error naming it when absent. */
int			gsu_model_class_index(const GsuModel *m, int32 label);

/* --------------------------------------------------- detoasting once */

/*
 * A detoasted copy of a varlena argument, kept in a function's fn_mcxt and
 * keyed by what identifies the stored value — the TOAST pointer (a value
 * stored out of line: its relation and value OID cannot name another value
 * while the query runs) or the compressed bytes themselves (compressed in
 * line) — never by the datum's address, which the executor reuses for other
 * values from row to row.
 */
typedef struct GsuDetoastCache GsuDetoastCache;

/*
 * The detoasted value of datum d, detoasted at most once per distinct stored
 * value for as long as *slot lives (in mcxt).  Values that are not toasted
 * are returned in place, short-header or in-memory ones detoasted without
 * caching.  Never modify the result.
 */
struct varlena *gsu_detoast_cache_get(GsuDetoastCache **slot, MemoryContext mcxt, Datum d);

/* gsu_detoast_cache_get for argument argno, with the cache in fn_extra */
struct varlena *gsu_detoast_cached(FunctionCallInfo fcinfo, int argno);

/*
 * A model argument read once per distinct value (gsu_detoast_cache_get), kept
 * with a scratch buffer for the per-row work of scoring.
 */
typedef struct GsuModelCache
{
	GsuDetoastCache *value;
	double	   *scratch;		/* gsu_model_scratch's buffer, in fn_mcxt */
	Size		scratch_len;
} GsuModelCache;

/*
 * A buffer of at least n doubles kept with the model cache of a scoring
 * function, so that the per-row work of scoring allocates nothing.
 */
double	   *gsu_model_scratch(FunctionCallInfo fcinfo, Size n);

GsuModel   *gsu_model_arg(FunctionCallInfo fcinfo, int argno, GsuModelCache **slot);
#define PG_GETARG_GSU_MODEL_CACHED(n) \
	gsu_model_arg(fcinfo, (n), (GsuModelCache **) &fcinfo->flinfo->fn_extra)
GsuModel   *gsu_model_from_jsonb(JsonbContainer *root);
/*
 * Checks every field of a model (ereports when bad) and puts it in
 * canonical form (+0 for −0, zero for statistics its solver lacks).
 */
void		gsu_model_validate(GsuModel *m, int code);
Jsonb	   *gsu_model_to_jsonb(const GsuModel *m, bool with_weights);
const char *gsu_loss_name(int loss);
const char *gsu_solver_name(int solver);

/* -------------------------------------------------------------- options */

/* Training options (a jsonb object in SQL); fixed-width, copied by value. */
typedef struct GsuTrainOptions
{
	int32		loss;
	int32		solver;
	double		lambda;
	double		tolerance;
	double		smoothing;
	double		subspace_fraction;
	int32		max_iterations;
	int32		epochs;
	int32		batch_size;
	int32		class_weight;	/* GSU_CLASS_WEIGHT_* */
	uint64		seed;
	/* losses tsvc and robust (gsu_robust.h) */
	double		gamma;			/* robust: radius γ; tsvc: norm bound γ */
	double		delta_scale;	/* tsvc: δ_i = delta_scale·√(mean variance) */
	double		epsilon;		/* robust: 1 − confidence, or 0 when γ was given */
	int32		robust_q;		/* robust: q = 1, 2 or 0 (∞), dual of "norm" */
	int32		bound;			/* GSU_BOUND_* (with "confidence") */
	int32		tsvc_algorithm; /* GSU_TSVC_* */
	int32		feature_bound;	/* GSU_FEATURE_BOUND_* (robust loss with "features") */
	/* option "features": an explicit feature map (gsu_featmap.h) */
	int32		map_kind;		/* gsu_map_kind; GSU_MAP_NONE without the option */
	int32		map_dim;		/* rff: D */
	int32		map_landmarks;	/* nystroem: m */
	int32		map_full_cov;	/* gsu loss: train on the full Cov φ(z), not its diagonal */
	double		map_sigma;
	uint64		map_seed;
} GsuTrainOptions;

/* the "feature_bound" option: how the robust loss bounds a mapped row */
#define GSU_FEATURE_BOUND_MOMENTS 0 /* the ellipsoid of the feature-space moments */
#define GSU_FEATURE_BOUND_WORST_CASE 1	/* the exact worst case over the paper's box */

/* the "class_weight" option */
#define GSU_CLASS_WEIGHT_NONE 0
#define GSU_CLASS_WEIGHT_BALANCED 1 /* c = n / (K·n_c), K classes, n_c rows of class c */
#define GSU_CLASS_WEIGHT_EXPLICIT 2 /* an object {"label": weight, ...} */

/* Explicit class weights: n (label, weight) pairs, labels distinct. */
typedef struct GsuClassWeights
{
	int			n;
	int32	   *label;
	double	   *weight;			/* finite, > 0 */
} GsuClassWeights;

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
/* The weight of a label: 1 when cw is NULL or does not name it. */
double		gsu_class_weight_of(const GsuClassWeights *cw, int32 label);

#define GSU_BOUND_NONE 0
#define GSU_BOUND_GAUSSIAN 1		/* γ = Φ⁻¹(1 − ε), exact for Gaussian rows */
#define GSU_BOUND_CHEBYSHEV 2		/* γ = √((1 − ε)/ε), any distribution */

#define GSU_TSVC_PROJECTED 0		/* the convex relaxation, projected steps */
#define GSU_TSVC_ALTERNATING 1		/* Bi & Zhang's Algorithm 1 */

/* iterations of the tsvc/robust batch solver (gradient steps) unless given */
#define GSU_ROBUST_MAX_ITERATIONS 100000

/*
 * Reads the options of gsu.train / gsu.fit (jb may be NULL: the defaults);
 * *init (if init != NULL) receives the "init" model or NULL.
 */
void		gsu_parse_train_options(Jsonb *jb, GsuTrainOptions *o, GsuModel **init);

/*
 * The smallest lambda of the stochastic solvers (sgd, pegasos): their first
 * step 1/λ and ball radius 1/√λ stay below 1e300 and 1e150, which leaves
 * room for the bias, a sum of at most (1 + ln t)/λ.
 */
#define GSU_MIN_STOCHASTIC_LAMBDA 1e-300
/* An error (22023) when lambda is below that for a stochastic solver. */
void		gsu_check_stochastic_lambda(double lambda, int solver);

/*
 * An error (22003) unless a freshly trained model's weights and statistics
 * are finite: what gsu_model_validate would refuse as a malformed value is,
 * after training, a diverged run (fn names the function in the message).
 */
void		gsu_check_trained_model(const GsuModel *m, const char *fn);

/* A model of dimension dim carrying the options as its hyper-parameters. */
GsuModel   *gsu_model_from_options(int dim, int nclasses, int map_len,
									const GsuTrainOptions *o);

/* -------------------------------------------------------------- partial */

/*
 * Format 2 added `point`; values of format 1 (no point) are still read, as
 * gradients at an unknown point (gsu_partial_from_datum).
 */
#define GSU_PARTIAL_FORMAT 2
#define GSU_PARTIAL_GRADIENT 1	/* Σ L_i and Σ ∇L_i at a point θ */
#define GSU_PARTIAL_SGD 2		/* a streaming SGD iterate */

/* A partial training state that is an ordinary SQL value (gsu_partial.c). */
typedef struct GsuPartial
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	uint16		format;
	uint16		kind;
	int32		dim;
	int64		n;				/* rows */
	int64		n_pos;			/* rows with label 1 */
	int64		steps;			/* sgd: steps taken, warm start included */
	int32		loss;
	int32		reserved;		/* must be zero */
	uint64		point;			/* gradient: fingerprint of the point θ, 0 when
								 * unknown (format 1); sgd: 0 */
	double		loss_sum;		/* Σ L_i (sgd: each row's loss before its step) */
	double		mu;				/* gradient: smoothing of the loss */
	double		min_dsigma;		/* gradient: min_i √(2wᵀΣ_iw) */
	double		lambda;
	double		subspace_fraction;
	double		vec[FLEXIBLE_ARRAY_MEMBER]; /* dim + 1: Σ∇L_i, or θ */
} GsuPartial;

#define GSU_PARTIAL_SIZE(dim) (offsetof(GsuPartial, vec) + sizeof(double) * ((Size) (dim) + 1))

GsuPartial *gsu_partial_alloc(int dim, int kind);
/* A stored gsu.partial, detoasted, in the current format (a format-1 value is converted). */
GsuPartial *gsu_partial_from_datum(Datum d);
/* Checks every field (ereports when bad) and puts it in canonical form (+0 for -0). */
void		gsu_partial_validate(GsuPartial *p, int code);

/*
 * Whether aggregate argument arg (1-based, as PG_GETARG numbers them after
 * the state) is a constant: then every row passes the same datum, and a
 * value parsed from it can be cached by its address.  Otherwise a different
 * value can arrive at the address of an earlier one.
 */
bool		gsu_agg_arg_is_const(FunctionCallInfo fcinfo, int arg);

/* The aggregate's memory context; an error when fn is called outside an aggregate. */
MemoryContext gsu_agg_context(FunctionCallInfo fcinfo, const char *fn);
void		gsu_advise_huge_pages(void *p, Size bytes);

/*
 * A buffer that grows without moving once it is large: see gsu_growbuf_resize.
 * Zeroed, it stands for a buffer that is palloc'd (or absent).
 */
typedef struct GsuGrowBuf
{
	void	   *map;			/* base of an mmap'd reservation, or NULL */
	Size		map_bytes;		/* its length */
} GsuGrowBuf;

void	   *gsu_growbuf_resize(GsuGrowBuf *g, void *p, Size used_bytes, Size new_bytes,
							   Size max_bytes);
void		gsu_growbuf_free(GsuGrowBuf *g, void *p);
void		gsu_growbuf_unmap(GsuGrowBuf *g);

/* ---------------------------------------------------------------- arrays */

/* A validated float8 vector read in place from an array. */
typedef struct GsuVec
{
	int			n;
	const double *data;
} GsuVec;

/*
 * Reads a 1-D float8[] argument in place: non-empty, no NULL elements,
 * every element finite (what names the argument in messages).
 */
GsuVec		gsu_vec_from_array(ArrayType *a, const char *what);

/*
 * A variance argument: a 1-D float8[] of dim non-negative finite values.
 * The caller handles NULL (a certain row).
 */
GsuVec		gsu_variance_from_array(ArrayType *a, int dim);

/*
 * A new float8 array with uninitialized data and no NULLs: d0 elements
 * (ndim 1) or d0 × d1 (ndim 2).
 */
ArrayType  *gsu_new_float8_array(int ndim, int d0, int d1);

/* An isotropic variance: finite and non-negative. */
void		gsu_check_iso_variance(double s);

/* The covariance of one row, as the SQL functions receive it. */
typedef enum GsuCovKind
{
	GSU_COV_NONE = 0,			/* Σ = 0 */
	GSU_COV_ISO,				/* Σ = iso·I */
	GSU_COV_DIAG,				/* Σ = diag(data) */
	GSU_COV_FULL				/* Σ = data, dim×dim row-major */
} GsuCovKind;

typedef struct GsuRowCov
{
	GsuCovKind	kind;
	double		iso;
	const double *data;
} GsuRowCov;

/*
 * A variance argument of dimension dim: a 1-D float8[] (diagonal) or a 2-D
 * dim×dim float8[] (full covariance, checked symmetric and positive
 * semi-definite within GSU_COV_TOLERANCE relative).
 */
GsuRowCov	gsu_cov_from_array(ArrayType *a, int dim);

#define GSU_COV_TOLERANCE 1e-8

/*
 * The covariance the loss sees for a row: none for the plain hinge loss, and
 * with a subspace fraction p < 1 its restriction to the leading
 * eigen-directions, written into scratch (dim × dim doubles).
 */
GsuRowCov	gsu_prepare_cov(GsuRowCov rc, int loss, double p, int dim, double *scratch);

/* wᵀΣw for the row's covariance (work: dim doubles, used for full Σ). */
double		gsu_cov_quad(const GsuRowCov *c, int dim, const double *w, double *work);

/* A scoring function's variance argument argno (float8 when iso_kind, else float8[]) for model m. */
GsuRowCov	gsu_variance_arg(const GsuModel *m, FunctionCallInfo fcinfo, int argno, bool iso_kind);

/* −1/+1 */
double		gsu_check_label(int32 label);

void		gsu_check_dims(int got, int want, const char *what);

/* n rows of which n_pos have label 1 must hold both labels ("training" data, …). */
void		gsu_check_two_classes(int64 n, int64 n_pos, const char *what);

/* An error (22P03) for a bad serialized state of aggregate agg: "invalid serialized <agg> state: <what>". */
void		gsu_wire_error(const char *agg, const char *what) pg_attribute_noreturn();

/* ------------------------------------------------------- core status */

/*
 * The core's progress callback (gsu_progress_fn) for a backend: non-zero
 * when a cancel, a statement timeout or a termination is pending, so that
 * the core stops and returns GSU_ECANCELLED.
 */
int			gsu_interrupt_pending(void *arg);

/*
 * ereports a core status other than GSU_OK (returns for GSU_OK); what names
 * the operation, e.g. "gsu.train".  GSU_ECANCELLED runs CHECK_FOR_INTERRUPTS,
 * which raises the pending cancel (statement timeout, pg_cancel_backend) or
 * termination as PostgreSQL itself would.
 */
void		gsu_report_status(gsu_status s, const char *what);

/* GUC: upper bound on a buffering training aggregate's memory, in kB */
extern int	gsu_max_training_memory_kb;
extern bool gsu_parallel_training;

/* --------------------------------------------------------- feature maps */

/* The model's feature map (gsu_features.c), bound to its matrix block. */
void		gsu_model_featmap(const GsuModel *m, gsu_featmap *f);

/* φ(x) in a palloc'd array of dim doubles; x itself when there is no map. */
const double *gsu_model_map_mean(const GsuModel *m, const double *x);

/*
 * A Gaussian input N(x, Σ) in the feature space of a model with a map: the
 * exact E φ(z) (*mean, dim doubles, palloc'd) and, for each of the
 * GSU_MODEL_NVEC(m) weight vectors w_k, quad[k] = w_kᵀ Cov φ(z) w_k, in
 * O(dim + landmarks · input_dim) memory whatever the map's size.
 */
void		gsu_model_map_quad(const GsuModel *m, const double *x, const GsuRowCov *rc,
							   double **mean, double *quad);

#endif							/* GSU_PG_H */
