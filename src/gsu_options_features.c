/*
 * gsu_options_features.c — the training options of the feature maps: the
 * option "features" (the map and its parameters), "feature_bound" (how the
 * robust loss bounds a mapped row) with its "feature_norm", and the reader
 * of a p-norm option (1, 2 or "inf") that "norm" shares.  Called by
 * gsu_options.c's parser; calls nothing of it.
 */
#include "gsu_options.h"
#include "gsu_glue.h"
#include "core/gsu_robust.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

/* the option "feature_bound": names and values, for the table of gsu_options.c */
const char *const gsu_feature_bound_names[] = {"moments", "worst_case", "couellan_jan", NULL};
const int	gsu_feature_bound_values[] = {GSU_FEATURE_BOUND_MOMENTS, GSU_FEATURE_BOUND_WORST_CASE,
GSU_FEATURE_BOUND_COUELLAN_JAN};

const char *
gsu_feature_bound_name(int feature_bound)
{
	return feature_bound >= GSU_FEATURE_BOUND_MOMENTS &&
		feature_bound <= GSU_FEATURE_BOUND_COUELLAN_JAN ?
		gsu_feature_bound_names[feature_bound] : "?";
}

/*
 * The p-norm option key of root: 1, 2 or GSU_Q_INF ("inf" or "infinity"),
 * −1 when absent or null; any other value is an error with the hint given.
 */
int
gsu_parse_pnorm(JsonbContainer *root, const char *key, const char *hint)
{
	JsonbValue	v;
	int			p = -1;

	if (getKeyJsonValueFromContainer(root, key, strlen(key), &v) == NULL || v.type == jbvNull)
		return -1;
	if (v.type == jbvString)
	{
		if ((v.val.string.len == 3 && memcmp(v.val.string.val, "inf", 3) == 0) ||
			(v.val.string.len == 8 && memcmp(v.val.string.val, "infinity", 8) == 0))
			p = GSU_Q_INF;
	}
	else if (v.type == jbvNumeric)
	{
		double		n = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
														   NumericGetDatum(v.val.numeric)));

		if (n == 1.0 || n == 2.0)
			p = (int) n;
	}
	if (p < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 v.type == jbvString ?
				 errmsg("unknown %s \"%.*s\"", key, v.val.string.len, v.val.string.val) :
				 v.type == jbvNumeric ?
				 errmsg("unknown %s %s", key,
						DatumGetCString(DirectFunctionCall1(numeric_out,
															NumericGetDatum(v.val.numeric)))) :
				 errmsg("option \"%s\" must be a number or a string", key),
				 errhint("%s", hint)));
	return p;
}

/*
 * The option "feature_bound" of the robust loss on mapped features:
 * "moments" (the default: the robust loss on the exact feature-space
 * moments), "worst_case" (each row's term is the exact worst case over the
 * box that holds the image of its input set, gsu_featmap_bounds.c) or
 * "couellan_jan" (the paper's own Props. 4.1 / 4.2: one radius Γ_i a row in
 * the norm "feature_norm", gsu_featmap_cj.c).  True for the last two, which
 * the caller trains with the Pegasos path of the robust core.
 */
bool
gsu_check_feature_bound(JsonbContainer *root, GsuTrainOptions *o, bool features)
{
	const char *name = gsu_feature_bound_name(o->feature_bound);
	int			pbar = gsu_parse_pnorm(root, "feature_norm",
									   "Valid norms of Couellan & Jan's feature-space bound are: 1, 2, \"inf\".");

	if (pbar >= 0)
	{
		if (o->feature_bound != GSU_FEATURE_BOUND_COUELLAN_JAN)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"feature_norm\" applies only to feature_bound \"couellan_jan\""),
					 errdetail("It is the norm p-bar of the paper's bound ||R_i dphi||_p-bar <= Gamma_i.")));
		o->feature_pbar = pbar;
	}
	if (!gsu_json_present(root, "feature_bound"))
		return false;
	if (!features)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"feature_bound\" needs option \"features\""),
				 errdetail("It chooses how the robust loss bounds a row in feature space.")));
	if (o->feature_bound == GSU_FEATURE_BOUND_MOMENTS)
		return false;
	if (o->map_full_cov)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature covariance \"full\" does not apply to feature_bound \"%s\"", name),
				 errdetail("The worst case bounds the mapped row over its input uncertainty set, not by feature-space moments.")));
	if (o->feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN && o->map_kind == GSU_MAP_POLY2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("feature_bound \"couellan_jan\" does not apply to feature map \"poly2\""),
				 errdetail("Couellan & Jan bound random Fourier and Nystroem features only (Props. 4.1 and 4.2)."),
				 errhint("Use feature_bound \"worst_case\", which bounds the products of poly2 exactly.")));
	if (o->feature_bound == GSU_FEATURE_BOUND_COUELLAN_JAN && o->map_kind == GSU_MAP_NYSTROEM &&
		o->feature_pbar != 2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("feature_bound \"couellan_jan\" with feature map \"nystroem\" needs \"feature_norm\" 2"),
				 errdetail("Prop. 4.2 bounds the Nystroem features in the Euclidean norm only.")));
	return true;
}

