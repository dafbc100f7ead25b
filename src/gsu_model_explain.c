/*
 * gsu_model_explain.c — gsu.explain: which features make a row's decision value,
 * and which features' uncertainty makes it unsure.
 *
 * For each weight vector of the model (one for two classes, one per class
 * for one-vs-rest), a row for the bias and one per feature j of
 *
 *     contribution    c_j = w_j x_j          (the bias row: b)
 *     variance_share  s_j = w_j (Σw)_j       (the bias row: 0)
 *
 * so that the contributions add up to the decision value wᵀx + b and the
 * shares to the decision's variance wᵀΣw, the one gsu.confidence divides by.
 * The math is in src/core/gsu_explain.c; the arguments are read as the
 * scoring functions read them (gsu_model_score.c), with the same messages.
 */
#include "gsu_model.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"

#include "core/gsu_explain.h"

#include <math.h>

PG_FUNCTION_INFO_V1(gsu_explain_fn);
PG_FUNCTION_INFO_V1(gsu_explain_variance_fn);
PG_FUNCTION_INFO_V1(gsu_explain_iso_fn);

/* the variance argument of a gsu.explain form */
typedef enum ExplainVariance
{
	EXPLAIN_CERTAIN,			/* none: Σ = 0 */
	EXPLAIN_ARRAY,				/* float8[]: diagonal or full */
	EXPLAIN_ISO					/* float8: s·I */
} ExplainVariance;

/* class, feature, contribution, variance_share */
#define EXPLAIN_NATTS 4

static const char *
map_name(int kind)
{
	return kind == GSU_MAP_RFF ? "random Fourier" :
		kind == GSU_MAP_POLY2 ? "degree-2 polynomial" : "Nystroem";
}

/* An error unless every value of v[0..n) is finite (what names them). */
static void
check_finite(const double *v, int n, const char *what)
{
	int			j;

	for (j = 0; j < n; j++)
		if (unlikely(!isfinite(v[j])))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s of feature %d is out of range for type double precision",
							what, j + 1)));
}

static void
put_row(ReturnSetInfo *rsinfo, int32 label, int feature, double contribution, double share)
{
	Datum		values[EXPLAIN_NATTS];
	bool		nulls[EXPLAIN_NATTS] = {false, false, false, false};

	values[0] = Int32GetDatum(label);
	values[1] = Int32GetDatum(feature);
	nulls[1] = feature == 0;	/* the bias row */
	values[2] = Float8GetDatum(contribution + 0.0);	/* +0, never -0 */
	values[3] = Float8GetDatum(share + 0.0);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

static Datum
explain(FunctionCallInfo fcinfo, ExplainVariance variance)
{
	GsuModel   *m;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};
	GsuVec		x;
	int			nvec,
				dim,
				j,
				k;
	double	   *f,
			   *c,
			   *s;

	/* not STRICT: a NULL variance is a certain row; no model or mean, no rows */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	m = PG_GETARG_GSU_MODEL_CACHED(0);
	nvec = GSU_MODEL_NVEC(m);
	dim = m->dim;
	if (m->map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsu.explain does not support a model with a feature map"),
				 errdetail("The model's weights are on its %d %s features, not on its %d input features.",
						   m->dim, map_name(m->map_kind), m->input_dim),
				 errhint("Explain a model trained without the option \"features\"; gsu.confidence gives the uncertainty of this model's predictions.")));
	x = gsu_model_mean_arg(m, fcinfo, 1);
	/* the decision values, then c and s, kept with the model for the next row */
	f = gsu_model_scratch(fcinfo, (Size) nvec + 2 * (Size) dim);
	c = f + nvec;
	s = c + dim;
	/* for its checks, the scoring functions' own: dimension, overflow */
	gsu_model_decisions(m, x.data, x.n, f);
	if (variance != EXPLAIN_CERTAIN)
		rc = gsu_model_row_cov(m, fcinfo, 1, 2, variance == EXPLAIN_ISO);

	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < nvec; k++)
	{
		const double *theta = GSU_MODEL_THETA(m, k);

		/* two classes: the decision value scores the second class */
		int32		label = (int32) GSU_MODEL_CLASSES(m)[m->nclasses == 2 ? 1 : k];

		CHECK_FOR_INTERRUPTS();
		(void) gsu_explain_contributions(dim, theta, x.data, c);
		if (unlikely(!isfinite(gsu_explain_shares(dim, theta, &rc, s))))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("w'Sigma w is out of range for type double precision")));
		check_finite(c, dim, "contribution");
		check_finite(s, dim, "variance share");
		put_row(rsinfo, label, 0, theta[dim], 0.0);
		for (j = 0; j < dim; j++)
			put_row(rsinfo, label, j + 1, c[j], s[j]);
	}
	return (Datum) 0;
}

Datum
gsu_explain_fn(PG_FUNCTION_ARGS)
{
	return explain(fcinfo, EXPLAIN_CERTAIN);
}

Datum
gsu_explain_variance_fn(PG_FUNCTION_ARGS)
{
	return explain(fcinfo, EXPLAIN_ARRAY);
}

Datum
gsu_explain_iso_fn(PG_FUNCTION_ARGS)
{
	return explain(fcinfo, EXPLAIN_ISO);
}
