-- gsu.max_training_memory bounds the whole query's buffered state (issue 27,
-- parts 6 and 7b): a parallel plan shares the limit among the leader and its
-- workers, a partial state counts twice (its serialized copy), a combine
-- checks A + B before it grows, and d x d states and results count too.
\set SHOW_CONTEXT never
CREATE SCHEMA test_memory_parallel;
SET search_path = test_memory_parallel, public;

-- 10000 labelled rows of dimension 4 (36 bytes a row: 352 kB)
CREATE TABLE mp_rows AS
SELECT i AS id, ARRAY[sin(i), cos(i), sin(2 * i), cos(3 * i)]::float8[] AS mean,
	ARRAY[0.01, 0.02, 0.01, 0.03]::float8[] AS variance, i % 3 AS label
FROM generate_series(1, 10000) i;
ALTER TABLE mp_rows SET (parallel_workers = 2);
ANALYZE mp_rows;

SET gsu.max_training_memory = '1MB';
-- serial: the state and the result's copy of it fit in 1 MB
SELECT (gsu.describe_refset(gsu.refset_agg(mean, label))->>'rows')::int AS rows FROM mp_rows;

-- a forced parallel plan (settings valid in PostgreSQL 15 and 17), the
-- workers only: each worker may hold 1 MB / (2 (2 + 1)) = 170 kB, and its
-- partial state counts twice, so half of the table is refused in a worker
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.refset_agg(mean, label) FROM mp_rows;
SELECT test_error($$SELECT gsu.refset_agg(mean, label) FROM mp_rows$$);
-- a tenth of it fits
SELECT (gsu.describe_refset(gsu.refset_agg(mean, label))->>'rows')::int AS rows FROM mp_rows WHERE id % 10 = 0;
-- gsu.geu_fit's MFA rows, the same way
SELECT test_error($$SELECT gsu.geu_fit(mean, variance, label, '{"method": "mfa", "dims": 2}') FROM mp_rows$$);
-- gsu.train with gsu.parallel_training: parallel.sql shows it

