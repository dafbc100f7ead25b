/*
 * gsu_polish_band.c — the exact minimizer of the hinge-loss SVM from dual
 * coordinate descent's stages (gsu_dcd.c), by an interior-point method on
 * a band of rows.
 *
 * The derivation: src/core/README, section gsu_polish_band.c.
 */
#include "gsu_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* c_i: the weight of row i (1 without weights) */
#define ROW_WEIGHT(ds, i) ((ds)->weight ? (ds)->weight[i] : 1.0)
/* a row of weight 0 takes no part: α_i = 0, in N for good */
#define ROW_IDLE(ds, i) ((ds)->weight && (ds)->weight[i] == 0.0)

#define STATE_N 0
#define STATE_V 1
#define STATE_S 2

/* iterations of the interior-point method at most, and its target μ */
#define IPM_MAX_ITER 80
#define IPM_MU_STOP 1e-13
/* the floor of Θ's entries, so that the factorization stays finite */
#define IPM_THETA_MIN 1e-12
/* an α this close to a bound (relative to c_i) is put on it */
#define IPM_SNAP 1e-7
/* the band's rows scaled at a time into ZᵀΘ⁻¹Z (Woodbury) */
#define IPM_BLOCK 128
/* vectors of the band's length the method keeps */
#define IPM_VECTORS 19

double
gsu_hinge_polish_band_doubles(int64_t n, int d)
{
	double		dd = (double) d,
				k = fmin((double) n, dd),
				kc = fmin((double) n, 2.0 * (dd + 1.0));

	/*
	 * margins and a state byte a row; per band row (at most every row) its
	 * index and the method's vectors; the factor (d × d, or m × m with the
	 * band's m ≤ d rows) and a block of scaled rows or those m rows; the
	 * crossover's rows and system (at most 2(d + 1) rows, and at most n)
	 */
	return (2.2 + IPM_VECTORS) * (double) n + fmax(dd * dd + IPM_BLOCK * dd, k * k + k * dd) +
		kc * dd + (kc + 1.0) * (kc + 1.0) + 12.0 * (dd + 1.0);
}

typedef struct band_ipm
{
	const gsu_dataset *ds;
	const int64_t *idx;			/* the band's rows */
	int64_t		m;
	int			d;
	int			direct;			/* m ≤ d: factor M itself */
	double		sq;				/* 1/√(λW) */
	/* m each: */
	double	   *u,
			   *y,
			   *g,
			   *a,
			   *s2,
			   *z1,
			   *z2,
			   *th,
			   *rd,
			   *ca,
			   *aa,
			   *da,
			   *dz1,
			   *dz2,
			   *t1,
			   *t2,
			   *tmp,
			   *daa,
			   *h;
	double	   *fac;			/* d × d, or m × m */
	double	   *rows;			/* direct: Z (m × d); else a block of IPM_BLOCK rows */
	double	   *v;				/* d */
} band_ipm;

/* v = Zᵀ in */
static void
z_trans(const band_ipm *p, const double *in, double *v)
{
	int			d = p->d;

	memset(v, 0, sizeof(double) * (size_t) d);
	for (int64_t k = 0; k < p->m; k++)
		if (in[k] != 0.0)
			cblas_daxpy(d, in[k] * p->sq * p->y[k], p->ds->x + (size_t) p->idx[k] * d, 1, v, 1);
}

/* out = Z v */
static void
z_times(const band_ipm *p, const double *v, double *out)
{
	int			d = p->d;

	for (int64_t k = 0; k < p->m; k++)
		out[k] = p->sq * p->y[k] * cblas_ddot(d, p->ds->x + (size_t) p->idx[k] * d, 1, v, 1);
}

