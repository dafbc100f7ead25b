/*
 * gsu_metrics.c — evaluation metrics: sorting, tie groups, ROC AUC, average
 * precision, curves, log loss, confusion-matrix statistics.  See
 * gsu_metrics.h for the definitions and their sources.
 */
#include "gsu_metrics.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------- sorting */

#define SORT_INSERTION 16
#define SORT_PROGRESS_RUN 65536

static inline void
swap_d(double *a, double *b)
{
	double		t = *a;

	*a = *b;
	*b = t;
}

static void
insertion_sort(double *x, size_t n)
{
	size_t		i,
				j;

	for (i = 1; i < n; i++)
	{
		double		v = x[i];

		for (j = i; j > 0 && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

static void
sift_down(double *x, size_t root, size_t n)
{
	for (;;)
	{
		size_t		child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && x[child + 1] > x[child])
			child++;
		if (!(x[child] > x[root]))
			return;
		swap_d(&x[root], &x[child]);
		root = child;
	}
}

static void
heap_sort(double *x, size_t n)
{
	size_t		i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(x, i, n);
	for (i = n - 1; i > 0; i--)
	{
		swap_d(&x[0], &x[i]);
		sift_down(x, 0, i);
	}
}

static gsu_status
intro_sort(double *x, size_t n, int depth, gsu_progress_fn progress, void *arg)
{
	while (n > SORT_INSERTION)
	{
		size_t		mid = (n - 1) / 2;
		size_t		i,
					j;
		double		pivot;

		if (progress && n >= SORT_PROGRESS_RUN && progress(arg))
			return GSU_ECANCELLED;
		if (depth-- == 0)
		{
			heap_sort(x, n);
			return GSU_OK;
		}
		/* median of three, left at x[mid]; x[0] ≤ pivot ≤ x[n−1] */
		if (x[mid] < x[0])
			swap_d(&x[mid], &x[0]);
		if (x[n - 1] < x[mid])
		{
			swap_d(&x[n - 1], &x[mid]);
			if (x[mid] < x[0])
				swap_d(&x[mid], &x[0]);
		}
		pivot = x[mid];

		/*
		 * Hoare partition with the pivot taken at index ⌊(n−1)/2⌋: stops
		 * with 0 ≤ j < n−1, x[0..j] ≤ pivot ≤ x[j+1..n−1], both parts
		 * non-empty; runs of equal keys are split evenly.
		 */
		i = 0;
		j = n - 1;
		for (;;)
		{
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap_d(&x[i], &x[j]);
			i++;
			j--;
		}
		/* recurse into the smaller part, loop on the larger */
		if (j + 1 < n - (j + 1))
		{
			gsu_status	st = intro_sort(x, j + 1, depth, progress, arg);

			if (st != GSU_OK)
				return st;
			x += j + 1;
			n -= j + 1;
		}
		else
		{
			gsu_status	st = intro_sort(x + j + 1, n - (j + 1), depth, progress, arg);

			if (st != GSU_OK)
				return st;
			n = j + 1;
		}
	}
	insertion_sort(x, n);
	return GSU_OK;
}

gsu_status
gsu_sort_doubles(double *x, size_t n, gsu_progress_fn progress, void *arg)
{
	int			depth = 0;
	size_t		m;

	for (m = n; m > 1; m >>= 1)
		depth += 2;
	return intro_sort(x, n, depth, progress, arg);
}

/* ------------------------------------------------------ tie groups */

void
gsu_rank_begin(gsu_rank_iter *it, const double *pos, size_t n_pos,
			   const double *neg, size_t n_neg)
{
	it->pos = pos;
	it->neg = neg;
	it->ip = n_pos;
	it->in = n_neg;
	it->tp = 0;
	it->fp = 0;
}

int
gsu_rank_next(gsu_rank_iter *it, double *threshold, int64_t *gp, int64_t *gn)
{
	double		t;
	int64_t		p = 0,
				q = 0;

	if (it->ip == 0 && it->in == 0)
		return 0;
	if (it->ip == 0)
		t = it->neg[it->in - 1];
	else if (it->in == 0)
		t = it->pos[it->ip - 1];
	else
		t = fmax(it->pos[it->ip - 1], it->neg[it->in - 1]);
	while (it->ip > 0 && it->pos[it->ip - 1] == t)
	{
		it->ip--;
		p++;
	}
	while (it->in > 0 && it->neg[it->in - 1] == t)
	{
		it->in--;
		q++;
	}
	it->tp += p;
	it->fp += q;
	*threshold = t;
	*gp = p;
	*gn = q;
	return 1;
}

size_t
gsu_rank_count_groups(const double *pos, size_t n_pos, const double *neg, size_t n_neg)
{
	gsu_rank_iter it;
	double		t;
	int64_t		p,
				q;
	size_t		g = 0;

	gsu_rank_begin(&it, pos, n_pos, neg, n_neg);
	while (gsu_rank_next(&it, &t, &p, &q))
		g++;
	return g;
}

double
gsu_roc_auc(const double *pos, size_t n_pos, const double *neg, size_t n_neg)
{
	gsu_rank_iter it;
	double		t;
	int64_t		p,
				q;

	if (n_pos == 0 || n_neg == 0)
		return NAN;
	gsu_rank_begin(&it, pos, n_pos, neg, n_neg);

	/*
	 * Each negative of a group is outranked by the tp_above positives of
	 * higher groups and tied with the group's g_p positives:
	 * 2U = Σ g_n (2 tp_above + g_p) ≤ 2PN, exact in uint64 while P, N < 2³¹.
	 */
	if (n_pos < ((size_t) 1 << 31) && n_neg < ((size_t) 1 << 31))
	{
		uint64_t	twice_u = 0;

		while (gsu_rank_next(&it, &t, &p, &q))
			twice_u += (uint64_t) q * (uint64_t) (2 * (it.tp - p) + p);
		return (double) twice_u / (2.0 * (double) n_pos * (double) n_neg);
	}
	else
	{
		gsu_sum		u = {0.0, 0.0};

		while (gsu_rank_next(&it, &t, &p, &q))
			gsu_sum_add(&u, (double) q * (double) (2 * (it.tp - p) + p));
		return gsu_sum_value(&u) / (2.0 * (double) n_pos * (double) n_neg);
	}
}

double
gsu_average_precision(const double *pos, size_t n_pos, const double *neg, size_t n_neg)
{
	gsu_rank_iter it;
	gsu_sum		ap = {0.0, 0.0};
	double		t;
	int64_t		p,
				q;

	if (n_pos == 0)
		return NAN;
	gsu_rank_begin(&it, pos, n_pos, neg, n_neg);
	/* (R_k − R_{k−1}) P_k = (g_p/P) · tp_k/(tp_k + fp_k); zero when g_p = 0 */
	while (gsu_rank_next(&it, &t, &p, &q))
		if (p > 0)
			gsu_sum_add(&ap, (double) p * ((double) it.tp / (double) (it.tp + it.fp)));
	return gsu_sum_value(&ap) / (double) n_pos;
}

size_t
gsu_rank_curve(const double *pos, size_t n_pos, const double *neg, size_t n_neg,
			   gsu_curve_point *out)
{
	gsu_rank_iter it;
	double		t;
	int64_t		p,
				q;
	size_t		g = 0;

	gsu_rank_begin(&it, pos, n_pos, neg, n_neg);
	while (gsu_rank_next(&it, &t, &p, &q))
	{
		gsu_curve_point *c = &out[g++];

		c->threshold = t;
		c->tp = it.tp;
		c->fp = it.fp;
		c->fpr = n_neg > 0 ? (double) it.fp / (double) n_neg : NAN;
		c->tpr = n_pos > 0 ? (double) it.tp / (double) n_pos : NAN;
		c->precision = (double) it.tp / (double) (it.tp + it.fp);
	}
	return g;
}

/* ----------------------------------------------------------- log loss */

double
gsu_log_loss_term(double p, int positive, double eps)
{
	double		c = fmin(fmax(p, eps), 1.0 - eps);

	return positive ? -log(c) : -log1p(-c);
}

/* --------------------------------------------------- compensated sum */

void
gsu_sum_add(gsu_sum *a, double x)
{
	double		t = a->s + x;

	if (fabs(a->s) >= fabs(x))
		a->c += (a->s - t) + x;
	else
		a->c += (x - t) + a->s;
	a->s = t;
}

void
gsu_sum_merge(gsu_sum *a, const gsu_sum *b)
{
	gsu_sum_add(a, b->s);
	gsu_sum_add(a, b->c);
}

double
gsu_sum_value(const gsu_sum *a)
{
	return a->s + a->c;
}

/* --------------------------------------------------- confusion matrix */

static double
ratio(int64_t num, int64_t den)
{
	return den > 0 ? (double) num / (double) den : NAN;
}

double
gsu_mcc_binary(int64_t tp, int64_t fp, int64_t tn, int64_t fn)
{
	long double num = (long double) tp * tn - (long double) fp * fn;
	long double den = (long double) (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn);

	if (den == 0)
		return NAN;
	return (double) (num / sqrtl(den));
}

/* MCC from c, n and the sums Σ p_k t_k, Σ p_k², Σ t_k² */
static double
mcc_from_sums(int64_t correct, int64_t n, long double spt, long double spp, long double stt)
{
	long double nn = (long double) n * n;
	long double cov_pt = (long double) correct * n - spt;
	long double den = (nn - spp) * (nn - stt);

	if (!(den > 0))
		return NAN;
	return (double) (cov_pt / sqrtl(den));
}

double
gsu_mcc_multiclass(size_t k, const int64_t *predicted_totals,
				   const int64_t *actual_totals, int64_t correct, int64_t n)
{
	long double spt = 0,
				spp = 0,
				stt = 0;
	size_t		i;

	for (i = 0; i < k; i++)
	{
		long double p = predicted_totals[i],
					t = actual_totals[i];

		spt += p * t;
		spp += p * p;
		stt += t * t;
	}
	return mcc_from_sums(correct, n, spt, spp, stt);
}

static int
cmp_label(const void *a, const void *b)
{
	int32_t		x = ((const gsu_class_metrics *) a)->label,
				y = ((const gsu_class_metrics *) b)->label;

	return (x > y) - (x < y);
}

/* index of label in classes[0..k−1] (sorted, present) */
static size_t
class_index(const gsu_class_metrics *classes, size_t k, int32_t label)
{
	size_t		lo = 0,
				hi = k;

	while (hi - lo > 1)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (classes[mid].label <= label)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* mean of the non-NaN values of one field; NaN when there is none */
static double
macro_mean(const gsu_class_metrics *classes, size_t k, size_t offset)
{
	double		s = 0.0;
	size_t		i,
				m = 0;

	for (i = 0; i < k; i++)
	{
		double		v = *(const double *) ((const char *) &classes[i] + offset);

		if (!isnan(v))
		{
			s += v;
			m++;
		}
	}
	return m > 0 ? s / (double) m : NAN;
}

gsu_status
gsu_confusion_summarize(const gsu_confusion_cell *cells, size_t ncells,
						gsu_class_metrics *classes, gsu_confusion_summary *s)
{
	size_t		i,
				k = 0;
	int64_t		n = 0,
				correct = 0;
	long double spt = 0,
				spp = 0,
				stt = 0;

	for (i = 0; i < ncells; i++)
	{
		if (cells[i].count <= 0 || cells[i].count > INT64_MAX - n)
			return GSU_EINVAL;
		n += cells[i].count;
		if (cells[i].predicted == cells[i].actual)
			correct += cells[i].count;
	}

	/* distinct labels, ascending */
	for (i = 0; i < ncells; i++)
	{
		classes[2 * i].label = cells[i].predicted;
		classes[2 * i + 1].label = cells[i].actual;
	}
	qsort(classes, 2 * ncells, sizeof(gsu_class_metrics), cmp_label);
	for (i = 0; i < 2 * ncells; i++)
		if (k == 0 || classes[i].label != classes[k - 1].label)
			classes[k++].label = classes[i].label;
	for (i = 0; i < k; i++)
	{
		gsu_class_metrics *c = &classes[i];

		c->tp = c->fp = c->fn = c->tn = c->support = 0;
	}

	/* tp, then predicted totals in fp and actual totals in support */
	for (i = 0; i < ncells; i++)
	{
		size_t		ip = class_index(classes, k, cells[i].predicted);
		size_t		ia = class_index(classes, k, cells[i].actual);

		classes[ip].fp += cells[i].count;
		classes[ia].support += cells[i].count;
		if (ip == ia)
			classes[ip].tp += cells[i].count;
	}
	for (i = 0; i < k; i++)
	{
		gsu_class_metrics *c = &classes[i];
		long double p = c->fp,
					t = c->support;

		spt += p * t;
		spp += p * p;
		stt += t * t;
		c->fp -= c->tp;
		c->fn = c->support - c->tp;
		c->tn = n - c->tp - c->fp - c->fn;
		c->precision = ratio(c->tp, c->tp + c->fp);
		c->recall = ratio(c->tp, c->tp + c->fn);
		c->f1 = ratio(2 * c->tp, 2 * c->tp + c->fp + c->fn);
	}

	s->n = n;
	s->correct = correct;
	s->accuracy = ratio(correct, n);
	s->n_classes = k;
	s->macro_precision = macro_mean(classes, k, offsetof(gsu_class_metrics, precision));
	s->macro_recall = macro_mean(classes, k, offsetof(gsu_class_metrics, recall));
	s->macro_f1 = macro_mean(classes, k, offsetof(gsu_class_metrics, f1));

	s->binary = 1;
	for (i = 0; i < k; i++)
		if (classes[i].label != 1 && classes[i].label != -1)
			s->binary = 0;
	s->tp = s->fp = s->tn = s->fn = 0;
	s->precision = s->recall = s->f1 = NAN;
	if (s->binary)
	{
		for (i = 0; i < ncells; i++)
		{
			int64_t		c = cells[i].count;

			if (cells[i].predicted == 1)
				*(cells[i].actual == 1 ? &s->tp : &s->fp) += c;
			else
				*(cells[i].actual == 1 ? &s->fn : &s->tn) += c;
		}
		s->precision = ratio(s->tp, s->tp + s->fp);
		s->recall = ratio(s->tp, s->tp + s->fn);
		s->f1 = ratio(2 * s->tp, 2 * s->tp + s->fp + s->fn);
		s->mcc = gsu_mcc_binary(s->tp, s->fp, s->tn, s->fn);
	}
	else
		s->mcc = mcc_from_sums(correct, n, spt, spp, stt);
	return GSU_OK;
}
