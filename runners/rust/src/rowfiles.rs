//! The files of the schemaless row formats (docs/runner-protocol.md
//! §10.3): JSON Lines (serde_json), MessagePack maps back to back
//! (rmp-serde) and a CBOR sequence of maps (ciborium), one map per row,
//! keyed by field name.
//!
//! What a format has no type for is written as §10.3 says, driven by the
//! Arrow schema (the value tree has lost the columns' units):
//!
//! - JSON: timestamps as RFC 3339 UTC text, dates as `YYYY-MM-DD`, decimals
//!   as plain text, binaries as base64 (standard, padded).
//! - MessagePack and CBOR (as serbench's Go and JVM writers): timestamps as
//!   integers in the column's unit, dates as integer days, decimals as
//!   plain text, binaries as bytes. CBOR is written with ciborium's
//!   encoder (ciborium-ll) rather than its serde serializer, to keep each
//!   float's width (see [`cbor_value`]).
//!
//! Times and durations are integers in the column's unit in every format.
//!
//! The reader takes what any language writes, through the schema: an
//! integer in a timestamp column is in the column's unit; RFC 3339 text
//! (any offset, up to 9 fractional digits) is that instant; the
//! MessagePack timestamp extension (type -1) and CBOR tags 0 and 1 are
//! read; dates as integer days or `YYYY-MM-DD` text (CBOR tags 100 and
//! 1004); decimals as text, numbers or CBOR tag 4; binaries as bytes or,
//! in JSON, base64 text. Fields are found by name: unknown keys are
//! skipped, a missing field is null.

use std::cell::RefCell;
use std::fmt;
use std::io::Write;

use arrow_schema::{DataType, Schema, TimeUnit};
use base64::Engine as _;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::ser::{Error as _, SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::value::{plain_decimal, to_micros, unscaled_i128, Value};

/// Result with a one-line message.
type Res<T> = Result<T, String>;

fn err<E: fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A row file's format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fmt {
    Json,
    /// JSON Lines with simd-json.
    SimdJson,
    Msgpack,
    Cbor,
}

impl Fmt {
    /// The format of a subject with row files.
    pub fn of_subject(s: &str) -> Option<Fmt> {
        match s {
            "serde_json" => Some(Fmt::Json),
            "simd-json" => Some(Fmt::SimdJson),
            "rmp-serde" => Some(Fmt::Msgpack),
            "ciborium" => Some(Fmt::Cbor),
            _ => None,
        }
    }
}

/// The type of a value in a row file: the value tree's type with the
/// Arrow units kept.
#[derive(Clone, Debug, PartialEq)]
pub enum FTy {
    Null,
    Bool,
    Int,
    UInt,
    F32,
    F64,
    Str,
    Bin,
    /// A decimal of this scale.
    Dec(i8),
    Ts(TimeUnit),
    Date,
    /// Time of day or duration, in this unit.
    Time(TimeUnit),
    List(Box<FTy>, bool),
    Struct(Vec<FField>),
}

/// A field of a struct type.
#[derive(Clone, Debug, PartialEq)]
pub struct FField {
    pub name: String,
    pub ty: FTy,
    pub nullable: bool,
}

impl FTy {
    /// The row type of a schema.
    pub fn of_schema(s: &Schema) -> Res<FTy> {
        Ok(FTy::Struct(fields(s.fields().iter().map(|f| f.as_ref()))?))
    }

    fn of_arrow(t: &DataType) -> Res<FTy> {
        use DataType as D;
        Ok(match t {
            D::Null => FTy::Null,
            D::Boolean => FTy::Bool,
            D::Int8 | D::Int16 | D::Int32 | D::Int64 => FTy::Int,
            D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => FTy::UInt,
            D::Float16 | D::Float32 => FTy::F32,
            D::Float64 => FTy::F64,
            D::Utf8 | D::LargeUtf8 | D::Utf8View => FTy::Str,
            D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => FTy::Bin,
            D::Timestamp(u, _) => FTy::Ts(*u),
            D::Date32 | D::Date64 => FTy::Date,
            D::Time32(u) | D::Time64(u) | D::Duration(u) => FTy::Time(*u),
            D::Decimal128(_, s) | D::Decimal256(_, s) => FTy::Dec(*s),
            D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) | D::ListView(f) | D::LargeListView(f) => {
                FTy::List(Box::new(FTy::of_arrow(f.data_type())?), true)
            }
            D::Struct(fs) => FTy::Struct(fields(fs.iter().map(|f| f.as_ref()))?),
            D::Map(entries, _) => match entries.data_type() {
                D::Struct(kv) if kv.len() == 2 => {
                    FTy::List(Box::new(FTy::Struct(fields(kv.iter().map(|f| f.as_ref()))?)), false)
                }
                other => return Err(format!("map with entries {other}")),
            },
            D::Dictionary(_, v) => FTy::of_arrow(v)?,
            other => return Err(format!("type {other} has no row file mapping")),
        })
    }
}

