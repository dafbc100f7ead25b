/*
 * test_geu.c — unit tests of src/core/gsu_geu.c against independent
 * references computed here: two-pass means and scatters, Laplacians built
 * entry by entry from the graph definitions (Yan et al. 2007), X L Xᵀ by
 * dense triple sums, the GEU expectation E[X L Xᵀ] = X L Xᵀ + Σ L_ii Σ_i by
 * Monte Carlo, MFA graphs by sorting every pair, the generalized eigenvalues
 * by a local Cholesky + cyclic Jacobi, and two-class LDA by Fisher's
 * closed form S_w⁻¹(μ₁ − μ₀).
 *
 * Output: diagnostics on stderr, then "N passed, M failed" on stdout; exit
 * status non-zero on failure.  GSU_TEST_QUICK=1 shrinks the sizes.
 */
#include "gsu_geu.h"
#include "gsu_nn.h"
#include "gsu_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 7;

/* the shared splitmix64 generator (test/gsu_test.c) on this file's state */
#define next_u64() test_next_u64(&rng_state)
#define unif() test_unif(&rng_state)

static double
gauss(void)
{
	double		u = unif(),
				v = unif();

	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static double
maxabs(size_t n, const double *a)
{
	double		m = 0.0;
	size_t		i;

	for (i = 0; i < n; i++)
		if (fabs(a[i]) > m)
			m = fabs(a[i]);
	return m;
}

static double
maxdiff(size_t n, const double *a, const double *b)
{
	double		m = 0.0;
	size_t		i;

	for (i = 0; i < n; i++)
		if (fabs(a[i] - b[i]) > m || isnan(a[i] - b[i]))
			m = isnan(a[i] - b[i]) ? INFINITY : fabs(a[i] - b[i]);
	return m;
}

/* ------------------------------------------------------------ references */

/* S = Σ_ij L_ij x_i x_jᵀ + Σ_i L_ii Σ_i (diagonal Σ_i = var rows, may be NULL) */
static void
ref_xlx(int n, int d, const double *x, const double *L, const double *var, double *S)
{
	int			i,
				j,
				a,
				b;

	memset(S, 0, sizeof(double) * d * d);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
		{
			double		l = L[i * n + j];

			if (l == 0.0)
				continue;
			for (a = 0; a < d; a++)
				for (b = 0; b < d; b++)
					S[a * d + b] += l * x[i * d + a] * x[j * d + b];
		}
	if (var)
		for (i = 0; i < n; i++)
			for (a = 0; a < d; a++)
				S[a * d + a] += L[i * n + i] * var[i * d + a];
}

/* Laplacian of a weight matrix: L = D − W, D_ii = Σ_j W_ij */
static void
laplacian(int n, const double *W, double *L)
{
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		double		deg = 0.0;

		for (j = 0; j < n; j++)
		{
			deg += W[i * n + j];
			L[i * n + j] = -W[i * n + j];
		}
		L[i * n + i] += deg;
	}
}

/* Yan et al.'s LDA graphs: W_ij = 1/n_c (same class c, self-loops included), W^p_ij = 1/N */
static void
lda_graphs(int n, const int32_t *lab, double *L, double *Lp)
{
	double	   *W = calloc((size_t) n * n, sizeof(double));
	int			i,
				j;

	for (i = 0; i < n; i++)
	{
		int			nc = 0;

		for (j = 0; j < n; j++)
			nc += lab[j] == lab[i];
		for (j = 0; j < n; j++)
			W[i * n + j] = lab[j] == lab[i] ? 1.0 / nc : 0.0;
	}
	laplacian(n, W, L);
	for (i = 0; i < n * n; i++)
		W[i] = 1.0 / n;
	laplacian(n, W, Lp);
	free(W);
}

/* class statistics the way the glue keeps them: labels in order of first appearance */
typedef struct classes
{
	int			c;
	int32_t		label[16];
	int64_t		n[16];
	double	   *mean,
			   *m2,
			   *vdiag;
} classes;

static void
classes_build(classes *cl, int n, int d, const double *x, const int32_t *lab, const double *var)
{
	double	   *work = malloc(sizeof(double) * d);
	int			i,
				k,
				l;

	cl->c = 0;
	cl->mean = calloc(16 * (size_t) d, sizeof(double));
	cl->m2 = calloc(16 * (size_t) d * d, sizeof(double));
	cl->vdiag = calloc(16 * (size_t) d, sizeof(double));
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < cl->c; k++)
			if (cl->label[k] == lab[i])
				break;
		if (k == cl->c)
		{
			cl->label[k] = lab[i];
			cl->n[k] = 0;
			cl->c++;
		}
		gsu_stats_add(d, &cl->n[k], cl->mean + k * d, cl->m2 + k * d * d, x + i * d, work);
		if (var)
			for (l = 0; l < d; l++)
				cl->vdiag[k * d + l] += var[i * d + l];
	}
	free(work);
}

static void
classes_free(classes *cl)
{
	free(cl->mean);
	free(cl->m2);
	free(cl->vdiag);
}

