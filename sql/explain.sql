-- gsu.explain: per feature, the contribution w_j x_j to the decision value and
-- the share w_j (Sigma w)_j of the decision's variance w'Sigma w; per class for
-- one-vs-rest models; a bias row (feature NULL) per class.
\set SHOW_CONTEXT never
CREATE SCHEMA test_explain;
SET search_path = test_explain, public;

-- w = (1, 2), b = 0.5 (the hand model of scoring.sql)
CREATE TABLE hand AS SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model AS m;

-- certain point: f = 0.5 + 1 + 2 = 3.5, every share 0; class is the model's
-- second class (1), the one a positive decision value predicts
SELECT e.* FROM hand, gsu.explain(m, '{1,1}') e;
-- diagonal: shares v_j w_j^2 = 0.25, 12, total 12.25 (scoring.sql: confidence Phi(1))
SELECT e.* FROM hand, gsu.explain(m, '{1,1}', '{0.25,3}'::float8[]) e;
-- full: Sigma w = (0.25 + 1, 0.5 + 5), shares w_j (Sigma w)_j = 1.25, 11, total 12.25
SELECT e.* FROM hand, gsu.explain(m, '{1,1}', '{{0.25,0.5},{0.5,2.5}}'::float8[]) e;
-- a negative share: Sigma w = (2.5, -0.5) for w = (1, 1); the total is still w'Sigma w = 2
SELECT e.* FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 1], "bias": 0}', '{1,-1}',
	'{{4,-1.5},{-1.5,1}}'::float8[]) e;
