/*
 * gsu_fit_pass.h — the floor of gsu.fit's files (gsu_fit_pass.c): a
 * training run's state (FitPass), the relations its scans read, the query
 * of a pass and the pass itself, and the helpers its solvers share.  The
 * solvers (gsu_fit_lbfgs.h, gsu_fit_newton.h, gsu_fit_standardize.h) sit
 * above it and the SQL entry gsu.fit (gsu_fit.c) above them; nothing here
 * calls up.  Not for other files.
 */
#ifndef GSU_FIT_PASS_H
#define GSU_FIT_PASS_H

#include "gsu_model.h"
#include "gsu_partial.h"

#include <time.h>

#include "executor/spi.h"

/* a training run: its pass query, options, and the last pass's counts */
typedef struct FitPass
{
	SPIPlanPtr	plan;			/* a pass of gsu.gradient (lbfgs) or gsu.hessian (newton) */
	Oid			model_type;
	GsuTrainOptions opt;
	int			dim;
	int64		passes;
	double		band;			/* newton: the support band of the hinge polish (0: none) */
	double	   *std;			/* "standardize": centres then scales (2 dim), else NULL */
	double	   *miss;			/* "missing": the moments block (GSU_MISSING_BLOCK_LEN), else NULL */
	const char *weight;			/* SQL of a row's weight c_i (row and class weights), NULL: 1 */
	/*
	 * The SQL of the columns as the aggregates take them (gsu_fit_columns):
	 * the mean as float8[], the variance as float8[] (NULL: no variance
	 * column), the label as int4.
	 */
	const char *mean_sql;
	const char *var_sql;
	const char *label_sql;
	/*
	 * The leaf partitions that each scan reads apart (FROM ONLY, summed with
	 * gsu.sum), or NIL: every scan reads the relation itself (gsu_fit_leaves)
	 */
	List	   *leaves;
	bool		split;			/* class_weight "balanced": each pass sums the classes apart */
	double		cw[2];			/* split: the class weights of −1 and 1 (0: before the first pass) */
	/* results of the last pass */
	int64		n;
	int64		n_pos;
	double		wsum;			/* W = Σ c_i, the objective's normalizer (n unweighted) */
	double		min_dsigma;
	struct GsuTrace *trace;		/* the passes' history and reports (gsu_progress.h) */
} FitPass;

/* schema.name of a relation, quoted */
char	   *gsu_fit_qualified_name(Oid relid);

/*
 * The leaf partitions of a partitioned table when reading each of them
 * (FROM ONLY) returns exactly the rows that SELECT … FROM relation returns
 * the caller, and one of them is a foreign table (the reason to read them
 * apart: postgres_fdw pushes each one's aggregate to its server); NIL: read
 * the relation itself.  cols: the columns the scans read.
 */
List	   *gsu_fit_leaves(Oid relid, const char *const *cols, int ncols);

/*
 * The query of one pass of the aggregate agg ("gradient" or "hessian") over
 * the relation or its leaves; schema: the extension's, quoted.
 */
char	   *gsu_fit_pass_query(const FitPass *fp, Oid relid, const char *schema, const char *agg);

/* one pass at theta (NULL: 0) and smoothing mu; NULL when the relation has no rows */
GsuPartial *gsu_fit_run_pass(FitPass *fp, const double *theta, double mu);

/*
 * A scan's SPI result: an error unless it returned its one row; else one
 * more scan in fp->passes.
 */
void		gsu_fit_count_scan(FitPass *fp, int ret);

/*
 * The error of a pass whose objective or gradient is not finite: at the
 * "init" model (at_init), or a divergence.
 */
void		gsu_fit_not_finite(bool at_init) pg_attribute_noreturn();

/* seconds since t0 */
double		gsu_fit_elapsed(const struct timespec *t0);

/* a model of fp's options (and statistics) at dimension fp->dim, its theta zero */
GsuModel   *gsu_fit_model(const FitPass *fp);

#endif							/* GSU_FIT_PASS_H */
