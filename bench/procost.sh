#!/usr/bin/env bash
# Per-call time of pg_gsu's functions, in units of a builtin operator measured in the
# same run: the figures behind the COST (and ROWS) clauses of src/sql/*.sql (issue 29).
#
# Usage: bash bench/procost.sh [ROWS]
#
#   ROWS  rows of the main table (default 20000); the expensive functions run on fewer
#         (the column "calls" of the output)
#
# Runs against the server in PGHOST/PGPORT/PGUSER (pg_gsu installed), in a database
# gsu_bench_procost that it creates and drops; about a minute on an idle machine. Not
# part of CI.
#
# PostgreSQL's COST unit is cpu_operator_cost (0.0025 of a sequential page fetch), and
# its builtin operators cost 1: so a function's COST is its time per call divided by the
# time of one builtin call. The builtin measured here is float8 + (float8pl): 10 chains of
# 20 additions over two float8 columns a row, less the scan that reads them, divided by
# 200 (a shorter chain left the unit to the noise of the scan: 7 to 35 ns in two runs).
# Every other figure is (time of SELECT count(f(...)) over N rows - time of the same scan
# without f) / N (a cheap function 10 times a row: 10 counts, so N = 10 * rows), the
# minimum of 5 runs, serial (max_parallel_workers_per_gather = 0),
# JIT off; a model, projection or reference set comes from a scalar subquery, as in a
# scoring query, so it is read once and not folded into a constant. An aggregate is timed
# per input row, its final function (the solve, for gsu.train) included: that is what
# the COST of its transition function stands for (see docs/performance.md).
#
# Representative inputs: 50 features, diagonal variances, a two-class linear model
# trained on 2000 rows; a calibrated copy; a model with a random Fourier feature map of
# 200 features; a GEU-LDA projection; a reference set of 1000 rows; 28x28 images; EEG-like
# signals of 1024 samples at 128 Hz.
set -euo pipefail

N=${1:-20000}
DB=gsu_bench_procost
export PGDATABASE=postgres

cleanup() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
}
trap cleanup EXIT
cleanup
psql -X -q -d postgres -c "CREATE DATABASE $DB"

psql -X -q -v ON_ERROR_STOP=1 -v n="$N" -d "$DB" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION pg_gsu;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- seeded data: a hash of (row, column) through sin(), no random()
CREATE TABLE t AS
SELECT i AS id,
	ARRAY(SELECT sin(i * 12.9898 + j * 78.233) + CASE WHEN j <= 5 THEN l * 0.5 ELSE 0 END
		  FROM generate_series(1, 50) j)::float8[] AS mean,
	ARRAY(SELECT 0.05 + 0.3 * abs(sin(i * 3.1 + j * 7.7)) FROM generate_series(1, 50) j)::float8[] AS variance,
	l AS label, l > 0 AS flag, sin(i * 1.1) AS a, cos(i * 2.3) AS b,
	0.5 + 0.49 * sin(i * 0.7) AS p, 1 + i % 3 AS w
FROM generate_series(1, :n) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
CREATE TABLE images AS
SELECT i AS id, ARRAY(SELECT sin(i + k * 0.37) FROM generate_series(1, 784) k)::float8[] AS image
FROM generate_series(1, 500) i;
CREATE TABLE signals AS
SELECT i AS id, ARRAY(SELECT sin(2 * pi() * 10 * k / 128.0) + 0.3 * sin(i * k * 0.013) FROM generate_series(0, 1023) k)::float8[] AS signal
FROM generate_series(1, 200) i;
VACUUM ANALYZE t;
VACUUM ANALYZE images;
VACUUM ANALYZE signals;

CREATE TABLE m AS
SELECT gsu.train(mean, variance, label, '{"lambda": 0.001}') AS linear,
	gsu.train(mean, variance, label, '{"lambda": 0.001, "features": {"map": "rff", "dim": 200, "sigma": 5, "seed": 1}}') AS rff
FROM t WHERE id <= 2000;
ALTER TABLE m ADD COLUMN calibrated gsu.model;
UPDATE m SET calibrated = (SELECT gsu.calibrate((SELECT linear FROM m), mean, label) FROM t WHERE id BETWEEN 2001 AND 4000);
CREATE TABLE pr AS SELECT gsu.geu_fit(mean, variance, label) AS p FROM t WHERE id <= 2000;
CREATE TABLE rs AS SELECT gsu.refset_agg(mean, label) AS r FROM t WHERE id <= 1000;

-- the minimum of 5 runs of q, in milliseconds
-- (fails: q ends in an error, as it must, which is caught)
CREATE FUNCTION ms(q text, fails bool DEFAULT false) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	best float8 := 'Infinity';
	failed bool;
