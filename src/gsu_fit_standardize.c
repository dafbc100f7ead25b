/*
 * gsu_fit_standardize.c — the option "standardize" of gsu.fit: one scan
 * before the solver's computes the per-feature mean and population standard
 * deviation of the training means with gsu.moments (Welford's update and
 * Chan's merge, so parallel workers combine exactly), and every later scan
 * passes a model `at` that carries them, whose rows gsu.gradient and
 * gsu.hessian standardize (gsu_partial_agg.c, standardize_pass_row).
 */
#include "gsu_fit_standardize.h"
#include "core/gsu_standardize.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

void
gsu_fit_statistics(FitPass *fp, Oid relid, const char *schema, const char *weight)
{
	StringInfoData sql;
	SPIPlanPtr	plan;
	bool		isnull;
	int			ret;
	Datum		d;
	GsuVec		m,
				v;
	gsu_status	s;

	CHECK_FOR_INTERRUPTS();
	/*
	 * the rows a pass reads: a mean, a label and (with a weight column) a
	 * weight above 0, each counted once whatever its weight (a NULL mean is
	 * skipped by gsu.moments)
	 */
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT (s).mean, (s).variance FROM (SELECT %s.moments(%s, "
					 "'{\"estimator\": \"population\"}'::jsonb) AS s FROM %s WHERE %s IS NOT NULL%s%s%s) AS t",
					 schema, fp->mean_sql, gsu_fit_qualified_name(relid),
					 fp->label_sql, weight ? " AND " : "",
					 weight ? quote_identifier(weight) : "",
					 weight ? " OPERATOR(pg_catalog.>) 0::pg_catalog.float8" : "");
	plan = SPI_prepare_cursor(sql.data, 0, NULL, CURSOR_OPT_PARALLEL_OK);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gsu.fit cannot read the relation: %s", SPI_result_code_string(SPI_result)),
				 errdetail("The statistics query was: %s", sql.data)));
	/* count 0: with a count, no parallel worker runs (gsu_fit_run_pass) */
	ret = SPI_execute_plan(plan, NULL, NULL, true, 0);
	gsu_fit_count_scan(fp, ret);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
	{
		/* no rows: the passes find none either */
		SPI_freetuptable(SPI_tuptable);
		return;
	}
	m = gsu_vec_from_array(DatumGetArrayTypeP(d), "mean");
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	v = gsu_vec_from_array(DatumGetArrayTypeP(d), "variance");
	if (fp->dim != 0 && m.n != fp->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the rows have dimension %d, but the starting model has %d",
						m.n, fp->dim)));
	fp->dim = m.n;
	/* mean, then scale, in SPI's caller's memory (they outlive the scans) */
	fp->std = SPI_palloc(sizeof(double) * 2 * (Size) m.n);
	memcpy(fp->std, m.data, sizeof(double) * m.n);
	s = gsu_standardize_scales(m.n, v.data, fp->std + m.n);
	if (s == GSU_OK)
		s = gsu_standardize_check(m.n, fp->std, fp->std + m.n);
	if (s != GSU_OK)
		gsu_report_data_status(s, "standardization",
							   "the statistics of the training means are out of range");
	SPI_freetuptable(SPI_tuptable);
}

void
gsu_fit_start_theta(const FitPass *fp, const GsuModel *sm, double *theta)
{
	const double *t = GSU_MODEL_THETA(sm, 0);
	double	   *folded;

	if (fp->std == NULL || !(sm->flags & GSU_MODEL_STANDARDIZED))
	{
		memcpy(theta, t, sizeof(double) * (fp->dim + 1));
		return;
	}
	/* the sample's own units to original units, then to those of all rows */
	folded = palloc(sizeof(double) * (fp->dim + 1));
	if (gsu_standardize_fold(fp->dim, GSU_MODEL_STD_MEAN(sm), GSU_MODEL_STD_SCALE(sm), t,
							 folded) == GSU_OK &&
		gsu_standardize_unfold(fp->dim, fp->std, fp->std + fp->dim, folded, theta) == GSU_OK)
	{
		pfree(folded);
		return;
	}
	/* out of range: start from 0 */
	memset(theta, 0, sizeof(double) * (fp->dim + 1));
	pfree(folded);
}
