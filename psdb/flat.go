package psdb

import (
	"encoding/binary"
	"fmt"
)

// FlatValue is an element type AppendFlatVectors takes: the element types
// of the Append…Vectors functions.
type FlatValue interface {
	int32 | int64 | uint32 | uint64 | float32 | float64 | bool | string
}

// AppendFlatVectors appends a vector block of s's type from vals, the
// values of all its vectors flattened in feature order: the block's own
// layout, so no per-vector slices are read and the values are written as
// the scalar writer of the element type writes them. It is the
// Append…Vectors function of s's type for callers that hold the values in
// one slice, and writes the same bytes.
//
// s must describe a vector feature group of h's schema version, and
// len(vals) must be its total number of values (the sum of its vector
// lengths; an error wrapping ErrVectorLength otherwise). T must be the
// element type of that type's Append…Vectors function: int32 for Int8,
// Int16 and Int32 vectors, uint32 for Uint8, Uint16 and Uint32, float32
// for FP8E5M2, FP8E4M3 (rounded as AppendFP8E4M3s rounds), FP16 and FP32,
// and int64, uint64, float64, bool and string for the others (an error
// wrapping ErrTypeMismatch otherwise). Narrowed values must fit, and every
// string of feature i its booked maximum, as for those functions.
func AppendFlatVectors[T FlatValue](dst []byte, h Header, s *Schema, vals []T) ([]byte, error) {
	if s == nil || !s.dt.IsVector() {
		return dst, fmt.Errorf("%w: flat vectors need a vector schema", ErrSchema)
	}
	dt := s.dt
	if err := s.checkFor(h, dt); err != nil {
		return dst, err
	}
	if len(vals) != s.elements {
		return dst, fmt.Errorf("%w: %d values, schema says %d", ErrVectorLength, len(vals), s.elements)
	}
	switch v := any(vals).(type) {
	case []int32:
		switch dt {
		case TypeInt8Vector:
			return appendScalars(dst, h, dt, v, writeInt8)
		case TypeInt16Vector:
			return appendScalars(dst, h, dt, v, writeInt16)
		case TypeInt32Vector:
			return appendWords32(dst, h, dt, v)
		}
	case []uint32:
		switch dt {
		case TypeUint8Vector:
			return appendScalars(dst, h, dt, v, writeUint8)
		case TypeUint16Vector:
			return appendScalars(dst, h, dt, v, writeUint16)
		case TypeUint32Vector:
			return appendWords32(dst, h, dt, v)
		}
	case []float32:
		switch dt {
		case TypeFP8E5M2Vector:
			return appendScalars(dst, h, dt, v, writeE5M2)
		case TypeFP8E4M3Vector:
			return appendScalars(dst, h, dt, v, writeE4M3)
		case TypeFP16Vector:
			return appendScalars(dst, h, dt, v, writeFP16)
		case TypeFP32Vector:
			return appendWords32(dst, h, dt, v)
		}
	case []int64:
		if dt == TypeInt64Vector {
			return appendWords64(dst, h, dt, v)
		}
	case []uint64:
		if dt == TypeUint64Vector {
			return appendWords64(dst, h, dt, v)
		}
	case []float64:
		if dt == TypeFP64Vector {
			return appendWords64(dst, h, dt, v)
		}
	case []bool:
		if dt == TypeBoolVector {
			n := len(v)
			out, data, err := begin(dst, h, dt, (n+7)/8, boolPadding(n))
			if err != nil {
				return dst, err
			}
			if n&7 != 0 {
				data[len(data)-1] = 0 // the only byte packBools ORs into
			}
			packBools(data, 0, v)
			return out, nil
		}
	case []string:
		if dt == TypeStringVector {
			return appendFlatStrings(dst, h, s, v)
		}
	}
	return dst, fmt.Errorf("%w: cannot write %T as %s", ErrTypeMismatch, vals, dt)
}

// appendFlatStrings is AppendFlatVectors for a StringVector schema s
// (already checked against h, len(vals) = s.elements).
func appendFlatStrings(dst []byte, h Header, s *Schema, vals []string) ([]byte, error) {
	if (h.DataType == TypeUnknown || h.DataType == TypeStringVector) && uint64(h.Expiry) <= expiryMask {
		// One pass when dst has room (see AppendStringVectors).
		l := len(dst)
		if free := dst[l:cap(dst)]; len(free) >= headerLen+2*len(vals) {
			if size, ok := putFlatStrings(free[headerLen:], s, vals); ok {
				out := dst[:l+headerLen+size]
				putHeader(out[l:], h, TypeStringVector, CompressionNone, 0)
				return out, nil
			}
		}
	}
	size, k := 2*len(vals), 0
	for f, n := range s.vecLens {
		for i, v := range vals[k : k+n] {
			if err := checkString(s, f, i, v); err != nil {
				return dst, err
			}
			size += len(v)
		}
		k += n
	}
	out, data, err := begin(dst, h, TypeStringVector, size, 0)
	if err != nil {
		return dst, err
	}
	lp, bp := 0, 2*len(vals)
	putStrings(data, &lp, &bp, vals)
	return out, nil
}

// putFlatStrings is putStringVectors for the flattened strings of all
// vectors (len(vals) = s.elements).
func putFlatStrings(data []byte, s *Schema, vals []string) (int, bool) {
	e := len(vals)
	lens, rest := data[:2*e], data[2*e:]
	maxStr := s.maxStr[:len(s.vecLens)]
	k, p := 0, 0
	for f, n := range s.vecLens {
		m := maxStr[f] // ≤ 65,535 (NewSchema)
		for _, v := range vals[k : k+n] {
			if len(v) > m || len(v) > len(rest)-p {
				return 0, false
			}
			binary.LittleEndian.PutUint16(lens[2*k:], uint16(len(v)))
			k++
			p += copy(rest[p:], v)
		}
	}
	return 2*e + p, true
}
