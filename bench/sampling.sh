#!/usr/bin/env bash
# Reproduces the SVM-GSU paper's sampling experiment (Tzelepis, Mezaris & Patras, TPAMI
# 2018, Sect. 4.1, Figs. 3 and 4) inside PostgreSQL with pg_gsu: a linear SVM trained on
# N samples of every training Gaussian (LSVM-sampling), against LSVM-GSU trained on the
# Gaussians themselves, as N grows from 1 to 10^5, in 2-D and 3-D. Not part of CI.
# Results and how they compare with the paper: docs/reproduce.md.
#
#   bash bench/sampling.sh
#
# Writes bench/sampling-results.md (OUT; the angle between the two hyperplanes' normals per N:
# mean, minimum and maximum over REPS samplings), the per-run rows
# bench/sampling-runs.tsv (RUNS_OUT), and draws bench/sampling_fig3.svg (FIG3) (2-D: the Gaussians, LSVM,
# LSVM-GSU and LSVM-sampling at N = 10, 100, 1000) and bench/sampling_fig4.svg (FIG4; the
# angle against N, 2-D and 3-D, beside the paper's 1.7 degrees at N = 10^3 in 2-D and
# 5 * 10^4 in 3-D) with bench/sampling_figures.py (needs python3-matplotlib).
#
# Settings (environment): DIMS ('{2,3}'), PER_CLASS (10 Gaussians per class), LAMBDA
# (0.01, every model), NS (the sample sizes), REPS (5 samplings per N), SEED (1), SPREAD
# (1.0: the scale of the covariance factors' entries) and OFFSET (1: class y's means are
# centred at y * (1, ..., 1)); bench/sampling.sql describes the toy data.
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there); otherwise it starts a throwaway cluster with scripts/cluster.sh in
# $GSU_CLUSTER_DIR (default /tmp/pg_gsu_sampling, port $GSU_PORT, default 54455) and
# stops it at exit. It creates (and drops first) the database $SAMPLING_DB (default
# sampling_bench).
set -euo pipefail
cd "$(dirname "$0")/.."

DIMS=${DIMS:-'{2,3}'}
PER_CLASS=${PER_CLASS:-10}
LAMBDA=${LAMBDA:-0.01}
NS=${NS:-'{1,2,5,10,20,50,100,200,500,1000,2000,5000,10000,20000,50000,100000}'}
REPS=${REPS:-5}
SEED=${SEED:-1}
SPREAD=${SPREAD:-1.0}
OFFSET=${OFFSET:-1}
DB=${SAMPLING_DB:-sampling_bench}
OUT=${OUT:-bench/sampling-results.md}
RUNS_OUT=${RUNS_OUT:-bench/sampling-runs.tsv}
FIG3=${FIG3:-bench/sampling_fig3.svg}
FIG4=${FIG4:-bench/sampling_fig4.svg}
PSQL=${PSQL:-psql}
SETTINGS="DIMS=$DIMS PER_CLASS=$PER_CLASS LAMBDA=$LAMBDA NS=$NS REPS=$REPS SEED=$SEED SPREAD=$SPREAD OFFSET=$OFFSET"

. bench/common.sh
bench_server /tmp/pg_gsu_sampling 54455
bench_start
echo "command: bash bench/sampling.sh ($SETTINGS), server ${PGHOST:-}:${PGPORT:-}, $START" >&2

$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -d "$DB" -v dims="$DIMS" -v per_class="$PER_CLASS" -v lambda="$LAMBDA" -v ns="$NS" \
	-v reps="$REPS" -v seed="$SEED" -v spread="$SPREAD" -v offset="$OFFSET" -f bench/sampling.sql

TOY=$(mktemp)
BENCH_TEMP_FILES+=("$TOY")
$PSQL -X -q -d "$DB" -c "\\copy (SELECT dim, n, rep, angle, lsvm_angle, w, b, rows, seconds FROM sampling_runs ORDER BY dim, n, rep) TO '$RUNS_OUT' WITH (FORMAT csv, DELIMITER E'\\t', HEADER)"
$PSQL -X -q -d "$DB" -c "\\copy (SELECT 'toy' AS kind, dim, label, mean, cov, NULL::float8[] AS w, NULL::float8 AS b FROM toy WHERE dim = 2 UNION ALL SELECT method, dim, NULL, NULL, NULL, gsu.weights(model), gsu.bias(model) FROM toy_models) TO '$TOY' WITH (FORMAT csv, DELIMITER E'\\t', HEADER)"
SECONDS_TOTAL=$(($(date +%s) - T0))
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "# SVM-GSU Figs. 3-4: LSVM-sampling against LSVM-GSU"
	echo
	echo "Command \`bash bench/sampling.sh\` ($SETTINGS), commit $COMMIT$DIRTY, $START, $SECONDS_TOTAL s,"
	echo "load average $LOAD0 at the start and $LOAD1 at the end, $(nproc) CPUs."
	echo
	/usr/bin/python3 bench/sampling_figures.py "$RUNS_OUT" "$TOY" "$FIG3" "$FIG4"
} | tee "$OUT"
