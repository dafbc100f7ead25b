-- gsu.cross_validate and gsu.train_best of a regression model (issue 33): a
-- regression metric (rmse, mae, r2) trains gsu.train_regression on each fold's
-- training rows and scores gsu.decision against the target on the held-out rows.
CREATE TABLE cvr AS
  SELECT i, ARRAY[sin(i), cos(1.7 * i), sin(0.3 * i)] AS mean,
         ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005] AS variance,
         1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * sin(0.3 * i) + 0.3 + 0.1 * sin(7 * i) AS y
  FROM generate_series(1, 240) i;

-- the same folds by hand: the fold of a row is the hash of its mean and target
CREATE TABLE cvr_manual AS
WITH folds AS (
  SELECT f FROM generate_series(0, 3) f
), lams AS (
  SELECT unnest(ARRAY[0.001, 0.1]) AS lam
), loss AS (
  SELECT unnest(ARRAY['epsilon_insensitive', 'squared']) AS loss
), models AS (
  SELECT loss, lam, f,
         (SELECT gsu.train_regression(mean, variance, y, jsonb_build_object('loss', loss, 'lambda', lam))
          FROM cvr t WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) <> f) AS m
  FROM folds, lams, loss
), scores AS (
  SELECT loss, lam, f,
         (SELECT gsu.rmse(gsu.decision(m, mean), y) FROM cvr t
          WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) = f) AS rmse,
         (SELECT gsu.mae(gsu.decision(m, mean), y) FROM cvr t
          WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) = f) AS mae,
         (SELECT gsu.r2(gsu.decision(m, mean), y) FROM cvr t
          WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) = f) AS r2
  FROM models
)
SELECT loss, lam, avg(rmse) AS rmse, stddev_samp(rmse) AS rmse_sd, avg(mae) AS mae, avg(r2) AS r2
FROM scores GROUP BY loss, lam;

-- cross_validate gives the hand-made folds' metrics, for both losses and every metric
SELECT m.loss, cv.lambda, round(cv.metric_mean::numeric, 4) AS rmse, cv.fold_count,
       abs(cv.metric_mean - m.rmse) < 1e-9 AND abs(cv.metric_stddev - m.rmse_sd) < 1e-9 AS same
FROM cvr_manual m,
     gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.001, 0.1], 4, 1,
                        jsonb_build_object('loss', m.loss), 'rmse') cv
WHERE cv.lambda = m.lam ORDER BY 1, 2;
SELECT m.loss, cv.lambda, round(cv.metric_mean::numeric, 4) AS mae,
       abs(cv.metric_mean - m.mae) < 1e-9 AS same
FROM cvr_manual m,
     gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.001, 0.1], 4, 1,
                        jsonb_build_object('loss', m.loss), 'mae') cv
WHERE cv.lambda = m.lam ORDER BY 1, 2;
SELECT m.loss, cv.lambda, round(cv.metric_mean::numeric, 4) AS r2,
       abs(cv.metric_mean - m.r2) < 1e-9 AS same
FROM cvr_manual m,
     gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.001, 0.1], 4, 1,
                        jsonb_build_object('loss', m.loss), 'r2') cv
WHERE cv.lambda = m.lam ORDER BY 1, 2;

-- an untyped list of lambdas, and a numeric target (cast to float8), give the same
SELECT round(metric_mean::numeric, 4) AS rmse
FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', '{0.001}', 4, metric => 'rmse');
CREATE TABLE cvr_numeric AS SELECT i, mean, variance, y::numeric AS y FROM cvr;
SELECT round(metric_mean::numeric, 4) AS rmse
FROM gsu.cross_validate('cvr_numeric', 'mean', 'variance', 'y', ARRAY[0.001], 4, metric => 'rmse', id_column => 'i');
SELECT round(metric_mean::numeric, 4) AS rmse
FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.001], 4, metric => 'rmse', id_column => 'i');

-- every variance form: isotropic (a float8 column) and none (NULL: certain rows)
CREATE TABLE cvr_iso AS SELECT i, mean, 0.02::float8 AS v, y FROM cvr;
SELECT round(cv.metric_mean::numeric, 4) AS rmse,
       abs(cv.metric_mean - (SELECT avg(r) FROM (SELECT (SELECT gsu.rmse(gsu.decision(
              (SELECT gsu.train_regression(mean, v, y, '{"lambda": 0.001}') FROM cvr_iso t WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) <> f), mean), y)
            FROM cvr_iso t WHERE (((hash_record_extended(ROW((t.mean)::float8[], y), 1) % 4) + 4) % 4) = f) AS r FROM generate_series(0, 3) f) x)) < 1e-9 AS same_iso
