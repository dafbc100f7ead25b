/*
 * gsu_progress.h — progress reports and the per-pass history of a training
 * (the setting gsu.progress, the core's gsu_trace_fn, the history block of
 * gsu.model).
 *
 * One GsuTrace follows one training: the glue installs gsu_trace_pass as the
 * solver's trace (gsu_solve_options.trace) or calls it itself (gsu.fit's
 * passes over a relation).  Every pass is kept in a bounded history — the
 * first GSU_HISTORY_HEAD and the last GSU_HISTORY_TAIL passes of each class
 * vector — and, when gsu.progress is not −1, reported as a NOTICE at most
 * every gsu.progress milliseconds (0: every pass).
 */
#ifndef GSU_PROGRESS_H
#define GSU_PROGRESS_H

#include "postgres.h"

#include <time.h>

#define GSU_HISTORY_HEAD 32
#define GSU_HISTORY_TAIL 32
#define GSU_HISTORY_MAX (GSU_HISTORY_HEAD + GSU_HISTORY_TAIL)
/* an entry: pass, objective, gradient norm, gap, elapsed milliseconds */
#define GSU_HISTORY_FIELDS 5

/* gsu.progress: −1 off, 0 every pass, else at most one report per this many ms */
extern int	gsu_progress_ms;

typedef struct GsuTrace
{
	const char *what;			/* "gsu.train", "gsu.fit": the reports' prefix */
	struct timespec start;		/* the training's start */
	double		last_report_ms; /* elapsed at the last NOTICE, −1 before one */
	int			nvec;			/* class vectors trained */
	int			vec;			/* the one being trained, −1 before the first */
	int64		offset;			/* added to the solver's numbering (see gsu_trace_pass) */
	int64		last;			/* the last pass recorded for vec */
	int64		seen;			/* entries reported for vec */
	double		entry[GSU_HISTORY_MAX][GSU_HISTORY_FIELDS];
	/* the finished vectors: counts[k] entries each, one after the other */
	int		   *counts;
	double	   *done;
	Size		done_len;		/* doubles in done */
} GsuTrace;

/* A trace of nvec class vectors, starting now (or at *start when not NULL). */
void		gsu_trace_init(GsuTrace *t, const char *what, int nvec, const struct timespec *start);

/* The next class vector k (0-based, in order): the previous one is finished. */
void		gsu_trace_class(GsuTrace *t, int k);

/*
 * The core's gsu_trace_fn (arg: a GsuTrace).  A pass number below the
 * last one (a solver that hands over to another, which counts from 1
 * again) continues after it; the last one again replaces its entry (gsu.fit
 * reports a polish's candidate, then the Newton step of the same scan).  GSU_TRACE_NONE, or a value that is
 * not finite, is "not measured".  Reports with ereport(NOTICE), which does
 * not raise but on running out of memory.
 */
void		gsu_trace_pass(void *arg, int64_t pass, double objective,
						   double gradient_norm, double gap);

/*
 * The next gsu_trace_pass reports whatever gsu.progress's interval says (when
 * reports are on): a result that must not be throttled away, like gsu.fit's
 * last scan reported again with the model's numbers.
 */
void		gsu_trace_report_next(GsuTrace *t);

/*
 * The history block of a model of t->nvec vectors (the caller finished the
 * last vector with gsu_trace_class(t, t->nvec) or gsu_trace_finish): nvec
 * counts, then the entries; *len receives its doubles.
 */
double	   *gsu_trace_block(GsuTrace *t, Size *len);
void		gsu_trace_finish(GsuTrace *t);

/* whether reports are on (gsu.progress ≥ 0) */
static inline bool
gsu_progress_on(void)
{
	return gsu_progress_ms >= 0;
}

/* milliseconds since *t0 */
double		gsu_elapsed_ms(const struct timespec *t0);

#endif							/* GSU_PROGRESS_H */
