# test/t/004_score_planning.pl -- a cross-joined model is materialized in the
# parallel workers of a session's first scoring query even when pg_gsu is not
# preloaded (issue 31 part 5).
#
# pg_gsu's join-path hook (src/gsu_model_score.c) offers the planner a partial nested
# loop over a Materialize of the model side; it must be installed before the
# joins of the query are planned. With shared_preload_libraries it always is
# (the regress suite runs so); without, the scoring functions' support function
# gsu.score_support loads the library when the planner simplifies the query's
# expressions, which comes before the join search. This test runs a cluster
# without shared_preload_libraries and plans each query in a fresh session:
#   * gsu.decision, gsu.predict, gsu.confidence, gsu.expected_loss,
#     gsu.decisions cross-joined: Materialize under the partial nested loop;
#   * the same query after LOAD 'pg_gsu' (the hook itself);
#   * a query whose only pg_gsu function has no support function
#     (gsu.weights): PostgreSQL's own plan in a fresh session, the rescan per
#     row (the limit docs/limits.md states), but the Materialize once the
#     library is loaded in that session.
#
# A cluster of its own (PostgreSQL::Test::Cluster) from the PostgreSQL whose bin
# directory is first in PATH (`make tapcheck` sets it from PG_CONFIG), with
# pg_gsu installed there.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $db = 'gsu_planning_test';

my $node = PostgreSQL::Test::Cluster->new('planning');
$node->init;
$node->append_conf('postgresql.conf', "jit = off");
$node->start;
$node->safe_psql('postgres', "CREATE DATABASE $db");
is($node->safe_psql($db, 'SHOW shared_preload_libraries'), '', 'pg_gsu is not preloaded');

$node->safe_psql($db, <<'SQL');
CREATE EXTENSION pg_gsu;
CREATE TABLE rows AS
SELECT i AS id, ARRAY[sin(i), cos(i)]::float8[] AS mean, ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 50000) i;
ALTER TABLE rows SET (parallel_workers = 2);
ANALYZE rows;
CREATE TABLE models AS SELECT gsu.train(mean, variance, label) AS model FROM rows WHERE id <= 1000;
SQL

# PostgreSQL's default costs, 2 workers
my $settings = join(' ',
	'SET seq_page_cost = 1; SET cpu_tuple_cost = 0.01; SET cpu_operator_cost = 0.0025;',
	'SET parallel_setup_cost = 1000; SET parallel_tuple_cost = 0.1;',
	"SET max_parallel_workers_per_gather = 2; SET min_parallel_table_scan_size = '8MB';");

# explain_plan(SQL[, BEFORE]): the plan of SQL, EXPLAIN (COSTS OFF), in a new session
# that runs BEFORE first
sub explain_plan
{
	my ($sql, $before) = @_;
	$before //= '';
	return $node->safe_psql($db, "$settings $before EXPLAIN (COSTS OFF) $sql");
}

my $rescanned    = qr/Nested Loop\n\s+->  Parallel Seq Scan on rows t\n\s+->  Seq Scan on models m/s;

for my $expr (
	'gsu.decision(m.model, t.mean)',
	'gsu.predict(m.model, t.mean)',
	'gsu.confidence(m.model, t.mean, t.variance)',
	'gsu.expected_loss(m.model, t.mean, t.variance, t.label)',
	'(gsu.decisions(m.model, t.mean))[1]')
{
	my $p = explain_plan("SELECT sum($expr) FROM rows t CROSS JOIN models m");
	like($p, qr/Materialize/, "fresh session, $expr: the model is materialized")
	  or diag($p);
	like($p, qr/Partial Aggregate/, "fresh session, $expr: a parallel plan")
	  or diag($p);
}

my $weights = 'SELECT sum((gsu.weights(m.model))[1] * t.mean[1]) FROM rows t CROSS JOIN models m';
my $p = explain_plan($weights);
like($p, $rescanned,
	'fresh session, gsu.weights only (no support function): PostgreSQL\'s plan, the model rescanned')
  or diag($p);
$p = explain_plan($weights, "LOAD 'pg_gsu';");
like($p, qr/Materialize/, 'the same once pg_gsu is loaded in the session: materialized')
  or diag($p);
$p = explain_plan('SELECT sum(gsu.decision(m.model, t.mean)) FROM rows t CROSS JOIN models m', "LOAD 'pg_gsu';");
like($p, qr/Materialize/, 'gsu.decision after LOAD: materialized') or diag($p);

# the answers agree with the scalar subquery's, in a parallel plan of a fresh session
is( $node->safe_psql($db,
		"$settings SELECT round(sum(gsu.decision(m.model, t.mean))::numeric, 6) = "
		  . "(SELECT round(sum(gsu.decision((SELECT model FROM models), mean))::numeric, 6) FROM rows) "
		  . "FROM rows t CROSS JOIN models m"),
	't', 'the cross join scores as the scalar subquery does');

$node->stop;
done_testing();
