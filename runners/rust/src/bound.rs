//! What every subject implements, and the types its implementations
//! share: the [`Bound`] trait (a subject bound to a dataset), the
//! [`Dataset`] it binds to, what its ops return, and the [`Subject`] the
//! runner serves (its `hello` descriptor and its binding). The subject
//! modules (`serde_formats`, `archived`, `columnar`, `avro`, `protobuf`)
//! depend on this module; the subject list (`subjects`), the file ops
//! (`files`) and the kit (`kit`) depend on them, and nothing they use
//! depends on those.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;

use crate::arrowconv;
use crate::projection::{self, Projection};
use crate::value::{Ty, Value};

/// Result with a one-line message.
pub type Res<T> = Result<T, String>;

/// A dataset of the work directory: its schema, batches, and (built on
/// first use) its native rows.
pub struct Dataset {
    pub name: String,
    pub schema: SchemaRef,
    pub ty: Arc<Ty>,
    pub batches: Vec<RecordBatch>,
    rows: OnceLock<Result<Arc<Vec<Value>>, String>>,
}

impl Dataset {
    /// A dataset of these batches.
    pub fn new(name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Res<Dataset> {
        let ty = Ty::of_schema(&schema).map_err(|e| e.to_string())?;
        Ok(Dataset {
            name: name.into(),
            schema,
            ty: Arc::new(ty),
            batches,
            rows: OnceLock::new(),
        })
    }

    /// Reads an Arrow IPC stream file.
    pub fn read(name: &str, path: &std::path::Path) -> Res<Dataset> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let r = arrow_ipc::reader::StreamReader::try_new(std::io::BufReader::new(f), None)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let schema = r.schema();
        let batches = r
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Dataset::new(name, schema, batches)
    }

    /// The number of rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    /// The native rows (built once, outside timing).
    pub fn rows(&self) -> Res<Arc<Vec<Value>>> {
        self.rows
            .get_or_init(|| arrowconv::rows_of(&self.batches).map(Arc::new))
            .clone()
    }
}

/// An op's result, held until the next iteration.
pub enum Decoded {
    Rows(Vec<Value>),
    Batches(Vec<RecordBatch>),
    /// An archived view's row count (rkyv: the decode is an access).
    Count(usize),
    /// protobuf messages (prost-reflect's dynamic messages).
    #[cfg(feature = "subjects")]
    Protobuf(Vec<prost_reflect::DynamicMessage>),
}

/// Encoded bytes, aligned for rkyv where needed.
pub enum Enc {
    Vec(Vec<u8>),
    /// Aligned for rkyv.
    #[cfg(feature = "subjects")]
    Aligned(rkyv::util::AlignedVec),
}

impl Enc {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Enc::Vec(v) => v,
            #[cfg(feature = "subjects")]
            Enc::Aligned(v) => v,
        }
    }
}

/// Why a case could not be set up: its `error` line (phase `setup`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    /// The message, one line.
    pub message: String,
    /// The subject's format cannot represent the dataset (§3.4): the line
    /// says `"cannot_hold": true` and serbench records "cannot hold".
    pub cannot_hold: bool,
}

impl SetupError {
    /// A dataset the subject's format cannot represent.
    pub fn cannot_hold(message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            cannot_hold: true,
        }
    }
}

impl From<String> for SetupError {
    fn from(message: String) -> SetupError {
        SetupError {
            message,
            cannot_hold: false,
        }
    }
}

impl From<&str> for SetupError {
    fn from(message: &str) -> SetupError {
        SetupError::from(message.to_string())
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// How a subject binds to a dataset, once per case, outside timing.
pub type Bind = Box<dyn Fn(&Dataset) -> Result<Box<dyn Bound>, SetupError>>;

/// A subject as the runner serves it: its `hello` descriptor (§3.1) and
/// its binding. The built-in subjects (`subjects::all`) and the kit's
/// (`kit::main`) are both made into this.
pub struct Subject {
    /// Unique within the runner; serbench shows `RUNNER:name`.
    pub name: String,
    /// The encoding's name (`json`, `msgpack`).
    pub format: String,
    /// What does the work: a crate's name.
    pub library: String,
    /// The library's version.
    pub version: String,
    /// The ops it announces (`encode`, `decode`, `query`, `export`, `import`).
    pub ops: Vec<String>,
    /// serbench's labels, the defaults included (see [`default_labels`]).
    pub labels: BTreeMap<String, String>,
    /// Whether `files` implements its `export` and `import` (§10).
    pub files: bool,
    /// Its binding to a dataset.
    pub bind: Bind,
}

impl Subject {
    /// Whether it announces this op.
    pub fn has_op(&self, op: &str) -> bool {
        self.ops.iter().any(|o| o == op)
    }
}

/// serbench's labels of a subject that says nothing else: `codegen=no`,
/// `reuse=no`, `zero_copy=no`, `time_precision=us`.
pub fn default_labels() -> BTreeMap<String, String> {
    [
        ("codegen", "no"),
        ("reuse", "no"),
        ("zero_copy", "no"),
        ("time_precision", "us"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// A subject bound to a dataset.
pub trait Bound {
    /// Native objects to bytes.
    fn encode(&self) -> Res<Enc>;
    /// The first encode of a case, outside timing, in its setup (its bytes
    /// are the input of a decode): [`Bound::encode`], unless the subject can
    /// tell a value its format cannot hold from another failure.
    fn setup_encode(&self) -> Result<Enc, SetupError> {
        Ok(self.encode()?)
    }
    /// Bytes to native objects.
    fn decode(&self, b: &Bytes) -> Res<Decoded>;
    /// Prepares `query` for this projection (an Avro reader schema).
    fn prepare_query(&mut self, _p: &Projection) -> Res<()> {
        Ok(())
    }
    /// Bytes to the projection's objects: by default, decode then project.
    fn query(&self, b: &Bytes, p: &Projection) -> Res<Decoded> {
        match self.decode(b)? {
            Decoded::Rows(rows) => Ok(Decoded::Rows(projection::project_rows(rows, p))),
            other => Ok(other),
        }
    }
    /// The decoded rows, for the digest (outside timing).
    fn rows(&self, _b: &Bytes, d: Decoded) -> Res<Vec<Value>> {
        match d {
            Decoded::Rows(r) => Ok(r),
            Decoded::Batches(bs) => arrowconv::rows_of(&bs),
            Decoded::Count(_) => Err("no rows to digest".into()),
            #[cfg(feature = "subjects")]
            Decoded::Protobuf(_) => Err("no rows to digest".into()),
        }
    }
}
