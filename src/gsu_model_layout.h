/*
 * gsu_model_layout.h — the gsu.model value (format 5): its layout, the
 * macros that find its blocks, its allocation and the accessors every
 * reader of a model uses (gsu_model_layout.c).  The lowest floor of the
 * model family: the feature map (gsu_model_features.h), the hyperparameters
 * (gsu_model_hyper.h), the checks (gsu_model_check.h), the text form
 * (gsu_model_text.h) and the SQL functions of the type (gsu_model.c) stand
 * on it; the family's header for other files is gsu_model.h.
 */
#ifndef GSU_MODEL_LAYOUT_H
#define GSU_MODEL_LAYOUT_H

#include "gsu_glue.h"
#include "gsu_options.h"


/*
 * Format 3 added subspace_mode in a byte that format 2 kept zero (its
 * reserved field): format 2 has format 3's layout, and a value of format 2
 * reads as mode 0, "covariance", the only one it knew.  Format 4 added the
 * flag GSU_MODEL_STANDARDIZED and the block of its statistics after the
 * map, which formats 2 and 3 never have (their values read as not
 * standardized).  Format 5 added the flag GSU_MODEL_HISTORY and the
 * block of the training's per-pass history after everything else, which
 * earlier formats never have.  Text and binary output write format 5.
 * The flag GSU_MODEL_MISSING (option "missing", docs/missing.md) came later
 * without a new format number: a value without it has format 5's bytes, and
 * a version that does not know the flag refuses a value with it.  So did
 * GSU_MODEL_MISSING_NAN (option "missing_nan"), a flag alone.
 */
#define GSU_MODEL_FORMAT 5

/* flags (every other bit must be zero) */
#define GSU_MODEL_CONVERGED 0x0001	/* the solver met its tolerance */
#define GSU_MODEL_CALIBRATED 0x0002 /* the Platt pairs are set */
#define GSU_MODEL_STANDARDIZED 0x0004	/* trained on standardized rows: the
										 * statistics block is present (format 4) */
#define GSU_MODEL_HISTORY 0x0008	/* the history block is present (format 5) */
#define GSU_MODEL_MISSING 0x0010	/* the feature moments of option "missing" are present */
#define GSU_MODEL_MISSING_NAN 0x0020	/* option "missing_nan": a NaN mean element is missing
										 * too (only with GSU_MODEL_MISSING; no bytes of its own) */
#define GSU_MODEL_FLAGS_KNOWN 0x003F

#define GSU_MAX_CLASSES 1000

/*
 * A trained classifier (format 5).  The fixed header (GSU_MODEL_HEADER
 * below) is followed by one block of doubles, data[]:
 *
 *   classes        nclasses labels (int4 values, ascending)
 *   class_weight   nclasses weights applied to the rows of each class
 *   per vector k   theta_k = (w_1..w_dim, b), then Platt's (A, B)
 *                  (dim + 3 doubles; nvec = 1 vector for two classes, whose
 *                  positive side is classes[1], else one vector per class,
 *                  one-vs-rest)
 *   map            map_len doubles of the feature map (none: 0)
 *   standardization  with GSU_MODEL_STANDARDIZED: the centres m (input_dim)
 *                  then the scales s (input_dim) of option "standardize";
 *                  the weights are in standardized units (gsu_standardize.h)
 *   missing        with GSU_MODEL_MISSING: the feature means (input_dim), the
 *                  feature variances (input_dim), in the rows' units, then
 *                  the training rows with a missing element and the missing
 *                  elements (2 doubles): GSU_MISSING_BLOCK_LEN
 *
 * dim is the length of w (the feature space: the mapped dimension when there
 * is a feature map); input_dim is the length of the mean vectors scored.
 * Stored and compared as raw bytes, so every padding byte is zeroed on
 * construction.
 */
/*
 * The header of a gsu.model: its fields in the order of the value's bytes
 * and of its binary form (gsu_model_send: each in network byte order), one
 * line each.  F(type, field, wire) is a field, A(type, field, n, wire) an
 * array of n; wire names the width of the binary form (int8, int16, int32,
 * int64, float8: pq_send<wire>).  The fields named like a stored option
 * (GSU_STORED_OPTIONS, gsu_options.h) hold its value.  The list is the
 * stored format: a field added, moved or retyped is a new format
 * (GSU_MODEL_FORMAT, docs/upgrade.md), whose older values the readers
 * (gsu_model_recv, gsu_model_from_jsonb) must still accept.
 */
