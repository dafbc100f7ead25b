/*
 * gsu_model_hyper.c — the model's side of the training options: a trained
 * model's hyperparameters, from the table of the training options
 * (gsu_options_table.h): copied from the options at training, range-checked
 * in a stored value, read from and written to the "hyperparameters" object
 * of gsu.model's text form.
 */
#include "gsu_options_table.h"
#include "gsu_model_hyper.h"

#include <math.h>

/*
 * The stored options (GSU_STORED_OPTIONS, gsu_options.h) are fields of the
 * same name in GsuModel, of their model_type: checked here, at compile time.
 */
#define CHECK_MODEL_FIELD(field, type, model_type, ...) \
	StaticAssertDecl(sizeof(((GsuModel *) 0)->field) == sizeof(model_type), \
					 "GsuModel." #field " is not a " #model_type);
GSU_STORED_OPTIONS(CHECK_MODEL_FIELD)

/*
 * The stored options that are keys of the model's "hyperparameters" (key
 * HYPER): the option's field in GsuTrainOptions and the model's (a double
 * for OPT_NUMBER, an int32 for OPT_INTEGER, a uint64 for OPT_SEED, a uint8
 * for OPT_CHOICE).  A model's text lists them in the order of the options
 * table.
 */
#define HYPER_ROW_HYPER(f) {OPT(f), (int) offsetof(GsuModel, f)},
#define HYPER_ROW_OWN(f)
#define HYPER_ROW(field, type, model_type, key, ...) HYPER_ROW_##key(field)
static const struct
{
	int			opt_off;
	int			model_off;
}			hyper_fields[] = {
	GSU_STORED_OPTIONS(HYPER_ROW)
};

/* the field in GsuModel of the option of row d, or -1 when a model does not store it */
static int
hyper_off(const GsuOptionDef *d)
{
	int			i;

	for (i = 0; i < (int) lengthof(hyper_fields); i++)
		if (d->opt_off >= 0 && hyper_fields[i].opt_off == d->opt_off)
			return hyper_fields[i].model_off;
	return -1;
}

void
gsu_hyper_from_options(GsuModel *m, const GsuTrainOptions *o)
{
#define COPY_TO_MODEL(field, type, model_type, ...) m->field = (model_type) o->field;
	GSU_STORED_OPTIONS(COPY_TO_MODEL)
#undef COPY_TO_MODEL
}

void
gsu_hyper_validate(const GsuModel *m, int code)
{
	int			i;

	for (i = 0; i < gsu_options_count; i++)
	{
		const GsuOptionDef *d = &gsu_options_table[i];
		bool		applies = gsu_option_applies_to(d, m->loss);

		if (hyper_off(d) < 0)
			continue;
		switch (d->type)
		{
			case OPT_NUMBER:
				{
					double		x = FIELD(m, hyper_off(d), double);

					/* the loss epsilon_insensitive's tube half-width: [0, ∞) */
					if (d->opt_off == OPT(epsilon) && gsu_loss_info(m->loss)->regression &&
						applies && !(isfinite(x) && x >= 0.0))
						ereport(ERROR,
								(errcode(code),
								 errmsg("gsu.model hyperparameter \"epsilon\" of loss \"%s\" must be a non-negative finite number, not %g",
										gsu_loss_name(m->loss), x)));

					if (!applies && x != 0.0)
						ereport(ERROR,
								(errcode(code),
								 errmsg("gsu.model loss \"%s\" takes no hyperparameter \"%s\"",
										gsu_loss_name(m->loss), d->name)));
					if (applies && !gsu_option_in_range(d, x) &&
					/* epsilon is 0 when gamma was given, as it is for other losses */
						!(d->opt_off == OPT(epsilon) && x == 0.0) &&
					/* ... and the tube's half-width of the loss epsilon_insensitive */
						!(d->opt_off == OPT(epsilon) && gsu_loss_info(m->loss)->regression &&
						  isfinite(x) && x >= 0.0))
						gsu_option_range_error(d, "gsu.model hyperparameter", code, x);
					break;
				}
			case OPT_INTEGER:
				{
					int32		v = FIELD(m, hyper_off(d), int32);

					if (v < d->lo || v > d->hi)
						ereport(ERROR,
								(errcode(code),
								 errmsg("gsu.model hyperparameter \"%s\" must be between %.0f and %.0f, not %d",
										d->name, d->lo, d->hi, v)));
					break;
				}
			case OPT_SEED:
				if (FIELD(m, hyper_off(d), uint64) > (uint64) PG_INT64_MAX)
					ereport(ERROR,
							(errcode(code),
							 errmsg("gsu.model hyperparameter \"%s\" must be at most " INT64_FORMAT,
									d->name, PG_INT64_MAX)));
				break;
			case OPT_CHOICE:
				{
					int			v = FIELD(m, hyper_off(d), uint8),
								k;

					for (k = 0; d->names[k] != NULL; k++)
						if (d->values[k] == v)
							break;
					if (d->names[k] == NULL)
						ereport(ERROR,
								(errcode(code),
								 errmsg("gsu.model has unknown %s %d", d->name, v)));
					break;
				}
			case OPT_BOOLEAN:
			case OPT_CUSTOM:
				break;
		}
	}
	if (m->robust_q > 2)
		ereport(ERROR,
				(errcode(code),
				 errmsg("gsu.model hyperparameter \"q\" must be 1, 2 or infinity")));
	if (!gsu_loss_info(m->loss)->robust && m->robust_q != 0)
		ereport(ERROR,
				(errcode(code),
				 errmsg("gsu.model loss \"%s\" takes no hyperparameter \"q\"",
						gsu_loss_name(m->loss))));
}

void
gsu_hyper_from_jsonb(GsuModel *m, JsonbContainer *hyper, int code)
{
	GsuJsonCtx	hx = {code, "gsu.model hyperparameter"};
	GsuTrainOptions o;
	int			i;
	JsonbValue	qv;
	const char *s;
	int64		i64;

	/* absent keys: the defaults */
	gsu_options_default(&o);
	o.loss = m->loss;
	gsu_options_loss_defaults(&o);
	gsu_hyper_from_options(m, &o);
	if (hyper == NULL)
		return;
	{
		static const char *keys[GSU_OPTIONS_MAX + 3];

		if (keys[0] == NULL)
		{
			int			n = 0;

			for (i = 0; i < gsu_options_count; i++)
				if (hyper_off(&gsu_options_table[i]) >= 0)
					keys[n++] = gsu_options_table[i].name;
			keys[n++] = "q";
			keys[n++] = "standardize";	/* read with "standardization" (gsu_model_text.c) */
			keys[n++] = "missing";	/* read with the key "missing" (gsu_model_text.c) */
			keys[n++] = "missing_nan";	/* likewise */
			keys[n] = NULL;
		}
		gsu_json_check_object(&hx, hyper, keys);
	}
	for (i = 0; i < gsu_options_count; i++)
	{
		const GsuOptionDef *d = &gsu_options_table[i];
		double		x;

		if (hyper_off(d) < 0)
			continue;
		switch (d->type)
		{
			case OPT_NUMBER:
				if (gsu_json_number(&hx, hyper, d->name, &x))
					FIELD(m, hyper_off(d), double) = x;
				break;
			case OPT_INTEGER:
				if (gsu_json_int64(&hx, hyper, d->name, (int64) d->lo, (int64) d->hi, &i64))
					FIELD(m, hyper_off(d), int32) = (int32) i64;
				break;
			case OPT_SEED:
				if (gsu_json_int64(&hx, hyper, d->name, 0, PG_INT64_MAX, &i64))
					FIELD(m, hyper_off(d), uint64) = (uint64) i64;
				break;
			case OPT_CHOICE:
				if (gsu_json_string(&hx, hyper, d->name, &s))
				{
					int			k;

					for (k = 0; d->names[k] != NULL; k++)
						if (strcmp(s, d->names[k]) == 0)
							break;
					if (d->names[k] == NULL)
						ereport(ERROR,
								(errcode(code),
								 errmsg("gsu.model hyperparameter \"%s\" has unknown value \"%s\"",
										d->name, s)));
					FIELD(m, hyper_off(d), uint8) = (uint8) d->values[k];
				}
				break;
			case OPT_BOOLEAN:
			case OPT_CUSTOM:
				break;
		}
	}
	if (getKeyJsonValueFromContainer(hyper, "q", 1, &qv) != NULL && qv.type == jbvString &&
		gsu_json_string(&hx, hyper, "q", &s))
	{
		if (strcmp(s, "inf") != 0)
			ereport(ERROR,
					(errcode(code),
					 errmsg("gsu.model hyperparameter \"q\" must be 1, 2 or \"inf\", not \"%s\"", s)));
		m->robust_q = 0;
	}
	else if (gsu_json_int64(&hx, hyper, "q", 1, 2, &i64))
		m->robust_q = (uint8) i64;
}

void
gsu_hyper_append(StringInfo buf, const GsuModel *m)
{
	int			i;
	bool		first = true;

	for (i = 0; i < gsu_options_count; i++)
	{
		const GsuOptionDef *d = &gsu_options_table[i];

		if (hyper_off(d) < 0 || !gsu_option_shown_for(d, m->loss))
			continue;
		/*
		 * a regression model shows the options gsu.train_regression takes (the
		 * others keep their defaults), and its solver when it streamed (sgd)
		 */
		if (gsu_loss_info(m->loss)->regression && d->opt_off != OPT(lambda) &&
			d->opt_off != OPT(tolerance) && d->opt_off != OPT(max_iterations) &&
			d->opt_off != OPT(epsilon) &&
			!(d->opt_off == OPT(solver) && m->solver == GSU_SOLVER_SGD))
			continue;
		appendStringInfo(buf, "%s\"%s\": ", first ? "" : ", ", d->name);
		first = false;
		switch (d->type)
		{
			case OPT_NUMBER:
				gsu_append_double(buf, FIELD(m, hyper_off(d), double));
				break;
			case OPT_INTEGER:
				appendStringInfo(buf, "%d", FIELD(m, hyper_off(d), int32));
				break;
			case OPT_SEED:
				appendStringInfo(buf, UINT64_FORMAT, FIELD(m, hyper_off(d), uint64));
				break;
			case OPT_CHOICE:
				{
					int			v = FIELD(m, hyper_off(d), uint8),
								k;

					for (k = 0; d->names[k] != NULL && d->values[k] != v; k++)
						;
					appendStringInfo(buf, "\"%s\"", d->names[k] ? d->names[k] : "?");
					break;
				}
			case OPT_BOOLEAN:
			case OPT_CUSTOM:
				break;
		}
	}
	if (m->flags & GSU_MODEL_STANDARDIZED)
		appendStringInfoString(buf, ", \"standardize\": true");
	if (m->flags & GSU_MODEL_MISSING)
		appendStringInfoString(buf, ", \"missing\": \"feature_moments\"");
	if (m->flags & GSU_MODEL_MISSING_NAN)
		appendStringInfoString(buf, ", \"missing_nan\": true");
	if (gsu_loss_info(m->loss)->robust)
	{
		if (m->robust_q == 0)
			appendStringInfoString(buf, ", \"q\": \"inf\"");
		else
			appendStringInfo(buf, ", \"q\": %d", m->robust_q);
	}
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
