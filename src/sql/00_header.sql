-- pg_gsu install script, built by the Makefile from the fragments in src/sql, in name order

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit

