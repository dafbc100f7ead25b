/*
 * gsu_geu_projection.c — the gsu.projection type (JSON text I/O, binary
 * send/recv, casts to and from jsonb, inspection) and the functions that
 * use a projection: gsu.project, gsu.project_variance, gsu.project_covariance.
 *
 * Every value that arrives from outside is checked field by field
 * (gsu_projection_validate), so no function has to distrust a projection.
 */
#include "gsu_geu_projection.h"
#include "gsu_json.h"

#include <math.h>

#include "core/gsu_geu.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(gsu_projection_in);
PG_FUNCTION_INFO_V1(gsu_projection_out);
PG_FUNCTION_INFO_V1(gsu_projection_recv);
PG_FUNCTION_INFO_V1(gsu_projection_send);
PG_FUNCTION_INFO_V1(gsu_projection_to_jsonb);
PG_FUNCTION_INFO_V1(gsu_projection_from_jsonb);
PG_FUNCTION_INFO_V1(gsu_projection_describe);
PG_FUNCTION_INFO_V1(gsu_projection_eigenvalues);
PG_FUNCTION_INFO_V1(gsu_projection_vectors);
PG_FUNCTION_INFO_V1(gsu_project_fn);
PG_FUNCTION_INFO_V1(gsu_project_variance_fn);
PG_FUNCTION_INFO_V1(gsu_project_variance_iso_fn);
PG_FUNCTION_INFO_V1(gsu_project_covariance_fn);

#define DatumGetGsuProjection(x) ((GsuProjection *) PG_DETOAST_DATUM(x))
#define PG_GETARG_GSU_PROJECTION(n) DatumGetGsuProjection(PG_GETARG_DATUM(n))
/* the first argument of the per-row functions, detoasted once per query */
#define PG_GETARG_GSU_PROJECTION_CACHED(n) ((GsuProjection *) gsu_detoast_cached(fcinfo, n))

static const char *const method_names[] = {"lda", "mfa"};

const char *
gsu_projection_method_name(int method)
{
	return (method >= 0 && method <= GSU_PROJ_METHOD_MAX) ? method_names[method] : "?";
}

GsuProjection *
gsu_projection_alloc(int dim, int dims)
{
	Size		size;
	GsuProjection *p;

	Assert(dim >= 1 && dims >= 1 && dims <= dim);
	size = GSU_PROJECTION_SIZE(dim, dims);
	if (size > GSU_GEU_MAX_VARLENA)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.projection of %dx%d is too large", dims, dim),
				 errdetail("A value is limited to 1 GB.")));
	p = (GsuProjection *) palloc0(size);
	SET_VARSIZE(p, size);
	p->format = GSU_PROJECTION_FORMAT;
	p->dim = dim;
	p->dims = dims;
	return p;
}

/* ------------------------------------------------------------ validation */

#define BAD(...) ereport(ERROR, (errcode(code), errmsg(__VA_ARGS__)))

