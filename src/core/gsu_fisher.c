/*
 * gsu_fisher.c — Fisher's discriminant score per feature from the moments
 * of the two classes (see gsu_fisher.h).
 */
#include "gsu_fisher.h"

#include <math.h>

gsu_status
gsu_fisher_score(const gsu_moments *pos, const gsu_moments *neg, int ddof, double *out)
{
	int			j;

	if (pos->d != neg->d || pos->full || neg->full || (ddof != 0 && ddof != 1) ||
		pos->n <= ddof || neg->n <= ddof)
		return GSU_EINVAL;
	for (j = 0; j < pos->d; j++)
	{
		/* the difference of the double-double means, then of their parts */
		double		delta = (pos->mean[j] - neg->mean[j]) + (pos->mean_lo[j] - neg->mean_lo[j]);
		double		vp = pos->m2[j] / (double) (pos->n - ddof);
		double		vn = neg->m2[j] / (double) (neg->n - ddof);
		/* √(σ⁺² + σ⁻²) without overflow, so that F = (δ/s)² overflows only when F does */
		double		s = hypot(sqrt(vp), sqrt(vn));

		if (s == 0.0)
			out[j] = delta == 0.0 ? 0.0 : INFINITY;
		else
		{
			double		r = delta / s;

			out[j] = r * r;
		}
	}
	return GSU_OK;
}
