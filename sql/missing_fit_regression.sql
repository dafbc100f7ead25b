-- gsu.fit's regression with missing values (option "missing", docs/missing.md):
-- the moments' scan of classification (gsu_fit_missing.c), then each scan of
-- gsu.regression_hessian fills a row's NULL (with "missing_nan", NaN) mean
-- elements from the model it is given, which carries the moments.  The model
-- is gsu.train_regression's with the same options, to regress fit_regression's
-- tolerances (ridge-GSU 1e-9, SVR-GSU 1e-7), its moments to 1e-12.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing_fitreg;
SET search_path = test_missing_fitreg, public;

-- 300 rows of 3 features, feature 1 NULL in every 7th row, feature 3 in every
-- 5th (its variance NULL there); an isotropic variance, a full covariance, a
-- weight, and the same rows with NaN for NULL
CREATE TABLE rows AS
SELECT i AS id, 1 + i % 3 AS w, 0.05 + 0.1 * (i % 3) AS iso,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE x1 END, x2,
		  CASE WHEN i % 5 = 0 THEN NULL ELSE x3 END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance,
	ARRAY[[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.1 + 0.01 * (i % 4)]]::float8[] AS cov,
	1.5 * x1 - 0.7 * x2 + 0.3 * x3 + 0.2 + 0.3 * pnorm(i, 4) AS y
FROM generate_series(1, 300) i,
	LATERAL (SELECT pnorm(i, 1) AS x1, pnorm(i, 2) AS x2, pnorm(i, 3) AS x3) x;
CREATE TABLE nans AS
SELECT id, y, ARRAY(SELECT coalesce(mean[j], 'NaN') FROM generate_series(1, 3) j) AS mean, variance
FROM rows;

CREATE FUNCTION max_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x - z)) FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, z)
$$;
CREATE FUNCTION moments_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x - y) / greatest(abs(y), 1e-300))
	FROM unnest(ARRAY(SELECT jsonb_array_elements_text(a::jsonb->'missing'->'mean')::float8) ||
				ARRAY(SELECT jsonb_array_elements_text(a::jsonb->'missing'->'variance')::float8),
				ARRAY(SELECT jsonb_array_elements_text(b::jsonb->'missing'->'mean')::float8) ||
				ARRAY(SELECT jsonb_array_elements_text(b::jsonb->'missing'->'variance')::float8)) u(x, y)
$$;

