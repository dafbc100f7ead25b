# test/t/003_multiserver.pl -- multi-server training with stock PostgreSQL 15 +
# postgres_fdw.
#
# Four clusters of its own (PostgreSQL::Test::Cluster) -- three shards and a
# coordinator -- a deterministic data set split by id % 3 onto the shards, the
# coordinator's `samples` a table partitioned by (id % 3) whose partitions are
# foreign tables on the shards, and the whole data set in the coordinator's
# local table `all_samples` as the single-server reference.  Checks that
#   1. every pass of gsu.fit pushes each partition's gsu.gradient aggregate to its
#      shard (EXPLAIN of the pass query, and auto_explain of a real gsu.fit run with
#      the solver lbfgs); with the solver newton (the default) the sample scan pushes
#      ORDER BY/LIMIT and every later scan gsu.hessian, in at most 8 scans;
#   2. gsu.fit over the shards gives the model of gsu.fit and gsu.train on all_samples;
#      with a regression loss (the label as the target) every scan pushes
#      gsu.regression_hessian to the shards and the model is gsu.train_regression's;
#   3. the shards' gradient partials, summed with gsu.sum, equal gsu.gradient over
#      all_samples;
#   4. gsu.sgd_partial on each shard (pushed down) combined with gsu.sum/gsu.to_model
#      on the coordinator equals, bit for bit, the same computation on all_samples;
#   5. gsu.fit with a weight column and class_weight "balanced" over the shards reaches
#      gsu.train's weighted optimum in at most 8 scans, each pushing its per-class
#      gsu.hessian aggregates to the shards;
#   6. gsu.fit trains on exactly the rows SELECT ... FROM samples returns to its caller.
# One TAP test per check, then "multiserver: N passed, M failed" (on stderr).
# GSU_MS_ROWS: rows of the data set (default 30000).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX ();

my $rows = $ENV{GSU_MS_ROWS} // 30000;
my ($pass, $fail) = (0, 0);

sub check
{
	my ($ok, $name, $detail) = @_;
	$ok = ok($ok, $name);
	$ok ? $pass++ : $fail++;
	diag($detail) if !$ok && defined $detail;
	return $ok;
}

# ------------------------------------------------------------------ clusters
my %node = map { $_ => PostgreSQL::Test::Cluster->new($_) } qw(shard0 shard1 shard2 coord);
# initdb, settings and start of the four in parallel (a child each, as the bash
# script did); the parent then reads each postmaster's pid, so that stop and the
# teardown at exit find the servers
my @kids;
for my $name (sort keys %node)
{
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		my $n = $node{$name};
		$n->init;
		$n->append_conf('postgresql.conf', <<"EOF");
log_min_messages = warning
log_statement = none
log_line_prefix = '%m [%p] $name %q%d '
# deterministic scan order for the SGD check: no parallel workers, no synchronized scans
max_parallel_workers_per_gather = 0
synchronize_seqscans = off
synchronous_commit = off
full_page_writes = off
EOF
		$n->start;
		# no END block of the child's Test::More or Cluster (it would stop the nodes)
		POSIX::_exit(0);
	}
	push @kids, $pid;
}
for my $pid (@kids)
{
	waitpid($pid, 0);
	BAIL_OUT('a cluster did not start') if $? != 0;
}
$_->_update_pid(1) for values %node;
my $coord = $node{coord};
my $user  = $coord->safe_psql('postgres', 'SELECT current_user');

# sql_on(NODE, SQL): psql -At on NODE's database postgres; stdout, and stderr appended
# (auto_explain's notices), never dying on an error
sub sql_on
{
	my ($name, $sql) = @_;
	my ($out, $err) = ('', '');
	$node{$name}->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		on_error_stop => 1, extra_params => ['-At']);
	return $err eq '' ? $out : "$out\n$err";
}

# ------------------------------------------------------------------ data
# A deterministic data set that every cluster builds by itself: row i (1..ROWS)
# has label ±1 from a sin hash, a 5-dim mean  label·c + N(0, I)  (c = (1, -0.7,
# 0.5, 0, 0.3): two overlapping classes) and diagonal variances in [0.05, 0.5).
my $gen_sql = <<"EOF";
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
  FROM generate_series(CASE WHEN shard IS NULL THEN 1 WHEN shard = 0 THEN 3 ELSE shard END, $rows,
                       CASE WHEN shard IS NULL THEN 1 ELSE 3 END) AS i,
       LATERAL (SELECT CASE WHEN ms_u(i, 0) < 0.5 THEN 1 ELSE -1 END AS y) AS l
  ORDER BY i
