/*
 * test_metrics.c — unit tests of src/core/gsu_metrics.c, no PostgreSQL.
 *
 *   make coretest            (or valgrind-coretest)
 *
 * References are independent of the code under test: values worked by hand
 * (each derivation is in the comment next to it; the scikit-learn examples
 * were checked against scikit-learn 1.2.1 too), and brute-force definitions
 * (every positive/negative pair for the AUC, a count over all rows per
 * threshold for the curves and AP, per-row loops for the confusion matrix).
 * Deterministic (a local xorshift generator).  GSU_TEST_QUICK=1 shrinks the
 * random sizes.
 *
 * Output: diagnostics on stderr, then "N passed, M failed" on stdout; exit
 * status non-zero when a test failed.
 */
#include "gsu_metrics.h"
#include "gsu_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static void
rng_seed(uint64_t s)
{
	rng_state = s * 2654435761u + 88172645463325252ull;
}

/* xorshift64* */
static uint64_t
rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static double
rng_unit(void)
{
	return (double) (rng_next() >> 11) / 9007199254740992.0;
}

static void
sort_ref(double *x, size_t n)
{
	qsort(x, n, sizeof(double), cmp_double);
}

/* ------------------------------------------------------------ sorting */

static int	progress_calls;
static int	progress_stop_after;

static int
count_progress(void *arg)
{
	(void) arg;
	progress_calls++;
	return progress_stop_after > 0 && progress_calls >= progress_stop_after;
}

/* fills x according to a pattern */
static void
fill_pattern(double *x, size_t n, int pattern)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		switch (pattern)
		{
			case 0:				/* distinct random */
				x[i] = rng_unit() * 2 - 1;
				break;
			case 1:				/* few distinct values: heavy ties */
				x[i] = (double) (rng_next() % 5);
				break;
			case 2:				/* ascending */
				x[i] = (double) i;
				break;
			case 3:				/* descending */
				x[i] = (double) (n - i);
				break;
			case 4:				/* all equal */
				x[i] = 0.5;
				break;
			case 5:				/* organ pipe */
				x[i] = (double) (i < n / 2 ? i : n - i);
				break;
			case 6:				/* infinities, signed zeros */
				{
					static const double v[] = {INFINITY, -INFINITY, 0.0, -0.0, 1e-308, -1.0};

					x[i] = v[rng_next() % 6];
				}
				break;
		}
	}
}

static void
test_sort_patterns(void)
{
	size_t		sizes[] = {0, 1, 2, 3, 16, 17, 100, 1000, 70000, 300000};
	int			si,
				pattern;

	rng_seed(1);
	for (si = 0; si < 10; si++)
	{
		size_t		n = sizes[si];

		if (quick && n > 70000)
			continue;
		for (pattern = 0; pattern < 7; pattern++)
		{
			double	   *x = malloc(sizeof(double) * (n + 1));
			double	   *r = malloc(sizeof(double) * (n + 1));
			size_t		i;
			gsu_status	st;

			fill_pattern(x, n, pattern);
			memcpy(r, x, sizeof(double) * n);
			sort_ref(r, n);
			progress_calls = 0;
			progress_stop_after = 0;
			st = gsu_sort_doubles(x, n, count_progress, NULL);
			CHECK(st == GSU_OK, "status %d", (int) st);
			for (i = 0; i < n; i++)
				if (!(x[i] == r[i]))
					break;
			CHECK(i == n, "n=%zu pattern %d differs at %zu", n, pattern, i);
			/* the progress callback runs on every large run */
			if (n >= 70000)
				CHECK(progress_calls > 0, "n=%zu pattern %d: no progress call", n, pattern);
			free(x);
			free(r);
		}
	}
}

static void
test_sort_cancel(void)
{
	size_t		n = quick ? 200000 : 1000000,
				i;
	double	   *x = malloc(sizeof(double) * n);
	double	   *r = malloc(sizeof(double) * n);
	gsu_status	st;

	rng_seed(2);
	fill_pattern(x, n, 0);
	memcpy(r, x, sizeof(double) * n);
	progress_calls = 0;
	progress_stop_after = 2;
	st = gsu_sort_doubles(x, n, count_progress, NULL);
	CHECK(st == GSU_ECANCELLED, "status %d", (int) st);
	CHECK(progress_calls == 2, "calls %d", progress_calls);
	/* still a permutation of the input */
	sort_ref(x, n);
	sort_ref(r, n);
	for (i = 0; i < n; i++)
		if (x[i] != r[i])
			break;
	CHECK(i == n, "not a permutation at %zu", i);
	/* a NULL callback is never called */
	progress_stop_after = 0;
	st = gsu_sort_doubles(x, n, NULL, NULL);
	CHECK(st == GSU_OK, "status %d", (int) st);
	free(x);
	free(r);
}

