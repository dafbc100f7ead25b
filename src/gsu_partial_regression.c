/*
 * gsu_partial_regression.c — gsu.regression_hessian, the scan of gsu.fit's
 * regression path (issue 33): a row's expected loss under a regression
 * model's loss (squared: ridge-GSU; epsilon_insensitive: SVR-GSU, with
 * its smoothing τ), its gradient and Hessian at the model's θ, times the
 * row's weight, summed into a gsu.partial of kind hessian whose loss is
 * the model's (core/gsu_regression.h's row functions; the layout of the
 * sums is gsu.hessian's, gsu_partial.h).  The target is a float8, so this
 * is an aggregate of its own name: an overload of gsu.hessian with a float8
 * label would capture the untyped integer labels of classification calls.
 * Its combine and final functions are gsu.hessian's (gsu_partial_agg.c).
 * And gsu.regression_gradient, its first-order half (the sums of loss and
 * gradient in a gradient partial, gsu.gradient's peer for a regression
 * model), with the same model, point and row reading.
 */
#include "gsu_model.h"
#include "gsu_partial.h"
#include "gsu_memory.h"
#include "core/gsu_regression.h"
#include "core/gsu_standardize.h"

#include <math.h>

#include "common/hashfn.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gsu_regression_hessian_transfn);
PG_FUNCTION_INFO_V1(gsu_regression_gradient_transfn);

#define FN "gsu.regression_hessian"

/* per-call scratch, made for the first row's dimension */
typedef struct RegCache
{
	int			dim;
	GsuModelCache *at;			/* the model, read once */
	double	   *work;			/* 2(dim + 1) */
	double	   *std_x;			/* dim: a standardized row's mean */
	double	   *std_cov;		/* its covariance (std_len doubles) */
	Size		std_len;
} RegCache;

static RegCache *
reg_cache(FunctionCallInfo fcinfo, int dim)
{
	RegCache   *c = (RegCache *) fcinfo->flinfo->fn_extra;
	MemoryContext mcxt = fcinfo->flinfo->fn_mcxt;
	Size		m = (Size) dim + 1;

	if (c != NULL && c->dim == dim)
		return c;
	if (c == NULL)
		c = MemoryContextAllocZero(mcxt, sizeof(RegCache));
	else
	{
		pfree(c->work);
		pfree(c->std_x);
		if (c->std_cov)
			pfree(c->std_cov);
		c->std_cov = NULL;
		c->std_len = 0;
	}
	c->dim = dim;
	c->work = MemoryContextAlloc(mcxt, sizeof(double) * 2 * m);
	c->std_x = MemoryContextAlloc(mcxt, sizeof(double) * (Size) dim);
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/*
 * The point of the sums: a hash of θ, of the statistics of a standardized
 * model, of the feature moments of a model of "missing" and of ε (two partials of other ε must not combine), never 0.
 */
static uint64
reg_point(const GsuModel *at)
{
	uint64		h = hash_bytes_extended((const unsigned char *) GSU_MODEL_THETA(at, 0),
										(int) (sizeof(double) * ((Size) at->dim + 1)), 0);

	if (at->flags & GSU_MODEL_STANDARDIZED)
		h = hash_bytes_extended((const unsigned char *) GSU_MODEL_STD_MEAN(at),
								(int) (sizeof(double) * GSU_MODEL_STD_LEN(at)), h);
	/* other feature moments of "missing" fill the rows otherwise: another point */
	if (at->flags & GSU_MODEL_MISSING)
		h = hash_bytes_extended((const unsigned char *) GSU_MODEL_MISS_MEAN(at),
								(int) (sizeof(double) * GSU_MODEL_MISS_LEN(at)), h);
	h = hash_bytes_extended((const unsigned char *) &at->epsilon, (int) sizeof(double), h);
	return h != 0 ? h : 1;
}

/* the model argument of fn (its classifier's peer: peer): a regression model of the rows' dimension */
static const GsuModel *
reg_model(FunctionCallInfo fcinfo, int argno, RegCache *c, const char *fn, const char *peer)
{
	const GsuModel *at;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs the regression model at which it sums", fn),
				 errhint("Pass a model of gsu.train_regression, or the point gsu.fit builds.")));
	at = gsu_model_arg(fcinfo, argno, &c->at);
	if (!gsu_model_is_regression(at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes a regression model, not a classifier (loss \"%s\")",
						fn, gsu_loss_name(at->loss)),
				 errhint("Sum a classifier's rows with %s.", peer)));
	if (at->dim != c->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d",
						c->dim, at->dim)));
	return at;
}

