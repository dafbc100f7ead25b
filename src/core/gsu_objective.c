/*
 * gsu_objective.c — the regularized SVM-GSU objective over a dataset, its
 * gradient and Hessian-vector products, with the dense algebra in BLAS.
 *
 *     F(θ) = λ/2‖w‖² + (1/W) Σ_i c_i D_i·h(u_i),   θ = (w, b),
 *     d_i = 1 − y_i(x_iᵀw + b),  D_i = √(2wᵀΣ_iw + μ²),  u_i = d_i/D_i,
 *
 * c_i the row weights (1 without weights) and W = Σ_i c_i (n without).
 * With p_i = ½erfc(−u_i), q_i = exp(−u_i²)/(2√π) (see gsu_loss.h):
 *
 *     ∇_w F = λw + (1/W) Σ_i c_i [ −p_i y_i x_i + (2q_i/D_i) Σ_i w ],
 *     ∂_b F = (1/W) Σ_i −c_i p_i y_i,
 *
 * and the Hessian below is weighted the same way, row by row.
 *
 * Second derivatives.  With ∂d_i = −y_i(x_i, 1), ∂D_i = (2Σ_iw/D_i, 0),
 * ∂u_i = (∂d_i − u_i ∂D_i)/D_i, dp/du = 2q and dq/du = −2u·q:
 *
 *     ∇²L_i = (2q_i/D_i)·v_i v_iᵀ + (q_i/D_i)·(2Σ̃_i − ∂D_i ∂D_iᵀ),
 *     v_i = ∂d_i − u_i ∂D_i,   Σ̃_i = Σ_i padded with a zero row/column for b.
 *
 * Both terms are positive semi-definite (the second is D_i·∇²D_i, and D_i is
 * a norm of w), which is the convexity the batch solver relies on.
 */
#include "gsu_objective.h"
#include "gsu_loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

gsu_status
gsu_eval_init(gsu_eval *ev, const gsu_dataset *ds, double lambda)
{
	size_t		n = (size_t) ds->n;
	size_t		d = (size_t) ds->d;
	double		total;

	memset(ev, 0, sizeof(*ev));
	if (gsu_weight_total(ds, &total) != GSU_OK)
		return GSU_EINVAL;
	ev->ds = ds;
	ev->lambda = lambda;
	ev->inv_w = 1.0 / total;
	ev->z = malloc(sizeof(double) * n);
	ev->act = malloc(sizeof(int64_t) * (n ? n : 1));
	ev->big_d = malloc(sizeof(double) * n);
	ev->u = malloc(sizeof(double) * n);
	ev->q = malloc(sizeof(double) * n);
	ev->c1 = malloc(sizeof(double) * n);
	ev->c2 = malloc(sizeof(double) * n);
	ev->t1 = malloc(sizeof(double) * (d + 1));
	ev->t2 = malloc(sizeof(double) * (d + 1));
	ev->w = malloc(sizeof(double) * (d + 1));
	if (!ev->z || !ev->act || !ev->big_d || !ev->u || !ev->q || !ev->c1 || !ev->c2 ||
		!ev->t1 || !ev->t2 || !ev->w)
	{
		gsu_eval_free(ev);
		return GSU_ENOMEM;
	}
	return GSU_OK;
}

void
gsu_eval_free(gsu_eval *ev)
{
	free(ev->z);
	free(ev->act);
	free(ev->big_d);
	free(ev->u);
	free(ev->q);
	free(ev->c1);
	free(ev->c2);
	free(ev->t1);
	free(ev->t2);
	free(ev->w);
	memset(ev, 0, sizeof(*ev));
}

