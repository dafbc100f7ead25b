/*
 * gsu_explain.h — per-feature explanation of a linear decision under an
 * uncertain input.
 *
 * For f(z) = wᵀz + b and a Gaussian input z ~ N(x, Σ), f(z) is Gaussian with
 * mean wᵀx + b and variance wᵀΣw.  Both split over the features j:
 *
 *     wᵀx + b = b + Σ_j c_j,      c_j = w_j x_j                (contribution)
 *     wᵀΣw    =     Σ_j s_j,      s_j = w_j (Σw)_j             (variance share)
 *
 * with s_j = w_j² Σ_jj for a diagonal Σ (and s·w_j² for Σ = s·I), which is
 * the variance feature j's own noise adds.  For a full Σ, s_j also holds
 * half of each covariance term 2 w_j w_k Σ_jk it takes part in, so a share
 * can be negative (noise that feature j shares with another cancels in the
 * decision); the shares still add up to wᵀΣw ≥ 0.
 *
 * These functions cannot fail: they allocate nothing (the caller gives the
 * output arrays) and return a value the caller checks for overflow.
 */
#ifndef GSU_EXPLAIN_H
#define GSU_EXPLAIN_H

#include "gsu_core.h"

/*
 * c_j = w_j x_j for j < d, theta = (w_1..w_d, b); returns b + Σ_j c_j, the
 * decision value (summed in gsu_decision's order).
 */
double		gsu_explain_contributions(int d, const double *theta, const double *x, double *c);

/*
 * s_j = var_j w_j² for a diagonal Σ (var != NULL) or iso·w_j² for Σ = iso·I
 * (var == NULL); returns wᵀΣw as gsu_quad_diag computes it.
 */
double		gsu_explain_shares_diag(int d, const double *w, const double *var, double iso,
									double *s);

/*
 * s_j = w_j (Σw)_j for a symmetric d×d Σ (row-major; its upper triangle is
 * read, as gsu_quad_full reads it); returns wᵀΣw as gsu_quad_full computes
 * it.
 */
double		gsu_explain_shares_full(int d, const double *w, const double *cov, double *s);

/* The shares for a row's covariance of any kind (zero for none); returns wᵀΣw. */
double		gsu_explain_shares(int d, const double *w, const gsu_cov *c, double *s);

#endif							/* GSU_EXPLAIN_H */
