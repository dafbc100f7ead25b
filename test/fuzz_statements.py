#!/usr/bin/env python3
"""Hostile-statement fuzzer of pg_gsu.

    python3 test/fuzz_statements.py [--quick | --long N] [--seed S]

Runs the fixed list test/fuzz_statements.sql (one statement per paragraph) and
a seeded set of generated statements (random functions of pg_gsu called with
arguments drawn from pools of hostile values: wrong dimensions, NaN/Infinity,
NULL elements, empty and 2-D arrays, huge dimensions, denormals, extreme and
ill-typed options). Every statement must succeed or fail with a specific
SQLSTATE. Failures: a crash, an internal error (class XX), "invalid memory
alloc request size", a statement_timeout, FZ001/FZ002 raised by fz_rt()
when a produced value is not accepted back by its type's input function or
does not round-trip, and FZ004 raised by fz_expect() and fz_nn_scale() when a
result differs from the one it must equal (nearest neighbours of rows scaled
by a power of two, where squared distances overflow or underflow). Quick mode (default): the list plus 200 generated
statements; --long N: N times as many generated ones and a longer timeout.

Uses PGHOST/PGPORT/PGUSER, creates the database gsu_fuzz and drops it at the
end. Ends with `N passed, M failed`; exit status 1 when anything failed.
"""

import argparse
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_common import Oracle, Server, bad_state, mark, parse_marks, pts_sql, short  # noqa: E402

SETUP = r"""
""" + pts_sql("pts") + r"""
CREATE TABLE m AS SELECT gsu.train(mean, variance, label) AS m FROM pts;
CREATE TABLE mm AS SELECT gsu.train(mean, variance, label3, '{"max_iterations": 50}') AS m FROM pts;
CREATE TABLE mr AS SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1, "seed": 3}}') AS m FROM pts;
CREATE TABLE proj AS SELECT gsu.geu_fit(mean, variance, label3) AS p FROM pts;
CREATE TABLE ref AS SELECT gsu.refset_agg(mean, label) AS r FROM pts;
-- x scaled by 2^e (exact, unless it overflows or underflows)
CREATE FUNCTION fz_scale(x float8[], e int) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(v * power(2::float8, e) ORDER BY o) FROM unnest(x) WITH ORDINALITY u(v, o)
$$;
-- FZ004 unless got equals want
CREATE FUNCTION fz_expect(got anyelement, want anyelement) RETURNS anyelement LANGUAGE plpgsql AS $$
BEGIN
  IF got IS DISTINCT FROM want THEN
    RAISE EXCEPTION USING ERRCODE = 'FZ004', MESSAGE = format('got %s, expected %s', got, want);
  END IF;
  RETURN got;
END $$;
-- whether x scales by 2^e exactly (no element overflows or loses bits)
CREATE FUNCTION fz_scales_exactly(x float8[], e int) RETURNS bool LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(bool_and(v * power(2::float8, e) * power(2::float8, -e) = v
                           AND abs(v * power(2::float8, e)) <= 1.7976931348623157e308), true)
  FROM unnest(x) v
$$;
-- the scaling oracle of the nearest-neighbour search: the rows of src (id,
-- mean, label) in id order (or descending) and the query q, all scaled by
-- 2^e, give the labels and (σ = 2^-e) the variances 2^e times those of
-- scale 1: a power of two scales every distance exactly, so a search whose
-- squared distances overflow or underflow must still find the same rows.
-- NULL (no check) when some value does not scale exactly.
CREATE FUNCTION fz_nn_scale(src text, q float8[], k int, e int, descending bool) RETURNS int LANGUAGE plpgsql AS $$
DECLARE r1 gsu.refset; r2 gsu.refset; a int; b int; va float8[]; vb float8[]; exact bool;
BEGIN
  IF e < -1000 OR e > 1000 THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT gsu.refset_agg(mean, label ORDER BY id %1$s), bool_and(fz_scales_exactly(mean, %2$s)) FROM %3$s',
                 CASE WHEN descending THEN 'DESC' ELSE '' END, e, src) INTO r1, exact;
  IF NOT exact OR NOT fz_scales_exactly(q, e) THEN
    RETURN NULL;
  END IF;
  EXECUTE format('SELECT gsu.refset_agg(fz_scale(mean, %2$s), label ORDER BY id %1$s) FROM %3$s',
                 CASE WHEN descending THEN 'DESC' ELSE '' END, e, src) INTO r2;
  a := gsu.knn_predict(r1, q, k);
  b := gsu.knn_predict(r2, fz_scale(q, e), k);
  IF a IS DISTINCT FROM b THEN
    RAISE EXCEPTION USING ERRCODE = 'FZ004',
      MESSAGE = format('knn_predict at scale 2^%s gives %s, at scale 1 %s (k %s, q %s)', e, b, a, k, q);
  END IF;
  va := fz_scale(gsu.nn_variance(r1, q, NULL, 1, false), e);
  vb := gsu.nn_variance(r2, fz_scale(q, e), NULL, power(2::float8, -e), false);
  -- equal up to the rounding of a subnormal result (rounded twice on one side)
  IF (va IS NULL) <> (vb IS NULL) OR array_length(va, 1) <> array_length(vb, 1)
     OR NOT (SELECT bool_and(abs(va[i] - vb[i]) <= 4.5e-16 * abs(va[i]) + 1e-322)
             FROM generate_subscripts(va, 1) i) THEN
    RAISE EXCEPTION USING ERRCODE = 'FZ004',
      MESSAGE = format('nn_variance at scale 2^%s gives %s, at scale 1 %s (q %s)', e, vb, va, q);
  END IF;
  RETURN a;
END $$;
"""

