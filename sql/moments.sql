CREATE EXTENSION IF NOT EXISTS pg_gsu;
-- gsu.moments: per-group mean, variance and count of observation vectors
CREATE FUNCTION moments_err(sql text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE '%: %', SQLSTATE, SQLERRM;
END $$;
-- rounds every element (any shape, flattened in storage order)
CREATE FUNCTION moments_round(a float8[], k int) RETURNS numeric[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(round(x::numeric, k) ORDER BY o) FROM unnest(a) WITH ORDINALITY AS u(x, o)
$$;
-- max |a_i - b_i| / max(|b_i|, floor) over the elements of two arrays of the same shape
CREATE FUNCTION moments_relerr(a float8[], b float8[], floor float8 DEFAULT 1e-300) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT max(abs(x - y) / greatest(abs(y), floor))
	FROM unnest(a) WITH ORDINALITY AS u(x, o) JOIN unnest(b) WITH ORDINALITY AS v(y, p) ON o = p
$$;
-- frames of 4 videos, 3 features each; video v has 3 + 4v frames
CREATE TABLE moments_frames AS
	SELECT v AS video, i AS frame_no,
		ARRAY[sin(i * v + 0.5), cos(0.7 * i) * v, (i % 5)::float8 + 0.1 * v] AS frame
	FROM generate_series(1, 4) v, generate_series(1, 3 + 4 * v) i;
-- per-feature reference from PostgreSQL's own avg / var_samp / var_pop
CREATE TABLE moments_ref AS
	SELECT video, array_agg(m ORDER BY k) AS mean, array_agg(vs ORDER BY k) AS var_samp,
		array_agg(vp ORDER BY k) AS var_pop, max(c) AS count
	FROM (SELECT video, k, avg(x) AS m, var_samp(x) AS vs, var_pop(x) AS vp, count(*) AS c
		  FROM moments_frames, unnest(frame) WITH ORDINALITY AS u(x, k) GROUP BY video, k) s
	GROUP BY video;
-- the call the paper's video experiments need: one Gaussian per video
SELECT video, moments_round(mean, 6) AS mean, moments_round(variance, 6) AS variance, count
	FROM (SELECT video, (gsu.moments(frame)).* FROM moments_frames GROUP BY video) s ORDER BY video;
-- the default estimator is the sample (n-1) one
SELECT video, moments_relerr(g.mean, r.mean, 1e-12) < 1e-13 AS mean_ok,
	moments_relerr(g.variance, r.var_samp) < 1e-12 AS var_samp_ok, g.count = r.count AS count_ok
	FROM (SELECT video, (gsu.moments(frame)).* FROM moments_frames GROUP BY video) g
	JOIN moments_ref r USING (video) ORDER BY video;
SELECT video, moments_relerr(g.variance, r.var_samp) < 1e-12 AS var_samp_ok
	FROM (SELECT video, (gsu.moments(frame, '{"estimator": "sample"}')).* FROM moments_frames GROUP BY video) g
	JOIN moments_ref r USING (video) ORDER BY video;
SELECT video, moments_relerr(g.variance, r.var_pop) < 1e-12 AS var_pop_ok
	FROM (SELECT video, (gsu.moments(frame, '{"estimator": "population"}')).* FROM moments_frames GROUP BY video) g
	JOIN moments_ref r USING (video) ORDER BY video;
-- NULL options mean the defaults; explicit "diagonal" is the default
SELECT (gsu.moments(frame, NULL)).variance = (gsu.moments(frame)).variance AS null_options FROM moments_frames;
SELECT (gsu.moments(frame, '{"covariance": "diagonal"}')).variance = (gsu.moments(frame)).variance AS diagonal FROM moments_frames;
-- hand-computed: rows (1,2), (2,4), (3,3), (4,7): mean (2.5, 4), sample variance (5/3, 14/3), population (1.25, 3.5)
SELECT (gsu.moments(x)).* FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[2,4]), (ARRAY[3,3]), (ARRAY[4,7])) t(x);
SELECT (gsu.moments(x, '{"estimator": "population"}')).* FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[2,4]), (ARRAY[3,3]), (ARRAY[4,7])) t(x);
-- full covariance: sample covariance (5/3, 7/3; 7/3, 14/3) as a 2-D array
SELECT moments_round(variance, 12) AS covariance, array_dims(variance) FROM (SELECT (gsu.moments(x, '{"covariance": "full"}')).* FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[2,4]), (ARRAY[3,3]), (ARRAY[4,7])) t(x)) s;
SELECT (gsu.moments(x, '{"covariance": "full", "estimator": "population"}')).variance FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[2,4]), (ARRAY[3,3]), (ARRAY[4,7])) t(x);
-- full covariance against covar_samp of every pair of features
SELECT video, bool_and(abs(c.variance[j][k] - r.cv) <= 1e-12 * greatest(abs(r.cv), 1e-6)) AS covariance_ok,
	bool_and(c.variance[j][k] = c.variance[k][j]) AS symmetric
	FROM (SELECT video, (gsu.moments(frame, '{"covariance": "full"}')).* FROM moments_frames GROUP BY video) c
	JOIN (SELECT a.video, a.k AS j, b.k, covar_samp(a.x, b.x) AS cv
		  FROM (SELECT video, frame_no, k, x FROM moments_frames, unnest(frame) WITH ORDINALITY u(x, k)) a
		  JOIN (SELECT video, frame_no, k, x FROM moments_frames, unnest(frame) WITH ORDINALITY u(x, k)) b
		  USING (video, frame_no) GROUP BY a.video, a.k, b.k) r USING (video)
	GROUP BY video ORDER BY video;
