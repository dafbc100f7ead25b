/*
 * gsu_model_check.c — the field-by-field check of a gsu.model value
 * (gsu_model_check.h): every value that arrives from outside — text, jsonb
 * or bytes — is checked here before it becomes a model, so no later
 * function has to distrust a model it is given; and its canonical form.
 */
#include "gsu_model_check.h"
#include "gsu_model_hyper.h"
#include "gsu_progress.h"
#include "core/gsu_standardize.h"

#include <math.h>


/*
 * A history block of len doubles for nvec vectors: counts, then entries
 * whose passes increase, measures −1 or finite ≥ 0, times finite ≥ 0.
 */
static bool
history_valid(const double *h, Size len, int nvec)
{
	Size		need = (Size) nvec,
				at;
	int			k;

	if (len < need)
		return false;
	for (k = 0; k < nvec; k++)
	{
		if (!(h[k] >= 0.0 && h[k] <= GSU_HISTORY_MAX) || h[k] != floor(h[k]))
			return false;
		need += (Size) h[k] * GSU_HISTORY_FIELDS;
	}
	if (len != need)
		return false;
	at = nvec;
	for (k = 0; k < nvec; k++)
	{
		int			i;
		double		prev = 0.0;

		for (i = 0; i < (int) h[k]; i++, at += GSU_HISTORY_FIELDS)
		{
			const double *e = h + at;
			int			j;

			if (!(e[0] > prev && e[0] <= 9007199254740992.0) || e[0] != floor(e[0]))
				return false;
			prev = e[0];
			for (j = 1; j < 4; j++)
				if (!(e[j] == -1.0 || (isfinite(e[j]) && e[j] >= 0.0)))
					return false;
			if (!(isfinite(e[4]) && e[4] >= 0.0))
				return false;
		}
	}
	return true;
}

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
	if (m->map_kind == GSU_MAP_POLY2)
	{
		/* (x'z)^2 has no parameters: no sigma, seed, landmarks or block */
		if (m->map_sigma != 0.0 || m->map_seed != 0 || m->map_landmarks != 0)
			BAD("gsu.model feature map \"poly2\" has no sigma, seed or landmarks");
		if (m->input_dim > GSU_POLY2_MAX_INPUT_DIM ||
			(int64) m->dim != (int64) m->input_dim * (m->input_dim + 1) / 2)
			BAD("gsu.model feature map \"poly2\" of input dimension %d needs dimension p(p+1)/2, not %d, with p at most %d",
				m->input_dim, m->dim, GSU_POLY2_MAX_INPUT_DIM);
	}
	else if (!(isfinite(m->map_sigma) && m->map_sigma > 0.0))
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

/*
 * The missing block (option "missing"): finite means, finite non-negative
 * variances, counts that are whole numbers within the training's rows and
 * elements; no feature map (the option refuses one).
 */
static void
validate_missing(const GsuModel *m, int code)
{
	const double *mean = GSU_MODEL_MISS_MEAN(m),
			   *var = GSU_MODEL_MISS_VAR(m),
			   *counts = GSU_MODEL_MISS_COUNTS(m);
	int			j;

	if (m->map_kind != GSU_MAP_NONE)
		BAD("gsu.model with a feature map cannot have missing-value moments");
	for (j = 0; j < m->input_dim; j++)
		if (!isfinite(mean[j]) || !isfinite(var[j]) || var[j] < 0.0)
			BAD("gsu.model missing-value moments of feature %d must be a finite mean and a finite non-negative variance",
				j + 1);
	if (!(counts[0] >= 0.0 && counts[0] <= (double) m->rows && counts[0] == floor(counts[0]) &&
		  counts[1] >= counts[0] && counts[1] <= counts[0] * m->input_dim &&
		  counts[1] == floor(counts[1])))
		BAD("gsu.model missing-value counts are out of range");
}

