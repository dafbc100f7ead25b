#!/usr/bin/env bash
# From a fresh Debian bookworm machine to pg_gsu running, as root:
#
#   bash scripts/quickstart.sh demo   install, build, start a throwaway cluster, run the demo
#   bash scripts/quickstart.sh test   install, build, start a throwaway cluster, run every test
#
# Steps: install the Debian packages below that are missing (apt-get), build and
# install the extension (make clean, make, make install), start a private cluster
# with scripts/cluster.sh, run the demo or the tests, and stop the cluster at exit.
# `test` runs the check of META.json (test/meta_json.py), the C unit tests of the
# core (make coretest), the same under valgrind
# (make valgrind-coretest), the pg_regress suite (make installcheck), the demo and
# the README's worked example (they must run without error), checks of the
# backend's OpenBLAS, the TAP tests test/t/001_cancel.pl, test/t/002_memory_peak.pl and
# test/t/004_score_planning.pl
# (make tapcheck), the fuzzers in quick mode (test/fuzz.sh), the docs' examples (test/docs_examples.sh), the Python and
# Node.js clients as an ordinary role (test/clients.sh), the regress
# suite against a server under valgrind
# (scripts/valgrind-regress.sh), the multi-server test, the Debian package for
# PostgreSQL 15 (scripts/deb.sh: built only, not installed; this machine keeps
# `make install`) and PostgreSQL 17 in a Debian trixie root of its own (test/pg17.sh:
# its package built, installed and run through the regress suite), then prints
# "N passed, M failed" (one count per step) and exits non-zero if any step failed
# (a step's own count is named after it, "clients: N passed, M failed"; the steps pass
# or fail by their exit status, their output is not parsed).
# Each step has a share of the 45 minutes the suite may take on a quiet 2-core
# machine; a step over its share prints a WARNING (it does not fail).
#
# The demo installs only what the build and the demo need; `test` adds the test-only
# packages (valgrind, git, Debian's packaging tools, debootstrap, psycopg, numpy, node).
# The output of the set-up (apt-get, make, the cluster's start) goes to quickstart.log in
# the repository (git ignores it), shown only when a command fails. A test run leaves
# behind only that log, the build's files in the tree (git ignores them) and the cluster's
# directory: the valgrind run's cluster and logs are removed when it passes (kept, and
# named, when it fails), and so are the files the regress suite copies through /tmp.
#
# Environment: GSU_CLUSTER_DIR, GSU_PORT, GSU_PRELOAD, GSU_ENV (see scripts/cluster.sh);
# GSU_VALGRIND_DIR, GSU_VALGRIND_PORT: the valgrind run's cluster (default
# /tmp/pg_gsu_valgrind, port 54338).
set -euo pipefail
# no __pycache__ in the clone from the Python tests and examples
export PYTHONDONTWRITEBYTECODE=1

# What the demo needs (the build and the demo's data) ...
DEMO_PACKAGES=(
	postgresql-15            # the server, psql, initdb, pg_ctl (contrib is part of it)
	postgresql-server-dev-15 # headers and PGXS, to build the extension
	build-essential          # gcc, make
	libopenblas-dev          # BLAS for the numerical core (headers; the C tests link it)
	libopenblas0-serial      # the single-threaded OpenBLAS that pg_gsu.so links (Makefile)
	liblapacke-dev           # LAPACK's C interface
	libfftw3-dev             # FFTW, the transforms of gsu.welch (build; pg_gsu.so links libfftw3)
	python3-sklearn          # ships the demo's data: sklearn/datasets/data/breast_cancer.csv
	util-linux               # runuser, to run the server as postgres
)
# ... and what only the tests need (installed by `test` alone)
TEST_PACKAGES=(
	valgrind                  # make valgrind-coretest, scripts/valgrind-regress.sh
	git                       # scripts/deb.sh and test/pg17.sh copy the files git knows
	postgresql-server-dev-all # pg_buildext, to build the Debian package (debian/, scripts/deb.sh)
	debhelper                 # dh, for the Debian package
	dpkg-dev                  # dpkg-buildpackage, dpkg-deb
	debootstrap               # test/pg17.sh: a Debian trixie root for PostgreSQL 17
	python3-psycopg           # test/clients.sh, docs/clients.md: psycopg 3 ...
	python3-psycopg2          # ... psycopg2 ...
	python3-numpy             # ... and numpy arrays as parameters
	libipc-run-perl           # make tapcheck: PostgreSQL::Test::Cluster's TAP tests (test/t/)
)
PGBIN=/usr/lib/postgresql/15/bin
export PG_CONFIG="$PGBIN/pg_config"
DEMO_CSV=/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"

