-- Scoring: gsu.decision, gsu.predict, gsu.confidence, gsu.expected_loss, on a
-- hand-written model whose values can be checked by hand, then against
-- numerical integration.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_scoring;
SET search_path = test_scoring, public;

-- w = (1, 2), b = 0.5
CREATE TABLE hand AS SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model AS m;

-- decision f(x) = wᵀx + b
SELECT gsu.decision(m, '{1,1}') FROM hand;
SELECT gsu.decision(m, '{0,0}') FROM hand;
SELECT gsu.decision(m, '{-1,-0.25}') FROM hand;
SELECT gsu.decision(m, '{0.25,-0.125}') FROM hand;
SELECT gsu.decision(m, '{1e10,-1e10}') FROM hand;
SELECT gsu.decision(m, ARRAY[-0.5, 0]::float8[]) FROM hand;
-- an int array is not a float8 array, but a cast makes it one
SELECT gsu.decision(m, ARRAY[2, 3]::float8[]) FROM hand;

-- predict: 1 when f ≥ 0, else -1
SELECT gsu.predict(m, '{1,1}') FROM hand;
SELECT gsu.predict(m, '{-1,-1}') FROM hand;
SELECT gsu.predict(m, '{-0.5,0}') AS at_zero FROM hand;
SELECT gsu.predict(m, '{-0.5,-1e-9}') AS just_below FROM hand;
SELECT gsu.predict(m, '{-0.5,1e-9}') AS just_above FROM hand;

-- confidence Φ(|f| / √(wᵀΣw)), wᵀΣw = v1 + 4·v2
-- zero variance: certain, 1 (or 0.5 on the boundary)
SELECT gsu.confidence(m, '{1,1}', '{0,0}'::float8[]) FROM hand;
SELECT gsu.confidence(m, '{-1,-1}', '{0,0}'::float8[]) FROM hand;
SELECT gsu.confidence(m, '{1,1}', ARRAY[0.0]::float8[]) FROM hand;
SELECT gsu.confidence(m, '{-0.5,0}', '{0,0}'::float8[]) AS boundary FROM hand;
-- f = 0: 0.5 whatever the variance
SELECT gsu.confidence(m, '{-0.5,0}', '{1,2}'::float8[]) AS boundary FROM hand;
SELECT gsu.confidence(m, '{-0.5,0}', ARRAY[3.0]::float8[]) AS boundary FROM hand;
-- f = 3.5, wᵀΣw = 0.25 + 4·3 = 12.25: Φ(1) = 0.841344746068543
SELECT round(gsu.confidence(m, '{1,1}', '{0.25,3}'::float8[])::numeric, 12) FROM hand;
-- the variance of a weight-0 direction does not count: wᵀΣw = 12.25 + 0·v
SELECT round(gsu.confidence('{"format": 1, "dim": 3, "weights": [1, 2, 0], "bias": 0.5}', '{1,1,5}', '{0.25,3,1000}'::float8[])::numeric, 12);
-- f = -2.5, isotropic 1.25: wᵀΣw = 1.25·5 = 6.25, Φ(1)
SELECT round(gsu.confidence(m, '{-1,-1}', ARRAY[1.25]::float8[])::numeric, 12) FROM hand;
-- f = 3.5, isotropic 12.25/20: Φ(2) = 0.977249868051821
SELECT round(gsu.confidence(m, '{1,1}', ARRAY[(12.25 / 20)]::float8[])::numeric, 12) FROM hand;
-- f = 3.5, wᵀΣw = 49: Φ(0.5) = 0.691462461274013
SELECT round(gsu.confidence(m, '{1,1}', '{49,0}'::float8[])::numeric, 12) FROM hand;
SELECT round(gsu.confidence(m, '{1,1}', '{1,12}'::float8[])::numeric, 12) FROM hand;
-- far from the boundary: 1 to double precision, never above
SELECT gsu.confidence(m, '{1,1}', '{0.01,0.01}'::float8[]) FROM hand;
-- confidence is symmetric in the sign of f: x and its mirror image about the boundary
SELECT gsu.confidence(m, '{0.5,0.25}', '{0.3,0.2}'::float8[]) = gsu.confidence(m, '{-1.5,-0.25}', '{0.3,0.2}'::float8[]) AS symmetric FROM hand;
-- it grows with |f| and falls with the variance
SELECT gsu.confidence(m, '{0,0}', ARRAY[1.0]::float8[]) < gsu.confidence(m, '{1,0}', ARRAY[1.0]::float8[]) AS grows,
	gsu.confidence(m, '{1,0}', ARRAY[1.0]::float8[]) > gsu.confidence(m, '{1,0}', ARRAY[2.0]::float8[]) AS falls FROM hand;

