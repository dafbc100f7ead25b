/*
 * test_cov.c — unit tests of full covariances and of learning in linear
 * subspaces (src/core/gsu_cov.c and the full-Σ paths of the loss, the
 * objective and the solvers), no PostgreSQL.
 *
 *   cc -std=c11 -O2 -g -Wall -Wextra -Werror -Isrc/core -o test/test_cov
 *      test/test_cov.c src/core/[*].c -lopenblas -llapacke -lm   (from the top)
 *   ./test/test_cov
 *
 * References are computed here independently: matrices with a known
 * eigen-decomposition built from Givens rotations, long double loops,
 * finite differences, a brute-force subspace rule, and the diagonal code
 * path of the core where a full Σ = diag(v) must reproduce it.
 * Deterministic: fixed seeds throughout.  GSU_TEST_QUICK=1 (e.g. under
 * valgrind) shrinks the sizes.
 *
 * Output: failure diagnostics on stderr, then exactly one line
 * "N passed, M failed" (counts of test functions) on stdout; the exit
 * status is non-zero when any test failed.
 */
#include "gsu_core.h"
#include "gsu_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- reference maths */

#define SQRTPI_L 1.772453850905516027298167483341145182L

/* ‖a − b‖ */
static double
vdist(int m, const double *a, const double *b)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k < m; k++)
		s += (a[k] - b[k]) * (a[k] - b[k]);
	return sqrt(s);
}

/* h(u) = u/2·erfc(−u) + exp(−u²)/(2√π) directly: good for u ≥ −8 */
static long double
ref_h_direct(long double u)
{
	return u / 2 * erfcl(-u) + expl(-u * u) / (2 * SQRTPI_L);
}

/*
 * h(−t), t ≥ 8, from the asymptotic series of erfc (see test_core.c):
 *   h(−t) = e^{−t²}/(2√π) Σ_{k≥1} (−1)^{k+1} (2k−1)!!/(2t²)^k.
 */
static long double
ref_h_neg_series(long double t)
{
	long double x = 1 / (2 * t * t);
	long double term = x;
	long double sum = 0;
	int			k;

	for (k = 1; k < 2000; k++)
	{
		long double next = term * (2 * k + 1) * x;

		sum += (k % 2 == 1) ? term : -term;
		if (next > term || fabsl(next) < 1e-24L * fabsl(sum))
			break;
		term = next;
	}
	return expl(-t * t) / (2 * SQRTPI_L) * sum;
}

static long double
ref_h(long double u)
{
	if (u >= -8)
		return ref_h_direct(u);
	return ref_h_neg_series(-u);
}

/* the expected hinge L(dx, ds) = ds·h(dx/ds), or max(0, dx) for ds = 0 */
static long double
ref_loss(long double dx, long double ds)
{
	if (ds == 0)
		return dx > 0 ? dx : 0;
	return ds * ref_h(dx / ds);
}

/* wᵀΣw for a full Σ, long double */
static long double
ref_quad_full(int d, const double *w, const double *cov)
{
	long double acc = 0;
	int			j,
				k;

	for (j = 0; j < d; j++)
		for (k = 0; k < d; k++)
			acc += (long double) w[j] * cov[(size_t) j * d + k] * w[k];
	return acc;
}

/* F_μ(θ) for a dataset with full covariances, by a plain loop in long double */
static long double
ref_objective_full(const gsu_dataset *ds, double lambda, double mu,
				   const double *theta)
{
	long double sum = 0,
				ww = 0;
	int64_t		i;
	int			j,
				d = ds->d;

	for (i = 0; i < ds->n; i++)
	{
		long double f = theta[d];
		long double quad = ref_quad_full(d, theta, ds->cov + (size_t) i * d * d);

		for (j = 0; j < d; j++)
			f += (long double) theta[j] * ds->x[(size_t) i * d + j];
		sum += ref_loss(1 - ds->y[i] * f, sqrtl(2 * quad + (long double) mu * mu));
	}
	for (j = 0; j < d; j++)
		ww += (long double) theta[j] * theta[j];
	return lambda / 2.0L * ww + sum / ds->n;
}

static double
objective(const gsu_dataset *ds, double lambda, double mu, const double *theta)
{
	double		f = NAN;

	if (gsu_objective(ds, lambda, mu, theta, &f, NULL) != GSU_OK)
		return NAN;
	return f;
}

/* central finite-difference gradient of gsu_objective's f */
static void
fd_gradient(const gsu_dataset *ds, double lambda, double mu,
			const double *theta, double step, double *g)
{
	int			m = ds->d + 1,
				k;
	double	   *t = malloc(sizeof(double) * m);

	memcpy(t, theta, sizeof(double) * m);
	for (k = 0; k < m; k++)
	{
		double		hk = step * fmax(1.0, fabs(theta[k]));
		double		fp,
					fm;

		t[k] = theta[k] + hk;
		fp = objective(ds, lambda, mu, t);
		t[k] = theta[k] - hk;
		fm = objective(ds, lambda, mu, t);
		t[k] = theta[k];
		g[k] = (fp - fm) / ((theta[k] + hk) - (theta[k] - hk));
	}
	free(t);
}

/* ------------------------------------- matrices with known eigenpairs */

/*
 * Q = G_1 G_2 … G_r, a product of Givens rotations in the planes (i_k, j_k)
 * by angles a_k: orthogonal to long double precision, with every column an
 * exactly known eigenvector of Q D Qᵀ.  Row-major d×d.
 */
typedef struct givens
{
	int			i,
				j;
	double		angle;
} givens;

static void
givens_product(int d, const givens *g, int ng, long double *q)
{
	int			a,
				k;

	for (a = 0; a < d * d; a++)
		q[a] = 0;
	for (a = 0; a < d; a++)
		q[a * d + a] = 1;
	for (k = 0; k < ng; k++)
	{
		long double c = cosl(g[k].angle),
					s = sinl(g[k].angle);

		/* Q ← Q·G: mixes columns i and j */
		for (a = 0; a < d; a++)
		{
			long double qi = q[a * d + g[k].i],
						qj = q[a * d + g[k].j];

			q[a * d + g[k].i] = c * qi - s * qj;
			q[a * d + g[k].j] = s * qi + c * qj;
		}
	}
}

/* out = Q diag(ev) Qᵀ (rounded to double); column e of Q pairs with ev[e] */
static void
q_diag_qt(int d, const long double *q, const double *ev, double *out)
{
	int			a,
				b,
				e;

	for (a = 0; a < d; a++)
		for (b = 0; b < d; b++)
		{
			long double acc = 0;

			for (e = 0; e < d; e++)
				acc += q[a * d + e] * ev[e] * q[b * d + e];
			out[a * d + b] = (double) acc;
		}
	/* exactly symmetric, as a user's matrix would be */
	for (a = 0; a < d; a++)
		for (b = a + 1; b < d; b++)
			out[b * d + a] = out[a * d + b];
}

/* a chain of rotations touching every plane (i, i+1) and some wider ones */
static int
standard_rotations(int d, givens *g)
{
	int			ng = 0,
				i;

	for (i = 0; i + 1 < d; i++)
		g[ng++] = (givens) {i, i + 1, 0.37 + 0.21 * i};
	for (i = 0; i + 2 < d; i++)
		g[ng++] = (givens) {i, i + 2, -0.81 + 0.33 * i};
	for (i = 0; i + 3 < d; i++)
		g[ng++] = (givens) {i + 3, i, 1.13 - 0.17 * i};
	return ng;
}

/* max_ab |a − b| */
static double
max_abs(int len, const double *a)
{
	double		m = 0.0;
	int			k;

	for (k = 0; k < len; k++)
		m = fmax(m, fabs(a[k]));
	return m;
}

/* full covariances diag(v_i) from the diagonal ones (caller frees) */
static double *
diag_as_full(int64_t n, int d, const double *v)
{
	double	   *c = calloc((size_t) n * d * d, sizeof(double));
	int64_t		i;
	int			j;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			c[(size_t) i * d * d + (size_t) j * d + j] = v[i * d + j];
	return c;
}

/* --------------------------------------- 1. covariance check: accepts */

