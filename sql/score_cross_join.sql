-- Scoring with a cross-joined model in a parallel plan (issue 31 part 5).
-- PostgreSQL 15 never materializes the inner side of a partial nested loop, so
-- with FROM rows, models each worker rescanned models for every row it scored;
-- pg_gsu's join-path hook (gsu_model_score.c) offers the nested loop over a
-- Materialize, and the planner takes it on its costs. The plans below are
-- what docs/performance.md ("Scoring with a cross-joined model") shows.
\set SHOW_CONTEXT never

-- PostgreSQL's default cost settings, whatever the server's are
SET seq_page_cost = 1;
SET random_page_cost = 4;
SET cpu_tuple_cost = 0.01;
SET cpu_operator_cost = 0.0025;
SET parallel_setup_cost = 1000;
SET parallel_tuple_cost = 0.1;
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = '8MB';
SET parallel_leader_participation = on;
SET enable_material = on;
SET jit = off;

CREATE TABLE cj_rows AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS mean, ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 50000) i;
ALTER TABLE cj_rows SET (parallel_workers = 2);
ANALYZE cj_rows;
-- a model table as users make one: never analyzed (autovacuum does not
-- analyze a table of one row), so the planner guesses it holds many rows
CREATE TABLE cj_model AS SELECT gsu.train(mean, variance, label) AS model FROM cj_rows WHERE id <= 1000;

-- the scoring functions name the support function that loads pg_gsu (and its
-- hook) when the planner simplifies a query that scores
SELECT p.oid::regprocedure AS function, p.prosupport
FROM pg_proc p
WHERE p.pronamespace = 'gsu'::regnamespace AND p.prosupport <> 0
ORDER BY 1::text COLLATE "C";

-- the cross join the issue measured: each worker scores its share of the rows
-- against a Materialize of the model (before: a Seq Scan on cj_model rescanned
-- per row, no Materialize)
EXPLAIN (COSTS OFF)
SELECT sum(gsu.decision(m, mean)) FROM cj_rows, (SELECT model m FROM cj_model) s;
-- the same with a filter on the rows, a test on the model table, a JOIN ... ON TRUE
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cj_rows t CROSS JOIN cj_model m WHERE gsu.predict(m.model, t.mean) = 1;
EXPLAIN (COSTS OFF)
SELECT sum(gsu.confidence(m.model, t.mean, t.variance)) FROM cj_rows t JOIN cj_model m ON true
WHERE gsu.classes(m.model) = '{-1,1}';
-- the form the docs recommended before, a scalar subquery: an InitPlan whose
-- value the workers receive as a parameter
EXPLAIN (COSTS OFF)
SELECT sum(gsu.decision((SELECT model FROM cj_model), mean)) FROM cj_rows;

-- the planner's estimate of the model table does not matter: analyzed (one row)
ANALYZE cj_model;
EXPLAIN (COSTS OFF)
SELECT sum(gsu.decision(m.model, t.mean)) FROM cj_rows t CROSS JOIN cj_model m;
-- nor the price of moving rows to the leader (bench/run.sh's parallel settings):
-- with parallel_tuple_cost = 0 the cheapest scan of the model table is a Gather,
-- which a worker cannot run, and the hook materializes the plain scan instead
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT sum(gsu.decision(m.model, t.mean)) FROM cj_rows t CROSS JOIN cj_model m;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
SET min_parallel_table_scan_size = '8MB';

-- the hook leaves alone: a join whose inner side brings no value of a gsu type
-- (PostgreSQL's own plan, the rescan per row), and a plan with enable_material off
CREATE TABLE cj_one AS SELECT 2.0::float8 AS w;
EXPLAIN (COSTS OFF)
SELECT sum(t.mean[1] * o.w) FROM cj_rows t CROSS JOIN cj_one o;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT sum(gsu.decision(m.model, t.mean)) FROM cj_rows t CROSS JOIN cj_model m;
SET enable_material = on;

-- the answers agree with the scalar subquery's, serial and parallel
SELECT round(sum(gsu.decision(m.model, t.mean))::numeric, 6) AS cross_join,
	(SELECT round(sum(gsu.decision((SELECT model FROM cj_model), mean))::numeric, 6) FROM cj_rows) AS scalar_subquery,
	count(*) AS scored
FROM cj_rows t CROSS JOIN cj_model m;
SET max_parallel_workers_per_gather = 0;
SELECT round(sum(gsu.decision(m.model, t.mean))::numeric, 6) AS cross_join_serial,
	count(*) AS scored
FROM cj_rows t CROSS JOIN cj_model m;
-- two models: every row is scored by each
INSERT INTO cj_model SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') FROM cj_rows WHERE id <= 1000;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) AS scored FROM cj_rows t CROSS JOIN cj_model m WHERE gsu.decision(m.model, t.mean) IS NOT NULL;

RESET ALL;
DROP TABLE cj_rows, cj_model, cj_one;
