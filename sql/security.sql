-- Security (issues 12 and 27): CREATE EXTENSION installs only into a schema gsu
-- that nobody else has had a hand in (owned by the installing role, no CREATE
-- for another role, empty), ALTER EXTENSION UPDATE refuses a schema that
-- another role has planted objects in, and pg_gsu's dynamic statements call
-- pg_gsu's own functions whatever the caller's search_path holds or the schema
-- is renamed to. Runs in a database of its own; the roles it makes are dropped
-- at the end.
\set SHOW_CONTEXT never
SELECT current_database() AS regress_db \gset
CREATE ROLE regress_gsu_squatter;
CREATE DATABASE regress_gsu_security;
\c regress_gsu_security
\set SHOW_CONTEXT never

-- a role that may create schemas makes gsu first and plants an aggregate
-- gsu.train whose int2 label matches a smallint column better than pg_gsu's
-- int4: it logs who runs it
CREATE TABLE public.trap_log (ran_as name);
GRANT INSERT ON public.trap_log TO PUBLIC;
GRANT CREATE ON DATABASE regress_gsu_security TO regress_gsu_squatter;
SET ROLE regress_gsu_squatter;
CREATE SCHEMA gsu;
CREATE FUNCTION gsu.trap_step(n int, m float8[], v float8[], y int2, o jsonb) RETURNS int
	LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.trap_log VALUES (current_user); RETURN coalesce(n, 0) + 1; END $$;
CREATE AGGREGATE gsu.train(float8[], float8[], int2, jsonb) (sfunc = gsu.trap_step, stype = int);
RESET ROLE;
CREATE TABLE rows_int2 AS
SELECT ARRAY[i * 0.1, -i * 0.1]::float8[] AS mean, NULL::float8[] AS variance,
	(CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)::int2 AS label
FROM generate_series(1, 40) i;

-- refused: the schema belongs to another role, and nothing is installed
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'pg_gsu';
-- the old hint's way out, ALTER SCHEMA ... OWNER, keeps the planted aggregate: refused
ALTER SCHEMA gsu OWNER TO CURRENT_USER;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'pg_gsu';

-- what that let happen: 0.1.0 took such a schema, and a superuser's training
-- on a smallint label ran the planted code (40 rows logged as the superuser)
CREATE EXTENSION pg_gsu VERSION '0.1.0';
SELECT gsu.train(mean, variance, label, '{}') AS trained FROM rows_int2;
SELECT r.rolsuper AS as_superuser, count(*) FROM public.trap_log t JOIN pg_roles r ON r.rolname = t.ran_as GROUP BY 1;
-- ALTER EXTENSION UPDATE refuses to go on while the planted objects are there
ALTER EXTENSION pg_gsu UPDATE;
\echo :LAST_ERROR_SQLSTATE
SELECT extversion FROM pg_extension WHERE extname = 'pg_gsu';
-- nor while another role may create objects in the schema
DROP AGGREGATE gsu.train(float8[], float8[], int2, jsonb);
DROP FUNCTION gsu.trap_step(int, float8[], float8[], int2, jsonb);
GRANT CREATE ON SCHEMA gsu TO regress_gsu_squatter;
ALTER EXTENSION pg_gsu UPDATE;
\echo :LAST_ERROR_SQLSTATE
REVOKE CREATE ON SCHEMA gsu FROM regress_gsu_squatter;
-- nor while the schema belongs to another role than the extension
ALTER SCHEMA gsu OWNER TO regress_gsu_squatter;
ALTER EXTENSION pg_gsu UPDATE;
\echo :LAST_ERROR_SQLSTATE
ALTER SCHEMA gsu OWNER TO CURRENT_USER;
-- objects of the extension's owner are its own: the update goes on, and
-- gives every role USAGE on the schema (0.1.0 left it to the owner)
CREATE TABLE gsu.my_models (name text);
SELECT has_schema_privilege('regress_gsu_squatter', 'gsu', 'USAGE') AS squatter_usage;
ALTER EXTENSION pg_gsu UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_gsu';
SELECT has_schema_privilege('regress_gsu_squatter', 'gsu', 'USAGE') AS squatter_usage,
	has_schema_privilege('regress_gsu_squatter', 'gsu', 'CREATE') AS squatter_create;
DROP EXTENSION pg_gsu;
DROP TABLE gsu.my_models;

-- a function that another role made in a schema the installing role owns
-- (it had CREATE there for a while) is refused too
GRANT CREATE ON SCHEMA gsu TO regress_gsu_squatter;
SET ROLE regress_gsu_squatter;
CREATE FUNCTION gsu.predict(m bytea, x float8[]) RETURNS int4 LANGUAGE sql AS $$ SELECT 1 $$;
RESET ROLE;
REVOKE CREATE ON SCHEMA gsu FROM regress_gsu_squatter;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
-- and so is it once it belongs to the installing role: REASSIGN OWNED (or
-- ALTER FUNCTION ... OWNER) hands the planted code over with it
REASSIGN OWNED BY regress_gsu_squatter TO CURRENT_USER;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'pg_gsu';

-- an empty schema gsu that another role may create objects in is refused
DROP SCHEMA gsu CASCADE;
CREATE SCHEMA gsu;
GRANT CREATE ON SCHEMA gsu TO PUBLIC;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
-- an empty schema gsu of the installing role, with no CREATE for others, is used
REVOKE CREATE ON SCHEMA gsu FROM PUBLIC;
CREATE EXTENSION pg_gsu;
SELECT n.nspname, pg_get_userbyid(n.nspowner) = CURRENT_USER AS owned
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu';

CREATE TABLE rows2 AS
SELECT i AS id, ARRAY[s * 1.0 + 0.1 * (i % 7), s * 0.5 - 0.05 * (i % 5)]::float8[] AS mean,
	ARRAY[0.1, 0.2]::float8[] AS variance, s AS label
FROM generate_series(1, 60) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS s) c;

-- an ordinary role trains and scores with the extension a superuser installed
-- (issue 29): USAGE on the schema is PUBLIC's; CREATE in it is not
CREATE ROLE regress_gsu_user;
GRANT SELECT ON rows2 TO regress_gsu_user;
SET ROLE regress_gsu_user;
SELECT has_schema_privilege('gsu', 'USAGE') AS usage, has_schema_privilege('gsu', 'CREATE') AS can_create;
SELECT count(*) FILTER (WHERE gsu.predict(m, mean) = label) AS correct, count(*) AS total
FROM rows2, (SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m FROM rows2) t;
SET client_min_messages = warning;
SELECT gsu.describe(gsu.fit('rows2', 'mean', 'variance', 'label', '{"lambda": 0.1}'))->'training'->'rows' AS fit_rows;
CREATE FUNCTION gsu.train(float8[], float8[], int2, jsonb) RETURNS int LANGUAGE sql AS 'SELECT 1';
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
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
DROP ROLE regress_gsu_squatter, regress_gsu_user;
