/*
 * gsu_fit.c — gsu.fit(relation, mean, variance, label, options): training on
 * data of any size in a few scans of the relation.  This file is the SQL
 * entry, on top of gsu.fit's files: the arguments, the columns' types and
 * the row and class weights, the choice of solver, then the solver
 * (gsu_fit_newton.c, gsu_fit_lbfgs.c) over the passes (gsu_fit_pass.c).
 *
 * The derivation: src/README, section gsu_fit.c.
 */
#include "gsu_fit_pass.h"
#include "gsu_fit_lbfgs.h"
#include "gsu_fit_newton.h"
#include "gsu_fit_regression.h"
#include "gsu_fit_standardize.h"
#include "gsu_fit_missing.h"
#include "gsu_progress.h"
#include "gsu_memory.h"

#include <math.h>
#include <time.h>

#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "access/relation.h"
#include "utils/rel.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"

PG_FUNCTION_INFO_V1(gsu_fit);


/*
 * The SQL of a row's weight c_i: the weight column times its class's weight
 * (cw[0] for label −1, cw[1] for 1; another label keeps weight 1 and fails
 * in the aggregate), NULL when both are absent.
 */
static char *
weight_sql(const char *weight, const char *label_sql, const double *cw, bool class_weighted)
{
	if (!class_weighted)
		return weight ? pstrdup(quote_identifier(weight)) : NULL;
	return psprintf("%s%s(CASE %s WHEN 1 THEN %.17g::pg_catalog.float8 WHEN -1 THEN "
					"%.17g::pg_catalog.float8 ELSE 1::pg_catalog.float8 END)",
					weight ? quote_identifier(weight) : "", weight ? " OPERATOR(pg_catalog.*) " : "",
					label_sql, cw[1], cw[0]);
}

/*
 * The type of a column of the relation, which must exist; a name that
 * differs from a column's in case only is named in the hint (names are
 * quoted as identifiers).
 */
static Oid
column_type(Oid relid, const char *col)
{
	AttrNumber	att = get_attnum(relid, col);

	if (att == InvalidAttrNumber)
	{
		Relation	rel = relation_open(relid, NoLock);	/* locked by gsu_fit */
		TupleDesc	desc = RelationGetDescr(rel);
		char	   *like = NULL;
		int			a;

		for (a = 0; a < desc->natts && like == NULL; a++)
		{
			Form_pg_attribute at = TupleDescAttr(desc, a);

			if (!at->attisdropped && pg_strcasecmp(NameStr(at->attname), col) == 0)
				like = pstrdup(NameStr(at->attname));
		}
		relation_close(rel, NoLock);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", col,
						get_rel_name(relid)),
				 like ? errhint("Column names are quoted as identifiers: perhaps you meant \"%s\".",
								like) : 0));
	}
	return get_atttype(relid, att);
}

static bool
casts_implicitly(Oid from, Oid to)
{
	return can_coerce_type(1, &from, &to, COERCION_IMPLICIT);
}

/* the column as type target: itself, or cast when it has another type */
static char *
column_as(const char *col, Oid type, Oid target, const char *target_sql)
{
	if (type == target)
		return pstrdup(quote_identifier(col));
	return psprintf("(%s)::%s", quote_identifier(col), target_sql);
}

/*
 * The columns as the aggregates take them (fp->mean_sql, var_sql,
 * label_sql), for the types gsu.train takes (its overloads in
 * src/sql/20_train.sql, with PostgreSQL's implicit casts): a mean that
 * casts to float8[]; a variance that casts to float8[] (a diagonal or a
 * full covariance) or to float8 (isotropic: variance·I, passed to the
 * aggregates as the diagonal of that value); a label that casts to int4, or
 * a boolean (true 1, false −1).  Any other type is refused here, naming the
 * column, before a scan.
 */
