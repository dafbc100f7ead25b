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

#include "gsu_cov.h"

/*
 * c_j = w_j x_j for j < d, theta = (w_1..w_d, b); returns b + Σ_j c_j, the
 * decision value (summed in gsu_decision's order).
 */
double		gsu_explain_contributions(int d, const double *theta, const double *x, double *c);

/*
 * The variance shares s_j of a decision value for a row's covariance of any
 * kind: s_j = w_j (Σw)_j, which is v_j w_j² for a diagonal Σ, iso·w_j² for
 * Σ = iso·I and 0 for none; they sum to wᵀΣw, which is returned.  For a
 * full Σ (symmetric d×d, row-major) the upper triangle is read.
 */
double		gsu_explain_shares(int d, const double *w, const gsu_cov *c, double *s);

#endif							/* GSU_EXPLAIN_H */