fn fields<'a>(fs: impl Iterator<Item = &'a arrow_schema::Field>) -> Res<Vec<FField>> {
    fs.map(|f| {
        Ok(FField {
            name: f.name().clone(),
            ty: FTy::of_arrow(f.data_type()).map_err(|e| format!("column {}: {e}", f.name()))?,
            nullable: f.is_nullable() || matches!(f.data_type(), DataType::Null),
        })
    })
    .collect()
}

// ---- dates and times ----

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The proleptic Gregorian date of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn fmt_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!("{y:+05}-{m:02}-{d:02}")
    }
}

/// RFC 3339 UTC text of microseconds since the epoch: fractional digits
/// only as needed (none, 3 or 6).
pub fn fmt_timestamp(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let frac = us.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let mut s = fmt_date(days);
    s.push_str(&format!("T{:02}:{:02}:{:02}", sod / 3600, sod / 60 % 60, sod % 60));
    if frac != 0 {
        if frac % 1000 == 0 {
            s.push_str(&format!(".{:03}", frac / 1000));
        } else {
            s.push_str(&format!(".{frac:06}"));
        }
    }
    s.push('Z');
    s
}

fn num(s: &str, what: &str) -> Res<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("bad {what} {s:?}"));
    }
    s.parse().map_err(|_| format!("bad {what} {s:?}"))
}

/// Days of `YYYY-MM-DD` (a leading sign allowed for the year).
pub fn parse_date(s: &str) -> Res<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut p = body.splitn(3, '-');
    let (y, m, d) = match (p.next(), p.next(), p.next()) {
        (Some(y), Some(m), Some(d)) => (num(y, "year")?, num(m, "month")?, num(d, "day")?),
        _ => return Err(format!("bad date {s:?}")),
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(format!("bad date {s:?}"));
    }
    Ok(days_from_civil(if neg { -y } else { y }, m, d))
}

/// Microseconds since the epoch of RFC 3339 text (any offset, any number
/// of fractional digits, floored to the microsecond).
pub fn parse_timestamp(s: &str) -> Res<i64> {
    let bad = || format!("bad RFC 3339 timestamp {s:?}");
    let t = s.find(['T', 't', ' ']).ok_or_else(bad)?;
    let days = parse_date(&s[..t]).map_err(|_| bad())?;
    let rest = &s[t + 1..];
    let z = rest.find(['Z', 'z', '+', '-']).ok_or_else(bad)?;
    let (clock, zone) = rest.split_at(z);
    let (hms, frac) = match clock.split_once('.') {
        Some((a, b)) => (a, b),
        None => (clock, ""),
    };
    let mut p = hms.split(':');
    let (h, mi, sec) = match (p.next(), p.next(), p.next(), p.next()) {
        (Some(h), Some(m), Some(s), None) => (num(h, "hour")?, num(m, "minute")?, num(s, "second")?),
        _ => return Err(bad()),
    };
    if h > 23 || mi > 59 || sec > 60 {
        return Err(bad());
    }
    let mut us = 0i64;
    if !frac.is_empty() {
        num(frac, "fraction")?;
        for (i, c) in frac.bytes().take(6).enumerate() {
            us += (c - b'0') as i64 * 10i64.pow(5 - i as u32);
        }
    } else if clock.contains('.') {
        return Err(bad());
    }
    let off = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let (oh, om) = zone[1..].split_once(':').ok_or_else(bad)?;
            sign * (num(oh, "offset")? * 3600 + num(om, "offset")? * 60)
        }
    };
    let secs = days
        .checked_mul(86_400)
        .and_then(|x| x.checked_add(h * 3600 + mi * 60 + sec - off))
        .ok_or_else(bad)?;
    secs.checked_mul(1_000_000)
        .and_then(|x| x.checked_add(us))
        .ok_or_else(bad)
}

