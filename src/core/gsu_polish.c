/*
 * gsu_polish.c — the exact minimizer of the hinge-loss SVM from an
 * approximate one.
 *
 * The derivation: src/core/README, section gsu_polish.c.
 */
#include "gsu_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#define POLISH_MAX_SUPPORT 3000

/* row states during the active-set iteration */
#define ROW_N 0					/* α = 0, d < 0 */
#define ROW_V 1					/* α = 1, d > 0 */
#define ROW_S 2					/* d = 0, α solved for */

/* c_i: the weight of row i (1 without weights) */
#define ROW_WEIGHT(ds, i) ((ds)->weight ? (ds)->weight[i] : 1.0)

/* whether the n numbers of v are all finite */
static int
all_finite(const double *v, size_t n)
{
	double		s = 0.0;

	/* NaN and ±Inf poison the sum; finite numbers times 0 add 0 */
	for (size_t i = 0; i < n; i++)
		s += v[i] * 0.0;
	return s == 0.0;
}

/* Moves row i to state to, keeping w_V and Σ_V c_i y_i current. */
static void
move_row(const gsu_dataset *ds, int64_t i, int to, unsigned char *state,
		 double *wv, double *sum_yv, double inv_ln)
{
	const double *x = ds->x + (size_t) i * ds->d;
	double		cy = ROW_WEIGHT(ds, i) * ds->y[i];

	if (state[i] == ROW_V)
	{
		*sum_yv -= cy;
		cblas_daxpy(ds->d, -cy * inv_ln, x, 1, wv, 1);
	}
	if (to == ROW_V)
	{
		*sum_yv += cy;
		cblas_daxpy(ds->d, cy * inv_ln, x, 1, wv, 1);
	}
	state[i] = (unsigned char) to;
}

/* a row of weight 0 takes no part: α_i = 0, in N for good */
#define ROW_IDLE(ds, i) ((ds)->weight && (ds)->weight[i] == 0.0)


/* what the polish works with: the data set, its scale, the sets and buffers */
typedef struct polish_ws
{
	const gsu_dataset *ds;
	int64_t		n;
	int			d;
	double		lambda;
	double		total;			/* W = Σ c_i */
	double		inv_ln;			/* 1/(λW) */
	double	   *z;				/* n: |d_i| while the sets are guessed, then d_i */
	double	   *alpha;			/* n */
	double	   *xs;				/* the support rows, POLISH_MAX_SUPPORT × d */
	double	   *a;				/* the support system, (ns + 1)² */
	double	   *rhs;			/* POLISH_MAX_SUPPORT + 1 */
	double	   *sv;				/* POLISH_MAX_SUPPORT + 1 */
	double	   *w;				/* d + 1: the candidate */
	double	   *wv;				/* d: w_V */
	double	   *g;				/* d + 1: the gradient at the candidate */
	unsigned char *state;		/* n: ROW_N, ROW_V or ROW_S */
	int64_t    *idx;			/* the support rows, POLISH_MAX_SUPPORT */
	double		b;
	double		sum_yv;			/* Σ_V c_i y_i */
} polish_ws;

/* the buffers of p (p->n and p->d set); 0 when one is missing */
static int
polish_alloc(polish_ws *p)
{
	int64_t		n = p->n;
	int			d = p->d;

	p->z = malloc(sizeof(double) * (size_t) n);
	p->alpha = malloc(sizeof(double) * (size_t) n);
	p->state = malloc((size_t) n);
	p->w = malloc(sizeof(double) * (size_t) (d + 1));
	p->wv = malloc(sizeof(double) * (size_t) d);
	p->g = malloc(sizeof(double) * (size_t) (d + 1));
	p->idx = malloc(sizeof(int64_t) * POLISH_MAX_SUPPORT);
	p->xs = malloc(sizeof(double) * (size_t) POLISH_MAX_SUPPORT * d);
	p->rhs = malloc(sizeof(double) * (POLISH_MAX_SUPPORT + 1));
	p->sv = malloc(sizeof(double) * (POLISH_MAX_SUPPORT + 1));
	return p->z && p->alpha && p->state && p->w && p->wv && p->g && p->idx && p->xs &&
		p->rhs && p->sv;
}

