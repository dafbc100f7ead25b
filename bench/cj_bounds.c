/*
 * cj_bounds.c — Couellan & Jan's own feature-space bounds (Props. 4.1 and
 * 4.2, gsu_cj_row_gamma / gsu_cj_row_worst in src/core/gsu_featmap_cj.c)
 * against pg_gsu's exact boxes (gsu_featmap_row_box / gsu_featmap_row_term
 * in src/core/gsu_featmap_bounds.c), measured on the same rows, maps and
 * weight vectors: no server needed (bench/cj_bounds.sh builds it).
 *
 * For each cell (map, input dimension, input norm p, σ) it draws n rows
 * x_i ~ N(0, I) with diagonal variances ~ U[0.01, 0.05], builds the map (RFF
 * with D features, or Nyström with m landmarks from the rows), and for W
 * random w ~ N(0, I) a row, y = ±1 alternately, computes
 *   ρ_box(w): the exact worst case of −y wᵀΔφ over the box of row i;
 *   ρ_cj(w):  Γ_i‖R_i^{−T}w‖_q̄ for each p̄ (RFF: 1, 2, ∞; Nyström: 2);
 *   s(w):     the largest −y wᵀ(φ(x_i + δ) − φ(x_i)) found over δ in the input
 *             set {‖Σ_i^{−1/2}δ‖_p ≤ γ}: S random points (half on the
 *             boundary), then projected gradient ascent from the best three.
 * and prints, per p̄, the median, mean and largest ρ_cj/ρ_box and the mean tightness
 * s/ρ of each (1 = tight; s is a lower bound of the true worst case, so a
 * tightness is a lower estimate).  For RFF it also prints the tightness of
 * Prop. 4.1 itself, the largest ‖R_iΔφ‖_p̄ found (same search) over Γ_i, mean
 * over the rows.  For RFF with p = 2 it prints Prop. 5.1's
 * ratio σ/(3γ‖Σ_i^{1/2}‖_F) (smallest over the rows; the proposition says the
 * phases stay below θ_max = 1 with probability 0.997 when it is ≥ 1) and the
 * share of the phase bounds τ_j = γ‖Σ_i^{1/2}ω_j‖ that are ≤ 1.
 *
 * Usage: cj_bounds KIND DIM NORM SIGMA [ROWS [W [SAMPLES [GAMMA]]]]
 *   KIND rff | nystroem; NORM 1, 2 or 0 (∞).  One table row per p̄.  Exits 1
 *   (after the rows) when a search found a perturbation beyond a bound.
 */
#define _POSIX_C_SOURCE 200809L

#include "gsu_featmap.h"
#include "gsu_featmap_sigma.h"
#include "gsu_rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RFF_DIM 100
#define NYS_LANDMARKS 20

typedef struct cell
{
	const gsu_featmap *f;
	const double *x;			/* the row */
	const double *var;			/* its variances */
	const double *w;
	double		y,
				gamma;
	int			p,				/* input dimension */
				pn;				/* input norm: 1, 2, 0 = ∞ */
	int			pbar;			/* norm mode: p̄ of ‖R_iΔφ‖ (1, 2, 0 = ∞); −1: −y wᵀΔφ */
	double	   *phi0,
			   *phi,
			   *z,
			   *mwork,
			   *v,
			   *cs;
} cell;

/* −y wᵀ(φ(x + Σ^{1/2}u) − φ(x)), or with pbar ≥ 0 ‖R_i(φ(x + Σ^{1/2}u) − φ(x))‖_p̄ (RFF) */
static double
gain(cell *c, const double *u)
{
	double		v = 0.0;

	for (int k = 0; k < c->p; k++)
		c->z[k] = c->x[k] + sqrt(c->var[k]) * u[k];
	gsu_featmap_apply(c->f, c->z, c->phi, c->mwork);
	if (c->pbar >= 0)
	{
		for (int k = 0; k < c->f->dim; k++)
			c->phi[k] -= c->phi0[k];
		gsu_rff_rotate(c->f, c->x, c->phi, c->v, c->cs);
		for (int k = 0; k < c->f->dim; k++)
			v = c->pbar == 1 ? v + fabs(c->v[k]) : c->pbar == 2 ? v + c->v[k] * c->v[k] :
				fmax(v, fabs(c->v[k]));
		return c->pbar == 2 ? sqrt(v) : v;
	}
	for (int k = 0; k < c->f->dim; k++)
		v -= c->y * c->w[k] * (c->phi[k] - c->phi0[k]);
	return v;
}

