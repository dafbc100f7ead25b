/*
 * gsu_rng.c — the core's random numbers (gsu_rng.h): xoshiro256** seeded by
 * splitmix64, the same sequence on every platform.
 */
#include "gsu_rng.h"

#include <math.h>

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

void
gsu_rng_seed(gsu_rng *r, uint64_t seed)
{
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
gsu_rng_next(gsu_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t
gsu_rng_below(gsu_rng *r, uint64_t n)
{
	/* Lemire: multiply-shift with rejection of the biased low range */
	uint64_t	x = gsu_rng_next(r);
	__uint128_t m = (__uint128_t) x * n;
	uint64_t	l = (uint64_t) m;

	if (l < n)
	{
		uint64_t	threshold = (0 - n) % n;

		while (l < threshold)
		{
			x = gsu_rng_next(r);
			m = (__uint128_t) x * n;
			l = (uint64_t) m;
		}
	}
	return (uint64_t) (m >> 64);
}

double
gsu_rng_uniform(gsu_rng *r)
{
	return (double) (gsu_rng_next(r) >> 11) * 0x1.0p-53;
}

double
gsu_rng_normal(gsu_rng *r)
{
	double		u1,
				u2;

	do
		u1 = gsu_rng_uniform(r);
	while (u1 <= 0.0);
	u2 = gsu_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586477 * u2);
}
