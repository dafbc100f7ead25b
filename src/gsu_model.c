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

PG_FUNCTION_INFO_V1(gsu_model_in);
PG_FUNCTION_INFO_V1(gsu_model_out);
PG_FUNCTION_INFO_V1(gsu_model_recv);
PG_FUNCTION_INFO_V1(gsu_model_send);
PG_FUNCTION_INFO_V1(gsu_model_to_jsonb_cast);
PG_FUNCTION_INFO_V1(gsu_model_from_jsonb_cast);
PG_FUNCTION_INFO_V1(gsu_model_describe);
PG_FUNCTION_INFO_V1(gsu_model_weights);
PG_FUNCTION_INFO_V1(gsu_model_bias);

static const char *const loss_names[] = {"gsu", "hinge"};
static const char *const solver_names[] = {"newton", "pegasos", "sgd", "lbfgs"};

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

GsuModel *
gsu_model_alloc(int dim)
{
	Size		size = GSU_MODEL_SIZE(dim);
	GsuModel   *m = (GsuModel *) palloc0(size);

	SET_VARSIZE(m, size);
	m->format = GSU_MODEL_FORMAT;
	m->dim = dim;
	return m;
}

GsuModel *
gsu_model_arg(FunctionCallInfo fcinfo, int argno, GsuModelCache **slot)
{
	Datum		d = PG_GETARG_DATUM(argno);
	GsuModelCache *c = *slot;

	if (!VARATT_IS_EXTENDED(DatumGetPointer(d)))
		return (GsuModel *) DatumGetPointer(d);
	if (c == NULL)
		c = *slot = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GsuModelCache));
	if (c->model == NULL || c->datum != DatumGetPointer(d))
	{
		GsuModel   *m = (GsuModel *) PG_DETOAST_DATUM(d);

		if (c->model)
			pfree(c->model);
		c->model = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, VARSIZE(m));
		memcpy(c->model, m, VARSIZE(m));
		c->datum = DatumGetPointer(d);
	}
	return c->model;
}

GsuModel *
gsu_model_from_options(int dim, const GsuTrainOptions *o)
{
	GsuModel   *m = gsu_model_alloc(dim);

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
	return m;
}

/* ------------------------------------------------------------ validation */

#define BAD(...) ereport(ERROR, (errcode(code), errmsg(__VA_ARGS__)))

