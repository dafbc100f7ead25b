-- Option "standardize": training on x' = D^-1 (x - m), Sigma' = D^-1 Sigma D^-1
-- (m, s the per-feature mean and population standard deviation of the
-- training means, D = diag(s)), the statistics stored in the model (format 4),
-- every scoring function in original units.
\set SHOW_CONTEXT never
CREATE SCHEMA test_standardize;
SET search_path = test_standardize, public;

-- features of very different scales and offsets; a diagonal variance, a full
-- covariance (diagonal plus a rank-one term), an isotropic variance; three classes in k
CREATE TABLE pts AS
SELECT i, l AS label, k,
	ARRAY[1000 + 40 * pnorm(i, 1) + 30 * l, 0.01 * pnorm(i, 2) - 0.004 * l, 5 + pnorm(i, 3)] AS mean,
	ARRAY[100 * (0.2 + prand(i, 4)), 1e-5 * (0.2 + prand(i, 5)), 0.3 * prand(i, 6)] AS variance,
	ARRAY[[100 * (0.2 + prand(i, 4)) + 16, 0.004, 0.4],
		  [0.004, 1e-5 * (0.2 + prand(i, 5)) + 1e-6, 1e-4],
		  [0.4, 1e-4, 0.3 * prand(i, 6) + 0.01]] AS cov,
	0.5 * prand(i, 7) AS iso
FROM generate_series(1, 300) i,
	LATERAL (SELECT CASE WHEN pnorm(i, 8) > 0.2 THEN 1 ELSE -1 END AS l,
					(i % 3) AS k) c;

-- the statistics by hand (population standard deviation; 1 for a constant feature)
CREATE TABLE stats AS
SELECT array_agg(m ORDER BY j) AS m, array_agg(CASE WHEN s = 0 THEN 1 ELSE s END ORDER BY j) AS s
FROM (SELECT j, avg(mean[j]) AS m, stddev_pop(mean[j]) AS s FROM pts, generate_series(1, 3) j GROUP BY j) q;
-- the rows standardized by hand: z = (x - m)/s, v/s^2, D^-1 Sigma D^-1, iso/s^2 (a diagonal)
CREATE TABLE zpts AS
SELECT i, label, k,
	ARRAY(SELECT (mean[j] - m[j]) / s[j] FROM generate_series(1, 3) j) AS mean,
	ARRAY(SELECT variance[j] / s[j] ^ 2 FROM generate_series(1, 3) j) AS variance,
	ARRAY(SELECT ARRAY(SELECT cov[a][b] / (s[a] * s[b]) FROM generate_series(1, 3) b) FROM generate_series(1, 3) a) AS cov,
	ARRAY(SELECT iso / s[j] ^ 2 FROM generate_series(1, 3) j) AS iso
FROM pts, stats;

CREATE TABLE models AS
SELECT (SELECT gsu.train(mean, variance, label, '{"standardize": true}') FROM pts) AS diag,
	(SELECT gsu.train(mean, variance, label) FROM zpts) AS zdiag,
	(SELECT gsu.train(mean, cov, label, '{"standardize": true}') FROM pts) AS fullc,
	(SELECT gsu.train(mean, cov, label) FROM zpts) AS zfullc,
	(SELECT gsu.train(mean, iso, label, '{"standardize": true}') FROM pts) AS isom,
	(SELECT gsu.train(mean, iso, label) FROM zpts) AS zisom,
	(SELECT gsu.train(mean, NULL::float8[], label, '{"standardize": true, "loss": "hinge"}') FROM pts) AS hinge,
	(SELECT gsu.train(mean, NULL::float8[], label, '{"loss": "hinge"}') FROM zpts) AS zhinge,
	(SELECT gsu.train(mean, variance, k, '{"standardize": true}') FROM pts) AS multi,
	(SELECT gsu.train(mean, variance, k) FROM zpts) AS zmulti;

