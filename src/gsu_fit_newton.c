/*
 * gsu_fit_newton.c — gsu.fit's solver newton: a sample trained in memory as
 * the warm start, then Newton steps with the exact Hessian, one scan of the
 * relation (one gsu.hessian aggregate) each (core/gsu_scan_newton.c); the
 * certain rows of the hinge loss finish with a polish certified by its
 * duality gap.  gsu_fit.c has the entry point, the passes and the lbfgs
 * solver.
 */
#include "gsu_fit_newton.h"
#include "gsu_fit_standardize.h"
#include "gsu_fit_missing.h"
#include "gsu_progress.h"
#include "gsu_train.h"

#include <math.h>
#include <time.h>

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "core/gsu_continuation.h"
#include "core/gsu_scan_newton.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"



/*
 * The first row with a mean and a label, through the aggregate of the
 * scans, so that a column of the wrong type fails as every scan would.
 */
RowShape
gsu_fit_probe_row(const FitPass *fp, Oid relid, const char *schema)
{
	StringInfoData sql;
	RowShape	r = {false, 0, 0, 0};
	Oid			argtypes[1] = {fp->model_type};
	Datum		args[1] = {(Datum) 0};
	char		nulls[1] = {'n'};
	bool		isnull;
	int			ret;
	Datum		d;
	const char *weight = fp->weight;

	initStringInfo(&sql);
	/* weighted: the first row of weight not NULL or 0, through the weighted aggregate */
	appendStringInfo(&sql, "SELECT %s.hessian(m, v, l%s, $1, 0::pg_catalog.float8, 0::pg_catalog.float8), "
					 "max(pg_catalog.array_ndims(v)), max(pg_catalog.array_length(v, 2)) FROM "
					 "(SELECT %s AS m, %s AS v, %s AS l%s%s%s FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL",
					 schema, weight ? ", c" : "", fp->mean_sql,
					 fp->var_sql ? fp->var_sql : "NULL::float8[]",
					 fp->label_sql, weight ? ", " : "", weight ? weight : "",
					 weight ? " AS c" : "", gsu_fit_qualified_name(relid), fp->mean_sql,
					 fp->label_sql);
	if (weight)
		appendStringInfo(&sql, " AND %s IS NOT NULL AND %s OPERATOR(pg_catalog.<>) 0", weight, weight);
	appendStringInfoString(&sql, " LIMIT 1) AS s");
	if (fp->miss)
	{
		/* "missing": the moments that fill the row (the scan of gsu_fit_missing.c fixed dim) */
		args[0] = PointerGetDatum(gsu_fit_model(fp));
		nulls[0] = ' ';
	}
	ret = SPI_execute_with_args(sql.data, 1, argtypes, args, nulls, true, 1);
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit could not read a row: %s", SPI_result_code_string(ret))));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		GsuPartial *p = gsu_partial_from_datum(d);
		Datum		nd = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		int			ndims = isnull ? 0 : DatumGetInt32(nd);
		Datum		cd = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
		int			cols = isnull ? 0 : DatumGetInt32(cd);

		r.found = true;
		r.dim = p->dim;
		/* a dim × r array with r < dim is a factor L of Σ = LLᵀ: dim · r doubles */
		r.cov_doubles = ndims == 0 ? 0 : ndims == 1 ? (Size) p->dim :
			cols >= 1 && cols < p->dim ? (Size) p->dim * cols : (Size) p->dim * p->dim;
		r.rank = ndims == 2 && cols >= 1 && cols < p->dim ? cols : 0;
	}
	SPI_freetuptable(SPI_tuptable);
	return r;
}

/* one branch of the sample: the k rows of smallest hash of one relation */
static void
append_sample_select(StringInfo sql, const FitPass *fp, Oid relid, bool only, int64 seed, int64 k)
{
	const char *weight = fp->weight;

	/* weighted: among the rows of weight not NULL or 0, with it as c */
	appendStringInfo(sql, "(SELECT %s AS m, %s AS v, %s AS l, pg_catalog.hash_array_extended(%s, "
					 INT64_FORMAT "::pg_catalog.int8) AS h, %s AS c FROM %s%s WHERE %s IS NOT NULL AND %s IS NOT NULL ",
					 fp->mean_sql, fp->var_sql ? fp->var_sql : "NULL::float8[]",
					 fp->label_sql, fp->mean_sql, seed,
					 weight ? weight : "1::pg_catalog.float8", only ? "ONLY " : "",
					 gsu_fit_qualified_name(relid), fp->mean_sql, fp->label_sql);
	if (weight)
		appendStringInfo(sql, "AND %s IS NOT NULL AND %s OPERATOR(pg_catalog.<>) 0 ", weight, weight);
	appendStringInfo(sql, "ORDER BY 4, 3 LIMIT " INT64_FORMAT ")", k);
}

