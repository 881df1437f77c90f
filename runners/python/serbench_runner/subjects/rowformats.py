"""Schemaless row formats over the native rows (lists of dicts): the
standard json module, orjson, msgpack, cbor2 and pyfory. What a format has
no type for is carried as wire.py says and turned back into native values
inside the timed decode (schema-driven fix-ups)."""

from __future__ import annotations

import datetime as _dt
import io
import json
import platform

from .. import dataset, values, wire
from ..kit import FILE_OPS, Bound, Subject, labels
from ..projection import rows_projector


class _Fixed(Bound):
    def __init__(self, schema, enc, dec, fix, row_enc=None, split=None, file_fix=False, refuse=None):
        """enc/dec: the rows as one value; row_enc: one row to bytes for the
        file ops, split: a file's bytes to the decoded row values; file_fix:
        read files through wire.file_leaf (another language's conventions)
        instead of fix; refuse: the finder (values.py) of a value the subject
        cannot hold, checked before prepare gives the rows."""
        self.schema = schema
        self._refuse = refuse
        self.encode = enc
        if fix is None:
            self.decode = dec
        else:
            self.decode = lambda b: fix(dec(b))
        self._projectors = {}
        self._row_enc, self._split, self._fix = row_enc, split, fix
        if file_fix:
            self._fix = wire.rows_fixer(schema, wire.file_leaf)

    def prepare(self, ds):
        if self._refuse is not None:
            values.check(ds, self._refuse)
        return ds.rows

    def write_file(self, natives, path):
        with open(path, "wb") as f:
            for r in natives:
                f.write(self._row_enc(r))

    def read_file(self, path):
        with open(path, "rb") as f:
            rows = self._split(f.read())
        return rows if self._fix is None else self._fix(rows)

    def query(self, data, proj):
        """A full decode, then the projection (these formats cannot skip)."""
        p = self._projectors.get(proj.query)
        if p is None:
            p = self._projectors[proj.query] = rows_projector(self.schema, proj)
        return p(self.decode(data))


class _RowSubject(Subject):
    ops = ("encode", "decode", "query")


class _FileRowSubject(_RowSubject):
    ops = ("encode", "decode", "query", *FILE_OPS)


def _json_lines(data: bytes, loads) -> list:
    """JSON Lines: one value per non-empty line."""
    return [loads(line) for line in data.split(b"\n") if line.strip()]


def _cbor_sequence(data: bytes) -> list:
    """A CBOR sequence (RFC 8742): data items back to back."""
    import cbor2

    bio = io.BytesIO(data)
    dec = cbor2.CBORDecoder(bio)
    out = []
    while bio.tell() < len(data):
        out.append(dec.decode())
    return out


class StdJson(_FileRowSubject):
    name = "json"
    format = "json"
    library = "python"  # the standard library: the interpreter's version
    version = platform.python_version()
    labels = labels(query="full decode, then projection", model="dict rows", timestamps="ISO 8601 strings", binary="base64", decimals="strings")

    def bind(self, schema):
        fix = wire.rows_fixer(schema, wire.json_leaf)
        enc = json.JSONEncoder(default=wire.json_default, ensure_ascii=False, separators=(",", ":")).encode
        dec = json.loads
        return _Fixed(
            schema,
            lambda rows: enc(rows).encode("utf-8"),
            dec,
            fix,
            row_enc=lambda r: enc(r).encode("utf-8") + b"\n",
            split=lambda b: _json_lines(b, json.loads),
        )


class Orjson(_FileRowSubject):
    name = "orjson"
    format = "json"
    library = "orjson"
    modules = ("orjson",)
    labels = labels(
        query="full decode, then projection",
        model="dict rows",
        timestamps="ISO 8601 strings",
        binary="base64",
        decimals="strings",
        nan="cannot hold (JSON has no NaN; orjson would write null)",
    )

    def bind(self, schema):
        import orjson

        fix = wire.rows_fixer(schema, wire.json_leaf)
        default = wire.json_default
        dumps = orjson.dumps
        return _Fixed(
            schema,
            lambda rows: dumps(rows, default=default),
            orjson.loads,
            fix,
            row_enc=lambda r: dumps(r, default=default, option=orjson.OPT_APPEND_NEWLINE),
            split=lambda b: _json_lines(b, orjson.loads),
            refuse=_ORJSON_NAN,
        )


