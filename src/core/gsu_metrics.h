/*
 * gsu_metrics.h — evaluation metrics of classifiers: confusion-matrix
 * statistics (binary and multi-class), ranking metrics of scores (ROC AUC,
 * average precision, ROC and precision-recall curves) and the log loss.
 *
 * Pure C11, no PostgreSQL headers.  Undefined ratios (0/0) are returned as
 * NaN; the glue writes them as JSON null or SQL NULL.
 *
 * Binary ranking metrics take the scores of the positive rows (label +1) and
 * of the negative rows (label −1) as two arrays sorted ascending
 * (gsu_sort_doubles).  A "threshold" t classifies a row as positive when its
 * score s ≥ t; rows with equal scores always fall on the same side of every
 * threshold, so ties are grouped: there is one operating point per distinct
 * score.
 */
#ifndef GSU_METRICS_H
#define GSU_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gsu_base.h"

/* ------------------------------------------------------------- sorting */

/*
 * Sorts x[0..n−1] ascending in place: introsort (median-of-three quicksort
 * with Hoare partitioning, heapsort past 2·log₂n levels, insertion sort for
 * short runs), O(n log n) worst case, no allocation.  NaN is not allowed.
 * progress (may be NULL) is called before partitioning every run of at
 * least 2¹⁶ elements; a non-zero return stops the sort with GSU_ECANCELLED
 * (x is then a permutation of its input, not sorted).
 */
gsu_status	gsu_sort_doubles(double *x, size_t n, gsu_progress_fn progress, void *arg);

/* ------------------------------------------------------ tie groups */

/*
 * Walks the distinct scores of pos ∪ neg in descending order.  After each
 * successful gsu_rank_next, tp and fp count the positive and negative rows
 * whose score is ≥ the current threshold.
 */
typedef struct gsu_rank_iter
{
	const double *pos;			/* ascending */
	const double *neg;			/* ascending */
	size_t		ip;				/* positives not yet visited: pos[0..ip−1] */
	size_t		in;				/* negatives not yet visited: neg[0..in−1] */
	int64_t		tp;
	int64_t		fp;
} gsu_rank_iter;

void		gsu_rank_begin(gsu_rank_iter *it, const double *pos, size_t n_pos,
						   const double *neg, size_t n_neg);

/*
 * Advances to the next lower distinct score: *threshold is that score,
 * *gp and *gn the positive and negative rows that have it.  Returns 0 when
 * every row has been visited.
 */
int			gsu_rank_next(gsu_rank_iter *it, double *threshold, int64_t *gp, int64_t *gn);

/* Number of distinct scores in pos ∪ neg. */
size_t		gsu_rank_count_groups(const double *pos, size_t n_pos,
								  const double *neg, size_t n_neg);

/*
 * Area under the ROC curve as the Mann–Whitney statistic
 *     AUC = (1/(P·N)) Σ_{i∈pos} Σ_{j∈neg} ([s_i > s_j] + ½[s_i = s_j]),
 * which equals the trapezoidal area under the ROC curve with tied scores
 * grouped (Hanley & McNeil, Radiology 1982; scikit-learn's roc_auc_score).
 * Computed over tie groups as 2U = Σ_groups g_n·(2·tp_above + g_p), exactly
 * in integers.  NaN when P = 0 or N = 0.
 */
double		gsu_roc_auc(const double *pos, size_t n_pos, const double *neg, size_t n_neg);

/*
 * Average precision as scikit-learn defines it (average_precision_score):
 *     AP = Σ_k (R_k − R_{k−1}) · P_k,
 * over the distinct thresholds in descending order, with R_0 = 0,
 * P_k = tp_k/(tp_k + fp_k), R_k = tp_k/P: a step function, not the
 * trapezoidal area.  NaN when P = 0; 1 when N = 0.
 */
double		gsu_average_precision(const double *pos, size_t n_pos,
								  const double *neg, size_t n_neg);

/* One operating point: the rows with score ≥ threshold are called positive. */
typedef struct gsu_curve_point
{
	double		threshold;
	int64_t		tp;
	int64_t		fp;
	double		fpr;			/* fp/N, NaN when N = 0 */
	double		tpr;			/* tp/P (= recall), NaN when P = 0 */
	double		precision;		/* tp/(tp + fp), always defined */
} gsu_curve_point;

/*
 * Fills out[0..g−1] with one point per distinct score, in descending
 * threshold order, and returns g (= gsu_rank_count_groups; out must hold
 * that many).  The last point has tp = P and fp = N.
 */
