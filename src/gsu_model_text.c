/*
 * gsu_model_text.c — the text form of gsu.model, a JSON object (see
 * docs/scoring.md, "The gsu.model type"): read field by field and checked
 * before it becomes a model, written in the shortest exact form; the casts
 * to and from jsonb.  The hyperparameters come from the options table
 * (gsu_options.c, through gsu_model_hyper.c).  The option "init" of the
 * training options, a model in this form, is read by gsu_model_init.c.
 */
#include "gsu_model_text.h"
#include "gsu_model_check.h"
#include "gsu_model_hyper.h"
#include "gsu_progress.h"
#include "core/gsu_core.h"
#include "gsu_json.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_model_in);
PG_FUNCTION_INFO_V1(gsu_model_out);
PG_FUNCTION_INFO_V1(gsu_model_to_jsonb_cast);
PG_FUNCTION_INFO_V1(gsu_model_from_jsonb_cast);

/* ------------------------------------------------------------------ JSON */

static GsuModel *history_from_json(GsuModel *m, JsonbContainer *root);

static const char *const top_keys[] = {
	"format", "method", "loss", "task", "dim", "classes", "class_weight", "weights", "bias",
	"hyperparameters", "features", "standardization", "missing", "training", "calibration", "history", NULL
};
static const char *const standardization_keys[] = {"mean", "scale", NULL};
static const char *const missing_keys[] = {"mean", "variance", "rows", "elements", NULL};
static const char *const feature_keys[] = {
	"map", "input_dim", "dim", "sigma", "seed", "landmarks", "matrix", NULL
};
static const char *const calibration_keys[] = {"a", "b", NULL};
static const char *const training_keys[] = {
	"rows", "iterations", "passes", "objective", "gradient_norm",
	"gap_estimate", "converged", "seconds", NULL
};

/* the error of a string key whose value names nothing */
static void
unknown_value(const GsuJsonCtx *cx, const char *key, const char *val)
{
	ereport(ERROR,
			(errcode(cx->errcode),
			 errmsg("%s \"%s\" has unknown value \"%s\"", cx->what, key, val)));
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

/* What a model's text says of its shape, read before the model is allocated. */
typedef struct ModelShape
{
	int64		format,
				dim,
				nclasses,
				input_dim,
				landmarks,
				map_len;
	int			map_kind;		/* GSU_MAP_* */
	JsonbContainer *classes;	/* the key "classes", or NULL */
	JsonbContainer *features;	/* the key "features", or NULL */
} ModelShape;

#define TEXT_CTX(what) {ERRCODE_INVALID_TEXT_REPRESENTATION, what}

/* the keys, "format", "method", "dim" and the number of classes */
static void
read_header(JsonbContainer *root, ModelShape *sh)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	const char *s;

	gsu_json_check_object(&cx, root, top_keys);
	if (!gsu_json_int64(&cx, root, "format", 0, PG_INT32_MAX, &sh->format))
		json_missing(&cx, "format");
	/*
	 * format 1 (pg_gsu before multi-class) is format 2 without the new keys;
	 * format 2 is format 3 without "subspace_mode" (which reads as "covariance")
	 */
	if (sh->format < 1 || sh->format > GSU_MODEL_FORMAT)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("unsupported gsu.model format " INT64_FORMAT, sh->format),
				 errdetail("This version of pg_gsu reads formats 1 to %d.", GSU_MODEL_FORMAT)));
	if (gsu_json_string(&cx, root, "method", &s) && strcmp(s, "linear") != 0)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"method\" has unknown value \"%s\"", s)));
	if (!gsu_json_int64(&cx, root, "dim", 1, GSU_MAX_DIM, &sh->dim))
		json_missing(&cx, "dim");
	sh->nclasses = 2;
	sh->classes = gsu_json_container(&cx, root, "classes", true);
	if (sh->classes)
	{
		sh->nclasses = gsu_json_array_length(sh->classes);
		if (sh->nclasses < 2 || sh->nclasses > GSU_MAX_CLASSES)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.model must have between 2 and %d classes, not " INT64_FORMAT,
							GSU_MAX_CLASSES, sh->nclasses)));
	}
}

