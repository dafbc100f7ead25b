-- Options of gsu.train that the other files do not cover: the "init" warm
-- start, the check that every row of a group has the same options (also
-- under a parallel plan, where it once crashed the server), covariance
-- levels mixed in one group, and subspace_fraction.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_options;
SET search_path = test_options, public;

-- the objective λ/2‖w‖² + mean loss over pts, through gsu.expected_loss
CREATE FUNCTION pts_objective(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(m, mean, coalesce(variance, '{0,0,0}'), label))
	FROM pts
$$;
-- relative difference of two weight vectors (with the bias appended)
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
CREATE FUNCTION same(a gsu.model, b gsu.model) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b)
$$;
CREATE FUNCTION training(m gsu.model, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>key)::float8
$$;
CREATE FUNCTION accuracy(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT avg((gsu.predict(m, mean) = label)::int) FROM pts
$$;
CREATE FUNCTION diag_matrix(v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT ARRAY[[v[1], 0, 0], [0, v[2], 0], [0, 0, v[3]]]
$$;
-- v with every element but the largest (the first of equal ones) set to 0
CREATE FUNCTION top_axis(v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT array_agg(CASE WHEN i = (SELECT i FROM unnest(v) WITH ORDINALITY u(x, i) ORDER BY x DESC, i LIMIT 1) THEN x ELSE 0 END ORDER BY i)
	FROM unnest(v) WITH ORDINALITY u(x, i)
$$;
SELECT top_axis('{0.1,0.6,0.3}') AS one, top_axis('{0.5,0.5,0.1}') AS tie, top_axis('{0,0,0}') AS zero;

-- ------------------------------------------------------------ "init"

-- sgd: a warm start continues the pass, its step count too: iterations = previous iterations + rows
CREATE TABLE sgd AS SELECT 1 AS pass, gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) AS m FROM pts;
INSERT INTO sgd SELECT 2, gsu.train(mean, variance, label, jsonb_build_object('solver', 'sgd', 'init', (SELECT m FROM sgd WHERE pass = 1)::jsonb) ORDER BY id) FROM pts;
INSERT INTO sgd SELECT 3, gsu.train(mean, variance, label, jsonb_build_object('solver', 'sgd', 'init', (SELECT m FROM sgd WHERE pass = 2)::jsonb) ORDER BY id) FROM pts;
SELECT pass, training(m, 'iterations') AS iterations, training(m, 'rows') AS rows, training(m, 'passes') AS passes FROM sgd ORDER BY pass;
-- each pass lowers the objective on pts
SELECT b.pass, pts_objective(b.m) < pts_objective(a.m) AS lower FROM sgd a JOIN sgd b ON b.pass = a.pass + 1 ORDER BY b.pass;
-- two passes with a warm start are one pass over the rows twice, to the bit
SELECT same(s.m, t.m) AS same
FROM sgd s, (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY k, id) m
	FROM (SELECT 1 AS k, * FROM pts UNION ALL SELECT 2, * FROM pts) u) t WHERE s.pass = 2;
-- gsu.train_sgd (the state is a gsu.partial) warm-starts the same way
SELECT same(s.m, t.m) AS same, training(t.m, 'iterations') AS iterations
FROM sgd s, (SELECT gsu.train_sgd(mean, variance, label, jsonb_build_object('init', (SELECT m FROM sgd WHERE pass = 1)::jsonb) ORDER BY id) m FROM pts) t
WHERE s.pass = 2;
-- a hand-written init without training statistics starts at step 1
SELECT same(a, b) AS same
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "init": {"format": 1, "dim": 3, "weights": [0, 0, 0], "bias": 0}}' ORDER BY id) a,
	gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) b FROM pts) s;

-- newton: starts from init and reaches the same optimum, from the optimum or from far away
CREATE TABLE newton AS SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM pts;
SELECT rel_diff(w, n.m) < 1e-9 AS same_optimum, (gsu.describe(w)->'training'->>'converged')::bool AS converged,
	training(w, 'iterations') <= training(n.m, 'iterations') AS no_more_iterations
FROM newton n, (SELECT gsu.train(mean, variance, label, jsonb_build_object('init', (SELECT m FROM newton)::jsonb) ORDER BY id) w FROM pts) s;
SELECT rel_diff(w, n.m) < 1e-6 AS same_optimum
FROM newton n, (SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [5, -5, 5], "bias": 3}}' ORDER BY id) w FROM pts) s;
SELECT rel_diff(w, n) < 1e-6 AS same_optimum
FROM (SELECT gsu.train(mean, variance, label, '{"loss": "hinge"}' ORDER BY id) n,
	gsu.train(mean, variance, label, '{"loss": "hinge", "init": {"format": 1, "dim": 3, "weights": [-1, 2, 0], "bias": -1}}' ORDER BY id) w FROM pts) s;
