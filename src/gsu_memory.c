/*
 * gsu_memory.c — the count of what pg_gsu's aggregate states hold, against
 * gsu.max_training_memory for the whole query (see gsu_memory.h).
 */
#include "gsu_memory.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "nodes/primnodes.h"
#include "optimizer/cost.h"
#include "utils/elog.h"

/* bytes the live charges of this process hold */
static Size gsu_mem_used = 0;

Size
gsu_mem_limit(void)
{
	return (Size) gsu_max_training_memory_kb * 1024;
}

/* the workers a parallel plan may have: max_parallel_workers_per_gather, at least 1 */
static int
planned_workers(void)
{
	return Max(max_parallel_workers_per_gather, 1);
}

/* what a parallel worker's states may hold: limit / (2 (W + 1)) */
static Size
worker_budget(void)
{
	return gsu_mem_limit() / (2 * (Size) (planned_workers() + 1));
}

/* a parallel worker, or the leader of a plan with parallel workers */
static bool
in_parallel_plan(void)
{
	return IsParallelWorker() || IsInParallelMode();
}

static Size
budget(const GsuMemCharge *c)
{
	if (c->whole || !in_parallel_plan())
		return gsu_mem_limit();
	if (IsParallelWorker())
		return worker_budget();
	return gsu_mem_limit() - (Size) planned_workers() * worker_budget();
}

static void
release(void *arg)
{
	GsuMemCharge *c = (GsuMemCharge *) arg;

	gsu_mem_used -= Min(c->bytes, gsu_mem_used);
	c->bytes = 0;
}

static GsuMemCharge *
new_charge(MemoryContext cxt, AggSplit split)
{
	GsuMemCharge *c = MemoryContextAllocZero(cxt, sizeof(GsuMemCharge));

	c->whole = split == AGGSPLIT_SIMPLE;
	c->copies = DO_AGGSPLIT_SERIALIZE(split) ? 2 : 1;
	c->cb.func = release;
	c->cb.arg = c;
	MemoryContextRegisterResetCallback(cxt, &c->cb);
	return c;
}

GsuMemCharge *
gsu_mem_charge(MemoryContext cxt, FunctionCallInfo fcinfo)
{
	Aggref	   *ag = fcinfo ? AggGetAggref(fcinfo) : NULL;

	return new_charge(cxt, ag ? ag->aggsplit : AGGSPLIT_SIMPLE);
}

GsuMemCharge *
gsu_mem_charge_deserialized(MemoryContext cxt)
{
	GsuMemCharge *c = new_charge(cxt, AGGSPLIT_FINAL_DESERIAL);

	c->deserialized = true;
	return c;
}

Size
gsu_mem_room(const GsuMemCharge *c)
{
	Size		b = budget(c);
	Size		others = gsu_mem_used - Min(c->bytes, gsu_mem_used);

	return others >= b ? 0 : (b - others) / (Size) c->copies;
}

/* see gsu_memory.h */
Size
gsu_mem_room_for(const GsuMemCharge *c, Size wire_bytes)
{
	Size		room = c ? gsu_mem_room(c) : gsu_mem_limit();

	return room - Min(room, wire_bytes);
}

void
gsu_mem_set(GsuMemCharge *c, Size bytes)
{
	Size		count = bytes > MaxAllocHugeSize ? MaxAllocHugeSize : bytes * (Size) c->copies;

	gsu_mem_used -= Min(c->bytes, gsu_mem_used);
	c->bytes = count;
	gsu_mem_used += count;
}

int
gsu_mem_errhint(const GsuMemCharge *c, const char *hint)
{
	if (c == NULL || c->whole)
		return errhint("%s", hint);
	if (!in_parallel_plan())
		return errhint("%s The aggregate is split into partial and final steps (as partitionwise "
					   "aggregation does), whose states and their serialized copies all count: "
					   "this process may hold %zu kB.", hint, budget(c) / 1024);
	return errhint("%s The aggregate is split for a parallel plan, which shares the limit among "
				   "the leader and its workers (up to max_parallel_workers_per_gather = %d): "
				   "this %s may hold %zu kB%s. SET max_parallel_workers_per_gather = 0 gives one "
				   "process the whole limit.",
				   hint, planned_workers(), IsParallelWorker() ? "worker" : "leader",
				   budget(c) / 1024,
				   c->copies > 1 ? ", a partial state counted twice for its serialized copy" : "");
}

void
gsu_mem_require(GsuMemCharge *c, Size bytes, const char *what, const char *detail,
				const char *hint)
{
	if (bytes > gsu_mem_room(c))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs more than gsu.max_training_memory (%d kB)",
						what, gsu_max_training_memory_kb),
				 errdetail("%s needs %zu kB.", detail, (bytes + 1023) / 1024),
				 gsu_mem_errhint(c, hint)));
	gsu_mem_set(c, bytes);
}

/* see gsu_memory.h */
Size
gsu_mem_split_state_room(void)
{
	if (max_parallel_workers_per_gather <= 0)
		return gsu_mem_limit();
	/* a worker's budget, its partial state counted twice (the serialized copy) */
	return worker_budget() / 2;
}
