//! A serbench runner for serde-pickle (Python's pickle format, written and
//! read by a Rust library serbench does not ship), written with serbench's
//! Rust runner kit (`serbench_runner::kit`) alone: each subject is a name,
//! a description, an encode and a decode of the kit's rows; `kit::main`
//! speaks the runner protocol.
//!
//! ```text
//! cargo build --release --locked --manifest-path examples/runner-rust/Cargo.toml
//! serbench runner check examples/runner-rust/target/release/rs-pickle-runner
//! serbench run records --runner rs-pickle=examples/runner-rust/target/release/rs-pickle-runner
//! ```

use serbench_runner::kit::{self, Description, Error, Layout, Rows, Ty, Value};
use serde::de::DeserializeSeed;
use serde_pickle::{DeOptions, SerOptions};

/// The serde-pickle version this runner was built with, from its own lock.
fn version() -> &'static str {
    kit::locked_version(include_str!("../Cargo.lock"), "serde-pickle").unwrap_or("unknown")
}

/// serde-pickle over the kit's rows, each row a pickle dict keyed by field
/// name (`Layout::Named`) or a tuple of its fields (`Layout::Positional`).
struct Pickle {
    name: &'static str,
    layout: Layout,
}

impl kit::Subject for Pickle {
    fn name(&self) -> &str {
        self.name
    }

    fn describe(&self) -> Description {
        let d = Description::new("pickle", "serde-pickle", version())
            .label("model", "kit rows through serde")
            .label("protocol", "3");
        match self.layout {
            Layout::Named => d.label("rows", "dicts keyed by field name"),
            Layout::Positional => d.label("rows", "tuples").label("schema", "positional"),
        }
    }

    /// serde-pickle writes any uint64, but reads back only the integers of
    /// an int64 ("integer too large"): a dataset with a larger one is one
    /// this library cannot hold, said before anything is measured.
    fn check(&self, rows: Rows<'_>) -> Result<(), Error> {
        let fields = rows.ty().fields();
        for (r, row) in rows.values().iter().enumerate() {
            if let Value::Struct(vs) = row {
                for (f, v) in fields.iter().zip(vs) {
                    if let Some(x) = above_int64(&f.ty, v) {
                        return Err(kit::cannot_hold(format!(
                            "serde-pickle: column {} row {r}: uint64 {x} is above int64, which serde-pickle reads back at most",
                            f.name
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error> {
        Ok(serde_pickle::to_vec(&rows.serde(self.layout), SerOptions::new())?)
    }

    fn decode(&self, bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error> {
        let mut de = serde_pickle::Deserializer::new(bytes, DeOptions::new());
        let rows = kit::seed(row, self.layout).deserialize(&mut de)?;
        de.end()?;
        Ok(rows)
    }
}

/// The first uint64 above `i64::MAX` in a value of type `ty`, at any depth.
fn above_int64(ty: &Ty, v: &Value) -> Option<u64> {
    match (ty, v) {
        (_, Value::U64(x)) if *x > i64::MAX as u64 => Some(*x),
        (Ty::List(e, _), Value::List(xs)) => xs.iter().find_map(|x| above_int64(e, x)),
        (Ty::Struct(fs), Value::Struct(xs)) => fs.iter().zip(xs).find_map(|(f, x)| above_int64(&f.ty, x)),
        _ => None,
    }
}

fn main() {
    kit::main(
        "rs-pickle",
        vec![
            Box::new(Pickle {
                name: "serde-pickle",
                layout: Layout::Named,
            }),
            Box::new(Pickle {
                name: "serde-pickle-tuples",
                layout: Layout::Positional,
            }),
        ],
    );
}
