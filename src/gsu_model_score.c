/*
 * gsu_model_score.c — scoring rows with a gsu.model: decision value, label,
 * confidence under the row's Gaussian, and expected loss.  The math is in
 * src/core/gsu_loss.c; this file checks the arguments.
 */
#include "gsu_model.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "funcapi.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(gsu_decision_fn);
PG_FUNCTION_INFO_V1(gsu_decisions_fn);
PG_FUNCTION_INFO_V1(gsu_predict_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_fn);
PG_FUNCTION_INFO_V1(gsu_confidence_iso_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_fn);
PG_FUNCTION_INFO_V1(gsu_expected_loss_iso_fn);
PG_FUNCTION_INFO_V1(gsu_score_support);
PG_FUNCTION_INFO_V1(gsu_predictive_fn);

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

	*x = gsu_model_mean_arg(m, fcinfo, argno);
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
	x = gsu_model_mean_arg(m, fcinfo, 1);
	gsu_model_decisions(m, x.data, x.n, &f);
	PG_RETURN_FLOAT8(f);
}

Datum
gsu_decisions_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL_CACHED(0);
	GsuVec		x;
	double	   *f;
	ArrayType  *a;
	double	   *out;

	gsu_model_require_classifier(m, "gsu.decisions");
	f = model_decisions(m, fcinfo, 1, &x);
	a = gsu_new_float8_array(1, m->nclasses, 0);
	out = (double *) ARR_DATA_PTR(a);

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

	gsu_model_require_classifier(m, "gsu.predict");
	if (m->nclasses == 2)
	{
		/* the common case without a palloc per row */
		x = gsu_model_mean_arg(m, fcinfo, 1);
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

/*
 * Option "missing" (docs/missing.md): a model with the missing block reads
 * a NULL mean element (and, with the flag of "missing_nan", a NaN one) as
 * the stored feature mean, and adds the stored feature variance to the
 * row's (diagonal) variance there.
 */
#define MODEL_NAN_MISSING(m) (((m)->flags & GSU_MODEL_MISSING_NAN) != 0)
/* whether the mean a may have missing elements under m */
#define MAY_MISS(m, a) (((m)->flags & GSU_MODEL_MISSING) && (ARR_HASNULL(a) || MODEL_NAN_MISSING(m)))

GsuVec
gsu_model_mean_arg(const GsuModel *m, FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(argno);
	GsuVec		x;
	int			nnull,
				j;

	if (likely(!MAY_MISS(m, a)))
		return gsu_vec_from_array(a, "mean");
	x = gsu_vec_from_array_missing(a, "mean", MODEL_NAN_MISSING(m), &nnull);
	if (nnull == 0)
		return x;
	gsu_check_dims(x.n, m->input_dim, "mean");
	for (j = 0; j < x.n; j++)
		if (isnan(x.data[j]))
			((double *) x.data)[j] = GSU_MODEL_MISS_MEAN(m)[j];
	return x;
}

static void
refuse_missing_factor(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a row with a missing mean element cannot have a covariance factor"),
			 errdetail("A missing element's variance is added to the diagonal of the row's covariance, which a factor L of LL^T has not."),
			 errhint("Pass the full covariance L L^T (dim x dim), diagonal variances (NULL where the mean is missing), or NULL.")));
}

