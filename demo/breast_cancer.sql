-- pg_gsu demo: SVM-GSU on the Wisconsin Diagnostic Breast Cancer data.
--
-- Run it with   bash scripts/quickstart.sh demo
-- or, against a server where pg_gsu is installed, as a superuser:
--               psql -v ON_ERROR_STOP=1 -f demo/breast_cancer.sql
-- It works in a database of its own, pg_gsu_demo, which it drops and creates
-- (connecting to the database postgres for that); it touches nothing else.
--
-- The data ships with scikit-learn (Debian package python3-sklearn). Each of its
-- 569 rows describes the cell nuclei of one breast mass: for 10 measurements
-- (radius, texture, ...) it gives the mean over the nuclei in the image, the
-- standard error of that mean, and the worst value; the label says whether the
-- mass is malignant or benign. The standard error tells how uncertain each mean
-- is, which is exactly what SVM-GSU takes as input: every row becomes a Gaussian
-- N(mean, diag(se²)) instead of a point.

\set ON_ERROR_STOP 1
\set QUIET 1
\pset footer off
SET client_min_messages = warning;

\echo
\echo '== 1. A database of its own, pg_gsu_demo, made anew (nothing else is touched)'
-- the demo connects to the database postgres to drop and create its own
\connect postgres
SET client_min_messages = warning;
DROP DATABASE IF EXISTS pg_gsu_demo;
CREATE DATABASE pg_gsu_demo;
\connect pg_gsu_demo
SET client_min_messages = warning;
CREATE EXTENSION pg_gsu;
SELECT extname, extversion FROM pg_extension WHERE extname = 'pg_gsu';

\echo
\echo '== 2. Load the CSV as it is (its first line is a header: 569,30,malignant,benign)'
-- Columns 1-10 are the means, 11-20 their standard errors, 21-30 the worst
-- values; column 31 is the target, 0 = malignant and 1 = benign.
CREATE TEMP TABLE wdbc_raw (
    row_no serial,
    radius_mean float8, texture_mean float8, perimeter_mean float8, area_mean float8,
    smoothness_mean float8, compactness_mean float8, concavity_mean float8,
    concave_points_mean float8, symmetry_mean float8, fractal_dimension_mean float8,
    radius_se float8, texture_se float8, perimeter_se float8, area_se float8,
    smoothness_se float8, compactness_se float8, concavity_se float8,
    concave_points_se float8, symmetry_se float8, fractal_dimension_se float8,
    radius_worst float8, texture_worst float8, perimeter_worst float8, area_worst float8,
    smoothness_worst float8, compactness_worst float8, concavity_worst float8,
    concave_points_worst float8, symmetry_worst float8, fractal_dimension_worst float8,
    target int4
);
\copy wdbc_raw (radius_mean, texture_mean, perimeter_mean, area_mean, smoothness_mean, compactness_mean, concavity_mean, concave_points_mean, symmetry_mean, fractal_dimension_mean, radius_se, texture_se, perimeter_se, area_se, smoothness_se, compactness_se, concavity_se, concave_points_se, symmetry_se, fractal_dimension_se, radius_worst, texture_worst, perimeter_worst, area_worst, smoothness_worst, compactness_worst, concavity_worst, concave_points_worst, symmetry_worst, fractal_dimension_worst, target) FROM '/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv' WITH (FORMAT csv, HEADER true)

SELECT count(*) AS rows,
       count(*) FILTER (WHERE target = 0) AS malignant,
       count(*) FILTER (WHERE target = 1) AS benign
FROM wdbc_raw;

\echo
\echo '== 3. One Gaussian per row: the means, their squared standard errors as variances'
-- The 10 mean features stay in their own units, which differ by orders of
-- magnitude (an area in the hundreds, a smoothness near 0.1), and the variance
-- of each is its squared standard error. Training scales them with the option "standardize" (step 4), which
-- also scales the variances correctly: no z-scoring by hand. Labels become +1
-- (benign) and -1 (malignant). Every fifth row (id % 5 = 0) is held out for
-- testing.
CREATE TABLE wdbc (
    id       serial PRIMARY KEY,
    mean     float8[] NOT NULL,
    variance float8[] NOT NULL,
    label    int4 NOT NULL,
    test     boolean GENERATED ALWAYS AS (id % 5 = 0) STORED
);

INSERT INTO wdbc (id, mean, variance, label)
SELECT row_no,
       ARRAY[radius_mean, texture_mean, perimeter_mean, area_mean,
             smoothness_mean, compactness_mean, concavity_mean,
             concave_points_mean, symmetry_mean, fractal_dimension_mean],
       ARRAY[radius_se ^ 2, texture_se ^ 2, perimeter_se ^ 2, area_se ^ 2,
             smoothness_se ^ 2, compactness_se ^ 2, concavity_se ^ 2,
             concave_points_se ^ 2, symmetry_se ^ 2, fractal_dimension_se ^ 2],
       CASE target WHEN 1 THEN 1 ELSE -1 END
