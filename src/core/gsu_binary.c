/*
 * gsu_binary.c — one binary problem for any loss (see gsu_binary.h).
 */
#include "gsu_binary.h"
#include "gsu_dcd.h"
#include "gsu_robust.h"
#include "gsu_span.h"

#include <stdlib.h>
#include <string.h>

/* the rows of the robust core, without their shapes */
static void
robust_rows(const gsu_binary_problem *p, gsu_robust_data *rd)
{
	memset(rd, 0, sizeof(*rd));
	rd->n = p->ds->n;
	rd->d = p->ds->d;
	rd->x = p->ds->x;
	rd->y = p->ds->y;
	rd->weight = p->ds->weight;
	rd->gamma = p->gamma;
	rd->q = p->q;
}

/* PSVM: TSVC's alternating algorithm on the given radii, no norm bound */
static gsu_status
train_psvm(const gsu_binary_problem *p, const gsu_solve_options *o, double *theta,
		   gsu_solve_result *res)
{
	gsu_robust_data rd;
	double	   *radius = malloc(sizeof(double) * (size_t) (p->ds->n > 0 ? p->ds->n : 1));
	gsu_status	s;

	if (radius == NULL)
		return GSU_ENOMEM;
	s = gsu_psvm_radii(p->ds->n, p->ds->cov_kind, p->ds->cov, radius);
	if (s == GSU_OK)
	{
		robust_rows(p, &rd);
		rd.gamma = 0.0;
		rd.loss = GSU_RLOSS_TSVC;
		rd.delta = radius;
		s = gsu_tsvc_solve_alternating(&rd, o, theta, res);
	}
	free(radius);
	return s;
}

/* TSVC and the robust loss, their shapes from the rows' covariances */
static gsu_status
train_shapes(const gsu_binary_problem *p, const gsu_solve_options *o, double *theta,
			 gsu_solve_result *res)
{
	const gsu_dataset *ds = p->ds;
	int			tsvc = p->loss == GSU_LOSS_TSVC;
	size_t		per = tsvc ? 1 : gsu_cov_doubles(ds->cov_kind, ds->d, ds->cov_rank);
	gsu_progress pg = gsu_progress_make(o->progress, o->progress_arg);
	gsu_robust_data rd;
	double	   *buf;
	gsu_status	s;

	if (ds->cov_kind == GSU_COV_NONE)
		return GSU_EINVAL;
	buf = malloc(sizeof(double) * (size_t) ds->n * per);
	if (buf == NULL)
		return GSU_ENOMEM;
	s = gsu_robust_row_shapes(ds->n, ds->d, ds->cov_kind, ds->cov, tsvc, p->delta_scale,
							  buf, &pg);
	if (s == GSU_OK)
	{
		robust_rows(p, &rd);
		rd.loss = tsvc ? GSU_RLOSS_TSVC : GSU_RLOSS_ROBUST;
		if (tsvc)
			rd.delta = buf;
		else if (ds->cov_kind == GSU_COV_FULL)
			rd.a_full = buf;
		else if (ds->cov_kind == GSU_COV_DIAG)
			rd.a_diag = buf;
		else
			rd.a_iso = buf;
		if (tsvc && p->tsvc_alternating)
			s = gsu_tsvc_solve_alternating(&rd, o, theta, res);
		else if (p->solver == GSU_SOLVER_PEGASOS)
			s = gsu_robust_solve_pegasos(&rd, o, theta, res);
		else
			s = gsu_robust_solve_batch(&rd, o, theta, res);
		if (s == GSU_OK && tsvc && res->degenerate == GSU_DEGENERATE_ZERO)
		{
			int64_t		i;

			for (i = 0; i < rd.n; i++)
				if (rd.gamma * rd.delta[i] >= 1.0)
					res->free_rows++;
		}
	}
	free(buf);
	return s;
}

gsu_status
gsu_train_binary(const gsu_binary_problem *p, const gsu_solve_options *o, double *theta,
				 gsu_solve_result *res)
{
	const gsu_loss_kind_info *li = gsu_loss_info(p->loss);

	memset(res, 0, sizeof(*res));
	if (li == NULL || li->regression)
		return GSU_EINVAL;		/* a regression loss: gsu_solve_svr, gsu_solve_ridge */
	if (!li->robust)
	{
		gsu_dataset ds = *p->ds;

		if (!li->uses_covariance)
		{
			ds.cov_kind = GSU_COV_NONE;
			ds.cov = NULL;
		}
		if (p->solver == GSU_SOLVER_PEGASOS)
			return gsu_solve_pegasos(&ds, o, theta, res);
		/* the hinge loss of certain rows: dual coordinate descent */
		if (p->solver == GSU_SOLVER_DCD && ds.cov_kind == GSU_COV_NONE)
			return gsu_solve_dcd(&ds, o, theta, res);
		/* full covariances of low rank in many dimensions: in their span */
		return gsu_solve_newton_span(&ds, o, theta, res);
	}
	if (p->worst_case)
	{
		gsu_robust_data rd;

		robust_rows(p, &rd);
		rd.loss = GSU_RLOSS_ROBUST;
		rd.row_term = gsu_featmap_row_term;
		rd.row_term_arg = p->worst_case;
		return gsu_robust_solve_pegasos(&rd, o, theta, res);
	}
	if (li->radius)
		return train_psvm(p, o, theta, res);
	return train_shapes(p, o, theta, res);
}
