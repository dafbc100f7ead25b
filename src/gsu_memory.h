/*
 * gsu_memory.h — what the buffering aggregates hold, counted against
 * gsu.max_training_memory for the whole query.
 *
 * Every aggregate state that grows with the rows or with d² takes a charge
 * (GsuMemCharge) in the memory context that holds it, sets it to the bytes
 * the state is about to hold before it allocates them, and refuses with the
 * limit's error (54000) when this process's pg_gsu states would hold more
 * than its budget.  A charge goes when its context is reset or deleted
 * (at the end of the query, or of the error that aborted it), so the count
 * is the sum over the states that are alive in this process.
 *
 * The budget (gsu_mem_budget):
 *  - an aggregate that runs whole in one process (not split into partial
 *    and final steps, with or without parallel workers below it): the limit;
 *  - an aggregate split for a parallel plan of W = max_parallel_workers_per_gather
 *    workers: a parallel worker's states may hold limit / (2 (W + 1)), and a
 *    partial state counts twice there (its serialized copy is as large, and
 *    PostgreSQL keeps the copy the leader receives); the leader may hold the
 *    rest, limit − W · limit / (2 (W + 1)), which counts its own partial
 *    state (twice), each deserialized state with the serialized bytes it came
 *    from, and the combined state.
 * So the pg_gsu states of a parallel plan hold at most the limit, counting
 * each copy (docs/limits.md).
 */
#ifndef GSU_MEMORY_H
#define GSU_MEMORY_H

#include "gsu_glue.h"

typedef struct GsuMemCharge
{
	MemoryContextCallback cb;	/* releases the charge with its context */
	Size		bytes;			/* bytes counted: the state's bytes × copies */
	int			copies;			/* 2 for a partial state that will be serialized */
	bool		whole;			/* the aggregate is not split: budget = the limit */
	bool		deserialized;	/* a state made by a deserialize function */
} GsuMemCharge;

/* gsu.max_training_memory in bytes */
Size		gsu_mem_limit(void);

/*
 * A charge of 0 bytes in cxt (the context that holds the state), for the
 * aggregate call fcinfo (its Aggref says whether the aggregate is split, and
 * which step this is).
 */
GsuMemCharge *gsu_mem_charge(MemoryContext cxt, FunctionCallInfo fcinfo);

/*
 * The charge of a state that a deserialize function makes (in the leader's
 * final step of a split aggregate, where the Aggref is not at hand).
 */
GsuMemCharge *gsu_mem_charge_deserialized(MemoryContext cxt);

/* The most a state of charge c may hold, in bytes, besides this process's other states. */
Size		gsu_mem_room(const GsuMemCharge *c);

/*
 * The bytes a state of charge c may hold for its own data: gsu_mem_room (the
 * whole limit when c is NULL), less wire_bytes, the serialized bytes a
 * deserialized state came from (0 for any other).
 */
Size		gsu_mem_room_for(const GsuMemCharge *c, Size wire_bytes);

/* Records that c's state now holds bytes (call after checking gsu_mem_room). */
void		gsu_mem_set(GsuMemCharge *c, Size bytes);

/*
 * Checks that c's state may hold bytes, and records it; otherwise the error
 * "<what> needs more than gsu.max_training_memory (N kB)" (54000) with
 * detail "<detail> needs X kB." and hint (gsu_mem_errhint).
 */
void		gsu_mem_require(GsuMemCharge *c, Size bytes, const char *what,
							const char *detail, const char *hint);

/*
 * errhint(hint) for a limit error, with, when the aggregate is split for
 * parallel workers, what this process's share of the limit was and how to
 * give the query the whole limit.  For use inside ereport().
 */
int			gsu_mem_errhint(const GsuMemCharge *c, const char *hint);

/*
 * The most one state may hold (counted once) in a query of this session
 * whose aggregate the planner may split for parallel workers: the limit
 * when max_parallel_workers_per_gather is 0, else a worker's budget halved
 * (its partial state counts twice).  For a caller that picks a method by
 * what its aggregate's state will need (gsu.fit: the Hessian of a newton
 * scan).
 */
Size		gsu_mem_split_state_room(void);

#endif							/* GSU_MEMORY_H */
