//! The `prost` subject on the three nested datasets' shapes: tables in the
//! Arrow layout serbench's Go side gives each message (messages as non-null
//! structs, repeated fields as non-null lists of non-null elements, proto3
//! optional fields nullable, enums as the dataset's strings), generated from
//! the messages' descriptors (tests/nested_pb.binpb, the descriptor set
//! serbench writes) with values from a seeded generator. Every one
//! round-trips to the digest of its source rows, through a codec and a
//! projection too; enum strings, optional nulls, submessages, -0.0, the
//! framing, the file ops and broken files; any other schema is refused at
//! setup. The binary end to end: announced only with the descriptor set.
#![cfg(feature = "subjects")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, ListArray,
    RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, Kind, MessageDescriptor};
use serbench_runner::bound::{Bound, Dataset, Decoded};
use serbench_runner::codecs::Codec;
use serbench_runner::digest::{digest_rows, leaves};
use serbench_runner::projection;
use serbench_runner::protobuf::{self, exact, ProstBound};
use serbench_runner::value::{Ty, Value};
use serde_json::{json, Value as Json};

const BIN: &str = env!("CARGO_BIN_EXE_serbench-runner");
const USEREVENTS: &str = "serbench.nested.userevents.Record";
const MEDIA: &str = "serbench.nested.media.Record";
const TPCH: &str = "serbench.nested.tpch.LineItem";
const ALL: [&str; 3] = [TPCH, MEDIA, USEREVENTS];

fn descriptors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/nested_pb.binpb")
}

fn pool() -> DescriptorPool {
    protobuf::pool_from(&std::fs::read(descriptors()).unwrap()).unwrap()
}

fn message(full: &str) -> MessageDescriptor {
    pool().get_message_by_name(full).unwrap()
}

// ------------------------------------------------------------ the data

/// The enum strings each dataset holds (dataset/nested/*: media's
/// upper-case names, userevents' lower-case families and capitalised event
/// types).
fn enum_strings(full: &str) -> &'static [&'static str] {
    match full {
        "serbench.nested.media.Player" => &["JAVA", "FLASH"],
        "serbench.nested.media.Size" => &["SMALL", "LARGE"],
        "serbench.nested.userevents.Family" => &["ios", "android", "windows"],
        "serbench.nested.userevents.EventType" => &["Listing", "Purchase", "Search", "Profile update"],
        other => panic!("enum {other}"),
    }
}

fn leaf_type(k: &Kind) -> DataType {
    match k {
        Kind::Message(m) => DataType::Struct(arrow_fields(m).into()),
        Kind::Int32 => DataType::Int32,
        Kind::Int64 => DataType::Int64,
        Kind::Double => DataType::Float64,
        Kind::Float => DataType::Float32,
        Kind::Bool => DataType::Boolean,
        Kind::String | Kind::Enum(_) => DataType::Utf8,
        Kind::Bytes => DataType::Binary,
        other => panic!("kind {other:?}"),
    }
}

/// serbench's Arrow layout of a message.
fn arrow_fields(d: &MessageDescriptor) -> Vec<Field> {
    d.fields()
        .map(|fd| {
            let t = leaf_type(&fd.kind());
            if fd.is_list() {
                Field::new(
                    fd.name(),
                    DataType::List(Arc::new(Field::new("element", t, false))),
                    false,
                )
            } else {
                let msg = matches!(fd.kind(), Kind::Message(_));
                Field::new(fd.name(), t, fd.supports_presence() && !msg)
            }
        })
        .collect()
}

