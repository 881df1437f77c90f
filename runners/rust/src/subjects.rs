//! The subject list: every built-in subject's `hello` descriptor and how
//! it binds to a dataset. Every one is schema-driven, bound at setup to the
//! dataset's Arrow schema. Row subjects start from [`Value`] rows (the
//! generic value tree); columnar ones from the Arrow record batches. The
//! subjects themselves are in their modules, which implement
//! [`crate::bound::Bound`]; this module depends on them, not they on it.
//! Each is made into the [`Subject`] the runner serves, as the kit's
//! subjects are.

use std::sync::Arc;

use crate::archived::RkyvBound;
use crate::bound::{default_labels, Bound, Dataset, Res, SetupError, Subject};
use crate::columnar::{ArrowBound, ParquetBound};
use crate::serde_formats::{self, Kind};
use crate::value::{Ty, Value};
use crate::{avro, files, protobuf, versions};

/// A built-in subject as the list declares it.
struct Builtin {
    name: &'static str,
    format: &'static str,
    /// The crate, whose locked version `hello` reports.
    krate: &'static str,
    ops: &'static [&'static str],
    labels: &'static [(&'static str, &'static str)],
    bind: fn(&Dataset) -> Result<Box<dyn Bound>, SetupError>,
}

impl Builtin {
    /// The subject the runner serves: the default labels, then its own.
    fn subject(self) -> Subject {
        let mut labels = default_labels();
        for (k, v) in self.labels {
            labels.insert(k.to_string(), v.to_string());
        }
        let bind = self.bind;
        Subject {
            name: self.name.into(),
            format: self.format.into(),
            library: self.krate.into(),
            version: versions::version(self.krate).into(),
            ops: self.ops.iter().map(|o| o.to_string()).collect(),
            labels,
            files: files::has_files(self.name),
            bind: Box::new(bind),
        }
    }
}

const ROW_OPS: &[&str] = &["encode", "decode", "query"];
/// The subjects that need something this machine may lack, and why they
/// cannot run here (None when they can).
fn unavailable(name: &str) -> Option<String> {
    match name {
        "prost" => protobuf::unavailable(),
        _ => None,
    }
}

/// The subjects that can run here, in hello order; log hears of the others
/// (one line each).
pub fn available(log: impl Fn(&str)) -> Vec<Subject> {
    all()
        .into_iter()
        .filter(|s| match unavailable(&s.name) {
            None => true,
            Some(why) => {
                log(&format!("subject {} not available: {why}", s.name));
                false
            }
        })
        .collect()
}

const FILE_ROW_OPS: &[&str] = &["encode", "decode", "query", "export", "import"];

/// Every built-in subject, in hello order.
pub fn all() -> Vec<Subject> {
    table().into_iter().map(Builtin::subject).collect()
}

