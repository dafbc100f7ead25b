/*
 * gsu_image.h — the Gaussian of an image's small random translations
 * (Tzelepis et al., "Linear Maximum Margin Classifier for Learning from
 * Uncertain Data", TPAMI 2018, Appendix B).
 *
 * An image I of width w and height h is stored row-major: pixel (x, y),
 * column x ∈ [0, w), row y ∈ [0, h) (y grows downwards), at index y·w + x.
 * Under a random translation t = (t_x, t_y) ~ N(0, σ²I₂), to first order
 *
 *     I(p + t) ≈ I(p) + J(p) t,     J = [∂I/∂x  ∂I/∂y]   (an n×2 matrix, n = w·h),
 *
 * so the translated image is Gaussian with mean I and covariance
 *
 *     Σ = J Σ_t Jᵀ = σ² (g_x g_xᵀ + g_y g_yᵀ),     Σ_pp = σ² (g_x(p)² + g_y(p)²),
 *
 * a matrix of rank at most 2.  The gradients are finite differences:
 * central inside, (I[x+1] − I[x−1])/2, and one-sided at the borders,
 * I[1] − I[0] and I[w−1] − I[w−2] (likewise along y); along an axis of
 * length 1 the derivative is 0.  The one-sided border difference is the
 * exact derivative of the bilinear interpolant extended linearly past the
 * border.
 */
#ifndef GSU_IMAGE_H
#define GSU_IMAGE_H

#include "gsu_base.h"

/*
 * g_x, g_y (w·h values each) of a finite image.  GSU_EINVAL for w < 1 or
 * h < 1.  (A one-sided difference of values near ±DBL_MAX may be infinite;
 * gsu_image_covariance then reports GSU_ENOTFINITE.)
 */
gsu_status	gsu_image_gradient(int w, int h, const double *img, double *gx, double *gy);

/*
 * var_p = σ² (g_x(p)² + g_y(p)²) for every pixel.  GSU_EINVAL for bad sizes
 * or σ² negative or not finite; GSU_ENOTFINITE when a variance overflows.
 */
gsu_status	gsu_image_variance(int w, int h, const double *img, double sigma2,
							   double *var);

/*
 * The full covariance Σ = σ² (g_x g_xᵀ + g_y g_yᵀ), n×n row-major (n = w·h),
 * from the gradients of gsu_image_gradient.  Exactly symmetric, and its
 * diagonal equals gsu_image_variance bit for bit.
 * GSU_EINVAL for σ² negative or not finite; GSU_ENOTFINITE on overflow.
 */
gsu_status	gsu_image_covariance(size_t n, const double *gx, const double *gy,
								 double sigma2, double *cov);

/*
 * The same covariance as its factor L (n×2 row-major, Σ = LLᵀ): the columns
 * σ·g_x and σ·g_y, σ = √σ², in O(n).  GSU_EINVAL for σ² negative or not
 * finite; GSU_ENOTFINITE on overflow.
 */
gsu_status	gsu_image_covariance_factor(size_t n, const double *gx, const double *gy,
										double sigma2, double *factor);

#endif							/* GSU_IMAGE_H */
