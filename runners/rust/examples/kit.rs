//! A runner written with the kit alone, and the kit's own test fixture
//! (`tests/kit.rs` runs it as serbench would). Three subjects:
//!
//! - `json-rows`: serde_json through the kit's serde mapping
//!   ([`Rows::serde`] and [`kit::seed`]), the whole of a serde subject;
//! - `flat`: a hand-written binary format of scalar columns, without
//!   serde: it says with [`kit::cannot_hold`] what it cannot hold (a list
//!   or struct column, from `check`; a uint64 above 2^63 − 1, from
//!   `encode`) and reads the row type in `decode`;
//! - `panics`: encodes as `flat` does and panics in `decode`, to show a
//!   panic stays within its case.
//!
//! ```text
//! cargo run --release --example kit -- hello --protocol 1
//! ```

use serbench_runner::kit::{self, Error, Layout, Rows, Ty, Value};

/// serde_json over the kit's rows, structs as maps keyed by field name.
struct JsonRows;

impl kit::Subject for JsonRows {
    fn name(&self) -> &str {
        "json-rows"
    }

    fn describe(&self) -> kit::Description {
        kit::Description::new("json", "serde_json", "1").label("model", "kit rows (serde)")
    }

    fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error> {
        Ok(serde_json::to_vec(&rows.serde(Layout::Named))?)
    }

    fn decode(&self, bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error> {
        use serde::de::DeserializeSeed;
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let rows = kit::seed(row, Layout::Named).deserialize(&mut de)?;
        de.end()?;
        Ok(rows)
    }
}

/// Scalar columns as tagged values: a row count, then each row's fields in
/// order, each a tag byte and its little-endian payload.
struct Flat;

const NULL: u8 = 0;
const BOOL: u8 = 1;
const INT: u8 = 2;
const F32: u8 = 3;
const F64: u8 = 4;
const STR: u8 = 5;
const BIN: u8 = 6;

fn check_flat(row: &Ty) -> Result<(), Error> {
    for f in row.fields() {
        if matches!(f.ty, Ty::List(..) | Ty::Struct(_)) {
            return Err(kit::cannot_hold(format!(
                "flat: column {} is a {}, flat holds scalar columns only",
                f.name,
                if matches!(f.ty, Ty::List(..)) { "list" } else { "struct" }
            )));
        }
    }
    Ok(())
}

fn encode_flat(rows: Rows<'_>) -> Result<Vec<u8>, Error> {
    let fields = rows.ty().fields();
    let mut out = Vec::with_capacity(rows.len() * fields.len() * 9 + 4);
    out.extend_from_slice(&u32::try_from(rows.len())?.to_le_bytes());
    for (r, row) in rows.values().iter().enumerate() {
        let Value::Struct(vs) = row else {
            return Err("a row is not a struct".into());
        };
        for (f, v) in fields.iter().zip(vs) {
            match v {
                Value::Null => out.push(NULL),
                Value::Bool(b) => out.extend_from_slice(&[BOOL, *b as u8]),
                Value::I64(x) => {
                    out.push(INT);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Value::U64(x) => {
                    let x = i64::try_from(*x).map_err(|_| {
                        kit::cannot_hold(format!("flat: column {} row {r}: {x} is above flat's int64", f.name))
                    })?;
                    out.push(INT);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Value::F32(x) => {
                    out.push(F32);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Value::F64(x) => {
                    out.push(F64);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Value::Str(s) => {
                    out.push(STR);
                    out.extend_from_slice(&u32::try_from(s.len())?.to_le_bytes());
                    out.extend_from_slice(s.as_bytes());
                }
                Value::Bin(b) => {
                    out.push(BIN);
                    out.extend_from_slice(&u32::try_from(b.len())?.to_le_bytes());
                    out.extend_from_slice(b);
                }
                Value::List(_) | Value::Struct(_) => {
                    return Err(kit::cannot_hold(format!("flat: column {} is nested", f.name)))
                }
            }
        }
    }
    Ok(out)
}

/// Reads the bytes of `flat`, every read bounds-checked.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.0.len() < n {
            return Err("flat: truncated input".into());
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        Ok(self.take(N)?.try_into()?)
    }

    fn len(&mut self) -> Result<usize, Error> {
        Ok(u32::from_le_bytes(self.array()?) as usize)
    }
}

fn decode_flat(bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error> {
    let fields = row.fields();
    let mut rd = Reader(bytes);
    let n = rd.len()?;
    let mut rows = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        let mut vs = Vec::with_capacity(fields.len());
        for f in fields {
            vs.push(match rd.array::<1>()?[0] {
                NULL => Value::Null,
                BOOL => Value::Bool(rd.array::<1>()?[0] != 0),
                INT => {
                    let x = i64::from_le_bytes(rd.array()?);
                    match f.ty {
                        Ty::UInt(_) => Value::U64(u64::try_from(x)?),
                        _ => Value::I64(x),
                    }
                }
                F32 => Value::F32(f32::from_le_bytes(rd.array()?)),
                F64 => Value::F64(f64::from_le_bytes(rd.array()?)),
                STR => {
                    let k = rd.len()?;
                    Value::Str(std::str::from_utf8(rd.take(k)?)?.to_string())
                }
                BIN => {
                    let k = rd.len()?;
                    Value::Bin(rd.take(k)?.to_vec())
                }
                t => return Err(format!("flat: unknown tag {t}").into()),
            });
        }
        rows.push(Value::Struct(vs));
    }
    if !rd.0.is_empty() {
        return Err(format!("flat: {} bytes after the last row", rd.0.len()).into());
    }
    Ok(rows)
}

impl kit::Subject for Flat {
    fn name(&self) -> &str {
        "flat"
    }

    fn describe(&self) -> kit::Description {
        kit::Description::new("flat", "flat", env!("CARGO_PKG_VERSION"))
            .label("model", "kit rows (hand-written)")
            .label("nesting", "flat")
    }

    fn check(&self, rows: Rows<'_>) -> Result<(), Error> {
        check_flat(rows.ty())
    }

    fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error> {
        encode_flat(rows)
    }

    fn decode(&self, bytes: &[u8], row: &Ty) -> Result<Vec<Value>, Error> {
        decode_flat(bytes, row)
    }
}

/// `flat`'s encode, and a decode that panics.
struct Panics;

impl kit::Subject for Panics {
    fn name(&self) -> &str {
        "panics"
    }

    fn check(&self, rows: Rows<'_>) -> Result<(), Error> {
        check_flat(rows.ty())
    }

    fn encode(&self, rows: Rows<'_>) -> Result<Vec<u8>, Error> {
        encode_flat(rows)
    }

    fn decode(&self, _bytes: &[u8], _row: &Ty) -> Result<Vec<Value>, Error> {
        panic!("a decoder bug")
    }
}

fn main() {
    kit::main("kit-test", vec![Box::new(JsonRows), Box::new(Flat), Box::new(Panics)]);
}
