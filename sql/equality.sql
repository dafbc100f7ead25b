-- Equality of gsu.model, gsu.projection and gsu.refset (issue 29): = and <>
-- on the canonical bytes, with a hash operator class, so that DISTINCT,
-- GROUP BY, UNION, IN and hash joins work on the stored types.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE eq_rows AS
SELECT g, i, ARRAY[3 * sin(i * 7.1 + g), 2 * cos(i * 3.3 * g)]::float8[] AS mean,
	ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN 3 * sin(i * 7.1 + g) + 2 * cos(i * 3.3 * g) * g > 0.5 * g THEN 1 ELSE -1 END AS label
FROM generate_series(1, 3) g, generate_series(1, 60) i;
CREATE TABLE eq_models AS
SELECT g, gsu.train(mean, variance, label, '{"lambda": 0.01}') AS m,
	gsu.geu_fit(mean, variance, label) AS p, gsu.refset_agg(mean, label ORDER BY i) AS r
FROM eq_rows GROUP BY g;
RESET client_min_messages;
-- each group's values twice: once stored, once through text and binary round trips
CREATE TABLE eq_twice AS
SELECT g, m, p, r FROM eq_models
UNION ALL
SELECT g, m::text::gsu.model, p::text::gsu.projection, r::text::gsu.refset FROM eq_models;
SELECT (SELECT count(*) FROM eq_twice) AS values, (SELECT count(*) FROM (SELECT DISTINCT m FROM eq_twice) d) AS models,
	(SELECT count(*) FROM (SELECT DISTINCT p FROM eq_twice) d) AS projections,
	(SELECT count(*) FROM (SELECT DISTINCT r FROM eq_twice) d) AS refsets;
SELECT g, count(*) FROM eq_twice GROUP BY m, g ORDER BY g;
SELECT count(*) AS union_rows FROM (SELECT m FROM eq_twice UNION SELECT m FROM eq_models) u;
SELECT count(*) AS union_projections FROM (SELECT p FROM eq_twice UNION SELECT p FROM eq_models) u;
SELECT count(*) AS union_refsets FROM (SELECT r FROM eq_twice UNION SELECT r FROM eq_models) u;
-- the operators, by schema and on the search path
SELECT a.g, b.g, a.m OPERATOR(gsu.=) b.m AS eq, a.m OPERATOR(gsu.<>) b.m AS ne,
	a.p OPERATOR(gsu.=) b.p AS p_eq, a.r OPERATOR(gsu.<>) b.r AS r_ne
FROM eq_models a, eq_models b WHERE a.g <= b.g ORDER BY 1, 2;
SET search_path = gsu, public;
SELECT count(*) AS pairs FROM eq_twice a JOIN eq_twice b ON a.m = b.m;
SELECT g FROM eq_models WHERE m IN (SELECT m::text::model FROM eq_models WHERE g = 2);
EXPLAIN (COSTS OFF) SELECT DISTINCT m FROM eq_twice;
SET enable_hashagg = off;
SELECT count(*) AS distinct_without_hashagg FROM (SELECT DISTINCT m FROM eq_twice) d;
RESET enable_hashagg;
RESET search_path;
-- the hash agrees with equality, and the extended hash takes its seed
-- (there is no order: count(DISTINCT m) needs one, a DISTINCT subquery does not)
SELECT test_error($$SELECT count(DISTINCT m) FROM eq_twice$$);
SELECT count(DISTINCT gsu.model_hash(m)) AS model_hashes, count(DISTINCT gsu.projection_hash(p)) AS projection_hashes,
	count(DISTINCT gsu.refset_hash(r)) AS refset_hashes FROM eq_twice;
SELECT gsu.model_hash_extended(m, 0) = gsu.model_hash_extended(m::text::gsu.model, 0) AS same_seed,
	gsu.model_hash_extended(m, 0) <> gsu.model_hash_extended(m, 1) AS seeds_differ,
	gsu.refset_hash_extended(r, 7) = gsu.refset_hash_extended(r::text::gsu.refset, 7) AS refset_seed,
	gsu.projection_hash_extended(p, 7) = gsu.projection_hash_extended(p::text::gsu.projection, 7) AS projection_seed
FROM eq_models WHERE g = 1;
-- a value stored out of line (TOAST) equals its in-line copy
CREATE TABLE eq_big AS SELECT gsu.refset_agg(ARRAY[i, i * 0.5, sin(i)]::float8[], 1) AS r FROM generate_series(1, 2000) i;
SELECT count(*) AS equal FROM eq_big a, eq_big b WHERE a.r OPERATOR(gsu.=) b.r::text::gsu.refset;
-- NULL in, NULL out (the functions are STRICT)
SELECT gsu.model_eq(NULL, m) IS NULL AS strict FROM eq_models WHERE g = 1;
-- an operator between different types does not exist
SELECT test_error($$SELECT m OPERATOR(gsu.=) p FROM eq_models$$);
