-- Reliability (issue 12): values that must be told apart although the
-- executor hands them over at the same address, per-group arguments of
-- aggregates, and stored values that must always be readable again.
\set SHOW_CONTEXT never
CREATE SCHEMA test_reliability;
SET search_path = test_reliability, public;

-- ------------------------------------------------------------------
-- 1. A model argument is identified by its value, not by its address.
-- 40 models of dimension 300 (2.4 kB of weights, so they are toasted):
-- weight j of model k is prand(k, j) - 0.5, its bias k.
CREATE TABLE wide_models (id int PRIMARY KEY, m gsu.model);
INSERT INTO wide_models
SELECT k, format('{"format": 1, "dim": 300, "weights": [%s], "bias": %s}',
	string_agg((prand(k, j) - 0.5)::text, ',' ORDER BY j), k)::gsu.model
FROM generate_series(1, 40) k, generate_series(1, 300) j GROUP BY k;
-- the same models stored out of line uncompressed, and compressed in line
CREATE TABLE wide_external (id int PRIMARY KEY, m gsu.model);
ALTER TABLE wide_external ALTER m SET STORAGE external;
INSERT INTO wide_external SELECT * FROM wide_models;
CREATE TABLE wide_main (id int PRIMARY KEY, m gsu.model);
ALTER TABLE wide_main ALTER m SET STORAGE main;
INSERT INTO wide_main SELECT * FROM wide_models;
SELECT count(*) FILTER (WHERE pg_column_size(m) < 2400) AS compressed,
	count(*) FILTER (WHERE pg_column_size(m) >= 2400) AS not_compressed FROM wide_external;
-- inputs: query q asks model 1 + (q * 7) % 40 at x_j = prand(1000 + q, j)
CREATE TABLE wide_queries AS
SELECT q, 1 + (q * 7) % 40 AS k, array_agg(prand(1000 + q, j) ORDER BY j) AS x
FROM generate_series(1, 120) q, generate_series(1, 300) j GROUP BY q;
-- the decision value computed in SQL from the formula of the weights
CREATE TABLE wide_expected AS
SELECT q.q, sum((prand(q.k, j) - 0.5) * q.x[j]) + q.k AS f
FROM wide_queries q, generate_series(1, 300) j GROUP BY q.q, q.k;

-- a correlated subquery hands each row's model over in the same place
SELECT count(*) AS queries,
	count(*) FILTER (WHERE abs(gsu.decision((SELECT m FROM wide_external w WHERE w.id = q.k), q.x) - e.f) > 1e-9) AS wrong_external,
	count(*) FILTER (WHERE abs(gsu.decision((SELECT m FROM wide_main w WHERE w.id = q.k), q.x) - e.f) > 1e-9) AS wrong_main,
	count(*) FILTER (WHERE abs(gsu.decision((SELECT m FROM wide_models w WHERE w.id = q.k), q.x) - e.f) > 1e-9) AS wrong_default
FROM wide_queries q JOIN wide_expected e USING (q);
-- every scoring function reads its model the same way
SELECT count(*) FILTER (WHERE gsu.predict((SELECT m FROM wide_external w WHERE w.id = q.k), q.x)
		<> CASE WHEN e.f >= 0 THEN 1 ELSE -1 END) AS wrong_predict,
	count(*) FILTER (WHERE abs((gsu.decisions((SELECT m FROM wide_external w WHERE w.id = q.k), q.x))[2] - e.f) > 1e-9) AS wrong_decisions,
	count(*) FILTER (WHERE abs(gsu.expected_loss((SELECT m FROM wide_external w WHERE w.id = q.k), q.x,
		array_fill(0::float8, ARRAY[300]), 1) - greatest(0, 1 - e.f)) > 1e-9) AS wrong_expected_loss,
	count(*) FILTER (WHERE gsu.confidence((SELECT m FROM wide_external w WHERE w.id = q.k), q.x,
		array_fill(1e-6::float8, ARRAY[300])) < 0.5) AS wrong_confidence
FROM wide_queries q JOIN wide_expected e USING (q);
-- models taken from row values
SELECT count(*) AS queries,
	count(*) FILTER (WHERE abs(gsu.decision((c).m, q.x) - e.f) > 1e-9) AS wrong_row_value
FROM wide_queries q JOIN wide_expected e USING (q)
	JOIN (SELECT w AS c FROM wide_main w) r ON (r.c).id = q.k;
-- the cache is kept while the model repeats: scoring one table against one model
SELECT count(*) FILTER (WHERE abs(gsu.decision(w.m, q.x) - e.f) > 1e-9) AS wrong_join
FROM wide_queries q JOIN wide_expected e USING (q) JOIN wide_external w ON w.id = q.k;

