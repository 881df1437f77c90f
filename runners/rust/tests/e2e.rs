//! The binary as serbench starts it: a work directory with an Arrow IPC
//! stream of mixed types, cases.jsonl, and the protocol lines read back.
#![cfg(feature = "subjects")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::types::*;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use serbench_runner::bound::Dataset;
use serbench_runner::digest::digest_rows;
use serde_json::{json, Value as Json};

const BIN: &str = env!("CARGO_BIN_EXE_serbench-runner");

fn batch(n: usize) -> RecordBatch {
    let item = Fields::from(vec![
        Field::new("sku", DataType::Utf8, true),
        Field::new("qty", DataType::Int32, true),
        Field::new("price", DataType::Decimal128(10, 2), true),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        Field::new("u", DataType::UInt64, true),
        Field::new("d", DataType::Date32, true),
        Field::new("f", DataType::Float32, true),
        Field::new("bin", DataType::Binary, true),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new(
            "items",
            DataType::List(Arc::new(Field::new("item", DataType::Struct(item.clone()), true))),
            true,
        ),
        Field::new(
            "dict",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
    ]));
    let mut id = Int64Builder::new();
    let mut name = StringBuilder::new();
    let mut ts = PrimitiveBuilder::<TimestampNanosecondType>::new().with_timezone("UTC");
    let mut u = UInt64Builder::new();
    let mut d = Date32Builder::new();
    let mut f = Float32Builder::new();
    let mut bin = BinaryBuilder::new();
    let mut tags = ListBuilder::new(StringBuilder::new());
    let sb = StructBuilder::from_fields(item.clone(), 0);
    let mut items = ListBuilder::new(sb);
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    for i in 0..n {
        let i64v = i as i64;
        id.append_value(i64v);
        if i % 5 == 0 {
            name.append_null()
        } else {
            name.append_value(format!("név {i} ✓"))
        }
        ts.append_value(-1_500 + i64v * 1_000_000_123);
        u.append_value(if i % 3 == 0 { u64::MAX - i as u64 } else { i as u64 });
        d.append_value(-3 + i as i32);
        f.append_value(i as f32 * 0.25);
        if i % 4 == 0 {
            bin.append_null()
        } else {
            bin.append_value([i as u8, 0, 255])
        }
        if i % 6 == 0 {
            tags.append(false);
        } else {
            for k in 0..(i % 3) {
                tags.values().append_value(format!("t{k}"));
            }
            tags.append(true);
        }
        let s = items.values();
        for k in 0..(i % 3) {
            s.field_builder::<StringBuilder>(0)
                .unwrap()
                .append_value(format!("s{k}"));
            if k == 1 {
                s.field_builder::<Int32Builder>(1).unwrap().append_null();
            } else {
                s.field_builder::<Int32Builder>(1).unwrap().append_value(k as i32);
            }
            s.field_builder::<Decimal128Builder>(2)
                .unwrap()
                .append_value(-150 + (i * 37 + k) as i128);
            s.append(true);
        }
        items.append(i % 7 != 3);
        if i % 9 == 0 {
            dict.append_null()
        } else {
            dict.append_value(["a", "b", "c"][i % 3])
        }
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(ts.finish()),
        Arc::new(u.finish()),
        Arc::new(d.finish()),
        Arc::new(f.finish()),
        Arc::new(bin.finish()),
        Arc::new(tags.finish()),
        Arc::new(items.finish()),
        Arc::new(dict.finish()),
    ];
    RecordBatch::try_new(schema, cols).unwrap()
}

