/*
 * gsu_polish_sums.c — the exact hinge optimum from the sums of one scan of
 * a table (gsu.fit's solver newton, certain rows; gsu_polish.h): the dual
 * restricted to the band of rows near the margin, by SMO finished by an
 * active-set solve.  The optimality conditions: src/core/README, section
 * gsu_polish.c.
 */
#include "gsu_polish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

/* the label of a band row whose last element is y·c, c > 0 */
#define SIGN_OF(yc) ((yc) > 0.0 ? 1.0 : -1.0)

/*
 * The last digits of the band's dual, when SMO crawls: on a nearly
 * separable band in many dimensions (a hundred rows in 60, small λ) the
 * maximal violating pair closes the KKT gap only slowly (10⁻³ after 200000
 * steps) while its free rows are already close to the optimum's.  An
 * active-set finish: with F the free rows (0 < α < c), the optimum has, for
 * i in F, y_i(x_iᵀw + b) = 1 with w = w₀ + (1/(λn)) Σ_F α_j y_j x_j (w₀ the
 * sum over the other rows) and Σ_F α_j y_j fixed by the equality: a linear
 * system in (α_F, b), solved in the least-squares sense for the smallest
 * change of α (the system is singular when F has more rows than the
 * kernel's rank; w is the same for every solution).  A solution outside the
 * box is followed up to the first bound, whose row leaves F; a solution
 * inside it whose w leaves a row outside F violating its condition takes
 * the worst such row into F; 50 rounds at most, and only while F has at
 * most 2(d + 1) + 64 rows (in general position a face has d + 1) and at
 * most 300 (a round's least squares costs O(|F|³)).  On success
 * (every row's KKT condition to SMO's own tolerance) alpha, w and fv are
 * replaced and 1 is returned; else they are left as they were.
 */