-- a jsonb array as float8[]
CREATE FUNCTION jarr(j jsonb) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY(SELECT jsonb_array_elements_text(j)::float8)
$$;
-- the largest relative difference of two arrays
CREATE FUNCTION rel(a float8[], b float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(max(abs(x - y) / greatest(abs(x), abs(y), 1e-300)), 0) FROM unnest(a, b) u(x, y) WHERE x <> y
$$;
-- trained weights (standardized units) equal those trained on the hand-standardized rows
SELECT coalesce(rel(gsu.weights(diag) || gsu.bias(diag), gsu.weights(zdiag) || gsu.bias(zdiag)), 0) < 1e-9 AS diag,
	coalesce(rel(gsu.weights(fullc) || gsu.bias(fullc), gsu.weights(zfullc) || gsu.bias(zfullc)), 0) < 1e-9 AS fullc,
	coalesce(rel(gsu.weights(isom) || gsu.bias(isom), gsu.weights(zisom) || gsu.bias(zisom)), 0) < 1e-9 AS iso,
	coalesce(rel(gsu.weights(hinge) || gsu.bias(hinge), gsu.weights(zhinge) || gsu.bias(zhinge)), 0) < 1e-9 AS hinge,
	coalesce(rel(gsu.weights(multi, 1) || gsu.bias(multi, 1), gsu.weights(zmulti, 1) || gsu.bias(zmulti, 1)), 0) < 1e-9 AS multi
FROM models;
-- the model keeps the statistics: they are the hand ones
SELECT rel(jarr(gsu.model_to_jsonb(diag)->'standardization'->'mean'), m) < 1e-12 AS mean,
	rel(jarr(gsu.model_to_jsonb(diag)->'standardization'->'scale'), s) < 1e-12 AS scale
FROM models, stats;
SELECT gsu.describe(diag)->'hyperparameters'->'standardize' AS standardize, gsu.describe(diag)->'format' AS format,
	gsu.model_to_jsonb(diag) ? 'standardization' AS has_stats, gsu.model_to_jsonb(zdiag) ? 'standardization' AS plain_has_stats
FROM models;
-- in original units: w/s and b - (w/s)'m
SELECT rel(gsu.weights(diag, units => 'original'), ARRAY(SELECT (gsu.weights(diag))[j] / s[j] FROM generate_series(1, 3) j)) < 1e-15 AS weights,
	abs(gsu.bias(diag, units => 'original') - (gsu.bias(diag) - (SELECT sum((gsu.weights(diag))[j] / s[j] * m[j]) FROM generate_series(1, 3) j)))
		< 1e-12 * abs(gsu.bias(diag, units => 'original')) AS bias,
	gsu.weights(diag, units => 'trained') = gsu.weights(diag) AS trained,
	gsu.weights(zdiag, units => 'original') = gsu.weights(zdiag) AS plain
FROM models, stats;
SELECT test_error($$SELECT gsu.bias(multi, units => 'original') FROM test_standardize.models$$);
SELECT rel(gsu.weights(multi, 2, units => 'original'), ARRAY(SELECT (gsu.weights(multi, 2))[j] / s[j] FROM generate_series(1, 3) j)) < 1e-15 AS class_weights,
	array_length(gsu.weights(multi, units => 'original'), 1) AS classes
FROM models, stats;

-- every scoring function on the original rows equals the hand model on the standardized rows
SELECT count(*) AS rows,
	max(abs(gsu.decision(diag, p.mean) - gsu.decision(zdiag, z.mean))) < 1e-9 AS decision,
	bool_and(gsu.predict(diag, p.mean) = gsu.predict(zdiag, z.mean)) AS predict,
	max(abs(gsu.confidence(diag, p.mean, p.variance) - gsu.confidence(zdiag, z.mean, z.variance))) < 1e-9 AS confidence,
	max(abs(gsu.confidence(fullc, p.mean, p.cov) - gsu.confidence(zfullc, z.mean, z.cov))) < 1e-9 AS confidence_full,
	max(abs(gsu.confidence(isom, p.mean, ARRAY[p.iso]) - gsu.confidence(zisom, z.mean, z.iso))) < 1e-9 AS confidence_iso,
	max(abs(gsu.expected_loss(diag, p.mean, p.variance, p.label) - gsu.expected_loss(zdiag, z.mean, z.variance, z.label))) < 1e-9 AS expected_loss,
	max(abs(gsu.expected_loss(isom, p.mean, ARRAY[p.iso], p.label) - gsu.expected_loss(zisom, z.mean, z.iso, z.label))) < 1e-9 AS expected_loss_iso,
	max(rel(gsu.decisions(multi, p.mean), gsu.decisions(zmulti, z.mean))) < 1e-9 AS decisions,
	bool_and(gsu.predict(multi, p.mean) = gsu.predict(zmulti, z.mean)) AS predict_multi,
	max(abs(gsu.confidence(multi, p.mean, p.variance) - gsu.confidence(zmulti, z.mean, z.variance))) < 1e-9 AS confidence_multi
FROM models, pts p JOIN zpts z USING (i);
-- gsu.explain reports original units: contributions (w_j/s_j) x_j and the bias b - (w/s)'m add up to the
-- decision value; the variance shares are those of the standardized row
SELECT abs((SELECT sum(contribution) FROM gsu.explain(diag, p.mean)) - gsu.decision(diag, p.mean))
		< 1e-9 * abs(gsu.decision(diag, p.mean)) AS adds_up,
	(SELECT contribution FROM gsu.explain(diag, p.mean) WHERE feature IS NULL) = gsu.bias(diag, units => 'original') AS bias_row,
	(SELECT max(abs(a.variance_share - b.variance_share)) FROM gsu.explain(diag, p.mean, p.variance) a
		JOIN gsu.explain(zdiag, z.mean, z.variance) b USING (feature)) < 1e-9 AS shares
FROM models, pts p JOIN zpts z USING (i)
WHERE p.i = 7;
-- calibration scores the rows in original units and keeps the statistics
CREATE TABLE cal AS SELECT (SELECT gsu.calibrate(diag, mean, label) FROM pts) AS c,
	(SELECT gsu.calibrate(zdiag, mean, label) FROM zpts) AS zc FROM models;
SELECT max(abs(gsu.probability(c, p.mean) - gsu.probability(zc, z.mean))) < 1e-9 AS probability,
	bool_and(gsu.describe(c)->'hyperparameters'->'standardize' = 'true') AS kept
FROM cal, pts p JOIN zpts z USING (i);
-- evaluation on the scores
SELECT (SELECT gsu.roc_auc(gsu.decision(diag, mean), label) FROM pts) = (SELECT gsu.roc_auc(gsu.decision(zdiag, mean), label) FROM zpts) AS auc
FROM models;

-- text, jsonb and binary round trips keep the statistics
SELECT diag::text::gsu.model::text = diag::text AS text, gsu.model_from_jsonb(gsu.model_to_jsonb(diag))::text = diag::text AS jsonb FROM models;
CREATE TABLE bin (m gsu.model);
SELECT regress_file('standardize') AS regress_file \gset
COPY (SELECT diag FROM models) TO :'regress_file' (FORMAT binary);
COPY bin FROM :'regress_file' (FORMAT binary);
SELECT m::text = diag::text AS binary FROM bin, models;

-- a constant feature is centred only (scale 1) and gets weight 0
CREATE TABLE const AS SELECT i, label, ARRAY[mean[1], 7.0, mean[2]] AS mean, ARRAY[variance[1], 0.1, variance[2]] AS variance FROM pts;
SELECT gsu.model_to_jsonb(m)->'standardization'->'scale'->1 AS scale, gsu.model_to_jsonb(m)->'standardization'->'mean'->1 AS mean,
	(gsu.weights(m))[2] AS weight
FROM (SELECT gsu.train(mean, variance, label, '{"standardize": true}') AS m FROM const) t;

-- row weights do not weigh the statistics (every row counts once), but a row of weight 0 is
-- skipped, as training skips it
SELECT rel(gsu.weights(w.m) || gsu.bias(w.m), gsu.weights(diag) || gsu.bias(diag)) < 1e-9 AS weight_2_same,
	rel(jarr(gsu.model_to_jsonb(w.m)->'standardization'->'scale'), jarr(gsu.model_to_jsonb(diag)->'standardization'->'scale')) = 0 AS same_stats,
	rel(jarr(gsu.model_to_jsonb(h.m)->'standardization'->'scale'), o.s) < 1e-12 AS odd_rows_stats
FROM models,
	(SELECT gsu.train(mean, variance, label, 2.0, '{"standardize": true}') AS m FROM pts) w,
	(SELECT gsu.train(mean, variance, label, (i % 2)::float8, '{"standardize": true}') AS m FROM pts) h,
	(SELECT array_agg(s ORDER BY j) AS s FROM (SELECT j, stddev_pop(mean[j]) AS s
		FROM pts, generate_series(1, 3) j WHERE i % 2 = 1 GROUP BY j) q) o;

-- parallel = serial: the workers' buffered rows are standardized once, in the final function
CREATE TABLE big AS SELECT i, label, mean, variance FROM pts, generate_series(1, 40) g;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ser AS SELECT gsu.train(mean, variance, label, '{"standardize": true}') AS m FROM big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label, '{"standardize": true}') FROM big;
CREATE TABLE par AS SELECT gsu.train(mean, variance, label, '{"standardize": true}') AS m FROM big;
SELECT coalesce(rel(gsu.weights(s.m) || gsu.bias(s.m), gsu.weights(p.m) || gsu.bias(p.m)), 0) < 1e-9 AS weights,
	rel(jarr(gsu.model_to_jsonb(s.m)->'standardization'->'scale'),
		jarr(gsu.model_to_jsonb(p.m)->'standardization'->'scale')) < 1e-12 AS scale
