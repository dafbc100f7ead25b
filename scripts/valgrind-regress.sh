#!/usr/bin/env bash
# The pg_regress suite against a PostgreSQL server running under valgrind
# (memcheck), with pg_gsu built without -march=native (valgrind does not
# decode AVX-512).
#
# Usage: bash scripts/valgrind-regress.sh   (as root or a user who may `make install`)
#
# PostgreSQL itself is not built for valgrind here, so memcheck also reports
# some of the server's own habits (WAL buffers written with padding bytes,
# invalidation messages other processes wrote into shared memory).  Those
# known ones are suppressed (scripts/valgrind.supp), JIT is off (loading
# llvmjit.so trips a glibc report), and the run fails on any other report
# whose own stack passes through pg_gsu (a gsu_* function or pg_gsu.so), on
# any process killed by a signal, and if the suite fails.  Afterwards the
# normal build is reinstalled.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_CONFIG=${PG_CONFIG:-pg_config}
export GSU_CLUSTER_DIR=${GSU_CLUSTER_DIR:-/tmp/pg_gsu_valgrind}
export GSU_PORT=${GSU_PORT:-54338}
logs="$GSU_CLUSTER_DIR-logs"
command -v valgrind >/dev/null || { echo "valgrind-regress: install valgrind" >&2; exit 1; }

cleanup() {
	# an early exit must not leave pg_regress jobs running into the reinstall below
	if [ -n "${xargs_pid:-}" ]; then kill "$xargs_pid" 2>/dev/null || true; fi
	bash scripts/cluster.sh stop >/dev/null 2>&1 || true
	make clean >/dev/null
	make >/dev/null && make install >/dev/null
}
trap cleanup EXIT

make clean >/dev/null
make OPTFLAGS="" >/dev/null
make OPTFLAGS="" install >/dev/null

rm -rf "$logs"
mkdir -p "$logs"
chmod 0777 "$logs"
# the server runs as postgres, which may not read this checkout: a copy beside the logs
install -m 0644 scripts/valgrind.supp "$logs/valgrind.supp"
export GSU_WRAP="valgrind --quiet --error-limit=no --num-callers=40 --leak-check=no --suppressions=$logs/valgrind.supp --log-file=$logs/vg.%p.log"
export GSU_ENV="OPENBLAS_NUM_THREADS=1"
export GSU_CONF="${GSU_CONF:+$GSU_CONF
}jit = off"
env_line=$(bash scripts/cluster.sh reset)
eval "$env_line"

status=0
# REGRESS="name ..." runs only those regress files. 00_setup first (it makes the
# database and the shared fixtures), then the rest GSU_VALGRIND_JOBS at a time (2: each
# valgrind'ed backend runs on one core; the files keep their objects in schemas of their
# own, so they share the database), the longest first so that the two lanes end together.
jobs=${GSU_VALGRIND_JOBS:-2}
longest="geu_fit robust parallel features fit_scans fit_parallel options buffers security reliability class_weight geu_nn stored_options"
all=${REGRESS:-$(ls sql/*.sql | sed 's|^sql/||; s|\.sql$||' | tr '\n' ' ')}
order=()
for t in $longest $all; do
	[[ " $all " == *" $t "* && " ${order[*]} " != *" $t "* && "$t" != 00_setup ]] && order+=("$t")
done
# progress NAME...: while the files run (xargs_pid), a line every GSU_VALGRIND_PROGRESS
# seconds (default 120): files done, time so far and an estimate of the time left. The
# estimate weighs each file by its time in a normal run (milliseconds on the project's
# 2-core machine, plus a constant for the valgrind'ed backends' start): the longest files
# run first, so counting files alone would promise too much too early. A file not in the
# table weighs as an average one. Rough: valgrind slows some files more than others.
progress() {
	local every=${GSU_VALGRIND_PROGRESS:-120} start now last total_w=0 done_w n_done left t w
	local -A weight=(
		[buffers]=3588 [calibrate]=1228 [canonical_zero]=307 [class_weight]=1924 [cv]=301
		[degenerate]=55 [equality]=180 [errors]=119 [explain]=1382 [features]=2734 [fit]=158
		[fit_access]=207 [fit_parallel]=960 [fit_scans]=3333 [geu_fit]=5411 [geu_nn]=1231 [geu_projection]=93
		[grid]=119 [memory_limits]=304 [memory_parallel]=668 [metrics]=471 [model_type]=302
		[moments]=632 [moments_image]=848 [multiclass]=132 [options]=2338 [parallel]=4352
		[partial]=1398 [psvm]=94 [reliability]=739 [robust]=3655 [scoring]=1138 [security]=174
		[standardize]=958 [stored_options]=1136 [subspace]=56 [train]=402 [untyped]=26 [upgrade]=1318
		[value_caches]=32 [welch]=272
	)
	for t in "$@"; do
		w=${weight[$t]:-1000}
		weight[$t]=$((w + 1500))
		total_w=$((total_w + w + 1500))
	done
	start=$(date +%s)
	last=$start
	echo "valgrind-regress: $# files, $jobs at a time under valgrind (a progress line every $every s; each file's output in $out/NAME.log)"
	while kill -0 "$xargs_pid" 2>/dev/null; do
		sleep 5
		now=$(date +%s)
		[ $((now - last)) -ge "$every" ] || continue
		last=$now
		n_done=0
		done_w=0
		if [ -s "$out/done" ]; then
			while read -r t; do
				n_done=$((n_done + 1))
				done_w=$((done_w + ${weight[$t]:-2500}))
			done <"$out/done"
		fi
		if [ "$done_w" -gt 0 ] && [ "$done_w" -lt "$total_w" ]; then
			left=$(((now - start) * (total_w - done_w) / done_w))
			echo "valgrind-regress: $n_done/$# files, $(((now - start + 30) / 60)) min so far, ~$(((left + 59) / 60)) min left"
		else
			echo "valgrind-regress: $n_done/$# files, $(((now - start + 30) / 60)) min so far"
		fi
	done
}

pg_regress="$(dirname "$($PG_CONFIG --pgxs)")/../../src/test/regress/pg_regress"
regress_opts=(--inputdir=. --bindir="$($PG_CONFIG --bindir)" --dbname=contrib_regression)
out="$logs/regress"
rm -rf "$out"
mkdir -p "$out"
if ! "$pg_regress" "${regress_opts[@]}" --outputdir="$out/00_setup" --load-extension=pg_gsu 00_setup >"$out/00_setup.log" 2>&1; then
	cat "$out/00_setup.log"
	cat "$out/00_setup/regression.diffs" 2>/dev/null || true
	echo "valgrind-regress: 00_setup FAILED"
	status=1
else
	export pg_regress out
	# each file's pg_regress output goes to $out/NAME.log; a failure is printed when it
	# happens, and a progress line with an estimate of the time left every few minutes
	printf '%s\n' "${order[@]}" |
		xargs -P "$jobs" -I{} bash -c '"$pg_regress" "$@" --use-existing --outputdir="$out/{}" {} >"$out/{}.log" 2>&1 ||
			{ echo "{}" >>"$out/failed"; echo "valgrind-regress: {} FAILED (its diffs follow at the end)"; }
			echo "{}" >>"$out/done"' \
			_ "${regress_opts[@]}" &
	xargs_pid=$!
	progress "${order[@]}"
	wait "$xargs_pid" || status=1
	if [ -s "$out/failed" ]; then
		status=1
		for t in $(cat "$out/failed"); do
			echo "----- $t"
			cat "$out/$t/regression.diffs" 2>/dev/null || cat "$out/$t.log"
		done
	fi
fi

# One file per process.  Every line starts with "==pid==", and a report ends
# at a line that holds nothing else; each report is judged on its own lines
# (its stack, and where the bad memory came from), not on its neighbours'.
bad=0
for f in "$logs"/vg.*.log; do
	[ -s "$f" ] || continue
	if awk '
		function judge() {
			if (block != "" && (block ~ /(gsu_|pg_gsu\.so)/ || block ~ /Process terminating with default action/)) {
				printf "%s\n", block
				found = 1
			}
			block = ""
		}
		BEGIN { found = 0; block = "" }
		/^==[0-9]+== *$/ { judge(); next }
		{ block = block $0 "\n" }
		END { judge(); exit found ? 0 : 1 }' "$f"; then
		echo "valgrind-regress: report in $f (above)" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] || status=1
if [ "$status" -eq 0 ]; then
	echo "valgrind-regress: clean ($(ls "$logs"/vg.*.log | wc -l) server processes checked)"
fi
exit "$status"
