/*
 * test_featmap.c — unit tests of the feature maps (src/core/gsu_featmap.c,
 * gsu_featmap_moments.c, gsu_featmap_bounds.c): kernel approximation of
 * random Fourier and Nyström features, the exact moments of mapped
 * Gaussian inputs against Monte Carlo, and the worst-case feature-space
 * bounds against sampled perturbations; the exact poly2 map of (xᵀz)²
 * (its kernel identity, Isserlis moments against Monte Carlo, its box).
 *
 * References are computed here independently: the Gaussian kernel
 * directly, sample moments of φ(z) over drawn z, perturbations drawn
 * inside the uncertainty set, finite differences.  Deterministic (fixed
 * seeds); Monte Carlo tolerances are 6 standard errors.  GSU_TEST_QUICK=1
 * shrinks the sizes.
 *
 * Output: failure diagnostics on stderr, then exactly one line
 * "N passed, M failed" on stdout.
 */
#include "gsu_core.h"
#include "gsu_featmap.h"
#include "gsu_featmap_sigma.h"
#include "gsu_robust.h"
#include "gsu_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double
kernel(int p, const double *a, const double *b, double sigma)
{
	double		s = 0.0;

	for (int k = 0; k < p; k++)
		s += (a[k] - b[k]) * (a[k] - b[k]);
	return exp(-s / (2.0 * sigma * sigma));
}

static double
dot(int n, const double *a, const double *b)
{
	double		s = 0.0;

	for (int k = 0; k < n; k++)
		s += a[k] * b[k];
	return s;
}

/* RMS of φ(x_i)ᵀφ(x_j) − k(x_i, x_j) over the pairs i < j (and i = j) */
static double
kernel_rms(const gsu_featmap *f, int n, const double *x)
{
	double	   *phi = malloc(sizeof(double) * (size_t) n * f->dim);
	double	   *work = malloc(sizeof(double) * gsu_featmap_work_size(f));
	double		s = 0.0;
	int			cnt = 0;

	for (int i = 0; i < n; i++)
		gsu_featmap_apply(f, x + (size_t) i * f->p, phi + (size_t) i * f->dim, work);
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++)
		{
			double		e = dot(f->dim, phi + (size_t) i * f->dim, phi + (size_t) j * f->dim)
				- kernel(f->p, x + (size_t) i * f->p, x + (size_t) j * f->p, f->sigma);

			s += e * e;
			cnt++;
		}
	free(phi);
	free(work);
	return sqrt(s / cnt);
}

static void
random_points(gsu_rng *rng, int n, int p, double scale, double *x)
{
	for (int i = 0; i < n * p; i++)
		x[i] = scale * gsu_rng_normal(rng);
}

static void
test_map_length(void)
{
	CHECK(gsu_featmap_length(GSU_MAP_RFF, 10, 3, 0) == 15, "rff");
	CHECK(gsu_featmap_length(GSU_MAP_RFF, 9, 3, 0) == -1, "odd D");
	CHECK(gsu_featmap_length(GSU_MAP_RFF, 0, 3, 0) == -1, "D = 0");
	CHECK(gsu_featmap_length(GSU_MAP_RFF, 10, 3, 4) == -1, "rff with landmarks");
	CHECK(gsu_featmap_length(GSU_MAP_NYSTROEM, 4, 3, 5) == 5 * 3 + 5 * 4, "nystroem");
	CHECK(gsu_featmap_length(GSU_MAP_NYSTROEM, 6, 3, 5) == -1, "rank > m");
	CHECK(gsu_featmap_length(GSU_MAP_NONE, 4, 3, 0) == -1, "none");
	CHECK(gsu_featmap_length(GSU_MAP_RFF, 2000000, 100000, 0) == -1, "too long");
}

static void
test_rff_kernel(void)
{
	int			n = 30,
				p = 3;
	double		sigma = 1.3;
	int			Ds[3] = {16, 256, quick ? 1024 : 4096};
	double		rms[3];
	double	   *x = malloc(sizeof(double) * n * p);
	gsu_rng		rng;

	gsu_rng_seed(&rng, 7);
	random_points(&rng, n, p, 1.0, x);
	for (int t = 0; t < 3; t++)
	{
		double	   *om = malloc(sizeof(double) * (Ds[t] / 2) * p);
		gsu_featmap f;

		CHECK(gsu_rff_build(p, Ds[t], sigma, 42, om) == GSU_OK, "build");
		gsu_featmap_bind(&f, GSU_MAP_RFF, p, Ds[t], 0, sigma, om);
		rms[t] = kernel_rms(&f, n, x);
		free(om);
	}
	/* RMS ≈ c/√D: a factor 16 from 16 to 4096 features (4 at most-quick 8) */
	CHECK(rms[1] < rms[0] && rms[2] < rms[1], "%g %g %g", rms[0], rms[1], rms[2]);
	CHECK(rms[2] < rms[0] / 3.0, "%g %g", rms[0], rms[2]);
	CHECK(rms[2] < (quick ? 0.08 : 0.04), "%g", rms[2]);
	/* φ(x)ᵀφ(x) = 1 exactly (cos² + sin²) */
	{
		double		om[6],
					phi[4],
					work[16];
		gsu_featmap f;

		gsu_rff_build(3, 4, 0.5, 1, om);
		gsu_featmap_bind(&f, GSU_MAP_RFF, 3, 4, 0, 0.5, om);
		gsu_featmap_apply(&f, x, phi, work);
		CHECK_CLOSE(dot(4, phi, phi), 1.0, 1e-15);
	}
	/* seeded: the same seed gives the same frequencies, another seed others */
	{
		double		a[6],
					b[6],
					c[6];

		gsu_rff_build(3, 4, 2.0, 99, a);
		gsu_rff_build(3, 4, 2.0, 99, b);
		gsu_rff_build(3, 4, 2.0, 100, c);
		CHECK(memcmp(a, b, sizeof(a)) == 0, "same seed");
		CHECK(memcmp(a, c, sizeof(a)) != 0, "other seed");
	}
	CHECK(gsu_rff_build(3, 5, 1.0, 1, x) == GSU_EINVAL, "odd D");
	CHECK(gsu_rff_build(3, 4, 0.0, 1, x) == GSU_EINVAL, "sigma 0");
	free(x);
}

static void
test_nystroem_kernel(void)
{
	int			n = quick ? 80 : 200,
				p = 2;
	double		sigma = 0.8;
	int			ms[3] = {5, 30, n};
	double		rms[3];
	double	   *x = malloc(sizeof(double) * n * p);
	gsu_rng		rng;

	gsu_rng_seed(&rng, 11);
	random_points(&rng, n, p, 1.0, x);
	for (int t = 0; t < 3; t++)
	{
		int			m = ms[t],
					r;
		double	   *block = malloc(sizeof(double) * ((size_t) m * p + (size_t) m * m));
		double	   *proj = malloc(sizeof(double) * (size_t) m * m);
		gsu_featmap f;

		CHECK(gsu_nystroem_build(n, p, x, m, sigma, 3, block, proj, &r, NULL) == GSU_OK, "build");
		CHECK(r >= 1 && r <= m, "rank %d of %d", r, m);
		memcpy(block + (size_t) m * p, proj, sizeof(double) * (size_t) m * r);
		gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, p, r, m, sigma, block);
		rms[t] = kernel_rms(&f, n, x);
		/* landmarks are distinct training rows */
		for (int i = 0; i < m; i++)
		{
			int			found = 0;

			for (int k = 0; k < n && !found; k++)
				found = memcmp(block + (size_t) i * p, x + (size_t) k * p, sizeof(double) * p) == 0;
			CHECK(found, "landmark %d", i);
			for (int j = 0; j < i; j++)
				CHECK(memcmp(block + (size_t) i * p, block + (size_t) j * p,
							 sizeof(double) * p) != 0, "landmarks %d %d", i, j);
		}
		/* on a landmark, the Nyström kernel is exact up to the dropped eigenvalues */
		if (t == 1)
		{
			double	   *work = malloc(sizeof(double) * gsu_featmap_work_size(&f));
			double	   *pa = malloc(sizeof(double) * r),
					   *pb = malloc(sizeof(double) * r);

			gsu_featmap_apply(&f, block, pa, work);
			gsu_featmap_apply(&f, block + p, pb, work);
			CHECK_CLOSE(dot(r, pa, pb), kernel(p, block, block + p, sigma), 1e-5);
			free(work);
			free(pa);
			free(pb);
		}
		free(block);
		free(proj);
	}
	CHECK(rms[1] < rms[0] && rms[2] < rms[1], "%g %g %g", rms[0], rms[1], rms[2]);
	CHECK(rms[2] < 1e-3, "%g", rms[2]);
	{
		double		z[4],
					pr[4];
		int			r;

		CHECK(gsu_nystroem_build(n, p, x, n + 1, sigma, 3, z, pr, &r, NULL) == GSU_EINVAL, "m > n");
		CHECK(gsu_nystroem_build(n, p, x, 2, -1.0, 3, z, pr, &r, NULL) == GSU_EINVAL, "sigma < 0");
	}
	free(x);
}

/*
 * σ near 1e154 (the option allows σ² ≤ DBL_MAX), where 2σ² and 4σ²
 * overflow: the rows, σ and the variances scaled by 2^511 give the map and
 * the moments of scale 1 (the kernel depends on ‖a − b‖/σ only).  Before
 * issue 27 the factor 1/(2σ²) was 0 there: every kernel value 1, a map of
 * rank 1.  Also a squared distance that overflows gives kernel 0, not NaN.
 */
