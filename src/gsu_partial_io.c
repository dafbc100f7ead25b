/*
 * gsu_partial_io.c — the text (JSON) and binary forms of gsu.partial, each
 * checked as hostile by gsu_partial_validate (gsu_partial.c).
 */
#include "gsu_model.h"
#include "gsu_partial.h"
#include "gsu_json.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_partial_in);
PG_FUNCTION_INFO_V1(gsu_partial_out);
PG_FUNCTION_INFO_V1(gsu_partial_recv);
PG_FUNCTION_INFO_V1(gsu_partial_send);

/* ------------------------------------------------------------------ text */

static const char *const partial_keys[] = {
	"format", "kind", "dim", "rows", "positives", "steps", "loss_sum", "smoothing", "epsilon",
	"min_dsigma", "lambda", "loss", "subspace_fraction", "subspace_mode", "point", "missing",
	"missing_nan", "vector", NULL
};

/*
 * The flags of an sgd partial of format 4 (gsu_partial.h): "missing":
 * "feature_moments" (its vector holds the block after θ) and "missing_nan":
 * true.  Any other partial has neither key.
 */
static uint16
read_flags(const GsuJsonCtx *cx, JsonbContainer *root, int64 format, int kind)
{
	const char *s;
	bool		nan = false,
				has_nan = gsu_json_bool(cx, root, "missing_nan", &nan);
	uint16		flags = 0;

	if (gsu_json_string(cx, root, "missing", &s))
	{
		if (strcmp(s, "feature_moments") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial key \"missing\" has unknown value \"%s\"", s)));
		if (format < GSU_PARTIAL_FORMAT || kind != GSU_PARTIAL_SGD)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial key \"missing\" belongs to an sgd partial of format %d only",
							GSU_PARTIAL_FORMAT)));
		flags = GSU_PARTIAL_MISSING | (nan ? GSU_PARTIAL_MISSING_NAN : 0);
	}
	else if (has_nan)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial key \"missing_nan\" needs \"missing\": \"feature_moments\"")));
	return flags;
}

/*
 * A regression sgd partial's ε (its mu) is written as "epsilon", and it
 * has no "smoothing"; every other partial has no "epsilon".
 */
static void
read_epsilon(const GsuJsonCtx *cx, JsonbContainer *root, GsuPartial *p)
{
	bool		regression_sgd = p->kind == GSU_PARTIAL_SGD && gsu_loss_info(p->loss)->regression;
	double		eps = 0.0,
				smoothing;
	bool		has_eps = gsu_json_number(cx, root, "epsilon", &eps);

	if (regression_sgd && gsu_json_number(cx, root, "smoothing", &smoothing))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("an sgd gsu.partial of a regression loss has \"epsilon\", not \"smoothing\"")));
	if (has_eps && !regression_sgd)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial key \"epsilon\" belongs to an sgd partial of a regression loss only")));
	if (regression_sgd)
		p->mu = eps;
}

/*
 * The format a value is written in: 3 without flags (the bytes and text it
 * always had), else 4 (a stored format-2 value is written as format 3).
 */
static int
written_format(const GsuPartial *p)
{
	return p->flags != 0 ? GSU_PARTIAL_FORMAT : GSU_PARTIAL_FORMAT_NO_FLAGS;
}

