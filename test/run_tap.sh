#!/usr/bin/env bash
# Runs TAP tests (test/t/*.pl, PostgreSQL::Test::Cluster) with prove; `make tapcheck`
# calls it.  Usage: run_tap.sh BINDIR PERL_LIB TEST...
# BINDIR (the PostgreSQL whose initdb, postgres and psql the tests run) goes first in
# PATH, PERL_LIB is PGXS's src/test/perl.  Clusters, data and logs go under
# $TESTDIR/tmp_check (TESTDIR: the current directory).  As root (initdb refuses root)
# the tests run as TAP_USER (postgres) from a copy in a temporary directory under /tmp
# that the user owns (the checkout may sit in a directory the user cannot reach); it is
# removed when the tests pass and kept, with its logs, when they fail.
# PROVE_FLAGS (e.g. --verbose) is passed to prove; PG_REGRESS (PGXS's pg_regress, which
# PostgreSQL::Test::Cluster runs to set up a node's authentication) to the tests.
set -u
bindir=$1 perllib=$2
shift 2
[ $# -gt 0 ] || { echo "run_tap.sh: no test to run" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
	rm -rf tmp_check && mkdir -p tmp_check || exit 2
	# shellcheck disable=SC2086 # PROVE_FLAGS: several words
	exec env TESTDIR="$PWD" PG_REGRESS="${PG_REGRESS:-}" PATH="$bindir:$PATH" prove -I "$perllib" ${PROVE_FLAGS:-} "$@"
fi
user=${TAP_USER:-postgres}
dir=$(mktemp -d /tmp/pg_gsu_tap.XXXXXX) || exit 2
mkdir -p "$dir/t" "$dir/tmp_check" && cp "$@" "$dir/t/" && chown -R "$user:" "$dir" || exit 2
tests=()
for t in "$@"; do tests+=("t/$(basename "$t")"); done
rc=0
# shellcheck disable=SC2086
(cd "$dir" && runuser -u "$user" -- env TESTDIR="$dir" PG_REGRESS="${PG_REGRESS:-}" PATH="$bindir:$PATH" \
	prove -I "$perllib" ${PROVE_FLAGS:-} "${tests[@]}") || rc=$?
if [ "$rc" -eq 0 ]; then
	rm -rf "$dir"
else
	echo "run_tap.sh: the tests' clusters and logs are kept in $dir/tmp_check" >&2
fi
exit "$rc"
