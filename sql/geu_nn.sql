-- gsu.refset (JSON text I/O, binary send/recv, the gsu.refset_agg
-- aggregate), GEU uncertainty estimation with gsu.nn_variance and k-NN
-- classification with gsu.knn_predict, checked against brute force in SQL,
-- including stored (TOASTed, compressed) reference sets that change from row
-- to row, and every error.
CREATE EXTENSION IF NOT EXISTS pg_gsu;
\set SHOW_CONTEXT never

CREATE OR REPLACE PROCEDURE geu_err(sql text) LANGUAGE plpgsql AS $$
DECLARE
	det text;
	hnt text;
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
	RAISE NOTICE '%', SQLSTATE || ': ' || SQLERRM
		|| CASE WHEN det <> '' THEN E'\nDETAIL: ' || det ELSE '' END
		|| CASE WHEN hnt <> '' THEN E'\nHINT: ' || hnt ELSE '' END;
END
$$;

CREATE OR REPLACE FUNCTION geu_recv(typ text, payload bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	frame bytea := '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
		|| '\x0001'::bytea || int4send(length(payload)) || payload || '\xffff'::bytea;
	r text;
BEGIN
	EXECUTE format('CREATE TEMP TABLE geu_recv_tmp (v %s)', typ);
	EXECUTE format('COPY geu_recv_tmp FROM PROGRAM %L WITH (FORMAT binary)',
				   'perl -e ''print pack("H*", "' || encode(frame, 'hex') || '")''');
	SELECT v::text INTO r FROM geu_recv_tmp;
	DROP TABLE geu_recv_tmp;
	RETURN r;
END
$$;

-- 80 rows of dimension 4 in three classes; row 81 repeats row 5 (same
-- label), row 82 repeats row 6 with another label
CREATE TABLE geu_nn_pts AS
SELECT i AS id, ARRAY[sin(i * 1.1), cos(i * 0.3) * 2, sin(i * 0.7 + 0.5), cos(i * 1.9) * 0.5] AS x, i % 3 AS y
FROM generate_series(1, 80) i;
INSERT INTO geu_nn_pts SELECT 81, x, y FROM geu_nn_pts WHERE id = 5;
INSERT INTO geu_nn_pts SELECT 82, x, (y + 1) % 3 FROM geu_nn_pts WHERE id = 6;
-- 40 fresh query points
CREATE TABLE geu_nn_q AS
SELECT i AS id, ARRAY[cos(i * 0.9), sin(i * 0.4) * 2, cos(i * 0.6), sin(i * 1.3) * 0.5] AS x
FROM generate_series(1, 40) i;

-- squared distance and the brute-force estimate / vote
CREATE OR REPLACE FUNCTION geu_d2(a float8[], b float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sum((a[l] - b[l]) * (a[l] - b[l])) FROM generate_subscripts(a, 1) l
$$;
CREATE OR REPLACE FUNCTION geu_close(a float8[], b float8[]) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
	SELECT array_length(a, 1) = array_length(b, 1)
		AND bool_and(abs(a[l] - b[l]) <= 1e-14 * greatest(abs(b[l]), 1e-300)) FROM generate_subscripts(a, 1) l
$$;

-- ---------------------------------------------------------------- refset_agg
CREATE TABLE geu_ref AS
SELECT gsu.refset_agg(x, y ORDER BY id) AS r, gsu.refset_agg(x ORDER BY id) AS u FROM geu_nn_pts;
SELECT gsu.describe_refset(r), gsu.describe_refset(u) FROM geu_ref;
-- rows with a NULL mean or label are skipped; no rows give NULL
SELECT gsu.describe_refset(gsu.refset_agg(x, y)) FROM (VALUES ('{1,2}'::float8[], 1), (NULL, 2), ('{3,4}', NULL)) v(x, y);
SELECT gsu.refset_agg(x, 1) IS NULL AS empty FROM geu_nn_pts WHERE false;
SELECT gsu.refset_agg(NULL::float8[]) IS NULL AS all_null;
-- the parallel plan (worker states serialized and concatenated) holds the same rows
CREATE TABLE geu_nn_big AS SELECT i AS id, ARRAY[sin(i), cos(i)] AS x, i % 4 AS y FROM generate_series(1, 20000) i;
ANALYZE geu_nn_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.refset_agg(x, y) FROM geu_nn_big;
CREATE TABLE geu_par AS SELECT gsu.refset_agg(x, y) AS r FROM geu_nn_big;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT gsu.describe_refset(r) FROM geu_par;
WITH j AS MATERIALIZED (SELECT r::text::jsonb AS j FROM geu_par),
	 held AS (
	SELECT e.row AS x, (j -> 'labels' -> (k::int - 1))::int AS y
	FROM j, jsonb_array_elements(j -> 'rows') WITH ORDINALITY e(row, k))
SELECT (SELECT count(*) FROM held) AS held,
	(SELECT count(*) FROM geu_nn_big b LEFT JOIN held h ON h.x = to_jsonb(b.x) AND h.y = b.y
	 WHERE h.x IS NULL) AS rows_missing;

-- ------------------------------------------------------------- text, binary
SELECT '{"format": 1, "dim": 2, "rows": [[1, 2], [0.5, -1e-300]], "labels": [7, -7]}'::gsu.refset;
SELECT '{"format": 1, "dim": 3, "rows": [[1, 2, 3]]}'::gsu.refset;
SELECT r::text::gsu.refset::text = r::text AS text_ok, u::text::gsu.refset::text = u::text AS text_ok_u,
	geu_recv('gsu.refset', gsu.refset_send(r)) = r::text AS binary_ok,
	geu_recv('gsu.refset', gsu.refset_send(u)) = u::text AS binary_ok_u
FROM geu_ref;
SELECT gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}');

-- ------------------------------------------------------------ nn_variance
-- every row against brute force: its nearest other row (by distance, then
-- id), sigma * (x - x*)^2; supervised among rows of its own label
WITH est AS (
	SELECT p.id, s.sup,
		gsu.nn_variance((SELECT r FROM geu_ref), p.x, p.y, 0.5, s.sup) AS got,
		(SELECT array_agg(0.5 * (p.x[l] - q.x[l]) * (p.x[l] - q.x[l]) ORDER BY l)
		 FROM (SELECT q.x FROM geu_nn_pts q WHERE q.id <> p.id AND (NOT s.sup OR q.y = p.y)
			   ORDER BY geu_d2(p.x, q.x), q.id LIMIT 1) q, generate_series(1, 4) l) AS want
	FROM geu_nn_pts p, (VALUES (false), (true)) s(sup))
SELECT sup, count(*) AS rows, count(*) FILTER (WHERE NOT geu_close(got, want)) AS mismatches
FROM est GROUP BY sup ORDER BY sup;
-- the duplicates: each copy is the other's neighbour at distance 0, even
-- across labels when unsupervised; supervised, row 82 has no copy in its class
SELECT id, gsu.nn_variance((SELECT r FROM geu_ref), x, y, 1, false) AS unsupervised,
	gsu.nn_variance((SELECT r FROM geu_ref), x, y, 1, true) = '{0,0,0,0}' AS supervised_zero
FROM geu_nn_pts WHERE id IN (5, 6, 81, 82) ORDER BY id;
-- an unlabelled reference set and a NULL label: unsupervised, one equal row skipped
SELECT count(*) FILTER (WHERE NOT geu_close(gsu.nn_variance(u, x, NULL, 0.5, false),
										   gsu.nn_variance(r, x, y, 0.5, false))) AS mismatches
FROM geu_nn_pts, geu_ref WHERE id NOT IN (6, 82);
-- a point not in the set excludes nothing
SELECT count(*) FILTER (WHERE NOT geu_close(gsu.nn_variance(r, q.x, NULL, 2, false),
	(SELECT array_agg(2 * (q.x[l] - p.x[l]) * (q.x[l] - p.x[l]) ORDER BY l)
	 FROM (SELECT x FROM geu_nn_pts ORDER BY geu_d2(q.x, x), id LIMIT 1) p, generate_series(1, 4) l))) AS mismatches
FROM geu_nn_q q, geu_ref;
-- sigma scales the estimate; sigma 0 gives zeros
SELECT gsu.nn_variance(r, x, y, 0, true), geu_close(gsu.nn_variance(r, x, y, 3, true),
	(SELECT array_agg(3 * v) FROM unnest(gsu.nn_variance(r, x, y, 1, true)) v)) AS scales
FROM geu_nn_pts, geu_ref WHERE id = 1;
-- NULL in, NULL out (label may be NULL when unsupervised)
SELECT gsu.nn_variance(r, x, NULL, 1, true) IS NULL AS sup_null_label,
	gsu.nn_variance(r, x, NULL, 1, false) IS NOT NULL AS unsup_null_label,
	gsu.nn_variance(NULL, x, y, 1, false) IS NULL AS null_ref,
	gsu.nn_variance(r, NULL, y, 1, false) IS NULL AS null_mean,
	gsu.nn_variance(r, x, y, NULL, false) IS NULL AS null_sigma,
	gsu.nn_variance(r, x, y, 1, NULL) IS NULL AS null_mode
FROM geu_nn_pts, geu_ref WHERE id = 1;
-- estimation composes with training: SVM-GSU on the estimated variances
SELECT gsu.describe(gsu.train(x, gsu.nn_variance((SELECT r FROM geu_ref), x, y, 0.1, true),
							  CASE WHEN y = 0 THEN 1 ELSE -1 END)) -> 'training' ->> 'rows' AS rows
FROM geu_nn_pts;

-- ------------------------------------------- stored reference sets, cache
-- out of line (TOAST, uncompressed) and compressed in line; a join that
-- switches reference set from call to call gives what a fresh value gives
CREATE TABLE geu_refs (name text, r gsu.refset);
ALTER TABLE geu_refs ALTER COLUMN r SET STORAGE external;
INSERT INTO geu_refs SELECT 'all', gsu.refset_agg(x, y ORDER BY id) FROM geu_nn_pts;
INSERT INTO geu_refs SELECT 'even', gsu.refset_agg(x, y ORDER BY id) FROM geu_nn_pts WHERE id % 2 = 0;
CREATE TABLE geu_refs_c (name text, r gsu.refset);
ALTER TABLE geu_refs_c ALTER COLUMN r SET STORAGE main;
INSERT INTO geu_refs_c SELECT 'grid', gsu.refset_agg(ARRAY[i % 3, i % 5, 0, 1]::float8[], i % 2 ORDER BY i)
	FROM generate_series(1, 300) i;
INSERT INTO geu_refs_c SELECT 'grid2', gsu.refset_agg(ARRAY[i % 4, i % 7, 1, 0]::float8[], i % 3 ORDER BY i)
	FROM generate_series(1, 300) i;
SELECT name, pg_column_size(r) < length(gsu.refset_send(r)) AS compressed FROM geu_refs_c ORDER BY name;
SELECT name, pg_column_size(r) >= length(gsu.refset_send(r)) AS uncompressed FROM geu_refs ORDER BY name;
SELECT count(*) AS calls,
	count(*) FILTER (WHERE NOT geu_close(gsu.nn_variance(r.r, p.x, p.y, 1, false),
										 gsu.nn_variance(r.r::text::gsu.refset, p.x, p.y, 1, false))) AS mismatches,
	count(*) FILTER (WHERE gsu.knn_predict(r.r, p.x, 3) <> gsu.knn_predict(r.r::text::gsu.refset, p.x, 3)) AS knn_mismatches
FROM geu_nn_pts p CROSS JOIN (SELECT * FROM geu_refs UNION ALL SELECT * FROM geu_refs_c) r;

-- ------------------------------------------------------------ knn_predict
-- against a brute-force vote: the most frequent label among the k nearest
-- (by distance, then id), ties to the label of the nearer neighbour
WITH ranked AS (
	SELECT q.id, k, p.y, row_number() OVER (PARTITION BY q.id, k ORDER BY geu_d2(q.x, p.x), p.id) AS rank
	FROM geu_nn_q q, geu_nn_pts p, (VALUES (1), (3), (4), (7)) kk(k)),
	 votes AS (
	SELECT id, k, y, count(*) AS n, min(rank) AS first FROM ranked WHERE rank <= k GROUP BY id, k, y),
	 want AS (
	SELECT DISTINCT ON (id, k) id, k, y FROM votes ORDER BY id, k, n DESC, first)
SELECT k, count(*) AS points,
	count(*) FILTER (WHERE gsu.knn_predict((SELECT r FROM geu_ref), q.x, k) <> w.y) AS mismatches
FROM want w JOIN geu_nn_q q USING (id) GROUP BY k ORDER BY k;
-- k beyond the set size votes over every row: the majority class
SELECT gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[0], [1], [2]], "labels": [4, 5, 5]}', '{0}', 100);
-- a tie goes to the nearer neighbour's label
SELECT gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[0], [1], [2], [3]], "labels": [4, 5, 5, 4]}', '{2.2}', 4);
SELECT gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[0], [1], [2], [3]], "labels": [4, 5, 5, 4]}', '{0.8}', 4);
SELECT gsu.knn_predict(NULL, '{1}', 1) IS NULL AS strict;

