//! Arrow arrays to native values ([`Value`]), outside timing: the dataset's
//! rows for the row subjects, and the columnar subjects' decoded batches
//! for their digest.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, OffsetSizeTrait, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

use crate::value::{plain_decimal, to_micros, Value};

type Res<T> = Result<T, String>;

/// The rows of record batches: one `Value::Struct` per row, by column.
pub fn rows_of(batches: &[RecordBatch]) -> Res<Vec<Value>> {
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let mut rows = Vec::with_capacity(total);
    for b in batches {
        let mut cols = Vec::with_capacity(b.num_columns());
        for (i, c) in b.columns().iter().enumerate() {
            let vals = values(c.as_ref()).map_err(|e| format!("column {}: {e}", b.schema().field(i).name()))?;
            cols.push(vals.into_iter());
        }
        for _ in 0..b.num_rows() {
            rows.push(Value::Struct(
                cols.iter_mut().map(|c| c.next().unwrap_or(Value::Null)).collect(),
            ));
        }
    }
    Ok(rows)
}

fn prim<T, F>(a: &dyn Array, f: F) -> Res<Vec<Value>>
where
    T: ArrowPrimitiveType,
    F: Fn(T::Native) -> Res<Value>,
{
    let p = a.as_primitive::<T>();
    (0..p.len())
        .map(|i| if p.is_null(i) { Ok(Value::Null) } else { f(p.value(i)) })
        .collect()
}

fn micros(v: i64, u: &TimeUnit) -> Res<Value> {
    to_micros(v, u)
        .map(Value::I64)
        .ok_or_else(|| format!("{v} {u:?} overflows int64 microseconds"))
}

fn lists<O: OffsetSizeTrait>(a: &dyn Array) -> Res<Vec<Value>> {
    let l = a.as_list::<O>();
    let child = values(l.values().as_ref())?;
    let offs = l.value_offsets();
    ranges(
        &child,
        (0..l.len()).map(|i| (l.is_null(i), offs[i].as_usize(), offs[i + 1].as_usize())),
    )
}

/// Lists from (null, start, end) ranges over child values.
fn ranges(child: &[Value], rs: impl Iterator<Item = (bool, usize, usize)>) -> Res<Vec<Value>> {
    rs.map(|(null, s, e)| {
        if null {
            Ok(Value::Null)
        } else if e > child.len() || s > e {
            Err("list offsets out of range".to_string())
        } else {
            Ok(Value::List(child[s..e].to_vec()))
        }
    })
    .collect()
}

