"""Shared plumbing of the pg_gsu fuzzers (test/fuzz_types.py, test/fuzz_statements.py).

Python 3 standard library only: the server is driven through `psql` (found with
$GSU_PSQL, then $PG_CONFIG's bindir, then PATH), against the cluster named by
PGHOST/PGPORT/PGUSER. Each fuzzer works in its own database (`gsu_fuzz` by
default), created at the start and dropped at the end; no other database is
touched (the maintenance database `postgres` is only used to create and drop it).

Every statement a fuzzer sends is followed by a psql `\\echo` of a marker line
with the statement's SQLSTATE (psql's :SQLSTATE variable), so that one psql
process runs thousands of cases and each case's outcome is known; when the
server crashes, psql exits and the case after the last marker is the culprit.
"""

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

MARK = '@@FZ'


def find_psql():
    p = os.environ.get('GSU_PSQL')
    if p:
        return p
    for cand in ('/usr/lib/postgresql/15/bin/psql',):
        if os.path.exists(cand):
            return cand
    return shutil.which('psql') or 'psql'


class Oracle:
    """Pass/fail bookkeeping: one count per oracle check."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.findings = []          # (kind, detail)
        self.seen = {}

    def ok(self, n=1):
        self.passed += n

    def fail(self, kind, detail, key=None):
        self.failed += 1
        self.findings.append((kind, detail))
        key = key or (kind, detail[:200])
        if key not in self.seen:
            # the first failure of a kind and message in full; repeats only count
            self.seen[key] = [1, kind, detail.split('\n', 1)[0]]
            print('FAIL [%s] %s\n%s' % (self.name, kind, indent(detail)), flush=True)
        else:
            self.seen[key][0] += 1

    def summary(self):
        if not self.seen:
            return
        print('distinct failures of %s (count, kind, first case):' % self.name)
        for count, kind, first in self.seen.values():
            print('  %5d  %-24s %s' % (count, kind, first[:240]))


def indent(s, pre='    '):
    return '\n'.join(pre + line for line in s.split('\n'))


# SQLSTATEs that an oracle rejects: internal errors (class XX) and anything
# our own helper functions raise to signal an oracle violation (class FZ)
def bad_state(state, msg):
    """None when (state, msg) is an acceptable outcome, else the kind of failure."""
    if state is None:
        return 'no-result'
    if state.startswith('XX'):
        return 'internal-error-' + state
    if state.startswith('FZ'):
        return {'FZ001': 'unrestorable-value', 'FZ002': 'round-trip-mismatch',
                'FZ003': 'input-modified', 'FZ004': 'wrong-result'}.get(state, 'oracle-' + state)
    if msg and 'invalid memory alloc request size' in msg:
        return 'invalid-alloc'
    if state == '57014':
        return 'timeout'
    if state in ('53200',):
        return 'out-of-memory'
    if state.startswith('58') or state == '57P01' or state == '57P02' or state == '57P03':
        return 'server-' + state
    return None


class Server:
    def __init__(self, dbname='gsu_fuzz', timeout_ms=5000, log=None):
        self.psql = find_psql()
        self.dbname = dbname
        self.timeout_ms = timeout_ms
        self.log_path = log if log is not None else self._guess_log()
        self.log_offset = self._log_size()
        # server-side COPY reads and writes files here (the server runs as
        # another user, so the directory is world-writable; it is removed at exit)
        self.dir = tempfile.mkdtemp(prefix='gsu_fuzz_')
        os.chmod(self.dir, 0o777)

    @staticmethod
    def _guess_log():
        p = os.environ.get('GSU_FUZZ_SERVER_LOG')
        if p:
            return p
        d = os.environ.get('GSU_CLUSTER_DIR')
        if d and os.path.exists(os.path.join(d, 'server.log')):
            return os.path.join(d, 'server.log')
        return None

    def _log_size(self):
        try:
            return os.path.getsize(self.log_path) if self.log_path else 0
        except OSError:
            return 0

    def new_log_lines(self):
        """Lines the server logged since the last call that tell of a crash."""
        if not self.log_path:
            return []
        try:
            with open(self.log_path, 'rb') as f:
                f.seek(self.log_offset)
                data = f.read()
        except OSError:
            return []
        self.log_offset += len(data)
        out = []
        for line in data.decode('utf-8', 'replace').split('\n'):
            if re.search(r'terminated by signal|was terminated by exception|server process .* exited with exit code [^0]'
                         r'|PANIC:|TRAP:|ERROR: AddressSanitizer|==\d+==ERROR', line):
                out.append(line.strip())
        return out

    def run(self, script, db=None, timeout=600, tuples=True, stall=None):
        """Run a psql script; returns (stdout, stderr, returncode).

        With stall (seconds), a script that prints no marker line for that
        long is stuck in a statement that ignores statement_timeout: the
        backend is cancelled, then terminated, then (a local server process
        that ignores both) killed with SIGKILL unless GSU_FUZZ_NO_KILL is set,
        and self.last_stall tells what happened (None when nothing stalled)."""
        self.last_stall = None
        args = [self.psql, '-X', '-q', '-v', 'ON_ERROR_STOP=0', '-P', 'pager=off',
                '-d', db or self.dbname]
        if tuples:
            args += ['-A', '-t', '-F', '\t']
        pre = ('\\set VERBOSITY default\n\\set SHOW_CONTEXT never\n'
               'SET client_min_messages = error;\n'
               'SET statement_timeout = %d;\n' % self.timeout_ms)
        if stall:
            pre += "SELECT '@@FZPID', pg_backend_pid();\n"
        data = (pre + script).encode('utf-8', 'surrogateescape')
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        q = queue.Queue()
        errbuf = []

        def writer():
            try:
                proc.stdin.write(data)
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass

        def reader():
            for line in proc.stdout:
                q.put(line)
            q.put(None)

        def ereader():
            errbuf.append(proc.stderr.read())
        ths = [threading.Thread(target=f, daemon=True) for f in (writer, reader, ereader)]
        for t in ths:
            t.start()
        out = []
        pid = None
        t0 = last = time.time()
        limit = stall if stall else timeout
        while True:
            try:
                line = q.get(timeout=1.0)
            except queue.Empty:
                line = ''
            now = time.time()
            if line is None:
                break
            if line:
                s = line.decode('utf-8', 'replace')
                out.append(s)
                if s.startswith(MARK) or s.startswith('@@FZ'):
                    last = now
                if s.startswith('@@FZPID\t'):
                    pid = int(s.split('\t')[1])
                continue
            if now - last > limit or now - t0 > timeout:
                self.last_stall = self._unstick(pid, now - last)
                proc.kill()
                break
        proc.wait()
        for t in ths[1:]:
            t.join(timeout=5)
        err = b''.join(errbuf).decode('utf-8', 'replace')
        return ''.join(out), err, (proc.returncode if self.last_stall is None else 125)

    def _backend_active(self, pid):
        r = subprocess.run([self.psql, '-X', '-q', '-A', '-t', '-d', 'postgres', '-c',
                            "SELECT count(*) FROM pg_stat_activity WHERE pid = %d AND state = 'active'" % pid],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return r.stdout.strip() == b'1'

    def _signal(self, fn, pid):
        subprocess.run([self.psql, '-X', '-q', '-d', 'postgres', '-c', 'SELECT %s(%d)' % (fn, pid)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def _unstick(self, pid, waited):
        """A statement ran past statement_timeout: what it took to stop it."""
        if pid is None:
            return {'kind': 'hang', 'detail': 'no marker for %.0f s (backend pid unknown)' % waited}
        for fn in ('pg_cancel_backend', 'pg_terminate_backend'):
            self._signal(fn, pid)
            for _ in range(6):
                time.sleep(0.5)
                if not self._backend_active(pid):
                    return {'kind': 'hang', 'detail': 'ran %.0f s past its statement_timeout; %s stopped it'
                            % (waited, fn)}
        detail = ('ran %.0f s past its statement_timeout and ignores pg_cancel_backend and '
                  'pg_terminate_backend (no interrupt check)' % waited)
        if os.environ.get('GSU_FUZZ_NO_KILL'):
            return {'kind': 'uncancellable-hang', 'detail': detail + '; left running (GSU_FUZZ_NO_KILL)'}
        try:
            os.kill(pid, signal.SIGKILL)
            detail += '; killed with SIGKILL (the server restarts)'
        except OSError as e:
            detail += '; could not kill it: %s' % e
        self.alive()
        return {'kind': 'uncancellable-hang', 'detail': detail}

    def must(self, script, db=None):
        """Run a script that must succeed (set-up); exits on error."""
        args = [self.psql, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-P', 'pager=off', '-A', '-t',
                '-F', '\t', '-d', db or self.dbname]
        r = subprocess.run(args, input=('SET client_min_messages = error;\n' + script).encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            sys.stderr.write('fuzz: set-up failed:\n%s\n' % r.stderr.decode('utf-8', 'replace'))
            sys.exit(2)
        return r.stdout.decode('utf-8', 'replace')

    def alive(self, wait=60):
        """Wait until the server answers SELECT 1 again (after a crash it restarts)."""
        t0 = time.time()
        while True:
            r = subprocess.run([self.psql, '-X', '-q', '-A', '-t', '-d', self.dbname, '-c', 'SELECT 1'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode == 0 and r.stdout.strip() == b'1':
                return True
            if time.time() - t0 > wait:
                return False
            time.sleep(0.5)

    def create_db(self):
        self.must('DROP DATABASE IF EXISTS %s;\nCREATE DATABASE %s;\n' % (self.dbname, self.dbname), db='postgres')
        self.must('CREATE EXTENSION pg_gsu;\n')

    def drop_db(self):
        subprocess.run([self.psql, '-X', '-q', '-d', 'postgres', '-c',
                        'DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.dbname],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        shutil.rmtree(self.dir, ignore_errors=True)


def parse_marks(out):
    """Marker lines `@@FZ <tag> <key> <sqlstate>` and the message lines after
    them (`@@FZM <text>`), in order: a list of (tag, key, state, msg)."""
    res = []
    for line in out.split('\n'):
        if line.startswith(MARK + ' '):
            parts = line.split(' ', 4)
            tag, key = parts[1], parts[2]
            state = parts[3] if len(parts) > 3 else ''
            if state == ':SQLSTATE' or state == '':
                state = '00000'
            res.append([tag, key, state, ''])
        elif line.startswith(MARK + 'M ') and res:
            res[-1][3] = line[len(MARK) + 2:]
    return res


def mark(tag, key):
    """psql lines that print the outcome of the statement before them."""
    return ('\\echo ' + MARK + ' ' + tag + ' ' + str(key) + ' :SQLSTATE\n'
            '\\if :ERROR\n\\echo ' + MARK + 'M :LAST_ERROR_MESSAGE\n\\endif\n')


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def copy_text_escape(s):
    return (s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
            .replace('\r', '\\r'))


def short(s, n=300):
    s = s if isinstance(s, str) else repr(s)
    return s if len(s) <= n else s[:n] + '... (%d chars)' % len(s)


def pts_sql(name):
    """The fuzzers' fixture: 40 rows of dimension 3 in table `name`, labels +-1 and 1..3."""
    return "CREATE TABLE " + name + """ AS
SELECT i AS id,
       ARRAY[sin(i * 1.3) + CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END, cos(i * 0.7), (i % 5) * 0.1] AS mean,
       ARRAY[0.05 + (i % 3) * 0.01, 0.02, 0.03] AS variance,
       CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label,
       (i % 3) + 1 AS label3
FROM generate_series(1, 40) i;
"""
