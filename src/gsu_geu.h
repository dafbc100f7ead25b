/*
 * gsu_geu.h — the GEU glue: the gsu.projection and gsu.refset varlenas, the
 * cache of detoasted arguments, and covariance arguments (diagonal or full).
 */
#ifndef GSU_GEU_GLUE_H
#define GSU_GEU_GLUE_H

#include "gsu_pg.h"

#include "utils/memutils.h"

/* ----------------------------------------------------------- projection */

#define GSU_PROJECTION_FORMAT 1

#define GSU_PROJ_LDA 0
#define GSU_PROJ_MFA 1
#define GSU_PROJ_METHOD_MAX 1

/* flags (every other bit must be zero) */
#define GSU_PROJ_UNCERTAIN 0x0001	/* some row had a non-zero variance */
#define GSU_PROJ_FLAGS_KNOWN 0x0001

/*
 * A projection z = Vᵀx.  data holds the dims eigenvalues, then Vᵀ as dims
 * rows of dim coefficients (row j is the j-th direction).  Padding is zero.
 */
typedef struct GsuProjection
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	uint16		format;			/* GSU_PROJECTION_FORMAT */
	uint16		flags;
	int32		dim;			/* input dimension d */
	int32		dims;			/* output dimension k, 1 ≤ k ≤ d */
	uint8		method;			/* GSU_PROJ_LDA / GSU_PROJ_MFA */
	uint8		reserved8;		/* must be zero */
	uint16		reserved;		/* must be zero */
	int32		k1;				/* MFA neighbourhood sizes; 0 for LDA */
	int32		k2;
	int32		classes;		/* classes in the training data (≥ 2) */
	int64		rows;			/* training rows */
	double		regularization; /* ε ≥ 0 */
	double		data[FLEXIBLE_ARRAY_MEMBER];
} GsuProjection;

#define GSU_PROJECTION_SIZE(dim, dims) \
	(offsetof(GsuProjection, data) + sizeof(double) * ((Size) (dims) * ((Size) (dim) + 1)))
#define GSU_PROJ_EIGENVALUES(p) ((p)->data)
#define GSU_PROJ_VT(p) ((p)->data + (p)->dims)

GsuProjection *gsu_projection_alloc(int dim, int dims);
void		gsu_projection_validate(GsuProjection *p, int code);
const char *gsu_projection_method_name(int method);

/* ---------------------------------------------------------------- refset */

#define GSU_REFSET_FORMAT 1

#define GSU_REFSET_LABELLED 0x0001
#define GSU_REFSET_FLAGS_KNOWN 0x0001

/*
 * A reference set: rows × dim values (row-major), then the rows' squared
 * norms ‖x_i‖² (derived: recomputed on every input, never read from
 * outside), then, when labelled, rows int32 labels.  Padding is zero.
 */
typedef struct GsuRefset
{
	int32		vl_len_;		/* varlena header (do not touch directly) */
	uint16		format;			/* GSU_REFSET_FORMAT */
	uint16		flags;
	int32		dim;
	int32		rows;
	int32		reserved;		/* must be zero */
	double		data[FLEXIBLE_ARRAY_MEMBER];
} GsuRefset;

#define GSU_REFSET_SIZE(dim, rows, labelled) \
	(offsetof(GsuRefset, data) + sizeof(double) * (Size) (rows) * ((Size) (dim) + 1) + \
	 ((labelled) ? MAXALIGN(sizeof(int32) * (Size) (rows)) : 0))
#define GSU_REFSET_X(r) ((r)->data)
#define GSU_REFSET_NORMS(r) ((r)->data + (Size) (r)->rows * (r)->dim)
#define GSU_REFSET_LABELS(r) \
	(((r)->flags & GSU_REFSET_LABELLED) ? \
	 (int32 *) ((r)->data + (Size) (r)->rows * ((r)->dim + 1)) : (int32 *) NULL)

/* Largest refset and projection payload: a varlena holds at most 1 GB. */
#define GSU_GEU_MAX_VARLENA ((Size) MaxAllocSize - VARHDRSZ)

/* Allocates a zeroed refset; errors (54000) when it would not fit a varlena. */
GsuRefset  *gsu_refset_alloc(int dim, int64 rows, bool labelled);


/* A float8[] from n doubles. */
ArrayType  *gsu_float8_array(const double *v, int n);

#endif							/* GSU_GEU_GLUE_H */
