-- Progress reports and the per-pass history of a training (issue 29, "long
-- training is silent"): the setting gsu.progress (-1 off, the default; 0
-- every pass; else at most one report per interval) and gsu.training_info.
-- The reports' numbers (objective, norms, seconds) are in their DETAIL,
-- which VERBOSITY terse hides: only the pass lines are compared.  The
-- solvers with a fixed number of passes (pegasos: one per epoch, one for the
-- final objective) print every pass; the others are checked through the
-- history, which does not print a figure that BLAS could change.
CREATE EXTENSION IF NOT EXISTS pg_gsu;
CREATE SCHEMA test_progress;
SET search_path = test_progress, public;
\set SHOW_CONTEXT never

CREATE TABLE pr AS
SELECT i AS id,
	ARRAY[prand(i, 1) * 2 - 1 + CASE WHEN i % 2 = 0 THEN 0.8 ELSE -0.8 END, prand(i, 2) * 2 - 1]::float8[] AS mean,
	ARRAY[0.05 + 0.1 * prand(i, 3), 0.05]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 200) i;
-- two classes far apart (every fold's accuracy is 1)
CREATE TABLE pr_far AS
SELECT i AS id, ARRAY[prand(i, 1) + CASE WHEN i % 2 = 0 THEN 3 ELSE -3 END, prand(i, 2)]::float8[] AS mean,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 100) i;
-- three separated classes
CREATE TABLE pr3 AS
SELECT i AS id, ARRAY[3 * cos(2.094 * (i % 3)) + prand(i, 4) - 0.5, 3 * sin(2.094 * (i % 3)) + prand(i, 5) - 0.5]::float8[] AS mean,
	i % 3 AS label
FROM generate_series(1, 150) i;

-- off by default: no report
SHOW gsu.progress;
SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 2}' ORDER BY id) IS NOT NULL AS trained FROM pr;

-- 0: every pass, one line each (the numbers in its DETAIL)
\set VERBOSITY terse
SET gsu.progress = 0;
SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 3}' ORDER BY id) IS NOT NULL AS trained FROM pr;
-- one-vs-rest: the class vector in the line
SELECT gsu.train(mean, NULL::float8[], label, '{"solver": "pegasos", "epochs": 1}' ORDER BY id) IS NOT NULL AS trained FROM pr3;
-- cross_validate's folds report under the same setting, with their trainings' passes
SELECT lambda, fold_count FROM gsu.cross_validate('pr_far', 'mean', NULL, 'label', ARRAY[0.1], 2, 1, '{"solver": "pegasos", "epochs": 1}');
-- an interval: at most one report per hour, so the first pass only
SET gsu.progress = '1h';
SHOW gsu.progress;
SELECT gsu.train(mean, variance, label ORDER BY id) IS NOT NULL AS trained FROM pr;
-- gsu.fit's scans report under the setting too: its sample, then its first
-- scan over the relation (the interval holds the others back), and its last
-- scan again with the result, which the interval never holds back
SELECT gsu.fit('pr', 'mean', 'variance', 'label') IS NOT NULL AS fitted;
-- off: none
SET gsu.progress = -1;
SET client_min_messages = notice;
SELECT gsu.fit('pr', 'mean', 'variance', 'label') IS NOT NULL AS fitted;
RESET client_min_messages;
\set VERBOSITY default

-- bad values
SELECT test_error('SET gsu.progress = -2');
SELECT test_error($$SET gsu.progress = 'often'$$);
RESET gsu.progress;

