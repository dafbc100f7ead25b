/*
 * pg_gsu.c — the module's entry point: _PG_init defines the settings
 * (gsu.max_training_memory and its ceiling, gsu.parallel_training,
 * gsu.progress; the variables training reads are gsu_glue.c's and
 * gsu_progress.c's), keeps OpenBLAS to one thread and installs the planner
 * hook of gsu_model_score.c.  The top of the glue: it includes what it installs,
 * and nothing includes it.
 */
#include "gsu_glue.h"
#include "gsu_model.h"
#include "gsu_progress.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

/*
 * The memory bound of training has two settings: gsu.max_training_memory,
 * which any role sets for its session, and gsu.max_training_memory_ceiling,
 * which only a superuser (or a role granted SET on it) sets, for the server, a
 * database, a role or a session.  Every memory check reads
 * gsu_max_training_memory_kb, the smaller of the two, which the assign hooks
 * of both keep up to date (also when a value is restored at the end of a
 * transaction or function, or in a parallel worker), so the ceiling holds
 * however the user's setting got its value.  A SET (or a function's SET
 * clause) above the ceiling is refused besides, so that a user learns of the
 * ceiling when asking for more rather than at the training.
 */
static int	training_memory_setting_kb = GSU_TRAINING_MEMORY_DEFAULT_KB;
static int	training_memory_ceiling_kb = GSU_TRAINING_MEMORY_DEFAULT_KB;

static bool
check_training_memory(int *newval, void **extra, GucSource source)
{
	/*
	 * Only a session's own SET is refused: the values of postgresql.conf, ALTER
	 * SYSTEM, ALTER DATABASE and ALTER ROLE are set in an order that may come
	 * before their ceiling (and ALTER ROLE checks its value in the session of
	 * the superuser who runs it, with that session's ceiling), and a parallel
	 * worker restores its leader's settings one by one; all of them are
	 * bounded by the ceiling where training reads the limit.
	 */
	if (source != PGC_S_SESSION || InitializingParallelWorker ||
		*newval <= training_memory_ceiling_kb)
		return true;
	GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
	GUC_check_errmsg("gsu.max_training_memory cannot be set above gsu.max_training_memory_ceiling (%d kB)",
					 training_memory_ceiling_kb);
	GUC_check_errdetail("The value asked for is %d kB.", *newval);
	GUC_check_errhint("A superuser sets the ceiling (for the server, a database, a role or a session), "
					  "or grants a role SET on it: GRANT SET ON PARAMETER gsu.max_training_memory_ceiling TO ...");
	return false;
}

static void
assign_training_memory(int newval, void *extra)
{
	gsu_max_training_memory_kb = Min(newval, training_memory_ceiling_kb);
}

static void
assign_training_memory_ceiling(int newval, void *extra)
{
	gsu_max_training_memory_kb = Min(training_memory_setting_kb, newval);
}

/* OpenBLAS must not start threads inside a backend */
extern void openblas_set_num_threads(int num_threads);
extern int	openblas_get_num_threads(void);

void		_PG_init(void);

void
_PG_init(void)
{
	/*
	 * In shared_preload_libraries the library is loaded by the postmaster,
	 * and OpenBLAS starts its helper threads when it is loaded, unless the
	 * environment says one thread.  A postmaster with threads may run its
	 * signal handlers on one of them, so say how to avoid it.
	 */
	if (process_shared_preload_libraries_in_progress &&
		openblas_get_num_threads() > 1)
		ereport(WARNING,
				(errmsg("pg_gsu is preloaded, and OpenBLAS has started %d threads in the postmaster",
						openblas_get_num_threads()),
				 errhint("Start the server with OPENBLAS_NUM_THREADS=1 in its environment.")));
	openblas_set_num_threads(1);

	/* the ceiling first, so that the setting's check sees its value */
	DefineCustomIntVariable("gsu.max_training_memory_ceiling",
							"The most gsu.max_training_memory can be: set by a superuser, "
							"bounds every session's training memory.",
							"A session cannot SET gsu.max_training_memory above it, and training "
							"uses the smaller of the two however the setting was made.",
							&training_memory_ceiling_kb,
							GSU_TRAINING_MEMORY_DEFAULT_KB,
							64, PG_INT32_MAX / 2,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, assign_training_memory_ceiling, NULL);
	DefineCustomIntVariable("gsu.max_training_memory",
							"Upper bound on the memory a buffering gsu.train aggregate may use.",
							"Past it, training stops with an error; use the streaming solver "
							"(\"solver\": \"sgd\") for larger data. Bounded by "
							"gsu.max_training_memory_ceiling.",
							&training_memory_setting_kb,
							GSU_TRAINING_MEMORY_DEFAULT_KB,
							64, PG_INT32_MAX / 2,
							PGC_USERSET,
							GUC_UNIT_KB,
							check_training_memory, assign_training_memory, NULL);
	DefineCustomBoolVariable("gsu.parallel_training",
							 "Lets the planner run gsu.train as a parallel aggregate.",
							 "Off, the combine step of gsu.train is costed so that the planner "
							 "keeps training serial: the buffered solvers (newton, pegasos) "
							 "ship every row from the workers to the leader, which costs more "
							 "than the parallel scan saves. Worth turning on for solver sgd.",
							 &gsu_parallel_training,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("gsu.progress",
							"Reports the passes of every training as NOTICEs: -1 never, 0 every pass, "
							"else at most one report per this interval.",
							"A report names the pass and gives the objective, the gradient norm "
							"and the gap where the solver measures them, and the time since the "
							"training started. The models keep the history whatever the setting "
							"(gsu.training_info).",
							&gsu_progress_ms,
							-1,
							-1, PG_INT32_MAX,
							PGC_USERSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("gsu");
	gsu_score_planner_init();
}
