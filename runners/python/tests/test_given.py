"""The user's own schema (protocol §1, given.json): a subject labelled
given=avro is bound with the dataset's .avsc and round-trips rows in the
Arrow mapping serbench's --avsc reader makes."""

import datetime as dt
import io
import json
from decimal import Decimal

import pyarrow as pa
import pytest

from serbench_runner import dataset, digest, run, subjects
from serbench_runner.kit import CannotHold

UTC = dt.timezone.utc

AVSC = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
        {"name": "shade", "type": ["null", "Color"]},
        {"name": "id4", "type": {"type": "fixed", "name": "Id4", "size": 4}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
        {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "note", "type": ["string", "null"]},
        {"name": "attrs", "type": {"type": "map", "values": "long"}},
        {
            "name": "ship",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "Ship",
                    "fields": [{"name": "city", "type": "string"}, {"name": "zips", "type": {"type": "array", "items": "int"}}],
                },
            ],
        },
    ],
}

ENTRY = pa.struct([pa.field("key", pa.string(), nullable=False), pa.field("value", pa.int64(), nullable=False)])
ZIPS = pa.list_(pa.field("item", pa.int32(), nullable=False))
SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("color", pa.string(), nullable=False),
        pa.field("shade", pa.string()),
        pa.field("id4", pa.binary(), nullable=False),
        pa.field("price", pa.decimal128(10, 2), nullable=False),
        pa.field("day", pa.date32(), nullable=False),
        pa.field("tms", pa.int32(), nullable=False),
        pa.field("at", pa.timestamp("us", tz="UTC")),
        pa.field("local", pa.timestamp("us"), nullable=False),
        pa.field("note", pa.string()),
        pa.field("attrs", pa.list_(pa.field("entry", ENTRY, nullable=False)), nullable=False),
        pa.field("ship", pa.struct([pa.field("city", pa.string(), nullable=False), pa.field("zips", ZIPS, nullable=False)])),
    ]
)


def _rows(n):
    out = []
    for i in range(n):
        out.append(
            {
                "id": (-1) ** i * i * 10**15,
                "color": ["RED", "GREEN"][i % 2],
                "shade": None if i % 3 == 0 else "GREEN",
                "id4": bytes([i % 256, 1, 2, 3]),
                "price": Decimal(i * 7) / 100,
                "day": dt.date(1969, 12, 31) + dt.timedelta(days=i * 97),
                "tms": i * 1_234_567 % 86_400_000,
                "at": None if i % 4 == 1 else dt.datetime(1950, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=i * 987_654_321_123),
                "local": dt.datetime(2024, 2, 29, 10, 0, 0, 1) + dt.timedelta(seconds=i),
                "note": None if i % 5 == 0 else "ü" * (i % 3),
                "attrs": [{"key": k, "value": i * j} for j, k in enumerate(sorted({"a", "b", "ключ"}))][: i % 4],
                "ship": None if i % 2 else {"city": "Pune", "zips": list(range(i % 3))},
            }
        )
    return out


@pytest.fixture
def ds(tmp_path):
    t = pa.Table.from_pylist(_rows(40), schema=SCHEMA)
    d = tmp_path / "datasets" / "input"
    d.mkdir(parents=True)
    with pa.OSFile(str(d / "data.arrows"), "wb") as f, pa.ipc.new_stream(f, t.schema) as w:
        w.write_table(t)
    (d / "given.avsc").write_text(json.dumps(AVSC))
    (d / "given.json").write_text(json.dumps({"kind": "avro", "file": "given.avsc"}))
    return dataset.load("input", str(d / "data.arrows"))


def test_given_read(ds):
    assert ds.given is not None and ds.given.kind == "avro" and ds.given.path.endswith("given.avsc")


def test_fastavro_avsc_round_trip(ds):
    s = subjects.available()["fastavro-avsc"]
    assert s.describe()["labels"]["given"] == "avro"
    b = run.bind(s, ds)
    enc = b.encode(b.prepare(ds))
    assert enc[:4] == b"Obj\x01"
    import fastavro

    # the file is in the user's schema: fastavro reads it with the .avsc
    first = next(fastavro.reader(io.BytesIO(enc), reader_schema=fastavro.parse_schema(AVSC)))
    assert first["color"] == "RED" and isinstance(first["attrs"], dict)
    assert digest.digest_rows(ds.schema, b.rows(b.decode(enc))) == digest.digest_rows(ds.schema, ds.rows)


def test_given_needed(tmp_path, ds):
    s = subjects.available()["fastavro-avsc"]
    plain = dataset.Dataset("plain", ds.schema, ds.table, ds.rows)
    with pytest.raises(ValueError, match="measures a given avro schema"):
        run.bind(s, plain)


def test_given_union_of_several(tmp_path, ds):
    s = subjects.available()["fastavro-avsc"]
    p = tmp_path / "u.avsc"
    p.write_text(json.dumps({"type": "record", "name": "R", "fields": [{"name": "u", "type": ["null", "long", "string"]}]}))
    with pytest.raises(CannotHold, match="a union of 3 types"):
        s.bind_given(ds.schema, dataset.Given("avro", str(p)))


def test_given_json_checked(tmp_path):
    (tmp_path / "given.json").write_text(json.dumps({"kind": "xml", "file": "x"}))
    with pytest.raises(ValueError, match="want kind avro or protobuf"):
        dataset.read_given(str(tmp_path))