static void
test_covariance_check_accepts(void)
{
	givens		g[32];
	long double q[64];
	double		cov[64],
				me;
	gsu_status	st;
	int			ng;

	/* SPD with known spectrum */
	{
		static const double ev[4] = {2.5, 0.3, 1.1, 0.05};

		ng = standard_rotations(4, g);
		givens_product(4, g, ng, q);
		q_diag_qt(4, q, ev, cov);
		me = NAN;
		st = gsu_covariance_check(4, cov, 1e-12, &me);
		CHECK(st == GSU_OK, "SPD: status %s", gsu_status_string(st));
		CHECK(fabs(me - 0.05) <= 1e-13, "SPD: min_eig %.17g, expected 0.05", me);
		/* NULL min_eig is allowed */
		st = gsu_covariance_check(4, cov, 1e-12, NULL);
		CHECK(st == GSU_OK, "SPD, NULL min_eig: status %s", gsu_status_string(st));
	}
	/* singular PSD of rank 1: u uᵀ */
	{
		static const double u[5] = {1.0, 2.0, -1.0, 0.5, -3.0};
		int			j,
					k;

		for (j = 0; j < 5; j++)
			for (k = 0; k < 5; k++)
				cov[j * 5 + k] = u[j] * u[k];
		me = NAN;
		st = gsu_covariance_check(5, cov, 1e-10, &me);
		CHECK(st == GSU_OK, "rank 1: status %s (min_eig %.3g)",
			  gsu_status_string(st), me);
		/* λ = 0 four times, 15.25 once: λ_min is 0 up to rounding */
		CHECK(fabs(me) <= 1e-13 * 15.25, "rank 1: min_eig %.3g", me);
	}
	/* singular PSD of rank 2 with a known null space */
	{
		static const double ev[6] = {0.0, 4.0, 0.0, 0.0, 0.7, 0.0};

		ng = standard_rotations(6, g);
		givens_product(6, g, ng, q);
		q_diag_qt(6, q, ev, cov);
		me = NAN;
		st = gsu_covariance_check(6, cov, 1e-10, &me);
		CHECK(st == GSU_OK, "rank 2: status %s (min_eig %.3g)",
			  gsu_status_string(st), me);
		CHECK(fabs(me) <= 1e-14 * 4.0, "rank 2: min_eig %.3g", me);
	}
	/* the zero matrix, a 1×1 matrix, a diagonal matrix */
	{
		static const double zero[9] = {0};
		static const double one[1] = {2.0};
		static const double dg[9] = {3.0, 0, 0, 0, 0.0, 0, 0, 0, 1.5};

		me = NAN;
		st = gsu_covariance_check(3, zero, 1e-12, &me);
		CHECK(st == GSU_OK && me == 0.0, "zero matrix: status %s min_eig %.3g",
			  gsu_status_string(st), me);
		st = gsu_covariance_check(1, one, 0.0, &me);
		CHECK(st == GSU_OK && me == 2.0, "1x1: status %s min_eig %.3g",
			  gsu_status_string(st), me);
		st = gsu_covariance_check(3, dg, 0.0, &me);
		CHECK(st == GSU_OK && me == 0.0, "diag(3,0,1.5) tol 0: status %s min_eig %.3g",
			  gsu_status_string(st), me);
	}
	/* scale invariance: 1e8·Σ and 1e-8·Σ of a PSD Σ pass with the same tol */
	{
		static const double ev[3] = {1.0, 0.25, 0.5};
		static const double scales[2] = {1e8, 1e-8};
		double		sc[9];
		int			s,
					k;

		ng = standard_rotations(3, g);
		givens_product(3, g, ng, q);
		q_diag_qt(3, q, ev, cov);
		for (s = 0; s < 2; s++)
		{
			for (k = 0; k < 9; k++)
				sc[k] = scales[s] * cov[k];
			st = gsu_covariance_check(3, sc, 1e-12, &me);
			CHECK(st == GSU_OK && reldiff(me, 0.25 * scales[s], 0.0) < 1e-12,
				  "scale %g: status %s min_eig %.17g", scales[s],
				  gsu_status_string(st), me);
		}
	}
}

/* --------------------------------------- 2. covariance check: rejects */

static void
test_covariance_check_rejects(void)
{
	givens		g[32];
	long double q[64];
	double		cov[64],
				me;
	gsu_status	st;
	int			ng;

	/* asymmetric */
	{
		double		a[9] = {2.0, 0.5, 0.1,
			0.4, 1.0, 0.2,
		0.1, 0.2, 1.5};

		st = gsu_covariance_check(3, a, 1e-6, NULL);
		CHECK(st == GSU_ENOTSYMMETRIC, "asymmetric: status %s", gsu_status_string(st));
		/* the asymmetry in the last pair of the upper/lower triangles */
		a[1] = a[3] = 0.4;
		a[7] = 0.25;
		st = gsu_covariance_check(3, a, 1e-6, NULL);
		CHECK(st == GSU_ENOTSYMMETRIC, "asymmetric (2,1): status %s",
			  gsu_status_string(st));
		/* an asymmetric matrix with a zero diagonal */
		{
			static const double z[4] = {0.0, 1.0, 2.0, 0.0};

			st = gsu_covariance_check(2, z, 1e-6, NULL);
			CHECK(st == GSU_ENOTSYMMETRIC, "zero-diagonal asymmetric: status %s",
				  gsu_status_string(st));
		}
	}
	/* indefinite, with a known negative eigenvalue */
	{
		static const double ev[4] = {3.0, -0.5, 1.0, 0.2};

		ng = standard_rotations(4, g);
		givens_product(4, g, ng, q);
		q_diag_qt(4, q, ev, cov);
		me = NAN;
		st = gsu_covariance_check(4, cov, 1e-6, &me);
		CHECK(st == GSU_ENOTPSD, "indefinite: status %s", gsu_status_string(st));
		CHECK(fabs(me - (-0.5)) <= 1e-13 * 3.0, "indefinite: min_eig %.17g, expected -0.5",
			  me);
	}
	/* indefinite with a positive diagonal (only the eigenvalues tell) */
	{
		static const double a[4] = {1.0, 2.0, 2.0, 1.0};	/* λ = 3, −1 */

		me = NAN;
		st = gsu_covariance_check(2, a, 1e-6, &me);
		CHECK(st == GSU_ENOTPSD && fabs(me + 1.0) <= 1e-15,
			  "[[1,2],[2,1]]: status %s min_eig %.17g", gsu_status_string(st), me);
	}
	/* zero diagonal, symmetric, indefinite */
	{
		static const double a[4] = {0.0, 1.0, 1.0, 0.0};	/* λ = ±1 */

		me = NAN;
		st = gsu_covariance_check(2, a, 1e-6, &me);
		CHECK(st == GSU_ENOTPSD && fabs(me + 1.0) <= 1e-15,
			  "[[0,1],[1,0]]: status %s min_eig %.17g", gsu_status_string(st), me);
	}
	/* negative definite, and a negative 1×1 */
	{
		static const double a[4] = {-2.0, 0.0, 0.0, -1.0};
		static const double b[1] = {-1.0};

		st = gsu_covariance_check(2, a, 1e-6, &me);
		CHECK(st == GSU_ENOTPSD && me == -2.0, "-diag(2,1): status %s min_eig %.17g",
			  gsu_status_string(st), me);
		st = gsu_covariance_check(1, b, 1e-6, &me);
		CHECK(st == GSU_ENOTPSD && me == -1.0, "[-1]: status %s min_eig %.17g",
			  gsu_status_string(st), me);
	}
}

/* -------------------------------- 3. covariance check: the tolerances */

static void
test_covariance_check_tolerance(void)
{
	gsu_status	st;
	double		me;

	/*
	 * Symmetry: |Σ_jk − Σ_kj| ≤ tol·max_j Σ_jj.  Binary fractions make the
	 * difference and the bound exact: max diag 4, tol 2⁻²⁰, bound 2⁻¹⁸.
	 */
	{
		const double tol = 0x1p-20;
		double		a[9] = {4.0, 0.5, 0.25,
			0.5, 2.0, 0.125,
		0.25, 0.125, 1.0};

		a[3] = 0.5 + 0x1p-18;	/* exactly at the bound */
		st = gsu_covariance_check(3, a, tol, &me);
		CHECK(st == GSU_OK, "asymmetry = tol*scale: status %s", gsu_status_string(st));
		a[3] = 0.5 + 0x1p-17;	/* twice the bound */
		st = gsu_covariance_check(3, a, tol, NULL);
		CHECK(st == GSU_ENOTSYMMETRIC, "asymmetry = 2*tol*scale: status %s",
			  gsu_status_string(st));
		a[3] = 0.5 - 0x1p-17;	/* the other sign */
		st = gsu_covariance_check(3, a, tol, NULL);
		CHECK(st == GSU_ENOTSYMMETRIC, "asymmetry = -2*tol*scale: status %s",
			  gsu_status_string(st));
		st = gsu_covariance_check(3, a, 2 * tol, NULL);
		CHECK(st == GSU_OK, "asymmetry = (2 tol)*scale: status %s", gsu_status_string(st));
		/* the scale is the diagonal: the same asymmetry on 1e6·Σ passes */
		{
			double		b[9];
			int			k;

			for (k = 0; k < 9; k++)
				b[k] = 1e6 * a[k];
			b[3] = 1e6 * 0.5 + 1e6 * 0x1p-17;
			st = gsu_covariance_check(3, b, 2 * tol, NULL);
			CHECK(st == GSU_OK, "scaled asymmetry: status %s", gsu_status_string(st));
		}
	}

	/*
	 * Definiteness: λ_min ≥ −tol·max(λ_max, 0).  A diagonal matrix has its
	 * eigenvalues computed exactly, so the boundary itself can be tested.
	 */
	{
		const double tol = 0x1p-20;
		double		a[4] = {1.0, 0.0, 0.0, -0x1p-20};

		st = gsu_covariance_check(2, a, tol, &me);
		CHECK(st == GSU_OK && me == -0x1p-20, "lambda_min = -tol*lambda_max: status %s "
			  "min_eig %.17g", gsu_status_string(st), me);
		a[3] = -0x1.000002p-20;
		st = gsu_covariance_check(2, a, tol, &me);
		CHECK(st == GSU_ENOTPSD, "lambda_min just below -tol*lambda_max: status %s "
			  "min_eig %.17g", gsu_status_string(st), me);
		a[3] = -0x1p-20;
		st = gsu_covariance_check(2, a, 0.0, &me);
		CHECK(st == GSU_ENOTPSD, "tol 0: status %s", gsu_status_string(st));
	}
	/* a rotated matrix, 10% either side of the bound */
	{
		givens		g[16];
		long double q[16];
		double		cov[16];
		const double tol = 1e-6;
		double		ev[4] = {2.0, 0.5, 1.0, 0.0};
		int			ng = standard_rotations(4, g);

		givens_product(4, g, ng, q);
		ev[3] = -0.9 * tol * 2.0;
		q_diag_qt(4, q, ev, cov);
		st = gsu_covariance_check(4, cov, tol, &me);
		CHECK(st == GSU_OK && reldiff(me, ev[3], 0.0) < 1e-8,
			  "0.9 of the bound: status %s min_eig %.17g (expected %.17g)",
			  gsu_status_string(st), me, ev[3]);
		ev[3] = -1.1 * tol * 2.0;
		q_diag_qt(4, q, ev, cov);
		st = gsu_covariance_check(4, cov, tol, &me);
		CHECK(st == GSU_ENOTPSD && reldiff(me, ev[3], 0.0) < 1e-8,
			  "1.1 of the bound: status %s min_eig %.17g (expected %.17g)",
			  gsu_status_string(st), me, ev[3]);
	}
	/* rounding: a PSD product A Aᵀ of rank 1 needs a tolerance > 0 */
	{
		static const double u[3] = {0.1, 0.7, -0.3};
		double		a[9];
		int			j,
					k;

		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				a[j * 3 + k] = u[j] * u[k];
		st = gsu_covariance_check(3, a, 1e-12, &me);
		CHECK(st == GSU_OK, "rank 1 with tol 1e-12: status %s min_eig %.3g",
			  gsu_status_string(st), me);
	}
}