-- the combine step: partitionwise aggregation splits the aggregate into a
-- partial step per partition and a final step, in one process (no workers):
-- the partial states, their serialized copies and the combined state all
-- count, and the final step's combine of two 3000-row states (A + B) is
-- refused before it grows
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE mp_parts (id int, mean float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE mp_parts_1 PARTITION OF mp_parts FOR VALUES FROM (1) TO (5001);
CREATE TABLE mp_parts_2 PARTITION OF mp_parts FOR VALUES FROM (5001) TO (10001);
INSERT INTO mp_parts SELECT id, mean, label FROM mp_rows;
ANALYZE mp_parts;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT gsu.refset_agg(mean, label) FROM mp_parts;
SELECT test_error($$SELECT gsu.refset_agg(mean, label) FROM mp_parts WHERE id <= 3000 OR id BETWEEN 5001 AND 8000$$);
SELECT (gsu.describe_refset(gsu.refset_agg(mean, label))->>'rows')::int AS rows FROM mp_parts WHERE id <= 1000 OR id BETWEEN 5001 AND 6000;
-- the same rows in a plain aggregate: one state, the whole limit
SET enable_partitionwise_aggregate = off;
SELECT (gsu.describe_refset(gsu.refset_agg(mean, label))->>'rows')::int AS rows FROM mp_parts WHERE id <= 3000 OR id BETWEEN 5001 AND 8000;

-- ------------------------------------------------- moments, d x d (7b)
-- a full covariance of dimension d is d^2 doubles in the state, and twice as
-- much in the result (its array and the result tuple)
CREATE TABLE mp_obs AS
SELECT i, (SELECT array_agg(sin(i * k + 0.1 * k * k) ORDER BY k) FROM generate_series(1, 400) k)::float8[] AS obs
FROM generate_series(1, 300) i;
ALTER TABLE mp_obs SET (parallel_workers = 2);
ANALYZE mp_obs;
-- d = 400: the state (1.2 MB) is refused before it is allocated
SELECT test_error($$SELECT gsu.moments(obs, '{"covariance": "full"}') FROM mp_obs$$);
-- d = 256: the state fits, the result does not
SELECT test_error($$SELECT gsu.moments(obs[1:256], '{"covariance": "full"}') FROM mp_obs$$);
-- d = 128 fits, and so do the diagonal variances of d = 400
SELECT (m).count, array_length((m).variance, 1) AS rows, array_length((m).variance, 2) AS cols
FROM (SELECT gsu.moments(obs[1:128], '{"covariance": "full"}') AS m FROM mp_obs) s;
SELECT (m).count, array_length((m).variance, 1) AS len
FROM (SELECT gsu.moments(obs) AS m FROM mp_obs) s;
-- in a parallel plan, a worker's d = 128 state (128 kB, counted twice) is
-- past its share
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.moments(obs[1:128], '{"covariance": "full"}') FROM mp_obs;
SELECT test_error($$SELECT gsu.moments(obs[1:128], '{"covariance": "full"}') FROM mp_obs$$);
-- a smaller one is not
SELECT (m).count, array_length((m).variance, 1) AS rows
FROM (SELECT gsu.moments(obs[1:64], '{"covariance": "full"}') AS m FROM mp_obs) s;

-- --------------------------------------- the other buffering aggregates
-- every buffering aggregate counts the same way: the ranking metrics' scores,
-- gsu.calibrate's decision values, gsu.fisher_score's moments (6 d doubles),
-- gsu.confusion's cells
SET max_parallel_workers_per_gather = 0;
RESET gsu.max_training_memory;
CREATE TABLE mp_model AS
SELECT gsu.train(mean, variance, CASE WHEN label = 0 THEN 1 ELSE -1 END) AS m FROM mp_rows;
SET gsu.max_training_memory = '256kB';
SELECT round(gsu.roc_auc(mean[1], CASE WHEN label = 0 THEN 1 ELSE -1 END)::numeric, 4) AS auc FROM mp_rows;
SELECT gsu.calibrate(m, mean, CASE WHEN label = 0 THEN 1 ELSE -1 END) IS NOT NULL AS calibrated
FROM mp_rows, mp_model WHERE id % 4 = 0;
-- the final function's copies of the decision values count too
SELECT test_error($$SELECT gsu.calibrate(m, mean, CASE WHEN label = 0 THEN 1 ELSE -1 END) FROM mp_rows, mp_model$$);
-- 30000 features: 1.4 MB of moments, refused before they are allocated
SELECT test_error($$SELECT gsu.fisher_score(array_fill(i::float8, ARRAY[30000]), CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) FROM generate_series(1, 4) i$$);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.roc_auc(mean[1], CASE WHEN label = 0 THEN 1 ELSE -1 END) FROM mp_rows;
SELECT test_error($$SELECT gsu.roc_auc(mean[1], CASE WHEN label = 0 THEN 1 ELSE -1 END) FROM mp_rows$$);
-- (a worker refuses it: the hint says so; no EXPLAIN here, as PostgreSQL 17
-- prints InitPlans differently)
SELECT test_error($$SELECT gsu.calibrate((SELECT m FROM mp_model), mean, CASE WHEN label = 0 THEN 1 ELSE -1 END) FROM mp_rows$$);
-- 2000 features: 96 kB of moments, past a worker's 42 kB
SELECT test_error($$SELECT gsu.fisher_score(array_fill(id::float8 + 0.5 * label, ARRAY[2000]), CASE WHEN label = 0 THEN 1 ELSE -1 END) FROM mp_rows$$);
-- 10000 distinct cells: past a worker's share too
SELECT test_error($$SELECT gsu.confusion(id, id % 2) FROM mp_rows$$);
SET gsu.max_training_memory = '1MB';

-- the charges of refused queries went with them: the serial aggregates that
-- fit still fit
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
SELECT (gsu.describe_refset(gsu.refset_agg(mean, label))->>'rows')::int AS rows FROM mp_rows;
SELECT (m).count FROM (SELECT gsu.moments(obs[1:128], '{"covariance": "full"}') AS m FROM mp_obs) s;
RESET gsu.max_training_memory;
RESET max_parallel_workers_per_gather;
RESET enable_partitionwise_aggregate;
DROP SCHEMA test_memory_parallel CASCADE;
