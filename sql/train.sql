-- gsu.train: solvers, losses, overloads, NULL handling, grouping,
-- reproducibility and optimality.  Raw training statistics change with the
-- solver's tuning, so only facts about them are printed.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_train;
SET search_path = test_train, public;

-- the objective λ/2‖w‖² + mean loss over pts, computed through gsu.expected_loss
-- (a zero variance gives the hinge loss, so hinge models use zero_var => true)
CREATE FUNCTION pts_objective(m gsu.model, zero_var bool DEFAULT false) RETURNS float8
LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(m, mean,
			CASE WHEN zero_var THEN '{0,0,0}' ELSE coalesce(variance, '{0,0,0}') END, label))
	FROM pts
$$;
-- m with weight j (or the bias, j = dim + 1) moved by eps
CREATE FUNCTION perturb(m gsu.model, j int, eps float8) RETURNS gsu.model
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN j <= array_length(gsu.weights(m), 1)
		THEN jsonb_set(m::jsonb, ARRAY['weights', (j - 1)::text], to_jsonb((gsu.weights(m))[j] + eps))
		ELSE jsonb_set(m::jsonb, '{bias}', to_jsonb(gsu.bias(m) + eps)) END::gsu.model
$$;
CREATE FUNCTION accuracy(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT avg((gsu.predict(m, mean) = label)::int) FROM pts
$$;
-- relative difference of two weight vectors (with the bias appended)
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;

-- one model per solver and loss, trained in id order
CREATE TABLE models AS
SELECT s.solver, l.loss,
	(SELECT gsu.train(mean, variance, label, jsonb_build_object('solver', s.solver, 'loss', l.loss) ORDER BY id)
	 FROM pts) AS m
FROM (VALUES ('newton'), ('pegasos'), ('sgd')) s(solver), (VALUES ('gsu'), ('hinge')) l(loss);

-- the model records how it was trained
SELECT solver, loss, gsu.describe(m)->>'loss' AS model_loss, gsu.describe(m)->'hyperparameters'->>'solver' AS model_solver,
	gsu.describe(m)->'dim' AS dim, gsu.describe(m)->'training'->'rows' AS rows,
	gsu.describe(m)->'hyperparameters'->'lambda' AS lambda, array_length(gsu.weights(m), 1) AS n_weights
FROM models ORDER BY solver, loss;
-- every model separates the classes (the Bayes accuracy of pts is about 0.87)
SELECT solver, loss, accuracy(m) > 0.8 AS accurate FROM models ORDER BY solver, loss;
-- the positive class lies towards +x1, +x2: both weights are positive
SELECT solver, loss, (gsu.weights(m))[1] > 0.5 AND (gsu.weights(m))[2] > 0.1 AS direction FROM models ORDER BY solver, loss;
-- the batch solvers report the true objective of their solution (sgd reports
-- its progressive objective, each row's loss before its own step)
SELECT solver, loss,
	abs((gsu.describe(m)->'training'->>'objective')::float8 - pts_objective(m, loss = 'hinge'))
		<= 1e-9 * pts_objective(m, loss = 'hinge') AS objective_matches
FROM models WHERE solver <> 'sgd' ORDER BY solver, loss;
-- newton reaches a lower objective than pegasos and sgd, for both losses
SELECT n.loss, pts_objective(n.m, n.loss = 'hinge') < pts_objective(p.m, n.loss = 'hinge') AS below_pegasos,
	pts_objective(n.m, n.loss = 'hinge') < pts_objective(s.m, n.loss = 'hinge') AS below_sgd
FROM models n JOIN models p ON p.loss = n.loss AND p.solver = 'pegasos'
	JOIN models s ON s.loss = n.loss AND s.solver = 'sgd'
WHERE n.solver = 'newton' ORDER BY n.loss;
-- newton's solution is a minimum: moving any weight or the bias by ±1e-2 .. ±1e-5 does not lower the objective
SELECT loss, bool_and(pts_objective(perturb(m, j, e), loss = 'hinge') - pts_objective(m, loss = 'hinge') > -1e-12) AS is_minimum
FROM models, generate_series(1, 4) j, unnest(ARRAY[1e-2, 1e-3, 1e-4, 1e-5, -1e-2, -1e-3, -1e-4, -1e-5]::float8[]) e
WHERE solver = 'newton' GROUP BY loss ORDER BY loss;
-- newton converges: ‖∇F‖ ≤ tolerance·‖∇F(0)‖, where ∇F(0) = -(mean(y·x), mean(y)) on pts
SELECT loss, (gsu.describe(m)->'training'->>'converged')::bool AS converged,
	(gsu.describe(m)->'training'->>'gradient_norm')::float8 <= 1e-6 * g0.norm AS small_gradient,
	(gsu.describe(m)->'training'->>'gap_estimate')::float8 <= 1e-4 * pts_objective(m, loss = 'hinge') AS small_gap,
	(gsu.describe(m)->'training'->>'iterations')::int BETWEEN 1 AND 1000 AS iterations,
	(gsu.describe(m)->'training'->>'passes')::int >= 1 AS passes,
	(gsu.describe(m)->'training'->>'seconds')::float8 >= 0 AS seconds
FROM models, (SELECT sqrt(avg(label * mean[1]) ^ 2 + avg(label * mean[2]) ^ 2 + avg(label * mean[3]) ^ 2
	+ avg(label) ^ 2) AS norm FROM pts) g0
WHERE solver = 'newton' ORDER BY loss;
-- pegasos takes epochs·n/batch_size steps; sgd one step per row in one pass
SELECT solver, loss, gsu.describe(m)->'training'->'iterations' AS iterations FROM models WHERE solver <> 'newton' ORDER BY solver, loss;
SELECT loss, gsu.describe(m)->'training'->'passes' AS passes FROM models WHERE solver = 'sgd' ORDER BY loss;
SELECT gsu.describe(gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 3, "batch_size": 7}'))->'training'->'iterations' AS iterations FROM pts;

-- describe has every field, and no weights
SELECT jsonb_object_keys(gsu.describe(m)) FROM models WHERE solver = 'newton' AND loss = 'gsu' ORDER BY 1;
SELECT jsonb_object_keys(gsu.describe(m)->'hyperparameters') FROM models WHERE solver = 'newton' AND loss = 'gsu' ORDER BY 1;
SELECT jsonb_object_keys(gsu.describe(m)->'training') FROM models WHERE solver = 'newton' AND loss = 'gsu' ORDER BY 1;
SELECT jsonb_object_keys(m::jsonb) FROM models WHERE solver = 'newton' AND loss = 'gsu' ORDER BY 1;
SELECT gsu.describe(m)->'training'->'seconds' IS NOT NULL AS has_seconds, jsonb_typeof(gsu.describe(m)->'training'->'converged') AS converged_type
FROM models WHERE solver = 'newton' AND loss = 'gsu';
-- the options given are stored in the model
SELECT gsu.describe(gsu.train(mean, variance, label, '{"lambda": 0.01, "tolerance": 1e-5, "smoothing": 1e-4, "max_iterations": 500, "epochs": 4, "batch_size": 8, "seed": 42}'))->'hyperparameters' FROM pts;
-- default options: NULL options and '{}' are the same as none
SELECT gsu.describe(gsu.train(mean, variance, label))->'hyperparameters' FROM pts;
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a, gsu.train(mean, variance, label, NULL ORDER BY id) b FROM pts) s;
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a, gsu.train(mean, variance, label, '{}' ORDER BY id) b FROM pts) s;