static void
test_nystroem_huge_sigma(void)
{
	int			n = 30,
				p = 2,
				m = 8,
				r1,
				r2;
	double		sigma = 1.5,
				big = ldexp(1.0, 511),
				x[60],
				xb[60],
				b1[8 * 2 + 8 * 8],
				b2[8 * 2 + 8 * 8],
				pr1[64],
				pr2[64],
				q[2] = {0.3, -0.7},
				qb[2],
				var[2] = {0.1, 0.05},
				varb[2],
				phi1[8],
				phi2[8],
				v1[8],
				v2[8],
				work[256];
	gsu_featmap f1,
				f2;
	gsu_rng		rng;

	gsu_rng_seed(&rng, 31);
	random_points(&rng, n, p, 1.0, x);
	for (int i = 0; i < n * p; i++)
		xb[i] = x[i] * big;
	for (int k = 0; k < p; k++)
	{
		qb[k] = q[k] * big;
		varb[k] = var[k] * big * big;
	}
	CHECK(gsu_nystroem_build(n, p, x, m, sigma, 3, b1, pr1, &r1, NULL) == GSU_OK, "build");
	CHECK(gsu_nystroem_build(n, p, xb, m, sigma * big, 3, b2, pr2, &r2, NULL) == GSU_OK, "build scaled");
	CHECK(r1 == r2 && r1 > 1, "rank %d at scale 1, %d at 2^511", r1, r2);
	if (r1 != r2)
		return;
	memcpy(b1 + m * p, pr1, sizeof(double) * m * r1);
	memcpy(b2 + m * p, pr2, sizeof(double) * m * r2);
	gsu_featmap_bind(&f1, GSU_MAP_NYSTROEM, p, r1, m, sigma, b1);
	gsu_featmap_bind(&f2, GSU_MAP_NYSTROEM, p, r2, m, sigma * big, b2);
	CHECK(gsu_featmap_work_size(&f1) <= 256, "work %zu", gsu_featmap_work_size(&f1));
	gsu_featmap_apply(&f1, q, phi1, work);
	gsu_featmap_apply(&f2, qb, phi2, work);
	for (int j = 0; j < r1; j++)
		CHECK_CLOSE(phi1[j], phi2[j], 1e-9);
	CHECK(gsu_featmap_moments(&f1, q, COV3(var, 0.0, NULL), phi1, v1, work, NULL) == GSU_OK, "moments");
	CHECK(gsu_featmap_moments(&f2, qb, COV3(varb, 0.0, NULL), phi2, v2, work, NULL) == GSU_OK, "moments scaled");
	for (int j = 0; j < r1; j++)
	{
		CHECK_CLOSE(phi1[j], phi2[j], 1e-9);
		CHECK_CLOSE(v1[j], v2[j], 1e-9);
	}
	/* a point whose squared distance to every landmark overflows: φ = 0 */
	{
		double		far[2] = {1e300, -1e300};

		gsu_featmap_apply(&f1, far, phi1, work);
		for (int j = 0; j < r1; j++)
			CHECK(phi1[j] == 0.0, "far point: phi %d = %g", j, phi1[j]);
		gsu_featmap_apply(&f2, far, phi2, work);
		for (int j = 0; j < r2; j++)
			CHECK(isfinite(phi2[j]), "far point, huge sigma: phi %d = %g", j, phi2[j]);
	}
}

/* ------------------------------------------------------------ moments */

/* a full covariance with a known symmetric root: Σ = Q diag(e) Qᵀ, root = Q diag(√e) Qᵀ */
static void
make_cov(gsu_rng *rng, int p, const double *e, double *cov, double *root)
{
	double	   *q = malloc(sizeof(double) * p * p);

	/* Gram–Schmidt on a random matrix, columns */
	for (int i = 0; i < p * p; i++)
		q[i] = gsu_rng_normal(rng);
	for (int j = 0; j < p; j++)
	{
		for (int k = 0; k < j; k++)
		{
			double		s = 0.0;

			for (int i = 0; i < p; i++)
				s += q[i * p + j] * q[i * p + k];
			for (int i = 0; i < p; i++)
				q[i * p + j] -= s * q[i * p + k];
		}
		{
			double		s = 0.0;

			for (int i = 0; i < p; i++)
				s += q[i * p + j] * q[i * p + j];
			s = sqrt(s);
			for (int i = 0; i < p; i++)
				q[i * p + j] /= s;
		}
	}
	for (int i = 0; i < p; i++)
		for (int k = 0; k < p; k++)
		{
			double		s = 0.0,
						t = 0.0;

			for (int j = 0; j < p; j++)
			{
				s += q[i * p + j] * e[j] * q[k * p + j];
				t += q[i * p + j] * sqrt(e[j]) * q[k * p + j];
			}
			cov[i * p + k] = s;
			root[i * p + k] = t;
		}
	free(q);
}

/*
 * E φ(z), diag Cov φ(z) by Monte Carlo, z = μ + root·g, g ~ N(0, I), against
 * gsu_featmap_moments; tolerance 6 standard errors (sample-based).
 */
static void
check_moments_mc(const gsu_featmap *f, const double *mu, const double *var, double iso,
				 const double *cov, const double *root, int N, uint64_t seed)
{
	int			D = f->dim,
				p = f->p;
	double	   *mean = malloc(sizeof(double) * D),
			   *vout = malloc(sizeof(double) * D),
			   *work = malloc(sizeof(double) * gsu_featmap_work_size(f)),
			   *phi = malloc(sizeof(double) * D),
			   *s1 = calloc(D, sizeof(double)),
			   *s2 = calloc(D, sizeof(double)),
			   *s3 = calloc(D, sizeof(double)),
			   *s4 = calloc(D, sizeof(double)),
			   *z = malloc(sizeof(double) * p),
			   *g = malloc(sizeof(double) * p);
	gsu_rng		rng;

	CHECK(gsu_featmap_moments(f, mu, COV3(var, iso, cov), mean, vout, work, NULL) == GSU_OK, "moments");
	gsu_rng_seed(&rng, seed);
	for (int t = 0; t < N; t++)
	{
		for (int k = 0; k < p; k++)
			g[k] = gsu_rng_normal(&rng);
		for (int k = 0; k < p; k++)
		{
			double		d;

			if (root != NULL)
			{
				d = 0.0;
				for (int l = 0; l < p; l++)
					d += root[k * p + l] * g[l];
			}
			else
				d = sqrt(var != NULL ? var[k] : iso) * g[k];
			z[k] = mu[k] + d;
		}
		gsu_featmap_apply(f, z, phi, work);
		for (int j = 0; j < D; j++)
		{
			/* centred on the analytic mean: stable sums */
			double		c = phi[j] - mean[j];

			s1[j] += c;
			s2[j] += c * c;
			s3[j] += c * c * c;
			s4[j] += c * c * c * c;
		}
	}
	for (int j = 0; j < D; j++)
	{
		double		m1 = s1[j] / N,
					m2 = s2[j] / N,
					m4 = s4[j] / N,
					sv = m2 - m1 * m1,
					se_mean = sqrt(fmax(m2, 0.0) / N),
					se_var = sqrt(fmax(m4 - m2 * m2, 0.0) / N);

		CHECK(fabs(m1) <= 6.0 * se_mean + 1e-12, "feature %d: mean off by %g (se %g)",
			  j, m1, se_mean);
		CHECK(fabs(sv - vout[j]) <= 6.0 * se_var + 1e-12,
			  "feature %d: var %g vs MC %g (se %g)", j, vout[j], sv, se_var);
		CHECK(vout[j] >= 0.0, "var < 0");
	}
	free(mean);
	free(vout);
	free(work);
	free(phi);
	free(s1);
	free(s2);
	free(s3);
	free(s4);
	free(z);
	free(g);
}

/* the full covariance against Monte Carlo (6 standard errors per entry) and against the diagonal moments */
static void
check_cov_mc(const gsu_featmap *f, const double *mu, const double *var, double iso,
			 const double *cov, const double *root, int N, uint64_t seed)
{
	int			D = f->dim,
				p = f->p;
	double	   *mean = malloc(sizeof(double) * D),
			   *mean2 = malloc(sizeof(double) * D),
			   *vd = malloc(sizeof(double) * D),
			   *C = malloc(sizeof(double) * D * D),
			   *work = malloc(sizeof(double) * (gsu_featmap_cov_work_size(f) + gsu_featmap_work_size(f))),
			   *phi = malloc(sizeof(double) * D),
			   *s1 = calloc(D * D, sizeof(double)),
			   *s2 = calloc(D * D, sizeof(double)),
			   *z = malloc(sizeof(double) * p),
			   *g = malloc(sizeof(double) * p);
	gsu_rng		rng;

	CHECK(gsu_featmap_covariance(f, mu, COV3(var, iso, cov), mean, C, work, NULL) == GSU_OK, "covariance");
	gsu_featmap_moments(f, mu, COV3(var, iso, cov), mean2, vd, work, NULL);
	for (int j = 0; j < D; j++)
	{
		CHECK_CLOSE(mean[j], mean2[j], 1e-14);
		CHECK_CLOSE(C[j * D + j], vd[j], 1e-14);
		for (int k = 0; k < D; k++)
			CHECK(C[j * D + k] == C[k * D + j], "symmetric");
	}
	/* wᵀCw of two weight vectors by the pair sum, in two blocks, against the matrix */
	{
		int			outer = gsu_featmap_quad_outer(f);
		double	   *w0 = malloc(sizeof(double) * D),
				   *w1 = malloc(sizeof(double) * D),
				   *qw = malloc(sizeof(double) * gsu_featmap_quad_work_size(f, 2, cov != NULL)),
				   *mean3 = malloc(sizeof(double) * D),
					quad[2],
					want[2] = {0.0, 0.0};
		const double *ws[2] = {w0, w1};

		for (int j = 0; j < D; j++)
		{
			w0[j] = sin(1.0 + j);
			w1[j] = cos(0.3 * j) - 0.2;
		}
		for (int j = 0; j < D; j++)
			for (int k = 0; k < D; k++)
			{
				want[0] += w0[j] * C[j * D + k] * w0[k];
				want[1] += w1[j] * C[j * D + k] * w1[k];
			}
		CHECK(gsu_featmap_quad_prepare(f, mu, COV3(var, iso, cov), 2, ws, mean3, quad, qw) == GSU_OK,
			  "quad prepare");
		gsu_featmap_quad_block(f, COV3(var, iso, cov), 2, ws, 0, outer / 3, quad, qw);
		gsu_featmap_quad_block(f, COV3(var, iso, cov), 2, ws, outer / 3, outer, quad, qw);
		for (int j = 0; j < D; j++)
			CHECK_CLOSE(mean3[j], mean[j], 1e-13);
		for (int v = 0; v < 2; v++)
			CHECK(fabs(quad[v] - want[v]) <= 1e-9 * (1.0 + fabs(want[v])),
				  "quad %d: %.17g vs w'Cw %.17g", v, quad[v], want[v]);
		free(w0);
		free(w1);
		free(qw);
		free(mean3);
	}
	gsu_rng_seed(&rng, seed);
	for (int t = 0; t < N; t++)
	{
		for (int k = 0; k < p; k++)
			g[k] = gsu_rng_normal(&rng);
		for (int k = 0; k < p; k++)
		{
			double		d = 0.0;

			if (root != NULL)
				for (int l = 0; l < p; l++)
					d += root[k * p + l] * g[l];
			else
				d = sqrt(var != NULL ? var[k] : iso) * g[k];
			z[k] = mu[k] + d;
		}
		gsu_featmap_apply(f, z, phi, work);
		for (int j = 0; j < D; j++)
			for (int k = 0; k < D; k++)
			{
				double		c = (phi[j] - mean[j]) * (phi[k] - mean[k]);

				s1[j * D + k] += c;
				s2[j * D + k] += c * c;
			}
	}
	for (int j = 0; j < D * D; j++)
	{
		double		m1 = s1[j] / N,
					se = sqrt(fmax(s2[j] / N - m1 * m1, 0.0) / N);

		CHECK(fabs(m1 - C[j]) <= 6.0 * se + 1e-12, "entry %d: %g vs MC %g (se %g)", j, C[j], m1, se);
	}
	free(mean);
	free(mean2);
	free(vd);
	free(C);
	free(work);
	free(phi);
	free(s1);
	free(s2);
	free(z);
	free(g);
}

