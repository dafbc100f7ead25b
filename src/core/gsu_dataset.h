/*
 * gsu_dataset.h — a training set held as dense arrays, gsu_dataset, and its
 * row weights and labels (gsu_dataset.c).
 */
#ifndef GSU_DATASET_H
#define GSU_DATASET_H

#include "gsu_cov.h"

/*
 * A training set held as dense arrays (row-major n×d).  Every row's
 * covariance is of the kind cov_kind, row i's is gsu_cov_row(cov_kind, cov,
 * d, cov_rank, i): the full matrix cov[i·d·d ..] (d×d, row-major,
 * symmetric), the factor L = cov[i·d·r ..] of Σ = LLᵀ (d×r, r = cov_rank),
 * diag(cov[i·d ..]), cov[i]·I, or 0 (certain rows; cov unused).  Row i
 * weighs weight[i] (finite, ≥ 0, not all 0) in the objective when weight !=
 * NULL, else 1.
 */
typedef struct gsu_dataset
{
	int64_t		n;
	int			d;
	const double *x;
	const double *y;			/* ±1.0 */
	gsu_cov_kind cov_kind;
	const double *cov;			/* n · gsu_cov_doubles(cov_kind, d) values */
	const double *weight;		/* c_i ≥ 0; NULL: every row weighs 1 */
	int			cov_rank;		/* GSU_COV_FACTOR: the columns of each L, else 0 */
} gsu_dataset;

/*
 * W = Σ_i c_i (n when ds->weight is NULL); GSU_EINVAL unless every weight
 * is finite and ≥ 0 and W is finite and > 0.
 */
gsu_status	gsu_weight_total(const gsu_dataset *ds, double *total);

/*
 * Row weights c_i = a_i b_i (a: the rows' own weights, NULL for ones; c holds
 * b, the weights of their classes, on entry) scaled by one power of two so that
 * the largest is in [1/4, 1) whatever the magnitudes: the objective divides by
 * their sum, so the scale does not change the problem, and neither an
 * overflowing product nor a denormal one loses the ratios.  work: n doubles.
 */
void		gsu_weights_product(int64_t n, const double *a, double *c, double *work);

/* One-vs-rest labels: yk_i = +1 where y_i = pos, else -1. */
void		gsu_ovr_labels(int64_t n, const double *y, double pos, double *yk);

#endif							/* GSU_DATASET_H */
