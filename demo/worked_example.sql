-- pg_gsu worked example: train, calibrate, evaluate, choose λ — all in SQL.
-- The statements of the README section of the same name, in the same order.
--
-- It uses the table wdbc that demo/breast_cancer.sql creates in its database
-- pg_gsu_demo (569 rows of the Wisconsin breast-cancer data: 10 means in their
-- own units, their squared standard errors as variances, label 1 benign / -1
-- malignant, test = id % 5 = 0), and works in that database only. Run both, as a
-- superuser, against a server where pg_gsu is installed:
--
--   psql -X -q -v ON_ERROR_STOP=1 -f demo/breast_cancer.sql >/dev/null
--   psql -X -v ON_ERROR_STOP=1 -f demo/worked_example.sql
\set ON_ERROR_STOP 1
\set QUIET on
\connect pg_gsu_demo
\set QUIET off
SET client_min_messages = warning;
DROP TABLE IF EXISTS wx_cv, wx_model, wx_calibrated;

-- 1. Three disjoint parts: 60 % to fit, 20 % to calibrate, the demo's 20 % test
--    rows (temporary views: they go with the session).
CREATE TEMP VIEW wdbc_fit AS SELECT id, mean, variance, label FROM wdbc WHERE id % 5 IN (1, 2, 3);
CREATE TEMP VIEW wdbc_cal AS SELECT id, mean, variance, label FROM wdbc WHERE id % 5 = 4;

-- 2. Choose λ: 5-fold cross-validation on the fitting part, SVM-GSU and the plain
--    hinge-loss SVM side by side (the options are gsu.train's, without lambda;
--    "standardize" scales each fold by the statistics of its own training rows).
CREATE TABLE wx_cv AS
SELECT 'gsu' AS loss, cv.* FROM gsu.cross_validate('wdbc_fit', 'mean', 'variance', 'label',
                                                    ARRAY[1e-4, 1e-3, 1e-2, 1e-1, 1],
                                                    options => '{"standardize": true}') AS cv
UNION ALL
SELECT 'hinge', cv.* FROM gsu.cross_validate('wdbc_fit', 'mean', 'variance', 'label',
                                              ARRAY[1e-4, 1e-3, 1e-2, 1e-1, 1],
                                              options => '{"loss": "hinge", "standardize": true}') AS cv;
\echo 'Cross-validated accuracy per loss and lambda (mean and sd over 5 folds)'
SELECT loss, lambda, round(metric_mean::numeric, 3) AS cv_accuracy,
       round(metric_stddev::numeric, 3) AS sd, fold_count
FROM wx_cv ORDER BY loss, lambda;

-- 3. gsu.train_best runs the same cross-validation and retrains on the whole
--    fitting part with the best λ (ties go to the larger λ).
CREATE TABLE wx_model AS
SELECT 'gsu' AS loss, gsu.train_best('wdbc_fit', 'mean', 'variance', 'label',
                                     ARRAY[1e-4, 1e-3, 1e-2, 1e-1, 1],
                                     options => '{"standardize": true}') AS model
UNION ALL
SELECT 'hinge', gsu.train_best('wdbc_fit', 'mean', 'variance', 'label',
                               ARRAY[1e-4, 1e-3, 1e-2, 1e-1, 1],
                               options => '{"loss": "hinge", "standardize": true}');
\echo 'The lambda gsu.train_best chose for each loss, retrained on every fitting row'
SELECT loss, d->'hyperparameters'->'lambda' AS lambda, d->'training'->'rows' AS rows,
       round((d->'training'->>'objective')::numeric, 4) AS objective,
       d->'training'->'converged' AS converged
FROM wx_model, gsu.describe(model) AS d ORDER BY loss;

--    It is gsu.train with that λ on the same rows: the same weights.
\echo 'train_best returns what gsu.train gives at that lambda'
SELECT m.loss, gsu.weights(m.model) = gsu.weights(t.model) AS same_as_gsu_train
FROM wx_model AS m,
     LATERAL (SELECT gsu.train(f.mean, f.variance, f.label,
                               jsonb_build_object('loss', m.loss, 'standardize', true,
                                                  'lambda', gsu.describe(m.model)->'hyperparameters'->'lambda')) AS model
              FROM wdbc_fit AS f) AS t
ORDER BY m.loss;

-- 4. Calibrate: Platt's sigmoid fitted on the calibration rows' decision values.
CREATE TABLE wx_calibrated AS
SELECT m.loss, gsu.calibrate(m.model, c.mean, c.label) AS model
FROM wx_model AS m, wdbc_cal AS c GROUP BY m.loss;
\echo 'Platt''s sigmoid per loss: P(benign) = 1 / (1 + exp(a f + b))'
SELECT loss, round((gsu.describe(model)->'calibration'->>'a')::numeric, 3) AS a,
       round((gsu.describe(model)->'calibration'->>'b')::numeric, 3) AS b
FROM wx_calibrated ORDER BY loss;

-- 5. Evaluate on the test rows: confusion counts, ranking metrics, log loss.
\echo 'Test rows: accuracy, confusion counts, F1, MCC, ranking metrics, log loss'
SELECT m.loss,
       (c->>'accuracy')::numeric(4, 3) AS accuracy, c->'tp' AS tp, c->'fp' AS fp,
       c->'tn' AS tn, c->'fn' AS fn, (c->>'f1')::numeric(4, 3) AS f1,
       (c->>'mcc')::numeric(4, 3) AS mcc,
       auc::numeric(4, 3) AS roc_auc, ap::numeric(4, 3) AS avg_precision,
       ll::numeric(5, 3) AS log_loss
FROM wx_calibrated AS m,
     LATERAL (SELECT gsu.confusion(gsu.predict(m.model, t.mean), t.label) AS c,
                     gsu.roc_auc(gsu.decision(m.model, t.mean), t.label) AS auc,
                     gsu.average_precision(gsu.decision(m.model, t.mean), t.label) AS ap,
                     gsu.log_loss(gsu.probability(m.model, t.mean), t.label) AS ll
              FROM wdbc AS t WHERE t.test) AS e
ORDER BY m.loss;

-- 6. Per-row output: calibrated P(benign) beside the SVM-GSU confidence, for the
--    test rows whose calibrated probability is closest to 1/2.
\echo 'The 5 test rows of least calibrated certainty, with their SVM-GSU confidence'
SELECT t.id, t.label, gsu.predict(m.model, t.mean) AS predicted,
       round(gsu.probability(m.model, t.mean)::numeric, 3) AS p_benign,
       round(gsu.confidence(m.model, t.mean, t.variance)::numeric, 3) AS confidence
FROM wdbc AS t, wx_calibrated AS m
WHERE t.test AND m.loss = 'gsu'
ORDER BY abs(gsu.probability(m.model, t.mean) - 0.5), t.id
LIMIT 5;
