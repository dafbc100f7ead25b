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
 * "missing" is classification's (gsu_fit_missing.c): one scan of the
 * moments first, and gsu.regression_hessian fills each row's missing
 * elements from the model `at` that carries them.
 */
#include "gsu_fit_regression.h"
#include "gsu_json.h"
#include "gsu_memory.h"
#include "gsu_progress.h"
#include "core/gsu_regression.h"

#include <math.h>

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
	gsu_regression_options_parse(options, opt, GSU_REGRESSION_OPTIONS_FIT, NULL, NULL);
	/* "missing": its moments' scan fills the rows as they are, not standardized ones (as classification) */
	if (opt->missing != GSU_MISSING_ERROR && opt->standardize)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gsu.fit does not combine the options \"missing\" and \"standardize\""),
				 errhint("Train with the aggregate gsu.train_regression, which combines them, or standardize the columns first.")));
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

/* ------------------------------------------------------------ SVR-GSU */

/* the state of gsu.fit's SVR-GSU: gsu_solve_svr's, over scans */
typedef struct SvrScans
{
	FitPass    *fp;
	int			m;
	double	   *theta;			/* the current point */
	double	   *trial;			/* a line search's point */
	double	   *grad;			/* ∇F_τ at theta */
	double	   *step;
	double		f,				/* F_τ at theta */
				gnorm,
				gnorm0,
				decrement;
	int64		iters;
	GsuPartial *at;				/* the scan at theta (its sums) */
} SvrScans;

/* one scan at theta and smoothing tau: its sums, and F_τ there into *f */
static GsuPartial *
svr_scan(SvrScans *sv, const double *theta, double tau, double *f)
{
	GsuPartial *p = gsu_fit_run_pass(sv->fp, theta, tau);
	int			d = sv->m - 1,
				j;
	double		ww = 0.0;

	if (p == NULL)
		elog(ERROR, "gsu.fit: a scan of SVR-GSU read no rows");
	for (j = 0; j < d; j++)
		ww += theta[j] * theta[j];
	*f = 0.5 * sv->fp->opt.lambda * ww + p->loss_sum / sv->fp->wsum;
	return p;
}

/*
 * One stage at τ = tau (gsu_solve_svr's svr_stage): Newton steps until
 * ‖∇F_τ‖ ≤ rel_tol·gnorm0, max_iterations steps in all, or a failed line
 * search.  The scan of an accepted point is the next step's sums.
 */
static void
svr_stage(SvrScans *sv, double tau, double rel_tol)
{
	FitPass    *fp = sv->fp;
	int			m = sv->m,
				j;

	/* the sums of the stage before are at another smoothing: one Hessian held at a time */
	if (sv->at)
		pfree(sv->at);
	sv->at = svr_scan(sv, sv->theta, tau, &sv->f);
	for (;;)
	{
		double		slope,
					step = 1.0,
					fn = HUGE_VAL,
					fold = sv->f,
					pn = 0.0,
					tn = 0.0;
		GsuPartial *trial = NULL;
		gsu_status	s;
		int			tries;

		s = gsu_svr_step_from_sums(m - 1, fp->opt.lambda, fp->wsum, sv->theta, sv->at->vec,
								   sv->at->vec + GSU_PARTIAL_HESS_H(m - 1), sv->grad, sv->step,
								   &slope);
		if (s == GSU_ENOTFINITE)
			gsu_fit_not_finite(false);
		gsu_report_status(s, "gsu.fit");
		sv->gnorm = 0.0;
		for (j = 0; j < m; j++)
			sv->gnorm += sv->grad[j] * sv->grad[j];
		sv->gnorm = sqrt(sv->gnorm);
		sv->decrement = -slope;
		if (sv->gnorm <= rel_tol * sv->gnorm0 || sv->iters >= fp->opt.max_iterations ||
			!(slope < 0.0))
			break;
		sv->iters++;
		/* Armijo backtracking on F_τ, a scan a trial point */
		for (tries = 0; tries < 60; tries++)
		{
			for (j = 0; j < m; j++)
				sv->trial[j] = sv->theta[j] + step * sv->step[j];
			if (trial)
				pfree(trial);
			trial = svr_scan(sv, sv->trial, tau, &fn);
			if (isfinite(fn) && fn <= sv->f + 1e-4 * step * slope)
				break;
			step *= 0.5;
		}
		if (tries == 60)
		{
			pfree(trial);
			break;				/* no decrease possible in double precision */
		}
		memcpy(sv->theta, sv->trial, sizeof(double) * m);
		pfree(sv->at);
		sv->at = trial;
		sv->f = fn;
		gsu_trace_pass(fp->trace, sv->iters, fn, GSU_TRACE_NONE, GSU_TRACE_NONE);
		for (j = 0; j < m; j++)
		{
			pn += sv->step[j] * sv->step[j];
			tn += sv->theta[j] * sv->theta[j];
		}
		if (fold - fn <= 1e-16 * fabs(fold) && step * sqrt(pn) <= 1e-16 * (1.0 + sqrt(tn)))
			break;
	}
}