static void
test_covariance(void)
{
	int			p = 2,
				D = 8,
				n = 30,
				m = 6,
				r,
				N = quick ? 20000 : 200000;
	double		om[8],
				mu[2] = {0.4, -0.3},
				var[2] = {0.3, 0.1},
				e[2] = {0.05, 0.4},
				cov[4],
				root[4],
				x[60],
				block[6 * 2 + 6 * 6],
				proj[36];
	gsu_featmap f,
				fn;
	gsu_rng		rng;

	gsu_rff_build(p, D, 0.8, 12, om);
	gsu_featmap_bind(&f, GSU_MAP_RFF, p, D, 0, 0.8, om);
	check_cov_mc(&f, mu, var, 0.0, NULL, NULL, N, 1);
	check_cov_mc(&f, mu, NULL, 0.2, NULL, NULL, N, 2);
	gsu_rng_seed(&rng, 13);
	make_cov(&rng, p, e, cov, root);
	check_cov_mc(&f, mu, NULL, 0.0, cov, root, N, 3);
	random_points(&rng, n, p, 1.0, x);
	CHECK(gsu_nystroem_build(n, p, x, m, 0.9, 4, block, proj, &r, NULL) == GSU_OK, "build");
	memcpy(block + m * p, proj, sizeof(double) * m * r);
	gsu_featmap_bind(&fn, GSU_MAP_NYSTROEM, p, r, m, 0.9, block);
	check_cov_mc(&fn, mu, var, 0.0, NULL, NULL, N, 4);
	check_cov_mc(&fn, mu, NULL, 0.0, cov, root, N, 5);
}

static void
test_moments_rff(void)
{
	int			p = 3,
				D = 8,
				N = quick ? 20000 : 200000;
	double		om[12],
				mu[3] = {0.3, -0.7, 1.1},
				var[3] = {0.05, 0.4, 0.2},
				e[3] = {0.02, 0.3, 0.6},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_rff_build(p, D, 0.9, 5, om);
	gsu_featmap_bind(&f, GSU_MAP_RFF, p, D, 0, 0.9, om);
	check_moments_mc(&f, mu, var, 0.0, NULL, NULL, N, 1);
	check_moments_mc(&f, mu, NULL, 0.25, NULL, NULL, N, 2);
	gsu_rng_seed(&rng, 3);
	make_cov(&rng, p, e, cov, root);
	check_moments_mc(&f, mu, NULL, 0.0, cov, root, N, 4);
	/* Σ = 0: the moments are φ(μ) and 0 */
	{
		double		mean[8],
					v[8],
					phi[8],
					work[32],
					zero[3] = {0, 0, 0};

		gsu_featmap_moments(&f, mu, COV3(zero, 0.0, NULL), mean, v, work, NULL);
		gsu_featmap_apply(&f, mu, phi, work);
		for (int j = 0; j < D; j++)
		{
			CHECK_CLOSE(mean[j], phi[j], 1e-15);
			CHECK(v[j] == 0.0, "%g", v[j]);
		}
	}
}

static void
test_moments_nystroem(void)
{
	int			n = 40,
				p = 3,
				m = 12,
				r,
				N = quick ? 20000 : 200000;
	double		x[120],
				block[12 * 3 + 12 * 12],
				proj[144],
				mu[3] = {0.2, 0.1, -0.4},
				var[3] = {0.1, 0.3, 0.05},
				e[3] = {0.05, 0.15, 0.4},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_rng_seed(&rng, 21);
	random_points(&rng, n, p, 0.8, x);
	CHECK(gsu_nystroem_build(n, p, x, m, 1.0, 8, block, proj, &r, NULL) == GSU_OK, "build");
	memcpy(block + m * p, proj, sizeof(double) * m * r);
	gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, p, r, m, 1.0, block);
	check_moments_mc(&f, mu, var, 0.0, NULL, NULL, N, 5);
	check_moments_mc(&f, mu, NULL, 0.2, NULL, NULL, N, 6);
	make_cov(&rng, p, e, cov, root);
	check_moments_mc(&f, mu, NULL, 0.0, cov, root, N, 7);
	/* a full Σ = diag(v) gives the diagonal path's moments */
	{
		double		dc[9] = {0.1, 0, 0, 0, 0.3, 0, 0, 0, 0.05},
					m1[12],
					v1[12],
					m2[12],
					v2[12],
				   *work = malloc(sizeof(double) * gsu_featmap_work_size(&f));

		gsu_featmap_moments(&f, mu, COV3(var, 0.0, NULL), m1, v1, work, NULL);
		gsu_featmap_moments(&f, mu, COV3(NULL, 0.0, dc), m2, v2, work, NULL);
		for (int j = 0; j < r; j++)
		{
			CHECK_CLOSE(m1[j], m2[j], 1e-12);
			CHECK_CLOSE(v1[j], v2[j], 1e-12);
		}
		free(work);
	}
}

/* ------------------------------------------------------------- bounds */

/* a point u with ‖u‖_p = γ·s, s ∈ (0, 1], p ∈ {1, 2, 0 = ∞}; extreme: s = 1 */
static void
sample_ball(gsu_rng *rng, int d, int p, double gamma, double *u)
{
	double		nrm = 0.0,
				s = gsu_rng_uniform(rng) < 0.5 ? 1.0 : gsu_rng_uniform(rng);

	for (int k = 0; k < d; k++)
	{
		u[k] = gsu_rng_normal(rng);
		/* sometimes a vertex-like direction (p = 1 worst cases) */
		if (p == 1 && gsu_rng_uniform(rng) < 0.5)
			u[k] *= 0.01;
		if (p == 0 && gsu_rng_uniform(rng) < 0.5)
			u[k] = u[k] > 0 ? 1.0 : -1.0;
	}
	for (int k = 0; k < d; k++)
	{
		double		a = fabs(u[k]);

		if (p == 1)
			nrm += a;
		else if (p == 2)
			nrm += a * a;
		else if (a > nrm)
			nrm = a;
	}
	if (p == 2)
		nrm = sqrt(nrm);
	for (int k = 0; k < d; k++)
		u[k] *= gamma * s / nrm;
}

/* δ = Σ^{1/2} u */
static void
apply_root(int d, const double *var, double iso, const double *root, const double *u,
		   double *delta)
{
	for (int k = 0; k < d; k++)
	{
		if (root != NULL)
		{
			delta[k] = 0.0;
			for (int l = 0; l < d; l++)
				delta[k] += root[k * d + l] * u[l];
		}
		else
			delta[k] = sqrt(var != NULL ? var[k] : iso) * u[k];
	}
}

