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

#endif							/* GSU_TEST_H */
