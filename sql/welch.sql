-- gsu.welch (band log powers over Welch segments) and gsu.fisher_score
-- rounds every element of a float8 array
CREATE FUNCTION welch_round(a float8[], k int) RETURNS numeric[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(round(x::numeric, k) ORDER BY o) FROM unnest(a) WITH ORDINALITY AS u(x, o)
$$;
-- max |a_i - b_i| / max(|b_i|, floor)
CREATE FUNCTION welch_relerr(a float8[], b float8[], floor float8 DEFAULT 1e-300) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x - y) / greatest(abs(y), floor))
	FROM unnest(a) WITH ORDINALITY AS u(x, o) JOIN unnest(b) WITH ORDINALITY AS v(y, p) ON o = p
$$;
-- a sinusoid of amplitude 3 at 11 Hz (on a bin: 22 x 0.5 Hz), 10 s at 128 Hz
CREATE TABLE welch_sine AS
	SELECT array_agg(3 * sin(2 * pi() * 11 * t / 128.0) ORDER BY t) AS x FROM generate_series(0, 1279) t;
-- defaults: 2 s Hann segments (256 samples), 50 % overlap: (1280 - 256)/128 + 1 = 9 segments;
-- the sine's power A^2/2 = 4.5 lies in alpha [8, 12) (and not in slow alpha [8, 10))
SELECT band, low, high, segments FROM (SELECT (gsu.welch(x, 128)).* FROM welch_sine) w;
SELECT abs(w.mean[3] - ln(4.5)) < 1e-12 AS alpha_is_ln_4_5, w.variance[3] < 1e-20 AS alpha_var_0,
	w.mean[1] < -40 AS theta_empty, w.mean[2] < -40 AS slow_alpha_empty, w.mean[4] < -40 AS beta_empty
	FROM (SELECT (gsu.welch(x, 128)).* FROM welch_sine) w;
-- linear scale: the power itself
SELECT round(((gsu.welch(x, 128, '{"scale": "linear"}')).mean[3])::numeric, 10) AS alpha_power FROM welch_sine;
-- against a direct DFT in SQL: 64 samples at 16 Hz, segments of 16 every 8 (7 segments),
-- mean removed, periodic Hann window (sum w^2 = 3L/8 = 6), one-sided density, bands [1, 3) and [3, 8]
CREATE TABLE welch_sig AS
	SELECT t, sin(t * 0.9) + 0.5 * cos(t * 2.3) + 0.1 * t + prand(t, 1) AS x FROM generate_series(0, 63) t;
CREATE TABLE welch_ref AS
WITH seg AS (SELECT k, u, x FROM generate_series(0, 6) k CROSS JOIN generate_series(0, 15) u JOIN welch_sig ON t = 8 * k + u),
	 d AS (SELECT k, u, (x - avg(x) OVER (PARTITION BY k)) * (0.5 - 0.5 * cos(2 * pi() * u / 16)) AS z FROM seg),
	 bins AS (SELECT k, j, CASE WHEN j IN (0, 8) THEN 1 ELSE 2 END
						* (sum(z * cos(2 * pi() * j * u / 16)) ^ 2 + sum(z * sin(2 * pi() * j * u / 16)) ^ 2) / (16 * 6.0) AS p
			  FROM d, generate_series(0, 8) j GROUP BY k, j),
	 bp AS (SELECT k, b, sum(p) * (16 / 16.0) AS power FROM bins, (VALUES (1, 1, 3), (2, 3, 8)) bd(b, lo, hi)
			WHERE j >= lo AND (j < hi OR (j = 8 AND hi = 8)) GROUP BY k, b)
SELECT b, avg(ln(power)) AS m, var_samp(ln(power)) AS vs, var_pop(ln(power)) AS vp,
	avg(power) AS lm, var_samp(power) AS lvs FROM bp GROUP BY b;
