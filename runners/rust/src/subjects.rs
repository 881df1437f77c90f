//! The subjects: every one is schema-driven, bound at setup to the
//! dataset's Arrow schema. Row subjects start from [`Value`] rows (the
//! generic value tree); columnar ones from the Arrow record batches.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use serde::de::DeserializeSeed;

use crate::projection::{self, Projection};
use crate::serde_rows::{with_type, Rows, RowsSeed, TlsRows};
use crate::value::{Ty, Value};
use crate::{arrowconv, avro};

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
    Protobuf(Vec<prost_reflect::DynamicMessage>),
}

/// Encoded bytes, aligned for rkyv where needed.
pub enum Enc {
    Vec(Vec<u8>),
    Aligned(rkyv::util::AlignedVec),
}

impl Enc {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Enc::Vec(v) => v,
            Enc::Aligned(v) => v,
        }
    }
}

/// A subject bound to a dataset.
pub trait Bound {
    /// Native objects to bytes.
    fn encode(&self) -> Res<Enc>;
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
            Decoded::Count(_) | Decoded::Protobuf(_) => Err("no rows to digest".into()),
        }
    }
}

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
        "prost" => crate::protobuf::unavailable(),
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
            bind: |d| serde_bound(d, Kind::Json),
        },
        Subject {
            name: "simd-json",
            format: "json",
            krate: "simd-json",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("input_copy", "yes")],
            bind: |d| serde_bound(d, Kind::SimdJson),
        },
        Subject {
            name: "rmp-serde",
            format: "msgpack",
            krate: "rmp-serde",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_bound(d, Kind::Rmp),
        },
        Subject {
            name: "ciborium",
            format: "cbor",
            krate: "ciborium",
            ops: FILE_ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)")],
            bind: |d| serde_bound(d, Kind::Cbor),
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
            bind: |d| serde_bound(d, Kind::Bincode),
        },
        Subject {
            name: "postcard",
            format: "postcard",
            krate: "postcard",
            ops: ROW_OPS,
            labels: &[("model", "value tree (schema-driven serde)"), ("schema", "positional")],
            bind: |d| serde_bound(d, Kind::Postcard),
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
            bind: |d| {
                Ok(Box::new(RkyvBound {
                    rows: d.rows()?,
                    validated: true,
                }))
            },
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
            bind: |d| {
                Ok(Box::new(RkyvBound {
                    rows: d.rows()?,
                    validated: false,
                }))
            },
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
            bind: |d| {
                Ok(Box::new(ArrowBound {
                    schema: d.schema.clone(),
                    batches: d.batches.clone(),
                }))
            },
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
            bind: |d| {
                Ok(Box::new(ParquetBound {
                    schema: d.schema.clone(),
                    batches: d.batches.clone(),
                    mask: None,
                }))
            },
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
            bind: crate::protobuf::bind,
        },
    ]
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    SimdJson,
    Rmp,
    Cbor,
    Bincode,
    Postcard,
}

struct SerdeBound {
    ty: Arc<Ty>,
    rows: Arc<Vec<Value>>,
    kind: Kind,
    named: bool,
}

