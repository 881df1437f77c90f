package jsonv

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// How JSON holds the Arrow types that have no JSON counterpart.
const (
	// DateLayout is the layout of date32 values.
	DateLayout = "2006-01-02"
	// TimestampLayout is the layout of timestamp values (always UTC).
	TimestampLayout = time.RFC3339Nano
)

// RowAppender appends JSON objects as rows of record batches of one schema.
type RowAppender struct {
	fields []*node
	names  map[string]int
}

type node struct {
	dt      arrow.DataType
	path    string
	lenient bool
	// nullable is the field's nullability, enforced when strict.
	nullable, strict bool
	// quoted: a number may come as a string holding it.
	quoted bool
	// name is the field's member name, alias its other one ("": none).
	name, alias string
	// def is the value an absent or null member stands for (nil: none).
	def *Value
	// enum is the names a string value must be one of (nil: any).
	enum   []string
	fields []*node
	names  map[string]int
	elem   *node
}

// Options change how a RowAppender reads values. The zero value reads
// what serbench's own inference produces.
type Options struct {
	// Lenient, if not nil, is asked for every string-typed field's dotted
	// path ("a.b", list elements as "a[]"); for the paths it accepts,
	// values of any kind are stored as their JSON text (the input reader's
	// columns of mixed kinds).
	Lenient func(path string) bool
	// Strict reads with a schema the user gives: its nullability is
	// enforced (a null, or an absent member, where the field is not
	// nullable is an error), and a decimal may be a JSON number and have
	// fewer fraction digits than its scale (12.5 is 12.50 exactly).
	Strict bool
	// QuotedNumbers accepts a string holding a number for a numeric field
	// ("123" for an int64, as protojson writes 64-bit integers; "NaN").
	QuotedNumbers bool
	// Alias, if not nil, gives the other member name a field's dotted
	// path may also come under ("userId" for user_id, protojson's JSON
	// name), or "".
	Alias func(path string) string
	// Default, if not nil, gives the value a field's dotted path takes
	// when its member is absent or null, or nil for none: a proto3 field
	// without presence, which protojson omits at its default value.
	Default func(path string) *Value
	// Enum, if not nil, gives the names a string field's dotted path is
	// limited to (a protobuf enum's value names), or nil for any string.
	Enum func(path string) []string
}

// NewRowAppender compiles schema. lenient, if not nil, is asked for every
// string-typed field's dotted path ("a.b", list elements as "a[]"); for the
// paths it accepts, values of any kind are stored as their JSON text (the
// input reader's columns of mixed kinds). Unsupported Arrow types are an
// error naming the field.
func NewRowAppender(schema *arrow.Schema, lenient func(path string) bool) (*RowAppender, error) {
	return NewRowAppenderWith(schema, Options{Lenient: lenient})
}

// NewRowAppenderWith compiles schema to read values as o says.
func NewRowAppenderWith(schema *arrow.Schema, o Options) (*RowAppender, error) {
	a := &RowAppender{names: make(map[string]int, schema.NumFields())}
	for i, f := range schema.Fields() {
		n, err := compile(f.Type, f.Name, f.Nullable, o)
		if err != nil {
			return nil, err
		}
		n.name = f.Name
		a.fields = append(a.fields, n)
		addName(a.names, n, i)
	}
	return a, nil
}

// addName registers field n, index i, under its name and its alias.
func addName(names map[string]int, n *node, i int) {
	names[n.name] = i
	if n.alias != "" {
		if _, taken := names[n.alias]; !taken {
			names[n.alias] = i
		}
	}
}

// member returns object v's member for field n, under its name or alias.
func (n *node) member(v *Value) *Value {
	if m := v.Get(n.name); m != nil || n.alias == "" {
		return m
	}
	return v.Get(n.alias)
}

func compile(dt arrow.DataType, path string, nullable bool, o Options) (*node, error) {
	lenient := o.Lenient
	n := &node{dt: dt, path: path, nullable: nullable, strict: o.Strict, quoted: o.QuotedNumbers}
	if o.Alias != nil {
		n.alias = o.Alias(path)
	}
	if o.Default != nil {
		n.def = o.Default(path)
	}
	switch t := dt.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.BinaryType, *arrow.LargeBinaryType,
		*arrow.Date32Type, *arrow.TimestampType, *arrow.NullType, *arrow.Time32Type, *arrow.Time64Type,
		*arrow.FixedSizeBinaryType, *arrow.Decimal128Type:
	case *arrow.StringType, *arrow.LargeStringType:
		n.lenient = lenient != nil && lenient(path)
		if o.Enum != nil {
			n.enum = o.Enum(path)
		}
	case *arrow.StructType:
		n.names = make(map[string]int, t.NumFields())
		for i, f := range t.Fields() {
			c, err := compile(f.Type, path+"."+f.Name, f.Nullable, o)
			if err != nil {
				return nil, err
			}
			c.name = f.Name
			n.fields = append(n.fields, c)
			addName(n.names, c, i)
		}
	case *arrow.ListType:
		c, err := compile(t.Elem(), path+"[]", t.ElemField().Nullable, o)
		if err != nil {
			return nil, err
		}
		n.elem = c
	case *arrow.LargeListType:
		c, err := compile(t.Elem(), path+"[]", t.ElemField().Nullable, o)
		if err != nil {
			return nil, err
		}
		n.elem = c
	default:
		return nil, fmt.Errorf("field %s: Arrow type %s has no JSON mapping", path, dt)
	}
	return n, nil
}

