#!/usr/bin/env bash
# The pg_gsu fuzzers: test/fuzz_types.py (mutated text, jsonb and binary input
# of the custom types, and every function on each value that loads) and
# test/fuzz_statements.py (the hostile-statement list test/fuzz_statements.sql
# and seeded generated statements). See docs/fuzzing.md.
#
# Usage: bash test/fuzz.sh [--quick | --long N] [--seed S]
#
#   --quick   (default) bounded: about a minute on 2 cores, seed 1, deterministic
#   --long N  N times as many cases, larger mutants (values at the 1,000,000
#             limits), statement_timeout 60 s: for runs by hand against a
#             server under valgrind or built with ASan (scripts/cluster.sh
#             GSU_WRAP / GSU_PRELOAD)
#   --seed S  another seed (GSU_FUZZ_SEED too)
#
# It uses the running cluster of PGHOST/PGPORT/PGUSER (a superuser; the server
# must share this machine's file system, for server-side COPY of the binary
# mutants), creates the database gsu_fuzz for each fuzzer and drops it after.
# A statement that ignores statement_timeout and pg_terminate_backend is
# reported and its backend killed with SIGKILL (GSU_FUZZ_NO_KILL=1 leaves it).
# Prints each failure with what reproduces it and ends with one
# `fuzz: N passed, M failed` line; exit status 1 when anything failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(--quick)
fi
if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
	echo "fuzz.sh: set PGHOST and PGPORT (eval \"\$(bash scripts/cluster.sh start)\")" >&2
	exit 2
fi

start=$(date +%s)
total_pass=0
total_fail=0
status=0
for f in fuzz_types.py fuzz_statements.py; do
	echo "== $f ${args[*]}"
	log=$(mktemp)
	python3 "$here/$f" "${args[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	out=$(tail -n 1 "$log")
	rm -f "$log"
	if [[ "$out" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		total_pass=$((total_pass + BASH_REMATCH[1]))
		total_fail=$((total_fail + BASH_REMATCH[2]))
	else
		echo "fuzz.sh: $f did not finish (exit $rc)" >&2
		total_fail=$((total_fail + 1))
	fi
	if [ "$rc" -ne 0 ]; then
		status=1
	fi
done
echo "fuzz.sh: $(($(date +%s) - start)) s"
echo "fuzz: $total_pass passed, $total_fail failed"
exit $status
