-- Missing values as uncertainty (option "missing", docs/missing.md): a NULL
-- mean element is the feature's observed mean, its variance added to the row's.
\set SHOW_CONTEXT never
CREATE SCHEMA test_missing;
SET search_path = test_missing, public;

-- 300 rows of 3 features; feature 1 is NULL in every 7th row, feature 3 in
-- every 5th (where its variance is NULL too), feature 2 never
CREATE TABLE rows AS
SELECT i AS id, l AS label, 0.8 * l + pnorm(i, 4) AS target,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE l * 1.0 + pnorm(i, 1) END,
		  l * 0.5 + pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE 0.05 + 0.5 * prand(i, 7) END]::float8[] AS variance,
	(i % 3) AS class3
FROM generate_series(1, 300) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;

-- without the option: refused as always, with a hint
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM rows$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, target) FROM rows$$);

-- the feature moments over the rows where the feature is present: the mean m,
-- and by the law of total variance the variance v of a value drawn from one of
-- those rows' Gaussians, the population variance vm of the means plus the
-- average of the rows' variances
CREATE TABLE moments AS
SELECT array_agg(m ORDER BY j) AS m, array_agg(vm + s ORDER BY j) AS v, array_agg(vm ORDER BY j) AS vm
FROM (SELECT j, avg(mean[j]) AS m, var_pop(mean[j]) AS vm,
			 avg(variance[j]) FILTER (WHERE mean[j] IS NOT NULL) AS s
	  FROM rows, generate_series(1, 3) j GROUP BY j) s;
-- the rows filled by hand: the mean, and the variance plus v_j (a NULL variance element reads 0)
CREATE TABLE filled AS
SELECT r.id, r.label, r.target, r.class3,
	ARRAY(SELECT coalesce(r.mean[j], mo.m[j]) FROM generate_series(1, 3) j) AS mean,
	ARRAY(SELECT CASE WHEN r.mean[j] IS NULL THEN coalesce(r.variance[j], 0) + mo.v[j]
				 ELSE r.variance[j] END FROM generate_series(1, 3) j) AS variance
FROM rows r, moments mo;

CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;

CREATE TABLE models AS
SELECT (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') FROM rows) AS gsu,
	(SELECT gsu.train(mean, variance, label) FROM filled) AS gsu_hand,
	(SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "loss": "hinge"}') FROM rows) AS hinge,
	(SELECT gsu.train(mean, variance, label, '{"loss": "hinge"}') FROM filled) AS hinge_hand,
	-- (class3 is noise: one of its one-vs-rest problems ends a hair above the default tolerance)
	(SELECT gsu.train(mean, variance, class3, '{"missing": "feature_moments", "tolerance": 1e-5}') FROM rows) AS multi,
	(SELECT gsu.train(mean, variance, class3, '{"tolerance": 1e-5}') FROM filled) AS multi_hand,
	(SELECT gsu.train(mean, NULL::float8[], label, '{"missing": "feature_moments"}') FROM rows) AS certain,
	-- (certain rows: the means' variance alone)
	(SELECT gsu.train(ARRAY(SELECT coalesce(r.mean[j], mo.m[j]) FROM generate_series(1, 3) j),
					  ARRAY(SELECT CASE WHEN r.mean[j] IS NULL THEN mo.vm[j] ELSE 0 END
							FROM generate_series(1, 3) j), r.label)
	 FROM rows r, moments mo) AS certain_hand,
	(SELECT gsu.train_regression(mean, variance, target, '{"missing": "feature_moments"}') FROM rows) AS svr,
	(SELECT gsu.train_regression(mean, variance, target) FROM filled) AS svr_hand,
	(SELECT gsu.train_regression(mean, variance, target, '{"missing": "feature_moments", "loss": "squared"}') FROM rows) AS ridge,
	(SELECT gsu.train_regression(mean, variance, target, '{"loss": "squared"}') FROM filled) AS ridge_hand;

-- the filled models are the models of the rows filled by hand
SELECT rel_diff(gsu, gsu_hand) < 1e-9 AS gsu, rel_diff(hinge, hinge_hand) < 1e-9 AS hinge,
	(SELECT max(abs(a - b)) FROM unnest(gsu.weights(multi), gsu.weights(multi_hand)) u(a, b)) < 1e-9 AS multi,
	rel_diff(certain, certain_hand) < 1e-9 AS certain,
	rel_diff(svr, svr_hand) < 1e-9 AS svr, rel_diff(ridge, ridge_hand) < 1e-9 AS ridge
FROM models;
-- row weights and boolean labels: the moments count every row once, the weights weigh the loss
SELECT rel_diff((SELECT gsu.train(mean, variance, label, 1 + id % 3, '{"missing": "feature_moments"}') FROM rows),
				(SELECT gsu.train(mean, variance, label, 1 + id % 3, NULL) FROM filled)) < 1e-9 AS weighted,
	rel_diff((SELECT gsu.train(mean, variance, label > 0, '{"missing": "feature_moments"}') FROM rows),
			 (SELECT gsu.train(mean, variance, label > 0) FROM filled)) < 1e-9 AS bool,
	rel_diff((SELECT gsu.train_regression(mean, variance, target, 1 + id % 3, '{"missing": "feature_moments"}') FROM rows),
			 (SELECT gsu.train_regression(mean, variance, target, 1 + id % 3, NULL) FROM filled)) < 1e-9 AS regression_weighted;
-- cross-validation passes the option to each fold's training (its moments are the fold's)
SELECT lambda, fold_count, metric_mean > 0.5 AS better_than_chance
FROM gsu.cross_validate('test_missing.rows', 'mean', 'variance', 'label', ARRAY[0.01], 3,
						options => '{"missing": "feature_moments"}');
-- the stored moments are the observed ones (the variance the total one); the counts
SELECT (SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(gsu::jsonb->'missing'->'mean')::float8), mo.m) u(a, b)) < 1e-12 AS mean,
	(SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(gsu::jsonb->'missing'->'variance')::float8), mo.v) u(a, b)) < 1e-12 AS variance,
	gsu.describe(gsu)->'missing' AS describe, gsu.describe(gsu)->'hyperparameters'->'missing' AS hyper,
	(SELECT count(*) FROM rows WHERE mean[1] IS NULL OR mean[3] IS NULL) AS rows_with_missing