static void
check_rff_bounds(const gsu_featmap *f, const double *x, const double *var, double iso,
				 const double *cov, const double *root, double gamma, int p, int samples,
				 uint64_t seed)
{
	int			D = f->dim,
				d = f->p,
				h = D / 2,
				q = p == 1 ? 0 : p == 0 ? 1 : 2;
	double	   *tau = malloc(sizeof(double) * h),
			   *lo = malloc(sizeof(double) * D),
			   *hi = malloc(sizeof(double) * D),
			   *w = malloc(sizeof(double) * D),
			   *phi0 = malloc(sizeof(double) * D),
			   *phi = malloc(sizeof(double) * D),
			   *A = malloc(sizeof(double) * D * D),
			   *work = malloc(sizeof(double) * gsu_featmap_work_size(f)),
			   *u = malloc(sizeof(double) * d),
			   *delta = malloc(sizeof(double) * d),
			   *z = malloc(sizeof(double) * d),
			   *maxphase = calloc(h, sizeof(double));
	double		rho,
				relax = 0.0,
				sampled = -INFINITY;
	gsu_rng		rng;

	CHECK(gsu_rff_phase_bounds(f, COV3(var, iso, cov), gamma, q, tau) == GSU_OK, "phase");
	gsu_rff_box(f, tau, lo, hi);
	gsu_rng_seed(&rng, seed);
	for (int k = 0; k < D; k++)
		w[k] = gsu_rng_normal(&rng);
	rho = gsu_rff_box_worst(f, x, lo, hi, w, 1.0, 0.0, NULL, work);
	gsu_featmap_apply(f, x, phi0, work);
	for (int s = 0; s < samples; s++)
	{
		double		val;

		sample_ball(&rng, d, p, gamma, u);
		apply_root(d, var, iso, root, u, delta);
		for (int k = 0; k < d; k++)
			z[k] = x[k] + delta[k];
		for (int j = 0; j < h; j++)
		{
			double		t = fabs(dot(d, f->omega + (size_t) j * d, delta));

			CHECK(t <= tau[j] * (1 + 1e-12) + 1e-15, "phase %d: %g > %g", j, t, tau[j]);
			maxphase[j] = fmax(maxphase[j], t);
		}
		gsu_featmap_apply(f, z, phi, work);
		/* rotated perturbation inside the box */
		for (int j = 0; j < h; j++)
		{
			double		t = dot(d, f->omega + (size_t) j * d, x),
						a = phi[2 * j] - phi0[2 * j],
						b = phi[2 * j + 1] - phi0[2 * j + 1],
						u1 = cos(t) * a + sin(t) * b,
						u2 = -sin(t) * a + cos(t) * b;

			CHECK(u1 >= lo[2 * j] - 1e-12 && u1 <= hi[2 * j] + 1e-12, "u1 %g", u1);
			CHECK(u2 >= lo[2 * j + 1] - 1e-12 && u2 <= hi[2 * j + 1] + 1e-12, "u2 %g", u2);
		}
		/* y = +1: the loss increase −wᵀΔφ never exceeds the box's worst case */
		val = 0.0;
		for (int k = 0; k < D; k++)
			val -= w[k] * (phi[k] - phi0[k]);
		CHECK(val <= rho + 1e-12, "sampled %g > bound %g", val, rho);
		sampled = fmax(sampled, val);
	}
	/* the phase bound is (nearly) reached by the samples for q = 2 (p = 2, smooth ball) */
	if (p == 2 && cov == NULL && samples >= 2000)
		for (int j = 0; j < h; j++)
			CHECK(maxphase[j] >= 0.5 * tau[j], "phase %d reached %g of %g", j, maxphase[j], tau[j]);
	/* the symmetric relaxation bounds it from above */
	CHECK(gsu_rff_bound_matrix(f, x, lo, hi, A) == GSU_OK, "bound matrix");
	for (int k = 0; k < D; k++)
		relax += fabs(dot(D, A + (size_t) k * D, w));
	CHECK(relax >= rho - 1e-12, "relaxation %g < %g", relax, rho);
	CHECK(sampled > -INFINITY, "no samples");
	free(tau);
	free(lo);
	free(hi);
	free(w);
	free(phi0);
	free(phi);
	free(A);
	free(work);
	free(u);
	free(delta);
	free(z);
	free(maxphase);
}

static void
test_rff_bounds(void)
{
	int			p = 3,
				D = 10,
				samples = quick ? 500 : 5000;
	double		om[15],
				x[3] = {0.4, -0.2, 0.9},
				var[3] = {0.01, 0.05, 0.02},
				e[3] = {0.01, 0.04, 0.09},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_rff_build(p, D, 1.0, 9, om);
	gsu_featmap_bind(&f, GSU_MAP_RFF, p, D, 0, 1.0, om);
	gsu_rng_seed(&rng, 4);
	make_cov(&rng, p, e, cov, root);
	for (int pn = 0; pn <= 2; pn++)
	{
		check_rff_bounds(&f, x, var, 0.0, NULL, NULL, 1.5, pn, samples, 10 + pn);
		check_rff_bounds(&f, x, NULL, 0.03, NULL, NULL, 2.0, pn, samples, 20 + pn);
		check_rff_bounds(&f, x, NULL, 0.0, cov, root, 1.0, pn, samples, 30 + pn);
		/* large uncertainty: phases beyond π, the box saturates and still holds */
		check_rff_bounds(&f, x, NULL, 4.0, NULL, NULL, 3.0, pn, samples, 40 + pn);
	}
	/* Hölder attained: δ = γ Σω/‖Σ^{1/2}ω‖ (p = 2) gives ωᵀδ = τ */
	{
		double		tau[5],
					delta[3];

		gsu_rff_phase_bounds(&f, COV3(var, 0.0, NULL), 1.5, 2, tau);
		for (int j = 0; j < 5; j++)
		{
			const double *w = om + 3 * j;
			double		n2 = 0.0;

			for (int k = 0; k < 3; k++)
				n2 += var[k] * w[k] * w[k];
			for (int k = 0; k < 3; k++)
				delta[k] = 1.5 * var[k] * w[k] / sqrt(n2);
			CHECK_CLOSE(dot(3, w, delta), tau[j], 1e-12);
		}
		/* full Σ with q = 1 and q = ∞ through the root agrees with q = 2's quad form where Σ is diagonal */
		{
			double		dc[9] = {0.01, 0, 0, 0, 0.05, 0, 0, 0, 0.02},
						t1[5],
						t2[5];

			for (int q = 0; q <= 2; q++)
			{
				gsu_rff_phase_bounds(&f, COV3(var, 0.0, NULL), 1.5, q, t1);
				gsu_rff_phase_bounds(&f, COV3(NULL, 0.0, dc), 1.5, q, t2);
				for (int j = 0; j < 5; j++)
					CHECK_CLOSE(t1[j], t2[j], 1e-12);
			}
		}
	}
	/* the box worst case is attained at a box corner (y = −1 too) and its subgradient matches finite differences */
	{
		double		tau[5],
					lo[10],
					hi[10],
					w[10],
					g[10],
					work[32];

		gsu_rff_phase_bounds(&f, COV3(var, 0.0, NULL), 1.5, 2, tau);
		gsu_rff_box(&f, tau, lo, hi);
		for (int k = 0; k < 10; k++)
			w[k] = gsu_rng_normal(&rng);
		for (int yy = -1; yy <= 1; yy += 2)
		{
			double		rho;

			memset(g, 0, sizeof(g));
			rho = gsu_rff_box_worst(&f, x, lo, hi, w, yy, 1.0, g, work);
			/* brute force over the box corners, pair by pair (separable) */
			{
				double		best = 0.0;

				for (int j = 0; j < 5; j++)
				{
					double		t = dot(3, om + 3 * j, x),
								v1 = cos(t) * w[2 * j] + sin(t) * w[2 * j + 1],
								v2 = -sin(t) * w[2 * j] + cos(t) * w[2 * j + 1],
								pb = -INFINITY;

					for (int c = 0; c < 4; c++)
					{
						double		u1 = (c & 1) ? hi[2 * j] : lo[2 * j],
									u2 = (c & 2) ? hi[2 * j + 1] : lo[2 * j + 1];

						pb = fmax(pb, -yy * (v1 * u1 + v2 * u2));
					}
					best += pb;
				}
				CHECK_CLOSE(rho, best, 1e-12);
			}
			for (int k = 0; k < 10; k++)
			{
				double		h = 1e-6,
							wp[10],
							wm[10],
							fd;

				memcpy(wp, w, sizeof(w));
				memcpy(wm, w, sizeof(w));
				wp[k] += h;
				wm[k] -= h;
				fd = (gsu_rff_box_worst(&f, x, lo, hi, wp, yy, 0, NULL, work)
					  - gsu_rff_box_worst(&f, x, lo, hi, wm, yy, 0, NULL, work)) / (2 * h);
				CHECK_CLOSE(g[k], fd, 1e-7);
			}
		}
	}
}

static void
check_nystroem_bounds(const gsu_featmap *f, const double *x, const double *var, double iso,
					  const double *cov, const double *root, double gamma, int p,
					  int samples, uint64_t seed)
{
	int			m = f->landmarks,
				d = f->p,
				r = f->dim;
	double	   *lo = malloc(sizeof(double) * m),
			   *hi = malloc(sizeof(double) * m),
			   *w = malloc(sizeof(double) * r),
			   *phi0 = malloc(sizeof(double) * r),
			   *phi = malloc(sizeof(double) * r),
			   *A = malloc(sizeof(double) * m * r),
			   *work = malloc(sizeof(double) * gsu_featmap_work_size(f)),
			   *u = malloc(sizeof(double) * d),
			   *delta = malloc(sizeof(double) * d),
			   *z = malloc(sizeof(double) * d);
	double		rho,
				radius,
				relax = 0.0;
	gsu_rng		rng;

	CHECK(gsu_nystroem_box(f, x, COV3(var, iso, cov), gamma, p, lo, hi, &radius, work) == GSU_OK, "box");
	gsu_rng_seed(&rng, seed);
	for (int k = 0; k < r; k++)
		w[k] = gsu_rng_normal(&rng);
	rho = gsu_nystroem_box_worst(f, lo, hi, w, -1.0, 0.0, NULL, work);
	gsu_featmap_apply(f, x, phi0, work);
	for (int s = 0; s < samples; s++)
	{
		double		val = 0.0;

		sample_ball(&rng, d, p, gamma, u);
		apply_root(d, var, iso, root, u, delta);
		CHECK(sqrt(dot(d, delta, delta)) <= radius * (1 + 1e-12), "outside the enclosing ball");
		for (int k = 0; k < d; k++)
			z[k] = x[k] + delta[k];
		for (int l = 0; l < m; l++)
		{
			double		dk = kernel(d, z, f->z + (size_t) l * d, f->sigma)
				- kernel(d, x, f->z + (size_t) l * d, f->sigma);

			CHECK(dk >= lo[l] - 1e-12 && dk <= hi[l] + 1e-12, "landmark %d: %g not in [%g, %g]",
				  l, dk, lo[l], hi[l]);
		}
		gsu_featmap_apply(f, z, phi, work);
		/* y = −1: the loss increase +wᵀΔφ */
		for (int k = 0; k < r; k++)
			val += w[k] * (phi[k] - phi0[k]);
		CHECK(val <= rho + 1e-12, "sampled %g > bound %g", val, rho);
	}
	gsu_nystroem_bound_matrix(f, lo, hi, A);
	for (int l = 0; l < m; l++)
		relax += fabs(dot(r, A + (size_t) l * r, w));
	CHECK(relax >= rho - 1e-12, "relaxation %g < %g", relax, rho);
	free(lo);
	free(hi);
	free(w);
	free(phi0);
	free(phi);
	free(A);
	free(work);
	free(u);
	free(delta);
	free(z);
}

