/*
 * gsu_regmetrics.h — the running moments behind the regression metrics
 * (RMSE, MAE, R², the mean negative log predictive density; the aggregates
 * gsu.rmse, gsu.mae, gsu.r2, gsu.nlpd of gsu_evaluation_regression.c):
 * running means updated one row at a time (Welford) and merged exactly
 * (Chan, Golub and LeVeque's pairwise update), so that no sum grows with the
 * rows and a parallel plan gives the serial result up to rounding.
 */
#ifndef GSU_REGMETRICS_H
#define GSU_REGMETRICS_H

#include "gsu_base.h"

/*
 * The state, five doubles in this order (the SQL state is a float8[5]):
 * the rows n, the targets' mean and sum of squared deviations, and the
 * means of two per-row terms a and b (gsu.rmse, gsu.mae, gsu.r2: the
 * squared and the absolute error; gsu.nlpd: the NLPD term and 0).
 */
typedef struct gsu_regmoments
{
	double		n;
	double		mean_y;
	double		m2_y;
	double		mean_a;
	double		mean_b;
} gsu_regmoments;

#define GSU_REGMOMENTS_LEN 5

/*
 * Whether s is a state these functions can make: every field finite, n a
 * whole number in [0, 2^53], m2_y ≥ 0, mean_b ≥ 0, all zero when n = 0.
 */
int			gsu_regmoments_valid(const gsu_regmoments *s);

/*
 * Adds the row (y, a, b); GSU_ENOTFINITE (s unchanged) when a moment would
 * leave the range of double.
 */
gsu_status	gsu_regmoments_add(gsu_regmoments *s, double y, double a, double b);

/* out = a ∪ b (out may be a or b); GSU_ENOTFINITE when a moment overflows. */
gsu_status	gsu_regmoments_merge(const gsu_regmoments *a, const gsu_regmoments *b,
								 gsu_regmoments *out);

/* 1 − n·mean_a / m2_y (a the squared error): NaN for n < 2 or m2_y = 0. */
double		gsu_regmoments_r2(const gsu_regmoments *s);

/*
 * −log N(y; mu, sd²) = ½ log 2π + log sd + ½((y − mu)/sd)², sd > 0 (NaN
 * otherwise).
 */
double		gsu_nlpd_term(double mu, double sd, double y);

#endif							/* GSU_REGMETRICS_H */
