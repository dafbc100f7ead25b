#!/usr/bin/env bash
# Runs the C test programs of the core, each of which ends with a line
# "N passed, M failed", and prints the totals as "coretest: N passed, M failed".
# Usage: run_core_tests.sh [--valgrind] PROGRAM...
# With --valgrind each program runs under memcheck, GSU_VALGRIND_JOBS programs at a
# time (default 2: valgrind runs a program on one core); a program that passes prints
# nothing, a progress line with an estimate of the time left comes every minute
# (GSU_VALGRIND_PROGRESS seconds), a failing program prints its whole output, and the
# totals line is "valgrind-coretest: N passed, M failed".  Without it the programs run
# one after the other and print everything.
set -u
wrap=()
name=coretest
jobs=1
if [ "${1:-}" = "--valgrind" ]; then
	shift
	wrap=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet)
	name=valgrind-coretest
	jobs=${GSU_VALGRIND_JOBS:-2}
fi
outdir=$(mktemp -d)
ticker=""
trap '[ -z "$ticker" ] || kill "$ticker" 2>/dev/null; rm -rf "$outdir"' EXIT
start=$(date +%s)
total=$#

# run_one INDEX PROGRAM: the program's output in $outdir/INDEX.out, its exit status in
# $outdir/INDEX.rc (written last: the ticker counts the .rc files)
run_one() {
	local i=$1 t=$2 rc
	"${wrap[@]}" "$t" >"$outdir/$i.out" 2>&1
	rc=$?
	echo "$rc" >"$outdir/$i.rc"
}

# under valgrind: a ticker prints, every GSU_VALGRIND_PROGRESS seconds (default 60), how
# many programs are done and an estimate of the time left (programs left at the mean
# time per program so far)
if [ "${#wrap[@]}" -gt 0 ]; then
	every=${GSU_VALGRIND_PROGRESS:-60}
	(
		waited=0
		while sleep 5; do
			waited=$((waited + 5))
			[ "$waited" -ge "$every" ] || continue
			waited=0
			k=$(find "$outdir" -name '*.rc' | wc -l)
			now=$(date +%s)
			line="$name: $k/$total programs, $(((now - start + 30) / 60)) min so far"
			[ "$k" -eq 0 ] || line="$line, ~$((((now - start) * (total - k) / k + 59) / 60)) min left"
			echo "$line"
		done
	) &
	ticker=$!
fi

# at most $jobs programs at a time; the results are read in the given order below
i=0
for t in "$@"; do
	while [ "$(jobs -rp | grep -vx "${ticker:-none}" | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
	done
	run_one "$i" "$t" &
	i=$((i + 1))
done
for pid in $(jobs -rp); do
	[ "$pid" = "$ticker" ] || wait "$pid" 2>/dev/null || true
done

passed=0
failed=0
status=0
i=0
for t in "$@"; do
	out=$(cat "$outdir/$i.out" 2>/dev/null)
	rc=$(cat "$outdir/$i.rc" 2>/dev/null || echo 127)
	i=$((i + 1))
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
echo "$name: $total programs in $(($(date +%s) - start)) s"
echo "$name: $passed passed, $failed failed"
exit $status
