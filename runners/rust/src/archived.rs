//! The rkyv subjects: the rows archived, and the archive read in place
//! (zero-copy), validated (`rkyv`) or not (`rkyv-unchecked`).

use std::sync::Arc;

use bytes::Bytes;

use crate::bound::{Bound, Decoded, Enc, Res};
use crate::value::Value;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
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

/// An rkyv subject bound to rows.
pub struct RkyvBound {
    rows: Arc<Vec<Value>>,
    /// Whether decode validates the archive (bytecheck) before reading it.
    validated: bool,
}

impl RkyvBound {
    /// The subject bound to these rows, validating its archives or not.
    pub fn new(rows: Arc<Vec<Value>>, validated: bool) -> RkyvBound {
        RkyvBound { rows, validated }
    }
}

fn aligned(b: &Bytes) -> std::borrow::Cow<'_, [u8]> {
    if (b.as_ptr() as usize).is_multiple_of(16) {
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
        if !(b.as_ptr() as usize).is_multiple_of(16) {
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
        if !(a.as_ptr() as usize).is_multiple_of(16) {
            let mut v = rkyv::util::AlignedVec::<16>::with_capacity(a.len());
            v.extend_from_slice(&a);
            return rkyv::from_bytes::<Vec<Value>, rkyv::rancor::Error>(&v).map_err(err);
        }
        rkyv::from_bytes::<Vec<Value>, rkyv::rancor::Error>(&a).map_err(err)
    }
}
