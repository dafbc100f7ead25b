-- Low-rank covariances given by their factor: a dim x r float8[] with r < dim
-- is L of Sigma = L L^T (issue 28, part 3).  Training on factors is training
-- on the dense L L^T; scoring a factor is scoring L L^T; the errors.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_lowrank;
SET search_path = test_lowrank, public;

CREATE FUNCTION rel_diff(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / sqrt(sum(x ^ 2))
	FROM unnest(gsu.weights(a) || gsu.bias(a), gsu.weights(b) || gsu.bias(b)) u(x, y)
$$;

-- pts_lowrank (00_setup): pts with a rank-2 factor per row (dim 3) and its
-- dense L L^T; every tenth row stays certain (NULL)
CREATE TABLE lr AS SELECT * FROM pts_lowrank;
SELECT array_dims(f) AS factor, array_dims(c) AS dense FROM lr WHERE id = 1;
SELECT count(*) FILTER (WHERE f IS NULL) AS certain FROM lr;

-- training: factor rows and their dense covariances give the same model
SELECT o AS options, rel_diff(a, b) < 1e-6 AS same
FROM unnest(ARRAY['{}', '{"solver": "pegasos"}', '{"solver": "sgd"}', '{"standardize": true}',
				  '{"loss": "hinge"}', '{"lambda": 0.1, "tolerance": 1e-9}',
				  '{"subspace_fraction": 0.6, "subspace_mode": "gaussian"}', '{"subspace_fraction": 0.9, "solver": "pegasos"}',
				  '{"subspace_fraction": 0.6, "subspace_mode": "covariance"}']::jsonb[]) o,
	LATERAL (SELECT gsu.train(mean, f, label, o ORDER BY id) a, gsu.train(mean, c, label, o ORDER BY id) b FROM lr) s;
-- (the restriction does change the model: one of the two directions is dropped for most rows)
SELECT rel_diff(a, b) > 1e-3 AS restricted, rel_diff(a, c) > 1e-3 AS modes_differ
FROM (SELECT gsu.train(mean, f, label, '{"subspace_fraction": 0.6, "subspace_mode": "gaussian"}' ORDER BY id) a,
	gsu.train(mean, f, label ORDER BY id) b,
	gsu.train(mean, f, label, '{"subspace_fraction": 0.6, "subspace_mode": "covariance"}' ORDER BY id) c FROM lr) s;
-- the model, rounded
SELECT array(SELECT round(w::numeric, 4) FROM unnest(gsu.weights(m)) w) AS weights, round(gsu.bias(m)::numeric, 4) AS bias
FROM (SELECT gsu.train(mean, f, label ORDER BY id) m FROM lr) s;
SELECT array(SELECT round(w::numeric, 4) FROM unnest(gsu.weights(m)) w) AS weights, round(gsu.bias(m)::numeric, 4) AS bias
FROM (SELECT gsu.train(mean, c, label ORDER BY id) m FROM lr) s;
-- the weighted form and several classes
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, f, label, 1 + id % 3, '{}' ORDER BY id) a,
	gsu.train(mean, c, label, 1 + id % 3, '{}' ORDER BY id) b FROM lr) s;
-- (the one-vs-rest problems stop at the rounding floor near the tolerance on some builds: warnings hidden)
SET client_min_messages = error;
SELECT gsu.classes(a) AS classes,
	(SELECT max(abs(x - y)) FROM unnest(gsu.weights(a, 2), gsu.weights(b, 2)) u(x, y)) < 1e-6 AS same
FROM (SELECT gsu.train(mean, f, id % 3 ORDER BY id) a, gsu.train(mean, c, id % 3 ORDER BY id) b FROM lr) s;
RESET client_min_messages;
-- certain rows before the factors and after them
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, f, label ORDER BY f IS NOT NULL, id) a,
	gsu.train(mean, f, label ORDER BY f IS NULL, id) b FROM lr) s;
