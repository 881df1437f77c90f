"""fastavro: an Avro object container file (OCF, codec null) written to and
read from memory, with the Avro schema derived from the Arrow schema:
nullable fields as ["null", T] unions, timestamps as timestamp-micros,
dates as date, decimals as bytes/decimal, lists as arrays, structs as
records, maps as arrays of {key, value} records. A query reads with a reader
schema holding only the selected fields (Avro's projection: the decoder
skips the others)."""

from __future__ import annotations

import io

import pyarrow as pa

from .base import Bound, Subject, labels


def avro_schema(schema: pa.Schema, tree: dict | None = None) -> dict:
    """The Avro record schema of an Arrow schema; tree: the projection (None: all)."""
    return _record([schema.field(i) for i in range(len(schema))], "Row", tree)


def _record(fields, name, tree):
    out = []
    for i, f in enumerate(fields):
        if tree is not None and f.name not in tree:
            continue
        sub = None if tree is None else tree[f.name]
        t = _type(f.type, f"{name}_{i}", sub)
        out.append({"name": f.name, "type": ["null", t]})
    return {"type": "record", "name": name, "fields": out}


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


def _map_to_records(schema: pa.Schema):
    """Maps are lists of (key, value) tuples natively and arrays of records in
    Avro: None when the schema has no map (the usual case)."""
    from .. import wire

    if not wire.needs_pairs(schema):
        return None, None
    raise TypeError("fastavro subject: map columns are not supported")


class _AvroBound(Bound):
    def __init__(self, schema: pa.Schema):
        import fastavro

        self.fastavro = fastavro
        self.schema = schema
        _map_to_records(schema)
        self.parsed = fastavro.parse_schema(avro_schema(schema))
        self._readers = {}

    def encode(self, rows):
        bio = io.BytesIO()
        self.fastavro.writer(bio, self.parsed, rows, codec="null", validator=False)
        return bio.getvalue()

    def decode(self, data):
        return list(self.fastavro.reader(io.BytesIO(data)))

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
    ops = ("encode", "decode", "query")
    labels = labels(
        model="dict rows",
        container="object container file in memory, codec null",
        timestamps="timestamp-micros",
        query="reader schema of the selected fields",
    )

    def bind(self, schema):
        return _AvroBound(schema)