-- noise only along the boundary (Sigma = vv', v = (2, -1) orthogonal to w): shares cancel to 0
SELECT e.* FROM hand, gsu.explain(m, '{1,1}', '{{4,-2},{-2,1}}'::float8[]) e;
-- isotropic: s w_j^2 = 2, 8
SELECT e.* FROM hand, gsu.explain(m, '{1,-1}', ARRAY[2.0]::float8[]) e;
SELECT e.* FROM hand, gsu.explain(m, '{1,-1}', ARRAY[0.0]::float8[]) e;
-- no -0: a zero weight gives +0 contributions and shares
SELECT e.* FROM gsu.explain('{"format": 1, "dim": 2, "weights": [0, -1], "bias": 0}', '{-3,-0.0}', '{1,0}'::float8[]) e;
-- the set-returning form in ORDER BY ... LIMIT: the most uncertain feature, the largest contribution
SELECT feature, variance_share FROM hand, gsu.explain(m, '{1,1}', '{0.25,3}'::float8[])
ORDER BY variance_share DESC LIMIT 1;
SELECT feature, contribution FROM hand, gsu.explain(m, '{1,-1}')
WHERE feature IS NOT NULL ORDER BY abs(contribution) DESC LIMIT 1;
-- in a select list
SELECT gsu.explain(m, '{1,1}', ARRAY[1.0]::float8[]) FROM hand;
-- a NULL model or mean: no rows; a NULL variance: a certain point, as when
-- it is left out (variance_share 0)
SELECT count(*) FROM hand, gsu.explain(m, NULL::float8[]) e;
SELECT count(*) FROM gsu.explain(NULL::gsu.model, '{1,1}') e;
SELECT count(*) AS rows, sum(variance_share) AS shares FROM hand, gsu.explain(m, '{1,1}', NULL) e;
SELECT (SELECT array_agg(e ORDER BY feature NULLS FIRST) FROM gsu.explain(m, '{1,1}', NULL) e)
	= (SELECT array_agg(e ORDER BY feature NULLS FIRST) FROM gsu.explain(m, '{1,1}') e) AS same_as_left_out FROM hand;
-- the declaration
SELECT p.oid::regprocedure AS function, provolatile, proparallel, proisstrict, proretset,
	pg_get_function_result(p.oid) AS result, obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p WHERE p.proname = 'explain' AND p.pronamespace = 'gsu'::regnamespace ORDER BY 1::text;

-- ------------------------------------------------------------ identities on a trained model
CREATE TABLE two AS SELECT gsu.train(mean, variance, label) AS m FROM pts;
-- contributions + bias = gsu.decision; shares add up to w'Sigma w computed from gsu.weights
SELECT count(*) AS rows,
	max(abs(s.f - gsu.decision(m, p.mean)) / (1 + abs(gsu.decision(m, p.mean)))) < 1e-12 AS decision_ok,
	max(abs(s.q - (SELECT sum(w * w * v) FROM unnest(gsu.weights(m), p.variance) AS u(w, v))) / (1 + s.q)) < 1e-12 AS variance_ok,
	bool_and(s.bias_rows = 1 AND s.features = 3 AND s.classes = ARRAY[1]) AS shape_ok
FROM two, pts p,
	LATERAL (SELECT sum(contribution) AS f, sum(variance_share) AS q, count(*) FILTER (WHERE feature IS NULL) AS bias_rows,
			count(feature) AS features, array_agg(DISTINCT class) AS classes
		FROM gsu.explain(m, p.mean, p.variance)) s
WHERE p.variance IS NOT NULL;
-- the bias row is gsu.bias, the feature rows are w_j x_j of gsu.weights
SELECT bool_and(e.contribution = (CASE WHEN e.feature IS NULL THEN gsu.bias(m) ELSE (gsu.weights(m))[e.feature] * p.mean[e.feature] END)) AS rows_ok
FROM two, pts p, gsu.explain(m, p.mean) e WHERE p.id <= 50;
-- the shares add up to the variance gsu.confidence divides by: with the 1-D model
-- f(z) = z, confidence(f, q) = Phi(|f| / sqrt(q)) is the confidence of the row
SELECT max(abs(gsu.confidence('{"format": 1, "dim": 1, "weights": [1], "bias": 0}', ARRAY[s.f], ARRAY[s.q])
		- gsu.confidence(m, p.mean, p.variance))) < 1e-12 AS confidence_ok
FROM two, pts p, LATERAL (SELECT sum(contribution) AS f, sum(variance_share) AS q FROM gsu.explain(m, p.mean, p.variance)) s
WHERE p.variance IS NOT NULL;
-- full covariance Sigma = diag(v) + 0.05 * 11' (positive definite): shares add up to w'Sigma w
CREATE TABLE fullcov AS
SELECT id, mean, ARRAY[[variance[1] + 0.05, 0.05, 0.05], [0.05, variance[2] + 0.05, 0.05],
	[0.05, 0.05, variance[3] + 0.05]] AS cov FROM pts WHERE variance IS NOT NULL;
SELECT max(abs(s.q - (SELECT sum(w)^2 * 0.05 + sum(w * w * v) FROM unnest(gsu.weights(m), p.variance) AS u(w, v)))
		/ (1 + s.q)) < 1e-12 AS full_ok,
	max(abs(gsu.confidence('{"format": 1, "dim": 1, "weights": [1], "bias": 0}', ARRAY[s.f], ARRAY[s.q])
		- gsu.confidence(m, c.mean, c.cov))) < 1e-12 AS confidence_ok,
	bool_or(s.qmin < 0) AS some_negative_share
FROM two, fullcov c JOIN pts p USING (id),
	LATERAL (SELECT sum(contribution) AS f, sum(variance_share) AS q, min(variance_share) AS qmin
		FROM gsu.explain(m, c.mean, c.cov)) s;
-- a diagonal written in full gives the diagonal's shares; isotropic s is the diagonal (s, s, s)
SELECT bool_and(d.variance_share = f.variance_share) AS diag_in_full,
	bool_and(abs(i.variance_share - d2.variance_share) <= 1e-15 * abs(d2.variance_share)) AS iso_is_diag
FROM two, pts p,
	gsu.explain(m, p.mean, p.variance) WITH ORDINALITY d(class, feature, contribution, variance_share, n)
	JOIN gsu.explain(m, p.mean, ARRAY[[p.variance[1], 0, 0], [0, p.variance[2], 0], [0, 0, p.variance[3]]])
		WITH ORDINALITY f(class, feature, contribution, variance_share, n) USING (n)
	JOIN gsu.explain(m, p.mean, ARRAY[0.3]::float8[]) WITH ORDINALITY i(class, feature, contribution, variance_share, n) USING (n)
	JOIN gsu.explain(m, p.mean, '{0.3,0.3,0.3}'::float8[]) WITH ORDINALITY d2(class, feature, contribution, variance_share, n) USING (n)
WHERE p.variance IS NOT NULL AND p.id <= 50;
-- two classes of other labels: class is the second (7), the one the decision value scores
SELECT DISTINCT e.class FROM (SELECT gsu.train(mean, variance, CASE WHEN label = 1 THEN 7 ELSE 0 END) AS m FROM pts) t,
	gsu.explain(t.m, '{1,0,0}') e;

-- ------------------------------------------------------------ multi-class
-- three classes (labels 2, 4, 6: label 1, else the sign of mean[3]), one-vs-rest: one block of rows per class
CREATE TABLE three AS
SELECT gsu.train(mean, variance, CASE WHEN label = 1 THEN 2 WHEN mean[3] > 0 THEN 4 ELSE 6 END, '{"lambda": 0.01}') AS m FROM pts;
SELECT class, count(*) AS rows, count(feature) AS features FROM three, gsu.explain(m, '{1,2,3}', ARRAY[0.5]::float8[])
GROUP BY class ORDER BY class;
-- per class: contributions + bias = that class's gsu.decisions value, shares = w_k'Sigma w_k of gsu.weights(m, class)
SELECT count(*) AS rows,
	max(abs(s.f - (gsu.decisions(m, p.mean))[array_position(gsu.classes(m), s.class)])) < 1e-12 AS decisions_ok,
	max(abs(s.q - (SELECT sum(w * w * v) FROM unnest(gsu.weights(m, s.class), p.variance) AS u(w, v))) / (1 + s.q)) < 1e-12 AS variance_ok,
	max(abs(s.b - gsu.bias(m, s.class))) = 0 AS bias_ok
FROM three, pts p,
	LATERAL (SELECT class, sum(contribution) AS f, sum(variance_share) AS q, sum(contribution) FILTER (WHERE feature IS NULL) AS b
		FROM gsu.explain(m, p.mean, p.variance) GROUP BY class) s
WHERE p.variance IS NOT NULL;
-- the predicted class's rows give the confidence of the prediction, Phi(f_k / sqrt(q_k))
-- (f_k can be negative: then the 1-D model's Phi(|f_k| / sqrt(q_k)) is 1 minus it)
SELECT max(abs(CASE WHEN s.f >= 0 THEN c1 ELSE 1 - c1 END - gsu.confidence(m, p.mean, p.variance))) < 1e-12 AS confidence_ok,
	bool_or(s.f < 0) AS some_negative
FROM three, pts p,
	LATERAL (SELECT sum(contribution) AS f, sum(variance_share) AS q FROM gsu.explain(m, p.mean, p.variance)
		WHERE class = gsu.predict(m, p.mean)) s,
	LATERAL (SELECT gsu.confidence('{"format": 1, "dim": 1, "weights": [1], "bias": 0}', ARRAY[s.f], ARRAY[s.q]) AS c1) c
WHERE p.variance IS NOT NULL;

-- ------------------------------------------------------------ errors
-- dimensions: the mean, a diagonal and a full variance against the model
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1,1}')$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{1,1,1}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{{1,0,0},{0,1,0},{0,0,1}}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{}')$$);
-- bad means and variances
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,NaN}')$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,NULL}')$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{1,-0.5}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{1,Infinity}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{1,NULL}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{{1,0.5},{0,1}}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{{1,2},{2,1}}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', '{{{1}}}'::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', ARRAY[-1.0]::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}', '{1,1}', ARRAY['NaN']::float8[])$$);
-- overflow: the decision value, the variance (isotropic, full)
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1e200, 1e200], "bias": 0}', '{1e200,1}')$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1e200, 1e200], "bias": 0}', '{1,1}', ARRAY[1e300]::float8[])$$);
SELECT test_error($$SELECT * FROM gsu.explain('{"format": 1, "dim": 2, "weights": [1e200, 1], "bias": 0}', '{0,1}', '{{1,0},{0,1}}'::float8[])$$);
-- models with a feature map have no weights on the input features
CREATE TABLE mapped AS
SELECT 'rff' AS map, gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 20, "sigma": 1, "seed": 3}}') AS m FROM pts
UNION ALL
SELECT 'nystroem', gsu.train(mean, variance, label, '{"features": {"map": "nystroem", "landmarks": 10, "sigma": 1, "seed": 5}}') FROM pts;
SELECT map, test_error(format($$SELECT * FROM gsu.explain(%L, '{1,1,1}')$$, m)) FROM mapped ORDER BY map;
SELECT map, test_error(format($$SELECT * FROM gsu.explain(%L, '{1,1,1}', ARRAY[0.5]::float8[])$$, m)) FROM mapped ORDER BY map;
SELECT map, test_error(format($$SELECT * FROM gsu.explain(%L, '{1,1,1}', '{1,1,1}'::float8[])$$, m)) FROM mapped ORDER BY map;

RESET search_path;
DROP SCHEMA test_explain CASCADE;
