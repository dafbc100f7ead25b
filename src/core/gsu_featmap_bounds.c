/*
 * gsu_featmap_bounds.c — the worst-case feature-space bounds of Couellan &
 * Jan (Sect. 4): RFF phase bounds and boxes, the Nyström box, the
 * uncertainty radius and ellipsoid distances, and the per-row worst-case
 * term used in training (row box, row term).  The formulas are stated in
 * gsu_featmap.h.
 */
#include "gsu_featmap.h"
#include "gsu_featmap_sigma.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------- worst-case bounds */


gsu_status
gsu_rff_phase_bounds(const gsu_featmap *f, const gsu_cov *incov, double gamma, int q,
					 double *tau)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			p = f->p,
				h = f->dim / 2,
				j,
				k,
				i;

	if (q != 0 && q != 1 && q != 2)
		return GSU_EINVAL;
	if (cov != NULL && q == 2)
	{
		for (j = 0; j < h; j++)
			tau[j] = gamma * sqrt(gsu_sigma_quad_form(p, f->omega + (size_t) j * p, NULL, 0.0,
														 cov));
		return GSU_OK;
	}
	if (cov == NULL)
	{
		for (j = 0; j < h; j++)
		{
			const double *om = f->omega + (size_t) j * p;
			double		s = 0.0;

			for (k = 0; k < p; k++)
			{
				double		a = fabs(om[k]) * sqrt(var != NULL ? var[k] : iso);

				if (q == 1)
					s += a;
				else if (q == 2)
					s += a * a;
				else if (a > s)
					s = a;
			}
			tau[j] = gamma * (q == 2 ? sqrt(s) : s);
		}
		return GSU_OK;
	}
	else
	{
		/* full Σ, q ∈ {1, ∞}: Σ^{1/2} = Q Λ^{1/2} Qᵀ */
		double	   *block,
				   *vals,
				   *vecs,
				   *root,
				   *u;
		gsu_status	st = gsu_sigma_eigen(p, cov, &block, &vals, &vecs);

		if (st != GSU_OK)
			return st;
		root = malloc(sizeof(double) * ((size_t) p * p + p));
		if (root == NULL)
		{
			free(block);
			return GSU_ENOMEM;
		}
		u = root + (size_t) p * p;
		for (i = 0; i < p; i++)
			for (k = 0; k < p; k++)
			{
				double		t = 0.0;
				int			e;

				for (e = 0; e < p; e++)
					t += vecs[(size_t) i * p + e] * sqrt(vals[e]) * vecs[(size_t) k * p + e];
				root[(size_t) i * p + k] = t;
			}
		for (j = 0; j < h; j++)
		{
			const double *om = f->omega + (size_t) j * p;

			for (i = 0; i < p; i++)
			{
				double		t = 0.0;

				for (k = 0; k < p; k++)
					t += root[(size_t) i * p + k] * om[k];
				u[i] = t;
			}
			tau[j] = gamma * gsu_qnorm(p, u, q);
		}
		free(root);
		free(block);
		return GSU_OK;
	}
}

void
gsu_rff_box(const gsu_featmap *f, const double *tau, double *lo, double *hi)
{
	double		c = sqrt(2.0 / f->dim);
	int			j;

	for (j = 0; j < f->dim / 2; j++)
	{
		double		t1 = fmin(tau[j], M_PI),
					t2 = fmin(tau[j], 0.5 * M_PI);

		lo[2 * j] = -c * (1.0 - cos(t1));
		hi[2 * j] = 0.0;
		lo[2 * j + 1] = -c * sin(t2);
		hi[2 * j + 1] = c * sin(t2);
	}
}

void
gsu_rff_rotate(const gsu_featmap *f, const double *x, const double *w, double *v, double *cs)
{
	int			j,
				k;

	for (j = 0; j < f->dim / 2; j++)
	{
		const double *om = f->omega + (size_t) j * f->p;
		double		t = 0.0,
					ct,
					st;

		for (k = 0; k < f->p; k++)
			t += om[k] * x[k];
		ct = cos(t);
		st = sin(t);
		cs[2 * j] = ct;
		cs[2 * j + 1] = st;
		if (w != NULL)
		{
			v[2 * j] = ct * w[2 * j] + st * w[2 * j + 1];
			v[2 * j + 1] = -st * w[2 * j] + ct * w[2 * j + 1];
		}
	}
}

/* max(−y v lo, −y v hi) and its derivative in v */
static inline double
box_term(double v, double y, double lo, double hi, double *dv)
{
	double		a = -y * v * lo,
				b = -y * v * hi;

	if (a >= b)
	{
		*dv = -y * lo;
		return a;
	}
	*dv = -y * hi;
	return b;
}

