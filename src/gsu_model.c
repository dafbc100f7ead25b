/*
 * gsu_model.c — the gsu.model type: JSON text I/O, binary send/recv, casts to
 * and from jsonb, and the inspection functions.
 *
 * The text form is a JSON object (see README, "The gsu.model type").  Every
 * value that arrives from outside — text, jsonb or bytes — is checked field
 * by field before it becomes a model, so no later function has to distrust
 * a model it is given.
 */
#include "gsu_pg.h"
#include "gsu_json.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_model_in);
PG_FUNCTION_INFO_V1(gsu_model_out);
PG_FUNCTION_INFO_V1(gsu_model_recv);
PG_FUNCTION_INFO_V1(gsu_model_send);
PG_FUNCTION_INFO_V1(gsu_model_to_jsonb_cast);
PG_FUNCTION_INFO_V1(gsu_model_from_jsonb_cast);
PG_FUNCTION_INFO_V1(gsu_model_describe);
PG_FUNCTION_INFO_V1(gsu_model_weights);
PG_FUNCTION_INFO_V1(gsu_model_bias);
PG_FUNCTION_INFO_V1(gsu_model_class_weights);
PG_FUNCTION_INFO_V1(gsu_model_class_bias);
PG_FUNCTION_INFO_V1(gsu_model_classes);

static const char *const loss_names[] = {"gsu", "hinge", "tsvc", "robust"};
static const char *const solver_names[] = {"newton", "pegasos", "sgd", "lbfgs"};
static const char *const map_names[] = {"none", "rff", "nystroem"};

const char *
gsu_loss_name(int loss)
{
	return (loss >= 0 && loss <= GSU_LOSS_MAX) ? loss_names[loss] : "?";
}

const char *
gsu_solver_name(int solver)
{
	return (solver >= 0 && solver <= GSU_SOLVER_LBFGS) ? solver_names[solver] : "?";
}

/* the batch solvers report a gap estimate and whether they converged */
static bool
solver_has_gap(int solver)
{
	return solver == GSU_SOLVER_NEWTON || solver == GSU_SOLVER_LBFGS;
}

/* the losses that read gamma, delta_scale, epsilon and q */
static bool
loss_is_robust(int loss)
{
	return loss == GSU_LOSS_TSVC || loss == GSU_LOSS_ROBUST;
}

int64
gsu_map_length(int kind, int dim, int input_dim, int landmarks)
{
	switch (kind)
	{
		case GSU_MAP_RFF:
			/* the frequencies ω_j, one row of input_dim per cos/sin pair */
			return (int64) (dim / 2) * input_dim;
		case GSU_MAP_NYSTROEM:
			/* the landmarks (m × input_dim), then the projection (m × dim) */
			return (int64) landmarks * input_dim + (int64) landmarks * dim;
		default:
			return 0;
	}
}

GsuModel *
gsu_model_alloc(int dim, int nclasses, int map_len)
{
	Size		size = GSU_MODEL_SIZE(dim, nclasses, map_len);
	GsuModel   *m;
	int			k;

	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.model of dimension %d with %d classes is too large",
						dim, nclasses)));
	m = (GsuModel *) palloc0(size);
	SET_VARSIZE(m, size);
	m->format = GSU_MODEL_FORMAT;
	m->dim = dim;
	m->input_dim = dim;
	m->nclasses = nclasses;
	m->map_len = map_len;
	for (k = 0; k < nclasses; k++)
	{
		GSU_MODEL_CLASSES(m)[k] = nclasses == 2 ? (k == 0 ? -1.0 : 1.0) : (double) k;
		GSU_MODEL_CLASS_WEIGHT(m)[k] = 1.0;
	}
	return m;
}

GsuModel *
gsu_model_arg(FunctionCallInfo fcinfo, int argno, GsuModelCache **slot)
{
	Datum		d = PG_GETARG_DATUM(argno);

	if (!VARATT_IS_EXTENDED(DatumGetPointer(d)))
		return (GsuModel *) DatumGetPointer(d);
	if (*slot == NULL)
		*slot = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GsuModelCache));
	return (GsuModel *) gsu_detoast_cache_get(&(*slot)->value, fcinfo->flinfo->fn_mcxt, d);
}

double *
gsu_model_scratch(FunctionCallInfo fcinfo, Size n)
{
	GsuModelCache *c = (GsuModelCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
		c = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GsuModelCache));
	if (c->scratch_len < n)
	{
		if (c->scratch)
			pfree(c->scratch);
		c->scratch = MemoryContextAllocHuge(fcinfo->flinfo->fn_mcxt, sizeof(double) * n);
		c->scratch_len = n;
	}
	return c->scratch;
}

GsuModel *
gsu_model_from_options(int dim, int nclasses, int map_len, const GsuTrainOptions *o)
{
	GsuModel   *m = gsu_model_alloc(dim, nclasses, map_len);

	m->loss = o->loss;
	m->solver = o->solver;
	m->lambda = o->lambda;
	m->tolerance = o->tolerance;
	m->smoothing = o->smoothing;
	m->subspace_fraction = o->subspace_fraction;
	m->max_iterations = o->max_iterations;
	m->epochs = o->epochs;
	m->batch_size = o->batch_size;
	m->seed = o->seed;
	m->gamma = o->gamma;
	m->delta_scale = o->delta_scale;
	m->epsilon = o->epsilon;
	m->robust_q = (uint8) o->robust_q;
	if (o->map_kind != GSU_MAP_NONE)
	{
		/* the caller sets input_dim and fills the map block */
		m->map_kind = (uint8) o->map_kind;
		m->map_sigma = o->map_sigma;
		m->map_seed = o->map_seed;
		m->map_landmarks = o->map_kind == GSU_MAP_NYSTROEM ? o->map_landmarks : 0;
	}
	return m;
}

