/*
 * gsu_partial.h — gsu.partial, a partial training state that is an ordinary
 * SQL value (gsu_partial.c; its aggregates' row functions gsu_partial_agg.c,
 * its text and binary forms gsu_partial_io.c): gradients at a point, or a
 * streaming SGD iterate.
 */
#ifndef GSU_PARTIAL_H
#define GSU_PARTIAL_H

#include "gsu_glue.h"


/*
 * Format 2 added `point`; values of format 1 (no point) are still read, as
 * gradients at an unknown point (gsu_partial_from_datum).  Format 3 added
 * `subspace_mode` in two bytes that format 2 kept zero (its reserved
 * field): a value of format 1 or 2 reads as mode "covariance", the only one
 * those formats knew.  Format 4 turned format 3's last two reserved bytes
 * (zero) into `flags`: an sgd partial of option "missing" carries the
 * feature moments it fills rows with (GSU_PARTIAL_MISSING).  A value of
 * format 3 is a value of format 4 without flags, and a value without flags
 * is still made, stored and written as format 3 (gsu_partial_io.c): every
 * value that does not use the flags keeps the bytes and text it had.
 */
#define GSU_PARTIAL_FORMAT 4
#define GSU_PARTIAL_FORMAT_NO_FLAGS 3
#define GSU_PARTIAL_GRADIENT 1	/* Σ L_i and Σ ∇L_i at a point θ */
#define GSU_PARTIAL_SGD 2		/* a streaming SGD iterate */
#define GSU_PARTIAL_HESSIAN 3	/* Σ L_i, Σ ∇L_i and Σ ∇²L_i at a point θ (gsu.hessian) */

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
	uint16		subspace_mode;	/* GSU_SUBSPACE_* (formats 1, 2: covariance, 0) */
	uint16		flags;			/* GSU_PARTIAL_MISSING*, sgd only (format 3: zero) */
	uint64		point;			/* gradient: fingerprint of the point θ, 0 when
								 * unknown (format 1); sgd: 0 */
	double		loss_sum;		/* Σ L_i (sgd: each row's loss before its step) */
	double		mu;				/* gradient, hessian: smoothing of the loss;
								 * sgd of a regression loss: the tube's ε
								 * (0 for the squared loss; text key
								 * "epsilon"); classification's sgd: 0 */
	double		min_dsigma;		/* gradient: min_i √(2wᵀΣ_iw) */
	double		lambda;
	double		subspace_fraction;
	double		vec[FLEXIBLE_ARRAY_MEMBER]; /* GSU_PARTIAL_LEN: Σ∇L_i, or θ; hessian:
											 * below */
} GsuPartial;

/*
 * The vector of a hessian partial (m = dim + 1): Σ ∇L_i (m), Σ y_i (x_i, 1)
 * (m), Σ L_i at μ = 0 (1), and the upper triangle of Σ ∇²L_i packed by rows
 * (m(m+1)/2), all of them sums that combine exactly.  With a support band
 * τ > 0 (for the hinge polish, gsu_hinge_polish_sums) `steps` holds the
 * capacity c of the band's rows, and the support section follows: Σ_V
 * y_i (x_i, 1) over the rows of margin d_i > τ (m), |V|, the rows with a
 * covariance, the band rows that did not fit, the band rows kept n_s, τ
 * (5), then c rows (x_i, y_i) of |d_i| ≤ τ, n_s of them used.  The
 * weighted forms of gsu.gradient and gsu.hessian multiply every row's part
 * by its weight c_i (Σ_V c_i y_i (x_i, 1), Σ_V c_i, band rows (x_i, y_i c_i));
 * n counts the rows, and the weight sum W is the caller's (gsu.fit sums it
 * in the same scan).
 */
