#!/usr/bin/env bash
# Scoring with the model cross-joined to the rows, serial and with 2 workers, against the
# bare scan and the scalar-subquery form, with ratios from one run (issue 31 part 5).
#
# Usage: bash bench/score_cross_join.sh [ROWSxDIM [REPS]]
#
#   ROWSxDIM  the table (default 1000000x50, the issue's); REPS rounds (default 7)
#
# Runs against the server in PGHOST/PGPORT/PGUSER (pg_gsu installed, shared_buffers large
# enough for the table: 1M x 50 is 870 MB), in a database gsu_bench_cj that it creates and
# drops. Not part of CI.
#
# Data: bench/run.sh's (means uniform in [-1, 1], variances in [0.05, 0.5], labels from a
# noisy linear rule, a hash of (row, column) through sin(), no random()), loaded into shared
# buffers (pg_prewarm). The model: gsu.train with the default options on the first 20,000
# rows, in a table `models` made by CREATE TABLE AS and never analyzed, as users make one
# (autovacuum does not analyze a table of one row; the planner then guesses it holds about
# a thousand rows).
#
# The statements, each in a fresh psql session timed by psql's \timing (client wall clock,
# Unix socket), REPS rounds, the order of the cases rotated by one every round so that a
# change of the machine's load falls on every case alike; the medians are reported:
#
#   bare scan        SELECT sum(mean[1] + variance[1]) FROM t   (the issue's bare scan)
#   scalar subquery  SELECT sum(gsu.decision((SELECT model FROM models), mean)) FROM t
#   cross join       SELECT sum(gsu.decision(m, mean)) FROM t, (SELECT model m FROM models) s
#
# serial: max_parallel_workers_per_gather = 0; parallel: max_parallel_workers_per_gather = 2
# and PostgreSQL's default costs; parallel, forced: also parallel_setup_cost = 0,
# parallel_tuple_cost = 0, min_parallel_table_scan_size = 0 (bench/run.sh's parallel
# settings); parallel, rescan: parallel with enable_material = off, which on this table gives
# the plan PostgreSQL 15 made before pg_gsu's join-path hook (commit c44df05), each worker
# rescanning `models` per row. Each ratio divides by the bare scan of the same mode (serial by
# serial, parallel by parallel). It also prints the plans (EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF))
# of the cross join, whose buffer hits on `models` show whether a worker rescans it per row.
set -euo pipefail

SIZE=${1:-1000000x50}
REPS=${2:-7}
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || {
	echo "usage: bash bench/score_cross_join.sh [ROWSxDIM [REPS]]" >&2
	exit 2
}
N=${BASH_REMATCH[1]}
D=${BASH_REMATCH[2]}
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || {
	echo "REPS must be a positive number" >&2
	exit 2
}
DB=gsu_bench_cj
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$DB")

cleanup() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

COMMIT=$(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "== scoring with a cross-joined model: $N x $D, $REPS rounds; $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT"
echo "   load at the start: $(uptime | sed 's/.*load average/load average/')"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
NOISE=$(awk -v d="$D" 'BEGIN { printf "%.6f", 0.2 * sqrt(d) }')
t0=$(date +%s)
"${PSQL[@]}" >/dev/null <<EOF
CREATE EXTENSION pg_gsu;
CREATE EXTENSION pg_prewarm;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE t WITH (autovacuum_enabled = off) AS
SELECT i AS id, r.mean, r.variance,
       CASE WHEN r.score + $NOISE::float8 * (2.0::float8 * (e.h - floor(e.h)) - 1.0::float8) > 0
            THEN 1 ELSE -1 END AS label
FROM generate_series(1, $N) AS i,
     LATERAL (SELECT abs(sin(i::float8 * 91.3458::float8)) * 47453.5453::float8 AS h) AS e,
     LATERAL (
       SELECT array_agg(x) AS mean, array_agg(v) AS variance, sum(x * sin(j::float8)) AS score
       FROM (SELECT j, 2.0::float8 * (h1 - floor(h1)) - 1.0::float8 AS x,
                    0.05::float8 + 0.45::float8 * (h2 - floor(h2)) AS v
             FROM (SELECT j,
                          abs(sin(i::float8 * 12.9898::float8 + j::float8 * 78.233::float8)) * 43758.5453::float8 AS h1,
                          abs(sin(i::float8 * 39.3468::float8 + j::float8 * 11.135::float8)) * 24634.6345::float8 AS h2
                   FROM generate_series(1, $D) AS j) AS a) AS b) AS r;
VACUUM (FREEZE, ANALYZE) t;
CREATE TABLE models AS SELECT gsu.train(mean, variance, label) AS model FROM t WHERE id <= 20000;
SELECT pg_prewarm('t');
EOF
echo "   table t: $("${PSQL[@]}" -At -c "SELECT pg_size_pretty(pg_total_relation_size('t'))") ($(($(date +%s) - t0)) s to generate); shared_buffers $("${PSQL[@]}" -At -c "SHOW shared_buffers"); the model $("${PSQL[@]}" -At -c "SELECT pg_column_size(model) FROM models") bytes"

SERIAL="SET max_parallel_workers_per_gather = 0;"
PAR="SET max_parallel_workers_per_gather = 2;"
FORCED="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
RESCAN="SET max_parallel_workers_per_gather = 2; SET enable_material = off;"
Q_BARE="SELECT sum(mean[1] + variance[1]) FROM t;"
Q_SUB="SELECT sum(gsu.decision((SELECT model FROM models), mean)) FROM t;"
Q_CROSS="SELECT sum(gsu.decision(m, mean)) FROM t, (SELECT model m FROM models) s;"

# the cases: key | setup | statement
CASES=(
	"bare_serial|$SERIAL|$Q_BARE"
	"bare_parallel|$PAR|$Q_BARE"
	"sub_serial|$SERIAL|$Q_SUB"
	"sub_parallel|$PAR|$Q_SUB"
	"cross_serial|$SERIAL|$Q_CROSS"
	"cross_parallel|$PAR|$Q_CROSS"
	"cross_forced|$FORCED|$Q_CROSS"
	"cross_rescan|$RESCAN|$Q_CROSS"
)

echo ""
echo "-- plans of the cross join"
for setup in "$SERIAL" "$PAR" "$FORCED" "$RESCAN"; do
	echo "   setup: $setup"
	"${PSQL[@]}" -At -c "$setup" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) $Q_CROSS" |
		awk '/^(Planning|Execution)/ { exit } !/^SET/ { print "     " $0 }'
