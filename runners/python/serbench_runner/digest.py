"""The digest of the runner protocol, version 1 (docs/runner-protocol.md §7).

The digest is computed from *decoded native objects* walking the Arrow schema
the runner was given: one SHA-256/128 per leaf column over a canonical byte
stream (validity and list lengths along the leaf's path, then the leaf's
canonical value), and a table digest over the sorted (path, digest) pairs.

Native values understood (so every subject's decoded objects can be digested):

* rows are dicts (by field name), or any object the subject's ``rows()`` turned
  into dicts; a struct value is a dict, a tuple/list (by field position: map
  entries, array-like records) or an object with attributes;
* integers are ``int``; floats anything ``float()`` takes exactly;
* strings ``str`` (or ``bytes``), binaries ``bytes``/``bytearray``/``memoryview``
  (or ``str``, UTF-8);
* timestamps ``datetime`` (aware: converted to UTC; naive: taken as UTC) or an
  ``int`` of microseconds; dates ``date`` or an ``int`` of days; times ``time``;
  durations ``timedelta``; decimals ``Decimal`` (or a ``str``/``int`` of one).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import struct
from dataclasses import dataclass
from decimal import Decimal, localcontext

import pyarrow as pa

VERSION = 1

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)
_EPOCH_DATE = _dt.date(1970, 1, 1)
_NAN = struct.pack("<Q", 0x7FF8000000000000)
_MASK64 = (1 << 64) - 1
_pack_d = struct.Struct("<d").pack
_pack_q = struct.Struct("<Q").pack

FIELD, LIST = 0, 1


class DigestError(ValueError):
    """A schema or value the digest cannot encode."""


@dataclass(frozen=True)
class Leaf:
    path: str
    # steps: (FIELD, name, index) into a struct, (LIST,) into a list's elements
    steps: tuple
    type: pa.DataType


def _storage(t: pa.DataType) -> pa.DataType:
    while True:
        if isinstance(t, pa.ExtensionType):
            t = t.storage_type
        elif pa.types.is_dictionary(t):
            t = t.value_type
        else:
            return t


def _is_list(t: pa.DataType) -> bool:
    return (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_fixed_size_list(t)
        or (hasattr(pa.types, "is_list_view") and pa.types.is_list_view(t))
        or (hasattr(pa.types, "is_large_list_view") and pa.types.is_large_list_view(t))
    )


def leaves(schema: pa.Schema) -> list[Leaf]:
    """The leaf columns of schema, in schema order (§7.1)."""
    out: list[Leaf] = []

    def walk(path: str, steps: tuple, t: pa.DataType) -> None:
        t = _storage(t)
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                f = t.field(i)
                walk(path + "." + f.name, steps + ((FIELD, f.name, i),), f.type)
        elif pa.types.is_map(t):
            # a list of structs of its key and value fields
            st = steps + ((LIST,),)
            walk(path + ".[]." + t.key_field.name, st + ((FIELD, t.key_field.name, 0),), t.key_field.type)
            walk(path + ".[]." + t.item_field.name, st + ((FIELD, t.item_field.name, 1),), t.item_field.type)
        elif _is_list(t):
            walk(path + ".[]", steps + ((LIST,),), t.value_type)
        else:
            out.append(Leaf(path, steps, t))

    for f in schema:
        walk(f.name, ((FIELD, f.name, schema.get_field_index(f.name)),), f.type)
    seen = set()
    for lf in out:
        if lf.path in seen:
            raise DigestError(f"digest: two leaf columns with path {lf.path!r}")
        seen.add(lf.path)
    return out


def _micros_of_datetime(v) -> int:
    if isinstance(v, _dt.datetime):
        if v.tzinfo is None:
            d = v - _EPOCH_NAIVE
        else:
            d = v - _EPOCH
        return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds
    if isinstance(v, int):
        return v  # already microseconds
    if hasattr(v, "value") and hasattr(v, "tz_localize"):  # pandas.Timestamp: ns
        return v.value // 1000
    raise DigestError(f"timestamp value of type {type(v).__name__}")


def _canon(t: pa.DataType):
    """The function giving a leaf value's canonical bytes (§7.3)."""
    if pa.types.is_boolean(t):
        return lambda v: b"\x01" if v else b"\x00"
    if pa.types.is_integer(t):
        return lambda v: _pack_q(int(v) & _MASK64)
    if pa.types.is_float32(t) or pa.types.is_float16(t):
        # A value of a narrow float column is of that width, whatever
        # object holds it: a JSON reader's float of the column's shortest
        # decimal ("0.1" for the float32 0.1f) is rounded to the column's
        # width first (§7.3: read a float32 column's number as a float32).
        narrow = struct.Struct("<f" if pa.types.is_float32(t) else "<e")

        def f(v):
            x = float(v)
            if x != x:
                return _NAN
            try:
                x = narrow.unpack(narrow.pack(x))[0]
            except OverflowError:
                pass  # beyond the width: left as it is, so the digest differs
            return _pack_d(x)

        return f
    if pa.types.is_floating(t):

        def f(v):
            x = float(v)
            if x != x:
                return _NAN
            return _pack_d(x)

        return f
    if pa.types.is_string(t) or pa.types.is_large_string(t) or _is(t, "is_string_view"):

        def s(v):
            b = v.encode("utf-8", "surrogatepass") if isinstance(v, str) else bytes(v)
            return _pack_q(len(b)) + b

        return s
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t) or _is(t, "is_binary_view"):

        def b(v):
            b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            return _pack_q(len(b)) + b

        return b
    if pa.types.is_timestamp(t):
        return lambda v: _pack_q(_micros_of_datetime(v) & _MASK64)
    if pa.types.is_duration(t):

        def du(v):
            if isinstance(v, _dt.timedelta):
                m = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
            else:
                m = int(v)
            return _pack_q(m & _MASK64)

        return du
    if pa.types.is_time(t):

        def tm(v):
            if isinstance(v, _dt.time):
                m = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
            else:
                m = int(v)
            return _pack_q(m & _MASK64)

        return tm
    if pa.types.is_date(t):

        def dt(v):
            if isinstance(v, _dt.datetime):
                v = v.date()
            if isinstance(v, _dt.date):
                return _pack_q((v - _EPOCH_DATE).days & _MASK64)
            return _pack_q(int(v) & _MASK64)

        return dt
    if pa.types.is_decimal(t):
        if pa.types.is_decimal32(t) if hasattr(pa.types, "is_decimal32") else False:
            raise DigestError(f"type {t} has no digest in version 1")
        if pa.types.is_decimal64(t) if hasattr(pa.types, "is_decimal64") else False:
            raise DigestError(f"type {t} has no digest in version 1")
        scale = t.scale

        def de(v):
            b = plain_decimal(v, scale).encode()
            return _pack_q(len(b)) + b

        return de
    if pa.types.is_null(t):
        return lambda v: b"\x00"
    raise DigestError(f"type {t} has no digest in version 1")


