-- gsu.fit(relation, mean, variance, label, options): by default the solver
-- newton (a sample trained in memory, then scans of gsu.hessian), or
-- L-BFGS driven by passes of gsu.gradient ("solver": "lbfgs").  It reaches
-- gsu.train's (newton) optimum; it reads plain, partitioned and inherited
-- tables and views with any identifiers.  Each scan prints a NOTICE with
-- floats in it, so those are hidden and the scans are counted from the model
-- instead (fit_scans.sql counts them on a table larger than the memory).
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_fit;
SET search_path = test_fit, public;
SET client_min_messages = warning;

-- the objective λ/2‖w‖² + mean loss over pts, computed through gsu.expected_loss
CREATE FUNCTION pts_objective(m gsu.model, zero_var bool DEFAULT false) RETURNS float8
LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(m, mean,
			CASE WHEN zero_var THEN '{0,0,0}' ELSE coalesce(variance, '{0,0,0}') END, label))
	FROM pts
$$;
-- relative difference of two weight vectors (with the bias appended)
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
CREATE FUNCTION training(m gsu.model, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>key)::float8
$$;
-- relative difference of two reported objectives
CREATE FUNCTION rel_objective(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT abs(training(a, 'objective') - training(b, 'objective')) / training(b, 'objective')
$$;
CREATE FUNCTION diag_matrix(v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT ARRAY[[v[1], 0, 0], [0, v[2], 0], [0, 0, v[3]]]
$$;

-- pts (every tenth row is certain) and allvar (every row has a variance, so the last stage is unsmoothed)
CREATE TABLE allvar AS SELECT id, mean, coalesce(variance, '{0.2,0.2,0.2}') AS variance, label FROM pts;
CREATE TABLE models AS
SELECT 'pts gsu' AS name, gsu.fit('pts', 'mean', 'variance', 'label') AS f,
	(SELECT gsu.train(mean, variance, label ORDER BY id) FROM pts) AS t
UNION ALL SELECT 'pts hinge', gsu.fit('pts', 'mean', 'variance', 'label', '{"loss": "hinge"}'),
	(SELECT gsu.train(mean, variance, label, '{"loss": "hinge"}' ORDER BY id) FROM pts)
UNION ALL SELECT 'pts no variance', gsu.fit('pts', 'mean', NULL, 'label'),
	(SELECT gsu.train(mean, NULL::float8[], label ORDER BY id) FROM pts)
UNION ALL SELECT 'allvar gsu', gsu.fit('allvar', 'mean', 'variance', 'label'),
	(SELECT gsu.train(mean, variance, label ORDER BY id) FROM allvar)
UNION ALL SELECT 'allvar lambda 0.1', gsu.fit('allvar', 'mean', 'variance', 'label', '{"lambda": 0.1}'),
	(SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}' ORDER BY id) FROM allvar)
UNION ALL SELECT 'pts subspace 0.5', gsu.fit('pts', 'mean', 'variance', 'label', '{"subspace_fraction": 0.5}'),
	(SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0.5}' ORDER BY id) FROM pts);

-- the model records how it was trained
SELECT name, gsu.describe(f)->>'loss' AS loss, gsu.describe(f)->'hyperparameters'->>'solver' AS solver,
	gsu.describe(f)->'hyperparameters'->'lambda' AS lambda, gsu.describe(f)->'hyperparameters'->'subspace_fraction' AS p,
	gsu.describe(f)->'training'->'rows' AS rows, gsu.describe(f)->'training'->'converged' AS converged
FROM models ORDER BY name;
-- it made passes and accepted steps; the passes include the first at θ = 0 and the last at μ = 0
SELECT name, training(f, 'passes') > training(f, 'iterations') AS passes, training(f, 'iterations') >= 1 AS iterations,
	training(f, 'seconds') >= 0 AS seconds, training(f, 'gradient_norm') >= 0 AS gradient_norm
FROM models ORDER BY name;
-- GSU data: the objective of newton within 1e-8 relative, the weights within 1e-4
SELECT name, rel_objective(f, t) < 1e-8 AS same_objective, rel_diff(f, t) < 1e-4 AS same_weights
FROM models WHERE name NOT LIKE '%hinge%' AND name NOT LIKE '%no variance%' ORDER BY name;
-- hinge data (or no variance, the same problem): the objective is newton's within the reported gap estimate,
-- and not below it
SELECT name, training(f, 'objective') - training(t, 'objective') <= training(f, 'gap_estimate') AS within_gap,
	training(f, 'objective') >= training(t, 'objective') - 1e-12 AS not_below, rel_diff(f, t) < 1e-3 AS close_weights
FROM models WHERE name LIKE '%hinge%' OR name LIKE '%no variance%' ORDER BY name;
-- a NULL variance column is the hinge loss
SELECT gsu.weights(a.f) = gsu.weights(b.f) AND gsu.bias(a.f) = gsu.bias(b.f) AS same
FROM models a, models b WHERE a.name = 'pts hinge' AND b.name = 'pts no variance';
-- the reported objective is the true (unsmoothed) objective of the model
SELECT name, abs(training(f, 'objective') - pts_objective(f, name LIKE '%hinge%' OR name LIKE '%no variance%'))
	<= 1e-9 * training(f, 'objective') AS objective_matches
FROM models WHERE name LIKE 'pts%' AND name NOT LIKE '%subspace%' ORDER BY name;
-- the gap estimate is small when converged
SELECT name, training(f, 'gap_estimate') < 1e-4 AS small_gap FROM models ORDER BY name;

-- identifiers are quoted: mixed case, spaces, a double quote, a schema and a dot in a table name
CREATE TABLE "My Table" ("Mean Col" float8[], "Var""Col" float8[], "Label" int4);
INSERT INTO "My Table" SELECT mean, variance, label FROM pts ORDER BY id;
CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."t.1" AS SELECT * FROM pts ORDER BY id;
SELECT gsu.weights(a) = gsu.weights(m.f) AND gsu.bias(a) = gsu.bias(m.f) AS same
FROM models m, gsu.fit('"My Table"', 'Mean Col', 'Var"Col', 'Label') a WHERE m.name = 'pts gsu';
SELECT gsu.weights(a) = gsu.weights(m.f) AND gsu.bias(a) = gsu.bias(m.f) AS same
FROM models m, gsu.fit('"Odd Schema"."t.1"', 'mean', 'variance', 'label') a WHERE m.name = 'pts gsu';
-- the names are identifiers, not expressions (test_error prints NOTICEs: show them while no fit succeeds)
RESET client_min_messages;
SELECT test_error($$SELECT gsu.fit('"My Table"', 'mean col', 'Var"Col', 'Label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label::int')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label); DROP TABLE pts; --')$$);
SET client_min_messages = warning;
SELECT count(*) AS pts_still_there FROM pts;

-- a partitioned table (two partitions, summed with gsu.sum) gives the model of the plain table
-- (its sums are added in another order: the weights agree to the rounding the passes amplify)
CREATE TABLE parts (id int, mean float8[], variance float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE parts_lo PARTITION OF parts FOR VALUES FROM (MINVALUE) TO (201);
CREATE TABLE parts_hi PARTITION OF parts FOR VALUES FROM (201) TO (MAXVALUE);
INSERT INTO parts SELECT * FROM pts ORDER BY id;
SELECT rel_diff(p, m.f) < 1e-8 AS same_weights, rel_objective(p, m.f) < 1e-10 AS same_objective,
	training(p, 'rows') AS rows
FROM models m, gsu.fit('parts', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';
SELECT rel_diff(p, m.f) < 1e-10 AS same_weights
FROM models m, gsu.fit('parts', 'mean', 'variance', 'label', '{"loss": "hinge"}') p WHERE m.name = 'pts hinge';
-- two levels of partitions
CREATE TABLE levels (id int, mean float8[], variance float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE levels_1 PARTITION OF levels FOR VALUES FROM (MINVALUE) TO (101) PARTITION BY RANGE (id);
CREATE TABLE levels_1a PARTITION OF levels_1 FOR VALUES FROM (MINVALUE) TO (51);
CREATE TABLE levels_1b PARTITION OF levels_1 FOR VALUES FROM (51) TO (101);
CREATE TABLE levels_2 PARTITION OF levels FOR VALUES FROM (101) TO (MAXVALUE);
INSERT INTO levels SELECT * FROM pts ORDER BY id;
SELECT rel_diff(p, m.f) < 1e-8 AS same_weights, training(p, 'rows') AS rows
FROM models m, gsu.fit('levels', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';
-- a partition alone
SELECT training(gsu.fit('levels_1', 'mean', 'variance', 'label'), 'rows') AS rows;
-- a table with inheritance children, and a view
CREATE TABLE inh (id int, mean float8[], variance float8[], label int4);
CREATE TABLE inh_child () INHERITS (inh);
INSERT INTO inh SELECT * FROM pts WHERE id <= 200 ORDER BY id;
INSERT INTO inh_child SELECT * FROM pts WHERE id > 200 ORDER BY id;
SELECT gsu.weights(p) = gsu.weights(m.f) AS same, training(p, 'rows') AS rows
FROM models m, gsu.fit('inh', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';
CREATE VIEW pts_view AS SELECT * FROM pts WHERE id % 2 = 0 OR id <= 200;
SELECT training(gsu.fit('pts_view', 'mean', 'variance', 'label'), 'rows') AS rows;
-- a temporary table
CREATE TEMPORARY TABLE tmp_pts AS SELECT * FROM pts ORDER BY id;
SELECT gsu.weights(p) = gsu.weights(m.f) AS same FROM models m, gsu.fit('tmp_pts', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';

-- full covariance matrices: a diagonal written as a matrix is the same as the diagonal
CREATE TABLE full_pts AS SELECT id, mean, diag_matrix(variance) AS variance, label FROM pts ORDER BY id;
SELECT rel_diff(p, m.f) < 1e-8 AS same FROM models m, gsu.fit('full_pts', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';

-- rows with a NULL mean or label are skipped
CREATE TABLE with_nulls AS
SELECT id, mean, variance, label FROM pts
UNION ALL SELECT 1000, NULL, '{1,1,1}', 1
UNION ALL SELECT 1001, '{1,2,3}', '{1,1,1}', NULL;
SELECT rel_diff(p, m.f) < 1e-10 AS same, training(p, 'rows') AS rows
FROM models m, gsu.fit('with_nulls', 'mean', 'variance', 'label') p WHERE m.name = 'pts gsu';

-- "init" (lbfgs): a warm start from the optimum takes fewer passes (a single smoothing stage, smoothing 1)
CREATE TABLE smooth AS SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"smoothing": 1, "solver": "lbfgs"}') AS cold;
SELECT training(warm, 'passes') < training(cold, 'passes') / 2 AS fewer_passes, rel_diff(warm, cold) < 1e-6 AS same
FROM smooth, gsu.fit('pts', 'mean', 'variance', 'label', jsonb_build_object('smoothing', 1, 'init', cold::jsonb, 'solver', 'lbfgs')) warm;
-- ... and with the default options it ends at the same model, in no more passes
SELECT training(warm, 'passes') <= training(lb, 'passes') AS no_more_passes, rel_diff(warm, m.f) < 1e-4 AS same,
	(gsu.describe(warm)->'training'->>'converged')::bool AS converged
FROM models m, gsu.fit('pts', 'mean', 'variance', 'label', jsonb_build_object('init', m.t::jsonb, 'solver', 'lbfgs')) warm,
	gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "lbfgs"}') lb WHERE m.name = 'pts gsu';
-- newton from the optimum: no sample, a few scans, the same model
SELECT training(warm, 'passes') <= 4 AS few_scans, rel_diff(warm, m.f) < 1e-6 AS same,
	(gsu.describe(warm)->'training'->>'converged')::bool AS converged
FROM models m, gsu.fit('pts', 'mean', 'variance', 'label', jsonb_build_object('init', m.t::jsonb)) warm WHERE m.name = 'pts gsu';
-- a model from elsewhere (sgd) is a starting point too
SELECT rel_diff(warm, m.f) < 1e-4 AS same
FROM models m, gsu.fit('pts', 'mean', 'variance', 'label',
	jsonb_build_object('init', (SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}' ORDER BY id) FROM pts)::jsonb)) warm
WHERE m.name = 'pts gsu';

-- no rows, only skipped rows, a partitioned table without rows or without partitions: NULL
CREATE TABLE empty (LIKE pts);
SELECT gsu.fit('empty', 'mean', 'variance', 'label') IS NULL AS is_null;
INSERT INTO empty VALUES (1, NULL, NULL, 1), (2, '{1,2,3}', NULL, NULL);
SELECT gsu.fit('empty', 'mean', 'variance', 'label') IS NULL AS is_null;
CREATE TABLE empty_parts (LIKE pts) PARTITION BY LIST (id);
SELECT gsu.fit('empty_parts', 'mean', 'variance', 'label') IS NULL AS is_null;
CREATE TABLE empty_parts_1 PARTITION OF empty_parts FOR VALUES IN (1);
SELECT gsu.fit('empty_parts', 'mean', 'variance', 'label') IS NULL AS is_null;

-- max_iterations (the pass budget) too small: a WARNING, and the model says it did not converge
SELECT training(m, 'passes') <= 4 AS few_passes, gsu.describe(m)->'training'->'converged' AS converged
FROM gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": 3, "solver": "lbfgs"}') m;
SELECT gsu.describe(m)->'training'->'converged' AS converged
FROM gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": 1, "loss": "hinge", "solver": "lbfgs"}') m;
-- newton: max_iterations counts the scans, the sample's included (one scan: no sample, one Newton scan)
SELECT training(m, 'passes') AS scans, gsu.describe(m)->'training'->'converged' AS converged
FROM gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": 1}') m;

-- a tolerance below what double precision resolves: newton stops once no step
-- decreases the objective or its gradient norm, with a WARNING that says so and
-- not the one about max_iterations (test_scan_newton's unreachable_tolerance has
-- the case where rounded sums used to cost hundreds of rejected scans)
SET gsu.max_training_memory = '64kB';
SELECT training(m, 'passes') BETWEEN 4 AND 30 AS few_scans, gsu.describe(m)->'training'->'converged' AS converged,
       training(m, 'gradient_norm') < 1e-8 AS small_gradient
FROM gsu.fit('pts', 'mean', 'variance', 'label', '{"tolerance": 1e-30, "lambda": 1e-7}') m;
RESET gsu.max_training_memory;

-- "solver": "lbfgs" and "newton" may be given; lbfgs reaches the same optimum
SELECT gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "lbfgs"}'))->'hyperparameters'->>'solver' AS solver;
SELECT gsu.describe(nf)->'hyperparameters'->>'solver' AS solver, rel_objective(nf, m.f) < 1e-8 AS same_objective,
	rel_objective(lb, m.t) < 1e-8 AS lbfgs_same_objective
FROM models m, gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "newton"}') nf,
	gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "lbfgs"}') lb WHERE m.name = 'pts gsu';

-- errors (no fit succeeds from here on, so the NOTICEs of test_error can be shown)
RESET client_min_messages;
-- one class only
CREATE TABLE one_class AS SELECT * FROM pts WHERE label = 1;
SELECT test_error($$SELECT gsu.fit('one_class', 'mean', 'variance', 'label')$$);
-- unknown relation and columns (said before any scan, naming the relation)
SELECT test_error($$SELECT gsu.fit('no_such_table', 'mean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'no_such_column', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'no_such_column', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'no_such_column')$$);
-- columns of the wrong type (42804, before any scan): a text label, a scalar mean; an integer
-- variance is an isotropic one, as in gsu.train, and the labels -1 fail as variances
CREATE TABLE text_label AS SELECT mean, variance, label::text AS label FROM pts;
SELECT test_error($$SELECT gsu.fit('text_label', 'mean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'label', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'id', 'variance', 'label')$$);
-- bad values in the columns: labels other than -1 and 1, negative variances, different dimensions
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'id')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'mean', 'label')$$);
INSERT INTO with_nulls VALUES (2000, '{1,2}', NULL, 1);
SELECT test_error($$SELECT gsu.fit('with_nulls', 'mean', 'variance', 'label')$$);
-- not a table
SELECT test_error($$SELECT gsu.fit('pts_pkey', 'mean', 'variance', 'label')$$);
-- NULL arguments (except the variance)
SELECT test_error($$SELECT gsu.fit(NULL, 'mean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', NULL, 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', NULL)$$);
-- solvers other than newton and lbfgs
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "sgd"}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "pegasos"}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"solver": "bfgs"}')$$);
-- options
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"lambda": -1}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"lambda": "1"}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"tolerance": 1}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"smoothing": 0}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": 0}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"loss": "log"}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"subspace_fraction": 1.5}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"no_such_option": 1}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '[1, 2]')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '"lbfgs"')$$);
-- init: of the wrong dimension, not a model, not an object
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"init": {"format": 1, "dim": 2, "weights": [1, 2], "bias": 0}}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"init": {"format": 1, "dim": 3, "weights": [1, 2], "bias": 0}}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"init": {"weights": [1, 2, 3]}}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"init": [1, 2, 3, 0]}')$$);
SELECT test_error($$SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"init": "x"}')$$);
-- options are checked even when the table has no rows
SELECT test_error($$SELECT gsu.fit('empty', 'mean', 'variance', 'label', '{"lambda": 0}')$$);
-- gsu.fit is volatile and parallel unsafe (it runs queries)
SELECT pronargs, provolatile, proparallel FROM pg_proc
WHERE proname = 'fit' AND pronamespace = 'gsu'::regnamespace ORDER BY pronargs;