/* Cholesky B = R Rᵀ (lower R, in place); 0 when B is not positive definite */
static int
ref_cholesky(int d, double *B)
{
	int			i,
				j,
				k;

	for (j = 0; j < d; j++)
	{
		double		s = B[j * d + j];

		for (k = 0; k < j; k++)
			s -= B[j * d + k] * B[j * d + k];
		if (!(s > 0.0))
			return 0;
		B[j * d + j] = sqrt(s);
		for (i = j + 1; i < d; i++)
		{
			double		t = B[i * d + j];

			for (k = 0; k < j; k++)
				t -= B[i * d + k] * B[j * d + k];
			B[i * d + j] = t / B[j * d + j];
		}
		for (i = 0; i < j; i++)
			B[i * d + j] = 0.0;
	}
	return 1;
}

/* eigenvalues of the symmetric C (destroyed) by cyclic Jacobi, sorted ascending */
static void
ref_jacobi(int d, double *C, double *ev)
{
	int			sweep,
				p,
				q,
				k;

	for (sweep = 0; sweep < 100; sweep++)
	{
		double		off = 0.0;

		for (p = 0; p < d; p++)
			for (q = p + 1; q < d; q++)
				off += C[p * d + q] * C[p * d + q];
		if (off < 1e-30 * (1.0 + maxabs((size_t) d * d, C)))
			break;
		for (p = 0; p < d; p++)
			for (q = p + 1; q < d; q++)
			{
				double		apq = C[p * d + q],
							theta,
							t,
							c,
							s;

				if (fabs(apq) < 1e-300)
					continue;
				theta = (C[q * d + q] - C[p * d + p]) / (2.0 * apq);
				t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
				c = 1.0 / sqrt(t * t + 1.0);
				s = t * c;
				for (k = 0; k < d; k++)
				{
					double		akp = C[k * d + p],
								akq = C[k * d + q];

					C[k * d + p] = c * akp - s * akq;
					C[k * d + q] = s * akp + c * akq;
				}
				for (k = 0; k < d; k++)
				{
					double		apk = C[p * d + k],
								aqk = C[q * d + k];

					C[p * d + k] = c * apk - s * aqk;
					C[q * d + k] = s * apk + c * aqk;
				}
			}
	}
	for (k = 0; k < d; k++)
		ev[k] = C[k * d + k];
	qsort(ev, (size_t) d, sizeof(double), cmp_double);
}

/* generalized eigenvalues of A v = λ B v: eig(R⁻¹ A R⁻ᵀ), B = R Rᵀ */
static int
ref_geneig(int d, const double *A, const double *B, double *ev)
{
	double	   *R = malloc(sizeof(double) * d * d),
			   *T = malloc(sizeof(double) * d * d),
			   *C = malloc(sizeof(double) * d * d);
	int			i,
				j,
				k,
				ok;

	memcpy(R, B, sizeof(double) * d * d);
	ok = ref_cholesky(d, R);
	if (ok)
	{
		/* T = R⁻¹ A (forward substitution per column), C = R⁻¹ Tᵀ */
		for (j = 0; j < d; j++)
			for (i = 0; i < d; i++)
			{
				double		s = A[i * d + j];

				for (k = 0; k < i; k++)
					s -= R[i * d + k] * T[k * d + j];
				T[i * d + j] = s / R[i * d + i];
			}
		for (j = 0; j < d; j++)
			for (i = 0; i < d; i++)
			{
				double		s = T[j * d + i];

				for (k = 0; k < i; k++)
					s -= R[i * d + k] * C[k * d + j];
				C[i * d + j] = s / R[i * d + i];
			}
		ref_jacobi(d, C, ev);
	}
	free(R);
	free(T);
	free(C);
	return ok;
}

/* solve M z = r by Gaussian elimination with partial pivoting (M destroyed) */
static void
ref_solve(int d, double *M, double *r)
{
	int			i,
				j,
				k;

	for (k = 0; k < d; k++)
	{
		int			p = k;

		for (i = k + 1; i < d; i++)
			if (fabs(M[i * d + k]) > fabs(M[p * d + k]))
				p = i;
		for (j = 0; j < d; j++)
		{
			double		t = M[k * d + j];

			M[k * d + j] = M[p * d + j];
			M[p * d + j] = t;
		}
		{
			double		t = r[k];

			r[k] = r[p];
			r[p] = t;
		}
		for (i = k + 1; i < d; i++)
		{
			double		f = M[i * d + k] / M[k * d + k];

			for (j = k; j < d; j++)
				M[i * d + j] -= f * M[k * d + j];
			r[i] -= f * r[k];
		}
	}
	for (i = d - 1; i >= 0; i--)
	{
		double		s = r[i];

		for (j = i + 1; j < d; j++)
			s -= M[i * d + j] * r[j];
		r[i] = s / M[i * d + i];
	}
}

/* ---------------------------------------------------------------- tests */

