//! The serde subjects: serde_json, simd-json, rmp-serde, ciborium,
//! bincode and postcard, each encoding and decoding the dataset's
//! [`Value`] rows through the schema-driven serde adapters of
//! [`crate::serde_rows`].

use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeSeed;

use crate::bound::{Bound, Dataset, Decoded, Enc, Res, SetupError};
use crate::serde_rows::{with_type, Rows, RowsSeed, TlsRows};
use crate::value::{Ty, Value};

/// The serde format (and crate) of a subject.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Json,
    SimdJson,
    Rmp,
    Cbor,
    Bincode,
    Postcard,
}

/// A serde subject bound to rows.
pub struct SerdeBound {
    ty: Arc<Ty>,
    rows: Arc<Vec<Value>>,
    kind: Kind,
    /// Structs as maps by field name (false: positional, for bincode and
    /// postcard, whose formats have no field names).
    named: bool,
}

impl SerdeBound {
    /// The subject of this kind bound to these rows of this type.
    pub fn from_rows(ty: Arc<Ty>, rows: Arc<Vec<Value>>, kind: Kind) -> SerdeBound {
        let named = !matches!(kind, Kind::Bincode | Kind::Postcard);
        SerdeBound { ty, rows, kind, named }
    }
}

/// The subject of this kind bound to the dataset's rows. JSON has no
/// NaN or infinity (serde_json writes null and then refuses to read it
/// back as a float): a dataset holding one is cannot hold, naming the
/// column and row.
pub fn bind(d: &Dataset, kind: Kind) -> Result<Box<dyn Bound>, SetupError> {
    let rows = d.rows()?;
    if matches!(kind, Kind::Json | Kind::SimdJson) {
        if let Some((col, row, v)) = first_non_finite(&d.ty, &rows) {
            return Err(SetupError::cannot_hold(format!(
                "column {col:?}: row {row} holds {v}, which JSON cannot hold"
            )));
        }
    }
    Ok(Box::new(SerdeBound::from_rows(d.ty.clone(), rows, kind)))
}

/// The first NaN or infinity in rows of type ty: its top-level column, row
/// and value.
pub fn first_non_finite(ty: &Ty, rows: &[Value]) -> Option<(String, usize, String)> {
    fn find(v: &Value) -> Option<String> {
        match v {
            Value::F32(x) if !x.is_finite() => Some(x.to_string()),
            Value::F64(x) if !x.is_finite() => Some(x.to_string()),
            Value::List(xs) | Value::Struct(xs) => xs.iter().find_map(find),
            _ => None,
        }
    }
    let Ty::Struct(fields) = ty else {
        return None;
    };
    rows.iter().enumerate().find_map(|(i, r)| match r {
        Value::Struct(vs) => vs
            .iter()
            .zip(fields)
            .find_map(|(v, f)| find(v).map(|x| (f.name.clone(), i, x))),
        _ => None,
    })
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Float32Array, Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    use super::{bind, Kind};
    use crate::bound::Dataset;

    fn dataset(ratio: Vec<f32>) -> Dataset {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("ratio", DataType::Float32, true),
        ]));
        let n = ratio.len() as i64;
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..n)),
                Arc::new(Float32Array::from(ratio)),
            ],
        )
        .unwrap();
        Dataset::new("t", schema, vec![batch]).unwrap()
    }

    /// JSON has no NaN: the JSON subjects say which value they cannot hold,
    /// the binary formats take it.
    #[test]
    fn json_cannot_hold_nan() {
        let d = dataset(vec![0.25, f32::NAN]);
        for kind in [Kind::Json, Kind::SimdJson] {
            let err = bind(&d, kind).err().expect("a NaN bound to JSON");
            assert!(err.cannot_hold, "{kind:?}: {err}");
            assert!(
                err.to_string().contains("column \"ratio\": row 1 holds NaN"),
                "{kind:?}: {err}"
            );
        }
        assert!(bind(&d, Kind::Rmp).is_ok());
        assert!(bind(&dataset(vec![0.25, -1.5]), Kind::Json).is_ok());
    }
}