/// Microseconds to an integer in unit u (floored).
fn from_micros(us: i64, u: &TimeUnit) -> Option<i64> {
    match u {
        TimeUnit::Second => Some(us.div_euclid(1_000_000)),
        TimeUnit::Millisecond => Some(us.div_euclid(1000)),
        TimeUnit::Microsecond => Some(us),
        TimeUnit::Nanosecond => us.checked_mul(1000),
    }
}

/// The plain decimal text at scale of any decimal text.
fn decimal_text(s: &str, scale: i8) -> Res<String> {
    let s = s.trim();
    let v = match s.split_once(['e', 'E']) {
        // Scientific notation: the point shifted.
        Some((m, e)) => {
            let e: i32 = e.parse().map_err(|_| format!("bad decimal {s:?}"))?;
            unscaled_i128(m, (scale as i32 + e).clamp(-38, 76) as i8)?
        }
        None => unscaled_i128(s, scale)?,
    };
    Ok(plain_decimal(&v.to_string(), scale))
}

// ---- writing ----

/// A value written through its file type.
struct W<'a> {
    ty: &'a FTy,
    v: &'a Value,
    fmt: Fmt,
}

impl Serialize for W<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = matches!(self.fmt, Fmt::Json | Fmt::SimdJson);
        match (self.ty, self.v) {
            (_, Value::Null) => s.serialize_none(),
            (FTy::Ts(u), Value::I64(us)) => {
                if json {
                    s.serialize_str(&fmt_timestamp(*us))
                } else {
                    s.serialize_i64(from_micros(*us, u).ok_or_else(|| S::Error::custom("timestamp overflows"))?)
                }
            }
            (FTy::Date, Value::I64(d)) => {
                if json {
                    s.serialize_str(&fmt_date(*d))
                } else {
                    s.serialize_i64(*d)
                }
            }
            (FTy::Time(u), Value::I64(us)) => {
                s.serialize_i64(from_micros(*us, u).ok_or_else(|| S::Error::custom("time overflows"))?)
            }
            (FTy::Bin, Value::Bin(b)) if json => s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b)),
            (_, Value::Bool(b)) => s.serialize_bool(*b),
            (_, Value::I64(x)) => s.serialize_i64(*x),
            (_, Value::U64(x)) => s.serialize_u64(*x),
            (_, Value::F32(x)) => s.serialize_f32(*x),
            (_, Value::F64(x)) => s.serialize_f64(*x),
            (_, Value::Str(x)) => s.serialize_str(x),
            (_, Value::Bin(x)) => s.serialize_bytes(x),
            (FTy::List(e, _), Value::List(xs)) => {
                let mut seq = s.serialize_seq(Some(xs.len()))?;
                for x in xs {
                    seq.serialize_element(&W {
                        ty: e,
                        v: x,
                        fmt: self.fmt,
                    })?;
                }
                seq.end()
            }
            (FTy::Struct(fs), Value::Struct(xs)) => {
                let mut m = s.serialize_map(Some(fs.len()))?;
                for (f, x) in fs.iter().zip(xs) {
                    m.serialize_entry(
                        &f.name,
                        &W {
                            ty: &f.ty,
                            v: x,
                            fmt: self.fmt,
                        },
                    )?;
                }
                m.end()
            }
            (t, _) => Err(S::Error::custom(format!("value does not match type {t:?}"))),
        }
    }
}

/// Writes the rows (of row type ty) as the format's file to out.
pub fn write_rows<O: Write>(fmt: Fmt, ty: &FTy, rows: &[Value], mut out: O) -> Res<()> {
    for r in rows {
        let w = W { ty, v: r, fmt };
        match fmt {
            Fmt::Json => {
                serde_json::to_writer(&mut out, &w).map_err(err)?;
                out.write_all(b"\n").map_err(err)?;
            }
            Fmt::SimdJson => {
                simd_json::to_writer(&mut out, &w).map_err(err)?;
                out.write_all(b"\n").map_err(err)?;
            }
            Fmt::Msgpack => rmp_serde::encode::write(&mut out, &w).map_err(err)?,
            Fmt::Cbor => {
                let mut e = ciborium_ll::Encoder::from(&mut out);
                cbor_value(&mut e, ty, r).map_err(|x| format!("{x:?}"))?
            }
        }
    }
    out.flush().map_err(err)
}

