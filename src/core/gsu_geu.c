/*
 * gsu_geu.c — LDA / MFA scatter matrices with the GEU uncertainty terms, the
 * symmetric-definite generalized eigenproblem, and applying a projection.
 * The formulation is in gsu_geu.h.
 */
#include "gsu_geu.h"
#include "gsu_eig.h"
#include "gsu_nn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* upper triangle → lower, so the matrix is stored in full */
static void
symmetrize_from_upper(int d, double *a)
{
	int			i,
				j;

	for (i = 0; i < d; i++)
		for (j = 0; j < i; j++)
			a[(size_t) i * d + j] = a[(size_t) j * d + i];
}

/* ------------------------------------------------------------ class stats */

void
gsu_stats_add(int d, int64_t *n, double *mean, double *m2, const double *x, double *work)
{
	double		nn = (double) (*n + 1);
	int			l;

	for (l = 0; l < d; l++)
	{
		work[l] = x[l] - mean[l];
		mean[l] += work[l] / nn;
	}
	if (*n > 0)
		cblas_dsyr(CblasRowMajor, CblasUpper, d, (nn - 1.0) / nn, work, 1, m2, d);
	*n += 1;
}

void
gsu_stats_merge(int d, int64_t *na, double *meana, double *m2a, int64_t nb,
				const double *meanb, const double *m2b, double *work)
{
	double		a = (double) *na,
				b = (double) nb,
				n = a + b;
	int			i,
				j;

	if (nb == 0)
		return;
	for (i = 0; i < d; i++)
		for (j = i; j < d; j++)
			m2a[(size_t) i * d + j] += m2b[(size_t) i * d + j];
	for (i = 0; i < d; i++)
		work[i] = meanb[i] - meana[i];
	if (*na > 0)
		cblas_dsyr(CblasRowMajor, CblasUpper, d, a * b / n, work, 1, m2a, d);
	for (i = 0; i < d; i++)
		meana[i] += work[i] * (b / n);
	*na += nb;
}

void
gsu_lda_scatter(int d, int c, const int64_t *n, const double *means, const double *m2,
				const double *vdiag, const double *vfull, double eps_s, double eps_p,
				double *S, double *Sp, double *work)
{
	size_t		dd = (size_t) d * d;
	double		total = 0.0;
	int			k,
				i,
				j;

	memset(S, 0, sizeof(double) * dd);
	for (k = 0; k < c; k++)
	{
		const double *mk = m2 + (size_t) k * dd;

		total += (double) n[k];
		for (i = 0; i < d; i++)
			for (j = i; j < d; j++)
				S[(size_t) i * d + j] += mk[(size_t) i * d + j];
	}
	/* S_t = S_w + Σ_c n_c (μ_c − μ)(μ_c − μ)ᵀ */
	memcpy(Sp, S, sizeof(double) * dd);
	for (i = 0; i < d; i++)
	{
		double		s = 0.0;

		for (k = 0; k < c; k++)
			s += (double) n[k] * means[(size_t) k * d + i];
		work[i] = s / total;
	}
	for (k = 0; k < c; k++)
	{
		double	   *delta = work + d;

		for (i = 0; i < d; i++)
			delta[i] = means[(size_t) k * d + i] - work[i];
		cblas_dsyr(CblasRowMajor, CblasUpper, d, (double) n[k], delta, 1, Sp, d);
	}
	/* GEU terms: Σ_i L_ii Σ_i with L_ii = 1 − 1/n_c and L^p_ii = 1 − 1/N */
	for (k = 0; k < c; k++)
	{
		double		lw = 1.0 - 1.0 / (double) n[k];
		double		lp = 1.0 - 1.0 / total;

		if (vdiag)
			for (i = 0; i < d; i++)
			{
				double		v = vdiag[(size_t) k * d + i];

				S[(size_t) i * d + i] += lw * v;
				Sp[(size_t) i * d + i] += lp * v;
			}
		if (vfull)
			for (i = 0; i < d; i++)
				for (j = i; j < d; j++)
				{
					double		v = vfull[(size_t) k * dd + (size_t) i * d + j];

					S[(size_t) i * d + j] += lw * v;
					Sp[(size_t) i * d + j] += lp * v;
				}
	}
	for (i = 0; i < d; i++)
	{
		S[(size_t) i * d + i] += eps_s;
		Sp[(size_t) i * d + i] += eps_p;
	}
	symmetrize_from_upper(d, S);
	symmetrize_from_upper(d, Sp);
}

