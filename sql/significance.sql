-- Significance tests: gsu.mcnemar and gsu.paired_ttest (issue 28, part 6).
-- Reference values in the comments come from outside pg_gsu: McNemar's p from
-- exact rational sums 2 * sum_{k <= min(b,c)} C(b+c, k) / 2^(b+c) (Python
-- fractions), the t-tests from scipy 1.10.1 (scipy.stats.ttest_rel, and
-- 2 * t.sf(|t|, J - 1) for the corrected t).
\set SHOW_CONTEXT never

-- ---------------------------------------------------------------- McNemar
-- b = 5 (A right, B wrong), c = 1: p = 2 (C(6,0) + C(6,1)) / 2^6 = 14/64 = 0.21875
SELECT gsu.mcnemar(a, b, l) - 'p' AS counts, round(((gsu.mcnemar(a, b, l))->>'p')::numeric, 12) AS p
FROM (VALUES (1, 1, 1), (1, -1, 1), (1, -1, 1), (-1, 1, 1), (1, -1, 1), (1, -1, 1), (1, -1, 1)) v(a, b, l);
-- b = 3, c = 10: p = 2 (1 + 13 + 78 + 286) / 2^13 = 0.09228515625; symmetric in A and B;
-- class ids other than -1/1 (multi-class: right means equal to the label)
CREATE TABLE sig_mc AS
SELECT i, 7 AS label, CASE WHEN i <= 3 THEN 7 WHEN i <= 13 THEN 2 ELSE 7 END AS a,
	CASE WHEN i <= 3 THEN 3 WHEN i <= 13 THEN 7 ELSE 7 END AS b
FROM generate_series(1, 20) i;
SELECT gsu.mcnemar(a, b, label) - 'p' AS counts, round(((gsu.mcnemar(a, b, label))->>'p')::numeric, 12) AS p,
	round(((gsu.mcnemar(b, a, label))->>'p')::numeric, 12) AS p_swapped
FROM sig_mc;
-- b = c: p = 1; no discordant pair: p = 1; rows with a NULL are skipped; no rows: NULL
SELECT gsu.mcnemar(a, b, l)->>'p' AS p FROM (VALUES (1, 2, 1), (2, 1, 1), (1, 1, 1)) v(a, b, l);
SELECT gsu.mcnemar(a, a, l) FROM (VALUES (1, 1), (-1, 1)) v(a, l);
SELECT gsu.mcnemar(a, b, l) FROM (VALUES (1, -1, NULL), (NULL, -1, 1), (1, NULL, 1), (1, -1, 1)) v(a, b, l);
SELECT gsu.mcnemar(a, b, l) IS NULL AS no_rows FROM (VALUES (1, -1, NULL::int4)) v(a, b, l);
SELECT gsu.mcnemar(1, 1, 1) IS NULL AS no_rows FROM generate_series(1, 0);
-- large counts: b = 20000, c = 21000, p = 8.0585780267929587e-07 (exact sum, 12 digits)
CREATE TABLE sig_mc_big AS
SELECT CASE WHEN i <= 20000 THEN 1 ELSE -1 END AS a, CASE WHEN i <= 20000 THEN -1 ELSE 1 END AS b, 1 AS label
FROM generate_series(1, 41000) i;
SELECT (r->>'b')::int AS b, (r->>'c')::int AS c,
	abs((r->>'p')::float8 / 8.0585780267929587e-07 - 1) < 1e-12 AS p_matches
FROM (SELECT gsu.mcnemar(a, b, label) AS r FROM sig_mc_big) s;
-- b = 40000, c = 40500: p = 0.07862036880510799 (exact sum)
SELECT abs((gsu.mcnemar(a, b, 1)->>'p')::float8 / 0.07862036880510799 - 1) < 1e-12 AS p_matches
FROM (SELECT CASE WHEN i <= 40000 THEN 1 ELSE 0 END AS a, CASE WHEN i <= 40000 THEN 0 ELSE 1 END AS b
	  FROM generate_series(1, 80500) i) s;

-- ----------------------------------------------------------- paired t-test
-- d = (0.1, 0.01, 0.05, -0.01): scipy ttest_rel: t = 1.5443960018728051, p = 0.22019347905907585;
-- corrected with ratio 0.1: t = 1.3052528519685114, p = 0.2828921591536236
CREATE TABLE sig_tt (run int, acc_a float8, acc_b float8);
INSERT INTO sig_tt VALUES (1, 0.9, 0.8), (2, 0.85, 0.84), (3, 0.95, 0.9), (4, 0.7, 0.71);
SELECT r->'runs' AS runs, r->'df' AS df, round((r->>'t')::numeric, 12) AS t, round((r->>'p')::numeric, 12) AS p,
	round((r->>'mean_difference')::numeric, 12) AS mean_difference, round((r->>'sd_difference')::numeric, 12) AS sd,
	r->'mean_a' AS mean_a, r->'mean_b' AS mean_b, r->'test_train_ratio' AS ratio