-- pegasos: the first step starts from init (one step of a full batch differs), and it ends near newton's optimum
SELECT NOT same(a, b) AS first_step_differs
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 1, "batch_size": 400}' ORDER BY id) a,
	gsu.train(mean, variance, label, jsonb_build_object('solver', 'pegasos', 'epochs', 1, 'batch_size', 400, 'init', (SELECT m FROM newton)::jsonb) ORDER BY id) b
	FROM pts) s;
SELECT accuracy(w) > 0.8 AS accurate, pts_objective(w) < 1.2 * pts_objective(n.m) AS near_optimum
FROM newton n, (SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', 'pegasos', 'init', (SELECT m FROM newton)::jsonb) ORDER BY id) w FROM pts) s;
-- "init": null is no init
SELECT same(a, b) AS same FROM (SELECT gsu.train(mean, variance, label, '{"init": null}' ORDER BY id) a, gsu.train(mean, variance, label ORDER BY id) b FROM pts) s;
-- the model's other fields do not matter: a calibrated hinge model with other hyper-parameters is a starting point too
SELECT rel_diff(w, n.m) < 1e-9 AS same_optimum
FROM newton n, (SELECT gsu.train(mean, variance, label, jsonb_build_object('init', jsonb_set(jsonb_set((SELECT m FROM newton)::jsonb,
	'{loss}', '"hinge"'), '{calibration}', '{"a": -2, "b": 0}')) ORDER BY id) w FROM pts) s;

-- init of the wrong dimension, or not a valid model
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 2, "weights": [1, 2], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "init": {"format": 1, "dim": 4, "weights": [1, 2, 3, 4], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "init": {"format": 1, "dim": 1, "weights": [1], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"init": {"format": 1, "dim": 2, "weights": [1, 2], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, 2], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, 2, 3]}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, "NaN", 3], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, 1e999, 3], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 6, "dim": 3, "weights": [1, 2, 3], "bias": 0}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, 2, 3], "bias": 0, "extra": 1}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1, "dim": 3, "weights": [1, 2, 3], "bias": 0, "training": {"rows": -1}}}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": [1, 2, 3, 0]}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": "{\"format\": 1}"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": 0}') FROM pts$$);
-- an init is checked even when no row reaches the dimension check
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"init": {"format": 1}}') FROM pts WHERE id = 1$$);

-- ------------------------------------------------------------ the same options for every row

SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 7 THEN '{"lambda": 0.01}'::jsonb ELSE '{}' END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 1 THEN '{"lambda": 0.01}'::jsonb ELSE '{}' END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 7 THEN '{"solver": "sgd"}'::jsonb ELSE '{}' END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 400 THEN '{"solver": "sgd", "seed": 2}'::jsonb ELSE '{"solver": "sgd"}' END ORDER BY id) FROM pts$$);
-- NULL against non-NULL, both ways round, in every overload
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 7 THEN NULL ELSE '{}'::jsonb END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 1 THEN NULL ELSE '{}'::jsonb END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, 0.5, label, CASE WHEN id = 1 THEN NULL ELSE '{}'::jsonb END ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label > 0, CASE WHEN id = 400 THEN NULL ELSE '{"solver": "sgd"}'::jsonb END ORDER BY id) FROM pts$$);
-- different init models
SELECT test_error($$SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', 'sgd', 'init', jsonb_build_object('format', 1, 'dim', 3,
	'weights', ARRAY[id % 2, 0, 0], 'bias', 0)) ORDER BY id) FROM pts$$);
-- the difference is found before the options are checked
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id = 7 THEN '{"lambda": -1}'::jsonb ELSE '{}' END ORDER BY id) FROM pts$$);
-- the same options written with the keys in another order are the same jsonb value
SELECT same(a, b) AS same
FROM (SELECT gsu.train(mean, variance, label, CASE WHEN id % 2 = 0 THEN '{"lambda": 0.01, "loss": "hinge"}'::jsonb
	ELSE '{"loss": "hinge", "lambda": 0.01}' END ORDER BY id) a, gsu.train(mean, variance, label, '{"loss": "hinge", "lambda": 0.01}' ORDER BY id) b FROM pts) s;