/* the state on the first row (its memory counted), or a later row's checks */
static GsuPartial *
reg_state(FunctionCallInfo fcinfo, GsuPartial *st, int dim, const GsuModel *at, double tau,
		  uint64 point)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu.regression_hessian_transfn");

	if (st == NULL)
	{
		GsuMemCharge *charge = gsu_mem_charge(aggctx, fcinfo);

		gsu_mem_require(charge, gsu_partial_hessian_bytes(dim, false), FN,
						psprintf("A Hessian partial of dimension %d", dim),
						"Raise gsu.max_training_memory.");
		st = gsu_partial_alloc_cap(aggctx, dim, GSU_PARTIAL_HESSIAN, 0);
		st->mu = tau;
		st->min_dsigma = HUGE_VAL;
		st->loss = at->loss;
		st->lambda = at->lambda;
		st->subspace_fraction = 1.0;
		st->subspace_mode = GSU_SUBSPACE_GAUSSIAN;
		st->point = point;
		return st;
	}
	if (st->dim != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", dim, st->dim)));
	if (st->mu != tau || st->point != point || st->loss != at->loss || st->lambda != at->lambda)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(FN " needs the same model and smoothing on every row of a group")));
	return st;
}

/*
 * The row's mean into *x and its covariance (NULL variance: none): with
 * nmiss missing mean elements (gsu_vec_from_array_or_missing) filled from
 * the feature moments of a model of "missing" as gsu.hessian's rows are
 * (gsu_partial_missing_row; a model without them: the usual 22004/22000),
 * then standardized at a standardized model.
 */
static gsu_cov
reg_row(FunctionCallInfo fcinfo, RegCache *c, const GsuModel *at, int nmiss, GsuVec *mean,
		const double **x)
{
	gsu_cov		rc;

	rc.kind = GSU_COV_NONE;
	rc.iso = 0.0;
	rc.data = NULL;
	rc.rank = 0;
	if (nmiss > 0)
	{
		if (!gsu_partial_missing_row(at, fcinfo, 1, 2, mean, &rc))
			(void) gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");	/* its error */
	}
	else if (!PG_ARGISNULL(2))
		rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), c->dim);
	*x = mean->data;
	if (at->flags & GSU_MODEL_STANDARDIZED)
	{
		gsu_cov		out;
		Size		need = Max(gsu_cov_doubles(rc.kind, c->dim, rc.rank), (Size) c->dim);

		if (c->std_len < need)
		{
			if (c->std_cov)
				pfree(c->std_cov);
			c->std_cov = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, sizeof(double) * need);
			c->std_len = need;
		}
		gsu_standardize_mean(c->dim, GSU_MODEL_STD_MEAN(at), GSU_MODEL_STD_SCALE(at), *x, c->std_x);
		gsu_standardize_cov(c->dim, GSU_MODEL_STD_SCALE(at), &rc, &out, c->std_cov);
		*x = c->std_x;
		rc = out;
	}
	return rc;
}

/*
 * The row arguments of gsu.regression_hessian and gsu.regression_gradient
 * (mean, variance, target, [weight,] at, smoothing): false for a row that is
 * skipped (a NULL mean or target, a weight NULL or 0), else its weight c,
 * target y (finite), smoothing tau (finite, ≥ 0) and mean with its count of
 * missing elements.
 */
