package dynamic

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// sink is the low-level encoder of one row format. The walker calls it per
// value; sinks append to a byte slice.
type sink interface {
	null(nullable bool)
	present(nullable bool)
	boolean(v bool)
	i64(v int64)
	// u64 writes a uint64; narrower unsigned types go through i64.
	u64(v uint64) error
	f32(v float32) error
	f64(v float64) error
	str(v string) error
	bin(v []byte)
	date(days int32) error
	timestamp(v int64, unit arrow.TimeUnit) error
	// fixed writes a fixed-size binary value.
	fixed(v []byte)
	// dec writes a decimal128 of the given scale.
	dec(v decimal128.Num, scale int32) error
	beginRecord(n int)
	key(i int, name string)
	endRecord()
	beginList(n int)
	endList(n int)
}

// wfunc writes row i of a bound array.
type wfunc func(s sink, i int) error

// colError names the column path of a value error.
type colError struct {
	path string
	err  error
}

func (e *colError) Error() string {
	return fmt.Sprintf("column %s: %v", elide(e.path, maxShown), e.err)
}
func (e *colError) Unwrap() error { return e.err }

func wrapPath(path string, err error) error {
	var ce *colError
	if errors.As(err, &ce) {
		return err
	}
	return &colError{path: path, err: err}
}

// bindWriter returns a writer of arr's values; arr's type passed checkType.
func bindWriter(arr arrow.Array, nullable bool, path string) wfunc {
	if arr.DataType().ID() == arrow.NULL {
		// Every value is null; the type itself says so (Avro: type
		// "null", no union), so the field is written as not nullable.
		return func(s sink, _ int) error { s.null(false); return nil }
	}
	value := bindValue(arr, path)
	if arr.NullN() == 0 {
		return func(s sink, i int) error {
			s.present(nullable)
			return value(s, i)
		}
	}
	return func(s sink, i int) error {
		if arr.IsNull(i) {
			s.null(nullable)
			return nil
		}
		s.present(nullable)
		return value(s, i)
	}
}

func bindValue(arr arrow.Array, path string) wfunc {
	switch a := arr.(type) {
	case *array.Boolean:
		return func(s sink, i int) error { s.boolean(a.Value(i)); return nil }
	case *array.Int8:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Int16:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Int32:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Int64:
		return func(s sink, i int) error { s.i64(a.Value(i)); return nil }
	case *array.Uint8:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Uint16:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Uint32:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Uint64:
		return func(s sink, i int) error { return s.u64(a.Value(i)) }
	case *array.Float32:
		return func(s sink, i int) error { return s.f32(a.Value(i)) }
	case *array.Float64:
		return func(s sink, i int) error { return s.f64(a.Value(i)) }
	case *array.String:
		return func(s sink, i int) error { return s.str(a.Value(i)) }
	case *array.LargeString:
		return func(s sink, i int) error { return s.str(a.Value(i)) }
	case *array.Binary:
		return func(s sink, i int) error { s.bin(a.Value(i)); return nil }
	case *array.LargeBinary:
		return func(s sink, i int) error { s.bin(a.Value(i)); return nil }
	case *array.Date32:
		return func(s sink, i int) error { return s.date(int32(a.Value(i))) }
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(s sink, i int) error { return s.timestamp(int64(a.Value(i)), unit) }
	case *array.Time32:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.Time64:
		return func(s sink, i int) error { s.i64(int64(a.Value(i))); return nil }
	case *array.FixedSizeBinary:
		return func(s sink, i int) error { s.fixed(a.Value(i)); return nil }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(s sink, i int) error { return s.dec(a.Value(i), scale) }
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		fields := make([]wfunc, st.NumFields())
		names := make([]string, st.NumFields())
		for k, f := range st.Fields() {
			fields[k] = bindWriter(a.Field(k), f.Nullable, path+"."+f.Name)
			names[k] = f.Name
		}
		return func(s sink, i int) error {
			s.beginRecord(len(fields))
			for k, w := range fields {
				s.key(k, names[k])
				if err := w(s, i); err != nil {
					return wrapPath(path+"."+names[k], err)
				}
			}
			s.endRecord()
			return nil
		}
	case array.ListLike:
		ef := a.DataType().(arrow.ListLikeType).ElemField()
		elem := bindWriter(a.ListValues(), ef.Nullable, path+"[]")
		return func(s sink, i int) error {
			start, end := a.ValueOffsets(i)
			n := int(end - start)
			s.beginList(n)
			for j := start; j < end; j++ {
				if err := elem(s, int(j)); err != nil {
					return wrapPath(path+"[]", err)
				}
			}
			s.endList(n)
			return nil
		}
	}
	return func(sink, int) error { return fmt.Errorf("unsupported Arrow type %s", arr.DataType()) }
}