/* u onto {‖u‖_pn ≤ γ}: exact for 2 and ∞; for 1 a scaling (stays feasible) */
static void
project(int p, int pn, double gamma, double *u)
{
	double		nrm = 0.0;

	if (pn == 0)
	{
		for (int k = 0; k < p; k++)
			u[k] = fmax(-gamma, fmin(gamma, u[k]));
		return;
	}
	for (int k = 0; k < p; k++)
		nrm += pn == 1 ? fabs(u[k]) : u[k] * u[k];
	if (pn == 2)
		nrm = sqrt(nrm);
	if (nrm > gamma)
		for (int k = 0; k < p; k++)
			u[k] *= gamma / nrm;
}

/* a point u with ‖u‖_pn = γ·s, s = 1 half the time (as test/test_featmap.c's sample_ball) */
static void
sample_ball(gsu_rng *rng, int p, int pn, double gamma, double *u)
{
	double		nrm = 0.0,
				s = gsu_rng_uniform(rng) < 0.5 ? 1.0 : gsu_rng_uniform(rng);

	for (int k = 0; k < p; k++)
	{
		u[k] = gsu_rng_normal(rng);
		if (pn == 1 && gsu_rng_uniform(rng) < 0.5)
			u[k] *= 0.01;
		if (pn == 0 && gsu_rng_uniform(rng) < 0.5)
			u[k] = u[k] > 0 ? 1.0 : -1.0;
	}
	for (int k = 0; k < p; k++)
		nrm = pn == 1 ? nrm + fabs(u[k]) : pn == 2 ? nrm + u[k] * u[k] : fmax(nrm, fabs(u[k]));
	if (pn == 2)
		nrm = sqrt(nrm);
	for (int k = 0; k < p; k++)
		u[k] *= gamma * s / nrm;
}

/* projected gradient ascent (central differences) from u, 25 steps with backtracking */
static double
ascend(cell *c, double *u, double val)
{
	int			p = c->p;
	double		g[64],
				t[64],
				eta = 0.5 * c->gamma;

	for (int it = 0; it < 25 && eta > 1e-6 * c->gamma; it++)
	{
		double		gn = 0.0,
					h = 1e-6,
					nv;

		for (int k = 0; k < p; k++)
		{
			double		a = u[k];

			u[k] = a + h;
			g[k] = gain(c, u);
			u[k] = a - h;
			g[k] = (g[k] - gain(c, u)) / (2.0 * h);
			u[k] = a;
			gn += g[k] * g[k];
		}
		gn = sqrt(gn);
		if (!(gn > 0.0))
			break;
		for (int k = 0; k < p; k++)
			t[k] = u[k] + eta * g[k] / gn;
		project(p, c->pn, c->gamma, t);
		nv = gain(c, t);
		if (nv > val)
		{
			memcpy(u, t, sizeof(double) * p);
			val = nv;
		}
		else
			eta *= 0.5;
	}
	return val;
}