-- ------------------------------------- distances beyond double precision
-- Issue 27: squared distances that overflow (or underflow) double precision
-- still order the rows by distance, in either row order.  The example: rows
-- {0,0} and {1e200,0}, point {2e200,0}: both squared distances are +inf as
-- doubles; the nearest row is {1e200,0} (label 2, variance σ·1e400).
SELECT gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[0, 0], [1e200, 0]], "labels": [1, 2]}', '{2e200,0}', 1) AS first_order,
	gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[1e200, 0], [0, 0]], "labels": [2, 1]}', '{2e200,0}', 1) AS reversed,
	gsu.nn_variance('{"format": 1, "dim": 2, "rows": [[0, 0], [1e200, 0]], "labels": [1, 2]}', '{2e200,0}', NULL, 1e-300, false) AS var_first_order,
	gsu.nn_variance('{"format": 1, "dim": 2, "rows": [[1e200, 0], [0, 0]], "labels": [2, 1]}', '{2e200,0}', NULL, 1e-300, false) AS var_reversed;
-- the same built by the aggregate in both orders, with k = 1 and 2
SELECT dir, gsu.knn_predict(r, '{2e200,0}', 1) AS k1, gsu.knn_predict(r, '{2e200,0}', 2) AS k2,
	gsu.nn_variance(r, '{2e200,0}', NULL, 1e-300, false) AS var
