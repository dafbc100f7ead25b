-- Degenerate models and the training errors users can reach: a tiny lambda
-- with the stochastic solvers, an "init" model whose objective is not finite,
-- denormal row weights (issue 12, defects 7 and 8).  Every case shows its
-- SQLSTATE, or that it trains.
\set SHOW_CONTEXT never
CREATE SCHEMA test_degenerate;
SET search_path = test_degenerate, public;

-- 40 rows of dimension 2, two classes around (1, 0.5) and (-1, -0.5), each
-- with a variance of 0.3 per feature (uncertainty radius delta_i = sqrt(0.3))
CREATE TABLE deg AS
SELECT i AS id, ARRAY[l * 1.0 + 0.5 * pnorm(i, 1), l * 0.5 + 0.5 * pnorm(i, 2)] AS mean,
	ARRAY[0.3, 0.3]::float8[] AS variance, l AS label
FROM generate_series(1, 40) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
CREATE FUNCTION degenerate(m gsu.model) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT gsu.describe(m)->'training'->>'degenerate'
$$;
CREATE FUNCTION wnorm(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum(w * w)) FROM unnest(gsu.weights(m)) w
$$;

-- ------------------------------------------------------ lambda and sgd
-- the step 1/(lambda t) of sgd and pegasos overflows below 1e-300: refused
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "lambda": 1e-310}') FROM deg$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "lambda": 1e-310}') FROM deg$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"lambda": 1e-310}') FROM deg$$);
-- at the bound they train; newton takes any positive lambda
SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "lambda": 1e-300}') IS NOT NULL AS sgd_at_bound FROM deg;
SELECT gsu.train(mean, variance, label, '{"lambda": 1e-310}') IS NOT NULL AS newton_tiny_lambda FROM deg;
-- so does gsu.fit: its gap bound ||grad||^2/(2 lambda) overflows, but F - F* <= F
-- (a WARNING says it stopped early; its per-pass NOTICEs are hidden)
SET client_min_messages = warning;
SELECT (gsu.describe(m)->'training'->>'gap_estimate')::float8 <= (gsu.describe(m)->'training'->>'objective')::float8 AS gap_bounded
FROM (SELECT gsu.fit('test_degenerate.deg', 'mean', 'variance', 'label', '{"lambda": 1e-320, "max_iterations": 3}') AS m) s;
RESET client_min_messages;

-- ------------------------------------------------------ the "init" model
-- lambda/2 ||w||^2 overflows: refused before any pass, by every trainer
SELECT test_error($$SELECT gsu.fit('test_degenerate.deg', 'mean', 'variance', 'label',
	'{"init": {"format": 2, "dim": 2, "weights": [1e200, 1e200], "bias": 0}}')$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label,
	'{"init": {"format": 2, "dim": 2, "weights": [1e200, 1e200], "bias": 0}}') FROM deg$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label,
	'{"solver": "sgd", "init": {"format": 2, "dim": 2, "weights": [1e200, 1e200], "bias": 0}}') FROM deg$$);
-- a finite regularizer, but losses of 1e308 per row: gsu.fit's first pass refuses it
SELECT test_error($$SELECT gsu.fit('test_degenerate.deg', 'mean', 'variance', 'label',
	'{"init": {"format": 2, "dim": 2, "weights": [1, 1], "bias": 1e308}}')$$);
-- the stochastic solvers step from it into overflow: a range error
SELECT test_error($$SELECT gsu.train(mean, variance, label,
	'{"solver": "pegasos", "init": {"format": 2, "dim": 2, "weights": [1, 1], "bias": 1e308}}') FROM deg$$);

-- ------------------------------------------------------ denormal row weights
-- only the ratios of the weights matter: the smallest positive float8 on
-- every row is the unweighted model, for every loss and buffered solver
SELECT o AS options,
	rel_diff((SELECT gsu.train(mean, variance, label, 5e-324::float8, o ORDER BY id) FROM deg),
			 (SELECT gsu.train(mean, variance, label, o ORDER BY id) FROM deg)) < 1e-9 AS same_model
FROM (VALUES ('{}'::jsonb), ('{"solver": "pegasos"}'), ('{"loss": "tsvc", "gamma": 0.5}'),
	('{"loss": "robust"}'), ('{"solver": "sgd"}'), ('{"class_weight": {"1": 3}}')) v(o);
