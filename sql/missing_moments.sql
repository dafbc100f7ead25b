-- gsu.missing_moments (issue 33, docs/missing.md): the feature moments that the option
-- "missing": "feature_moments" fills a NULL mean element with, as the options that give
-- them ("missing_mean", "missing_variance"), with the counts.  They are the moments a
-- buffered training computes (stored in its model), to rounding; a parallel plan gives
-- the serial result to rounding; its result minus "counts" is the options a streaming
-- aggregate needs, whose model is then the buffered one's moments' model.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing_moments;
SET search_path = test_missing_moments, public;
SET max_parallel_workers_per_gather = 0;

-- 300 rows of 3 features: feature 1 NULL in every 7th row, feature 3 in every 5th
CREATE TABLE rows AS
SELECT i AS id, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE 1.0 + pnorm(i, 1) END, 0.5 * pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE -2 + pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance,
	ARRAY[[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.1 + 0.01 * (i % 4)]]::float8[] AS cov,
	ARRAY[[0.5, 0.1 * (i % 3)], [0.2, 0.0], [0.1, 0.3]]::float8[] AS factor
FROM generate_series(1, 300) i;
CREATE TABLE nans AS
SELECT id, label, ARRAY(SELECT coalesce(mean[j], 'NaN') FROM generate_series(1, 3) j) AS mean, variance
FROM rows;

-- the result: the options of "missing", then the counts
SELECT jsonb_pretty(gsu.missing_moments(mean, variance) - 'missing_mean' - 'missing_variance') AS result FROM rows;

-- the moments of the buffered training (its model's block) to 1e-12, for every variance form
-- (a factor reads as L L^T's diagonal; its rows' missing elements are filled elsewhere)
CREATE FUNCTION same_moments(r jsonb, m gsu.model) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT bool_and(abs((r->'missing_mean'->>j)::float8 - (m::jsonb->'missing'->'mean'->>j)::float8) <= 1e-12
		AND abs((r->'missing_variance'->>j)::float8 - (m::jsonb->'missing'->'variance'->>j)::float8) <= 1e-12)
		AND (r->'counts'->'rows_missing') = (m::jsonb->'missing'->'rows')
		AND (r->'counts'->'elements_missing') = (m::jsonb->'missing'->'elements')
	FROM generate_series(0, 2) j
$$;
SELECT 'diagonal' AS variance,
	same_moments(gsu.missing_moments(mean, variance), gsu.train(mean, variance, label, '{"missing": "feature_moments"}')) AS same FROM rows
UNION ALL
SELECT 'full', same_moments(gsu.missing_moments(mean, cov), gsu.train(mean, cov, label, '{"missing": "feature_moments"}')) FROM rows
UNION ALL
SELECT 'none', same_moments(gsu.missing_moments(mean, NULL), gsu.train(mean, NULL::float8[], label, '{"missing": "feature_moments"}')) FROM rows
UNION ALL
SELECT 'factor (rows without a missing element)', same_moments(gsu.missing_moments(mean, factor), gsu.train(mean, factor, label, '{"missing": "feature_moments"}'))
FROM rows WHERE id % 5 <> 0 AND id % 7 <> 0
UNION ALL
SELECT 'NaN with missing_nan', same_moments(gsu.missing_moments(mean, variance, '{"missing_nan": true}'),
	gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_nan": true}')) FROM nans;
SELECT gsu.missing_moments(mean, variance, '{"missing_nan": true}')->'missing_nan' AS nan_option FROM nans;

-- a parallel plan (workers' states serialized and merged) gives the serial result to rounding
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
ALTER TABLE rows SET (parallel_workers = 2);
ANALYZE rows;
EXPLAIN (COSTS OFF) SELECT gsu.missing_moments(mean, variance) FROM rows;
CREATE TABLE par AS SELECT gsu.missing_moments(mean, variance) AS r FROM rows;
SELECT public.workers_launched('SELECT gsu.missing_moments(mean, variance) FROM test_missing_moments.rows');
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
SELECT same_moments(par.r, (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') FROM rows)) AS parallel_same,
	par.r->'counts' = (SELECT gsu.missing_moments(mean, variance)->'counts' FROM rows) AS same_counts
FROM par;

-- as options: the streaming aggregates fill the rows with them, as gsu.train fills its own
CREATE TABLE opts AS SELECT gsu.missing_moments(mean, variance) - 'counts' AS o FROM rows;
SELECT max(abs(a - b)) < 1e-9 AS train_sgd_as_observed
FROM (SELECT unnest(gsu.weights(gsu.train_sgd(mean, variance, label, o ORDER BY id))) AS a,
			 unnest(gsu.weights(gsu.train(mean, variance, label, o || '{"solver": "sgd"}' ORDER BY id))) AS b
	  FROM rows, opts) s;
SELECT max(abs(a - b)) < 1e-9 AS train_given_as_observed
FROM (SELECT unnest(gsu.weights(gsu.train(mean, variance, label, o || '{"lambda": 0.01}'))) AS a,
			 unnest(gsu.weights(gsu.train(mean, variance, label, '{"lambda": 0.01, "missing": "feature_moments"}'))) AS b
	  FROM rows, opts) s;

-- a feature never present: null moments, 0 present; no row: NULL; NULL means are skipped
SELECT gsu.missing_moments(ARRAY[NULL, mean[2]]::float8[], NULL) - 'counts' AS never_present,
	gsu.missing_moments(ARRAY[NULL, mean[2]]::float8[], NULL)->'counts'->'present' AS present
FROM rows;
SELECT gsu.missing_moments(mean, variance) IS NULL AS no_rows FROM rows WHERE false;
SELECT gsu.missing_moments(CASE WHEN id % 2 = 0 THEN NULL ELSE mean END, variance)->'counts'->'rows' AS rows_read FROM rows;

-- errors
SELECT test_error($$SELECT gsu.missing_moments(mean, variance, '[1]') FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(mean, variance, '{"missing_mean": [1, 2, 3]}') FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(mean, variance, '{"missing_nan": 1}') FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(mean, variance, CASE WHEN id < 9 THEN '{}'::jsonb ELSE '{"missing_nan": true}' END ORDER BY id) FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(CASE WHEN id = 9 THEN ARRAY[1.0, 2.0]::float8[] ELSE mean END, variance ORDER BY id) FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(mean, variance) FROM test_missing_moments.nans$$);
SELECT test_error($$SELECT gsu.missing_moments(mean, ARRAY[variance[1], NULL, variance[3]]) FROM test_missing_moments.rows$$);
-- a factor in a row with a missing element (refused as the training refuses it); a row whose
-- features are all missing still has its variance checked
SELECT test_error($$SELECT gsu.missing_moments(mean, factor) FROM test_missing_moments.rows$$);
SELECT test_error($$SELECT gsu.missing_moments(ARRAY[NULL, NULL]::float8[], ARRAY[NULL, NULL, 1]::float8[])$$);
-- moments past double precision
SELECT test_error($$SELECT gsu.missing_moments(CASE WHEN i = 1 THEN ARRAY[1e308, 1] ELSE ARRAY[-1e308, 1] END, NULL) FROM generate_series(1, 2) i$$);

DROP SCHEMA test_missing_moments CASCADE;
