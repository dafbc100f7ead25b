/*
 * gsu_lbfgs.c — L-BFGS (Nocedal 1980; Liu & Nocedal 1989) with the two-loop
 * recursion, initial scaling H₀ = sᵀy/yᵀy, and a backtracking Armijo line
 * search, f(x + t·d) ≤ f(x) + 10⁻⁴·t·∇f(x)ᵀd, halving t from 1 (from
 * 1/‖∇f‖ on the first iteration).  Pairs with sᵀy ≤ 10⁻¹⁰‖s‖‖y‖ are not
 * stored, which keeps the inverse-Hessian estimate positive definite.
 */
#include "gsu_lbfgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

gsu_status
gsu_lbfgs_init(gsu_lbfgs *L, int n, int m, const double *x0)
{
	memset(L, 0, sizeof(*L));
	if (n < 1 || m < 1)
		return GSU_EINVAL;
	L->n = n;
	L->m = m;
	L->s = malloc(sizeof(double) * (size_t) m * n);
	L->y = malloc(sizeof(double) * (size_t) m * n);
	L->rho = malloc(sizeof(double) * (size_t) m);
	L->alpha = malloc(sizeof(double) * (size_t) m);
	L->x = malloc(sizeof(double) * (size_t) n);
	L->xc = malloc(sizeof(double) * (size_t) n);
	L->gc = malloc(sizeof(double) * (size_t) n);
	L->dir = malloc(sizeof(double) * (size_t) n);
	if (!L->s || !L->y || !L->rho || !L->alpha || !L->x || !L->xc || !L->gc || !L->dir)
	{
		gsu_lbfgs_free(L);
		return GSU_ENOMEM;
	}
	memcpy(L->x, x0, sizeof(double) * (size_t) n);
	return GSU_OK;
}

void
gsu_lbfgs_free(gsu_lbfgs *L)
{
	free(L->s);
	free(L->y);
	free(L->rho);
	free(L->alpha);
	free(L->x);
	free(L->xc);
	free(L->gc);
	free(L->dir);
	memset(L, 0, sizeof(*L));
}

/* dir = −H·gc by the two-loop recursion over the stored pairs */
static void
two_loop(gsu_lbfgs *L)
{
	int			n = L->n,
				k,
				i;
	double		gamma = 1.0;

	for (i = 0; i < n; i++)
		L->dir[i] = -L->gc[i];
	for (k = L->pairs - 1; k >= 0; k--)
	{
		int			slot = (L->head + k) % L->m;
		const double *s = L->s + (size_t) slot * n;
		const double *y = L->y + (size_t) slot * n;

		L->alpha[slot] = L->rho[slot] * cblas_ddot(n, s, 1, L->dir, 1);
		cblas_daxpy(n, -L->alpha[slot], y, 1, L->dir, 1);
	}
	if (L->pairs > 0)
	{
		int			last = (L->head + L->pairs - 1) % L->m;
		const double *y = L->y + (size_t) last * n;

		gamma = 1.0 / (L->rho[last] * cblas_ddot(n, y, 1, y, 1));
	}
	cblas_dscal(n, gamma, L->dir, 1);
	for (k = 0; k < L->pairs; k++)
	{
		int			slot = (L->head + k) % L->m;
		const double *s = L->s + (size_t) slot * n;
		const double *y = L->y + (size_t) slot * n;
		double		beta = L->rho[slot] * cblas_ddot(n, y, 1, L->dir, 1);

		cblas_daxpy(n, L->alpha[slot] - beta, s, 1, L->dir, 1);
	}
}

/* starts a line search along dir from xc */
static void
start_search(gsu_lbfgs *L, double step)
{
	L->slope = cblas_ddot(L->n, L->gc, 1, L->dir, 1);
	if (!(L->slope < 0.0))
	{
		/* not a descent direction (rounding): restart from steepest descent */
		int			i;

		L->pairs = 0;
		for (i = 0; i < L->n; i++)
			L->dir[i] = -L->gc[i];
		L->slope = cblas_ddot(L->n, L->gc, 1, L->dir, 1);
	}
	L->step = step;
	memcpy(L->x, L->xc, sizeof(double) * (size_t) L->n);
	cblas_daxpy(L->n, step, L->dir, 1, L->x, 1);
}

gsu_lbfgs_action
gsu_lbfgs_tell(gsu_lbfgs *L, double f, const double *g)
{
	int			n = L->n;

	if (!L->started)
	{
		double		gn = cblas_dnrm2(n, g, 1);

		L->started = 1;
		memcpy(L->xc, L->x, sizeof(double) * (size_t) n);
		memcpy(L->gc, g, sizeof(double) * (size_t) n);
		L->fc = f;
		two_loop(L);
		start_search(L, gn > 0.0 ? 1.0 / gn : 1.0);
		return GSU_LBFGS_ACCEPTED;
	}

	if (!(isfinite(f) && f <= L->fc + 1e-4 * L->step * L->slope))
	{
		/* reject: halve the step */
		if (L->step * 0.5 < 1e-20)
			return GSU_LBFGS_STUCK;
		memcpy(L->x, L->xc, sizeof(double) * (size_t) n);
		L->step *= 0.5;
		cblas_daxpy(n, L->step, L->dir, 1, L->x, 1);
		/* a step that no longer moves x cannot help */
		if (memcmp(L->x, L->xc, sizeof(double) * (size_t) n) == 0)
			return GSU_LBFGS_STUCK;
		return GSU_LBFGS_EVALUATE;
	}

	/* accept: store the pair (s, y) = (x − xc, g − gc) if it has curvature */
	{
		double		sy = 0.0,
					ss = 0.0,
					yy = 0.0;
		int			i;

		for (i = 0; i < n; i++)
		{
			double		si = L->x[i] - L->xc[i],
						yi = g[i] - L->gc[i];

			sy += si * yi;
			ss += si * si;
			yy += yi * yi;
		}
		if (sy > 1e-10 * sqrt(ss * yy))
		{
			int			slot = L->pairs < L->m ? (L->head + L->pairs) % L->m : L->head;
			double	   *s = L->s + (size_t) slot * n;
			double	   *y = L->y + (size_t) slot * n;

			for (i = 0; i < n; i++)
			{
				s[i] = L->x[i] - L->xc[i];
				y[i] = g[i] - L->gc[i];
			}
			L->rho[slot] = 1.0 / sy;
			if (L->pairs < L->m)
				L->pairs++;
			else
				L->head = (L->head + 1) % L->m;
		}
	}
	memcpy(L->xc, L->x, sizeof(double) * (size_t) n);
	memcpy(L->gc, g, sizeof(double) * (size_t) n);
	L->fc = f;
	two_loop(L);
	start_search(L, 1.0);
	return GSU_LBFGS_ACCEPTED;
}