/* out_i = wᵀΣ_i w2 for every row: full Σ_i, (L_iᵀw)·(L_iᵀw2), V·(w∘w2), s_i·wᵀw2, or 0. */
static void
quad_forms(const gsu_dataset *ds, const double *w, const double *w2,
		   double *tmp, double *out)
{
	int64_t		i;
	int			d = ds->d;

	if (ds->cov_kind == GSU_COV_FULL)
	{
		/* O(d²) a row: Σ_i w2 by dsymv, then wᵀ(Σ_i w2) */
		for (i = 0; i < ds->n; i++)
		{
			cblas_dsymv(CblasRowMajor, CblasUpper, d, 1.0, ds->cov + (size_t) i * d * d, d,
						w2, 1, 0.0, tmp, 1);
			out[i] = cblas_ddot(d, w, 1, tmp, 1);
		}
	}
	else if (ds->cov_kind == GSU_COV_FACTOR)
	{
		/* O(d·r) a row */
		int			r = ds->cov_rank;

		for (i = 0; i < ds->n; i++)
			out[i] = gsu_factor_quad2(d, r, ds->cov + (size_t) i * d * r, w, w2);
	}
	else if (ds->cov_kind == GSU_COV_DIAG)
	{
		int			j;

		for (j = 0; j < d; j++)
			tmp[j] = w[j] * w2[j];
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) ds->n, d, 1.0, ds->cov, d,
					tmp, 1, 0.0, out, 1);
	}
	else if (ds->cov_kind == GSU_COV_ISO)
	{
		double		ww = cblas_ddot(d, w, 1, w2, 1);

		for (i = 0; i < ds->n; i++)
			out[i] = ds->cov[i] * ww;
	}
	else
		memset(out, 0, sizeof(double) * (size_t) ds->n);
}

/*
 * g_w += Σ_i coef_i Σ_i vec  (the Σ-weighted sum used by the gradient and
 * the Hessian product).
 */
static void
add_sigma_sum(const gsu_dataset *ds, const double *coef, const double *vec,
			  double *tmp, double *g)
{
	int			d = ds->d;
	int			j;

	if (ds->cov_kind == GSU_COV_FULL)
	{
		int64_t		i;

		for (i = 0; i < ds->n; i++)
			if (coef[i] != 0.0)
				cblas_dsymv(CblasRowMajor, CblasUpper, d, coef[i],
							ds->cov + (size_t) i * d * d, d, vec, 1, 1.0, g, 1);
	}
	else if (ds->cov_kind == GSU_COV_FACTOR)
	{
		int64_t		i;
		int			r = ds->cov_rank;

		for (i = 0; i < ds->n; i++)
			if (coef[i] != 0.0)
				gsu_factor_apply(d, r, ds->cov + (size_t) i * d * r, coef[i], vec, 0.0, NULL, g);
	}
	else if (ds->cov_kind == GSU_COV_DIAG)
	{
		cblas_dgemv(CblasRowMajor, CblasTrans, (int) ds->n, d, 1.0, ds->cov, d,
					coef, 1, 0.0, tmp, 1);
		for (j = 0; j < d; j++)
			g[j] += tmp[j] * vec[j];
	}
	else if (ds->cov_kind == GSU_COV_ISO)
	{
		double		acc = 0.0;
		int64_t		i;

		for (i = 0; i < ds->n; i++)
			acc += coef[i] * ds->cov[i];
		cblas_daxpy(d, acc, vec, 1, g, 1);
	}
}

/*
 * One row's part of F_μ at θ, given z = x_iᵀw and quad = wᵀΣ_i w: its
 * weighted loss, with D_i, q_i, u_i and the gradient's coefficients c1_i
 * (of x_i) and c2_i (of Σ_i w) cached for the Hessian products; a row of
 * non-zero curvature joins the active list.
 */
static inline double
eval_row(gsu_eval *ev, int64_t i, double z, double quad)
{
	const gsu_dataset *ds = ev->ds;
	double		yi = ds->y[i];
	double		di = 1.0 - yi * (z + ev->w[ds->d]);
	double		Di = sqrt(2.0 * quad + ev->mu * ev->mu);
	double		ci = ds->weight ? ds->weight[i] : 1.0;
	double		p,
				q,
				loss = ci * gsu_expected_hinge(di, Di, &p, &q);

	ev->big_d[i] = Di;
	ev->q[i] = q;
	ev->u[i] = q > 0.0 ? di / Di : 0.0;
	ev->c1[i] = -p * yi * ci * ev->inv_w;
	ev->c2[i] = q > 0.0 ? 2.0 * q / Di * ci * ev->inv_w : 0.0;
	if (q > 0.0 && ci != 0.0)
		ev->act[ev->nact++] = i;
	return loss;
}

