//! Row files written by hand as docs/runner-protocol.md §10.3 says (and as
//! other languages write them), read through a schema.
#![cfg(feature = "subjects")]

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use serbench_runner::rowfiles::{read_rows, write_rows, FTy, Fmt};
use serbench_runner::value::Value;

fn schema() -> Schema {
    let point = Fields::from(vec![
        Field::new("x", DataType::Int32, true),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
    ]);
    Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new(
            "ms",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            true,
        ),
        Field::new("day", DataType::Date32, true),
        Field::new("price", DataType::Decimal128(10, 2), true),
        Field::new("bin", DataType::Binary, true),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new("point", DataType::Struct(point), true),
    ])
}

/// 2024-05-17T12:30:45.123456Z in microseconds.
const T: i64 = 1_715_949_045_123_456;

fn expected() -> Vec<Value> {
    use Value::*;
    vec![
        Struct(vec![
            I64(1),
            I64(T),
            I64(T / 1000 * 1000),
            I64(19_860),
            Str("-1.50".into()),
            Bin(vec![1, 0, 255]),
            List(vec![Str("a".into()), Null, Str("".into())]),
            Struct(vec![I64(7), I64(-1)]),
        ]),
        Struct(vec![I64(2), Null, Null, Null, Null, Null, Null, Null]),
    ]
}

