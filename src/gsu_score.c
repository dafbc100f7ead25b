/*
 * gsu_score.c — scoring rows with a gsu.model: decision value, label,
 * confidence under the row's Gaussian, and expected loss.  The math is in
 * src/core/gsu_loss.c; this file checks the arguments.
 */
#include "gsu_model.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_decision_fn);
PG_FUNCTION_INFO_V1(gsu_decisions_fn);
PG_FUNCTION_INFO_V1(gsu_predict_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_iso_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_iso_fn);

/* A finite model and finite input can still overflow: report, never return ±Inf/NaN. */
static double
finite_result(double v, const char *what)
{
	if (unlikely(!isfinite(v)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s is out of range for type double precision", what)));
	return v;
}

/*
 * The decision values of the mean argument, one per weight vector, in the
 * function's scratch buffer (gsu_model_scratch), followed by m->dim more
 * doubles the caller may use as work space.
 */
static double *
model_decisions(const GsuModel *m, FunctionCallInfo fcinfo, int argno, GsuVec *x)
{
	double	   *f = gsu_model_scratch(fcinfo, (Size) GSU_MODEL_NVEC(m) + m->dim);

	*x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(argno), "mean");
	gsu_model_decisions(m, x->data, x->n, f);
	return f;
}

Datum
gsu_decision_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x;
	double		f;

	if (m->nclasses != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a model of %d classes has one decision value per class", m->nclasses),
				 errhint("Use gsu.decisions(model, mean).")));
	x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	gsu_model_decisions(m, x.data, x.n, &f);
	PG_RETURN_FLOAT8(f);
}

Datum
gsu_decisions_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x;
	double	   *f = model_decisions(m, fcinfo, 1, &x);
	ArrayType  *a = gsu_new_float8_array(1, m->nclasses, 0);
	double	   *out = (double *) ARR_DATA_PTR(a);

	if (m->nclasses == 2)
	{
		/* the score of the first class is that of its side of the hyperplane */
		out[0] = -f[0] + 0.0;
		out[1] = f[0];
	}
	else
		memcpy(out, f, sizeof(double) * m->nclasses);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
gsu_predict_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x;
	double		f1;
	double	   *f;

	if (m->nclasses == 2)
	{
		/* the common case without a palloc per row */
		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
		gsu_model_decisions(m, x.data, x.n, &f1);
		PG_RETURN_INT32(gsu_model_pick(m, &f1, NULL));
	}
	f = model_decisions(m, fcinfo, 1, &x);
	PG_RETURN_INT32(gsu_model_pick(m, f, NULL));
}

/*
 * The row's covariance from a scoring function's variance argument: NULL is
 * a certain row (Σ = 0); an array of one element σ² is σ²I (isotropic), of
 * input_dim elements the diagonal, input_dim × input_dim the full
 * covariance; iso_kind: the float8 σ² of 0.1.0's isotropic forms.
 */
GsuRowCov
gsu_variance_arg(const GsuModel *m, FunctionCallInfo fcinfo, int argno, bool iso_kind)
{
	GsuRowCov	rc = {GSU_COV_ISO, 0.0, NULL};
	ArrayType  *a;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return rc;
	if (iso_kind)
	{
		rc.iso = PG_GETARG_FLOAT8(argno);
		gsu_check_iso_variance(rc.iso);
		return rc;
	}
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (m->input_dim != 1 && ARR_NDIM(a) == 1 && ARR_DIMS(a)[0] == 1)
	{
		rc.iso = gsu_variance_from_array(a, 1).data[0];
		return rc;
	}
	return gsu_cov_from_array(a, m->input_dim);
}

/* wᵀΣw for vector k of the model */
static double
vector_quad(const GsuModel *m, int k, const GsuRowCov *rc, double *work)
{
	return finite_result(gsu_cov_quad(m->dim, rc, GSU_MODEL_THETA(m, k), work), "w'Sigma w");
}

/*
 * The Gaussian input N(x, Σ) as the linear model sees it.  Without a
 * feature map: x itself, and *quads NULL (each vector's wᵀΣw comes from
 * vector_quad).  With one: E φ(z) in *xf and each vector's wᵀ Cov φ(z) w in
 * *quads, so that the mean and variance of wᵀφ(z) + b are exact and only
 * its normality is an approximation.
 */
