/* pg_gsu install script: src/sql/*.sql are concatenated in name order by the Makefile */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit

