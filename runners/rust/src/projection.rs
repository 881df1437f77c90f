//! A query's projection (§2 `query`): comma-separated column paths, each a
//! leaf path (§7.1) or the path of a struct or list whose leaves it
//! selects. Row formats decode, then build the projected rows from it.

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::{leaves, Step};
use crate::value::{Field, Ty, Value};

/// What is selected under a value: everything, or some struct fields.
#[derive(Clone, Debug, Default)]
pub struct Sel {
    pub all: bool,
    pub fields: BTreeMap<usize, Sel>,
}

/// A parsed query.
#[derive(Clone, Debug)]
pub struct Projection {
    /// The selected leaf paths.
    pub leaves: BTreeSet<String>,
    /// Their indexes among all the row type's leaves (schema order).
    pub leaf_indexes: Vec<usize>,
    /// The selection tree from the row.
    pub sel: Sel,
    /// The projected row type.
    pub ty: Ty,
}

/// Parses query against the row type.
pub fn parse(query: &str, row: &Ty) -> Result<Projection, String> {
    let all = leaves(row)?;
    let mut picked = BTreeSet::new();
    for raw in query.split(',') {
        let p = raw.trim();
        if p.is_empty() {
            continue;
        }
        let mut found = false;
        for (i, l) in all.iter().enumerate() {
            if l.path == p || l.path.starts_with(&format!("{p}.")) {
                picked.insert(i);
                found = true;
            }
        }
        if !found {
            return Err(format!("query: no column {p}"));
        }
    }
    if picked.is_empty() {
        return Err("query: empty projection".into());
    }
    let mut sel = Sel::default();
    for &i in &picked {
        let fields: Vec<usize> = all[i]
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Field(f) => Some(*f),
                Step::List => None,
            })
            .collect();
        let mut node = &mut sel;
        for (k, f) in fields.iter().enumerate() {
            if node.all {
                break;
            }
            node = node.fields.entry(*f).or_default();
            if k == fields.len() - 1 {
                node.all = true;
                node.fields.clear();
            }
        }
    }
    let ty = prune(row, &sel);
    Ok(Projection {
        leaves: picked.iter().map(|&i| all[i].path.clone()).collect(),
        leaf_indexes: picked.into_iter().collect(),
        sel,
        ty,
    })
}

/// The type with only the selection.
pub fn prune(t: &Ty, sel: &Sel) -> Ty {
    if sel.all {
        return t.clone();
    }
    match t {
        Ty::Struct(fs) => Ty::Struct(
            sel.fields
                .iter()
                .map(|(&i, s)| Field {
                    name: fs[i].name.clone(),
                    ty: prune(&fs[i].ty, s),
                    nullable: fs[i].nullable,
                })
                .collect(),
        ),
        Ty::List(e, n) => Ty::List(Box::new(prune(e, sel)), *n),
        other => other.clone(),
    }
}

/// The projected copy of a value (taking the selected parts out of it).
pub fn project(v: Value, sel: &Sel) -> Value {
    if sel.all {
        return v;
    }
    match v {
        Value::Struct(mut fs) => Value::Struct(
            sel.fields
                .iter()
                .map(|(&i, s)| project(std::mem::replace(&mut fs[i], Value::Null), s))
                .collect(),
        ),
        Value::List(es) => Value::List(es.into_iter().map(|e| project(e, sel)).collect()),
        other => other,
    }
}

/// Projects decoded rows.
pub fn project_rows(rows: Vec<Value>, p: &Projection) -> Vec<Value> {
    rows.into_iter().map(|r| project(r, &p.sel)).collect()
}
