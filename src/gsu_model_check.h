/*
 * gsu_model_check.h — the field-by-field check of a gsu.model value
 * (gsu_model_check.c), which every value from outside passes before it
 * becomes a model: its layout, its blocks and its hyperparameters
 * (gsu_model_hyper.h).
 */
#ifndef GSU_MODEL_CHECK_H
#define GSU_MODEL_CHECK_H

#include "gsu_model_layout.h"

/*
 * Checks every field of a model (ereports when bad) and puts it in
 * canonical form (+0 for −0, zero for statistics its solver lacks).
 */
void		gsu_model_validate(GsuModel *m, int code);

#endif							/* GSU_MODEL_CHECK_H */