\set sq '{"loss": "squared", "missing": "feature_moments"}'
\set svr '{"loss": "epsilon_insensitive", "missing": "feature_moments"}'
\set sqg '{"loss": "squared", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
\set svrg '{"loss": "epsilon_insensitive", "missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}'
CREATE TABLE models (name text, tol float8, f gsu.model, t gsu.model);
INSERT INTO models VALUES
	('ridge', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', :'sq'),
	 (SELECT gsu.train_regression(mean, variance, y, :'sq') FROM rows)),
	('ridge certain', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', NULL, 'y', :'sq'),
	 (SELECT gsu.train_regression(mean, NULL::float8[], y, :'sq') FROM rows)),
	('ridge iso', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', 'iso', 'y', :'sq'),
	 (SELECT gsu.train_regression(mean, iso, y, :'sq') FROM rows)),
	('ridge full', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', 'cov', 'y', :'sq'),
	 (SELECT gsu.train_regression(mean, cov, y, :'sq') FROM rows)),
	('ridge weighted', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', 'w', :'sq'),
	 (SELECT gsu.train_regression(mean, variance, y, w, :'sq') FROM rows)),
	('ridge given', 1e-9, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', :'sqg'),
	 (SELECT gsu.train_regression(mean, variance, y, :'sqg') FROM rows)),
	('ridge nan', 1e-9, gsu.fit('test_missing_fitreg.nans', 'mean', 'variance', 'y', '{"loss": "squared", "missing": "feature_moments", "missing_nan": true}'),
	 (SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "missing": "feature_moments", "missing_nan": true}') FROM nans)),
	('svr', 1e-7, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', :'svr'),
	 (SELECT gsu.train_regression(mean, variance, y, :'svr') FROM rows)),
	('svr certain', 1e-7, gsu.fit('test_missing_fitreg.rows', 'mean', NULL, 'y', :'svr'),
	 (SELECT gsu.train_regression(mean, NULL::float8[], y, :'svr') FROM rows)),
	('svr full', 1e-7, gsu.fit('test_missing_fitreg.rows', 'mean', 'cov', 'y', :'svr'),
	 (SELECT gsu.train_regression(mean, cov, y, :'svr') FROM rows)),
	('svr weighted', 1e-7, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', 'w', :'svr'),
	 (SELECT gsu.train_regression(mean, variance, y, w, :'svr') FROM rows)),
	('svr given', 1e-7, gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', :'svrg'),
	 (SELECT gsu.train_regression(mean, variance, y, :'svrg') FROM rows)),
	('svr nan', 1e-7, gsu.fit('test_missing_fitreg.nans', 'mean', 'variance', 'y', '{"loss": "epsilon_insensitive", "missing": "feature_moments", "missing_nan": true}'),
	 (SELECT gsu.train_regression(mean, variance, y, '{"loss": "epsilon_insensitive", "missing": "feature_moments", "missing_nan": true}') FROM nans));

-- the model of gsu.train_regression, its moments and counts, its hyperparameters
SELECT name, max_diff(f, t) < tol AS same_model,
	abs((f::jsonb->'training'->>'objective')::float8 - (t::jsonb->'training'->>'objective')::float8) <
		tol * greatest(1, abs((t::jsonb->'training'->>'objective')::float8)) AS same_objective,
	moments_diff(f, t) < 1e-12 AS same_moments,
	gsu.describe(f)->'missing' = gsu.describe(t)->'missing' AS same_counts,
	gsu.describe(f)->'hyperparameters'->'missing' = gsu.describe(t)->'hyperparameters'->'missing' AND
	gsu.describe(f)->'hyperparameters'->'missing_nan' IS NOT DISTINCT FROM gsu.describe(t)->'hyperparameters'->'missing_nan' AS same_hyper,
	(f::jsonb->'training'->>'rows')::int AS rows,
	(f::jsonb->'training'->>'converged')::bool AS converged
FROM models ORDER BY name;
-- the model scores rows with NULL elements as gsu.train_regression's does
SELECT m.name, count(*) FILTER (WHERE abs(gsu.decision(m.f, r.mean) - gsu.decision(m.t, r.mean)) < 1e-6) AS same_decision
FROM models m, rows r WHERE m.name IN ('ridge', 'svr') GROUP BY m.name ORDER BY m.name;

-- gsu.regression_hessian and gsu.regression_gradient read missing elements through a model
-- with the moments: the sums over the rows are those over the rows filled by hand
CREATE FUNCTION vec(p gsu.partial) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY(SELECT jsonb_array_elements_text(p::text::jsonb->'vector')::float8)
$$;
CREATE VIEW filled AS
SELECT m.name, r.y,
	ARRAY(SELECT coalesce(r.mean[j], (m.t::jsonb->'missing'->'mean'->>(j - 1))::float8) FROM generate_series(1, 3) j) AS mean,
	ARRAY(SELECT coalesce(r.variance[j], 0) + CASE WHEN r.mean[j] IS NULL THEN (m.t::jsonb->'missing'->'variance'->>(j - 1))::float8 ELSE 0 END
		  FROM generate_series(1, 3) j) AS variance
FROM rows r, models m;
SELECT m.name,
	(SELECT max(abs(a - b)) FROM unnest(vec(h1), vec(h2)) u(a, b)) < 1e-9 AS hessian,
	(SELECT max(abs(a - b)) FROM unnest(vec(g1), vec(g2)) u(a, b)) < 1e-9 AS gradient,
	h1::text::jsonb->'rows' AS rows
FROM models m,
	LATERAL (SELECT gsu.regression_hessian(r.mean, r.variance, r.y, m.t, 0.01) AS h1,
					gsu.regression_gradient(r.mean, r.variance, r.y, m.t, 0.01) AS g1 FROM rows r) a,
	LATERAL (SELECT gsu.regression_hessian(v.mean, v.variance, v.y, m.t, 0.01) AS h2,
					gsu.regression_gradient(v.mean, v.variance, v.y, m.t, 0.01) AS g2 FROM filled v WHERE v.name = m.name) b
WHERE m.name IN ('ridge', 'svr') ORDER BY m.name;

-- errors
-- without the option a NULL element is refused; a NaN without "missing_nan"
SELECT test_error($$SELECT gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', '{"loss": "squared"}')$$);
SELECT test_error($$SELECT gsu.fit('test_missing_fitreg.nans', 'mean', 'variance', 'y', '{"loss": "epsilon_insensitive", "missing": "feature_moments"}')$$);
-- not with "standardize" (gsu.train_regression combines them)
SELECT test_error($$SELECT gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', '{"loss": "epsilon_insensitive", "missing": "feature_moments", "standardize": true}')$$);
-- the user's moments of the wrong length; a covariance factor with a missing element
SELECT test_error($$SELECT gsu.fit('test_missing_fitreg.rows', 'mean', 'variance', 'y', '{"loss": "squared", "missing": "feature_moments", "missing_variance": [1, 1]}')$$);
CREATE TABLE factors AS SELECT id, y, mean, ARRAY[[0.3], [0.2], [0.1]]::float8[] AS f FROM rows;
SELECT test_error($$SELECT gsu.fit('test_missing_fitreg.factors', 'mean', 'f', 'y', '{"loss": "squared", "missing": "feature_moments"}')$$);
-- a regression_hessian whose model has no moments refuses the NULL as before
SELECT test_error($$SELECT gsu.regression_hessian(mean, variance, y, (SELECT gsu.train_regression(mean, variance, y) FROM test_missing_fitreg.nans WHERE id % 5 <> 0 AND id % 7 <> 0), 0) FROM test_missing_fitreg.rows$$);

DROP SCHEMA test_missing_fitreg CASCADE;
