/*
 * gsu_span.c — the Gaussian loss on full covariances of low rank in many
 * dimensions, solved in the span where its optimum lies.
 *
 * The derivation: src/core/README, section gsu_span.c.
 */
#include "gsu_span.h"
#include "gsu_objective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

void
gsu_span_free(gsu_span *sp)
{
	free(sp->qr);
	free(sp->tau);
	free(sp->work);
	free(sp->x);
	free(sp->cov);
	memset(sp, 0, sizeof(*sp));
}

/* n rows of dimension d may be reduced: enough dimensions, and room for more than the means */
static int
span_may_reduce(int64_t n, int d)
{
	return d >= GSU_SPAN_MIN_DIM && n >= 1 && n < d / 2;
}

/*
 * dim S at most for factors of r columns: n(1 + r), when that is at most
 * d/2 (else 0: they are not reduced)
 */
static int
factor_span_dim(int64_t n, int d, int r)
{
	if (!span_may_reduce(n, d) || r < 1 || r >= d || (double) n * (1.0 + r) > (double) (d / 2))
		return 0;
	return (int) (n * (1 + r));
}

double
gsu_span_doubles(int64_t n, int d, int rank)
{
	double		k = (double) (d / 2);

	if (rank >= 1 && rank < d)
	{
		/*
		 * factors: [x L] with their reflectors, dgeqrf's workspace (a block
		 * of 64 columns), the vectors, the reduced rows QᵀL_i
		 */
		k = (double) factor_span_dim(n, d, rank);
		return k == 0.0 ? 0.0 : (double) d * k + 64.0 * k + 2.0 * d + k + (double) n * k * (1.0 + rank);
	}
	if (!span_may_reduce(n, d))
		return 0.0;
	/* Σ_i's copy, the columns [x F] with their reflectors, the reduced rows, one QᵀF_i, the vectors */
	return (double) d * d + (double) d * k + (double) n * k * (k + 1.0) + k * k +
		3.0 * d + k + (double) n;
}

/* sp's reduced rows as a data set of dimension k: ds's labels and weights */
static void
span_publish(gsu_span *sp, const gsu_dataset *ds, int d, int k)
{
	sp->d = d;
	sp->k = k;
	sp->ds = *ds;
	sp->ds.d = k;
	sp->ds.x = sp->x;
	sp->ds.cov = sp->cov;
}

/*
 * Factor rows Σ_i = L_iL_iᵀ: range(Σ_i) ⊆ range(L_i), so the columns
 * [x_1 … x_n L_1 … L_n] span a superspace of S, exactly (no rank to judge),
 * and QᵀΣ_iQ = (QᵀL_i)(QᵀL_i)ᵀ: the reduced rows are factors again, of k × r.
 * Dependent columns (a zero L_i, x_i in some range) only make k larger than
 * dim S; Q stays orthonormal.
 */
static gsu_status
span_reduce_factors(const gsu_dataset *ds, gsu_progress *pg, gsu_span *sp, int *reduced)
{
	int			d = ds->d,
				r = ds->cov_rank,
				k = factor_span_dim(ds->n, d, r);
	int64_t		n = ds->n,
				i;
	int			c,
				j;

	if (k == 0)
		return GSU_OK;
	sp->qr = malloc(sizeof(double) * (size_t) d * k);
	sp->tau = malloc(sizeof(double) * (size_t) k);
	sp->work = malloc(sizeof(double) * (size_t) d);
	sp->x = malloc(sizeof(double) * (size_t) n * k);
	sp->cov = malloc(sizeof(double) * (size_t) n * k * r);
	if (!sp->qr || !sp->tau || !sp->work || !sp->x || !sp->cov)
	{
		gsu_span_free(sp);
		return GSU_ENOMEM;
	}
	for (i = 0; i < n; i++)
	{
		const double *li = ds->cov + (size_t) i * d * r;	/* d × r, row-major */

		memcpy(sp->qr + (size_t) i * d, ds->x + (size_t) i * d, sizeof(double) * (size_t) d);
		for (c = 0; c < r; c++)
		{
			double	   *col = sp->qr + (size_t) (n + i * r + c) * d;

			for (j = 0; j < d; j++)
				col[j] = li[(size_t) j * r + c];
		}
		if (gsu_progress_tick(pg, (double) d * (r + 1)))
		{
			gsu_span_free(sp);
			return GSU_ECANCELLED;
		}
	}
	if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, d, k, sp->qr, d, sp->tau) != 0)
	{
		gsu_span_free(sp);
		return GSU_ENOMEM;		/* the only failure left: its workspace */
	}
	for (i = 0; i < n; i++)
	{
		double	   *xi = sp->x + (size_t) i * k,
				   *ci = sp->cov + (size_t) i * k * r;

		/* Qᵀx_i = R(:, i) and QᵀL_i = R(:, n + ir … n + ir + r − 1), zero below the diagonal */
		for (j = 0; j < k; j++)
			xi[j] = j <= i ? sp->qr[(size_t) i * d + j] : 0.0;
		for (c = 0; c < r; c++)
		{
			int64_t		col = n + i * r + c;

			for (j = 0; j < k; j++)
				ci[(size_t) j * r + c] = j <= col ? sp->qr[(size_t) col * d + j] : 0.0;
		}
	}
	span_publish(sp, ds, d, k);
	*reduced = 1;
	return GSU_OK;
}

