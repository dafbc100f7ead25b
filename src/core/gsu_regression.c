/*
 * gsu_regression.c — regression on uncertain inputs: the expected
 * ε-insensitive loss (SVR-GSU) and the expected squared loss (ridge-GSU)
 * of a Gaussian row, their gradients and Hessians, the objectives over a
 * data set, ridge-GSU in closed form and SVR-GSU by a damped Newton method
 * in a smoothing continuation.  Equations: gsu_regression.h; derivation:
 * src/core/README, section gsu_regression.c.
 */
#include "gsu_regression.h"
#include "gsu_loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#define SQRT_2 1.4142135623730950488
#define SQRT_PI 1.7724538509055160273

/* ------------------------------------------------------- one residual */

void
gsu_expected_eps_insensitive(double mu, double s, double eps, gsu_eps_loss *out)
{
	/* the core's hinge reads d_Σ = √2·s: E[(N(m, s²))₊] = gsu_expected_hinge(m, √2 s) */
	double		ds = SQRT_2 * s;
	double		p1,
				q1,
				p2,
				q2,
				l1,
				l2,
				phi1,
				phi2;

	l1 = gsu_expected_hinge(mu - eps, ds, &p1, &q1);
	l2 = gsu_expected_hinge(-mu - eps, ds, &p2, &q2);
	/* q = exp(−u²)/(2√π) with u = a/√2, so φ(a) = exp(−a²/2)/√(2π) = √2·q */
	phi1 = SQRT_2 * q1;
	phi2 = SQRT_2 * q2;
	out->loss = l1 + l2;
	out->d_mu = p1 - p2;
	out->d_s = phi1 + phi2;
	/* q > 0 only off the hinge branch, where s > GSU_DSIGMA_FLOOR/√2 and |a| ≤ 40√2 */
	out->a1 = q1 > 0.0 ? (mu - eps) / s : 0.0;
	out->k1 = q1 > 0.0 ? phi1 / s : 0.0;
	out->a2 = q2 > 0.0 ? (-mu - eps) / s : 0.0;
	out->k2 = q2 > 0.0 ? phi2 / s : 0.0;
	out->h_mumu = out->k1 + out->k2;
	out->h_mus = -out->k1 * out->a1 + out->k2 * out->a2;
	out->h_ss = out->k1 * out->a1 * out->a1 + out->k2 * out->a2 * out->a2;
}

/* ------------------------------------------------------------ one row */

/* μ = y − wᵀx − b, and s_τ with Σw in sw (d doubles) */
static inline double
row_residual(int d, const double *theta, const double *x, const gsu_cov *cov, double y,
			 double tau, double *sw, double *s)
{
	double		q = gsu_cov_quad(d, cov, theta, sw);

	*s = sqrt(fmax(q, 0.0) + 0.5 * tau * tau);
	return y - gsu_dot(d, theta, x, NULL) - theta[d];
}

double
gsu_svr_row_loss_grad(int d, const double *theta, const double *x, const gsu_cov *cov,
					  double y, double eps, double tau, double scale, double *grad,
					  double *work)
{
	double		s,
				mu = row_residual(d, theta, x, cov, y, tau, work, &s);
	gsu_eps_loss e;
	int			j;

	gsu_expected_eps_insensitive(mu, s, eps, &e);
	if (grad)
	{
		/* ∂μ/∂θ = −(x, 1), ∂s/∂w = Σw/s */
		double		cs = s > 0.0 ? scale * e.d_s / s : 0.0;
		double		cm = scale * e.d_mu;

		for (j = 0; j < d; j++)
			grad[j] += cs * work[j] - cm * x[j];
		grad[d] -= cm;
	}
	return e.loss;
}

/*
 * The place of entry (i, j) of an m × m Hessian: row-major with both
 * triangles, or (packed) the upper triangle packed by rows, j ≥ i (the sums
 * of gsu.fit's scans); the loops below start row i at first_col.
 */
static inline size_t
hidx(int m, int packed, int i, int j)
{
	return packed ? (size_t) i * m - (size_t) i * (i - 1) / 2 + (size_t) (j - i) :
		(size_t) i * m + j;
}
#define first_col(packed, i) ((packed) ? (i) : 0)