FROM (SELECT 'asc' AS dir, gsu.refset_agg(x, y ORDER BY y) AS r FROM (VALUES ('{0,0}'::float8[], 1), ('{1e200,0}', 2)) v(x, y)
	  UNION ALL
	  SELECT 'desc', gsu.refset_agg(x, y ORDER BY y DESC) FROM (VALUES ('{0,0}'::float8[], 1), ('{1e200,0}', 2)) v(x, y)) s
ORDER BY dir;
-- squares that underflow (1e-400 vs 0.25e-400), differences that overflow
-- (|1.7e308 − (−1.7e308)| > DBL_MAX), in both orders
SELECT gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[0, 0], [2e-200, 0]], "labels": [1, 2]}', '{1.5e-200,0}', 1) AS under,
	gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[2e-200, 0], [0, 0]], "labels": [2, 1]}', '{1.5e-200,0}', 1) AS under_rev,
	gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]], "labels": [1, 2]}', '{0.8e308}', 1) AS diff_over,
	gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[1.7e308], [-1.7e308]], "labels": [2, 1]}', '{0.8e308}', 1) AS diff_over_rev;
-- a variance from a difference beyond DBL_MAX: σ·t² when it is representable
-- (t = 3.4e308, σ = 1e-320), 0 for σ = 0, else 22003; σ = −0 gives +0
SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]]}', '{1.7e308}', NULL, 1e-320, false) AS tiny_sigma,
	gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]]}', '{1.7e308}', NULL, 0, false) AS zero_sigma,
	gsu.nn_variance('{"format": 1, "dim": 2, "rows": [[1, 2], [1, 3]]}', '{1,2}', NULL, '-0', false) AS minus_zero_sigma;
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]]}', '{1.7e308}', NULL, 1, false)$$);
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 2, "rows": [[0, 0], [1e200, 0]]}', '{2e200,0}', NULL, 1e10, false)$$);

