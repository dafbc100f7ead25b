/*
 * gsu_fit.c — gsu.fit(relation, mean, variance, label, options): training on
 * data of any size by passes of the exact gradient aggregate gsu.gradient.
 *
 * Each pass evaluates F_μ(θ) and ∇F_μ(θ) by one aggregate query over the
 * relation, and the L-BFGS method of src/core/gsu_lbfgs.c chooses the next
 * θ.  Memory is O(dim) whatever the table size, and every pass is an
 * ordinary (parallel, or for foreign partitions remote) aggregate.  The
 * smoothing continuation is that of the buffered Newton solver: μ = 1,
 * 10⁻¹, …, down to the "smoothing" option, then μ = 0 when every row keeps
 * d_Σ well above it.
 *
 * For a partitioned table the pass is a UNION ALL of one aggregate per leaf
 * partition summed with gsu.sum, so that postgres_fdw can push each
 * partition's aggregate to the server that holds it.
 */
#include "gsu_model.h"
#include "gsu_partial.h"

#include <math.h>
#include <time.h>

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "core/gsu_continuation.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "storage/lmgr.h"

PG_FUNCTION_INFO_V1(gsu_fit);

typedef struct FitPass
{
	SPIPlanPtr	plan;
	Oid			model_type;
	GsuTrainOptions opt;
	int			dim;
	int64		passes;
	/* results of the last pass */
	int64		n;
	int64		n_pos;
	double		min_dsigma;
} FitPass;

static char *
qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/*
 * The aggregate over one relation (ONLY: its own rows); ordinal numbers the
 * branches of a partitioned table, so that their partials are added in a
 * fixed order whatever order the (asynchronous) branches finish in.  It comes
 * after the aggregate: a leading constant stops postgres_fdw's async scans.
 */
static void
append_gradient_select(StringInfo sql, Oid relid, bool only, int ordinal, const char *schema,
					   const char *mean, const char *variance, const char *label)
{
	appendStringInfo(sql, "SELECT %s.gradient(%s, %s, %s, $1, $2) AS p, %d AS i FROM %s%s",
					 schema, quote_identifier(mean),
					 variance ? quote_identifier(variance) : "NULL::float8[]",
					 quote_identifier(label), ordinal, only ? "ONLY " : "",
					 qualified_name(relid));
}

/*
 * The query of one pass.  schema is the extension's own (quoted), so that the
 * aggregates called are pg_gsu's whatever the caller's search_path holds; the
 * query runs with search_path = pg_catalog, pg_temp (see gsu_fit).
 */
static char *
pass_query(Oid relid, const char *schema, const char *mean, const char *variance, const char *label)
{
	StringInfoData sql;

	initStringInfo(&sql);
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
	{
		List	   *all = find_all_inheritors(relid, AccessShareLock, NULL);
		ListCell   *lc;
		bool		first = true;
		int			ordinal = 0;

		appendStringInfo(&sql, "SELECT %s.sum(p ORDER BY i) FROM (", schema);
		foreach(lc, all)
		{
			Oid			child = lfirst_oid(lc);

			if (get_rel_relkind(child) == RELKIND_PARTITIONED_TABLE)
				continue;
			if (!first)
				appendStringInfoString(&sql, " UNION ALL ");
			append_gradient_select(&sql, child, true, ++ordinal, schema, mean, variance, label);
			first = false;
		}
		if (first)
			return NULL;		/* no partitions: no rows */
		appendStringInfoString(&sql, ") AS partials");
	}
	else
		append_gradient_select(&sql, relid, false, 0, schema, mean, variance, label);
	return sql.data;
}

/*
 * One pass: the partial of gsu.gradient at θ (theta NULL: θ = 0), or NULL
 * when the relation has no usable rows.
 */
