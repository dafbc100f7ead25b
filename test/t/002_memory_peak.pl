# test/t/002_memory_peak.pl -- trainings that gsu.max_training_memory must
# refuse do so before they allocate: the backend's peak resident memory
# (VmHWM in /proc/<pid>/status, read through psql's \!) stays under the limit
# plus a margin.
#
# The whole-query cases (issue 27, parts 6 and 7b) measure a whole query
# instead: the largest sum of RssAnon over the backend and its parallel
# workers, sampled while the statement runs, must stay within the limit plus
# PER_PROCESS_MB for each process of the plan (docs/limits.md).  gsu.fit's
# sample cases (issue 27, 7a): the backend's RssAnon grows less than the limit
# over the whole gsu.fit, even with a large work_mem.
#
# A cluster of its own (PostgreSQL::Test::Cluster, pg_gsu preloaded) from the
# PostgreSQL whose bin directory is first in PATH (`make tapcheck`); the
# server runs as the user that runs the test, so /proc/<pid>/status of its
# backends is readable.  One test per case, then the line
# "memory_peak: N passed, M failed" (on stderr, which prove shows).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);

my $db        = 'gsu_memory_test';
my $limit_mb  = 64;
my $margin_mb = 236;    # 64 MB limit -> the peak must stay under 300 MB
my ($pass, $fail) = (0, 0);

my $node = PostgreSQL::Test::Cluster->new('memory_peak');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_gsu'");
$node->start;
$node->safe_psql('postgres', "CREATE DATABASE $db");

sub count { $_[0] ? $pass++ : $fail++; return $_[0]; }

$node->safe_psql($db, <<'SQL');
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

# psql_script(SCRIPT): stdout and stderr of psql -X -q over SCRIPT, errors not stopping it
sub psql_script
{
	my ($script) = @_;
	my ($out, $err) = ('', '');
	$node->psql($db, $script, stdout => \$out, stderr => \$err, on_error_stop => 0);
	return "$out\n$err";
}

