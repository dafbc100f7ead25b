/*
 * gsu_cov.c — a row's covariance (gsu_cov.h): the quadratic forms wᵀΣw and
 * Σw for every kind (at the end of the file), checks of full covariance
 * matrices and the per-row subspace restriction of SVM-GSU in linear
 * subspaces (Tzelepis et al., TPAMI 2018, Sect. 3.2).
 *
 * Subspaces.  A row's Σ = U Λ Uᵀ (λ_1 ≥ λ_2 ≥ … ≥ 0).  The row is taken to
 * vary only inside the span P of its first k eigenvectors, k the smallest
 * number with λ_1 + … + λ_k ≥ p·tr Σ; its covariance becomes
 * P Λ_k Pᵀ = Σ_{j ≤ k} λ_j u_j u_jᵀ, and the loss and gradients are the usual
 * ones with that covariance (wᵀPΛ_kPᵀw = ‖Λ_k^{1/2}Pᵀw‖², which is how the
 * paper's eqs. 9–12 read once the label factors are restored).  Each
 * eigenvalue stays paired with its own eigenvector: for a diagonal Σ the
 * eigenvectors are the coordinate axes, so the kept variances stay on their
 * own axes.
 *
 * That is the covariance-only reading.  The paper's eqs. 9-12 project the
 * whole Gaussian: z = P x with P (k×d) the kept eigenvectors as rows,
 * Σ^z = Λ_k, w_z = P w, so w_zᵀz = wᵀ(PᵀP x) and w_zᵀΛ_k w_z = wᵀ(PᵀΛ_kP)w:
 * the row is the d-dimensional Gaussian N(PᵀP x, PᵀΛ_kP), whose mean is the
 * orthogonal projection U_k U_kᵀ x of x onto the kept span.  Given x, the
 * functions below write that mean too (diagonal: the coordinates whose
 * variance was dropped are set to 0).
 */
#include "gsu_cov.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* eigenvalues (ascending) and, if vecs != NULL, eigenvectors of a copy of cov */
static gsu_status
symmetric_eigen(int d, const double *cov, double *vals, double *vecs)
{
	double	   *a = malloc(sizeof(double) * (size_t) d * d);
	lapack_int *isuppz = malloc(sizeof(lapack_int) * 2 * (size_t) d);
	double	   *z = vecs ? vecs : NULL;
	lapack_int	m,
				info;

	if (!a || !isuppz)
	{
		free(a);
		free(isuppz);
		return GSU_ENOMEM;
	}
	memcpy(a, cov, sizeof(double) * (size_t) d * d);
	info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, vecs ? 'V' : 'N', 'A', 'U', d, a, d,
						  0.0, 0.0, 0, 0, 0.0, &m, vals, z, d, isuppz);
	free(a);
	free(isuppz);
	if (info != 0)
		return info < 0 ? GSU_EINVAL : GSU_ENOTFINITE;
	return GSU_OK;
}

gsu_status
gsu_covariance_check(int d, const double *cov, double tol, double *min_eig)
{
	double		scale = 0.0;
	double	   *vals;
	gsu_status	st;
	int			j,
				k;

	for (j = 0; j < d * d; j++)
		if (!isfinite(cov[j]))
			return GSU_ENOTFINITE;
	for (j = 0; j < d; j++)
		scale = fmax(scale, fabs(cov[(size_t) j * d + j]));
	for (j = 0; j < d; j++)
		for (k = j + 1; k < d; k++)
			if (fabs(cov[(size_t) j * d + k] - cov[(size_t) k * d + j]) > tol * scale)
				return GSU_ENOTSYMMETRIC;
	vals = malloc(sizeof(double) * (size_t) d);
	if (!vals)
		return GSU_ENOMEM;
	st = symmetric_eigen(d, cov, vals, NULL);
	if (st == GSU_OK)
	{
		if (min_eig)
			*min_eig = vals[0];
		if (vals[0] < -tol * fmax(vals[d - 1], 0.0) || (vals[d - 1] <= 0.0 && vals[0] < 0.0))
			st = GSU_ENOTPSD;
	}
	free(vals);
	return st;
}

/*
 * Fewest of the (descending) values whose sum reaches p·total; p = 1 keeps
 * every positive value.
 */