/* the shape of the feature map under "features": its kind, input dimension and length */
static void
read_features_shape(JsonbContainer *root, ModelShape *sh)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	GsuJsonCtx	fx = TEXT_CTX("gsu.model features key");
	const char *s;
	int64		fdim;

	sh->input_dim = sh->dim;
	sh->landmarks = 0;
	sh->map_len = 0;
	sh->map_kind = GSU_MAP_NONE;
	sh->features = gsu_json_container(&cx, root, "features", false);
	if (sh->features == NULL)
		return;
	gsu_json_check_object(&fx, sh->features, feature_keys);
	if (!gsu_json_string(&fx, sh->features, "map", &s))
		json_missing(&fx, "map");
	for (sh->map_kind = GSU_MAP_NONE; sh->map_kind <= GSU_MAP_MAX &&
		 strcmp(s, gsu_map_name(sh->map_kind)) != 0; sh->map_kind++)
		;
	if (sh->map_kind > GSU_MAP_MAX)
		unknown_value(&fx, "map", s);
	if (!gsu_json_int64(&fx, sh->features, "input_dim", 1, GSU_MAX_DIM, &sh->input_dim))
		json_missing(&fx, "input_dim");
	if (gsu_json_int64(&fx, sh->features, "dim", 1, GSU_MAX_DIM, &fdim) && fdim != sh->dim)
		ereport(ERROR,
				(errcode(fx.errcode),
				 errmsg("gsu.model features \"dim\" " INT64_FORMAT " differs from the model's dimension " INT64_FORMAT,
						fdim, sh->dim)));
	gsu_json_int64(&fx, sh->features, "landmarks", 0, GSU_MAX_DIM, &sh->landmarks);
	sh->map_len = gsu_map_length(sh->map_kind, (int) sh->dim, (int) sh->input_dim,
								 (int) sh->landmarks);
	if (sh->map_len > (int64) (MaxAllocSize / sizeof(double)))
		ereport(ERROR,
				(errcode(fx.errcode),
				 errmsg("gsu.model feature map is too large")));
}

/* a model of the shape with its classes, class weights, weights, bias and map */
static GsuModel *
read_blocks(JsonbContainer *root, const ModelShape *sh)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	GsuJsonCtx	fx = TEXT_CTX("gsu.model features key");
	GsuModel   *m = gsu_model_alloc((int) sh->dim, (int) sh->nclasses, (int) sh->map_len);
	int64		i64;

	m->input_dim = (int32) sh->input_dim;
	m->map_kind = (uint8) sh->map_kind;
	m->map_landmarks = (int32) sh->landmarks;
	if (sh->classes)
		gsu_json_number_array(&cx, sh->classes, "classes", GSU_MODEL_CLASSES(m), (int) sh->nclasses);
	if (gsu_json_container(&cx, root, "class_weight", true))
		json_exact_array(&cx, root, "class_weight", GSU_MODEL_CLASS_WEIGHT(m), sh->nclasses);
	json_per_vector(&cx, root, "weights", m, 0, (int) sh->dim);
	json_per_vector(&cx, root, "bias", m, (int) sh->dim, 0);
	if (sh->features)
	{
		/* poly2 has no sigma (a stated one is refused by the validation) */
		if (!gsu_json_number(&fx, sh->features, "sigma", &m->map_sigma) &&
			sh->map_kind != GSU_MAP_POLY2)
			json_missing(&fx, "sigma");
		if (gsu_json_int64(&fx, sh->features, "seed", 0, PG_INT64_MAX, &i64))
			m->map_seed = (uint64) i64;
		/* a map without a block (poly2) may state an empty "matrix" */
		if (sh->map_len > 0 || gsu_json_container(&fx, sh->features, "matrix", true))
			json_exact_array(&fx, sh->features, "matrix", GSU_MODEL_MAP(m), sh->map_len);
	}
	return m;
}

