#!/usr/bin/env bash
# Issue 31 part 7: training on rank-2 covariance factors at MNIST scale against the diagonal
# case, in one run. Synthetic 28 x 28 images (two classes of smooth blobs, a hash of the row
# and the pixel, no random(); about 6 % of the labels flipped), each with the rank-2 factor L of its translation covariance
# (gsu.image_covariance_factor(img, 28, 28, SIGMA2)) and, as the peer, the diagonal of the
# same covariance, diag(L Lᵀ): the same per-pixel variances without their correlations.
# gsu.train (the solver newton, lambda LAMBDA) on both, REPEAT times each, interleaved; prints
# each time, the Newton iterations and passes over the rows, and the ratio factor / diagonal.
#
#   bash bench/lowrank_cost.sh            # 12,000 rows (MNIST's two-class training size)
#   ROWS=2000 bash bench/lowrank_cost.sh  # a smaller run
#
# Settings (environment): ROWS (12000), SIGMA2 (0.25), LAMBDA (0.01), REPEAT (2),
# OUT (bench/lowrank_cost-results.md). Server: as bench/common.sh says (PGHOST/PGPORT, or a
# throwaway cluster in /tmp/pg_gsu_lowrank on port 54457); database lowrank_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-12000}
SIGMA2=${SIGMA2:-0.25}
LAMBDA=${LAMBDA:-0.01}
REPEAT=${REPEAT:-2}
OUT=${OUT:-bench/lowrank_cost-results.md}
DB=lowrank_bench
PSQL=${PSQL:-psql}

. bench/common.sh
bench_server /tmp/pg_gsu_lowrank 54457
bench_start
$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -v ON_ERROR_STOP=1 -d "$DB" -v rows="$ROWS" -v sigma2="$SIGMA2" <<'SQL'
CREATE EXTENSION pg_gsu;
SET gsu.max_training_memory = '1GB';
CREATE TABLE img AS
SELECT i AS id, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END * CASE WHEN abs(sin(i * 7.31)) < 0.1 THEN -1 ELSE 1 END AS label,
	ARRAY(SELECT exp(-((x - cx) ^ 2 + (y - cy) ^ 2) / (2 * r * r)) + 0.05 * sin(i * 12.9898 + (28 * y + x) * 78.233)
		  FROM generate_series(0, 27) y, generate_series(0, 27) x ORDER BY y, x) AS mean
FROM generate_series(1, :rows) i,
	LATERAL (SELECT 13.5 + 4 * sin(i * 1.7) AS cx, 13.5 + 4 * cos(i * 2.3) AS cy,
					CASE WHEN i % 2 = 0 THEN 3.0 ELSE 5.0 END AS r) p;
ALTER TABLE img ADD COLUMN fac float8[], ADD COLUMN dia float8[];
UPDATE img SET fac = gsu.image_covariance_factor(mean, 28, 28, :sigma2);
UPDATE img SET dia = ARRAY(SELECT fac[k][1] ^ 2 + fac[k][2] ^ 2 FROM generate_series(1, 784) k);
VACUUM ANALYZE img;
CREATE TABLE timings (form text, run int, seconds float8, iterations int, passes int, objective float8);
SQL
for run in $(seq 1 "$REPEAT"); do
	for form in dia fac; do
		$PSQL -X -q -v ON_ERROR_STOP=1 -d "$DB" -v form="$form" -v run="$run" -v lambda="$LAMBDA" <<'SQL'
SET gsu.max_training_memory = '1GB';
SET max_parallel_workers_per_gather = 0;
SELECT clock_timestamp() AS t0 \gset
CREATE TEMP TABLE m AS SELECT gsu.train(mean, :"form", label, jsonb_build_object('lambda', :lambda::float8)) AS m FROM img;
INSERT INTO timings
SELECT :'form', :run, extract(epoch FROM clock_timestamp() - :'t0'::timestamptz),
	(gsu.describe(m)->'training'->>'iterations')::int, (gsu.describe(m)->'training'->>'passes')::int,
	(gsu.describe(m)->'training'->>'objective')::float8 FROM m;
SQL
	done
done
SECONDS_TOTAL=$(($(date +%s) - T0))
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "# Rank-2 covariance factors against the diagonal case (issue 31, part 7)"
	echo
	echo "Command \`ROWS=$ROWS SIGMA2=$SIGMA2 LAMBDA=$LAMBDA REPEAT=$REPEAT bash bench/lowrank_cost.sh\`, commit $COMMIT$DIRTY, $START, $SECONDS_TOTAL s in all"
	echo "(data generation included), load average $LOAD0 at the start and $LOAD1 at the end, $(nproc) CPUs."
	echo "$ROWS synthetic 28 × 28 images (dimension 784); \`gsu.train(mean, COV, label, '{\"lambda\": $LAMBDA}')\`,"
	echo "solver newton, serial; COV the rank-2 factor of \`gsu.image_covariance_factor(mean, 28, 28, $SIGMA2)\`"
	echo "or the diagonal of the same covariance. Times are wall-clock of the training statement."
	echo
	$PSQL -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
SELECT '| covariance | run | seconds | Newton iterations | passes | seconds a pass | objective |'
UNION ALL SELECT '|---|---|---|---|---|---|---|'
UNION ALL SELECT * FROM (
	SELECT format('| %s | %s | %s | %s | %s | %s | %s |', CASE form WHEN 'fac' THEN 'rank-2 factor' ELSE 'diagonal' END, run,
		round(seconds::numeric, 2), iterations, passes, round((seconds / passes)::numeric, 4), round(objective::numeric, 6))
	FROM timings ORDER BY form, run) s;
SELECT '';
SELECT format('Median time, factor / diagonal: %s; median time a pass, factor / diagonal: %s.',
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FILTER (WHERE form = 'fac')
		 / percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FILTER (WHERE form = 'dia'))::numeric, 2),
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds / passes) FILTER (WHERE form = 'fac')
		 / percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds / passes) FILTER (WHERE form = 'dia'))::numeric, 2))
FROM timings;
SQL
} | tee "$OUT"
$PSQL -X -q -d postgres -c "DROP DATABASE $DB"