-- the history: every solver keeps one, whatever the setting
CREATE TABLE pr_models AS
SELECT name, m FROM (
	SELECT 'newton gsu' AS name, gsu.train(mean, variance, label ORDER BY id) AS m FROM pr
	UNION ALL SELECT 'newton hinge', gsu.train(mean, NULL::float8[], label, '{"loss": "hinge", "solver": "newton"}' ORDER BY id) FROM pr
	UNION ALL SELECT 'dcd', gsu.train(mean, NULL::float8[], label, '{"loss": "hinge", "solver": "dcd"}' ORDER BY id) FROM pr
	UNION ALL SELECT 'pegasos', gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 5}' ORDER BY id) FROM pr
	UNION ALL SELECT 'robust', gsu.train(mean, variance, label, '{"loss": "robust", "gamma": 0.5}' ORDER BY id) FROM pr
	UNION ALL SELECT 'tsvc', gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 2}' ORDER BY id) FROM pr
	UNION ALL SELECT 'tsvc alternating', gsu.train(mean, variance, label, '{"loss": "tsvc", "tsvc_algorithm": "alternating"}' ORDER BY id) FROM pr
	UNION ALL SELECT 'standardize', gsu.train(mean, variance, label, '{"standardize": true}' ORDER BY id) FROM pr
	UNION ALL SELECT 'rff', gsu.train(mean, NULL::float8[], label, '{"features": {"map": "rff", "dim": 20, "sigma": 1, "seed": 3}}' ORDER BY id) FROM pr
	UNION ALL SELECT 'multiclass', gsu.train(mean, NULL::float8[], label ORDER BY id) FROM pr3
	UNION ALL SELECT 'fit newton', gsu.fit('pr', 'mean', 'variance', 'label')
	UNION ALL SELECT 'fit lbfgs', gsu.fit('pr', 'mean', 'variance', 'label', '{"solver": "lbfgs"}')
) s;
-- per class vector: passes increasing (numbered by iterations, epochs for
-- dcd, rounds for tsvc's alternation); times not decreasing; the measures
-- NULL or not negative
SELECT name, class, count(*) > 0 AS kept, min(pass) >= 1 AS from_one,
	bool_and(pass > coalesce(prev_pass, 0)) AS increasing,
	bool_and(elapsed_ms >= coalesce(prev_ms, 0)) AS times_ordered,
	bool_and(coalesce(objective, 0) >= 0 AND coalesce(gradient_norm, 0) >= 0 AND coalesce(gap, 0) >= 0) AS measures_ok
FROM (SELECT name, t.*, lag(pass) OVER w AS prev_pass, lag(elapsed_ms) OVER w AS prev_ms
	  FROM pr_models, gsu.training_info(m) t WINDOW w AS (PARTITION BY name, class ORDER BY pass)) s
GROUP BY name, class ORDER BY name, class;
-- newton: the objective does not increase (a smaller smoothing lowers it
-- too), and its last entry is the model's objective with its estimated gap
SELECT name, bool_and(objective <= coalesce(prev, objective) * (1 + 1e-12)) AS not_increasing
FROM (SELECT name, t.objective, lag(t.objective) OVER (PARTITION BY name ORDER BY pass) AS prev
	  FROM pr_models, gsu.training_info(m) t WHERE name LIKE 'newton%') s
GROUP BY name ORDER BY name;
SELECT name, (SELECT objective FROM gsu.training_info(m) ORDER BY pass DESC LIMIT 1)
		= (gsu.describe(m)->'training'->>'objective')::float8 AS last_is_model,
	(SELECT gap IS NOT NULL FROM gsu.training_info(m) ORDER BY pass DESC LIMIT 1) AS last_has_gap
FROM pr_models WHERE name IN ('newton gsu', 'newton hinge', 'dcd') ORDER BY name;
-- gsu.fit's solver newton ends with its result as the last scan's entry
-- again: the last NOTICE and the history give gsu.describe's objective and
-- gap_estimate (the bound with the smoothing's part, not Newton's decrement
-- of the smoothed objective; issue 31), as the polished hinge does
SELECT name, t.objective = (gsu.describe(m)->'training'->>'objective')::float8 AS last_is_model,
	t.gap = (gsu.describe(m)->'training'->>'gap_estimate')::float8 AS gap_is_model
FROM (SELECT name, m FROM pr_models WHERE name = 'fit newton'
	  UNION ALL SELECT 'fit newton hinge', gsu.fit('pr', 'mean', NULL, 'label', '{"loss": "hinge"}')) s,
	LATERAL (SELECT * FROM gsu.training_info(m) ORDER BY pass DESC LIMIT 1) t
ORDER BY name;
-- pegasos: one entry per epoch (an estimate from the sampled rows) and one
-- for the final objective, the only one with a gradient norm
SELECT pass, objective IS NOT NULL AS objective, gradient_norm IS NOT NULL AS gradient_norm, gap IS NULL AS no_gap
FROM pr_models, gsu.training_info(m) WHERE name = 'pegasos' ORDER BY pass;
-- at most 64 entries a class vector: the first 32 and the last 32 passes
SELECT count(*), min(pass), max(pass), array_agg(pass ORDER BY pass) FILTER (WHERE pass BETWEEN 30 AND 72) AS around_the_gap
FROM gsu.training_info((SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 100}' ORDER BY id) FROM pr));
-- streaming sgd trains in the transition function: no history
SELECT count(*) AS sgd_entries FROM gsu.training_info((SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) FROM pr));

-- the history is part of the value: text and binary round trips keep it
-- exactly (equality compares it, elapsed times included)
SELECT name, m::text::gsu.model OPERATOR(gsu.=) m AS text_same,
	gsu.model_send(m::jsonb::gsu.model) = gsu.model_send(m) AS jsonb_same,
	jsonb_array_length(m::jsonb->'history') AS vectors,
	gsu.describe(m) ? 'history' AS in_describe
FROM pr_models ORDER BY name;
CREATE TABLE pr_recv (m gsu.model);
CREATE FUNCTION pr_recv_model(b bytea) RETURNS gsu.model LANGUAGE plpgsql AS $$
DECLARE
	r gsu.model;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('progress'));
	TRUNCATE pr_recv;
	EXECUTE format('COPY pr_recv FROM %L (FORMAT binary)', public.regress_file('progress'));
	SELECT m INTO r FROM pr_recv;
	RETURN r;
