package dynamic

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrMismatch is wrapped by every difference Compare and Verifier report.
var ErrMismatch = errors.New("data differs")

// Compare compares two sequences of batches value by value, regardless of
// how the rows are split into batches: schemas must be equal, nulls must
// match, nested values are compared element by element and floats bit for
// bit. It returns the first difference as an error naming the column path
// and the row (counted over all batches), or nil.
func Compare(want, got []arrow.RecordBatch) error {
	v := NewVerifier(want)
	for _, g := range got {
		if err := v.Check(g); err != nil {
			return err
		}
	}
	return v.Done()
}

// Verifier checks decoded batches against expected ones as they arrive, for
// filebench.Read's verify callback: Check each decoded batch, then Done.
type Verifier struct {
	want []arrow.RecordBatch
	bi   int   // current expected batch
	off  int64 // row offset within it
	row  int64 // rows checked
}

// NewVerifier returns a verifier of batches equal to want.
func NewVerifier(want []arrow.RecordBatch) *Verifier { return &Verifier{want: want} }

// Rows returns the number of rows checked so far.
func (v *Verifier) Rows() int64 { return v.row }

// Check compares got with the next rows expected.
func (v *Verifier) Check(got arrow.RecordBatch) error {
	n := got.NumRows()
	var g int64
	for g < n {
		for v.bi < len(v.want) && v.off >= v.want[v.bi].NumRows() {
			v.bi++
			v.off = 0
		}
		if v.bi >= len(v.want) {
			return fmt.Errorf("%w: row %d: %d more rows than expected", ErrMismatch, v.row, n-g)
		}
		w := v.want[v.bi]
		if !w.Schema().Equal(got.Schema()) {
			return fmt.Errorf("%w: schema %s, want %s", ErrMismatch, got.Schema(), w.Schema())
		}
		k := min(n-g, w.NumRows()-v.off)
		for c := 0; c < int(w.NumCols()); c++ {
			name := w.Schema().Field(c).Name
			if err := compareRange(w.Column(c), int(v.off), got.Column(c), int(g), int(k), name); err != nil {
				var re *rowError
				if errors.As(err, &re) {
					return fmt.Errorf("%w: row %d: column %s", ErrMismatch, v.row+int64(re.row), re.msg)
				}
				return err
			}
		}
		v.off += k
		g += k
		v.row += k
	}
	return nil
}

// Done reports whether every expected row was checked.
func (v *Verifier) Done() error {
	var total int64
	for _, w := range v.want {
		total += w.NumRows()
	}
	if v.row != total {
		return fmt.Errorf("%w: %d rows, want %d", ErrMismatch, v.row, total)
	}
	return nil
}

type rowError struct {
	row int // relative to the compared range
	msg string
}

func (e *rowError) Error() string { return fmt.Sprintf("row %d: %s", e.row, e.msg) }

// compareRange compares n values of a from ai with b from bi.
func compareRange(a arrow.Array, ai int, b arrow.Array, bi int, n int, path string) error {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return &rowError{0, fmt.Sprintf("%s: type %s, want %s", path, b.DataType(), a.DataType())}
	}
	if rangeEqual(a, ai, b, bi, n) {
		return nil
	}
	for r := 0; r < n; r++ {
		if msg := compareValue(a, ai+r, b, bi+r, path); msg != "" {
			return &rowError{r, msg}
		}
	}
	return nil
}