FROM ser s, par p;
-- gsu.fit's statistics scan runs in parallel too
SET client_min_messages = warning;
CREATE TABLE fit_par AS SELECT gsu.fit('big', 'mean', 'variance', 'label', '{"standardize": true}') AS m;
RESET client_min_messages;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET gsu.parallel_training;

-- gsu.fit: one more scan (the statistics), then the same problem as gsu.train
SET client_min_messages = warning;
CREATE TABLE fits AS
SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"standardize": true}') AS newton,
	gsu.fit('pts', 'mean', 'variance', 'label', '{"standardize": true, "solver": "lbfgs"}') AS lbfgs,
	gsu.fit('pts', 'mean', 'variance', 'label', '{}') AS plain,
	gsu.fit('zpts', 'mean', 'variance', 'label', '{}') AS zplain;
RESET client_min_messages;
SELECT abs((gsu.describe(newton)->'training'->>'objective')::float8 - (gsu.describe(diag)->'training'->>'objective')::float8)
		< 1e-6 * (gsu.describe(diag)->'training'->>'objective')::float8 AS newton,
	abs((gsu.describe(lbfgs)->'training'->>'objective')::float8 - (gsu.describe(diag)->'training'->>'objective')::float8)
		< 1e-6 * (gsu.describe(diag)->'training'->>'objective')::float8 AS lbfgs,
	rel(gsu.weights(newton) || gsu.bias(newton), gsu.weights(diag) || gsu.bias(diag)) < 1e-4 AS weights,
	rel(jarr(gsu.model_to_jsonb(newton)->'standardization'->'scale'),
		jarr(gsu.model_to_jsonb(diag)->'standardization'->'scale')) < 1e-12 AS scale,
	gsu.describe(newton)->'hyperparameters'->'standardize' AS standardize,
	(gsu.describe(newton)->'training'->>'passes')::int - (gsu.describe(zplain)->'training'->>'passes')::int AS extra_scans
