// Package digest computes the language-neutral digest of decoded data that serbench and its
// runners in other languages compare after a round trip (docs/runner-protocol.md, "Digest").
//
// A digest is computed per leaf column: the column's path (field names joined with '.', list
// elements written as "[]") and a 128-bit hash, SHA-256 truncated to its first 16 bytes, over
// a canonical byte encoding of the column's values in row order. Every value on the way from
// the top-level field down to the leaf contributes a tag byte (0 null, 1 present), every list
// its length, every present leaf its value in a canonical form that does not depend on the
// Arrow type's width or unit: integers as int64/uint64, floats as float64 bit patterns with NaN
// canonicalised, timestamps as int64 microseconds, strings and binaries as length-prefixed
// bytes. The table digest hashes the sorted (path, column digest) pairs.
//
// The digest of one batch of N rows equals the digest of N batches of one row: a [Digester]
// streams.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Version is the version of the digest definition this package implements. A change to the
// canonical encoding, the hash or the path syntax is a new version.
const Version = 1

// Size is the length in bytes of a column or table digest (hex-encoded, twice as many
// characters).
const Size = 16

// Tag bytes written before every value on a column's path.
const (
	tagNull    = 0x00
	tagPresent = 0x01
)

// canonicalNaN is the float64 bit pattern every NaN is written as.
const canonicalNaN = 0x7ff8000000000000

// flushAt is the size of a column's pending bytes that triggers a hash write.
const flushAt = 32 << 10

// ColumnDigest is the digest of one leaf column.
type ColumnDigest struct {
	// Path names the leaf: field names joined with '.', a list's elements as "[]"
	// (e.g. "items.[].price", "tags.[]").
	Path string `json:"path"`
	// Digest is the column's digest as 32 lowercase hexadecimal digits.
	Digest string `json:"digest"`
}

// Result is the digest of a table: its leaf columns, sorted by path, and the table digest
// over them.
type Result struct {
	// Columns holds one digest per leaf column, sorted by Path (byte order).
	Columns []ColumnDigest `json:"columns"`
	// Table is the table digest over Columns (see [TableDigest]), 32 lowercase hex digits.
	Table string `json:"table"`
	// Rows is the number of rows digested.
	Rows int64 `json:"rows"`
}

// stepKind says how a leaf's path descends from one level to the next.
type stepKind uint8

const (
	stepStruct stepKind = iota // into a struct's field
	stepList                   // into a list's elements
)

// step is one level of a leaf's path below its top-level column.
type step struct {
	kind  stepKind
	field int // the struct field's index, for stepStruct
}

// leaf is the running state of one leaf column.
type leaf struct {
	path  string
	col   int
	steps []step
	h     hash.Hash
	buf   []byte
}

// Digester computes the digests of a stream of record batches sharing one schema. The zero
// value is not usable; call [New].
type Digester struct {
	schema *arrow.Schema
	leaves []*leaf
	rows   int64
	err    error
}

// New returns a Digester for record batches of schema. It returns an error naming the column
// and the type when the schema holds a type the digest does not define (unions, intervals,
// run-end encoded arrays, decimals other than 128 and 256 bits) or two leaves share a path.
func New(schema *arrow.Schema) (*Digester, error) {
	if schema == nil {
		return nil, errors.New("digest: nil schema")
	}
	d := &Digester{schema: schema}
	for i, f := range schema.Fields() {
		if err := d.compile(i, f.Name, f.Type, nil); err != nil {
			return nil, err
		}
	}
	seen := make(map[string]bool, len(d.leaves))
	for _, l := range d.leaves {
		if seen[l.path] {
			return nil, fmt.Errorf("digest: two leaf columns share the path %q", l.path)
		}
		seen[l.path] = true
	}
	return d, nil
}

// compile adds the leaves of the column col below path, of type dt, reached by steps.
func (d *Digester) compile(col int, path string, dt arrow.DataType, steps []step) error {
	dt, err := valueType(dt)
	if err != nil {
		return fmt.Errorf("digest: column %q: %w", path, err)
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		for k, f := range t.Fields() {
			s := append(slices.Clip(steps), step{kind: stepStruct, field: k})
			if err := d.compile(col, path+"."+f.Name, f.Type, s); err != nil {
				return err
			}
		}
		return nil
	case arrow.ListLikeType:
		return d.compile(col, path+".[]", t.Elem(), append(slices.Clip(steps), step{kind: stepList}))
	}
	if !leafType(dt) {
		return fmt.Errorf("digest: column %q: unsupported Arrow type %s", path, dt)
	}
	d.leaves = append(d.leaves, &leaf{path: path, col: col, steps: steps, h: sha256.New()})
	return nil
}

