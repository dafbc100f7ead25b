#!/bin/bash
# memory_peak.sh — trainings that gsu.max_training_memory must refuse do so
# before they allocate: the backend's peak resident memory (VmHWM in
# /proc/<pid>/status, read from the shell through psql's \!) stays under
# the limit plus a margin.  Uses the running cluster of PGHOST/PGPORT/PGUSER
# and its own database gsu_memory_test, created and dropped here.
# Prints one line per case and "N passed, M failed"; exits 1 on a failure.
set -u
PSQL=${PSQL:-psql}
command -v "$PSQL" >/dev/null 2>&1 || PSQL=/usr/lib/postgresql/15/bin/psql
DB=gsu_memory_test
LIMIT_MB=64
MARGIN_MB=236			# 64 MB limit -> the peak must stay under 300 MB
pass=0
fail=0

PGOPTIONS="-c client_min_messages=warning" "$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 2
[ -n "${GSU_KEEP_DB:-}" ] || trap '"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null' EXIT
"$PSQL" -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || exit 2
CREATE EXTENSION pg_gsu;
-- 4000 rows of dimension 4 with a diagonal variance
CREATE TABLE small AS
SELECT i, ARRAY[sin(i), cos(i * 1.3), sin(i * 0.7), cos(i * 2.1)]::float8[] AS mean,
       ARRAY[0.01, 0.02, 0.01, 0.03]::float8[] AS variance,
       CASE WHEN sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 4000) i;
-- 3000 rows of dimension 40 with a full covariance (13 kB a row: 39 MB)
-- models by text input: 12000 random Fourier features, 12000 Nystroem landmarks
CREATE TABLE big_models AS
SELECT 'rff' AS name, format('{"format": 2, "method": "linear", "loss": "hinge", "dim": 12000, "classes": [-1, 1], "weights": [%s], "bias": 0.1, "features": {"map": "rff", "input_dim": 2, "dim": 12000, "sigma": 1, "seed": 1, "matrix": [%s]}}',
  (SELECT string_agg(round((0.5 * sin(i) + 0.02)::numeric, 6)::text, ', ') FROM generate_series(1, 12000) i),
  (SELECT string_agg(round(3 * sin(i * 1.37)::numeric, 6)::text, ', ') FROM generate_series(1, 12000) i))::gsu.model AS model
UNION ALL
SELECT 'nystroem', format('{"format": 2, "method": "linear", "loss": "hinge", "dim": 2, "classes": [-1, 1], "weights": [0.02, -0.01], "bias": -0.5, "features": {"map": "nystroem", "input_dim": 2, "dim": 2, "sigma": 1, "seed": 1, "landmarks": 12000, "matrix": [%s]}}',
  (SELECT string_agg(round(sin(i * 0.61)::numeric, 6)::text, ', ') FROM generate_series(1, 48000) i))::gsu.model;
CREATE TABLE wide AS
SELECT i, (SELECT array_agg(sin(i * k) ORDER BY k) FROM generate_series(1, 40) k)::float8[] AS mean,
       (SELECT array_agg(r ORDER BY a)
          FROM (SELECT a, array_agg(CASE WHEN a = b THEN 0.05 ELSE 0.0 END ORDER BY b) AS r
                  FROM generate_series(1, 40) a, generate_series(1, 40) b GROUP BY a) t)::float8[] AS variance,
       CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 3000) i;
SQL

# run_case NAME SQL [ok]: the statement must fail with SQLSTATE 54000 (with
# "ok": succeed) and the backend's peak stay under the bound
run_case() {
	local name=$1 sql=$2 want=${3:-54000} out state peak bound=$(( (LIMIT_MB + MARGIN_MB) * 1024 ))
	out=$("$PSQL" -X -q -d "$DB" -v VERBOSITY=sqlstate 2>&1 <<SQL
SELECT pg_backend_pid() AS pid \gset
SET gsu.max_training_memory = '${LIMIT_MB}MB';
SET statement_timeout = '150s';
\set VERBOSITY sqlstate
$sql;
\\setenv GSU_PID :pid
\\! grep VmHWM /proc/\$GSU_PID/status
SQL
)
	state=$(printf '%s\n' "$out" | grep -o 'ERROR:  [0-9A-Z]\{5\}' | head -1 | cut -c9-)
	peak=$(printf '%s\n' "$out" | grep -o 'VmHWM:[[:space:]]*[0-9]*' | grep -o '[0-9]*$')
	[ "$want" = ok ] && want=""
	if [ "$state" = "$want" ] && [ -n "$peak" ] && [ "$peak" -lt "$bound" ]; then
		echo "ok   $name: ${want:+refused ($want), }peak $((peak / 1024)) MB < $((bound / 1024)) MB"
		pass=$((pass + 1))
	else
		echo "FAIL $name: sqlstate '${state:-none}', peak $(( ${peak:-0} / 1024 )) MB (bound $((bound / 1024)) MB)"
		fail=$((fail + 1))
	fi
}