#define GSU_PARTIAL_HESS_YX(dim) ((Size) (dim) + 1)
#define GSU_PARTIAL_HESS_LOSS0(dim) (2 * ((Size) (dim) + 1))
#define GSU_PARTIAL_HESS_H(dim) (2 * ((Size) (dim) + 1) + 1)
#define GSU_PARTIAL_HESS_SUP(dim) (GSU_PARTIAL_HESS_H(dim) + ((Size) (dim) + 1) * ((Size) (dim) + 2) / 2)
#define GSU_SUP_COUNT_V(dim) (GSU_PARTIAL_HESS_SUP(dim) + (Size) (dim) + 1)
#define GSU_SUP_UNCERTAIN(dim) (GSU_SUP_COUNT_V(dim) + 1)
#define GSU_SUP_OVER(dim) (GSU_SUP_COUNT_V(dim) + 2)
#define GSU_SUP_NS(dim) (GSU_SUP_COUNT_V(dim) + 3)
#define GSU_SUP_BAND(dim) (GSU_SUP_COUNT_V(dim) + 4)
#define GSU_SUP_ROWS(dim) (GSU_SUP_COUNT_V(dim) + 5)
/*
 * flags: an sgd partial of option "missing": "feature_moments" (given both
 * "missing_mean" and "missing_variance") holds after its iterate θ (dim + 1)
 * the block of a model of "missing" (GSU_MODEL_MISS_MEAN, gsu_model_layout.h):
 * the feature means (dim), their variances (dim), the rows that had a missing
 * element and the missing elements (2), so gsu.to_model's model scores
 * NULL elements as the training filled them.  GSU_PARTIAL_MISSING_NAN:
 * option "missing_nan" (a NaN element is missing too).
 */
#define GSU_PARTIAL_MISSING 0x0001
#define GSU_PARTIAL_MISSING_NAN 0x0002
#define GSU_PARTIAL_FLAGS_KNOWN (GSU_PARTIAL_MISSING | GSU_PARTIAL_MISSING_NAN)
#define GSU_PARTIAL_MISS_LEN(dim) (2 * (Size) (dim) + 2)
#define GSU_PARTIAL_MISS(p) ((p)->vec + (Size) (p)->dim + 1)

/* the most band rows a hessian partial keeps */
#define GSU_SUPPORT_MAX_ROWS 4096
/* doubles in vec; cap: a hessian partial's band capacity (its steps) */
#define GSU_PARTIAL_LEN3(kind, dim, cap) ((kind) == GSU_PARTIAL_HESSIAN ? \
	GSU_PARTIAL_HESS_SUP(dim) + ((cap) > 0 ? ((Size) (dim) + 1) * (1 + (Size) (cap)) + 5 : 0) : \
	(Size) (dim) + 1)
#define GSU_PARTIAL_LEN(kind, dim) GSU_PARTIAL_LEN3(kind, dim, 0)
#define GSU_PARTIAL_VLEN(p) (GSU_PARTIAL_LEN3((p)->kind, (p)->dim, \
	(p)->kind == GSU_PARTIAL_HESSIAN ? (p)->steps : 0) + \
	(((p)->flags & GSU_PARTIAL_MISSING) ? GSU_PARTIAL_MISS_LEN((p)->dim) : 0))
#define GSU_PARTIAL_SIZE_OF(kind, dim) (offsetof(GsuPartial, vec) + \
	sizeof(double) * GSU_PARTIAL_LEN(kind, dim))
#define GSU_PARTIAL_SIZE(dim) GSU_PARTIAL_SIZE_OF(GSU_PARTIAL_GRADIENT, dim)
/* the largest dimension of a hessian partial: its Σ ∇²L_i within 64 MB */
#define GSU_PARTIAL_HESS_MAX_DIM 4000

/* The bytes of a hessian partial of dimension dim, with (band) the hinge polish's band rows. */
Size		gsu_partial_hessian_bytes(int dim, bool band);
/* the band rows a hessian partial keeps: 500 + 4 per dimension, within the maximum */
int64		gsu_partial_support_capacity(int dim);

/*
 * Whether a partial of kind may hold sums of loss: a loss with a gradient
 * pass (gsu.gradient, gsu.hessian, gsu.train_sgd), or a regression loss in
 * a partial of any kind: hessian (gsu.regression_hessian), gradient
 * (gsu.regression_gradient; both gsu_partial_regression.c) or sgd
 * (gsu.train_regression_sgd, gsu_partial_regression_sgd.c).
 */
bool		gsu_partial_loss_ok(int loss, int kind);

