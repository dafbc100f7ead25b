-- gsu.max_training_memory bounds the whole training path, refused before
-- anything is allocated; models that text input accepts are scorable,
-- however many features or landmarks their map has.

-- ---------------------------------------------------------------- training
-- 300 rows of dimension 2 with a diagonal variance, and 300 of dimension 20
-- with a full covariance (3.3 kB a row)
CREATE TABLE ml_small AS
SELECT i, ARRAY[sin(i), cos(i * 1.3)]::float8[] AS mean, ARRAY[0.01, 0.02]::float8[] AS variance,
	CASE WHEN sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 300) i;
CREATE TABLE ml_wide AS
SELECT i, (SELECT array_agg(sin(i * k) ORDER BY k) FROM generate_series(1, 20) k)::float8[] AS mean,
	(SELECT array_agg(r ORDER BY a)
	   FROM (SELECT a, array_agg(CASE WHEN a = b THEN 0.05 ELSE 0.0 END ORDER BY b) AS r
	           FROM generate_series(1, 20) a, generate_series(1, 20) b GROUP BY a) t)::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 300) i;

SET gsu.max_training_memory = '1MB';
-- the Nystroem kernel matrix of 300 landmarks (720 kB), its eigenvectors and
-- the mapped rows: refused before the kernel matrix is built
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "hinge", "features": {"map": "nystroem", "landmarks": 300, "sigma": 1}}') FROM ml_small$$);
-- 100 landmarks fit (with the solver newton: dcd's exact finish keeps kernel
-- rows of its band, which do not fit here)
SELECT gsu.describe(gsu.train(mean, variance, label, '{"loss": "hinge", "solver": "newton", "features": {"map": "nystroem", "landmarks": 100, "sigma": 1, "seed": 2}}'))->'features'->'landmarks' AS landmarks
FROM ml_small;
-- random Fourier features: the moments of 2000 features for 300 rows
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 2000, "sigma": 1}}') FROM ml_small$$);
-- the full feature covariance is D x D a row
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 40, "sigma": 1, "covariance": "full"}}') FROM ml_small$$);
-- the worst-case boxes
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust", "feature_bound": "worst_case", "features": {"map": "rff", "dim": 400, "sigma": 1}}') FROM ml_small$$);
-- without a map: the robust loss copies the rows' covariances for their
-- square roots, which the row store's 1 MB leaves no room for
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') FROM ml_wide$$);
SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') IS NOT NULL AS trained FROM ml_wide WHERE i <= 100;
-- tsvc's alternating algorithm shifts every row
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "tsvc", "tsvc_algorithm": "alternating"}') FROM ml_wide$$);
RESET gsu.max_training_memory;

-- ------------------------------------------------------------- the ceiling
-- gsu.max_training_memory_ceiling, which only a superuser sets (default 1 GB),
-- bounds gsu.max_training_memory: a session cannot SET the latter above it, and
-- every memory check uses the smaller of the two, however they were set
CREATE ROLE regress_gsu_mem;
GRANT USAGE ON SCHEMA gsu TO regress_gsu_mem;
GRANT SELECT ON ml_small, ml_wide TO regress_gsu_mem;
SHOW gsu.max_training_memory_ceiling;
SET ROLE regress_gsu_mem;
-- an ordinary role can neither raise its limit above the ceiling nor the ceiling
SELECT test_error($$SET gsu.max_training_memory = '2GB'$$);
SELECT test_error($$SET gsu.max_training_memory = 1048577$$);
SELECT test_error($$SET gsu.max_training_memory_ceiling = '2GB'$$);
SELECT test_error($$SELECT set_config('gsu.max_training_memory', '4GB', false)$$);
-- a function's SET clause is a SET too: refused when the function is
-- validated, and (made without validation, as a restore does) when it runs
RESET ROLE;
SELECT test_error($$CREATE FUNCTION public.train_in_4gb() RETURNS bool LANGUAGE sql SET gsu.max_training_memory = '4GB'
	AS 'SELECT gsu.train(mean, variance, label) IS NOT NULL FROM ml_small'$$);
SET check_function_bodies = off;
CREATE FUNCTION public.train_in_4gb() RETURNS bool LANGUAGE sql SET gsu.max_training_memory = '4GB'
	AS $$ SELECT gsu.train(mean, variance, label) IS NOT NULL FROM ml_small $$;