-- reproducibility: the same data in the same order gives the same weights and bias
SELECT o AS options, gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM unnest(ARRAY['{}', '{"solver": "pegasos"}', '{"solver": "sgd"}', '{"loss": "hinge"}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, variance, label, o ORDER BY id) a, gsu.train(mean, variance, label, o ORDER BY id) b FROM pts) s;
-- the pegasos seed matters
SELECT gsu.weights(a) <> gsu.weights(b) AS differ
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "seed": 1}') a,
	gsu.train(mean, variance, label, '{"solver": "pegasos", "seed": 2}') b FROM pts) s;
-- newton does not depend on the row order (up to rounding)
SELECT rel_diff(a, b) < 1e-6 AS order_independent
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a, gsu.train(mean, variance, label ORDER BY -id) b FROM pts) s;

-- a larger lambda gives a smaller weight vector
SELECT (SELECT sum(w * w) FROM unnest(gsu.weights(a)) w) > (SELECT sum(w * w) FROM unnest(gsu.weights(b)) w) AS shrinks
FROM (SELECT gsu.train(mean, variance, label, '{"lambda": 0.001}') a, gsu.train(mean, variance, label, '{"lambda": 1}') b FROM pts) s;
-- larger variances shrink the weights too (SVM-GSU regularizes by wᵀΣw)
SELECT (SELECT sum(w * w) FROM unnest(gsu.weights(a)) w) > (SELECT sum(w * w) FROM unnest(gsu.weights(b)) w) AS shrinks
FROM (SELECT gsu.train(mean, v, label) a, gsu.train(mean, ARRAY[v[1] * 10, v[2] * 10, v[3] * 10], label) b
	FROM (SELECT mean, coalesce(variance, '{0,0,0}') v, label FROM pts) p) s;

