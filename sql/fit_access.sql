-- gsu.fit, gsu.cross_validate and gsu.train_best read exactly the rows that
-- SELECT ... FROM relation returns to the caller (issue 27): the privileges and
-- row-level security policies of the relation named, not of its partitions, and
-- no column the caller did not name; they take the column types gsu.train takes
-- and refuse the others up front; past gsu.max_training_memory gsu.train's hint
-- names a gsu.fit call only when that call trains on the same rows.
\set SHOW_CONTEXT never
CREATE SCHEMA test_fit_access;
SET search_path = test_fit_access, public;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION training(m gsu.model, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>key)::float8
$$;
CREATE FUNCTION rel_objective(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT abs(training(a, 'objective') - training(b, 'objective')) / training(b, 'objective')
$$;
-- the HINT of the error a statement raises (its message and detail count bytes)
CREATE FUNCTION hint_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	h text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
	RETURN h;
END
$$;

-- ------------------------------------------------ partitions, privileges, policies

-- a partitioned table with a policy on the parent: a role sees the rows of
-- id % 4 = 0 or id < 60 (130 of 400); a column "secret" that no role may read
CREATE TABLE acc (id int, mean float8[], variance float8[], label int4, w float8, secret float8)
	PARTITION BY RANGE (id);
CREATE TABLE acc_lo PARTITION OF acc FOR VALUES FROM (MINVALUE) TO (201);
CREATE TABLE acc_hi PARTITION OF acc FOR VALUES FROM (201) TO (MAXVALUE);
INSERT INTO acc SELECT id, mean, variance, label, 1 + id % 3, 1 FROM pts;
ALTER TABLE acc ENABLE ROW LEVEL SECURITY;
CREATE POLICY acc_some ON acc USING (id % 4 = 0 OR id < 60);
CREATE ROLE regress_gsu_fit_all;		-- SELECT on the parent and on the partitions
CREATE ROLE regress_gsu_fit_parent;		-- SELECT on the parent only
CREATE ROLE regress_gsu_fit_leaves;		-- SELECT on the partitions only
CREATE ROLE regress_gsu_fit_cols;		-- SELECT on the parent's named columns only
GRANT USAGE ON SCHEMA gsu, test_fit_access TO regress_gsu_fit_all, regress_gsu_fit_parent,
	regress_gsu_fit_leaves, regress_gsu_fit_cols;
GRANT SELECT ON acc, acc_lo, acc_hi TO regress_gsu_fit_all;
GRANT SELECT ON acc TO regress_gsu_fit_parent;
GRANT SELECT ON acc_lo, acc_hi TO regress_gsu_fit_leaves;
GRANT SELECT (id, mean, variance, label, w) ON acc TO regress_gsu_fit_cols;
-- the owner (a superuser) bypasses the policy: every row
SELECT count(*) AS owner_sees, training(gsu.fit('acc', 'mean', 'variance', 'label'), 'rows') AS owner_fit_rows FROM acc;

-- the attack: SELECT on the partitions too, the policy on the parent. gsu.fit trains on
-- the rows the role sees, to gsu.train's optimum on them, for every solver and form
SET ROLE regress_gsu_fit_all;
SELECT count(*) AS role_sees FROM acc;
CREATE TEMP TABLE seen AS
SELECT 'newton' AS name, gsu.fit('acc', 'mean', 'variance', 'label', '{"lambda": 0.01}') AS f,
	(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') FROM acc) AS t
UNION ALL SELECT 'lbfgs', gsu.fit('acc', 'mean', 'variance', 'label', '{"lambda": 0.01, "solver": "lbfgs"}'),
	(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') FROM acc)
UNION ALL SELECT 'standardize', gsu.fit('acc', 'mean', 'variance', 'label', '{"lambda": 0.01, "standardize": true}'),
	(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "standardize": true}') FROM acc)
UNION ALL SELECT 'hinge', gsu.fit('acc', 'mean', NULL, 'label', '{"lambda": 0.01, "loss": "hinge"}'),
	(SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 0.01, "loss": "hinge"}') FROM acc)
UNION ALL SELECT 'weighted', gsu.fit('acc', 'mean', 'variance', 'label', 'w', '{"lambda": 0.01}'),
	(SELECT gsu.train(mean, variance, label, w, '{"lambda": 0.01}') FROM acc)
UNION ALL SELECT 'balanced', gsu.fit('acc', 'mean', 'variance', 'label', '{"lambda": 0.01, "class_weight": "balanced"}'),
	(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "class_weight": "balanced"}') FROM acc);
SELECT name, training(f, 'rows') AS fit_rows, training(t, 'rows') AS train_rows,
	rel_objective(f, t) < 1e-6 AS same_optimum
FROM seen ORDER BY name;
-- cross-validation and train_best read the same rows
SELECT fold_count FROM gsu.cross_validate('acc', 'mean', 'variance', 'label', ARRAY[0.01], 3);
SELECT training(gsu.train_best('acc', 'mean', 'variance', 'label', ARRAY[0.01, 0.1], 3), 'rows') AS best_rows;
RESET ROLE;

-- SELECT on the parent only: gsu.fit works, on the rows of the policy
SET ROLE regress_gsu_fit_parent;
SELECT training(gsu.fit('acc', 'mean', 'variance', 'label'), 'rows') AS parent_only_rows,
	training(gsu.fit('acc', 'mean', 'variance', 'label', '{"solver": "lbfgs"}'), 'rows') AS parent_only_lbfgs_rows;
RESET ROLE;
-- SELECT on the partitions only: refused as SELECT ... FROM acc is
SET ROLE regress_gsu_fit_leaves;
SET client_min_messages = notice;
SELECT test_error($$SELECT count(*) FROM acc$$);
SELECT test_error($$SELECT gsu.fit('acc', 'mean', 'variance', 'label')$$);
SELECT test_error($$SELECT * FROM gsu.cross_validate('acc', 'mean', 'variance', 'label', ARRAY[0.01], 3)$$);
SET client_min_messages = warning;
RESET ROLE;
-- SELECT on the named columns only: gsu.fit, cross_validate (both forms, without an
-- id column: the folds hash the named columns) and train_best read no other column
SET ROLE regress_gsu_fit_cols;
SET client_min_messages = notice;
SELECT test_error($$SELECT count(secret) FROM acc$$);
SET client_min_messages = warning;
SELECT training(gsu.fit('acc', 'mean', 'variance', 'label', 'w', NULL), 'rows') AS cols_rows;
SELECT lambda, fold_count FROM gsu.cross_validate('acc', 'mean', 'variance', 'label', ARRAY[0.01], 3);
SELECT combination, fold_count FROM gsu.cross_validate('acc', 'mean', 'variance', 'label', '{"lambda": [0.01, 0.1]}'::jsonb, 3)
ORDER BY combination;
SELECT fold_count FROM gsu.cross_validate('acc', 'mean', 'variance', 'label', ARRAY[0.01], 3, 1, '{}', 'roc_auc', 'id');
SELECT training(gsu.train_best('acc', 'mean', NULL, 'label', ARRAY[0.01], 3), 'rows') AS cols_best_rows;
-- a column the role may not read is refused as a SELECT of it is
SET client_min_messages = notice;
SELECT test_error($$SELECT gsu.fit('acc', 'mean', 'variance', 'label', 'secret', NULL)$$);
SET client_min_messages = warning;
RESET ROLE;

-- a policy on a partition (none on the parent): SELECT ... FROM the parent ignores it, and
-- so does gsu.fit
CREATE TABLE acc2 (id int, mean float8[], variance float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE acc2_lo PARTITION OF acc2 FOR VALUES FROM (MINVALUE) TO (201);
CREATE TABLE acc2_hi PARTITION OF acc2 FOR VALUES FROM (201) TO (MAXVALUE);
INSERT INTO acc2 SELECT id, mean, variance, label FROM pts;
ALTER TABLE acc2_lo ENABLE ROW LEVEL SECURITY;
CREATE POLICY acc2_none ON acc2_lo USING (false);
GRANT SELECT ON acc2, acc2_lo, acc2_hi TO regress_gsu_fit_all;
SET ROLE regress_gsu_fit_all;
SELECT (SELECT count(*) FROM acc2) AS role_sees, (SELECT count(*) FROM acc2_lo) AS role_sees_of_lo,
	training(gsu.fit('acc2', 'mean', 'variance', 'label'), 'rows') AS fit_rows;
RESET ROLE;
-- a security-barrier view of the rows: gsu.fit trains on the view's rows
CREATE VIEW acc_view WITH (security_barrier) AS SELECT id, mean, variance, label FROM acc2 WHERE id % 3 = 0;
GRANT SELECT ON acc_view TO regress_gsu_fit_leaves;
SET ROLE regress_gsu_fit_leaves;
SELECT (SELECT count(*) FROM acc_view) AS view_rows, training(gsu.fit('acc_view', 'mean', 'variance', 'label'), 'rows') AS fit_rows;
RESET ROLE;

-- ------------------------------------------------ the column types gsu.train takes

CREATE TABLE typed AS
SELECT id, mean, variance, label, label = 1 AS blabel, label::int2 AS slabel, label::int8 AS blabel8,
	label::numeric AS nlabel, label::text AS tlabel,
	mean::numeric[] AS nmean, mean[1] AS smean, '(0,1)'::tid AS tmean,
	CASE WHEN id % 10 <> 0 THEN 0.05 + 0.01 * (id % 7) END AS iso,
	1 + id % 2 AS iiso, variance::real[] AS rvariance, variance::text AS tvariance, true AS bvariance
FROM pts;
-- a boolean label (true 1, false -1) and a smallint label: the model of the int4 label
SELECT gsu.weights(b) = gsu.weights(i) AND gsu.bias(b) = gsu.bias(i) AS bool_same,
	gsu.weights(s) = gsu.weights(i) AND gsu.bias(s) = gsu.bias(i) AS smallint_same,
	training(b, 'rows') AS rows
FROM gsu.fit('typed', 'mean', 'variance', 'label') i, gsu.fit('typed', 'mean', 'variance', 'blabel') b,
	gsu.fit('typed', 'mean', 'variance', 'slabel') s;
SELECT gsu.weights(b) = gsu.weights(i) AS bool_same_lbfgs_balanced
FROM gsu.fit('typed', 'mean', 'variance', 'label', '{"solver": "lbfgs", "class_weight": "balanced"}') i,
	gsu.fit('typed', 'mean', 'variance', 'blabel', '{"solver": "lbfgs", "class_weight": "balanced"}') b;
SELECT rel_objective(gsu.fit('typed', 'mean', NULL, 'blabel', '{"loss": "hinge", "class_weight": {"1": 2}}'),
	(SELECT gsu.train(mean, NULL::float8[], blabel, '{"loss": "hinge", "class_weight": {"1": 2}}') FROM typed)) < 1e-6 AS bool_hinge_same_optimum;
-- numeric[] means, isotropic (float8 and integer) and real[] variances: gsu.train's optimum
-- (a row without a mean is skipped, its isotropic variance too)
INSERT INTO typed (id, mean, nmean, label, blabel, iso, iiso) VALUES (1000, NULL, NULL, 1, true, 0.1, 1);
SELECT name, rel_objective(f, t) < 1e-6 AS same_optimum, training(f, 'rows') AS rows
FROM (SELECT 'numeric[] mean' AS name, gsu.fit('typed', 'nmean', 'variance', 'label') AS f,
		(SELECT gsu.train(nmean, variance, label) FROM typed) AS t
	UNION ALL SELECT 'float8 isotropic variance', gsu.fit('typed', 'mean', 'iso', 'label'),
		(SELECT gsu.train(mean, iso, label) FROM typed)
	UNION ALL SELECT 'float8 isotropic variance, lbfgs', gsu.fit('typed', 'mean', 'iso', 'label', '{"solver": "lbfgs"}'),
		(SELECT gsu.train(mean, iso, label) FROM typed)
	UNION ALL SELECT 'integer isotropic variance', gsu.fit('typed', 'mean', 'iiso', 'blabel'),
		(SELECT gsu.train(mean, iiso, label) FROM typed)
	UNION ALL SELECT 'real[] variance', gsu.fit('typed', 'mean', 'rvariance', 'label'),
		(SELECT gsu.train(mean, rvariance, label) FROM typed)) s
ORDER BY name;
-- the other types are refused before any scan, naming the column, its type and the accepted ones
RESET client_min_messages;
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'variance', 'blabel8')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'variance', 'nlabel')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'variance', 'tlabel', 'id', NULL)$$);
SELECT test_error($$SELECT gsu.fit('typed', 'tmean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'smean', 'variance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'tvariance', 'label')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'bvariance', 'label', '{"solver": "lbfgs"}')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'variance', 'ctid')$$);
SELECT test_error($$SELECT gsu.fit('typed', 'mean', 'variance', 'no_such_column')$$);
-- cross_validate: a bool label and an int4 label give the same folds (the hash reads the
-- label as -1/+1), so the same scores
SET client_min_messages = warning;
SELECT (SELECT array_agg(round(metric_mean::numeric, 10)) FROM gsu.cross_validate('typed', 'mean', 'variance', 'blabel', ARRAY[0.01], 4))
	= (SELECT array_agg(round(metric_mean::numeric, 10)) FROM gsu.cross_validate('typed', 'mean', 'variance', 'label', ARRAY[0.01], 4)) AS bool_same_folds;