FROM models, moments mo;
-- text and binary forms round-trip
SELECT gsu::text::gsu.model OPERATOR(gsu.=) gsu AS text_same,
	gsu.model_send(gsu::text::gsu.model) = gsu.model_send(gsu) AS text_bytes,
	gsu.model_send(svr::text::gsu.model) = gsu.model_send(svr) AS svr_bytes FROM models;
CREATE TABLE copied (m gsu.model);
SELECT regress_file('missing') AS regress_file \gset
COPY (SELECT gsu FROM models UNION ALL SELECT multi FROM models) TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT count(*) FILTER (WHERE gsu.model_send(c.m) IN (SELECT gsu.model_send(gsu) FROM models UNION ALL SELECT gsu.model_send(multi) FROM models)) AS same FROM copied c;

-- the option changes no weight when no element is missing (the same bits)
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same_bits,
	gsu.describe(a)->'missing' AS counts
FROM (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') AS a,
			 gsu.train(mean, variance, label) AS b FROM filled) s;
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same_bits
FROM (SELECT gsu.train_regression(mean, variance, target, '{"missing": "error"}') AS a,
			 gsu.train_regression(mean, variance, target) AS b FROM filled) s;

-- scoring a row with NULL elements is scoring the row filled by hand
SELECT count(*) AS rows,
	count(*) FILTER (WHERE gsu.predict(m.gsu, r.mean) = gsu.predict(m.gsu, f.mean)) AS predict,
	count(*) FILTER (WHERE gsu.decision(m.gsu, r.mean) = gsu.decision(m.gsu, f.mean)) AS decision,
	count(*) FILTER (WHERE gsu.decisions(m.multi, r.mean) = gsu.decisions(m.multi, f.mean)) AS decisions,
	count(*) FILTER (WHERE abs(gsu.confidence(m.gsu, r.mean, r.variance) - gsu.confidence(m.gsu, f.mean, f.variance)) < 1e-12) AS confidence,
	count(*) FILTER (WHERE abs(gsu.confidence(m.multi, r.mean, r.variance) - gsu.confidence(m.multi, f.mean, f.variance)) < 1e-12) AS confidence_multi,
	count(*) FILTER (WHERE abs(gsu.expected_loss(m.gsu, r.mean, r.variance, r.label) - gsu.expected_loss(m.gsu, f.mean, f.variance, f.label)) < 1e-12) AS expected_loss,
	count(*) FILTER (WHERE abs((gsu.predictive(m.svr, r.mean, r.variance)).sd - (gsu.predictive(m.svr, f.mean, f.variance)).sd) < 1e-12
					 AND gsu.decision(m.svr, r.mean) = gsu.decision(m.svr, f.mean)) AS predictive
