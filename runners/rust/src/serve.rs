//! The command line of a Rust runner (docs/runner-protocol.md §2, §5, §6),
//! serbench's built-in one and every kit runner's alike:
//!
//! ```text
//! RUNNER hello --protocol 1
//! RUNNER run --protocol 1 --work WORK
//! ```
//!
//! and the `hello` line it writes (§3.1).

use std::path::Path;
use std::sync::atomic::Ordering;

use serde_json::json;

use crate::bound::Subject;
use crate::out::{line, log};
use crate::run::{Runner, STOP};
use crate::{codecs, PROTOCOL};

/// Who is serving: the runner's name and what `hello` says of its build.
#[derive(Clone, Debug)]
pub struct Serving {
    /// The runner's name in `hello` (`rust` for the built-in runner).
    pub runner: String,
    /// Build settings `hello` adds to `vm_flags` beyond those the build
    /// script sees (RUSTFLAGS, the profile, the opt-level): the release
    /// profile's `lto` and `codegen-units`, which only the package that
    /// sets them knows.
    pub profile_flags: Vec<String>,
}

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// The command, the protocol version and the work directory of the
/// arguments (after the program's name).
fn parse(args: &[String]) -> Result<(String, i64, Option<String>), String> {
    let cmd = match args.first().map(String::as_str) {
        Some(c @ ("hello" | "run")) => c.to_string(),
        _ => return Err("a command, hello or run, is required".into()),
    };
    let (mut proto, mut work) = (None, None);
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        let (k, v) = if let Some((k, v)) = a.strip_prefix("--").and_then(|x| x.split_once('=')) {
            (k.to_string(), v.to_string())
        } else if a == "--protocol" || a == "--work" {
            i += 1;
            let v = args.get(i).ok_or_else(|| format!("{a} needs a value"))?;
            (a[2..].to_string(), v.clone())
        } else {
            return Err(format!("unknown argument {a}"));
        };
        match k.as_str() {
            "protocol" => proto = Some(v),
            "work" => work = Some(v),
            _ => return Err(format!("unknown flag --{k}")),
        }
        i += 1;
    }
    let proto = proto
        .or_else(|| std::env::var("SERBENCH_PROTOCOL").ok())
        .ok_or("--protocol is required")?;
    let proto: i64 = proto.parse().map_err(|_| format!("bad --protocol {proto:?}"))?;
    let work = work.or_else(|| std::env::var("SERBENCH_WORK").ok());
    if cmd == "run" && work.is_none() {
        return Err("run needs --work DIR".into());
    }
    Ok((cmd, proto, work))
}

/// Serves the command line `args` (the program's name first, as
/// [`std::env::args`] gives them) with the subjects `subjects` makes
/// (called once the command line is read) and returns the exit status
/// (§5): 0 when every case was attempted, 1 for the runner's own failure
/// or a SIGTERM/SIGINT (it stops at the next sample boundary), 2 for a
/// usage error or another protocol.
pub fn serve(serving: &Serving, args: &[String], subjects: impl FnOnce() -> Vec<Subject>) -> i32 {
    let program = args
        .first()
        .map(|p| {
            Path::new(p)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| serving.runner.clone());
    let (cmd, proto, work) = match parse(args.get(1..).unwrap_or_default()) {
        Ok(x) => x,
        Err(e) => {
            log(&e);
            eprintln!("usage: {program} hello --protocol 1\n       {program} run --protocol 1 --work DIR");
            line(&hello(serving, &[]));
            line(&json!({"type": "error", "phase": "setup", "message": format!("usage: {e}")}));
            line(&json!({"type": "end", "cases": 0, "failed": 0}));
            return 2;
        }
    };
    let subs = subjects();
    line(&hello(serving, &subs));
    if proto != PROTOCOL {
        line(&json!({"type": "error", "phase": "setup",
            "message": format!("protocol {proto} requested, this runner speaks {PROTOCOL}")}));
        return 2;
    }
    if cmd == "hello" {
        line(&json!({"type": "end", "cases": 0, "failed": 0}));
        return 0;
    }
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    let mut r = Runner::new(Path::new(work.as_deref().unwrap_or(".")), subs);
    let mut code = 0;
    if let Err(e) = r.run() {
        line(&json!({"type": "error", "phase": "setup", "message": e.0}));
        code = 1;
    }
    if STOP.load(Ordering::Relaxed) && code == 0 {
        line(&json!({"type": "error", "phase": "sample", "message": "stopped by a signal at a sample boundary"}));
        code = 1;
    }
    line(&json!({"type": "end", "cases": r.finished, "failed": r.failed}));
    code
}

/// The lines of a runner that cannot serve (a kit runner given two
/// subjects of one name): a `hello` without subjects, the `error` without
/// case, `end`; the exit status, 1 (§5: the runner's own failure).
pub fn refuse(serving: &Serving, message: &str) -> i32 {
    line(&hello(serving, &[]));
    line(&json!({"type": "error", "phase": "setup", "message": message}));
    line(&json!({"type": "end", "cases": 0, "failed": 0}));
    1
}

/// The `hello` line (§3.1) of these subjects.
pub fn hello(serving: &Serving, subjects: &[Subject]) -> serde_json::Value {
    let ds: Vec<serde_json::Value> = subjects
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "format": s.format, "library": s.library,
                "version": s.version, "ops": s.ops, "codecs": codecs::ANNOUNCED,
                "codec_library": codecs::library(), "labels": s.labels,
            })
        })
        .collect();
    let mut flags: Vec<String> = env!("SERBENCH_RUSTFLAGS")
        .split_whitespace()
        .map(String::from)
        .collect();
    flags.push(format!("profile={}", env!("SERBENCH_PROFILE")));
    flags.push(format!("opt-level={}", env!("SERBENCH_OPT_LEVEL")));
    flags.extend(serving.profile_flags.iter().cloned());
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        a => a,
    };
    let rv = env!("SERBENCH_RUSTC_VERSION");
    json!({
        "type": "hello", "protocol": PROTOCOL, "runner": serving.runner, "language": "rust",
        "runtime": "rustc", "runtime_version": rv.strip_prefix("rustc ").unwrap_or(rv),
        "vm_flags": flags, "os": std::env::consts::OS, "arch": arch, "alloc": "process",
        "runner_version": env!("CARGO_PKG_VERSION"), "subjects": ds,
    })
}
