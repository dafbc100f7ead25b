/*
 * gsu_train_solve.c — the final step of gsu.train: classes and weights from
 * the buffered rows, the memory the solve needs, the dispatch to the core's
 * solvers (one binary problem per class, one-vs-rest), and training on
 * explicit feature maps.
 */
#include "gsu_train.h"
#include "gsu_progress.h"
#include "core/gsu_binary.h"
#include "core/gsu_featmap.h"
#include "core/gsu_robust.h"
#include "core/gsu_standardize.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

/* ---------------------------------------------------------------- final */

/* The first index of classes[0..k-1] (ascending) whose label is not below y. */
static int
lower_bound(const double *classes, int k, double y)
{
	int			lo = 0,
				hi = k;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (classes[mid] < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The distinct labels of the buffered rows, ascending, into classes (room
 * for GSU_MAX_CLASSES); returns their number.
 */
static int
collect_classes(const GsuTrainState *st, double *classes)
{
	int			k = 0;
	int64		i;

	for (i = 0; i < st->n; i++)
	{
		double		y = st->y[i];
		int			lo;

		/* the rows usually repeat the last label found: test it first */
		if (k > 0 && (classes[k - 1] == y || classes[0] == y))
			continue;
		lo = lower_bound(classes, k, y);
		if (lo < k && classes[lo] == y)
			continue;
		if (k == GSU_MAX_CLASSES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("training data has more than %d classes", GSU_MAX_CLASSES)));
		memmove(classes + lo + 1, classes + lo, sizeof(double) * (k - lo));
		classes[lo] = y;
		k++;
	}
	return k;
}

/* The "init" model of a buffered solver must have the training data's classes. */
static void
check_init_classes(const GsuModel *init, const double *classes, int k)
{
	if (init->nclasses != k ||
		memcmp(GSU_MODEL_CLASSES(init), classes, sizeof(double) * k) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the \"init\" model has other classes than the training rows"),
				 errdetail("The init model has %d classes, the rows %d.", init->nclasses, k)));
	if (init->map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an \"init\" model with a feature map cannot warm-start gsu.train")));
}

/* The index of label y in classes[0..k-1] (ascending), or -1. */
static int
class_index(const double *classes, int k, double y)
{
	int			lo = lower_bound(classes, k, y);

	return (lo < k && classes[lo] == y) ? lo : -1;
}

/*
 * Sets the model's class weights (GSU_MODEL_CLASS_WEIGHT, one per class of
 * m's classes) from the option: "balanced" gives class c the weight
 * n / (K·n_c), K the number of classes and n_c the rows of class c
 * (scikit-learn's definition: every class then weighs n/K in all, and
 * Σ_i c_i = n); explicit weights must name labels the rows have, and the
 * classes they leave out weigh 1.
 */
static void
set_class_weights(const GsuTrainState *st, GsuModel *m)
{
	const double *classes = GSU_MODEL_CLASSES(m);
	double	   *cw = GSU_MODEL_CLASS_WEIGHT(m);
	int			k;

	if (st->opt.class_weight == GSU_CLASS_WEIGHT_BALANCED)
	{
		int64	   *count = palloc0(sizeof(int64) * m->nclasses);
		int64		i;

		/* only buffered solvers: the sgd solver rejects "balanced" */
		for (i = 0; i < st->n; i++)
			count[class_index(classes, m->nclasses, st->y[i])]++;
		for (k = 0; k < m->nclasses; k++)
			cw[k] = (double) st->n / ((double) m->nclasses * (double) count[k]);
		pfree(count);
		return;
	}
	if (st->cw == NULL)
		return;
	for (k = 0; k < st->cw->n; k++)
		if (class_index(classes, m->nclasses, (double) st->cw->label[k]) < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight names label %d, which no training row has",
							st->cw->label[k])));
	for (k = 0; k < m->nclasses; k++)
		cw[k] = gsu_class_weight_of(st->cw, (int32) classes[k]);
}

/*
 * c_i = the row's weight × its class's weight, the same in every
 * one-vs-rest problem (a row keeps its weight whichever side it is on); NULL
 * when every c_i is 1 (the unweighted problem, computed exactly as before
 * weights existed).
 *
 * Only the ratios of the c_i matter, so they are scaled by a power of two
 * (exact in binary) that brings the largest into [1/4, 1): then c_i < 1
 * and 1/4 ≤ Σ c_i < n whatever the weights' magnitude, denormal ones
 * included, with no overflow or underflow in the products or the sums.
 */
static double *
row_weights(const GsuTrainState *st, const GsuModel *m)
{
	const double *classes = GSU_MODEL_CLASSES(m);
	const double *cw = GSU_MODEL_CLASS_WEIGHT(m);
	bool		ones = st->wt == NULL;
	double	   *c,
			   *work;
	int64		i;
	int			k;

	for (k = 0; k < m->nclasses && ones; k++)
		ones = cw[k] == 1.0;
	if (ones)
		return NULL;
	/* each row's class weight, times its own weight, scaled (gsu_weights_product) */
	c = gsu_rows_alloc(st->n, 1);
	work = gsu_rows_alloc(st->n, 1);
	for (i = 0; i < st->n; i++)
		c[i] = cw[class_index(classes, m->nclasses, st->y[i])];
	gsu_weights_product(st->n, st->wt, c, work);
	pfree(work);
	return c;
}

/*
 * A WARNING for a degenerate solution of the tsvc or robust loss
 * (settle_degenerate in core/gsu_robust_solve.c): the zero model, or TSVC's norm
 * bound left inactive.  gsu.describe reports both from the weights.
 */
static void
warn_degenerate(const GsuTrainState *st, const double *theta, const gsu_solve_result *res)
{
	int			kind = res->degenerate;
	bool		tsvc = st->opt.loss == GSU_LOSS_TSVC;
	const char *sigma = st->opt.map_kind == GSU_MAP_RFF || st->opt.map_kind == GSU_MAP_NYSTROEM ?
		" With a feature map, a larger \"sigma\" also shrinks the feature-space uncertainty." : "";

	if (kind == GSU_DEGENERATE_ZERO && tsvc)
		ereport(WARNING,
				(errmsg("gsu.train with loss \"tsvc\" returned the zero model, which predicts one class for every row"),
				 errdetail("The relaxation shifts row i's margin by gamma*delta_i; with gamma %g that "
						   "shift reaches the margin 1 for " INT64_FORMAT " of " INT64_FORMAT
						   " rows, and no hyperplane has a lower objective than w = 0.",
						   st->opt.gamma, res->free_rows, st->n),
				 errhint("Use a smaller \"gamma\" or \"delta_scale\" (gamma*delta_i well below 1), "
						 "or \"tsvc_algorithm\": \"alternating\".%s", sigma)));
	else if (kind == GSU_DEGENERATE_ZERO)
		ereport(WARNING,
				(errmsg("gsu.train with loss \"robust\" returned the zero model, which predicts one class for every row"),
				 errdetail("With gamma %g the worst case over each row's uncertainty set costs more "
						   "than any hyperplane gains, so no hyperplane has a lower objective than w = 0.",
						   st->opt.gamma),
				 errhint("%s%s", st->opt.bound == GSU_BOUND_CHEBYSHEV ?
						 "Use a lower \"confidence\", or \"bound\": \"gaussian\" when the rows are Gaussian." :
						 st->opt.bound == GSU_BOUND_GAUSSIAN ? "Use a lower \"confidence\"." :
						 "Use a smaller \"gamma\".", sigma)));
	else
	{
		double		ww = 0.0;
		int			j;

		for (j = 0; j < st->dim; j++)
			ww += theta[j] * theta[j];
		ereport(WARNING,
				(errmsg("gsu.train with loss \"tsvc\" ended with the norm bound inactive: ||w|| = %.4g is below gamma = %g",
						sqrt(ww), st->opt.gamma),
				 errdetail("The relaxation shifts row i's margin by gamma*delta_i, more than the "
						   "delta_i*||w|| its radius allows, so the model is not a TSVC solution."),
				 errhint("Use a \"gamma\" of about ||w|| or below, or \"tsvc_algorithm\": \"alternating\".%s",
						 sigma)));
	}
}

/*
 * The history of the training under way (gsu_train_solve's), which
 * train_buffered starts and solve_binary's solver reports into; set for
 * the duration of gsu_train_solve only.
 */
static GsuTrace *train_trace = NULL;
static struct timespec train_start;