/// One value as CBOR with ciborium's encoder (ciborium-ll), definite
/// lengths. Floats keep their width: float64 as 0xfb, float32 as 0xfa
/// (ciborium's serde serializer writes the shortest lossless width, which
/// serbench's Go reader does not take for a float64 column).
fn cbor_value<W: ciborium_io::Write>(e: &mut ciborium_ll::Encoder<W>, ty: &FTy, v: &Value) -> Result<(), String>
where
    W::Error: fmt::Debug,
{
    use ciborium_io::Write as _;
    use ciborium_ll::{simple, Header};
    let io = |x: W::Error| format!("{x:?}");
    let int = |e: &mut ciborium_ll::Encoder<W>, x: i64| {
        e.push(if x >= 0 {
            Header::Positive(x as u64)
        } else {
            Header::Negative(!(x as u64))
        })
        .map_err(io)
    };
    match (ty, v) {
        (_, Value::Null) => e.push(Header::Simple(simple::NULL)).map_err(io),
        (FTy::Ts(u) | FTy::Time(u), Value::I64(us)) => {
            int(e, from_micros(*us, u).ok_or_else(|| "timestamp overflows".to_string())?)
        }
        (_, Value::Bool(b)) => e
            .push(Header::Simple(if *b { simple::TRUE } else { simple::FALSE }))
            .map_err(io),
        (_, Value::I64(x)) => int(e, *x),
        (_, Value::U64(x)) => e.push(Header::Positive(*x)).map_err(io),
        (_, Value::F32(x)) => {
            e.write_all(&[0xfa]).map_err(io)?;
            e.write_all(&x.to_be_bytes()).map_err(io)
        }
        (_, Value::F64(x)) => {
            e.write_all(&[0xfb]).map_err(io)?;
            e.write_all(&x.to_be_bytes()).map_err(io)
        }
        (_, Value::Str(x)) => e.text(x, None).map_err(io),
        (_, Value::Bin(x)) => e.bytes(x, None).map_err(io),
        (FTy::List(t, _), Value::List(xs)) => {
            e.push(Header::Array(Some(xs.len()))).map_err(io)?;
            xs.iter().try_for_each(|x| cbor_value(e, t, x))
        }
        (FTy::Struct(fs), Value::Struct(xs)) => {
            e.push(Header::Map(Some(fs.len()))).map_err(io)?;
            for (f, x) in fs.iter().zip(xs) {
                e.text(&f.name, None).map_err(io)?;
                cbor_value(e, &f.ty, x)?;
            }
            Ok(())
        }
        (t, _) => Err(format!("value does not match type {t:?}")),
    }
}

// ---- reading ----

/// Reads the rows of a file's bytes through the row type ty.
pub fn read_rows(fmt: Fmt, ty: &FTy, data: &[u8]) -> Res<Vec<Value>> {
    let seed = Seed {
        ty,
        json: matches!(fmt, Fmt::Json | Fmt::SimdJson),
    };
    let mut rows = Vec::new();
    match fmt {
        Fmt::Json => {
            for (i, line) in data.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                let mut de = serde_json::Deserializer::from_slice(line);
                let row = seed
                    .deserialize(&mut de)
                    .and_then(|r| de.end().map(|_| r))
                    .map_err(|e| format!("line {}: {e}", i + 1))?;
                rows.push(row);
            }
        }
        Fmt::SimdJson => {
            let mut buf = Vec::new();
            for (i, line) in data.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                // simd-json parses in place: each line is copied first.
                buf.clear();
                buf.extend_from_slice(line);
                let row = simd_json::Deserializer::from_slice(&mut buf)
                    .map_err(err)
                    .and_then(|mut de| seed.deserialize(&mut de).map_err(err))
                    .map_err(|e| format!("line {}: {e}", i + 1))?;
                rows.push(row);
            }
        }
        Fmt::Msgpack => {
            let mut rd = data;
            while !rd.is_empty() {
                let mut de = rmp_serde::Deserializer::new(&mut rd);
                rows.push(
                    seed.deserialize(&mut de)
                        .map_err(|e| format!("row {}: {e}", rows.len()))?,
                );
            }
        }
        Fmt::Cbor => {
            let mut rd = data;
            CURRENT.with(|c| *c.borrow_mut() = Some(ty.clone()));
            let r: Res<()> = (|| {
                while !rd.is_empty() {
                    let row: TlsRow = ciborium::from_reader(&mut rd).map_err(|e| format!("row {}: {e}", rows.len()))?;
                    rows.push(row.0);
                }
                Ok(())
            })();
            CURRENT.with(|c| *c.borrow_mut() = None);
            r?;
        }
    }
    Ok(rows)
}