/* Cholesky of M = Θ + ZZᵀ (direct) or of I + ZᵀΘ⁻¹Z; 0 when it fails */
static int
factor(band_ipm *p)
{
	int			d = p->d;
	int64_t		m = p->m;

	if (p->direct)
	{
		cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) m, d, 1.0, p->rows, d,
					0.0, p->fac, (int) m);
		for (int64_t k = 0; k < m; k++)
			p->fac[k * m + k] += p->th[k];
		return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int) m, p->fac, (lapack_int) m) == 0;
	}
	memset(p->fac, 0, sizeof(double) * (size_t) d * (size_t) d);
	for (int j = 0; j < d; j++)
		p->fac[(size_t) j * d + j] = 1.0;
	for (int64_t k0 = 0; k0 < m; k0 += IPM_BLOCK)
	{
		int			nb = (int) (m - k0 < IPM_BLOCK ? m - k0 : IPM_BLOCK);

		for (int r = 0; r < nb; r++)
		{
			const double *x = p->ds->x + (size_t) p->idx[k0 + r] * d;
			double		s = p->sq / sqrt(p->th[k0 + r]);
			double	   *out = p->rows + (size_t) r * d;

			for (int j = 0; j < d; j++)
				out[j] = s * x[j];
		}
		cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, d, nb, 1.0, p->rows, d,
					1.0, p->fac, d);
	}
	return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', d, p->fac, d) == 0;
}

/* x = M⁻¹ b with the factor of factor() */
static void
msolve(band_ipm *p, const double *b, double *x)
{
	int64_t		m = p->m;

	if (p->direct)
	{
		memcpy(x, b, sizeof(double) * (size_t) m);
		LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', (lapack_int) m, 1, p->fac, (lapack_int) m, x, 1);
		return;
	}
	for (int64_t k = 0; k < m; k++)
		p->tmp[k] = b[k] / p->th[k];
	z_trans(p, p->tmp, p->v);
	LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', p->d, 1, p->fac, p->d, p->v, 1);
	z_times(p, p->v, x);
	for (int64_t k = 0; k < m; k++)
		x[k] = p->tmp[k] - x[k] / p->th[k];
}

/*
 * The band's QP by Mehrotra's predictor–corrector: α in p->a, the equality's
 * multiplier in *nu.  0 when asked to stop (progress) or when no finite
 * iterate was reached.
 */