static void
test_stats(void)
{
	int			n = 57,
				d = 4,
				i,
				a,
				b;
	double	   *x = malloc(sizeof(double) * n * d);
	double		mean[4] = {0},
				m2[16] = {0},
				ma[4] = {0},
				m2a[16] = {0},
				mb[4] = {0},
				m2b[16] = {0},
				rm[4] = {0},
				rs[16] = {0},
				work[4];
	int64_t		cnt = 0,
				na = 0,
				nb = 0;

	for (i = 0; i < n * d; i++)
		x[i] = 1e3 + gauss() * (1 + i % d);
	for (i = 0; i < n; i++)
	{
		gsu_stats_add(d, &cnt, mean, m2, x + i * d, work);
		if (i < 20)
			gsu_stats_add(d, &na, ma, m2a, x + i * d, work);
		else
			gsu_stats_add(d, &nb, mb, m2b, x + i * d, work);
	}
	gsu_stats_merge(d, &na, ma, m2a, nb, mb, m2b, work);
	/* two-pass reference */
	for (i = 0; i < n; i++)
		for (a = 0; a < d; a++)
			rm[a] += x[i * d + a] / n;
	for (i = 0; i < n; i++)
		for (a = 0; a < d; a++)
			for (b = 0; b < d; b++)
				rs[a * d + b] += (x[i * d + a] - rm[a]) * (x[i * d + b] - rm[b]);
	CHECK(cnt == n && na == n, "counts %lld %lld", (long long) cnt, (long long) na);
	for (a = 0; a < d; a++)
	{
		CHECK(fabs(mean[a] - rm[a]) < 1e-12 * fabs(rm[a]), "mean %d", a);
		CHECK(fabs(ma[a] - rm[a]) < 1e-12 * fabs(rm[a]), "merged mean %d", a);
		for (b = a; b < d; b++)
		{
			double		tol = 1e-10 * sqrt(rs[a * d + a] * rs[b * d + b]);

			CHECK(fabs(m2[a * d + b] - rs[a * d + b]) < tol, "m2 %d %d: %g vs %g", a, b,
				  m2[a * d + b], rs[a * d + b]);
			CHECK(fabs(m2a[a * d + b] - rs[a * d + b]) < tol, "merged m2 %d %d", a, b);
		}
	}
	/* merging into an empty state copies */
	{
		double		me[4] = {0},
					m2e[16] = {0};
		int64_t		ne = 0;

		gsu_stats_merge(d, &ne, me, m2e, cnt, mean, m2, work);
		CHECK(ne == n && maxdiff(4, me, mean) == 0.0 && m2e[1] == m2[1], "merge into empty");
	}
	free(x);
}

/* S, S^p from the class statistics equal X L Xᵀ + Σ L_ii Σ_i with Yan et al.'s LDA graphs */
static void
test_lda_scatter_vs_laplacian(void)
{
	int			n = 31,
				d = 5,
				i;
	double	   *x = malloc(sizeof(double) * n * d),
			   *var = malloc(sizeof(double) * n * d),
			   *L = malloc(sizeof(double) * n * n),
			   *Lp = malloc(sizeof(double) * n * n);
	int32_t		lab[31];
	double		S[25],
				Sp[25],
				RS[25],
				RSp[25],
				S0[25],
				Sp0[25],
				work[10];
	classes		cl;
	double		eps = 0.25;

	for (i = 0; i < n; i++)
		lab[i] = (int32_t) (i % 3) * 7 - 4;
	for (i = 0; i < n * d; i++)
	{
		x[i] = gauss() + (lab[i / d] == 3 ? 2.0 : 0.0);
		var[i] = unif();
	}
	classes_build(&cl, n, d, x, lab, var);
	CHECK(cl.c == 3, "classes %d", cl.c);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, cl.vdiag, NULL, eps, eps, S, Sp, work);
	lda_graphs(n, lab, L, Lp);
	ref_xlx(n, d, x, L, var, RS);
	ref_xlx(n, d, x, Lp, var, RSp);
	for (i = 0; i < d; i++)
	{
		RS[i * d + i] += eps;
		RSp[i * d + i] += eps;
	}
	CHECK(maxdiff(25, S, RS) < 1e-11 * maxabs(25, RS), "S differs by %g", maxdiff(25, S, RS));
	CHECK(maxdiff(25, Sp, RSp) < 1e-11 * maxabs(25, RSp), "Sp differs by %g", maxdiff(25, Sp, RSp));

	/* zero variances are the plain method, bit for bit */
	memset(cl.vdiag, 0, sizeof(double) * 16 * d);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, cl.vdiag, NULL, 0.0, 0.0, S, Sp, work);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, NULL, NULL, 0.0, 0.0, S0, Sp0, work);
	CHECK(memcmp(S, S0, sizeof(S)) == 0 && memcmp(Sp, Sp0, sizeof(Sp)) == 0,
		  "zero variances change the scatter");
	/* full covariances enter like diagonal ones */
	{
		double	   *vfull = calloc(16 * (size_t) d * d, sizeof(double));
		double		F[25],
					Fp[25];
		int			k,
					l;

		classes_free(&cl);
		classes_build(&cl, n, d, x, lab, var);
		for (k = 0; k < cl.c; k++)
			for (l = 0; l < d; l++)
				vfull[k * d * d + l * d + l] = cl.vdiag[k * d + l];
		gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, NULL, vfull, eps, eps, F, Fp, work);
		CHECK(maxdiff(25, F, RS) < 1e-11 * maxabs(25, RS), "full-covariance S");
		CHECK(maxdiff(25, Fp, RSp) < 1e-11 * maxabs(25, RSp), "full-covariance Sp");
		free(vfull);
	}
	classes_free(&cl);
	free(x);
	free(var);
	free(L);
	free(Lp);
}