-- A grid of integer rows (many exact ties) scaled by 2^660 (every squared
-- distance overflows) and by 2^-700 (every one underflows): powers of two
-- scale exactly, so each search must give what it gives at scale 1 — the
-- same labels, ties broken by the same row order (asc, desc), and the
-- variances scaled by 2^320 (σ = 2^-1000) and 2^-400 (σ = 2^1000).
CREATE FUNCTION geu_scale(x float8[], f float8) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(v * f ORDER BY o) FROM unnest(x) WITH ORDINALITY u(v, o)
$$;
CREATE TABLE geu_far AS
SELECT i AS id, ARRAY[(i * 17) % 11 - 5, (i * 29) % 7 - 3, (i * 13) % 5 - 2]::float8[] AS x, i % 3 AS y
FROM generate_series(1, 40) i;
-- fresh points, and reference rows (whose own row is left out)
CREATE TABLE geu_far_q AS
SELECT i AS id, ARRAY[(i * 19) % 13 - 6 + 0.5, (i * 23) % 9 - 4, (i * 7) % 5 - 2]::float8[] AS x, i % 3 AS y
FROM generate_series(1, 25) i
UNION ALL SELECT 100 + id, x, y FROM geu_far WHERE id <= 12;
CREATE TABLE geu_far_sets AS
SELECT sc.scale, sc.f, sc.sigma, sc.vf, d.dir,
	CASE d.dir WHEN 'asc' THEN (SELECT gsu.refset_agg(geu_scale(x, sc.f), y ORDER BY id) FROM geu_far)
		ELSE (SELECT gsu.refset_agg(geu_scale(x, sc.f), y ORDER BY id DESC) FROM geu_far) END AS r