/* hess += c·Σ (d×d block of the (d+1)² matrix) for the covariance cov */
static void
add_cov(int d, const gsu_cov *cov, double c, double *hess, int packed)
{
	int			m = d + 1,
				i,
				j,
				k;

	switch (cov->kind)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			for (j = 0; j < d; j++)
				hess[hidx(m, packed, j, j)] += c * cov->iso;
			break;
		case GSU_COV_DIAG:
			for (j = 0; j < d; j++)
				hess[hidx(m, packed, j, j)] += c * cov->data[j];
			break;
		case GSU_COV_FULL:
			for (i = 0; i < d; i++)
				for (j = first_col(packed, i); j < d; j++)
					hess[hidx(m, packed, i, j)] += c * cov->data[(size_t) i * d + j];
			break;
		case GSU_COV_FACTOR:
			for (i = 0; i < d; i++)
				for (j = first_col(packed, i); j < d; j++)
				{
					const double *li = cov->data + (size_t) i * cov->rank;
					const double *lj = cov->data + (size_t) j * cov->rank;
					double		t = 0.0;

					for (k = 0; k < cov->rank; k++)
						t += li[k] * lj[k];
					hess[hidx(m, packed, i, j)] += c * t;
				}
			break;
	}
}

/* hess += c·u uᵀ (both triangles, or packed the upper) */
static void
add_outer(int m, double c, const double *u, double *hess, int packed)
{
	int			i,
				j;

	if (c == 0.0)
		return;
	for (i = 0; i < m; i++)
	{
		double		cu = c * u[i];

		if (cu == 0.0)
			continue;
		for (j = first_col(packed, i); j < m; j++)
			hess[hidx(m, packed, i, j)] += cu * u[j];
	}
}

static void
svr_row_hessian(int d, const double *theta, const double *x, const gsu_cov *cov,
				double y, double eps, double tau, double scale, double *hess,
				double *work, int packed)
{
	int			m = d + 1,
				j;
	double	   *v = work;		/* Σw/s, then 0 for b */
	double	   *u = work + m;
	double		s,
				mu = row_residual(d, theta, x, cov, y, tau, v, &s);
	gsu_eps_loss e;

	if (!(s > 0.0))
		return;
	gsu_expected_eps_insensitive(mu, s, eps, &e);
	if (e.k1 == 0.0 && e.k2 == 0.0 && e.d_s == 0.0)
		return;
	for (j = 0; j < d; j++)
		v[j] /= s;
	v[d] = 0.0;
	/* the two rank-one terms k·(∂μ ∓ a ∂s)(…)ᵀ, ∂μ = −(x, 1), ∂s = (Σw/s, 0) */
	for (j = 0; j < m; j++)
		u[j] = -(j < d ? x[j] : 1.0) - e.a1 * v[j];
	add_outer(m, scale * e.k1, u, hess, packed);
	for (j = 0; j < m; j++)
		u[j] = -(j < d ? x[j] : 1.0) + e.a2 * v[j];
	add_outer(m, scale * e.k2, u, hess, packed);
	/* ∂ℓ/∂s·∇²s, ∇²s = (Σ − (Σw/s)(Σw/s)ᵀ)/s: PSD, as s is a norm of w */
	if (e.d_s > 0.0 && cov->kind != GSU_COV_NONE)
	{
		double		c = scale * e.d_s / s;

		add_cov(d, cov, c, hess, packed);
		add_outer(m, -c, v, hess, packed);
	}
}

void
gsu_svr_row_hessian(int d, const double *theta, const double *x, const gsu_cov *cov,
					double y, double eps, double tau, double scale, double *hess,
					double *work)
{
	svr_row_hessian(d, theta, x, cov, y, eps, tau, scale, hess, work, 0);
}

void
gsu_svr_row_hessian_packed(int d, const double *theta, const double *x, const gsu_cov *cov,
						   double y, double eps, double tau, double scale, double *hess,
						   double *work)
{
	svr_row_hessian(d, theta, x, cov, y, eps, tau, scale, hess, work, 1);
}

