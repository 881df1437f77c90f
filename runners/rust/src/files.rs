//! The optional file ops (docs/runner-protocol.md §10): `export` writes
//! the dataset as the file of the subject's format, `import` reads any
//! writer's file of it, through the dataset's schema, fields by name.
//! Implemented for the Parquet, Arrow IPC (file format) and Avro (object
//! container file) subjects, and for the row formats' subjects (JSON Lines
//! with serde_json and simd-json, MessagePack with rmp-serde, a CBOR
//! sequence with ciborium: [`crate::rowfiles`]), and for `prost`
//! (length-delimited protobuf messages, the bytes of its encode).

use std::path::Path;

use arrow_array::RecordBatch;
use bytes::Bytes;

use crate::arrowconv;
use crate::avro;
use crate::bound::{Bound, Dataset, Decoded, Res};
use crate::columnar::ParquetBound;
use crate::rowfiles;
use crate::value::{Ty, Value};

/// Whether the subject has the file ops.
pub fn has_files(subject: &str) -> bool {
    matches!(subject, "parquet" | "arrow-ipc" | "apache-avro" | "prost") || rowfiles::Fmt::of_subject(subject).is_some()
}

/// What a file op needs from the dataset, made before the timed write or
/// read: `prost`'s binding (the rows as messages, the strings of the enum
/// columns).
#[derive(Default)]
pub struct FileCtx {
    bound: Option<Box<dyn Bound>>,
}

impl FileCtx {
    fn bound(&self) -> Res<&dyn Bound> {
        self.bound.as_deref().ok_or_else(|| "no binding prepared".to_string())
    }
}

/// Prepares a file op of the subject on the dataset (outside timing); a
/// dataset the subject cannot bind to is an error here.
pub fn prepare(subject: &str, ds: &Dataset) -> Res<FileCtx> {
    Ok(FileCtx {
        bound: match subject {
            "prost" => Some(crate::protobuf::bind(ds)?),
            _ => None,
        },
    })
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Writes the dataset to path as the subject's file.
pub fn write_file(subject: &str, ds: &Dataset, ctx: &FileCtx, path: &Path) -> Res<()> {
    if let Some(fmt) = rowfiles::Fmt::of_subject(subject) {
        let ty = rowfiles::FTy::of_schema(&ds.schema)?;
        let rows = ds.rows()?;
        let f = std::fs::File::create(path).map_err(err)?;
        return rowfiles::write_rows(fmt, &ty, &rows, std::io::BufWriter::with_capacity(256 << 10, f));
    }
    match subject {
        // encode's bytes: the subjects' files are their encodings.
        "parquet" => std::fs::write(path, ParquetBound::new(ds).encode()?.as_slice()).map_err(err),
        "apache-avro" => std::fs::write(path, avro::AvroBound::new(ds)?.encode()?.as_slice()).map_err(err),
        // encode's bytes: each message preceded by its size as a varint.
        "prost" => std::fs::write(path, ctx.bound()?.encode()?.as_slice()).map_err(err),
        "arrow-ipc" => {
            let f = std::fs::File::create(path).map_err(err)?;
            let mut w = arrow_ipc::writer::FileWriter::try_new(std::io::BufWriter::new(f), &ds.schema).map_err(err)?;
            for b in &ds.batches {
                w.write(b).map_err(err)?;
            }
            w.finish().map_err(err)
        }
        s => Err(format!("unknown op export for subject {s}")),
    }
}

/// Reads the file at path with the subject's library: rows of the
/// dataset's type, or the library's objects that [`rows`] turns into them.
pub fn read_file(subject: &str, ds: &Dataset, ctx: &FileCtx, path: &Path) -> Res<Decoded> {
    if let Some(fmt) = rowfiles::Fmt::of_subject(subject) {
        let ty = rowfiles::FTy::of_schema(&ds.schema)?;
        return rowfiles::read_rows(fmt, &ty, &std::fs::read(path).map_err(err)?).map(Decoded::Rows);
    }
    if subject == "prost" {
        // decode's loop over the file: a truncated size, a size past the
        // end or a message that does not parse is an error.
        let b = Bytes::from(std::fs::read(path).map_err(err)?);
        return ctx.bound()?.decode(&b);
    }
    read_rows(subject, ds, path).map(Decoded::Rows)
}

/// The rows of the dataset's type of what [`read_file`] read (outside
/// timing).
pub fn rows(ctx: &FileCtx, d: Decoded) -> Res<Vec<Value>> {
    match d {
        Decoded::Rows(r) => Ok(r),
        d => ctx.bound()?.rows(&Bytes::new(), d),
    }
}

fn read_rows(subject: &str, ds: &Dataset, path: &Path) -> Res<Vec<Value>> {
    match subject {
        "parquet" => {
            let b = Bytes::from(std::fs::read(path).map_err(err)?);
            let r = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(b)
                .map_err(err)?
                .build()
                .map_err(err)?;
            let bs = r.collect::<Result<Vec<_>, _>>().map_err(err)?;
            rows_by_name(&ds.ty, &bs)
        }
        "arrow-ipc" => {
            let f = std::fs::File::open(path).map_err(err)?;
            let r = arrow_ipc::reader::FileReader::try_new(std::io::BufReader::new(f), None).map_err(err)?;
            let bs = r.collect::<Result<Vec<_>, _>>().map_err(err)?;
            rows_by_name(&ds.ty, &bs)
        }
        "apache-avro" => avro::read_named(&std::fs::read(path).map_err(err)?, &ds.ty),
        s => Err(format!("unknown op import for subject {s}")),
    }
}

/// Rows of the dataset's type from batches of any writer: top-level
/// columns by name (or the name made an Avro name); a missing column is
/// null.
fn rows_by_name(ty: &Ty, bs: &[RecordBatch]) -> Res<Vec<Value>> {
    let mut rows = Vec::new();
    for b in bs {
        let sch = b.schema();
        let mut cols = Vec::new();
        for f in ty.fields() {
            let i = sch
                .index_of(&f.name)
                .ok()
                .or_else(|| sch.index_of(&avro::avro_name(&f.name)).ok());
            cols.push(
                match i {
                    Some(i) => {
                        arrowconv::values(b.column(i).as_ref()).map_err(|e| format!("column {}: {e}", f.name))?
                    }
                    None => vec![Value::Null; b.num_rows()],
                }
                .into_iter(),
            );
        }
        for _ in 0..b.num_rows() {
            rows.push(Value::Struct(
                cols.iter_mut().map(|c| c.next().unwrap_or(Value::Null)).collect(),
            ));
        }
    }
    Ok(rows)
}
