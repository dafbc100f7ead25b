-- the streaming solver sgd with missing values (option "missing", docs/missing.md):
-- only with both moments given ("missing_mean" and "missing_variance"), each row's
-- NULL (with "missing_nan", NaN) mean elements are filled from them before its
-- step, the feature's variance added to the row's diagonal.  The model is sgd's
-- on the rows filled by hand, bit for bit, and carries the moments and counts
-- like the buffered path's, so its scoring reads NULLs.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing_sgd;
SET search_path = test_missing_sgd, public;
SET max_parallel_workers_per_gather = 0;

-- 200 rows of 3 features, feature 1 NULL in every 7th row, feature 3 in every
-- 5th (its variance NULL there); a label, a target, a weight
CREATE TABLE rows AS
SELECT i AS id, l AS label, 1 + i % 3 AS w,
	1.5 * x1 - 0.7 * x2 + 0.3 * x3 + 0.2 + 0.3 * pnorm(i, 4) AS y,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE l * 1.0 + x1 END, l * 0.5 + x2,
		  CASE WHEN i % 5 = 0 THEN NULL ELSE x3 END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance,
	ARRAY[[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.1 + 0.01 * (i % 4)]]::float8[] AS cov
FROM generate_series(1, 200) i,
	LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l, pnorm(i, 1) AS x1, pnorm(i, 2) AS x2, pnorm(i, 3) AS x3) c;
-- the same rows filled by hand with the moments given below
CREATE TABLE filled AS
SELECT id, label, w, y,
	ARRAY(SELECT coalesce(mean[j], (ARRAY[0.5, 0, -0.5])[j]) FROM generate_series(1, 3) j) AS mean,
	ARRAY(SELECT coalesce(variance[j], 0) + CASE WHEN mean[j] IS NULL THEN (ARRAY[2, 1, 3])[j] ELSE 0 END
		  FROM generate_series(1, 3) j)::float8[] AS variance,
	ARRAY(SELECT ARRAY(SELECT cov[i][j] + CASE WHEN i = j AND mean[j] IS NULL THEN (ARRAY[2, 1, 3])[j] ELSE 0 END
					   FROM generate_series(1, 3) j) FROM generate_series(1, 3) i)::float8[] AS cov
FROM rows;
CREATE TABLE nans AS
SELECT id, label, ARRAY(SELECT coalesce(mean[j], 'NaN') FROM generate_series(1, 3) j) AS mean, variance
FROM rows;

\set cls '{"solver": "sgd", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
\set reg '{"solver": "sgd", "loss": "squared", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
CREATE TABLE models (name text, m gsu.model, hand gsu.model);
INSERT INTO models VALUES
	('train', (SELECT gsu.train(mean, variance, label, :'cls' ORDER BY id) FROM rows),
	 (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) FROM filled)),
	('train full', (SELECT gsu.train(mean, cov, label, :'cls' ORDER BY id) FROM rows),
	 (SELECT gsu.train(mean, cov, label, '{"solver": "sgd"}' ORDER BY id) FROM filled)),
	('train weighted', (SELECT gsu.train(mean, variance, label, w, :'cls' ORDER BY id) FROM rows),
	 (SELECT gsu.train(mean, variance, label, w, '{"solver": "sgd"}' ORDER BY id) FROM filled)),
	('train nan', (SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "missing": "feature_moments", "missing_nan": true, "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}' ORDER BY id) FROM nans),
	 (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) FROM filled)),
	('regression', (SELECT gsu.train_regression(mean, variance, y, :'reg' ORDER BY id) FROM rows),
	 (SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "loss": "squared"}' ORDER BY id) FROM filled)),
	('regression svr', (SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}' ORDER BY id) FROM rows),
	 (SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd"}' ORDER BY id) FROM filled)),
	('regression weighted', (SELECT gsu.train_regression(mean, variance, y, w, :'reg' ORDER BY id) FROM rows),
	 (SELECT gsu.train_regression(mean, variance, y, w, '{"solver": "sgd", "loss": "squared"}' ORDER BY id) FROM filled));

-- the weights of sgd on the rows filled by hand, bit for bit; the moments and counts stored
SELECT name, gsu.weights(m) = gsu.weights(hand) AND gsu.bias(m) = gsu.bias(hand) AS same_bits,
	gsu.describe(m)->'missing' AS missing,
	m::jsonb->'missing'->'mean' AS stored_mean, m::jsonb->'missing'->'variance' AS stored_variance,
	gsu.describe(hand)->'missing' IS NULL AS hand_has_none
FROM models ORDER BY name;
-- the model scores rows with NULL elements as the filled rows
SELECT m.name, count(*) FILTER (WHERE gsu.decision(m.m, r.mean) = gsu.decision(m.hand, f.mean)) AS same_decision
FROM models m, rows r JOIN filled f USING (id) GROUP BY m.name ORDER BY m.name;

-- a parallel plan: the workers' counts add up (the iterates are averaged as without missing values)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off; SET gsu.parallel_training = on;
ALTER TABLE rows SET (parallel_workers = 2);
ANALYZE rows;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label, :'cls') FROM rows;
SELECT gsu.describe(gsu.train(mean, variance, label, :'cls'))->'missing' AS parallel_counts,
	gsu.describe(gsu.train_regression(mean, variance, y, :'reg'))->'missing' AS regression_counts FROM rows;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET parallel_leader_participation; RESET gsu.parallel_training;
SET max_parallel_workers_per_gather = 0;

-- errors: without both moments sgd cannot know them (22023, the hint says to give both)
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "missing": "feature_moments"}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "missing": "feature_moments", "missing_mean": [0, 0, 0]}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "missing": "feature_moments", "missing_variance": [1, 1, 1]}') FROM test_missing_sgd.rows$$);
-- the moments' length is checked with the first row; a covariance factor is refused
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "missing": "feature_moments", "missing_mean": [0, 0], "missing_variance": [1, 1]}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.train(mean, ARRAY[[0.3], [0.2], [0.1]]::float8[], label, '{"solver": "sgd", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows$$);
-- the gsu.partial paths keep no moments: gsu.train_sgd / gsu.sgd_partial and
-- gsu.train_regression_sgd / gsu.regression_sgd_partial refuse the option, moments given or not
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows$$);

DROP SCHEMA test_missing_sgd CASCADE;