void
gsu_model_validate(GsuModel *m, int code)
{
	int			i;

	if (m->format != GSU_MODEL_FORMAT)
		BAD("unsupported gsu.model format %d", m->format);
	if ((m->flags & ~GSU_MODEL_FLAGS_KNOWN) != 0)
		BAD("gsu.model has unknown flags 0x%04x", m->flags);
	if (m->reserved != 0)
		BAD("gsu.model reserved field must be zero");
	if (m->dim < 1 || m->dim > GSU_MAX_DIM)
		BAD("gsu.model dimension %d is out of range", m->dim);
	if (VARSIZE(m) != GSU_MODEL_SIZE(m->dim))
		BAD("gsu.model of dimension %d has the wrong size", m->dim);
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
	if (!isfinite(m->platt_a) || !isfinite(m->platt_b) ||
		(!(m->flags & GSU_MODEL_CALIBRATED) && (m->platt_a != 0.0 || m->platt_b != 0.0)))
		BAD("gsu.model calibration must be finite, and zero when the model is not calibrated");
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
	for (i = 0; i < m->dim; i++)
		if (!isfinite(m->theta[i]))
			BAD("gsu.model weight %d is not finite", i + 1);
	if (!isfinite(m->theta[m->dim]))
		BAD("gsu.model bias is not finite");

	/*
	 * Canonical form: −0 becomes +0 (JSON numbers cannot keep the sign of
	 * zero), and statistics a solver does not compute are zero, so that text
	 * and binary round trips give identical values.
	 */
	for (i = 0; i <= m->dim; i++)
		m->theta[i] += 0.0;
	m->platt_a += 0.0;
	m->platt_b += 0.0;
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
	"format", "method", "loss", "dim", "weights", "bias",
	"hyperparameters", "training", "calibration", NULL
};
static const char *const hyper_keys[] = {
	"lambda", "solver", "tolerance", "smoothing", "subspace_fraction",
	"max_iterations", "epochs", "batch_size", "seed", NULL
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

GsuModel *
gsu_model_from_jsonb(JsonbContainer *root)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model key"};
	GsuJsonCtx	hx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model hyperparameter"};
	GsuJsonCtx	tx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model training key"};
	GsuJsonCtx	kx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model calibration key"};
	JsonbContainer *weights,
			   *hyper,
			   *training,
			   *calibration;
	int64		format,
				dim,
				i64;
	const char *s;
	GsuModel   *m;
	double		bias;
	bool		converged = false;
	gsu_solve_options defaults;

	gsu_json_check_object(&cx, root, top_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &format))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"format\" is missing")));
	if (format != GSU_MODEL_FORMAT)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("unsupported gsu.model format " INT64_FORMAT, format),
				 errdetail("This version of pg_gsu reads format %d.", GSU_MODEL_FORMAT)));
	if (gsu_json_string(&cx, root, "method", &s) && strcmp(s, "linear") != 0)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"method\" has unknown value \"%s\"", s)));
	if (!gsu_json_int64(&cx, root, "dim", 1, GSU_MAX_DIM, &dim))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"dim\" is missing")));
	weights = gsu_json_container(&cx, root, "weights", true);
	if (weights == NULL)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"weights\" is missing")));
	if (gsu_json_array_length(weights) != dim)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model has %d weights but dimension " INT64_FORMAT,
						gsu_json_array_length(weights), dim)));
	if (!gsu_json_number(&cx, root, "bias", &bias))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"bias\" is missing")));

	m = gsu_model_alloc((int) dim);
	gsu_json_number_array(&cx, weights, "weights", m->theta, (int) dim);
	m->theta[dim] = bias;
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
		if (!gsu_json_number(&kx, calibration, "a", &m->platt_a) ||
			!gsu_json_number(&kx, calibration, "b", &m->platt_b))
			ereport(ERROR,
					(errcode(kx.errcode),
					 errmsg("gsu.model calibration needs both \"a\" and \"b\"")));
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