/*
 * gsu_eval_at for rows with a diagonal or isotropic covariance, in one
 * sweep over the rows: each row's mean and variances are read once, for
 * its decision value and wᵀΣ_i w and, while they are in the cache, for its
 * part of the gradient, Σ_i c1_i x_i (in grad) and Σ_i c2_i v_i (in t1,
 * times w at the end).  The BLAS sweeps (z = Xw, then V(w∘w), then Xᵀc1
 * and Vᵀc2) read the data four times; a row of zero loss derivative
 * (beyond the margin) adds nothing to the gradient.  Rows without a
 * covariance keep the two BLAS sweeps over the means: under the smoothed
 * hinge most rows have a derivative, and dgemv's blocked sweep beat the
 * row-by-row one there (the hinge SVM of bench/run.sh benchmark 2 took
 * 10 % longer).
 */
static gsu_status
eval_at_rows(gsu_eval *ev, const double *theta, double *f, double *grad)
{
	const gsu_dataset *ds = ev->ds;
	int			d = ds->d,
				j;
	int64_t		i;
	double		sum_loss = 0.0,
				gb = 0.0,
				g_iso = 0.0,
				ww = gsu_dot(d, theta, theta, NULL);
	double	   *g2 = ev->t1;

	if (grad)
	{
		memset(grad, 0, sizeof(double) * (size_t) d);
		memset(g2, 0, sizeof(double) * (size_t) d);
	}
	for (i = 0; i < ds->n; i++)
	{
		const double *x = ds->x + (size_t) i * d;
		const double *v = ds->cov_kind == GSU_COV_DIAG ? ds->cov + (size_t) i * d : NULL;
		double		quad = v ? gsu_dot(d, theta, theta, v) :
			ds->cov_kind == GSU_COV_ISO ? ds->cov[i] * ww : 0.0;

		sum_loss += eval_row(ev, i, gsu_dot(d, x, theta, NULL), fmax(quad, 0.0));
		if (grad)
		{
			double		c1 = ev->c1[i],
						c2 = ev->c2[i];

			gb += c1;
			if (c1 != 0.0)
				for (j = 0; j < d; j++)
					grad[j] += c1 * x[j];
			if (c2 != 0.0)
			{
				if (v)
					for (j = 0; j < d; j++)
						g2[j] += c2 * v[j];
				else if (ds->cov_kind == GSU_COV_ISO)
					g_iso += c2 * ds->cov[i];
			}
		}
	}
	*f = 0.5 * ev->lambda * ww + sum_loss * ev->inv_w;
	if (!isfinite(*f))
		return GSU_ENOTFINITE;
	if (grad)
	{
		for (j = 0; j < d; j++)
			grad[j] += (ds->cov_kind == GSU_COV_DIAG ? g2[j] : g_iso) * theta[j] +
				ev->lambda * theta[j];
		grad[d] = gb;
	}
	return GSU_OK;
}

