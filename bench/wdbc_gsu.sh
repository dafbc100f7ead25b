#!/usr/bin/env bash
# Reproduces the SVM-GSU paper's WDBC experiment (Tzelepis, Mezaris & Patras,
# "Linear Maximum Margin Classifier for Learning from Uncertain Data", TPAMI 2018,
# Sect. 4.3) inside PostgreSQL with pg_gsu, and prints the mean ± standard
# deviation of the test accuracy of LSVM, PSVM, LSVM-iso and LSVM-GSU beside the
# paper's (95.15 %, 96.37 %, 96.53 %, 97.14 %, Table 2), and the significance
# of LSVM-GSU's difference from each (gsu.mcnemar on the pooled test
# predictions; gsu.paired_ttest over the splits, plain and with Nadeau and
# Bengio's correction). Everything after reading the CSV (splits,
# standardization, variances, cross-validation, training, scoring, tests) is
# SQL: bench/wdbc_gsu.sql. The output also goes to $RESULTS (default
# bench/wdbc_gsu-results.md).
#
#   bash bench/wdbc_gsu.sh                                  # its own cluster
#   PGHOST=/tmp/pg_gsu_cluster PGPORT=54329 bash bench/wdbc_gsu.sh   # a running one
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there: `make install`); otherwise it starts a throwaway cluster with
# scripts/cluster.sh in $GSU_CLUSTER_DIR (default /tmp/pg_gsu_wdbc, port
# $GSU_PORT, default 54452, binaries in $GSU_PG_BINDIR) and stops it at exit. It
# creates (and drops first) the database $WDBC_BENCH_DB (default wdbc_bench).
# SPLITS (10), FOLDS (10), LAMBDAS (the grid below) and SCALE (below) can be
# overridden.
#
# Data: the Wisconsin diagnostic breast cancer set as shipped by Debian's
# python3-sklearn (569 rows; 30 features: the mean, the standard error and the
# worst value of 10 measurements of the cell nuclei; 357 benign = +1,
# 212 malignant = -1).
#
# Protocol, with the choices made where the paper leaves room:
#  * 10 random 90/10 splits: split k's test part is the 57 rows (10 %, rounded
#    up) that come first in the order of md5('wdbc split k, row id'); the other
#    512 rows are its training part. Not stratified. Deterministic.
#  * All 30 features are standardized with the mean and the sample standard
#    deviation of the training part, applied to both parts.
#  * Variances (LSVM-GSU, diagonal covariances): for the 10 mean features, the
#    standard error se_ij of row i's feature j, expressed on the standardized
#    scale (se_ij / sd_j), squared, and scaled per feature so that its largest
#    value over the training rows is 80 % of the range (max - min) of that
#    feature's standardized training values:
#        v_ij = (se_ij/sd_j)^2 * 0.8 * range_j / max_i' (se_i'j/sd_j)^2,   j = 1..10
#    (the sd_j cancel: v_ij = se_ij^2 * 0.8 * range_j / max_i' se_i'j^2). The paper
#    says "the largest variance is 80 % of the range"; we read it per feature and
#    compare a variance with a range as written, although the two do not have the
#    same units. The other 20 features get sigma0^2 = 1e-6. Test rows use the
#    training part's scale factors (their variances do not enter the accuracy).
#    SCALE=sd reads it as the largest standard deviation being 80 % of the range
#    (v_ij = (se_ij/sd_j)^2 * (0.8 * range_j)^2 / max_i' (se_i'j/sd_j)^2), SCALE=none
#    keeps (se_ij/sd_j)^2 unscaled (the demo's choice); the default is
#    SCALE=variance, the reading above.
#  * Methods: LSVM = gsu.train with "loss": "hinge" (variances ignored);
#    PSVM = "loss": "psvm" (Power SVM), each training row a ball of radius
#    sqrt(trace Sigma_i) = sqrt(sum_j v_ij), the root-mean-square distance of a
#    draw of N(x_i, Sigma_i) from x_i (the paper does not say which radius);
#    LSVM-GSU = the default loss (expected hinge loss) with the variances above;
#    LSVM-iso = the expected hinge loss with Sigma_i = s*I for every row, one s
#    for all rows, chosen together with lambda by the same cross-validation from
#    s in {0.001, 0.01, 0.1, 0.3, 1, 3, 10} (standardized units). A fourth row,
#    "LSVM-iso (s = mean variance)", fixes s to the mean of all 30 diagonal
#    variances of the training rows instead (about 0.09); the paper does not
#    report that variant.
#  * lambda (regularization of lambda/2 |w|^2 + (1/l) sum of losses; the paper's
#    C-free form) from {1e-6, 1e-5, ..., 1e1} by 10-fold cross-validation on the
#    training part, accuracy as the metric: gsu.train_best for LSVM, LSVM-GSU and
#    the fixed-s LSVM-iso; gsu.cross_validate once per s for LSVM-iso, then
#    gsu.train with the best (s, lambda) (PSVM, like LSVM, by gsu.train_best on
#    its own table). Ties go to the larger lambda (then the
#    larger s). The CV seed is k + 1; gsu.cross_validate's folds are a hash of
#    the whole row, so LSVM runs on a table of (mean, label) only (its folds, and
#    so its result, do not depend on SCALE), and the folds of LSVM-GSU, of each
#    value of s and of LSVM differ from one another.
#  * Solver: the default (newton), default tolerances, "max_iterations": 5000
#    (the hinge SVM at lambda = 1e-6 needs about 1500 on one fold of split 5).
#  * Significance (the paper: "we used the t-test [43] and obtained p-values lower
#    than 0.05"): LSVM-GSU against each other method, McNemar's exact test on the
#    pooled test predictions of all splits (570 pairs; a row drawn into several
#    test parts counts once per split), and the paired t-test over the 10 splits'
#    test accuracies, plain and corrected (ratio n_test/n_train = 57/512).
set -euo pipefail
cd "$(dirname "$0")/.."
CSV=${CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv}
DB=${WDBC_BENCH_DB:-wdbc_bench}
SPLITS=${SPLITS:-10}
FOLDS=${FOLDS:-10}
LAMBDAS=${LAMBDAS:-'{1e-6,1e-5,1e-4,1e-3,1e-2,1e-1,1,10}'}
SCALE=${SCALE:-variance}
PSQL=${PSQL:-psql}
RESULTS=${RESULTS:-bench/wdbc_gsu-results.md}