SELECT w.segments, w.band, welch_relerr(w.mean, r.m) < 1e-12 AS mean_ok, welch_relerr(w.variance, r.vs) < 1e-10 AS var_ok
	FROM (SELECT (gsu.welch(array_agg(x ORDER BY t), 16, '{"segment_length": 16, "bands": [[1, 3], [3, null]]}')).* FROM welch_sig) w,
		 (SELECT array_agg(m ORDER BY b) AS m, array_agg(vs ORDER BY b) AS vs FROM welch_ref) r;
SELECT welch_relerr(w.variance, r.vp) < 1e-10 AS population_ok
	FROM (SELECT (gsu.welch(array_agg(x ORDER BY t), 16, '{"segment_length": 16, "bands": [[1, 3], [3, 8]], "estimator": "population"}')).* FROM welch_sig) w,
		 (SELECT array_agg(vp ORDER BY b) AS vp FROM welch_ref) r;
SELECT welch_relerr(w.mean, r.lm) < 1e-12 AS linear_mean_ok, welch_relerr(w.variance, r.lvs) < 1e-10 AS linear_var_ok
	FROM (SELECT (gsu.welch(array_agg(x ORDER BY t), 16, '{"segment_length": 16, "bands": [[1, 3], [3, 8]], "scale": "linear"}')).* FROM welch_sig) w,
		 (SELECT array_agg(lm ORDER BY b) AS lm, array_agg(lvs ORDER BY b) AS lvs FROM welch_ref) r;
-- scales: log10 = ln / ln 10, db = 10 log10 (means scale by c, variances by c^2)
SELECT welch_relerr(db.variance, (SELECT array_agg(v * (10 / ln(10)) ^ 2) FROM unnest(ln.variance) v)) < 1e-12 AS db_var,
	welch_relerr(db.mean, (SELECT array_agg(v * 10 / ln(10)) FROM unnest(ln.mean) v)) < 1e-12 AS db_mean,
	welch_relerr(l10.mean, (SELECT array_agg(v / ln(10)) FROM unnest(ln.mean) v)) < 1e-12 AS log10_mean
	FROM (SELECT array_agg(x ORDER BY t) x FROM welch_sig) s,
		 LATERAL gsu.welch(s.x, 16, '{"segment_length": 16, "bands": [[1, 3], [3, 8]]}') ln,
		 LATERAL gsu.welch(s.x, 16, '{"segment_length": 16, "bands": [[1, 3], [3, 8]], "scale": "db"}') db,
		 LATERAL gsu.welch(s.x, 16, '{"segment_length": 16, "bands": [[1, 3], [3, 8]], "scale": "log10"}') l10;
-- overlap and segment counts: 1280 samples, 256 per segment
SELECT o, (gsu.welch(x, 128, jsonb_build_object('overlap', o))).segments
	FROM welch_sine, unnest(ARRAY[0, 0.25, 0.5, 0.75, 0.9]) o;
SELECT (gsu.welch(x, 128, '{"segment_length": 128}')).segments AS l128, (gsu.welch(x, 128, '{"segment_length": 1024, "overlap": 0.999}')).segments AS l1024
	FROM welch_sine;
-- windows and detrending: a ramp under linear detrending leaves the sine alone
SELECT welch_relerr((gsu.welch(y, 128, '{"detrend": "linear", "scale": "linear"}')).mean,
		(gsu.welch(x, 128, '{"detrend": "linear", "scale": "linear"}')).mean) < 1e-9 AS ramp_removed
	FROM (SELECT array_agg(3 * sin(2 * pi() * 11 * t / 128.0) + 0.01 * t + 5 ORDER BY t) y,
				 array_agg(3 * sin(2 * pi() * 11 * t / 128.0) ORDER BY t) x FROM generate_series(0, 1279) t) s;
SELECT w AS window, welch_round((gsu.welch(x, 128, jsonb_build_object('window', w, 'scale', 'linear', 'floor', 1e-300))).mean, 6) AS power
	FROM welch_sine, unnest(ARRAY['hann', 'hamming', 'rectangular']) w;
