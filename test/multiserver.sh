#!/usr/bin/env bash
# Multi-server training with stock PostgreSQL 15 + postgres_fdw.
#
# Usage: bash test/multiserver.sh        (after `make install`; as root or as postgres)
#
# Starts four throwaway clusters -- three shards and a coordinator -- that listen
# only on private Unix sockets, loads a deterministic data set split by id % 3 onto
# the shards, makes the coordinator's `samples` a table partitioned by (id % 3)
# whose partitions are foreign tables on the shards, keeps the whole data set in
# the coordinator's local table `all_samples` as the single-server reference, and
# checks that
#   1. every pass of gsu.fit pushes each partition's gsu.gradient aggregate to its
#      shard (EXPLAIN of the pass query, and auto_explain of a real gsu.fit run with
#      the solver lbfgs); with the solver newton (the default) the sample scan pushes
#      ORDER BY/LIMIT and every later scan gsu.hessian, in at most 8 scans;
#   2. gsu.fit over the shards gives the model of gsu.fit and gsu.train on all_samples;
#   3. the shards' gradient partials, summed with gsu.sum, equal gsu.gradient over
#      all_samples;
#   4. gsu.sgd_partial on each shard (pushed down) combined with gsu.sum/gsu.to_model
#      on the coordinator equals, bit for bit, the same computation on all_samples;
#   5. gsu.fit with a weight column and class_weight "balanced" over the shards reaches
#      gsu.train's weighted optimum in at most 8 scans, each pushing its per-class
#      gsu.hessian aggregates to the shards;
#   6. gsu.fit trains on exactly the rows SELECT ... FROM samples returns to its caller:
#      as a role with SELECT on the partitions too it pushes the aggregates down; as a
#      role with SELECT on the parent only, or under a policy on the parent, it reads the
#      parent (nothing pushed) and trains on the rows the role sees, at gsu.train's optimum.
# Ends with `multiserver: N passed, M failed`; the exit status is non-zero if a check failed.
# The clusters are stopped and removed on exit, whatever happens.
#
# Environment:
#   GSU_MS_DIR     directory of the four clusters (default /tmp/pg_gsu_multiserver)
#   GSU_MS_PORT    port of the first shard; the others use the next three ports
#                  (default 54471: shards 54471..54473, coordinator 54474)
#   GSU_MS_ROWS    rows of the data set (default 30000)
#   GSU_PG_BINDIR  PostgreSQL server binaries (default /usr/lib/postgresql/15/bin)
#   GSU_MS_KEEP    set to 1 to leave the clusters running (for debugging)
set -euo pipefail

BASE=${GSU_MS_DIR:-/tmp/pg_gsu_multiserver}
PORT0=${GSU_MS_PORT:-54471}
ROWS=${GSU_MS_ROWS:-30000}
PGBIN=${GSU_PG_BINDIR:-/usr/lib/postgresql/15/bin}
KEEP=${GSU_MS_KEEP:-0}
SERVER_USER=postgres
MARKER="$BASE/.pg_gsu_multiserver"
NODES=(shard0 shard1 shard2 coord)
START_TIME=$SECONDS

say() { printf 'multiserver: %s\n' "$*" >&2; }
die() { printf 'multiserver: error: %s\n' "$*" >&2; exit 1; }

# ------------------------------------------------------------------ set-up checks

if ! [[ "$PORT0" =~ ^[0-9]+$ ]] || [ "$PORT0" -lt 1024 ] || [ "$PORT0" -gt 65532 ]; then
	die "GSU_MS_PORT must be a port number between 1024 and 65532, not '$PORT0'"
fi
if ! [[ "$ROWS" =~ ^[0-9]+$ ]] || [ "$ROWS" -lt 300 ]; then
	die "GSU_MS_ROWS must be a number >= 300, not '$ROWS'"
fi
case "$BASE" in
/?*) ;;
*) die "GSU_MS_DIR must be an absolute path, not '$BASE'" ;;
esac
for tool in initdb pg_ctl postgres; do
	[ -x "$PGBIN/$tool" ] || die "$PGBIN/$tool not found: install postgresql-15 or set GSU_PG_BINDIR"
done
PSQL_BIN="$PGBIN/psql"
[ -x "$PSQL_BIN" ] || PSQL_BIN=$(command -v psql) || die "psql not found"
SHAREDIR=$("$PGBIN/pg_config" --sharedir 2>/dev/null || echo /usr/share/postgresql/15)
for ext in pg_gsu postgres_fdw; do
	[ -f "$SHAREDIR/extension/$ext.control" ] ||
		die "extension $ext is not installed ($SHAREDIR/extension/$ext.control missing): run make install / install postgresql-contrib"
done
if [ "$(id -u)" -eq 0 ]; then
	id -u "$SERVER_USER" >/dev/null 2>&1 || die "user '$SERVER_USER' does not exist"
	command -v runuser >/dev/null 2>&1 || die "runuser not found (apt-get install util-linux)"
fi

# as_owner CMD...: run CMD as the clusters' owner (postgres when we are root)
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$BASE" && runuser -u "$SERVER_USER" -- "$@")
	else
		(cd "$BASE" && "$@")
	fi
}

port_of() {
	local i
	for i in "${!NODES[@]}"; do
		[ "${NODES[$i]}" = "$1" ] && { echo $((PORT0 + i)); return; }
	done
	die "unknown node $1"
}
sock_of() { echo "$BASE/$1/socket"; }

# q NODE [psql args...]: psql on a node, SQL on stdin or -c
q() {
	local node=$1
	shift
	"$PSQL_BIN" -X -v ON_ERROR_STOP=1 -At -q -h "$(sock_of "$node")" -p "$(port_of "$node")" \
		-U postgres -d postgres "$@"
}

# ------------------------------------------------------------------ clusters

stop_all() {
	local node
	for node in "${NODES[@]}"; do
		if [ -f "$BASE/$node/data/postmaster.pid" ]; then
			as_owner "$PGBIN/pg_ctl" stop -D "$BASE/$node/data" -m immediate -w -t 30 \
				>/dev/null 2>&1 || true
		fi
	done
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# let background set-up jobs (initdb, pg_ctl start, loading) finish first, so
	# that no server starts after stop_all
	wait 2>/dev/null || true
	if [ -d "$BASE" ] && [ -f "$MARKER" ]; then
		if [ "$rc" -ne 0 ]; then
			local node
			for node in "${NODES[@]}"; do
				if [ -s "$BASE/$node/server.log" ]; then
					echo "----- last lines of $node's server log" >&2
					tail -n 15 "$BASE/$node/server.log" >&2 || true
				fi
			done
		fi
		if [ "$KEEP" = 1 ]; then
			say "GSU_MS_KEEP=1: leaving the clusters in $BASE running"
		else
			stop_all
			rm -rf "$BASE"
		fi
	fi
	say "finished in $((SECONDS - START_TIME)) s"
	exit "$rc"
}

# refuse to wipe a directory that this script did not make
if [ -e "$BASE" ]; then
	[ -d "$BASE" ] || die "$BASE exists and is not a directory"
	if [ -n "$(ls -A "$BASE")" ] && [ ! -f "$MARKER" ]; then
		die "$BASE is not empty and was not made by this script; refusing to wipe it (set GSU_MS_DIR)"
	fi
	# a previous run that was killed: stop its servers before wiping
	stop_all
	rm -rf "$BASE"
fi
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$BASE"
touch "$MARKER"
for node in "${NODES[@]}"; do
	mkdir -p "$BASE/$node/socket"
done
if [ "$(id -u)" -eq 0 ]; then
	chown -R "$SERVER_USER:" "$BASE"
	runuser -u "$SERVER_USER" -- test -x "$BASE" ||
		die "user '$SERVER_USER' cannot reach $BASE (is a parent directory private?); set GSU_MS_DIR, e.g. under /tmp"
fi
chmod 0755 "$BASE"

init_node() {
	local node=$1 port
	port=$(port_of "$node")
	as_owner "$PGBIN/initdb" -D "$BASE/$node/data" --auth=trust -U postgres \
		--encoding=UTF8 --no-locale --no-sync >"$BASE/$node/initdb.log" 2>&1 ||
		{ cat "$BASE/$node/initdb.log" >&2; return 1; }
	as_owner tee -a "$BASE/$node/data/postgresql.conf" >/dev/null <<EOF

# ---- test/multiserver.sh: a private, throwaway test server
listen_addresses = ''
port = $port
unix_socket_directories = '$(sock_of "$node")'
fsync = off
synchronous_commit = off
full_page_writes = off
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] $node %q%d '
# deterministic scan order for the SGD check: no parallel workers, no synchronized scans
max_parallel_workers_per_gather = 0
synchronize_seqscans = off
EOF
	as_owner "$PGBIN/pg_ctl" start -D "$BASE/$node/data" -l "$BASE/$node/server.log" -w -t 60 \
		>/dev/null || return 1
}

say "starting 4 clusters in $BASE (ports $PORT0..$((PORT0 + 3)), Unix sockets only)"
pids=()
for node in "${NODES[@]}"; do
	init_node "$node" &
	pids+=($!)
done
failed_start=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { say "cluster ${NODES[$i]} failed to start"; failed_start=1; }
done
[ "$failed_start" -eq 0 ] || die "could not start the clusters"

# ------------------------------------------------------------------ data

