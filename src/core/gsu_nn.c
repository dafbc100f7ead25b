/*
 * gsu_nn.c — exact k-nearest-neighbour search (see gsu_nn.h for the
 * screening bound that makes the blocked search equal to brute force).
 */
#include "gsu_nn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

/* queries and reference rows per dgemm tile */
#define QUERY_BLOCK 64
#define REF_BLOCK 256

/* plain sums at or above this are exact keys: no term that underflowed can matter */
#define PLAIN_MIN 0x1p-900
#define PLAIN_MIN_EXP (-899)	/* m·2^e, m in [0.5, 1), is ≥ PLAIN_MIN iff e ≥ this */

static const gsu_nn_dist dist_zero = {0.0, -1};
static const gsu_nn_dist dist_none = {INFINITY, 2};

static gsu_nn_dist sqdist_key_scaled(int d, const double *a, const double *b);

/* the plain sum, and the scaled path only when it is out of range */
static inline gsu_nn_dist
sqdist_key(int d, const double *a, const double *b)
{
	gsu_nn_dist k;
	double		s = 0.0;
	int			l;

	for (l = 0; l < d; l++)
	{
		double		t = a[l] - b[l];

		s += t * t;
	}
	if (s >= PLAIN_MIN && s <= DBL_MAX)
	{
		k.v = s;
		k.scale = 0;
		return k;
	}
	return sqdist_key_scaled(d, a, b);
}

gsu_nn_dist
gsu_sqdist_key(int d, const double *a, const double *b)
{
	return sqdist_key(d, a, b);
}

static gsu_nn_dist
sqdist_key_scaled(int d, const double *a, const double *b)
{
	gsu_nn_dist k;
	double		s,
				big = 0.0,
				m;
	int			l,
				half = 0,
				e,
				ee;

	/*
	 * Overflow or (near) underflow: scale by 2^−e, 2^e the power of two of the
	 * largest |difference| (exact for every normal scaled difference).  A
	 * difference of two finite doubles can overflow; then use halves.
	 */
	for (l = 0; l < d; l++)
	{
		double		t = fabs(a[l] - b[l]);

		if (isnan(t))
			return dist_none;	/* a row that is not finite: no distance */
		if (isinf(t))
			half = 1;
		if (t > big)
			big = t;
	}
	if (half)
	{
		big = 0.0;
		for (l = 0; l < d; l++)
		{
			double		t = fabs(0.5 * a[l] - 0.5 * b[l]);

			if (t > big)
				big = t;
		}
	}
	if (big == 0.0)
		return dist_zero;
	(void) frexp(big, &e);
	s = 0.0;
	for (l = 0; l < d; l++)
	{
		double		t = half ? 0.5 * a[l] - 0.5 * b[l] : a[l] - b[l];

		t = ldexp(t, -e);
		s += t * t;
	}
	/* s in [0.25, d]: the value is m·2^ee, ee = its exponent + 2e + 2·half */
	m = frexp(s, &ee);
	ee += 2 * e + 2 * half;
	if (ee > DBL_MAX_EXP)
	{
		k.scale = 1;
		k.v = ldexp(m, ee - GSU_NN_DIST_SHIFT);
	}
	else if (ee >= PLAIN_MIN_EXP)
	{
		k.scale = 0;
		k.v = ldexp(m, ee);
	}
	else
	{
		k.scale = -1;
		k.v = ldexp(m, ee + GSU_NN_DIST_SHIFT);
	}
	return k;
}

int
gsu_nn_dist_cmp(gsu_nn_dist a, gsu_nn_dist b)
{
	if (a.scale != b.scale)
		return a.scale < b.scale ? -1 : 1;
	if (a.v != b.v)
		return a.v < b.v ? -1 : 1;
	return 0;
}

double
gsu_nn_dist_value(gsu_nn_dist k)
{
	if (k.scale == 0)
		return k.v;
	if (k.scale > 0)
		return INFINITY;
	return ldexp(k.v, -GSU_NN_DIST_SHIFT);
}

gsu_status
gsu_nn_variance(int d, const double *x, const double *xn, double sigma, double *out, int *bad)
{
	int			l;

	for (l = 0; l < d; l++)
	{
		double		t = x[l] - xn[l];

		if (isinf(t))
		{
			t = 0.5 * x[l] - 0.5 * xn[l];
			out[l] = sigma * t * t * 4.0;
		}
		else
			out[l] = sigma * t * t;
		if (!isfinite(out[l]))
		{
			*bad = l;
			return GSU_ENOTFINITE;
		}
	}
	return GSU_OK;
}

double
gsu_sqdist(int d, const double *a, const double *b)
{
	return gsu_nn_dist_value(gsu_sqdist_key(d, a, b));
}