-- a full covariance Σ (2-D array): wᵀΣw = Σ11 + 4·Σ12 + 4·Σ22 = 0.25 + 2 + 10 = 12.25, Φ(1) again
SELECT round(gsu.confidence(m, '{1,1}', '{{0.25,0.5},{0.5,2.5}}'::float8[])::numeric, 12) FROM hand;
-- a diagonal Σ written in full is the diagonal
SELECT gsu.confidence(m, '{1,1}', '{{0.25,0},{0,3}}'::float8[]) = gsu.confidence(m, '{1,1}', '{0.25,3}'::float8[]) AS same FROM hand;
-- noise only along the boundary (Σ ∝ vvᵀ with v ⟂ w): certain, and the loss is the hinge
SELECT gsu.confidence(m, '{1,1}', '{{4,-2},{-2,1}}'::float8[]) AS certain,
	gsu.expected_loss(m, '{1,1}', '{{4,-2},{-2,1}}'::float8[], -1) AS hinge FROM hand;

-- expected_loss: with zero variance it is the hinge max(0, 1 - y·f)
SELECT gsu.expected_loss(m, '{1,1}', '{0,0}'::float8[], 1) AS f35_pos, gsu.expected_loss(m, '{1,1}', '{0,0}'::float8[], -1) AS f35_neg FROM hand;
SELECT gsu.expected_loss(m, '{0,0}', '{0,0}'::float8[], 1) AS f05_pos, gsu.expected_loss(m, '{0,0}', '{0,0}'::float8[], -1) AS f05_neg FROM hand;
SELECT gsu.expected_loss(m, '{-1,-1}', ARRAY[0.0]::float8[], 1) AS fm25_pos, gsu.expected_loss(m, '{-1,-1}', ARRAY[0.0]::float8[], -1) AS fm25_neg FROM hand;
SELECT gsu.expected_loss(m, '{0.5,0}', ARRAY[0.0]::float8[], 1) AS at_margin FROM hand;
-- d_x = 1 - y·f = 0 and d_Σ = √(2wᵀΣw): the loss is d_Σ/(2√π); wᵀΣw = 2π gives d_Σ = 2√π and loss 1
SELECT round(gsu.expected_loss(m, '{0.5,0}', ARRAY[2 * pi() / 5], 1)::numeric, 12) FROM hand;
SELECT round(gsu.expected_loss(m, '{0.5,0}', ARRAY[2 * pi(), 0], 1)::numeric, 12) FROM hand;
-- f = 0 and wᵀΣw = 1/2 (isotropic 0.1): d_x = d_Σ = 1, loss = (1 + erf 1)/2 + e⁻¹/(2√π) = 1.025127270830006, for either label
SELECT round(gsu.expected_loss(m, '{-0.5,0}', ARRAY[0.1]::float8[], 1)::numeric, 12) AS pos,
	round(gsu.expected_loss(m, '{-0.5,0}', ARRAY[0.1]::float8[], -1)::numeric, 12) AS neg FROM hand;
-- the same with a full Σ: wᵀΣw = 0.1 + 4·0.025 + 4·0.075 = 0.5
SELECT round(gsu.expected_loss(m, '{-0.5,0}', '{{0.1,0.025},{0.025,0.075}}'::float8[], 1)::numeric, 12) AS full_cov FROM hand;
-- the loss is at least the hinge loss at the mean (Jensen) and grows with the variance
-- (strictly unless it has saturated to the hinge in double precision, as for v = 0.01 here)
SELECT bool_and(gsu.expected_loss(m, ARRAY[a, b], ARRAY[v, v], y) >= greatest(0, 1 - y * gsu.decision(m, ARRAY[a, b]))) AS jensen,
	bool_and(gsu.expected_loss(m, ARRAY[a, b], ARRAY[v, v], y) <= gsu.expected_loss(m, ARRAY[a, b], ARRAY[2 * v, 2 * v], y)) AS non_decreasing,
	bool_and(gsu.expected_loss(m, ARRAY[a, b], ARRAY[v, v], y) < gsu.expected_loss(m, ARRAY[a, b], ARRAY[2 * v, 2 * v], y))
		FILTER (WHERE v >= 0.5) AS grows