/* "loss" and "hyperparameters" (format 2 and older: no "subspace_mode"); the latter returned */
static JsonbContainer *
read_hyperparameters(JsonbContainer *root, GsuModel *m, int64 format)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	JsonbContainer *hyper;
	const char *s;

	m->loss = GSU_LOSS_GSU;
	if (gsu_json_string(&cx, root, "loss", &s))
	{
		int			k = gsu_loss_by_name(s);

		if (k < 0)
			unknown_value(&cx, "loss", s);
		m->loss = (uint8) k;
	}
	/* "task" (regression models write it): follows from the loss, and must agree */
	if (gsu_json_string(&cx, root, "task", &s) &&
		strcmp(s, gsu_model_is_regression(m) ? "regression" : "classification") != 0)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model key \"task\" is \"%s\", but the loss \"%s\" is %s loss", s,
						gsu_loss_name(m->loss), gsu_model_is_regression(m) ? "a regression" : "a classification")));
	hyper = gsu_json_container(&cx, root, "hyperparameters", false);
	gsu_hyper_from_jsonb(m, hyper, cx.errcode);
	if (format < 3)
	{
		JsonbValue	v;

		if (hyper && getKeyJsonValueFromContainer(hyper, "subspace_mode", 13, &v) != NULL)
			ereport(ERROR,
					(errcode(cx.errcode),
					 errmsg("gsu.model of format " INT64_FORMAT " has no hyperparameter \"subspace_mode\"",
							format)));
		m->subspace_mode = GSU_SUBSPACE_COVARIANCE;
	}
	return hyper;
}

/*
 * "standardization" (format 4 on), present exactly when the hyperparameter
 * "standardize" is true: m with its block (a new value) or m itself
 */
static GsuModel *
read_standardization(JsonbContainer *root, JsonbContainer *hyper, GsuModel *m,
					 const ModelShape *sh)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	GsuJsonCtx	sx = TEXT_CTX("gsu.model standardization key");
	JsonbContainer *standardization = gsu_json_container(&cx, root, "standardization", false);
	bool		hyper_std = false;
	double	   *smean,
			   *sscale;

	if (hyper)
	{
		GsuJsonCtx	hx = {cx.errcode, "gsu.model hyperparameter"};

		gsu_json_bool(&hx, hyper, "standardize", &hyper_std);
	}
	if (standardization && sh->format < 4)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model of format " INT64_FORMAT " has no key \"standardization\"",
						sh->format)));
	if (hyper_std != (standardization != NULL))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model hyperparameter \"standardize\" and key \"standardization\" disagree"),
				 errdetail("A model trained with \"standardize\": true has the statistics under \"standardization\", and only such a model.")));
	if (standardization == NULL)
		return m;
	smean = palloc(sizeof(double) * sh->input_dim);
	sscale = palloc(sizeof(double) * sh->input_dim);
	gsu_json_check_object(&sx, standardization, standardization_keys);
	json_exact_array(&sx, standardization, "mean", smean, sh->input_dim);
	json_exact_array(&sx, standardization, "scale", sscale, sh->input_dim);
	return gsu_model_with_standardization(m, smean, sscale);
}

/*
 * "missing" (the moments of option "missing"; "missing_nan" needs them),
 * present exactly when the hyperparameter "missing" is "feature_moments"
 */