-- the boolean-label overload is the same as labels -1/1
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a, gsu.train(mean, variance, label > 0 ORDER BY id) b FROM pts) s;
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) a,
	gsu.train(mean, variance, label = 1, '{"solver": "sgd"}' ORDER BY id) b FROM pts) s;

-- NULL variance is a certain row: all-NULL variances give the plain hinge SVM (a: newton
-- and its active-set finish, b: dcd and its band's finish; both exact, equal to rounding)
SELECT rel_diff(a, b) < 1e-12 AS same
FROM (SELECT gsu.train(mean, NULL::float8[], label ORDER BY id) a,
	gsu.train(mean, variance, label, '{"loss": "hinge"}' ORDER BY id) b FROM pts) s;
-- ... and a NULL variance is the same as a zero variance
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a,
	gsu.train(mean, coalesce(variance, '{0,0,0}'), label ORDER BY id) b FROM pts) s;
-- the hinge loss ignores the variance
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same
FROM (SELECT gsu.train(mean, variance, label, '{"loss": "hinge"}' ORDER BY id) a,
	gsu.train(mean, ARRAY[1, 2, 3]::float8[], label, '{"loss": "hinge"}' ORDER BY id) b FROM pts) s;
-- the variance changes the gsu model
SELECT rel_diff(a, b) > 1e-3 AS differ
FROM (SELECT gsu.train(mean, variance, label) a, gsu.train(mean, NULL::float8[], label) b FROM pts) s;

-- isotropic overload: variance s is the same as the diagonal (s, s, s)
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, 0.3, label ORDER BY id) a, gsu.train(mean, '{0.3,0.3,0.3}'::float8[], label ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, 0.3, label, '{"solver": "pegasos"}' ORDER BY id) a,
	gsu.train(mean, '{0.3,0.3,0.3}'::float8[], label, '{"solver": "pegasos"}' ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-9 AS same
FROM (SELECT gsu.train(mean, 0.3, label, '{"solver": "sgd"}' ORDER BY id) a,
	gsu.train(mean, '{0.3,0.3,0.3}'::float8[], label, '{"solver": "sgd"}' ORDER BY id) b FROM pts) s;
-- isotropic 0 and NULL are certain rows
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.weights(a) = gsu.weights(c) AS same
FROM (SELECT gsu.train(mean, 0.0, label ORDER BY id) a, gsu.train(mean, NULL::float8, label ORDER BY id) b,
	gsu.train(mean, NULL::float8[], label ORDER BY id) c FROM pts) s;
-- a mix of isotropic 0 and positive variances is the same as the diagonal form
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, CASE WHEN id % 3 = 0 THEN 0.0 ELSE 0.2 END, label ORDER BY id) a,
	gsu.train(mean, CASE WHEN id % 3 = 0 THEN NULL ELSE '{0.2,0.2,0.2}'::float8[] END, label ORDER BY id) b FROM pts) s;