# A deterministic data set that every cluster builds by itself: row i (1..ROWS)
# has label ±1 from a sin hash, a 5-dim mean  label·c + N(0, I)  (c = (1, -0.7,
# 0.5, 0, 0.3): two overlapping classes) and diagonal variances in [0.05, 0.5).
GEN_SQL=$(
	cat <<EOF
CREATE FUNCTION ms_u(i int, j int) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT AS
\$\$ SELECT x - floor(x) FROM (SELECT abs(sin(i * 12.9898::float8 + j * 78.233::float8)) * 43758.5453::float8 AS x) s \$\$;
CREATE FUNCTION ms_rows(shard int) RETURNS TABLE (id int, mean float8[], variance float8[], label int4)
LANGUAGE sql IMMUTABLE AS \$\$
  SELECT i,
         ARRAY(SELECT y * c + sqrt(-2.0 * ln(1.0 - ms_u(i, 2 * j::int + 1)))
                              * cos(2.0 * pi() * ms_u(i, 2 * j::int + 2))
               FROM unnest('{1.0, -0.7, 0.5, 0.0, 0.3}'::float8[]) WITH ORDINALITY AS t(c, j)
               ORDER BY j),
         ARRAY(SELECT 0.05 + 0.45 * ms_u(i, 20 + j) FROM generate_series(1, 5) AS j ORDER BY j),
         y
  -- all rows (shard NULL), or those with i % 3 = shard
  FROM generate_series(CASE WHEN shard IS NULL THEN 1 WHEN shard = 0 THEN 3 ELSE shard END, $ROWS,
                       CASE WHEN shard IS NULL THEN 1 ELSE 3 END) AS i,
       LATERAL (SELECT CASE WHEN ms_u(i, 0) < 0.5 THEN 1 ELSE -1 END AS y) AS l
  ORDER BY i
\$\$;
EOF
)

say "loading shards"
for k in 0 1 2; do
	q "shard$k" <<EOF &
CREATE EXTENSION pg_gsu;
$GEN_SQL
CREATE TABLE samples (id int, mean float8[], variance float8[], label int4);
INSERT INTO samples SELECT * FROM ms_rows($k);   -- in id order: the heap order SGD sees
VACUUM ANALYZE samples;
EOF
	pids[k]=$!
done

say "setting up the coordinator"
{
	cat <<EOF
CREATE EXTENSION pg_gsu;
CREATE EXTENSION postgres_fdw;
$GEN_SQL
CREATE TABLE all_samples (id int, mean float8[], variance float8[], label int4);
INSERT INTO all_samples SELECT * FROM ms_rows(NULL);
VACUUM ANALYZE all_samples;
CREATE TABLE samples (id int, mean float8[], variance float8[], label int4) PARTITION BY LIST ((id % 3));
EOF
	for k in 0 1 2; do
		cat <<EOF
CREATE SERVER shard$k FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$(sock_of "shard$k")', port '$(port_of "shard$k")', dbname 'postgres',
           extensions 'pg_gsu', async_capable 'true', fetch_size '10000');
CREATE USER MAPPING FOR postgres SERVER shard$k OPTIONS (user 'postgres');
CREATE FOREIGN TABLE samples_p$k PARTITION OF samples FOR VALUES IN ($k)
  SERVER shard$k OPTIONS (schema_name 'public', table_name 'samples');
EOF
	done
} | q coord
for k in 0 1 2; do
	wait "${pids[$k]}" || die "loading shard$k failed"
done
q coord -c "ANALYZE samples"
say "data ready after $((SECONDS - START_TIME)) s: $(q coord -c "SELECT count(*) FROM samples") rows across the shards ($(
	q coord -c "SELECT string_agg(tableoid::regclass || '=' || n, ', ' ORDER BY tableoid::regclass::text) FROM (SELECT tableoid, count(*) n FROM samples GROUP BY 1) s"
)), $(q coord -c "SELECT count(*) FROM all_samples") rows in all_samples"

# ------------------------------------------------------------------ checks

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS: %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL: %s\n' "$*"; }
indent() { sed 's/^/    /'; }