GsuRowCov
gsu_model_row_cov(const GsuModel *m, FunctionCallInfo fcinfo, int argno, int vargno, bool iso_kind)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(argno);
	GsuRowCov	rc = {GSU_COV_DIAG, 0.0, NULL};
	GsuVec		x;
	double	   *v;
	int			nnull,
				j;

	if (likely(!MAY_MISS(m, a)))
		return gsu_variance_arg(m, fcinfo, vargno, iso_kind);
	x = gsu_vec_from_array_missing(a, "mean", MODEL_NAN_MISSING(m), &nnull);
	if (nnull == 0)
		return gsu_variance_arg(m, fcinfo, vargno, iso_kind);
	if (PG_NARGS() <= vargno || PG_ARGISNULL(vargno))
		v = palloc0(sizeof(double) * x.n);
	else
	{
		ArrayType  *va = iso_kind ? NULL : PG_GETARG_ARRAYTYPE_P(vargno);

		if (va == NULL || ARR_NDIM(va) == 2 ||
			(ARR_NDIM(va) == 1 && ARR_DIMS(va)[0] == 1 && m->input_dim != 1 && !ARR_HASNULL(va)))
		{
			/* isotropic or full: Σ as given, the feature variances added to its diagonal */
			GsuRowCov	given = gsu_variance_arg(m, fcinfo, vargno, iso_kind);
			int			d = m->input_dim;

			if (given.kind == GSU_COV_FACTOR)
				refuse_missing_factor();
			if (given.kind == GSU_COV_FULL)
			{
				v = palloc(sizeof(double) * d * d);
				memcpy(v, given.data, sizeof(double) * d * d);
				for (j = 0; j < d; j++)
					if (isnan(x.data[j]))
						v[j * d + j] += GSU_MODEL_MISS_VAR(m)[j];
				rc.kind = GSU_COV_FULL;
				rc.data = v;
				return rc;
			}
			v = palloc(sizeof(double) * d);
			for (j = 0; j < d; j++)
				v[j] = given.iso;
		}
		else
		{
			/*
			 * a copy: without NULL elements the variances are the array's
			 * own bytes (a plan's constant, or a tuple in a shared buffer),
			 * which adding the feature variances must not change
			 */
			GsuVec		given = gsu_variance_from_array_nulls(va, x.n, x.data);

			v = palloc(sizeof(double) * x.n);
			memcpy(v, given.data, sizeof(double) * x.n);
		}
	}
	for (j = 0; j < x.n; j++)
		if (isnan(x.data[j]))
			v[j] += GSU_MODEL_MISS_VAR(m)[j];
	rc.data = v;
	return rc;
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
	gsu_model_require_classifier(m, "gsu.confidence");
	f = model_decisions(m, fcinfo, 1, &x);
	rc = gsu_model_row_cov(m, fcinfo, 1, 2, iso_kind);
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
	gsu_model_require_classifier(m, "gsu.expected_loss");
	f = model_decisions(m, fcinfo, 1, &x);
	rc = gsu_model_row_cov(m, fcinfo, 1, 2, iso_kind);
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

/*
 * gsu.predictive(model, mean, variance): a regression model's prediction
 * w'x + b for the Gaussian input N(x, Σ) and its standard deviation
 * sqrt(w'Σw) (the input's uncertainty only: no residual noise is stored).
 * Not STRICT: a NULL variance is a certain row (sd 0).
 */
