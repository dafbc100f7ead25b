-- gsu.regression_gradient (issue 33): gsu.gradient for a regression model, the sums
-- of the rows' expected regression losses and their gradients at the model's weights
-- in a gradient partial, exactly combinable (gsu.sum, parallel workers); the
-- first-order half of gsu.regression_hessian's sums.
-- Data are formulas of the row number; figures are rounded.
\set SHOW_CONTEXT never

CREATE TABLE rg AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y,
	(1 + i % 3)::float8 AS weight
FROM generate_series(1, 400) i;
CREATE TABLE rg_models AS
SELECT gsu.train_regression(mean, variance, y, '{"loss": "squared", "lambda": 0.01}') AS ridge,
	gsu.train_regression(mean, variance, y, '{"lambda": 0.01, "tolerance": 1e-10}') AS svr,
	gsu.train_regression(mean, variance, y, '{"loss": "squared", "lambda": 0.01, "standardize": true}') AS zridge
FROM rg;
-- the partial's elements as a float8[], and the model's weights with a zero for the bias
CREATE FUNCTION pvec(p gsu.partial) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array(SELECT jsonb_array_elements_text(p::text::jsonb->'vector')::float8) $$;
CREATE FUNCTION wzero(m gsu.model) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT gsu.weights(m) || 0::float8 $$;

-- ------------------------------------------------------------ the sums
SELECT p::text::jsonb->>'kind' AS kind, p::text::jsonb->>'loss' AS loss, p::text::jsonb->>'rows' AS rows,
	p::text::jsonb->>'smoothing' AS smoothing, p::text::jsonb ? 'point' AS has_point, cardinality(pvec(p)) AS elements
FROM (SELECT gsu.regression_gradient(mean, variance, y, svr, 0) AS p FROM rg, rg_models GROUP BY svr) s;
-- at the optimum the objective's gradient, sum/n + lambda (w, 0), is zero: exactly for ridge-GSU's
-- closed form, to the solver's tolerance for SVR-GSU, and in a standardized model's units
SELECT (SELECT max(abs(g / 400 + 0.01 * w)) FROM unnest(pvec(gsu.regression_gradient(mean, variance, y, ridge, 0)), wzero(ridge)) u(g, w)) < 1e-10 AS ridge_optimal,
	(SELECT max(abs(g / 400 + 0.01 * w)) FROM unnest(pvec(gsu.regression_gradient(mean, variance, y, svr, 0)), wzero(svr)) u(g, w)) < 1e-6 AS svr_optimal,
	(SELECT max(abs(g / 400 + 0.01 * w)) FROM unnest(pvec(gsu.regression_gradient(mean, variance, y, zridge, 0)), wzero(zridge)) u(g, w)) < 1e-10 AS standardized_optimal
FROM rg, rg_models GROUP BY ridge, svr, zridge;
-- the gradient is the derivative of the loss sum: central differences in w_2 and b at a model off the optimum
CREATE TABLE rg_off AS
SELECT l, jsonb_set(jsonb_set(m::jsonb, '{weights,1}', to_jsonb(((m::jsonb)->'weights'->>1)::float8 + dw)), '{bias}',
	to_jsonb(((m::jsonb)->>'bias')::float8 + db))::gsu.model AS m, dw, db
FROM (SELECT 'squared' AS l, ridge AS m FROM rg_models UNION ALL SELECT 'epsilon_insensitive', svr FROM rg_models) s,
	(VALUES (0.3, 0.2, 'at'), (0.30001, 0.2, 'w+'), (0.29999, 0.2, 'w-'), (0.3, 0.20001, 'b+'), (0.3, 0.19999, 'b-')) v(dw, db, k);
CREATE TABLE rg_sums AS
SELECT l, dw, db, gsu.regression_gradient(mean, variance, y, m, 0) AS p FROM rg, rg_off GROUP BY l, m, dw, db;
CREATE FUNCTION loss_sum(p gsu.partial) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$ SELECT (p::text::jsonb->>'loss_sum')::float8 $$;
SELECT a.l AS loss,
	abs((loss_sum(wp.p) - loss_sum(wm.p)) / 0.00002 - (pvec(a.p))[2]) < 1e-5 * (1 + abs((pvec(a.p))[2])) AS dw_matches,
	abs((loss_sum(bp.p) - loss_sum(bm.p)) / 0.00002 - (pvec(a.p))[4]) < 1e-5 * (1 + abs((pvec(a.p))[4])) AS db_matches
FROM rg_sums a JOIN rg_sums wp USING (l) JOIN rg_sums wm USING (l) JOIN rg_sums bp USING (l) JOIN rg_sums bm USING (l)
WHERE a.dw = 0.3 AND a.db = 0.2 AND wp.dw = 0.30001 AND wm.dw = 0.29999 AND wp.db = 0.2 AND wm.db = 0.2
	AND bp.db = 0.20001 AND bm.db = 0.19999 AND bp.dw = 0.3 AND bm.dw = 0.3
ORDER BY a.l;
-- the first-order half of gsu.regression_hessian's sums, to the bit (smoothing too)
SELECT (pvec(g))[1:4] = (pvec(h))[1:4] AND loss_sum(g) = loss_sum(h) AS same_as_hessian
FROM (SELECT gsu.regression_gradient(mean, variance, y, svr, 0.1) AS g, gsu.regression_hessian(mean, variance, y, svr, 0.1) AS h
	FROM rg, rg_models GROUP BY svr) s;