# the first SQLSTATE of an "ERROR:  XXXXX" line (VERBOSITY sqlstate), or ''
sub sqlstate { my ($o) = $_[0] =~ /ERROR:  ([0-9A-Z]{5})/; return $o // ''; }

# run_case(NAME, SQL[, 'ok']): SQL must fail with SQLSTATE 54000 (with 'ok':
# succeed) and the backend's peak (VmHWM) stay under the bound
sub run_case
{
	my ($name, $sql, $want) = @_;
	$want = '54000' unless defined $want;
	$want = '' if $want eq 'ok';
	my $bound = ($limit_mb + $margin_mb) * 1024;
	my $out   = psql_script(<<"SQL");
SELECT pg_backend_pid() AS pid \\gset
SET gsu.max_training_memory = '${limit_mb}MB';
SET statement_timeout = '150s';
\\set VERBOSITY sqlstate
$sql;
\\setenv GSU_PID :pid
\\! grep VmHWM /proc/\$GSU_PID/status
SQL
	my $state = sqlstate($out);
	my ($peak) = $out =~ /VmHWM:\s*(\d+)/;
	count(ok($state eq $want && defined $peak && $peak < $bound,
		"$name: sqlstate '$state' (want '$want'), peak "
		  . int(($peak // 0) / 1024) . ' MB < ' . int($bound / 1024) . ' MB'))
	  or diag($out);
}

run_case('nystroem 4000 landmarks, hinge',
	q{SELECT gsu.train(mean, variance, label, '{"loss": "hinge", "features": {"map": "nystroem", "landmarks": 4000, "sigma": 1}}') IS NULL FROM small});
run_case('rff 4000 features, full feature covariance',
	q{SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4000, "sigma": 1, "covariance": "full"}}') IS NULL FROM small});
run_case('robust loss, full covariance copied for its square roots',
	q{SELECT gsu.train(mean, variance, label, '{"loss": "robust"}') IS NULL FROM wide});
for my $map (qw(rff nystroem))
{
	run_case("$map 12000: predict and decision",
		"SELECT gsu.predict(model, '{0.3, -0.2}'), gsu.decision(model, '{0.3, -0.2}') FROM big_models WHERE name = '$map'",
		'ok');
	run_case("$map 12000: confidence and expected_loss",
		"SELECT gsu.confidence(model, '{0.3, -0.2}', '{0.05, 0.02}'::float8[]), gsu.expected_loss(model, '{0.3, -0.2}', ARRAY[0.05]::float8[], 1) FROM big_models WHERE name = '$map'",
		'ok');
}

# ------------------------------------------- whole queries (issue 27, 6 and 7b)
# What a parallel plan may hold besides the limit, per process (the leader
# and each worker): the backend's own memory (about 4 MB of RssAnon), the
# allocator's and transparent huge pages' rounding of the buffers (2 MB
# each), and what PostgreSQL itself allocates for the plan; docs/limits.md
# documents it as "16 MB per process".
my $per_process_mb = 16;
my $par_limit_mb   = 32;
my $sampler        = PostgreSQL::Test::Utils::tempdir();

# sampler.sh LEADER OUT STOP: until STOP exists, the largest sum of RssAnon
# (kB) over LEADER and its parallel workers ("parallel worker for PID
# LEADER"), written to OUT
PostgreSQL::Test::Utils::append_to_file("$sampler/sampler.sh", <<'EOF_SAMPLER');
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

# run_query_case(NAME, LIMIT_MB, PROCESSES, SETTINGS, SQL, WANT): SQL (after
# SETTINGS) must fail with SQLSTATE WANT (or succeed: 'ok'), and the largest
# RssAnon sum of the backend and its workers stay within LIMIT_MB plus
# PER_PROCESS_MB for each of PROCESSES processes
sub run_query_case
{
	my ($name, $limit, $procs, $settings, $sql, $want) = @_;
	$want = '' if $want eq 'ok';
	my $bound = ($limit + $procs * $per_process_mb) * 1024;
	unlink "$sampler/stop", "$sampler/peak";
	my $out = psql_script(<<"SQL");
SELECT pg_backend_pid() AS pid \\gset
\\setenv GSU_PID :pid
SET gsu.max_training_memory = '${limit}MB';
SET statement_timeout = '150s';
$settings
\\set VERBOSITY sqlstate
\\! bash $sampler/sampler.sh \$GSU_PID $sampler/peak $sampler/stop &
\\! sleep 0.1
$sql;
\\! touch $sampler/stop; sleep 0.1
SQL
	my $state = sqlstate($out);
	my $peak  = -e "$sampler/peak" ? slurp_file("$sampler/peak") : '';
	chomp $peak;
	count(ok($state eq $want && $peak =~ /^\d+$/ && $peak > 0 && $peak <= $bound,
		"$name: sqlstate '$state' (want '$want'), peak "
		  . int(($peak || 0) / 1024) . ' MB <= ' . int($bound / 1024) . ' MB'))
	  or diag($out);
}

# the parallel cases of issue 27, part 6: a plan of 2 workers and the leader
my $force_parallel =
  'SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;';
$node->safe_psql($db, <<'SQL');
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
run_query_case('parallel refset_agg, 33 MB of rows', $par_limit_mb, 3, $force_parallel,
	'SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows', '54000');
run_query_case('parallel refset_agg, a tenth of the rows', $par_limit_mb, 3, $force_parallel,
	'SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows WHERE i % 10 = 0', 'ok');
run_query_case('parallel refset_agg, 33 MB of rows under 256 MB', 256, 3, $force_parallel,
	'SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows', 'ok');
run_query_case("the planner's own parallel refset_agg, 16 MB", 16, 3, '',
	'SELECT gsu.refset_agg(mean, label) IS NULL FROM par_rows', '54000');
run_query_case('parallel gsu.train (gsu.parallel_training)', $par_limit_mb, 3,
	"$force_parallel SET gsu.parallel_training = on;",
	'SELECT gsu.train(mean, variance, label) IS NULL FROM par_rows', '54000');
run_query_case('parallel gsu.train, a twentieth of the rows', $par_limit_mb, 3,
	"$force_parallel SET gsu.parallel_training = on;",
	'SELECT gsu.train(mean, variance, label) IS NULL FROM par_rows WHERE i % 20 = 0', 'ok');
run_query_case('parallel geu_fit mfa', $par_limit_mb, 3, $force_parallel,
	q{SELECT gsu.geu_fit(mean, variance, label, '{"method": "mfa"}') IS NULL FROM par_rows}, '54000');

# issue 27, part 7b: gsu.moments with a full covariance of dimension 2048
# (32 MB of state, 64 MB of result), serial and parallel
$node->safe_psql($db, <<'SQL');
CREATE TABLE obs_wide AS
SELECT i, (SELECT array_agg(sin(i * k + 0.001 * k * k) ORDER BY k) FROM generate_series(1, 2048) k)::float8[] AS obs
FROM generate_series(1, 60) i;
ALTER TABLE obs_wide SET (parallel_workers = 2);
ANALYZE obs_wide;
SQL
run_query_case('moments, full covariance of dimension 2048', 64, 1, 'SET max_parallel_workers_per_gather = 0;',
	q{SELECT (gsu.moments(obs, '{"covariance": "full"}')).count FROM obs_wide}, '54000');
run_query_case('moments, full covariance of dimension 2048, parallel', 64, 3, $force_parallel,
	q{SELECT (gsu.moments(obs, '{"covariance": "full"}')).count FROM obs_wide}, '54000');
run_query_case('moments, full covariance of dimension 2048 under 128 MB', 128, 1, 'SET max_parallel_workers_per_gather = 0;',
	q{SELECT (gsu.moments(obs, '{"covariance": "full"}')).count FROM obs_wide}, 'ok');
run_query_case('moments, full covariance of dimension 1024', 64, 1, 'SET max_parallel_workers_per_gather = 0;',
	q{SELECT (gsu.moments(obs[1:1024], '{"covariance": "full"}')).count FROM obs_wide}, 'ok');

# ---- gsu.fit's sample (issue 27, 7a): the whole run of gsu.fit, its sample trained in
# memory included, stays within gsu.max_training_memory (the sample within 90% of it:
# gsu.train's rows and solver plus the sample query's sorts and tuplestores, whose
# work_mem gsu.fit lowers), even with a large work_mem. The backend's anonymous memory
# (RssAnon: not the shared buffers the scans touch) is sampled every 5 ms while it runs.
sub rss_anon
{
	my ($pid) = @_;
	open(my $fh, '<', "/proc/$pid/status") or return undef;
	while (<$fh>) { return $1 if /^RssAnon:\s*(\d+)/; }
	return undef;
}

sub fit_sample_case
{
	my ($name, $limit, $sql) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[
			'psql', '-X', '-q', '-At', '-d', $node->connstr($db),
			'-c', 'SELECT pg_backend_pid()', '-c', 'SELECT pg_sleep(0.3)',
			'-c', "SET work_mem = '64MB'", '-c', "SET gsu.max_training_memory = '${limit}MB'",
			'-c', 'SET client_min_messages = warning', '-c', $sql,
			'-c', "SELECT 'fit_sample_case done'"
		],
		'>', \$out, '2>', \$err);
	# the backend's pid: the first line, printed before its 0.3 s of sleep
	$h->pump_nb while $h->pumpable && $out !~ /^(\d+)\n/ && sleep 0.005;
	my ($pid) = $out =~ /^(\d+)\n/;
	my $base = defined $pid ? rss_anon($pid) : undef;
	my $peak = $base // 0;
	while ($h->pumpable)
	{
		$h->pump_nb;
		my $v = rss_anon($pid);
		$peak = $v if defined $v && $v > $peak;
		sleep 0.005;
	}
	$h->finish;
	my $all = "$out$err";
	count(ok(defined $base && $all =~ /fit_sample_case done/ && $all !~ /ERROR/
		  && $peak - $base < $limit * 1024,
		"$name: RssAnon grew " . int(($peak - ($base // 0)) / 1024) . " MB < $limit MB"))
	  or diag(substr($all =~ s/\n/ /gr, 0, 300));
}

$node->safe_psql($db, <<'SQL');
-- 30000 rows of dimension 60 with diagonal variances (about 33 MB): the sample is bound by memory
CREATE TABLE fit_wide AS
SELECT i AS id, (SELECT array_agg(sin(i * k * 0.37 + k) ORDER BY k) FROM generate_series(1, 60) k)::float8[] AS mean,
       array_fill(0.05::float8, ARRAY[60]) AS variance,
       CASE WHEN sin(i * 3.1) > 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 30000) i;
SQL
fit_sample_case("gsu.fit's sample, 16 MB, work_mem 64 MB", 16,
	q{SELECT gsu.fit('fit_wide', 'mean', 'variance', 'label', '{"max_iterations": 2}') IS NOT NULL});
fit_sample_case("gsu.fit's sample, hinge (dcd), 16 MB, work_mem 64 MB", 16,
	q{SELECT gsu.fit('fit_wide', 'mean', NULL, 'label', '{"loss": "hinge", "max_iterations": 2}') IS NOT NULL});

diag("memory_peak: $pass passed, $fail failed");
$node->stop;
done_testing();
