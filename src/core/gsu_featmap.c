/*
 * gsu_featmap.c — the feature maps of the Gaussian kernel themselves:
 * their storage (length, bind), building them (random Fourier features,
 * Nyström landmarks and projection) and applying them to a point.  The
 * moments of φ(z) under a Gaussian input are in gsu_featmap_moments.c, the
 * worst-case feature-space bounds in gsu_featmap_bounds.c; the formulas are
 * stated (and derived) in gsu_featmap.h.
 */
#include "gsu_featmap.h"
#include "gsu_eig.h"
#include "gsu_featmap_sigma.h"
#include "gsu_nn.h"
#include "gsu_rng.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

int64_t
gsu_featmap_length(int kind, int dim, int p, int landmarks)
{
	int64_t		len;

	if (dim < 1 || p < 1)
		return -1;
	switch (kind)
	{
		case GSU_MAP_RFF:
			if (dim % 2 != 0 || landmarks != 0)
				return -1;
			len = (int64_t) (dim / 2) * p;
			break;
		case GSU_MAP_NYSTROEM:
			if (landmarks < 1 || dim > landmarks)
				return -1;
			len = (int64_t) landmarks * p + (int64_t) landmarks * dim;
			break;
		case GSU_MAP_POLY2:
			if (landmarks != 0 || (int64_t) dim != gsu_poly2_dim(p))
				return -1;
			len = 0;
			break;
		default:
			return -1;
	}
	return len > INT32_MAX ? -1 : len;
}

void
gsu_featmap_bind(gsu_featmap *f, int kind, int p, int dim, int landmarks,
				 double sigma, const double *block)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->p = p;
	f->dim = dim;
	f->landmarks = kind == GSU_MAP_NYSTROEM ? landmarks : 0;
	f->sigma = sigma;
	if (kind == GSU_MAP_RFF)
		f->omega = block;
	else if (kind == GSU_MAP_NYSTROEM)
	{
		f->z = block;
		f->proj = block + (size_t) landmarks * p;
	}
}

gsu_status
gsu_rff_build(int p, int dim, double sigma, uint64_t seed, double *omega)
{
	gsu_rng		rng;
	size_t		i,
				len;

	if (p < 1 || dim < 2 || dim % 2 != 0 || !(sigma > 0.0) || !isfinite(sigma))
		return GSU_EINVAL;
	gsu_rng_seed(&rng, seed);
	len = (size_t) (dim / 2) * p;
	for (i = 0; i < len; i++)
		omega[i] = gsu_rng_normal(&rng) / sigma;
	return GSU_OK;
}

/* exp(−‖a − b‖²/(2σ²)), never NaN (gsu_gauss_exponent) */
static inline double
gauss_kernel(int p, const double *a, const double *b, double sigma, double inv2s2)
{
	return exp(-gsu_gauss_exponent(p, a, b, sigma, inv2s2));
}