/// The values of an array, one per slot.
pub fn values(a: &dyn Array) -> Res<Vec<Value>> {
    use DataType as D;
    let n = a.len();
    Ok(match a.data_type() {
        D::Null => vec![Value::Null; n],
        D::Boolean => {
            let b = a.as_boolean();
            (0..n)
                .map(|i| {
                    if b.is_null(i) {
                        Value::Null
                    } else {
                        Value::Bool(b.value(i))
                    }
                })
                .collect()
        }
        D::Int8 => prim::<Int8Type, _>(a, |v| Ok(Value::I64(v as i64)))?,
        D::Int16 => prim::<Int16Type, _>(a, |v| Ok(Value::I64(v as i64)))?,
        D::Int32 => prim::<Int32Type, _>(a, |v| Ok(Value::I64(v as i64)))?,
        D::Int64 => prim::<Int64Type, _>(a, |v| Ok(Value::I64(v)))?,
        D::UInt8 => prim::<UInt8Type, _>(a, |v| Ok(Value::U64(v as u64)))?,
        D::UInt16 => prim::<UInt16Type, _>(a, |v| Ok(Value::U64(v as u64)))?,
        D::UInt32 => prim::<UInt32Type, _>(a, |v| Ok(Value::U64(v as u64)))?,
        D::UInt64 => prim::<UInt64Type, _>(a, |v| Ok(Value::U64(v)))?,
        D::Float16 => prim::<Float16Type, _>(a, |v| Ok(Value::F32(v.to_f32())))?,
        D::Float32 => prim::<Float32Type, _>(a, |v| Ok(Value::F32(v)))?,
        D::Float64 => prim::<Float64Type, _>(a, |v| Ok(Value::F64(v)))?,
        D::Utf8 => strs(a.as_string::<i32>().iter()),
        D::LargeUtf8 => strs(a.as_string::<i64>().iter()),
        D::Utf8View => strs(a.as_string_view().iter()),
        D::Binary => bins(a.as_binary::<i32>().iter()),
        D::LargeBinary => bins(a.as_binary::<i64>().iter()),
        D::BinaryView => bins(a.as_binary_view().iter()),
        D::FixedSizeBinary(_) => bins(a.as_fixed_size_binary().iter()),
        D::Timestamp(u, _) => {
            let u = *u;
            match u {
                TimeUnit::Second => prim::<TimestampSecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Millisecond => prim::<TimestampMillisecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Microsecond => prim::<TimestampMicrosecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Nanosecond => prim::<TimestampNanosecondType, _>(a, |v| micros(v, &u))?,
            }
        }
        D::Duration(u) => {
            let u = *u;
            match u {
                TimeUnit::Second => prim::<DurationSecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Millisecond => prim::<DurationMillisecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Microsecond => prim::<DurationMicrosecondType, _>(a, |v| micros(v, &u))?,
                TimeUnit::Nanosecond => prim::<DurationNanosecondType, _>(a, |v| micros(v, &u))?,
            }
        }
        D::Time32(TimeUnit::Second) => prim::<Time32SecondType, _>(a, |v| micros(v as i64, &TimeUnit::Second))?,
        D::Time32(_) => prim::<Time32MillisecondType, _>(a, |v| micros(v as i64, &TimeUnit::Millisecond))?,
        D::Time64(TimeUnit::Nanosecond) => prim::<Time64NanosecondType, _>(a, |v| micros(v, &TimeUnit::Nanosecond))?,
        D::Time64(_) => prim::<Time64MicrosecondType, _>(a, |v| Ok(Value::I64(v)))?,
        D::Date32 => prim::<Date32Type, _>(a, |v| Ok(Value::I64(v as i64)))?,
        D::Date64 => prim::<Date64Type, _>(a, |v| Ok(Value::I64(v.div_euclid(86_400_000))))?,
        D::Decimal128(_, s) => {
            let s = *s;
            prim::<Decimal128Type, _>(a, |v| Ok(Value::Str(plain_decimal(&v.to_string(), s))))?
        }
        D::Decimal256(_, s) => {
            let s = *s;
            prim::<Decimal256Type, _>(a, |v| Ok(Value::Str(plain_decimal(&v.to_string(), s))))?
        }
        D::List(_) | D::Map(_, _) => {
            if let D::Map(_, _) = a.data_type() {
                let m = a.as_map();
                let child = values(m.entries())?;
                let offs = m.value_offsets();
                ranges(
                    &child,
                    (0..n).map(|i| (m.is_null(i), offs[i] as usize, offs[i + 1] as usize)),
                )?
            } else {
                lists::<i32>(a)?
            }
        }
        D::LargeList(_) => lists::<i64>(a)?,
        D::FixedSizeList(_, size) => {
            let l = a.as_fixed_size_list();
            let child = values(l.values().as_ref())?;
            let sz = *size as usize;
            ranges(
                &child,
                (0..n).map(|i| (l.is_null(i), l.value_offset_at(i), l.value_offset_at(i) + sz)),
            )?
        }
        D::ListView(_) => {
            let l = a.as_list_view::<i32>();
            let child = values(l.values().as_ref())?;
            ranges(
                &child,
                (0..n).map(|i| {
                    let s = l.value_offsets()[i] as usize;
                    (l.is_null(i), s, s + l.value_sizes()[i] as usize)
                }),
            )?
        }
        D::LargeListView(_) => {
            let l = a.as_list_view::<i64>();
            let child = values(l.values().as_ref())?;
            ranges(
                &child,
                (0..n).map(|i| {
                    let s = l.value_offsets()[i] as usize;
                    (l.is_null(i), s, s + l.value_sizes()[i] as usize)
                }),
            )?
        }
        D::Struct(_) => {
            let s = a.as_struct();
            let mut cols = Vec::with_capacity(s.num_columns());
            for c in s.columns() {
                cols.push(values(c.as_ref())?.into_iter());
            }
            (0..n)
                .map(|i| {
                    let vals: Vec<Value> = cols.iter_mut().map(|c| c.next().unwrap_or(Value::Null)).collect();
                    if s.is_null(i) {
                        Value::Null
                    } else {
                        Value::Struct(vals)
                    }
                })
                .collect()
        }
        D::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let vals = values(d.values().as_ref())?;
            if vals.is_empty() {
                vec![Value::Null; n]
            } else {
                let keys = d.normalized_keys();
                let nulls = a.logical_nulls();
                (0..n)
                    .map(|i| {
                        if nulls.as_ref().is_some_and(|nb| nb.is_null(i)) {
                            Value::Null
                        } else {
                            vals[keys[i]].clone()
                        }
                    })
                    .collect()
            }
        }
        other => return Err(format!("type {other} has no digest in version 1")),
    })
}

fn strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> Vec<Value> {
    it.map(|v| v.map_or(Value::Null, |s| Value::Str(s.to_string())))
        .collect()
}

fn bins<'a>(it: impl Iterator<Item = Option<&'a [u8]>>) -> Vec<Value> {
    it.map(|v| v.map_or(Value::Null, |s| Value::Bin(s.to_vec()))).collect()
}