-- the diagonal of the full covariance is the diagonal variance, bit for bit
SELECT video, ARRAY[f.v[1][1], f.v[2][2], f.v[3][3]] = d.v AS diagonal_ok
	FROM (SELECT video, (gsu.moments(frame, '{"covariance": "full"}')).variance AS v FROM moments_frames GROUP BY video) f
	JOIN (SELECT video, (gsu.moments(frame)).variance AS v FROM moments_frames GROUP BY video) d USING (video) ORDER BY video;
-- one observation: the sample variance is undefined (NULL); the population one is 0
SELECT (gsu.moments(ARRAY[1.5, -2]::float8[])).*;
SELECT (gsu.moments(ARRAY[1.5, -2]::float8[], '{"estimator": "population"}')).*;
SELECT (gsu.moments(ARRAY[1.5, -2]::float8[], '{"estimator": "population", "covariance": "full"}')).*;
SELECT (gsu.moments(ARRAY[1.5, -2]::float8[], '{"covariance": "full"}')).*;
-- no rows, or only NULL rows: NULL; NULL rows are skipped
SELECT gsu.moments(frame) IS NULL AS no_rows FROM moments_frames WHERE false;
SELECT (gsu.moments(frame)).* FROM moments_frames WHERE false;
SELECT gsu.moments(x) IS NULL AS only_nulls FROM (VALUES (NULL::float8[]), (NULL)) t(x);
SELECT (gsu.moments(x)).* FROM (VALUES (NULL::float8[]), (ARRAY[1, 10]), (NULL), (ARRAY[3, 20])) t(x);
-- a one-element observation; a constant column has variance 0
SELECT (gsu.moments(ARRAY[i::float8])).* FROM generate_series(1, 10) i;
SELECT (gsu.moments(ARRAY[7, i]::float8[])).variance FROM generate_series(1, 3) i;
-- numerically stable: 1e9 + k/2^20 (|k| <= 1000, exact in float8 and numeric), against exact numeric var_samp / avg
CREATE TABLE moments_ill AS SELECT i, round(1000 * sin(i))::int AS k FROM generate_series(1, 10000) i;
SELECT abs((gsu.moments(ARRAY[1e9::float8 + k::float8 / 1048576])).variance[1] / var_samp(1e9 + k * 0.00000095367431640625)::float8 - 1) < 1e-12 AS variance_ok
	FROM moments_ill;
SELECT abs((gsu.moments(ARRAY[1e9::float8 + k::float8 / 1048576])).mean[1] - avg(1e9 + k * 0.00000095367431640625)::float8) <= 1.2e-7 AS mean_ok
	FROM moments_ill;
