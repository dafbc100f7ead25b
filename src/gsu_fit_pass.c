/*
 * gsu_fit_pass.c — the passes of gsu.fit, the floor its solvers stand on:
 * which relations a scan reads (the relation, or its leaf partitions
 * apart), the query of a pass of gsu.gradient or gsu.hessian, one pass at a
 * point with its row and class weights, and the helpers the solvers share.
 * It calls no solver: gsu_fit_lbfgs.c, gsu_fit_newton.c and
 * gsu_fit_standardize.c call it, and gsu_fit.c (the SQL entry) all of them.
 *
 * The derivation: src/README, section gsu_fit.c.
 */
#include "gsu_fit_pass.h"

#include <math.h>
#include <time.h>

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "storage/lmgr.h"

char *
gsu_fit_qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

/*
 * The aggregate over one relation (ONLY: a leaf partition's own rows);
 * ordinal numbers the branches of a partitioned table, so that their
 * partials are added in a fixed order whatever order the (asynchronous)
 * branches finish in.  It comes after the aggregate: a leading constant
 * stops postgres_fdw's async scans.  With split, two aggregates of the same
 * scan, the rows of label 1 (p) and the others (q), whose sums gsu.fit
 * weighs by class (class_weight "balanced", known once the first pass has
 * counted the classes); with a weight, the weight sums ws (and wq) of the
 * rows the aggregates read.
 */
static void
append_gradient_select(StringInfo sql, const FitPass *fp, Oid relid, bool only, int ordinal,
					   const char *schema, const char *agg)
{
	const char *l = fp->label_sql;
	const char *weight = fp->weight;
	bool		split = fp->split;
	int			k;

	appendStringInfoString(sql, "SELECT ");
	for (k = 0; k < (split ? 2 : 1); k++)
		appendStringInfo(sql, "%s.%s(%s, %s, %s%s%s, $1, $2%s)%s AS %s, ",
						 schema, agg, fp->mean_sql,
						 fp->var_sql ? fp->var_sql : "NULL::float8[]",
						 l, weight ? ", " : "", weight ? weight : "",
						 strcmp(agg, "hessian") == 0 ? ", $3" : "",
						 !split ? "" : k == 0 ? psprintf(" FILTER (WHERE %s OPERATOR(pg_catalog.=) 1)", l) :
						 psprintf(" FILTER (WHERE %s OPERATOR(pg_catalog.<>) 1)", l),
						 k == 0 ? "p" : "q");
	/* the weight sum W of the rows the aggregate reads (NULL and 0 weights add nothing) */
	if (weight)
		for (k = 0; k < (split ? 2 : 1); k++)
			appendStringInfo(sql, "pg_catalog.sum((%s)::pg_catalog.float8) FILTER (WHERE %s IS NOT NULL AND %s%s) AS %s, ",
							 weight, fp->mean_sql, l,
							 !split ? " IS NOT NULL" : k == 0 ? " OPERATOR(pg_catalog.=) 1" : " OPERATOR(pg_catalog.<>) 1",
							 k == 0 ? "ws" : "wq");
	appendStringInfo(sql, "%d AS i FROM %s%s", ordinal, only ? "ONLY " : "",
					 gsu_fit_qualified_name(relid));
}

/*
 * Which relations the scans read.  A scan must read exactly the rows that
 * SELECT … FROM relation returns to the caller: the parent's privileges and
 * row-level security policies apply to the rows of every partition read
 * through it, while a partition read by itself (FROM ONLY leaf) checks the
 * leaf's privileges and applies the leaf's policies instead.  Reading the
 * leaves apart is what lets postgres_fdw push each foreign partition's
 * aggregate to its server (PostgreSQL 15 pushes no partial aggregate of a
 * partitioned table), so it is done when it changes nothing the caller would
 * see, and only where it gains that:
 *   - the relation is a partitioned table with at least one foreign leaf;
 *   - no row-level security applies to the caller on the parent (its
 *     policies would be lost) nor on any leaf (its policies would filter
 *     rows that the parent returns);
 *   - the caller may SELECT the columns read on every leaf (else reading the
 *     leaf fails where reading the parent succeeds).
 * Otherwise every scan reads the relation itself, and postgres_fdw sends
 * the foreign partitions' rows rather than their sums.  The relation is
 * locked for the whole training and every leaf by find_all_inheritors, so
 * no policy or RLS setting (ALTER TABLE, CREATE POLICY: an
 * AccessExclusiveLock) changes under the scans; a privilege revoked
 * meanwhile makes a leaf's scan fail, as it checks the leaf's privileges at
 * each execution.  The leaves are those of the first scan: a partition
 * attached while gsu.fit runs (ATTACH PARTITION's lock does not conflict
 * with ours) is not read, as rows inserted meanwhile may or may not be.
 */