// valueType unwraps dictionary and extension types to the type of their values.
func valueType(dt arrow.DataType) (arrow.DataType, error) {
	for {
		switch t := dt.(type) {
		case *arrow.DictionaryType:
			dt = t.ValueType
		case arrow.ExtensionType:
			dt = t.StorageType()
		case nil:
			return nil, errors.New("nil type")
		default:
			return dt, nil
		}
	}
}

// leafType reports whether dt is a leaf type the digest defines.
func leafType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.NULL, arrow.BOOL,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW,
		arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY,
		arrow.TIMESTAMP, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.DURATION,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

// Schema returns the schema the Digester was made for.
func (d *Digester) Schema() *arrow.Schema { return d.schema }

// Paths returns the leaf column paths in schema order.
func (d *Digester) Paths() []string {
	out := make([]string, len(d.leaves))
	for i, l := range d.leaves {
		out[i] = l.path
	}
	return out
}

// Write adds the rows of rec, which must have the Digester's schema. After an error the
// Digester keeps returning it. A malformed array (one the Arrow library itself panics on) is
// an error, not a panic.
func (d *Digester) Write(rec arrow.RecordBatch) (err error) {
	if d.err != nil {
		return d.err
	}
	defer func() {
		if r := recover(); r != nil {
			d.err = fmt.Errorf("digest: malformed record batch: %v", r)
			err = d.err
		}
	}()
	if rec == nil {
		return errors.New("digest: nil record batch")
	}
	if !rec.Schema().Equal(d.schema) {
		d.err = fmt.Errorf("digest: record batch schema %s differs from the digester's %s", rec.Schema(), d.schema)
		return d.err
	}
	n := int(rec.NumRows())
	for _, l := range d.leaves {
		arr := rec.Column(l.col)
		for i := 0; i < n; i++ {
			if err := l.encode(arr, i, l.steps); err != nil {
				d.err = fmt.Errorf("digest: column %q, row %d: %w", l.path, d.rows+int64(i), err)
				return d.err
			}
			if len(l.buf) >= flushAt {
				l.h.Write(l.buf)
				l.buf = l.buf[:0]
			}
		}
	}
	d.rows += int64(n)
	return nil
}

// Sum returns the digests of the rows written so far. Further writes may follow.
func (d *Digester) Sum() (Result, error) {
	if d.err != nil {
		return Result{}, d.err
	}
	cols := make([]ColumnDigest, len(d.leaves))
	for i, l := range d.leaves {
		l.h.Write(l.buf)
		l.buf = l.buf[:0]
		cols[i] = ColumnDigest{Path: l.path, Digest: hex.EncodeToString(l.h.Sum(nil)[:Size])}
	}
	slices.SortFunc(cols, func(a, b ColumnDigest) int { return strings.Compare(a.Path, b.Path) })
	t, err := TableDigest(cols)
	if err != nil {
		return Result{}, err
	}
	return Result{Columns: cols, Table: t, Rows: d.rows}, nil
}

// Batches digests the record batches recs, all of schema, in order.
func Batches(schema *arrow.Schema, recs ...arrow.RecordBatch) (Result, error) {
	d, err := New(schema)
	if err != nil {
		return Result{}, err
	}
	for _, r := range recs {
		if err := d.Write(r); err != nil {
			return Result{}, err
		}
	}
	return d.Sum()
}

// TableDigest returns the table digest over cols: SHA-256, truncated to 16 bytes, over the
// columns sorted by path, each written as its path's length (8-byte little-endian), the path's
// UTF-8 bytes and the 16 bytes of its digest. cols need not be sorted; a malformed digest or a
// repeated path is an error.
func TableDigest(cols []ColumnDigest) (string, error) {
	sorted := slices.Clone(cols)
	slices.SortFunc(sorted, func(a, b ColumnDigest) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	var n [8]byte
	for i, c := range sorted {
		if i > 0 && sorted[i-1].Path == c.Path {
			return "", fmt.Errorf("digest: column %q appears twice", c.Path)
		}
		raw, err := hex.DecodeString(c.Digest)
		if err != nil || len(raw) != Size {
			return "", fmt.Errorf("digest: column %q: digest %q is not %d hex digits", c.Path, c.Digest, 2*Size)
		}
		binary.LittleEndian.PutUint64(n[:], uint64(len(c.Path)))
		h.Write(n[:])
		h.Write([]byte(c.Path))
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil)[:Size]), nil
}