/* ------------------------------------------------------ tie groups */

static void
test_rank_groups_hand(void)
{
	/* sklearn's example: y = [0,0,1,1], s = [0.1,0.4,0.35,0.8] */
	double		pos[] = {0.35, 0.8};
	double		neg[] = {0.1, 0.4};
	double		want_t[] = {0.8, 0.4, 0.35, 0.1};
	int64_t		want_p[] = {1, 0, 1, 0};
	int64_t		want_n[] = {0, 1, 0, 1};
	gsu_rank_iter it;
	double		t;
	int64_t		p,
				q;
	int			g = 0;

	gsu_rank_begin(&it, pos, 2, neg, 2);
	while (gsu_rank_next(&it, &t, &p, &q))
	{
		CHECK(g < 4, "too many groups");
		if (g >= 4)
			break;
		CHECK(t == want_t[g] && p == want_p[g] && q == want_n[g],
			  "group %d: %g %lld %lld", g, t, (long long) p, (long long) q);
		g++;
	}
	CHECK(g == 4, "groups %d", g);
	CHECK(it.tp == 2 && it.fp == 2, "totals %lld %lld", (long long) it.tp, (long long) it.fp);

	/* ties across and within classes: pos {1,2,2}, neg {0,2,2,3} */
	{
		double		pos2[] = {1, 2, 2};
		double		neg2[] = {0, 2, 2, 3};
		double		wt[] = {3, 2, 1, 0};
		int64_t		wp[] = {0, 2, 1, 0};
		int64_t		wn[] = {1, 2, 0, 1};
		int64_t		wtp[] = {0, 2, 3, 3};
		int64_t		wfp[] = {1, 3, 3, 4};

		g = 0;
		gsu_rank_begin(&it, pos2, 3, neg2, 4);
		while (g < 4 && gsu_rank_next(&it, &t, &p, &q))
		{
			CHECK(t == wt[g] && p == wp[g] && q == wn[g] && it.tp == wtp[g] && it.fp == wfp[g],
				  "group %d: %g %lld %lld", g, t, (long long) p, (long long) q);
			g++;
		}
		CHECK(g == 4 && !gsu_rank_next(&it, &t, &p, &q), "groups %d", g);
		CHECK(gsu_rank_count_groups(pos2, 3, neg2, 4) == 4, "count");
	}
	/* −0 and +0 are one group; infinities are ordinary scores */
	{
		double		pos3[] = {-INFINITY, -0.0, INFINITY};
		double		neg3[] = {0.0, INFINITY};

		CHECK(gsu_rank_count_groups(pos3, 3, neg3, 2) == 3, "count %zu",
			  gsu_rank_count_groups(pos3, 3, neg3, 2));
		CHECK(gsu_rank_count_groups(NULL, 0, NULL, 0) == 0, "empty");
		CHECK(gsu_rank_count_groups(pos3, 3, NULL, 0) == 3, "pos only");
	}
}

/* ---------------------------------------------------------------- AUC */

static void
test_auc_hand(void)
{
	/* sklearn: roc_auc_score([0,0,1,1],[0.1,0.4,0.35,0.8]) = 0.75:
	 * pairs (0.35>0.1) (0.35<0.4) (0.8>0.1) (0.8>0.4) → 3/4 */
	double		pos[] = {0.35, 0.8};
	double		neg[] = {0.1, 0.4};

	CHECK(gsu_roc_auc(pos, 2, neg, 2) == 0.75, "%.17g", gsu_roc_auc(pos, 2, neg, 2));

	/* ties count ½: pos {1,2,2} vs neg {0,2}: 1: 0+1; 2: ½+1 twice → 4/6 */
	{
		double		p2[] = {1, 2, 2},
					n2[] = {0, 2};

		CHECK_CLOSE(gsu_roc_auc(p2, 3, n2, 2), 4.0 / 6.0, 1e-16);
	}
	/* every score equal → ½; one pair tied → ½ */
	{
		double		p3[] = {7, 7, 7},
					n3[] = {7, 7};

		CHECK(gsu_roc_auc(p3, 3, n3, 2) == 0.5, "%.17g", gsu_roc_auc(p3, 3, n3, 2));
		CHECK(gsu_roc_auc(p3, 1, n3, 1) == 0.5, "single tie");
	}
	/* perfect and reversed rankings, infinite scores */
	{
		double		p4[] = {2, 3, INFINITY},
					n4[] = {-INFINITY, 0, 1};

		CHECK(gsu_roc_auc(p4, 3, n4, 3) == 1.0, "perfect");
		CHECK(gsu_roc_auc(n4, 3, p4, 3) == 0.0, "reversed");
	}
	/* one class only: undefined */
	CHECK(isnan(gsu_roc_auc(pos, 2, NULL, 0)), "no negatives");
	CHECK(isnan(gsu_roc_auc(NULL, 0, neg, 2)), "no positives");
	CHECK(isnan(gsu_roc_auc(NULL, 0, NULL, 0)), "empty");
}

