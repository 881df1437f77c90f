"""fastavro: an Avro object container file (OCF, codec null) written to and
read from memory, with the Avro schema derived from the Arrow schema:
nullable fields as ["null", T] unions, timestamps as timestamp-micros,
dates as date, decimals as bytes/decimal, lists as arrays, structs as
records, maps as arrays of {key, value} records. A query reads with a reader
schema holding only the selected fields (Avro's projection: the decoder
skips the others)."""

from __future__ import annotations

import datetime as _dt
import io
import json
from decimal import Decimal

import pyarrow as pa

from .. import values
from ..kit import FILE_OPS, Bound, Subject, labels


def avro_name(n: str) -> str:
    """n as an Avro name ([A-Za-z_][A-Za-z0-9_]*), as Go's format/dynamic makes
    it: every other character becomes '_', a leading digit is prefixed with '_'."""
    out = []
    for i, ch in enumerate(n):
        if ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z") or (i > 0 and "0" <= ch <= "9"):
            out.append(ch)
        elif i == 0 and "0" <= ch <= "9":
            out.append("_" + ch)
        else:
            out.append("_")
    return "".join(out) or "_"


def avro_names(names: list[str]) -> list[str]:
    """The Avro names of a record's fields, made distinct as Go does (_2, _3, …)."""
    used, out = set(), []
    for n in names:
        a = base = avro_name(n)
        k = 2
        while a in used:
            a = f"{base}_{k}"
            k += 1
        used.add(a)
        out.append(a)
    return out


def avro_schema(schema: pa.Schema, tree: dict | None = None) -> dict:
    """The Avro record schema of an Arrow schema; tree: the projection (None: all)."""
    return _record([schema.field(i) for i in range(len(schema))], "Row", tree)


def _record(fields, name, tree):
    out = []
    anames = avro_names([f.name for f in fields])
    for i, f in enumerate(fields):
        if tree is not None and f.name not in tree:
            continue
        sub = None if tree is None else tree[f.name]
        t = _type(f.type, f"{name}_{i}", sub)
        out.append({"name": anames[i], "type": ["null", t]})
    return {"type": "record", "name": name, "fields": out}


def _renamer(fields, to_avro: bool):
    """A function renaming the keys of a record dict (and of the records nested
    in it) to their Avro names (to_avro) or back; None when no name changes."""
    anames = avro_names([f.name for f in fields])
    steps = []
    for f, a in zip(fields, anames):
        src, dst = (f.name, a) if to_avro else (a, f.name)
        steps.append((src, dst, _value_renamer(f.type, to_avro)))
    if all(src == dst and sub is None for src, dst, sub in steps):
        return None

    def rename(d):
        out = {}
        for src, dst, sub in steps:
            if src in d:
                v = d[src]
                out[dst] = v if sub is None or v is None else sub(v)
        return out

    return rename


def _value_renamer(t: pa.DataType, to_avro: bool):
    if pa.types.is_dictionary(t):
        return _value_renamer(t.value_type, to_avro)
    if isinstance(t, pa.ExtensionType):
        return _value_renamer(t.storage_type, to_avro)
    if pa.types.is_struct(t):
        return _renamer([t.field(i) for i in range(t.num_fields)], to_avro)
    if pa.types.is_map(t):
        # natively a list of (key, value) pairs; in Avro an array of
        # {key, value} records (see _type)
        val = _value_renamer(t.item_type, to_avro)

        def conv(v):
            return v if val is None or v is None else val(v)

        if to_avro:
            return lambda pairs: [{"key": k, "value": conv(v)} for k, v in pairs]
        return lambda recs: [(r["key"], conv(r["value"])) for r in recs]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        sub = _value_renamer(t.value_type, to_avro)
        if sub is None:
            return None
        return lambda xs: [None if x is None else sub(x) for x in xs]
    return None