/*
 * Solves one binary problem (labels ±1 in ds->y) into theta with the core's
 * gsu_train_binary, which decides how the loss is solved; adds the
 * statistics to m and says what the user should know.
 */
static void
solve_binary(GsuTrainState *st, const gsu_dataset *ds, GsuModel *m, double *theta,
			 bool warm, int64 t0)
{
	gsu_binary_problem p;
	gsu_featmap_rows rows;
	gsu_solve_options o;
	gsu_solve_result res;
	gsu_status	s;

	gsu_solve_options_default(&o);
	memset(&p, 0, sizeof(p));
	/* the stored options the core reads (GSU_STORED_OPTIONS) */
	gsu_options_to_core(&st->opt, &o, &p);
	o.progress = gsu_interrupt_pending;
	o.progress_arg = NULL;
	o.trace = gsu_trace_pass;
	o.trace_arg = train_trace;
	o.warm_start = warm;
	o.t0 = t0;

	p.ds = ds;
	p.tsvc_alternating = st->opt.tsvc_algorithm == GSU_TSVC_ALTERNATING;
	if (st->fbox)
	{
		/* the robust loss with a per-row feature_bound: rows φ(x_i) and their bounds */
		rows.f = st->fmap;
		rows.x = st->fmap_x;
		rows.box = st->fbox;
		rows.cj = st->opt.feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN;
		rows.pbar = st->opt.feature_pbar;
		rows.work = palloc(sizeof(double) * gsu_featmap_bound_work_size(st->fmap, rows.cj));
		p.worst_case = &rows;
	}
	else if (gsu_loss_info(p.loss)->robust && !gsu_loss_info(p.loss)->radius &&
			 ds->cov_kind == GSU_COV_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loss \"%s\" needs variances, but every row's variance is NULL or zero",
						gsu_loss_name(p.loss)),
				 errhint("Without uncertainty the loss is the hinge loss: use '{\"loss\": \"hinge\"}'.")));

	s = gsu_train_binary(&p, &o, theta, &res);
	if (s == GSU_EINVAL && gsu_loss_info(p.loss)->radius)
		elog(ERROR, "pg_gsu: the rows of loss \"%s\" hold no radii", gsu_loss_name(p.loss));
	gsu_train_report_status(s);
	if (p.worst_case)
	{
		pfree(rows.work);
		/*
		 * ρ_i(0) = 0, so the zero model has objective 1 (weighted mean of
		 * h(1)): above it the subgradient steps did not settle.  Nyström
		 * boxes weigh the coefficients g = proj·w, which the Λ^{−1/2} of
		 * small eigenvalues makes steep in w.
		 */
		if (res.objective > 1.0)
			ereport(WARNING,
					(errmsg("gsu.train with feature_bound \"%s\" ended above the objective of the zero model",
							gsu_feature_bound_name(st->opt.feature_bound)),
					 errdetail("The objective is %g; the zero model's is 1.", res.objective),
					 errhint("Raise \"lambda\" or \"epochs\"%s.",
							 st->opt.map_kind == GSU_MAP_NYSTROEM ? ", or use fewer Nystroem landmarks" :
							 st->opt.map_kind == GSU_MAP_POLY2 ? ", or rescale the features (the products x_i x_j grow with their square)" : "")));
	}
	else if (res.degenerate != GSU_DEGENERATE_NONE && !gsu_loss_info(p.loss)->radius)
		warn_degenerate(st, theta, &res);
	m->objective += res.objective;
	m->gradient_norm = Max(m->gradient_norm, res.gradient_norm);
	m->gap_estimate += res.gap_estimate;
	m->iterations += res.iterations;
	m->passes += res.passes;
	if (!res.converged)
		m->flags &= ~GSU_MODEL_CONVERGED;
	if ((st->opt.solver == GSU_SOLVER_NEWTON || st->opt.solver == GSU_SOLVER_DCD) &&
		!res.converged)
	{
		/*
		 * Before its iteration limit the solver stops when the gradient met
		 * the tolerance but the estimated gap, which includes the smoothing's
		 * bound, is not small against the objective, or when no step
		 * decreased F any further in double precision.
		 */
		bool		gradient_met = res.gradient_norm <= o.tolerance * res.gradient_norm0;

		if (res.iterations >= o.max_iterations)
			ereport(WARNING,
					(errmsg("gsu.train did not reach the tolerance %g in %d iterations",
							o.tolerance, o.max_iterations),
					 errdetail("The gradient norm is %g, %g of its value at zero.",
							   res.gradient_norm, res.gradient_norm / res.gradient_norm0),
					 errhint("Raise \"max_iterations\" or \"smoothing\", or standardize the features.")));
		else
			ereport(WARNING,
					(errmsg("gsu.train stopped short of the tolerance %g after %lld iterations",
							o.tolerance, (long long) res.iterations),
					 errdetail("The gradient norm is %g, %g of its value at zero; the estimated gap to the optimum is %g, against an objective of %g.",
							   res.gradient_norm, res.gradient_norm / res.gradient_norm0,
							   res.gap_estimate, res.objective),
					 gradient_met ?
					 errhint("The gradient met the tolerance; the gap estimate includes the smoothing's bound smoothing/(2 sqrt(pi)): lower \"smoothing\" to tighten it.") :
					 errhint("No step decreased the objective further in double precision: raise \"tolerance\", or standardize the features.")));
	}
}