static GsuModel *
read_missing(JsonbContainer *root, JsonbContainer *hyper, GsuModel *m, const ModelShape *sh)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	GsuJsonCtx	mx = TEXT_CTX("gsu.model missing key");
	JsonbContainer *missing = gsu_json_container(&cx, root, "missing", false);
	const char *hyper_missing = NULL;
	bool		hyper_nan = false;
	double	   *block = palloc(sizeof(double) * GSU_MISSING_BLOCK_LEN(sh->input_dim));
	int64		rows = 0,
				elements = 0;

	if (hyper)
	{
		GsuJsonCtx	hx = {cx.errcode, "gsu.model hyperparameter"};

		gsu_json_string(&hx, hyper, "missing", &hyper_missing);
		gsu_json_bool(&hx, hyper, "missing_nan", &hyper_nan);
	}
	if ((hyper_missing && strcmp(hyper_missing, "error") != 0 &&
		 strcmp(hyper_missing, "feature_moments") != 0) ||
		(hyper_missing && strcmp(hyper_missing, "feature_moments") == 0) != (missing != NULL) ||
		(hyper_nan && missing == NULL))
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model hyperparameter \"%s\" and key \"missing\" disagree",
						hyper_nan && missing == NULL ? "missing_nan" : "missing"),
				 errdetail("A model trained with \"missing\": \"feature_moments\" has the moments under \"missing\", and only such a model.")));
	if (missing == NULL)
		return m;
	if (sh->format < 5)
		ereport(ERROR,
				(errcode(cx.errcode),
				 errmsg("gsu.model of format " INT64_FORMAT " has no key \"missing\"", sh->format)));
	gsu_json_check_object(&mx, missing, missing_keys);
	json_exact_array(&mx, missing, "mean", block, sh->input_dim);
	json_exact_array(&mx, missing, "variance", block + sh->input_dim, sh->input_dim);
	if (!gsu_json_int64(&mx, missing, "rows", 0, PG_INT64_MAX, &rows))
		json_missing(&mx, "rows");
	if (!gsu_json_int64(&mx, missing, "elements", 0, PG_INT64_MAX, &elements))
		json_missing(&mx, "elements");
	block[2 * (Size) sh->input_dim] = (double) rows;
	block[2 * (Size) sh->input_dim + 1] = (double) elements;
	return gsu_model_with_missing(m, block, hyper_nan);
}

/* "training" (the statistics) and "calibration" (Platt's pairs) */
static void
read_training_and_calibration(JsonbContainer *root, GsuModel *m)
{
	GsuJsonCtx	cx = TEXT_CTX("gsu.model key");
	GsuJsonCtx	tx = TEXT_CTX("gsu.model training key");
	GsuJsonCtx	kx = TEXT_CTX("gsu.model calibration key");
	JsonbContainer *training = gsu_json_container(&cx, root, "training", false);
	JsonbContainer *calibration;
	bool		converged = false;

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
}

GsuModel *
gsu_model_from_jsonb(JsonbContainer *root)
{
	ModelShape	sh;
	JsonbContainer *hyper;
	GsuModel   *m;

	read_header(root, &sh);
	read_features_shape(root, &sh);
	m = read_blocks(root, &sh);
	hyper = read_hyperparameters(root, m, sh.format);
	m = read_standardization(root, hyper, m, &sh);
	m = read_missing(root, hyper, m, &sh);
	read_training_and_calibration(root, m);
	if (sh.format >= 5)
		m = history_from_json(m, root);
	else if (getKeyJsonValueFromContainer(root, "history", 7, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.model of format " INT64_FORMAT " has no key \"history\"", sh.format)));
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

/*
 * "history": one array per vector of its entries [pass, objective,
 * gradient_norm, gap, elapsed_ms], null for a measure not taken
 */
