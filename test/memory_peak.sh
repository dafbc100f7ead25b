#!/bin/bash
# memory_peak.sh — trainings that gsu.max_training_memory must refuse do so
# before they allocate: the backend's peak resident memory (VmHWM in
# /proc/<pid>/status, read from the shell through psql's \!) stays under
# the limit plus a margin.  Uses the running cluster of PGHOST/PGPORT/PGUSER
# and its own database gsu_memory_test, created and dropped here.
# Prints one line per case and "memory_peak: N passed, M failed"; exits 1 on a failure.
#
# parallel_cases and moments_cases (issue 27, parts 6 and 7b) measure a
# whole query instead: the largest sum of RssAnon over the backend and its
# parallel workers, sampled while the statement runs, must stay within the
# limit plus PER_PROCESS_MB for each process of the plan (docs/limits.md).
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
		"SELECT gsu.confidence(model, '{0.3, -0.2}', '{0.05, 0.02}'::float8[]), gsu.expected_loss(model, '{0.3, -0.2}', ARRAY[0.05]::float8[], 1) FROM big_models WHERE name = '$map'" ok
done

# ------------------------------------------- whole queries (issue 27, 6 and 7b)
# What a parallel plan may hold besides the limit, per process (the leader
# and each worker): the backend's own memory (about 4 MB of RssAnon), the
# allocator's and transparent huge pages' rounding of the buffers (2 MB
# each), and what PostgreSQL itself allocates for the plan; docs/limits.md
# documents it as "16 MB per process".
PER_PROCESS_MB=16
PAR_LIMIT_MB=32
SAMPLER=$(mktemp -d)
trap '"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null; rm -rf "$SAMPLER"' EXIT
[ -z "${GSU_KEEP_DB:-}" ] || trap 'rm -rf "$SAMPLER"' EXIT

# sampler.sh LEADER OUT STOP: until STOP exists, the largest sum of RssAnon
# (kB) over LEADER and its parallel workers ("parallel worker for PID
# LEADER"), written to OUT
cat >"$SAMPLER/sampler.sh" <<'EOF_SAMPLER'
#!/bin/bash
leader=$1 out=$2 stop=$3 max=0
echo 0 >"$out"
# (it also stops when the backend is gone, so that it never outlives the test)
while [ ! -e "$stop" ] && [ -e "/proc/$leader" ]; do
	sum=0
	for s in /proc/$leader/status $(grep -la "parallel worker for PID $leader\b" /proc/[0-9]*/cmdline 2>/dev/null | sed 's/cmdline$/status/'); do
		v=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\).*/\1/p' "$s" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	if [ "$sum" -gt "$max" ]; then max=$sum; echo "$max" >"$out"; fi
	sleep 0.002
done
EOF_SAMPLER

# run_query_case NAME LIMIT_MB PROCESSES SETTINGS SQL WANT: SQL (after
# SETTINGS) must fail with SQLSTATE WANT (or succeed: "ok"), and the largest
# RssAnon sum of the backend and its workers stay within LIMIT_MB plus
# PER_PROCESS_MB for each of PROCESSES processes
run_query_case() {
	local name=$1 limit=$2 procs=$3 settings=$4 sql=$5 want=$6 out state peak bound
	bound=$(( (limit + procs * PER_PROCESS_MB) * 1024 ))
	rm -f "$SAMPLER/stop" "$SAMPLER/peak"
	out=$("$PSQL" -X -q -d "$DB" 2>&1 <<SQL
SELECT pg_backend_pid() AS pid \gset
\\setenv GSU_PID :pid
SET gsu.max_training_memory = '${limit}MB';
SET statement_timeout = '150s';
$settings
\set VERBOSITY sqlstate
\\! bash $SAMPLER/sampler.sh \$GSU_PID $SAMPLER/peak $SAMPLER/stop &
\\! sleep 0.1
$sql;
\\! touch $SAMPLER/stop; sleep 0.1
SQL
)
	state=$(printf '%s\n' "$out" | grep -o 'ERROR:  [0-9A-Z]\{5\}' | head -1 | cut -c9-)
	peak=$(cat "$SAMPLER/peak" 2>/dev/null)
	[ "$want" = ok ] && want=""
	if [ "$state" = "$want" ] && [ -n "$peak" ] && [ "$peak" -gt 0 ] && [ "$peak" -le "$bound" ]; then
		echo "ok   $name: ${want:+refused ($want), }peak $((peak / 1024)) MB <= $((bound / 1024)) MB"
		pass=$((pass + 1))
	else
		echo "FAIL $name: sqlstate '${state:-none}' (want '${want:-none}'), peak $(( ${peak:-0} / 1024 )) MB (bound $((bound / 1024)) MB)"
		printf '%s\n' "$out" | sed 's/^/     /' | head -5
		fail=$((fail + 1))
	fi
}