gsu_status
gsu_nystroem_build(int64_t n, int p, const double *x, int m, double sigma,
				   uint64_t seed, double *z, double *proj, int *r, gsu_progress *pg)
{
	gsu_rng		rng;
	int64_t    *idx;
	double	   *K,
			   *evals,
			   *evecs;
	double		inv2s2;
	int			i,
				j,
				kept;
	gsu_status	st;

	*r = 0;
	if (m < 1 || (int64_t) m > n || p < 1 || !(sigma > 0.0) || !isfinite(sigma))
		return GSU_EINVAL;

	/* landmarks: the first m of a partial Fisher–Yates shuffle of 0..n−1 */
	idx = malloc(sizeof(int64_t) * (size_t) n);
	if (idx == NULL)
		return GSU_ENOMEM;
	for (int64_t t = 0; t < n; t++)
		idx[t] = t;
	gsu_rng_seed(&rng, seed);
	for (i = 0; i < m; i++)
	{
		int64_t		k = i + (int64_t) gsu_rng_below(&rng, (uint64_t) (n - i));
		int64_t		tmp = idx[i];

		idx[i] = idx[k];
		idx[k] = tmp;
		memcpy(z + (size_t) i * p, x + (size_t) idx[i] * p, sizeof(double) * p);
	}
	free(idx);

	/*
	 * K (m × m) and the eigenvalues are the only scratch: the eigenvectors
	 * go into proj (its capacity is m × m), column-major, which is turned
	 * into the row-major m × r projection in place.  K is symmetric, so it
	 * reads the same in column-major order.
	 */
	K = malloc(sizeof(double) * ((size_t) m * m + m));
	if (K == NULL)
		return GSU_ENOMEM;
	evecs = proj;
	evals = K + (size_t) m * m;
	inv2s2 = gsu_inv_2sigma2(sigma);
	for (i = 0; i < m; i++)
	{
		if (gsu_progress_tick(pg, (double) (m - i) * p))
		{
			free(K);
			return GSU_ECANCELLED;
		}
		K[(size_t) i * m + i] = 1.0;
		for (j = i + 1; j < m; j++)
			K[(size_t) i * m + j] = K[(size_t) j * m + i] =
				gauss_kernel(p, z + (size_t) i * p, z + (size_t) j * p, sigma, inv2s2);
	}
	/*
	 * dsyevr's steps, interruptible (minutes at m = 10,000); K is symmetric,
	 * so it reads the same in column-major order, and evecs comes out
	 * column-major: component i of eigenvector j at evecs[j·m + i]
	 */
	st = gsu_syevr(m, K, evals, evecs, pg);
	if (st != GSU_OK)
	{
		free(K);
		return st;
	}
	/* dsyevr sorts ascending; keep the largest, in descending order */
	kept = 0;
	for (j = m - 1; j >= 0; j--)
		if (evals[j] > GSU_NYSTROEM_REL_EIG * evals[m - 1])
			kept++;
	/* column c of evecs is eigenvector c: scale, reverse the column order, transpose */
	for (j = 0; j < m; j++)
	{
		double		sc = evals[j] > 0.0 ? 1.0 / sqrt(evals[j]) : 0.0;

		if (gsu_progress_tick(pg, 8.0 * m))
		{
			free(K);
			return GSU_ECANCELLED;
		}

		for (i = 0; i < m; i++)
			evecs[(size_t) j * m + i] *= sc;
	}
	for (j = 0; j < m / 2; j++)
		for (i = 0; i < m; i++)
		{
			double		t = evecs[(size_t) j * m + i];

			evecs[(size_t) j * m + i] = evecs[(size_t) (m - 1 - j) * m + i];
			evecs[(size_t) (m - 1 - j) * m + i] = t;
		}
	for (i = 0; i < m; i++)
	{
		if (gsu_progress_tick(pg, 8.0 * (m - i)))
		{
			free(K);
			return GSU_ECANCELLED;
		}
		for (j = i + 1; j < m; j++)
		{
			double		t = evecs[(size_t) i * m + j];

			evecs[(size_t) i * m + j] = evecs[(size_t) j * m + i];
			evecs[(size_t) j * m + i] = t;
		}
	}
	/* row i keeps its first kept entries: compact the rows to stride kept */
	for (i = 1; i < m; i++)
		memmove(proj + (size_t) i * kept, evecs + (size_t) i * m, sizeof(double) * kept);
	/* sign convention (the eigenvectors' signs are arbitrary): largest |entry| positive */
	for (j = 0; j < kept; j++)
	{
		double		big = 0.0;

		if (gsu_progress_tick(pg, 8.0 * m))
		{
			free(K);
			return GSU_ECANCELLED;
		}

		for (i = 0; i < m; i++)
			if (fabs(proj[(size_t) i * kept + j]) > fabs(big))
				big = proj[(size_t) i * kept + j];
		if (big < 0.0)
			for (i = 0; i < m; i++)
				proj[(size_t) i * kept + j] = -proj[(size_t) i * kept + j];
	}
	free(K);
	*r = kept;
	return kept > 0 ? GSU_OK : GSU_ENOTFINITE;
}

size_t
gsu_nystroem_build_bytes(int64_t n, int m)
{
	/* idx, K and the eigenvalues, isuppz, and dsyevr's workspace (26m doubles, 10m ints) */
	return sizeof(int64_t) * (size_t) n + sizeof(double) * ((size_t) m * m + m)
		+ sizeof(lapack_int) * 2 * (size_t) m
		+ sizeof(double) * 26 * (size_t) m + sizeof(lapack_int) * 10 * (size_t) m;
}

size_t
gsu_featmap_apply_work_size(const gsu_featmap *f)
{
	return f->kind == GSU_MAP_NYSTROEM ? (size_t) f->landmarks : 0;
}

size_t
gsu_featmap_work_size(const gsu_featmap *f)
{
	if (f->kind == GSU_MAP_POLY2)
		return 0;
	if (f->kind == GSU_MAP_RFF)
		return 2 * (size_t) f->dim + 2 * (size_t) f->p;
	return (size_t) f->landmarks * f->landmarks + 2 * (size_t) f->landmarks
		+ 4 * (size_t) f->p;
}

void
gsu_featmap_apply(const gsu_featmap *f, const double *x, double *phi, double *work)
{
	int			j,
				k;

	if (f->kind == GSU_MAP_RFF)
	{
		double		c = sqrt(2.0 / f->dim);

		for (j = 0; j < f->dim / 2; j++)
		{
			const double *om = f->omega + (size_t) j * f->p;
			double		t = 0.0;

			for (k = 0; k < f->p; k++)
				t += om[k] * x[k];
			phi[2 * j] = c * cos(t);
			phi[2 * j + 1] = c * sin(t);
		}
	}
	else if (f->kind == GSU_MAP_POLY2)
		gsu_poly2_apply(f, x, phi);
	else
	{
		double		inv2s2 = gsu_inv_2sigma2(f->sigma);
		double	   *km = work;
		int			l;

		for (l = 0; l < f->landmarks; l++)
			km[l] = gauss_kernel(f->p, x, f->z + (size_t) l * f->p, f->sigma, inv2s2);
		for (j = 0; j < f->dim; j++)
			phi[j] = 0.0;
		for (l = 0; l < f->landmarks; l++)
		{
			const double *pr = f->proj + (size_t) l * f->dim;

			for (j = 0; j < f->dim; j++)
				phi[j] += pr[j] * km[l];
		}
	}
}
