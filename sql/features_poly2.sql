-- The exact degree-2 polynomial feature map (option "features": {"map": "poly2"}):
-- φ(x) = (x_i x_j for i ≤ j, times √2 when i < j), so φ(x)ᵀφ(z) = (xᵀz)², the
-- kernel of Bi & Zhang's TSVC experiment; a row's Gaussian is carried into
-- feature space exactly (Isserlis' theorem).

-- points in [-5, 5]², label 1 inside the circle x₁² + x₂² = 9, -1 outside;
-- 400 training rows (id ≤ 400) and 400 test rows; per-feature variances
CREATE TABLE p2_rows (id int PRIMARY KEY, mean float8[], variance float8[], label int4);
INSERT INTO p2_rows
SELECT i, ARRAY[x1, x2], ARRAY[0.01 + 0.04 * prand(i, 33), 0.01 + 0.04 * prand(i, 34)],
	CASE WHEN x1 ^ 2 + x2 ^ 2 < 9 THEN 1 ELSE -1 END
FROM generate_series(1, 800) i,
	LATERAL (SELECT -5 + 10 * prand(i, 31) AS x1, -5 + 10 * prand(i, 32) AS x2) p;
SELECT label, count(*) FROM p2_rows GROUP BY label ORDER BY label;

CREATE TABLE p2_models (name text PRIMARY KEY, m gsu.model);
INSERT INTO p2_models
SELECT 'linear', gsu.train(mean, variance, label) FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'linear_hinge', gsu.train(mean, variance, label, '{"loss": "hinge"}') FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_gsu', gsu.train(mean, variance, label, '{"features": {"map": "poly2"}}')
FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_gsu_full', gsu.train(mean, variance, label,
	'{"features": {"map": "poly2", "covariance": "full"}}') FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_hinge', gsu.train(mean, variance, label, '{"loss": "hinge", "features": {"map": "poly2"}}')
FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_tsvc', gsu.train(mean, variance, label,
	'{"loss": "tsvc", "tsvc_algorithm": "alternating", "features": {"map": "poly2"}}')
FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_robust', gsu.train(mean, variance, label, '{"loss": "robust", "features": {"map": "poly2"}}')
FROM p2_rows WHERE id <= 400
UNION ALL
SELECT 'poly2_worst_case', gsu.train(mean, variance, label,
	'{"loss": "robust", "lambda": 0.01, "epochs": 50, "feature_bound": "worst_case", "features": {"map": "poly2"}}')
FROM p2_rows WHERE id <= 400;

-- test accuracy: the quadratic boundary is separated nearly perfectly with the
-- map, the linear models cannot do better than about the majority class
SELECT name, round(acc, 2) AS accuracy, acc >= 0.95 AS at_least_95
FROM (SELECT name, avg((gsu.predict(m, mean) = label)::int) AS acc
	  FROM p2_models, p2_rows WHERE id > 400 GROUP BY name) s
ORDER BY name;

-- the model's text: the map, its input dimension and p(p+1)/2 = 3 features;
-- no sigma, seed, landmarks or matrix; three weights
SELECT name, m::jsonb->'features' AS features, array_length(gsu.weights(m), 1) AS weights
FROM p2_models WHERE name LIKE 'poly2%' ORDER BY name;

-- scoring applies φ: the decision recomputed in SQL from the weights,
-- w₁x₁² + w₂√2x₁x₂ + w₃x₂² + b
SELECT name, max(abs(gsu.decision(m, mean) - (w[1] * mean[1] ^ 2 + w[2] * sqrt(2) * mean[1] * mean[2]
		+ w[3] * mean[2] ^ 2 + b))) < 1e-9 AS decision_from_weights
FROM (SELECT name, m, gsu.weights(m) AS w, gsu.bias(m) AS b FROM p2_models WHERE name LIKE 'poly2%') s,
	p2_rows WHERE id > 700 GROUP BY name ORDER BY name;

-- text, jsonb and binary round trips keep the model; a stated empty "matrix" reads
SELECT name, m::text::gsu.model::text = m::text AS text_round_trip,
	(m::jsonb)::gsu.model::text = m::text AS jsonb_round_trip,
	jsonb_set(m::jsonb, '{features,matrix}', '[]')::gsu.model::text = m::text AS empty_matrix
FROM p2_models WHERE name LIKE 'poly2%' ORDER BY name;
CREATE TABLE p2_copied (name text, m gsu.model);
SELECT regress_file('features_poly2') AS regress_file \gset
COPY (SELECT name, m FROM p2_models) TO :'regress_file' (FORMAT binary);
COPY p2_copied FROM :'regress_file' (FORMAT binary);
SELECT a.name, a.m::text = b.m::text AS binary_round_trip,
	(SELECT bool_and(gsu.decision(a.m, c.mean) = gsu.decision(b.m, c.mean))
	 FROM p2_rows c WHERE c.id > 780) AS same_decisions