static int
ipm_solve(band_ipm *p, double r, double *nu, gsu_progress_fn progress, void *progress_arg)
{
	int64_t		m = p->m,
				k;
	double		ycy = 0.0;

	*nu = 0.0;
	for (k = 0; k < m; k++)
	{
		p->a[k] = 0.5 * p->u[k];
		p->s2[k] = 0.5 * p->u[k];
		p->z1[k] = 1.0;
		p->z2[k] = 1.0;
	}
	if (p->direct)
		for (k = 0; k < m; k++)
		{
			const double *x = p->ds->x + (size_t) p->idx[k] * p->d;

			for (int j = 0; j < p->d; j++)
				p->rows[(size_t) k * p->d + j] = p->sq * p->y[k] * x[j];
		}

	for (int it = 0; it < IPM_MAX_ITER; it++)
	{
		double		rp = -r,
					mu = 0.0,
					sigma = 0.0,
					dnu = 0.0,
					sp = 1.0,
					sd = 1.0;

		if (progress && progress(progress_arg))
			return 0;
		/* rd = ZZᵀα + g + νy − z₁ + z₂, the equality's residual, μ */
		z_trans(p, p->a, p->v);
		z_times(p, p->v, p->rd);
		for (k = 0; k < m; k++)
		{
			p->rd[k] += p->g[k] + *nu * p->y[k] - p->z1[k] + p->z2[k];
			rp += p->y[k] * p->a[k];
			mu += p->a[k] * p->z1[k] + p->s2[k] * p->z2[k];
		}
		mu /= 2.0 * (double) m;
		if (!isfinite(mu) || !isfinite(rp))
			return 0;
		if (mu <= IPM_MU_STOP)
			break;

		for (k = 0; k < m; k++)
			p->th[k] = fmax(p->z1[k] / p->a[k] + p->z2[k] / p->s2[k], IPM_THETA_MIN);
		if (!factor(p))
			break;				/* the last iterate stands */
		msolve(p, p->y, p->ca);
		ycy = cblas_ddot((int) m, p->y, 1, p->ca, 1);
		if (!(ycy > 0.0))
			break;

		/* the predictor (σ = 0), then the corrector with its second-order term */
		for (int pass = 0; pass < 2; pass++)
		{
			for (k = 0; k < m; k++)
			{
				p->t1[k] = (pass ? sigma * mu - p->daa[k] * p->dz1[k] : 0.0) - p->a[k] * p->z1[k];
				p->t2[k] = (pass ? sigma * mu + p->daa[k] * p->dz2[k] : 0.0) - p->s2[k] * p->z2[k];
				p->h[k] = -p->rd[k] + p->t1[k] / p->a[k] - p->t2[k] / p->s2[k];
			}
			msolve(p, p->h, p->aa);
			dnu = (cblas_ddot((int) m, p->y, 1, p->aa, 1) + rp) / ycy;
			sp = 1.0;
			sd = 1.0;
			for (k = 0; k < m; k++)
			{
				p->da[k] = p->aa[k] - p->ca[k] * dnu;
				p->dz1[k] = (p->t1[k] - p->z1[k] * p->da[k]) / p->a[k];
				p->dz2[k] = (p->t2[k] + p->z2[k] * p->da[k]) / p->s2[k];
				if (p->da[k] < 0.0)
					sp = fmin(sp, -p->a[k] / p->da[k]);
				else if (p->da[k] > 0.0)
					sp = fmin(sp, p->s2[k] / p->da[k]);
				if (p->dz1[k] < 0.0)
					sd = fmin(sd, -p->z1[k] / p->dz1[k]);
				if (p->dz2[k] < 0.0)
					sd = fmin(sd, -p->z2[k] / p->dz2[k]);
			}
			if (pass == 0)
			{
				double		mua = 0.0;

				for (k = 0; k < m; k++)
					mua += (p->a[k] + sp * p->da[k]) * (p->z1[k] + sd * p->dz1[k]) +
						(p->s2[k] - sp * p->da[k]) * (p->z2[k] + sd * p->dz2[k]);
				mua /= 2.0 * (double) m;
				sigma = pow(fmax(mua, 0.0) / mu, 3.0);
				memcpy(p->daa, p->da, sizeof(double) * (size_t) m);
			}
		}
		sp = fmin(1.0, 0.995 * sp);
		sd = fmin(1.0, 0.995 * sd);
		if (sp < 1e-12 && sd < 1e-12)
			break;
		for (k = 0; k < m; k++)
		{
			double		na = p->a[k] + sp * p->da[k],
						ns = p->s2[k] - sp * p->da[k];

			/* rounding must not put a slack on its bound */
			p->a[k] = na > 0.0 ? na : 1e-300;
			p->s2[k] = ns > 0.0 ? ns : 1e-300;
			p->z1[k] += sd * p->dz1[k];
			p->z2[k] += sd * p->dz2[k];
		}
		*nu += sd * dnu;
	}
	for (k = 0; k < m; k++)
		if (!isfinite(p->a[k]))
			return 0;
	return isfinite(*nu);
}

/*
 * The exact solution for the sides the method's α gives (α on a bound: that
 * side; inside: on the margin), as gsu_polish.c solves it: with V' = V and
 * the band's rows at c_i, the margins of the inside rows F vanish,
 *
 *     (1/(λW)) Σ_{j∈F} x_iᵀx_j β_j + b = y_i − x_iᵀw_V'   (i ∈ F),
 *     Σ_{j∈F} β_j = −Σ_V' c_j y_j,
 *
 * α_j = β_j y_j; rows whose α leaves its box go to that bound and the
 * system is solved again, ten times at most.  Into a (m values) and *b; 0
 * when F is empty or larger than 2(d + 1) (the sides are then not settled),
 * when the system cannot be solved, or when α still leaves its box.
 */
/* the lower triangle of [X_F X_Fᵀ/(λW) 1; 1ᵀ 0] ((nf + 1)², inv = 1/(λW)) into sys */
static void
bordered_system(const double *xs, int64_t nf, int d, double inv, double *sys)
{
	size_t		nn = (size_t) nf + 1;

	memset(sys, 0, sizeof(double) * nn * nn);
	cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) nf, d, inv, xs, d, 0.0, sys, (int) nn);
	for (int64_t k = 0; k < nf; k++)
		sys[(size_t) nf * nn + (size_t) k] = 1.0;
}