def _is(t, name):
    f = getattr(pa.types, name, None)
    return f is not None and f(t)


def plain_decimal(v, scale: int) -> str:
    """A decimal's plain string at scale (§7.3)."""
    d = v if isinstance(v, Decimal) else Decimal(str(v))
    with localcontext() as ctx:
        ctx.prec = 100
        if scale >= 0:
            q = d.quantize(Decimal(1).scaleb(-scale))
            s = format(q, "f")
        else:
            q = d.quantize(Decimal(1))
            s = format(q, "f")
    if s.startswith("-") and set(s[1:]) <= set("0."):
        s = s[1:]
    return s


class Digester:
    """Streams rows into per-leaf SHA-256 states."""

    def __init__(self, schema: pa.Schema, only: set[str] | None = None):
        self.leaves = [lf for lf in leaves(schema) if only is None or lf.path in only]
        if only is not None:
            missing = only - {lf.path for lf in self.leaves}
            if missing:
                raise DigestError(f"digest: no leaf column {sorted(missing)[0]!r}")
        self._hash = [hashlib.sha256() for _ in self.leaves]
        self._canon = []
        for lf in self.leaves:
            try:
                self._canon.append(_canon(lf.type))
            except DigestError as e:
                raise DigestError(f"column {lf.path}: {e}") from None
        self.rows = 0

    def write(self, rows) -> None:
        for li, lf in enumerate(self.leaves):
            buf = bytearray()
            canon = self._canon[li]
            steps = lf.steps
            nsteps = len(steps)
            app = buf.append
            ext = buf.extend

            def enc(v, k):
                if v is None:
                    app(0)
                    return
                app(1)
                if k == nsteps:
                    ext(canon(v))
                    return
                st = steps[k]
                if st[0] == LIST:
                    ext(_pack_q(len(v)))
                    for e in v:
                        enc(e, k + 1)
                else:
                    enc(_get(v, st), k + 1)

            h = self._hash[li]
            top = steps[0]
            n = 0
            for r in rows:
                enc(_get(r, top), 1)
                n += 1
                if len(buf) >= 1 << 20:
                    h.update(buf)
                    buf.clear()
            h.update(buf)
        if self.leaves:
            self.rows += n
        else:
            self.rows += sum(1 for _ in rows)

    def sum(self) -> dict:
        cols = sorted(
            ({"path": lf.path, "digest": h.hexdigest()[:32]} for lf, h in zip(self.leaves, self._hash)),
            key=lambda c: c["path"].encode(),
        )
        return {"rows": self.rows, "table": table_digest(cols), "columns": cols}


def _get(v, step):
    name = step[1]
    if type(v) is dict:
        return v.get(name)
    if isinstance(v, dict):
        return v.get(name)
    if isinstance(v, (tuple, list)):
        return v[step[2]]
    return getattr(v, name)


def table_digest(cols) -> str:
    """The table digest over column digests (§7.4)."""
    h = hashlib.sha256()
    prev = None
    for c in sorted(cols, key=lambda c: c["path"].encode()):
        p = c["path"].encode()
        if p == prev:
            raise DigestError(f"digest: column {c['path']!r} appears twice")
        prev = p
        h.update(_pack_q(len(p)))
        h.update(p)
        h.update(bytes.fromhex(c["digest"]))
    return h.hexdigest()[:32]


def digest_rows(schema: pa.Schema, rows, only: set[str] | None = None) -> dict:
    """The digest (§7) of rows (a list of native row objects) through schema;
    only: the leaf paths to digest (a query's projection), or all."""
    if not isinstance(rows, list):
        rows = list(rows)
    d = Digester(schema, only)
    d.write(rows)
    return d.sum()


def is_float_nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)