say() { printf '=== quickstart: %s\n' "$*"; }
die() {
	printf 'quickstart: error: %s\n' "$*" >&2
	exit 1
}

# The set-up's output (apt-get, the compiler, the cluster's start) goes to this file, not to
# the terminal; a command that fails shows its last lines. Overwritten by every run.
LOG="$REPO_ROOT/quickstart.log"

# quiet CMD...: CMD with its output appended to $LOG; on failure, its last 40 lines
quiet() {
	local from rc=0
	from=$(($(wc -l <"$LOG") + 1))
	printf '\n$ %s\n' "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "----- last lines of the output of: $*"
		tail -n +"$from" "$LOG" | tail -n 40
		echo "----- (all of it in $LOG)"
	fi
	return "$rc"
}

usage() {
	echo "usage: bash scripts/quickstart.sh demo|test" >&2
	exit 2
}

[ $# -eq 1 ] || usage
MODE=$1
case "$MODE" in
demo | test) ;;
*) usage ;;
esac

# a failure before the tests run: in test mode it still ends with the summary line
setup_failed() {
	printf 'quickstart: error: %s\n' "$*" >&2
	if [ "$MODE" = test ]; then
		stop_cluster
		echo "0 passed, 1 failed"
	fi
	exit 1
}

# ------------------------------------------------------------------ cluster
CLUSTER_STARTED=0
stop_cluster() {
	if [ "$CLUSTER_STARTED" -eq 1 ]; then
		CLUSTER_STARTED=0
		bash "$REPO_ROOT/scripts/cluster.sh" stop >>"$LOG" 2>&1 || true
	fi
}
# the files the regress suite's COPY tests write through /tmp as the server's user
# (sql/00_setup.sql's regress_file: /tmp/pg_gsu_regress_NAME_PORT.bin): the test run
# removes those of its own two servers, never another run's
remove_regress_files() {
	[ "$MODE" = test ] || return 0
	local port
	for port in "${GSU_PORT:-54329}" "${GSU_VALGRIND_PORT:-54338}"; do
		rm -f /tmp/pg_gsu_regress_*_"$port".bin
	done
}
at_exit() {
	stop_cluster
	remove_regress_files
}
trap at_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------------ packages
[ "$(id -u)" -eq 0 ] ||
	die "run this as root: it installs Debian packages and the extension (make install)"
: >"$LOG" || die "cannot write $LOG"

PACKAGES=("${DEMO_PACKAGES[@]}")
[ "$MODE" = demo ] || PACKAGES+=("${TEST_PACKAGES[@]}")
missing=()
for pkg in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)" != "ii " ]; then
		missing+=("$pkg")
	fi