thread_local! {
    static CURRENT: RefCell<Option<FTy>> = const { RefCell::new(None) };
}

/// A CBOR row through the type set in CURRENT (ciborium has no seed API).
struct TlsRow(Value);

impl<'de> Deserialize<'de> for TlsRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ty = CURRENT
            .with(|c| c.borrow().clone())
            .ok_or_else(|| de::Error::custom("no row type set"))?;
        Seed { ty: &ty, json: false }.deserialize(d).map(TlsRow)
    }
}

#[derive(Clone, Copy)]
struct Seed<'a> {
    ty: &'a FTy,
    /// Text in a binary column is base64.
    json: bool,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

fn int_leaf<E: de::Error>(ty: &FTy, x: i128) -> Result<Value, E> {
    let i64v = || i64::try_from(x).map_err(|_| E::custom(format!("{x} overflows int64")));
    match ty {
        FTy::Int | FTy::Date => i64v().map(Value::I64),
        FTy::UInt => u64::try_from(x)
            .map(Value::U64)
            .map_err(|_| E::custom(format!("{x} is not a uint64"))),
        FTy::F32 => Ok(Value::F32(x as f32)),
        FTy::F64 => Ok(Value::F64(x as f64)),
        FTy::Ts(u) | FTy::Time(u) => to_micros(i64v()?, u)
            .map(Value::I64)
            .ok_or_else(|| E::custom(format!("{x} overflows microseconds"))),
        FTy::Dec(s) => decimal_text(&x.to_string(), *s).map(Value::Str).map_err(E::custom),
        FTy::Bool => Ok(Value::Bool(x != 0)),
        t => Err(E::custom(format!("an integer for type {t:?}"))),
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value of type {:?}", self.ty)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        match self.ty {
            FTy::Bool => Ok(Value::Bool(b)),
            t => Err(E::custom(format!("a bool for type {t:?}"))),
        }
    }
    fn visit_i64<E: de::Error>(self, x: i64) -> Result<Value, E> {
        int_leaf(self.ty, x as i128)
    }
    fn visit_u64<E: de::Error>(self, x: u64) -> Result<Value, E> {
        int_leaf(self.ty, x as i128)
    }
    fn visit_i128<E: de::Error>(self, x: i128) -> Result<Value, E> {
        int_leaf(self.ty, x)
    }
    fn visit_u128<E: de::Error>(self, x: u128) -> Result<Value, E> {
        int_leaf(self.ty, i128::try_from(x).map_err(|_| E::custom("integer overflow"))?)
    }
    fn visit_f32<E: de::Error>(self, x: f32) -> Result<Value, E> {
        match self.ty {
            FTy::F32 => Ok(Value::F32(x)),
            _ => self.visit_f64(x as f64),
        }
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        match self.ty {
            FTy::F32 => Ok(Value::F32(x as f32)),
            FTy::F64 => Ok(Value::F64(x)),
            FTy::Dec(s) => decimal_text(&x.to_string(), *s).map(Value::Str).map_err(E::custom),
            t if x.fract() == 0.0 && x.abs() < 9.2e18 && !matches!(t, FTy::Str | FTy::Bin) => int_leaf(t, x as i128),
            t => Err(E::custom(format!("a float for type {t:?}"))),
        }
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        let e = |m: String| E::custom(m);
        match self.ty {
            FTy::Str => Ok(Value::Str(s.to_string())),
            FTy::Dec(sc) => decimal_text(s, *sc).map(Value::Str).map_err(e),
            FTy::Ts(_) => parse_timestamp(s).map(Value::I64).map_err(e),
            FTy::Date => parse_date(s).map(Value::I64).map_err(e),
            FTy::Bin if self.json => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(Value::Bin)
                .map_err(|x| E::custom(format!("base64: {x}"))),
            FTy::Bin => Ok(Value::Bin(s.as_bytes().to_vec())),
            FTy::Int | FTy::UInt | FTy::Time(_) => {
                let x: i128 = s
                    .trim()
                    .parse()
                    .map_err(|_| E::custom(format!("{s:?} for an integer")))?;
                int_leaf(self.ty, x)
            }
            FTy::F32 | FTy::F64 => {
                let x: f64 = s.trim().parse().map_err(|_| E::custom(format!("{s:?} for a float")))?;
                self.visit_f64(x)
            }
            t => Err(E::custom(format!("a string for type {t:?}"))),
        }
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Value, E> {
        match self.ty {
            FTy::Bin => Ok(Value::Bin(b.to_vec())),
            _ => self.visit_str(std::str::from_utf8(b).map_err(E::custom)?),
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        match self.ty {
            FTy::List(e, _) => {
                let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1 << 16));
                let s = Seed { ty: e, json: self.json };
                while let Some(v) = a.next_element_seed(s)? {
                    out.push(v);
                }
                Ok(Value::List(out))
            }
            FTy::Struct(fs) => {
                let mut out = Vec::with_capacity(fs.len());
                for f in fs {
                    out.push(
                        a.next_element_seed(Seed {
                            ty: &f.ty,
                            json: self.json,
                        })?
                        .unwrap_or(Value::Null),
                    );
                }
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Value::Struct(out))
            }
            FTy::Bin => {
                let mut out = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(Value::Bin(out))
            }
            t => Err(de::Error::custom(format!("a sequence for type {t:?}"))),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        match self.ty {
            FTy::Struct(fs) => {
                let mut out = vec![Value::Null; fs.len()];
                let mut next = 0usize;
                while let Some(i) = a.next_key_seed(Key { fs, hint: next })? {
                    match i {
                        Some(i) => {
                            out[i] = a.next_value_seed(Seed {
                                ty: &fs[i].ty,
                                json: self.json,
                            })?;
                            next = i + 1;
                        }
                        None => {
                            a.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Value::Struct(out))
            }
            // A map column written as the format's map.
            FTy::List(e, _) if matches!(&**e, FTy::Struct(kv) if kv.len() == 2) => {
                let kv = e_fields(e);
                let mut out = Vec::new();
                while let Some(k) = a.next_key_seed(Seed {
                    ty: &kv[0].ty,
                    json: self.json,
                })? {
                    let v = a.next_value_seed(Seed {
                        ty: &kv[1].ty,
                        json: self.json,
                    })?;
                    out.push(Value::Struct(vec![k, v]));
                }
                Ok(Value::List(out))
            }
            t => Err(de::Error::custom(format!("a map for type {t:?}"))),
        }
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // rmp-serde: a MessagePack extension, as (type, data).
        d.deserialize_any(Ext(self.ty))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, a: A) -> Result<Value, A::Error> {
        // ciborium: a tagged item, as a variant whose tuple is (tag, item).
        let (_, v) = a.variant::<IgnoredAny>()?;
        v.tuple_variant(2, Tagged(self))
    }
}

/// A CBOR tag's (number, item) for a column's seed.
struct Tagged<'a>(Seed<'a>);