static void
fit_columns(FitPass *fp, Oid relid, const char *mean, const char *variance, const char *label,
			bool regression)
{
	char		kind = get_rel_relkind(relid);
	Oid			t;

	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_VIEW &&
		kind != RELKIND_MATVIEW && kind != RELKIND_FOREIGN_TABLE)
	{
		/* not a relation with rows (an index, a sequence…): the scan says so */
		fp->mean_sql = pstrdup(quote_identifier(mean));
		fp->var_sql = variance ? pstrdup(quote_identifier(variance)) : NULL;
		fp->label_sql = pstrdup(quote_identifier(label));
		return;
	}
	t = column_type(relid, mean);

	if (!casts_implicitly(t, FLOAT8ARRAYOID))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the mean column \"%s\" has type %s, not an array of numbers", mean,
						format_type_be(t)),
				 errhint("gsu.fit takes the types gsu.train takes: a mean of type float8[] or an array "
						 "type that casts to it implicitly (integer[], bigint[], numeric[], real[]).")));
	fp->mean_sql = column_as(mean, t, FLOAT8ARRAYOID, "pg_catalog.float8[]");
	fp->var_sql = NULL;
	if (variance)
	{
		t = column_type(relid, variance);
		if (casts_implicitly(t, FLOAT8ARRAYOID))
			fp->var_sql = column_as(variance, t, FLOAT8ARRAYOID, "pg_catalog.float8[]");
		else if (casts_implicitly(t, FLOAT8OID))
			/* NULL for a row without a variance or a mean (which the aggregates skip) */
			fp->var_sql = psprintf("CASE WHEN %s IS NULL OR %s IS NULL THEN NULL::pg_catalog.float8[] ELSE "
								   "pg_catalog.array_fill((%s)::pg_catalog.float8, "
								   "ARRAY[pg_catalog.cardinality(%s)]) END",
								   quote_identifier(variance), fp->mean_sql, quote_identifier(variance),
								   fp->mean_sql);
		else
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the variance column \"%s\" has type %s, not a variance", variance,
							format_type_be(t)),
					 errhint("gsu.fit takes the types gsu.train takes: a variance of type float8[] "
							 "(a diagonal or a full covariance) or float8 (isotropic), or of a type "
							 "that casts to one of them implicitly (integer[], numeric[], integer, numeric, real).")));
	}
	t = column_type(relid, label);
	if (regression)
	{
		/* the target: a number that casts to float8 (integers, numeric, real) */
		if (!casts_implicitly(t, FLOAT8OID))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("the target column \"%s\" has type %s, not a number", label,
							format_type_be(t)),
					 errhint("A regression loss trains on a target of type float8, or of a type that "
							 "casts to it implicitly (integer, bigint, numeric, real).")));
		fp->label_sql = column_as(label, t, FLOAT8OID, "pg_catalog.float8");
	}
	else if (casts_implicitly(t, INT4OID))
		fp->label_sql = column_as(label, t, INT4OID, "pg_catalog.int4");
	else if (casts_implicitly(t, BOOLOID))
		fp->label_sql = psprintf("CASE WHEN %s THEN 1 WHEN NOT %s THEN -1 END",
								 quote_identifier(label), quote_identifier(label));
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the label column \"%s\" has type %s, not a label", label,
						format_type_be(t)),
				 errhint("gsu.fit takes the types gsu.train takes: a label of type integer (-1 or 1; "
						 "smallint casts to it implicitly, bigint and numeric do not) or boolean "
						 "(true for 1, false for -1).%s",
						 (t == FLOAT4OID || t == FLOAT8OID || t == NUMERICOID) ?
						 " To fit a real target, name a regression loss: "
						 "'{\"loss\": \"squared\"}'." : "")));
}


/* gsu.fit's arguments, read */
typedef struct FitArgs
{
	Oid			relid;
	char	   *mean;
	char	   *variance;		/* NULL: no variance column */
	char	   *label;
	char	   *weight;			/* NULL: the unweighted form */
	Jsonb	   *options;
	double		cw[2];			/* the class weights of labels −1 and 1 */
	const char *schema;			/* the extension's schema, quoted (choose_solver) */
} FitArgs;

