"""Every subject round-trips the sample table: the digest of what it decoded
equals the digest of the source rows (also through a codec, and for the
subjects that announce query, the projection's digest). A subject gets the
columns it holds (LEFT_OUT); the text formats also round-trip the edge
table, and refuse at bind, in one line, what they cannot hold."""

import pyarrow as pa
import pytest

from serbench_runner import codecs, dataset, digest, projection, subjects
from serbench_runner.subjects.textformats import _is_nested

from . import sample_data

SUBJECTS = subjects.available()
# the subjects that bind to any schema (protobuf: tests/test_protobuf.py)
ANY = sorted(n for n, s in SUBJECTS.items() if s.any_schema)
# the subjects of flat schemas only (label nesting=flat): serbench sends
# them no dataset with a nested column
FLAT = sorted(n for n in ANY if SUBJECTS[n].labels.get("nesting") == "flat")
NESTED = [f.name for f in sample_data.SCHEMA if _is_nested(f.type)]
# the sample table's columns a subject cannot hold, left out of its table
# (each is refused at bind: test_refuses)
LEFT_OUT = {
    "pyarrow-csv": [*NESTED, "blob"],
    "polars-csv": [*NESTED, "blob"],
    "polars-ndjson": ["blob"],
}
# the subjects of text formats, which round-trip the edge table too (less
# the columns of values the format cannot write: JSON has no NaN)
TEXT = {"pyarrow-csv": [], "polars-csv": [], "polars-ndjson": ["f64_nan", "f32_nan"]}


def _dataset(t, name="sample"):
    return dataset.Dataset(name, t.schema, t, dataset.to_native(t))


def _round_trip(b, ds):
    """The digest of what a bound subject decodes from its encoding of ds."""
    enc = bytes(memoryview(b.encode(b.prepare(ds))))
    return digest.digest_rows(ds.schema, b.rows(b.decode(enc)))


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


def subject_ds(ds, name):
    """The sample dataset less the columns the subject cannot hold."""
    drop = LEFT_OUT.get(name)
    return ds if not drop else _dataset(ds.table.drop_columns(drop))


def test_left_out():
    # only the subjects of flat schemas leave out nested columns
    assert FLAT == ["polars-csv", "pyarrow-csv"]
    assert sorted(LEFT_OUT) == sorted(TEXT) and set(TEXT) <= set(ANY)
    for n in ANY:
        nested_out = set(NESTED) & set(LEFT_OUT.get(n, []))
        assert nested_out == (set(NESTED) if n in FLAT else set()), n


@pytest.mark.parametrize("name", ANY)
@pytest.mark.parametrize("codec", ["none", "zstd:3"])
def test_round_trip(ds, name, codec):
    ds = subject_ds(ds, name)
    want = digest.digest_rows(ds.schema, ds.rows)
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


@pytest.mark.parametrize("name", sorted(TEXT))
def test_text_edge_values(name):
    t = sample_data.edge_table().drop_columns(TEXT[name])
    b = SUBJECTS[name].bind(t.schema)
    ds = _dataset(t, "edge")
    want = digest.digest_rows(t.schema, ds.rows)
    got = _round_trip(b, ds)
    assert [g["path"] for g, w in zip(got["columns"], want["columns"]) if g != w] == []
    assert got == want
    # each column alone (a one-column CSV has empty lines for its nulls),
    # and no rows at all
    for i in range(t.num_columns):
        one = _dataset(t.select([i]), "edge")
        assert _round_trip(SUBJECTS[name].bind(one.schema), one) == digest.digest_rows(one.schema, one.rows), t.schema.names[i]
    empty = _dataset(t.slice(0, 0), "edge")
    assert _round_trip(b, empty)["rows"] == 0


@pytest.mark.parametrize("name", sorted(TEXT))
def test_text_line_breaks_across_blocks(name):
    # 2.4 MB of strings with line breaks: pyarrow's CSV reader splits its
    # input in 1 MiB blocks and needs newlines_in_values=True for a value
    # spanning lines
    n = 80_000
    strs = [None if i % 7 == 0 else "" if i % 7 == 1 else f'row {i}\nsecond line, "q"\r\n' for i in range(n)]
    t = pa.table({"s": pa.array(strs, pa.string()), "i": pa.array(range(n), pa.int64())})
    ds = _dataset(t)
    assert _round_trip(SUBJECTS[name].bind(t.schema), ds) == digest.digest_rows(t.schema, ds.rows)


def test_ndjson_nan_is_null():
    # JSON has no NaN: polars writes NaN and infinities as null, so those
    # columns bind but their digest differs (serbench then fails the case)
    t = sample_data.edge_table().select(["f64_nan"])
    b = SUBJECTS["polars-ndjson"].bind(t.schema)
    got = b.rows(b.decode(b.encode(b.prepare(_dataset(t)))))
    assert [r["f64_nan"] for r in got[:5]] == [None, None, None, None, 1.5]


