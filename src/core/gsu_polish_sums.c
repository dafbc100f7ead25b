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

/* the active-set finish's state: the band, the face F and its buffers */
typedef struct face_ws
{
	int			d;
	int			m;				/* d + 1 */
	double		inv_ln;
	const double *vsum;
	int64_t		n_s;
	const double *srows;
	int64_t    *idx;			/* the rows of F */
	char	   *in_f;
	double	   *a2;				/* (|F| + 1)², grown as F grows */
	size_t		a2_cap;
	double	   *rhs;
	double	   *sv;
	double	   *w0;
	double	   *wn;
	double	   *na;				/* the new α */
	double	   *nf;				/* the new F_i */
} face_ws;

/* fw's buffers for the band; 0 when one is missing (free them all the same) */
static int
face_ws_init(face_ws *fw, int d, double inv_ln, const double *vsum, int64_t n_s,
			 const double *srows)
{
	size_t		cnt = (size_t) n_s;

	fw->d = d;
	fw->m = d + 1;
	fw->inv_ln = inv_ln;
	fw->vsum = vsum;
	fw->n_s = n_s;
	fw->srows = srows;
	fw->a2_cap = 0;
	fw->a2 = NULL;
	fw->idx = malloc(sizeof(int64_t) * cnt);
	fw->in_f = calloc(cnt, 1);
	fw->rhs = malloc(sizeof(double) * (cnt + 1));
	fw->sv = malloc(sizeof(double) * (cnt + 1));
	fw->w0 = malloc(sizeof(double) * (size_t) fw->m);
	fw->wn = malloc(sizeof(double) * (size_t) fw->m);
	fw->na = malloc(sizeof(double) * cnt);
	fw->nf = malloc(sizeof(double) * cnt);
	return fw->idx && fw->in_f && fw->rhs && fw->sv && fw->w0 && fw->wn && fw->na && fw->nf;
}

static void
face_ws_free(face_ws *fw)
{
	free(fw->idx);
	free(fw->in_f);
	free(fw->a2);
	free(fw->rhs);
	free(fw->sv);
	free(fw->w0);
	free(fw->wn);
	free(fw->na);
	free(fw->nf);
}

/*
 * The rows of F into idx (returned: their count), and the sums over the
 * others: w0 = Σ_V c y x + Σ_{band ∉ F} α y x (not yet scaled) and *s_y =
 * −Σ_V c y − Σ_{band ∉ F} α y, what Σ_F α_j y_j must equal
 */
static int64_t
face_collect(face_ws *fw, double *s_y)
{
	int			d = fw->d,
				m = fw->m;
	int64_t		f = 0,
				i;

	*s_y = -fw->vsum[d];
	memcpy(fw->w0, fw->vsum, sizeof(double) * (size_t) d);
	for (i = 0; i < fw->n_s; i++)
	{
		const double *r = fw->srows + (size_t) i * m;

		if (fw->in_f[i])
			fw->idx[f++] = i;
		else if (fw->na[i] != 0.0)
		{
			cblas_daxpy(d, fw->na[i] * SIGN_OF(r[d]), r, 1, fw->w0, 1);
			*s_y -= fw->na[i] * SIGN_OF(r[d]);
		}
	}
	return f;
}

/*
 * The margin equations of the f rows of F and the equality, for the change
 * of α_F and b itself, solved in the least-squares sense: rhs receives the
 * change of α_F and, at f, b.  0 when it cannot be solved.
 */