/*
 * "regularize": "penalty" is the GEU paper's RLDA (Sect. III-A: S̃_b =
 * X L^p Xᵀ + εI with its eq. 7 penalty graph, W^p_ij = 1/N − 1/n_c within a
 * class, 1/N across, i ≠ j; GEU term Σ_i D^p_ii Σ_i by eq. 19).  The core
 * adds εI to S_t only; S_w v = μ (S_t + εI) v must have the eigenvectors of
 * the paper's S_w v = λ (S̃_b) v with λ = μ/(1 − μ).  "both" (εI on S_w too)
 * must not, so the test can tell the forms apart.
 */
static void
test_lda_regularize_penalty(void)
{
	int			n = 40,
				d = 5,
				i,
				j,
				k;
	double	   *x = malloc(sizeof(double) * n * d),
			   *var = malloc(sizeof(double) * n * d),
			   *W = calloc((size_t) n * n, sizeof(double)),
			   *L = malloc(sizeof(double) * n * n),
			   *Lp = malloc(sizeof(double) * n * n);
	int32_t		lab[40];
	double		S[25],
				Sp[25],
				RS[25],
				RSb[25],
				Sb2[25],
				Sp2[25],
				lam[5],
				mu[5],
				mu2[5],
				vt[25],
				vt_ref[25],
				vt2[25],
				work[10];
	double		eps = 0.7,
				worst2 = 0.0;
	classes		cl;
	gsu_geneig_info info;

	for (i = 0; i < n; i++)
		lab[i] = (int32_t) (i % 3);
	for (i = 0; i < n * d; i++)
	{
		x[i] = gauss() * (1 + i % d) + lab[i / d] * (i % d == 1 ? 1.5 : 0.3);
		var[i] = 0.5 * unif();
	}
	classes_build(&cl, n, d, x, lab, var);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, cl.vdiag, NULL, 0.0, eps, S, Sp, work);
	/* the intrinsic scatter has no ε; the penalty scatter has it */
	lda_graphs(n, lab, L, Lp);
	ref_xlx(n, d, x, L, var, RS);
	CHECK(maxdiff(25, S, RS) < 1e-11 * maxabs(25, RS), "S has ε (%g)", maxdiff(25, S, RS));
	ref_xlx(n, d, x, Lp, var, RSb);
	for (i = 0; i < d; i++)
		RSb[i * d + i] += eps;
	CHECK(maxdiff(25, Sp, RSb) < 1e-11 * maxabs(25, RSb), "S^p differs by %g", maxdiff(25, Sp, RSb));
	/* the paper's S̃_b from its eq. 7 graph, entry by entry */
	for (i = 0; i < n; i++)
	{
		int			nc = 0;

		for (j = 0; j < n; j++)
			nc += lab[j] == lab[i];
		for (j = 0; j < n; j++)
			W[i * n + j] = i == j ? 0.0 : lab[j] == lab[i] ? 1.0 / n - 1.0 / nc : 1.0 / n;
	}
	laplacian(n, W, Lp);
	ref_xlx(n, d, x, Lp, var, RSb);
	for (i = 0; i < d; i++)
		RSb[i * d + i] += eps;
	CHECK(gsu_geneig_smallest(d, S, Sp, d, mu, vt, &info, NULL) == GSU_OK, "penalty form");
	CHECK(gsu_geneig_smallest(d, RS, RSb, d, lam, vt_ref, &info, NULL) == GSU_OK, "paper's form");
	/* "both": εI on S_w and S_t */
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, cl.vdiag, NULL, eps, eps, Sb2, Sp2, work);
	CHECK(gsu_geneig_smallest(d, Sb2, Sp2, d, mu2, vt2, &info, NULL) == GSU_OK, "both form");
	for (k = 0; k < d; k++)
	{
		double		dot = 0.0,
					na = 0.0,
					nb = 0.0,
					dot2 = 0.0,
					n2 = 0.0;

		for (j = 0; j < d; j++)
		{
			dot += vt[k * d + j] * vt_ref[k * d + j];
			na += vt[k * d + j] * vt[k * d + j];
			nb += vt_ref[k * d + j] * vt_ref[k * d + j];
			dot2 += vt2[k * d + j] * vt_ref[k * d + j];
			n2 += vt2[k * d + j] * vt2[k * d + j];
		}
		CHECK(fabs(mu[k] / (1.0 - mu[k]) - lam[k]) < 1e-9 * (1.0 + lam[k]),
			  "λ%d: μ/(1 − μ) = %.17g, paper %.17g", k, mu[k] / (1.0 - mu[k]), lam[k]);
		CHECK(fabs(fabs(dot) / sqrt(na * nb) - 1.0) < 1e-9, "direction %d cos %.17g", k,
			  fabs(dot) / sqrt(na * nb));
		if (1.0 - fabs(dot2) / sqrt(n2 * nb) > worst2)
			worst2 = 1.0 - fabs(dot2) / sqrt(n2 * nb);
	}
	CHECK(worst2 > 1e-4, "\"both\" gives the paper's directions too (1 − cos %g)", worst2);
	classes_free(&cl);
	free(x);
	free(var);
	free(W);
	free(L);
	free(Lp);
}

/*
 * The GEU matrices are expectations: average X̃ L X̃ᵀ over samples X̃ drawn
 * from N(x_i, Σ_i) and compare with the core's S (L_ii Σ_i terms), and check
 * that the D_ii variant (LDA graphs with self-loops have D_ii = 1) would be
 * rejected, so the test has the power to tell them apart.
 */