/// The list, in hello order.
fn table() -> Vec<Builtin> {
    vec![
        Builtin {
            name: "serde_json",
            format: "json",
            krate: "serde_json",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Json),
        },
        Builtin {
            name: "simd-json",
            format: "json",
            krate: "simd-json",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("input_copy", "yes")],
            bind: |d| serde_formats::bind(d, Kind::SimdJson),
        },
        Builtin {
            name: "rmp-serde",
            format: "msgpack",
            krate: "rmp-serde",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Rmp),
        },
        Builtin {
            name: "ciborium",
            format: "cbor",
            krate: "ciborium",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Cbor),
        },
        Builtin {
            name: "bincode",
            format: "bincode",
            krate: "bincode",
            ops: ROW_OPS,
            labels: &[
                ("model", "value tree (schema-driven serde)"),
                ("schema", "positional"),
                ("config", "standard"),
            ],
            bind: |d| serde_formats::bind(d, Kind::Bincode),
        },
        Builtin {
            name: "postcard",
            format: "postcard",
            krate: "postcard",
            ops: ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("schema", "positional")],
            bind: |d| serde_formats::bind(d, Kind::Postcard),
        },
        Builtin {
            name: "apache-avro",
            format: "avro",
            krate: "apache-avro",
            ops: FILE_ROW_OPS,
            labels: &[("model", "apache_avro::types::Value (generic)"), ("container", "ocf")],
            bind: |d| Ok(Box::new(avro::AvroBound::new(d)?)),
        },
        Builtin {
            name: "rkyv",
            format: "rkyv",
            krate: "rkyv",
            ops: &["encode", "decode"],
            labels: &[
                ("model", "value tree (archived)"),
                ("zero_copy", "yes"),
                ("access", "validated"),
                ("read", "every value"),
            ],
            bind: |d| Ok(Box::new(RkyvBound::new(d.rows()?, true))),
        },
        Builtin {
            name: "rkyv-unchecked",
            format: "rkyv",
            krate: "rkyv",
            ops: &["encode", "decode"],
            labels: &[
                ("model", "value tree (archived)"),
                ("zero_copy", "yes"),
                ("access", "unchecked"),
                ("read", "every value"),
            ],
            bind: |d| Ok(Box::new(RkyvBound::new(d.rows()?, false))),
        },
        Builtin {
            name: "arrow-ipc",
            format: "arrow-ipc-stream",
            krate: "arrow-ipc",
            ops: &["encode", "decode", "export", "import"],
            labels: &[
                ("model", "RecordBatch (columnar)"),
                ("layout", "columnar"),
                ("zero_copy", "yes"),
            ],
            bind: |d| Ok(Box::new(ArrowBound::new(d))),
        },
        Builtin {
            name: "parquet",
            format: "parquet",
            krate: "parquet",
            ops: FILE_ROW_OPS,
            labels: &[
                ("model", "RecordBatch (columnar)"),
                ("layout", "columnar"),
                ("page_compression", "none"),
            ],
            bind: |d| Ok(Box::new(ParquetBound::new(d))),
        },
        Builtin {
            name: "prost",
            format: "protobuf",
            krate: "prost-reflect",
            ops: FILE_ROW_OPS,
            labels: &[
                (
                    "model",
                    "prost-reflect DynamicMessage over the nested .proto descriptors",
                ),
                ("framing", "length-delimited records"),
                ("schemas", "tpch LineItem, media Record, userevents Record"),
                ("query", "full decode, then projection"),
            ],
            bind: |d| Ok(protobuf::bind(d)?),
        },
    ]
}

/// Bindings for tests and the criterion check, without a work directory.
pub mod testing {
    use super::*;

    /// Every row subject bound to these rows.
    pub fn row_bounds(ty: Arc<Ty>, rows: Arc<Vec<Value>>) -> Vec<(&'static str, Box<dyn Bound>)> {
        let mut out: Vec<(&'static str, Box<dyn Bound>)> = Vec::new();
        for (n, k) in [
            ("serde_json", Kind::Json),
            ("simd-json", Kind::SimdJson),
            ("rmp-serde", Kind::Rmp),
            ("ciborium", Kind::Cbor),
            ("bincode", Kind::Bincode),
            ("postcard", Kind::Postcard),
        ] {
            out.push((
                n,
                Box::new(serde_formats::SerdeBound::from_rows(ty.clone(), rows.clone(), k)),
            ));
        }
        out.push((
            "apache-avro",
            Box::new(avro::AvroBound::from_rows(ty.clone(), rows.clone()).expect("avro schema")),
        ));
        out.push(("rkyv", Box::new(RkyvBound::new(rows.clone(), true))));
        out.push(("rkyv-unchecked", Box::new(RkyvBound::new(rows, false))));
        out
    }

    /// A subject by name bound to a dataset.
    pub fn bind(name: &str, d: &Dataset) -> Res<Box<dyn Bound>> {
        let s = all()
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("no subject {name}"))?;
        (s.bind)(d).map_err(|e| e.message)
    }
}