END
$$;
SELECT name, pr_recv_model(gsu.model_send(m)) OPERATOR(gsu.=) m AS binary_same FROM pr_models ORDER BY name;

-- a model of an earlier format (no history) loads, scores and has no rows
SELECT count(*) AS old_entries FROM gsu.training_info('{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5}');
SELECT gsu.decision('{"format": 4, "dim": 2, "weights": [1, 2], "bias": 0.5}', ARRAY[1, 1]::float8[]) AS old_scores;
-- a written history
SELECT class, pass, objective, gradient_norm, gap, elapsed_ms FROM gsu.training_info(
	'{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, 0.5, null, null, 0], [3, 0.25, 0.1, 0.01, 2.5]]]}');

-- malformed histories
SELECT test_error($$SELECT '{"format": 4, "dim": 1, "weights": [1], "bias": 0, "history": [[]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[], []]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": {"a": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, 0.5, null, null]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, "a", null, null, 0]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[2, 0.5, null, null, 0], [2, 0.5, null, null, 0]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[0, 0.5, null, null, 0]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1.5, 0.5, null, null, 0]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, -0.5, null, null, 0]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, 0.5, null, null, -1]]]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, 0.5, null, null, null]]]}'::gsu.model$$);
SELECT test_error(format('SELECT %L::gsu.model', json_build_object('format', 5, 'dim', 1, 'weights', ARRAY[1], 'bias', 0,
	'history', json_build_array((SELECT json_agg(json_build_array(i, 1, null, null, 0)) FROM generate_series(1, 65) i)))));
-- hostile binary values: the history's length is what the value leaves, checked entry by entry
CREATE TABLE pr_wire AS SELECT gsu.model_send('{"format": 5, "dim": 1, "weights": [1], "bias": 0, "history": [[[1, 0.5, null, null, 0]]]}') AS b;
SELECT length(b) AS bytes FROM pr_wire;
SELECT gsu.model_send(pr_recv_model(b)) = b AS same FROM pr_wire;
SELECT test_error($$SELECT pr_recv_model(substr(b, 1, length(b) - 8)) FROM pr_wire$$);
SELECT test_error($$SELECT pr_recv_model(substr(b, 1, length(b) - 40)) FROM pr_wire$$);
SELECT test_error($$SELECT pr_recv_model(b || '\x0000000000000000'::bytea) FROM pr_wire$$);
SELECT test_error($$SELECT pr_recv_model(overlay(b placing '\x4000000000000000'::bytea from length(b) - 47 for 8)) FROM pr_wire$$);
SELECT test_error($$SELECT pr_recv_model(overlay(b placing '\x7ff8000000000000'::bytea from length(b) - 7 for 8)) FROM pr_wire$$);

DROP SCHEMA test_progress CASCADE;
