/*
 * gsu_train.c — the gsu.train aggregate.
 *
 * One aggregate, two kinds of state, chosen by the "solver" option on the
 * first row:
 *  - newton / pegasos: the rows are buffered in the state (compact dense
 *    arrays, bounded by gsu.max_training_memory) and solved in the final
 *    function;
 *  - sgd: the transition function takes one Pegasos step per row in scan
 *    order; the state is O(dim).
 * Options are read once, from the first row that is not skipped.
 *
 * Parallel aggregation: buffered states are concatenated by the combine
 * function (the worker order is not deterministic, but the solution of the
 * convex problem does not depend on row order up to rounding); sgd states
 * are averaged with row weights, an approximation of one sequential pass.
 */
#include "gsu_train.h"

#include <math.h>

#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "parser/parsetree.h"
#include "catalog/pg_inherits.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"	/* getRTEPermissionInfo */
#endif
#include "utils/lsyscache.h"
#include "nodes/primnodes.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_train_transfn);
PG_FUNCTION_INFO_V1(gsu_train_iso_transfn);
PG_FUNCTION_INFO_V1(gsu_train_bool_transfn);
PG_FUNCTION_INFO_V1(gsu_train_weighted_transfn);
PG_FUNCTION_INFO_V1(gsu_train_finalfn);

/* "balanced" needs the class counts before the first step: not for sgd */
static void
check_class_weight_solver(const GsuTrainOptions *o)
{
	if (o->solver == GSU_SOLVER_SGD && o->class_weight == GSU_CLASS_WEIGHT_BALANCED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("class_weight \"balanced\" is not available with the sgd solver"),
				 errdetail("The sgd solver steps on each row as it arrives, before the class counts are known."),
				 errhint("Give the weights by label, e.g. '{\"class_weight\": {\"-1\": 1, \"1\": 5}}', "
						 "or use the newton or pegasos solver.")));
}

static GsuTrainState *
state_create(MemoryContext aggctx, FunctionCallInfo fcinfo, Jsonb *options)
{
	GsuTrainState *st = gsu_train_state_alloc(aggctx, gsu_mem_charge(aggctx, fcinfo));

	MemoryContext old = MemoryContextSwitchTo(aggctx);

	gsu_parse_train_options(options, &st->opt, &st->init);
	if (options)
	{
		st->options = palloc(VARSIZE(options));
		memcpy(st->options, options, VARSIZE(options));
	}
	st->cw = gsu_parse_class_weight(st->options);
	MemoryContextSwitchTo(old);
	if (st->opt.solver == GSU_SOLVER_LBFGS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("solver \"lbfgs\" runs passes over a table: use gsu.fit"),
				 errhint("gsu.train's solvers are newton, pegasos, sgd and dcd.")));
	check_class_weight_solver(&st->opt);
	return st;
}

/* A zeroed state in the aggregate's context. */
GsuTrainState *
gsu_train_state_alloc(MemoryContext aggctx, GsuMemCharge *mem)
{
	GsuTrainState *st = MemoryContextAllocZero(aggctx, sizeof(GsuTrainState));

	st->mem = mem;

	st->unmap.func = gsu_rows_unmap;
	st->unmap.arg = st;
	MemoryContextRegisterResetCallback(aggctx, &st->unmap);
	return st;
}

/* Called with the first row; fixes the dimension. */
void
gsu_train_state_set_dim(GsuTrainState *st, int dim)
{
	st->dim = dim;
	st->scratch = palloc(sizeof(double) * (Size) dim);
	st->scratch_len = dim;
	st->mean_scratch = palloc(sizeof(double) * (Size) dim);
	/* d doubles; 2d + 1 for the regression step's Σw and gradient */
	st->work = palloc(sizeof(double) * (2 * (Size) dim + 1));
	gsu_train_missing_start(st);
	if (st->init && st->init->dim != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the \"init\" model has dimension %d, but the rows have %d",
						st->init->dim, dim)));
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		st->theta = palloc0(sizeof(double) * ((Size) dim + 1));
		if (st->init)
		{
			/* warm start: continue from the model and its step count */
			if (!gsu_loss_info(st->opt.loss)->regression)	/* (a regression init is checked by its reader) */
				gsu_model_require_plain_binary(st->init, "the \"init\" model of solver \"sgd\"");
			memcpy(st->theta, GSU_MODEL_THETA(st->init, 0), sizeof(double) * ((Size) dim + 1));
			st->t0 = st->init->iterations;
		}
	}
}

