#!/usr/bin/env bash
# pg_gsu benchmarks: each one runs pg_gsu and a peer on the same data in the same run and
# prints the ratio.
#
# Usage: bash bench/run.sh [full | quick] [BENCHMARKS]
#
#   (no argument)  full sizes (about an hour on 2 cores: 57 minutes on 2026-11-27, most of it
#                  benchmark 7's 160k × 500 cells)
#   quick          small sizes, a smoke run of about a minute
#   BENCHMARKS     a comma-separated list of the numbers below (e.g. `bash bench/run.sh quick 6`
#                  or `bash bench/run.sh full 2,6`): only those run, and only the tables they
#                  need are generated; the default is all of them
#
# What it does:
#   * starts a throwaway PostgreSQL 15 cluster in a fresh /tmp/pg_gsu_bench.XXXXXX (owned by
#     the postgres user when run as root, since PostgreSQL refuses root), listening only on a
#     Unix socket in that directory, port 54450, and stops and removes it on exit;
#   * CREATE EXTENSION pg_gsu (the installed build: `make install` first);
#   * generates deterministic data in SQL (a hash of (row, column) through sin(), no
#     random()): float8[] means uniform in [-1, 1], float8[] variances in [0.05, 0.5], labels
#     ±1 from the linear rule sign(Σ_j sin(j)·x_j + noise);
#   * runs the benchmarks below and prints a table of ratios, which it also writes, with the
#     machine, the settings and every SQL statement and command, to bench/results.md
#     (overwritten by every run of all the benchmarks, quick or full; a run of some of them
#     writes bench/results-LIST.md instead, e.g. bench/results-6.md, and leaves results.md be;
#     GSU_BENCH_RESULTS=FILE writes FILE instead of either).
#
#   1. one training pass of the streaming solver (sgd), one pass of the aggregate
#      gsu.train_sgd and one gsu.gradient pass vs a bare scan of the same arrays;
#      the buffered newton solver (time and passes) vs the same scan; its in-memory passes
#      vs a dgemv over the buffered rows (bench/pass_cost.sh, the core without a server)
#   2. gsu.train with the hinge loss vs liblinear-train -s 3 -B 1 (test accuracy, primal
#      objective on the training set, time)
#   3. scoring with gsu.predict / gsu.confidence vs a bare scan
#   4. parallel query (2 workers) vs serial, for the training solvers and scoring
#   5. peak backend memory per training row of the buffered solver
#   6. gsu.train with the hinge loss vs scikit-learn's LinearSVC and SGDClassifier trained in
#      the same server by a PL/Python function (plpython3u) that reads the same table (test
#      accuracy, primal objective, time); prints a "skipped" line when plpython3u or sklearn is
#      not installed (apt-get install postgresql-plpython3-15 python3-sklearn)
#   7. hinge matrix: gsu.train with the hinge loss vs liblinear-train -s 3 -B 1 -c 1/(λℓ) on
#      every cell of λ ∈ {1e-2, 1e-3, 1e-4, 1e-5} × rows ∈ {40k, 160k} × label noise ∈ {0, 5,
#      20 %} × dim ∈ {50, 500} (quick: 40k × 50, noise 5 %, the four λ), data generated in SQL
#      with a seed; prints per cell both times, the ratio, both primal objectives (ours, b
#      free), the test accuracies on 10,000 held-out rows and the time to liblinear's accuracy.
#      GSU_BENCH7_SIZES ("40000x50 160000x500"), GSU_BENCH7_NOISE ("0 5 20"),
#      GSU_BENCH7_LAMBDAS ("1e-3 1e-5") and GSU_BENCH7_SEED (7) choose a part of the matrix
#
# Timing: every statement runs in a fresh psql session (after its SET commands) and is timed
# by psql's \timing, i.e. the wall-clock time from sending the statement to receiving its
# (one-row) result, measured by the client over the Unix socket. Each timing is taken 3 times,
# the two sides of a comparison interleaved (A, B, A, B, A, B), and the median is reported.
# External commands (liblinear-train) are timed by the shell (date +%s%N around the command).
# PL/Python functions are SQL statements like the others, timed the same way.
# The tables are loaded into shared buffers (pg_prewarm) after they are generated, so that the
# runs measure CPU work, not disk reads.
#
# Environment: GSU_PG_BINDIR (default /usr/lib/postgresql/15/bin), GSU_BENCH_PORT (54450).
# shellcheck disable=SC2016 # backquotes in single quotes are Markdown, not commands
set -euo pipefail

USAGE="usage: bash bench/run.sh [full | quick] [BENCHMARKS, e.g. 2,6]"
ALL_BENCHES=1,2,3,4,5,6,7
MODE=${1:-full}
case "$MODE" in
full | quick) ;;
*)
	echo "$USAGE" >&2
	exit 2
	;;
esac
BENCHES=${2:-$ALL_BENCHES}
[[ "$BENCHES" =~ ^[1-7](,[1-7])*$ ]] || {
	echo "$USAGE" >&2
	exit 2
}
# want N: is benchmark N selected
want() { [[ ",$BENCHES," == *",$1,"* ]]; }

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
PGBIN=${GSU_PG_BINDIR:-/usr/lib/postgresql/15/bin}
PORT=${GSU_BENCH_PORT:-54450}
if [ -n "${GSU_BENCH_RESULTS:-}" ]; then
	RESULTS=$GSU_BENCH_RESULTS
elif [ "$BENCHES" = "$ALL_BENCHES" ]; then
	RESULTS=$BENCH_DIR/results.md