-- options computed per row, all equal
SELECT same(a, b) AS same
FROM (SELECT gsu.train(mean, variance, label, jsonb_build_object('lambda', 0.01 + 0 * id) ORDER BY id) a,
	gsu.train(mean, variance, label, '{"lambda": 0.01}' ORDER BY id) b FROM pts) s;
-- options may differ between groups
SELECT id % 2 AS g, gsu.describe(gsu.train(mean, variance, CASE WHEN id % 4 < 2 THEN 1 ELSE -1 END,
	CASE WHEN id % 2 = 0 THEN '{"lambda": 0.5}'::jsonb ELSE '{"solver": "sgd"}' END))->'hyperparameters'->>'solver' AS solver
FROM pts GROUP BY id % 2 ORDER BY 1;
-- rows skipped for a NULL mean or label do not count, whatever their options
SELECT same(a, b) AS same
FROM (SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}' ORDER BY id) a FROM pts) s1,
	(SELECT gsu.train(mean, variance, label, o ORDER BY id) b
	 FROM (SELECT id, mean, variance, label, '{"lambda": 0.01}'::jsonb AS o FROM pts
		UNION ALL SELECT 0, NULL, NULL, 1, '{"solver": "sgd"}'
		UNION ALL SELECT 1000, '{1,2,3}', NULL, NULL, NULL) u) s2;

-- ------------------------------------------------------------ covariance levels mixed in a group

-- rows with a full covariance among diagonal ones, and isotropic ones as diagonals: the same model
-- as all-diagonal rows, for every solver (sgd to the bit: it takes no rounding-sensitive decisions)
CREATE TABLE mixed AS
SELECT id, mean, variance, CASE WHEN id % 3 = 0 THEN diag_matrix(variance) ELSE variance END AS mixed, label FROM pts;
SELECT o AS options, rel_diff(a, b) < 1e-9 AS same
FROM unnest(ARRAY['{}', '{"solver": "pegasos"}', '{"loss": "hinge"}', '{"subspace_fraction": 0.5}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, mixed, label, o ORDER BY id) a, gsu.train(mean, variance, label, o ORDER BY id) b FROM mixed) s;
SELECT rel_diff(a, b) < 1e-12 AS same
FROM (SELECT gsu.train(mean, mixed, label, '{"solver": "sgd"}' ORDER BY id) a, gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) b FROM mixed) s;
-- a full row first, then only diagonal ones; and only the last row full
SELECT rel_diff(a, b) < 1e-9 AS same
FROM (SELECT gsu.train(mean, CASE WHEN id = 1 THEN diag_matrix(variance) ELSE variance END, label ORDER BY id) a,
	gsu.train(mean, variance, label ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-9 AS same
FROM (SELECT gsu.train(mean, CASE WHEN id = 400 THEN diag_matrix(variance) ELSE variance END, label ORDER BY id) a,
	gsu.train(mean, variance, label ORDER BY id) b FROM pts) s;
-- a correlated full covariance on some rows changes the model
SELECT rel_diff(a, b) > 1e-3 AS differs
FROM (SELECT gsu.train(mean, CASE WHEN id % 3 = 0 THEN '{{0.8,0.4,0},{0.4,0.2,0},{0,0,0}}' ELSE variance END, label) a,
	gsu.train(mean, variance, label) b FROM pts) s;
-- a full covariance of the wrong shape, or not symmetric, among diagonal rows
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id = 9 THEN '{{1,0},{0,1}}' ELSE variance END, label ORDER BY id) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id = 9 THEN '{{1,0.5,0},{0,1,0},{0,0,1}}' ELSE variance END, label ORDER BY id) FROM pts$$);

-- ------------------------------------------------------------ subspace_fraction