FROM (SELECT gsu.paired_ttest(acc_a, acc_b) AS r FROM sig_tt
	  UNION ALL SELECT gsu.paired_ttest(acc_a, acc_b, 0.1) FROM sig_tt
	  UNION ALL SELECT gsu.paired_ttest(acc_a, acc_b, 0) FROM sig_tt) s;
-- t is the formula, in SQL
SELECT abs((gsu.paired_ttest(acc_a, acc_b, 0.25)->>'t')::float8
		   - avg(acc_a - acc_b) / sqrt((1.0 / count(*) + 0.25) * var_samp(acc_a - acc_b))) < 1e-12 AS t_is_the_formula
FROM sig_tt;
-- swapping A and B flips t and keeps p
SELECT (gsu.paired_ttest(acc_b, acc_a)->>'t')::float8 = -(gsu.paired_ttest(acc_a, acc_b)->>'t')::float8 AS t_flips,
	gsu.paired_ttest(acc_b, acc_a)->'p' = gsu.paired_ttest(acc_a, acc_b)->'p' AS same_p
FROM sig_tt;
-- d = 0.3 +- 0.45 over 10 runs: s^2 = 10 * 0.45^2 / 9 = 0.225, t = 0.3 / sqrt(0.225 / 10) = 2,
-- df 9: p = 0.076552823770701041 (mpmath)
SELECT round((gsu.paired_ttest(d, 0)->>'t')::numeric, 12) AS t, round((gsu.paired_ttest(d, 0)->>'p')::numeric, 12) AS p
FROM (SELECT 0.3 + CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END * 0.45 AS d FROM generate_series(1, 10) i) s;
-- one run: no test; runs that all differ by the same amount: t infinite, p 0;
-- that do not differ at all: t and p null; NULLs skipped; no rows: NULL
SELECT gsu.paired_ttest(0.9, 0.8);
SELECT gsu.paired_ttest(a, a - 0.125) - 'mean_a' - 'mean_b' FROM (VALUES (0.5), (0.75), (1)) v(a);
SELECT gsu.paired_ttest(a, 0.125 + a) - 'mean_a' - 'mean_b' FROM (VALUES (0.5), (0.75), (1)) v(a);
SELECT gsu.paired_ttest(a, a) - 'mean_a' - 'mean_b' FROM (VALUES (0.5), (0.75), (1)) v(a);
SELECT gsu.paired_ttest(a, b, r)->'runs' AS runs
FROM (VALUES (0.5, 0.4, 0.1), (NULL, 0.4, 0.1), (0.5, NULL, 0.1), (0.5, 0.4, NULL), (0.6, 0.4, 0.1)) v(a, b, r);
SELECT gsu.paired_ttest(a, b) IS NULL AS no_rows FROM (VALUES (NULL::float8, 0.5)) v(a, b);
-- -0 is written as 0
SELECT gsu.paired_ttest(-0.0::float8, 0.0::float8) - 'runs' - 'df' AS minus_zero;