/*
 * Two classes: one problem, the second class positive.  More: one-vs-rest,
 * one problem per class (its rows +1, the others −1).
 */
static void
train_buffered(GsuTrainState *st, GsuModel *m)
{
	gsu_dataset ds;
	double	   *yk = NULL;
	int			k,
				nvec = GSU_MODEL_NVEC(m);
	const double *classes = GSU_MODEL_CLASSES(m);
	bool		plain = m->nclasses == 2 && classes[0] == -1.0 && classes[1] == 1.0;

	ds.n = st->n;
	ds.d = st->dim;
	ds.x = st->x;
	ds.y = st->y;
	ds.cov_kind = st->level;
	ds.cov = st->cov;
	ds.cov_rank = st->level == GSU_COV_FACTOR ? st->rank : 0;
	ds.weight = row_weights(st, m);
	if (!plain)
		yk = palloc_extended(sizeof(double) * st->n, MCXT_ALLOC_HUGE);
	m->flags |= GSU_MODEL_CONVERGED;
	if (train_trace)
		gsu_trace_init(train_trace, "gsu.train", nvec, &train_start);
	for (k = 0; k < nvec; k++)
	{
		double	   *theta = GSU_MODEL_THETA(m, k);
		double		pos = classes[m->nclasses == 2 ? 1 : k];
		CHECK_FOR_INTERRUPTS();
		if (train_trace)
			gsu_trace_class(train_trace, k);
		if (yk)
		{
			gsu_ovr_labels(st->n, st->y, pos, yk);
			ds.y = yk;
		}
		if (st->init)
			memcpy(theta, GSU_MODEL_THETA(st->init, k), sizeof(double) * (st->dim + 1));
		solve_binary(st, &ds, m, theta, st->init != NULL, st->init ? st->init->iterations : 0);
	}
	if (yk)
		pfree(yk);
	if (ds.weight)
		pfree((double *) ds.weight);
}

/* ------------------------------------------------ training memory */

/*
 * Bytes the batch solvers allocate for n rows of dimension d with cov_per
 * covariance doubles a row: the loss's policy in the core's loss table
 * (gsu_solver_doubles, core/gsu_loss_table.c).
 */
static double
solver_bytes(const GsuTrainOptions *o, int64 n, int d, Size cov_per, int rank, bool worst)
{
	return gsu_solver_doubles(o->loss, o->solver, n, d, cov_per, rank, worst) * sizeof(double);
}

/*
 * The bytes gsu.train counts against gsu.max_training_memory for n buffered
 * rows of dimension dim without a feature map: the row store at its
 * capacity cap (rows of cov_doubles covariance doubles, a weight each when
 * weighted), the solver's buffers and, with "standardize", the standardized
 * copy of the rows (its isotropic variances become diagonal), which is held
 * with both.  gsu.fit sizes its sample with it, so that the sample's
 * training is never refused.
 */
double
gsu_train_buffered_bytes(const GsuTrainOptions *o, int64 n, int64 cap, int dim,
						 Size cov_doubles, int rank, bool weighted)
{
	double		per_row = (double) dim + 1.0 + (double) cov_doubles + (weighted ? 1.0 : 0.0),
				b = (double) cap * per_row * sizeof(double) + solver_bytes(o, n, dim, cov_doubles, rank, false);

	if (o->standardize)
		b += (double) n * ((double) dim + (double) (cov_doubles == 1 ? (Size) dim : cov_doubles)) *
			sizeof(double);
	return b;
}