static GsuPartial *
run_pass(FitPass *fp, const double *theta, double mu)
{
	Datum		args[2];
	char		nulls[2] = {' ', ' '};
	GsuModel   *at = NULL;
	GsuPartial *p;
	bool		isnull;
	int			ret;
	Datum		d;

	CHECK_FOR_INTERRUPTS();
	if (theta)
	{
		/* the point, with the options' loss and subspace fraction and mode */
		at = gsu_model_from_options(fp->dim, 2, 0, &fp->opt);
		memcpy(GSU_MODEL_THETA(at, 0), theta, sizeof(double) * (fp->dim + 1));
		args[0] = PointerGetDatum(at);
	}
	else
	{
		args[0] = (Datum) 0;
		nulls[0] = 'n';
	}
	args[1] = Float8GetDatum(mu);
	ret = SPI_execute_plan(fp->plan, args, nulls, true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit pass " INT64_FORMAT " failed: %s", fp->passes + 1,
						SPI_result_code_string(ret))));
	fp->passes++;
	if (at)
		pfree(at);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
	{
		SPI_freetuptable(SPI_tuptable);
		return NULL;
	}
	{
		GsuPartial *src = gsu_partial_from_datum(d);

		p = palloc(VARSIZE(src));
		memcpy(p, src, VARSIZE(src));
	}
	SPI_freetuptable(SPI_tuptable);
	if (fp->dim == 0)
		fp->dim = p->dim;
	else if (p->dim != fp->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the rows have dimension %d, but the starting model has %d",
						p->dim, fp->dim)));
	fp->n = p->n;
	fp->n_pos = p->n_pos;
	fp->min_dsigma = p->min_dsigma;
	return p;
}

/* F = λ/2‖w‖² + (1/n)Σ L_i and ∇F = (λw, 0) + (1/n)Σ ∇L_i from a partial */
static double
objective_from(const FitPass *fp, const GsuPartial *p, const double *theta, double *g)
{
	int			j;

	for (j = 0; j <= fp->dim; j++)
		g[j] = p->vec[j] / (double) p->n + fp->opt.lambda * ((theta && j < fp->dim) ? theta[j] : 0.0);
	return gsu_objective_from_sums(fp->dim, theta, fp->opt.lambda, p->loss_sum, (double) p->n);
}

/* a pass at θ that must find rows */
static double
evaluate(FitPass *fp, const double *theta, double mu, double *g)
{
	GsuPartial *p = run_pass(fp, theta, mu);
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
		if (at_start && warm && !finite_point(fp, f, g))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the objective of the \"init\" model is not finite on the rows of the relation"),
					 errdetail("Its decision values overflow on these rows, or their losses "
							   "sum beyond the range of double precision."),
					 errhint("Start from a model trained on features of a similar scale, or "
							 "leave out \"init\".")));
		at_start = false;
		if (!finite_point(fp, f, g))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("gsu.fit diverged: the objective or its gradient is out of range "
							"for type double precision"),
					 errhint("Rescale the features or raise \"lambda\".")));
		a = gsu_continuation_tell(c, f, g, fp->min_dsigma, &s);
		gsu_report_status(s, "gsu.fit");
		if (a & GSU_CONT_ACCEPTED)
			ereport(NOTICE,
					(errmsg("gsu.fit pass " INT64_FORMAT ": objective %.12g, gradient norm %.3g, smoothing %g",
							fp->passes, c->step_f, c->gnorm, c->step_mu)));
		if (a & GSU_CONT_DONE)
			break;
	}
}

