package pgarrow

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// kind is how a PostgreSQL type is decoded.
type kind uint8

const (
	kUnknown kind = iota // not decodable from binary: read as text
	kBool
	kInt2
	kInt4
	kInt8
	kOID
	kFloat4
	kFloat8
	kNumeric
	kText // text-like: the binary form is the UTF-8 text (also enums)
	kChar // "char": one byte
	kJSONB
	kBytea
	kDate
	kTime
	kTimestamp
	kTimestamptz
	kInterval
	kUUID
	kInet
	kArray
)

// Built-in type OIDs (pg_type.h); stable across PostgreSQL versions.
const (
	oidBool        = 16
	oidBytea       = 17
	oidChar        = 18
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt2Vector  = 22
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidOIDVector   = 30
	oidJSON        = 114
	oidCidr        = 650
	oidFloat4      = 700
	oidFloat8      = 701
	oidUnknown     = 705
	oidInet        = 869
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// pgType describes a PostgreSQL type as far as decoding is concerned.
type pgType struct {
	name string
	kind kind
	elem uint32 // element type OID when kind == kArray
	// vector marks int2vector and oidvector: arrays whose lower bound is 0.
	vector bool
}

// builtinType returns the description of a built-in type, if it is one
// pgarrow decodes from binary.
func builtinType(oid uint32) (pgType, bool) {
	switch oid {
	case oidBool:
		return pgType{name: "bool", kind: kBool}, true
	case oidBytea:
		return pgType{name: "bytea", kind: kBytea}, true
	case oidChar:
		return pgType{name: "char", kind: kChar}, true
	case oidName:
		return pgType{name: "name", kind: kText}, true
	case oidInt8:
		return pgType{name: "int8", kind: kInt8}, true
	case oidInt2:
		return pgType{name: "int2", kind: kInt2}, true
	case oidInt4:
		return pgType{name: "int4", kind: kInt4}, true
	case oidText:
		return pgType{name: "text", kind: kText}, true
	case oidOID:
		return pgType{name: "oid", kind: kOID}, true
	case oidJSON:
		return pgType{name: "json", kind: kText}, true
	case oidCidr:
		return pgType{name: "cidr", kind: kInet}, true
	case oidFloat4:
		return pgType{name: "float4", kind: kFloat4}, true
	case oidFloat8:
		return pgType{name: "float8", kind: kFloat8}, true
	case oidUnknown:
		return pgType{name: "unknown", kind: kText}, true
	case oidInet:
		return pgType{name: "inet", kind: kInet}, true
	case oidBpchar:
		return pgType{name: "bpchar", kind: kText}, true
	case oidVarchar:
		return pgType{name: "varchar", kind: kText}, true
	case oidDate:
		return pgType{name: "date", kind: kDate}, true
	case oidTime:
		return pgType{name: "time", kind: kTime}, true
	case oidTimestamp:
		return pgType{name: "timestamp", kind: kTimestamp}, true
	case oidTimestamptz:
		return pgType{name: "timestamptz", kind: kTimestamptz}, true
	case oidInterval:
		return pgType{name: "interval", kind: kInterval}, true
	case oidNumeric:
		return pgType{name: "numeric", kind: kNumeric}, true
	case oidUUID:
		return pgType{name: "uuid", kind: kUUID}, true
	case oidJSONB:
		return pgType{name: "jsonb", kind: kJSONB}, true
	case oidInt2Vector:
		return pgType{name: "int2vector", kind: kArray, elem: oidInt2, vector: true}, true
	case oidOIDVector:
		return pgType{name: "oidvector", kind: kArray, elem: oidOID, vector: true}, true
	}
	if elem, name := builtinArrayElem(oid); elem != 0 {
		return pgType{name: name, kind: kArray, elem: elem}, true
	}
	return pgType{}, false
}

// builtinArrayElem returns the element OID and the type name of a built-in
// array type over a decodable element type.
func builtinArrayElem(oid uint32) (uint32, string) {
	switch oid {
	case 1000:
		return oidBool, "_bool"
	case 1001:
		return oidBytea, "_bytea"
	case 1002:
		return oidChar, "_char"
	case 1003:
		return oidName, "_name"
	case 1016:
		return oidInt8, "_int8"
	case 1005:
		return oidInt2, "_int2"
	case 1007:
		return oidInt4, "_int4"
	case 1009:
		return oidText, "_text"
	case 1028:
		return oidOID, "_oid"
	case 199:
		return oidJSON, "_json"
	case 651:
		return oidCidr, "_cidr"
	case 1021:
		return oidFloat4, "_float4"
	case 1022:
		return oidFloat8, "_float8"
	case 1041:
		return oidInet, "_inet"
	case 1014:
		return oidBpchar, "_bpchar"
	case 1015:
		return oidVarchar, "_varchar"
	case 1182:
		return oidDate, "_date"
	case 1183:
		return oidTime, "_time"
	case 1115:
		return oidTimestamp, "_timestamp"
	case 1185:
		return oidTimestamptz, "_timestamptz"
	case 1187:
		return oidInterval, "_interval"
	case 1231:
		return oidNumeric, "_numeric"
	case 2951:
		return oidUUID, "_uuid"
	case 3807:
		return oidJSONB, "_jsonb"
	}
	return 0, ""
}

// field is what pgarrow knows about one result column.
type field struct {
	name   string
	oid    uint32
	typmod int32
	typ    pgType
	text   bool // the server sends this column in text format
}

// numericTypmod splits a numeric typmod into precision and scale; ok is
// false for an unconstrained numeric.
func numericTypmod(typmod int32) (precision, scale int32, ok bool) {
	if typmod < 4 { // VARHDRSZ
		return 0, 0, false
	}
	t := typmod - 4
	precision = (t >> 16) & 0xffff
	scale = t & 0x7ff
	if scale&0x400 != 0 { // PostgreSQL 15 allows negative scales
		scale -= 0x800
	}
	return precision, scale, true
}

// newColumn returns the Arrow field and the decoding column for f. elems
// resolves array element types.
func newColumn(mem memory.Allocator, f field, opts *Options, elems func(uint32) (pgType, bool)) (arrow.Field, column, error) {
	keys := []string{MetaType, MetaOID}
	vals := []string{f.typ.name, strconv.FormatUint(uint64(f.oid), 10)}
	if f.typ.kind == kUUID && !f.text {
		// Serialized like the canonical arrow.uuid extension type, so IPC
		// and Parquet readers that know it see a UUID column.
		keys = append(keys, "ARROW:extension:name", "ARROW:extension:metadata")
		vals = append(vals, "arrow.uuid", "")
	}
	md := arrow.NewMetadata(keys, vals)
	if f.text {
		b := array.NewStringBuilder(mem)
		return arrow.Field{Name: f.name, Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md}, &textCol{b: b}, nil
	}
	dt, col, err := newDecoder(mem, f.typ, f.typmod, opts, elems)
	if err != nil {
		return arrow.Field{}, nil, err
	}
	return arrow.Field{Name: f.name, Type: dt, Nullable: true, Metadata: md}, col, nil
}

func newDecoder(mem memory.Allocator, t pgType, typmod int32, opts *Options, elems func(uint32) (pgType, bool)) (arrow.DataType, column, error) {
	dt, err := arrowType(t, typmod, opts, elems)
	if err != nil {
		return nil, nil, err
	}
	b := array.NewBuilder(mem, dt)
	col, err := bindColumn(t, typmod, b, opts, elems)
	if err != nil {
		b.Release()
		return nil, nil, err
	}
	return dt, col, nil
}

// decimalParams returns the decimal128 precision and scale of a numeric
// column, or ok == false when it is read as text.
func decimalParams(typmod int32, opts *Options) (p, s int32, ok bool) {
	if opts.Numeric == NumericDecimal {
		return opts.DecimalPrecision, opts.DecimalScale, true
	}
	p, s, ok = numericTypmod(typmod)
	if opts.Numeric == NumericString || !ok || p > 38 || p < 1 || s < 0 || s > p {
		return 0, 0, false
	}
	return p, s, true
}

// arrowType returns the Arrow type a PostgreSQL type decodes to.
func arrowType(t pgType, typmod int32, opts *Options, elems func(uint32) (pgType, bool)) (arrow.DataType, error) {
	switch t.kind {
	case kBool:
		return arrow.FixedWidthTypes.Boolean, nil
	case kInt2:
		return arrow.PrimitiveTypes.Int16, nil
	case kInt4:
		return arrow.PrimitiveTypes.Int32, nil
	case kInt8:
		return arrow.PrimitiveTypes.Int64, nil
	case kOID:
		return arrow.PrimitiveTypes.Uint32, nil
	case kFloat4:
		return arrow.PrimitiveTypes.Float32, nil
	case kFloat8:
		return arrow.PrimitiveTypes.Float64, nil
	case kText, kUnknown, kChar, kJSONB, kInet:
		return arrow.BinaryTypes.String, nil
	case kBytea:
		return arrow.BinaryTypes.Binary, nil
	case kDate:
		return arrow.FixedWidthTypes.Date32, nil
	case kTime:
		return arrow.FixedWidthTypes.Time64us, nil
	case kTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case kTimestamptz:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case kInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	case kUUID:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}, nil
	case kNumeric:
		if p, s, ok := decimalParams(typmod, opts); ok {
			return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
		}
		return arrow.BinaryTypes.String, nil
	case kArray:
		et, ok := elems(t.elem)
		if !ok || et.kind == kArray || et.kind == kUnknown {
			return nil, fmt.Errorf("pgarrow: element type (oid %d) of %s is not supported", t.elem, t.name)
		}
		edt, err := arrowType(et, typmod, opts, elems)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: edt, Nullable: true}), nil
	}
	return nil, fmt.Errorf("pgarrow: unsupported type %s", t.name)
}