SELECT accuracy(gsu.train(mean, 0.3, label)) > 0.8 AS accurate FROM pts;
-- a row without variance after rows with variance, and the other way round
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY variance IS NULL, id) a,
	gsu.train(mean, variance, label ORDER BY variance IS NOT NULL, id) b FROM pts) s;

-- full covariances: a diagonal written as a dim × dim matrix is the same as the diagonal
CREATE FUNCTION diag_matrix(v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT ARRAY[[v[1], 0, 0], [0, v[2], 0], [0, 0, v[3]]]
$$;
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a, gsu.train(mean, diag_matrix(variance), label ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "pegasos"}' ORDER BY id) a,
	gsu.train(mean, diag_matrix(variance), label, '{"solver": "pegasos"}' ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-9 AS same
FROM (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) a,
	gsu.train(mean, diag_matrix(variance), label, '{"solver": "sgd"}' ORDER BY id) b FROM pts) s;
-- full rows after diagonal ones and the other way round (the buffer is rewritten at the higher level)
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, CASE WHEN id > 200 THEN diag_matrix(variance) ELSE variance END, label ORDER BY id) a,
	gsu.train(mean, variance, label ORDER BY id) b FROM pts) s;
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, CASE WHEN id <= 200 THEN diag_matrix(variance) ELSE variance END, label ORDER BY id) a,
	gsu.train(mean, variance, label ORDER BY id) b FROM pts) s;
-- correlated noise: a covariance along the class direction (1, 0.5, 0) shrinks the weights more than the same
-- variance spread across it
SELECT (SELECT sum(w * w) FROM unnest(gsu.weights(a)) w) < (SELECT sum(w * w) FROM unnest(gsu.weights(b)) w) AS shrinks_more
FROM (SELECT gsu.train(mean, '{{0.8,0.4,0},{0.4,0.2,0},{0,0,0}}'::float8[], label) a,
	gsu.train(mean, '{{0.2,-0.4,0},{-0.4,0.8,0},{0,0,0}}'::float8[], label) b FROM pts) s;
SELECT accuracy(gsu.train(mean, '{{0.8,0.4,0},{0.4,0.2,0},{0,0,0}}'::float8[], label)) > 0.8 AS accurate FROM pts;
-- full covariances of low rank in many dimensions are solved in the span of the means and
-- the covariances' ranges: 12 rows of dimension 80, each with a covariance f fᵀ of rank 1
-- (the span has 24 dimensions). The same rows 6 times over are the same objective, but
-- their span is not below dim/2, so they are solved in all 80 dimensions: the same optimum.
-- (Such nearly degenerate rows stop the solver short of its tolerance on some builds of
-- BLAS, with a WARNING whose figures differ: the messages are hidden, the objectives agree.)
CREATE TABLE lowrank AS
SELECT i AS id, l AS label,
	ARRAY(SELECT CASE WHEN j <= 3 THEN 0.5 * l ELSE 0 END + 0.3 * pnorm(i, j) FROM generate_series(1, 80) j) AS mean,
	ARRAY(SELECT ARRAY(SELECT f[a] * f[b] FROM generate_series(1, 80) b) FROM generate_series(1, 80) a) AS cov
