#!/usr/bin/env bash
# A Hessian scan of gsu.fit against a bare scan of the same table (issue 31 part 1): from one
# run, the ratio to the bare scan (SELECT sum(mean[1]) FROM t) of
#   - one pass of gsu.hessian by SQL (the query of a scan of gsu.fit's solver newton),
#   - gsu.fit's scans (solver newton, gsu.max_training_memory = '32MB'): its seconds per scan,
# serial (max_parallel_workers_per_gather = 0) and parallel (= 2), and whether parallel workers
# ran during gsu.fit (pg_stat_activity polled every 20 ms from another session).  The runs
# alternate (bare, hessian, bare, hessian, ...) and the medians are printed; the machine's
# load is printed with them.
#
# Usage: bash bench/hessian_pass.sh [ROWSxDIM] [RUNS]     (default 2000000x30, 3 runs)
#
# Runs against the server in PGHOST/PGPORT/PGUSER (pg_gsu installed), in the database
# GSU_BENCH_DB (default gsu_bench_hess), which it creates and drops unless GSU_BENCH_KEEP=1;
# a table t_ROWS_DIM already there is reused (generating 2M x 30 takes some 3 minutes).
# GSU_BENCH_COMMIT names the build installed, when it is not this checkout's HEAD.
# Data: bench/fit_scans.sh's seeded rows (means in [-1, 1], diagonal variances, labels ±1).
# JIT is off in the SQL passes, as gsu.fit sets it for its own scans.  Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-2000000x30}
RUNS=${2:-3}
ROWS=${SIZE%x*}
DIM=${SIZE#*x}
DB=${GSU_BENCH_DB:-gsu_bench_hess}
KEEP=${GSU_BENCH_KEEP:-0}
T="t_${ROWS}_${DIM}"

q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
if ! psql -X -qtA -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
	psql -X -q -d postgres -c "CREATE DATABASE $DB"
fi
cleanup() {
	if [ -n "${POLL_PID:-}" ]; then kill "$POLL_PID" 2>/dev/null || true; fi
	if [ "$KEEP" != 1 ]; then psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; fi
	return 0
}
trap cleanup EXIT
q -c "CREATE EXTENSION IF NOT EXISTS pg_gsu"
if [ -z "$(q -tA -c "SELECT to_regclass('$T')")" ]; then
	echo "generating $T ($ROWS rows x $DIM)" >&2
	q <<EOF
SET max_parallel_workers_per_gather = 2;
CREATE OR REPLACE FUNCTION u(i bigint, j int, salt float8) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS \$\$
	SELECT sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453 - floor(sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453)
\$\$;
CREATE TABLE $T AS
SELECT i AS id, m AS mean,
	ARRAY(SELECT 0.05 + 0.3 * u(i, j, 1) FROM generate_series(1, $DIM) j) AS variance,
	CASE WHEN (SELECT sum(sin(j) * m[j]) FROM generate_series(1, $DIM) j) + 0.3 * (u(i, 0, 2) - 0.5) > 0
		THEN 1 ELSE -1 END AS label
FROM (SELECT i, ARRAY(SELECT 2 * u(i, j, 0) - 1 FROM generate_series(1, $DIM) j) AS m
	  FROM generate_series(1, $ROWS::bigint) i) s;
VACUUM ANALYZE $T;
EOF
fi

POLL_OUT=$(mktemp)
poll() {
	local max=0 n
	while :; do
		n=$(psql -X -qtA -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND datname = '$DB'" 2>/dev/null || echo 0)
		if [ "$n" -gt "$max" ]; then max=$n; echo "$max" >"$POLL_OUT"; fi
		sleep 0.02
	done
}

BARE="SELECT sum(mean[1]) FROM $T"
# the pass at a model near the optimum (at θ = 0 and smoothing 0 no row has curvature):
# gsu.train on the first 20,000 rows, kept in bench_model
q <<EOF
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_model;
CREATE TABLE bench_model AS SELECT gsu.train(mean, variance, label, '{"lambda": 1e-4}') AS m FROM $T WHERE id <= 20000;
EOF
HESS="SELECT gsu.hessian(mean, variance, label, (SELECT m FROM bench_model), 0::float8, 0::float8) IS NULL FROM $T"
FIT="SELECT gsu.fit('$T', 'mean', 'variance', 'label', '{\"lambda\": 1e-4}')"
echo "pg_gsu bench/hessian_pass.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit ${GSU_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "?")}, $ROWS rows x $DIM, $RUNS runs, load before $(cut -d' ' -f1-3 /proc/loadavg)"
q -tA >/dev/null -c "$BARE" # warm the cache
echo "the pass's plan (max_parallel_workers_per_gather = 2): $(q -tA -c "SET max_parallel_workers_per_gather = 2" -c "EXPLAIN (COSTS OFF) $HESS" | grep -E 'Workers Planned' | sed 's/^ *//')"
RES=$(mktemp)
for workers in 0 2; do
	for run in $(seq "$RUNS"); do
		for what in bare hessian fit; do
			echo 0 >"$POLL_OUT"
			if [ "$what" = fit ]; then poll & POLL_PID=$!; fi
			case $what in
			bare) sql=$BARE ;;
			hessian) sql=$HESS ;;
			fit) sql=$FIT ;;
			esac
			line=$(q -tA -F ' ' <<EOF
CREATE FUNCTION pg_temp.timed(sql text) RETURNS float8 LANGUAGE plpgsql AS \$f\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql; -- without INTO: all rows, so parallel workers may run
	RETURN extract(epoch FROM clock_timestamp() - t0);
END \$f\$;
SET jit = off;
SET max_parallel_workers_per_gather = $workers;
SET gsu.max_training_memory = '32MB';
SET client_min_messages = warning;
CREATE TEMP TABLE IF NOT EXISTS fitted (m gsu.model);
TRUNCATE fitted;
SELECT pg_temp.timed(\$q\$$( [ "$what" = fit ] && echo "INSERT INTO fitted $sql" || echo "$sql")\$q\$);
SELECT (SELECT (gsu.describe(m)->'training'->>'passes') FROM fitted),
	(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d) FROM
		(SELECT elapsed_ms - lag(elapsed_ms) OVER (ORDER BY pass) AS d FROM gsu.training_info((SELECT m FROM fitted))) s
	 WHERE d IS NOT NULL) / 1000;
