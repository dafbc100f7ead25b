/*
 * gsu_featmap_rows.c — a training row's robust term on mapped features, for
 * the core's robust solver: its length and scratch, and the term itself,
 * dispatched to the exact boxes (gsu_featmap_bounds.c, and poly2's) or to
 * Couellan & Jan's own bound (gsu_featmap_cj.c).
 */
#include "gsu_featmap.h"

size_t
gsu_featmap_bound_len(const gsu_featmap *f, int cj)
{
	return cj ? 1 : gsu_featmap_box_len(f);
}

size_t
gsu_featmap_bound_work_size(const gsu_featmap *f, int cj)
{
	return cj ? gsu_cj_work_size(f) : gsu_featmap_box_work_size(f);
}

double
gsu_featmap_row_term(const void *arg, int64_t i, const double *w, double y,
					 double scale, double *grad)
{
	const gsu_featmap_rows *r = (const gsu_featmap_rows *) arg;
	const gsu_featmap *f = r->f;
	size_t		half = gsu_featmap_box_len(f) / 2;
	const double *lo = r->box + (size_t) i * 2 * half;

	if (r->cj)
		/* Couellan & Jan's Γ_i, one a row (gsu_featmap_cj.c); the term is symmetric in y */
		return gsu_cj_row_worst(f, r->x + (size_t) i * f->p, r->box[i], r->pbar, w, scale,
								grad, r->work);

	if (f->kind == GSU_MAP_RFF)
		return gsu_rff_box_worst(f, r->x + (size_t) i * f->p, lo, lo + half, w, y, scale,
								 grad, r->work);
	if (f->kind == GSU_MAP_POLY2)
		return gsu_poly2_box_worst(f, lo, lo + half, w, y, scale, grad);
	return gsu_nystroem_box_worst(f, lo, lo + half, w, y, scale, grad, r->work);
}
