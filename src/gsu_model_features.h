/*
 * gsu_model_features.h — a gsu.model's feature map applied when scoring
 * (gsu_model_features.c): it reads the model's layout (gsu_model_layout.h) only.
 */
#ifndef GSU_MODEL_FEATURES_H
#define GSU_MODEL_FEATURES_H

#include "gsu_model_layout.h"
#include "core/gsu_featmap.h"

/* The model's feature map, bound to its matrix block. */
void		gsu_model_featmap(const GsuModel *m, gsu_featmap *f);

/* φ(x) in a palloc'd array of dim doubles; x itself when there is no map. */
const double *gsu_model_map_mean(const GsuModel *m, const double *x);

/*
 * The decision values of a mean of input_dim elements: out[k] = w_kᵀφ(x) + b_k
 * for each of the GSU_MODEL_NVEC(m) vectors (φ the feature map, or the
 * identity).  Errors when the dimension is wrong or a value overflows.
 */
void		gsu_model_decisions(const GsuModel *m, const double *x, int n, double *out);

/*
 * A Gaussian input N(x, Σ) in the feature space of a model with a map: the
 * exact E φ(z) (*mean, dim doubles, palloc'd) and, for each of the
 * GSU_MODEL_NVEC(m) weight vectors w_k, quad[k] = w_kᵀ Cov φ(z) w_k, in
 * O(dim + landmarks · input_dim) memory whatever the map's size.
 */
void		gsu_model_map_quad(const GsuModel *m, const double *x, const GsuRowCov *rc,
							   double **mean, double *quad);

#endif							/* GSU_MODEL_FEATURES_H */
