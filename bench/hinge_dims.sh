#!/usr/bin/env bash
# The hinge loss's solver dcd against the solver newton above 500 dimensions, where the shipped
# dcd hands the problem to newton (DCD_MAX_DIM in src/core/gsu_dcd.c): builds bench/hinge_dims.c
# against the core (src/core, no server needed) with that limit raised and the extension's
# optimization flags, and prints one table row per cell, to measure before the limit is raised.
#
# Usage: bash bench/hinge_dims.sh [CELLS]    CELLS: "ROWSxDIM:LAMBDA:NOISE ..."
#        (default "20000x1000:1e-3:0.05 20000x1000:1e-4:0.05 10000x2000:1e-3:0.05")
# Needs: gcc, libopenblas-dev, liblapacke-dev, libfftw3-dev (the build's own dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
CELLS=${1:-20000x1000:1e-3:0.05 20000x1000:1e-4:0.05 10000x2000:1e-3:0.05}
BIN=$(mktemp -d)/hinge_dims
trap 'rm -rf "$(dirname "$BIN")"' EXIT
# shellcheck disable=SC2046 # one word per source file
gcc -std=c11 -O3 ${OPTFLAGS--march=native} -Wall -Wextra -Werror -DDCD_MAX_DIM=1000000 -Isrc/core \
	-o "$BIN" bench/hinge_dims.c $(ls src/core/*.c) -lopenblas -llapacke -lfftw3 -lm
echo "pg_gsu bench/hinge_dims.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| rows × dim | λ | noise | dcd (s) | passes | objective | converged | newton (s) | passes | objective | converged | dcd / newton |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for c in $CELLS; do
	IFS=: read -r size lambda noise <<<"$c"
	OPENBLAS_NUM_THREADS=1 "$BIN" "${size%x*}" "${size#*x}" "$lambda" "$noise" || status=1
done
exit $status
