/*
 * gsu_loss.c — the expected hinge loss of one Gaussian row, its gradients,
 * the streaming SGD step and the scoring functions built on it.
 * Equations: see gsu_loss.h.
 */
#include "gsu_loss.h"

#include <math.h>
#include <string.h>

#include <cblas.h>

#define SQRT_PI 1.7724538509055160273
#define TWO_SQRT_PI 3.5449077018110320546
#define SQRT_2 1.4142135623730950488

/*
 * For t > 0:  k(t) = exp(t²)·h(−t) = 1/(2√π) − t·erfcx(t)/2.
 *
 * The two terms cancel as t grows, so use Laplace's continued fraction
 *     √π·erfcx(t) = 1/(t + (1/2)/(t + (2/2)/(t + (3/2)/(t + …))))
 * written as 1/(t + R) with R = (1/2)/(t + (2/2)/(t + …)) > 0, which gives
 *     k(t) = R / (2√π·(t + R))
 * with no subtraction.  Evaluated bottom-up to a depth that shrinks as t
 * grows, since the fraction converges faster: 12 + 300/t² terms.  Compared
 * with a depth of 2000 over t ∈ [2, 28], the depth that is just enough for
 * a quarter of an ulp is 62 at t = 2, 24 at t = 4, 11 at t = 10 and 7 at
 * t = 27, so this keeps a margin of 25 % or more at every t ≥ 2, the only
 * range where it is used.  (A fixed depth of 120 cost a quarter of a hinge
 * solve's time.)  test_h checks the result against long double references.
 */
static double
h_negative_tail_scaled(double t)
{
	double		tail = t;
	int			n;

	for (n = 12 + (int) (300.0 / (t * t)); n >= 2; n--)
		tail = t + (0.5 * n) / tail;
	{
		double		r = 0.5 / tail;

		return r / (TWO_SQRT_PI * (t + r));
	}
}

/* whether h(u) reads erfc(−u): the tail below −2 and the saturated range do not */
#define H_READS_ERFC(u) ((u) > -2.0 && (u) <= GSU_U_SATURATE)

/* h(u) given e = exp(−u²) and, where H_READS_ERFC(u), c = erfc(−u), which the callers also need */
static inline double
h_with_exp_erfc(double u, double e, double c)
{
	if (u >= 0.0)
	{
		/* no cancellation: both terms are positive */
		if (u > GSU_U_SATURATE)
			return u;
		return 0.5 * u * c + e / TWO_SQRT_PI;
	}
	if (u > -2.0)
		/* mild cancellation (at most a factor ~20 at u = −2) */
		return e / TWO_SQRT_PI + 0.5 * u * c;
	/* e underflows to 0 below u ≈ −27.3, and so does h */
	if (u < -GSU_U_SATURATE || e == 0.0)
		return 0.0;
	return e * h_negative_tail_scaled(-u);
}

/* h(u) given e = exp(−u²) */
static inline double
h_with_exp(double u, double e)
{
	return h_with_exp_erfc(u, e, H_READS_ERFC(u) ? erfc(-u) : 0.0);
}

double
gsu_h(double u)
{
	if (isnan(u))
		return u;
	if (u > GSU_U_SATURATE)
		return u;
	return h_with_exp(u, exp(-u * u));
}

double
gsu_normal_cdf(double z)
{
	return 0.5 * erfc(-z / SQRT_2);
}

double
gsu_expected_hinge(double dx, double ds, double *p, double *q)
{
	double		u,
				e,
				c;

	if (!(ds > GSU_DSIGMA_FLOOR) || fabs(dx) > GSU_U_SATURATE * ds)
	{
		/* the hinge limit, exact in double precision */
		if (p)
			*p = dx > 0.0 ? 1.0 : 0.0;
		if (q)
			*q = 0.0;
		return dx > 0.0 ? dx : 0.0;
	}
	u = dx / ds;
	e = exp(-u * u);
	/* one erfc for both p and h (a libm call the compiler cannot share) */
	c = p || H_READS_ERFC(u) ? erfc(-u) : 0.0;
	if (p)
		*p = 0.5 * c;
	if (q)
		*q = e / TWO_SQRT_PI;
	return ds * h_with_exp_erfc(u, e, c);
}