-- rank 1: L = one column; an all-zero factor is a certain row
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(mean, f1, label ORDER BY id) a, gsu.train(mean, factor_product(f1), label ORDER BY id) b
	FROM (SELECT id, mean, label, CASE WHEN f IS NOT NULL THEN ARRAY[[f[1][1]], [f[2][1]], [f[3][1]]] END AS f1 FROM lr) s) t;
SELECT rel_diff(a, b) < 1e-9 AS same
FROM (SELECT gsu.train(mean, '{{0},{0},{0}}'::float8[], label ORDER BY id) a,
	gsu.train(mean, NULL::float8[], label ORDER BY id) b FROM lr) s;

-- scoring: a factor is scored as its L L^T
CREATE TABLE lr_model AS SELECT gsu.train(mean, c, label) AS m FROM lr;
SELECT max(abs(gsu.confidence(m, mean, f) - gsu.confidence(m, mean, c))) < 1e-12 AS confidence,
	max(abs(gsu.expected_loss(m, mean, f, label) - gsu.expected_loss(m, mean, c, label))) < 1e-12 AS expected_loss
FROM lr, lr_model;
-- the three least confident rows
SELECT id, round(gsu.confidence(m, mean, f)::numeric, 6) AS confidence,
	round(gsu.expected_loss(m, mean, f, label)::numeric, 6) AS expected_loss
FROM lr, lr_model WHERE f IS NOT NULL ORDER BY gsu.confidence(m, mean, f) LIMIT 3;
SELECT a.feature, round(a.contribution::numeric, 6) AS contribution,
	round(a.variance_share::numeric, 6) AS share, abs(a.variance_share - b.variance_share) < 1e-12 AS same
FROM lr, lr_model, gsu.explain(m, mean, f) a JOIN gsu.explain(m, mean, c) b USING (class, feature)
WHERE id = 1 ORDER BY feature;

-- a parallel plan: the factor rows travel between the processes with their rank
CREATE TABLE lr_big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	CASE WHEN i % 10 <> 0 THEN ARRAY[[0.5 * prand(i, 11)], [0.4 * prand(i, 13) - 0.2], [0.2 * prand(i, 15)]] END AS f,
	l AS label
FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE lr_big SET (parallel_workers = 2);
ANALYZE lr_big;
CREATE TABLE lr_serial AS SELECT gsu.train(mean, f, label) AS m FROM lr_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
SELECT workers_launched($$CREATE TABLE lr_par AS SELECT gsu.train(mean, f, label) AS m FROM lr_big$$);
SELECT rel_diff(s.m, p.m) < 1e-6 AS same FROM lr_serial s, lr_par p;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET gsu.parallel_training;

-- images: gsu.image_covariance_factor is the n x 2 factor of gsu.image_covariance, and
-- training on the factors is training on the dense covariances (40 images of 4 x 4 pixels,
-- the class a bright left or right half)
CREATE TABLE lr_img AS
SELECT i AS id, l AS label,
	ARRAY(SELECT (CASE WHEN (p % 4 < 2) = (l = 1) THEN 1.0 ELSE 0.2 END) + 0.3 * prand(i, p)
		  FROM generate_series(0, 15) p) AS img
FROM generate_series(1, 40) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
SELECT array_dims(gsu.image_covariance_factor(img, 4, 4, 0.5)) AS factor,
	array_dims(gsu.image_covariance_factor(ARRAY[[1, 2, 3], [4, 5, 7]]::float8[], 0.5)) AS factor_2d,
	(SELECT max(abs(x - y)) FROM unnest(factor_product(gsu.image_covariance_factor(img, 4, 4, 0.5)),
										gsu.image_covariance(img, 4, 4, 0.5)) u(x, y)) < 1e-12 AS llt_is_the_covariance
FROM lr_img WHERE id = 1;
SELECT gsu.image_covariance_factor(ARRAY[[1, 2, 3], [4, 5, 7]]::float8[], 0.25) AS factor_2d;
SELECT rel_diff(a, b) < 1e-6 AS same
FROM (SELECT gsu.train(img, gsu.image_covariance_factor(img, 4, 4, 0.5), label, '{"lambda": 0.05}' ORDER BY id) a,
	gsu.train(img, gsu.image_covariance(img, 4, 4, 0.5), label, '{"lambda": 0.05}' ORDER BY id) b FROM lr_img) s;