/* ------------------------------ 4. covariance check: non-finite entries */

static void
test_covariance_check_nonfinite(void)
{
	/*
	 * A NaN satisfies neither |Σ_jk − Σ_kj| ≤ tol·scale nor λ_min ≥ …, so a
	 * matrix with one must never be reported GSU_OK, wherever the NaN is
	 * (the eigen-solver reads one triangle only).  Same for infinities.
	 */
	static const double base[9] = {2.0, 0.5, 0.1,
		0.5, 1.0, 0.2,
	0.1, 0.2, 1.5};
	static const int pos[] = {0, 1, 3, 4, 5, 7, 8};
	double		a[9];
	int			k;
	gsu_status	st;

	for (k = 0; k < (int) (sizeof(pos) / sizeof(pos[0])); k++)
	{
		memcpy(a, base, sizeof(a));
		a[pos[k]] = NAN;
		st = gsu_covariance_check(3, a, 1e-6, NULL);
		CHECK(st != GSU_OK, "NaN at entry %d accepted", pos[k]);
		memcpy(a, base, sizeof(a));
		a[pos[k]] = HUGE_VAL;
		st = gsu_covariance_check(3, a, 1e-6, NULL);
		CHECK(st != GSU_OK, "+Inf at entry %d accepted", pos[k]);
	}
	/* a symmetric pair of infinities */
	memcpy(a, base, sizeof(a));
	a[1] = a[3] = HUGE_VAL;
	st = gsu_covariance_check(3, a, 1e-6, NULL);
	CHECK(st != GSU_OK, "symmetric +Inf pair accepted");
}

/* --------------------------------------------------- 5. gsu_quad_full */

static void
test_quad_full(void)
{
	static const int dims[] = {1, 2, 3, 4, 7, 16, 33};
	gsu_rng		r;
	int			di;

	gsu_rng_seed(&r, 501);
	for (di = 0; di < (int) (sizeof(dims) / sizeof(dims[0])); di++)
	{
		int			d = dims[di],
					trial;
		double	   *cov = malloc(sizeof(double) * d * d);
		double	   *w = malloc(sizeof(double) * d);
		double	   *sw = malloc(sizeof(double) * d);

		for (trial = 0; trial < 4; trial++)
		{
			long double qref = 0,
						qabs = 0;
			double		quad;
			int			j,
						k;

			/* symmetric, not necessarily definite: the function needs neither */
			for (j = 0; j < d; j++)
				for (k = 0; k <= j; k++)
					cov[j * d + k] = cov[k * d + j] = gsu_rng_normal(&r);
			for (j = 0; j < d; j++)
				w[j] = 2.0 * gsu_rng_normal(&r);
			for (j = 0; j < d; j++)
				sw[j] = NAN;	/* must be overwritten */

			quad = gsu_quad_full(d, w, cov, sw);
			for (j = 0; j < d; j++)
			{
				long double sref = 0,
							sabs = 0;

				for (k = 0; k < d; k++)
				{
					long double t = (long double) cov[j * d + k] * w[k];

					sref += t;
					sabs += fabsl(t);
					qref += w[j] * t;
					qabs += fabsl(w[j] * t);
				}
				CHECK(fabsl(sw[j] - sref) <= 1e-14L * sabs,
					  "d %d trial %d: (Sigma w)[%d] = %.17g, naive %.17Lg",
					  d, trial, j, sw[j], sref);
			}
			CHECK(fabsl(quad - qref) <= 1e-14L * qabs,
				  "d %d trial %d: w'Sigma w = %.17g, naive %.17Lg (abs sum %.3Lg)",
				  d, trial, quad, qref, qabs);
		}
		/* a PSD Σ gives a non-negative quad, 0 for w in the null space */
		if (d >= 2)
		{
			int			j,
						k;

			for (j = 0; j < d; j++)
				for (k = 0; k < d; k++)
					cov[j * d + k] = (j < 1 && k < 1) ? 3.0 : 0.0;
			for (j = 0; j < d; j++)
				w[j] = (j == 0) ? 0.0 : 1.0 + j;
			CHECK(gsu_quad_full(d, w, cov, sw) == 0.0, "d %d: null-space quad %.17g",
				  d, gsu_quad_full(d, w, cov, sw));
		}
		free(cov);
		free(w);
		free(sw);
	}
}

/* -------------------------------------- 6. gsu_sgd_step, full covariance */

/* a reference Pegasos step for a full Σ, in long double from the formulas */
static long double
ref_sgd_full(int d, const double *theta, double lambda, int64_t t,
			 const double *x, const double *cov, double y, long double *out)
{
	long double eta = 1.0L / (lambda * (long double) t);
	long double f = theta[d],
				quad = ref_quad_full(d, theta, cov),
				dx,
				ds,
				p,
				q,
				loss,
				nrm2 = 0,
				sw[16];
	int			j,
				k;

	for (j = 0; j < d; j++)
	{
		f += (long double) theta[j] * x[j];
		sw[j] = 0;
		for (k = 0; k < d; k++)
			sw[j] += (long double) cov[j * d + k] * theta[k];
	}
	dx = 1 - y * f;
	ds = sqrtl(2 * fmaxl(quad, 0));
	if (ds == 0)
	{
		p = dx > 0 ? 1 : 0;
		q = 0;
		loss = dx > 0 ? dx : 0;
	}
	else
	{
		long double u = dx / ds;

		p = 0.5L * erfcl(-u);
		q = expl(-u * u) / (2 * SQRTPI_L);
		loss = ref_loss(dx, ds);
	}
	for (j = 0; j < d; j++)
	{
		long double gj = (q > 0 ? 2 * q / ds * sw[j] : 0) - p * y * x[j];

		out[j] = (1 - eta * lambda) * theta[j] - eta * gj;
		nrm2 += out[j] * out[j];
	}
	out[d] = theta[d] + eta * p * y;
	if (nrm2 * lambda > 1)
		for (j = 0; j < d; j++)
			out[j] /= sqrtl(nrm2 * lambda);
	return loss;
}

