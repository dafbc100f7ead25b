/*
 * gsu_base.h — what every file of the core shares: the status a fallible
 * function returns, the progress callback through which the glue stops a
 * long computation, and the dot product of the row passes.
 *
 * The core is pure C11 plus BLAS, LAPACKE and FFTW; no PostgreSQL headers.
 * It never allocates with palloc and never raises errors: every fallible
 * function returns a gsu_status that the PostgreSQL glue turns into an
 * ereport.
 */
#ifndef GSU_BASE_H
#define GSU_BASE_H

#include <stddef.h>
#include <stdint.h>

typedef enum gsu_status
{
	GSU_OK = 0,
	GSU_ENOMEM,				/* an allocation failed */
	GSU_EINVAL,				/* an argument is out of its domain */
	GSU_ENOTFINITE,			/* a NaN or infinity appeared in the iterate */
	GSU_ECANCELLED,			/* the progress callback asked to stop */
	GSU_ENOTSYMMETRIC,		/* a covariance matrix is not symmetric */
	GSU_ENOTPSD				/* a covariance matrix is not positive semi-definite */
} gsu_status;

const char *gsu_status_string(gsu_status s);

/* ------------------------------------------------------------- progress */

/*
 * Called once per outer iteration; return non-zero to stop (the solver then
 * returns GSU_ECANCELLED).  The glue uses it for CHECK_FOR_INTERRUPTS.
 */
typedef int (*gsu_progress_fn) (void *arg);

/*
 * A progress callback with a work counter, for loops whose iterations cost
 * anything from a few flops to seconds: gsu_progress_tick adds an
 * iteration's work (about its flops) and calls the callback once at least
 * GSU_PROGRESS_WORK has accumulated (about a millisecond), so that a
 * cancel is seen within milliseconds while cheap iterations do not pay an
 * indirect call each.  fn may be NULL (never stop).
 */
#define GSU_PROGRESS_WORK 2000000
typedef struct gsu_progress
{
	gsu_progress_fn fn;
	void	   *arg;
	double		work;			/* since the last call */
} gsu_progress;

static inline gsu_progress
gsu_progress_make(gsu_progress_fn fn, void *arg)
{
	gsu_progress p = {fn, arg, 0.0};

	return p;
}

/* Non-zero when the callback asked to stop. */
static inline int
gsu_progress_tick(gsu_progress *p, double work)
{
	if (p == NULL || p->fn == NULL)
		return 0;
	p->work += work;
	if (p->work < GSU_PROGRESS_WORK)
		return 0;
	p->work = 0.0;
	return p->fn(p->arg) != 0;
}

/* ------------------------------------------------------------ hot loops */

/*
 * GSU_HOT marks a function of a per-row hot loop (a streaming step, a
 * gradient pass, a row's checks) that the portable build (no -march) also
 * compiles for AVX2, the CPU picking one copy when the library loads (GCC's
 * target_clones, an ifunc).  The portable build's vectors are SSE2's two
 * doubles, AVX2's four: on a streaming pass over 50 features the portable
 * copy measured 1.3x slower than a -march=native build.  The clone's target
 * is "avx2" without "fma", so the compiler cannot contract a*b+c into one
 * rounding: both copies compute the same bits, on every machine.  A build
 * with -march (AVX2 or more) or another compiler gets one copy.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
	!defined(__AVX2__)
#define GSU_HOT __attribute__((target_clones("avx2", "default")))
#else
#define GSU_HOT
#endif

/* ----------------------------------------------------------------- dot */

/*
 * Σ_j a_j b_j (c == NULL) or Σ_j c_j a_j b_j, in eight interleaved partial
 * sums added pairwise: one running sum is a chain of dependent additions
 * (about 4 cycles each, 200 a row at dimension 50, the largest cost of a
 * streaming pass), while eight independent ones fill the vector units.  The
 * order depends on n only, so the result is the same on every call.
 */
static inline double
gsu_dot(int n, const double *a, const double *b, const double *c)
{
	double		s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
	int			j = 0,
				k;

	if (c == NULL)
		for (; j + 8 <= n; j += 8)
			for (k = 0; k < 8; k++)
				s[k] += a[j + k] * b[j + k];
	else
		for (; j + 8 <= n; j += 8)
			for (k = 0; k < 8; k++)
				s[k] += c[j + k] * a[j + k] * b[j + k];
	for (k = 0; j < n; j++, k++)
		s[k] += (c ? c[j] * a[j] : a[j]) * b[j];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

#endif							/* GSU_BASE_H */
