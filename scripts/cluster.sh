#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for trying and testing pg_gsu.
#
# Usage: bash scripts/cluster.sh start|reset|stop|status
#
#   start   start the cluster, keeping its data (restarting it if it runs, with the
#           settings and environment below); initdb a new one when there is none.
#           Prints `export PGHOST=... PGPORT=... PGUSER=postgres` on stdout (all
#           messages go to stderr), so that
#               eval "$(bash scripts/cluster.sh start)"
#           points psql and pg_regress at it
#   reset   the same, but wipe the cluster first: a fresh initdb (the test suite's)
#   stop    stop the cluster if it runs (its files and server.log are kept)
#   status  say whether it runs (and print the export line); exit 0 if it does, 3 if not
#
# The server listens only on a Unix socket inside the cluster directory (no TCP),
# runs with fsync off and logs to <dir>/server.log. PostgreSQL refuses to run as
# root, so when this script runs as root the cluster belongs to the `postgres` user.
#
# Environment:
#   GSU_CLUSTER_DIR  cluster directory               (default /tmp/pg_gsu_cluster)
#   GSU_PORT         port, i.e. the socket's name    (default 54329)
#   GSU_PG_BINDIR    PostgreSQL server binaries      (default /usr/lib/postgresql/15/bin)
#   GSU_PRELOAD      LD_PRELOAD for the server only, e.g. the ASan runtime
#                    (GSU_PRELOAD="$(gcc -print-file-name=libasan.so)") for an
#                    extension built with -fsanitize=address (an ASan runtime
#                    also gets a small stub preloaded that avoids a start-up
#                    deadlock in Debian's postgres: see add_asan_stub)
#   GSU_ENV          more environment for the server only, as space-separated
#                    NAME=value words, e.g. "ASAN_OPTIONS=detect_leaks=0 OPENBLAS_NUM_THREADS=1"
#   GSU_WRAP         a command the server runs under, as space-separated words,
#                    e.g. "valgrind --quiet --log-file=/tmp/vg.%p.log"
#   GSU_CONF         more postgresql.conf lines (rewritten at every start), e.g.
#                    "shared_preload_libraries = 'pg_gsu'" (scripts/quickstart.sh test
#                    runs the regress suite so)
#   GSU_START_TIMEOUT seconds to wait for the server to accept connections
#                    (default 60, or 600 with GSU_WRAP)
set -euo pipefail

CLUSTER_DIR=${GSU_CLUSTER_DIR:-/tmp/pg_gsu_cluster}
PORT=${GSU_PORT:-54329}
PGBIN=${GSU_PG_BINDIR:-/usr/lib/postgresql/15/bin}
DATA_DIR="$CLUSTER_DIR/data"
SOCKET_DIR="$CLUSTER_DIR/socket"
LOG_FILE="$CLUSTER_DIR/server.log"
WRAPPER="$CLUSTER_DIR/postgres-wrapper"
WRAPPER_PID="$CLUSTER_DIR/postgres-wrapper.pid"
ASAN_STUB="$CLUSTER_DIR/swift_demangle_stub.so"
MARKER="$CLUSTER_DIR/.pg_gsu_cluster"
SERVER_USER=postgres

say() { printf 'cluster: %s\n' "$*" >&2; }
die() {
	printf 'cluster: error: %s\n' "$*" >&2
	exit 1
}

usage() {
	echo "usage: bash scripts/cluster.sh start|reset|stop|status" >&2
	echo "  (environment: GSU_CLUSTER_DIR, GSU_PORT, GSU_PG_BINDIR, GSU_PRELOAD, GSU_ENV, GSU_WRAP, GSU_START_TIMEOUT)" >&2
	exit 2
}

# as_owner CMD...: run CMD as the cluster's owner (postgres when we are root),
# from inside the cluster directory so that no tool trips over an unreadable cwd
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$CLUSTER_DIR" && runuser -u "$SERVER_USER" -- "$@")
	else
		(cd "$CLUSTER_DIR" && "$@")
	fi
}

