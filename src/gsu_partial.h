/*
 * gsu_partial.h — gsu.partial, a partial training state that is an ordinary
 * SQL value (gsu_partial.c): gradients at a point, or a streaming SGD iterate.
 */
#ifndef GSU_PARTIAL_H
#define GSU_PARTIAL_H

#include "gsu_glue.h"


/*
 * Format 2 added `point`; values of format 1 (no point) are still read, as
 * gradients at an unknown point (gsu_partial_from_datum).  Format 3 added
 * `subspace_mode` in two bytes that format 2 kept zero (its reserved
 * field): a value of format 1 or 2 reads as mode "covariance", the only one
 * those formats knew.
 */
#define GSU_PARTIAL_FORMAT 3
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
	uint16		subspace_mode;	/* GSU_SUBSPACE_* (formats 1, 2: covariance, 0) */
	uint16		reserved;		/* must be zero */
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
/* the same in mcxt (lambda and subspace_fraction 1, everything else zero) */
GsuPartial *gsu_partial_alloc_in(MemoryContext mcxt, int dim, int kind);
/* A stored gsu.partial, detoasted, in the current format (a format-1 value is converted). */
GsuPartial *gsu_partial_from_datum(Datum d);
/* Checks every field (ereports when bad) and puts it in canonical form (+0 for -0). */
void		gsu_partial_validate(GsuPartial *p, int code);

#endif							/* GSU_PARTIAL_H */