void
gsu_projection_validate(GsuProjection *p, int code)
{
	Size		i,
				count;

	if (p->format != GSU_PROJECTION_FORMAT)
		BAD("unsupported gsu.projection format %d", p->format);
	if ((p->flags & ~GSU_PROJ_FLAGS_KNOWN) != 0)
		BAD("gsu.projection has unknown flags 0x%04x", p->flags);
	if (p->reserved != 0 || p->reserved8 != 0)
		BAD("gsu.projection reserved fields must be zero");
	if (p->dim < 1 || p->dim > GSU_MAX_DIM)
		BAD("gsu.projection dimension %d is out of range", p->dim);
	if (p->dims < 1 || p->dims > p->dim)
		BAD("gsu.projection output dimension %d is out of range 1 .. %d", p->dims, p->dim);
	if (VARSIZE(p) != GSU_PROJECTION_SIZE(p->dim, p->dims))
		BAD("gsu.projection of %dx%d has the wrong size", p->dims, p->dim);
	if (p->method > GSU_PROJ_METHOD_MAX)
		BAD("gsu.projection has unknown method %d", p->method);
	if (p->method == GSU_PROJ_LDA && (p->k1 != 0 || p->k2 != 0))
		BAD("gsu.projection of method lda must not have k1 or k2");
	if (p->method == GSU_PROJ_MFA && (p->k1 < 1 || p->k2 < 1))
		BAD("gsu.projection of method mfa needs positive k1 and k2");
	if (p->classes < 0 || p->rows < 0)
		BAD("gsu.projection classes and rows must not be negative");
	if (!(isfinite(p->regularization) && p->regularization >= 0.0))
		BAD("gsu.projection regularization must be a non-negative finite number");
	/* canonical form: −0 becomes +0, as text (JSON) cannot keep the sign of zero */
	p->regularization = gsu_canonical_zero(p->regularization);
	/* where ε goes means nothing without ε: one form for every unregularized projection */
	if (p->regularization == 0.0)
		p->flags &= ~GSU_PROJ_REG_PENALTY;
	count = (Size) p->dims * ((Size) p->dim + 1);
	gsu_canonicalize_zeros(p->data, count);
	for (i = 0; i < count; i++)
	{
		if (!isfinite(p->data[i]))
		{
			if (i < (Size) p->dims)
				BAD("gsu.projection eigenvalue %zu is not finite", i + 1);
			BAD("gsu.projection vector %zu element %zu is not finite",
				(i - p->dims) / p->dim + 1, (i - p->dims) % p->dim + 1);
		}
	}
}

/* ------------------------------------------------------------------ JSON */

static const char *const top_keys[] = {
	"format", "method", "dim", "dims", "uncertainty", "regularization", "regularize",
	"k1", "k2", "classes", "rows", "eigenvalues", "vectors", NULL
};

static GsuProjection *
projection_from_jsonb(JsonbContainer *root)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.projection key"};
	JsonbContainer *vectors,
			   *eig;
	int64		format,
				dim,
				dims,
				i64;
	const char *s;
	int			method = GSU_PROJ_LDA,
				j;
	bool		uncertain = false;
	GsuProjection *p;

	gsu_json_check_object(&cx, root, top_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &format))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.projection key \"format\" is missing")));
	if (format != GSU_PROJECTION_FORMAT)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("unsupported gsu.projection format " INT64_FORMAT, format),
				 errdetail("This version of pg_gsu reads format %d.", GSU_PROJECTION_FORMAT)));
	if (gsu_json_string(&cx, root, "method", &s))
	{
		for (method = 0; method <= GSU_PROJ_METHOD_MAX; method++)
			if (strcmp(s, method_names[method]) == 0)
				break;
		if (method > GSU_PROJ_METHOD_MAX)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.projection key \"method\" has unknown value \"%s\"", s),
					 errhint("Valid methods are: lda, mfa.")));
	}
	if (!gsu_json_int64(&cx, root, "dim", 1, GSU_MAX_DIM, &dim))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.projection key \"dim\" is missing")));
	if (!gsu_json_int64(&cx, root, "dims", 1, dim, &dims))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.projection key \"dims\" is missing")));
	vectors = gsu_json_container(&cx, root, "vectors", true);
	if (vectors == NULL)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.projection key \"vectors\" is missing")));
	if (gsu_json_array_length(vectors) != dims)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.projection has %d vectors but \"dims\" is " INT64_FORMAT,
						gsu_json_array_length(vectors), dims)));

	p = gsu_projection_alloc((int) dim, (int) dims);
	p->method = (uint8) method;
	if (method == GSU_PROJ_MFA)
	{
		p->k1 = 5;
		p->k2 = 20;
	}
	for (j = 0; j < dims; j++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(vectors, j);

		if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.projection vector %d must be an array of numbers", j + 1)));
		if (gsu_json_array_length(v->val.binary.data) != dim)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.projection vector %d has %d elements, expected " INT64_FORMAT,
							j + 1, gsu_json_array_length(v->val.binary.data), dim)));
		gsu_json_number_array(&cx, v->val.binary.data, "vectors",
							  GSU_PROJ_VT(p) + (Size) j * dim, (int) dim);
	}
	eig = gsu_json_container(&cx, root, "eigenvalues", true);
	if (eig)
	{
		if (gsu_json_array_length(eig) != dims)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.projection has %d eigenvalues but \"dims\" is " INT64_FORMAT,
							gsu_json_array_length(eig), dims)));
		gsu_json_number_array(&cx, eig, "eigenvalues", GSU_PROJ_EIGENVALUES(p), (int) dims);
	}
	if (gsu_json_bool(&cx, root, "uncertainty", &uncertain) && uncertain)
		p->flags |= GSU_PROJ_UNCERTAIN;
	gsu_json_number(&cx, root, "regularization", &p->regularization);
	{
		/* absent or null: "both", the only form of projections stored before the key */
		static const char *const names[] = {"both", "penalty", NULL};
		static const int values[] = {0, GSU_PROJ_REG_PENALTY};

		p->flags |= gsu_json_choice_key(&cx, root, "regularize", names, values,
										"Valid values are: both, penalty.", 0);
	}
	if (gsu_json_int64(&cx, root, "k1", 0, PG_INT32_MAX, &i64))
		p->k1 = (int32) i64;
	if (gsu_json_int64(&cx, root, "k2", 0, PG_INT32_MAX, &i64))
		p->k2 = (int32) i64;
	if (gsu_json_int64(&cx, root, "classes", 0, PG_INT32_MAX, &i64))
		p->classes = (int32) i64;
	gsu_json_int64(&cx, root, "rows", 0, PG_INT64_MAX, &p->rows);
	gsu_projection_validate(p, ERRCODE_INVALID_TEXT_REPRESENTATION);
	return p;
}