double
gsu_rff_box_worst(const gsu_featmap *f, const double *x, const double *lo,
				  const double *hi, const double *w, double y, double scale,
				  double *grad, double *work)
{
	double	   *v = work,
			   *cs = work + f->dim;
	double		rho = 0.0;
	int			j;

	gsu_rff_rotate(f, x, w, v, cs);
	for (j = 0; j < f->dim / 2; j++)
	{
		double		d1,
					d2,
					ct = cs[2 * j],
					st = cs[2 * j + 1];

		rho += box_term(v[2 * j], y, lo[2 * j], hi[2 * j], &d1);
		rho += box_term(v[2 * j + 1], y, lo[2 * j + 1], hi[2 * j + 1], &d2);
		if (grad != NULL)
		{
			/* v = R w  ⇒  ∂ρ/∂w = Rᵀ ∂ρ/∂v */
			grad[2 * j] += scale * (ct * d1 - st * d2);
			grad[2 * j + 1] += scale * (st * d1 + ct * d2);
		}
	}
	return rho;
}

gsu_status
gsu_rff_bound_matrix(const gsu_featmap *f, const double *x, const double *lo,
					 const double *hi, double *A)
{
	int			D = f->dim,
				j;
	double	   *cs = malloc(sizeof(double) * D);

	if (cs == NULL)
		return GSU_ENOMEM;
	memset(A, 0, sizeof(double) * (size_t) D * D);
	gsu_rff_rotate(f, x, NULL, NULL, cs);
	for (j = 0; j < D / 2; j++)
	{
		double		r1 = fmax(fabs(lo[2 * j]), fabs(hi[2 * j])),
					r2 = fmax(fabs(lo[2 * j + 1]), fabs(hi[2 * j + 1])),
					ct = cs[2 * j],
					st = cs[2 * j + 1];
		size_t		a = (size_t) (2 * j) * D + 2 * j,
					b = (size_t) (2 * j + 1) * D + 2 * j;

		A[a] = r1 * ct;
		A[a + 1] = r1 * st;
		A[b] = -r2 * st;
		A[b + 1] = r2 * ct;
	}
	free(cs);
	return GSU_OK;
}

double
gsu_uncertainty_radius(int dim, const gsu_cov *incov, double gamma, int p)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	double		lmax = 0.0;
	int			k;

	if (cov != NULL)
	{
		double	   *block,
				   *vals,
				   *vecs;

		if (gsu_sigma_eigen(dim, cov, &block, &vals, &vecs) != GSU_OK)
		{
			/* Gershgorin: λ_max ≤ max_k Σ_l |Σ_kl| */
			for (k = 0; k < dim; k++)
			{
				double		s = 0.0;

				for (int l = 0; l < dim; l++)
					s += fabs(cov[(size_t) k * dim + l]);
				lmax = fmax(lmax, s);
			}
		}
		else
		{
			lmax = vals[dim - 1];
			free(block);
		}
		return gamma * sqrt(lmax) * (p == 0 ? sqrt((double) dim) : 1.0);
	}
	if (var != NULL)
	{
		double		s = 0.0;

		for (k = 0; k < dim; k++)
		{
			lmax = fmax(lmax, var[k]);
			s += var[k];
		}
		/* p = ∞ with a diagonal Σ: the box's half-diagonal γ√(Σ v_k) */
		return gamma * sqrt(p == 0 ? s : lmax);
	}
	return gamma * sqrt(iso) * (p == 0 ? sqrt((double) dim) : 1.0);
}

/*
 * The least and greatest ‖e + δ‖² over the ellipsoid δ = diag(v)^{1/2}u,
 * ‖u‖ ≤ γ (Lagrange: u_k = ±√v_k e_k/(λ ∓ v_k), λ from the secular
 * equation Σ_k v_k e_k²/(λ ∓ v_k)² = γ², solved by bisection and taken on
 * the side of the root that keeps the interval conservative).
 *   max: λ ≥ max v_k, ‖e + δ‖² = Σ e_k² λ²/(λ − v_k)² (decreasing in λ); when
 *        e has no component on the widest axes and the equation has no root
 *        there (the "hard case"), λ = max v_k and the rest of the budget goes
 *        along those axes;
 *   min: 0 when e lies in the ellipsoid, else λ > 0 and
 *        ‖e + δ‖² = Σ e_k² λ²/(λ + v_k)² (increasing in λ).
 */
