package userdata

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A Parquet or Arrow input's map columns (at any depth) are read as lists
// of {key, value} entries, the type a JSON object inferred as a map gets
// (EntriesType): the row formats and the runners hold a list of structs,
// not a map, and the digest walks a map as exactly this list, so what is
// measured is the same data. The rewrite shares the map's buffers.

// entriesType is dt with every map type in it a list of {key, value}
// entries; changed reports whether there was one.
func entriesType(dt arrow.DataType) (nt arrow.DataType, changed bool) {
	switch t := dt.(type) {
	case *arrow.MapType:
		k, _ := entriesType(t.KeyType())
		v, _ := entriesType(t.ItemType())
		return arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.StructOf(
			arrow.Field{Name: "key", Type: k},
			arrow.Field{Name: "value", Type: v, Nullable: t.ItemField().Nullable},
		)}), true
	case *arrow.StructType:
		fs := t.Fields()
		for i, f := range fs {
			if ft, ok := entriesType(f.Type); ok {
				fs[i].Type, changed = ft, true
			}
		}
		if changed {
			return arrow.StructOf(fs...), true
		}
	case *arrow.ListType:
		if et, ok := entriesType(t.Elem()); ok {
			ef := t.ElemField()
			ef.Type = et
			return arrow.ListOfField(ef), true
		}
	case *arrow.LargeListType:
		if et, ok := entriesType(t.Elem()); ok {
			ef := t.ElemField()
			ef.Type = et
			return arrow.LargeListOfField(ef), true
		}
	case *arrow.FixedSizeListType:
		if et, ok := entriesType(t.Elem()); ok {
			ef := t.ElemField()
			ef.Type = et
			return arrow.FixedSizeListOfField(t.Len(), ef), true
		}
	}
	return dt, false
}

// entriesData is d (of a type entriesType changes) as data of type nt,
// its buffers shared; the caller releases it.
func entriesData(d arrow.ArrayData, nt arrow.DataType) arrow.ArrayData {
	var children []arrow.ArrayData
	switch t := d.DataType().(type) {
	case *arrow.MapType:
		st := nt.(*arrow.ListType).Elem().(*arrow.StructType)
		kv := d.Children()[0]
		kd, vd := kv.Children()[0], kv.Children()[1]
		k := childAs(kd, st.Field(0).Type)
		v := childAs(vd, st.Field(1).Type)
		entries := array.NewData(st, kv.Len(), kv.Buffers(), []arrow.ArrayData{k, v}, kv.NullN(), kv.Offset())
		k.Release()
		v.Release()
		children = []arrow.ArrayData{entries}
	case *arrow.StructType:
		nst := nt.(*arrow.StructType)
		for i, c := range d.Children() {
			children = append(children, childAs(c, nst.Field(i).Type))
		}
		_ = t
	case arrow.ListLikeType:
		children = []arrow.ArrayData{childAs(d.Children()[0], nt.(arrow.ListLikeType).Elem())}
	default:
		d.Retain()
		return d
	}
	out := array.NewData(nt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out
}

// childAs is c as type nt: rewritten when its type has a map in it, else c
// itself (retained); the caller releases it.
func childAs(c arrow.ArrayData, nt arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(c.DataType(), nt) {
		c.Retain()
		return c
	}
	return entriesData(c, nt)
}

// unmapColumns replaces rec's map-holding columns (r.unmap) by their
// entry lists and releases rec.
func (r *Reader) unmapColumns(rec arrow.RecordBatch) arrow.RecordBatch {
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	var made []arrow.Array
	for _, i := range r.unmap {
		d := entriesData(cols[i].Data(), r.sch.Field(i).Type)
		a := array.MakeFromData(d)
		d.Release()
		made = append(made, a)
		cols[i] = a
	}
	out := batchOf(r.sch, cols, rec.NumRows())
	for _, a := range made {
		a.Release()
	}
	return out
}
