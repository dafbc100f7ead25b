-- Parallel aggregation: gsu.train runs as Partial Aggregate in the workers,
-- its states are serialized, combined in the leader and solved there.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_parallel;
SET search_path = test_parallel, public;

-- 20000 rows like pts; the first 200 rows alone carry an isotropic variance
-- (iso) and a diagonal one (var1), so that some partial states have
-- variances and others not
CREATE TABLE big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	CASE WHEN i % 10 = 0 THEN NULL
		 ELSE ARRAY[0.05 + 0.5 * prand(i, 4), 0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6)] END AS variance,
	CASE WHEN i <= 200 THEN 0.1 + prand(i, 7) ELSE 0 END AS iso,
	CASE WHEN i <= 200 THEN ARRAY[0.3, 0.2, 0.1] END AS var1,
	l AS label
FROM generate_series(1, 20000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;

-- (workers_launched, from 00_setup: the "Workers ..." lines of EXPLAIN ANALYZE)

-- serial models
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label) FROM big;
CREATE TABLE serial AS
SELECT gsu.train(mean, variance, label) AS newton,
	gsu.train(mean, variance, label, '{"loss": "hinge"}') AS hinge,
	gsu.train(mean, iso, label) AS iso,
	gsu.train(mean, var1, label) AS var1,
	gsu.train(mean, variance, label > 0) AS bool,
	gsu.train(mean, iso, label, '{"loss": "psvm"}') AS psvm
FROM big;

-- parallel models; without the leader, so that both workers get rows
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
-- gsu.parallel_training is off by default: the support function of
-- gsu.train_combinefn prices the combine step so that the planner keeps
-- gsu.train out of partial aggregation (here it scans serially: gathering the
-- rows would save less than 1% of the aggregate's cost, now that its transition
-- is priced as measured, and the planner counts such plans as equal), while
-- gsu.train_sgd's partial aggregation is not affected
SHOW gsu.parallel_training;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label) FROM big;
EXPLAIN (COSTS OFF) SELECT gsu.train_sgd(mean, variance, label, '{}') FROM big;
SELECT p.proname, s.proname AS support FROM pg_proc p JOIN pg_proc s ON s.oid = p.prosupport
WHERE p.proname = 'train_combinefn';
SELECT test_error($$SET gsu.parallel_training = 'sometimes'$$);
SET gsu.parallel_training = on;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label) FROM big;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, iso, label, '{"solver": "sgd"}') FROM big;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label > 0) FROM big;
-- EXPLAIN ANALYZE runs the CREATE TABLE AS
SELECT workers_launched($$CREATE TABLE par AS
SELECT gsu.train(mean, variance, label) AS newton,
	gsu.train(mean, variance, label, '{"loss": "hinge"}') AS hinge,
	gsu.train(mean, iso, label) AS iso,
	gsu.train(mean, var1, label) AS var1,
	gsu.train(mean, variance, label > 0) AS bool,
	gsu.train(mean, variance, label, '{"solver": "pegasos"}') AS pegasos,
	gsu.train(mean, variance, label, '{"solver": "sgd"}') AS sgd,
	gsu.train(mean, iso, label, '{"solver": "sgd"}') AS sgd_iso,
	gsu.train(mean, iso, label, '{"loss": "psvm"}') AS psvm
FROM big$$);

-- every row was counted once
SELECT gsu.describe(newton)->'training'->'rows' AS newton, gsu.describe(pegasos)->'training'->'rows' AS pegasos,
	gsu.describe(sgd)->'training'->'rows' AS sgd, gsu.describe(sgd_iso)->'training'->'rows' AS sgd_iso FROM par;
-- the parallel newton models are the serial ones: weights to 1e-6 relative, predictions on at least 99.9% of the rows
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
SELECT rel_diff(s.newton, p.newton) < 1e-6 AS newton, rel_diff(s.hinge, p.hinge) < 1e-6 AS hinge,
	rel_diff(s.iso, p.iso) < 1e-6 AS iso, rel_diff(s.var1, p.var1) < 1e-6 AS var1,
	rel_diff(s.bool, p.bool) < 1e-6 AS bool, rel_diff(s.psvm, p.psvm) < 1e-6 AS psvm
