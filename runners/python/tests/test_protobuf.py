"""The protobuf subject on the three nested datasets' shapes: tables in the
Arrow layout serbench's Go side gives each message (workload/nested/
nestedarrow: messages as non-null structs, repeated fields as non-null lists
of non-null elements, proto3 optional fields nullable, enums as the
dataset's strings), generated from the messages' descriptors with values
drawn from a seeded generator. Every one round-trips to the digest of its
source rows, through a codec and a projection too; any other schema is
refused at setup, naming the three datasets."""

import random

import pyarrow as pa
import pytest
from google.protobuf.descriptor import FieldDescriptor as F

from serbench_runner import codecs, dataset, digest, projection, subjects
from serbench_runner.subjects import protobuf_

from . import sample_data
from .test_e2e import case, run

SUBJECT = subjects.available()["protobuf"]

# the enum strings each dataset holds (dataset/nested/*: media's upper-case
# names, userevents' lower-case families and capitalised event types)
ENUM_STRINGS = {
    "serbench.nested.media.Player": ["JAVA", "FLASH"],
    "serbench.nested.media.Size": ["SMALL", "LARGE"],
    "serbench.nested.userevents.Family": ["ios", "android", "windows"],
    "serbench.nested.userevents.EventType": ["Listing", "Purchase", "Search", "Profile update"],
}


def _leaf_type(fd):
    return {
        F.CPPTYPE_INT32: pa.int32(),
        F.CPPTYPE_INT64: pa.int64(),
        F.CPPTYPE_DOUBLE: pa.float64(),
        F.CPPTYPE_FLOAT: pa.float32(),
        F.CPPTYPE_BOOL: pa.bool_(),
        F.CPPTYPE_ENUM: pa.string(),
    }.get(fd.cpp_type, pa.string() if fd.type == F.TYPE_STRING else pa.binary())


def arrow_fields(desc):
    out = []
    for fd in desc.fields:
        if fd.cpp_type == F.CPPTYPE_MESSAGE:
            t = pa.struct(arrow_fields(fd.message_type))
        else:
            t = _leaf_type(fd)
        if fd.is_repeated:
            out.append(pa.field(fd.name, pa.list_(pa.field("element", t, nullable=False)), nullable=False))
        else:
            out.append(pa.field(fd.name, t, nullable=fd.has_presence and fd.cpp_type != F.CPPTYPE_MESSAGE))
    return out


def sample_value(fd, r: random.Random, depth: int):
    c = fd.cpp_type
    if c == F.CPPTYPE_MESSAGE:
        return sample_row(fd.message_type, r, depth + 1)
    if c == F.CPPTYPE_INT32:
        return r.choice([0, -1, 2**31 - 1, -(2**31), r.randint(-1000, 1000)])
    if c == F.CPPTYPE_INT64:
        return r.choice([0, 2**63 - 1, -(2**63), r.randint(-(2**40), 2**40)])
    if c == F.CPPTYPE_DOUBLE:
        return r.choice([0.0, -0.0, 1e308, r.random() * 1e5, -r.random()])
    if c == F.CPPTYPE_BOOL:
        return r.random() < 0.5
    if c == F.CPPTYPE_ENUM:
        return r.choice(ENUM_STRINGS[fd.enum_type.full_name])
    return r.choice(["", f"{fd.name}-{r.getrandbits(24):x}", "Grüße ✓ 東京", "a\x00b"])


def sample_row(desc, r: random.Random, depth: int = 0) -> dict:
    row = {}
    for fd in desc.fields:
        if fd.is_repeated:
            row[fd.name] = [sample_value(fd, r, depth) for _ in range(0 if depth > 3 else r.randint(0, 3))]
        elif fd.has_presence and fd.cpp_type != F.CPPTYPE_MESSAGE and r.random() < 0.3:
            row[fd.name] = None
        else:
            row[fd.name] = sample_value(fd, r, depth)
    return row


def nested_dataset(full: str, n: int = 80) -> dataset.Dataset:
    desc = protobuf_.pool().FindMessageTypeByName(full)
    schema = pa.schema(arrow_fields(desc))
    r = random.Random(full)
    rows = [sample_row(desc, r) for _ in range(n)]
    t = pa.Table.from_pylist(rows, schema=schema)
    return dataset.Dataset(full, schema, t, dataset.to_native(t))