Datum
gsu_partial_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(str)));
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.partial key"};
	JsonbContainer *root = &jb->root,
			   *vec;
	int64		format,
				dim,
				i64,
				steps = 0;
	Size		len;
	const char *s;
	GsuPartial *p;
	int			kind;
	uint16		flags;

	if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("a gsu.partial is written as a JSON object")));
	gsu_json_check_object(&cx, root, partial_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &format) ||
		format < 1 || format > GSU_PARTIAL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial needs \"format\": 1, 2, 3 or %d", GSU_PARTIAL_FORMAT)));
	if (!gsu_json_string(&cx, root, "kind", &s))
		s = "";
	if (strcmp(s, "gradient") == 0)
		kind = GSU_PARTIAL_GRADIENT;
	else if (strcmp(s, "sgd") == 0)
		kind = GSU_PARTIAL_SGD;
	else if (strcmp(s, "hessian") == 0 && format >= GSU_PARTIAL_FORMAT_NO_FLAGS)
		kind = GSU_PARTIAL_HESSIAN;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial \"kind\" must be \"gradient\", \"sgd\" or \"hessian\"")));
	if (!gsu_json_int64(&cx, root, "dim", 1,
						kind == GSU_PARTIAL_HESSIAN ? GSU_PARTIAL_HESS_MAX_DIM : GSU_MAX_DIM, &dim))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial key \"dim\" is missing")));
	if (gsu_json_int64(&cx, root, "steps", 0, PG_INT64_MAX, &i64))
		steps = i64;
	if (kind == GSU_PARTIAL_HESSIAN && steps > GSU_SUPPORT_MAX_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("a hessian gsu.partial keeps at most %d band rows, not " INT64_FORMAT,
						GSU_SUPPORT_MAX_ROWS, steps)));
	flags = read_flags(&cx, root, format, kind);
	len = GSU_PARTIAL_LEN3(kind, dim, kind == GSU_PARTIAL_HESSIAN ? steps : 0) +
		((flags & GSU_PARTIAL_MISSING) ? GSU_PARTIAL_MISS_LEN(dim) : 0);
	vec = gsu_json_container(&cx, root, "vector", true);
	if (vec == NULL || gsu_json_array_length(vec) != (int64) len)
	{
		if (kind == GSU_PARTIAL_HESSIAN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial needs a \"vector\" of " INT64_FORMAT " numbers", (int64) len),
					 errdetail("A hessian partial of dimension d has 2(d + 1) + 1 + (d + 1)(d + 2)/2 "
							   "numbers, and (d + 1)(1 + steps) + 5 more for its support band.")));
		if (flags & GSU_PARTIAL_MISSING)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial needs a \"vector\" of 3 dim + 3 = " INT64_FORMAT " numbers", (int64) len),
					 errdetail("An sgd partial of \"missing\" holds its iterate (dim + 1), the feature means and variances (dim each) and two counts.")));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.partial needs a \"vector\" of dim + 1 = " INT64_FORMAT " numbers",
						dim + 1)));
	}
	p = kind == GSU_PARTIAL_SGD ? gsu_partial_alloc_sgd(CurrentMemoryContext, (int) dim, flags) :
		gsu_partial_alloc_cap(CurrentMemoryContext, (int) dim, kind,
							  kind == GSU_PARTIAL_HESSIAN ? steps : 0);
	gsu_json_number_array(&cx, vec, "vector", p->vec, (int) len);
	p->steps = steps;
	if (gsu_json_int64(&cx, root, "rows", 0, PG_INT64_MAX, &i64))
		p->n = i64;
	if (gsu_json_int64(&cx, root, "positives", 0, PG_INT64_MAX, &i64))
		p->n_pos = i64;
	gsu_json_number(&cx, root, "loss_sum", &p->loss_sum);
	gsu_json_number(&cx, root, "smoothing", &p->mu);
	gsu_json_number(&cx, root, "min_dsigma", &p->min_dsigma);
	gsu_json_number(&cx, root, "lambda", &p->lambda);
	gsu_json_number(&cx, root, "subspace_fraction", &p->subspace_fraction);
	if (gsu_json_string(&cx, root, "subspace_mode", &s))
	{
		if (format < 3)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial of format " INT64_FORMAT " has no key \"subspace_mode\"", format)));
		if (strcmp(s, gsu_subspace_mode_name(GSU_SUBSPACE_GAUSSIAN)) == 0)
			p->subspace_mode = GSU_SUBSPACE_GAUSSIAN;
		else if (strcmp(s, gsu_subspace_mode_name(GSU_SUBSPACE_COVARIANCE)) == 0)
			p->subspace_mode = GSU_SUBSPACE_COVARIANCE;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial key \"subspace_mode\" has unknown value \"%s\"", s)));
	}
	else if (format < 3)
		p->subspace_mode = GSU_SUBSPACE_COVARIANCE;
	if (gsu_json_string(&cx, root, "point", &s))
	{
		char	   *end;

		if (format < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial of format 1 has no key \"point\"")));
		errno = 0;
		p->point = strtou64(s, &end, 16);
		if (strlen(s) != 16 || *end != '\0' || errno != 0 || p->point == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial key \"point\" must be 16 hexadecimal digits, not all zero, not \"%s\"", s)));
	}
	if (gsu_json_string(&cx, root, "loss", &s))
	{
		/*
		 * a partial state holds a gradient pass: the losses that have one,
		 * and a hessian partial the regression losses too
		 */
		int			k = gsu_loss_by_name(s);

		if (k >= 0 && gsu_partial_loss_ok(k, p->kind))
			p->loss = k;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.partial key \"loss\" has unknown value \"%s\"", s)));
	}
	read_epsilon(&cx, root, p);
	gsu_partial_validate(p, ERRCODE_INVALID_TEXT_REPRESENTATION);
	PG_RETURN_POINTER(p);
}