/* Mann–Whitney by definition over every pair */
static double
auc_brute(const double *pos, size_t np, const double *neg, size_t nn)
{
	double		u = 0;
	size_t		i,
				j;

	for (i = 0; i < np; i++)
		for (j = 0; j < nn; j++)
			u += pos[i] > neg[j] ? 1.0 : pos[i] == neg[j] ? 0.5 : 0.0;
	return u / ((double) np * (double) nn);
}

/* AP by definition: for each distinct threshold, count over all rows */
static double
ap_brute(const double *pos, size_t np, const double *neg, size_t nn)
{
	double	   *all = malloc(sizeof(double) * (np + nn));
	double		ap = 0,
				prev_r = 0;
	size_t		i,
				m = np + nn;

	memcpy(all, pos, sizeof(double) * np);
	memcpy(all + np, neg, sizeof(double) * nn);
	sort_ref(all, m);
	for (i = m; i-- > 0;)
	{
		double		t = all[i];
		size_t		j,
					tp = 0,
					fp = 0;

		if (i + 1 < m && all[i + 1] == t)
			continue;
		for (j = 0; j < np; j++)
			tp += pos[j] >= t;
		for (j = 0; j < nn; j++)
			fp += neg[j] >= t;
		ap += ((double) tp / np - prev_r) * ((double) tp / (tp + fp));
		prev_r = (double) tp / np;
	}
	free(all);
	return ap;
}

/* random scores with ties; labels independent of or correlated with scores */
static void
random_ranking(size_t np, size_t nn, int levels, double shift, double *pos, double *neg)
{
	size_t		i;

	for (i = 0; i < np; i++)
		pos[i] = levels ? (double) (rng_next() % levels) + (rng_next() % 3 == 0 ? 1 : 0)
			: rng_unit() + shift;
	for (i = 0; i < nn; i++)
		neg[i] = levels ? (double) (rng_next() % levels) : rng_unit();
	sort_ref(pos, np);
	sort_ref(neg, nn);
}

static void
test_auc_ap_brute(void)
{
	int			trial;

	rng_seed(3);
	for (trial = 0; trial < (quick ? 20 : 200); trial++)
	{
		size_t		np = 1 + rng_next() % 60,
					nn = 1 + rng_next() % 60;
		int			levels = (int) (rng_next() % 4) * 3;	/* 0: continuous */
		double		pos[60],
					neg[60];
		double		a,
					b;

		random_ranking(np, nn, levels, 0.3, pos, neg);
		a = gsu_roc_auc(pos, np, neg, nn);
		b = auc_brute(pos, np, neg, nn);
		CHECK_CLOSE(a, b, 1e-15);
		a = gsu_average_precision(pos, np, neg, nn);
		b = ap_brute(pos, np, neg, nn);
		CHECK_CLOSE(a, b, 1e-13);
	}
}

/* ----------------------------------------------------------------- AP */

static void
test_ap_hand(void)
{
	/* sklearn: average_precision_score([0,0,1,1],[0.1,0.4,0.35,0.8]):
	 * t=0.8: R .5, P 1 → .5;  t=0.4: R .5;  t=0.35: R 1, P 2/3 → 1/3;  → 5/6 */
	double		pos[] = {0.35, 0.8};
	double		neg[] = {0.1, 0.4};

	CHECK_CLOSE(gsu_average_precision(pos, 2, neg, 2), 5.0 / 6.0, 1e-15);

	/* pos {1,3}, neg {2,2}: t=3: R .5 P 1 → .5; t=2: –; t=1: R 1, P 2/4 → .25 */
	{
		double		p2[] = {1, 3},
					n2[] = {2, 2};

		CHECK_CLOSE(gsu_average_precision(p2, 2, n2, 2), 0.75, 1e-16);
	}
	/* one tie group {p,p,n}: R 1, P 2/3 */
	{
		double		p3[] = {0.5, 0.5},
					n3[] = {0.5};

		CHECK_CLOSE(gsu_average_precision(p3, 2, n3, 1), 2.0 / 3.0, 1e-16);
	}
	/* no negatives: precision 1 everywhere; no positives: undefined */
	CHECK(gsu_average_precision(pos, 2, NULL, 0) == 1.0, "no negatives");
	CHECK(isnan(gsu_average_precision(NULL, 0, neg, 2)), "no positives");
	/* every negative above every positive: pos {0}, neg {1,2}: P = 1/3 */
	{
		double		p4[] = {0},
					n4[] = {1, 2};

		CHECK_CLOSE(gsu_average_precision(p4, 1, n4, 2), 1.0 / 3.0, 1e-16);
	}
}

/* -------------------------------------------------------------- curves */

static void
test_curve_hand(void)
{
	/*
	 * sklearn's example again; roc_curve(drop_intermediate=False) gives
	 * fpr [0,0,.5,.5,1], tpr [0,.5,.5,1,1] (first point: the origin) and
	 * precision_recall_curve gives, reversed, precision [1,.5,2/3,.5],
	 * recall [.5,.5,1,1] at thresholds [.8,.4,.35,.1].
	 */
	double		pos[] = {0.35, 0.8};
	double		neg[] = {0.1, 0.4};
	gsu_curve_point c[4];
	double		thr[] = {0.8, 0.4, 0.35, 0.1};
	double		fpr[] = {0, 0.5, 0.5, 1};
	double		tpr[] = {0.5, 0.5, 1, 1};
	double		prec[] = {1, 0.5, 2.0 / 3.0, 0.5};
	int64_t		tp[] = {1, 1, 2, 2};
	int64_t		fp[] = {0, 1, 1, 2};
	size_t		g = gsu_rank_curve(pos, 2, neg, 2, c);
	size_t		i;

	CHECK(g == 4, "points %zu", g);
	for (i = 0; i < 4 && i < g; i++)
	{
		CHECK(c[i].threshold == thr[i] && c[i].tp == tp[i] && c[i].fp == fp[i],
			  "point %zu: %g %lld %lld", i, c[i].threshold, (long long) c[i].tp,
			  (long long) c[i].fp);
		CHECK(c[i].fpr == fpr[i] && c[i].tpr == tpr[i], "point %zu: %g %g", i,
			  c[i].fpr, c[i].tpr);
		CHECK_CLOSE(c[i].precision, prec[i], 1e-16);
	}

	/* one class only: the missing rate is NaN */
	g = gsu_rank_curve(pos, 2, NULL, 0, c);
	CHECK(g == 2 && isnan(c[0].fpr) && c[0].tpr == 0.5 && c[1].precision == 1.0, "pos only");
	g = gsu_rank_curve(NULL, 0, neg, 2, c);
	CHECK(g == 2 && isnan(c[1].tpr) && c[1].fpr == 1.0 && c[1].precision == 0.0, "neg only");
}

/* trapezoidal area under the ROC points (with the origin) equals the AUC */
static void
test_curve_area(void)
{
	int			trial;

	rng_seed(4);
	for (trial = 0; trial < (quick ? 10 : 100); trial++)
	{
		size_t		np = 1 + rng_next() % 200,
					nn = 1 + rng_next() % 200;
		double	   *pos = malloc(sizeof(double) * np);
		double	   *neg = malloc(sizeof(double) * nn);
		gsu_curve_point *c;
		size_t		g,
					i,
					j;
		double		area = 0,
					x0 = 0,
					y0 = 0;

		random_ranking(np, nn, (int) (rng_next() % 3) * 4, 0.2, pos, neg);
		g = gsu_rank_count_groups(pos, np, neg, nn);
		c = malloc(sizeof(gsu_curve_point) * g);
		CHECK(gsu_rank_curve(pos, np, neg, nn, c) == g, "count");
		for (i = 0; i < g; i++)
		{
			/* brute-force counts at this threshold */
			int64_t		tp = 0,
						fp = 0;

			for (j = 0; j < np; j++)
				tp += pos[j] >= c[i].threshold;
			for (j = 0; j < nn; j++)
				fp += neg[j] >= c[i].threshold;
			CHECK(c[i].tp == tp && c[i].fp == fp, "counts at %zu", i);
			CHECK(i == 0 || c[i].threshold < c[i - 1].threshold, "order at %zu", i);
			area += (c[i].fpr - x0) * (c[i].tpr + y0) / 2;
			x0 = c[i].fpr;
			y0 = c[i].tpr;
		}
		CHECK(g > 0 && c[g - 1].tp == (int64_t) np && c[g - 1].fp == (int64_t) nn, "last");
		CHECK_CLOSE(area, gsu_roc_auc(pos, np, neg, nn), 1e-13);
		free(pos);
		free(neg);
		free(c);
	}
}

/* ----------------------------------------------------------- log loss */

static void
test_log_loss(void)
{
	const double eps = GSU_LOG_LOSS_EPS;
	gsu_sum		s = {0, 0};

	CHECK(eps == ldexp(1.0, -52), "eps %g", eps);
	CHECK_CLOSE(gsu_log_loss_term(0.8, 1, eps), 0.22314355131420976, 1e-16);
	CHECK_CLOSE(gsu_log_loss_term(0.8, 0, eps), 1.6094379124341003, 4e-16);
	/* clipped: −log ε = 52 log 2 */
	CHECK_CLOSE(gsu_log_loss_term(0.0, 1, eps), 52 * 0.69314718055994531, 1e-13);
	CHECK_CLOSE(gsu_log_loss_term(1.0, 0, eps), 52 * 0.69314718055994531, 1e-13);
	/* −log(1 − ε) = ε + ε²/2 + … */
	CHECK_CLOSE(gsu_log_loss_term(1.0, 1, eps), eps, 1e-30);
	CHECK_CLOSE(gsu_log_loss_term(0.0, 0, eps), eps, 1e-30);
	CHECK(gsu_log_loss_term(0.5, 1, eps) == gsu_log_loss_term(0.5, 0, eps), "symmetry");

	/*
	 * sklearn's log_loss example: ["spam","ham","ham","spam"] with
	 * P(spam) = .9, .1, .2, .65: mean(−log .9, −log .9, −log .8, −log .65)
	 * = 0.21616187468057912
	 */
	gsu_sum_add(&s, gsu_log_loss_term(0.9, 1, eps));
	gsu_sum_add(&s, gsu_log_loss_term(0.1, 0, eps));
	gsu_sum_add(&s, gsu_log_loss_term(0.2, 0, eps));
	gsu_sum_add(&s, gsu_log_loss_term(0.65, 1, eps));
	CHECK_CLOSE(gsu_sum_value(&s) / 4, 0.21616187468057912, 1e-15);
}

static void
test_sum(void)
{
	gsu_sum		a = {0, 0},
				b = {0, 0};

	/* 1 + 1e100 + 1 − 1e100 = 2 exactly with compensation (naive: 0) */
	gsu_sum_add(&a, 1.0);
	gsu_sum_add(&a, 1e100);
	gsu_sum_add(&a, 1.0);
	gsu_sum_add(&a, -1e100);
	CHECK(gsu_sum_value(&a) == 2.0, "%.17g", gsu_sum_value(&a));

	/* merging partial sums: 0.1 × 10 split in two = 1 to the last bit */
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 10; i++)
		gsu_sum_add(i < 4 ? &a : &b, 0.1);
	gsu_sum_merge(&a, &b);
	CHECK(gsu_sum_value(&a) == 1.0, "%.17g", gsu_sum_value(&a));
}

/* ---------------------------------------------------------------- MCC */