-- with a class weight that is large, the product spans 600 orders of magnitude
SELECT rel_diff((SELECT gsu.train(mean, variance, label, 5e-324::float8, '{"solver": "pegasos", "class_weight": {"1": 1e300}}' ORDER BY id) FROM deg),
				(SELECT gsu.train(mean, variance, label, 1.0, '{"solver": "pegasos", "class_weight": {"1": 1e300}}' ORDER BY id) FROM deg)) < 1e-9 AS huge_ratio;
-- and a denormal weight among weights 1 is (almost) no row
SELECT rel_diff((SELECT gsu.train(mean, variance, label, CASE WHEN id = 1 THEN 5e-324 ELSE 1 END, '{}' ORDER BY id) FROM deg),
				(SELECT gsu.train(mean, variance, label ORDER BY id) FROM deg WHERE id > 1)) < 1e-9 AS denormal_is_no_row;

-- ------------------------------------------------------ degenerate models
-- TSVC's relaxation shifts row i's margin by gamma*delta_i: with gamma 4,
-- 4*sqrt(0.3) > 1 for every row and w = 0 costs nothing: a WARNING, the
-- weights exactly 0, and describe says so
CREATE TABLE m AS
SELECT 'tsvc gamma 4' AS name, gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 4}' ORDER BY id) AS m FROM deg;
-- Pegasos reaches the same zero model
INSERT INTO m SELECT 'tsvc gamma 4 pegasos', gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 4, "solver": "pegasos"}' ORDER BY id) FROM deg;
-- the Chebyshev chance constraint at 0.9 (gamma 3) collapses to w = 0 too
INSERT INTO m SELECT 'chebyshev 0.9', gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 0.9, "bound": "chebyshev"}' ORDER BY id) FROM deg;
-- a bound far above the solution's norm: the relaxation is not TSVC
INSERT INTO m SELECT 'tsvc bound inactive', gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 20, "delta_scale": 0.01}' ORDER BY id) FROM deg;
-- no warning where the bound is active, or for the gaussian chance constraint here
INSERT INTO m SELECT 'tsvc gamma 0.5', gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 0.5}' ORDER BY id) FROM deg;
INSERT INTO m SELECT 'gaussian 0.9', gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 0.9}' ORDER BY id) FROM deg;
SELECT name, degenerate(m), wnorm(m) = 0 AS zero_weights,
	round(wnorm(m)::numeric, 3) AS norm,
	gsu.describe(m)->'training'->'converged' AS converged,
	(SELECT count(DISTINCT gsu.predict(m, mean)) FROM deg) AS predicted_classes
FROM m ORDER BY name;
-- the zero model's bias is the best constant: the objective is the mean hinge of sign(b)
SELECT name, round((gsu.describe(m)->'training'->>'objective')::numeric, 6) AS objective
FROM m WHERE degenerate(m) = 'zero model' ORDER BY name;
-- a model read back from its text keeps what describe derives
SELECT degenerate(m::text::gsu.model) AS round_trip FROM m WHERE name = 'chebyshev 0.9';

-- Every row far inside the margin (a large lambda): the loss is flat along the bias,
-- and the weights 0.1 and 0.3 leave its gradient a rounding error (3 x 0.1 - 0.3 is
-- not 0 in double precision). The gap estimate, the Newton decrement, used to divide
-- that error by the bias's zero curvature: 4e186 at lambda 1000, and infinity (a
-- "diverged" error) on MNIST images. It now gives the bias the curvature lambda.
SELECT l AS lambda,
	(gsu.describe(m)->'training'->>'gap_estimate')::float8 < 1e-5 AS small_gap,
	gsu.describe(m)->'training'->'converged' AS converged
FROM unnest('{1, 1000, 1e6}'::float8[]) l,
	LATERAL (SELECT gsu.train(ARRAY[0.01 * i, -0.02 * i], ARRAY[1e-4, 1e-4], CASE WHEN i <= 3 THEN 1 ELSE -1 END,
						  CASE WHEN i <= 3 THEN 0.1 ELSE 0.3 END, jsonb_build_object('lambda', l)) AS m
			 FROM generate_series(1, 4) i) t
ORDER BY l;

DROP SCHEMA test_degenerate CASCADE;