/*
 * The query of the sample scan: gsu.train on the k rows of smallest
 * hash_array_extended(mean, seed) (ties by label), NULL unless both classes
 * and no other label are in it (the scans report a bad label), and the
 * sample's size.  $1 the options; the seed and k are constants of the
 * query, so that postgres_fdw sends ORDER BY and LIMIT to the shards: when
 * the scans read the leaf partitions apart (fp->leaves), each gives its k
 * smallest, and the union keeps the k smallest.
 */
static char *
sample_query(const FitPass *fp, Oid relid, const char *schema, int64 seed, int64 k)
{
	StringInfoData sql;

	/*
	 * gsu.fit's scans take any mix of covariance forms (each row's loss
	 * reads its own Σ), while gsu.train's buffer holds covariance factors
	 * only beside certain rows, all of one rank: a sample that mixes a
	 * factor with another form or rank (fmin < fmax, 0 for the other
	 * forms, r for a dim × r factor) is trained on its means, a warm start
	 * all the same
	 */
	bool		mixes = fp->var_sql != NULL && gsu_loss_info(fp->opt.loss)->uses_covariance;
	const char *form = "CASE WHEN pg_catalog.array_ndims(v) OPERATOR(pg_catalog.=) 2 AND "
		"pg_catalog.array_length(v, 2) OPERATOR(pg_catalog.<) pg_catalog.array_length(v, 1) "
		"THEN pg_catalog.array_length(v, 2) WHEN v IS NOT NULL THEN 0 END";

	initStringInfo(&sql);
	/* weighted: the weighted problem on the sample (the sample is of rows, uniform) */
	appendStringInfo(&sql, "SELECT %s.train(m, %s, l%s, $1 ORDER BY h, l) "
					 "FILTER (WHERE npos > 0 AND npos < cnt AND nbad = 0), count(*) "
					 "FROM (SELECT m, v, l, h, c, count(*) OVER () AS cnt, "
					 "count(*) FILTER (WHERE l = 1) OVER () AS npos, "
					 "count(*) FILTER (WHERE l <> 1 AND l <> -1) OVER () AS nbad",
					 schema,
					 mixes ? "CASE WHEN fmin OPERATOR(pg_catalog.<) fmax THEN NULL::pg_catalog.float8[] ELSE v END" : "v",
					 fp->weight ? ", c" : "");
	if (mixes)
		appendStringInfo(&sql, ", pg_catalog.min(%s) OVER () AS fmin, pg_catalog.max(%s) OVER () AS fmax",
						 form, form);
	appendStringInfoString(&sql, " FROM (");
	if (fp->leaves != NIL)
	{
		ListCell   *lc;

		appendStringInfoString(&sql, "SELECT * FROM (");
		foreach(lc, fp->leaves)
		{
			if (foreach_current_index(lc) > 0)
				appendStringInfoString(&sql, " UNION ALL ");
			append_sample_select(&sql, fp, lfirst_oid(lc), true, seed, k);
		}
		appendStringInfo(&sql, ") AS b ORDER BY h, l LIMIT " INT64_FORMAT, k);
	}
	else
		append_sample_select(&sql, fp, relid, false, seed, k);
	appendStringInfoString(&sql, ") AS s) AS t");
	return sql.data;
}

/*
 * The options of the sample's gsu.train: those of the problem, with
 * gsu.train's default solver for the loss (newton; dcd for the hinge);
 * "balanced" with its class counts from the sample (an estimate: a warm
 * start), else the class weights are in the row weights
 */