FROM serial s, par p;
SELECT avg((gsu.predict(s.newton, mean) = gsu.predict(p.newton, mean))::int) >= 0.999 AS newton,
	avg((gsu.predict(s.hinge, mean) = gsu.predict(p.hinge, mean))::int) >= 0.999 AS hinge,
	avg((gsu.predict(s.iso, mean) = gsu.predict(p.iso, mean))::int) >= 0.999 AS iso
FROM big, serial s, par p;
-- the variances of the first 200 rows count: those models differ from the one without variance
SELECT rel_diff(p.var1, t.m) > 1e-6 AS var1_differs, rel_diff(p.iso, t.m) > 1e-6 AS iso_differs
FROM par p, (SELECT gsu.train(mean, NULL::float8[], label) m FROM big) t;
-- every parallel model classifies well (sgd is an average of the workers' iterates)
SELECT avg((gsu.predict(newton, mean) = label)::int) > 0.8 AS newton,
	avg((gsu.predict(pegasos, mean) = label)::int) > 0.8 AS pegasos,
	avg((gsu.predict(sgd, mean) = label)::int) > 0.8 AS sgd,
	avg((gsu.predict(sgd_iso, mean) = label)::int) > 0.8 AS sgd_iso
FROM big, par;
SELECT gsu.describe(sgd)->'hyperparameters'->>'solver' AS solver, gsu.describe(sgd)->'training'->'iterations' AS iterations FROM par;

-- with the leader taking part as well
SET parallel_leader_participation = on;
SELECT rel_diff(s.newton, t.m) < 1e-6 AS newton FROM serial s, (SELECT gsu.train(mean, variance, label) m FROM big) t;
SELECT avg((gsu.predict(m, mean) = label)::int) > 0.8 AS sgd
FROM big, (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') m FROM big) t;
SET parallel_leader_participation = off;

-- the robust loss with feature_bound "worst_case" (its options travel in the serialized states)
SELECT workers_launched($$CREATE TABLE par_wc AS
SELECT gsu.train(mean, variance, label, '{"loss": "robust", "feature_bound": "worst_case", "features": {"map": "rff", "dim": 20, "sigma": 2}}') AS m
FROM big$$);
SELECT gsu.describe(m)->'training'->'rows' AS rows, gsu.describe(m)->'hyperparameters'->>'solver' AS solver,
	(SELECT avg((gsu.predict(m, mean) = label)::int) > 0.8 FROM big) AS above_80
FROM par_wc;

-- rows skipped in every worker, a worker without rows, and NULL when no row counts
SELECT gsu.describe(gsu.train(mean, variance, label))->'training'->'rows' AS rows FROM big WHERE id <= 10;
SELECT gsu.describe(gsu.train(mean, variance, label, '{"solver": "sgd"}'))->'training'->'rows' AS rows FROM big WHERE id <= 10;
SELECT gsu.train(mean, variance, label) IS NULL AS is_null FROM big WHERE id < 0;
SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') IS NULL AS is_null FROM big WHERE id < 0;
SELECT gsu.describe(gsu.train(CASE WHEN id % 3 = 0 THEN NULL ELSE mean END, variance, label))->'training'->'rows' AS rows FROM big;

-- errors raised in a worker reach the client unchanged
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id = 15000 THEN '{1,-2,3}' ELSE variance END, label) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": -1}') FROM big$$);
SELECT test_error($$SELECT gsu.train(CASE WHEN id = 15000 THEN '{1,2}' ELSE mean END, variance, label) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, 1) FROM big$$);
-- a worker holds its share of the limit (gsu_memory.h: 64 kB / (2 (2 + 1)),
-- its state counted twice for the copy it sends), and the hint says so
SET gsu.max_training_memory = '64kB';
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM big$$);
SELECT gsu.describe(gsu.train(mean, variance, label, '{"solver": "sgd"}'))->'training'->'rows' AS rows FROM big;
RESET gsu.max_training_memory;

-- GROUP BY under a parallel plan: one model per group, the same as the serial ones
CREATE TABLE par_groups AS SELECT id % 3 AS g, gsu.train(mean, variance, label) AS m FROM big GROUP BY id % 3;
SET max_parallel_workers_per_gather = 0;
SELECT p.g, rel_diff(p.m, s.m) < 1e-6 AS same, gsu.describe(p.m)->'training'->'rows' AS rows
FROM par_groups p JOIN (SELECT id % 3 AS g, gsu.train(mean, variance, label) AS m FROM big GROUP BY id % 3) s ON s.g = p.g
ORDER BY p.g;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET gsu.parallel_training;