size_t		gsu_rank_curve(const double *pos, size_t n_pos, const double *neg, size_t n_neg,
						   gsu_curve_point *out);

/* ----------------------------------------------------------- log loss */

/* sklearn's default clipping for float64 probabilities: ε = 2⁻⁵² */
#define GSU_LOG_LOSS_EPS 2.220446049250313080847e-16

/*
 * Cross-entropy of one row: −log p̃ when positive, −log(1 − p̃) otherwise,
 * with p̃ = min(max(p, eps), 1 − eps).  p must be in [0, 1].
 */
double		gsu_log_loss_term(double p, int positive, double eps);

/* --------------------------------------------------- compensated sum */

/* Neumaier's improved Kahan–Babuška sum: value = s + c. */
typedef struct gsu_sum
{
	double		s;
	double		c;
} gsu_sum;

void		gsu_sum_add(gsu_sum *a, double x);
/* a ← a + b, for combining partial sums */
void		gsu_sum_merge(gsu_sum *a, const gsu_sum *b);
double		gsu_sum_value(const gsu_sum *a);

/* --------------------------------------------------- confusion matrix */

/* count rows had this (predicted, actual) pair */
typedef struct gsu_confusion_cell
{
	int32_t		predicted;
	int32_t		actual;
	int64_t		count;
} gsu_confusion_cell;

/* one-vs-rest statistics of one class */
typedef struct gsu_class_metrics
{
	int32_t		label;
	int64_t		tp;				/* predicted label, actual label */
	int64_t		fp;				/* predicted label, actual other */
	int64_t		fn;				/* predicted other, actual label */
	int64_t		tn;				/* predicted other, actual other */
	int64_t		support;		/* rows whose actual label is this one: tp + fn */
	double		precision;		/* tp/(tp + fp), NaN when never predicted */
	double		recall;			/* tp/(tp + fn), NaN when never actual */
	double		f1;				/* 2tp/(2tp + fp + fn), NaN when 0/0 */
} gsu_class_metrics;

typedef struct gsu_confusion_summary
{
	int64_t		n;				/* rows */
	int64_t		correct;		/* rows with predicted = actual */
	double		accuracy;		/* correct/n, NaN when n = 0 */
	double		mcc;			/* Matthews (Gorodkin's R_K for K classes); NaN when 0/0 */
	/* unweighted means over the classes where each is defined (NaN if none) */
	double		macro_precision;
	double		macro_recall;
	double		macro_f1;
	size_t		n_classes;		/* distinct labels, predicted or actual */
	/* binary: every label is −1 or +1; positive class +1 */
	int			binary;
	int64_t		tp;
	int64_t		fp;
	int64_t		tn;
	int64_t		fn;
	double		precision;
	double		recall;
	double		f1;
} gsu_confusion_summary;

/*
 * Per-class and overall statistics of a confusion matrix given as cells
 * (a pair may occur in several cells; their counts add).  classes must have
 * room for 2·ncells entries; it receives one entry per distinct label, in
 * ascending label order (s->n_classes of them).  GSU_EINVAL when a count is
 * not positive or the total overflows int64.  Allocation-free.
 */
gsu_status	gsu_confusion_summarize(const gsu_confusion_cell *cells, size_t ncells,
									gsu_class_metrics *classes, gsu_confusion_summary *s);

/*
 * MCC = (tp·tn − fp·fn) / √((tp+fp)(tp+fn)(tn+fp)(tn+fn))  (Matthews 1975);
 * NaN when a factor of the denominator is 0 (the numerator is then 0 too).
 */
double		gsu_mcc_binary(int64_t tp, int64_t fp, int64_t tn, int64_t fn);

/*
 * Gorodkin's K-class correlation coefficient (Comput. Biol. Chem. 2004), as
 * scikit-learn's matthews_corrcoef computes it from the class totals:
 *     MCC = (c·n − Σ_k p_k t_k) / √((n² − Σ_k p_k²)(n² − Σ_k t_k²)),
 * c correct rows, n rows, p_k / t_k rows predicted / actually of class k.
 * Equals gsu_mcc_binary for K = 2.  NaN when the denominator is 0.
 */
double		gsu_mcc_multiclass(size_t k, const int64_t *predicted_totals,
							   const int64_t *actual_totals, int64_t correct, int64_t n);

#endif							/* GSU_METRICS_H */
