/*
 * gsu_options_class_weight.c — the "class_weight" training option: "balanced", or an
 * object of weights by int4 label (see gsu_options.h).
 */
#include "gsu_options.h"

#include <errno.h>
#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

/* ------------------------------------------------------- class weights */

/* An object key as an int4 label: optional sign and decimal digits only. */
static int32
class_weight_label(const char *key, int len)
{
	char	   *str = pnstrdup(key, len);
	char	   *end;
	long		v;
	int			i = (str[0] == '-' || str[0] == '+') ? 1 : 0;

	errno = 0;
	v = strtol(str, &end, 10);
	if (str[i] < '0' || str[i] > '9' || *end != '\0' || errno != 0 ||
		v < PG_INT32_MIN || v > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("class_weight key \"%s\" is not an int4 label", str),
				 errhint("Give weights by label, e.g. '{\"class_weight\": {\"-1\": 1, \"1\": 5}}'.")));
	pfree(str);
	return (int32) v;
}

/*
 * Reads and checks an explicit class_weight object: keys are int4 labels
 * (each at most once), values finite positive numbers.  out may be NULL.
 */
static void
read_class_weight(JsonbContainer *obj, GsuClassWeights *out)
{
	int			size = JsonContainerSize(obj);
	int32	   *labels = palloc(sizeof(int32) * Max(size, 1));
	double	   *weights = palloc(sizeof(double) * Max(size, 1));
	int			n = 0,
				k;
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	v;
	JsonbIteratorToken tok;
	int32		label = 0;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		double		w;

		if (tok == WJB_KEY)
		{
			label = class_weight_label(v.val.string.val, v.val.string.len);
			for (k = 0; k < n; k++)
				if (labels[k] == label)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("class_weight gives label %d twice", label)));
			continue;
		}
		if (tok != WJB_VALUE)
			continue;
		if (v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight of label %d must be a number, not %s", label,
							v.type == jbvString ? "a string" :
							v.type == jbvNull ? "null" :
							v.type == jbvBool ? "a boolean" : "an array or object")));
		w = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(v.val.numeric)));
		if (!(w > 0.0) || !isfinite(w))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("class_weight of label %d must be positive and finite, not %g",
							label, w)));
		labels[n] = label;
		weights[n] = w;
		n++;
	}
	if (out)
	{
		out->n = n;
		out->label = labels;
		out->weight = weights;
	}
	else
	{
		pfree(labels);
		pfree(weights);
	}
}

/* Reads the class_weight option (absent: GSU_CLASS_WEIGHT_NONE). */
int32
gsu_parse_class_weight_mode(JsonbContainer *root)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(root, "class_weight", strlen("class_weight"), &v) == NULL ||
		v.type == jbvNull)
		return GSU_CLASS_WEIGHT_NONE;
	if (v.type == jbvString)
	{
		if (v.val.string.len == 8 && memcmp(v.val.string.val, "balanced", 8) == 0)
			return GSU_CLASS_WEIGHT_BALANCED;
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown class_weight \"%.*s\"", v.val.string.len, v.val.string.val),
				 errhint("Use \"balanced\" or an object of weights by label, e.g. "
						 "'{\"class_weight\": {\"-1\": 1, \"1\": 5}}'.")));
	}
	if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"class_weight\" must be \"balanced\" or an object of weights by label, not %s",
						v.type == jbvNumeric ? "a number" :
						v.type == jbvBool ? "a boolean" : "an array")));
	read_class_weight(v.val.binary.data, NULL);
	return GSU_CLASS_WEIGHT_EXPLICIT;
}

GsuClassWeights *
gsu_parse_class_weight(Jsonb *jb)
{
	JsonbValue	v;
	GsuClassWeights *cw;

	if (jb == NULL || JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb) ||
		getKeyJsonValueFromContainer(&jb->root, "class_weight", strlen("class_weight"), &v) == NULL ||
		v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
		return NULL;
	cw = palloc0(sizeof(GsuClassWeights));
	read_class_weight(v.val.binary.data, cw);
	return cw;
}

void
gsu_reject_class_weight(const GsuTrainOptions *o, const char *fn)
{
	if (o->class_weight != GSU_CLASS_WEIGHT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not support the option \"class_weight\"", fn),
				 errhint("Train with gsu.train, which takes \"class_weight\" and per-row weights.")));
}

double
gsu_class_weight_of(const GsuClassWeights *cw, int32 label)
{
	int			k;

	if (cw)
		for (k = 0; k < cw->n; k++)
			if (cw->label[k] == label)
				return cw->weight[k];
	return 1.0;
}
