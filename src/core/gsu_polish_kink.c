/*
 * gsu_polish_kink.c — the exact minimizer of the SVM-GSU objective (μ = 0)
 * for rows whose covariance is a factor or a diagonal, from an approximate
 * one at which some rows sit at their kink: margin d_i = 0 and wᵀΣ_iw = 0.
 * There the expected hinge is not differentiable, the smoothed problems of
 * newton's continuation are ill-conditioned (thousands of iterations), and
 * the smoothing's bound μ/(2√π) dominates the gap.  Fixing those rows at
 * their kink (d_i = 0, Σ_iw = 0: linear constraints) leaves a smooth
 * problem, solved by Newton's method in the constraints' null space; the
 * Lagrange multipliers then certify the point when each kink row's lies in
 * that row's subdifferential, else the worst row leaves the set and the
 * round repeats.  The derivation: src/core/README, section
 * gsu_polish_kink.c.
 */
#include "gsu_polish.h"
#include "gsu_objective.h"
#include "gsu_loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* the constraint matrix's doubles at most (32 MB; twice, with its QR factorization) */
#define KINK_MAX_DOUBLES (4.0 * 1024 * 1024)

/* a row this near its kink (margin and deviation, in the margin's units) joins the set */
#define KINK_NEAR 1e-7

/* a constraint's row: the margin (kind −1) or Σ_i's j-th direction (kind j) */
typedef struct kink_ws
{
	const gsu_dataset *ds;
	int			d;
	int			m;				/* d + 1 */
	double		lambda;
	double		total;			/* W */
	int64_t    *rows;			/* the rows held at their kink */
	int64_t		nk;
	/*
	 * rows equal in label, mean and covariance (byte for byte) share one
	 * set of constraints and one multiplier, split by their weights: each
	 * held row's representative (an index into rows, itself for the
	 * first), and a representative's total weight
	 */
	int64_t    *dup_of;
	double	   *kweight;
	/*
	 * dense covariances: each held row's range F_k (d × frank[k],
	 * column-major, Σ = FFᵀ: gsu_cov_range_columns) at fac + foff[k], and
	 * the factorization's scratch (two d × d)
	 */
	double	   *fac;
	size_t	   *foff;
	int		   *frank;
	double	   *fscratch;
	int		   *fpiv;
	/* the constraints C θ = c: p rows of m values (column-major Cᵀ, m × p) */
	double	   *a;
	double	   *c;
	double	   *c_saved;		/* c while release_row moves a row's targets */
	int64_t    *owner;			/* the kink row (index into rows) of each */
	int		   *kind;
	double	   *scale;			/* diagonal: √v_j, else 1 */
	int			p;
	int			cap;
	/* Cᵀ P = Q R (pivoted): Q1 (m × q), R11 (q × q), the pivots */
	double	   *qr;
	double	   *tau;
	double	   *r11;
	int		   *jpvt;
	int			q;
	/* the smooth part: the other rows, by their weights, the kink rows at 0 */
	double	   *weight;
	gsu_dataset sub;
	double		sub_total;		/* W' */
	gsu_eval	ev;
	int			ev_ready;
	/* scratch, m values each, and the multipliers (p) */
	double	   *g;
	double	   *s;
	double	   *r;
	double	   *dir;
	double	   *hd;
	double	   *trial;
	double	   *t;
	double	   *mult;
	int			budget;			/* Newton iterations left over the rounds */
	int64_t		passes;			/* over the rows: evaluations, products, row scans */
	int64_t		max_passes;		/* the most it may make (≤ 0: no limit) */
} kink_ws;

static int	near_kink(kink_ws *ws, const double *theta);

static void
kink_ws_free(kink_ws *ws)
{
	if (ws->ev_ready)
		gsu_eval_free(&ws->ev);
	free(ws->rows);
	free(ws->dup_of);
	free(ws->kweight);
	free(ws->fac);
	free(ws->foff);
	free(ws->frank);
	free(ws->fscratch);
	free(ws->fpiv);
	free(ws->a);
	free(ws->c);
	free(ws->c_saved);
	free(ws->owner);
	free(ws->kind);
	free(ws->scale);
	free(ws->qr);
	free(ws->tau);
	free(ws->r11);
	free(ws->jpvt);
	free(ws->weight);
	free(ws->g);
	free(ws->s);
	free(ws->r);
	free(ws->dir);
	free(ws->hd);
	free(ws->trial);
	free(ws->t);
	free(ws->mult);
}