FROM fits, models;
SELECT coalesce(rel(gsu.weights(s.m) || gsu.bias(s.m), gsu.weights(p.m) || gsu.bias(p.m)), 0) < 1e-4 AS fit_parallel
FROM ser s, fit_par p;
-- with a row-weight column, gsu.fit's statistics skip the rows training skips (weight
-- NULL or 0): here rows of weight 0 whose means are far off, and the other rows weigh 1
-- or 2; the same statistics and optimum as gsu.train's weighted form
CREATE TABLE wpts AS
SELECT i, label, mean, variance, 1.0 + (i % 2) AS w FROM pts
UNION ALL SELECT -i, label, ARRAY[mean[1] + 100, mean[2] - 50, mean[3] * 30], variance, 0.0 FROM pts;
SET client_min_messages = warning;
CREATE TABLE wfits AS
SELECT gsu.fit('wpts', 'mean', 'variance', 'label', 'w', '{"standardize": true}') AS f,
	(SELECT gsu.train(mean, variance, label, w, '{"standardize": true}') FROM wpts) AS t;
RESET client_min_messages;
SELECT rel(jarr(gsu.model_to_jsonb(f)->'standardization'->'mean'),
		jarr(gsu.model_to_jsonb(t)->'standardization'->'mean')) < 1e-12 AS same_centres,
	rel(jarr(gsu.model_to_jsonb(f)->'standardization'->'scale'),
		jarr(gsu.model_to_jsonb(t)->'standardization'->'scale')) < 1e-12 AS same_scales,
	abs((gsu.describe(f)->'training'->>'objective')::float8 - (gsu.describe(t)->'training'->>'objective')::float8)
		< 1e-6 * (gsu.describe(t)->'training'->>'objective')::float8 AS same_optimum