static void
ellipsoid_distance_range(int d, const double *e, const double *var, double iso,
						 double gamma, double *dmin2, double *dmax2)
{
	double		vmax = 0.0,
				e2 = 0.0,
				g2 = gamma * gamma,
				eS2 = 0.0,
				lo,
				hi,
				h0 = 0.0,
				fixed2 = 0.0;
	int			k,
				it;

#define V(k) (var != NULL ? var[k] : iso)
	for (k = 0; k < d; k++)
	{
		vmax = fmax(vmax, V(k));
		e2 += e[k] * e[k];
	}
	if (vmax <= 0.0 || g2 <= 0.0)
	{
		*dmin2 = *dmax2 = e2;
		return;
	}
	/* ---- greatest distance */
	for (k = 0; k < d; k++)
		if (V(k) == vmax)
			eS2 += e[k] * e[k];
	lo = vmax;
	hi = vmax + sqrt(vmax * e2) / gamma + vmax * 1e-12 + DBL_MIN;
	if (eS2 == 0.0)
	{
		double		g = 0.0,
					d2 = 0.0;

		for (k = 0; k < d; k++)
			if (V(k) < vmax)
			{
				double		t = vmax - V(k);

				g += V(k) * e[k] * e[k] / (t * t);
				d2 += e[k] * e[k] * vmax * vmax / (t * t);
			}
		if (g <= g2)
		{
			*dmax2 = d2 + vmax * (g2 - g);
			goto minimum;
		}
	}
	for (it = 0; it < 200; it++)
	{
		double		mid = 0.5 * (lo + hi),
					g = 0.0;

		if (mid <= lo || mid >= hi)
			break;
		for (k = 0; k < d; k++)
		{
			double		t = mid - V(k);

			g += V(k) * e[k] * e[k] / (t * t);
		}
		if (g > g2)
			lo = mid;
		else
			hi = mid;
	}
	/* lo: g ≥ γ², the larger distance */
	{
		double		d2 = 0.0;

		if (lo <= vmax)
			lo = nextafter(vmax, INFINITY);
		for (k = 0; k < d; k++)
		{
			double		r = lo / (lo - V(k));

			d2 += e[k] * e[k] * r * r;
		}
		*dmax2 = d2;
	}

minimum:
	/* ---- least distance */
	for (k = 0; k < d; k++)
	{
		if (V(k) > 0.0)
			h0 += e[k] * e[k] / V(k);
		else
			fixed2 += e[k] * e[k];
	}
	if (h0 <= g2)
	{
		*dmin2 = fixed2;
		return;
	}
	lo = 0.0;
	hi = sqrt(vmax * e2) / gamma + DBL_MIN;
	for (it = 0; it < 200; it++)
	{
		double		mid = 0.5 * (lo + hi),
					h = 0.0;

		if (mid <= lo || mid >= hi)
			break;
		for (k = 0; k < d; k++)
		{
			double		t = mid + V(k);

			h += V(k) * e[k] * e[k] / (t * t);
		}
		if (h > g2)
			lo = mid;
		else
			hi = mid;
	}
	/* lo: h ≥ γ², the smaller distance */
	{
		double		d2 = 0.0;

		for (k = 0; k < d; k++)
		{
			double		r = lo / (lo + V(k));

			d2 += e[k] * e[k] * r * r;
		}
		*dmin2 = d2;
	}
#undef V
}

gsu_status
gsu_nystroem_box(const gsu_featmap *f, const double *x, const gsu_cov *incov, double gamma,
				 int p, double *lo, double *hi, double *radius, double *work)
{
	const double *var = gsu_cov_diag_data(incov),
			   *cov = gsu_cov_full_data(incov);
	double		iso = gsu_cov_iso_value(incov);
	int			m = f->landmarks,
				d = f->p,
				l,
				k;
	double		inv2s2 = gsu_inv_2sigma2(f->sigma);
	double		rho;
	int			exact_box = (p == 0 && cov == NULL);

	if (p != 0 && p != 1 && p != 2)
		return GSU_EINVAL;
	rho = gsu_uncertainty_radius(d, incov, gamma, p);
	*radius = rho;
	for (l = 0; l < m; l++)
	{
		const double *zl = f->z + (size_t) l * d;
		double		dmin2 = 0.0,
					dmax2 = 0.0,
					k0;

		if (exact_box)
		{
			double		e2 = 0.0;

			for (k = 0; k < d; k++)
			{
				double		e = fabs(x[k] - zl[k]),
							rk = gamma * sqrt(var != NULL ? var[k] : iso),
							a = fmax(0.0, e - rk),
							b = e + rk;

				dmin2 += a * a;
				dmax2 += b * b;
				e2 += e * e;
			}
			k0 = exp(-e2 * inv2s2);
		}
		else if (p == 2 && cov == NULL)
		{
			double	   *ev = work,
						e2 = 0.0;

			for (k = 0; k < d; k++)
			{
				ev[k] = x[k] - zl[k];
				e2 += ev[k] * ev[k];
			}
			ellipsoid_distance_range(d, ev, var, iso, gamma, &dmin2, &dmax2);
			k0 = exp(-e2 * inv2s2);
		}
		else
		{
			double		e2 = 0.0,
						e,
						a,
						b;

			for (k = 0; k < d; k++)
			{
				double		t = x[k] - zl[k];

				e2 += t * t;
			}
			e = sqrt(e2);
			a = fmax(0.0, e - rho);
			b = e + rho;
			dmin2 = a * a;
			dmax2 = b * b;
			k0 = exp(-e2 * inv2s2);
		}
		lo[l] = exp(-dmax2 * inv2s2) - k0;
		hi[l] = exp(-dmin2 * inv2s2) - k0;
		if (lo[l] > 0.0)
			lo[l] = 0.0;
		if (hi[l] < 0.0)
			hi[l] = 0.0;
	}
	return GSU_OK;
}