/* the constraints held row k adds: its margin, and one per direction of Σ_i */
static int
row_constraints(const kink_ws *ws, int64_t k)
{
	const gsu_dataset *ds = ws->ds;
	int64_t		i = ws->rows[k];
	const double *v;
	int			j,
				c = 0;

	if (ds->cov_kind == GSU_COV_FACTOR)
		return 1 + ds->cov_rank;
	if (ds->cov_kind == GSU_COV_FULL)
		return 1 + ws->frank[k];
	v = ds->cov + (size_t) i * ds->d;
	for (j = 0; j < ds->d; j++)
		c += v[j] > 0.0;
	return 1 + c;
}

/* dense covariances: the held rows' ranges; 0 when LAPACK or an allocation fails */
static int
held_ranges(kink_ws *ws)
{
	size_t		dd = (size_t) ws->d * ws->d,
				total = 0;
	int64_t		k;

	if (ws->ds->cov_kind != GSU_COV_FULL)
		return 1;
	if (!ws->fscratch)
	{
		ws->foff = malloc(sizeof(size_t) * (size_t) ws->ds->n);
		ws->frank = malloc(sizeof(int) * (size_t) ws->ds->n);
		ws->fscratch = malloc(sizeof(double) * 2 * dd);
		ws->fpiv = malloc(sizeof(int) * (size_t) ws->d);
		if (!ws->foff || !ws->frank || !ws->fscratch || !ws->fpiv)
			return 0;
	}
	for (k = 0; k < ws->nk; k++)
	{
		double	   *grown;
		int			r = gsu_cov_range_columns(ws->d, ws->ds->cov + (size_t) ws->rows[k] * dd,
											  ws->fscratch, ws->fpiv, ws->d, ws->fscratch + dd);

		if (r < 0 || !(grown = realloc(ws->fac, sizeof(double) * (total + (size_t) r * ws->d + 1))))
			return 0;
		ws->fac = grown;
		memcpy(ws->fac + total, ws->fscratch + dd, sizeof(double) * (size_t) r * ws->d);
		ws->frank[k] = r;
		ws->foff[k] = total;
		total += (size_t) r * ws->d;
	}
	return 1;
}

static void
add_constraint(kink_ws *ws, int64_t owner, int kind, double scale, double rhs)
{
	double	   *row = ws->a + (size_t) ws->p * ws->m;

	memset(row, 0, sizeof(double) * (size_t) ws->m);
	ws->owner[ws->p] = owner;
	ws->kind[ws->p] = kind;
	ws->scale[ws->p] = scale;
	ws->c[ws->p] = rhs;
	ws->p++;
}

/*
 * rows[k] against the earlier representatives: equal in label, mean and
 * covariance to one, it joins it (1), else it is one itself (0)
 */
static int
same_as_earlier(kink_ws *ws, int64_t k)
{
	const gsu_dataset *ds = ws->ds;
	int64_t		i = ws->rows[k],
				j;
	size_t		cov = gsu_cov_doubles(ds->cov_kind, ws->d, ds->cov_rank);
	double		c = ds->weight ? ds->weight[i] : 1.0;

	for (j = 0; j < k; j++)
	{
		int64_t		e = ws->rows[j];

		if (ws->dup_of[j] == j && ds->y[e] == ds->y[i] &&
			memcmp(ds->x + (size_t) e * ws->d, ds->x + (size_t) i * ws->d,
				   sizeof(double) * (size_t) ws->d) == 0 &&
			memcmp(ds->cov + e * cov, ds->cov + i * cov, sizeof(double) * cov) == 0)
		{
			ws->dup_of[k] = j;
			ws->kweight[j] += c;
			return 1;
		}
	}
	ws->dup_of[k] = k;
	ws->kweight[k] = c;
	return 0;
}