static int
face_solve(face_ws *fw, int64_t f, double s_y)
{
	int			d = fw->d,
				m = fw->m;
	double		inv_ln = fw->inv_ln;
	const double *srows = fw->srows;
	double	   *a2,
			   *rhs = fw->rhs;
	int64_t		p,
				q;
	lapack_int	rank;

	if ((size_t) (f + 1) * (size_t) (f + 1) > fw->a2_cap)
	{
		double	   *grown = realloc(fw->a2, sizeof(double) * (size_t) (f + 1) * (size_t) (f + 1));

		if (!grown)
			return 0;
		fw->a2 = grown;
		fw->a2_cap = (size_t) (f + 1) * (size_t) (f + 1);
	}
	a2 = fw->a2;
	cblas_dscal(d, inv_ln, fw->w0, 1);
	for (p = 0; p < f; p++)
	{
		const double *rp = srows + (size_t) fw->idx[p] * m;
		double		yp = SIGN_OF(rp[d]);

		for (q = 0; q <= p; q++)
		{
			const double *rq = srows + (size_t) fw->idx[q] * m;
			double		k = yp * SIGN_OF(rq[d]) * inv_ln * cblas_ddot(d, rp, 1, rq, 1);

			a2[(size_t) p * (f + 1) + q] = k;
			a2[(size_t) q * (f + 1) + p] = k;
		}
		a2[(size_t) p * (f + 1) + f] = yp;
		a2[(size_t) f * (f + 1) + p] = yp;
		rhs[p] = 1.0 - yp * cblas_ddot(d, rp, 1, fw->w0, 1);
	}
	a2[(size_t) f * (f + 1) + f] = 0.0;
	rhs[f] = s_y;
	/* the change of α_F (and b itself): the residual at the current α */
	for (p = 0; p <= f; p++)
		for (q = 0; q < f; q++)
			rhs[p] -= a2[(size_t) p * (f + 1) + q] * fw->na[fw->idx[q]];
	if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int) (f + 1), (lapack_int) (f + 1), 1, a2,
					   (lapack_int) (f + 1), rhs, 1, fw->sv, 1e-12, &rank) != 0)
		return 0;
	return 1;
}

/*
 * The longest step toward the solution within the box; 1 when a row of F
 * reached its bound first (it is put on it and leaves F), 0 when the whole
 * step was taken
 */
static int
face_step(face_ws *fw, int64_t f)
{
	int			d = fw->d,
				m = fw->m;
	const double *srows = fw->srows;
	const double *rhs = fw->rhs;
	double	   *na = fw->na;
	double		step = 1.0;
	int64_t		worst = -1,
				p,
				i;

	for (p = 0; p < f; p++)
	{
		double		c = fabs(srows[(size_t) fw->idx[p] * m + d]),
					a = na[fw->idx[p]],
					dl = rhs[p],
					t = dl < 0.0 ? a / -dl : dl > 0.0 ? (c - a) / dl : HUGE_VAL;

		if (t < step)
		{
			step = t;
			worst = p;
		}
	}
	for (p = 0; p < f; p++)
		na[fw->idx[p]] += step * rhs[p];
	if (worst < 0)
		return 0;
	/* the blocking row at its bound, out of F */
	i = fw->idx[worst];
	na[i] = rhs[worst] < 0.0 ? 0.0 : fabs(srows[(size_t) i * m + d]);
	fw->in_f[i] = 0;
	return 1;
}

/*
 * Inside the box: w (wn), every row's F (nf), and the conditions with the
 * bias b.  1: every row's KKT condition holds to SMO's own tolerance (*fu,
 * *fl the bracket); 0: a row moves (a free row off its margin leaves F, or
 * the worst violator joins it) and the rounds go on; −1: no row to move.
 */
