/*
 * gsu_featmap_internal.h — helpers on the input covariance Σ shared by the
 * files of the feature maps (gsu_featmap_moments.c defines them,
 * gsu_featmap_bounds.c uses them too).  Not part of the core's API.
 */
#ifndef GSU_FEATMAP_INTERNAL_H
#define GSU_FEATMAP_INTERNAL_H

#include "gsu_core.h"

/* ωᵀΣω for Σ = cov (full, p × p), diag(var) or iso·I; clamped at 0 */
/*
 * The kind-specific values the formulas of the feature maps read: diag(v)'s
 * v, a full matrix, or the isotropic value (NULL or 0 for other kinds).
 */
static inline const double *
gsu_cov_diag_data(const gsu_cov *c)
{
	return c->kind == GSU_COV_DIAG ? c->data : NULL;
}

static inline const double *
gsu_cov_full_data(const gsu_cov *c)
{
	return c->kind == GSU_COV_FULL ? c->data : NULL;
}

static inline double
gsu_cov_iso_value(const gsu_cov *c)
{
	return c->kind == GSU_COV_ISO ? c->iso : 0.0;
}

double		gsu_sigma_quad_form(int p, const double *om, const double *var, double iso,
								const double *cov);

/*
 * Eigen-decomposition of a full Σ (p × p): vals ascending (negative
 * rounding noise clamped to 0), vecs row-major with eigenvectors as
 * columns, both in one block (*block, caller frees).  GSU_ENOMEM, or
 * GSU_ENOTFINITE when dsyevr fails.
 */
gsu_status	gsu_sigma_eigen(int p, const double *cov, double **block, double **vals,
							double **vecs);

#endif							/* GSU_FEATMAP_INTERNAL_H */
