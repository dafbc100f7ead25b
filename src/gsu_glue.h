/*
 * gsu_glue.h — the kit every file of the PostgreSQL glue shares: arguments
 * read from SQL arrays (vectors, variances, covariances) and their checks,
 * aggregate helpers, detoasting once per value, and the one way a core
 * status, an interrupt or a bad serialized state becomes an error.
 */
#ifndef GSU_GLUE_H
#define GSU_GLUE_H

#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "core/gsu_core.h"

/* the largest vector dimension a SQL argument or a stored value may have */
#define GSU_MAX_DIM 1000000

/* ------------------------------------------------------- aggregates */

/*
 * Whether varlena datum d holds the same bytes as plain, a value kept to
 * recognise it on a later row or call (detoasted, with a 4-byte header: a
 * copy made by gsu_varlena_copy).  A cache of what was read from an argument
 * is keyed so, on the value: never on the datum's address, which the
 * executor reuses for other values (a computed argument from row to row, a
 * PL/pgSQL variable from call to call), whatever the argument looks like.
 */
bool		gsu_varlena_same(const struct varlena *plain, Datum d);

/* A detoasted copy of varlena datum d in mcxt, with a 4-byte header. */
struct varlena *gsu_varlena_copy(MemoryContext mcxt, Datum d);

/*
 * The value of a varlena argument from which a function parsed something
 * (kept in its fn_extra): gsu_arg_memo_same says whether argument argno
 * still holds it (NULL included, and an argument the call does not have,
 * an overload without it, reads as NULL); gsu_arg_memo_set remembers argument
 * argno's value once what was parsed from it has passed its checks.  What
 * was parsed is so parsed again exactly when the value changes.
 */
typedef struct GsuArgMemo
{
	bool		set;
	bool		isnull;
	struct varlena *bytes;		/* in fn_mcxt */
} GsuArgMemo;

bool		gsu_arg_memo_same(FunctionCallInfo fcinfo, int argno, const GsuArgMemo *memo);
void		gsu_arg_memo_set(FunctionCallInfo fcinfo, int argno, GsuArgMemo *memo);

/*
 * What a combine function returns when its second state adds nothing: its
 * first state, or NULL when that is NULL.
 */
Datum		gsu_combine_first(FunctionCallInfo fcinfo);

/* The aggregate's memory context; an error when fn is called outside an aggregate. */
MemoryContext gsu_agg_context(FunctionCallInfo fcinfo, const char *fn);
void		gsu_advise_huge_pages(void *p, Size bytes);

/* ------------------------------------------------- detoasting once */
/*
 * A detoasted copy of a varlena argument, kept in a function's fn_mcxt and
 * keyed by what identifies the stored value — the TOAST pointer (a value
 * stored out of line is immutable, and its relation and value OID name no
 * other value while it exists: the OID is given again only after the value
 * is deleted and the 32-bit OID counter has come round) or the compressed
 * bytes themselves (compressed in line) — never by the datum's address, which
 * the executor reuses for other values from row to row and PL/pgSQL from
 * call to call.
 */
typedef struct GsuDetoastCache GsuDetoastCache;

/*
 * The detoasted value of datum d, detoasted at most once per distinct stored
 * value for as long as *slot lives (in mcxt).  Values that are not toasted
 * are returned in place, short-header or in-memory ones detoasted without
 * caching.  Never modify the result.
 */
struct varlena *gsu_detoast_cache_get(GsuDetoastCache **slot, MemoryContext mcxt, Datum d);

/* gsu_detoast_cache_get for argument argno, with the cache in fn_extra */
struct varlena *gsu_detoast_cached(FunctionCallInfo fcinfo, int argno);

/* ------------------------------------------------------------ arrays */

/* A validated float8 vector read in place from an array. */
typedef struct GsuVec
{
	int			n;
	const double *data;
} GsuVec;

/*
 * Reads a 1-D float8[] argument in place: non-empty, no NULL elements,
 * every element finite (what names the argument in messages).
 */