/*
 * The peak bytes of the final function's training path, from sizes known
 * before anything is allocated, checked against gsu.max_training_memory:
 * the row store (held already) plus, without a feature map (D = 0), the
 * solver's buffers; with one of D features and a matrix block of
 * block_len doubles, the larger of the map's construction (the block and
 * the Nyström kernel matrix with LAPACK's scratch) and the training on the
 * mapped rows (the block, the model's copy of it, the mapped rows with
 * their moments or boxes, the mapping scratch, the solver's buffers).
 * Called with upper bounds before the map is built and again with its real
 * sizes after.
 */
static void
check_training_memory(const GsuTrainState *st, int D, int64 block_len)
{
	double		limit = (double) gsu_state_memory_room(st);
	double		n = (double) st->n;
	double		need = (double) st->cap * gsu_rows_doubles_per_row(st, st->level, st->wt != NULL) * sizeof(double);
	const char *detail;

	if (D == 0)
	{
		need = gsu_train_buffered_bytes(&st->opt, st->n, st->cap, st->dim,
										gsu_cov_doubles(st->level, st->dim, st->rank),
										st->level == GSU_COV_FACTOR ? st->rank : 0, st->wt != NULL);
		detail = psprintf("Training on " INT64_FORMAT " rows of dimension %d", st->n, st->dim);
	}
	else
	{
		const GsuTrainOptions *o = &st->opt;
		bool		worst = o->feature_bound != GSU_FEATURE_BOUND_MOMENTS;
		bool		moments = !worst && gsu_loss_info(o->loss)->uses_covariance && st->level != GSU_COV_NONE;
		bool		full = moments && o->map_full_cov;
		gsu_featmap f;
		double		block = (double) block_len * sizeof(double),
					build,
					work,
					per_row,
					train;

		memset(&f, 0, sizeof(f));
		f.kind = o->map_kind;
		f.p = st->dim;
		f.dim = D;
		f.landmarks = o->map_kind == GSU_MAP_NYSTROEM ? o->map_landmarks : 0;
		build = o->map_kind == GSU_MAP_NYSTROEM ?
			(double) gsu_nystroem_build_bytes(st->n, o->map_landmarks) : 0.0;
		work = (double) (full ? gsu_featmap_cov_work_size(&f) :
						 moments ? gsu_featmap_work_size(&f) : gsu_featmap_apply_work_size(&f));
		if (worst)
			work += (double) gsu_featmap_bound_work_size(&f, o->feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN);
		per_row = (double) D * (moments ? (full ? (double) D + 1.0 : 2.0) : 1.0) +
			(worst ? (double) gsu_featmap_bound_len(&f, o->feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN) : 0.0);
		train = 2.0 * block + (n * per_row + work) * sizeof(double) +
			solver_bytes(o, st->n, D, moments ? (full ? (Size) D * D : (Size) D) : 0, 0, worst);
		need += Max(block + build, train);
		detail = psprintf("Training on " INT64_FORMAT " rows mapped to %d features", st->n, D);
	}
	if (need > limit)
		gsu_state_memory_error(st, need >= (double) MaxAllocHugeSize ? MaxAllocHugeSize : (Size) need,
							   detail, D == 0 ? GSU_MEMORY_HINT(st) :
							  "Raise gsu.max_training_memory, or use fewer features or landmarks.");
}

/* ------------------------------------------------------ feature maps */

/*
 * Training with option "features": the map is built, the buffered rows are
 * replaced by their images (gsu_train_map_rows), and the linear problem is
 * solved in feature space.  The model's dim is the mapped dimension, its
 * input_dim that of the rows, and the map's matrices follow its weights.
 */
