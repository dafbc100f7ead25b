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
 */
#ifndef GSU_TEST_H
#define GSU_TEST_H

#include "gsu_core.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GSU_TEST_MAX_REPORTS 12

static const char *cur_test;
static int	cur_failures;
static int	quick;				/* GSU_TEST_QUICK set */

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

static int
gsu_test_main(const gsu_test_case *tests, size_t ntests)
{
	const char *q = getenv("GSU_TEST_QUICK");
	int			passed = 0,
				failed = 0;
	size_t		i;

	quick = (q != NULL && q[0] != '\0' && strcmp(q, "0") != 0);
	for (i = 0; i < ntests; i++)
	{
		cur_test = tests[i].name;
		cur_failures = 0;
		tests[i].fn();
		if (cur_failures)
		{
			fprintf(stderr, "FAIL %s (%d failed checks)\n", cur_test, cur_failures);
			failed++;
		}
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#define GSU_TEST_MAIN(tests) gsu_test_main((tests), sizeof(tests) / sizeof((tests)[0]))

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

#endif							/* GSU_TEST_H */