static int
crossover(band_ipm *p, const double *wv, double r, double *a, double *b)
{
	const gsu_dataset *ds = p->ds;
	int64_t		m = p->m,
				k,
				nf;
	int			d = p->d,
				ok = 0;
	double		inv = p->sq * p->sq;
	double	   *wf = malloc(sizeof(double) * (size_t) d),
			   *xs = NULL,
			   *sys = NULL,
			   *rhs = NULL,
			   *sing = NULL;
	int64_t    *f = NULL;
	lapack_int *piv = NULL;
	lapack_int	rank,
				nn;
	size_t		cap = 2 * ((size_t) d + 1);

	if (!wf)
		return 0;
	/* a holds the sides: 0 and u_k on a bound, anything inside for F */
	memcpy(a, p->a, sizeof(double) * (size_t) m);
	f = malloc(sizeof(int64_t) * cap);
	xs = malloc(sizeof(double) * cap * (size_t) d);
	sys = malloc(sizeof(double) * (cap + 1) * (cap + 1));
	rhs = malloc(sizeof(double) * (cap + 1));
	sing = malloc(sizeof(double) * (cap + 1));
	piv = malloc(sizeof(lapack_int) * (cap + 1));
	if (!f || !xs || !sys || !rhs || !sing || !piv)
		goto out;

	/* rows whose α leaves its box go to that bound, a few times at most */
	for (int iter = 0; iter < 10; iter++)
	{
		double		sv = -r;
		int64_t		left = 0;

		memcpy(wf, wv, sizeof(double) * (size_t) d);
		nf = 0;
		for (k = 0; k < m; k++)
			if (a[k] > 0.0 && a[k] < p->u[k])
			{
				const double *x = ds->x + (size_t) p->idx[k] * d;

				if ((size_t) nf == cap)
					goto out;
				memcpy(xs + (size_t) nf * d, x, sizeof(double) * (size_t) d);
				f[nf++] = k;
			}
			else if (a[k] == p->u[k])
			{
				sv += p->u[k] * p->y[k];
				cblas_daxpy(d, p->u[k] * p->y[k] * inv, ds->x + (size_t) p->idx[k] * d, 1, wf, 1);
			}
		if (nf == 0)
			goto out;
		for (k = 0; k < nf; k++)
			rhs[k] = p->y[f[k]] - cblas_ddot(d, xs + (size_t) k * d, 1, wf, 1);
		rhs[nf] = -sv;
		nn = (lapack_int) (nf + 1);
		bordered_system(xs, nf, d, inv, sys);
		/* symmetric indefinite; a singular system (duplicate rows) by least squares */
		memcpy(sing, rhs, sizeof(double) * (size_t) nn);
		if (LAPACKE_dsysv(LAPACK_ROW_MAJOR, 'L', nn, 1, sys, nn, piv, rhs, 1) != 0)
		{
			/* dgelsd reads the whole matrix: its upper triangle from the lower */
			bordered_system(xs, nf, d, inv, sys);
			for (k = 0; k < nn; k++)
				for (int64_t l = 0; l < k; l++)
					sys[(size_t) l * nn + k] = sys[(size_t) k * nn + l];
			memcpy(rhs, sing, sizeof(double) * (size_t) nn);
			if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, nn, nn, 1, sys, nn, rhs, 1, sing, 1e-13, &rank) != 0)
				goto out;
		}
		for (k = 0; k < nf; k++)
		{
			double		ak = rhs[k] * p->y[f[k]],
						u = p->u[f[k]];

			if (!isfinite(ak))
				goto out;
			if (ak < -1e-12 * u || ak > (1.0 + 1e-12) * u)
			{
				a[f[k]] = ak < 0.0 ? 0.0 : u;
				left++;
			}
		}
		if (left > 0)
			continue;
		for (k = 0; k < nf; k++)
			a[f[k]] = fmin(fmax(rhs[k] * p->y[f[k]], 0.0), p->u[f[k]]);
		*b = rhs[nf];
		ok = isfinite(*b);
		break;
	}

out:
	free(wf);
	free(f);
	free(xs);
	free(sys);
	free(rhs);
	free(sing);
	free(piv);
	return ok;
}