/* a partial of kind and dim in mcxt (lambda and subspace_fraction 1, everything else zero) */
GsuPartial *gsu_partial_alloc_in(MemoryContext mcxt, int dim, int kind);
/* a hessian partial with room for cap band rows (steps = cap) */
GsuPartial *gsu_partial_alloc_cap(MemoryContext mcxt, int dim, int kind, int64 cap);
/* an sgd partial with flags (GSU_PARTIAL_MISSING: its block, zero) */
GsuPartial *gsu_partial_alloc_sgd(MemoryContext mcxt, int dim, uint16 flags);
/* A stored gsu.partial, detoasted, in the current format (a format-1 value is converted). */
GsuPartial *gsu_partial_from_datum(Datum d);
/* Checks every field (ereports when bad) and puts it in canonical form (+0 for -0). */
void		gsu_partial_validate(GsuPartial *p, int code);

/*
 * A partial that a function is about to return must be one that input
 * accepts (a dump of it must restore): sums that overflowed to ±Infinity
 * are an error (22003) here, not a value; the rest made canonical.
 */
void		gsu_partial_check_produced(GsuPartial *p);

/*
 * a·x + b·y of two gradient or hessian partials at one point (x or y may be
 * NULL): the sums of two classes with their class weights (gsu.fit)
 */
GsuPartial *gsu_partial_weighted_sum(const GsuPartial *x, double a, const GsuPartial *y, double b);

/*
 * The gsu.partial value of an aggregate's own running state d: gsu.hessian's
 * state is an expanded object, passed read-write to its transition and
 * combine functions and read-only to its final function, whose pending
 * Hessian terms are added first (gsu_partial_agg.c); any other state is the
 * value itself.
 */
GsuPartial *gsu_partial_state_value(Datum d);

/* b added into a, then a checked (gsu_partial.c); errors 22000 for partials that do not combine */
void		gsu_partial_combine_into(GsuPartial *a, const GsuPartial *b);

/*
 * A pass row (mean argument mean_arg, variance var_arg) with missing mean
 * elements under a model at that has the moments of option "missing"
 * (gsu_partial_missing.c): *mean filled with the feature means (a copy) and
 * *rc the row's covariance with the feature variances added at them, as
 * gsu.train fills its rows.  False, with nothing set, when at has no
 * moments or the row no missing element (NaN is missing only for a model
 * of "missing_nan"; else a stored NaN is an error here).
 */
struct GsuModel;
bool		gsu_partial_missing_row(const struct GsuModel *at, FunctionCallInfo fcinfo, int mean_arg,
									int var_arg, GsuVec *mean, GsuRowCov *rc);

/*
 * The streaming sgd aggregates' rows under option "missing" (given both
 * moments, gsu_require_missing_moments; gsu_partial_missing.c).
 * gsu_partial_sgd_state: a new state of dim (with the option: the flag
 * GSU_PARTIAL_MISSING, the moments read from options, the counts zero).
 * gsu_partial_sgd_mean: the row's mean array (with the option: NULL and,
 * with "missing_nan", NaN elements counted in *nmiss, NaN in a copy).
 * gsu_partial_sgd_fill: a row of nmiss > 0 missing elements filled from the
 * state's moments and counted there; its covariance from argument var_arg.
 */
struct GsuTrainOptions;
/* the flags of o's "missing" and "missing_nan" (0 without the option) */
uint16		gsu_partial_sgd_flags(const struct GsuTrainOptions *o);
/*
 * whether the moments that options give (read for st's dimension) are the
 * ones st fills its rows with (true for a state without them): a later
 * row's options, checked when their value changes
 */
bool		gsu_partial_sgd_same_moments(const GsuPartial *st, Jsonb *options);
GsuPartial *gsu_partial_sgd_state(MemoryContext aggctx, int dim, const struct GsuTrainOptions *o,
								  Jsonb *options);
GsuVec		gsu_partial_sgd_mean(const struct GsuTrainOptions *o, ArrayType *a, int *nmiss);
GsuRowCov	gsu_partial_sgd_fill(GsuPartial *st, FunctionCallInfo fcinfo, int var_arg, GsuVec *mean,
								 int nmiss);

/* "gradient", "sgd", "hessian": a kind's name in messages and in the text form */
const char *gsu_partial_kind_name(int kind);

#endif							/* GSU_PARTIAL_H */
