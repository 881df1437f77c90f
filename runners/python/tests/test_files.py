"""The file ops (protocol §10): every subject announcing export writes the
sample table as its format's file and reads it back to the same digest;
every importer of a format reads every exporter's file of that format; and
end to end, export and import cases get a verify line each and no samples."""

import json

import pytest

from serbench_runner import dataset, digest, subjects

from . import sample_data
from .test_e2e import case, make_work, run

SUBJECTS = subjects.available()
# (protobuf binds only the nested datasets: tests/test_protobuf.py)
FILE_SUBJECTS = sorted(n for n, s in SUBJECTS.items() if "export" in s.ops and s.any_schema)

# the file framing each format's subjects share
FILE_FORMATS = {"json", "msgpack", "cbor", "avro", "parquet", "arrow-ipc-stream", "protobuf"}
# subjects of those formats without the file ops, so outside the interop
# matrix: polars' JSON Lines is not quite §10.3's (no binary columns, and a
# timestamp without zone is written "YYYY-MM-DD HH:MM:SS", not RFC 3339)
# fastavro-avsc and protobuf-message write the user's own .avsc and .proto
# (tests/test_given.py), which only a reader of that schema reads: they
# stay out of the matrix
NO_FILE_OPS = {"polars-ndjson", "fastavro-avsc", "protobuf-message"}


@pytest.fixture(scope="module")
def ds():
    t = sample_data.table(60)
    return dataset.Dataset("sample", t.schema, t, dataset.to_native(t))


@pytest.fixture(scope="module")
def want(ds):
    return digest.digest_rows(ds.schema, ds.rows)


def test_file_subjects():
    # every subject of a file format announces both file ops (pyfory: no
    # shared file; polars-ndjson: NO_FILE_OPS)
    for n, s in SUBJECTS.items():
        assert ("export" in s.ops) == (s.format in FILE_FORMATS and n not in NO_FILE_OPS), n
        assert ("export" in s.ops) == ("import" in s.ops), n


def export(tmp_path, ds, name):
    b = SUBJECTS[name].bind(ds.schema)
    p = str(tmp_path / f"{name}.file")
    b.write_file(b.prepare(ds), p)
    return p


@pytest.mark.parametrize("name", FILE_SUBJECTS)
def test_export_reads_back(tmp_path, ds, want, name):
    p = export(tmp_path, ds, name)
    b = SUBJECTS[name].bind(ds.schema)
    got = digest.digest_rows(ds.schema, b.rows(b.read_file(p)))
    assert got == want


PAIRS = [(w, r) for w in FILE_SUBJECTS for r in FILE_SUBJECTS if w != r and SUBJECTS[w].format == SUBJECTS[r].format]


@pytest.mark.parametrize("writer,reader", PAIRS)
def test_cross_read(tmp_path, ds, want, writer, reader):
    p = export(tmp_path, ds, writer)
    b = SUBJECTS[reader].bind(ds.schema)
    got = digest.digest_rows(ds.schema, b.rows(b.read_file(p)))
    diff = [c["path"] for c, w in zip(got["columns"], want["columns"]) if c != w]
    assert diff == []


def test_framing(tmp_path, ds):
    # JSON Lines: one object per line; MessagePack and CBOR: maps back to back
    import cbor2
    import msgpack

    with open(export(tmp_path, ds, "orjson"), "rb") as f:
        lines = f.read().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 61 and all(x.startswith(b"{") for x in lines[:-1])
    with open(export(tmp_path, ds, "msgpack"), "rb") as f:
        u = msgpack.Unpacker(f, timestamp=3)
        assert sum(isinstance(x, dict) for x in u) == 60
    with open(export(tmp_path, ds, "cbor2"), "rb") as f:
        data = f.read()
    assert len(cbor2.loads(data[: len(cbor2.dumps(ds.rows[0]))])) == len(ds.schema)
    with open(export(tmp_path, ds, "pyarrow-ipc"), "rb") as f:
        assert f.read(6) == b"ARROW1"
    with open(export(tmp_path, ds, "fastavro"), "rb") as f:
        assert f.read(4) == b"Obj\x01"


def test_run_file_ops(tmp_path):
    cases = [
        case("x/orjson", "orjson", "export", path="tmp/orjson.jsonl"),
        case("x/pq", "pyarrow-parquet", "export", path="tmp/pq.parquet"),
        case("i/json", "json", "import", path="tmp/orjson.jsonl"),
        case("i/polars", "polars-parquet", "import", path="tmp/pq.parquet"),
        case("i/missing", "msgpack", "import", path="tmp/nope.msgpack"),
        case("i/outside", "msgpack", "import", path="../cases.jsonl"),
        case("i/nopath", "msgpack", "import"),
        case("i/pyfory", "pyfory", "export", path="tmp/fory"),
        case("i/refused", "fastavro", "import", path="tmp/orjson.jsonl"),
    ]
    work, t = make_work(tmp_path, cases)
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    by = {}
    for x in lines:
        if "case" in x:
            by.setdefault(x["case"], []).append(x)
    assert not [x for x in lines if x["type"] == "sample"]
    want = digest.digest_rows(t.schema, dataset.to_native(t))
    for cid in ("x/orjson", "x/pq", "i/json", "i/polars"):
        (v,) = by[cid]
        assert v["type"] == "verify" and v["ok"], v
        assert v["digest"] == want
    assert by["x/orjson"][0]["encoded_bytes"] == (work / "tmp" / "orjson.jsonl").stat().st_size
    (v,) = by["i/missing"]
    assert v["type"] == "verify" and not v["ok"] and "No such file" in v["reason"]
    for cid in ("i/outside", "i/nopath", "i/pyfory"):
        (e,) = by[cid]
        assert e["type"] == "error" and e["phase"] == "setup", e
    (v,) = by["i/refused"]
    assert v["type"] == "verify" and not v["ok"] and "\n" not in v["reason"]
    end = lines[-1]
    assert end == {"type": "end", "cases": 9, "failed": 5}, json.dumps(lines)