-- ------------------------------------------------ the hint past gsu.max_training_memory

-- memt: 6000 rows, more than 64 kB buffers
CREATE TABLE memt AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS mean, ARRAY[0.1, 0.1]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label, i % 2 = 0 AS blabel, 0.1::float8 AS iso
FROM generate_series(1, 6000) i;
CREATE TABLE memt_ids AS SELECT i AS id FROM generate_series(1, 6000, 2) i;
CREATE TABLE memt_inh (LIKE memt);
CREATE TABLE memt_inh_child () INHERITS (memt_inh);
INSERT INTO memt_inh SELECT * FROM memt;
CREATE VIEW memt_all AS SELECT * FROM memt;
SET gsu.max_training_memory = '64kB';
-- rows of one table, all of them: the call (also for a bool label and an isotropic variance)
SELECT hint_of($$SELECT gsu.train(mean, variance, label) FROM memt$$);
SELECT hint_of($$SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') FROM (SELECT * FROM memt) s$$);
SELECT hint_of($$SELECT gsu.train(mean, variance, blabel) FROM memt$$);
SELECT hint_of($$SELECT gsu.train(mean, iso, label) FROM memt$$);
-- some rows only: no call, the words (the issue's WHERE clause, a join, FILTER, GROUP BY,
-- a LIMIT in a subquery, a sample, DISTINCT, FROM ONLY a parent with children)
SELECT hint_of($$SELECT gsu.train(mean, variance, label) FROM memt WHERE id % 10 = 0 AND label = 1 OR id < 100$$);
SELECT name, h LIKE '%create a view of exactly these rows%' AS words, h LIKE '%gsu.fit(%' AS names_a_call
FROM (VALUES
	('where', $$SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') FROM memt WHERE id > 10$$),
	('join', $$SELECT gsu.train(m.mean, m.variance, m.label) FROM memt m JOIN memt_ids USING (id)$$),
	('filter', $$SELECT gsu.train(mean, variance, label) FILTER (WHERE id > 10) FROM memt$$),
	('group by', $$SELECT gsu.train(mean, variance, label) FROM memt GROUP BY id % 2$$),
	('limit', $$SELECT gsu.train(mean, variance, label) FROM (SELECT * FROM memt LIMIT 5000) s$$),
	('tablesample', $$SELECT gsu.train(mean, variance, label) FROM memt TABLESAMPLE SYSTEM (100)$$),
	('distinct', $$SELECT gsu.train(DISTINCT mean, variance, label) FROM memt$$),
	('only', $$SELECT gsu.train(mean, variance, label) FROM ONLY memt_inh$$),
	('bool label, where', $$SELECT gsu.train(mean, variance, blabel) FROM memt WHERE id > 10$$),
	('weighted, where', $$SELECT gsu.train(mean, variance, label, iso, '{}') FROM memt WHERE id > 10$$)) AS q(name, sql),
	LATERAL hint_of(q.sql) AS h
ORDER BY name;
-- through a view, or an expression as an argument: the generic hint (no call of a relation)
SELECT hint_of($$SELECT gsu.train(mean, variance, label) FROM memt_all$$);
SELECT hint_of($$SELECT gsu.train(mean, variance, label = 1) FROM memt$$) = hint_of($$SELECT gsu.train(mean, variance, label) FROM memt_all$$) AS expression_generic;
RESET gsu.max_training_memory;

DROP SCHEMA test_fit_access CASCADE;
DROP OWNED BY regress_gsu_fit_all, regress_gsu_fit_parent, regress_gsu_fit_leaves, regress_gsu_fit_cols;
DROP ROLE regress_gsu_fit_all, regress_gsu_fit_parent, regress_gsu_fit_leaves, regress_gsu_fit_cols;
RESET max_parallel_workers_per_gather;
RESET client_min_messages;
