/*
 * gsu_polish_dual.c — the SVM-GSU optimum (μ = 0) for a few rows whose
 * covariances are low-rank factors, by an interior-point method on the dual,
 * with a certified duality gap.  newton's kink finish (gsu_polish_kink.c)
 * follows rows to their kink one at a time and gives up where many reach it
 * at small λ; this dual has (1 + r) variables per row and no kink.
 *
 * Row i's expected hinge is the support function of the set
 * S = {(a, g): 0 ≤ a ≤ 1, ‖g‖ ≤ h(a)}, h(a) = φ(Φ⁻¹(a)):
 * E_i = max over S of a·m_i + gᵀL_iᵀw, m_i = 1 − y_i(wᵀx_i + b).  With
 * ω_i = c_i/W the primal F(w, b) = λ/2‖w‖² + Σ ω_i E_i has the dual
 *
 *   D(a, g) = Σ ω_i a_i − ‖B v‖²/(2λ),   Σ ω_i y_i a_i = 0,  (a_i, g_i) ∈ S,
 *
 * v = (a_1, g_1, a_2, g_2, …), B's columns ω_i y_i x_i (for a_i) and
 * −ω_i L_i (for g_i), and w = B v / λ.  D(v) ≤ min F ≤ F(w, b) for every
 * feasible v and every (w, b), so F − D bounds the gap of the point it
 * returns.  The barrier −log(h(a)² − ‖g‖²) is convex (the second-order
 * cone's barrier, non-increasing in its first argument, of the concave h),
 * so the path-following method is the textbook one: Newton on
 * t·(−D) + Σ barrier with the linear constraint kept by a Schur complement,
 * t ×10 per round.  b minimizes F(w, ·) by bisection of its monotone
 * derivative.  The derivation: src/core/README, section gsu_polish_dual.c.
 */
#include "gsu_polish.h"
#include "gsu_objective.h"
#include "gsu_loss.h"
#include "gsu_robust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* the dual's variables at most, and B's doubles at most (32 MB) */
#define DUAL_MAX_VARS 600
#define DUAL_MAX_DOUBLES (4.0 * 1024 * 1024)
/* Newton iterations over all rounds, and per centering */
#define DUAL_MAX_NEWTON 1500
#define DUAL_CENTER_STEPS 80

typedef struct dual_ws
{
	int			d;
	int			r;				/* each factor's columns */
	int			k;				/* rows of weight > 0 */
	int			nv;				/* variables: k (1 + r) */
	double		lambda;
	int64_t    *row;			/* the rows of weight > 0 */
	double	   *omega;			/* their c_i / W */
	double	   *yv;				/* their labels */
	double	   *bmat;			/* B: d × nv, column-major */
	double	   *gram;			/* BᵀB: nv × nv */
	double	   *v;
	double	   *trial;
	double	   *grad;
	double	   *hess;
	double	   *x1;
	double	   *x2;
	double	   *bv;				/* B v / λ (d): w */
	double	   *bvraw;			/* B v (d) */
	double	   *u;				/* Bᵀ w (nv) */
	double	   *xnorm;			/* the rows' ‖x_i‖ */
	gsu_progress_fn progress;
	void	   *progress_arg;
} dual_ws;

static void
dual_ws_free(dual_ws *ws)
{
	free(ws->row);
	free(ws->omega);
	free(ws->yv);
	free(ws->bmat);
	free(ws->gram);
	free(ws->v);
	free(ws->trial);
	free(ws->grad);
	free(ws->hess);
	free(ws->x1);
	free(ws->x2);
	free(ws->bv);
	free(ws->bvraw);
	free(ws->u);
	free(ws->xnorm);
}

/*
 * −D(v) = −Σ ω_i a_i + vᵀGv/(2λ), with G v in gv (nv) when gv != NULL;
 * without gv, G v goes to ws->x2, which the caller must not need then.
 */
static double
neg_dual(const dual_ws *ws, const double *v, double *gv)
{
	int			nv = ws->nv,
				i,
				s = 1 + ws->r;
	double		lin = 0.0,
				quad;
	double	   *tmp = gv ? gv : ws->x2;

	cblas_dsymv(CblasColMajor, CblasUpper, nv, 1.0, ws->gram, nv, v, 1, 0.0, tmp, 1);
	quad = cblas_ddot(nv, v, 1, tmp, 1);
	for (i = 0; i < ws->k; i++)
		lin += ws->omega[i] * v[i * s];
	return -lin + quad / (2.0 * ws->lambda);
}