/* ---------------------------------------------------------------- scoring */

void
gsu_model_decisions(const GsuModel *m, const double *x, int n, double *out)
{
	int			k,
				nvec = GSU_MODEL_NVEC(m);

	if (n != m->input_dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("mean has %d elements, but the model has dimension %d",
						n, m->input_dim)));
	/* the linear model sees φ(x) when there is a feature map */
	x = gsu_model_map_mean(m, x);
	for (k = 0; k < nvec; k++)
	{
		out[k] = gsu_decision(m->dim, GSU_MODEL_THETA(m, k), x);
		if (unlikely(!isfinite(out[k])))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("decision value is out of range for type double precision")));
	}
}

int32
gsu_model_pick(const GsuModel *m, const double *f, int *kout)
{
	int			k,
				best = 0;

	if (m->nclasses == 2)
		best = f[0] >= 0.0 ? 1 : 0;
	else
		for (k = 1; k < m->nclasses; k++)
			if (f[k] > f[best])
				best = k;
	if (kout)
		*kout = best;
	return (int32) GSU_MODEL_CLASSES(m)[best];
}

void
gsu_model_require_plain_binary(const GsuModel *m, const char *what)
{
	if (m->nclasses != 2 || GSU_MODEL_CLASSES(m)[0] != -1.0 || GSU_MODEL_CLASSES(m)[1] != 1.0 ||
		m->map_kind != GSU_MAP_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a two-class model of labels -1 and 1 without a feature map", what)));
}

int
gsu_model_class_index(const GsuModel *m, int32 label)
{
	const double *c = GSU_MODEL_CLASSES(m);
	int			lo = 0,
				hi = m->nclasses - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (c[mid] == (double) label)
			return mid;
		if (c[mid] < (double) label)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("label %d is not a class of the model", label),
			 errhint("gsu.classes(model) lists its classes.")));
	return -1;					/* keep compiler quiet */
}

/* ------------------------------------------------------------ validation */

#define BAD(...) ereport(ERROR, (errcode(code), errmsg(__VA_ARGS__)))

static void
validate_map(const GsuModel *m, int code)
{
	int64		want;
	Size		i;
	const double *map;

	if (m->map_kind > GSU_MAP_MAX)
		BAD("gsu.model has unknown feature map %d", m->map_kind);
	if (m->input_dim < 1 || m->input_dim > GSU_MAX_DIM)
		BAD("gsu.model input dimension %d is out of range", m->input_dim);
	if (m->map_kind == GSU_MAP_NONE)
	{
		if (m->input_dim != m->dim || m->map_landmarks != 0 || m->map_len != 0 ||
			m->map_sigma != 0.0 || m->map_seed != 0)
			BAD("gsu.model without a feature map must have input dimension equal to its dimension and no map parameters");
		return;
	}
	if (!(isfinite(m->map_sigma) && m->map_sigma > 0.0))
		BAD("gsu.model feature map sigma must be a positive finite number");
	if (m->map_seed > (uint64) PG_INT64_MAX)
		BAD("gsu.model feature map seed must be at most " INT64_FORMAT, PG_INT64_MAX);
	if (m->map_kind == GSU_MAP_RFF && (m->dim % 2 != 0 || m->map_landmarks != 0))
		BAD("gsu.model random Fourier features need an even dimension and no landmarks");
	if (m->map_kind == GSU_MAP_NYSTROEM &&
		(m->map_landmarks < 1 || m->map_landmarks > GSU_MAX_DIM || m->dim > m->map_landmarks))
		BAD("gsu.model Nystroem map needs between dimension and %d landmarks", GSU_MAX_DIM);
	want = gsu_map_length(m->map_kind, m->dim, m->input_dim, m->map_landmarks);
	if (want != m->map_len)
		BAD("gsu.model feature map has %d values, but its parameters need " INT64_FORMAT,
			m->map_len, want);
	map = GSU_MODEL_MAP(m);
	for (i = 0; i < (Size) m->map_len; i++)
		if (!isfinite(map[i]))
			BAD("gsu.model feature map value %d is not finite", (int) i + 1);
}