gsu_status
gsu_eval_at(gsu_eval *ev, double mu, const double *theta, double *f, double *grad)
{
	const gsu_dataset *ds = ev->ds;
	int			d = ds->d;
	int64_t		n = ds->n,
				i;
	double		sum_loss = 0.0,
				gb = 0.0;
	int			j;

	memcpy(ev->w, theta, sizeof(double) * (size_t) (d + 1));
	ev->mu = mu;
	ev->nact = 0;

	if (ds->cov_kind == GSU_COV_DIAG || ds->cov_kind == GSU_COV_ISO)
		return eval_at_rows(ev, theta, f, grad);

	/* z_i = x_iᵀw */
	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
				theta, 1, 0.0, ev->z, 1);
	quad_forms(ds, theta, theta, ev->t1, ev->big_d);

	for (i = 0; i < n; i++)
	{
		sum_loss += eval_row(ev, i, ev->z[i], ev->big_d[i]);
		gb += ev->c1[i];
	}

	{
		double		ww = cblas_ddot(d, theta, 1, theta, 1);

		*f = 0.5 * ev->lambda * ww + sum_loss * ev->inv_w;
	}
	if (!isfinite(*f))
		return GSU_ENOTFINITE;

	if (grad)
	{
		cblas_dgemv(CblasRowMajor, CblasTrans, (int) n, d, 1.0, ds->x, d,
					ev->c1, 1, 0.0, grad, 1);
		add_sigma_sum(ds, ev->c2, theta, ev->t1, grad);
		for (j = 0; j < d; j++)
			grad[j] += ev->lambda * theta[j];
		grad[d] = gb;
	}
	return GSU_OK;
}

/* wᵀΣ_i s for one row i (tmp: d doubles, for a full Σ_i) */
static double
row_quad(const gsu_dataset *ds, int64_t i, const double *w, const double *s, double *tmp)
{
	int			d = ds->d,
				j;
	double		acc = 0.0;

	if (ds->cov_kind == GSU_COV_FULL)
	{
		cblas_dsymv(CblasRowMajor, CblasUpper, d, 1.0, ds->cov + (size_t) i * d * d, d,
					s, 1, 0.0, tmp, 1);
		return cblas_ddot(d, w, 1, tmp, 1);
	}
	if (ds->cov_kind == GSU_COV_FACTOR)
		return gsu_factor_quad2(d, ds->cov_rank, ds->cov + (size_t) i * d * ds->cov_rank, w, s);
	if (ds->cov_kind == GSU_COV_DIAG)
	{
		const double *v = ds->cov + (size_t) i * d;

		for (j = 0; j < d; j++)
			acc += v[j] * w[j] * s[j];
		return acc;
	}
	if (ds->cov_kind == GSU_COV_ISO)
	{
		for (j = 0; j < d; j++)
			acc += w[j] * s[j];
		return ds->cov[i] * acc;
	}
	return 0.0;
}

/* g += Σ_i (cw·w + cs·s) for one row i */
static void
row_add_sigma(const gsu_dataset *ds, int64_t i, double cw, const double *w,
			  double cs, const double *s, double *g)
{
	int			d = ds->d,
				j;

	if (ds->cov_kind == GSU_COV_FULL)
	{
		const double *c = ds->cov + (size_t) i * d * d;

		if (cw != 0.0)
			cblas_dsymv(CblasRowMajor, CblasUpper, d, cw, c, d, w, 1, 1.0, g, 1);
		if (cs != 0.0)
			cblas_dsymv(CblasRowMajor, CblasUpper, d, cs, c, d, s, 1, 1.0, g, 1);
	}
	else if (ds->cov_kind == GSU_COV_FACTOR)
		gsu_factor_apply(d, ds->cov_rank, ds->cov + (size_t) i * d * ds->cov_rank, cw, w, cs, s, g);
	else if (ds->cov_kind == GSU_COV_DIAG)
	{
		const double *v = ds->cov + (size_t) i * d;

		for (j = 0; j < d; j++)
			g[j] += v[j] * (cw * w[j] + cs * s[j]);
	}
	else if (ds->cov_kind == GSU_COV_ISO)
	{
		double		si = ds->cov[i];

		for (j = 0; j < d; j++)
			g[j] += si * (cw * w[j] + cs * s[j]);
	}
}

/*
 * hessvec_active for rows without a covariance or with a diagonal or
 * isotropic one: the terms of a row are its dot products with s and the
 * sums Σ_i a_i x_i (into hs), Σ_i b_i v_i and Σ_i g_i v_i (into t1 and
 * t2, times w and s at the end), so each row is read once.
 */
