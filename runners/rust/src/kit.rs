//! The runner kit: your own Rust serializer in serbench's tables.
//!
//! serbench measures subjects in other runtimes through *runners*, programs
//! that speak its runner protocol (docs/runner-protocol.md). This module is
//! that protocol for a Rust library serbench does not ship: implement
//! [`Subject`] — an [`encode`](Subject::encode) of the kit's rows to bytes
//! and a [`decode`](Subject::decode) of those bytes back to rows — and make
//! [`main`] your `main`:
//!
//! ```no_run
//! use serbench_runner::kit::{self, Error, Layout, Rows, Ty, Value};
//!
//! struct Json;
//!
//! impl kit::Subject for Json {
//!     fn name(&self) -> &str {
//!         "json"
//!     }
//!
//!     fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error> {
//!         Ok(serde_json::to_vec(&rows.serde(Layout::Named))?)
//!     }
//!
//!     fn decode(&self, bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error> {
//!         use serde::de::DeserializeSeed;
//!         let mut de = serde_json::Deserializer::from_slice(bytes);
//!         Ok(kit::seed(row, Layout::Named).deserialize(&mut de)?)
//!     }
//! }
//!
//! fn main() {
//!     kit::main("mine", vec![Box::new(Json)]);
//! }
//! ```
//!
//! Then, from a serbench checkout:
//!
//! ```text
//! serbench runner check 'target/release/mine'
//! serbench run records --runner mine='target/release/mine'
//! ```
//!
//! The kit does the rest, with the code serbench's built-in Rust runner
//! runs (its `main` is the same [`crate::serve::serve`] over the built-in
//! subjects): `hello`, reading the work directory (`run.json`,
//! `cases.jsonl`, each dataset's `data.arrows`), building the rows outside
//! timing, verifying every case by the §7 digest of what `decode`
//! returned, calibration, interleaved rounds, every codec the built-in
//! runner has around `encode` and `decode`, the `copy` limit rows,
//! allocation counts, `error` lines, SIGTERM at a sample boundary and the
//! exit codes.
//!
//! **What encode gets and decode returns.** [`Rows`] are the dataset's
//! rows as the kit's value tree: one [`Value::Struct`] per row, its fields
//! by position in the order of the row type's [`Ty::Struct`] fields. The
//! leaves are canonical as the digest reads them: integers `I64` or `U64`,
//! float32 (and float16) `F32`, float64 `F64`, strings `Str`, binaries
//! `Bin`, timestamps, times and durations in microseconds (`I64`,
//! nanoseconds floored), dates in days (`I64`), decimals their plain string
//! at the column's scale (`Str`), lists `List`, maps lists of `{key, value}`
//! structs, a null `Null`. `decode` must build every value back, in the
//! same form: the kit digests what it returned through the row type, and
//! serbench compares that with its own digest, so a value the library
//! changes (a float narrowed, a string trimmed) makes the case FAILED,
//! naming the column. For a serde library, [`Rows::serde`] and [`seed`]
//! are that mapping, written once: a [`Layout::Named`] row is a map keyed
//! by field name, a [`Layout::Positional`] one a tuple, a nullable field
//! an `Option`.
//!
//! **Errors.** An error (or a panic) in `encode` or `decode` is an `error`
//! line or a failed verify for that case; the runner goes on with the
//! others. A dataset the format cannot represent is said with
//! [`cannot_hold`] from [`Subject::check`] (a column's type, a value) or
//! from the first `encode` of a case: serbench records it "cannot hold",
//! not FAILED.
//!
//! **Build.** The library declares the global allocator (it counts
//! allocations for `allocs_per_op`), so a kit runner declares none. Build
//! it with `--release`; `hello` reports the profile and opt-level it was
//! built with. Panics must unwind (the default `panic = "unwind"`) for one
//! to stay within its case.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use bytes::Bytes;
use serde::de::{DeserializeSeed, Deserializer};
use serde::{Serialize, Serializer};

