//! apache-avro: an object container file (codec null) in memory, written
//! and read through the library's generic `types::Value`. The Avro schema is
//! derived from the Arrow schema: `["null", T]` unions for nullable fields
//! and list elements, `timestamp-micros`, `date`, `time-micros`, `bytes` +
//! `decimal`, arrays, records. A query reads with a reader schema of the
//! selected fields (schema resolution skips the others).

use std::sync::Arc;

use apache_avro::types::Value as AV;
use apache_avro::{Reader, Schema, Writer};
use bytes::Bytes;
use serde_json::{json, Value as Json};

use crate::bound::{Bound, Dataset, Decoded, Enc, Res};
use crate::projection::{project, Projection, Sel};
use crate::value::{plain_decimal, unscaled_i128, IntKind, Ty, Value};

/// The bound subject.
pub struct AvroBound {
    ty: Arc<Ty>,
    rows: Arc<Vec<Value>>,
    schema: Schema,
    reader: Option<(Schema, Ty, Sel)>,
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// An Avro name from an Arrow name: [A-Za-z_][A-Za-z0-9_]*.
fn name(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if out.is_empty() || out.as_bytes()[0].is_ascii_digit() {
        out.insert(0, '_');
    }
    out
}

/// The Avro schema of a type; `path` names records uniquely.
fn schema_of(t: &Ty, nullable: bool, path: &str) -> Res<Json> {
    let s = match t {
        Ty::Null => return Ok(json!("null")),
        Ty::Bool => json!("boolean"),
        Ty::Int(IntKind::Timestamp) => json!({"type": "long", "logicalType": "timestamp-micros"}),
        Ty::Int(IntKind::Date) => json!({"type": "int", "logicalType": "date"}),
        Ty::Int(IntKind::Time) => json!({"type": "long", "logicalType": "time-micros"}),
        Ty::Int(_) | Ty::UInt(_) => json!("long"),
        Ty::F32 => json!("float"),
        Ty::F64 => json!("double"),
        Ty::Str => json!("string"),
        Ty::Bin => json!("bytes"),
        Ty::Decimal(p, s) => {
            if *s < 0 || *p > 38 {
                return Err(format!(
                    "decimal({p},{s}) has no Avro decimal here (scale < 0 or precision > 38)"
                ));
            }
            json!({"type": "bytes", "logicalType": "decimal", "precision": p, "scale": s})
        }
        Ty::List(e, en) => json!({"type": "array", "items": schema_of(e, *en, &format!("{path}_item"))?}),
        Ty::Struct(fs) => {
            let mut seen = std::collections::BTreeSet::new();
            let mut fields = Vec::with_capacity(fs.len());
            for f in fs {
                let n = name(&f.name);
                if !seen.insert(n.clone()) {
                    return Err(format!("field names {n:?} collide as Avro names"));
                }
                fields.push(json!({"name": n, "type": schema_of(&f.ty, f.nullable, &format!("{path}_{n}"))?}));
            }
            json!({"type": "record", "name": path, "fields": fields})
        }
    };
    Ok(if nullable { json!(["null", s]) } else { s })
}

fn parse(ty: &Ty) -> Res<Schema> {
    Schema::parse(&schema_of(ty, false, "r")?).map_err(|e| format!("avro schema: {e}"))
}

impl AvroBound {
    /// Binds to a dataset.
    pub fn new(d: &Dataset) -> Res<AvroBound> {
        AvroBound::from_rows(d.ty.clone(), d.rows()?)
    }

    /// Binds to rows of a type.
    pub fn from_rows(ty: Arc<Ty>, rows: Arc<Vec<Value>>) -> Res<AvroBound> {
        let schema = parse(&ty)?;
        Ok(AvroBound {
            ty,
            rows,
            schema,
            reader: None,
        })
    }

    fn read(&self, b: &[u8], reader: Option<&Schema>, ty: &Ty) -> Res<Vec<Value>> {
        let r = match reader {
            Some(s) => Reader::builder(b).reader_schema(s).build(),
            None => Reader::new(b),
        }
        .map_err(err)?;
        let mut out = Vec::new();
        for v in r {
            out.push(from_avro(v.map_err(err)?, ty)?);
        }
        Ok(out)
    }
}

impl Bound for AvroBound {
    fn encode(&self) -> Res<Enc> {
        let mut w = Writer::new(&self.schema, Vec::new()).map_err(err)?;
        for r in self.rows.iter() {
            w.append_value(to_avro(r, &self.ty, false)?).map_err(err)?;
        }
        Ok(Enc::Vec(w.into_inner().map_err(err)?))
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        self.read(b, None, &self.ty).map(Decoded::Rows)
    }

