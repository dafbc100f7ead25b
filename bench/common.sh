# bench/common.sh — sourced by the benchmark scripts (bench/*.sh) from the repository root:
# the server a run uses and the facts its report starts with.

# bench_server DIR PORT: the server in PGHOST/PGPORT when either is set (pg_gsu must be
# installed there); otherwise a throwaway cluster started with scripts/cluster.sh in
# $GSU_CLUSTER_DIR (default DIR) on $GSU_PORT (default PORT), stopped at exit. Files
# named in the array BENCH_TEMP_FILES are removed at exit too.
BENCH_TEMP_FILES=()
BENCH_OWN_CLUSTER=
bench_exit() {
	rm -f "${BENCH_TEMP_FILES[@]}"
	if [ -n "$BENCH_OWN_CLUSTER" ]; then bash scripts/cluster.sh stop || true; fi
}
bench_server() {
	trap bench_exit EXIT
	if [ -z "${PGHOST:-}" ] && [ -z "${PGPORT:-}" ]; then
		export GSU_CLUSTER_DIR=${GSU_CLUSTER_DIR:-$1}
		export GSU_PORT=${GSU_PORT:-$2}
		BENCH_OWN_CLUSTER=1
		eval "$(bash scripts/cluster.sh reset)"
	fi
}

# bench_start: START (UTC), LOAD0 (the load averages), T0 (epoch seconds), COMMIT and
# DIRTY (' (with uncommitted changes)' or empty) of the run that begins now
bench_start() {
	START=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
	LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	T0=$(date +%s)
	COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	DIRTY=
	if git status --porcelain --untracked-files=no 2>/dev/null | grep -q .; then
		DIRTY=' (with uncommitted changes)'
	fi
}
