package pgscan

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5/pgtype"
)

// The checksums of a --query read. Every method delivers the query's
// values in its own representation — Arrow arrays of whatever types its
// driver chose (pgarrow, the Python peers), Go values (pgx), raw binary
// (the limit rows, decoded for the check by pgx's type map) — so each
// value is first brought to one canonical byte form decided by the
// column's PostgreSQL type, then hashed:
//
//	integers (int2, int4, int8, oid)   the int64, 8 bytes little-endian
//	float4, float8                     the float64's bits (float4 widened exactly); every NaN one pattern
//	bool                               one byte
//	text, varchar, bpchar, name, char  the UTF-8 bytes as sent
//	bytea                              the bytes
//	numeric                            decimal text without exponent, trailing fractional zeros dropped
//	                                   ("1.50" and decimal128 150 scale 2 are both "1.5"); NaN, Infinity
//	date                               days since 1970-01-01 (int64)
//	time                               microseconds since midnight (int64)
//	timestamp, timestamptz             microseconds since 1970-01-01 UTC (int64)
//	interval                           months, days (int32 each), microseconds (int64)
//	uuid                               the 16 bytes
//	json, jsonb                        the value re-encoded by encoding/json (keys sorted, numbers as float64)
//	1-D arrays of the above            element count, then each element (NULL marked) length-prefixed
//	any other type                     its PostgreSQL text form (not comparable with a binary read)
//
// A column's checksum is the number of NULLs and the sum (mod 2^64) of the
// FNV-1a hashes of its canonical values: independent of row order, so that
// a query without ORDER BY, whose row order may change between reads
// (synchronized scans), still compares.

// colKind is a column's canonical form, from its PostgreSQL type.
type colKind uint8

const (
	kindOther colKind = iota
	kindInt
	kindFloat
	kindBool
	kindText
	kindBytea
	kindNumeric
	kindDate
	kindTime
	kindTimestamp
	kindInterval
	kindUUID
	kindJSON
)

func (k colKind) String() string {
	return [...]string{"other", "int", "float", "bool", "text", "bytea", "numeric", "date", "time", "timestamp", "interval", "uuid", "json"}[k]
}

// colType is a column's kind; list is set for a 1-D array of that kind.
type colType struct {
	kind colKind
	list bool
}

// scalarKinds maps the built-in type OIDs to their kinds.
var scalarKinds = map[uint32]colKind{
	pgtype.BoolOID: kindBool, pgtype.ByteaOID: kindBytea, pgtype.QCharOID: kindText, pgtype.NameOID: kindText,
	pgtype.Int8OID: kindInt, pgtype.Int2OID: kindInt, pgtype.Int4OID: kindInt, pgtype.TextOID: kindText, pgtype.OIDOID: kindInt,
	pgtype.JSONOID: kindJSON, pgtype.Float4OID: kindFloat, pgtype.Float8OID: kindFloat, pgtype.BPCharOID: kindText,
	pgtype.VarcharOID: kindText, pgtype.DateOID: kindDate, pgtype.TimeOID: kindTime, pgtype.TimestampOID: kindTimestamp,
	pgtype.TimestamptzOID: kindTimestamp, pgtype.IntervalOID: kindInterval, pgtype.NumericOID: kindNumeric,
	pgtype.UUIDOID: kindUUID, pgtype.JSONBOID: kindJSON,
}

// arrayKinds maps the array type OIDs to their element kinds.
var arrayKinds = map[uint32]colKind{
	pgtype.BoolArrayOID: kindBool, pgtype.ByteaArrayOID: kindBytea, pgtype.QCharArrayOID: kindText, pgtype.NameArrayOID: kindText,
	pgtype.Int8ArrayOID: kindInt, pgtype.Int2ArrayOID: kindInt, pgtype.Int4ArrayOID: kindInt, pgtype.TextArrayOID: kindText,
	pgtype.OIDArrayOID: kindInt, pgtype.JSONArrayOID: kindJSON, pgtype.Float4ArrayOID: kindFloat, pgtype.Float8ArrayOID: kindFloat,
	pgtype.BPCharArrayOID: kindText, pgtype.VarcharArrayOID: kindText, pgtype.DateArrayOID: kindDate, pgtype.TimeArrayOID: kindTime,
	pgtype.TimestampArrayOID: kindTimestamp, pgtype.TimestamptzArrayOID: kindTimestamp, pgtype.IntervalArrayOID: kindInterval,
	pgtype.NumericArrayOID: kindNumeric, pgtype.UUIDArrayOID: kindUUID, pgtype.JSONBArrayOID: kindJSON,
}

