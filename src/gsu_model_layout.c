/*
 * gsu_model_layout.c — the gsu.model value: allocation, its blocks (the
 * standardization and the history appended), the folded form that scores
 * in original units, the per-call cache of a model argument, and the small
 * accessors every reader of a model uses (gsu_model_layout.h).  It knows
 * nothing of the model's text, checks or hyperparameters.
 */
#include "gsu_model_layout.h"
#include "core/gsu_standardize.h"

#include <math.h>

#include "utils/memutils.h"


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

GsuModel *
gsu_model_alloc_extra(int dim, int nclasses, int map_len, Size extra)
{
	Size		size = GSU_MODEL_SIZE(dim, nclasses, map_len) + sizeof(double) * extra;
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
	return gsu_model_alloc_extra(dim, nclasses, map_len, 0);
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

/*
 * m with blen bytes of block inserted at byte offset at (what followed moves
 * after it) and flag set: a palloc'd copy
 */
static GsuModel *
model_with_block(const GsuModel *m, Size at, const void *block, Size blen, uint16 flag)
{
	Size		size = VARSIZE(m) + blen;
	GsuModel   *r;

	Assert(!(m->flags & flag) && at <= VARSIZE(m));
	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a gsu.model of dimension %d with %d classes is too large",
						m->dim, m->nclasses)));
	r = (GsuModel *) palloc(size);
	memcpy(r, m, at);
	memcpy((char *) r + at, block, blen);
	memcpy((char *) r + at + blen, (const char *) m + at, VARSIZE(m) - at);
	SET_VARSIZE(r, size);
	r->flags |= flag;
	return r;
}

GsuModel *
gsu_model_with_history(const GsuModel *m, const double *hist, Size len)
{
	return model_with_block(m, VARSIZE(m), hist, sizeof(double) * len, GSU_MODEL_HISTORY);
}

GsuModel *
gsu_model_with_missing(const GsuModel *m, const double *block, bool nan_missing)
{
	/* before the history, if any */
	return model_with_block(m, offsetof(GsuModel, data) + sizeof(double) * GSU_MODEL_LEN(m), block,
							sizeof(double) * GSU_MISSING_BLOCK_LEN(m->input_dim),
							GSU_MODEL_MISSING | (nan_missing ? GSU_MODEL_MISSING_NAN : 0));
}

GsuModel *
gsu_model_for_scoring(const GsuModel *m)
{
	Size		size = GSU_MODEL_SIZE(m->dim, m->nclasses, m->map_len),
				miss = sizeof(double) * GSU_MODEL_MISS_LEN(m);
	GsuModel   *r;
	int			k;

	if (!(m->flags & GSU_MODEL_STANDARDIZED))
		return (GsuModel *) m;
	/* a standardized model has no feature map: dim = input_dim */
	r = (GsuModel *) palloc(size + miss);
	memcpy(r, m, size);
	/* the missing block follows the map once the standardization block is gone */
	if (miss)
		memcpy((char *) r + size, GSU_MODEL_MISS_MEAN(m), miss);
	SET_VARSIZE(r, size + miss);
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

/* ---------------------------------------------------------------- scoring */

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
	gsu_model_require_classifier(m, what);
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

bool
gsu_model_is_regression(const GsuModel *m)
{
	return gsu_loss_info(m->loss) != NULL && gsu_loss_info(m->loss)->regression;
}

void
gsu_model_require_classifier(const GsuModel *m, const char *what)
{
	if (gsu_model_is_regression(m))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes a classifier, not a regression model (loss \"%s\")",
						what, gsu_loss_name(m->loss)),
				 errhint("Score a regression model with gsu.decision(model, mean), its predicted value, "
						 "or gsu.predictive(model, mean, variance), with its standard deviation.")));
}

void
gsu_model_require_regression(const GsuModel *m, const char *what)
{
	if (!gsu_model_is_regression(m))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s takes a regression model, not a classifier (loss \"%s\")",
						what, gsu_loss_name(m->loss)),
				 errhint("Score a classifier with gsu.predict, gsu.confidence or gsu.decision; "
						 "train a regression model with gsu.train_regression.")));
}
