//! The `prost` subject: protobuf through prost-reflect's `DynamicMessage`
//! (over prost's encoding), with the message types of the nested workload's
//! .proto files (dataset/nested/{tpch,media,userevents}/pb).
//!
//! No protoc and no generated code: the types come from the serialized
//! `FileDescriptorSet` of those files that serbench writes and names in
//! `$SERBENCH_PROTOBUF_DESCRIPTORS` (as for the Python runner), decoded
//! with `DescriptorPool::decode`. Without it the subject is not announced
//! (one line on stderr says why).
//!
//! As the Python and JVM protobuf subjects: a dataset binds to the
//! top-level message whose fields match its Arrow schema by name and kind
//! (tpch `LineItem`, media `Record`, userevents `Record`); any other dataset
//! is refused at setup. Rows become messages at bind (outside timing). A
//! string column of an enum field maps to the value whose name is the
//! string upper-cased with non-alphanumerics as `_` ("Profile update" ->
//! `PROFILE_UPDATE` = 3); the numbers map back to the strings of the
//! dataset, seen at bind (a number the dataset never held reads as the
//! value's name). proto3 `optional` fields: null is absent, a set `""` or 0
//! is written. Submessages are always set (an empty one too); a missing one
//! reads as null. Records are length-delimited: each message preceded by
//! its size as an unsigned varint, back to back; that is also the `.binpb`
//! file of export and import (protocol §10.3).
//!
//! -0.0: prost and prost-reflect leave out an implicit-presence
//! `float`/`double` field equal to 0 by `==`, so -0.0 (tokio-rs/prost#1177);
//! protobuf's spec, Go, Java and Python write it. A message holding one is
//! encoded by [`exact`] (the same fields walked here, written with prost's
//! encoding functions, the bit pattern deciding), so it stays bit-exact and
//! the bytes stay those of the other writers. Reading is prost-reflect's
//! and keeps the sign.

use std::collections::HashMap;
use std::sync::OnceLock;

use bytes::Bytes;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};

use crate::bound::{Bound, Dataset, Decoded, Enc, Res};
use crate::projection::Sel;
use crate::value::{IntKind, Ty, Value};

/// The environment variable naming the descriptor set's file.
pub const ENV: &str = "SERBENCH_PROTOBUF_DESCRIPTORS";

/// The top-level messages, tried in this order, with their dataset.
pub const TOP: [(&str, &str); 3] = [
    ("serbench.nested.tpch.LineItem", "tpch"),
    ("serbench.nested.media.Record", "media"),
    ("serbench.nested.userevents.Record", "userevents"),
];

static POOL: OnceLock<Result<DescriptorPool, String>> = OnceLock::new();

/// The descriptor pool of `$SERBENCH_PROTOBUF_DESCRIPTORS` (read once).
pub fn pool() -> Res<DescriptorPool> {
    POOL.get_or_init(|| {
        let path = std::env::var_os(ENV)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| format!("${ENV} is not set (serbench writes the nested .proto descriptors and sets it)"))?;
        let path = std::path::PathBuf::from(path);
        let b = std::fs::read(&path).map_err(|e| format!("no descriptor set at {}: {e}", path.display()))?;
        pool_from(&b).map_err(|e| format!("{}: {e}", path.display()))
    })
    .clone()
}

/// Why the subject cannot run here, or None.
pub fn unavailable() -> Option<String> {
    pool().err()
}

/// A descriptor pool from a serialized FileDescriptorSet holding the three
/// top-level messages.
pub fn pool_from(b: &[u8]) -> Res<DescriptorPool> {
    let p = DescriptorPool::decode(b).map_err(|e| format!("not a FileDescriptorSet: {e}"))?;
    for (full, _) in TOP {
        if p.get_message_by_name(full).is_none() {
            return Err(format!("the descriptor set has no message {full}"));
        }
    }
    Ok(p)
}