# The pass query exactly as src/gsu_fit.c (pass_query) builds it for a
# partitioned table: one aggregate per leaf partition, ONLY, summed with gsu.sum in
# partition order (the constant after the aggregate keeps the scans asynchronous).
PARTS=$(q coord -c "SELECT string_agg(c.oid::regclass::text, ' ' ORDER BY c.oid)
                     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                     WHERE i.inhparent = 'samples'::regclass")
pass_query() { # $1 model expression, $2 smoothing expression
	local sep="" p i=0 sql="SELECT gsu.sum(p ORDER BY i) FROM ("
	for p in $PARTS; do
		i=$((i + 1))
		sql+="$sep"'SELECT gsu.gradient(mean, variance, label, '"$1, $2"') AS p, '"$i"' AS i FROM ONLY '"$(
			q coord -c "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname)
			            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			            WHERE c.oid = '$p'::regclass")"
		sep=" UNION ALL "
	done
	echo "$sql) AS partials"
}

# plan_ok PLAN: the plan has one pushed-down aggregate per partition, run asynchronously
plan_ok() {
	local plan=$1 n_agg n_async n_local
	n_agg=$(grep -c 'Relations: Aggregate on' <<<"$plan" || true)
	n_async=$(grep -c 'Async Foreign Scan' <<<"$plan" || true)
	# a partial aggregate left on the coordinator would show as a local Aggregate over a Foreign Scan
	n_local=$(grep -Ec '^ *(-> *)?(Partial |Finalize )?(Hash|Group)?Aggregate' <<<"$plan" || true)
	[ "$n_agg" -eq 3 ] && [ "$n_async" -eq 3 ] && [ "$n_local" -le 1 ] &&
		grep -q 'Append' <<<"$plan" && grep -q 'Remote SQL: SELECT gsu.gradient(' <<<"$plan"
}

echo
echo "== 1. gsu.fit's pass query pushes each partition's aggregate to its shard"
PQ_NULL=$(pass_query "NULL::gsu.model" "0::float8")
echo "pass query (literal NULL model, smoothing 0): $PQ_NULL"
PLAN=$(q coord -c "EXPLAIN (VERBOSE, COSTS OFF) $PQ_NULL") || PLAN="(EXPLAIN failed)"
indent <<<"$PLAN"
if plan_ok "$PLAN"; then
	pass "1a literal NULL model: 3 x 'Relations: Aggregate on', 3 x 'Async Foreign Scan' under an Append"
else
	fail "1a literal NULL model: the aggregate is not pushed down to every shard (plan above)"
fi

# the same query as gsu.fit runs it: prepared with $1 gsu.model, $2 float8, both as
# a custom plan (the first executions) and as a generic plan (later ones may be)
# shellcheck disable=SC2016 # $1 and $2 are SQL parameters
PQ_PARAM=$(pass_query '$1' '$2')
MODEL0='{"format": 1, "dim": 5, "weights": [0.5, -0.25, 0.125, 0.0, 0.0625], "bias": 0.1}'
for mode in force_custom_plan force_generic_plan; do
	PLAN=$(q coord <<EOF
SET plan_cache_mode = $mode;
PREPARE pass(gsu.model, float8) AS $PQ_PARAM;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pass('$MODEL0', 0);
EOF
	) || PLAN="(EXPLAIN failed)"
	echo "prepared as gsu.fit does (\$1 gsu.model, \$2 float8), plan_cache_mode = $mode:"
	indent <<<"$PLAN"
	if plan_ok "$PLAN"; then
		pass "1b $mode: every partition's gsu.gradient runs on its shard"
	else
		fail "1b $mode: the aggregate is not pushed down to every shard (plan above)"
	fi
done

# and the plans gsu.fit itself runs, every pass, seen by auto_explain
AE_OUT=$(q coord 2>&1 <<'EOF'
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
SELECT gsu.describe(gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001, "solver": "lbfgs"}'))->'training'->>'passes';
EOF
) || true
N_PASSES=$(tail -n 1 <<<"$AE_OUT")
N_PLANS=$(grep -c 'Query Text: SELECT gsu.sum(p ORDER BY i) FROM (' <<<"$AE_OUT" || true)
N_PUSHED=$(grep -c 'Relations: Aggregate on' <<<"$AE_OUT" || true)
N_ASYNC=$(grep -c 'Async Foreign Scan' <<<"$AE_OUT" || true)
echo "auto_explain during gsu.fit: the plan of its first pass:"
awk '/Query Text: SELECT gsu.sum\(p\) FROM \(/{on=1} on{print "    " $0} on && /Remote SQL/{r++} r==3{exit}' <<<"$AE_OUT"
if [[ "$N_PASSES" =~ ^[0-9]+$ ]] && [ "$N_PLANS" -eq "$N_PASSES" ] &&
	[ "$N_PUSHED" -eq $((3 * N_PASSES)) ] && [ "$N_ASYNC" -eq $((3 * N_PASSES)) ]; then
	pass "1c gsu.fit (lbfgs) ran $N_PASSES passes; all $N_PLANS plans push the 3 aggregates ($N_PUSHED 'Relations: Aggregate on', $N_ASYNC 'Async Foreign Scan')"
else
	fail "1c gsu.fit (lbfgs) passes=$N_PASSES, pass plans=$N_PLANS, pushed aggregates=$N_PUSHED (want 3 per pass), async scans=$N_ASYNC"
fi

# the solver newton (the default): scan 1 is the sample (each shard sends its rows in
# the order of their hash, ORDER BY pushed down, and the coordinator's LIMIT stops the
# fetch after k of them), every later scan pushes gsu.hessian
AE_OUT=$(q coord 2>&1 <<'EOF'
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
SELECT gsu.describe(gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001}'))->'training'->>'passes';
EOF
) || true
N_PASSES=$(tail -n 1 <<<"$AE_OUT")
N_PLANS=$(grep -c 'Query Text: SELECT gsu.sum(p ORDER BY i) FROM (' <<<"$AE_OUT" || true)
N_PUSHED=$(grep -c 'Remote SQL: SELECT gsu.hessian(' <<<"$AE_OUT" || true)
# the sample's query runs with client_min_messages = error (auto_explain does not show
# it): its branches are checked by EXPLAIN, in the form src/gsu_fit.c (sample_query) builds
SAMPLE_SQL="SELECT m FROM (SELECT * FROM ("
sep=""
for p in $PARTS; do
	SAMPLE_SQL+="$sep(SELECT mean AS m, variance AS v, label AS l, pg_catalog.hash_array_extended(mean, 1::pg_catalog.int8) AS h FROM ONLY $p WHERE mean IS NOT NULL AND label IS NOT NULL ORDER BY 4, 3 LIMIT 20000)"
	sep=" UNION ALL "
done
SAMPLE_SQL+=") AS b ORDER BY h, l LIMIT 20000) AS s"
SPLAN=$(q coord -c "EXPLAIN (VERBOSE, COSTS OFF) $SAMPLE_SQL") || SPLAN="(EXPLAIN failed)"
N_SAMPLE=$(grep -Ec 'Remote SQL: SELECT .*ORDER BY hash_array_extended' <<<"$SPLAN" || true)
if [[ "$N_PASSES" =~ ^[0-9]+$ ]] && [ "$N_PASSES" -le 8 ] && [ "$N_PLANS" -eq $((N_PASSES - 1)) ] &&
	[ "$N_PUSHED" -eq $((3 * N_PLANS)) ] && [ "$N_SAMPLE" -ge 3 ]; then
	pass "1d gsu.fit (newton) ran $N_PASSES scans (at most 8): the sample's ORDER BY on each shard ($N_SAMPLE), then $N_PLANS scans pushing gsu.hessian to the 3 shards ($N_PUSHED)"
else
	fail "1d gsu.fit (newton) scans=$N_PASSES (want at most 8), hessian scans=$N_PLANS (want scans - 1), pushed gsu.hessian=$N_PUSHED (want 3 per scan), sample branches pushed=$N_SAMPLE (want 3)"
fi

echo
echo "== 2. gsu.fit over the shards = gsu.fit and gsu.train on the local all_samples"
# Tolerances: gsu.fit's L-BFGS and gsu.train's Newton stop at ||grad F|| <= 1e-6 ||grad F(0)||,
# not at the exact minimizer.  F is lambda-strongly convex, so the objective is off the
# optimum by O(||grad F||^2 / lambda): far below 1e-9 relative; the weights by up to
# ||grad F|| / (lambda + curvature of the data term): 1e-4 relative leaves room for that.
# (The two gsu.fit runs also sum their gradients in different orders, so their L-BFGS
# paths may part in the last bits.)
OUT=$(q coord <<'EOF'
SET client_min_messages = warning;
CREATE TEMP TABLE m2 AS
  SELECT 'fit_shards'::text AS how, clock_timestamp() AS t0,
         gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001}') AS m, clock_timestamp() AS t1;
INSERT INTO m2 SELECT 'fit_local', clock_timestamp(),
         gsu.fit('all_samples', 'mean', 'variance', 'label', '{"lambda": 0.001}'), clock_timestamp();
INSERT INTO m2 SELECT 'train_local', clock_timestamp(),
         (SELECT gsu.train(mean, variance, label, '{"lambda": 0.001}') FROM all_samples), clock_timestamp();
INSERT INTO m2 SELECT 'lbfgs_shards', clock_timestamp(),
         gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001, "solver": "lbfgs"}'), clock_timestamp();