/// splitmix64
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Rng {
        Rng(seed
            .bytes()
            .fold(0x9e37_79b9_7f4a_7c15, |a, b| a.rotate_left(5) ^ b as u64))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn float(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn sample_value(k: &Kind, r: &mut Rng, depth: usize, neg_zero: bool) -> Value {
    match k {
        Kind::Message(m) => sample_row(m, r, depth + 1, neg_zero),
        Kind::Int32 => {
            let x = r.below(2001) as i64 - 1000;
            Value::I64(r.pick(&[0, -1, i32::MAX as i64, i32::MIN as i64, x]))
        }
        Kind::Int64 => {
            let x = r.next() as i64 >> 23;
            Value::I64(r.pick(&[0, i64::MAX, i64::MIN, x]))
        }
        Kind::Double => {
            let x = r.float();
            let zero = if neg_zero { -0.0 } else { 0.0 };
            Value::F64(r.pick(&[0.0, zero, 1e308, x * 1e5, -x, f64::MIN_POSITIVE]))
        }
        Kind::Bool => Value::Bool(r.below(2) == 0),
        Kind::Enum(e) => Value::Str(r.pick(enum_strings(e.full_name())).to_string()),
        Kind::String => {
            let s = format!("s-{:x}", r.next() >> 40);
            Value::Str(r.pick(&["", s.as_str(), "Grüße ✓ 東京", "a\0b"]).to_string())
        }
        other => panic!("kind {other:?}"),
    }
}

fn sample_row(d: &MessageDescriptor, r: &mut Rng, depth: usize, neg_zero: bool) -> Value {
    Value::Struct(
        d.fields()
            .map(|fd| {
                let msg = matches!(fd.kind(), Kind::Message(_));
                if fd.is_list() {
                    let n = if depth > 3 { 0 } else { r.below(4) };
                    Value::List((0..n).map(|_| sample_value(&fd.kind(), r, depth, neg_zero)).collect())
                } else if fd.supports_presence() && !msg && r.below(10) < 3 {
                    Value::Null
                } else {
                    sample_value(&fd.kind(), r, depth, neg_zero)
                }
            })
            .collect(),
    )
}

/// An Arrow array of values of type dt.
fn array(dt: &DataType, vs: &[Value]) -> ArrayRef {
    let valid: Vec<bool> = vs.iter().map(|v| !matches!(v, Value::Null)).collect();
    let nulls = if valid.iter().all(|&b| b) {
        None
    } else {
        Some(NullBuffer::from(valid))
    };
    match dt {
        DataType::Int32 => Arc::new(Int32Array::from_iter(vs.iter().map(|v| match v {
            Value::I64(x) => Some(*x as i32),
            _ => None,
        }))),
        DataType::Int64 => Arc::new(Int64Array::from_iter(vs.iter().map(|v| match v {
            Value::I64(x) => Some(*x),
            _ => None,
        }))),
        DataType::Float64 => Arc::new(Float64Array::from_iter(vs.iter().map(|v| match v {
            Value::F64(x) => Some(*x),
            _ => None,
        }))),
        DataType::Float32 => Arc::new(Float32Array::from_iter(vs.iter().map(|v| match v {
            Value::F32(x) => Some(*x),
            _ => None,
        }))),
        DataType::Boolean => Arc::new(BooleanArray::from_iter(vs.iter().map(|v| match v {
            Value::Bool(x) => Some(*x),
            _ => None,
        }))),
        DataType::Utf8 => Arc::new(StringArray::from_iter(vs.iter().map(|v| match v {
            Value::Str(x) => Some(x.as_str()),
            _ => None,
        }))),
        DataType::Binary => Arc::new(BinaryArray::from_iter(vs.iter().map(|v| match v {
            Value::Bin(x) => Some(x.as_slice()),
            _ => None,
        }))),
        DataType::Struct(fs) => {
            let children = fs
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let col: Vec<Value> = vs
                        .iter()
                        .map(|v| match v {
                            Value::Struct(x) => x[i].clone(),
                            _ => Value::Null,
                        })
                        .collect();
                    array(f.data_type(), &col)
                })
                .collect();
            Arc::new(StructArray::try_new(fs.clone(), children, nulls).unwrap())
        }
        DataType::List(f) => {
            let mut lens = Vec::new();
            let mut flat = Vec::new();
            for v in vs {
                match v {
                    Value::List(xs) => {
                        lens.push(xs.len());
                        flat.extend(xs.iter().cloned());
                    }
                    _ => lens.push(0),
                }
            }
            let values = array(f.data_type(), &flat);
            Arc::new(ListArray::try_new(f.clone(), OffsetBuffer::from_lengths(lens), values, nulls).unwrap())
        }
        other => panic!("type {other}"),
    }
}

fn batch(schema: SchemaRef, rows: &[Value]) -> RecordBatch {
    let a = array(&DataType::Struct(schema.fields().clone()), rows);
    let s = a.as_any().downcast_ref::<StructArray>().unwrap();
    RecordBatch::try_new(schema, s.columns().to_vec()).unwrap()
}

/// A dataset in serbench's layout of message `full`: n generated rows in
/// two batches.
fn nested(full: &str, n: usize, neg_zero: bool) -> (Dataset, RecordBatch) {
    let d = message(full);
    let schema = Arc::new(Schema::new(arrow_fields(&d)));
    let mut r = Rng::new(&format!("{full}/{neg_zero}"));
    let rows: Vec<Value> = (0..n).map(|_| sample_row(&d, &mut r, 0, neg_zero)).collect();
    let b = batch(schema.clone(), &rows);
    let k = n / 3;
    let ds = Dataset::new(full, schema, vec![b.slice(0, k), b.slice(k, n - k)]).unwrap();
    (ds, b)
}

fn want(ds: &Dataset) -> Json {
    digest_rows(&ds.ty, &ds.rows().unwrap(), None).unwrap()
}