FROM wfits;
-- gsu.gradient and gsu.hessian standardize the rows when "at" carries statistics: at one
-- point, the sums over pts at a standardized model are those over zpts at its plain copy
CREATE TABLE at AS
SELECT gsu.model_from_jsonb(jsonb_set(j, '{weights}', '[0.5, -0.3, 0.2]')) AS s,
	gsu.model_from_jsonb(jsonb_set(jsonb_set(j, '{weights}', '[0.5, -0.3, 0.2]') - 'standardization',
		'{hyperparameters,standardize}', 'false')) AS z
FROM (SELECT gsu.model_to_jsonb(diag) AS j FROM models) m;
SELECT rel(jarr(a::text::jsonb->'vector'), jarr(b::text::jsonb->'vector')) < 1e-9 AS gradient,
	rel(jarr(h::text::jsonb->'vector'), jarr(zh::text::jsonb->'vector')) < 1e-9 AS hessian
FROM (SELECT gsu.gradient(mean, variance, label, (SELECT s FROM at), 0) AS a,
		gsu.hessian(mean, variance, label, (SELECT s FROM at), 0, 0) AS h FROM pts) x,
	(SELECT gsu.gradient(mean, variance, label, (SELECT z FROM at), 0) AS b,
		gsu.hessian(mean, variance, label, (SELECT z FROM at), 0, 0) AS zh FROM zpts) y;

-- the same weights at other statistics are another point: gsu.sum refuses to add them
SELECT test_error($$SELECT gsu.sum(g) FROM (SELECT gsu.gradient(mean, variance, label, (SELECT s FROM test_standardize.at), 0) AS g FROM test_standardize.pts
	UNION ALL SELECT gsu.gradient(mean, variance, label, (SELECT z FROM test_standardize.at), 0) FROM test_standardize.pts) t$$);

