#!/usr/bin/env bash
# The cost of one in-memory pass of the default solver of the GSU loss against the floor
# of a pass that only reads the buffered rows (issue #15, goal 2): builds bench/pass_cost.c
# against the core (src/core, no server needed) with the extension's optimization flags and
# runs it on generated rows with diagonal variances. See bench/pass_cost.c for what is timed.
#
# Usage: bash bench/pass_cost.sh [SIZES]    SIZES: "ROWSxDIM ..." (default "100000x50 20000x500")
# Needs: gcc, libopenblas-dev, liblapacke-dev, libfftw3-dev (the build's own dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-100000x50 20000x500}
BIN=$(mktemp -d)/pass_cost
trap 'rm -rf "$(dirname "$BIN")"' EXIT
# shellcheck disable=SC2046 # one word per source file
gcc -std=c11 -O3 ${OPTFLAGS--march=native} -Wall -Wextra -Werror -Isrc/core -o "$BIN" \
	bench/pass_cost.c $(ls src/core/*.c) -lopenblas -llapacke -lfftw3 -lm
echo "pg_gsu bench/pass_cost.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SIZES; do
	echo
	OPENBLAS_NUM_THREADS=1 "$BIN" "${s%x*}" "${s#*x}" 1e-4
done
