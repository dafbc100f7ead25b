#!/usr/bin/env bash
# Reproduces Bi & Zhang (NIPS 2004) Sect. 6, Table 1, synthetic targets, inside
# PostgreSQL with pg_gsu: SVC against TSVC on 2-D points with Gaussian input noise and
# outliers near the boundary, 50 trials per training size, every cell beside the paper's.
# Not part of CI. The protocol, and the choices the paper leaves open: bench/tsvc_table1.sql.
# Results and how they compare: docs/reproduce-tsvc.md.
#
#   bash bench/tsvc_table1.sh                      # the linear target
#   TARGET=quadratic bash bench/tsvc_table1.sh     # the quadratic one, kernel (x'z)^2
#
# Settings (environment): TARGET (linear or quadratic), ELLS ('{20,30,50,100,150}'), TRIALS (50), TEST_N (10000),
# SEED (1), FOLDS (5), GRID_SVC (the lambda grid of SVC, LSVM-GSU and TSVC alternating),
# GRID_TSVC (lambda x gamma of TSVC's relaxation), METHODS, SELECTION (cv: each method's
# grid point by cross-validation on the training rows; test: the ablation that picks it
# on the test set, an upper bound).
# Writes bench/tsvc_table1-results.md (OUT) and the per-trial rows
# bench/tsvc_table1-runs.tsv (RUNS_OUT).
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there); otherwise it starts a throwaway cluster with scripts/cluster.sh in
# $GSU_CLUSTER_DIR (default /tmp/pg_gsu_tsvc, port $GSU_PORT, default 54456) and stops it
# at exit. It creates (and drops first) the database $TSVC_DB (default tsvc_bench).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${TARGET:-linear}
ELLS=${ELLS:-'{20,30,50,100,150}'}
TRIALS=${TRIALS:-50}
TEST_N=${TEST_N:-10000}
SEED=${SEED:-1}
FOLDS=${FOLDS:-5}
GRID_SVC=${GRID_SVC:-'{"lambda": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]}'}
GRID_TSVC=${GRID_TSVC:-'{"lambda": [1e-6, 1e-4, 1e-2], "gamma": [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4]}'}
METHODS=${METHODS:-'{SVC,TSVC,"TSVC (delta = sqrt(tr Sigma))","TSVC (alternating)","TSVC (alternating, delta = sqrt(tr Sigma))",LSVM-GSU}'}
SELECTION=${SELECTION:-cv}
DB=${TSVC_DB:-tsvc_bench}
SUFFIX=
if [ "$TARGET" != linear ]; then SUFFIX=-$TARGET; fi
OUT=${OUT:-bench/tsvc_table1-results$SUFFIX.md}
RUNS_OUT=${RUNS_OUT:-bench/tsvc_table1-runs$SUFFIX.tsv}
PSQL=${PSQL:-psql}
SETTINGS="TARGET=$TARGET ELLS=$ELLS TRIALS=$TRIALS TEST_N=$TEST_N SEED=$SEED FOLDS=$FOLDS GRID_SVC=$GRID_SVC GRID_TSVC=$GRID_TSVC SELECTION=$SELECTION"

. bench/common.sh
bench_server /tmp/pg_gsu_tsvc 54456
bench_start
echo "command: bash bench/tsvc_table1.sh ($SETTINGS), server ${PGHOST:-}:${PGPORT:-}, $START" >&2

$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -d "$DB" -v ells="$ELLS" -v trials="$TRIALS" -v test_n="$TEST_N" -v seed="$SEED" \
	-v folds="$FOLDS" -v grid_svc="$GRID_SVC" -v grid_tsvc="$GRID_TSVC" -v methods="$METHODS" -v selection="$SELECTION" -v target="$TARGET" \
	-f bench/tsvc_table1.sql
$PSQL -X -q -d "$DB" -c "\\copy (SELECT ell, trial, method, error, options, seconds FROM tsvc_runs ORDER BY ell, trial, method) TO '$RUNS_OUT' WITH (FORMAT csv, DELIMITER E'\\t', HEADER)"
SECONDS_TOTAL=$(($(date +%s) - T0))
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "# Bi & Zhang (2004) Table 1, synthetic $TARGET target"
	echo
	echo "Command \`bash bench/tsvc_table1.sh\` ($SETTINGS), commit $COMMIT$DIRTY, $START, $SECONDS_TOTAL s,"
	echo "load average $LOAD0 at the start and $LOAD1 at the end, $(nproc) CPUs."
	echo
	echo "Mean test error (%) over the trials ± its standard error; the paper's value in brackets."
	echo
	$PSQL -X -q -A -t -d "$DB" -v target="$TARGET" <<'SQL'
WITH paper(target, method, ell, err) AS (
	SELECT 'linear', 'SVC', unnest('{20,30,50,100,150}'::int[]), unnest('{8.9,7.8,5.5,2.9,2.1}'::float8[])
	UNION ALL SELECT 'linear', 'TSVC', unnest('{20,30,50,100,150}'::int[]), unnest('{6.1,5.2,3.8,2.1,1.6}'::float8[])
	UNION ALL SELECT 'quadratic', 'SVC', unnest('{20,30,50,100,150}'::int[]), unnest('{9.9,7.5,6.7,3.2,2.8}'::float8[])
	UNION ALL SELECT 'quadratic', 'TSVC', unnest('{20,30,50,100,150}'::int[]), unnest('{7.9,6.1,4.4,2.8,2.4}'::float8[])),
cells AS (
	SELECT method, ell, 100 * avg(error) AS m, 100 * stddev_samp(error) / sqrt(count(*)) AS se, count(*) AS n
	FROM tsvc_runs WHERE error IS NOT NULL GROUP BY method, ell),
ells AS (SELECT DISTINCT ell FROM tsvc_runs)
SELECT '| method | ' || string_agg('ℓ = ' || ell, ' | ' ORDER BY ell) || ' |' FROM ells
UNION ALL SELECT '|---|' || string_agg('---', '|' ORDER BY ell) || '|' FROM ells
UNION ALL
SELECT * FROM (
	SELECT '| ' || c.method || ' | ' ||
		   string_agg(to_char(c.m, 'FM990.00') || ' ± ' || coalesce(to_char(c.se, 'FM90.00'), '–') ||
					  coalesce(' [' || p.err || ']', ''), ' | ' ORDER BY c.ell) || ' |'
	FROM cells c LEFT JOIN paper p ON p.target = :'target' AND p.method = c.method AND p.ell = c.ell
	GROUP BY c.method ORDER BY min(CASE c.method WHEN 'SVC' THEN 0 WHEN 'TSVC' THEN 1 ELSE 2 END), c.method) s;
SQL
	echo
	echo "Paired t-test over the trials of each method's test error against SVC's (gsu.paired_ttest; negative: fewer errors than SVC):"
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
WITH pairs AS (
	SELECT a.method, a.ell, gsu.paired_ttest(a.error, s.error) AS t
	FROM tsvc_runs a JOIN tsvc_runs s ON s.ell = a.ell AND s.trial = a.trial AND s.method = 'SVC'
	WHERE a.method <> 'SVC' AND a.error IS NOT NULL AND s.error IS NOT NULL GROUP BY a.method, a.ell),
ells AS (SELECT DISTINCT ell FROM tsvc_runs)
SELECT '| method − SVC | ' || string_agg('ℓ = ' || ell, ' | ' ORDER BY ell) || ' |' FROM ells
UNION ALL SELECT '|---|' || string_agg('---', '|' ORDER BY ell) || '|' FROM ells
UNION ALL
SELECT * FROM (
	SELECT '| ' || method || ' | ' ||
		   string_agg(to_char(100 * (t->>'mean_difference')::float8, 'FMS990.00') || ' (p ' ||
					  to_char((t->>'p')::float8, 'FM0.0000') || ')', ' | ' ORDER BY ell) || ' |'
	FROM pairs GROUP BY method ORDER BY method) s;
SQL
	echo
	echo "Trials skipped (a cross-validation fold whose training rows are all of one class), per method:"
	echo
	$PSQL -X -q -A -t -d "$DB" -c "SELECT '* ' || method || ': ' || count(*) FILTER (WHERE error IS NULL) || ' of ' || count(*) FROM tsvc_runs GROUP BY method ORDER BY method"
	echo
	echo "The hyperparameters selected ($SELECTION), per method (count of trials):"
	echo
	$PSQL -X -q -A -t -d "$DB" <<'SQL'
SELECT '* ' || method || ': ' || string_agg(k || ' ×' || n, ', ' ORDER BY n DESC, k)
FROM (SELECT method, jsonb_build_object('lambda', options->'lambda', 'gamma', options->'gamma')::text AS k, count(*) AS n
	  FROM tsvc_runs GROUP BY 1, 2) s GROUP BY method ORDER BY method;
SQL
} | tee "$OUT"