// Diff compares the digests a runner reported (got) with the expected ones (want) and
// returns nil when they agree, or an error naming the columns missing, unexpected or
// different. Rows are compared when both are non-zero.
func Diff(want, got Result) error {
	var problems []string
	if want.Rows != 0 && got.Rows != 0 && want.Rows != got.Rows {
		problems = append(problems, fmt.Sprintf("%d rows, want %d", got.Rows, want.Rows))
	}
	g := make(map[string]string, len(got.Columns))
	for _, c := range got.Columns {
		g[c.Path] = c.Digest
	}
	w := make(map[string]bool, len(want.Columns))
	for _, c := range want.Columns {
		w[c.Path] = true
		d, ok := g[c.Path]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("column %q missing", c.Path))
		case !strings.EqualFold(d, c.Digest):
			problems = append(problems, fmt.Sprintf("column %q digest %s, want %s", c.Path, d, c.Digest))
		}
	}
	for _, c := range got.Columns {
		if !w[c.Path] {
			problems = append(problems, fmt.Sprintf("unexpected column %q", c.Path))
		}
	}
	if len(problems) == 0 && got.Table != "" && want.Table != "" && !strings.EqualFold(got.Table, want.Table) {
		problems = append(problems, fmt.Sprintf("table digest %s, want %s", got.Table, want.Table))
	}
	if len(problems) == 0 {
		return nil
	}
	const maxShown = 5
	more := ""
	if len(problems) > maxShown {
		more = fmt.Sprintf(" (and %d more)", len(problems)-maxShown)
		problems = problems[:maxShown]
	}
	return fmt.Errorf("digest mismatch: %s%s", strings.Join(problems, "; "), more)
}

// resolve unwraps dictionary and extension arrays at index i and reports whether the value is
// null.
func resolve(arr arrow.Array, i int) (arrow.Array, int, bool, error) {
	for {
		if arr.DataType().ID() == arrow.NULL || arr.IsNull(i) {
			return nil, 0, true, nil
		}
		switch a := arr.(type) {
		case *array.Dictionary:
			i = a.GetValueIndex(i)
			arr = a.Dictionary()
			if i < 0 || i >= arr.Len() {
				return nil, 0, false, fmt.Errorf("dictionary index %d out of range [0, %d)", i, arr.Len())
			}
		case array.ExtensionArray:
			arr = a.Storage()
		default:
			return arr, i, false, nil
		}
	}
}

// encode appends the canonical bytes of the value at index i of arr, descending by steps.
func (l *leaf) encode(arr arrow.Array, i int, steps []step) error {
	arr, i, null, err := resolve(arr, i)
	if err != nil {
		return err
	}
	if null {
		l.buf = append(l.buf, tagNull)
		return nil
	}
	l.buf = append(l.buf, tagPresent)
	if len(steps) == 0 {
		return l.value(arr, i)
	}
	switch steps[0].kind {
	case stepStruct:
		s, ok := arr.(*array.Struct)
		if !ok {
			return fmt.Errorf("expected a struct array, got %s", arr.DataType())
		}
		return l.encode(s.Field(steps[0].field), i, steps[1:])
	default:
		ll, ok := arr.(array.ListLike)
		if !ok {
			return fmt.Errorf("expected a list array, got %s", arr.DataType())
		}
		start, end := ll.ValueOffsets(i)
		values := ll.ListValues()
		if start < 0 || end < start || end > int64(values.Len()) {
			return fmt.Errorf("list offsets %d..%d outside its %d values", start, end, values.Len())
		}
		l.buf = binary.LittleEndian.AppendUint64(l.buf, uint64(end-start))
		for j := start; j < end; j++ {
			if err := l.encode(values, int(j), steps[1:]); err != nil {
				return err
			}
		}
		return nil
	}
}

