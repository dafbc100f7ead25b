/*
 * gsu_json.h — typed reads from jsonb objects, for option lists and for the
 * text form of gsu.model.  Every error names the key; errcode is the caller's
 * (ERRCODE_INVALID_PARAMETER_VALUE for options, ERRCODE_INVALID_TEXT_REPRESENTATION
 * for a model's text).  what says what the object is ("option", "model field").
 */
#ifndef GSU_JSON_H
#define GSU_JSON_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

typedef struct GsuJsonCtx
{
	int			errcode;
	const char *what;
} GsuJsonCtx;

/* Whether the object c has key with a value that is not JSON null. */
bool		gsu_json_present(JsonbContainer *c, const char *key);

/* The container must be an object whose keys are all in valid (NULL-ended). */
void		gsu_json_check_object(const GsuJsonCtx *cx, JsonbContainer *c,
								  const char *const *valid);

/*
 * The root of an options argument: an error unless jb is a JSON object
 * whose keys are all in valid (hint: an example, itself JSON); returns &jb->root.
 */
JsonbContainer *gsu_json_options_object(const GsuJsonCtx *cx, Jsonb *jb,
										const char *const *valid, const char *example);

/* Each returns false when the key is absent (or JSON null if null_ok). */
bool		gsu_json_number(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
							double *out);
bool		gsu_json_int64(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
						   int64 lo, int64 hi, int64 *out);
bool		gsu_json_string(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
							const char **out);
bool		gsu_json_bool(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
						  bool *out);
/*
 * The value of s among the choices, names[i] ↦ values[i] (names NULL-ended);
 * any other s is an error `unknown what "s"` with the caller's hint.
 */
int			gsu_json_choice(const GsuJsonCtx *cx, const char *s, const char *const *names,
							const int *values, const char *what, const char *hint);
/*
 * The value of the string key among the choices (gsu_json_choice, what = key);
 * dflt when the key is absent or null.
 */
int			gsu_json_choice_key(const GsuJsonCtx *cx, JsonbContainer *c, const char *key,
								const char *const *names, const int *values,
								const char *hint, int dflt);
/* The option "estimator": "sample" (the default) gives ddof 1, "population" 0. */
int			gsu_json_estimator(const GsuJsonCtx *cx, JsonbContainer *c);
/* A nested object (or array when array is true); NULL when absent or null. */
JsonbContainer *gsu_json_container(const GsuJsonCtx *cx, JsonbContainer *c,
								   const char *key, bool array);
/* Reads every element of an array container as a finite double. */
void		gsu_json_number_array(const GsuJsonCtx *cx, JsonbContainer *arr,
								  const char *key, double *out, int n);
int			gsu_json_array_length(JsonbContainer *arr);
/* Element i (0-based) of an array, which must itself be an array. */
JsonbContainer *gsu_json_array_element(const GsuJsonCtx *cx, JsonbContainer *arr,
									   const char *key, int i);

/* Appends a double in the shortest form that reads back exactly. */
void		gsu_append_double(StringInfo buf, double x);

#endif							/* GSU_JSON_H */
