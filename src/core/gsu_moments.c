/*
 * gsu_moments.c — Welford update and Chan et al. merge of the mean and
 * co-moment of a stream of vectors, with a double-double running mean (see
 * gsu_moments.h for the equations).
 */
#include "gsu_moments.h"

#include <float.h>
#include <math.h>
#include <string.h>

size_t
gsu_moments_doubles(int d, int full)
{
	return 2 * (size_t) d + (full ? (size_t) d * (size_t) d : (size_t) d);
}

void
gsu_moments_attach(gsu_moments *m, int d, int full, int64_t n, double *store)
{
	m->d = d;
	m->full = full ? 1 : 0;
	m->n = n;
	m->mean = store;
	m->mean_lo = store + d;
	m->m2 = store + 2 * (size_t) d;
}

void
gsu_moments_init(gsu_moments *m, int d, int full, double *store)
{
	gsu_moments_attach(m, d, full, 0, store);
	memset(store, 0, sizeof(double) * gsu_moments_doubles(d, m->full));
}

/*
 * (hi, lo) ← (hi, lo) + inc, renormalized.  TwoSum (Knuth, TAOCP vol. 2,
 * 4.2.2): s = fl(hi + inc) and e = hi + inc − s exactly; then the same for
 * s + (lo + e), so that hi = fl(hi + lo) and |lo| ≤ ulp(hi)/2.
 */
static inline void
dd_add(double *hi, double *lo, double inc)
{
	double		s = *hi + inc;
	double		bb = s - *hi;
	double		e = (*hi - (s - bb)) + (inc - bb);
	double		t = *lo + e;
	double		h = s + t;

	bb = h - s;
	*lo = (s - (h - bb)) + (t - bb);
	*hi = h;
}

/* δ_j = x_j − x̄_j with x̄_j = hi + lo */
static inline double
deviation(const gsu_moments *m, int j, double xj)
{
	return (xj - m->mean[j]) - m->mean_lo[j];
}

/*
 * Every off-diagonal |M2_ij| ≤ √(M2_ii M2_jj), so a finite mean and diagonal
 * mean a finite state (up to rounding).
 */
static gsu_status
check_finite(const gsu_moments *m)
{
	size_t		stride = m->full ? (size_t) m->d + 1 : 1;
	int			j;

	for (j = 0; j < m->d; j++)
		if (!isfinite(m->mean[j]) || !isfinite(m->mean_lo[j]) ||
			!isfinite(m->m2[(size_t) j * stride]))
			return GSU_ENOTFINITE;
	return GSU_OK;
}

gsu_status
gsu_moments_validate(const gsu_moments *m)
{
	size_t		total = gsu_moments_doubles(m->d, m->full);
	size_t		stride = m->full ? (size_t) m->d + 1 : 1;
	const double *all = m->mean;
	size_t		k;
	int			i,
				j;

	if (m->d < 1 || m->n < 0)
		return GSU_EINVAL;
	for (k = 0; k < total; k++)
		if (!isfinite(all[k]) || (m->n == 0 && all[k] != 0.0))
			return GSU_EINVAL;
	for (j = 0; j < m->d; j++)
		if (!(fabs(m->mean_lo[j]) <= DBL_EPSILON * fabs(m->mean[j])) ||
			m->m2[(size_t) j * stride] < 0.0)
			return GSU_EINVAL;
	if (m->full)
		for (i = 1; i < m->d; i++)
			for (j = 0; j < i; j++)
				if (m->m2[(size_t) i * m->d + j] != 0.0)
					return GSU_EINVAL;
	return GSU_OK;
}

gsu_status
gsu_moments_add(gsu_moments *m, const double *x)
{
	int			d = m->d;
	double		n = (double) (m->n + 1);
	double		alpha = (n - 1.0) / n;
	int			i,
				j;

	m->n++;
	if (!m->full)
	{
		for (j = 0; j < d; j++)
		{
			double		delta = deviation(m, j, x[j]);

			m->m2[j] += (alpha * delta) * delta;
			dd_add(&m->mean[j], &m->mean_lo[j], delta / n);
		}
		return check_finite(m);
	}

	/*
	 * M2_ij += (n−1)/n δ_i δ_j for j ≥ i, without scratch storage: rows top
	 * down, x̄_i updated after its own row, so δ_j (j ≥ i) still uses the old
	 * means.  The diagonal gets the same operations as a diagonal state.
	 */
	for (i = 0; i < d; i++)
	{
		double		di = deviation(m, i, x[i]);
		double		s = alpha * di;
		double	   *row = m->m2 + (size_t) i * d;

		row[i] += s * di;
		if (alpha > 0.0)
			for (j = i + 1; j < d; j++)
				row[j] += s * deviation(m, j, x[j]);
		dd_add(&m->mean[i], &m->mean_lo[i], di / n);
	}
	return check_finite(m);
}

gsu_status
gsu_moments_merge(gsu_moments *a, const gsu_moments *b)
{
	int			d = a->d;
	double		na,
				nb,
				n,
				f,
				g;
	int			i,
				j;

	if (a->d != b->d || a->full != b->full)
		return GSU_EINVAL;
	if (b->n == 0)
		return GSU_OK;
	if (a->n == 0)
	{
		a->n = b->n;
		/* both blocks start at mean (gsu_moments_attach) */
		memcpy(a->mean, b->mean, sizeof(double) * gsu_moments_doubles(d, a->full));
		return GSU_OK;
	}
	na = (double) a->n;
	nb = (double) b->n;
	n = na + nb;
	f = na * (nb / n);			/* n_A n_B / n, without forming n_A n_B */
	g = nb / n;

#define MERGE_DELTA(j) \
	((b->mean[j] - a->mean[j]) + (b->mean_lo[j] - a->mean_lo[j]))

	if (!a->full)
	{
		for (j = 0; j < d; j++)
		{
			double		delta = MERGE_DELTA(j);

			a->m2[j] += b->m2[j] + (f * delta) * delta;
			dd_add(&a->mean[j], &a->mean_lo[j], delta * g);
		}
	}
	else
	{
		/* the upper triangle first, from the old means; then the means */
		for (i = 0; i < d; i++)
		{
			double		s = f * MERGE_DELTA(i);
			double	   *ra = a->m2 + (size_t) i * d;
			const double *rb = b->m2 + (size_t) i * d;

			for (j = i; j < d; j++)
				ra[j] += rb[j] + s * MERGE_DELTA(j);
		}
		for (j = 0; j < d; j++)
		{
			double		delta = MERGE_DELTA(j);

			dd_add(&a->mean[j], &a->mean_lo[j], delta * g);
		}
	}
#undef MERGE_DELTA
	a->n += b->n;
	return check_finite(a);
}

gsu_status
gsu_moments_covariance(const gsu_moments *m, int ddof, double *out)
{
	int			d = m->d;
	double		den;
	int			i,
				j;

	if ((ddof != 0 && ddof != 1) || m->n - ddof <= 0)
		return GSU_EINVAL;
	den = (double) (m->n - ddof);
	if (!m->full)
	{
		for (j = 0; j < d; j++)
			out[j] = m->m2[j] / den;
		return GSU_OK;
	}
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++)
		{
			double		c = m->m2[(size_t) i * d + j] / den;

			/* an off-diagonal entry may round past DBL_MAX where no diagonal does */
			if (!isfinite(c))
				return GSU_ENOTFINITE;
			out[(size_t) i * d + j] = c;
			out[(size_t) j * d + i] = c;
		}
	return GSU_OK;
}
