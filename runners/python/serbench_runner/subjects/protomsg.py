"""protobuf (google.protobuf) writing the rows as messages of the user's own
.proto (``serbench run data --input FILE --proto S.proto --message M``): the
classes come from the FileDescriptorSet serbench writes beside the dataset
(given.json, protocol §1), so the bytes are the user's field numbers, encodings,
enums by number, maps, Timestamps and wrappers — as Go's protobuf-message
writes them. Rows (in the Arrow mapping serbench's --proto reader makes: enums
as names, maps as lists of {key, value} sorted by key with keys as strings,
Timestamps as timestamps, wrappers as their value) become messages outside
timing; each message is length-delimited."""

from __future__ import annotations

import datetime as _dt

from ..kit import Bound, CannotHold, Subject, labels
from .protobuf_ import framed

_UTC = _dt.timezone.utc
_TIMESTAMP = "google.protobuf.Timestamp"
_WRAPPERS = {f"google.protobuf.{n}Value" for n in ("Double", "Float", "Int64", "UInt64", "Int32", "UInt32", "Bool", "String", "Bytes")}


def _key_conv(fd):
    """The map key's native string to its protobuf value, and back."""
    from google.protobuf.descriptor import FieldDescriptor as F

    if fd.type == F.TYPE_BOOL:
        return (lambda s: s == "true"), (lambda k: "true" if k else "false")
    if fd.cpp_type in (F.CPPTYPE_INT32, F.CPPTYPE_INT64, F.CPPTYPE_UINT32, F.CPPTYPE_UINT64):
        return int, str
    return (lambda s: s), (lambda k: k)


def _value_conv(fd, path: str):
    """set(container, native) filling a message field's message, or the
    native's protobuf scalar; get(protobuf value) -> native."""
    from google.protobuf.descriptor import FieldDescriptor as F

    if fd.type == F.TYPE_ENUM:
        ed = fd.enum_type

        def to_number(name):
            v = ed.values_by_name.get(name)
            if v is None:
                raise ValueError(f"field {path}: {name!r} is no value of enum {ed.full_name}")
            return v.number

        def to_name(n):
            v = ed.values_by_number.get(n)
            if v is None:
                raise CannotHold(f"field {path}: {n} is no value of enum {ed.full_name}, which the rows hold by name")
            return v.name

        return "scalar", to_number, to_name
    if fd.type == F.TYPE_MESSAGE:
        name = fd.message_type.full_name
        if name == _TIMESTAMP:

            def set_ts(m, v):
                m.FromDatetime(v)

            return "message", set_ts, lambda m: m.ToDatetime(tzinfo=_UTC)
        if name in _WRAPPERS:

            def set_w(m, v):
                m.value = v

            return "message", set_w, lambda m: m.value
        fill, read = _message(fd.message_type, path)
        return "message", fill, read
    return "scalar", None, None


def _message(md, path: str):
    """fill(msg, row dict) and read(msg) -> row dict for messages of md."""
    setters, getters = [], []
    for fd in md.fields:
        p = f"{path}.{fd.name}" if path else fd.name
        name = fd.name
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            kd, vd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
            kin, kout = _key_conv(kd)
            kind, vset, vget = _value_conv(vd, p + "{}")

            def set_map(m, v, name=name, kin=kin, kind=kind, vset=vset):
                mp = getattr(m, name)
                for e in v:
                    k = kin(e["key"])
                    if kind == "message":
                        vset(mp[k], e["value"])
                    else:
                        mp[k] = e["value"] if vset is None else vset(e["value"])

            def get_map(m, name=name, kout=kout, vget=vget):
                mp = getattr(m, name)
                entries = [(kout(k), mp[k]) for k in mp]
                entries.sort(key=lambda e: e[0])
                return [{"key": k, "value": x if vget is None else vget(x)} for k, x in entries]

            setters.append((name, set_map))
            getters.append((name, False, get_map))
            continue
        kind, vset, vget = _value_conv(fd, p)
        repeated = fd.is_repeated
        if repeated and kind == "message":

            def set_rep_msg(m, v, name=name, vset=vset):
                c = getattr(m, name)
                for x in v:
                    vset(c.add(), x)

            def get_rep_msg(m, name=name, vget=vget):
                return [vget(x) for x in getattr(m, name)]

            setters.append((name, set_rep_msg))
            getters.append((name, False, get_rep_msg))
        elif repeated:

            def set_rep(m, v, name=name, vset=vset):
                getattr(m, name).extend(v if vset is None else [vset(x) for x in v])

            def get_rep(m, name=name, vget=vget):
                c = getattr(m, name)
                return list(c) if vget is None else [vget(x) for x in c]

            setters.append((name, set_rep))
            getters.append((name, False, get_rep))
        elif kind == "message":

            def set_msg(m, v, name=name, vset=vset):
                vset(getattr(m, name), v)

            def get_msg(m, name=name, vget=vget):
                return vget(getattr(m, name))

            setters.append((name, set_msg))
            getters.append((name, True, get_msg))
        else:

            def set_scalar(m, v, name=name, vset=vset):
                setattr(m, name, v if vset is None else vset(v))

            def get_scalar(m, name=name, vget=vget):
                v = getattr(m, name)
                return v if vget is None else vget(v)

            setters.append((name, set_scalar))
            getters.append((name, fd.has_presence, get_scalar))

    def fill(m, row):
        for name, put in setters:
            v = row.get(name)
            if v is not None:
                put(m, v)
        return m

    def read(m):
        out = {}
        for name, presence, get in getters:
            out[name] = None if presence and not m.HasField(name) else get(m)
        return out

    return fill, read


class _MessageBound(Bound):
    def __init__(self, md):
        from google.protobuf import message_factory

        self.cls = message_factory.GetMessageClass(md)
        self._fill, self._read = _message(md, "")
        self.encode, self.decode = framed(self.cls)

    def prepare(self, ds):
        cls, fill = self.cls, self._fill
        try:
            return [fill(cls(), r) for r in ds.rows]
        except (ValueError, OverflowError) as e:
            # a Timestamp beyond what the runtime holds, say
            raise CannotHold(f"protobuf-message: {e}") from None

    def rows(self, decoded):
        read = self._read
        return [read(m) for m in decoded]


class ProtobufMessage(Subject):
    """google.protobuf writing the rows as the user's own message (``given:
    protobuf``): classes from the FileDescriptorSet beside the dataset."""

    name = "protobuf-message"
    format = "protobuf"
    library = "protobuf"
    modules = ("google.protobuf",)
    given = "protobuf"
    any_schema = False  # only a dataset with the user's .proto
    labels = labels(
        model="messages of your .proto (descriptor_pool + message_factory)",
        framing="length-delimited (varint size, then the message)",
        schema="the user's .proto",
    )

    def bind(self, schema):
        raise ValueError("protobuf-message measures the user's .proto: serbench run data --input FILE --proto S.proto --message M")

    def bind_given(self, schema, given):
        from google.protobuf import descriptor_pb2, descriptor_pool

        with open(given.path, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        pool = descriptor_pool.DescriptorPool()
        for fd in fds.file:
            pool.Add(fd)
        try:
            md = pool.FindMessageTypeByName(given.message)
        except KeyError:
            raise ValueError(f"protobuf-message: no message {given.message} in {given.path}") from None
        return _MessageBound(md)
