-- Regression's streaming SGD on a SQL state (issue 33): gsu.train_regression_sgd and
-- gsu.regression_sgd_partial, whose state is a gsu.partial of kind sgd with a regression
-- loss: the steps of gsu.train_regression's solver sgd, combinable by gsu.sum (shards)
-- and by a parallel plan's combine, made a regression model by gsu.to_model.
-- Data are formulas of the row number; figures are rounded.
\set SHOW_CONTEXT never

CREATE TABLE rsp AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y
FROM generate_series(1, 400) i;

-- ------------------------------------------------------------ the same steps as gsu.train_regression's sgd
-- in the same order the partial's model is gsu.train_regression's streamed one, bit for bit
SELECT l AS loss, gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same_model,
	gsu.describe(a)->'training'->>'iterations' AS iterations, gsu.describe(a)->'hyperparameters'->>'solver' AS solver,
	gsu.describe(a)->'hyperparameters'->>'epsilon' AS epsilon, gsu.describe(a)->>'task' AS task
FROM (SELECT l, gsu.train_regression_sgd(mean, variance, y, jsonb_build_object('loss', l, 'lambda', 0.1) ORDER BY i) AS a,
		gsu.train_regression(mean, variance, y, jsonb_build_object('loss', l, 'lambda', 0.1, 'solver', 'sgd') ORDER BY i) AS b
	FROM rsp, (VALUES ('epsilon_insensitive'), ('squared')) v(l) GROUP BY l) s ORDER BY l;
-- the partial: the loss, lambda and the tube's epsilon, which is 0 for the squared loss
SELECT p->>'kind' AS kind, p->>'loss' AS loss, p->>'epsilon' AS epsilon, p ? 'smoothing' AS has_smoothing,
	p->>'rows' AS rows, p->>'steps' AS steps, p->>'positives' AS positives
FROM (SELECT gsu.regression_sgd_partial(mean, variance, y, jsonb_build_object('loss', l, 'epsilon', e) ORDER BY i)::text::jsonb AS p
	FROM rsp, (VALUES ('epsilon_insensitive', 0.25), ('squared', NULL)) v(l, e) GROUP BY l, e) s ORDER BY loss;
-- its text and binary forms round-trip
CREATE TABLE parts AS SELECT gsu.regression_sgd_partial(mean, variance, y, '{"epsilon": 0.2}' ORDER BY i) AS p FROM rsp;
SELECT p::text::gsu.partial::text = p::text AS text_round_trip FROM parts;
SELECT regress_file('regression_sgd_partial') AS regress_file \gset
COPY parts TO :'regress_file' (FORMAT binary);
CREATE TABLE parts_copy (p gsu.partial);
COPY parts_copy FROM :'regress_file' (FORMAT binary);
SELECT c.p::text = s.p::text AS binary_round_trip FROM parts_copy c, parts s;
-- gsu.to_model of the partial is the aggregate's model
SELECT gsu.to_model(p)::text = (SELECT gsu.train_regression_sgd(mean, variance, y, '{"epsilon": 0.2}' ORDER BY i) FROM rsp)::text AS to_model_is_final FROM parts;
-- a certain row (NULL variance), a full and a factor covariance, and skipped rows (NULL mean or target)
SELECT gsu.describe(gsu.train_regression_sgd(CASE WHEN i % 10 = 0 THEN NULL ELSE mean END,
		CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN ARRAY[[variance[1], 0, 0], [0, variance[2], 0], [0, 0, variance[3]]]
			ELSE ARRAY[[sqrt(variance[1])], [0], [0]] END,
		CASE WHEN i % 7 = 0 THEN NULL ELSE y END, '{}' ORDER BY i))->'training'->>'rows' AS rows FROM rsp;
SELECT gsu.train_regression_sgd(mean, variance, y, '{}') IS NULL AS no_rows FROM rsp WHERE false;