done

# one_run SETUP SQL: the milliseconds of SQL in a fresh session after SETUP
one_run() {
	local out ms
	out=$(printf '%s\n\\timing on\n%s\n' "$1" "$2" | "${PSQL[@]}" -At 2>&1) || {
		printf '%s\n' "$out" >&2
		exit 1
	}
	ms=$(printf '%s\n' "$out" | sed -n -E 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1)
	[ -n "$ms" ] || {
		echo "no timing for: $2" >&2
		exit 1
	}
	printf '%s\n' "$ms"
}

declare -A T
"${PSQL[@]}" -c "SELECT pg_prewarm('t')" >/dev/null
ncase=${#CASES[@]}
for ((r = 0; r < REPS; r++)); do
	for ((k = 0; k < ncase; k++)); do
		IFS='|' read -r key setup sql <<<"${CASES[$(((r + k) % ncase))]}"
		T[$key]="${T[$key]:-} $(one_run "$setup" "$sql")"
	done
done

declare -A MED
echo ""
echo "-- runs (ms)"
for c in "${CASES[@]}"; do
	IFS='|' read -r key _ _ <<<"$c"
	# shellcheck disable=SC2086 # the runs are words
	MED[$key]=$(median ${T[$key]})
	printf '   %-15s %s\n' "$key" "${T[$key]}"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { printf '| %s | %s | %.1f ms | %.1f ms | **%s** |\n' "$1" "$2" "$3" "$4" "$(ratio "$3" "$4")"; }
echo ""
echo "| what | mode | median | bare scan, same mode | ratio |"
echo "|---|---|---|---|---|"
row "bare scan \`sum(mean[1] + variance[1])\`" serial "${MED[bare_serial]}" "${MED[bare_serial]}"
row "bare scan" "parallel (2 workers)" "${MED[bare_parallel]}" "${MED[bare_parallel]}"
row "scalar subquery \`gsu.decision((SELECT model FROM models), mean)\`" serial "${MED[sub_serial]}" "${MED[bare_serial]}"
row "scalar subquery" "parallel" "${MED[sub_parallel]}" "${MED[bare_parallel]}"
row "cross join \`FROM t, (SELECT model m FROM models) s\`" serial "${MED[cross_serial]}" "${MED[bare_serial]}"
row "cross join" "parallel" "${MED[cross_parallel]}" "${MED[bare_parallel]}"
row "cross join" "parallel, forced (setup and tuple cost 0)" "${MED[cross_forced]}" "${MED[bare_parallel]}"
row "cross join, the plan before the hook: \`models\` rescanned per row" "parallel, enable_material off" "${MED[cross_rescan]}" "${MED[bare_parallel]}"
echo ""
echo "   parallel speed-up: bare scan $(ratio "${MED[bare_serial]}" "${MED[bare_parallel]}")x, scalar subquery $(ratio "${MED[sub_serial]}" "${MED[sub_parallel]}")x, cross join $(ratio "${MED[cross_serial]}" "${MED[cross_parallel]}")x"
echo "   load at the end: $(uptime | sed 's/.*load average/load average/')"
