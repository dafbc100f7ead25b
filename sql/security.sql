-- Security (issue 12): CREATE EXTENSION refuses a schema gsu owned by another
-- role, and pg_gsu's dynamic statements call pg_gsu's own functions whatever
-- the caller's search_path holds or the schema is renamed to. Runs in a
-- database of its own; the roles it makes are dropped at the end.
\set SHOW_CONTEXT never
SELECT current_database() AS regress_db \gset
CREATE ROLE regress_gsu_squatter;
CREATE DATABASE regress_gsu_security;
\c regress_gsu_security
\set SHOW_CONTEXT never

-- a schema gsu that another role made first is refused, and nothing is installed
CREATE SCHEMA gsu AUTHORIZATION regress_gsu_squatter;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'pg_gsu';
-- once the installing role owns it, it is used
ALTER SCHEMA gsu OWNER TO CURRENT_USER;
CREATE EXTENSION pg_gsu;
SELECT n.nspname, pg_get_userbyid(n.nspowner) = CURRENT_USER AS owned
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu';

CREATE TABLE rows2 AS
SELECT i AS id, ARRAY[s * 1.0 + 0.1 * (i % 7), s * 0.5 - 0.05 * (i % 5)]::float8[] AS mean,
	ARRAY[0.1, 0.2]::float8[] AS variance, s AS label
FROM generate_series(1, 60) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS s) c;
SET client_min_messages = warning;
CREATE TABLE reference AS
SELECT gsu.fit('rows2', 'mean', NULL, 'label', '{"lambda": 0.1}') AS fit,
	(SELECT array_agg(metric_mean ORDER BY lambda)
	 FROM gsu.cross_validate('rows2', 'mean', 'variance', 'label', '{0.1, 1}', 3)) AS cv;

-- planted objects in a schema that comes first in the caller's search_path
CREATE SCHEMA planted;
CREATE DOMAIN planted.float8 AS int;
CREATE FUNCTION planted.abs(bigint) RETURNS bigint LANGUAGE plpgsql AS
	$$ BEGIN RAISE EXCEPTION 'planted abs ran'; END $$;
SET search_path = planted, pg_catalog, public;
SELECT gsu.weights(m) = gsu.weights(fit) AND gsu.bias(m) = gsu.bias(fit) AS same_fit
FROM gsu.fit('rows2', 'mean', NULL, 'label', '{"lambda": 0.1}') m, reference;
SELECT (SELECT array_agg(metric_mean ORDER BY lambda)
		FROM gsu.cross_validate('rows2', 'mean', 'variance', 'label', '{0.1, 1}', 3)) = cv AS same_cv
FROM reference;
RESET search_path;

-- the schema renamed and a new gsu planted in its place: pg_gsu still calls its own functions
ALTER SCHEMA gsu RENAME TO gsu_home;
CREATE SCHEMA gsu;
CREATE FUNCTION gsu.train(float8[], float8[], int4, jsonb) RETURNS gsu_home.model LANGUAGE plpgsql AS
	$$ BEGIN RAISE EXCEPTION 'planted gsu.train ran'; END $$;
CREATE FUNCTION gsu.gradient(float8[], float8[], int4, gsu_home.model, float8) RETURNS gsu_home.partial
	LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'planted gsu.gradient ran'; END $$;
SELECT gsu_home.weights(m) = gsu_home.weights(fit) AND gsu_home.bias(m) = gsu_home.bias(fit) AS same_fit
FROM gsu_home.fit('rows2', 'mean', NULL, 'label', '{"lambda": 0.1}') m, reference;
SELECT (SELECT array_agg(metric_mean ORDER BY lambda)
		FROM gsu_home.cross_validate('rows2', 'mean', 'variance', 'label', '{0.1, 1}', 3)) = cv AS same_cv
FROM reference;
SELECT gsu_home.describe(gsu_home.train_best('rows2', 'mean', 'variance', 'label', '{0.1, 1}', 3))->'training'->'rows' AS rows;

\c :regress_db
DROP DATABASE regress_gsu_security;
DROP ROLE regress_gsu_squatter;