/* C and c for the rows held now; 0: out of memory */
static int
build_constraints(kink_ws *ws)
{
	const gsu_dataset *ds = ws->ds;
	int			d = ws->d,
				p = 0,
				j;
	int64_t		k;

	if (!held_ranges(ws))
		return 0;
	for (k = 0; k < ws->nk; k++)
		p += row_constraints(ws, k);
	/* C and its factorization: at most KINK_MAX_DOUBLES each (a finish, not a second data set) */
	if ((double) p * ws->m > KINK_MAX_DOUBLES)
		return 0;
	if (p > ws->cap)
	{
		free(ws->a);
		free(ws->c);
		free(ws->c_saved);
		free(ws->owner);
		free(ws->kind);
		free(ws->scale);
		free(ws->qr);
		free(ws->mult);
		ws->cap = p;
		ws->a = malloc(sizeof(double) * (size_t) p * ws->m);
		ws->qr = malloc(sizeof(double) * (size_t) p * ws->m);
		ws->c = malloc(sizeof(double) * (size_t) p);
		ws->c_saved = malloc(sizeof(double) * (size_t) p);
		ws->mult = malloc(sizeof(double) * (size_t) p);
		ws->scale = malloc(sizeof(double) * (size_t) p);
		ws->owner = malloc(sizeof(int64_t) * (size_t) p);
		ws->kind = malloc(sizeof(int) * (size_t) p);
		ws->jpvt = realloc(ws->jpvt, sizeof(int) * (size_t) p);
		if (!ws->a || !ws->qr || !ws->c || !ws->c_saved || !ws->mult || !ws->scale || !ws->owner ||
			!ws->kind || !ws->jpvt)
			return 0;
	}
	ws->p = 0;
	for (k = 0; k < ws->nk; k++)
	{
		int64_t		i = ws->rows[k];
		const double *x = ds->x + (size_t) i * d;
		double		y = ds->y[i];
		double	   *row = ws->a + (size_t) ws->p * ws->m;

		if (same_as_earlier(ws, k))
			continue;
		/* the margin: y_i (x_iᵀw + b) = 1 */
		add_constraint(ws, k, -1, 1.0, 1.0);
		for (j = 0; j < d; j++)
			row[j] = y * x[j];
		row[d] = y;
		if (ds->cov_kind == GSU_COV_FACTOR)
		{
			const double *l = ds->cov + (size_t) i * d * ds->cov_rank;
			int			r = ds->cov_rank,
						col;

			/* L_iᵀw = 0, one column of L_i a row */
			for (col = 0; col < r; col++)
			{
				row = ws->a + (size_t) ws->p * ws->m;
				add_constraint(ws, k, col, 1.0, 0.0);
				for (j = 0; j < d; j++)
					row[j] = l[(size_t) j * r + col];
			}
		}
		else if (ds->cov_kind == GSU_COV_FULL)
		{
			const double *f = ws->fac + ws->foff[k];
			int			col;

			/* F_kᵀw = 0 (Σ_i = F_kF_kᵀ), one column a row */
			for (col = 0; col < ws->frank[k]; col++)
			{
				row = ws->a + (size_t) ws->p * ws->m;
				add_constraint(ws, k, col, 1.0, 0.0);
				memcpy(row, f + (size_t) col * d, sizeof(double) * (size_t) d);
			}
		}
		else
		{
			const double *v = ds->cov + (size_t) i * d;

			/* w_j = 0 where v_j > 0 */
			for (j = 0; j < d; j++)
				if (v[j] > 0.0)
				{
					row = ws->a + (size_t) ws->p * ws->m;
					add_constraint(ws, k, j, sqrt(v[j]), 0.0);
					row[j] = 1.0;
				}
		}
	}
	return 1;
}

/*
 * Cᵀ P = Q R by pivoted QR: q independent constraints, Q1 (in qr) spans
 * their normals, R11 (q × q) kept apart.  0: LAPACK failed or no constraint.
 */