void
gsu_fit_svr(FitPass *fp, Oid relid, const char *schema, GsuModel *m, double **theta,
			bool *found)
{
	SvrScans	sv;
	double		final_tau,
				tau,
				f;
	bool		unsmoothed = false;
	GsuPartial *p;
	int			j;

	*found = false;
	if (fp->dim == 0)
		fp->dim = probe_dim(fp, relid);
	if (fp->dim == 0)
		return;
	prepare_scan(fp, relid, schema);
	memset(&sv, 0, sizeof(sv));
	sv.fp = fp;
	sv.m = fp->dim + 1;
	sv.theta = palloc0(sizeof(double) * sv.m);
	sv.trial = palloc0(sizeof(double) * sv.m);
	sv.grad = palloc0(sizeof(double) * sv.m);
	sv.step = palloc0(sizeof(double) * sv.m);
	/* a smoothing of 0 asks for the true objective: the continuation goes down to 1e-8 */
	final_tau = fp->opt.smoothing > 0.0 ? fp->opt.smoothing : 1e-8;

	/* the tolerance's scale: ‖∇F_τ(0)‖ at the final smoothing (λw = 0 there) */
	p = svr_scan(&sv, sv.theta, final_tau, &f);
	*found = true;
	sv.gnorm0 = 0.0;
	for (j = 0; j < sv.m; j++)
		sv.gnorm0 += (p->vec[j] / fp->wsum) * (p->vec[j] / fp->wsum);
	sv.gnorm0 = sqrt(sv.gnorm0);
	if (!(sv.gnorm0 > 0.0))
		sv.gnorm0 = 1.0;
	pfree(p);

	tau = final_tau >= 1.0 ? final_tau : 1.0;
	for (;;)
	{
		bool		last = tau <= final_tau;

		svr_stage(&sv, tau, last ? fp->opt.tolerance : fmax(fp->opt.tolerance, 1e-3));
		if (last)
			break;
		tau = gsu_next_smoothing(tau, final_tau);
	}
	/* the true objective, where every row keeps s well above the smoothing */
	p = svr_scan(&sv, sv.theta, 0.0, &f);
	if (fp->opt.smoothing == 0.0 ||
		gsu_finish_unsmoothed(final_tau, fp->var_sql != NULL, p->min_dsigma))
	{
		pfree(p);
		svr_stage(&sv, 0.0, fp->opt.tolerance);
		unsmoothed = true;
		f = sv.f;				/* F_0 at the stage's last point, from its scan */
	}
	m->objective = f;
	m->gradient_norm = sv.gnorm;
	m->gap_estimate = 0.5 * sv.decrement + (unsmoothed ? 0.0 : final_tau / sqrt(M_PI));
	m->iterations = sv.iters;
	if (sv.gnorm <= fp->opt.tolerance * sv.gnorm0)
		m->flags |= GSU_MODEL_CONVERGED;
	*theta = sv.theta;
}