// FieldError is a value that does not fit its field's type.
type FieldError struct {
	// Path is the field's dotted path.
	Path string
	// Msg says what was wrong.
	Msg string
}

// Error implements error.
func (e *FieldError) Error() string { return fmt.Sprintf("field %s: %s", e.Path, e.Msg) }

// Check reports whether object v fits the schema, without appending it. An
// object member that names no field is an error.
func (a *RowAppender) Check(v *Value) error {
	if v.Kind != Object {
		return fmt.Errorf("expected a JSON object, got %s", v.Kind)
	}
	for i, k := range v.Keys {
		j, ok := a.names[k]
		if !ok {
			return &FieldError{Path: k, Msg: "not in the schema"}
		}
		if err := a.fields[j].check(&v.Items[i]); err != nil {
			return err
		}
	}
	return absent(a.fields, v)
}

// absent reports the first field of fields, not nullable under a strict
// schema, that object v has no member for.
func absent(fields []*node, v *Value) error {
	for _, f := range fields {
		if f.strict && !f.nullable && f.def == nil && f.member(v) == nil {
			return &FieldError{Path: f.path, Msg: "missing, and the schema's field is not nullable"}
		}
	}
	return nil
}

// Append appends object v, which Check accepted, as one row to b. Absent
// members are null, or their field's default.
func (a *RowAppender) Append(b *array.RecordBuilder, v *Value) {
	for i, n := range a.fields {
		n.appendMember(b.Field(i), v)
	}
}

// appendMember appends object v's member for field n to b: its value, the
// field's default when it is absent, else null.
func (n *node) appendMember(b array.Builder, v *Value) {
	switch m := n.member(v); {
	case m != nil:
		n.append(b, m)
	case n.def != nil:
		n.append(b, n.def)
	default:
		b.AppendNull()
	}
}

func (n *node) errf(format string, args ...any) error {
	return &FieldError{Path: n.path, Msg: fmt.Sprintf(format, args...)}
}

func (n *node) mismatch(v *Value) error {
	text, _ := AppendText(nil, v)
	if len(text) > 40 {
		text = append(text[:37], "..."...)
	}
	return n.errf("%s %s does not fit type %s", v.Kind, text, n.dt)
}