static void
polish_free(polish_ws *p)
{
	free(p->z);
	free(p->alpha);
	free(p->state);
	free(p->xs);
	free(p->a);
	free(p->rhs);
	free(p->sv);
	free(p->w);
	free(p->wv);
	free(p->g);
	free(p->idx);
}

/*
 * The first guess of the sets from the margins at the approximate solution
 * theta: z receives |d_i|, alpha the signed margin d_i.
 */
static void
guess_sets(polish_ws *p, const double *theta, double tau)
{
	const gsu_dataset *ds = p->ds;
	int64_t		n = p->n,
				i;
	int			d = p->d,
				k;

	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
				theta, 1, 0.0, p->z, 1);
	for (i = 0; i < n; i++)
	{
		double		di = 1.0 - ds->y[i] * (p->z[i] + theta[d]);

		p->state[i] = ROW_IDLE(ds, i) ? ROW_N : di > tau ? ROW_V : di < -tau ? ROW_N : ROW_S;
		p->z[i] = fabs(di);
		p->alpha[i] = di;		/* the signed margin, until α is solved for */
	}

	/*
	 * No margin within tau (the smoothing can hold the iterate away from the
	 * kink when λ is small): start from the row nearest the margin of each
	 * class, and let the iteration add the others.
	 */
	{
		int64_t		best[2] = {-1, -1};
		int			have_s = 0;

		for (i = 0; i < n; i++)
		{
			int			c = ds->y[i] > 0.0;

			if (ROW_IDLE(ds, i))
				continue;
			if (p->state[i] == ROW_S)
				have_s = 1;
			if (best[c] < 0 || p->z[i] < p->z[best[c]])
				best[c] = i;
		}
		if (!have_s)
			for (k = 0; k < 2; k++)
				if (best[k] >= 0)
					p->state[best[k]] = ROW_S;
	}
}

/*
 * In general position at most d + 1 rows lie on the margin, but a wide
 * band can hold many more: keep the ones nearest the margin as the first
 * guess (the iteration brings back any that are needed), so each round
 * solves a small system.
 */
static void
narrow_band(polish_ws *p)
{
	int64_t		n = p->n,
				i;
	int64_t		in_band = 0;
	int64_t		keep = 2 * (int64_t) p->d + 4;
	const double *z = p->z;

	for (i = 0; i < n; i++)
		in_band += p->state[i] == ROW_S;
	if (in_band > keep)
	{
		/* the keep-th smallest |d_i| in the band, by repeated selection */
		double		cut = 0.0;
		int64_t		taken = 0;

		while (taken < keep)
		{
			double		next = HUGE_VAL;
			int64_t		count = 0;

			for (i = 0; i < n; i++)
				if (p->state[i] == ROW_S && z[i] > cut && z[i] < next)
					next = z[i];
			for (i = 0; i < n; i++)
				if (p->state[i] == ROW_S && z[i] == next)
					count++;
			if (next == HUGE_VAL)
				break;
			cut = next;
			taken += count;
		}
		for (i = 0; i < n; i++)
			if (p->state[i] == ROW_S && z[i] > cut)
				p->state[i] = p->alpha[i] > 0.0 ? ROW_V : ROW_N;
	}
}

/*
 * The conditions for the current sets with the ns support rows of p->idx,
 * [K/(λW) 1; 1ᵀ 0] (β; b) = (y_S − X_S w_V; −Σ_V c_i y_i), into rhs (β)
 * and p->b; 0 when it cannot be solved.
 */