else
	RESULTS=$BENCH_DIR/results-${BENCHES//,/-}.md
fi
REPS=3
LAMBDA=0.0001 # benchmarks 2 and 6

if [ "$MODE" = quick ]; then
	N1=100000 D1=50 # t1: sgd vs scan (1), scoring (3), parallel sgd and scoring (4)
	N2=2000 D2=500  # t2: sgd vs scan at a high dimension (1)
	N3=10000 D3=50  # t3: newton (1), vs liblinear (2), parallel newton (4), memory (5), vs sklearn (6)
	MEM_A=5000 MEM_B=10000
else
	N1=1000000 D1=50
	N2=100000 D2=500
	N3=200000 D3=50
	MEM_A=100000 MEM_B=200000
fi

SERIAL="SET max_parallel_workers_per_gather = 0;"
# gsu.parallel_training lets the planner run gsu.train as a partial aggregate (it is off by
# default, which keeps gsu.train serial); it changes nothing for the other statements
PARALLEL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET gsu.parallel_training = on;"

log() { printf '%s\n' "$*"; }
die() {
	printf 'bench: error: %s\n' "$*" >&2
	exit 1
}

for tool in initdb pg_ctl postgres psql; do
	[ -x "$PGBIN/$tool" ] || die "$PGBIN/$tool not found (apt-get install postgresql-15)"
done
command -v awk >/dev/null || die "awk not found"
if want 2 || want 7; then
	for tool in liblinear-train liblinear-predict; do
		command -v "$tool" >/dev/null || die "$tool not found (apt-get install liblinear-tools)"
	done
fi

# ------------------------------------------------------------------ the cluster

WORK=$(mktemp -d /tmp/pg_gsu_bench.XXXXXX)
chmod 0755 "$WORK"
DATA=$WORK/data
SERVER_LOG=$WORK/server.log
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$WORK"
	as_server() { (cd "$WORK" && runuser -u postgres -- "$@"); }
else
	as_server() { (cd "$WORK" && "$@"); }
fi

cleanup() {
	local rc=$?
	if [ -f "$DATA/postmaster.pid" ]; then
		as_server "$PGBIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >/dev/null 2>&1 ||
			as_server "$PGBIN/pg_ctl" stop -D "$DATA" -m immediate -w -t 30 >/dev/null 2>&1 || true
	fi
	if [ "$rc" -ne 0 ] && [ -f "$SERVER_LOG" ]; then
		echo "----- last lines of the server log" >&2
		tail -n 20 "$SERVER_LOG" >&2 || true
	fi
	rm -rf "$WORK"
	if [ -n "${HUGE_OLD:-}" ]; then echo "$HUGE_OLD" >/proc/sys/vm/nr_hugepages 2>/dev/null || true; fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "== pg_gsu benchmarks ($MODE mode), cluster in $WORK, port $PORT"
as_server "$PGBIN/initdb" -D "$DATA" --auth=trust -U postgres --encoding=UTF8 --no-locale \
	--no-sync >"$WORK/initdb.log" 2>&1 || {
	cat "$WORK/initdb.log" >&2
	die "initdb failed"
}
BASE_OPTS="-c listen_addresses='' -k $WORK -p $PORT -c shared_buffers=2GB \
-c max_parallel_workers_per_gather=2 -c max_worker_processes=8 -c max_parallel_workers=8 \
-c work_mem=64MB -c maintenance_work_mem=512MB -c jit=off -c autovacuum=off \
-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=16GB \
-c checkpoint_timeout=1h"

# The deployment the README recommends for parallel queries: pg_gsu in
# shared_preload_libraries (a parallel worker otherwise loads pg_gsu.so and OpenBLAS anew in
# every query: it restores the libraries its leader has loaded) and shared memory in huge
# pages (a new worker process otherwise takes a page fault per 4 kB of shared buffers it
# reads). As root, the run reserves the huge pages it needs (vm.nr_hugepages) and gives the
# old value back at exit; GSU_BENCH_HUGEPAGES=0 skips that. Benchmark 4 also measures the
# server without either, for comparison.
HUGE_NEED=$(as_server sh -c "'$PGBIN/postgres' -D '$DATA' $BASE_OPTS -C shared_memory_size_in_huge_pages" 2>/dev/null || echo 0)
HUGE_OLD=""
HUGE=off
if [ "${GSU_BENCH_HUGEPAGES:-1}" != 0 ] && [ "$HUGE_NEED" -gt 0 ] && [ -r /proc/sys/vm/nr_hugepages ]; then
	free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
	if [ "$free" -lt "$HUGE_NEED" ] && [ "$(id -u)" -eq 0 ]; then
		HUGE_OLD=$(cat /proc/sys/vm/nr_hugepages)
		echo "$((HUGE_OLD + HUGE_NEED - free + 16))" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		free=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
	fi
	[ "$free" -lt "$HUGE_NEED" ] || HUGE=on
fi
TUNED_OPTS="-c shared_preload_libraries=pg_gsu -c huge_pages=$HUGE"
SERVER_OPTS="$BASE_OPTS $TUNED_OPTS"
PLAIN_OPTS="$BASE_OPTS -c huge_pages=off"

# start_server OPTS: (re)starts the server with OPTS, OpenBLAS single-threaded as the README says
start_server() {
	if [ -f "$DATA/postmaster.pid" ]; then
		as_server "$PGBIN/pg_ctl" stop -D "$DATA" -m fast -w -t 120 >/dev/null || die "the server did not stop"
	fi
	as_server env OPENBLAS_NUM_THREADS=1 "$PGBIN/pg_ctl" start -D "$DATA" -l "$SERVER_LOG" -w -t 120 -o "$1" >/dev/null ||
		die "the server did not start (see above)"
}
start_server "$SERVER_OPTS"
log "   huge pages: $HUGE (the server needs $HUGE_NEED of $(awk '/^Hugepagesize/ { print $2, $3 }' /proc/meminfo)); shared_preload_libraries = pg_gsu"

export PGOPTIONS="-c client_min_messages=warning"
PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -U postgres -d postgres)

# psql_run SQL: runs SQL (any number of statements) and prints its unaligned output
psql_run() { printf '%s\n' "$1" | "${PSQL[@]}" -At; }

# ------------------------------------------------------------------ recording

CMDS=$WORK/commands.md # every statement and command, for results.md
ROWS=$WORK/rows        # the ratio table, one file per benchmark
DETAILS=$WORK/details  # extra tables, one file per benchmark
mkdir -p "$ROWS" "$DETAILS"
: >"$CMDS"

# show TITLE TEXT: print a statement or command that is timed, and keep it for results.md
show() {
	log "  -- $1"
	printf '%s\n' "$2" | sed 's/^/     /'
	{
		printf '* %s\n\n```sql\n%s\n```\n\n' "$1" "$2"
	} >>"$CMDS"
}

section() {
	log ""
	log "== $*"
	printf '### %s\n\n' "$*" >>"$CMDS"
}

# add_row BENCH CASE SIZE A_MS BASELINE B_MS NOTES
add_row() {
	local ratio
	ratio=$(awk -v a="$4" -v b="$6" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	printf '| %s | %s | %s | %s | %s | %s | **%s** | %s |\n' "$1" "$2" "$3" "$(fmt_ms "$4")" \
		"$5" "$(fmt_ms "$6")" "$ratio" "$7" >>"$ROWS/$1"
	log "  => $2: $(fmt_ms "$4") ms vs $5 $(fmt_ms "$6") ms, ratio $ratio  $7"
}

fmt_ms() { awk -v x="$1" 'BEGIN { if (x == "" || x == "-") print "-"; else printf "%.1f", x }'; }

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# sql_timed SETUP SQL OUT: runs SETUP then SQL in a fresh session, SQL under \timing; prints
# the milliseconds, leaves SQL's output in OUT (and its messages in OUT.err)
sql_timed() {
	local setup=$1 sql=$2 out=$3 raw ms
	raw=$(printf '%s\n\\timing on\n%s\n' "$setup" "$sql" | "${PSQL[@]}" -At 2>"$out.err") || {
		cat "$out.err" >&2
		die "statement failed: $sql"
	}
	printf '%s\n' "$raw" | grep -v -E '^Time: [0-9.]+ ms' >"$out" || true
	ms=$(printf '%s\n' "$raw" | sed -n -E 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1)
	[ -n "$ms" ] || die "no timing for: $sql"
	if [ -s "$out.err" ]; then sed 's/^/     server: /' "$out.err" >&2; fi
	printf '%s\n' "$ms"
}

# cmd_timed OUT CMD...: runs CMD, stdout+stderr to OUT; prints the milliseconds
cmd_timed() {
	local out=$1 t0 t1
	shift
	t0=$(date +%s%N)
	"$@" >"$out" 2>&1 || {
		cat "$out" >&2
		die "command failed: $*"
	}
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e6 }'
}

# time_pair KEY SETUP_A SQL_A SETUP_B SQL_B: REPS interleaved runs of A and B; sets MED_A and
# MED_B (medians, ms); the outputs of the last runs are in $WORK/KEY.a and $WORK/KEY.b
time_pair() {
	local key=$1 sa=$2 a=$3 sb=$4 b=$5 i
	local -a ta=() tb=()
	for ((i = 1; i <= REPS; i++)); do
		ta+=("$(sql_timed "$sa" "$a" "$WORK/$key.a")")
		tb+=("$(sql_timed "$sb" "$b" "$WORK/$key.b")")
	done
	MED_A=$(median "${ta[@]}")
	MED_B=$(median "${tb[@]}")
	log "     runs (ms): A ${ta[*]} | B ${tb[*]}"
}

# time_one KEY SETUP SQL: REPS runs; sets MED (ms); output of the last run in $WORK/KEY
time_one() {
	local key=$1 s=$2 q=$3 i
	local -a t=()
	for ((i = 1; i <= REPS; i++)); do
		t+=("$(sql_timed "$s" "$q" "$WORK/$key")")
	done
	MED=$(median "${t[@]}")
	log "     runs (ms): ${t[*]}"
}

# jfield FILE PATH: a field of the JSON document in FILE, e.g. jfield f '{training,passes}'
jfield() {
	printf "SELECT :'doc'::jsonb #>> '%s';\n" "$2" | "${PSQL[@]}" -At -v doc="$(cat "$1")"
}

# ------------------------------------------------------------------ data

SETUP_SQL=$(
	cat <<'EOF'
CREATE EXTENSION pg_gsu;
CREATE EXTENSION pg_prewarm;
EOF
)
psql_run "$SETUP_SQL" >/dev/null
GSU_VERSION=$(psql_run "SELECT extversion FROM pg_extension WHERE extname = 'pg_gsu';")
PG_VERSION=$(psql_run "SHOW server_version;")
LIBDIR=$("$PGBIN/pg_config" --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
so_sum() { md5sum "$LIBDIR/pg_gsu.so" 2>/dev/null | cut -c1-12; }
SO_MD5_START=$(so_sum)
{
	printf '### Set-up\n\nServer options (pg_ctl start -o):\n\n```\n%s\n```\n\n' "$SERVER_OPTS"
	printf '```sql\n%s\n```\n\n' "$SETUP_SQL"
} >>"$CMDS"

# gen_table NAME ROWS DIM: creates and prewarms a table (id int, mean float8[], variance
# float8[], label int4); deterministic, pure SQL. Each element is a hash of (row, column):
# frac(|sin(a·i + b·j)|·c), the classic shader hash. Labels: sign(Σ_j sin(j)·x_j + e_i) with
# e_i uniform in ±0.2·√dim (about 8 % of the labels disagree with the noiseless rule).
gen_table() {
	local name=$1 n=$2 d=$3 noise sql t0 t1
	noise=$(awk -v d="$d" 'BEGIN { printf "%.6f", 0.2 * sqrt(d) }')
	sql="DROP TABLE IF EXISTS $name;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE $name WITH (autovacuum_enabled = off) AS
SELECT i AS id, r.mean, r.variance,
       CASE WHEN r.score + $noise::float8 * (2.0::float8 * (e.h - floor(e.h)) - 1.0::float8) > 0
            THEN 1 ELSE -1 END AS label
FROM generate_series(1, $n) AS i,
     LATERAL (SELECT abs(sin(i::float8 * 91.3458::float8)) * 47453.5453::float8 AS h) AS e,
     LATERAL (
       SELECT array_agg(x) AS mean, array_agg(v) AS variance, sum(x * sin(j::float8)) AS score
       FROM (SELECT j, 2.0::float8 * (h1 - floor(h1)) - 1.0::float8 AS x,
                    0.05::float8 + 0.45::float8 * (h2 - floor(h2)) AS v
             FROM (SELECT j,
                          abs(sin(i::float8 * 12.9898::float8 + j::float8 * 78.233::float8)) * 43758.5453::float8 AS h1,
                          abs(sin(i::float8 * 39.3468::float8 + j::float8 * 11.135::float8)) * 24634.6345::float8 AS h2
                   FROM generate_series(1, $d) AS j) AS a) AS b) AS r;
VACUUM (FREEZE, ANALYZE) $name;
SELECT pg_prewarm('$name'), pg_prewarm(reltoastrelid::regclass) FROM pg_class
 WHERE oid = '$name'::regclass AND reltoastrelid <> 0;"
	log ""
	log "-- generating $name: $n rows x $d dims"
	show "data: $name ($n rows × $d dims)" "$sql"
	t0=$(date +%s)
	psql_run "$sql" >/dev/null
	t1=$(date +%s)
	log "   $(psql_run "SELECT format('%s rows, %s, %s %% positive', count(*), pg_size_pretty(pg_total_relation_size('$name')), round(100.0 * avg((label = 1)::int), 1)) FROM $name;") ($((t1 - t0)) s)"
}

# prewarm NAME...: reload tables into shared buffers (others may have pushed them out)
prewarm() {
	local t
	for t in "$@"; do
		psql_run "SELECT pg_prewarm('$t'), pg_prewarm(reltoastrelid::regclass) FROM pg_class WHERE oid = '$t'::regclass AND reltoastrelid <> 0; SELECT pg_prewarm('$t');" >/dev/null
	done
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)

# ================================================================== benchmark 1 (part) and 3, 4 on t1

if want 1 || want 3 || want 4; then
	gen_table t1 "$N1" "$D1"

	Q_SGD="SELECT gsu.describe(gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}')) FROM t1;"
	Q_SCAN2="SELECT sum(mean[1] + variance[1]) FROM t1;"
	if want 1; then
		section "1. Training pass (sgd) vs bare scan"
		show "1a pg_gsu (setup: $SERIAL)" "$Q_SGD"
		show "1a baseline (setup: $SERIAL)" "$Q_SCAN2"
		time_pair b1a "$SERIAL" "$Q_SGD" "$SERIAL" "$Q_SCAN2"
		add_row 1 "sgd, one pass" "$N1 × $D1" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" \
			"progressive objective $(jfield "$WORK/b1a.a" '{training,objective}' | cut -c1-8)"
		# the other streaming passes: the aggregate gsu.train_sgd (its state is the SQL type
		# gsu.partial) and one gradient pass of gsu.fit's solver lbfgs at the model above
		Q_TSGD="SELECT gsu.train_sgd(mean, variance, label, '{}') IS NOT NULL FROM t1;"
		show "1a gsu.train_sgd (setup: $SERIAL)" "$Q_TSGD"
		time_pair b1c "$SERIAL" "$Q_TSGD" "$SERIAL" "$Q_SCAN2"
		add_row 1 "gsu.train_sgd, one pass" "$N1 × $D1" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" ""
		psql_run "DROP TABLE IF EXISTS b1_model; CREATE TABLE b1_model AS SELECT gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}') AS model FROM t1;" >/dev/null
		Q_GRAD="SELECT gsu.gradient(mean, variance, label, (SELECT model FROM b1_model), 0.0) IS NOT NULL FROM t1;"
		show "1a gsu.gradient at a trained model (setup: $SERIAL)" "$Q_GRAD"
		time_pair b1d "$SERIAL" "$Q_GRAD" "$SERIAL" "$Q_SCAN2"
		add_row 1 "gsu.gradient, one pass" "$N1 × $D1" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" ""
	fi

	if want 3 || want 4; then
		psql_run "DROP TABLE IF EXISTS b3_model; CREATE TABLE b3_model AS SELECT gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}') AS model FROM t1; ANALYZE b3_model;" >/dev/null
	fi
	Q_PRED="SELECT sum(gsu.predict(m.model, t.mean)) FROM t1 AS t CROSS JOIN b3_model AS m;"
	Q_SCAN1="SELECT sum(t.mean[1]) FROM t1 AS t;"
	Q_CONF="SELECT sum(gsu.confidence(m.model, t.mean, t.variance)) FROM t1 AS t CROSS JOIN b3_model AS m;"
	Q_SCAN2T="SELECT sum(t.mean[1] + t.variance[1]) FROM t1 AS t;"
	Q_PRED_CTE="WITH m AS (SELECT model FROM b3_model) SELECT sum(gsu.predict(m.model, t.mean)) FROM t1 AS t, m;"
	Q_PRED_SUB="SELECT sum(gsu.predict((SELECT model FROM b3_model), t.mean)) FROM t1 AS t;"
	# a bare scan that reads 4 elements spread over the array, so touches all of its cache lines
	Q_SCAN_SPREAD="SELECT sum(t.mean[1] + t.mean[$((D1 / 3))] + t.mean[$((2 * D1 / 3))] + t.mean[$D1]) FROM t1 AS t;"
	if want 3; then
		section "3. Scoring vs bare scan"
		show "3 model (not timed)" "CREATE TABLE b3_model AS SELECT gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}') AS model FROM t1;"
		log "  plan:"
		psql_run "$SERIAL EXPLAIN (COSTS OFF) $Q_PRED" | sed 's/^/     /'
		show "3a pg_gsu (setup: $SERIAL)" "$Q_PRED"
		show "3a baseline (setup: $SERIAL)" "$Q_SCAN1"
		time_pair b3a "$SERIAL" "$Q_PRED" "$SERIAL" "$Q_SCAN1"
		add_row 3 "gsu.predict(model, mean), model cross-joined" "$N1 × $D1" "$MED_A" "scan sum(mean[1])" "$MED_B" ""
		show "3b pg_gsu (setup: $SERIAL)" "$Q_PRED_CTE"
		time_pair b3b "$SERIAL" "$Q_PRED_CTE" "$SERIAL" "$Q_SCAN1"
		add_row 3 "gsu.predict(model, mean), model from a CTE" "$N1 × $D1" "$MED_A" "scan sum(mean[1])" "$MED_B" ""
		show "3c pg_gsu (setup: $SERIAL)" "$Q_PRED_SUB"
		time_pair b3s "$SERIAL" "$Q_PRED_SUB" "$SERIAL" "$Q_SCAN1"
		add_row 3 "gsu.predict(model, mean), model from a scalar subquery" "$N1 × $D1" "$MED_A" "scan sum(mean[1])" "$MED_B" ""
		show "3f pg_gsu (setup: $SERIAL)" "$Q_PRED_SUB"
		show "3f baseline (setup: $SERIAL)" "$Q_SCAN2T"
		time_pair b3f "$SERIAL" "$Q_PRED_SUB" "$SERIAL" "$Q_SCAN2T"
		add_row 3 "gsu.predict(model, mean), model from a scalar subquery" "$N1 × $D1" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" "the issue's bare scan (benchmark 1's baseline)"
		show "3e pg_gsu (setup: $SERIAL)" "$Q_PRED"
		show "3e baseline (setup: $SERIAL)" "$Q_SCAN_SPREAD"
		time_pair b3e "$SERIAL" "$Q_PRED" "$SERIAL" "$Q_SCAN_SPREAD"
		add_row 3 "gsu.predict(model, mean), model cross-joined" "$N1 × $D1" "$MED_A" "scan reading 4 elements spread over mean" "$MED_B" "mean[1] alone reads one cache line of the 400-byte array; gsu.predict reads all of it"
		show "3d pg_gsu (setup: $SERIAL)" "$Q_CONF"
		show "3d baseline (setup: $SERIAL)" "$Q_SCAN2T"
		time_pair b3c "$SERIAL" "$Q_CONF" "$SERIAL" "$Q_SCAN2T"
		add_row 3 "gsu.confidence(model, mean, variance)" "$N1 × $D1" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" ""
	fi

	if want 4; then
		section "4. Parallel (2 workers) vs serial, on t1"
		PLANS=$DETAILS/4.plans
		: >"$PLANS"
		# par_vs_serial KEY CASE SIZE SQL [objective]: EXPLAIN ANALYZE once in parallel, then timings
		par_vs_serial() {
			local key=$1 what=$2 size=$3 q=$4 notes=""
			local plan
			plan=$(psql_run "$PARALLEL EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q")
			printf -- '-- %s\n-- setup: %s\nEXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) %s\n%s\n\n' "$what" "$PARALLEL" "$q" "$plan" >>"$PLANS"
			log "  parallel plan of $what:"
			printf '%s\n' "$plan" | sed 's/^/     /'
			show "4 $what, parallel (setup: $PARALLEL)" "$q"
			show "4 $what, serial (setup: $SERIAL)" "$q"
			time_pair "$key" "$PARALLEL" "$q" "$SERIAL" "$q"
			if [ "${5:-}" = objective ]; then
				notes="objective parallel $(jfield "$WORK/$key.a" '{training,objective}' | cut -c1-10), serial $(jfield "$WORK/$key.b" '{training,objective}' | cut -c1-10)"
				if [ "$(jfield "$WORK/$key.a" '{training,passes}')" != 1 ]; then
					notes="$notes; passes $(jfield "$WORK/$key.a" '{training,passes}') / $(jfield "$WORK/$key.b" '{training,passes}'); solve s $(jfield "$WORK/$key.a" '{training,seconds}' | cut -c1-6) / $(jfield "$WORK/$key.b" '{training,seconds}' | cut -c1-6)"
				fi
			fi
			add_row 4 "$what: 2 workers vs serial" "$size" "$MED_A" "serial" "$MED_B" \
				"speed-up $(awk -v a="$MED_A" -v b="$MED_B" 'BEGIN { printf "%.2f", b / a }')x${notes:+; $notes}"
		}
		par_vs_serial b4scan "bare scan sum(mean[1]+variance[1])" "$N1 × $D1" "$Q_SCAN2"
		par_vs_serial b4sgd "sgd training" "$N1 × $D1" "$Q_SGD" objective
		par_vs_serial b4pred "scoring gsu.predict, model cross-joined" "$N1 × $D1" "$Q_PRED"
		par_vs_serial b4predsub "scoring gsu.predict, model from a scalar subquery" "$N1 × $D1" "$Q_PRED_SUB"

		# the fixed cost of a parallel plan: launching the workers, on a 2-row table (one row per label)
		psql_run "DROP TABLE IF EXISTS one_row; CREATE TABLE one_row AS SELECT * FROM t1 WHERE id IN (SELECT min(id) FROM t1 GROUP BY label); ALTER TABLE one_row SET (parallel_workers = 2); ANALYZE one_row;" >/dev/null
		Q_ONE="SELECT gsu.describe(gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}')) FROM one_row;"
		# start_up_row KEY LABEL: times Q_ONE in parallel and serial plans
		start_up_row() {
			show "4 $2, parallel (setup: $PARALLEL)" "$Q_ONE"
			time_pair "$1" "$PARALLEL" "$Q_ONE" "$SERIAL" "$Q_ONE"
			add_row 4 "$2: 2 workers vs serial" "2 × $D1" "$MED_A" "serial" "$MED_B" \
				"the fixed cost of a parallel plan: $(awk -v a="$MED_A" -v b="$MED_B" 'BEGIN { printf "%.1f", a - b }') ms"
		}
		start_up_row b4one "parallel start-up, sgd training on a 2-row table"

		# the same on a server without the recommended settings
		section "4. Parallel vs serial on a server without shared_preload_libraries and huge pages"
		start_server "$PLAIN_OPTS"
		prewarm t1
		par_vs_serial b4scanp "bare scan sum(mean[1]+variance[1]), server without preload and huge pages" "$N1 × $D1" "$Q_SCAN2"
		par_vs_serial b4sgdp "sgd training, server without preload and huge pages" "$N1 × $D1" "$Q_SGD" objective
		start_up_row b4onep "parallel start-up, server without preload and huge pages"
		start_server "$SERVER_OPTS"
	fi

	psql_run "DROP TABLE t1;" >/dev/null # t1 is done with: keep shared buffers for the rest
fi

# ================================================================== benchmark 1 at a high dimension (t2)

if want 1; then
	gen_table t2 "$N2" "$D2"
	section "1. Training pass (sgd) vs bare scan, high dimension"
	Q_SGD2="SELECT gsu.describe(gsu.train(mean, variance, label, '{\"solver\":\"sgd\"}')) FROM t2;"
	Q_SCAN22="SELECT sum(mean[1] + variance[1]) FROM t2;"
	show "1b pg_gsu (setup: $SERIAL)" "$Q_SGD2"
	show "1b baseline (setup: $SERIAL)" "$Q_SCAN22"
	time_pair b1b "$SERIAL" "$Q_SGD2" "$SERIAL" "$Q_SCAN22"
	add_row 1 "sgd, one pass" "$N2 × $D2" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" \
		"progressive objective $(jfield "$WORK/b1b.a" '{training,objective}' | cut -c1-8)"
	psql_run "DROP TABLE t2;" >/dev/null
fi

# ================================================================== t3: newton, liblinear, parallel newton, memory

if want 1 || want 2 || want 4 || want 5 || want 6; then
	gen_table t3 "$N3" "$D3"
fi
Q_NEWTON="SELECT gsu.describe(gsu.train(mean, variance, label)) FROM t3;"
if want 1; then
	section "1. Buffered newton solver vs bare scan"
	Q_SCAN23="SELECT sum(mean[1] + variance[1]) FROM t3;"
	show "1c pg_gsu (setup: $SERIAL)" "$Q_NEWTON"
	show "1c baseline (setup: $SERIAL)" "$Q_SCAN23"
	time_pair b1c "$SERIAL" "$Q_NEWTON" "$SERIAL" "$Q_SCAN23"
	P=$(jfield "$WORK/b1c.a" '{training,passes}')
	S=$(jfield "$WORK/b1c.a" '{training,seconds}')
	add_row 1 "newton (default), to convergence" "$N3 × $D3" "$MED_A" "scan sum(mean[1]+variance[1])" "$MED_B" \
		"$P passes, solver $(awk -v s="$S" 'BEGIN { printf "%.0f", s * 1000 }') ms (describe.seconds), so scan + buffering ≈ $(awk -v s="$S" -v a="$MED_A" 'BEGIN { printf "%.0f", a - s * 1000 }') ms; $(awk -v a="$MED_A" -v b="$MED_B" -v p="$P" 'BEGIN { printf "%.2f", a / b / p }') scans per pass; converged $(jfield "$WORK/b1c.a" '{training,converged}'), objective $(jfield "$WORK/b1c.a" '{training,objective}' | cut -c1-10)"
fi

# the in-memory passes of the default solver against the floor of reading the buffered rows
# (issue #15, goal 2): bench/pass_cost.sh times the core's passes without a server
if want 1; then
	section "1. In-memory passes of the default solver vs a dgemv over the rows"
	PASS_SIZES="100000x50 20000x500"
	[ "$MODE" = full ] || PASS_SIZES="20000x50 4000x500"
	PASS_OUT=$WORK/pass_cost.txt
	printf '```sh
bash bench/pass_cost.sh "%s"
```

' "$PASS_SIZES" >>"$CMDS"
	if bash "$BENCH_DIR/pass_cost.sh" "$PASS_SIZES" >"$PASS_OUT" 2>&1; then
		sed 's/^/     /' "$PASS_OUT"
		# a row per size and pass: its time against the floor x+v (both minima of 9 runs)
		awk -F' [|] ' '
			/^rows / { split($0, w, /[ ,]+/); size = w[2] " × " w[4] }
			/^[|] floor x\+v/ { floor = $2 }
			/^[|] objective and gradient/ { print size "\tobjective and gradient\t" $2 "\t" floor }
			/^[|] Hessian-vector product/ { print size "\tHessian-vector product\t" $2 "\t" floor }
		' "$PASS_OUT" | while IFS=$'\t' read -r size pass ms floor; do
			add_row 1 "in-memory pass of the default solver: $pass (core, min of 9)" "$size" "$ms" \
				"dgemv over the means and over the variances" "$floor" "goal: at most 2; bench/pass_cost.sh, output below"
		done
	else
		log "  pass_cost.sh failed (see below); the rows are left out"
		sed 's/^/     /' "$PASS_OUT"
	fi
fi

if want 4; then
	section "4. Parallel (2 workers) vs serial, newton on t3"
	par_vs_serial b4newton "newton training" "$N3 × $D3" "$Q_NEWTON" objective
fi

# ------------------------------------------------------------------ the training split of t3 (benchmarks 2 and 6)

SPLIT_SHOW="CREATE TABLE b2_train AS SELECT * FROM t3 WHERE id % 5 <> 0 ORDER BY id;
CREATE TABLE b2_test AS SELECT * FROM t3 WHERE id % 5 = 0 ORDER BY id;"
if want 2 || want 6; then
	psql_run "DROP TABLE IF EXISTS b2_train, b2_test;
CREATE TABLE b2_train WITH (autovacuum_enabled = off) AS SELECT * FROM t3 WHERE id % 5 <> 0 ORDER BY id;
CREATE TABLE b2_test WITH (autovacuum_enabled = off) AS SELECT * FROM t3 WHERE id % 5 = 0 ORDER BY id;
VACUUM (FREEZE, ANALYZE) b2_train, b2_test;" >/dev/null
	prewarm b2_train b2_test
	L=$(psql_run "SELECT count(*) FROM b2_train;")
	LTEST=$(psql_run "SELECT count(*) FROM b2_test;")
	C=$(awk -v l="$L" -v lam="$LAMBDA" 'BEGIN { printf "%.10g", 1 / (lam * l) }')
	log "  training rows l = $L, test rows $LTEST, lambda = $LAMBDA, liblinear C = 1/(lambda*l) = $C"
fi

# pg_gsu configurations, all with loss hinge and the same lambda: the default solver to its
# default tolerance, the same to a looser one, and the stochastic solver. The issue's measure is
# the time to reach liblinear's test accuracy (within 0.5 point); each configuration's
# objective is reported next to its time.
GSU_NAMES=("pg_gsu default solver (dcd; tolerance 1e-6)" "pg_gsu default solver (dcd), tolerance 1e-3" "pg_gsu pegasos (default epochs)")
GSU_OPTS=("{\"loss\":\"hinge\",\"lambda\":$LAMBDA}"
	"{\"loss\":\"hinge\",\"lambda\":$LAMBDA,\"tolerance\":1e-3}"
	"{\"loss\":\"hinge\",\"lambda\":$LAMBDA,\"solver\":\"pegasos\"}")
SETUP_HINGE="$SERIAL DROP TABLE IF EXISTS b2_model;"
for g in "${!GSU_OPTS[@]}"; do
	Q_HINGE[g]="CREATE TABLE b2_model AS SELECT gsu.train(mean, variance, label, '${GSU_OPTS[$g]}') AS model FROM b2_train;"
done
# evaluation (not timed): test accuracy and the primal objective on the training split
OBJ_SQL="CREATE OR REPLACE FUNCTION pg_temp.hinge_objective(w float8[], b float8, lambda float8)
RETURNS float8 LANGUAGE sql STABLE AS \$\$
  SELECT lambda / 2 * (SELECT sum(v * v) FROM unnest(w) AS v)
       + avg(greatest(0.0, 1.0 - t.label * (b + (SELECT sum(u.x * w[u.j]) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)))))
  FROM b2_train AS t
\$\$;
CREATE OR REPLACE FUNCTION pg_temp.test_accuracy(w float8[], b float8)
RETURNS float8 LANGUAGE sql STABLE AS \$\$
  SELECT avg((CASE WHEN b + (SELECT sum(u.x * w[u.j]) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)) >= 0
                   THEN 1 ELSE -1 END = t.label)::int)
  FROM b2_test AS t
\$\$;"

# ------------------------------------------------------------------ benchmark 2

if want 2; then
	section "2. gsu.train(loss hinge) vs liblinear-train -s 3 -B 1"
	show "2 split (not timed)" "$SPLIT_SHOW"

	# liblinear's sparse text format, "label idx:val ...", floats printed by PostgreSQL's
	# shortest exact representation, so that both sides train on the same doubles
	export_sql() {
		printf "COPY (SELECT t.label || ' ' || (SELECT string_agg(u.j || ':' || u.x, ' ' ORDER BY u.j) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)) FROM %s AS t ORDER BY t.id) TO '%s';" "$1" "$2"
	}
	Q_EXPORT=$(export_sql b2_train "$WORK/train.svm")
	show "2 export of the training split (setup: $SERIAL)" "$Q_EXPORT"
	time_one b2export "$SERIAL" "$Q_EXPORT"
	MED_EXPORT=$MED
	psql_run "$(export_sql b2_test "$WORK/test.svm")" >/dev/null
	show "2 export of the test split (not timed)" "$(export_sql b2_test "$WORK/test.svm")"
	[ "$(id -u)" -ne 0 ] || chmod a+r "$WORK"/*.svm

	for g in "${!GSU_OPTS[@]}"; do
		show "2 ${GSU_NAMES[$g]} (setup: $SETUP_HINGE)" "${Q_HINGE[$g]}"
	done
	LL_EPS=("" "0.001")
	LL_NAMES=("liblinear, default eps (0.1)" "liblinear, eps 0.001")
	for k in "${!LL_EPS[@]}"; do
		eps=${LL_EPS[$k]}
		LL_CMD[k]="liblinear-train -s 3 -c $C -B 1${eps:+ -e $eps} $WORK/train.svm $WORK/model.$k"
		show "2 ${LL_NAMES[$k]}" "${LL_CMD[$k]}"
	done
	declare -a T_GSU0=() T_GSU1=() T_GSU2=() T_LL0=() T_LL1=()
	for ((i = 1; i <= REPS; i++)); do
		T_GSU0+=("$(sql_timed "$SETUP_HINGE" "${Q_HINGE[0]}" "$WORK/b2gsu")")
		T_GSU1+=("$(sql_timed "$SETUP_HINGE" "${Q_HINGE[1]}" "$WORK/b2gsu")")
		T_GSU2+=("$(sql_timed "$SETUP_HINGE" "${Q_HINGE[2]}" "$WORK/b2gsu")")
		# shellcheck disable=SC2086
		T_LL0+=("$(cmd_timed "$WORK/ll.0.out" ${LL_CMD[0]})")
		# shellcheck disable=SC2086
		T_LL1+=("$(cmd_timed "$WORK/ll.1.out" ${LL_CMD[1]})")
	done
	log "     runs (ms): ${GSU_NAMES[0]} ${T_GSU0[*]} | ${GSU_NAMES[1]} ${T_GSU1[*]} | ${GSU_NAMES[2]} ${T_GSU2[*]}"
	log "     runs (ms): ${LL_NAMES[0]} ${T_LL0[*]} | ${LL_NAMES[1]} ${T_LL1[*]}"
	MED_GSUS=("$(median "${T_GSU0[@]}")" "$(median "${T_GSU1[@]}")" "$(median "${T_GSU2[@]}")")
	MED_LL=("$(median "${T_LL0[@]}")" "$(median "${T_LL1[@]}")")
	# how much of liblinear's time is reading its text file: liblinear-predict on the training
	# file reads the same file and does one dot product per row
	LL_READ_CMD="liblinear-predict $WORK/train.svm $WORK/model.0 $WORK/pred.train"
	show "2 liblinear file-reading cost (estimate)" "$LL_READ_CMD"
	declare -a T_READ=()
	for ((i = 1; i <= REPS; i++)); do
		# shellcheck disable=SC2086
		T_READ+=("$(cmd_timed "$WORK/llread.out" $LL_READ_CMD)")
	done
	MED_READ=$(median "${T_READ[@]}")
	log "     runs (ms): liblinear-predict on the training file ${T_READ[*]}"

	show "2 evaluation functions (not timed; pg_temp, created in each evaluation session)" "$OBJ_SQL"
	Q_GSU_EVAL="SELECT pg_temp.hinge_objective(gsu.weights(model), gsu.bias(model), $LAMBDA),
       (SELECT avg((gsu.predict(m.model, t.mean) = t.label)::int) FROM b2_test AS t, b2_model AS m),
       gsu.describe(model)
FROM b2_model;"
	show "2 pg_gsu evaluation (after each configuration's training, not timed)" "$Q_GSU_EVAL"
	D2DET=$DETAILS/2
	{
		printf '| method | train time (ms, median of %d) | test accuracy | primal objective λ/2‖w‖² + (1/ℓ)Σ hinge on the training split (b not regularized) | notes |\n' "$REPS"
		printf '|---|---|---|---|---|\n'
	} >"$D2DET"
	declare -a GSU_ACCS=() GSU_OBJS=()
	for g in "${!GSU_OPTS[@]}"; do
		psql_run "$SETUP_HINGE ${Q_HINGE[$g]}" >/dev/null
		IFS='|' read -r GSU_OBJ GSU_ACC GSU_DESC < <(psql_run "$OBJ_SQL $Q_GSU_EVAL")
		printf '%s\n' "$GSU_DESC" >"$WORK/b2desc"
		GSU_ACCS[g]=$GSU_ACC
		GSU_OBJS[g]=$GSU_OBJ
		printf '| %s, loss hinge, λ = %s | %s | %.4f | %.10f | %s passes, solver %s s (describe); describe.objective %s |\n' \
			"${GSU_NAMES[$g]}" "$LAMBDA" "$(fmt_ms "${MED_GSUS[$g]}")" "$GSU_ACC" "$GSU_OBJ" \
			"$(jfield "$WORK/b2desc" '{training,passes}')" \
			"$(awk -v s="$(jfield "$WORK/b2desc" '{training,seconds}')" 'BEGIN { printf "%.2f", s }')" \
			"$(jfield "$WORK/b2desc" '{training,objective}')" >>"$D2DET"
	done
	MED_GSU=${MED_GSUS[0]}
	GSU_ACC=${GSU_ACCS[0]}
	GSU_OBJ=${GSU_OBJS[0]}
	for k in "${!LL_EPS[@]}"; do
		model=$WORK/model.$k
		# liblinear's model: "label A B" (w is for A = +1 when A = 1), then w, bias weight last
		read -r FIRST RAW < <(awk '/^label /{ lab = $2 } /^w$/{ inw = 1; next } inw && NF { w = w (n++ ? "," : "") $1 } END { print lab, "{" w "}" }' "$model")
		LL_EVAL="SELECT pg_temp.hinge_objective(w, b, $LAMBDA), pg_temp.test_accuracy(w, b), $LAMBDA / 2 * b * b
FROM (SELECT s * raw[$((D3 + 1))] AS b,
             (SELECT array_agg(s * v ORDER BY k) FROM unnest(raw[1:$D3]) WITH ORDINALITY AS u(v, k)) AS w
      FROM (SELECT '$RAW'::float8[] AS raw, CASE WHEN $FIRST = 1 THEN 1.0 ELSE -1.0 END::float8 AS s) AS m) AS z;"
		IFS='|' read -r LL_OBJ LL_SQLACC LL_BREG < <(psql_run "$OBJ_SQL $LL_EVAL")
		predict_out=$(liblinear-predict "$WORK/test.svm" "$model" "$WORK/pred.$k")
		LL_ACC=$(printf '%s\n' "$predict_out" | sed -n -E 's/^Accuracy = ([0-9.]+)%.*/\1/p')
		LL_ITER=$(sed -n -E 's/.*#iter = ([0-9]+).*/\1/p' "$WORK/ll.$k.out" | tail -n 1)
		LL_WARN=$(grep -c -i 'WARNING' "$WORK/ll.$k.out" || true)
		printf '| %s, C = %s | %s | %.4f | %.10f | %s dual CD iterations%s; SQL accuracy from its weights %.4f; its λ/2·b² = %.2e |\n' \
			"${LL_NAMES[$k]}" "$C" "$(fmt_ms "${MED_LL[$k]}")" "$(awk -v a="$LL_ACC" 'BEGIN { printf "%.4f", a / 100 }')" \
			"$LL_OBJ" "${LL_ITER:-?}" "$([ "$LL_WARN" -gt 0 ] && echo ", max-iteration WARNING")" "$LL_SQLACC" "$LL_BREG" >>"$D2DET"
		if [ "$k" -eq 0 ]; then LL0_ACC_PCT=$LL_ACC LL0_OBJ=$LL_OBJ; fi
		add_row 2 "hinge λ=$LAMBDA training, ${GSU_NAMES[0]}" "$L × $D3" "$MED_GSU" "${LL_NAMES[$k]}" "${MED_LL[$k]}" \
			"objective gsu $(printf '%.8f' "$GSU_OBJ") vs liblinear $(printf '%.8f' "$LL_OBJ"); accuracy $(printf '%.4f' "$GSU_ACC") vs $(awk -v a="$LL_ACC" 'BEGIN { printf "%.4f", a / 100 }')"
	done
	add_row 2 "hinge training incl. export" "$L × $D3" "$MED_GSU" "export ($(fmt_ms "$MED_EXPORT") ms) + ${LL_NAMES[0]}" \
		"$(awk -v a="$MED_EXPORT" -v b="${MED_LL[0]}" 'BEGIN { print a + b }')" "export: COPY of the training split to liblinear's text format"
	# time to liblinear's accuracy: the fastest pg_gsu configuration whose test accuracy is within
	# 0.5 point of liblinear's at its default eps, against that liblinear run
	LL0_ACC=$(awk -v a="$LL0_ACC_PCT" 'BEGIN { printf "%.6f", a / 100 }')
	BEST=""
	for g in "${!GSU_OPTS[@]}"; do
		if awk -v a="${GSU_ACCS[$g]}" -v b="$LL0_ACC" 'BEGIN { d = a - b; exit !(d <= 0.005 && d >= -0.005) }'; then
			if [ -z "$BEST" ] || awk -v a="${MED_GSUS[$g]}" -v b="${MED_GSUS[$BEST]}" 'BEGIN { exit !(a < b) }'; then BEST=$g; fi
		fi
	done
	if [ -n "$BEST" ]; then
		add_row 2 "hinge: time to liblinear's test accuracy ±0.5 point" "$L × $D3" "${MED_GSUS[$BEST]}" "${LL_NAMES[0]}" "${MED_LL[0]}" \
			"fastest such pg_gsu configuration: ${GSU_NAMES[$BEST]}, accuracy $(printf '%.4f' "${GSU_ACCS[$BEST]}") vs $(printf '%.4f' "$LL0_ACC"), objective $(printf '%.8f' "${GSU_OBJS[$BEST]}") vs $(printf '%.8f' "$LL0_OBJ")"
	else
		add_row 2 "hinge: time to liblinear's test accuracy ±0.5 point" "$L × $D3" "-" "${LL_NAMES[0]}" "${MED_LL[0]}" \
			"no pg_gsu configuration reached liblinear's test accuracy $(printf '%.4f' "$LL0_ACC") within 0.5 point"
	fi
	{
		printf '\nExport of the training split to liblinear format (COPY ... TO, server side): %s ms (median of %d); the file is %s MB.\n' "$(fmt_ms "$MED_EXPORT")" "$REPS" "$(($(stat -c %s "$WORK/train.svm") / 1048576))"
		printf 'Reading that file: liblinear-predict on the training file takes %s ms (median of %d), an estimate of the part of liblinear-train'"'"'s time that is parsing rather than solving.\n' "$(fmt_ms "$MED_READ")" "$REPS"
		printf 'liblinear regularizes the bias (its objective is ½‖[w; b]‖² + C·Σ hinge, i.e. λ/2(‖w‖² + b²) + (1/ℓ)Σ hinge after dividing by Cℓ); pg_gsu does not. The primal objectives above are pg_gsu'"'"'s (b not regularized) for both.\n'
	} >>"$D2DET"
	cat "$D2DET"
fi

# ------------------------------------------------------------------ benchmark 5

if want 5; then
	section "5. Peak backend memory of the buffered (newton) solver"
	D5DET=$DETAILS/5
	{
		printf '| rows × dim | time (ms) | VmHWM before → after (kB) | RssShmem before → after (kB) | peak RssAnon − before (kB, polled every 20 ms) | VmHWM growth − RssShmem growth (kB) | bytes / row (peak RssAnon) | expected 8·(2·dim+1) | measured / expected |\n'
		printf '|---|---|---|---|---|---|---|---|---|\n'
	} >"$D5DET"
	# status_kb PID: "VmHWM RssAnon RssShmem" in kB (empty when the process is gone)
	status_kb() {
		local k v _ hwm="" anon="" shm=""
		while read -r k v _; do
			case "$k" in
			VmHWM:) hwm=$v ;;
			RssAnon:) anon=$v ;;
			RssShmem:) shm=$v ;;
			esac
		done <"/proc/$1/status" 2>/dev/null || return 1
		[ -n "$hwm" ] && printf '%s %s %s\n' "$hwm" "$anon" "$shm"
	}
	# extra_ticks PID: sets EXTRA_TICKS (CPU clock ticks of the process's threads other than the
	# main one, e.g. a BLAS thread pool) and NTHREADS
	extra_ticks() {
		local t a
		EXTRA_TICKS=0 NTHREADS=0
		for t in /proc/"$1"/task/*; do
			[ -r "$t/stat" ] || continue
			NTHREADS=$((NTHREADS + 1))
			[ "${t##*/}" != "$1" ] || continue
			read -r -a a <"$t/stat" 2>/dev/null || continue
			EXTRA_TICKS=$((EXTRA_TICKS + a[13] + a[14]))
		done
	}
	declare -A MEM_BPR
	THREAD_NOTES=""
	mem_probe() { # KEY ROWS
		local key=$1 n=$2 table=b5_$1 pidfile=$WORK/$1.pid out=$WORK/$1.out pid="" cpid i s
		local hwm0 anon0 shm0 hwm anon shm maxanon t0 t1 q
		psql_run "DROP TABLE IF EXISTS $table; CREATE TABLE $table WITH (autovacuum_enabled = off) AS SELECT * FROM t3 WHERE id <= $n ORDER BY id; VACUUM (FREEZE, ANALYZE) $table;" >/dev/null
		prewarm "$table"
		q="SELECT gsu.describe(gsu.train(mean, variance, label)) FROM $table;"
		show "5 memory, $n rows (table $table = the first $n rows of t3; session: $SERIAL LOAD 'pg_gsu'; SELECT pg_backend_pid(); SELECT pg_sleep(0.5); then the statement, then SELECT pg_sleep(0.5); the shell polls /proc/<pid>/status)" "$q"
		rm -f "$pidfile"
		t0=$(date +%s%N)
		printf '%s\nLOAD '"'"'pg_gsu'"'"';\n\\o %s\nSELECT pg_backend_pid();\n\\o\nSELECT pg_sleep(0.5);\n%s\nSELECT pg_sleep(0.5);\n' \
			"$SERIAL" "$pidfile" "$q" | "${PSQL[@]}" -At >"$out" 2>"$out.err" &
		cpid=$!
		for ((i = 0; i < 1000; i++)); do
			pid=$(tr -dc 0-9 2>/dev/null <"$pidfile" || true)
			[ -n "$pid" ] && break
			sleep 0.01
		done
		[ -n "$pid" ] || die "no backend pid for the memory probe"
		read -r hwm0 anon0 shm0 < <(status_kb "$pid")
		maxanon=$anon0 hwm=$hwm0 shm=$shm0
		local nthreads=0 xticks=0
		while kill -0 "$cpid" 2>/dev/null; do
			s=$(status_kb "$pid") || break
			read -r hwm anon shm <<<"$s"
			[ "$anon" -le "$maxanon" ] || maxanon=$anon
			extra_ticks "$pid"
			[ "$NTHREADS" -eq 0 ] || { nthreads=$NTHREADS xticks=$EXTRA_TICKS; }
			sleep 0.02
		done
		THREAD_NOTES="$THREAD_NOTES- $n rows: the backend had $nthreads thread(s) after LOAD 'pg_gsu'; the threads other than the main one used $((xticks * 1000 / $(getconf CLK_TCK))) ms of CPU during the probe.
"
		wait "$cpid" || {
			cat "$out.err" >&2
			die "memory probe failed"
		}
		t1=$(date +%s%N)
		local dpriv=$((maxanon - anon0)) dhwm=$((hwm - hwm0 - (shm - shm0)))
		local bpr expect
		bpr=$(awk -v k="$dpriv" -v n="$n" 'BEGIN { printf "%.0f", k * 1024 / n }')
		expect=$((8 * (2 * D3 + 1)))
		MEM_BPR[$key]=$dpriv
		printf '| %s × %s | %s | %s → %s | %s → %s | %s | %s | %s | %s | %s |\n' "$n" "$D3" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) / 1e6 - 1000 }')" "$hwm0" "$hwm" "$shm0" "$shm" \
			"$dpriv" "$dhwm" "$bpr" "$expect" "$(awk -v a="$bpr" -v b="$expect" 'BEGIN { printf "%.2f", a / b }')" >>"$D5DET"
		log "  $n rows: VmHWM $hwm0 -> $hwm kB, RssShmem $shm0 -> $shm kB, peak RssAnon +$dpriv kB = $bpr bytes/row (expected $expect)"
		add_row 5 "newton peak private memory per row" "$n × $D3" "$bpr" "expected 8·(2·dim+1) bytes" "$expect" \
			"bytes, not ms: peak RssAnon growth $dpriv kB; VmHWM growth minus shared-buffer pages $dhwm kB"
		psql_run "DROP TABLE $table;" >/dev/null
	}
	mem_probe a "$MEM_A"
	mem_probe b "$MEM_B"
	MARGINAL=$(awk -v a="${MEM_BPR[a]}" -v b="${MEM_BPR[b]}" -v na="$MEM_A" -v nb="$MEM_B" 'BEGIN { printf "%.0f", (b - a) * 1024 / (nb - na) }')
	{
		printf '\nMarginal bytes per row between the two sizes: %s (expected %s for the buffered rows alone).\n\n' "$MARGINAL" "$((8 * (2 * D3 + 1)))"
		printf 'Threads of the backend (from /proc/<pid>/task; a plain backend has one):\n\n%s' "$THREAD_NOTES"
	} >>"$D5DET"
	cat "$D5DET"
fi

# ------------------------------------------------------------------ benchmark 6

# scikit-learn in the same server: a PL/Python function reads the training split with a cursor
# into numpy, fits, and returns the weights; the estimators' settings are spelled out (the
# defaults of scikit-learn 1.2 but for C, alpha, random_state), so that another version of
# scikit-learn runs the same problem
SK_FUNC=$(
	cat <<'EOF'
CREATE OR REPLACE FUNCTION bench_sklearn_fit(tbl text, estimator text, lam float8)
RETURNS jsonb LANGUAGE plpython3u AS $$
import json, sys, time, warnings
t0 = time.perf_counter()
import numpy as np
import sklearn
from sklearn.svm import LinearSVC
from sklearn.linear_model import SGDClassifier
t1 = time.perf_counter()
xs, ys = [], []
cur = plpy.cursor('SELECT mean, label FROM ' + plpy.quote_ident(tbl))
while True:
    rows = cur.fetch(10000)
    if not rows:
        break
    xs.append(np.array([r['mean'] for r in rows], dtype=np.float64))
    ys.append(np.array([r['label'] for r in rows], dtype=np.int32))
X, y = np.vstack(xs), np.concatenate(ys)
del xs, ys, rows
t2 = time.perf_counter()
n = X.shape[0]
if estimator == 'linearsvc':
    # 1/2 (|w|^2 + b^2) + C sum hinge, b the weight of a constant feature 1 (liblinear -s 3 -B 1)
    clf = LinearSVC(penalty='l2', loss='hinge', dual=True, C=1.0 / (lam * n),
                    fit_intercept=True, intercept_scaling=1.0, tol=1e-4, max_iter=1000,
                    random_state=0)
elif estimator == 'sgd':
    # alpha/2 |w|^2 + (1/n) sum hinge, b not regularized
    clf = SGDClassifier(loss='hinge', penalty='l2', alpha=lam, fit_intercept=True,
                        max_iter=1000, tol=1e-3, n_iter_no_change=5, learning_rate='optimal',
                        shuffle=True, average=False, random_state=0)
else:
    plpy.error('unknown estimator ' + estimator)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    clf.fit(X, y)
t3 = time.perf_counter()
# classes_ is sorted, so coef_ and intercept_ are for classes_[1] = +1
s = 1.0 if int(clf.classes_[1]) == 1 else -1.0
return json.dumps({'w': [s * float(v) for v in clf.coef_[0]], 'b': s * float(clf.intercept_[0]),
                   'rows': int(n), 'n_iter': int(np.max(clf.n_iter_)),
                   'import_s': t1 - t0, 'read_s': t2 - t1, 'fit_s': t3 - t2,
                   'warnings': sorted(set(str(w.category.__name__) for w in caught)),
                   'versions': 'scikit-learn %s, numpy %s, Python %s' % (
                       sklearn.__version__, np.__version__, sys.version.split()[0])})
$$;
EOF
)
SK_IMPORT="DO LANGUAGE plpython3u \$\$ import numpy, sklearn.svm, sklearn.linear_model \$\$;"
D6DET=$DETAILS/6
if want 6; then
	section "6. gsu.train(loss hinge) vs scikit-learn's LinearSVC and SGDClassifier in PL/Python"
	if ! psql_run "CREATE EXTENSION IF NOT EXISTS plpython3u; $SK_IMPORT" >"$WORK/b6.check" 2>&1; then
		B6_WHY=$(grep -m 1 -E 'ERROR|Error' "$WORK/b6.check" | cut -c1-200 || true)
		log "  skipped: install postgresql-plpython3-15 python3-sklearn (${B6_WHY:-plpython3u or sklearn is missing})"
		add_row 6 "skipped: install postgresql-plpython3-15 python3-sklearn" "-" "-" "-" "-" "${B6_WHY//|/\\|}"
	else
		psql_run "$SK_FUNC" >/dev/null
		show "6 tables: benchmark 2's split of t3 (not timed)" "$SPLIT_SHOW"
		show "6 the PL/Python function (not timed)" "CREATE EXTENSION IF NOT EXISTS plpython3u;
$SK_FUNC"
		SK_EST=(linearsvc sgd)
		SK_NAMES=("sklearn LinearSVC(loss='hinge', dual=True, C=1/(λℓ))" "sklearn SGDClassifier(loss='hinge', alpha=λ)")
		SK_COLD=("$SERIAL DROP TABLE IF EXISTS b6_linearsvc_cold;" "$SERIAL DROP TABLE IF EXISTS b6_sgd_cold;")
		SK_WARM=("$SERIAL DROP TABLE IF EXISTS b6_linearsvc_warm; $SK_IMPORT" "$SERIAL DROP TABLE IF EXISTS b6_sgd_warm; $SK_IMPORT")
		for e in 0 1; do
			Q_SK_COLD[e]="CREATE TABLE b6_${SK_EST[$e]}_cold AS SELECT bench_sklearn_fit('b2_train', '${SK_EST[$e]}', $LAMBDA) AS fit;"
			Q_SK_WARM[e]="CREATE TABLE b6_${SK_EST[$e]}_warm AS SELECT bench_sklearn_fit('b2_train', '${SK_EST[$e]}', $LAMBDA) AS fit;"
			show "6 ${SK_NAMES[$e]}, fresh session: Python and scikit-learn load in the statement (setup: ${SK_COLD[$e]})" "${Q_SK_COLD[$e]}"
			show "6 ${SK_NAMES[$e]}, scikit-learn already imported by the session (setup: ${SK_WARM[$e]})" "${Q_SK_WARM[$e]}"
		done
		# pg_gsu: benchmark 2's statements for newton (default) and pegasos, into tables of their own
		G6=(0 2)
		for k in 0 1; do
			SETUP_G6[k]="$SERIAL DROP TABLE IF EXISTS b6_gsu_$k;"
			Q_G6[k]="CREATE TABLE b6_gsu_$k AS SELECT gsu.train(mean, variance, label, '${GSU_OPTS[${G6[$k]}]}') AS model FROM b2_train;"
			show "6 ${GSU_NAMES[${G6[$k]}]} (setup: ${SETUP_G6[$k]})" "${Q_G6[$k]}"
		done
		declare -a T6_G0=() T6_G1=() T6_C0=() T6_W0=() T6_C1=() T6_W1=()
		for ((i = 1; i <= REPS; i++)); do
			T6_G0+=("$(sql_timed "${SETUP_G6[0]}" "${Q_G6[0]}" "$WORK/b6g")")
			T6_G1+=("$(sql_timed "${SETUP_G6[1]}" "${Q_G6[1]}" "$WORK/b6g")")
			T6_C0+=("$(sql_timed "${SK_COLD[0]}" "${Q_SK_COLD[0]}" "$WORK/b6s")")
			T6_W0+=("$(sql_timed "${SK_WARM[0]}" "${Q_SK_WARM[0]}" "$WORK/b6s")")
			T6_C1+=("$(sql_timed "${SK_COLD[1]}" "${Q_SK_COLD[1]}" "$WORK/b6s")")
			T6_W1+=("$(sql_timed "${SK_WARM[1]}" "${Q_SK_WARM[1]}" "$WORK/b6s")")
		done
		log "     runs (ms): ${GSU_NAMES[0]} ${T6_G0[*]} | ${GSU_NAMES[2]} ${T6_G1[*]}"
		log "     runs (ms): LinearSVC fresh ${T6_C0[*]} | imported ${T6_W0[*]} | SGDClassifier fresh ${T6_C1[*]} | imported ${T6_W1[*]}"
		M6_G=("$(median "${T6_G0[@]}")" "$(median "${T6_G1[@]}")")
		M6_C=("$(median "${T6_C0[@]}")" "$(median "${T6_C1[@]}")")
		M6_W=("$(median "${T6_W0[@]}")" "$(median "${T6_W1[@]}")")

		# evaluation (not timed), the same SQL for every model: benchmark 2's pg_temp functions
		show "6 evaluation functions (not timed; the same as benchmark 2's, for every model)" "$OBJ_SQL"
		{
			printf '| method | train time (ms, median of %d) | test accuracy | primal objective λ/2‖w‖² + (1/ℓ)Σ hinge on the training split (b not regularized) | notes |\n' "$REPS"
			printf '|---|---|---|---|---|\n'
		} >"$D6DET"
		declare -a G6_ACC=() G6_OBJ=()
		for k in 0 1; do
			IFS='|' read -r obj acc desc < <(psql_run "$OBJ_SQL SELECT pg_temp.hinge_objective(gsu.weights(model), gsu.bias(model), $LAMBDA), pg_temp.test_accuracy(gsu.weights(model), gsu.bias(model)), gsu.describe(model) FROM b6_gsu_$k;")
			printf '%s\n' "$desc" >"$WORK/b6desc"
			G6_ACC[k]=$acc G6_OBJ[k]=$obj
			printf '| %s, loss hinge, λ = %s | %s | %.4f | %.10f | %s passes, solver %s s (describe) |\n' \
				"${GSU_NAMES[${G6[$k]}]}" "$LAMBDA" "$(fmt_ms "${M6_G[$k]}")" "$acc" "$obj" \
				"$(jfield "$WORK/b6desc" '{training,passes}')" \
				"$(awk -v s="$(jfield "$WORK/b6desc" '{training,seconds}')" 'BEGIN { printf "%.2f", s }')" >>"$D6DET"
		done
		SK_EVAL_COLS="pg_temp.hinge_objective(w, b, $LAMBDA), pg_temp.test_accuracy(w, b), $LAMBDA / 2 * b * b,
       fit ->> 'n_iter', fit ->> 'import_s', fit ->> 'read_s', fit ->> 'fit_s', fit -> 'warnings', fit ->> 'versions'"
		declare -a SK_ACC=() SK_OBJ=()
		for e in 0 1; do
			for when in cold warm; do
				IFS='|' read -r obj acc breg iter t_imp t_read t_fit warn vers < <(psql_run "$OBJ_SQL SELECT $SK_EVAL_COLS
FROM (SELECT fit, (fit ->> 'b')::float8 AS b,
             ARRAY(SELECT v::float8 FROM jsonb_array_elements_text(fit -> 'w') WITH ORDINALITY AS u(v, k) ORDER BY k) AS w
      FROM b6_${SK_EST[$e]}_$when) AS z;")
				if [ "$when" = cold ]; then
					ms=${M6_C[$e]} label="fresh session (Python and scikit-learn load in the statement)"
					SK_ACC[e]=$acc SK_OBJ[e]=$obj SK_VERSIONS=$vers
				else
					ms=${M6_W[$e]} label="session that had imported scikit-learn"
				fi
				printf '| %s, %s | %s | %.4f | %.10f | %s iterations (n_iter_)%s; inside the function (last run): import %.0f ms, reading the table %.0f ms, fit %.0f ms%s |\n' \
					"${SK_NAMES[$e]}" "$label" "$(fmt_ms "$ms")" "$acc" "$obj" "$iter" \
					"$([ "$warn" = '[]' ] || printf ', warnings %s' "$warn")" \
					"$(awk -v s="$t_imp" 'BEGIN { print s * 1000 }')" "$(awk -v s="$t_read" 'BEGIN { print s * 1000 }')" \
					"$(awk -v s="$t_fit" 'BEGIN { print s * 1000 }')" \
					"$([ "$e" -ne 0 ] || printf '; its λ/2·b² = %.2e' "$breg")" >>"$D6DET"
			done
		done
		acc_note() { printf 'objective gsu %.8f vs sklearn %.8f; accuracy %.4f vs %.4f' "$1" "$2" "$3" "$4"; }
		add_row 6 "hinge λ=$LAMBDA training, ${GSU_NAMES[0]}" "$L × $D3" "${M6_G[0]}" "${SK_NAMES[0]}, fresh session" "${M6_C[0]}" \
			"$(acc_note "${G6_OBJ[0]}" "${SK_OBJ[0]}" "${G6_ACC[0]}" "${SK_ACC[0]}")"
		add_row 6 "hinge λ=$LAMBDA training, ${GSU_NAMES[0]}" "$L × $D3" "${M6_G[0]}" "${SK_NAMES[0]}, scikit-learn imported" "${M6_W[0]}" ""
		add_row 6 "hinge λ=$LAMBDA training, ${GSU_NAMES[0]}" "$L × $D3" "${M6_G[0]}" "${SK_NAMES[1]}, fresh session" "${M6_C[1]}" \
			"$(acc_note "${G6_OBJ[0]}" "${SK_OBJ[1]}" "${G6_ACC[0]}" "${SK_ACC[1]}")"
		add_row 6 "hinge λ=$LAMBDA training, ${GSU_NAMES[0]}" "$L × $D3" "${M6_G[0]}" "${SK_NAMES[1]}, scikit-learn imported" "${M6_W[1]}" ""
		add_row 6 "hinge λ=$LAMBDA training, ${GSU_NAMES[2]}" "$L × $D3" "${M6_G[1]}" "${SK_NAMES[1]}, scikit-learn imported" "${M6_W[1]}" \
			"$(acc_note "${G6_OBJ[1]}" "${SK_OBJ[1]}" "${G6_ACC[1]}" "${SK_ACC[1]}")"
		{
			printf '\n%s, in the server (plpython3u), with OPENBLAS_NUM_THREADS=1 in the server'"'"'s environment like pg_gsu. ' "$SK_VERSIONS"
			printf 'LinearSVC: penalty l2, loss hinge, dual coordinate descent (liblinear -s 3), C = 1/(λℓ) = %s, fit_intercept with intercept_scaling 1, i.e. the bias is the weight of a constant feature 1 and is regularized (½‖[w; b]‖² + C·Σ hinge = ℓC·(λ/2(‖w‖² + b²) + (1/ℓ)Σ hinge)), tol 1e-4, max_iter 1000, random_state 0. ' "$C"
			printf 'SGDClassifier: loss hinge, penalty l2, alpha = λ (its objective is alpha/2‖w‖² + (1/ℓ)Σ hinge, the bias not regularized, as pg_gsu), learning_rate optimal, max_iter 1000, tol 1e-3, n_iter_no_change 5, shuffle, no averaging, random_state 0. '
			printf 'The primal objectives above are pg_gsu'"'"'s (b not regularized) for every model, computed by the same SQL function from each model'"'"'s w and b; the test accuracy likewise (sign of wᵀx + b, 0 counted as +1).\n'
			printf 'A fresh session'"'"'s statement includes loading plpython3u and the Python interpreter, then importing numpy and scikit-learn; "scikit-learn imported" runs `%s` in the session before the timed statement.\n' "$SK_IMPORT"
		} >>"$D6DET"
		cat "$D6DET"
	fi
fi

# ================================================================== benchmark 7

# 7. The hinge matrix (issue #15): gsu.train(loss hinge) against liblinear-train -s 3 -B 1 -c C,
# C = 1/(λℓ), on every cell of λ × rows × label noise × dim. The data: features uniform in
# [-1, 1] from a hash of (seed, row, column), the class c = ±1 of a row shifting each of its
# features by c·0.04 (a class shift of 0.08 between the means), and the label c flipped for a
# fraction (the noise) of the rows, by a hash; a held-out test set of 10,000 rows of the same law.
# Times are end to end: pg_gsu's CREATE TABLE … AS SELECT gsu.train(…) against liblinear-train
# reading its text file (written by COPY, not timed), interleaved, medians of REPS. Both primal
# objectives are OUR objective (b free), from each model's w and b by the same SQL function.
if want 7; then
	section "7. hinge matrix: gsu.train(loss hinge) vs liblinear-train -s 3 -B 1"
	if [ "$MODE" = quick ]; then
		B7_SIZES=${GSU_BENCH7_SIZES:-40000x50}
		B7_NOISE=${GSU_BENCH7_NOISE:-5}
		B7_LAMBDAS=${GSU_BENCH7_LAMBDAS:-1e-2 1e-3 1e-4 1e-5}
	else
		B7_SIZES=${GSU_BENCH7_SIZES:-40000x50 40000x500 160000x50 160000x500}
		B7_NOISE=${GSU_BENCH7_NOISE:-0 5 20}
		B7_LAMBDAS=${GSU_BENCH7_LAMBDAS:-1e-2 1e-3 1e-4 1e-5}
	fi
	B7_SEED=${GSU_BENCH7_SEED:-7}
	B7_TEST=10000
	log "  cells: sizes (rows x dim) $B7_SIZES; label noise (%) $B7_NOISE; lambda $B7_LAMBDAS; seed $B7_SEED"
	D7DET=$DETAILS/7
	{
		printf '| λ | rows × dim | noise | pg_gsu (ms) | liblinear (ms) | ratio | objective pg_gsu | objective liblinear | test acc. pg_gsu | test acc. liblinear | time to liblinear'"'"'s accuracy (ms) | pg_gsu describe | liblinear |\n'
		printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
	} >"$D7DET"
	for size in $B7_SIZES; do
		n7=${size%x*}
		d7=${size#*x}
		for noise in $B7_NOISE; do
			gen7="DROP TABLE IF EXISTS b7_all, b7_train, b7_test;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE b7_all WITH (autovacuum_enabled = off) AS
SELECT i AS id, r.mean,
       CASE WHEN (f.h - floor(f.h)) < $noise / 100.0 THEN -c.c ELSE c.c END::int4 AS label
FROM generate_series(1, $n7 + $B7_TEST) AS i,
     LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS c) AS c,
     LATERAL (SELECT abs(sin(i::float8 * 91.3458::float8 + $B7_SEED::float8 * 7.77::float8)) * 47453.5453::float8 AS h) AS f,
     LATERAL (
       SELECT array_agg(2.0::float8 * (h1 - floor(h1)) - 1.0::float8 + c.c * 0.04::float8 ORDER BY j) AS mean
       FROM (SELECT j, abs(sin(i::float8 * 12.9898::float8 + j::float8 * 78.233::float8 + $B7_SEED::float8 * 3.1415::float8)) * 43758.5453::float8 AS h1
             FROM generate_series(1, $d7) AS j) AS a) AS r;
CREATE TABLE b7_train WITH (autovacuum_enabled = off) AS SELECT * FROM b7_all WHERE id <= $n7 ORDER BY id;
CREATE TABLE b7_test WITH (autovacuum_enabled = off) AS SELECT * FROM b7_all WHERE id > $n7 ORDER BY id;
DROP TABLE b7_all;
VACUUM (FREEZE, ANALYZE) b7_train, b7_test;"
			show "7 data: $n7 training rows × $d7, noise $noise % (+ $B7_TEST test rows; not timed)" "$gen7"
			t0=$(date +%s)
			psql_run "$gen7" >/dev/null
			prewarm b7_train b7_test
			exp7="COPY (SELECT t.label || ' ' || (SELECT string_agg(u.j || ':' || u.x, ' ' ORDER BY u.j) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)) FROM b7_train AS t ORDER BY t.id) TO '$WORK/b7train.svm';"
			psql_run "$exp7" >/dev/null
			[ "$(id -u)" -ne 0 ] || chmod a+r "$WORK"/b7train.svm
			log "   data and export: $(($(date +%s) - t0)) s"
			for lam in $B7_LAMBDAS; do
				C7=$(awk -v l="$n7" -v lam="$lam" 'BEGIN { printf "%.10g", 1 / (lam * l) }')
				# 160k × 500 rows are 640 MB in the buffer: over the default limit of 1 GB with the solver's share
				setup7="$SERIAL SET gsu.max_training_memory_ceiling = '4GB'; SET gsu.max_training_memory = '4GB'; DROP TABLE IF EXISTS b7_model;"
				q7="CREATE TABLE b7_model AS SELECT gsu.train(mean, NULL::float8[], label, '{\"lambda\": $lam, \"loss\": \"hinge\"}') AS model FROM b7_train;"
				ll7="liblinear-train -s 3 -c $C7 -B 1 $WORK/b7train.svm $WORK/b7model"
				show "7 pg_gsu, λ = $lam (setup: $setup7)" "$q7"
				show "7 liblinear, C = 1/(λℓ)" "$ll7"
				declare -a T7G=() T7L=()
				for ((i = 1; i <= REPS; i++)); do
					T7G+=("$(sql_timed "$setup7" "$q7" "$WORK/b7gsu")")
					# shellcheck disable=SC2086
					T7L+=("$(cmd_timed "$WORK/b7ll.out" $ll7)")
				done
				M7G=$(median "${T7G[@]}")
				M7L=$(median "${T7L[@]}")
				log "     λ $lam: runs (ms): pg_gsu ${T7G[*]} | liblinear ${T7L[*]}"
				obj7="CREATE OR REPLACE FUNCTION pg_temp.b7_objective(w float8[], b float8, lambda float8)
RETURNS float8 LANGUAGE sql STABLE AS \$\$
  SELECT lambda / 2 * (SELECT sum(v * v) FROM unnest(w) AS v)
       + avg(greatest(0.0, 1.0 - t.label * (b + (SELECT sum(u.x * w[u.j]) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)))))
  FROM b7_train AS t
\$\$;
CREATE OR REPLACE FUNCTION pg_temp.b7_accuracy(w float8[], b float8)
RETURNS float8 LANGUAGE sql STABLE AS \$\$
  SELECT avg((CASE WHEN b + (SELECT sum(u.x * w[u.j]) FROM unnest(t.mean) WITH ORDINALITY AS u(x, j)) >= 0
                   THEN 1 ELSE -1 END = t.label)::int)
  FROM b7_test AS t
\$\$;"
				IFS='|' read -r G7OBJ G7ACC G7DESC < <(psql_run "$obj7
SELECT pg_temp.b7_objective(gsu.weights(model), gsu.bias(model), $lam), pg_temp.b7_accuracy(gsu.weights(model), gsu.bias(model)),
       gsu.describe(model) -> 'training' FROM b7_model;")
				printf '%s\n' "$G7DESC" >"$WORK/b7desc"
				read -r FIRST7 RAW7 < <(awk '/^label /{ lab = $2 } /^w$/{ inw = 1; next } inw && NF { w = w (n++ ? "," : "") $1 } END { print lab, "{" w "}" }' "$WORK/b7model")
				IFS='|' read -r L7OBJ L7ACC < <(psql_run "$obj7
SELECT pg_temp.b7_objective(w, b, $lam), pg_temp.b7_accuracy(w, b)
FROM (SELECT s * raw[$((d7 + 1))] AS b,
             (SELECT array_agg(s * v ORDER BY k) FROM unnest(raw[1:$d7]) WITH ORDINALITY AS u(v, k)) AS w
      FROM (SELECT '$RAW7'::float8[] AS raw, CASE WHEN $FIRST7 = 1 THEN 1.0 ELSE -1.0 END::float8 AS s) AS m) AS z;")
				L7ITER=$(sed -n -E 's/.*#iter = ([0-9]+).*/\1/p' "$WORK/b7ll.out" | tail -n 1)
				L7WARN=$(grep -c -i 'WARNING' "$WORK/b7ll.out" || true)
				# time to liblinear's accuracy: pg_gsu's single configuration (the exact optimum)
				# when its test accuracy is within 0.5 point of liblinear's, else not reached
				TTA=$(awk -v a="$G7ACC" -v b="$L7ACC" -v t="$M7G" 'BEGIN { d = a - b; if (d >= -0.005) printf "%.1f", t; else print "not reached" }')
				R7=$(awk -v a="$M7G" -v b="$M7L" 'BEGIN { printf "%.2f", a / b }')
				printf '| %s | %s × %s | %s %% | %s | %s | **%s** | %.10f | %.10f | %.4f | %.4f | %s | %s passes, %s iterations, converged %s, gap %s, %.0f ms solver | %s iterations%s |\n' \
					"$lam" "$n7" "$d7" "$noise" "$(fmt_ms "$M7G")" "$(fmt_ms "$M7L")" "$R7" "$G7OBJ" "$L7OBJ" "$G7ACC" "$L7ACC" "$TTA" \
					"$(jfield "$WORK/b7desc" '{passes}')" "$(jfield "$WORK/b7desc" '{iterations}')" \
					"$(jfield "$WORK/b7desc" '{converged}')" "$(jfield "$WORK/b7desc" '{gap_estimate}')" \
					"$(awk -v s="$(jfield "$WORK/b7desc" '{seconds}')" 'BEGIN { print s * 1000 }')" \
					"${L7ITER:-?}" "$([ "$L7WARN" -gt 0 ] && echo ", max-iteration WARNING")" >>"$D7DET"
				tail -n 1 "$D7DET"
				add_row 7 "hinge λ=$lam, noise $noise %" "$n7 × $d7" "$M7G" "liblinear -s 3 -B 1 (reads its file)" "$M7L" \
					"objective gsu $(printf '%.8f' "$G7OBJ") vs liblinear $(printf '%.8f' "$L7OBJ"); accuracy $(printf '%.4f' "$G7ACC") vs $(printf '%.4f' "$L7ACC")"
			done
		done
	done
	psql_run "DROP TABLE IF EXISTS b7_train, b7_test, b7_model;" >/dev/null
fi

# ================================================================== results

T_END=$(date +%s)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
SO_MD5_END=$(so_sum)
CPU=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
GIT=$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo "?")
if [ -n "$(git -C "$REPO_DIR" status --porcelain -- src sql Makefile 2>/dev/null || true)" ]; then GIT="$GIT (with uncommitted changes in src/)"; fi

TABLE=$WORK/table.md
{
	printf '| bench | case | rows × dim | pg_gsu (ms) | baseline | baseline (ms) | ratio pg_gsu / baseline | notes |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	for b in 1 2 3 4 5 6 7; do [ ! -f "$ROWS/$b" ] || cat "$ROWS/$b"; done
} >"$TABLE"

{
	printf '# pg_gsu benchmark results (%s mode)\n\n' "$MODE"
	[ "$BENCHES" = "$ALL_BENCHES" ] || printf -- '- benchmarks run: %s (of %s)\n' "$BENCHES" "$ALL_BENCHES"
	printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	printf -- '- machine: %s CPUs (nproc), %s, %s GiB RAM, kernel %s\n' "$(nproc)" "$CPU" \
		"$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" "$(uname -r)"
	printf -- '- load average (1, 5, 15 min) at start: %s, at end: %s (the machine may be shared; the benchmarks do not run concurrently with each other)\n' "$LOAD_START" "$LOAD_END"
	printf -- '- PostgreSQL %s; pg_gsu %s, repository commit %s; installed pg_gsu.so md5 %s' "$PG_VERSION" "$GSU_VERSION" "$GIT" "$SO_MD5_START"
	[ "$SO_MD5_START" = "$SO_MD5_END" ] && printf '\n' || printf ' at start, %s at end (**re-installed during the run**)\n' "$SO_MD5_END"
	! { want 2 || want 7; } || printf -- '- liblinear-tools %s\n' "$(dpkg-query -W -f='${Version}' liblinear-tools 2>/dev/null || echo '?')"
	! want 6 || printf -- '- postgresql-plpython3-15 %s, python3-sklearn %s\n' \
		"$(dpkg-query -W -f='${Version}' postgresql-plpython3-15 2>/dev/null || echo '?')" \
		"$(dpkg-query -W -f='${Version}' python3-sklearn 2>/dev/null || echo '?')"
	printf -- '- total run time: %d s\n\n' "$((T_END - T_START))"
	printf '## Method\n\n'
	printf 'A throwaway cluster (shared_buffers 2GB, work_mem 64MB, jit off, autovacuum off, fsync off), started with OPENBLAS_NUM_THREADS=1 in its environment, pg_gsu in shared_preload_libraries and huge_pages=%s (the settings the README recommends; the second part of benchmark 4 runs without them). Tables are generated in SQL, deterministic, and loaded into shared buffers with pg_prewarm. ' "$HUGE"
	printf 'Every SQL timing is psql `\\timing` (client-side wall-clock time of one statement, over a Unix socket, one-row result) in a fresh session after its SET commands; '
	printf 'liblinear is timed by the shell around the command (so it includes reading its text file); scikit-learn runs inside the server, in a PL/Python function called by the timed statement. '
	printf 'Each timing is the median of %d runs, the two sides of a comparison interleaved. ' "$REPS"
	printf 'Benchmarks 1-3, 5 and 6 run serial plans (`%s`) on both sides; benchmark 4 compares that with `%s`.\n\n' "$SERIAL" "$PARALLEL"
	printf '## Ratios\n\n'
	cat "$TABLE"
	if want 1 && [ -f "$PASS_OUT" ]; then
		printf '\n## 1. In-memory passes vs the dgemv floor (`bash bench/pass_cost.sh "%s"`)\n\n```\n' "$PASS_SIZES"
		cat "$PASS_OUT"
		printf '```\n'
	fi
	if want 2; then
		printf '\n## 2. pg_gsu vs liblinear (train %s rows, test %s rows, %s dims)\n\n' "$L" "$LTEST" "$D3"
		cat "$D2DET"
	fi
	if want 7; then
		printf '\n## 7. Hinge matrix (sizes %s, noise %s %%, λ %s, seed %s; 10,000 test rows)\n\n' "$B7_SIZES" "$B7_NOISE" "$B7_LAMBDAS" "$B7_SEED"
		cat "$D7DET"
	fi
	if want 4; then
		printf '\n## 4. Parallel plans (EXPLAIN ANALYZE, one run each)\n\n```\n'
		cat "$PLANS"
		printf '```\n'
	fi
	if want 5; then
		printf '\n## 5. Peak backend memory, newton solver, diagonal variances\n\n'
		cat "$D5DET"
		printf '\nThe backend memory is read from /proc/<backend pid>/status by the shell (as root): RssAnon (private memory) is polled every 20 ms while the training runs; VmHWM (peak resident set) also counts the shared-buffer pages the backend touched while scanning (RssShmem), so its growth is shown minus the RssShmem growth.\n'
	fi
	if want 6 && [ -f "$D6DET" ]; then
		printf '\n## 6. pg_gsu vs scikit-learn in PL/Python (train %s rows, test %s rows, %s dims)\n\n' "$L" "$LTEST" "$D3"
		cat "$D6DET"
	fi
	printf '\n## Statements and commands\n\n'
	cat "$CMDS"
} >"$RESULTS"

log ""
log "== Ratios ($MODE mode; ms are medians of $REPS runs; bench 5 rows are bytes per row)"
cat "$TABLE"
log ""
log "results written to $RESULTS"