/* ------------------------------------------------------------------ MFA */

void
gsu_graph_free(gsu_graph *g)
{
	free(g->a);
	free(g->b);
	g->a = g->b = NULL;
	g->m = 0;
}

typedef struct edge
{
	int64_t		a,
				b;
} edge;

static int
cmp_edge(const void *x, const void *y)
{
	const edge *p = x,
			   *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

/* sorts, removes repeats and moves the edges into g (takes ownership of e) */
static gsu_status
edges_to_graph(edge *e, int64_t m, gsu_graph *g)
{
	int64_t		i,
				u = 0;

	if (m > 0)
		qsort(e, (size_t) m, sizeof(edge), cmp_edge);
	for (i = 0; i < m; i++)
		if (u == 0 || cmp_edge(&e[i], &e[u - 1]) != 0)
			e[u++] = e[i];
	g->m = u;
	g->a = malloc(sizeof(int64_t) * (size_t) (u > 0 ? u : 1));
	g->b = malloc(sizeof(int64_t) * (size_t) (u > 0 ? u : 1));
	if (g->a == NULL || g->b == NULL)
	{
		free(e);
		gsu_graph_free(g);
		return GSU_ENOMEM;
	}
	for (i = 0; i < u; i++)
	{
		g->a[i] = e[i].a;
		g->b[i] = e[i].b;
	}
	free(e);
	return GSU_OK;
}

static inline edge
make_edge(int64_t i, int64_t j)
{
	edge		e;

	e.a = i < j ? i : j;
	e.b = i < j ? j : i;
	return e;
}

/* a between-class pair seen from class label: (distance key, i in the class, j) */
typedef struct pair
{
	int32_t		label;
	int32_t		dist_scale;		/* the distance's key, split to keep 32 bytes */
	double		dist_v;
	int64_t		i,
				j;
} pair;

static int
cmp_pair(const void *x, const void *y)
{
	const pair *p = x,
			   *q = y;

	if (p->label != q->label)
		return p->label < q->label ? -1 : 1;
	if (p->dist_scale != q->dist_scale)
		return p->dist_scale < q->dist_scale ? -1 : 1;
	if (p->dist_v != q->dist_v)
		return p->dist_v < q->dist_v ? -1 : 1;
	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	if (p->j != q->j)
		return p->j < q->j ? -1 : 1;
	return 0;
}

gsu_status
gsu_mfa_graphs(int64_t n, int d, const double *x, const int32_t *labels, int k1, int k2,
			   gsu_graph *intrinsic, gsu_graph *penalty, gsu_progress_fn progress,
			   void *progress_arg)
{
	gsu_nn_set	set;
	double	   *norms = NULL;
	gsu_nn_dist *dist = NULL;
	int64_t    *idx = NULL,
			   *self = NULL,
				i,
				m;
	int		   *count = NULL;
	int			kmax,
				r;
	edge	   *e = NULL;
	pair	   *p = NULL;
	gsu_status	s = GSU_ENOMEM;

	memset(intrinsic, 0, sizeof(*intrinsic));
	memset(penalty, 0, sizeof(*penalty));
	if (n < 1 || d < 1 || k1 < 1 || k2 < 1)
		return GSU_EINVAL;
	/* a row has at most n − 1 neighbours: the lists need no more room */
	{
		int			nn = n > 1000000000 ? 1000000000 : (int) n;
		int			l1 = k1 < nn ? k1 : nn,
					l2 = k2 < nn ? k2 : nn;

		kmax = l1 > l2 ? l1 : l2;
	}
	norms = malloc(sizeof(double) * (size_t) n);
	self = malloc(sizeof(int64_t) * (size_t) n);
	count = malloc(sizeof(int) * (size_t) n);
	idx = malloc(sizeof(int64_t) * (size_t) n * kmax);
	dist = malloc(sizeof(gsu_nn_dist) * (size_t) n * kmax);
	if (!norms || !self || !count || !idx || !dist)
		goto done;
	gsu_row_sqnorms(n, d, x, norms);
	for (i = 0; i < n; i++)
		self[i] = i;
	set.n = n;
	set.d = d;
	set.x = x;
	set.norms = norms;
	set.labels = labels;

	/* intrinsic: k1 nearest rows of the same class, symmetrized */
	s = gsu_knn(&set, n, x, norms, labels, GSU_NN_SAME, self, k1 < kmax ? k1 : kmax, idx,
				dist, count, progress, progress_arg);
	if (s != GSU_OK)
		goto done;
	s = GSU_ENOMEM;
	{
		int			l1 = k1 < kmax ? k1 : kmax;

		e = malloc(sizeof(edge) * (size_t) n * l1);
		if (e == NULL)
			goto done;
		m = 0;
		for (i = 0; i < n; i++)
			for (r = 0; r < count[i]; r++)
				e[m++] = make_edge(i, idx[i * l1 + r]);
	}
	s = edges_to_graph(e, m, intrinsic);
	e = NULL;
	if (s != GSU_OK)
		goto done;

	/*
	 * penalty: per class c, the k2 nearest pairs (i ∈ c, j ∉ c).  Each such
	 * pair has j among the k2 nearest other-class rows of i, so those lists
	 * hold every candidate.
	 */
	{
		int			l2 = k2 < kmax ? k2 : kmax;

		s = gsu_knn(&set, n, x, norms, labels, GSU_NN_OTHER, NULL, l2, idx, dist, count,
					progress, progress_arg);
		if (s != GSU_OK)
			goto done;
		s = GSU_ENOMEM;
		p = malloc(sizeof(pair) * (size_t) n * l2);
		if (p == NULL)
			goto done;
		m = 0;
		for (i = 0; i < n; i++)
			for (r = 0; r < count[i]; r++)
			{
				p[m].label = labels[i];
				p[m].dist_scale = dist[i * l2 + r].scale;
				p[m].dist_v = dist[i * l2 + r].v;
				p[m].i = i;
				p[m].j = idx[i * l2 + r];
				m++;
			}
	}
	if (m > 0)
		qsort(p, (size_t) m, sizeof(pair), cmp_pair);
	e = malloc(sizeof(edge) * (size_t) (m > 0 ? m : 1));
	if (e == NULL)
		goto done;
	{
		int64_t		a,
					ne = 0;

		for (a = 0; a < m;)
		{
			int64_t		b = a;

			while (b < m && p[b].label == p[a].label)
			{
				if (b - a < k2)
					e[ne++] = make_edge(p[b].i, p[b].j);
				b++;
			}
			a = b;
		}
		s = edges_to_graph(e, ne, penalty);
		e = NULL;
	}

done:
	free(norms);
	free(self);
	free(count);
	free(idx);
	free(dist);
	free(e);
	free(p);
	if (s != GSU_OK)
	{
		gsu_graph_free(intrinsic);
		gsu_graph_free(penalty);
	}
	return s;
}

#define EDGE_BLOCK 128

gsu_status
gsu_graph_scatter(int64_t n, int d, const double *x, const double *vdiag,
				  const double *vfull, const gsu_graph *g, double eps, double *S,
				  gsu_progress *pg)
{
	size_t		dd = (size_t) d * d;
	double	   *buf;
	int64_t    *deg;
	int64_t		e,
				i;
	int			rows = 0,
				l,
				j;

	buf = malloc(sizeof(double) * EDGE_BLOCK * (size_t) d);
	deg = calloc((size_t) (n > 0 ? n : 1), sizeof(int64_t));
	if (buf == NULL || deg == NULL)
	{
		free(buf);
		free(deg);
		return GSU_ENOMEM;
	}
	memset(S, 0, sizeof(double) * dd);
	/* Σ_e δ_e δ_eᵀ, δ_e = x_a − x_b, EDGE_BLOCK edges per dsyrk */
	for (e = 0; e < g->m; e++)
	{
		const double *xa = x + g->a[e] * d,
				   *xb = x + g->b[e] * d;
		double	   *row = buf + (size_t) rows * d;

		for (l = 0; l < d; l++)
			row[l] = xa[l] - xb[l];
		deg[g->a[e]]++;
		deg[g->b[e]]++;
		if (++rows == EDGE_BLOCK || e == g->m - 1)
		{
			if (gsu_progress_tick(pg, (double) rows * d * d))
			{
				free(buf);
				free(deg);
				return GSU_ECANCELLED;
			}
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, rows, 1.0, buf, d,
						1.0, S, d);
			rows = 0;
		}
	}
	/* GEU term Σ_i L_ii Σ_i, L_ii = deg_i */
	for (i = 0; i < n; i++)
	{
		double		w = (double) deg[i];

		if (deg[i] == 0)
			continue;
		if (gsu_progress_tick(pg, vfull ? 0.5 * d * d : d))
		{
			free(buf);
			free(deg);
			return GSU_ECANCELLED;
		}
		if (vdiag)
			for (l = 0; l < d; l++)
				S[(size_t) l * d + l] += w * vdiag[(size_t) i * d + l];
		if (vfull)
		{
			const double *v = vfull + (size_t) i * dd;

			for (l = 0; l < d; l++)
				for (j = l; j < d; j++)
					S[(size_t) l * d + j] += w * v[(size_t) l * d + j];
		}
	}
	for (l = 0; l < d; l++)
		S[(size_t) l * d + l] += eps;
	symmetrize_from_upper(d, S);
	free(buf);
	free(deg);
	return GSU_OK;
}