EOF
)
			line=$(echo $line)
			if [ "$what" = fit ]; then kill "$POLL_PID" 2>/dev/null || true; wait "$POLL_PID" 2>/dev/null || true; POLL_PID=; fi
			echo "$workers $what $line $(cat "$POLL_OUT")" >>"$RES"
		done
	done
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
echo
# median of a column over the runs
med() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-10s %-28s %10s %8s %s\n' workers measure seconds "/bare" "(median of $RUNS; fit: workers seen)"
for workers in 0 2; do
	bare=$(awk -v w=$workers '$1 == w && $2 == "bare" {print $3}' "$RES" | med)
	hess=$(awk -v w=$workers '$1 == w && $2 == "hessian" {print $3}' "$RES" | med)
	fit=$(awk -v w=$workers '$1 == w && $2 == "fit" {print $3}' "$RES" | med)
	scans=$(awk -v w=$workers '$1 == w && $2 == "fit" {print $4}' "$RES" | med)
	scan=$(awk -v w=$workers '$1 == w && $2 == "fit" {print $5}' "$RES" | med)
	seen=$(awk -v w=$workers '$1 == w && $2 == "fit" {print $6}' "$RES" | sort -g | tail -1)
	printf '%-10s %-28s %10.3f %8s\n' "$workers" "bare scan" "$bare" "1.00"
	printf '%-10s %-28s %10.3f %8.2f\n' "$workers" "gsu.hessian pass (SQL)" "$hess" "$(echo "$hess / $bare" | bc -l)"
	printf '%-10s %-28s %10.3f %8.2f   %s scans, max %s parallel workers seen\n' "$workers" "gsu.fit, s per scan" "$scan" "$(echo "$scan / $bare" | bc -l)" "$scans" "$seen"
	printf '%-10s %-28s %10.3f %8.2f\n' "$workers" "gsu.fit, whole" "$fit" "$(echo "$fit / $bare" | bc -l)"
done
rm -f "$RES" "$POLL_OUT"