FROM generate_series(1, 12) i,
	LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c,
	LATERAL (SELECT ARRAY(SELECT 0.3 * pnorm(i, 100 + j) FROM generate_series(1, 80) j) AS f) g;
SET client_min_messages = error;
SELECT abs((gsu.describe(a)->'training'->>'objective')::float8 - (gsu.describe(b)->'training'->>'objective')::float8)
		< 1e-7 * (gsu.describe(b)->'training'->>'objective')::float8 AS same_objective,
	rel_diff(a, b) < 1e-2 AS close_weights
FROM (SELECT gsu.train(mean, cov, label, '{"lambda": 0.1}' ORDER BY id) a FROM lowrank) s1,
	(SELECT gsu.train(mean, cov, label, '{"lambda": 0.1}' ORDER BY id, k) b
	 FROM lowrank, generate_series(1, 6) k) s2;
-- the reported objective is the objective of the rows as given (through gsu.expected_loss)
SELECT abs(o - ((SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8 * sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ (SELECT avg(gsu.expected_loss(m, mean, cov, label)) FROM lowrank))) < 1e-12 AS objective_of_the_rows
FROM (SELECT m, (gsu.describe(m)->'training'->>'objective')::float8 AS o
	  FROM (SELECT gsu.train(mean, cov, label, '{"lambda": 0.1}' ORDER BY id) m FROM lowrank) s) s2;
RESET client_min_messages;
-- the WARNING when the gradient meets the tolerance but the gap estimate, which includes
-- the smoothing's bound (about 2.8e-6), is not small against the objective (3e-4): well
-- separated rows, half of them certain
SELECT (gsu.describe(gsu.train(mean, var, label, '{"lambda": 1e-3}' ORDER BY i))->'training'->>'converged')::bool AS converged
FROM (SELECT i, ARRAY[CASE WHEN i % 2 = 0 THEN 2.0 ELSE -2.0 END + 0.3 * pnorm(i, 1), 0.3 * pnorm(i, 2)] AS mean,
		CASE WHEN i % 4 < 2 THEN NULL ELSE '{0.01,0.01}'::float8[] END AS var,
		CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
	  FROM generate_series(1, 40) i) s;

-- rows with a NULL mean or label are skipped, whatever the other arguments
CREATE TABLE pts_nulls AS
SELECT id, mean, variance, label FROM pts
UNION ALL SELECT 1000, NULL, '{1,1,1}', 1
UNION ALL SELECT 1001, '{1,2,3}', '{1,1,1}', NULL
UNION ALL SELECT 1002, '{1,2}', '{-1}', NULL
UNION ALL SELECT 1003, '{NaN,NULL}', NULL, NULL
UNION ALL SELECT 1004, NULL, NULL, 7;
SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b) AS same,
	gsu.describe(b)->'training'->'rows' AS rows
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a FROM pts) s1,
	(SELECT gsu.train(mean, variance, label ORDER BY id) b FROM pts_nulls) s2;
-- skipped rows first (the state is created by the first row that counts)
SELECT gsu.weights(a) = gsu.weights(b) AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) a FROM pts) s1,
	(SELECT gsu.train(mean, variance, label ORDER BY id > 999 DESC, id) b FROM pts_nulls) s2;
SELECT gsu.weights(a) = gsu.weights(b) AS same
FROM (SELECT gsu.train(mean, variance, label > 0, '{"solver": "sgd"}' ORDER BY id) a FROM pts) s1,
	(SELECT gsu.train(mean, variance, label > 0, '{"solver": "sgd"}' ORDER BY id > 999 DESC, id) b FROM pts_nulls) s2;
SELECT gsu.weights(a) = gsu.weights(b) AS same
FROM (SELECT gsu.train(mean, 0.5, label ORDER BY id) a FROM pts) s1,
	(SELECT gsu.train(mean, 0.5, label ORDER BY id) b FROM pts_nulls) s2;

