#!/usr/bin/env bash
# gsu.train_regression with zero variance (plain epsilon-SVR and ridge; issue 33 part 4)
# against liblinear's SVR (liblinear-train -s 13: L1-loss SVR, the same loss as SVR-GSU;
# -s 11 and -s 12 with -p 0: L2-loss SVR, which with epsilon 0 is ridge-GSU's squared
# loss) and scikit-learn's LinearSVR and Ridge, on the same generated rows, a few shapes
# (CELLS: n:d:noise:lambda). Each solution is scored with pg_gsu's objective (b
# unregularized), so every row solves the same problem; the scalings (C = 1/(lambda n),
# Ridge's alpha = lambda n / 2) are in bench/regression_peers.py, which does the work.
# Times from one run of each, on a shared 2-CPU machine: gsu's is the aggregate's
# scan and solve inside the server (clock_timestamp around it), liblinear's the
# wall time of liblinear-train including reading its file (the note column gives the
# time of a trivial run on the same file, mostly the read), scikit-learn's that of
# fit() on arrays in memory. "time / gsu" > 1: the peer is slower.
#
#   bash bench/regression_peers.sh                     # its own cluster, five cells (under a minute)
#   FULL=1 bash bench/regression_peers.sh              # and the slow cell (~17 min; the results file)
#   PGHOST=... PGPORT=... bash bench/regression_peers.sh
#
# Needs liblinear-tools and python3-sklearn (Debian). Output also in $RESULTS
# (default bench/regression_peers-results.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
# The default cells take under a minute (33 s at load 0.7). The recorded results add the slow cell
# 20000:100:0.1:1e-5 (15 more minutes, nearly all of it LinearSVR at its iteration
# limit): FULL=1 bash bench/regression_peers.sh.
SLOW_CELL="20000:100:0.1:1e-5"
if [ "${FULL:-0}" = 1 ]; then
	CELLS=${CELLS:-"2000:10:0.1:1e-3 20000:10:0.1:1e-3 20000:100:0.1:1e-3 20000:100:1:1e-3 $SLOW_CELL 20000:30:0.5:1e-1"}
else
	CELLS=${CELLS:-"2000:10:0.1:1e-3 20000:10:0.1:1e-3 20000:100:0.1:1e-3 20000:100:1:1e-3 20000:30:0.5:1e-1"}
fi
DB=${PEERS_BENCH_DB:-regression_peers}
PSQL=${PSQL:-psql}
RESULTS=${RESULTS:-bench/regression_peers-results.md}
command -v liblinear-train >/dev/null || {
	echo "missing liblinear-train (apt-get install liblinear-tools)" >&2
	exit 1
}
/usr/bin/python3 -c 'import sklearn' || {
	echo "missing scikit-learn (apt-get install python3-sklearn)" >&2
	exit 1
}
bench_server /tmp/pg_gsu_regpeers 54454
bench_start
$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
$PSQL -X -q -d "$DB" -c "CREATE EXTENSION pg_gsu"
{
	echo "# gsu.train_regression (zero variance) against liblinear and scikit-learn"
	echo
	echo "- command: \`CELLS=\"$CELLS\" bash bench/regression_peers.sh\`"
	echo "- date: $START; commit $COMMIT$DIRTY"
	echo "- machine: $(nproc) CPUs; load average at start $LOAD0 (shared machine)"
	echo "- $($PSQL -X -A -t -d "$DB" -c 'SELECT version()')"
	echo "- liblinear $(dpkg-query -W -f '${Version}' liblinear-tools 2>/dev/null || echo '?'); scikit-learn $(/usr/bin/python3 -c 'import sklearn; print(sklearn.__version__)')"
	echo "- rows: x ~ N(0, diag(s²)) with log s ~ N(0, 1), y = w'x + 0.5 + noise·t₅, 5000 test rows of the same law; ε = 0.1"
	echo
	DB=$DB PSQL=$PSQL /usr/bin/python3 bench/regression_peers.py "$CELLS"
	echo
	echo "Run time $(($(date +%s) - T0)) s; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$RESULTS"
