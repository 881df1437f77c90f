//! serbench's built-in Rust runner: the command line of [`serbench_runner::serve`]
//! (docs/runner-protocol.md §2, §5, §6) over the built-in subjects, the
//! code path every kit runner (`serbench_runner::kit::main`) takes too:
//!
//! ```text
//! serbench-runner hello --protocol 1
//! serbench-runner run --protocol 1 --work WORK
//! ```

use serbench_runner::out::log;
use serbench_runner::serve::{serve, Serving};
use serbench_runner::subjects;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let serving = Serving {
        runner: "rust".into(),
        // This package's release profile (Cargo.toml).
        profile_flags: vec!["lto=thin".into(), "codegen-units=4".into()],
    };
    std::process::exit(serve(&serving, &args, || subjects::available(log)));
}
