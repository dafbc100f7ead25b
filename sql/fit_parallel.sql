-- gsu.fit's scans run with parallel workers when the planner picks them (issue 31): on a
-- table past min_parallel_table_scan_size (8 MB) with the default settings, a scan of
-- gsu.hessian is a parallel aggregate, and gsu.fit executes it so (its one-row queries
-- are run for all their rows: PostgreSQL starts no worker for an execution asked for a
-- number of rows).  The running state of gsu.hessian holds a block of pending Hessian terms
-- (added by dsyrk); a worker's partial, the final value and the serial value are the same
-- sums to rounding.
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET jit = off;
CREATE TABLE fp_big AS
SELECT i AS id, ARRAY[sin(i * 0.7), cos(i * 1.3)] AS mean,
	ARRAY[0.05 + 0.1 * (i % 7) / 7.0, 0.1 + 0.05 * (i % 5) / 5.0] AS variance,
	CASE WHEN sin(i * 0.7) + 0.5 * cos(i * 1.3) + 0.3 * sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label,
	repeat('x', 800) AS pad			-- pages for the planner, not rows to compute (8 rows a page)
FROM generate_series(1, 30000) i;
VACUUM ANALYZE fp_big;
-- three times min_parallel_table_scan_size: two workers
SELECT pg_relation_size('fp_big') > 3 * pg_size_bytes(current_setting('min_parallel_table_scan_size')) AS past_three_thresholds,
	current_setting('max_parallel_workers_per_gather') AS workers_per_gather;

-- the query of a scan (gsu_fit_pass_query's form) is planned with workers
EXPLAIN (COSTS OFF)
SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0::float8, 0::float8) AS p, 0 AS i FROM fp_big;

-- a worker's partial holds the block's terms: the parallel sums are the serial ones to rounding
CREATE TEMP TABLE fp_sums AS
SELECT 'parallel' AS plan, gsu.hessian(mean, variance, label, NULL::gsu.model, 0.1::float8, 0::float8)::text::jsonb AS h FROM fp_big;
SET max_parallel_workers_per_gather = 0;
INSERT INTO fp_sums
SELECT 'serial', gsu.hessian(mean, variance, label, NULL::gsu.model, 0.1::float8, 0::float8)::text::jsonb FROM fp_big;
RESET max_parallel_workers_per_gather;
SELECT a.h->'rows' AS rows, (a.h->'rows') = (b.h->'rows') AS same_rows,
	bool_and(abs(x.v::float8 - y.v::float8) <= 1e-10 * (1 + abs(y.v::float8))) AS same_sums,
	count(*) AS elements
FROM fp_sums a, fp_sums b,
	LATERAL jsonb_array_elements(a.h->'vector') WITH ORDINALITY x(v, i)
	JOIN LATERAL jsonb_array_elements(b.h->'vector') WITH ORDINALITY y(v, i) USING (i)
WHERE a.plan = 'parallel' AND b.plan = 'serial'
GROUP BY a.h, b.h;

-- gsu.fit's scans run in parallel workers: through a view whose label calls a function
-- that fails in any process but this one, with the leader not reading rows itself (the
-- two workers' plan is still the cheaper), the scans fail with the worker's error;
-- without workers the same training succeeds.
-- (From "init", so every scan is a scan of gsu.hessian: no sample.)
SELECT set_config('fp.leader', pg_backend_pid()::text, false) IS NOT NULL AS leader_set;
CREATE FUNCTION fp_guard(l int) RETURNS int LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
	IF pg_backend_pid() <> current_setting('fp.leader')::int THEN
		RAISE EXCEPTION 'a parallel worker read the rows';
	END IF;
	RETURN l;
END $$;
CREATE VIEW fp_guarded AS SELECT id, mean, variance, fp_guard(label) AS label FROM fp_big;
SET parallel_leader_participation = off;
SELECT test_error($$SELECT gsu.fit('fp_guarded', 'mean', 'variance', 'label', '{"lambda": 1e-3, "init": {"format": 1, "dim": 2, "weights": [0, 0], "bias": 0}}')$$);
SET max_parallel_workers_per_gather = 0;
SELECT test_error($$SELECT gsu.fit('fp_guarded', 'mean', 'variance', 'label', '{"lambda": 1e-3, "init": {"format": 1, "dim": 2, "weights": [0, 0], "bias": 0}}')$$);
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- and the model of the parallel scans is the serial one to rounding, in as many scans
CREATE TEMP TABLE fp_models AS
SELECT 'parallel' AS plan, gsu.fit('fp_big', 'mean', 'variance', 'label', '{"lambda": 1e-3}') AS m;
SET max_parallel_workers_per_gather = 0;
INSERT INTO fp_models SELECT 'serial', gsu.fit('fp_big', 'mean', 'variance', 'label', '{"lambda": 1e-3}');
RESET max_parallel_workers_per_gather;
SELECT (gsu.describe(a.m)->'training'->>'passes') = (gsu.describe(b.m)->'training'->>'passes') AS same_scans,
	abs((gsu.describe(a.m)->'training'->>'objective')::float8 - (gsu.describe(b.m)->'training'->>'objective')::float8)
		<= 1e-10 * (gsu.describe(b.m)->'training'->>'objective')::float8 AS same_objective,
	(gsu.describe(a.m)->'training'->>'converged')::bool AS converged
FROM fp_models a, fp_models b WHERE a.plan = 'parallel' AND b.plan = 'serial';

DROP VIEW fp_guarded;
DROP FUNCTION fp_guard(int);
DROP TABLE fp_big;
RESET jit;