// compareValue returns "" if a[i] equals b[j], else "path: difference".
func compareValue(a arrow.Array, i int, b arrow.Array, j int, path string) string {
	if a.DataType().ID() == arrow.NULL {
		return "" // every value is null (and Null arrays report IsNull false)
	}
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		if an == bn {
			return ""
		}
		if an {
			return fmt.Sprintf("%s: got %s, want null", path, b.ValueStr(j))
		}
		return fmt.Sprintf("%s: got null, want %s", path, a.ValueStr(i))
	}
	diff := func() string {
		return fmt.Sprintf("%s: got %s, want %s", path, b.ValueStr(j), a.ValueStr(i))
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) != b.(*array.Boolean).Value(j) {
			return diff()
		}
	case *array.Int8:
		if x.Value(i) != b.(*array.Int8).Value(j) {
			return diff()
		}
	case *array.Int16:
		if x.Value(i) != b.(*array.Int16).Value(j) {
			return diff()
		}
	case *array.Int32:
		if x.Value(i) != b.(*array.Int32).Value(j) {
			return diff()
		}
	case *array.Int64:
		if x.Value(i) != b.(*array.Int64).Value(j) {
			return diff()
		}
	case *array.Uint8:
		if x.Value(i) != b.(*array.Uint8).Value(j) {
			return diff()
		}
	case *array.Uint16:
		if x.Value(i) != b.(*array.Uint16).Value(j) {
			return diff()
		}
	case *array.Uint32:
		if x.Value(i) != b.(*array.Uint32).Value(j) {
			return diff()
		}
	case *array.Uint64:
		if x.Value(i) != b.(*array.Uint64).Value(j) {
			return diff()
		}
	case *array.Float32:
		if math.Float32bits(x.Value(i)) != math.Float32bits(b.(*array.Float32).Value(j)) {
			return fmt.Sprintf("%s: got %v (bits %#x), want %v (bits %#x)", path, b.(*array.Float32).Value(j),
				math.Float32bits(b.(*array.Float32).Value(j)), x.Value(i), math.Float32bits(x.Value(i)))
		}
	case *array.Float64:
		if math.Float64bits(x.Value(i)) != math.Float64bits(b.(*array.Float64).Value(j)) {
			return fmt.Sprintf("%s: got %v (bits %#x), want %v (bits %#x)", path, b.(*array.Float64).Value(j),
				math.Float64bits(b.(*array.Float64).Value(j)), x.Value(i), math.Float64bits(x.Value(i)))
		}
	case *array.String:
		if x.Value(i) != b.(*array.String).Value(j) {
			return diff()
		}
	case *array.LargeString:
		if x.Value(i) != b.(*array.LargeString).Value(j) {
			return diff()
		}
	case *array.Binary:
		if !bytes.Equal(x.Value(i), b.(*array.Binary).Value(j)) {
			return diff()
		}
	case *array.LargeBinary:
		if !bytes.Equal(x.Value(i), b.(*array.LargeBinary).Value(j)) {
			return diff()
		}
	case *array.Date32:
		if x.Value(i) != b.(*array.Date32).Value(j) {
			return diff()
		}
	case *array.Timestamp:
		if x.Value(i) != b.(*array.Timestamp).Value(j) {
			return diff()
		}
	case *array.Struct:
		y := b.(*array.Struct)
		for k, f := range x.DataType().(*arrow.StructType).Fields() {
			if msg := compareValue(x.Field(k), i, y.Field(k), j, path+"."+f.Name); msg != "" {
				return msg
			}
		}
	case array.ListLike:
		y := b.(array.ListLike)
		as, ae := x.ValueOffsets(i)
		bs, be := y.ValueOffsets(j)
		if ae-as != be-bs {
			return fmt.Sprintf("%s: got %d elements, want %d", path, be-bs, ae-as)
		}
		for k := int64(0); k < ae-as; k++ {
			if msg := compareValue(x.ListValues(), int(as+k), y.ListValues(), int(bs+k), fmt.Sprintf("%s[%d]", path, k)); msg != "" {
				return msg
			}
		}
	default:
		if !array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1)) {
			return diff()
		}
	}
	return ""
}