DATASETS = [full for full, _ in protobuf_.TOP]


@pytest.fixture(scope="module", params=DATASETS)
def ds(request):
    return nested_dataset(request.param)


def test_announced():
    assert SUBJECT.format == "protobuf" and not SUBJECT.any_schema
    assert SUBJECT.labels["backend"] == "upb"  # the wheel's C backend, not the pure-Python one
    assert SUBJECT.resolved_version() == "7.36.2"


@pytest.mark.parametrize("codec", ["none", "zstd:3"])
def test_round_trip(ds, codec):
    b = SUBJECT.bind(ds.schema)
    assert b.desc.full_name == ds.name  # bound to the message the schema came from
    natives = b.prepare(ds)
    assert all(type(m) is b.cls for m in natives)
    want = digest.digest_rows(ds.schema, ds.rows)
    enc = b.encode(natives)
    assert enc == b.encode(natives)
    c = codecs.parse(codec)
    if c.compress:
        enc = c.decompress(c.compress(enc))
    decoded = b.decode(enc)
    assert len(decoded) == len(ds.rows) and all(type(m) is b.cls for m in decoded)
    assert decoded == natives
    got = digest.digest_rows(ds.schema, b.rows(decoded))
    assert [c for c, w in zip(got["columns"], want["columns"]) if c != w] == []
    assert got == want


def test_framing(ds):
    # varint length, then the message: as the JVM's and Go's protobuf formats write
    b = SUBJECT.bind(ds.schema)
    natives = b.prepare(ds)
    enc = b.encode(natives)
    pos = 0
    for m in natives:
        body = m.SerializeToString()
        head = protobuf_.varint(len(body))
        assert enc[pos : pos + len(head)] == head
        pos += len(head)
        assert b.cls.FromString(enc[pos : pos + len(body)]) == m
        pos += len(body)
    assert pos == len(enc)
    with pytest.raises(ValueError, match="past the end"):
        b.decode(enc[:-1])


def test_varint():
    for n in [0, 1, 127, 128, 300, 16383, 16384, 2**21, 2**35]:
        v = protobuf_.varint(n)
        got, shift = 0, 0
        for i, x in enumerate(v):
            got |= (x & 0x7F) << shift
            shift += 7
            assert (x < 0x80) == (i == len(v) - 1)
        assert got == n


def test_query(ds):
    b = SUBJECT.bind(ds.schema)
    leaves = [lf.path for lf in digest.leaves(ds.schema)]
    enc = b.encode(b.prepare(ds))
    for q in [leaves[0], ",".join(leaves[1::3]), leaves[-1]]:
        proj = projection.parse(q, ds.schema)
        want = digest.digest_rows(ds.schema, ds.rows, proj.leaves)
        assert digest.digest_rows(ds.schema, b.rows(b.query(enc, proj)), proj.leaves) == want


def test_enum_strings():
    ds = nested_dataset("serbench.nested.userevents.Record")
    b = SUBJECT.bind(ds.schema)
    m = b.prepare(ds)
    events = [e for r in m for d in r.devices for c in d.connections for e in c.events]
    assert {e.type for e in events} <= {0, 1, 2, 3} and len({e.type for e in events}) > 1
    assert b.enums.names[("serbench.nested.userevents.EventType", 3)] == "Profile update"
    bad = dict(ds.rows[0], devices=[{"mac": "m", "family": "beos", "connections": []}])
    with pytest.raises(ValueError, match="'beos' is no value of enum Family"):
        b._build(bad)


def test_presence():
    # proto3 optional: null stays null through the wire, "" stays ""
    ds = nested_dataset("serbench.nested.userevents.Record")
    b = SUBJECT.bind(ds.schema)
    rows = [dict(ds.rows[0], about=None), dict(ds.rows[0], about="")]
    got = b.rows(b.decode(b.encode([b._build(r) for r in rows])))
    assert [r["about"] for r in got] == [None, ""]