/*
 * The barrier Σ −log(h(a_i)² − ‖g_i‖²) at v; +∞ outside the interior.
 * With grad != NULL, adds its gradient to grad and its Hessian's blocks to
 * hess (nv × nv, column-major, upper triangle).
 */
static double
barrier(const dual_ws *ws, const double *v, double *grad, double *hess)
{
	int			s = 1 + ws->r,
				nv = ws->nv,
				i,
				j,
				l;
	double		total = 0.0;

	for (i = 0; i < ws->k; i++)
	{
		const double *vi = v + (size_t) i * s;
		double		a = vi[0],
					z,
					h,
					gg = 0.0,
					q;

		if (!(a > 0.0 && a < 1.0))
			return HUGE_VAL;
		z = gsu_normal_quantile(a);
		h = exp(-0.5 * z * z) * 0.39894228040143267794;
		for (j = 1; j < s; j++)
			gg += vi[j] * vi[j];
		q = h * h - gg;
		if (!(q > 0.0) || !isfinite(z))
			return HUGE_VAL;
		total -= log(q);
		if (grad)
		{
			int			o = i * s;

			grad[o] += 2.0 * h * z / q;
			hess[(size_t) o * nv + o] += (2.0 * q + 2.0 * z * z * (h * h + gg)) / (q * q);
			for (j = 1; j < s; j++)
			{
				grad[o + j] += 2.0 * vi[j] / q;
				/* the cross terms a–g_j and g_l–g_j (l ≤ j: the upper triangle) */
				hess[(size_t) (o + j) * nv + o] += 4.0 * h * z * vi[j] / (q * q);
				for (l = 1; l <= j; l++)
					hess[(size_t) (o + j) * nv + o + l] += 4.0 * vi[l] * vi[j] / (q * q) +
						(l == j ? 2.0 / q : 0.0);
			}
		}
	}
	return total;
}

/* Σ ω_i y_i a_i: the linear constraint's value */
static double
balance(const dual_ws *ws, const double *v)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < ws->k; i++)
		s += ws->omega[i] * ws->yv[i] * v[(size_t) i * (1 + ws->r)];
	return s;
}

/*
 * v moved along e (ω_i y_i on the a_i) to Σ ω_i y_i a_i = 0 again: Newton's
 * steps keep it only up to rounding, and the drift, times |b|, would stay
 * in the certified gap.  Kept only when v stays strictly feasible.
 */
static void
rebalance(dual_ws *ws)
{
	int			s = 1 + ws->r,
				i;
	double		ee = 0.0,
				c;

	for (i = 0; i < ws->k; i++)
		ee += ws->omega[i] * ws->omega[i];
	c = balance(ws, ws->v) / ee;
	memcpy(ws->trial, ws->v, sizeof(double) * ws->nv);
	for (i = 0; i < ws->k; i++)
		ws->trial[i * s] -= c * ws->omega[i] * ws->yv[i];
	if (barrier(ws, ws->trial, NULL, NULL) < HUGE_VAL)
		memcpy(ws->v, ws->trial, sizeof(double) * ws->nv);
}

/*
 * One centering: Newton on t·(−D) + barrier under Σ ω_i y_i a_i = 0 from a
 * strictly feasible v (kept), at most max_steps steps.  Returns the steps
 * taken, −1 when a factorization failed, −2 when progress said stop.
 */
