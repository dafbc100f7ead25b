/*
 * gsu_explain.c — the per-feature split of a linear decision's mean and
 * variance under a Gaussian input (see gsu_explain.h for the equations).
 */
#include "gsu_explain.h"

#include <cblas.h>
#include <string.h>

double
gsu_explain_contributions(int d, const double *theta, const double *x, double *c)
{
	int			j;

	for (j = 0; j < d; j++)
		c[j] = theta[j] * x[j];
	/* the sum as gsu_decision adds it, so that the two agree exactly */
	return gsu_dot(d, theta, x, NULL) + theta[d];
}

static double
explain_shares_diag(int d, const double *w, const double *var, double iso, double *s)
{
	int			j;

	/* the totals are summed as gsu_cov_quad sums them, so that the two agree exactly */
	if (var == NULL)
	{
		/* iso·Σ_j w_j²: exactly 0 for iso = 0 */
		for (j = 0; j < d; j++)
			s[j] = iso == 0.0 ? 0.0 : iso * w[j] * w[j];
		return iso == 0.0 ? 0.0 : iso * gsu_dot(d, w, w, NULL);
	}
	for (j = 0; j < d; j++)
		s[j] = var[j] * w[j] * w[j];
	return gsu_dot(d, w, w, var);
}

static double
explain_shares_full(int d, const double *w, const double *cov, double *s)
{
	double		quad;
	int			j;

	/* s = Σw, then wᵀ(Σw) as gsu_quad_full, then s_j = w_j (Σw)_j */
	cblas_dsymv(CblasRowMajor, CblasUpper, d, 1.0, cov, d, w, 1, 0.0, s, 1);
	quad = cblas_ddot(d, w, 1, s, 1);
	for (j = 0; j < d; j++)
		s[j] *= w[j];
	return quad;
}

double
gsu_explain_shares(int d, const double *w, const gsu_cov *c, double *s)
{
	switch (c->kind)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			return explain_shares_diag(d, w, NULL, c->iso, s);
		case GSU_COV_DIAG:
			return explain_shares_diag(d, w, c->data, 0.0, s);
		case GSU_COV_FULL:
			return explain_shares_full(d, w, c->data, s);
		case GSU_COV_FACTOR:
			{
				/* s = L(Lᵀw), O(d·r), then s_j = w_j (Σw)_j */
				double		quad = gsu_factor_quad2(d, c->rank, c->data, w, w);
				int			j;

				memset(s, 0, sizeof(double) * (size_t) d);
				gsu_factor_apply(d, c->rank, c->data, 1.0, w, 0.0, NULL, s);
				for (j = 0; j < d; j++)
					s[j] *= w[j];
				return quad;
			}
	}
	memset(s, 0, sizeof(double) * (size_t) d);
	return 0.0;
}