static void
hessvec_active_rows(gsu_eval *ev, const double *s, double *hs)
{
	const gsu_dataset *ds = ev->ds;
	int			d = ds->d,
				j;
	int64_t		k;
	const double *w = ev->w;
	double	   *hw = ev->t1,
			   *hss = ev->t2;
	double		ws = gsu_dot(d, w, s, NULL),
				hb = 0.0,
				hw_iso = 0.0,
				hs_iso = 0.0;

	memset(hw, 0, sizeof(double) * (size_t) d);
	memset(hss, 0, sizeof(double) * (size_t) d);
	for (k = 0; k < ev->nact; k++)
	{
		int64_t		i = ev->act[k];
		const double *x = ds->x + (size_t) i * d;
		const double *v = ds->cov_kind == GSU_COV_DIAG ? ds->cov + (size_t) i * d : NULL;
		double		qi = ev->q[i],
					Di = ev->big_d[i],
					ui = ev->u[i],
					yi = ds->y[i],
					wi = (ds->weight ? ds->weight[i] : 1.0) * ev->inv_w;
		double		ai = -yi * (gsu_dot(d, x, s, NULL) + s[d]),
					ci = 2.0 * (v ? gsu_dot(d, w, s, v) :
							   ds->cov_kind == GSU_COV_ISO ? ds->cov[i] * ws : 0.0) / Di,
					ri = 2.0 * qi / Di * (ai - ui * ci),
					coef_x = -ri * yi * wi,
					coef_w = (-2.0 * ri * ui / Di - 2.0 * qi * ci / (Di * Di)) * wi,
					coef_s = 2.0 * qi / Di * wi;

		for (j = 0; j < d; j++)
			hs[j] += coef_x * x[j];
		hb += coef_x;
		if (v)
			for (j = 0; j < d; j++)
			{
				hw[j] += coef_w * v[j];
				hss[j] += coef_s * v[j];
			}
		else if (ds->cov_kind == GSU_COV_ISO)
		{
			hw_iso += coef_w * ds->cov[i];
			hs_iso += coef_s * ds->cov[i];
		}
	}
	if (ds->cov_kind == GSU_COV_DIAG)
		for (j = 0; j < d; j++)
			hs[j] += hw[j] * w[j] + hss[j] * s[j];
	else if (ds->cov_kind == GSU_COV_ISO)
		for (j = 0; j < d; j++)
			hs[j] += hw_iso * w[j] + hs_iso * s[j];
	hs[d] = hb;
}

/*
 * The Hessian product over the rows of non-zero curvature only (see
 * gsu_eval_hessvec): the same terms, row by row.
 */
static void
hessvec_active(gsu_eval *ev, const double *s, double *hs)
{
	const gsu_dataset *ds = ev->ds;
	int			d = ds->d,
				j;
	int64_t		k;
	double		inv_n = ev->inv_w;	/* 1/W, 1/n without weights */
	const double *cw = ds->weight;
	double		sb = s[d];
	double		hb = 0.0;
	const double *w = ev->w;

	for (j = 0; j < d; j++)
		hs[j] = ev->lambda * s[j];
	if (ds->cov_kind != GSU_COV_FULL && ds->cov_kind != GSU_COV_FACTOR)
	{
		hessvec_active_rows(ev, s, hs);
		return;
	}
	for (k = 0; k < ev->nact; k++)
	{
		int64_t		i = ev->act[k];
		const double *x = ds->x + (size_t) i * d;
		double		xs = 0.0;
		double		qi = ev->q[i];
		double		Di = ev->big_d[i];
		double		ui = ev->u[i];
		double		yi = ds->y[i];
		double		wi = (cw ? cw[i] : 1.0) * inv_n;
		double		ai,
					ci,
					ri,
					coef_x;

		for (j = 0; j < d; j++)
			xs += x[j] * s[j];
		ai = -yi * (xs + sb);
		ci = 2.0 * row_quad(ds, i, w, s, ev->t2) / Di;
		ri = 2.0 * qi / Di * (ai - ui * ci);
		coef_x = -ri * yi * wi;
		for (j = 0; j < d; j++)
			hs[j] += coef_x * x[j];
		hb += coef_x;
		row_add_sigma(ds, i, (-2.0 * ri * ui / Di - 2.0 * qi * ci / (Di * Di)) * wi, w,
					  2.0 * qi / Di * wi, s, hs);
	}
	hs[d] = hb;
}