/*
 * The band's α (a) made to satisfy Σ α_i y_i = 0 exactly (the class in
 * excess gives way in proportion), w(α) with the bias b into w, the margins
 * at it into z, and the certificate: 1 when the duality gap P(w, b) − D(α)
 * is negligible, with *gap and the residual of the optimality conditions
 * in *kkt (each row's violation of the condition of its α, weighted by c_i).
 */
static int
certify(const gsu_dataset *ds, double lambda, double total, const unsigned char *state,
		const band_ipm *p, double *a, const double *wv, double r, double sum_v, double b,
		double *w, double *z, double *gap, double *kkt_out)
{
	int64_t		n = ds->n,
				m = p->m,
				i,
				k;
	int			d = ds->d;
	double		inv = p->sq * p->sq,
				excess = -r,
				room = 0.0,
				sum_alpha = sum_v,
				loss = 0.0,
				kkt = 0.0,
				ww,
				primal,
				dual;

	for (k = 0; k < m; k++)
		excess += a[k] * p->y[k];
	/* the inside rows give way first, so that the rows on a bound stay there */
	for (int all = 0; all < 2 && excess != 0.0; all++)
	{
		room = 0.0;
		for (k = 0; k < m; k++)
			if (p->y[k] * excess > 0.0 && (all || a[k] < p->u[k]))
				room += a[k];
		if (fabs(excess) > room)
			continue;
		for (k = 0; k < m; k++)
			if (p->y[k] * excess > 0.0 && (all || a[k] < p->u[k]))
				a[k] -= a[k] * (fabs(excess) / room);
		excess = 0.0;
	}
	if (excess != 0.0)
		return 0;

	memcpy(w, wv, sizeof(double) * (size_t) d);
	for (k = 0; k < m; k++)
	{
		sum_alpha += a[k];
		if (a[k] != 0.0)
			cblas_daxpy(d, a[k] * p->y[k] * inv, ds->x + (size_t) p->idx[k] * d, 1, w, 1);
	}
	w[d] = b;
	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d, w, 1, 0.0, z, 1);
	k = 0;
	for (i = 0; i < n; i++)
	{
		double		c = ROW_WEIGHT(ds, i),
					ai = state[i] == STATE_V ? c : 0.0,
					viol;

		z[i] = 1.0 - ds->y[i] * (z[i] + b);
		if (z[i] > 0.0)
			loss += c * z[i];
		if (state[i] == STATE_S)
			ai = a[k++];
		/*
		 * the condition of row i's α: d_i ≥ 0 at c_i, ≤ 0 at 0, = 0 inside
		 * (within rounding of a bound counts as on it)
		 */
		viol = ROW_IDLE(ds, i) ? 0.0 : ai >= (1.0 - 1e-12) * c ? fmax(0.0, -z[i]) :
			ai <= 1e-12 * c ? fmax(0.0, z[i]) : fabs(z[i]);
		kkt += c * c * viol * viol;
	}
	ww = cblas_ddot(d, w, 1, w, 1);
	primal = 0.5 * lambda * ww + loss / total;
	dual = sum_alpha / total - 0.5 * lambda * ww;
	if (!isfinite(primal) || !isfinite(dual) || !(primal - dual <= 1e-9 * fmax(1.0, fabs(primal))))
		return 0;
	*gap = fmax(0.0, primal - dual);
	*kkt_out = sqrt(kkt) / total;
	return 1;
}

/*
 * The margins d_i at theta into z and their largest magnitude into *maxd;
 * 0 when one is not finite
 */
static int
band_margins(const gsu_dataset *ds, const double *theta, double *z, double *maxd)
{
	int64_t		n = ds->n,
				i;
	int			d = ds->d;

	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d, theta, 1, 0.0, z, 1);
	for (i = 0; i < n; i++)
	{
		z[i] = 1.0 - ds->y[i] * (z[i] + theta[d]);
		if (!isfinite(z[i]))
			return 0;
		*maxd = fmax(*maxd, fabs(z[i]));
	}
	return 1;
}

/*
 * The first sides, in state.  The band: rows with α inside its box or
 * within tau of the margin, widened while its rows cannot balance V's
 * Σ c_i y_i within their box; 0 when no width up to the largest margin
 * maxd does.
 */