GSU_HOT double
gsu_decision(int d, const double *theta, const double *x)
{
	return gsu_dot(d, theta, x, NULL) + theta[d];
}

double
gsu_confidence_quad(int d, const double *theta, const double *x, double quad)
{
	return gsu_positive_probability(fabs(gsu_decision(d, theta, x)), quad);
}

double
gsu_positive_probability(double t, double quad)
{
	if (!(quad > 0.0))
		return t > 0.0 ? 1.0 : t < 0.0 ? 0.0 : 0.5;
	return gsu_normal_cdf(t / sqrt(quad));
}

double
gsu_confidence(int d, const double *theta, const double *x, const gsu_cov *cov)
{
	return gsu_confidence_quad(d, theta, x, gsu_cov_quad(d, cov, theta, NULL));
}

double
gsu_row_loss_quad(int d, const double *theta, const double *x, double quad, double y)
{
	double		dx = 1.0 - y * gsu_decision(d, theta, x);

	/* a rounding-negative wᵀΣw of a semi-definite Σ counts as 0 */
	return gsu_expected_hinge(dx, sqrt(2.0 * fmax(quad, 0.0)), NULL, NULL);
}

double
gsu_row_loss(int d, const double *theta, const double *x, const gsu_cov *cov,
			 double y)
{
	return gsu_row_loss_quad(d, theta, x, gsu_cov_quad(d, cov, theta, NULL), y);
}

double
gsu_row_loss_grad(int d, const double *theta, const double *x, const gsu_cov *cov,
				  double y, double mu, double scale, double *grad, double *work)
{
	double		quad = gsu_cov_quad(d, cov, theta, work);

	return gsu_row_loss_grad_quad(d, theta, x, quad, work, y, mu, scale, grad);
}

