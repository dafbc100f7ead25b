/*
 * gsu_model_hyper.h — a gsu.model's stored hyperparameters (gsu_model_hyper.c):
 * the options a model keeps, from the table of the training options
 * (gsu_options_table.h).  Above the layout (gsu_model_layout.h), below the
 * checks and the text form.
 */
#ifndef GSU_MODEL_HYPER_H
#define GSU_MODEL_HYPER_H

#include "gsu_model_layout.h"

/*
 * The model's stored hyperparameters, from and to the table: copies the
 * options into a model, checks a model's values (errcode code; "gsu.model
 * hyperparameter ... must be ..."), reads the "hyperparameters" object of a
 * model's text (absent keys keep the defaults of gsu_options_default) and
 * appends it (the object's members, without braces).
 */
void		gsu_hyper_from_options(GsuModel *m, const GsuTrainOptions *o);
void		gsu_hyper_validate(const GsuModel *m, int code);
void		gsu_hyper_from_jsonb(GsuModel *m, JsonbContainer *hyper, int code);
void		gsu_hyper_append(StringInfo buf, const GsuModel *m);

/* A model of dimension dim carrying the options as its hyper-parameters. */
GsuModel   *gsu_model_from_options(int dim, int nclasses, int map_len,
									const GsuTrainOptions *o);

#endif							/* GSU_MODEL_HYPER_H */