static void
append_history(StringInfo buf, const GsuModel *m)
{
	const double *h = GSU_MODEL_HIST(m);
	int			nvec = GSU_MODEL_NVEC(m),
				k,
				i,
				j;
	Size		at = nvec;

	appendStringInfoString(buf, ", \"history\": [");
	for (k = 0; k < nvec; k++)
	{
		appendStringInfoString(buf, k > 0 ? ", [" : "[");
		for (i = 0; i < (int) h[k]; i++, at += GSU_HISTORY_FIELDS)
		{
			appendStringInfoString(buf, i > 0 ? ", [" : "[");
			for (j = 0; j < GSU_HISTORY_FIELDS; j++)
			{
				if (j > 0)
					appendStringInfoString(buf, ", ");
				if (j >= 1 && j <= 3 && h[at + j] < 0.0)
					appendStringInfoString(buf, "null");
				else
					gsu_append_double(buf, h[at + j]);
			}
			appendStringInfoChar(buf, ']');
		}
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoChar(buf, ']');
}

/* the key "history" of a model's text (append_history's form) */
static GsuModel *
history_from_json(GsuModel *m, JsonbContainer *root)
{
	GsuJsonCtx	cx = {ERRCODE_INVALID_TEXT_REPRESENTATION, "gsu.model history"};
	JsonbValue *v;
	JsonbContainer *outer;
	int			nvec = GSU_MODEL_NVEC(m),
				k;
	double	   *block;
	Size		len = nvec;
	GsuModel   *r;

	v = getKeyJsonValueFromContainer(root, "history", 7, NULL);
	if (v == NULL || v->type == jbvNull)
		return m;
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data) ||
		JsonContainerSize(v->val.binary.data) != (uint32) nvec)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("gsu.model history must be an array of %d arrays, one per weight vector", nvec)));
	outer = v->val.binary.data;
	block = palloc(sizeof(double) * (nvec + (Size) nvec * GSU_HISTORY_MAX * GSU_HISTORY_FIELDS));
	for (k = 0; k < nvec; k++)
	{
		JsonbValue *vk = getIthJsonbValueFromContainer(outer, k);
		int			n,
					i;

		if (vk == NULL || vk->type != jbvBinary || !JsonContainerIsArray(vk->val.binary.data) ||
			JsonContainerSize(vk->val.binary.data) > GSU_HISTORY_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("gsu.model history of vector %d must be an array of at most %d entries",
							k + 1, GSU_HISTORY_MAX)));
		n = (int) JsonContainerSize(vk->val.binary.data);
		block[k] = n;
		for (i = 0; i < n; i++)
		{
			JsonbValue *e = getIthJsonbValueFromContainer(vk->val.binary.data, i);
			int			j;

			if (e == NULL || e->type != jbvBinary || !JsonContainerIsArray(e->val.binary.data) ||
				JsonContainerSize(e->val.binary.data) != GSU_HISTORY_FIELDS)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("gsu.model history entry must be an array of %d numbers "
								"(pass, objective, gradient norm, gap, elapsed ms)", GSU_HISTORY_FIELDS)));
			for (j = 0; j < GSU_HISTORY_FIELDS; j++)
			{
				JsonbValue *x = getIthJsonbValueFromContainer(e->val.binary.data, j);

				if (x && x->type == jbvNull && j >= 1 && j <= 3)
					block[len++] = GSU_TRACE_NONE;
				else if (x && x->type == jbvNumeric)
					block[len++] = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
																	  NumericGetDatum(x->val.numeric)));
				else
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							 errmsg("gsu.model history entry must be an array of %d numbers "
									"(pass, objective, gradient norm, gap, elapsed ms)",
									GSU_HISTORY_FIELDS)));
			}
		}
	}
	(void) cx;
	r = gsu_model_with_history(m, block, len);
	pfree(block);
	pfree(m);
	return r;
}