BEGIN
	FOR i IN 0 .. 5 LOOP		-- run 0: warm-up
		t0 := clock_timestamp();
		failed := false;
		BEGIN
			EXECUTE q;
		EXCEPTION WHEN OTHERS THEN
			IF NOT fails THEN
				RAISE;
			END IF;
			failed := true;
		END;
		IF fails AND NOT failed THEN
			RAISE EXCEPTION 'expected an error: %', q;
		END IF;
		IF i > 0 THEN
			best := least(best, 1000 * extract(epoch FROM clock_timestamp() - t0));
		END IF;
	END LOOP;
	RETURN best;
END
$$;

-- name, expression (evaluated once a row), table, rows; the scan without the
-- expression is count(*) over the same rows plus touching the columns it reads
CREATE TABLE cases (ord serial, name text, expr text, tab text, calls int, agg bool, fails bool DEFAULT false, reps int DEFAULT 1);
INSERT INTO cases (name, expr, tab, calls, agg) VALUES
	('builtin float8 + (float8pl)', 'a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b + a + b + a', 't', :n, false),
	('builtin sqrt', 'sqrt(abs(a))', 't', :n, false),
	('decision', 'gsu.decision((SELECT linear FROM m), mean)', 't', :n, false),
	('decisions', 'gsu.decisions((SELECT linear FROM m), mean)', 't', :n, false),
	('predict', 'gsu.predict((SELECT linear FROM m), mean)', 't', :n, false),
	('confidence, certain row', 'gsu.confidence((SELECT linear FROM m), mean)', 't', :n, false),
	('confidence, diagonal variance', 'gsu.confidence((SELECT linear FROM m), mean, variance)', 't', :n, false),
	('expected_loss', 'gsu.expected_loss((SELECT linear FROM m), mean, variance, label)', 't', :n, false),
	('probability', 'gsu.probability((SELECT calibrated FROM m), mean)', 't', :n, false),
	('probabilities', 'gsu.probabilities((SELECT calibrated FROM m), mean)', 't', :n, false),
	('weights', 'gsu.weights((SELECT linear FROM m) , CASE WHEN a > 2 THEN 1 END)', 't', :n, false),
	('bias', 'gsu.bias((SELECT linear FROM m), CASE WHEN a > 2 THEN 1 END)', 't', :n, false),
	('classes', 'gsu.classes(CASE WHEN a > 2 THEN NULL ELSE (SELECT linear FROM m) END)', 't', :n, false),
	('describe', 'gsu.describe(CASE WHEN a > 2 THEN NULL ELSE (SELECT linear FROM m) END)', 't', :n, false),
	('explain (51 rows a call)', '(SELECT count(*) FROM gsu.explain((SELECT linear FROM m), mean, variance))', 't', 2000, false),
	('rff 200: decision', 'gsu.decision((SELECT rff FROM m), mean)', 't', 2000, false),
	('rff 200: confidence, diagonal variance', 'gsu.confidence((SELECT rff FROM m), mean, variance)', 't', 200, false),
	('rff 200: expected_loss', 'gsu.expected_loss((SELECT rff FROM m), mean, variance, label)', 't', 200, false),
	('project', 'gsu.project((SELECT p FROM pr), mean)', 't', :n, false),
	('project_variance', 'gsu.project_variance((SELECT p FROM pr), variance)', 't', :n, false),
	('project_covariance', 'gsu.project_covariance((SELECT p FROM pr), variance)', 't', :n, false),
	('eigenvalues', 'gsu.eigenvalues(CASE WHEN a > 2 THEN NULL ELSE (SELECT p FROM pr) END)', 't', :n, false),
	('vectors', 'gsu.vectors(CASE WHEN a > 2 THEN NULL ELSE (SELECT p FROM pr) END)', 't', :n, false),
	('describe_projection', 'gsu.describe_projection(CASE WHEN a > 2 THEN NULL ELSE (SELECT p FROM pr) END)', 't', :n, false),
	('describe_refset (1000 x 50)', 'gsu.describe_refset(CASE WHEN a > 2 THEN NULL ELSE (SELECT r FROM rs) END)', 't', 2000, false),
	('knn_predict (1000 x 50, k = 5)', 'gsu.knn_predict((SELECT r FROM rs), mean, 5)', 't', 2000, false),
	('nn_variance (1000 x 50)', 'gsu.nn_variance((SELECT r FROM rs), mean, label, 1, true)', 't', 2000, false),
	('image_variance (28 x 28)', 'gsu.image_variance(image, 28, 28, 1)', 'images', 500, false),
	('image_covariance (28 x 28)', 'gsu.image_covariance(image, 28, 28, 1)', 'images', 20, false),
	('welch (1024 samples)', 'gsu.welch(signal, 128)', 'signals', 200, false),
	('to_model', 'gsu.to_model(CASE WHEN a > 2 THEN NULL ELSE (SELECT gsu.sgd_partial(mean, variance, label, ''{}'') FROM t WHERE id <= 100) END)', 't', :n, false),
	('model::jsonb', '(CASE WHEN a > 2 THEN NULL ELSE (SELECT linear FROM m) END)::jsonb', 't', 2000, false),
	('lambda_list', 'gsu.lambda_list(''{0.1, '' || (a > 2)::int + 1 || ''}'')', 't', 2000, false),
	('model = model', '(SELECT linear FROM m) OPERATOR(gsu.=) (CASE WHEN a > 2 THEN NULL ELSE (SELECT linear FROM m) END)', 't', :n, false),
	-- aggregates, per input row (the final function included)
	('agg train (newton, 2000 rows)', 'gsu.train(mean, variance, label)', 't', 2000, true),
	('agg train (newton)', 'gsu.train(mean, variance, label)', 't', :n, true),
	('agg train (sgd)', 'gsu.train(mean, variance, label, ''{"solver": "sgd"}'')', 't', :n, true),
	('agg train_sgd', 'gsu.train_sgd(mean, variance, label, ''{}'')', 't', :n, true),
	('agg gradient', 'gsu.gradient(mean, variance, label, (SELECT linear FROM m), 0.001)', 't', :n, true),
	('agg hessian', 'gsu.hessian(mean, variance, label, (SELECT linear FROM m), 0.001, 0)', 't', :n, true),
	('agg calibrate', 'gsu.calibrate((SELECT linear FROM m), mean, label)', 't', :n, true),
	('agg geu_fit', 'gsu.geu_fit(mean, variance, label)', 't', :n, true),
	('agg refset_agg', 'gsu.refset_agg(mean, label)', 't', :n, true),
	('agg moments', 'gsu.moments(mean)', 't', :n, true),
	('agg moments (full)', 'gsu.moments(mean, ''{"covariance": "full"}'')', 't', :n, true),
	('agg fisher_score', 'gsu.fisher_score(mean, label)', 't', :n, true),
	('agg confusion', 'gsu.confusion(label, CASE WHEN a > 0 THEN 1 ELSE -1 END)', 't', :n, true),
	('agg roc_auc', 'gsu.roc_auc(a, label)', 't', :n, true),
	('agg log_loss', 'gsu.log_loss(p, label)', 't', :n, true);