static void
test_nystroem_bounds(void)
{
	int			n = 30,
				p = 3,
				m = 8,
				r,
				samples = quick ? 300 : 3000;
	double		x[90],
				block[8 * 3 + 8 * 8],
				proj[64],
				pt[3] = {0.1, 0.3, -0.2},
				var[3] = {0.02, 0.06, 0.01},
				e[3] = {0.01, 0.03, 0.05},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_rng_seed(&rng, 31);
	random_points(&rng, n, p, 0.7, x);
	CHECK(gsu_nystroem_build(n, p, x, m, 0.9, 2, block, proj, &r, NULL) == GSU_OK, "build");
	memcpy(block + m * p, proj, sizeof(double) * m * r);
	gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, p, r, m, 0.9, block);
	make_cov(&rng, p, e, cov, root);
	for (int pn = 0; pn <= 2; pn++)
	{
		check_nystroem_bounds(&f, pt, var, 0.0, NULL, NULL, 1.5, pn, samples, 50 + pn);
		check_nystroem_bounds(&f, pt, NULL, 0.05, NULL, NULL, 2.0, pn, samples, 60 + pn);
		check_nystroem_bounds(&f, pt, NULL, 0.0, cov, root, 1.0, pn, samples, 70 + pn);
	}
	/* isotropic, p = 2: the interval ends are attained at δ = ∓ρ(z_l − x)/‖z_l − x‖ */
	{
		double		lo[8],
					hi[8],
					radius,
					work[256],
					g[8],
					w[8];

		gsu_nystroem_box(&f, pt, COV3(NULL, 0.05, NULL), 2.0, 2, lo, hi, &radius, work);
		CHECK_CLOSE(radius, 2.0 * sqrt(0.05), 1e-15);
		for (int l = 0; l < m; l++)
		{
			const double *zl = f.z + l * p;
			double		dir[3],
						nn = 0.0,
						zp[3],
						zm[3],
						k0 = kernel(p, pt, zl, 0.9);

			for (int k = 0; k < 3; k++)
			{
				dir[k] = zl[k] - pt[k];
				nn += dir[k] * dir[k];
			}
			nn = sqrt(nn);
			if (nn <= radius)
				continue;		/* the ball holds z_l: the top is k = 1, reached at δ = z_l − x */
			for (int k = 0; k < 3; k++)
			{
				zp[k] = pt[k] + radius * dir[k] / nn;
				zm[k] = pt[k] - radius * dir[k] / nn;
			}
			CHECK_CLOSE(hi[l], kernel(p, zp, zl, 0.9) - k0, 1e-14);
			CHECK_CLOSE(lo[l], kernel(p, zm, zl, 0.9) - k0, 1e-14);
		}
		/* subgradient by finite differences */
		for (int k = 0; k < r; k++)
			w[k] = gsu_rng_normal(&rng);
		memset(g, 0, sizeof(g));
		gsu_nystroem_box_worst(&f, lo, hi, w, 1.0, 1.0, g, work);
		for (int k = 0; k < r; k++)
		{
			double		hh = 1e-6,
						wp[8],
						wm[8],
						fd;

			memcpy(wp, w, sizeof(w));
			memcpy(wm, w, sizeof(w));
			wp[k] += hh;
			wm[k] -= hh;
			fd = (gsu_nystroem_box_worst(&f, lo, hi, wp, 1.0, 0, NULL, work)
				  - gsu_nystroem_box_worst(&f, lo, hi, wm, 1.0, 0, NULL, work)) / (2 * hh);
			CHECK_CLOSE(g[k], fd, 1e-6);
		}
	}
}

/*
 * Nyström intervals for a diagonal ellipsoid (p = 2) are exact: compared with
 * a fine grid over the ellipsoid's surface (and its centre direction), for
 * landmarks in general position, on the widest axis' blind side (the hard
 * case of the secular equation) and inside the ellipsoid.
 */
static void
test_nystroem_ellipsoid_exact(void)
{
	enum {m = 4};
	double		x[3] = {0.0, 0.0, 0.0},
				v[3] = {0.04, 0.25, 0.09},
				gamma = 1.5,
				sigma = 0.7,
				z[m * 3] = {0.9, -0.4, 0.3,		/* general position */
							0.6, 0.0, 0.5,		/* no component on the widest axis (y) */
							0.05, 0.1, -0.05,	/* inside the ellipsoid */
							-0.2, 1.5, 0.0},	/* along the widest axis */
				block[m * 3 + m * m],
				lo[m],
				hi[m],
				radius,
				work[16];
	gsu_featmap f;
	int			nt = quick ? 200 : 600,
				np = quick ? 400 : 1200;

	memcpy(block, z, sizeof(z));
	for (int i = 0; i < m * m; i++)
		block[m * 3 + i] = (i / m == i % m) ? 1.0 : 0.0;
	gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, 3, m, m, sigma, block);
	CHECK(gsu_nystroem_box(&f, x, COV3(v, 0.0, NULL), gamma, 2, lo, hi, &radius, work) == GSU_OK, "box");
	for (int l = 0; l < m; l++)
	{
		const double *zl = z + 3 * l;
		double		k0 = kernel(3, x, zl, sigma),
					kmin = INFINITY,
					kmax = -INFINITY,
					inside = 0.0;

		for (int k = 0; k < 3; k++)
			inside += zl[k] * zl[k] / v[k];
		for (int a = 0; a <= nt; a++)
			for (int b = 0; b < np; b++)
			{
				double		th = M_PI * a / nt,
							ph = 2 * M_PI * b / np,
							u[3] = {sin(th) * cos(ph), sin(th) * sin(ph), cos(th)},
							pt[3];

				for (int k = 0; k < 3; k++)
					pt[k] = x[k] + gamma * sqrt(v[k]) * u[k];
				kmin = fmin(kmin, kernel(3, pt, zl, sigma));
				kmax = fmax(kmax, kernel(3, pt, zl, sigma));
			}
		if (inside <= gamma * gamma)
			kmax = 1.0;			/* the landmark itself is reachable */
		/* the bound holds and is reached to the grid's resolution */
		CHECK(lo[l] <= kmin - k0 + 1e-12 && hi[l] >= kmax - k0 - 1e-12,
			  "landmark %d: [%g, %g] vs grid [%g, %g]", l, lo[l], hi[l], kmin - k0, kmax - k0);
		CHECK(fabs(lo[l] - (kmin - k0)) < 1e-4 && fabs(hi[l] - (kmax - k0)) < 1e-4,
			  "landmark %d not tight: [%g, %g] vs grid [%g, %g]", l, lo[l], hi[l],
			  kmin - k0, kmax - k0);
	}
}

static void
test_radius(void)
{
	double		var[3] = {0.01, 0.04, 0.09},
				cov[9] = {0.04, 0, 0, 0, 0.09, 0, 0, 0, 0.01};

	CHECK_CLOSE(gsu_uncertainty_radius(3, COV3(var, 0, NULL), 2.0, 2), 0.6, 1e-15);
	CHECK_CLOSE(gsu_uncertainty_radius(3, COV3(var, 0, NULL), 2.0, 1), 0.6, 1e-15);
	CHECK_CLOSE(gsu_uncertainty_radius(3, COV3(var, 0, NULL), 2.0, 0), 2.0 * sqrt(0.14), 1e-15);
	CHECK_CLOSE(gsu_uncertainty_radius(3, COV3(NULL, 0.25, NULL), 1.0, 2), 0.5, 1e-15);
	CHECK_CLOSE(gsu_uncertainty_radius(3, COV3(NULL, 0, cov), 1.0, 2), 0.3, 1e-12);
}

/*
 * A map for the per-row tests: RFF with D features or Nyström with m
 * landmarks drawn from the n × p points x; *block receives the storage.
 */
static void
make_map(gsu_featmap *f, int kind, int n, int p, const double *x, int size, double sigma,
		 double **block)
{
	if (kind == GSU_MAP_RFF)
	{
		*block = malloc(sizeof(double) * (size_t) (size / 2) * p);
		CHECK(gsu_rff_build(p, size, sigma, 5, *block) == GSU_OK, "rff build");
		gsu_featmap_bind(f, GSU_MAP_RFF, p, size, 0, sigma, *block);
	}
	else
	{
		double	   *proj = malloc(sizeof(double) * (size_t) size * size);
		int			r = 0;

		*block = malloc(sizeof(double) * ((size_t) size * p + (size_t) size * size));
		CHECK(gsu_nystroem_build(n, p, x, size, sigma, 5, *block, proj, &r, NULL) == GSU_OK,
			  "nystroem build");
		memcpy(*block + (size_t) size * p, proj, sizeof(double) * (size_t) size * r);
		gsu_featmap_bind(f, GSU_MAP_NYSTROEM, p, r, size, sigma, *block);
		free(proj);
	}
}

/*
 * gsu_featmap_row_term: its subgradient against central differences (ρ is
 * piecewise linear in w, so away from its kinks they agree to rounding),
 * ρ ≥ 0, and no sampled perturbation δ ∈ U mapped through φ raises the
 * loss by more than ρ: −y wᵀ(φ(x + δ) − φ(x)) ≤ ρ(w).
 */