fn serde_bound(d: &Dataset, kind: Kind) -> Res<Box<dyn Bound>> {
    let named = !matches!(kind, Kind::Bincode | Kind::Postcard);
    Ok(Box::new(SerdeBound {
        ty: d.ty.clone(),
        rows: d.rows()?,
        kind,
        named,
    }))
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl Bound for SerdeBound {
    fn encode(&self) -> Res<Enc> {
        let r = Rows {
            ty: &self.ty,
            rows: &self.rows,
            named: self.named,
        };
        Ok(Enc::Vec(match self.kind {
            Kind::Json => serde_json::to_vec(&r).map_err(err)?,
            Kind::SimdJson => simd_json::to_vec(&r).map_err(err)?,
            Kind::Rmp => rmp_serde::to_vec(&r).map_err(err)?,
            Kind::Cbor => {
                let mut out = Vec::new();
                ciborium::into_writer(&r, &mut out).map_err(err)?;
                out
            }
            Kind::Bincode => bincode::serde::encode_to_vec(&r, bincode::config::standard()).map_err(err)?,
            Kind::Postcard => postcard::to_allocvec(&r).map_err(err)?,
        }))
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        let seed = RowsSeed {
            ty: &self.ty,
            named: self.named,
        };
        let rows = match self.kind {
            Kind::Json => {
                let mut de = serde_json::Deserializer::from_slice(b);
                let rows = seed.deserialize(&mut de).map_err(err)?;
                de.end().map_err(err)?;
                rows
            }
            Kind::SimdJson => {
                // simd-json parses in place: the input is copied first.
                let mut buf = b.to_vec();
                let mut de = simd_json::Deserializer::from_slice(&mut buf).map_err(err)?;
                seed.deserialize(&mut de).map_err(err)?
            }
            Kind::Rmp => {
                let mut de = rmp_serde::Deserializer::from_read_ref(b.as_ref());
                seed.deserialize(&mut de).map_err(err)?
            }
            Kind::Cbor => {
                with_type(&self.ty, true, || ciborium::from_reader::<TlsRows, _>(b.as_ref()))
                    .map_err(err)?
                    .0
            }
            Kind::Bincode => {
                bincode::serde::seed_decode_from_slice(seed, b, bincode::config::standard())
                    .map_err(err)?
                    .0
            }
            Kind::Postcard => {
                let mut de = postcard::Deserializer::from_bytes(b);
                seed.deserialize(&mut de).map_err(err)?
            }
        };
        Ok(Decoded::Rows(rows))
    }
}

type ArchivedRows = rkyv::vec::ArchivedVec<crate::value::ArchivedValue>;

/// Reads every value of an archived tree (a checksum of its leaves).
fn visit(v: &crate::value::ArchivedValue) -> u64 {
    use crate::value::ArchivedValue as A;
    match v {
        A::Null => 0,
        A::Bool(b) => *b as u64,
        A::I64(x) => x.to_native() as u64,
        A::U64(x) => x.to_native(),
        A::F32(x) => x.to_native().to_bits() as u64,
        A::F64(x) => x.to_native().to_bits(),
        A::Str(s) => s.len() as u64 + s.as_bytes().first().copied().unwrap_or(0) as u64,
        A::Bin(b) => b.len() as u64 + b.first().copied().unwrap_or(0) as u64,
        A::List(xs) | A::Struct(xs) => xs.iter().fold(xs.len() as u64, |a, x| a.wrapping_add(visit(x))),
    }
}

struct RkyvBound {
    rows: Arc<Vec<Value>>,
    validated: bool,
}

fn aligned(b: &Bytes) -> std::borrow::Cow<'_, [u8]> {
    if (b.as_ptr() as usize) % 16 == 0 {
        std::borrow::Cow::Borrowed(b.as_ref())
    } else {
        std::borrow::Cow::Owned(b.to_vec())
    }
}

impl Bound for RkyvBound {
    fn encode(&self) -> Res<Enc> {
        rkyv::to_bytes::<rkyv::rancor::Error>(&*self.rows)
            .map(Enc::Aligned)
            .map_err(err)
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        if (b.as_ptr() as usize) % 16 != 0 {
            let mut v = rkyv::util::AlignedVec::<16>::with_capacity(b.len());
            v.extend_from_slice(b);
            return self.decode(&Bytes::from_owner(v));
        }
        let rows = if self.validated {
            rkyv::access::<ArchivedRows, rkyv::rancor::Error>(b).map_err(err)?
        } else {
            // SAFETY: the bytes are the ones this subject's encode wrote
            // (checked once by the validated deserialize of the verify).
            unsafe { rkyv::access_unchecked::<ArchivedRows>(b) }
        };
        // Zero-copy: the archived rows are the native objects. Every value
        // is read once, as a consumer of all the rows would.
        let mut acc = 0u64;
        for r in rows.iter() {
            acc = acc.wrapping_add(visit(r));
        }
        Ok(Decoded::Count(acc as usize))
    }