Datum
gsu_predictive_fn(PG_FUNCTION_ARGS)
{
	GsuModel   *m;
	GsuVec		x;
	double	   *f;
	GsuRowCov	rc;
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	m = PG_GETARG_GSU_MODEL_CACHED(0);
	gsu_model_require_regression(m, "gsu.predictive");
	f = model_decisions(m, fcinfo, 1, &x);
	rc = gsu_model_row_cov(m, fcinfo, 1, 2, false);
	values[0] = Float8GetDatum(finite_result(f[0], "prediction"));
	values[1] = Float8GetDatum(finite_result(sqrt(vector_quad(m, 0, &rc, f + 1)), "sd"));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gsu.predictive: return type must be a row type");
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* ------------------------------------------------------------ the planner */

/*
 * A model cross-joined to the rows it scores,
 *
 *     SELECT sum(gsu.decision(m.model, t.mean)) FROM t, models m
 *
 * In a parallel plan each worker runs a nested loop with its share of t
 * outside and models inside, and PostgreSQL 15 (through 17) rescans that
 * inner side for every outer row: a partial nested loop never puts a
 * Materialize over its inner path, although a serial one does (PostgreSQL
 * 18 added it: "Consider materializing the cheapest inner path in
 * parallel nestloop").  A rescan of a heap scan of a one-page
 * table is a buffer pin, a lock and a visibility test per row: on 1M rows of
 * 50 features, 2.2× the bare parallel scan where the scalar-subquery form
 * (the model an InitPlan parameter) takes 0.8× (docs/performance.md).
 *
 * This join-path hook adds what PostgreSQL 18 adds, the partial nested loop
 * over the materialized cheapest inner path, and the planner prices it as
 * its own: a rescan of the Materialize costs cpu_operator_cost a row, so it
 * wins over the rescanned heap scan on its costs.  It applies only where
 * scoring needs it: an inner join whose inner side brings a value of one of
 * pg_gsu's types (a gsu.model, ...) to it; other joins plan as they would
 * without pg_gsu.  The library must be loaded when the query is planned:
 * shared_preload_libraries, or the support function gsu.score_support of the
 * scoring functions, which the planner calls (and so loads the library)
 * when it simplifies the query's expressions, before it plans the joins.
 */
#if PG_VERSION_NUM < 180000		/* 18 makes these paths itself */
static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/* Does rel's output carry a value of a type of schema gsu (the extension's)? */
static bool
rel_brings_gsu_value(RelOptInfo *rel)
{
	Oid			nsp = get_namespace_oid("gsu", true);
	ListCell   *lc;

	if (!OidIsValid(nsp))
		return false;
	foreach(lc, rel->reltarget->exprs)
	{
		Oid			typ = exprType((Node *) lfirst(lc));
		HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typ));
		bool		ours;

		if (!HeapTupleIsValid(tup))
			continue;
		ours = ((Form_pg_type) GETSTRUCT(tup))->typnamespace == nsp;
		ReleaseSysCache(tup);
		if (ours)
			return true;
	}
	return false;
}

static void
score_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	Path	   *inner = NULL;
	Path	   *matpath;
	ListCell   *lc;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);

	/* the conditions of PostgreSQL's consider_parallel_nestloop */
	if (jointype != JOIN_INNER || !joinrel->consider_parallel ||
		outerrel->partial_pathlist == NIL || !bms_is_empty(joinrel->lateral_relids) ||
		!enable_material)
		return;

	/*
	 * The inner path: the cheapest that a worker can run, unparameterized.
	 * PostgreSQL 18 takes the cheapest of all, and none when that one is not
	 * parallel-safe; but with parallel_tuple_cost = 0 the cheapest scan of a
	 * small table is a Gather over its parallel scan, which no worker can
	 * run, and the plan scores in the leader (docs/performance.md).
	 */
	foreach(lc, innerrel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p->parallel_safe && p->param_info == NULL &&
			(inner == NULL || p->total_cost < inner->total_cost))
			inner = p;
	}
	if (inner == NULL || ExecMaterializesOutput(inner->pathtype) ||
		!rel_brings_gsu_value(innerrel))
		return;

	matpath = (Path *) create_material_path(innerrel, inner);
	foreach(lc, outerrel->partial_pathlist)
	{
		Path	   *outer = (Path *) lfirst(lc);
		List	   *pathkeys;
		JoinCostWorkspace workspace;

		/* as try_partial_nestloop_path */
		if (outer->param_info != NULL)
			continue;
		pathkeys = build_join_pathkeys(root, joinrel, jointype, outer->pathkeys);
		initial_cost_nestloop(root, &workspace, jointype, outer, matpath, extra);
		if (!add_partial_path_precheck(joinrel, workspace.total_cost, pathkeys))
			continue;
		add_partial_path(joinrel, (Path *)
						 create_nestloop_path(root, joinrel, jointype, &workspace, extra,
											  outer, matpath, extra->restrictlist,
											  pathkeys, NULL));
	}
}

#endif							/* PG_VERSION_NUM < 180000 */

void
gsu_score_planner_init(void)
{
#if PG_VERSION_NUM < 180000
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = score_join_pathlist;
#endif
}

/*
 * The support function of the scoring functions: it answers no request (the
 * declared COST stands); the planner's call to it loads the library, and so
 * the hook above, before the joins of a query that scores are planned.
 */
Datum
gsu_score_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}