static void
test_row_term(void)
{
	int			n = 6,
				p = 3,
				samples = quick ? 200 : 2000;
	double		sigma = 1.1,
				gamma = 1.5;
	double		x[18],
				var[18];
	gsu_rng		rng;

	gsu_rng_seed(&rng, 31);
	random_points(&rng, n, p, 1.0, x);
	for (int k = 0; k < n * p; k++)
		var[k] = 0.01 + 0.05 * gsu_rng_uniform(&rng);
	for (int kind = GSU_MAP_RFF; kind <= GSU_MAP_NYSTROEM; kind++)
		for (int pn = 0; pn <= 2; pn++)
		{
			gsu_featmap f;
			double	   *block;
			double	   *box,
					   *work,
					   *mwork,
					   *w,
					   *dir,
					   *g,
					   *wp,
					   *phi0,
					   *phi,
					   *u = malloc(sizeof(double) * p),
					   *delta = malloc(sizeof(double) * p),
					   *z = malloc(sizeof(double) * p);
			size_t		bl;
			int			D;
			gsu_featmap_rows rows = {0};

			make_map(&f, kind, n, p, x, kind == GSU_MAP_RFF ? 12 : 5, sigma, &block);
			D = f.dim;
			bl = gsu_featmap_box_len(&f);
			CHECK(bl == 2 * (size_t) (kind == GSU_MAP_RFF ? D : 5), "box len %zu", bl);
			box = malloc(sizeof(double) * bl * n);
			work = malloc(sizeof(double) * gsu_featmap_box_work_size(&f));
			mwork = malloc(sizeof(double) * gsu_featmap_work_size(&f));
			w = malloc(sizeof(double) * D);
			dir = malloc(sizeof(double) * D);
			g = malloc(sizeof(double) * D);
			wp = malloc(sizeof(double) * D);
			phi0 = malloc(sizeof(double) * D);
			phi = malloc(sizeof(double) * D);
			for (int i = 0; i < n; i++)
				CHECK(gsu_featmap_row_box(&f, x + i * p, COV3(var + i * p, 0.0, NULL), gamma, pn,
										  box + bl * i, work) == GSU_OK, "box %d", i);
			CHECK(gsu_featmap_row_box(&f, x, COV3(var, 0.0, NULL), gamma, 3, box, work) == GSU_EINVAL,
				  "p = 3");
			rows.f = &f;
			rows.x = x;
			rows.box = box;
			rows.work = work;
			for (int i = 0; i < n; i++)
			{
				double		y = (i % 2) ? 1.0 : -1.0,
							rho,
							fd,
							gd,
							h = 1e-6,
							rp,
							rm,
							worst = -INFINITY;

				for (int k = 0; k < D; k++)
				{
					w[k] = gsu_rng_normal(&rng);
					dir[k] = gsu_rng_normal(&rng);
					g[k] = 0.0;
				}
				rho = gsu_featmap_row_term(&rows, i, w, y, 1.0, g);
				CHECK(rho >= 0.0, "rho %g < 0", rho);
				CHECK(gsu_featmap_row_term(&rows, i, w, y, 0.0, NULL) == rho, "value without grad");
				for (int k = 0; k < D; k++)
					wp[k] = w[k] + h * dir[k];
				rp = gsu_featmap_row_term(&rows, i, wp, y, 0.0, NULL);
				for (int k = 0; k < D; k++)
					wp[k] = w[k] - h * dir[k];
				rm = gsu_featmap_row_term(&rows, i, wp, y, 0.0, NULL);
				fd = (rp - rm) / (2.0 * h);
				gd = dot(D, g, dir);
				CHECK(fabs(fd - gd) <= 1e-6 * (1.0 + fabs(gd)),
					  "kind %d p %d row %d: fd %g grad %g", kind, pn, i, fd, gd);
				/* positively homogeneous: ρ(2w) = 2ρ(w), and ρ(w) = gᵀw */
				for (int k = 0; k < D; k++)
					wp[k] = 2.0 * w[k];
				CHECK_CLOSE(gsu_featmap_row_term(&rows, i, wp, y, 0.0, NULL), 2.0 * rho, 1e-12);
				CHECK_CLOSE(dot(D, g, w), rho, 1e-12);
				/* sampled worst case never exceeds ρ */
				gsu_featmap_apply(&f, x + i * p, phi0, mwork);
				for (int s = 0; s < samples; s++)
				{
					double		val = 0.0;

					sample_ball(&rng, p, pn, gamma, u);
					apply_root(p, var + i * p, 0.0, NULL, u, delta);
					for (int k = 0; k < p; k++)
						z[k] = x[i * p + k] + delta[k];
					gsu_featmap_apply(&f, z, phi, mwork);
					for (int k = 0; k < D; k++)
						val -= y * w[k] * (phi[k] - phi0[k]);
					CHECK(val <= rho + 1e-12, "kind %d p %d row %d: sampled %g > %g",
						  kind, pn, i, val, rho);
					worst = fmax(worst, val);
				}
				/* and the box is not vacuous: samples reach a good part of it */
				CHECK(worst > 0.05 * rho, "kind %d p %d row %d: sampled %g of %g",
					  kind, pn, i, worst, rho);
			}
			free(block);
			free(box);
			free(work);
			free(mwork);
			free(w);
			free(dir);
			free(g);
			free(wp);
			free(phi0);
			free(phi);
			free(u);
			free(delta);
			free(z);
		}
}

/*
 * Couellan & Jan's own bounds (gsu_featmap_cj.c): for RFF with every p and
 * p̄ the sampled ‖R_iΔφ‖_p̄ stay within Γ_i (Prop. 4.1); for both maps the
 * term Γ_i‖R_i^{−T}w‖_q̄ bounds every sampled −y wᵀΔφ (Prop. 4.2 for
 * Nyström, p̄ = 2), its subgradient matches central differences, it is
 * positively homogeneous, and the paper's unsupported cases are refused.
 */
static void
test_cj_bounds(void)
{
	int			n = 6,
				p = 3,
				samples = quick ? 200 : 2000;
	double		sigma = 1.1,
				gamma = 1.5;
	double		x[18],
				var[18];
	gsu_rng		rng;

	gsu_rng_seed(&rng, 37);
	random_points(&rng, n, p, 1.0, x);
	for (int k = 0; k < n * p; k++)
		var[k] = 0.01 + 0.05 * gsu_rng_uniform(&rng);
	for (int kind = GSU_MAP_RFF; kind <= GSU_MAP_NYSTROEM; kind++)
		for (int pn = 0; pn <= 2; pn++)
			for (int pbar = 0; pbar <= 2; pbar++)
			{
				gsu_featmap f;
				double	   *block,
						   *work,
						   *mwork,
						   *w,
						   *dir,
						   *g,
						   *wp,
						   *phi0,
						   *phi,
						   *v,
						   *cs,
							u[3],
							delta[3],
							z[3],
							Gamma[6];
				int			D;
				gsu_featmap_rows rows = {0};

				make_map(&f, kind, n, p, x, kind == GSU_MAP_RFF ? 12 : 5, sigma, &block);
				D = f.dim;
				work = malloc(sizeof(double) * gsu_featmap_bound_work_size(&f, 1));
				mwork = malloc(sizeof(double) * gsu_featmap_work_size(&f));
				w = malloc(sizeof(double) * D);
				dir = malloc(sizeof(double) * D);
				g = malloc(sizeof(double) * D);
				wp = malloc(sizeof(double) * D);
				phi0 = malloc(sizeof(double) * D);
				phi = malloc(sizeof(double) * D);
				v = malloc(sizeof(double) * D);
				cs = malloc(sizeof(double) * D);
				CHECK(gsu_featmap_bound_len(&f, 1) == 1, "one Gamma a row");
				if (kind == GSU_MAP_NYSTROEM && pbar != 2)
				{
					CHECK(gsu_cj_row_gamma(&f, x, COV3(var, 0.0, NULL), gamma, pn, pbar, Gamma,
										   work) == GSU_EINVAL, "nystroem p-bar %d", pbar);
					goto next;
				}
				CHECK(gsu_cj_row_gamma(&f, x, COV3(var, 0.0, NULL), gamma, 3, pbar, Gamma,
									   work) == GSU_EINVAL, "p = 3");
				for (int i = 0; i < n; i++)
					CHECK(gsu_cj_row_gamma(&f, x + i * p, COV3(var + i * p, 0.0, NULL), gamma, pn,
										   pbar, Gamma + i, work) == GSU_OK &&
						  isfinite(Gamma[i]) && Gamma[i] > 0.0, "Gamma %d", i);
				rows.f = &f;
				rows.x = x;
				rows.box = Gamma;
				rows.work = work;
				rows.cj = 1;
				rows.pbar = pbar;
				for (int i = 0; i < n; i++)
				{
					double		y = (i % 2) ? 1.0 : -1.0,
								h = 1e-6,
								rho,
								rp,
								rm,
								fd,
								gd;

					for (int k = 0; k < D; k++)
					{
						w[k] = gsu_rng_normal(&rng);
						dir[k] = gsu_rng_normal(&rng);
						g[k] = 0.0;
					}
					rho = gsu_featmap_row_term(&rows, i, w, y, 1.0, g);
					CHECK(rho > 0.0, "rho %g", rho);
					for (int k = 0; k < D; k++)
						wp[k] = w[k] + h * dir[k];
					rp = gsu_featmap_row_term(&rows, i, wp, y, 0.0, NULL);
					for (int k = 0; k < D; k++)
						wp[k] = w[k] - h * dir[k];
					rm = gsu_featmap_row_term(&rows, i, wp, y, 0.0, NULL);
					fd = (rp - rm) / (2.0 * h);
					gd = dot(D, g, dir);
					CHECK(fabs(fd - gd) <= 1e-6 * (1.0 + fabs(gd)),
						  "kind %d p %d p-bar %d row %d: fd %g grad %g", kind, pn, pbar, i, fd, gd);
					CHECK_CLOSE(dot(D, g, w), rho, 1e-12 * (1.0 + rho));
					gsu_featmap_apply(&f, x + i * p, phi0, mwork);
					for (int s = 0; s < samples; s++)
					{
						double		val = 0.0;

						sample_ball(&rng, p, pn, gamma, u);
						apply_root(p, var + i * p, 0.0, NULL, u, delta);
						for (int k = 0; k < p; k++)
							z[k] = x[i * p + k] + delta[k];
						gsu_featmap_apply(&f, z, phi, mwork);
						for (int k = 0; k < D; k++)
						{
							val -= y * w[k] * (phi[k] - phi0[k]);
							phi[k] -= phi0[k];
						}
						CHECK(val <= rho * (1.0 + 1e-12), "kind %d p %d p-bar %d row %d: sampled %g > %g",
							  kind, pn, pbar, i, val, rho);
						if (kind == GSU_MAP_RFF)
						{
							/* Prop. 4.1 itself: ‖R_iΔφ‖_p̄ ≤ Γ_i */
							double		nrm = 0.0;

							gsu_rff_rotate(&f, x + i * p, phi, v, cs);
							for (int k = 0; k < D; k++)
								nrm = pbar == 1 ? nrm + fabs(v[k]) : pbar == 2 ? nrm + v[k] * v[k] :
									fmax(nrm, fabs(v[k]));
							if (pbar == 2)
								nrm = sqrt(nrm);
							CHECK(nrm <= Gamma[i] * (1.0 + 1e-12), "p %d p-bar %d row %d: |R dphi| %g > %g",
								  pn, pbar, i, nrm, Gamma[i]);
						}
					}
				}
		next:
				free(block);
				free(work);
				free(mwork);
				free(w);
				free(dir);
				free(g);
				free(wp);
				free(phi0);
				free(phi);
				free(v);
				free(cs);
			}
	/* poly2 has no bound of the paper's */
	{
		gsu_featmap f;
		double		work[4],
					G;

		gsu_featmap_bind(&f, GSU_MAP_POLY2, 2, 3, 0, 0.0, NULL);
		CHECK(gsu_cj_row_gamma(&f, x, COV3(var, 0.0, NULL), gamma, 2, 2, &G, work) == GSU_EINVAL,
			  "poly2");
	}
}

