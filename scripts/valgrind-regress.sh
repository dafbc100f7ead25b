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
longest="features geu_fit robust parallel options buffers security reliability class_weight geu_nn"
all=${REGRESS:-$(ls sql/*.sql | sed 's|^sql/||; s|\.sql$||' | tr '\n' ' ')}
order=()
for t in $longest $all; do
	[[ " $all " == *" $t "* && " ${order[*]} " != *" $t "* && "$t" != 00_setup ]] && order+=("$t")
done
pg_regress="$(dirname "$($PG_CONFIG --pgxs)")/../../src/test/regress/pg_regress"
regress_opts=(--inputdir=. --bindir="$($PG_CONFIG --bindir)" --dbname=contrib_regression)
out="$logs/regress"
rm -rf "$out"
mkdir -p "$out"
if ! "$pg_regress" "${regress_opts[@]}" --outputdir="$out/00_setup" --load-extension=pg_gsu 00_setup; then
	status=1
else
	export pg_regress out
	printf '%s\n' "${order[@]}" |
		xargs -P "$jobs" -I{} bash -c '"$pg_regress" "$@" --use-existing --outputdir="$out/{}" {} >"$out/{}.log" 2>&1 || echo "{}" >>"$out/failed"; grep -h "^test \|^ok \|^not ok " "$out/{}.log"' \
			_ "${regress_opts[@]}" || status=1
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