use crate::bound::{self, default_labels, Bound, Dataset, Decoded, Enc, Res, SetupError};
use crate::out::log;
use crate::serde_rows;
use crate::serve::{self, Serving};
pub use crate::value::{Field, IntKind, Ty, Value};

/// What a subject's methods return on failure: any error (`?` converts
/// every `std::error::Error`, and `String` and `&str` messages).
pub type Error = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A serialization library as serbench measures it: a name, an optional
/// description, an `encode` and a `decode` of the kit's rows.
///
/// Every method is called outside timing except `encode` and `decode`,
/// which are what serbench times (the case's codec is applied around
/// them). A case calls [`check`](Subject::check), then `encode` once to get
/// the input of a decode, then verifies `decode(encode(rows))` by its
/// digest, then measures.
pub trait Subject {
    /// The subject's name, unique within the runner: serbench shows
    /// `RUNNER:name`.
    fn name(&self) -> &str;

    /// The subject's format, library, version and labels, for `hello`
    /// (§3.1). By default the format and library are the name and the
    /// version is `unknown`.
    fn describe(&self) -> Description {
        Description::new(self.name(), self.name(), "unknown")
    }

    /// Whether the subject can measure a dataset, given its rows (their
    /// type is [`Rows::ty`]), once per case before anything is encoded: an
    /// error made with [`cannot_hold`], naming the column (and the row, for
    /// a value), says the format has no form for one of its types or
    /// values. Every dataset is accepted by default.
    fn check(&self, rows: Rows<'_>) -> Result<(), Error> {
        let _ = rows;
        Ok(())
    }

    /// The rows, encoded (timed).
    fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error>;

    /// The rows `encode` encoded, decoded from `bytes` (timed): every value
    /// read and built back into the kit's form, of the row type `row`.
    fn decode(&self, bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error>;
}

/// What `hello` says of a subject: its format, library, version and
/// serbench's fairness labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    format: String,
    library: String,
    version: String,
    labels: BTreeMap<String, String>,
}

impl Description {
    /// A subject of `format` (`json`, `msgpack`: subjects of one format are
    /// compared with each other) through `library` (the crate's name) at
    /// `version` (see [`locked_version`]), with the default labels:
    /// `codegen=no`, `reuse=no`, `zero_copy=no`, `time_precision=us` (the
    /// kit's values are microseconds).
    pub fn new(format: &str, library: &str, version: &str) -> Description {
        Description {
            format: format.into(),
            library: library.into(),
            version: version.into(),
            labels: default_labels(),
        }
    }

    /// The description with a label set (or replaced): `model`, `schema`,
    /// `zero_copy=yes` for a decode that returns a view without building
    /// values (then say so in `model`), `nesting=flat` for a library that
    /// holds only scalar columns (serbench then sends it no dataset with a
    /// list or struct column).
    pub fn label(mut self, key: &str, value: &str) -> Description {
        self.labels.insert(key.into(), value.into());
        self
    }

    /// The format.
    pub fn format(&self) -> &str {
        &self.format
    }

    /// The library.
    pub fn library(&self) -> &str {
        &self.library
    }

    /// The library's version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The labels, the defaults included.
    pub fn labels(&self) -> &BTreeMap<String, String> {
        &self.labels
    }
}

/// The rows of a dataset, as `encode` gets them: the values and their row
/// type.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    ty: &'a Ty,
    values: &'a [Value],
}

impl<'a> Rows<'a> {
    /// Rows of this row type (a [`Ty::Struct`]); each value a
    /// [`Value::Struct`] of its fields.
    pub fn new(ty: &'a Ty, values: &'a [Value]) -> Rows<'a> {
        Rows { ty, values }
    }

    /// The row type: a [`Ty::Struct`] of the dataset's columns.
    pub fn ty(&self) -> &'a Ty {
        self.ty
    }

    /// The rows, one [`Value::Struct`] each.
    pub fn values(&self) -> &'a [Value] {
        self.values
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The rows as serde serializes them, a sequence of rows in `layout`:
    /// what a derived `Serialize` of a struct per row (`Option` for a
    /// nullable field) would write, for a schema known only at run time.
    /// [`seed`] reads it back.
    pub fn serde(&self, layout: Layout) -> SerdeRows<'a> {
        SerdeRows(serde_rows::Rows {
            ty: self.ty,
            rows: self.values,
            named: layout == Layout::Named,
        })
    }
}