# the parallel cases of issue 27, part 6: a plan of 2 workers and the leader
FORCE_PARALLEL="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;"
parallel_cases() {
	"$PSQL" -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || return 1
-- 250000 labelled rows of dimension 16 with diagonal variances: 33 MB as a
-- reference set, 66 MB as gsu.train's rows
CREATE TABLE par_rows AS
SELECT i, ARRAY[sin(i), cos(i), sin(2 * i), cos(2 * i), sin(3 * i), cos(3 * i), sin(4 * i), cos(4 * i),
                sin(5 * i), cos(5 * i), sin(6 * i), cos(6 * i), sin(7 * i), cos(7 * i), sin(8 * i), cos(8 * i)]::float8[] AS mean,
       '{0.01,0.02,0.01,0.03,0.01,0.02,0.01,0.03,0.01,0.02,0.01,0.03,0.01,0.02,0.01,0.03}'::float8[] AS variance,
       CASE WHEN sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 250000) i;
ALTER TABLE par_rows SET (parallel_workers = 2);
ANALYZE par_rows;
SQL
	run_query_case "parallel refset_agg, 33 MB of rows" $PAR_LIMIT_MB 3 "$FORCE_PARALLEL" \
		"SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows" 54000
	run_query_case "parallel refset_agg, a tenth of the rows" $PAR_LIMIT_MB 3 "$FORCE_PARALLEL" \
		"SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows WHERE i % 10 = 0" ok
	run_query_case "parallel refset_agg, 33 MB of rows under 256 MB" 256 3 "$FORCE_PARALLEL" \
		"SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows" ok
	run_query_case "the planner's own parallel refset_agg, 16 MB" 16 3 "" \
		"SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows" 54000
	run_query_case "parallel gsu.train (gsu.parallel_training)" $PAR_LIMIT_MB 3 "$FORCE_PARALLEL SET gsu.parallel_training = on;" \
		"SELECT gsu.train(mean, variance, label) IS NULL FROM par_rows" 54000
	run_query_case "parallel gsu.train, a twentieth of the rows" $PAR_LIMIT_MB 3 "$FORCE_PARALLEL SET gsu.parallel_training = on;" \
		"SELECT gsu.train(mean, variance, label) IS NULL FROM par_rows WHERE i % 20 = 0" ok
	run_query_case "parallel geu_fit mfa" $PAR_LIMIT_MB 3 "$FORCE_PARALLEL" \
		"SELECT gsu.geu_fit(mean, variance, label, '{\"method\": \"mfa\"}') IS NULL FROM par_rows" 54000
}

# issue 27, part 7b: gsu.moments with a full covariance of dimension 2048
# (32 MB of state, 64 MB of result), serial and parallel
moments_cases() {
	"$PSQL" -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL' || return 1
CREATE TABLE obs_wide AS
SELECT i, (SELECT array_agg(sin(i * k + 0.001 * k * k) ORDER BY k) FROM generate_series(1, 2048) k)::float8[] AS obs
FROM generate_series(1, 60) i;
ALTER TABLE obs_wide SET (parallel_workers = 2);
ANALYZE obs_wide;
SQL
	run_query_case "moments, full covariance of dimension 2048" 64 1 "SET max_parallel_workers_per_gather = 0;" \
		"SELECT (gsu.moments(obs, '{\"covariance\": \"full\"}')).count FROM obs_wide" 54000
	run_query_case "moments, full covariance of dimension 2048, parallel" 64 3 "$FORCE_PARALLEL" \
		"SELECT (gsu.moments(obs, '{\"covariance\": \"full\"}')).count FROM obs_wide" 54000
	run_query_case "moments, full covariance of dimension 2048 under 128 MB" 128 1 "SET max_parallel_workers_per_gather = 0;" \
		"SELECT (gsu.moments(obs, '{\"covariance\": \"full\"}')).count FROM obs_wide" ok
	run_query_case "moments, full covariance of dimension 1024" 64 1 "SET max_parallel_workers_per_gather = 0;" \
		"SELECT (gsu.moments(obs[1:1024], '{\"covariance\": \"full\"}')).count FROM obs_wide" ok
}

parallel_cases || { echo "FAIL parallel cases: could not create their table"; fail=$((fail + 1)); }
moments_cases || { echo "FAIL moments cases: could not create their table"; fail=$((fail + 1)); }

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

echo "memory_peak: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
