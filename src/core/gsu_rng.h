/*
 * gsu_rng.h — the core's random numbers (gsu_rng.c): xoshiro256** seeded
 * by splitmix64, reproducible across platforms.
 */
#ifndef GSU_RNG_H
#define GSU_RNG_H

#include <stdint.h>

typedef struct gsu_rng
{
	uint64_t	s[4];
} gsu_rng;

void		gsu_rng_seed(gsu_rng *r, uint64_t seed);
uint64_t	gsu_rng_next(gsu_rng *r);
/* Uniform integer in [0, n), n ≥ 1 (Lemire's multiply-shift, unbiased). */
uint64_t	gsu_rng_below(gsu_rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double		gsu_rng_uniform(gsu_rng *r);
/* Standard normal (Box–Muller, both values used in turn is not needed). */
double		gsu_rng_normal(gsu_rng *r);

#endif							/* GSU_RNG_H */