func (n *node) check(v *Value) error {
	if v.Kind == Null {
		if n.strict && !n.nullable && n.def == nil {
			return n.errf("null, and the schema's field is not nullable")
		}
		return nil
	}
	if n.quoted && v.Kind == String && isNumeric(n.dt) {
		q := Value{Kind: Number, Text: v.Text}
		if n.check(&q) != nil {
			return n.mismatch(v)
		}
		return nil
	}
	switch t := n.dt.(type) {
	case *arrow.NullType:
		return n.mismatch(v)
	case *arrow.BooleanType:
		if v.Kind != Bool {
			return n.mismatch(v)
		}
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type, *arrow.Time32Type, *arrow.Time64Type:
		if v.Kind != Number {
			return n.mismatch(v)
		}
		if _, err := strconv.ParseInt(v.Text, 10, intBits(n.dt)); err != nil {
			return n.mismatch(v)
		}
	case *arrow.FixedSizeBinaryType:
		if v.Kind != String {
			return n.mismatch(v)
		}
		b, err := base64.StdEncoding.DecodeString(v.Text)
		if err != nil || len(b) != t.ByteWidth {
			return n.errf("want base64 of %d bytes for %s", t.ByteWidth, n.dt)
		}
	case *arrow.Decimal128Type:
		if v.Kind != String && !(n.strict && v.Kind == Number) {
			return n.mismatch(v)
		}
		if _, err := n.decimal(v.Text, t); err != nil {
			return n.errf("%v", err)
		}
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		if v.Kind != Number {
			return n.mismatch(v)
		}
		if _, err := strconv.ParseUint(v.Text, 10, intBits(n.dt)); err != nil {
			return n.mismatch(v)
		}
	case *arrow.Float32Type, *arrow.Float64Type:
		if v.Kind != Number {
			return n.mismatch(v)
		}
		if _, err := strconv.ParseFloat(v.Text, intBits(n.dt)); err != nil {
			return n.errf("number %s out of range of %s", v.Text, n.dt)
		}
	case *arrow.StringType, *arrow.LargeStringType:
		if v.Kind != String && !n.lenient {
			return n.mismatch(v)
		}
		if n.lenient && v.Kind != String {
			if _, err := AppendText(nil, v); err != nil {
				return n.errf("%v", err)
			}
		}
		if n.enum != nil && !slices.Contains(n.enum, v.Text) {
			shown := n.enum
			if len(shown) > 8 {
				shown = append(slices.Clone(shown[:8]), "…")
			}
			return n.errf("%q is no value of its enum (valid: %s)", v.Text, strings.Join(shown, ", "))
		}
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		if v.Kind != String {
			return n.mismatch(v)
		}
		if _, err := base64.StdEncoding.DecodeString(v.Text); err != nil {
			return n.errf("invalid base64 for %s: %v", n.dt, err)
		}
	case *arrow.Date32Type:
		if v.Kind != String {
			return n.mismatch(v)
		}
		if _, err := time.Parse(DateLayout, v.Text); err != nil {
			return n.errf("invalid date %q (want %s)", v.Text, DateLayout)
		}
	case *arrow.TimestampType:
		if v.Kind != String {
			return n.mismatch(v)
		}
		tm, err := time.Parse(TimestampLayout, v.Text)
		if err != nil {
			return n.errf("invalid timestamp %q (want RFC 3339)", v.Text)
		}
		if _, err := TimeToUnit(tm, t.Unit); err != nil {
			return n.errf("%v", err)
		}
	case *arrow.StructType:
		if v.Kind != Object {
			return n.mismatch(v)
		}
		for i, k := range v.Keys {
			j, ok := n.names[k]
			if !ok {
				return &FieldError{Path: n.path + "." + k, Msg: "not in the schema"}
			}
			if err := n.fields[j].check(&v.Items[i]); err != nil {
				return err
			}
		}
		if err := absent(n.fields, v); err != nil {
			return err
		}
	case *arrow.ListType, *arrow.LargeListType:
		if v.Kind != Array {
			return n.mismatch(v)
		}
		for i := range v.Items {
			if err := n.elem.check(&v.Items[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func intBits(dt arrow.DataType) int {
	return dt.(arrow.FixedWidthDataType).BitWidth()
}

func (n *node) append(b array.Builder, v *Value) {
	if v.Kind == Null {
		if n.def == nil {
			b.AppendNull()
			return
		}
		v = n.def
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.Bool)
	case *array.Int8Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 8)
		b.Append(int8(x))
	case *array.Int16Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 16)
		b.Append(int16(x))
	case *array.Int32Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 32)
		b.Append(int32(x))
	case *array.Int64Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 64)
		b.Append(x)
	case *array.Uint8Builder:
		x, _ := strconv.ParseUint(v.Text, 10, 8)
		b.Append(uint8(x))
	case *array.Uint16Builder:
		x, _ := strconv.ParseUint(v.Text, 10, 16)
		b.Append(uint16(x))
	case *array.Uint32Builder:
		x, _ := strconv.ParseUint(v.Text, 10, 32)
		b.Append(uint32(x))
	case *array.Uint64Builder:
		x, _ := strconv.ParseUint(v.Text, 10, 64)
		b.Append(x)
	case *array.Float32Builder:
		x, _ := strconv.ParseFloat(v.Text, 32)
		b.Append(float32(x))
	case *array.Float64Builder:
		x, _ := strconv.ParseFloat(v.Text, 64)
		b.Append(x)
	case *array.StringBuilder:
		b.Append(n.text(v))
	case *array.LargeStringBuilder:
		b.Append(n.text(v))
	case *array.BinaryBuilder:
		x, _ := base64.StdEncoding.DecodeString(v.Text)
		b.Append(x)
	case *array.Date32Builder:
		tm, _ := time.Parse(DateLayout, v.Text)
		b.Append(arrow.Date32FromTime(tm))
	case *array.Time32Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 32)
		b.Append(arrow.Time32(x))
	case *array.Time64Builder:
		x, _ := strconv.ParseInt(v.Text, 10, 64)
		b.Append(arrow.Time64(x))
	case *array.FixedSizeBinaryBuilder:
		x, _ := base64.StdEncoding.DecodeString(v.Text)
		b.Append(x)
	case *array.Decimal128Builder:
		x, _ := n.decimal(v.Text, n.dt.(*arrow.Decimal128Type))
		b.Append(x)
	case *array.TimestampBuilder:
		tm, _ := time.Parse(TimestampLayout, v.Text)
		x, _ := TimeToUnit(tm, n.dt.(*arrow.TimestampType).Unit)
		b.Append(arrow.Timestamp(x))
	case *array.StructBuilder:
		b.Append(true)
		for i, c := range n.fields {
			c.appendMember(b.FieldBuilder(i), v)
		}
	case *array.ListBuilder:
		b.Append(true)
		vb := b.ValueBuilder()
		for i := range v.Items {
			n.elem.append(vb, &v.Items[i])
		}
	case *array.LargeListBuilder:
		b.Append(true)
		vb := b.ValueBuilder()
		for i := range v.Items {
			n.elem.append(vb, &v.Items[i])
		}
	}
}