// writeRows calls row for every row of rec after writing its fields to s;
// errors name the column and the row (counted from first).
func writeRows(rec arrow.RecordBatch, s sink, first int64, row func(i int) error) error {
	sch := rec.Schema()
	cols := make([]wfunc, rec.NumCols())
	names := make([]string, rec.NumCols())
	for k := range cols {
		f := sch.Field(k)
		cols[k] = bindWriter(rec.Column(k), f.Nullable, f.Name)
		names[k] = f.Name
	}
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		s.beginRecord(len(cols))
		for k, w := range cols {
			s.key(k, names[k])
			if err := w(s, i); err != nil {
				return fmt.Errorf("row %d: %w", first+int64(i), wrapPath(names[k], err))
			}
		}
		s.endRecord()
		if err := row(i); err != nil {
			return fmt.Errorf("row %d: %w", first+int64(i), err)
		}
	}
	return nil
}

// checkFloat rejects NaN and infinities for formats without them.
func checkFloat(v float64, what string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return cannotHold("%v cannot be held by %s", v, what)
	}
	return nil
}

// source is the low-level decoder of one row format.
type source interface {
	// isNull reports, and consumes, a null where the field is nullable.
	isNull(nullable bool) (bool, error)
	boolean() (bool, error)
	i64() (int64, error)
	u64() (uint64, error)
	f32() (float32, error)
	f64() (float64, error)
	// str returns a string's bytes, valid until the next call.
	str() ([]byte, error)
	bin() ([]byte, error)
	date() (int32, error)
	timestamp(unit arrow.TimeUnit) (int64, error)
	fixed(n int) ([]byte, error)
	dec(prec, scale int32) (decimal128.Num, error)
	// beginRecord starts a record of n fields.
	beginRecord(n int) error
	// nextKey returns the index among names of the next field, or -1 at
	// the record's end.
	nextKey(names []string) (int, error)
	beginList() error
	// more reports whether the current list has another element.
	more() (bool, error)
}

// rfunc reads one value into its builder.
type rfunc func(src source) error

// bindReader compiles a reader of type dt appending to b.
func bindReader(b array.Builder, dt arrow.DataType, nullable bool, path string) rfunc {
	if dt.ID() == arrow.NULL {
		nullable = false // see bindWriter
	}
	value := readValue(b, dt, path)
	return func(src source) error {
		null, err := src.isNull(nullable)
		if err != nil {
			return wrapPath(path, err)
		}
		if null {
			b.AppendNull()
			return nil
		}
		if err := value(src); err != nil {
			return wrapPath(path, err)
		}
		return nil
	}
}

func intRange(v int64, bits int) error {
	if v < -1<<(bits-1) || v > 1<<(bits-1)-1 {
		return fmt.Errorf("%d out of the range of int%d", v, bits)
	}
	return nil
}

func uintRange(v int64, bits int) error {
	if v < 0 || v > 1<<bits-1 {
		return fmt.Errorf("%d out of the range of uint%d", v, bits)
	}
	return nil
}