@pytest.mark.parametrize("name", FLAT)
def test_flat_refuses_nested(name):
    with pytest.raises(ValueError) as e:
        SUBJECTS[name].bind(sample_data.SCHEMA)
    first = sample_data.SCHEMA.field(NESTED[0])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{name}: column {first.name!r} has type {first.type}: nested") and "nesting=flat" in msg
    for n in NESTED:
        f = sample_data.SCHEMA.field(n)
        with pytest.raises(ValueError, match=f"^{name}: column '{n}' has type .*nested"):
            SUBJECTS[name].bind(pa.schema([sample_data.SCHEMA.field("id"), f]))


REFUSED = [
    # (subject, column type, words of the reason)
    ("pyarrow-csv", pa.binary(), "not UTF-8"),
    ("pyarrow-csv", pa.binary(4), "not UTF-8"),
    ("pyarrow-csv", pa.dictionary(pa.int8(), pa.binary()), "not UTF-8"),
    ("pyarrow-csv", pa.float16(), "does not support"),
    ("pyarrow-csv", pa.decimal256(40, 2), "does not support"),
    ("pyarrow-csv", pa.string_view(), "does not support"),
    ("pyarrow-csv", pa.month_day_nano_interval(), "does not support"),
    ("polars-csv", pa.binary(), "cannot write binary"),
    ("polars-csv", pa.large_binary(), "cannot write binary"),
    ("polars-csv", pa.duration("us"), "cannot write durations"),
    ("polars-csv", pa.null(), "cannot read a Null column"),
    ("polars-csv", pa.decimal256(40, 2), "does not support"),
    ("polars-csv", pa.timestamp("us", tz="+05:30"), "time zone"),
    ("polars-ndjson", pa.binary(), "cannot write binary"),
    ("polars-ndjson", pa.list_(pa.binary()), "cannot write binary"),
    ("polars-ndjson", pa.time64("us"), "times and durations"),
    ("polars-ndjson", pa.struct([("t", pa.time32("s"))]), "times and durations"),
    ("polars-ndjson", pa.duration("ns"), "times and durations"),
    ("polars-ndjson", pa.map_(pa.int32(), pa.string()), "string keys"),
    ("polars-ndjson", pa.decimal256(40, 2), "does not support"),
    ("polars-ndjson", pa.timestamp("us", tz="+05:30"), "time zone"),
]


@pytest.mark.parametrize("name,t,why", REFUSED, ids=[f"{n}-{t}" for n, t, _ in REFUSED])
def test_refuses(name, t, why):
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("col", t)])
    with pytest.raises(ValueError) as e:
        SUBJECTS[name].bind(schema)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{name}: column 'col' has type {t}: ") and why in msg, msg


@pytest.mark.parametrize(
    "name,col,why",
    [("polars-csv", 'q"x', "header"), ("polars-csv", "\ufeffbom", "header"), ("polars-csv", "", "renames"), ("polars-ndjson", "", "renames")],
)
def test_refuses_names(name, col, why):
    # polars misreads these names in its own CSV header (a byte order mark
    # only at the start of the file), or renames them
    with pytest.raises(ValueError) as e:
        SUBJECTS[name].bind(pa.schema([pa.field(col, pa.int64()), pa.field("id", pa.int64())]))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{name}: column {col!r} has type int64: ") and why in msg, msg
    # pyarrow's CSV and polars' NDJSON keep them
    for other in ("pyarrow-csv", "polars-ndjson"):
        if col and other != name:
            t = pa.table({col: [None, 2], "id": [1, None]})
            ds = _dataset(t)
            assert _round_trip(SUBJECTS[other].bind(t.schema), ds) == digest.digest_rows(t.schema, ds.rows)


def test_feather_is_lz4():
    # the label says lz4: the bytes are write_feather's with lz4, its default
    import pyarrow.feather as feather

    t = sample_data.table(60)
    b = SUBJECTS["pyarrow-feather"].bind(t.schema)
    assert SUBJECTS["pyarrow-feather"].labels["body_compression"] == "lz4"

    def written(**kw):
        sink = pa.BufferOutputStream()
        feather.write_feather(t.combine_chunks(), sink, **kw)
        return sink.getvalue().to_pybytes()

    enc = bytes(memoryview(b.encode(b.prepare(_dataset(t)))))
    assert enc == written(compression="lz4") != written(compression="uncompressed")


QUERIES = ["id,point.x,items.[].qty", "tags,matrix", "items", "ts,amount,items.[].at"]


@pytest.mark.parametrize("name", [n for n in ANY if "query" in SUBJECTS[n].ops])
@pytest.mark.parametrize("query", QUERIES)
def test_query(ds, name, query):
    ds = subject_ds(ds, name)
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
    # what the Arrow subjects' encode returns: a pyarrow Buffer, compressed as it is
    assert c.decompress(c.compress(pa.py_buffer(data))) == data


@pytest.mark.parametrize("spec", ["gzip:0", "zstd:x", "lz4:3", "rar", "snappy:1"])
def test_bad_codecs(spec):
    with pytest.raises(ValueError):
        codecs.parse(spec)