void
gsu_model_validate(GsuModel *m, int code)
{
	int			i,
				k,
				nvec;
	double	   *classes,
			   *cw;

	if (m->format != GSU_MODEL_FORMAT)
		BAD("unsupported gsu.model format %d", m->format);
	if ((m->flags & ~GSU_MODEL_FLAGS_KNOWN) != 0)
		BAD("gsu.model has unknown flags 0x%04x", m->flags);
	if (m->reserved != 0)
		BAD("gsu.model reserved field must be zero");
	if (m->dim < 1 || m->dim > GSU_MAX_DIM)
		BAD("gsu.model dimension %d is out of range", m->dim);
	if (m->nclasses < 2 || m->nclasses > GSU_MAX_CLASSES)
		BAD("gsu.model must have between 2 and %d classes, not %d", GSU_MAX_CLASSES, m->nclasses);
	if (m->map_len < 0 ||
		VARSIZE(m) != GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len))
		BAD("gsu.model of dimension %d with %d classes has the wrong size", m->dim, m->nclasses);
	validate_map(m, code);
	if (m->loss > GSU_LOSS_MAX)
		BAD("gsu.model has unknown loss %d", m->loss);
	if (m->solver > GSU_SOLVER_LBFGS)
		BAD("gsu.model has unknown solver %d", m->solver);
	if (!(isfinite(m->lambda) && m->lambda > 0.0))
		BAD("gsu.model lambda must be a positive finite number");
	if (!(isfinite(m->tolerance) && m->tolerance > 0.0))
		BAD("gsu.model tolerance must be a positive finite number");
	if (!(isfinite(m->smoothing) && m->smoothing >= 0.0))
		BAD("gsu.model smoothing must be a non-negative finite number");
	if (!(m->subspace_fraction > 0.0 && m->subspace_fraction <= 1.0))
		BAD("gsu.model subspace_fraction must be in (0, 1]");
	if (!(isfinite(m->gamma) && m->gamma >= 0.0) ||
		!(isfinite(m->delta_scale) && m->delta_scale >= 0.0) ||
		!(m->epsilon >= 0.0 && m->epsilon < 1.0) || m->robust_q > 2)
		BAD("gsu.model gamma and delta_scale must be non-negative finite numbers, epsilon in [0, 1) and q 1, 2 or infinity");
	if (!loss_is_robust(m->loss) &&
		(m->gamma != 0.0 || m->delta_scale != 0.0 || m->epsilon != 0.0 || m->robust_q != 0))
		BAD("gsu.model loss \"%s\" takes no gamma, delta_scale, epsilon or q", gsu_loss_name(m->loss));
	if (m->epochs < 1 || m->batch_size < 1 || m->max_iterations < 1)
		BAD("gsu.model epochs, batch_size and max_iterations must be positive");
	if (m->rows < 0 || m->iterations < 0 || m->passes < 0)
		BAD("gsu.model training counts must not be negative");
	if (m->seed > (uint64) PG_INT64_MAX)
		BAD("gsu.model seed must be at most " INT64_FORMAT, PG_INT64_MAX);
	if (!isfinite(m->objective) || !isfinite(m->gradient_norm) ||
		!isfinite(m->gap_estimate) || !isfinite(m->seconds) || m->objective < 0.0 ||
		m->gradient_norm < 0.0 || m->gap_estimate < 0.0 || m->seconds < 0.0)
		BAD("gsu.model training statistics must be finite and not negative");

	classes = GSU_MODEL_CLASSES(m);
	cw = GSU_MODEL_CLASS_WEIGHT(m);
	for (k = 0; k < m->nclasses; k++)
	{
		if (!(classes[k] >= PG_INT32_MIN && classes[k] <= PG_INT32_MAX) ||
			classes[k] != floor(classes[k]))
			BAD("gsu.model class %d is not an int4 value", k + 1);
		if (k > 0 && !(classes[k] > classes[k - 1]))
			BAD("gsu.model classes must be distinct and ascending");
		if (!(isfinite(cw[k]) && cw[k] > 0.0))
			BAD("gsu.model class weight %d must be a positive finite number", k + 1);
	}
	nvec = GSU_MODEL_NVEC(m);
	for (k = 0; k < nvec; k++)
	{
		double	   *theta = GSU_MODEL_THETA(m, k);
		double	   *platt = GSU_MODEL_PLATT(m, k);

		for (i = 0; i < m->dim; i++)
			if (!isfinite(theta[i]))
				BAD("gsu.model weight %d is not finite", i + 1);
		if (!isfinite(theta[m->dim]))
			BAD("gsu.model bias is not finite");
		if (!isfinite(platt[0]) || !isfinite(platt[1]) ||
			(!(m->flags & GSU_MODEL_CALIBRATED) && (platt[0] != 0.0 || platt[1] != 0.0)))
			BAD("gsu.model calibration must be finite, and zero when the model is not calibrated");
	}

	/*
	 * Canonical form: −0 becomes +0 (JSON numbers cannot keep the sign of
	 * zero), and statistics a solver does not compute are zero, so that text
	 * and binary round trips give identical values.
	 */
	for (i = 0; i < (int) GSU_MODEL_DATA_LEN(m->dim, m->nclasses, m->map_len); i++)
		m->data[i] += 0.0;
	if (!solver_has_gap(m->solver))
	{
		m->flags &= ~GSU_MODEL_CONVERGED;
		m->gap_estimate = 0.0;
	}
	if (m->solver == GSU_SOLVER_SGD)
	{
		m->gradient_norm = 0.0;
		m->seconds = 0.0;
	}
}

/* ------------------------------------------------------------------ JSON */

static const char *const top_keys[] = {
	"format", "method", "loss", "dim", "classes", "class_weight", "weights", "bias",
	"hyperparameters", "features", "training", "calibration", NULL
};
static const char *const hyper_keys[] = {
	"lambda", "solver", "tolerance", "smoothing", "subspace_fraction",
	"max_iterations", "epochs", "batch_size", "seed",
	"gamma", "delta_scale", "epsilon", "q", NULL
};
static const char *const feature_keys[] = {
	"map", "input_dim", "dim", "sigma", "seed", "landmarks", "matrix", NULL
};
static const char *const calibration_keys[] = {"a", "b", NULL};
static const char *const training_keys[] = {
	"rows", "iterations", "passes", "objective", "gradient_norm",
	"gap_estimate", "converged", "seconds", NULL
};

static int
lookup_name(const GsuJsonCtx *cx, const char *key, const char *val,
			const char *const *names, int count)
{
	int			i;

	for (i = 0; i < count; i++)
		if (strcmp(val, names[i]) == 0)
			return i;
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("%s \"%s\" has unknown value \"%s\"", cx->what, key, val)));
	return -1;					/* keep compiler quiet */
}

static void
json_missing(const GsuJsonCtx *cx, const char *key)
{
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("%s \"%s\" is missing", cx->what, key)));
}