impl<'de> Visitor<'de> for Tagged<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tagged CBOR item")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let tag: u64 = a
            .next_element()?
            .ok_or_else(|| de::Error::custom("tag without number"))?;
        let missing = || de::Error::custom(format!("tag {tag} without an item"));
        match (tag, self.0.ty) {
            // Epoch-based date/time: seconds, integer or float.
            (1, FTy::Ts(_)) => {
                let secs = a
                    .next_element_seed(Seed {
                        ty: &FTy::F64,
                        json: false,
                    })?
                    .ok_or_else(missing)?;
                match secs {
                    Value::F64(x) => Ok(Value::I64((x * 1e6).round() as i64)),
                    Value::Null => Ok(Value::Null),
                    _ => Err(de::Error::custom("tag 1 with a non-number")),
                }
            }
            // Decimal fraction [exponent, mantissa].
            (4, FTy::Dec(s)) => {
                let (e, m) = a.next_element::<(i64, i128)>()?.ok_or_else(missing)?;
                decimal_text(&format!("{m}e{e}"), *s)
                    .map(Value::Str)
                    .map_err(de::Error::custom)
            }
            // Any other tag (0: RFC 3339 text, 100: days, 1004: full-date
            // text, …): its item as the column reads it.
            _ => a.next_element_seed(self.0)?.ok_or_else(missing),
        }
    }
}