func readValue(b array.Builder, dt arrow.DataType, path string) rfunc {
	switch bb := b.(type) {
	case *array.NullBuilder:
		// Reached where the format marks no null (Avro's "null" type):
		// nothing to read.
		return func(src source) error {
			bb.AppendNull()
			return nil
		}
	case *array.BooleanBuilder:
		return func(src source) error {
			v, err := src.boolean()
			bb.Append(v)
			return err
		}
	case *array.Int8Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = intRange(v, 8)
			}
			bb.Append(int8(v))
			return err
		}
	case *array.Int16Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = intRange(v, 16)
			}
			bb.Append(int16(v))
			return err
		}
	case *array.Int32Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = intRange(v, 32)
			}
			bb.Append(int32(v))
			return err
		}
	case *array.Int64Builder:
		return func(src source) error {
			v, err := src.i64()
			bb.Append(v)
			return err
		}
	case *array.Uint8Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = uintRange(v, 8)
			}
			bb.Append(uint8(v))
			return err
		}
	case *array.Uint16Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = uintRange(v, 16)
			}
			bb.Append(uint16(v))
			return err
		}
	case *array.Uint32Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = uintRange(v, 32)
			}
			bb.Append(uint32(v))
			return err
		}
	case *array.Uint64Builder:
		return func(src source) error {
			v, err := src.u64()
			bb.Append(v)
			return err
		}
	case *array.Float32Builder:
		return func(src source) error {
			v, err := src.f32()
			bb.Append(v)
			return err
		}
	case *array.Float64Builder:
		return func(src source) error {
			v, err := src.f64()
			bb.Append(v)
			return err
		}
	case *array.StringBuilder:
		return func(src source) error {
			v, err := src.str()
			bb.BinaryBuilder.Append(v)
			return err
		}
	case *array.LargeStringBuilder:
		return func(src source) error {
			v, err := src.str()
			bb.BinaryBuilder.Append(v)
			return err
		}
	case *array.BinaryBuilder:
		return func(src source) error {
			v, err := src.bin()
			bb.Append(v)
			return err
		}
	case *array.Date32Builder:
		return func(src source) error {
			v, err := src.date()
			bb.Append(arrow.Date32(v))
			return err
		}
	case *array.TimestampBuilder:
		unit := dt.(*arrow.TimestampType).Unit
		return func(src source) error {
			v, err := src.timestamp(unit)
			bb.Append(arrow.Timestamp(v))
			return err
		}
	case *array.Time32Builder:
		return func(src source) error {
			v, err := src.i64()
			if err == nil {
				err = intRange(v, 32)
			}
			bb.Append(arrow.Time32(v))
			return err
		}
	case *array.Time64Builder:
		return func(src source) error {
			v, err := src.i64()
			bb.Append(arrow.Time64(v))
			return err
		}
	case *array.FixedSizeBinaryBuilder:
		width := dt.(*arrow.FixedSizeBinaryType).ByteWidth
		return func(src source) error {
			v, err := src.fixed(width)
			if err == nil && len(v) != width {
				err = fmt.Errorf("%d bytes for %s", len(v), dt)
			}
			if err != nil {
				bb.AppendNull()
				return err
			}
			bb.Append(v)
			return nil
		}
	case *array.Decimal128Builder:
		t := dt.(*arrow.Decimal128Type)
		return func(src source) error {
			v, err := src.dec(t.Precision, t.Scale)
			bb.Append(v)
			return err
		}
	case *array.StructBuilder:
		st := dt.(*arrow.StructType)
		n := st.NumFields()
		fields := make([]rfunc, n)
		names := make([]string, n)
		for k, f := range st.Fields() {
			fields[k] = bindReader(bb.FieldBuilder(k), f.Type, f.Nullable, path+"."+f.Name)
			names[k] = f.Name
		}
		seen := make([]bool, n)
		return func(src source) error {
			bb.Append(true)
			return readRecord(src, fields, names, seen, func(k int) { bb.FieldBuilder(k).AppendNull() })
		}
	case *array.ListBuilder:
		ef := dt.(arrow.ListLikeType).ElemField()
		elem := bindReader(bb.ValueBuilder(), ef.Type, ef.Nullable, path+"[]")
		return func(src source) error {
			bb.Append(true)
			return readList(src, elem)
		}
	case *array.LargeListBuilder:
		ef := dt.(arrow.ListLikeType).ElemField()
		elem := bindReader(bb.ValueBuilder(), ef.Type, ef.Nullable, path+"[]")
		return func(src source) error {
			bb.Append(true)
			return readList(src, elem)
		}
	}
	return func(source) error { return fmt.Errorf("unsupported Arrow type %s", dt) }
}

// readRecord reads a record's fields in any order; absent fields are null
// (appended through missing).
func readRecord(src source, fields []rfunc, names []string, seen []bool, missing func(k int)) error {
	if err := src.beginRecord(len(fields)); err != nil {
		return err
	}
	clear(seen)
	for {
		k, err := src.nextKey(names)
		if err != nil {
			return err
		}
		if k < 0 {
			break
		}
		if seen[k] {
			return fmt.Errorf("field %s twice in one record", names[k])
		}
		seen[k] = true
		if err := fields[k](src); err != nil {
			return err
		}
	}
	for k, ok := range seen {
		if !ok {
			missing(k)
		}
	}
	return nil
}

func readList(src source, elem rfunc) error {
	if err := src.beginList(); err != nil {
		return err
	}
	for {
		more, err := src.more()
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if err := elem(src); err != nil {
			return err
		}
	}
}

// rowReader reads whole rows of a schema from a source into a record
// builder.
type rowReader struct {
	fields []rfunc
	names  []string
	seen   []bool
	b      *array.RecordBuilder
}

func newRowReader(s *arrow.Schema, b *array.RecordBuilder) *rowReader {
	r := &rowReader{b: b, seen: make([]bool, s.NumFields())}
	for k, f := range s.Fields() {
		r.fields = append(r.fields, bindReader(b.Field(k), f.Type, f.Nullable, f.Name))
		r.names = append(r.names, f.Name)
	}
	return r
}

// read reads one row. On error the builders may hold a partial row; the
// decoder stops.
func (r *rowReader) read(src source) error {
	return readRecord(src, r.fields, r.names, r.seen, func(k int) { r.b.Field(k).AppendNull() })
}
