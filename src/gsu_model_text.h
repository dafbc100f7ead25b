/*
 * gsu_model_text.h — the text form of gsu.model, a JSON object
 * (gsu_model_text.c), and the option "init" of the training options, a
 * model in that form.  Above the checks (gsu_model_check.h).
 */
#ifndef GSU_MODEL_TEXT_H
#define GSU_MODEL_TEXT_H

#include "gsu_model_layout.h"

/* A model from its JSON text (checked: gsu_model_validate). */
GsuModel   *gsu_model_from_jsonb(JsonbContainer *root);

/* The model's JSON text; without the weights and blocks for gsu.describe. */
Jsonb	   *gsu_model_to_jsonb(const GsuModel *m, bool with_weights);

/*
 * The options of gsu.train / gsu.fit / gsu.train_sgd (gsu_options_parse)
 * with the option "init" read as a gsu.model: its regularizer must be
 * finite at the options' lambda and its step count leave room for more;
 * *init (if init != NULL) receives it or NULL.
 */
void		gsu_parse_train_options(Jsonb *jb, GsuTrainOptions *o, GsuModel **init);

#endif							/* GSU_MODEL_TEXT_H */