gsu_status
gsu_span_reduce(const gsu_dataset *ds, gsu_progress *pg, gsu_span *sp, int *reduced)
{
	int			d = ds->d,
				k_max = d / 2,
				k,
				a_col;
	int64_t		n = ds->n,
				i;
	double	   *a = NULL,
			   *g = NULL;
	int		   *rank = NULL;
	lapack_int *piv = NULL;
	gsu_status	st = GSU_OK;

	memset(sp, 0, sizeof(*sp));
	*reduced = 0;
	if (ds->cov_kind == GSU_COV_FACTOR)
		return span_reduce_factors(ds, pg, sp, reduced);
	if (ds->cov_kind != GSU_COV_FULL || !span_may_reduce(n, d))
		return GSU_OK;

	a = malloc(sizeof(double) * (size_t) d * d);
	piv = malloc(sizeof(lapack_int) * (size_t) d);
	rank = malloc(sizeof(int) * (size_t) n);
	sp->qr = malloc(sizeof(double) * (size_t) d * k_max);
	if (!a || !piv || !rank || !sp->qr)
	{
		st = GSU_ENOMEM;
		goto out;
	}
	/* the columns [x_1 … x_n F_1 … F_n], while they fit in d/2 */
	for (i = 0; i < n; i++)
		memcpy(sp->qr + (size_t) i * d, ds->x + (size_t) i * d, sizeof(double) * (size_t) d);
	k = (int) n;
	for (i = 0; i < n; i++)
	{
		int			r = gsu_cov_range_columns(d, ds->cov + (size_t) i * d * d, a, piv, k_max - k,
									  sp->qr + (size_t) k * d);

		if (r < 0)
			goto out;			/* S is too large to be worth it */
		rank[i] = r;
		k += r;
		if (gsu_progress_tick(pg, (double) d * d * (r + 1)))
		{
			st = GSU_ECANCELLED;
			goto out;
		}
	}

	/* Q R = [x F]: Q as reflectors in qr, R in its upper triangle */
	sp->tau = malloc(sizeof(double) * (size_t) k);
	sp->work = malloc(sizeof(double) * (size_t) d);
	sp->x = malloc(sizeof(double) * (size_t) n * k);
	sp->cov = malloc(sizeof(double) * (size_t) n * k * k);
	g = malloc(sizeof(double) * (size_t) k * (k > (int) n ? k - (int) n : 1));
	if (!sp->tau || !sp->work || !sp->x || !sp->cov || !g)
	{
		st = GSU_ENOMEM;
		goto out;
	}
	if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, d, k, sp->qr, d, sp->tau) != 0)
	{
		st = GSU_ENOMEM;		/* the only failure left: its workspace */
		goto out;
	}
	a_col = (int) n;
	for (i = 0; i < n; i++)
	{
		double	   *xi = sp->x + (size_t) i * k,
				   *ci = sp->cov + (size_t) i * k * k;
		int			r = rank[i],
					c,
					row,
					col;

		/* Qᵀx_i = R(:, i), zero below the diagonal */
		memset(xi, 0, sizeof(double) * (size_t) k);
		memcpy(xi, sp->qr + (size_t) i * d, sizeof(double) * (size_t) (i + 1));
		/* QᵀF_i = R(:, a_col … a_col + r − 1); QᵀΣ_iQ = (QᵀF_i)(QᵀF_i)ᵀ */
		memset(ci, 0, sizeof(double) * (size_t) k * k);
		if (r > 0)
		{
			memset(g, 0, sizeof(double) * (size_t) k * r);
			for (c = 0; c < r; c++)
				memcpy(g + (size_t) c * k, sp->qr + (size_t) (a_col + c) * d,
					   sizeof(double) * (size_t) (a_col + c + 1));
			cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, k, r, 1.0, g, k, 0.0, ci, k);
			for (col = 0; col < k; col++)
				for (row = col + 1; row < k; row++)
					ci[(size_t) col * k + row] = ci[(size_t) row * k + col];
		}
		a_col += r;
	}
	span_publish(sp, ds, d, k);
	*reduced = 1;

