/*
 * gsu_glue.c — the glue kit of gsu_glue.h: validation of the arrays every
 * SQL function receives, aggregate helpers, the value keys of the caches,
 * detoasting once, and core statuses, interrupts and bad serialized states
 * as errors; and the variables of the settings training reads (defined by
 * _PG_init in pg_gsu.c).
 */
#include "gsu_glue.h"

#include <float.h>
#include <math.h>

#include "access/detoast.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "utils/float.h"
#include "utils/memutils.h"

/* gsu.max_training_memory, bounded by its ceiling (pg_gsu.c keeps it so) */
int			gsu_max_training_memory_kb = GSU_TRAINING_MEMORY_DEFAULT_KB;
/* gsu.parallel_training */
bool		gsu_parallel_training = false;

/*
 * A new float8 array with uninitialized data and no NULLs: d0 elements
 * (ndim 1) or d0 × d1 (ndim 2).
 */
ArrayType *
gsu_new_float8_array(int ndim, int d0, int d1)
{
	Size		n = (Size) d0 * (ndim == 2 ? (Size) d1 : 1);
	Size		bytes = ARR_OVERHEAD_NONULLS(ndim) + n * sizeof(double);
	ArrayType  *a;

	if (!AllocSizeIsValid(bytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("result array of %zu elements exceeds the maximum allowed size", n)));
	a = (ArrayType *) palloc(bytes);
	SET_VARSIZE(a, bytes);
	a->ndim = ndim;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = d0;
	ARR_LBOUND(a)[0] = 1;
	if (ndim == 2)
	{
		ARR_DIMS(a)[1] = d1;
		ARR_LBOUND(a)[1] = 1;
	}
	return a;
}

ArrayType *
gsu_float8_array(const double *v, int n)
{
	ArrayType  *a = gsu_new_float8_array(1, n, 0);

	memcpy(ARR_DATA_PTR(a), v, sizeof(double) * n);
	return a;
}

/* see gsu_glue.h */
void
gsu_canonicalize_zeros(double *x, Size n)
{
	Size		i;

	for (i = 0; i < n; i++)
		x[i] += 0.0;
}

/* see gsu_glue.h */
GSU_HOT bool
gsu_canonicalize_finite(double *x, Size n)
{
	int			bad = 0;
	Size		i;

	for (i = 0; i < n; i++)
	{
		x[i] += 0.0;
		bad |= !(fabs(x[i]) <= DBL_MAX);
	}
	return bad == 0;
}

/*
 * Branch-free checks that the compiler vectorizes in the AVX2 copies of
 * their callers (GSU_HOT; bitwise & and |, never && or ||, whose short
 * circuit is a branch per element); the slow loops
 * that name the offending element run only when one fails.  |x| ≤ DBL_MAX
 * is false for ±Infinity and NaN alone.
 */
static inline bool
all_finite(const double *x, int n)
{
	int			bad = 0;
	int			i;

	for (i = 0; i < n; i++)
		bad |= !(fabs(x[i]) <= DBL_MAX);
	return bad == 0;
}

/* finite and ≥ 0 (a variance), in one pass: false for NaN, ±Infinity, < 0 */
static inline bool
all_finite_non_negative(const double *x, int n)
{
	int			bad = 0;
	int			i;

	for (i = 0; i < n; i++)
		bad |= ((x[i] >= 0.0) & (x[i] <= DBL_MAX)) ^ 1;
	return bad == 0;
}

/*
 * Ask for the row that a scan reads next.  A heap page is filled from its
 * end down, so in a table loaded in order the next row of a sequential scan
 * lies just below this one in memory, one row size apart; a row is mostly
 * its mean and variance arrays, about twice the mean's size.  Asking for the
 * row below this one while this one is worked on overlaps its misses with
 * that work (the hardware prefetcher does not follow a descending stream of
 * rows it has not seen), and a row that is reached (after the first of a
 * page) has been asked for already, so its own lines get no hint.  On
 * benchmark 1's table (bench/run.sh) one row ahead measured as fast as two,
 * three rows ahead slower, and hinting a row's own lines slower.  A prefetch is
 * only a hint: it never faults, and an array that is not in a heap page (a
 * detoasted copy, a constant) only costs the few instructions of the hint.
 */
