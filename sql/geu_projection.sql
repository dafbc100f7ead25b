-- gsu.projection: JSON text I/O, jsonb casts, binary send/recv (round trip and
-- hostile bytes), inspection, and gsu.project / project_variance /
-- project_covariance with every error they raise.
CREATE EXTENSION IF NOT EXISTS pg_gsu;
\set SHOW_CONTEXT never

-- geu_err(sql): runs sql and prints the SQLSTATE and message of its error
-- (with DETAIL and HINT when present), or "no error".
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

-- geu_recv(type, bytes): reads bytes as the binary form of type through a
-- binary COPY (which calls the type's receive function) and returns the value
-- as text.
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

-- ---------------------------------------------------------------- text I/O
-- the minimal form: defaults for everything else (method lda, eigenvalues 0)
SELECT '{"format": 1, "dim": 3, "dims": 2, "vectors": [[1, 2, -1], [0.5, 0, 3]]}'::gsu.projection;
-- every key
SELECT '{"format": 1, "method": "mfa", "dim": 2, "dims": 1, "uncertainty": true, "regularization": 0.5, "k1": 3, "k2": 7, "classes": 4, "rows": 100, "eigenvalues": [0.25], "vectors": [[1e-300, -3]]}'::gsu.projection;
-- mfa without k1, k2 takes the defaults 5 and 20
SELECT gsu.describe_projection('{"format": 1, "method": "mfa", "dim": 1, "dims": 1, "vectors": [[2]]}');
CREATE TABLE geu_p (id int, p gsu.projection);
INSERT INTO geu_p VALUES
	(1, '{"format": 1, "dim": 3, "dims": 2, "eigenvalues": [0.125, 0.75], "vectors": [[1, 2, -1], [0.5, 0, 3]]}'),
	(2, '{"format": 1, "dim": 3, "dims": 1, "vectors": [[1, -1, 1]]}'),
	(3, '{"format": 1, "method": "mfa", "dim": 2, "dims": 2, "uncertainty": true, "regularization": 1e-3, "k1": 2, "k2": 9, "classes": 3, "rows": 12, "eigenvalues": [0.1, 0.30000000000000004], "vectors": [[0.1, -0.7], [1.5e10, 2.5e-10]]}'),
	(4, '{"format": 1, "dim": 2, "dims": 1, "regularization": 0.5, "regularize": "penalty", "vectors": [[1, 2]]}');
-- "regularize" (where epsilon went): absent or null is "both", the meaning of
-- every projection stored before the key existed; without regularization it
-- is null whatever was given
SELECT r, ('{"format": 1, "dim": 1, "dims": 1, "vectors": [[1]], "regularization": ' || e || r || '}')::gsu.projection::jsonb ->> 'regularize' AS regularize
FROM (VALUES ('0.5', ''), ('0.5', ', "regularize": null'), ('0.5', ', "regularize": "both"'),
	  ('0.5', ', "regularize": "penalty"'), ('0', ', "regularize": "penalty"'), ('-0', ', "regularize": "both"')) v(e, r);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "dims": 1, "vectors": [[1]], "regularization": 1, "regularize": "intrinsic"}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "dims": 1, "vectors": [[1]], "regularization": 1, "regularize": 1}'::gsu.projection$$);
-- round trips: text, jsonb, binary (send, then receive through COPY)
SELECT id, p::text::gsu.projection::text = p::text AS text_ok,
	p::jsonb::gsu.projection::text = p::text AS jsonb_ok,
	geu_recv('gsu.projection', gsu.projection_send(p)) = p::text AS binary_ok
FROM geu_p ORDER BY id;
-- binary COPY out and in
CREATE TEMP TABLE geu_p_copy (id int, p gsu.projection);
SELECT regress_file('geu_projection') AS regress_file \gset
COPY geu_p TO :'regress_file' WITH (FORMAT binary);
COPY geu_p_copy FROM :'regress_file' WITH (FORMAT binary);
SELECT a.id, a.p::text = b.p::text AS same FROM geu_p a JOIN geu_p_copy b USING (id) ORDER BY id;

-- ------------------------------------------------------------- inspection
SELECT id, gsu.describe_projection(p) FROM geu_p ORDER BY id;
SELECT id, gsu.eigenvalues(p), gsu.vectors(p) FROM geu_p ORDER BY id;
SELECT p::jsonb -> 'vectors' FROM geu_p WHERE id = 1;
SELECT gsu.describe_projection(NULL) IS NULL AS strict;

