/*
 * test_nn.c — unit tests of src/core/gsu_nn.c: the blocked exact k-NN search
 * against brute force (every distance, full sort), including ties, duplicate
 * rows, label filters, exclusion and data far from the origin (where the
 * ‖q‖² + ‖r‖² − 2qᵀr screen cancels badly), data whose squared distances
 * overflow or underflow double precision (ordered by distance all the same,
 * against a long double brute force), and the majority vote.
 *
 * Output: diagnostics on stderr, then "N passed, M failed" on stdout; exit
 * status non-zero on failure.  GSU_TEST_QUICK=1 shrinks the sizes.
 */
#include "gsu_nn.h"
#include "gsu_test.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a generator independent of the core's */
static uint64_t rng_state = 42;

/* the shared splitmix64 generator (test/gsu_test.c) on this file's state */
#define next_u64() test_next_u64(&rng_state)
#define unif() test_unif(&rng_state)

/* ---------------------------------------------------------- brute force */

typedef struct cand
{
	long double d;
	int64_t		i;
} cand;

static int
cmp_cand(const void *a, const void *b)
{
	const cand *x = a,
			   *y = b;

	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

/*
 * whether long double holds squares of every double (x86-64's 80-bit or
 * quad precision), checked at run time: valgrind computes long double in
 * double precision, and the kinds beyond double's range are skipped there
 */
static int
wide_long_double(void)
{
	volatile long double a = 1e300L;

	return LDBL_MAX_EXP >= 4096 && a * a > 1e599L && a * a < 1e601L;
}

/* Σ_l (a_l − b_l)² in long double: the reference of data beyond double's range */
static long double
ref_sqdist_wide(int d, const double *a, const double *b)
{
	long double s = 0.0L;
	int			l;

	for (l = 0; l < d; l++)
	{
		long double t = (long double) a[l] - (long double) b[l];

		s += t * t;
	}
	return s;
}

/* the definition: Σ_l (a_l − b_l)² in index order */
static double
ref_sqdist(int d, const double *a, const double *b)
{
	double		s = 0.0;
	int			l;

	for (l = 0; l < d; l++)
		s += (a[l] - b[l]) * (a[l] - b[l]);
	return s;
}

/*
 * brute-force k-NN of one query; returns the count.  wide: distances in
 * long double (for kinds 3–5, whose squares leave double's range).
 */
static int
brute_knn(int64_t n, int d, const double *x, const int32_t *labels, const double *q,
		  int32_t ql, gsu_nn_filter f, int64_t excl, int k, cand *all, int64_t *idx,
		  long double *dist, int wide)
{
	int64_t		i,
				m = 0;
	int			r;

	for (i = 0; i < n; i++)
	{
		if (i == excl)
			continue;
		if (f == GSU_NN_SAME && labels[i] != ql)
			continue;
		if (f == GSU_NN_OTHER && labels[i] == ql)
			continue;
		all[m].d = wide ? ref_sqdist_wide(d, q, x + i * d) : ref_sqdist(d, q, x + i * d);
		all[m].i = i;
		m++;
	}
	qsort(all, (size_t) m, sizeof(cand), cmp_cand);
	for (r = 0; r < k && r < m; r++)
	{
		idx[r] = all[r].i;
		dist[r] = all[r].d;
	}
	return r;
}

/*
 * kind 0: uniform in [−1, 1); 1: small integers (many exact ties and
 * duplicates); 2: 1e6 + tiny noise (the screen loses ~12 digits); 3: ±1e200
 * scale (squared distances overflow); 4: ±1e-200 scale (they underflow);
 * 5: near ±1e308 (the differences themselves overflow), with a few rows
 * at 1e-300 and 0.
 */
#define KINDS_PLAIN 3
#define KINDS_ALL 6
static void
fill(double *x, int64_t n, int d, int kind)
{
	int64_t		i;

	for (i = 0; i < n * d; i++)
	{
		if (kind == 0)
			x[i] = 2.0 * unif() - 1.0;
		else if (kind == 1)
			x[i] = (double) (next_u64() % 3);
		else if (kind == 2)
			x[i] = 1e6 + 1e-4 * unif();
		else if (kind == 3)
			x[i] = (2.0 * unif() - 1.0) * 1e200;
		else if (kind == 4)
			x[i] = (2.0 * unif() - 1.0) * 1e-200;
		else
		{
			uint64_t	r = next_u64() % 10;

			x[i] = r == 0 ? 0.0 : r == 1 ? 1e-300 * unif() : (2.0 * unif() - 1.0) * DBL_MAX;
		}
	}
}

static void
run_case(int64_t n, int64_t m, int d, int k, int kind, gsu_nn_filter f, int with_excl)
{
	double	   *x = malloc(sizeof(double) * n * d + 8);
	double	   *q = malloc(sizeof(double) * m * d + 8);
	double	   *norms = malloc(sizeof(double) * n + 8);
	int32_t    *labels = malloc(sizeof(int32_t) * n + 4);
	int32_t    *ql = malloc(sizeof(int32_t) * m + 4);
	int64_t    *excl = malloc(sizeof(int64_t) * m + 8);
	int64_t    *idx = malloc(sizeof(int64_t) * m * k);
	gsu_nn_dist *dist = malloc(sizeof(gsu_nn_dist) * m * k);
	int		   *count = malloc(sizeof(int) * m + 4);
	cand	   *all = malloc(sizeof(cand) * n + 16);
	int64_t    *bidx = malloc(sizeof(int64_t) * k);
	long double *bdist = malloc(sizeof(long double) * k);
	gsu_nn_set	set;
	gsu_status	s;
	int64_t		i;
	int			bad = 0;

	fill(x, n, d, kind);
	/* queries: half are reference rows (as in leave-one-out), half fresh */
	fill(q, m, d, kind);
	for (i = 0; i < m; i++)
	{
		excl[i] = -1;
		if (n > 0 && i % 2 == 0)
		{
			int64_t		j = (int64_t) (next_u64() % (uint64_t) n);

			memcpy(q + i * d, x + j * d, sizeof(double) * d);
			if (with_excl)
				excl[i] = j;
		}
		ql[i] = (int32_t) (next_u64() % 3) - 1;
	}
	for (i = 0; i < n; i++)
		labels[i] = (int32_t) (next_u64() % 3) - 1;
	gsu_row_sqnorms(n, d, x, norms);
	set.n = n;
	set.d = d;
	set.x = x;
	set.norms = norms;
	set.labels = labels;
	s = gsu_knn(&set, m, q, NULL, ql, f, excl, k, idx, dist, count, NULL, NULL);
	CHECK(s == GSU_OK, "status %d", (int) s);
	for (i = 0; i < m && s == GSU_OK; i++)
	{
		int			c = brute_knn(n, d, x, labels, q + i * d, ql[i], f, excl[i], k, all,
								  bidx, bdist, kind >= KINDS_PLAIN);
		int			r;

		if (count[i] != c)
		{
			bad++;
			CHECK(0, "n=%lld d=%d k=%d kind=%d f=%d query %lld: count %d, brute force %d",
				  (long long) n, d, k, kind, (int) f, (long long) i, count[i], c);
			continue;
		}
		for (r = 0; r < c; r++)
		{
			double		v = gsu_nn_dist_value(dist[i * k + r]);

			/*
			 * plain data: the very same sums; beyond double's range: the
			 * same order, and the value rounded from the wide one (relative
			 * error of a d-term sum; +∞ when beyond DBL_MAX)
			 */
			if (idx[i * k + r] != bidx[r] ||
				(kind < KINDS_PLAIN ? v != (double) bdist[r] :
				 !(bdist[r] > (long double) DBL_MAX ? isinf(v) :
				   fabsl((long double) v - bdist[r]) <=
				   1e-14L * d * bdist[r] + (long double) DBL_TRUE_MIN)))
			{
				bad++;
				CHECK(0, "n=%lld d=%d k=%d kind=%d f=%d query %lld rank %d: (%lld, %.17g), brute force (%lld, %.17Lg)",
					  (long long) n, d, k, kind, (int) f, (long long) i, r,
					  (long long) idx[i * k + r], v, (long long) bidx[r], bdist[r]);
				break;
			}
			if (r > 0)
				CHECK(gsu_nn_dist_cmp(dist[i * k + r - 1], dist[i * k + r]) <= 0,
					  "keys out of order at rank %d", r);
		}
		for (r = c; r < k; r++)
			CHECK(idx[i * k + r] == -1 && isinf(gsu_nn_dist_value(dist[i * k + r])) &&
				  dist[i * k + r].scale == 2, "unused slot %d", r);
	}
	(void) bad;
	free(x);
	free(q);
	free(norms);
	free(labels);
	free(ql);
	free(excl);
	free(idx);
	free(dist);
	free(count);
	free(all);
	free(bidx);
	free(bdist);
}

/* ---------------------------------------------------------------- tests */

static void
test_sqdist(void)
{
	double		a[3] = {1, 2, 3},
				b[3] = {4, 6, 3};
	double		x[6] = {1, 2, 3, 0, 0, 0},
				nr[2];

	CHECK(gsu_sqdist(3, a, b) == 25.0, "got %g", gsu_sqdist(3, a, b));
	CHECK(gsu_sqdist(3, a, a) == 0.0, "self distance");
	gsu_row_sqnorms(2, 3, x, nr);
	CHECK(nr[0] == 14.0 && nr[1] == 0.0, "norms %g %g", nr[0], nr[1]);
}

/* log2 of a key's value */
static double
key_log2(gsu_nn_dist k)
{
	return log2(k.v) + (double) GSU_NN_DIST_SHIFT * k.scale;
}

/* keys beyond double's range: ordered by value, and their values */
static void
test_sqdist_key(void)
{
	double		o[2] = {0, 0},
				a[2] = {1e200, 0},
				b[2] = {2e200, 0},
				t1[2] = {1e-200, 0},
				t2[2] = {2e-200, 0},
				big[2] = {DBL_MAX, -DBL_MAX},
				nbig[2] = {-DBL_MAX, DBL_MAX},
				sub[2] = {DBL_TRUE_MIN, 0},
				sub2[2] = {2 * DBL_TRUE_MIN, 0},
				one[2] = {1, 2};
	gsu_nn_dist k0 = gsu_sqdist_key(2, o, o),
				ka = gsu_sqdist_key(2, o, a),
				kb = gsu_sqdist_key(2, o, b),
				kab = gsu_sqdist_key(2, a, b),
				kt1 = gsu_sqdist_key(2, o, t1),
				kt2 = gsu_sqdist_key(2, o, t2),
				kbig = gsu_sqdist_key(2, big, nbig),
				kbig1 = gsu_sqdist_key(2, big, o),
				ks1 = gsu_sqdist_key(2, o, sub),
				ks2 = gsu_sqdist_key(2, o, sub2),
				k1 = gsu_sqdist_key(2, o, one);
	int			e;

	CHECK(gsu_nn_dist_value(k0) == 0.0 && k0.v == 0.0 && k0.scale == -1, "zero key");
	CHECK(k1.scale == 0 && k1.v == 5.0, "plain key");
	CHECK(gsu_nn_dist_value(k1) == 5.0, "plain key %g", gsu_nn_dist_value(k1));
	/* 1e400 and 4e400: both +∞ as doubles, ordered as keys */
	CHECK(isinf(gsu_nn_dist_value(ka)) && isinf(gsu_nn_dist_value(kb)), "overflowing values");
	CHECK(gsu_nn_dist_cmp(ka, kb) < 0 && gsu_nn_dist_cmp(kb, ka) > 0, "1e400 < 4e400");
	CHECK(gsu_nn_dist_cmp(ka, kab) == 0, "‖0 − 1e200‖² = ‖1e200 − 2e200‖²");
	CHECK(isinf(gsu_sqdist(2, o, a)), "gsu_sqdist overflows to +inf");
	/* m·2^e = 1e400: log2 within rounding */
	CHECK(ka.scale == 1 && fabs(key_log2(ka) - 400.0 * log2(10.0)) < 1e-9,
		  "key of 1e400: %.17g·2^(1200·%d)", ka.v, ka.scale);
	/* 1e-400 and 4e-400 underflow to 0 as doubles */
	CHECK(gsu_nn_dist_value(kt1) == 0.0 && gsu_nn_dist_cmp(k0, kt1) < 0 &&
		  gsu_nn_dist_cmp(kt1, kt2) < 0, "underflowing keys ordered");
	CHECK(gsu_nn_dist_cmp(ks1, ks2) < 0 && gsu_nn_dist_cmp(k0, ks1) < 0,
		  "subnormal differences ordered");
	(void) frexp(DBL_TRUE_MIN, &e);
	CHECK(ks1.scale == -1 && ks1.v == ldexp(1.0, 2 * (e - 1) + GSU_NN_DIST_SHIFT),
		  "key of DBL_TRUE_MIN²: %.17g·2^(1200·%d)", ks1.v, ks1.scale);
	/* differences of 2·DBL_MAX: the halves are used */
	CHECK(gsu_nn_dist_cmp(kbig1, kbig) < 0, "overflowing differences ordered");
	CHECK(kbig.scale == 1 && fabs(key_log2(kbig) - (2.0 * (1.0 + log2(DBL_MAX)) + 1.0)) < 1e-9,
		  "key of 2·(2·DBL_MAX)²: %.17g·2^(1200·%d)", kbig.v, kbig.scale);
	/* the three ranges meet without overlap: 2^-900 and 2^1024 */
	{
		double		p900[1] = {0x1p-450},
					p1024[1] = {0x1p512},
					below[1] = {nextafter(0x1p-450, 0.0)},
					top[1] = {nextafter(0x1p512, 0.0)},
					z1[1] = {0.0};
		gsu_nn_dist kp = gsu_sqdist_key(1, p900, z1),
					kbelow = gsu_sqdist_key(1, below, z1),
					kt = gsu_sqdist_key(1, p1024, z1),
					ktop = gsu_sqdist_key(1, top, z1);

		CHECK(kp.scale == 0 && kp.v == 0x1p-900 && kbelow.scale == -1 &&
			  gsu_nn_dist_cmp(kbelow, kp) < 0, "at 2^-900");
		CHECK(kt.scale == 1 && ktop.scale == 0 && gsu_nn_dist_cmp(ktop, kt) < 0 &&
			  gsu_nn_dist_value(ktop) <= DBL_MAX, "at 2^1024");
	}
	/* the key in the plain range is the plain sum */
	{
		double		p[3] = {0.1, 0.2, 0.3},
					q[3] = {0.7, -0.5, 1e-3};
		double		s = 0.0;
		int			l;

		for (l = 0; l < 3; l++)
			s += (p[l] - q[l]) * (p[l] - q[l]);
		CHECK(gsu_sqdist(3, p, q) == s, "plain sum");
	}
}

/*
 * The example of issue 27: rows {0, 0} and {1e200, 0}, query {2e200, 0}: the
 * squared distances 4e400 and 1e400 both overflow; the nearest row is the
 * second in either row order.  The same for underflow and for differences
 * that overflow, with and without the screen (k = 1 with three rows).
 */
static void
check_pair_order(const double *near, const double *far, const double *q, const char *what)
{
	double		x[6],
				nr[3];
	int32_t		lab[3];
	gsu_nn_dist dist[2];
	int64_t		idx[2];
	int			count[1],
				order,
				k;

	for (order = 0; order < 2; order++)
		for (k = 1; k <= 2; k++)
		{
			gsu_nn_set	set = {2, 2, x, nr, lab};
			int64_t		want_near = order == 0 ? 1 : 0;

			memcpy(x + (order == 0 ? 0 : 2), far, sizeof(double) * 2);
			memcpy(x + (order == 0 ? 2 : 0), near, sizeof(double) * 2);
			lab[order == 0 ? 0 : 1] = 1;
			lab[order == 0 ? 1 : 0] = 2;
			gsu_row_sqnorms(2, 2, x, nr);
			CHECK(gsu_knn(&set, 1, q, NULL, NULL, GSU_NN_ANY, NULL, k, idx, dist, count,
						  NULL, NULL) == GSU_OK && count[0] == k, "%s: status", what);
			CHECK(idx[0] == want_near, "%s: order %d k %d: nearest is row %lld", what, order,
				  k, (long long) idx[0]);
			if (k == 2)
				CHECK(idx[1] == 1 - want_near && gsu_nn_dist_cmp(dist[0], dist[1]) < 0,
					  "%s: order %d: second", what, order);
			CHECK(gsu_knn_vote(1, idx, lab) == 2, "%s: order %d k %d: vote", what, order, k);
		}
	/* three rows, k = 1: the third row goes through the screen */
	for (order = 0; order < 3; order++)
	{
		gsu_nn_set	set = {3, 2, x, nr, NULL};
		int			r;

		for (r = 0; r < 3; r++)
			memcpy(x + 2 * r, r == order ? near : far, sizeof(double) * 2);
		gsu_row_sqnorms(3, 2, x, nr);
		CHECK(gsu_knn(&set, 1, q, NULL, NULL, GSU_NN_ANY, NULL, 1, idx, dist, count, NULL,
					  NULL) == GSU_OK && idx[0] == order,
			  "%s: three rows, near row %d: got %lld", what, order, (long long) idx[0]);
	}
}

static void
test_knn_out_of_range(void)
{
	double		o[2] = {0, 0},
				a[2] = {1e200, 0},
				b[2] = {2e200, 0},
				t1[2] = {1e-200, 0},
				t2[2] = {2e-200, 0},
				m1[2] = {-1.7e308, 0},
				p1[2] = {1.7e308, 0},
				p08[2] = {0.8e308, 0},
				t07[2] = {0.7e-200, 0};

	check_pair_order(a, o, b, "squares overflow");
	check_pair_order(t1, o, t2, "squares underflow");
	check_pair_order(o, t2, t07, "squares underflow, nearer the origin");
	check_pair_order(p1, m1, p08, "differences overflow");
	check_pair_order(a, m1, b, "one difference overflows");
}

static void
test_find_row(void)
{
	double		x[8] = {1, 2, 3, 4, 1, 2, 1, 2};
	int32_t		lab[4] = {5, 6, 7, 8};
	double		q[2] = {1, 2},
				r[2] = {9, 9};
	int32_t		l7 = 7,
				l6 = 6;

	CHECK(gsu_find_row(4, 2, x, NULL, q, NULL) == 0, "first occurrence");
	CHECK(gsu_find_row(4, 2, x, lab, q, &l7) == 2, "occurrence with label 7");
	CHECK(gsu_find_row(4, 2, x, lab, q, &l6) == -1, "no occurrence with label 6");
	CHECK(gsu_find_row(4, 2, x, lab, q, NULL) == 0, "label ignored when not given");
	CHECK(gsu_find_row(4, 2, x, NULL, r, NULL) == -1, "absent row");
	CHECK(gsu_find_row(0, 2, x, NULL, q, NULL) == -1, "empty set");
}

static void
test_knn_brute_force(void)
{
	static const int dims[] = {1, 3, 30, 70};
	static const int ks[] = {1, 3, 17};
	int			di,
				ki,
				kind,
				f;
	int64_t		n = quick ? 150 : 700;
	int64_t		m = quick ? 40 : 150;
	int			kinds = wide_long_double() ? KINDS_ALL : KINDS_PLAIN;

	if (kinds == KINDS_PLAIN)
		fprintf(stderr, "[test_nn] long double is not wider than double here: "
				"brute force beyond double's range skipped\n");
	for (di = 0; di < 4; di++)
		for (ki = 0; ki < 3; ki++)
			for (kind = 0; kind < kinds; kind++)
				for (f = 0; f < 3; f++)
					run_case(n, m, dims[di], ks[ki], kind, (gsu_nn_filter) f, (di + ki + f) % 2);
	/* more neighbours asked than rows exist, tiny and empty sets */
	run_case(5, 7, 4, 10, 0, GSU_NN_ANY, 1);
	run_case(5, 7, 4, 10, 1, GSU_NN_SAME, 1);
	run_case(1, 3, 2, 1, 0, GSU_NN_ANY, 1);
	run_case(0, 3, 2, 2, 0, GSU_NN_ANY, 0);
	/* several dgemm tiles in both directions */
	run_case(quick ? 600 : 2100, quick ? 130 : 300, 5, 4, 0, GSU_NN_ANY, 1);
}

static void
test_knn_errors(void)
{
	double		x[4] = {0, 0, 1, 1},
				nr[2] = {0, 2};
	gsu_nn_dist dist[2];
	int64_t		idx[2];
	int			count[1];
	gsu_nn_set	set = {2, 2, x, nr, NULL};
	int32_t		ql = 1;

	CHECK(gsu_knn(&set, 1, x, NULL, NULL, GSU_NN_ANY, NULL, 0, idx, dist, count, NULL, NULL)
		  == GSU_EINVAL, "k = 0");
	CHECK(gsu_knn(&set, 1, x, NULL, &ql, GSU_NN_SAME, NULL, 1, idx, dist, count, NULL, NULL)
		  == GSU_EINVAL, "label filter without reference labels");
	CHECK(gsu_knn(&set, 1, x, NULL, NULL, GSU_NN_ANY, NULL, 2, idx, dist, count, NULL, NULL)
		  == GSU_OK && count[0] == 2 && idx[0] == 0 && idx[1] == 1 &&
		  gsu_nn_dist_value(dist[1]) == 2.0,
		  "two neighbours");
}

static void
test_knn_cancel(void)
{
	double		x[4] = {0, 0, 1, 1},
				nr[2] = {0, 2};
	gsu_nn_dist dist[2];
	int64_t		idx[2];
	int			count[2],
				calls = 0;
	gsu_nn_set	set = {2, 2, x, nr, NULL};

	CHECK(gsu_knn(&set, 2, x, NULL, NULL, GSU_NN_ANY, NULL, 1, idx, dist, count, stop_now, &calls)
		  == GSU_ECANCELLED && calls == 1, "cancelled after %d calls", calls);
}

static void
test_vote(void)
{
	int32_t		labels[6] = {1, 2, 2, 3, 1, 3};
	int64_t		a[1] = {3},
				b[3] = {0, 1, 2},	/* 1, 2, 2 → 2 */
				c[4] = {3, 0, 4, 5},	/* 3, 1, 1, 3: tie, 3 ranks first */
				e[4] = {0, 3, 5, 4};	/* 1, 3, 3, 1: tie, 1 ranks first */
	int64_t		big[100];
	int			r;

	CHECK(gsu_knn_vote(1, a, labels) == 3, "one neighbour");
	CHECK(gsu_knn_vote(3, b, labels) == 2, "majority");
	CHECK(gsu_knn_vote(4, c, labels) == 3, "tie → nearest, got %d", gsu_knn_vote(4, c, labels));
	CHECK(gsu_knn_vote(4, e, labels) == 1, "tie → nearest, got %d", gsu_knn_vote(4, e, labels));
	/* more than the stack buffer: 50 × label 3, 50 × label 2, 2 first */
	for (r = 0; r < 100; r++)
		big[r] = (r % 2 == 0) ? 1 : 3;
	CHECK(gsu_knn_vote(100, big, labels) == 2, "large tie, got %d", gsu_knn_vote(100, big, labels));
	big[0] = 3;
	CHECK(gsu_knn_vote(100, big, labels) == 3, "large majority");
}

/* the GEU estimate σ·(x − x*)²: plain, a difference that overflows, a result that does */
static void
test_nn_variance(void)
{
	double		x[3] = {1.0, 0x1p500, -1.5e308},
				xn[3] = {3.0, 0.0, 1.5e308},
				out[3];
	int			bad = -1;

	CHECK(gsu_nn_variance(2, x, xn, 0.5, out, &bad) == GSU_OK && out[0] == 2.0 && out[1] == 0x1p999,
		  "plain: %g %g", out[0], out[1]);
	CHECK(gsu_nn_variance(3, x, xn, 0.5, out, &bad) == GSU_ENOTFINITE && bad == 2,
		  "an overflowing result names its element, got %d", bad);
	CHECK(gsu_nn_variance(3, x, xn, 0.0, out, &bad) == GSU_OK && out[2] == 0.0,
		  "sigma 0 gives 0 even when the difference overflows: %g", out[2]);
}

static const gsu_test_case tests[] = {
	{"sqdist", test_sqdist},
	{"sqdist_key", test_sqdist_key},
	{"knn_out_of_range", test_knn_out_of_range},
	{"find_row", test_find_row},
	{"knn_brute_force", test_knn_brute_force},
	{"knn_errors", test_knn_errors},
	{"knn_cancel", test_knn_cancel},
	{"vote", test_vote},
	{"nn_variance", test_nn_variance},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