static inline void
prefetch_following_row(const ArrayType *mean)
{
	const char *p = (const char *) mean;
	Size		row = Min(2 * (Size) VARSIZE(mean) + 64, 2048);
	Size		off;

	for (off = row; off < 2 * row; off += 64)
		__builtin_prefetch(p - off);
}

Datum
gsu_combine_first(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

MemoryContext
gsu_agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called by an aggregate", fn),
				 errhint("It is a support function of one of pg_gsu's aggregates; call the aggregate.")));
	return aggctx;
}


/*
 * The header checks of a float8[] row vector (not its elements); NULL
 * elements are an error unless allow_null.
 */
static GsuVec
vec_from_array_nulls(ArrayType *a, const char *what, bool allow_null)
{
	GsuVec		v;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s must be a float8 array", what)));
	if (ARR_NDIM(a) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s must not be empty", what)));
	if (ARR_NDIM(a) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array, not %d-dimensional",
						what, ARR_NDIM(a))));
	if (ARR_HASNULL(a) && !allow_null)
	{
		if (strcmp(what, "mean") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("mean must not contain NULL elements"),
					 errhint("A missing value is read as an uncertain one only by gsu.train, gsu.train_regression, gsu.fit and the sgd aggregates (gsu.train_sgd, gsu.train_regression_sgd and their partials) with the option \"missing\": \"feature_moments\", and by the scoring functions of a model trained so.")));
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain NULL elements", what)));
	}
	v.n = ARR_DIMS(a)[0];
	if (v.n > GSU_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has %d elements, more than the limit of %d",
						what, v.n, GSU_MAX_DIM)));
	v.data = (const double *) ARR_DATA_PTR(a);
	return v;
}

static GsuVec
vec_from_array(ArrayType *a, const char *what)
{
	return vec_from_array_nulls(a, what, false);
}

/*
 * The elements of a checked 1-D float8[] with NULLs into a palloc'd copy,
 * NaN at each NULL; *nnull counts them.  A stored element that is not
 * finite is an error (what names the array): NaN stands for NULL only,
 * unless nan_missing, when a stored NaN is missing too (counted; ±Infinity
 * stays an error).
 */
static double *
unpack_missing(ArrayType *a, int n, int *nnull, const char *what, bool nan_missing)
{
	double	   *out = palloc(sizeof(double) * Max(n, 1));
	const double *src = (const double *) ARR_DATA_PTR(a);
	bits8	   *bitmap = ARR_NULLBITMAP(a);
	int			i;

	*nnull = 0;
	for (i = 0; i < n; i++)
	{
		if (bitmap && !(bitmap[i / 8] & (1 << (i % 8))))
		{
			out[i] = get_float8_nan();
			(*nnull)++;
		}
		else
		{
			out[i] = *src++;
			if (unlikely(nan_missing && isnan(out[i])))
				(*nnull)++;
			else if (unlikely(!isfinite(out[i])))
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("%s element %d is %s", what, i + 1,
								isnan(out[i]) ? "NaN" : out[i] > 0 ? "Infinity" : "-Infinity"),
						 errdetail("Every element must be a finite number.")));
		}
	}
	return out;
}

/* the error for the first element of v that is not finite; returns if none */
static void
report_not_finite(GsuVec v, const char *what)
{
	int			i;

	for (i = 0; i < v.n; i++)
		if (!isfinite(v.data[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s element %d is %s", what, i + 1,
							isnan(v.data[i]) ? "NaN" :
							v.data[i] > 0 ? "Infinity" : "-Infinity"),
					 errdetail("Every element must be a finite number.")));
}

