-- Regression in gsu.fit (issue 33 part 1): options naming a regression loss make gsu.fit
-- train on a real target column with gsu.train_regression's options.  Ridge-GSU (loss
-- "squared") is one scan of gsu.regression_hessian at 0 and a closed form from its sums:
-- the very model of gsu.train_regression on the same rows (to 1e-9) for every covariance
-- form, weights and standardize.  SVR-GSU (loss "epsilon_insensitive") is gsu.train_regression's
-- damped Newton with each evaluation a scan: its optimum to 1e-7.  The scans in parallel
-- workers; an ordinary role; errors.
-- The data are formulas of the row number (no random()): deterministic; figures rounded.
\set SHOW_CONTEXT never

CREATE TABLE fr AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	(0.02 * (1 + i % 4))::float8 AS iso,
	-- a full covariance (diagonally dominant) and a 3 x 1 factor L (Sigma = L L^T)
	ARRAY[[0.03 + 0.01 * (i % 2), 0.01, 0], [0.01, 0.02, 0.005 * (i % 3)], [0, 0.005 * (i % 3), 0.04]]::float8[] AS full_cov,
	ARRAY[[0.1 * sin(i)], [0.1], [0.05 * (i % 4)]]::float8[] AS factor,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y,
	(i % 5)::float8 AS weight,		-- 0 skips the row
	(i % 7)::int AS int_target,
	CASE WHEN i % 11 = 0 THEN NULL ELSE 2 * sin(i) + 1 END AS sparse_target
FROM generate_series(1, 400) i;

-- the largest difference of two models' weights and bias
CREATE FUNCTION fr_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql AS $$
	SELECT max(abs(x - z)) FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, z)
$$;

-- ------------------------------------------------------------ equal to gsu.train_regression
CREATE TEMP TABLE fr_pairs AS
SELECT 'diagonal' AS form, (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared"}') FROM fr) AS mem,
	gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared"}') AS fit
UNION ALL
SELECT 'isotropic', (SELECT gsu.train_regression(mean, iso, y, '{"loss": "squared", "lambda": 0.01}') FROM fr),
	gsu.fit('fr', 'mean', 'iso', 'y', '{"loss": "squared", "lambda": 0.01}')
UNION ALL
SELECT 'no variance', (SELECT gsu.train_regression(mean, NULL::float8[], y, '{"loss": "squared", "lambda": 1e-6}') FROM fr),
	gsu.fit('fr', 'mean', NULL, 'y', '{"loss": "squared", "lambda": 1e-6}')
UNION ALL
SELECT 'full', (SELECT gsu.train_regression(mean, full_cov, y, '{"loss": "squared"}') FROM fr),
	gsu.fit('fr', 'mean', 'full_cov', 'y', '{"loss": "squared"}')
UNION ALL
SELECT 'low rank', (SELECT gsu.train_regression(mean, factor, y, '{"loss": "squared"}') FROM fr),
	gsu.fit('fr', 'mean', 'factor', 'y', '{"loss": "squared"}')
UNION ALL
SELECT 'weighted', (SELECT gsu.train_regression(mean, variance, y, weight, '{"loss": "squared", "lambda": 0.1}') FROM fr),
	gsu.fit('fr', 'mean', 'variance', 'y', 'weight', '{"loss": "squared", "lambda": 0.1}')
UNION ALL
SELECT 'standardize', (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "standardize": true}') FROM fr),
	gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared", "standardize": true}')
UNION ALL
SELECT 'weighted standardize', (SELECT gsu.train_regression(mean, full_cov, y, weight, '{"loss": "squared", "standardize": true}') FROM fr),
	gsu.fit('fr', 'mean', 'full_cov', 'y', 'weight', '{"loss": "squared", "standardize": true}')
UNION ALL
SELECT 'integer target', (SELECT gsu.train_regression(mean, variance, int_target, '{"loss": "squared"}') FROM fr),
	gsu.fit('fr', 'mean', 'variance', 'int_target', '{"loss": "squared"}')
UNION ALL
SELECT 'NULL targets skipped', (SELECT gsu.train_regression(mean, variance, sparse_target, '{"loss": "squared"}') FROM fr),
	gsu.fit('fr', 'mean', 'variance', 'sparse_target', '{"loss": "squared"}');
SELECT form, fr_diff(mem, fit) < 1e-9 AS same_model,
	abs((gsu.describe(mem)->'training'->>'objective')::float8 - (gsu.describe(fit)->'training'->>'objective')::float8) < 1e-12 AS same_objective,
	gsu.describe(fit)->'training'->>'rows' = gsu.describe(mem)->'training'->>'rows' AS same_rows,
	gsu.describe(fit)->'hyperparameters' = gsu.describe(mem)->'hyperparameters' AS same_hyperparameters,
	gsu.describe(fit)->>'task' AS task, gsu.describe(fit)->>'loss' AS loss,
	gsu.describe(fit)->'training'->>'passes' AS scans, (gsu.describe(fit)->'training'->>'converged')::bool AS converged,
	round((gsu.describe(fit)->'training'->>'gradient_norm')::numeric, 9) AS gradient_norm
FROM fr_pairs ORDER BY form;
-- SVR-GSU: the same Newton steps over scans, the same optimum
CREATE TEMP TABLE fr_svr AS
SELECT 'diagonal' AS form, (SELECT gsu.train_regression(mean, variance, y) FROM fr) AS mem,
	gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "epsilon_insensitive"}') AS fit
