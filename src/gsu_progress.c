/*
 * gsu_progress.c — progress reports and the per-pass history of a training
 * (see gsu_progress.h).
 */
#include "gsu_progress.h"

#include <math.h>

#include "core/gsu_core.h"
#include "lib/stringinfo.h"
#include "utils/ps_status.h"

int			gsu_progress_ms = -1;

double
gsu_elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return 1e3 * (double) (t1.tv_sec - t0->tv_sec) + 1e-6 * (double) (t1.tv_nsec - t0->tv_nsec);
}

void
gsu_trace_init(GsuTrace *t, const char *what, int nvec, const struct timespec *start)
{
	memset(t, 0, sizeof(*t));
	t->what = what;
	if (start)
		t->start = *start;
	else
		clock_gettime(CLOCK_MONOTONIC, &t->start);
	t->last_report_ms = -1.0;
	t->nvec = nvec;
	t->vec = -1;
	t->counts = palloc0(sizeof(int) * nvec);
	t->done = palloc(sizeof(double) * GSU_HISTORY_MAX * GSU_HISTORY_FIELDS * (Size) nvec);
}

/* the kept entries of the current vector, in order, appended to done */
static void
flush_vector(GsuTrace *t)
{
	int64		n = t->seen,
				i;
	int			kept = 0;

	if (t->vec < 0 || t->vec >= t->nvec)
		return;
	for (i = 0; i < n; i++)
	{
		int			slot;

		if (i >= GSU_HISTORY_HEAD && i < n - GSU_HISTORY_TAIL)
			continue;
		slot = i < GSU_HISTORY_HEAD ? (int) i :
			GSU_HISTORY_HEAD + (int) ((i - GSU_HISTORY_HEAD) % GSU_HISTORY_TAIL);
		memcpy(t->done + t->done_len, t->entry[slot], sizeof(double) * GSU_HISTORY_FIELDS);
		t->done_len += GSU_HISTORY_FIELDS;
		kept++;
	}
	t->counts[t->vec] = kept;
}

void
gsu_trace_class(GsuTrace *t, int k)
{
	flush_vector(t);
	t->vec = k;
	t->offset = 0;
	t->last = 0;
	t->seen = 0;
}

void
gsu_trace_finish(GsuTrace *t)
{
	gsu_trace_class(t, t->nvec);
}

double *
gsu_trace_block(GsuTrace *t, Size *len)
{
	double	   *b = palloc(sizeof(double) * (t->nvec + t->done_len));
	int			k;

	for (k = 0; k < t->nvec; k++)
		b[k] = (double) t->counts[k];
	memcpy(b + t->nvec, t->done, sizeof(double) * t->done_len);
	*len = t->nvec + t->done_len;
	return b;
}

/* a measure as stored: GSU_TRACE_NONE when absent or not finite, +0 for −0 */
static double
measure(double v)
{
	if (!isfinite(v) || v < 0.0)
		return GSU_TRACE_NONE;
	return v + 0.0;
}

/* "objective 0.5, gradient norm 0.1, gap 0.01, 0.012 s" without the absent ones */
static void
append_values(StringInfo s, const double *e)
{
	appendStringInfoString(s, "objective ");
	if (e[1] < 0.0)
		appendStringInfoString(s, "not measured");
	else
		appendStringInfo(s, "%.12g", e[1]);
	if (e[2] >= 0.0)
		appendStringInfo(s, ", gradient norm %.3g", e[2]);
	if (e[3] >= 0.0)
		appendStringInfo(s, ", gap %.3g", e[3]);
	appendStringInfo(s, ", %.3f s", e[4] / 1e3);
}

void
gsu_trace_pass(void *arg, int64_t pass, double objective, double gradient_norm, double gap)
{
	GsuTrace   *t = (GsuTrace *) arg;
	double	   *e;
	int64		i;

	if (t == NULL || t->vec < 0 || t->vec >= t->nvec)
		return;
	if (t->seen > 0 && pass + t->offset == t->last)
		i = t->seen - 1;		/* the same pass again (gsu.fit): the later report stands */
	else
	{
		if (pass + t->offset < t->last || pass + t->offset < 1)
			t->offset = t->last + 1 - pass; /* a solver that counts from 1 again */
		i = t->seen++;
	}
	e = t->entry[i < GSU_HISTORY_HEAD ? (int) i :
				 GSU_HISTORY_HEAD + (int) ((i - GSU_HISTORY_HEAD) % GSU_HISTORY_TAIL)];
	e[0] = (double) (pass + t->offset);
	e[1] = measure(objective);
	e[2] = measure(gradient_norm);
	e[3] = measure(gap);
	e[4] = rint(gsu_elapsed_ms(&t->start) * 1e3) / 1e3;	/* to the microsecond */
	if (e[4] < 0.0)
		e[4] = 0.0;
	t->last = pass + t->offset;
	if (gsu_progress_on() &&
		(t->last_report_ms < 0.0 || e[4] - t->last_report_ms >= (double) gsu_progress_ms))
	{
		StringInfoData msg,
					detail;

		t->last_report_ms = e[4];
		initStringInfo(&msg);
		initStringInfo(&detail);
		if (t->nvec > 1)
			appendStringInfo(&msg, "%s class %d of %d, pass " INT64_FORMAT,
							 t->what, t->vec + 1, t->nvec, t->last);
		else
			appendStringInfo(&msg, "%s pass " INT64_FORMAT, t->what, t->last);
		append_values(&detail, e);
		if (update_process_title)
			set_ps_display(msg.data);
		ereport(NOTICE,
				(errmsg_internal("%s", msg.data),
				 errdetail_internal("%s", detail.data)));
		pfree(msg.data);
		pfree(detail.data);
	}
}

/* see gsu_progress.h */
void
gsu_trace_report_next(GsuTrace *t)
{
	t->last_report_ms = -1.0;
}