/* an array of exactly n numbers under key in c (a missing key is an error) */
static void
json_exact_array(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
				 double *out, int64 n)
{
	JsonbContainer *arr = gsu_json_container(cx, c, key, true);

	if (arr == NULL)
		json_missing(cx, key);
	if (gsu_json_array_length(arr) != n)
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%s \"%s\" has %d elements, but " INT64_FORMAT " are needed",
						cx->what, key, gsu_json_array_length(arr), n)));
	gsu_json_number_array(cx, arr, key, out, (int) n);
}

/*
 * "weights" (len numbers, or such an array per class) or, with len = 0,
 * "bias", "a", "b" (a number, or one per class) into the per-vector slots
 * at offset off.
 */
static void
json_per_vector(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
				GsuModel *m, int off, int len)
{
	int			k,
				nvec = GSU_MODEL_NVEC(m);
	bool		scalar = len == 0;	/* a number per vector, not an array */

	len = Max(len, 1);
	if (scalar && nvec == 1)
	{
		if (!gsu_json_number(cx, c, key, GSU_MODEL_THETA(m, 0) + off))
			json_missing(cx, key);
		return;
	}
	if (nvec == 1)
	{
		json_exact_array(cx, c, key, GSU_MODEL_THETA(m, 0) + off, len);
		return;
	}
	{
		JsonbContainer *arr = gsu_json_container(cx, c, key, true);

		if (arr == NULL)
			json_missing(cx, key);
		if (gsu_json_array_length(arr) != nvec)
			ereport(ERROR,
					(errcode(cx->errcode),
					 errmsg("%s \"%s\" must have one entry per class (%d), not %d",
							cx->what, key, nvec, gsu_json_array_length(arr))));
		for (k = 0; k < nvec; k++)
		{
			if (scalar)
			{
				double	   *all = palloc(sizeof(double) * nvec);

				gsu_json_number_array(cx, arr, key, all, nvec);
				GSU_MODEL_THETA(m, k)[off] = all[k];
				pfree(all);
			}
			else
			{
				JsonbContainer *row = gsu_json_array_element(cx, arr, key, k);

				if (gsu_json_array_length(row) != len)
					ereport(ERROR,
							(errcode(cx->errcode),
							 errmsg("%s \"%s\" entry %d has %d elements, but the dimension is %d",
									cx->what, key, k + 1, gsu_json_array_length(row), len)));
				gsu_json_number_array(cx, row, key, GSU_MODEL_THETA(m, k) + off, len);
			}
		}
	}
}