static const char *const map_names[] = {"rff", "nystroem", "poly2", NULL};
static const int map_values[] = {GSU_MAP_RFF, GSU_MAP_NYSTROEM, GSU_MAP_POLY2};

const char *
gsu_map_name(int map_kind)
{
	return map_kind == GSU_MAP_NONE ? "none" :
		(map_kind >= GSU_MAP_RFF && map_kind <= GSU_MAP_MAX) ? map_names[map_kind - 1] : "?";
}

static const char *const feature_keys[] = {
	"map", "dim", "landmarks", "sigma", "seed", "covariance", NULL
};

/* The option "features": {"map": "rff", "dim": D, "sigma": s, "seed": n},
 * {"map": "nystroem", "landmarks": m, "sigma": s, "seed": n} or {"map": "poly2"}
 * (the exact map of (x'z)^2, which has no parameters). */
void
gsu_parse_features_option(const GsuJsonCtx *cx, JsonbContainer *f, GsuTrainOptions *o)
{
	GsuJsonCtx	fcx = {cx->errcode, "features key"};
	const char *s;
	int64		i64;
	bool		has_dim,
				has_m;

	gsu_json_check_object(&fcx, f, feature_keys);
	if (!gsu_json_string(&fcx, f, "map", &s))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"features\" needs a \"map\""),
				 errhint("For example '{\"features\": {\"map\": \"rff\", \"dim\": 200, \"sigma\": 1}}'.")));
	o->map_kind = gsu_json_choice(&fcx, s, map_names, map_values, "feature map",
								  "Valid maps are: rff, nystroem, poly2.");
	has_dim = gsu_json_int64(&fcx, f, "dim", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_dim)
		o->map_dim = (int32) i64;
	has_m = gsu_json_int64(&fcx, f, "landmarks", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_m)
		o->map_landmarks = (int32) i64;
	if (o->map_kind == GSU_MAP_POLY2)
	{
		static const char *const none[] = {"dim", "landmarks", "sigma", "seed"};

		for (int k = 0; k < (int) lengthof(none); k++)
			if (gsu_json_present(f, none[k]))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("feature map \"poly2\" takes no \"%s\"", none[k]),
						 errdetail("Its kernel (x'z)^2 has no parameters: the map is exact, with "
								   "p(p+1)/2 features for p input features.")));
		o->map_dim = 0;
		o->map_landmarks = 0;
		o->map_sigma = 0.0;
		o->map_seed = 0;
	}
	else if (o->map_kind == GSU_MAP_RFF)
	{
		if (has_m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\" takes \"dim\", not \"landmarks\"")));
		if (!has_dim)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\" needs \"dim\", the number of features")));
		if (o->map_dim < 2 || o->map_dim % 2 != 0 || o->map_dim > GSU_MAX_DIM)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"rff\": \"dim\" must be an even number in [2, %d], not %d",
							GSU_MAX_DIM, o->map_dim),
					 errdetail("The features come in cos/sin pairs, one pair per random frequency.")));
	}
	else
	{
		if (has_dim)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" takes \"landmarks\", not \"dim\""),
					 errdetail("Its dimension is the rank of the landmarks' kernel matrix.")));
		if (!has_m)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\" needs \"landmarks\", the number of landmarks")));
		if (o->map_landmarks < 1 || o->map_landmarks > GSU_MAX_LANDMARKS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature map \"nystroem\": \"landmarks\" must be in [1, %d], not %d",
							GSU_MAX_LANDMARKS, o->map_landmarks)));
	}
	if (o->map_kind == GSU_MAP_POLY2)
		;						/* no sigma, no seed */
	else if (!gsu_json_number(&fcx, f, "sigma", &o->map_sigma))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\" needs \"sigma\", the Gaussian kernel's width", s)));
	/* the kernel divides by 2 sigma^2, which must stay finite */
	else if (!(o->map_sigma > 0.0) || !isfinite(1.0 / (o->map_sigma * o->map_sigma)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\": \"sigma\" must be a positive number above 1e-154, not %g",
						s, o->map_sigma)));
	if (o->map_kind != GSU_MAP_POLY2)
	{
		o->map_seed = o->seed;
		if (gsu_json_int64(&fcx, f, "seed", 0, PG_INT64_MAX, &i64))
			o->map_seed = (uint64) i64;
	}
	if (gsu_json_string(&fcx, f, "covariance", &s))
	{
		static const char *const names[] = {"diagonal", "full", NULL};
		static const int values[] = {0, 1};

		o->map_full_cov = gsu_json_choice(&fcx, s, names, values, "feature covariance",
										  "Valid values are: diagonal, full.");
	}
}