SELECT max(abs(gsu.confidence(m, img, gsu.image_covariance_factor(img, 4, 4, 0.5))
		   - gsu.confidence(m, img, gsu.image_covariance(img, 4, 4, 0.5)))) < 1e-12 AS same_confidence
FROM lr_img, (SELECT gsu.train(img, gsu.image_covariance(img, 4, 4, 0.5), label, '{"lambda": 0.05}') m FROM lr_img) t;
-- in many dimensions with few rows (12 images of 12 x 12 pixels, rank-2 factors: 12 * 3 <=
-- 144 / 2) newton trains in the span of the means and the factors' columns, read off a QR
-- factorization of the factors themselves: the same model as the dense covariances (whose
-- span comes from their pivoted Cholesky factors) and as the same rows three times over,
-- which are too many to be reduced and train on all 144 pixels (the mean loss is the same)
CREATE TABLE lr_img12 AS
SELECT i AS id, l AS label,
	ARRAY(SELECT (CASE WHEN (p % 12 < 6) = (l = 1) THEN 1.0 ELSE 0.2 END) + 0.3 * prand(i, p)
		  FROM generate_series(0, 143) p) AS img
FROM generate_series(1, 12) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
-- (at lambda 10 the optimum is sharp: the same weights; at 0.05 it is flat along some
-- directions and the tolerance leaves the weights apart by up to 1e-3, the objectives by
-- about 1e-7, as a relative gradient of 1e-6 allows)
SELECT lam, rel_diff(a, b) < 1e-9 AS same_as_dense, rel_diff(a, c) < 1e-9 AS same_as_unreduced
FROM unnest(ARRAY[10]) lam,
	LATERAL (SELECT gsu.train(img, gsu.image_covariance_factor(img, 12, 12, 0.5), label, jsonb_build_object('lambda', lam) ORDER BY id) a,
		gsu.train(img, gsu.image_covariance(img, 12, 12, 0.5), label, jsonb_build_object('lambda', lam) ORDER BY id) b
		FROM lr_img12) s,
	LATERAL (SELECT gsu.train(img, gsu.image_covariance_factor(img, 12, 12, 0.5), label, jsonb_build_object('lambda', lam) ORDER BY id, k) c
		FROM lr_img12, generate_series(1, 3) k) t;
SET client_min_messages = error;	-- newton's warning that the tolerance was met short of the gap
SELECT abs(oa / ob - 1) < 1e-5 AS same_objective_as_dense, abs(oa / oc - 1) < 1e-5 AS same_objective_as_unreduced
FROM (SELECT (gsu.describe(gsu.train(img, gsu.image_covariance_factor(img, 12, 12, 0.5), label, '{"lambda": 0.05}' ORDER BY id))->'training'->>'objective')::float8 oa,
		(gsu.describe(gsu.train(img, gsu.image_covariance(img, 12, 12, 0.5), label, '{"lambda": 0.05}' ORDER BY id))->'training'->>'objective')::float8 ob
		FROM lr_img12) s,
	(SELECT (gsu.describe(gsu.train(img, gsu.image_covariance_factor(img, 12, 12, 0.5), label, '{"lambda": 0.05}' ORDER BY id, k))->'training'->>'objective')::float8 oc
		FROM lr_img12, generate_series(1, 3) k) t;
RESET client_min_messages;
-- fewer than 3 pixels: no factor; the translation variance as for the covariance
SELECT test_error($$SELECT gsu.image_covariance_factor(ARRAY[1, 2]::float8[], 2, 1, 0.5)$$);
SELECT test_error($$SELECT gsu.image_covariance_factor(ARRAY[1, 2, 3]::float8[], 3, 1, -1)$$);
SELECT test_error($$SELECT gsu.image_covariance_factor(ARRAY[1, 2, 3]::float8[], 2, 2, 1)$$);

