-- pg_gsu upgrade script from 0.1.0 to 0.2.0 (ALTER EXTENSION pg_gsu UPDATE)

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_gsu UPDATE TO '0.2.0'" to load this file. \quit

-- Every SQL object that src/sql/ adds or changes after 0.1.0 gets its statement
-- here (CREATE for a new object, CREATE OR REPLACE / ALTER / DROP for a changed
-- one, COMMENT ON as in src/sql), so that a database updated from 0.1.0 ends with
-- the same catalog as a fresh CREATE EXTENSION pg_gsu. sql/upgrade.sql compares
-- the two and lists every difference (docs/upgrade.md).
--
-- The stored values of gsu.model, gsu.projection, gsu.refset and gsu.partial
-- need nothing here: their formats are the same in 0.1.0 and 0.2.0, and the
-- library reads every earlier format (docs/upgrade.md, formats).
