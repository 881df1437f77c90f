package psdb

import "strconv"

// DataType is the 5-bit data type stored in a PSDB header.
type DataType uint8

// The data types. 16–30 are the vector forms of 1–15, in the same order.
const (
	TypeUnknown       DataType = 0
	TypeFP8E5M2       DataType = 1
	TypeFP8E4M3       DataType = 2
	TypeFP16          DataType = 3
	TypeFP32          DataType = 4
	TypeFP64          DataType = 5
	TypeInt8          DataType = 6
	TypeInt16         DataType = 7
	TypeInt32         DataType = 8
	TypeInt64         DataType = 9
	TypeUint8         DataType = 10
	TypeUint16        DataType = 11
	TypeUint32        DataType = 12
	TypeUint64        DataType = 13
	TypeString        DataType = 14
	TypeBool          DataType = 15
	TypeFP8E5M2Vector DataType = 16
	TypeFP8E4M3Vector DataType = 17
	TypeFP16Vector    DataType = 18
	TypeFP32Vector    DataType = 19
	TypeFP64Vector    DataType = 20
	TypeInt8Vector    DataType = 21
	TypeInt16Vector   DataType = 22
	TypeInt32Vector   DataType = 23
	TypeInt64Vector   DataType = 24
	TypeUint8Vector   DataType = 25
	TypeUint16Vector  DataType = 26
	TypeUint32Vector  DataType = 27
	TypeUint64Vector  DataType = 28
	TypeStringVector  DataType = 29
	TypeBoolVector    DataType = 30
	vectorOffset               = TypeFP8E5M2Vector - TypeFP8E5M2
	maxDataType                = TypeBoolVector
	maxStringLen               = 65535
	headerLen                  = 9
	layout1                    = 1
	layoutShift                = 4
	compressionShift           = 1
	compressionMask            = 0x07
	boolPaddingMask            = 0x0F
	dataTypeHighBit            = 0x10
	dataTypeLowMask            = 0x0F
)

// HeaderLen is the length in bytes of a PSDB layout-1 header.
const HeaderLen = headerLen

// Valid reports whether t is one of the 30 defined data types.
func (t DataType) Valid() bool { return t >= TypeFP8E5M2 && t <= maxDataType }

// IsVector reports whether t is a vector type (16–30).
func (t DataType) IsVector() bool { return t >= TypeFP8E5M2Vector && t <= maxDataType }

// Element returns the scalar type of t's elements: t itself for scalar
// types, the matching scalar type for vector types, TypeUnknown otherwise.
func (t DataType) Element() DataType {
	switch {
	case t.IsVector():
		return t - vectorOffset
	case t.Valid():
		return t
	}
	return TypeUnknown
}

// Vector returns the vector form of a scalar type, t itself for a vector
// type and TypeUnknown for an invalid type.
func (t DataType) Vector() DataType {
	switch {
	case t.IsVector():
		return t
	case t.Valid():
		return t + vectorOffset
	}
	return TypeUnknown
}

// Width returns the stored size in bytes of one element of t, or 0 for
// strings, bools and invalid types (which have no fixed width).
func (t DataType) Width() int {
	switch t.Element() {
	case TypeFP8E5M2, TypeFP8E4M3, TypeInt8, TypeUint8:
		return 1
	case TypeFP16, TypeInt16, TypeUint16:
		return 2
	case TypeFP32, TypeInt32, TypeUint32:
		return 4
	case TypeFP64, TypeInt64, TypeUint64:
		return 8
	}
	return 0
}

// IsString reports whether t is TypeString or TypeStringVector.
func (t DataType) IsString() bool { return t.Element() == TypeString }

// IsBool reports whether t is TypeBool or TypeBoolVector.
func (t DataType) IsBool() bool { return t.Element() == TypeBool }

// String returns the type's name, e.g. "Int32" or "FP16Vector".
func (t DataType) String() string {
	names := [...]string{"Unknown", "FP8E5M2", "FP8E4M3", "FP16", "FP32", "FP64",
		"Int8", "Int16", "Int32", "Int64", "Uint8", "Uint16", "Uint32", "Uint64",
		"String", "Bool"}
	switch {
	case t == TypeUnknown:
		return names[0]
	case t.IsVector():
		return names[t.Element()] + "Vector"
	case t.Valid():
		return names[t]
	}
	return "DataType(" + strconv.Itoa(int(t)) + ")"
}

// Compression is the 3-bit compression type of a PSDB header.
type Compression uint8

// Compression types.
const (
	CompressionNone Compression = 0
	CompressionZstd Compression = 1
)

// String returns "none", "zstd" or "Compression(n)".
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionZstd:
		return "zstd"
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}