[ -r "$CSV" ] || {
	echo "missing $CSV (apt-get install python3-sklearn)" >&2
	exit 1
}

case "$SCALE" in
variance | sd | none) ;;
*)
	echo "SCALE must be variance, sd or none, not $SCALE" >&2
	exit 2
	;;
esac

if [ -z "${PGHOST:-}" ] && [ -z "${PGPORT:-}" ]; then
	export GSU_CLUSTER_DIR=${GSU_CLUSTER_DIR:-/tmp/pg_gsu_wdbc}
	export GSU_PORT=${GSU_PORT:-54452}
	trap 'bash scripts/cluster.sh stop || true' EXIT
	eval "$(bash scripts/cluster.sh reset)"
fi

start=$SECONDS
$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
{
	echo "# The SVM-GSU paper's WDBC experiment (Sect. 4.3, Table 2) with pg_gsu"
	echo
	echo "- command: \`bash bench/wdbc_gsu.sh\` (SPLITS=$SPLITS FOLDS=$FOLDS LAMBDAS=$LAMBDAS SCALE=$SCALE)"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "- machine: $(nproc) CPUs; load average at start $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)"
	echo "- $($PSQL -X -A -t -d "$DB" -c 'SELECT version()')"
	echo
	echo '```text'
	$PSQL -X -q -d "$DB" -v splits="$SPLITS" -v folds="$FOLDS" -v lambdas="$LAMBDAS" -v scale="$SCALE" \
		-f bench/wdbc_gsu.sql <"$CSV"
	echo '```'
	echo
	echo "Run time $((SECONDS - start)) s; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$RESULTS"