static char *
model_to_text(const GsuModel *m, bool with_weights)
{
	StringInfoData buf;
	int			k;

	initStringInfo(&buf);
	appendStringInfo(&buf, "{\"format\": %d, \"method\": \"linear\", \"loss\": \"%s\", \"dim\": %d",
					 GSU_MODEL_FORMAT, gsu_loss_name(m->loss), m->dim);
	/* a regression model says so; a classifier's text is as it always was */
	if (gsu_model_is_regression(m))
		appendStringInfoString(&buf, ", \"task\": \"regression\"");
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
	gsu_hyper_append(&buf, m);
	appendStringInfoChar(&buf, '}');

	if (m->map_kind != GSU_MAP_NONE)
	{
		appendStringInfo(&buf, ", \"features\": {\"map\": \"%s\", \"input_dim\": %d, \"dim\": %d",
						 gsu_map_name(m->map_kind), m->input_dim, m->dim);
		/* poly2 has no parameters: its keys end with "dim" */
		if (m->map_kind != GSU_MAP_POLY2)
		{
			appendStringInfoString(&buf, ", ");
			append_kv_double(&buf, "sigma", m->map_sigma);
			appendStringInfo(&buf, ", \"seed\": " UINT64_FORMAT, m->map_seed);
		}
		if (m->map_kind == GSU_MAP_NYSTROEM)
			appendStringInfo(&buf, ", \"landmarks\": %d", m->map_landmarks);
		if (with_weights && m->map_len > 0)
		{
			appendStringInfoString(&buf, ", \"matrix\": ");
			append_doubles(&buf, GSU_MODEL_MAP(m), m->map_len);
		}
		appendStringInfoChar(&buf, '}');
	}
	else
		appendStringInfoString(&buf, ", \"features\": null");
	if ((m->flags & GSU_MODEL_STANDARDIZED) && with_weights)
	{
		appendStringInfoString(&buf, ", \"standardization\": {\"mean\": ");
		append_doubles(&buf, GSU_MODEL_STD_MEAN(m), m->input_dim);
		appendStringInfoString(&buf, ", \"scale\": ");
		append_doubles(&buf, GSU_MODEL_STD_SCALE(m), m->input_dim);
		appendStringInfoChar(&buf, '}');
	}
	if (m->flags & GSU_MODEL_MISSING)
	{
		appendStringInfoString(&buf, ", \"missing\": {");
		if (with_weights)
		{
			appendStringInfoString(&buf, "\"mean\": ");
			append_doubles(&buf, GSU_MODEL_MISS_MEAN(m), m->input_dim);
			appendStringInfoString(&buf, ", \"variance\": ");
			append_doubles(&buf, GSU_MODEL_MISS_VAR(m), m->input_dim);
			appendStringInfoString(&buf, ", ");
		}
		appendStringInfo(&buf, "\"rows\": " INT64_FORMAT ", \"elements\": " INT64_FORMAT "}",
						 (int64) GSU_MODEL_MISS_COUNTS(m)[0], (int64) GSU_MODEL_MISS_COUNTS(m)[1]);
	}

	/*
	 * describe names the radius a tsvc model used: a per-coordinate deviation,
	 * where Bi & Zhang's delta bounds |dx| (about sqrt(dim) times larger for
	 * a Gaussian; docs/reproduce-tsvc.md measures both)
	 */
	if (!with_weights && m->loss == GSU_LOSS_TSVC)
		appendStringInfoString(&buf, ", \"radius\": \"delta_i = delta_scale * sqrt(trace(Sigma_i) / dim)\"");

	appendStringInfo(&buf, ", \"training\": {\"rows\": " INT64_FORMAT
					 ", \"iterations\": " INT64_FORMAT ", \"passes\": " INT64_FORMAT ", ",
					 m->rows, m->iterations, m->passes);
	append_kv_double(&buf, "objective", m->objective);
	appendStringInfoString(&buf, ", ");
	/* statistics a solver does not compute are null, not zero */
	append_kv_optional(&buf, "gradient_norm", m->gradient_norm, m->solver != GSU_SOLVER_SGD);
	append_kv_optional(&buf, "gap_estimate", m->gap_estimate, gsu_solver_has_gap(m->solver));
	appendStringInfo(&buf, "\"converged\": %s, ",
					 !gsu_solver_has_gap(m->solver) ? "null" :
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
	if ((m->flags & GSU_MODEL_HISTORY) && with_weights)
		append_history(&buf, m);
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
