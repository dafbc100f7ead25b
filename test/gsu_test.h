/*
 * gsu_test.h — the harness shared by the C unit tests of the core.
 *
 * Each test program includes this once, defines its test functions (which
 * report with CHECK) and a table of them, and calls gsu_test_main:
 *
 *     static const gsu_test_case tests[] = {{"name", fn}, ...};
 *     int main(void) { return GSU_TEST_MAIN(tests); }
 *
 * Output: failure diagnostics on stderr (at most GSU_TEST_MAX_REPORTS per
 * test), then exactly one line "N passed, M failed" (counts of test
 * functions) on stdout, which test/run_core_tests.sh adds up; the exit
 * status is non-zero when any test failed.  GSU_TEST_QUICK=1 (e.g. under
 * valgrind) sets `quick`, which tests use to shrink their sizes.
 *
 * The harness and the helpers that several tests share (data sets, a
 * progress callback that stops, relative differences, a small generator)
 * are defined once, in test/gsu_test.c, which the Makefile links into every
 * test program beside the core's library (test/libgsucore.a).
 */
#ifndef GSU_TEST_H
#define GSU_TEST_H

#include "gsu_core.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GSU_TEST_MAX_REPORTS 12

extern const char *cur_test;		/* the running test's name */
extern int	cur_failures;		/* its failed checks so far */
extern int	quick;				/* GSU_TEST_QUICK set */

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			if (cur_failures++ < GSU_TEST_MAX_REPORTS) \
			{ \
				fprintf(stderr, "%s:%d: [%s] check failed: %s: ", \
						__FILE__, __LINE__, cur_test, #cond); \
				fprintf(stderr, __VA_ARGS__); \
				fputc('\n', stderr); \
			} \
		} \
	} while (0)

/* |a − b| ≤ tol; CHECK_CLOSE reports both values when not */
#define CLOSE(a, b, tol) (fabs((double) (a) - (double) (b)) <= (tol))
#define CHECK_CLOSE(a, b, tol) \
	CHECK(CLOSE((a), (b), (tol)), "%.17g vs %.17g", (double) (a), (double) (b))

typedef struct gsu_test_case
{
	const char *name;
	void		(*fn) (void);
} gsu_test_case;

/* runs the tests, prints "N passed, M failed"; the exit status */
extern int	gsu_test_main(const gsu_test_case *tests, size_t ntests);

#define GSU_TEST_MAIN(tests) gsu_test_main((tests), sizeof(tests) / sizeof((tests)[0]))

/* F(θ) at μ = 0 (gsu_objective), a failed check when it fails */
extern double gsu_test_objective(const gsu_dataset *ds, double lambda, const double *theta);

/*
 * A convex objective's minimizer, up to gap: F(θ) ≤ F(θ + hδ) + gap + rel·F(θ)
 * for 300 random unit δ (seeded) and h = 1e-2, 1e-4, 1e-6; a failed check
 * naming what and the largest drop otherwise.
 */
extern void gsu_test_local_minimum(const gsu_dataset *ds, double lambda, const double *theta,
								   double gap, double rel, const char *what);

/* A covariance argument for the core, as a pointer to a compound literal. */
#define DIAG_COV(v) (&(gsu_cov) {GSU_COV_DIAG, 0.0, (v), 0})
#define ISO_COV(s) (&(gsu_cov) {GSU_COV_ISO, (s), NULL, 0})
#define FULL_COV(c) (&(gsu_cov) {GSU_COV_FULL, 0.0, (c), 0})
/* diag(v) when v != NULL, else s·I */
#define VI_COV(v, s) (&(gsu_cov) {test_vi_kind(v), (s), (v), 0})

static inline gsu_cov_kind
test_vi_kind(const double *v)
{
	return v ? GSU_COV_DIAG : GSU_COV_ISO;
}

/* c (full) when c != NULL, else diag(v) when v != NULL, else s·I */
#define COV3(v, s, c) (&(gsu_cov) {test_cov3_kind((v), (c)), (s), test_cov3_data((v), (c)), 0})