/*
 * A double t ≥ the key's value (for the screen): exact in the plain range,
 * one subnormal step up below it (ldexp may round down), +∞ above.
 */
static inline double
dist_ceiling(gsu_nn_dist k)
{
	if (k.scale == 0)
		return k.v;
	if (k.scale > 0)
		return INFINITY;
	return ldexp(k.v, -GSU_NN_DIST_SHIFT) + DBL_TRUE_MIN;
}

void
gsu_row_sqnorms(int64_t n, int d, const double *x, double *norms)
{
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		const double *r = x + i * d;
		double		s = 0.0;
		int			l;

		for (l = 0; l < d; l++)
			s += r[l] * r[l];
		norms[i] = s;
	}
}

int64_t
gsu_find_row(int64_t n, int d, const double *x, const int32_t *labels,
			 const double *q, const int32_t *label)
{
	int64_t		i;

	for (i = 0; i < n; i++)
	{
		const double *r = x + i * d;
		int			l;

		if (r[0] != q[0])
			continue;
		if (labels && label && labels[i] != *label)
			continue;
		for (l = 1; l < d; l++)
			if (r[l] != q[l])
				break;
		if (l == d)
			return i;
	}
	return -1;
}

/* (da, ia) comes after (db, ib) in the (distance, index) order */
static inline int
worse(gsu_nn_dist da, int64_t ia, gsu_nn_dist db, int64_t ib)
{
	return da.scale > db.scale ||
		(da.scale == db.scale && (da.v > db.v || (da.v == db.v && ia > ib)));
}

/* max-heap on (distance, index) of the k best so far; h[0] is the worst */
static void
heap_sift_down(gsu_nn_dist *hd, int64_t *hi, int size, int pos)
{
	for (;;)
	{
		int			l = 2 * pos + 1,
					r = l + 1,
					top = pos;
		gsu_nn_dist td;
		int64_t		ti;

		if (l < size && worse(hd[l], hi[l], hd[top], hi[top]))
			top = l;
		if (r < size && worse(hd[r], hi[r], hd[top], hi[top]))
			top = r;
		if (top == pos)
			return;
		td = hd[pos];
		ti = hi[pos];
		hd[pos] = hd[top];
		hi[pos] = hi[top];
		hd[top] = td;
		hi[top] = ti;
		pos = top;
	}
}

static void
heap_push(gsu_nn_dist *hd, int64_t *hi, int size, gsu_nn_dist d, int64_t i)
{
	int			pos = size;

	hd[pos] = d;
	hi[pos] = i;
	while (pos > 0)
	{
		int			parent = (pos - 1) / 2;

		if (!worse(hd[pos], hi[pos], hd[parent], hi[parent]))
			break;
		hd[pos] = hd[parent];
		hi[pos] = hi[parent];
		hd[parent] = d;
		hi[parent] = i;
		pos = parent;
	}
}

/* heap → ascending order, in place */
static void
heap_sort(gsu_nn_dist *hd, int64_t *hi, int size)
{
	int			end;

	for (end = size - 1; end > 0; end--)
	{
		gsu_nn_dist td = hd[0];
		int64_t		ti = hi[0];

		hd[0] = hd[end];
		hi[0] = hi[end];
		hd[end] = td;
		hi[end] = ti;
		heap_sift_down(hd, hi, end, 0);
	}
}