FROM p2_models a JOIN p2_copied b USING (name) WHERE a.name LIKE 'poly2%' ORDER BY a.name;

-- scoring a Gaussian input: predict is the decision's sign, confidence in
-- [0, 1] (1 without noise), the expected loss the hinge loss without noise,
-- the same for a diagonal Σ written as a full matrix or as a vector
SELECT name, bool_and(sign(gsu.decision(m, mean)) = gsu.predict(m, mean)
		OR gsu.decision(m, mean) = 0) AS predict_is_sign,
	bool_and(gsu.confidence(m, mean, variance) BETWEEN 0 AND 1) AS confidence_ok,
	bool_and(gsu.confidence(m, mean, ARRAY[0, 0]::float8[]) = 1) AS confidence_at_zero_variance_is_1,
	max(abs(gsu.expected_loss(m, mean, ARRAY[0, 0]::float8[], label)
		- greatest(0, 1 - label * gsu.decision(m, mean)))) < 1e-9 AS zero_variance_is_hinge,
	max(abs(gsu.expected_loss(m, mean, variance, label)
		- gsu.expected_loss(m, mean, ARRAY[[variance[1], 0], [0, variance[2]]], label))) < 1e-9 AS full_equals_diag,
	max(abs(gsu.expected_loss(m, mean, ARRAY[0.03]::float8[], label)
		- gsu.expected_loss(m, mean, ARRAY[0.03, 0.03], label))) < 1e-9 AS iso_equals_diag
FROM p2_models, p2_rows WHERE name LIKE 'poly2%' AND id > 600 GROUP BY name ORDER BY name;

-- the exact moments of wᵀφ(z) + b for z ~ N(μ, diag(s)): the mean
-- wᵀE φ + b = w₁(μ₁² + s₁) + w₂√2μ₁μ₂ + w₃(μ₂² + s₂) + b and the variance
-- 2 tr(WΣWΣ) + 4 μᵀWΣWμ, W = [[w₁, w₂/√2], [w₂/√2, w₃]]: the confidence is
-- Φ(|mean|/√variance) when the mean has the decision's sign, 1 − that otherwise
CREATE FUNCTION pg_temp.p2_phi(t float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	-- Φ(t), which SQL lacks: a 1e-7 accurate rational approximation
	-- (Abramowitz & Stegun 26.2.17)
	SELECT CASE WHEN t < 0 THEN 1 - pg_temp.p2_phi(-t) WHEN t > 30 THEN 1 ELSE
		1 - exp(-t * t / 2) / sqrt(2 * pi()) * k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
			+ k * (-1.821255978 + k * 1.330274429)))) END
	FROM (SELECT 1 / (1 + 0.2316419 * abs(t)) AS k) s
$$;
SELECT name, max(abs(gsu.confidence(m, mean, variance) - CASE
		WHEN sign(mu) = sign(gsu.decision(m, mean)) THEN pg_temp.p2_phi(abs(mu) / sqrt(v))
		ELSE 1 - pg_temp.p2_phi(abs(mu) / sqrt(v)) END)) < 1e-6 AS confidence_from_moments
FROM (SELECT name, m, mean,
		variance,
		w[1] * (mean[1] ^ 2 + variance[1]) + w[2] * sqrt(2) * mean[1] * mean[2]
			+ w[3] * (mean[2] ^ 2 + variance[2]) + b AS mu,
		2 * (w[1] ^ 2 * variance[1] ^ 2 + w[2] ^ 2 * variance[1] * variance[2] + w[3] ^ 2 * variance[2] ^ 2)
			+ 4 * ((w[1] * mean[1] + w[2] / sqrt(2) * mean[2]) ^ 2 * variance[1]
				 + (w[2] / sqrt(2) * mean[1] + w[3] * mean[2]) ^ 2 * variance[2]) AS v
	  FROM (SELECT name, m, gsu.weights(m) AS w, gsu.bias(m) AS b FROM p2_models WHERE name LIKE 'poly2%') s,
		p2_rows WHERE id > 700) t
GROUP BY name ORDER BY name;

-- a three-class model with the map (one-vs-rest): rings of radius < 2, < 4, ≥ 4
SELECT gsu.classes(m), round(avg((gsu.predict(m, mean) = c)::int), 2) AS accuracy,
	bool_and(gsu.confidence(m, mean, variance) BETWEEN 0 AND 1) AS confidence_ok,
	min(array_length(gsu.decisions(m, mean), 1)) AS decisions