static void
test_sgd_step_full(void)
{
	gsu_rng		r;
	int			trial,
				projected = 0,
				hinge = 0;

	gsu_rng_seed(&r, 601);
	for (trial = 0; trial < 60; trial++)
	{
		int			d = 1 + trial % 6,
					j;
		double		th1[8],
					th2[8],
					x[7],
					var[7],
					cov[49],
					work[7],
					lambda = (trial % 3 == 0) ? 0.5 : 0.05,
					y = (trial % 2) ? 1.0 : -1.0,
					l1,
					l2,
					scale = 0.0;
		int64_t		t = 1 + (int64_t) gsu_rng_below(&r, 50);

		for (j = 0; j <= d; j++)
			th1[j] = th2[j] = 0.8 * gsu_rng_normal(&r);
		for (j = 0; j < d; j++)
		{
			x[j] = 1.5 * gsu_rng_normal(&r);
			var[j] = (trial % 7 == 3) ? 0.0 : gsu_rng_uniform(&r);
			if (trial % 5 == 2 && j == 0)
				var[j] = 0.0;	/* a certain coordinate */
		}
		memset(cov, 0, sizeof(cov));
		for (j = 0; j < d; j++)
			cov[j * d + j] = var[j];
		if (trial % 7 == 3)
			hinge++;

		l1 = gsu_sgd_step(d, th1, lambda, t, x, DIAG_COV(var), y, 1.0, work);
		l2 = gsu_sgd_step(d, th2, lambda, t, x, FULL_COV(cov), y, 1.0, work);
		CHECK(reldiff(l1, l2, 1e-300) <= 1e-12, "trial %d (d %d): loss diag %.17g full %.17g",
			  trial, d, l1, l2);
		for (j = 0; j <= d; j++)
			scale = fmax(scale, fabs(th1[j]));
		for (j = 0; j <= d; j++)
			CHECK(fabs(th1[j] - th2[j]) <= 1e-12 * scale,
				  "trial %d (d %d, t %lld): theta[%d] diag %.17g full %.17g",
				  trial, d, (long long) t, j, th1[j], th2[j]);
		if (vnorm(d, th1) * sqrt(lambda) > 1.0 - 1e-9)
			projected++;
	}
	CHECK(projected >= 5 && hinge >= 5,
		  "test setup: %d steps hit the projection, %d were hinge steps",
		  projected, hinge);

	/* a genuinely full Σ against the formulas */
	for (trial = 0; trial < 20; trial++)
	{
		int			d = 2 + trial % 4,
					j,
					k;
		double		th[6],
					th0[6],
					x[5],
					a[25],
					cov[25],
					work[5],
					lambda = 0.1,
					y = (trial % 2) ? 1.0 : -1.0,
					loss;
		long double expect[6],
					lref;
		int64_t		t = 1 + trial * 3;

		for (j = 0; j <= d; j++)
			th[j] = th0[j] = 0.6 * gsu_rng_normal(&r);
		for (j = 0; j < d; j++)
			x[j] = gsu_rng_normal(&r);
		for (j = 0; j < d * d; j++)
			a[j] = gsu_rng_normal(&r);
		for (j = 0; j < d; j++)
			for (k = 0; k < d; k++)
			{
				double		acc = 0.0;
				int			l;

				for (l = 0; l < d; l++)
					acc += a[j * d + l] * a[k * d + l];
				cov[j * d + k] = 0.3 * acc;
			}
		lref = ref_sgd_full(d, th0, lambda, t, x, cov, y, expect);
		loss = gsu_sgd_step(d, th, lambda, t, x, FULL_COV(cov), y, 1.0, work);
		CHECK(reldiff(loss, (double) lref, 1e-300) < 1e-12,
			  "full trial %d: loss %.17g, ref %.17Lg", trial, loss, lref);
		for (j = 0; j <= d; j++)
			CHECK(fabsl(th[j] - expect[j]) <= 1e-12L * fmaxl(1, fabsl(expect[j])),
				  "full trial %d: theta[%d] = %.17g, ref %.17Lg", trial, j, th[j],
				  expect[j]);
	}
}

/* ------------------------------ 7. objective with full Σ: gradient check */

static void
check_full_objective(const char *name, const gsu_dataset *ds, double lambda,
					 double mu, uint64_t seed)
{
	int			m = ds->d + 1,
				trial,
				k;
	double	   *theta = malloc(sizeof(double) * m);
	double	   *g = malloc(sizeof(double) * m);
	double	   *gfd = malloc(sizeof(double) * m);
	gsu_rng		r;

	gsu_rng_seed(&r, seed);
	for (trial = 0; trial < 3; trial++)
	{
		double		f = NAN,
					f2 = NAN,
					fref,
					err = 0.0;
		gsu_status	st;

		for (k = 0; k < m; k++)
			theta[k] = 0.7 * gsu_rng_normal(&r);
		st = gsu_objective(ds, lambda, mu, theta, &f, g);
		CHECK(st == GSU_OK, "%s: status %s", name, gsu_status_string(st));
		fref = (double) ref_objective_full(ds, lambda, mu, theta);
		CHECK(reldiff(f, fref, 0.0) < 1e-12, "%s trial %d: f = %.17g, ref %.17g",
			  name, trial, f, fref);
		st = gsu_objective(ds, lambda, mu, theta, &f2, NULL);
		CHECK(st == GSU_OK && f2 == f, "%s: f without grad %.17g vs %.17g",
			  name, f2, f);

		fd_gradient(ds, lambda, mu, theta, 1e-6, gfd);
		for (k = 0; k < m; k++)
			err += (g[k] - gfd[k]) * (g[k] - gfd[k]);
		err = sqrt(err) / fmax(vnorm(m, gfd), 1e-300);
		CHECK(err < 1e-6, "%s trial %d: gradient rel error %.3g (|g| %.6g, |gfd| %.6g)",
			  name, trial, err, vnorm(m, g), vnorm(m, gfd));
	}
	free(theta);
	free(g);
	free(gfd);
}

static void
test_objective_full_gradient(void)
{
	test_data a,
				b;

	make_data(&a, 40, 4, &(test_rows) {.kind = GSU_COV_FULL, .shift = 1.0, .spread = 1.0, .vlo = 0.05, .vhi = 0.8}, 701);
	check_full_objective("full, mu=0", &a.ds, 0.1, 0.0, 711);
	check_full_objective("full, mu=0.3", &a.ds, 0.1, 0.3, 712);

	/* every third row of rank one, d = 3 */
	make_data(&b, 45, 3, &(test_rows) {.kind = GSU_COV_FULL, .shift = 0.8, .spread = 1.0, .vlo = 0.1, .vhi = 1.5, .rank1_every = 3}, 702);
	check_full_objective("full rank-1 rows, mu=0", &b.ds, 0.05, 0.0, 713);
	check_full_objective("full rank-1 rows, mu=0.05", &b.ds, 0.05, 0.05, 714);

	/* a zero Σ (a certain row) among them: the hinge branch at μ = 0 */
	memset(b.c + 4 * 9, 0, sizeof(double) * 9);
	check_full_objective("full with a zero row, mu=0", &b.ds, 0.05, 0.0, 715);
	check_full_objective("full with a zero row, mu=0.2", &b.ds, 0.05, 0.2, 716);

	test_data_free(&a);
	test_data_free(&b);
}

/* ------------------------------------- 8. objective: full diag = diag */

static void
test_objective_full_vs_diag(void)
{
	static const int dims[] = {1, 3, 6};
	int			di;

	for (di = 0; di < 3; di++)
	{
		int			d = dims[di],
					m = d + 1,
					trial,
					k;
		int64_t		n = 50;
		test_data od;
		gsu_dataset dd,
					df;
		double	   *cfull;
		double		th[7],
					g1[7],
					g2[7];
		gsu_rng		r;

		make_data(&od, n, d, &(test_rows) {.kind = GSU_COV_FULL, .shift = 0.8, .spread = 1.0, .vlo = 0.0, .vhi = 0.9}, 800 + d);
		/* some rows fully certain, some coordinates certain */
		for (k = 0; k < d; k++)
			od.v[5 * d + k] = 0.0;
		od.v[7 * d] = 0.0;
		cfull = diag_as_full(n, d, od.v);
		memset(&dd, 0, sizeof(dd));
		dd.n = n;
		dd.d = d;
		dd.x = od.x;
		dd.y = od.y;
		test_set_cov(&dd, NULL, od.v, NULL);
		df = dd;
		test_set_cov(&df, NULL, NULL, cfull);

		gsu_rng_seed(&r, 810 + d);
		for (trial = 0; trial < 4; trial++)
		{
			static const double mus[4] = {0.0, 0.0, 0.1, 1.0};
			double		f1 = NAN,
						f2 = NAN,
						mu = mus[trial];
			gsu_status	s1,
						s2;

			for (k = 0; k < m; k++)
				th[k] = 0.9 * gsu_rng_normal(&r);
			s1 = gsu_objective(&dd, 0.07, mu, th, &f1, g1);
			s2 = gsu_objective(&df, 0.07, mu, th, &f2, g2);
			CHECK(s1 == GSU_OK && s2 == GSU_OK, "d %d: status %s / %s", d,
				  gsu_status_string(s1), gsu_status_string(s2));
			CHECK(reldiff(f1, f2, 0.0) <= 1e-12, "d %d mu %g: f diag %.17g full %.17g",
				  d, mu, f1, f2);
			CHECK(vdist(m, g1, g2) <= 1e-12 * vnorm(m, g1),
				  "d %d mu %g: |g diag - g full| = %.3g, |g| = %.6g", d, mu,
				  vdist(m, g1, g2), vnorm(m, g1));
		}
		free(cfull);
		test_data_free(&od);
	}
}

/* ------------------------------------------ 9. Newton with full Σ */