-- a reference set read through a subquery is told apart too
CREATE TABLE wide_refsets AS
SELECT g, gsu.refset_agg(ARRAY[prand(i, g), prand(i, g + 50)] || array_fill(prand(i, 3 * g)::float8, ARRAY[200])) AS r
FROM generate_series(1, 2) g, generate_series(1, 40) i GROUP BY g;
SELECT g, count(*) FILTER (WHERE v1 IS DISTINCT FROM v2) AS wrong
FROM (SELECT g, i,
		gsu.nn_variance((SELECT r FROM wide_refsets w WHERE w.g = s.g), x, NULL, 1, false) AS v1,
		gsu.nn_variance(r, x, NULL, 1, false) AS v2
	FROM (SELECT g, i, ARRAY[prand(i, g), prand(i, g + 50)] || array_fill(prand(i, 3 * g)::float8, ARRAY[200]) AS x
		FROM generate_series(1, 2) g, generate_series(1, 40) i) s JOIN wide_refsets USING (g)) t
GROUP BY g ORDER BY g;

-- ------------------------------------------------------------------
-- 2. gsu.gradient per group: each group's point is in its own state.
CREATE TABLE grp_models AS
SELECT g, format('{"format": 1, "dim": 3, "weights": [%s, %s, %s], "bias": %s, "hyperparameters": {"lambda": 0.01}}',
	0.1 * g, -0.2 * g, 0.05, 0.1 * g)::gsu.model AS m
FROM generate_series(0, 2) g;
CREATE TABLE grp_pts AS SELECT id % 3 AS g, mean, variance, label FROM pts;
-- same(a, b): two gradient partials agree in counts and point, and in their sums up to rounding
CREATE FUNCTION same(a gsu.partial, b gsu.partial) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT (a::text::jsonb - 'vector' - 'loss_sum') = (b::text::jsonb - 'vector' - 'loss_sum')
		AND abs((a::text::jsonb->>'loss_sum')::float8 - (b::text::jsonb->>'loss_sum')::float8) < 1e-9
		AND (SELECT bool_and(abs(x::float8 - y::float8) < 1e-9)
			FROM jsonb_array_elements_text(a::text::jsonb->'vector') WITH ORDINALITY u(x, i)
			JOIN jsonb_array_elements_text(b::text::jsonb->'vector') WITH ORDINALITY v(y, j) ON i = j)
$$;
-- each group alone
CREATE TABLE grp_alone AS
SELECT g, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM grp_pts p WHERE p.g = gm.g)::text AS p
FROM grp_models gm;
-- all groups in one hash aggregate (its rows interleave the groups)
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT g, gsu.gradient(mean, variance, label, m, 0) FROM grp_pts JOIN grp_models USING (g) GROUP BY g;
SELECT g, same(a.p::gsu.partial, s.p) AS same
FROM (SELECT g, gsu.gradient(mean, variance, label, m, 0) AS p FROM grp_pts JOIN grp_models USING (g) GROUP BY g) s
	JOIN grp_alone a USING (g) ORDER BY g;
-- the model through a subquery, hashed and sorted
SELECT g, same(a.p::gsu.partial, s.p) AS same
FROM (SELECT g, gsu.gradient(mean, variance, label, (SELECT m FROM grp_models gm WHERE gm.g = p.g), 0) AS p
	FROM grp_pts p GROUP BY g) s JOIN grp_alone a USING (g) ORDER BY g;
RESET enable_sort;
SET enable_hashagg = off;
SELECT g, same(a.p::gsu.partial, s.p) AS same
FROM (SELECT g, gsu.gradient(mean, variance, label, (SELECT m FROM grp_models gm WHERE gm.g = p.g), 0) AS p
	FROM grp_pts p GROUP BY g) s JOIN grp_alone a USING (g) ORDER BY g;
RESET enable_hashagg;
-- within one group the model must not change
SELECT test_error($$SELECT gsu.gradient(mean, variance, label, m, 0) FROM grp_pts JOIN grp_models USING (g)$$);
SELECT test_error($$SELECT gsu.gradient(mean, variance, label, CASE WHEN label = 1 THEN m END, 0) FROM grp_pts JOIN grp_models USING (g) WHERE g = 1$$);
-- gradients at different points do not add up
SELECT test_error($$SELECT gsu.sum(p::gsu.partial) FROM grp_alone$$);
SELECT gsu.sum(p::gsu.partial)::text = (SELECT p FROM grp_alone WHERE g = 1) AS same FROM grp_alone WHERE g = 1;
-- a gradient at an unknown point (format 1) adds up with any, and the sum's point is unknown
SELECT gsu.sum(p)::text::jsonb ? 'point' AS known FROM (VALUES
	('{"format": 1, "kind": "gradient", "dim": 3, "lambda": 0.01, "vector": [1, 2, 3, 4]}'::gsu.partial),
	((SELECT p::gsu.partial FROM grp_alone WHERE g = 1))) v(p);

