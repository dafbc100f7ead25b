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
#
# Three shards: for the first size, three throwaway clusters (initdb, Unix sockets only)
# each generate their third of the same seeded rows (id % 3), and the server in PGHOST
# trains gsu.fit on a table partitioned by id % 3 whose partitions are postgres_fdw foreign
# tables on them (server option extensions 'pg_gsu', as test/t/003_multiserver.pl sets them up):
# every scan's per-partition aggregate runs on its shard. Environment:
#   GSU_BENCH_SHARDS      1 (default) runs it, 0 skips it
#   GSU_BENCH_SHARD_DIR   directory of the shard clusters (default /tmp/pg_gsu_bench_shards),
#                         made and removed by the script
#   GSU_BENCH_SHARD_PORT  port of the first shard, the next two for the others (default 54481)
#   GSU_PG_BINDIR         PostgreSQL server binaries (default /usr/lib/postgresql/15/bin)
set -euo pipefail

SIZES=${1:-"1000000x50 200000x500"}
DB=gsu_bench_fit
LAMBDA=1e-4
SHARDS=${GSU_BENCH_SHARDS:-1}
SHARD_DIR=${GSU_BENCH_SHARD_DIR:-/tmp/pg_gsu_bench_shards}
SHARD_PORT=${GSU_BENCH_SHARD_PORT:-54481}
PGBIN=${GSU_PG_BINDIR:-/usr/lib/postgresql/15/bin}
export PGDATABASE=postgres

# as_owner CMD...: run CMD as postgres when we are root (initdb refuses root)
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$SHARD_DIR" && runuser -u postgres -- "$@")
	else
		(cd "$SHARD_DIR" && "$@")
	fi
}
stop_shards() {
	local k
	for k in 0 1 2; do
		if [ -f "$SHARD_DIR/shard$k/data/postmaster.pid" ]; then
			as_owner "$PGBIN/pg_ctl" stop -D "$SHARD_DIR/shard$k/data" -m immediate -w >/dev/null 2>&1 || true
		fi
	done
	if [ -f "$SHARD_DIR/.pg_gsu_bench_shards" ]; then rm -rf "$SHARD_DIR"; fi
	return 0
}
cleanup() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
	if [ "$SHARDS" = 1 ]; then stop_shards; fi
	return 0
}

psql -X -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
trap cleanup EXIT
q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
GEN_FN=$(
	cat <<'EOF'
-- one expression, no FROM: the planner inlines it (3.5x faster to generate than a subquery;
-- the same values)
CREATE FUNCTION u(i bigint, j int, salt float8) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453 - floor(sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453)
$$;
EOF
)
# gen_sql TABLE ROWS DIM [SHARD]: the seeded rows (those with id % 3 = SHARD)
gen_sql() {
	local where=""
	if [ -n "${4:-}" ]; then where="WHERE i % 3 = $4"; fi
	cat <<EOF
CREATE TABLE $1 AS
SELECT i AS id, m AS mean,
	ARRAY(SELECT 0.05 + 0.3 * u(i, j, 1) FROM generate_series(1, $3) j) AS variance,
	CASE WHEN (SELECT sum(sin(j) * m[j]) FROM generate_series(1, $3) j) + 0.3 * (u(i, 0, 2) - 0.5) > 0
		THEN 1 ELSE -1 END AS label
FROM (SELECT i, ARRAY(SELECT 2 * u(i, j, 0) - 1 FROM generate_series(1, $3) j) AS m
	  FROM generate_series(1, $2::bigint) i $where) s;
VACUUM ANALYZE $1;
EOF
}
q -c "CREATE EXTENSION pg_gsu"
q <<EOF
$GEN_FN
CREATE TABLE results (size text, method text, scans int, seconds float8, objective float8,
	converged bool, note text);
EOF

if [ "$SHARDS" = 1 ]; then
	for tool in initdb pg_ctl; do
		[ -x "$PGBIN/$tool" ] || { echo "$PGBIN/$tool not found: set GSU_PG_BINDIR or GSU_BENCH_SHARDS=0" >&2; exit 1; }
	done
	if [ -e "$SHARD_DIR" ] && [ ! -f "$SHARD_DIR/.pg_gsu_bench_shards" ]; then
		echo "$SHARD_DIR exists and was not made by this script" >&2
		exit 1
	fi
	stop_shards
	mkdir -p "$SHARD_DIR"
	touch "$SHARD_DIR/.pg_gsu_bench_shards"
	if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$SHARD_DIR"; fi
	chmod 0755 "$SHARD_DIR"
	for k in 0 1 2; do
		as_owner mkdir -p "$SHARD_DIR/shard$k/socket"
		as_owner "$PGBIN/initdb" -D "$SHARD_DIR/shard$k/data" --auth=trust -U postgres --no-sync \
			>"$SHARD_DIR/initdb$k.log" 2>&1
		as_owner tee -a "$SHARD_DIR/shard$k/data/postgresql.conf" >/dev/null <<EOF