static int
band_first_sides(const gsu_dataset *ds, const double *alpha, double alpha_unit, double tau,
				 double maxd, const double *z, unsigned char *state)
{
	int64_t		n = ds->n,
				i;

	for (;;)
	{
		double		need = 0.0,
					up = 0.0,
					down = 0.0;

		for (i = 0; i < n; i++)
		{
			double		c = ROW_WEIGHT(ds, i),
						ai = alpha ? alpha[i] / alpha_unit : 0.0;

			if (ROW_IDLE(ds, i))
				state[i] = STATE_N;
			else if (fabs(z[i]) <= tau || (alpha && ai > 0.0 && ai < c))
				state[i] = STATE_S;
			else if (alpha ? ai >= c : z[i] > 0.0)
				state[i] = STATE_V;
			else
				state[i] = STATE_N;
			if (state[i] == STATE_V)
				need -= c * ds->y[i];
			else if (state[i] == STATE_S)
				*(ds->y[i] > 0.0 ? &up : &down) += c;
		}
		if (need <= up && -need <= down)
			return 1;
		if (tau > maxd)
			return 0;
		tau = fmax(2.0 * tau, 1e-6);
	}
}

/*
 * The rows held on a side: w_V = (1/(λW)) Σ_V c_i y_i x_i into wv (inv =
 * 1/(λW)), *r = −Σ_V c_i y_i and *sum_v = Σ_V c_i; returns the band's rows
 */
static int64_t
band_held_sums(const gsu_dataset *ds, const unsigned char *state, double inv, double *wv,
			   double *r, double *sum_v)
{
	int64_t		n = ds->n,
				m = 0,
				i;
	int			d = ds->d;

	memset(wv, 0, sizeof(double) * (size_t) d);
	for (i = 0; i < n; i++)
		if (state[i] == STATE_S)
			m++;
		else if (state[i] == STATE_V)
		{
			double		cy = ROW_WEIGHT(ds, i) * ds->y[i];

			*r -= cy;
			*sum_v += ROW_WEIGHT(ds, i);
			cblas_daxpy(d, cy * inv, ds->x + (size_t) i * d, 1, wv, 1);
		}
	return m;
}

/*
 * The interior-point method's buffers for a band of m rows (the previous
 * round's freed): its rows' indices in *idx, its vectors in *work; 0 when
 * one is missing
 */
static int
band_ipm_alloc(band_ipm *p, int64_t m, int d, int64_t **idx, double **work)
{
	double	   *vec[IPM_VECTORS];

	free(*idx);
	free(*work);
	free(p->fac);
	free(p->rows);
	free(p->v);
	p->fac = p->rows = p->v = NULL;
	*idx = malloc(sizeof(int64_t) * (size_t) m);
	*work = malloc(sizeof(double) * (size_t) m * IPM_VECTORS);
	p->direct = m <= d;
	p->fac = p->direct ? malloc(sizeof(double) * (size_t) m * (size_t) m) :
		malloc(sizeof(double) * (size_t) d * (size_t) d);
	p->rows = malloc(sizeof(double) * (size_t) (p->direct ? m : (m < IPM_BLOCK ? m : IPM_BLOCK)) * (size_t) d);
	p->v = malloc(sizeof(double) * (size_t) d);
	if (!*idx || !*work || !p->fac || !p->rows || !p->v)
		return 0;
	for (int j = 0; j < IPM_VECTORS; j++)
		vec[j] = *work + (size_t) j * (size_t) m;
	p->u = vec[0];
	p->y = vec[1];
	p->g = vec[2];
	p->a = vec[3];
	p->s2 = vec[4];
	p->z1 = vec[5];
	p->z2 = vec[6];
	p->th = vec[7];
	p->rd = vec[8];
	p->ca = vec[9];
	p->aa = vec[10];
	p->da = vec[11];
	p->dz1 = vec[12];
	p->dz2 = vec[13];
	p->t1 = vec[14];
	p->t2 = vec[15];
	p->tmp = vec[16];
	p->daa = vec[17];
	p->h = vec[18];
	return 1;
}

