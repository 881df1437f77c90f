import glob
import os

import pytest

from serbench_runner import dataset, digest, vectors

HERE = os.path.dirname(__file__)
VECTORS = sorted(glob.glob(os.path.join(HERE, "..", "..", "..", "digest", "testdata", "*.json")))


def test_vectors_found():
    assert len(VECTORS) >= 7


@pytest.mark.parametrize("path", VECTORS, ids=[os.path.basename(p) for p in VECTORS])
def test_vector(path):
    vec, table = vectors.load(path)
    rows = dataset.to_native(table)
    r = digest.digest_rows(table.schema, rows)
    got = {c["path"]: c["digest"] for c in r["columns"]}
    assert got == vec["columns"]
    assert r["table"] == vec["table"]
    assert r["rows"] == len(vec["rows"])
    for group in vec.get("equal_columns", []):
        assert len({got[p] for p in group}) == 1, group
    # batching does not matter
    d = digest.Digester(table.schema)
    for i in range(len(rows)):
        d.write(rows[i : i + 1])
    assert d.sum() == r


def test_worked_example():
    import pyarrow as pa

    schema = pa.schema([("id", pa.int64()), ("tags", pa.list_(pa.string()))])
    r = digest.digest_rows(schema, [{"id": 7, "tags": ["a", ""]}, {"id": None, "tags": None}])
    assert r["columns"] == [
        {"path": "id", "digest": "1b6adcc983ad40868b3d1949eeaf3603"},
        {"path": "tags.[]", "digest": "0dcc16f7a897b8ef8c0d1b617f194d02"},
    ]
    assert r["table"] == "6b7ca86f5258e5bd6afcf20fa2fbc1dd"


def test_empty_table():
    import pyarrow as pa

    r = digest.digest_rows(pa.schema([("id", pa.int64())]), [])
    assert r["columns"][0]["digest"] == "e3b0c44298fc1c149afbf4c8996fb924"


def test_plain_decimal():
    from decimal import Decimal

    assert digest.plain_decimal(Decimal("1.5"), 2) == "1.50"
    assert digest.plain_decimal(Decimal("-0.05"), 2) == "-0.05"
    assert digest.plain_decimal(Decimal("-0.00"), 2) == "0.00"
    assert digest.plain_decimal(Decimal("0"), 0) == "0"
    assert digest.plain_decimal(Decimal("-7E+2"), -2) == "-700"
    assert digest.plain_decimal(Decimal("12345678901234567890.123"), 3) == "12345678901234567890.123"


def test_native_forms_agree():
    """Aware and naive datetimes, and ints of microseconds, digest alike."""
    import datetime as dt

    import pyarrow as pa

    s = pa.schema([("t", pa.timestamp("us", tz="UTC"))])
    aware = dt.datetime(1960, 1, 1, 0, 0, 0, 1, tzinfo=dt.timezone.utc)
    plus2 = aware.astimezone(dt.timezone(dt.timedelta(hours=2)))
    a = digest.digest_rows(s, [{"t": aware}])
    assert digest.digest_rows(s, [{"t": plus2}]) == a
    assert digest.digest_rows(s, [{"t": aware.replace(tzinfo=None)}]) == a
    assert digest.digest_rows(s, [{"t": -315619199999999}]) == a


def test_float32_column_of_float64_objects():
    """A float32 column's Python floats digest as the float32 they round to:
    a JSON reader's 0.1 (the float32 0.1f's shortest decimal) is 0.1f."""
    import pyarrow as pa

    s = pa.schema([("x", pa.float32())])
    from_arrow = pa.table({"x": pa.array([0.1, 1e-45, 3.4e38, float("nan"), None], pa.float32())})
    want = digest.digest_rows(s, dataset.to_native(from_arrow))
    assert digest.digest_rows(s, [{"x": 0.1}, {"x": 1e-45}, {"x": 3.4e38}, {"x": float("nan")}, {"x": None}]) == want
    # a value no float32 holds is not narrowed away
    assert digest.digest_rows(s, [{"x": 1e300}]) != digest.digest_rows(s, [{"x": float("inf")}])
    # float64 columns are untouched
    d = pa.schema([("x", pa.float64())])
    assert digest.digest_rows(d, [{"x": 0.1}]) != digest.digest_rows(d, [{"x": float(pa.array([0.1], pa.float32())[0].as_py())}])


def test_timestamp_beyond_datetime_cannot_hold():
    """A timestamp beyond datetime's years is a CannotHold naming the column
    and row, not an OverflowError."""
    import pyarrow as pa

    from serbench_runner.kit import CannotHold

    t = pa.table({"at": pa.array([0, 1608822900000000000], pa.timestamp("us"))})
    with pytest.raises(CannotHold, match="column 'at': row 1 holds a timestamp beyond years 1-9999"):
        dataset.to_native(t)