-- ------------------------------------------------------- untyped parameters
-- a client that sends every parameter untyped (node-postgres) resolves each
-- aggregate to one form: no bool overload of gsu.mcnemar, and the ratio is
-- a form of its own (an aggregate's argument takes no DEFAULT)
PREPARE sig_mcnemar AS SELECT gsu.mcnemar($1, $2, $3)->>'p';
PREPARE sig_ttest AS SELECT gsu.paired_ttest($1, $2)->>'runs';
PREPARE sig_ttest_ratio AS SELECT gsu.paired_ttest($1, $2, $3)->>'test_train_ratio';
SELECT p.name, pg_catalog.array_to_string(p.parameter_types, ', ') AS resolved
FROM pg_prepared_statements p WHERE p.name LIKE 'sig\_%' ORDER BY 1;
EXECUTE sig_mcnemar('1', '-1', '1');
EXECUTE sig_ttest('0.9', '0.8');
EXECUTE sig_ttest_ratio('0.9', '0.8', '0.1');
DEALLOCATE ALL;

-- ------------------------------------------------------------- parallel
CREATE TABLE sig_rows AS
SELECT i, CASE WHEN prand(i, 1) < 0.8 THEN y ELSE -y END AS a,
	CASE WHEN prand(i, 2) < 0.78 THEN y ELSE -y END AS b, y AS label,
	0.9 + 0.05 * pnorm(i, 3) AS acc_a, 0.89 + 0.05 * pnorm(i, 4) AS acc_b
FROM generate_series(1, 30000) i, LATERAL (SELECT CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END AS y) l;
ANALYZE sig_rows;
CREATE TABLE sig_serial AS
SELECT gsu.mcnemar(a, b, label) AS mc, gsu.paired_ttest(acc_a, acc_b, 0.1) AS tt FROM sig_rows;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gsu.mcnemar(a, b, label), gsu.paired_ttest(acc_a, acc_b, 0.1) FROM sig_rows;
SELECT * FROM workers_launched('SELECT gsu.mcnemar(a, b, label), gsu.paired_ttest(acc_a, acc_b, 0.1) FROM sig_rows');
SELECT gsu.mcnemar(a, b, label) = mc AS mcnemar_equal,
	abs((gsu.paired_ttest(acc_a, acc_b, 0.1)->>'t')::float8 - (tt->>'t')::float8) < 1e-9 AS t_equal,
	abs((gsu.paired_ttest(acc_a, acc_b, 0.1)->>'p')::float8 - (tt->>'p')::float8) < 1e-9 AS p_equal,
	gsu.paired_ttest(acc_a, acc_b, 0.1)->'runs' = tt->'runs' AS runs_equal
FROM sig_rows, sig_serial GROUP BY mc, tt;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT sig_serial.mc - 'p' AS counts, round((mc->>'p')::numeric, 6) AS p,
	round((tt->>'t')::numeric, 6) AS t, round((tt->>'p')::numeric, 6) AS t_p
FROM sig_serial;

-- ---------------------------------------------------------------- errors
-- boolean predictions: no such form (cast them: p::int4)
SELECT test_error($$SELECT gsu.mcnemar(true, false, true)$$);
SELECT gsu.mcnemar(p::int4, q::int4, l::int4)->>'b' AS b FROM (VALUES (true, false, true)) v(p, q, l);
-- scores that are not finite
SELECT test_error($$SELECT gsu.paired_ttest('NaN', 0.5)$$);
SELECT test_error($$SELECT gsu.paired_ttest(0.5, '-Infinity')$$);
-- a difference or moment out of the range of float8
SELECT test_error($$SELECT gsu.paired_ttest(1e308, -1e308)$$);
SELECT test_error($$SELECT gsu.paired_ttest(a, 0) FROM (VALUES (1e200::float8), (-1e200), (1e200)) v(a)$$);
-- the ratio: negative, not finite, not the same on every row
SELECT test_error($$SELECT gsu.paired_ttest(0.9, 0.8, -0.1)$$);
SELECT test_error($$SELECT gsu.paired_ttest(0.9, 0.8, 'NaN')$$);
SELECT test_error($$SELECT gsu.paired_ttest(0.9, 0.8, 'Infinity')$$);
SELECT test_error($$SELECT gsu.paired_ttest(a, 0.8, r) FROM (VALUES (0.9, 0.1), (0.8, 0.2)) v(a, r)$$);
-- support functions called outside an aggregate (through a C alias, as SQL cannot pass internal)
CREATE FUNCTION sig_probe(bytea) RETURNS jsonb AS 'pg_gsu', 'gsu_mcnemar_finalfn' LANGUAGE C;
CREATE FUNCTION sig_probe_t(bytea) RETURNS jsonb AS 'pg_gsu', 'gsu_paired_ttest_finalfn' LANGUAGE C;
SELECT test_error('SELECT sig_probe(NULL)');
SELECT test_error('SELECT sig_probe_t(NULL)');
DROP FUNCTION sig_probe(bytea);
DROP FUNCTION sig_probe_t(bytea);
-- hostile serialized states: a strict aggregate over bytea whose transition is a
-- deserialization function, so that its first row reaches it as the state
-- (only invalid states may be given: a valid one would be returned as bytea).
-- McNemar: magic, reserved, four int64 counts (little-endian); t-test: magic,
-- reserved, n, mean_a, mean_b, mean_d, m2_d, ratio
CREATE FUNCTION sig_deser_m(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_mcnemar_deserialfn' LANGUAGE C STRICT;
CREATE FUNCTION sig_deser_t(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_paired_ttest_deserialfn' LANGUAGE C STRICT;
CREATE AGGREGATE sig_deser_m(bytea) (SFUNC = sig_deser_m, STYPE = bytea);
CREATE AGGREGATE sig_deser_t(bytea) (SFUNC = sig_deser_t, STYPE = bytea);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4d5553470000000001000000000000000100000000000000010000000000000001000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4e555347000000000100000000000000010000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4d555347010000000100000000000000010000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4d555347000000000100000000000000ffffffffffffffff00000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4d55534700000000ffffffffffffff7f010000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_m(b) FROM (VALUES ('\x4d555347000000000000000000000040000000000000004000000000000000400000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x55555347000000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347010000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x5455534700000000ffffffffffffffff000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000200000000000000000000000000f87f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f000000000000f0bf0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f000000000000e0bf'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000200000000000000000000000000e03f9a9999999999d93f9a9999999999b93f7b14ae47e17a843f000000000000f07f'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x5455534700000000000000000000000000000000000000000000000000000000000000000000000000000000000000009a9999999999b93f'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT sig_deser_t(b) FROM (VALUES ('\x54555347000000000100000000000000000000000000e03f9a9999999999d93f9a9999999999b93f000000000000e03f0000000000000000'::bytea), ('\x')) v(b)$$);
DROP AGGREGATE sig_deser_m(bytea);
DROP AGGREGATE sig_deser_t(bytea);
DROP FUNCTION sig_deser_m(bytea, bytea);
DROP FUNCTION sig_deser_t(bytea, bytea);
DROP TABLE sig_mc, sig_mc_big, sig_tt, sig_rows, sig_serial;