static int
face_check(face_ws *fw, int64_t f, double b, double *fu_out, double *fl_out)
{
	int			d = fw->d,
				m = fw->m;
	const double *srows = fw->srows;
	const double *na = fw->na;
	double	   *nf = fw->nf;
	double		fu = -HUGE_VAL,
				fl = HUGE_VAL,
				worst_v = 0.0,
				worst_out = 0.0;
	int64_t		worst = -1,
				out_row = -1,
				p,
				i;

	memcpy(fw->wn, fw->w0, sizeof(double) * (size_t) d);
	for (p = 0; p < f; p++)
	{
		const double *rp = srows + (size_t) fw->idx[p] * m;

		cblas_daxpy(d, fw->inv_ln * na[fw->idx[p]] * SIGN_OF(rp[d]), rp, 1, fw->wn, 1);
	}
	for (i = 0; i < fw->n_s; i++)
	{
		const double *r = srows + (size_t) i * m;
		double		yc = r[d],
					ci = fabs(yc),
					v;

		nf[i] = SIGN_OF(yc) - cblas_ddot(d, r, 1, fw->wn, 1);
		if ((yc > 0.0 ? na[i] < ci : na[i] > 0.0) && nf[i] > fu)
			fu = nf[i];
		if ((yc > 0.0 ? na[i] > 0.0 : na[i] < ci) && nf[i] < fl)
			fl = nf[i];
		if (fw->in_f[i])
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
		*fu_out = fu;
		*fl_out = fl;
		return 1;
	}
	if (out_row >= 0 && worst_out > 1e-9 * (1.0 + fabs(b)))
	{
		/*
		 * A free row off its margin leaves F at the bound its margin asks
		 * for: below 1 (1 + y(b − F) < 1) the loss is active, α = c
		 */
		double		yo = SIGN_OF(srows[(size_t) out_row * m + d]);

		fw->na[out_row] = yo * (b - nf[out_row]) < 0.0 ? fabs(srows[(size_t) out_row * m + d]) : 0.0;
		fw->in_f[out_row] = 0;
		return 0;
	}
	if (worst < 0)
		return -1;
	fw->in_f[worst] = 1;
	return 0;
}

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
	int64_t		i;
	size_t		cnt = (size_t) n_s;
	face_ws		fw;

	if (!face_ws_init(&fw, d, inv_ln, vsum, n_s, srows))
		goto out;
	memcpy(fw.na, alpha, sizeof(double) * cnt);
	for (i = 0; i < n_s; i++)
		fw.in_f[i] = fw.na[i] > 0.0 && fw.na[i] < fabs(srows[(size_t) i * m + d]);
	for (round = 0; round < 50; round++)
	{
		double		s_y,
					fu,
					fl;
		int64_t		f = face_collect(&fw, &s_y);
		int			r;

		/* a face of at most d + 1 free rows, in general position; a larger F is not near one */
		if (f < 1 || f > 2 * (int64_t) m + 64 || f > 300)
			goto out;
		if (!face_solve(&fw, f, s_y))
			goto out;
		if (face_step(&fw, f))
			continue;
		r = face_check(&fw, f, fw.rhs[f], &fu, &fl);
		if (r < 0)
			goto out;
		if (r > 0)
		{
			memcpy(alpha, fw.na, sizeof(double) * cnt);
			memcpy(w, fw.wn, sizeof(double) * (size_t) d);
			memcpy(fv, fw.nf, sizeof(double) * cnt);
			*gap_m = fu;
			*gap_lo = fl;
			ok = 1;
			goto out;
		}
	}
out:
	face_ws_free(&fw);
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
	kc->slots = (int) fmin((double) n_s, GSU_POLISH_KERNEL_SLOTS(n_s, d));
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

/* SMO's state on the band */
typedef struct smo_ws
{
	int			d;
	int			m;				/* d + 1 */
	double		inv_ln;			/* 1/(λn) */
	const double *vsum;
	int64_t		n_s;
	size_t		cnt;			/* n_s, at least 1 */
	const double *srows;
	double	   *w;				/* m */
	double	   *alpha;			/* n_s */
	double	   *fv;				/* n_s: F_i */
	double	   *kd;				/* n_s: K_ii */
	kernel_cache kc;
} smo_ws;

/*
 * A feasible start in s->alpha: the caller's alpha_io (NULL: none) clipped
 * to the box, else 0, completed to Σ α_i y_i = −Σ_V y_i by moving the rows'
 * α toward the constraint, rows of one class up or of the other down (the
 * caller's start is kept where it need not move: a warm start from the
 * previous band's solution, whose V differs a little).  0: too few rows in
 * the band for the constraint.
 */