GSU_HOT GsuVec
gsu_vec_from_array(ArrayType *a, const char *what)
{
	GsuVec		v = vec_from_array(a, what);

	prefetch_following_row(a);
	if (unlikely(!all_finite(v.data, v.n)))
		report_not_finite(v, what);
	return v;
}

GsuVec
gsu_vec_from_array_nulls(ArrayType *a, const char *what, int *nnull)
{
	GsuVec		v;

	*nnull = 0;
	if (!ARR_HASNULL(a))
		return gsu_vec_from_array(a, what);
	v = vec_from_array_nulls(a, what, true);
	v.data = unpack_missing(a, v.n, nnull, what, false);
	return v;
}

GSU_HOT GsuVec
gsu_vec_from_array_or_missing(ArrayType *a, const char *what, int *nmissing)
{
	GsuVec		v;

	*nmissing = 0;
	if (likely(!ARR_HASNULL(a)))
	{
		v = vec_from_array(a, what);
		prefetch_following_row(a);
		if (likely(all_finite(v.data, v.n)))
			return v;
	}
	v = vec_from_array_nulls(a, what, true);
	v.data = unpack_missing(a, v.n, nmissing, what, true);
	return v;
}

GsuVec
gsu_vec_from_array_missing(ArrayType *a, const char *what, bool nan_missing, int *nmissing)
{
	GsuVec		v;

	*nmissing = 0;
	if (!nan_missing)
		return gsu_vec_from_array_nulls(a, what, nmissing);
	v = vec_from_array_nulls(a, what, true);
	if (!ARR_HASNULL(a) && all_finite(v.data, v.n))
		return v;
	v.data = unpack_missing(a, v.n, nmissing, what, true);
	return v;
}

GsuVec
gsu_variance_from_array_nulls(ArrayType *a, int dim, const double *mean)
{
	GsuVec		v;
	double	   *out;
	int			nnull,
				i;

	if (!ARR_HASNULL(a))
		return gsu_variance_from_array(a, dim);
	v = vec_from_array_nulls(a, "variance", true);
	gsu_check_dims(v.n, dim, "variance");
	out = unpack_missing(a, v.n, &nnull, "variance", false);
	for (i = 0; i < v.n; i++)
	{
		if (isnan(out[i]) && !isnan(mean[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("variance element %d is NULL, but mean element %d is not", i + 1, i + 1),
					 errdetail("A NULL variance element is allowed only where the mean element is missing (NULL, or NaN with \"missing_nan\").")));
		if (isnan(out[i]))
			out[i] = 0.0;
		else if (out[i] < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("variance element %d is negative: %g", i + 1, out[i]),
					 errdetail("A variance must be zero or positive.")));
	}
	v.data = out;
	return v;
}

GSU_HOT GsuVec
gsu_variance_from_array(ArrayType *a, int dim)
{
	GsuVec		v = vec_from_array(a, "variance");
	bool		ok = all_finite_non_negative(v.data, v.n);
	int			i;

	/* a non-finite element is reported before a wrong length, a negative one after */
	if (unlikely(!ok))
		report_not_finite(v, "variance");
	gsu_check_dims(v.n, dim, "variance");
	if (unlikely(!ok))
	{
		for (i = 0; i < v.n; i++)
			if (v.data[i] < 0.0)
				ereport(ERROR,
						(errcode(ERRCODE_DATA_EXCEPTION),
						 errmsg("variance element %d is negative: %g", i + 1, v.data[i]),
						 errdetail("A variance must be zero or positive.")));
	}
	return v;
}

/*
 * A d × r float8[] (r < d): the factor L of Σ = L Lᵀ, positive
 * semi-definite by construction, so only NULLs and non-finite elements
 * are checked.
 */