static Jsonb *
sample_options(const FitPass *fp)
{
	const GsuTrainOptions *o = &fp->opt;
	StringInfoData buf;

	initStringInfo(&buf);
	/* the stored options marked SAMPLE (GSU_STORED_OPTIONS), then those of their own */
	appendStringInfoChar(&buf, '{');
	gsu_options_append_sample(&buf, o);
	/* "missing": the sample's rows filled with the moments of all rows */
	if (fp->miss)
		gsu_fit_missing_sample_options(fp, &buf);
	appendStringInfo(&buf, ", \"standardize\": %s%s}", o->standardize ? "true" : "false",
					 o->class_weight == GSU_CLASS_WEIGHT_BALANCED ? ", \"class_weight\": \"balanced\"" : "");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/*
 * The work_mem of the sample's query, in kB: a sixteenth of the sample's
 * budget (90% of gsu.max_training_memory), at least 64 kB, at most the
 * session's work_mem.  The query's sorts and tuplestores (sample_buffers)
 * each hold at most about this much and spill the rest to temporary files.
 */
static int
sample_work_mem_kb(void)
{
	double		budget_kb = 0.9 * (double) gsu_max_training_memory_kb;

	return (int) fmin((double) work_mem, fmax(64.0, budget_kb / 16.0));
}

/*
 * The sorts and tuplestores of the sample's query that hold rows: the
 * bottom-k sort of the relation (with the leaves read apart, one per local
 * leaf and one over their union; a foreign leaf's runs on its server), the
 * window's tuplestore (the class counts) and the sort of gsu.train's
 * ORDER BY.
 */
static int
sample_buffers(const FitPass *fp)
{
	int			n = 3;
	ListCell   *lc;

	foreach(lc, fp->leaves)
		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_FOREIGN_TABLE)
			n++;
	return n;
}

/*
 * The rows of the sample: 200 per dimension and at least 20000, at most
 * 200000, as many as fit within 90% of gsu.max_training_memory with
 * everything the sample's query holds: gsu.train's own count
 * (gsu_train_buffered_bytes: the rows, their buffer's doubling and the
 * solver, for the sample's options (its solver is gsu.train's default for
 * the loss: dcd for the hinge, else newton) and a weight a row when the
 * relation has a weight column), plus nbuf sorts and tuplestores
 * (sample_buffers), each holding the k rows as tuples or the query's
 * work_mem (sample_work_mem_kb), whichever is less.  A tuple of the query
 * is counted as its arrays (8 bytes a double, with their headers) and about
 * 160 bytes of the tuple's header, its other columns, the sort's slot and
 * the allocation's header.
 */
static double
sample_bytes(const GsuTrainOptions *so, const RowShape *r, bool weighted, int nbuf, double wbytes,
			 int64 k)
{
	Size		per_row = (Size) r->dim + 1 + r->cov_doubles + (weighted ? 1 : 0);
	double		tuple = 8.0 * (double) per_row + 160.0;

	return gsu_train_buffered_bytes(so, k, gsu_rows_capacity(k, per_row), r->dim, r->cov_doubles,
									r->rank, weighted) +
		(double) nbuf * fmin(wbytes, (double) k * tuple);
}

