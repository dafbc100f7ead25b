-- NaN read as missing on request (option "missing_nan", docs/missing.md): with
-- "missing": "feature_moments" and "missing_nan": true a NaN element of a row's
-- mean is missing exactly as a NULL one, in training and in the model's scoring.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing_nan;
SET search_path = test_missing_nan, public;

-- 200 rows of 3 features, feature 1 missing in every 7th row, feature 3 in
-- every 5th (its variance NULL there); "nulls" marks them NULL, "nans" NaN,
-- "mixed" NULL for feature 1 and NaN for feature 3
CREATE TABLE nulls AS
SELECT i AS id, l AS label, 0.8 * l + pnorm(i, 4) AS target,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE l * 1.0 + pnorm(i, 1) END,
		  l * 0.5 + pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance
FROM generate_series(1, 200) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
CREATE TABLE nans AS
SELECT id, label, target, ARRAY(SELECT coalesce(mean[j], 'NaN') FROM generate_series(1, 3) j) AS mean, variance
FROM nulls;
CREATE TABLE mixed AS
SELECT id, label, target, ARRAY[mean[1], mean[2], coalesce(mean[3], 'NaN')] AS mean, variance
FROM nulls;

\set on '{"missing": "feature_moments", "missing_nan": true}'
CREATE TABLE models AS
SELECT (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') FROM nulls) AS from_nulls,
	(SELECT gsu.train(mean, variance, label, :'on') FROM nulls) AS nulls_on,
	(SELECT gsu.train(mean, variance, label, :'on') FROM nans) AS from_nans,
	(SELECT gsu.train(mean, variance, label, :'on') FROM mixed) AS from_mixed,
	(SELECT gsu.train(mean, 0.2, label, :'on') FROM nans) AS iso,
	(SELECT gsu.train(mean, 0.2, label, '{"missing": "feature_moments"}') FROM nulls) AS iso_nulls,
	(SELECT gsu.train_regression(mean, variance, target, '{"missing": "feature_moments"}') FROM nulls) AS svr_nulls,
	(SELECT gsu.train_regression(mean, variance, target, :'on') FROM nans) AS svr;

-- NaN, NULL or both: the same model (the same weights and moments, bit for bit)
SELECT gsu.weights(from_nans) = gsu.weights(from_nulls) AND gsu.bias(from_nans) = gsu.bias(from_nulls) AS nans,
	gsu.weights(from_mixed) = gsu.weights(from_nulls) AND gsu.bias(from_mixed) = gsu.bias(from_nulls) AS mixed,
	gsu.weights(nulls_on) = gsu.weights(from_nulls) AS nulls_on,
	gsu.weights(iso) = gsu.weights(iso_nulls) AS iso,
	gsu.weights(svr) = gsu.weights(svr_nulls) AND gsu.bias(svr) = gsu.bias(svr_nulls) AS regression,
	from_nans::jsonb->'missing' = from_nulls::jsonb->'missing' AS moments,
	svr::jsonb->'missing' = svr_nulls::jsonb->'missing' AS regression_moments
FROM models;
-- the model keeps the option (a flag, shown as a hyperparameter); without it, none
SELECT gsu.describe(from_nans)->'missing' AS counts,
	gsu.describe(from_nans)->'hyperparameters'->'missing_nan' AS nan,
	gsu.describe(svr)->'hyperparameters'->'missing_nan' AS svr_nan,
	gsu.describe(from_nulls)->'hyperparameters' ? 'missing_nan' AS without
FROM models;
-- text and binary forms round-trip with it
CREATE TABLE copied (m gsu.model);
SELECT regress_file('missing_nan') AS regress_file \gset
COPY (SELECT from_nans FROM models) TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT from_nans::text::gsu.model OPERATOR(gsu.=) from_nans AS text_same,
	gsu.model_send(from_nans::text::gsu.model) = gsu.model_send(from_nans) AS text_bytes,
	(SELECT gsu.model_send(m) FROM copied) = gsu.model_send(from_nans) AS binary_bytes,
	gsu.describe((SELECT m FROM copied))->'hyperparameters'->'missing_nan' AS binary_nan
FROM models;

-- scoring: a NaN element is the NULL one, for the model trained with the option
SELECT count(*) AS rows,
	count(*) FILTER (WHERE gsu.decision(m.from_nans, a.mean) = gsu.decision(m.from_nans, n.mean)) AS decision,
	count(*) FILTER (WHERE gsu.predict(m.from_nans, a.mean) = gsu.predict(m.from_nans, n.mean)) AS predict,
	count(*) FILTER (WHERE gsu.confidence(m.from_nans, a.mean, a.variance) = gsu.confidence(m.from_nans, n.mean, n.variance)) AS confidence,
	count(*) FILTER (WHERE gsu.confidence(m.from_nans, a.mean, ARRAY[0.2]) = gsu.confidence(m.from_nans, n.mean, ARRAY[0.2])) AS confidence_iso,
	count(*) FILTER (WHERE gsu.expected_loss(m.from_nans, a.mean, a.variance, a.label) = gsu.expected_loss(m.from_nans, n.mean, n.variance, n.label)) AS expected_loss,
	count(*) FILTER (WHERE gsu.predictive(m.svr, a.mean, a.variance) = gsu.predictive(m.svr, n.mean, n.variance)) AS predictive
FROM nans a JOIN nulls n USING (id), models m;
SELECT bool_and(a.contribution = b.contribution AND a.variance_share = b.variance_share) AS explain_same
FROM models m,
	gsu.explain(m.from_nans, ARRAY['NaN', 0.3, 0.1]::float8[], ARRAY[0.1, 0.1, 0.1]::float8[]) a
	JOIN gsu.explain(m.from_nans, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[0.1, 0.1, 0.1]::float8[]) b
	ON a.feature IS NOT DISTINCT FROM b.feature;
-- a NULL variance element where the mean is NaN reads as 0, as where it is NULL
SELECT gsu.confidence(from_nans, ARRAY['NaN', 0.3, 0.1]::float8[], ARRAY[NULL, 0.1, 0.1]::float8[]) =
	   gsu.confidence(from_nans, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[NULL, 0.1, 0.1]::float8[]) AS null_variance
FROM models;

-- errors
-- the option needs "missing": "feature_moments", and is a boolean
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing_nan": true}') FROM test_missing_nan.nulls$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, target, '{"missing": "error", "missing_nan": true}') FROM test_missing_nan.nulls$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_nan": 1}') FROM test_missing_nan.nulls$$);
SELECT test_error($$SELECT gsu.fit('test_missing_nan.nulls', 'mean', 'variance', 'label', '{"missing_nan": true}')$$);
-- false is the default: a NaN stays an error
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_nan": false}') FROM test_missing_nan.nans$$);
-- ±Infinity is never missing; a NaN variance is an error, also where the mean is NaN
SELECT test_error($$SELECT gsu.train(ARRAY['NaN', 'Infinity', 1]::float8[], NULL::float8[], 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[1, '-Infinity', 1]::float8[], NULL::float8[], 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY['NaN', 1, 1]::float8[], ARRAY[0.1, 'NaN', 0.1]::float8[], 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY['NaN', 1, 1]::float8[], ARRAY['NaN', 0.1, 0.1]::float8[], 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY['NaN', 1, 1]::float8[], 'NaN'::float8, 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
-- a NULL variance element where the mean element is present stays an error
SELECT test_error($$SELECT gsu.train(ARRAY['NaN', 1, 1]::float8[], ARRAY[NULL, NULL, 0.1]::float8[], 1, '{"missing": "feature_moments", "missing_nan": true}')$$);
-- scoring: a model trained without the option refuses a NaN (with NULLs too); ±Infinity and NaN variances stay errors
SELECT test_error($$SELECT gsu.decision(from_nulls, ARRAY['NaN', 0.3, 0.1]::float8[]) FROM test_missing_nan.models$$);
SELECT test_error($$SELECT gsu.decision(from_nulls, ARRAY['NaN', NULL, 0.1]::float8[]) FROM test_missing_nan.models$$);
SELECT test_error($$SELECT gsu.decision(from_nans, ARRAY['NaN', 'Infinity', 0.1]::float8[]) FROM test_missing_nan.models$$);
SELECT test_error($$SELECT gsu.confidence(from_nans, ARRAY['NaN', 0.3, 0.1]::float8[], ARRAY[0.1, 'NaN', 0.1]::float8[]) FROM test_missing_nan.models$$);
SELECT test_error($$SELECT gsu.decision(from_nans, ARRAY['NaN', 0.3]::float8[]) FROM test_missing_nan.models$$);
-- a text form with "missing_nan" but no moments
SELECT test_error($$SELECT (jsonb_set(from_nans::jsonb - 'missing', '{hyperparameters,missing}', '"error"'))::text::gsu.model FROM test_missing_nan.models$$);
SELECT test_error($$SELECT (jsonb_set(from_nans::jsonb, '{hyperparameters,missing_nan}', '1'))::text::gsu.model FROM test_missing_nan.models$$);

-- a forced parallel plan: the workers' NaN rows are the serial ones
CREATE TABLE big AS
SELECT i AS id, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label,
	ARRAY[CASE WHEN i % 7 = 0 THEN 'NaN' ELSE (i % 2) + pnorm(i, 1) END, pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.1, 0.2, 0.3]::float8[] AS variance
FROM generate_series(1, 20000) i;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS SELECT gsu.train(mean, variance, label, :'on') AS m FROM big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
SELECT workers_launched($$CREATE TABLE test_missing_nan.par AS
SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_nan": true}') AS m FROM test_missing_nan.big$$);
SELECT sqrt((SELECT sum((a - b) ^ 2) FROM unnest(gsu.weights(s.m), gsu.weights(p.m)) u(a, b))) /
	   sqrt((SELECT sum(a ^ 2) FROM unnest(gsu.weights(s.m)) u(a))) < 1e-6 AS weights,
	gsu.describe(p.m)->'missing' AS counts, gsu.describe(p.m)->'hyperparameters'->'missing_nan' AS nan
FROM serial s, par p;
RESET ALL;

DROP SCHEMA test_missing_nan CASCADE;