static void
feature_gaussian(const GsuModel *m, const double *x, const GsuRowCov *rc, const double **xf,
				 double **quads)
{
	double	   *mean;

	*quads = NULL;
	if (m->map_kind == GSU_MAP_NONE)
	{
		*xf = x;
		return;
	}
	gsu_cov_no_factor(rc, "scoring a model with a feature map");
	*quads = palloc(sizeof(double) * GSU_MODEL_NVEC(m));
	gsu_model_map_quad(m, x, rc, &mean, *quads);
	*xf = mean;
}

static Datum
confidence(FunctionCallInfo fcinfo, bool iso_kind)
{
	GsuModel   *m;
	GsuVec		x;
	double	   *f;
	GsuRowCov	rc;
	double	   *work;
	const double *xf;
	double	   *quads;
	int			k;
	double		quad;

	/* not STRICT: a NULL variance is a certain row, a NULL model or mean no answer */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	m = PG_GETARG_GSU_MODEL_CACHED(0);
	f = model_decisions(m, fcinfo, 1, &x);
	rc = gsu_variance_arg(m, fcinfo, 2, iso_kind);
	work = f + GSU_MODEL_NVEC(m);
	feature_gaussian(m, x.data, &rc, &xf, &quads);
	if (m->nclasses == 2)
	{
		quad = quads ? finite_result(quads[0], "w'Sigma w") : vector_quad(m, 0, &rc, work);
		if (m->map_kind == GSU_MAP_NONE)
			PG_RETURN_FLOAT8(gsu_confidence_quad(m->dim, GSU_MODEL_THETA(m, 0), x.data, quad));
		/*
		 * P(sign f(z) = the predicted label sign f(x)), f(z) taken as
		 * Gaussian with the moments of wᵀφ(z) + b
		 */
		PG_RETURN_FLOAT8(gsu_positive_probability((f[0] >= 0.0 ? 1.0 : -1.0) *
									  gsu_decision(m->dim, GSU_MODEL_THETA(m, 0), xf), quad));
	}
	/* one-vs-rest: P(the predicted class's classifier claims the point) */
	(void) gsu_model_pick(m, f, &k);
	quad = quads ? finite_result(quads[k], "w'Sigma w") : vector_quad(m, k, &rc, work);
	PG_RETURN_FLOAT8(gsu_positive_probability(m->map_kind == GSU_MAP_NONE ? f[k] :
								  gsu_decision(m->dim, GSU_MODEL_THETA(m, k), xf), quad));
}

Datum
gsu_confidence_fn(PG_FUNCTION_ARGS)
{
	return confidence(fcinfo, false);
}

Datum
gsu_confidence_iso_fn(PG_FUNCTION_ARGS)
{
	return confidence(fcinfo, true);
}

static Datum
expected_loss(FunctionCallInfo fcinfo, bool iso_kind)
{
	GsuModel   *m;
	GsuVec		x;
	double	   *f;
	GsuRowCov	rc;
	int			label_k;
	double	   *work;
	double		loss = 0.0;
	int			k,
				nvec;
	const double *xf;
	double	   *quads;

	/* not STRICT: a NULL variance is a certain row; no model, mean or label, no answer */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	m = PG_GETARG_GSU_MODEL_CACHED(0);
	f = model_decisions(m, fcinfo, 1, &x);
	rc = gsu_variance_arg(m, fcinfo, 2, iso_kind);
	label_k = gsu_model_class_index(m, PG_GETARG_INT32(3));
	work = f + GSU_MODEL_NVEC(m);
	nvec = GSU_MODEL_NVEC(m);
	(void) f;					/* computed for its checks: dimension, overflow */
	feature_gaussian(m, x.data, &rc, &xf, &quads);
	for (k = 0; k < nvec; k++)
	{
		/* two classes: +1 for the second; one-vs-rest: +1 for the row's own class */
		double		y = (m->nclasses == 2 ? label_k == 1 : label_k == k) ? 1.0 : -1.0;
		double		quad = quads ? finite_result(quads[k], "w'Sigma w") :
			vector_quad(m, k, &rc, work);

		loss += gsu_row_loss_quad(m->dim, GSU_MODEL_THETA(m, k), xf, quad, y);
	}
	PG_RETURN_FLOAT8(finite_result(loss, "expected loss"));
}
Datum
gsu_expected_loss_fn(PG_FUNCTION_ARGS)
{
	return expected_loss(fcinfo, false);
}

Datum
gsu_expected_loss_iso_fn(PG_FUNCTION_ARGS)
{
	return expected_loss(fcinfo, true);
}
