/*
 * gsu_train_features.c — the rows of gsu.train in feature space (option
 * "features"): the map built for the buffered rows (RFF frequencies,
 * Nyström landmarks and projection, or poly2, which has no block), and the
 * mapped rows with what each loss needs of them: φ(x_i), the exact
 * feature-space moments, or a per-row bound of the robust loss (an exact
 * box, or Couellan & Jan's Γ_i, with their Prop. 5.1's NOTICE).  Called by
 * gsu_train_solve.c's train_mapped.
 */
#include "gsu_train.h"
#include "gsu_progress.h"
#include "core/gsu_featmap.h"
#include "core/gsu_robust.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * The map of option "features" for the buffered rows: RFF frequencies from
 * the seed, or Nyström landmarks drawn from the rows' means and the
 * projection of their kernel matrix.  Returns the map's matrix block
 * (gsu_featmap_length doubles, *len) and sets *dim to the mapped dimension.
 */
double *
gsu_train_feature_map(const GsuTrainState *st, int *dim, int64 *len)
{
	const GsuTrainOptions *o = &st->opt;
	double	   *block;
	gsu_status	s;

	if (o->map_kind == GSU_MAP_POLY2)
	{
		/* no block: φ(x) is the products x_i x_j themselves */
		*dim = (int) gsu_poly2_dim(st->dim);
		*len = 0;
		return palloc(sizeof(double));
	}
	if (o->map_kind == GSU_MAP_RFF)
	{
		*dim = o->map_dim;
		*len = gsu_featmap_length(GSU_MAP_RFF, o->map_dim, st->dim, 0);
		if (*len < 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("feature map \"rff\" with %d features of dimension %d is too large",
							o->map_dim, st->dim)));
		block = palloc_extended(sizeof(double) * (Size) Max(*len, 1), MCXT_ALLOC_HUGE);
		s = gsu_rff_build(st->dim, o->map_dim, o->map_sigma, o->map_seed, block);
		gsu_report_status(s, "the random Fourier feature map");
		return block;
	}
	else
	{
		int			m = o->map_landmarks,
					r = 0;
		gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);

		if ((int64) m > st->n)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" asks for %d landmarks, but there are only "
							INT64_FORMAT " training rows", m, st->n),
					 errhint("Lower \"landmarks\" to at most the number of rows.")));
		if (gsu_featmap_length(GSU_MAP_NYSTROEM, m, st->dim, m) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("feature map \"nystroem\" with %d landmarks of dimension %d is too large",
							m, st->dim)));
		block = palloc_extended(sizeof(double) * ((Size) m * st->dim + (Size) m * m),
								MCXT_ALLOC_HUGE);
		s = gsu_nystroem_build(st->n, st->dim, st->x, m, o->map_sigma, o->map_seed,
							   block, block + (Size) m * st->dim, &r, &pg);
		if (s != GSU_OK)
			gsu_report_data_status(s, "the Nystroem feature map",
								   psprintf("the Nystroem kernel matrix of %d landmarks could not be decomposed", m));
		*dim = r;
		*len = gsu_featmap_length(GSU_MAP_NYSTROEM, r, st->dim, m);
		return block;
	}
}

/*
 * poly2's products x_i x_j (and their moments, up to Σ²) overflow for rows
 * near 1e154: refuse the row rather than let the solver diverge on it.
 */
static void
check_poly2_row(int64 i, const double *x, const double *v, Size nv, int D)
{
	for (int j = 0; j < D; j++)
		if (!isfinite(x[j]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("feature map \"poly2\" of training row " INT64_FORMAT " is out of range for type double precision",
							i + 1),
					 errdetail("Feature %d, a product x_i x_j of the row's mean (and variance), overflows.", j + 1),
					 errhint("Rescale the features.")));
	for (Size j = 0; j < nv; j++)
		if (!isfinite(v[j]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the feature-space covariance of training row " INT64_FORMAT " is out of range for type double precision",
							i + 1),
					 errdetail("The moments of the products x_i x_j grow with the square of the variances."),
					 errhint("Rescale the features.")));
}

/*
 * Couellan & Jan's Prop. 5.1 for their RFF bound: the phases ω_jᵀδ stay
 * below θ_max (w.h.p.) when σ ≥ 3γ‖Σ^{1/2}‖_F/θ_max; below it, at θ_max = 1
 * radian, their |cos θ − 1| ≤ θ²/2 and |sin θ| ≤ |θ| loosen.  A NOTICE
 * with the largest ‖Σ_i^{1/2}‖_F² = tr Σ_i of the rows (max_trace).
 */
static void
notice_prop51(double sigma, double gamma, double max_trace)
{
	double		need = 3.0 * gamma * sqrt(max_trace);

	if (sigma < need)
		ereport(NOTICE,
				(errmsg("feature map \"sigma\" %g is below %g, the rule of Couellan & Jan's Prop. 5.1 for their bound",
						sigma, need),
				 errdetail("The rule is sigma >= 3 gamma ||Sigma^1/2||_F / theta_max with theta_max = 1 radian "
						   "and the largest ||Sigma_i^1/2||_F of the rows; below it a row's phases may pass "
						   "1 radian, where the paper's bounds on cos and sin loosen."),
				 errhint("Use a larger \"sigma\" or a smaller \"gamma\"; feature_bound \"worst_case\" is exact at any sigma.")));
}

/*
 * The training rows in feature space, written to *xo (n × D) and, for the
 * GSU, tsvc and robust losses, *vo: the exact moments E φ(z_i) and diag Cov φ(z_i) (n × D) of
 * z_i ~ N(x_i, Σ_i) (gsu_featmap_moments), or with "covariance": "full" the
 * whole Cov φ(z_i) (n × D × D); the hinge loss ignores Σ and takes φ(x_i).  NOTICEs when σ is below the rows' uncertainty radius.
 */
