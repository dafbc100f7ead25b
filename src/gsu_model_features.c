/*
 * gsu_model_features.c — the feature map a gsu.model carries (the option
 * "features" that chooses it is read with the other options, gsu_options.c),
 * applied when scoring: the mean is mapped to φ(x) (and scored,
 * gsu_model_decisions), and a
 * Gaussian input N(x, Σ) to the exact mean E φ(z) of its image and the
 * variances wᵀ Cov φ(z) w of the model's weight vectors
 * (src/core/gsu_featmap_moments.c), summed pair by pair without the D × D
 * matrix.
 */
#include "gsu_model_features.h"

#include <math.h>

#include "miscadmin.h"

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
	phi = palloc(sizeof(double) * ((Size) m->dim + gsu_featmap_apply_work_size(&f)));
	work = phi + m->dim;
	gsu_featmap_apply(&f, x, phi, work);
	return phi;
}

void
gsu_model_decisions(const GsuModel *m, const double *x, int n, double *out)
{
	int			k,
				nvec = GSU_MODEL_NVEC(m);

	if (n != m->input_dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d",
						n, m->input_dim)));
	/* the linear model sees φ(x) when there is a feature map */
	x = gsu_model_map_mean(m, x);
	for (k = 0; k < nvec; k++)
	{
		out[k] = gsu_decision(m->dim, GSU_MODEL_THETA(m, k), x);
		if (unlikely(!isfinite(out[k])))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("decision value is out of range for type double precision")));
	}
}

void
gsu_model_map_quad(const GsuModel *m, const double *x, const GsuRowCov *rc,
				   double **mean, double *quad)
{
	gsu_featmap f;
	int			nw = GSU_MODEL_NVEC(m),
				outer,
				step,
				j,
				k;
	const double **w = palloc(sizeof(double *) * nw);
	double	   *work;
	gsu_status	s;

	Assert(m->map_kind != GSU_MAP_NONE);
	gsu_model_featmap(m, &f);
	for (k = 0; k < nw; k++)
		w[k] = GSU_MODEL_THETA(m, k);
	*mean = palloc(sizeof(double) * (Size) m->dim);
	work = palloc_extended(sizeof(double) * gsu_featmap_quad_work_size(&f, nw, rc->kind == GSU_COV_FULL), MCXT_ALLOC_HUGE);
	s = gsu_featmap_quad_prepare(&f, x, rc, nw, w, *mean, quad, work);
	gsu_report_data_status(s, "the feature map of a Gaussian input",
						   "the covariance could not be mapped to feature space");
	/* O(outer²) pairs: blocks of about a million, with a cancel point between them */
	outer = gsu_featmap_quad_outer(&f);
	step = Max(1, (1 << 20) / Max(outer, 1));
	for (j = 0; j < outer; j += step)
	{
		CHECK_FOR_INTERRUPTS();
		gsu_featmap_quad_block(&f, rc, nw, w, j, Min(outer, j + step), quad, work);
	}
	pfree(work);
	pfree(w);
}