FROM hand, unnest('{-2,-0.5,0,0.3,1}'::float8[]) a, unnest('{-1,0,0.2,1.5}'::float8[]) b, unnest('{0.01,0.5,3}'::float8[]) v,
	unnest('{-1,1}'::int[]) y;
-- far on the right side of the margin the loss vanishes; far on the wrong side it is the hinge
SELECT gsu.expected_loss(m, '{10,10}', '{0.01,0.01}'::float8[], 1) AS zero,
	gsu.expected_loss(m, '{10,10}', '{0.01,0.01}'::float8[], -1) AS hinge FROM hand;

-- E[max(0, 1 - y·z)] and P(sign z = sign f) for z ~ N(f, s²), by the trapezoidal rule on [f - 10s, f + 10s]
CREATE FUNCTION quad_loss(f float8, s float8, y int) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sum(greatest(0, 1 - y * (f + s * t)) * exp(-t * t / 2) * (CASE WHEN abs(t) = 10 THEN 0.5 ELSE 1 END)) * 0.002 / sqrt(2 * pi())
	FROM (SELECT i * 0.002 AS t FROM generate_series(-5000, 5000) i) g
$$;
CREATE FUNCTION quad_confidence(f float8, s float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sum(exp(-t * t / 2) * (CASE WHEN i = 0 THEN 0.5 ELSE 1 END)) * 0.001 / sqrt(2 * pi())
	FROM (SELECT i, -abs(f) / s + i * 0.001 AS t FROM generate_series(0, ((10 + abs(f) / s) * 1000)::int) i) g
$$;
-- the integration itself is right on the values known above
SELECT abs(quad_loss(1, sqrt(4 * pi()) / sqrt(2), 1) - 1) < 1e-6 AS quad_ok, abs(quad_confidence(3.5, 3.5) - 0.841344746068543) < 1e-6 AS quad_ok;
-- the rows of pts scored with a trained model agree with the integrals
CREATE TABLE scored AS
SELECT id, gsu.decision(m, mean) AS f, sqrt(v[1] * w[1] ^ 2 + v[2] * w[2] ^ 2 + v[3] * w[3] ^ 2) AS s, label,
	gsu.expected_loss(m, mean, v, label) AS loss, gsu.confidence(m, mean, v) AS conf
FROM (SELECT id, mean, coalesce(variance, '{0,0,0}') v, label FROM pts WHERE id % 40 IN (1, 2)) p,
	(SELECT gsu.train(mean, variance, label) m FROM pts) t, LATERAL (SELECT gsu.weights(m) w) ww;
SELECT count(*) AS n, count(*) FILTER (WHERE s > 0) AS uncertain,
	bool_and(abs(loss - CASE WHEN s > 0 THEN quad_loss(f, s, label) ELSE greatest(0, 1 - label * f) END) < 1e-5) AS loss_ok,
	bool_and(abs(conf - CASE WHEN s > 0 THEN quad_confidence(f, s) ELSE 1 END) < 1e-5) AS confidence_ok
FROM scored;

-- the isotropic overloads equal the diagonal ones with equal variances
SELECT bool_and(gsu.confidence(m, ARRAY[a, b], ARRAY[v]) = gsu.confidence(m, ARRAY[a, b], ARRAY[v, v])) AS confidence_same,
	bool_and(gsu.expected_loss(m, ARRAY[a, b], ARRAY[v], y) = gsu.expected_loss(m, ARRAY[a, b], ARRAY[v, v], y)) AS loss_same
FROM hand, unnest('{-2,-0.5,0,0.3,1}'::float8[]) a, unnest('{-1,0,0.2,1.5}'::float8[]) b, unnest('{0,0.01,0.5,3}'::float8[]) v,
	unnest('{-1,1}'::int[]) y;

-- the model's loss and solver do not change how it scores
SELECT gsu.decision(m, '{1,1}') AS decision, gsu.expected_loss(m, '{-0.5,0}', ARRAY[0.1]::float8[], 1) = gsu.expected_loss((SELECT m FROM hand), '{-0.5,0}', ARRAY[0.1]::float8[], 1) AS same_loss
FROM (SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5, "loss": "hinge", "hyperparameters": {"solver": "sgd"}}'::gsu.model AS m) s;

-- scoring inside a query: the training accuracy of a trained model
SELECT avg((gsu.predict(m, mean) = label)::int) > 0.8 AS accurate,
	bool_and(gsu.predict(m, mean) = CASE WHEN gsu.decision(m, mean) >= 0 THEN 1 ELSE -1 END) AS predict_is_sign,
	bool_and(gsu.confidence(m, mean, coalesce(variance, '{0,0,0}')) BETWEEN 0.5 AND 1) AS confidence_range,
	bool_and(gsu.expected_loss(m, mean, coalesce(variance, '{0,0,0}'), label) >= 0) AS loss_positive
FROM pts, (SELECT gsu.train(mean, variance, label) m FROM pts) t;

-- probability: Platt's sigmoid 1/(1 + exp(A·f + B)) of a calibrated model; A = -1, B = 0: f = 0 gives 1/2, f = ln 3 gives 3/4
CREATE TABLE platt AS SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -1, "b": 0}}'::gsu.model AS m;
SELECT gsu.probability(m, '{0}') AS half, round(gsu.probability(m, ARRAY[ln(3)])::numeric, 12) AS three_quarters,
	round(gsu.probability(m, ARRAY[-ln(3)])::numeric, 12) AS one_quarter FROM platt;