GsuModel *
gsu_model_from_jsonb(JsonbContainer *root)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model key"};
	GsuJsonCtx	hx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model hyperparameter"};
	GsuJsonCtx	tx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model training key"};
	GsuJsonCtx	kx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model calibration key"};
	GsuJsonCtx	fx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model features key"};
	JsonbContainer *hyper,
			   *training,
			   *calibration,
			   *features,
			   *classes_arr;
	int64		format,
				dim,
				nclasses = 2,
				input_dim,
				landmarks = 0,
				map_len = 0,
				i64;
	int			map_kind = GSU_MAP_NONE;
	const char *s;
	GsuModel   *m;
	bool		converged = false;
	JsonbValue	qv;
	gsu_solve_options defaults;

	gsu_json_check_object(&cx, root, top_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &format))
		json_missing(&cx, "format");
	/* format 1 (pg_gsu before multi-class) is format 2 without the new keys */
	if (format != GSU_MODEL_FORMAT && format != 1)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("unsupported gsu.model format " INT64_FORMAT, format),
				 errdetail("This version of pg_gsu reads formats 1 and %d.", GSU_MODEL_FORMAT)));
	if (gsu_json_string(&cx, root, "method", &s) && strcmp(s, "linear") != 0)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"method\" has unknown value \"%s\"", s)));
	if (!gsu_json_int64(&cx, root, "dim", 1, GSU_MAX_DIM, &dim))
		json_missing(&cx, "dim");
	classes_arr = gsu_json_container(&cx, root, "classes", true);
	if (classes_arr)
	{
		nclasses = gsu_json_array_length(classes_arr);
		if (nclasses < 2 || nclasses > GSU_MAX_CLASSES)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.model must have between 2 and %d classes, not " INT64_FORMAT,
							GSU_MAX_CLASSES, nclasses)));
	}
	input_dim = dim;
	features = gsu_json_container(&cx, root, "features", false);
	if (features)
	{
		int64		fdim;

		gsu_json_check_object(&fx, features, feature_keys);
		if (!gsu_json_string(&fx, features, "map", &s))
			json_missing(&fx, "map");
		map_kind = lookup_name(&fx, "map", s, map_names, lengthof(map_names));
		if (!gsu_json_int64(&fx, features, "input_dim", 1, GSU_MAX_DIM, &input_dim))
			json_missing(&fx, "input_dim");
		if (gsu_json_int64(&fx, features, "dim", 1, GSU_MAX_DIM, &fdim) && fdim != dim)
			ereport(ERROR,
					(errcode(fx.errcode),
					 errmsg("gsu.model features \"dim\" " INT64_FORMAT " differs from the model's dimension " INT64_FORMAT,
							fdim, dim)));
		gsu_json_int64(&fx, features, "landmarks", 0, GSU_MAX_DIM, &landmarks);
		map_len = gsu_map_length(map_kind, (int) dim, (int) input_dim, (int) landmarks);
		if (map_len > (int64) (MaxAllocSize / sizeof(double)))
			ereport(ERROR,
					(errcode(fx.errcode),
					 errmsg("gsu.model feature map is too large")));
	}

	m = gsu_model_alloc((int) dim, (int) nclasses, (int) map_len);
	m->input_dim = (int32) input_dim;
	m->map_kind = (uint8) map_kind;
	m->map_landmarks = (int32) landmarks;
	if (classes_arr)
		gsu_json_number_array(&cx, classes_arr, "classes", GSU_MODEL_CLASSES(m), (int) nclasses);
	if (gsu_json_container(&cx, root, "class_weight", true))
		json_exact_array(&cx, root, "class_weight", GSU_MODEL_CLASS_WEIGHT(m), nclasses);
	json_per_vector(&cx, root, "weights", m, 0, (int) dim);
	json_per_vector(&cx, root, "bias", m, (int) dim, 0);
	if (features)
	{
		if (!gsu_json_number(&fx, features, "sigma", &m->map_sigma))
			json_missing(&fx, "sigma");
		if (gsu_json_int64(&fx, features, "seed", 0, PG_INT64_MAX, &i64))
			m->map_seed = (uint64) i64;
		if (map_len > 0)
			json_exact_array(&fx, features, "matrix", GSU_MODEL_MAP(m), map_len);
	}
	m->loss = GSU_LOSS_GSU;
	if (gsu_json_string(&cx, root, "loss", &s))
		m->loss = lookup_name(&cx, "loss", s, loss_names, lengthof(loss_names));

	gsu_solve_options_default(&defaults);
	m->lambda = defaults.lambda;
	m->tolerance = defaults.tolerance;
	m->smoothing = defaults.smoothing;
	m->subspace_fraction = 1.0;
	m->max_iterations = defaults.max_iterations;
	m->epochs = defaults.epochs;
	m->batch_size = defaults.batch_size;
	m->seed = defaults.seed;
	m->solver = GSU_SOLVER_NEWTON;

	hyper = gsu_json_container(&cx, root, "hyperparameters", false);
	if (hyper)
	{
		gsu_json_check_object(&hx, hyper, hyper_keys);
		gsu_json_number(&hx, hyper, "lambda", &m->lambda);
		if (gsu_json_string(&hx, hyper, "solver", &s))
			m->solver = lookup_name(&hx, "solver", s, solver_names, lengthof(solver_names));
		gsu_json_number(&hx, hyper, "tolerance", &m->tolerance);
		gsu_json_number(&hx, hyper, "smoothing", &m->smoothing);
		gsu_json_number(&hx, hyper, "subspace_fraction", &m->subspace_fraction);
		if (gsu_json_int64(&hx, hyper, "max_iterations", 1, PG_INT32_MAX, &i64))
			m->max_iterations = (int32) i64;
		if (gsu_json_int64(&hx, hyper, "epochs", 1, PG_INT32_MAX, &i64))
			m->epochs = (int32) i64;
		if (gsu_json_int64(&hx, hyper, "batch_size", 1, PG_INT32_MAX, &i64))
			m->batch_size = (int32) i64;
		if (gsu_json_int64(&hx, hyper, "seed", 0, PG_INT64_MAX, &i64))
			m->seed = (uint64) i64;
		gsu_json_number(&hx, hyper, "gamma", &m->gamma);
		gsu_json_number(&hx, hyper, "delta_scale", &m->delta_scale);
		gsu_json_number(&hx, hyper, "epsilon", &m->epsilon);
		if (getKeyJsonValueFromContainer(hyper, "q", 1, &qv) != NULL && qv.type == jbvString &&
			gsu_json_string(&hx, hyper, "q", &s))
		{
			if (strcmp(s, "inf") != 0)
				ereport(ERROR,
						(errcode(hx.errcode),
						 errmsg("gsu.model hyperparameter \"q\" must be 1, 2 or \"inf\", not \"%s\"", s)));
			m->robust_q = 0;
		}
		else if (gsu_json_int64(&hx, hyper, "q", 1, 2, &i64))
			m->robust_q = (uint8) i64;
	}
	training = gsu_json_container(&cx, root, "training", false);
	if (training)
	{
		gsu_json_check_object(&tx, training, training_keys);
		gsu_json_int64(&tx, training, "rows", 0, PG_INT64_MAX, &m->rows);
		gsu_json_int64(&tx, training, "iterations", 0, PG_INT64_MAX, &m->iterations);
		gsu_json_int64(&tx, training, "passes", 0, PG_INT64_MAX, &m->passes);
		gsu_json_number(&tx, training, "objective", &m->objective);
		gsu_json_number(&tx, training, "gradient_norm", &m->gradient_norm);
		gsu_json_number(&tx, training, "gap_estimate", &m->gap_estimate);
		gsu_json_number(&tx, training, "seconds", &m->seconds);
		if (gsu_json_bool(&tx, training, "converged", &converged) && converged)
			m->flags |= GSU_MODEL_CONVERGED;
	}
	calibration = gsu_json_container(&cx, root, "calibration", false);
	if (calibration)
	{
		gsu_json_check_object(&kx, calibration, calibration_keys);
		json_per_vector(&kx, calibration, "a", m, m->dim + 1, 0);
		json_per_vector(&kx, calibration, "b", m, m->dim + 2, 0);
		m->flags |= GSU_MODEL_CALIBRATED;
	}
	gsu_model_validate(m, ERRCODE_INVALID_TEXT_REPRESENTATION);
	return m;
}

static void
append_kv_double(StringInfo buf, const char *key, double x)
{
	appendStringInfo(buf, "\"%s\": ", key);
	gsu_append_double(buf, x);
}

/* "key": x, — or "key": null, when the statistic does not apply */
static void
append_kv_optional(StringInfo buf, const char *key, double x, bool applies)
{
	if (applies)
		append_kv_double(buf, key, x);
	else
		appendStringInfo(buf, "\"%s\": null", key);
	appendStringInfoString(buf, ", ");
}