CREATE TEMP TABLE v2 AS
  SELECT how, (gsu.describe(m)->'training'->>'objective')::float8 AS obj,
         gsu.weights(m) || gsu.bias(m) AS wb, gsu.describe(m)->'training' AS tr,
         round(extract(epoch FROM t1 - t0)::numeric, 3) AS secs
  FROM m2;
SELECT format('%-11s objective %s  converged %s  passes %s  rows %s  %s s  weights+bias %s',
              how, obj, tr->>'converged', tr->>'passes', tr->>'rows', secs, wb)
  FROM v2 ORDER BY how;
SELECT format('%s vs %s: objective rel diff %s (tol 1e-9), weights max rel diff %s (tol 1e-4) => %s',
              a.how, b.how, d.obj_rel, d.w_rel,
              CASE WHEN d.obj_rel <= 1e-9 AND d.w_rel <= 1e-4
                        AND a.tr->>'converged' = 'true' AND b.tr->>'converged' = 'true'
                        AND a.tr->>'rows' = b.tr->>'rows'
                        AND (a.tr->>'passes')::int <= 8 THEN 'ok' ELSE 'BAD' END)
  FROM v2 a, v2 b,
       LATERAL (SELECT abs(a.obj - b.obj) / abs(b.obj) AS obj_rel,
                       (SELECT max(abs(x - y)) FROM unnest(a.wb, b.wb) AS u(x, y))
                       / (SELECT max(abs(y)) FROM unnest(b.wb) AS y) AS w_rel) d
  WHERE a.how = 'fit_shards' AND b.how <> 'fit_shards'
  ORDER BY b.how;
EOF
) || OUT="(query failed)"
indent <<<"$OUT"
while IFS= read -r line; do
	case "$line" in
	*" => ok") pass "2 ${line% => ok}" ;;
	*" => BAD") fail "2 ${line% => BAD}" ;;
	esac