-- B shifts it: A = -2, B = 2 ln 3 gives 1/2 at f = ln 3
SELECT round(gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 2.1972245773362196}}', ARRAY[ln(3)])::numeric, 12) AS half;
-- far from the boundary it saturates to 0 and 1 without overflow
SELECT gsu.probability(m, '{1000}') AS one, gsu.probability(m, '{-1000}') AS zero FROM platt;
SELECT gsu.probability(NULL, '{0}') IS NULL AS a, gsu.probability(m, NULL) IS NULL AS b FROM platt;

-- STRICT: a NULL argument gives NULL
SELECT gsu.decision(NULL, '{1,1}') IS NULL AS a, gsu.decision(m, NULL) IS NULL AS b FROM hand;
SELECT gsu.predict(NULL, '{1,1}') IS NULL AS a, gsu.predict(m, NULL) IS NULL AS b FROM hand;
-- the functions that take a variance are not STRICT: a NULL model, mean or label
-- gives NULL, a NULL variance is a certain row (the same as a zero variance, or
-- as leaving it out where it has a default)
SELECT gsu.confidence(NULL, '{1,1}', '{1,1}'::float8[]) IS NULL AS a, gsu.confidence(m, NULL, '{1,1}'::float8[]) IS NULL AS b,
	gsu.confidence(m, '{1,1}', NULL) = gsu.confidence(m, '{1,1}', '{0,0}') AS c_certain,
	gsu.confidence(m, '{1,1}') = gsu.confidence(m, '{1,1}', '{0}') AS c_default FROM hand;
SELECT gsu.expected_loss(NULL, '{1,1}', '{1,1}'::float8[], 1) IS NULL AS a, gsu.expected_loss(m, NULL, '{1,1}'::float8[], 1) IS NULL AS b,
	gsu.expected_loss(m, '{1,1}', NULL, 1) = gsu.expected_loss(m, '{1,1}', '{0,0}', 1) AS c_certain,
	gsu.expected_loss(m, '{1,1}', '{1,1}'::float8[], NULL) IS NULL AS d FROM hand;
SELECT gsu.weights(NULL) IS NULL AS a, gsu.bias(NULL) IS NULL AS b, gsu.describe(NULL) IS NULL AS c;

-- every scoring function is IMMUTABLE PARALLEL SAFE, with one form (untyped
-- parameters resolve); STRICT but for those that take a variance or defaults
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel, count(*) AS overloads
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'gsu' AND p.proname IN ('decision', 'decisions', 'predict', 'probability', 'probabilities', 'confidence', 'expected_loss', 'weights', 'bias', 'classes', 'describe')
GROUP BY 1, 2, 3, 4 ORDER BY 1;