-- the smoothing changes the epsilon-insensitive loss only
SELECT pvec(gsu.regression_gradient(mean, variance, y, ridge, 0.5)) = pvec(gsu.regression_gradient(mean, variance, y, ridge, 0)) AS squared_unsmoothed,
	pvec(gsu.regression_gradient(mean, variance, y, svr, 0.5)) <> pvec(gsu.regression_gradient(mean, variance, y, svr, 0)) AS svr_smoothed
FROM rg, rg_models GROUP BY ridge, svr;

-- ------------------------------------------------------------ weights, shards, parallel workers
-- a weight multiplies the row's sums; weight 2 on every row is twice the sums; NULL and 0 skip the row
SELECT (SELECT max(abs(a - 2 * b)) FROM unnest(pvec(gsu.regression_gradient(mean, variance, y, 2.0::float8, svr, 0)),
		pvec(gsu.regression_gradient(mean, variance, y, svr, 0))) u(a, b)) < 1e-12 AS weight_two,
	gsu.regression_gradient(mean, variance, y, CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN 0 ELSE weight END, svr, 0)::text::jsonb->>'rows' AS weighted_rows
FROM rg, rg_models GROUP BY svr;
-- two shards added by gsu.sum are the whole table's sums
SELECT (SELECT max(abs(a - b)) FROM unnest(pvec(s.p), pvec(w.p)) u(a, b)) < 1e-12 AS shards_sum,
	s.p::text::jsonb->>'rows' AS rows
FROM (SELECT gsu.sum(p) AS p FROM (SELECT gsu.regression_gradient(mean, variance, y, weight, svr, 0) AS p
		FROM rg, rg_models GROUP BY i % 2, svr) q) s,
	(SELECT gsu.regression_gradient(mean, variance, y, weight, svr, 0) AS p FROM rg, rg_models GROUP BY svr) w;
CREATE TABLE rgbig AS
SELECT i, ARRAY[sin(i), cos(1.7 * i), ((i * 37) % 101) / 50.0 - 1]::float8[] AS mean,
	ARRAY[0.01 + 0.01 * (i % 3), 0.02, 0.005]::float8[] AS variance,
	1.5 * sin(i) - 2 * cos(1.7 * i) + 0.5 * (((i * 37) % 101) / 50.0 - 1) + 0.3 + 0.05 * sin(7 * i) AS y
FROM generate_series(1, 20000) i;
ALTER TABLE rgbig SET (parallel_workers = 2);
ANALYZE rgbig;
SELECT svr::text AS svr_text FROM rg_models \gset
SET max_parallel_workers_per_gather = 0;
CREATE TABLE rg_serial AS SELECT gsu.regression_gradient(mean, variance, y, :'svr_text'::gsu.model, 0) AS p FROM rgbig;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.regression_gradient(mean, variance, y, :'svr_text'::gsu.model, 0) FROM rgbig;
SELECT workers_launched(format($$CREATE TABLE rg_par AS
SELECT gsu.regression_gradient(mean, variance, y, %L::gsu.model, 0) AS p FROM rgbig$$, :'svr_text'));
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- the workers' sums are the serial ones up to the order of the additions
SELECT p.p::text::jsonb->>'rows' AS rows,
	(SELECT max(abs(a - b) / (1 + abs(b))) FROM unnest(pvec(p.p), pvec(s.p)) u(a, b)) < 1e-9 AS parallel_sums,
	abs(loss_sum(p.p) - loss_sum(s.p)) < 1e-9 * loss_sum(s.p) AS parallel_loss
FROM rg_par p, rg_serial s;

-- ------------------------------------------------------------ errors
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, NULL, 0) FROM rg$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, (SELECT gsu.train(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END) FROM rg), 0) FROM rg$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean[1:2], variance[1:2], y, svr, 0) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, svr, -1) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, 'NaN'::float8, svr, 0) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, -1::float8, svr, 0) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, CASE WHEN i < 3 THEN svr ELSE ridge END, 0 ORDER BY i) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(mean, variance, y, svr, CASE WHEN i < 3 THEN 0 ELSE 0.1 END ORDER BY i) FROM rg, rg_models$$);
SELECT test_error($$SELECT gsu.regression_gradient(CASE WHEN i = 5 THEN mean[1:2] ELSE mean END, NULL, y, svr, 0 ORDER BY i) FROM rg, rg_models$$);
-- combining with the sums at another model, with a hessian partial, with a classifier's gradient
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.regression_gradient(mean, variance, y, svr, 0) AS p FROM rg, rg_models GROUP BY svr
	UNION ALL SELECT gsu.regression_gradient(mean, variance, y, jsonb_set(svr::jsonb, '{bias}', '0')::gsu.model, 0) FROM rg, rg_models GROUP BY svr) s$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.regression_gradient(mean, variance, y, svr, 0) AS p FROM rg, rg_models GROUP BY svr
	UNION ALL SELECT gsu.regression_hessian(mean, variance, y, svr, 0) FROM rg, rg_models GROUP BY svr) s$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.regression_gradient(mean, variance, y, svr, 0) AS p FROM rg, rg_models GROUP BY svr
	UNION ALL SELECT gsu.gradient(mean, variance, CASE WHEN y > 0 THEN 1 ELSE -1 END, NULL, 0) FROM rg) s$$);
-- a regression gradient partial is no model
SELECT test_error($$SELECT gsu.to_model(gsu.regression_gradient(mean, variance, y, svr, 0)) FROM rg, rg_models GROUP BY svr$$);
-- the transition function is an aggregate's
SELECT test_error($$SELECT gsu.regression_gradient_transfn(NULL, ARRAY[1.0]::float8[], NULL, 1.0, NULL, 0)$$);