RT = r"""
CREATE FUNCTION fz_rt(v gsu.{t}) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t text; r gsu.{t};
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  t := v::text;
  BEGIN
    r := t::gsu.{t};
  EXCEPTION WHEN OTHERS THEN
    RAISE EXCEPTION USING ERRCODE = 'FZ001',
      MESSAGE = format('a produced gsu.{t} is rejected by its text input (%s: %s): %s', SQLSTATE, SQLERRM, left(t, 600));
  END;
  IF gsu.{t}_send(r) <> gsu.{t}_send(v) THEN
    RAISE EXCEPTION USING ERRCODE = 'FZ002',
      MESSAGE = format('a produced gsu.{t} changes through its text form: %s', left(t, 600));
  END IF;
  RETURN left(t, 80);
END $$;
CREATE FUNCTION fz_rt_v(v gsu.{t}) RETURNS gsu.{t} LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fz_rt(v);
  RETURN v;
END $$;
"""

# ------------------------------------------------------------------ generator pools

ARRAYS = [
    "ARRAY[1, 2, 3]::float8[]", "ARRAY[0.5, -0.5, 0.1]::float8[]", "ARRAY[1, 2]::float8[]",
    "ARRAY[1, 2, 3, 4]::float8[]", "ARRAY['NaN', 1, 2]::float8[]", "ARRAY[1, 'Infinity', 2]::float8[]",
    "ARRAY[1, 2, '-Infinity']::float8[]", "ARRAY[NULL, 1, 2]::float8[]", "'{}'::float8[]",
    "ARRAY[[1, 2, 3]]::float8[]", "ARRAY[[1, 0, 0], [0, 1, 0], [0, 0, 1]]::float8[]",
    "ARRAY[1e308, -1e308, 1e308]::float8[]", "ARRAY[5e-324, -5e-324, 2.2250738585072014e-308]::float8[]",
    "ARRAY[1e-300, 1e300, 0]::float8[]", "ARRAY['-0', 0, '-0']::float8[]", "NULL::float8[]",
    "ARRAY[mean[1], '-0', -mean[3]]::float8[]", "ARRAY[mean[1] * 1e200, mean[2] * 1e200, mean[3]]",
    "ARRAY[mean[1] * 1e-200, mean[2] * 1e-200, mean[3] * 1e-200]",
    "ARRAY[mean[1] * 1.7e308, -mean[2] * 1.7e308, mean[3]]",
    "array_fill(1::float8, ARRAY[1000001])", "array_fill(0.5::float8, ARRAY[3], ARRAY[0])",
    "ARRAY[[[1]]]::float8[]", "array_fill(1e308::float8, ARRAY[3])", "mean", "variance",
    "ARRAY[mean[1] * 1e300, mean[2], mean[3]]", "ARRAY[mean[1] * 1e-310, mean[2], mean[3]]",
]
VARIANCES = ARRAYS + ["0.1::float8", "'NaN'::float8", "-1::float8", "1e308::float8", "5e-324::float8",
                      "'Infinity'::float8", "NULL::float8", "0::float8"]