static void
append_double_array(StringInfo buf, const double *v, int n)
{
	int			i;

	appendStringInfoChar(buf, '[');
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(buf, ", ");
		gsu_append_double(buf, v[i]);
	}
	appendStringInfoChar(buf, ']');
}

static char *
projection_to_text(const GsuProjection *p, bool with_vectors)
{
	StringInfoData buf;
	int			j;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"method\": \"%s\", \"dim\": %d, \"dims\": %d, "
					 "\"uncertainty\": %s, \"regularization\": ",
					 p->format, gsu_projection_method_name(p->method), p->dim, p->dims,
					 (p->flags & GSU_PROJ_UNCERTAIN) ? "true" : "false");
	gsu_append_double(&buf, p->regularization);
	if (p->regularization == 0.0)
		appendStringInfoString(&buf, ", \"regularize\": null");
	else
		appendStringInfo(&buf, ", \"regularize\": \"%s\"",
						 (p->flags & GSU_PROJ_REG_PENALTY) ? "penalty" : "both");
	if (p->method == GSU_PROJ_MFA)
		appendStringInfo(&buf, ", \"k1\": %d, \"k2\": %d", p->k1, p->k2);
	else
		appendStringInfoString(&buf, ", \"k1\": null, \"k2\": null");
	appendStringInfo(&buf, ", \"classes\": %d, \"rows\": " INT64_FORMAT ", \"eigenvalues\": ",
					 p->classes, p->rows);
	append_double_array(&buf, GSU_PROJ_EIGENVALUES(p), p->dims);
	if (with_vectors)
	{
		appendStringInfoString(&buf, ", \"vectors\": [");
		for (j = 0; j < p->dims; j++)
		{
			if (j > 0)
				appendStringInfoString(&buf, ", ");
			append_double_array(&buf, GSU_PROJ_VT(p) + (Size) j * p->dim, p->dim);
		}
		appendStringInfoChar(&buf, ']');
	}
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

