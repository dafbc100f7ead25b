/*
 * gsu_standardize.c — the statistics, the row transform and the fold of the
 * option "standardize" (equations in gsu_standardize.h).
 */
#include "gsu_standardize.h"

#include <math.h>
#include <stdlib.h>

gsu_status
gsu_standardize_stats(const gsu_moments *mo, double *mean, double *scale)
{
	int			j;
	gsu_status	s;

	if (mo->full || mo->n < 1)
		return GSU_EINVAL;
	/* population variance M2/n (ddof 0) into scale, then its root */
	s = gsu_moments_covariance(mo, 0, scale);
	if (s != GSU_OK)
		return s;
	for (j = 0; j < mo->d; j++)
	{
		mean[j] = mo->mean[j] + mo->mean_lo[j];
		if (!isfinite(mean[j]))
			return GSU_ENOTFINITE;
	}
	return gsu_standardize_scales(mo->d, scale, scale);
}

gsu_status
gsu_standardize_scales(int d, const double *var, double *out)
{
	int			j;

	for (j = 0; j < d; j++)
	{
		if (!isfinite(var[j]))
			return GSU_ENOTFINITE;
		if (var[j] < 0.0)
			return GSU_EINVAL;
		out[j] = sqrt(var[j]);
		/* a constant feature is centred only */
		if (!(out[j] > 0.0))
			out[j] = 1.0;
	}
	return GSU_OK;
}

gsu_status
gsu_standardize_unfold(int d, const double *mean, const double *scale, const double *folded,
					   double *out)
{
	int			j;
	double		b = folded[d];

	for (j = 0; j < d; j++)
	{
		b += folded[j] * mean[j];
		out[j] = folded[j] * scale[j];
	}
	out[d] = b;
	for (j = 0; j <= d; j++)
		if (!isfinite(out[j]))
			return GSU_ENOTFINITE;
	return GSU_OK;
}

gsu_status
gsu_standardize_check(int d, const double *mean, const double *scale)
{
	int			j;

	for (j = 0; j < d; j++)
		if (!isfinite(mean[j]) || !(isfinite(scale[j]) && scale[j] > 0.0))
			return GSU_EINVAL;
	return GSU_OK;
}

void
gsu_standardize_mean(int d, const double *mean, const double *scale, const double *x,
					 double *out)
{
	int			j;

	for (j = 0; j < d; j++)
		out[j] = (x[j] - mean[j]) / scale[j];
}

void
gsu_standardize_cov(int d, const double *scale, const gsu_cov *c, gsu_cov *out, double *buf)
{
	int			j,
				k;

	out->iso = 0.0;
	out->data = NULL;
	out->rank = 0;
	switch (c->kind)
	{
		case GSU_COV_NONE:
			out->kind = GSU_COV_NONE;
			return;
		case GSU_COV_ISO:
			/* σ² I → diag(σ²/s_j²): the row is no longer isotropic */
			for (j = 0; j < d; j++)
				buf[j] = (c->iso / scale[j]) / scale[j];
			out->kind = GSU_COV_DIAG;
			break;
		case GSU_COV_DIAG:
			for (j = 0; j < d; j++)
				buf[j] = (c->data[j] / scale[j]) / scale[j];
			out->kind = GSU_COV_DIAG;
			break;
		case GSU_COV_FULL:
			for (j = 0; j < d; j++)
				for (k = 0; k < d; k++)
					buf[(size_t) j * d + k] = (c->data[(size_t) j * d + k] / scale[j]) / scale[k];
			out->kind = GSU_COV_FULL;
			break;
		case GSU_COV_FACTOR:
			/* D⁻¹ΣD⁻¹ = (D⁻¹L)(D⁻¹L)ᵀ: row j of L over s_j */
			for (j = 0; j < d; j++)
				for (k = 0; k < c->rank; k++)
					buf[(size_t) j * c->rank + k] = c->data[(size_t) j * c->rank + k] / scale[j];
			out->kind = GSU_COV_FACTOR;
			out->rank = c->rank;
			break;
	}
	out->data = buf;
}

gsu_status
gsu_standardize_fold(int d, const double *mean, const double *scale, const double *theta,
					 double *out)
{
	int			j;
	double		b = theta[d];

	for (j = 0; j < d; j++)
	{
		out[j] = theta[j] / scale[j];
		b -= out[j] * mean[j];
	}
	out[d] = b;
	for (j = 0; j <= d; j++)
		if (!isfinite(out[j]))
			return GSU_ENOTFINITE;
	return GSU_OK;
}