static void
test_geu_expectation_mc(void)
{
	enum
	{
		n = 4, d = 2
	};
	int32_t		lab[n] = {0, 0, 1, 1};
	double		x[n * d] = {0.0, 1.0, 0.5, -1.0, 2.0, 0.0, 3.0, 1.5};
	double		var[n * d] = {0.8, 0.3, 1.2, 0.5, 0.4, 0.9, 1.0, 0.2};
	double		L[n * n],
				Lp[n * n],
				S[d * d],
				Sp[d * d],
				work[2 * d],
				xs[n * d],
				M[d * d],
				acc[d * d] = {0},
				acc2[d * d] = {0},
				accp[d * d] = {0},
				accp2[d * d] = {0};
	classes		cl;
	long		T = quick ? 20000 : 400000,
				t;
	int			i,
				a;

	classes_build(&cl, n, d, x, lab, var);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, cl.vdiag, NULL, 0.0, 0.0, S, Sp, work);
	classes_free(&cl);
	lda_graphs(n, lab, L, Lp);
	for (t = 0; t < T; t++)
	{
		for (i = 0; i < n * d; i++)
			xs[i] = x[i] + sqrt(var[i]) * gauss();
		ref_xlx(n, d, xs, L, NULL, M);
		for (a = 0; a < d * d; a++)
		{
			acc[a] += M[a];
			acc2[a] += M[a] * M[a];
		}
		ref_xlx(n, d, xs, Lp, NULL, M);
		for (a = 0; a < d * d; a++)
		{
			accp[a] += M[a];
			accp2[a] += M[a] * M[a];
		}
	}
	for (a = 0; a < d * d; a++)
	{
		double		m = acc[a] / T,
					se = sqrt((acc2[a] / T - m * m) / T),
					mp = accp[a] / T,
					sep = sqrt((accp2[a] / T - mp * mp) / T);

		CHECK(fabs(m - S[a]) < 5 * se, "S[%d]: Monte Carlo %g ± %g, core %g", a, m, se, S[a]);
		CHECK(fabs(mp - Sp[a]) < 5 * sep, "Sp[%d]: Monte Carlo %g ± %g, core %g", a, mp, sep, Sp[a]);
		if (a % (d + 1) == 0)
		{
			/* D_ii = 1 would add Σ_i var_i instead of Σ_i (1 − 1/n_c) var_i */
			double		extra = 0.0;

			for (i = 0; i < n; i++)
				extra += 0.5 * var[i * d + a / (d + 1)];
			CHECK(fabs(m - (S[a] + extra)) > 5 * se, "the D_ii variant is not rejected at %d", a);
		}
	}
}

/*
 * brute-force MFA graphs: every pair sorted, by gsu_sqdist, or with wide set
 * (data whose squared distances leave double's range) by the distance
 * summed in long double
 */
typedef struct bpair
{
	long double d;
	int			i,
				j;
} bpair;

static int	ref_wide;

static long double
ref_dist(int d, const double *a, const double *b)
{
	long double s = 0.0L;
	int			l;

	if (!ref_wide)
		return gsu_sqdist(d, a, b);
	for (l = 0; l < d; l++)
	{
		long double t = (long double) a[l] - (long double) b[l];

		s += t * t;
	}
	return s;
}

static int
cmp_bpair(const void *a, const void *b)
{
	const bpair *x = a,
			   *y = b;

	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	if (x->i != y->i)
		return x->i - y->i;
	return x->j - y->j;
}

static void
ref_mfa_graphs(int n, int d, const double *x, const int32_t *lab, int k1, int k2,
			   double *W, double *Wp)
{
	bpair	   *p = malloc(sizeof(bpair) * n * n);
	int			i,
				j,
				m,
				r;

	memset(W, 0, sizeof(double) * n * n);
	memset(Wp, 0, sizeof(double) * n * n);
	for (i = 0; i < n; i++)
	{
		m = 0;
		for (j = 0; j < n; j++)
			if (j != i && lab[j] == lab[i])
			{
				p[m].d = ref_dist(d, x + i * d, x + j * d);
				p[m].i = 0;
				p[m].j = j;
				m++;
			}
		qsort(p, m, sizeof(bpair), cmp_bpair);
		for (r = 0; r < m && r < k1; r++)
			W[i * n + p[r].j] = W[p[r].j * n + i] = 1.0;
	}
	for (i = 0; i < n; i++)
	{
		int			seen = 0;

		for (j = 0; j < i; j++)
			seen |= lab[j] == lab[i];
		if (seen)
			continue;			/* class of i handled */
		m = 0;
		for (r = 0; r < n; r++)
			if (lab[r] == lab[i])
				for (j = 0; j < n; j++)
					if (lab[j] != lab[i])
					{
						p[m].d = ref_dist(d, x + r * d, x + j * d);
						p[m].i = r;
						p[m].j = j;
						m++;
					}
		qsort(p, m, sizeof(bpair), cmp_bpair);
		for (r = 0; r < m && r < k2; r++)
			Wp[p[r].i * n + p[r].j] = Wp[p[r].j * n + p[r].i] = 1.0;
	}
	free(p);
}