fn e_fields(t: &FTy) -> &[FField] {
    match t {
        FTy::Struct(fs) => fs,
        _ => &[],
    }
}

/// A MessagePack extension's (type, data) for a column of this type.
struct Ext<'a>(&'a FTy);

impl<'de> Visitor<'de> for Ext<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a MessagePack extension")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let t: i8 = a
            .next_element()?
            .ok_or_else(|| de::Error::custom("extension without type"))?;
        let b: serde_bytes_buf::Buf = a
            .next_element()?
            .ok_or_else(|| de::Error::custom("extension without data"))?;
        let b = b.0;
        if t != -1 || !matches!(self.0, FTy::Ts(_)) {
            return Err(de::Error::custom(format!("extension type {t} for type {:?}", self.0)));
        }
        let (secs, nanos): (i64, i64) = match b.len() {
            4 => (u32::from_be_bytes(b[..4].try_into().unwrap()) as i64, 0),
            8 => {
                let x = u64::from_be_bytes(b[..8].try_into().unwrap());
                ((x & 0x3_ffff_ffff) as i64, (x >> 34) as i64)
            }
            12 => (
                i64::from_be_bytes(b[4..12].try_into().unwrap()),
                u32::from_be_bytes(b[..4].try_into().unwrap()) as i64,
            ),
            n => return Err(de::Error::custom(format!("timestamp extension of {n} bytes"))),
        };
        secs.checked_mul(1_000_000)
            .and_then(|x| x.checked_add(nanos / 1000))
            .map(Value::I64)
            .ok_or_else(|| de::Error::custom("timestamp overflows"))
    }
}

/// Bytes of any byte-like item (serde's Vec<u8> wants a sequence).
mod serde_bytes_buf {
    use serde::de::{self, Deserialize, Deserializer, Visitor};
    use std::fmt;

    pub struct Buf(pub Vec<u8>);

    impl<'de> Deserialize<'de> for Buf {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Buf;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Buf, E> {
                    Ok(Buf(b.to_vec()))
                }
                fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Buf, A::Error> {
                    let mut v = Vec::new();
                    while let Some(x) = a.next_element::<u8>()? {
                        v.push(x);
                    }
                    Ok(Buf(v))
                }
            }
            d.deserialize_bytes(V)
        }
    }
}

/// A struct's key: the index of the field it names, None for another key.
struct Key<'a> {
    fs: &'a [FField],
    hint: usize,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<usize>, E> {
        if self.hint < self.fs.len() && self.fs[self.hint].name == s {
            return Ok(Some(self.hint));
        }
        Ok(self.fs.iter().position(|f| f.name == s))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Option<usize>, E> {
        self.visit_str(std::str::from_utf8(b).map_err(E::custom)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(fmt_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(fmt_timestamp(-1), "1969-12-31T23:59:59.999999Z");
        assert_eq!(fmt_timestamp(1_715_949_045_123_000), "2024-05-17T12:30:45.123Z");
        for us in [
            0,
            -1,
            1_715_949_045_123_456,
            -2_000_000_000_000_001,
            253_402_300_799_999_999,
        ] {
            assert_eq!(parse_timestamp(&fmt_timestamp(us)).unwrap(), us, "{us}");
        }
        assert_eq!(
            parse_timestamp("2024-05-17T14:30:45.123456789+02:00").unwrap(),
            1_715_949_045_123_456
        );
        assert_eq!(parse_timestamp("1969-12-31T23:59:59.9999999Z").unwrap(), -1);
        assert!(parse_timestamp("2024-05-17").is_err());
        assert_eq!(parse_date("1970-01-02").unwrap(), 1);
        assert_eq!(parse_date("1969-12-31").unwrap(), -1);
        assert_eq!(fmt_date(-719_162), "0001-01-01");
    }

    #[test]
    fn decimals() {
        assert_eq!(decimal_text("1.5", 2).unwrap(), "1.50");
        assert_eq!(decimal_text("15e-1", 2).unwrap(), "1.50");
        assert_eq!(decimal_text("-150e-2", 2).unwrap(), "-1.50");
    }
}