GsuVec		gsu_vec_from_array(ArrayType *a, const char *what);

/*
 * A variance argument: a 1-D float8[] of dim non-negative finite values.
 * The caller handles NULL (a certain row).
 */
/*
 * gsu_vec_from_array allowing NULL elements (option "missing"): a palloc'd
 * copy with NaN at each NULL, *nnull their count (without NULLs, the array's
 * own data and 0).  The other elements are checked finite.
 */
GsuVec		gsu_vec_from_array_nulls(ArrayType *a, const char *what, int *nnull);
/*
 * The mean of a row under option "missing": gsu_vec_from_array_nulls, and
 * with nan_missing ("missing_nan") a stored NaN element is missing too: a
 * palloc'd copy with NaN at each missing element, *nmissing their count
 * (none: the array's own data and 0).  ±Infinity stays an error.
 */
GsuVec		gsu_vec_from_array_missing(ArrayType *a, const char *what, bool nan_missing, int *nmissing);
/*
 * gsu_vec_from_array on the hot path of a row whose missing elements are
 * known to be allowed only later (gsu.fit's passes, whose model says): NULL
 * and NaN elements are counted in *nmissing (NaN in a copy) instead of
 * refused; ±Infinity stays an error.  The caller that finds them not allowed
 * calls gsu_vec_from_array for the error.
 */
GsuVec		gsu_vec_from_array_or_missing(ArrayType *a, const char *what, int *nmissing);
/*
 * gsu_variance_from_array of a row whose mean (dim doubles, NaN where
 * missing) may have missing elements: a NULL variance element is allowed
 * only where the mean is missing, and reads as 0 (a palloc'd copy).
 */
GsuVec		gsu_variance_from_array_nulls(ArrayType *a, int dim, const double *mean);
GsuVec		gsu_variance_from_array(ArrayType *a, int dim);

/*
 * A new float8 array with uninitialized data and no NULLs: d0 elements
 * (ndim 1) or d0 × d1 (ndim 2).
 */
ArrayType  *gsu_new_float8_array(int ndim, int d0, int d1);

/* An isotropic variance: finite and non-negative. */
void		gsu_check_iso_variance(double s);

/* The covariance of one row, as the SQL functions receive it: the core's (gsu_core.h). */
typedef gsu_cov_kind GsuCovKind;
typedef gsu_cov GsuRowCov;

/*
 * A variance argument of dimension dim: a 1-D float8[] (diagonal), a 2-D
 * dim×dim float8[] (full covariance, checked symmetric and positive
 * semi-definite within GSU_COV_TOLERANCE relative) or a 2-D dim×r float8[]
 * with r < dim (GSU_COV_FACTOR: the factor L of Σ = L Lᵀ, recognised from
 * its shape alone; only its elements' finiteness is checked).
 */
GsuRowCov	gsu_cov_from_array(ArrayType *a, int dim);

/* The error (0A000) of a function, named func, that takes no covariance factor. */
void		gsu_cov_no_factor(const GsuRowCov *rc, const char *func);

#define GSU_COV_TOLERANCE 1e-8

/*
 * The values of the option "subspace_mode" (gsu_prepare_cov's mode): with
 * subspace_fraction p < 1, each row's Gaussian N(x, Σ) is restricted to the
 * span U_k of its leading eigenvectors.  "covariance" (the default since
 * 0.2.0: the reading that reproduces the paper's results) restricts the
 * covariance and keeps the mean, N(x, U_kΛ_kU_kᵀ); "gaussian" (Tzelepis et
 * al. eqs. 9-12 as printed) projects the whole Gaussian, N(U_kU_kᵀx,
 * U_kΛ_kU_kᵀ).  The value 0 is "covariance", so that the zero bytes of the
 * older formats of gsu.model read as it.
 */
#define GSU_SUBSPACE_COVARIANCE 0
#define GSU_SUBSPACE_GAUSSIAN 1

