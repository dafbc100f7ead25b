#!/usr/bin/env bash
# gsu.fit in scans of the table: the solver newton (the default), the solver lbfgs and the
# buffered gsu.train on the same tables, with the scans (passes) and the wall time each
# needs to reach the optimum, and the relative objective gap to gsu.train's.
#
# Usage: bash bench/fit_scans.sh [SIZES]
#
#   SIZES  space-separated ROWSxDIM (default "1000000x50 200000x500"); a reduced run:
#          bash bench/fit_scans.sh "100000x50 20000x500"
#
# Runs against the server in PGHOST/PGPORT/PGUSER (pg_gsu installed), in a database
# gsu_bench_fit that it creates and drops. Not part of CI; no assertion but the ones printed.
#
# Data, generated in SQL and seeded (a hash of (row, column) through sin(), no random()):
# means uniform in [-1, 1], diagonal variances in [0.05, 0.35], labels ±1 from the rule
# sign(Σ_j sin(j)·x_j + noise). For the first size it also runs the table with
# gsu.max_training_memory at a tenth of the table's size: gsu.train must refuse, gsu.fit
# must finish in at most 8 scans.
set -euo pipefail

SIZES=${1:-"1000000x50 200000x500"}
DB=gsu_bench_fit
LAMBDA=1e-4
export PGDATABASE=postgres

psql -X -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true' EXIT
q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION pg_gsu"
q <<'EOF'
CREATE FUNCTION u(i bigint, j int, salt float8) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT x - floor(x) FROM (SELECT sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453 AS x) s
$$;
CREATE TABLE results (size text, method text, scans int, seconds float8, objective float8,
	converged bool, note text);
EOF

first=1
for size in $SIZES; do
	rows=${size%x*}
	dim=${size#*x}
	t="t_${rows}_${dim}"
	echo "== $rows rows x $dim: generating $t"
	q <<EOF
SET max_parallel_workers_per_gather = 2;
CREATE TABLE $t AS
SELECT i AS id, m AS mean,
	ARRAY(SELECT 0.05 + 0.3 * u(i, j, 1) FROM generate_series(1, $dim) j) AS variance,
	CASE WHEN (SELECT sum(sin(j) * m[j]) FROM generate_series(1, $dim) j) + 0.3 * (u(i, 0, 2) - 0.5) > 0
		THEN 1 ELSE -1 END AS label
FROM (SELECT i, ARRAY(SELECT 2 * u(i, j, 0) - 1 FROM generate_series(1, $dim) j) AS m
	  FROM generate_series(1, $rows::bigint) i) s;
VACUUM ANALYZE $t;
EOF
	# gsu.fit newton, gsu.fit lbfgs, and gsu.train with the memory raised to hold the rows
	q <<EOF
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 2;
SET gsu.max_training_memory = '64GB';
CREATE TEMP TABLE runs (method text, t0 timestamptz, m gsu.model, t1 timestamptz);
INSERT INTO runs SELECT 'gsu.fit newton', clock_timestamp(),
	gsu.fit('$t', 'mean', 'variance', 'label', '{"lambda": $LAMBDA}'), clock_timestamp();
INSERT INTO runs SELECT 'gsu.fit lbfgs', clock_timestamp(),
	gsu.fit('$t', 'mean', 'variance', 'label', '{"lambda": $LAMBDA, "solver": "lbfgs"}'), clock_timestamp();
INSERT INTO runs SELECT 'gsu.train (buffered)', clock_timestamp(),
	(SELECT gsu.train(mean, variance, label, '{"lambda": $LAMBDA}') FROM $t), clock_timestamp();
INSERT INTO results
SELECT '${rows}x${dim}', method, (gsu.describe(m)->'training'->>'passes')::int,
	extract(epoch FROM t1 - t0), (gsu.describe(m)->'training'->>'objective')::float8,
	(gsu.describe(m)->'training'->>'converged')::bool, NULL
FROM runs;
EOF
	if [ "$first" = 1 ]; then
		first=0
		q <<EOF
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 2;
DO \$\$
DECLARE
	kb bigint := pg_total_relation_size('$t') / 1024 / 10;
	m gsu.model;
	t0 timestamptz;
	refused text := 'no';
BEGIN
	EXECUTE format('SET gsu.max_training_memory = %L', kb || 'kB');
	BEGIN
		PERFORM gsu.train(mean, variance, label, '{"lambda": $LAMBDA}') FROM $t;
	EXCEPTION WHEN program_limit_exceeded THEN
		refused := 'gsu.train refused';
	END;
	t0 := clock_timestamp();
	m := gsu.fit('$t', 'mean', 'variance', 'label', '{"lambda": $LAMBDA}');
	INSERT INTO results VALUES ('${rows}x${dim}', 'gsu.fit newton, memory/10',
		(gsu.describe(m)->'training'->>'passes')::int, extract(epoch FROM clock_timestamp() - t0),
		(gsu.describe(m)->'training'->>'objective')::float8, (gsu.describe(m)->'training'->>'converged')::bool,
		format('gsu.max_training_memory = %s kB; %s', kb, refused));
END
\$\$;
EOF
	fi
	q -c "DROP TABLE $t"
done

echo
echo "scans (passes) and wall time to the optimum; gap: relative objective gap to gsu.train (buffered)"
q <<'EOF'
SELECT r.size, r.method, r.scans, round(r.seconds::numeric, 2) AS seconds, r.converged,
	to_char(abs(r.objective - b.objective) / b.objective, '9.9EEEE') AS gap,
	CASE WHEN r.method LIKE 'gsu.fit newton%' THEN
		CASE WHEN r.scans <= 8 AND abs(r.objective - b.objective) <= 1e-6 * b.objective THEN 'ok' ELSE 'NOT MET' END
	END AS "<= 8 scans, gap <= 1e-6", r.note
FROM results r JOIN results b ON b.size = r.size AND b.method = 'gsu.train (buffered)'
ORDER BY r.size, r.method;
EOF