void
gsu_model_validate(GsuModel *m, int code)
{
	int			i,
				k,
				nvec;
	double	   *classes,
			   *cw;

	if (m->format < 2 || m->format > GSU_MODEL_FORMAT)
		BAD("unsupported gsu.model format %d", m->format);
	if ((m->flags & ~GSU_MODEL_FLAGS_KNOWN) != 0 ||
		(m->format < 4 && (m->flags & GSU_MODEL_STANDARDIZED)) ||
		(m->format < 5 && (m->flags & (GSU_MODEL_HISTORY | GSU_MODEL_MISSING))))
		BAD("gsu.model has unknown flags 0x%04x", m->flags);
	if ((m->flags & GSU_MODEL_MISSING_NAN) && !(m->flags & GSU_MODEL_MISSING))
		BAD("gsu.model has the flag of \"missing_nan\" (0x0020) without missing-value moments");
	if (m->reserved[0] != 0 || m->reserved[1] != 0 || m->reserved[2] != 0 ||
		(m->format == 2 && m->subspace_mode != GSU_SUBSPACE_COVARIANCE))
		BAD("gsu.model reserved field must be zero");
	/* format 2 is format 3 in mode covariance, format 3 format 4 not standardized */
	m->format = GSU_MODEL_FORMAT;
	if (m->dim < 1 || m->dim > GSU_MAX_DIM)
		BAD("gsu.model dimension %d is out of range", m->dim);
	if (m->nclasses < 2 || m->nclasses > GSU_MAX_CLASSES)
		BAD("gsu.model must have between 2 and %d classes, not %d", GSU_MAX_CLASSES, m->nclasses);
	if (m->map_len < 0 || m->input_dim < 1 || m->input_dim > GSU_MAX_DIM ||
		(!(m->flags & GSU_MODEL_HISTORY) &&
		 VARSIZE(m) != GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len) +
		 sizeof(double) * (GSU_MODEL_STD_LEN(m) + GSU_MODEL_MISS_LEN(m))) ||
		((m->flags & GSU_MODEL_HISTORY) &&
		 (VARSIZE(m) < GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len) +
		  sizeof(double) * (GSU_MODEL_STD_LEN(m) + GSU_MODEL_MISS_LEN(m)) ||
		  (VARSIZE(m) - offsetof(GsuModel, data)) % sizeof(double) != 0)))
		BAD("gsu.model of dimension %d with %d classes has the wrong size", m->dim, m->nclasses);
	if ((m->flags & GSU_MODEL_HISTORY) &&
		!history_valid(GSU_MODEL_HIST(m), GSU_MODEL_HIST_LEN(m), GSU_MODEL_NVEC(m)))
		BAD("gsu.model training history is malformed");
	validate_map(m, code);
	if (m->flags & GSU_MODEL_STANDARDIZED)
	{
		if (m->map_kind != GSU_MAP_NONE)
			BAD("gsu.model with a feature map cannot be standardized");
		if (gsu_standardize_check(m->input_dim, GSU_MODEL_STD_MEAN(m),
								  GSU_MODEL_STD_SCALE(m)) != GSU_OK)
			BAD("gsu.model standardization must have finite centres and positive finite scales");
	}
	if (m->flags & GSU_MODEL_MISSING)
		validate_missing(m, code);
	if (gsu_loss_info(m->loss) == NULL)
		BAD("gsu.model has unknown loss %d", m->loss);
	/* a regression model (gsu.train_regression) is one vector, as trained: nothing of a classifier's */
	if (gsu_loss_info(m->loss)->regression &&
		(m->nclasses != 2 || GSU_MODEL_CLASSES(m)[0] != -1.0 || GSU_MODEL_CLASSES(m)[1] != 1.0 ||
		 GSU_MODEL_CLASS_WEIGHT(m)[0] != 1.0 || GSU_MODEL_CLASS_WEIGHT(m)[1] != 1.0 ||
		 m->map_kind != GSU_MAP_NONE ||
		 (m->flags & GSU_MODEL_CALIBRATED)))
		BAD("gsu.model of the regression loss \"%s\" must have the classes [-1, 1] of weight 1, "
			"and no feature map or calibration", gsu_loss_name(m->loss));
	gsu_hyper_validate(m, code);
	if (m->rows < 0 || m->iterations < 0 || m->passes < 0)
		BAD("gsu.model training counts must not be negative");
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
	 * zero) in every double, the header's (each float8 of GSU_MODEL_HEADER)
	 * as well as the data block's, and statistics a solver does not compute
	 * are zero, so that text and binary round trips give identical values.
	 */
#define CANONICAL_float8(field) m->field = gsu_canonical_zero(m->field);
#define CANONICAL_int8(field)
#define CANONICAL_int16(field)
#define CANONICAL_int32(field)
#define CANONICAL_int64(field)
#define CANONICAL_FIELD(type, field, wire) CANONICAL_##wire(field)
#define CANONICAL_ARRAY(type, field, n, wire)
	GSU_MODEL_HEADER(CANONICAL_FIELD, CANONICAL_ARRAY)
	gsu_canonicalize_zeros(m->data, GSU_MODEL_LEN(m) + GSU_MODEL_HIST_LEN(m));
	if (!gsu_solver_has_gap(m->solver))
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
