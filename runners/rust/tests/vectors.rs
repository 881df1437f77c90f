//! The digest test vectors (docs/runner-protocol.md §8,
//! digest/testdata/*.json): each vector's rows built as native values
//! through its schema, digested, and compared with the expected digests;
//! `equal_columns` checked. Then every row subject round-trips the vector
//! and the digest of its decoded values must be the same.
#![cfg(feature = "subjects")]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use serbench_runner::bound::{Bound, Decoded};
use serbench_runner::digest::digest_rows;
use serbench_runner::projection;
use serbench_runner::value::{plain_decimal, unscaled_i128, Field, IntKind, Ty, Value};
use serde_json::Value as Json;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../digest/testdata")
}

/// A vector type and, for temporal types, the unit's divisor/multiplier.
#[derive(Clone, Debug)]
enum VT {
    Ty(Ty),
    Ts(i64, i64), // multiply, then floor-divide
    F32,
    List(Box<VT>),
    Struct(Vec<(String, VT, bool)>),
}

fn parse_type(t: &Json) -> VT {
    if let Some(s) = t.as_str() {
        return match s {
            "bool" => VT::Ty(Ty::Bool),
            "int8" => VT::Ty(Ty::Int(IntKind::Plain(8))),
            "int16" => VT::Ty(Ty::Int(IntKind::Plain(16))),
            "int32" => VT::Ty(Ty::Int(IntKind::Plain(32))),
            "int64" => VT::Ty(Ty::Int(IntKind::Plain(64))),
            "uint8" | "uint16" | "uint32" | "uint64" => VT::Ty(Ty::UInt(64)),
            "float32" => VT::F32,
            "float64" => VT::Ty(Ty::F64),
            "string" | "large_string" => VT::Ty(Ty::Str),
            "binary" => VT::Ty(Ty::Bin),
            "date32" => VT::Ty(Ty::Int(IntKind::Date)),
            "timestamp[s]" => VT::Ts(1_000_000, 1),
            "timestamp[ms]" => VT::Ts(1000, 1),
            "timestamp[us]" => VT::Ts(1, 1),
            "timestamp[ns]" => VT::Ts(1, 1000),
            d if d.starts_with("decimal128(") => {
                let inner = &d["decimal128(".len()..d.len() - 1];
                let (p, s) = inner.split_once(',').unwrap();
                VT::Ty(Ty::Decimal(p.trim().parse().unwrap(), s.trim().parse().unwrap()))
            }
            other => panic!("unknown type {other}"),
        };
    }
    let o = t.as_object().unwrap();
    if let Some(e) = o.get("list").or(o.get("large_list")).or(o.get("fixed_size_list")) {
        return VT::List(Box::new(parse_type(e)));
    }
    if let Some(fs) = o.get("struct") {
        return VT::Struct(parse_fields(fs));
    }
    if let Some(v) = o.get("dictionary") {
        return parse_type(v);
    }
    panic!("unknown type {t}")
}

fn parse_fields(fs: &Json) -> Vec<(String, VT, bool)> {
    fs.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                parse_type(&f["type"]),
                f.get("nullable").and_then(|n| n.as_bool()).unwrap_or(true),
            )
        })
        .collect()
}

fn ty_of(v: &VT) -> Ty {
    match v {
        VT::Ty(t) => t.clone(),
        VT::Ts(_, _) => Ty::Int(IntKind::Timestamp),
        VT::F32 => Ty::F32,
        VT::List(e) => Ty::List(Box::new(ty_of(e)), true),
        VT::Struct(fs) => Ty::Struct(
            fs.iter()
                .map(|(n, t, nl)| Field {
                    name: n.clone(),
                    ty: ty_of(t),
                    nullable: *nl,
                })
                .collect(),
        ),
    }
}

fn float(v: &Json, bits32: bool) -> f64 {
    if let Some(s) = v.as_str() {
        if let Some(h) = s.strip_prefix("bits:") {
            let x = u64::from_str_radix(h, 16).unwrap();
            return if bits32 {
                f32::from_bits(x as u32) as f64
            } else {
                f64::from_bits(x)
            };
        }
        return match s {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            "-0.0" => -0.0,
            o => o.parse().unwrap(),
        };
    }
    v.as_f64().unwrap()
}

fn value(v: &Json, t: &VT) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match t {
        VT::Ts(m, d) => Value::I64((v.as_i64().unwrap() * m).div_euclid(*d)),
        VT::F32 => Value::F32(float(v, true) as f32),
        VT::List(e) => Value::List(v.as_array().unwrap().iter().map(|x| value(x, e)).collect()),
        VT::Struct(fs) => Value::Struct(fs.iter().map(|(n, ft, _)| value(&v[n], ft)).collect()),
        VT::Ty(ty) => match ty {
            Ty::Bool => Value::Bool(v.as_bool().unwrap()),
            Ty::Int(_) => Value::I64(v.as_i64().unwrap()),
            Ty::UInt(_) => Value::U64(v.as_u64().unwrap()),
            Ty::F64 => Value::F64(float(v, false)),
            Ty::Str => Value::Str(v.as_str().unwrap().to_string()),
            Ty::Bin => {
                let h = v.as_str().unwrap();
                Value::Bin(
                    (0..h.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                        .collect(),
                )
            }
            Ty::Decimal(_, s) => {
                let u = unscaled_i128(v.as_str().unwrap(), *s).unwrap();
                Value::Str(plain_decimal(&u.to_string(), *s))
            }
            other => panic!("{other:?}"),
        },
    }
}

