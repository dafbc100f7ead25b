-- gsu.train with the loss psvm (Power SVM, Zhang, Yu & Teng, CVPR 2012): each
-- row is a ball of the radius given by the float8 argument, and its loss is
-- the best case over the ball, max(0, 1 - y(w'x + b) - r*||w||).  What the
-- model records, facts about the solution checked in SQL, the relation to
-- tsvc and to the hinge SVM, scoring, round trips and every error.
\set SHOW_CONTEXT never
CREATE SCHEMA test_psvm;
SET search_path = test_psvm, public;

-- z uniform in [-5, 5]^2, label sign(z1 - z2), observed with noise of scale
-- sig (larger for every fifth row); the radius of a row is its sig
CREATE TABLE ps AS
SELECT id, ARRAY[z0 + sig * pnorm(id, 3), z1 + sig * pnorm(id, 4)] AS mean,
	sig AS radius, CASE WHEN z0 - z1 >= 0 THEN 1 ELSE -1 END AS label
FROM (SELECT id, -5 + 10 * prand(id, 1) AS z0, -5 + 10 * prand(id, 2) AS z1,
		CASE WHEN id % 5 = 0 THEN 2 + 2 * prand(id, 5) ELSE 0.5 * prand(id, 5) END AS sig
	  FROM generate_series(1, 200) id) s;

CREATE TABLE models AS
SELECT name, m FROM (VALUES
	('psvm', (SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "lambda": 0.01}' ORDER BY id) FROM ps)),
	('hinge', (SELECT gsu.train(mean, NULL::float8, label, '{"loss": "hinge", "lambda": 0.01}' ORDER BY id) FROM ps)),
	('psvm radius 0', (SELECT gsu.train(mean, 0.0::float8, label, '{"loss": "psvm", "lambda": 0.01}' ORDER BY id) FROM ps)),
	('psvm radius null', (SELECT gsu.train(mean, NULL::float8, label, '{"loss": "psvm", "lambda": 0.01}' ORDER BY id) FROM ps)),
	-- tsvc derives delta_i = sqrt(mean variance): an isotropic variance r^2 is radius r
	('tsvc alternating r^2', (SELECT gsu.train(mean, radius * radius, label,
		'{"loss": "tsvc", "tsvc_algorithm": "alternating", "lambda": 0.01}' ORDER BY id) FROM ps))
) v(name, m);

-- what the model records: the loss, no norm bound, the ball's q = 2
SELECT gsu.describe(m) -> 'loss' AS loss, gsu.describe(m) -> 'hyperparameters' AS hyperparameters
FROM models WHERE name = 'psvm';
SELECT m::jsonb ->> 'loss' AS loss, (m::jsonb -> 'hyperparameters') ? 'gamma' AS has_gamma,
	(m::jsonb -> 'hyperparameters') ? 'delta_scale' AS has_delta_scale,
	(m::jsonb -> 'training' ->> 'rows')::int AS rows, (m::jsonb -> 'training' ->> 'converged')::bool AS converged
FROM models WHERE name = 'psvm';

-- PSVM's objective lambda/2 ||w||^2 + mean of max(0, 1 - y(w'x + b) - r||w||), in SQL
CREATE FUNCTION psvm_objective(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT 0.5 * 0.01 * wn * wn + avg(greatest(0, 1 - label * gsu.decision(m, mean) - radius * wn))
	FROM ps, (SELECT sqrt(sum(w * w)) AS wn FROM unnest(gsu.weights(m)) w) n
	GROUP BY wn
$$;
-- the model's objective is the PSVM objective of its weights
SELECT abs((m::jsonb -> 'training' ->> 'objective')::float8 - psvm_objective(m)) < 1e-9 AS objective_is_psvm
FROM models WHERE name = 'psvm';
-- the alternating algorithm starts from the hinge SVM and never increases the objective
SELECT psvm_objective(p.m) <= psvm_objective(h.m) + 1e-9 AS not_above_hinge,
	psvm_objective(p.m) < psvm_objective(h.m) - 1e-3 AS strictly_below
FROM models p, models h WHERE p.name = 'psvm' AND h.name = 'hinge';
-- no small move of the weights lowers it (a local minimum of the non-convex objective)
SELECT bool_and(psvm_objective(format('{"format": 1, "dim": 2, "weights": [%s, %s], "bias": %s}',
		w[1] + 1e-3 * pnorm(k, 1), w[2] + 1e-3 * pnorm(k, 2), b + 1e-3 * pnorm(k, 3))::gsu.model)
		>= psvm_objective(m) - 1e-6) AS local_minimum
FROM models, LATERAL (SELECT gsu.weights(m) AS w, gsu.bias(m) AS b) wb, generate_series(1, 30) k
WHERE name = 'psvm';

-- radius 0 (or NULL) everywhere: the hinge SVM's weights and bias
CREATE FUNCTION same_model(a gsu.model, b gsu.model, tol float8) RETURNS bool LANGUAGE sql STABLE AS $$
	SELECT max(abs(x - y)) < tol AND abs(gsu.bias(a) - gsu.bias(b)) < tol
	FROM unnest(gsu.weights(a), gsu.weights(b)) u(x, y)
$$;
SELECT p.name, same_model(p.m, h.m, 1e-9) AS same_as_hinge
FROM models p, models h
WHERE p.name IN ('psvm radius 0', 'psvm radius null') AND h.name = 'hinge' ORDER BY p.name;
SELECT gsu.describe(m) -> 'loss' AS loss FROM models WHERE name = 'psvm radius 0';
-- ... and positive radii give another model
SELECT same_model(p.m, h.m, 1e-3) AS psvm_is_hinge FROM models p, models h WHERE p.name = 'psvm' AND h.name = 'hinge';

-- psvm with radius r is tsvc's alternating algorithm with the isotropic variance r^2
SELECT same_model(p.m, t.m, 1e-9) AS same_as_tsvc
FROM models p, models t WHERE p.name = 'psvm' AND t.name = 'tsvc alternating r^2';

-- scoring works as for any linear model
SELECT avg((gsu.predict(m, mean) = label)::int) > 0.9 AS accurate,
	bool_and(gsu.decision(m, mean) = (SELECT sum(w * x) FROM unnest(gsu.weights(m), mean) u(w, x)) + gsu.bias(m))
		AS decision_is_linear,
	bool_and(gsu.confidence(m, mean, ARRAY[radius * radius]) BETWEEN 0.5 AND 1) AS confidence_ok
FROM models, ps WHERE name = 'psvm';

-- weighted classes, per-row weights and more than two classes
SELECT (SELECT gsu.describe(gsu.train(mean, radius, label,
		'{"loss": "psvm", "class_weight": "balanced"}')) ->> 'loss' FROM ps) AS balanced,
	(SELECT gsu.classes(gsu.train(mean, radius, (mean[1] > 0)::int + (mean[2] > 0)::int, '{"loss": "psvm"}'))
	 FROM ps) AS classes;

-- round trips: text, jsonb and binary
SELECT m::text::gsu.model::text = m::text AS text_same, m::jsonb::gsu.model::text = m::text AS jsonb_same,
	gsu.weights(m::text::gsu.model) = gsu.weights(m) AS same_weights
FROM models WHERE name = 'psvm';
CREATE TABLE copied (m gsu.model);
SELECT regress_file('psvm') AS regress_file \gset
COPY (SELECT m FROM models WHERE name = 'psvm') TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT c.m::text = p.m::text AS binary_same FROM copied c, models p WHERE p.name = 'psvm';
SELECT '{"format": 1, "loss": "psvm", "dim": 2, "weights": [1, -1], "bias": 0.5}'::gsu.model;

-- errors: the radius must be a finite non-negative float8
SELECT test_error($$SELECT gsu.train(mean, -0.5::float8, label, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, 'NaN'::float8, label, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, 'Infinity'::float8, label, '{"loss": "psvm"}') FROM ps$$);
-- a variance array (diagonal or full) has no radius
SELECT test_error($$SELECT gsu.train(mean, ARRAY[radius, radius], label, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, ARRAY[[radius, 0], [0, radius]], label, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, ARRAY[radius, radius], label > 0, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, ARRAY[radius, radius], label, 1.0, '{"loss": "psvm"}') FROM ps$$);
-- ... but a NULL array is a certain row
SELECT gsu.describe(gsu.train(mean, NULL::float8[], label, '{"loss": "psvm"}')) ->> 'loss' AS loss FROM ps;
-- options that do not apply to psvm
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "solver": "pegasos"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "solver": "sgd"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "gamma": 2}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "delta_scale": 2}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "tsvc_algorithm": "alternating"}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "confidence": 0.9}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "subspace_fraction": 0.5}') FROM ps$$);
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "features": {"map": "rff", "dim": 10, "sigma": 1}}') FROM ps$$);
SELECT test_error(format($$SELECT gsu.train(mean, radius, label, '{"loss": "psvm", "init": %s}') FROM ps$$,
	(SELECT m::text FROM models WHERE name = 'psvm')));
-- the other training paths refuse psvm
SELECT test_error($$SELECT gsu.train_sgd(mean, ARRAY[radius, radius], label, '{"loss": "psvm"}') FROM ps$$);
SELECT test_error($$SELECT gsu.fit('test_psvm.ps', 'mean', 'ARRAY[radius, radius]', 'label', '{"loss": "psvm"}')$$);
-- a stored psvm model takes no norm bound
SELECT test_error($$SELECT '{"format": 1, "loss": "psvm", "dim": 1, "weights": [1], "bias": 0, "hyperparameters": {"gamma": 1}}'::gsu.model$$);
-- the list of losses names psvm
SELECT test_error($$SELECT gsu.train(mean, radius, label, '{"loss": "power"}') FROM ps$$);

DROP SCHEMA test_psvm CASCADE;
RESET search_path;