def test_refuses_other_schemas():
    t = sample_data.table(5)
    with pytest.raises(ValueError) as e:
        SUBJECT.bind(t.schema)
    msg = str(e.value)
    assert "binds only to the nested datasets tpch (LineItem), media (Record), userevents (Record)" in msg
    # a nested schema with one column less is refused too, naming the field
    s = nested_dataset("serbench.nested.media.Record").schema.remove(2)
    with pytest.raises(ValueError, match="Record has 3 fields, the dataset 2"):
        SUBJECT.bind(s)


def test_run_end_to_end(tmp_path):
    # through the command line: a media-shaped dataset verifies, the sample
    # table is a setup error naming the datasets, the other subjects go on
    import json

    work = tmp_path / "work"
    (work / "tmp").mkdir(parents=True)
    for name, t in [("media-50", nested_dataset("serbench.nested.media.Record", 50).table), ("sample-10", sample_data.table(10))]:
        d = work / "datasets" / name
        d.mkdir(parents=True)
        sample_data.arrow_stream(t, str(d / "data.arrows"), batch=16)
    (work / "run.json").write_text(json.dumps({"protocol": 1, "run_id": "t", "benchtime_ns": 1_000_000, "max_iters": 10**9, "count": 2, "seed": 1}))
    cases = [
        case("m/protobuf/decode", "protobuf", "decode", dataset="media-50", group="m", count=1),
        case("m/protobuf/encode", "protobuf", "encode", dataset="media-50", group="m", count=1),
        case("s/protobuf/decode", "protobuf", "decode", dataset="sample-10", count=1),
    ]
    (work / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    hello = lines[0]
    (pb,) = [s for s in hello["subjects"] if s["name"] == "protobuf"]
    assert pb["labels"]["backend"] == "upb" and pb["format"] == "protobuf"
    want = digest.digest_rows(*_schema_rows(work / "datasets" / "media-50" / "data.arrows"))
    verify = {x["case"]: x for x in lines if x["type"] == "verify"}
    assert verify["m/protobuf/decode"]["digest"] == want and verify["m/protobuf/encode"]["digest"] == want
    (e,) = [x for x in lines if x["type"] == "error"]
    assert e["case"] == "s/protobuf/decode" and e["phase"] == "setup" and "tpch (LineItem), media (Record), userevents (Record)" in e["message"]
    assert sum(x["type"] == "sample" for x in lines) == 2
    assert lines[-1] == {"type": "end", "cases": 3, "failed": 1}


def _schema_rows(path):
    t = dataset.read_arrow_stream(str(path))
    return t.schema, dataset.to_native(t)


# -- the file ops (protocol §10): the .binpb file


def test_file_round_trip(ds, tmp_path):
    # export writes encode's bytes (size varint, message: the library's
    # serialize_length_prefixed framing); a fresh binding reads them back to
    # the dataset's digest once prepare_import has seen the dataset's enum
    # strings (outside the timed read)
    import io

    from google.protobuf import proto

    b = SUBJECT.bind(ds.schema)
    natives = b.prepare(ds)
    p = str(tmp_path / "a.binpb")
    b.write_file(natives, p)
    with open(p, "rb") as f:
        data = f.read()
    assert data == b.encode(natives)
    buf, lib = io.BytesIO(), []
    for m in natives:
        proto.serialize_length_prefixed(m, buf)
    assert buf.getvalue() == data
    buf.seek(0)
    while (m := proto.parse_length_prefixed(b.cls, buf)) is not None:
        lib.append(m)
    assert lib == natives
    want = digest.digest_rows(ds.schema, ds.rows)
    r = SUBJECT.bind(ds.schema)
    r.prepare_import(ds)
    read = r.read_file(p)
    assert read == natives
    got = digest.digest_rows(ds.schema, r.rows(read))
    assert [c["path"] for c, w in zip(got["columns"], want["columns"]) if c != w] == []
    assert got == want


def test_file_enum_strings_need_the_dataset(tmp_path):
    # without the dataset's strings an imported enum reads as its name
    ds = nested_dataset("serbench.nested.userevents.Record")
    b = SUBJECT.bind(ds.schema)
    p = str(tmp_path / "u.binpb")
    b.write_file(b.prepare(ds), p)
    r = SUBJECT.bind(ds.schema)
    types = {e["type"] for row in r.rows(r.read_file(p)) for d in row["devices"] for c in d["connections"] for e in c["events"]}
    assert "PROFILE_UPDATE" in types or "LISTING" in types
    r.prepare_import(ds)
    types = {e["type"] for row in r.rows(r.read_file(p)) for d in row["devices"] for c in d["connections"] for e in c["events"]}
    assert types <= set(ENUM_STRINGS["serbench.nested.userevents.EventType"])
    # tpch has no enum: nothing to collect
    assert SUBJECT.bind(nested_dataset("serbench.nested.tpch.LineItem", 3).schema)._walk_enums is None


def test_file_empty_and_broken(ds, tmp_path):
    b = SUBJECT.bind(ds.schema)
    empty = tmp_path / "empty.binpb"
    empty.write_bytes(b"")
    assert b.rows(b.read_file(str(empty))) == []
    data = b.encode(b.prepare(ds))
    bad = tmp_path / "bad.binpb"
    for cut, match in [
        (data[:-1], "runs past the end"),
        (data + b"\x80", "truncated record length"),
        (data + b"\x05\xff\xff\xff\xff\xff", "Error parsing message"),
    ]:
        bad.write_bytes(cut)
        with pytest.raises(Exception, match=match):
            b.read_file(str(bad))


def _file_work(tmp_path, full, n, cases):
    work = tmp_path / "work"
    (work / "tmp").mkdir(parents=True)
    t = nested_dataset(full, n).table
    d = work / "datasets" / "nested"
    d.mkdir(parents=True)
    sample_data.arrow_stream(t, str(d / "data.arrows"), batch=16)
    import json

    (work / "run.json").write_text(json.dumps({"protocol": 1, "run_id": "t", "benchtime_ns": 1_000_000, "max_iters": 10**9, "count": 2, "seed": 1}))
    (work / "cases.jsonl").write_text("".join(json.dumps(case(*c, dataset="nested", path=p)) + "\n" for *c, p in cases))
    return work, t


@pytest.mark.parametrize("full", DATASETS)
def test_run_file_ops(tmp_path, full):
    # through the command line: export and import verify (the import
    # reading a file the library's own serialize_length_prefixed wrote), a
    # truncated, garbage or empty file (the dataset has 30 rows) is ok:false
    # with a one-line reason
    import io

    from google.protobuf import proto

    ds = nested_dataset(full, 30)
    b = SUBJECT.bind(ds.schema)
    buf = io.BytesIO()
    for m in b.prepare(ds):
        proto.serialize_length_prefixed(m, buf)
    good = buf.getvalue()
    cases = [
        ("x", "protobuf", "export", "tmp/a.binpb"),
        ("i", "protobuf", "import", "tmp/b.binpb"),
        ("cut", "protobuf", "import", "tmp/cut.binpb"),
        ("junk", "protobuf", "import", "tmp/junk.binpb"),
        ("empty", "protobuf", "import", "tmp/empty.binpb"),
    ]
    work, t = _file_work(tmp_path, full, 30, cases)
    (work / "tmp" / "b.binpb").write_bytes(good)
    (work / "tmp" / "cut.binpb").write_bytes(good[:-3])
    (work / "tmp" / "junk.binpb").write_bytes(b"\xff\xff\xff\xff\x0f\x01\x02")
    (work / "tmp" / "empty.binpb").write_bytes(b"")
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    (pb,) = [s for s in lines[0]["subjects"] if s["name"] == "protobuf"]
    assert "export" in pb["ops"] and "import" in pb["ops"]
    assert not [x for x in lines if x["type"] == "sample"]
    v = {x["case"]: x for x in lines if x["type"] == "verify"}
    want = digest.digest_rows(*_schema_rows(work / "datasets" / "nested" / "data.arrows"))
    for cid in ("x", "i"):
        assert v[cid]["ok"] and v[cid]["digest"] == want and v[cid]["encoded_bytes"] == len(good), v[cid]
        assert v[cid]["elapsed_ns"] > 0
    assert (work / "tmp" / "a.binpb").read_bytes() == good
    for cid in ("cut", "junk", "empty"):
        assert not v[cid]["ok"] and v[cid]["reason"].startswith("import (read) failed: ") and "\n" not in v[cid]["reason"], v[cid]
    assert "read 0 rows, want 30" in v["empty"]["reason"]
    assert lines[-1] == {"type": "end", "cases": 5, "failed": 3}
