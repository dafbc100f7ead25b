/*
 * gsu_model.c — the gsu.model type's SQL functions: the binary send/recv
 * and the inspection functions (the JSON text form is gsu_model_text.c).
 * The top floor of the model family (gsu_model.h).
 *
 * The text form is a JSON object (see README, "The gsu.model type").  Every
 * value that arrives from outside — text, jsonb or bytes — is checked field
 * by field (gsu_model_check.c) before it becomes a model.
 */
#include "gsu_model.h"
#include "gsu_progress.h"

#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_model_recv);
PG_FUNCTION_INFO_V1(gsu_model_send);
PG_FUNCTION_INFO_V1(gsu_model_describe);
PG_FUNCTION_INFO_V1(gsu_model_weights);
PG_FUNCTION_INFO_V1(gsu_model_bias);
PG_FUNCTION_INFO_V1(gsu_model_weights_any);
PG_FUNCTION_INFO_V1(gsu_model_bias_any);
PG_FUNCTION_INFO_V1(gsu_model_class_weights);
PG_FUNCTION_INFO_V1(gsu_model_class_bias);
PG_FUNCTION_INFO_V1(gsu_model_classes);


/* ---------------------------------------------------------------- binary */

/*
 * Binary form: the header fields in the order of GSU_MODEL_HEADER
 * (gsu_model_layout.h) in network byte order (varlena header excluded),
 * then the data block as float8.
 */
#define WIRE_BYTES_int8 1
#define WIRE_BYTES_int16 2
#define WIRE_BYTES_int32 4
#define WIRE_BYTES_int64 8
#define WIRE_BYTES_float8 8
#define WIRE_FIELD_BYTES(type, field, wire) + WIRE_BYTES_##wire
#define WIRE_ARRAY_BYTES(type, field, n, wire) + (n) * WIRE_BYTES_##wire
#define GSU_MODEL_SEND_HEADER ((Size) (0 GSU_MODEL_HEADER(WIRE_FIELD_BYTES, WIRE_ARRAY_BYTES)))

