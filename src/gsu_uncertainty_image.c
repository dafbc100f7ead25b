/*
 * gsu_uncertainty_image.c — the Gaussian of an image's small random translations
 * (Tzelepis et al., TPAMI 2018, Appendix B): per-pixel variance and full
 * covariance σ² J Jᵀ, J the n×2 matrix of spatial gradients.  The math is in
 * src/core/gsu_image.c; this file checks the arguments.
 *
 * An image is a float8[] in row-major order with its width and height, or a
 * two-dimensional float8[] of height rows and width columns.
 */
#include "gsu_glue.h"
#include "core/gsu_image.h"

#include <math.h>

#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_image_variance_fn);
PG_FUNCTION_INFO_V1(gsu_image_variance_2d_fn);
PG_FUNCTION_INFO_V1(gsu_image_covariance_fn);
PG_FUNCTION_INFO_V1(gsu_image_covariance_2d_fn);
PG_FUNCTION_INFO_V1(gsu_image_covariance_factor_fn);
PG_FUNCTION_INFO_V1(gsu_image_covariance_factor_2d_fn);

/* The covariance has n² entries: 128 MB at this many pixels. */
#define GSU_IMAGE_MAX_COVARIANCE_PIXELS 4096

typedef struct GsuImage
{
	int			w;
	int			h;
	int			ndim;			/* of the argument: 1 or 2 */
	const double *px;
} GsuImage;

/*
 * The image argument.  With sizes (width, height given): a 1-D array of
 * width·height pixels, or a 2-D array of exactly height × width.  Without:
 * a 2-D array, height × width.
 */
static GsuImage
image_arg(ArrayType *a, bool sized, int32 width, int32 height)
{
	GsuImage	im;
	int			ndim = ARR_NDIM(a);
	int64		n;
	int64		i;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("image must be a float8 array")));
	if (sized && width < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width must be positive, not %d", width)));
	if (sized && height < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("height must be positive, not %d", height)));
	if (ndim == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("image must not be empty")));
	if (ndim > 2 || (!sized && ndim != 2))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("image must be a %s array, not %d-dimensional",
						sized ? "one- or two-dimensional" : "two-dimensional", ndim),
				 sized ? 0 : errhint("Pass width and height for a one-dimensional image in row-major order.")));
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("image must not contain NULL elements")));

	im.ndim = ndim;
	if (ndim == 2)
	{
		im.h = ARR_DIMS(a)[0];
		im.w = ARR_DIMS(a)[1];
		if (sized && (im.w != width || im.h != height))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("image has %d rows of %d pixels, but height %d and width %d were given",
							im.h, im.w, height, width)));
	}
	else
	{
		n = (int64) width * (int64) height;
		if (ARR_DIMS(a)[0] != n)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("image has %d pixels, but width * height is %d * %d = " INT64_FORMAT,
							ARR_DIMS(a)[0], width, height, n)));
		im.w = width;
		im.h = height;
	}
	im.px = (const double *) ARR_DATA_PTR(a);
	n = (int64) im.w * im.h;
	for (i = 0; i < n; i++)
		if (unlikely(!isfinite(im.px[i])))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("image pixel (x %d, y %d) is %s",
							(int) (i % im.w), (int) (i / im.w),
							isnan(im.px[i]) ? "NaN" : im.px[i] > 0 ? "Infinity" : "-Infinity"),
					 errdetail("Every pixel must be a finite number; x counts columns and y rows from 0.")));
	return im;
}

static void
check_sigma2(double s2)
{
	if (!isfinite(s2) || s2 < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("translation variance must be a finite non-negative number, not %g", s2)));
}

static void
report_core_error(gsu_status s)
{
	if (s == GSU_ENOTFINITE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("image translation variance overflows double precision"),
				 errdetail("The pixel differences or the translation variance are too large for a variance to be represented.")));
	gsu_report_status(s, "image uncertainty");
}


/* Per-pixel variances, shaped like the image argument. */
static Datum
image_variance(GsuImage im, double s2)
{
	ArrayType  *out;
	gsu_status	s;

	check_sigma2(s2);
	if (im.ndim == 2)
		out = gsu_new_float8_array(2, im.h, im.w);
	else
		out = gsu_new_float8_array(1, im.w * im.h, 0);
	s = gsu_image_variance(im.w, im.h, im.px, s2, (double *) ARR_DATA_PTR(out));
	if (s != GSU_OK)
		report_core_error(s);
	PG_RETURN_ARRAYTYPE_P(out);
}