fn messages(d: Decoded) -> Vec<DynamicMessage> {
    match d {
        Decoded::Protobuf(ms) => ms,
        _ => panic!("not messages"),
    }
}

fn varint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out
}

// ----------------------------------------------------------- the tests

#[test]
fn round_trips_every_nested_dataset() {
    let pool = pool();
    for full in ALL {
        for neg_zero in [false, true] {
            let (ds, _) = nested(full, 80, neg_zero);
            let b = ProstBound::new(&pool, &ds).unwrap();
            assert_eq!(b.descriptor().full_name(), full); // bound to the message the schema came from
            let enc = b.encode().unwrap().as_slice().to_vec();
            assert_eq!(enc, b.encode().unwrap().as_slice());
            for codec in ["none", "zstd:3"] {
                let c = Codec::parse(codec).unwrap();
                let raw = Bytes::from(c.decompress(&c.compress(&enc).unwrap()).unwrap().into_owned());
                let d = b.decode(&raw).unwrap();
                let ms = messages(d);
                assert_eq!(ms.len(), 80);
                // the same messages (the built ones also hold the fields set
                // to their defaults, so their bytes are compared)
                let bytes = |ms: &[DynamicMessage]| -> Vec<Vec<u8>> {
                    ms.iter()
                        .map(|m| {
                            let mut v = Vec::new();
                            exact::encode(m, &mut v);
                            v
                        })
                        .collect()
                };
                assert_eq!(bytes(&ms), bytes(b.messages()), "{full}");
                let rows = b.rows(&raw, Decoded::Protobuf(ms)).unwrap();
                assert_eq!(
                    digest_rows(&ds.ty, &rows, None).unwrap(),
                    want(&ds),
                    "{full} neg_zero={neg_zero} {codec}"
                );
            }
        }
    }
}

#[test]
fn framing_is_varint_size_then_message() {
    // As Go's protodelim, Java's writeDelimitedTo and Python's
    // serialize_length_prefixed write; the exact encoder (used for -0.0)
    // gives prost-reflect's bytes for every other message.
    let pool = pool();
    for full in ALL {
        let (ds, _) = nested(full, 60, false);
        let b = ProstBound::new(&pool, &ds).unwrap();
        let enc = b.encode().unwrap().as_slice().to_vec();
        let mut pos = 0;
        for m in b.messages() {
            let body = m.encode_to_vec();
            let mut ex = Vec::new();
            exact::encode(m, &mut ex);
            assert_eq!(ex, body, "{full}: the exact encoder differs from prost-reflect");
            assert_eq!(exact::len(m), body.len());
            let head = varint(body.len() as u64);
            assert_eq!(&enc[pos..pos + head.len()], head.as_slice());
            pos += head.len();
            assert_eq!(&enc[pos..pos + body.len()], body.as_slice());
            pos += body.len();
        }
        assert_eq!(pos, enc.len());
        let e = b.decode(&Bytes::from(enc[..enc.len() - 1].to_vec())).err().unwrap();
        assert!(e.contains("runs past the end"), "{e}");
    }
}

#[test]
fn negative_zero_is_written() {
    // userevents' geo.lat and balance are implicit-presence doubles:
    // prost-reflect alone leaves -0.0 out (it compares with 0 by ==), the
    // subject writes it as Go and Java do, and it reads back with its sign.
    let pool = pool();
    let (ds, _) = nested(USEREVENTS, 3, false);
    let ty = ds.ty.clone();
    let mut rows = ds.rows().unwrap().as_ref().clone();
    let bal = ty.fields().iter().position(|f| f.name == "balance").unwrap();
    let Value::Struct(fs) = &mut rows[0] else { panic!() };
    fs[bal] = Value::F64(-0.0);
    let b = ProstBound::from_rows(&pool, &ty, &rows).unwrap();
    let m = &b.messages()[0];
    let lib = m.encode_to_vec();
    let mut ex = Vec::new();
    exact::encode(m, &mut ex);
    // field 7, wire type 1 (64-bit), then -0.0
    let mut field = vec![7 << 3 | 1];
    field.extend_from_slice(&(-0.0f64).to_le_bytes());
    assert_eq!(ex.len(), lib.len() + field.len());
    assert!(ex.windows(field.len()).any(|w| w == field.as_slice()));
    let enc = Bytes::from(b.encode().unwrap().as_slice().to_vec());
    let got = b.rows(&enc, b.decode(&enc).unwrap()).unwrap();
    let Value::Struct(g) = &got[0] else { panic!() };
    assert!(
        matches!(g[bal], Value::F64(x) if x.to_bits() == (-0.0f64).to_bits()),
        "{:?}",
        g[bal]
    );
    assert_eq!(
        digest_rows(&ty, &got, None).unwrap(),
        digest_rows(&ty, &rows, None).unwrap()
    );
    // without an implicit-presence -0.0 the bytes are prost-reflect's own
    let (ds, _) = nested(USEREVENTS, 40, false);
    assert_eq!(
        ProstBound::new(&pool, &ds).unwrap().encode().unwrap().as_slice(),
        {
            let b = ProstBound::new(&pool, &ds).unwrap();
            let mut out = Vec::new();
            for m in b.messages() {
                m.encode_length_delimited(&mut out).unwrap();
            }
            out
        }
        .as_slice()
    );
}

