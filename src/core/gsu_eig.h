/*
 * gsu_eig.h — a symmetric eigendecomposition that can be cancelled.
 *
 * LAPACK's dsyevr cannot be interrupted, and at the sizes of a Nyström
 * kernel matrix (m up to 10,000) it runs for minutes.  gsu_syevr does the
 * same steps as dsyevr with every eigenpair wanted — Householder reduction
 * to tridiagonal form (dsytrd), MRRR on the tridiagonal matrix (dstemr),
 * back-transformation of the eigenvectors (dormtr) — but reduces one panel
 * of 32 columns at a time (dsytrd's own panel loop: dlatrd, then a rank-2k
 * update) and back-transforms a block of columns at a time, ticking the
 * progress counter in between.  dstemr itself, O(m²), is the one call left
 * whole.
 */
#ifndef GSU_EIG_H
#define GSU_EIG_H

#include "gsu_base.h"

/*
 * All eigenpairs of the symmetric m × m matrix a (column-major, leading
 * dimension m; its upper triangle is read, and the whole array destroyed):
 * w (m) receives the eigenvalues ascending and z (m × m, column-major) the
 * orthonormal eigenvectors, column j belonging to w[j].  pg (NULL allowed)
 * is ticked between the blocks of work.  GSU_ECANCELLED when pg says stop,
 * GSU_ENOMEM, GSU_ENOTFINITE when dstemr fails (e.g. NaN input), GSU_EINVAL
 * for m < 1.  Nothing stays allocated whatever the outcome.
 */
gsu_status	gsu_syevr(int m, double *a, double *w, double *z, gsu_progress *pg);

#endif							/* GSU_EIG_H */