SELECT d AS detrend, welch_round((gsu.welch(y, 128, jsonb_build_object('detrend', d, 'bands', '[[0, 2]]'::jsonb))).mean, 6) AS low_band
	FROM (SELECT array_agg(sin(t * 0.1) + 10 + 0.01 * t ORDER BY t) y FROM generate_series(0, 1279) t) s,
		 unnest(ARRAY['none', 'constant', 'linear']) d;
-- bands as an object: ordered by frequency (jsonb keeps no key order); null high = fs/2
SELECT band, low, high FROM (SELECT (gsu.welch(x, 128, '{"bands": {"gamma": [30, null], "delta": [0.5, 4], "alpha": [8, 12]}}')).* FROM welch_sine) w;
SELECT band FROM (SELECT (gsu.welch(x, 128, '{"bands": [[12, 30], [0, 4.5], [2.5, 64]]}')).* FROM welch_sine) w;
-- a zero power under a log is an error unless a floor is given; floor f gives log(max(power, f))
SELECT test_error($$SELECT gsu.welch(array_fill(0::float8, ARRAY[1024]), 128)$$);
SELECT test_error($$SELECT gsu.welch(array_fill(0::float8, ARRAY[512]) || x, 128) FROM welch_sine$$);
SELECT (gsu.welch(array_fill(0::float8, ARRAY[1024]), 128, '{"floor": 1e-20}')).mean = array_fill(ln(1e-20::float8), ARRAY[5]) AS floored;
SELECT (gsu.welch(array_fill(0::float8, ARRAY[1024]), 128, '{"scale": "linear"}')).*;
-- STRICT: NULL in, NULL out
SELECT gsu.welch(NULL, 128) IS NULL AS null_signal, gsu.welch(ARRAY[1]::float8[], NULL) IS NULL AS null_rate,
	gsu.welch(ARRAY[1]::float8[], 128, NULL) IS NULL AS null_options;
-- one plan per segment length, cached: many lengths in one query
SELECT count(DISTINCT (gsu.welch(x, 128, jsonb_build_object('segment_length', l))).segments) FROM welch_sine, generate_series(100, 130) l;
-- errors: the signal
SELECT test_error($$SELECT gsu.welch('{}'::float8[], 128)$$);
SELECT test_error($$SELECT gsu.welch(ARRAY[[1, 2], [3, 4]]::float8[], 128)$$);
SELECT test_error($$SELECT gsu.welch(ARRAY[1, NULL]::float8[], 128)$$);
SELECT test_error($$SELECT gsu.welch(x || 'NaN'::float8, 128) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x || '-Infinity'::float8, 128) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x[1:200], 128) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x[1:300], 128) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": 1000, "overlap": 0}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": 2000}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(array_fill(1e300::float8, ARRAY[1024]) || array_fill(-1e300::float8, ARRAY[1024]), 128)$$);
-- errors: the sampling rate
SELECT test_error($$SELECT gsu.welch(x, 0) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, -128) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 'NaN') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 'Infinity') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 50) FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 0.1) FROM welch_sine$$);
-- errors: options
SELECT test_error($$SELECT gsu.welch(x, 128, '[1]') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '"hann"') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment": 256}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": 1}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": 1048577}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": 256.5}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"segment_length": "256"}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"overlap": 1}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"overlap": -0.1}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"window": "hanning"}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"detrend": true}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"scale": "ln"}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"estimator": "unbiased"}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"floor": -1}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"floor": "tiny"}') FROM welch_sine$$);
-- errors: bands
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[0, 65]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": {"low": [-1, 4]}}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": {"alpha": [12, 8]}}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[4, 4]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[4.1, 4.2]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": "alpha"}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": []}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": {}}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[1]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[1, "a"]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [4, 8]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": {"alpha": 8}}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[null, 8]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, '{"bands": [[1, 1e400]]}') FROM welch_sine$$);
SELECT test_error($$SELECT gsu.welch(x, 128, jsonb_build_object('bands', (SELECT jsonb_agg(jsonb_build_array(0, 1)) FROM generate_series(1, 1001)))) FROM welch_sine$$);

-- ------------------------------------------------------------ gsu.fisher_score
-- hand-computed: positives (1, 2), (3, 2): mean (2, 2), sample variance (2, 0);
-- negatives (0, 5), (2, 7): mean (1, 6), variance (2, 2); F = (1/4, 16/2)
CREATE TABLE fisher_hand (features float8[], label int4);
INSERT INTO fisher_hand VALUES (ARRAY[1, 2], 1), (ARRAY[3, 2], 1), (ARRAY[0, 5], -1), (ARRAY[2, 7], -1);
SELECT welch_round(gsu.fisher_score(features, label), 12) FROM fisher_hand;
-- population variances (1, 0) and (1, 1): F = (1/2, 16)
SELECT welch_round(gsu.fisher_score(features, label, '{"estimator": "population"}'), 12) FROM fisher_hand;
SELECT gsu.fisher_score(features, label, '{"estimator": "sample"}') = gsu.fisher_score(features, label) AS explicit_default,
	gsu.fisher_score(features, label = 1) = gsu.fisher_score(features, label) AS bool_labels,
	gsu.fisher_score(features, label = 1, '{"estimator": "population"}') = gsu.fisher_score(features, label, '{"estimator": "population"}') AS bool_population
	FROM fisher_hand;
-- NULL rows are skipped; a NULL options value means the defaults
SELECT welch_round(gsu.fisher_score(f, l), 12) FROM (SELECT features, label FROM fisher_hand UNION ALL
	VALUES (NULL, 1), (ARRAY[100, 100], NULL)) t(f, l);
SELECT gsu.fisher_score(features, label, NULL) = gsu.fisher_score(features, label) AS null_options FROM fisher_hand;
-- constant features: 0 when the classes agree, Infinity when they differ
SELECT gsu.fisher_score(ARRAY[1, CASE WHEN i % 2 = 0 THEN 5 ELSE 7 END]::float8[], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)
	FROM generate_series(1, 6) i;
-- NULL without rows, with one class, or with one row in a class (sample variance undefined)
SELECT gsu.fisher_score(features, label) IS NULL AS no_rows FROM fisher_hand WHERE false;
SELECT gsu.fisher_score(features, label) IS NULL AS one_class FROM fisher_hand WHERE label = 1;
SELECT gsu.fisher_score(features, label) IS NULL AS one_negative FROM fisher_hand WHERE features[1] <> 0;
SELECT gsu.fisher_score(features, label, '{"estimator": "population"}') FROM fisher_hand WHERE features[1] <> 0;
-- against PostgreSQL's avg and var_samp, per group
SELECT welch_relerr(gsu.fisher_score(p.mean, p.label), r.f) < 1e-12 AS matches_var_samp
	FROM pts p, (SELECT array_agg(((pm - nm) ^ 2 / (pv + nv)) ORDER BY k) f FROM (
			SELECT k, avg(x) FILTER (WHERE label = 1) pm, avg(x) FILTER (WHERE label = -1) nm,
				var_samp(x) FILTER (WHERE label = 1) pv, var_samp(x) FILTER (WHERE label = -1) nv
			FROM pts, unnest(mean) WITH ORDINALITY u(x, k) GROUP BY k) s) r
	GROUP BY r.f;
-- the feature the data separates on ranks first (pts: centres differ by 2, 1, 0)
SELECT k, rank() OVER (ORDER BY f DESC) FROM (SELECT gsu.fisher_score(mean, label) fs FROM pts) s,
	unnest(fs) WITH ORDINALITY u(f, k) ORDER BY k;
