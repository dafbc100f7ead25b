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
-- the gsu.partial aggregates take it too (their state keeps the moments and counts)
\set stream '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
\set stream_nan '{"missing": "feature_moments", "missing_nan": true, "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
\set stream_reg '{"loss": "squared", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
INSERT INTO models VALUES
	('train_sgd', (SELECT gsu.train_sgd(mean, variance, label, :'stream' ORDER BY id) FROM rows),
	 (SELECT gsu.train_sgd(mean, variance, label, '{}' ORDER BY id) FROM filled)),
	('train_sgd full', (SELECT gsu.train_sgd(mean, cov, label, :'stream' ORDER BY id) FROM rows),
	 (SELECT gsu.train_sgd(mean, cov, label, '{}' ORDER BY id) FROM filled)),
	('train_sgd nan', (SELECT gsu.train_sgd(mean, variance, label, :'stream_nan' ORDER BY id) FROM nans),
	 (SELECT gsu.train_sgd(mean, variance, label, '{}' ORDER BY id) FROM filled)),
	('sgd_partial', (SELECT gsu.to_model(gsu.sgd_partial(mean, variance, label, :'stream' ORDER BY id)) FROM rows),
	 (SELECT gsu.train_sgd(mean, variance, label, '{}' ORDER BY id) FROM filled)),
	('train_regression_sgd', (SELECT gsu.train_regression_sgd(mean, variance, y, :'stream_reg' ORDER BY id) FROM rows),
	 (SELECT gsu.train_regression_sgd(mean, variance, y, '{"loss": "squared"}' ORDER BY id) FROM filled)),
	('train_regression_sgd svr', (SELECT gsu.train_regression_sgd(mean, cov, y, :'stream' ORDER BY id) FROM rows),
	 (SELECT gsu.train_regression_sgd(mean, cov, y, '{}' ORDER BY id) FROM filled)),
	('regression_sgd_partial', (SELECT gsu.to_model(gsu.regression_sgd_partial(mean, variance, y, :'stream_reg' ORDER BY id)) FROM rows),
	 (SELECT gsu.train_regression_sgd(mean, variance, y, '{"loss": "squared"}' ORDER BY id) FROM filled));

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
EXPLAIN (COSTS OFF) SELECT gsu.train_sgd(mean, variance, label, :'stream') FROM rows;
SELECT gsu.describe(gsu.train_sgd(mean, variance, label, :'stream'))->'missing' AS train_sgd_counts,
	gsu.describe(gsu.train_regression_sgd(mean, variance, y, :'stream_reg'))->'missing' AS regression_sgd_counts FROM rows;
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
-- the gsu.partial aggregates: the same rules (both moments, no factor, one value per feature)
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5]}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.regression_sgd_partial(mean, variance, y, '{"missing": "feature_moments", "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.sgd_partial(mean, ARRAY[[0.3], [0.2], [0.1]]::float8[], label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows WHERE id % 7 = 0$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"missing": "feature_moments", "missing_mean": [0, 0], "missing_variance": [1, 1]}') FROM test_missing_sgd.rows$$);
-- a NaN is missing only with "missing_nan"; a row may not turn the option off
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.nans$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{}' END ORDER BY id) FROM test_missing_sgd.rows$$);

SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{"missing": "feature_moments", "missing_nan": true, "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}' END ORDER BY id) FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.sgd_partial(mean, variance, label, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{"missing": "feature_moments", "missing_mean": [9, 9, 9], "missing_variance": [2, 1, 3]}' END ORDER BY id) FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{}' END ORDER BY id) FROM test_missing_sgd.rows$$);
SELECT test_error($$SELECT gsu.regression_sgd_partial(mean, variance, y, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 4]}' END ORDER BY id) FROM test_missing_sgd.rows$$);
-- ... and the same moments in another form of the options are the same options
SELECT gsu.train_sgd(mean, variance, label, CASE WHEN id < 3 THEN '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'::jsonb ELSE '{"missing_variance": [2.0, 1, 3], "missing": "feature_moments", "missing_mean": [0.50, 0, -0.5]}' END ORDER BY id) IS NOT NULL AS same_moments FROM rows;

-- the partial of "missing" (format 4): its iterate, then the moments and the two counts
CREATE TABLE parts AS
SELECT id % 2 AS half, gsu.sgd_partial(mean, variance, label, :'stream' ORDER BY id) AS p
FROM rows GROUP BY id % 2;
SELECT half, p::text::jsonb - 'vector' - 'loss_sum' AS head, jsonb_path_query_array(p::text::jsonb, '$.vector[4 to 11]') AS block
FROM parts ORDER BY half;
-- exact text and binary round trips
SELECT bool_and(p::text::gsu.partial::text = p::text) AS text_same FROM parts;
CREATE TABLE copied (half int, p gsu.partial);
SELECT regress_file('missing_sgd') AS regress_file \gset
COPY parts TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT count(*) AS n, bool_and(c.p::text = t.p::text) AS binary_same FROM copied c JOIN parts t USING (half);
-- combined elsewhere: the counts add up to the whole table's
SELECT gsu.describe(gsu.to_model(gsu.sum(p)))->'missing' AS summed FROM parts;
-- partials of other moments, or without the option, do not combine (22000)
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT p FROM test_missing_sgd.parts WHERE half = 0 UNION ALL
	SELECT gsu.sgd_partial(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0, 0, 0], "missing_variance": [2, 1, 3]}') FROM test_missing_sgd.rows) s$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT p FROM test_missing_sgd.parts WHERE half = 0 UNION ALL
	SELECT gsu.sgd_partial(mean, variance, label, '{}') FROM test_missing_sgd.filled) s$$);
-- hostile text: the keys belong to sgd partials of format 4, the block is checked
SELECT p::text AS t FROM parts WHERE half = 0 \gset
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', '"format": 4', '"format": 3')));
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', '"feature_moments"', '"mean"')));
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', ', "missing": "feature_moments"', '')));
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', '"missing": "feature_moments"', '"missing_nan": true')));
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', '"vector": [', '"vector": [1, ')));
SELECT test_error(format('SELECT %L::gsu.partial', replace(:'t', '-0.5, 2, 1, 3,', '-0.5, 2, -1, 3,')));
SELECT test_error($$SELECT '{"format": 4, "kind": "gradient", "dim": 1, "missing": "feature_moments", "vector": [1, 2, 0, 0, 0, 0]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 4, "kind": "sgd", "dim": 1, "rows": 2, "missing": "feature_moments", "vector": [1, 2, 0, 1, 3, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 4, "kind": "sgd", "dim": 1, "rows": 2, "missing": "feature_moments", "vector": [1, 2, 0, 1, 1, 0.5]}'::gsu.partial$$);
-- hostile binary: the flag of "missing_nan" alone, a flag on a value of format 3
CREATE TABLE recv_tmp (p gsu.partial);
CREATE FUNCTION recv_partial(b bytea) RETURNS gsu.partial LANGUAGE plpgsql AS $f$
DECLARE
	r gsu.partial;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('missing_sgd'));
	TRUNCATE recv_tmp;
	EXECUTE format('COPY recv_tmp FROM %L (FORMAT binary)', public.regress_file('missing_sgd'));
	SELECT p INTO r FROM recv_tmp;
	RETURN r;
END
$f$;
CREATE TABLE wire AS SELECT gsu.partial_send(p) AS b FROM parts WHERE half = 0;
SELECT recv_partial(b)::text = (SELECT p::text FROM parts WHERE half = 0) AS same, get_byte(b, 1) AS format, get_byte(b, 39) AS flags FROM wire;
SELECT test_error($$SELECT test_missing_sgd.recv_partial(overlay(b placing '\x0002'::bytea from 39)) FROM test_missing_sgd.wire$$);
SELECT test_error($$SELECT test_missing_sgd.recv_partial(overlay(b placing '\x0003'::bytea from 1)) FROM test_missing_sgd.wire$$);

DROP SCHEMA test_missing_sgd CASCADE;