static GsuModel *
train_mapped(GsuTrainState *st, const double *classes, int k)
{
	GsuTrainState mapped;
	GsuModel   *m;
	gsu_featmap f;
	double	   *block,
			   *fx,
			   *fv;
	int			dim;
	int64		len;

	/* refuse before allocating, from the upper bounds D = "dim" or m */
	if (st->opt.map_kind == GSU_MAP_POLY2)
	{
		if (st->dim > GSU_POLY2_MAX_INPUT_DIM)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("feature map \"poly2\" on %d input features would have " INT64_FORMAT
							" features, above the limit of " INT64_FORMAT,
							st->dim, gsu_poly2_dim(st->dim), gsu_poly2_dim(GSU_POLY2_MAX_INPUT_DIM)),
					 errdetail("The map has p(p+1)/2 features for p input features; "
							   "it takes at most %d input features.", GSU_POLY2_MAX_INPUT_DIM),
					 errhint("Use fewer input features, or the map \"rff\" or \"nystroem\".")));
		check_training_memory(st, (int) gsu_poly2_dim(st->dim), 0);
	}
	else if (st->opt.map_kind == GSU_MAP_RFF)
		check_training_memory(st, Max(st->opt.map_dim, 1),
							  (int64) (st->opt.map_dim / 2) * st->dim);
	else
		check_training_memory(st, Max(st->opt.map_landmarks, 1),
							  (int64) st->opt.map_landmarks * st->dim +
							  (int64) st->opt.map_landmarks * st->opt.map_landmarks);
	block = gsu_train_feature_map(st, &dim, &len);
	check_training_memory(st, dim, len);
	gsu_featmap_bind(&f, st->opt.map_kind, st->dim, dim, st->opt.map_landmarks,
					 st->opt.map_sigma, block);
	gsu_train_map_rows(st, &f, &fx, &fv);
	m = gsu_model_from_options(dim, k, (int) len, &st->opt);
	m->input_dim = st->dim;
	memcpy(GSU_MODEL_CLASSES(m), classes, sizeof(double) * k);
	set_class_weights(st, m);
	memcpy(GSU_MODEL_MAP(m), block, sizeof(double) * len);
	/*
	 * Solve on a shallow copy of the state whose buffers are the mapped rows
	 * (with a diagonal covariance or none): the final function must leave
	 * the state as it found it, since PostgreSQL may finalize it again.
	 */
	mapped = *st;
	mapped.x = fx;
	mapped.dim = dim;
	if (st->opt.feature_bound != GSU_FEATURE_BOUND_MOMENTS)
	{
		/* φ(x_i) without covariance; the row bounds go to gsu_train_binary (p.worst_case) */
		mapped.cov = NULL;
		mapped.level = GSU_COV_NONE;
		mapped.fmap = &f;
		mapped.fmap_x = st->x;
		mapped.fbox = fv;
	}
	else
	{
		mapped.cov = fv;
		mapped.level = fv == NULL ? GSU_COV_NONE : st->opt.map_full_cov ? GSU_COV_FULL : GSU_COV_DIAG;
	}
	train_buffered(&mapped, m);
	pfree(block);				/* f points into it */
	pfree(fx);
	if (fv)
		pfree(fv);
	return m;
}

/*
 * The rows of st standardized (option "standardize"; gsu.train and
 * gsu.train_regression): a copy of the state whose means are D⁻¹(x − m) and
 * covariances D⁻¹ΣD⁻¹ (an isotropic one becomes diagonal), with the centres
 * m and scales D of the training means (every row that entered training
 * counts once, whatever its weight) in mean and scale (dim doubles each).
 * gsu_train_buffered_bytes counts the copy; the caller frees it with
 * gsu_train_standardized_free.  st is left as it was.
 */
