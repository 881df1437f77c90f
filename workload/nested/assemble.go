package nested

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The assembler turns Arrow record batches — as arrow-go's pqarrow reads
// them from Parquet, with only the queried leaves present — into the
// dataset's Go structs. It is generic (driven by reflection on T, planned
// once per batch schema) and works a column at a time: each leaf column is
// copied into its field of every record of the batch in one loop, through
// the field's offset, so the per-value cost is a typed store and not a
// reflect call. A list column allocates one backing array per batch for all
// its elements and hands every record a capacity-limited subslice of it, so
// nested lists stay contiguous and fill column-wise too. Strings are copied
// out of Arrow's buffers (the records outlive them); a dictionary-encoded
// column copies each distinct string once and shares it, which is what a
// columnar format's dictionary buys a reader.
//
// Fields absent from the batch are left untouched (zero in a cleared
// destination): that is the projection.

// filler fills n destination values, the j-th at base + j*stride, from
// elements from … from+n-1 of arr.
type filler func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error

// sliceHeader is the layout of a Go slice, for setting a slice field of
// any element type.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// fieldName is the name a dataset gives struct field f (its json tag).
func fieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch n {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return n, true
}

// dictCache holds the Go strings of the dictionaries a read has met, so a
// dictionary shared by several batches is copied once.
type dictCache map[arrow.ArrayData][]string

// planner plans fillers for one read.
type planner struct {
	dicts dictCache
	// leaves are the queried leaf paths (nil: all). pqarrow reports the
	// unpruned struct types for a sub-schema read (arrow-go v18.8.0), so
	// the children of a struct column are named from the Go type and the
	// query, and typed from the arrays themselves.
	leaves map[string]bool
	// byName finds a struct's queried children by field name among all
	// its children (a full Arrow IPC batch), instead of positionally
	// among only the queried ones (pqarrow's projected batch).
	byName bool
}

// wants reports whether the query reads a leaf at or under path.
func (p *planner) wants(path string) bool {
	if p.leaves == nil || p.leaves[path] {
		return true
	}
	for l := range p.leaves {
		if strings.HasPrefix(l, path+".") {
			return true
		}
	}
	return false
}

// plan returns the filler of Go type t (at leaf path path) from arr.
func (p *planner) plan(t reflect.Type, path string, arr arrow.Array) (filler, error) {
	dt := arr.DataType()
	switch t.Kind() {
	case reflect.String:
		return p.stringFiller(dt)
	case reflect.Int32:
		if dt.ID() != arrow.INT32 {
			return nil, fmt.Errorf("column is %s, want int32", dt)
		}
		return primitive(func(a *array.Int32) []int32 { return a.Int32Values() }), nil
	case reflect.Int64:
		if dt.ID() != arrow.INT64 {
			return nil, fmt.Errorf("column is %s, want int64", dt)
		}
		return primitive(func(a *array.Int64) []int64 { return a.Int64Values() }), nil
	case reflect.Float64:
		if dt.ID() != arrow.FLOAT64 {
			return nil, fmt.Errorf("column is %s, want float64", dt)
		}
		return primitive(func(a *array.Float64) []float64 { return a.Float64Values() }), nil
	case reflect.Bool:
		if dt.ID() != arrow.BOOL {
			return nil, fmt.Errorf("column is %s, want bool", dt)
		}
		return boolFiller, nil
	case reflect.Pointer:
		return p.pointerFiller(t, path, arr)
	case reflect.Slice:
		return p.listFiller(t, path, arr)
	case reflect.Struct:
		s, ok := arr.(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("column is %s, want a struct", dt)
		}
		children := make([]arrow.Array, s.NumField())
		var names []string
		st, _ := dt.(*arrow.StructType)
		for k := range children {
			children[k] = s.Field(k)
			if p.byName && st != nil && k < st.NumFields() {
				names = append(names, st.Field(k).Name)
			}
		}
		return p.structFiller(t, path, children, names, func(arr arrow.Array, k int) (arrow.Array, error) {
			s, ok := arr.(*array.Struct)
			if !ok || k >= s.NumField() {
				return nil, fmt.Errorf("array is %s, want a struct of more than %d fields", arr.DataType(), k)
			}
			return s.Field(k), nil
		})
	}
	return nil, fmt.Errorf("unsupported Go type %s", t)
}