FROM (VALUES ('1', 1::float8, 1::float8, 1::float8),
			 ('2^660', power(2::float8, 660), power(2::float8, -1000), power(2::float8, 320)),
			 ('2^-700', power(2::float8, -700), power(2::float8, 1000), power(2::float8, -400))) sc(scale, f, sigma, vf),
	(VALUES ('asc'), ('desc')) d(dir);
SELECT s.scale, s.dir, count(*) AS searches,
	count(*) FILTER (WHERE gsu.knn_predict(s.r, geu_scale(q.x, s.f), k) <> gsu.knn_predict(b.r, q.x, k)) AS knn_mismatches,
	count(*) FILTER (WHERE gsu.nn_variance(s.r, geu_scale(q.x, s.f), q.y, s.sigma, k = 1)
					 IS DISTINCT FROM geu_scale(gsu.nn_variance(b.r, q.x, q.y, 1, k = 1), s.vf)) AS variance_mismatches
FROM geu_far_sets s JOIN geu_far_sets b ON b.scale = '1' AND b.dir = s.dir,
	geu_far_q q, (VALUES (1), (2), (5)) kk(k)
GROUP BY s.scale, s.dir ORDER BY s.scale, s.dir;
-- the row order matters at scale 1 (ties), so the comparison above sees it
SELECT count(*) FILTER (WHERE gsu.knn_predict(a.r, q.x, 1) <> gsu.knn_predict(d.r, q.x, 1)) > 0 AS ties_seen
FROM geu_far_sets a JOIN geu_far_sets d ON a.scale = d.scale AND a.dir = 'asc' AND d.dir = 'desc', geu_far_q q
WHERE a.scale = '1';