#[test]
fn json_lines_by_hand() {
    let ty = FTy::of_schema(&schema()).unwrap();
    // Another offset and 9 fractional digits, a decimal with fewer digits
    // than the scale, base64, keys out of order, an unknown key, a missing
    // field, a blank line.
    let text = concat!(
        r#"{"id":1,"ts":"2024-05-17T14:30:45.123456789+02:00","ms":"2024-05-17T12:30:45.123Z","day":"2024-05-17","#,
        r#""price":"-1.5","bin":"AQD/","extra":{"a":[1,2]},"point":{"at":"1969-12-31T23:59:59.999999Z","x":7},"tags":["a",null,""]}"#,
        "\n\n",
        r#"{"id":2,"ts":null,"ms":null,"day":null,"price":null,"bin":null,"tags":null}"#,
        "\n"
    );
    for fmt in [Fmt::Json, Fmt::SimdJson] {
        assert_eq!(read_rows(fmt, &ty, text.as_bytes()).unwrap(), expected(), "{fmt:?}");
    }
    let mut out = Vec::new();
    write_rows(Fmt::Json, &ty, &expected(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        r#"{"id":1,"ts":"2024-05-17T12:30:45.123456Z","ms":"2024-05-17T12:30:45.123Z","day":"2024-05-17","price":"-1.50","bin":"AQD/","tags":["a",null,""],"point":{"x":7,"at":"1969-12-31T23:59:59.999999Z"}}"#
    );
}

/// A MessagePack str.
fn mp_str(out: &mut Vec<u8>, s: &str) {
    assert!(s.len() < 32);
    out.push(0xa0 | s.len() as u8);
    out.extend_from_slice(s.as_bytes());
}

#[test]
fn msgpack_by_hand() {
    let ty = FTy::of_schema(&schema()).unwrap();
    let mut b = Vec::new();
    // Row 1: timestamps as the extension (96-bit) and as milliseconds, the
    // date as days, the decimal as text, binary as bin 8.
    b.push(0x88);
    mp_str(&mut b, "id");
    b.push(0x01);
    mp_str(&mut b, "ts");
    b.extend_from_slice(&[0xc7, 12, 0xff]);
    b.extend_from_slice(&123_456_789u32.to_be_bytes());
    b.extend_from_slice(&(T / 1_000_000).to_be_bytes());
    mp_str(&mut b, "ms");
    b.push(0xd3);
    b.extend_from_slice(&(T / 1000).to_be_bytes());
    mp_str(&mut b, "day");
    b.extend_from_slice(&[0xcd, 0x4d, 0x94]); // 19860
    mp_str(&mut b, "price");
    mp_str(&mut b, "-1.50");
    mp_str(&mut b, "bin");
    b.extend_from_slice(&[0xc4, 3, 1, 0, 255]);
    mp_str(&mut b, "tags");
    b.push(0x93);
    mp_str(&mut b, "a");
    b.push(0xc0);
    mp_str(&mut b, "");
    mp_str(&mut b, "point");
    b.push(0x82);
    mp_str(&mut b, "x");
    b.push(0x07);
    mp_str(&mut b, "at");
    // timestamp 64: nanoseconds 999_999_000 and seconds -1 cannot be
    // expressed; the 96-bit form can.
    b.extend_from_slice(&[0xc7, 12, 0xff]);
    b.extend_from_slice(&999_999_000u32.to_be_bytes());
    b.extend_from_slice(&(-1i64).to_be_bytes());
    // Row 2: only the id, the rest missing.
    b.push(0x81);
    mp_str(&mut b, "id");
    b.push(0x02);
    assert_eq!(read_rows(Fmt::Msgpack, &ty, &b).unwrap(), expected());
    // What the runner writes reads back.
    let mut out = Vec::new();
    write_rows(Fmt::Msgpack, &ty, &expected(), &mut out).unwrap();
    assert_eq!(read_rows(Fmt::Msgpack, &ty, &out).unwrap(), expected());
}

#[test]
fn cbor_by_hand() {
    let ty = FTy::of_schema(&schema()).unwrap();
    let mut b = Vec::new();
    let text = |b: &mut Vec<u8>, s: &str| {
        assert!(s.len() < 24);
        b.push(0x60 | s.len() as u8);
        b.extend_from_slice(s.as_bytes());
    };
    b.push(0xa8);
    text(&mut b, "id");
    b.push(0x01);
    text(&mut b, "ts");
    b.push(0xc0); // tag 0: RFC 3339 text
    let ts = "2024-05-17T12:30:45.123456+00:00";
    b.extend_from_slice(&[0x78, ts.len() as u8]);
    b.extend_from_slice(ts.as_bytes());
    text(&mut b, "ms");
    b.push(0x1b);
    b.extend_from_slice(&((T / 1000) as u64).to_be_bytes());
    text(&mut b, "day");
    b.extend_from_slice(&[0xd9, 0x03, 0xec]); // tag 1004: full-date text
    text(&mut b, "2024-05-17");
    text(&mut b, "price");
    b.extend_from_slice(&[0xc4, 0x82, 0x21, 0x38, 149]); // tag 4: [-2, -150]
    text(&mut b, "bin");
    b.extend_from_slice(&[0x43, 1, 0, 255]);
    text(&mut b, "tags");
    b.push(0x83);
    text(&mut b, "a");
    b.push(0xf6);
    text(&mut b, "");
    text(&mut b, "point");
    b.push(0xa2);
    text(&mut b, "x");
    b.push(0x07);
    text(&mut b, "at");
    b.push(0xc1); // tag 1: epoch seconds
    b.push(0xfb);
    b.extend_from_slice(&(-0.000001f64).to_be_bytes());
    b.push(0xa2);
    text(&mut b, "id");
    b.push(0x02);
    text(&mut b, "ts");
    b.push(0xf6);
    assert_eq!(read_rows(Fmt::Cbor, &ty, &b).unwrap(), expected());
    let mut out = Vec::new();
    write_rows(Fmt::Cbor, &ty, &expected(), &mut out).unwrap();
    assert_eq!(read_rows(Fmt::Cbor, &ty, &out).unwrap(), expected());
}

#[test]
fn cbor_floats_keep_their_width() {
    let s = Schema::new(vec![
        Field::new("d", DataType::Float64, false),
        Field::new("f", DataType::Float32, false),
    ]);
    let ty = FTy::of_schema(&s).unwrap();
    let rows = vec![Value::Struct(vec![Value::F64(-3.5), Value::F32(0.25)])];
    let mut out = Vec::new();
    write_rows(Fmt::Cbor, &ty, &rows, &mut out).unwrap();
    let mut want = vec![0xa2, 0x61, b'd', 0xfb];
    want.extend_from_slice(&(-3.5f64).to_be_bytes());
    want.extend_from_slice(&[0x61, b'f', 0xfa]);
    want.extend_from_slice(&0.25f32.to_be_bytes());
    assert_eq!(out, want);
    assert_eq!(read_rows(Fmt::Cbor, &ty, &out).unwrap(), rows);
}