\$\$;
EOF

# the shards load in the background while the coordinator is set up
my @loads;
for my $k (0 .. 2)
{
	my ($out, $err) = ('', '');
	my $script = <<"EOF";
CREATE EXTENSION pg_gsu;
$gen_sql
CREATE TABLE samples (id int, mean float8[], variance float8[], label int4);
INSERT INTO samples SELECT * FROM ms_rows($k);   -- in id order: the heap order SGD sees
VACUUM ANALYZE samples;
EOF
	# the script from a file: IPC::Run feeds a child's stdin only when pumped
	my $file = PostgreSQL::Test::Utils::tempdir() . "/load$k.sql";
	PostgreSQL::Test::Utils::append_to_file($file, $script);
	push @loads,
	  [
		$k,
		IPC::Run::start(
			[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node{"shard$k"}->connstr('postgres'), '-f', $file ],
			'>', \$out, '2>', \$err),
		\$err
	  ];
}
my $coord_sql = <<"EOF";
CREATE EXTENSION pg_gsu;
CREATE EXTENSION postgres_fdw;
$gen_sql
CREATE TABLE all_samples (id int, mean float8[], variance float8[], label int4);
INSERT INTO all_samples SELECT * FROM ms_rows(NULL);
VACUUM ANALYZE all_samples;
CREATE TABLE samples (id int, mean float8[], variance float8[], label int4) PARTITION BY LIST ((id % 3));
EOF
for my $k (0 .. 2)
{
	my ($host, $port) = ($node{"shard$k"}->host, $node{"shard$k"}->port);
	$coord_sql .= <<"EOF";
CREATE SERVER shard$k FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$host', port '$port', dbname 'postgres',
           extensions 'pg_gsu', async_capable 'true', fetch_size '10000');
CREATE USER MAPPING FOR "$user" SERVER shard$k OPTIONS (user '$user');
CREATE FOREIGN TABLE samples_p$k PARTITION OF samples FOR VALUES IN ($k)
  SERVER shard$k OPTIONS (schema_name 'public', table_name 'samples');
EOF
}
$coord->safe_psql('postgres', $coord_sql);
for my $l (@loads)
{
	my ($k, $h, $err) = @$l;
	$h->finish or BAIL_OUT("loading shard$k failed: $$err");
}
$coord->safe_psql('postgres', 'ANALYZE samples');
note('rows across the shards: ' . $coord->safe_psql('postgres', 'SELECT count(*) FROM samples')
	  . ', in all_samples: ' . $coord->safe_psql('postgres', 'SELECT count(*) FROM all_samples'));

# the number of matches of RE (a qr//, with /m where it anchors lines) in S
sub count_of { my ($re, $s) = @_; my $n = 0; $n++ while $s =~ /$re/g; return $n; }

# ------------------------------------------------------------------ 1
# The pass query exactly as src/gsu_fit_pass.c (gsu_fit_pass_query) builds it for a
# partitioned table: one aggregate per leaf partition, ONLY, summed with gsu.sum in
# partition order (the constant after the aggregate keeps the scans asynchronous).
my @parts = split /\n/, $coord->safe_psql('postgres', q{
	SELECT c.oid::regclass::text || ' ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname)
	FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE i.inhparent = 'samples'::regclass ORDER BY c.oid});
sub pass_query
{
	my ($model, $smoothing) = @_;
	my $i = 0;
	return 'SELECT gsu.sum(p ORDER BY i) FROM ('
	  . join(' UNION ALL ',
		map { $i++; my (undef, $q) = split / /; "SELECT gsu.gradient(mean, variance, label, $model, $smoothing) AS p, $i AS i FROM ONLY $q" } @parts)
	  . ') AS partials';
}

