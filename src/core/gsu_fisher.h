/*
 * gsu_fisher.h — Fisher's discriminant score of each feature, for feature
 * selection (the SVM-GSU paper's EEG experiment on DEAP, Tzelepis et al.,
 * TPAMI 2018, Sect. 4.4, ranks features by it):
 *
 *   F_j = (μ⁺_j − μ⁻_j)² / (σ⁺_j² + σ⁻_j²)
 *
 * with μ±, σ±² the mean and variance of feature j over the rows of label
 * ±1, σ² = M2/(n − ddof) (ddof = 1 sample, 0 population).  The per-class
 * moments are gsu_moments states (Welford update, Chan et al. merge), so
 * partial states combine exactly.
 *
 * A feature with σ⁺² + σ⁻² = 0 scores +∞ when the class means differ (it
 * separates the classes perfectly) and 0 when they do not (it is constant).
 */
#ifndef GSU_FISHER_H
#define GSU_FISHER_H

#include "gsu_base.h"
#include "gsu_moments.h"

/*
 * out[j] = F_j for the d features of two diagonal states of one dimension.
 * GSU_EINVAL when the dimensions differ, a state is full, or a class has
 * n ≤ ddof rows (its variance is undefined).
 */
gsu_status	gsu_fisher_score(const gsu_moments *pos, const gsu_moments *neg, int ddof,
							 double *out);

#endif							/* GSU_FISHER_H */