-- ---------------------------------------------------------------- project
-- V'x for V' = [[1, 2, -1], [0.5, 0, 3]], x = (1, -1, 2): (-3, 6.5)
SELECT gsu.project(p, '{1, -1, 2}') FROM geu_p WHERE id = 1;
-- diag(V' diag(0.5, 2, 1) V) = (0.5 + 8 + 1, 0.125 + 9)
SELECT gsu.project_variance(p, '{0.5, 2, 1}'::float8[]) FROM geu_p WHERE id = 1;
-- the same Sigma given as a full matrix
SELECT gsu.project_variance(p, '{{0.5, 0, 0}, {0, 2, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1;
-- isotropic 2*I: 2*|v_j|^2 = (12, 18.5)
SELECT gsu.project_variance(p, ARRAY[2.0]::float8[]) FROM geu_p WHERE id = 1;
-- full projected covariance; the off-diagonal is 1*0.5*0.5 + 0 + (-1)*3*1 = -2.75
SELECT gsu.project_covariance(p, '{0.5, 2, 1}'::float8[]) FROM geu_p WHERE id = 1;
SELECT gsu.project_covariance(p, '{{0.5, 0, 0}, {0, 2, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1;
-- a full Sigma with correlations, against V'SigmaV summed by hand
WITH s(sig) AS (SELECT '{{2, 0.5, 0.1}, {0.5, 1, -0.2}, {0.1, -0.2, 3}}'::float8[]),
	 ref AS (SELECT array_agg(v ORDER BY i, j) AS r FROM (
		SELECT i, j, sum((gsu.vectors(p))[i][a] * sig[a][b] * (gsu.vectors(p))[j][b]) AS v
		FROM geu_p, s, generate_series(1, 2) i, generate_series(1, 2) j, generate_series(1, 3) a,
			 generate_series(1, 3) b
		WHERE id = 1 GROUP BY i, j) q)
SELECT (SELECT bool_and(abs(c - r[k]) < 1e-12) FROM unnest(gsu.project_covariance(p, sig)) WITH ORDINALITY u(c, k)) AS full_ok,
	(SELECT bool_and(abs(c - r[3 * k - 2]) < 1e-12) FROM unnest(gsu.project_variance(p, sig)) WITH ORDINALITY u(c, k)) AS diag_ok
FROM geu_p, s, ref WHERE id = 1;
-- zero variance projects to zero
SELECT gsu.project_variance(p, '{0, 0}'::float8[]), gsu.project_variance(p, ARRAY[0.0]::float8[]) FROM geu_p WHERE id = 3;
-- NULL in, NULL out
-- (a NULL variance is a certain row: zero variances; a NULL projection gives NULL)
SELECT gsu.project(p, NULL) IS NULL, gsu.project_variance(p, NULL) AS certain,
	gsu.project_variance(NULL, '{1}'::float8[]) IS NULL, gsu.project_covariance(p, NULL) AS certain_covariance
FROM geu_p WHERE id = 1;
-- a stored projection used row by row
SELECT i, gsu.project(p, ARRAY[i, 1, 0]::float8[]) FROM geu_p, generate_series(1, 3) i WHERE id = 1 ORDER BY i;

-- ------------------------------------------------------ errors: using one
CALL geu_err($$SELECT gsu.project(p, '{1, 2}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{1, 2, 3, 4}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{1, NULL, 3}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{1, NaN, 3}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{1, 2, -Infinity}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project(p, '{{1, 2, 3}}') FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{1, 2}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{1, -2, 3}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{1, NaN, 3}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{1, NULL, 3}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0}, {0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0, 0}, {0, 1, 0}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{{1}}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0.5, 0}, {0.25, 1, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 3, 0}, {3, 1, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0, 0}, {0, -1, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0, 0}, {0, Infinity, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0, 0}, {0, NULL, 0}, {0, 0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
-- pairwise-valid but indefinite (eigenvalue -0.8 along (1, -1, 1), the direction of projection 2)
CALL geu_err($$SELECT gsu.project_variance(p, '{{1, 0.9, -0.9}, {0.9, 1, 0.9}, {-0.9, 0.9, 1}}'::float8[]) FROM geu_p WHERE id = 2$$);
CALL geu_err($$SELECT gsu.project_covariance(p, '{{1, 0.9, -0.9}, {0.9, 1, 0.9}, {-0.9, 0.9, 1}}'::float8[]) FROM geu_p WHERE id = 2$$);
CALL geu_err($$SELECT gsu.project_variance(p, ARRAY[-1.0]::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, ARRAY['NaN']::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_variance(p, ARRAY['Infinity']::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_covariance(p, '{1, 2}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_covariance(p, '{{1, 0}, {0, 1}}'::float8[]) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT gsu.project_covariance(p, '{1, -1, 1}'::float8[]) FROM geu_p WHERE id = 1$$);
-- results beyond double precision raise 22003 (before issue 27: Infinity)
CALL geu_err($$SELECT gsu.project('{"format": 1, "dim": 3, "dims": 1, "vectors": [[2, 2, 2]]}', '{1e308, 1e308, 1e308}')$$);
CALL geu_err($$SELECT gsu.project('{"format": 1, "dim": 3, "dims": 2, "vectors": [[1, 0, 0], [2, 2, -2]]}', '{1e308, 1e308, -1e308}')$$);
CALL geu_err($$SELECT gsu.project_variance('{"format": 1, "dim": 3, "dims": 1, "vectors": [[2, 2, 2]]}', '{1e308, 1e308, 1e308}'::float8[])$$);
CALL geu_err($$SELECT gsu.project_variance('{"format": 1, "dim": 3, "dims": 1, "vectors": [[2, 2, 2]]}', '{{1e308, 0, 0}, {0, 1e308, 0}, {0, 0, 1e308}}'::float8[])$$);
CALL geu_err($$SELECT gsu.project_covariance('{"format": 1, "dim": 3, "dims": 1, "vectors": [[2, 2, 2]]}', '{1e308, 1e308, 1e308}'::float8[])$$);
CALL geu_err($$SELECT gsu.project_covariance('{"format": 1, "dim": 3, "dims": 1, "vectors": [[2, 2, 2]]}', '{{1e308, 0, 0}, {0, 1e308, 0}, {0, 0, 1e308}}'::float8[])$$);
-- the largest results that fit are returned
SELECT gsu.project('{"format": 1, "dim": 3, "dims": 1, "vectors": [[0.5, 0.5, 0.5]]}', '{1e308, 1e308, -1e308}'),
	gsu.project_variance('{"format": 1, "dim": 3, "dims": 1, "vectors": [[0.5, 0.5, 0.5]]}', '{1e308, 1e308, 1e308}'::float8[]);

-- ------------------------------------------------------ errors: text input
CALL geu_err($$SELECT '{'::gsu.projection$$);
CALL geu_err($$SELECT '[1, 2]'::gsu.projection$$);
CALL geu_err($$SELECT '3'::gsu.projection$$);
CALL geu_err($$SELECT '{"dim": 1, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 2, "dim": 1, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": "1", "dim": 1, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "dims": 1, "vectors": [[1]], "foo": 1}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "method": "pca", "dim": 1, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 0, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1000001, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1.5, "dims": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "vectors": [[1]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "dims": 2, "vectors": [[1], [2]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 1, "dims": 0, "vectors": []}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": {"a": 1}}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2], [3, 4]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [3]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2, 3]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, "2"]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 1e400]]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "eigenvalues": [1, 2]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "eigenvalues": [null]}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "k1": 3}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "method": "mfa", "dim": 2, "dims": 1, "vectors": [[1, 2]], "k2": 0}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "regularization": -1}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "classes": -1}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "rows": -5}'::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1, "dim": 2, "dims": 1, "vectors": [[1, 2]], "uncertainty": "yes"}'::gsu.projection$$);
CALL geu_err($$SELECT '[1]'::jsonb::gsu.projection$$);
CALL geu_err($$SELECT '{"format": 1}'::jsonb::gsu.projection$$);

-- ---------------------------------------------------- errors: binary input
-- the valid bytes of projection 1, then altered ones
SELECT gsu.projection_send(p) FROM geu_p WHERE id = 1;
CALL geu_err($$SELECT geu_recv('gsu.projection', '\x0001000000000003')$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x0002' from 1)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x0004' from 3)) FROM geu_p WHERE id = 1$$);
-- the flag 0x0002 is "regularize": "penalty"; an old projection (flag clear) is "both";
-- without regularization the flag is dropped
SELECT id, substring(gsu.projection_send(p) from 3 for 2) AS sent_flags, geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x0002' from 3))::jsonb ->> 'regularize' AS with_flag,
	geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x0000' from 3))::jsonb ->> 'regularize' AS without_flag
FROM geu_p WHERE id IN (1, 3, 4) ORDER BY id;
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x00000004' from 9)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x00000000' from 5)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x7fffffff' from 5)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', gsu.projection_send(p) || '\x00'::bytea) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', substr(gsu.projection_send(p), 1, 60)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x07' from 13)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x01' from 14)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x0001' from 15)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x00000003' from 17)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\xffffffff' from 25)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\xbff0000000000000' from 37)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x7ff8000000000000' from 45)) FROM geu_p WHERE id = 1$$);
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x7ff0000000000000' from 61)) FROM geu_p WHERE id = 1$$);
-- mfa with k1 = 0
CALL geu_err($$SELECT geu_recv('gsu.projection', overlay(gsu.projection_send(p) placing '\x00000000' from 17)) FROM geu_p WHERE id = 3$$);
