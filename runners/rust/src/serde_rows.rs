//! Schema-driven serde for the value tree: [`Rows`] serializes rows through
//! their type (structs as maps keyed by field name for self-describing
//! formats, as tuples for bincode/postcard; nullable fields as options) and
//! [`RowsSeed`] deserializes them back into [`Value`]s, asking the format
//! for exactly the types that were written, so non-self-describing formats
//! work too.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Error as _, SerializeMap, SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::value::{Ty, Value};

/// Rows to serialize: a sequence of structs of type `ty`.
pub struct Rows<'a> {
    pub ty: &'a Ty,
    pub rows: &'a [Value],
    /// Structs as maps with field names (true) or as tuples.
    pub named: bool,
}

struct Typed<'a> {
    ty: &'a Ty,
    v: &'a Value,
    nullable: bool,
    named: bool,
}

struct Inner<'a>(&'a Ty, &'a Value, bool);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.rows.len()))?;
        for r in self.rows {
            seq.serialize_element(&Inner(self.ty, r, self.named))?;
        }
        seq.end()
    }
}

impl Serialize for Typed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.nullable || matches!(self.ty, Ty::Null) {
            match self.v {
                Value::Null => s.serialize_none(),
                v => s.serialize_some(&Inner(self.ty, v, self.named)),
            }
        } else {
            Inner(self.ty, self.v, self.named).serialize(s)
        }
    }
}

impl Serialize for Inner<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Inner(ty, v, named) = *self;
        match (ty, v) {
            (_, Value::Null) => Err(S::Error::custom("null in a non-nullable field")),
            (_, Value::Bool(b)) => s.serialize_bool(*b),
            (_, Value::I64(x)) => s.serialize_i64(*x),
            (_, Value::U64(x)) => s.serialize_u64(*x),
            (_, Value::F32(x)) => s.serialize_f32(*x),
            (_, Value::F64(x)) => s.serialize_f64(*x),
            (_, Value::Str(x)) => s.serialize_str(x),
            (_, Value::Bin(x)) => s.serialize_bytes(x),
            (Ty::List(e, en), Value::List(xs)) => {
                let mut seq = s.serialize_seq(Some(xs.len()))?;
                for x in xs {
                    seq.serialize_element(&Typed {
                        ty: e,
                        v: x,
                        nullable: *en,
                        named,
                    })?;
                }
                seq.end()
            }
            (Ty::Struct(fs), Value::Struct(xs)) => {
                if named {
                    let mut m = s.serialize_map(Some(fs.len()))?;
                    for (f, x) in fs.iter().zip(xs) {
                        m.serialize_entry(
                            &f.name,
                            &Typed {
                                ty: &f.ty,
                                v: x,
                                nullable: f.nullable,
                                named,
                            },
                        )?;
                    }
                    m.end()
                } else {
                    let mut t = s.serialize_tuple(fs.len())?;
                    for (f, x) in fs.iter().zip(xs) {
                        t.serialize_element(&Typed {
                            ty: &f.ty,
                            v: x,
                            nullable: f.nullable,
                            named,
                        })?;
                    }
                    t.end()
                }
            }
            (t, _) => Err(S::Error::custom(format!("value does not match type {t:?}"))),
        }
    }
}

/// Deserializes a sequence of rows of type `ty` (as [`Rows`] wrote them).
#[derive(Clone, Copy)]
pub struct RowsSeed<'a> {
    pub ty: &'a Ty,
    pub named: bool,
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = Vec<Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Value>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RowsSeed<'_> {
    type Value = Vec<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence of rows")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<Value>, A::Error> {
        let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1 << 20));
        let seed = Seed {
            ty: self.ty,
            nullable: false,
            named: self.named,
        };
        while let Some(v) = a.next_element_seed(seed)? {
            out.push(v);
        }
        Ok(out)
    }
}

#[derive(Clone, Copy)]
struct Seed<'a> {
    ty: &'a Ty,
    nullable: bool,
    named: bool,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.nullable || matches!(self.ty, Ty::Null) {
            return d.deserialize_option(OptV(self));
        }
        let v = V(self);
        match self.ty {
            Ty::Null => d.deserialize_option(OptV(self)),
            Ty::Bool => d.deserialize_bool(v),
            Ty::Int(_) => d.deserialize_i64(v),
            Ty::UInt(_) => d.deserialize_u64(v),
            Ty::F32 => d.deserialize_f32(v),
            Ty::F64 => d.deserialize_f64(v),
            Ty::Str | Ty::Decimal(_, _) => d.deserialize_string(v),
            Ty::Bin => d.deserialize_byte_buf(v),
            Ty::List(_, _) => d.deserialize_seq(v),
            Ty::Struct(fs) => {
                if self.named {
                    d.deserialize_map(v)
                } else {
                    d.deserialize_tuple(fs.len(), v)
                }
            }
        }
    }
}

struct OptV<'a>(Seed<'a>);

impl<'de> Visitor<'de> for OptV<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an optional {:?}", self.0.ty)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if matches!(self.0.ty, Ty::Null) {
            return Err(de::Error::custom("a value in a null column"));
        }
        Seed {
            nullable: false,
            ..self.0
        }
        .deserialize(d)
    }
}

struct V<'a>(Seed<'a>);

fn int<E: de::Error>(ty: &Ty, x: i128) -> Result<Value, E> {
    match ty {
        Ty::Int(_) => i64::try_from(x)
            .map(Value::I64)
            .map_err(|_| E::custom(format!("{x} overflows int64"))),
        Ty::UInt(_) => u64::try_from(x)
            .map(Value::U64)
            .map_err(|_| E::custom(format!("{x} is not a uint64"))),
        Ty::F32 => Ok(Value::F32(x as f32)),
        Ty::F64 => Ok(Value::F64(x as f64)),
        t => Err(E::custom(format!("an integer for type {t:?}"))),
    }
}

fn float<E: de::Error>(ty: &Ty, x: f64) -> Result<Value, E> {
    match ty {
        Ty::F32 => Ok(Value::F32(x as f32)),
        Ty::F64 => Ok(Value::F64(x)),
        t => Err(E::custom(format!("a float for type {t:?}"))),
    }
}

impl<'de> Visitor<'de> for V<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value of type {:?}", self.0.ty)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        match self.0.ty {
            Ty::Bool => Ok(Value::Bool(b)),
            t => Err(E::custom(format!("a bool for type {t:?}"))),
        }
    }
    fn visit_i64<E: de::Error>(self, x: i64) -> Result<Value, E> {
        int(self.0.ty, x as i128)
    }
    fn visit_u64<E: de::Error>(self, x: u64) -> Result<Value, E> {
        int(self.0.ty, x as i128)
    }
    fn visit_i128<E: de::Error>(self, x: i128) -> Result<Value, E> {
        int(self.0.ty, x)
    }
    fn visit_u128<E: de::Error>(self, x: u128) -> Result<Value, E> {
        int(self.0.ty, i128::try_from(x).map_err(|_| E::custom("integer overflow"))?)
    }
    fn visit_f32<E: de::Error>(self, x: f32) -> Result<Value, E> {
        match self.0.ty {
            Ty::F32 => Ok(Value::F32(x)),
            t => float(t, x as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        float(self.0.ty, x)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.visit_string(s.to_string())
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        match self.0.ty {
            Ty::Str | Ty::Decimal(_, _) => Ok(Value::Str(s)),
            Ty::Bin => Ok(Value::Bin(s.into_bytes())),
            t => Err(E::custom(format!("a string for type {t:?}"))),
        }
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Value, E> {
        self.visit_byte_buf(b.to_vec())
    }
    fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<Value, E> {
        match self.0.ty {
            Ty::Bin => Ok(Value::Bin(b)),
            Ty::Str | Ty::Decimal(_, _) => String::from_utf8(b).map(Value::Str).map_err(E::custom),
            t => Err(E::custom(format!("bytes for type {t:?}"))),
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let Seed { ty, named, .. } = self.0;
        match ty {
            Ty::List(e, en) => {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1 << 16));
                let s = Seed {
                    ty: e,
                    nullable: *en,
                    named,
                };
                while let Some(v) = a.next_element_seed(s)? {
                    out.push(v);
                }
                Ok(Value::List(out))
            }
            Ty::Struct(fs) => {
                let mut out = Vec::with_capacity(fs.len());
                for f in fs {
                    match a.next_element_seed(Seed {
                        ty: &f.ty,
                        nullable: f.nullable,
                        named,
                    })? {
                        Some(v) => out.push(v),
                        None => return Err(de::Error::custom("struct with too few fields")),
                    }
                }
                Ok(Value::Struct(out))
            }
            Ty::Bin => {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Value::Bin(out))
            }
            t => Err(de::Error::custom(format!("a sequence for type {t:?}"))),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let Seed { ty, named, .. } = self.0;
        let fs = match ty {
            Ty::Struct(fs) => fs,
            t => return Err(de::Error::custom(format!("a map for type {t:?}"))),
        };
        let mut out: Vec<Option<Value>> = vec![None; fs.len()];
        let mut next = 0usize;
        while let Some(i) = a.next_key_seed(Key { fs, hint: next })? {
            let f = &fs[i];
            out[i] = Some(a.next_value_seed(Seed {
                ty: &f.ty,
                nullable: f.nullable,
                named,
            })?);
            next = i + 1;
        }
        let mut vals = Vec::with_capacity(fs.len());
        for (f, v) in fs.iter().zip(out) {
            match v {
                Some(v) => vals.push(v),
                None if f.nullable => vals.push(Value::Null),
                None => return Err(de::Error::custom(format!("missing field {}", f.name))),
            }
        }
        Ok(Value::Struct(vals))
    }
}

/// A struct's key: the index of the field it names (tried first at `hint`,
/// the position after the previous key).
struct Key<'a> {
    fs: &'a [crate::value::Field],
    hint: usize,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<usize, E> {
        if self.hint < self.fs.len() && self.fs[self.hint].name == s {
            return Ok(self.hint);
        }
        self.fs
            .iter()
            .position(|f| f.name == s)
            .ok_or_else(|| E::custom(format!("unknown field {s}")))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<usize, E> {
        self.visit_str(std::str::from_utf8(b).map_err(E::custom)?)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<Ty>, bool)>> = const { RefCell::new(None) };
}

/// Rows deserialized through the type set by [`with_type`], for libraries
/// without a seed API (ciborium).
pub struct TlsRows(pub Vec<Value>);

impl<'de> Deserialize<'de> for TlsRows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let cur = CURRENT.with(|c| c.borrow().clone());
        let (ty, named) = cur.ok_or_else(|| de::Error::custom("no row type set"))?;
        RowsSeed { ty: &ty, named }.deserialize(d).map(TlsRows)
    }
}

/// Runs f with the row type that [`TlsRows`] deserializes.
pub fn with_type<R>(ty: &Arc<Ty>, named: bool, f: impl FnOnce() -> R) -> R {
    CURRENT.with(|c| *c.borrow_mut() = Some((ty.clone(), named)));
    let r = f();
    CURRENT.with(|c| *c.borrow_mut() = None);
    r
}
