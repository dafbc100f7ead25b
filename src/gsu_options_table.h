/*
 * gsu_options_table.h — the table of the training options (gsu_options.c),
 * shared by the two files of the options module: gsu_options.c (the
 * options object of gsu.train, gsu.fit and gsu.partial) and
 * gsu_model_hyper.c (a trained model's hyperparameters: the model's side,
 * which reads the table; the table knows nothing of the model).  Not for
 * other files: they use gsu_options.h.
 */
#ifndef GSU_OPTIONS_TABLE_H
#define GSU_OPTIONS_TABLE_H

#include "gsu_options.h"

typedef enum GsuOptionType
{
	OPT_NUMBER,					/* a finite double in [lo, hi] (lo_open, hi_open) */
	OPT_INTEGER,				/* an int32 in [lo, hi] */
	OPT_SEED,					/* a uint64 in [0, 2^63 - 1] */
	OPT_CHOICE,					/* a string among names, stored as its value */
	OPT_BOOLEAN,				/* true or false, stored as an int32 0/1 */
	OPT_CUSTOM					/* read by its own code below */
} GsuOptionType;

#define LOSS_BIT(l) (1u << (l))
/* in a set of losses: those that take the norm bound "gamma" (gsu_loss_kind_info.default_gamma > 0) */
#define LOSSES_GAMMA (1u << 31)

typedef struct GsuOptionDef
{
	const char *name;
	GsuOptionType type;
	bool		option;			/* a key of the options object */
	int			opt_off;		/* field in GsuTrainOptions, or -1 (a model stores the
								 * fields that GSU_STORED_OPTIONS of gsu_options.h names) */
	double		lo,
				hi;
	bool		lo_open,
				hi_open;
	const char *range;			/* the range in words, for messages */
	unsigned	losses;			/* the losses it applies to (LOSS_BIT, LOSSES_GAMMA), 0: every loss */
	const char *losses_text;	/* ... in words: "the loss tsvc" */
	unsigned	shown;			/* a model's text shows it for these losses (0: every loss) */
	const char *const *names;	/* OPT_CHOICE: the names, NULL-ended */
	const int  *values;			/* ... the values they stand for */
	const char *hint;			/* ... the hint of an unknown name */
} GsuOptionDef;

/* the byte offset of a field of GsuTrainOptions */
#define OPT(f) ((int) offsetof(GsuTrainOptions, f))

/* more than the table's rows */
#define GSU_OPTIONS_MAX 64

/* the rows, in the order of the "Valid keys" hint and of a model's text */
extern const GsuOptionDef gsu_options_table[];
extern const int gsu_options_count;

/* a field of a struct at a byte offset of the table */
#define FIELD(base, off, type) (*(type *) ((char *) (base) + (off)))

/* x is in the row's range */
bool		gsu_option_in_range(const GsuOptionDef *d, double x);

/* the range error of a number: "<what> "name" must be <range>, not x" */
void		gsu_option_range_error(const GsuOptionDef *d, const char *what, int code, double x);

/* the option applies to the loss */
bool		gsu_option_applies_to(const GsuOptionDef *d, int loss);
/* a model's text shows the option for the loss */
bool		gsu_option_shown_for(const GsuOptionDef *d, int loss);

/* the defaults that depend on o->loss (gamma, q, delta_scale, max_iterations) */
void		gsu_options_loss_defaults(GsuTrainOptions *o);

#endif							/* GSU_OPTIONS_TABLE_H */