-- p = 1 is no option
SELECT o AS options, same(a, b) AS same
FROM unnest(ARRAY['{}', '{"solver": "sgd"}', '{"solver": "pegasos"}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, variance, label, o || '{"subspace_fraction": 1}' ORDER BY id) a, gsu.train(mean, variance, label, o ORDER BY id) b FROM pts) s;
SELECT same(a, b) AS same FROM (SELECT gsu.train(mean, diag_matrix(variance), label, '{"subspace_fraction": 1}' ORDER BY id) a,
	gsu.train(mean, diag_matrix(variance), label ORDER BY id) b FROM pts) s;
-- p small keeps only the largest-variance axis.  Mode covariance (the means are
-- kept; mode gaussian, the default, is tested in subspace.sql): the same model as
-- variances with the other axes zeroed by hand
SELECT o AS options, same(a, b) AS same
FROM unnest(ARRAY['{}', '{"solver": "sgd"}', '{"solver": "pegasos"}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, variance, label, o || '{"subspace_fraction": 0.01, "subspace_mode": "covariance"}' ORDER BY id) a,
		gsu.train(mean, top_axis(variance), label, o ORDER BY id) b FROM pts) s;
-- ... for full rows too (the eigenvectors of a diagonal matrix are the axes)
SELECT same(a, b) AS same FROM (SELECT gsu.train(mean, diag_matrix(variance), label, '{"subspace_fraction": 0.01, "subspace_mode": "covariance"}' ORDER BY id) a,
	gsu.train(mean, diag_matrix(top_axis(variance)), label ORDER BY id) b FROM pts) s;
-- ... for a mix of full and diagonal rows
SELECT rel_diff(a, b) < 1e-12 AS same FROM (SELECT gsu.train(mean, mixed, label, '{"subspace_fraction": 0.01, "subspace_mode": "covariance"}' ORDER BY id) a,
	gsu.train(mean, top_axis(variance), label ORDER BY id) b FROM mixed) s;
-- ... for an isotropic variance s·I (equal eigenvalues: the first axis is kept)
SELECT same(a, b) AS same FROM (SELECT gsu.train(mean, 0.3, label, '{"subspace_fraction": 0.01, "subspace_mode": "covariance"}' ORDER BY id) a,
	gsu.train(mean, '{0.3,0,0}'::float8[], label ORDER BY id) b FROM pts) s;
-- ... and for a correlated full covariance 0.5·uuᵀ + 0.1·vvᵀ, u = (0.6, 0.8, 0), v = (-0.8, 0.6, 0): 0.5·uuᵀ remains
SELECT rel_diff(a, b) < 1e-12 AS same
FROM (SELECT gsu.train(mean, '{{0.244,0.192,0},{0.192,0.356,0},{0,0,0}}'::float8[], label, '{"subspace_fraction": 0.01, "subspace_mode": "covariance"}' ORDER BY id) a,
	gsu.train(mean, '{{0.18,0.24,0},{0.24,0.32,0},{0,0,0}}'::float8[], label ORDER BY id) b FROM pts) s;
-- intermediate p: the fewest largest axes that carry p of the trace of (0.1, 0.6, 0.3)
SELECT p, same(a, b) AS same
FROM (VALUES (0.5, '{0,0.6,0}'::float8[]), (0.6, '{0,0.6,0}'), (0.8, '{0,0.6,0.3}'), (0.9, '{0,0.6,0.3}'), (0.95, '{0.1,0.6,0.3}')) v(p, kept),
	LATERAL (SELECT gsu.train(mean, '{0.1,0.6,0.3}'::float8[], label, jsonb_build_object('subspace_fraction', p, 'subspace_mode', 'covariance') ORDER BY id) a,
		gsu.train(mean, kept, label ORDER BY id) b FROM pts) s ORDER BY p;
-- the model records p; the hinge loss ignores it
SELECT gsu.describe(gsu.train(mean, variance, label, '{"subspace_fraction": 0.25}'))->'hyperparameters'->'subspace_fraction' AS p FROM pts;
SELECT same(a, b) AS same FROM (SELECT gsu.train(mean, variance, label, '{"loss": "hinge", "subspace_fraction": 0.01}' ORDER BY id) a,
	gsu.train(mean, variance, label, '{"loss": "hinge"}' ORDER BY id) b FROM pts) s;
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 1.01}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"subspace_fraction": "half"}') FROM pts$$);

-- ------------------------------------------------------------ parallel plans

-- 20000 rows like pts; rows carrying different options under a parallel plan give an error, not a crash
-- (each worker may see one kind of options only, so the combine function must compare them)
CREATE TABLE big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	CASE WHEN i % 10 = 0 THEN NULL
		 ELSE ARRAY[0.05 + 0.5 * prand(i, 4), 0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6)] END AS variance,
	l AS label