def test_avro_names(tmp_path):
    # field names that are not Avro names are written as Go writes them and read back
    import fastavro
    import pyarrow as pa

    t = pa.table(
        {
            "data.buffer": pa.array(["a", None, "c"]),
            "B/op": pa.array([{"x-1": 1, "ok": 2}, None, {"x-1": None, "ok": 3}]),
            "1st": pa.array([[{"k:v": 1.5}], None, []]),
        }
    )
    ds = dataset.Dataset("names", t.schema, t, dataset.to_native(t))
    want = digest.digest_rows(ds.schema, ds.rows)
    b = SUBJECTS["fastavro"].bind(ds.schema)
    p = str(tmp_path / "n.avro")
    b.write_file(b.prepare(ds), p)
    with open(p, "rb") as f:
        names = [x["name"] for x in fastavro.reader(f).writer_schema["fields"]]
    assert names == ["data_buffer", "B_op", "_1st"]
    assert digest.digest_rows(ds.schema, b.rows(b.read_file(p))) == want
    assert digest.digest_rows(ds.schema, b.rows(b.decode(b.encode(b.prepare(ds))))) == want


def test_file_leaf_units(tmp_path):
    # integers in a timestamp column are in the column's unit, in a date column days (Go's files)
    import datetime as dt

    import cbor2
    import msgpack
    import pyarrow as pa

    t = pa.table(
        {
            "ms": pa.array([1_700_000_000_123, None], pa.timestamp("ms", tz="UTC")),
            "ns": pa.array([1_700_000_000_123_456_789, None], pa.timestamp("ns", tz="UTC")),
            "day": pa.array([19000, None], pa.date32()),
        }
    )
    ds = dataset.Dataset("units", t.schema, t, dataset.to_native(t))
    want = digest.digest_rows(ds.schema, ds.rows)
    rows = [{"ms": 1_700_000_000_123, "ns": 1_700_000_000_123_456_789, "day": 19000}, {"ms": None, "ns": None, "day": None}]
    for name, dumps in (("msgpack", msgpack.packb), ("cbor2", cbor2.dumps)):
        p = tmp_path / name
        p.write_bytes(b"".join(dumps(r) for r in rows))
        b = SUBJECTS[name].bind(ds.schema)
        got = b.rows(b.read_file(str(p)))
        assert got[0]["day"] == dt.date(2022, 1, 8)
        assert digest.digest_rows(ds.schema, got) == want, name


def test_file_op_cannot_hold(tmp_path):
    """An export or import of data the subject cannot hold (a timestamp
    beyond datetime's years) is an error line saying cannot_hold, with the
    column and row, not a failed read."""
    import pyarrow as pa

    work = tmp_path / "work"
    (work / "tmp").mkdir(parents=True)
    d = work / "datasets" / "ts-2"
    d.mkdir(parents=True)
    t = pa.table({"at": pa.array([0, 1608822900000000000], pa.timestamp("us"))})
    sample_data.arrow_stream(t, str(d / "data.arrows"), batch=2)
    (work / "run.json").write_text(json.dumps({"protocol": 1, "run_id": "t", "benchtime_ns": 1, "max_iters": 1, "count": 1, "seed": 1}))
    cs = [
        case("x/json", "json", "export", path="tmp/x.jsonl", dataset="ts-2", size=2),
        case("x/ipc", "pyarrow-ipc", "export", path="tmp/x.arrow", dataset="ts-2", size=2),
    ]
    (work / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cs))
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    by = {x["case"]: x for x in lines if "case" in x}
    for cid in ("x/json", "x/ipc"):
        e = by[cid]
        assert e["type"] == "error" and e.get("cannot_hold") is True, e
        assert "column 'at': row 1 holds a timestamp beyond years 1-9999" in e["message"], e
        assert not e["message"].startswith("CannotHold:"), e


def test_msgspec_reads_int_times(tmp_path, ds, want):
    # Go, Java and Rust write timestamps to MessagePack as integers in their
    # unit and dates as integer days; msgspec wants its datetime extension
    # and date strings, and reads the others' files through lenient types.
    import msgpack
    import pyarrow as pa

    ints = pa.Table.from_arrays(
        [c.cast(dataset._ints_type(f.type)) if dataset._has_temporal(f.type) else c for c, f in zip(ds.table.columns, ds.schema)],
        names=ds.schema.names,
    )
    day = [f.name for f in ds.schema if pa.types.is_date(f.type)]
    p = tmp_path / "ints.msgpack"
    with open(p, "wb") as f:
        for r in ints.to_pylist():
            for n in day:  # days since the epoch, as Go writes a date32
                if r[n] is not None:
                    r[n] = (r[n] - dataset.EPOCH.date()).days
            f.write(msgpack.packb(r, datetime=False, default=str))  # decimals as exact text, as Go writes them
    b = SUBJECTS["msgspec-msgpack"].bind(ds.schema)
    got = digest.digest_rows(ds.schema, b.rows(b.read_file(str(p))))
    assert got == want