_ORJSON_NAN = values.nan_refusal("orjson")


class Msgpack(_FileRowSubject):
    name = "msgpack"
    format = "msgpack"
    library = "msgpack"
    modules = ("msgpack",)
    labels = labels(query="full decode, then projection", model="dict rows", timestamps="msgpack timestamp ext", decimals="strings")

    def bind(self, schema):
        import msgpack

        fix = wire.rows_fixer(schema, wire.msgpack_leaf)
        packer_default = wire.msgpack_default

        def enc(rows):
            return msgpack.packb(rows, default=packer_default, datetime=True, use_bin_type=True)

        def dec(b):
            return msgpack.unpackb(b, timestamp=3, raw=False, strict_map_key=False)

        def split(b):
            u = msgpack.Unpacker(timestamp=3, raw=False, strict_map_key=False, max_buffer_size=max(len(b), 1 << 20))
            u.feed(b)
            return list(u)

        return _Fixed(schema, enc, dec, fix, row_enc=enc, split=split, file_fix=True)


class Cbor2(_FileRowSubject):
    name = "cbor2"
    format = "cbor"
    library = "cbor2"
    modules = ("cbor2",)
    labels = labels(query="full decode, then projection", model="dict rows", timestamps="tag 0 (RFC 3339 string)", decimals="tag 4")

    def bind(self, schema):
        import cbor2

        return _Fixed(schema, cbor2.dumps, cbor2.loads, None, row_enc=cbor2.dumps, split=_cbor_sequence, file_fix=True)


def _fory_time(v: _dt.datetime) -> _dt.datetime:
    """v after pyfory's TimestampSerializer: written as int(timestamp() * 1e6)
    microseconds (a float product), read back by fromtimestamp of float
    seconds; either float step can move a value by a microsecond."""
    micros = int(v.timestamp() * 1_000_000)
    seconds, rem = divmod(micros, 1_000_000)
    return _dt.datetime.fromtimestamp(seconds + rem * 1000 / 1_000_000_000, tz=_dt.timezone.utc)


def _first_moved(v):
    """The first datetime in v (a row's value, at any depth) that pyfory's
    timestamps do not give back exactly, and what comes back; None if none."""
    if isinstance(v, _dt.datetime):
        back = _fory_time(v)
        return None if back == v else (v, back)
    if isinstance(v, (dict, list, tuple)):
        for x in v.values() if isinstance(v, dict) else v:
            m = _first_moved(x)
            if m is not None:
                return m
    return None


def _fory_refusal(ds) -> str | None:
    """Why pyfory cannot hold ds's rows (a timestamp its float seconds move),
    or None."""
    if not any(dataset._has_temporal(f.type) for f in ds.schema):
        return None
    for i, r in enumerate(ds.rows):
        for name, v in r.items():
            m = _first_moved(v)
            if m is not None:
                return (
                    f"column {name!r}: row {i} holds {m[0].isoformat()}, which pyfory gives back as {m[1].isoformat()} "
                    "(its TimestampSerializer goes through float seconds)"
                )
    return None


_FORY_INT64 = values.int64_refusal("pyfory's int64")


def _fory_refusals(ds) -> str | None:
    return _FORY_INT64(ds) or _fory_refusal(ds)


class Pyfory(_RowSubject):
    name = "pyfory"
    format = "fory"
    library = "pyfory"
    modules = ("pyfory",)
    labels = labels(query="full decode, then projection", model="dict rows", mode="python (xlang=False), ref tracking off")

    def bind(self, schema):
        import pyfory

        f = pyfory.Fory(xlang=False, ref=False, strict=False)
        return _Fixed(schema, f.serialize, f.deserialize, None, refuse=_fory_refusals)