FROM rows r JOIN filled f USING (id), models m;
-- calibration (gsu.calibrate, gsu.probability, gsu.probabilities) reads rows with NULL elements too
SELECT count(*) FILTER (WHERE abs(gsu.probability(c.cm, r.mean) - gsu.probability(c.cm, f.mean)) < 1e-12) AS probability,
	count(*) FILTER (WHERE gsu.probabilities(c.cm, r.mean) = gsu.probabilities(c.cm, f.mean)) AS probabilities,
	bool_and(gsu.describe(c.cm)->'missing' = gsu.describe(c.hm)->'missing') AS block_kept
FROM (SELECT (SELECT gsu.calibrate(m.gsu, r.mean, r.label) FROM rows r) AS cm,
			 (SELECT gsu.calibrate(m.gsu, f.mean, f.label) FROM filled f) AS hm FROM models m) c,
	rows r JOIN filled f USING (id)
WHERE gsu.model_send(c.cm) = gsu.model_send(c.hm);
-- a NULL variance with a missing element: the feature's variance alone
SELECT abs(gsu.confidence(m.gsu, ARRAY[NULL, 0.3, 0.1]::float8[], NULL::float8[]) -
		   gsu.confidence(m.gsu, ARRAY[mo.m[1], 0.3, 0.1], ARRAY[mo.v[1], 0, 0])) < 1e-12 AS null_variance
FROM models m, moments mo;
-- a variance array without NULL elements is not changed by scoring: the same
-- constant scored on three rows (and an explain rescanned per row of a join)
-- gives one value
SELECT count(DISTINCT gsu.confidence(m.gsu, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[0.1, 0.1, 0.1]::float8[])) AS confidences,
	count(DISTINCT e.variance_share) AS explain_shares
FROM models m, generate_series(1, 3) i,
	LATERAL gsu.explain(m.gsu, ARRAY[NULL, 0.3, 0.1 + 0 * i]::float8[], ARRAY[0.1, 0.1, 0.1]::float8[]) e
WHERE e.feature = 1;
-- gsu.explain: the missing feature's share of w'Sigma w
SELECT feature, round(contribution::numeric, 6) AS contribution, round(variance_share::numeric, 6) AS variance_share
FROM models m, gsu.explain(m.gsu, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[NULL, 0.1, 0.1]::float8[]) ORDER BY feature NULLS FIRST;
SELECT bool_and(abs(a.contribution - b.contribution) < 1e-12 AND abs(a.variance_share - b.variance_share) < 1e-12) AS explain_same
FROM models m, moments mo,
	gsu.explain(m.gsu, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[NULL, 0.1, 0.1]::float8[]) a
	JOIN gsu.explain(m.gsu, ARRAY[mo.m[1], 0.3, 0.1], ARRAY[mo.v[1], 0.1, 0.1]) b
	ON a.feature IS NOT DISTINCT FROM b.feature;
-- a model trained without the option refuses a NULL element as before
SELECT test_error($$SELECT gsu.decision(gsu_hand, ARRAY[NULL, 0.3, 0.1]::float8[]) FROM test_missing.models$$);
SELECT test_error($$SELECT gsu.confidence(gsu_hand, ARRAY[NULL, 0.3, 0.1]::float8[], NULL::float8[]) FROM test_missing.models$$);

-- isotropic and full covariances: Σ as given, the feature's variance added to its diagonal
CREATE TABLE full_rows AS
SELECT id, label, mean, 0.05 + 0.1 * (id % 3) AS iso,
	ARRAY[[0.3, 0.1, 0.0], [0.1, 0.2, 0.05], [0.0, 0.05, 0.1 + 0.01 * (id % 4)]]::float8[] AS cov
FROM rows;
-- their features' variances: the means' variance plus the average isotropic
-- variance, or the average diagonal element of the full covariance, of the
-- rows where the feature is present
CREATE TABLE full_moments AS
SELECT array_agg(vm + si ORDER BY j) AS vi, array_agg(vm + sf ORDER BY j) AS vf
FROM (SELECT j, var_pop(mean[j]) AS vm, avg(iso) FILTER (WHERE mean[j] IS NOT NULL) AS si,
			 avg(cov[j][j]) FILTER (WHERE mean[j] IS NOT NULL) AS sf
	  FROM full_rows, generate_series(1, 3) j GROUP BY j) s;