def _shop_descriptors(path):
    """A FileDescriptorSet of shop.proto (with its import), built as protoc
    would: message Order {int64 id; sint32 qty; Status status; optional
    string note; repeated string tags; map<string, int32> counts; map<int64,
    Item> items; google.protobuf.Timestamp at; google.protobuf.Int64Value
    w64; Item first}."""
    from google.protobuf import descriptor_pb2, timestamp_pb2, wrappers_pb2

    F = descriptor_pb2.FieldDescriptorProto
    fds = descriptor_pb2.FileDescriptorSet()
    for mod in (timestamp_pb2, wrappers_pb2):
        mod.DESCRIPTOR.CopyToProto(fds.file.add())
    f = fds.file.add(
        name="shop.proto", package="shop", syntax="proto3", dependency=["google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto"]
    )
    f.enum_type.add(
        name="Status", value=[descriptor_pb2.EnumValueDescriptorProto(name=n, number=i) for i, n in enumerate(["STATUS_UNKNOWN", "PAID"])]
    )
    item = f.message_type.add(name="Item")
    item.field.add(name="sku", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    item.field.add(name="price", number=2, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
    o = f.message_type.add(name="Order")

    def entry(name, key, value, type_name=""):
        e = o.nested_type.add(name=name)
        e.options.map_entry = True
        e.field.add(name="key", number=1, type=key, label=F.LABEL_OPTIONAL)
        v = e.field.add(name="value", number=2, type=value, label=F.LABEL_OPTIONAL)
        if type_name:
            v.type_name = type_name

    entry("CountsEntry", F.TYPE_STRING, F.TYPE_INT32)
    entry("ItemsEntry", F.TYPE_INT64, F.TYPE_MESSAGE, ".shop.Item")
    o.field.add(name="id", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    o.field.add(name="qty", number=2, type=F.TYPE_SINT32, label=F.LABEL_OPTIONAL)
    o.field.add(name="status", number=3, type=F.TYPE_ENUM, type_name=".shop.Status", label=F.LABEL_OPTIONAL)
    o.field.add(name="note", number=4, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL, proto3_optional=True, oneof_index=0)
    o.field.add(name="tags", number=5, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    o.field.add(name="counts", number=6, type=F.TYPE_MESSAGE, type_name=".shop.Order.CountsEntry", label=F.LABEL_REPEATED)
    o.field.add(name="items", number=7, type=F.TYPE_MESSAGE, type_name=".shop.Order.ItemsEntry", label=F.LABEL_REPEATED)
    o.field.add(name="at", number=8, type=F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp", label=F.LABEL_OPTIONAL)
    o.field.add(name="w64", number=9, type=F.TYPE_MESSAGE, type_name=".google.protobuf.Int64Value", label=F.LABEL_OPTIONAL)
    o.field.add(name="first", number=10, type=F.TYPE_MESSAGE, type_name=".shop.Item", label=F.LABEL_OPTIONAL)
    o.oneof_decl.add(name="_note")
    path.write_bytes(fds.SerializeToString())


ITEM = pa.struct([pa.field("sku", pa.string(), nullable=False), pa.field("price", pa.float64(), nullable=False)])
ORDER = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("qty", pa.int32(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("note", pa.string()),
        pa.field("tags", pa.list_(pa.field("item", pa.string(), nullable=False)), nullable=False),
        pa.field(
            "counts",
            pa.list_(pa.field("item", pa.struct([pa.field("key", pa.string(), nullable=False), pa.field("value", pa.int32(), nullable=False)]))),
            nullable=False,
        ),
        pa.field(
            "items",
            pa.list_(pa.field("item", pa.struct([pa.field("key", pa.string(), nullable=False), pa.field("value", ITEM, nullable=False)]))),
            nullable=False,
        ),
        pa.field("at", pa.timestamp("ns", tz="UTC")),
        pa.field("w64", pa.int64()),
        pa.field("first", ITEM),
    ]
)


def test_protobuf_message_round_trip(tmp_path):
    rows = []
    for i in range(30):
        rows.append(
            {
                "id": -(2**62) + i,
                "qty": -i,
                "status": ["STATUS_UNKNOWN", "PAID"][i % 2],
                "note": None if i % 3 else f"n{i}",
                "tags": [f"t{j}" for j in range(i % 3)],
                "counts": [{"key": k, "value": i * 3} for k in sorted({"a", "b", "ü"})][: i % 4],
                "items": sorted(
                    [{"key": str(k), "value": {"sku": f"s{k}", "price": k / 7}} for k in {-5, 10, 2**40}][: i % 4], key=lambda e: e["key"]
                ),
                "at": None if i % 4 == 1 else dt.datetime(2024, 2, 29, 10, tzinfo=UTC) + dt.timedelta(microseconds=i * 123_457),
                "w64": None if i % 2 else i * 10**12,
                "first": None if i % 5 == 0 else {"sku": "", "price": -0.0},
            }
        )
    t = pa.Table.from_pylist(rows, schema=ORDER)
    d = tmp_path / "datasets" / "input"
    d.mkdir(parents=True)
    with pa.OSFile(str(d / "data.arrows"), "wb") as f, pa.ipc.new_stream(f, t.schema) as w:
        w.write_table(t)
    _shop_descriptors(d / "given.binpb")
    (d / "given.json").write_text(json.dumps({"kind": "protobuf", "file": "given.binpb", "message": "shop.Order"}))
    ds = dataset.load("input", str(d / "data.arrows"))
    s = subjects.available()["protobuf-message"]
    assert s.describe()["labels"]["given"] == "protobuf"
    b = run.bind(s, ds)
    enc = b.encode(b.prepare(ds))
    assert digest.digest_rows(ds.schema, b.rows(b.decode(enc))) == digest.digest_rows(ds.schema, ds.rows)
    # the frames are the user's messages: field 2 is a sint32 (zigzag), the
    # enum is its number
    first = b.decode(enc)[1]
    assert first.qty == -1 and first.status == 1 and first.SerializeToString()[:1] == b"\x08"