done <<<"$OUT"
[ "$(grep -c ' => ' <<<"$OUT")" -eq 3 ] || fail "2 expected three comparisons"

# the hinge loss over the shards: the exact optimum (the polish) in at most 12 scans
OUT=$(q coord <<'EOF'
SET client_min_messages = warning;
SELECT format('hinge over the shards: %s scans, objective rel diff to gsu.train %s => %s',
              sf->>'passes', abs((sf->>'objective')::float8 - (t->>'objective')::float8) / (t->>'objective')::float8,
              CASE WHEN (sf->>'passes')::int <= 12 AND sf->>'converged' = 'true'
                        AND abs((sf->>'objective')::float8 - (t->>'objective')::float8) <= 1e-6 * (t->>'objective')::float8
                   THEN 'ok' ELSE 'BAD' END)
FROM (SELECT gsu.describe(gsu.fit('samples', 'mean', NULL, 'label', '{"lambda": 0.001, "loss": "hinge"}'))->'training' AS sf,
             gsu.describe((SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 0.001, "loss": "hinge"}') FROM all_samples))->'training' AS t) s;
EOF
) || OUT="(query failed)"
indent <<<"$OUT"
case "$OUT" in
*" => ok"*) pass "2 hinge: ${OUT% => ok}" ;;
*) fail "2 hinge over the shards: $OUT" ;;
esac

echo
echo "== 3. the shards' gradient partials, summed with gsu.sum, = gsu.gradient over all_samples"
MODEL3="(SELECT gsu.train(mean, variance, label, '{\"lambda\": 0.01, \"tolerance\": 0.01}') FROM all_samples WHERE id <= 3000)"
OUT=$(q coord <<EOF
CREATE TEMP TABLE at3 AS SELECT $MODEL3 AS m;
-- each shard's partial, fetched through its foreign partition (pushed down)
CREATE TEMP TABLE shard_partials AS
  SELECT 0 AS k, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p0) AS p FROM at3
  UNION ALL SELECT 1, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p1) FROM at3
  UNION ALL SELECT 2, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p2) FROM at3;
CREATE TEMP TABLE g3 AS
  SELECT (SELECT gsu.sum(p ORDER BY k) FROM shard_partials)::text::jsonb AS shards,
         (SELECT gsu.gradient(mean, variance, label, m, 0) FROM all_samples, at3)::text::jsonb AS local;
SELECT format('shards: rows %s, loss_sum %s, vector %s', shards->'rows', shards->'loss_sum', shards->'vector') FROM g3;
SELECT format('local:  rows %s, loss_sum %s, vector %s', local->'rows', local->'loss_sum', local->'vector') FROM g3;
SELECT format('loss_sum rel diff %s, vector max diff / max |element| %s (tol 1e-12), rows %s/%s, positives %s/%s => %s',
              d.l_rel, d.v_rel, shards->'rows', local->'rows', shards->'positives', local->'positives',
              CASE WHEN d.l_rel <= 1e-12 AND d.v_rel <= 1e-12 AND shards->'rows' = local->'rows'
                        AND shards->'positives' = local->'positives'
                        AND (shards->>'rows')::int = (SELECT count(*) FROM all_samples)
                   THEN 'ok' ELSE 'BAD' END)
  FROM g3,
       LATERAL (SELECT abs((shards->>'loss_sum')::float8 - (local->>'loss_sum')::float8)
                       / abs((local->>'loss_sum')::float8) AS l_rel,
                       (SELECT max(abs(x::float8 - y::float8))
                          FROM unnest(ARRAY(SELECT jsonb_array_elements_text(shards->'vector')),
                                      ARRAY(SELECT jsonb_array_elements_text(local->'vector'))) AS u(x, y))
                       / (SELECT max(abs(y::float8)) FROM jsonb_array_elements_text(local->'vector') AS y) AS v_rel) d;
EOF
) || OUT="(query failed)"
indent <<<"$OUT"
line=$(tail -n 1 <<<"$OUT")
case "$line" in
*" => ok") pass "3 ${line% => ok}" ;;
*) fail "3 ${line:-no result}" ;;
esac
PLAN=$(q coord -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT gsu.gradient(mean, variance, label, NULL::gsu.model, 0) FROM ONLY samples_p1") ||
	PLAN="(EXPLAIN failed)"
if grep -q 'Relations: Aggregate on' <<<"$PLAN"; then
	pass "3 a shard's gsu.gradient through its foreign table is pushed down: $(grep 'Remote SQL' <<<"$PLAN" | sed 's/^ *//')"
else
	indent <<<"$PLAN"
	fail "3 a shard's gsu.gradient through its foreign table is not pushed down"
fi

echo
echo "== 4. gsu.sgd_partial on the shards + gsu.sum/gsu.to_model = the same on all_samples, bit for bit"
# SGD depends on the row order: the shards scan their heaps, loaded in id order, with no
# parallel workers and no synchronized scans; the local side orders by id explicitly.
# The partials are combined in shard order (gsu.sum's averaging is order-dependent, and an
# async Append returns the shards' rows in whatever order they arrive).
SGD_SHARDS="SELECT gsu.to_model(gsu.sum(p ORDER BY k)) FROM (
  SELECT gsu.sgd_partial(mean, variance, label, '{}') AS p, 0 AS k FROM ONLY samples_p0
  UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{}'), 1 FROM ONLY samples_p1
  UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{}'), 2 FROM ONLY samples_p2) AS s"
SGD_LOCAL="SELECT gsu.to_model(gsu.sum(p ORDER BY k)) FROM (
  SELECT id % 3 AS k, gsu.sgd_partial(mean, variance, label, '{}' ORDER BY id) AS p
  FROM all_samples GROUP BY id % 3) AS s"