fn work(cases: &[Json], benchtime_ns: u64) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("serbench-rust-e2e-{}-{k}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("datasets/mixed-40")).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    let b = batch(40);
    let f = std::fs::File::create(dir.join("datasets/mixed-40/data.arrows")).unwrap();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(f, &b.schema()).unwrap();
    // two batches: the digest must not depend on the split
    w.write(&b.slice(0, 15)).unwrap();
    w.write(&b.slice(15, 25)).unwrap();
    w.finish().unwrap();
    std::fs::write(
        dir.join("run.json"),
        json!({"protocol": 1, "run_id": "t", "benchtime_ns": benchtime_ns, "max_iters": 1_000_000_000u64, "count": 2, "seed": 1}).to_string(),
    )
    .unwrap();
    let lines: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.join("cases.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

fn case(id: &str, group: &str, subject: &str, op: &str, codec: &str, query: &str, count: u64) -> Json {
    json!({"id": id, "group": group, "subject": subject, "role": "subject", "op": op, "dataset": "mixed-40",
           "size": 40, "codec": codec, "query": query, "count": count, "min_count": 1, "budget_ns": 0,
           "per_round": 0, "no_warmup": false, "limit_of": "", "params": {}})
}

fn run(args: &[&str], dir: Option<&Path>) -> (i32, Vec<Json>) {
    let mut c = Command::new(BIN);
    // The mixed dataset is no nested one: without the descriptor set the
    // prost subject is not announced (tests/prost.rs runs it).
    c.args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .env_remove("SERBENCH_PROTOBUF_DESCRIPTORS");
    if let Some(d) = dir {
        c.current_dir(d);
    }
    let out = c.output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

fn expected(only: Option<&BTreeSet<String>>) -> Json {
    let dir = work(&[], 1);
    let ds = Dataset::read("mixed-40", &dir.join("datasets/mixed-40/data.arrows")).unwrap();
    let rows = ds.rows().unwrap();
    digest_rows(&ds.ty, &rows, only).unwrap()
}

fn subjects() -> Vec<(String, Vec<String>)> {
    let (code, lines) = run(&["hello", "--protocol", "1"], None);
    assert_eq!(code, 0);
    lines[0]["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["ops"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn hello_and_usage() {
    let (code, lines) = run(&["hello", "--protocol", "1"], None);
    assert_eq!(code, 0);
    assert_eq!(lines[0]["type"], "hello");
    assert_eq!(lines[0]["language"], "rust");
    assert_eq!(lines[0]["alloc"], "process");
    assert_eq!(lines.last().unwrap()["type"], "end");
    let (code, lines) = run(&["hello", "--protocol", "2"], None);
    assert_eq!(code, 2);
    assert!(lines[1]["message"].as_str().unwrap().contains("protocol 2 requested"));
    let (code, _) = run(&[], None);
    assert_eq!(code, 2);
    let (code, lines) = run(&["run", "--protocol", "1", "--work", "/nonexistent/serbench"], None);
    assert_eq!(code, 1);
    assert_eq!(lines[1]["type"], "error");
    assert!(lines[1].get("case").is_none());
    assert_eq!(lines.last().unwrap()["type"], "end");
}

#[test]
fn every_subject_round_trips() {
    let q = "id,items.[].price,tags";
    let mut cases = Vec::new();
    for (s, ops) in subjects() {
        cases.push(case(&format!("{s}/encode"), "", &s, "encode", "", "", 1));
        cases.push(case(&format!("{s}/decode/zstd"), "", &s, "decode", "zstd:3", "", 1));
        if ops.iter().any(|o| o == "query") {
            cases.push(case(&format!("{s}/query"), "", &s, "query", "lz4", q, 1));
        }
    }
    let dir = work(&cases, 100_000);
    let (code, lines) = run(&["run", "--protocol", "1", "--work", dir.to_str().unwrap()], Some(&dir));
    assert_eq!(code, 0, "{lines:?}");
    let full = expected(None);
    let only: BTreeSet<String> = ["id", "items.[].price", "tags.[]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let part = expected(Some(&only));
    let mut verified = 0;
    for l in &lines {
        if l["type"] == "error" {
            panic!("{l}");
        }
        if l["type"] != "verify" {
            continue;
        }
        let id = l["case"].as_str().unwrap();
        assert_eq!(l["ok"], true, "{l}");
        let want = if id.ends_with("/query") { &part } else { &full };
        assert_eq!(&l["digest"], want, "{id}");
        verified += 1;
    }
    assert_eq!(verified, cases.len());
    assert_eq!(lines.last().unwrap()["cases"], cases.len());
    assert_eq!(lines.last().unwrap()["failed"], 0);
}

#[test]
fn a_group_with_a_limit_row() {
    let mut cases = vec![
        case("g/bincode", "g", "bincode", "decode", "", "", 3),
        case("g/postcard", "g", "postcard", "decode", "", "", 3),
        case("g/copy", "g", "copy", "copy", "", "", 3),
    ];
    cases[2]["role"] = json!("limit");
    cases[2]["limit_of"] = json!("g/bincode");
    cases.push(case("bad/subject", "", "nope", "decode", "", "", 1));
    cases.push(case("bad/codec", "", "bincode", "decode", "zip:3", "", 1));
    let mut p = case("bad/params", "", "bincode", "decode", "", "", 1);
    p["params"] = json!({"reuse": "true"});
    cases.push(p);
    let dir = work(&cases, 200_000);
    let (code, lines) = run(&["run", "--protocol", "1", "--work", dir.to_str().unwrap()], Some(&dir));
    assert_eq!(code, 0);
    let samples: Vec<(String, u64, u64)> = lines
        .iter()
        .filter(|l| l["type"] == "sample")
        .map(|l| {
            (
                l["case"].as_str().unwrap().to_string(),
                l["round"].as_u64().unwrap(),
                l["order"].as_u64().unwrap(),
            )
        })
        .collect();
    let order: Vec<&str> = samples.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        order,
        [
            "g/bincode",
            "g/postcard",
            "g/copy",
            "g/postcard",
            "g/copy",
            "g/bincode",
            "g/copy",
            "g/bincode",
            "g/postcard"
        ]
    );
    let copy = lines
        .iter()
        .find(|l| l["type"] == "verify" && l["case"] == "g/copy")
        .unwrap();
    let bc = lines
        .iter()
        .find(|l| l["type"] == "verify" && l["case"] == "g/bincode")
        .unwrap();
    assert_eq!(copy["encoded_bytes"], bc["encoded_bytes"]);
    assert!(copy["digest"].is_null());
    for l in lines.iter().filter(|l| l["type"] == "sample") {
        assert!(l["alloc_bytes_per_op"].is_number() && l["allocs_per_op"].is_number());
    }
    let errs: Vec<&Json> = lines.iter().filter(|l| l["type"] == "error").collect();
    assert_eq!(errs.len(), 3, "{errs:?}");
    for e in errs {
        assert_eq!(e["phase"], "setup");
    }
    assert_eq!(lines.last().unwrap()["cases"], 6);
    assert_eq!(lines.last().unwrap()["failed"], 3);
}

#[test]
fn sigterm_stops_at_a_sample_boundary() {
    let cases = vec![case("long/json", "", "serde_json", "decode", "", "", 1_000_000)];
    let dir = work(&cases, 20_000_000);
    let child = Command::new(BIN)
        .args(["run", "--protocol", "1", "--work", dir.to_str().unwrap()])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().any(|l| l["type"] == "sample"));
    assert_eq!(lines.last().unwrap()["type"], "end");
}

#[test]
fn export_then_import() {
    let mut cases = Vec::new();
    for (s, ext) in [
        ("parquet", "parquet"),
        ("arrow-ipc", "arrow"),
        ("apache-avro", "avro"),
        ("serde_json", "jsonl"),
        ("simd-json", "jsonl"),
        ("rmp-serde", "msgpack"),
        ("ciborium", "cbor"),
    ] {
        let mut c = case(&format!("{s}/export"), "", s, "export", "", "", 0);
        c["path"] = json!(format!("tmp/{s}.rust.{ext}"));
        cases.push(c);
        let mut c = case(&format!("{s}/import"), "", s, "import", "", "", 0);
        c["path"] = json!(format!("tmp/{s}.rust.{ext}"));
        cases.push(c);
    }
    // The JSON subjects read each other's JSON Lines.
    for (s, other) in [("serde_json", "simd-json"), ("simd-json", "serde_json")] {
        let mut c = case(&format!("{s}/import-{other}"), "", s, "import", "", "", 0);
        c["path"] = json!(format!("tmp/{other}.rust.jsonl"));
        cases.push(c);
    }
    let mut bad = case("bad/path", "", "parquet", "import", "", "", 0);
    bad["path"] = json!("../outside.parquet");
    cases.push(bad);
    cases.push(case("bad/op", "", "bincode", "export", "", "", 0));
    let dir = work(&cases, 1_000_000);
    let (code, lines) = run(&["run", "--protocol", "1", "--work", dir.to_str().unwrap()], Some(&dir));
    assert_eq!(code, 0);
    let full = expected(None);
    for l in lines.iter().filter(|l| l["type"] == "verify") {
        assert_eq!(l["ok"], true, "{l}");
        assert!(l["elapsed_ns"].as_u64().unwrap() > 0);
        assert_eq!(l["digest"], full, "{}", l["case"]);
    }
    let errs: Vec<&Json> = lines.iter().filter(|l| l["type"] == "error").collect();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert_eq!(lines.iter().filter(|l| l["type"] == "verify").count(), 16);
    for l in lines.iter().filter(|l| l["type"] == "verify") {
        let case = l["case"].as_str().unwrap();
        let sub = case.split('/').next().unwrap();
        if matches!(sub, "serde_json" | "simd-json" | "rmp-serde" | "ciborium") && case.ends_with("/export") {
            let ext = match sub {
                "rmp-serde" => "msgpack",
                "ciborium" => "cbor",
                _ => "jsonl",
            };
            let size = std::fs::metadata(dir.join(format!("tmp/{sub}.rust.{ext}")))
                .unwrap()
                .len();
            assert_eq!(l["encoded_bytes"].as_u64().unwrap(), size, "{case}");
        }
    }
    // JSON Lines as §10.3 says: one object per row, RFC 3339 UTC
    // timestamps, dates, decimals as text, base64 binaries.
    let text = std::fs::read_to_string(dir.join("tmp/serde_json.rust.jsonl")).unwrap();
    let rows: Vec<Json> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 40);
    assert!(text.ends_with('\n'));
    assert_eq!(rows[1]["ts"], "1970-01-01T00:00:00.999998Z", "{}", rows[1]);
    assert_eq!(rows[0]["d"], "1969-12-29");
    assert_eq!(rows[1]["bin"], "AQD/");
    assert_eq!(rows[1]["items"][0]["price"], "-1.13");
    assert_eq!(rows[0]["u"], u64::MAX);
}