/* --------------------------------------------------------- eigenproblem */

/*
 * B = UᵀU into the upper triangle of b (d × d, column-major) by blocks of
 * CHOL_NB columns with a tick before each: LAPACK's dpotrf would be one
 * call of d³/3 flops, seconds at d = 5,000.  Returns dpotrf's info (0, or
 * j > 0 when the leading minor of order j is not positive definite); sets
 * *cancelled when pg says stop.
 */
#define CHOL_NB 256
static lapack_int
cholesky_blocked(int d, double *b, gsu_progress *pg, int *cancelled)
{
	int			k;

	for (k = 0; k < d; k += CHOL_NB)
	{
		int			kb = d - k < CHOL_NB ? d - k : CHOL_NB,
					rest = d - k - kb;
		double	   *a11 = b + k + (size_t) k * d;
		lapack_int	rc;

		if (gsu_progress_tick(pg, (double) kb * rest * rest + (double) kb * kb * (kb + rest)))
		{
			*cancelled = 1;
			return 0;
		}
		rc = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', kb, a11, d);
		if (rc != 0)
			return rc > 0 ? k + rc : rc;
		if (rest > 0)
		{
			double	   *a12 = b + k + (size_t) (k + kb) * d;
			double	   *a22 = b + (k + kb) + (size_t) (k + kb) * d;

			/* U12 = U11⁻ᵀ A12, then A22 − U12ᵀU12 is U22ᵀU22 */
			cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit,
						kb, rest, 1.0, a11, d, a12, d);
			cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, rest, kb, -1.0, a12, d,
						1.0, a22, d);
		}
	}
	return 0;
}