LABELS = ["1", "-1", "0", "2", "label", "label3", "2147483647", "-2147483648", "NULL::int4", "id"]
FLOATS = ["0", "1", "-1", "0.5", "1e308", "-1e308", "5e-324", "'NaN'", "'Infinity'", "'-Infinity'",
          "NULL::float8", "1e-300", "2147483648", "'-0'::float8", "1e-320"]
INTS = ["0", "1", "-1", "2", "2147483647", "-2147483648", "NULL::int4", "1000000"]
OPT_KEYS = {
    'lambda': ['1e-300', '1e300', '0', '-1', '"NaN"', '5e-324', '0.01', '"x"', 'null', '[]', '1e400'],
    'loss': ['"gsu"', '"hinge"', '"tsvc"', '"robust"', '"psvm"', '"x"', '1', 'null'],
    'solver': ['"newton"', '"pegasos"', '"sgd"', '"x"', '0'],
    'tolerance': ['0', '1', '5e-324', '0.5', '-1', '"NaN"'],
    'smoothing': ['0', '1', '5e-324', '2', '"Infinity"'],
    'max_iterations': ['0', '1', '2', '-1', '2147483648', '1.5', '"1"'],
    'epochs': ['0', '1', '2', '2147483647', '-1'],
    'batch_size': ['0', '1', '1000', '2147483647', '-1'],
    'seed': ['0', '-1', '9223372036854775807', '18446744073709551615', '1.5'],
    'subspace_fraction': ['0', '5e-324', '0.5', '1', '1.5', '"NaN"'],
    'gamma': ['0', '1', '1e300', '-1', '"NaN"', '-1e-400'],
    'delta_scale': ['0', '1e300', '-1', '5e-324', '-1e-400'],
    'norm': ['1', '2', '"inf"', '3', '"1"', '0'],
    'confidence': ['0.5', '0.9', '0.9999999999999999', '1', '0', '5e-324', '0.3'],
    'bound': ['"gaussian"', '"chebyshev"', '"markov"'],
    'tsvc_algorithm': ['"projected"', '"alternating"', '"exact"'],
    'class_weight': ['"balanced"', '{"1": 5}', '{"1": 0}', '{"1": 1e308, "-1": 5e-324}', '{"x": 1}', '"equal"', '[]'],
    'features': ['{"map": "rff", "dim": 4, "sigma": 1}', '{"map": "rff", "dim": 3, "sigma": 1}',
                 '{"map": "nystroem", "landmarks": 5, "sigma": 1}', '{"map": "nystroem", "landmarks": 5, "sigma": 1e-300}',
                 '{"map": "rff", "dim": 4, "sigma": 1e300, "covariance": "full"}', '{"map": "x"}', '{}', '1'],
    'feature_bound': ['"moments"', '"worst_case"', '"couellan_jan"', '"box"'],
    'feature_norm': ['1', '2', '"inf"', '3', 'null'],
    'init': ['1', '{}', 'null'],
    'bogus': ['1'],
}
MOMENT_OPTS = ['{}', '{"covariance": "full"}', '{"estimator": "population"}', '{"estimator": 1}', '{"x": 1}', 'null', '[]']
GEU_OPTS = ['{}', '{"dims": 1}', '{"dims": 0}', '{"method": "mfa", "k1": 1, "k2": 1}', '{"regularization": 1e300}',
            '{"regularization": 5e-324}', '{"method": "mfa", "k1": 2147483647}', '{"dims": 2147483647}', '{"k1": 1}',
            '{"regularization": -1e-400}', '{"method": "mfa", "k1": 2, "k2": 3, "regularization": -1e-400}',
            '{"regularization": 0.5, "regularize": "both"}', '{"regularization": 1e300, "regularize": "penalty"}',
            '{"method": "mfa", "k1": 2, "k2": 3, "regularization": 0.1, "regularize": "both"}', '{"regularize": "x"}']