// typeOf returns the canonical form of a column of type oid.
func typeOf(oid uint32) colType {
	if k, ok := scalarKinds[oid]; ok {
		return colType{kind: k}
	}
	if k, ok := arrayKinds[oid]; ok {
		return colType{kind: k, list: true}
	}
	return colType{kind: kindOther}
}

// colSum is one column's checksum.
type colSum struct {
	nulls int64
	sum   uint64
	// binaryOnly is set when a method read the column's values (a type
	// without a canonical form: kindOther) in binary, not comparable with
	// the reference's text form: only the NULLs are compared.
	binaryOnly bool
}

// checksums are a result's row count and per-column checksums.
type checksums struct {
	rows  int64
	cols  []colSum
	types []colType
	// arrowTypes are the Arrow types a method delivered, by column (for
	// the error when its values differ).
	arrowTypes []string
	// buf is reused for the canonical form of each value.
	buf []byte
}

func newChecksums(types []colType) *checksums {
	return &checksums{cols: make([]colSum, len(types)), types: types}
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv1a(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// add counts one value of column i, whose canonical form is in c.buf.
func (c *checksums) add(i int) { c.cols[i].sum += fnv1a(c.buf) }

// compare reports the first difference between got (read by method) and
// the reference want, naming the column.
func (want *checksums) compare(got *checksums, names []string, method string) error {
	if got.rows != want.rows {
		return fmt.Errorf("%s read %d rows, the reference (%s) %d", method, got.rows, MethodSelect, want.rows)
	}
	if len(got.cols) != len(want.cols) {
		return fmt.Errorf("%s read %d columns, the reference %d", method, len(got.cols), len(want.cols))
	}
	for i := range want.cols {
		g, w := got.cols[i], want.cols[i]
		switch {
		case g.nulls != w.nulls:
			return fmt.Errorf("column %q: %s read %d NULLs, the reference (%s) %d", names[i], method, g.nulls, MethodSelect, w.nulls)
		case g.binaryOnly:
		case g.sum != w.sum:
			as := ""
			if i < len(got.arrowTypes) && i < len(want.arrowTypes) && got.arrowTypes[i] != want.arrowTypes[i] {
				as = fmt.Sprintf(" (%s delivers it as %s, %s as %s)", method, got.arrowTypes[i], MethodSelect, want.arrowTypes[i])
			}
			return fmt.Errorf("column %q: %s's values differ from the reference's (%s)%s: checksum %016x, want %016x", names[i], method, MethodSelect, as, g.sum, w.sum)
		}
	}
	return nil
}

// --- Arrow values ---

// addArrow adds the rows of rec. Column types may differ from pgarrow's
// (a peer's driver chooses its own); every value is brought to its
// column's canonical form, and a type that has none for the column's kind
// is an error.
func (c *checksums) addArrow(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(c.cols) {
		return fmt.Errorf("%d columns, want %d", rec.NumCols(), len(c.cols))
	}
	if c.arrowTypes == nil {
		for i := range c.cols {
			c.arrowTypes = append(c.arrowTypes, rec.Column(i).DataType().String())
		}
	}
	for i := range c.cols {
		col := rec.Column(i)
		t := c.types[i]
		for r := 0; r < col.Len(); r++ {
			if col.IsNull(r) {
				c.cols[i].nulls++
				continue
			}
			var err error
			c.buf, err = appendArrow(c.buf[:0], t, col, r)
			if err != nil {
				return fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
			}
			c.add(i)
		}
	}
	c.rows += rec.NumRows()
	return nil
}

// appendArrow appends the canonical form of value r of arr (not NULL).
func appendArrow(b []byte, t colType, arr arrow.Array, r int) ([]byte, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	if t.list {
		var (
			vals       arrow.Array
			start, end int64
		)
		switch a := arr.(type) {
		case *array.List:
			s, e := a.ValueOffsets(r)
			vals, start, end = a.ListValues(), s, e
		case *array.LargeList:
			s, e := a.ValueOffsets(r)
			vals, start, end = a.ListValues(), s, e
		default:
			return b, fmt.Errorf("a %s array delivered as %s", t.kind, arr.DataType())
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(end-start))
		et := colType{kind: t.kind}
		for j := start; j < end; j++ {
			if vals.IsNull(int(j)) {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			at := len(b)
			b = append(b, 0, 0, 0, 0)
			var err error
			if b, err = appendArrow(b, et, vals, int(j)); err != nil {
				return b, err
			}
			binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
		}
		return b, nil
	}
	bad := func() ([]byte, error) {
		return b, fmt.Errorf("a %s value delivered as %s: no canonical form", t.kind, arr.DataType())
	}
	switch t.kind {
	case kindInt:
		v, ok := arrowInt(arr, r)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(b, uint64(v)), nil
	case kindFloat:
		switch a := arr.(type) {
		case *array.Float32:
			return appendFloat(b, float64(a.Value(r))), nil
		case *array.Float64:
			return appendFloat(b, a.Value(r)), nil
		}
		return bad()
	case kindBool:
		if a, ok := arr.(*array.Boolean); ok {
			return appendBool(b, a.Value(r)), nil
		}
		return bad()
	case kindText, kindBytea, kindOther:
		if v, ok := arrowBytes(arr, r); ok {
			return append(b, v...), nil
		}
		return bad()
	case kindJSON:
		v, ok := arrowBytes(arr, r)
		if !ok {
			return bad()
		}
		return appendJSONText(b, v)
	case kindNumeric:
		switch a := arr.(type) {
		case *array.Decimal128:
			dt := a.DataType().(*arrow.Decimal128Type)
			return appendDecimal(b, a.Value(r).BigInt(), dt.Scale), nil
		case *array.Decimal256:
			dt := a.DataType().(*arrow.Decimal256Type)
			return appendDecimal(b, a.Value(r).BigInt(), dt.Scale), nil
		case *array.Float64:
			return appendNumericText(b, strconv.FormatFloat(a.Value(r), 'f', -1, 64)), nil
		}
		if v, ok := arrowBytes(arr, r); ok {
			return appendNumericText(b, string(v)), nil
		}
		return bad()
	case kindDate:
		switch a := arr.(type) {
		case *array.Date32:
			return binary.LittleEndian.AppendUint64(b, uint64(int64(a.Value(r)))), nil
		case *array.Date64:
			return binary.LittleEndian.AppendUint64(b, uint64(floorDiv(int64(a.Value(r)), 86_400_000))), nil
		case *array.Timestamp:
			us, ok := timestampMicros(a, r)
			if !ok {
				return bad()
			}
			return binary.LittleEndian.AppendUint64(b, uint64(floorDiv(us, 86_400_000_000))), nil
		}
		return bad()
	case kindTime:
		var us int64
		switch a := arr.(type) {
		case *array.Time64:
			us = int64(a.Value(r))
			if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
				us /= 1000
			}
		case *array.Time32:
			us = int64(a.Value(r)) * 1_000_000
			if a.DataType().(*arrow.Time32Type).Unit == arrow.Millisecond {
				us /= 1000
			}
		default:
			return bad()
		}
		return binary.LittleEndian.AppendUint64(b, uint64(us)), nil
	case kindTimestamp:
		switch a := arr.(type) {
		case *array.Timestamp:
			us, ok := timestampMicros(a, r)
			if !ok {
				return bad()
			}
			return binary.LittleEndian.AppendUint64(b, uint64(us)), nil
		case *array.Date64:
			return binary.LittleEndian.AppendUint64(b, uint64(int64(a.Value(r))*1000)), nil
		}
		return bad()
	case kindInterval:
		if a, ok := arr.(*array.MonthDayNanoInterval); ok {
			v := a.Value(r)
			return appendInterval(b, v.Months, v.Days, v.Nanoseconds/1000), nil
		}
		return bad()
	case kindUUID:
		switch a := arr.(type) {
		case *array.FixedSizeBinary:
			return append(b, a.Value(r)...), nil
		}
		if v, ok := arrowBytes(arr, r); ok {
			u, err := hex.DecodeString(strings.ReplaceAll(string(v), "-", ""))
			if err != nil || len(u) != 16 {
				return b, fmt.Errorf("uuid %q: not 16 hex bytes", v)
			}
			return append(b, u...), nil
		}
		return bad()
	}
	return bad()
}

func arrowInt(arr arrow.Array, r int) (int64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(r)), true
	case *array.Int16:
		return int64(a.Value(r)), true
	case *array.Int32:
		return int64(a.Value(r)), true
	case *array.Int64:
		return a.Value(r), true
	case *array.Uint8:
		return int64(a.Value(r)), true
	case *array.Uint16:
		return int64(a.Value(r)), true
	case *array.Uint32:
		return int64(a.Value(r)), true
	case *array.Uint64:
		return int64(a.Value(r)), true
	}
	return 0, false
}

