//! The agreement check against criterion: three named cases (a small
//! decode, a large decode, an encode) of the same subjects on the same
//! rows, timed by the runner's own loop (calibration, then 50 ms samples,
//! median) and by criterion (its median). The medians must agree within
//! ±10%.
//!
//! `cargo bench --bench criterion_check` (README: the numbers).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use criterion::Criterion;
use serbench_runner::bound::Bound;
use serbench_runner::measure::{self, Run};
use serbench_runner::subjects::testing::row_bounds;
use serbench_runner::value::{Field, IntKind, Ty, Value};

/// A row type like nested's media records: scalars, a timestamp, a
/// decimal, tags, and a list of structs.
fn row_type() -> Ty {
    let f = |n: &str, ty: Ty| Field {
        name: n.into(),
        ty,
        nullable: true,
    };
    Ty::Struct(vec![
        f("id", Ty::Int(IntKind::Plain(64))),
        f("title", Ty::Str),
        f("score", Ty::F64),
        f("views", Ty::UInt(64)),
        f("created", Ty::Int(IntKind::Timestamp)),
        f("price", Ty::Decimal(12, 2)),
        f("tags", Ty::List(Box::new(Ty::Str), true)),
        f(
            "images",
            Ty::List(
                Box::new(Ty::Struct(vec![
                    f("url", Ty::Str),
                    f("width", Ty::Int(IntKind::Plain(32))),
                    f("height", Ty::Int(IntKind::Plain(32))),
                ])),
                true,
            ),
        ),
    ])
}

fn rows(n: usize) -> Vec<Value> {
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let r = next();
            let tags = (0..(r % 4))
                .map(|k| Value::Str(format!("tag{}", (r >> (8 * k)) % 50)))
                .collect();
            let images = (0..(r % 3 + 1))
                .map(|k| {
                    Value::Struct(vec![
                        Value::Str(format!("https://img.example/{i}/{k}.jpg")),
                        Value::I64(640 + (k as i64) * 10),
                        if k == 1 { Value::Null } else { Value::I64(480) },
                    ])
                })
                .collect();
            Value::Struct(vec![
                Value::I64(i as i64),
                Value::Str(format!("title number {i} of the media set")),
                Value::F64((r % 10_000) as f64 / 7.0),
                Value::U64(r),
                Value::I64(1_700_000_000_000_000 + (r % 1_000_000_000) as i64),
                Value::Str(format!("{}.{:02}", r % 100_000, r % 100)),
                if r % 10 == 0 { Value::Null } else { Value::List(tags) },
                Value::List(images),
            ])
        })
        .collect()
}

fn bound(name: &str, ty: &Arc<Ty>, rs: &Arc<Vec<Value>>) -> Box<dyn Bound> {
    row_bounds(ty.clone(), rs.clone())
        .into_iter()
        .find(|(n, _)| *n == name)
        .expect("subject")
        .1
}

struct CaseDef {
    name: &'static str,
    subject: &'static str,
    rows: usize,
    decode: bool,
}

const CASES: &[CaseDef] = &[
    CaseDef {
        name: "small-decode/serde_json/100",
        subject: "serde_json",
        rows: 100,
        decode: true,
    },
    CaseDef {
        name: "large-decode/rmp-serde/20000",
        subject: "rmp-serde",
        rows: 20_000,
        decode: true,
    },
    CaseDef {
        name: "encode/bincode/1000",
        subject: "bincode",
        rows: 1000,
        decode: false,
    },
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The runner's method: calibrate to 50 ms, then 10 samples; the median.
fn runner_median(b: &dyn Bound, input: &Bytes, decode: bool) -> f64 {
    let mut run: Run = if decode {
        Box::new(|n| measure::time_loop(n, || b.decode(input)))
    } else {
        Box::new(|n| measure::time_loop(n, || b.encode().map(|e| e.as_slice().len())))
    };
    let cal = measure::calibrate(&mut run, 50_000_000, 1_000_000_000, false).unwrap();
    let samples: Vec<f64> = (0..10).map(|_| run(cal.n).unwrap().ns as f64 / cal.n as f64).collect();
    median(samples)
}

fn criterion_median(dir: &std::path::Path, name: &str) -> f64 {
    let p = dir.join(name.replace('/', "_")).join("new").join("estimates.json");
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    v["median"]["point_estimate"].as_f64().unwrap()
}

fn main() {
    let ty = Arc::new(row_type());
    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut ours = Vec::new();
    for cd in CASES {
        let rs = Arc::new(rows(cd.rows));
        let b = bound(cd.subject, &ty, &rs);
        let input = Bytes::from(b.encode().unwrap().as_slice().to_vec());
        ours.push(runner_median(b.as_ref(), &input, cd.decode));
        if cd.decode {
            c.bench_function(cd.name, |bn| bn.iter(|| b.decode(black_box(&input)).unwrap()));
        } else {
            c.bench_function(cd.name, |bn| bn.iter(|| b.encode().unwrap().as_slice().len()));
        }
    }
    c.final_summary();
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let dir = std::path::Path::new(&target).join("criterion");
    println!(
        "\n{:<32} {:>14} {:>14} {:>7}",
        "case", "runner ns/op", "criterion ns/op", "ratio"
    );
    let mut worst: f64 = 0.0;
    for (cd, r) in CASES.iter().zip(ours) {
        let m = criterion_median(&dir, cd.name);
        let ratio = r / m;
        worst = worst.max((ratio - 1.0).abs());
        println!("{:<32} {:>14.0} {:>14.0} {:>7.3}", cd.name, r, m, ratio);
    }
    println!("largest difference: {:.1}% (want within 10%)", worst * 100.0);
    if worst > 0.10 {
        std::process::exit(1);
    }
}