double
gsu_ridge_row_loss_grad(int d, const double *theta, const double *x, const gsu_cov *cov,
						double y, double scale, double *grad, double *work)
{
	double		s,
				mu = row_residual(d, theta, x, cov, y, 0.0, work, &s);
	int			j;

	if (grad)
	{
		/* ∂/∂θ (μ² + wᵀΣw) = −2μ(x, 1) + 2(Σw, 0) */
		double		cm = 2.0 * scale * mu;

		for (j = 0; j < d; j++)
			grad[j] += 2.0 * scale * work[j] - cm * x[j];
		grad[d] -= cm;
	}
	return mu * mu + s * s;
}

static void
ridge_row_hessian(int d, const double *x, const gsu_cov *cov, double scale, double *hess,
				  int packed)
{
	int			m = d + 1,
				i,
				j;

	for (i = 0; i < m; i++)
	{
		double		xi = 2.0 * scale * (i < d ? x[i] : 1.0);

		for (j = first_col(packed, i); j < m; j++)
			hess[hidx(m, packed, i, j)] += xi * (j < d ? x[j] : 1.0);
	}
	add_cov(d, cov, 2.0 * scale, hess, packed);
}

void
gsu_ridge_row_hessian(int d, const double *x, const gsu_cov *cov, double scale,
					  double *hess)
{
	ridge_row_hessian(d, x, cov, scale, hess, 0);
}

void
gsu_ridge_row_hessian_packed(int d, const double *x, const gsu_cov *cov, double scale,
							 double *hess)
{
	ridge_row_hessian(d, x, cov, scale, hess, 1);
}

/* ------------------------------------------------------ over a data set */

static gsu_status
check_problem(const gsu_dataset *ds, double lambda, double *total)
{
	if (ds == NULL || ds->n < 1 || ds->d < 1 || ds->x == NULL || ds->y == NULL)
		return GSU_EINVAL;
	if (!(isfinite(lambda) && lambda > 0.0))
		return GSU_EINVAL;
	switch (ds->cov_kind)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_FACTOR:
			if (ds->cov_rank < 1 || ds->cov_rank >= ds->d)
				return GSU_EINVAL;
			/* FALLTHROUGH */
		case GSU_COV_ISO:
		case GSU_COV_DIAG:
		case GSU_COV_FULL:
			if (ds->cov == NULL)
				return GSU_EINVAL;
			break;
		default:
			return GSU_EINVAL;
	}
	return gsu_weight_total(ds, total);
}

static inline double
row_weight(const gsu_dataset *ds, int64_t i)
{
	return ds->weight ? ds->weight[i] : 1.0;
}

static inline gsu_cov
row_cov(const gsu_dataset *ds, int64_t i)
{
	return gsu_cov_row(ds->cov_kind, ds->cov, ds->d, ds->cov_rank, i);
}

/* λ/2‖w‖² added to f, λw to grad */
static double
add_regularizer(int d, double lambda, const double *theta, double *grad)
{
	int			j;

	if (grad)
		for (j = 0; j < d; j++)
			grad[j] += lambda * theta[j];
	return 0.5 * lambda * gsu_dot(d, theta, theta, NULL);
}

/*
 * One pass of the SVR objective: F_τ, ∇F_τ (grad != NULL), ∇²F_τ (hess !=
 * NULL), and min over rows of weight > 0 of √(wᵀΣw) (min_s != NULL).
 * work: 2(d + 1) doubles.
 */
static gsu_status
svr_pass(const gsu_dataset *ds, double inv_w, double lambda, double eps, double tau,
		 const double *theta, double *f, double *grad, double *hess, double *min_s,
		 double *work)
{
	int			d = ds->d,
				m = d + 1;
	double		sum = 0.0,
				ms = HUGE_VAL;
	int64_t		i;

	if (grad)
		memset(grad, 0, sizeof(double) * m);
	if (hess)
		memset(hess, 0, sizeof(double) * m * m);
	for (i = 0; i < ds->n; i++)
	{
		double		c = row_weight(ds, i);
		gsu_cov		cov;

		if (c == 0.0)
			continue;
		cov = row_cov(ds, i);
		sum += c * gsu_svr_row_loss_grad(d, theta, ds->x + (size_t) i * d, &cov, ds->y[i],
										 eps, tau, c * inv_w, grad, work);
		if (min_s)
			ms = fmin(ms, sqrt(fmax(gsu_cov_quad(d, &cov, theta, work), 0.0)));
		if (hess)
			gsu_svr_row_hessian(d, theta, ds->x + (size_t) i * d, &cov, ds->y[i], eps, tau,
								c * inv_w, hess, work);
	}
	*f = sum * inv_w + add_regularizer(d, lambda, theta, grad);
	if (hess)
	{
		int			j;

		for (j = 0; j < d; j++)
			hess[(size_t) j * m + j] += lambda;
	}
	if (min_s)
		*min_s = ms;
	return isfinite(*f) ? GSU_OK : GSU_ENOTFINITE;
}

