"""Datasets: the Arrow IPC stream of a work directory, and the native rows
built from it (outside timing, §4.1).

Native rows are a list of dicts, one per row, keyed by field name, holding
plain Python values: int, float, str, bytes, bool, None, list (lists,
fixed-size lists), dict (structs), list of (key, value) tuples (maps),
datetime.datetime aware in UTC (timestamps; nanoseconds floored to
microseconds as the digest does), datetime.date (dates), decimal.Decimal.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.ipc

from .kit import CannotHold

UTC = _dt.timezone.utc
EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_US = _dt.timedelta(microseconds=1)


@dataclass
class Given:
    """The schema the user gave for a dataset's rows (protocol §1,
    ``given.json``): ``kind`` ``"avro"`` (``path``: the ``.avsc``) or
    ``"protobuf"`` (``path``: a serialized ``FileDescriptorSet``, ``message``:
    the rows' message)."""

    kind: str
    path: str
    message: str = ""


@dataclass
class Dataset:
    name: str
    schema: pa.Schema
    table: pa.Table
    rows: list
    given: Given | None = None
    # what values.check found each subject cannot hold, by finder
    refusals: dict = field(default_factory=dict, repr=False, compare=False)


def read_arrow_stream(path: str) -> pa.Table:
    with pa.OSFile(path, "rb") as f:
        return pa.ipc.open_stream(f).read_all()


def load(name: str, path: str) -> Dataset:
    t = read_arrow_stream(path)
    return Dataset(name, t.schema, t, to_native(t), read_given(os.path.dirname(path)))


def read_given(dirname: str) -> Given | None:
    """The dataset directory's given.json, or None when there is none."""
    p = os.path.join(dirname, "given.json")
    if not os.path.exists(p):
        return None
    with open(p, encoding="utf-8") as f:
        g = json.load(f)
    kind, file = g.get("kind"), g.get("file")
    if kind not in ("avro", "protobuf") or not isinstance(file, str) or os.path.basename(file) != file:
        raise ValueError(f"{p}: want kind avro or protobuf and a file beside it, got {g!r}")
    return Given(kind, os.path.join(dirname, file), str(g.get("message", "")))


def _has_temporal(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t):
        return True
    if pa.types.is_dictionary(t):
        return _has_temporal(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _has_temporal(t.storage_type)
    return any(_has_temporal(t.field(i).type) for i in range(t.num_fields))


def _ints_type(t: pa.DataType) -> pa.DataType:
    """t with every timestamp replaced by int64 (same values)."""
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_dictionary(t):
        return _ints_type(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _ints_type(t.storage_type)
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_ints_type(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_ints_type(t.key_field.type)), t.item_field.with_type(_ints_type(t.item_field.type)))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(_ints_type(t.value_type)), t.list_size)
    if pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(_ints_type(t.value_type)))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_ints_type(t.value_type)))
    return t


_TO_US = {"s": (1_000_000, 1), "ms": (1000, 1), "us": (1, 1), "ns": (1, 1000)}


def timestamp_from_int(v: int, unit: str) -> _dt.datetime:
    mul, div = _TO_US[unit]
    return EPOCH + _dt.timedelta(microseconds=v * mul // div)


def _fixer(t: pa.DataType):
    """A function turning the int form of a value of type t into its native
    form, or None when nothing changes."""
    if pa.types.is_timestamp(t):
        mul, div = _TO_US[t.unit]
        td = _dt.timedelta
        if mul == 1 and div == 1:
            return lambda v: None if v is None else EPOCH + td(microseconds=v)
        return lambda v: None if v is None else EPOCH + td(microseconds=v * mul // div)
    if pa.types.is_dictionary(t):
        return _fixer(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _fixer(t.storage_type)
    if pa.types.is_struct(t):
        fs = [(t.field(i).name, _fixer(t.field(i).type)) for i in range(t.num_fields)]
        fs = [(n, f) for n, f in fs if f is not None]
        if not fs:
            return None

        def st(v):
            if v is not None:
                for n, f in fs:
                    v[n] = f(v[n])
            return v

        return st
    if pa.types.is_map(t):
        kf, vf = _fixer(t.key_field.type), _fixer(t.item_field.type)
        if kf is None and vf is None:
            return None
        kf = kf or (lambda x: x)
        vf = vf or (lambda x: x)
        return lambda v: None if v is None else [(kf(k), vf(x)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        ef = _fixer(t.value_type)
        if ef is None:
            return None
        return lambda v: None if v is None else [ef(e) for e in v]
    return None


def column_to_native(col, t: pa.DataType, name: str = "") -> list:
    if not _has_temporal(t):
        return col.to_pylist()
    vals = col.cast(_ints_type(t)).to_pylist()
    f = _fixer(t)
    out = []
    for i, v in enumerate(vals):
        try:
            out.append(f(v))
        except OverflowError:
            # datetime holds years 1..9999; a timestamp beyond them has no
            # native value (a Parquet file that stores nanoseconds under a
            # microsecond unit, say).
            raise CannotHold(f"column {name!r}: row {i} holds a timestamp beyond years 1-9999, which Python's datetime cannot hold") from None
    return out


def to_native(table: pa.Table) -> list:
    """The native rows of an Arrow table."""
    names = table.schema.names
    cols = [column_to_native(table.column(i), table.schema.field(i).type, names[i]) for i in range(table.num_columns)]
    if not cols:
        return [{} for _ in range(table.num_rows)]
    return [dict(zip(names, vals)) for vals in zip(*cols)]