PLAN=$(q coord -c "EXPLAIN (VERBOSE, COSTS OFF) $SGD_SHARDS") || PLAN="(EXPLAIN failed)"
indent <<<"$PLAN"
n=$(grep -c "Remote SQL: SELECT gsu.sgd_partial(mean, variance, label, '{}'::jsonb), [0-2] FROM public.samples\$" <<<"$PLAN" || true)
if [ "$(grep -c 'Relations: Aggregate on' <<<"$PLAN" || true)" -eq 3 ] && [ "$n" -eq 3 ]; then
	pass "4 each shard's gsu.sgd_partial is pushed down (3 x 'Relations: Aggregate on', Remote SQL SELECT gsu.sgd_partial(...))"
else
	fail "4 gsu.sgd_partial is not pushed down to every shard (plan above)"
fi
OUT=$(q coord <<EOF
CREATE TEMP TABLE m4 AS SELECT ($SGD_SHARDS) AS shards, ($SGD_LOCAL) AS local;
SELECT format('shards: weights %s bias %s', gsu.weights(shards), gsu.bias(shards)) FROM m4;
SELECT format('local:  weights %s bias %s', gsu.weights(local), gsu.bias(local)) FROM m4;
SELECT format('weights and bias identical as text: %s, rows %s; training accuracy %s (want > 0.8) => %s',
              same, gsu.describe(shards)->'training'->'rows', acc,
              CASE WHEN same AND acc > 0.8
                        AND (gsu.describe(shards)->'training'->>'rows')::int = (SELECT count(*) FROM all_samples)
                   THEN 'ok' ELSE 'BAD' END)
  FROM m4,
       LATERAL (SELECT gsu.weights(shards)::text = gsu.weights(local)::text
                       AND gsu.bias(shards)::text = gsu.bias(local)::text AS same) s,
       LATERAL (SELECT round(avg((gsu.predict(shards, mean) = label)::int), 4) AS acc FROM all_samples) a;
EOF
) || OUT="(query failed)"
indent <<<"$OUT"
line=$(tail -n 1 <<<"$OUT")
case "$line" in
*" => ok") pass "4 ${line% => ok}" ;;
*) fail "4 ${line:-no result}" ;;
esac

echo
echo "== 5. row and class weights over the shards: gsu.fit's weighted scans run on the shards"
# a weight column on the shards (1 + id % 4, a table rewrite that keeps the heap order)
# and the same on all_samples; the coordinator's partitioned table gets the column too
for k in 0 1 2; do
	q "shard$k" -c "ALTER TABLE samples ADD COLUMN w float8 GENERATED ALWAYS AS ((1 + id % 4)::float8) STORED"
done
q coord -c "ALTER TABLE samples ADD COLUMN w float8" \
	-c "ALTER TABLE all_samples ADD COLUMN w float8 GENERATED ALWAYS AS ((1 + id % 4)::float8) STORED"
AE_OUT=$(q coord 2>&1 <<'EOF'
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
SELECT format('weighted, balanced over the shards: %s scans, objective rel diff to gsu.train %s, class weights %s vs %s => %s',
              sf->>'passes', abs((sf->>'objective')::float8 - (t->>'objective')::float8) / (t->>'objective')::float8,
              fcw, tcw,
              CASE WHEN (sf->>'passes')::int <= 8 AND sf->>'converged' = 'true' AND fcw = tcw
                        AND abs((sf->>'objective')::float8 - (t->>'objective')::float8) <= 1e-6 * (t->>'objective')::float8
                   THEN 'ok' ELSE 'BAD' END)
FROM (SELECT gsu.describe(f)->'training' AS sf, (f::jsonb)->'class_weight' AS fcw
	  FROM gsu.fit('samples', 'mean', 'variance', 'label', 'w', '{"lambda": 0.001, "class_weight": "balanced"}') f) a,
	 (SELECT gsu.describe(m)->'training' AS t, (m::jsonb)->'class_weight' AS tcw
	  FROM (SELECT gsu.train(mean, variance, label, w, '{"lambda": 0.001, "class_weight": "balanced"}') AS m FROM all_samples) s) b;
EOF
) || true
line=$(grep ' => ' <<<"$AE_OUT" | tail -n 1)
N_PLANS=$(grep -c 'Query Text: SELECT gsu.sum(p ORDER BY i), gsu.sum(q ORDER BY i)' <<<"$AE_OUT" || true)
N_PUSHED=$(grep -c 'Remote SQL: SELECT gsu.hessian(.*FILTER' <<<"$AE_OUT" || true)
case "$line" in
*" => ok"*)
	if [ "$N_PLANS" -ge 1 ] && [ "$N_PUSHED" -eq $((3 * N_PLANS)) ]; then
		pass "5 ${line% => ok}; $N_PLANS scans push the per-class gsu.hessian to the 3 shards"
	else
		fail "5 the weighted scans are not pushed down: $N_PLANS scans, $N_PUSHED pushed (want 3 per scan)"
	fi ;;
