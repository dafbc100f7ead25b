/*
 * gsu_platt.c — Platt's sigmoid calibration of decision values,
 * P(y = 1 | f) = 1 / (1 + exp(A·f + B)), fitted by maximum likelihood on
 * held-out (f_i, y_i) with the smoothed targets of Platt (1999)
 *
 *     t_i = (N₊ + 1)/(N₊ + 2) for y_i = +1,   t_i = 1/(N₋ + 2) for y_i = −1,
 *
 * minimizing the cross-entropy −Σ t_i log p_i + (1 − t_i) log(1 − p_i) by
 * Newton's method with a backtracking line search, written so that no
 * exp() overflows (Lin, Lin & Weng, "A note on Platt's probabilistic outputs
 * for support vector machines", Machine Learning 2007).
 */
#include "gsu_platt.h"

#include <math.h>

/* log(1 + exp(−|z|)) + max(z, 0)-style pieces of the objective, per row */
static double
row_objective(double fapb, double t)
{
	if (fapb >= 0.0)
		return t * fapb + log1p(exp(-fapb));
	return (t - 1.0) * fapb + log1p(exp(fapb));
}

double
gsu_platt_probability(double a, double b, double f)
{
	double		z = a * f + b;

	/* 1/(1 + e^z) without overflow */
	if (z >= 0.0)
	{
		double		e = exp(-z);

		return e / (1.0 + e);
	}
	return 1.0 / (1.0 + exp(z));
}

gsu_status
gsu_platt_fit(int64_t n, const double *f, const double *y, double *a_out,
			  double *b_out, int *iterations)
{
	const double min_step = 1e-10;
	const double sigma = 1e-12;	/* keeps the Hessian positive definite */
	const double eps = 1e-5;
	double		n_pos = 0.0,
				n_neg = 0.0,
				hi,
				lo,
				a,
				b,
				fval = 0.0;
	int64_t		i;
	int			it;

	for (i = 0; i < n; i++)
	{
		if (y[i] > 0.0)
			n_pos += 1.0;
		else
			n_neg += 1.0;
	}
	if (n < 1)
		return GSU_EINVAL;
	hi = (n_pos + 1.0) / (n_pos + 2.0);
	lo = 1.0 / (n_neg + 2.0);
	a = 0.0;
	b = log((n_neg + 1.0) / (n_pos + 1.0));
	for (i = 0; i < n; i++)
		fval += row_objective(f[i] * a + b, y[i] > 0.0 ? hi : lo);

	for (it = 0; it < 100; it++)
	{
		double		h11 = sigma,
					h22 = sigma,
					h21 = 0.0,
					g1 = 0.0,
					g2 = 0.0,
					det,
					da,
					db,
					gd,
					step;

		for (i = 0; i < n; i++)
		{
			double		fapb = f[i] * a + b;
			double		t = y[i] > 0.0 ? hi : lo;
			double		p,
						q,
						d2,
						d1;

			/* p = P(y = 1) = 1/(1 + e^fapb), q = 1 − p */
			if (fapb >= 0.0)
			{
				double		e = exp(-fapb);

				p = e / (1.0 + e);
				q = 1.0 / (1.0 + e);
			}
			else
			{
				double		e = exp(fapb);

				p = 1.0 / (1.0 + e);
				q = e / (1.0 + e);
			}
			d2 = p * q;
			h11 += f[i] * f[i] * d2;
			h22 += d2;
			h21 += f[i] * d2;
			d1 = t - p;
			g1 += f[i] * d1;
			g2 += d1;
		}
		if (fabs(g1) < eps && fabs(g2) < eps)
			break;

		det = h11 * h22 - h21 * h21;
		da = -(h22 * g1 - h21 * g2) / det;
		db = -(-h21 * g1 + h11 * g2) / det;
		gd = g1 * da + g2 * db;

		for (step = 1.0; step >= min_step; step *= 0.5)
		{
			double		na = a + step * da,
						nb = b + step * db,
						nf = 0.0;

			for (i = 0; i < n; i++)
				nf += row_objective(f[i] * na + nb, y[i] > 0.0 ? hi : lo);
			if (nf < fval + 1e-4 * step * gd)
			{
				a = na;
				b = nb;
				fval = nf;
				break;
			}
		}
		if (step < min_step)
			break;				/* no further decrease: keep the best point */
	}
	if (!isfinite(a) || !isfinite(b))
		return GSU_ENOTFINITE;
	*a_out = a;
	*b_out = b;
	if (iterations)
		*iterations = it;
	return GSU_OK;
}