/* jsonb equality: '{"lambda": 1.0}' and '{"lambda": 1}' are the same options */
bool
gsu_train_same_options(Jsonb *a, Jsonb *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return DatumGetBool(DirectFunctionCall2(jsonb_eq, JsonbPGetDatum(a), JsonbPGetDatum(b)));
}

void
gsu_train_options_differ(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("gsu.train options must be the same for every row of a group"),
			 errdetail("The options are read from the first row; a later row has different ones.")));
}

/*
 * The options are parsed once; a later row's must be equal: the same bytes
 * (one comparison of a few bytes per row), else the same jsonb value.
 */
void
gsu_train_check_same_options(GsuTrainState *st, FunctionCallInfo fcinfo, int arg)
{
	if (PG_ARGISNULL(arg) || st->options == NULL)
	{
		if (!PG_ARGISNULL(arg) || st->options != NULL)
			gsu_train_options_differ();
		return;
	}
	if (gsu_varlena_same((struct varlena *) st->options, PG_GETARG_DATUM(arg)))
		return;
	if (!gsu_train_same_options(PG_GETARG_JSONB_P(arg), st->options))
		gsu_train_options_differ();
}

/*
 * The argument "variance" (2) of a loss that reads a radius per row
 * (psvm): the float8 of the isotropic overload is the radius r of the
 * row's ball, kept as the iso value of the row (0 stays a certain row);
 * a variance array has no radius and is refused.
 */
static GsuRowCov
radius_arg(const GsuTrainState *st, FunctionCallInfo fcinfo, bool iso_variance)
{
	const char *loss = gsu_loss_name(st->opt.loss);
	GsuRowCov	rc = {GSU_COV_ISO, 0.0, NULL};

	if (!iso_variance)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" takes a radius per row, not a variance array", loss),
				 errdetail("The float8 argument of gsu.train(mean, radius, label, options) is the radius of the row's ball."),
				 errhint("Pass the radius as a float8 (NULL or 0 for a certain row), or train the loss \"tsvc\", which derives a radius from the variances.")));
	rc.iso = PG_GETARG_FLOAT8(2);
	if (!isfinite(rc.iso) || rc.iso < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("radius must be a finite non-negative number, not %g", rc.iso),
				 errdetail("With the loss \"%s\" the float8 argument is the radius of the row's ball.",
						   loss)));
	return rc;
}

/*
 * The table column an aggregate argument reads: a Var followed down the
 * plan's target lists to the scan of a table.  False for anything else (an
 * expression, a join's output, a partitioned table's Append, a worker).
 */
static bool
scanned_column(PlanState *ps, Expr *e, Oid *relid, AttrNumber *att)
{
	while (ps && e && IsA(e, Var))
	{
		Var		   *v = (Var *) e;

		if (v->varno == OUTER_VAR)
		{
			PlanState  *child = outerPlanState(ps);
			TargetEntry *tle;

			if (child == NULL || v->varattno < 1 ||
				v->varattno > list_length(child->plan->targetlist))
				return false;
			tle = list_nth_node(TargetEntry, child->plan->targetlist, v->varattno - 1);
			ps = child;
			e = tle->expr;
			continue;
		}
		if (!IS_SPECIAL_VARNO(v->varno) && v->varattno > 0 && ps->state &&
			v->varno <= list_length(ps->state->es_range_table))
		{
			RangeTblEntry *rte = exec_rt_fetch(v->varno, ps->state);

			if (rte->rtekind != RTE_RELATION)
				return false;
			*relid = rte->relid;
			*att = v->varattno;
			return true;
		}
		return false;
	}
	return false;
}

/*
 * The hint past gsu.max_training_memory for a query that trains on some of
 * a relation's rows only: gsu.fit reads every row of the relation it is
 * given, so the call it would name trains on other rows.
 */