static gsu_status
check_svr(const gsu_dataset *ds, double lambda, double eps, double tau, double *total)
{
	if (!(isfinite(eps) && eps >= 0.0) || !(isfinite(tau) && tau >= 0.0))
		return GSU_EINVAL;
	return check_problem(ds, lambda, total);
}

gsu_status
gsu_svr_objective(const gsu_dataset *ds, double lambda, double eps, double tau,
				  const double *theta, double *f, double *grad)
{
	double		total,
			   *work;
	gsu_status	st = check_svr(ds, lambda, eps, tau, &total);

	if (st != GSU_OK)
		return st;
	work = malloc(sizeof(double) * 2 * (size_t) (ds->d + 1));
	if (work == NULL)
		return GSU_ENOMEM;
	st = svr_pass(ds, 1.0 / total, lambda, eps, tau, theta, f, grad, NULL, NULL, work);
	free(work);
	return st;
}

gsu_status
gsu_svr_hessian(const gsu_dataset *ds, double lambda, double eps, double tau,
				const double *theta, double *hess)
{
	double		total,
				f,
			   *work;
	gsu_status	st = check_svr(ds, lambda, eps, tau, &total);

	if (st != GSU_OK)
		return st;
	work = malloc(sizeof(double) * 2 * (size_t) (ds->d + 1));
	if (work == NULL)
		return GSU_ENOMEM;
	st = svr_pass(ds, 1.0 / total, lambda, eps, tau, theta, &f, NULL, hess, NULL, work);
	free(work);
	return st;
}

gsu_status
gsu_ridge_objective(const gsu_dataset *ds, double lambda, const double *theta,
					double *f, double *grad)
{
	double		total,
				inv_w,
				sum = 0.0,
			   *work;
	int			d;
	int64_t		i;
	gsu_status	st = check_problem(ds, lambda, &total);

	if (st != GSU_OK)
		return st;
	d = ds->d;
	inv_w = 1.0 / total;
	work = malloc(sizeof(double) * (size_t) d);
	if (work == NULL)
		return GSU_ENOMEM;
	if (grad)
		memset(grad, 0, sizeof(double) * (d + 1));
	for (i = 0; i < ds->n; i++)
	{
		double		c = row_weight(ds, i);
		gsu_cov		cov;

		if (c == 0.0)
			continue;
		cov = row_cov(ds, i);
		sum += c * gsu_ridge_row_loss_grad(d, theta, ds->x + (size_t) i * d, &cov, ds->y[i],
										   c * inv_w, grad, work);
	}
	free(work);
	*f = sum * inv_w + add_regularizer(d, lambda, theta, grad);
	return isfinite(*f) ? GSU_OK : GSU_ENOTFINITE;
}

/* -------------------------------------------------------------- ridge */

/* a += c·Σ (the upper triangle of a, d × d row-major) for one row's covariance */
static void
add_row_cov(double *a, int d, double c, const gsu_cov *cov)
{
	int			j;

	switch (cov->kind)
	{
		case GSU_COV_NONE:
			break;
		case GSU_COV_ISO:
			for (j = 0; j < d; j++)
				a[(size_t) j * d + j] += c * cov->iso;
			break;
		case GSU_COV_DIAG:
			for (j = 0; j < d; j++)
				a[(size_t) j * d + j] += c * cov->data[j];
			break;
		case GSU_COV_FULL:
			for (j = 0; j < d; j++)
				cblas_daxpy(d - j, c, cov->data + (size_t) j * d + j, 1, a + (size_t) j * d + j, 1);
			break;
		case GSU_COV_FACTOR:
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, d, cov->rank, c,
						cov->data, cov->rank, 1.0, a, d);
			break;
	}
}

/* rows per block of the dsyrk that accumulates the centred rows' outer products */
#define RIDGE_BLOCK 64

