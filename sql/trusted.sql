-- pg_gsu is a trusted extension (issue 29; the review is docs/security.md): a role
-- with CREATE on a database (its owner, say) installs it without being a
-- superuser, and the install script then runs as the bootstrap superuser while
-- the extension and the schema gsu are the caller's. A role without CREATE on
-- the database cannot, nobody but a superuser can install 0.1.0 (its own control
-- file keeps it untrusted: its script adopts a schema gsu with what another role
-- put there), and an update by the owner runs the update script as the
-- bootstrap superuser. Runs in a database of its own; the roles it makes are
-- dropped at the end.
\set SHOW_CONTEXT never
SELECT current_database() AS regress_db \gset
CREATE ROLE regress_gsu_dbowner;
CREATE ROLE regress_gsu_other;
CREATE DATABASE regress_gsu_trusted OWNER regress_gsu_dbowner;
\c regress_gsu_trusted
\set SHOW_CONTEXT never
SELECT version, superuser, trusted FROM pg_available_extension_versions
WHERE name = 'pg_gsu' ORDER BY version;

-- a role without CREATE on the database cannot install it
SET ROLE regress_gsu_other;
SELECT has_database_privilege(current_database(), 'CREATE') AS can_create;
CREATE EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- the database owner (no superuser) cannot install 0.1.0, but installs 0.2.0
SET ROLE regress_gsu_dbowner;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION pg_gsu VERSION '0.1.0';
\echo :LAST_ERROR_SQLSTATE
CREATE EXTENSION pg_gsu;
-- the extension and its schema are the caller's; its objects the bootstrap
-- superuser's, as the script ran as that role; none is SECURITY DEFINER
SELECT e.extversion, pg_get_userbyid(e.extowner) AS extension_owner,
	pg_get_userbyid(n.nspowner) AS schema_owner,
	has_schema_privilege('regress_gsu_other', n.oid, 'USAGE') AS others_usage,
	has_schema_privilege('regress_gsu_other', n.oid, 'CREATE') AS others_create
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu';
SELECT r.rolname = (SELECT rolname FROM pg_roles WHERE oid = 10) AS bootstrap_superuser,
	count(*) > 0 AS functions, count(*) FILTER (WHERE p.prosecdef) AS security_definer
FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner
WHERE p.pronamespace = 'gsu'::regnamespace GROUP BY 1;
-- the code runs as the caller: it trains, scores and reads its own tables with
-- gsu.fit, and cannot lift the superuser's ceiling on training memory
CREATE TABLE pts AS
SELECT i AS id, ARRAY[s * 1.0 + 0.1 * (i % 7), s * 0.5 - 0.05 * (i % 5)]::float8[] AS mean,
	ARRAY[0.1, 0.2]::float8[] AS variance, s AS label
FROM generate_series(1, 60) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS s) c;
SELECT count(*) FILTER (WHERE gsu.predict(m, mean) = label) AS correct, count(*) AS total
FROM pts, (SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m FROM pts) t;
SET client_min_messages = warning;
SELECT gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', '{"lambda": 0.1}'))->'training'->>'rows' AS fit_rows;
RESET client_min_messages;
SET gsu.max_training_memory_ceiling = '64GB';
\echo :LAST_ERROR_SQLSTATE
ALTER DATABASE regress_gsu_trusted SET gsu.max_training_memory_ceiling = '64GB';
\echo :LAST_ERROR_SQLSTATE
-- a table the owner may not read stays unread
RESET ROLE;
CREATE TABLE private_rows AS SELECT * FROM pts;
SET ROLE regress_gsu_dbowner;
SELECT gsu.fit('private_rows', 'mean', 'variance', 'label');
\echo :LAST_ERROR_SQLSTATE
-- another role uses it too (USAGE on gsu is PUBLIC's), but may not drop or update it
GRANT SELECT ON pts TO regress_gsu_other;
SET ROLE regress_gsu_other;
SELECT count(*) FILTER (WHERE gsu.predict(m, mean) = label) AS other_correct
FROM pts, (SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m FROM pts) t;
DROP EXTENSION pg_gsu;
\echo :LAST_ERROR_SQLSTATE
ALTER EXTENSION pg_gsu UPDATE;
\echo :LAST_ERROR_SQLSTATE
-- the owner drops it
SET ROLE regress_gsu_dbowner;
DROP EXTENSION pg_gsu;
SELECT count(*) AS extensions FROM pg_extension WHERE extname = 'pg_gsu';
RESET ROLE;
DROP SCHEMA IF EXISTS gsu;

-- the update path: a 0.1.0 install that the database owner owns (made by a
-- superuser here, and handed over in the catalog, as no command does that: the
-- owner could not install 0.1.0 itself) is updated by the owner to 0.2.0,
-- the update script running as the bootstrap superuser
CREATE EXTENSION pg_gsu VERSION '0.1.0';
ALTER SCHEMA gsu OWNER TO regress_gsu_dbowner;
UPDATE pg_extension SET extowner = 'regress_gsu_dbowner'::regrole WHERE extname = 'pg_gsu';
SET ROLE regress_gsu_dbowner;
ALTER EXTENSION pg_gsu UPDATE;
SELECT extversion, pg_get_userbyid(extowner) AS extension_owner FROM pg_extension WHERE extname = 'pg_gsu';
SELECT count(*) FILTER (WHERE gsu.predict(m, mean) = label) AS updated_correct
FROM pts, (SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m FROM pts) t;
-- the update checks the schema as the install does: an object the owner's
-- schema holds that is not pg_gsu's is refused (here one another role made)
DROP EXTENSION pg_gsu;
RESET ROLE;
DROP SCHEMA IF EXISTS gsu;
CREATE EXTENSION pg_gsu VERSION '0.1.0';
ALTER SCHEMA gsu OWNER TO regress_gsu_dbowner;
UPDATE pg_extension SET extowner = 'regress_gsu_dbowner'::regrole WHERE extname = 'pg_gsu';
GRANT CREATE ON SCHEMA gsu TO regress_gsu_other;
SET ROLE regress_gsu_other;
CREATE FUNCTION gsu.train(float8[], float8[], int2, jsonb) RETURNS int LANGUAGE sql AS 'SELECT 1';
RESET ROLE;
REVOKE CREATE ON SCHEMA gsu FROM regress_gsu_other;
SET ROLE regress_gsu_dbowner;
ALTER EXTENSION pg_gsu UPDATE;
\echo :LAST_ERROR_SQLSTATE
SELECT extversion FROM pg_extension WHERE extname = 'pg_gsu';
RESET ROLE;

\c :regress_db
DROP DATABASE regress_gsu_trusted;
DROP ROLE regress_gsu_dbowner, regress_gsu_other;
