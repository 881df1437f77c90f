"""msgspec, JSON and MessagePack: typed decoding into msgspec.Struct classes
generated at bind time from the Arrow schema (msgspec.defstruct), which is
how msgspec is meant to be used: the decoder validates and builds datetimes,
dates, Decimals and bytes itself (no fix-ups)."""

from __future__ import annotations

import datetime as _dt
import keyword
from decimal import Decimal
from typing import Optional

import pyarrow as pa

from ..kit import FILE_OPS, Bound, Subject, labels


def _attr(name: str, i: int) -> str:
    if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_"):
        return name
    return f"f{i}_"


class _Types:
    def __init__(self):
        self.n = 0

    def of(self, t: pa.DataType, only: dict | None = None):
        """The Python type for Arrow type t; only: the pruned selection
        (a dict of selected field name -> sub-selection) for queries."""

        if pa.types.is_dictionary(t):
            return self.of(t.value_type, only)
        if isinstance(t, pa.ExtensionType):
            return self.of(t.storage_type, only)
        if pa.types.is_boolean(t):
            return bool
        if pa.types.is_integer(t):
            return int
        if pa.types.is_floating(t):
            return float
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return str
        if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
            return bytes
        if pa.types.is_timestamp(t):
            return _dt.datetime
        if pa.types.is_date(t):
            return _dt.date
        if pa.types.is_decimal(t):
            return Decimal
        if pa.types.is_null(t):
            return type(None)
        if pa.types.is_map(t):
            k, v = self.of(t.key_field.type), self.of(t.item_field.type)
            return list[tuple[k | None, v | None]]
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            return list[self.of(t.value_type, only) | None]
        if pa.types.is_struct(t):
            fields = [t.field(i) for i in range(t.num_fields)]
            return self.struct(fields, only)
        raise TypeError(f"msgspec subject: no Python type for {t}")

    def struct(self, fields, only=None):
        import msgspec

        self.n += 1
        defs, rename = [], {}
        for i, f in enumerate(fields):
            if only is not None and f.name not in only:
                continue
            sub = None if only is None else only[f.name]
            a = _attr(f.name, i)
            rename[a] = f.name
            typ = self.of(f.type, sub)
            defs.append((a, Optional[typ]))  # noqa: UP045 - nullable or not: a present value decodes
        return msgspec.defstruct(f"Row{self.n}", defs, rename=rename)


class _MsgspecBound(Bound):
    def __init__(self, schema: pa.Schema, proto: str):
        import msgspec

        self.msgspec = msgspec
        self.row = _Types().struct(list(schema))
        mod = msgspec.json if proto == "json" else msgspec.msgpack
        self.mod = mod
        self.proto = proto
        self._enc = mod.Encoder()
        self.encode = self._enc.encode
        self.decode = mod.Decoder(list[self.row]).decode
        self._row_dec = mod.Decoder(self.row)
        self.schema = schema
        self._queries = {}

    def prepare(self, ds):
        return self.msgspec.convert(ds.rows, list[self.row], strict=True)

    def rows(self, decoded):
        return self.msgspec.to_builtins(decoded, builtin_types=(_dt.datetime, _dt.date, Decimal, bytes, bytearray))

    def query_decoder(self, proj):
        d = self._queries.get(proj.query)
        if d is None:
            row = _Types().struct(list(self.schema), proj.tree)
            d = self.mod.Decoder(list[row]).decode
            self._queries[proj.query] = d
        return d

    def query(self, data, proj):
        return self.query_decoder(proj)(data)

    def write_file(self, natives, path):
        with open(path, "wb") as f:
            if self.proto == "json":
                f.write(self._enc.encode_lines(natives))  # JSON Lines
            else:
                for r in natives:  # one map per row, back to back
                    f.write(self._enc.encode(r))

    def read_file(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if self.proto == "json":
            return self._row_dec.decode_lines(data)
        # msgspec decodes one MessagePack value per call: the msgpack
        # package finds where each row ends (skip), msgspec decodes it.
        import msgpack

        u = msgpack.Unpacker(max_buffer_size=max(len(data), 1 << 20))
        u.feed(data)
        out, start = [], 0
        while start < len(data):
            u.skip()
            end = u.tell()
            out.append(self._row_dec.decode(data[start:end]))
            start = end
        return out


class MsgspecJson(Subject):
    name = "msgspec-json"
    format = "json"
    library = "msgspec"
    modules = ("msgspec",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    labels = labels(
        model="msgspec.Struct rows (defstruct from the schema)",
        timestamps="RFC 3339 strings",
        binary="base64",
        decimals="strings",
        nan="null (JSON has no NaN)",
        query="decoder of a pruned Struct type (skips unselected fields)",
    )

    def bind(self, schema):
        return _MsgspecBound(schema, "json")


class MsgspecMsgpack(Subject):
    name = "msgspec-msgpack"
    format = "msgpack"
    library = "msgspec"
    modules = ("msgspec",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    labels = labels(
        model="msgspec.Struct rows (defstruct from the schema)",
        timestamps="msgpack timestamp ext",
        decimals="strings",
        query="decoder of a pruned Struct type (skips unselected fields)",
    )

    def bind(self, schema):
        return _MsgspecBound(schema, "msgpack")