static int
factor_constraints(kink_ws *ws)
{
	int			m = ws->m,
				p = ws->p,
				mn = m < p ? m : p,
				k;
	double		r00;

	memcpy(ws->qr, ws->a, sizeof(double) * (size_t) p * m);
	memset(ws->jpvt, 0, sizeof(int) * (size_t) p);
	free(ws->tau);
	free(ws->r11);
	ws->tau = malloc(sizeof(double) * (size_t) (mn > 0 ? mn : 1));
	ws->r11 = NULL;
	if (!ws->tau || p < 1)
		return 0;
	if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, m, p, ws->qr, m, ws->jpvt, ws->tau) != 0)
		return 0;
	r00 = fabs(ws->qr[0]);
	if (!(r00 > 0.0))
		return 0;
	for (k = 0; k < mn && fabs(ws->qr[(size_t) k * m + k]) > 1e-11 * r00; k++)
		;
	ws->q = k;
	ws->r11 = malloc(sizeof(double) * (size_t) k * k);
	if (!ws->r11)
		return 0;
	for (k = 0; k < ws->q; k++)
		memcpy(ws->r11 + (size_t) k * ws->q, ws->qr + (size_t) k * m, sizeof(double) * (size_t) ws->q);
	return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, ws->q, ws->q, ws->qr, m, ws->tau) == 0;
}

/* x ← (I − Q1Q1ᵀ) x, its part in the null space of C */
static void
project(kink_ws *ws, double *x)
{
	if (ws->q == 0)
		return;
	cblas_dgemv(CblasColMajor, CblasTrans, ws->m, ws->q, 1.0, ws->qr, ws->m, x, 1, 0.0, ws->t, 1);
	cblas_dgemv(CblasColMajor, CblasNoTrans, ws->m, ws->q, -1.0, ws->qr, ws->m, ws->t, 1, 1.0, x, 1);
}

/*
 * θ moved the least distance onto the independent constraints, then every
 * constraint checked; 0: they are inconsistent (the rows cannot all sit at
 * their kink at once).
 */
static int
restore_feasible(kink_ws *ws, double *theta)
{
	int			k,
				m = ws->m;

	for (k = 0; k < ws->q; k++)
	{
		int			ci = ws->jpvt[k] - 1;

		ws->t[k] = ws->c[ci] - cblas_ddot(m, ws->a + (size_t) ci * m, 1, theta, 1);
	}
	if (ws->q > 0)
	{
		cblas_dtrsv(CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit, ws->q, ws->r11, ws->q, ws->t, 1);
		cblas_dgemv(CblasColMajor, CblasNoTrans, m, ws->q, 1.0, ws->qr, m, ws->t, 1, 1.0, theta, 1);
	}
	for (k = 0; k < ws->p; k++)
	{
		const double *row = ws->a + (size_t) k * m;
		double		res = fabs(ws->c[k] - cblas_ddot(m, row, 1, theta, 1)),
					size = 1.0 + cblas_dnrm2(m, row, 1) * cblas_dnrm2(m, theta, 1);

		if (!(res <= 1e-9 * size))
			return 0;
	}
	return 1;
}

/* the smooth part's weights: the kink rows' set to 0; 0 when none is left */
static int
set_weights(kink_ws *ws)
{
	const gsu_dataset *ds = ws->ds;
	int64_t		i,
				k;

	for (i = 0; i < ds->n; i++)
		ws->weight[i] = ds->weight ? ds->weight[i] : 1.0;
	for (k = 0; k < ws->nk; k++)
		ws->weight[ws->rows[k]] = 0.0;
	ws->sub = *ds;
	ws->sub.weight = ws->weight;
	if (ws->ev_ready)
		gsu_eval_free(&ws->ev);
	ws->ev_ready = 0;
	if (gsu_weight_total(&ws->sub, &ws->sub_total) != GSU_OK || !(ws->sub_total > 0.0))
		return 0;
	/* F = (W'/W)·F' with F' = λ'/2‖w‖² + (1/W') Σ' c_i L_i, λ' = λW/W' */
	if (gsu_eval_init(&ws->ev, &ws->sub, ws->lambda * ws->total / ws->sub_total) != GSU_OK)
		return 0;
	ws->ev_ready = 1;
	return 1;
}

/*
 * Truncated conjugate gradients for the Newton step s on the null space
 * (the gradient's part there in ws->g, projected; the Hessian at the last
 * evaluation), stopped at negative curvature.
 */