SELECT abs((gsu.moments(ARRAY[1e9::float8 + k::float8 / 1048576, -1e9::float8 - k::float8 / 1048576], '{"covariance": "full"}')).variance[1][2]
	/ var_samp(1e9 + k * 0.00000095367431640625)::float8 + 1) < 1e-12 AS covariance_ok
	FROM moments_ill;
-- parallel aggregation: combine/serial/deserial give the serial result
CREATE TABLE moments_big AS
	SELECT i % 3 AS g, ARRAY[1e6 + sin(i), cos(i * 0.37) * 10, (hashint4(i) % 1000)::float8 / 7] AS x
	FROM generate_series(1, 60000) i;
ANALYZE moments_big;
CREATE TABLE moments_serial AS
	SELECT g, (gsu.moments(x)).*, (gsu.moments(x, '{"covariance": "full"}')).variance AS cov FROM moments_big GROUP BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.moments(x) FROM moments_big;
EXPLAIN (COSTS OFF) SELECT g, gsu.moments(x) FROM moments_big GROUP BY g;
SELECT moments_relerr(p.mean, s.mean) < 1e-14 AS mean_ok, moments_relerr(p.variance, s.variance) < 1e-12 AS var_ok,
	moments_relerr(p.cov, s.cov, 1e-3) < 1e-12 AS cov_ok, p.count = s.count AS count_ok
	FROM (SELECT g, (gsu.moments(x)).*, (gsu.moments(x, '{"covariance": "full"}')).variance AS cov FROM moments_big GROUP BY g) p
	JOIN moments_serial s USING (g) ORDER BY g;
SELECT moments_relerr(p.variance, s.variance) < 1e-12 AS total_ok, p.count
	FROM (SELECT (gsu.moments(x)).* FROM moments_big) p,
		 (SELECT (gsu.moments(x)).* FROM (SELECT x FROM moments_big ORDER BY g) o) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- errors: observations
SELECT moments_err($$SELECT gsu.moments(x) FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[1,2,3])) t(x)$$);
SELECT moments_err($$SELECT gsu.moments(x) FROM (VALUES (ARRAY[1,2]::float8[]), (ARRAY[1,NULL])) t(x)$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY['NaN', 1]::float8[])$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1, 'Infinity']::float8[])$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1, '-Infinity']::float8[])$$);
SELECT moments_err($$SELECT gsu.moments('{}'::float8[])$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[[1,2],[3,4]]::float8[])$$);
SELECT moments_err($$SELECT gsu.moments(array_fill(0::float8, ARRAY[1000001]))$$);
SELECT moments_err($$SELECT gsu.moments(x) FROM (VALUES (ARRAY[1.5e308, 0]::float8[]), (ARRAY[-1.5e308, 0])) t(x)$$);
SELECT moments_err($$SELECT gsu.moments(x) FROM (VALUES (ARRAY[1e200, 0]::float8[]), (ARRAY[-1e200, 0])) t(x)$$);
SELECT moments_err($$SELECT gsu.moments(x, '{"covariance": "full"}') FROM (VALUES (ARRAY[1e200, 0]::float8[]), (ARRAY[-1e200, 0])) t(x)$$);
-- errors: options
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '{"estimater": "sample"}')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '{"estimator": "unbiased"}')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '{"estimator": 1}')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '{"covariance": "diag"}')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '{"covariance": true}')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '["full"]')$$);
SELECT moments_err($$SELECT gsu.moments(ARRAY[1]::float8[], '"full"')$$);
SELECT moments_err($$SELECT gsu.moments(array_fill(0::float8, ARRAY[4097]), '{"covariance": "full"}')$$);
SELECT moments_err($$SELECT gsu.moments(array_fill(0::float8, ARRAY[4097]))$$);
DROP TABLE moments_frames, moments_ref, moments_ill, moments_big, moments_serial;
DROP FUNCTION moments_err(text), moments_round(float8[], int), moments_relerr(float8[], float8[], float8);