static void
test_mcc(void)
{
	/* sklearn: y_true [+1,+1,+1,−1], y_pred [+1,−1,+1,+1]: tp 2, fn 1, fp 1,
	 * tn 0: (0·2 − 1·1)/√(3·3·1·1) = −1/3 */
	CHECK_CLOSE(gsu_mcc_binary(2, 1, 0, 1), -1.0 / 3.0, 1e-16);
	CHECK(gsu_mcc_binary(5, 0, 7, 0) == 1.0, "perfect");
	CHECK(gsu_mcc_binary(0, 5, 0, 7) == -1.0, "inverse");
	/* tp 3 fp 1 tn 4 fn 2: (12 − 2)/√(4·5·5·6) = 10/√600 */
	CHECK_CLOSE(gsu_mcc_binary(3, 1, 4, 2), 10.0 / sqrt(600.0), 1e-16);
	/* undefined: nothing predicted positive, or one actual class */
	CHECK(isnan(gsu_mcc_binary(0, 0, 4, 2)), "no predicted positives");
	CHECK(isnan(gsu_mcc_binary(3, 2, 0, 0)), "no actual negatives");
	CHECK(isnan(gsu_mcc_binary(0, 0, 0, 0)), "empty");
	/* huge counts do not overflow */
	CHECK_CLOSE(gsu_mcc_binary(INT64_C(1) << 60, 0, INT64_C(1) << 60, 0), 1.0, 1e-15);

	/*
	 * 3 classes: y_true [0,0,1,1,2,2], y_pred [0,1,1,1,2,0]: c = 4, n = 6,
	 * t = (2,2,2), p = (2,3,1): (24 − 12)/√((36 − 14)(36 − 12)) = 12/√528
	 */
	{
		int64_t		p[] = {2, 3, 1},
					t[] = {2, 2, 2};

		CHECK_CLOSE(gsu_mcc_multiclass(3, p, t, 4, 6), 12.0 / sqrt(528.0), 1e-16);
	}
	/* K = 2 agrees with the binary formula on random tables */
	{
		int			trial;

		rng_seed(5);
		for (trial = 0; trial < 200; trial++)
		{
			int64_t		tp = rng_next() % 50,
						fp = rng_next() % 50,
						tn = rng_next() % 50,
						fn = rng_next() % 50;
			int64_t		p[] = {tp + fp, tn + fn},
						t[] = {tp + fn, tn + fp};
			double		a = gsu_mcc_binary(tp, fp, tn, fn),
						b = gsu_mcc_multiclass(2, p, t, tp + tn, tp + fp + tn + fn);

			CHECK((isnan(a) && isnan(b)) || CLOSE(a, b, 1e-15), "%g vs %g", a, b);
		}
	}
}

/* ---------------------------------------------------- confusion matrix */

static const gsu_class_metrics *
find_class(const gsu_class_metrics *c, size_t k, int32_t label)
{
	size_t		i;

	for (i = 0; i < k; i++)
		if (c[i].label == label)
			return &c[i];
	return NULL;
}

static void
test_confusion_binary_hand(void)
{
	/* y_true [+1,+1,+1,−1], y_pred [+1,−1,+1,+1] as cells (one repeated) */
	gsu_confusion_cell cells[] = {{1, 1, 1}, {-1, 1, 1}, {1, -1, 1}, {1, 1, 1}};
	gsu_class_metrics cl[8];
	gsu_confusion_summary s;
	const gsu_class_metrics *pos,
			   *neg;

	CHECK(gsu_confusion_summarize(cells, 4, cl, &s) == GSU_OK, "status");
	CHECK(s.n == 4 && s.correct == 2 && s.accuracy == 0.5, "n %lld", (long long) s.n);
	CHECK(s.binary && s.tp == 2 && s.fp == 1 && s.tn == 0 && s.fn == 1, "counts");
	CHECK_CLOSE(s.precision, 2.0 / 3.0, 1e-16);
	CHECK_CLOSE(s.recall, 2.0 / 3.0, 1e-16);
	CHECK_CLOSE(s.f1, 2.0 / 3.0, 1e-16);	/* 4/(4+1+1) */
	CHECK_CLOSE(s.mcc, -1.0 / 3.0, 1e-16);
	CHECK(s.n_classes == 2 && cl[0].label == -1 && cl[1].label == 1, "classes");
	neg = &cl[0];
	pos = &cl[1];
	CHECK(pos->tp == 2 && pos->fp == 1 && pos->fn == 1 && pos->tn == 0 && pos->support == 3,
		  "class 1");
	/* class −1: tp 0, fp 1 (pred −1, actual 1), fn 1, tn 2 → P 0, R 0, F1 0 */
	CHECK(neg->tp == 0 && neg->fp == 1 && neg->fn == 1 && neg->tn == 2 && neg->support == 1,
		  "class -1");
	CHECK(neg->precision == 0 && neg->recall == 0 && neg->f1 == 0, "class -1 rates");
	CHECK_CLOSE(s.macro_precision, 1.0 / 3.0, 1e-16);
	CHECK_CLOSE(s.macro_f1, 1.0 / 3.0, 1e-16);

	/* only negatives, all right: precision, recall, F1 and MCC undefined */
	{
		gsu_confusion_cell c2[] = {{-1, -1, 5}};

		CHECK(gsu_confusion_summarize(c2, 1, cl, &s) == GSU_OK, "status");
		CHECK(s.binary && s.tn == 5 && s.tp == 0 && s.accuracy == 1.0, "counts");
		CHECK(isnan(s.precision) && isnan(s.recall) && isnan(s.f1) && isnan(s.mcc),
			  "undefined %g %g %g %g", s.precision, s.recall, s.f1, s.mcc);
		CHECK(s.n_classes == 1 && cl[0].label == -1 && cl[0].f1 == 1.0, "class");
	}
	/* never predicts positive: precision undefined, recall 0, F1 0 */
	{
		gsu_confusion_cell c3[] = {{-1, 1, 2}, {-1, -1, 3}};

		CHECK(gsu_confusion_summarize(c3, 2, cl, &s) == GSU_OK, "status");
		CHECK(isnan(s.precision) && s.recall == 0 && s.f1 == 0 && isnan(s.mcc),
			  "%g %g %g %g", s.precision, s.recall, s.f1, s.mcc);
		pos = find_class(cl, s.n_classes, 1);
		CHECK(pos && isnan(pos->precision) && pos->recall == 0, "class 1");
		/* macro precision over the defined class only: class −1, 3/5 */
		CHECK_CLOSE(s.macro_precision, 0.6, 1e-16);
	}
}