out:
	free(a);
	free(piv);
	free(rank);
	free(g);
	if (!*reduced)
		gsu_span_free(sp);
	return st;
}

/* work ← Q·work (trans 'N') or Qᵀ·work ('T'), Q the d × d of the reflectors */
static void
apply_q(gsu_span *sp, char trans)
{
	/* the blocked path's workspace for one column at LAPACK's block size 64 */
	double		lw[64 + 65 * 64];

	(void) LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', trans, sp->d, 1, sp->k, sp->qr, sp->d,
							   sp->tau, sp->work, sp->d, lw, (lapack_int) (sizeof(lw) / sizeof(lw[0])));
}

void
gsu_span_to_rows(gsu_span *sp, const double *v, double *w)
{
	memcpy(sp->work, v, sizeof(double) * (size_t) sp->k);
	memset(sp->work + sp->k, 0, sizeof(double) * (size_t) (sp->d - sp->k));
	apply_q(sp, 'N');
	memcpy(w, sp->work, sizeof(double) * (size_t) sp->d);
}

double
gsu_span_from_rows(gsu_span *sp, const double *w, double *v)
{
	memcpy(sp->work, w, sizeof(double) * (size_t) sp->d);
	apply_q(sp, 'T');
	memcpy(v, sp->work, sizeof(double) * (size_t) sp->k);
	return cblas_dnrm2(sp->d - sp->k, sp->work + sp->k, 1);
}

gsu_status
gsu_solve_newton_span(const gsu_dataset *ds, const gsu_solve_options *o, double *theta,
					  gsu_solve_result *res)
{
	gsu_progress pg = gsu_progress_make(o->progress, o->progress_arg);
	gsu_span	sp;
	int			reduced,
				d = ds->d;
	double	   *v,
			   *g,
				f,
				outside;
	gsu_status	st;

	memset(res, 0, sizeof(*res));
	st = gsu_span_reduce(ds, &pg, &sp, &reduced);
	if (st != GSU_OK)
		return st;
	if (!reduced)
		return gsu_solve_newton(ds, o, theta, res);

	v = malloc(sizeof(double) * (size_t) (sp.k + 1));
	g = malloc(sizeof(double) * (size_t) (d + 1));
	if (!v || !g)
	{
		st = GSU_ENOMEM;
		goto out;
	}
	/* a start outside S starts from its projection */
	(void) gsu_span_from_rows(&sp, theta, v);
	v[sp.k] = theta[d];
	st = gsu_solve_newton(&sp.ds, o, v, res);
	if (st != GSU_OK)
		goto out;
	gsu_span_to_rows(&sp, v, theta);
	theta[d] = v[sp.k];

	/* the check on the rows as given: ∇F's part outside S, and F itself */
	st = gsu_objective(ds, o->lambda, o->smoothing, theta, &f, g);
	if (st == GSU_OK)
		st = gsu_objective(ds, o->lambda, 0.0, theta, &res->objective, NULL);
	if (st != GSU_OK)
		goto out;
	outside = gsu_span_from_rows(&sp, g, v);
	res->passes += 3;
	res->gradient_norm = hypot(res->gradient_norm, outside);
	if (outside > o->tolerance * res->gradient_norm0)
	{
		/* S missed a direction of some Σ_i: Newton goes on from here on ds */
		gsu_solve_options warm = *o;
		int64_t		passes = res->passes,
					iterations = res->iterations;

		warm.warm_start = 1;
		st = gsu_solve_newton(ds, &warm, theta, res);
		res->passes += passes;
		res->iterations += iterations;
	}

out:
	free(v);
	free(g);
	gsu_span_free(&sp);
	return st;
}
