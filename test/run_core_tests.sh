#!/usr/bin/env bash
# Runs the C test programs of the core, each of which ends with a line
# "N passed, M failed", and prints the totals the same way.
# Usage: run_core_tests.sh [--valgrind] PROGRAM...
set -u
wrap=()
if [ "${1:-}" = "--valgrind" ]; then
	shift
	wrap=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet)
fi
passed=0
failed=0
status=0
for t in "$@"; do
	out=$("${wrap[@]}" "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|[$(basename "$t")] |"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ -z "$line" ]; then
		echo "[$(basename "$t")] no summary line (exit $rc)"
		failed=$((failed + 1))
		status=1
		continue
	fi
	p=${line%% passed*}
	f=${line#*, }
	f=${f%% failed}
	passed=$((passed + p))
	failed=$((failed + f))
	[ "$rc" -eq 0 ] || status=1
done
[ "$failed" -eq 0 ] || status=1
echo "core: $passed passed, $failed failed"
exit $status