// rangeEqual is compareRange's fast path: it reports true only when the n
// values of a from ai equal those of b from bi (same type), comparing
// whole typed ranges — fixed-width values as bytes (floats bit for bit),
// strings and lists by offsets and data, structs field by field — with no
// interface call per value. False means "not shown equal": the value by
// value comparison then finds the difference, or finds none (a value
// under a null that differs).
func rangeEqual(a arrow.Array, ai int, b arrow.Array, bi int, n int) bool {
	if n == 0 || a.DataType().ID() == arrow.NULL {
		return true
	}
	if !nullsEqual(a, ai, b, bi, n) {
		return false
	}
	noNulls := a.NullN() == 0 && b.NullN() == 0
	switch x := a.(type) {
	case *array.Boolean:
		y := b.(*array.Boolean)
		for r := 0; r < n; r++ {
			if x.Value(ai+r) != y.Value(bi+r) && x.IsValid(ai+r) {
				return false
			}
		}
		return true
	case *array.String:
		y := b.(*array.String)
		if noNulls {
			return offsetsEqual(x.ValueOffsets(), ai, y.ValueOffsets(), bi, n) &&
				bytes.Equal(stringBytes(x, ai, n), stringBytes(y, bi, n))
		}
		for r := 0; r < n; r++ {
			if x.Value(ai+r) != y.Value(bi+r) && (noNulls || x.IsValid(ai+r)) {
				return false
			}
		}
		return true
	case *array.LargeString:
		y := b.(*array.LargeString)
		for r := 0; r < n; r++ {
			if x.Value(ai+r) != y.Value(bi+r) && (noNulls || x.IsValid(ai+r)) {
				return false
			}
		}
		return true
	case *array.Binary:
		y := b.(*array.Binary)
		for r := 0; r < n; r++ {
			if !bytes.Equal(x.Value(ai+r), y.Value(bi+r)) && (noNulls || x.IsValid(ai+r)) {
				return false
			}
		}
		return true
	case *array.Struct:
		y := b.(*array.Struct)
		if !noNulls {
			return false // values under a null struct may differ: value by value
		}
		for k := 0; k < x.NumField(); k++ {
			if !rangeEqual(x.Field(k), ai, y.Field(k), bi, n) {
				return false
			}
		}
		return true
	case *array.List:
		y := b.(*array.List)
		if !noNulls {
			return false
		}
		// Offsets is the whole buffer: a slice's values start at its
		// data's offset; the offsets index the whole child array.
		xo, yo := x.Offsets()[x.Data().Offset():], y.Offsets()[y.Data().Offset():]
		xs, ys := xo[ai], yo[bi]
		for r := 0; r <= n; r++ {
			if xo[ai+r]-xs != yo[bi+r]-ys {
				return false
			}
		}
		return rangeEqual(x.ListValues(), int(xs), y.ListValues(), int(ys), int(xo[ai+n]-xs))
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 || len(a.Data().Buffers()) < 2 {
		return false
	}
	if _, ok := a.(*array.FixedSizeBinary); !ok {
		switch a.(type) {
		case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64,
			*array.Float32, *array.Float64, *array.Date32, *array.Date64, *array.Timestamp, *array.Time32, *array.Time64,
			*array.Decimal128:
		default:
			return false
		}
	}
	w := fw.BitWidth() / 8
	ab, bb := a.Data().Buffers()[1], b.Data().Buffers()[1]
	if ab == nil || bb == nil {
		return false
	}
	av := ab.Bytes()[(a.Data().Offset()+ai)*w : (a.Data().Offset()+ai+n)*w]
	bv := bb.Bytes()[(b.Data().Offset()+bi)*w : (b.Data().Offset()+bi+n)*w]
	if noNulls {
		return bytes.Equal(av, bv)
	}
	for r := 0; r < n; r++ {
		if a.IsValid(ai+r) && !bytes.Equal(av[r*w:(r+1)*w], bv[r*w:(r+1)*w]) {
			return false
		}
	}
	return true
}

// nullsEqual reports whether a and b have nulls at the same places of the
// ranges.
func nullsEqual(a arrow.Array, ai int, b arrow.Array, bi int, n int) bool {
	if a.NullN() == 0 && b.NullN() == 0 {
		return true
	}
	for r := 0; r < n; r++ {
		if a.IsNull(ai+r) != b.IsNull(bi+r) {
			return false
		}
	}
	return true
}

// stringBytes returns the bytes of the n values of x from i. (ValueOffset
// is an offset into the whole data buffer, ValueBytes starts at the
// slice's first value: they differ for a slice.)
func stringBytes(x *array.String, i, n int) []byte {
	buf := x.Data().Buffers()[2]
	if buf == nil {
		return nil
	}
	return buf.Bytes()[x.ValueOffset(i) : x.ValueOffset(i+n-1)+x.ValueLen(i+n-1)]
}

// offsetsEqual reports whether the n values from ai and bi have the same
// lengths (xo, yo: the arrays' value offsets, n+1 of them from the start).
func offsetsEqual(xo []int32, ai int, yo []int32, bi int, n int) bool {
	xs, ys := xo[ai], yo[bi]
	xr, yr := xo[ai+1:ai+n+1], yo[bi+1:bi+n+1]
	for r := range xr {
		if xr[r]-xs != yr[r]-ys {
			return false
		}
	}
	return true
}