gsu_status
gsu_solve_ridge(const gsu_dataset *ds, const gsu_solve_options *o, double *theta,
				gsu_solve_result *res)
{
	double		total,
				inv_w,
				ybar = 0.0,
			   *xbar = NULL,
			   *a = NULL,
			   *rhs = NULL,
			   *blk = NULL,
				f,
			   *grad = NULL;
	int			d,
				j,
				nb = 0;
	int64_t		i;
	gsu_progress pg;
	gsu_status	st;
	lapack_int	info;

	if (o == NULL || theta == NULL)
		return GSU_EINVAL;
	st = check_problem(ds, o->lambda, &total);
	if (st != GSU_OK)
		return st;
	d = ds->d;
	inv_w = 1.0 / total;
	pg = gsu_progress_make(o->progress, o->progress_arg);
	xbar = calloc((size_t) d, sizeof(double));
	a = calloc((size_t) d * d, sizeof(double));
	rhs = calloc((size_t) d, sizeof(double));
	blk = malloc(sizeof(double) * RIDGE_BLOCK * (size_t) d);
	grad = malloc(sizeof(double) * (size_t) (d + 1));
	if (!xbar || !a || !rhs || !blk || !grad)
	{
		st = GSU_ENOMEM;
		goto done;
	}

	/* the weighted means (two passes: the centred sums do not cancel) */
	for (i = 0; i < ds->n; i++)
	{
		double		c = row_weight(ds, i) * inv_w;

		if (c == 0.0)
			continue;
		ybar += c * ds->y[i];
		cblas_daxpy(d, c, ds->x + (size_t) i * d, 1, xbar, 1);
	}
	if (!isfinite(ybar) || !isfinite(cblas_dasum(d, xbar, 1)))
	{
		st = GSU_ENOTFINITE;
		goto done;
	}

	/* A = (1/W) Σ c_i ((x_i − x̄)(x_i − x̄)ᵀ + Σ_i) + λ/2·I (upper), rhs */
	for (i = 0; i < ds->n; i++)
	{
		double		c = row_weight(ds, i) * inv_w,
					rc;
		const double *xi = ds->x + (size_t) i * d;
		double	   *row;
		gsu_cov		cov;

		if (c == 0.0)
			continue;
		if (gsu_progress_tick(&pg, (double) d * d))
		{
			st = GSU_ECANCELLED;
			goto done;
		}
		rc = sqrt(c);
		row = blk + (size_t) nb * d;
		for (j = 0; j < d; j++)
		{
			row[j] = rc * (xi[j] - xbar[j]);
			rhs[j] += c * (ds->y[i] - ybar) * (xi[j] - xbar[j]);
		}
		if (++nb == RIDGE_BLOCK)
		{
			cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, nb, 1.0, blk, d, 1.0, a, d);
			nb = 0;
		}
		cov = row_cov(ds, i);
		add_row_cov(a, d, c, &cov);
	}
	if (nb > 0)
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, d, nb, 1.0, blk, d, 1.0, a, d);
	for (j = 0; j < d; j++)
		a[(size_t) j * d + j] += 0.5 * o->lambda;

	info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', d, a, d);
	if (info == 0)
		info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'U', d, 1, a, d, rhs, 1);
	if (info != 0)
	{
		/* λ/2 > 0 on the diagonal: only a non-finite covariance or row gets here */
		st = GSU_ENOTFINITE;
		goto done;
	}
	memcpy(theta, rhs, sizeof(double) * d);
	theta[d] = ybar - gsu_dot(d, rhs, xbar, NULL);
	for (j = 0; j <= d; j++)
		if (!isfinite(theta[j]))
		{
			st = GSU_ENOTFINITE;
			goto done;
		}

	st = gsu_ridge_objective(ds, o->lambda, theta, &f, grad);
	if (st != GSU_OK)
		goto done;
	gsu_solve_trace(o, 1, f, cblas_dnrm2(d + 1, grad, 1), GSU_TRACE_NONE);
	if (res)
	{
		memset(res, 0, sizeof(*res));
		res->objective = f;
		res->gradient_norm = cblas_dnrm2(d + 1, grad, 1);
		res->gradient_norm0 = 0.0;	/* not computed: no iteration needs a scale */
		res->gap_estimate = 0.0;
		res->iterations = 1;
		res->passes = 3;
		res->converged = 1;
	}

