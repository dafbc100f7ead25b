/*
 * gsu_model_init.h — the option "init" of the training options, a gsu.model
 * in its text form, read for the options parsers (gsu_model_init.c).  Above
 * the text form (gsu_model_text.h).
 */
#ifndef GSU_MODEL_INIT_H
#define GSU_MODEL_INIT_H

#include "gsu_model_layout.h"

/*
 * The options of gsu.train / gsu.fit / gsu.train_sgd (gsu_options_parse)
 * with the option "init" read as a gsu.model: its regularizer must be
 * finite at the options' lambda and its step count leave room for more;
 * *init (if init != NULL) receives it or NULL.
 */
void		gsu_parse_train_options(Jsonb *jb, GsuTrainOptions *o, GsuModel **init);

/*
 * The options of gsu.train_regression and of the regression sgd partials
 * (gsu_regression_options_parse, with "solver" and "init"; stream: the
 * partials', solver sgd only) with "init" read
 * as a regression model that is not standardized, its regularizer finite and
 * its step count leaving room for more; *init (if init != NULL) receives it
 * or NULL.
 */
void		gsu_parse_regression_options(Jsonb *jb, GsuTrainOptions *o, bool stream,
										 GsuModel **init);

#endif							/* GSU_MODEL_INIT_H */
