#!/usr/bin/env bash
# Reproduces the Cancer rows of the GEU paper's Tables 1 and 2 (Laakom, Raitoharju,
# Passalis, Iosifidis & Gabbouj, "Graph Embedding with Data Uncertainty", IEEE Access
# 2022, Sect. IV) inside PostgreSQL with pg_gsu, at the paper's three noise levels, with
# its 10 repetitions: LDA, RLDA, GEU-LDA-U, GEU-LDA-S (Table 2) and MFA, RMFA, GEU-MFA-U,
# GEU-MFA-S (Table 1), mean and standard deviation over the repetitions beside the
# paper's averages. Everything after reading the CSV is SQL: bench/geu_table2.sql.
#
#   bash bench/geu_table2.sh                                   # its own cluster
#   PGHOST=/tmp/cl PGPORT=5432 bash bench/geu_table2.sh        # a running server
#
# Writes $OUT (default bench/geu_table2-results.md) and the per-fold rows $RUNS_OUT
# (default bench/geu_table2-runs.tsv); TAG=x names them geu_table2-results-x.md and
# geu_table2-runs-x.tsv instead.
#
# Settings (environment): RUNS (10 repetitions), FIRST_RUN (1), NOISES ('{0,0.1,0.2}'),
# METHODS (the eight of the paper's tables; also RLDA-both, RMFA-both: εI on both
# scatter matrices, pg_gsu's form before 0.2.0's "regularize" option), K1 (5), K2 (40)
# (MFA's neighbourhoods), NOISE_KIND (sd), DIR_SCALE (unit: pg_gsu's directions as they
# are, of unit S_t-norm for LDA; paper: LDA directions rescaled to unit norm in the paper's
# penalty matrix S_b + εI (+ its GEU term), v/√(1 − μ), as a generalized eigensolver on the
# paper's matrices returns them; 1-NN distances differ for d ≥ 2).
#
# Protocol (the paper's words in quotes; where it is silent, our choice, marked *):
#  * Data: the Wisconsin diagnostic breast cancer set, 569 rows, 30 features (the paper's
#    "32 features" count the id and the diagnosis), from Debian's python3-sklearn.
#  * "random 5-fold split ... We keep the folds fixed for the different methods": per
#    repetition r, row i's outer fold is its rank in md5('outer r i') mod 5 (not
#    stratified), the same for every method and every noise level.
#  * "additional noise" 0 %, 10 %, 20 %: the paper does not define it. * We add
#    p · sd_j · z_rij to feature j of every row (training and test), sd_j the feature's
#    standard deviation over the 569 rows, z_rij a standard normal draw fixed per
#    (repetition, row, feature) (so 20 % is 10 %'s noise doubled). NOISE_KIND=rel uses
#    p · |x_ij| · z_rij (noise relative to each value) instead.
#  * * Features are standardized with the mean and sample standard deviation of the
#    outer training part (after the noise).
#  * "we cross-validate for the value of σ from {0.001, 0.1, 0.2, 0.4, 0.8, 1, 2} and for
#    the projection space dimension d from {1, 2, 4, 8}": * an inner 5-fold cross-
#    validation on the outer training part; RLDA and RMFA tune their ε over the same grid
#    (* the paper does not give ε's grid); ties go to the smaller d, then the smaller σ or
#    ε; a setting counts only if all five inner fits are solvable.
#  * Uncertainty (Sect. III-B, eq. 21): Σ_i = σ·diag(x_i − x_i*)², x_i* the nearest other
#    training row (U) or the nearest other training row of i's class (S):
#    gsu.nn_variance on the (standardized) training part; test rows are projected by
#    their means ("we use the latter [the mean] in the classification step").
#  * RLDA, RMFA: "S̃_b = X L^p Xᵀ + εI" (Sect. III-A), εI on the penalty scatter only:
#    gsu.geu_fit's "regularize": "penalty".
#  * * MFA's k1 = 5, k2 = 40 (the paper does not give them; k2 = 20 leaves plain MFA's
#    penalty scatter singular on this data).
#  * "we rely on Nearest Neighbor for the classification": 1-NN (Euclidean) in the
#    projected space, trained on the outer training part; the metric is the accuracy on
#    the outer test fold; a repetition's accuracy is the mean over its 5 folds, and the
#    table gives the mean and standard deviation of the 10 repetitions' accuracies.
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there); otherwise it starts a throwaway cluster with scripts/cluster.sh in
# $GSU_CLUSTER_DIR (default /tmp/pg_gsu_geu, port $GSU_PORT, default 54457) and stops it
# at exit. It creates (and drops first) the database $GEU_BENCH_DB (default geu_table2).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh

CSV=${CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv}
DB=${GEU_BENCH_DB:-geu_table2}
RUNS=${RUNS:-10}
FIRST_RUN=${FIRST_RUN:-1}
NOISES=${NOISES:-'{0,0.1,0.2}'}
METHODS=${METHODS:-'{LDA,RLDA,GEU-LDA-U,GEU-LDA-S,MFA,RMFA,GEU-MFA-U,GEU-MFA-S}'}
K1=${K1:-5}
K2=${K2:-40}
NOISE_KIND=${NOISE_KIND:-sd}
DIR_SCALE=${DIR_SCALE:-unit}
TAG=${TAG:-}
OUT=${OUT:-bench/geu_table2-results${TAG:+-$TAG}.md}
RUNS_OUT=${RUNS_OUT:-bench/geu_table2-runs${TAG:+-$TAG}.tsv}
PSQL=${PSQL:-psql}

[ -r "$CSV" ] || {
	echo "missing $CSV (apt-get install python3-sklearn)" >&2
	exit 1
}
case "$DIR_SCALE" in unit | paper) ;; *)
	echo "DIR_SCALE must be unit or paper, not $DIR_SCALE" >&2
	exit 2
	;;
esac
case "$NOISE_KIND" in sd | rel) ;; *)
	echo "NOISE_KIND must be sd or rel, not $NOISE_KIND" >&2
	exit 2
	;;
esac

bench_server /tmp/pg_gsu_geu 54457
bench_start
# the server's CPU seconds (its postmaster's own and reaped children's: the backends
# that ran this benchmark), when the server runs on this machine
server_cpu() {
	$PSQL -X -A -t -d postgres -c "SELECT pg_read_file('/proc/' || split_part(pg_read_file('/proc/self/stat'), ' ', 4) || '/stat')" 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" 'NF >= 17 {printf "%.1f", ($14 + $15 + $16 + $17) / hz; ok = 1} END {if (!ok) print "?"}'
}
CPU0=$(server_cpu)
$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -d "$DB" -c "CREATE TABLE bc_raw (line text)"
tail -n +2 "$CSV" | $PSQL -X -q -d "$DB" -c "COPY bc_raw FROM STDIN"
$PSQL -X -q -d "$DB" -v first_run="$FIRST_RUN" -v runs="$RUNS" -v noises="$NOISES" \
	-v methods="$METHODS" -v k1="$K1" -v k2="$K2" -v noise_kind="$NOISE_KIND" -v dir_scale="$DIR_SCALE" -f bench/geu_table2.sql
SECS=$(($(date +%s) - T0))
CPU1=$(server_cpu)
$PSQL -X -q -d "$DB" -c "\\copy (SELECT run, noise, name, outer_fold, param, d, inner_acc, test_acc FROM chosen ORDER BY noise, name, run, outer_fold) TO '$RUNS_OUT' WITH (FORMAT csv, DELIMITER E'\\t', HEADER)"
{
	echo "# The GEU paper's Cancer experiment (Tables 1 and 2) with pg_gsu"
	echo
	echo "- command: \`bash bench/geu_table2.sh\` (RUNS=$RUNS FIRST_RUN=$FIRST_RUN NOISES=$NOISES METHODS=$METHODS K1=$K1 K2=$K2 NOISE_KIND=$NOISE_KIND DIR_SCALE=$DIR_SCALE)"
	echo "- date: $START; commit $COMMIT$DIRTY"
	echo "- machine: $(nproc) CPUs, shared; load average at start $LOAD0, at the end $(cut -d' ' -f1-3 /proc/loadavg); wall time ${SECS} s; server CPU $(awk -v a="$CPU0" -v b="$CPU1" 'BEGIN {if (a == "?" || b == "?") print "unknown"; else printf "%.0f s", b - a}')"
	echo "- $($PSQL -X -A -t -d "$DB" -c 'SELECT version()')"
	echo "- per-fold rows: \`$RUNS_OUT\`; protocol: the head comment of bench/geu_table2.sh and docs/geu.md"
	echo
	$PSQL -X -q -A -t -d "$DB" -f bench/geu_table2_report.sql
} | tee "$OUT"
