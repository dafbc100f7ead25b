-- Learning in linear subspaces (Tzelepis et al., TPAMI 2018, Sect. 3.2): the
-- option subspace_fraction p with the option subspace_mode.  Mode gaussian
-- (the paper's eqs. 9-12 as printed) projects the whole Gaussian of a row on
-- its leading eigenvectors: z = P x, Sigma^z = Lambda, w_z = P w.  Mode
-- covariance (the default) restricts the covariance and keeps the mean.
\set SHOW_CONTEXT never
CREATE SCHEMA test_subspace;
SET search_path = test_subspace, public;

-- 60 rows in 2-D with a full covariance [[a, c], [c, b]] each, all of full rank
CREATE TABLE rows2 AS
SELECT id, ARRAY[0.8 * l + pnorm(id, 1), -0.5 * l + pnorm(id, 2)] AS mean,
	0.2 + 0.6 * prand(id, 3) AS a, 0.2 + 0.6 * prand(id, 4) AS b, 0.3 * (prand(id, 5) - 0.5) AS c, l AS label
FROM (SELECT id, CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END AS l FROM generate_series(1, 60) id) r;
ALTER TABLE rows2 ADD COLUMN cov float8[];
UPDATE rows2 SET cov = ARRAY[[a, c], [c, b]];
SELECT count(*) AS rows, bool_and(a * b - c * c > 0) AS full_rank FROM rows2;

-- The paper's eqs. 9-12 by brute force, in SQL: the leading eigenpair of
-- [[a, c], [c, b]] in closed form, lambda_1 = (a + b)/2 + sqrt(((a - b)/2)^2 + c^2)
-- with u_1 ∝ (c, lambda_1 - a) (or (1, 0) when c = 0 and a >= b); at p = 0.5 a
-- 2x2 covariance keeps k = 1 direction (lambda_1 >= half the trace), so
-- P = u_1', z = u_1'x, Lambda = lambda_1, w_z = u_1'w, and the row's loss is the
-- expected hinge of the 1-D Gaussian N(z, lambda_1) under (w_z, b).
CREATE FUNCTION eig1(a float8, b float8, c float8, OUT lam float8, OUT u1 float8, OUT u2 float8)
LANGUAGE sql IMMUTABLE AS $$
	SELECT l, CASE WHEN c = 0 THEN (a >= b)::int ELSE c / n END, CASE WHEN c = 0 THEN (a < b)::int ELSE (l - a) / n END
	FROM (SELECT l, sqrt(c * c + (l - a) ^ 2) AS n
		  FROM (SELECT (a + b) / 2 + sqrt(((a - b) / 2) ^ 2 + c * c) AS l) s) t
$$;
CREATE FUNCTION paper_objective(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(
			jsonb_build_object('format', 3, 'dim', 1, 'bias', gsu.bias(m),
							   'weights', jsonb_build_array(e.u1 * (gsu.weights(m))[1] + e.u2 * (gsu.weights(m))[2]))::gsu.model,
			ARRAY[e.u1 * mean[1] + e.u2 * mean[2]], ARRAY[e.lam], label))
	FROM rows2, LATERAL eig1(a, b, c) e
$$;
-- the same objective for mode covariance: the mean stays, Sigma becomes lambda_1 u_1 u_1'
CREATE FUNCTION covariance_objective(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(m, mean, ARRAY[[e.lam * e.u1 * e.u1, e.lam * e.u1 * e.u2], [e.lam * e.u1 * e.u2, e.lam * e.u2 * e.u2]], label))
	FROM rows2, LATERAL eig1(a, b, c) e
$$;
CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;
CREATE FUNCTION same(a gsu.model, b gsu.model) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT gsu.weights(a) = gsu.weights(b) AND gsu.bias(a) = gsu.bias(b)
$$;
CREATE FUNCTION objective(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>'objective')::float8
$$;

CREATE TABLE models AS
SELECT name, (SELECT gsu.train(mean, cov, label, o ORDER BY id) FROM rows2) AS m
FROM (VALUES ('gaussian 0.5', '{"lambda": 0.1, "subspace_fraction": 0.5, "tolerance": 1e-10, "subspace_mode": "gaussian"}'::jsonb),
			 ('default 0.5', '{"lambda": 0.1, "subspace_fraction": 0.5, "tolerance": 1e-10}'),
			 ('covariance 0.5', '{"lambda": 0.1, "subspace_fraction": 0.5, "tolerance": 1e-10, "subspace_mode": "covariance"}'),
			 ('gaussian 1', '{"lambda": 0.1, "subspace_fraction": 1, "tolerance": 1e-10, "subspace_mode": "gaussian"}'),
			 ('covariance 1', '{"lambda": 0.1, "tolerance": 1e-10, "subspace_mode": "covariance"}'),
			 ('whole', '{"lambda": 0.1, "tolerance": 1e-10}')) v(name, o);

-- the default is covariance (the reading that reproduces the paper's MNIST
-- results, docs/reproduce.md), and the model remembers its mode
SELECT name, gsu.describe(m)->'hyperparameters'->>'subspace_mode' AS subspace_mode,
	gsu.describe(m)->'hyperparameters'->'subspace_fraction' AS p FROM models ORDER BY name;
SELECT same(a.m, b.m) AS default_is_covariance FROM models a, models b WHERE a.name = 'default 0.5' AND b.name = 'covariance 0.5';

-- the model of mode gaussian reports the objective of eqs. 9-12 (brute force in
-- SQL), and no other model does better on it; likewise for mode covariance
SELECT abs(objective(m) - paper_objective(m)) / paper_objective(m) < 1e-9 AS paper_objective_matches,
	round(paper_objective(m)::numeric, 6) AS paper_objective
FROM models WHERE name = 'gaussian 0.5';
SELECT abs(objective(m) - covariance_objective(m)) / covariance_objective(m) < 1e-9 AS covariance_objective_matches,
	round(covariance_objective(m)::numeric, 6) AS covariance_objective
FROM models WHERE name = 'covariance 0.5';
SELECT paper_objective(g.m) < paper_objective(c.m) AS gaussian_minimizes_eq9,
	covariance_objective(c.m) < covariance_objective(g.m) AS covariance_minimizes_its_own
FROM models g, models c WHERE g.name = 'gaussian 0.5' AND c.name = 'covariance 0.5';

-- the two modes differ at p = 0.5 and coincide at p = 1 for rows of full rank
SELECT rel_diff(g.m, c.m) > 1e-2 AS modes_differ_at_half FROM models g, models c
WHERE g.name = 'gaussian 0.5' AND c.name = 'covariance 0.5';
SELECT same(g.m, c.m) AND same(g.m, w.m) AS modes_coincide_at_1 FROM models g, models c, models w
WHERE g.name = 'gaussian 1' AND c.name = 'covariance 1' AND w.name = 'whole';

-- diagonal and isotropic rows: the eigenvectors are the axes, so the projected
-- row is the mean and the variances with the dropped axes set to 0 by hand
SELECT same(a, b) AS diagonal
FROM (SELECT gsu.train(mean, '{0.1,0.6,0.3}'::float8[], label, '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train(ARRAY[0, mean[2], 0], '{0,0.6,0}'::float8[], label ORDER BY id) b FROM pts) s;
SELECT same(a, b) AS diagonal_two_axes
FROM (SELECT gsu.train(mean, '{0.1,0.6,0.3}'::float8[], label, '{"subspace_fraction": 0.8, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train(ARRAY[0, mean[2], mean[3]], '{0,0.6,0.3}'::float8[], label ORDER BY id) b FROM pts) s;
-- isotropic s*I: equal eigenvalues, the lower axes first (as for equal variances)
SELECT same(a, b) AS isotropic
FROM (SELECT gsu.train(mean, 0.3, label, '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train(ARRAY[mean[1], mean[2], 0], '{0.3,0.3,0}'::float8[], label ORDER BY id) b FROM pts) s;
-- a certain row (zero covariance) is left alone in both modes
SELECT same(a, b) AS certain_rows
FROM (SELECT gsu.train(mean, '{0,0,0}'::float8[], label, '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train(mean, NULL::float8[], label ORDER BY id) b FROM pts) s;

-- gsu.train's solvers, gsu.fit, gsu.gradient and gsu.train_sgd follow the mode
SELECT o->>'solver' AS solver, rel_diff(a, b) > 1e-3 AS modes_differ
FROM unnest(ARRAY['{"solver": "pegasos", "seed": 3}', '{"solver": "sgd", "seed": 3}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, cov, label, o || '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ORDER BY id) a,
		gsu.train(mean, cov, label, o || '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' ORDER BY id) b FROM rows2) s;
-- (gsu.fit reports its passes as notices)
SET client_min_messages = warning;
SELECT rel_diff(f, t) < 1e-4 AS fit_equals_train, gsu.describe(f)->'hyperparameters'->>'subspace_mode' AS mode
FROM (SELECT gsu.fit('rows2', 'mean', 'cov', 'label', '{"lambda": 0.1, "subspace_fraction": 0.5, "subspace_mode": "gaussian"}') f) a,
	(SELECT m AS t FROM models WHERE name = 'gaussian 0.5') b;
SELECT rel_diff(f, t) < 1e-4 AS fit_equals_train, gsu.describe(f)->'hyperparameters'->>'subspace_mode' AS mode
FROM (SELECT gsu.fit('rows2', 'mean', 'cov', 'label', '{"lambda": 0.1, "subspace_fraction": 0.5, "subspace_mode": "covariance"}') f) a,
	(SELECT m AS t FROM models WHERE name = 'covariance 0.5') b;
RESET client_min_messages;
-- the gradient at a model uses the model's mode: the sum of the losses is n times the data term of eqs. 9-12
SELECT p::text::jsonb->>'subspace_mode' AS mode,
	abs((p::text::jsonb->>'loss_sum')::float8 / 60 + 0.05 * (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w) - paper_objective(m)) < 1e-9 AS loss_sum_is_eq9
FROM models, LATERAL (SELECT gsu.gradient(mean, cov, label, m, 0 ORDER BY id) p FROM rows2) g WHERE name = 'gaussian 0.5';
SELECT p::text::jsonb->>'subspace_mode' AS mode,
	abs((p::text::jsonb->>'loss_sum')::float8 / 60 + 0.05 * (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w) - covariance_objective(m)) < 1e-9 AS loss_sum_is_own
FROM models, LATERAL (SELECT gsu.gradient(mean, cov, label, m, 0 ORDER BY id) p FROM rows2) g WHERE name = 'covariance 0.5';
SELECT p::text::jsonb->>'subspace_mode' AS mode, gsu.describe(gsu.to_model(p))->'hyperparameters'->>'subspace_mode' AS model_mode
FROM (SELECT gsu.sgd_partial(mean, cov, label, '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' ORDER BY id) p FROM rows2) s;
SELECT rel_diff(a, b) > 1e-3 AS train_sgd_modes_differ
FROM (SELECT gsu.train_sgd(mean, cov, label, '{"subspace_fraction": 0.5, "seed": 2, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train_sgd(mean, cov, label, '{"subspace_fraction": 0.5, "seed": 2, "subspace_mode": "covariance"}' ORDER BY id) b FROM rows2) s;

-- scoring is unchanged: a model scores the original rows, whatever its mode
SELECT bool_and(gsu.decision(m, mean) = ((gsu.weights(m))[1] * mean[1] + (gsu.weights(m))[2] * mean[2]) + gsu.bias(m)) AS scores_original_rows
FROM models, rows2 WHERE name = 'gaussian 0.5';

-- the mode in a model's text and binary forms, and in a partial's
SELECT gsu.describe(m::text::gsu.model)->'hyperparameters'->>'subspace_mode' AS text_round_trip
FROM models WHERE name = 'covariance 0.5';
SELECT m::text::gsu.model::text = m::text AS same_text, gsu.model_send(m::text::gsu.model) = gsu.model_send(m) AS same_binary
FROM models WHERE name = 'covariance 0.5';
SELECT substr(gsu.model_send(m), 1, 2) AS format, substr(gsu.model_send(m), 41, 4) AS mode_and_reserved
FROM models WHERE name IN ('gaussian 0.5', 'covariance 0.5') ORDER BY name;
-- a format-2 value (before the mode) reads as mode covariance
SELECT gsu.describe('{"format": 2, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_fraction": 0.5}}')->'hyperparameters'->>'subspace_mode' AS format2_mode;
SELECT gsu.describe('{"format": 3, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_fraction": 0.5}}')->'hyperparameters'->>'subspace_mode' AS format3_default_mode;

-- errors
SELECT test_error($$SELECT gsu.train(mean, cov, label, '{"subspace_mode": "paper"}') FROM rows2$$);
SELECT test_error($$SELECT gsu.train(mean, cov, label, '{"subspace_mode": 1}') FROM rows2$$);
SELECT test_error($$SELECT gsu.fit('rows2', 'mean', 'cov', 'label', '{"subspace_mode": "mean"}')$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, cov, label, '{"subspace_mode": ""}') FROM rows2$$);
SELECT test_error($$SELECT '{"format": 3, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_mode": "paper"}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_mode": "gaussian"}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "gradient", "dim": 1, "subspace_mode": "paper", "vector": [1, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "gradient", "dim": 1, "subspace_mode": "covariance", "vector": [1, 2]}'::gsu.partial$$);
-- binary: an unknown mode, a mode in a format-2 value, a reserved byte
CREATE TEMP TABLE recv_tmp (m gsu.model);
CREATE FUNCTION recv_model(b bytea) RETURNS gsu.model LANGUAGE plpgsql AS $$
DECLARE
	r gsu.model;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('subspace'));
	TRUNCATE recv_tmp;
	EXECUTE format('COPY recv_tmp FROM %L (FORMAT binary)', public.regress_file('subspace'));
	SELECT m INTO r FROM recv_tmp;
	RETURN r;
END
$$;
-- (format 2's bytes from the model without its history, a block format 2 never had)
SELECT gsu.describe(recv_model(overlay(gsu.model_send((m::jsonb - 'history')::gsu.model) placing '\x0002' from 1)))->'hyperparameters'->>'subspace_mode' AS format2_binary_mode
FROM models WHERE name = 'covariance 0.5';
SELECT test_error(format('SELECT recv_model(%L)', overlay(gsu.model_send(m) placing '\x02' from 41))) FROM models WHERE name = 'covariance 0.5';
SELECT test_error(format('SELECT recv_model(%L)', overlay(gsu.model_send((m::jsonb - 'history')::gsu.model) placing '\x0002' from 1))) FROM models WHERE name = 'gaussian 0.5';
SELECT test_error(format('SELECT recv_model(%L)', overlay(gsu.model_send(m) placing '\x01' from 42))) FROM models WHERE name = 'gaussian 0.5';
-- partials of different modes do not add up (below p = 1), nor do rows of a group
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.sgd_partial(mean, cov, label, o) p FROM rows2,
	unnest(ARRAY['{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}', '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}']::jsonb[]) o GROUP BY o) s$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, cov, label, CASE WHEN id = 7 THEN '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ELSE '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' END::jsonb ORDER BY id) FROM rows2$$);
SELECT test_error($$SELECT gsu.train(mean, cov, label, CASE WHEN id = 7 THEN '{"subspace_fraction": 0.5, "subspace_mode": "gaussian"}' ELSE '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' END::jsonb ORDER BY id) FROM rows2$$);

DROP SCHEMA test_subspace CASCADE;
