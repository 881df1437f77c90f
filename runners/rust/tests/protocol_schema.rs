//! The runner against the protocol's JSON Schema (runner/protocol.schema.json
//! of the repository, draft 2020-12): its codecs are the schema's, its hello
//! line and its subjects' labels are valid by it, and a case line the schema
//! accepts is one the runner reads.
//!
//! The schema is read from the repository checkout (runners/rust/../../runner);
//! a copy of the runner outside it (serbench's extracted sources) skips these.
#![cfg(feature = "subjects")]

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serbench_runner::bound::default_labels;
use serbench_runner::codecs::{Codec, ANNOUNCED};
use serbench_runner::run::Case;
use serbench_runner::serve::{hello, Serving};
use serbench_runner::subjects;
use serde_json::{json, Value as Json};

const BIN: &str = env!("CARGO_BIN_EXE_serbench-runner");

/// The schema's codecs this runner does not apply, and why. Every other
/// codec of the schema's list must parse here.
const NOT_IMPLEMENTED: &[(&str, &str)] = &[("s2", "no S2 (Snappy's Go extension) crate among the locked ones")];

fn repo_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

/// The schema, or None (and a line saying why) outside a serbench checkout.
fn schema() -> Option<Json> {
    let p = repo_file("runner/protocol.schema.json");
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(serde_json::from_str(&s).expect("protocol.schema.json is not JSON")),
        Err(e) => {
            eprintln!(
                "skipped: no {} ({e}): this runner is not in a serbench checkout",
                p.display()
            );
            None
        }
    }
}

/// A validator of one of the schema's $defs: the whole document with a root
/// $ref to it, so that its own $refs resolve within it.
fn validator(schema: &Json, def: &str) -> jsonschema::Validator {
    assert!(schema["$defs"].get(def).is_some(), "the schema has no $defs/{def}");
    let mut doc = schema.clone();
    doc["$ref"] = json!(format!("#/$defs/{def}"));
    jsonschema::draft202012::new(&doc).unwrap_or_else(|e| panic!("$defs/{def}: {e}"))
}

/// Where and why `v` breaks the validator's definition; empty when valid.
fn errors(validator: &jsonschema::Validator, v: &Json) -> Vec<String> {
    validator
        .iter_errors(v)
        .map(|e| format!("at '{}': {e}", e.instance_path()))
        .collect()
}

/// The codec names of the schema's pattern, `^(a|b|…)(:-?[0-9]+)?$`.
fn schema_codecs(schema: &Json) -> Vec<String> {
    let p = schema["$defs"]["codec"]["pattern"].as_str().expect("no codec pattern");
    let names = p
        .strip_prefix("^(")
        .and_then(|s| s.strip_suffix(")(:-?[0-9]+)?$"))
        .unwrap_or_else(|| panic!("codec pattern {p:?} is not ^(a|b|…)(:-?[0-9]+)?$"));
    names.split('|').map(String::from).collect()
}

