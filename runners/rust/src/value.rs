//! The native form of every row subject: a generic value tree, built from
//! the dataset's Arrow schema (schema-driven, no generated code), and the
//! type tree ([`Ty`]) that gives it meaning.
//!
//! Canonical leaf values (so the digest of §7.3 reads them directly):
//! timestamps, times and durations are microseconds (`I64`, nanoseconds
//! floored), dates are days (`I64`), decimals are their plain string at the
//! column's scale (`Str`), float16/float32 are `F32`, maps are lists of
//! `{key, value}` structs.

use std::fmt;

use arrow_schema::{DataType, Field as ArrowField, Schema, TimeUnit};

/// One value of a row. Structs hold their fields by position, in the order
/// of their [`Ty::Struct`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "subjects",
    derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize),
    rkyv(serialize_bounds(
        __S: rkyv::ser::Writer + rkyv::ser::Allocator,
        __S::Error: rkyv::rancor::Source,
    )),
    rkyv(deserialize_bounds(__D::Error: rkyv::rancor::Source)),
    rkyv(bytecheck(bounds(__C: rkyv::validation::ArchiveContext)))
)]
pub enum Value {
    /// A null, at any level.
    Null,
    /// bool
    Bool(bool),
    /// Signed integers, and the temporal types in their canonical unit.
    I64(i64),
    /// Unsigned integers.
    U64(u64),
    /// float16 and float32.
    F32(f32),
    /// float64.
    F64(f64),
    /// Strings and decimals (plain string at the scale).
    Str(String),
    /// Binaries.
    Bin(Vec<u8>),
    /// Lists (and maps, as lists of key/value structs).
    List(#[cfg_attr(feature = "subjects", rkyv(omit_bounds))] Vec<Value>),
    /// Structs, by field position.
    Struct(#[cfg_attr(feature = "subjects", rkyv(omit_bounds))] Vec<Value>),
}

/// What an `I64` value means: the Arrow type family it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntKind {
    /// An integer of this many bits.
    Plain(u8),
    /// Microseconds since the epoch.
    Timestamp,
    /// Days since the epoch.
    Date,
    /// Microseconds since midnight.
    Time,
    /// Microseconds.
    Duration,
}

/// A field of a struct type.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's (column's) name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Whether its values may be null ([`Value::Null`]).
    pub nullable: bool,
}

/// The type of a value, derived from an Arrow type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// Arrow's null type: every value is [`Value::Null`].
    Null,
    /// A boolean: [`Value::Bool`].
    Bool,
    /// A signed integer or a temporal type: [`Value::I64`] (see [`IntKind`]).
    Int(IntKind),
    /// An unsigned integer of this many bits: [`Value::U64`].
    UInt(u8),
    /// float16 or float32: [`Value::F32`].
    F32,
    /// float64: [`Value::F64`].
    F64,
    /// A string: [`Value::Str`].
    Str,
    /// A binary: [`Value::Bin`].
    Bin,
    /// A decimal: precision, scale; [`Value::Str`], its plain string at the
    /// scale.
    Decimal(u8, i8),
    /// A list, its element type and whether elements may be null:
    /// [`Value::List`] (a map is a list of `{key, value}` structs).
    List(Box<Ty>, bool),
    /// A struct (a row is one) of these fields: [`Value::Struct`], by
    /// field position.
    Struct(Vec<Field>),
}

/// A type the runner cannot map.
#[derive(Debug)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl Ty {
    /// The row type of a schema: a struct of its fields.
    pub fn of_schema(s: &Schema) -> Result<Ty, Unsupported> {
        Ok(Ty::Struct(fields_of(s.fields().iter().map(|f| f.as_ref()))?))
    }

    /// The type of an Arrow data type.
    pub fn of_arrow(t: &DataType) -> Result<Ty, Unsupported> {
        use DataType as D;
        Ok(match t {
            D::Null => Ty::Null,
            D::Boolean => Ty::Bool,
            D::Int8 => Ty::Int(IntKind::Plain(8)),
            D::Int16 => Ty::Int(IntKind::Plain(16)),
            D::Int32 => Ty::Int(IntKind::Plain(32)),
            D::Int64 => Ty::Int(IntKind::Plain(64)),
            D::UInt8 => Ty::UInt(8),
            D::UInt16 => Ty::UInt(16),
            D::UInt32 => Ty::UInt(32),
            D::UInt64 => Ty::UInt(64),
            D::Float16 | D::Float32 => Ty::F32,
            D::Float64 => Ty::F64,
            D::Utf8 | D::LargeUtf8 | D::Utf8View => Ty::Str,
            D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => Ty::Bin,
            D::Timestamp(_, _) => Ty::Int(IntKind::Timestamp),
            D::Date32 | D::Date64 => Ty::Int(IntKind::Date),
            D::Time32(_) | D::Time64(_) => Ty::Int(IntKind::Time),
            D::Duration(_) => Ty::Int(IntKind::Duration),
            D::Decimal128(p, s) | D::Decimal256(p, s) => Ty::Decimal(*p, *s),
            D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) | D::ListView(f) | D::LargeListView(f) => {
                Ty::List(Box::new(Ty::of_arrow(f.data_type())?), true)
            }
            D::Struct(fs) => Ty::Struct(fields_of(fs.iter().map(|f| f.as_ref()))?),
            D::Map(entries, _) => match entries.data_type() {
                D::Struct(kv) if kv.len() == 2 => {
                    Ty::List(Box::new(Ty::Struct(fields_of(kv.iter().map(|f| f.as_ref()))?)), false)
                }
                other => return Err(Unsupported(format!("map with entries {other}"))),
            },
            D::Dictionary(_, v) => Ty::of_arrow(v)?,
            other => return Err(Unsupported(format!("type {other} has no digest in version 1"))),
        })
    }

    /// The fields of a struct type (empty for any other type).
    pub fn fields(&self) -> &[Field] {
        match self {
            Ty::Struct(fs) => fs,
            _ => &[],
        }
    }
}