SELECT rel_diff((SELECT gsu.train(mean, iso, label, '{"missing": "feature_moments"}') FROM full_rows),
				(SELECT gsu.train(f.mean, ARRAY(SELECT r.iso + CASE WHEN r.mean[j] IS NULL THEN fm.vi[j] ELSE 0 END
												FROM generate_series(1, 3) j), f.label)
				 FROM full_rows r JOIN filled f USING (id), moments mo, full_moments fm)) < 1e-9 AS iso,
	rel_diff((SELECT gsu.train(mean, cov, label, '{"missing": "feature_moments"}') FROM full_rows),
			 (SELECT gsu.train(f.mean, ARRAY(SELECT ARRAY(SELECT r.cov[i][k] + CASE WHEN i = k AND r.mean[i] IS NULL THEN fm.vf[i] ELSE 0 END
														FROM generate_series(1, 3) k) FROM generate_series(1, 3) i), f.label)
			  FROM full_rows r JOIN filled f USING (id), moments mo, full_moments fm)) < 1e-9 AS full;
-- (scoring reads the model's moments, here those of the rows' diagonal variances)
SELECT count(*) FILTER (WHERE abs(gsu.confidence(m.gsu, r.mean, ARRAY[r.iso]) -
								  gsu.confidence(m.gsu, f.mean, ARRAY(SELECT r.iso + CASE WHEN r.mean[j] IS NULL THEN mo.v[j] ELSE 0 END
																	  FROM generate_series(1, 3) j))) < 1e-12) AS iso,
	count(*) FILTER (WHERE abs(gsu.confidence(m.gsu, r.mean, r.cov) -
								  gsu.confidence(m.gsu, f.mean, ARRAY(SELECT ARRAY(SELECT r.cov[i][k] + CASE WHEN i = k AND r.mean[i] IS NULL THEN mo.v[i] ELSE 0 END
																				   FROM generate_series(1, 3) k) FROM generate_series(1, 3) i))) < 1e-12) AS full
FROM full_rows r JOIN filled f USING (id), models m, moments mo;

-- the user's moments ("missing_mean", "missing_variance") instead of the observed ones
SELECT rel_diff((SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3]}') FROM rows),
				(SELECT gsu.train(ARRAY(SELECT coalesce(r.mean[j], (ARRAY[0.5, 0, -0.5])[j]) FROM generate_series(1, 3) j),
								  ARRAY(SELECT CASE WHEN r.mean[j] IS NULL THEN coalesce(r.variance[j], 0) + (ARRAY[2, 1, 3])[j]
											   ELSE r.variance[j] END FROM generate_series(1, 3) j), r.label) FROM rows r)) < 1e-9 AS both,
	rel_diff((SELECT gsu.train_regression(mean, variance, target, '{"missing": "feature_moments", "missing_variance": [2, 1, 3]}') FROM rows),
			 (SELECT gsu.train_regression(f.mean, ARRAY(SELECT CASE WHEN r.mean[j] IS NULL THEN coalesce(r.variance[j], 0) + (ARRAY[2, 1, 3])[j]
														ELSE r.variance[j] END FROM generate_series(1, 3) j), f.target)
			  FROM rows r JOIN filled f USING (id))) < 1e-9 AS variance_only;
SELECT t.sm::jsonb->'missing'->'mean' AS mean, t.sm::jsonb->'missing'->'variance' AS variance,
	gsu.decision(t.sm, ARRAY[NULL, 0.3, 0.1]::float8[]) = gsu.decision(t.sm, ARRAY[0.5, 0.3, 0.1]) AS scores_with_them,
	(SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(t.sm::jsonb->'standardization'->'mean')::float8), mo.m) u(a, b)) < 1e-12 AS standardize_observed