Datum
gsu_projection_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(str)));

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type gsu.projection: \"%s\"", str),
				 errdetail("A gsu.projection is written as a JSON object.")));
	PG_RETURN_POINTER(projection_from_jsonb(&jb->root));
}

Datum
gsu_projection_out(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);

	PG_RETURN_CSTRING(projection_to_text(p, true));
}

Datum
gsu_projection_to_jsonb(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in,
										CStringGetDatum(projection_to_text(p, true))));
}

Datum
gsu_projection_from_jsonb(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb = PG_GETARG_JSONB_P(0);

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("a gsu.projection must be a JSON object")));
	PG_RETURN_POINTER(projection_from_jsonb(&jb->root));
}

Datum
gsu_projection_describe(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in,
										CStringGetDatum(projection_to_text(p, false))));
}

/* ---------------------------------------------------------------- binary */

/*
 * Binary form: format, flags, dim, dims (int16, int16, int32, int32),
 * method, reserved8 (int8 each), reserved (int16), k1, k2, classes (int32),
 * rows (int64), regularization (float8), then dims·(dim + 1) float8.  The
 * flag GSU_PROJ_REG_PENALTY (0x0002) says where ε went; clear is "both".
 */
#define PROJ_SEND_HEADER (2 + 2 + 4 + 4 + 1 + 1 + 2 + 4 * 3 + 8 + 8)

Datum
gsu_projection_send(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);
	StringInfoData buf;
	Size		i,
				count = (Size) p->dims * ((Size) p->dim + 1);

	pq_begintypsend(&buf);
	pq_sendint16(&buf, p->format);
	pq_sendint16(&buf, p->flags);
	pq_sendint32(&buf, p->dim);
	pq_sendint32(&buf, p->dims);
	pq_sendint8(&buf, p->method);
	pq_sendint8(&buf, p->reserved8);
	pq_sendint16(&buf, p->reserved);
	pq_sendint32(&buf, p->k1);
	pq_sendint32(&buf, p->k2);
	pq_sendint32(&buf, p->classes);
	pq_sendint64(&buf, p->rows);
	pq_sendfloat8(&buf, p->regularization);
	for (i = 0; i < count; i++)
		pq_sendfloat8(&buf, p->data[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
gsu_projection_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	uint16		format,
				flags;
	int32		dim,
				dims;
	GsuProjection *p;
	Size		i,
				count;

	if (buf->len - buf->cursor < PROJ_SEND_HEADER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.projection binary value is too short")));
	format = (uint16) pq_getmsgint(buf, 2);
	flags = (uint16) pq_getmsgint(buf, 2);
	dim = (int32) pq_getmsgint(buf, 4);
	dims = (int32) pq_getmsgint(buf, 4);
	if (format != GSU_PROJECTION_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported gsu.projection format %d", format)));
	if (dim < 1 || dim > GSU_MAX_DIM || dims < 1 || dims > dim)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.projection dimensions %dx%d are out of range", dims, dim)));
	count = (Size) dims * ((Size) dim + 1);
	if (count > GSU_GEU_MAX_VARLENA / sizeof(double) ||
		(Size) (buf->len - buf->cursor) != PROJ_SEND_HEADER - 12 + sizeof(double) * count)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.projection binary value has the wrong length for %dx%d",
						dims, dim)));
	p = gsu_projection_alloc(dim, dims);
	p->flags = flags;
	p->method = (uint8) pq_getmsgint(buf, 1);
	p->reserved8 = (uint8) pq_getmsgint(buf, 1);
	p->reserved = (uint16) pq_getmsgint(buf, 2);
	p->k1 = (int32) pq_getmsgint(buf, 4);
	p->k2 = (int32) pq_getmsgint(buf, 4);
	p->classes = (int32) pq_getmsgint(buf, 4);
	p->rows = pq_getmsgint64(buf);
	p->regularization = pq_getmsgfloat8(buf);
	for (i = 0; i < count; i++)
		p->data[i] = pq_getmsgfloat8(buf);
	gsu_projection_validate(p, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(p);
}

/* ------------------------------------------------------------ inspection */

Datum
gsu_projection_eigenvalues(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);

	PG_RETURN_ARRAYTYPE_P(gsu_float8_array(GSU_PROJ_EIGENVALUES(p), p->dims));
}

