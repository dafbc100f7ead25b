/*
 * gsu_span.h — the Gaussian loss with full covariances of low rank in many
 * dimensions, solved in the span where its optimum lies (gsu_span.c).
 */
#ifndef GSU_SPAN_H
#define GSU_SPAN_H

#include "gsu_solve.h"

/* below this dimension the rows are always solved as given */
#define GSU_SPAN_MIN_DIM 64

/*
 * The rows restricted to S = span{x_i} + Σ_i range(Σ_i), k = dim S ≤ d/2:
 * an orthonormal basis Q (d × k, as LAPACK's Householder reflectors) and the
 * rows (Qᵀx_i, QᵀΣ_iQ) as a data set of dimension k with the same labels
 * and weights (factor rows: (Qᵀx_i, QᵀL_i)).
 */
typedef struct gsu_span
{
	int			d;				/* the rows' dimension */
	int			k;				/* dim S */
	double	   *qr;				/* d × k reflectors (dgeqrf, column-major) */
	double	   *tau;			/* k */
	double	   *work;			/* d */
	double	   *x;				/* n × k */
	double	   *cov;			/* n × k × k (factors: n × k × r) */
	gsu_dataset ds;				/* the reduced rows */
} gsu_span;

/*
 * Builds sp when d ≥ GSU_SPAN_MIN_DIM and either ds has full covariances and
 * dim S ≤ d/2, or it has factors Σ_i = L_iL_iᵀ of r columns and n(1 + r) ≤
 * d/2 (*reduced = 1; free with gsu_span_free); otherwise *reduced = 0 and sp
 * holds nothing.  For full covariances range(Σ_i) comes from a pivoted
 * Cholesky factorization with LAPACK's default tolerance (d·ε·max Σ_jj), so
 * QᵀΣ_iQ is exact up to that rounding, and the reduced rows are full k × k
 * covariances; for factors S is spanned by the x_i and the columns of the
 * L_i exactly (k = n(1 + r), dependent columns included), and the reduced
 * rows are factors QᵀL_i of k × r.  A cost of about one pass over the
 * covariances; GSU_ECANCELLED when pg's callback asks to stop.
 */
gsu_status	gsu_span_reduce(const gsu_dataset *ds, gsu_progress *pg, gsu_span *sp,
							int *reduced);
void		gsu_span_free(gsu_span *sp);

/*
 * The doubles gsu_span_reduce allocates at most for n rows of dimension d
 * with full covariances (rank = d) or factors of rank columns (1 ≤ rank <
 * d), 0 where it never reduces them, for gsu.max_training_memory's count
 */
double		gsu_span_doubles(int64_t n, int d, int rank);

/* w = Qv (v: k doubles, w: d) */
void		gsu_span_to_rows(gsu_span *sp, const double *v, double *w);

/*
 * v = Qᵀw (k doubles); returns ‖w − QQᵀw‖, the part of w outside S
 */
double		gsu_span_from_rows(gsu_span *sp, const double *w, double *v);

/*
 * gsu_solve_newton, in S when gsu_span_reduce reduces ds, on ds itself
 * otherwise.  The solution in S is checked on ds: when the gradient's part
 * outside S exceeds the tolerance (the rank was misjudged), Newton goes on
 * from it on ds itself.  res->passes counts the passes over the reduced
 * rows and the three over ds (the reduction and the check).
 */
gsu_status	gsu_solve_newton_span(const gsu_dataset *ds, const gsu_solve_options *o,
								  double *theta, gsu_solve_result *res);

#endif							/* GSU_SPAN_H */