/*
 * The robust core with the row_term callback: the objective's subgradient
 * against central differences, γ = 0 giving the hinge loss, Pegasos
 * lowering the objective below F(0) = 1, and the smoothed paths refusing it.
 */
static void
test_row_term_training(void)
{
	int			n = 40,
				p = 2,
				D = 16;
	double		x[80],
				var[80],
				y[40],
				theta[17],
				tp[17],
				grad[17],
				dir[17],
				f0,
				fp,
				fm,
				fz,
				h = 1e-6;
	double	   *phi = malloc(sizeof(double) * n * D),
			   *box,
			   *work,
			   *mwork,
			   *block;
	gsu_featmap f;
	gsu_featmap_rows rows = {0};
	gsu_robust_data rd;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_rng		rng;

	gsu_rng_seed(&rng, 77);
	/* two noisy rings: radius 0.5 (−1) and 1.5 (+1) */
	for (int i = 0; i < n; i++)
	{
		double		a = 2.0 * M_PI * gsu_rng_uniform(&rng),
					r = (i % 2) ? 1.5 : 0.5;

		y[i] = (i % 2) ? 1.0 : -1.0;
		x[2 * i] = r * cos(a) + 0.05 * gsu_rng_normal(&rng);
		x[2 * i + 1] = r * sin(a) + 0.05 * gsu_rng_normal(&rng);
		var[2 * i] = var[2 * i + 1] = 0.01;
	}
	make_map(&f, GSU_MAP_RFF, n, p, x, D, 1.0, &block);
	box = malloc(sizeof(double) * gsu_featmap_box_len(&f) * n);
	work = malloc(sizeof(double) * gsu_featmap_box_work_size(&f));
	mwork = malloc(sizeof(double) * gsu_featmap_work_size(&f));
	for (int i = 0; i < n; i++)
	{
		gsu_featmap_apply(&f, x + 2 * i, phi + (size_t) i * D, mwork);
		CHECK(gsu_featmap_row_box(&f, x + 2 * i, COV3(var + 2 * i, 0.0, NULL), 1.0, 2,
								  box + gsu_featmap_box_len(&f) * i, work) == GSU_OK, "box");
	}
	rows.f = &f;
	rows.x = x;
	rows.box = box;
	rows.work = work;
	memset(&rd, 0, sizeof(rd));
	rd.n = n;
	rd.d = D;
	rd.x = phi;
	rd.y = y;
	rd.loss = GSU_RLOSS_ROBUST;
	rd.gamma = 1.0;
	rd.q = 2;
	rd.row_term = gsu_featmap_row_term;
	rd.row_term_arg = &rows;
	for (int k = 0; k <= D; k++)
	{
		theta[k] = 0.3 * gsu_rng_normal(&rng);
		dir[k] = gsu_rng_normal(&rng);
	}
	CHECK(gsu_robust_objective(&rd, 0.1, 0.0, theta, &f0, grad) == GSU_OK, "objective");
	for (int k = 0; k <= D; k++)
		tp[k] = theta[k] + h * dir[k];
	gsu_robust_objective(&rd, 0.1, 0.0, tp, &fp, NULL);
	for (int k = 0; k <= D; k++)
		tp[k] = theta[k] - h * dir[k];
	gsu_robust_objective(&rd, 0.1, 0.0, tp, &fm, NULL);
	CHECK(fabs((fp - fm) / (2.0 * h) - dot(D + 1, grad, dir)) <= 1e-6 * (1.0 + fabs(dot(D + 1, grad, dir))),
		  "fd %g grad %g", (fp - fm) / (2.0 * h), dot(D + 1, grad, dir));
	/* the worst case only adds: F with the boxes ≥ F of the plain hinge */
	rd.row_term = NULL;
	rd.gamma = 0.0;
	CHECK(gsu_robust_objective(&rd, 0.1, 0.0, theta, &fz, NULL) == GSU_OK, "hinge");
	CHECK(fz <= f0 + 1e-15, "hinge %g > worst case %g", fz, f0);
	rd.row_term = gsu_featmap_row_term;
	rd.gamma = 1.0;
	/* smoothed paths do not take the callback */
	gsu_solve_options_default(&o);
	o.lambda = 0.01;
	o.epochs = 20;
	o.batch_size = 1;
	o.seed = 3;
	CHECK(gsu_robust_objective(&rd, 0.1, 0.1, theta, &fp, NULL) == GSU_EINVAL, "mu > 0");
	CHECK(gsu_robust_dual_gap(&rd, 0.1, 0.1, theta, &fp, &fm) == GSU_EINVAL, "gap");
	memset(tp, 0, sizeof(tp));
	CHECK(gsu_robust_solve_batch(&rd, &o, tp, &res) == GSU_EINVAL, "batch");
	/* Pegasos: below F(0) = 1, and its reported objective is F at the result */
	memset(theta, 0, sizeof(theta));
	CHECK(gsu_robust_solve_pegasos(&rd, &o, theta, &res) == GSU_OK, "pegasos");
	CHECK(res.objective < 0.8, "objective %g", res.objective);
	gsu_robust_objective(&rd, 0.01, 0.0, theta, &f0, NULL);
	CHECK_CLOSE(res.objective, f0, 1e-12);
	{
		int			correct = 0;

		for (int i = 0; i < n; i++)
			correct += y[i] * (dot(D, theta, phi + (size_t) i * D) + theta[D]) > 0.0;
		CHECK(correct >= n * 9 / 10, "%d of %d", correct, n);
	}
	free(phi);
	free(box);
	free(work);
	free(mwork);
	free(block);
}

/* ------------------------------------------------------------ poly2 */

/* the map "poly2": φ(x)ᵀφ(z) = (xᵀz)² exactly, its length and dimension */
static void
test_poly2_kernel(void)
{
	gsu_rng		rng;

	CHECK(gsu_poly2_dim(1) == 1 && gsu_poly2_dim(3) == 6 && gsu_poly2_dim(1000) == 500500,
		  "dim");
	CHECK(gsu_poly2_dim(0) == -1, "p = 0");
	CHECK(gsu_featmap_length(GSU_MAP_POLY2, 6, 3, 0) == 0, "poly2 has no block");
	CHECK(gsu_featmap_length(GSU_MAP_POLY2, 5, 3, 0) == -1, "wrong D");
	CHECK(gsu_featmap_length(GSU_MAP_POLY2, 6, 3, 2) == -1, "poly2 with landmarks");
	gsu_rng_seed(&rng, 41);
	for (int p = 1; p <= 7; p++)
	{
		int			D = (int) gsu_poly2_dim(p);
		double		x[7],
					z[7],
					px[28],
					pz[28];
		gsu_featmap f;

		gsu_featmap_bind(&f, GSU_MAP_POLY2, p, D, 0, 0.0, NULL);
		CHECK(gsu_featmap_apply_work_size(&f) == 0, "no scratch");
		for (int t = 0; t < 50; t++)
		{
			double		k;

			random_points(&rng, 1, p, 3.0, x);
			random_points(&rng, 1, p, 3.0, z);
			gsu_featmap_apply(&f, x, px, NULL);
			gsu_featmap_apply(&f, z, pz, NULL);
			k = dot(p, x, z) * dot(p, x, z);
			CHECK(fabs(dot(D, px, pz) - k) <= 1e-13 * (1.0 + dot(p, x, x) * dot(p, z, z)),
				  "p %d: %.17g vs (x'z)^2 %.17g", p, dot(D, px, pz), k);
		}
		/* the order (0,0), (0,1), …: the first entries of φ(x) */
		x[0] = 2.0;
		if (p > 1)
			x[1] = 3.0;
		gsu_featmap_apply(&f, x, px, NULL);
		CHECK(px[0] == 4.0, "x_1^2");
		if (p > 1)
			CHECK_CLOSE(px[1], sqrt(2.0) * 6.0, 1e-14);
	}
}