// checkRange guards every filler: Arrow arrays from a corrupt file must
// not make it index out of bounds.
func checkRange(arr arrow.Array, from, n int, required bool) error {
	if from < 0 || n < 0 || from+n > arr.Len() {
		return fmt.Errorf("array of %d values, need %d from %d", arr.Len(), n, from)
	}
	if required && arr.NullN() > 0 {
		for j := range n {
			if arr.IsNull(from + j) {
				return fmt.Errorf("null at %d in a required column", from+j)
			}
		}
	}
	return nil
}

// primitive fills a fixed-width leaf from its value slice.
func primitive[E any, A arrow.Array](values func(A) []E) filler {
	return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
		a, ok := arr.(A)
		if !ok {
			return fmt.Errorf("array is %T", arr)
		}
		if err := checkRange(arr, from, n, true); err != nil {
			return err
		}
		vs := values(a)[from : from+n]
		for j, v := range vs {
			*(*E)(unsafe.Add(base, uintptr(j)*stride)) = v
		}
		return nil
	}
}

func boolFiller(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
	a, ok := arr.(*array.Boolean)
	if !ok {
		return fmt.Errorf("array is %T, want booleans", arr)
	}
	if err := checkRange(arr, from, n, true); err != nil {
		return err
	}
	for j := range n {
		*(*bool)(unsafe.Add(base, uintptr(j)*stride)) = a.Value(from + j)
	}
	return nil
}

// stringFiller fills a string leaf from a String, Binary or dictionary
// column, copying every string out of Arrow's buffers.
func (p *planner) stringFiller(dt arrow.DataType) (filler, error) {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
			if err := checkRange(arr, from, n, true); err != nil {
				return err
			}
			switch a := arr.(type) {
			case *array.String:
				// One copy of the batch's bytes (an arena per batch),
				// sliced into the strings through the offsets.
				if n == 0 {
					return nil
				}
				offs := a.ValueOffsets()
				if len(offs) < from+n+1 {
					return fmt.Errorf("%d string offsets, need %d", len(offs), from+n+1)
				}
				offs = offs[from : from+n+1]
				// The offsets index the whole data buffer (ValueBytes
				// starts at the array's first offset).
				var data []byte
				if bufs := a.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
					data = bufs[2].Bytes()
				}
				lo, hi := offs[0], offs[n]
				if lo < 0 || hi < lo || int(hi) > len(data) {
					return fmt.Errorf("string offsets %d..%d out of range", lo, hi)
				}
				all := string(data[lo:hi])
				prev := lo
				for j, e := range offs[1:] {
					if e < prev || e > hi {
						return fmt.Errorf("string %d: offsets out of range", from+j)
					}
					*(*string)(unsafe.Add(base, uintptr(j)*stride)) = all[prev-lo : e-lo]
					prev = e
				}
			case *array.LargeString:
				for j := range n {
					*(*string)(unsafe.Add(base, uintptr(j)*stride)) = strings.Clone(a.Value(from + j))
				}
			case *array.Binary:
				for j := range n {
					*(*string)(unsafe.Add(base, uintptr(j)*stride)) = string(a.Value(from + j))
				}
			default:
				return fmt.Errorf("array is %T, want strings", arr)
			}
			return nil
		}, nil
	case arrow.DICTIONARY:
		return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
			a, ok := arr.(*array.Dictionary)
			if !ok {
				return fmt.Errorf("array is %T, want a dictionary", arr)
			}
			if err := checkRange(arr, from, n, true); err != nil {
				return err
			}
			words, err := p.dictionary(a.Dictionary())
			if err != nil {
				return err
			}
			// The indices are int32 as pqarrow reads them; any other
			// width goes through the generic accessor.
			if idx, ok := a.Indices().(*array.Int32); ok {
				for j, k := range idx.Int32Values()[from : from+n] {
					if k < 0 || int(k) >= len(words) {
						return fmt.Errorf("dictionary index %d of %d", k, len(words))
					}
					*(*string)(unsafe.Add(base, uintptr(j)*stride)) = words[k]
				}
				return nil
			}
			for j := range n {
				k := a.GetValueIndex(from + j)
				if k < 0 || k >= len(words) {
					return fmt.Errorf("dictionary index %d of %d", k, len(words))
				}
				*(*string)(unsafe.Add(base, uintptr(j)*stride)) = words[k]
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("column is %s, want strings", dt)
}

