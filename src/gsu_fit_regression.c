/*
 * gsu_fit_regression.c — regression in gsu.fit (issue 33): a call whose
 * options name a regression loss trains on a real target column with
 * gsu.train_regression's options.  Ridge-GSU (loss "squared") minimizes
 * λ/2‖w‖² + (1/W) Σ c_i [(y_i − wᵀx_i − b)² + wᵀΣ_i w], a quadratic: one
 * scan of gsu.regression_hessian at θ = 0 sums Σ c_i ℓ_i(0), Σ c_i ∇ℓ_i(0)
 * and Σ c_i ∇²ℓ_i (= 2 Σ c_i (z_i z_iᵀ + diag(Σ_i, 0)), z = (x, 1)), and
 * one Cholesky solve of d + 1 unknowns gives the minimizer exactly
 * (core/gsu_regression_sums.c).  The scan is gsu.fit's pass
 * (gsu_fit_run_pass): parallel workers, leaf partitions read apart, the
 * weight sum W from the same scan, "standardize" through the model `at`.
 */
#include "gsu_fit_regression.h"
#include "gsu_json.h"
#include "gsu_memory.h"
#include "gsu_progress.h"
#include "core/gsu_regression.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

bool
gsu_fit_regression_options(Jsonb *options, GsuTrainOptions *opt)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_PARAMETER_VALUE, "option"};
	const char *s;
	int			k;

	if (options == NULL || !JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		return false;
	if (!gsu_json_string(&cx, &options->root, "loss", &s))
		return false;
	k = gsu_loss_by_name(s);
	if (k < 0 || !gsu_loss_info(k)->regression)
		return false;
	gsu_regression_options_parse(options, opt);
	return true;
}

/*
 * The dimension of the first row a scan reads (a mean, a target and, with a
 * weight, a weight not NULL or 0), or 0 when there is none.
 */
static int
probe_dim(const FitPass *fp, Oid relid)
{
	StringInfoData sql;
	bool		isnull;
	Datum		d;
	int			ret;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT pg_catalog.cardinality(%s) FROM %s WHERE %s IS NOT NULL AND %s IS NOT NULL",
					 fp->mean_sql, gsu_fit_qualified_name(relid), fp->mean_sql, fp->label_sql);
	if (fp->weight)
		appendStringInfo(&sql, " AND %s IS NOT NULL AND %s OPERATOR(pg_catalog.<>) 0",
						 fp->weight, fp->weight);
	appendStringInfoString(&sql, " LIMIT 1");
	ret = SPI_execute(sql.data, true, 1);
	if (ret != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gsu.fit could not read a row: %s", SPI_result_code_string(ret))));
	if (SPI_processed == 0)
		return 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : DatumGetInt32(d);
}

/* the scan's plan: parallel unless a worker's share of the memory limit cannot hold its sums */
static void
prepare_scan(FitPass *fp, Oid relid, const char *schema)
{
	Oid			argtypes[2] = {fp->model_type, FLOAT8OID};
	Size		bytes;
	char	   *sql;

	if (fp->dim > GSU_PARTIAL_HESS_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gsu.fit trains regression on rows of dimension at most %d, not %d",
						GSU_PARTIAL_HESS_MAX_DIM, fp->dim),
				 errdetail("A scan sums a Hessian of dimension d + 1.")));
	bytes = gsu_partial_hessian_bytes(fp->dim, false);
	sql = gsu_fit_pass_query(fp, relid, schema, "regression_hessian");
	fp->plan = SPI_prepare_cursor(sql, 2, argtypes,
								  bytes <= gsu_mem_split_state_room() ? CURSOR_OPT_PARALLEL_OK : 0);
	if (fp->plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The scan query was: %s", sql)));
}

void
gsu_fit_ridge(FitPass *fp, Oid relid, const char *schema, GsuModel *m, double **theta,
			  bool *found)
{
	GsuPartial *p;
	double	   *t,
				f = 0.0,
				gnorm = 0.0;
	gsu_status	s;

	*found = false;
	if (fp->dim == 0)
		fp->dim = probe_dim(fp, relid);
	if (fp->dim == 0)
		return;
	prepare_scan(fp, relid, schema);
	t = palloc0(sizeof(double) * ((Size) fp->dim + 1));
	p = gsu_fit_run_pass(fp, t, 0.0);
	if (p == NULL)
		return;
	*found = true;
	s = gsu_ridge_from_sums(fp->dim, fp->opt.lambda, fp->wsum, p->vec[GSU_PARTIAL_HESS_LOSS0(fp->dim)],
							p->vec, p->vec + GSU_PARTIAL_HESS_H(fp->dim), t, &f, &gnorm);
	if (s == GSU_ENOTFINITE)
		gsu_fit_not_finite(false);
	gsu_report_status(s, "gsu.fit");
	gsu_trace_pass(fp->trace, 1, f, gnorm, GSU_TRACE_NONE);
	m->objective = f;
	m->gradient_norm = gnorm;
	m->gap_estimate = 0.0;
	m->iterations = 1;
	m->flags |= GSU_MODEL_CONVERGED;
	*theta = t;
}
