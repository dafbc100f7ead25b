-- Weights: gsu.train's per-row weight overload and its "class_weight" option.
-- The objective is λ/2‖w‖² + (1/W) Σ c_i L_i with W = Σ c_i, so an integer
-- weight k is k copies of the row, weight 0 (or NULL) removes it and scaling
-- every weight changes nothing.  Models are compared through their relative
-- difference, printed as a boolean.
\set SHOW_CONTEXT never
CREATE SCHEMA test_class_weight;
SET search_path = test_class_weight, public;

CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;

-- imb: every negative row of pts and one positive in four (200 vs 50 rows);
-- k in 1..3 is an integer weight, dup holds k copies of each row
CREATE TABLE imb AS
SELECT id, mean, variance, label, 1 + id % 3 AS k FROM pts WHERE label = -1 OR id % 8 = 2;
CREATE TABLE dup AS SELECT imb.* FROM imb, generate_series(1, imb.k) g;
SELECT label, count(*) AS rows, sum(k) AS weight FROM imb GROUP BY label ORDER BY label;
SELECT count(*) FROM dup;

-- the minority (label 1) recall of a model on imb
CREATE FUNCTION recall(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT avg((gsu.predict(m, mean) = 1)::int) FROM imb WHERE label = 1
$$;

-- ------------------------------------------------ row weights
-- an integer weight k gives the model of k copies of the row (both losses;
-- the hinge optimum is exact, so it agrees to rounding)
SELECT l.loss,
	rel_diff((SELECT gsu.train(mean, variance, label, k::float8, jsonb_build_object('loss', l.loss)) FROM imb),
			 (SELECT gsu.train(mean, variance, label, jsonb_build_object('loss', l.loss)) FROM dup)) < 1e-6 AS same_as_copies
FROM (VALUES ('gsu'), ('hinge')) l(loss) ORDER BY l.loss;
-- the same with a full covariance per row
SELECT rel_diff((SELECT gsu.train(mean, CASE WHEN variance IS NULL THEN NULL ELSE
					ARRAY[[variance[1], 0.01, 0], [0.01, variance[2], 0], [0, 0, variance[3]]] END,
					label, k::float8, '{}') FROM imb),
				(SELECT gsu.train(mean, CASE WHEN variance IS NULL THEN NULL ELSE
					ARRAY[[variance[1], 0.01, 0], [0.01, variance[2], 0], [0, 0, variance[3]]] END,
					label) FROM dup)) < 1e-6 AS full_same_as_copies;
-- scaling every weight by a constant changes nothing
SELECT rel_diff((SELECT gsu.train(mean, variance, label, 2.5 * k, '{}') FROM imb),
				(SELECT gsu.train(mean, variance, label, k::float8, '{}') FROM imb)) < 1e-6 AS scale_free;
-- all weights 1 is the unweighted model exactly
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS ones_exact
FROM (SELECT gsu.train(mean, variance, label, 1.0, '{}') AS a, gsu.train(mean, variance, label, '{}') AS b FROM imb) t;
-- weight 0 and NULL weight skip the row: the model and its row count are those without it
SELECT rel_diff((SELECT gsu.train(mean, variance, label, CASE WHEN id % 5 = 0 THEN 0 ELSE 1 END, '{}') FROM imb),
				(SELECT gsu.train(mean, variance, label, '{}') FROM imb WHERE id % 5 <> 0)) < 1e-9 AS zero_removes,
	rel_diff((SELECT gsu.train(mean, variance, label, CASE WHEN id % 5 = 0 THEN NULL ELSE 1 END, '{}') FROM imb),
			 (SELECT gsu.train(mean, variance, label, '{}') FROM imb WHERE id % 5 <> 0)) < 1e-9 AS null_removes,
	(SELECT gsu.describe(gsu.train(mean, variance, label, CASE WHEN id % 5 = 0 THEN 0 ELSE 1 END, '{}'))->'training'->'rows'
	 FROM imb) AS rows,
	(SELECT count(*) FROM imb WHERE id % 5 <> 0) AS rows_expected;
-- the reported objective is the weighted one, (1/W) Σ k_i L_i + λ/2‖w‖²
SELECT abs((gsu.describe(m)->'training'->>'objective')::float8 -
		   (0.5 * 1e-3 * (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
			+ (SELECT sum(k * gsu.expected_loss(m, mean, coalesce(variance, '{0,0,0}'), label)) / sum(k) FROM imb)))
	< 1e-9 AS objective_weighted
FROM (SELECT gsu.train(mean, variance, label, k::float8, '{"lambda": 1e-3}') AS m FROM imb) t;
-- pegasos (50 epochs) and sgd (one pass) take weights too: both come within
-- 10% of newton's weighted objective
WITH m AS (
	SELECT s.solver, (SELECT gsu.train(mean, variance, label, k::float8,
			jsonb_build_object('solver', s.solver, 'epochs', 50, 'lambda', 0.1) ORDER BY id) FROM imb) AS m
	FROM (VALUES ('newton'), ('pegasos'), ('sgd')) s(solver))
SELECT solver, ((SELECT sum(k * gsu.expected_loss(m, mean, coalesce(variance, '{0,0,0}'), label)) / sum(k) FROM imb)
	+ 0.5 * 0.1 * (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w))
	<= 1.1 * (SELECT (gsu.describe(m)->'training'->>'objective')::float8 FROM m WHERE solver = 'newton') AS near_optimum
FROM m ORDER BY solver;

-- ------------------------------------------------ class weights
-- an explicit class weight is the row weight of every row of that class
SELECT rel_diff((SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 3}}') FROM imb),
				(SELECT gsu.train(mean, variance, label, CASE WHEN label = 1 THEN 3 ELSE 1 END, '{}') FROM imb))
	< 1e-9 AS class_is_row_weight;
-- class and row weights multiply
SELECT rel_diff((SELECT gsu.train(mean, variance, label, k::float8, '{"class_weight": {"1": 2, "-1": 0.5}}') FROM imb),
				(SELECT gsu.train(mean, variance, label, k * CASE WHEN label = 1 THEN 2 ELSE 0.5 END, '{}') FROM imb))
	< 1e-9 AS weights_multiply;
-- "balanced" is n / (K n_c): here 250 / (2·200) and 250 / (2·50)
SELECT rel_diff((SELECT gsu.train(mean, variance, label, '{"class_weight": "balanced"}') FROM imb),
				(SELECT gsu.train(mean, variance, label, '{"class_weight": {"-1": 0.625, "1": 2.5}}') FROM imb))
	< 1e-9 AS balanced_definition;
-- "balanced" counts rows, not their weights
SELECT rel_diff((SELECT gsu.train(mean, variance, label, k::float8, '{"class_weight": "balanced"}') FROM imb),
				(SELECT gsu.train(mean, variance, label, k::float8, '{"class_weight": {"-1": 0.625, "1": 2.5}}') FROM imb))
	< 1e-9 AS balanced_counts_rows;
-- on the imbalanced set, "balanced" raises the minority class's recall (for
-- every solver, with a lambda pegasos reaches in 10 epochs; sgd takes
-- explicit class weights only)
SELECT s.solver,
	recall((SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', s.solver, 'lambda', 0.01, 'class_weight',
		CASE WHEN s.solver = 'sgd' THEN '{"-1": 0.625, "1": 2.5}'::jsonb ELSE '"balanced"' END) ORDER BY id) FROM imb))
	> recall((SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', s.solver, 'lambda', 0.01) ORDER BY id) FROM imb))
	AS recall_raised
FROM (VALUES ('newton'), ('pegasos'), ('sgd')) s(solver) ORDER BY s.solver;
SELECT round(recall(gsu.train(mean, variance, label, '{}'))::numeric, 1) AS plain_recall_about,
	recall(gsu.train(mean, variance, label, '{"class_weight": "balanced"}')) > 0.8 AS balanced_recall_high
FROM imb;
-- null means no class weights; an empty object weighs every class 1
SELECT gsu.weights(a) = gsu.weights(c) AND gsu.bias(a) = gsu.bias(c) AS null_none,
	gsu.weights(b) = gsu.weights(c) AND gsu.bias(b) = gsu.bias(c) AS empty_none
FROM (SELECT gsu.train(mean, variance, label, '{"class_weight": null}') AS a,
		gsu.train(mean, variance, label, '{"class_weight": {}}') AS b,
		gsu.train(mean, variance, label) AS c FROM imb) t;
-- gsu.train_best passes the option on
SET client_min_messages = warning;
SELECT rel_diff(gsu.train_best('imb', 'mean', 'variance', 'label', ARRAY[1e-3], options => '{"class_weight": "balanced"}'),
				(SELECT gsu.train(mean, variance, label, '{"lambda": 1e-3, "class_weight": "balanced"}') FROM imb)) < 1e-6
	AS train_best_balanced;
RESET client_min_messages;

-- the applied class weights are stored in the model, one per class
SELECT gsu.describe(gsu.train(mean, variance, label, '{}'))->'class_weight' AS none,
	gsu.describe(gsu.train(mean, variance, label, '{"class_weight": "balanced"}'))->'class_weight' AS balanced,
	gsu.describe(gsu.train(mean, variance, label, '{"class_weight": {"1": 4}}'))->'class_weight' AS explicit,
	gsu.describe(gsu.train(mean, variance, label, '{"solver": "sgd", "class_weight": {"-1": 0.5}}'))->'class_weight' AS sgd
FROM imb;

-- ------------------------------------------------ more than two classes
-- tri: labels 0 (200 rows), 5 and 9 (50 each); k in 1..2; tridup: k copies
CREATE TABLE tri AS
SELECT i AS id, ARRAY[c[1] + 0.8 * pnorm(i, 1), c[2] + 0.8 * pnorm(i, 2)] AS mean,
	ARRAY[0.05 + 0.1 * prand(i, 3), 0.05 + 0.1 * prand(i, 4)] AS variance, label, 1 + i % 2 AS k
FROM generate_series(1, 300) i,
	LATERAL (SELECT CASE WHEN i % 6 = 0 THEN 9 WHEN i % 3 = 0 THEN 5 ELSE 0 END AS label) l,
	LATERAL (SELECT CASE l.label WHEN 0 THEN ARRAY[0.0, 0.0] WHEN 5 THEN ARRAY[1.5, 0.0]
							   ELSE ARRAY[0.0, 1.5] END AS c) cc;
CREATE TABLE tridup AS SELECT tri.* FROM tri, generate_series(1, tri.k) g;
SELECT label, count(*) FROM tri GROUP BY label ORDER BY label;
-- the largest relative difference of two models' per-class classifiers
CREATE FUNCTION rel_diff_classes(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max((SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
				FROM unnest(gsu.weights(a, c) || gsu.bias(a, c), gsu.weights(b, c) || gsu.bias(b, c)) u(x, y)))
	FROM unnest(gsu.classes(a)) c
$$;
-- the mean recall of the two small classes
CREATE FUNCTION minority_recall(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT avg((gsu.predict(m, mean) = label)::int) FROM tri WHERE label <> 0
$$;
-- weights k are k copies in every one-vs-rest problem; balanced is n / (K n_c) by label
SELECT rel_diff_classes((SELECT gsu.train(mean, variance, label, k::float8, '{"lambda": 0.01}') FROM tri),
						(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') FROM tridup)) < 1e-6 AS same_as_copies,
	gsu.describe(b)->'class_weight' AS balanced_weights,
	rel_diff_classes(b, (SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "class_weight": {"0": 0.5, "5": 2, "9": 2}}') FROM tri)) < 1e-9 AS balanced_definition,
	minority_recall(b) > minority_recall((SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') FROM tri)) AS minority_recall_raised
FROM (SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "class_weight": "balanced"}') AS b FROM tri) t;
-- each one-vs-rest problem is the two-class training with the same row weights
SELECT rel_diff((SELECT gsu.train(mean, variance, CASE WHEN label = 9 THEN 1 ELSE -1 END,
					CASE label WHEN 9 THEN 3 WHEN 5 THEN 2 ELSE 1 END, '{"lambda": 0.01}') FROM tri),
				(SELECT gsu.train(mean, variance, CASE WHEN label = 9 THEN 1 ELSE -1 END, '{"lambda": 0.01}') FROM tri)) > 1e-3 AS weights_matter,
	(SELECT max(abs(a - b)) FROM
		(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "class_weight": {"9": 3, "5": 2}}') AS m FROM tri) x,
		(SELECT gsu.train(mean, variance, CASE WHEN label = 9 THEN 1 ELSE -1 END,
				CASE label WHEN 9 THEN 3 WHEN 5 THEN 2 ELSE 1 END, '{"lambda": 0.01}') AS b9 FROM tri) y,
		LATERAL unnest(gsu.weights(m, 9) || gsu.bias(m, 9), gsu.weights(b9) || gsu.bias(b9)) u(a, b)) < 1e-6 AS one_vs_rest_weighted;
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 2}}') FROM tri$$);

-- ------------------------------------------------ parallel
-- row weights cross the workers' serialization and combine
CREATE TABLE wbig AS
SELECT i AS id, ARRAY[l * 0.7 + pnorm(i, 1), l * 0.3 + pnorm(i, 2)] AS mean,
	ARRAY[0.1 + 0.2 * prand(i, 3), 0.1 + 0.2 * prand(i, 4)] AS variance, l AS label,
	(i % 4)::float8 AS w
FROM generate_series(1, 20000) i, LATERAL (SELECT CASE WHEN i % 5 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE wbig SET (parallel_workers = 2);
ANALYZE wbig;
CREATE TABLE serial AS SELECT s.solver,
	(SELECT gsu.train(mean, variance, label, w, jsonb_build_object('solver', s.solver, 'class_weight', '{"1": 2}'::jsonb)) FROM wbig) AS m
FROM (VALUES ('newton'), ('sgd')) s(solver);
SET parallel_setup_cost = 0;
SET gsu.parallel_training = on;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.train(mean, variance, label, w, '{}') FROM wbig;
CREATE TABLE par AS SELECT s.solver,
	(SELECT gsu.train(mean, variance, label, w, jsonb_build_object('solver', s.solver, 'class_weight', '{"1": 2}'::jsonb)) FROM wbig) AS m
FROM (VALUES ('newton'), ('sgd')) s(solver);
RESET parallel_setup_cost;
RESET gsu.parallel_training;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- newton: the same model; sgd: an average of the workers' passes, which depends on how
-- the rows were split between the workers, so it is compared by its accuracy
SELECT s.solver, gsu.describe(s.m)->'training'->'rows' = gsu.describe(p.m)->'training'->'rows' AS same_rows,
	CASE WHEN s.solver = 'newton' THEN rel_diff(s.m, p.m) < 1e-6
		 ELSE abs((SELECT avg((gsu.predict(s.m, mean) = label)::int) - avg((gsu.predict(p.m, mean) = label)::int) FROM wbig)) < 0.05
	END AS close
FROM serial s JOIN par p USING (solver) ORDER BY s.solver;

-- ------------------------------------------------ errors
-- the option's value
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": "equal"}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": 2}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": true}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": [1, 2]}') FROM imb$$);
-- keys must be int4 labels, each given once
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"pos": 2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1.5": 2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {" 1": 2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"": 2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"4294967297": 2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 2, "+1": 3}}') FROM imb$$);
-- a label no row has
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 2, "2": 3}}') FROM imb$$);
-- weights must be positive finite numbers
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 0}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"-1": -2}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 1e400}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": "2"}}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": null}}') FROM imb$$);
-- "balanced" needs the counts up front: not with sgd
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd", "class_weight": "balanced"}') FROM imb$$);
-- gsu.fit takes class_weight (the row's weight times its class's, fit_scans.sql has the
-- out-of-core cases); the same optimum as gsu.train's
SET client_min_messages = warning;
SELECT abs(f.obj - t.obj) <= 1e-9 * t.obj AS same_optimum, f.cw = t.cw AS same_class_weights
FROM (SELECT (gsu.describe(m)->'training'->>'objective')::float8 AS obj, (m::jsonb)->'class_weight' AS cw
	  FROM gsu.fit('imb', 'mean', 'variance', 'label', '{"class_weight": {"1": 2}}') m) f,
	 (SELECT (gsu.describe(m)->'training'->>'objective')::float8 AS obj, (m::jsonb)->'class_weight' AS cw
	  FROM (SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 2}}') AS m FROM imb) s) t;