gsu_status
gsu_knn(const gsu_nn_set *ref, int64_t m, const double *q, const double *qnorms,
		const int32_t *qlabels, gsu_nn_filter filter, const int64_t *exclude, int k,
		int64_t *idx, gsu_nn_dist *dist, int *count, gsu_progress_fn progress,
		void *progress_arg)
{
	const int	d = ref->d;
	const double slack = GSU_NN_SLACK * (double) (d + 8) * DBL_EPSILON;
	const double tiny = GSU_NN_SLACK * (double) (d + 8) * DBL_MIN;
	double	   *g,
			   *qn_own = NULL;
	int64_t		q0,
				i;

	if (k < 1 || d < 1 || m < 0 || ref->n < 0 ||
		(filter != GSU_NN_ANY && (ref->labels == NULL || qlabels == NULL)))
		return GSU_EINVAL;
	for (i = 0; i < m; i++)
	{
		int			r;

		count[i] = 0;
		for (r = 0; r < k; r++)
		{
			idx[i * k + r] = -1;
			dist[i * k + r] = dist_none;
		}
	}
	if (m == 0 || ref->n == 0)
		return GSU_OK;

	g = malloc(sizeof(double) * QUERY_BLOCK * REF_BLOCK);
	if (g == NULL)
		return GSU_ENOMEM;
	if (qnorms == NULL)
	{
		qn_own = malloc(sizeof(double) * (size_t) m);
		if (qn_own == NULL)
		{
			free(g);
			return GSU_ENOMEM;
		}
		gsu_row_sqnorms(m, d, q, qn_own);
		qnorms = qn_own;
	}

	for (q0 = 0; q0 < m; q0 += QUERY_BLOCK)
	{
		int			mb = (int) (m - q0 < QUERY_BLOCK ? m - q0 : QUERY_BLOCK);
		int64_t		r0;

		if (progress && progress(progress_arg))
		{
			free(g);
			free(qn_own);
			return GSU_ECANCELLED;
		}
		for (r0 = 0; r0 < ref->n; r0 += REF_BLOCK)
		{
			int			nb = (int) (ref->n - r0 < REF_BLOCK ? ref->n - r0 : REF_BLOCK);
			int			a;

			/* g[a·nb + b] = q_{q0+a} · r_{r0+b} */
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, mb, nb, d,
						1.0, q + q0 * d, d, ref->x + r0 * d, d, 0.0, g, nb);

			for (a = 0; a < mb; a++)
			{
				int64_t		qi = q0 + a;
				const double *qv = q + qi * d;
				double		qn = qnorms[qi];
				gsu_nn_dist *hd = dist + qi * k;
				int64_t    *hi = idx + qi * k;
				int			cnt = count[qi];
				int64_t		skip = exclude ? exclude[qi] : -1;
				int32_t		ql = qlabels ? qlabels[qi] : 0;
				const double *ga = g + (size_t) a * nb;
				double		kth = cnt == k ? dist_ceiling(hd[0]) : INFINITY;
				int			b;

				for (b = 0; b < nb; b++)
				{
					int64_t		j = r0 + b;
					gsu_nn_dist e;

					if (j == skip)
						continue;
					if (filter == GSU_NN_SAME && ref->labels[j] != ql)
						continue;
					if (filter == GSU_NN_OTHER && ref->labels[j] == ql)
						continue;
					if (cnt == k)
					{
						double		rn = ref->norms[j];
						double		approx = qn + rn - 2.0 * ga[b];

						/*
						 * cannot beat the k-th best: skip (NaN never skips;
						 * +∞ only when the k-th best is finite and the
						 * bound finite, so the distance overflows)
						 */
						if (approx - (slack * (qn + rn) + tiny) > kth)
							continue;
						e = sqdist_key(d, qv, ref->x + j * d);
						if (!worse(hd[0], hi[0], e, j))
							continue;
						hd[0] = e;
						hi[0] = j;
						heap_sift_down(hd, hi, cnt, 0);
						kth = dist_ceiling(hd[0]);
					}
					else
					{
						e = sqdist_key(d, qv, ref->x + j * d);
						heap_push(hd, hi, cnt, e, j);
						cnt++;
						if (cnt == k)
							kth = dist_ceiling(hd[0]);
					}
				}
				count[qi] = cnt;
			}
		}
	}
	for (i = 0; i < m; i++)
		heap_sort(dist + i * k, idx + i * k, count[i]);
	free(g);
	free(qn_own);
	return GSU_OK;
}

typedef struct vote_item
{
	int32_t		label;
	int			rank;
} vote_item;

static int
cmp_vote_item(const void *a, const void *b)
{
	const vote_item *x = a,
			   *y = b;

	if (x->label != y->label)
		return x->label < y->label ? -1 : 1;
	return x->rank - y->rank;
}

int32_t
gsu_knn_vote(int count, const int64_t *idx, const int32_t *labels)
{
	vote_item	stack_items[64];
	vote_item  *items = stack_items;
	int32_t		best_label;
	int			best_count = 0,
				best_rank = 0,
				r;

	if (count == 1)
		return labels[idx[0]];
	if (count > 64)
	{
		items = malloc(sizeof(vote_item) * (size_t) count);
		if (items == NULL)
		{
			/* plain O(count²) count without the buffer */
			best_label = labels[idx[0]];
			for (r = 0; r < count; r++)
			{
				int			c = 0,
							s;

				for (s = 0; s < count; s++)
					c += labels[idx[s]] == labels[idx[r]];
				if (c > best_count)
				{
					best_count = c;
					best_label = labels[idx[r]];
				}
			}
			return best_label;
		}
	}
	for (r = 0; r < count; r++)
	{
		items[r].label = labels[idx[r]];
		items[r].rank = r;
	}
	qsort(items, (size_t) count, sizeof(vote_item), cmp_vote_item);
	best_label = items[0].label;
	for (r = 0; r < count;)
	{
		int			s = r;

		while (s < count && items[s].label == items[r].label)
			s++;
		/* items[r] has the lowest rank of its label */
		if (s - r > best_count || (s - r == best_count && items[r].rank < best_rank))
		{
			best_count = s - r;
			best_rank = items[r].rank;
			best_label = items[r].label;
		}
		r = s;
	}
	if (items != stack_items)
		free(items);
	return best_label;
}