static void
test_newton_full(void)
{
	int64_t		n = quick ? 60 : 100;
	int			d = 4,
				m = 5,
				k;
	test_data od;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_status	st;
	double		theta[5] = {0},
				g[5],
				g0[5],
				zero[5] = {0};

	make_data(&od, n, d, &(test_rows) {.kind = GSU_COV_FULL, .shift = 0.7, .spread = 1.0, .vlo = 0.05, .vhi = 0.8}, 901);
	gsu_solve_options_default(&o);
	o.lambda = 1e-2;

	st = gsu_solve_newton(&od.ds, &o, theta, &res);
	CHECK(st == GSU_OK, "status %s", gsu_status_string(st));
	CHECK(res.converged, "did not converge: |g| %.3g, |g0| %.3g, iters %lld",
		  res.gradient_norm, res.gradient_norm0, (long long) res.iterations);
	CHECK(res.gradient_norm <= o.tolerance * res.gradient_norm0,
		  "gradient_norm %.3g > tol * %.3g", res.gradient_norm, res.gradient_norm0);
	CHECK(reldiff(res.objective, (double) ref_objective_full(&od.ds, o.lambda, 0.0, theta),
				  0.0) < 1e-12,
		  "res.objective %.17g vs reference F(theta) %.17g", res.objective,
		  (double) ref_objective_full(&od.ds, o.lambda, 0.0, theta));
	/* independently: the FD gradient of F_μ at the result vs at θ = 0 */
	fd_gradient(&od.ds, o.lambda, o.smoothing, theta, 1e-6, g);
	fd_gradient(&od.ds, o.lambda, o.smoothing, zero, 1e-6, g0);
	CHECK(vnorm(m, g) <= 1e-5 * vnorm(m, g0),
		  "FD gradient at the result %.3g (at 0: %.3g)", vnorm(m, g), vnorm(m, g0));
	/* and no random nearby point is better */
	{
		gsu_rng		r;
		double		f0 = (double) ref_objective_full(&od.ds, o.lambda, 0.0, theta),
					t[5];
		int			trial,
					worse = 0;

		gsu_rng_seed(&r, 911);
		for (trial = 0; trial < 30; trial++)
		{
			double		size = (trial % 3 == 0) ? 1e-3 : (trial % 3 == 1) ? 1e-2 : 1e-1;
			double		nrm;

			for (k = 0; k < m; k++)
				t[k] = gsu_rng_normal(&r);
			nrm = vnorm(m, t);
			for (k = 0; k < m; k++)
				t[k] = theta[k] + size * t[k] / nrm;
			worse += (double) ref_objective_full(&od.ds, o.lambda, 0.0, t) < f0;
		}
		CHECK(worse == 0, "%d of 30 nearby points have a lower objective", worse);
	}

	/*
	 * Σ_i = diag(v_i) as full matrices must give the diagonal dataset's θ:
	 * the same arithmetic up to rounding, so the same Newton path.  The
	 * tolerance is tight but attainable (the solver's floor, where steps
	 * reduce F by less than its rounding, is ‖∇F‖/‖∇F(0)‖ ≈ 1e-9 here).
	 */
	{
		gsu_dataset dd;
		double	   *cfull = diag_as_full(n, d, od.v);
		double		t1[5] = {0},
					t2[5] = {0};
		gsu_solve_result r1,
					r2;
		gsu_solve_options ot = o;

		ot.tolerance = 1e-8;
		memset(&dd, 0, sizeof(dd));
		dd.n = n;
		dd.d = d;
		dd.x = od.x;
		dd.y = od.y;
		test_set_cov(&dd, NULL, od.v, NULL);
		st = gsu_solve_newton(&dd, &ot, t1, &r1);
		CHECK(st == GSU_OK && r1.converged, "diag: status %s converged %d",
			  gsu_status_string(st), r1.converged);
		test_set_cov(&dd, NULL, NULL, cfull);
		st = gsu_solve_newton(&dd, &ot, t2, &r2);
		CHECK(st == GSU_OK && r2.converged, "full diag: status %s converged %d",
			  gsu_status_string(st), r2.converged);
		CHECK(vdist(m, t1, t2) <= 1e-8 * vnorm(m, t1),
			  "|theta diag - theta full| = %.3g (|theta| %.6g)", vdist(m, t1, t2),
			  vnorm(m, t1));
		CHECK(reldiff(r1.objective, r2.objective, 0.0) <= 1e-12,
			  "objective diag %.17g full %.17g", r1.objective, r2.objective);
		free(cfull);
	}
	for (k = 0; k < m; k++)
		CHECK(isfinite(theta[k]), "theta[%d] not finite", k);
	test_data_free(&od);
}

/* ------------------------------------------------ 10. subspace: diagonal */

/*
 * The rule, by brute force: order the axes by variance, descending, ties by
 * lower index first; keep the smallest k whose prefix sum reaches p·total
 * (total = the sum in that order, so that p = 1 stops at the last non-zero);
 * zero the rest.  Returns k; out receives the expected vector.
 */
static int
brute_subspace_diag(int d, const double *var, double p, double *out)
{
	int			order[64],
				used[64] = {0};
	double		total = 0.0,
				acc = 0.0;
	int			i,
				j,
				k;

	for (i = 0; i < d; i++)
	{
		int			best = -1;

		for (j = 0; j < d; j++)
			if (!used[j] && (best < 0 || var[j] > var[best]))
				best = j;		/* strict >: the lower index wins a tie */
		order[i] = best;
		used[best] = 1;
	}
	for (i = 0; i < d; i++)
		total += var[order[i]];
	k = 0;
	if (total > 0.0)
		for (k = 1; k <= d; k++)
		{
			acc += var[order[k - 1]];
			if (acc >= p * total)
				break;
		}
	if (k > d)
		k = d;
	for (i = 0; i < d; i++)
		out[i] = 0.0;
	for (i = 0; i < k; i++)
		out[order[i]] = var[order[i]];
	return k;
}

static void
check_subspace_diag(const char *name, int d, const double *var, double p)
{
	double		got[64],
				expect[64];
	int			kept = -1,
				k_ref,
				j,
				diff = 0;
	gsu_status	st;

	memcpy(got, var, sizeof(double) * d);
	k_ref = brute_subspace_diag(d, var, p, expect);
	st = gsu_subspace_diag(d, got, NULL, p, &kept);
	CHECK(st == GSU_OK, "%s p %.17g: status %s", name, p, gsu_status_string(st));
	CHECK(kept == k_ref, "%s p %.17g: kept %d, expected %d", name, p, kept, k_ref);
	for (j = 0; j < d; j++)
		diff += memcmp(&got[j], &expect[j], sizeof(double)) != 0;
	if (diff)
	{
		char		buf[1024];
		int			len = 0;

		for (j = 0; j < d && len < 900; j++)
			len += snprintf(buf + len, sizeof(buf) - len, " [%d] %.6g→%.6g (exp %.6g)",
							j, var[j], got[j], expect[j]);
		CHECK(diff == 0, "%s p %.17g: %d entries differ:%s", name, p, diff, buf);
	}
	/* kept == NULL is allowed and does the same */
	memcpy(got, var, sizeof(double) * d);
	st = gsu_subspace_diag(d, got, NULL, p, NULL);
	CHECK(st == GSU_OK && memcmp(got, expect, sizeof(double) * d) == 0,
		  "%s p %.17g: result differs with kept == NULL", name, p);
}

