/*
 * gsu_continuation.c — the smoothing continuation of gsu.fit around the
 * L-BFGS method (see gsu_continuation.h).
 */
#include "gsu_continuation.h"
#include "gsu_solve.h"

#include <math.h>
#include <string.h>

#define TWO_SQRT_PI 3.5449077018110320546

static double
norm2(int n, const double *v)
{
	double		s = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

/* a new stage at c->mu, from c->theta */
static gsu_status
start_stage(gsu_continuation *c)
{
	gsu_status	s;

	c->final_stage = c->mu <= c->smoothing;
	c->rel_tol = c->final_stage ? c->tolerance : fmax(c->tolerance, 1e-5);
	s = gsu_lbfgs_init(&c->L, c->n, 10, c->theta);
	c->x = c->L.x;
	return s;
}

gsu_status
gsu_continuation_init(gsu_continuation *c, int n, double *theta, double smoothing,
					  double tolerance, double gnorm0, int warm, int uses_covariance)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->theta = theta;
	c->smoothing = smoothing;
	c->tolerance = tolerance;
	c->gnorm0 = gnorm0;
	c->gnorm = gnorm0;
	c->uses_covariance = uses_covariance;
	/* a warm start is already near the optimum: no continuation */
	c->mu = (warm || smoothing >= 1.0) ? smoothing : 1.0;
	return start_stage(c);
}

/* the bookkeeping of a stage's end */
static void
end_stage(gsu_continuation *c)
{
	if (c->L.started)
	{
		c->f = c->L.fc;
		c->f_is_true = c->mu == 0.0;
	}
	gsu_lbfgs_free(&c->L);
	c->x = NULL;
}

int
gsu_continuation_tell(gsu_continuation *c, double f, const double *g, double min_dsigma,
					  gsu_status *status)
{
	int			first = !c->L.started,
				out = 0;
	gsu_lbfgs_action a = gsu_lbfgs_tell(&c->L, f, g);

	*status = GSU_OK;
	if (a == GSU_LBFGS_ACCEPTED)
	{
		if (!first)
			c->accepted++;		/* the stage's starting point is no step */
		c->gnorm = norm2(c->n, c->L.gc);
		memcpy(c->theta, c->L.xc, sizeof(double) * (size_t) c->n);
		c->step_f = c->L.fc;
		c->step_mu = c->mu;
		out |= GSU_CONT_ACCEPTED;
		if (c->gnorm > c->rel_tol * c->gnorm0)
			return out;
	}
	else if (a != GSU_LBFGS_STUCK)
		return out;

	/* the stage ended */
	end_stage(c);
	if (c->final_stage)
	{
		/* finish on the unsmoothed objective when it is smooth near θ */
		if (!gsu_finish_unsmoothed(c->mu, c->uses_covariance, min_dsigma))
			return out | GSU_CONT_DONE;
		c->mu = 0.0;
	}
	else
		c->mu = gsu_next_smoothing(c->mu, c->smoothing);
	*status = start_stage(c);
	if (*status != GSU_OK)
		out |= GSU_CONT_DONE;
	return out;
}

void
gsu_continuation_stop(gsu_continuation *c)
{
	if (c->x != NULL)
		end_stage(c);
}

void
gsu_continuation_free(gsu_continuation *c)
{
	gsu_lbfgs_free(&c->L);
	c->x = NULL;
}

double
gsu_gap_bound(double gnorm, double lambda, double mu, double f_true)
{
	return fmin(gnorm * gnorm / (2.0 * lambda) + mu / TWO_SQRT_PI, f_true);
}