/* dims × dim float8[][]: row j is the j-th direction */
static ArrayType *
float8_matrix(const double *v, int rows, int cols)
{
	Size		n = (Size) rows * cols,
				i;
	Datum	   *elems = palloc(sizeof(Datum) * n);
	int			dims[2] = {rows, cols};
	int			lbs[2] = {1, 1};

	for (i = 0; i < n; i++)
		elems[i] = Float8GetDatum(v[i]);
	return construct_md_array(elems, NULL, 2, dims, lbs, FLOAT8OID, sizeof(float8),
							  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

Datum
gsu_projection_vectors(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION(0);

	PG_RETURN_ARRAYTYPE_P(float8_matrix(GSU_PROJ_VT(p), p->dims, p->dim));
}

/* ------------------------------------------------------ using a projection */

static void
check_input_dim(const GsuProjection *p, int n, const char *what)
{
	if (n != p->dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has %d elements, but the projection has input dimension %d",
						what, n, p->dim)));
}

/* a projected value beyond double precision is an overflow (22003), never ±Infinity returned */
static void
check_projected(const double *v, Size n, const char *what)
{
	Size		i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s element %zu is out of range for type double precision", what, i + 1),
					 errhint("Scale the features to a moderate range.")));
}

Datum
gsu_project_fn(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION_CACHED(0);
	GsuVec		x = gsu_vec_from_array(PG_GETARG_ARRAYTYPE_P(1), "mean");
	double	   *z;

	check_input_dim(p, x.n, "mean");
	z = palloc(sizeof(double) * p->dims);
	gsu_project(p->dims, p->dim, GSU_PROJ_VT(p), x.data, z);
	check_projected(z, p->dims, "projected mean");
	PG_RETURN_ARRAYTYPE_P(gsu_float8_array(z, p->dims));
}

/*
 * The variance argument argno as a full Σ (*full) or a diagonal: NULL is a
 * certain row (a diagonal of zeros), an array of one element σ² is σ²I (a
 * diagonal of σ²), dim elements the diagonal, dim × dim the full Σ.
 */
static const double *
variance_arg(const GsuProjection *p, FunctionCallInfo fcinfo, int argno, bool *full)
{
	ArrayType  *a = PG_ARGISNULL(argno) ? NULL : PG_GETARG_ARRAYTYPE_P(argno);

	*full = false;
	if (a == NULL || (p->dim != 1 && ARR_NDIM(a) == 1 && ARR_DIMS(a)[0] == 1))
	{
		double		s = a == NULL ? 0.0 : gsu_variance_from_array(a, 1).data[0];
		double	   *diag = palloc(sizeof(double) * p->dim);
		int			j;

		for (j = 0; j < p->dim; j++)
			diag[j] = s;
		return diag;
	}
	if (ARR_NDIM(a) == 1)
		check_input_dim(p, ARR_DIMS(a)[0], "variance");
	else if (ARR_NDIM(a) == 2 && (ARR_DIMS(a)[0] != p->dim || ARR_DIMS(a)[1] != p->dim))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("variance is a %dx%d matrix, but the projection has input dimension %d",
						ARR_DIMS(a)[0], ARR_DIMS(a)[1], p->dim)));
	{
		GsuRowCov	rc = gsu_cov_from_array(a, p->dim);

		gsu_cov_no_factor(&rc, "a GEU projection");
		*full = rc.kind == GSU_COV_FULL;
		return rc.data;
	}
}