RESET check_function_bodies;
SET ROLE regress_gsu_mem;
SELECT test_error($$SELECT public.train_in_4gb()$$);
-- up to the ceiling it sets its own limit as before
SET gsu.max_training_memory = '1GB';
SET gsu.max_training_memory = '1MB';
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') FROM ml_wide$$);
RESET gsu.max_training_memory;
RESET ROLE;

-- a superuser lowers the ceiling (here for the session; for a role, a database or
-- the server with ALTER ROLE / ALTER DATABASE / ALTER SYSTEM ... SET) below a
-- setting made before: gsu.max_training_memory still says 1GB, but training is
-- bounded by 1 MB
SET gsu.max_training_memory = '1GB';
SET gsu.max_training_memory_ceiling = '1MB';
SET ROLE regress_gsu_mem;
SHOW gsu.max_training_memory;
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') FROM ml_wide$$);
SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') IS NOT NULL AS trained FROM ml_wide WHERE i <= 100;
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "hinge", "features": {"map": "nystroem", "landmarks": 300, "sigma": 1}}') FROM ml_small$$);
SELECT test_error($$SET gsu.max_training_memory = '2MB'$$);
-- parallel workers take the leader's settings (a setting above the ceiling
-- included) and the same bound
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gsu.parallel_training = on;
RESET ROLE;
ALTER TABLE ml_wide SET (parallel_workers = 2);
SET ROLE regress_gsu_mem;
SHOW gsu.max_training_memory;
SELECT public.workers_launched($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') FROM ml_wide$$);
-- (which process stops first, after how many rows, depends on the workers' timing:
-- the SQLSTATE and the bound in the message do not; memory_parallel.sql has the shares)
DO $$
BEGIN
	PERFORM gsu.train(mean, variance, label, '{"loss": "robust"}') FROM ml_wide;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE '%: %', SQLSTATE, SQLERRM;
END $$;
RESET ROLE;
RESET gsu.max_training_memory;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gsu.parallel_training;
ALTER TABLE ml_wide RESET (parallel_workers);

-- a role granted SET on the ceiling sets it (PostgreSQL 15's GRANT SET ON PARAMETER)
RESET gsu.max_training_memory_ceiling;
GRANT SET ON PARAMETER gsu.max_training_memory_ceiling TO regress_gsu_mem;
SET ROLE regress_gsu_mem;
SET gsu.max_training_memory_ceiling = '2GB';
SET gsu.max_training_memory = '2GB';
SHOW gsu.max_training_memory;
RESET gsu.max_training_memory;
RESET gsu.max_training_memory_ceiling;
RESET ROLE;
REVOKE SET ON PARAMETER gsu.max_training_memory_ceiling FROM regress_gsu_mem;
DROP FUNCTION public.train_in_4gb();
REVOKE ALL ON ml_small, ml_wide FROM regress_gsu_mem;
REVOKE USAGE ON SCHEMA gsu FROM regress_gsu_mem;
DROP ROLE regress_gsu_mem;

-- ----------------------------------------------------------------- scoring
-- models by text input: ml_rff(D) with D random Fourier features and
-- ml_nystroem(m) with m landmarks (rank 2), both of input dimension 2
CREATE FUNCTION ml_rff(d int) RETURNS gsu.model LANGUAGE sql AS $$
SELECT format('{"format": 2, "method": "linear", "loss": "hinge", "dim": %s, "classes": [-1, 1], "weights": [%s], "bias": 0.1, "features": {"map": "rff", "input_dim": 2, "dim": %s, "sigma": 1, "seed": 1, "matrix": [%s]}}',
	d, (SELECT string_agg(round((0.5 * sin(i) + 0.02)::numeric, 6)::text, ', ') FROM generate_series(1, d) i),
	d, (SELECT string_agg(round(3 * sin(i * 1.37)::numeric, 6)::text, ', ') FROM generate_series(1, d) i))::gsu.model
$$;
CREATE FUNCTION ml_nystroem(m int) RETURNS gsu.model LANGUAGE sql AS $$
SELECT format('{"format": 2, "method": "linear", "loss": "hinge", "dim": 2, "classes": [-1, 1], "weights": [0.02, -0.01], "bias": -0.5, "features": {"map": "nystroem", "input_dim": 2, "dim": 2, "sigma": 1, "seed": 1, "landmarks": %s, "matrix": [%s]}}',
	m, (SELECT string_agg(round(sin(i * 0.61)::numeric, 6)::text, ', ') FROM generate_series(1, 4 * m) i))::gsu.model
$$;
CREATE TABLE ml_models AS
SELECT 'rff' AS name, ml_rff(12000) AS model UNION ALL SELECT 'nystroem', ml_nystroem(12000);
-- 12000 features or landmarks: decision and predict need O(D) and O(m) scratch
SELECT name, gsu.describe(model)->'features'->'dim' AS dim, gsu.describe(model)->'features'->'landmarks' AS landmarks,
	gsu.predict(model, '{0.3, -0.2}'), round(gsu.decision(model, '{0.3, -0.2}')::numeric, 6) AS decision
FROM ml_models ORDER BY name;
-- confidence and expected_loss sum the variance w'Cov(phi(z))w pair by pair,
-- without the D x D (or m x m) matrix: O(D + m) memory and O(D^2) or O(m^2)
-- time, so smaller maps here (test/memory_peak.sh scores the 12000 ones)
SELECT name, round(gsu.confidence(model, '{0.3, -0.2}', '{0.05, 0.02}'::float8[])::numeric, 6) AS confidence_diag,
	round(gsu.confidence(model, '{0.3, -0.2}', ARRAY[0.05]::float8[])::numeric, 6) AS confidence_iso,
	round(gsu.confidence(model, '{0.3, -0.2}', '{{0.05, 0.01}, {0.01, 0.02}}'::float8[])::numeric, 6) AS confidence_full,
	round(gsu.expected_loss(model, '{0.3, -0.2}', '{0.05, 0.02}'::float8[], 1)::numeric, 6) AS expected_loss
FROM (SELECT 'rff 2000' AS name, ml_rff(2000) AS model UNION ALL SELECT 'nystroem 1000', ml_nystroem(1000)) s
ORDER BY name;
-- a certain input: confidence 1, expected loss the hinge loss
SELECT name, gsu.confidence(model, '{0.3, -0.2}', ARRAY[0.0]::float8[]),
	round(gsu.expected_loss(model, '{0.3, -0.2}', ARRAY[0.0]::float8[], 1)::numeric, 6) AS expected_loss,
	round(greatest(0, 1 - gsu.decision(model, '{0.3, -0.2}'))::numeric, 6) AS hinge
FROM (SELECT 'rff 2000' AS name, ml_rff(2000) AS model UNION ALL SELECT 'nystroem 1000', ml_nystroem(1000)) s
ORDER BY name;
DROP TABLE ml_small, ml_wide, ml_models;
DROP FUNCTION ml_rff(int), ml_nystroem(int);

-- ------------------------------------------------------------- gsu.hessian
-- gsu.hessian's state holds the packed O(dim²) sums (and the band rows of the
-- hinge polish): it counts against the limit like every other state (issue 27,
-- part 7); gsu.fit's solver newton, whose scans sum such partials, trains with
-- lbfgs when a Hessian of the rows' dimension cannot fit, and scans without
-- parallel workers when only a worker's share cannot hold it
CREATE TABLE ml_hess AS
SELECT i, ARRAY(SELECT sin(i * j + j) FROM generate_series(1, 150) j)::float8[] AS mean,
	NULL::float8[] AS variance, CASE WHEN sin(i * 0.7) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 40) i;
SET max_parallel_workers_per_gather = 0;
SET gsu.max_training_memory = '64kB';
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.1, 0) FROM ml_hess$$);
SET gsu.max_training_memory = '128kB';
SELECT (gsu.hessian(mean, variance, label, NULL::gsu.model, 0.1, 0)::text::jsonb)->'rows' AS rows FROM ml_hess;
-- with the band rows of the polish (744 rows of dimension 150) the state needs more
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.1, 0.5) FROM ml_hess$$);
-- (the NOTICE that says so, and the passes' objectives, are not shown)
SET client_min_messages = warning;
SELECT gsu.describe(gsu.fit('ml_hess', 'mean', 'variance', 'label', '{"lambda": 0.1, "max_iterations": 3, "loss": "hinge"}'))
	->'hyperparameters'->>'solver' AS solver;
RESET client_min_messages;
RESET gsu.max_training_memory;
RESET max_parallel_workers_per_gather;
DROP TABLE ml_hess;