List *
gsu_fit_leaves(Oid relid, const char *const *cols, int ncols)
{
	List	   *all,
			   *leaves = NIL;
	ListCell   *lc;
	bool		foreign = false;
	Oid			user = GetUserId();

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE ||
		check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		return NIL;
	all = find_all_inheritors(relid, AccessShareLock, NULL);
	foreach(lc, all)
	{
		Oid			leaf = lfirst_oid(lc);
		char		kind = get_rel_relkind(leaf);
		int			c;

		if (kind == RELKIND_PARTITIONED_TABLE)
			continue;
		if (kind == RELKIND_FOREIGN_TABLE)
			foreign = true;
		if (check_enable_rls(leaf, InvalidOid, true) == RLS_ENABLED)
			return NIL;
		if (pg_class_aclcheck(leaf, user, ACL_SELECT) != ACLCHECK_OK)
			for (c = 0; c < ncols; c++)
			{
				AttrNumber	att;

				if (cols[c] == NULL)
					continue;
				att = get_attnum(leaf, cols[c]);
				if (att == InvalidAttrNumber ||
					pg_attribute_aclcheck(leaf, att, user, ACL_SELECT) != ACLCHECK_OK)
					return NIL;
			}
		leaves = lappend_oid(leaves, leaf);
	}
	return foreign ? leaves : NIL;
}

/*
 * The query of one pass.  schema is the extension's own (quoted), so that the
 * aggregates called are pg_gsu's whatever the caller's search_path holds; the
 * query runs with search_path = pg_catalog, pg_temp (see gsu_fit).
 */
char *
gsu_fit_pass_query(const FitPass *fp, Oid relid, const char *schema, const char *agg)
{
	StringInfoData sql;

	initStringInfo(&sql);
	if (fp->leaves != NIL)
	{
		ListCell   *lc;

		appendStringInfo(&sql, "SELECT %s.sum(p ORDER BY i)", schema);
		if (fp->split)
			appendStringInfo(&sql, ", %s.sum(q ORDER BY i)", schema);
		if (fp->weight)
			appendStringInfoString(&sql, ", pg_catalog.sum(ws ORDER BY i)");
		if (fp->weight && fp->split)
			appendStringInfoString(&sql, ", pg_catalog.sum(wq ORDER BY i)");
		appendStringInfoString(&sql, " FROM (");
		foreach(lc, fp->leaves)
		{
			if (foreach_current_index(lc) > 0)
				appendStringInfoString(&sql, " UNION ALL ");
			append_gradient_select(&sql, fp, lfirst_oid(lc), true, foreach_current_index(lc) + 1,
								   schema, agg);
		}
		appendStringInfoString(&sql, ") AS partials");
	}
	else
		append_gradient_select(&sql, fp, relid, false, 0, schema, agg);
	return sql.data;
}

/* see gsu_fit_pass.h */
void
gsu_fit_count_scan(FitPass *fp, int ret)
{
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit scan " INT64_FORMAT " failed: %s", fp->passes + 1,
						SPI_result_code_string(ret))));
	fp->passes++;
}

/*
 * One pass: the partial of gsu.gradient at θ (theta NULL: θ = 0), or NULL
 * when the relation has no usable rows.
 */
