"""pg_gsu client helpers for Python: psycopg 3 and psycopg2.

One file, no dependency beyond the driver (and numpy when arrays are sent):

    import pg_gsu
    pg_gsu.register_psycopg(conn)     # psycopg 3: a connection or a cursor
    pg_gsu.register_psycopg2(conn)    # psycopg2

After registering:

* a numpy array (1-D or 2-D, any real dtype) is sent as ``float8[]``, in text
  or binary, so a row's mean, variance or covariance can be passed as is;
* a ``gsu.model`` comes back as a :class:`Model`, from the text form (JSON)
  or the binary form (``binary=True`` in psycopg 3), with the same
  attributes either way (weights, bias, classes, describe(), ...);
* a :class:`Model` is sent back as a ``gsu.model`` (its text form, or the
  exact bytes it was read from when it came in binary).

The binary layout read here is gsu.model's send/recv format (src/gsu_model.c,
formats 2 to 5, the missing block of flag 0x10 and the flag 0x20 of "missing_nan"); test/clients.sh checks it against the server's text form
for every loss and solver.
"""

import json
import struct

__all__ = ["Model", "register_psycopg", "register_psycopg2"]

# names of the codes stored in the binary form (src/core/gsu_core.h, src/gsu_model.h)
_LOSSES = ["gsu", "hinge", "tsvc", "robust", "psvm", "epsilon_insensitive", "squared"]
_SOLVERS = ["newton", "pegasos", "sgd", "lbfgs", "dcd"]
# the solvers whose models say whether they converged (gsu_solver_has_gap)
_CERTIFYING = tuple(_SOLVERS.index(s) for s in ("newton", "lbfgs", "dcd"))
_MAPS = [None, "rff", "nystroem", "poly2"]
_CONVERGED, _CALIBRATED, _STANDARDIZED, _HISTORY, _MISSING, _MISSING_NAN = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
_HISTORY_FIELDS = ("pass", "objective", "gradient_norm", "gap", "elapsed_ms")
_HEADER = struct.Struct(">HHiiiBBBBiiiiiBBBBqq8d3q4d")