# plan_ok(PLAN): one pushed-down aggregate per partition, run asynchronously
sub plan_ok
{
	my ($plan) = @_;
	# a partial aggregate left on the coordinator would show as a local Aggregate over a Foreign Scan
	return count_of(qr/Relations: Aggregate on/, $plan) == 3
	  && count_of(qr/Async Foreign Scan/, $plan) == 3
	  && count_of(qr/^ *(-> *)?(Partial |Finalize )?(Hash|Group)?Aggregate/m, $plan) <= 1
	  && $plan =~ /Append/ && $plan =~ /Remote SQL: SELECT gsu\.gradient\(/;
}

my $plan = sql_on('coord', 'EXPLAIN (VERBOSE, COSTS OFF) ' . pass_query('NULL::gsu.model', '0::float8'));
check(plan_ok($plan),
	"1a literal NULL model: 3 x 'Relations: Aggregate on', 3 x 'Async Foreign Scan' under an Append", $plan);

# the same query as gsu.fit runs it: prepared with $1 gsu.model, $2 float8, both as
# a custom plan (the first executions) and as a generic plan (later ones may be)
my $model0 = '{"format": 1, "dim": 5, "weights": [0.5, -0.25, 0.125, 0.0, 0.0625], "bias": 0.1}';
for my $mode (qw(force_custom_plan force_generic_plan))
{
	$plan = sql_on('coord', "SET plan_cache_mode = $mode;\nPREPARE pass(gsu.model, float8) AS "
		  . pass_query('$1', '$2') . ";\nEXPLAIN (VERBOSE, COSTS OFF) EXECUTE pass('$model0', 0);");
	check(plan_ok($plan), "1b $mode: every partition's gsu.gradient runs on its shard", $plan);
}

my $auto_explain = <<'EOF';
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
EOF

# and the plans gsu.fit itself runs, every pass, seen by auto_explain
my ($out, $err) = ('', '');
$coord->psql('postgres', $auto_explain
	  . q{SELECT gsu.describe(gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001, "solver": "lbfgs"}'))->'training'->>'passes';},
	stdout => \$out, stderr => \$err, extra_params => ['-At']);
my $ae = "$out\n$err";
my $n_passes = $out =~ /(\d+)\s*$/ ? $1 : -1;
my $n_plans  = count_of(qr/Query Text: SELECT gsu\.sum\(p ORDER BY i\) FROM \(/, $ae);
my $n_pushed = count_of(qr/Relations: Aggregate on/, $ae);
my $n_async  = count_of(qr/Async Foreign Scan/, $ae);
check($n_passes > 0 && $n_plans == $n_passes && $n_pushed == 3 * $n_passes && $n_async == 3 * $n_passes,
	"1c gsu.fit (lbfgs) ran $n_passes passes; $n_plans plans push the 3 aggregates ($n_pushed 'Relations: Aggregate on', $n_async 'Async Foreign Scan')");

# the solver newton (the default): scan 1 is the sample (each shard sends its rows in
# the order of their hash, ORDER BY pushed down, and the coordinator's LIMIT stops the
# fetch after k of them), every later scan pushes gsu.hessian
($out, $err) = ('', '');
$coord->psql('postgres', $auto_explain
	  . q{SELECT gsu.describe(gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001}'))->'training'->>'passes';},
	stdout => \$out, stderr => \$err, extra_params => ['-At']);
$ae       = "$out\n$err";
$n_passes = $out =~ /(\d+)\s*$/ ? $1 : -1;
$n_plans  = count_of(qr/Query Text: SELECT gsu\.sum\(p ORDER BY i\) FROM \(/, $ae);
$n_pushed = count_of(qr/Remote SQL: SELECT gsu\.hessian\(/, $ae);
# the sample's query runs with client_min_messages = error (auto_explain does not show
# it): its branches are checked by EXPLAIN, in the form src/gsu_fit.c (sample_query) builds
my $sample_sql = 'SELECT m FROM (SELECT * FROM ('
  . join(' UNION ALL ',
	map { my ($p) = split / /; "(SELECT mean AS m, variance AS v, label AS l, pg_catalog.hash_array_extended(mean, 1::pg_catalog.int8) AS h FROM ONLY $p WHERE mean IS NOT NULL AND label IS NOT NULL ORDER BY 4, 3 LIMIT 20000)" } @parts)
  . ') AS b ORDER BY h, l LIMIT 20000) AS s';
my $splan    = sql_on('coord', "EXPLAIN (VERBOSE, COSTS OFF) $sample_sql");
my $n_sample = count_of(qr/Remote SQL: SELECT .*ORDER BY hash_array_extended/, $splan);
check($n_passes > 0 && $n_passes <= 8 && $n_plans == $n_passes - 1 && $n_pushed == 3 * $n_plans && $n_sample >= 3,
	"1d gsu.fit (newton) ran $n_passes scans (at most 8): the sample's ORDER BY on each shard ($n_sample), then $n_plans scans pushing gsu.hessian to the 3 shards ($n_pushed)");

# ------------------------------------------------------------------ 2
# Tolerances: gsu.fit's L-BFGS and gsu.train's Newton stop at ||grad F|| <= 1e-6 ||grad F(0)||,
# not at the exact minimizer.  F is lambda-strongly convex, so the objective is off the
# optimum by O(||grad F||^2 / lambda): far below 1e-9 relative; the weights by up to
# ||grad F|| / (lambda + curvature of the data term): 1e-4 relative leaves room for that.
$out = sql_on('coord', <<'EOF');
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
note($out);
my @cmp = $out =~ /^(.* => (?:ok|BAD))$/mg;
check($_ =~ / => ok$/, "2 $_") for @cmp;
check(0, '2 expected three comparisons', $out) if @cmp != 3;

# the hinge loss over the shards: the exact optimum (the polish) in at most 12 scans
$out = sql_on('coord', <<'EOF');
SET client_min_messages = warning;
SELECT format('hinge over the shards: %s scans, objective rel diff to gsu.train %s => %s',
              sf->>'passes', abs((sf->>'objective')::float8 - (t->>'objective')::float8) / (t->>'objective')::float8,
              CASE WHEN (sf->>'passes')::int <= 12 AND sf->>'converged' = 'true'
                        AND abs((sf->>'objective')::float8 - (t->>'objective')::float8) <= 1e-6 * (t->>'objective')::float8
                   THEN 'ok' ELSE 'BAD' END)
FROM (SELECT gsu.describe(gsu.fit('samples', 'mean', NULL, 'label', '{"lambda": 0.001, "loss": "hinge"}'))->'training' AS sf,
             gsu.describe((SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 0.001, "loss": "hinge"}') FROM all_samples))->'training' AS t) s;
EOF
check($out =~ / => ok/, "2 hinge: $out");

# regression over the shards (issue 33; the label as a real target): every scan pushes
# gsu.regression_hessian to the 3 shards; ridge-GSU in one scan and SVR-GSU reach the
# models of gsu.train_regression on all_samples (ridge to 1e-9, SVR to 1e-7)
for my $loss (qw(squared epsilon_insensitive))
{
	($out, $err) = ('', '');
	$coord->psql('postgres', $auto_explain
		  . qq{SELECT gsu.describe(gsu.fit('samples', 'mean', 'variance', 'label', '{"loss": "$loss"}'))->'training'->>'passes';},
		stdout => \$out, stderr => \$err, extra_params => ['-At']);
	$ae       = "$out\n$err";
	$n_passes = $out =~ /(\d+)\s*$/ ? $1 : -1;
	$n_pushed = count_of(qr/Remote SQL: SELECT gsu\.regression_hessian\(/, $ae);
	check($n_passes > 0 && $n_pushed == 3 * $n_passes && ($loss ne 'squared' || $n_passes == 1),
		"2 regression $loss: $n_passes scans push gsu.regression_hessian to the 3 shards ($n_pushed)", $ae);
	$out = sql_on('coord', <<"EOF2");
SET client_min_messages = warning;
SELECT format('regression $loss over the shards: %s scans, max diff to gsu.train_regression %s => %s',
              gsu.describe(f)->'training'->>'passes', d,
              CASE WHEN d <= CASE WHEN '$loss' = 'squared' THEN 1e-9 ELSE 1e-7 END
                        AND gsu.describe(f)->'training'->>'converged' = 'true' THEN 'ok' ELSE 'BAD' END)
FROM (SELECT gsu.fit('samples', 'mean', 'variance', 'label', '{"loss": "$loss"}') AS f,
             (SELECT gsu.train_regression(mean, variance, label, '{"loss": "$loss"}') FROM all_samples) AS t) s,
     LATERAL (SELECT max(abs(x - y)) AS d FROM unnest(gsu.weights(f) || gsu.bias(f), gsu.weights(t) || gsu.bias(t)) u(x, y)) m;
EOF2
	check($out =~ / => ok/, "2 regression $loss: $out");
}

# ------------------------------------------------------------------ 3
my $model3 = q{(SELECT gsu.train(mean, variance, label, '{"lambda": 0.01, "tolerance": 0.01}') FROM all_samples WHERE id <= 3000)};
$out = sql_on('coord', <<"EOF");
CREATE TEMP TABLE at3 AS SELECT $model3 AS m;
-- each shard's partial, fetched through its foreign partition (pushed down)
CREATE TEMP TABLE shard_partials AS
  SELECT 0 AS k, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p0) AS p FROM at3
  UNION ALL SELECT 1, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p1) FROM at3
  UNION ALL SELECT 2, (SELECT gsu.gradient(mean, variance, label, m, 0) FROM ONLY samples_p2) FROM at3;
CREATE TEMP TABLE g3 AS
  SELECT (SELECT gsu.sum(p ORDER BY k) FROM shard_partials)::text::jsonb AS shards,
         (SELECT gsu.gradient(mean, variance, label, m, 0) FROM all_samples, at3)::text::jsonb AS local;
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
my ($line) = $out =~ /([^\n]*)\s*$/;
check($line =~ / => ok$/, "3 $line", $out);
$plan = sql_on('coord', 'EXPLAIN (VERBOSE, COSTS OFF) SELECT gsu.gradient(mean, variance, label, NULL::gsu.model, 0) FROM ONLY samples_p1');
check($plan =~ /Relations: Aggregate on/, "3 a shard's gsu.gradient through its foreign table is pushed down", $plan);

# ------------------------------------------------------------------ 4
# SGD depends on the row order: the shards scan their heaps, loaded in id order, with no
# parallel workers and no synchronized scans; the local side orders by id explicitly.
# The partials are combined in shard order (gsu.sum's averaging is order-dependent, and an
# async Append returns the shards' rows in whatever order they arrive).
my $sgd_shards = q{SELECT gsu.to_model(gsu.sum(p ORDER BY k)) FROM (
  SELECT gsu.sgd_partial(mean, variance, label, '{}') AS p, 0 AS k FROM ONLY samples_p0
  UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{}'), 1 FROM ONLY samples_p1
  UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{}'), 2 FROM ONLY samples_p2) AS s};
my $sgd_local = q{SELECT gsu.to_model(gsu.sum(p ORDER BY k)) FROM (
  SELECT id % 3 AS k, gsu.sgd_partial(mean, variance, label, '{}' ORDER BY id) AS p
  FROM all_samples GROUP BY id % 3) AS s};
$plan = sql_on('coord', "EXPLAIN (VERBOSE, COSTS OFF) $sgd_shards");
check(count_of(qr/Relations: Aggregate on/, $plan) == 3
	  && count_of(qr/Remote SQL: SELECT gsu\.sgd_partial\(mean, variance, label, '\{\}'::jsonb\), [0-2] FROM public\.samples$/m, $plan) == 3,
	"4 each shard's gsu.sgd_partial is pushed down (3 x 'Relations: Aggregate on', Remote SQL SELECT gsu.sgd_partial(...))",
	$plan);
$out = sql_on('coord', <<"EOF");
CREATE TEMP TABLE m4 AS SELECT ($sgd_shards) AS shards, ($sgd_local) AS local;
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
($line) = $out =~ /([^\n]*)\s*$/;
check($line =~ / => ok$/, "4 $line", $out);

# ------------------------------------------------------------------ 5
# a weight column on the shards (1 + id % 4, a table rewrite that keeps the heap order)
# and the same on all_samples; the coordinator's partitioned table gets the column too
$node{"shard$_"}->safe_psql('postgres',
	'ALTER TABLE samples ADD COLUMN w float8 GENERATED ALWAYS AS ((1 + id % 4)::float8) STORED')
  for 0 .. 2;
$coord->safe_psql('postgres', 'ALTER TABLE samples ADD COLUMN w float8;
	ALTER TABLE all_samples ADD COLUMN w float8 GENERATED ALWAYS AS ((1 + id % 4)::float8) STORED');
($out, $err) = ('', '');
$coord->psql('postgres', $auto_explain . <<'EOF', stdout => \$out, stderr => \$err, extra_params => ['-At']);
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
$ae = "$out\n$err";
($line) = $out =~ /([^\n]* => (?:ok|BAD))/;
$line //= 'no result';
$n_plans  = count_of(qr/Query Text: SELECT gsu\.sum\(p ORDER BY i\), gsu\.sum\(q ORDER BY i\)/, $ae);
$n_pushed = count_of(qr/Remote SQL: SELECT gsu\.hessian\(.*FILTER/, $ae);
check($line =~ / => ok$/ && $n_plans >= 1 && $n_pushed == 3 * $n_plans,
	"5 $line; $n_plans scans push the per-class gsu.hessian to the 3 shards ($n_pushed)", $line =~ /ok$/ ? undef : $ae);

# ------------------------------------------------------------------ 6
# ms_all may read the parent and the foreign partitions, ms_parent the parent only; then a
# policy on the parent. The leaves are read apart (aggregates pushed down) only for ms_all
# without the policy; otherwise the scans read the parent and the policy applies.
$coord->safe_psql('postgres', <<"EOF");
CREATE ROLE ms_all;
CREATE ROLE ms_parent;
GRANT USAGE ON SCHEMA gsu TO ms_all, ms_parent;
GRANT SELECT ON samples, samples_p0, samples_p1, samples_p2 TO ms_all;
GRANT SELECT ON samples TO ms_parent;
CREATE USER MAPPING FOR PUBLIC SERVER shard0 OPTIONS (user '$user', password_required 'false');
CREATE USER MAPPING FOR PUBLIC SERVER shard1 OPTIONS (user '$user', password_required 'false');
CREATE USER MAPPING FOR PUBLIC SERVER shard2 OPTIONS (user '$user', password_required 'false');
EOF
# fit_as(ROLE): the rows of a gsu.fit (newton) run as ROLE, the rows ROLE sees, the objective's
# relative difference to gsu.train's on those rows, and the gsu.hessian aggregates pushed down
sub fit_as
{
	my ($role) = @_;
	my ($o, $e) = ('', '');
	$coord->psql('postgres', $auto_explain . <<"EOF", stdout => \$o, stderr => \$e, extra_params => ['-At']);
SET ROLE $role;
SELECT format('rows=%s seen=%s objective_rel_diff=%s', gsu.describe(f)->'training'->>'rows', (SELECT count(*) FROM samples),
              abs((gsu.describe(f)->'training'->>'objective')::float8 - (gsu.describe(t)->'training'->>'objective')::float8)
              / (gsu.describe(t)->'training'->>'objective')::float8)
FROM gsu.fit('samples', 'mean', 'variance', 'label', '{"lambda": 0.001}') f,
     (SELECT gsu.train(mean, variance, label, '{"lambda": 0.001}') AS t FROM samples) s;
EOF
	my ($r) = "$o\n$e" =~ /(rows=[^\n]*)/;
	return ($r // 'no result') . ' pushed=' . count_of(qr/Remote SQL: SELECT gsu\.hessian\(/, "$o\n$e");
}
# check6(NAME, LINE, ROWS, PUSHED): the fit read ROWS rows (as many as the role sees), reached
# gsu.train's objective to 1e-6, and pushed PUSHED gsu.hessian aggregates ('any': some)
sub check6
{
	my ($name, $l, $want_rows, $want_pushed) = @_;
	my ($r)      = $l =~ /rows=(\d+)/;
	my ($seen)   = $l =~ /seen=(\d+)/;
	my ($rel)    = $l =~ /objective_rel_diff=(\S+)/;
	my ($pushed) = $l =~ /pushed=(\d+)/;
	check(defined $r && $r eq $want_rows && defined $seen && $seen eq $want_rows
		  && defined $rel && $rel <= 1e-6
		  && ($want_pushed eq 'any' ? ($pushed // 0) > 0 : ($pushed // -1) == $want_pushed),
		"6 $name: $l (want rows $want_rows, pushed $want_pushed)");
}
my $all = $coord->safe_psql('postgres', 'SELECT count(*) FROM samples');
check6('SELECT on the partitions too, no policy: the shards sum their rows', fit_as('ms_all'), $all, 'any');
check6('SELECT on the parent only: the scans read the parent', fit_as('ms_parent'), $all, 0);
$coord->safe_psql('postgres', 'ALTER TABLE samples ENABLE ROW LEVEL SECURITY;
	CREATE POLICY some_rows ON samples USING (id % 5 = 0)');
my $some = $coord->safe_psql('postgres', 'SELECT count(*) FROM samples WHERE id % 5 = 0');
check6("a policy on the parent, SELECT on the partitions too: the policy's rows", fit_as('ms_all'), $some, 0);
check6("a policy on the parent, SELECT on the parent only: the policy's rows", fit_as('ms_parent'), $some, 0);

diag("multiserver: $pass passed, $fail failed");
# immediate, as the bash script stopped them: nothing to keep
$_->stop('immediate') for values %node;
done_testing();