-- no rows, or only skipped rows: NULL
SELECT gsu.train(mean, variance, label) IS NULL AS is_null FROM pts WHERE false;
SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') IS NULL AS is_null FROM pts WHERE false;
SELECT gsu.train(mean, 1.0, label) IS NULL AS is_null FROM pts WHERE false;
SELECT gsu.train(mean, variance, label > 0) IS NULL AS is_null FROM pts WHERE false;
SELECT gsu.train(mean, variance, label) IS NULL AS is_null FROM pts_nulls WHERE id >= 1000;
SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') IS NULL AS is_null FROM pts_nulls WHERE id >= 1000;
-- options of a query that finds no rows are not checked
SELECT gsu.train(mean, variance, label, '{"lambda": -1}') IS NULL AS is_null FROM pts WHERE false;

-- two rows are enough
SELECT gsu.predict(m, '{1,0,0}') AS pos, gsu.predict(m, '{-1,0,0}') AS neg, gsu.describe(m)->'training'->'rows' AS rows
FROM (SELECT gsu.train(x, NULL::float8[], y) m FROM (VALUES ('{1,0,0}'::float8[], 1), ('{-1,0,0}', -1)) v(x, y)) s;
-- dimension 1, symmetric data: w > 0 and b = 0
SELECT (gsu.weights(m))[1] > 0 AS w_positive, abs(gsu.bias(m)) < 1e-6 AS b_zero
FROM (SELECT gsu.train(ARRAY[x], NULL::float8[], y) m FROM (VALUES (2.0::float8, 1), (-2.0, -1), (1.0, 1), (-1.0, -1)) v(x, y)) s;
-- separable data with margin: the optimum is w = 1, b = 0 (every loss is 0 and ‖w‖ is the smallest that does it),
-- so f = ±1 on the points ±1
SELECT abs(gsu.decision(m, '{1}') - 1) < 1e-6 AS margin_pos, abs(gsu.decision(m, '{-1}') + 1) < 1e-6 AS margin_neg,
	abs((gsu.weights(m))[1] - 1) < 1e-6 AS w_one, abs(gsu.bias(m)) < 1e-6 AS b_zero
FROM (SELECT gsu.train(ARRAY[x], NULL::float8[], y, '{"lambda": 1e-3}') m
	FROM (VALUES (1.0::float8, 1), (3.0, 1), (-1.0, -1), (-3.0, -1)) v(x, y)) s;

-- one model per group
SELECT id % 3 AS grp, gsu.describe(m)->'training'->'rows' AS rows, accuracy(m) > 0.8 AS accurate
FROM (SELECT id % 3 AS id, gsu.train(mean, variance, label) m FROM pts GROUP BY id % 3) s ORDER BY 1;
SELECT count(DISTINCT gsu.weights(m)) AS distinct_models
FROM (SELECT gsu.train(mean, variance, label) m FROM pts GROUP BY id % 3) s;
-- a group's model equals the model trained on that group alone
SELECT gsu.weights(g.m) = gsu.weights(a.m) AS same
FROM (SELECT gsu.train(mean, variance, label ORDER BY id) m FROM pts GROUP BY id % 3 HAVING id % 3 = 1) g,
	(SELECT gsu.train(mean, variance, label ORDER BY id) m FROM pts WHERE id % 3 = 1) a;
-- a window aggregate
SELECT count(*) AS n, count(DISTINCT gsu.weights(m)) AS models
FROM (SELECT gsu.train(mean, variance, label) OVER (PARTITION BY id % 3) m FROM pts WHERE id < 100) s;

-- the trained model can be stored and read back
CREATE TABLE stored (name text, m gsu.model);
INSERT INTO stored SELECT 'newton', gsu.train(mean, variance, label) FROM pts;
SELECT rel_diff(stored.m, models.m) < 1e-9 AS same, accuracy(stored.m) > 0.8 AS accurate
FROM stored, models WHERE solver = 'newton' AND loss = 'gsu';
DROP TABLE stored;