fn field_index(ty: &Ty, name: &str) -> usize {
    ty.fields().iter().position(|f| f.name == name).unwrap()
}

/// A userevents row with one device of family `family` and one connection
/// holding events of these types.
fn userevents_row(ty: &Ty, base: &Value, family: &str, types: &[&str]) -> Value {
    let Value::Struct(mut fs) = base.clone() else { panic!() };
    let dev_ty = match &ty.fields()[field_index(ty, "devices")].ty {
        Ty::List(e, _) => e.as_ref().clone(),
        _ => panic!(),
    };
    let conn_ty = match &dev_ty.fields()[field_index(&dev_ty, "connections")].ty {
        Ty::List(e, _) => e.as_ref().clone(),
        _ => panic!(),
    };
    let events: Vec<Value> = types
        .iter()
        .map(|t| {
            Value::Struct(vec![
                Value::Str("2024-01-01T00:00:00Z".into()),
                Value::Str(t.to_string()),
                Value::Null,
            ])
        })
        .collect();
    let mut conn = vec![Value::Null; conn_ty.fields().len()];
    conn[field_index(&conn_ty, "at")] = Value::Str("t".into());
    conn[field_index(&conn_ty, "ip")] = Value::Str("127.0.0.1".into());
    conn[field_index(&conn_ty, "referrer")] = Value::Str("".into());
    conn[field_index(&conn_ty, "geo")] = Value::Struct(vec![Value::F64(1.5), Value::F64(-2.5)]);
    conn[field_index(&conn_ty, "events")] = Value::List(events);
    let mut dev = vec![Value::Null; dev_ty.fields().len()];
    dev[field_index(&dev_ty, "mac")] = Value::Str("m".into());
    dev[field_index(&dev_ty, "family")] = Value::Str(family.into());
    dev[field_index(&dev_ty, "connections")] = Value::List(vec![Value::Struct(conn)]);
    fs[field_index(ty, "devices")] = Value::List(vec![Value::Struct(dev)]);
    Value::Struct(fs)
}

#[test]
fn enum_strings_and_numbers() {
    let pool = pool();
    let (ds, _) = nested(USEREVENTS, 5, false);
    let ty = ds.ty.clone();
    let base = ds.rows().unwrap()[0].clone();
    let rows = vec![
        userevents_row(&ty, &base, "ios", &["Profile update", "Listing"]),
        userevents_row(&ty, &base, "android", &["Purchase"]),
    ];
    let b = ProstBound::from_rows(&pool, &ty, &rows).unwrap();
    assert_eq!(
        b.enum_string("serbench.nested.userevents.EventType", 3),
        Some("Profile update")
    );
    assert_eq!(
        b.enum_string("serbench.nested.userevents.EventType", 0),
        Some("Listing")
    );
    assert_eq!(b.enum_string("serbench.nested.userevents.Family", 0), Some("ios"));
    assert_eq!(b.enum_string("serbench.nested.userevents.Family", 1), Some("android"));
    assert_eq!(b.enum_string("serbench.nested.userevents.EventType", 2), None);
    // the wire holds the numbers: ios = 0, Profile update = 3, Listing = 0
    let m = &b.messages()[0];
    let dev = m.get_field_by_name("devices").unwrap();
    let dev = dev.as_list().unwrap()[0].as_message().unwrap().clone();
    assert_eq!(dev.get_field_by_name("family").unwrap().as_enum_number(), Some(0));
    let conn = dev.get_field_by_name("connections").unwrap().as_list().unwrap()[0]
        .as_message()
        .unwrap()
        .clone();
    let types: Vec<i32> = conn
        .get_field_by_name("events")
        .unwrap()
        .as_list()
        .unwrap()
        .iter()
        .map(|e| {
            e.as_message()
                .unwrap()
                .get_field_by_name("type")
                .unwrap()
                .as_enum_number()
                .unwrap()
        })
        .collect();
    assert_eq!(types, [3, 0]);
    let enc = Bytes::from(b.encode().unwrap().as_slice().to_vec());
    let got = b.rows(&enc, b.decode(&enc).unwrap()).unwrap();
    assert_eq!(got, rows);
    // a number the dataset never held reads as the value's name
    let other = ProstBound::from_rows(
        &pool,
        &ty,
        &[userevents_row(&ty, &base, "windows", &["Search", "Profile update"])],
    )
    .unwrap();
    let enc = Bytes::from(other.encode().unwrap().as_slice().to_vec());
    let got = b.rows(&enc, b.decode(&enc).unwrap()).unwrap();
    assert_eq!(
        got[0],
        userevents_row(&ty, &base, "WINDOWS", &["SEARCH", "Profile update"])
    );
    // a string of no value, and two strings of one value
    let e = ProstBound::from_rows(&pool, &ty, &[userevents_row(&ty, &base, "beos", &[])])
        .err()
        .unwrap();
    assert!(e.contains("\"beos\" is no value of enum Family"), "{e}");
    let e = ProstBound::from_rows(
        &pool,
        &ty,
        &[userevents_row(&ty, &base, "ios", &["Profile update", "PROFILE_UPDATE"])],
    )
    .err()
    .unwrap();
    assert!(e.contains("are both PROFILE_UPDATE"), "{e}");
    assert_eq!(protobuf::enum_key("Profile update"), "PROFILE_UPDATE");
    assert_eq!(protobuf::enum_key("ios"), "IOS");
}