#define GSU_SOME_ROWS_HINT "Raise gsu.max_training_memory; or train out of core with gsu.fit, " \
	"which reads every row of the relation it is given: this query trains on some rows only " \
	"(a WHERE clause, a join, a FILTER, GROUP BY, DISTINCT, LIMIT, a sample or a policy), so " \
	"create a view of exactly these rows (CREATE VIEW ... AS SELECT ...) and call gsu.fit on it; " \
	"or train in streaming mode with '{\"solver\": \"sgd\"}', which needs memory for one row only."

/*
 * Whether the aggregate reads every row of one relation, rel: a plain
 * aggregate (no GROUP BY or grouping sets, no DISTINCT or FILTER in the
 * call) right over a sequential scan without a qual (no WHERE clause, no
 * row-level security policy, no join, LIMIT, sample, UNION or subquery that
 * is not flattened into the scan), of a relation that has no inheritance
 * children the scan leaves out (FROM ONLY).  1: it does, rel is the
 * relation; 0: it reads some rows only; -1: the relation is read through a
 * view (whose owner's privileges the caller may not have, and which the plan
 * does not name).
 */
static int
reads_every_row(AggState *as, Aggref *ag, Oid *rel)
{
	Agg		   *agg = (Agg *) as->ss.ps.plan;
	PlanState  *child = outerPlanState(&as->ss.ps);
	EState	   *state = as->ss.ps.state;
	RangeTblEntry *rte;
	Index		scanrelid;

	if (agg->aggstrategy != AGG_PLAIN || agg->numCols != 0 || agg->groupingSets != NIL ||
		ag->aggdistinct != NIL || ag->aggfilter != NULL)
		return 0;
	if (child == NULL || !IsA(child->plan, SeqScan) || child->plan->qual != NIL || state == NULL)
		return 0;
	scanrelid = ((Scan *) child->plan)->scanrelid;
	if (scanrelid < 1 || scanrelid > list_length(state->es_range_table))
		return 0;
	rte = exec_rt_fetch(scanrelid, state);
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL || has_subclass(rte->relid))
		return 0;
#if PG_VERSION_NUM >= 160000
	if (rte->perminfoindex != 0 &&
		OidIsValid(getRTEPermissionInfo(state->es_rteperminfos, rte)->checkAsUser))
		return -1;
#else
	if (OidIsValid(rte->checkAsUser))
		return -1;
#endif
	*rel = rte->relid;
	return 1;
}

/*
 * The hint past gsu.max_training_memory with the exact gsu.fit call that
 * trains on the same rows out of core: when the aggregate reads every row
 * of one table (reads_every_row), its mean, variance (or NULL), label and
 * (weighted) weight arguments are columns of that table, and its options
 * are a constant.  A query that reads some rows only gets the words of
 * GSU_SOME_ROWS_HINT (a view of the rows); NULL otherwise (the generic
 * GSU_STREAMING_HINT), e.g. for an argument that is an expression or a
 * table read through a view.
 */
static char *
fit_call_hint(FunctionCallInfo fcinfo, int opt_arg, bool weighted)
{
	Aggref	   *ag = AggGetAggref(fcinfo);
	AggState   *as;
	Oid			relid = InvalidOid,
				scanned = InvalidOid;
	char	   *cols[4] = {NULL, NULL, NULL, NULL};
	char	   *opts = NULL;
	int			i,
				ncols = weighted ? 4 : 3;

	if (ag == NULL || fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return NULL;
	as = (AggState *) fcinfo->context;
	switch (reads_every_row(as, ag, &scanned))
	{
		case 0:
			return pstrdup(GSU_SOME_ROWS_HINT);
		case -1:
			return NULL;
	}
	if (list_length(ag->args) < ncols || ag->aggorder != NIL)
		return NULL;
	for (i = 0; i < ncols; i++)
	{
		Expr	   *e = list_nth_node(TargetEntry, ag->args, i)->expr;
		Oid			r;
		AttrNumber	att;

		if (i == 1 && IsA(e, Const) && ((Const *) e)->constisnull)
			continue;			/* a NULL variance */
		if (!scanned_column(&as->ss.ps, e, &r, &att) || r != scanned)
			return NULL;
		relid = r;
		cols[i] = get_attname(r, att, true);
		if (cols[i] == NULL)
			return NULL;
	}
	if (!OidIsValid(relid) || get_rel_name(relid) == NULL)
		return NULL;
	if (list_length(ag->args) > opt_arg - 1)
	{
		Expr	   *e = list_nth_node(TargetEntry, ag->args, opt_arg - 1)->expr;

		if (!IsA(e, Const))
			return NULL;
		if (!((Const *) e)->constisnull)
			opts = JsonbToCString(NULL, &DatumGetJsonbP(((Const *) e)->constvalue)->root, 0);
	}
	/* the weighted gsu.fit takes the weight column and its options (NULL: none) */
	return psprintf("Raise gsu.max_training_memory, or train out of core, in a few scans of the table: "
					"SELECT gsu.fit(%s, %s, %s, %s%s%s%s%s); or in streaming mode with "
					"'{\"solver\": \"sgd\"}', which needs memory for one row only.",
					quote_literal_cstr(quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
																  get_rel_name(relid))),
					quote_literal_cstr(cols[0]), cols[1] ? quote_literal_cstr(cols[1]) : "NULL",
					quote_literal_cstr(cols[2]), weighted ? ", " : "",
					weighted ? quote_literal_cstr(cols[3]) : "",
					(opts || weighted) ? ", " : "", opts ? quote_literal_cstr(opts) : weighted ? "NULL" : "");
}