done:
	free(xbar);
	free(a);
	free(rhs);
	free(blk);
	free(grad);
	return st;
}

/* ---------------------------------------------------------------- SVR */

typedef struct svr_ws
{
	const gsu_dataset *ds;
	const gsu_solve_options *o;
	double		inv_w,
				eps;
	int			m;
	double	   *g,
			   *p,
			   *th,
			   *h,
			   *work;
	double		f,
				gnorm,
				gnorm0,
				decrement;
	int64_t		iters,
				passes;
} svr_ws;

/*
 * One continuation stage at τ = tau from theta: Newton steps until
 * ‖∇F_τ‖ ≤ rel_tol·gnorm0, the iteration limit, or a failed line search.
 */
static gsu_status
svr_stage(svr_ws *ws, double tau, double rel_tol, double *theta)
{
	const gsu_solve_options *o = ws->o;
	int			m = ws->m,
				d = m - 1,
				j;
	gsu_status	st;

	for (;;)
	{
		double		slope,
					step = 1.0,
					fn = HUGE_VAL,
					hmax = 0.0,
					shift = 0.0;
		lapack_int	info;
		int			tries,
					accepted = 0;

		st = svr_pass(ws->ds, ws->inv_w, o->lambda, ws->eps, tau, theta, &ws->f, ws->g,
					  ws->h, NULL, ws->work);
		ws->passes++;
		if (st != GSU_OK)
			return st;
		ws->gnorm = cblas_dnrm2(m, ws->g, 1);

		/* the bias's curvature taken at least λ (rows off the tube's edges add none) */
		if (ws->h[(size_t) d * m + d] < o->lambda)
			ws->h[(size_t) d * m + d] = o->lambda;
		for (j = 0; j < m; j++)
			hmax = fmax(hmax, ws->h[(size_t) j * m + j]);
		/* Cholesky of H + shift·I, the shift raised only if rounding broke positivity */
		for (tries = 0; tries < 12; tries++)
		{
			memcpy(ws->th, ws->h, sizeof(double) * m * m);
			for (j = 0; j < m; j++)
				ws->th[(size_t) j * m + j] += shift;
			info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', m, ws->th, m);
			if (info == 0)
				break;
			if (info < 0 || !isfinite(hmax))
				return GSU_ENOTFINITE;
			shift = shift == 0.0 ? 1e-12 * hmax : 10.0 * shift;
		}
		if (info != 0)
			return GSU_ENOTFINITE;
		for (j = 0; j < m; j++)
			ws->p[j] = -ws->g[j];
		info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'U', m, 1, ws->th, m, ws->p, 1);
		if (info != 0)
			return GSU_ENOTFINITE;
		slope = cblas_ddot(m, ws->g, 1, ws->p, 1);
		/* the Newton decrement gᵀH⁻¹g at this point, for the result's gap */
		ws->decrement = -slope;
		if (ws->gnorm <= rel_tol * ws->gnorm0 || ws->iters >= o->max_iterations ||
			!(slope < 0.0))
			break;
		if (o->progress && o->progress(o->progress_arg))
			return GSU_ECANCELLED;
		ws->iters++;

		/* Armijo backtracking on F_τ (th reused for the trial point) */
		for (tries = 0; tries < 60; tries++)
		{
			for (j = 0; j < m; j++)
				ws->th[j] = theta[j] + step * ws->p[j];
			st = svr_pass(ws->ds, ws->inv_w, o->lambda, ws->eps, tau, ws->th, &fn, NULL,
						  NULL, NULL, ws->work);
			ws->passes++;
			if (st == GSU_OK && fn <= ws->f + 1e-4 * step * slope)
			{
				accepted = 1;
				break;
			}
			if (st != GSU_OK && st != GSU_ENOTFINITE)
				return st;
			step *= 0.5;
		}
		if (!accepted)
			break;				/* no decrease possible in double precision */
		memcpy(theta, ws->th, sizeof(double) * m);
		gsu_solve_trace(o, ws->iters, fn, GSU_TRACE_NONE, GSU_TRACE_NONE);
		if (ws->f - fn <= 1e-16 * fabs(ws->f) && step * cblas_dnrm2(m, ws->p, 1) <=
			1e-16 * (1.0 + cblas_dnrm2(m, theta, 1)))
			break;
	}
	return GSU_OK;
}