void
gsu_eval_hessvec(gsu_eval *ev, const double *s, double *hs)
{
	const gsu_dataset *ds = ev->ds;
	int			d = ds->d;
	int64_t		n = ds->n,
				i;
	double		inv_n = ev->inv_w;
	const double *cw = ds->weight;
	double		sb = s[d];
	double		hb = 0.0;
	double	   *a = ev->c1;		/* reused: x_iᵀs_w, then −r_i y_i / n */
	double	   *c = ev->c2;		/* reused: ∂D_iᵀs_w, then β_i */
	double	   *gam = ev->z;	/* z is not needed after gsu_eval_at */
	const double *w = ev->w;
	int			j;

	/*
	 * Rows with q_i = 0 (|u_i| beyond saturation) contribute nothing; when
	 * they are most rows, visiting the others one by one beats two passes
	 * of BLAS over all of them.  With diagonal or isotropic covariances it
	 * always does: hessvec_active_rows reads each row's mean and variances
	 * once, where the BLAS products read the means twice and the variances
	 * twice.  Rows without a covariance keep the BLAS products when most
	 * rows are active: the two sweeps then cost about what one row-by-row
	 * sweep does, and the hinge SVM's Newton path (its CG iterations,
	 * which follow the rounding of these products) was measured shorter
	 * with them (bench/run.sh benchmark 2: 726 against 1267 passes).
	 */
	if (!ev->dense && (ev->nact <= n / 4 || ds->cov_kind == GSU_COV_DIAG || ds->cov_kind == GSU_COV_ISO))
	{
		hessvec_active(ev, s, hs);
		return;
	}
	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
				s, 1, 0.0, a, 1);
	/* wᵀΣ_i s_w for every row */
	quad_forms(ds, w, s, ev->t1, c);

	for (i = 0; i < n; i++)
	{
		double		qi = ev->q[i];

		if (qi > 0.0 && (cw == NULL || cw[i] != 0.0))
		{
			double		ci = cw ? cw[i] : 1.0;
			double		Di = ev->big_d[i];
			double		ui = ev->u[i];
			double		yi = ds->y[i];
			double		ai = -yi * (a[i] + sb);
			double		si = 2.0 * c[i] / Di;
			double		ri = 2.0 * qi / Di * (ai - ui * si);

			a[i] = -ri * yi * ci * inv_n;
			c[i] = (-2.0 * ri * ui / Di - 2.0 * qi * si / (Di * Di)) * ci * inv_n;
			gam[i] = 2.0 * qi / Di * ci * inv_n;
		}
		else
		{
			a[i] = 0.0;
			c[i] = 0.0;
			gam[i] = 0.0;
		}
		hb += a[i];
	}

	cblas_dgemv(CblasRowMajor, CblasTrans, (int) n, d, 1.0, ds->x, d,
				a, 1, 0.0, hs, 1);
	add_sigma_sum(ds, c, w, ev->t1, hs);
	add_sigma_sum(ds, gam, s, ev->t1, hs);
	for (j = 0; j < d; j++)
		hs[j] += ev->lambda * s[j];
	hs[d] = hb;
}

gsu_status
gsu_objective(const gsu_dataset *ds, double lambda, double mu,
			  const double *theta, double *f, double *grad)
{
	gsu_eval	ev;
	gsu_status	st = gsu_eval_init(&ev, ds, lambda);

	if (st != GSU_OK)
		return st;
	st = gsu_eval_at(&ev, mu, theta, f, grad);
	gsu_eval_free(&ev);
	return st;
}