static void
test_subspace_diag(void)
{
	static const double ps[] = {1e-9, 0.05, 0.2, 0.37, 0.5, 0.61, 0.8, 0.9,
	0.95, 0.99, 0.999, 1.0};
	int			np = (int) (sizeof(ps) / sizeof(ps[0]));
	gsu_rng		r;
	int			trial,
				pi;

	/* hand-made: exact binary sums, so the ≥ at the boundary is tested */
	{
		static const double v[4] = {0.25, 0.5, 0.125, 0.125};	/* total 1 */
		double		w[4];
		int			kept;

		check_subspace_diag("binary p=0.5", 4, v, 0.5);		/* 0.5 ≥ 0.5: k 1 */
		check_subspace_diag("binary p=0.75", 4, v, 0.75);	/* k 2 */
		check_subspace_diag("binary p=0.75+", 4, v, 0.75 + 1e-9);	/* k 3 */
		check_subspace_diag("binary p=0.875", 4, v, 0.875); /* k 3, ties */
		check_subspace_diag("binary p=1", 4, v, 1.0);
		memcpy(w, v, sizeof(w));
		(void) gsu_subspace_diag(4, w, NULL, 0.875, &kept);
		/* the tie 0.125/0.125 keeps index 2, not 3 */
		CHECK(kept == 3 && w[0] == 0.25 && w[1] == 0.5 && w[2] == 0.125 && w[3] == 0.0,
			  "tie: kept %d, (%g %g %g %g)", kept, w[0], w[1], w[2], w[3]);
	}
	/* ties at the cut: keep the lower index */
	{
		static const double v[5] = {1.0, 3.0, 1.0, 3.0, 2.0};	/* total 10 */

		check_subspace_diag("ties p=0.3", 5, v, 0.3);	/* first 3: index 1 */
		check_subspace_diag("ties p=0.31", 5, v, 0.31); /* both 3s */
		check_subspace_diag("ties p=0.85", 5, v, 0.85); /* 3,3,2, then index 0 */
		check_subspace_diag("ties p=0.95", 5, v, 0.95);
	}
	/* the zero vector keeps nothing, whatever p */
	{
		double		z[5] = {0};
		int			kept = -1;
		gsu_status	st;

		for (pi = 0; pi < np; pi++)
		{
			st = gsu_subspace_diag(5, z, NULL, ps[pi], &kept);
			CHECK(st == GSU_OK && kept == 0, "zero vector p %g: status %s kept %d",
				  ps[pi], gsu_status_string(st), kept);
		}
		CHECK(max_abs(5, z) == 0.0, "zero vector changed");
	}
	/* invalid p: rejected, the vector untouched */
	{
		static const double bad[] = {0.0, -0.1, 1.0000001, 2.0, NAN, HUGE_VAL, -HUGE_VAL};
		static const double v[3] = {0.3, 0.1, 0.6};
		int			b;

		for (b = 0; b < (int) (sizeof(bad) / sizeof(bad[0])); b++)
		{
			double		w[3];
			int			kept = -7;
			gsu_status	st;

			memcpy(w, v, sizeof(w));
			st = gsu_subspace_diag(3, w, NULL, bad[b], &kept);
			CHECK(st == GSU_EINVAL, "p = %g: status %s", bad[b], gsu_status_string(st));
			CHECK(memcmp(w, v, sizeof(w)) == 0, "p = %g: vector changed", bad[b]);
		}
	}
	/* random vectors, with zeros and duplicated values (ties) */
	gsu_rng_seed(&r, 1001);
	for (trial = 0; trial < (quick ? 60 : 300); trial++)
	{
		int			d = 1 + (int) gsu_rng_below(&r, 12),
					j;
		double		v[12];
		char		name[64];

		for (j = 0; j < d; j++)
		{
			double		u = gsu_rng_uniform(&r);

			if (u < 0.15)
				v[j] = 0.0;
			else if (u < 0.4 && j > 0)
				v[j] = v[gsu_rng_below(&r, (uint64_t) j)];	/* a tie */
			else
				v[j] = (trial % 4 == 0) ? exp(2.0 * gsu_rng_normal(&r))
					: gsu_rng_uniform(&r);
		}
		snprintf(name, sizeof(name), "random %d (d %d)", trial, d);
		for (pi = 0; pi < np; pi++)
			check_subspace_diag(name, d, v, ps[pi]);
		check_subspace_diag(name, d, v, 1e-3 + 0.998 * gsu_rng_uniform(&r));
	}
}

/* -------------------------------------------------- 11. subspace: full */

/*
 * Σ = Q D Qᵀ with D in scrambled order; the expected result is Q D_k Qᵀ,
 * D_k keeping the k largest entries of D (D's entries distinct, no ties).
 */
static void
check_subspace_full(const char *name, int d, const double *ev, int check_kept_at_1)
{
	givens		g[64];
	long double q[256];
	double		cov[256],
				sigma[256],
				expect[256],
				evk[16],
				sorted[16],
				ps[20],
				frac_prev = 0.0,
				total = 0.0,
				acc = 0.0,
				scale = max_abs(d, ev);
	int			ng = standard_rotations(d, g),
				np = 0,
				i,
				j,
				pi,
				nz = 0;

	givens_product(d, g, ng, q);
	q_diag_qt(d, q, ev, sigma);

	/* p between consecutive prefix fractions (so every k is tried), and 1 */
	memcpy(sorted, ev, sizeof(double) * d);
	for (i = 0; i < d; i++)
		for (j = i + 1; j < d; j++)
			if (sorted[j] > sorted[i])
			{
				double		t = sorted[i];

				sorted[i] = sorted[j];
				sorted[j] = t;
			}
	for (i = 0; i < d; i++)
		total += sorted[i];
	for (i = 0; i < d && sorted[i] > 0.0; i++)
	{
		double		frac;

		acc += sorted[i];
		frac = acc / total;
		ps[np++] = 0.5 * (frac_prev + frac);
		frac_prev = frac;
		nz++;
	}
	ps[np++] = 1.0;

	for (pi = 0; pi < np; pi++)
	{
		double		p = ps[pi];
		int			k = pi < nz ? pi + 1 : nz,
					kept = -1;
		double		err;
		gsu_status	st;

		/* D_k: the k largest entries stay, each on its own column of Q */
		for (i = 0; i < d; i++)
			evk[i] = (ev[i] >= sorted[k - 1] && ev[i] > 0.0) ? ev[i] : 0.0;
		q_diag_qt(d, q, evk, expect);

		memcpy(cov, sigma, sizeof(double) * d * d);
		st = gsu_subspace_full(d, cov, NULL, p, &kept);
		CHECK(st == GSU_OK, "%s p %.6g: status %s", name, p, gsu_status_string(st));
		if (p < 1.0 || check_kept_at_1)
			CHECK(kept == k, "%s p %.6g: kept %d, expected %d", name, p, kept, k);
		err = max_abs_diff(d * d, cov, expect);
		CHECK(err <= 1e-12 * scale, "%s p %.6g (k %d): max |result - Q D_k Q'| = %.3g "
			  "(scale %.3g)", name, p, k, err, scale);
		if (p == 1.0)
		{
			err = max_abs_diff(d * d, cov, sigma);
			CHECK(err <= 1e-12 * scale, "%s p = 1: max |result - Sigma| = %.3g", name, err);
		}
		/* the result is symmetric PSD of rank k */
		{
			double		me;

			st = gsu_covariance_check(d, cov, 1e-10, &me);
			CHECK(st == GSU_OK, "%s p %.6g: result fails the check: %s (min_eig %.3g)",
				  name, p, gsu_status_string(st), me);
		}
		/* NULL kept */
		memcpy(cov, sigma, sizeof(double) * d * d);
		st = gsu_subspace_full(d, cov, NULL, p, NULL);
		CHECK(st == GSU_OK && max_abs_diff(d * d, cov, expect) <= 1e-12 * scale,
			  "%s p %.6g: kept == NULL differs", name, p);
	}
}

static void
test_subspace_full(void)
{
	{
		static const double ev[5] = {0.7, 3.0, 0.1, 1.9, 0.4};

		check_subspace_full("d 5", 5, ev, 1);
	}
	{
		/* rank-deficient (kept at p = 1 depends on a rounding-level λ) */
		static const double ev[8] = {0.05, 2.5, 1.2, 0.0, 4.0, 0.6, 0.3, 1.7};

		check_subspace_full("d 8 rank 7", 8, ev, 0);
	}
	{
		/* the largest eigenvalue in the last column, the smallest first */
		static const double ev[6] = {0.01, 0.2, 0.9, 0.5, 1.3, 6.0};

		check_subspace_full("d 6 ascending", 6, ev, 1);
	}
	{
		static const double ev[6] = {6.0, 1.3, 0.5, 0.9, 0.2, 0.01};

		check_subspace_full("d 6 descending", 6, ev, 1);
	}
	{
		static const double ev[3] = {2e3, 7e2, 1.5e3};

		check_subspace_full("d 3 large", 3, ev, 1);
	}
	{
		static const double ev[2] = {0.3, 0.9};

		check_subspace_full("d 2", 2, ev, 1);
	}
	{
		static const double ev[1] = {0.42};

		check_subspace_full("d 1", 1, ev, 1);
	}
	{
		static const double ev[12] = {0.11, 0.93, 0.27, 2.2, 0.05, 1.4, 0.6, 0.33,
		3.1, 0.71, 0.02, 1.05};

		check_subspace_full("d 12", 12, ev, 1);
	}

	/* a diagonal Σ must give what gsu_subspace_diag gives on its diagonal */
	{
		static const double v[6] = {0.4, 2.0, 0.1, 1.1, 0.0, 0.7};
		static const double ps[4] = {0.3, 0.6, 0.9, 0.99};
		int			pi,
					j;

		for (pi = 0; pi < 4; pi++)
		{
			double		cov[36] = {0},
						w[6],
						expect[36] = {0};
			int			k1 = -1,
						k2 = -2;

			for (j = 0; j < 6; j++)
				cov[j * 6 + j] = v[j];
			memcpy(w, v, sizeof(w));
			(void) gsu_subspace_diag(6, w, NULL, ps[pi], &k1);
			(void) gsu_subspace_full(6, cov, NULL, ps[pi], &k2);
			for (j = 0; j < 6; j++)
				expect[j * 6 + j] = w[j];
			CHECK(k1 == k2 && max_abs_diff(36, cov, expect) <= 1e-15 * 2.0,
				  "diagonal full p %g: kept %d vs %d, max diff %.3g", ps[pi], k2, k1,
				  max_abs_diff(36, cov, expect));
		}
	}
	/* the zero matrix keeps nothing */
	{
		double		z[16] = {0};
		int			kept = -1;
		gsu_status	st = gsu_subspace_full(4, z, NULL, 0.5, &kept);

		CHECK(st == GSU_OK && kept == 0 && max_abs(16, z) == 0.0,
			  "zero matrix: status %s kept %d", gsu_status_string(st), kept);
		st = gsu_subspace_full(4, z, NULL, 1.0, &kept);
		CHECK(st == GSU_OK && kept == 0 && max_abs(16, z) == 0.0,
			  "zero matrix p = 1: status %s kept %d", gsu_status_string(st), kept);
	}
	/* invalid p */
	{
		static const double bad[] = {0.0, -1.0, 1.5, NAN};
		double		cov[4] = {1.0, 0.2, 0.2, 0.5},
					orig[4];
		int			b;

		memcpy(orig, cov, sizeof(cov));
		for (b = 0; b < 4; b++)
		{
			gsu_status	st = gsu_subspace_full(2, cov, NULL, bad[b], NULL);

			CHECK(st == GSU_EINVAL, "p = %g: status %s", bad[b], gsu_status_string(st));
			CHECK(memcmp(cov, orig, sizeof(cov)) == 0, "p = %g: matrix changed", bad[b]);
		}
	}
}