-- ------------------------------------------------------------------ errors
-- refset_agg
CALL geu_err($$SELECT gsu.refset_agg(x, 1) FROM (VALUES ('{1,2}'::float8[]), ('{1,2,3}')) v(x)$$);
CALL geu_err($$SELECT gsu.refset_agg(x) FROM (VALUES ('{1,2}'::float8[]), ('{1}')) v(x)$$);
CALL geu_err($$SELECT gsu.refset_agg('{1,NULL}'::float8[], 1)$$);
CALL geu_err($$SELECT gsu.refset_agg('{1,NaN}'::float8[], 1)$$);
CALL geu_err($$SELECT gsu.refset_agg('{}'::float8[], 1)$$);
CALL geu_err($$SELECT gsu.refset_agg('{{1,2}}'::float8[], 1)$$);
SET gsu.max_training_memory = 64;
CALL geu_err($$SELECT gsu.refset_agg(x, y) FROM geu_nn_big$$);
RESET gsu.max_training_memory;
-- text input
CALL geu_err($$SELECT '[1]'::gsu.refset$$);
CALL geu_err($$SELECT '{"dim": 1, "rows": [[1]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 2, "dim": 1, "rows": [[1]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1]], "weights": [1]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "rows": [[1]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 0, "rows": [[1]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": []}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": {"a": 1}}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [1]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "rows": [[1, 2], [3]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "rows": [[1, "2"]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "rows": [[1, -1e400]]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1], [2]], "labels": [1]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1]], "labels": [1.5]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1]], "labels": ["a"]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1]], "labels": [3000000000]}'::gsu.refset$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "rows": [[1]], "labels": 1}'::gsu.refset$$);
-- binary input: the bytes of {"dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}, altered
CALL geu_err($$SELECT geu_recv('gsu.refset', '\x00010001')$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x0003' from 1))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x0003' from 3))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x00000001' from 13))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x00000000' from 5))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x00000000' from 9))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x7fffffff' from 9))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x0000' from 3))$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') || '\x00'::bytea)$$);
CALL geu_err($$SELECT geu_recv('gsu.refset', overlay(gsu.refset_send('{"format": 1, "dim": 2, "rows": [[1, 2], [3, 4]], "labels": [5, 6]}') placing '\x7ff8000000000000' from 25))$$);
-- nn_variance
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3,4}', 0, -1, false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3,4}', 0, 'NaN', false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3,4}', 0, 'Infinity', false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3}', 0, 1, false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3,NULL}', 0, 1, false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(r, '{1,2,3,NaN}', 0, 1, false) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance(u, '{1,2,3,4}', 0, 1, true) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[1], [2]], "labels": [1, 2]}', '{1}', 1, 1, true)$$);
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[1], [2]], "labels": [1, 2]}', '{5}', 3, 1, true)$$);
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[1]]}', '{1}', NULL, 1, false)$$);
CALL geu_err($$SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[-1e300], [1e300]]}', '{1e300}', NULL, 1, false)$$);
-- knn_predict
CALL geu_err($$SELECT gsu.knn_predict(r, '{1,2,3,4}', 0) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.knn_predict(r, '{1,2,3,4}', -3) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.knn_predict(r, '{1,2,3,4,5}', 1) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.knn_predict(r, '{1,2,NULL,4}', 1) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.knn_predict(r, '{1,2,3,-Infinity}', 1) FROM geu_ref$$);
CALL geu_err($$SELECT gsu.knn_predict(u, '{1,2,3,4}', 1) FROM geu_ref$$);
