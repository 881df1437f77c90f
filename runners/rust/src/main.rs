//! The command line (docs/runner-protocol.md §2, §5, §6):
//!
//! ```text
//! serbench-runner hello --protocol 1
//! serbench-runner run --protocol 1 --work WORK
//! ```

use std::sync::atomic::Ordering;

use serbench_runner::out::{line, log};
use serbench_runner::run::{Runner, STOP};
use serbench_runner::{hello, subjects, PROTOCOL};
use serde_json::json;

const USAGE: &str = "usage: serbench-runner hello --protocol 1\n       serbench-runner run --protocol 1 --work DIR";

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, proto, work) = match parse(&args) {
        Ok(x) => x,
        Err(e) => {
            log(&e);
            eprintln!("{USAGE}");
            line(&hello(&[]));
            line(&json!({"type": "error", "phase": "setup", "message": format!("usage: {e}")}));
            line(&json!({"type": "end", "cases": 0, "failed": 0}));
            std::process::exit(2);
        }
    };
    let subs = subjects::available(log);
    line(&hello(&subs));
    if proto != PROTOCOL {
        line(&json!({"type": "error", "phase": "setup",
            "message": format!("protocol {proto} requested, this runner speaks {PROTOCOL}")}));
        std::process::exit(2);
    }
    if cmd == "hello" {
        line(&json!({"type": "end", "cases": 0, "failed": 0}));
        return;
    }
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    let mut r = Runner::new(std::path::Path::new(work.as_deref().unwrap_or(".")), subs);
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
    std::process::exit(code);
}