// bindColumn returns the decoder of type t appending to b, a builder of
// arrowType(t, …).
func bindColumn(t pgType, typmod int32, b array.Builder, opts *Options, elems func(uint32) (pgType, bool)) (column, error) {
	switch t.kind {
	case kBool:
		return &boolCol{b: b.(*array.BooleanBuilder)}, nil
	case kInt2:
		return &int16Col{b: b.(*array.Int16Builder)}, nil
	case kInt4:
		return &int32Col{b: b.(*array.Int32Builder)}, nil
	case kInt8:
		return &int64Col{b: b.(*array.Int64Builder)}, nil
	case kOID:
		return &uint32Col{b: b.(*array.Uint32Builder)}, nil
	case kFloat4:
		return &float32Col{b: b.(*array.Float32Builder)}, nil
	case kFloat8:
		return &float64Col{b: b.(*array.Float64Builder)}, nil
	case kText, kUnknown:
		return &textCol{b: b.(*array.StringBuilder)}, nil
	case kChar:
		return &charCol{b: b.(*array.StringBuilder)}, nil
	case kJSONB:
		return &jsonbCol{b: b.(*array.StringBuilder)}, nil
	case kInet:
		return &inetCol{b: b.(*array.StringBuilder)}, nil
	case kBytea:
		return &byteaCol{b: b.(*array.BinaryBuilder)}, nil
	case kDate:
		return &dateCol{b: b.(*array.Date32Builder), policy: opts.OutOfRange}, nil
	case kTime:
		return &timeCol{b: b.(*array.Time64Builder), policy: opts.OutOfRange}, nil
	case kTimestamp, kTimestamptz:
		return &timestampCol{b: b.(*array.TimestampBuilder), policy: opts.OutOfRange}, nil
	case kInterval:
		return &intervalCol{b: b.(*array.MonthDayNanoIntervalBuilder), policy: opts.OutOfRange}, nil
	case kUUID:
		return &uuidCol{b: b.(*array.FixedSizeBinaryBuilder)}, nil
	case kNumeric:
		if p, s, ok := decimalParams(typmod, opts); ok {
			return &numericDecCol{b: b.(*array.Decimal128Builder), precision: p, scale: s, outOfRange: opts.OutOfRange, nan: opts.NumericNaN}, nil
		}
		return &numericTextCol{b: b.(*array.StringBuilder)}, nil
	case kArray:
		lb := b.(*array.ListBuilder)
		et, _ := elems(t.elem)
		ecol, err := bindColumn(et, typmod, lb.ValueBuilder(), opts, elems)
		if err != nil {
			return nil, err
		}
		lower := int32(1)
		if t.vector {
			lower = 0
		}
		return &listCol{b: lb, elem: ecol, elemOID: t.elem, lower: lower}, nil
	}
	return nil, fmt.Errorf("pgarrow: unsupported type %s", t.name)
}