-- ------------------------------------------------------------ chained passes, shards
-- init continues a regression model's weights and step count (of either aggregate)
CREATE TABLE rpasses AS SELECT 1 AS pass, gsu.train_regression_sgd(mean, variance, y, '{"lambda": 0.01}' ORDER BY i) AS m FROM rsp;
INSERT INTO rpasses SELECT 2, gsu.train_regression_sgd(mean, variance, y,
	jsonb_build_object('lambda', 0.01, 'init', (SELECT m FROM rpasses WHERE pass = 1)::jsonb) ORDER BY i) FROM rsp;
INSERT INTO rpasses SELECT 3, gsu.train_regression(mean, variance, y,
	jsonb_build_object('lambda', 0.01, 'solver', 'sgd', 'init', (SELECT m FROM rpasses WHERE pass = 2)::jsonb) ORDER BY i) FROM rsp;
SELECT pass, gsu.describe(m)->'training'->>'iterations' AS iterations FROM rpasses ORDER BY pass;
-- two shards: each streams its rows into a partial; gsu.sum averages them by their rows
CREATE TABLE shard_a AS SELECT * FROM rsp WHERE i % 2 = 0;
CREATE TABLE shard_b AS SELECT * FROM rsp WHERE i % 2 = 1;
CREATE TABLE shard_parts AS
SELECT 'a' AS shard, gsu.regression_sgd_partial(mean, variance, y, '{"lambda": 0.1}' ORDER BY i) AS p FROM shard_a
UNION ALL
SELECT 'b', gsu.regression_sgd_partial(mean, variance, y, '{"lambda": 0.1}' ORDER BY i) FROM shard_b;
CREATE TABLE combined AS SELECT gsu.to_model(gsu.sum(p ORDER BY shard)) AS m FROM shard_parts;
SELECT gsu.describe(m)->'training'->>'rows' AS rows, gsu.describe(m)->'training'->>'iterations' AS iterations FROM combined;
-- the average of the two iterates, weighted by their rows (200 each)
SELECT (SELECT max(abs(x - (a + b) / 2)) FROM unnest(gsu.weights(c.m) || gsu.bias(c.m),
		gsu.weights(gsu.to_model(pa.p)) || gsu.bias(gsu.to_model(pa.p)),
		gsu.weights(gsu.to_model(pb.p)) || gsu.bias(gsu.to_model(pb.p))) u(x, a, b)) < 1e-12 AS averaged
FROM combined c, shard_parts pa, shard_parts pb WHERE pa.shard = 'a' AND pb.shard = 'b';
-- and it predicts about as well as one pass over all rows
SELECT round(gsu.rmse(gsu.decision(c.m, r.mean), r.y)::numeric, 1) AS rmse_shards,
	round(gsu.rmse(gsu.decision(s.m, r.mean), r.y)::numeric, 1) AS rmse_one_pass
FROM combined c, (SELECT gsu.train_regression_sgd(mean, variance, y, '{"lambda": 0.1}' ORDER BY i) AS m FROM rsp) s, rsp r
GROUP BY c.m, s.m;