# row sets for the nearest-neighbour scaling oracle fz_nn_scale (columns id, mean, label)
NN_SOURCES = ["'pts'", "'(SELECT id, ARRAY[round(mean[1]), round(mean[2] * 2), 0] AS mean, label FROM pts) s'",
              "'(SELECT id, ARRAY[mean[1] * 1e150, mean[2], mean[3]] AS mean, label FROM pts) s'",
              "'(SELECT id, ARRAY[mean[1], ''-0'', -mean[3]]::float8[] AS mean, label3 AS label FROM pts) s'"]
NN_EXPONENTS = ['0', '1', '500', '660', '-560', '-700', '1000', '-1000']


def options(rng):
    n = rng.choice((0, 1, 1, 2, 3))
    keys = rng.sample(sorted(OPT_KEYS), n)
    pairs = ['"%s": %s' % (k, rng.choice(OPT_KEYS[k])) for k in keys]
    return "'{%s}'::jsonb" % ', '.join(pairs)


def rt(expr):
    return 'fz_rt(%s)' % expr


def gen_statement(rng):
    a = lambda: rng.choice(ARRAYS)     # noqa: E731
    v = lambda: rng.choice(VARIANCES)  # noqa: E731
    kind = rng.randrange(16)
    src = rng.choice(['pts', 'pts WHERE id <= 3', 'pts WHERE label = 1', 'pts, generate_series(1, 2) g'])
    if kind == 0:
        return 'SELECT %s FROM %s;' % (rt('gsu.train(%s, %s, %s, %s)' % (a(), v(), rng.choice(LABELS), options(rng))), src)
    if kind == 1:
        return 'SELECT %s FROM %s;' % (rt('gsu.train(mean, variance, label, %s)' % options(rng)), src)
    if kind == 2:
        return 'SELECT %s FROM %s;' % (rt('gsu.train(%s, %s, %s, %s, %s)' % (
            a(), rng.choice(ARRAYS), rng.choice(LABELS), rng.choice(FLOATS) + '::float8', options(rng))), src)
    if kind == 3:
        return 'SELECT %s FROM %s;' % (rt('gsu.sgd_partial(%s, %s, %s, %s)' % (
            a(), rng.choice(ARRAYS), rng.choice(LABELS), options(rng))), src)
    if kind == 4:
        return 'SELECT %s FROM (SELECT gsu.sgd_partial(%s, %s, label, %s) p FROM pts GROUP BY id %% 3) s;' % (
            rt('gsu.sum(p)'), a(), rng.choice(ARRAYS), options(rng))
    if kind == 5:
        return 'SELECT %s FROM %s;' % (rt('gsu.gradient(%s, %s, %s, %s, %s)' % (
            a(), rng.choice(ARRAYS), rng.choice(LABELS), rng.choice(['NULL::gsu.model', '(SELECT m FROM m)', '(SELECT m FROM mm)', '(SELECT m FROM mr)']),
            rng.choice(FLOATS))), src)
    if kind == 6:
        f = rng.choice(['decision', 'decisions', 'predict', 'probability', 'probabilities'])
        return 'SELECT gsu.%s(m, %s) FROM %s;' % (f, a(), rng.choice(['m', 'mm AS m', 'mr AS m']))
    if kind == 7:
        f = rng.choice(['confidence(m, %s, %s)' % (a(), v()),
                        'expected_loss(m, %s, %s, %s)' % (a(), v(), rng.choice(LABELS[:4] + ['3'])),
                        'explain(m, %s, %s)' % (a(), v())])
        return 'SELECT gsu.%s FROM %s, pts WHERE id = 1;' % (f, rng.choice(['m', 'mm AS m', 'mr AS m']))
    if kind == 8:
        return 'SELECT %s FROM pts, %s GROUP BY m::text;' % (
            rt('gsu.calibrate(m, %s, %s)' % (a(), rng.choice(LABELS))), rng.choice(['m', 'mm AS m', 'mr AS m']))
    if kind == 9:
        return 'SELECT (gsu.moments(%s, %s)).* FROM %s;' % (a(), "'%s'::jsonb" % rng.choice(MOMENT_OPTS), src)
    if kind == 10:
        return 'SELECT %s FROM %s;' % (rt('gsu.geu_fit(%s, %s, %s, %s)' % (
            a(), rng.choice(ARRAYS), rng.choice(LABELS), "'%s'::jsonb" % rng.choice(GEU_OPTS))), src)
    if kind == 11:
        f = rng.choice(['project(p, %s)' % a(), 'project_variance(p, %s)' % v(), 'project_covariance(p, %s)' % a()])
        return 'SELECT gsu.%s FROM proj, pts WHERE id = 2;' % f
    if kind == 12:
        f = rng.choice(['nn_variance(r, %s, %s, %s, %s)' % (a(), rng.choice(LABELS), rng.choice(FLOATS), rng.choice(['true', 'false', 'NULL'])),
                        'knn_predict(r, %s, %s)' % (a(), rng.choice(INTS))])
        if rng.random() < 0.5:
            # the scaling oracle: distances that overflow or underflow (issue 27)
            return 'SELECT fz_nn_scale(%s, %s, %s, %s, %s) FROM pts WHERE id = 3;' % (
                rng.choice(NN_SOURCES), a(), rng.choice(['1', '2', '3', '5', '40', '0']),
                rng.choice(NN_EXPONENTS), rng.choice(['true', 'false']))
        return 'SELECT gsu.%s FROM ref, pts WHERE id = 3;' % f
    if kind == 13:
        return 'SELECT %s FROM %s;' % (rt('gsu.refset_agg(%s, %s)' % (a(), rng.choice(LABELS))), src)
    if kind == 14:
        f = rng.choice(['image_variance(%s, %s, %s, %s)' % (a(), rng.choice(INTS), rng.choice(INTS), rng.choice(FLOATS)),
                        'image_variance(%s, %s)' % (a(), rng.choice(FLOATS)),
                        'image_covariance(%s, %s)' % (a(), rng.choice(FLOATS))])
        return 'SELECT gsu.%s FROM pts WHERE id = 1;' % f
    f = rng.choice(['roc_auc', 'average_precision', 'roc_curve', 'pr_curve', 'log_loss'])
    return 'SELECT gsu.%s(%s, %s) FROM %s;' % (f, rng.choice(FLOATS), rng.choice(LABELS), src)