static double
sampled_worst(cell *c, gsu_rng *rng, int samples)
{
	double		best[3] = {-INFINITY, -INFINITY, -INFINITY},
				bu[3][64],
				u[64],
				worst = -INFINITY;

	for (int s = 0; s < samples; s++)
	{
		double		v;

		sample_ball(rng, c->p, c->pn, c->gamma, u);
		v = gain(c, u);
		for (int b = 0; b < 3; b++)
			if (v > best[b])
			{
				for (int e = 2; e > b; e--)
				{
					best[e] = best[e - 1];
					memcpy(bu[e], bu[e - 1], sizeof(u));
				}
				best[b] = v;
				memcpy(bu[b], u, sizeof(u));
				break;
			}
	}
	for (int b = 0; b < 3; b++)
		if (isfinite(best[b]))
			worst = fmax(worst, ascend(c, bu[b], best[b]));
	return worst;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int			kind,
				p,
				pn,
				n,
				W,
				samples,
				npb,
				pbars[3] = {1, 2, 0};
	double		sigma,
				gamma;
	double	   *x,
			   *var,
			   *block,
			   *box,
			   *bwork,
			   *cwork,
			   *Gam[3],
			   *w;
	gsu_featmap f;
	gsu_rng		rng;
	gsu_featmap_rows brows = {0},
				crows = {0};
	cell		c = {0};
	size_t		bl;
	double		sum_ratio[3] = {0},
				max_ratio[3] = {0},
				sum_tb = 0.0,
				sum_tc[3] = {0},
				sum_tn[3] = {0},
				min_tb = INFINITY,
				min_tc[3] = {INFINITY, INFINITY, INFINITY},
				rule = INFINITY,
				small_tau = 0.0;
	int64_t		count = 0,
				phases = 0;
	int			status = 0;
	double	   *ratios[3];

	if (argc < 5)
	{
		fprintf(stderr, "usage: cj_bounds rff|nystroem DIM NORM SIGMA [ROWS [W [SAMPLES [GAMMA]]]]\n");
		return 2;
	}
	kind = strcmp(argv[1], "rff") == 0 ? GSU_MAP_RFF : GSU_MAP_NYSTROEM;
	p = atoi(argv[2]);
	pn = atoi(argv[3]);
	sigma = atof(argv[4]);
	n = argc > 5 ? atoi(argv[5]) : 40;
	W = argc > 6 ? atoi(argv[6]) : 4;
	samples = argc > 7 ? atoi(argv[7]) : 400;
	gamma = argc > 8 ? atof(argv[8]) : 1.0;
	if (p < 1 || p > 64 || (pn != 0 && pn != 1 && pn != 2) || !(sigma > 0.0) || n < NYS_LANDMARKS ||
		W < 1 || samples < 1 || !(gamma > 0.0))
	{
		fprintf(stderr, "cj_bounds: bad arguments\n");
		return 2;
	}
	gsu_rng_seed(&rng, 11);
	x = malloc(sizeof(double) * n * p);
	var = malloc(sizeof(double) * n * p);
	for (int k = 0; k < n * p; k++)
	{
		x[k] = gsu_rng_normal(&rng);
		var[k] = 0.01 + 0.04 * gsu_rng_uniform(&rng);
	}
	if (kind == GSU_MAP_RFF)
	{
		block = malloc(sizeof(double) * (RFF_DIM / 2) * p);
		if (gsu_rff_build(p, RFF_DIM, sigma, 5, block) != GSU_OK)
			return 1;
		gsu_featmap_bind(&f, GSU_MAP_RFF, p, RFF_DIM, 0, sigma, block);
		npb = 3;
	}
	else
	{
		int			m = NYS_LANDMARKS,
					r = 0;
		double	   *proj = malloc(sizeof(double) * m * m);

		block = malloc(sizeof(double) * (m * p + m * m));
		if (gsu_nystroem_build(n, p, x, m, sigma, 5, block, proj, &r, NULL) != GSU_OK)
			return 1;
		memcpy(block + m * p, proj, sizeof(double) * m * r);
		gsu_featmap_bind(&f, GSU_MAP_NYSTROEM, p, r, m, sigma, block);
		free(proj);
		npb = 1;
		pbars[0] = 2;
	}
	bl = gsu_featmap_box_len(&f);
	box = malloc(sizeof(double) * bl * n);
	bwork = malloc(sizeof(double) * gsu_featmap_bound_work_size(&f, 0));
	cwork = malloc(sizeof(double) * gsu_featmap_bound_work_size(&f, 1));
	w = malloc(sizeof(double) * f.dim);
	c.phi0 = malloc(sizeof(double) * f.dim);
	c.phi = malloc(sizeof(double) * f.dim);
	c.z = malloc(sizeof(double) * p);
	c.mwork = malloc(sizeof(double) * (gsu_featmap_work_size(&f) + 1));
	c.v = malloc(sizeof(double) * f.dim);
	c.cs = malloc(sizeof(double) * f.dim);
	c.pbar = -1;
	for (int b = 0; b < npb; b++)
	{
		Gam[b] = malloc(sizeof(double) * n);
		ratios[b] = malloc(sizeof(double) * n * W);
	}
	for (int i = 0; i < n; i++)
	{
		gsu_cov		cv = {GSU_COV_DIAG, 0.0, var + i * p, 0};

		if (gsu_featmap_row_box(&f, x + i * p, &cv, gamma, pn, box + bl * i, bwork) != GSU_OK)
			return 1;
		for (int b = 0; b < npb; b++)
			if (gsu_cj_row_gamma(&f, x + i * p, &cv, gamma, pn, pbars[b], Gam[b] + i, cwork) != GSU_OK)
				return 1;
		if (kind == GSU_MAP_RFF)
		{
			double		fro = 0.0;

			for (int k = 0; k < p; k++)
				fro += var[i * p + k];
			rule = fmin(rule, sigma / (3.0 * gamma * sqrt(fro)));
			for (int j = 0; j < RFF_DIM / 2; j++)
			{
				double		t = 0.0;

				for (int k = 0; k < p; k++)
					t += var[i * p + k] * f.omega[j * p + k] * f.omega[j * p + k];
				small_tau += gamma * sqrt(t) <= 1.0;
				phases++;
			}
		}
	}
	brows.f = &f;
	brows.x = x;
	brows.box = box;
	brows.work = bwork;
	crows = brows;
	crows.work = cwork;
	crows.cj = 1;
	c.f = &f;
	c.gamma = gamma;
	c.p = p;
	c.pn = pn;
	c.w = w;
	for (int i = 0; i < n; i++)
	{
		c.x = x + i * p;
		c.var = var + i * p;
		c.y = (i % 2) ? 1.0 : -1.0;
		gsu_featmap_apply(&f, c.x, c.phi0, c.mwork);
		/* Prop. 4.1 itself: the largest ‖R_iΔφ‖_p̄ found, over Γ_i */
		for (int b = 0; b < npb && kind == GSU_MAP_RFF; b++)
		{
			double		s;

			c.pbar = pbars[b];
			s = sampled_worst(&c, &rng, samples);
			c.pbar = -1;
			if (s > Gam[b][i] * (1.0 + 1e-9))
			{
				fprintf(stderr, "cj_bounds: Prop. 4.1 exceeded (p-bar %d row %d: %g > %g)\n",
						pbars[b], i, s, Gam[b][i]);
				status = 1;
			}
			sum_tn[b] += s / Gam[b][i];
		}
		for (int t = 0; t < W; t++)
		{
			double		rb,
						s;

			for (int k = 0; k < f.dim; k++)
				w[k] = gsu_rng_normal(&rng);
			rb = gsu_featmap_row_term(&brows, i, w, c.y, 0.0, NULL);
			s = fmax(0.0, sampled_worst(&c, &rng, samples));
			if (s > rb * (1.0 + 1e-9) + 1e-12)
			{
				fprintf(stderr, "cj_bounds: box exceeded (row %d: %g > %g)\n", i, s, rb);
				status = 1;
			}
			sum_tb += s / rb;
			min_tb = fmin(min_tb, s / rb);
			for (int b = 0; b < npb; b++)
			{
				double		rc;

				crows.box = Gam[b];
				crows.pbar = pbars[b];
				rc = gsu_featmap_row_term(&crows, i, w, c.y, 0.0, NULL);
				if (s > rc * (1.0 + 1e-9) + 1e-12)
				{
					fprintf(stderr, "cj_bounds: Couellan-Jan bound exceeded (p-bar %d row %d: %g > %g)\n",
							pbars[b], i, s, rc);
					status = 1;
				}
				sum_ratio[b] += rc / rb;
				ratios[b][count] = rc / rb;
				max_ratio[b] = fmax(max_ratio[b], rc / rb);
				sum_tc[b] += s / rc;
				min_tc[b] = fmin(min_tc[b], s / rc);
			}
			count++;
		}
	}
	for (int b = 0; b < npb; b++)
	{
		qsort(ratios[b], count, sizeof(double), cmp_double);
		printf("| %s | %d | %s | %g | %s | %.3g | %.3g | %.3g | %.3f (%.3f) | %.3f (%.3f) |",
			   kind == GSU_MAP_RFF ? "RFF D=100" : "Nyström m=20", p,
			   pn == 0 ? "∞" : pn == 1 ? "1" : "2", sigma,
			   pbars[b] == 0 ? "∞" : pbars[b] == 1 ? "1" : "2",
			   ratios[b][count / 2], sum_ratio[b] / count, max_ratio[b], sum_tb / count, min_tb,
			   sum_tc[b] / count, min_tc[b]);
		if (kind == GSU_MAP_RFF)
			printf(" %.3f |", sum_tn[b] / n);
		else
			printf(" – |");
		if (kind == GSU_MAP_RFF && pn == 2)
			printf(" %.2f | %.2f |\n", rule, small_tau / phases);
		else
			printf(" – | – |\n");
	}
	return status;
}