-- ------------------------------------------------------------ a parallel plan
CREATE TABLE rspbig AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y
FROM generate_series(1, 20000) i;
ALTER TABLE rspbig SET (parallel_workers = 2);
ANALYZE rspbig;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
-- partial aggregation needs no gsu.parallel_training (the state is a gsu.partial, as gsu.train_sgd's)
EXPLAIN (COSTS OFF) SELECT gsu.train_regression_sgd(mean, variance, y, '{"lambda": 0.01}') FROM rspbig;
SELECT workers_launched($$CREATE TABLE rsppar AS
SELECT gsu.train_regression_sgd(mean, variance, y, '{"lambda": 0.01}') AS m,
	gsu.regression_sgd_partial(mean, variance, y, '{"lambda": 0.01, "loss": "squared"}') AS p FROM rspbig$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- every row counted once; the averaged model fits
SELECT gsu.describe(m)->'training'->>'rows' AS rows, p::text::jsonb->>'rows' AS partial_rows,
	(SELECT gsu.rmse(gsu.decision(m, mean), y) FROM rspbig) < 0.15 AS fits,
	(SELECT gsu.rmse(gsu.decision(gsu.to_model(p), mean), y) FROM rspbig) < 0.15 AS partial_fits
FROM rsppar;

-- ------------------------------------------------------------ errors
-- the options of gsu.train_regression's solver sgd, with its refusals
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"solver": "newton"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.regression_sgd_partial(mean, variance, y, '{"solver": "pegasos"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"standardize": true}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"missing": "feature_moments"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"lambda": 1e-301}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"loss": "squared", "epsilon": 0.1}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"loss": "gsu"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, '{"class_weight": "balanced"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, jsonb_build_object('init', (SELECT gsu.train(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END) FROM rsp)::jsonb)) FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean[1:2], variance[1:2], y, jsonb_build_object('init', (SELECT m FROM rpasses WHERE pass = 1)::jsonb)) FROM rsp$$);
-- rows: a target not finite, a dimension that changes, options that change
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, 'NaN'::float8, '{}') FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(CASE WHEN i = 5 THEN mean[1:2] ELSE mean END, NULL, y, '{}' ORDER BY i) FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, variance, y, jsonb_build_object('lambda', CASE WHEN i < 5 THEN 0.1 ELSE 0.2 END) ORDER BY i) FROM rsp$$);
SELECT test_error($$SELECT gsu.train_regression_sgd(mean, ARRAY[1, 2]::float8[], y, '{}') FROM rsp$$);
-- combining: another epsilon, another loss (a classification sgd partial), a gradient partial
SELECT test_error($$SELECT gsu.sum(p ORDER BY e) FROM (SELECT e, gsu.regression_sgd_partial(mean, variance, y, jsonb_build_object('epsilon', e)) AS p
	FROM rsp, (VALUES (0.1), (0.2)) v(e) GROUP BY e) s$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.regression_sgd_partial(mean, variance, y, '{}') AS p FROM rsp
	UNION ALL SELECT gsu.sgd_partial(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END, '{}') FROM rsp) s$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.regression_sgd_partial(mean, variance, y, '{}') AS p FROM rsp
	UNION ALL SELECT gsu.gradient(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END, NULL, 0) FROM rsp) s$$);
-- the text form: "epsilon" belongs to a regression sgd partial, which has no "smoothing"; the squared loss has epsilon 0
SELECT test_error($$SELECT '{"format": 3, "kind": "sgd", "dim": 1, "loss": "gsu", "epsilon": 0.1, "lambda": 1, "vector": [0, 0]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "sgd", "dim": 1, "loss": "squared", "smoothing": 0, "lambda": 1, "vector": [0, 0]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "sgd", "dim": 1, "loss": "squared", "epsilon": 0.1, "lambda": 1, "vector": [0, 0]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "sgd", "dim": 1, "loss": "epsilon_insensitive", "epsilon": -1, "lambda": 1, "vector": [0, 0]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "sgd", "dim": 1, "loss": "epsilon_insensitive", "epsilon": 0.1, "positives": 1, "rows": 1, "lambda": 1, "vector": [0, 0]}'::gsu.partial$$);
-- (a gradient partial of a regression loss is gsu.regression_gradient's: its text reads back)
SELECT '{"format": 3, "kind": "gradient", "dim": 1, "loss": "squared", "lambda": 1, "vector": [0, 0]}'::gsu.partial::text::jsonb->>'loss' AS gradient_loss;
-- a valid hand-written partial becomes a regression model
SELECT gsu.describe(gsu.to_model('{"format": 3, "kind": "sgd", "dim": 1, "rows": 2, "steps": 2, "loss": "epsilon_insensitive", "epsilon": 0.3, "lambda": 1, "vector": [2, 1]}'::gsu.partial))->'hyperparameters'->>'epsilon' AS epsilon;
-- classification's streaming aggregates still refuse a regression loss
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, 1, '{"loss": "squared"}') FROM rsp$$);
SELECT test_error($$SELECT gsu.sgd_partial(mean, variance, 1, '{"loss": "epsilon_insensitive"}') FROM rsp$$);
-- the transition function is an aggregate's, not callable by itself
SELECT test_error($$SELECT gsu.regression_sgd_partial_transfn(NULL, ARRAY[1.0]::float8[], NULL, 1.0, '{}')$$);