/*
 * The Gaussian the loss sees for a row: no covariance for the plain hinge
 * loss, and with a subspace fraction p < 1 the restriction to the leading
 * eigen-directions (gsu_subspace_diag/full/factor), the covariance written
 * into scratch (dim doubles for a diagonal or isotropic row, dim × dim for a
 * full one, dim × rank for a factor, which stays a factor of that rank).  mode (GSU_SUBSPACE_*) says whether the mean
 * *x is projected too ("gaussian": then *x points to mean_scratch, dim
 * doubles, on return) or kept ("covariance").  p = 1 and a row without
 * covariance leave the row alone in both modes.
 */
GsuRowCov	gsu_prepare_cov(GsuRowCov rc, const double **x, int loss, double p, int mode,
							int dim, double *scratch, double *mean_scratch);

/* −1/+1 */
double		gsu_check_label(int32 label);

/* a row's weight (gsu.train's weighted form, the weighted passes): finite and >= 0, else an error */
double		gsu_check_row_weight(double weight);

void		gsu_check_dims(int got, int want, const char *what);

/* n rows of which n_pos have label 1 must hold both labels ("training" data, …). */
void		gsu_check_two_classes(int64 n, int64 n_pos, const char *what);

/*
 * A core status of a computation on user data: cancel, out of memory and
 * overflow as gsu_report_status reports them (what names the operation),
 * any other failure as a data exception "message: <status>".
 */
void		gsu_report_data_status(gsu_status s, const char *what, const char *message);

/* An error (22P03) for a bad serialized state of aggregate agg: "invalid serialized <agg> state: <what>". */
void		gsu_wire_error(const char *agg, const char *what) pg_attribute_noreturn();

/* ------------------------------------------------------- core status */

/*
 * The core's progress callback (gsu_progress_fn) for a backend: non-zero
 * when a cancel, a statement timeout or a termination is pending, so that
 * the core stops and returns GSU_ECANCELLED.
 */
int			gsu_interrupt_pending(void *arg);

/*
 * ereports a core status other than GSU_OK (returns for GSU_OK); what names
 * the operation, e.g. "gsu.train".  GSU_ECANCELLED runs CHECK_FOR_INTERRUPTS,
 * which raises the pending cancel (statement timeout, pg_cancel_backend) or
 * termination as PostgreSQL itself would.
 */
void		gsu_report_status(gsu_status s, const char *what);

/*
 * The memory bound of training, in kB, that every memory check reads: the
 * smaller of gsu.max_training_memory (the session's) and
 * gsu.max_training_memory_ceiling (the administrator's), kept so by the two
 * settings' assign hooks (pg_gsu.c).  Read it, never assign it.
 */
extern int	gsu_max_training_memory_kb;
extern bool gsu_parallel_training;
#define GSU_TRAINING_MEMORY_DEFAULT_KB (1024 * 1024)	/* 1 GB, both settings' default */

/* Largest refset and projection payload: a varlena holds at most 1 GB. */
#define GSU_GEU_MAX_VARLENA ((Size) MaxAllocSize - VARHDRSZ)

/* A float8[] from n doubles. */
ArrayType  *gsu_float8_array(const double *v, int n);

/*
 * The canonical form of a stored double: −0 becomes +0 (x + 0.0), as text
 * (JSON) cannot keep the sign of zero, so that a value's text and binary
 * round trips give the same bytes.  Every input and recv function of a type
 * and every aggregate that stores its input values puts the stored doubles
 * in this form (gsu.model, gsu.projection, gsu.partial, gsu.refset).
 */
static inline double
gsu_canonical_zero(double x)
{
	return x + 0.0;
}

/* gsu_canonical_zero on n doubles in place */
void		gsu_canonicalize_zeros(double *x, Size n);

/*
 * gsu_canonicalize_zeros, and whether all n doubles are finite, in one pass
 * that vectorizes (a per-row check of a streaming state)
 */
bool		gsu_canonicalize_finite(double *x, Size n);

#endif							/* GSU_GLUE_H */
