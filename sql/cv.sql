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
-- a column named t does not replace the row in the fold hash: same folds as d
CREATE TABLE with_t AS SELECT id, mean, variance, label, 1 AS t FROM d;
CREATE TABLE without_t AS SELECT id, mean, variance, label, 1 AS u FROM d;
SELECT fold_count, (SELECT round(metric_mean::numeric, 6) FROM gsu.cross_validate('without_t', 'mean', 'variance', 'label', ARRAY[1e-2]))
	 = round(metric_mean::numeric, 6) AS same_as_renamed
FROM gsu.cross_validate('with_t', 'mean', 'variance', 'label', ARRAY[1e-2]);
-- bool labels (true = +1) score like the -1/+1 labels, for every metric (the
-- folds differ, as the row text does, so the means agree only roughly; a label
-- read the wrong way round would give accuracy ~0.2, AUC ~0.2, a larger loss)
CREATE TABLE lab_bool AS SELECT id, mean, variance, label = 1 AS label FROM d;
SELECT m.metric, b.fold_count, abs(b.metric_mean - i.metric_mean) < 0.05 AS bool_close_to_int
FROM (VALUES ('accuracy'), ('roc_auc'), ('expected_loss')) AS m(metric),
	LATERAL gsu.cross_validate('lab_bool', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{}', m.metric) b,
	LATERAL gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{}', m.metric) i
ORDER BY m.metric;
-- an isotropic (float8) variance column, NULL meaning a certain row, for every metric
CREATE TABLE iso AS SELECT id, mean, CASE WHEN id % 10 <> 0 THEN 0.1::float8 END AS variance, label FROM d;
SELECT metric, fold_count, metric_mean > 0 AS positive
FROM (VALUES ('accuracy'), ('roc_auc'), ('expected_loss')) AS m(metric),
	LATERAL gsu.cross_validate('iso', 'mean', 'variance', 'label', ARRAY[1e-2], 5, 1, '{}', m.metric)
ORDER BY metric;

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
-- id_column: the folds follow that column alone, so changing another column keeps them
CREATE TABLE cv_ids AS SELECT id, mean, variance, label FROM pts;
CREATE TABLE cv_ids2 AS SELECT id, mean, CASE WHEN variance IS NOT NULL THEN ARRAY(SELECT v * 2 FROM unnest(variance) v) END AS variance, label FROM pts;
SET client_min_messages = warning;
SELECT a.metric_mean = b.metric_mean AS same_folds_same_hinge
FROM gsu.cross_validate('cv_ids', 'mean', 'variance', 'label', ARRAY[0.01], 4, 7, '{"loss": "hinge"}', 'accuracy', 'id') a,
     gsu.cross_validate('cv_ids2', 'mean', 'variance', 'label', ARRAY[0.01], 4, 7, '{"loss": "hinge"}', 'accuracy', 'id') b;
RESET client_min_messages;
SELECT test_error($$SELECT * FROM gsu.cross_validate('cv_ids', 'mean', 'variance', 'label', ARRAY[0.01], 4, 7, '{}', 'accuracy', 'no_such_column')$$);
