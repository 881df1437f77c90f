"""protobuf (google.protobuf, the upb backend) with the message classes of
the nested workload's .proto files (dataset/nested/{tpch,media,userevents}/pb).

The classes come from a serialized FileDescriptorSet of those files that
serbench writes into the runner's cache (runner/python: Go's descriptors of
the same .proto files, protodesc), named by $SERBENCH_PROTOBUF_DESCRIPTORS;
descriptor_pool + message_factory turn it into classes, which is what a
protoc-generated _pb2 module does with the descriptor protoc embeds in it.

Like the JVM's ProtobufSubject, a dataset binds to the top-level message
whose fields match its Arrow schema by name and kind (tpch LineItem, media
Record, userevents Record); any other dataset is refused at setup. Records
are length-delimited (varint length, then the message). Rows become messages
outside timing; a string column of an enum field maps to the value whose name
is the string upper-cased with non-alphanumerics as '_' ("Profile update" ->
PROFILE_UPDATE), and the digest maps values back to the strings seen.

The file of export and import (protocol §10.3, .binpb) is encode's bytes:
each row's message preceded by its size as an unsigned varint (what
google.protobuf.proto.serialize_length_prefixed writes, Java's
writeDelimitedTo, Go's protodelim), no header, no trailer; enum fields hold
the enum number. import reads the file through decode. The digest's enum
strings come from the dataset: prepare_import(ds) collects them outside the
timed read (export has them from prepare).
"""

from __future__ import annotations

import os

import pyarrow as pa

from ..kit import FILE_OPS, Bound, Subject, labels

ENV = "SERBENCH_PROTOBUF_DESCRIPTORS"

# The generated top-level messages, tried in this order, with their dataset.
TOP = (
    ("serbench.nested.tpch.LineItem", "tpch"),
    ("serbench.nested.media.Record", "media"),
    ("serbench.nested.userevents.Record", "userevents"),
)

_pool = None


def descriptors_path() -> str | None:
    return os.environ.get(ENV) or None


