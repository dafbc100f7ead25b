-- gsu.fit with missing values (option "missing", docs/missing.md): one more
-- scan computes the feature moments that gsu.train computes from its buffered
-- rows, and every pass reads a NULL (or, with "missing_nan", NaN) mean element
-- through the pass's model, which carries them; the model is gsu.train's with
-- the same options, to the tolerances of regress test fit (objective 1e-8
-- relative, weights 1e-4), and its moments are the same to 1e-12.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing_fit;
SET search_path = test_missing_fit, public;

-- 300 rows of 3 features, feature 1 NULL in every 7th row, feature 3 in every
-- 5th (its variance NULL there); an isotropic variance, a full covariance, a
-- weight, and the same rows with NaN for NULL
CREATE TABLE rows AS
SELECT i AS id, l AS label, 1 + i % 3 AS w, 0.05 + 0.1 * (i % 3) AS iso,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE l * 1.0 + pnorm(i, 1) END,
		  l * 0.5 + pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance,
	ARRAY[[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.1 + 0.01 * (i % 4)]]::float8[] AS cov
FROM generate_series(1, 300) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
CREATE TABLE nans AS
SELECT id, label, ARRAY(SELECT coalesce(mean[j], 'NaN') FROM generate_series(1, 3) j) AS mean, variance
FROM rows;

CREATE FUNCTION training(m gsu.model, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (m::jsonb->'training'->>key)::float8
$$;
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
CREATE FUNCTION rel_objective(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT abs(training(a, 'objective') - training(b, 'objective')) / training(b, 'objective')
$$;
-- the largest relative difference of the stored moments (means and variances)
CREATE FUNCTION moments_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x - y) / greatest(abs(y), 1e-300))
	FROM unnest(ARRAY(SELECT jsonb_array_elements_text(a::jsonb->'missing'->'mean')::float8) ||
				ARRAY(SELECT jsonb_array_elements_text(a::jsonb->'missing'->'variance')::float8),
				ARRAY(SELECT jsonb_array_elements_text(b::jsonb->'missing'->'mean')::float8) ||
				ARRAY(SELECT jsonb_array_elements_text(b::jsonb->'missing'->'variance')::float8)) u(x, y)
$$;

