/*
 * gsu_features.c — the feature map a gsu.model carries (option "features"
 * of gsu.train), applied when scoring: the mean is mapped to φ(x), and a
 * Gaussian input N(x, Σ) to the exact moments E φ(z), Cov φ(z) of its
 * image (src/core/gsu_featmap.c), which the linear scoring functions then
 * take as a mean and a full covariance in feature space.
 */
#include "gsu_pg.h"

void
gsu_model_featmap(const GsuModel *m, gsu_featmap *f)
{
	gsu_featmap_bind(f, m->map_kind, m->input_dim, m->dim, m->map_landmarks,
					 m->map_sigma, GSU_MODEL_MAP(m));
}

const double *
gsu_model_map_mean(const GsuModel *m, const double *x)
{
	gsu_featmap f;
	double	   *phi,
			   *work;

	if (m->map_kind == GSU_MAP_NONE)
		return x;
	gsu_model_featmap(m, &f);
	phi = palloc(sizeof(double) * ((Size) m->dim + gsu_featmap_work_size(&f)));
	work = phi + m->dim;
	gsu_featmap_apply(&f, x, phi, work);
	return phi;
}

void
gsu_model_map_gaussian(const GsuModel *m, const double *x, const GsuRowCov *rc,
					   double **mean, double **cov)
{
	gsu_featmap f;
	double	   *work;
	gsu_progress pg = gsu_progress_make(gsu_interrupt_pending, NULL);
	gsu_status	s;

	Assert(m->map_kind != GSU_MAP_NONE);
	gsu_model_featmap(m, &f);
	*mean = palloc(sizeof(double) * ((Size) m->dim + (Size) m->dim * m->dim +
									 gsu_featmap_cov_work_size(&f)));
	*cov = *mean + m->dim;
	work = *cov + (Size) m->dim * m->dim;
	s = gsu_featmap_covariance(&f, x,
							   rc->kind == GSU_COV_DIAG ? rc->data : NULL,
							   rc->kind == GSU_COV_ISO ? rc->iso : 0.0,
							   rc->kind == GSU_COV_FULL ? rc->data : NULL,
							   *mean, *cov, work, &pg);
	if (s == GSU_ECANCELLED)
		gsu_report_status(s, "feature mapping");
	if (s == GSU_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while mapping a Gaussian input")));
	if (s != GSU_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the covariance could not be mapped to feature space: %s",
						gsu_status_string(s))));
}