static int
center(dual_ws *ws, double t, int max_steps)
{
	int			nv = ws->nv,
				s = 1 + ws->r,
				it,
				i;

	for (it = 0; it < max_steps; it++)
	{
		double		phi,
					dec,
					ex1 = 0.0,
					ex2 = 0.0,
					nu,
					step = 1.0;

		if (ws->progress && ws->progress(ws->progress_arg))
			return -2;
		rebalance(ws);
		memset(ws->grad, 0, sizeof(double) * nv);
		memset(ws->hess, 0, sizeof(double) * nv * nv);
		phi = t * neg_dual(ws, ws->v, ws->x1);
		for (i = 0; i < nv; i++)
			ws->grad[i] = t * ws->x1[i] / ws->lambda;
		for (i = 0; i < ws->k; i++)
			ws->grad[i * s] -= t * ws->omega[i];
		phi += barrier(ws, ws->v, ws->grad, ws->hess);
		for (i = 0; i < nv * nv; i++)
			ws->hess[i] += t * ws->gram[i] / ws->lambda;
		if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', nv, ws->hess, nv) != 0)
			return -1;
		/* x1 = −H⁻¹∇, x2 = H⁻¹e, the step x1 − ν x2 keeps eᵀv */
		for (i = 0; i < nv; i++)
		{
			ws->x1[i] = -ws->grad[i];
			ws->x2[i] = 0.0;
		}
		for (i = 0; i < ws->k; i++)
			ws->x2[i * s] = ws->omega[i] * ws->yv[i];
		if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', nv, 1, ws->hess, nv, ws->x1, nv) != 0 ||
			LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', nv, 1, ws->hess, nv, ws->x2, nv) != 0)
			return -1;
		for (i = 0; i < ws->k; i++)
		{
			ex1 += ws->omega[i] * ws->yv[i] * ws->x1[i * s];
			ex2 += ws->omega[i] * ws->yv[i] * ws->x2[i * s];
		}
		nu = ex2 > 0.0 ? ex1 / ex2 : 0.0;
		for (i = 0; i < nv; i++)
			ws->x1[i] -= nu * ws->x2[i];
		dec = -cblas_ddot(nv, ws->grad, 1, ws->x1, 1);
		/* centred, or as near as double precision tells at this φ */
		if (!(dec > 1e-12) || dec <= 1e-14 * fabs(phi))
			return it;
		/* backtracking: feasible first, then a sufficient decrease */
		for (;;)
		{
			double		phi_new;

			for (i = 0; i < nv; i++)
				ws->trial[i] = ws->v[i] + step * ws->x1[i];
			phi_new = barrier(ws, ws->trial, NULL, NULL);
			if (phi_new < HUGE_VAL)
			{
				phi_new += t * neg_dual(ws, ws->trial, NULL);
				if (phi_new <= phi - 0.01 * step * dec)
					break;
			}
			step *= 0.5;
			if (step < 1e-14)
				return it;		/* no progress in double precision */
		}
		memcpy(ws->v, ws->trial, sizeof(double) * nv);
	}
	return it;
}

/* ∂F/∂b at b = −Σ ω_i y_i ∂E_i/∂m_i (y_i wᵀx_i in x1, d_Σ in x2): non-decreasing in b */
static double
slope_b(const dual_ws *ws, double b)
{
	double		sl = 0.0;
	int			i;

	for (i = 0; i < ws->k; i++)
	{
		double		p;

		(void) gsu_expected_hinge(1.0 - ws->x1[i] - ws->yv[i] * b, ws->x2[i], &p, NULL);
		sl -= ws->omega[i] * ws->yv[i] * p;
	}
	return sl;
}

/*
 * The primal point of v: w = B v / λ to theta, and to theta[d] the b that
 * minimizes F(w, ·) over the rows of weight > 0, by bisection of its
 * derivative from a bracket about b0.
 */
static void
primal_at(dual_ws *ws, double b0, double *theta)
{
	int			d = ws->d,
				s = 1 + ws->r,
				i,
				j,
				it;
	double		step,
				lo,
				hi;

	cblas_dgemv(CblasColMajor, CblasNoTrans, d, ws->nv, 1.0, ws->bmat, d, ws->v, 1, 0.0,
				ws->bvraw, 1);
	for (j = 0; j < d; j++)
		ws->bv[j] = ws->bvraw[j] / ws->lambda;
	/* u = Bᵀw: ω_i y_i x_iᵀw and −ω_i L_iᵀw */
	cblas_dgemv(CblasColMajor, CblasTrans, d, ws->nv, 1.0, ws->bmat, d, ws->bv, 1, 0.0, ws->u, 1);
	for (i = 0; i < ws->k; i++)
	{
		double		ss = 0.0;

		for (j = 1; j < s; j++)
			ss += ws->u[i * s + j] * ws->u[i * s + j];
		ws->x1[i] = ws->u[i * s] / ws->omega[i];
		ws->x2[i] = sqrt(2.0 * ss) / ws->omega[i];
	}
	lo = hi = isfinite(b0) ? b0 : 0.0;
	for (it = 0, step = 1.0; it < 60 && slope_b(ws, lo) > 0.0; it++, step *= 2.0)
		lo -= step;
	for (it = 0, step = 1.0; it < 60 && slope_b(ws, hi) < 0.0; it++, step *= 2.0)
		hi += step;
	for (it = 0; it < 200 && hi - lo > 1e-16 * (1.0 + fabs(lo) + fabs(hi)); it++)
	{
		double		mid = 0.5 * (lo + hi);

		if (slope_b(ws, mid) < 0.0)
			lo = mid;
		else
			hi = mid;
	}
	memcpy(theta, ws->bv, sizeof(double) * d);
	theta[d] = 0.5 * (lo + hi);
}

