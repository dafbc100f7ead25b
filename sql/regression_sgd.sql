-- Regression's streaming path (issue 33): gsu.train_regression with
-- '{"solver": "sgd"}' steps on each row in the transition function and
-- buffers nothing; chained passes continue through "init"; the model is a
-- regression model that gsu.predictive, gsu.decision and gsu.describe take.
-- Data are formulas of the row number; figures are rounded.
\set SHOW_CONTEXT never

CREATE TABLE rsgd AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	(0.02 * (1 + i % 4))::float8 AS iso,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y,
	(1 + i % 3)::float8 AS weight
FROM generate_series(1, 400) i;

-- ------------------------------------------------------------ one pass
-- a streamed model: one step a row, the solver in its hyperparameters, no convergence claim
SELECT d->>'task' AS task, d->>'loss' AS loss, d->'hyperparameters'->>'solver' AS solver,
	d->'training'->>'rows' AS rows, d->'training'->>'iterations' AS iterations,
	d->'training'->>'passes' AS passes, d->'training'->>'converged' AS converged,
	d->'training'->>'gradient_norm' AS gradient_norm
FROM (SELECT gsu.describe(gsu.train_regression(mean, variance, y, jsonb_build_object('solver', 'sgd', 'loss', l) ORDER BY i)) AS d
	FROM rsgd, (VALUES ('epsilon_insensitive'), ('squared')) v(l) GROUP BY l) s ORDER BY loss;
-- the batch models keep their hyperparameters as they were (no "solver" key)
SELECT gsu.describe(gsu.train_regression(mean, variance, y))->'hyperparameters' ? 'solver' AS batch_shows_solver FROM rsgd;

-- ------------------------------------------------------------ chained passes vs the batch model
-- 30 passes at lambda 0.01, each continuing the last through "init"
CREATE TABLE passes (loss text, pass int, m gsu.model);
DO $$
DECLARE
	l text;
	k int;
BEGIN
	FOREACH l IN ARRAY ARRAY['epsilon_insensitive', 'squared'] LOOP
		INSERT INTO passes SELECT l, 1, gsu.train_regression(mean, variance, y,
			jsonb_build_object('solver', 'sgd', 'lambda', 0.01, 'loss', l) ORDER BY i) FROM rsgd;
		FOR k IN 2..30 LOOP
			INSERT INTO passes SELECT l, k, gsu.train_regression(mean, variance, y,
				jsonb_build_object('solver', 'sgd', 'lambda', 0.01, 'loss', l,
					'init', (SELECT m FROM passes WHERE loss = l AND pass = k - 1)::jsonb) ORDER BY i) FROM rsgd;
		END LOOP;
	END LOOP;
END $$;
-- the step count continues: iterations = 400 · passes, rows of the last pass only
SELECT loss, pass, gsu.describe(m)->'training'->>'iterations' AS iterations, gsu.describe(m)->'training'->>'rows' AS rows
FROM passes WHERE pass IN (1, 2, 30) ORDER BY loss, pass;
CREATE TABLE batch AS SELECT l AS loss, gsu.train_regression(mean, variance, y, jsonb_build_object('lambda', 0.01, 'loss', l)) AS m
FROM rsgd, (VALUES ('epsilon_insensitive'), ('squared')) v(l) GROUP BY l;
-- after 30 passes the streamed model predicts as the batch one: the RMSE of each on the
-- targets, and the largest difference of their predictions
SELECT p.loss, round(gsu.rmse(gsu.decision(p.m, r.mean), r.y)::numeric, 2) AS rmse_sgd,
	round(gsu.rmse(gsu.decision(b.m, r.mean), r.y)::numeric, 2) AS rmse_batch,
	max(abs(gsu.decision(p.m, r.mean) - gsu.decision(b.m, r.mean))) < 0.05 AS predictions_close,
	(SELECT max(abs(x - z)) FROM unnest(gsu.weights(p.m) || gsu.bias(p.m), gsu.weights(b.m) || gsu.bias(b.m)) u(x, z)) < 0.05 AS weights_close
FROM passes p JOIN batch b USING (loss), rsgd r WHERE p.pass = 30 GROUP BY p.loss, p.m, b.m ORDER BY p.loss;
-- and the passes get closer to the batch model: its coefficients' largest distance, pass 1 and pass 30
SELECT a.loss, (SELECT max(abs(x - z)) FROM unnest(gsu.weights(c.m) || gsu.bias(c.m), gsu.weights(bt.m) || gsu.bias(bt.m)) u(x, z)) <
	(SELECT max(abs(x - z)) FROM unnest(gsu.weights(a.m) || gsu.bias(a.m), gsu.weights(bt.m) || gsu.bias(bt.m)) u(x, z)) AS closer