Datum
gsu_fit(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char	   *mean,
			   *variance,
			   *label,
			   *sql;
	Jsonb	   *options;
	GsuModel   *init = NULL,
			   *m;
	FitPass		fp;
	Oid			argtypes[2];
	double	   *theta,
			   *g,
				gnorm0,
				f_true = 0.0;
	bool		converged = false;
	int			guc_level;
	gsu_continuation c;
	struct timespec t0,
				t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gsu.fit needs a relation and the names of its mean and label columns")));
	relid = PG_GETARG_OID(0);
	mean = text_to_cstring(PG_GETARG_TEXT_PP(1));
	variance = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	label = text_to_cstring(PG_GETARG_TEXT_PP(3));
	options = PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4);

	/* lock it for the whole training, and make sure it (still) exists */
	LockRelationOid(relid, AccessShareLock);
	if (get_rel_name(relid) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));

	memset(&fp, 0, sizeof(fp));
	gsu_parse_train_options(options, &fp.opt, &init);
	if (init)
		gsu_model_require_plain_binary(init, "the \"init\" model of gsu.fit");
	if (fp.opt.solver != GSU_SOLVER_LBFGS && options != NULL &&
		getKeyJsonValueFromContainer(&options->root, "solver", strlen("solver"), NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit runs the lbfgs solver only"),
				 errhint("Omit \"solver\", or use gsu.train for the newton, pegasos and sgd solvers.")));
	gsu_require_gradient_loss(fp.opt.loss, "gsu.fit");
	if (fp.opt.map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsu.fit does not take the option \"features\""),
				 errhint("Train a model with a feature map with the aggregate gsu.train.")));
	fp.opt.solver = GSU_SOLVER_LBFGS;
	gsu_reject_class_weight(&fp.opt, "gsu.fit");
	fp.model_type = get_fn_expr_rettype(fcinfo->flinfo);

	sql = pass_query(relid,
					 quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid))),
					 mean, variance, label);
	if (sql == NULL)
		PG_RETURN_NULL();

	/*
	 * The pass queries resolve names with search_path = pg_catalog, pg_temp:
	 * an operator, cast or function planted in a schema of the caller's path
	 * must not run inside them (an error restores the setting with the
	 * transaction).
	 */
	guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit could not connect to SPI")));
	argtypes[0] = fp.model_type;
	argtypes[1] = FLOAT8OID;
	fp.plan = SPI_prepare(sql, 2, argtypes);
	if (fp.plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The pass query was: %s", sql)));

	/* the first pass, at θ = 0, gives the dimension and the scale of the stopping rule */
	fp.dim = init ? init->dim : 0;
	{
		GsuPartial *p0 = run_pass(&fp, NULL, fp.opt.smoothing);

		if (p0 == NULL)
		{
			SPI_finish();
			AtEOXact_GUC(true, guc_level);
			PG_RETURN_NULL();
		}
		g = palloc(sizeof(double) * (fp.dim + 1));
		/*
		 * Without a model the pass has no subspace: in mode gaussian the
		 * projected means change the gradient at θ = 0, so it is taken
		 * again, at the zero model with the options (in mode covariance
		 * d_Σ = 0 at θ = 0 and the restriction changes nothing).
		 */
		if (fp.opt.subspace_fraction < 1.0 && fp.opt.subspace_mode == GSU_SUBSPACE_GAUSSIAN &&
			gsu_loss_info(fp.opt.loss)->uses_covariance)
		{
			double	   *zero = palloc0(sizeof(double) * (fp.dim + 1));

			pfree(p0);
			p0 = run_pass(&fp, zero, fp.opt.smoothing);
			if (p0 == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the relation has no training rows any more: they were deleted while gsu.fit ran")));
			pfree(zero);
		}
		(void) objective_from(&fp, p0, NULL, g);
		pfree(p0);
	}
	gsu_check_two_classes(fp.n, fp.n_pos, "training");
	gnorm0 = norm(fp.dim + 1, g);
	if (gnorm0 == 0.0)
		gnorm0 = 1.0;
	theta = palloc0(sizeof(double) * (fp.dim + 1));
	if (init)
		memcpy(theta, GSU_MODEL_THETA(init, 0), sizeof(double) * (fp.dim + 1));

	gsu_report_status(gsu_continuation_init(&c, fp.dim + 1, theta, fp.opt.smoothing,
											 fp.opt.tolerance, gnorm0, init != NULL,
											 gsu_loss_info(fp.opt.loss)->uses_covariance),
					  "gsu.fit");
	PG_TRY();
	{
		fit_stages(&fp, &c, g, init != NULL);
	}
	PG_FINALLY();
	{
		gsu_continuation_free(&c);
	}
	PG_END_TRY();
	converged = c.gnorm <= fp.opt.tolerance * gnorm0;

	/* the true objective (μ = 0) at the result */
	f_true = c.f_is_true ? c.f : evaluate(&fp, theta, 0.0, g);
	SPI_finish();
	AtEOXact_GUC(true, guc_level);

	m = gsu_model_from_options(fp.dim, 2, 0, &fp.opt);
	memcpy(GSU_MODEL_THETA(m, 0), theta, sizeof(double) * (fp.dim + 1));
	m->rows = fp.n;
	m->iterations = c.accepted;
	m->passes = fp.passes;
	m->objective = f_true;
	m->gradient_norm = c.gnorm;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
	m->gap_estimate = gsu_gap_bound(c.gnorm, fp.opt.lambda, c.mu, f_true);
	if (converged)
		m->flags |= GSU_MODEL_CONVERGED;
	else
		ereport(WARNING,
				(errmsg("gsu.fit did not reach the tolerance %g in " INT64_FORMAT " passes",
						fp.opt.tolerance, fp.passes),
				 errhint("Raise \"max_iterations\" (the number of passes) or \"smoothing\".")));
	gsu_check_trained_model(m, "gsu.fit");
	gsu_model_validate(m, ERRCODE_INTERNAL_ERROR);
	PG_RETURN_GSU_MODEL(m);
}