static bool
pass_row_args(FunctionCallInfo fcinfo, bool weighted, double *c, double *y, double *tau,
			  GsuVec *mean, int *nmiss)
{
	int			o = weighted ? 1 : 0;

	*c = 1.0;
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (weighted && PG_ARGISNULL(4)))
		return false;
	if (weighted && (*c = gsu_check_row_weight(PG_GETARG_FLOAT8(4))) == 0.0)
		return false;
	*mean = gsu_vec_from_array_or_missing(PG_GETARG_ARRAYTYPE_P(1), "mean", nmiss);
	*y = PG_GETARG_FLOAT8(3);
	if (!isfinite(*y))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("target must be a finite number, not %g", *y)));
	*tau = PG_ARGISNULL(5 + o) ? 0.0 : PG_GETARG_FLOAT8(5 + o);
	if (!(*tau >= 0.0 && isfinite(*tau)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("smoothing must be a finite non-negative number, not %g", *tau)));
	return true;
}

/*
 * gsu.regression_hessian(mean, variance, target, [weight,] at gsu.model,
 * smoothing float8): adds c·ℓ, c·∇ℓ and c·∇²ℓ of the row at the model's θ
 * under its loss (ε from the model; the smoothing τ applies to
 * epsilon_insensitive, whose true loss at τ = 0 is summed too), and
 * c·y(x, 1).  A row with a NULL mean or target, or a weight NULL or 0, is
 * skipped.  O(dim²) a row.
 */
Datum
gsu_regression_hessian_transfn(PG_FUNCTION_ARGS)
{
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : (GsuPartial *) PG_GETARG_POINTER(0);
	bool		weighted = PG_NARGS() == 7;
	int			o = weighted ? 1 : 0;
	double		c = 1.0,
				y,
				tau,
				loss,
				loss0;
	GsuVec		mean;
	const double *x,
			   *theta;
	const GsuModel *at;
	RegCache   *rc;
	gsu_cov		cov;
	int			d,
				j,
				nmiss;
	Size		m;
	double	   *h;

	/* called by an aggregate, even for a row it skips */
	(void) gsu_agg_context(fcinfo, FN "_transfn");
	if (!pass_row_args(fcinfo, weighted, &c, &y, &tau, &mean, &nmiss))
		goto skip;
	if (mean.n > GSU_PARTIAL_HESS_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg(FN " takes rows of dimension at most %d, not %d",
						GSU_PARTIAL_HESS_MAX_DIM, mean.n)));
	rc = reg_cache(fcinfo, mean.n);
	at = reg_model(fcinfo, 4 + o, rc, FN, "gsu.hessian");
	st = reg_state(fcinfo, st, mean.n, at, tau, reg_point(at));
	d = mean.n;
	m = (Size) d + 1;
	cov = reg_row(fcinfo, rc, at, nmiss, &mean, &x);
	theta = GSU_MODEL_THETA(at, 0);

	/* the Hessian's upper triangle, packed by rows */
	h = st->vec + GSU_PARTIAL_HESS_H(d);
	if (at->loss == GSU_LOSS_SQUARED)
	{
		loss = gsu_ridge_row_loss_grad(d, theta, x, &cov, y, c, st->vec, rc->work);
		loss0 = loss;
		gsu_ridge_row_hessian_packed(d, x, &cov, c, h);
	}
	else
	{
		loss = gsu_svr_row_loss_grad(d, theta, x, &cov, y, at->epsilon, tau, c, st->vec, rc->work);
		loss0 = tau == 0.0 ? loss :
			gsu_svr_row_loss_grad(d, theta, x, &cov, y, at->epsilon, 0.0, 0.0, NULL, rc->work);
		gsu_svr_row_hessian_packed(d, theta, x, &cov, y, at->epsilon, tau, c, h, rc->work);
	}
	st->loss_sum += c * loss;
	st->vec[GSU_PARTIAL_HESS_LOSS0(d)] += c * loss0;
	for (j = 0; j < d; j++)
		st->vec[m + j] += c * y * x[j];
	st->vec[m + d] += c * y;
	st->min_dsigma = fmin(st->min_dsigma,
						  sqrt(2.0 * fmax(gsu_cov_quad(d, &cov, theta, rc->work), 0.0)));
	st->n++;
	/* the O(dim²) sums are checked by the final function and by combine */
	if (unlikely(!isfinite(st->loss_sum)))
		gsu_partial_check_produced(st);
	PG_RETURN_POINTER(st);