/* the arguments, and the relation locked for the whole training */
static void
read_args(FunctionCallInfo fcinfo, FitArgs *a)
{
	int			optarg = PG_NARGS() - 1;	/* gsu.fit(…, [weight,] options) */

	memset(a, 0, sizeof(*a));
	a->cw[0] = a->cw[1] = 1.0;
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gsu.fit needs a relation and the names of its mean and label columns")));
	a->relid = PG_GETARG_OID(0);
	a->mean = text_to_cstring(PG_GETARG_TEXT_PP(1));
	a->variance = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	a->label = text_to_cstring(PG_GETARG_TEXT_PP(3));
	if (PG_NARGS() == 6)
	{
		if (PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the weighted gsu.fit needs the name of the weight column"),
					 errhint("Call gsu.fit without the weight argument to train unweighted.")));
		a->weight = text_to_cstring(PG_GETARG_TEXT_PP(4));
	}
	a->options = PG_ARGISNULL(optarg) ? NULL : PG_GETARG_JSONB_P(optarg);

	/* lock it for the whole training, and make sure it (still) exists */
	LockRelationOid(a->relid, AccessShareLock);
	if (get_rel_name(a->relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", a->relid)));
}

/*
 * The weight column: a number that casts to float8 implicitly, as the
 * aggregate's argument: said here, before the queries that filter on it.
 */
static void
check_weight_column(Oid relid, const char *weight)
{
	AttrNumber	att = get_attnum(relid, weight);
	Oid			type = att == InvalidAttrNumber ? InvalidOid : get_atttype(relid, att);
	Oid			target = FLOAT8OID;

	if (att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", weight,
						get_rel_name(relid))));
	if (!can_coerce_type(1, &type, &target, COERCION_IMPLICIT))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the weight column \"%s\" has type %s, not a number", weight,
						format_type_be(type)),
				 errhint("The weight is a column of type float8, or of a type that casts to it implicitly (integers, numeric, real).")));
}

/*
 * The options into fp->opt and *init, checked for gsu.fit (its solvers,
 * its losses, no feature map), and explicit class weights into a->cw.
 */
static void
fit_options(FitPass *fp, FitArgs *a, GsuModel **init)
{
	gsu_parse_train_options(a->options, &fp->opt, init);
	/* "missing": its moments' scan fills the rows as they are, not standardized ones */
	if (fp->opt.missing != GSU_MISSING_ERROR && fp->opt.standardize)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsu.fit does not combine the options \"missing\" and \"standardize\""),
				 errhint("Train with the aggregate gsu.train, which combines them, or standardize the columns first.")));
	if (*init)
		gsu_model_require_plain_binary(*init, "the \"init\" model of gsu.fit");
	/* the loss hinge's default of gsu.train is not a solver of gsu.fit */
	if (fp->opt.solver == GSU_SOLVER_DCD && !gsu_options_solver_given(a->options))
		fp->opt.solver = GSU_SOLVER_NEWTON;
	if (fp->opt.solver != GSU_SOLVER_LBFGS && fp->opt.solver != GSU_SOLVER_NEWTON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit runs the solvers newton and lbfgs only"),
				 errhint("Omit \"solver\" (newton), or use gsu.train for the pegasos and sgd solvers.")));
	gsu_require_gradient_loss(fp->opt.loss, "gsu.fit");
	if (fp->opt.map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsu.fit does not take the option \"features\""),
				 errhint("Train a model with a feature map with the aggregate gsu.train.")));
	if (fp->opt.class_weight == GSU_CLASS_WEIGHT_EXPLICIT)
	{
		/* the labels are −1 and 1: a weight for another names a label no row has */
		GsuClassWeights *c = gsu_parse_class_weight(a->options);
		int			k;

		for (k = 0; k < c->n; k++)
			if (c->label[k] != -1 && c->label[k] != 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("class_weight names label %d, which no training row has",
								c->label[k]),
						 errhint("gsu.fit trains the labels -1 and 1.")));
		a->cw[0] = gsu_class_weight_of(c, -1);
		a->cw[1] = gsu_class_weight_of(c, 1);
	}
}

/*
 * The solver the scans run, and a->schema, the extension's own schema
 * (quoted), so that the aggregates called are pg_gsu's whatever the
 * caller's search_path holds: true for newton.
 */
static bool
choose_solver(FunctionCallInfo fcinfo, FitPass *fp, FitArgs *a)
{
	char	   *nsp = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	Oid			hargs[6];
	bool		newton;

	fp->model_type = get_fn_expr_rettype(fcinfo->flinfo);
	hargs[0] = FLOAT8ARRAYOID;
	hargs[1] = FLOAT8ARRAYOID;
	hargs[2] = INT4OID;
	hargs[3] = fp->model_type;
	hargs[4] = FLOAT8OID;
	hargs[5] = FLOAT8OID;
	a->schema = quote_identifier(nsp);

	/*
	 * Under the SQL of 0.1.0 (not yet updated) there is no gsu.hessian: the
	 * solver lbfgs, as 0.1.0 ran.
	 */
	newton = fp->opt.solver == GSU_SOLVER_NEWTON &&
		OidIsValid(LookupFuncName(list_make2(makeString(nsp), makeString("hessian")), 6, hargs, true));
	/* class weights ride in the weighted aggregates, which 0.1.0's SQL lacks */
	hargs[3] = FLOAT8OID;
	hargs[4] = fp->model_type;
	if (fp->opt.class_weight != GSU_CLASS_WEIGHT_NONE &&
		!OidIsValid(LookupFuncName(list_make2(makeString(nsp), makeString("gradient")), 6, hargs, true)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gsu.fit takes \"class_weight\" once the extension's SQL is updated"),
				 errhint("Run ALTER EXTENSION pg_gsu UPDATE.")));
	if (!newton)
		fp->opt.solver = GSU_SOLVER_LBFGS;
	return newton;
}