static void
report_not_psd(int which)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("variance is not positive semidefinite: its variance along projection direction %d is negative",
					which + 1),
			 errdetail("A covariance matrix must be positive semidefinite.")));
}

Datum
gsu_project_variance_fn(PG_FUNCTION_ARGS)
{
	GsuProjection *p;
	bool		full;
	const double *sigma;
	double	   *out;
	int			j;

	/* not STRICT: a NULL variance is a certain row, a NULL projection no answer */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	p = PG_GETARG_GSU_PROJECTION_CACHED(0);
	sigma = variance_arg(p, fcinfo, 1, &full);

	if (!full)
	{
		out = palloc(sizeof(double) * p->dims);
		gsu_project_var_diag(p->dims, p->dim, GSU_PROJ_VT(p), sigma, out);
	}
	else
	{
		double	   *cov = palloc(sizeof(double) * p->dims * p->dims);
		double	   *work = palloc(sizeof(double) * (Size) p->dims * p->dim);
		int			which;

		if (gsu_project_cov(p->dims, p->dim, GSU_PROJ_VT(p), sigma, cov, work, &which) != GSU_OK)
			report_not_psd(which);
		out = palloc(sizeof(double) * p->dims);
		for (j = 0; j < p->dims; j++)
			out[j] = cov[(Size) j * p->dims + j];
	}
	check_projected(out, p->dims, "projected variance");
	PG_RETURN_ARRAYTYPE_P(gsu_float8_array(out, p->dims));
}

Datum
gsu_project_variance_iso_fn(PG_FUNCTION_ARGS)
{
	GsuProjection *p = PG_GETARG_GSU_PROJECTION_CACHED(0);
	double		s = PG_GETARG_FLOAT8(1);
	double	   *out = palloc(sizeof(double) * p->dims);
	int			j,
				l;

	gsu_check_iso_variance(s);
	for (j = 0; j < p->dims; j++)
	{
		const double *v = GSU_PROJ_VT(p) + (Size) j * p->dim;
		double		t = 0.0;

		for (l = 0; l < p->dim; l++)
			t += v[l] * v[l];
		out[j] = s * t;
	}
	check_projected(out, p->dims, "projected variance");
	PG_RETURN_ARRAYTYPE_P(gsu_float8_array(out, p->dims));
}

Datum
gsu_project_covariance_fn(PG_FUNCTION_ARGS)
{
	GsuProjection *p;
	bool		full;
	const double *sigma;
	double	   *cov;
	double	   *work;
	int			which;

	/* not STRICT: a NULL variance is a certain row, a NULL projection no answer */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	p = PG_GETARG_GSU_PROJECTION_CACHED(0);
	sigma = variance_arg(p, fcinfo, 1, &full);
	cov = palloc(sizeof(double) * p->dims * p->dims);
	work = palloc(sizeof(double) * (Size) p->dims * p->dim);

	if (!full)
	{
		/* (Vᵀ diag(σ) V)_ij = Σ_l v_il v_jl σ_l */
		const double *vt = GSU_PROJ_VT(p);
		int			i,
					j,
					l;

		for (i = 0; i < p->dims; i++)
			for (j = 0; j <= i; j++)
			{
				double		t = 0.0;

				for (l = 0; l < p->dim; l++)
					t += vt[(Size) i * p->dim + l] * vt[(Size) j * p->dim + l] * sigma[l];
				cov[(Size) i * p->dims + j] = cov[(Size) j * p->dims + i] = t;
			}
	}
	else if (gsu_project_cov(p->dims, p->dim, GSU_PROJ_VT(p), sigma, cov, work, &which) != GSU_OK)
		report_not_psd(which);
	check_projected(cov, (Size) p->dims * p->dims, "projected covariance");
	PG_RETURN_ARRAYTYPE_P(float8_matrix(cov, p->dims, p->dims));
}