#[test]
fn optional_fields_and_submessages() {
    // proto3 optional: null is absent, a set "" is written and reads back
    // as "" (not null); a submessage is always written, an empty one too;
    // a missing submessage reads as null.
    let pool = pool();
    let (ds, _) = nested(USEREVENTS, 3, false);
    let ty = ds.ty.clone();
    let about = field_index(&ty, "about");
    let personal = field_index(&ty, "personal");
    let Value::Struct(base) = ds.rows().unwrap()[0].clone() else {
        panic!()
    };
    let mut a = base.clone();
    a[about] = Value::Null;
    let mut b0 = base.clone();
    b0[about] = Value::Str("".into());
    // an all-default Personal: optional strings null, the rest "" / 0, an
    // empty Address
    let pty = &ty.fields()[personal].ty;
    let mut p = Vec::new();
    for f in pty.fields() {
        p.push(match (&f.ty, f.nullable) {
            (_, true) => Value::Null,
            (Ty::Struct(fs), _) => Value::Struct(vec![Value::Str("".into()); fs.len()]),
            (Ty::Int(_), _) => Value::I64(0),
            _ => Value::Str("".into()),
        });
    }
    let mut c = base.clone();
    c[personal] = Value::Struct(p);
    let rows = vec![Value::Struct(a), Value::Struct(b0), Value::Struct(c)];
    let b = ProstBound::from_rows(&pool, &ty, &rows).unwrap();
    let about_fd = b.descriptor().get_field_by_name("about").unwrap();
    let personal_fd = b.descriptor().get_field_by_name("personal").unwrap();
    assert!(!b.messages()[0].has_field(&about_fd));
    assert!(b.messages()[1].has_field(&about_fd));
    // field 3, length-delimited, size 0
    assert!(b.messages()[1].encode_to_vec().windows(2).any(|w| w == [3 << 3 | 2, 0]));
    // field 11: an empty Personal but for its empty Address (field 10, size 0)
    assert!(b.messages()[2]
        .encode_to_vec()
        .windows(3)
        .any(|w| w == [11 << 3 | 2, 2, 10 << 3 | 2]));
    let enc = Bytes::from(b.encode().unwrap().as_slice().to_vec());
    let got = b.rows(&enc, b.decode(&enc).unwrap()).unwrap();
    assert_eq!(got, rows);
    // events' optional amount: null and 0.0 stay apart (the generator has both)
    let (ds, _) = nested(USEREVENTS, 80, false);
    let bd = ProstBound::new(&pool, &ds).unwrap();
    let enc = Bytes::from(bd.encode().unwrap().as_slice().to_vec());
    assert_eq!(bd.rows(&enc, bd.decode(&enc).unwrap()).unwrap(), *ds.rows().unwrap());
    // a message without its submessage: personal is null
    let mut m = b.messages()[0].clone();
    m.clear_field(&personal_fd);
    let mut bytes = Vec::new();
    m.encode_length_delimited(&mut bytes).unwrap();
    let bytes = Bytes::from(bytes);
    let got = b.rows(&bytes, b.decode(&bytes).unwrap()).unwrap();
    let Value::Struct(g) = &got[0] else { panic!() };
    assert_eq!(g[personal], Value::Null);
}

