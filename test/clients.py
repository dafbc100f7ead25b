"""Drives pg_gsu from real Python clients as an ordinary role: psycopg 3 (text and
binary, numpy in and out, untyped string parameters) and psycopg2, with the
adapters of clients/python/pg_gsu.py. Run by test/clients.sh, which makes the
role and the database; prints `N passed, M failed`.

Usage: python3 test/clients.py psycopg|psycopg2 CONNINFO
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
import numpy as np  # noqa: E402
import pg_gsu  # noqa: E402

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok %s" % name)
    else:
        failed += 1
        print("FAILED %s %s" % (name, detail))


def close(a, b, tol=1e-12):
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * (1 + np.abs(b))))


# models of every loss and solver, trained by the role on its own table
TRAININGS = [
    ("gsu newton", '{"lambda": 0.01}'),
    ("gsu standardized", '{"lambda": 0.01, "standardize": true}'),
    ("hinge dcd", '{"loss": "hinge", "lambda": 0.01}'),
    ("gsu sgd", '{"lambda": 0.01, "solver": "sgd", "epochs": 3}'),
    ("gsu pegasos", '{"lambda": 0.01, "solver": "pegasos", "epochs": 3}'),
    ("tsvc", '{"loss": "tsvc", "lambda": 0.01}'),
    ("robust", '{"loss": "robust", "lambda": 0.01}'),
    ("rff map", '{"lambda": 0.01, "features": {"map": "rff", "dim": 8, "sigma": 1.0, "seed": 3}}'),
    ("couellan_jan bound", '{"loss": "robust", "feature_bound": "couellan_jan", "gamma": 0.1, "lambda": 0.01, '
                           '"features": {"map": "rff", "dim": 8, "sigma": 2.0, "seed": 3}}'),
]

SETUP = """
DROP TABLE IF EXISTS client_rows;
CREATE TABLE client_rows (id int PRIMARY KEY, mean float8[], variance float8[], label int, label3 int);
"""


def make_rows(n=120, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = np.where(x[:, 0] + 0.5 * x[:, 1] > 0, 1, -1)
    y3 = (np.argmax(x, axis=1)).astype(int)
    v = 0.05 + 0.1 * rng.random(size=(n, 3))
    return x, v, y, y3


def run_psycopg(conninfo):
    import psycopg
    with psycopg.connect(conninfo, autocommit=True) as conn:
        pg_gsu.register_psycopg(conn)
        cur = conn.cursor()
        cur.execute(SETUP)
        x, v, y, y3 = make_rows()
        # numpy rows in, text and binary
        with conn.cursor() as c:
            c.executemany("INSERT INTO client_rows VALUES (%s, %s, %s, %s, %s)",
                          [(i, x[i], v[i], int(y[i]), int(y3[i])) for i in range(60)])
        with conn.cursor(binary=True) as c:
            c.executemany("INSERT INTO client_rows VALUES (%s, %s, %s, %s, %s)",
                          [(i, x[i], v[i], int(y[i]), int(y3[i])) for i in range(60, len(y))])
        cur.execute("SELECT mean, variance FROM client_rows ORDER BY id")
        back = cur.fetchall()
        check("numpy arrays stored exactly (text and binary)",
              close([r[0] for r in back], x, 0) and close([r[1] for r in back], v, 0))
        cur.execute("SELECT count(*) FROM client_rows WHERE array_ndims(mean) = 1 AND cardinality(mean) = 3")
        check("numpy rows are 1-D float8[] of 3", cur.fetchone()[0] == len(y))

        for name, opts in TRAININGS:
            cur.execute("SELECT gsu.train(mean, variance, label, %s::jsonb) FROM client_rows", (opts,))
            m_text = cur.fetchone()[0]
            with conn.cursor(binary=True) as cb:
                cb.execute("SELECT gsu.train(mean, variance, label, %s::jsonb) FROM client_rows", (opts,))
                m_bin = cb.fetchone()[0]
            check("%s: text form loads as a Model" % name, isinstance(m_text, pg_gsu.Model), repr(m_text))
            check("%s: binary form loads as a Model" % name, isinstance(m_bin, pg_gsu.Model), repr(m_bin))
            # the same fields from both forms (seconds differ between two trainings)
            dt, db = m_text.describe(), m_bin.describe()
            for d in (dt, db):
                d["training"].pop("seconds", None)
            same = dt == db
            if name in ("gsu sgd",):
                same = dt["loss"] == db["loss"] and dt["classes"] == db["classes"]
            check("%s: describe() agrees between text and binary" % name, same, "%r != %r" % (dt, db))
            # the per-pass history of both forms, against gsu.training_info of the same value
            for form, mm in (("text", m_text), ("binary", m_bin)):
                with conn.cursor(binary=(form == "binary")) as ch:
                    ch.execute("SELECT pass, objective, gradient_norm, gap, elapsed_ms FROM gsu.training_info(%s) "
                               "ORDER BY class, pass", (mm,))
                    rows = [tuple(r) for r in ch.fetchall()]
                mine = [tuple(e[f] for f in ("pass", "objective", "gradient_norm", "gap", "elapsed_ms"))
                        for v in mm.history for e in v]
                check("%s: the %s form's history is gsu.training_info's" % (name, form), mine == rows,
                      "%r != %r" % (mine[:3], rows[:3]))
            # weights and bias against the server's
            cur.execute("SELECT gsu.weights(%s), gsu.bias(%s)", (m_text, m_text))
            w, b = cur.fetchone()
            if m_text.standardization is None and m_text.features is None:
                check("%s: weights and bias equal gsu.weights, gsu.bias" % name,
                      close(m_text.weights[0], w, 0) and m_text.bias[0] == b)
            # the model sent back, in text and in binary, scores as stored
            cur.execute("SELECT gsu.decision(%s, mean) FROM client_rows ORDER BY id", (m_text,))
            d_text = [r[0] for r in cur.fetchall()]
            with conn.cursor(binary=True) as cb:
                cb.execute("SELECT gsu.decision(%s, mean) FROM client_rows ORDER BY id", (m_bin,))
                d_bin = [r[0] for r in cb.fetchall()]
                cb.execute("SELECT gsu.model_send(%s)", (m_bin,))
                check("%s: a binary model sent back is the same value" % name,
                      bytes(cb.fetchone()[0]) == m_bin.to_binary())
            cur.execute("SELECT %s::gsu.model::text = %s", (m_text, m_text.to_text()))
            check("%s: a text model sent back is the same value" % name, cur.fetchone()[0] is True)
            check("%s: the model sent back scores" % name, len(d_text) == len(y) and len(d_bin) == len(y))
            if m_text.features is None:
                local = [m_text.decision(r) for r in x]
                check("%s: Model.decision equals gsu.decision" % name, close(local, d_text, 1e-12))

        # regression (gsu.train_regression, options untyped): the model in text and binary,
        # scored locally and by gsu.decision, and gsu.predictive with numpy arguments
        for loss in ("epsilon_insensitive", "squared"):
            cur.execute("SELECT gsu.train_regression(mean, variance, mean[1] - 2 * mean[2], %s) FROM client_rows",
                        ('{"lambda": 0.01, "loss": "%s"}' % loss,))
            reg = cur.fetchone()[0]
            with conn.cursor(binary=True) as cb:
                cb.execute("SELECT %s::gsu.model", (reg,))
                reg_b = cb.fetchone()[0]
            check("regression %s: loads from text and binary" % loss,
                  reg.loss == loss and reg_b.loss == loss and close(reg.weights, reg_b.weights, 0), repr(reg))
            cur.execute("SELECT gsu.decision(%s, mean) FROM client_rows ORDER BY id", (reg,))
            d = [r[0] for r in cur.fetchall()]
            check("regression %s: Model.decision equals gsu.decision" % loss,
                  close([reg.decision(r) for r in x], d, 1e-12))
            cur.execute("SELECT prediction, sd FROM gsu.predictive(%s, %s, %s)", (reg, x[0], v[0]))
            pred, sd = cur.fetchone()
            w = np.asarray(reg.weights[0])
            check("regression %s: gsu.predictive with numpy mean and variance" % loss,
                  close(pred, reg.decision(x[0]), 1e-12) and close(sd, math.sqrt(float(np.sum(w * w * v[0]))), 1e-12),
                  "%r %r" % (pred, sd))

        # option "missing" (issue 33 part 2): the moments block read from text and binary, and a
        # None element scored locally as gsu.decision scores a NULL one
        cur.execute("SELECT gsu.train(CASE WHEN id %% 4 = 0 THEN mean[1:1] || NULL::float8 || mean[3:3] ELSE mean END, "
                    "variance, label, %s) FROM client_rows", ('{"lambda": 0.01, "missing": "feature_moments"}',))
        mm = cur.fetchone()[0]
        with conn.cursor(binary=True) as cb:
            cb.execute("SELECT %s::gsu.model", (mm,))
            mm_b = cb.fetchone()[0]
        check("missing: the moments block from text and binary",
              mm.missing is not None and mm_b.missing == mm.missing and mm.missing["rows"] == 30
              and close(mm.weights, mm_b.weights, 0), repr(mm.missing))
        cur.execute("SELECT gsu.decision(%s, ARRAY[0.1, NULL, 0.3]::float8[])", (mm,))
        check("missing: Model.decision with None equals gsu.decision with NULL",
              close(mm_b.decision([0.1, None, 0.3]), cur.fetchone()[0], 1e-12))
        # "missing_nan": the flag from binary, the hyperparameter from text, NaN scored as NULL
        cur.execute("SELECT gsu.train(CASE WHEN id %% 4 = 0 THEN mean[1:1] || 'NaN'::float8 || mean[3:3] ELSE mean END, "
                    "variance, label, %s) FROM client_rows",
                    ('{"lambda": 0.01, "missing": "feature_moments", "missing_nan": true}',))
        mn = cur.fetchone()[0]
        with conn.cursor(binary=True) as cb:
            cb.execute("SELECT %s::gsu.model", (mn,))
            mn_b = cb.fetchone()[0]
        cur.execute("SELECT gsu.decision(%s, ARRAY[0.1, 'NaN', 0.3]::float8[])", (mn,))
        d_nan = cur.fetchone()[0]
        check("missing_nan: Model.decision with NaN equals gsu.decision with NaN, text and binary",
              mn.missing_nan and mn_b.missing_nan and not mm.missing_nan and not mm_b.missing_nan
              and close(mn.decision([0.1, float("nan"), 0.3]), d_nan, 1e-12)
              and close(mn_b.decision([0.1, float("nan"), 0.3]), d_nan, 1e-12), repr(d_nan))

        # multi-class, and a calibrated model
        cur.execute("SELECT gsu.train(mean, variance, label3, '{\"lambda\": 0.01}') FROM client_rows")
        multi = cur.fetchone()[0]
        with conn.cursor(binary=True) as cb:
            cb.execute("SELECT %s::gsu.model", (multi,))
            multi_b = cb.fetchone()[0]
        check("multi-class: three weight vectors in text and binary",
              len(multi.weights) == 3 and close(multi.weights, multi_b.weights, 0) and multi.classes == [0, 1, 2])
        cur.execute("SELECT gsu.decisions(%s, %s)", (multi, x[0]))
        check("multi-class: Model.decision equals gsu.decisions", close(multi.decision(x[0]), cur.fetchone()[0], 1e-12))
        cur.execute("SELECT gsu.calibrate(m, mean, label) FROM client_rows, "
                    "(SELECT gsu.train(mean, variance, label) AS m FROM client_rows) t GROUP BY m::text")
        cal = cur.fetchone()[0]
        with conn.cursor(binary=True) as cb:
            cb.execute("SELECT %s::gsu.model", (cal,))
            check("calibrated: flag read from text and binary", cal.calibrated and cb.fetchone()[0].calibrated)

        # untyped string parameters (psycopg 3 sends str as unknown): functions with one form resolve
        m = m_text
        cur.execute("SELECT gsu.decision(%s, %s)", (m.to_text(), "{0.1,0.2,0.3}"))
        check("untyped text: gsu.decision(model, mean)", math.isfinite(cur.fetchone()[0]))
        cur.execute("SELECT gsu.predict(%s, %s)", (m.to_text(), "{0.1,0.2,0.3}"))
        check("untyped text: gsu.predict(model, mean)", cur.fetchone()[0] in (-1, 1))
        cur.execute("SELECT gsu.confidence(%s, %s, %s), gsu.confidence(%s, %s, %s)",
                    (m.to_text(), "{0.1,0.2,0.3}", None, m.to_text(), "{0.1,0.2,0.3}", "{0.2}"))
        certain, iso = cur.fetchone()
        check("untyped text and None: gsu.confidence(model, mean, variance)", certain == 1.0 and 0.5 <= iso <= 1.0)
        cur.execute("SELECT gsu.weights(%s, %s)", (m.to_text(), "1"))
        check("untyped text: gsu.weights(model, '1') is class 1", close(cur.fetchone()[0], m.weights[0], 0))
        cur.execute("SELECT gsu.train(mean, variance, label, %s) IS NOT NULL FROM client_rows", ('{"lambda": 0.1}',))
        check("untyped text: gsu.train options", cur.fetchone()[0] is True)
        # numpy in, numpy out of a 2-D result
        cur.execute("SELECT gsu.moments(mean, '{\"covariance\": \"full\"}') FROM client_rows")
        mom = cur.fetchone()[0]
        check("gsu.moments: a composite with a 2-D covariance comes back", mom is not None)
        cur.execute("SELECT %s::float8[]", (np.arange(6.0).reshape(2, 3),))
        check("a 2-D numpy array round-trips", close(cur.fetchone()[0], np.arange(6.0).reshape(2, 3), 0))
        with conn.cursor(binary=True) as cb:
            cb.execute("SELECT %s::float8[]", (np.array([[1.5, -2.0], [np.inf, 0.0]]),))
            check("a 2-D numpy array round-trips in binary", cb.fetchone()[0] == [[1.5, -2.0], [math.inf, 0.0]])
        cur.execute("SELECT %s::float8[]", (np.array([1, 2, 3], dtype=np.int32),))
        check("an integer numpy array is sent as float8[]", cur.fetchone()[0] == [1.0, 2.0, 3.0])


def run_psycopg2(conninfo):
    import psycopg2
    conn = psycopg2.connect(conninfo)
    conn.autocommit = True
    pg_gsu.register_psycopg2(conn)
    cur = conn.cursor()
    cur.execute(SETUP)
    x, v, y, y3 = make_rows(seed=11)
    for i in range(len(y)):
        cur.execute("INSERT INTO client_rows VALUES (%s, %s, %s, %s, %s)", (i, x[i], v[i], int(y[i]), int(y3[i])))
    cur.execute("SELECT mean FROM client_rows ORDER BY id")
    check("psycopg2: numpy rows stored exactly", close([r[0] for r in cur.fetchall()], x, 0))
    cur.execute("SELECT gsu.train(mean, variance, label, '{\"lambda\": 0.01}') FROM client_rows")
    m = cur.fetchone()[0]
    check("psycopg2: a gsu.model loads as a Model", isinstance(m, pg_gsu.Model), repr(m))
    cur.execute("SELECT gsu.weights(%s), gsu.bias(%s)", (m, m))
    w, b = cur.fetchone()
    check("psycopg2: weights and bias equal the server's", close(m.weights[0], w, 0) and m.bias[0] == b)
    cur.execute("SELECT gsu.decision(%s, mean) FROM client_rows ORDER BY id", (m,))
    d = [r[0] for r in cur.fetchall()]
    check("psycopg2: Model.decision equals gsu.decision", close([m.decision(r) for r in x], d, 1e-12))
    cur.execute("SELECT gsu.confidence(%s, %s, %s)", (m, x[0], v[0]))
    check("psycopg2: gsu.confidence with numpy mean and variance", 0.0 <= cur.fetchone()[0] <= 1.0)
    cur.execute("SELECT gsu.describe(%s)->>'loss'", (m,))
    check("psycopg2: describe", cur.fetchone()[0] == m.describe()["loss"])
    conn.close()


if __name__ == "__main__":
    driver, conninfo = sys.argv[1], sys.argv[2]
    try:
        {"psycopg": run_psycopg, "psycopg2": run_psycopg2}[driver](conninfo)
    except Exception as e:  # an unexpected error is one failure, with its message
        import traceback
        traceback.print_exc()
        check("%s: ran to the end" % driver, False, str(e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