static void
projected_cg(kink_ws *ws, double gnorm)
{
	int			m = ws->m,
				it;
	double		rr;

	memset(ws->s, 0, sizeof(double) * (size_t) m);
	for (it = 0; it < m; it++)
		ws->r[it] = -ws->g[it];
	memcpy(ws->dir, ws->r, sizeof(double) * (size_t) m);
	rr = gnorm * gnorm;
	for (it = 0; it < 2 * m && it < 100; it++)
	{
		double		dhd,
					alpha,
					rr_new;

		gsu_eval_hessvec(&ws->ev, ws->dir, ws->hd);
		ws->passes++;
		project(ws, ws->hd);
		dhd = cblas_ddot(m, ws->dir, 1, ws->hd, 1);
		if (!(dhd > 1e-14 * rr))
		{
			if (it == 0)
				memcpy(ws->s, ws->r, sizeof(double) * (size_t) m);
			break;
		}
		alpha = rr / dhd;
		cblas_daxpy(m, alpha, ws->dir, 1, ws->s, 1);
		cblas_daxpy(m, -alpha, ws->hd, 1, ws->r, 1);
		rr_new = cblas_ddot(m, ws->r, 1, ws->r, 1);
		if (sqrt(rr_new) <= 1e-2 * fmin(1.0, gnorm) * gnorm)
			break;
		cblas_dscal(m, rr_new / rr, ws->dir, 1);
		cblas_daxpy(m, 1.0, ws->r, 1, ws->dir, 1);
		rr = rr_new;
	}
	project(ws, ws->s);
}

/*
 * Newton's method with a backtracking line search on the smooth part over
 * the constraints' affine set.  *pg: the norm of the gradient's part in the
 * null space at the end (in F's units); ws->g the full gradient of F'.
 */
static gsu_status
restricted_newton(kink_ws *ws, double *theta, double tol, double *pg, double *fval,
				  gsu_progress_fn progress, void *progress_arg)
{
	int			m = ws->m,
				it = 0;
	double		f = 0.0,
				gnorm = HUGE_VAL;
	gsu_status	st = GSU_OK;

	/* at most 100 iterations a round, 400 over a polish's rounds, and its passes */
	for (; it < 100 && ws->budget > 0; it++, ws->budget--)
	{
		double		gs,
					step = 1.0;
		int			ls;

		if (ws->max_passes > 0 && ws->passes >= ws->max_passes)
		{
			ws->budget = 0;
			break;
		}
		if (progress && progress(progress_arg))
			return GSU_ECANCELLED;
		st = gsu_eval_at(&ws->ev, 0.0, theta, &f, ws->g);
		ws->passes++;
		if (st != GSU_OK)
			return st;
		memcpy(ws->dir, ws->g, sizeof(double) * (size_t) m);
		project(ws, ws->dir);
		gnorm = cblas_dnrm2(m, ws->dir, 1);
		if (gnorm * ws->sub_total / ws->total <= tol)
			break;
		memcpy(ws->g, ws->dir, sizeof(double) * (size_t) m);
		projected_cg(ws, gnorm);
		gs = cblas_ddot(m, ws->g, 1, ws->s, 1);
		if (!(gs < 0.0))
			break;
		for (ls = 0; ls < 50; ls++, step *= 0.5)
		{
			double		f_new;

			memcpy(ws->trial, theta, sizeof(double) * (size_t) m);
			cblas_daxpy(m, step, ws->s, 1, ws->trial, 1);
			st = gsu_eval_at(&ws->ev, 0.0, ws->trial, &f_new, NULL);
			ws->passes++;
			if (st == GSU_OK && f_new <= f + 1e-4 * step * gs)
				break;
		}
		/* no decrease: a kink of another row (add_rows) */
		if (ls == 50)
			break;
		memcpy(theta, ws->trial, sizeof(double) * (size_t) m);
		if (!restore_feasible(ws, theta))
			return GSU_EINVAL;
		if (near_kink(ws, theta))
			break;
	}
	/* the full gradient at θ again, for the multipliers */
	st = gsu_eval_at(&ws->ev, 0.0, theta, &f, ws->g);
	ws->passes++;
	memcpy(ws->dir, ws->g, sizeof(double) * (size_t) m);
	project(ws, ws->dir);
	*pg = cblas_dnrm2(m, ws->dir, 1) * ws->sub_total / ws->total;
	*fval = f * ws->sub_total / ws->total;
	return st;
}

/*
 * The multipliers of C θ = c at θ (ws->g the gradient of F'), each kink
 * row's (a_i, g_i) and how far it lies outside the row's subdifferential
 * {a ∈ [0, 1], ‖g‖ ≤ h(a)}; the worst row's index into rows in *worst_k.
 */
