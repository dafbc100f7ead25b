/*
 * gsu_featmap_poly2.h — the exact map of the quadratic kernel (x'z)^2
 * (gsu_featmap_poly2.c): its dimension and the parts the generic functions
 * of gsu_featmap.h dispatch to.  On gsu_featmap_type.h only, so that the
 * generic files may call it and it calls none of them.
 */
#ifndef GSU_FEATMAP_POLY2_H
#define GSU_FEATMAP_POLY2_H

#include "gsu_cov.h"
#include "gsu_featmap_type.h"

/* poly2: the mapped dimension p(p+1)/2 (−1 for p < 1). */
int64_t		gsu_poly2_dim(int p);


/*
 * The poly2 map's parts, which the generic functions above dispatch to
 * (declared for the tests).  gsu_poly2_covariance needs no work;
 * gsu_poly2_quad_*: gsu_poly2_quad_work_size doubles, outer = p (the rows of
 * WΣ); gsu_poly2_row_box: q the dual exponent (1, 2 or 0 = ∞), tau p doubles.
 */
void		gsu_poly2_apply(const gsu_featmap *f, const double *x, double *phi);
void		gsu_poly2_moments(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
							  double *mean, double *var_out);
gsu_status	gsu_poly2_covariance(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
								 double *mean, double *C, gsu_progress *pg);
size_t		gsu_poly2_quad_work_size(const gsu_featmap *f);
void		gsu_poly2_quad_prepare(const gsu_featmap *f, const double *mu, const gsu_cov *incov,
								   int nw, const double *const *w, double *mean, double *quad,
								   double *work);
void		gsu_poly2_quad_block(const gsu_featmap *f, const gsu_cov *incov, int nw,
								 const double *const *w, int j0, int j1, double *quad,
								 double *work);
size_t		gsu_poly2_box_work_size(const gsu_featmap *f);
gsu_status	gsu_poly2_row_box(const gsu_featmap *f, const double *x, const gsu_cov *incov,
							  double gamma, int q, double *lo, double *hi, double *tau);
double		gsu_poly2_box_worst(const gsu_featmap *f, const double *lo, const double *hi,
								const double *w, double y, double scale, double *grad);

/*
 * Γ_i of the symmetric relaxation for poly2: A_i = diag(β), D × D,
 * β_a = max(|lo_a|, |hi_a|), so ‖A_i w‖_1 = Σ_a β_a |w_a| ≥ ρ(w).
 */
void		gsu_poly2_bound_matrix(const gsu_featmap *f, const double *lo, const double *hi,
								   double *A);

#endif							/* GSU_FEATMAP_POLY2_H */
