-- cross-validation over a grid of training options (the jsonb forms of
-- gsu.cross_validate and gsu.train_best)
CREATE SCHEMA test_grid;
SET search_path = test_grid, public;
\set VERBOSITY default
SET client_min_messages = warning;

-- two overlapping classes, with variances
CREATE TABLE d AS
SELECT i AS id,
	ARRAY[prand(i, 1) * 2 - 1 + CASE WHEN i % 2 = 0 THEN 0.6 ELSE -0.6 END, prand(i, 2) * 2 - 1]::float8[] AS mean,
	ARRAY[0.05 + 0.1 * prand(i, 3), 0.05]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 200) i;

-- one row per combination, numbered in ParameterGrid order: keys sorted, the
-- last key varying fastest, values in the order given; train_options is what
-- gsu.train got, lambda the lambda it used
SELECT combination, lambda, train_options, fold_count, metric_mean BETWEEN 0.6 AND 1 AS sensible
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "hinge"], "lambda": [1e-3, 1e-1]}'::jsonb, 3)
ORDER BY combination;
-- by name; a value that is not an array is a list of one; the base options are
-- merged under the grid, which wins
SELECT combination, lambda, train_options, fold_count
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', grid => '{"lambda": 0.01, "epochs": [3, 4]}',
						folds => 3, options => '{"solver": "pegasos", "lambda": 5}');
-- null leaves the option out: gsu.train's default applies (lambda 0.001), and a
-- base option is removed
SELECT combination, lambda, train_options
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [null, 0.01], "tolerance": null}'::jsonb, 3,
						options => '{"tolerance": 1e-8}');
-- a grid of lambda alone gives the lambda form's numbers (same folds, same training)
SELECT g.lambda = l.lambda AND g.metric_mean = l.metric_mean AND g.metric_stddev = l.metric_stddev
	   AND g.fold_count = l.fold_count AS same_as_lambda_form
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [0.001, 0.1]}'::jsonb, 4, 7) g
JOIN gsu.cross_validate('d', 'mean', 'variance', 'label', ARRAY[0.001, 0.1], 4, 7) l USING (lambda);
-- every metric, the id column
SELECT m.metric, g.combination, g.fold_count, g.metric_mean > 0 AS positive
FROM (VALUES ('accuracy'), ('roc_auc'), ('expected_loss')) AS m(metric),
	LATERAL gsu.cross_validate('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "hinge"]}'::jsonb, 3, 1, '{}',
							   m.metric, 'id') g
ORDER BY m.metric, g.combination;
-- a combination gsu.train rejects (gamma with loss gsu) is skipped and reported
-- with fold_count 0; null among gamma's values keeps loss gsu in the search
SELECT combination, train_options, fold_count, metric_mean IS NOT NULL AS scored
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "robust"], "gamma": [null, 0.5]}'::jsonb, 3)
ORDER BY combination;
-- ... with a NOTICE that names it (separable rows: every fold scores 1)
CREATE TABLE sep AS SELECT id, ARRAY[label * (2 + prand(id, 4)), prand(id, 5)]::float8[] AS mean, variance, label
FROM d WHERE id <= 20;
SET client_min_messages = notice;
SELECT combination, fold_count FROM gsu.cross_validate('sep', 'mean', 'variance', 'label', '{"loss": ["hinge", "robust"], "gamma": [null, 0.5]}'::jsonb, 2);
SET client_min_messages = warning;

-- gsu.train_best retrains on every row with the best combination's options
SELECT gsu.weights(gsu.train_best('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "hinge"], "lambda": [1e-3, 10]}'::jsonb, 3))
	 = gsu.weights((SELECT gsu.train(mean, variance, label, cv.train_options) FROM d))
	   AS same_as_train_with_best
FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "hinge"], "lambda": [1e-3, 10]}'::jsonb, 3) cv
ORDER BY cv.metric_mean DESC, cv.combination LIMIT 1;
-- ties go to the first combination: the seed does not change the newton solver
SELECT gsu.describe(gsu.train_best('d', 'mean', 'variance', 'label', '{"seed": [2, 1]}'::jsonb, 3))->'hyperparameters'->'seed' AS seed_first,
	   gsu.describe(gsu.train_best('d', 'mean', 'variance', 'label', '{"seed": [1, 2]}'::jsonb, 3))->'hyperparameters'->'seed' AS seed_second;
-- expected_loss: the lowest wins (a huge lambda has the larger loss)
SELECT gsu.describe(gsu.train_best('d', 'mean', 'variance', 'label', '{"lambda": [100, 1e-2]}'::jsonb, 3, 1, '{}', 'expected_loss'))->'hyperparameters'->'lambda' AS best_lambda;

-- the lambda forms are unchanged: an untyped literal is still a list of lambdas
SELECT lambda, fold_count FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{0.01, 1}', 3) ORDER BY lambda;
SELECT gsu.describe(gsu.train_best('d', 'mean', 'variance', 'label', '{0.01}', 3))->'hyperparameters'->'lambda' AS lambda;

-- errors
RESET client_min_messages;
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', NULL::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '[0.01, 0.1]'::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{}'::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [0.01], "loss": []}'::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label',
	'{"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "b": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "c": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}'::jsonb)$$);
-- a key that is not an option; a value out of range; a loss whose every combination has an option it refuses
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [0.01, 0.1], "lambd": 1}'::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [0.01, -1]}'::jsonb)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"loss": ["gsu", "robust"], "gamma": [0.1, 1]}'::jsonb)$$);
SELECT test_error($$SELECT gsu.train_best('d', 'mean', 'variance', 'label', '{"loss": "hinj"}'::jsonb)$$);
-- an error of a fold names the combination (the options parse, but the fold's rows have no label 5)
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"class_weight": [{"5": 2}]}'::jsonb)$$);
-- a grid written as an untyped literal is read as lambdas: the error says to cast it
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": [0.01]}')$$);
SELECT test_error($$SELECT gsu.train_best('d', 'mean', 'variance', 'label', '{"lambda": [0.01]}')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{0.01, x}')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', NULL)$$);
-- the reader of those literals
SELECT gsu.lambda_list('{0.01, 1e-3}') AS lambdas, gsu.lambda_list(NULL) IS NULL AS strict;
SELECT test_error($$SELECT gsu.lambda_list('{"lambda": [0.01]}')$$);
SELECT test_error($$SELECT gsu.lambda_list('[1, 2]')$$);
-- the other arguments, checked as in the lambda form
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": 0.01}'::jsonb, 1)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": 0.01}'::jsonb, 201)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": 0.01}'::jsonb, 5, 1, '{}', 'f1')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('d', 'mean', 'variance', 'label', '{"lambda": 0.01}'::jsonb, 5, 1, '[]')$$);

DROP SCHEMA test_grid CASCADE;