-- cross-validation trains each fold with the option: statistics of the fold's training rows only
SET client_min_messages = warning;
SELECT lambda, fold_count, metric_mean > 0.6 AS learns
FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{0.001}', 3, 1, '{"standardize": true}');
RESET client_min_messages;
-- a fold's model is gsu.train over the fold's training rows (cross_validate's own query), so its
-- statistics are theirs, not the whole table's: the held-out rows do not leak into the scaling
SELECT rel(jarr(gsu.model_to_jsonb(f.m)->'standardization'->'scale'), h.s) < 1e-12 AS fold_stats,
	rel(jarr(gsu.model_to_jsonb(f.m)->'standardization'->'scale'), stats.s) > 1e-6 AS not_the_table
FROM (SELECT gsu.train(mean, variance, label, '{"standardize": true, "lambda": 0.001}') AS m
	  FROM pts t WHERE mod(abs(hashtextextended(t.*::text, 1)), 3) <> 0) f,
	(SELECT array_agg(s ORDER BY j) AS s FROM (SELECT j, stddev_pop(mean[j]) AS s
		FROM pts t, generate_series(1, 3) j WHERE mod(abs(hashtextextended(t.*::text, 1)), 3) <> 0 GROUP BY j) q) h,
	stats;

-- a model of format 3 reads as not standardized; "standardization" needs format 4
SELECT gsu.describe('{"format": 3, "dim": 2, "weights": [1, 2], "bias": 0.5}')->'hyperparameters' ? 'standardize' AS has_key,
	gsu.weights('{"format": 3, "dim": 2, "weights": [1, 2], "bias": 0.5}', units => 'original') AS original;
SELECT gsu.decision('{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": true},
	"standardization": {"mean": [1, 2], "scale": [2, 4]}}', '{3, 6}') AS decision;

-- errors
SELECT test_error($$SELECT '{"format": 3, "dim": 2, "weights": [1, 2], "bias": 0.5, "standardization": {"mean": [0, 0], "scale": [1, 1]}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "standardization": {"mean": [0, 0], "scale": [1, 1]}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": true}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": true}, "standardization": {"mean": [0, 0], "scale": [1, 0]}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": true}, "standardization": {"mean": [0], "scale": [1, 1]}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5, "hyperparameters": {"standardize": true}, "standardization": {"mean": [0, 0], "scale": [1, 1], "m": 1}}'::gsu.model$$);
SELECT test_error($$SELECT gsu.decision('{"format": 4, "dim": 1, "weights": [1e300], "bias": 0, "hyperparameters": {"standardize": true}, "standardization": {"mean": [0], "scale": [1e-300]}}', '{1}')$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"standardize": "yes"}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.train(m, NULL::float8[], l, '{"standardize": true}') FROM (VALUES (ARRAY[1e308], 1), (ARRAY[-1e308], -1)) v(m, l)$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"standardize": true, "features": {"map": "rff", "dim": 4, "sigma": 1}}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"standardize": true, "solver": "sgd"}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"standardize": true, "subspace_fraction": 0.5}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.train(mean, iso, label, '{"standardize": true, "loss": "psvm"}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"standardize": true}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.sgd_partial(mean, variance, label, '{"standardize": true}') FROM test_standardize.pts$$);
SELECT test_error($$SELECT gsu.fit('test_standardize.pts', 'mean', 'variance', 'label', '{"standardize": true, "features": {"map": "rff", "dim": 4, "sigma": 1}}')$$);
SELECT test_error($$SELECT gsu.weights(diag, units => 'standardized') FROM test_standardize.models$$);
SELECT test_error($$SELECT gsu.bias(diag, 1, units => 'metres') FROM test_standardize.models$$);
-- a model with a feature map and statistics is refused on input (standardizing a mapped model is refused in training)
SELECT test_error($$SELECT (jsonb_set(gsu.model_to_jsonb(m), '{hyperparameters,standardize}', 'true')
	|| '{"standardization": {"mean": [0, 0, 0], "scale": [1, 1, 1]}}'::jsonb)::text::gsu.model
	FROM (SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 20}}') AS m FROM test_standardize.pts) t$$);