static void
graph_to_dense(int n, const gsu_graph *g, double *W)
{
	int64_t		e;

	memset(W, 0, sizeof(double) * n * n);
	for (e = 0; e < g->m; e++)
	{
		CHECK(g->a[e] < g->b[e], "edge %lld not ordered", (long long) e);
		CHECK(e == 0 || g->a[e - 1] < g->a[e] || (g->a[e - 1] == g->a[e] && g->b[e - 1] < g->b[e]),
			  "edges not sorted or repeated at %lld", (long long) e);
		W[g->a[e] * n + g->b[e]] = W[g->b[e] * n + g->a[e]] = 1.0;
	}
}

static void
test_mfa_graphs(void)
{
	static const int ks[][2] = {{1, 1}, {3, 5}, {5, 40}, {50, 1000}};
	int			n = quick ? 40 : 90,
				d = 3,
				kind,
				c,
				i;
	double	   *x = malloc(sizeof(double) * n * d),
			   *W = malloc(sizeof(double) * n * n),
			   *Wp = malloc(sizeof(double) * n * n),
			   *G = malloc(sizeof(double) * n * n),
			   *Gp = malloc(sizeof(double) * n * n);
	int32_t    *lab = malloc(sizeof(int32_t) * n);
	volatile long double probe = 1e300L;
	int			kinds;

	/* kinds 2 and 3 need long double wider than double (not so under valgrind) */
	kinds = LDBL_MAX_EXP >= 4096 && probe * probe > 1e599L ? 4 : 2;
	for (kind = 0; kind < kinds; kind++)
	{
		/*
		 * kind 1: integer grid points, many tied distances and duplicates;
		 * 2, 3: at the scales 1e200 and 1e-200, where every squared
		 * distance overflows or underflows double precision (issue 27:
		 * the pairs were ordered by row index)
		 */
		for (i = 0; i < n * d; i++)
			x[i] = kind == 1 ? (double) (next_u64() % 3) :
				gauss() * (kind == 2 ? 1e200 : kind == 3 ? 1e-200 : 1.0);
		ref_wide = kind >= 2;
		for (i = 0; i < n; i++)
			lab[i] = (int32_t) (next_u64() % 3);
		lab[0] = 9;				/* a class of one row */
		for (c = 0; c < 4; c++)
		{
			gsu_graph	gi,
						gp;
			gsu_status	s = gsu_mfa_graphs(n, d, x, lab, ks[c][0], ks[c][1], &gi, &gp, NULL, NULL);

			CHECK(s == GSU_OK, "status %d", (int) s);
			if (s != GSU_OK)
				continue;
			ref_mfa_graphs(n, d, x, lab, ks[c][0], ks[c][1], W, Wp);
			graph_to_dense(n, &gi, G);
			graph_to_dense(n, &gp, Gp);
			CHECK(maxdiff((size_t) n * n, G, W) == 0.0, "intrinsic graph k1=%d kind=%d", ks[c][0], kind);
			CHECK(maxdiff((size_t) n * n, Gp, Wp) == 0.0, "penalty graph k2=%d kind=%d", ks[c][1], kind);
			gsu_graph_free(&gi);
			gsu_graph_free(&gp);
		}
	}
	free(x);
	free(W);
	free(Wp);
	free(G);
	free(Gp);
	free(lab);
}

static void
test_graph_scatter(void)
{
	int			n = 35,
				d = 4,
				i,
				j;
	double	   *x = malloc(sizeof(double) * n * d),
			   *var = malloc(sizeof(double) * n * d),
			   *vfull = calloc((size_t) n * d * d, sizeof(double)),
			   *W = malloc(sizeof(double) * n * n),
			   *Wp = malloc(sizeof(double) * n * n),
			   *L = malloc(sizeof(double) * n * n);
	int32_t		lab[35];
	double		S[16],
				R[16];
	gsu_graph	gi,
				gp;

	for (i = 0; i < n * d; i++)
	{
		x[i] = 100.0 + gauss();
		var[i] = unif();
	}
	for (i = 0; i < n; i++)
	{
		lab[i] = i % 2;
		for (j = 0; j < d; j++)
			vfull[i * d * d + j * d + j] = var[i * d + j];
	}
	CHECK(gsu_mfa_graphs(n, d, x, lab, 4, 30, &gi, &gp, NULL, NULL) == GSU_OK, "graphs");
	ref_mfa_graphs(n, d, x, lab, 4, 30, W, Wp);
	laplacian(n, W, L);
	ref_xlx(n, d, x, L, var, R);
	for (i = 0; i < d; i++)
		R[i * d + i] += 0.5;
	CHECK(gsu_graph_scatter(n, d, x, var, NULL, &gi, 0.5, S, NULL) == GSU_OK, "scatter");
	CHECK(maxdiff(16, S, R) < 1e-9 * maxabs(16, R), "intrinsic S differs by %g", maxdiff(16, S, R));
	CHECK(gsu_graph_scatter(n, d, x, NULL, vfull, &gi, 0.5, S, NULL) == GSU_OK, "scatter, full");
	CHECK(maxdiff(16, S, R) < 1e-9 * maxabs(16, R), "full-covariance S differs by %g", maxdiff(16, S, R));
	laplacian(n, Wp, L);
	ref_xlx(n, d, x, L, NULL, R);
	CHECK(gsu_graph_scatter(n, d, x, NULL, NULL, &gp, 0.0, S, NULL) == GSU_OK, "penalty scatter");
	CHECK(maxdiff(16, S, R) < 1e-9 * maxabs(16, R), "penalty S differs by %g", maxdiff(16, S, R));
	gsu_graph_free(&gi);
	gsu_graph_free(&gp);
	free(x);
	free(var);
	free(vfull);
	free(W);
	free(Wp);
	free(L);
}

