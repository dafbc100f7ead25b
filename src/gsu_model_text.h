/*
 * gsu_model_text.h — the text form of gsu.model, a JSON object
 * (gsu_model_text.c).  Above the checks (gsu_model_check.h); the option
 * "init", a model in that form, is gsu_model_init.h.
 */
#ifndef GSU_MODEL_TEXT_H
#define GSU_MODEL_TEXT_H

#include "gsu_model_layout.h"

/* A model from its JSON text (checked: gsu_model_validate). */
GsuModel   *gsu_model_from_jsonb(JsonbContainer *root);

/* The model's JSON text; without the weights and blocks for gsu.describe. */
Jsonb	   *gsu_model_to_jsonb(const GsuModel *m, bool with_weights);

#endif							/* GSU_MODEL_TEXT_H */