FROM wdbc_raw
ORDER BY row_no;
SELECT setval(pg_get_serial_sequence('wdbc', 'id'), max(id)) AS last_id FROM wdbc \gset
ANALYZE wdbc;

SELECT id, label,
       (SELECT array_agg(round(x::numeric, 2)) FROM unnest(mean[1:4]) AS x) AS "mean[1:4]",
       (SELECT array_agg(round(x::numeric, 4)) FROM unnest(variance[1:4]) AS x) AS "variance[1:4]"
FROM wdbc
ORDER BY id
LIMIT 5;

SELECT count(*) FILTER (WHERE NOT test) AS training_rows,
       count(*) FILTER (WHERE test) AS test_rows
FROM wdbc;

\echo
\echo '== 4. Train SVM-GSU (expected hinge loss under each row''s Gaussian) on the 80 % training split'
-- "standardize": each feature is centred and scaled by the mean and standard
-- deviation of the training rows' means, each variance divided by the squared
-- scale; the model keeps both and scores rows in their own units.
CREATE TABLE demo_model AS
    SELECT gsu.train(mean, variance, label, '{"lambda": 0.001, "standardize": true}') AS model
    FROM wdbc WHERE NOT test;

\echo '   ... and, as a baseline, a plain linear SVM (hinge loss, variances ignored)'
CREATE TABLE demo_baseline AS
    SELECT gsu.train(mean, variance, label, '{"lambda": 0.001, "loss": "hinge", "standardize": true}') AS model
    FROM wdbc WHERE NOT test;

\echo
\echo '== 5. What was trained: gsu.describe(model)'
\pset format unaligned
\pset tuples_only on
SELECT jsonb_pretty(gsu.describe(model)) FROM demo_model;
\pset format aligned
\pset tuples_only off

\echo
\echo '== 6. Test accuracy of both models (and their mean expected loss on the test rows)'
SELECT 'SVM-GSU' AS method,
       round(avg((gsu.predict(model, mean) = label)::int), 3) AS test_accuracy,
       round(avg(gsu.expected_loss(model, mean, variance, label))::numeric, 4) AS mean_expected_loss
FROM wdbc, demo_model WHERE test
UNION ALL
SELECT 'linear SVM (hinge)',
       round(avg((gsu.predict(model, mean) = label)::int), 3),
       round(avg(gsu.expected_loss(model, mean, variance, label))::numeric, 4)
FROM wdbc, demo_baseline WHERE test;

\echo
\echo '== 7. The two hyperplanes side by side: gsu.weights(model) and gsu.bias(model)'
\echo '   (in standardized units, comparable across features; gsu.weights(model, units => ''original'') gives them per unit of each feature)'
SELECT f.feature,
       round(f.w_gsu::numeric, 3) AS svm_gsu,
       round(f.w_hinge::numeric, 3) AS linear_svm
FROM demo_model AS g, demo_baseline AS h,
     unnest(ARRAY['radius', 'texture', 'perimeter', 'area', 'smoothness',
                  'compactness', 'concavity', 'concave points', 'symmetry',
                  'fractal dimension'],
            gsu.weights(g.model), gsu.weights(h.model)) AS f(feature, w_gsu, w_hinge)
UNION ALL
SELECT '(bias)', round(gsu.bias(g.model)::numeric, 3), round(gsu.bias(h.model)::numeric, 3)
FROM demo_model AS g, demo_baseline AS h;

\echo
\echo '== 8. The 10 test rows SVM-GSU is least sure of, given their own uncertainty'
\echo '   confidence = P(the predicted label holds when the row is drawn from N(mean, variance))'
SELECT id, label,
       gsu.predict(model, mean) AS predicted,
       round(gsu.decision(model, mean)::numeric, 3) AS decision,
       round(gsu.confidence(model, mean, variance)::numeric, 3) AS confidence
FROM wdbc, demo_model
WHERE test
ORDER BY gsu.confidence(model, mean, variance), id
LIMIT 10;

\echo
\echo 'Done. The tables wdbc, demo_model and demo_baseline stay in the database pg_gsu_demo.'
\echo 'scripts/quickstart.sh stops its cluster at the end and keeps its data; to look around:'
\echo '  eval "$(bash scripts/cluster.sh start)"; psql -d pg_gsu_demo'
\echo '  SELECT model::jsonb FROM demo_model;'