#define GSU_MODEL_HEADER(F, A) \
	F(uint16, format, int16)			/* GSU_MODEL_FORMAT */ \
	F(uint16, flags, int16) \
	F(int32, dim, int32) \
	F(int32, input_dim, int32) \
	F(int32, nclasses, int32)			/* ≥ 2 */ \
	F(uint8, loss, int8) \
	F(uint8, solver, int8)				/* gsu_solver_kind */ \
	F(uint8, map_kind, int8)			/* GSU_MAP_* */ \
	F(uint8, robust_q, int8)			/* robust loss: dual norm q = 1, 2, or 0 for ∞ */ \
	F(int32, epochs, int32) \
	F(int32, batch_size, int32) \
	F(int32, max_iterations, int32) \
	F(int32, map_landmarks, int32)		/* Nyström: landmarks m; else 0 */ \
	F(int32, map_len, int32)			/* doubles in the map block */ \
	F(uint8, subspace_mode, int8)		/* GSU_SUBSPACE_* (format 2: 0, covariance) */ \
	A(uint8, reserved, 3, int8)			/* must be zero */ \
	F(uint64, seed, int64) \
	F(uint64, map_seed, int64) \
	F(double, lambda, float8) \
	F(double, tolerance, float8) \
	F(double, smoothing, float8) \
	F(double, subspace_fraction, float8) \
	F(double, gamma, float8)			/* tsvc: norm bound; robust: radius (0 unless used) */ \
	F(double, delta_scale, float8)		/* tsvc: δ_i = delta_scale·√(mean variance) */ \
	F(double, epsilon, float8)			/* chance constraint: 1 − confidence (0 unless used) */ \
	F(double, map_sigma, float8)		/* feature map kernel width (0 without a map) */ \
	/* training statistics (one-vs-rest: summed over the classes) */ \
	F(int64, rows, int64) \
	F(int64, iterations, int64) \
	F(int64, passes, int64) \
	F(double, objective, float8) \
	F(double, gradient_norm, float8)	/* one-vs-rest: the largest */ \
	F(double, gap_estimate, float8) \
	F(double, seconds, float8)

#define GSU_MODEL_FIELD(type, field, wire) type field;
#define GSU_MODEL_ARRAY(type, field, n, wire) type field[n];
typedef struct GsuModel
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	GSU_MODEL_HEADER(GSU_MODEL_FIELD, GSU_MODEL_ARRAY)
	double		data[FLEXIBLE_ARRAY_MEMBER];
} GsuModel;
#undef GSU_MODEL_FIELD
#undef GSU_MODEL_ARRAY

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
/* doubles of the standardization block: 2·input_dim when standardized, else 0 */
#define GSU_MODEL_STD_LEN(m) \
	(((m)->flags & GSU_MODEL_STANDARDIZED) ? 2 * (Size) (m)->input_dim : 0)
#define GSU_MODEL_STD_MEAN(m) (GSU_MODEL_MAP(m) + (m)->map_len)
#define GSU_MODEL_STD_SCALE(m) (GSU_MODEL_STD_MEAN(m) + (m)->input_dim)
/* doubles of the missing block: 2·input_dim + 2 with GSU_MODEL_MISSING, else 0 */
#define GSU_MISSING_BLOCK_LEN(input_dim) (2 * (Size) (input_dim) + 2)
#define GSU_MODEL_MISS_LEN(m) \
	(((m)->flags & GSU_MODEL_MISSING) ? GSU_MISSING_BLOCK_LEN((m)->input_dim) : 0)
#define GSU_MODEL_MISS_MEAN(m) (GSU_MODEL_STD_MEAN(m) + GSU_MODEL_STD_LEN(m))
#define GSU_MODEL_MISS_VAR(m) (GSU_MODEL_MISS_MEAN(m) + (m)->input_dim)
#define GSU_MODEL_MISS_COUNTS(m) (GSU_MODEL_MISS_VAR(m) + (m)->input_dim)
/* every double of data[] before the history block */
#define GSU_MODEL_LEN(m) \
	(GSU_MODEL_DATA_LEN((m)->dim, (m)->nclasses, (m)->map_len) + GSU_MODEL_STD_LEN(m) + \
	 GSU_MODEL_MISS_LEN(m))
/*
 * history (GSU_MODEL_HISTORY, format 5): after everything else, nvec counts
 * (each at most GSU_HISTORY_MAX) then, vector after vector, count entries of
 * GSU_HISTORY_FIELDS doubles: pass (increasing), objective, gradient norm,
 * gap (−1: not measured), elapsed milliseconds (gsu_progress.h).  Its
 * length is what the value's size leaves after GSU_MODEL_LEN.
 */
#define GSU_MODEL_HIST(m) ((m)->data + GSU_MODEL_LEN(m))
#define GSU_MODEL_HIST_LEN(m) \
	(((m)->flags & GSU_MODEL_HISTORY) ? \
	 (VARSIZE(m) - offsetof(GsuModel, data)) / sizeof(double) - GSU_MODEL_LEN(m) : 0)