/* gsu_dot's pairwise sum of its eight partial sums */
static inline double
sum8(const double *s)
{
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/*
 * Four doubles in a vector register (the vector extension of GCC and
 * clang), loaded from and stored to any double's address.  The kernels
 * below keep gsu_dot's eight partial sums in two of them, s[k] in lane k of
 * the first and s[4 + k] in lane k of the second, and add the rest of the
 * row (d mod 8 elements) to s[0], s[1], ... as gsu_dot does, so that they
 * sum in its order.  Written with vectors because the compiler does not
 * vectorize the fused loops on its own.
 */
typedef double v4d __attribute__((vector_size(32), aligned(8), may_alias));
typedef long long v4l __attribute__((vector_size(32)));

/* macros, not functions: a vector passed by value is an ABI the build need not have */
#define ld4(p)		(*(const v4d *) (p))
#define st4(p, v)	(*(v4d *) (p) = (v))
#define splat4(a)	((v4d) {(a), (a), (a), (a)})
#define lanes8(s, lo, hi) \
	do { \
		v4d			lanes8_lo_ = (lo), \
					lanes8_hi_ = (hi); \
		memcpy((s), &lanes8_lo_, sizeof(v4d)); \
		memcpy((s) + 4, &lanes8_hi_, sizeof(v4d)); \
	} while (0)

/*
 * θᵀx + b, and wᵀΣw in *quad, of a row whose Σ is diag(var) (var != NULL)
 * or iso·I (var == NULL; iso 0 for a certain row), in one pass over the row
 * where gsu_decision and gsu_cov_quad take two (three with Σw): the
 * products of their gsu_dot calls, summed in the same order.  A streaming
 * pass reads each row once, and these are most of its arithmetic.
 */
GSU_HOT static double
margin_quad_diag(int d, const double *theta, const double *x, const double *var, double iso,
				 double *quad)
{
	v4d			s0 = splat4(0.0),
				s1 = s0,
				q0 = s0,
				q1 = s0;
	double		s[8],
				q[8];
	int			j = 0,
				k;

	for (; j + 8 <= d; j += 8)
	{
		v4d			t0 = ld4(theta + j),
					t1 = ld4(theta + j + 4);

		s0 += t0 * ld4(x + j);
		s1 += t1 * ld4(x + j + 4);
		if (var)
		{
			q0 += ld4(var + j) * t0 * t0;
			q1 += ld4(var + j + 4) * t1 * t1;
		}
		else
		{
			q0 += t0 * t0;
			q1 += t1 * t1;
		}
	}
	lanes8(s, s0, s1);
	lanes8(q, q0, q1);
	for (k = 0; j < d; j++, k++)
	{
		s[k] += theta[j] * x[j];
		q[k] += (var ? var[j] * theta[j] : theta[j]) * theta[j];
	}
	if (var)
		*quad = sum8(q);
	else
		*quad = iso == 0.0 ? 0.0 : iso * sum8(q);
	return sum8(s) + theta[d];
}

/* the diagonal of a covariance that margin_quad_diag reads: 0 for a full one */
static inline int
diag_parts(const gsu_cov *c, const double **var, double *iso)
{
	*var = c->kind == GSU_COV_DIAG ? c->data : NULL;
	*iso = c->kind == GSU_COV_ISO ? c->iso : 0.0;
	return c->kind != GSU_COV_FULL && c->kind != GSU_COV_FACTOR;
}

GSU_HOT double
gsu_row_loss_grad_diag(int d, const double *restrict theta, const double *restrict x,
					   const gsu_cov *cov, double y, double mu, double scale,
					   double *restrict grad, double *quad_out, int *grad_finite)
{
	const double *var;
	double		iso,
				quad;
	double		dx,
				big_d,
				p,
				q,
				loss,
				cs;
	int			bad = 0;
	int			j;

	if (!diag_parts(cov, &var, &iso))
	{
		/* not for a full covariance (see gsu_loss.h): a NaN, not a wrong sum */
		*quad_out = NAN;
		*grad_finite = 0;
		return NAN;
	}
	dx = 1.0 - y * margin_quad_diag(d, theta, x, var, iso, &quad);
	big_d = sqrt(2.0 * fmax(quad, 0.0) + mu * mu);
	loss = gsu_expected_hinge(dx, big_d, &p, &q);
	cs = q > 0.0 ? 2.0 * q / big_d : 0.0;
	/* gsu_row_loss_grad_quad's update with Σw = var∘w or iso·w formed in place */
	{
		v4d			vsc = splat4(scale),
					vcs = splat4(cs),
					vpy = splat4(p * y),
					viso = splat4(iso),
					zero = splat4(0.0);
		v4l			vbad = {0, 0, 0, 0};

		for (j = 0; j + 4 <= d; j += 4)
		{
			v4d			t = ld4(theta + j);
			v4d			sw = (var ? ld4(var + j) : viso) * t;
			v4d			g = ld4(grad + j) + vsc * (vcs * sw - vpy * ld4(x + j));

			g += zero;
			vbad |= (g - g) != zero;
			st4(grad + j, g);
		}
		bad = (vbad[0] | vbad[1] | vbad[2] | vbad[3]) != 0;
	}
	for (; j < d; j++)
	{
		double		sw = var ? var[j] * theta[j] : iso * theta[j];
		double		g = grad[j] + scale * (cs * sw - p * y * x[j]);

		g += 0.0;
		bad |= !(g - g == 0.0);
		grad[j] = g;
	}
	grad[d] += scale * (-p * y);
	grad[d] += 0.0;
	bad |= !(grad[d] - grad[d] == 0.0);
	*quad_out = quad;
	*grad_finite = !bad;
	return loss;
}

double
gsu_row_loss_grad_quad(int d, const double *theta, const double *x, double quad,
					   const double *sw, double y, double mu, double scale, double *grad)
{
	double		dx = 1.0 - y * gsu_decision(d, theta, x);
	double		big_d = sqrt(2.0 * fmax(quad, 0.0) + mu * mu),
				p,
				q,
				loss = gsu_expected_hinge(dx, big_d, &p, &q);
	/* ∂L/∂w = (2q/D)·Σw − p·y·x,  ∂L/∂b = −p·y */
	double		cs = q > 0.0 ? 2.0 * q / big_d : 0.0;
	int			j;

	for (j = 0; j < d; j++)
		grad[j] += scale * (cs * sw[j] - p * y * x[j]);
	grad[d] += scale * (-p * y);
	return loss;
}

/*
 * gsu_sgd_step for a row whose Σ is diagonal, isotropic or 0: two passes
 * over the row (the margin with wᵀΣw, then the step with ‖w‖² of the new w)
 * instead of five, with every sum and product formed as sgd_step_full forms
 * them (test_core compares the two to the bit).
 */
GSU_HOT static double
sgd_step_diag(int d, double *restrict theta, double lambda, int64_t t,
			  const double *restrict x, const double *restrict var, double iso,
			  double y, double scale)
{
	double		eta = 1.0 / (lambda * (double) t);
	double		eta_c = eta * scale;
	double		quad;
	double		dx = 1.0 - y * margin_quad_diag(d, theta, x, var, iso, &quad);
	double		ds = sqrt(2.0 * fmax(quad, 0.0));
	double		p,
				q,
				loss = gsu_expected_hinge(dx, ds, &p, &q);
	double		shrink = 1.0 - eta * lambda;
	double		cs = q > 0.0 ? 2.0 * q / ds : 0.0;
	double		n[8];
	double		norm2;
	int			j = 0,
				k;

	/* ∂L/∂w = cs·Σw − p·y·x at the old w, with Σw = var∘w or iso·w */
	{
		v4d			vsh = splat4(shrink),
					veta = splat4(eta_c),
					vcs = splat4(cs),
					vpy = splat4(p * y),
					viso = splat4(iso),
					n0 = splat4(0.0),
					n1 = n0;

		for (; j + 8 <= d; j += 8)
		{
			v4d			t0 = ld4(theta + j),
						t1 = ld4(theta + j + 4);
			v4d			sw0 = (var ? ld4(var + j) : viso) * t0,
						sw1 = (var ? ld4(var + j + 4) : viso) * t1;
			v4d			w0 = vsh * t0 - veta * (vcs * sw0 - vpy * ld4(x + j)),
						w1 = vsh * t1 - veta * (vcs * sw1 - vpy * ld4(x + j + 4));

			st4(theta + j, w0);
			st4(theta + j + 4, w1);
			n0 += w0 * w0;
			n1 += w1 * w1;
		}
		lanes8(n, n0, n1);
	}
	for (k = 0; j < d; j++, k++)
	{
		double		sw = var ? var[j] * theta[j] : iso * theta[j];
		double		w = shrink * theta[j] - eta_c * (cs * sw - p * y * x[j]);

		theta[j] = w;
		n[k] += w * w;
	}
	theta[d] += eta_c * p * y;
	norm2 = sum8(n);
	if (norm2 * lambda > 1.0)
	{
		double		radius_scale = 1.0 / sqrt(norm2 * lambda);

		for (j = 0; j < d; j++)
			theta[j] *= radius_scale;
	}
	return loss;
}

/* gsu_sgd_step for a full covariance: Σw by BLAS */
static double
sgd_step_full(int d, double *theta, double lambda, int64_t t, const double *x,
			  const gsu_cov *cov, double y, double scale, double *work)
{
	double		eta = 1.0 / (lambda * (double) t);
	double		eta_c = eta * scale;	/* the step on the loss term */
	double		dx = 1.0 - y * gsu_decision(d, theta, x);
	double		ds = sqrt(2.0 * fmax(gsu_cov_quad(d, cov, theta, work), 0.0));
	double		p,
				q,
				loss = gsu_expected_hinge(dx, ds, &p, &q);
	double		shrink = 1.0 - eta * lambda;
	double		cs = q > 0.0 ? 2.0 * q / ds : 0.0;	/* coefficient of Σw */
	double		norm2;
	int			j;

	/* ∂L/∂w = cs·Σw − p·y·x, with the gradient taken at the old w (Σw in work) */
	for (j = 0; j < d; j++)
		theta[j] = shrink * theta[j] - eta_c * (cs * work[j] - p * y * x[j]);
	theta[d] += eta_c * p * y;
	norm2 = gsu_dot(d, theta, theta, NULL);

	/* project w onto the ball of radius 1/√λ (Pegasos) */
	if (norm2 * lambda > 1.0)
	{
		double		radius_scale = 1.0 / sqrt(norm2 * lambda);

		for (j = 0; j < d; j++)
			theta[j] *= radius_scale;
	}
	return loss;
}

GSU_HOT double
gsu_sgd_step(int d, double *theta, double lambda, int64_t t, const double *x,
			 const gsu_cov *cov, double y, double scale, double *work)
{
	const double *var;
	double		iso;

	if (diag_parts(cov, &var, &iso))
		return sgd_step_diag(d, theta, lambda, t, x, var, iso, y, scale);
	return sgd_step_full(d, theta, lambda, t, x, cov, y, scale, work);
}

void
gsu_sgd_merge(int d, double *a, double wa, const double *b, double wb)
{
	double		fa = wa / (wa + wb);
	int			j;

	for (j = 0; j <= d; j++)
		a[j] = fa * a[j] + (1.0 - fa) * b[j];
}

double
gsu_objective_from_sums(int d, const double *theta, double lambda, double loss_sum,
						double weight)
{
	double		ww = 0.0;
	int			j;

	if (!(weight > 0.0))
		return 0.0;
	for (j = 0; theta && j < d; j++)
		ww += theta[j] * theta[j];
	return 0.5 * lambda * ww + loss_sum / weight;
}

/* h(a) = φ(Φ⁻¹(a)), a in [0, 1]: the largest ‖g‖ paired with a in ∂L at the kink */
double
gsu_hinge_kink_profile(double a)
{
	double		lo = -40.0,
				hi = 40.0;
	int			k;

	if (!(a > 0.0) || !(a < 1.0))
		return 0.0;
	for (k = 0; k < 200 && hi - lo > 1e-15 * (1.0 + fabs(lo)); k++)
	{
		double		mid = 0.5 * (lo + hi);

		if (0.5 * erfc(-mid * 0.70710678118654752440) < a)
			lo = mid;
		else
			hi = mid;
	}
	lo = 0.5 * (lo + hi);
	return exp(-0.5 * lo * lo) * 0.39894228040143267794;	/* 1/√(2π) */
}

/*
 * The point (a*, ρ*) of the subdifferential's profile {a ∈ [0, 1], ρ ≤
 * h(a)} nearest (a, ρ), which lies outside it: on the curve ρ = h(a), by a
 * golden-section search over a.
 */
void
gsu_hinge_kink_nearest(double a, double rho, double *pa, double *prho)
{
	const double golden = 0.5 * (sqrt(5.0) - 1.0);
	double		lo = 0.0,
				hi = 1.0;
	int			k;

	for (k = 0; k < 80; k++)
	{
		double		x1 = hi - golden * (hi - lo),
					x2 = lo + golden * (hi - lo),
					f1 = (x1 - a) * (x1 - a) + (gsu_hinge_kink_profile(x1) - rho) * (gsu_hinge_kink_profile(x1) - rho),
					f2 = (x2 - a) * (x2 - a) + (gsu_hinge_kink_profile(x2) - rho) * (gsu_hinge_kink_profile(x2) - rho);

		if (f1 <= f2)
			hi = x2;
		else
			lo = x1;
	}
	*pa = 0.5 * (lo + hi);
	*prho = gsu_hinge_kink_profile(*pa);
}