FROM passes a JOIN passes c USING (loss) JOIN batch bt USING (loss) WHERE a.pass = 1 AND c.pass = 30 ORDER BY a.loss;
-- gsu.predictive takes the streamed model: sd = sqrt(w'Sigma w)
SELECT abs((gsu.predictive(m, ARRAY[0.5, -0.5, 0.2], ARRAY[0.01, 0.02, 0.005])).sd
		- sqrt(0.01 * (gsu.weights(m))[1] ^ 2 + 0.02 * (gsu.weights(m))[2] ^ 2 + 0.005 * (gsu.weights(m))[3] ^ 2)) < 1e-12 AS sd,
	abs((gsu.predictive(m, ARRAY[0.5, -0.5, 0.2])).prediction - gsu.decision(m, ARRAY[0.5, -0.5, 0.2])) < 1e-12 AS prediction
FROM passes WHERE loss = 'squared' AND pass = 30;
-- the text and binary forms round-trip
SELECT m::text::gsu.model::text = m::text AS text_round_trip FROM passes WHERE loss = 'epsilon_insensitive' AND pass = 30;
CREATE TABLE streamed AS SELECT m FROM passes WHERE loss = 'epsilon_insensitive' AND pass = 30;
SELECT regress_file('regression_sgd') AS regress_file \gset
COPY streamed TO :'regress_file' (FORMAT binary);
CREATE TABLE streamed_copy (m gsu.model);
COPY streamed_copy FROM :'regress_file' (FORMAT binary);
SELECT c.m::text = s.m::text AS binary_round_trip FROM streamed_copy c, streamed s;

-- ------------------------------------------------------------ every covariance form, weights
-- one pass at lambda 0.1 with isotropic, diagonal, full and factor covariances: isotropic s equals
-- the diagonal (s, s, s), a full diag(v) the diagonal v, a factor (sqrt(v1), 0, 0) the diagonal
-- (v1, 0, 0): the steps are the same to rounding (at a much smaller lambda the first steps, 1/lambda
-- long, amplify the rounding differences of the forms)
WITH a AS (SELECT gsu.train_regression(mean, iso, y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd),
	b AS (SELECT gsu.train_regression(mean, ARRAY[iso, iso, iso], y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd),
	c AS (SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd),
	f AS (SELECT gsu.train_regression(mean, ARRAY[[variance[1], 0, 0], [0, variance[2], 0], [0, 0, variance[3]]], y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd),
	l AS (SELECT gsu.train_regression(mean, ARRAY[[sqrt(variance[1])], [0], [0]], y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd),
	l2 AS (SELECT gsu.train_regression(mean, ARRAY[variance[1], 0, 0], y, '{"solver": "sgd", "lambda": 0.1}' ORDER BY i) AS m FROM rsgd)
SELECT (SELECT max(abs(x - z)) FROM unnest(gsu.weights(a.m) || gsu.bias(a.m), gsu.weights(b.m) || gsu.bias(b.m)) u(x, z)) < 1e-9 AS iso_is_diag,
	(SELECT max(abs(x - z)) FROM unnest(gsu.weights(c.m) || gsu.bias(c.m), gsu.weights(f.m) || gsu.bias(f.m)) u(x, z)) < 1e-9 AS full_is_diag,
	(SELECT max(abs(x - z)) FROM unnest(gsu.weights(l.m) || gsu.bias(l.m), gsu.weights(l2.m) || gsu.bias(l2.m)) u(x, z)) < 1e-9 AS factor_is_diag
FROM a, b, c, f, l, l2;
-- weights: a row of weight 0 or NULL is skipped; the weighted model counts the rows it stepped on
SELECT gsu.describe(gsu.train_regression(mean, variance, y, CASE WHEN i % 5 = 0 THEN 0 ELSE weight END, '{"solver": "sgd"}' ORDER BY i))->'training'->>'rows' AS weighted_rows FROM rsgd;
-- uniform weights are the unweighted steps
WITH a AS (SELECT gsu.train_regression(mean, variance, y, 2.0::float8, '{"solver": "sgd"}' ORDER BY i) AS m FROM rsgd),
	b AS (SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd"}' ORDER BY i) AS m FROM rsgd)
SELECT (SELECT max(abs(x - z)) FROM unnest(gsu.weights(a.m) || gsu.bias(a.m), gsu.weights(b.m) || gsu.bias(b.m)) u(x, z)) < 1e-12 AS uniform_weights
FROM a, b;
-- no row: NULL
SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd"}') IS NULL AS no_rows FROM rsgd WHERE false;
-- the squared loss's early steps are capped: at the smallest lambda, with targets near 1000, one pass stays finite
SELECT round(gsu.rmse(gsu.decision(m, mean), y + 1000)::numeric, 0) < 100 AS finite_and_fitted
FROM (SELECT gsu.train_regression(mean, variance, y + 1000, '{"solver": "sgd", "loss": "squared", "lambda": 0.0001}' ORDER BY i) AS m FROM rsgd) s, rsgd
GROUP BY m;

-- ------------------------------------------------------------ nothing buffered, parallel workers
CREATE TABLE rbig AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y
FROM generate_series(1, 20000) i;
ALTER TABLE rbig SET (parallel_workers = 2);
ANALYZE rbig;
-- within the smallest gsu.max_training_memory (64kB) the stream trains on 20000 rows; the buffered solver cannot
SET gsu.max_training_memory = '64kB';
SELECT gsu.describe(gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 0.01}'))->'training'->>'rows' AS streamed_rows FROM rbig;
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"lambda": 0.01}') FROM rbig$$);
RESET gsu.max_training_memory;
-- a parallel plan: each worker streams its rows, the leader averages the iterates by their rows
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
EXPLAIN (COSTS OFF) SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 0.01}') FROM rbig;
SELECT workers_launched($$CREATE TABLE rpar AS
SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 0.01}') AS m FROM rbig$$);
-- ... continuing a serial pass through "init" (each worker starts from it, at its step count)
CREATE TABLE rser AS SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 0.01}' ORDER BY i) AS m FROM rbig;
SELECT jsonb_build_object('solver', 'sgd', 'lambda', 0.01, 'init', m::jsonb) AS init_options FROM rser \gset
SELECT workers_launched(format($$CREATE TABLE rpar2 AS
SELECT gsu.train_regression(mean, variance, y, %L::jsonb) AS m FROM rbig$$, :'init_options'));
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET gsu.parallel_training;
-- every row counted once; the averaged model predicts about as well as the serial pass
SELECT gsu.describe(p.m)->'training'->>'rows' AS rows, gsu.describe(p.m)->'training'->>'iterations' AS iterations,
	gsu.rmse(gsu.decision(p.m, r.mean), r.y) < 0.15 AS parallel_fits, gsu.rmse(gsu.decision(s.m, r.mean), r.y) < 0.15 AS serial_fits
FROM rpar p, rser s, rbig r GROUP BY p.m, s.m;
SELECT gsu.describe(m)->'training'->>'rows' AS rows, gsu.describe(m)->'training'->>'iterations' AS iterations FROM rpar2;

-- ------------------------------------------------------------ errors
-- the options the streaming solver refuses, as gsu.train's sgd refuses them
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "standardize": true}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "missing": "feature_moments"}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "lambda": 1e-301}') FROM rsgd$$);
-- the other solvers of gsu.train and gsu.fit
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "pegasos"}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "dcd"}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "lbfgs"}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "bfgs"}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": 1}') FROM rsgd$$);
-- "init": only with sgd, a regression model of the rows' dimension, not standardized
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, jsonb_build_object('init', (SELECT m FROM passes WHERE pass = 1 AND loss = 'squared')::jsonb)) FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, jsonb_build_object('solver', 'sgd', 'init', (SELECT gsu.train(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END) FROM rsgd)::jsonb)) FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean[1:2], variance[1:2], y, jsonb_build_object('solver', 'sgd', 'init', (SELECT m FROM passes WHERE pass = 1 AND loss = 'squared')::jsonb)) FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, jsonb_build_object('solver', 'sgd', 'init', (SELECT gsu.train_regression(mean, variance, y, '{"standardize": true}') FROM rsgd)::jsonb)) FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "init": 5}') FROM rsgd$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, y, '{"solver": "sgd", "init": {"format": 1}}') FROM rsgd$$);
-- gsu.fit's regression runs its own scans: no "solver" nor "init"
SELECT test_error($$SELECT gsu.fit('rsgd', 'mean', 'variance', 'y', '{"loss": "squared", "solver": "sgd"}')$$);
SELECT test_error($$SELECT gsu.fit('rsgd', 'mean', 'variance', 'y', jsonb_build_object('loss', 'squared', 'init', (SELECT m FROM passes WHERE pass = 1 AND loss = 'squared')::jsonb))$$);
-- a streamed target must be finite, as a buffered one
SELECT test_error($$SELECT gsu.train_regression(mean, variance, 'infinity'::float8, '{"solver": "sgd"}') FROM rsgd$$);