skip:
	if (st)
		PG_RETURN_POINTER(st);
	PG_RETURN_NULL();
}

/* ------------------------------------------------------------ gsu.regression_gradient */

#define GFN "gsu.regression_gradient"

/* the gradient partial on the first row (O(dim): nothing to count), or a later row's checks */
static GsuPartial *
reg_gradient_state(FunctionCallInfo fcinfo, GsuPartial *st, int dim, const GsuModel *at,
				   double tau, uint64 point)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, GFN "_transfn");

	if (st == NULL)
	{
		st = gsu_partial_alloc_in(aggctx, dim, GSU_PARTIAL_GRADIENT);
		st->mu = tau;
		st->min_dsigma = HUGE_VAL;
		st->loss = at->loss;
		st->lambda = at->lambda;
		st->point = point;
		return st;
	}
	if (st->dim != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", dim, st->dim)));
	if (st->mu != tau || st->point != point || st->loss != at->loss || st->lambda != at->lambda)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(GFN " needs the same model and smoothing on every row of a group")));
	return st;
}

/*
 * gsu.regression_gradient(mean, variance, target, [weight,] at gsu.model,
 * smoothing float8): adds c·ℓ and c·∇ℓ of the row at the model's θ under
 * its loss (ε from the model; the smoothing τ applies to
 * epsilon_insensitive), the first-order half of gsu.regression_hessian's
 * sums in a gradient partial (Σ c·ℓ, Σ c·∇ℓ; exactly combinable by
 * gsu.sum).  A row with a NULL mean or target, or a weight NULL or 0, is
 * skipped.  O(dim) a row (O(dim²) for a full covariance).
 */
Datum
gsu_regression_gradient_transfn(PG_FUNCTION_ARGS)
{
	GsuPartial *st = PG_ARGISNULL(0) ? NULL : (GsuPartial *) PG_GETARG_POINTER(0);
	bool		weighted = PG_NARGS() == 7;
	int			o = weighted ? 1 : 0;
	double		c = 1.0,
				y,
				tau;
	GsuVec		mean;
	const double *x,
			   *theta;
	const GsuModel *at;
	RegCache   *rc;
	gsu_cov		cov;
	int			d,
				nmiss;

	/* called by an aggregate, even for a row it skips */
	(void) gsu_agg_context(fcinfo, GFN "_transfn");
	if (!pass_row_args(fcinfo, weighted, &c, &y, &tau, &mean, &nmiss))
		goto skip;
	rc = reg_cache(fcinfo, mean.n);
	at = reg_model(fcinfo, 4 + o, rc, GFN, "gsu.gradient");
	st = reg_gradient_state(fcinfo, st, mean.n, at, tau, reg_point(at));
	d = mean.n;
	cov = reg_row(fcinfo, rc, at, nmiss, &mean, &x);
	theta = GSU_MODEL_THETA(at, 0);
	if (at->loss == GSU_LOSS_SQUARED)
		st->loss_sum += c * gsu_ridge_row_loss_grad(d, theta, x, &cov, y, c, st->vec, rc->work);
	else
		st->loss_sum += c * gsu_svr_row_loss_grad(d, theta, x, &cov, y, at->epsilon, tau, c,
												  st->vec, rc->work);
	st->min_dsigma = fmin(st->min_dsigma,
						  sqrt(2.0 * fmax(gsu_cov_quad(d, &cov, theta, rc->work), 0.0)));
	st->n++;
	gsu_partial_check_produced(st);
	PG_RETURN_POINTER(st);

skip:
	if (st)
		PG_RETURN_POINTER(st);
	PG_RETURN_NULL();
}
