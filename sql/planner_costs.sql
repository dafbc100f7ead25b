-- Planner costs and row estimates (issue 29): every function the planner charges
-- per row or per call has a COST measured by bench/procost.sh in units of a builtin
-- operator call (docs/performance.md, "Planner costs"), and gsu.explain and
-- gsu.cross_validate a ROWS estimate. The plans below follow from the costs alone
-- (COSTS OFF, no timing): the cheaper of two tests on a row runs first, an expensive
-- expression is evaluated after ORDER BY ... LIMIT, and a filter with gsu.confidence
-- is run by parallel workers on a table that a builtin filter would scan serially.
\set SHOW_CONTEXT never

-- the costs and row estimates that differ from PostgreSQL's defaults (1 for a C
-- function, 100 for PL/pgSQL; 1000 rows for a set-returning function); an
-- aggregate's cost is its transition function's, per input row
SELECT p.oid::regprocedure AS function, p.procost AS cost, p.prorows AS rows
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'gsu'::regnamespace AND p.prokind = 'f'
  AND (p.procost <> CASE l.lanname WHEN 'c' THEN 1 ELSE 100 END
	   OR (p.proretset AND p.prorows <> 1000))
ORDER BY p.oid::regprocedure::text COLLATE "C";
-- the ones left at the default: support functions (type input and output, casts,
-- equality and hashing, the combine, serial, deserial and final functions of the
-- aggregates, whose per-call cost the planner charges per group or per worker),
-- and the transition of gsu.refset_agg, on purpose: its partial states carry every
-- row to the leader, which no cost the planner sees prices, and at its measured
-- cost the planner splits a refset_agg over workers and their shares of
-- gsu.max_training_memory
SELECT p.oid::regprocedure AS function_at_default_cost
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'gsu'::regnamespace
  AND p.procost = CASE l.lanname WHEN 'c' THEN 1 ELSE 100 END
  AND p.prokind = 'f'
  AND p.proname !~ '(_in|_out|_recv|_send|_eq|_ne|_hash|_hash_extended|_combinefn|_serialfn|_deserialfn|_finalfn|_to_jsonb|_from_jsonb|_support)$'
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- the plans: PostgreSQL's default cost settings, whatever the server's are
SET seq_page_cost = 1;
SET random_page_cost = 4;
SET cpu_tuple_cost = 0.01;
SET cpu_operator_cost = 0.0025;
SET parallel_setup_cost = 1000;
SET parallel_tuple_cost = 0.1;
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;
SET jit = off;
CREATE TABLE pc_rows AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS mean, ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 50000) i;
ALTER TABLE pc_rows SET (parallel_workers = 2);
ANALYZE pc_rows;
CREATE TABLE pc_model AS SELECT gsu.train(mean, variance, label) AS m FROM pc_rows WHERE id <= 1000;
-- the model a parameter of a generic plan ($1), as a scalar subquery or a client's
-- parameter would give it: the planner does not see its value
SET plan_cache_mode = force_generic_plan;

-- the order of the tests on a row: gsu.predict (50) before gsu.confidence (100),
-- whichever is written first (with both at cost 1, the order written)
SET max_parallel_workers_per_gather = 0;
PREPARE pc_filter(gsu.model) AS
SELECT id FROM pc_rows WHERE gsu.confidence($1, mean, variance) > 0.9 AND gsu.predict($1, mean) = 1;
EXPLAIN (COSTS OFF) EXECUTE pc_filter(NULL);
-- ORDER BY ... LIMIT: an expression that costs more than 10 builtin calls is
-- evaluated on the rows the LIMIT keeps, above the Sort (the Sort's output has no
-- gsu.confidence)
PREPARE pc_top(gsu.model) AS
SELECT id, gsu.confidence($1, mean, variance) FROM pc_rows ORDER BY id LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pc_top(NULL);

-- a parallel plan for a filter on gsu.confidence over 50000 rows (the saving of
-- 2 workers on it outweighs parallel_setup_cost); at the old cost of 1 the plan
-- is serial, as it is for a builtin filter
SET max_parallel_workers_per_gather = 2;
PREPARE pc_count(gsu.model) AS
SELECT count(*) FROM pc_rows WHERE gsu.confidence($1, mean, variance) > 0.9;
EXPLAIN (COSTS OFF) EXECUTE pc_count(NULL);
EXPLAIN (COSTS OFF) SELECT count(*) FROM pc_rows WHERE mean[1] + mean[2] > 0.9;
BEGIN;
ALTER FUNCTION gsu.confidence(gsu.model, float8[], float8[]) COST 1;
PREPARE pc_count_old(gsu.model) AS
SELECT count(*) FROM pc_rows WHERE gsu.confidence($1, mean, variance) > 0.9;
EXPLAIN (COSTS OFF) EXECUTE pc_count_old(NULL);
ROLLBACK;
SELECT procost FROM pg_proc WHERE oid = 'gsu.confidence(gsu.model, float8[], float8[])'::regprocedure;
DEALLOCATE ALL;

-- row estimates: gsu.explain, a row per feature and one for the bias (a two-class
-- model of 50 features); gsu.cross_validate, a row per lambda or combination
CREATE FUNCTION pc_plan_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN plan->0->'Plan'->>'Plan Rows';
END
$$;
SELECT pc_plan_rows($$SELECT * FROM gsu.explain(NULL, ARRAY[1, 2]::float8[])$$) AS explain_rows,
	pc_plan_rows($$SELECT * FROM gsu.cross_validate('pc_rows', 'mean', 'variance', 'label', ARRAY[0.1, 1]::float8[])$$) AS cross_validate_rows;

RESET ALL;
DROP FUNCTION pc_plan_rows(text);
DROP TABLE pc_rows, pc_model;
