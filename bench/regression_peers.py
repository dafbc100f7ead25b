#!/usr/bin/python3
"""Driver of bench/regression_peers.sh (see its header): pg_gsu's gsu.train_regression
with zero variance against liblinear's SVR (liblinear-train -s 11/12/13) and
scikit-learn's LinearSVR and Ridge on the same generated rows, one cell per shape.

Every solver's (w, b) is scored with pg_gsu's objective
    F(w, b) = lambda/2 |w|^2 + (1/n) sum loss(y_i - w'x_i - b)
(b unregularized; loss max(0, |r| - eps) for SVR, r^2 for ridge), so each row compares
the same problem; liblinear and LinearSVR regularize their bias term (-B 1,
intercept_scaling 1), which costs them a little F. The scalings:
    liblinear  min 1/2|w|^2 + C sum loss   ->  C = 1/(lambda n)
    -s 13      L1-loss SVR (dual): loss max(0, |r| - eps)   = SVR-GSU's
    -s 11/12   L2-loss SVR (primal/dual): loss max(0, |r| - eps)^2; with -p 0 it is r^2 = ridge-GSU's
    LinearSVR  C = 1/(lambda n), loss "epsilon_insensitive" (liblinear inside)
    Ridge      min |y - Xw - b|^2 + alpha |w|^2  ->  alpha = lambda n / 2
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVR

EPS = 0.1
PSQL = os.environ.get("PSQL", "psql")
DB = os.environ.get("DB", "regression_peers")


def objective(w, b, X, y, lam, loss):
    r = y - X @ w - b
    if loss == "svr":
        l = np.maximum(0.0, np.abs(r) - EPS)
    else:
        l = r * r
    return lam / 2 * float(w @ w) + float(l.mean())


def psql(sql, stdin=None):
    out = subprocess.run([PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", DB, "-c", sql],
                         input=stdin, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def load_gsu(X, y):
    psql("DROP TABLE IF EXISTS rows; CREATE TABLE rows (mean float8[], y float8)")
    lines = "".join("{%s}\t%r\n" % (",".join(repr(float(v)) for v in X[i]), float(y[i])) for i in range(len(y)))
    subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB, "-c", "\\copy rows FROM pstdin"],
                   input=lines, text=True, check=True)
    psql("VACUUM ANALYZE rows")


def gsu(lam, loss):
    opts = {"loss": "epsilon_insensitive" if loss == "svr" else "squared", "lambda": lam}
    if loss == "svr":
        opts["epsilon"] = EPS
    res = psql("SELECT row_to_json(t) FROM gsu_timed('%s') t" % json.dumps(opts))
    r = json.loads(res)
    return np.array(r["w"]), r["b"], r["ms"] / 1000.0, r["iterations"]


def liblinear(path, d, n, lam, solver, eps):
    C = 1.0 / (lam * n)
    with tempfile.NamedTemporaryFile(suffix=".model", delete=False) as f:
        model = f.name
    try:
        t0 = time.perf_counter()
        out = subprocess.run(["liblinear-train", "-s", str(solver), "-c", repr(C), "-p", repr(eps), "-B", "1", "-q",
                              path, model], capture_output=True, text=True, check=True)
        secs = time.perf_counter() - t0
        lines = open(model).read().split("\n")
        k = lines.index("w")
        ws = np.array([float(v) for v in lines[k + 1:k + 2 + d]])
    finally:
        os.unlink(model)
    return ws[:d], ws[d], secs, out.stdout.count("WARNING")


def read_time(path):
    """liblinear-train's run time on a trivial problem (C tiny): mostly reading the file"""
    t0 = time.perf_counter()
    subprocess.run(["liblinear-train", "-s", "11", "-c", "1e-12", "-q", path, "/dev/null"], capture_output=True, check=True)
    return time.perf_counter() - t0