// dictionary returns the Go strings of dictionary d, copied once per read.
func (p *planner) dictionary(d arrow.Array) ([]string, error) {
	if words, ok := p.dicts[d.Data()]; ok {
		return words, nil
	}
	words := make([]string, d.Len())
	switch sv := d.(type) {
	case *array.String:
		for i := range words {
			words[i] = strings.Clone(sv.Value(i))
		}
	case *array.LargeString:
		for i := range words {
			words[i] = strings.Clone(sv.Value(i))
		}
	case *array.Binary:
		for i := range words {
			words[i] = string(sv.Value(i))
		}
	default:
		return nil, fmt.Errorf("dictionary of %s, want strings", d.DataType())
	}
	p.dicts[d.Data()] = words
	return words, nil
}

// pointerFiller fills an optional leaf (*E): nil for a null, else a
// pointer into one backing array for the batch.
func (p *planner) pointerFiller(t reflect.Type, path string, arr arrow.Array) (filler, error) {
	elem := t.Elem()
	if elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Slice {
		return nil, fmt.Errorf("unsupported Go type %s", t)
	}
	inner, err := p.plan(elem, path, arr)
	if err != nil {
		return nil, err
	}
	sliceType := reflect.SliceOf(elem)
	esz := elem.Size()
	return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
		if err := checkRange(arr, from, n, false); err != nil {
			return err
		}
		if arr.NullN() == arr.Len() {
			return nil
		}
		// Fill values for the whole range, nulls included (fixed-width
		// arrays hold some value there), then point at the non-null ones.
		backing := reflect.MakeSlice(sliceType, n, n)
		bp := backing.UnsafePointer()
		if arr.NullN() == 0 {
			if err := inner(arr, from, n, bp, esz); err != nil {
				return err
			}
			for j := range n {
				*(*unsafe.Pointer)(unsafe.Add(base, uintptr(j)*stride)) = unsafe.Add(bp, uintptr(j)*esz)
			}
			return nil
		}
		for j := range n {
			if arr.IsNull(from + j) {
				continue
			}
			if err := inner(arr, from+j, 1, unsafe.Add(bp, uintptr(j)*esz), esz); err != nil {
				return err
			}
			*(*unsafe.Pointer)(unsafe.Add(base, uintptr(j)*stride)) = unsafe.Add(bp, uintptr(j)*esz)
		}
		return nil
	}, nil
}

// listFiller fills a repeated field ([]E) from a list column: one backing
// array of every element in the range, each record a subslice of it; an
// empty list stays nil.
func (p *planner) listFiller(t reflect.Type, path string, arr arrow.Array) (filler, error) {
	la, ok := arr.(array.ListLike)
	if !ok {
		return nil, fmt.Errorf("column is %s, want a list", arr.DataType())
	}
	elem := t.Elem()
	inner, err := p.plan(elem, path, la.ListValues())
	if err != nil {
		return nil, fmt.Errorf("list element: %w", err)
	}
	esz := elem.Size()
	return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
		a, ok := arr.(array.ListLike)
		if !ok {
			return fmt.Errorf("array is %T, want a list", arr)
		}
		if err := checkRange(arr, from, n, true); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		lo, _ := a.ValueOffsets(from)
		_, hi := a.ValueOffsets(from + n - 1)
		total := int(hi - lo)
		if total < 0 || int(hi) > a.ListValues().Len() {
			return fmt.Errorf("list offsets %d..%d out of range", lo, hi)
		}
		if total == 0 {
			return nil
		}
		backing := reflect.MakeSlice(t, total, total)
		bp := backing.UnsafePointer()
		if err := inner(a.ListValues(), int(lo), total, bp, esz); err != nil {
			return err
		}
		for j := range n {
			s, e := a.ValueOffsets(from + j)
			if s < lo || e < s || e > hi {
				return fmt.Errorf("list %d: offsets %d..%d out of range", from+j, s, e)
			}
			if s == e {
				continue
			}
			*(*sliceHeader)(unsafe.Add(base, uintptr(j)*stride)) = sliceHeader{
				data: unsafe.Add(bp, uintptr(s-lo)*esz), len: int(e - s), cap: int(e - s)}
		}
		return nil
	}, nil
}