FROM (SELECT gsu.train(mean, variance, CASE WHEN mean[1] ^ 2 + mean[2] ^ 2 < 4 THEN 0
				WHEN mean[1] ^ 2 + mean[2] ^ 2 < 16 THEN 1 ELSE 2 END,
			'{"features": {"map": "poly2"}}') AS m
	  FROM p2_rows WHERE id <= 400) t,
	LATERAL (SELECT mean, variance, CASE WHEN mean[1] ^ 2 + mean[2] ^ 2 < 4 THEN 0
				WHEN mean[1] ^ 2 + mean[2] ^ 2 < 16 THEN 1 ELSE 2 END AS c
			 FROM p2_rows WHERE id > 400) r
GROUP BY m::text, gsu.classes(m);

-- calibrated probabilities and cross-validation through the map
SELECT bool_and(gsu.probability(c, mean) BETWEEN 0 AND 1) AS probability_ok,
	avg(((gsu.probability(c, mean) >= 0.5)::int * 2 - 1 = label)::int) >= 0.95 AS calibrated_at_least_95
FROM (SELECT gsu.calibrate(m, mean, label) AS c
	  FROM p2_models, p2_rows WHERE name = 'poly2_gsu' AND id <= 400 GROUP BY m::text) t, p2_rows WHERE id > 400;
SELECT lambda, metric_mean >= 0.95 AS accuracy_at_least_95, fold_count
FROM gsu.cross_validate('p2_rows', 'mean', 'variance', 'label', ARRAY[1e-3, 1e-2], 3, 1,
	'{"features": {"map": "poly2"}}')
ORDER BY lambda;

-- errors: options
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly3"}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "dim": 3}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "landmarks": 3}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "sigma": 1}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "seed": 1}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "degree": 3}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly2", "covariance": "block"}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"standardize": true, "features": {"map": "poly2"}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "features": {"map": "poly2"}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust", "feature_bound": "worst_case", "features": {"map": "poly2", "covariance": "full"}}') FROM p2_rows$$);
SELECT test_error($$SELECT gsu.fit('p2_rows', 'mean', 'variance', 'label', '{"features": {"map": "poly2"}}')$$);
-- the limit: 1001 input features would map to 501,501 features
SELECT test_error($$SELECT gsu.train(array_fill(i::float8, ARRAY[1001]), NULL::float8[], CASE WHEN i = 1 THEN 1 ELSE -1 END,
	'{"loss": "hinge", "features": {"map": "poly2"}}') FROM generate_series(1, 2) i$$);
-- products that overflow: a mean near 1e200, a variance near 1e300
SELECT test_error($$SELECT gsu.train(ARRAY[i * 1e200, 1], ARRAY[0.1, 0.1], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END,
	'{"features": {"map": "poly2"}}') FROM generate_series(1, 10) i$$);
SELECT test_error($$SELECT gsu.train(ARRAY[i * 1e200, 1], NULL::float8[], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END,
	'{"loss": "hinge", "features": {"map": "poly2"}}') FROM generate_series(1, 10) i$$);
SELECT test_error($$SELECT gsu.train(ARRAY[i, 1], ARRAY[1e300, 0.1], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END,
	'{"features": {"map": "poly2"}}') FROM generate_series(1, 10) i$$);
SELECT test_error($$SELECT gsu.decision(m, ARRAY[1e200, 1]) FROM p2_models WHERE name = 'poly2_gsu'$$);
-- the memory limit counts the p(p+1)/2 features: 100 rows of 60 features map to 1830
SET gsu.max_training_memory = 1024;
SELECT test_error($$SELECT gsu.train(ARRAY(SELECT prand(i, k) FROM generate_series(1, 60) k), NULL::float8[],
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END, '{"loss": "hinge", "features": {"map": "poly2"}}')
	FROM generate_series(1, 100) i$$);
RESET gsu.max_training_memory;

-- errors: scoring checks the input dimension (2), not the mapped one (3)
SELECT test_error($$SELECT gsu.decision(m, ARRAY[1, 2, 3]::float8[]) FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT gsu.confidence(m, ARRAY[1, 2]::float8[], ARRAY[0.1, 0.1, 0.1]) FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT gsu.expected_loss(m, ARRAY[1, 2]::float8[], ARRAY[0.1, -0.1], 1) FROM p2_models WHERE name = 'poly2_gsu'$$);
-- gsu.explain explains input features, which a mapped model has no weights on
SELECT test_error($$SELECT * FROM gsu.explain((SELECT m FROM p2_models WHERE name = 'poly2_gsu'), ARRAY[1, 2]::float8[])$$);

-- errors: a hand-made model whose map does not fit its parameters
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,sigma}', '1')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,seed}', '7')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,landmarks}', '3')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,matrix}', '[1]')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,input_dim}', '3')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(jsonb_set(m::jsonb, '{dim}', '2'), '{weights}', '[1, 2]')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);
SELECT test_error($$SELECT jsonb_set(m::jsonb, '{features,map}', '"poly3"')::gsu.model FROM p2_models WHERE name = 'poly2_gsu'$$);

DROP TABLE p2_rows, p2_models, p2_copied;