GsuPartial *
gsu_fit_run_pass(FitPass *fp, const double *theta, double mu)
{
	Datum		args[3];
	char		nulls[3] = {' ', ' ', ' '};
	GsuModel   *at = NULL;
	GsuPartial *p;
	bool		isnull;
	int			ret;
	Datum		d;
	double		wsum = 0.0;

	CHECK_FOR_INTERRUPTS();
	if (theta || fp->std || fp->miss)
	{
		/* the point, with the options' loss, subspace fraction and mode, statistics */
		at = gsu_fit_model(fp);
		if (theta)
			memcpy(GSU_MODEL_THETA(at, 0), theta, sizeof(double) * (fp->dim + 1));
		args[0] = PointerGetDatum(at);
	}
	else
	{
		args[0] = (Datum) 0;
		nulls[0] = 'n';
	}
	args[1] = Float8GetDatum(mu);
	args[2] = Float8GetDatum(fp->band);

	/*
	 * count 0 (all rows), though the query returns one: PostgreSQL runs no
	 * parallel worker for an execution asked for a limited number of rows
	 * (ExecutePlan, since 15.11/16.7/17.3: "Simplify executor's determination
	 * of whether to use parallelism"), which a count of 1 is
	 */
	ret = SPI_execute_plan(fp->plan, args, nulls, true, 0);
	gsu_fit_count_scan(fp, ret);
	if (at)
		pfree(at);
	{
		int			nparts = fp->split ? 2 : 1,
					k;
		GsuPartial *part[2] = {NULL, NULL};
		double		w[2] = {0.0, 0.0};

		for (k = 0; k < nparts; k++)
		{
			d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1 + k, &isnull);
			if (!isnull)
				part[k] = gsu_partial_from_datum(d);
			if (fp->weight)
			{
				/* W = Σ c_i, summed by the same scan */
				d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1 + nparts + k, &isnull);
				w[k] = isnull ? 0.0 : DatumGetFloat8(d);
			}
			else if (part[k])
				w[k] = (double) part[k]->n;
		}
		if (part[0] == NULL && part[1] == NULL)
		{
			SPI_freetuptable(SPI_tuptable);
			return NULL;
		}
		if (fp->split && fp->cw[0] == 0.0)
		{
			/*
			 * "balanced" from the first pass's class counts (the rows the
			 * aggregates read), n/(2 n_c), as gsu.train (one class: the
			 * caller's error)
			 */
			int64		npos = part[0] ? part[0]->n : 0,
						nneg = part[1] ? part[1]->n : 0;

			fp->cw[1] = npos > 0 ? (double) (npos + nneg) / (2.0 * (double) npos) : 1.0;
			fp->cw[0] = nneg > 0 ? (double) (npos + nneg) / (2.0 * (double) nneg) : 1.0;
		}
		if (fp->split)
		{
			p = gsu_partial_weighted_sum(part[0], fp->cw[1], part[1], fp->cw[0]);
			wsum = fp->cw[1] * w[0] + fp->cw[0] * w[1];
		}
		else
		{
			p = palloc(VARSIZE(part[0]));
			memcpy(p, part[0], VARSIZE(part[0]));
			wsum = w[0];
		}
		/*
		 * positive: the aggregates read a row; float8 sum raises its own
		 * overflow (22003).  With "balanced" the classes' sums times their
		 * weights are added here; the partial's own weighted elements
		 * (Σ c·y·x, the loss, Σ c past the band) overflowed first on every
		 * table we built to reach this, so it stays an internal guard.
		 */
		if (!(wsum > 0.0 && isfinite(wsum)))
			elog(ERROR, "gsu.fit: the weight sum of a pass is %g", wsum);
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
	fp->wsum = wsum;
	fp->min_dsigma = p->min_dsigma;
	return p;
}

void
gsu_fit_not_finite(bool at_init)
{
	if (at_init)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the objective of the \"init\" model is not finite on the rows of the relation"),
				 errdetail("Its decision values overflow on these rows, or their losses "
						   "sum beyond the range of double precision."),
				 errhint("Start from a model trained on features of a similar scale, or "
						 "leave out \"init\".")));
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("gsu.fit diverged: the objective or its gradient is out of range "
					"for type double precision"),
			 errhint("Rescale the features or raise \"lambda\".")));
}

/* seconds since t0 */
double
gsu_fit_elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double) (t1.tv_sec - t0->tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0->tv_nsec);
}

/* see gsu_fit_pass.h */
GsuModel *
gsu_fit_model(const FitPass *fp)
{
	GsuModel   *m = gsu_model_from_options(fp->dim, 2, 0, &fp->opt);
	GsuModel   *r;

	if (fp->std)
	{
		r = gsu_model_with_standardization(m, fp->std, fp->std + fp->dim);
		pfree(m);
		m = r;
	}
	if (fp->miss)
	{
		/* the moments of "missing", which the passes' rows are filled with */
		r = gsu_model_with_missing(m, fp->miss, fp->opt.missing_nan != 0);
		pfree(m);
		m = r;
	}
	return m;
}