/* the option "missing" scans with gsu.missing_moments, which 0.1.0's SQL lacks */
static void
require_missing_moments(FunctionCallInfo fcinfo)
{
	char	   *nsp = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	Oid			args[3] = {FLOAT8ARRAYOID, FLOAT8ARRAYOID, JSONBOID};

	if (!OidIsValid(LookupFuncName(list_make2(makeString(nsp), makeString("missing_moments")),
								   3, args, true)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gsu.fit takes \"missing\" once the extension's SQL is updated"),
				 errhint("Run ALTER EXTENSION pg_gsu UPDATE.")));
}

/*
 * The regression path's schema and model type (as choose_solver), once the
 * extension's SQL has gsu.regression_hessian.
 */
static void
choose_regression(FunctionCallInfo fcinfo, FitPass *fp, FitArgs *a)
{
	char	   *nsp = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	Oid			args[5] = {FLOAT8ARRAYOID, FLOAT8ARRAYOID, FLOAT8OID, InvalidOid, FLOAT8OID};

	fp->model_type = get_fn_expr_rettype(fcinfo->flinfo);
	args[3] = fp->model_type;
	a->schema = quote_identifier(nsp);
	if (!OidIsValid(LookupFuncName(list_make2(makeString(nsp), makeString("regression_hessian")),
								   5, args, true)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gsu.fit trains regression once the extension's SQL is updated"),
				 errhint("Run ALTER EXTENSION pg_gsu UPDATE.")));
}

/*
 * The settings the scans run under, and SPI: the GUC nest level that
 * restores the caller's settings.
 */
static int
enter_scans(void)
{
	int			guc_level;

	/*
	 * The queries resolve names with search_path = pg_catalog, pg_temp: an
	 * operator, cast or function planted in a schema of the caller's path
	 * must not run inside them (an error restores the setting with the
	 * transaction).
	 */
	guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

	/*
	 * And without JIT: their work is in pg_gsu's C aggregates, which JIT does
	 * not compile, while compiling the rest of a query costs time and some
	 * 20 MB of the backend's memory outside gsu.max_training_memory (the
	 * aggregates' planner costs put a scan of 30,000 rows over
	 * jit_above_cost).
	 */
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit could not connect to SPI")));
	return guc_level;
}

/*
 * The solver newton, when the rows allow it: one row read for their shape,
 * then the Hessian scans (gsu_fit_newton), the model's fields into m and
 * its θ into *theta.  false, with fp->opt.solver lbfgs, when the rows'
 * dimension or a scan's Hessian is beyond the solver newton (a NOTICE says
 * so).  *found: false when the relation has no row (nothing is trained).
 */