static void
append_doubles(StringInfo buf, const double *x, Size n)
{
	Size		i;

	appendStringInfoChar(buf, '[');
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		gsu_append_double(buf, x[i]);
	}
	appendStringInfoChar(buf, ']');
}

/* "key": the per-vector slots at offset off (len values each; 0: one number) */
static void
append_per_vector(StringInfo buf, const char *key, const GsuModel *m, int off, int len)
{
	int			k,
				nvec = GSU_MODEL_NVEC(m);

	appendStringInfo(buf, "\"%s\": ", key);
	if (nvec > 1)
		appendStringInfoChar(buf, '[');
	for (k = 0; k < nvec; k++)
	{
		if (k > 0)
			appendStringInfoString(buf, ", ");
		if (len == 0)
			gsu_append_double(buf, GSU_MODEL_THETA(m, k)[off]);
		else
			append_doubles(buf, GSU_MODEL_THETA(m, k) + off, len);
	}
	if (nvec > 1)
		appendStringInfoChar(buf, ']');
}

/*
 * What gsu.describe reports as "degenerate", derived from the stored
 * weights (no field of the model): "zero model" when a weight vector is
 * exactly 0 (the tsvc and robust solvers return exactly 0 when the zero
 * model is optimal, see settle_degenerate in core/gsu_robust_solve.c), "tsvc
 * bound inactive" when a tsvc vector has ‖w‖ < (1 − GSU_TSVC_BOUND_SLACK)·γ
 * (the relaxation is then not TSVC; the alternating algorithm stores
 * γ = 0), else NULL.
 */
static const char *
degenerate_kind(const GsuModel *m)
{
	bool		inactive = false;
	int			k,
				j;

	for (k = 0; k < GSU_MODEL_NVEC(m); k++)
	{
		const double *w = GSU_MODEL_THETA(m, k);
		double		ww = 0.0;

		for (j = 0; j < m->dim; j++)
			ww += w[j] * w[j];
		if (ww == 0.0)
		{
			for (j = 0; j < m->dim && w[j] == 0.0; j++)
				;
			if (j == m->dim)
				return "zero model";
		}
		if (m->loss == GSU_LOSS_TSVC && m->gamma > 0.0 &&
			sqrt(ww) < (1.0 - GSU_TSVC_BOUND_SLACK) * m->gamma)
			inactive = true;
	}
	return inactive ? "tsvc bound inactive" : NULL;
}

static char *
model_to_text(const GsuModel *m, bool with_weights)
{
	StringInfoData buf;
	int			k;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"method\": \"linear\", \"loss\": \"%s\", \"dim\": %d",
					 m->format, gsu_loss_name(m->loss), m->dim);
	appendStringInfoString(&buf, ", \"classes\": [");
	for (k = 0; k < m->nclasses; k++)
		appendStringInfo(&buf, "%s%d", k > 0 ? ", " : "", (int) GSU_MODEL_CLASSES(m)[k]);
	appendStringInfoString(&buf, "], \"class_weight\": ");
	append_doubles(&buf, GSU_MODEL_CLASS_WEIGHT(m), m->nclasses);
	if (with_weights)
	{
		appendStringInfoString(&buf, ", ");
		append_per_vector(&buf, "weights", m, 0, m->dim);
	}
	appendStringInfoString(&buf, ", ");
	append_per_vector(&buf, "bias", m, m->dim, 0);

	appendStringInfoString(&buf, ", \"hyperparameters\": {");
	append_kv_double(&buf, "lambda", m->lambda);
	appendStringInfo(&buf, ", \"solver\": \"%s\", ", gsu_solver_name(m->solver));
	append_kv_double(&buf, "tolerance", m->tolerance);
	appendStringInfoString(&buf, ", ");
	append_kv_double(&buf, "smoothing", m->smoothing);
	appendStringInfoString(&buf, ", ");
	append_kv_double(&buf, "subspace_fraction", m->subspace_fraction);
	appendStringInfo(&buf, ", \"max_iterations\": %d, \"epochs\": %d, \"batch_size\": %d, "
					 "\"seed\": " UINT64_FORMAT,
					 m->max_iterations, m->epochs, m->batch_size, m->seed);
	if (loss_is_robust(m->loss))
	{
		appendStringInfoString(&buf, ", ");
		append_kv_double(&buf, "gamma", m->gamma);
		appendStringInfoString(&buf, ", ");
		append_kv_double(&buf, "delta_scale", m->delta_scale);
		appendStringInfoString(&buf, ", ");
		append_kv_double(&buf, "epsilon", m->epsilon);
		if (m->robust_q == 0)
			appendStringInfoString(&buf, ", \"q\": \"inf\"");
		else
			appendStringInfo(&buf, ", \"q\": %d", m->robust_q);
	}
	appendStringInfoChar(&buf, '}');

	if (m->map_kind != GSU_MAP_NONE)
	{
		appendStringInfo(&buf, ", \"features\": {\"map\": \"%s\", \"input_dim\": %d, \"dim\": %d, ",
						 map_names[m->map_kind], m->input_dim, m->dim);
		append_kv_double(&buf, "sigma", m->map_sigma);
		appendStringInfo(&buf, ", \"seed\": " UINT64_FORMAT, m->map_seed);
		if (m->map_kind == GSU_MAP_NYSTROEM)
			appendStringInfo(&buf, ", \"landmarks\": %d", m->map_landmarks);
		if (with_weights)
		{
			appendStringInfoString(&buf, ", \"matrix\": ");
			append_doubles(&buf, GSU_MODEL_MAP(m), m->map_len);
		}
		appendStringInfoChar(&buf, '}');
	}
	else
		appendStringInfoString(&buf, ", \"features\": null");

	appendStringInfo(&buf, ", \"training\": {\"rows\": " INT64_FORMAT
					 ", \"iterations\": " INT64_FORMAT ", \"passes\": " INT64_FORMAT ", ",
					 m->rows, m->iterations, m->passes);
	append_kv_double(&buf, "objective", m->objective);
	appendStringInfoString(&buf, ", ");
	/* statistics a solver does not compute are null, not zero */
	append_kv_optional(&buf, "gradient_norm", m->gradient_norm, m->solver != GSU_SOLVER_SGD);
	append_kv_optional(&buf, "gap_estimate", m->gap_estimate, solver_has_gap(m->solver));
	appendStringInfo(&buf, "\"converged\": %s, ",
					 !solver_has_gap(m->solver) ? "null" :
					 (m->flags & GSU_MODEL_CONVERGED) ? "true" : "false");
	if (!with_weights && degenerate_kind(m) != NULL)
		appendStringInfo(&buf, "\"degenerate\": \"%s\", ", degenerate_kind(m));
	append_kv_optional(&buf, "seconds", m->seconds, m->solver != GSU_SOLVER_SGD);
	buf.len -= 2;				/* the last ", " */
	buf.data[buf.len] = '\0';
	appendStringInfoChar(&buf, '}');
	if (m->flags & GSU_MODEL_CALIBRATED)
	{
		appendStringInfoString(&buf, ", \"calibration\": {");
		append_per_vector(&buf, "a", m, m->dim + 1, 0);
		appendStringInfoString(&buf, ", ");
		append_per_vector(&buf, "b", m, m->dim + 2, 0);
		appendStringInfoChar(&buf, '}');
	}
	else
		appendStringInfoString(&buf, ", \"calibration\": null");
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