FROM (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0.5, 0, -0.5], "missing_variance": [2, 1, 3], "standardize": true}') AS sm FROM rows) t, moments mo;
-- a feature never present takes the user's moments
SELECT gsu.describe(gsu.train(ARRAY[NULL, i]::float8[], NULL::float8[], i % 2, '{"missing": "feature_moments", "missing_mean": [1, 0], "missing_variance": [0.5, 0]}'))->'missing'
FROM generate_series(1, 4) i;
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, i]::float8[], NULL::float8[], i % 2, '{"missing": "feature_moments", "missing_mean": [1, 0]}') FROM generate_series(1, 4) i$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, i]::float8[], NULL::float8[], i % 2, '{"missing": "feature_moments", "missing_mean": [1, 0], "missing_variance": [0.5, 0], "standardize": true}') FROM generate_series(1, 4) i$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing_mean": [0, 0, 0]}') FROM test_missing.filled$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, target, '{"missing_variance": [1, 1, 1]}') FROM test_missing.filled$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0, 0]}') FROM test_missing.rows$$);
-- the lengths are checked with the first row (here before the second row's dimension error)
SELECT test_error($$SELECT gsu.train(m, NULL::float8[], 1, '{"missing": "feature_moments", "missing_mean": [0, 0]}') FROM (VALUES (ARRAY[1, NULL, 2]::float8[]), (ARRAY[1]::float8[])) v(m)$$);
SELECT test_error($$SELECT gsu.train_regression(m, NULL::float8[], 1.5, '{"missing": "feature_moments", "missing_variance": [1, 1, 1, 1]}') FROM (VALUES (ARRAY[1, 2, 3]::float8[]), (ARRAY[1]::float8[])) v(m)$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_variance": [1, -1, 1]}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": 0}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_mean": [0, "a", 0]}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.fit('test_missing.rows', 'mean', 'variance', 'label', '{"missing_mean": [0, 0, 0]}')$$);

-- standardize: the centres and scales are the observed means' (the scale their
-- deviation, without the rows' variances), not the filled rows'
SELECT (SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(s::jsonb->'standardization'->'mean')::float8), mo.m) u(a, b)) < 1e-12 AS centres,
	(SELECT max(abs(a - sqrt(b))) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(s::jsonb->'standardization'->'scale')::float8), mo.vm) u(a, b)) < 1e-12 AS scales,
	count(*) FILTER (WHERE abs(gsu.decision(s, r.mean) - gsu.decision(s, f.mean)) < 1e-12) = 300 AS scoring
FROM (SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "standardize": true}') AS s FROM rows) t,
	moments mo, rows r JOIN filled f USING (id)
GROUP BY s, mo.m, mo.vm;

-- errors
-- the value of the option
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "mean"}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train_regression(mean, variance, target, '{"missing": true}') FROM test_missing.rows$$);
-- options it cannot be combined with
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "solver": "sgd"}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "subspace_fraction": 0.5}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments", "features": {"map": "poly2"}}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(mean, 0.1, label, '{"missing": "feature_moments", "loss": "psvm"}') FROM test_missing.rows$$);
-- the paths that do not buffer the rows
-- (gsu.fit's classification takes the option: regress test missing_fit; without it, a NULL is refused)
SELECT test_error($$SELECT gsu.fit('test_missing.rows', 'mean', 'variance', 'label')$$);
-- gsu.fit's regression takes the option (regress test missing_fit_regression), not with "standardize"
SELECT test_error($$SELECT gsu.fit('test_missing.rows', 'mean', 'variance', 'target', '{"loss": "squared", "missing": "feature_moments", "standardize": true}')$$);
SELECT test_error($$SELECT gsu.fit('test_missing.filled', 'mean', 'variance', 'target', '{"loss": "epsilon_insensitive", "missing_mean": [0, 0, 0]}')$$);
SELECT test_error($$SELECT gsu.fit('test_missing.rows', 'mean', 'variance', 'target', '{"loss": "squared"}')$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"missing": "feature_moments"}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.gradient(mean, variance, label, gsu_hand, 0.001) FROM test_missing.rows, test_missing.models$$);
-- variance forms with a missing mean element
SELECT test_error($$SELECT gsu.train(mean, ARRAY[[0.1], [0.2], [0.3]]::float8[], label, '{"missing": "feature_moments"}') FROM test_missing.rows$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 2]::float8[], ARRAY[0.1, NULL, 0.1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 2]::float8[], ARRAY[0.1, 0.1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 'Infinity']::float8[], ARRAY[0.1, 0.1, 0.1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 2]::float8[], ARRAY[0.1, 0.1, -1]::float8[], 1, '{"missing": "feature_moments"}')$$);
-- a stored NaN is not a missing value, also beside a NULL
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 'NaN', 2]::float8[], ARRAY[0.1, 0.1, 0.1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 2]::float8[], ARRAY[NULL, 'NaN', 0.1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, 1, 2]::float8[], ARRAY[NULL, 0.1, -1]::float8[], 1, '{"missing": "feature_moments"}')$$);
SELECT test_error($$SELECT gsu.decision(gsu, ARRAY[NULL, 'NaN', 0.1]::float8[]) FROM test_missing.models$$);
SELECT test_error($$SELECT gsu.confidence(gsu, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[[0.1], [0.2], [0.3]]::float8[]) FROM test_missing.models$$);
SELECT test_error($$SELECT gsu.confidence(gsu, ARRAY[NULL, 0.3, 0.1]::float8[], ARRAY[[1, 0, 0], [0, 1, 0]]::float8[]) FROM test_missing.models$$);
SELECT test_error($$SELECT gsu.decision(gsu, ARRAY[NULL, 0.3]::float8[]) FROM test_missing.models$$);
-- a feature missing in every row
SELECT test_error($$SELECT gsu.train(ARRAY[NULL, i]::float8[], NULL::float8[], i % 2, '{"missing": "feature_moments"}') FROM generate_series(1, 4) i$$);
-- malformed text forms
SELECT test_error($$SELECT (jsonb_set(gsu::jsonb, '{hyperparameters,missing}', '"error"'))::text::gsu.model FROM test_missing.models$$);
SELECT test_error($$SELECT (gsu::jsonb - 'missing')::text::gsu.model FROM test_missing.models$$);
SELECT test_error($$SELECT (jsonb_set(gsu::jsonb, '{missing,variance,0}', '-1'))::text::gsu.model FROM test_missing.models$$);
SELECT test_error($$SELECT (jsonb_set(gsu::jsonb, '{missing,rows}', '100000'))::text::gsu.model FROM test_missing.models$$);
SELECT test_error($$SELECT (jsonb_set(gsu::jsonb, '{missing,mean}', '[1, 2]'))::text::gsu.model FROM test_missing.models$$);