static bool
fit_newton_path(FitPass *fp, GsuModel *init, const FitArgs *a, GsuModel *m, double **theta,
				const struct timespec *t0, bool *found)
{
	RowShape	shape = {false, 0, 0};
	Size		hessian;
	Oid			hargtypes[3] = {fp->model_type, FLOAT8OID, FLOAT8OID};
	bool		parallel;
	char	   *sql;

	shape = gsu_fit_probe_row(fp, a->relid, a->schema);
	*found = shape.found;
	if (!shape.found)
		return true;
	if (init && init->dim != shape.dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the rows have dimension %d, but the starting model has %d",
						shape.dim, init->dim)));
	fp->dim = shape.dim;
	/* a scan's Hessian partial, as gsu.hessian counts it against the limit */
	hessian = gsu_partial_hessian_bytes(shape.dim, gsu_fit_newton_band(fp));
	if (shape.dim > GSU_PARTIAL_HESS_MAX_DIM)
	{
		ereport(NOTICE,
				(errmsg("gsu.fit trains rows of dimension %d with the solver lbfgs",
						shape.dim),
				 errdetail("The solver newton sums Hessians of dimension at most %d.",
						   GSU_PARTIAL_HESS_MAX_DIM)));
		fp->opt.solver = GSU_SOLVER_LBFGS;
		return false;
	}
	if (hessian > gsu_mem_limit())
	{
		/* a scan's Hessian partial counts against gsu.max_training_memory */
		ereport(NOTICE,
				(errmsg("gsu.fit trains rows of dimension %d with the solver lbfgs",
						shape.dim),
				 errdetail("A scan of the solver newton sums a Hessian of %zu kB, more than gsu.max_training_memory (%d kB).",
						   (hessian + 1023) / 1024,
						   gsu_max_training_memory_kb),
				 errhint("Raise gsu.max_training_memory to train with newton.")));
		fp->opt.solver = GSU_SOLVER_LBFGS;
		return false;
	}

	/*
	 * SPI_prepare plans without parallel workers: ask for them, unless a
	 * worker's share of gsu.max_training_memory cannot hold the Hessian
	 * partial (gsu_memory.h): then the scans run in the leader alone, which
	 * may hold it
	 */
	parallel = hessian <= gsu_mem_split_state_room();
	sql = gsu_fit_pass_query(fp, a->relid, a->schema, "hessian");
	if (!parallel)
		elog(DEBUG1, "gsu.fit: the Hessian scans run without parallel workers (a Hessian of %zu kB)",
			 (hessian + 1023) / 1024);
	fp->plan = SPI_prepare_cursor(sql, 3, hargtypes, parallel ? CURSOR_OPT_PARALLEL_OK : 0);
	if (fp->plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The scan query was: %s", sql)));
	gsu_fit_newton(fp, init, a->relid, a->schema, &shape, m, theta, t0);
	return true;
}

/*
 * The solver lbfgs: passes of gsu.gradient (gsu_fit_lbfgs), the model's
 * fields into m and its θ into *theta; *empty when the relation has no row.
 */