#[test]
fn query_is_decode_then_projection() {
    let pool = pool();
    for full in ALL {
        let (ds, _) = nested(full, 50, false);
        let mut b: Box<dyn Bound> = Box::new(ProstBound::new(&pool, &ds).unwrap());
        let enc = Bytes::from(b.encode().unwrap().as_slice().to_vec());
        let ls: Vec<String> = leaves(&ds.ty).unwrap().into_iter().map(|l| l.path).collect();
        let every_third: Vec<String> = ls.iter().skip(1).step_by(3).cloned().collect();
        for q in [ls[0].clone(), every_third.join(","), ls.last().unwrap().clone()] {
            let p = projection::parse(&q, &ds.ty).unwrap();
            b.prepare_query(&p).unwrap();
            let want = digest_rows(&ds.ty, &ds.rows().unwrap(), Some(&p.leaves)).unwrap();
            let rows = match b.query(&enc, &p).unwrap() {
                Decoded::Rows(r) => r,
                _ => panic!("not rows"),
            };
            assert_eq!(digest_rows(&p.ty, &rows, Some(&p.leaves)).unwrap(), want, "{full}: {q}");
        }
    }
}

#[test]
fn refuses_other_schemas() {
    let pool = pool();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
    ]));
    let mut id = Int64Builder::new();
    let mut name = StringBuilder::new();
    id.append_value(1);
    name.append_value("a");
    let b = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(id.finish()) as ArrayRef, Arc::new(name.finish())],
    )
    .unwrap();
    let ds = Dataset::new("other", schema, vec![b]).unwrap();
    let e = ProstBound::new(&pool, &ds).err().unwrap();
    assert!(
        e.contains("binds only to the nested datasets tpch (LineItem), media (Record), userevents (Record)"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    // a nested schema with one column less, or of another kind
    let (media, _) = nested(MEDIA, 3, false);
    let mut fs: Vec<Field> = media.schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fs.remove(2);
    let ty = Ty::of_schema(&Schema::new(fs.clone())).unwrap();
    let e = ProstBound::from_rows(&pool, &ty, &[]).err().unwrap();
    assert!(e.contains("Record has 3 fields, the dataset 2"), "{e}");
    fs[0] = Field::new("id", DataType::Utf8, false);
    fs.push(media.schema.field(2).clone());
    let ty = Ty::of_schema(&Schema::new(fs)).unwrap();
    let e = ProstBound::from_rows(&pool, &ty, &[]).err().unwrap();
    assert!(
        e.contains("serbench.nested.media.Record: id is int64, the dataset's column is str"),
        "{e}"
    );
    // a struct in place of a list
    let mut fs: Vec<Field> = media.schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fs[2] = Field::new("images", DataType::Struct(Fields::empty()), false);
    let ty = Ty::of_schema(&Schema::new(fs)).unwrap();
    let e = ProstBound::from_rows(&pool, &ty, &[]).err().unwrap();
    assert!(e.contains("images is repeated"), "{e}");
    // the descriptor set must hold the three messages
    assert!(protobuf::pool_from(b"\x0a\x03abc").is_err());
    assert!(protobuf::pool_from(b"")
        .unwrap_err()
        .contains("no message serbench.nested.tpch.LineItem"));
}

#[test]
fn broken_records_are_errors() {
    let pool = pool();
    let (ds, _) = nested(MEDIA, 20, false);
    let b = ProstBound::new(&pool, &ds).unwrap();
    let enc = b.encode().unwrap().as_slice().to_vec();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (enc[..enc.len() - 1].to_vec(), "runs past the end"),
        ([enc.as_slice(), b"\x80"].concat(), "truncated record length"),
        (
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01".to_vec(),
            "bad record length",
        ),
        (b"\xff\xff\xff\xff\x0f\x01\x02".to_vec(), "runs past the end"),
        (
            [enc.as_slice(), b"\x05\xff\xff\xff\xff\xff"].concat(),
            "record 20 at offset",
        ),
        (b"\x02\x0a\x05".to_vec(), "record 0 at offset 1"),
    ];
    for (bytes, want) in cases {
        let e = b.decode(&Bytes::from(bytes)).err().unwrap();
        assert!(e.contains(want), "{e} (want {want})");
        assert!(!e.contains('\n'));
    }
    assert!(messages(b.decode(&Bytes::new()).unwrap()).is_empty());
}

// ------------------------------------------------- the binary end to end

fn write_stream(path: &Path, b: &RecordBatch) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = std::fs::File::create(path).unwrap();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(f, &b.schema()).unwrap();
    let k = b.num_rows() / 2;
    w.write(&b.slice(0, k)).unwrap();
    w.write(&b.slice(k, b.num_rows() - k)).unwrap();
    w.finish().unwrap();
}

