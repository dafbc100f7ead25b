/*
 * gsu_model.c — the gsu.model type: allocation, scoring primitives, the
 * field-by-field check, binary send/recv and the inspection functions (the
 * JSON text form is in gsu_model_text.c).
 *
 * The text form is a JSON object (see README, "The gsu.model type").  Every
 * value that arrives from outside — text, jsonb or bytes — is checked field
 * by field before it becomes a model, so no later function has to distrust
 * a model it is given.
 */
#include "gsu_model.h"
#include "gsu_progress.h"
#include "gsu_json.h"
#include "core/gsu_standardize.h"

#include <math.h>

#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

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


/* the batch solvers report a gap estimate and whether they converged */
bool
gsu_solver_has_gap(int solver)
{
	return solver == GSU_SOLVER_NEWTON || solver == GSU_SOLVER_LBFGS ||
		solver == GSU_SOLVER_DCD;
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

/* gsu_model_alloc with room for std_len doubles after the map (the flag is the caller's) */
static GsuModel *
model_alloc_tail(int dim, int nclasses, int map_len, Size std_len)
{
	Size		size = GSU_MODEL_SIZE(dim, nclasses, map_len) + sizeof(double) * std_len;
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
gsu_model_alloc(int dim, int nclasses, int map_len)
{
	return model_alloc_tail(dim, nclasses, map_len, 0);
}

GsuModel *
gsu_model_with_standardization(const GsuModel *m, const double *mean, const double *scale)
{
	Size		old = offsetof(GsuModel, data) +
		sizeof(double) * GSU_MODEL_DATA_LEN(m->dim, m->nclasses, m->map_len);
	Size		size = old + sizeof(double) * 2 * (Size) m->input_dim;
	GsuModel   *r;

	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.model of dimension %d with %d classes is too large",
						m->dim, m->nclasses)));
	r = (GsuModel *) palloc0(size);
	memcpy(r, m, old);
	SET_VARSIZE(r, size);
	r->flags |= GSU_MODEL_STANDARDIZED;
	memcpy(GSU_MODEL_STD_MEAN(r), mean, sizeof(double) * r->input_dim);
	memcpy(GSU_MODEL_STD_SCALE(r), scale, sizeof(double) * r->input_dim);
	return r;
}

GsuModel *
gsu_model_with_history(const GsuModel *m, const double *hist, Size len)
{
	Size		old = VARSIZE(m),
				size = old + sizeof(double) * len;
	GsuModel   *r;

	Assert(!(m->flags & GSU_MODEL_HISTORY));
	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.model of dimension %d with %d classes is too large",
						m->dim, m->nclasses)));
	r = (GsuModel *) palloc(size);
	memcpy(r, m, old);
	memcpy((char *) r + old, hist, sizeof(double) * len);
	SET_VARSIZE(r, size);
	r->flags |= GSU_MODEL_HISTORY;
	return r;
}

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

GsuModel *
gsu_model_for_scoring(const GsuModel *m)
{
	Size		size = GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len);
	GsuModel   *r;
	int			k;

	if (!(m->flags & GSU_MODEL_STANDARDIZED))
		return (GsuModel *) m;
	/* a standardized model has no feature map: dim = input_dim */
	r = (GsuModel *) palloc(size);
	memcpy(r, m, size);
	SET_VARSIZE(r, size);
	r->flags &= ~(GSU_MODEL_STANDARDIZED | GSU_MODEL_HISTORY);
	for (k = 0; k < GSU_MODEL_NVEC(m); k++)
		if (gsu_standardize_fold(m->dim, GSU_MODEL_STD_MEAN(m), GSU_MODEL_STD_SCALE(m),
								 GSU_MODEL_THETA(m, k), GSU_MODEL_THETA(r, k)) != GSU_OK)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the weights of a standardized model in original units are out of range for type double precision"),
					 errdetail("A weight divided by its feature's scale, or the bias moved by the centres, overflows.")));
	return r;
}

GsuModel *
gsu_model_scoring_arg(FunctionCallInfo fcinfo, int argno)
{
	GsuModelCache **slot = (GsuModelCache **) &fcinfo->flinfo->fn_extra;
	GsuModel   *m = gsu_model_arg(fcinfo, argno, slot);
	GsuModelCache *c;
	MemoryContext old;

	if (!(m->flags & GSU_MODEL_STANDARDIZED))
		return m;
	if (*slot == NULL)
		*slot = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GsuModelCache));
	c = *slot;
	/*
	 * keyed on the value's bytes, whatever the argument is: memory is reused
	 * between rows, and even a constant-looking argument (a PL/pgSQL
	 * variable, a cast of a constant) brings new values to old addresses
	 */
	if (c->folded_from && VARSIZE(c->folded_from) == VARSIZE(m) &&
		memcmp(c->folded_from, m, VARSIZE(m)) == 0)
		return c->folded;
	if (c->folded_from)
	{
		pfree(c->folded_from);
		pfree(c->folded);
		c->folded_from = c->folded = NULL;
	}
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	c->folded = gsu_model_for_scoring(m);
	c->folded_from = palloc(VARSIZE(m));
	memcpy(c->folded_from, m, VARSIZE(m));
	MemoryContextSwitchTo(old);
	return c->folded;
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

	gsu_hyper_from_options(m, o);
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