Datum
gsu_partial_out(PG_FUNCTION_ARGS)
{
	GsuPartial *p = gsu_partial_from_datum(PG_GETARG_DATUM(0));
	StringInfoData buf;
	Size		i;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"kind\": \"%s\", \"dim\": %d, \"rows\": " INT64_FORMAT
					 ", \"positives\": " INT64_FORMAT ", \"steps\": " INT64_FORMAT ", \"loss_sum\": ",
					 written_format(p), gsu_partial_kind_name(p->kind), p->dim,
					 p->n, p->n_pos, p->steps);
	gsu_append_double(&buf, p->loss_sum);
	/* a regression sgd partial's mu is its ε */
	appendStringInfoString(&buf, p->kind == GSU_PARTIAL_SGD && gsu_loss_info(p->loss)->regression ?
						   ", \"epsilon\": " : ", \"smoothing\": ");
	gsu_append_double(&buf, p->mu);
	appendStringInfoString(&buf, ", \"min_dsigma\": ");
	gsu_append_double(&buf, p->min_dsigma);
	appendStringInfoString(&buf, ", \"lambda\": ");
	gsu_append_double(&buf, p->lambda);
	appendStringInfo(&buf, ", \"loss\": \"%s\", \"subspace_fraction\": ", gsu_loss_name(p->loss));
	gsu_append_double(&buf, p->subspace_fraction);
	appendStringInfo(&buf, ", \"subspace_mode\": \"%s\"", gsu_subspace_mode_name(p->subspace_mode));
	if (p->point != 0)
		appendStringInfo(&buf, ", \"point\": \"%016" INT64_MODIFIER "x\"", p->point);
	if (p->flags & GSU_PARTIAL_MISSING)
		appendStringInfoString(&buf, ", \"missing\": \"feature_moments\"");
	if (p->flags & GSU_PARTIAL_MISSING_NAN)
		appendStringInfoString(&buf, ", \"missing_nan\": true");
	appendStringInfoString(&buf, ", \"vector\": [");
	for (i = 0; i < GSU_PARTIAL_VLEN(p); i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		gsu_append_double(&buf, p->vec[i]);
	}
	appendStringInfoString(&buf, "]}");
	PG_RETURN_CSTRING(buf.data);
}

/* ---------------------------------------------------------------- binary */