/// How a struct (a row, a struct column) is written through serde.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A map keyed by field name, for self-describing formats (JSON,
    /// MessagePack, CBOR, pickle).
    Named,
    /// A tuple of the fields in order, for formats without field names
    /// (bincode, postcard).
    Positional,
}

/// The rows as a [`Serialize`] value (see [`Rows::serde`]).
pub struct SerdeRows<'a>(serde_rows::Rows<'a>);

impl Serialize for SerdeRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The seed that deserializes what [`Rows::serde`] wrote into rows of
/// the row type `row`, asking the format for exactly the types that were
/// written, so formats that are not self-describing work too.
pub fn seed(row: &Ty, layout: Layout) -> RowsSeed<'_> {
    RowsSeed(serde_rows::RowsSeed {
        ty: row,
        named: layout == Layout::Named,
    })
}

/// A [`DeserializeSeed`] of rows (see [`seed`]).
#[derive(Clone, Copy)]
pub struct RowsSeed<'a>(serde_rows::RowsSeed<'a>);

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = Vec<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Value>, D::Error> {
        self.0.deserialize(d)
    }
}

/// The error of a dataset the subject's format cannot represent (see
/// [`cannot_hold`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CannotHold {
    message: String,
}

impl fmt::Display for CannotHold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CannotHold {}

/// An error saying the subject's format cannot represent the dataset —
/// a type it has no form for, a value out of its range — rather than that
/// something went wrong: `message` names the column (and the row, for a
/// value). Returned from [`Subject::check`] or a case's first `encode`, the
/// case is recorded "cannot hold", not FAILED.
pub fn cannot_hold(message: impl Into<String>) -> Error {
    Box::new(CannotHold {
        message: message.into(),
    })
}

/// Whether the error, or one it was caused by, is a [`CannotHold`].
fn is_cannot_hold(e: &Error) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e.as_ref());
    while let Some(x) = cur {
        if x.is::<CannotHold>() {
            return true;
        }
        cur = x.source();
    }
    false
}

/// The message of an error and of what caused it, `: `-separated.
fn message(e: &Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(x) = cur {
        let m = x.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        cur = x.source();
    }
    s
}

/// Calls a subject's method, a panic made into an error.
fn call<T>(what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let m = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(format!("{what} panicked: {m}").into())
        }
    }
}

/// A kit subject bound to a dataset's rows.
struct KitBound {
    subject: Arc<dyn Subject>,
    ty: Arc<Ty>,
    rows: Arc<Vec<Value>>,
}

impl KitBound {
    fn encode_rows(&self) -> Result<Vec<u8>, Error> {
        call("encode", || self.subject.encode(Rows::new(&self.ty, &self.rows)))
    }
}

impl Bound for KitBound {
    fn encode(&self) -> Res<Enc> {
        self.encode_rows().map(Enc::Vec).map_err(|e| message(&e))
    }

    fn setup_encode(&self) -> Result<Enc, SetupError> {
        self.encode_rows().map(Enc::Vec).map_err(|e| SetupError {
            message: format!("encode: {}", message(&e)),
            cannot_hold: is_cannot_hold(&e),
        })
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        call("decode", || self.subject.decode(b, &self.ty))
            .map(Decoded::Rows)
            .map_err(|e| message(&e))
    }
}