def main():
    cells = [tuple(float(v) for v in c.split(":")) for c in sys.argv[1].split()]
    rng = np.random.default_rng(int(os.environ.get("SEED", "1")))
    psql("""CREATE OR REPLACE FUNCTION gsu_timed(opts jsonb)
        RETURNS TABLE (ms float8, w float8[], b float8, iterations int) LANGUAGE plpgsql AS $$
        DECLARE t0 timestamptz := clock_timestamp(); m gsu.model; t float8;
        BEGIN
            SELECT gsu.train_regression(r.mean, NULL::float8[], r.y, opts) INTO m FROM rows r;
            t := extract(epoch FROM clock_timestamp() - t0) * 1000;
            RETURN QUERY SELECT t, gsu.weights(m), gsu.bias(m),
                (gsu.describe(m)->'training'->>'iterations')::int;
        END $$""")
    rows = []
    for n, d, noise, lam in cells:
        n, d = int(n), int(d)
        scale = np.exp(rng.normal(0, 1, d))          # features of unequal scales
        wt = rng.normal(0, 1, d) / scale
        X = rng.normal(0, 1, (n + 5000, d)) * scale
        y = X @ wt + 0.5 + noise * rng.standard_t(5, n + 5000)   # heavy-ish tails
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
        load_gsu(Xtr, ytr)
        fd, path = tempfile.mkstemp(suffix=".svm")
        with os.fdopen(fd, "w") as f:
            for i in range(n):
                f.write("%r %s\n" % (float(ytr[i]), " ".join("%d:%r" % (j + 1, float(Xtr[i, j])) for j in range(d))))
        try:
            rt = read_time(path)
            sols = []
            for loss in ("svr", "ridge"):
                w, b, secs, it = gsu(lam, loss)
                sols.append((loss, "gsu.train_regression", w, b, secs,
                             "%d Newton steps" % it if loss == "svr" else "closed form"))
            w, b, secs, warn = liblinear(path, d, n, lam, 13, EPS)
            sols.append(("svr", "liblinear -s 13", w, b, secs, "file read ~%.3f s" % rt, rt))
            for s in (11, 12):
                w, b, secs, warn = liblinear(path, d, n, lam, s, 0.0)
                sols.append(("ridge", "liblinear -s %d -p 0" % s, w, b, secs, "file read ~%.3f s" % rt, rt))
        finally:
            os.unlink(path)
        t0 = time.perf_counter()
        m = LinearSVR(C=1.0 / (lam * n), epsilon=EPS, loss="epsilon_insensitive", fit_intercept=True,
                      intercept_scaling=1.0, tol=1e-4, max_iter=100000, dual=True).fit(Xtr, ytr)
        sols.append(("svr", "sklearn LinearSVR", m.coef_, float(m.intercept_[0]), time.perf_counter() - t0,
                     "%d iterations" % m.n_iter_))
        t0 = time.perf_counter()
        m = Ridge(alpha=lam * n / 2, fit_intercept=True, solver="auto").fit(Xtr, ytr)
        sols.append(("ridge", "sklearn Ridge", m.coef_, float(m.intercept_), time.perf_counter() - t0, ""))
        for loss in ("svr", "ridge"):
            ref = [s for s in sols if s[0] == loss and s[1] == "gsu.train_regression"][0]
            fref = objective(ref[2], ref[3], Xtr, ytr, lam, loss)
            for s in sols:
                if s[0] != loss:
                    continue
                f = objective(s[2], s[3], Xtr, ytr, lam, loss)
                rmse = float(np.sqrt(np.mean((Xte @ s[2] + s[3] - yte) ** 2)))
                rows.append(dict(cell="n=%d d=%d noise=%g lambda=%g" % (n, d, noise, lam), loss=loss, solver=s[1],
                                 secs=s[4], time_ratio=s[4] / ref[4], F=f, rel_gap=(f - fref) / abs(fref),
                                 rmse=rmse, note=s[5] + ("; less the read %.2f x gsu" % (max(0.0, s[4] - s[6]) / ref[4])
                                                           if len(s) > 6 else "")))
    print("| cell | problem | solver | time (s) | time / gsu | F(w, b) | (F − F_gsu)/F_gsu | test RMSE | note |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print("| %s | %s | %s | %.3f | %.2f | %.6g | %+.2e | %.4f | %s |" % (
            r["cell"], "ε-SVR" if r["loss"] == "svr" else "ridge", r["solver"], r["secs"], r["time_ratio"],
            r["F"], r["rel_gap"], r["rmse"], r["note"]))
    print()
    for loss in ("svr", "ridge"):
        peers = [r for r in rows if r["loss"] == loss and r["solver"] != "gsu.train_regression"]
        for name in sorted({r["solver"] for r in peers}):
            rs = [r for r in peers if r["solver"] == name]
            best = min(rs, key=lambda r: r["time_ratio"])
            worst = max(rs, key=lambda r: r["time_ratio"])
            print("- %s, %s: time / gsu from %.2f (%s) to %.2f (%s); F gap from %+.1e to %+.1e" % (
                "ε-SVR" if loss == "svr" else "ridge", name, best["time_ratio"], best["cell"],
                worst["time_ratio"], worst["cell"], min(r["rel_gap"] for r in rs), max(r["rel_gap"] for r in rs)))


if __name__ == "__main__":
    main()