static void
test_confusion_multiclass_hand(void)
{
	/*
	 * y_true [0,0,1,1,2,2], y_pred [0,1,1,1,0,0]
	 * class 0: tp 1, fp 2, fn 1, tn 2 → P 1/3, R 1/2, F1 2/5
	 * class 1: tp 2, fp 1, fn 0, tn 3 → P 2/3, R 1,   F1 4/5
	 * class 2: tp 0, fp 0, fn 2, tn 4 → P —,   R 0,   F1 0
	 * accuracy 1/2; macro P (1/3 + 2/3)/2 = 1/2 (class 2 undefined),
	 * macro R 1/2, macro F1 2/5;  MCC: t = (2,2,2), p = (3,3,0), c = 3:
	 * (18 − 12)/√((36 − 18)(36 − 12)) = 6/√432
	 */
	gsu_confusion_cell cells[] = {{0, 0, 1}, {1, 0, 1}, {1, 1, 2}, {0, 2, 2}};
	gsu_class_metrics cl[8];
	gsu_confusion_summary s;

	CHECK(gsu_confusion_summarize(cells, 4, cl, &s) == GSU_OK, "status");
	CHECK(!s.binary && s.n == 6 && s.correct == 3 && s.accuracy == 0.5, "totals");
	CHECK(s.n_classes == 3 && cl[0].label == 0 && cl[1].label == 1 && cl[2].label == 2,
		  "labels");
	CHECK(cl[0].tp == 1 && cl[0].fp == 2 && cl[0].fn == 1 && cl[0].tn == 2, "class 0");
	CHECK(cl[1].tp == 2 && cl[1].fp == 1 && cl[1].fn == 0 && cl[1].tn == 3, "class 1");
	CHECK(cl[2].tp == 0 && cl[2].fp == 0 && cl[2].fn == 2 && cl[2].tn == 4, "class 2");
	CHECK_CLOSE(cl[0].precision, 1.0 / 3.0, 1e-16);
	CHECK_CLOSE(cl[0].recall, 0.5, 1e-16);
	CHECK_CLOSE(cl[0].f1, 0.4, 1e-16);
	CHECK_CLOSE(cl[1].precision, 2.0 / 3.0, 1e-16);
	CHECK(cl[1].recall == 1.0, "recall 1");
	CHECK_CLOSE(cl[1].f1, 0.8, 1e-16);
	CHECK(isnan(cl[2].precision) && cl[2].recall == 0 && cl[2].f1 == 0, "class 2 rates");
	CHECK_CLOSE(s.macro_precision, 0.5, 1e-16);
	CHECK_CLOSE(s.macro_recall, 0.5, 1e-16);
	CHECK_CLOSE(s.macro_f1, 0.4, 1e-16);
	CHECK_CLOSE(s.mcc, 6.0 / sqrt(432.0), 1e-16);
	CHECK(isnan(s.precision) && s.tp == 0, "no binary fields");

	/* a class only ever predicted: recall undefined; negative labels sort first */
	{
		gsu_confusion_cell c2[] = {{-7, 3, 1}, {3, 3, 1}};

		CHECK(gsu_confusion_summarize(c2, 2, cl, &s) == GSU_OK, "status");
		CHECK(s.n_classes == 2 && cl[0].label == -7 && cl[1].label == 3, "labels");
		CHECK(isnan(cl[0].recall) && cl[0].precision == 0 && cl[0].f1 == 0, "class -7");
		CHECK(cl[1].precision == 1 && cl[1].recall == 0.5, "class 3");
		/* t = (0, 2), p = (1, 1): (2 − 2)/√((4 − 2)(4 − 4)) undefined */
		CHECK(isnan(s.mcc), "mcc %g", s.mcc);
	}
	/* bad counts */
	{
		gsu_confusion_cell c3[] = {{1, 2, 0}};
		gsu_confusion_cell c4[] = {{1, 2, INT64_MAX}, {2, 2, 1}};

		CHECK(gsu_confusion_summarize(c3, 1, cl, &s) == GSU_EINVAL, "zero count");
		c3[0].count = -1;
		CHECK(gsu_confusion_summarize(c3, 1, cl, &s) == GSU_EINVAL, "negative count");
		CHECK(gsu_confusion_summarize(c4, 2, cl, &s) == GSU_EINVAL, "overflow");
	}
}