FROM gsu.cross_validate('cvr_iso', 'mean', 'v', 'y', ARRAY[0.001], 4, metric => 'rmse') cv;
SELECT round(metric_mean::numeric, 4) AS rmse_certain
FROM gsu.cross_validate('cvr_iso', 'mean', NULL, 'y', ARRAY[0.001], 4, metric => 'rmse');

-- train_best: the lowest rmse or mae (the highest r2), retrained with gsu.train_regression
-- on every row: exactly the buffered model of that lambda
CREATE FUNCTION same_fit(a gsu.model, b gsu.model) RETURNS bool LANGUAGE sql AS $$
  SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b)
     AND gsu.describe(a)->'hyperparameters' = gsu.describe(b)->'hyperparameters'
     AND gsu.describe(a)->>'loss' = gsu.describe(b)->>'loss' $$;
SELECT same_fit(gsu.train_best('cvr', 'mean', 'variance', 'y', ARRAY[0.001, 0.1, 10], 4, metric => 'mae'),
                (SELECT gsu.train_regression(mean, variance, y, '{"lambda": 0.001}') FROM cvr)) AS best_mae;
SELECT same_fit(gsu.train_best('cvr', 'mean', 'variance', 'y', '{10, 0.1}', 4, 1, '{"loss": "squared"}', 'r2'),
                (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "lambda": 0.1}') FROM cvr)) AS best_r2;
SELECT same_fit(gsu.train_best('cvr', 'mean', 'variance', 'y', '{10, 0.1}', 4, 1, '{"loss": "squared"}', 'r2'),
                (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "lambda": 10}') FROM cvr)) AS not_the_worst;

-- errors: a real target or a regression loss under a classification metric, a
-- boolean target under a regression metric, an option of classification, the grid form
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.01], 4)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'i', ARRAY[0.01], 4, 1, '{"loss": "squared"}')$$);
CREATE TABLE cvr_bool AS SELECT mean, variance, y > 0 AS b FROM cvr;
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr_bool', 'mean', 'variance', 'b', ARRAY[0.01], 4, metric => 'rmse')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', ARRAY[0.01], 4, 1, '{"class_weight": [1, 2]}', 'rmse')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', '{"loss": ["squared"]}'::jsonb, 4)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', '{"lambda": [0.01]}'::jsonb, 4)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', '{"loss": ["hinge"]}'::jsonb, 4, metric => 'rmse')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y', '{"epsilon": [-1, 0.1]}'::jsonb, 4, metric => 'rmse')$$);

-- the grid form: every combination trains gsu.train_regression with its options;
-- each row's metric is the lambda form's with the same options
SELECT cv.combination, cv.train_options, cv.fold_count, round(cv.metric_mean::numeric, 4) AS rmse,
       abs(cv.metric_mean - m.rmse) < 1e-9 AND abs(cv.metric_stddev - m.rmse_sd) < 1e-9 AS same
FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y',
                        '{"loss": ["epsilon_insensitive", "squared"], "lambda": [0.001, 0.1]}'::jsonb,
                        4, metric => 'rmse') cv
JOIN cvr_manual m ON m.loss = cv.train_options->>'loss' AND m.lam = cv.lambda
ORDER BY cv.combination;
-- an option of one loss only (epsilon): the squared combinations with it are skipped
SELECT combination, train_options, fold_count, round(metric_mean::numeric, 4) AS mae
FROM gsu.cross_validate('cvr', 'mean', 'variance', 'y',
                        '{"loss": ["epsilon_insensitive", "squared"], "epsilon": [0.05, null]}'::jsonb,
                        4, 1, '{"lambda": 0.001}', 'mae')
ORDER BY combination;
SELECT same_fit(gsu.train_best('cvr', 'mean', 'variance', 'y',
                               '{"loss": ["squared"], "lambda": [10, 0.1]}'::jsonb, 4, metric => 'rmse'),
                (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "lambda": 0.1}') FROM cvr)) AS grid_best;

DROP TABLE cvr, cvr_manual, cvr_numeric, cvr_bool, cvr_iso;
DROP FUNCTION same_fit(gsu.model, gsu.model);