static int
solve_support(polish_ws *p, int ns)
{
	const gsu_dataset *ds = p->ds;
	int			d = p->d,
				m = ns + 1,
				k;
	lapack_int	rank;

	free(p->a);
	p->a = calloc((size_t) m * m, sizeof(double));
	if (!p->a)
		return 0;
	for (k = 0; k < ns; k++)
	{
		const double *xi = ds->x + (size_t) p->idx[k] * d;

		memcpy(p->xs + (size_t) k * d, xi, sizeof(double) * (size_t) d);
		p->rhs[k] = ds->y[p->idx[k]] - cblas_ddot(d, xi, 1, p->wv, 1);
		p->a[(size_t) k * m + ns] = 1.0;
		p->a[(size_t) ns * m + k] = 1.0;
	}
	p->rhs[ns] = -p->sum_yv;
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ns, ns, d, p->inv_ln,
				p->xs, d, p->xs, d, 0.0, p->a, m);
	/*
	 * rows of huge norm overflow the Gram matrix; dgelsd's SVD does not
	 * return on an Inf or NaN (and cannot be interrupted), so the polish
	 * gives up and the smoothed solution stands
	 */
	if (!all_finite(p->a, (size_t) m * m) || !all_finite(p->rhs, (size_t) m))
		return 0;
	if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, m, 1, p->a, m, p->rhs, 1, p->sv, 1e-13, &rank) != 0)
		return 0;
	p->b = p->rhs[ns];
	if (!isfinite(p->b))
		return 0;
	return 1;
}

/*
 * Active-set iteration: solve the conditions for the current sets, then
 * move the row that violates its set's condition most, until none does
 * (returns 1: w, alpha and the margins z agree with the sets), or max_rounds
 * rounds, a support too large, or progress says stop (returns 0).
 */
static int
active_set(polish_ws *p, int max_rounds, gsu_progress_fn progress, void *progress_arg)
{
	const gsu_dataset *ds = p->ds;
	int64_t		n = p->n,
				i;
	int			d = p->d,
				ns,
				k,
				round;
	const double check_tol = 1e-9;

	/*
	 * w_V = (1/(λW)) Σ_V c_i y_i x_i and Σ_V c_i y_i, kept up to date as rows
	 * move
	 */
	memset(p->wv, 0, sizeof(double) * (size_t) d);
	for (i = 0; i < n; i++)
		if (p->state[i] == ROW_V)
		{
			double		cy = ROW_WEIGHT(ds, i) * ds->y[i];

			p->sum_yv += cy;
			cblas_daxpy(d, cy * p->inv_ln, ds->x + (size_t) i * d, 1, p->wv, 1);
		}

	for (round = 0; round < max_rounds; round++)
	{
		int64_t		worst = -1;
		double		worst_v = 1e-9;
		int			worst_to = ROW_S;

		if (progress && progress(progress_arg))
			return 0;
		ns = 0;
		for (i = 0; i < n; i++)
		{
			if (p->state[i] == ROW_S)
			{
				if (ns == POLISH_MAX_SUPPORT)
					return 0;
				p->idx[ns++] = i;
			}
		}
		if (ns == 0)
			return 0;
		if (!solve_support(p, ns))
			return 0;

		/* α for every row, then w = (1/(λW)) Σ α_i y_i x_i */
		for (i = 0; i < n; i++)
			p->alpha[i] = p->state[i] == ROW_V ? ROW_WEIGHT(ds, i) : 0.0;
		for (k = 0; k < ns; k++)
		{
			double		ak = p->rhs[k] * ds->y[p->idx[k]];
			double		ck = ROW_WEIGHT(ds, p->idx[k]);

			p->alpha[p->idx[k]] = ak;
			/* relative to the box [0, c_k] */
			if (-ak > worst_v * ck || ak - ck > worst_v * ck)
			{
				worst = p->idx[k];
				worst_v = (ak < 0.0 ? -ak : ak - ck) / ck;
				worst_to = ak < 0.0 ? ROW_N : ROW_V;
			}
		}
		if (worst >= 0)
		{
			/* the support row whose α is furthest outside [0, c_i] leaves S */
			move_row(ds, worst, worst_to, p->state, p->wv, &p->sum_yv, p->inv_ln);
			continue;
		}
		/* w = w_V + (1/(λW)) Σ_S α_i y_i x_i with α clipped to [0, c_i] */
		memcpy(p->w, p->wv, sizeof(double) * (size_t) d);
		for (k = 0; k < ns; k++)
		{
			i = p->idx[k];
			p->alpha[i] = fmin(ROW_WEIGHT(ds, i), fmax(0.0, p->alpha[i]));
			cblas_daxpy(d, p->alpha[i] * ds->y[i] * p->inv_ln, ds->x + (size_t) i * d, 1, p->w, 1);
		}
		p->w[d] = p->b;

		/* the margins at the new point must agree with the sets */
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
					p->w, 1, 0.0, p->z, 1);
		worst_v = check_tol;
		for (i = 0; i < n; i++)
		{
			double		di = 1.0 - ds->y[i] * (p->z[i] + p->b);
			double		viol = p->state[i] == ROW_V ? -di :
				p->state[i] == ROW_N ? di : fabs(di);

			p->z[i] = di;
			if (viol > worst_v && !ROW_IDLE(ds, i))
			{
				worst = i;
				worst_v = viol;
				worst_to = p->state[i] != ROW_S ? ROW_S : di > 0.0 ? ROW_V : ROW_N;
			}
		}
		/* done when no row contradicts its set; else move the worst one */
		if (worst < 0)
			return 1;
		move_row(ds, worst, worst_to, p->state, p->wv, &p->sum_yv, p->inv_ln);
	}
	return 0;
}