/* each field is as wide in the binary form as in the value, which has no padding */
#define CHECK_FIELD(type, field, wire) \
	StaticAssertDecl(sizeof(type) == WIRE_BYTES_##wire, "GsuModel." #field " is not " #wire);
#define CHECK_ARRAY(type, field, n, wire) CHECK_FIELD(type, field, wire)
GSU_MODEL_HEADER(CHECK_FIELD, CHECK_ARRAY)
StaticAssertDecl(GSU_MODEL_SEND_HEADER == offsetof(GsuModel, data) - offsetof(GsuModel, format),
				 "GSU_MODEL_HEADER names every field of GsuModel's header");

/* the header of h, field after field */
static void
send_header(StringInfo buf, const GsuModel *h)
{
	int			i;

#define SEND_FIELD(type, field, wire) pq_send##wire(buf, h->field);
#define SEND_ARRAY(type, field, n, wire) \
	for (i = 0; i < (n); i++) \
		pq_send##wire(buf, h->field[i]);
	GSU_MODEL_HEADER(SEND_FIELD, SEND_ARRAY)
#undef SEND_FIELD
#undef SEND_ARRAY
}

#define RECV_int8(buf) pq_getmsgint(buf, 1)
#define RECV_int16(buf) pq_getmsgint(buf, 2)
#define RECV_int32(buf) pq_getmsgint(buf, 4)
#define RECV_int64(buf) pq_getmsgint64(buf)
#define RECV_float8(buf) pq_getmsgfloat8(buf)

/* reads the header into h (buf holds at least GSU_MODEL_SEND_HEADER bytes) */
static void
recv_header(StringInfo buf, GsuModel *h)
{
	int			i;

#define RECV_FIELD(type, field, wire) h->field = (type) RECV_##wire(buf);
#define RECV_ARRAY(type, field, n, wire) \
	for (i = 0; i < (n); i++) \
		h->field[i] = (type) RECV_##wire(buf);
	GSU_MODEL_HEADER(RECV_FIELD, RECV_ARRAY)
#undef RECV_FIELD
#undef RECV_ARRAY
}

Datum
gsu_model_send(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	GsuModel	h;
	StringInfoData buf;
	Size		i,
				len = GSU_MODEL_LEN(m) + GSU_MODEL_HIST_LEN(m);

	/* a value stored by an older version is sent in the current format */
	memcpy(&h, m, offsetof(GsuModel, data));
	h.format = GSU_MODEL_FORMAT;
	pq_begintypsend(&buf);
	send_header(&buf, &h);
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
				len,
				std_len = 0,
				miss_len = 0,
				hist_len = 0;

	if ((Size) (buf->len - buf->cursor) < GSU_MODEL_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value is too short")));
	memset(&h, 0, sizeof(h));
	/* format 2's zero int32 reserved field is format 3's mode 0 and reserved bytes */
	recv_header(buf, &h);
	if (h.format < 2 || h.format > GSU_MODEL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.model format %d", h.format)));
	if (h.dim < 1 || h.dim > GSU_MAX_DIM || h.nclasses < 2 || h.nclasses > GSU_MAX_CLASSES ||
		h.map_len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model dimension %d, %d classes or map length %d is out of range",
						h.dim, h.nclasses, h.map_len)));
	/* formats 4 and 5: a standardized model's statistics follow the map */
	if (h.format >= 4 && (h.flags & GSU_MODEL_STANDARDIZED))
	{
		if (h.input_dim < 1 || h.input_dim > GSU_MAX_DIM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("gsu.model input dimension %d is out of range", h.input_dim)));
		std_len = 2 * (Size) h.input_dim;
	}
	/* the moments of option "missing" follow (flag GSU_MODEL_MISSING, format 5) */
	if (h.format >= 5 && (h.flags & GSU_MODEL_MISSING))
	{
		if (h.input_dim < 1 || h.input_dim > GSU_MAX_DIM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("gsu.model input dimension %d is out of range", h.input_dim)));
		miss_len = GSU_MISSING_BLOCK_LEN(h.input_dim);
	}
	len = GSU_MODEL_DATA_LEN(h.dim, h.nclasses, h.map_len) + std_len + miss_len;
	/* format 5: a history's doubles are what the value has after the rest */
	if (h.format >= 5 && (h.flags & GSU_MODEL_HISTORY))
	{
		Size		fixed = sizeof(double) * len;
		Size		nvec = h.nclasses == 2 ? 1 : (Size) h.nclasses;
		Size		rest = (Size) (buf->len - buf->cursor);

		if (rest >= fixed && (rest - fixed) % sizeof(double) == 0 &&
			(rest - fixed) / sizeof(double) <= nvec * (1 + GSU_HISTORY_MAX * GSU_HISTORY_FIELDS))
			hist_len = (rest - fixed) / sizeof(double);
	}
	/* the length is checked before anything of that size is allocated */
	if ((Size) (buf->len - buf->cursor) != sizeof(double) * (len + hist_len))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value has the wrong length for dimension %d and %d classes",
						h.dim, h.nclasses)));
	m = gsu_model_alloc_extra(h.dim, h.nclasses, h.map_len, std_len + miss_len + hist_len);
	memcpy(&m->format, &h.format, offsetof(GsuModel, data) - offsetof(GsuModel, format));
	for (i = 0; i < len + hist_len; i++)
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

/*
 * gsu.training_info(model): the kept history, one row per pass and class
 * vector (class: the vector's positive class, the second of two).
 */