class Model:
    """A gsu.model read from its text or binary form.

    Attributes: ``dim`` (input dimension), ``classes`` (labels, ascending),
    ``loss``, ``weights`` (a list per class vector: one for two classes,
    else one per class; in the units the model was trained in), ``bias``
    (likewise), ``standardization`` (``{"mean": [...], "scale": [...]}`` or
    None), ``training`` (rows, iterations, objective, ...), ``calibrated``,
    ``history`` (per class vector, a list of dicts with pass, objective,
    gradient_norm, gap, elapsed_ms — None for a measure not taken — as
    gsu.training_info lists them; empty lists for a model without one).
    ``describe()`` gives the model as a dict without its weights, as
    ``gsu.describe`` does for the fields both forms hold.
    """

    def __init__(self, text=None, binary=None):
        self._text = text
        self._binary = binary
        if text is not None:
            self._from_json(json.loads(text))
        elif binary is not None:
            self._from_binary(bytes(binary))
        else:
            raise ValueError("a Model needs its text or binary form")

    # ---------------------------------------------------------------- reading
    @classmethod
    def from_text(cls, text):
        return cls(text=text)

    @classmethod
    def from_binary(cls, data):
        return cls(binary=data)

    def _from_json(self, d):
        self.format = d["format"]
        self.loss = d["loss"]
        self.method = d.get("method")
        self.classes = list(d["classes"])
        self.class_weight = list(d.get("class_weight") or [1.0] * len(self.classes))
        w, b = d["weights"], d["bias"]
        if len(self.classes) == 2:
            self.weights, self.bias = [list(w)], [b]
        else:
            self.weights, self.bias = [list(r) for r in w], list(b)
        self.dim = len(self.weights[0]) if d.get("features") is None else d["features"].get("input_dim", d["dim"])
        self.features = d.get("features")
        self.hyperparameters = d.get("hyperparameters") or {}
        self.standardization = d.get("standardization")
        self.missing = d.get("missing")
        # option "missing_nan": a NaN element is missing too (a hyperparameter in the text form)
        self.missing_nan = self.missing is not None and bool(self.hyperparameters.get("missing_nan"))
        self.training = d.get("training") or {}
        self.calibrated = d.get("calibration") is not None
        nvec = 1 if len(self.classes) == 2 else len(self.classes)
        self.history = [[dict(zip(_HISTORY_FIELDS, e)) for e in v] for v in d.get("history") or [[]] * nvec]
        self._doc = d

    def _from_binary(self, data):
        if len(data) < _HEADER.size:
            raise ValueError("gsu.model binary value is too short")
        h = _HEADER.unpack_from(data, 0)
        (fmt, flags, dim, input_dim, nclasses, loss, solver, map_kind, robust_q,
         epochs, batch_size, max_iterations, landmarks, map_len, subspace_mode,
         _r0, _r1, _r2, seed, map_seed, lam, tolerance, smoothing, subspace_fraction,
         gamma, delta_scale, epsilon, map_sigma, rows, iterations, passes,
         objective, gradient_norm, gap_estimate, seconds) = h
        if fmt < 2 or fmt > 5:
            raise ValueError("unsupported gsu.model format %d" % fmt)
        nvec = 1 if nclasses == 2 else nclasses
        std_len = 2 * input_dim if fmt >= 4 and flags & _STANDARDIZED else 0
        # option "missing" (flag 0x10, format 5): feature means, variances, then 2 counts
        miss_len = 2 * input_dim + 2 if fmt >= 5 and flags & _MISSING else 0
        n = 2 * nclasses + nvec * (dim + 3) + map_len + std_len + miss_len
        body = data[_HEADER.size:]
        # format 5: the history block (flag 0x8) takes what follows: nvec counts, then
        # entries of 5 doubles (pass, objective, gradient norm, gap, elapsed ms; -1: not taken)
        hist = (len(body) - 8 * n) // 8 if fmt >= 5 and flags & _HISTORY else 0
        if len(body) != 8 * (n + hist) or (flags & _HISTORY and hist < nvec):
            raise ValueError("gsu.model binary value has %d bytes of data, expected %d" % (len(body), 8 * n))
        x = struct.unpack(">%dd" % (n + hist), body)
        self.history = [[] for _ in range(nvec)]
        if hist:
            at = n + nvec
            for k in range(nvec):
                for _ in range(int(x[n + k])):
                    e = list(x[at:at + 5])
                    e[0] = int(e[0])
                    e[1:4] = [None if v < 0 else v for v in e[1:4]]
                    self.history[k].append(dict(zip(_HISTORY_FIELDS, e)))
                    at += 5
            if at != n + hist:
                raise ValueError("gsu.model history block is malformed")
        self.format = fmt
        self.loss = _LOSSES[loss] if loss < len(_LOSSES) else loss
        self.method = "linear"
        self.classes = [int(c) for c in x[:nclasses]]
        self.class_weight = list(x[nclasses:2 * nclasses])
        self.weights, self.bias = [], []
        for k in range(nvec):
            t = x[2 * nclasses + k * (dim + 3): 2 * nclasses + k * (dim + 3) + dim + 1]
            self.weights.append(list(t[:dim]))
            self.bias.append(t[dim])
        self.features = None if map_kind == 0 else {"map": _MAPS[map_kind], "input_dim": input_dim}
        self.dim = input_dim if map_kind != 0 or std_len else dim
        self.hyperparameters = {"lambda": lam, "solver": _SOLVERS[solver] if solver < len(_SOLVERS) else solver,
                                "tolerance": tolerance, "smoothing": smoothing,
                                "subspace_fraction": subspace_fraction, "max_iterations": max_iterations,
                                "epochs": epochs, "batch_size": batch_size, "seed": seed}
        if std_len:
            base = 2 * nclasses + nvec * (dim + 3) + map_len
            self.standardization = {"mean": list(x[base:base + input_dim]),
                                    "scale": list(x[base + input_dim:base + 2 * input_dim])}
        else:
            self.standardization = None
        if miss_len:
            base = 2 * nclasses + nvec * (dim + 3) + map_len + std_len
            self.missing = {"mean": list(x[base:base + input_dim]),
                            "variance": list(x[base + input_dim:base + 2 * input_dim]),
                            "rows": int(x[base + 2 * input_dim]), "elements": int(x[base + 2 * input_dim + 1])}
        else:
            self.missing = None
        self.missing_nan = bool(miss_len and flags & _MISSING_NAN)
        self.training = {"rows": rows, "iterations": iterations, "passes": passes,
                         "objective": objective, "gradient_norm": gradient_norm,
                         "gap_estimate": gap_estimate,
                         # as the text form: null for a solver that certifies no optimum
                         "converged": bool(flags & _CONVERGED) if solver in _CERTIFYING else None,
                         "seconds": seconds}
        self.calibrated = bool(flags & _CALIBRATED)
        self._doc = None

    # ---------------------------------------------------------------- use
    def describe(self):
        """The model without its weights: the fields both forms hold."""
        return {"loss": self.loss, "dim": self.dim, "classes": self.classes,
                "class_weight": self.class_weight, "bias": self.bias[0] if len(self.classes) == 2 else self.bias,
                "standardized": self.standardization is not None, "calibrated": self.calibrated,
                "features": None if self.features is None else self.features.get("map"),
                "hyperparameters": {k: self.hyperparameters.get(k) for k in ("lambda", "solver")},
                "training": {k: self.training.get(k) for k in ("rows", "iterations", "passes", "objective", "converged")}}

    def decision(self, mean):
        """The decision value(s) of a plain linear model (no feature map), as gsu.decisions."""
        if self.features is not None:
            raise ValueError("a model with a feature map is scored in the database (gsu.decision)")
        if self.missing is not None:
            # a missing (None) element is the feature's training mean, as gsu.decision reads it;
            # so is a NaN one for a model trained with "missing_nan"
            mean = [self.missing["mean"][j] if v is None or (self.missing_nan and v != v) else v
                    for j, v in enumerate(mean)]
        x = [float(v) for v in mean]
        if len(x) != self.dim:
            raise ValueError("mean has %d elements, but the model has dimension %d" % (len(x), self.dim))
        if self.standardization is not None:
            m, s = self.standardization["mean"], self.standardization["scale"]
            x = [(v - mi) / si for v, mi, si in zip(x, m, s)]
        out = [sum(wi * xi for wi, xi in zip(w, x)) + b for w, b in zip(self.weights, self.bias)]
        return out[0] if len(self.classes) == 2 else out

    def to_text(self):
        """The text form (JSON) the server accepts; None when read in binary (use to_binary)."""
        return self._text

    def to_binary(self):
        """The binary form it was read from; None when read in text (use to_text)."""
        return None if self._binary is None else bytes(self._binary)

    def __eq__(self, other):
        return isinstance(other, Model) and (self._text, self._binary) == (other._text, other._binary)

    def __repr__(self):
        return "<gsu.model loss=%s dim=%d classes=%s>" % (self.loss, self.dim, self.classes)


# ---------------------------------------------------------------- numpy helpers
def _np_text(a):
    """numpy array -> float8[] literal ('{...}' nested per dimension)."""
    def rec(x):
        if getattr(x, "ndim", 0) == 0:
            v = float(x)
            if v != v:
                return "NaN"
            if v in (float("inf"), float("-inf")):
                return "Infinity" if v > 0 else "-Infinity"
            return repr(v)
        return "{" + ",".join(rec(r) for r in x) + "}"
    return rec(a)


def _np_binary(a):
    """numpy array -> float8[] binary (array_recv): ndim, no nulls, element OID 701."""
    import numpy as np
    a = np.ascontiguousarray(a, dtype=">f8")
    head = struct.pack(">iiI", a.ndim, 0, 701)
    for n in a.shape:
        head += struct.pack(">ii", n, 1)
    body = b"".join(struct.pack(">i", 8) + a.ravel()[i:i + 1].tobytes() for i in range(a.size))
    return head + body


# ---------------------------------------------------------------- psycopg 3
def register_psycopg(context):
    """Register the adapters on a psycopg 3 connection or cursor (or globally with psycopg.adapters)."""
    import numpy as np
    from psycopg.adapt import Dumper, Loader, PyFormat
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    conn = getattr(context, "connection", context)
    info = TypeInfo.fetch(conn, "gsu.model")
    if info is None:
        raise RuntimeError("type gsu.model not found: CREATE EXTENSION pg_gsu first")
    f8a = TypeInfo.fetch(conn, "float8[]")

    class ArrayTextDumper(Dumper):
        oid = f8a.oid

        def dump(self, obj):
            return _np_text(obj).encode()

    class ArrayBinaryDumper(Dumper):
        oid = f8a.oid
        format = Format.BINARY

        def dump(self, obj):
            return _np_binary(obj)

    class ModelTextLoader(Loader):
        def load(self, data):
            return Model.from_text(bytes(data).decode())

    class ModelBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return Model.from_binary(bytes(data))

    class ModelBinaryDumper(Dumper):
        oid = info.oid
        format = Format.BINARY

        def dump(self, obj):
            if obj.to_binary() is None:
                raise ValueError("a gsu.model read in text is sent in text (%s or %t, not %b)")
            return obj.to_binary()

    class ModelTextDumper(Dumper):
        """Sends a Model in the form it was read in (%s picks it; %t insists on text)."""
        oid = info.oid

        def get_key(self, obj, format):
            return self.cls if obj.to_text() is not None or format == PyFormat.TEXT else (self.cls, "binary")

        def upgrade(self, obj, format):
            if obj.to_text() is not None or format == PyFormat.TEXT:
                return self
            return ModelBinaryDumper(self.cls, self.connection)

        def dump(self, obj):
            if obj.to_text() is None:
                raise ValueError("a gsu.model read in binary is sent in binary (%s or %b, not %t)")
            return obj.to_text().encode()

    a = context.adapters
    a.register_dumper(np.ndarray, ArrayTextDumper)
    a.register_dumper(np.ndarray, ArrayBinaryDumper)
    a.register_loader(info.oid, ModelTextLoader)
    a.register_loader(info.oid, ModelBinaryLoader)
    # the text dumper last, so that %s asks it first and it hands binary-only models on
    a.register_dumper(Model, ModelBinaryDumper)
    a.register_dumper(Model, ModelTextDumper)
    return info


# ---------------------------------------------------------------- psycopg2
def register_psycopg2(conn):
    """Register the adapters on a psycopg2 connection (numpy arrays are adapted globally)."""
    import numpy as np
    import psycopg2.extensions as ext

    class _Array:
        def __init__(self, a):
            self.a = a

        def getquoted(self):
            return ("'" + _np_text(self.a) + "'::float8[]").encode()

    class _ModelAdapter:
        def __init__(self, m):
            self.m = m

        def prepare(self, conn):
            self.conn = conn

        def getquoted(self):
            if self.m.to_text() is None:
                raise ValueError("psycopg2 sends a gsu.model in text: read it in text")
            q = ext.QuotedString(self.m.to_text())
            q.prepare(self.conn)
            return q.getquoted() + b"::gsu.model"

    ext.register_adapter(np.ndarray, _Array)
    ext.register_adapter(Model, _ModelAdapter)
    cur = conn.cursor()
    cur.execute("SELECT 'gsu.model'::regtype::oid")
    oid = cur.fetchone()[0]
    cur.close()
    caster = ext.new_type((oid,), "GSU_MODEL", lambda v, c: None if v is None else Model.from_text(v))
    ext.register_type(caster, conn)
    return oid