    fn rows(&self, b: &Bytes, _d: Decoded) -> Res<Vec<Value>> {
        let a = aligned(b);
        if (a.as_ptr() as usize) % 16 != 0 {
            let mut v = rkyv::util::AlignedVec::<16>::with_capacity(a.len());
            v.extend_from_slice(&a);
            return rkyv::from_bytes::<Vec<Value>, rkyv::rancor::Error>(&v).map_err(err);
        }
        rkyv::from_bytes::<Vec<Value>, rkyv::rancor::Error>(&a).map_err(err)
    }
}

struct ArrowBound {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl Bound for ArrowBound {
    fn encode(&self) -> Res<Enc> {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &self.schema).map_err(err)?;
        for b in &self.batches {
            w.write(b).map_err(err)?;
        }
        w.finish().map_err(err)?;
        Ok(Enc::Vec(w.into_inner().map_err(err)?))
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        let mut buf = arrow_buffer::Buffer::from(b.clone());
        let mut dec = arrow_ipc::reader::StreamDecoder::new();
        let mut out = Vec::new();
        while let Some(batch) = dec.decode(&mut buf).map_err(err)? {
            out.push(batch);
        }
        dec.finish().map_err(err)?;
        Ok(Decoded::Batches(out))
    }
}

struct ParquetBound {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// A query's leaf indexes, and the count of the schema's leaves.
    mask: Option<(Vec<usize>, usize)>,
}

impl ParquetBound {
    fn read(&self, b: &Bytes, mask: Option<&(Vec<usize>, usize)>) -> Res<Decoded> {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let mut rb = ParquetRecordBatchReaderBuilder::try_new(b.clone()).map_err(err)?;
        if let Some((l, total)) = mask {
            if rb.parquet_schema().num_columns() != *total {
                return Err(format!(
                    "the Parquet file has {} leaf columns, the Arrow schema {total}: no leaf projection",
                    rb.parquet_schema().num_columns()
                ));
            }
            let mask = parquet::arrow::ProjectionMask::leaves(rb.parquet_schema(), l.iter().copied());
            rb = rb.with_projection(mask);
        }
        let r = rb.build().map_err(err)?;
        Ok(Decoded::Batches(r.collect::<Result<Vec<_>, _>>().map_err(err)?))
    }
}

impl Bound for ParquetBound {
    fn encode(&self) -> Res<Enc> {
        use parquet::arrow::ArrowWriter;
        use parquet::basic::Compression;
        use parquet::file::properties::WriterProperties;
        let props = WriterProperties::builder()
            .set_compression(Compression::UNCOMPRESSED)
            .build();
        let mut w = ArrowWriter::try_new(Vec::new(), self.schema.clone(), Some(props)).map_err(err)?;
        for b in &self.batches {
            w.write(b).map_err(err)?;
        }
        Ok(Enc::Vec(w.into_inner().map_err(err)?))
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        self.read(b, None)
    }

    fn prepare_query(&mut self, p: &Projection) -> Res<()> {
        // The Parquet leaves are the Arrow schema's leaves in order (§7.1);
        // each read checks that the file has as many.
        let ty = Ty::of_schema(&self.schema).map_err(err)?;
        let total = crate::digest::leaves(&ty)?.len();
        self.mask = Some((p.leaf_indexes.clone(), total));
        Ok(())
    }

    fn query(&self, b: &Bytes, _p: &Projection) -> Res<Decoded> {
        self.read(b, self.mask.as_ref())
    }
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
            let named = !matches!(k, Kind::Bincode | Kind::Postcard);
            out.push((
                n,
                Box::new(SerdeBound {
                    ty: ty.clone(),
                    rows: rows.clone(),
                    kind: k,
                    named,
                }),
            ));
        }
        out.push((
            "apache-avro",
            Box::new(avro::AvroBound::from_rows(ty.clone(), rows.clone()).expect("avro schema")),
        ));
        out.push((
            "rkyv",
            Box::new(RkyvBound {
                rows: rows.clone(),
                validated: true,
            }),
        ));
        out.push(("rkyv-unchecked", Box::new(RkyvBound { rows, validated: false })));
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