Jsonb *
gsu_model_to_jsonb(const GsuModel *m, bool with_weights)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
											  CStringGetDatum(model_to_text(m, with_weights))));
}

Datum
gsu_model_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(str)));

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type gsu.model: \"%s\"", str),
				 errdetail("A gsu.model is written as a JSON object.")));
	PG_RETURN_GSU_MODEL(gsu_model_from_jsonb(&jb->root));
}

Datum
gsu_model_out(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);

	PG_RETURN_CSTRING(model_to_text(m, true));
}

Datum
gsu_model_to_jsonb_cast(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);

	PG_RETURN_JSONB_P(gsu_model_to_jsonb(m, true));
}

Datum
gsu_model_from_jsonb_cast(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb = PG_GETARG_JSONB_P(0);

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("a gsu.model must be a JSON object")));
	PG_RETURN_GSU_MODEL(gsu_model_from_jsonb(&jb->root));
}

/* ---------------------------------------------------------------- binary */

/*
 * Binary form: the header fields in declaration order in network byte
 * order (varlena header excluded), then the data block as float8.
 */
#define GSU_MODEL_SEND_HEADER (offsetof(GsuModel, data) - offsetof(GsuModel, format))

Datum
gsu_model_send(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	StringInfoData buf;
	Size		i,
				len = GSU_MODEL_DATA_LEN(m->dim, m->nclasses, m->map_len);

	pq_begintypsend(&buf);
	pq_sendint16(&buf, m->format);
	pq_sendint16(&buf, m->flags);
	pq_sendint32(&buf, m->dim);
	pq_sendint32(&buf, m->input_dim);
	pq_sendint32(&buf, m->nclasses);
	pq_sendint8(&buf, m->loss);
	pq_sendint8(&buf, m->solver);
	pq_sendint8(&buf, m->map_kind);
	pq_sendint8(&buf, m->robust_q);
	pq_sendint32(&buf, m->epochs);
	pq_sendint32(&buf, m->batch_size);
	pq_sendint32(&buf, m->max_iterations);
	pq_sendint32(&buf, m->map_landmarks);
	pq_sendint32(&buf, m->map_len);
	pq_sendint32(&buf, m->reserved);
	pq_sendint64(&buf, m->seed);
	pq_sendint64(&buf, m->map_seed);
	pq_sendfloat8(&buf, m->lambda);
	pq_sendfloat8(&buf, m->tolerance);
	pq_sendfloat8(&buf, m->smoothing);
	pq_sendfloat8(&buf, m->subspace_fraction);
	pq_sendfloat8(&buf, m->gamma);
	pq_sendfloat8(&buf, m->delta_scale);
	pq_sendfloat8(&buf, m->epsilon);
	pq_sendfloat8(&buf, m->map_sigma);
	pq_sendint64(&buf, m->rows);
	pq_sendint64(&buf, m->iterations);
	pq_sendint64(&buf, m->passes);
	pq_sendfloat8(&buf, m->objective);
	pq_sendfloat8(&buf, m->gradient_norm);
	pq_sendfloat8(&buf, m->gap_estimate);
	pq_sendfloat8(&buf, m->seconds);
	for (i = 0; i < len; i++)
		pq_sendfloat8(&buf, m->data[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_model_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	GsuModel	h;
	GsuModel   *m;
	Size		i,
				len;

	if ((Size) (buf->len - buf->cursor) < GSU_MODEL_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value is too short")));
	memset(&h, 0, sizeof(h));
	h.format = (uint16) pq_getmsgint(buf, 2);
	h.flags = (uint16) pq_getmsgint(buf, 2);
	h.dim = (int32) pq_getmsgint(buf, 4);
	h.input_dim = (int32) pq_getmsgint(buf, 4);
	h.nclasses = (int32) pq_getmsgint(buf, 4);
	h.loss = (uint8) pq_getmsgint(buf, 1);
	h.solver = (uint8) pq_getmsgint(buf, 1);
	h.map_kind = (uint8) pq_getmsgint(buf, 1);
	h.robust_q = (uint8) pq_getmsgint(buf, 1);
	h.epochs = (int32) pq_getmsgint(buf, 4);
	h.batch_size = (int32) pq_getmsgint(buf, 4);
	h.max_iterations = (int32) pq_getmsgint(buf, 4);
	h.map_landmarks = (int32) pq_getmsgint(buf, 4);
	h.map_len = (int32) pq_getmsgint(buf, 4);
	h.reserved = (int32) pq_getmsgint(buf, 4);
	if (h.format != GSU_MODEL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.model format %d", h.format)));
	if (h.dim < 1 || h.dim > GSU_MAX_DIM || h.nclasses < 2 || h.nclasses > GSU_MAX_CLASSES ||
		h.map_len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model dimension %d, %d classes or map length %d is out of range",
						h.dim, h.nclasses, h.map_len)));
	len = GSU_MODEL_DATA_LEN(h.dim, h.nclasses, h.map_len);
	/* the length is checked before anything of that size is allocated */
	if ((Size) (buf->len - buf->cursor) !=
		GSU_MODEL_SEND_HEADER - (offsetof(GsuModel, seed) - offsetof(GsuModel, format)) +
		sizeof(double) * len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value has the wrong length for dimension %d and %d classes",
						h.dim, h.nclasses)));
	m = gsu_model_alloc(h.dim, h.nclasses, h.map_len);
	memcpy(&m->format, &h.format, offsetof(GsuModel, seed) - offsetof(GsuModel, format));
	m->seed = (uint64) pq_getmsgint64(buf);
	m->map_seed = (uint64) pq_getmsgint64(buf);
	m->lambda = pq_getmsgfloat8(buf);
	m->tolerance = pq_getmsgfloat8(buf);
	m->smoothing = pq_getmsgfloat8(buf);
	m->subspace_fraction = pq_getmsgfloat8(buf);
	m->gamma = pq_getmsgfloat8(buf);
	m->delta_scale = pq_getmsgfloat8(buf);
	m->epsilon = pq_getmsgfloat8(buf);
	m->map_sigma = pq_getmsgfloat8(buf);
	m->rows = pq_getmsgint64(buf);
	m->iterations = pq_getmsgint64(buf);
	m->passes = pq_getmsgint64(buf);
	m->objective = pq_getmsgfloat8(buf);
	m->gradient_norm = pq_getmsgfloat8(buf);
	m->gap_estimate = pq_getmsgfloat8(buf);
	m->seconds = pq_getmsgfloat8(buf);
	for (i = 0; i < len; i++)
		m->data[i] = pq_getmsgfloat8(buf);
	gsu_model_validate(m, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_GSU_MODEL(m);
}

/* ------------------------------------------------------------ inspection */

Datum
gsu_model_describe(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);

	PG_RETURN_JSONB_P(gsu_model_to_jsonb(m, false));
}