gsu_status
gsu_solve_svr(const gsu_dataset *ds, double epsilon, const gsu_solve_options *o,
			  double *theta, gsu_solve_result *res)
{
	svr_ws		ws;
	double		total,
				tau,
				final_tau,
				min_s,
				f;
	int			m,
				unsmoothed = 0;
	gsu_status	st;

	if (o == NULL || theta == NULL)
		return GSU_EINVAL;
	if (!(isfinite(o->smoothing) && o->smoothing >= 0.0) || o->max_iterations < 0 ||
		!(o->tolerance >= 0.0))
		return GSU_EINVAL;
	st = check_svr(ds, o->lambda, epsilon, o->smoothing, &total);
	if (st != GSU_OK)
		return st;
	memset(&ws, 0, sizeof(ws));
	m = ds->d + 1;
	ws.ds = ds;
	ws.o = o;
	ws.inv_w = 1.0 / total;
	ws.eps = epsilon;
	ws.m = m;
	ws.g = malloc(sizeof(double) * m);
	ws.p = malloc(sizeof(double) * m);
	ws.th = malloc(sizeof(double) * m * m);
	ws.h = malloc(sizeof(double) * m * m);
	ws.work = malloc(sizeof(double) * 2 * m);
	if (!ws.g || !ws.p || !ws.th || !ws.h || !ws.work)
	{
		st = GSU_ENOMEM;
		goto done;
	}
	/* a smoothing of 0 asks for the true objective: the continuation goes down to 1e-8 */
	final_tau = o->smoothing > 0.0 ? o->smoothing : 1e-8;

	/* the tolerance's scale: ‖∇F_τ(0)‖ at the final smoothing */
	memset(ws.p, 0, sizeof(double) * m);
	st = svr_pass(ds, ws.inv_w, o->lambda, epsilon, final_tau, ws.p, &f, ws.g, NULL, NULL,
				  ws.work);
	ws.passes++;
	if (st != GSU_OK)
		goto done;
	ws.gnorm0 = cblas_dnrm2(m, ws.g, 1);
	if (!(ws.gnorm0 > 0.0))
		ws.gnorm0 = 1.0;

	tau = o->warm_start || final_tau >= 1.0 ? final_tau : 1.0;
	for (;;)
	{
		int			last = tau <= final_tau;

		st = svr_stage(&ws, tau, last ? o->tolerance : fmax(o->tolerance, 1e-3), theta);
		if (st != GSU_OK)
			goto done;
		if (last)
			break;
		tau = gsu_next_smoothing(tau, final_tau);
	}
	/* the true objective, where every row keeps s well above the smoothing */
	st = svr_pass(ds, ws.inv_w, o->lambda, epsilon, 0.0, theta, &f, NULL, NULL, &min_s,
				  ws.work);
	ws.passes++;
	if (st != GSU_OK)
		goto done;
	if (o->smoothing == 0.0 ||
		gsu_finish_unsmoothed(final_tau, ds->cov_kind != GSU_COV_NONE, SQRT_2 * min_s))
	{
		st = svr_stage(&ws, 0.0, o->tolerance, theta);
		if (st != GSU_OK)
			goto done;
		unsmoothed = 1;
		st = svr_pass(ds, ws.inv_w, o->lambda, epsilon, 0.0, theta, &f, NULL, NULL, NULL,
					  ws.work);
		ws.passes++;
		if (st != GSU_OK)
			goto done;
	}
	if (res)
	{
		memset(res, 0, sizeof(*res));
		res->objective = f;
		res->gradient_norm = ws.gnorm;
		res->gradient_norm0 = ws.gnorm0;
		res->gap_estimate = 0.5 * ws.decrement + (unsmoothed ? 0.0 : final_tau / SQRT_PI);
		res->iterations = ws.iters;
		res->passes = ws.passes;
		res->converged = ws.gnorm <= o->tolerance * ws.gnorm0;
	}

done:
	free(ws.g);
	free(ws.p);
	free(ws.th);
	free(ws.h);
	free(ws.work);
	return st;
}