static GsuRowCov
factor_from_array(ArrayType *a, int dim)
{
	GsuRowCov	c;
	const double *data;
	int			r = ARR_DIMS(a)[1];
	Size		n = (Size) dim * r,
				i;

	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("variance must not contain NULL elements")));
	data = (const double *) ARR_DATA_PTR(a);
	for (i = 0; i < n; i++)
		if (unlikely(!isfinite(data[i])))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("covariance factor element [%d][%d] is not finite",
							(int) (i / r) + 1, (int) (i % r) + 1),
					 errdetail("Every element must be a finite number.")));
	c.kind = GSU_COV_FACTOR;
	c.iso = 0.0;
	c.data = data;
	c.rank = r;
	return c;
}

void
gsu_cov_no_factor(const GsuRowCov *rc, const char *func)
{
	if (rc->kind == GSU_COV_FACTOR)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not support a covariance factor", func),
				 errdetail("A variance of dim x %d elements is the factor L of Sigma = L L^T.",
						   rc->rank),
				 errhint("Pass the full covariance L L^T (dim x dim) instead.")));
}

GsuRowCov
gsu_cov_from_array(ArrayType *a, int dim)
{
	GsuRowCov	c;
	const double *data;
	int			n,
				i;
	double		min_eig = 0.0;
	gsu_status	st;

	if (ARR_NDIM(a) > 2)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("variance must be a 1-D array (diagonal) or a 2-D array (full covariance), not %d-dimensional",
						ARR_NDIM(a))));
	c.rank = 0;
	if (ARR_NDIM(a) != 2)
	{
		c.kind = GSU_COV_DIAG;
		c.iso = 0.0;
		c.data = gsu_variance_from_array(a, dim).data;
		return c;
	}
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("variance must be a float8 array")));
	if (ARR_DIMS(a)[0] == dim && ARR_DIMS(a)[1] >= 1 && ARR_DIMS(a)[1] < dim)
		return factor_from_array(a, dim);
	if (ARR_DIMS(a)[0] != dim || ARR_DIMS(a)[1] != dim)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("covariance is %dx%d, expected %dx%d",
						ARR_DIMS(a)[0], ARR_DIMS(a)[1], dim, dim)));
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("variance must not contain NULL elements")));
	data = (const double *) ARR_DATA_PTR(a);
	n = dim * dim;
	for (i = 0; i < n; i++)
		if (unlikely(!isfinite(data[i])))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("covariance element [%d][%d] is not finite", i / dim + 1, i % dim + 1),
					 errdetail("Every element must be a finite number.")));
	st = gsu_covariance_check(dim, data, GSU_COV_TOLERANCE, &min_eig);
	if (st == GSU_ENOTSYMMETRIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("covariance matrix is not symmetric"),
				 errdetail("Entries [j][k] and [k][j] must agree to %g of the largest diagonal entry.",
						   GSU_COV_TOLERANCE)));
	if (st == GSU_ENOTPSD)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("covariance matrix is not positive semi-definite: smallest eigenvalue %g",
						min_eig)));
	gsu_report_data_status(st, "the covariance check", "could not check the covariance matrix");
	c.kind = GSU_COV_FULL;
	c.iso = 0.0;
	c.data = data;
	return c;
}