done
# node and npm (test/clients.sh and docs/clients.md run node-postgres): Debian's, unless
# the machine has them already (a nodesource build of nodejs carries its own npm)
if [ "$MODE" = test ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
	missing+=(nodejs npm)
fi
say "output of the set-up (apt-get, make, the cluster's start) in $LOG"
if [ "${#missing[@]}" -gt 0 ]; then
	say "installing ${#missing[@]} Debian packages with their dependencies (a few minutes on a fresh machine): ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	quiet apt-get update || setup_failed "apt-get update failed"
	quiet apt-get install -y --no-install-recommends "${missing[@]}" ||
		setup_failed "apt-get install ${missing[*]} failed"
else
	say "the Debian packages needed are installed"
fi

# ------------------------------------------------------------------ build
say "building and installing pg_gsu (make clean && make && make install)"
JOBS=$(nproc 2>/dev/null || echo 2)
quiet make clean || setup_failed "make clean failed"
quiet make -j"$JOBS" || setup_failed "the build failed (make)"
quiet make install || setup_failed "make install failed"

# ------------------------------------------------------------------ cluster
say "starting a throwaway cluster (scripts/cluster.sh start, or reset for the tests)"
CLUSTER_STARTED=1
# the tests run with pg_gsu preloaded, as the README recommends for parallel queries (the
# valgrind run of the regress suite too: scripts/valgrind-regress.sh adds jit = off to
# GSU_CONF; the suite also passes with pg_gsu loaded on demand)
if [ "$MODE" = test ]; then
	export GSU_CONF="shared_preload_libraries = 'pg_gsu'"
fi
# the demo keeps the cluster's data (its tables are there to explore afterwards);
# the tests start from a fresh cluster
CLUSTER_CMD=start
[ "$MODE" = demo ] || CLUSTER_CMD=reset
quiet bash "$REPO_ROOT/scripts/cluster.sh" "$CLUSTER_CMD" || setup_failed "the cluster did not start"
# cluster.sh prints the export line on stdout, which went to the log with its messages
exports=$(grep '^export PGHOST=' "$LOG" | tail -n 1) || setup_failed "scripts/cluster.sh printed no environment line (see $LOG)"
eval "$exports"
export PGHOST PGPORT PGUSER
echo "$exports   (server log: ${GSU_CLUSTER_DIR:-/tmp/pg_gsu_cluster}/server.log)"

# ------------------------------------------------------------------ demo
if [ "$MODE" = demo ]; then
	[ -r "$DEMO_CSV" ] || die "$DEMO_CSV is missing (it comes with python3-sklearn)"
	say "running demo/breast_cancer.sql, then demo/worked_example.sql"
	rc=0
	"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -d postgres -f "$REPO_ROOT/demo/breast_cancer.sql" || rc=$?
	if [ "$rc" -eq 0 ]; then
		"$PGBIN/psql" -X -v ON_ERROR_STOP=1 -d postgres -f "$REPO_ROOT/demo/worked_example.sql" || rc=$?
	fi
	stop_cluster
	[ "$rc" -eq 0 ] || die "the demo failed (psql exit status $rc)"
	say "demo finished"
	exit 0
fi

# ------------------------------------------------------------------ tests
passed=0
failed=0
failed_steps=()
SUITE_START=$(date +%s)
step_times=()

# run_step NAME SHARE CMD...: one step of the suite, counted once, its time kept for the
# summary. SHARE is the step's budget in seconds: the measured time on a quiet 2-core
# machine with some headroom. The shares add up to 2500 s, which leaves 200 s of the
# 45 minutes for the set-up (packages, build); a step over its share prints a WARNING.
run_step() {
	local name=$1 share=$2 start rc=0 secs status=ok over=""
	shift 2
	say "step: $name"
	start=$(date +%s)
	"$@" || rc=$?
	secs=$(($(date +%s) - start))
	if [ "$secs" -gt "$share" ]; then
		over="  (over its share)"
		echo "quickstart: WARNING: step '$name' took $secs s, over its share of $share s"
	fi
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "--- $name: ok ($secs s of $share s)"
	else
		status=FAILED
		failed=$((failed + 1))
		failed_steps+=("$name")
		echo "--- $name: FAILED (exit status $rc, $secs s of $share s)"
	fi
	step_times+=("$(printf '%6d s  %6d s  %-7s %s%s' "$secs" "$share" "$status" "$name" "$over")")
}

installcheck() {
	rm -f "$REPO_ROOT/regression.diffs"
	if make installcheck; then
		return 0
	fi
	if [ -s "$REPO_ROOT/regression.diffs" ]; then
		echo "----- regression.diffs"
		cat "$REPO_ROOT/regression.diffs"
		echo "----- end of regression.diffs"
	fi
	return 1
}

# the demo and the README's worked example must keep running (their output is not compared)
demos() {
	"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -f "$REPO_ROOT/demo/breast_cancer.sql" >/dev/null &&
		"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -f "$REPO_ROOT/demo/worked_example.sql" >/dev/null
}

# META.json has PGXN's required fields and the extension's version
run_step "test/meta_json.py (META.json)" 5 python3 "$REPO_ROOT/test/meta_json.py"
run_step "make coretest" 170 make -s coretest
run_step "make valgrind-coretest" 250 make -s valgrind-coretest
run_step "make installcheck" 75 installcheck
run_step "demo and worked example" 15 demos
# a preloaded pg_gsu warns at start when OpenBLAS started threads in the postmaster;
# scripts/cluster.sh sets OPENBLAS_NUM_THREADS=1, so the log must not show it
preload_quiet() {
	local log=${GSU_CLUSTER_DIR:-/tmp/pg_gsu_cluster}/server.log
	if grep -F "OpenBLAS has started" "$log"; then
		return 1
	fi
	"$PGBIN/psql" -X -At -d postgres -c "SHOW shared_preload_libraries;" | grep -qx pg_gsu
}
run_step "preloaded pg_gsu, no OpenBLAS threads in the postmaster" 5 preload_quiet
# a backend that has run BLAS has one thread and maps only the single-threaded OpenBLAS
# (the pthread build starts threads that would inherit the backend's signal handling)
backend_serial_blas() {
	local out
	out=$("$PGBIN/psql" -X -At -v ON_ERROR_STOP=1 -d postgres <<-'SQL'
		CREATE EXTENSION IF NOT EXISTS pg_gsu;
		SELECT gsu.train(ARRAY[i % 3, i % 5]::float8[], ARRAY[0.1, 0.2], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)
			IS NOT NULL FROM generate_series(1, 100) i;
		SELECT 'threads ' || substring(pg_read_file('/proc/self/status') from 'Threads:\s+(\d+)');
		SELECT 'blas ' || coalesce(string_agg(DISTINCT l, ' '), 'none')
		FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\n') m, substring(m from '\S*(?:openblas|libblas\.|liblapack\.)\S*') l;
	SQL
	) || return 1
	echo "$out"
	grep -qx 'threads 1' <<<"$out" || return 1
	grep -q '^blas .*openblas-serial' <<<"$out" || return 1
	! grep '^blas' <<<"$out" | tr ' ' '\n' | grep -v -e '^blas$' -e 'openblas-serial/'
}
run_step "a backend runs the single-threaded OpenBLAS" 5 backend_serial_blas
# the portable build (no -march) carries AVX2 copies of its hot loops (GSU_HOT in
# src/core/gsu_base.h), and no copy contracts a*b+c into an FMA, so that every copy
# computes the bits the portable code does (x86-64 with GCC only; elsewhere one copy)
hot_clones() {
	local so=$REPO_ROOT/pg_gsu.so marked clones fma
	if [ "$(uname -m)" != x86_64 ] || ! gcc -dM -E -x c /dev/null | grep -q __GNUC__; then
		echo "not an x86-64 GCC build: one copy of each hot loop"
		return 0
	fi
	marked=$(cat "$REPO_ROOT"/src/*.c "$REPO_ROOT"/src/core/*.c | grep -c '^GSU_HOT ')
	clones=$(nm "$so" | grep -c '\.avx2$')
	fma=$(objdump -d --no-show-raw-insn "$so" | grep -cE 'vf(n)?m(add|sub)' || true)
	echo "functions marked GSU_HOT: $marked; AVX2 copies: $clones; FMA instructions: $fma"
	[ "$marked" -gt 0 ] && [ "$clones" -eq "$marked" ] && [ "$fma" -eq 0 ]
}
run_step "the hot loops' AVX2 copies, without FMA" 2 hot_clones
# TAP tests, each in a cluster of its own: statement_timeout and pg_cancel_backend stop
# every long computation within a second or so; trainings over gsu.max_training_memory are
# refused before the memory is taken, and huge feature maps score in little memory; then,
# against the same cluster, in a database of its own: the seeded fuzzers in quick mode
# (docs/fuzzing.md)
run_step "test/t/001_cancel.pl" 20 make -s tapcheck PROVE_TESTS=test/t/001_cancel.pl
run_step "test/t/002_memory_peak.pl" 20 make -s tapcheck PROVE_TESTS=test/t/002_memory_peak.pl
# without shared_preload_libraries, a session's first scoring query still gets its
# cross-joined model materialized in the parallel workers (gsu.score_support loads the hook)
run_step "test/t/004_score_planning.pl" 10 make -s tapcheck PROVE_TESTS=test/t/004_score_planning.pl
run_step "test/fuzz.sh --quick" 40 bash "$REPO_ROOT/test/fuzz.sh" --quick
# every sql block of README.md and docs/*.md runs as written; the README indexes every SQL object
run_step "test/docs_examples.sh" 25 bash "$REPO_ROOT/test/docs_examples.sh"
# psycopg 3, psycopg2 and node-postgres as an ordinary role, with the adapters of clients/
run_step "test/clients.sh" 40 bash "$REPO_ROOT/test/clients.sh"
# servers of their own: the regress suite against a server under valgrind (two files
# at a time), and training over three postgres_fdw shards
# (a cluster directory and port of its own, whatever GSU_CLUSTER_DIR says; removed when it
# passes: about 120 MB of cluster and logs)
VALGRIND_DIR=${GSU_VALGRIND_DIR:-/tmp/pg_gsu_valgrind}
valgrind_regress() {
	local rc=0
	GSU_CLUSTER_DIR=$VALGRIND_DIR GSU_PORT=${GSU_VALGRIND_PORT:-54338} \
		bash "$REPO_ROOT/scripts/valgrind-regress.sh" || rc=$?
	if [ "$rc" -eq 0 ]; then
		rm -rf "$VALGRIND_DIR" "$VALGRIND_DIR-logs"
	else
		echo "quickstart: the valgrind run's cluster and logs are kept in $VALGRIND_DIR and $VALGRIND_DIR-logs"
	fi
	return "$rc"
}
run_step "scripts/valgrind-regress.sh" 1380 valgrind_regress
run_step "test/t/003_multiserver.pl" 20 make -s tapcheck PROVE_TESTS=test/t/003_multiserver.pl
# the Debian package for this machine's PostgreSQL 15, built in a temporary copy of the
# tree and not installed (the cluster above runs the `make install` build)
package15() {
	local out rc=0
	out=$(mktemp -d /tmp/pg_gsu_package.XXXXXX) || return 1
	bash "$REPO_ROOT/scripts/deb.sh" "$out" || rc=$?
	rm -rf "$out"
	return "$rc"
}
run_step "scripts/deb.sh (the PostgreSQL 15 package, built only)" 60 package15
# PostgreSQL 17 in a Debian trixie root of its own (removed at exit): its package built
# there, installed with apt-get, CREATE EXTENSION and the whole regress suite against it;
# the time is mostly debootstrap's download and unpacking
run_step "test/pg17.sh (PostgreSQL 17 on trixie, from the package)" 360 bash "$REPO_ROOT/test/pg17.sh"

stop_cluster
remove_regress_files
echo
echo "quickstart: time per step (the whole suite should stay within 45 minutes on a quiet 2-core machine)"
printf '  %8s  %8s  %-7s %s\n' time share status step
printf '  %s\n' "${step_times[@]}"
total=$(($(date +%s) - SUITE_START))
printf '%8d s  total of the tests (set-up before them not counted)\n' "$total"
[ "$total" -le 2700 ] || echo "quickstart: WARNING: the tests took more than 45 minutes"
if [ "$failed" -gt 0 ]; then
	echo "quickstart: failed steps: ${failed_steps[*]}"
else
	echo "quickstart: every step passed"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