/* ------------------------------- 12. subspace: p = 1 keeps everything */

/*
 * With p = 1 the kept eigenvalues must sum to the whole trace, so every
 * direction with a non-zero variance stays, however small it is next to
 * the others (features in different units give such spectra).
 */
static void
test_subspace_p1_keeps_all(void)
{
	/* p = 1 keeps every non-zero variance, and only those */
	{
		static const double v1[6] = {0.0, 2.0, 0.0, 5.0, 0.5, 0.0};
		static const double v2[4] = {1e6, 1e-8, 3.0, 0.0};	/* mixed scales */
		static const double v3[3] = {1.0, 1e-13, 1e-300};
		double		w[6];
		int			kept;

		memcpy(w, v1, sizeof(v1));
		(void) gsu_subspace_diag(6, w, NULL, 1.0, &kept);
		CHECK(kept == 3 && memcmp(w, v1, sizeof(v1)) == 0, "p = 1: kept %d", kept);
		memcpy(w, v2, sizeof(v2));
		(void) gsu_subspace_diag(4, w, NULL, 1.0, &kept);
		CHECK(kept == 3 && memcmp(w, v2, sizeof(v2)) == 0,
			  "p = 1, variances {1e6, 1e-8, 3, 0}: kept %d, result {%g, %g, %g, %g}",
			  kept, w[0], w[1], w[2], w[3]);
		memcpy(w, v3, sizeof(v3));
		(void) gsu_subspace_diag(3, w, NULL, 1.0, &kept);
		CHECK(kept >= 2 && w[1] == 1e-13,
			  "p = 1, variances {1, 1e-13, 1e-300}: kept %d, result {%g, %g, %g}",
			  kept, w[0], w[1], w[2]);
	}
	/* p = 1 keeps a direction whose variance is tiny next to the others */
	{
		static const double ev[3] = {1e6, 1e-7, 3.0};
		givens		g[8];
		long double q[9];
		double		cov[9];
		int			kept = -1;
		int			ng = standard_rotations(3, g);

		givens_product(3, g, ng, q);
		q_diag_qt(3, q, ev, cov);
		(void) gsu_subspace_full(3, cov, NULL, 1.0, &kept);
		CHECK(kept == 3, "p = 1, eigenvalues {1e6, 1e-7, 3}: kept %d, expected 3", kept);
	}
}

/* ---------------------------------- subspace: the projected Gaussian */

/*
 * The paper's eqs. 9-12 by brute force, in long double: P (k×d) holds the
 * kept eigenvectors as rows, z = P x, Λ = diag(kept eigenvalues), w_z = P w,
 * and the row's loss is L(1 − y(w_zᵀz + b), √(2 w_zᵀΛ w_z)).  q is
 * row-major d×d with column e the eigenvector of ev[e]; keep[e] says which
 * columns are kept.
 */
static long double
ref_projected_loss(int d, const long double *q, const double *ev, const int *keep,
				   const double *x, double y, const double *theta)
{
	long double f = theta[d],
				quad = 0;
	int			e,
				j;

	for (e = 0; e < d; e++)
	{
		long double z = 0,
					wz = 0;

		if (!keep[e])
			continue;
		/* row e of P is column e of Q */
		for (j = 0; j < d; j++)
		{
			z += q[j * d + e] * x[j];
			wz += q[j * d + e] * theta[j];
		}
		f += wz * z;
		quad += wz * ev[e] * wz;
	}
	return ref_loss(1 - y * f, sqrtl(2 * quad));
}

/* which eigenpairs the rule keeps: the fewest largest reaching p·trace, ties by index */
static int
ref_keep(int d, const double *ev, double p, int *keep)
{
	double		out[64];
	int			e,
				k = 0;

	k = brute_subspace_diag(d, ev, p, out);
	for (e = 0; e < d; e++)
		keep[e] = out[e] != 0.0;
	return k;
}

/*
 * A dataset of n rows with full Σ_i = Q_i D_i Q_iᵀ (known eigenpairs),
 * restricted by gsu_subspace_full with the mean (the paper) and without it:
 * the core objective of the projected rows equals the brute-force objective
 * of eqs. 9-12 to 1e-12, and differs from the covariance-only one when the
 * means leave the kept span.
 */
static void
test_subspace_mean_full(void)
{
	enum
	{
	D = 5, N = 6};
	static const double evs[N][D] = {
		{2.0, 0.5, 0.1, 1.2, 0.05},
		{0.3, 0.45, 3.0, 0.01, 0.7},
		{1.0, 0.8, 1.3, 0.6, 0.15},
		{4.0, 0.0, 0.2, 0.0, 0.9},	/* rank 3 */
		{0.02, 0.6, 0.4, 2.5, 1.1},
		{5.0, 0.1, 0.1, 0.1, 0.1},
	};
	/* p = 1 below: a rank-deficient Σ keeps rounding-level eigenvalues or not */
	static const double ps[] = {0.2, 0.5, 0.75, 0.9, 0.999};
	long double q[N][D * D];
	double		x[N * D],
				y[N],
				cov[N * D * D],
				xp[N * D],
				cp[N * D * D],
				xc[N * D],
				theta[D + 1] = {0.8, -1.1, 0.4, 0.9, -0.3, 0.2};
	const double lambda = 0.05;
	gsu_rng		r;
	int			i,
				j,
				pi;

	gsu_rng_seed(&r, 91);
	for (i = 0; i < N; i++)
	{
		givens		g[3 * D];
		int			ng = standard_rotations(D, g);

		for (j = 0; j < ng; j++)
			g[j].angle += 0.29 * i;
		givens_product(D, g, ng, q[i]);
		q_diag_qt(D, q[i], evs[i], cov + (size_t) i * D * D);
		for (j = 0; j < D; j++)
			x[i * D + j] = 2.0 * gsu_rng_uniform(&r) - 1.0 + 0.3 * (i % 2 ? 1 : -1);
		y[i] = i % 2 ? 1.0 : -1.0;
	}
	for (pi = 0; pi < (int) (sizeof(ps) / sizeof(ps[0])); pi++)
	{
		double		p = ps[pi];
		long double ref = 0,
					ww = 0;
		gsu_dataset ds = {N, D, xp, y, GSU_COV_FULL, cp, NULL, 0};
		double		f_paper,
					f_cov;

		memcpy(xp, x, sizeof(x));
		memcpy(cp, cov, sizeof(cov));
		for (i = 0; i < N; i++)
		{
			int			keep[D],
						k = ref_keep(D, evs[i], p, keep),
						kept = -1;
			gsu_status	st = gsu_subspace_full(D, cp + (size_t) i * D * D, xp + (size_t) i * D,
											   p, &kept);

			CHECK(st == GSU_OK, "row %d p %g: %s", i, p, gsu_status_string(st));
			CHECK(kept == k, "row %d p %g: kept %d, expected %d", i, p, kept, k);
			ref += ref_projected_loss(D, q[i], evs[i], keep, x + (size_t) i * D, y[i], theta);
		}
		for (j = 0; j < D; j++)
			ww += (long double) theta[j] * theta[j];
		ref = lambda / 2.0L * ww + ref / N;
		f_paper = objective(&ds, lambda, 0.0, theta);
		CHECK(reldiff(f_paper, (double) ref, 1e-300) <= 1e-12,
			  "p %g: objective of the projected rows %.17g, eqs. 9-12 %.17g", p, f_paper,
			  (double) ref);
		/* the covariance-only restriction keeps the means */
		memcpy(xc, x, sizeof(x));
		ds.x = xc;
		f_cov = objective(&ds, lambda, 0.0, theta);
		ds.x = xp;
		if (p == 0.5)
			CHECK(fabs(f_paper - f_cov) > 1e-3, "p 0.5: the two readings agree (%.17g)", f_cov);
		/* the projected mean lies in the kept span and is idempotent */
		for (i = 0; i < N; i++)
		{
			double		again[D],
						c2[D * D];

			memcpy(again, xp + (size_t) i * D, sizeof(again));
			memcpy(c2, cp + (size_t) i * D * D, sizeof(c2));
			(void) gsu_subspace_full(D, c2, again, 1.0, NULL);
			CHECK(max_abs_diff(D, again, xp + (size_t) i * D) <= 1e-13,
				  "row %d p %g: the projected mean is not in the kept span", i, p);
		}
	}
	/* p = 1, full rank: the mean is unchanged (to rounding) */
	{
		double		m[D],
					c[D * D];

		memcpy(m, x, sizeof(m));
		memcpy(c, cov, sizeof(c));
		(void) gsu_subspace_full(D, c, m, 1.0, NULL);
		CHECK(max_abs_diff(D, m, x) <= 1e-14, "p 1 full rank: mean moved by %.3g",
			  max_abs_diff(D, m, x));
	}
	/*
	 * rank 3 (row 3) at p just below 1: the mean loses exactly its
	 * null-space part (at p = 1 itself an eigenvalue of rounding size may
	 * be kept, as for the covariance alone; the diagonal test pins p = 1)
	 */
	{
		double		m[D],
					c[D * D],
					expect[D];
		int			a,
					e;

		memcpy(m, x + 3 * D, sizeof(m));
		memcpy(c, cov + 3 * D * D, sizeof(c));
		for (a = 0; a < D; a++)
		{
			long double acc = x[3 * D + a];

			for (e = 0; e < D; e++)
			{
				long double dot = 0;
				int			b;

				if (evs[3][e] != 0.0)
					continue;
				for (b = 0; b < D; b++)
					dot += q[3][b * D + e] * x[3 * D + b];
				acc -= dot * q[3][a * D + e];
			}
			expect[a] = (double) acc;
		}
		{
			int			kept = -1;

			(void) gsu_subspace_full(D, c, m, 1.0 - 1e-9, &kept);
			CHECK(kept == 3, "rank 3: kept %d", kept);
		}
		CHECK(max_abs_diff(D, m, expect) <= 1e-13, "rank 3: mean off by %.3g",
			  max_abs_diff(D, m, expect));
	}
}