static int
count_kept(int d, const double *desc, double p)
{
	double		total = 0.0,
				acc = 0.0;
	int			k;

	for (k = 0; k < d; k++)
		total += fmax(desc[k], 0.0);
	if (total <= 0.0)
		return 0;
	if (p >= 1.0)
	{
		for (k = 0; k < d && desc[k] > 0.0; k++)
			;
		return k;
	}
	for (k = 0; k < d; k++)
	{
		acc += fmax(desc[k], 0.0);
		if (acc >= p * total)
			return k + 1;
	}
	return d;
}

gsu_status
gsu_subspace_diag(int d, double *var, double *x, double p, int *kept)
{
	int		   *order;
	double	   *desc;
	int			i,
				j,
				k;

	if (!(p > 0.0 && p <= 1.0))
		return GSU_EINVAL;
	order = malloc(sizeof(int) * (size_t) d);
	desc = calloc((size_t) d, sizeof(double));
	if (!order || !desc)
	{
		free(order);
		free(desc);
		return GSU_ENOMEM;
	}
	/* stable insertion sort of the axes by decreasing variance */
	for (i = 0; i < d; i++)
	{
		for (j = i; j > 0 && var[order[j - 1]] < var[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < d; i++)
		desc[i] = var[order[i]];
	k = count_kept(d, desc, p);
	for (i = k; i < d; i++)
	{
		var[order[i]] = 0.0;
		if (x)
			x[order[i]] = 0.0;
	}
	if (kept)
		*kept = k;
	free(order);
	free(desc);
	return GSU_OK;
}

gsu_status
gsu_subspace_full(int d, double *cov, double *x, double p, int *kept)
{
	double	   *vals,
			   *vecs,
			   *desc,
			   *coef = NULL;
	gsu_status	st;
	int			i,
				j,
				k,
				e;

	if (!(p > 0.0 && p <= 1.0))
		return GSU_EINVAL;
	vals = malloc(sizeof(double) * (size_t) d);
	desc = calloc((size_t) d, sizeof(double));
	vecs = malloc(sizeof(double) * (size_t) d * d);
	if (x)
		coef = calloc((size_t) d, sizeof(double));
	if (!vals || !vecs || !desc || (x && !coef))
	{
		st = GSU_ENOMEM;
		goto out;
	}
	st = symmetric_eigen(d, cov, vals, vecs);
	if (st != GSU_OK)
		goto out;
	/* dsyevr returns ascending eigenvalues; column e of vecs is u_e */
	for (i = 0; i < d; i++)
		desc[i] = vals[d - 1 - i];
	k = count_kept(d, desc, p);
	memset(cov, 0, sizeof(double) * (size_t) d * d);
	for (e = d - k; e < d; e++)
	{
		double		lam = fmax(vals[e], 0.0);

		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				cov[(size_t) i * d + j] += lam * vecs[(size_t) i * d + e] * vecs[(size_t) j * d + e];
	}
	if (x)
	{
		/* x ← U_k U_kᵀ x: coefficients c_e = u_eᵀx, then Σ_e c_e u_e */
		for (e = d - k; e < d; e++)
			for (i = 0; i < d; i++)
				coef[e] += vecs[(size_t) i * d + e] * x[i];
		for (i = 0; i < d; i++)
		{
			double		acc = 0.0;

			for (e = d - k; e < d; e++)
				acc += coef[e] * vecs[(size_t) i * d + e];
			x[i] = acc;
		}
	}
	if (kept)
		*kept = k;
out:
	free(vals);
	free(desc);
	free(vecs);
	free(coef);
	return st;
}

gsu_status
gsu_subspace_factor(int d, int r, double *L, double *x, double p, int *kept)
{
	double	   *g,
			   *vals,
			   *vecs,
			   *desc,
			   *cols;
	gsu_status	st;
	int			i,
				j,
				a,
				k,
				e;

	if (!(p > 0.0 && p <= 1.0) || r < 1)
		return GSU_EINVAL;
	g = calloc((size_t) r * r, sizeof(double));
	vals = malloc(sizeof(double) * (size_t) r);
	vecs = malloc(sizeof(double) * (size_t) r * r);
	desc = malloc(sizeof(double) * (size_t) r);
	cols = calloc((size_t) d * r, sizeof(double));
	if (!g || !vals || !vecs || !desc || !cols)
	{
		st = GSU_ENOMEM;
		goto out;
	}
	/* G = LᵀL (r×r) has the nonzero eigenvalues of LLᵀ; u = L v / √λ */
	for (i = 0; i < d; i++)
		for (a = 0; a < r; a++)
			for (j = 0; j < r; j++)
				g[a * r + j] += L[(size_t) i * r + a] * L[(size_t) i * r + j];
	st = symmetric_eigen(r, g, vals, vecs);
	if (st != GSU_OK)
		goto out;
	/* roundoff of a rank-deficient L is no direction: below r·ε·λ_max is 0 */
	for (a = 0; a < r; a++)
		desc[a] = vals[r - 1 - a] > r * DBL_EPSILON * vals[r - 1] ? vals[r - 1 - a] : 0.0;
	k = count_kept(r, desc, p);
	/* column c of the new factor is L v_e, e the c-th largest; the rest 0 */
	for (a = 0; a < k; a++)
	{
		e = r - 1 - a;
		for (i = 0; i < d; i++)
		{
			double		acc = 0.0;

			for (j = 0; j < r; j++)
				acc += L[(size_t) i * r + j] * vecs[j * r + e];
			cols[(size_t) i * r + a] = acc;
		}
	}
	if (x)
	{
		/* x ← Σ_e u_e u_eᵀ x with u_e = (L v_e)/√λ_e: coefficient (L v_e)ᵀx / λ_e */
		double	   *coef = desc;	/* desc is no longer needed */

		for (a = 0; a < k; a++)
		{
			double		acc = 0.0;

			for (i = 0; i < d; i++)
				acc += cols[(size_t) i * r + a] * x[i];
			coef[a] = acc / vals[r - 1 - a];
		}
		for (i = 0; i < d; i++)
		{
			double		acc = 0.0;

			for (a = 0; a < k; a++)
				acc += coef[a] * cols[(size_t) i * r + a];
			x[i] = acc;
		}
	}
	memcpy(L, cols, sizeof(double) * (size_t) d * r);
	if (kept)
		*kept = k;
out:
	free(g);
	free(vals);
	free(vecs);
	free(desc);
	free(cols);
	return st;
}

/* ------------------------------------------------------- quadratic forms */

/* wᵀΣw for Σ = diag(var) (var != NULL) or iso·I */
static double
quad_diag(int d, const double *w, const double *var, double iso)
{
	if (var == NULL)
		return iso == 0.0 ? 0.0 : iso * gsu_dot(d, w, w, NULL);
	return gsu_dot(d, w, w, var);
}

double
gsu_quad_full(int d, const double *w, const double *cov, double *sw)
{
	cblas_dsymv(CblasRowMajor, CblasUpper, d, 1.0, cov, d, w, 1, 0.0, sw, 1);
	return cblas_ddot(d, w, 1, sw, 1);
}

double
gsu_factor_quad2(int d, int r, const double *L, const double *a, const double *b)
{
	double		acc = 0.0;
	int			k;

	/* column k of L is L[k], L[k + r], …: a strided dot per column */
	for (k = 0; k < r; k++)
	{
		double		la = cblas_ddot(d, L + k, r, a, 1);

		acc += la * (b == a ? la : cblas_ddot(d, L + k, r, b, 1));
	}
	return acc;
}

void
gsu_factor_apply(int d, int r, const double *L, double ca, const double *a,
				 double cb, const double *b, double *g)
{
	int			k;

	for (k = 0; k < r; k++)
	{
		double		t = ca != 0.0 ? ca * cblas_ddot(d, L + k, r, a, 1) : 0.0;

		if (cb != 0.0)
			t += cb * cblas_ddot(d, L + k, r, b, 1);
		if (t != 0.0)
			cblas_daxpy(d, t, L + k, r, g, 1);
	}
}

void
gsu_factor_to_full(int d, int r, const double *L, double *cov)
{
	/* LLᵀ by dgemm, so that a dense reference equals what a factor stands for */
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, d, d, r, 1.0, L, r, L, r,
				0.0, cov, d);
}

GSU_HOT double
gsu_cov_quad(int d, const gsu_cov *c, const double *w, double *sw)
{
	int			j;

	switch (c->kind)
	{
		case GSU_COV_FACTOR:
			if (sw)
			{
				/* sw may alias nothing here: the factor's data is never sw */
				memset(sw, 0, sizeof(double) * (size_t) d);
				gsu_factor_apply(d, c->rank, c->data, 1.0, w, 0.0, NULL, sw);
			}
			return gsu_factor_quad2(d, c->rank, c->data, w, w);
		case GSU_COV_FULL:
			if (sw)
				return gsu_quad_full(d, w, c->data, sw);
			else
			{
				/* wᵀΣw row by row, without a buffer */
				double		acc = 0.0;

				for (j = 0; j < d; j++)
					acc += w[j] * cblas_ddot(d, c->data + (size_t) j * d, 1, w, 1);
				return acc;
			}
		case GSU_COV_DIAG:
		case GSU_COV_ISO:
			if (sw)
			{
				/* the kind and the values in locals: sw might alias *c */
				const double *var = c->kind == GSU_COV_DIAG ? c->data : NULL;
				double		iso = c->iso;

				if (var)
					for (j = 0; j < d; j++)
						sw[j] = var[j] * w[j];
				else
					for (j = 0; j < d; j++)
						sw[j] = iso * w[j];
				return quad_diag(d, w, var, iso);
			}
			return quad_diag(d, w, c->kind == GSU_COV_DIAG ? c->data : NULL, c->iso);
		case GSU_COV_NONE:
			break;
	}
	if (sw)
		memset(sw, 0, sizeof(double) * (size_t) d);
	return 0.0;
}

/* Σ's range by its pivoted Cholesky factor (gsu_cov.h) */
int
gsu_cov_range_columns(int d, const double *sigma, double *a, int *piv, int r_max, double *out)
{
	lapack_int	rank = 0;
	lapack_int	info;
	double		max_diag = 0.0;
	int			c,
				j;

	for (j = 0; j < d; j++)
		if (sigma[(size_t) j * d + j] > max_diag)
			max_diag = sigma[(size_t) j * d + j];
	if (!(max_diag > 0.0))
		return 0;				/* Σ = 0: the only PSD matrix with a zero diagonal */
	memcpy(a, sigma, sizeof(double) * (size_t) d * d);
	/* Σ is symmetric, so its row-major values are its column-major ones */
	info = LAPACKE_dpstrf(LAPACK_COL_MAJOR, 'L', d, a, d, piv, &rank, -1.0);
	if (info < 0 || rank < 0 || rank > r_max)
		return -1;
	for (c = 0; c < rank; c++)
	{
		double	   *col = out + (size_t) c * d;

		memset(col, 0, sizeof(double) * (size_t) d);
		for (j = c; j < d; j++)
			col[piv[j] - 1] = a[(size_t) c * d + j];
	}
	return (int) rank;
}

/* a row's missing elements as the features' moments (gsu_cov.h) */
int
gsu_cov_fill_missing(int d, double *x, gsu_cov_kind kind, double *cov, const double *mean,
					 const double *var)
{
	int			j,
				n = 0;

	for (j = 0; j < d; j++)
	{
		if (!isnan(x[j]))
			continue;
		x[j] = mean[j];
		if (cov && kind == GSU_COV_DIAG)
			cov[j] += var[j];
		else if (cov && kind == GSU_COV_FULL)
			cov[(size_t) j * d + j] += var[j];
		n++;
	}
	return n;
}

double
gsu_cov_variance_of(int d, const gsu_cov *c, int j)
{
	double		v = 0.0;
	int			k;

	switch (c->kind)
	{
		case GSU_COV_ISO:
			return c->iso;
		case GSU_COV_DIAG:
			return c->data[j];
		case GSU_COV_FULL:
			return c->data[(size_t) j * d + j];
		case GSU_COV_FACTOR:
			for (k = 0; k < c->rank; k++)
				v += c->data[(size_t) j * c->rank + k] * c->data[(size_t) j * c->rank + k];
			return v;
		default:
			return 0.0;
	}
}