fn fields_of<'a>(fs: impl Iterator<Item = &'a ArrowField>) -> Result<Vec<Field>, Unsupported> {
    fs.map(|f| {
        Ok(Field {
            name: f.name().clone(),
            ty: Ty::of_arrow(f.data_type()).map_err(|e| Unsupported(format!("column {}: {e}", f.name())))?,
            nullable: f.is_nullable() || matches!(f.data_type(), DataType::Null),
        })
    })
    .collect()
}

/// Microseconds of a value in unit u: s and ms multiplied (None on
/// overflow), ns floor-divided.
pub fn to_micros(v: i64, u: &TimeUnit) -> Option<i64> {
    match u {
        TimeUnit::Second => v.checked_mul(1_000_000),
        TimeUnit::Millisecond => v.checked_mul(1000),
        TimeUnit::Microsecond => Some(v),
        TimeUnit::Nanosecond => Some(v.div_euclid(1000)),
    }
}

/// The plain string of an unscaled decimal (its decimal digits, with `-`)
/// at scale (§7.3): never `-0`, exactly `scale` fractional digits, negative
/// scales append zeros.
pub fn plain_decimal(unscaled: &str, scale: i8) -> String {
    let (neg, digits) = match unscaled.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, unscaled),
    };
    let digits = digits.trim_start_matches('0');
    let mut out = String::with_capacity(digits.len() + 4);
    if scale <= 0 {
        if digits.is_empty() {
            return "0".into();
        }
        if neg {
            out.push('-');
        }
        out.push_str(digits);
        for _ in 0..(-(scale as i32)) {
            out.push('0');
        }
        return out;
    }
    let s = scale as usize;
    if digits.is_empty() {
        out.push_str("0.");
        for _ in 0..s {
            out.push('0');
        }
        return out;
    }
    if neg {
        out.push('-');
    }
    if digits.len() > s {
        out.push_str(&digits[..digits.len() - s]);
        out.push('.');
        out.push_str(&digits[digits.len() - s..]);
    } else {
        out.push_str("0.");
        for _ in 0..(s - digits.len()) {
            out.push('0');
        }
        out.push_str(digits);
    }
    out
}

/// The unscaled i128 of a plain decimal string at scale (the inverse of
/// [`plain_decimal`]; extra fractional digits are an error).
pub fn unscaled_i128(s: &str, scale: i8) -> Result<i128, String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    let mut digits = String::with_capacity(int.len() + frac.len() + 4);
    digits.push_str(int);
    if scale >= 0 {
        let sc = scale as usize;
        if frac.len() > sc {
            if frac[sc..].bytes().any(|b| b != b'0') {
                return Err(format!("decimal {s} has more than {sc} fractional digits"));
            }
            digits.push_str(&frac[..sc]);
        } else {
            digits.push_str(frac);
            for _ in frac.len()..sc {
                digits.push('0');
            }
        }
    } else {
        if frac.bytes().any(|b| b != b'0') {
            return Err(format!("decimal {s} at scale {scale}"));
        }
        let z = (-(scale as i32)) as usize;
        if digits.len() < z || digits[digits.len() - z..].bytes().any(|b| b != b'0') {
            if digits.trim_start_matches('0').is_empty() {
                return Ok(0);
            }
            return Err(format!("decimal {s} at scale {scale}"));
        }
        digits.truncate(digits.len() - z);
    }
    if digits.is_empty() {
        return Ok(0);
    }
    let v: i128 = digits.parse().map_err(|e| format!("decimal {s}: {e}"))?;
    Ok(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(plain_decimal("12345", 2), "123.45");
        assert_eq!(plain_decimal("-5", 2), "-0.05");
        assert_eq!(plain_decimal("0", 2), "0.00");
        assert_eq!(plain_decimal("-0", 2), "0.00");
        assert_eq!(plain_decimal("150", 2), "1.50");
        assert_eq!(plain_decimal("-7", -2), "-700");
        assert_eq!(plain_decimal("0", 0), "0");
        assert_eq!(unscaled_i128("1.5", 2).unwrap(), 150);
        assert_eq!(unscaled_i128("-0.05", 2).unwrap(), -5);
        assert_eq!(unscaled_i128("-700", -2).unwrap(), -7);
        assert_eq!(unscaled_i128("123", 0).unwrap(), 123);
    }

    #[test]
    fn micros() {
        assert_eq!(to_micros(-1, &TimeUnit::Nanosecond), Some(-1));
        assert_eq!(to_micros(1999, &TimeUnit::Nanosecond), Some(1));
        assert_eq!(to_micros(i64::MAX, &TimeUnit::Second), None);
    }
}