static int
active_set_finish(int d, double inv_ln, const double *vsum, int64_t n_s, const double *srows,
				  double *alpha, double *w, double *fv, double *gap_m, double *gap_lo)
{
	int			m = d + 1,
				ok = 0,
				round;
	int64_t		i,
				p,
				q;
	size_t		cnt = (size_t) n_s,
				a2_cap = 0;
	int64_t    *idx = malloc(sizeof(int64_t) * cnt);
	char	   *in_f = calloc(cnt, 1);
	double	   *a2 = NULL,		/* (|F| + 1)², grown as F grows */
			   *rhs = malloc(sizeof(double) * (cnt + 1)),
			   *sv = malloc(sizeof(double) * (cnt + 1)),
			   *w0 = malloc(sizeof(double) * (size_t) m),
			   *wn = malloc(sizeof(double) * (size_t) m),
			   *na = malloc(sizeof(double) * cnt),
			   *nf = malloc(sizeof(double) * cnt);

	if (!idx || !in_f || !rhs || !sv || !w0 || !wn || !na || !nf)
		goto out;
	memcpy(na, alpha, sizeof(double) * cnt);
	for (i = 0; i < n_s; i++)
		in_f[i] = na[i] > 0.0 && na[i] < fabs(srows[(size_t) i * m + d]);
	for (round = 0; round < 50; round++)
	{
		int64_t		f = 0,
					worst = -1;
		double		s_y = -vsum[d],
					step = 1.0,
					b,
					fu = -HUGE_VAL,
					fl = HUGE_VAL,
					worst_v = 0.0,
					worst_out = 0.0;
		int64_t		out_row = -1;
		lapack_int	rank;

		memcpy(w0, vsum, sizeof(double) * (size_t) d);
		for (i = 0; i < n_s; i++)
		{
			const double *r = srows + (size_t) i * m;

			if (in_f[i])
				idx[f++] = i;
			else if (na[i] != 0.0)
			{
				cblas_daxpy(d, na[i] * SIGN_OF(r[d]), r, 1, w0, 1);
				s_y -= na[i] * SIGN_OF(r[d]);
			}
		}
		/* a face of at most d + 1 free rows, in general position; a larger F is not near one */
		if (f < 1 || f > 2 * (int64_t) m + 64 || f > 300)
			goto out;
		if ((size_t) (f + 1) * (size_t) (f + 1) > a2_cap)
		{
			double	   *grown = realloc(a2, sizeof(double) * (size_t) (f + 1) * (size_t) (f + 1));

			if (!grown)
				goto out;
			a2 = grown;
			a2_cap = (size_t) (f + 1) * (size_t) (f + 1);
		}
		cblas_dscal(d, inv_ln, w0, 1);
		for (p = 0; p < f; p++)
		{
			const double *rp = srows + (size_t) idx[p] * m;
			double		yp = SIGN_OF(rp[d]);

			for (q = 0; q <= p; q++)
			{
				const double *rq = srows + (size_t) idx[q] * m;
				double		k = yp * SIGN_OF(rq[d]) * inv_ln * cblas_ddot(d, rp, 1, rq, 1);

				a2[(size_t) p * (f + 1) + q] = k;
				a2[(size_t) q * (f + 1) + p] = k;
			}
			a2[(size_t) p * (f + 1) + f] = yp;
			a2[(size_t) f * (f + 1) + p] = yp;
			rhs[p] = 1.0 - yp * cblas_ddot(d, rp, 1, w0, 1);
		}
		a2[(size_t) f * (f + 1) + f] = 0.0;
		rhs[f] = s_y;
		/* the change of α_F (and b itself): the residual at the current α */
		for (p = 0; p <= f; p++)
			for (q = 0; q < f; q++)
				rhs[p] -= a2[(size_t) p * (f + 1) + q] * na[idx[q]];
		if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int) (f + 1), (lapack_int) (f + 1), 1, a2,
						   (lapack_int) (f + 1), rhs, 1, sv, 1e-12, &rank) != 0)
			goto out;
		b = rhs[f];
		/* the longest step toward the solution within the box */
		for (p = 0; p < f; p++)
		{
			double		c = fabs(srows[(size_t) idx[p] * m + d]),
						a = na[idx[p]],
						dl = rhs[p],
						t = dl < 0.0 ? a / -dl : dl > 0.0 ? (c - a) / dl : HUGE_VAL;

			if (t < step)
			{
				step = t;
				worst = p;
			}
		}
		for (p = 0; p < f; p++)
			na[idx[p]] += step * rhs[p];
		if (worst >= 0)
		{
			/* the blocking row at its bound, out of F */
			i = idx[worst];
			na[i] = rhs[worst] < 0.0 ? 0.0 : fabs(srows[(size_t) i * m + d]);
			in_f[i] = 0;
			continue;
		}
		/* inside the box: w, every row's F, and the conditions */
		memcpy(wn, w0, sizeof(double) * (size_t) d);
		for (p = 0; p < f; p++)
		{
			const double *rp = srows + (size_t) idx[p] * m;

			cblas_daxpy(d, inv_ln * na[idx[p]] * SIGN_OF(rp[d]), rp, 1, wn, 1);
		}
		worst = -1;
		for (i = 0; i < n_s; i++)
		{
			const double *r = srows + (size_t) i * m;
			double		yc = r[d],
						ci = fabs(yc),
						v;

			nf[i] = SIGN_OF(yc) - cblas_ddot(d, r, 1, wn, 1);
			if ((yc > 0.0 ? na[i] < ci : na[i] > 0.0) && nf[i] > fu)
				fu = nf[i];
			if ((yc > 0.0 ? na[i] > 0.0 : na[i] < ci) && nf[i] < fl)
				fl = nf[i];
			if (in_f[i])
			{
				/* off its margin (F has more rows than the system can hold) */
				v = fabs(nf[i] - b);
				if (v > worst_out)
				{
					worst_out = v;
					out_row = i;
				}
				continue;
			}
			/* a row at 0 needs margin ≥ 1, at c margin ≤ 1: F against b */
			v = ((yc > 0.0) == (na[i] == 0.0)) ? nf[i] - b : b - nf[i];
			if (v > worst_v)
			{
				worst_v = v;
				worst = i;
			}
		}
		if (fu - fl <= 1e-9 * (1.0 + fabs(fu) + fabs(fl)))
		{
			memcpy(alpha, na, sizeof(double) * cnt);
			memcpy(w, wn, sizeof(double) * (size_t) d);
			memcpy(fv, nf, sizeof(double) * cnt);
			*gap_m = fu;
			*gap_lo = fl;
			ok = 1;
			goto out;
		}
		if (out_row >= 0 && worst_out > 1e-9 * (1.0 + fabs(b)))
		{
			/*
			 * A free row off its margin leaves F at the bound its margin
			 * asks for: below 1 (1 + y(b − F) < 1) the loss is active, α = c
			 */
			double		yo = SIGN_OF(srows[(size_t) out_row * m + d]);

			na[out_row] = yo * (b - nf[out_row]) < 0.0 ? fabs(srows[(size_t) out_row * m + d]) : 0.0;
			in_f[out_row] = 0;
			continue;
		}
		if (worst < 0)
			goto out;
		in_f[worst] = 1;
	}
out:
	free(idx);
	free(in_f);
	free(a2);
	free(rhs);
	free(sv);
	free(w0);
	free(wn);
	free(na);
	free(nf);
	return ok;
}