RESET client_min_messages;
-- gsu.train_sgd's gsu.partial state has no room for a weight sum
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, label, '{"class_weight": "balanced"}') FROM imb$$);
-- row weights: finite and non-negative
SELECT test_error($$SELECT gsu.train(mean, variance, label, -1.0, '{}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, 'NaN'::float8, '{}') FROM imb$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, 'Infinity'::float8, '{}') FROM imb$$);
-- only the ratios of weights matter: the buffered solvers take weights
-- whose sum (or product with a class weight) overflows a float8 ...
SELECT rel_diff((SELECT gsu.train(mean, variance, label, 1e308 * (k / 3.0), '{}') FROM imb),
				(SELECT gsu.train(mean, variance, label, k::float8, '{}') FROM imb)) < 1e-9 AS huge_row_weights,
	rel_diff((SELECT gsu.train(mean, variance, label, 1e306 * k, '{"class_weight": {"1": 1e3}}') FROM imb),
			 (SELECT gsu.train(mean, variance, label, k::float8, '{"class_weight": {"1": 1e3}}') FROM imb)) < 1e-9 AS huge_products;
-- ... but sgd keeps a running sum, which must stay finite
SELECT test_error($$SELECT gsu.train(mean, variance, label, 1e308, '{"solver": "sgd"}') FROM imb$$);
-- every row weighing 0 is no rows (NULL, as for an empty table); one class left is an error
SELECT gsu.train(mean, variance, label, 0.0, '{}') IS NULL AS all_zero_is_null FROM imb;
SELECT test_error($$SELECT gsu.train(mean, variance, label, (label = 1)::int, '{}') FROM imb$$);
-- options must agree on every row, with the weight overload as without
SELECT test_error($$SELECT gsu.train(mean, variance, label, 1.0, CASE WHEN id = 5 THEN '{"class_weight": "balanced"}'::jsonb ELSE '{}' END ORDER BY id) FROM imb$$);

DROP SCHEMA test_class_weight CASCADE;