run_case "nystroem 4000 landmarks, hinge" \
	"SELECT gsu.train(mean, variance, label, '{\"loss\": \"hinge\", \"features\": {\"map\": \"nystroem\", \"landmarks\": 4000, \"sigma\": 1}}') IS NULL FROM small"
run_case "rff 4000 features, full feature covariance" \
	"SELECT gsu.train(mean, variance, label, '{\"features\": {\"map\": \"rff\", \"dim\": 4000, \"sigma\": 1, \"covariance\": \"full\"}}') IS NULL FROM small"
run_case "robust loss, full covariance copied for its square roots" \
	"SELECT gsu.train(mean, variance, label, '{\"loss\": \"robust\"}') IS NULL FROM wide"

for map in rff nystroem; do
	run_case "$map 12000: predict and decision" \
		"SELECT gsu.predict(model, '{0.3, -0.2}'), gsu.decision(model, '{0.3, -0.2}') FROM big_models WHERE name = '$map'" ok
	run_case "$map 12000: confidence and expected_loss" \
		"SELECT gsu.confidence(model, '{0.3, -0.2}', '{0.05, 0.02}'::float8[]), gsu.expected_loss(model, '{0.3, -0.2}', 0.05::float8, 1) FROM big_models WHERE name = '$map'" ok
done

# ---- gsu.fit's sample (issue 27, 7a): the whole run of gsu.fit, its sample trained in
# memory included, stays within gsu.max_training_memory (the sample within 90% of it:
# gsu.train's rows and solver plus the sample query's sorts and tuplestores, whose
# work_mem gsu.fit lowers), even with a large work_mem. The backend's anonymous memory
# (RssAnon: not the shared buffers the scans touch) is sampled every 5 ms while it runs.
fit_sample_case() {
	local name=$1 limit_mb=$2 sql=$3 out pid base peak v
	out=$(mktemp)
	"$PSQL" -X -q -At -d "$DB" -c "SELECT pg_backend_pid()" -c "SELECT pg_sleep(0.3)" \
		-c "SET work_mem = '64MB'" -c "SET gsu.max_training_memory = '${limit_mb}MB'" \
		-c "SET client_min_messages = warning" -c "$sql" -c "SELECT 'fit_sample_case done'" >"$out" 2>&1 &
	local psql_pid=$!
	sleep 0.15
	pid=$(head -1 "$out")
	base=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null)
	peak=${base:-0}
	while kill -0 "$psql_pid" 2>/dev/null; do
		v=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
		sleep 0.005
	done
	wait "$psql_pid"
	if [ -n "$base" ] && grep -q 'fit_sample_case done' "$out" && ! grep -q ERROR "$out" &&
		[ $((peak - base)) -lt $((limit_mb * 1024)) ]; then
		echo "ok   $name: RssAnon grew $(( (peak - base) / 1024 )) MB < ${limit_mb} MB"
		pass=$((pass + 1))
	else
		echo "FAIL $name: RssAnon grew $(( (peak - ${base:-0}) / 1024 )) MB (limit ${limit_mb} MB): $(tr '\n' ' ' <"$out" | cut -c1-300)"
		fail=$((fail + 1))
	fi
	rm -f "$out"
}
"$PSQL" -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || exit 2
-- 30000 rows of dimension 60 with diagonal variances (about 33 MB): the sample is bound by memory
CREATE TABLE fit_wide AS
SELECT i AS id, (SELECT array_agg(sin(i * k * 0.37 + k) ORDER BY k) FROM generate_series(1, 60) k)::float8[] AS mean,
       array_fill(0.05::float8, ARRAY[60]) AS variance,
       CASE WHEN sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 30000) i;
SQL
fit_sample_case "gsu.fit's sample, 16 MB, work_mem 64 MB" 16 \
	"SELECT gsu.fit('fit_wide', 'mean', 'variance', 'label', '{\"max_iterations\": 2}') IS NOT NULL"
fit_sample_case "gsu.fit's sample, hinge (dcd), 16 MB, work_mem 64 MB" 16 \
	"SELECT gsu.fit('fit_wide', 'mean', NULL, 'label', '{\"loss\": \"hinge\", \"max_iterations\": 2}') IS NOT NULL"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