Datum
gsu_partial_send(PG_FUNCTION_ARGS)
{
	GsuPartial *p = gsu_partial_from_datum(PG_GETARG_DATUM(0));
	StringInfoData buf;
	Size		i;

	pq_begintypsend(&buf);
	pq_sendint16(&buf, written_format(p));
	pq_sendint16(&buf, p->kind);
	pq_sendint32(&buf, p->dim);
	pq_sendint64(&buf, p->n);
	pq_sendint64(&buf, p->n_pos);
	pq_sendint64(&buf, p->steps);
	pq_sendint32(&buf, p->loss);
	pq_sendint16(&buf, p->subspace_mode);
	pq_sendint16(&buf, p->flags);
	pq_sendint64(&buf, p->point);
	pq_sendfloat8(&buf, p->loss_sum);
	pq_sendfloat8(&buf, p->mu);
	pq_sendfloat8(&buf, p->min_dsigma);
	pq_sendfloat8(&buf, p->lambda);
	pq_sendfloat8(&buf, p->subspace_fraction);
	for (i = 0; i < GSU_PARTIAL_VLEN(p); i++)
		pq_sendfloat8(&buf, p->vec[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* bytes before the vector in format 1; format 2 adds the 8 of point */
#define GSU_PARTIAL_SEND_HEADER (2 + 2 + 4 + 8 * 3 + 4 + 4 + 8 * 5)

Datum
gsu_partial_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	GsuPartial *p;
	int			format,
				kind,
				dim;
	int32		loss;
	uint16		mode,
				flags;
	int64		n,
				n_pos,
				steps;
	Size		i,
				len;

	if (buf->len - buf->cursor < GSU_PARTIAL_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial binary value is too short")));
	format = pq_getmsgint(buf, 2);
	kind = pq_getmsgint(buf, 2);
	dim = (int32) pq_getmsgint(buf, 4);
	if (format < 1 || format > GSU_PARTIAL_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.partial format %d", format)));
	if (kind != GSU_PARTIAL_GRADIENT && kind != GSU_PARTIAL_SGD &&
		(kind != GSU_PARTIAL_HESSIAN || format < GSU_PARTIAL_FORMAT_NO_FLAGS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial has unknown kind %d", kind)));
	if (dim < 1 || dim > GSU_MAX_DIM ||
		(kind == GSU_PARTIAL_HESSIAN && dim > GSU_PARTIAL_HESS_MAX_DIM))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial binary value has a bad dimension or length")));
	n = pq_getmsgint64(buf);
	n_pos = pq_getmsgint64(buf);
	steps = pq_getmsgint64(buf);
	if (kind == GSU_PARTIAL_HESSIAN && (steps < 0 || steps > GSU_SUPPORT_MAX_ROWS))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial binary value has a bad dimension or length")));
	loss = (int32) pq_getmsgint(buf, 4);
	/* formats 1 and 2 have 4 zero bytes here: mode 0, "covariance"; format 3 no flags */
	mode = (uint16) pq_getmsgint(buf, 2);
	flags = (uint16) pq_getmsgint(buf, 2);
	if ((format < 3 && mode != GSU_SUBSPACE_COVARIANCE) ||
		(format < GSU_PARTIAL_FORMAT && flags != 0) || (flags & ~GSU_PARTIAL_FLAGS_KNOWN) != 0 ||
		(flags != 0 && (kind != GSU_PARTIAL_SGD || !(flags & GSU_PARTIAL_MISSING))))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial has bad counts")));
	len = GSU_PARTIAL_LEN3(kind, dim, kind == GSU_PARTIAL_HESSIAN ? steps : 0) +
		((flags & GSU_PARTIAL_MISSING) ? GSU_PARTIAL_MISS_LEN(dim) : 0);
	if ((Size) (buf->len - buf->cursor) != (format >= 2 ? 8 : 0) + 8 * 5 + sizeof(double) * len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.partial binary value has a bad dimension or length")));
	if (kind == GSU_PARTIAL_SGD)
		p = gsu_partial_alloc_sgd(CurrentMemoryContext, dim, flags);
	else
		p = gsu_partial_alloc_cap(CurrentMemoryContext, dim, kind, kind == GSU_PARTIAL_HESSIAN ? steps : 0);
	p->n = n;
	p->n_pos = n_pos;
	p->steps = steps;
	p->loss = loss;
	p->subspace_mode = mode;
	if (format >= 2)
		p->point = (uint64) pq_getmsgint64(buf);
	p->loss_sum = pq_getmsgfloat8(buf);
	p->mu = pq_getmsgfloat8(buf);
	p->min_dsigma = pq_getmsgfloat8(buf);
	p->lambda = pq_getmsgfloat8(buf);
	p->subspace_fraction = pq_getmsgfloat8(buf);
	for (i = 0; i < len; i++)
		p->vec[i] = pq_getmsgfloat8(buf);
	gsu_partial_validate(p, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(p);
}