static char *
model_to_text(const GsuModel *m, bool with_weights)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"method\": \"linear\", \"loss\": \"%s\", \"dim\": %d",
					 m->format, gsu_loss_name(m->loss), m->dim);
	if (with_weights)
	{
		appendStringInfoString(&buf, ", \"weights\": [");
		for (i = 0; i < m->dim; i++)
		{
			if (i > 0)
				appendStringInfoString(&buf, ", ");
			gsu_append_double(&buf, m->theta[i]);
		}
		appendStringInfoChar(&buf, ']');
	}
	appendStringInfoString(&buf, ", ");
	append_kv_double(&buf, "bias", m->theta[m->dim]);

	appendStringInfoString(&buf, ", \"hyperparameters\": {");
	append_kv_double(&buf, "lambda", m->lambda);
	appendStringInfo(&buf, ", \"solver\": \"%s\", ", gsu_solver_name(m->solver));
	append_kv_double(&buf, "tolerance", m->tolerance);
	appendStringInfoString(&buf, ", ");
	append_kv_double(&buf, "smoothing", m->smoothing);
	appendStringInfoString(&buf, ", ");
	append_kv_double(&buf, "subspace_fraction", m->subspace_fraction);
	appendStringInfo(&buf, ", \"max_iterations\": %d, \"epochs\": %d, \"batch_size\": %d, "
					 "\"seed\": " UINT64_FORMAT "}",
					 m->max_iterations, m->epochs, m->batch_size, m->seed);

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
	append_kv_optional(&buf, "seconds", m->seconds, m->solver != GSU_SOLVER_SGD);
	buf.len -= 2;				/* the last ", " */
	buf.data[buf.len] = '\0';
	appendStringInfoChar(&buf, '}');
	if (m->flags & GSU_MODEL_CALIBRATED)
	{
		appendStringInfoString(&buf, ", \"calibration\": {");
		append_kv_double(&buf, "a", m->platt_a);
		appendStringInfoString(&buf, ", ");
		append_kv_double(&buf, "b", m->platt_b);
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
 * Binary form: the fixed fields in declaration order in network byte order,
 * then dim + 1 float8 (weights, bias).
 */
Datum
gsu_model_send(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	StringInfoData buf;
	int			i;

	pq_begintypsend(&buf);
	pq_sendint16(&buf, m->format);
	pq_sendint16(&buf, m->flags);
	pq_sendint32(&buf, m->dim);
	pq_sendint8(&buf, m->loss);
	pq_sendint8(&buf, m->solver);
	pq_sendint16(&buf, m->reserved);
	pq_sendint32(&buf, m->epochs);
	pq_sendint32(&buf, m->batch_size);
	pq_sendint32(&buf, m->max_iterations);
	pq_sendint64(&buf, m->seed);
	pq_sendfloat8(&buf, m->lambda);
	pq_sendfloat8(&buf, m->tolerance);
	pq_sendfloat8(&buf, m->smoothing);
	pq_sendfloat8(&buf, m->subspace_fraction);
	pq_sendint64(&buf, m->rows);
	pq_sendint64(&buf, m->iterations);
	pq_sendint64(&buf, m->passes);
	pq_sendfloat8(&buf, m->objective);
	pq_sendfloat8(&buf, m->gradient_norm);
	pq_sendfloat8(&buf, m->gap_estimate);
	pq_sendfloat8(&buf, m->seconds);
	pq_sendfloat8(&buf, m->platt_a);
	pq_sendfloat8(&buf, m->platt_b);
	for (i = 0; i <= m->dim; i++)
		pq_sendfloat8(&buf, m->theta[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Fixed part of the binary form, in bytes. */
#define GSU_MODEL_SEND_HEADER (2 + 2 + 4 + 1 + 1 + 2 + 4 * 3 + 8 + 8 * 4 + 8 * 3 + 8 * 4 + 8 * 2)

Datum
gsu_model_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	GsuModel	h;
	GsuModel   *m;
	int			i;

	if (buf->len - buf->cursor < GSU_MODEL_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value is too short")));
	memset(&h, 0, sizeof(h));
	h.format = (uint16) pq_getmsgint(buf, 2);
	h.flags = (uint16) pq_getmsgint(buf, 2);
	h.dim = (int32) pq_getmsgint(buf, 4);
	if (h.format != GSU_MODEL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.model format %d", h.format)));
	if (h.dim < 1 || h.dim > GSU_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model dimension %d is out of range", h.dim)));
	if ((Size) (buf->len - buf->cursor) !=
		GSU_MODEL_SEND_HEADER - 8 + sizeof(double) * ((Size) h.dim + 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value has the wrong length for dimension %d",
						h.dim)));
	m = gsu_model_alloc(h.dim);
	m->flags = h.flags;
	m->loss = (uint8) pq_getmsgint(buf, 1);
	m->solver = (uint8) pq_getmsgint(buf, 1);
	m->reserved = (uint16) pq_getmsgint(buf, 2);
	m->epochs = (int32) pq_getmsgint(buf, 4);
	m->batch_size = (int32) pq_getmsgint(buf, 4);
	m->max_iterations = (int32) pq_getmsgint(buf, 4);
	m->seed = (uint64) pq_getmsgint64(buf);
	m->lambda = pq_getmsgfloat8(buf);
	m->tolerance = pq_getmsgfloat8(buf);
	m->smoothing = pq_getmsgfloat8(buf);
	m->subspace_fraction = pq_getmsgfloat8(buf);
	m->rows = pq_getmsgint64(buf);
	m->iterations = pq_getmsgint64(buf);
	m->passes = pq_getmsgint64(buf);
	m->objective = pq_getmsgfloat8(buf);
	m->gradient_norm = pq_getmsgfloat8(buf);
	m->gap_estimate = pq_getmsgfloat8(buf);
	m->seconds = pq_getmsgfloat8(buf);
	m->platt_a = pq_getmsgfloat8(buf);
	m->platt_b = pq_getmsgfloat8(buf);
	for (i = 0; i <= m->dim; i++)
		m->theta[i] = pq_getmsgfloat8(buf);
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

Datum
gsu_model_weights(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	ArrayType  *a = gsu_new_float8_array(1, m->dim, 0);

	memcpy(ARR_DATA_PTR(a), m->theta, sizeof(double) * m->dim);
	PG_RETURN_ARRAYTYPE_P(a);
}

Datum
gsu_model_bias(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);

	PG_RETURN_FLOAT8(m->theta[m->dim]);
}