/*
 * The Isserlis moments against Monte Carlo (10⁶ draws, 6 standard errors
 * each: the diagonal by check_moments_mc, every entry of the full
 * covariance and wᵀCw of the pair sum by check_cov_mc), diagonal,
 * isotropic and full Σ.
 */
static void
test_moments_poly2(void)
{
	int			p = 3,
				D = 6,
				N = quick ? 50000 : 1000000;
	double		mu[3] = {0.8, -1.3, 0.4},
				var[3] = {0.3, 0.05, 0.6},
				e[3] = {0.1, 0.5, 0.9},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_featmap_bind(&f, GSU_MAP_POLY2, p, D, 0, 0.0, NULL);
	check_moments_mc(&f, mu, var, 0.0, NULL, NULL, N, 1);
	check_moments_mc(&f, mu, NULL, 0.4, NULL, NULL, N, 2);
	gsu_rng_seed(&rng, 17);
	make_cov(&rng, p, e, cov, root);
	check_moments_mc(&f, mu, NULL, 0.0, cov, root, N, 3);
	check_cov_mc(&f, mu, var, 0.0, NULL, NULL, N, 4);
	check_cov_mc(&f, mu, NULL, 0.0, cov, root, N, 5);
	/* the stated closed forms, entry by entry (full Σ) */
	{
		double		mean[6],
					v[6];
		int			a = 0;

		gsu_featmap_moments(&f, mu, FULL_COV(cov), mean, v, NULL, NULL);
		for (int i = 0; i < p; i++)
			for (int j = i; j < p; j++, a++)
			{
				double		sii = cov[i * p + i],
							sjj = cov[j * p + j],
							sij = cov[i * p + j];

				if (i == j)
				{
					CHECK_CLOSE(mean[a], mu[i] * mu[i] + sii, 1e-14);
					CHECK_CLOSE(v[a], 4 * mu[i] * mu[i] * sii + 2 * sii * sii, 1e-13);
				}
				else
				{
					CHECK_CLOSE(mean[a], sqrt(2.0) * (mu[i] * mu[j] + sij), 1e-14);
					CHECK_CLOSE(v[a], 2 * (mu[i] * mu[i] * sjj + mu[j] * mu[j] * sii +
										   2 * mu[i] * mu[j] * sij + sii * sjj + sij * sij),
								1e-13);
				}
			}
	}
	/* Σ = 0: the moments are φ(μ) and 0 */
	{
		double		mean[6],
					v[6],
					phi[6],
					zero[3] = {0, 0, 0};

		gsu_featmap_moments(&f, mu, DIAG_COV(zero), mean, v, NULL, NULL);
		gsu_featmap_apply(&f, mu, phi, NULL);
		for (int j = 0; j < D; j++)
		{
			CHECK_CLOSE(mean[j], phi[j], 1e-15);
			CHECK(v[j] == 0.0, "%g", v[j]);
		}
	}
}

/*
 * The poly2 worst-case box: every φ(x + δ) − φ(x), δ sampled in the input
 * set U (p = 1, 2, ∞; diagonal and full Σ), lies in the row box, and the
 * row term bounds −y wᵀΔφ from above; its subgradient matches a finite
 * difference.
 */
static void
check_poly2_bounds(const gsu_featmap *f, const double *x, const double *var, double iso,
				   const double *cov, const double *root, double gamma, int p, int samples,
				   uint64_t seed)
{
	int			D = f->dim,
				d = f->p;
	double	   *box = malloc(sizeof(double) * gsu_featmap_box_len(f)),
			   *work = malloc(sizeof(double) * gsu_featmap_box_work_size(f)),
			   *w = malloc(sizeof(double) * D),
			   *phi0 = malloc(sizeof(double) * D),
			   *phi = malloc(sizeof(double) * D),
			   *grad = calloc(D, sizeof(double)),
			   *u = malloc(sizeof(double) * d),
			   *delta = malloc(sizeof(double) * d),
			   *z = malloc(sizeof(double) * d);
	double	   *lo = box,
			   *hi = box + D,
				rho,
				sampled = -INFINITY;
	gsu_featmap_rows rows = {f, x, box, work, 0, 0};
	gsu_rng		rng;

	CHECK(gsu_featmap_box_len(f) == 2 * (size_t) D, "box length");
	CHECK(gsu_featmap_row_box(f, x, COV3(var, iso, cov), gamma, p, box, work) == GSU_OK, "box");
	gsu_rng_seed(&rng, seed);
	for (int k = 0; k < D; k++)
	{
		w[k] = gsu_rng_normal(&rng);
		CHECK(lo[k] <= 0.0 && hi[k] >= 0.0, "box %d [%g, %g] holds 0", k, lo[k], hi[k]);
	}
	rho = gsu_featmap_row_term(&rows, 0, w, 1.0, 1.0, grad);
	gsu_featmap_apply(f, x, phi0, NULL);
	for (int s = 0; s < samples; s++)
	{
		double		val = 0.0;

		sample_ball(&rng, d, p, gamma, u);
		apply_root(d, var, iso, root, u, delta);
		for (int k = 0; k < d; k++)
			z[k] = x[k] + delta[k];
		gsu_featmap_apply(f, z, phi, NULL);
		for (int k = 0; k < D; k++)
		{
			double		t = phi[k] - phi0[k];

			CHECK(t >= lo[k] - 1e-12 * (1 + fabs(lo[k])) && t <= hi[k] + 1e-12 * (1 + hi[k]),
				  "feature %d: %g outside [%g, %g]", k, t, lo[k], hi[k]);
			val -= w[k] * t;
		}
		CHECK(val <= rho + 1e-12 * (1 + fabs(rho)), "sampled %g > bound %g", val, rho);
		sampled = fmax(sampled, val);
	}
	CHECK(sampled > -INFINITY && sampled <= rho, "samples");
	/* the symmetric relaxation ‖A w‖_1 bounds ρ from above */
	{
		double	   *A = malloc(sizeof(double) * D * D),
					relax = 0.0;

		gsu_poly2_bound_matrix(f, lo, hi, A);
		for (int k = 0; k < D; k++)
			relax += fabs(dot(D, A + (size_t) k * D, w));
		CHECK(relax >= rho - 1e-12, "relaxation %g < %g", relax, rho);
		free(A);
	}
	/* ρ is piecewise linear in w: a small step along the subgradient's sign pattern */
	{
		double		h = 1e-7,
					r1;

		for (int k = 0; k < D; k++)
		{
			double		g2[64] = {0};

			w[k] += h;
			r1 = gsu_featmap_row_term(&rows, 0, w, 1.0, 1.0, g2);
			w[k] -= h;
			CHECK(fabs((r1 - rho) / h - grad[k]) <= 1e-5 * (1 + fabs(grad[k])),
				  "grad %d: %g vs %g", k, grad[k], (r1 - rho) / h);
		}
	}
	free(box);
	free(work);
	free(w);
	free(phi0);
	free(phi);
	free(grad);
	free(u);
	free(delta);
	free(z);
}

static void
test_poly2_bounds(void)
{
	int			d = 3,
				D = 6,
				samples = quick ? 500 : 5000;
	double		x[3] = {0.7, -0.1, 1.5},
				var[3] = {0.2, 0.5, 0.05},
				e[3] = {0.1, 0.3, 0.8},
				cov[9],
				root[9];
	gsu_featmap f;
	gsu_rng		rng;

	gsu_featmap_bind(&f, GSU_MAP_POLY2, d, D, 0, 0.0, NULL);
	gsu_rng_seed(&rng, 23);
	make_cov(&rng, d, e, cov, root);
	for (int p = 0; p <= 2; p++)
	{
		check_poly2_bounds(&f, x, var, 0.0, NULL, NULL, 1.2, p, samples, 100 + p);
		check_poly2_bounds(&f, x, NULL, 0.3, NULL, NULL, 0.8, p, samples, 200 + p);
		check_poly2_bounds(&f, x, NULL, 0.0, cov, root, 1.0, p, samples, 300 + p);
	}
	/* one coordinate: the box is exact, [−x², 2|x|τ + τ²] when |x| ≤ τ */
	{
		gsu_featmap f1;
		double		x1 = 0.5,
					v1 = 1.0,
					box[2],
					work[1];

		gsu_featmap_bind(&f1, GSU_MAP_POLY2, 1, 1, 0, 0.0, NULL);
		CHECK(gsu_featmap_row_box(&f1, &x1, DIAG_COV(&v1), 2.0, 2, box, work) == GSU_OK, "box");
		CHECK_CLOSE(box[0], -0.25, 1e-15);
		CHECK_CLOSE(box[1], 2 * 0.5 * 2 + 4, 1e-15);
	}
}

static const gsu_test_case tests[] = {
	{"map_length", test_map_length},
	{"rff_kernel", test_rff_kernel},
	{"nystroem_kernel", test_nystroem_kernel},
	{"nystroem_huge_sigma", test_nystroem_huge_sigma},
	{"moments_rff", test_moments_rff},
	{"moments_nystroem", test_moments_nystroem},
	{"covariance", test_covariance},
	{"rff_bounds", test_rff_bounds},
	{"nystroem_bounds", test_nystroem_bounds},
	{"nystroem_ellipsoid_exact", test_nystroem_ellipsoid_exact},
	{"radius", test_radius},
	{"row_term", test_row_term},
	{"row_term_training", test_row_term_training},
	{"cj_bounds", test_cj_bounds},
	{"poly2_kernel", test_poly2_kernel},
	{"moments_poly2", test_moments_poly2},
	{"poly2_bounds", test_poly2_bounds},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
