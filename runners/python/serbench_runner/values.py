"""Finding the first value of a dataset a subject cannot hold, so that a
case says "cannot hold: column C, row R holds V" before anything is measured
instead of a digest finding the value changed."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa

# 2^63 - 1: the largest Avro long, pyfory int64, Java long
INT64_MAX = (1 << 63) - 1


def first(rows: list, pred: Callable[[Any], bool]) -> tuple[str, int, Any] | None:
    """The first (column, row, value) of rows (native dicts) whose value, at
    any depth of lists and dicts, satisfies pred; None if none does."""

    def hit(v):
        if isinstance(v, dict):
            for x in v.values():
                h = hit(x)
                if h is not None:
                    return h
            return None
        if isinstance(v, (list, tuple)):
            for x in v:
                h = hit(x)
                if h is not None:
                    return h
            return None
        return (v,) if v is not None and pred(v) else None

    for i, r in enumerate(rows):
        for name, v in r.items():
            h = hit(v)
            if h is not None:
                return name, i, h[0]
    return None


def has_type(schema: pa.Schema, test: Callable[[pa.DataType], bool]) -> bool:
    """Whether any type of schema, at any depth, satisfies test."""

    def walk(t: pa.DataType) -> bool:
        if test(t):
            return True
        if pa.types.is_dictionary(t):
            return walk(t.value_type)
        if isinstance(t, pa.ExtensionType):
            return walk(t.storage_type)
        return any(walk(t.field(i).type) for i in range(t.num_fields))

    return any(walk(f.type) for f in schema)


def is_float(t: pa.DataType) -> bool:
    return pa.types.is_floating(t)


def non_finite(v: Any) -> bool:
    return isinstance(v, float) and not math.isfinite(v)


def beyond_int64(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > INT64_MAX


def check(ds, find: Callable[[Any], str | None]) -> None:
    """Raise CannotHold with find(ds)'s reason, if any. The answer is kept
    with the dataset (every case of a dataset binds its subject anew)."""
    from .kit import CannotHold

    seen = ds.refusals
    if find not in seen:
        seen[find] = find(ds)
    if seen[find] is not None:
        raise CannotHold(seen[find])


def nan_refusal(library: str) -> Callable[[Any], str | None]:
    """A finder of the first NaN or infinity, which JSON cannot hold."""

    def find(ds):
        if not has_type(ds.schema, is_float):
            return None
        h = first(ds.rows, non_finite)
        return None if h is None else f"column {h[0]!r}: row {h[1]} holds {h[2]}, which JSON cannot hold ({library} would write null)"

    return find


def int64_refusal(what: str) -> Callable[[Any], str | None]:
    """A finder of the first integer beyond 2^63-1 (a uint64), which what
    (an Avro long, pyfory's int64) cannot hold."""

    def find(ds):
        if not has_type(ds.schema, pa.types.is_uint64):
            return None
        h = first(ds.rows, beyond_int64)
        return None if h is None else f"column {h[0]!r}: row {h[1]} holds {h[2]}, beyond 2^63-1, which {what} cannot hold"

    return find