/* The transition on one validated row (the aggregate context is current). */
void
gsu_train_add_row(GsuTrainState *st, GsuVec mean, GsuRowCov rc, double y, double weight)
{
	const double *x;

	if (st->dim == 0)
		gsu_train_state_set_dim(st, mean.n);
	else if (mean.n != st->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but earlier rows have %d", mean.n, st->dim)));
	/* "missing": the row's variances as given, before the loss may drop them */
	gsu_train_missing_add_variances(st, mean.data, &rc);
	/* (the solver sgd: the row filled from the given moments before its step) */
	gsu_train_missing_fill_row(st, &mean, &rc);
	if (rc.kind == GSU_COV_FULL || (rc.kind == GSU_COV_FACTOR && st->opt.subspace_fraction < 1.0))
	{
		/* room to restrict the row's covariance to its subspace */
		Size		need = gsu_cov_doubles(rc.kind, st->dim, rc.rank);

		if (need > st->scratch_len)
		{
			st->scratch = repalloc_huge(st->scratch, sizeof(double) * need);
			st->scratch_len = need;
		}
	}
	if (rc.kind == GSU_COV_FACTOR && gsu_loss_info(st->opt.loss)->uses_covariance)
	{
		/* Σ = LLᵀ reaches the Gaussian family's solvers only (gsu_cov_quad) */
		if (gsu_loss_info(st->opt.loss)->robust)
			gsu_cov_no_factor(&rc, psprintf("gsu.train with loss \"%s\"", gsu_loss_name(st->opt.loss)));
		if (st->opt.map_kind != GSU_MAP_NONE)
			gsu_cov_no_factor(&rc, "gsu.train with the option \"features\"");
	}
	x = mean.data;
	rc = gsu_prepare_cov(rc, &x, st->opt.loss, st->opt.subspace_fraction, st->opt.subspace_mode,
						 st->dim, st->scratch, st->mean_scratch);
	gsu_rows_store(st, x, &rc, y, weight);
}

/*
 * Whether a transition skips its row: a NULL mean, label (target) or weight,
 * as aggregates skip NULLs, or a weight of 0, which would not change the
 * objective.  Otherwise *weight is the row's checked weight (1 unweighted).
 * Arguments as the transition functions': 1 mean, 3 label, (weighted) 4 weight.
 */
bool
gsu_train_row_skipped(FunctionCallInfo fcinfo, bool weighted, double *weight)
{
	*weight = 1.0;
	if (PG_ARGISNULL(1) || PG_ARGISNULL(3) || (weighted && PG_ARGISNULL(4)))
		return true;
	if (weighted)
		*weight = gsu_check_row_weight(PG_GETARG_FLOAT8(4));
	return *weight == 0.0;
}

/*
 * Shared body of the transition functions.  Arguments: 0 state, 1 mean,
 * 2 variance, 3 label, then (weighted) 4 weight, then options (optional).
 */
static Datum
train_trans(FunctionCallInfo fcinfo, bool iso_variance, bool bool_label, bool weighted)
{
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_train_transfn");
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	MemoryContext old;
	GsuVec		mean;
	GsuRowCov	rc = {GSU_COV_NONE, 0.0, NULL};
	double		y;
	double		weight = 1.0;
	int			opt_arg = weighted ? 5 : 4;
	bool		missing;

	if (gsu_train_row_skipped(fcinfo, weighted, &weight))
	{
		if (st)
			PG_RETURN_POINTER(st);
		PG_RETURN_NULL();
	}
	if (st == NULL)
	{
		Jsonb	   *options = (PG_NARGS() > opt_arg && !PG_ARGISNULL(opt_arg)) ?
			PG_GETARG_JSONB_P(opt_arg) : NULL;

		st = state_create(aggctx, fcinfo, options);
		/*
		 * gsu.fit trains the losses with a gradient pass, without a feature
		 * map, on the column types gsu.train takes (isotropic variances and
		 * boolean labels too), with row and class weights: the hint names
		 * its call; the other losses are pointed to streaming only when it
		 * can train them, else to the memory setting.
		 */
		if (!gsu_loss_info(st->opt.loss)->gradient_pass)
			st->fit_hint = "Raise gsu.max_training_memory, or train on a sample of the rows.";
		else if (st->opt.map_kind == GSU_MAP_NONE)
		{
			old = MemoryContextSwitchTo(aggctx);
			st->fit_hint = fit_call_hint(fcinfo, opt_arg, weighted);
			MemoryContextSwitchTo(old);
		}
	}
	else if (PG_NARGS() > opt_arg)
		gsu_train_check_same_options(st, fcinfo, opt_arg);

	missing = gsu_train_missing_row(st, fcinfo, iso_variance, &mean, &rc);
	if (!missing)
		mean = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	if (bool_label)
		y = PG_GETARG_BOOL(3) ? 1.0 : -1.0;
	else if (st->opt.solver == GSU_SOLVER_SGD)
		y = gsu_check_label(PG_GETARG_INT32(3));	/* steps are taken on ±1 labels */
	else
		y = (double) PG_GETARG_INT32(3);
	if (!missing && !PG_ARGISNULL(2))
	{
		if (gsu_loss_info(st->opt.loss)->radius)
			rc = radius_arg(st, fcinfo, iso_variance);
		else if (iso_variance)
		{
			rc.kind = GSU_COV_ISO;
			rc.iso = PG_GETARG_FLOAT8(2);
			gsu_check_iso_variance(rc.iso);
		}
		else
			rc = gsu_cov_from_array(PG_GETARG_ARRAYTYPE_P(2), mean.n);
	}
	old = MemoryContextSwitchTo(aggctx);
	gsu_train_add_row(st, mean, rc, y, weight);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

Datum
gsu_train_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, false, false);
}