check_prerequisites() {
	if ! [[ "$PORT" =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1024 ] || [ "$PORT" -gt 65535 ]; then
		die "GSU_PORT must be a port number between 1024 and 65535, not '$PORT'"
	fi
	case "$CLUSTER_DIR" in
	/?*) ;;
	*) die "GSU_CLUSTER_DIR must be an absolute path below /, not '$CLUSTER_DIR'" ;;
	esac
	local tool
	for tool in initdb pg_ctl postgres; do
		[ -x "$PGBIN/$tool" ] ||
			die "$PGBIN/$tool not found: install postgresql-15 (apt-get install postgresql-15) or set GSU_PG_BINDIR"
	done
	if [ "$(id -u)" -eq 0 ]; then
		id -u "$SERVER_USER" >/dev/null 2>&1 ||
			die "user '$SERVER_USER' does not exist (the postgresql-15 package creates it)"
		command -v runuser >/dev/null 2>&1 || die "runuser not found (apt-get install util-linux)"
	fi
}

is_running() {
	[ -f "$DATA_DIR/postmaster.pid" ] || return 1
	as_owner "$PGBIN/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1
}

# the pid of the server this script started, if that process is still alive
# (the wrapper records its pid and then execs postgres, so the pid is the server's;
# this also finds a server that hangs before it writes postmaster.pid)
started_pid() {
	local pid cmdline
	[ -f "$WRAPPER_PID" ] || return 1
	pid=$(cat "$WRAPPER_PID" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[ -r "/proc/$pid/cmdline" ] || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	[[ "$cmdline" == *"$DATA_DIR"* ]] || return 1
	echo "$pid"
}

do_stop() {
	local pid stopped=0 waited=0
	if [ -d "$CLUSTER_DIR" ] && is_running; then
		say "stopping the server in $DATA_DIR"
		if as_owner "$PGBIN/pg_ctl" stop -D "$DATA_DIR" -m fast -w -t 120 >/dev/null ||
			as_owner "$PGBIN/pg_ctl" stop -D "$DATA_DIR" -m immediate -w -t 30 >/dev/null; then
			stopped=1
		else
			say "pg_ctl could not stop the server (see $LOG_FILE)"
		fi
	fi
	# after a clean stop the process can outlive its postmaster.pid for a while
	# (valgrind writing its report, say): wait for it before killing anything
	if [ "$stopped" -eq 1 ]; then
		while [ "$waited" -lt 120 ] && started_pid >/dev/null; do
			sleep 1
			waited=$((waited + 1))
		done
	fi
	if [ -d "$CLUSTER_DIR" ] && pid=$(started_pid); then
		say "killing the server process $pid, which did not stop or never got ready"
		kill -KILL "$pid" 2>/dev/null || true
		sleep 1
	fi
	if [ -d "$CLUSTER_DIR" ] && { is_running || started_pid >/dev/null; }; then
		die "the server in $DATA_DIR is still running"
	fi
	say "stopped ($CLUSTER_DIR)"
}

# refuse to wipe a directory that this script did not make
wipe() {
	if [ -e "$CLUSTER_DIR" ]; then
		[ -d "$CLUSTER_DIR" ] || die "$CLUSTER_DIR exists and is not a directory"
		if [ -n "$(ls -A "$CLUSTER_DIR")" ] && [ ! -f "$MARKER" ]; then
			die "$CLUSTER_DIR is not empty and was not made by this script; refusing to wipe it (set GSU_CLUSTER_DIR)"
		fi
		rm -rf "$CLUSTER_DIR"
	fi
}

# SERVER_ENV: the NAME=value words of GSU_ENV; SERVER_WRAP: the words of GSU_WRAP;
# PRELOAD: GSU_PRELOAD
SERVER_ENV=()
SERVER_WRAP=()
PRELOAD=""
START_TIMEOUT=60
parse_server_env() {
	local word lib
	if [ -n "${GSU_WRAP:-}" ]; then
		read -r -a SERVER_WRAP <<<"$GSU_WRAP"
		command -v "${SERVER_WRAP[0]}" >/dev/null 2>&1 ||
			die "GSU_WRAP runs ${SERVER_WRAP[0]}, which is not installed"
		START_TIMEOUT=600
	fi
	START_TIMEOUT=${GSU_START_TIMEOUT:-$START_TIMEOUT}
	[[ "$START_TIMEOUT" =~ ^[0-9]+$ ]] || die "GSU_START_TIMEOUT must be a number of seconds, not '$START_TIMEOUT'"
	# OpenBLAS starts a spinning helper thread in every backend unless told not to;
	# GSU_ENV may override it: a later word replaces an earlier one of the same NAME
	# in place, so each variable is set (and printed) once
	SERVER_ENV=(OPENBLAS_NUM_THREADS=1)
	if [ -n "${GSU_ENV:-}" ]; then
		local -a extra
		local i replaced
		read -r -a extra <<<"$GSU_ENV"
		for word in "${extra[@]}"; do
			[[ "$word" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
				die "GSU_ENV must be space-separated NAME=value words; '$word' is not one"
			replaced=0
			for i in "${!SERVER_ENV[@]}"; do
				if [ "${SERVER_ENV[$i]%%=*}" = "${word%%=*}" ]; then
					SERVER_ENV[i]=$word
					replaced=1
				fi
			done
			[ "$replaced" -eq 1 ] || SERVER_ENV+=("$word")
		done
	fi
	PRELOAD=${GSU_PRELOAD:-}
	for lib in ${PRELOAD//:/ }; do
		[ -e "$lib" ] || die "GSU_PRELOAD names $lib, which does not exist"
	done
}

# An ASan runtime preloaded into Debian's postgres deadlocks before main():
# libgpg-error's constructor calls bindtextdomain(), whose first malloc() starts
# ASan, whose start-up calls dlsym("swift_demangle") and then dlerror(), which
# translates the "undefined symbol" message with dcgettext() and so takes the
# gettext lock bindtextdomain() already holds. A stub swift_demangle (which
# returns NULL: "not a Swift name") makes that dlsym() succeed, so dlerror() has
# nothing to translate.
add_asan_stub() {
	case "$PRELOAD" in
	*libasan* | *clang_rt.asan*) ;;
	*) return 0 ;;
	esac
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null 2>&1 ||
		die "GSU_PRELOAD has an ASan runtime, which needs a C compiler for its start-up stub (apt-get install build-essential)"
	printf '%s\n' \
		'#include <stddef.h>' \
		'#include <stdint.h>' \
		'char *swift_demangle(const char *mangled, size_t len, char *out, size_t *out_len, uint32_t flags);' \
		'char *swift_demangle(const char *mangled, size_t len, char *out, size_t *out_len, uint32_t flags)' \
		'{ (void) mangled; (void) len; (void) out; (void) out_len; (void) flags; return NULL; }' \
		>"$CLUSTER_DIR/swift_demangle_stub.c"
	"$cc" -shared -fPIC -O2 -o "$ASAN_STUB" "$CLUSTER_DIR/swift_demangle_stub.c" ||
		die "could not build $ASAN_STUB"
	chmod 0755 "$ASAN_STUB"
	PRELOAD="$PRELOAD:$ASAN_STUB"
}

# The wrapper that pg_ctl starts instead of postgres: it records its pid, then
# execs postgres with SERVER_ENV and LD_PRELOAD (under SERVER_WRAP, if any), so
# that these reach the server (and the backends it forks) and nothing else.
# exec keeps the pid, so the recorded pid is the server's.
write_wrapper() {
	local -a env_words=("${SERVER_ENV[@]}")
	[ -z "$PRELOAD" ] || env_words+=("LD_PRELOAD=$PRELOAD")
	{
		echo '#!/bin/bash'
		echo '# written by scripts/cluster.sh'
		printf 'echo $$ > %q\n' "$WRAPPER_PID"
		printf 'exec env'
		if [ "${#env_words[@]}" -gt 0 ]; then
			printf ' %q' "${env_words[@]}"
		fi
		if [ "${#SERVER_WRAP[@]}" -gt 0 ]; then
			printf ' %q' "${SERVER_WRAP[@]}"
		fi
		printf ' %q "$@"\n' "$PGBIN/postgres"
	} >"$WRAPPER"
	chmod 0755 "$WRAPPER"
	[ "${#env_words[@]}" -eq 0 ] || say "server environment: ${env_words[*]}"
	[ "${#SERVER_WRAP[@]}" -eq 0 ] || say "server runs under: ${SERVER_WRAP[*]}"
}

# the settings this script owns, rewritten at every start (postgresql.conf includes the file)
write_conf() {
	cat >"$DATA_DIR/postgresql.gsu.conf" <<EOF
# ---- written by scripts/cluster.sh at every start: a private, throwaway test server
listen_addresses = ''
port = $PORT
unix_socket_directories = '$SOCKET_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
log_line_prefix = '%m [%p] %q%d '
EOF
	if [ -n "${GSU_CONF:-}" ]; then
		printf '%s\n' "$GSU_CONF" >>"$DATA_DIR/postgresql.gsu.conf"
	fi
	[ "$(id -u)" -ne 0 ] || chown "$SERVER_USER:" "$DATA_DIR/postgresql.gsu.conf"
	# last in postgresql.conf, so that its settings win
	grep -qx "include_if_exists = 'postgresql.gsu.conf'" "$DATA_DIR/postgresql.conf" ||
		printf "\ninclude_if_exists = 'postgresql.gsu.conf'\n" >>"$DATA_DIR/postgresql.conf"
}

# do_start FRESH: FRESH=1 wipes the cluster and runs initdb; FRESH=0 keeps the data
# of a cluster this script made
do_start() {
	local fresh=$1
	check_prerequisites
	parse_server_env
	if [ -d "$CLUSTER_DIR" ] && [ -f "$MARKER" ]; then
		if is_running || started_pid >/dev/null; then
			say "already running: restarting it"
			do_stop
		fi
	fi
	if [ "$fresh" -eq 0 ] && [ -f "$MARKER" ] && [ -f "$DATA_DIR/PG_VERSION" ]; then
		say "keeping the data in $DATA_DIR ('reset' starts a fresh cluster)"
	else
		wipe
		mkdir -p "$CLUSTER_DIR"
		touch "$MARKER"
		fresh=1
	fi
	mkdir -p "$SOCKET_DIR"
	add_asan_stub
	write_wrapper
	if [ "$(id -u)" -eq 0 ]; then
		chown -R "$SERVER_USER:" "$CLUSTER_DIR"
		runuser -u "$SERVER_USER" -- test -x "$CLUSTER_DIR" ||
			die "user '$SERVER_USER' cannot reach $CLUSTER_DIR (is a parent directory private?); set GSU_CLUSTER_DIR, e.g. under /tmp"
	fi
	chmod 0755 "$CLUSTER_DIR"

	if [ "$fresh" -eq 1 ]; then
		say "initdb $DATA_DIR"
		as_owner "$PGBIN/initdb" -D "$DATA_DIR" --auth=trust -U postgres \
			--encoding=UTF8 --no-locale --no-sync >"$CLUSTER_DIR/initdb.log" 2>&1 ||
			{
				cat "$CLUSTER_DIR/initdb.log" >&2
				die "initdb failed"
			}
	fi
	write_conf

	say "starting PostgreSQL on socket $SOCKET_DIR/.s.PGSQL.$PORT (log: $LOG_FILE)"
	if ! as_owner "$PGBIN/pg_ctl" start -D "$DATA_DIR" -l "$LOG_FILE" -w -t "$START_TIMEOUT" -p "$WRAPPER" >/dev/null; then
		echo "----- last lines of $LOG_FILE" >&2
		tail -n 30 "$LOG_FILE" >&2 || true
		echo "-----" >&2
		do_stop || true
		die "the server did not start"
	fi
	say "running; to use it:"
	echo "export PGHOST=$SOCKET_DIR PGPORT=$PORT PGUSER=postgres"
}

do_status() {
	if [ -d "$CLUSTER_DIR" ] && is_running; then
		say "running: socket $SOCKET_DIR/.s.PGSQL.$PORT, data $DATA_DIR, log $LOG_FILE"
		echo "export PGHOST=$SOCKET_DIR PGPORT=$PORT PGUSER=postgres"
		return 0
	fi
	if [ -d "$CLUSTER_DIR" ] && started_pid >/dev/null; then
		say "a server process runs but does not accept connections (see $LOG_FILE); 'stop' kills it"
		return 3
	fi
	say "not running ($CLUSTER_DIR)"
	return 3
}

[ $# -eq 1 ] || usage
case "$1" in
start) do_start 0 ;;
reset) do_start 1 ;;
stop) do_stop ;;
status) do_status ;;
*) usage ;;
esac