PG_FUNCTION_INFO_V1(gsu_model_training_info);
Datum
gsu_model_training_info(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const double *h;
	int			nvec = GSU_MODEL_NVEC(m),
				k,
				i,
				j;
	Size		at = nvec;

	InitMaterializedSRF(fcinfo, 0);
	if (!(m->flags & GSU_MODEL_HISTORY))
		PG_RETURN_VOID();
	h = GSU_MODEL_HIST(m);
	for (k = 0; k < nvec; k++)
		for (i = 0; i < (int) h[k]; i++, at += GSU_HISTORY_FIELDS)
		{
			Datum		values[6];
			bool		nulls[6] = {false, false, false, false, false, false};

			values[0] = Int32GetDatum((int32) GSU_MODEL_CLASSES(m)[m->nclasses == 2 ? 1 : k]);
			nulls[0] = gsu_model_is_regression(m);	/* a regression model has no class */
			values[1] = Int64GetDatum((int64) h[at]);
			for (j = 1; j < GSU_HISTORY_FIELDS; j++)
			{
				values[j + 1] = Float8GetDatum(h[at + j]);
				nulls[j + 1] = j <= 3 && h[at + j] < 0.0;
			}
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	PG_RETURN_VOID();
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

/*
 * The model whose weights an inspection function reports: as trained, or
 * with argument argno (when given) 'original' a standardized model's folded
 * form (gsu_model_for_scoring): the weights and bias in original units.
 */
static GsuModel *
model_in_units(FunctionCallInfo fcinfo, int argno)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	char	   *units;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return m;
	units = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(units, "original") == 0)
		return gsu_model_for_scoring(m);
	if (strcmp(units, "trained") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown units \"%s\"", units),
				 errhint("Valid units are: trained (the weights as the solver found them, in standardized units for a model trained with \"standardize\"), original (in the units of the rows).")));
	return m;
}

/* the weights of a model: two classes, w; more, one row per class */
static Datum
weights_of(const GsuModel *m)
{
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
gsu_model_weights(PG_FUNCTION_ARGS)
{
	return weights_of(model_in_units(fcinfo, 1));
}

/* the bias of a two-class model */
static Datum
bias_of(const GsuModel *m)
{
	if (m->nclasses != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a model of %d classes has one bias per class", m->nclasses),
				 errhint("Use gsu.bias(model, class).")));
	PG_RETURN_FLOAT8(GSU_MODEL_THETA(m, 0)[m->dim]);
}

Datum
gsu_model_bias(PG_FUNCTION_ARGS)
{
	return bias_of(model_in_units(fcinfo, 1));
}

Datum
gsu_model_class_weights(PG_FUNCTION_ARGS)
{
	GsuModel   *m = model_in_units(fcinfo, 2);
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
	GsuModel   *m = model_in_units(fcinfo, 2);
	int			k = gsu_model_class_index(m, PG_GETARG_INT32(1));
	double	   *t = palloc(sizeof(double) * ((Size) m->dim + 1));

	class_theta(m, k, t);
	PG_RETURN_FLOAT8(t[m->dim]);
}

/*
 * gsu.weights(model, class DEFAULT NULL, units DEFAULT NULL) and gsu.bias
 * alike: one function per name, so that untyped arguments resolve.  A NULL
 * class is the model's own form (two classes: w; more: one row per class),
 * NULL units are 'trained'; a NULL model is no answer.
 */
Datum
gsu_model_weights_any(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		return weights_of(model_in_units(fcinfo, 2));
	return gsu_model_class_weights(fcinfo);
}

Datum
gsu_model_bias_any(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		return bias_of(model_in_units(fcinfo, 2));
	return gsu_model_class_bias(fcinfo);
}

Datum
gsu_model_classes(PG_FUNCTION_ARGS)
{
	GsuModel   *m = PG_GETARG_GSU_MODEL(0);
	Datum	   *d;
	int			k;

	gsu_model_require_classifier(m, "gsu.classes");
	d = palloc(sizeof(Datum) * m->nclasses);
	for (k = 0; k < m->nclasses; k++)
		d[k] = Int32GetDatum((int32) GSU_MODEL_CLASSES(m)[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, m->nclasses, INT4OID, sizeof(int32), true,
										  TYPALIGN_INT));
}

