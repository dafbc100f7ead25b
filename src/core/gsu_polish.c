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


int
gsu_hinge_polish(const gsu_dataset *ds, double lambda, double tau, int max_rounds,
				 double *theta, double *gap_out, double *kkt_out,
				 gsu_progress_fn progress, void *progress_arg)
{
	int64_t		n = ds->n,
				i;
	int			d = ds->d;
	double		total;
	double		inv_ln;
	double	   *z = NULL,
			   *alpha = NULL,
			   *xs = NULL,
			   *a = NULL,
			   *rhs = NULL,
			   *sv = NULL,
			   *w = NULL,
			   *wv = NULL,
			   *g = NULL;
	unsigned char *state = NULL;
	int64_t    *idx = NULL;
	int			ns,
				m,
				k,
				j,
				round,
				ok = 0;
	double		b = 0.0,
				sum_yv = 0.0,
				primal,
				dual,
				sum_alpha,
				sum_ay,
				ww;
	const double check_tol = 1e-9;
	lapack_int	rank;

	if (gsu_weight_total(ds, &total) != GSU_OK)
		return 0;
	inv_ln = 1.0 / (lambda * total);

	z = malloc(sizeof(double) * (size_t) n);
	alpha = malloc(sizeof(double) * (size_t) n);
	state = malloc((size_t) n);
	w = malloc(sizeof(double) * (size_t) (d + 1));
	wv = malloc(sizeof(double) * (size_t) d);
	g = malloc(sizeof(double) * (size_t) (d + 1));
	idx = malloc(sizeof(int64_t) * POLISH_MAX_SUPPORT);
	xs = malloc(sizeof(double) * (size_t) POLISH_MAX_SUPPORT * d);
	rhs = malloc(sizeof(double) * (POLISH_MAX_SUPPORT + 1));
	sv = malloc(sizeof(double) * (POLISH_MAX_SUPPORT + 1));
	if (!z || !alpha || !state || !w || !wv || !g || !idx || !xs || !rhs || !sv)
		goto out;

	/* first guess of the sets from the margins at the approximate solution */
	cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
				theta, 1, 0.0, z, 1);
	for (i = 0; i < n; i++)
	{
		double		di = 1.0 - ds->y[i] * (z[i] + theta[d]);

		state[i] = ROW_IDLE(ds, i) ? ROW_N : di > tau ? ROW_V : di < -tau ? ROW_N : ROW_S;
		z[i] = fabs(di);
		alpha[i] = di;			/* the signed margin, until α is solved for */
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
			if (state[i] == ROW_S)
				have_s = 1;
			if (best[c] < 0 || z[i] < z[best[c]])
				best[c] = i;
		}
		if (!have_s)
			for (k = 0; k < 2; k++)
				if (best[k] >= 0)
					state[best[k]] = ROW_S;
	}

	/*
	 * In general position at most d + 1 rows lie on the margin, but a wide
	 * band can hold many more: keep the ones nearest the margin as the first
	 * guess (the iteration brings back any that are needed), so each round
	 * solves a small system.
	 */
	{
		int64_t		in_band = 0;
		int64_t		keep = 2 * (int64_t) d + 4;

		for (i = 0; i < n; i++)
			in_band += state[i] == ROW_S;
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
					if (state[i] == ROW_S && z[i] > cut && z[i] < next)
						next = z[i];
				for (i = 0; i < n; i++)
					if (state[i] == ROW_S && z[i] == next)
						count++;
				if (next == HUGE_VAL)
					break;
				cut = next;
				taken += count;
			}
			for (i = 0; i < n; i++)
				if (state[i] == ROW_S && z[i] > cut)
					state[i] = alpha[i] > 0.0 ? ROW_V : ROW_N;
		}
	}

	/*
	 * Active-set iteration: solve the conditions for the current sets, then
	 * move the row that violates its set's condition most, until none does.
	 */
	/*
	 * w_V = (1/(λW)) Σ_V c_i y_i x_i and Σ_V c_i y_i, kept up to date as rows
	 * move
	 */
	memset(wv, 0, sizeof(double) * (size_t) d);
	for (i = 0; i < n; i++)
		if (state[i] == ROW_V)
		{
			double		cy = ROW_WEIGHT(ds, i) * ds->y[i];

			sum_yv += cy;
			cblas_daxpy(d, cy * inv_ln, ds->x + (size_t) i * d, 1, wv, 1);
		}

	for (round = 0; round < max_rounds; round++)
	{
		int64_t		worst = -1;
		double		worst_v = 1e-9;
		int			worst_to = ROW_S;

		if (progress && progress(progress_arg))
			goto out;
		ns = 0;
		for (i = 0; i < n; i++)
		{
			if (state[i] == ROW_S)
			{
				if (ns == POLISH_MAX_SUPPORT)
					goto out;
				idx[ns++] = i;
			}
		}
		if (ns == 0)
			goto out;

		/* [K/(λW) 1; 1ᵀ 0] (β; b) = (y_S − X_S w_V; −Σ_V c_i y_i) */
		m = ns + 1;
		free(a);
		a = calloc((size_t) m * m, sizeof(double));
		if (!a)
			goto out;
		for (k = 0; k < ns; k++)
		{
			const double *xi = ds->x + (size_t) idx[k] * d;

			memcpy(xs + (size_t) k * d, xi, sizeof(double) * (size_t) d);
			rhs[k] = ds->y[idx[k]] - cblas_ddot(d, xi, 1, wv, 1);
			a[(size_t) k * m + ns] = 1.0;
			a[(size_t) ns * m + k] = 1.0;
		}
		rhs[ns] = -sum_yv;
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ns, ns, d, inv_ln,
					xs, d, xs, d, 0.0, a, m);
		/*
		 * rows of huge norm overflow the Gram matrix; dgelsd's SVD does not
		 * return on an Inf or NaN (and cannot be interrupted), so the polish
		 * gives up and the smoothed solution stands
		 */
		if (!all_finite(a, (size_t) m * m) || !all_finite(rhs, (size_t) m))
			goto out;
		if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, m, 1, a, m, rhs, 1, sv, 1e-13, &rank) != 0)
			goto out;
		b = rhs[ns];
		if (!isfinite(b))
			goto out;

		/* α for every row, then w = (1/(λW)) Σ α_i y_i x_i */
		for (i = 0; i < n; i++)
			alpha[i] = state[i] == ROW_V ? ROW_WEIGHT(ds, i) : 0.0;
		for (k = 0; k < ns; k++)
		{
			double		ak = rhs[k] * ds->y[idx[k]];
			double		ck = ROW_WEIGHT(ds, idx[k]);

			alpha[idx[k]] = ak;
			/* relative to the box [0, c_k] */
			if (-ak > worst_v * ck || ak - ck > worst_v * ck)
			{
				worst = idx[k];
				worst_v = (ak < 0.0 ? -ak : ak - ck) / ck;
				worst_to = ak < 0.0 ? ROW_N : ROW_V;
			}
		}
		if (worst >= 0)
		{
			/* the support row whose α is furthest outside [0, c_i] leaves S */
			move_row(ds, worst, worst_to, state, wv, &sum_yv, inv_ln);
			continue;
		}
		/* w = w_V + (1/(λW)) Σ_S α_i y_i x_i with α clipped to [0, c_i] */
		memcpy(w, wv, sizeof(double) * (size_t) d);
		for (k = 0; k < ns; k++)
		{
			i = idx[k];
			alpha[i] = fmin(ROW_WEIGHT(ds, i), fmax(0.0, alpha[i]));
			cblas_daxpy(d, alpha[i] * ds->y[i] * inv_ln, ds->x + (size_t) i * d, 1, w, 1);
		}
		w[d] = b;

		/* the margins at the new point must agree with the sets */
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, d, 1.0, ds->x, d,
					w, 1, 0.0, z, 1);
		worst_v = check_tol;
		for (i = 0; i < n; i++)
		{
			double		di = 1.0 - ds->y[i] * (z[i] + b);
			double		viol = state[i] == ROW_V ? -di :
				state[i] == ROW_N ? di : fabs(di);

			z[i] = di;
			if (viol > worst_v && !ROW_IDLE(ds, i))
			{
				worst = i;
				worst_v = viol;
				worst_to = state[i] != ROW_S ? ROW_S : di > 0.0 ? ROW_V : ROW_N;
			}
		}
		/* done when no row contradicts its set; else move the worst one */
		if (worst < 0)
			break;
		move_row(ds, worst, worst_to, state, wv, &sum_yv, inv_ln);
	}
	if (round == max_rounds)
		goto out;

	/* certificate: duality gap and the residual of the optimality conditions */
	primal = 0.0;
	sum_alpha = 0.0;
	sum_ay = 0.0;
	for (i = 0; i < n; i++)
	{
		if (z[i] > 0.0)
			primal += ROW_WEIGHT(ds, i) * z[i];
		sum_alpha += alpha[i];
		sum_ay += alpha[i] * ds->y[i];
	}
	ww = cblas_ddot(d, w, 1, w, 1);
	primal = 0.5 * lambda * ww + primal / total;
	dual = sum_alpha / total - 0.5 * lambda * ww;
	for (i = 0; i < n; i++)
		z[i] = alpha[i] * ds->y[i] / total;
	cblas_dgemv(CblasRowMajor, CblasTrans, (int) n, d, 1.0, ds->x, d,
				z, 1, 0.0, g, 1);
	for (j = 0; j < d; j++)
		g[j] = lambda * w[j] - g[j];
	g[d] = sum_ay / total;

	if (!(primal - dual <= 1e-9 * fmax(1.0, fabs(primal))))
		goto out;

	memcpy(theta, w, sizeof(double) * (size_t) (d + 1));
	*gap_out = fmax(0.0, primal - dual);
	*kkt_out = cblas_dnrm2(d + 1, g, 1);
	ok = 1;

out:
	free(z);
	free(alpha);
	free(state);
	free(xs);
	free(a);
	free(rhs);
	free(sv);
	free(w);
	free(wv);
	free(g);
	free(idx);
	return ok;
}
