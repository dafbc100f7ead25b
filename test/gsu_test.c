/*
 * gsu_test.c — the harness and the helpers shared by the C unit tests of
 * the core (declared in test/gsu_test.h); compiled once and linked into
 * every test program.
 */
#include "gsu_test.h"

#include <time.h>

const char *cur_test;
int			cur_failures;
int			quick;

int
gsu_test_main(const gsu_test_case *tests, size_t ntests)
{
	const char *q = getenv("GSU_TEST_QUICK");
	const char *tm = getenv("GSU_TEST_TIMES");
	int			passed = 0,
				failed = 0;
	size_t		i;

	quick = (q != NULL && q[0] != '\0' && strcmp(q, "0") != 0);
	for (i = 0; i < ntests; i++)
	{
		cur_test = tests[i].name;
		cur_failures = 0;
		if (tm != NULL && tm[0] != '\0')
		{
			/* GSU_TEST_TIMES=1: each test's CPU time on stderr, to find the slow ones */
			clock_t		t0 = clock();

			tests[i].fn();
			fprintf(stderr, "time %s %.2f s\n", cur_test,
					(double) (clock() - t0) / CLOCKS_PER_SEC);
		}
		else
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

/* ------------------------------------------------ shared helpers */

void *
xcalloc(size_t n, size_t size)
{
	void	   *p = calloc(n, size);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

double
reldiff(double a, double b, double floor_abs)
{
	double		den = fmax(fmax(fabs(a), fabs(b)), floor_abs);

	if (a == b)
		return 0.0;
	return fabs(a - b) / den;
}

double
vnorm(int m, const double *v)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k < m; k++)
		s += v[k] * v[k];
	return sqrt(s);
}

double
max_abs_diff(int len, const double *a, const double *b)
{
	double		m = 0.0;
	int			k;

	for (k = 0; k < len; k++)
		m = fmax(m, fabs(a[k] - b[k]));
	return m;
}

int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
stop_now(void *arg)
{
	if (arg)
		(*(int *) arg)++;
	return 1;
}

uint64_t
test_next_u64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double
test_unif(uint64_t *state)
{
	return (double) (test_next_u64(state) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------ data sets */

void
test_data_alloc(test_data *td, int64_t n, int d, gsu_cov_kind kind, int weighted)
{
	memset(td, 0, sizeof(*td));
	td->x = xcalloc((size_t) n * d, sizeof(double));
	td->y = xcalloc((size_t) n, sizeof(double));
	if (kind == GSU_COV_ISO)
		td->s = xcalloc((size_t) n, sizeof(double));
	if (kind == GSU_COV_DIAG)
		td->v = xcalloc((size_t) n * d, sizeof(double));
	if (kind == GSU_COV_FULL)
		td->c = xcalloc((size_t) n * d * d, sizeof(double));
	if (weighted)
		td->w = xcalloc((size_t) n, sizeof(double));
	td->ds.n = n;
	td->ds.d = d;
	td->ds.x = td->x;
	td->ds.y = td->y;
	test_set_cov(&td->ds, td->s, td->v, td->c);
	td->ds.weight = td->w;
}

void
test_data_free(test_data *td)
{
	free(td->x);
	free(td->y);
	free(td->s);
	free(td->v);
	free(td->c);
	free(td->w);
	memset(td, 0, sizeof(*td));
}

void
make_data(test_data *td, int64_t n, int d, const test_rows *spec, uint64_t seed)
{
	gsu_rng		r;
	int			full = spec->kind == GSU_COV_FULL,
				pos_every = spec->pos_every > 0 ? spec->pos_every : 2;
	double		span = spec->vhi - spec->vlo;
	double	   *a = full ? xcalloc((size_t) d * d, sizeof(double)) : NULL;
	int64_t		i;

	test_data_alloc(td, n, d, spec->kind, spec->wvals != NULL);
	if (full)
		td->v = xcalloc((size_t) n * d, sizeof(double));
	gsu_rng_seed(&r, seed);
	for (i = 0; i < n; i++)
	{
		double		si = full ? spec->vlo + span * gsu_rng_uniform(&r) : 0.0;
		int			j,
					k,
					l;

		td->y[i] = (i % pos_every == 0) ? 1.0 : -1.0;
		for (j = 0; j < d; j++)
		{
			double		sh = spec->shift * (spec->full_shift || j % 2 == 0 ? 1.0 : 0.5);

			td->x[i * d + j] = td->y[i] * sh + spec->spread * gsu_rng_normal(&r);
			if (td->v)
				td->v[i * d + j] = spec->vlo + span * gsu_rng_uniform(&r);
		}
		if (full)
		{
			int			cols = (spec->rank1_every > 0 && i % spec->rank1_every == 1) ? 1 : d;
			double	   *ci = td->c + (size_t) i * d * d;

			for (j = 0; j < d * d; j++)
				a[j] = gsu_rng_normal(&r);
			for (j = 0; j < d; j++)
				for (k = 0; k <= j; k++)
				{
					double		acc = 0.0;

					for (l = 0; l < cols; l++)
						acc += a[j * d + l] * a[k * d + l];
					ci[j * d + k] = ci[k * d + j] = si * acc / d;
				}
		}
		if (td->s)
			td->s[i] = spec->vlo + span * gsu_rng_uniform(&r);
		if (td->w)
			td->w[i] = spec->wvals[gsu_rng_below(&r, (uint64_t) spec->nw)];
	}
	free(a);
}

double
gsu_test_objective(const gsu_dataset *ds, double lambda, const double *theta)
{
	double		f = NAN;

	CHECK(gsu_objective(ds, lambda, 0.0, theta, &f, NULL) == GSU_OK, "objective");
	return f;
}

void
gsu_test_local_minimum(const gsu_dataset *ds, double lambda, const double *theta, double gap,
					   double rel, const char *what)
{
	int			m = ds->d + 1,
				k,
				j,
				s,
				worse = 0;
	double	   *t = malloc(sizeof(double) * m),
			   *dir = malloc(sizeof(double) * m),
				f0 = gsu_test_objective(ds, lambda, theta),
				lowest = f0;
	gsu_rng		rng;

	CHECK(t && dir, "%s: out of memory", what);
	gsu_rng_seed(&rng, 7);
	for (k = 0; t && dir && k < 300; k++)
	{
		double		nrm = 0.0;

		for (j = 0; j < m; j++)
		{
			dir[j] = gsu_rng_normal(&rng);
			nrm += dir[j] * dir[j];
		}
		for (s = 0; s < 3; s++)
		{
			double		h = s == 0 ? 1e-2 : s == 1 ? 1e-4 : 1e-6,
						f;

			for (j = 0; j < m; j++)
				t[j] = theta[j] + h * dir[j] / sqrt(nrm);
			f = gsu_test_objective(ds, lambda, t);
			if (f < f0 - gap - rel * f0)
				worse++;
			lowest = fmin(lowest, f);
		}
	}
	CHECK(worse == 0, "%s: %d of 900 nearby points are lower than %.17g by more than %g (by up to %g)",
		  what, worse, f0, gap, f0 - lowest);
	free(t);
	free(dir);
}