/*
 * Rows of the band's kernel K_ij = x_iᵀx_j/(λn), computed on demand (one
 * dgemv over the band) and kept in GSU_POLISH_KERNEL_SLOTS(d) slots, the least
 * recently used replaced: SMO keeps choosing among the free rows, d + 1 in
 * general position
 */
typedef struct kernel_cache
{
	int64_t		n_s;
	int			slots;
	int			d;
	double		inv_ln;
	const double *srows;
	double	   *k;				/* slots × n_s */
	int64_t    *slot_row;		/* the row in each slot, −1: none */
	int64_t    *slot_used;		/* when each slot was last asked for */
	int		   *row_slot;		/* each row's slot, −1: none */
	int64_t		clock;
} kernel_cache;

static int
kernel_cache_init(kernel_cache *kc, int64_t n_s, int d, double inv_ln, const double *srows)
{
	memset(kc, 0, sizeof(*kc));
	kc->n_s = n_s;
	kc->slots = (int) fmin((double) n_s, GSU_POLISH_KERNEL_SLOTS(d));
	kc->d = d;
	kc->inv_ln = inv_ln;
	kc->srows = srows;
	kc->k = malloc(sizeof(double) * (size_t) kc->slots * (size_t) n_s);
	kc->slot_row = malloc(sizeof(int64_t) * (size_t) kc->slots);
	kc->slot_used = calloc((size_t) kc->slots, sizeof(int64_t));
	kc->row_slot = malloc(sizeof(int) * (size_t) n_s);
	if (!kc->k || !kc->slot_row || !kc->slot_used || !kc->row_slot)
		return 0;
	for (int s = 0; s < kc->slots; s++)
		kc->slot_row[s] = -1;
	for (int64_t i = 0; i < n_s; i++)
		kc->row_slot[i] = -1;
	return 1;
}

/* row i of K (n_s numbers), valid until two more rows are asked for */
static const double *
kernel_row(kernel_cache *kc, int64_t i)
{
	int			s = kc->row_slot[i];

	if (s < 0)
	{
		int			t;

		s = 0;
		for (t = 1; t < kc->slots; t++)
			if (kc->slot_used[t] < kc->slot_used[s])
				s = t;
		if (kc->slot_row[s] >= 0)
			kc->row_slot[kc->slot_row[s]] = -1;
		kc->slot_row[s] = i;
		kc->row_slot[i] = s;
		cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) kc->n_s, kc->d, kc->inv_ln, kc->srows,
					kc->d + 1, kc->srows + (size_t) i * (kc->d + 1), 1, 0.0,
					kc->k + (size_t) s * (size_t) kc->n_s, 1);
	}
	kc->slot_used[s] = ++kc->clock;
	return kc->k + (size_t) s * (size_t) kc->n_s;
}

static void
kernel_cache_free(kernel_cache *kc)
{
	free(kc->k);
	free(kc->slot_row);
	free(kc->slot_used);
	free(kc->row_slot);
}

/* w = (1/(λn))(Σ_V c y x + Σ_band α y x) and F_i = y_i − x_iᵀw, from α afresh */
static void
smo_refresh(int d, double inv_ln, const double *vsum, int64_t n_s, const double *srows,
			const double *alpha, double *w, double *fv)
{
	int			m = d + 1;

	memcpy(w, vsum, sizeof(double) * (size_t) d);
	for (int64_t i = 0; i < n_s; i++)
		if (alpha[i] != 0.0)
			cblas_daxpy(d, alpha[i] * SIGN_OF(srows[(size_t) i * m + d]), srows + (size_t) i * m, 1, w, 1);
	cblas_dscal(d, inv_ln, w, 1);
	for (int64_t i = 0; i < n_s; i++)
	{
		const double *r = srows + (size_t) i * m;

		fv[i] = SIGN_OF(r[d]) - cblas_ddot(d, r, 1, w, 1);
	}
}

/*
 * The band's dual is solved by SMO (Platt; the maximal violating pair of
 * Keerthi et al., as libsvm): with K_ij = x_iᵀx_j/(λn) and
 * w = w_V + (1/(λn)) Σ_j α_j y_j x_j, minimize
 *
 *     f(α) = ½ Σ α_i α_j y_i y_j K_ij + Σ α_i y_i x_iᵀw_V − Σ α_i
 *
 * over 0 ≤ α ≤ 1 with Σ α_i y_i = −Σ_V y_i; F_i = y_i − x_iᵀw is −y_i ∂f/∂α_i,
 * and at the optimum max_{I_up} F ≤ min_{I_low} F, b between them.
 */