FROM generate_series(1, 20000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;
-- the same rows in two partitions that are not scanned in parallel: each worker takes one partition
CREATE TABLE big_parts (id int, mean float8[], variance float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE big_parts_1 PARTITION OF big_parts FOR VALUES FROM (MINVALUE) TO (10001) WITH (parallel_workers = 0);
CREATE TABLE big_parts_2 PARTITION OF big_parts FOR VALUES FROM (10001) TO (MAXVALUE) WITH (parallel_workers = 0);
INSERT INTO big_parts SELECT * FROM big;
ANALYZE big_parts;
-- serial models
CREATE TABLE serial AS
SELECT gsu.train(mean, variance, label) AS newton,
	gsu.train(mean, CASE WHEN id % 3 = 0 THEN diag_matrix(variance) ELSE variance END, label) AS mixed,
	gsu.train(mean, CASE WHEN id > 10000 THEN diag_matrix(variance) ELSE variance END, label) AS halves,
	gsu.train(mean, variance, label, '{"subspace_fraction": 0.01}') AS subspace
FROM big;
SET parallel_setup_cost = 0;
SET gsu.parallel_training = on;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label, CASE WHEN (ctid::text::point)[0]::int % 2 = 0 THEN '{"solver":"sgd"}'::jsonb ELSE '{}' END) FROM big;
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN (ctid::text::point)[0]::int % 2 = 0 THEN '{"solver":"sgd"}'::jsonb ELSE '{}' END) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN (ctid::text::point)[0]::int % 2 = 0 THEN '{}'::jsonb ELSE '{"solver":"sgd"}' END) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN (ctid::text::point)[0]::int % 2 = 0 THEN '{"lambda": 0.01}'::jsonb ELSE '{}' END) FROM big$$);
SET enable_partitionwise_aggregate = off;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{"solver":"sgd"}'::jsonb ELSE '{}' END) FROM big_parts;
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{"solver":"sgd"}'::jsonb ELSE '{}' END) FROM big_parts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{}'::jsonb ELSE '{"solver":"sgd"}' END) FROM big_parts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{"solver":"sgd", "lambda": 0.01}'::jsonb ELSE '{"solver":"sgd"}' END) FROM big_parts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{"tolerance": 0.01}'::jsonb ELSE '{}' END) FROM big_parts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN id <= 10000 THEN '{"solver":"sgd", "init": {"format": 1, "dim": 3, "weights": [1, 1, 1], "bias": 0, "training": {"iterations": 5}}}'::jsonb ELSE '{"solver":"sgd"}' END) FROM big_parts$$);
-- the server is still up
SELECT 1 AS alive;
-- states at different covariance levels combine: the parallel models are the serial ones
SELECT rel_diff(s.newton, p.m) < 1e-6 AS newton FROM serial s, (SELECT gsu.train(mean, variance, label) m FROM big) p;
SELECT rel_diff(s.mixed, p.m) < 1e-6 AS mixed
FROM serial s, (SELECT gsu.train(mean, CASE WHEN id % 3 = 0 THEN diag_matrix(variance) ELSE variance END, label) m FROM big) p;
SELECT rel_diff(s.halves, p.m) < 1e-6 AS halves
FROM serial s, (SELECT gsu.train(mean, CASE WHEN id > 10000 THEN diag_matrix(variance) ELSE variance END, label) m FROM big_parts) p;
SELECT rel_diff(s.subspace, p.m) < 1e-6 AS subspace
FROM serial s, (SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0.01}') m FROM big_parts) p;
-- an sgd warm start in parallel: every worker starts from the init model
SELECT training(m, 'iterations') AS iterations, accuracy(m) > 0.8 AS accurate
FROM (SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', 'sgd', 'init', (SELECT m FROM sgd WHERE pass = 1)::jsonb)) m FROM big_parts) s;
RESET enable_partitionwise_aggregate;
RESET parallel_setup_cost;
RESET gsu.parallel_training;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- the hinge loss's default solver is dcd (dual coordinate descent with the exact finish);
-- newton stays selectable and reaches the same optimum; dcd solves the hinge loss only
SELECT gsu.describe(m) #>> '{hyperparameters,solver}' AS solver, gsu.describe(m) #>> '{training,converged}' AS converged
FROM (SELECT gsu.train(mean, NULL::float8[], label, '{"loss": "hinge"}') AS m FROM pts) s;
SELECT abs((gsu.describe(d) #>> '{training,objective}')::float8 - (gsu.describe(n) #>> '{training,objective}')::float8)
	<= 1e-9 * (gsu.describe(n) #>> '{training,objective}')::float8 AS same_optimum,
	gsu.describe(n) #>> '{hyperparameters,solver}' AS explicit
FROM (SELECT gsu.train(mean, NULL::float8[], label, '{"loss": "hinge"}') AS d,
	gsu.train(mean, NULL::float8[], label, '{"loss": "hinge", "solver": "newton"}') AS n FROM pts) s;
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "dcd"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "robust", "solver": "dcd"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"loss": "hinge", "solver": "dcd"}') FROM pts$$);
