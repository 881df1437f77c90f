"""The digest test vectors' type grammar and values (§8), as Arrow."""

from __future__ import annotations

import json
import re
import struct
from decimal import Decimal

import pyarrow as pa

_SIMPLE = {
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "uint8": pa.uint8(),
    "uint16": pa.uint16(),
    "uint32": pa.uint32(),
    "uint64": pa.uint64(),
    "float32": pa.float32(),
    "float64": pa.float64(),
    "string": pa.string(),
    "large_string": pa.large_string(),
    "binary": pa.binary(),
    "date32": pa.date32(),
}


def parse_type(t) -> pa.DataType:
    if isinstance(t, str):
        if t in _SIMPLE:
            return _SIMPLE[t]
        m = re.fullmatch(r"timestamp\[(s|ms|us|ns)\]", t)
        if m:
            return pa.timestamp(m.group(1), tz="UTC")
        m = re.fullmatch(r"decimal128\((\d+),\s*(-?\d+)\)", t)
        if m:
            return pa.decimal128(int(m.group(1)), int(m.group(2)))
        raise ValueError(f"unknown type {t!r}")
    if "list" in t:
        return pa.list_(parse_type(t["list"]))
    if "large_list" in t:
        return pa.large_list(parse_type(t["large_list"]))
    if "fixed_size_list" in t:
        return pa.list_(parse_type(t["fixed_size_list"]), t["size"])
    if "struct" in t:
        return pa.struct(parse_fields(t["struct"]))
    if "dictionary" in t:
        return pa.dictionary(pa.int32(), parse_type(t["dictionary"]))
    raise ValueError(f"unknown type {t!r}")


def parse_fields(fs) -> list[pa.Field]:
    return [pa.field(f["name"], parse_type(f["type"]), nullable=f.get("nullable", True)) for f in fs]


def _float(v, t: pa.DataType):
    if isinstance(v, str):
        if v.startswith("bits:"):
            h = v[5:]
            if pa.types.is_float32(t):
                return struct.unpack(">f", bytes.fromhex(h))[0]
            return struct.unpack(">d", bytes.fromhex(h))[0]
        return float(v.replace("Infinity", "inf"))
    return float(v)


def value(v, t: pa.DataType):
    """A vector value as pyarrow takes it for type t."""
    if v is None:
        return None
    if pa.types.is_dictionary(t):
        return value(v, t.value_type)
    if pa.types.is_floating(t):
        return _float(v, t)
    if pa.types.is_binary(t):
        return bytes.fromhex(v)
    if pa.types.is_decimal(t):
        return Decimal(v)
    if pa.types.is_struct(t):
        return {t.field(i).name: value(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [value(e, t.value_type) for e in v]
    return v


def _ints(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_ints(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_fixed_size_list(t):
        return pa.list_(_ints(t.value_type), t.list_size)
    if pa.types.is_large_list(t):
        return pa.large_list(_ints(t.value_type))
    if pa.types.is_list(t):
        return pa.list_(_ints(t.value_type))
    return t


def load(path: str):
    """(vector dict, Arrow table) of a vector file."""
    with open(path, encoding="utf-8") as f:
        vec = json.load(f)
    fields = parse_fields(vec["schema"])
    arrays = []
    for f in fields:
        vals = [value(r[f.name], f.type) for r in vec["rows"]]
        if pa.types.is_dictionary(f.type):
            a = pa.array(vals, type=f.type.value_type).dictionary_encode()
            a = a.cast(f.type)
        else:
            it = _ints(f.type)
            a = pa.array(vals, type=it)
            if it != f.type:
                a = a.cast(f.type)
        arrays.append(a)
    return vec, pa.Table.from_arrays(arrays, schema=pa.schema(fields))
