/*
 * gsu_featmap_sigma.c — the helpers on Σ and the Gaussian kernel that the
 * feature maps' files share (declared in gsu_featmap_sigma.h): ωᵀΣω, the
 * eigen-decomposition of a full Σ, and the kernel's exponent for rows and
 * widths near the limits of double precision.
 */
#include "gsu_featmap_sigma.h"
#include "gsu_nn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

/* ωᵀΣω for Σ = cov (full), diag(var) or iso·I */
double
gsu_sigma_quad_form(int p, const double *om, const double *var, double iso, const double *cov)
{
	double		s = 0.0;
	int			k,
				l;

	if (cov != NULL)
	{
		for (k = 0; k < p; k++)
		{
			double		t = 0.0;

			for (l = 0; l < p; l++)
				t += cov[(size_t) k * p + l] * om[l];
			s += om[k] * t;
		}
	}
	else if (var != NULL)
		for (k = 0; k < p; k++)
			s += om[k] * om[k] * var[k];
	else
	{
		for (k = 0; k < p; k++)
			s += om[k] * om[k];
		s *= iso;
	}
	return s > 0.0 ? s : 0.0;
}

/*
 * Eigen-decomposition of a full Σ (p × p): vals ascending (negative
 * rounding noise clamped to 0), vecs row-major with eigenvectors as
 * columns.  Allocates vals and vecs in one block (*block, caller frees).
 */
gsu_status
gsu_sigma_eigen(int p, const double *cov, double **block, double **vals, double **vecs)
{
	double	   *a;
	lapack_int *isuppz;
	lapack_int	found = 0,
				info;
	int			k;

	*block = malloc(sizeof(double) * ((size_t) p * p * 2 + p));
	isuppz = malloc(sizeof(lapack_int) * 2 * (size_t) p);
	if (*block == NULL || isuppz == NULL)
	{
		free(*block);
		free(isuppz);
		*block = NULL;
		return GSU_ENOMEM;
	}
	a = *block;
	*vecs = a + (size_t) p * p;
	*vals = *vecs + (size_t) p * p;
	memcpy(a, cov, sizeof(double) * p * p);
	info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', p, a, p, 0.0, 0.0, 0, 0,
						  0.0, &found, *vals, *vecs, p, isuppz);
	free(isuppz);
	if (info != 0 || found != p)
	{
		free(*block);
		*block = NULL;
		return GSU_ENOTFINITE;
	}
	for (k = 0; k < p; k++)
		if ((*vals)[k] < 0.0)
			(*vals)[k] = 0.0;
	return GSU_OK;
}

double
gsu_gauss_exponent(int p, const double *a, const double *b, double sigma, double inv2s2)
{
	double		s = 0.0,
				sm,
				vm;
	gsu_nn_dist k;
	int			k_,
				se,
				ve;

	for (k_ = 0; k_ < p; k_++)
	{
		double		t = a[k_] - b[k_];

		s += t * t;
	}
	if (s <= DBL_MAX && inv2s2 >= DBL_MIN)
		return s * inv2s2;
	k = gsu_sqdist_key(p, a, b);
	if (k.v == 0.0)
		return 0.0;
	/* vm·2^(ve + SHIFT·scale) / (2·sm²·2^(2·se)) */
	vm = frexp(k.v, &ve);
	sm = frexp(sigma, &se);
	return ldexp(vm / (2.0 * sm * sm), ve + GSU_NN_DIST_SHIFT * k.scale - 2 * se);
}

double
gsu_qnorm(int n, const double *u, int q)
{
	double		s = 0.0;
	int			k;

	for (k = 0; k < n; k++)
	{
		double		a = fabs(u[k]);

		if (q == 1)
			s += a;
		else if (q == 2)
			s += a * a;
		else if (a > s)
			s = a;
	}
	return q == 2 ? sqrt(s) : s;
}