static double
check_multipliers(kink_ws *ws, int64_t *worst_k)
{
	int			k;
	int64_t		row;
	double		worst = 0.0;

	for (k = 0; k < ws->m; k++)
		ws->dir[k] = -ws->g[k];
	memset(ws->mult, 0, sizeof(double) * (size_t) ws->p);
	if (ws->q > 0)
	{
		cblas_dgemv(CblasColMajor, CblasTrans, ws->m, ws->q, 1.0, ws->qr, ws->m, ws->dir, 1, 0.0, ws->t, 1);
		cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, ws->q, ws->r11, ws->q, ws->t, 1);
		for (k = 0; k < ws->q; k++)
			ws->mult[ws->jpvt[k] - 1] = ws->t[k];
	}
	*worst_k = -1;
	for (row = 0, k = 0; row < ws->nk; row++)
	{
		double		unit = ws->sub_total / ws->kweight[row],
					a = 0.0,
					gg = 0.0,
					viol;

		/* the constraints are built row by row, the margin first */
		for (; k < ws->p && ws->owner[k] == row; k++)
		{
			double		mu = unit * ws->mult[k];

			if (ws->kind[k] < 0)
				a = -mu;
			else
				gg += (mu / ws->scale[k]) * (mu / ws->scale[k]);
		}
		if (ws->dup_of[row] != row)
			continue;			/* its representative's multiplier covers it */
		viol = fmax(fmax(-a, a - 1.0),
					sqrt(gg) - gsu_hinge_kink_profile(fmin(fmax(a, 0.0), 1.0)));
		if (isnan(viol))
			viol = HUGE_VAL;
		if (*worst_k < 0 || viol > worst)
		{
			worst = viol;
			*worst_k = row;
		}
	}
	return worst;
}

/* row i's margin 1 − y_i(x_iᵀw + b) and deviation √(wᵀΣ_iw) at θ */
static void
row_state(kink_ws *ws, const double *theta, int64_t i, double *margin, double *dev)
{
	const gsu_dataset *ds = ws->ds;
	gsu_cov		cov = gsu_cov_row(ds->cov_kind, ds->cov, ws->d, ds->cov_rank, i);

	*margin = 1.0 - ds->y[i] * (cblas_ddot(ws->d, ds->x + (size_t) i * ws->d, 1, theta, 1) +
								theta[ws->d]);
	*dev = sqrt(fmax(gsu_cov_quad(ws->d, &cov, theta, ws->t), 0.0));
}

/* a row outside the set within KINK_NEAR of its kink at θ (Newton stalls there) */
static int
near_kink(kink_ws *ws, const double *theta)
{
	int64_t		i;

	ws->passes++;
	for (i = 0; i < ws->ds->n; i++)
	{
		double		margin,
					dev;

		if (!(ws->weight[i] > 0.0))
			continue;
		row_state(ws, theta, i, &margin, &dev);
		if (fabs(margin) <= KINK_NEAR && dev <= KINK_NEAR)
			return 1;
	}
	return 0;
}

/*
 * Release the held row rows[k], whose multiplier (a, g) lies outside its
 * subdifferential S: the direction (δm, δs) = (a, g) − proj_S(a, g) lowers
 * F to first order, by (c_i/W)‖(δm, δs)‖² per unit step, when the row's
 * constraints move to m_i = εδm, L_iᵀw = εδs (the others held).  Takes the
 * first ε of 10⁻², 10⁻²/2, … that lowers F (μ = 0); 0 when none does.
 */
