/*
 * gsu_fit_lbfgs.c — gsu.fit's solver lbfgs: the core's smoothing
 * continuation (core/gsu_continuation.h) in reverse communication, each
 * point it asks for evaluated by one pass of gsu.gradient over the relation
 * (gsu_fit_pass.c).
 *
 * The derivation: src/README, section gsu_fit.c.
 */
#include "gsu_fit_lbfgs.h"
#include "gsu_progress.h"

#include <math.h>

#include "core/gsu_continuation.h"
#include "core/gsu_scan_newton.h"

/*
 * F = λ/2‖w‖² + (1/W)Σ c_i L_i and ∇F = (λw, 0) + (1/W)Σ c_i ∇L_i from a
 * partial (unweighted: c_i = 1, W = n)
 */
static double
objective_from(const FitPass *fp, const GsuPartial *p, const double *theta, double *g)
{
	int			j;

	for (j = 0; j <= fp->dim; j++)
		g[j] = p->vec[j] / fp->wsum + fp->opt.lambda * ((theta && j < fp->dim) ? theta[j] : 0.0);
	return gsu_objective_from_sums(fp->dim, theta, fp->opt.lambda, p->loss_sum, fp->wsum);
}

/* a pass at θ that must find rows */
static double
evaluate(FitPass *fp, const double *theta, double mu, double *g)
{
	GsuPartial *p = gsu_fit_run_pass(fp, theta, mu);
	double		f;

	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the relation has no training rows any more: they were deleted while gsu.fit ran"),
				 errhint("gsu.fit reads the relation once per pass; in a REPEATABLE READ transaction every pass sees the same rows.")));
	f = objective_from(fp, p, theta, g);
	pfree(p);
	return f;
}

static double
norm(int n, const double *v)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

/* F and ∇F are finite */
static bool
finite_point(const FitPass *fp, double f, const double *g)
{
	int			j;

	if (!isfinite(f))
		return false;
	for (j = 0; j <= fp->dim; j++)
		if (!isfinite(g[j]))
			return false;
	return true;
}

/*
 * The continuation of the core (core/gsu_continuation.h): one pass per
 * evaluation it asks for, until it is done or the passes run out.  c is
 * initialized; the caller frees it on error.
 */
static void
fit_stages(FitPass *fp, gsu_continuation *c, double *g, bool warm)
{
	bool		at_start = true;

	for (;;)
	{
		double		f;
		int			a;
		gsu_status	s;

		if (fp->passes >= fp->opt.max_iterations)
		{
			gsu_continuation_stop(c);
			break;
		}
		f = evaluate(fp, c->x, c->mu, g);
		if (!finite_point(fp, f, g))
			gsu_fit_not_finite(at_start && warm);
		at_start = false;
		a = gsu_continuation_tell(c, f, g, fp->min_dsigma, &s);
		gsu_report_status(s, "gsu.fit");
		if (a & GSU_CONT_ACCEPTED)
			gsu_trace_pass(fp->trace, fp->passes, c->step_f, c->gnorm, GSU_TRACE_NONE);
		if (a & GSU_CONT_DONE)
			break;
	}
}

/* see gsu_fit_lbfgs.h */
void
gsu_fit_lbfgs(FitPass *fp, GsuModel *init, GsuModel *m_out_fields, double **theta_out,
			  bool *empty)
{
	double	   *theta,
			   *g,
				gnorm0;
	gsu_continuation c;
	GsuModel   *m = m_out_fields;

	/* the first pass, at θ = 0, gives the dimension and the scale of the stopping rule */
	*empty = false;
	{
		GsuPartial *p0 = gsu_fit_run_pass(fp, NULL, fp->opt.smoothing);

		if (p0 == NULL)
		{
			*empty = true;
			return;
		}
		g = palloc(sizeof(double) * (fp->dim + 1));
		/*
		 * Without a model the pass has no subspace: in mode gaussian the
		 * projected means change the gradient at θ = 0, so it is taken
		 * again, at the zero model with the options (in mode covariance
		 * d_Σ = 0 at θ = 0 and the restriction changes nothing).
		 */
		if (fp->opt.subspace_fraction < 1.0 && fp->opt.subspace_mode == GSU_SUBSPACE_GAUSSIAN &&
			gsu_loss_info(fp->opt.loss)->uses_covariance)
		{
			double	   *zero = palloc0(sizeof(double) * (fp->dim + 1));

			pfree(p0);
			p0 = gsu_fit_run_pass(fp, zero, fp->opt.smoothing);
			if (p0 == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the relation has no training rows any more: they were deleted while gsu.fit ran")));
			pfree(zero);
		}
		(void) objective_from(fp, p0, NULL, g);
		pfree(p0);
	}
	gsu_check_two_classes(fp->n, fp->n_pos, "training");
	gnorm0 = norm(fp->dim + 1, g);
	if (gnorm0 == 0.0)
		gnorm0 = 1.0;
	theta = palloc0(sizeof(double) * (fp->dim + 1));
	if (init)
		memcpy(theta, GSU_MODEL_THETA(init, 0), sizeof(double) * (fp->dim + 1));

	gsu_report_status(gsu_continuation_init(&c, fp->dim + 1, theta, fp->opt.smoothing,
											 fp->opt.tolerance, gnorm0, init != NULL,
											 gsu_loss_info(fp->opt.loss)->uses_covariance),
					  "gsu.fit");
	PG_TRY();
	{
		fit_stages(fp, &c, g, init != NULL);
	}
	PG_FINALLY();
	{
		gsu_continuation_free(&c);
	}
	PG_END_TRY();
	if (c.gnorm <= fp->opt.tolerance * gnorm0)
		m->flags |= GSU_MODEL_CONVERGED;

	/* the true objective (μ = 0) at the result */
	m->objective = c.f_is_true ? c.f : evaluate(fp, theta, 0.0, g);
	m->iterations = c.accepted;
	m->gradient_norm = c.gnorm;
	m->gap_estimate = gsu_gap_bound(c.gnorm, fp->opt.lambda, c.mu, m->objective);
	*theta_out = theta;
}
