/*
 * gsu_dataset.c — a training set's row weights and labels (gsu_dataset.h).
 */
#include "gsu_dataset.h"

#include <math.h>

gsu_status
gsu_weight_total(const gsu_dataset *ds, double *total)
{
	double		sum = 0.0;
	int64_t		i;

	if (ds->weight == NULL)
	{
		*total = (double) ds->n;
		return ds->n > 0 ? GSU_OK : GSU_EINVAL;
	}
	for (i = 0; i < ds->n; i++)
	{
		if (!(ds->weight[i] >= 0.0) || !isfinite(ds->weight[i]))
			return GSU_EINVAL;
		sum += ds->weight[i];
	}
	*total = sum;
	return (sum > 0.0 && isfinite(sum)) ? GSU_OK : GSU_EINVAL;
}

void
gsu_weights_product(int64_t n, const double *a, double *c, double *work)
{
	double		e_max = -HUGE_VAL;
	int64_t		i;

	/*
	 * c_i = m_i 2^(e_i - E), with m_i 2^e_i the product of the two weights'
	 * mantissas and exponents and E the largest e_i (a factor 2^-E itself
	 * would not be a double for a denormal weight such as 5e-324, where
	 * E = -1073).
	 */
	for (i = 0; i < n; i++)
	{
		int			e1,
					e2;

		c[i] = frexp(a ? a[i] : 1.0, &e1) * frexp(c[i], &e2);
		work[i] = (double) e1 + e2;
		if (work[i] > e_max)
			e_max = work[i];
	}
	for (i = 0; i < n; i++)
		c[i] = ldexp(c[i], (int) (work[i] - e_max));
}

void
gsu_ovr_labels(int64_t n, const double *y, double pos, double *yk)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		yk[i] = y[i] == pos ? 1.0 : -1.0;
}
