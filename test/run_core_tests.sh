#!/usr/bin/env bash
# Runs the C test programs of the core, each of which ends with a line
# "N passed, M failed", and prints the totals as "coretest: N passed, M failed".
# Usage: run_core_tests.sh [--valgrind] PROGRAM...
# With --valgrind (some six minutes) each program runs under memcheck; a program
# that passes prints nothing, a progress line with an estimate of the time left
# comes every minute (GSU_VALGRIND_PROGRESS seconds), a failing program prints its
# whole output, and the totals line is "valgrind-coretest: N passed, M failed".
set -u
wrap=()
name=coretest
if [ "${1:-}" = "--valgrind" ]; then
	shift
	wrap=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet)
	name=valgrind-coretest
fi
passed=0
failed=0
status=0
start=$(date +%s)
n=0
# under valgrind: a ticker prints, every GSU_VALGRIND_PROGRESS seconds (default 60), how
# many programs are done, which one runs, and an estimate of the time left (programs
# left at the mean time per program so far); it reads the count and the name from $state
ticker=""
if [ "${#wrap[@]}" -gt 0 ]; then
	state=$(mktemp)
	echo "0 -" >"$state"
	every=${GSU_VALGRIND_PROGRESS:-60}
	total=$#
	(
		waited=0
		while sleep 5; do
			waited=$((waited + 5))
			[ "$waited" -ge "$every" ] || continue
			waited=0
			read -r k cur <"$state" || continue
			now=$(date +%s)
			line="$name: $k/$total programs, $(((now - start + 30) / 60)) min so far"
			[ "$k" -eq 0 ] || line="$line, ~$((((now - start) * (total - k) / k + 59) / 60)) min left"
			echo "$line ($cur running)"
		done
	) &
	ticker=$!
	trap 'kill "$ticker" 2>/dev/null; rm -f "$state"' EXIT
fi
for t in "$@"; do
	[ -z "$ticker" ] || echo "$n $(basename "$t")" >"$state"
	out=$("${wrap[@]}" "$t" 2>&1)
	rc=$?
	n=$((n + 1))
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ "${#wrap[@]}" -eq 0 ] || [ "$rc" -ne 0 ] || [ -z "$line" ] || [[ "$line" != *", 0 failed" ]]; then
		printf '%s\n' "$out" | sed "s|^|[$(basename "$t")] |"
	fi
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
echo "$name: $passed passed, $failed failed"
exit $status