static int
release_row(kink_ws *ws, double *theta, int64_t k)
{
	const gsu_dataset *ds = ws->ds;
	double		unit = ws->sub_total / ws->kweight[k],
				a = 0.0,
				rho = 0.0,
				pa,
				prho,
				f0,
				eps;
	int			first = -1,
				last = 0,
				j,
				tries;

	for (j = 0; j < ws->p; j++)
		if (ws->owner[j] == k)
		{
			double		mu = unit * ws->mult[j];

			if (first < 0)
				first = j;
			last = j;
			if (ws->kind[j] < 0)
				a = -mu;
			else
				rho += (mu / ws->scale[j]) * (mu / ws->scale[j]);
		}
	rho = sqrt(rho);
	gsu_hinge_kink_nearest(a, rho, &pa, &prho);
	if (first < 0 || gsu_objective(ds, ws->lambda, 0.0, theta, &f0, NULL) != GSU_OK)
		return 0;
	memcpy(ws->c_saved, ws->c, sizeof(double) * (size_t) ws->p);
	ws->passes++;
	for (tries = 0, eps = 1e-2; tries < 40; tries++, eps *= 0.5)
	{
		double		f;
		int			ok;

		for (j = first; j <= last; j++)
		{
			/* g_j = unit·μ_j/scale_j; its share of δs, in the constraint's units */
			double		gj = unit * ws->mult[j] / ws->scale[j];

			ws->c[j] = ws->kind[j] < 0 ? 1.0 - eps * (a - pa) :
				rho > 0.0 ? eps * (rho - prho) * (gj / rho) / ws->scale[j] : 0.0;
		}
		memcpy(ws->trial, theta, sizeof(double) * (size_t) ws->m);
		ws->passes++;
		ok = restore_feasible(ws, ws->trial) &&
			gsu_objective(ds, ws->lambda, 0.0, ws->trial, &f, NULL) == GSU_OK && f < f0;
		memcpy(ws->c, ws->c_saved, sizeof(double) * (size_t) ws->p);
		if (ok)
		{
			memcpy(theta, ws->trial, sizeof(double) * (size_t) ws->m);
			return 1;
		}
	}
	return 0;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* the rows at their kink at θ: margin and deviation within tau, weight > 0 */
static int64_t
select_rows(kink_ws *ws, const double *theta, double tau)
{
	const gsu_dataset *ds = ws->ds;
	int64_t		i;

	ws->passes++;
	ws->nk = 0;
	for (i = 0; i < ds->n; i++)
	{
		double		margin,
					dev;

		row_state(ws, theta, i, &margin, &dev);
		if ((ds->weight == NULL || ds->weight[i] > 0.0) && fabs(margin) <= tau && dev <= tau)
			ws->rows[ws->nk++] = i;
	}
	return ws->nk;
}

/*
 * Newton's method stalled, at a row's kink (margin and deviation ≤
 * KINK_NEAR): the rows outside the set within tau of their kink join it,
 * the row released last (released) excepted.  Returns how many, or −1
 * (nothing added) when the stall is at the released row's kink (a cycle).
 */
static int64_t
add_rows(kink_ws *ws, const double *theta, int64_t released, double tau)
{
	const gsu_dataset *ds = ws->ds;
	int64_t		i,
				added = 0,
				k = 0,
				nk = ws->nk;

	ws->passes++;
	for (i = 0; i < ds->n; i++)
	{
		double		margin,
					dev;

		/* the set is ascending: skip its rows */
		if (k < nk && ws->rows[k] == i)
		{
			k++;
			continue;
		}
		if (ds->weight != NULL && !(ds->weight[i] > 0.0))
			continue;
		row_state(ws, theta, i, &margin, &dev);
		if (fabs(margin) <= KINK_NEAR && dev <= KINK_NEAR && i == released)
			return -1;
		if (fabs(margin) <= tau && dev <= tau && i != released)
			ws->rows[ws->nk + added++] = i;
	}
	if (added > 0)
	{
		ws->nk += added;
		qsort(ws->rows, (size_t) ws->nk, sizeof(int64_t), cmp_int64);
	}
	return added;
}

static int
kink_ws_init(kink_ws *ws, const gsu_dataset *ds, double lambda)
{
	size_t		m = (size_t) ds->d + 1,
				scratch = m > (size_t) ds->d * 2 ? m : (size_t) ds->d * 2;

	memset(ws, 0, sizeof(*ws));
	ws->ds = ds;
	ws->d = ds->d;
	ws->m = ds->d + 1;
	ws->lambda = lambda;
	ws->budget = 400;
	if (gsu_weight_total(ds, &ws->total) != GSU_OK)
		return 0;
	ws->rows = malloc(sizeof(int64_t) * (size_t) ds->n);
	ws->dup_of = malloc(sizeof(int64_t) * (size_t) ds->n);
	ws->kweight = malloc(sizeof(double) * (size_t) ds->n);
	ws->weight = malloc(sizeof(double) * (size_t) ds->n);
	ws->g = malloc(sizeof(double) * m);
	ws->s = malloc(sizeof(double) * m);
	ws->r = malloc(sizeof(double) * m);
	ws->dir = malloc(sizeof(double) * m);
	ws->hd = malloc(sizeof(double) * m);
	ws->trial = malloc(sizeof(double) * m);
	/* the quadratic forms' scratch (2d for a factor), and q ≤ m values */
	ws->t = malloc(sizeof(double) * (scratch + m));
	return ws->rows && ws->dup_of && ws->kweight && ws->weight && ws->g && ws->s && ws->r && ws->dir && ws->hd &&
		ws->trial && ws->t;
}

int
gsu_kink_polish(const gsu_dataset *ds, double lambda, double tau, double tol,
				double *theta, double *objective, double *kkt, int64_t *passes,
				gsu_progress_fn progress, void *progress_arg)
{
	kink_ws		ws;
	double	   *th = NULL;
	double		f_in,
				f_out,
				fval = 0.0,
				pg = HUGE_VAL,
				viol = HUGE_VAL;
	int			ok = 0,
				stationary,
				round;
	int64_t		worst,
				released = -1;

	int64_t		max_passes = passes ? *passes : 0;

	if (passes)
		*passes = 0;
	if ((ds->cov_kind != GSU_COV_FACTOR && ds->cov_kind != GSU_COV_DIAG &&
		 ds->cov_kind != GSU_COV_FULL) || ds->n < 1)
		return 0;
	if (!kink_ws_init(&ws, ds, lambda) || select_rows(&ws, theta, tau) == 0 ||
		!(th = malloc(sizeof(double) * (size_t) ws.m)))
		goto out;
	memcpy(th, theta, sizeof(double) * (size_t) ws.m);
	ws.max_passes = max_passes;
	for (round = 0; round < 2 * ds->n + 2 && ws.nk > 0; round++)
	{
		gsu_status	st;

		if (!build_constraints(&ws) || !factor_constraints(&ws) ||
			!restore_feasible(&ws, th) || !set_weights(&ws))
			goto out;
		st = restricted_newton(&ws, th, 1e-3 * tol, &pg, &fval, progress, progress_arg);
		if (st != GSU_OK)
			goto out;
		viol = check_multipliers(&ws, &worst);
		/* stationary on the set: the gradient within tol and its gap bound negligible */
		stationary = pg <= tol && pg * pg / (2.0 * lambda) <= 1e-9 * fval;
		if (stationary && viol <= 1e-9)
		{
			ok = 1;
			break;
		}
		/* the Newton iterations of all rounds spent: give up */
		if (ws.budget <= 0)
			goto out;
		if (!stationary)
		{
			/*
			 * Newton stalled: at other rows' kinks, which join the set; give
			 * up when there are none, or when the row released last is among
			 * them (a cycle)
			 */
			if (add_rows(&ws, th, released, fmax(tau, KINK_NEAR)) <= 0)
				goto out;
			continue;
		}
		if (worst < 0)
			goto out;
		/* the worst row (and its equals) leaves the set, moved off its kink the way F falls */
		if (!release_row(&ws, th, worst))
			goto out;
		released = ws.rows[worst];
		{
			int64_t		k,
						kept = 0;

			for (k = 0; k < ws.nk; k++)
				if (ws.dup_of[k] != worst)
					ws.rows[kept++] = ws.rows[k];
			ws.nk = kept;
		}
	}
	if (!ok)
		goto out;
	/* a certified point: kept if no worse than the one given, at μ = 0 */
	ok = 0;
	ws.passes += 2;
	if (gsu_objective(ds, lambda, 0.0, theta, &f_in, NULL) != GSU_OK ||
		gsu_objective(ds, lambda, 0.0, th, &f_out, NULL) != GSU_OK ||
		!(f_out <= f_in + 1e-12 * fabs(f_in)) || !(pg * pg / (2.0 * lambda) <= 1e-9 * f_out))
		goto out;
	memcpy(theta, th, sizeof(double) * (size_t) ws.m);
	*objective = f_out;
	*kkt = pg;
	ok = 1;
out:
	if (passes)
		*passes = ws.passes;
	free(th);
	kink_ws_free(&ws);
	return ok;
}