// value appends the canonical bytes of the present leaf value at index i of arr.
func (l *leaf) value(arr arrow.Array, i int) error {
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			l.buf = append(l.buf, 1)
		} else {
			l.buf = append(l.buf, 0)
		}
	case *array.Int8:
		l.int(int64(a.Value(i)))
	case *array.Int16:
		l.int(int64(a.Value(i)))
	case *array.Int32:
		l.int(int64(a.Value(i)))
	case *array.Int64:
		l.int(a.Value(i))
	case *array.Uint8:
		l.uint(uint64(a.Value(i)))
	case *array.Uint16:
		l.uint(uint64(a.Value(i)))
	case *array.Uint32:
		l.uint(uint64(a.Value(i)))
	case *array.Uint64:
		l.uint(a.Value(i))
	case *array.Float16:
		l.float(float64(a.Value(i).Float32()))
	case *array.Float32:
		l.float(float64(a.Value(i)))
	case *array.Float64:
		l.float(a.Value(i))
	case *array.String:
		l.str(a.Value(i))
	case *array.LargeString:
		l.str(a.Value(i))
	case *array.StringView:
		l.str(a.Value(i))
	case *array.Binary:
		l.bytes(a.Value(i))
	case *array.LargeBinary:
		l.bytes(a.Value(i))
	case *array.BinaryView:
		l.bytes(a.Value(i))
	case *array.FixedSizeBinary:
		l.bytes(a.Value(i))
	case *array.Timestamp:
		us, err := micros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		if err != nil {
			return err
		}
		l.int(us)
	case *array.Duration:
		us, err := micros(int64(a.Value(i)), a.DataType().(*arrow.DurationType).Unit)
		if err != nil {
			return err
		}
		l.int(us)
	case *array.Time32:
		us, err := micros(int64(a.Value(i)), a.DataType().(*arrow.Time32Type).Unit)
		if err != nil {
			return err
		}
		l.int(us)
	case *array.Time64:
		us, err := micros(int64(a.Value(i)), a.DataType().(*arrow.Time64Type).Unit)
		if err != nil {
			return err
		}
		l.int(us)
	case *array.Date32:
		l.int(int64(a.Value(i)))
	case *array.Date64:
		l.int(floorDiv(int64(a.Value(i)), 86_400_000))
	case *array.Decimal128:
		l.str(decimalString(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Decimal256:
		l.str(decimalString(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale))
	default:
		return fmt.Errorf("unsupported Arrow type %s", arr.DataType())
	}
	return nil
}

func (l *leaf) int(v int64)   { l.buf = binary.LittleEndian.AppendUint64(l.buf, uint64(v)) }
func (l *leaf) uint(v uint64) { l.buf = binary.LittleEndian.AppendUint64(l.buf, v) }

func (l *leaf) float(f float64) {
	bits := math.Float64bits(f)
	if math.IsNaN(f) {
		bits = canonicalNaN
	}
	l.buf = binary.LittleEndian.AppendUint64(l.buf, bits)
}

func (l *leaf) str(s string) {
	l.buf = binary.LittleEndian.AppendUint64(l.buf, uint64(len(s)))
	l.buf = append(l.buf, s...)
}

func (l *leaf) bytes(b []byte) {
	l.buf = binary.LittleEndian.AppendUint64(l.buf, uint64(len(b)))
	l.buf = append(l.buf, b...)
}

// micros converts v in unit to microseconds: coarser units are multiplied (overflow is an
// error), nanoseconds are divided rounding toward negative infinity.
func micros(v int64, unit arrow.TimeUnit) (int64, error) {
	var m int64
	switch unit {
	case arrow.Second:
		m = 1_000_000
	case arrow.Millisecond:
		m = 1_000
	case arrow.Microsecond:
		return v, nil
	case arrow.Nanosecond:
		return floorDiv(v, 1_000), nil
	default:
		return 0, fmt.Errorf("unknown time unit %v", unit)
	}
	if v > math.MaxInt64/m || v < math.MinInt64/m {
		return 0, fmt.Errorf("%d %s overflows int64 microseconds", v, unit)
	}
	return v * m, nil
}

// floorDiv divides rounding toward negative infinity (d > 0).
func floorDiv(v, d int64) int64 {
	q := v / d
	if v%d != 0 && v < 0 {
		q--
	}
	return q
}

// decimalString renders the unscaled value u with scale s in plain notation: an optional '-',
// at least one integer digit, and exactly s fractional digits when s > 0; s < 0 appends -s
// zeros. Zero is never negative.
func decimalString(u *big.Int, s int32) string {
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	switch {
	case s > 0:
		if len(digits) <= int(s) {
			digits = strings.Repeat("0", int(s)-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-int(s)] + "." + digits[len(digits)-int(s):]
	case s < 0 && digits != "0":
		digits += strings.Repeat("0", int(-s))
	}
	if neg {
		return "-" + digits
	}
	return digits
}