    fn prepare_query(&mut self, p: &Projection) -> Res<()> {
        // The reader schema holds only the selection: schema resolution
        // skips the rest while reading.
        self.reader = Some((
            parse(&p.ty)?,
            p.ty.clone(),
            Sel {
                all: true,
                ..Sel::default()
            },
        ));
        Ok(())
    }

    fn query(&self, b: &Bytes, _p: &Projection) -> Res<Decoded> {
        let (s, t, sel) = self.reader.as_ref().ok_or("query not prepared")?;
        let rows = self.read(b, Some(s), t)?;
        Ok(Decoded::Rows(rows.into_iter().map(|r| project(r, sel)).collect()))
    }
}

/// The bytes a decimal of precision p takes: the fewest whose largest
/// two's complement value has p digits.
fn decimal_width(p: u8) -> usize {
    (1..=16)
        .find(|&n| ((2f64).powi(8 * n as i32 - 1) - 1.0).log10().floor() as u32 >= p as u32)
        .unwrap_or(16)
}

fn to_avro(v: &Value, t: &Ty, nullable: bool) -> Res<AV> {
    if nullable || matches!(t, Ty::Null) {
        return Ok(match v {
            Value::Null => {
                if matches!(t, Ty::Null) {
                    AV::Null
                } else {
                    AV::Union(0, Box::new(AV::Null))
                }
            }
            v => AV::Union(1, Box::new(to_avro(v, t, false)?)),
        });
    }
    Ok(match (t, v) {
        (_, Value::Null) => return Err("null in a non-nullable field".into()),
        (Ty::Bool, Value::Bool(b)) => AV::Boolean(*b),
        (Ty::Int(IntKind::Timestamp), Value::I64(x)) => AV::TimestampMicros(*x),
        (Ty::Int(IntKind::Date), Value::I64(x)) => {
            AV::Date(i32::try_from(*x).map_err(|_| format!("date {x} out of Avro's int range"))?)
        }
        (Ty::Int(IntKind::Time), Value::I64(x)) => AV::TimeMicros(*x),
        (Ty::Int(_), Value::I64(x)) => AV::Long(*x),
        // uint64 above 2^63 keeps its bit pattern in a long.
        (Ty::UInt(_), Value::U64(x)) => AV::Long(*x as i64),
        (Ty::F32, Value::F32(x)) => AV::Float(*x),
        (Ty::F64, Value::F64(x)) => AV::Double(*x),
        (Ty::Str, Value::Str(s)) => AV::String(s.clone()),
        (Ty::Bin, Value::Bin(b)) => AV::Bytes(b.clone()),
        (Ty::Decimal(digits, s), Value::Str(d)) => {
            let u = unscaled_i128(d, *s)?;
            // Two's complement big-endian, as wide as the precision needs:
            // apache-avro's schema resolution (a query's reader schema)
            // refuses a shorter value, though Avro allows the shortest form.
            let be = u.to_be_bytes();
            AV::Decimal(apache_avro::Decimal::from(&be[16 - decimal_width(*digits)..]))
        }
        (Ty::List(e, en), Value::List(xs)) => {
            AV::Array(xs.iter().map(|x| to_avro(x, e, *en)).collect::<Res<Vec<_>>>()?)
        }
        (Ty::Struct(fs), Value::Struct(xs)) => AV::Record(
            fs.iter()
                .zip(xs)
                .map(|(f, x)| Ok((name(&f.name), to_avro(x, &f.ty, f.nullable)?)))
                .collect::<Res<Vec<_>>>()?,
        ),
        (t, _) => return Err(format!("value does not match {t:?}")),
    })
}

fn from_avro(v: AV, t: &Ty) -> Res<Value> {
    convert(v, t, false)
}

/// Another writer's Avro value through the dataset's type (§10.3): record
/// fields found by name (or that name made an Avro name), the logical
/// types of any unit.
pub fn from_avro_named(v: AV, t: &Ty) -> Res<Value> {
    convert(v, t, true)
}

fn convert(v: AV, t: &Ty, named: bool) -> Res<Value> {
    Ok(match (t, v) {
        (_, AV::Null) => Value::Null,
        (t, AV::Union(_, inner)) => convert(*inner, t, named)?,
        (Ty::Bool, AV::Boolean(b)) => Value::Bool(b),
        (Ty::Int(_), AV::Long(x) | AV::TimestampMicros(x) | AV::TimeMicros(x) | AV::LocalTimestampMicros(x)) => {
            Value::I64(x)
        }
        (Ty::Int(_), AV::Int(x) | AV::Date(x)) => Value::I64(x as i64),
        (Ty::Int(_), AV::TimestampMillis(x) | AV::LocalTimestampMillis(x)) => {
            Value::I64(x.checked_mul(1000).ok_or("timestamp-millis overflows µs")?)
        }
        (Ty::Int(_), AV::TimeMillis(x)) => Value::I64(x as i64 * 1000),
        (Ty::Int(_), AV::TimestampNanos(x) | AV::LocalTimestampNanos(x)) => Value::I64(x.div_euclid(1000)),
        (Ty::UInt(_), AV::Long(x)) => Value::U64(x as u64),
        (Ty::UInt(_), AV::Int(x)) => Value::U64(x as u32 as u64),
        (Ty::F32, AV::Float(x)) => Value::F32(x),
        (Ty::F32, AV::Double(x)) => Value::F32(x as f32),
        (Ty::F64, AV::Double(x)) => Value::F64(x),
        (Ty::F64, AV::Float(x)) => Value::F64(x as f64),
        (Ty::Str, AV::String(s) | AV::Enum(_, s)) => Value::Str(s),
        (Ty::Str, AV::Bytes(b)) => Value::Str(String::from_utf8(b).map_err(err)?),
        (Ty::Bin, AV::Bytes(b) | AV::Fixed(_, b)) => Value::Bin(b),
        (Ty::Bin, AV::String(s)) => Value::Bin(s.into_bytes()),
        (Ty::Decimal(_, s), AV::String(d)) => Value::Str(plain_decimal(&unscaled_i128(&d, *s)?.to_string(), *s)),
        (Ty::Decimal(_, s), AV::Bytes(b) | AV::Fixed(_, b)) => Value::Str(decimal_of_be(&b, *s)?),
        (Ty::Decimal(_, s), AV::Decimal(d)) => {
            let b: Vec<u8> = d.try_into().map_err(err)?;
            Value::Str(decimal_of_be(&b, *s)?)
        }
        (Ty::List(e, _), AV::Array(xs)) => {
            Value::List(xs.into_iter().map(|x| convert(x, e, named)).collect::<Res<Vec<_>>>()?)
        }
        (Ty::Struct(fs), AV::Record(xs)) if named => {
            let mut xs: Vec<(String, Option<AV>)> = xs.into_iter().map(|(n, x)| (n, Some(x))).collect();
            let mut out = Vec::with_capacity(fs.len());
            for f in fs {
                let an = name(&f.name);
                let pos = xs
                    .iter()
                    .position(|(n, _)| *n == f.name)
                    .or_else(|| xs.iter().position(|(n, _)| *n == an));
                out.push(match pos.and_then(|i| xs[i].1.take()) {
                    Some(x) => convert(x, &f.ty, named)?,
                    None => Value::Null,
                });
            }
            Value::Struct(out)
        }
        (Ty::Struct(fs), AV::Record(xs)) => {
            if xs.len() != fs.len() {
                return Err(format!("record with {} fields, want {}", xs.len(), fs.len()));
            }
            Value::Struct(
                xs.into_iter()
                    .zip(fs)
                    .map(|((_, x), f)| convert(x, &f.ty, named))
                    .collect::<Res<Vec<_>>>()?,
            )
        }
        (t, v) => return Err(format!("avro value {v:?} for type {t:?}")),
    })
}

/// The plain decimal of big-endian two's complement bytes at scale.
fn decimal_of_be(b: &[u8], s: i8) -> Res<String> {
    if b.len() > 16 {
        return Err("decimal wider than 128 bits".into());
    }
    let fill = if b.first().is_some_and(|x| x & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let mut be = [fill; 16];
    be[16 - b.len()..].copy_from_slice(b);
    Ok(plain_decimal(&i128::from_be_bytes(be).to_string(), s))
}

/// The rows of an Avro object container file read with its own schema.
pub fn read_named(b: &[u8], ty: &Ty) -> Res<Vec<Value>> {
    let r = Reader::new(b).map_err(err)?;
    let mut out = Vec::new();
    for v in r {
        out.push(from_avro_named(v.map_err(err)?, ty)?);
    }
    Ok(out)
}

/// An Avro name from an Arrow name (§10.3).
pub fn avro_name(s: &str) -> String {
    name(s)
}