/*
 * sa = D A D and sb = D B D with D = diag(B_jj)^(−1/2) (scale receives D's
 * diagonal): GSU_EINVAL with info->singular when a B_jj is not positive,
 * GSU_ENOTFINITE when a scaled element is not finite
 */
static gsu_status
geneig_scale(int d, const double *A, const double *B, double *scale, double *sa, double *sb,
			 gsu_geneig_info *info, gsu_progress *pg)
{
	int			i,
				j;

	for (j = 0; j < d; j++)
	{
		double		bjj = B[(size_t) j * d + j];

		if (!(bjj > 0.0) || !isfinite(bjj))
		{
			info->singular = 1;
			return GSU_EINVAL;
		}
		scale[j] = 1.0 / sqrt(bjj);
	}
	for (i = 0; i < d; i++)
	{
		if (gsu_progress_tick(pg, 4.0 * d))
			return GSU_ECANCELLED;
		for (j = 0; j < d; j++)
		{
			double		f = scale[i] * scale[j];

			sa[(size_t) i * d + j] = f * A[(size_t) i * d + j];
			sb[(size_t) i * d + j] = f * B[(size_t) i * d + j];
			if (!isfinite(sa[(size_t) i * d + j]) || !isfinite(sb[(size_t) i * d + j]))
				return GSU_ENOTFINITE;
		}
	}
	return GSU_OK;
}

