"""Seeded mutators of the pg_gsu fuzzers: bytes (send() output) and JSON text.

Every function takes a random.Random, so a (seed, case number) pair reproduces a
mutant exactly.
"""

import json
import math
import struct

# ------------------------------------------------------------------ binary

INT8 = [0x00, 0xff, 0x7f, 0x80, 0x01, 0x02, 0x03, 0x10, 0x40]
INT16 = [0, 1, 2, 3, 0x7fff, 0x8000, 0xffff, 0x0100, 100]
INT32 = [0, 1, 2, 3, 4, 7, 8, 16, 255, 256, 1000, 4096, 65535, 65536, 1000000, 1000001,
         0x3fffffff, 0x40000000, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x1fffffff,
         134217727, 134217728]
INT64 = [0, 1, 2 ** 31, 2 ** 32, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64 - 2]
FLOATS = [float('nan'), float('inf'), float('-inf'), -0.0, 0.0, 5e-324, 2.2250738585072014e-308,
          1e-300, 1e300, 1e308, -1e308, 1.7976931348623157e308, 1.0, -1.0, 0.5, 2.0, 1e-12]


def _ofs(rng, n, align, width):
    if n < width:
        return None
    # header fields sit at small offsets: favour them half the time
    hi = n - width
    if rng.random() < 0.5:
        hi = min(hi, 80)
    o = rng.randint(0, hi)
    if align > 1 and rng.random() < 0.8:
        o -= o % align
    return o


def mutate_bytes(rng, data, others=()):
    """1-3 stacked mutations of a send() output; returns (bytes, description)."""
    b = bytearray(data)
    desc = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        op = rng.randrange(12)
        n = len(b)
        if op == 0 and n:                                   # bit flips
            k = rng.randint(1, 4)
            for _ in range(k):
                i = rng.randrange(n * 8)
                b[i // 8] ^= 1 << (i % 8)
            desc.append('flip%d' % k)
        elif op == 1 and n:                                 # interesting byte
            i = rng.randrange(n)
            b[i] = rng.choice(INT8)
            desc.append('byte@%d' % i)
        elif op == 2:                                       # interesting int16
            o = _ofs(rng, n, 2, 2)
            if o is not None:
                b[o:o + 2] = struct.pack('>H', rng.choice(INT16))
                desc.append('int16@%d' % o)
        elif op in (3, 4):                                  # interesting int32 (header fields)
            o = _ofs(rng, n, 4, 4)
            if o is not None:
                b[o:o + 4] = struct.pack('>I', rng.choice(INT32))
                desc.append('int32@%d' % o)
        elif op == 5:                                       # interesting int64
            o = _ofs(rng, n, 4, 8)
            if o is not None:
                b[o:o + 8] = struct.pack('>Q', rng.choice(INT64))
                desc.append('int64@%d' % o)
        elif op in (6, 7):                                  # interesting float8
            o = _ofs(rng, n, 4, 8)
            if o is not None:
                b[o:o + 8] = struct.pack('>d', rng.choice(FLOATS))
                desc.append('float8@%d' % o)
        elif op == 8:                                       # truncate
            k = rng.choice((0, 1, 2, 4, 8, rng.randint(0, max(n, 1))))
            del b[max(0, n - k) if rng.random() < 0.5 else k:]
            desc.append('trunc')
        elif op == 9:                                       # extend
            k = rng.choice((1, 4, 8, 16, 64))
            b += bytes(rng.choice((0, 0xff, rng.randrange(256))) for _ in range(k))
            desc.append('extend%d' % k)
        elif op == 10 and others:                           # splice with another value
            o = rng.choice(others)
            i, j = rng.randint(0, n), rng.randint(0, len(o))
            b = b[:i] + bytearray(o[j:])
            desc.append('splice')
        elif op == 11 and n:                                # delete / insert / duplicate a chunk
            i = rng.randrange(n)
            k = rng.choice((1, 2, 4, 8))
            r = rng.random()
            if r < 0.4:
                del b[i:i + k]
                desc.append('del%d@%d' % (k, i))
            elif r < 0.7:
                b[i:i] = bytes(k)
                desc.append('ins%d@%d' % (k, i))
            else:
                b[i:i] = b[i:i + k * 8]
                desc.append('dup@%d' % i)
    return bytes(b), '+'.join(desc) or 'none'


# ------------------------------------------------------------------ JSON text

class Raw:
    """A token emitted as is (possibly not JSON: NaN, 1e999, a broken literal)."""

    def __init__(self, s):
        self.s = s


class Obj:
    """A JSON object as a list of pairs: keeps order and duplicate keys."""

    def __init__(self, pairs):
        self.pairs = list(pairs)


NUMBERS = ['1e308', '-1e308', '1e309', '-1e309', '-0', '0', '-1', '1', '2', '0.5', '-0.0',
           '4294967296', '2147483647', '2147483648', '-2147483648', '-2147483649',
           '9223372036854775807', '9223372036854775808', '-9223372036854775809', '1e-320',
           '5e-324', '1e-400', '-1e-400', '-2e-324', '1000000', '1000001', '999999', '65536', '1.5', '3.000000001',
           '123456789012345678901234567890', '1e10', '1e19', '0e0', '-1e-320', '1E+2',
           '"NaN"', '"Infinity"', '"-Infinity"', 'NaN', 'Infinity', '-Infinity', '"1"', '"-0"',
           'null', 'true', 'false', '[]', '{}', '[1]', '""', '"x"', '01', '.5', '+1', '0x10']
STRINGS = ['gsu', 'hinge', 'tsvc', 'robust', 'psvm', 'newton', 'pegasos', 'sgd', 'linear', 'rff',
           'nystroem', 'lda', 'mfa', 'gradient', 'inf', 'diagonal', 'full', '', 'GSU', 'x' * 300,
           '\\u0000', '\\ud800', 'é', '1', 'null']
KEYS = ['format', 'dim', 'dims', 'input_dim', 'classes', 'weights', 'bias', 'features', 'map',
        'matrix', 'landmarks', 'sigma', 'seed', 'rows', 'labels', 'vector', 'kind', 'loss', 'lambda',
        'vectors', 'eigenvalues', 'method', 'k1', 'k2', 'calibration', 'a', 'b', 'training',
        'hyperparameters', 'class_weight', 'steps', 'positives', 'foo', '', 'Dim']


def parse(text):
    return json.loads(text, object_pairs_hook=Obj, parse_constant=lambda c: Raw(c))


def dump(v):
    out = []

    def rec(x):
        if isinstance(x, Raw):
            out.append(x.s)
        elif isinstance(x, Obj):
            out.append('{')
            for i, (k, val) in enumerate(x.pairs):
                if i:
                    out.append(', ')
                out.append(json.dumps(k) if not isinstance(k, Raw) else k.s)
                out.append(': ')
                rec(val)
            out.append('}')
        elif isinstance(x, list):
            out.append('[')
            for i, val in enumerate(x):
                if i:
                    out.append(', ')
                rec(val)
            out.append(']')
        elif isinstance(x, float):
            out.append(repr(x) if math.isfinite(x) else ('NaN' if x != x else ('Infinity' if x > 0 else '-Infinity')))
        else:
            out.append(json.dumps(x))
    rec(v)
    return ''.join(out)


def _nodes(v, path=()):
    """Every (container, key-or-index, value) slot of the tree."""
    res = []
    if isinstance(v, Obj):
        for i, (k, val) in enumerate(v.pairs):
            res.append((v, i, val))
            res.extend(_nodes(val))
    elif isinstance(v, list):
        for i, val in enumerate(v):
            res.append((v, i, val))
            res.extend(_nodes(val))
    return res


def _set(container, i, val):
    if isinstance(container, Obj):
        k = container.pairs[i][0]
        container.pairs[i] = (k, val)
    else:
        container[i] = val


def _int_keys(tree):
    """Object slots whose value is an integer."""
    return [(c, i) for c, i, v in _nodes(tree) if isinstance(c, Obj) and isinstance(v, int)
            and not isinstance(v, bool)]


def mutate_tree(rng, tree, big):
    """One structural JSON mutation in place; returns a description."""
    slots = _nodes(tree)
    if not slots:
        return 'none'
    op = rng.randrange(11)
    c, i, val = rng.choice(slots)
    name = c.pairs[i][0] if isinstance(c, Obj) else '[%d]' % i
    if op in (0, 1):                                        # a number: an extreme or wrong value
        nums = [(c2, i2) for c2, i2, v2 in slots if isinstance(v2, (int, float)) and not isinstance(v2, bool)]
        if nums:
            c, i = rng.choice(nums)
            name = c.pairs[i][0] if isinstance(c, Obj) else '[%d]' % i
        r = rng.choice(NUMBERS)
        _set(c, i, Raw(r))
        return 'num %s=%s' % (name, r)
    if op == 2 and isinstance(c, Obj):                      # delete a key
        del c.pairs[i]
        return 'del %s' % name
    if op == 3 and isinstance(c, Obj):                      # duplicate a key (maybe with another value)
        k, v2 = c.pairs[i]
        c.pairs.insert(rng.randint(0, len(c.pairs)), (k, rng.choice([v2, Raw(rng.choice(NUMBERS))])))
        return 'dupkey %s' % name
    if op == 4:                                             # wrong type
        r = rng.choice([Raw('[]'), Raw('{}'), Raw('null'), Raw('true'), Raw('"str"'), Raw('[[1, 2], [3]]'),
                        Raw('{"a": 1}'), Raw('[null]'), Raw('["1"]'), Raw('[1e308, -1e308]')])
        _set(c, i, r)
        return 'type %s=%s' % (name, r.s)
    if op == 5:                                             # resize an array, maybe keeping counts consistent
        arrs = [(c2, i2, v2) for c2, i2, v2 in slots if isinstance(v2, list)]
        if arrs:
            c, i, arr = rng.choice(arrs)
            old = len(arr)
            choices = [0, 1, 2, old - 1, old + 1, old * 2, old + 2]
            if big:
                choices += [1000, 65536, 100000, 1000001]
            new = max(0, rng.choice(choices))
            if new > 200000 and not big:
                new = 1000
            fill = arr[-1] if arr else 1.0
            if isinstance(fill, list):
                arr2 = (arr * (new // max(old, 1) + 1))[:new] if arr else [[1.0]] * new
            else:
                arr2 = (arr + [fill] * new)[:new] if new > old else arr[:new]
            _set(c, i, arr2)
            fixed = 0
            if rng.random() < 0.6:
                for c2, i2 in _int_keys(tree):
                    if c2.pairs[i2][1] == old:
                        _set(c2, i2, new)
                        fixed += 1
            return 'resize [%d]->[%d]%s' % (old, new, ' +%d counts' % fixed if fixed else '')
    if op == 6 and isinstance(c, Obj):                      # add an unknown or a known key
        k = rng.choice(KEYS)
        c.pairs.insert(rng.randint(0, len(c.pairs)), (k, Raw(rng.choice(NUMBERS))))
        return 'addkey %s' % k
    if op == 7 and isinstance(c, Obj):                      # rename a key
        k = c.pairs[i][0]
        k2 = rng.choice([k.upper(), k + ' ', k[:-1], rng.choice(KEYS), k + '\\u0000'])
        c.pairs[i] = (Raw(json.dumps(k2).replace('\\\\u0000', '\\u0000')), c.pairs[i][1])
        return 'rename %s' % k
    if op == 8:                                             # a string value: another enumerant
        strs = [(c2, i2) for c2, i2, v2 in slots if isinstance(v2, str)]
        if strs:
            c, i = rng.choice(strs)
            s = rng.choice(STRINGS)
            _set(c, i, Raw('"%s"' % s))
            return 'str %s' % s
    if op == 9:                                             # deep nesting
        depth = rng.choice((64, 1000, 10000 if big else 3000))
        _set(c, i, Raw('[' * depth + '1' + ']' * depth))
        return 'nest %d at %s' % (depth, name)
    if op == 10 and isinstance(val, list) and val:          # swap / replace array elements
        j = rng.randrange(len(val))
        val[j] = Raw(rng.choice(NUMBERS))
        return 'elem %s[%d]' % (name, j)
    # fallback: replace by an extreme number
    r = rng.choice(NUMBERS)
    _set(c, i, Raw(r))
    return 'num %s=%s' % (name, r)


PUNCT = '{}[],:"\\-+eE.0123456789 nNaI'


def mutate_raw(rng, s):
    """A character-level mutation of a text form (stays valid UTF-8, no NUL)."""
    n = len(s)
    op = rng.randrange(6)
    i = rng.randint(0, n)
    if op == 0:
        return s[:i], 'trunc@%d' % i
    if op == 1 and n:
        return s[:i] + s[i + 1:], 'delch@%d' % i
    if op == 2:
        ch = rng.choice(PUNCT)
        return s[:i] + ch + s[i:], 'insch@%d' % i
    if op == 3 and n:
        j = min(n, i + rng.randint(1, 40))
        return s[:j] + s[i:j] + s[j:], 'dupseg@%d' % i
    if op == 4 and n:
        ch = rng.choice(PUNCT)
        return s[:i] + ch + s[i + 1:], 'setch@%d' % i
    return s + rng.choice([' ', 'x', '}', ', "x": 1}', '\n', ' garbage']), 'append'


def mutate_text(rng, text, big=False):
    """1-3 stacked mutations of a JSON text form; returns (text, description)."""
    desc = []
    try:
        tree = parse(text)
    except ValueError:
        tree = None
    nstruct = rng.choice((1, 1, 2, 2, 3)) if tree is not None else 0
    for _ in range(nstruct):
        desc.append(mutate_tree(rng, tree, big))
    out = dump(tree) if tree is not None else text
    if tree is None or rng.random() < 0.2:
        out, d = mutate_raw(rng, out)
        desc.append(d)
    return out.replace('\x00', ''), '; '.join(desc)