static int64
sample_rows(const RowShape *r, const GsuTrainOptions *o, bool weighted, int nbuf, int wkb)
{
	GsuTrainOptions so = *o;
	double		limit = 0.9 * (double) gsu_max_training_memory_kb * 1024.0,
				wbytes = (double) wkb * 1024.0;
	int64		lo = 0,
				hi = (int64) fmin(fmax(20000.0, 200.0 * (r->dim + 1.0)), 200000.0);

	so.solver = gsu_loss_info(o->loss)->default_solver;
	if (sample_bytes(&so, r, weighted, nbuf, wbytes, hi) <= limit)
		return hi;
	/* the largest k that fits: the count is increasing in k */
	while (hi - lo > 1)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (sample_bytes(&so, r, weighted, nbuf, wbytes, mid) <= limit)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Scan 1 of the solver newton: the model trained on the sample, into theta;
 * false (theta unchanged) when the sample has one class only.  *rows
 * receives the sample's size (0: the relation has no rows).
 */
static bool
sample_scan(FitPass *fp, const char *sql, double *theta, int64 *rows, double *f_sample)
{
	Oid			argtypes[1] = {JSONBOID};
	Datum		args[1];
	char		nulls[1] = {' '};
	bool		isnull;
	int			ret;
	Datum		d;
	bool		trained = false;
	int			level;

	args[0] = JsonbPGetDatum(sample_options(fp));
	CHECK_FOR_INTERRUPTS();
	/* the sample's training is a means: its warnings (a tolerance not met) are not the user's */
	level = NewGUCNestLevel();
	(void) set_config_option("client_min_messages", "error", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	/* its sorts and tuplestores within the share of the budget sample_rows left them */
	(void) set_config_option("work_mem", psprintf("%d", sample_work_mem_kb()), PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	/* count 0: with a count, no parallel worker runs (gsu_fit_run_pass) */
	ret = SPI_execute_with_args(sql, 1, argtypes, args, nulls, true, 0);
	AtEOXact_GUC(true, level);
	gsu_fit_count_scan(fp, ret);
	*rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		GsuModel   *sm = (GsuModel *) PG_DETOAST_DATUM(d);

		if (sm->dim == fp->dim && sm->nclasses == 2)
		{
			gsu_fit_start_theta(fp, sm, theta);
			*f_sample = sm->objective;
			trained = true;
		}
	}
	SPI_freetuptable(SPI_tuptable);
	return trained;
}

/* see gsu_fit_newton.h */
bool
gsu_fit_newton_band(const FitPass *fp)
{
	return !gsu_loss_info(fp->opt.loss)->uses_covariance || fp->var_sql == NULL;
}

/* The solver newton across its scans. */
typedef struct NewtonRun
{
	FitPass    *fp;
	Size		mm;				/* dim + 1 */
	bool		from_init;		/* θ started at the "init" model */
	double	   *theta;			/* Newton's accepted point (updated in place by c) */
	double	   *cand;			/* the polish's candidate */
	double	   *best;			/* the certified candidate */
	double		newton_smoothing;	/* the μ Newton stops at */
	double		gnorm0;			/* ‖∇F(0)‖, the scale of the stopping rule */
	double		cand_dual;		/* the candidate's dual objective */
	double		cand_kkt;		/* and the residual of the band's optimality conditions */
	double		polish_gap;		/* the candidate's duality gap, measured by the next scan */
	bool		first;			/* no scan at a point yet */
	bool		pending;		/* the next scan is at cand */
	bool		polished;		/* best is certified */
	int			polish_tries;
	int			polish_fails;
	double	   *near_best;		/* the uncertified candidate of least objective */
	double		near_primal;	/* its objective (HUGE_VAL: none) */
	double		near_kkt;
	double		best_dual;		/* the largest dual objective of a candidate (−HUGE_VAL: none) */
	int64		warm_n;			/* the last solved band: its rows (x, y·c) and α */
	double	   *warm_rows;
	double	   *warm_alpha;
	gsu_scan_newton c;
} NewtonRun;

/* Newton (c) from r->theta at smoothing mu_start down to r->newton_smoothing */
static void
newton_begin(NewtonRun *r, double mu_start)
{
	const FitPass *fp = r->fp;

	gsu_report_status(gsu_scan_newton_init(&r->c, (int) r->mm, r->theta, fp->opt.lambda, mu_start,
										   r->newton_smoothing, fp->opt.tolerance,
										   gsu_loss_info(fp->opt.loss)->uses_covariance),
					  "gsu.fit");
}

/*
 * The start of the solver newton: θ from "init", or scan 1, the sample
 * trained in memory; *warm: θ is near the optimum; *complete: θ is its
 * optimum (the sample was the whole relation).  Also the band of the
 * polish (fp->band).
 */
static void
newton_warm_start(NewtonRun *r, GsuModel *init, Oid relid, const char *schema,
				  const RowShape *shape, const struct timespec *t0, bool *warm, bool *complete)
{
	FitPass    *fp = r->fp;
	int64		k = sample_rows(shape, &fp->opt, fp->weight != NULL, sample_buffers(fp),
									sample_work_mem_kb());

	*warm = init != NULL;
	*complete = false;
	fp->band = gsu_fit_newton_band(fp) ? 0.1 : 0.0;
	if (init)
		memcpy(r->theta, GSU_MODEL_THETA(init, 0), sizeof(double) * r->mm);
	else if (k >= 16 && fp->opt.max_iterations > 1)
	{
		int64		rows = 0;
		double		f_sample = 0.0;
		/* the seed as int8 (its bits): hash_array_extended takes any */
		char	   *sample_sql = sample_query(fp, relid, schema, (int64) fp->opt.seed, k);

		*warm = sample_sql != NULL && sample_scan(fp, sample_sql, r->theta, &rows, &f_sample);
		/* fewer rows than asked for: the sample is the relation, θ its optimum */
		*complete = *warm && rows < k;
		if (*warm && gsu_progress_on())
			ereport(NOTICE,
					(errmsg("gsu.fit pass " INT64_FORMAT ": a sample of " INT64_FORMAT
							" rows trained in memory", fp->passes, rows),
					 errdetail("objective on the sample %.12g, %.3f s", f_sample, gsu_fit_elapsed(t0))));
	}
}

/*
 * The scan at the polish's candidate: true when its duality gap certifies
 * it (the exact hinge optimum: r->best); else *near when it is close to
 * optimal (its band is worth another polish) and *restart when Newton goes
 * on from it (it is better than Newton's point, or the first scan).
 */
static bool
check_candidate(NewtonRun *r, const GsuPartial *p, double n, bool *near, bool *restart)
{
	FitPass    *fp = r->fp;
	double		ww = 0.0,
				f0;
	Size		j;

	for (j = 0; j < r->mm - 1; j++)
		ww += r->cand[j] * r->cand[j];
	f0 = 0.5 * fp->opt.lambda * ww + p->vec[GSU_PARTIAL_HESS_LOSS0(fp->dim)] / n;
	r->polish_gap = f0 - r->cand_dual;
	r->pending = false;
	ereport(DEBUG1,
			(errmsg("gsu.fit: the polish's candidate: primal %.12g, dual %.12g, gap %.3g (relative %.3g)",
					f0, r->cand_dual, r->polish_gap, r->polish_gap / fmax(f0, 1e-300))));
	if (r->polish_gap <= 1e-10 * fmax(f0, 1e-300))
	{
		memcpy(r->best, r->cand, sizeof(double) * r->mm);
		r->polished = true;
		/* the exact hinge optimum: its gap is certified */
		gsu_trace_pass(fp->trace, fp->passes, f0, GSU_TRACE_NONE, fmax(r->polish_gap, 0.0));
		return true;
	}
	/* the polish's candidate (a Newton step of the same scan may follow) */
	gsu_trace_pass(fp->trace, fp->passes, f0, GSU_TRACE_NONE, r->polish_gap);
	/*
	 * Every candidate's dual objective bounds the optimum from below: the
	 * largest certifies whatever point the run ends at, and the candidate of
	 * least objective is the model if Newton ends above it (newton_result)
	 */
	r->best_dual = fmax(r->best_dual, r->cand_dual);
	if (f0 < r->near_primal)
	{
		memcpy(r->near_best, r->cand, sizeof(double) * r->mm);
		r->near_primal = f0;
		r->near_kkt = r->cand_kkt;
	}
	/* a candidate close to optimal: its band is worth another polish */
	*near = r->polish_gap <= 1e-3 * fabs(f0);
	/* not optimal yet: Newton goes on from the candidate (if it is better) */
	if (f0 < r->c.f_true || r->first)
	{
		double		mu_now = r->c.mu;

		gsu_scan_newton_free(&r->c);
		memcpy(r->theta, r->cand, sizeof(double) * r->mm);
		newton_begin(r, mu_now);
		*restart = true;
	}
	return false;
}

/* the scan's sums at Newton's point told to Newton: what it did (GSU_SN_*) */
static int
newton_tell(NewtonRun *r, const GsuPartial *p, double n)
{
	FitPass    *fp = r->fp;
	gsu_status	s;
	int			a;

	a = gsu_scan_newton_tell(&r->c, n, p->loss_sum,
							 p->vec[GSU_PARTIAL_HESS_LOSS0(fp->dim)], p->vec,
							 p->vec + GSU_PARTIAL_HESS_H(fp->dim), p->min_dsigma,
							 r->gnorm0, &s);
	if (s == GSU_ENOTFINITE)
		gsu_fit_not_finite(r->first && r->from_init);
	gsu_report_status(s, "gsu.fit");
	gsu_trace_pass(fp->trace, fp->passes, r->c.f, r->c.gnorm, r->c.decrement);
	return a;
}

/*
 * The start of the band's dual, alpha (ns numbers): each row's α in the last
 * band solved when the row was in it (matched by its bytes: x and y·c),
 * else 0; false (all 0) when there is no last band.  Between two polishes the band
 * changes by a few rows, and SMO from the last α needs a few steps where
 * from 0 it can exhaust its bound (on 10000 × 100 nearly separable rows at
 * λ = 1e-4 two tries of ~240 rows failed from 0).
 */
static bool
warm_alpha(const NewtonRun *r, const double *rows, int64 ns, double *alpha)
{
	Size		m = r->mm,
				bytes = sizeof(double) * m;
	uint32		size = 16,
				mask;
	int64	   *slot;
	int64		i;

	if (r->warm_n <= 0)
	{
		memset(alpha, 0, sizeof(double) * (Size) ns);
		return false;
	}
	while (size < 2 * (uint64) r->warm_n)
		size <<= 1;
	mask = size - 1;
	slot = palloc(sizeof(int64) * size);
	for (i = 0; i < (int64) size; i++)
		slot[i] = -1;
	for (i = 0; i < r->warm_n; i++)
	{
		uint32		h = hash_bytes((const unsigned char *) (r->warm_rows + i * m), (int) bytes) & mask;

		while (slot[h] >= 0)
			h = (h + 1) & mask;
		slot[h] = i;
	}
	for (i = 0; i < ns; i++)
	{
		const double *row = rows + i * m;
		uint32		h = hash_bytes((const unsigned char *) row, (int) bytes) & mask;

		alpha[i] = 0.0;
		for (; slot[h] >= 0; h = (h + 1) & mask)
			if (memcmp(r->warm_rows + slot[h] * m, row, bytes) == 0)
			{
				alpha[i] = r->warm_alpha[slot[h]];
				break;
			}
	}
	pfree(slot);
	return true;
}

/* the band just solved and its α, the start of the next polish (warm_alpha) */
static void
keep_warm(NewtonRun *r, const double *rows, int64 ns, double *alpha)
{
	if (r->warm_rows)
		pfree(r->warm_rows);
	if (r->warm_alpha)
		pfree(r->warm_alpha);
	r->warm_rows = palloc(sizeof(double) * r->mm * ns);
	memcpy(r->warm_rows, rows, sizeof(double) * r->mm * ns);
	r->warm_alpha = alpha;
	r->warm_n = ns;
}

/*
 * The polish from this scan's band (at: the scan's point), near the
 * optimum: certain rows only, the band not overflowed; its candidate is
 * the next point (a few times at most).
 */
static void
polish_band(NewtonRun *r, const GsuPartial *p, const double *at, double n)
{
	FitPass    *fp = r->fp;
	int			dim = fp->dim;
	double		over = p->vec[GSU_SUP_OVER(dim)],
				ns = p->vec[GSU_SUP_NS(dim)];

	if (p->vec[GSU_SUP_UNCERTAIN(dim)] > 0.0)
		fp->band = 0.0;			/* rows with a covariance: no polish */
	else if (over > 0.0)
	{
		/* too wide for its rows: to about half the capacity */
		fp->band *= 0.5 * ns / (ns + over);
		ereport(DEBUG1,
				(errmsg("gsu.fit: the polish band held %g rows, narrowed to %g",
						ns + over, fp->band)));
	}
	else if (ns > 0.0)
	{
		int			ok;
		const double *rows = p->vec + GSU_SUP_ROWS(dim);
		double	   *alpha = palloc(sizeof(double) * (Size) ns);
		bool		warm = warm_alpha(r, rows, (int64) ns, alpha);

		memcpy(r->cand, at, sizeof(double) * r->mm);
		ok = gsu_hinge_polish_sums(dim, fp->opt.lambda, n,
								   p->vec + GSU_PARTIAL_HESS_SUP(dim),
								   p->vec[GSU_SUP_COUNT_V(dim)], (int64) ns, rows,
								   alpha, 1e-9, r->cand, &r->cand_dual, &r->cand_kkt);
		if (ok != 1 && warm)
		{
			/* SMO can crawl from the last α too (20000 × 200 rows, λ = 1e-4): from 0 */
			memset(alpha, 0, sizeof(double) * (Size) ns);
			memcpy(r->cand, at, sizeof(double) * r->mm);
			ok = gsu_hinge_polish_sums(dim, fp->opt.lambda, n,
									   p->vec + GSU_PARTIAL_HESS_SUP(dim),
									   p->vec[GSU_SUP_COUNT_V(dim)], (int64) ns, rows,
									   alpha, 1e-9, r->cand, &r->cand_dual, &r->cand_kkt);
			warm = false;
		}
		ereport(DEBUG1,
				(errmsg("gsu.fit: polish of a band of %g rows (band %g, %g beyond, %s start): %s",
						ns, fp->band, p->vec[GSU_SUP_COUNT_V(dim)], warm ? "warm" : "cold",
						ok == 1 ? "a candidate" : ok == 2 ? "SMO stopped short, a start" : "failed")));
		if (ok)
			keep_warm(r, rows, (int64) ns, alpha);
		else
			pfree(alpha);
		/*
		 * SMO stopped short: its α is feasible, its dual a true bound, and
		 * its point often far better than Newton's; the next scan checks it
		 * and the next polish goes on from its α (SMO carried over scans)
		 * instead of handing the rest to Newton after three failures
		 */
		if (ok)
		{
			r->pending = true;
			r->polish_tries++;
		}
		else if (++r->polish_fails >= 3)
		{
			/*
			 * The band's dual has no solution (too few rows to balance those
			 * beyond the band) or SMO gave up, three times: each try costs up
			 * to seconds in many dimensions; Newton goes on alone, to the
			 * smoothing option
			 */
			fp->band = 0.0;
			ereport(DEBUG1,
					(errmsg("gsu.fit: no polish of the band in 3 tries; Newton to the smoothing option")));
		}
	}
}

/*
 * Newton done at r->newton_smoothing: true when that is the smoothing
 * option; else the polish gave up, and Newton goes on to the smoothing
 * option, from here.
 */
static bool
newton_done(NewtonRun *r)
{
	FitPass    *fp = r->fp;
	double		mu_now = r->c.mu;

	if (r->newton_smoothing <= fp->opt.smoothing)
		return true;
	/* the polish gave up: Newton on to the smoothing option, from here */
	r->newton_smoothing = fp->opt.smoothing;
	fp->band = 0.0;
	gsu_scan_newton_free(&r->c);
	newton_begin(r, fmax(mu_now, r->newton_smoothing));
	return false;
}

/* one scan of the solver newton and what follows from it: true when it is done */
static bool
newton_scan(NewtonRun *r)
{
	FitPass    *fp = r->fp;
	GsuPartial *p;
	int			a = 0;
	const double *at = r->pending ? r->cand : r->c.x;
	double		n;
	bool		restart = false;
	bool		near = false;	/* close enough to the optimum for the polish */

	p = gsu_fit_run_pass(fp, at, r->c.mu);
	if (p == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the relation has no training rows any more: they were deleted while gsu.fit ran"),
				 errhint("gsu.fit reads the relation once per scan; in a REPEATABLE READ transaction every scan sees the same rows.")));
	if (r->first)
	{
		gsu_check_two_classes(fp->n, fp->n_pos, "training");
		r->gnorm0 = gsu_gradient_norm_at_zero((int) r->mm, p->vec + GSU_PARTIAL_HESS_YX(fp->dim),
											  fp->wsum, fp->opt.smoothing);
	}
	n = fp->wsum;				/* W: the objective's (1/W)Σ c_i L_i */
	if (r->pending && check_candidate(r, p, n, &near, &restart))
	{
		pfree(p);
		return true;
	}
	if (!r->pending && (restart || at == r->c.x))
		a = newton_tell(r, p, n);
	r->first = false;
	/* Newton near its optimum: the estimated gap small against the objective */
	if (!near && (restart || at == r->c.x))
		near = (a & GSU_SN_ACCEPTED) && r->c.decrement <= 1e-3 * fabs(r->c.f);
	if (fp->band > 0.0 && p->steps > 0 && r->polish_tries < 8 && near)
		polish_band(r, p, at, n);
	pfree(p);
	CHECK_FOR_INTERRUPTS();
	if (!r->pending && (a & GSU_SN_DONE))
		return newton_done(r);
	return false;
}

/* the model's fields into m and its θ into *theta_out, once the scans are over */
static void
newton_result(NewtonRun *r, GsuModel *m, double **theta_out)
{
	const FitPass *fp = r->fp;

	if (r->polished)
	{
		/*
		 * The residual of the band's optimality conditions plays the
		 * gradient's part; the gap is certified; the objective is the
		 * primal one of the last scan (the dual plus the gap).
		 */
		memcpy(r->theta, r->best, sizeof(double) * r->mm);
		m->flags |= GSU_MODEL_CONVERGED;
		m->objective = r->cand_dual + fmax(r->polish_gap, 0.0);
		m->iterations = r->c.accepted;
		m->gradient_norm = r->cand_kkt;
		m->gap_estimate = fmax(r->polish_gap, 0.0);
		*theta_out = r->theta;
		return;
	}
	if (r->c.converged)
		m->flags |= GSU_MODEL_CONVERGED;
	m->objective = r->c.f_true;
	m->iterations = r->c.accepted;
	m->gradient_norm = r->c.gnorm;
	m->gap_estimate = gsu_gap_bound(r->c.gnorm, fp->opt.lambda, r->c.f_mu, r->c.f_true);
	if (r->near_primal < m->objective)
	{
		/* a polish's candidate (not certified to 10⁻¹⁰) below Newton's point: the model */
		memcpy(r->theta, r->near_best, sizeof(double) * r->mm);
		m->objective = r->near_primal;
		m->gradient_norm = r->near_kkt;
	}
	/*
	 * The objective at the model minus a candidate's dual objective is a
	 * certified gap: when below Newton's bound, it is the gap reported (on
	 * 20000 × 200 nearly separable rows at λ = 1e-4 after the polish gave
	 * up: 1.8·10⁻⁷ relative, where Newton's bound said 5.6·10⁻⁵)
	 */
	if (r->best_dual > -HUGE_VAL && m->objective - r->best_dual < m->gap_estimate)
		m->gap_estimate = fmax(m->objective - r->best_dual, 0.0);

	/*
	 * The last scan's report again, with the result: the true objective and
	 * the gap bound the model keeps (with the smoothing's μ/(2√π)), not the
	 * Newton decrement of the smoothed objective (nor a rejected polish's
	 * gap), so that the last NOTICE, the history and gsu.describe say one
	 * number (reported whatever gsu.progress's interval: it is the result)
	 */
	gsu_trace_report_next(fp->trace);
	gsu_trace_pass(fp->trace, fp->passes, m->objective, m->gradient_norm, m->gap_estimate);
	*theta_out = r->theta;
}

/* see gsu_fit_newton.h */
void
gsu_fit_newton(FitPass *fp, GsuModel *init, Oid relid, const char *schema, const RowShape *shape,
			   GsuModel *m, double **theta_out, const struct timespec *t0)
{
	NewtonRun	r;
	double		mu_start;
	bool		warm,
				complete;

	memset(&r, 0, sizeof(r));
	r.fp = fp;
	r.mm = (Size) fp->dim + 1;
	r.from_init = init != NULL;
	r.theta = palloc0(sizeof(double) * r.mm);
	r.cand = palloc(sizeof(double) * r.mm);
	r.best = palloc(sizeof(double) * r.mm);
	r.near_best = palloc(sizeof(double) * r.mm);
	r.near_primal = HUGE_VAL;
	r.best_dual = -HUGE_VAL;
	r.first = true;
	newton_warm_start(&r, init, relid, schema, shape, t0, &warm, &complete);
	/*
	 * At the optimum (the whole relation was the sample) or from "init" (as
	 * the lbfgs path): no continuation; near it, a short one; from θ = 0 a
	 * longer one.  With the polish, Newton stops at μ = 10⁻³, where its
	 * steps are still long and the band of the margin is known well enough
	 * for the polish; the smoothing option is its target only if the polish
	 * gives up.
	 */
	r.newton_smoothing = fp->band > 0.0 ? fmax(fp->opt.smoothing, 1e-2) : fp->opt.smoothing;
	/*
	 * With the polish (certain rows), a sample that is not the relation
	 * starts at μ = 0.1 like θ = 0: its optimum, fitted to a few hundred
	 * rows, is far enough from the relation's that Newton on the hinge
	 * smoothed at 10⁻² moves a little a scan (measured on 3000 × 60 nearly
	 * separable rows, a sample of 256: 336 scans at λ = 1e-4 against 25, 32
	 * against 11 at 1e-3, 16 against 7 at 1e-2).  The GSU loss from θ = 0
	 * starts at 0.03 (one scan fewer than from 0.1 on 2000 × 40, 3000 × 60
	 * and 20000 × 500 rows; 0.01 the same); the hinge from θ = 0 needs 0.1
	 * (0.03: 56 scans against 21)
	 */
	mu_start = fmax(r.newton_smoothing, (complete || init) ? 0.0 :
					fp->band > 0.0 ? 1e-1 : warm ? 1e-3 : 3e-2);
	newton_begin(&r, mu_start);
	/*
	 * From θ = 0 the first Hessian has no curvature along b (every row on
	 * the hinge's linear side at the first μ): the Newton step is unbounded
	 * there, and shrinking it by 4 a scan costs dozens of scans.  TRON's
	 * first radius, ‖∇F(0)‖, bounds it instead.
	 */
	if (!warm && !complete)
		r.c.delta = 0.0;
	PG_TRY();
	{
		while (fp->passes < fp->opt.max_iterations && !newton_scan(&r))
			;
	}
	PG_FINALLY();
	{
		gsu_scan_newton_free(&r.c);
	}
	PG_END_TRY();
	/* the sample is drawn only when a scan at the model remains (max_iterations ≥ 2) */
	Assert(!r.first);
	newton_result(&r, m, theta_out);
}
