#!/bin/bash
# clients.sh — pg_gsu from real clients, as an ordinary role: psycopg 3 (text
# and binary, numpy in and out), psycopg2 and node-postgres (every parameter
# untyped), through the adapters of clients/python/pg_gsu.py and
# clients/node/pg_gsu.js. A superuser runs CREATE EXTENSION in a database of
# its own; the role gsu_client_test gets no grant but CREATE on the schema
# public (to keep its tables), so it relies on the extension's own grants.
# Needs /usr/bin/python3 with python3-psycopg, python3-psycopg2 and
# python3-numpy, node and npm (installs npm's pg into a temporary directory).
# Uses the cluster of PGHOST/PGPORT/PGUSER; prints each check and
# "clients: N passed, M failed"; exits 1 on a failure.
set -u
PSQL=${PSQL:-psql}
command -v "$PSQL" >/dev/null 2>&1 || PSQL=/usr/lib/postgresql/15/bin/psql
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DB=gsu_clients_test
ROLE=gsu_client_test
WORK=$(mktemp -d /tmp/pg_gsu_clients.XXXXXX)
pass=0
fail=0

cleanup() {
	"$PSQL" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT
"$PSQL" -X -q -d postgres -v ON_ERROR_STOP=1 >/dev/null <<SQL || { echo "clients: 0 passed, 1 failed"; exit 1; }
SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
DROP ROLE IF EXISTS $ROLE;
CREATE ROLE $ROLE LOGIN;
CREATE DATABASE $DB;
SQL
"$PSQL" -X -q -d "$DB" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION pg_gsu" \
	-c "GRANT CREATE ON SCHEMA public TO $ROLE" >/dev/null || { echo "clients: 0 passed, 1 failed"; exit 1; }

# run_part NAME CMD...: counts the part's own "N passed, M failed" line
run_part() {
	local name=$1 out p f
	shift
	out=$("$@" 2>&1)
	echo "$out" | grep -v '^[0-9]* passed, [0-9]* failed$' | sed "s/^/[$name] /"
	read -r p f < <(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
	if [ -z "${p:-}" ]; then
		echo "[$name] FAILED: no summary line"
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + p))
	fail=$((fail + f))
}

CONNINFO="host=${PGHOST:-/var/run/postgresql} port=${PGPORT:-5432} dbname=$DB user=$ROLE"
export PYTHONDONTWRITEBYTECODE=1
run_part psycopg /usr/bin/python3 "$HERE/clients.py" psycopg "$CONNINFO"
run_part psycopg2 /usr/bin/python3 "$HERE/clients.py" psycopg2 "$CONNINFO"
if (cd "$WORK" && npm install --no-audit --no-fund --silent pg@8 >npm.log 2>&1); then
	run_part node-postgres env NODE_PATH="$WORK/node_modules" node "$HERE/clients.js" "$DB" "$ROLE"
else
	echo "[node-postgres] FAILED: npm install pg"
	cat "$WORK/npm.log"
	fail=$((fail + 1))
fi
echo "clients: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