static int
smo_feasible_start(smo_ws *s, const double *alpha_io)
{
	int			d = s->d,
				m = s->m;
	const double *vsum = s->vsum;
	const double *srows = s->srows;
	double	   *alpha = s->alpha;
	double		need = -vsum[d];
	int64_t		i;

	if (alpha_io)
		for (i = 0; i < s->n_s; i++)
		{
			double		yc = srows[(size_t) i * m + d];

			alpha[i] = fmin(fabs(yc), fmax(0.0, alpha_io[i]));
			need -= alpha[i] * SIGN_OF(yc);
		}
	/* need > 0: α up on rows of y = +1, or down on rows of y = −1 (need < 0: the reverse) */
	for (i = 0; i < s->n_s && fabs(need) > 1e-12 * (1.0 + fabs(vsum[d])); i++)
	{
		double		yc = srows[(size_t) i * m + d],
					move;

		if ((need > 0.0) == (yc > 0.0))
			move = fmin(fabs(yc) - alpha[i], fabs(need));	/* up */
		else
			move = -fmin(alpha[i], fabs(need)); /* down */
		alpha[i] += move;
		need -= move * SIGN_OF(yc);
	}
	return !(fabs(need) > 1e-9);
}

/* w, K_ii and F_i at the start α */
static void
smo_start_sums(smo_ws *s)
{
	int			d = s->d,
				m = s->m;
	int64_t		i;

	memcpy(s->w, s->vsum, sizeof(double) * (size_t) d);
	for (i = 0; i < s->n_s; i++)
	{
		const double *r = s->srows + (size_t) i * m;

		if (s->alpha[i] != 0.0)
			cblas_daxpy(d, s->alpha[i] * SIGN_OF(r[d]), r, 1, s->w, 1);
		s->kd[i] = s->inv_ln * cblas_ddot(d, r, 1, r, 1);
	}
	cblas_dscal(d, s->inv_ln, s->w, 1);
	for (i = 0; i < s->n_s; i++)
	{
		const double *r = s->srows + (size_t) i * m;

		s->fv[i] = SIGN_OF(r[d]) - cblas_ddot(d, r, 1, s->w, 1);
	}
}

/* the maximal violating pair: the largest F in I_up (*up) and the smallest in I_low (*lo) */
static void
smo_violating_pair(const smo_ws *s, int64_t *up, int64_t *lo, double *fu, double *fl)
{
	int			d = s->d,
				m = s->m;
	int64_t		i;

	for (i = 0; i < s->n_s; i++)
	{
		double		yc = s->srows[(size_t) i * m + d],
					ci = fabs(yc);
		int			in_up = yc > 0.0 ? s->alpha[i] < ci : s->alpha[i] > 0.0;
		int			in_low = yc > 0.0 ? s->alpha[i] > 0.0 : s->alpha[i] < ci;

		if (in_up && s->fv[i] > *fu)
		{
			*fu = s->fv[i];
			*up = i;
		}
		if (in_low && s->fv[i] < *fl)
		{
			*fl = s->fv[i];
			*lo = i;
		}
	}
}

/*
 * The second row by the second-order rule (Fan, Chen and Lin 2005, as
 * libsvm): of the rows of I_low below fu, the one whose pair with up
 * decreases f most, (fu − F_j)²/a_j with a_j = K_uu + K_jj − 2K_uj; lo
 * when none gains.  ku: row up of K.
 */
static int64_t
smo_second_row(const smo_ws *s, int64_t up, int64_t lo, double fu, const double *ku)
{
	int			d = s->d,
				m = s->m;
	double		best = 0.0;
	int64_t		i;

	for (i = 0; i < s->n_s; i++)
	{
		double		yc = s->srows[(size_t) i * m + d],
					gain,
					aj;

		if (!(yc > 0.0 ? s->alpha[i] > 0.0 : s->alpha[i] < fabs(yc)) || !(s->fv[i] < fu))
			continue;
		aj = fmax(s->kd[up] + s->kd[i] - 2.0 * ku[i], 1e-12 * (s->kd[up] + s->kd[i]) + 1e-300);
		gain = (fu - s->fv[i]) * (fu - s->fv[i]) / aj;
		if (gain > best)
		{
			best = gain;
			lo = i;
		}
	}
	return lo;
}