def _type(t: pa.DataType, name: str, sub):
    if pa.types.is_dictionary(t):
        return _type(t.value_type, name, sub)
    if isinstance(t, pa.ExtensionType):
        return _type(t.storage_type, name, sub)
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t) or pa.types.is_uint8(t) or pa.types.is_uint16(t):
        return "int"
    if pa.types.is_integer(t):
        return "long"  # uint64 past 2^63-1 does not fit: the write fails
    if pa.types.is_float32(t) or pa.types.is_float16(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "bytes"
    if pa.types.is_timestamp(t):
        return {"type": "long", "logicalType": "timestamp-micros"}
    if pa.types.is_date(t):
        return {"type": "int", "logicalType": "date"}
    if pa.types.is_decimal(t):
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_map(t):
        rec = _record([t.key_field, t.item_field], name + "_e", None)
        return {"type": "array", "items": ["null", rec]}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return {"type": "array", "items": ["null", _type(t.value_type, name + "_e", sub)]}
    if pa.types.is_struct(t):
        return _record([t.field(i) for i in range(t.num_fields)], name, sub)
    raise TypeError(f"fastavro subject: no Avro type for {t}")


_AVRO_LONG = values.int64_refusal("an Avro long")


class _AvroBound(Bound):
    def __init__(self, schema: pa.Schema):
        import fastavro

        self.fastavro = fastavro
        self.schema = schema
        self.parsed = fastavro.parse_schema(avro_schema(schema))
        self._readers = {}
        # field names that are not Avro names (data.buffer) are written under
        # their Avro names (data_buffer), as Go and the JVM runner write them
        fields = [schema.field(i) for i in range(len(schema))]
        self._to_avro = _renamer(fields, True)
        self._from_avro = _renamer(fields, False)

    def prepare(self, ds):
        values.check(ds, _AVRO_LONG)
        if self._to_avro is None:
            return ds.rows
        return [self._to_avro(r) for r in ds.rows]

    def rows(self, decoded):
        if self._from_avro is None:
            return decoded
        return [self._from_avro(r) for r in decoded]

    def encode(self, rows):
        bio = io.BytesIO()
        self.fastavro.writer(bio, self.parsed, rows, codec="null", validator=False)
        return bio.getvalue()

    def decode(self, data):
        return list(self.fastavro.reader(io.BytesIO(data)))

    def write_file(self, rows, path):
        with open(path, "wb") as f:
            self.fastavro.writer(f, self.parsed, rows, codec="null", validator=False)

    def read_file(self, path):
        # the file's own (writer's) schema: another language names its
        # records and fields its own way; the digest reads fields by name
        with open(path, "rb") as f:
            return list(self.fastavro.reader(f))

    def query(self, data, proj):
        rs = self._readers.get(proj.query)
        if rs is None:
            rs = self._readers[proj.query] = self.fastavro.parse_schema(avro_schema(self.schema, proj.tree))
        return list(self.fastavro.reader(io.BytesIO(data), reader_schema=rs))


class Fastavro(Subject):
    name = "fastavro"
    format = "avro"
    library = "fastavro"
    modules = ("fastavro",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    labels = labels(
        model="dict rows",
        container="object container file in memory, codec null",
        timestamps="timestamp-micros",
        query="reader schema of the selected fields",
    )

    def bind(self, schema):
        return _AvroBound(schema)


# -- the user's own .avsc (serbench run data --avsc FILE)

_UTC = _dt.timezone.utc


def _avsc_conv(t, to_avro: bool, path: str):
    """A function converting a native value of Avro type t (an expanded
    schema: no references) to what fastavro writes (to_avro) or what fastavro
    read back to the native form serbench digests, or None when nothing
    changes. The native form is the Arrow mapping serbench's reader of a
    given --avsc makes: maps as lists of {key, value} sorted by key,
    time-millis and time-micros as integers, local timestamps as UTC."""
    from ..kit import CannotHold

    if isinstance(t, list):
        others = [b for b in t if b != "null"]
        if len(others) != 1:
            raise CannotHold(f"field {path}: a union of {len(t)} types is read as its JSON text; fastavro-avsc cannot write it back")
        inner = _avsc_conv(others[0], to_avro, path)
        if inner is None:
            return None
        return lambda v: None if v is None else inner(v)
    if isinstance(t, str):
        return None
    kind, logical = t.get("type"), t.get("logicalType")
    if kind == "record":
        fs = [(f["name"], _avsc_conv(f["type"], to_avro, f"{path}.{f['name']}" if path else f["name"])) for f in t["fields"]]
        fs = [(n, c) for n, c in fs if c is not None]
        if not fs:
            return None

        def rec(v):
            out = dict(v)
            for n, c in fs:
                out[n] = c(v.get(n))
            return out

        return rec
    if kind == "array":
        item = _avsc_conv(t["items"], to_avro, path + "[]")
        if item is None:
            return None
        return lambda xs: [item(x) for x in xs]
    if kind == "map":
        val = _avsc_conv(t["values"], to_avro, path + "{}")
        val = val or (lambda x: x)
        if to_avro:
            return lambda entries: {e["key"]: val(e["value"]) for e in entries}
        return lambda m: [{"key": k, "value": val(m[k])} for k in sorted(m)]
    if logical == "duration":
        raise CannotHold(f"field {path}: an Avro duration is read as its text; fastavro-avsc cannot write it back")
    if logical == "decimal" and int(t.get("precision", 0)) > 38:
        # serbench's reader keeps it as its exact text
        scale = int(t.get("scale", 0))
        if to_avro:
            return Decimal
        return lambda d: format(d.quantize(Decimal(1).scaleb(-scale)), "f")
    if to_avro:
        if logical in ("local-timestamp-millis", "local-timestamp-micros"):
            return lambda v: v.astimezone(_UTC).replace(tzinfo=None)
        return None
    if logical == "time-millis":
        return lambda v: ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000
    if logical == "time-micros":
        return lambda v: ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if logical in ("local-timestamp-millis", "local-timestamp-micros"):
        return lambda v: v.replace(tzinfo=_UTC)
    if logical == "uuid":
        return str
    return None


class _AvscBound(Bound):
    def __init__(self, avsc: dict):
        import fastavro

        self.fastavro = fastavro
        self.parsed = fastavro.parse_schema(avsc)
        expanded = fastavro.parse_schema(avsc, expand=True)
        if not isinstance(expanded, dict) or expanded.get("type") != "record":
            raise ValueError("fastavro-avsc: the given schema is not a record")
        self._to = _avsc_conv(expanded, True, "")
        self._from = _avsc_conv(expanded, False, "")

    def prepare(self, ds):
        values.check(ds, _AVRO_LONG)
        return ds.rows if self._to is None else [self._to(r) for r in ds.rows]

    def rows(self, decoded):
        return decoded if self._from is None else [self._from(r) for r in decoded]

    def encode(self, rows):
        bio = io.BytesIO()
        self.fastavro.writer(bio, self.parsed, rows, codec="null", validator=False)
        return bio.getvalue()

    def decode(self, data):
        return list(self.fastavro.reader(io.BytesIO(data)))


class FastavroAvsc(Subject):
    """fastavro writing the rows in the user's own record schema (``serbench
    run data --avsc FILE``): their names, union order, enums, maps, fixed and
    logical types, an object container file in memory, codec null."""

    name = "fastavro-avsc"
    format = "avro"
    library = "fastavro"
    modules = ("fastavro",)
    given = "avro"
    any_schema = False  # only a dataset with the user's .avsc
    labels = labels(
        model="dict rows",
        container="object container file in memory, codec null",
        timestamps="as the .avsc says",
        schema="the user's .avsc",
    )

    def bind(self, schema):
        raise ValueError("fastavro-avsc measures the user's .avsc: serbench run data --input FILE --avsc SCHEMA")

    def bind_given(self, schema, given):
        with open(given.path, encoding="utf-8") as f:
            return _AvscBound(json.load(f))