GsuRowCov
gsu_prepare_cov(GsuRowCov rc, const double **x, int loss, double p, int mode, int dim,
				double *scratch, double *mean_scratch)
{
	gsu_status	s = GSU_OK;
	double	   *mean = NULL;
	int			j;

	if (!gsu_loss_info(loss)->uses_covariance || (rc.kind == GSU_COV_ISO && rc.iso == 0.0))
		rc.kind = GSU_COV_NONE;
	else if (rc.kind == GSU_COV_DIAG || rc.kind == GSU_COV_FULL || rc.kind == GSU_COV_FACTOR)
	{
		/* an all-zero covariance is a certain row: keeps hinge data exact */
		Size		count = gsu_cov_doubles(rc.kind, dim, rc.rank);
		Size		i;

		for (i = 0; i < count && rc.data[i] == 0.0; i++)
			;
		if (i == count)
			rc.kind = GSU_COV_NONE;
	}
	if (p >= 1.0 || rc.kind == GSU_COV_NONE)
		return rc;
	if (mode == GSU_SUBSPACE_GAUSSIAN)
	{
		/* the paper's z = P x: the mean is projected onto the kept span too */
		memcpy(mean_scratch, *x, sizeof(double) * dim);
		mean = mean_scratch;
	}
	if (rc.kind == GSU_COV_FULL)
	{
		memcpy(scratch, rc.data, sizeof(double) * dim * dim);
		s = gsu_subspace_full(dim, scratch, mean, p, NULL);
	}
	else if (rc.kind == GSU_COV_FACTOR)
	{
		/* the kept part's factor: still dim × rank, O(dim · rank²) */
		memcpy(scratch, rc.data, sizeof(double) * gsu_cov_doubles(rc.kind, dim, rc.rank));
		s = gsu_subspace_factor(dim, rc.rank, scratch, mean, p, NULL);
	}
	else
	{
		/* iso·I has equal eigenvalues: the lower axes are kept first */
		for (j = 0; j < dim; j++)
			scratch[j] = rc.kind == GSU_COV_DIAG ? rc.data[j] : rc.iso;
		rc.kind = GSU_COV_DIAG;
		s = gsu_subspace_diag(dim, scratch, mean, p, NULL);
	}
	gsu_report_data_status(s, "the subspace restriction",
						   "could not restrict a covariance to its subspace");
	rc.data = scratch;
	if (mean)
		*x = mean;
	return rc;
}

void
gsu_check_iso_variance(double s)
{
	if (!isfinite(s) || s < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("variance must be a finite non-negative number, not %g", s)));
}

double
gsu_check_row_weight(double weight)
{
	if (!isfinite(weight) || weight < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("weight must be a finite non-negative number, not %g", weight)));
	return weight;
}

double
gsu_check_label(int32 label)
{
	if (label != 1 && label != -1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("label must be -1 or 1, not %d", label)));
	return (double) label;
}

void
gsu_check_two_classes(int64 n, int64 n_pos, const char *what)
{
	if (n_pos == 0 || n_pos == n)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s data has only one class: every one of the " INT64_FORMAT
						" rows has label %d", what, n, n_pos ? 1 : -1),
				 errdetail("A classifier needs rows of both labels, -1 and 1.")));
}

void
gsu_check_dims(int got, int want, const char *what)
{
	if (got != want)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has %d elements, expected %d", what, got, want)));
}

/* see gsu_glue.h */
bool
gsu_varlena_same(const struct varlena *plain, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *v = pg_detoast_datum_packed(raw);
	bool		same = VARSIZE_ANY_EXHDR(v) == VARSIZE(plain) - VARHDRSZ &&
		memcmp(VARDATA_ANY(v), VARDATA(plain), VARSIZE(plain) - VARHDRSZ) == 0;

	if (v != raw)
		pfree(v);
	return same;
}

/* see gsu_glue.h */
struct varlena *
gsu_varlena_copy(MemoryContext mcxt, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *v = pg_detoast_datum_packed(raw);
	Size		len = VARSIZE_ANY_EXHDR(v);
	struct varlena *copy = MemoryContextAlloc(mcxt, len + VARHDRSZ);

	SET_VARSIZE(copy, len + VARHDRSZ);
	memcpy(VARDATA(copy), VARDATA_ANY(v), len);
	if (v != raw)
		pfree(v);
	return copy;
}

/* see gsu_glue.h */
bool
gsu_arg_memo_same(FunctionCallInfo fcinfo, int argno, const GsuArgMemo *memo)
{
	bool		isnull = PG_NARGS() <= argno || PG_ARGISNULL(argno);

	return memo->set && memo->isnull == isnull &&
		(isnull || gsu_varlena_same(memo->bytes, PG_GETARG_DATUM(argno)));
}