/*
 * sb = UᵀU into chol (its upper triangle), checked positive definite and
 * well conditioned: GSU_EINVAL with info->singular when it is not
 */
static gsu_status
geneig_factor(int d, const double *sb, double *chol, gsu_geneig_info *info, gsu_progress *pg)
{
	double		anorm = 0.0;
	lapack_int	rc;
	int			i,
				j,
				cancelled = 0;

	/* positive definite and well conditioned? (column sums = row sums: sb is symmetric) */
	for (j = 0; j < d; j++)
	{
		double		c = 0.0;

		for (i = 0; i < d; i++)
			c += fabs(sb[(size_t) j * d + i]);
		if (c > anorm)
			anorm = c;
	}
	memcpy(chol, sb, sizeof(double) * (size_t) d * d);
	rc = cholesky_blocked(d, chol, pg, &cancelled);
	if (cancelled)
		return GSU_ECANCELLED;
	if (rc > 0)
	{
		info->singular = 1;
		return GSU_EINVAL;
	}
	if (rc < 0)
	{
		info->lapack_info = rc;
		return rc == LAPACK_WORK_MEMORY_ERROR ? GSU_ENOMEM : GSU_EINVAL;
	}
	rc = LAPACKE_dpocon(LAPACK_COL_MAJOR, 'U', d, chol, d, anorm, &info->rcond);
	if (rc != 0)
	{
		info->lapack_info = rc;
		return rc == LAPACK_WORK_MEMORY_ERROR ? GSU_ENOMEM : GSU_EINVAL;
	}
	if (!(info->rcond >= GSU_GEU_RCOND_MIN))
	{
		info->singular = 1;
		return GSU_EINVAL;
	}
	return GSU_OK;
}

/*
 * sa v = λ sb v with sb = UᵀU (chol's upper triangle): C y = λ y with
 * C = U⁻ᵀ sa U⁻¹ and v = U⁻¹y, as dsygvd reduces it, but by blocks of
 * rows and columns (about d²·block flops each) with a tick in between; C
 * replaces sa
 */
static gsu_status
geneig_reduce(int d, double *sa, const double *chol, gsu_progress *pg)
{
	int			i,
				j,
				block;

	block = (int) (GSU_PROGRESS_WORK * 100.0 / ((double) d * d));
	if (block < 16)
		block = 16;
	for (i = 0; i < d; i += block)
	{
		int			rows = d - i < block ? d - i : block;

		if (gsu_progress_tick(pg, (double) d * d * rows))
			return GSU_ECANCELLED;
		/* rows i.. of sa ← sa U⁻¹ */
		cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
					rows, d, 1.0, chol, d, sa + i, d);
	}
	for (j = 0; j < d; j += block)
	{
		int			cols = d - j < block ? d - j : block;

		if (gsu_progress_tick(pg, (double) d * d * cols))
			return GSU_ECANCELLED;
		/* columns j.. of sa ← U⁻ᵀ sa */
		cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit,
					d, cols, 1.0, chol, d, sa + (size_t) j * d, d);
	}
	return GSU_OK;
}

/*
 * The k wanted eigenpairs from C's (eigenvalues w, eigenvectors y in the
 * columns of ys): λ, and v = D U⁻¹y as the rows of vt with its
 * largest-magnitude component positive; GSU_ENOTFINITE when one is not
 * finite
 */