fn work(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("serbench-rust-prost-e2e-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    std::fs::write(
        dir.join("run.json"),
        json!({"protocol": 1, "run_id": "t", "benchtime_ns": 1_000_000, "max_iters": 1_000_000_000u64, "count": 2, "seed": 1}).to_string(),
    )
    .unwrap();
    dir
}

fn case(id: &str, op: &str, dataset: &str, codec: &str, query: &str, path: &str) -> Json {
    json!({"id": id, "group": "", "subject": "prost", "role": "subject", "op": op, "dataset": dataset,
           "codec": codec, "query": query, "count": 1, "min_count": 1, "budget_ns": 0, "per_round": 0,
           "no_warmup": false, "limit_of": "", "path": path, "params": {}})
}

fn run(dir: &Path, cases: &[Json], descriptors: Option<&Path>) -> (i32, Vec<Json>, String) {
    let lines: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.join("cases.jsonl"), lines.join("\n") + "\n").unwrap();
    let mut c = Command::new(BIN);
    c.args(["run", "--protocol", "1", "--work", dir.to_str().unwrap()])
        .current_dir(dir)
        .stdin(Stdio::null());
    match descriptors {
        Some(p) => c.env(protobuf::ENV, p),
        None => c.env_remove(protobuf::ENV),
    };
    let out = c.output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn hello(descriptors: Option<&Path>) -> (Vec<Json>, String) {
    let mut c = Command::new(BIN);
    c.args(["hello", "--protocol", "1"]).stdin(Stdio::null());
    match descriptors {
        Some(p) => c.env(protobuf::ENV, p),
        None => c.env_remove(protobuf::ENV),
    };
    let out = c.output().unwrap();
    let l: Json = serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().next().unwrap()).unwrap();
    (
        l["subjects"].as_array().unwrap().clone(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn announced_only_with_the_descriptors() {
    let (subs, _) = hello(Some(&descriptors()));
    let pb: Vec<&Json> = subs.iter().filter(|s| s["name"] == "prost").collect();
    assert_eq!(pb.len(), 1);
    let pb = pb[0];
    assert_eq!(pb["format"], "protobuf");
    assert_eq!(pb["library"], "prost-reflect");
    assert_eq!(pb["version"], "0.16.5");
    assert_eq!(pb["ops"], json!(["encode", "decode", "query", "export", "import"]));
    assert_eq!(pb["labels"]["codegen"], "no");
    assert_eq!(
        pb["labels"]["model"],
        "prost-reflect DynamicMessage over the nested .proto descriptors"
    );
    assert_eq!(pb["labels"]["framing"], "length-delimited records");
    assert_eq!(
        pb["labels"]["schemas"],
        "tpch LineItem, media Record, userevents Record"
    );
    let (subs, err) = hello(None);
    assert!(!subs.iter().any(|s| s["name"] == "prost"));
    assert!(subs.iter().any(|s| s["name"] == "serde_json"));
    assert!(
        err.contains("subject prost not available: $SERBENCH_PROTOBUF_DESCRIPTORS is not set"),
        "{err}"
    );
    let (subs, err) = hello(Some(Path::new("/nonexistent/nested-pb.binpb")));
    assert!(!subs.iter().any(|s| s["name"] == "prost"));
    assert!(
        err.contains("no descriptor set at /nonexistent/nested-pb.binpb"),
        "{err}"
    );
}

#[test]
fn runs_end_to_end() {
    // every dataset: encode, a zstd decode, an lz4 query verify against
    // the digest of the rows arrow-rs reads; export, import of a file
    // written as protodelim writes it, truncated, garbage and empty files
    // (ok:false, one line); another dataset is a setup error.
    let dir = work("run");
    let mut cases = Vec::new();
    let mut expect = Vec::new();
    for (k, full) in ALL.iter().enumerate() {
        let name = format!("nested-{k}");
        let (ds, b) = nested(full, 30, k == 2);
        write_stream(&dir.join(format!("datasets/{name}/data.arrows")), &b);
        let read = Dataset::read(&name, &dir.join(format!("datasets/{name}/data.arrows"))).unwrap();
        let rows = read.rows().unwrap();
        let full_digest = digest_rows(&read.ty, &rows, None).unwrap();
        let first = leaves(&read.ty).unwrap()[0].path.clone();
        let last = leaves(&read.ty).unwrap().last().unwrap().path.clone();
        let q = format!("{first},{last}");
        let p = projection::parse(&q, &read.ty).unwrap();
        let part = digest_rows(&read.ty, &rows, Some(&p.leaves)).unwrap();
        // the file as a plain writer of delimited messages writes it
        let bound = ProstBound::new(&pool(), &ds).unwrap();
        let mut good = Vec::new();
        for m in bound.messages() {
            if k == 2 {
                exact::encode_delimited(m, &mut good);
            } else {
                m.encode_length_delimited(&mut good).unwrap();
            }
        }
        std::fs::write(dir.join(format!("tmp/{name}.go.binpb")), &good).unwrap();
        std::fs::write(dir.join(format!("tmp/{name}.cut.binpb")), &good[..good.len() - 3]).unwrap();
        std::fs::write(
            dir.join(format!("tmp/{name}.junk.binpb")),
            b"\xff\xff\xff\xff\x0f\x01\x02",
        )
        .unwrap();
        std::fs::write(dir.join(format!("tmp/{name}.empty.binpb")), b"").unwrap();
        cases.push(case(&format!("{name}/encode"), "encode", &name, "", "", ""));
        cases.push(case(&format!("{name}/decode"), "decode", &name, "zstd:3", "", ""));
        cases.push(case(&format!("{name}/query"), "query", &name, "lz4", &q, ""));
        let out = format!("tmp/{name}.rust.binpb");
        cases.push(case(&format!("{name}/export"), "export", &name, "", "", &out));
        cases.push(case(
            &format!("{name}/import"),
            "import",
            &name,
            "",
            "",
            &format!("tmp/{name}.go.binpb"),
        ));
        cases.push(case(&format!("{name}/import-own"), "import", &name, "", "", &out));
        for bad in ["cut", "junk", "empty"] {
            cases.push(case(
                &format!("{name}/{bad}"),
                "import",
                &name,
                "",
                "",
                &format!("tmp/{name}.{bad}.binpb"),
            ));
        }
        expect.push((name, full_digest, part, good));
    }
    // a dataset of another schema
    let other = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    let ob = RecordBatch::try_new(other, vec![Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef]).unwrap();
    write_stream(&dir.join("datasets/other/data.arrows"), &ob);
    cases.push(case("other/decode", "decode", "other", "", "", ""));
    cases.push(case("other/export", "export", "other", "", "", "tmp/other.binpb"));
    let (code, lines, err) = run(&dir, &cases, Some(&descriptors()));
    assert_eq!(code, 0, "{err}");
    let v = |id: &str| -> &Json {
        lines
            .iter()
            .find(|l| l["type"] == "verify" && l["case"] == id)
            .unwrap_or_else(|| panic!("no verify line for {id}: {lines:?}"))
    };
    for (name, full, part, good) in &expect {
        for op in ["encode", "decode", "export", "import", "import-own"] {
            let l = v(&format!("{name}/{op}"));
            assert_eq!(l["ok"], true, "{l}");
            assert_eq!(&l["digest"], full, "{name}/{op}");
        }
        assert_eq!(v(&format!("{name}/encode"))["encoded_bytes"], good.len());
        assert_eq!(v(&format!("{name}/export"))["encoded_bytes"], good.len());
        assert_eq!(
            &std::fs::read(dir.join(format!("tmp/{name}.rust.binpb"))).unwrap(),
            good
        );
        let l = v(&format!("{name}/query"));
        assert_eq!(l["ok"], true, "{l}");
        assert_eq!(&l["digest"], part, "{name}/query");
        for bad in ["cut", "junk", "empty"] {
            let l = v(&format!("{name}/{bad}"));
            assert_eq!(l["ok"], false, "{l}");
            let r = l["reason"].as_str().unwrap();
            assert!(r.starts_with("import (read) failed: "), "{r}");
            assert!(!r.contains('\n'));
        }
        let r = v(&format!("{name}/empty"))["reason"].as_str().unwrap().to_string();
        assert!(r.contains("read 0 rows, want 30"), "{r}");
        let r = v(&format!("{name}/cut"))["reason"].as_str().unwrap().to_string();
        assert!(r.contains("runs past the end"), "{r}");
    }
    let errs: Vec<&Json> = lines.iter().filter(|l| l["type"] == "error").collect();
    assert_eq!(errs.len(), 2, "{errs:?}");
    for e in errs {
        assert_eq!(e["phase"], "setup");
        assert!(e["message"]
            .as_str()
            .unwrap()
            .contains("tpch (LineItem), media (Record), userevents (Record)"));
    }
    assert!(lines.iter().filter(|l| l["type"] == "sample").count() >= 9);
    let end = lines.last().unwrap();
    assert_eq!(end["cases"], cases.len());
    assert_eq!(end["failed"], 3 * 3 + 2);
    // without the descriptors the subject is unknown: setup errors
    let (code, lines, _) = run(&dir, &cases[..1], None);
    assert_eq!(code, 0);
    assert!(lines[1]["message"].as_str().unwrap().contains("unknown subject prost"));
    let _ = std::fs::remove_dir_all(&dir);
}