*) fail "5 ${line:-no result}" ;;
esac

echo
echo "== 6. gsu.fit over the shards reads the rows SELECT ... FROM samples returns to its caller"
# ms_all may read the parent and the foreign partitions, ms_parent the parent only; then a
# policy on the parent. The leaves are read apart (aggregates pushed down) only for ms_all
# without the policy; otherwise the scans read the parent and the policy applies.
q coord <<'EOF'
CREATE ROLE ms_all;
CREATE ROLE ms_parent;
GRANT USAGE ON SCHEMA gsu TO ms_all, ms_parent;
GRANT SELECT ON samples, samples_p0, samples_p1, samples_p2 TO ms_all;
GRANT SELECT ON samples TO ms_parent;
CREATE USER MAPPING FOR PUBLIC SERVER shard0 OPTIONS (user 'postgres', password_required 'false');
CREATE USER MAPPING FOR PUBLIC SERVER shard1 OPTIONS (user 'postgres', password_required 'false');
CREATE USER MAPPING FOR PUBLIC SERVER shard2 OPTIONS (user 'postgres', password_required 'false');
EOF
# fit_as ROLE: the rows of a gsu.fit (newton) run as ROLE, the rows ROLE sees, the objective's
# relative difference to gsu.train's on those rows, and the gsu.hessian aggregates pushed down
fit_as() {
	local out
	out=$(q coord 2>&1 <<EOF
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
SET ROLE $1;
SELECT format('rows=%s seen=%s objective_rel_diff=%s', gsu.describe(f)->'training'->>'rows', (SELECT count(*) FROM samples),
              abs((gsu.describe(f)->'training'->>'objective')::float8 - (gsu.describe(t)->'training'->>'objective')::float8)
              / (gsu.describe(t)->'training'->>'objective')::float8)
FROM gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001}') f,
     (SELECT gsu.train(mean, variance, label, '{"lambda": 0.001}') AS t FROM samples) s;
EOF
	) || true
	echo "$(grep -o 'rows=.*' <<<"$out" | tail -n 1) pushed=$(grep -c 'Remote SQL: SELECT gsu.hessian(' <<<"$out" || true)"
}
# check6 NAME LINE ROWS PUSHED: the fit read ROWS rows (as many as the role sees), reached
# gsu.train's objective to 1e-6, and pushed PUSHED gsu.hessian aggregates ("any": some)
check6() {
	local rows seen rel pushed
	rows=$(grep -o 'rows=[0-9]*' <<<"$2" | cut -d= -f2)
	seen=$(grep -o 'seen=[0-9]*' <<<"$2" | cut -d= -f2)
	rel=$(grep -o 'objective_rel_diff=[^ ]*' <<<"$2" | cut -d= -f2)
	pushed=$(grep -o 'pushed=[0-9]*' <<<"$2" | cut -d= -f2)
	if [ -n "$rows" ] && [ "$rows" = "$3" ] && [ "$seen" = "$3" ] &&
		awk -v r="$rel" 'BEGIN { exit !(r + 0 <= 1e-6) }' &&
		{ { [ "$4" = any ] && [ "${pushed:-0}" -gt 0 ]; } || [ "${pushed:-x}" = "$4" ]; }; then
		pass "6 $1: $2"
	else
		fail "6 $1: $2 (want rows $3, pushed $4)"
	fi
}
ALL=$(q coord -c "SELECT count(*) FROM samples")
check6 "SELECT on the partitions too, no policy: the shards sum their rows" "$(fit_as ms_all)" "$ALL" any
check6 "SELECT on the parent only: the scans read the parent" "$(fit_as ms_parent)" "$ALL" 0
q coord -c "ALTER TABLE samples ENABLE ROW LEVEL SECURITY" -c "CREATE POLICY some_rows ON samples USING (id % 5 = 0)"
SOME=$(q coord -c "SELECT count(*) FROM samples WHERE id % 5 = 0")
check6 "a policy on the parent, SELECT on the partitions too: the policy's rows" "$(fit_as ms_all)" "$SOME" 0
check6 "a policy on the parent, SELECT on the parent only: the policy's rows" "$(fit_as ms_parent)" "$SOME" 0

echo "multiserver: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