def load_list(path):
    text = open(path).read()
    out = []
    for para in re.split(r'\n\s*\n', text):
        lines = [ln for ln in para.split('\n') if ln.strip() and not ln.lstrip().startswith('--')]
        if lines:
            out.append('\n'.join(lines))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--quick', action='store_true', help='the list and 200 generated statements (default)')
    ap.add_argument('--long', type=int, metavar='N', help='N x 200 generated statements, 60 s timeout')
    ap.add_argument('--seed', type=int, default=int(os.environ.get('GSU_FUZZ_SEED', '1')))
    ap.add_argument('--generated', type=int, help='number of generated statements (overrides the mode)')
    ap.add_argument('--timeout-ms', type=int)
    ap.add_argument('--list', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fuzz_statements.sql'))
    ap.add_argument('--keep-db', action='store_true')
    args = ap.parse_args()
    n_gen = args.generated if args.generated is not None else (200 * args.long if args.long else 200)
    timeout = args.timeout_ms or (60000 if args.long else 3000)

    t0 = time.time()
    srv = Server(timeout_ms=timeout)
    o = Oracle('statements')
    stmts = [('list %d' % (i + 1), s) for i, s in enumerate(load_list(args.list))]
    rng = random.Random(args.seed)
    stmts += [('gen %d' % (i + 1), gen_statement(rng)) for i in range(n_gen)]
    try:
        srv.create_db()
        srv.must(SETUP + ''.join(RT.replace('{t}', t) for t in ('model', 'projection', 'refset', 'partial')))
        todo = list(range(len(stmts)))
        results = {}
        while todo:
            script = ''.join(stmts[i][1].rstrip().rstrip(';') + ';\n' + mark('S', i) for i in todo)
            out, err, rc = srv.run(script, timeout=600 + 10 * len(todo), stall=timeout / 1000.0 + max(5, timeout / 2000.0))
            for tag, key, state, msg in parse_marks(out):
                if tag == 'S':
                    results[int(key)] = (state, msg)
            rest = [i for i in todo if i not in results]
            if not rest:
                break
            culprit = rest[0]
            stalled = srv.last_stall
            logl = srv.new_log_lines()
            alive = srv.alive()
            if stalled:
                o.fail(stalled['kind'], '%s (seed %d): %s\n  %s'
                       % (stmts[culprit][0], args.seed, stalled['detail'], short(stmts[culprit][1], 2000)),
                       key=('hang', culprit))
                results[culprit] = ('CRASH', '')
                todo = rest[1:]
                continue
            o.fail('server-crash' if (rc == 2 or logl) else 'psql-exit-%d' % rc,
                   '%s (seed %d) crashed the server or the session (psql exit %d):\n  %s\nstderr tail: %s\nserver log: %s'
                   % (stmts[culprit][0], args.seed, rc, short(stmts[culprit][1], 2000), short(err[-500:], 500),
                      ' | '.join(logl[-5:]) or '(none)'), key=('crash', culprit))
            results[culprit] = ('CRASH', '')
            if not alive:
                print('fuzz: the server did not come back; stopping', flush=True)
                break
            todo = rest[1:]
        states = {}
        for i, (state, msg) in sorted(results.items()):
            if state == 'CRASH':
                continue
            states[state] = states.get(state, 0) + 1
            kind = bad_state(state, msg)
            if kind:
                o.fail(kind, '%s (seed %d): SQLSTATE %s: %s\n  %s'
                       % (stmts[i][0], args.seed, state, short(msg, 600), short(stmts[i][1], 2000)),
                       key=(kind, (msg or '')[:60], stmts[i][0] if stmts[i][0].startswith('list') else ''))
            else:
                o.ok()
        logl = srv.new_log_lines()
        if logl:
            o.fail('server-log', 'the server log reports:\n' + '\n'.join(logl[-20:]))
        if srv.alive(wait=5):
            o.ok()
        else:
            o.fail('server-down', 'the server does not answer SELECT 1 at the end')
        print('outcomes by SQLSTATE: ' + ', '.join('%s %d' % kv for kv in sorted(states.items())))
    finally:
        if not args.keep_db:
            srv.drop_db()
    o.summary()
    print('fuzz_statements: seed %d, %d statements (%d generated), %.1f s'
          % (args.seed, len(stmts), n_gen, time.time() - t0))
    print('%d passed, %d failed' % (o.passed, o.failed))
    sys.exit(1 if o.failed else 0)


if __name__ == '__main__':
    main()
