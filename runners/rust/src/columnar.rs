//! The columnar subjects: Arrow IPC (the stream format) and Parquet
//! (uncompressed pages), both on the dataset's record batches.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;

use crate::bound::{Bound, Dataset, Decoded, Enc, Res};
use crate::projection::Projection;
use crate::value::Ty;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The arrow-ipc subject bound to a dataset's batches.
pub struct ArrowBound {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowBound {
    /// The subject bound to the dataset.
    pub fn new(d: &Dataset) -> ArrowBound {
        ArrowBound {
            schema: d.schema.clone(),
            batches: d.batches.clone(),
        }
    }
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

/// The parquet subject bound to a dataset's batches.
pub struct ParquetBound {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// A query's leaf indexes, and the count of the schema's leaves.
    mask: Option<(Vec<usize>, usize)>,
}

impl ParquetBound {
    /// The subject bound to the dataset.
    pub fn new(d: &Dataset) -> ParquetBound {
        ParquetBound {
            schema: d.schema.clone(),
            batches: d.batches.clone(),
            mask: None,
        }
    }

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