int
gsu_hinge_polish_sums(int d, double lambda, double n, const double *vsum, double count_v,
					  int64_t n_s, const double *srows, double *alpha_io, double kkt_tol,
					  double *theta, double *dual, double *kkt)
{
	int			m = d + 1,
				ok = 0;
	int64_t		i,
				iter;
	double		inv_ln = 1.0 / (lambda * n);
	size_t		cnt = (size_t) (n_s > 0 ? n_s : 1);
	double	   *w = malloc(sizeof(double) * (size_t) m),
			   *alpha = calloc(cnt, sizeof(double)),
			   *fv = malloc(sizeof(double) * cnt),
			   *kd = malloc(sizeof(double) * cnt);
	kernel_cache kc = {0};
	int64_t		max_iter;
	double		need,
				sum_alpha = count_v,
				gap_m = 0.0,
				gap_lo = 0.0;

	if (!w || !alpha || !fv || !kd || n_s < 1 || !(n > 0.0) || !(lambda > 0.0))
		goto out;
	need = -vsum[d];
	if (alpha_io)
	{
		/* the caller's start, if it is feasible */
		for (i = 0; i < n_s; i++)
		{
			double		yc = srows[(size_t) i * m + d];

			alpha[i] = fmin(fabs(yc), fmax(0.0, alpha_io[i]));
			need -= alpha[i] * SIGN_OF(yc);
		}
		if (!(fabs(need) <= 1e-12 * (1.0 + fabs(vsum[d]))))
		{
			memset(alpha, 0, sizeof(double) * cnt);
			need = -vsum[d];
		}
	}
	/* a feasible start: Σ α_i y_i = −Σ_V y_i from the rows of one class */
	for (i = 0; i < n_s && fabs(need) > 1e-12 * (1.0 + fabs(vsum[d])); i++)
	{
		double		yc = srows[(size_t) i * m + d];

		if ((need > 0.0) == (yc > 0.0) && alpha[i] < fabs(yc))
		{
			double		add = fmin(fabs(yc) - alpha[i], fabs(need));

			alpha[i] += add;
			need -= add * SIGN_OF(yc);
		}
	}
	if (fabs(need) > 1e-9)
		goto out;				/* too few rows in the band for the constraint */
	if (!kernel_cache_init(&kc, n_s, d, inv_ln, srows))
		goto out;
	memcpy(w, vsum, sizeof(double) * (size_t) d);
	for (i = 0; i < n_s; i++)
	{
		const double *r = srows + (size_t) i * m;

		if (alpha[i] != 0.0)
			cblas_daxpy(d, alpha[i] * SIGN_OF(r[d]), r, 1, w, 1);
		kd[i] = inv_ln * cblas_ddot(d, r, 1, r, 1);
	}
	cblas_dscal(d, inv_ln, w, 1);
	for (i = 0; i < n_s; i++)
	{
		const double *r = srows + (size_t) i * m;

		fv[i] = SIGN_OF(r[d]) - cblas_ddot(d, r, 1, w, 1);
	}
	/*
	 * At most 200000 + 200 n_s steps, and about 2·10¹⁰ multiply-adds (a step
	 * costs n_s, and 2 n_s d for a kernel row not cached, counted for every
	 * step unless every row has a slot): a band of 2500 rows in 500
	 * dimensions took 80 s a try without the bound, the time of two hundred
	 * scans of its table
	 */
	max_iter = (int64_t) fmin(200000.0 + 200.0 * (double) n_s,
							  fmax(5000.0, 1e10 / ((double) n_s * (kc.slots == n_s ? 1.0 : (double) d))));
	for (iter = 0; iter < max_iter; iter++)
	{
		int64_t		up = -1,
					lo = -1;
		double		fu = -HUGE_VAL,
					fl = HUGE_VAL,
					a,
					t;
		const double *ri,
				   *rj,
				   *ku,
				   *kl;

		for (i = 0; i < n_s; i++)
		{
			double		yc = srows[(size_t) i * m + d],
						ci = fabs(yc);
			int			in_up = yc > 0.0 ? alpha[i] < ci : alpha[i] > 0.0;
			int			in_low = yc > 0.0 ? alpha[i] > 0.0 : alpha[i] < ci;

			if (in_up && fv[i] > fu)
			{
				fu = fv[i];
				up = i;
			}
			if (in_low && fv[i] < fl)
			{
				fl = fv[i];
				lo = i;
			}
		}
		gap_m = fu;
		gap_lo = fl;
		if (up < 0 || lo < 0 || fu - fl <= 1e-12 * (1.0 + fabs(fu) + fabs(fl)))
			break;
		/*
		 * F drifts as it is updated step by step (10⁻⁸ after 10⁵ steps on a
		 * band of 1000 rows in 500 dimensions, where the rule asks 10⁻⁹):
		 * w and F from α afresh every 5000 steps
		 */
		if (iter > 0 && iter % 5000 == 0)
		{
			smo_refresh(d, inv_ln, vsum, n_s, srows, alpha, w, fv);
			continue;
		}
		/* SMO crawling: the active-set finish from its free rows, after 2000·2^k steps */
		if (iter >= 2000 && iter % 2000 == 0 && ((iter / 2000) & (iter / 2000 - 1)) == 0 &&
			active_set_finish(d, inv_ln, vsum, n_s, srows, alpha, w, fv, &gap_m, &gap_lo))
			break;
		/*
		 * The second row by the second-order rule (Fan, Chen and Lin 2005, as
		 * libsvm): of the rows of I_low below fu, the one whose pair with up
		 * decreases f most, (fu − F_j)²/a_j with a_j = K_uu + K_jj − 2K_uj
		 */
		ku = kernel_row(&kc, up);
		{
			double		best = 0.0;

			for (i = 0; i < n_s; i++)
			{
				double		yc = srows[(size_t) i * m + d],
							gain,
							aj;

				if (!(yc > 0.0 ? alpha[i] > 0.0 : alpha[i] < fabs(yc)) || !(fv[i] < fu))
					continue;
				aj = fmax(kd[up] + kd[i] - 2.0 * ku[i], 1e-12 * (kd[up] + kd[i]) + 1e-300);
				gain = (fu - fv[i]) * (fu - fv[i]) / aj;
				if (gain > best)
				{
					best = gain;
					lo = i;
				}
			}
		}
		ri = srows + (size_t) up * m;
		rj = srows + (size_t) lo * m;
		kl = kernel_row(&kc, lo);
		a = fmax(kd[up] + kd[lo] - 2.0 * ku[lo], 1e-12 * (kd[up] + kd[lo]) + 1e-300);
		t = (fu - fv[lo]) / a;
		/* the box: α_up + y_up t and α_lo − y_lo t within [0, c] */
		t = fmin(t, ri[d] > 0.0 ? fabs(ri[d]) - alpha[up] : alpha[up]);
		t = fmin(t, rj[d] > 0.0 ? alpha[lo] : fabs(rj[d]) - alpha[lo]);
		alpha[up] = fmin(fabs(ri[d]), fmax(0.0, alpha[up] + SIGN_OF(ri[d]) * t));
		alpha[lo] = fmin(fabs(rj[d]), fmax(0.0, alpha[lo] - SIGN_OF(rj[d]) * t));
		/* w += (t/(λn))(x_up − x_lo), F_k −= x_kᵀΔw */
		cblas_daxpy(d, t * inv_ln, ri, 1, w, 1);
		cblas_daxpy(d, -t * inv_ln, rj, 1, w, 1);
		for (i = 0; i < n_s; i++)
			fv[i] -= t * (ku[i] - kl[i]);
	}
	if (!(gap_m - gap_lo <= kkt_tol * (1.0 + fabs(gap_m) + fabs(gap_lo))) &&
		!active_set_finish(d, inv_ln, vsum, n_s, srows, alpha, w, fv, &gap_m, &gap_lo))
		goto out;
	/* b: the free rows' F (their margins are 0), else the middle of the bracket */
	{
		double		bsum = 0.0;
		int64_t		nfree = 0;

		for (i = 0; i < n_s; i++)
		{
			sum_alpha += alpha[i];
			if (alpha[i] > 0.0 && alpha[i] < fabs(srows[(size_t) i * m + d]))
			{
				bsum += fv[i];
				nfree++;
			}
		}
		/* (an empty side of the bracket, every band row at a bound: its other end) */
		w[d] = nfree > 0 ? bsum / (double) nfree :
			isfinite(gap_m) && isfinite(gap_lo) ? 0.5 * (gap_m + gap_lo) :
			isfinite(gap_m) ? gap_m : isfinite(gap_lo) ? gap_lo : 0.0;
	}
	memcpy(theta, w, sizeof(double) * (size_t) m);
	*dual = sum_alpha / n - 0.5 * lambda * cblas_ddot(d, w, 1, w, 1);
	*kkt = fmax(gap_m - gap_lo, 0.0);
	ok = isfinite(*dual);
	if (ok && alpha_io)
		memcpy(alpha_io, alpha, sizeof(double) * cnt);
out:
	free(w);
	free(alpha);
	free(fv);
	free(kd);
	kernel_cache_free(&kc);
	return ok;
}
