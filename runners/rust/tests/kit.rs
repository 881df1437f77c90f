//! The kit as a user's runner meets it: `examples/kit.rs`, written with
//! `serbench_runner::kit` alone, run as serbench starts a runner — its
//! hello, verified cases of a serde subject and a hand-written one,
//! "cannot hold" from `check` and from `encode`, a panicking decode kept
//! within its case, a copy limit row.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::types::*;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use serbench_runner::bound::Dataset;
use serbench_runner::digest::digest_rows;
use serde_json::{json, Value as Json};

/// The example's binary: `cargo test` builds the examples with the tests,
/// into target/<profile>/examples beside target/<profile>/deps.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("examples").join("kit");
    assert!(
        bin.exists(),
        "{} is not built: run cargo test (which builds the examples), or cargo build --example kit first",
        bin.display()
    );
    bin
}

fn mixed(n: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("f", DataType::Float32, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        Field::new("price", DataType::Decimal128(10, 2), true),
        Field::new("ok", DataType::Boolean, false),
        Field::new("bin", DataType::Binary, true),
        Field::new("u", DataType::UInt64, false),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
    ]));
    let mut id = Int64Builder::new();
    let mut name = StringBuilder::new();
    let mut f = Float32Builder::new();
    let mut ts = PrimitiveBuilder::<TimestampNanosecondType>::new().with_timezone("UTC");
    let mut price = Decimal128Builder::new().with_precision_and_scale(10, 2).unwrap();
    let mut ok = BooleanBuilder::new();
    let mut bin = BinaryBuilder::new();
    let mut u = UInt64Builder::new();
    let mut tags = ListBuilder::new(StringBuilder::new());
    for i in 0..n {
        let x = i as i64;
        id.append_value(x - 20);
        if i % 5 == 0 {
            name.append_null();
        } else {
            name.append_value(format!("név {i} ✓"));
        }
        f.append_value(i as f32 * 0.25 - 3.0);
        ts.append_value(-1_500 + x * 1_000_000_123);
        price.append_value(x as i128 * 1234 - 7);
        ok.append_value(i % 3 == 0);
        if i % 4 == 0 {
            bin.append_null();
        } else {
            bin.append_value([i as u8, 0, 255]);
        }
        u.append_value(if i % 7 == 3 { u64::MAX - x as u64 } else { x as u64 });
        for k in 0..i % 3 {
            tags.values().append_value(format!("t{k}"));
        }
        tags.append(i % 6 != 5);
    }
    let cols: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(f.finish()),
        Arc::new(ts.finish()),
        Arc::new(price.finish()),
        Arc::new(ok.finish()),
        Arc::new(bin.finish()),
        Arc::new(u.finish()),
        Arc::new(tags.finish()),
    ];
    RecordBatch::try_new(schema, cols).unwrap()
}

/// The datasets: mixed (every column), flat (its scalar columns but u),
/// big (id and u, which holds uint64s above 2^63 − 1).
fn datasets() -> Vec<(&'static str, RecordBatch)> {
    let b = mixed(40);
    vec![
        ("mixed", b.clone()),
        ("flat", b.project(&[0, 1, 2, 3, 4, 5, 6]).unwrap()),
        ("big", b.project(&[0, 7]).unwrap()),
    ]
}

