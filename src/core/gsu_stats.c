/*
 * gsu_stats.c — the regularized incomplete beta function and the tests built
 * on it (gsu_stats.h): Student's t, the binomial with p = 1/2 (McNemar's
 * exact test) and Nadeau & Bengio's corrected resampled t-test.
 */
#include "gsu_stats.h"

#include <float.h>
#include <math.h>

#define LN_2PI 1.837877066409345483560659472811	/* log(2π) */
#define LN_SQRT_2PI 0.918938533204672741780329736406	/* log(√(2π)) */

/*
 * stirlerr(n) = log Γ(n + 1) − ((n + ½) log n − n + log √(2π)), the error of
 * Stirling's formula: lgamma directly for n ≤ 15 (small values, so the
 * absolute error of the difference is a few ulp of 30), the asymptotic
 * series above (Loader 2000; R's stirlerr).
 */
static double
stirlerr(double n)
{
	const double S0 = 1.0 / 12.0,
				S1 = 1.0 / 360.0,
				S2 = 1.0 / 1260.0,
				S3 = 1.0 / 1680.0,
				S4 = 1.0 / 1188.0;
	double		nn;

	if (n <= 15.0)
		return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - LN_SQRT_2PI;
	nn = n * n;
	if (n > 500.0)
		return (S0 - S1 / nn) / n;
	if (n > 80.0)
		return (S0 - (S1 - S2 / nn) / nn) / n;
	if (n > 35.0)
		return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
	return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/*
 * bd0(x, m) = x log(x/m) + m − x, the deviance term, computed without the
 * cancellation of that formula when x is close to m (Loader 2000): then with
 * v = (x − m)/(x + m) it is (x − m)v + 2x Σ_{j≥1} v^{2j+1}/(2j + 1).
 * x > 0, m > 0.
 */
static double
bd0(double x, double m)
{
	if (fabs(x - m) < 0.1 * (x + m))
	{
		double		v = (x - m) / (x + m);
		double		s = (x - m) * v;
		double		ej = 2.0 * x * v;
		int			j;

		if (fabs(s) < DBL_MIN)
			return s;
		v = v * v;
		for (j = 1; j < 1000; j++)
		{
			double		s1;

			ej *= v;
			s1 = s + ej / (double) (2 * j + 1);
			if (s1 == s)
				return s1;
			s = s1;
		}
	}
	return x * log(x / m) + m - x;
}

/*
 * Γ(k + m + 1) / (Γ(k + 1) Γ(m + 1)) p^k q^m for real k, m ≥ 0 and p, q > 0
 * with p + q = 1: a binomial density with n = k + m, by Loader's formula
 * (R's dbinom_raw), relative error a few ulp also for large k and m.
 */
static double
binom_density(double k, double m, double p, double q)
{
	double		n,
				lc,
				lf;

	if (m == 0.0)
		return k == 0.0 ? 1.0 : exp(k * (q < 0.5 ? log1p(-q) : log(p)));
	if (k == 0.0)
		return exp(m * (p < 0.5 ? log1p(-p) : log(q)));
	n = k + m;
	lc = stirlerr(n) - stirlerr(k) - stirlerr(m) - bd0(k, n * p) - bd0(m, n * q);
	lf = LN_2PI + log(k) + log(m / n);
	return exp(lc - 0.5 * lf);
}

/*
 * x^a y^b / (a B(a, b)) = Γ(a + b) / (Γ(a + 1) Γ(b)) x^a y^b, the factor in
 * front of the continued fraction.  With b ≥ 1 it is a binomial density
 * with k = a, m = b − 1, times y; with a ≥ 1 it is b/a times the density
 * with k = b, m = a − 1 and the roles of x and y exchanged, times x; both
 * below 1 (small arguments) by lgamma.
 */
static double
beta_front(double a, double b, double x, double y)
{
	if (b >= 1.0)
		return binom_density(a, b - 1.0, x, y) * y;
	if (a >= 1.0)
		return (b / a) * binom_density(b, a - 1.0, y, x) * x;
	return exp(a * log(x) + b * log(y) + lgamma(a + b) - lgamma(a + 1.0) - lgamma(b));
}

/*
 * The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified
 * Lentz): I_x(a, b) = beta_front(a, b, x, y) · cf, y = 1 − x.  Converges quickly for
 * x < (a + 1)/(a + b + 2).  0 when it did not converge within
 * GSU_BETAINC_MAX_STEPS steps.
 */
static int
beta_cf(double a, double b, double xd, double yd, double *cf)
{
	const long double tiny = 1e-300L;
	/* near 1, x from its complement: its rounding as a double is amplified */
	long double x = xd <= 0.5 ? (long double) xd : 1.0L - (long double) yd;
	long double qab = (long double) a + b,
				qap = (long double) a + 1.0L,
				qam = (long double) a - 1.0L;
	long double c = 1.0L,
				d = 1.0L - qab * x / qap,
				h;
	long		m;

	if (fabsl(d) < tiny)
		d = tiny;
	d = 1.0L / d;
	h = d;
	for (m = 1; m <= GSU_BETAINC_MAX_STEPS; m++)
	{
		long double dm = (long double) m,
					m2 = 2.0L * dm,
					aa,
					del;

		aa = dm * (b - dm) * x / ((qam + m2) * (a + m2));
		d = 1.0L + aa * d;
		if (fabsl(d) < tiny)
			d = tiny;
		c = 1.0L + aa / c;
		if (fabsl(c) < tiny)
			c = tiny;
		d = 1.0L / d;
		h *= d * c;
		aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));
		d = 1.0L + aa * d;
		if (fabsl(d) < tiny)
			d = tiny;
		c = 1.0L + aa / c;
		if (fabsl(c) < tiny)
			c = tiny;
		d = 1.0L / d;
		del = d * c;
		h *= del;
		if (fabsl(del - 1.0L) <= (long double) DBL_EPSILON)
		{
			*cf = (double) h;
			return 1;
		}
	}
	return 0;
}

