//! serbench's Rust runner: measures Rust serialization libraries with
//! serbench's method, speaking the runner protocol version 1
//! (docs/runner-protocol.md). The binary is `serbench-runner`; the library
//! holds everything so the tests and the criterion check use the same code.

pub mod alloc;
pub mod archived;
pub mod arrowconv;
pub mod avro;
pub mod bound;
pub mod codecs;
pub mod columnar;
pub mod digest;
pub mod files;
pub mod measure;
pub mod out;
pub mod projection;
pub mod protobuf;
pub mod rowfiles;
pub mod run;
pub mod serde_formats;
pub mod serde_rows;
pub mod subjects;
pub mod value;

/// The resolved versions of the locked crates (from Cargo.lock at build).
pub mod versions {
    include!(concat!(env!("OUT_DIR"), "/versions.rs"));
}

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// The protocol version this runner speaks.
pub const PROTOCOL: i64 = 1;

/// The `hello` line.
pub fn hello(subjects: &[subjects::Subject]) -> serde_json::Value {
    use serde_json::json;
    let ds: Vec<serde_json::Value> = subjects
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "format": s.format, "library": s.krate,
                "version": versions::version(s.krate), "ops": s.ops, "codecs": codecs::ANNOUNCED,
                "codec_library": codecs::library(), "labels": s.all_labels(),
            })
        })
        .collect();
    let mut flags: Vec<String> = env!("SERBENCH_RUSTFLAGS")
        .split_whitespace()
        .map(String::from)
        .collect();
    flags.push(format!("profile={}", env!("SERBENCH_PROFILE")));
    flags.push(format!("opt-level={}", env!("SERBENCH_OPT_LEVEL")));
    flags.push("lto=thin".into());
    flags.push("codegen-units=4".into());
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        a => a,
    };
    let rv = env!("SERBENCH_RUSTC_VERSION");
    json!({
        "type": "hello", "protocol": PROTOCOL, "runner": "rust", "language": "rust",
        "runtime": "rustc", "runtime_version": rv.strip_prefix("rustc ").unwrap_or(rv),
        "vm_flags": flags, "os": std::env::consts::OS, "arch": arch, "alloc": "process",
        "runner_version": env!("CARGO_PKG_VERSION"), "subjects": ds,
    })
}