/*
 * Diagonal and isotropic rows: the eigenvectors are the coordinate axes, so
 * z is the kept coordinates of x; the objective of the projected rows (mean
 * coordinates of dropped variances set to 0) equals eqs. 9-12.  Isotropic
 * s·I is a diagonal of equal variances: the lower axes are kept first.
 */
static void
test_subspace_mean_diag(void)
{
	enum
	{
	D = 6, N = 5};
	static const double vs[N][D] = {
		{0.4, 2.0, 0.1, 1.1, 0.0, 0.7},	/* one certain coordinate */
		{0.5, 0.5, 0.5, 0.5, 0.5, 0.5},	/* isotropic */
		{3.0, 0.01, 0.2, 0.2, 0.9, 1.5},
		{0.0, 0.0, 1.0, 0.0, 0.0, 0.0},	/* rank 1 */
		{1e-3, 4.0, 4.0, 0.3, 2.2, 0.05},
	};
	static const double ps[] = {0.1, 0.5, 0.7, 0.95, 1.0};
	double		x[N * D],
				y[N],
				xp[N * D],
				vp[N * D],
				theta[D + 1] = {0.6, -0.9, 1.3, 0.2, -0.7, 0.5, -0.1};
	const double lambda = 0.1;
	gsu_rng		r;
	int			i,
				j,
				pi;

	gsu_rng_seed(&r, 17);
	for (i = 0; i < N * D; i++)
		x[i] = 2.0 * gsu_rng_uniform(&r) - 1.0;
	for (i = 0; i < N; i++)
		y[i] = i % 2 ? 1.0 : -1.0;
	for (pi = 0; pi < (int) (sizeof(ps) / sizeof(ps[0])); pi++)
	{
		double		p = ps[pi],
					f;
		long double ref = 0,
					ww = 0;
		gsu_dataset ds = {N, D, xp, y, GSU_COV_DIAG, vp, NULL, 0};

		memcpy(xp, x, sizeof(x));
		memcpy(vp, vs, sizeof(vp));
		for (i = 0; i < N; i++)
		{
			int			keep[D],
						kept = -1,
						k = ref_keep(D, vs[i], p, keep);
			long double fi = theta[D],
						quad = 0;

			(void) gsu_subspace_diag(D, vp + (size_t) i * D, xp + (size_t) i * D, p, &kept);
			CHECK(kept == k, "row %d p %g: kept %d, expected %d", i, p, kept, k);
			/* P = the rows e_j of the kept axes */
			for (j = 0; j < D; j++)
				if (keep[j])
				{
					fi += (long double) theta[j] * x[i * D + j];
					quad += (long double) theta[j] * vs[i][j] * theta[j];
				}
				else
					CHECK(xp[i * D + j] == 0.0 && vp[i * D + j] == 0.0,
						  "row %d p %g: dropped axis %d keeps mean %g", i, p, j, xp[i * D + j]);
			ref += ref_loss(1 - y[i] * fi, sqrtl(2 * quad));
			if (i == 1)
				for (j = 0; j < D; j++)
					CHECK(keep[j] == (j < k), "isotropic p %g: axis %d kept %d, k %d",
						  p, j, keep[j], k);
		}
		for (j = 0; j < D; j++)
			ww += (long double) theta[j] * theta[j];
		ref = lambda / 2.0L * ww + ref / N;
		f = objective(&ds, lambda, 0.0, theta);
		CHECK(reldiff(f, (double) ref, 1e-300) <= 1e-12,
			  "p %g: objective of the projected rows %.17g, eqs. 9-12 %.17g", p, f, (double) ref);
	}
	/* p = 1: rows of full rank are unchanged, bit for bit; a zero variance drops its coordinate */
	{
		double		m[D],
					v[D];

		memcpy(m, x + 2 * D, sizeof(m));
		memcpy(v, vs[2], sizeof(v));
		(void) gsu_subspace_diag(D, v, m, 1.0, NULL);
		CHECK(memcmp(m, x + 2 * D, sizeof(m)) == 0 && memcmp(v, vs[2], sizeof(v)) == 0,
			  "p 1 full rank: the row changed");
		memcpy(m, x, sizeof(m));
		memcpy(v, vs[0], sizeof(v));
		(void) gsu_subspace_diag(D, v, m, 1.0, NULL);
		for (j = 0; j < D; j++)
			CHECK(m[j] == (j == 4 ? 0.0 : x[j]), "p 1 rank 5: mean[%d] %g", j, m[j]);
	}
	/* x == NULL: the variances are what they are with x */
	{
		double		v1[D],
					v2[D],
					m[D];

		memcpy(v1, vs[4], sizeof(v1));
		memcpy(v2, vs[4], sizeof(v2));
		memcpy(m, x, sizeof(m));
		(void) gsu_subspace_diag(D, v1, NULL, 0.6, NULL);
		(void) gsu_subspace_diag(D, v2, m, 0.6, NULL);
		CHECK(memcmp(v1, v2, sizeof(v1)) == 0, "x changes the variances");
	}
}

/* Σ_jj of every covariance form: the diagonal of the matrix each form stands for. */
static void
test_variance_of(void)
{
	double		full[9] = {2, 0.5, 0, 0.5, 3, 0.1, 0, 0.1, 4};
	double		diag[3] = {0.25, 1.5, 0};
	double		factor[6] = {1, 2, 0, 3, -1, 1};	/* L: 3 × 2, rows (1, 2), (0, 3), (-1, 1) */
	double		want_factor[3] = {5, 9, 2};
	gsu_cov		c;
	int			j;

	for (j = 0; j < 3; j++)
	{
		c = (gsu_cov) {GSU_COV_FULL, 0.0, full, 0};
		CHECK(gsu_cov_variance_of(3, &c, j) == full[j * 3 + j], "full: element (j, j)");
		c = (gsu_cov) {GSU_COV_DIAG, 0.0, diag, 0};
		CHECK(gsu_cov_variance_of(3, &c, j) == diag[j], "diagonal: element j");
		c = (gsu_cov) {GSU_COV_FACTOR, 0.0, factor, 2};
		CHECK(gsu_cov_variance_of(3, &c, j) == want_factor[j], "factor: (L L^T)_jj");
		c = (gsu_cov) {GSU_COV_ISO, 0.7, NULL, 0};
		CHECK(gsu_cov_variance_of(3, &c, j) == 0.7, "isotropic: s");
		c = (gsu_cov) {GSU_COV_NONE, 0.0, NULL, 0};
		CHECK(gsu_cov_variance_of(3, &c, j) == 0.0, "none: 0");
	}
}

/* ------------------------------------------------------------- main */

static const gsu_test_case tests[] = {
	{"covariance_check_accepts", test_covariance_check_accepts},
	{"covariance_check_rejects", test_covariance_check_rejects},
	{"covariance_check_tolerance", test_covariance_check_tolerance},
	{"covariance_check_nonfinite", test_covariance_check_nonfinite},
	{"quad_full", test_quad_full},
	{"sgd_step_full", test_sgd_step_full},
	{"objective_full_gradient", test_objective_full_gradient},
	{"objective_full_vs_diag", test_objective_full_vs_diag},
	{"newton_full", test_newton_full},
	{"subspace_diag", test_subspace_diag},
	{"subspace_full", test_subspace_full},
	{"subspace_p1_keeps_all", test_subspace_p1_keeps_all},
	{"subspace_mean_full", test_subspace_mean_full},
	{"subspace_mean_diag", test_subspace_mean_diag},
	{"variance_of", test_variance_of},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
