/*
 * gsu_evaluation.h — what the evaluation aggregates share (gsu_evaluation.c:
 * gsu.confusion and gsu.log_loss; gsu_evaluation_ranking.c: the ranking metrics).
 */
#ifndef GSU_EVALUATION_H
#define GSU_EVALUATION_H

#include "gsu_glue.h"

#include "lib/stringinfo.h"

/* a curve with more points than this is an error (jsonb would near its 256 MB limit) */
#define GSU_CURVE_MAX_POINTS 1000000

bool		gsu_eval_binary_label(int32 label);
void		gsu_eval_check_score(double s);
void		gsu_eval_append_kd(StringInfo buf, const char *key, double x);
void		gsu_eval_append_ki(StringInfo buf, const char *key, int64 x);
void		gsu_eval_trim_comma(StringInfo buf);
Jsonb	   *gsu_eval_text_to_jsonb(StringInfo buf);

#endif							/* GSU_EVALUATION_H */