GsuTrainState
gsu_train_standardized_copy(const GsuTrainState *st, double *mean, double *scale)
{
	GsuTrainState std = *st;
	gsu_moments mo;
	double	   *store = palloc(sizeof(double) * gsu_moments_doubles(st->dim, 0));
	GsuCovKind	level = st->level == GSU_COV_ISO ? GSU_COV_DIAG : st->level;
	Size		cov_doubles = gsu_cov_doubles(level, st->dim, st->rank);
	int64		i;
	gsu_status	s;

	gsu_moments_init(&mo, st->dim, 0, store);
	/* "missing": the statistics of the observed values, which filling would shrink */
	for (i = 0; i < (st->miss_block ? 0 : st->n); i++)
	{
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		s = gsu_moments_add(&mo, st->x + i * st->dim);
		if (s == GSU_OK && i == st->n - 1)
			s = gsu_standardize_stats(&mo, mean, scale);
		if (s != GSU_OK)
			gsu_report_data_status(s, "standardization", "the statistics of the training means are out of range");
	}
	if (st->miss_block)
	{
		/* the observed moments, whatever the user gave for the missing values */
		const double *obs = st->miss_observed;

		for (i = 0; i < st->dim; i++)
			if (isnan(obs[i]))
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("option \"standardize\" needs feature %d present in a training row", (int) i + 1),
						 errdetail("Its centre and scale are the mean and deviation of its observed values.")));
		memcpy(mean, obs, sizeof(double) * st->dim);
		s = gsu_standardize_scales(st->dim, obs + st->dim, scale);
		if (s != GSU_OK)
			gsu_report_data_status(s, "standardization", "the statistics of the training means are out of range");
	}
	std.x = gsu_rows_alloc(st->n, st->dim);
	std.cov = cov_doubles ? gsu_rows_alloc(st->n, cov_doubles) : NULL;
	std.level = level;
	for (i = 0; i < st->n; i++)
	{
		GsuRowCov	rc = gsu_rows_cov(st, i),
					out;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		gsu_standardize_mean(st->dim, mean, scale, st->x + i * st->dim, std.x + i * st->dim);
		if (cov_doubles)
			gsu_standardize_cov(st->dim, scale, &rc, &out, std.cov + i * cov_doubles);
	}
	pfree(store);
	return std;
}

void
gsu_train_standardized_free(GsuTrainState *std)
{
	pfree(std->x);
	if (std->cov)
		pfree(std->cov);
}

/* trains m on the standardized rows; the model with its statistics (m is freed) */
static GsuModel *
train_standardized(GsuTrainState *st, GsuModel *m)
{
	double	   *mean = palloc(sizeof(double) * st->dim),
			   *scale = palloc(sizeof(double) * st->dim);
	GsuTrainState std = gsu_train_standardized_copy(st, mean, scale);
	GsuModel   *r;

	train_buffered(&std, m);
	gsu_train_standardized_free(&std);
	r = gsu_model_with_standardization(m, mean, scale);
	pfree(m);
	pfree(mean);
	pfree(scale);
	return r;
}

GsuModel *
gsu_train_solve(GsuTrainState *st)
{
	GsuModel   *m;
	GsuTrace	trace;

	clock_gettime(CLOCK_MONOTONIC, &train_start);
	memset(&trace, 0, sizeof(trace));
	train_trace = &trace;
	if (st->opt.solver == GSU_SOLVER_SGD)
	{
		gsu_check_two_classes(st->n, st->n_pos, "training");
		m = gsu_model_from_options(st->dim, 2, 0, &st->opt);
		set_class_weights(st, m);	/* applied in the steps already */
		memcpy(GSU_MODEL_THETA(m, 0), st->theta, sizeof(double) * (st->dim + 1));
		/* progressive objective: each row's loss before its own step */
		m->objective = gsu_objective_from_sums(st->dim, st->theta, st->opt.lambda,
											   st->loss_sum, st->weight_sum);
		m->iterations = st->t0 + st->n;
		m->passes = 1;
	}
	else
	{
		double	   *classes = palloc(sizeof(double) * GSU_MAX_CLASSES);
		int			k = collect_classes(st, classes);

		if (k < 2)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("training data has only one class: every one of the " INT64_FORMAT
							" rows has label %d", st->n, (int) classes[0]),
					 errdetail("A classifier needs rows of at least two labels.")));
		if (st->init)
			check_init_classes(st->init, classes, k);
		if (st->opt.map_kind == GSU_MAP_NONE)
		{
			m = gsu_model_from_options(st->dim, k, 0, &st->opt);
			memcpy(GSU_MODEL_CLASSES(m), classes, sizeof(double) * k);
			set_class_weights(st, m);
			check_training_memory(st, 0, 0);
			if (st->opt.standardize)
				m = train_standardized(st, m);
			else
				train_buffered(st, m);
		}
		else
			m = train_mapped(st, classes, k);
	}
	train_trace = NULL;
	/* the history, after every block the training added */
	if (trace.counts)
	{
		Size		len;
		double	   *block;
		GsuModel   *r;

		gsu_trace_finish(&trace);
		block = gsu_trace_block(&trace, &len);
		r = gsu_model_with_history(m, block, len);
		pfree(block);
		pfree(m);
		m = r;
	}
	return m;
}
