/*
 * gsu_eig.c — dsyevr's steps for all eigenpairs, in pieces that a cancel
 * can stop between (see gsu_eig.h).
 */
#include "gsu_eig.h"

#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/*
 * LAPACK's panel reduction (not in LAPACKE): the last nb columns of the
 * leading n × n block of a to tridiagonal form, w (ldw × nb) receiving the
 * matrix of the rank-2nb update of the rest.  The trailing size_t is
 * gfortran's hidden length of the character argument.
 */
extern void dlatrd_(const char *uplo, const lapack_int *n, const lapack_int *nb,
					double *a, const lapack_int *lda, double *e, double *tau,
					double *w, const lapack_int *ldw, size_t uplo_len);

/*
 * dsytrd's block size and crossover to the unblocked code: ilaenv says 32
 * and 32, but dsyevr gives dsytrd the workspace 28·m, so it runs with 28
 */
#define TRD_NB 28
#define TRD_NX 32
/* dormql's workspace for its block reflector T (LAPACK's LDT·NBMAX = 65·64) */
#define ORM_TSIZE 4160

/*
 * dsytrd with uplo 'U', as LAPACK's (same panels, same calls, so the same
 * result), with a tick per panel: a (m × m, column-major) becomes Q and T,
 * d (m) and e (m − 1) the tridiagonal T, tau (m − 1) Q's reflectors.
 */
static gsu_status
tridiagonalize(int m, double *a, double *d, double *e, double *tau, gsu_progress *pg)
{
	lapack_int	n = m,
				nb = TRD_NB,
				ld = m,
				kk = m,
				i,
				j;
	double	   *w;

	if (m > TRD_NX)
	{
		w = malloc(sizeof(double) * (size_t) m * TRD_NB);
		if (w == NULL)
			return GSU_ENOMEM;
		kk = n - ((n - TRD_NX + nb - 1) / nb) * nb;
		/* Fortran's I = N − NB + 1, …, KK + 1 by −NB; here i = I − 1 */
		for (i = n - nb; i >= kk; i -= nb)
		{
			lapack_int	nn = i + nb;

			/* dlatrd: nb symmetric products with the nn × nn block, then the update */
			if (gsu_progress_tick(pg, 4.0 * (double) nn * nn * nb))
			{
				free(w);
				return GSU_ECANCELLED;
			}
			dlatrd_("U", &nn, &nb, a, &ld, e, tau, w, &ld, 1);
			cblas_dsyr2k(CblasColMajor, CblasUpper, CblasNoTrans, i, nb, -1.0,
						 a + (size_t) i * ld, ld, w, ld, 1.0, a, ld);
			for (j = i; j < i + nb; j++)
			{
				a[(size_t) (j - 1) + (size_t) j * ld] = e[j - 1];
				d[j] = a[(size_t) j + (size_t) j * ld];
			}
		}
		free(w);
	}
	/* the leading kk × kk block (kk ≤ TRD_NX: dsytrd runs the unblocked dsytd2) */
	if (kk > 0 && LAPACKE_dsytrd(LAPACK_COL_MAJOR, 'U', kk, a, ld, d, e, tau) != 0)
		return GSU_ENOTFINITE;
	return GSU_OK;
}

gsu_status
gsu_syevr(int m, double *a, double *w, double *z, gsu_progress *pg)
{
	double	   *d,
			   *e,
			   *tau;
	lapack_int *isuppz;
	lapack_int	found = 0,
				tryrac = 1;
	gsu_status	st;
	int			c,
				block,
				orm_nb;
	double	   *work = NULL;

	if (m < 1)
		return GSU_EINVAL;
	d = malloc(sizeof(double) * (size_t) m * 3);
	isuppz = malloc(sizeof(lapack_int) * 2 * (size_t) m);
	if (d == NULL || isuppz == NULL)
	{
		free(d);
		free(isuppz);
		return GSU_ENOMEM;
	}
	e = d + m;
	tau = e + m;
	st = tridiagonalize(m, a, d, e, tau, pg);
	if (st != GSU_OK)
		goto done;
	/* MRRR, as dsyevr calls it (all eigenpairs, relative accuracy tried) */
	if (gsu_progress_tick(pg, GSU_PROGRESS_WORK))
	{
		st = GSU_ECANCELLED;
		goto done;
	}
	if (LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', 'A', m, d, e, 0.0, 0.0, 0, 0, &found, w,
					   z, m, m, isuppz, &tryrac) != 0 || found != m)
	{
		st = GSU_ENOTFINITE;
		goto done;
	}
	/*
	 * z ← Q z, a block of columns at a time (about 2m²·block flops each).
	 * dsyevr leaves dormqr the workspace 31·m, which caps its block size
	 * at (31m − TSIZE)/m; the same cap keeps the columns bit-identical.
	 */
	block = (int) (GSU_PROGRESS_WORK * 500.0 / (2.0 * (double) m * m));
	if (block < 64)
		block = 64;		/* narrower, dormtr rereads Q for too few columns */
	orm_nb = (31 * m - ORM_TSIZE) / m;
	if (orm_nb < 1)
		orm_nb = 1;
	work = malloc(sizeof(double) * ((size_t) block * orm_nb + ORM_TSIZE));
	if (work == NULL)
	{
		st = GSU_ENOMEM;
		goto done;
	}
	for (c = 0; c < m; c += block)
	{
		int			cols = m - c < block ? m - c : block;

		if (gsu_progress_tick(pg, 2.0 * (double) m * m * cols))
		{
			st = GSU_ECANCELLED;
			goto done;
		}
		if (m > 1 &&
			LAPACKE_dormtr_work(LAPACK_COL_MAJOR, 'L', 'U', 'N', m, cols, a, m, tau,
								z + (size_t) c * m, m, work,
								(lapack_int) cols * orm_nb + ORM_TSIZE) != 0)
		{
			st = GSU_EINVAL;
			goto done;
		}
	}
	st = GSU_OK;
done:
	free(d);
	free(isuppz);
	free(work);
	return st;
}