-- parallel aggregation gives the serial result
CREATE TABLE fisher_big AS
	SELECT i % 3 AS g, ARRAY[1e6 + sin(i) + (i % 2), cos(i * 0.37) * 10, (hashint4(i) % 1000)::float8 / 7] AS x,
		CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
	FROM generate_series(1, 60000) i;
ANALYZE fisher_big;
CREATE TABLE fisher_serial AS SELECT g, gsu.fisher_score(x, label) AS f FROM fisher_big GROUP BY g
	UNION ALL SELECT -1, gsu.fisher_score(x, label) FROM fisher_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.fisher_score(x, label) FROM fisher_big;
SELECT welch_relerr(p.f, s.f) < 1e-12 AS parallel_ok
	FROM (SELECT gsu.fisher_score(x, label) AS f FROM fisher_big) p, fisher_serial s WHERE s.g = -1;
SELECT g, welch_relerr(p.f, s.f) < 1e-12 AS parallel_ok
	FROM (SELECT g, gsu.fisher_score(x, label) AS f FROM fisher_big GROUP BY g) p JOIN fisher_serial s USING (g) ORDER BY g;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- errors
SELECT test_error($$SELECT gsu.fisher_score(f, 0) FROM (VALUES (ARRAY[1, 2]::float8[])) t(f)$$);
SELECT test_error($$SELECT gsu.fisher_score(f, 2) FROM (VALUES (ARRAY[1, 2]::float8[])) t(f)$$);
SELECT test_error($$SELECT gsu.fisher_score(f, l) FROM (VALUES (ARRAY[1, 2]::float8[], 1), (ARRAY[1, 2, 3], -1)) t(f, l)$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[1, NULL]::float8[], 1)$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[1, 'NaN']::float8[], 1)$$);
SELECT test_error($$SELECT gsu.fisher_score('{}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[[1, 2]]::float8[], 1)$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[1]::float8[], 1, '{"estimater": "sample"}')$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[1]::float8[], 1, '{"estimator": "unbiased"}')$$);
SELECT test_error($$SELECT gsu.fisher_score(ARRAY[1]::float8[], 1, '[]')$$);
SELECT test_error($$SELECT gsu.fisher_score(f, l, o) FROM (VALUES (ARRAY[1]::float8[], 1, '{}'::jsonb), (ARRAY[2], -1, '{"estimator": "population"}')) t(f, l, o)$$);
SELECT test_error($$SELECT gsu.fisher_score(f, l) FROM (VALUES (ARRAY[1e200]::float8[], 1), (ARRAY[-1e200], 1)) t(f, l)$$);
-- support functions called outside an aggregate (through a C alias, as SQL cannot pass internal)
CREATE FUNCTION fisher_probe(bytea) RETURNS float8[] AS 'pg_gsu', 'gsu_fisher_score_finalfn' LANGUAGE C;
SELECT test_error('SELECT fisher_probe(NULL)');
DROP FUNCTION fisher_probe(bytea);
-- hostile serialized states (a strict aggregate whose transition is the deserialization
-- function); header: magic "GSF1", d, ddof, reserved (int32), n_pos, n_neg (int64), then 6d doubles
CREATE FUNCTION fisher_deser(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_fisher_score_deserialfn' LANGUAGE C STRICT;
CREATE AGGREGATE fisher_deser(bytea) (SFUNC = fisher_deser, STYPE = bytea);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534801000000010000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000020000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000010000000100000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534700000000010000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000010000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000010000000000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000010000000000000001000000000000000000000000000000'
	'000000000000f87f00000000000000000000000000000000000000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT test_error($$SELECT fisher_deser(b) FROM (VALUES ('\x3146534701000000010000000000000001000000000000000000000000000000'
	'000000000000f03f0000000000000000000000000000f0bf000000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
DROP AGGREGATE fisher_deser(bytea);
DROP FUNCTION fisher_deser(bytea, bytea);
