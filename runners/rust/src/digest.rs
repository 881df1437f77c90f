//! The digest, version 1 (docs/runner-protocol.md §7), of native values
//! walked through their type: one SHA-256/128 per leaf column over the
//! canonical byte stream, and the table digest over the sorted columns.

use std::collections::BTreeSet;

use serde_json::{json, Value as Json};
use sha2::{Digest as _, Sha256};

use crate::value::{Ty, Value};

/// A step from a value to a leaf: into a struct's field (by position) or
/// into each of a list's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Field(usize),
    List,
}

/// A leaf column: its path (§7.1), its steps from the row, and its type.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub path: String,
    pub steps: Vec<Step>,
    pub ty: Ty,
}

/// The leaf columns of a row type (a struct), in schema order.
pub fn leaves(row: &Ty) -> Result<Vec<Leaf>, String> {
    fn walk(path: String, steps: Vec<Step>, t: &Ty, out: &mut Vec<Leaf>) {
        match t {
            Ty::Struct(fs) => {
                for (i, f) in fs.iter().enumerate() {
                    let mut s = steps.clone();
                    s.push(Step::Field(i));
                    walk(format!("{path}.{}", f.name), s, &f.ty, out);
                }
            }
            Ty::List(e, _) => {
                let mut s = steps;
                s.push(Step::List);
                walk(format!("{path}.[]"), s, e, out);
            }
            _ => out.push(Leaf {
                path,
                steps,
                ty: t.clone(),
            }),
        }
    }
    let mut out = Vec::new();
    for (i, f) in row.fields().iter().enumerate() {
        walk(f.name.clone(), vec![Step::Field(i)], &f.ty, &mut out);
    }
    let mut seen = BTreeSet::new();
    for l in &out {
        if !seen.insert(l.path.as_str()) {
            return Err(format!("digest: two leaf columns with path {:?}", l.path));
        }
    }
    Ok(out)
}

/// The digest of rows of type `row`, as the `digest` member of a `verify`
/// line; `only`: the leaf paths to digest (a query's), or all.
pub fn digest_rows(row: &Ty, rows: &[Value], only: Option<&BTreeSet<String>>) -> Result<Json, String> {
    let mut ls = leaves(row)?;
    if let Some(only) = only {
        ls.retain(|l| only.contains(&l.path));
        for p in only {
            if !ls.iter().any(|l| &l.path == p) {
                return Err(format!("digest: no leaf column {p:?}"));
            }
        }
    }
    let mut cols: Vec<(String, [u8; 16])> = Vec::with_capacity(ls.len());
    let mut buf = Vec::with_capacity(1 << 16);
    for l in &ls {
        let mut h = Sha256::new();
        let Step::Field(top) = l.steps[0] else {
            return Err("a leaf outside any field".into());
        };
        for r in rows {
            let v = match r {
                Value::Struct(fs) => fs
                    .get(top)
                    .ok_or_else(|| format!("column {}: a row without it", l.path))?,
                _ => return Err("a row that is not a struct".into()),
            };
            enc(v, &l.steps, 1, &l.ty, &mut buf).map_err(|e| format!("column {}: {e}", l.path))?;
            if buf.len() >= 1 << 20 {
                h.update(&buf);
                buf.clear();
            }
        }
        h.update(&buf);
        buf.clear();
        let sum = h.finalize();
        let mut d = [0u8; 16];
        d.copy_from_slice(&sum[..16]);
        cols.push((l.path.clone(), d));
    }
    cols.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let table = table_digest(&cols);
    let columns: Vec<Json> = cols.iter().map(|(p, d)| json!({"path": p, "digest": hex(d)})).collect();
    Ok(json!({"rows": rows.len(), "table": table, "columns": columns}))
}

/// The table digest (§7.4) over (path, column digest) pairs sorted by path.
pub fn table_digest(cols: &[(String, [u8; 16])]) -> String {
    let mut h = Sha256::new();
    for (p, d) in cols {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
        h.update(d);
    }
    hex(&h.finalize()[..16])
}

/// Lowercase hexadecimal.
pub fn hex(b: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(H[(x >> 4) as usize] as char);
        s.push(H[(x & 15) as usize] as char);
    }
    s
}

fn enc(v: &Value, steps: &[Step], k: usize, leaf: &Ty, out: &mut Vec<u8>) -> Result<(), String> {
    if let Value::Null = v {
        out.push(0);
        return Ok(());
    }
    out.push(1);
    if k == steps.len() {
        return canon(v, leaf, out);
    }
    match (steps[k], v) {
        (Step::List, Value::List(es)) => {
            out.extend_from_slice(&(es.len() as u64).to_le_bytes());
            for e in es {
                enc(e, steps, k + 1, leaf, out)?;
            }
            Ok(())
        }
        (Step::Field(i), Value::Struct(fs)) => match fs.get(i) {
            Some(f) => enc(f, steps, k + 1, leaf, out),
            None => Err(format!("struct value with {} fields, want field {i}", fs.len())),
        },
        (s, v) => Err(format!("value {} where the schema has {s:?}", kind(v))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::I64(_) => "int64",
        Value::U64(_) => "uint64",
        Value::F32(_) => "float32",
        Value::F64(_) => "float64",
        Value::Str(_) => "string",
        Value::Bin(_) => "binary",
        Value::List(_) => "list",
        Value::Struct(_) => "struct",
    }
}

const NAN: u64 = 0x7ff8000000000000;

fn canon(v: &Value, leaf: &Ty, out: &mut Vec<u8>) -> Result<(), String> {
    let f = |x: f64| if x.is_nan() { NAN } else { x.to_bits() };
    match (leaf, v) {
        (Ty::Null, _) => return Err("a non-null value in a null column".into()),
        (Ty::Bool, Value::Bool(b)) => out.push(*b as u8),
        (Ty::Int(_), Value::I64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Ty::UInt(_), Value::U64(x)) => out.extend_from_slice(&x.to_le_bytes()),
        (Ty::F32 | Ty::F64, Value::F32(x)) => out.extend_from_slice(&f(*x as f64).to_le_bytes()),
        (Ty::F32 | Ty::F64, Value::F64(x)) => out.extend_from_slice(&f(*x).to_le_bytes()),
        (Ty::Str | Ty::Bin | Ty::Decimal(_, _), Value::Str(s)) => {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        (Ty::Str | Ty::Bin, Value::Bin(b)) => {
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
        (t, v) => return Err(format!("a {} value in a {t:?} column", kind(v))),
    }
    Ok(())
}
