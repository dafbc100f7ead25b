-- gsu.fit on low-rank covariances given by their factor L (dim x r, r < dim,
-- Sigma = L L^T; issue 28, part 3): the scans read every factor through
-- L^T w (O(dim r) a row for a gradient, r rank-1 updates of a scan's Hessian)
-- and never form L L^T; the model is the one gsu.fit trains on the dense
-- L L^T, and the one gsu.train trains on the factors.  Mixed forms across
-- rows, and what gsu.fit still refuses.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_fit_lowrank;
SET search_path = test_fit_lowrank, public;
SET client_min_messages = warning;

-- a model's weights and bias rounded to 4 places
CREATE FUNCTION rounded(m gsu.model) RETURNS numeric[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array(SELECT round(w::numeric, 4) FROM unnest(gsu.weights(m) || gsu.bias(m)) w)
$$;

-- pts_lowrank (00_setup): pts with a rank-2 factor per row (dim 3) and its
-- dense L L^T; every tenth row stays certain (NULL); w a row weight
CREATE TABLE lr AS SELECT *, 1 + id % 3 AS w FROM pts_lowrank;
SELECT array_dims(f) AS factor, array_dims(c) AS dense, count(*) FILTER (WHERE f IS NULL) AS certain
FROM lr GROUP BY 1, 2 ORDER BY 1;

-- gsu.fit on the factors, gsu.fit on the dense L L^T and gsu.train on the factors:
-- the same model, rounded, for each solver and option the factors take
CREATE TABLE cases AS
SELECT o AS options, gsu.fit('lr', 'mean', 'f', 'label', o) AS fit_factor,
	gsu.fit('lr', 'mean', 'c', 'label', o) AS fit_dense,
	(SELECT gsu.train(mean, f, label, o - 'solver' ORDER BY id) FROM lr) AS train_factor
FROM unnest(ARRAY['{}', '{"solver": "lbfgs"}', '{"lambda": 0.1}', '{"standardize": true}',
				  '{"standardize": true, "solver": "lbfgs"}', '{"loss": "hinge"}',
				  '{"subspace_fraction": 0.6, "subspace_mode": "gaussian"}', '{"subspace_fraction": 0.6, "solver": "lbfgs"}',
				  '{"subspace_fraction": 0.6, "subspace_mode": "covariance"}',
				  '{"class_weight": "balanced"}']::jsonb[]) o;
SELECT options, rounded(fit_factor) = rounded(fit_dense) AS same_as_dense,
	rounded(fit_factor) = rounded(train_factor) AS same_as_train,
	(gsu.describe(fit_factor)->'training'->>'converged')::bool AS converged
FROM cases ORDER BY options::text;
-- the model, rounded
SELECT rounded(fit_factor) AS fit_factor, rounded(train_factor) AS train_factor
FROM cases WHERE options = '{}';
-- the weighted form
SELECT rounded(a) = rounded(b) AS same_as_dense, rounded(a) = rounded(t) AS same_as_train
FROM (SELECT gsu.fit('lr', 'mean', 'f', 'label', 'w', '{}') a, gsu.fit('lr', 'mean', 'c', 'label', 'w', '{}') b,
	(SELECT gsu.train(mean, f, label, w, '{}' ORDER BY id) FROM lr) t) s;
-- from a starting model ("init": no sample, the Newton scans from there on)
SELECT rounded(a) = rounded(b) AS same_as_dense, rounded(a) = rounded(t) AS same_as_train,
	(gsu.describe(a)->'training'->>'passes')::int > 1 AS scanned
FROM (SELECT gsu.fit('lr', 'mean', 'f', 'label', jsonb_build_object('init', h)) a,
	gsu.fit('lr', 'mean', 'c', 'label', jsonb_build_object('init', h)) b,
	(SELECT gsu.train(mean, f, label ORDER BY id) FROM lr) t
	FROM (SELECT gsu.fit('lr', 'mean', NULL, 'label', '{"loss": "hinge"}')::text::jsonb h) i) s;

-- one scan's sums: a factor row adds what its L L^T adds (gsu.gradient, gsu.hessian)
CREATE FUNCTION max_diff(a jsonb, b jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x::float8 - y::float8))
	FROM jsonb_array_elements_text(a->'vector') WITH ORDINALITY u(x, i)
	JOIN jsonb_array_elements_text(b->'vector') WITH ORDINALITY v(y, j) ON i = j
$$;
SELECT max_diff(a::text::jsonb, b::text::jsonb) < 1e-12 AS same_gradient,
	max_diff(ha::text::jsonb, hb::text::jsonb) < 1e-12 AS same_hessian
FROM (SELECT gsu.gradient(mean, f, label, m, 0.01) a, gsu.gradient(mean, c, label, m, 0.01) b,
	gsu.hessian(mean, f, label, m, 0.01, 0) ha, gsu.hessian(mean, c, label, m, 0.01, 0) hb
	FROM lr, (SELECT fit_factor AS m FROM cases WHERE options = '{}') c GROUP BY m) s;

-- mixed forms: gsu.fit keeps no buffer of one covariance form, so factor rows
-- mix with diagonal, full, isotropic-as-diagonal and certain rows and factors
-- of other ranks (gsu.train refuses these mixes, lowrank.sql): the model is
-- gsu.train's on the same rows with every factor written out as L L^T
CREATE TABLE mix AS
SELECT id, mean, label,
	CASE WHEN id % 4 = 0 THEN f
		 WHEN id % 4 = 1 AND f IS NOT NULL THEN ARRAY[[f[1][1]], [f[2][1]], [f[3][1]]]
		 WHEN id % 4 = 2 THEN ARRAY[0.05 + 0.1 * prand(id, 21), 0.05, 0.1]
		 ELSE c END AS v
FROM lr;
SELECT count(*) FILTER (WHERE array_length(v, 2) = 2) AS rank_2, count(*) FILTER (WHERE array_length(v, 2) = 1) AS rank_1,
	count(*) FILTER (WHERE array_ndims(v) = 1) AS diagonal, count(*) FILTER (WHERE array_length(v, 2) = 3) AS full,
	count(*) FILTER (WHERE v IS NULL) AS certain
FROM mix;
SELECT o AS options, rounded(a) = rounded(t) AS same_as_train_on_dense
FROM unnest(ARRAY['{}', '{"solver": "lbfgs"}', '{"standardize": true}']::jsonb[]) o,
	LATERAL (SELECT gsu.fit('mix', 'mean', 'v', 'label', o) a,
		(SELECT gsu.train(mean, CASE WHEN array_length(v, 2) < 3 THEN factor_product(v) ELSE v END, label, o - 'solver' ORDER BY id)
		 FROM mix) t) s
ORDER BY o::text;

-- a parallel scan: the factor rows of the workers' partials add up to the serial sums
CREATE TABLE lr_big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	CASE WHEN i % 10 <> 0 THEN ARRAY[[0.5 * prand(i, 11)], [0.4 * prand(i, 13) - 0.2], [0.2 * prand(i, 15)]] END AS f,
	l AS label
FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE lr_big SET (parallel_workers = 2);
ANALYZE lr_big;
CREATE TABLE serial AS
SELECT gsu.hessian(mean, f, label, NULL::gsu.model, 0.001, 0)::text::jsonb AS h,
	(SELECT gsu.fit('lr_big', 'mean', 'f', 'label')) AS m FROM lr_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT workers_launched($$CREATE TABLE par AS SELECT gsu.hessian(mean, f, label, NULL::gsu.model, 0.001, 0)::text::jsonb AS h FROM lr_big$$);
SELECT max_diff(s.h, p.h) < 1e-9 AS same_hessian, (p.h->>'rows')::int AS rows FROM serial s, par p;
SELECT rounded(gsu.fit('lr_big', 'mean', 'f', 'label')) = rounded(m) AS same_model FROM serial;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- a table larger than gsu.max_training_memory: the sample holds part of the rows, and
-- Newton scans of the factors (or of their dense L L^T) reach gsu.train's model
CREATE TABLE lr_big_dense AS SELECT id, mean, factor_product(f) AS c, label FROM lr_big;
CREATE TABLE big_train AS SELECT gsu.train(mean, f, label ORDER BY id) AS t FROM lr_big;
SET gsu.max_training_memory = '64kB';
SELECT rounded(a) = rounded(t) AS same_as_train, rounded(b) = rounded(t) AS dense_same_as_train,
	(gsu.describe(a)->'training'->>'passes')::int > 2 AS scanned,
	(gsu.describe(a)->'training'->>'converged')::bool AS converged
FROM (SELECT gsu.fit('lr_big', 'mean', 'f', 'label') a, gsu.fit('lr_big_dense', 'mean', 'c', 'label') b) s, big_train;
RESET gsu.max_training_memory;

RESET client_min_messages;
-- what gsu.fit refuses on factor rows as on any rows, as gsu.train refuses factors
-- there: the worst-case losses and feature maps
SELECT test_error($$SELECT gsu.fit('lr', 'mean', 'f', 'label', '{"loss": "robust"}')$$);
SELECT test_error($$SELECT gsu.fit('lr', 'mean', 'f', 'label', '{"loss": "tsvc"}')$$);
SELECT test_error($$SELECT gsu.fit('lr', 'mean', 'f', 'label', '{"features": {"map": "rff", "dim": 8, "sigma": 1, "seed": 3}}')$$);
-- a factor must have the mean's dimension and finite elements, in both solvers
CREATE TABLE bad AS SELECT id, mean, label, CASE WHEN id = 7 THEN '{{1},{0}}'::float8[] ELSE f END AS f FROM lr;
SELECT test_error($$SELECT gsu.fit('bad', 'mean', 'f', 'label')$$);
SELECT test_error($$SELECT gsu.fit('bad', 'mean', 'f', 'label', '{"solver": "lbfgs"}')$$);
UPDATE bad SET f = '{{1,0},{0,NaN},{0,0}}' WHERE id = 7;
SELECT test_error($$SELECT gsu.fit('bad', 'mean', 'f', 'label')$$);
SELECT test_error($$SELECT gsu.fit('bad', 'mean', 'f', 'label', '{"solver": "lbfgs"}')$$);

SET client_min_messages = warning;
DROP SCHEMA test_fit_lowrank CASCADE;
RESET client_min_messages;
RESET search_path;
