"""A query's projection (§2 ``query``): comma-separated column paths, each
a leaf path (§7.1) or the path of a struct or list whose leaves it selects."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from . import digest


@dataclass
class Projection:
    query: str
    leaves: set  # the selected leaf paths
    tree: dict  # top-level field -> sub-selection (dict of struct fields, or None: all)
    top: list  # the selected top-level fields, in schema order


def parse(query: str, schema: pa.Schema) -> Projection:
    all_leaves = digest.leaves(schema)
    sel: dict[str, digest.Leaf] = {}
    for raw in query.split(","):
        p = raw.strip()
        if not p:
            continue
        found = False
        for lf in all_leaves:
            if lf.path == p or lf.path.startswith(p + "."):
                sel[lf.path] = lf
                found = True
        if not found:
            raise ValueError(f"query: no column {p}")
    if not sel:
        raise ValueError("query: empty projection")
    tree: dict = {}
    for lf in sel.values():
        names = [st[1] for st in lf.steps if st[0] == digest.FIELD]
        node = tree
        for i, n in enumerate(names):
            last = i == len(names) - 1
            if n in node and node[n] is None:
                break  # already selected whole
            if last:
                node[n] = None
            else:
                node = node.setdefault(n, {})
    top = [f.name for f in schema if f.name in tree]
    return Projection(query, set(sel), tree, top)


def _value_projector(t: pa.DataType, sub):
    """A function copying the selected part of a non-null value, or None: keep it whole."""
    if sub is None:
        return None
    if pa.types.is_dictionary(t):
        return _value_projector(t.value_type, sub)
    if pa.types.is_struct(t):
        fs = []
        for i in range(t.num_fields):
            f = t.field(i)
            if f.name in sub:
                fs.append((f.name, _value_projector(f.type, sub[f.name])))

        def st(v):
            out = {}
            for n, p in fs:
                x = v[n]
                out[n] = x if p is None or x is None else p(x)
            return out

        return st
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        ep = _value_projector(t.value_type, sub)
        if ep is None:
            return None
        return lambda v: [None if e is None else ep(e) for e in v]
    return None  # maps and leaves: whole


def rows_projector(schema: pa.Schema, proj: Projection):
    """A function building the projected rows (new dicts) from full dict rows."""
    fs = [(f.name, _value_projector(f.type, proj.tree[f.name])) for f in schema if f.name in proj.tree]

    def project(rows):
        out = []
        app = out.append
        for r in rows:
            d = {}
            for n, p in fs:
                x = r[n]
                d[n] = x if p is None or x is None else p(x)
            app(d)
        return out

    return project