/*
 * The certified gap of the primal point theta (from primal_at, which left
 * y_i wᵀx_i in x1, d_Σ in x2 and Bᵀw in u) against v, without the
 * cancellation of F − D at small λ: with m_i = 1 − y_i(x_iᵀw + b),
 * s_i = L_iᵀw and ε = Σ ω_i y_i a_i,
 *
 *   F(w, b) − D(v) = Σ ω_i (E_i − a_i m_i − g_iᵀs_i) + ‖λw − Bv‖²/(2λ) − bε,
 *
 * every term of the first sum ≥ 0 (E_i is the maximum over S).  D(v) bounds
 * min F only when ε = 0; rounding leaves |ε| tiny, and min F ≥ D(v) − |b*|·|ε|
 * with |b*| bounded through F(w*, b*) ≤ f_up: ‖w*‖ ≤ √(2 f_up/λ), and a row
 * of each class has ω_i max(0, m_i) ≤ E_i's share ≤ f_up.  Returns F − that
 * lower bound, with F itself (as summed here) in *f_here; a value below
 * zero by more than rounding means the pieces disagree (the caller gives up).
 */
static double
certified_gap(const dual_ws *ws, const double *theta, double f_up, double *f_here)
{
	int			d = ws->d,
				s = 1 + ws->r,
				i,
				j;
	double		b = theta[d],
				rows = 0.0,
				loss = 0.0,
				quad = 0.0,
				eps = balance(ws, ws->v),
				wn = sqrt(2.0 * fmax(f_up, 0.0) / ws->lambda),
				up_pos = HUGE_VAL,
				up_neg = HUGE_VAL;

	for (i = 0; i < ws->k; i++)
	{
		const double *vi = ws->v + (size_t) i * s;
		double		m = 1.0 - ws->x1[i] - ws->yv[i] * b,
					e = gsu_expected_hinge(m, ws->x2[i], NULL, NULL),
					gs = 0.0,
					bound = f_up / ws->omega[i] + ws->xnorm[i] * wn;

		/* s_i = −u_g/ω_i */
		for (j = 1; j < s; j++)
			gs -= vi[j] * ws->u[i * s + j] / ws->omega[i];
		rows += ws->omega[i] * (e - vi[0] * m - gs);
		loss += ws->omega[i] * e;
		if (ws->yv[i] > 0.0)
			up_pos = fmin(up_pos, bound);
		else
			up_neg = fmin(up_neg, bound);
	}
	for (j = 0; j < d; j++)
	{
		double		r = ws->lambda * theta[j] - ws->bvraw[j];

		quad += r * r;
	}
	*f_here = 0.5 * ws->lambda * cblas_ddot(d, theta, 1, theta, 1) + loss;
	return rows + quad / (2.0 * ws->lambda) - b * eps + fmax(up_pos, up_neg) * fabs(eps);
}