def pool():
    """The descriptor pool of the nested .proto files (loaded once)."""
    global _pool
    if _pool is None:
        from google.protobuf import descriptor_pb2, descriptor_pool

        path = descriptors_path()
        if path is None:
            raise ValueError(f"protobuf: ${ENV} is not set (serbench sets it to the nested .proto descriptors it writes)")
        with open(path, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        p = descriptor_pool.DescriptorPool()
        for fd in fds.file:
            p.Add(fd)
        _pool = p
    return _pool


def message_class(desc):
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(desc)


def backend() -> str:
    try:
        from google.protobuf.internal import api_implementation

        return api_implementation.Type()
    except ImportError:
        return "unknown"


def _storage(t: pa.DataType) -> pa.DataType:
    while True:
        if isinstance(t, pa.ExtensionType):
            t = t.storage_type
        elif pa.types.is_dictionary(t):
            t = t.value_type
        else:
            return t


def _is_list(t) -> bool:
    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _cpp():
    from google.protobuf.descriptor import FieldDescriptor as F

    return F


def mismatch(fields, desc, path: str) -> str | None:
    """Why the Arrow fields do not match message desc, or None when they do."""
    if len(fields) != len(desc.fields):
        return f"{path}{desc.name} has {len(desc.fields)} fields, the dataset {len(fields)}"
    for f in fields:
        fd = desc.fields_by_name.get(f.name)
        if fd is None:
            return f"{path}{desc.name} has no field {f.name}"
        t = _storage(f.type)
        if fd.is_repeated:
            if not _is_list(t):
                return f"{path}{f.name} is repeated, the dataset's column is {t}"
            t = _storage(t.value_type)
        why = _kind(t, fd, f"{path}{f.name}.")
        if why is not None:
            return why
    return None


def _kind(t: pa.DataType, fd, path: str) -> str | None:
    F = _cpp()
    c = fd.cpp_type
    if c == F.CPPTYPE_MESSAGE:
        if not pa.types.is_struct(t):
            return f"{path} is a message, the dataset's column is {t}"
        return mismatch([t.field(i) for i in range(t.num_fields)], fd.message_type, path)
    if c in (F.CPPTYPE_INT32, F.CPPTYPE_INT64, F.CPPTYPE_UINT32, F.CPPTYPE_UINT64):
        return None if pa.types.is_integer(t) else f"{path} is an integer, the column {t}"
    if c in (F.CPPTYPE_DOUBLE, F.CPPTYPE_FLOAT):
        return None if pa.types.is_floating(t) else f"{path} is a float, the column {t}"
    if c == F.CPPTYPE_BOOL:
        return None if pa.types.is_boolean(t) else f"{path} is a bool, the column {t}"
    if c == F.CPPTYPE_ENUM or (c == F.CPPTYPE_STRING and fd.type == F.TYPE_STRING):
        return None if pa.types.is_string(t) or pa.types.is_large_string(t) else f"{path} is a string, the column {t}"
    if c == F.CPPTYPE_STRING:  # bytes
        return None if pa.types.is_binary(t) or pa.types.is_large_binary(t) else f"{path} is bytes, the column {t}"
    return f"{path}: unsupported"


def enum_key(s: str) -> str:
    return "".join(c if ("A" <= c <= "Z") or ("0" <= c <= "9") else "_" for c in s.upper())


class _Enums:
    """The enum values of the strings seen, and back (per bound dataset)."""

    def __init__(self):
        self.names: dict = {}  # (enum full name, number) -> the dataset's string

    def to_number(self, ed, path: str):
        by_key = {v.name: v.number for v in ed.values}
        names = self.names
        full = ed.full_name

        def conv(s):
            n = by_key.get(enum_key(s))
            if n is None:
                raise ValueError(f"protobuf: {path}: {s!r} is no value of enum {ed.name}")
            prev = names.setdefault((full, n), s)
            if prev != s:
                raise ValueError(f"protobuf: {path}: {s!r} and {prev!r} are both {ed.values_by_number[n].name}")
            return n

        return conv

    def to_string(self, ed):
        names = self.names
        full = ed.full_name
        by_number = {v.number: v.name for v in ed.values}

        def conv(n):
            s = names.get((full, n))
            return s if s is not None else by_number.get(n, n)

        return conv


def _builder(fields, desc, enums: _Enums, path: str):
    """A function making a message of desc from a native row (dict)."""
    F = _cpp()
    cls = message_class(desc)
    parts = []
    for f in fields:
        fd = desc.fields_by_name[f.name]
        t = _storage(f.type)
        if fd.is_repeated:
            t = _storage(t.value_type)
        p = f"{path}{f.name}"
        if fd.cpp_type == F.CPPTYPE_MESSAGE:
            conv = _builder([t.field(i) for i in range(t.num_fields)], fd.message_type, enums, p + ".")
        elif fd.cpp_type == F.CPPTYPE_ENUM:
            conv = enums.to_number(fd.enum_type, p)
        elif fd.cpp_type in (F.CPPTYPE_DOUBLE, F.CPPTYPE_FLOAT):
            conv = float
        else:
            conv = None
        if fd.is_repeated:

            def rep(v, conv=conv, p=p):
                if any(x is None for x in v):
                    raise ValueError(f"protobuf: {p}: a repeated field has no null elements")
                return v if conv is None else [conv(x) for x in v]

            parts.append((f.name, rep))
        else:
            parts.append((f.name, conv))

    def build(row):
        kw = {}
        for name, conv in parts:
            v = row[name]
            if v is None:
                continue  # unset: proto3 presence (optional, messages) or the default
            kw[name] = v if conv is None else conv(v)
        return cls(**kw)

    return build


def _reader(fields, desc, enums: _Enums, only=None):
    """A function making a native row (dict) of a message's fields, the
    fields that only selects (a projection tree) or all: the digest's view of
    a decoded message (presence as null, enums as the dataset's strings)."""
    F = _cpp()
    parts = []
    for f in fields:
        if only is not None and f.name not in only:
            continue
        sub = None if only is None else only[f.name]
        fd = desc.fields_by_name[f.name]
        t = _storage(f.type)
        if fd.is_repeated:
            t = _storage(t.value_type)
        if fd.cpp_type == F.CPPTYPE_MESSAGE:
            conv = _reader([t.field(i) for i in range(t.num_fields)], fd.message_type, enums, sub)
        elif fd.cpp_type == F.CPPTYPE_ENUM:
            conv = enums.to_string(fd.enum_type)
        else:
            conv = None
        parts.append((f.name, conv, fd.is_repeated, (not fd.is_repeated) and fd.has_presence))

    def read(m):
        d = {}
        for name, conv, repeated, presence in parts:
            if presence and not m.HasField(name):
                d[name] = None
                continue
            v = getattr(m, name)
            if repeated:
                d[name] = list(v) if conv is None else [conv(x) for x in v]
            else:
                d[name] = v if conv is None else conv(v)
        return d

    return read


def _enum_walker(fields, desc, enums: _Enums, path: str):
    """A function feeding the enum strings of a native row to enums (what
    _builder's enum conversions see), or None when desc has no enum field."""
    F = _cpp()
    parts = []
    for f in fields:
        fd = desc.fields_by_name[f.name]
        t = _storage(f.type)
        if fd.is_repeated:
            t = _storage(t.value_type)
        p = f"{path}{f.name}"
        if fd.cpp_type == F.CPPTYPE_MESSAGE:
            conv = _enum_walker([t.field(i) for i in range(t.num_fields)], fd.message_type, enums, p + ".")
        elif fd.cpp_type == F.CPPTYPE_ENUM:
            conv = enums.to_number(fd.enum_type, p)
        else:
            conv = None
        if conv is not None:
            parts.append((f.name, conv, fd.is_repeated))
    if not parts:
        return None

    def walk(row):
        for name, conv, repeated in parts:
            v = row[name]
            if v is None:
                continue
            if repeated:
                for x in v:
                    if x is not None:
                        conv(x)
            else:
                conv(v)

    return walk


# Varint lengths below 2^14 (one or two bytes), precomputed.
_VARINTS = [bytes([n]) for n in range(128)] + [bytes([(n & 0x7F) | 0x80, n >> 7]) for n in range(128, 1 << 14)]


def varint(n: int) -> bytes:
    if n < 1 << 14:
        return _VARINTS[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def framed(cls):
    """encode and decode of cls's messages, each preceded by its size as an
    unsigned varint (length-delimited, as Java's writeDelimitedTo and Go's
    protodelim write them)."""
    ser = cls.SerializeToString
    parse = cls.FromString

    def encode(msgs):
        parts = []
        app = parts.append
        for m in msgs:
            b = ser(m)
            n = len(b)
            app(_VARINTS[n] if n < 16384 else varint(n))
            app(b)
        return b"".join(parts)

    def decode(data):
        out = []
        app = out.append
        mv = memoryview(data)
        pos, end = 0, len(mv)
        while pos < end:
            b = mv[pos]
            pos += 1
            if b < 0x80:
                n = b
            else:
                n, shift = b & 0x7F, 7
                while True:
                    if pos >= end:
                        raise ValueError("protobuf: truncated record length")
                    b = mv[pos]
                    pos += 1
                    n |= (b & 0x7F) << shift
                    if b < 0x80:
                        break
                    shift += 7
                    if shift > 63:
                        raise ValueError("protobuf: bad record length")
            nxt = pos + n
            if nxt > end:
                raise ValueError(f"protobuf: a record of {n} bytes at offset {pos} runs past the end ({end})")
            app(parse(mv[pos:nxt]))
            pos = nxt
        return out

    return encode, decode


class _ProtobufBound(Bound):
    def __init__(self, schema: pa.Schema, desc):
        self.schema = schema
        self.desc = desc
        self.cls = message_class(desc)
        self.enums = _Enums()
        fields = list(schema)
        self._build = _builder(fields, desc, self.enums, "")
        self._read = _reader(fields, desc, self.enums)
        self._walk_enums = _enum_walker(fields, desc, self.enums, "")
        self._fields = fields
        self._queries = {}
        self.encode, self.decode = framed(self.cls)

    def prepare(self, ds):
        build = self._build
        return [build(r) for r in ds.rows]

    # -- the file ops (§10): the .binpb file is encode's bytes

    def write_file(self, natives, path):
        with open(path, "wb") as f:
            f.write(self.encode(natives))

    def read_file(self, path):
        """decode's loop over the file: a size running past the end, a
        truncated size or a record that does not parse (DecodeError) raises."""
        with open(path, "rb") as f:
            return self.decode(f.read())

    def prepare_import(self, ds):
        """What import needs from the dataset, outside the timed read: the
        strings its enum columns hold, so that rows() gives them back."""
        if self._walk_enums is not None:
            walk = self._walk_enums
            for r in ds.rows:
                walk(r)

    def query(self, data, proj):
        """A full decode, then the selected fields as new dicts."""
        r = self._queries.get(proj.query)
        if r is None:
            r = self._queries[proj.query] = _reader(self._fields, self.desc, self.enums, proj.tree)
        return [r(m) for m in self.decode(data)]

    def rows(self, decoded):
        if decoded and isinstance(decoded[0], dict):
            return decoded  # a query's projected rows
        read = self._read
        return [read(m) for m in decoded]


class Protobuf(Subject):
    name = "protobuf"
    format = "protobuf"
    library = "protobuf"
    modules = ("google.protobuf",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    any_schema = False

    def __init__(self):
        self.labels = labels(
            codegen="yes",
            backend=backend(),
            model="message classes of the nested .proto files (descriptor_pool + message_factory over their FileDescriptorSet)",
            framing="length-delimited records",
            schemas="tpch LineItem, media Record, userevents Record",
            query="full decode, then projection",
        )

    def available(self):
        why = super().available()
        if why is not None:
            return why
        path = descriptors_path()
        if path is None:
            return f"protobuf: ${ENV} is not set (serbench writes the nested .proto descriptors and sets it)"
        if not os.path.exists(path):
            return f"protobuf: no descriptor set at {path}"
        return None

    def bind(self, schema):
        p = pool()
        why = []
        for full, _ in TOP:
            d = p.FindMessageTypeByName(full)
            w = mismatch(list(schema), d, "")
            if w is None:
                return _ProtobufBound(schema, d)
            why.append(f"{full}: {w}")
        names = ", ".join(f"{ds} ({full.rsplit('.', 1)[1]})" for full, ds in TOP)
        raise ValueError(
            f"protobuf: no message of the nested .proto files matches the dataset's schema; the subject binds only to the nested datasets {names} ("
            + "; ".join(why)
            + ")"
        )