\set on '{"missing": "feature_moments"}'
CREATE TABLE models (name text, f gsu.model, t gsu.model);
INSERT INTO models VALUES
	('newton', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', :'on'),
	 (SELECT gsu.train(mean, variance, label, :'on') FROM rows)),
	('lbfgs', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "solver": "lbfgs"}'),
	 (SELECT gsu.train(mean, variance, label, :'on') FROM rows)),
	('hinge', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "loss": "hinge"}'),
	 (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "loss": "hinge"}') FROM rows)),
	('certain', gsu.fit('test_missing_fit.rows', 'mean', NULL, 'label', :'on'),
	 (SELECT gsu.train(mean, NULL::float8[], label, :'on') FROM rows)),
	('iso', gsu.fit('test_missing_fit.rows', 'mean', 'iso', 'label', :'on'),
	 (SELECT gsu.train(mean, iso, label, :'on') FROM rows)),
	('full', gsu.fit('test_missing_fit.rows', 'mean', 'cov', 'label', :'on'),
	 (SELECT gsu.train(mean, cov, label, :'on') FROM rows)),
	('weighted', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', 'w', :'on'),
	 (SELECT gsu.train(mean, variance, label, w, :'on') FROM rows)),
	('balanced', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "class_weight": "balanced"}'),
	 (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "class_weight": "balanced"}') FROM rows)),
	('given', gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'),
	 (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM rows)),
	('nan', gsu.fit('test_missing_fit.nans', 'mean', 'variance', 'label', '{"missing": "feature_moments", "missing_nan": true}'),
	 (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_nan": true}') FROM nans));

-- the model of gsu.train, its moments and counts, its hyperparameters
SELECT name, rel_objective(f, t) < 1e-8 AS same_objective, rel_diff(f, t) < 1e-4 AS same_weights,
	moments_diff(f, t) < 1e-12 AS same_moments,
	gsu.describe(f)->'missing' = gsu.describe(t)->'missing' AS same_counts,
	gsu.describe(f)->'hyperparameters'->'missing' = gsu.describe(t)->'hyperparameters'->'missing' AND
	gsu.describe(f)->'hyperparameters'->'missing_nan' IS NOT DISTINCT FROM gsu.describe(t)->'hyperparameters'->'missing_nan' AS same_hyper,
	training(f, 'rows') AS rows
FROM models ORDER BY name;
-- one scan more than without missing values (the moments' scan), on rows without any
CREATE TABLE filled AS SELECT id, label, ARRAY(SELECT coalesce(mean[j], 0) FROM generate_series(1, 3) j) AS mean,
	ARRAY(SELECT coalesce(variance[j], 0.1) FROM generate_series(1, 3) j) AS variance FROM rows;
SELECT training(gsu.fit('test_missing_fit.filled', 'mean', 'variance', 'label', :'on'), 'passes') -
	   training(gsu.fit('test_missing_fit.filled', 'mean', 'variance', 'label'), 'passes') AS extra_scans,
	gsu.weights(gsu.fit('test_missing_fit.filled', 'mean', 'variance', 'label', :'on')) =
	gsu.weights(gsu.fit('test_missing_fit.filled', 'mean', 'variance', 'label')) AS same_bits;
-- the model scores rows with NULL elements as gsu.train's does
SELECT count(*) FILTER (WHERE abs(gsu.confidence(m.f, r.mean, r.variance) - gsu.confidence(m.t, r.mean, r.variance)) < 1e-6) AS confidence,
	count(*) FILTER (WHERE gsu.predict(m.f, r.mean) = gsu.predict(m.t, r.mean)) AS predict
FROM models m, rows r WHERE m.name = 'newton';

-- gsu.gradient and gsu.hessian read missing elements through a model with the moments:
-- the sums over the rows are those over the rows filled by hand
SELECT (SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(g1::text::jsonb->'vector')::float8),
										   ARRAY(SELECT jsonb_array_elements_text(g2::text::jsonb->'vector')::float8)) u(a, b)) < 1e-9 AS gradient,
	g1::text::jsonb->'rows' AS rows
FROM (SELECT gsu.gradient(r.mean, r.variance, r.label, m.t, 0.001) AS g1 FROM rows r, models m WHERE m.name = 'newton') a,
	(SELECT gsu.gradient(ARRAY(SELECT coalesce(r.mean[j], (m.t::jsonb->'missing'->'mean'->>(j - 1))::float8) FROM generate_series(1, 3) j),
						 ARRAY(SELECT coalesce(r.variance[j], 0) + CASE WHEN r.mean[j] IS NULL THEN (m.t::jsonb->'missing'->'variance'->>(j - 1))::float8 ELSE 0 END
							   FROM generate_series(1, 3) j), r.label, m.t, 0.001) AS g2
	 FROM rows r, models m WHERE m.name = 'newton') b;

-- errors
-- without the option a NULL element is refused, and a NaN without "missing_nan"
SELECT test_error($$SELECT gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('test_missing_fit.nans', 'mean', 'variance', 'label', '{"missing": "feature_moments"}')$$);
-- not with "standardize" (gsu.train combines them)
SELECT test_error($$SELECT gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "standardize": true}')$$);
-- a feature missing in every row; the user's moments of the wrong length
CREATE TABLE allnull AS SELECT i AS label, ARRAY[NULL, i]::float8[] AS mean FROM generate_series(-1, 1, 2) i;
SELECT test_error($$SELECT gsu.fit('test_missing_fit.allnull', 'mean', NULL, 'label', '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.fit('test_missing_fit.rows', 'mean', 'variance', 'label', '{"missing": "feature_moments", "missing_mean": [0, 0]}')$$);
-- a covariance factor with a missing element
CREATE TABLE factors AS SELECT id, label, mean, ARRAY[[0.3], [0.2], [0.1]]::float8[] AS f FROM rows;
SELECT test_error($$SELECT gsu.fit('test_missing_fit.factors', 'mean', 'f', 'label', '{"missing": "feature_moments"}')$$);
-- a gradient whose model has no moments refuses the NULL as before
SELECT test_error($$SELECT gsu.gradient(mean, variance, label, gsu.fit('test_missing_fit.filled', 'mean', 'variance', 'label'), 0.001) FROM test_missing_fit.rows$$);

DROP SCHEMA test_missing_fit CASCADE;