static void
random_spd(int d, double *B, double cond_scale)
{
	double	   *G = malloc(sizeof(double) * d * d);
	int			i,
				j,
				k;

	for (i = 0; i < d * d; i++)
		G[i] = gauss();
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
		{
			double		s = 0.0;

			for (k = 0; k < d; k++)
				s += G[i * d + k] * G[j * d + k];
			B[i * d + j] = s + (i == j ? 0.1 : 0.0);
		}
	/* badly scaled features: the equilibration must cope */
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			B[i * d + j] *= pow(cond_scale, (double) (i + j) / d);
	free(G);
}

static void
test_geneig(void)
{
	static const int dims[] = {1, 2, 7, 20};
	int			t;

	for (t = 0; t < 4; t++)
	{
		int			d = dims[t],
					k = d,
					i,
					j,
					a,
					b;
		double	   *A = malloc(sizeof(double) * d * d),
				   *B = malloc(sizeof(double) * d * d),
				   *lam = malloc(sizeof(double) * d),
				   *ref = malloc(sizeof(double) * d),
				   *vt = malloc(sizeof(double) * d * d);
		gsu_geneig_info info;
		gsu_status	s;

		random_spd(d, A, 1e6);	/* scaled like B, as S and S^p are by the features */
		random_spd(d, B, 1e6);
		s = gsu_geneig_smallest(d, A, B, k, lam, vt, &info, NULL);
		CHECK(s == GSU_OK && !info.singular, "status %d singular %d", (int) s, info.singular);
		CHECK(ref_geneig(d, A, B, ref), "reference Cholesky");
		for (j = 0; j < k; j++)
		{
			const double *v = vt + j * d;
			double		big = 0.0,
						res = 0.0,
						scale = 0.0;

			CHECK(fabs(lam[j] - ref[j]) < 1e-9 * fabs(ref[d - 1]), "d=%d λ%d %.17g vs %.17g",
				  d, j, lam[j], ref[j]);
			CHECK(j == 0 || lam[j] >= lam[j - 1], "not ascending");
			/* ‖A v − λ B v‖ small, largest component positive */
			for (a = 0; a < d; a++)
			{
				double		av = 0.0,
							bv = 0.0;

				for (b = 0; b < d; b++)
				{
					av += A[a * d + b] * v[b];
					bv += B[a * d + b] * v[b];
				}
				res = fmax(res, fabs(av - lam[j] * bv));
				scale = fmax(scale, fabs(av) + fabs(lam[j] * bv));
				if (fabs(v[a]) > fabs(big))
					big = v[a];
			}
			CHECK(res < 1e-9 * scale, "d=%d residual %g", d, res / scale);
			CHECK(big > 0.0, "sign convention");
			/* B-orthonormal */
			for (i = 0; i <= j; i++)
			{
				double		g = 0.0;

				for (a = 0; a < d; a++)
					for (b = 0; b < d; b++)
						g += vt[i * d + a] * B[a * d + b] * v[b];
				CHECK(fabs(g - (i == j ? 1.0 : 0.0)) < 1e-9, "VᵀBV[%d,%d] = %g", i, j, g);
			}
		}
		/* fewer directions: the same leading ones */
		if (d > 1)
		{
			double	   *lam2 = malloc(sizeof(double)),
					   *vt2 = malloc(sizeof(double) * d);

			CHECK(gsu_geneig_smallest(d, A, B, 1, lam2, vt2, &info, NULL) == GSU_OK, "k = 1");
			CHECK(lam2[0] == lam[0] && memcmp(vt2, vt, sizeof(double) * d) == 0, "k = 1 differs");
			free(lam2);
			free(vt2);
		}
		free(A);
		free(B);
		free(lam);
		free(ref);
		free(vt);
	}
}

static void
test_geneig_singular(void)
{
	double		A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	/* rank 2: third row = first + second */
	double		B[9] = {2, 1, 3, 1, 2, 3, 3, 3, 6};
	double		Z[9] = {1, 0, 0, 0, 0, 0, 0, 0, 1};
	double		Neg[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1};
	double		lam[3],
				vt[9];
	gsu_geneig_info info;

	CHECK(gsu_geneig_smallest(3, A, B, 1, lam, vt, &info, NULL) == GSU_EINVAL && info.singular,
		  "rank-deficient B (rcond %g)", info.rcond);
	CHECK(gsu_geneig_smallest(3, A, Z, 1, lam, vt, &info, NULL) == GSU_EINVAL && info.singular,
		  "zero diagonal");
	CHECK(gsu_geneig_smallest(3, A, Neg, 1, lam, vt, &info, NULL) == GSU_EINVAL && info.singular,
		  "negative diagonal");
	B[8] += 1e-3;
	CHECK(gsu_geneig_smallest(3, A, B, 3, lam, vt, &info, NULL) == GSU_OK && !info.singular,
		  "regularized B (rcond %g)", info.rcond);
	CHECK(gsu_geneig_smallest(3, A, B, 4, lam, vt, &info, NULL) == GSU_EINVAL && !info.singular,
		  "k > d");
}

