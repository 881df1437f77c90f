//! Records what `hello` reports about the build: the compiler's version,
//! the flags, the profile, and the resolved version of every locked crate.
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (unknown)".into());
    println!("cargo:rustc-env=SERBENCH_RUSTC_VERSION={version}");
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .replace('\x1f', " ");
    println!("cargo:rustc-env=SERBENCH_RUSTFLAGS={flags}");
    let profile = env::var("PROFILE").unwrap_or_default();
    let opt = env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=SERBENCH_PROFILE={profile}");
    println!("cargo:rustc-env=SERBENCH_OPT_LEVEL={opt}");

    // name -> version of every package in Cargo.lock (the first one of a name).
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(v) = line.strip_prefix("name = \"") {
            name = Some(v.trim_end_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = \"") {
            if let Some(n) = name.take() {
                if !pairs.iter().any(|(m, _)| *m == n) {
                    pairs.push((n, v.trim_end_matches('"').to_string()));
                }
            }
        }
    }
    let mut src = String::from(
        "/// The resolved version of a locked crate.\npub fn version(name: &str) -> &'static str {\n    match name {\n",
    );
    for (n, v) in &pairs {
        src.push_str(&format!("        {n:?} => {v:?},\n"));
    }
    src.push_str("        _ => \"unknown\",\n    }\n}\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("versions.rs");
    fs::write(out, src).unwrap();
}