/// The subject as the runner serves it.
fn served(subject: Box<dyn Subject>) -> bound::Subject {
    let d = subject.describe();
    let subject: Arc<dyn Subject> = Arc::from(subject);
    let name = subject.name().to_string();
    bound::Subject {
        name,
        format: d.format,
        library: d.library,
        version: d.version,
        ops: ["encode", "decode", "query"].map(String::from).to_vec(),
        labels: d.labels,
        files: false,
        bind: Box::new(move |ds: &Dataset| -> Result<Box<dyn Bound>, SetupError> {
            let rows = ds.rows()?;
            call("check", || subject.check(Rows::new(&ds.ty, &rows))).map_err(|e| SetupError {
                message: message(&e),
                cannot_hold: is_cannot_hold(&e),
            })?;
            Ok(Box::new(KitBound {
                subject: subject.clone(),
                ty: ds.ty.clone(),
                rows,
            }))
        }),
    }
}

/// Serves the runner protocol on the process's command line, as serbench
/// starts a runner (`hello --protocol 1`, `run --protocol 1 --work DIR`),
/// with these subjects, and exits with its status: 0 when every case was
/// attempted, 1 for the runner's own failure (an unreadable work
/// directory, two subjects of one name) or a signal, 2 for a usage error
/// or another protocol version.
///
/// `runner` is the runner's name in `hello` (serbench names a runner added
/// with `--runner NAME=COMMAND` by NAME, so make them one).
pub fn main(runner: &str, subjects: Vec<Box<dyn Subject>>) -> ! {
    let args: Vec<String> = std::env::args().collect();
    std::process::exit(serve_args(runner, subjects, &args))
}

/// [`main`]'s work, on these arguments (the program's name first); returns
/// the exit status.
fn serve_args(runner: &str, subjects: Vec<Box<dyn Subject>>, args: &[String]) -> i32 {
    let serving = Serving {
        runner: runner.to_string(),
        profile_flags: Vec::new(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for s in &subjects {
        let n = s.name();
        if n.is_empty() || !seen.insert(n.to_string()) {
            let why = if n.is_empty() {
                "a subject without a name".to_string()
            } else {
                format!("two subjects named {n}")
            };
            log(&why);
            return serve::refuse(&serving, &why);
        }
    }
    if runner.is_empty() {
        return serve::refuse(&serving, "a runner without a name");
    }
    serve::serve(&serving, args, || subjects.into_iter().map(served).collect())
}

/// The version of the crate `krate` in a `Cargo.lock` (the first one
/// listed under that name): the version your runner was built with, when
/// given its own lock, `include_str!("../Cargo.lock")`.
///
/// ```
/// let lock = "[[package]]\nname = \"serde-pickle\"\nversion = \"1.2.0\"\n";
/// assert_eq!(serbench_runner::kit::locked_version(lock, "serde-pickle"), Some("1.2.0"));
/// assert_eq!(serbench_runner::kit::locked_version(lock, "serde"), None);
/// ```
pub fn locked_version<'a>(lock: &'a str, krate: &str) -> Option<&'a str> {
    let mut name = None;
    for line in lock.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("name = \"") {
            name = v.strip_suffix('"');
        } else if let Some(v) = line.strip_prefix("version = \"") {
            if name.take() == Some(krate) {
                return v.strip_suffix('"');
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannot_hold_is_found_through_the_chain() {
        assert!(is_cannot_hold(&cannot_hold("column tags: a list")));
        #[derive(Debug)]
        struct Wrap(Error);
        impl fmt::Display for Wrap {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("wrapped")
            }
        }
        impl std::error::Error for Wrap {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(self.0.as_ref())
            }
        }
        let e: Error = Box::new(Wrap(cannot_hold("column x")));
        assert!(is_cannot_hold(&e));
        assert_eq!(message(&e), "wrapped: column x");
        assert!(!is_cannot_hold(&Error::from("no")));
    }

    #[test]
    fn a_panic_is_an_error() {
        let r: Result<(), Error> = call("decode", || panic!("index out of range"));
        assert_eq!(r.unwrap_err().to_string(), "decode panicked: index out of range");
    }

    #[test]
    fn lock_versions() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"b\"\nversion = \"2.1.0\"\nsource = \"x\"\n";
        assert_eq!(locked_version(lock, "b"), Some("2.1.0"));
        assert_eq!(locked_version(lock, "a"), Some("1.0.0"));
        assert_eq!(locked_version(lock, "c"), None);
    }
}