/* two classes: the first LDA direction is Fisher's S_w⁻¹(μ₁ − μ₀), λ = 1/(1 + n₀n₁/N·ΔᵀS_w⁻¹Δ) */
static void
test_lda_fisher(void)
{
	int			n = 200,
				d = 6,
				i,
				a;
	double	   *x = malloc(sizeof(double) * n * d);
	int32_t    *lab = malloc(sizeof(int32_t) * n);
	double		S[36],
				Sp[36],
				M[36],
				delta[6],
				z[6],
				work[12],
				lam[6],
				vt[36];
	double		dot = 0.0,
				nz = 0.0,
				nv = 0.0,
				J = 0.0,
				n0,
				n1;
	classes		cl;
	gsu_geneig_info info;

	for (i = 0; i < n; i++)
	{
		lab[i] = i % 3 == 0 ? 1 : -1;
		for (a = 0; a < d; a++)
			x[i * d + a] = gauss() * (1 + a) + (lab[i] > 0 ? 0.7 * a : 0.0) + (a == 2 ? x[i * d] : 0.0);
	}
	classes_build(&cl, n, d, x, lab, NULL);
	gsu_lda_scatter(d, cl.c, cl.n, cl.mean, cl.m2, NULL, NULL, 0.0, 0.0, S, Sp, work);
	CHECK(gsu_geneig_smallest(d, S, Sp, d, lam, vt, &info, NULL) == GSU_OK, "solve");
	for (a = 0; a < d; a++)
		delta[a] = z[a] = cl.mean[d + a] - cl.mean[a];
	memcpy(M, S, sizeof(M));
	ref_solve(d, M, z);
	for (a = 0; a < d; a++)
	{
		dot += z[a] * vt[a];
		nz += z[a] * z[a];
		nv += vt[a] * vt[a];
		J += delta[a] * z[a];
	}
	n0 = (double) cl.n[0];
	n1 = (double) cl.n[1];
	CHECK(fabs(fabs(dot) / sqrt(nz * nv) - 1.0) < 1e-10, "direction cos %.17g", fabs(dot) / sqrt(nz * nv));
	CHECK(fabs(lam[0] - 1.0 / (1.0 + n0 * n1 / n * J)) < 1e-10, "λ₀ %.17g vs %.17g", lam[0],
		  1.0 / (1.0 + n0 * n1 / n * J));
	/* the other directions have S_b v = 0: λ = 1 */
	for (a = 1; a < d; a++)
		CHECK(fabs(lam[a] - 1.0) < 1e-10, "λ%d = %.17g", a, lam[a]);
	classes_free(&cl);
	free(x);
	free(lab);
}

static void
test_project(void)
{
	enum
	{
		k = 2, d = 3
	};
	double		vt[k * d] = {1, 2, -1, 0.5, 0, 3};
	double		x[d] = {1, -1, 2},
				var[d] = {0.5, 2, 1},
				z[k],
				out[k * k],
				work[k * d];
	double		sig[d * d] = {2, 0.5, 0.1, 0.5, 1, -0.2, 0.1, -0.2, 3};
	double		bad[d * d] = {1, 2, 0, 2, 1, 0, 0, 0, 1};
	double		diagm[d * d] = {0.5, 0, 0, 0, 2, 0, 0, 0, 1};
	double		badv[k * d] = {1, -1, 0, 1, 1, 0};
	int			i,
				j,
				a,
				b,
				which;

	gsu_project(k, d, vt, x, z);
	CHECK(z[0] == -3.0 && z[1] == 6.5, "z = %g %g", z[0], z[1]);
	gsu_project_var_diag(k, d, vt, var, out);
	CHECK(out[0] == 0.5 + 8 + 1 && out[1] == 0.125 + 9, "diag %g %g", out[0], out[1]);
	CHECK(gsu_project_cov(k, d, vt, sig, out, work, &which) == GSU_OK, "full");
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
		{
			double		r = 0.0;

			for (a = 0; a < d; a++)
				for (b = 0; b < d; b++)
					r += vt[i * d + a] * sig[a * d + b] * vt[j * d + b];
			CHECK(fabs(out[i * k + j] - r) < 1e-13 * fabs(r), "VᵀΣV[%d,%d] %g vs %g", i, j,
				  out[i * k + j], r);
		}
	/* a diagonal Σ as a full matrix gives the diagonal variant */
	CHECK(gsu_project_cov(k, d, vt, diagm, out, work, &which) == GSU_OK &&
		  out[0] == 9.5 && out[3] == 9.125, "diag as full %g %g", out[0], out[3]);
	/* not positive semidefinite: (1, −1) sees the eigenvalue −1 of bad */
	CHECK(gsu_project_cov(k, d, badv, bad, out, work, &which) == GSU_EINVAL && which == 0,
		  "indefinite Σ not detected (%d)", which);
}

static const gsu_test_case tests[] = {
	{"stats", test_stats},
	{"lda_scatter_vs_laplacian", test_lda_scatter_vs_laplacian},
	{"lda_regularize_penalty", test_lda_regularize_penalty},
	{"geu_expectation_mc", test_geu_expectation_mc},
	{"mfa_graphs", test_mfa_graphs},
	{"graph_scatter", test_graph_scatter},
	{"geneig", test_geneig},
	{"geneig_singular", test_geneig_singular},
	{"lda_fisher", test_lda_fisher},
	{"project", test_project},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
