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
