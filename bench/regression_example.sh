#!/usr/bin/env bash
# A worked example of regression on uncertain inputs with real measurement errors
# (issue 33 part 3; docs/regression.md, "A worked example"): WDBC as shipped by
# Debian's python3-sklearn, whose 10 "mean" features of the cell nuclei each come with
# their standard error. One mean feature (each of TARGETS, default "4 2 5 7 9 10":
# mean area, texture, smoothness, concavity, symmetry, fractal dimension) is regressed
# on the other nine, whose squared standard errors are the rows' diagonal variances.
# SVR-GSU and ridge-GSU are compared with the same models trained without the
# variances (plain epsilon-SVR and ridge) on the held-out 20 % of SPLITS (20) random
# splits: RMSE, MAE, R2 and NLPD, and a paired t-test over the splits (gsu.paired_ttest,
# plain and with Nadeau and Bengio's correction). Everything after reading the CSV is
# SQL: bench/regression_example.sql. The output also goes to $RESULTS (default
# bench/regression_example-results.md).
#
#   bash bench/regression_example.sh                                   # its own cluster
#   PGHOST=/tmp/cl PGPORT=5432 bash bench/regression_example.sh        # a running server
#
# Server: as bench/common.sh's bench_server (own cluster in /tmp/pg_gsu_regex on
# port 54453 unless PGHOST or PGPORT is set); database $REGEX_BENCH_DB (default
# regression_example), dropped and created.
#
# Choices: inputs and target standardized with each split's training part (mean,
# sample sd), the variances accordingly (se^2/sd^2), unscaled; fixed LAMBDA (1e-3)
# and EPSILON (0.1, in target sds), no tuning; test rows scored with their own
# variances. NLPD: a GSU model's predictive sd is sqrt(w'Σw + rmse_train^2); a model
# trained without variances has sd = rmse_train (a column also shows it with w'Σw
# added).
#
# Real errors in other Debian data: r-cran-metadat's meta-analysis sets carry
# sampling variances of the outcome (not of the inputs); python3-sklearn's
# regression sets (diabetes, California housing) carry none. WDBC's standard
# errors are the real input errors at hand.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
CSV=${CSV:-/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv}
DB=${REGEX_BENCH_DB:-regression_example}
SPLITS=${SPLITS:-20}
TARGETS=${TARGETS:-4 2 5 7 9 10}
LAMBDA=${LAMBDA:-1e-3}
EPSILON=${EPSILON:-0.1}
PSQL=${PSQL:-psql}
RESULTS=${RESULTS:-bench/regression_example-results.md}

[ -r "$CSV" ] || {
	echo "missing $CSV (apt-get install python3-sklearn)" >&2
	exit 1
}
bench_server /tmp/pg_gsu_regex 54453
bench_start
{
	echo "# Regression on uncertain inputs with real measurement errors (WDBC)"
	echo
	echo "- command: \`bash bench/regression_example.sh\` (SPLITS=$SPLITS TARGETS=\"$TARGETS\" LAMBDA=$LAMBDA EPSILON=$EPSILON)"
	echo "- date: $START; commit $COMMIT$DIRTY"
	echo "- machine: $(nproc) CPUs; load average at start $LOAD0 (shared machine)"
	echo "- $($PSQL -X -A -t -d postgres -c 'SELECT version()')"
	echo "- features (1..10): radius, texture, perimeter, area, smoothness, compactness, concavity, concave points, symmetry, fractal dimension (each the mean over an image's nuclei, with its standard error)"
	for TARGET in $TARGETS; do
		$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
		echo
		echo "## Target: mean feature $TARGET; inputs: the other nine with their squared standard errors"
		echo
		echo '```text'
		$PSQL -X -q -P footer=off -d "$DB" -v splits="$SPLITS" -v target="$TARGET" -v lambda="$LAMBDA" -v epsilon="$EPSILON" \
			-f bench/regression_example.sql <"$CSV"
		echo '```'
	done
	echo
	echo "Run time $(($(date +%s) - T0)) s; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$RESULTS"