/* the step on the pair (up, lo) within the box, and w and F after it */
static void
smo_pair_step(smo_ws *s, int64_t up, int64_t lo, double fu, const double *ku)
{
	int			d = s->d,
				m = s->m;
	double	   *alpha = s->alpha;
	const double *ri = s->srows + (size_t) up * m,
			   *rj = s->srows + (size_t) lo * m,
			   *kl = kernel_row(&s->kc, lo);
	double		a = fmax(s->kd[up] + s->kd[lo] - 2.0 * ku[lo], 1e-12 * (s->kd[up] + s->kd[lo]) + 1e-300),
				t = (fu - s->fv[lo]) / a;
	int64_t		i;

	/* the box: α_up + y_up t and α_lo − y_lo t within [0, c] */
	t = fmin(t, ri[d] > 0.0 ? fabs(ri[d]) - alpha[up] : alpha[up]);
	t = fmin(t, rj[d] > 0.0 ? alpha[lo] : fabs(rj[d]) - alpha[lo]);
	alpha[up] = fmin(fabs(ri[d]), fmax(0.0, alpha[up] + SIGN_OF(ri[d]) * t));
	alpha[lo] = fmin(fabs(rj[d]), fmax(0.0, alpha[lo] - SIGN_OF(rj[d]) * t));
	/* w += (t/(λn))(x_up − x_lo), F_k −= x_kᵀΔw */
	cblas_daxpy(d, t * s->inv_ln, ri, 1, s->w, 1);
	cblas_daxpy(d, -t * s->inv_ln, rj, 1, s->w, 1);
	for (i = 0; i < s->n_s; i++)
		s->fv[i] -= t * (ku[i] - kl[i]);
}

/*
 * SMO's steps, max_iter at most, until the maximal violating pair closes
 * (or the active-set finish succeeds); *gap_m and *gap_lo receive the last
 * bracket, max_up F and min_low F.
 */
static void
smo_iterate(smo_ws *s, int64_t max_iter, double *gap_m, double *gap_lo)
{
	int64_t		iter;

	for (iter = 0; iter < max_iter; iter++)
	{
		int64_t		up = -1,
					lo = -1;
		double		fu = -HUGE_VAL,
					fl = HUGE_VAL;
		const double *ku;

		smo_violating_pair(s, &up, &lo, &fu, &fl);
		*gap_m = fu;
		*gap_lo = fl;
		if (up < 0 || lo < 0 || fu - fl <= 1e-12 * (1.0 + fabs(fu) + fabs(fl)))
			break;
		/*
		 * F drifts as it is updated step by step (10⁻⁸ after 10⁵ steps on a
		 * band of 1000 rows in 500 dimensions, where the rule asks 10⁻⁹):
		 * w and F from α afresh every 5000 steps
		 */
		if (iter > 0 && iter % 5000 == 0)
		{
			smo_refresh(s->d, s->inv_ln, s->vsum, s->n_s, s->srows, s->alpha, s->w, s->fv);
			continue;
		}
		/* SMO crawling: the active-set finish from its free rows, after 2000·2^k steps */
		if (iter >= 2000 && iter % 2000 == 0 && ((iter / 2000) & (iter / 2000 - 1)) == 0 &&
			active_set_finish(s->d, s->inv_ln, s->vsum, s->n_s, s->srows, s->alpha, s->w, s->fv,
							  gap_m, gap_lo))
			break;
		ku = kernel_row(&s->kc, up);
		lo = smo_second_row(s, up, lo, fu, ku);
		smo_pair_step(s, up, lo, fu, ku);
	}
}

/*
 * b into w[d]: the free rows' F (their margins are 0), else the middle of
 * the bracket; returns sum_alpha plus the band's Σ α_i
 */