/* the band's rows into p (idx, their bounds, labels and g = y xᵀw_V − 1) */
static void
band_fill(band_ipm *p, const unsigned char *state, const double *wv, int64_t *idx)
{
	const gsu_dataset *ds = p->ds;
	int64_t		n = ds->n,
				i,
				k = 0;
	int			d = ds->d;

	for (i = 0; i < n; i++)
		if (state[i] == STATE_S)
		{
			idx[k] = i;
			p->u[k] = ROW_WEIGHT(ds, i);
			p->y[k] = ds->y[i];
			p->g[k] = ds->y[i] * cblas_ddot(d, ds->x + (size_t) i * d, 1, wv, 1) - 1.0;
			k++;
		}
}

/* the rows held on a side that their new margins z contradict join the band */
static int64_t
band_join(const gsu_dataset *ds, unsigned char *state, const double *z)
{
	int64_t		joined = 0,
				i;

	for (i = 0; i < ds->n; i++)
		if ((state[i] == STATE_V && z[i] < 0.0) ||
			(state[i] == STATE_N && z[i] > 0.0 && !ROW_IDLE(ds, i)))
		{
			state[i] = STATE_S;
			joined++;
		}
	return joined;
}

int
gsu_hinge_polish_band(const gsu_dataset *ds, double lambda, const double *alpha,
					  double alpha_unit, double tau, int max_rounds, double *theta,
					  double *gap_out, double *kkt_out, gsu_progress_fn progress,
					  void *progress_arg)
{
	int64_t		n = ds->n,
				k,
				m;
	int			d = ds->d,
				ok = 0;
	double		total,
				inv,
				maxd = 0.0;
	double	   *z = malloc(sizeof(double) * (size_t) n),
			   *wv = malloc(sizeof(double) * (size_t) (d + 1)),
			   *w = malloc(sizeof(double) * (size_t) (d + 1)),
			   *work = NULL;
	int64_t    *idx = NULL;
	unsigned char *state = malloc((size_t) n);
	band_ipm	p;

	memset(&p, 0, sizeof(p));
	if (!z || !wv || !w || !state || gsu_weight_total(ds, &total) != GSU_OK || !(lambda > 0.0))
		goto out;
	inv = 1.0 / (lambda * total);

	/* the margins at theta, and the first sides */
	if (!band_margins(ds, theta, z, &maxd) ||
		!band_first_sides(ds, alpha, alpha_unit, tau, maxd, z, state))
		goto out;

	for (int round = 0; round < max_rounds; round++)
	{
		double		r = 0.0,
					nu,
					sum_v = 0.0;

		/* the band's rows, w_V and Σ_V c_i y_i */
		m = band_held_sums(ds, state, inv, wv, &r, &sum_v);
		if (m == 0)
			goto out;
		if (!band_ipm_alloc(&p, m, d, &idx, &work))
			goto out;
		p.ds = ds;
		p.idx = idx;
		p.m = m;
		p.d = d;
		p.sq = sqrt(inv);
		band_fill(&p, state, wv, idx);
		if (!ipm_solve(&p, r, &nu, progress, progress_arg))
			goto out;

		/*
		 * α on its bound where the method left it within IPM_SNAP of it; the
		 * exact solution for the sides this gives (crossover), then the
		 * method's own α, the first that the duality gap certifies
		 */
		for (k = 0; k < m; k++)
			p.a[k] = p.a[k] <= IPM_SNAP * p.u[k] ? 0.0 :
				p.a[k] >= (1.0 - IPM_SNAP) * p.u[k] ? p.u[k] : p.a[k];
		for (int attempt = 0; attempt < 2 && !ok; attempt++)
		{
			double	   *a = p.a,
						b = nu;

			if (attempt == 0)
			{
				a = p.daa;
				if (!crossover(&p, wv, r, a, &b))
					continue;
			}
			ok = certify(ds, lambda, total, state, &p, a, wv, r, sum_v, b, w, z, gap_out, kkt_out);
		}
		if (ok)
		{
			memcpy(theta, w, sizeof(double) * (size_t) (d + 1));
			break;
		}
		if (band_join(ds, state, z) == 0)
			goto out;
	}

out:
	free(z);
	free(wv);
	free(w);
	free(state);
	free(idx);
	free(work);
	free(p.fac);
	free(p.rows);
	free(p.v);
	return ok;
}