-- a forced parallel plan: the moments come from all rows (the workers' states combined)
CREATE TABLE big AS
SELECT i AS id, l AS label,
	ARRAY[CASE WHEN i % 7 = 0 THEN NULL ELSE l * 1.0 + pnorm(i, 1) END, l * 0.5 + pnorm(i, 2),
		  CASE WHEN i % 5 = 0 THEN NULL ELSE pnorm(i, 3) END]::float8[] AS mean,
	ARRAY[0.1, 0.2, CASE WHEN i % 5 = 0 THEN NULL ELSE 0.3 END]::float8[] AS variance
FROM generate_series(1, 20000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') AS m,
	gsu.train_regression(mean, variance, label + 0.1 * id % 7, '{"missing": "feature_moments", "loss": "squared"}') AS r,
	gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_variance": [1, 1, 1]}') AS g FROM big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
SELECT workers_launched($$CREATE TABLE test_missing.par AS
SELECT gsu.train(mean, variance, label, '{"missing": "feature_moments"}') AS m,
	gsu.train_regression(mean, variance, label + 0.1 * id % 7, '{"missing": "feature_moments", "loss": "squared"}') AS r,
	gsu.train(mean, variance, label, '{"missing": "feature_moments", "missing_variance": [1, 1, 1]}') AS g
FROM test_missing.big$$);
SELECT rel_diff(s.m, p.m) < 1e-6 AS weights, rel_diff(s.r, p.r) < 1e-6 AS regression, rel_diff(s.g, p.g) < 1e-6 AS given,
	gsu.describe(p.r)->'missing' = gsu.describe(s.r)->'missing' AS regression_counts, gsu.describe(p.m)->'missing' AS counts,
	(SELECT max(abs(a - b)) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(s.m::jsonb->'missing'->'mean')::float8),
										ARRAY(SELECT jsonb_array_elements_text(p.m::jsonb->'missing'->'mean')::float8)) u(a, b)) < 1e-12 AS moments
FROM serial s, par p;
-- the variances: the workers' sums of the rows' variances combined (the serial ones, and by hand)
SELECT (SELECT max(abs(a - b) / b) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(s.m::jsonb->'missing'->'variance')::float8),
											   ARRAY(SELECT jsonb_array_elements_text(p.m::jsonb->'missing'->'variance')::float8)) u(a, b)) < 1e-12 AS variances,
	(SELECT max(abs(a - b) / b) FROM unnest(ARRAY(SELECT jsonb_array_elements_text(p.m::jsonb->'missing'->'variance')::float8),
											(SELECT array_agg(v ORDER BY j) FROM (SELECT j, var_pop(mean[j]) + avg(variance[j]) FILTER (WHERE mean[j] IS NOT NULL) AS v
																				  FROM test_missing.big, generate_series(1, 3) j GROUP BY j) h)) u(a, b)) < 1e-12 AS by_hand
FROM serial s, par p;
RESET ALL;

DROP SCHEMA test_missing CASCADE;
