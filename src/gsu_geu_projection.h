/*
 * gsu_geu_projection.h — the gsu.projection type: a GEU projection z = V'x
 * (gsu_geu_projection.c; trained by gsu.geu_fit, gsu_geu_fit.c).
 */
#ifndef GSU_GEU_PROJECTION_H
#define GSU_GEU_PROJECTION_H

#include "gsu_glue.h"

#define GSU_PROJECTION_FORMAT 1

#define GSU_PROJ_LDA 0
#define GSU_PROJ_MFA 1
#define GSU_PROJ_METHOD_MAX 1

/* flags (every other bit must be zero) */
#define GSU_PROJ_UNCERTAIN 0x0001	/* some row had a non-zero variance */
/*
 * ε was added to the penalty scatter S^p only ("regularize": "penalty");
 * clear: to both S and S^p, the only form before this flag existed, so
 * stored projections keep their meaning.  Only set when regularization > 0.
 */
#define GSU_PROJ_REG_PENALTY 0x0002
#define GSU_PROJ_FLAGS_KNOWN 0x0003

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

#endif							/* GSU_GEU_PROJECTION_H */