static inline gsu_cov_kind
test_cov3_kind(const double *v, const double *c)
{
	return c ? GSU_COV_FULL : test_vi_kind(v);
}

static inline const double *
test_cov3_data(const double *v, const double *c)
{
	return c ? c : v;
}

/* A scratch buffer for the core's work arguments (up to 4096 doubles). */
static inline double *
test_work(void)
{
	static double w[4096];

	return w;
}

/*
 * A data set's covariances from a test's arrays, at most one of them
 * non-NULL: s (n values, s_i·I), v (n × d, diagonal), c (n × d × d, full).
 */
static inline void
test_set_cov(gsu_dataset *ds, const double *s, const double *v, const double *c)
{
	ds->cov_kind = c ? GSU_COV_FULL : v ? GSU_COV_DIAG : s ? GSU_COV_ISO : GSU_COV_NONE;
	ds->cov = c ? c : v ? v : s;
}

/* ------------------------------------------------ shared helpers */

/* calloc that exits (status 2) when out of memory */
extern void *xcalloc(size_t n, size_t size);

/* |a − b| / max(|a|, |b|, floor_abs) (the floor avoids 0/0); 0 when a == b */
extern double reldiff(double a, double b, double floor_abs);

/* the Euclidean norm of v[0..m) */
extern double vnorm(int m, const double *v);

/* max_k |a_k − b_k| over k < len */
extern double max_abs_diff(int len, const double *a, const double *b);

/* qsort's comparison of doubles, ascending */
extern int	cmp_double(const void *a, const void *b);

/*
 * A progress callback that asks to stop at once; counts its calls in
 * *(int *) arg when arg is not NULL.
 */
extern int	stop_now(void *arg);

/*
 * A small deterministic generator (splitmix64) on a state the test owns:
 * the next 64 bits, and a double uniform in [0, 1) from the top 53 of them.
 */
extern uint64_t test_next_u64(uint64_t *state);
extern double test_unif(uint64_t *state);

/*
 * A data set that owns its arrays: rows x (n × d), labels y, and at most the
 * covariances of one kind that ds views (s: n values s_i·I; v: n × d
 * diagonals; c: n × d × d full) plus, for GSU_COV_FULL rows from make_data,
 * diagonals v too; optional row weights w.  test_data_alloc zero-fills the
 * arrays of a kind; test_data_free frees them all.
 */
typedef struct test_data
{
	gsu_dataset ds;
	double	   *x,
			   *y,
			   *s,
			   *v,
			   *c,
			   *w;
} test_data;

extern void test_data_alloc(test_data *td, int64_t n, int d, gsu_cov_kind kind, int weighted);
extern void test_data_free(test_data *td);

/*
 * What make_data draws: two classes, label +1 on rows i % pos_every == 0
 * (0 means 2: alternating, +1 first) and −1 on the others;
 * x_ij = y_i·shift_j + spread·N(0, 1), shift_j = shift on even features and
 * shift/2 on odd ones (full_shift: shift on all); covariances of kind:
 * ISO s_i ∈ U[vlo, vhi]; DIAG v_ij ∈ U[vlo, vhi]; FULL
 * Σ_i = s_i·A_iA_iᵀ/d with A_i standard normal and s_i ∈ U[vlo, vhi] (rows
 * i % rank1_every == 1, when rank1_every > 0, rank one: s_i·a aᵀ/d) and
 * diagonals v as for DIAG; weights (when wvals) drawn from wvals[0..nw).
 */
typedef struct test_rows
{
	gsu_cov_kind kind;
	double		shift,
				spread,
				vlo,
				vhi;
	int			pos_every;
	int			full_shift;		/* 1: shift on every feature, not halved on odd ones */
	int			rank1_every;
	const double *wvals;
	int			nw;
} test_rows;

/* n rows of d features as spec says, from the generator gsu_rng seeded with seed; ds views them */
extern void make_data(test_data *td, int64_t n, int d, const test_rows *spec, uint64_t seed);

#endif							/* GSU_TEST_H */
