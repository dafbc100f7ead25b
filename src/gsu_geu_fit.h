/*
 * gsu_geu_fit.h — the state of the gsu.geu_fit aggregate (gsu_geu_fit.c:
 * its options, transition, combine and final functions) and what its
 * serialized form (gsu_geu_wire.c) needs of it: the state's size arithmetic
 * and its memory error.  Not for other files.
 */
#ifndef GSU_GEU_FIT_H
#define GSU_GEU_FIT_H

#include "gsu_geu_projection.h"
#include "gsu_memory.h"

#define GEU_MAX_K 100000

typedef struct GeuOptions
{
	int32		method;			/* GSU_PROJ_LDA / GSU_PROJ_MFA */
	int32		dims;			/* 0: the default, min(classes − 1, dim) */
	int32		k1;
	int32		k2;
	int32		regularize;		/* GEU_REG_BOTH / GEU_REG_PENALTY: where ε goes */
	int32		pad;			/* zero: no padding in the serialized state */
	double		regularization;
} GeuOptions;

/* the "regularize" option: εI on both scatter matrices, or on S^p only */
#define GEU_REG_BOTH 0
#define GEU_REG_PENALTY 1

typedef struct GeuFitState
{
	GeuOptions	opt;
	int32		dim;			/* 0 until the first row */
	int64		n;				/* rows */
	bool		uncertain;		/* a row had a non-zero variance */
	/* lda: classes in order of first appearance */
	int32		nclass;
	int32		capclass;
	int32		last;			/* class of the previous row */
	int32	   *labels;
	int64	   *counts;
	double	   *means;			/* capclass × dim */
	double	   *m2;				/* capclass × dim², upper triangles */
	double	   *vdiag;			/* capclass × dim, Σ of diagonal variances */
	double	   *vfull;			/* capclass × dim², Σ of full covariances, or NULL */
	/* mfa: the rows */
	int64		cap;
	double	   *x;				/* cap × dim */
	int32	   *y;				/* cap */
	double	   *vd;				/* cap × dim diagonal variances, or NULL */
	double	   *vf;				/* cap × dim² full covariances, or NULL */
	double	   *work;			/* 2·dim */
	/* what the state counts against the limit (gsu_memory.h) */
	GsuMemCharge *mem;
	Size		wire_bytes;		/* a deserialized state: the bytes it came from */
} GeuFitState;

/*
 * The bytes the state's statistics or rows may hold: its share of the
 * limit, besides this process's other states and, for a deserialized state,
 * the serialized bytes it came from.
 */
static inline Size
limit_bytes_of(const GeuFitState *st)
{
	return gsu_mem_room_for(st->mem, st->wire_bytes);
}

/* lda: the statistics of classes (full: with the full covariance sums) */
static inline double
lda_bytes(const GeuFitState *st, int64 classes, bool full)
{
	double		d = st->dim;

	return (double) classes * (sizeof(double) * (d * d * (full ? 2.0 : 1.0) + 2.0 * d) +
							   sizeof(int32) + sizeof(int64));
}

/* mfa: rows with their diagonal (vd) and full (vf) variances */
static inline double
mfa_bytes(const GeuFitState *st, int64 rows, bool vd, bool vf)
{
	double		d = st->dim;

	return (double) rows * (sizeof(double) * (d + (vd ? d : 0.0) + (vf ? d * d : 0.0)) +
							sizeof(int32));
}

/* qsort's order of int32 labels */
static inline int
cmp_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a,
				y = *(const int32 *) b;

	return x < y ? -1 : x > y;
}

/* the error of a state beyond its limit; what: the subject of "need", e.g. "Holding 10 rows" */
void		gsu_geu_memory_error(const GeuFitState *st, double need, const char *what);

/* the dimension, fixed by the first row (allocates the state's work space) */
void		gsu_geu_set_dim(GeuFitState *st, int dim);

#endif							/* GSU_GEU_FIT_H */