/* The n×n covariance, n = width·height, pixels in row-major order. */
static Datum
image_covariance(GsuImage im, double s2)
{
	int64		n = (int64) im.w * im.h;
	double	   *gx,
			   *gy;
	ArrayType  *out;
	gsu_status	s;

	check_sigma2(s2);
	if (n > GSU_IMAGE_MAX_COVARIANCE_PIXELS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("image has " INT64_FORMAT " pixels, more than the limit of %d for a full covariance",
						n, GSU_IMAGE_MAX_COVARIANCE_PIXELS),
				 errdetail("The covariance of n pixels has n^2 entries."),
				 errhint("Use gsu.image_variance for the per-pixel variances, or downsample the image.")));
	gx = palloc(sizeof(double) * n);
	gy = palloc(sizeof(double) * n);
	s = gsu_image_gradient(im.w, im.h, im.px, gx, gy);
	if (s != GSU_OK)
		report_core_error(s);
	out = gsu_new_float8_array(2, (int) n, (int) n);
	s = gsu_image_covariance((size_t) n, gx, gy, s2, (double *) ARR_DATA_PTR(out));
	if (s != GSU_OK)
		report_core_error(s);
	pfree(gx);
	pfree(gy);
	PG_RETURN_ARRAYTYPE_P(out);
}

/*
 * The covariance's factor L (n × 2: the columns σ·g_x and σ·g_y), Σ = LLᵀ:
 * 2n doubles where the covariance has n², the form gsu.train reads in
 * O(n) a row.  An image of fewer than 3 pixels has no such factor: its
 * n × 2 array would read as a full n × n covariance (n = 2) or be wider
 * than tall.
 */
static Datum
image_covariance_factor(GsuImage im, double s2)
{
	int64		n = (int64) im.w * im.h;
	double	   *gx,
			   *gy;
	ArrayType  *out;
	gsu_status	s;

	check_sigma2(s2);
	if (n < 3)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("image has " INT64_FORMAT " pixels, fewer than the 3 of a covariance factor", n),
				 errdetail("A factor is an n x 2 array with 2 < n: with fewer pixels it would read as a full covariance."),
				 errhint("Use gsu.image_covariance for the full n x n covariance.")));
	if (n > MaxAllocSize / sizeof(double) / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("image has " INT64_FORMAT " pixels, too many for a covariance factor", n)));
	gx = palloc(sizeof(double) * n);
	gy = palloc(sizeof(double) * n);
	s = gsu_image_gradient(im.w, im.h, im.px, gx, gy);
	if (s != GSU_OK)
		report_core_error(s);
	out = gsu_new_float8_array(2, (int) n, 2);
	s = gsu_image_covariance_factor((size_t) n, gx, gy, s2, (double *) ARR_DATA_PTR(out));
	if (s != GSU_OK)
		report_core_error(s);
	pfree(gx);
	pfree(gy);
	PG_RETURN_ARRAYTYPE_P(out);
}

/* gsu.image_covariance_factor(image float8[], width int4, height int4, sigma2 float8) */
Datum
gsu_image_covariance_factor_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), true, PG_GETARG_INT32(1),
							   PG_GETARG_INT32(2));

	return image_covariance_factor(im, PG_GETARG_FLOAT8(3));
}

/* gsu.image_covariance_factor(image float8[][], sigma2 float8) */
Datum
gsu_image_covariance_factor_2d_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), false, 0, 0);

	return image_covariance_factor(im, PG_GETARG_FLOAT8(1));
}

/* gsu.image_variance(image float8[], width int4, height int4, sigma2 float8) */
Datum
gsu_image_variance_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), true, PG_GETARG_INT32(1),
							   PG_GETARG_INT32(2));

	return image_variance(im, PG_GETARG_FLOAT8(3));
}

/* gsu.image_variance(image float8[][], sigma2 float8) */
Datum
gsu_image_variance_2d_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), false, 0, 0);

	return image_variance(im, PG_GETARG_FLOAT8(1));
}

/* gsu.image_covariance(image float8[], width int4, height int4, sigma2 float8) */
Datum
gsu_image_covariance_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), true, PG_GETARG_INT32(1),
							   PG_GETARG_INT32(2));

	return image_covariance(im, PG_GETARG_FLOAT8(3));
}

/* gsu.image_covariance(image float8[][], sigma2 float8) */
Datum
gsu_image_covariance_2d_fn(PG_FUNCTION_ARGS)
{
	GsuImage	im = image_arg(PG_GETARG_ARRAYTYPE_P(0), false, 0, 0);

	return image_covariance(im, PG_GETARG_FLOAT8(1));
}
