-- Shared fixtures for the pg_gsu regression suite (the files run in order in
-- one database).
\set SHOW_CONTEXT never

-- test_error(sql): runs sql and prints the SQLSTATE and message of the error
-- it raises (with DETAIL and HINT when present), or "no error".
CREATE FUNCTION public.test_error(sql text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	hnt text;
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
	RAISE NOTICE '%', st || ': ' || msg
		|| CASE WHEN det <> '' THEN E'\nDETAIL: ' || det ELSE '' END
		|| CASE WHEN hnt <> '' THEN E'\nHINT: ' || hnt ELSE '' END;
END
$$;

-- regress_file(name): the file a COPY test writes through /tmp as the server's
-- user, named by the server's port so that test runs on other servers of the
-- machine do not share it (scripts/quickstart.sh removes its ports' files)
CREATE FUNCTION public.regress_file(name text) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT format('/tmp/pg_gsu_regress_%s_%s.bin', name, current_setting('port'))
$$;

-- workers_launched(sql): the "Workers ..." lines of EXPLAIN ANALYZE of sql, to
-- show that a parallel plan's workers ran
CREATE FUNCTION public.workers_launched(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ 'Workers Launched' THEN
			RETURN NEXT trim(line);
		END IF;
	END LOOP;
END
$$;

-- prand(i, k): a deterministic pseudo-random number in [0, 1) (the classic
-- fract(sin(.) * 43758.5453) hash), so that the data does not depend on random().
CREATE FUNCTION public.prand(i int, k int) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT x - floor(x) FROM (SELECT abs(sin(i * 12.9898 + k * 78.233)) * 43758.5453 AS x) s
$$;

-- pnorm(i, k): approximately standard normal (sum of 4 uniforms, centred and scaled).
CREATE FUNCTION public.pnorm(i int, k int) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT (prand(i, k) + prand(i, k + 101) + prand(i, k + 211) + prand(i, k + 307) - 2.0) * sqrt(3.0)
$$;

-- pts: 400 rows of dimension 3 in two classes (label 1 for even id, -1 for
-- odd id) with centres (1, 0.5, 0) and (-1, -0.5, 0); every tenth row has a
-- NULL variance (a certain row).
CREATE TABLE pts (id int PRIMARY KEY, mean float8[], variance float8[], label int4);
INSERT INTO pts
SELECT i, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)],
	CASE WHEN i % 10 = 0 THEN NULL
		 ELSE ARRAY[0.05 + 0.5 * prand(i, 4), 0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6)] END,
	l
FROM generate_series(1, 400) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;

-- pts_lowrank: pts with a rank-2 covariance factor f per row (dim 3 x 2) and its
-- dense product c = f f^T; every tenth row stays certain (NULL), as in pts
-- (sql/lowrank.sql, sql/fit_lowrank.sql)
CREATE FUNCTION public.factor_product(f float8[]) RETURNS float8[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	n int := array_length(f, 1);
	r int := array_length(f, 2);
	c float8[] := array_fill(0::float8, ARRAY[n, n]);
BEGIN
	FOR a IN 1..n LOOP
		FOR b IN 1..n LOOP
			FOR k IN 1..r LOOP
				c[a][b] := c[a][b] + f[a][k] * f[b][k];
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN c;
END
$$;
CREATE TABLE pts_lowrank AS
SELECT id, mean, label, f, factor_product(f) AS c
FROM (SELECT id, mean, label,
		CASE WHEN variance IS NOT NULL THEN
			ARRAY[[0.5 * prand(id, 11), 0.3 * prand(id, 12) - 0.15],
				  [0.4 * prand(id, 13) - 0.2, 0.5 * prand(id, 14)],
				  [0.2 * prand(id, 15), 0.3 * prand(id, 16)]] END AS f
	  FROM pts) s;

-- the fixture is what the tests expect
SELECT count(*), sum(label), count(variance) FROM pts;
SELECT bool_and(prand(i, 7) >= 0 AND prand(i, 7) < 1) FROM generate_series(1, 1000) i;
SELECT abs(avg(pnorm(i, 8))) < 0.1 AS mean_ok, abs(stddev(pnorm(i, 8)) - 1) < 0.1 AS sd_ok
FROM generate_series(1, 2000) i;
SELECT bool_and(array_length(mean, 1) = 3) AND bool_and(coalesce(array_length(variance, 1), 3) = 3) FROM pts;
SELECT label, round(avg(mean[1])::numeric, 1) AS m1, round(avg(mean[2])::numeric, 1) AS m2,
	round(avg(mean[3])::numeric, 1) AS m3
FROM pts GROUP BY label ORDER BY label;
SELECT test_error('SELECT 1/0');
SELECT test_error('SELECT 1');
SELECT test_error($$SELECT 'x'::gsu.model$$);
