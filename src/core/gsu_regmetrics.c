/*
 * gsu_regmetrics.c — the running moments of the regression metrics (see
 * gsu_regmetrics.h).
 */
#include "gsu_regmetrics.h"

#include <math.h>
#include <string.h>

#define LOG_2PI 1.8378770664093454836	/* log 2π */

int
gsu_regmoments_valid(const gsu_regmoments *s)
{
	if (!isfinite(s->n) || !isfinite(s->mean_y) || !isfinite(s->m2_y) ||
		!isfinite(s->mean_a) || !isfinite(s->mean_b))
		return 0;
	if (s->n < 0.0 || s->n != floor(s->n) || s->n > 9007199254740992.0 || s->m2_y < 0.0 ||
		s->mean_b < 0.0)
		return 0;
	return s->n > 0.0 || (s->mean_y == 0.0 && s->m2_y == 0.0 && s->mean_a == 0.0 &&
						  s->mean_b == 0.0);
}

gsu_status
gsu_regmoments_add(gsu_regmoments *s, double y, double a, double b)
{
	gsu_regmoments t = *s;
	double		d = y - t.mean_y;

	t.n += 1.0;
	t.mean_y += d / t.n;
	t.m2_y += d * (y - t.mean_y);
	t.mean_a += (a - t.mean_a) / t.n;
	t.mean_b += (b - t.mean_b) / t.n;
	if (!isfinite(d) || !isfinite(t.mean_y) || !isfinite(t.m2_y) || !isfinite(t.mean_a) ||
		!isfinite(t.mean_b))
		return GSU_ENOTFINITE;
	*s = t;
	return GSU_OK;
}

gsu_status
gsu_regmoments_merge(const gsu_regmoments *a, const gsu_regmoments *b, gsu_regmoments *out)
{
	gsu_regmoments t;
	double		fb,
				d;

	if (a->n == 0.0 || b->n == 0.0)
	{
		*out = a->n == 0.0 ? *b : *a;
		return GSU_OK;
	}
	t.n = a->n + b->n;
	fb = b->n / t.n;
	d = b->mean_y - a->mean_y;
	t.mean_y = a->mean_y + d * fb;
	t.m2_y = a->m2_y + b->m2_y + d * d * a->n * fb;
	t.mean_a = a->mean_a + (b->mean_a - a->mean_a) * fb;
	t.mean_b = a->mean_b + (b->mean_b - a->mean_b) * fb;
	if (!isfinite(t.mean_y) || !isfinite(t.m2_y) || !isfinite(t.mean_a) || !isfinite(t.mean_b))
		return GSU_ENOTFINITE;
	*out = t;
	return GSU_OK;
}

double
gsu_regmoments_r2(const gsu_regmoments *s)
{
	if (s->n < 2.0 || s->m2_y == 0.0)
		return NAN;
	return 1.0 - s->n * s->mean_a / s->m2_y;
}

double
gsu_nlpd_term(double mu, double sd, double y)
{
	double		z;

	if (!(sd > 0.0))
		return NAN;
	z = (y - mu) / sd;
	return 0.5 * LOG_2PI + log(sd) + 0.5 * z * z;
}