/*
 * The certificate of the candidate p->w: its duality gap and the residual of
 * the optimality conditions; when the gap is negligible, theta, *gap_out and
 * *kkt_out receive them and 1 is returned.
 */
static int
certify_candidate(polish_ws *p, double *theta, double *gap_out, double *kkt_out)
{
	const gsu_dataset *ds = p->ds;
	int64_t		n = p->n,
				i;
	int			d = p->d,
				j;
	double		lambda = p->lambda,
				total = p->total,
				primal = 0.0,
				dual,
				sum_alpha = 0.0,
				sum_ay = 0.0,
				ww;

	for (i = 0; i < n; i++)
	{
		if (p->z[i] > 0.0)
			primal += ROW_WEIGHT(ds, i) * p->z[i];
		sum_alpha += p->alpha[i];
		sum_ay += p->alpha[i] * ds->y[i];
	}
	ww = cblas_ddot(d, p->w, 1, p->w, 1);
	primal = 0.5 * lambda * ww + primal / total;
	dual = sum_alpha / total - 0.5 * lambda * ww;
	for (i = 0; i < n; i++)
		p->z[i] = p->alpha[i] * ds->y[i] / total;
	cblas_dgemv(CblasRowMajor, CblasTrans, (int) n, d, 1.0, ds->x, d,
				p->z, 1, 0.0, p->g, 1);
	for (j = 0; j < d; j++)
		p->g[j] = lambda * p->w[j] - p->g[j];
	p->g[d] = sum_ay / total;

	if (!(primal - dual <= 1e-9 * fmax(1.0, fabs(primal))))
		return 0;

	memcpy(theta, p->w, sizeof(double) * (size_t) (d + 1));
	*gap_out = fmax(0.0, primal - dual);
	*kkt_out = cblas_dnrm2(d + 1, p->g, 1);
	return 1;
}

int
gsu_hinge_polish(const gsu_dataset *ds, double lambda, double tau, int max_rounds,
				 double *theta, double *gap_out, double *kkt_out,
				 gsu_progress_fn progress, void *progress_arg)
{
	polish_ws	p;
	int			ok = 0;

	memset(&p, 0, sizeof(p));
	p.ds = ds;
	p.n = ds->n;
	p.d = ds->d;
	p.lambda = lambda;
	if (gsu_weight_total(ds, &p.total) != GSU_OK)
		return 0;
	p.inv_ln = 1.0 / (lambda * p.total);

	if (polish_alloc(&p))
	{
		guess_sets(&p, theta, tau);
		narrow_band(&p);
		ok = active_set(&p, max_rounds, progress, progress_arg) &&
			certify_candidate(&p, theta, gap_out, kkt_out);
	}
	polish_free(&p);
	return ok;
}
