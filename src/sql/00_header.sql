-- pg_gsu install script, built by the Makefile from the fragments in src/sql, in name order

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit


-- The schema gsu must belong to the role installing pg_gsu. CREATE EXTENSION
-- adopts an existing schema of that name whoever owns it, and its owner could
-- then rename it and plant functions under the names pg_gsu's code calls, to be
-- run by the next superuser who calls them. Every name here is qualified: this
-- runs with the schema gsu in search_path.
DO $$
DECLARE
	owner name := (SELECT r.rolname FROM pg_catalog.pg_namespace n
				   JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
				   WHERE n.nspname OPERATOR(pg_catalog.=) 'gsu');
BEGIN
	IF owner IS DISTINCT FROM CURRENT_USER THEN
		RAISE EXCEPTION 'schema "gsu" is owned by role "%", not by the role installing pg_gsu ("%")',
			owner, CURRENT_USER
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'pg_gsu installs into the schema gsu, and the owner of that schema could replace the functions it calls.',
				  HINT = 'Drop the schema gsu, or make the installing role its owner (ALTER SCHEMA gsu OWNER TO ...), then run CREATE EXTENSION again.';
	END IF;
END
$$;
