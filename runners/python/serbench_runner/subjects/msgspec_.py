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

from .. import values
from ..dataset import EPOCH, timestamp_from_int
from ..kit import FILE_OPS, Bound, CannotHold, Subject, labels


def _attr(name: str, i: int) -> str:
    if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_"):
        return name
    return f"f{i}_"


class _Types:
    def __init__(self, lenient: bool = False):
        self.n = 0
        # lenient: timestamps and dates may also come as integers (their
        # unit, days), as serbench's other languages write them to
        # MessagePack; _int_fix turns those into datetimes and dates.
        self.lenient = lenient

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
            return int | _dt.datetime if self.lenient else _dt.datetime
        if pa.types.is_date(t):
            return int | _dt.date if self.lenient else _dt.date
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


def _temporal(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return True
    if pa.types.is_dictionary(t):
        return _temporal(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _temporal(t.storage_type)
    if pa.types.is_struct(t):
        return any(_temporal(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return _temporal(t.key_field.type) or _temporal(t.item_field.type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _temporal(t.value_type)
    return False


def _int_fix(t: pa.DataType):
    """A function turning a builtin value of type t decoded by the lenient
    types (an int where a timestamp or date is) into its native form."""
    ident = lambda v: v  # noqa: E731
    if pa.types.is_timestamp(t):
        unit = t.unit
        return lambda v: timestamp_from_int(v, unit) if isinstance(v, int) else v
    if pa.types.is_date(t):
        day0 = EPOCH.date()
        return lambda v: day0 + _dt.timedelta(days=v) if isinstance(v, int) else v
    if pa.types.is_dictionary(t):
        return _int_fix(t.value_type)
    if isinstance(t, pa.ExtensionType):
        return _int_fix(t.storage_type)
    if pa.types.is_struct(t):
        fs = [(t.field(i).name, _int_fix(t.field(i).type)) for i in range(t.num_fields) if _temporal(t.field(i).type)]

        def st(v):
            if v is not None:
                for n, f in fs:
                    v[n] = f(v.get(n))
            return v

        return st
    if pa.types.is_map(t):
        kf, vf = _int_fix(t.key_field.type), _int_fix(t.item_field.type)
        return lambda v: None if v is None else [(kf(k), vf(x)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        ef = _int_fix(t.value_type)
        return lambda v: None if v is None else [ef(e) for e in v]
    return ident


class _MsgspecBound(Bound):
    def __init__(self, schema: pa.Schema, proto: str, refuse=None):
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
        self._refuse = refuse
        self._lenient = None
        if proto != "json" and any(_temporal(f.type) for f in schema):
            self._lenient = (mod.Decoder(_Types(lenient=True).struct(list(schema))), _int_fix(pa.struct(list(schema))))

    def prepare(self, ds):
        if self._refuse is not None:
            values.check(ds, self._refuse)
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
        try:
            return self._read_rows(data, self._row_dec)
        except self.msgspec.ValidationError:
            if self._lenient is None:
                raise
        # Another language's file: timestamps and dates as integers (their
        # unit, days) where msgspec writes and wants its datetime extension
        # and date strings. Read them as ints and make them natives.
        dec, fix = self._lenient
        builtins = (_dt.datetime, _dt.date, Decimal, bytes, bytearray)
        try:
            rows = [fix(self.msgspec.to_builtins(r, builtin_types=builtins)) for r in self._read_rows(data, dec)]
        except OverflowError:
            raise CannotHold("a timestamp or date beyond years 1-9999, which Python's datetime cannot hold") from None
        return self.msgspec.convert(rows, list[self.row], strict=False)

    def _read_rows(self, data: bytes, dec) -> list:
        # msgspec decodes one MessagePack value per call: the msgpack
        # package finds where each row ends (skip), msgspec decodes it.
        import msgpack

        u = msgpack.Unpacker(max_buffer_size=max(len(data), 1 << 20))
        u.feed(data)
        out, start = [], 0
        while start < len(data):
            u.skip()
            end = u.tell()
            out.append(dec.decode(data[start:end]))
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
        nan="cannot hold (JSON has no NaN; msgspec would write null)",
        query="decoder of a pruned Struct type (skips unselected fields)",
    )

    def bind(self, schema):
        return _MsgspecBound(schema, "json", _MSGSPEC_NAN)


_MSGSPEC_NAN = values.nan_refusal("msgspec")


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