UNION ALL
SELECT 'isotropic', (SELECT gsu.train_regression(mean, iso, y, '{"epsilon": 0.05}') FROM fr),
	gsu.fit('fr', 'mean', 'iso', 'y', '{"loss": "epsilon_insensitive", "epsilon": 0.05}')
UNION ALL
SELECT 'no variance', (SELECT gsu.train_regression(mean, NULL::float8[], y, '{"lambda": 0.01}') FROM fr),
	gsu.fit('fr', 'mean', NULL, 'y', '{"loss": "epsilon_insensitive", "lambda": 0.01}')
UNION ALL
SELECT 'full', (SELECT gsu.train_regression(mean, full_cov, y) FROM fr),
	gsu.fit('fr', 'mean', 'full_cov', 'y', '{"loss": "epsilon_insensitive"}')
UNION ALL
SELECT 'low rank', (SELECT gsu.train_regression(mean, factor, y, '{"epsilon": 0}') FROM fr),
	gsu.fit('fr', 'mean', 'factor', 'y', '{"loss": "epsilon_insensitive", "epsilon": 0}')
UNION ALL
SELECT 'weighted standardize', (SELECT gsu.train_regression(mean, variance, y, weight, '{"standardize": true, "tolerance": 1e-9}') FROM fr),
	gsu.fit('fr', 'mean', 'variance', 'y', 'weight', '{"loss": "epsilon_insensitive", "standardize": true, "tolerance": 1e-9}');
SELECT form, fr_diff(mem, fit) < 1e-7 AS same_model,
	abs((gsu.describe(mem)->'training'->>'objective')::float8 - (gsu.describe(fit)->'training'->>'objective')::float8) < 1e-12 AS same_objective,
	gsu.describe(fit)->'training'->>'rows' = gsu.describe(mem)->'training'->>'rows' AS same_rows,
	gsu.describe(fit)->'hyperparameters' = gsu.describe(mem)->'hyperparameters' AS same_hyperparameters,
	gsu.describe(fit)->'training'->'iterations' = gsu.describe(mem)->'training'->'iterations' AS same_steps,
	(gsu.describe(fit)->'training'->>'passes')::int <= (gsu.describe(mem)->'training'->>'passes')::int AS no_more_scans,
	(gsu.describe(fit)->'training'->>'converged')::bool AS converged
