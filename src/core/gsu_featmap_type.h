/*
 * gsu_featmap_type.h — a feature map as the core's files read it: its kinds
 * and the struct gsu_featmap (no functions), the bottom of the feature
 * maps' family: gsu_featmap_poly2.h and gsu_featmap.h build on it.
 */
#ifndef GSU_FEATMAP_TYPE_H
#define GSU_FEATMAP_TYPE_H

/* map kinds (the values gsu.model stores; the glue's gsu_options.h and gsu_model.h use the same) */
#ifndef GSU_MAP_NONE
#define GSU_MAP_NONE 0
#define GSU_MAP_RFF 1
#define GSU_MAP_NYSTROEM 2
#define GSU_MAP_POLY2 3
#endif

/*
 * A feature map, as stored in a model: kind, input dimension p, output
 * (mapped) dimension D, σ, and the matrices.  RFF: omega is (D/2) × p,
 * row-major.  Nyström: landmarks is m × p, proj is m × D (D = r).
 */
typedef struct gsu_featmap
{
	int			kind;			/* GSU_MAP_* */
	int			p;				/* input dimension */
	int			dim;			/* mapped dimension */
	int			landmarks;		/* Nyström: m; RFF: 0 */
	double		sigma;
	const double *omega;
	const double *z;			/* Nyström landmarks */
	const double *proj;
} gsu_featmap;

#endif							/* GSU_FEATMAP_TYPE_H */