fn work(cases: &[Json]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("serbench-rust-kit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, b) in datasets() {
        std::fs::create_dir_all(dir.join("datasets").join(name)).unwrap();
        let f = std::fs::File::create(dir.join("datasets").join(name).join("data.arrows")).unwrap();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(f, &b.schema()).unwrap();
        w.write(&b).unwrap();
        w.finish().unwrap();
    }
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    std::fs::write(
        dir.join("run.json"),
        json!({"protocol": 1, "run_id": "t", "benchtime_ns": 100_000, "max_iters": 1_000_000_000u64, "count": 2, "seed": 1}).to_string(),
    )
    .unwrap();
    let lines: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.join("cases.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

fn case(id: &str, group: &str, subject: &str, op: &str, dataset: &str, codec: &str, query: &str) -> Json {
    json!({"id": id, "group": group, "subject": subject, "role": "subject", "op": op, "dataset": dataset,
           "size": 40, "codec": codec, "query": query, "count": 2, "min_count": 1, "budget_ns": 0,
           "per_round": 0, "no_warmup": false, "limit_of": "", "params": {}})
}

fn run(args: &[&str], dir: Option<&Path>) -> (i32, Vec<Json>) {
    let mut c = Command::new(example());
    c.args(args).stdin(Stdio::null()).stderr(Stdio::null());
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

fn digest(dir: &Path, dataset: &str, only: &[&str]) -> Json {
    let ds = Dataset::read(dataset, &dir.join("datasets").join(dataset).join("data.arrows")).unwrap();
    let only: std::collections::BTreeSet<String> = only.iter().map(|s| s.to_string()).collect();
    digest_rows(&ds.ty, &ds.rows().unwrap(), (!only.is_empty()).then_some(&only)).unwrap()
}

#[test]
fn hello_names_the_runner_and_describes_each_subject() {
    let (code, lines) = run(&["hello", "--protocol", "1"], None);
    assert_eq!(code, 0);
    let h = &lines[0];
    assert_eq!(h["type"], "hello");
    assert_eq!(h["runner"], "kit-test");
    assert_eq!(h["language"], "rust");
    assert_eq!(h["alloc"], "process");
    let names: Vec<&str> = h["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["json-rows", "flat", "panics"]);
    let json = &h["subjects"][0];
    assert_eq!(json["format"], "json");
    assert_eq!(json["library"], "serde_json");
    assert_eq!(json["ops"], json!(["encode", "decode", "query"]));
    assert_eq!(json["labels"]["model"], "kit rows (serde)");
    assert_eq!(json["labels"]["time_precision"], "us");
    assert!(json["codecs"].as_array().unwrap().contains(&json!("zstd:3")));
    assert_eq!(h["subjects"][1]["labels"]["nesting"], "flat");
    assert_eq!(h["subjects"][2]["format"], "panics");
    assert_eq!(h["subjects"][2]["version"], "unknown");
    assert_eq!(lines.last().unwrap()["type"], "end");
    let (code, _) = run(&["hello", "--protocol", "2"], None);
    assert_eq!(code, 2);
    let (code, lines) = run(&[], None);
    assert_eq!(code, 2);
    assert_eq!(lines[0]["runner"], "kit-test");
}

#[test]
fn cases_are_verified_measured_or_refused_one_by_one() {
    let mut copy = case("g/copy", "g", "copy", "copy", "flat", "", "");
    copy["role"] = json!("limit");
    copy["limit_of"] = json!("g/flat");
    let cases = vec![
        case("json/encode", "", "json-rows", "encode", "mixed", "", ""),
        case("json/decode", "", "json-rows", "decode", "mixed", "zstd:3", ""),
        case("json/query", "", "json-rows", "query", "mixed", "lz4", "id,tags"),
        case("g/flat", "g", "flat", "decode", "flat", "", ""),
        case("g/json", "g", "json-rows", "decode", "flat", "", ""),
        copy,
        case("flat/nested", "", "flat", "encode", "mixed", "", ""),
        case("flat/big", "", "flat", "decode", "big", "", ""),
        case("panics/decode", "", "panics", "decode", "flat", "", ""),
    ];
    let dir = work(&cases);
    let (code, lines) = run(&["run", "--protocol", "1", "--work", dir.to_str().unwrap()], Some(&dir));
    assert_eq!(code, 0, "{lines:?}");
    let find = |ty: &str, id: &str| -> &Json {
        lines
            .iter()
            .find(|l| l["type"] == ty && l["case"] == id)
            .unwrap_or_else(|| panic!("no {ty} line for {id}: {lines:?}"))
    };
    for (id, dataset, only) in [
        ("json/encode", "mixed", &[][..]),
        ("json/decode", "mixed", &[]),
        ("json/query", "mixed", &["id", "tags.[]"]),
        ("g/flat", "flat", &[]),
        ("g/json", "flat", &[]),
    ] {
        let v = find("verify", id);
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["digest"], digest(&dir, dataset, only), "{id}");
        assert!(
            lines.iter().any(|l| l["type"] == "sample" && l["case"] == id),
            "{id} has no sample"
        );
    }
    assert_eq!(find("verify", "g/copy")["ok"], true);
    assert!(lines.iter().any(|l| l["type"] == "sample" && l["case"] == "g/copy"));

    let nested = find("error", "flat/nested");
    assert_eq!(nested["phase"], "setup");
    assert_eq!(nested["cannot_hold"], true);
    assert!(
        nested["message"].as_str().unwrap().contains("column tags is a list"),
        "{nested}"
    );
    let big = find("error", "flat/big");
    assert_eq!(big["cannot_hold"], true);
    assert!(big["message"].as_str().unwrap().contains("column u row 3"), "{big}");
    let panicked = find("verify", "panics/decode");
    assert_eq!(panicked["ok"], false);
    assert!(
        panicked["reason"]
            .as_str()
            .unwrap()
            .contains("decode panicked: a decoder bug"),
        "{panicked}"
    );
    assert!(!lines
        .iter()
        .any(|l| l["case"] == "panics/decode" && l["type"] == "sample"));
    assert_eq!(lines.last().unwrap(), &json!({"type": "end", "cases": 9, "failed": 3}));
    let _ = std::fs::remove_dir_all(&dir);
}
