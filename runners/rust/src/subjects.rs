//! The subject list: every subject's `hello` descriptor and how it binds
//! to a dataset. Every one is schema-driven, bound at setup to the
//! dataset's Arrow schema. Row subjects start from [`Value`] rows (the
//! generic value tree); columnar ones from the Arrow record batches. The
//! subjects themselves are in their modules, which implement
//! [`crate::bound::Bound`]; this module depends on them, not they on it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::archived::RkyvBound;
use crate::bound::{Bound, Dataset, Res};
use crate::columnar::{ArrowBound, ParquetBound};
use crate::serde_formats::{self, Kind};
use crate::value::{Ty, Value};
use crate::{avro, protobuf};

/// A subject: its `hello` descriptor and how it binds.
pub struct Subject {
    pub name: &'static str,
    pub format: &'static str,
    /// The crate, whose locked version `hello` reports.
    pub krate: &'static str,
    pub ops: &'static [&'static str],
    pub labels: &'static [(&'static str, &'static str)],
    pub bind: fn(&Dataset) -> Res<Box<dyn Bound>>,
}

impl Subject {
    /// serbench's labels: the defaults, then the subject's own.
    pub fn all_labels(&self) -> BTreeMap<String, String> {
        let mut m: BTreeMap<String, String> = [
            ("codegen", "no"),
            ("reuse", "no"),
            ("zero_copy", "no"),
            ("time_precision", "us"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (k, v) in self.labels {
            m.insert(k.to_string(), v.to_string());
        }
        m
    }
}

const ROW_OPS: &[&str] = &["encode", "decode", "query"];
/// The subjects that need something this machine may lack, and why they
/// cannot run here (None when they can).
fn unavailable(s: &Subject) -> Option<String> {
    match s.name {
        "prost" => protobuf::unavailable(),
        _ => None,
    }
}

/// The subjects that can run here, in hello order; log hears of the others
/// (one line each).
pub fn available(log: impl Fn(&str)) -> Vec<Subject> {
    all()
        .into_iter()
        .filter(|s| match unavailable(s) {
            None => true,
            Some(why) => {
                log(&format!("subject {} not available: {why}", s.name));
                false
            }
        })
        .collect()
}

const FILE_ROW_OPS: &[&str] = &["encode", "decode", "query", "export", "import"];

/// Every subject, in hello order.
pub fn all() -> Vec<Subject> {
    vec![
        Subject {
            name: "serde_json",
            format: "json",
            krate: "serde_json",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Json),
        },
        Subject {
            name: "simd-json",
            format: "json",
            krate: "simd-json",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("input_copy", "yes")],
            bind: |d| serde_formats::bind(d, Kind::SimdJson),
        },
        Subject {
            name: "rmp-serde",
            format: "msgpack",
            krate: "rmp-serde",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Rmp),
        },
        Subject {
            name: "ciborium",
            format: "cbor",
            krate: "ciborium",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_formats::bind(d, Kind::Cbor),
        },
        Subject {
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
        Subject {
            name: "postcard",
            format: "postcard",
            krate: "postcard",
            ops: ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("schema", "positional")],
            bind: |d| serde_formats::bind(d, Kind::Postcard),
        },
        Subject {
            name: "apache-avro",
            format: "avro",
            krate: "apache-avro",
            ops: FILE_ROW_OPS,
            labels: &[("model", "apache_avro::types::Value (generic)"), ("container", "ocf")],
            bind: |d| Ok(Box::new(avro::AvroBound::new(d)?)),
        },
        Subject {
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
        Subject {
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
        Subject {
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
        Subject {
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
        Subject {
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
            bind: protobuf::bind,
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
        (s.bind)(d)
    }
}