struct Vector {
    name: String,
    ty: Ty,
    rows: Vec<Value>,
    doc: Json,
}

fn vectors() -> Vec<Vector> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir())
        .expect("digest/testdata")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for p in files {
        if p.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let fields = parse_fields(&doc["schema"]);
        let vt = VT::Struct(fields);
        let rows = doc["rows"].as_array().unwrap().iter().map(|r| value(r, &vt)).collect();
        out.push(Vector {
            name: p.file_name().unwrap().to_string_lossy().into(),
            ty: ty_of(&vt),
            rows,
            doc,
        });
    }
    assert!(out.len() >= 7, "found {} vectors", out.len());
    out
}

fn columns(d: &Json) -> BTreeMap<String, String> {
    d["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["digest"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_vector() {
    for v in vectors() {
        let d = digest_rows(&v.ty, &v.rows, None).unwrap();
        let got = columns(&d);
        let want: BTreeMap<String, String> = v.doc["columns"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, x)| (k.clone(), x.as_str().unwrap().to_string()))
            .collect();
        assert_eq!(got, want, "{}: columns", v.name);
        assert_eq!(d["table"], v.doc["table"], "{}: table", v.name);
        assert_eq!(d["rows"].as_u64().unwrap() as usize, v.rows.len());
        if let Some(groups) = v.doc.get("equal_columns").and_then(|g| g.as_array()) {
            for g in groups {
                let ps: Vec<&str> = g.as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
                for p in &ps[1..] {
                    assert_eq!(got[ps[0]], got[*p], "{}: {} = {}", v.name, ps[0], p);
                }
            }
        }
    }
}

#[test]
fn worked_example() {
    let ty = Ty::Struct(vec![
        Field {
            name: "id".into(),
            ty: Ty::Int(IntKind::Plain(64)),
            nullable: true,
        },
        Field {
            name: "tags".into(),
            ty: Ty::List(Box::new(Ty::Str), true),
            nullable: true,
        },
    ]);
    let rows = vec![
        Value::Struct(vec![
            Value::I64(7),
            Value::List(vec![Value::Str("a".into()), Value::Str("".into())]),
        ]),
        Value::Struct(vec![Value::Null, Value::Null]),
    ];
    let d = digest_rows(&ty, &rows, None).unwrap();
    let c = columns(&d);
    assert_eq!(c["id"], "1b6adcc983ad40868b3d1949eeaf3603");
    assert_eq!(c["tags.[]"], "0dcc16f7a897b8ef8c0d1b617f194d02");
    assert_eq!(d["table"], "6b7ca86f5258e5bd6afcf20fa2fbc1dd");
}

/// Row subjects bound straight to a vector's values (no Arrow file).
fn row_subjects(ty: &Ty, rows: &[Value]) -> Vec<(&'static str, Box<dyn Bound>)> {
    serbench_runner::subjects::testing::row_bounds(Arc::new(ty.clone()), Arc::new(rows.to_vec()))
}

#[test]
fn subjects_round_trip_vectors() {
    for v in vectors() {
        let want = digest_rows(&v.ty, &v.rows, None).unwrap();
        for (name, b) in row_subjects(&v.ty, &v.rows) {
            let enc = b.encode().unwrap_or_else(|e| panic!("{}/{name}: encode: {e}", v.name));
            let bytes = Bytes::copy_from_slice(enc.as_slice());
            let d = b
                .decode(&bytes)
                .unwrap_or_else(|e| panic!("{}/{name}: decode: {e}", v.name));
            let rows = b.rows(&bytes, d).unwrap();
            let got = digest_rows(&v.ty, &rows, None).unwrap();
            // JSON writes NaN and infinities as null; Avro, CBOR and the
            // binary formats keep them.
            if v.name == "floats_special.json" && (name == "serde_json" || name == "simd-json") {
                assert_ne!(got["table"], want["table"], "{}/{name}", v.name);
                continue;
            }
            assert_eq!(got, want, "{}/{name}", v.name);
        }
    }
}

#[test]
fn queries_project() {
    let v = vectors().into_iter().find(|v| v.name == "structs.json").unwrap();
    let leaves = serbench_runner::digest::leaves(&v.ty).unwrap();
    let first = leaves[0].path.clone();
    let last = leaves.last().unwrap().path.clone();
    let q = format!("{first},{last}");
    let p = projection::parse(&q, &v.ty).unwrap();
    let want = digest_rows(&v.ty, &v.rows, Some(&p.leaves)).unwrap();
    for (name, mut b) in row_subjects(&v.ty, &v.rows) {
        if name.starts_with("rkyv") {
            continue;
        }
        b.prepare_query(&p).unwrap();
        let bytes = Bytes::from(b.encode().unwrap().as_slice().to_vec());
        let d = b.query(&bytes, &p).unwrap_or_else(|e| panic!("{name}: query: {e}"));
        let rows = match d {
            Decoded::Rows(r) => r,
            _ => panic!("{name}: not rows"),
        };
        let got = digest_rows(&p.ty, &rows, Some(&p.leaves)).unwrap();
        assert_eq!(got, want, "{name}: query {q}");
    }
}