static int
dual_ws_init(dual_ws *ws, const gsu_dataset *ds, double lambda)
{
	int64_t		i;
	double		total,
				wpos = 0.0,
				wneg = 0.0;
	int			d = ds->d,
				r = ds->cov_rank,
				s = 1 + r,
				k = 0,
				nv,
				j,
				c;

	memset(ws, 0, sizeof(*ws));
	if (ds->cov_kind != GSU_COV_FACTOR || r < 1 || gsu_weight_total(ds, &total) != GSU_OK)
		return 0;
	for (i = 0; i < ds->n; i++)
	{
		double		ci = ds->weight ? ds->weight[i] : 1.0;

		if (ci > 0.0)
		{
			if (++k > DUAL_MAX_VARS / s)
				return 0;
			if (ds->y[i] > 0.0)
				wpos += ci;
			else
				wneg += ci;
		}
	}
	nv = k * s;
	if (!(wpos > 0.0) || !(wneg > 0.0) || (double) d * nv > DUAL_MAX_DOUBLES)
		return 0;
	ws->d = d;
	ws->r = r;
	ws->k = k;
	ws->nv = nv;
	ws->lambda = lambda;
	ws->row = malloc(sizeof(int64_t) * k);
	ws->omega = malloc(sizeof(double) * k);
	ws->yv = malloc(sizeof(double) * k);
	ws->bmat = malloc(sizeof(double) * d * nv);
	ws->gram = malloc(sizeof(double) * nv * nv);
	ws->v = malloc(sizeof(double) * nv);
	ws->trial = malloc(sizeof(double) * nv);
	ws->grad = malloc(sizeof(double) * nv);
	ws->hess = malloc(sizeof(double) * nv * nv);
	ws->x1 = malloc(sizeof(double) * (nv > d ? nv : d));
	ws->x2 = malloc(sizeof(double) * (nv > d ? nv : d));
	ws->bv = malloc(sizeof(double) * d);
	ws->bvraw = malloc(sizeof(double) * d);
	ws->u = malloc(sizeof(double) * nv);
	ws->xnorm = malloc(sizeof(double) * k);
	if (!ws->row || !ws->omega || !ws->yv || !ws->bmat || !ws->gram || !ws->v || !ws->trial ||
		!ws->grad || !ws->hess || !ws->x1 || !ws->x2 || !ws->bv || !ws->bvraw ||
		!ws->u || !ws->xnorm)
	{
		dual_ws_free(ws);
		return 0;
	}
	for (i = 0, k = 0; i < ds->n; i++)
	{
		double		ci = ds->weight ? ds->weight[i] : 1.0;
		const double *x = ds->x + (size_t) i * d,
				   *l = ds->cov + (size_t) i * d * r;
		double	   *col = ws->bmat + (size_t) k * s * d;

		if (!(ci > 0.0))
			continue;
		ws->row[k] = i;
		ws->omega[k] = ci / total;
		ws->yv[k] = ds->y[i] > 0.0 ? 1.0 : -1.0;
		ws->xnorm[k] = cblas_dnrm2(d, x, 1);
		for (j = 0; j < d; j++)
		{
			col[j] = ws->omega[k] * ws->yv[k] * x[j];
			for (c = 0; c < r; c++)
				col[(size_t) (c + 1) * d + j] = -ws->omega[k] * l[(size_t) j * r + c];
		}
		/* the start: a = 1/2 for the lighter class, the other balancing it; g = 0 */
		ws->v[k * s] = ws->yv[k] > 0.0 ? 0.5 * fmin(1.0, wneg / wpos) : 0.5 * fmin(1.0, wpos / wneg);
		for (c = 0; c < r; c++)
			ws->v[k * s + c + 1] = 0.0;
		k++;
	}
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nv, nv, d, 1.0, ws->bmat, d,
				ws->bmat, d, 0.0, ws->gram, nv);
	return 1;
}

int
gsu_dual_polish(const gsu_dataset *ds, double lambda, double rel_gap, double *theta,
				double *objective, double *gap, int64_t *passes, gsu_progress_fn progress,
				void *progress_arg)
{
	dual_ws		ws;
	double		f_in,
				t;
	double	   *cand;
	int			newton = 0,
				ok = 0,
				round;
	int64_t		made = 0;

	if (!dual_ws_init(&ws, ds, lambda))
		goto out_ws;
	ws.progress = progress;
	ws.progress_arg = progress_arg;
	made = 1;					/* B from the rows */
	cand = malloc(sizeof(double) * (ds->d + 1));
	if (!cand || gsu_objective(ds, lambda, 0.0, theta, &f_in, NULL) != GSU_OK)
		goto out;
	made++;
	t = ws.nv / fmax(fabs(neg_dual(&ws, ws.v, NULL)), 1e-300);
	for (round = 0; round < 60 && newton < DUAL_MAX_NEWTON; round++, t *= 10.0)
	{
		int			steps = center(&ws, t, DUAL_CENTER_STEPS);
		double		pval,
					f_here,
					g,
					lower;

		if (steps < 0)
			break;
		rebalance(&ws);
		newton += steps + 1;
		primal_at(&ws, theta[ds->d], cand);
		if (gsu_objective(ds, lambda, 0.0, cand, &pval, NULL) != GSU_OK)
			break;
		made++;
		/* the lower bound on min F, and the gap of the objective as gsu_objective sums it */
		g = certified_gap(&ws, cand, pval, &f_here);
		if (!(g >= -1e-14 * f_here))
			break;
		lower = f_here - fmax(g, 0.0);
		g = pval - lower;
		if (g <= rel_gap * pval || f_in - lower <= rel_gap * f_in)
		{
			if (pval <= f_in && g <= rel_gap * pval)
			{
				memcpy(theta, cand, sizeof(double) * (ds->d + 1));
				*objective = pval;
				*gap = fmax(g, 0.0);
				ok = 1;
			}
			else if (f_in - lower <= rel_gap * f_in)
			{
				/* the start is certified itself: theta stays */
				*objective = f_in;
				*gap = fmax(f_in - lower, 0.0);
				ok = 1;
			}
			break;
		}
		/* the barrier's own bound nv/t is far below the gap: rounding stalls it */
		if (ws.nv / t < 1e-3 * rel_gap * fabs(pval) && round > 0)
			break;
	}
out:
	free(cand);
	dual_ws_free(&ws);
out_ws:
	if (passes)
		*passes = made;
	return ok;
}