void
gsu_train_map_rows(const GsuTrainState *st, const gsu_featmap *f, double **xo, double **vo)
{
	int			D = f->dim;
	/*
	 * tsvc and robust take the same feature-space moments: the robust loss
	 * then bounds w'φ(z) over the ellipsoid of Cov φ(z) (with the Chebyshev
	 * confidence, a distribution-free chance constraint in feature space),
	 * and tsvc's radius comes from the feature variances
	 */
	bool		worst = st->opt.feature_bound != GSU_FEATURE_BOUND_MOMENTS;
	bool		cj = st->opt.feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN;
	bool		moments = !worst && gsu_loss_info(st->opt.loss)->uses_covariance && st->level != GSU_COV_NONE;
	bool		full = moments && st->opt.map_full_cov;
	Size		boxlen = worst ? gsu_featmap_bound_len(f, cj) : 0;
	double	   *work = palloc(sizeof(double) * Max(1, full ? gsu_featmap_cov_work_size(f) :
												  moments ? gsu_featmap_work_size(f) :
												  gsu_featmap_apply_work_size(f)));
	double	   *bwork = worst ? palloc(sizeof(double) * gsu_featmap_bound_work_size(f, cj)) : NULL;
	int64		wide = 0;
	double		widest = 0.0,
				max_trace = 0.0;	/* couellan_jan with RFF: for Prop. 5.1's rule */
	int64		i;
	/* one Nyström row's moments may take seconds: they check for a cancel inside */
	gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);

	/* sizes checked by check_training_memory before the map was built */
	if (worst && st->level == GSU_COV_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"robust\" needs variances, but every row's variance is NULL or zero"),
				 errhint("Without uncertainty the loss is the hinge loss: use '{\"loss\": \"hinge\"}'.")));
	*xo = gsu_rows_alloc(st->n, D);
	*vo = moments ? gsu_rows_alloc(st->n, full ? (Size) D * D : (Size) D) :
		worst ? gsu_rows_alloc(st->n, boxlen) : NULL;
	for (i = 0; i < st->n; i++)
	{
		const double *x = st->x + i * st->dim;

		CHECK_FOR_INTERRUPTS();	/* a Nystroem row's moments take O(m^2 p) */
		if (!moments)
		{
			gsu_featmap_apply(f, x, *xo + i * D, work);
			if (f->kind == GSU_MAP_POLY2 && !worst)
				check_poly2_row(i, *xo + i * D, NULL, 0, D);
		}
		if (worst || moments)
		{
			GsuRowCov	rc = gsu_rows_cov(st, i);
			double		rho;
			gsu_status	s;

			if (cj)
				/* Couellan & Jan's Γ_i (Props. 4.1, 4.2); p is the dual of the loss's q */
				s = gsu_cj_row_gamma(f, x, &rc, st->opt.gamma,
									 gsu_dual_exponent(st->opt.robust_q), st->opt.feature_pbar,
									 *vo + i, bwork);
			else if (worst)
				/* p of the input set is the dual of the loss's q */
				s = gsu_featmap_row_box(f, x, &rc, st->opt.gamma,
										gsu_dual_exponent(st->opt.robust_q), *vo + i * boxlen,
										bwork);
			else if (full)
				s = gsu_featmap_covariance(f, x, &rc, *xo + i * D, *vo + i * D * D, work, &pg);
			else
				s = gsu_featmap_moments(f, x, &rc, *xo + i * D, *vo + i * D, work, &pg);
			if (cj && s == GSU_ENOTFINITE)
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("Couellan & Jan's bound of training row " INT64_FORMAT " is not finite", i + 1),
						 errdetail("Prop. 4.2's radius grows as exp(2 gamma ||Sigma^1/2 (x - z)|| / sigma^2): "
								   "the row's uncertainty set is far wider than the kernel width %g.", f->sigma),
						 errhint("Use a larger \"sigma\" or a smaller \"gamma\", or feature_bound \"worst_case\".")));
			gsu_train_report_status(s);
			if (f->kind == GSU_MAP_POLY2)
				check_poly2_row(i, *xo + i * D, moments ? *vo + i * (full ? (Size) D * D : (Size) D) : NULL,
								moments ? (full ? (Size) D * D : (Size) D) : 0, D);
			if (cj)
				max_trace = Max(max_trace, gsu_cov_trace(st->dim, &rc));
			/* one standard deviation along Σ_i's widest axis */
			rho = gsu_uncertainty_radius(st->dim, &rc, 1.0, 2);
			/* poly2 has no kernel width: its moments are exact at any scale */
			if (f->kind != GSU_MAP_POLY2 && rho > f->sigma)
			{
				wide++;
				widest = Max(widest, rho);
			}
		}
	}
	pfree(work);
	if (bwork)
		pfree(bwork);
	if (cj && f->kind == GSU_MAP_RFF)
		notice_prop51(f->sigma, st->opt.gamma, max_trace);
	if (wide > 0)
		ereport(NOTICE,
				(errmsg("feature map \"sigma\" %g is below the input standard deviation of "
						INT64_FORMAT " of " INT64_FORMAT " rows (largest %g)",
						f->sigma, wide, st->n, widest),
				 errdetail("Where the input uncertainty reaches the kernel width, the mapped "
						   "features of a row average out towards zero and the feature-space "
						   "uncertainty bounds are no longer tight (Couellan & Jan, Sect. 5)."),
				 errhint("Use a larger \"sigma\", or rescale the features.")));
}