/* theta of the vector that scores class k: for two classes, ±theta_0 */
static void
class_theta(const GsuModel *m, int k, double *out)
{
	int			j;
	const double *t = GSU_MODEL_THETA(m, m->nclasses == 2 ? 0 : k);
	double		sign = (m->nclasses == 2 && k == 0) ? -1.0 : 1.0;

	for (j = 0; j <= m->dim; j++)
		out[j] = sign * t[j] + 0.0;
}

Datum
gsu_model_weights(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	ArrayType  *a;
	int			k;

	if (m->nclasses == 2)
	{
		a = gsu_new_float8_array(1, m->dim, 0);
		memcpy(ARR_DATA_PTR(a), GSU_MODEL_THETA(m, 0), sizeof(double) * m->dim);
		PG_RETURN_ARRAYTYPE_P(a);
	}
	/* one-vs-rest: one row per class */
	a = gsu_new_float8_array(2, m->nclasses, m->dim);
	for (k = 0; k < m->nclasses; k++)
		memcpy((double *) ARR_DATA_PTR(a) + (Size) k * m->dim, GSU_MODEL_THETA(m, k),
			   sizeof(double) * m->dim);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
gsu_model_bias(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);

	if (m->nclasses != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a model of %d classes has one bias per class", m->nclasses),
				 errhint("Use gsu.bias(model, class).")));
	PG_RETURN_FLOAT8(GSU_MODEL_THETA(m, 0)[m->dim]);
}

Datum
gsu_model_class_weights(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	int			k = gsu_model_class_index(m, PG_GETARG_INT32(1));
	ArrayType  *a = gsu_new_float8_array(1, m->dim, 0);
	double	   *t = palloc(sizeof(double) * ((Size) m->dim + 1));

	class_theta(m, k, t);
	memcpy(ARR_DATA_PTR(a), t, sizeof(double) * m->dim);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
gsu_model_class_bias(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	int			k = gsu_model_class_index(m, PG_GETARG_INT32(1));
	double	   *t = palloc(sizeof(double) * ((Size) m->dim + 1));

	class_theta(m, k, t);
	PG_RETURN_FLOAT8(t[m->dim]);
}

Datum
gsu_model_classes(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	Datum	   *d = palloc(sizeof(Datum) * m->nclasses);
	int			k;

	for (k = 0; k < m->nclasses; k++)
		d[k] = Int32GetDatum((int32) GSU_MODEL_CLASSES(m)[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, m->nclasses, INT4OID, sizeof(int32), true,
										  TYPALIGN_INT));
}