#define DatumGetGsuModel(x) ((GsuModel *) PG_DETOAST_DATUM(x))
#define PG_GETARG_GSU_MODEL(n) DatumGetGsuModel(PG_GETARG_DATUM(n))
#define PG_RETURN_GSU_MODEL(x) PG_RETURN_POINTER(x)

/*
 * A zeroed model of the current format (GSU_MODEL_FORMAT): classes −1, +1
 * when nclasses = 2, else 0..nclasses−1 (the caller sets them), class
 * weights 1, input_dim = dim.
 */
GsuModel   *gsu_model_alloc(int dim, int nclasses, int map_len);

/* Doubles of the map block for these map parameters (GSU_MAP_NONE: 0). */
int64		gsu_map_length(int kind, int dim, int input_dim, int landmarks);

/*
 * gsu_model_alloc with room for extra doubles after the map (a
 * standardization or history block: the flag is the caller's).
 */
GsuModel   *gsu_model_alloc_extra(int dim, int nclasses, int map_len, Size extra);

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

/*
 * A regression model (its loss is a regression loss of the core's table,
 * trained by gsu.train_regression); else a classifier.
 */
bool		gsu_model_is_regression(const GsuModel *m);
/* An error (22023) naming what, with a hint to the functions of the other task. */
void		gsu_model_require_classifier(const GsuModel *m, const char *what);
void		gsu_model_require_regression(const GsuModel *m, const char *what);

/* The index of label in the model's classes; an error naming it when absent. */
int			gsu_model_class_index(const GsuModel *m, int32 label);

/*
 * A model argument read once per distinct value (gsu_detoast_cache_get), kept
 * with a scratch buffer for the per-row work of scoring.
 */
typedef struct GsuModelCache
{
	GsuDetoastCache *value;
	double	   *scratch;		/* gsu_model_scratch's buffer, in fn_mcxt */
	Size		scratch_len;
	GsuModel   *folded_from;	/* a standardized model's bytes, in fn_mcxt */
	GsuModel   *folded;			/* ... and its gsu_model_for_scoring */
} GsuModelCache;

/*
 * A buffer of at least n doubles kept with the model cache of a scoring
 * function, so that the per-row work of scoring allocates nothing.
 */
double	   *gsu_model_scratch(FunctionCallInfo fcinfo, Size n);

GsuModel   *gsu_model_arg(FunctionCallInfo fcinfo, int argno, GsuModelCache **slot);
/*
 * A scoring function's model argument: gsu_model_arg, and for a
 * standardized model its folded form (gsu_model_for_scoring), kept in the
 * cache with a copy of the value it was folded from.
 */
GsuModel   *gsu_model_scoring_arg(FunctionCallInfo fcinfo, int argno);
#define PG_GETARG_GSU_MODEL_CACHED(n) gsu_model_scoring_arg(fcinfo, (n))
/* whether a solver reports a gap estimate and whether it converged (the batch solvers) */
bool		gsu_solver_has_gap(int solver);


/*
 * An error (22003) unless a freshly trained model's weights and statistics
 * are finite: what gsu_model_validate would refuse as a malformed value is,
 * after training, a diverged run (fn names the function in the message).
 */
void		gsu_check_trained_model(const GsuModel *m, const char *fn);

/*
 * m with its standardization block: a copy (palloc'd) with the flag
 * GSU_MODEL_STANDARDIZED and the centres and scales of input_dim features.
 */
GsuModel   *gsu_model_with_standardization(const GsuModel *m, const double *mean,
										   const double *scale);

/*
 * m (without a missing block) with the missing block of option "missing"
 * (GSU_MISSING_BLOCK_LEN(input_dim) doubles, block): a palloc'd copy with
 * the flag GSU_MODEL_MISSING (and GSU_MODEL_MISSING_NAN if nan_missing:
 * option "missing_nan"), the block before m's history if it has one.
 */
GsuModel   *gsu_model_with_missing(const GsuModel *m, const double *block, bool nan_missing);

/*
 * m (without a history) with the history block hist of len doubles: a
 * palloc'd copy with the flag GSU_MODEL_HISTORY.
 */
GsuModel   *gsu_model_with_history(const GsuModel *m, const double *hist, Size len);

/*
 * The model that scores rows in original units: m itself unless it is
 * standardized, else a palloc'd copy without the flag and block whose
 * vectors are folded (w~ = D^-1 w, b~ = b - w~'m, gsu_standardize_fold), so
 * that its decision values, w'Sigma w and contributions equal those of the
 * standardized rows under m.  A missing block (GSU_MODEL_MISSING) is kept,
 * in the rows' units already.
 */
GsuModel   *gsu_model_for_scoring(const GsuModel *m);

#endif							/* GSU_MODEL_LAYOUT_H */