Datum
gsu_train_iso_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, true, false, false);
}

Datum
gsu_train_bool_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, true, false);
}

Datum
gsu_train_weighted_transfn(PG_FUNCTION_ARGS)
{
	return train_trans(fcinfo, false, false, true);
}

Datum
gsu_train_finalfn(PG_FUNCTION_ARGS)
{
	GsuTrainState *st = PG_ARGISNULL(0) ? NULL : (GsuTrainState *) PG_GETARG_POINTER(0);
	GsuModel   *m;
	struct timespec t0,
				t1;

	(void) gsu_agg_context(fcinfo, "gsu_train_finalfn");
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* "missing": the features' moments over all rows (a parallel plan's combined), the rows filled */
	gsu_train_fill_missing(st);
	/* gsu.train_regression's state: its loss is a regression loss */
	m = gsu_loss_info(st->opt.loss)->regression ? gsu_train_solve_regression(st) : gsu_train_solve(st);
	if (st->miss_block)
	{
		GsuModel   *r = gsu_model_with_missing(m, st->miss_block, st->opt.missing_nan != 0);

		pfree(m);
		m = r;
	}
	m->rows = st->n;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
	gsu_check_trained_model(m, "gsu.train");
	gsu_model_validate(m, ERRCODE_INTERNAL_ERROR);
	PG_RETURN_GSU_MODEL(m);
}

