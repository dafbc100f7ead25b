-- cross-validation and lambda search
CREATE EXTENSION IF NOT EXISTS pg_gsu;
CREATE SCHEMA test_cv;
SET search_path = test_cv, public;
\set VERBOSITY default
SET client_min_messages = warning;

-- two overlapping classes, with variances
CREATE TABLE d AS
SELECT i AS id,
	ARRAY[prand(i, 1) * 2 - 1 + CASE WHEN i % 2 = 0 THEN 0.6 ELSE -0.6 END, prand(i, 2) * 2 - 1]::float8[] AS mean,
	ARRAY[0.05 + 0.1 * prand(i, 3), 0.05]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 300) i;

-- one row per lambda; accuracies in [0, 1]; every fold counted
SELECT lambda, fold_count, metric_mean BETWEEN 0.6 AND 1 AS sensible, metric_stddev >= 0 AS spread
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-3, 1e-1, 10]) ORDER BY lambda;
-- deterministic: the same seed gives the same numbers, another seed other folds
SELECT (SELECT array_agg(metric_mean ORDER BY lambda) FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-3, 1e-1], 4, 7))
	 = (SELECT array_agg(metric_mean ORDER BY lambda) FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-3, 1e-1], 4, 7)) AS same_seed_same;
-- a huge lambda underfits: lower accuracy than a moderate one
SELECT (SELECT metric_mean FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2])) >
	   (SELECT metric_mean FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[10])) AS moderate_beats_huge;
-- the other metrics; no variance column
SELECT metric_mean BETWEEN 0.5 AND 1 AS auc_ok FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{}', 'roc_auc');
SELECT metric_mean > 0 AS loss_ok FROM gsu.cross_validate('d', 'mean', NULL, 'label', ARRAY[1e-2], 5, 1, '{"loss": "hinge"}', 'expected_loss');
-- train_best retrains on every row with the best lambda (ties: the larger lambda)
SELECT (gsu.describe(gsu.train_best('d', 'mean', 'variance', 'label', ARRAY[1e-3, 1e-2, 10]))->'hyperparameters'->>'lambda')::float8 < 10 AS not_the_huge_one;
SELECT gsu.weights(gsu.train_best('d', 'mean', 'variance', 'label', ARRAY[1e-2]))
	 = gsu.weights((SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') FROM d)) AS same_as_train;
-- quoted identifiers
CREATE TABLE "Odd Table" AS SELECT mean AS "Mean Col", variance AS "var", label AS "Label" FROM d;
SELECT fold_count FROM gsu.cross_validate('"Odd Table"', 'Mean Col', 'var', 'Label', ARRAY[1e-2], 3);

-- errors
RESET client_min_messages;
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 1)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[-1])$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{}', 'f1')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{"lambda": 1}')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '[]')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'no_such_column', 'variance', 'label', ARRAY[1e-2])$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', NULL, ARRAY[1e-2])$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{"lambd": 1}')$$);

DROP SCHEMA test_cv CASCADE;
