//! The serde subjects: serde_json, simd-json, rmp-serde, ciborium,
//! bincode and postcard, each encoding and decoding the dataset's
//! [`Value`] rows through the schema-driven serde adapters of
//! [`crate::serde_rows`].

use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeSeed;

use crate::bound::{Bound, Dataset, Decoded, Enc, Res};
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

/// The subject of this kind bound to the dataset's rows.
pub fn bind(d: &Dataset, kind: Kind) -> Res<Box<dyn Bound>> {
    Ok(Box::new(SerdeBound::from_rows(d.ty.clone(), d.rows()?, kind)))
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