static gsu_status
geneig_vectors(int d, int k, const double *chol, double *ys, const double *w,
			   const double *scale, double *lambda, double *vt)
{
	gsu_status	s;
	int			i,
				j;

	/* v_j = U⁻¹ y_j for the k wanted, one at a time: the same whatever k */
	for (j = 0; j < k; j++)
		cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, d, chol, d,
					ys + (size_t) j * d, 1);
	for (j = 0; j < k; j++)
	{
		const double *col = ys + (size_t) j * d;
		double	   *out = vt + (size_t) j * d;
		double		big = 0.0;
		int			at = 0;

		lambda[j] = w[j];
		for (i = 0; i < d; i++)
		{
			out[i] = scale[i] * col[i];
			if (fabs(out[i]) > big)
			{
				big = fabs(out[i]);
				at = i;
			}
		}
		if (out[at] < 0.0)
			for (i = 0; i < d; i++)
				out[i] = -out[i];
	}
	s = GSU_OK;
	for (j = 0; j < k; j++)
		if (!isfinite(lambda[j]))
			s = GSU_ENOTFINITE;
	for (i = 0; i < k * d; i++)
		if (!isfinite(vt[i]))
			s = GSU_ENOTFINITE;
	return s;
}

gsu_status
gsu_geneig_smallest(int d, const double *A, const double *B, int k, double *lambda,
					double *vt, gsu_geneig_info *info, gsu_progress *pg)
{
	size_t		dd = (size_t) d * d;
	double	   *sa = NULL,
			   *sb = NULL,
			   *chol = NULL,
			   *scale = NULL,
			   *w = NULL;
	gsu_status	s = GSU_ENOMEM;

	memset(info, 0, sizeof(*info));
	if (d < 1 || k < 1 || k > d)
		return GSU_EINVAL;
	sa = malloc(sizeof(double) * dd);
	sb = malloc(sizeof(double) * dd);
	chol = malloc(sizeof(double) * dd);
	scale = malloc(sizeof(double) * d);
	w = malloc(sizeof(double) * d);
	if (!sa || !sb || !chol || !scale || !w)
		goto done;

	s = geneig_scale(d, A, B, scale, sa, sb, info, pg);
	if (s == GSU_OK)
		s = geneig_factor(d, sb, chol, info, pg);
	if (s == GSU_OK)
		s = geneig_reduce(d, sa, chol, pg);
	/* C's eigenvectors into sb (no longer needed), λ ascending */
	if (s == GSU_OK)
		s = gsu_syevr(d, sa, w, sb, pg);
	if (s == GSU_OK)
		s = geneig_vectors(d, k, chol, sb, w, scale, lambda, vt);

done:
	free(sa);
	free(sb);
	free(chol);
	free(scale);
	free(w);
	return s;
}

/* ------------------------------------------------------ using a projection */

void
gsu_project(int k, int d, const double *vt, const double *x, double *z)
{
	cblas_dgemv(CblasRowMajor, CblasNoTrans, k, d, 1.0, vt, d, x, 1, 0.0, z, 1);
}

void
gsu_project_var_diag(int k, int d, const double *vt, const double *var, double *out)
{
	int			j,
				l;

	for (j = 0; j < k; j++)
	{
		const double *v = vt + (size_t) j * d;
		double		s = 0.0;

		for (l = 0; l < d; l++)
			s += v[l] * v[l] * var[l];
		out[j] = s;
	}
}

gsu_status
gsu_project_cov(int k, int d, const double *vt, const double *sigma, double *out,
				double *work, int *bad)
{
	double		smax = 0.0;
	size_t		l;
	int			i,
				j;

	*bad = -1;
	/* work = Vᵀ Σ (k×d), out = work · V (k×k) */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, d, d, 1.0, vt, d, sigma, d,
				0.0, work, d);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, k, k, d, 1.0, work, d, vt, d,
				0.0, out, k);
	for (i = 0; i < k; i++)
		for (j = 0; j < i; j++)
		{
			double		m = 0.5 * (out[i * k + j] + out[j * k + i]);

			out[i * k + j] = out[j * k + i] = m;
		}
	for (l = 0; l < (size_t) d * d; l++)
		if (fabs(sigma[l]) > smax)
			smax = fabs(sigma[l]);
	for (j = 0; j < k; j++)
	{
		double		a = 0.0,
					tol;

		for (i = 0; i < d; i++)
			a += fabs(vt[(size_t) j * d + i]);
		tol = 8.0 * (d + 2) * DBL_EPSILON * smax * a * a;
		if (out[j * k + j] < -tol)
		{
			*bad = j;
			return GSU_EINVAL;
		}
		if (out[j * k + j] < 0.0)
			out[j * k + j] = 0.0;
	}
	return GSU_OK;
}