-- ------------------------------------------------------------------
-- 3. What a function produces, input accepts: sums that overflow are errors.
SELECT test_error($$SELECT gsu.gradient(ARRAY[1e308, 1e308], NULL, l, NULL, 0) FROM (VALUES (1), (1), (1)) v(l)$$);
-- the same in nine dimensions, where the row's update runs in vector blocks of four
-- and a rest: only element 1, in the first block, overflows
SELECT test_error($$SELECT gsu.gradient(ARRAY[1e308, 1, 1, 1, 1, 1, 1, 1, 1], NULL, l, NULL, 0) FROM (VALUES (1), (1), (1)) v(l)$$);
SELECT test_error($$SELECT gsu.gradient(ARRAY[1e308, 1], NULL, -1, '{"format": 1, "dim": 2, "weights": [1e300, 0], "bias": 0}', 0) FROM generate_series(1, 2)$$);
SELECT test_error($$SELECT gsu.sgd_partial(ARRAY[mean[1] * 1e10, mean[2], mean[3]], variance, label, '{"lambda": 1e-300}') FROM pts$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 9223372036854775807, "vector": [1, 2]}'::gsu.partial),
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 1, "vector": [1, 2]}'::gsu.partial)) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 1, "positives": 1, "vector": [1e308, 2]}'::gsu.partial),
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 1, "positives": 1, "vector": [1e308, 2]}'::gsu.partial)) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 1, "loss_sum": 1e308, "vector": [1, 2]}'::gsu.partial),
	('{"format": 2, "kind": "gradient", "dim": 1, "rows": 1, "loss_sum": 1e308, "vector": [1, 2]}'::gsu.partial)) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES
	('{"format": 2, "kind": "sgd", "dim": 1, "rows": 1, "steps": 9223372036854775807, "vector": [1, 2]}'::gsu.partial),
	('{"format": 2, "kind": "sgd", "dim": 1, "rows": 1, "steps": 1, "vector": [1, 2]}'::gsu.partial)) v(p)$$);
-- and what succeeds reads back through text and binary
CREATE TABLE produced AS
SELECT gsu.gradient(mean, variance, label, NULL, 0) AS p FROM pts
UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{"lambda": 0.01}') FROM pts
UNION ALL SELECT gsu.sum(p) FROM (SELECT gsu.gradient(mean, variance, label, NULL, 0) p FROM pts GROUP BY id % 4) s;
SELECT count(*) AS values, count(*) FILTER (WHERE p::text::gsu.partial::text = p::text) AS text_round_trip
FROM produced;

-- ------------------------------------------------------------------
-- 4. Smaller ones.
-- more folds than rows (up to 2^31 trainings) and a NaN lambda are refused up front
SELECT test_error($$SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{0.1}', 2147483647)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{0.1}', 401)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{NaN}', 2)$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{Infinity}', 2)$$);
SELECT test_error($$SELECT gsu.train_best('pts', 'mean', 'variance', 'label', '{0.1, NaN}', 2)$$);
-- gsu.moments: options computed per row must agree, as with the other aggregates
SELECT test_error($$SELECT gsu.moments(mean, CASE WHEN id < 200 THEN '{"estimator": "sample"}' ELSE '{"estimator": "population"}' END::jsonb) FROM pts$$);
SELECT test_error($$SELECT gsu.moments(mean, CASE WHEN id < 200 THEN '{"covariance": "full"}' ELSE NULL END::jsonb) FROM pts$$);
-- the same options written differently agree
SELECT gsu.moments(mean, CASE WHEN id < 200 THEN '{"estimator": "sample"}' ELSE NULL END::jsonb)::text
	= gsu.moments(mean)::text AS same FROM pts;

-- ------------------------------------------------------------------
-- 5. Found by test/fuzz.sh.
-- rows of norm 1e308 overflow the hinge polish's Gram matrix; it gives up instead of
-- looping in LAPACK, where no cancel reaches
SELECT gsu.describe(gsu.train(ARRAY[1e308, -1e308, 1e308]::float8[], NULL::float8[],
	CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END))->'training'->'rows' AS rows FROM generate_series(1, 4) id;
SELECT gsu.describe(gsu.train(ARRAY[1e200]::float8[], NULL::float8[], l))->'training'->'rows' AS rows
FROM (VALUES (1), (-1)) v(l);
-- options whose derived numbers leave double precision
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 5e-324, "bound": "chebyshev"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 2, "sigma": 5e-324}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, NULL::float8[], label, jsonb_build_object('solver', 'sgd', 'init',
	'{"format": 2, "dim": 3, "weights": [0.1, 0.1, 0.1], "bias": 0, "training": {"iterations": 9223372036854775807}}'::jsonb)) FROM pts$$);
-- support functions called directly
SELECT test_error($$SELECT gsu.partial_combine(NULL, NULL)$$);
SELECT test_error($$SELECT gsu.sgd_partial_transfn(NULL, ARRAY[1, 2, 3]::float8[], NULL, 1, '{}')$$);
-- -0 never reaches a stored value: text cannot keep the sign of zero
SELECT p::text::gsu.partial::text = p::text AS text_round_trip, p::text LIKE '%-0,%' AS has_minus_zero
FROM (SELECT gsu.sgd_partial(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{}') AS p FROM pts) s;
SELECT p::text::gsu.projection::text = p::text AS text_round_trip
FROM (SELECT gsu.geu_fit(mean, variance, CASE WHEN id % 3 = 0 THEN 2 ELSE label END, '{"regularization": 1e300}') AS p FROM pts) s;
