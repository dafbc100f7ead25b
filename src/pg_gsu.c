/*
 * pg_gsu.c — module entry point, settings, and validation of the arrays that
 * every SQL function receives.
 */
#include "gsu_pg.h"

#include <math.h>

#include "utils/guc.h"

PG_MODULE_MAGIC;

int			gsu_max_training_memory_kb = 1024 * 1024;

/* OpenBLAS must not start threads inside a backend */
extern void openblas_set_num_threads(int num_threads);

void		_PG_init(void);

void
_PG_init(void)
{
	openblas_set_num_threads(1);

	DefineCustomIntVariable("gsu.max_training_memory",
							"Upper bound on the memory a buffering gsu.train aggregate may use.",
							"Past it, training stops with an error; use the streaming solver "
							"(\"solver\": \"sgd\") for larger data.",
							&gsu_max_training_memory_kb,
							1024 * 1024,	/* 1 GB */
							64, PG_INT32_MAX / 2,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("gsu");
}

GsuVec
gsu_vec_from_array(ArrayType *a, const char *what)
{
	GsuVec		v;
	int			i;

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
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain NULL elements", what)));
	v.n = ARR_DIMS(a)[0];
	if (v.n > GSU_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has %d elements, more than the limit of %d",
						what, v.n, GSU_MAX_DIM)));
	v.data = (const double *) ARR_DATA_PTR(a);
	for (i = 0; i < v.n; i++)
	{
		if (unlikely(!isfinite(v.data[i])))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s element %d is %s", what, i + 1,
							isnan(v.data[i]) ? "NaN" :
							v.data[i] > 0 ? "Infinity" : "-Infinity"),
					 errdetail("Every element must be a finite number.")));
	}
	return v;
}

GsuVec
gsu_variance_from_array(ArrayType *a, int dim)
{
	GsuVec		v = gsu_vec_from_array(a, "variance");
	int			i;

	gsu_check_dims(v.n, dim, "variance");
	for (i = 0; i < v.n; i++)
	{
		if (unlikely(v.data[i] < 0.0))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("variance element %d is negative: %g", i + 1, v.data[i]),
					 errdetail("A variance must be zero or positive.")));
	}
	return v;
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
gsu_check_label(int32 label)
{
	if (label != 1 && label != -1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("label must be -1 or 1, not %d", label)));
	return (double) label;
}

void
gsu_check_dims(int got, int want, const char *what)
{
	if (got != want)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("%s has %d elements, expected %d", what, got, want)));
}