-- errors
-- factors of two ranks in one training
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id < 5 THEN '{{1},{0},{0}}'::float8[] ELSE f END, label ORDER BY id) FROM lr$$);
-- a factor after diagonal variances, and diagonal, full or isotropic rows after a factor
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id < 5 THEN '{0.1,0.1,0.1}'::float8[] ELSE f END, label ORDER BY id) FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id > 5 THEN '{0.1,0.1,0.1}'::float8[] ELSE f END, label ORDER BY id) FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, CASE WHEN id > 5 THEN c ELSE f END, label ORDER BY id) FROM lr$$);
-- r >= dim: 3 x 3 is a full covariance (checked symmetric), 3 x 4 no variance at all
SELECT test_error($$SELECT gsu.train(mean, '{{1,2,0},{0,1,0},{0,0,1}}'::float8[], label) FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, '{{1,0,0,0},{0,1,0,0},{0,0,1,0}}'::float8[], label) FROM lr$$);
-- wrong dimensions, a NaN, an infinity, a NULL element
SELECT test_error($$SELECT gsu.train(mean, '{{1},{0}}'::float8[], label) FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, '{{1,0},{0,NaN},{0,0}}'::float8[], label) FROM lr$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,0,0}', '{{1},{Infinity},{0}}'::float8[]) FROM lr_model$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,0,0}', '{{1},{NULL},{0}}'::float8[], 1) FROM lr_model$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,0,0}', '{{1,0,0,0},{0,1,0,0},{0,0,1,0}}'::float8[]) FROM lr_model$$);
-- what does not take a factor yet: 0A000
SELECT test_error($$SELECT gsu.train(mean, f, label, '{"loss": "robust"}') FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, f, label, '{"loss": "tsvc"}') FROM lr$$);
SELECT test_error($$SELECT gsu.train(mean, f, label, '{"features": {"map": "rff", "dim": 8, "sigma": 1, "seed": 3}}') FROM lr$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, f, label, '{}') FROM lr$$);
SELECT test_error($$SELECT gsu.geu_fit(mean, f, label) FROM lr$$);
-- gsu.max_training_memory counts a factor row at dim * r doubles (6000 rows of dim 3, r 1:
-- 3 + 1 + 3 doubles a row); its hint names gsu.fit, which takes factors (fit_lowrank.sql)
SET gsu.max_training_memory = '64kB';
SELECT test_error($$SELECT gsu.train(mean, f, label) FROM lr_big$$);
RESET gsu.max_training_memory;
-- the hinge loss ignores covariances, factors too
SELECT gsu.train(mean, f, label, '{"loss": "hinge"}') IS NOT NULL AS trained FROM lr;

-- newton's dual finish (src/core/gsu_polish_dual.c): at lambda 1e-6, on rows with rank-2
-- factors that are separable, a training stopped after one newton iteration still ends
-- converged, its gap certified within 1e-9 of its objective, and no higher than a long run's
CREATE TABLE lr_dual AS
SELECT i AS id,
       ARRAY(SELECT (CASE WHEN i % 2 = 0 THEN 0.8 ELSE -0.8 END) + sin(i * 7 + j * 3) FROM generate_series(1, 6) j) AS mean,
       ARRAY(SELECT ARRAY[0.3 * cos(i * 5 + j), 0.2 * sin(i + 11 * j)] FROM generate_series(1, 6) j) AS f,
       CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 30) i;
SELECT s->>'converged' AS converged, s->>'iterations' AS iterations,
       (s->>'gap_estimate')::float8 <= 1e-9 * (s->>'objective')::float8 AS certified,
       (s->>'objective')::float8 <= (l->>'objective')::float8 * (1 + 1e-12) AS not_above_long_run
FROM (SELECT gsu.describe(gsu.train(mean, f, label, '{"lambda": 1e-6, "max_iterations": 1}'))->'training' AS s,
             gsu.describe(gsu.train(mean, f, label, '{"lambda": 1e-6, "max_iterations": 20000}'))->'training' AS l
      FROM lr_dual) q;

DROP SCHEMA test_lowrank CASCADE;
RESET search_path;