// structFiller fills the fields of struct type t (at path) that the query
// reads, in schema order the children of the column (children, and child(arr,
// k) at fill time); Go fields without a column are left alone. In byName
// mode names are the children's field names and the queried fields are
// looked up among them.
func (p *planner) structFiller(t reflect.Type, path string, children []arrow.Array, names []string, child func(arrow.Array, int) (arrow.Array, error)) (filler, error) {
	type part struct {
		k      int
		name   string
		offset uintptr
		fill   filler
	}
	var parts []part
	for i := range t.NumField() {
		n, ok := fieldName(t.Field(i))
		if !ok {
			continue
		}
		fp := n
		if path != "" {
			fp = path + "." + n
		}
		if !p.wants(fp) {
			continue
		}
		k := len(parts)
		if p.byName {
			if k = slices.Index(names, n); k < 0 || k >= len(children) {
				return nil, fmt.Errorf("%s: no column %q", t, n)
			}
		} else if k >= len(children) {
			return nil, fmt.Errorf("%s: %d columns, the query reads more fields", t, len(children))
		}
		fill, err := p.plan(t.Field(i).Type, fp, children[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		parts = append(parts, part{k, n, t.Field(i).Offset, fill})
	}
	if !p.byName && len(parts) != len(children) {
		return nil, fmt.Errorf("%s: %d columns for %d queried fields", t, len(children), len(parts))
	}
	return func(arr arrow.Array, from, n int, base unsafe.Pointer, stride uintptr) error {
		for _, pt := range parts {
			c, err := child(arr, pt.k)
			if err != nil {
				return err
			}
			if err := pt.fill(c, from, n, unsafe.Add(base, pt.offset), stride); err != nil {
				return fmt.Errorf("%s: %w", pt.name, err)
			}
		}
		return nil
	}, nil
}

// recordAssembler fills []T from record batches, re-planning when the
// batch schema changes.
type recordAssembler[T any] struct {
	p planner
}

// newRecordAssembler returns an assembler of the leaves (nil: all).
func newRecordAssembler[T any](leaves []string) *recordAssembler[T] {
	a := &recordAssembler[T]{p: planner{dicts: dictCache{}}}
	if leaves != nil {
		a.p.leaves = map[string]bool{}
		for _, l := range leaves {
			a.p.leaves[l] = true
		}
	}
	return a
}

// assemble fills out[0:rec.NumRows()] from rec. out must be zeroed where
// the batch's columns do not reach.
func (a *recordAssembler[T]) assemble(rec arrow.RecordBatch, out []T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("assemble: corrupt batch: %v", r)
		}
	}()
	n := int(rec.NumRows())
	if n > len(out) {
		return fmt.Errorf("batch of %d rows, %d records left", n, len(out))
	}
	if n == 0 {
		return nil
	}
	// Planned per batch (a few reflect calls per column): the arrays'
	// types decide string vs dictionary, and may change between batches.
	var names []string
	if a.p.byName {
		for _, f := range rec.Schema().Fields() {
			names = append(names, f.Name)
		}
	}
	fill, err := a.p.structFiller(reflect.TypeFor[T](), "", rec.Columns(), names, func(_ arrow.Array, k int) (arrow.Array, error) {
		return rec.Column(k), nil
	})
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	var zero T
	if err := fill(nil, 0, n, unsafe.Pointer(&out[0]), unsafe.Sizeof(zero)); err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	return nil
}
