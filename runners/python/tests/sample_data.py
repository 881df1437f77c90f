"""A small generated table exercising nested lists, structs, nulls,
timestamps (µs and ns), dates, decimals, binaries and dictionaries."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa

UTC = dt.timezone.utc

ITEM = pa.struct(
    [
        ("sku", pa.string()),
        ("qty", pa.int16()),
        ("price", pa.decimal128(10, 2)),
        ("at", pa.timestamp("us", tz="UTC")),
    ]
)

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("name", pa.string()),
        ("score", pa.float64()),
        ("f32", pa.float32()),
        ("flag", pa.bool_()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("ts_ns", pa.timestamp("ns", tz="UTC")),
        ("day", pa.date32()),
        ("amount", pa.decimal128(12, 3)),
        ("blob", pa.binary()),
        ("u32", pa.uint32()),
        ("tags", pa.list_(pa.string())),
        ("point", pa.struct([("x", pa.int32()), ("y", pa.float64()), ("label", pa.string())])),
        ("items", pa.list_(ITEM)),
        ("matrix", pa.list_(pa.list_(pa.int64()))),
        ("pair", pa.list_(pa.int16(), 2)),
        ("kind", pa.dictionary(pa.int32(), pa.string())),
    ]
)


def rows(n: int = 50) -> list[dict]:
    out = []
    base = dt.datetime(2024, 5, 17, 12, 30, 45, 123456, tzinfo=UTC)
    for i in range(n):
        null = i % 7 == 3
        out.append(
            {
                "id": i * 1_000_003 - 25_000_000,
                "name": None if null else f"name-{i} ✓ é" if i % 2 else "",
                "score": None if null else i * 0.25 - 3.5,
                "f32": None if null else (i % 5) * 0.5,
                "flag": None if null else i % 3 == 0,
                "ts": None if null else base + dt.timedelta(days=(i % 40) * 400 - 20000, microseconds=i * 7919),
                "ts_ns": None if null else base - dt.timedelta(days=(i % 5000) * 3, microseconds=i),
                "day": None if null else dt.date(1969, 12, 31) + dt.timedelta(days=(i % 1000) * 97),
                "amount": None if null else Decimal(i * 12345 - 300000).scaleb(-3),
                "blob": None if null else bytes(range(i % 9)) + b"\xff\x00",
                "u32": None if null else 4_000_000_000 - i,
                "tags": None if i % 5 == 1 else [] if i % 5 == 2 else [f"t{i}", None, ""][: 1 + i % 3],
                "point": None if i % 6 == 0 else {"x": i, "y": None if i % 4 == 0 else i / 3, "label": None},
                "items": None
                if i % 8 == 5
                else [
                    None
                    if k == 2
                    else {
                        "sku": f"sku-{i}-{k}",
                        "qty": k - 1,
                        "price": Decimal(f"{i}.{k:02d}"),
                        "at": None if k == 1 else base + dt.timedelta(seconds=i * k),
                    }
                    for k in range(i % 4)
                ],
                "matrix": None if null else [[i, -i], [], [2**62 if i % 2 else -(2**62)]],
                "pair": None if i % 9 == 4 else [i % 3, None if i % 2 else -i],
                "kind": None if null else ["a", "b", "c"][i % 3],
            }
        )
    return out


def table(n: int = 50) -> pa.Table:
    rs = rows(n)
    cols = []
    for f in SCHEMA:
        vals = [r[f.name] for r in rs]
        if pa.types.is_dictionary(f.type):
            cols.append(pa.array(vals, pa.string()).dictionary_encode().cast(f.type))
        else:
            cols.append(pa.array(vals, f.type))
    return pa.Table.from_arrays(cols, schema=SCHEMA)


def arrow_stream(t: pa.Table, path: str, batch: int = 16) -> None:
    with pa.OSFile(path, "wb") as f, pa.ipc.new_stream(f, t.schema) as w:
        for b in t.to_batches(max_chunksize=batch):
            w.write_batch(b)


# Values a text format (CSV, JSON Lines) must carry exactly: nulls next to
# empty strings and the usual null spellings, quotes, separators and line
# breaks in strings, float bit patterns, sub-microsecond and pre-1970
# timestamps, zones, decimal extremes. All columns are flat; the NaN and
# infinity columns are apart (JSON has neither).
EDGE_STRINGS = [
    "",
    None,
    "NULL",
    "null",
    "NA",
    "N/A",
    "nan",
    "NaN",
    "a,b",
    'q"uote',
    '""',
    "line\nbreak",
    "cr\r\nlf",
    "\r",
    " pad ",
    "✓ é 𝄞",
    "\x00nul",
    "#x",
    "\ufeffbom",
    "\t",
]
EDGE_N = len(EDGE_STRINGS)


def _cycle(vals):
    return [vals[i % len(vals)] for i in range(EDGE_N)]


def edge_table() -> pa.Table:
    ns = [-1, 1999, None, -1_000_000_001, 1_715_949_045_123_456_789, 0]
    cols = {
        "s": pa.array(EDGE_STRINGS, pa.string()),
        "ls": pa.array(EDGE_STRINGS, pa.large_string()),
        "f64": pa.array(
            _cycle([0.1, -0.0, 0.0, 1e300, 5e-324, None, 1 / 3, -1.7976931348623157e308, 9007199254740993.0, 1e-7, 1e21, 2.5e-310]), pa.float64()
        ),
        "f32": pa.array(
            _cycle([0.1, -0.0, 3.4028234663852886e38, 1.401298464324817e-45, None, 16777216.0, 1 / 3, 1.1754943508222875e-38]), pa.float32()
        ),
        "f64_nan": pa.array(_cycle([float("nan"), float("inf"), None, float("-inf"), 1.5]), pa.float64()),
        "f32_nan": pa.array(_cycle([float("nan"), float("inf"), None, float("-inf"), 1.5]), pa.float32()),
        "i64": pa.array(_cycle([-(2**63), 2**63 - 1, None, 0, -1]), pa.int64()),
        "u64": pa.array(_cycle([2**64 - 1, 0, None, 2**63]), pa.uint64()),
        "i8": pa.array(_cycle([-128, 127, None, 0]), pa.int8()),
        "u16": pa.array(_cycle([65535, None, 0]), pa.uint16()),
        "b": pa.array(_cycle([True, False, None]), pa.bool_()),
        "ts": pa.array(_cycle([-40000 * 86_400_000_000 - 7, None, -62135596800_000_000, 253402300799_999_999, 0]), pa.int64()).cast(
            pa.timestamp("us", tz="UTC")
        ),
        "ts_ns": pa.array(_cycle(ns), pa.int64()).cast(pa.timestamp("ns", tz="UTC")),
        "ts_s": pa.array(_cycle([-1, 0, None, 253402300799]), pa.int64()).cast(pa.timestamp("s", tz="UTC")),
        "ts_ms": pa.array(_cycle([-1, None, 1715949045123]), pa.int64()).cast(pa.timestamp("ms", tz="UTC")),
        "ts_naive": pa.array(_cycle([-1, None, 1715949045123456]), pa.int64()).cast(pa.timestamp("us")),
        "ts_zone": pa.array(_cycle([-1, None, 1715949045123456]), pa.int64()).cast(pa.timestamp("us", tz="America/New_York")),
        "day": pa.array(_cycle([-719162, 0, None, 2932896, -1]), pa.int32()).cast(pa.date32()),
        "day64": pa.array(_cycle([-86_400_000 * 3, None, 86_400_000 * 5]), pa.int64()).cast(pa.date64()),
        "dec": pa.array(_cycle([Decimal("-0.001"), Decimal("0.000"), None, Decimal("999999999.999")]), pa.decimal128(12, 3)),
        "dec38": pa.array(_cycle([Decimal(-(10**38) + 1), None, Decimal(10**38 - 1), Decimal(0)]), pa.decimal128(38, 0)),
        "kind": pa.array(_cycle(["a", "", None, "c,d"]), pa.string()).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())),
    }
    return pa.table(cols)