func arrowBytes(arr arrow.Array, r int) ([]byte, bool) {
	switch a := arr.(type) {
	case *array.String:
		return []byte(a.Value(r)), true
	case *array.LargeString:
		return []byte(a.Value(r)), true
	case *array.StringView:
		return []byte(a.Value(r)), true
	case *array.Binary:
		return a.Value(r), true
	case *array.LargeBinary:
		return a.Value(r), true
	case *array.BinaryView:
		return a.Value(r), true
	}
	return nil, false
}

func timestampMicros(a *array.Timestamp, r int) (int64, bool) {
	v := int64(a.Value(r))
	switch a.DataType().(*arrow.TimestampType).Unit {
	case arrow.Second:
		return v * 1_000_000, true
	case arrow.Millisecond:
		return v * 1000, true
	case arrow.Microsecond:
		return v, true
	case arrow.Nanosecond:
		return floorDiv(v, 1000), true
	}
	return 0, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func appendFloat(b []byte, f float64) []byte {
	bits := math.Float64bits(f)
	if f != f {
		bits = 0x7ff8000000000001
	}
	return binary.LittleEndian.AppendUint64(b, bits)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendInterval(b []byte, months, days int32, us int64) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(months))
	b = binary.LittleEndian.AppendUint32(b, uint32(days))
	return binary.LittleEndian.AppendUint64(b, uint64(us))
}