FROM fr_svr ORDER BY form;
-- its history: a row per Newton step, as gsu.train_regression's
SELECT (SELECT count(*) FROM gsu.training_info(fit)) = (SELECT count(*) FROM gsu.training_info(mem)) AS same_history_rows
FROM fr_svr WHERE form = 'diagonal';
-- a step limit stops it short, with a warning
SELECT (gsu.describe(gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "epsilon_insensitive", "max_iterations": 2}'))->'training'->>'converged')::bool AS converged;

-- the model scores as gsu.train_regression's does, in original units when standardized
SELECT form, round(gsu.decision(fit, ARRAY[0.5, -0.5, 0.2])::numeric, 6) AS value,
	abs(gsu.decision(fit, ARRAY[0.5, -0.5, 0.2]) - gsu.decision(mem, ARRAY[0.5, -0.5, 0.2])) < 1e-9 AS same_value
FROM fr_pairs WHERE form IN ('diagonal', 'standardize') ORDER BY form;
-- its per-scan history: one scan
SELECT pass, round(objective::numeric, 8) AS objective FROM fr_pairs, gsu.training_info(fit) WHERE form = 'diagonal';

-- no rows: NULL, as for classification
CREATE TABLE fr_empty (mean float8[], variance float8[], y float8);
SELECT gsu.fit('fr_empty', 'mean', 'variance', 'y', '{"loss": "squared"}') IS NULL AS no_model;
INSERT INTO fr_empty VALUES (ARRAY[1, 2], NULL, NULL);	-- no target: skipped
SELECT gsu.fit('fr_empty', 'mean', 'variance', 'y', '{"loss": "squared"}') IS NULL AS no_model;

-- ------------------------------------------------------------ the aggregate gsu.regression_hessian
-- at a ridge-GSU model; its sums combine exactly (gsu.sum of two halves), and its text round-trips
CREATE TEMP TABLE fr_at AS SELECT fit AS at FROM fr_pairs WHERE form = 'diagonal';
SELECT (h::text::jsonb)->>'kind' AS kind, (h::text::jsonb)->>'loss' AS loss, (h::text::jsonb)->'rows' AS rows,
	jsonb_array_length((h::text::jsonb)->'vector') AS elements,		-- 2 (d + 1) + 1 + (d + 1)(d + 2) / 2
	h::text::gsu.partial::text = h::text AS text_round_trip
FROM (SELECT gsu.regression_hessian(mean, variance, y, at, 0) AS h FROM fr, fr_at) s;
-- at the optimum the gradient sum is -W lambda (w, 0): zero in the bias, lambda w elsewhere
SELECT array(SELECT round((v::float8 / 400)::numeric, 9) FROM jsonb_array_elements((h::text::jsonb)->'vector') WITH ORDINALITY e(v, k) WHERE k <= 4) AS gradient_over_w,
	array(SELECT round((-0.001 * w)::numeric, 9) FROM unnest(gsu.weights(at)) w) AS minus_lambda_w
FROM (SELECT gsu.regression_hessian(mean, variance, y, at, 0) AS h FROM fr, fr_at) s, fr_at;
WITH halves AS (SELECT gsu.sum(h ORDER BY part)::text::jsonb AS h
		FROM (SELECT i % 2 AS part, gsu.regression_hessian(mean, variance, y, weight, at, 0) AS h FROM fr, fr_at GROUP BY i % 2) s),
	whole AS (SELECT gsu.regression_hessian(mean, variance, y, weight, at, 0)::text::jsonb AS h FROM fr, fr_at)
SELECT halves.h->'rows' = whole.h->'rows' AS same_rows,
	bool_and(abs(a.v::float8 - b.v::float8) <= 1e-12 * (1 + abs(b.v::float8))) AS halves_combine_to_the_whole
FROM halves, whole, LATERAL jsonb_array_elements(halves.h->'vector') WITH ORDINALITY a(v, k)
	JOIN LATERAL jsonb_array_elements(whole.h->'vector') WITH ORDINALITY b(v, k) USING (k)
GROUP BY halves.h, whole.h;

-- ------------------------------------------------------------ the scan in parallel workers
-- with parallel plans forced and the leader not reading rows, a view whose target fails in
-- any process but this one fails the training: the scan ran in workers; the serial
-- training succeeds, and the parallel model is the serial one to rounding
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT set_config('fr.leader', pg_backend_pid()::text, false) IS NOT NULL AS leader_set;
CREATE FUNCTION fr_guard(y float8) RETURNS float8 LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
	IF pg_backend_pid() <> current_setting('fr.leader')::int THEN
		RAISE EXCEPTION 'a parallel worker read the rows';
	END IF;
	RETURN y;
END $$;
CREATE VIEW fr_guarded AS SELECT i, mean, variance, full_cov, fr_guard(y) AS y, weight FROM fr;
SELECT test_error($$SELECT gsu.fit('fr_guarded', 'mean', 'variance', 'y', 'weight', '{"loss": "squared"}')$$);
CREATE TEMP TABLE fr_par AS SELECT gsu.fit('fr', 'mean', 'full_cov', 'y', 'weight', '{"loss": "squared", "standardize": true}') AS m;
SET max_parallel_workers_per_gather = 0;
SELECT fr_diff(fr_par.m, gsu.fit('fr_guarded', 'mean', 'full_cov', 'y', 'weight', '{"loss": "squared", "standardize": true}')) < 1e-10 AS parallel_is_serial,
	fr_diff(fr_par.m, fit) < 1e-9 AS parallel_is_in_memory
FROM fr_par, fr_pairs WHERE form = 'weighted standardize';
-- SVR-GSU's scans too
SET max_parallel_workers_per_gather = 2;
SELECT test_error($$SELECT gsu.fit('fr_guarded', 'mean', 'variance', 'y', 'weight', '{"loss": "epsilon_insensitive"}')$$);
TRUNCATE fr_par;
INSERT INTO fr_par SELECT gsu.fit('fr', 'mean', 'variance', 'y', 'weight', '{"loss": "epsilon_insensitive", "standardize": true, "tolerance": 1e-9}');
SET max_parallel_workers_per_gather = 0;
SELECT fr_diff(fr_par.m, gsu.fit('fr_guarded', 'mean', 'variance', 'y', 'weight', '{"loss": "epsilon_insensitive", "standardize": true, "tolerance": 1e-9}')) < 1e-7 AS parallel_is_serial,
	fr_diff(fr_par.m, fit) < 1e-7 AS parallel_is_in_memory
FROM fr_par, fr_svr WHERE form = 'weighted standardize';
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- ------------------------------------------------------------ an ordinary role
CREATE ROLE regress_gsu_fit_regression;
GRANT SELECT ON fr TO regress_gsu_fit_regression;
GRANT USAGE ON SCHEMA gsu TO regress_gsu_fit_regression;
SET ROLE regress_gsu_fit_regression;
SELECT gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared"}')::text AS role_model \gset
RESET ROLE;
SELECT fr_diff(:'role_model'::gsu.model, fit) < 1e-12 AS role_trains FROM fr_pairs WHERE form = 'diagonal';
REVOKE ALL ON fr FROM regress_gsu_fit_regression;
REVOKE USAGE ON SCHEMA gsu FROM regress_gsu_fit_regression;
DROP ROLE regress_gsu_fit_regression;

-- ------------------------------------------------------------ errors
-- gsu.train_regression's options, its refusals
SELECT test_error($$SELECT gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared", "solver": "lbfgs"}')$$);
SELECT test_error($$SELECT gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared", "epsilon": 0.2}')$$);
SELECT test_error($$SELECT gsu.fit('fr', 'mean', 'variance', 'y', '{"loss": "squared", "lambda": 0}')$$);
-- a target that is not a number; a real target without a regression loss
SELECT test_error($$SELECT gsu.fit('fr', 'mean', 'variance', 'variance', '{"loss": "squared"}')$$);
SELECT test_error($$SELECT gsu.fit('fr', 'mean', 'variance', 'y', '{"lambda": 0.1}')$$);
-- rows of another dimension, a target out of range
CREATE TABLE fr_bad AS SELECT * FROM fr WHERE i <= 10;
INSERT INTO fr_bad (i, mean, variance, y) VALUES (11, ARRAY[1, 2], NULL, 1);
SELECT test_error($$SELECT gsu.fit('fr_bad', 'mean', NULL, 'y', '{"loss": "squared"}')$$);
DELETE FROM fr_bad WHERE i = 11;
INSERT INTO fr_bad (i, mean, variance, y) VALUES (11, ARRAY[1, 2, 3], NULL, 'infinity');
SELECT test_error($$SELECT gsu.fit('fr_bad', 'mean', NULL, 'y', '{"loss": "squared"}')$$);
-- sums out of range
UPDATE fr_bad SET y = 1e300 WHERE i = 11;
SELECT test_error($$SELECT gsu.fit('fr_bad', 'mean', NULL, 'y', '{"loss": "squared"}')$$);
-- the aggregate: a point is a regression model of the rows' dimension, one a group
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, y, NULL, 0) FROM fr$$);
SELECT test_error($$WITH c AS (SELECT gsu.train(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END) AS c FROM fr)
	SELECT gsu.regression_hessian(mean, variance, y, c, 0) FROM fr, c$$);
SELECT test_error($$SELECT gsu.regression_hessian(ARRAY[1, 2], NULL, 1, at, 0) FROM fr_at$$);
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, 'NaN', at, 0) FROM fr, fr_at$$);
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, y, at, -1) FROM fr, fr_at$$);
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, y, at, i % 2) FROM fr, fr_at$$);
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, y, -1, at, 0) FROM fr, fr_at$$);
SELECT test_error($$SELECT gsu.regression_hessian(array_fill(0::float8, ARRAY[4001]), NULL, 1, NULL, 0)$$);
-- a scan's Hessian partial counts against gsu.max_training_memory; the transition is the aggregate's only
SET gsu.max_training_memory = '1MB';
CREATE TABLE fr_wide AS SELECT array_fill(0.5::float8, ARRAY[1000]) AS mean, 1.0::float8 AS y;
SELECT test_error($$SELECT gsu.fit('fr_wide', 'mean', NULL, 'y', '{"loss": "squared"}')$$);
RESET gsu.max_training_memory;
SELECT test_error($$SELECT gsu.regression_hessian_transfn(NULL, mean, variance, y, at, 0) FROM fr, fr_at LIMIT 1$$);
-- a row it would skip (NULL mean) is refused the same way outside an aggregate
SELECT test_error($$SELECT gsu.regression_hessian_transfn(NULL, NULL::float8[], NULL::float8[], 1.0, at, 0) FROM fr_at$$);
-- two points do not combine; a classifier's gradient relabelled with a regression loss is refused (it
-- counts positive labels, which a regression partial, gsu.regression_gradient's, never has)
SELECT test_error($$SELECT gsu.sum(h) FROM (SELECT gsu.regression_hessian(mean, variance, y, at, 0) AS h FROM fr, fr_at
	UNION ALL SELECT gsu.regression_hessian(mean, variance, y, mem, 0) FROM fr, fr_pairs WHERE form = 'full') s$$);
SELECT test_error($$SELECT replace(replace(gsu.gradient(mean, variance, 1, NULL, 0)::text, '"hinge"', '"squared"'), '"gsu"', '"squared"')::gsu.partial FROM fr WHERE i <= 2$$);

DROP VIEW fr_guarded;
DROP FUNCTION fr_guard(float8);
DROP FUNCTION fr_diff(gsu.model, gsu.model);
DROP TABLE fr, fr_empty, fr_bad, fr_wide;
