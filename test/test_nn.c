/*
 * test_nn.c — unit tests of src/core/gsu_nn.c: the blocked exact k-NN search
 * against brute force (every distance, full sort), including ties, duplicate
 * rows, label filters, exclusion and data far from the origin (where the
 * ‖q‖² + ‖r‖² − 2qᵀr screen cancels badly), and the majority vote.
 *
 * Output: diagnostics on stderr, then "N passed, M failed" on stdout; exit
 * status non-zero on failure.  GSU_TEST_QUICK=1 shrinks the sizes.
 */
#include "gsu_nn.h"
#include "gsu_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a generator independent of the core's */
static uint64_t rng_state = 42;

static uint64_t
next_u64(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(void)
{
	return (double) (next_u64() >> 11) * 0x1.0p-53;
}

/* ---------------------------------------------------------- brute force */

typedef struct cand
{
	double		d;
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

/* brute-force k-NN of one query; returns the count */
static int
brute_knn(int64_t n, int d, const double *x, const int32_t *labels, const double *q,
		  int32_t ql, gsu_nn_filter f, int64_t excl, int k, cand *all, int64_t *idx,
		  double *dist)
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
		all[m].d = ref_sqdist(d, q, x + i * d);
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
 * duplicates); 2: 1e6 + tiny noise (the screen loses ~12 digits).
 */
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
		else
			x[i] = 1e6 + 1e-4 * unif();
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
	double	   *dist = malloc(sizeof(double) * m * k);
	int		   *count = malloc(sizeof(int) * m + 4);
	cand	   *all = malloc(sizeof(cand) * n + 16);
	int64_t    *bidx = malloc(sizeof(int64_t) * k);
	double	   *bdist = malloc(sizeof(double) * k);
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
								  bidx, bdist);
		int			r;

		if (count[i] != c)
		{
			bad++;
			CHECK(0, "n=%lld d=%d k=%d kind=%d f=%d query %lld: count %d, brute force %d",
				  (long long) n, d, k, kind, (int) f, (long long) i, count[i], c);
			continue;
		}
		for (r = 0; r < c; r++)
			if (idx[i * k + r] != bidx[r] || dist[i * k + r] != bdist[r])
			{
				bad++;
				CHECK(0, "n=%lld d=%d k=%d kind=%d f=%d query %lld rank %d: (%lld, %.17g), brute force (%lld, %.17g)",
					  (long long) n, d, k, kind, (int) f, (long long) i, r,
					  (long long) idx[i * k + r], dist[i * k + r], (long long) bidx[r], bdist[r]);
				break;
			}
		for (r = c; r < k; r++)
			CHECK(idx[i * k + r] == -1 && isinf(dist[i * k + r]), "unused slot %d", r);
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

	for (di = 0; di < 4; di++)
		for (ki = 0; ki < 3; ki++)
			for (kind = 0; kind < 3; kind++)
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
				nr[2] = {0, 2},
				dist[2];
	int64_t		idx[2];
	int			count[1];
	gsu_nn_set	set = {2, 2, x, nr, NULL};
	int32_t		ql = 1;

	CHECK(gsu_knn(&set, 1, x, NULL, NULL, GSU_NN_ANY, NULL, 0, idx, dist, count, NULL, NULL)
		  == GSU_EINVAL, "k = 0");
	CHECK(gsu_knn(&set, 1, x, NULL, &ql, GSU_NN_SAME, NULL, 1, idx, dist, count, NULL, NULL)
		  == GSU_EINVAL, "label filter without reference labels");
	CHECK(gsu_knn(&set, 1, x, NULL, NULL, GSU_NN_ANY, NULL, 2, idx, dist, count, NULL, NULL)
		  == GSU_OK && count[0] == 2 && idx[0] == 0 && idx[1] == 1 && dist[1] == 2.0,
		  "two neighbours");
}

static int
stop_now(void *arg)
{
	(*(int *) arg)++;
	return 1;
}

static void
test_knn_cancel(void)
{
	double		x[4] = {0, 0, 1, 1},
				nr[2] = {0, 2},
				dist[2];
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

static const gsu_test_case tests[] = {
	{"sqdist", test_sqdist},
	{"find_row", test_find_row},
	{"knn_brute_force", test_knn_brute_force},
	{"knn_errors", test_knn_errors},
	{"knn_cancel", test_knn_cancel},
	{"vote", test_vote},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