/* random rows, counted into cells; every statistic recounted per row */
static void
test_confusion_brute(void)
{
	int			trial;

	rng_seed(6);
	for (trial = 0; trial < (quick ? 10 : 100); trial++)
	{
		int			nrows = 1 + (int) (rng_next() % 300);
		int			nlab = 1 + (int) (rng_next() % 6);
		int			binary = trial % 3 == 0;
		int32_t    *pred = malloc(sizeof(int32_t) * nrows);
		int32_t    *act = malloc(sizeof(int32_t) * nrows);
		gsu_confusion_cell *cells = malloc(sizeof(gsu_confusion_cell) * nrows);
		gsu_class_metrics *cl = malloc(sizeof(gsu_class_metrics) * 2 * nrows);
		gsu_confusion_summary s;
		int			i;
		size_t		k;
		int64_t		correct = 0;

		for (i = 0; i < nrows; i++)
		{
			act[i] = binary ? (rng_next() % 2 ? 1 : -1) : (int32_t) (rng_next() % nlab) * 10 - 20;
			/* right two times out of three */
			pred[i] = rng_next() % 3 ? act[i] :
				binary ? -act[i] : (int32_t) (rng_next() % nlab) * 10 - 20;
			cells[i].predicted = pred[i];
			cells[i].actual = act[i];
			cells[i].count = 1;
			correct += pred[i] == act[i];
		}
		CHECK(gsu_confusion_summarize(cells, nrows, cl, &s) == GSU_OK, "status");
		CHECK(s.n == nrows && s.correct == correct, "totals");
		CHECK(!binary || s.binary, "binary flag");
		for (k = 0; k < s.n_classes; k++)
		{
			int64_t		tp = 0,
						fp = 0,
						fn = 0,
						tn = 0;
			int32_t		l = cl[k].label;

			CHECK(k == 0 || cl[k - 1].label < l, "order");
			for (i = 0; i < nrows; i++)
			{
				tp += pred[i] == l && act[i] == l;
				fp += pred[i] == l && act[i] != l;
				fn += pred[i] != l && act[i] == l;
				tn += pred[i] != l && act[i] != l;
			}
			CHECK(cl[k].tp == tp && cl[k].fp == fp && cl[k].fn == fn && cl[k].tn == tn,
				  "class %d counts", (int) l);
			CHECK(tp + fp == 0 ? isnan(cl[k].precision) :
				  CLOSE(cl[k].precision, (double) tp / (tp + fp), 1e-15), "precision");
			CHECK(tp + fn == 0 ? isnan(cl[k].recall) :
				  CLOSE(cl[k].recall, (double) tp / (tp + fn), 1e-15), "recall");
			if (binary && l == 1)
				CHECK(s.tp == tp && s.fp == fp && s.fn == fn && s.tn == tn, "binary counts");
		}
		free(pred);
		free(act);
		free(cells);
		free(cl);
	}
}

/* ---------------------------------------------------------------- main */

static const gsu_test_case tests[] = {
	{"sort_patterns", test_sort_patterns},
	{"sort_cancel", test_sort_cancel},
	{"rank_groups_hand", test_rank_groups_hand},
	{"auc_hand", test_auc_hand},
	{"auc_ap_brute", test_auc_ap_brute},
	{"ap_hand", test_ap_hand},
	{"curve_hand", test_curve_hand},
	{"curve_area", test_curve_area},
	{"log_loss", test_log_loss},
	{"sum", test_sum},
	{"mcc", test_mcc},
	{"confusion_binary_hand", test_confusion_binary_hand},
	{"confusion_multiclass_hand", test_confusion_multiclass_hand},
	{"confusion_brute", test_confusion_brute},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