static void
fit_lbfgs_path(FitPass *fp, GsuModel *init, const FitArgs *a, GsuModel *m, double **theta,
			   bool *empty)
{
	Oid			argtypes[2] = {fp->model_type, FLOAT8OID};
	char	   *sql = gsu_fit_pass_query(fp, a->relid, a->schema, "gradient");

	fp->plan = SPI_prepare_cursor(sql, 2, argtypes, CURSOR_OPT_PARALLEL_OK);
	if (fp->plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The pass query was: %s", sql)));
	gsu_fit_lbfgs(fp, init, m, theta, empty);
}

/*
 * The model gsu.fit returns: θ and the training's fields m, with the class
 * weights applied (cw unless "balanced" found them), a warning when it
 * stopped short of the tolerance, and the passes' history.
 */
static GsuModel *
fit_result(const FitPass *fp, const GsuModel *m, const double *theta, const double *cw,
		   const struct timespec *t0, GsuTrace *trace)
{
	GsuModel   *r = gsu_fit_model(fp);
	Size		len;
	double	   *block;

	memcpy(GSU_MODEL_THETA(r, 0), theta, sizeof(double) * (fp->dim + 1));
	r->rows = fp->n;
	/* the class weights applied, in the order of the classes −1, 1 (as gsu.train) */
	GSU_MODEL_CLASS_WEIGHT(r)[0] = fp->split ? fp->cw[0] : cw[0];
	GSU_MODEL_CLASS_WEIGHT(r)[1] = fp->split ? fp->cw[1] : cw[1];
	r->iterations = m->iterations;
	r->passes = fp->passes;
	r->objective = m->objective;
	r->gradient_norm = m->gradient_norm;
	r->seconds = gsu_fit_elapsed(t0);
	r->gap_estimate = m->gap_estimate;
	r->flags |= m->flags & GSU_MODEL_CONVERGED;
	if (!(r->flags & GSU_MODEL_CONVERGED) && gsu_loss_info(fp->opt.loss)->regression)
		/* SVR-GSU: max_iterations counts Newton steps, as gsu.train_regression's */
		ereport(WARNING,
				(errmsg("gsu.fit did not converge in " INT64_FORMAT " Newton steps", r->iterations),
				 r->iterations < fp->opt.max_iterations ?
				 errdetail("No step decreases the objective in double precision.") : 0,
				 errhint("Raise \"max_iterations\" or \"tolerance\".")));
	else if (!(r->flags & GSU_MODEL_CONVERGED) && fp->passes < fp->opt.max_iterations)
		ereport(WARNING,
				(errmsg("gsu.fit stopped short of the tolerance %g", fp->opt.tolerance),
				 errdetail("No step decreases the objective or its gradient norm in double precision; gsu.describe reports the passes and the gradient norm reached."),
				 errhint("Raise \"tolerance\"; the objective is as low as the sums over the rows resolve.")));
	else if (!(r->flags & GSU_MODEL_CONVERGED))
		ereport(WARNING,
				(errmsg("gsu.fit did not reach the tolerance %g in " INT64_FORMAT " passes",
						fp->opt.tolerance, fp->passes),
				 errhint("Raise \"max_iterations\" (the number of passes) or \"smoothing\".")));
	gsu_trace_finish(trace);
	block = gsu_trace_block(trace, &len);
	r = gsu_model_with_history(r, block, len);
	gsu_check_trained_model(r, "gsu.fit");
	gsu_model_validate(r, ERRCODE_INTERNAL_ERROR);
	return r;
}

Datum
gsu_fit(PG_FUNCTION_ARGS)
{
	FitArgs		a;
	GsuModel   *init = NULL,
			   *m;
	FitPass		fp;
	double	   *theta = NULL;
	int			guc_level;
	bool		newton = false,
				regression,
				found = true,
				empty = false;
	struct timespec t0;
	GsuTrace	trace;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* before SPI_connect: the trace's buffers outlive SPI_finish */
	gsu_trace_init(&trace, "gsu.fit", 1, &t0);
	gsu_trace_class(&trace, 0);

	read_args(fcinfo, &a);
	memset(&fp, 0, sizeof(fp));
	fp.trace = &trace;
	if (a.weight)
		check_weight_column(a.relid, a.weight);
	/* a regression loss: gsu.train_regression's options, a real target */
	regression = gsu_fit_regression_options(a.options, &fp.opt);
	if (!regression)
		fit_options(&fp, &a, &init);
	/* the columns' types, once the options are known good */
	fit_columns(&fp, a.relid, a.mean, a.variance, a.label, regression);
	if (regression)
		choose_regression(fcinfo, &fp, &a);
	else
		newton = choose_solver(fcinfo, &fp, &a);
	guc_level = enter_scans();

	m = palloc0(sizeof(GsuModel));	/* the training fields, copied into the model */
	fp.dim = init ? init->dim : 0;
	/*
	 * "balanced", n/(2 n_c), needs the class counts, which the first pass
	 * gives: every pass sums each class apart (two aggregates of one scan)
	 * and the class weights combine them; explicit class weights are part
	 * of the row's weight in the query.
	 */
	fp.split = fp.opt.class_weight == GSU_CLASS_WEIGHT_BALANCED;
	fp.weight = weight_sql(a.weight, fp.label_sql, a.cw, fp.opt.class_weight == GSU_CLASS_WEIGHT_EXPLICIT);
	{
		const char *cols[4] = {a.mean, a.variance, a.label, a.weight};

		fp.leaves = gsu_fit_leaves(a.relid, cols, 4);
	}
	if (fp.opt.standardize)
		gsu_fit_statistics(&fp, a.relid, a.schema, a.weight);
	if (fp.opt.missing != GSU_MISSING_ERROR)
	{
		require_missing_moments(fcinfo);
		gsu_fit_missing_moments(&fp, a.relid, a.schema, a.weight, a.options);
	}
	if (regression && fp.opt.loss == GSU_LOSS_SQUARED)
		gsu_fit_ridge(&fp, a.relid, a.schema, m, &theta, &found);
	else if (regression)
		gsu_fit_svr(&fp, a.relid, a.schema, m, &theta, &found);
	else if (newton)
		newton = fit_newton_path(&fp, init, &a, m, &theta, &t0, &found);
	if (found && !newton && !regression)
		fit_lbfgs_path(&fp, init, &a, m, &theta, &empty);
	if (!found || empty)
	{
		SPI_finish();
		AtEOXact_GUC(true, guc_level);
		PG_RETURN_NULL();
	}
	/* theta and m are in SPI's memory, which SPI_finish frees: copy them out */
	{
		double	   *t = SPI_palloc(sizeof(double) * (fp.dim + 1));
		GsuModel   *mc = SPI_palloc(sizeof(GsuModel));

		memcpy(t, theta, sizeof(double) * (fp.dim + 1));
		memcpy(mc, m, sizeof(GsuModel));
		theta = t;
		m = mc;
	}
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	PG_RETURN_GSU_MODEL(fit_result(&fp, m, theta, a.cw, &t0, &trace));
}