def _map_table():
    inner = pa.map_(pa.string(), pa.bool_())
    return pa.table(
        {
            "m": pa.array([[("a", 1), ("b", None)], [], None, [("c", -3)]], pa.map_(pa.string(), pa.int32())),
            "mm": pa.array([[(1, [("x", True)])], [(2, None), (3, [])], None, []], pa.map_(pa.int32(), inner)),
            "lm": pa.array([[[("k", 1.5)]], [None, []], None, [[]]], pa.list_(pa.map_(pa.string(), pa.float64()))),
        }
    )


@pytest.mark.parametrize("name", ANY)
def test_maps(name):
    # maps, of maps and in lists (parquet-testing's nested_maps and
    # nullable.impala hold them): every subject round-trips them exactly or
    # refuses them as cannot hold, naming the column — never another error
    from serbench_runner.kit import CannotHold

    t = _map_table()
    ds = _dataset(t, "maps")
    try:
        b = SUBJECTS[name].bind(t.schema)
    except CannotHold as e:
        assert "column" in str(e), e
        return
    assert _round_trip(b, ds) == digest.digest_rows(t.schema, ds.rows)


def test_parquet_required_below_null():
    # a required field below a null struct (an Avro record in a union with
    # null, say): pyarrow's Parquet writer refuses the placeholders under
    # the null parent (apache/arrow#50470) unless the field is written
    # optional; the values, read back through the dataset's schema, are
    # the same
    city = pa.field("city", pa.string(), nullable=False)
    zips = pa.field("zips", pa.list_(pa.field("item", pa.int32(), nullable=False)), nullable=False)
    schema = pa.schema([pa.field("ship", pa.struct([city, zips])), pa.field("n", pa.int64(), nullable=False)])
    # the children hold nulls under the null parents, as Go's readers build them
    ship = pa.StructArray.from_arrays(
        [pa.array([None, "Pune", None]), pa.array([None, [1, 2], None], pa.list_(zips.type.value_field))],
        fields=[city, zips],
        mask=pa.array([True, False, True]),
    )
    t = pa.Table.from_arrays([ship, pa.array([1, 2, 3])], schema=schema)
    ds = _dataset(t)
    for name in ("pyarrow-parquet", "polars-parquet"):
        assert _round_trip(SUBJECTS[name].bind(schema), ds) == digest.digest_rows(schema, ds.rows), name


def test_pyfory_float_seconds():
    # pyfory's TimestampSerializer goes through float seconds and gives
    # some microsecond timestamps back a microsecond off: such a dataset is
    # cannot hold, naming the column and row, before anything is measured
    import datetime as dt

    from serbench_runner.kit import CannotHold

    utc = dt.timezone.utc
    ok, moved = dt.datetime(2024, 5, 17, 12, 30, 45, 123456, tzinfo=utc), dt.datetime(2004, 10, 18, 4, 53, 12, 990784, tzinfo=utc)
    schema = pa.schema([pa.field("at", pa.timestamp("us", tz="UTC"))])
    fine = _dataset(pa.table({"at": pa.array([ok, None], pa.timestamp("us", tz="UTC"))}, schema=schema))
    b = SUBJECTS["pyfory"].bind(schema)
    assert _round_trip(b, fine) == digest.digest_rows(schema, fine.rows)
    bad = _dataset(pa.table({"at": pa.array([ok, moved], pa.timestamp("us", tz="UTC"))}, schema=schema))
    with pytest.raises(CannotHold, match=r"column 'at': row 1 holds 2004-10-18T04:53:12.990784\+00:00, which pyfory gives back as .*990783"):
        b.prepare(bad)


@pytest.mark.parametrize(
    "name,col,typ,value,why",
    [
        ("orjson", "ratio", pa.float32(), float("nan"), r"column 'ratio': row 1 holds nan, which JSON cannot hold \(orjson would write null\)"),
        ("msgspec-json", "x", pa.float64(), float("inf"), r"column 'x': row 1 holds inf, which JSON cannot hold"),
        ("fastavro", "big", pa.uint64(), 2**64 - 1, r"column 'big': row 1 holds 18446744073709551615, beyond 2\^63-1, which an Avro long"),
        ("pyfory", "big", pa.uint64(), 2**63, r"column 'big': row 1 holds 9223372036854775808, beyond 2\^63-1, which pyfory's int64"),
    ],
)
def test_cannot_hold_values(name, col, typ, value, why):
    # a value the format or library cannot hold is cannot hold, naming the
    # column and row, at setup; the same column without it round-trips
    from serbench_runner.kit import CannotHold

    schema = pa.schema([pa.field(col, typ)])
    fine = _dataset(pa.table({col: pa.array([1, None], typ)}, schema=schema))
    assert _round_trip(SUBJECTS[name].bind(schema), fine) == digest.digest_rows(schema, fine.rows)
    bad = _dataset(pa.table({col: pa.array([1, value], typ)}, schema=schema))
    with pytest.raises(CannotHold, match=why):
        SUBJECTS[name].bind(schema).prepare(bad)