gsu_status
gsu_betainc(double a, double b, double x, double y, double *ix, double *ix_complement)
{
	double		cf;

	if (!(a > 0.0) || !(b > 0.0) || !isfinite(a) || !isfinite(b) ||
		!(x >= 0.0) || !(y >= 0.0) || !(x <= 1.0) || !(y <= 1.0) ||
		fabs(x + y - 1.0) > 8.0 * DBL_EPSILON)
		return GSU_EINVAL;
	if (x == 0.0)
	{
		*ix = 0.0;
		*ix_complement = 1.0;
		return GSU_OK;
	}
	if (y == 0.0)
	{
		*ix = 1.0;
		*ix_complement = 0.0;
		return GSU_OK;
	}
	if (x < (a + 1.0) / (a + b + 2.0))
	{
		if (!beta_cf(a, b, x, y, &cf))
			return GSU_ENOTFINITE;
		*ix = fmin(1.0, beta_front(a, b, x, y) * cf);
		*ix_complement = 1.0 - *ix;
	}
	else
	{
		if (!beta_cf(b, a, y, x, &cf))
			return GSU_ENOTFINITE;
		*ix_complement = fmin(1.0, beta_front(b, a, y, x) * cf);
		*ix = 1.0 - *ix_complement;
	}
	return GSU_OK;
}

gsu_status
gsu_student_t_two_sided(double t, double df, double *p)
{
	double		r,
				x,
				y,
				ic;

	if (isnan(t) || !(df > 0.0) || !isfinite(df))
		return GSU_EINVAL;
	if (isinf(t))
	{
		*p = 0.0;
		return GSU_OK;
	}
	/* x = df/(df + t²), y = t²/(df + t²), without overflowing t² */
	r = fabs(t) / sqrt(df);
	if (r > 1.0)
	{
		double		u = 1.0 / r;

		x = u * u / (1.0 + u * u);
		y = 1.0 / (1.0 + u * u);
	}
	else
	{
		x = 1.0 / (1.0 + r * r);
		y = r * r / (1.0 + r * r);
	}
	return gsu_betainc(df / 2.0, 0.5, x, y, p, &ic);
}

gsu_status
gsu_binom_half_cdf(int64_t k, int64_t n, double *p)
{
	double		ic;

	if (k < 0 || n < 0)
		return GSU_EINVAL;
	if (k >= n)
	{
		*p = 1.0;
		return GSU_OK;
	}
	/* P(X ≤ k) = I_{1/2}(n − k, k + 1) */
	return gsu_betainc((double) (n - k), (double) k + 1.0, 0.5, 0.5, p, &ic);
}

gsu_status
gsu_mcnemar_exact(int64_t b, int64_t c, double *p)
{
	double		tail;
	gsu_status	st;

	if (b < 0 || c < 0 || b > INT64_MAX - c)
		return GSU_EINVAL;
	if (b == c)
	{
		/* P(X ≤ n/2) ≥ 1/2 */
		*p = 1.0;
		return GSU_OK;
	}
	st = gsu_binom_half_cdf(b < c ? b : c, b + c, &tail);
	if (st != GSU_OK)
		return st;
	*p = fmin(1.0, 2.0 * tail);
	return GSU_OK;
}

gsu_status
gsu_corrected_ttest(int64_t j, double mean, double var, double ratio, gsu_ttest_result *r)
{
	double		se;

	if (j < 2 || !isfinite(ratio) || ratio < 0.0 || !isfinite(mean) ||
		!isfinite(var) || var < 0.0)
		return GSU_EINVAL;
	r->df = (double) (j - 1);
	se = sqrt((1.0 / (double) j + ratio) * var);
	r->se = se;
	if (se == 0.0 || !isfinite(mean / se))
	{
		if (mean == 0.0)
		{
			r->t = NAN;
			r->p = NAN;
		}
		else
		{
			r->t = mean > 0.0 ? INFINITY : -INFINITY;
			r->p = 0.0;
		}
		return GSU_OK;
	}
	r->t = mean / se;
	return gsu_student_t_two_sided(r->t, r->df, &r->p);
}

/* see gsu_stats.h */
void
gsu_paired_moments_merge(gsu_paired_moments *a, const gsu_paired_moments *b)
{
	double		fb,
				delta;

	if (b->n == 0)
		return;
	if (a->n == 0)
	{
		*a = *b;
		return;
	}
	fb = (double) b->n / ((double) a->n + (double) b->n);
	delta = b->mean_d - a->mean_d;
	a->m2_d += b->m2_d + delta * delta * (double) a->n * fb;
	a->mean_d += delta * fb;
	a->mean_a += (b->mean_a - a->mean_a) * fb;
	a->mean_b += (b->mean_b - a->mean_b) * fb;
	a->n += b->n;
}
