/*
 * gsu_json.c — typed reads from jsonb objects (see gsu_json.h).
 */
#include "gsu_json.h"

#include <math.h>

#include "common/shortest_dec.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

static const char *
jbv_type_name(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "an array" : "an object";
		default:
			return "a JSON value";
	}
}

static void
type_error(const GsuJsonCtx *cx, const char *key, const char *want, const JsonbValue *v)
{
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("%s \"%s\" must be %s, not %s", cx->what, key, want,
					jbv_type_name(v))));
}

void
gsu_json_check_object(const GsuJsonCtx *cx, JsonbContainer *c, const char *const *valid)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JsonContainerIsObject(c))
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%ss must be a JSON object", cx->what)));
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		const char *const *k;
		bool		found = false;

		if (tok != WJB_KEY)
			continue;
		for (k = valid; *k; k++)
		{
			if (strlen(*k) == (size_t) v.val.string.len &&
				memcmp(*k, v.val.string.val, v.val.string.len) == 0)
			{
				found = true;
				break;
			}
		}
		if (!found)
		{
			StringInfoData hint;

			initStringInfo(&hint);
			for (k = valid; *k; k++)
				appendStringInfo(&hint, "%s%s", k == valid ? "" : ", ", *k);
			ereport(ERROR,
					(errcode(cx->errcode),
					 errmsg("unknown %s \"%.*s\"", cx->what,
							v.val.string.len, v.val.string.val),
					 errhint("Valid keys are: %s.", hint.data)));
		}
	}
}

JsonbContainer *
gsu_json_options_object(const GsuJsonCtx *cx, Jsonb *jb, const char *const *valid,
						const char *example)
{
	if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("options must be a JSON object"),
				 errhint("For example '%s'.", example)));
	gsu_json_check_object(cx, &jb->root, valid);
	return &jb->root;
}

static bool
get_value(JsonbContainer *c, const char *key, JsonbValue *out)
{
	if (getKeyJsonValueFromContainer(c, key, strlen(key), out) == NULL)
		return false;
	return out->type != jbvNull;
}

static double
numeric_to_double(Numeric n)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(n)));
}

bool
gsu_json_number(const GsuJsonCtx *cx, JsonbContainer *c, const char *key, double *out)
{
	JsonbValue	v;

	if (!get_value(c, key, &v))
		return false;
	if (v.type != jbvNumeric)
		type_error(cx, key, "a number", &v);
	*out = numeric_to_double(v.val.numeric);
	if (!isfinite(*out))
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%s \"%s\" is out of range for float8", cx->what, key)));
	return true;
}

bool
gsu_json_int64(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
			   int64 lo, int64 hi, int64 *out)
{
	JsonbValue	v;
	double		d;

	if (!get_value(c, key, &v))
		return false;
	if (v.type != jbvNumeric)
		type_error(cx, key, "an integer", &v);
	d = numeric_to_double(v.val.numeric);
	if (d != floor(d))
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%s \"%s\" must be an integer, not %g", cx->what, key, d)));
	/* compared as numerics: a double cannot tell 2⁶³ − 1 from 2⁶³ */
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v.val.numeric),
										  NumericGetDatum(int64_to_numeric(lo)))) < 0 ||
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v.val.numeric),
										  NumericGetDatum(int64_to_numeric(hi)))) > 0)
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%s \"%s\" must be between " INT64_FORMAT " and " INT64_FORMAT
						", not %.17g", cx->what, key, lo, hi, d)));
	*out = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v.val.numeric)));
	return true;
}

bool
gsu_json_present(JsonbContainer *c, const char *key)
{
	JsonbValue	v;

	return getKeyJsonValueFromContainer(c, key, strlen(key), &v) != NULL &&
		v.type != jbvNull;
}

bool
gsu_json_string(const GsuJsonCtx *cx, JsonbContainer *c, const char *key, const char **out)
{
	JsonbValue	v;

	if (!get_value(c, key, &v))
		return false;
	if (v.type != jbvString)
		type_error(cx, key, "a string", &v);
	*out = pnstrdup(v.val.string.val, v.val.string.len);
	return true;
}

bool
gsu_json_bool(const GsuJsonCtx *cx, JsonbContainer *c, const char *key, bool *out)
{
	JsonbValue	v;

	if (!get_value(c, key, &v))
		return false;
	if (v.type != jbvBool)
		type_error(cx, key, "a boolean", &v);
	*out = v.val.boolean;
	return true;
}

int
gsu_json_choice(const GsuJsonCtx *cx, const char *s, const char *const *names,
				const int *values, const char *what, const char *hint)
{
	int			i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0)
			return values[i];
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("unknown %s \"%s\"", what, s),
			 errhint("%s", hint)));
	pg_unreachable();
}

int
gsu_json_choice_key(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
					const char *const *names, const int *values, const char *hint, int dflt)
{
	const char *s;

	if (!gsu_json_string(cx, c, key, &s))
		return dflt;
	return gsu_json_choice(cx, s, names, values, key, hint);
}

int
gsu_json_estimator(const GsuJsonCtx *cx, JsonbContainer *c)
{
	static const char *const names[] = {"sample", "population", NULL};
	static const int values[] = {1, 0};

	return gsu_json_choice_key(cx, c, "estimator", names, values,
							   "Valid estimators are: sample, population.", 1);
}

JsonbContainer *
gsu_json_container(const GsuJsonCtx *cx, JsonbContainer *c, const char *key, bool array)
{
	JsonbValue	v;

	if (!get_value(c, key, &v))
		return NULL;
	if (v.type != jbvBinary ||
		(array ? !JsonContainerIsArray(v.val.binary.data)
		 : !JsonContainerIsObject(v.val.binary.data)))
		type_error(cx, key, array ? "an array" : "an object", &v);
	return v.val.binary.data;
}

JsonbContainer *
gsu_json_array_element(const GsuJsonCtx *cx, JsonbContainer *arr, const char *key, int i)
{
	JsonbValue *v = getIthJsonbValueFromContainer(arr, i);

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(cx->errcode),
				 errmsg("%s \"%s\" element %d must be an array", cx->what, key, i + 1)));
	return v->val.binary.data;
}

int
gsu_json_array_length(JsonbContainer *arr)
{
	return JsonContainerSize(arr);
}

void
gsu_json_number_array(const GsuJsonCtx *cx, JsonbContainer *arr, const char *key,
					  double *out, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(arr, i);

		if (v == NULL || v->type != jbvNumeric)
			ereport(ERROR,
					(errcode(cx->errcode),
					 errmsg("%s \"%s\" element %d must be a number", cx->what, key, i + 1)));
		out[i] = numeric_to_double(v->val.numeric);
		if (!isfinite(out[i]))
			ereport(ERROR,
					(errcode(cx->errcode),
					 errmsg("%s \"%s\" element %d is out of range for float8",
							cx->what, key, i + 1)));
	}
}

void
gsu_append_double(StringInfo buf, double x)
{
	char		tmp[DOUBLE_SHORTEST_DECIMAL_LEN];

	Assert(isfinite(x));
	double_to_shortest_decimal_buf(x, tmp);
	appendStringInfoString(buf, tmp);
}