/// Binds the subject to a dataset (the pool of `$SERBENCH_PROTOBUF_DESCRIPTORS`).
pub fn bind(ds: &Dataset) -> Res<Box<dyn Bound>> {
    Ok(Box::new(ProstBound::new(&pool()?, ds)?))
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

// ---------------------------------------------------------------- binding

/// Why the fields of row type `t` do not match message `d`, or None.
pub fn mismatch(t: &Ty, d: &MessageDescriptor, path: &str) -> Option<String> {
    let fs = t.fields();
    if fs.len() != d.fields().len() {
        return Some(format!(
            "{path}{} has {} fields, the dataset {}",
            d.name(),
            d.fields().len(),
            fs.len()
        ));
    }
    for f in fs {
        let Some(fd) = d.get_field_by_name(&f.name) else {
            return Some(format!("{path}{} has no field {}", d.name(), f.name));
        };
        let p = format!("{path}{}", f.name);
        if fd.is_map() {
            return Some(format!("{p}: map fields are not supported"));
        }
        let mut ty = &f.ty;
        if fd.is_list() {
            match ty {
                Ty::List(e, _) => ty = e,
                other => return Some(format!("{p} is repeated, the dataset's column is {}", ty_name(other))),
            }
        }
        if let Some(w) = kind_mismatch(ty, &fd, &p) {
            return Some(w);
        }
    }
    None
}

fn kind_mismatch(t: &Ty, fd: &FieldDescriptor, p: &str) -> Option<String> {
    let ok = match fd.kind() {
        Kind::Message(m) => {
            return match t {
                Ty::Struct(_) => mismatch(t, &m, &format!("{p}.")),
                other => Some(format!("{p} is a message, the dataset's column is {}", ty_name(other))),
            }
        }
        Kind::Int32
        | Kind::Int64
        | Kind::Uint32
        | Kind::Uint64
        | Kind::Sint32
        | Kind::Sint64
        | Kind::Fixed32
        | Kind::Fixed64
        | Kind::Sfixed32
        | Kind::Sfixed64 => matches!(t, Ty::Int(IntKind::Plain(_)) | Ty::UInt(_)),
        Kind::Float | Kind::Double => matches!(t, Ty::F32 | Ty::F64),
        Kind::Bool => matches!(t, Ty::Bool),
        Kind::String | Kind::Enum(_) => matches!(t, Ty::Str),
        Kind::Bytes => matches!(t, Ty::Bin),
    };
    if ok {
        None
    } else {
        Some(format!(
            "{p} is {:?}, the dataset's column is {}",
            fd.kind(),
            ty_name(t)
        ))
    }
}

fn ty_name(t: &Ty) -> String {
    match t {
        Ty::Int(IntKind::Plain(n)) => format!("int{n}"),
        Ty::Int(k) => format!("{k:?}").to_lowercase(),
        Ty::UInt(n) => format!("uint{n}"),
        Ty::Decimal(p, s) => format!("decimal({p},{s})"),
        Ty::List(..) => "a list".into(),
        Ty::Struct(_) => "a struct".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The top-level message of the pool that the row type matches.
pub fn matching(pool: &DescriptorPool, t: &Ty) -> Res<MessageDescriptor> {
    let mut why = Vec::new();
    for (full, _) in TOP {
        let d = pool
            .get_message_by_name(full)
            .ok_or_else(|| format!("prost: the descriptor set has no message {full}"))?;
        match mismatch(t, &d, "") {
            None => return Ok(d),
            Some(w) => why.push(format!("{full}: {w}")),
        }
    }
    let names: Vec<String> = TOP
        .iter()
        .map(|(full, ds)| format!("{ds} ({})", full.rsplit('.').next().unwrap_or(full)))
        .collect();
    Err(format!(
        "prost: no message of the nested .proto files matches the dataset's schema; the subject binds only to the nested datasets {} ({})",
        names.join(", "),
        why.join("; ")
    ))
}

// ------------------------------------------------------------------ plans

/// How a field's values convert, by the proto kind and the dataset's type.
#[derive(Debug)]
enum Conv {
    Bool,
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
    Str,
    Bytes,
    /// An enum, by its index in [`Enums`].
    Enum(usize),
    Msg(Box<Plan>),
}

/// What the dataset's type holds: the [`Value`] variant a number reads as.
#[derive(Clone, Copy, Debug)]
enum Out {
    Signed,
    Unsigned,
    F32,
    F64,
    Other,
}

#[derive(Debug)]
struct FieldPlan {
    fd: FieldDescriptor,
    conv: Conv,
    out: Out,
    list: bool,
    /// Explicit presence on a singular field (proto3 optional, messages).
    presence: bool,
    /// A singular float or double without presence (the -0.0 case).
    implicit_float: bool,
    path: String,
}

/// A message's fields in the dataset's order.
#[derive(Debug)]
struct Plan {
    desc: MessageDescriptor,
    fields: Vec<FieldPlan>,
}

/// The enums of a binding: each string's number, and back.
#[derive(Debug, Default)]
struct Enums {
    descs: Vec<EnumDescriptor>,
    /// key (upper-cased name) -> number, per enum.
    by_key: Vec<HashMap<String, i32>>,
    /// number -> the dataset's string, per enum (filled at bind).
    names: Vec<HashMap<i32, String>>,
    /// number -> the value's name, per enum.
    value_names: Vec<HashMap<i32, String>>,
}

impl Enums {
    fn index(&mut self, ed: EnumDescriptor) -> usize {
        if let Some(i) = self.descs.iter().position(|d| d.full_name() == ed.full_name()) {
            return i;
        }
        self.by_key
            .push(ed.values().map(|v| (v.name().to_string(), v.number())).collect());
        self.value_names
            .push(ed.values().map(|v| (v.number(), v.name().to_string())).collect());
        self.names.push(HashMap::new());
        self.descs.push(ed);
        self.descs.len() - 1
    }

    fn number(&mut self, i: usize, s: &str, path: &str) -> Res<i32> {
        let n = *self.by_key[i]
            .get(&enum_key(s))
            .ok_or_else(|| format!("prost: {path}: {s:?} is no value of enum {}", self.descs[i].name()))?;
        match self.names[i].get(&n) {
            Some(prev) if prev != s => Err(format!(
                "prost: {path}: {s:?} and {prev:?} are both {}",
                self.value_names[i].get(&n).map(String::as_str).unwrap_or("?")
            )),
            Some(_) => Ok(n),
            None => {
                self.names[i].insert(n, s.to_string());
                Ok(n)
            }
        }
    }

    fn string(&self, i: usize, n: i32) -> String {
        match self.names[i].get(&n).or_else(|| self.value_names[i].get(&n)) {
            Some(s) => s.clone(),
            None => n.to_string(),
        }
    }
}

/// The enum value name a dataset string maps to: upper-cased,
/// non-alphanumerics as `_`.
pub fn enum_key(s: &str) -> String {
    s.to_uppercase()
        .chars()
        .map(|c| {
            if c.is_ascii_uppercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn plan(t: &Ty, d: &MessageDescriptor, enums: &mut Enums, path: &str) -> Res<Plan> {
    let mut fields = Vec::new();
    for f in t.fields() {
        let fd = d
            .get_field_by_name(&f.name)
            .ok_or_else(|| format!("prost: {path}{}: no such field", f.name))?;
        let list = fd.is_list();
        let ty = match (&f.ty, list) {
            (Ty::List(e, _), true) => e.as_ref(),
            (t, _) => t,
        };
        let p = format!("{path}{}", f.name);
        let conv = match fd.kind() {
            Kind::Message(m) => Conv::Msg(Box::new(plan(ty, &m, enums, &format!("{p}."))?)),
            Kind::Enum(e) => Conv::Enum(enums.index(e)),
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Conv::I32,
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Conv::I64,
            Kind::Uint32 | Kind::Fixed32 => Conv::U32,
            Kind::Uint64 | Kind::Fixed64 => Conv::U64,
            Kind::Float => Conv::F32,
            Kind::Double => Conv::F64,
            Kind::Bool => Conv::Bool,
            Kind::String => Conv::Str,
            Kind::Bytes => Conv::Bytes,
        };
        let out = match ty {
            Ty::Int(_) => Out::Signed,
            Ty::UInt(_) => Out::Unsigned,
            Ty::F32 => Out::F32,
            Ty::F64 => Out::F64,
            _ => Out::Other,
        };
        let presence = !list && fd.supports_presence();
        fields.push(FieldPlan {
            implicit_float: !list && !presence && matches!(conv, Conv::F32 | Conv::F64),
            fd,
            conv,
            out,
            list,
            presence,
            path: p,
        });
    }
    Ok(Plan {
        desc: d.clone(),
        fields,
    })
}

// ----------------------------------------------------- rows to messages

fn int_err(v: &Value, path: &str, what: &str) -> String {
    format!("prost: {path}: {v:?} does not fit {what}")
}

fn to_pb(v: &Value, c: &Conv, enums: &mut Enums, path: &str, neg_zero: &mut bool) -> Res<prost_reflect::Value> {
    use prost_reflect::Value as P;
    let wide = |v: &Value| -> Option<i128> {
        match v {
            Value::I64(x) => Some(*x as i128),
            Value::U64(x) => Some(*x as i128),
            _ => None,
        }
    };
    Ok(match c {
        Conv::I32 => P::I32(
            wide(v)
                .and_then(|x| i32::try_from(x).ok())
                .ok_or_else(|| int_err(v, path, "int32"))?,
        ),
        Conv::I64 => P::I64(
            wide(v)
                .and_then(|x| i64::try_from(x).ok())
                .ok_or_else(|| int_err(v, path, "int64"))?,
        ),
        Conv::U32 => P::U32(
            wide(v)
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(|| int_err(v, path, "uint32"))?,
        ),
        Conv::U64 => P::U64(
            wide(v)
                .and_then(|x| u64::try_from(x).ok())
                .ok_or_else(|| int_err(v, path, "uint64"))?,
        ),
        Conv::F32 => {
            let x = match v {
                Value::F32(x) => *x,
                Value::F64(x) => *x as f32,
                _ => return Err(format!("prost: {path}: {v:?} is no float")),
            };
            *neg_zero |= x.to_bits() == (-0.0f32).to_bits();
            P::F32(x)
        }
        Conv::F64 => {
            let x = match v {
                Value::F64(x) => *x,
                Value::F32(x) => *x as f64,
                _ => return Err(format!("prost: {path}: {v:?} is no double")),
            };
            *neg_zero |= x.to_bits() == (-0.0f64).to_bits();
            P::F64(x)
        }
        Conv::Bool => match v {
            Value::Bool(b) => P::Bool(*b),
            _ => return Err(format!("prost: {path}: {v:?} is no bool")),
        },
        Conv::Str => match v {
            Value::Str(s) => P::String(s.clone()),
            _ => return Err(format!("prost: {path}: {v:?} is no string")),
        },
        Conv::Bytes => match v {
            Value::Bin(b) => P::Bytes(Bytes::from(b.clone())),
            _ => return Err(format!("prost: {path}: {v:?} is no binary")),
        },
        Conv::Enum(i) => match v {
            Value::Str(s) => P::EnumNumber(enums.number(*i, s, path)?),
            _ => return Err(format!("prost: {path}: {v:?} is no string")),
        },
        Conv::Msg(p) => match v {
            Value::Struct(fs) => P::Message(build(fs, p, enums, neg_zero)?),
            _ => return Err(format!("prost: {path}: {v:?} is no struct")),
        },
    })
}

/// A message of plan `p` from a struct's values; `neg_zero` is set when an
/// implicit-presence float field (here or below) holds -0.0.
fn build(fs: &[Value], p: &Plan, enums: &mut Enums, neg_zero: &mut bool) -> Res<DynamicMessage> {
    let mut m = DynamicMessage::new(p.desc.clone());
    for (f, v) in p.fields.iter().zip(fs) {
        if matches!(v, Value::Null) {
            continue; // unset: proto3 presence (optional, messages) or the default
        }
        let pv = if f.list {
            let Value::List(xs) = v else {
                return Err(format!("prost: {}: {v:?} is no list", f.path));
            };
            let mut out = Vec::with_capacity(xs.len());
            let mut nz = false;
            for x in xs {
                if matches!(x, Value::Null) {
                    return Err(format!("prost: {}: a repeated field has no null elements", f.path));
                }
                out.push(to_pb(x, &f.conv, enums, &f.path, &mut nz)?);
            }
            // In a list -0.0 is written by prost too; only messages below count.
            if matches!(f.conv, Conv::Msg(_)) {
                *neg_zero |= nz;
            }
            prost_reflect::Value::List(out)
        } else {
            let mut nz = false;
            let pv = to_pb(v, &f.conv, enums, &f.path, &mut nz)?;
            if nz && (f.implicit_float || matches!(f.conv, Conv::Msg(_))) {
                *neg_zero = true;
            }
            pv
        };
        m.try_set_field(&f.fd, pv)
            .map_err(|e| format!("prost: {}: {e}", f.path))?;
    }
    Ok(m)
}

// ----------------------------------------------------- messages to rows

fn from_pb(v: &prost_reflect::Value, f: &FieldPlan, enums: &Enums, sel: Option<&Sel>) -> Value {
    use prost_reflect::Value as P;
    let num_i = |x: i64| match f.out {
        Out::Unsigned => Value::U64(x as u64),
        _ => Value::I64(x),
    };
    let num_u = |x: u64| match f.out {
        Out::Unsigned => Value::U64(x),
        _ => Value::I64(x as i64),
    };
    let float = |x: f64, narrow: Option<f32>| match f.out {
        Out::F32 => Value::F32(narrow.unwrap_or(x as f32)),
        _ => Value::F64(x),
    };
    match v {
        P::Bool(b) => Value::Bool(*b),
        P::I32(x) => num_i(*x as i64),
        P::I64(x) => num_i(*x),
        P::U32(x) => num_u(*x as u64),
        P::U64(x) => num_u(*x),
        P::F32(x) => float(*x as f64, Some(*x)),
        P::F64(x) => float(*x, None),
        P::String(s) => Value::Str(s.clone()),
        P::Bytes(b) => Value::Bin(b.to_vec()),
        P::EnumNumber(n) => match f.conv {
            Conv::Enum(i) => Value::Str(enums.string(i, *n)),
            _ => Value::I64(*n as i64),
        },
        P::Message(m) => match &f.conv {
            Conv::Msg(p) => read(m, p, enums, sel),
            _ => Value::Null,
        },
        P::List(xs) => Value::List(xs.iter().map(|x| from_pb(x, f, enums, sel)).collect()),
        P::Map(_) => Value::Null,
    }
}

/// A message as a row of the dataset's type (or the selected fields of it).
fn read(m: &DynamicMessage, p: &Plan, enums: &Enums, sel: Option<&Sel>) -> Value {
    let field = |f: &FieldPlan, sub: Option<&Sel>| -> Value {
        if f.presence && !m.has_field(&f.fd) {
            return Value::Null;
        }
        from_pb(&m.get_field(&f.fd), f, enums, sub)
    };
    match sel {
        Some(s) if !s.all => Value::Struct(
            s.fields
                .iter()
                .map(|(&i, sub)| field(&p.fields[i], Some(sub)))
                .collect(),
        ),
        _ => Value::Struct(p.fields.iter().map(|f| field(f, None)).collect()),
    }
}

// ---------------------------------------------------------------- framing

/// Reads the unsigned varint at pos: its value and the position after it.
fn varint_at(b: &[u8], pos: usize) -> Res<(u64, usize)> {
    let mut v = 0u64;
    for k in 0..10 {
        let Some(&x) = b.get(pos + k) else {
            return Err(format!("prost: truncated record length at offset {pos}"));
        };
        if k == 9 && x > 1 {
            break;
        }
        v |= ((x & 0x7f) as u64) << (7 * k);
        if x < 0x80 {
            return Ok((v, pos + k + 1));
        }
    }
    Err(format!("prost: bad record length at offset {pos}"))
}

/// The messages of length-delimited records.
pub fn decode_records(desc: &MessageDescriptor, b: &[u8]) -> Res<Vec<DynamicMessage>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < b.len() {
        let (n, start) = varint_at(b, pos)?;
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| {
                format!(
                    "prost: a record of {n} bytes at offset {start} runs past the end ({})",
                    b.len()
                )
            })?;
        let m = DynamicMessage::decode(desc.clone(), &b[start..end])
            .map_err(|e| format!("prost: record {} at offset {start}: {e}", out.len()))?;
        out.push(m);
        pos = end;
    }
    Ok(out)
}

// ------------------------------------------------------------------ bound

/// The subject bound to a dataset: its message type, plan, enum strings
/// and the dataset's rows as messages.
pub struct ProstBound {
    plan: Plan,
    enums: Enums,
    msgs: Vec<DynamicMessage>,
    /// The messages holding an implicit-presence -0.0 (encoded by [`exact`]).
    exact: Vec<bool>,
    /// encode's size.
    size: usize,
}

impl ProstBound {
    /// Binds to a dataset: its message, and its rows as messages.
    pub fn new(pool: &DescriptorPool, ds: &Dataset) -> Res<ProstBound> {
        ProstBound::from_rows(pool, &ds.ty, &ds.rows()?)
    }

    /// Binds to rows of a row type.
    pub fn from_rows(pool: &DescriptorPool, ty: &Ty, rows: &[Value]) -> Res<ProstBound> {
        let desc = matching(pool, ty)?;
        let mut enums = Enums::default();
        let plan = plan(ty, &desc, &mut enums, "")?;
        let mut msgs = Vec::with_capacity(rows.len());
        let mut exact = Vec::with_capacity(rows.len());
        let mut size = 0;
        for r in rows {
            let Value::Struct(fs) = r else {
                return Err("prost: a row is not a struct".into());
            };
            let mut nz = false;
            let m = build(fs, &plan, &mut enums, &mut nz)?;
            let n = if nz { exact::len(&m) } else { m.encoded_len() };
            size += prost::encoding::encoded_len_varint(n as u64) + n;
            msgs.push(m);
            exact.push(nz);
        }
        Ok(ProstBound {
            plan,
            enums,
            msgs,
            exact,
            size,
        })
    }

    /// The bound message type.
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.plan.desc
    }

    /// The dataset's rows as messages.
    pub fn messages(&self) -> &[DynamicMessage] {
        &self.msgs
    }

    /// The dataset's string of enum `full_name`'s number n, if it held one.
    pub fn enum_string(&self, full_name: &str, n: i32) -> Option<&str> {
        let i = self.enums.descs.iter().position(|d| d.full_name() == full_name)?;
        self.enums.names[i].get(&n).map(String::as_str)
    }

    /// A row of the dataset's type as a message (for tests).
    pub fn message_of(&mut self, row: &Value) -> Res<DynamicMessage> {
        let Value::Struct(fs) = row else {
            return Err("prost: a row is not a struct".into());
        };
        build(fs, &self.plan, &mut self.enums, &mut false)
    }

    /// Messages as rows of the dataset's type.
    pub fn rows_of(&self, ms: &[DynamicMessage]) -> Vec<Value> {
        ms.iter().map(|m| read(m, &self.plan, &self.enums, None)).collect()
    }
}

impl Bound for ProstBound {
    /// The messages as length-delimited records: prost-reflect's
    /// `encode_length_delimited`, or [`exact`] for a message holding an
    /// implicit-presence -0.0.
    fn encode(&self) -> Res<Enc> {
        let mut out = Vec::with_capacity(self.size);
        for (m, &ex) in self.msgs.iter().zip(&self.exact) {
            if ex {
                exact::encode_delimited(m, &mut out);
            } else {
                m.encode_length_delimited(&mut out).map_err(err)?;
            }
        }
        Ok(Enc::Vec(out))
    }

    fn decode(&self, b: &Bytes) -> Res<Decoded> {
        decode_records(&self.plan.desc, b).map(Decoded::Protobuf)
    }

    /// A full decode, then the selected fields as new rows.
    fn query(&self, b: &Bytes, p: &crate::projection::Projection) -> Res<Decoded> {
        let ms = decode_records(&self.plan.desc, b)?;
        Ok(Decoded::Rows(
            ms.iter()
                .map(|m| read(m, &self.plan, &self.enums, Some(&p.sel)))
                .collect(),
        ))
    }

    fn rows(&self, _b: &Bytes, d: Decoded) -> Res<Vec<Value>> {
        match d {
            Decoded::Protobuf(ms) => Ok(self.rows_of(&ms)),
            Decoded::Rows(r) => Ok(r),
            _ => Err("prost: no messages to digest".into()),
        }
    }
}

/// The exact encoding of a message: every field that protobuf's spec
/// writes, in field-number order, with prost's encoding functions; an
/// implicit-presence float or double is left out only when its bits are
/// those of +0.0. Used for the messages holding -0.0 (see the module doc);
/// otherwise the same bytes as prost-reflect's.
pub mod exact {
    use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};
    use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, ReflectMessage, Value};

    fn present(m: &DynamicMessage, fd: &FieldDescriptor) -> bool {
        if fd.supports_presence() || fd.is_list() || fd.is_map() {
            return m.has_field(fd);
        }
        match &*m.get_field(fd) {
            Value::F64(x) => x.to_bits() != 0,
            Value::F32(x) => x.to_bits() != 0,
            _ => m.has_field(fd),
        }
    }

    fn fields(m: &DynamicMessage) -> Vec<FieldDescriptor> {
        let mut fs: Vec<FieldDescriptor> = m.descriptor().fields().filter(|f| present(m, f)).collect();
        fs.sort_by_key(|f| f.number());
        fs
    }

    fn wire(k: &Kind) -> WireType {
        match k {
            Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::SixtyFourBit,
            Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::ThirtyTwoBit,
            Kind::String | Kind::Bytes | Kind::Message(_) => WireType::LengthDelimited,
            _ => WireType::Varint,
        }
    }

    fn varint_of(v: &Value, k: &Kind) -> u64 {
        match (v, k) {
            (Value::Bool(b), _) => *b as u64,
            (Value::I32(x), Kind::Sint32) => ((x << 1) ^ (x >> 31)) as u32 as u64,
            (Value::I64(x), Kind::Sint64) => ((x << 1) ^ (x >> 63)) as u64,
            (Value::I32(x), _) | (Value::EnumNumber(x), _) => *x as i64 as u64,
            (Value::I64(x), _) => *x as u64,
            (Value::U32(x), _) => *x as u64,
            (Value::U64(x), _) => *x,
            _ => 0,
        }
    }

    /// The size of one value without its key.
    fn value_len(v: &Value, k: &Kind) -> usize {
        match (v, wire(k)) {
            (_, WireType::SixtyFourBit) => 8,
            (_, WireType::ThirtyTwoBit) => 4,
            (Value::String(s), _) => encoded_len_varint(s.len() as u64) + s.len(),
            (Value::Bytes(b), _) => encoded_len_varint(b.len() as u64) + b.len(),
            (Value::Message(m), _) => {
                let n = len(m);
                encoded_len_varint(n as u64) + n
            }
            _ => encoded_len_varint(varint_of(v, k)),
        }
    }

    fn put_value(v: &Value, k: &Kind, buf: &mut Vec<u8>) {
        match v {
            Value::F64(x) => buf.extend_from_slice(&x.to_le_bytes()),
            Value::F32(x) => buf.extend_from_slice(&x.to_le_bytes()),
            Value::I64(x) if wire(k) == WireType::SixtyFourBit => buf.extend_from_slice(&x.to_le_bytes()),
            Value::U64(x) if wire(k) == WireType::SixtyFourBit => buf.extend_from_slice(&x.to_le_bytes()),
            Value::I32(x) if wire(k) == WireType::ThirtyTwoBit => buf.extend_from_slice(&x.to_le_bytes()),
            Value::U32(x) if wire(k) == WireType::ThirtyTwoBit => buf.extend_from_slice(&x.to_le_bytes()),
            Value::String(s) => {
                encode_varint(s.len() as u64, buf);
                buf.extend_from_slice(s.as_bytes());
            }
            Value::Bytes(b) => {
                encode_varint(b.len() as u64, buf);
                buf.extend_from_slice(b);
            }
            Value::Message(m) => {
                encode_varint(len(m) as u64, buf);
                encode(m, buf);
            }
            _ => encode_varint(varint_of(v, k), buf),
        }
    }

    fn field_len(fd: &FieldDescriptor, v: &Value) -> usize {
        let (k, n) = (fd.kind(), fd.number());
        match v {
            Value::List(xs) if fd.is_packed() => {
                if xs.is_empty() {
                    return 0;
                }
                let body: usize = xs.iter().map(|x| value_len(x, &k)).sum();
                key_len(n) + encoded_len_varint(body as u64) + body
            }
            Value::List(xs) => xs.iter().map(|x| key_len(n) + value_len(x, &k)).sum(),
            v => key_len(n) + value_len(v, &k),
        }
    }

    /// The size of a message's fields.
    pub fn len(m: &DynamicMessage) -> usize {
        fields(m).iter().map(|f| field_len(f, &m.get_field(f))).sum()
    }

    /// A message's fields.
    pub fn encode(m: &DynamicMessage, buf: &mut Vec<u8>) {
        for fd in fields(m) {
            let (k, n) = (fd.kind(), fd.number());
            match &*m.get_field(&fd) {
                Value::List(xs) if fd.is_packed() => {
                    if xs.is_empty() {
                        continue;
                    }
                    encode_key(n, WireType::LengthDelimited, buf);
                    let body: usize = xs.iter().map(|x| value_len(x, &k)).sum();
                    encode_varint(body as u64, buf);
                    for x in xs {
                        put_value(x, &k, buf);
                    }
                }
                Value::List(xs) => {
                    for x in xs {
                        encode_key(n, wire(&k), buf);
                        put_value(x, &k, buf);
                    }
                }
                v => {
                    encode_key(n, wire(&k), buf);
                    put_value(v, &k, buf);
                }
            }
        }
    }

    /// A message preceded by its size as a varint.
    pub fn encode_delimited(m: &DynamicMessage, buf: &mut Vec<u8>) {
        encode_varint(len(m) as u64, buf);
        encode(m, buf);
    }
}