/// The lines of `serbench-runner hello --protocol 1`, as serbench starts it.
fn hello_lines() -> Vec<Json> {
    let out = Command::new(BIN)
        .args(["hello", "--protocol", "1"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .env_remove("SERBENCH_PROTOBUF_DESCRIPTORS")
        .output()
        .unwrap();
    assert!(out.status.success(), "hello: {}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The hello line of every built-in subject, available here or not.
fn hello_of_all() -> Json {
    let serving = Serving {
        runner: "rust".into(),
        profile_flags: Vec::new(),
    };
    hello(&serving, &subjects::all())
}

/// The golden lines of the Go side: a validator that passes every valid one
/// and fails every invalid one is the schema's, not a permissive stand-in.
#[test]
fn golden_lines() {
    let Some(schema) = schema() else { return };
    let v = validator(&schema, "line");
    let dir = repo_file("runner/testdata/protocol");
    let valid = std::fs::read_to_string(dir.join("valid.jsonl")).unwrap();
    for (i, l) in valid.lines().enumerate() {
        let e = errors(&v, &serde_json::from_str(l).unwrap());
        assert!(e.is_empty(), "valid.jsonl:{}: {e:?}", i + 1);
    }
    let invalid = std::fs::read_to_string(dir.join("invalid.jsonl")).unwrap();
    assert!(invalid.lines().count() > 0);
    for l in invalid.lines() {
        let g: Json = serde_json::from_str(l).unwrap();
        assert!(!v.is_valid(&g["line"]), "valid by the schema: {}", g["why"]);
    }
}

#[test]
fn announced_codecs_match_the_schema() {
    let Some(schema) = schema() else { return };
    let v = validator(&schema, "codec");
    assert!(!ANNOUNCED.is_empty());
    for c in ANNOUNCED {
        assert!(errors(&v, &json!(c)).is_empty(), "{c}: {:?}", errors(&v, &json!(c)));
    }
    let lines = hello_lines();
    let subjects = lines[0]["subjects"].as_array().unwrap();
    assert!(!subjects.is_empty());
    for s in subjects {
        let codecs = s["codecs"].as_array().unwrap();
        assert!(!codecs.is_empty(), "{} announces no codec", s["name"]);
        for c in codecs {
            assert!(errors(&v, c).is_empty(), "{}: {c}", s["name"]);
        }
    }
    assert!(!v.is_valid(&json!("zstd:high")) && !v.is_valid(&json!("s3")));
}

#[test]
fn every_schema_codec_parses() {
    let Some(schema) = schema() else { return };
    let names = schema_codecs(&schema);
    for (name, why) in NOT_IMPLEMENTED {
        assert!(
            names.iter().any(|n| n == name),
            "NOT_IMPLEMENTED names {name} ({why}): not a schema codec"
        );
    }
    let data = b"serbench ".repeat(64);
    for name in &names {
        if NOT_IMPLEMENTED.iter().any(|(n, _)| n == name) {
            let e = Codec::parse(name).expect_err(name);
            assert!(e.contains("unknown codec"), "{name}: {e}");
            continue;
        }
        // A family that takes a level is parsed at the level the runner
        // announces it with (a case always names one); lz4, snappy and
        // none take none.
        let prefix = format!("{name}:");
        let spec = ANNOUNCED
            .iter()
            .find(|c| *c == name || c.starts_with(&prefix))
            .unwrap_or_else(|| panic!("the runner implements {name} but does not announce it"));
        let c = Codec::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let packed = c.compress(&data).unwrap();
        assert_eq!(c.decompress(&packed).unwrap().as_ref(), &data[..], "{spec}");
    }
    for spec in ANNOUNCED {
        Codec::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
}

#[test]
fn hello_is_valid_by_the_schema() {
    let Some(schema) = schema() else { return };
    let (hello_v, line_v) = (validator(&schema, "hello"), validator(&schema, "line"));
    let lines = hello_lines();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["hello", "end"]);
    assert!(!lines[0]["subjects"].as_array().unwrap().is_empty());
    let e = errors(&hello_v, &lines[0]);
    assert!(e.is_empty(), "{e:?}\n{}", lines[0]);
    for l in &lines {
        let e = errors(&line_v, l);
        assert!(e.is_empty(), "{e:?}\n{l}");
    }
    // every built-in subject, the ones not available here too
    let all = hello_of_all();
    let e = errors(&hello_v, &all);
    assert!(e.is_empty(), "{e:?}\n{all}");
}

#[test]
fn labels_use_the_schema_values() {
    let Some(schema) = schema() else { return };
    let v = validator(&schema, "labels");
    let defined = schema["$defs"]["labels"]["properties"].as_object().unwrap();
    for key in default_labels().keys() {
        assert!(defined.contains_key(key), "default label {key} is not the schema's");
    }
    let mut checked = 0;
    let all = subjects::all();
    assert!(!all.is_empty());
    let declared = all.iter().map(|s| (s.name.clone(), json!(s.labels)));
    let announced = hello_lines()[0]["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s["labels"].clone()))
        .collect::<Vec<_>>();
    for (name, labels) in declared.chain(announced) {
        let e = errors(&v, &labels);
        assert!(e.is_empty(), "{name}: {e:?}");
        for (key, value) in labels.as_object().unwrap() {
            if let Some(allowed) = defined.get(key).and_then(|d| d["enum"].as_array()) {
                assert!(
                    allowed.contains(value),
                    "{name}: {key}={value}, the schema's: {allowed:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    let mut bad = default_labels();
    bad.insert("zero_copy".into(), "maybe".into());
    assert!(!v.is_valid(&json!(bad)));
}

/// The golden files hold runner output only; the work files a runner reads
/// are checked on a run.json and case lines as serbench writes them: valid by
/// the schema and read by the runner's own parser.
#[test]
fn work_files_are_what_the_runner_reads() {
    let Some(schema) = schema() else { return };
    let run_v = validator(&schema, "run");
    let run = json!({"protocol": 1, "run_id": "r", "benchtime_ns": 1_000_000, "max_iters": 1u64 << 30, "count": 20, "seed": 1});
    assert!(errors(&run_v, &run).is_empty(), "{:?}", errors(&run_v, &run));
    let case_v = validator(&schema, "case");
    let base = json!({"id": "g/a", "group": "g", "subject": "serde_json", "role": "subject", "op": "decode",
                      "dataset": "d", "size": 10, "codec": "zstd:3", "query": "", "count": 5, "min_count": 1,
                      "budget_ns": 0, "per_round": 0, "no_warmup": false, "limit_of": "", "params": {}});
    let mut limit = base.clone();
    limit["id"] = json!("g/copy");
    limit["subject"] = json!("copy");
    limit["role"] = json!("limit");
    limit["op"] = json!("copy");
    limit["limit_of"] = json!("g/a");
    let mut export = base.clone();
    export["id"] = json!("x");
    export["op"] = json!("export");
    export["path"] = json!("tmp/x.json");
    export["params"] = json!({"future": "a member the runner does not know"});
    for c in [&base, &limit, &export] {
        let e = errors(&case_v, c);
        assert!(e.is_empty(), "{e:?}\n{c}");
        let got = Case::parse(c).unwrap_or_else(|e| panic!("{e}\n{c}"));
        assert_eq!(
            (
                got.id.as_str(),
                got.subject.as_str(),
                got.op.as_str(),
                got.codec.as_str()
            ),
            (
                c["id"].as_str().unwrap(),
                c["subject"].as_str().unwrap(),
                c["op"].as_str().unwrap(),
                c["codec"].as_str().unwrap()
            )
        );
        assert_eq!(got.path, c.get("path").and_then(Json::as_str).unwrap_or(""));
    }
    let mut no_id = base.clone();
    no_id.as_object_mut().unwrap().remove("id");
    assert!(!case_v.is_valid(&no_id));
    assert!(Case::parse(&no_id).is_err());
}
