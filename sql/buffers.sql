-- Large training buffers.  Once one of gsu.train's row buffers reaches 1 MB it
-- moves into an anonymous mapping that grows in place (gsu_growbuf_resize in
-- src/gsu_train_rows.c; DEBUG1 reports the move).  These cases cross that size with
-- the means, the covariances and the weights, and check that the rows arrive
-- intact: the objective each model reports equals the objective recomputed
-- row by row in SQL at its weights, per-group models equal the models of the
-- groups trained alone, and an error after the move leaves the session
-- working.
\set SHOW_CONTEXT never
CREATE SCHEMA test_buffers;
SET search_path = test_buffers, public;

-- 6000 rows of dimension 32.  The means reach 1 MB when the buffer grows to
-- 4096 rows; the first 3000 rows are certain (NULL variance), so the
-- covariance buffer appears at row 3001 and grows past 1 MB at row 4097;
-- row weights differ from 1 after row 3500.  grp splits the rows in two
-- groups of 3000, whose mean buffers also reach 4096 rows.
CREATE TABLE wide AS
SELECT i AS id,
	(SELECT array_agg(CASE WHEN j <= 4 THEN 0.4 * l ELSE 0.0 END + 2.0 * prand(i, j) - 1.0 ORDER BY j)
	 FROM generate_series(1, 32) j) AS mean,
	CASE WHEN i > 3000 THEN
		(SELECT array_agg(0.05 + 0.5 * prand(i, 100 + j) ORDER BY j) FROM generate_series(1, 32) j)
	END AS variance,
	CASE WHEN i > 3500 THEN 1 + i % 3 ELSE 1 END::float8 AS weight,
	l AS label,
	i % 2 AS grp
FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN prand(i, 99) < 0.5 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE wide SET (parallel_workers = 2);
ANALYZE wide;

-- the objective of a model recomputed row by row: λ/2‖w‖² + Σ c_i L_i / Σ c_i
CREATE FUNCTION sql_objective(m gsu.model, weighted bool, g int DEFAULT NULL) RETURNS float8
LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ sum(c * gsu.expected_loss(m, mean, coalesce(variance, array_fill(0.0::float8, ARRAY[32])), label))
		/ sum(c)
	FROM (SELECT *, CASE WHEN weighted THEN weight ELSE 1.0 END AS c FROM wide
		  WHERE g IS NULL OR grp = g) s
$$;
CREATE FUNCTION reported(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>'objective')::float8
$$;

SET max_parallel_workers_per_gather = 0;
-- the move is reported at DEBUG1: the means, then the covariances
SET client_min_messages = debug1;
SELECT gsu.describe(gsu.train(mean, variance, label ORDER BY id))->'training'->'rows' AS rows FROM wide;
RESET client_min_messages;
CREATE TABLE serial AS SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM wide;
CREATE TABLE weighted AS SELECT gsu.train(mean, variance, label, weight, '{}' ORDER BY id) AS m FROM wide;

SELECT gsu.describe(m)->'training'->'rows' AS rows, gsu.describe(m)->'training'->'converged' AS converged,
	abs(reported(m) - sql_objective(m, false)) <= 1e-9 * reported(m) AS objective_matches
FROM serial;
SELECT gsu.describe(m)->'training'->'rows' AS rows, gsu.describe(m)->'training'->'converged' AS converged,
	abs(reported(m) - sql_objective(m, true)) <= 1e-9 * reported(m) AS objective_matches
FROM weighted;
-- the weights count: the weighted model is another model
SELECT abs(reported(w.m) - reported(s.m)) > 1e-6 AS weights_count FROM serial s, weighted w;

-- one model per group, each equal to the group's model trained alone
CREATE TABLE grouped AS SELECT grp, gsu.train(mean, variance, label ORDER BY id) AS m FROM wide GROUP BY grp;
SELECT g.grp, gsu.weights(g.m) = gsu.weights(a.m) AND gsu.bias(g.m) = gsu.bias(a.m) AS same_as_alone,
	abs(reported(g.m) - sql_objective(g.m, false, g.grp)) <= 1e-9 * reported(g.m) AS objective_matches
FROM grouped g, LATERAL (SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM wide WHERE grp = g.grp) a
ORDER BY g.grp;

-- a parallel plan: partial states from the workers are combined into one buffer
SET parallel_setup_cost = 0;
SET gsu.parallel_training = on;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE par AS SELECT gsu.train(mean, variance, label) AS m FROM wide;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET gsu.parallel_training;
SET max_parallel_workers_per_gather = 0;
SELECT gsu.describe(p.m)->'training'->'rows' AS rows,
	abs(reported(p.m) - sql_objective(p.m, false)) <= 1e-9 * reported(p.m) AS objective_matches,
	abs(reported(p.m) - reported(s.m)) <= 1e-7 * reported(s.m) AS same_optimum
FROM par p, serial s;

-- an error after the buffers moved (the last row, by id, has 2 elements) ends
-- the statement; the mappings go with its memory, and the session goes on
SELECT test_error($$SELECT gsu.train(mean, variance, label ORDER BY id)
	FROM (SELECT id, mean, variance, label FROM wide
		  UNION ALL SELECT 6001, '{1, 2}', NULL, 1) s$$);
SELECT gsu.weights(m) = (SELECT gsu.weights(m) FROM serial) AS same_again
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM wide) s;

RESET search_path;
DROP SCHEMA test_buffers CASCADE;