/* see gsu_glue.h */
void
gsu_arg_memo_set(FunctionCallInfo fcinfo, int argno, GsuArgMemo *memo)
{
	memo->set = false;
	if (memo->bytes)
		pfree(memo->bytes);
	memo->bytes = NULL;
	memo->isnull = PG_NARGS() <= argno || PG_ARGISNULL(argno);
	if (!memo->isnull)
		memo->bytes = gsu_varlena_copy(fcinfo->flinfo->fn_mcxt, PG_GETARG_DATUM(argno));
	memo->set = true;
}

/* ------------------------------------------------------- detoasting once */

struct GsuDetoastCache
{
	bool		external;		/* keyed by ext, else by the compressed bytes in key */
	struct varatt_external ext;
	struct varlena *key;
	struct varlena *value;		/* the detoasted copy; NULL when empty */
};

/* see gsu_glue.h */
struct varlena *
gsu_detoast_cache_get(GsuDetoastCache **slot, MemoryContext mcxt, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	GsuDetoastCache *c = *slot;
	struct varatt_external ext;
	bool		external;
	MemoryContext old;

	if (!VARATT_IS_EXTENDED(raw))
		return raw;
	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		external = true;
		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		if (c && c->value && c->external && memcmp(&c->ext, &ext, sizeof(ext)) == 0)
			return c->value;
	}
	else if (VARATT_IS_COMPRESSED(raw))
	{
		external = false;
		if (c && c->value && !c->external && VARSIZE_ANY(raw) == VARSIZE_ANY(c->key) &&
			memcmp(raw, c->key, VARSIZE_ANY(raw)) == 0)
			return c->value;
	}
	else
		return pg_detoast_datum(raw);	/* short header or in memory: cheap */

	if (c == NULL)
		c = *slot = MemoryContextAllocZero(mcxt, sizeof(GsuDetoastCache));
	if (c->value)
		pfree(c->value);
	if (c->key)
		pfree(c->key);
	c->value = c->key = NULL;

	old = MemoryContextSwitchTo(mcxt);
	c->external = external;
	if (external)
		c->ext = ext;
	else
	{
		c->key = palloc(VARSIZE_ANY(raw));
		memcpy(c->key, raw, VARSIZE_ANY(raw));
	}
	c->value = pg_detoast_datum(raw);
	MemoryContextSwitchTo(old);
	return c->value;
}

/* see gsu_glue.h */
struct varlena *
gsu_detoast_cached(FunctionCallInfo fcinfo, int argno)
{
	return gsu_detoast_cache_get((GsuDetoastCache **) &fcinfo->flinfo->fn_extra,
								 fcinfo->flinfo->fn_mcxt, PG_GETARG_DATUM(argno));
}

/* ------------------------------------------------------- core status */

int
gsu_interrupt_pending(void *arg)
{
	(void) arg;
	return QueryCancelPending || ProcDiePending;
}

void
gsu_report_status(gsu_status s, const char *what)
{
	switch (s)
	{
		case GSU_OK:
			return;
		case GSU_ECANCELLED:
			CHECK_FOR_INTERRUPTS();
			/* the interrupt was held off or already served: cancel anyway */
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("canceling %s because of an interrupt", what)));
			break;
		case GSU_ENOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in %s", what)));
			break;
		case GSU_ENOTFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s produced a value that is not finite", what),
					 errhint("Scale the features to a moderate range.")));
			break;
		default:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("%s failed: %s", what, gsu_status_string(s))));
}

void
gsu_report_data_status(gsu_status s, const char *what, const char *message)
{
	if (s == GSU_OK)
		return;
	if (s == GSU_ECANCELLED || s == GSU_ENOMEM || s == GSU_ENOTFINITE)
		gsu_report_status(s, what);
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("%s: %s", message, gsu_status_string(s))));
}

/* see gsu_glue.h */
void
gsu_wire_error(const char *agg, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid serialized %s state: %s", agg, what)));
}