// decimal parses a decimal's text; under a strict schema, a fraction of
// fewer digits than t's scale is padded with zeros (12.5 is 12.50 exactly).
func (n *node) decimal(text string, t *arrow.Decimal128Type) (decimal128.Num, error) {
	if n.strict && t.Scale > 0 {
		whole, frac, _ := strings.Cut(text, ".")
		if len(frac) < int(t.Scale) && !strings.ContainsAny(text, "eE") {
			text = whole + "." + frac + strings.Repeat("0", int(t.Scale)-len(frac))
		}
	}
	return ParseDecimal128(text, t.Precision, t.Scale)
}

// isNumeric reports whether dt's JSON values are numbers.
func isNumeric(dt arrow.DataType) bool {
	switch dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Time32Type, *arrow.Time64Type:
		return true
	}
	return false
}

func (n *node) text(v *Value) string {
	if v.Kind == String {
		return v.Text
	}
	t, _ := AppendText(nil, v)
	return string(t)
}

// TimeToUnit converts t to a count of unit since the Unix epoch, failing
// when t has more precision than unit holds or is out of range.
func TimeToUnit(t time.Time, unit arrow.TimeUnit) (int64, error) {
	sec, ns := t.Unix(), int64(t.Nanosecond())
	switch unit {
	case arrow.Second:
		if ns != 0 {
			return 0, fmt.Errorf("timestamp %s has sub-second precision; type holds seconds", t.Format(TimestampLayout))
		}
		return sec, nil
	case arrow.Millisecond:
		if ns%1e6 != 0 {
			return 0, fmt.Errorf("timestamp %s has sub-millisecond precision; type holds milliseconds", t.Format(TimestampLayout))
		}
		return mulAdd(sec, 1e3, ns/1e6)
	case arrow.Microsecond:
		if ns%1e3 != 0 {
			return 0, fmt.Errorf("timestamp %s has sub-microsecond precision; type holds microseconds", t.Format(TimestampLayout))
		}
		return mulAdd(sec, 1e6, ns/1e3)
	default:
		return mulAdd(sec, 1e9, ns)
	}
}

var errRange = errors.New("timestamp out of the range of its unit")

func mulAdd(a, m, b int64) (int64, error) {
	if a > (1<<63-1-b)/m || a < (-1<<63)/m {
		return 0, errRange
	}
	return a*m + b, nil
}

// UnitToTime converts a count of unit since the Unix epoch to a UTC time.
func UnitToTime(v int64, unit arrow.TimeUnit) time.Time {
	switch unit {
	case arrow.Second:
		return time.Unix(v, 0).UTC()
	case arrow.Millisecond:
		return time.Unix(v/1e3, v%1e3*1e6).UTC()
	case arrow.Microsecond:
		return time.Unix(v/1e6, v%1e6*1e3).UTC()
	default:
		return time.Unix(v/1e9, v%1e9).UTC()
	}
}

// ParseDecimal128 parses the text Decimal128.ToString(scale) writes — an
// optional '-', digits, and exactly scale fraction digits (for a negative
// scale, -scale trailing zeros) — exactly, without going through floats.
func ParseDecimal128(text string, prec, scale int32) (decimal128.Num, error) {
	bad := func() (decimal128.Num, error) {
		return decimal128.Num{}, fmt.Errorf("%q is not a decimal(%d, %d)", text, prec, scale)
	}
	s := text
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	switch {
	case scale > 0 && (!hasDot || len(frac) != int(scale)):
		return bad()
	case scale <= 0 && hasDot:
		return bad()
	case scale < 0:
		if !strings.HasSuffix(intPart, strings.Repeat("0", int(-scale))) {
			return bad()
		}
		if intPart != "0" {
			intPart = intPart[:len(intPart)+int(scale)]
		}
	}
	digits := intPart + frac
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return bad()
	}
	var v big.Int
	if _, ok := v.SetString(digits, 10); !ok {
		return bad()
	}
	if neg {
		v.Neg(&v)
	}
	if v.BitLen() > 127 {
		return bad()
	}
	n := decimal128.FromBigInt(&v)
	if !n.FitsInPrecision(prec) {
		return bad()
	}
	return n, nil
}
