#!/usr/bin/env bash
# Reproduces the GEU paper's breast-cancer experiment (LDA, RLDA, GEU-LDA-U/S,
# MFA, RMFA, GEU-MFA-U/S; 5-fold CV, 1-NN) inside PostgreSQL with pg_gsu and
# prints the accuracies beside the paper's.  Needs a running server with
# pg_gsu installed, reached through the usual PGHOST / PGPORT / PGUSER, and
# Debian's python3-sklearn for the data file.  Creates (and drops first) the
# database $GEU_BENCH_DB (default geu_bench).
#
#   PGHOST=/tmp/pg_gsu_cluster PGPORT=54329 bash bench/geu_breast_cancer.sh
#
# K1 and K2 (default 5 and 40) are MFA's neighbourhood sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
CSV=${CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv}
DB=${GEU_BENCH_DB:-geu_bench}
K1=${K1:-5}
K2=${K2:-40}
PSQL=${PSQL:-psql}

[ -r "$CSV" ] || { echo "missing $CSV (apt-get install python3-sklearn)" >&2; exit 1; }
$PSQL -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -d "$DB" -c "CREATE TABLE bc_raw (line text)"
tail -n +2 "$CSV" | $PSQL -X -q -d "$DB" -c "COPY bc_raw FROM STDIN"
$PSQL -X -q -d "$DB" -v k1="$K1" -v k2="$K2" -f bench/geu_breast_cancer.sql