-- gsu.train's transition alone: with one class its final function refuses before solving
INSERT INTO cases (name, expr, tab, calls, agg, fails) VALUES
	('agg train, transition only (newton: rows buffered)', 'gsu.train(mean, variance, 1)', 't', :n, true, true);

-- a cheap function is called 10 times a row (10 counts), so that it outweighs the scan;
-- the builtin too (10 chains of 20 additions a row: 4 million calls at the default size)
UPDATE cases SET reps = 10 WHERE NOT agg AND calls = :n;

CREATE TABLE timings AS
SELECT c.ord, c.name, c.calls * c.reps AS calls,
	ms(format('SELECT %s FROM %s WHERE id <= %s',
			  CASE WHEN c.agg THEN c.expr
				   ELSE array_to_string(ARRAY(SELECT format('count(%s)', c.expr) FROM generate_series(1, c.reps)), ', ') END,
			  c.tab, c.calls), c.fails) AS with_f,
	ms(format('SELECT count(*) FROM %s WHERE id <= %s', c.tab, c.calls)) AS scan
FROM cases c ORDER BY c.ord;

WITH unit AS (SELECT (with_f - scan) / calls / 20 * 1e6 AS ns FROM timings WHERE ord = 1)
SELECT t.name, t.calls,
	round(((t.with_f - t.scan) / t.calls * 1e6 / CASE WHEN t.ord = 1 THEN 20 ELSE 1 END)::numeric, 1) AS ns_per_call,
	round(((t.with_f - t.scan) / t.calls * 1e6 / CASE WHEN t.ord = 1 THEN 20 ELSE 1 END / unit.ns)::numeric, 0) AS builtin_units
FROM timings t, unit ORDER BY t.ord;

-- the planner's own scale on this machine: the estimated cost of the serial scan
-- of the main table against its measured time, as nanoseconds per cpu_operator_cost
-- (0.0025 of a page); close to the time of float8 + above when the units agree
CREATE FUNCTION plan_cost(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	p json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
	RETURN (p->0->'Plan'->>'Total Cost')::float8;
END
$$;
SELECT round(c::numeric, 0) AS scan_cost, round(scan::numeric, 2) AS scan_ms,
	round((scan * 1e6 / c * 0.0025)::numeric, 1) AS ns_per_cpu_operator_cost
FROM timings, plan_cost(format('SELECT count(*) FROM t WHERE id <= %s', :n)) c WHERE ord = 1;

-- table readers: one call each, on the main table
SELECT 'fit (newton)' AS name, round(ms('SELECT gsu.fit(''t'', ''mean'', ''variance'', ''label'')')::numeric, 0) AS ms_per_call
UNION ALL
SELECT 'cross_validate (2 lambdas, 3 folds)', round(ms('SELECT * FROM gsu.cross_validate(''t'', ''mean'', ''variance'', ''label'', ARRAY[0.01, 0.1]::float8[], 3)')::numeric, 0);
SQL