// appendJSONText re-encodes a JSON text canonically.
func appendJSONText(b, text []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		return b, fmt.Errorf("json value: %w", err)
	}
	return appendJSONValue(b, v)
}

func appendJSONValue(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return b, fmt.Errorf("json value: %w", err)
	}
	return append(b, j...), nil
}

// appendDecimal appends unscaled × 10^-scale in canonical numeric text.
func appendDecimal(b []byte, unscaled *big.Int, scale int32) []byte {
	s := unscaled.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	switch {
	case scale > 0:
		if len(s) <= int(scale) {
			s = strings.Repeat("0", int(scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	case scale < 0:
		s += strings.Repeat("0", int(-scale))
	}
	if neg {
		s = "-" + s
	}
	return appendNumericText(b, s)
}

// appendNumericText appends a decimal text in canonical form: no
// exponent, no trailing fractional zeros, no "-0".
func appendNumericText(b []byte, s string) []byte {
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return append(b, s...)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if strings.ContainsAny(s, "eE") {
		if r, ok := new(big.Rat).SetString(s); ok {
			s = r.FloatString(1000)
		}
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	s = strings.TrimLeft(s, "0")
	if s == "" || strings.HasPrefix(s, ".") {
		s = "0" + s
	}
	if neg && s != "0" {
		b = append(b, '-')
	}
	return append(b, s...)
}

// --- Go values (pgx) ---

// addGo adds one row of Go values as pgx decodes them (rows.Values, or
// the type map's DecodeValue on raw binary).
func (c *checksums) addGo(vals []any) error {
	if len(vals) != len(c.cols) {
		return fmt.Errorf("%d values, want %d", len(vals), len(c.cols))
	}
	for i, v := range vals {
		if v == nil {
			c.cols[i].nulls++
			continue
		}
		if t := c.types[i]; t.kind == kindOther && !t.list {
			if _, ok := v.([]byte); ok {
				c.cols[i].binaryOnly = true
				continue
			}
		}
		var err error
		if c.buf, err = appendGo(c.buf[:0], c.types[i], v); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
		c.add(i)
	}
	c.rows++
	return nil
}

func appendGo(b []byte, t colType, v any) ([]byte, error) {
	if t.list {
		xs, ok := v.([]any)
		if !ok {
			return b, fmt.Errorf("a %s array decoded as %T", t.kind, v)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(len(xs)))
		et := colType{kind: t.kind}
		for _, x := range xs {
			if x == nil {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			at := len(b)
			b = append(b, 0, 0, 0, 0)
			var err error
			if b, err = appendGo(b, et, x); err != nil {
				return b, err
			}
			binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
		}
		return b, nil
	}
	bad := func() ([]byte, error) {
		return b, fmt.Errorf("a %s value decoded as %T: no canonical form", t.kind, v)
	}
	switch t.kind {
	case kindInt:
		var n int64
		switch x := v.(type) {
		case int16:
			n = int64(x)
		case int32:
			n = int64(x)
		case int64:
			n = x
		case uint32:
			n = int64(x)
		default:
			return bad()
		}
		return binary.LittleEndian.AppendUint64(b, uint64(n)), nil
	case kindFloat:
		switch x := v.(type) {
		case float32:
			return appendFloat(b, float64(x)), nil
		case float64:
			return appendFloat(b, x), nil
		}
		return bad()
	case kindBool:
		if x, ok := v.(bool); ok {
			return appendBool(b, x), nil
		}
		return bad()
	case kindText, kindBytea, kindOther:
		switch x := v.(type) {
		case string:
			return append(b, x...), nil
		case []byte:
			if t.kind == kindOther {
				return b, fmt.Errorf("a value of a type without a canonical binary form (compared in text form only)")
			}
			return append(b, x...), nil
		}
		return bad()
	case kindJSON:
		return appendJSONValue(b, v)
	case kindNumeric:
		n, ok := v.(pgtype.Numeric)
		if !ok {
			return bad()
		}
		switch {
		case n.NaN:
			return append(b, "NaN"...), nil
		case n.InfinityModifier == pgtype.Infinity:
			return append(b, "Infinity"...), nil
		case n.InfinityModifier == pgtype.NegativeInfinity:
			return append(b, "-Infinity"...), nil
		}
		return appendDecimal(b, n.Int, -n.Exp), nil
	case kindDate:
		if x, ok := v.(time.Time); ok {
			y, m, d := x.Date()
			days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
			return binary.LittleEndian.AppendUint64(b, uint64(days)), nil
		}
		return bad()
	case kindTime:
		if x, ok := v.(pgtype.Time); ok {
			return binary.LittleEndian.AppendUint64(b, uint64(x.Microseconds)), nil
		}
		return bad()
	case kindTimestamp:
		if x, ok := v.(time.Time); ok {
			return binary.LittleEndian.AppendUint64(b, uint64(x.UnixMicro())), nil
		}
		return bad()
	case kindInterval:
		if x, ok := v.(pgtype.Interval); ok {
			return appendInterval(b, x.Months, x.Days, x.Microseconds), nil
		}
		return bad()
	case kindUUID:
		if x, ok := v.([16]byte); ok {
			return append(b, x[:]...), nil
		}
		return bad()
	}
	return bad()
}
