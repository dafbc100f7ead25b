/*
 * gsu_geu_refset.h — the gsu.refset type: a reference set of rows for
 * nearest-neighbour uncertainty estimation (gsu_geu_refset.c).
 */
#ifndef GSU_GEU_REFSET_H
#define GSU_GEU_REFSET_H

#include "gsu_glue.h"

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

/* Allocates a zeroed refset; errors (54000) when it would not fit a varlena. */
GsuRefset  *gsu_refset_alloc(int dim, int64 rows, bool labelled);

#endif							/* GSU_GEU_REFSET_H */