void
gsu_check_trained_model(const GsuModel *m, const char *fn)
{
	int			k,
				j;
	bool		ok = isfinite(m->objective) && isfinite(m->gradient_norm) &&
		isfinite(m->gap_estimate);

	for (k = 0; ok && k < GSU_MODEL_NVEC(m); k++)
		for (j = 0; ok && j <= m->dim; j++)
			ok = isfinite(GSU_MODEL_THETA(m, k)[j]);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s diverged: the model's weights or objective are out of range "
						"for type double precision", fn),
				 errhint("Rescale the features, raise \"lambda\", or start without \"init\".")));
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

	if (m->format < 2 || m->format > GSU_MODEL_FORMAT)
		BAD("unsupported gsu.model format %d", m->format);
	if ((m->flags & ~GSU_MODEL_FLAGS_KNOWN) != 0 ||
		(m->format < 4 && (m->flags & GSU_MODEL_STANDARDIZED)) ||
		(m->format < 5 && (m->flags & GSU_MODEL_HISTORY)))
		BAD("gsu.model has unknown flags 0x%04x", m->flags);
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
		 sizeof(double) * GSU_MODEL_STD_LEN(m)) ||
		((m->flags & GSU_MODEL_HISTORY) &&
		 (VARSIZE(m) < GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len) +
		  sizeof(double) * GSU_MODEL_STD_LEN(m) ||
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
	if (gsu_loss_info(m->loss) == NULL)
		BAD("gsu.model has unknown loss %d", m->loss);
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
	 * zero) in every double, the header's as well as the data block's, and
	 * statistics a solver does not compute are zero, so that text and binary
	 * round trips give identical values.
	 */
	m->lambda = gsu_canonical_zero(m->lambda);
	m->tolerance = gsu_canonical_zero(m->tolerance);
	m->smoothing = gsu_canonical_zero(m->smoothing);
	m->subspace_fraction = gsu_canonical_zero(m->subspace_fraction);
	m->gamma = gsu_canonical_zero(m->gamma);
	m->delta_scale = gsu_canonical_zero(m->delta_scale);
	m->epsilon = gsu_canonical_zero(m->epsilon);
	m->map_sigma = gsu_canonical_zero(m->map_sigma);
	m->objective = gsu_canonical_zero(m->objective);
	m->gradient_norm = gsu_canonical_zero(m->gradient_norm);
	m->gap_estimate = gsu_canonical_zero(m->gap_estimate);
	m->seconds = gsu_canonical_zero(m->seconds);
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
				len = GSU_MODEL_LEN(m) + GSU_MODEL_HIST_LEN(m);

	pq_begintypsend(&buf);
	pq_sendint16(&buf, GSU_MODEL_FORMAT);
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
	pq_sendint8(&buf, m->subspace_mode);
	pq_sendint8(&buf, m->reserved[0]);
	pq_sendint8(&buf, m->reserved[1]);
	pq_sendint8(&buf, m->reserved[2]);
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
				len,
				std_len = 0,
				hist_len = 0;

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
	/* format 2's zero int32 reserved field is format 3's mode 0 and reserved bytes */
	h.subspace_mode = (uint8) pq_getmsgint(buf, 1);
	h.reserved[0] = (uint8) pq_getmsgint(buf, 1);
	h.reserved[1] = (uint8) pq_getmsgint(buf, 1);
	h.reserved[2] = (uint8) pq_getmsgint(buf, 1);
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
	len = GSU_MODEL_DATA_LEN(h.dim, h.nclasses, h.map_len) + std_len;
	/* format 5: a history's doubles are what the value has after the rest */
	if (h.format >= 5 && (h.flags & GSU_MODEL_HISTORY))
	{
		Size		fixed = GSU_MODEL_SEND_HEADER -
			(offsetof(GsuModel, seed) - offsetof(GsuModel, format)) + sizeof(double) * len;
		Size		nvec = h.nclasses == 2 ? 1 : (Size) h.nclasses;
		Size		rest = (Size) (buf->len - buf->cursor);

		if (rest >= fixed && (rest - fixed) % sizeof(double) == 0 &&
			(rest - fixed) / sizeof(double) <= nvec * (1 + GSU_HISTORY_MAX * GSU_HISTORY_FIELDS))
			hist_len = (rest - fixed) / sizeof(double);
	}
	/* the length is checked before anything of that size is allocated */
	if ((Size) (buf->len - buf->cursor) !=
		GSU_MODEL_SEND_HEADER - (offsetof(GsuModel, seed) - offsetof(GsuModel, format)) +
		sizeof(double) * (len + hist_len))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("gsu.model binary value has the wrong length for dimension %d and %d classes",
						h.dim, h.nclasses)));
	m = model_alloc_tail(h.dim, h.nclasses, h.map_len, std_len + hist_len);
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
	Datum	   *d = palloc(sizeof(Datum) * m->nclasses);
	int			k;

	for (k = 0; k < m->nclasses; k++)
		d[k] = Int32GetDatum((int32) GSU_MODEL_CLASSES(m)[k]);
	PG_RETURN_ARRAYTYPE_P(construct_array(d, m->nclasses, INT4OID, sizeof(int32), true,
										  TYPALIGN_INT));
}