static double
smo_bias(smo_ws *s, double sum_alpha, double gap_m, double gap_lo)
{
	int			d = s->d,
				m = s->m;
	double		bsum = 0.0;
	int64_t		nfree = 0,
				i;

	for (i = 0; i < s->n_s; i++)
	{
		sum_alpha += s->alpha[i];
		if (s->alpha[i] > 0.0 && s->alpha[i] < fabs(s->srows[(size_t) i * m + d]))
		{
			bsum += s->fv[i];
			nfree++;
		}
	}
	/* (an empty side of the bracket, every band row at a bound: its other end) */
	s->w[d] = nfree > 0 ? bsum / (double) nfree :
		isfinite(gap_m) && isfinite(gap_lo) ? 0.5 * (gap_m + gap_lo) :
		isfinite(gap_m) ? gap_m : isfinite(gap_lo) ? gap_lo : 0.0;
	return sum_alpha;
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
	smo_ws		s;
	int64_t		max_iter;
	double		sum_alpha = count_v,
				gap_m = 0.0,
				gap_lo = 0.0;

	memset(&s, 0, sizeof(s));
	s.d = d;
	s.m = m;
	s.inv_ln = 1.0 / (lambda * n);
	s.vsum = vsum;
	s.n_s = n_s;
	s.cnt = (size_t) (n_s > 0 ? n_s : 1);
	s.srows = srows;
	s.w = malloc(sizeof(double) * (size_t) m);
	s.alpha = calloc(s.cnt, sizeof(double));
	s.fv = malloc(sizeof(double) * s.cnt);
	s.kd = malloc(sizeof(double) * s.cnt);
	if (!s.w || !s.alpha || !s.fv || !s.kd || n_s < 1 || !(n > 0.0) || !(lambda > 0.0))
		goto out;
	if (!smo_feasible_start(&s, alpha_io))
		goto out;				/* too few rows in the band for the constraint */
	if (!kernel_cache_init(&s.kc, n_s, d, s.inv_ln, srows))
		goto out;
	smo_start_sums(&s);
	/*
	 * At most 200000 + 200 n_s steps (1000 n_s with the whole kernel matrix
	 * cached, each step then O(n_s)), and about 2·10¹⁰ multiply-adds (a step
	 * costs n_s, and 2 n_s d for a kernel row not cached, counted for every
	 * step unless every row has a slot): a band of 2500 rows in 500
	 * dimensions took 80 s a try without the bound, the time of two hundred
	 * scans of its table
	 */
	max_iter = (int64_t) fmin((s.kc.slots == n_s ? 1000.0 : 200.0) * (double) n_s + 200000.0,
							  fmax(5000.0, 1e10 / ((double) n_s * (s.kc.slots == n_s ? 1.0 : (double) d))));
	smo_iterate(&s, max_iter, &gap_m, &gap_lo);
	if (!(gap_m - gap_lo <= kkt_tol * (1.0 + fabs(gap_m) + fabs(gap_lo))) &&
		!active_set_finish(d, s.inv_ln, vsum, n_s, srows, s.alpha, s.w, s.fv, &gap_m, &gap_lo))
	{
		/*
		 * SMO stopped short: its α is still feasible, so w(α) from α afresh
		 * (not the drifted w) gives a dual objective that bounds the
		 * optimum from below; a candidate that cannot certify this time
		 * but a start (2)
		 */
		smo_refresh(d, s.inv_ln, vsum, n_s, srows, s.alpha, s.w, s.fv);
		ok = 2;
	}
	sum_alpha = smo_bias(&s, sum_alpha, gap_m, gap_lo);
	memcpy(theta, s.w, sizeof(double) * (size_t) m);
	*dual = sum_alpha / n - 0.5 * lambda * cblas_ddot(d, s.w, 1, s.w, 1);
	*kkt = fmax(gap_m - gap_lo, 0.0);
	ok = isfinite(*dual) ? (ok == 2 ? 2 : 1) : 0;
	if (ok && alpha_io)
		memcpy(alpha_io, s.alpha, sizeof(double) * s.cnt);
out:
	free(s.w);
	free(s.alpha);
	free(s.fv);
	free(s.kd);
	kernel_cache_free(&s.kc);
	return ok;
}