double
gsu_nystroem_box_worst(const gsu_featmap *f, const double *lo, const double *hi,
					   const double *w, double y, double scale, double *grad,
					   double *work)
{
	int			m = f->landmarks,
				r = f->dim,
				l,
				j;
	double		rho = 0.0;

	(void) work;
	for (l = 0; l < m; l++)
	{
		const double *pr = f->proj + (size_t) l * r;
		double		g = 0.0,
					dg;

		for (j = 0; j < r; j++)
			g += pr[j] * w[j];
		rho += box_term(g, y, lo[l], hi[l], &dg);
		if (grad != NULL && dg != 0.0)
			for (j = 0; j < r; j++)
				grad[j] += scale * dg * pr[j];
	}
	return rho;
}

void
gsu_nystroem_bound_matrix(const gsu_featmap *f, const double *lo, const double *hi,
						  double *A)
{
	int			m = f->landmarks,
				r = f->dim,
				l,
				j;

	for (l = 0; l < m; l++)
	{
		double		beta = fmax(fabs(lo[l]), fabs(hi[l]));

		for (j = 0; j < r; j++)
			A[(size_t) l * r + j] = beta * f->proj[(size_t) l * r + j];
	}
}

/* ------------------------------------ per-row worst case, for training */

size_t
gsu_featmap_box_len(const gsu_featmap *f)
{
	return 2 * (size_t) (f->kind == GSU_MAP_NYSTROEM ? f->landmarks : f->dim);
}

size_t
gsu_featmap_box_work_size(const gsu_featmap *f)
{
	/* row_box: τ (D/2) or p; row_term: 2D (RFF) or m (Nyström) */
	size_t		a,
				b;

	if (f->kind == GSU_MAP_POLY2)
		return gsu_poly2_box_work_size(f);
	a = f->kind == GSU_MAP_RFF ? 2 * (size_t) f->dim : (size_t) f->landmarks;
	b = f->kind == GSU_MAP_RFF ? (size_t) f->dim / 2 : (size_t) f->p;

	return a > b ? a : b;
}

gsu_status
gsu_featmap_row_box(const gsu_featmap *f, const double *x, const gsu_cov *incov,
					double gamma, int p, double *box, double *work)
{
	size_t		half = gsu_featmap_box_len(f) / 2,
				k;
	gsu_status	st;

	if (p != 0 && p != 1 && p != 2)
		return GSU_EINVAL;
	if (f->kind == GSU_MAP_RFF)
	{
		/* Hölder's dual: p = 1 ↔ q = ∞ (0), p = 2 ↔ 2, p = ∞ ↔ 1 */
		int			q = p == 2 ? 2 : p == 1 ? 0 : 1;

		st = gsu_rff_phase_bounds(f, incov, gamma, q, work);
		if (st != GSU_OK)
			return st;
		gsu_rff_box(f, work, box, box + half);
	}
	else if (f->kind == GSU_MAP_POLY2)
	{
		int			q = p == 2 ? 2 : p == 1 ? 0 : 1;

		st = gsu_poly2_row_box(f, x, incov, gamma, q, box, box + half, work);
		if (st != GSU_OK)
			return st;
	}
	else
	{
		double		radius;

		st = gsu_nystroem_box(f, x, incov, gamma, p, box, box + half, &radius, work);
		if (st != GSU_OK)
			return st;
	}
	for (k = 0; k < 2 * half; k++)
		if (!isfinite(box[k]))
			return GSU_ENOTFINITE;
	return GSU_OK;
}
