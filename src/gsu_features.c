/*
 * gsu_features.c — the feature map a gsu.model carries: the option
 * "features" of gsu.train that chooses it (read here for the options table),
 * and the map applied when scoring: the mean is mapped to φ(x), and a
 * Gaussian input N(x, Σ) to the exact mean E φ(z) of its image and the
 * variances wᵀ Cov φ(z) w of the model's weight vectors
 * (src/core/gsu_featmap_moments.c), summed pair by pair without the D × D
 * matrix.
 */
#include "gsu_model.h"

#include <math.h>

#include "miscadmin.h"

void
gsu_model_featmap(const GsuModel *m, gsu_featmap *f)
{
	gsu_featmap_bind(f, m->map_kind, m->input_dim, m->dim, m->map_landmarks,
					 m->map_sigma, GSU_MODEL_MAP(m));
}

const double *
gsu_model_map_mean(const GsuModel *m, const double *x)
{
	gsu_featmap f;
	double	   *phi,
			   *work;

	if (m->map_kind == GSU_MAP_NONE)
		return x;
	gsu_model_featmap(m, &f);
	phi = palloc(sizeof(double) * ((Size) m->dim + gsu_featmap_apply_work_size(&f)));
	work = phi + m->dim;
	gsu_featmap_apply(&f, x, phi, work);
	return phi;
}

void
gsu_model_map_quad(const GsuModel *m, const double *x, const GsuRowCov *rc,
				   double **mean, double *quad)
{
	gsu_featmap f;
	int			nw = GSU_MODEL_NVEC(m),
				outer,
				step,
				j,
				k;
	const double **w = palloc(sizeof(double *) * nw);
	double	   *work;
	gsu_status	s;

	Assert(m->map_kind != GSU_MAP_NONE);
	gsu_model_featmap(m, &f);
	for (k = 0; k < nw; k++)
		w[k] = GSU_MODEL_THETA(m, k);
	*mean = palloc(sizeof(double) * (Size) m->dim);
	work = palloc_extended(sizeof(double) * gsu_featmap_quad_work_size(&f, nw, rc->kind == GSU_COV_FULL), MCXT_ALLOC_HUGE);
	s = gsu_featmap_quad_prepare(&f, x, rc, nw, w, *mean, quad, work);
	gsu_report_data_status(s, "the feature map of a Gaussian input",
						   "the covariance could not be mapped to feature space");
	/* O(outer²) pairs: blocks of about a million, with a cancel point between them */
	outer = gsu_featmap_quad_outer(&f);
	step = Max(1, (1 << 20) / Max(outer, 1));
	for (j = 0; j < outer; j += step)
	{
		CHECK_FOR_INTERRUPTS();
		gsu_featmap_quad_block(&f, rc, nw, w, j, Min(outer, j + step), quad, work);
	}
	pfree(work);
	pfree(w);
}

/* ------------------------------------------------ the "features" option */

static const char *const map_names[] = {"rff", "nystroem", NULL};
static const int map_values[] = {GSU_MAP_RFF, GSU_MAP_NYSTROEM};

const char *
gsu_map_name(int map_kind)
{
	return map_kind == GSU_MAP_NONE ? "none" :
		(map_kind >= GSU_MAP_RFF && map_kind <= GSU_MAP_NYSTROEM) ? map_names[map_kind - 1] : "?";
}

static const char *const feature_keys[] = {
	"map", "dim", "landmarks", "sigma", "seed", "covariance", NULL
};

/* The option "features": {"map": "rff", "dim": D, "sigma": s, "seed": n} or
 * {"map": "nystroem", "landmarks": m, "sigma": s, "seed": n}. */
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
								  "Valid maps are: rff, nystroem.");
	has_dim = gsu_json_int64(&fcx, f, "dim", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_dim)
		o->map_dim = (int32) i64;
	has_m = gsu_json_int64(&fcx, f, "landmarks", PG_INT32_MIN, PG_INT32_MAX, &i64);
	if (has_m)
		o->map_landmarks = (int32) i64;
	if (o->map_kind == GSU_MAP_RFF)
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
	if (!gsu_json_number(&fcx, f, "sigma", &o->map_sigma))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\" needs \"sigma\", the Gaussian kernel's width", s)));
	/* the kernel divides by 2 sigma^2, which must stay finite */
	if (!(o->map_sigma > 0.0) || !isfinite(1.0 / (o->map_sigma * o->map_sigma)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature map \"%s\": \"sigma\" must be a positive number above 1e-154, not %g",
						s, o->map_sigma)));
	o->map_seed = o->seed;
	if (gsu_json_int64(&fcx, f, "seed", 0, PG_INT64_MAX, &i64))
		o->map_seed = (uint64) i64;
	if (gsu_json_string(&fcx, f, "covariance", &s))
	{
		static const char *const names[] = {"diagonal", "full", NULL};
		static const int values[] = {0, 1};

		o->map_full_cov = gsu_json_choice(&fcx, s, names, values, "feature covariance",
										  "Valid values are: diagonal, full.");
	}
}