listen_addresses = ''
port = $((SHARD_PORT + k))
unix_socket_directories = '$SHARD_DIR/shard$k/socket'
fsync = off
synchronous_commit = off
max_parallel_workers_per_gather = 0
EOF
		as_owner "$PGBIN/pg_ctl" start -D "$SHARD_DIR/shard$k/data" -l "$SHARD_DIR/shard$k/server.log" -w >/dev/null
	done
	qs() { local k=$1; shift; psql -X -q -h "$SHARD_DIR/shard$k/socket" -p $((SHARD_PORT + k)) -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
	for k in 0 1 2; do
		qs $k -c "CREATE EXTENSION pg_gsu"
		qs $k <<<"$GEN_FN"
	done
	q -c "CREATE EXTENSION postgres_fdw"
	for k in 0 1 2; do
		q <<EOF
CREATE SERVER shard$k FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$SHARD_DIR/shard$k/socket', port '$((SHARD_PORT + k))', dbname 'postgres',
			 extensions 'pg_gsu', async_capable 'true', fetch_size '10000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard$k OPTIONS (user 'postgres');
EOF
	done
fi

first=1
for size in $SIZES; do
	rows=${size%x*}
	dim=${size#*x}
	t="t_${rows}_${dim}"
	echo "== $rows rows x $dim: generating $t"
	{ echo "SET max_parallel_workers_per_gather = 2;"; gen_sql "$t" "$rows" "$dim"; } | q
	# gsu.fit newton, gsu.fit lbfgs, and gsu.train with the memory raised to hold the rows
	q <<EOF
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 2;
SET gsu.max_training_memory_ceiling = '64GB';
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
		if [ "$SHARDS" = 1 ]; then
			# the same rows on three shards, each generating its third
			echo "== $rows rows x $dim: generating the three shards"
			for k in 0 1 2; do
				gen_sql "$t" "$rows" "$dim" "$k" | qs $k &
			done
			wait
			q <<EOF
CREATE TABLE s_$t (id bigint, mean float8[], variance float8[], label int4) PARTITION BY LIST ((id % 3));
CREATE FOREIGN TABLE s_${t}_0 PARTITION OF s_$t FOR VALUES IN (0) SERVER shard0 OPTIONS (table_name '$t');
CREATE FOREIGN TABLE s_${t}_1 PARTITION OF s_$t FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name '$t');
CREATE FOREIGN TABLE s_${t}_2 PARTITION OF s_$t FOR VALUES IN (2) SERVER shard2 OPTIONS (table_name '$t');
ANALYZE s_$t;
SET client_min_messages = warning;
-- a scan's plan: one aggregate per partition, computed remotely (pass_query's form)
CREATE TEMP TABLE plan (remote int);
DO \$\$
DECLARE
	line text;
	remote int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) SELECT gsu.sum(p ORDER BY i) FROM ('
		|| 'SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0) AS p, 1 AS i FROM ONLY s_${t}_0 UNION ALL '
		|| 'SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0), 2 FROM ONLY s_${t}_1 UNION ALL '
		|| 'SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0), 3 FROM ONLY s_${t}_2) s'
	LOOP
		IF line ~ 'Remote SQL: SELECT .*hessian' THEN
			remote := remote + 1;
		END IF;
	END LOOP;
	INSERT INTO plan VALUES (remote);
END
\$\$;
CREATE TEMP TABLE sruns (method text, t0 timestamptz, m gsu.model, t1 timestamptz);
INSERT INTO sruns SELECT 'gsu.fit newton, 3 shards', clock_timestamp(),
	gsu.fit('s_$t', 'mean', 'variance', 'label', '{"lambda": $LAMBDA}'), clock_timestamp();
INSERT INTO results
SELECT '${rows}x${dim}', method, (gsu.describe(m)->'training'->>'passes')::int,
	extract(epoch FROM t1 - t0), (gsu.describe(m)->'training'->>'objective')::float8,
	(gsu.describe(m)->'training'->>'converged')::bool,
	format('postgres_fdw, 3 shards on this machine; %s of 3 partition aggregates pushed down (EXPLAIN)', (SELECT remote FROM plan))
FROM sruns;
EOF
			for k in 0 1 2; do qs $k -c "DROP TABLE $t"; done
		fi
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
