"""Schema-driven fix-ups: turning a format's decoded values back into the
native model (dataset.py) where the format has no type of its own for them
(a timestamp as an ISO string in JSON, a decimal as a string in MessagePack).

A fix-up is compiled once per schema from a leaf function (a pyarrow type ->
a function of one non-null wire value, or None when the value needs no
change) and rewrites freshly decoded rows in place; columns that need
nothing are not visited.
"""

from __future__ import annotations

import base64
import datetime as _dt
from collections.abc import Callable
from decimal import Decimal

import pyarrow as pa

Leaf = Callable[[pa.DataType], "Callable | None"]


def _value_fixer(t: pa.DataType, leaf: Leaf):
    if pa.types.is_dictionary(t):
        return _value_fixer(t.value_type, leaf)
    if isinstance(t, pa.ExtensionType):
        return _value_fixer(t.storage_type, leaf)
    if pa.types.is_struct(t):
        fs = [(t.field(i).name, _value_fixer(t.field(i).type, leaf)) for i in range(t.num_fields)]
        fs = [(n, f) for n, f in fs if f is not None]
        if not fs:
            return None

        def st(v):
            for n, f in fs:
                x = v[n]
                if x is not None:
                    v[n] = f(x)
            return v

        return st
    if pa.types.is_map(t):
        kf, vf = _value_fixer(t.key_field.type, leaf), _value_fixer(t.item_field.type, leaf)
        ident = lambda x: x  # noqa: E731
        kf, vf = kf or ident, vf or ident
        # every format here carries a map as a list of [key, value] pairs
        return lambda v: [(None if k is None else kf(k), None if x is None else vf(x)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        ef = _value_fixer(t.value_type, leaf)
        if ef is None:
            return None
        return lambda v: [None if e is None else ef(e) for e in v]
    return leaf(t)


def needs_pairs(schema: pa.Schema) -> bool:
    """Whether the schema holds a map (carried as a list of pairs)."""

    def has(t):
        if pa.types.is_map(t):
            return True
        return any(has(t.field(i).type) for i in range(t.num_fields))

    return any(has(f.type) for f in schema)


def rows_fixer(schema: pa.Schema, leaf: Leaf) -> Callable[[list], list] | None:
    """A function fixing decoded rows in place, or None when none need it."""
    fs = [(f.name, _value_fixer(f.type, leaf)) for f in schema]
    fs = [(n, f) for n, f in fs if f is not None]
    if not fs:
        return None

    def fix(rows):
        for r in rows:
            for n, f in fs:
                x = r[n]
                if x is not None:
                    r[n] = f(x)
        return rows

    return fix


_dt_from_iso = _dt.datetime.fromisoformat
_date_from_iso = _dt.date.fromisoformat


def json_leaf(t: pa.DataType):
    """JSON: timestamps and dates as ISO 8601 strings, decimals as plain
    strings, binaries as base64 strings."""
    if pa.types.is_timestamp(t):
        return _dt_from_iso
    if pa.types.is_date(t):
        return _date_from_iso
    if pa.types.is_decimal(t):
        return Decimal
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64decode
    return None


def json_default(o):
    """The encoder hook matching json_leaf."""
    if isinstance(o, _dt.datetime):
        return o.isoformat()
    if isinstance(o, _dt.date):
        return o.isoformat()
    if isinstance(o, Decimal):
        return format(o, "f")
    if isinstance(o, (bytes, bytearray, memoryview)):
        return base64.b64encode(o).decode("ascii")
    raise TypeError(f"{type(o).__name__} is not JSON serializable")


def msgpack_leaf(t: pa.DataType):
    """MessagePack (timestamps natively): dates as ISO strings, decimals as
    plain strings."""
    if pa.types.is_date(t):
        return _date_from_iso
    if pa.types.is_decimal(t):
        return Decimal
    return None


def msgpack_default(o):
    if isinstance(o, _dt.date) and not isinstance(o, _dt.datetime):
        return o.isoformat()
    if isinstance(o, Decimal):
        return format(o, "f")
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"{type(o).__name__} is not MessagePack serializable")


_EPOCH_DAY = _dt.date(1970, 1, 1)
_TO_US = {"s": (1_000_000, 1), "ms": (1000, 1), "us": (1, 1), "ns": (1, 1000)}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def file_leaf(t: pa.DataType):
    """Another language's MessagePack or CBOR file (protocol §10.3), read
    through the schema: an integer in a timestamp column is in the column's
    unit, an integer in a date column is days; text dates and decimals as in
    msgpack_leaf; native values (datetime, date, Decimal) stay."""
    if pa.types.is_timestamp(t):
        mul, div = _TO_US[t.unit]

        def ts(v):
            if isinstance(v, int) and not isinstance(v, bool):
                return _EPOCH + _dt.timedelta(microseconds=v * mul // div)
            if isinstance(v, str):
                return _dt_from_iso(v)
            return v

        return ts
    if pa.types.is_date(t):

        def day(v):
            if isinstance(v, int) and not isinstance(v, bool):
                return _EPOCH_DAY + _dt.timedelta(days=v)
            if isinstance(v, str):
                return _date_from_iso(v)
            return v

        return day
    if pa.types.is_decimal(t):
        return lambda v: Decimal(v) if isinstance(v, str) else v
    return None
