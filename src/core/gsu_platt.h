/*
 * gsu_platt.h — Platt calibration of decision values (see gsu_platt.c).
 */
#ifndef GSU_PLATT_H
#define GSU_PLATT_H

#include "gsu_base.h"

/*
 * Fits A, B of P(y = 1 | f) = 1/(1 + exp(A·f + B)) to n decision values f
 * with labels y (±1).  *iterations (NULL allowed) receives the Newton steps.
 */
gsu_status	gsu_platt_fit(int64_t n, const double *f, const double *y,
						  double *a, double *b, int *iterations);

/* 1/(1 + exp(A·f + B)), without overflow. */
double		gsu_platt_probability(double a, double b, double f);

#endif							/* GSU_PLATT_H */
