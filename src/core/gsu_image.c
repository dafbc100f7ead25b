/*
 * gsu_image.c — first-order covariance of an image under small Gaussian
 * translations (see gsu_image.h; TPAMI 2018, Appendix B).
 */
#include "gsu_image.h"

#include <math.h>

/*
 * Derivative at v (sample k of len, stride s) along one axis: central
 * difference inside (as a/2 − b/2, which cannot overflow), one-sided at
 * both ends, 0 when len = 1.
 */
static inline double
axis_diff(const double *v, size_t s, int k, int len)
{
	if (len == 1)
		return 0.0;
	if (k == 0)
		return v[s] - v[0];
	if (k == len - 1)
		return v[0] - v[-(ptrdiff_t) s];
	return 0.5 * v[s] - 0.5 * v[-(ptrdiff_t) s];
}

gsu_status
gsu_image_gradient(int w, int h, const double *img, double *gx, double *gy)
{
	int			x,
				y;

	if (w < 1 || h < 1)
		return GSU_EINVAL;
	for (y = 0; y < h; y++)
	{
		size_t		row = (size_t) y * (size_t) w;

		for (x = 0; x < w; x++)
		{
			const double *p = img + row + x;

			gx[row + x] = axis_diff(p, 1, x, w);
			gy[row + x] = axis_diff(p, (size_t) w, y, h);
		}
	}
	return GSU_OK;
}

gsu_status
gsu_image_variance(int w, int h, const double *img, double sigma2, double *var)
{
	int			x,
				y;

	if (w < 1 || h < 1 || !isfinite(sigma2) || sigma2 < 0.0)
		return GSU_EINVAL;
	for (y = 0; y < h; y++)
	{
		size_t		row = (size_t) y * (size_t) w;

		for (x = 0; x < w; x++)
		{
			const double *p = img + row + x;
			double		gx = axis_diff(p, 1, x, w);
			double		gy = axis_diff(p, (size_t) w, y, h);
			double		v = sigma2 * (gx * gx + gy * gy);

			if (!isfinite(v))
				return GSU_ENOTFINITE;
			var[row + x] = v;
		}
	}
	return GSU_OK;
}

gsu_status
gsu_image_covariance_factor(size_t n, const double *gx, const double *gy, double sigma2,
							double *factor)
{
	double		sigma = sqrt(sigma2);
	size_t		i;

	if (!isfinite(sigma2) || sigma2 < 0.0)
		return GSU_EINVAL;
	for (i = 0; i < n; i++)
	{
		factor[2 * i] = sigma * gx[i];
		factor[2 * i + 1] = sigma * gy[i];
		if (!isfinite(factor[2 * i]) || !isfinite(factor[2 * i + 1]))
			return GSU_ENOTFINITE;
	}
	return GSU_OK;
}

gsu_status
gsu_image_covariance(size_t n, const double *gx, const double *gy, double sigma2,
					 double *cov)
{
	size_t		i,
				j;

	if (!isfinite(sigma2) || sigma2 < 0.0)
		return GSU_EINVAL;
	/* the diagonal bounds every entry: |Σ_ij| ≤ √(Σ_ii Σ_jj) */
	for (i = 0; i < n; i++)
		if (!isfinite(sigma2 * (gx[i] * gx[i] + gy[i] * gy[i])))
			return GSU_ENOTFINITE;
	/* Σ_ij = σ² (g_x,i g_x,j + g_y,i g_y,j): a rank-2 outer product */
	for (i = 0; i < n; i++)
	{
		double		ax = gx[i];
		double		ay = gy[i];
		double	   *row = cov + i * n;

		/* same operations in the same order for (i, j) and (j, i) */
		for (j = 0; j < n; j++)
			row[j] = sigma2 * (ax * gx[j] + ay * gy[j]);
	}
	return GSU_OK;
}
