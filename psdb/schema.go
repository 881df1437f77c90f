package psdb

import (
	"fmt"
	"slices"
)

// Schema describes a feature group: its schema version, data type, number
// of features, and per feature the vector length (vector types) and the
// booked maximum string length (string types). A block stores none of this;
// the schema is needed to write strings and vectors, and to read strings
// and individual vectors. A Schema is immutable and safe for concurrent
// use.
type Schema struct {
	version  uint16
	dt       DataType
	n        int
	vecLens  []int // per feature; nil for scalar types
	vecOffs  []int // prefix sums of vecLens, len n+1; nil for scalar types
	maxStr   []int // per feature; nil for non-string types
	elements int   // total stored elements (features, or sum of vector lengths)
	vecLen   int   // every vector's length when all are equal, else -1
}

// NewSchema validates and returns a schema. For vector types,
// vectorLengths must have numFeatures entries (each ≥ 0); for other types
// it must be empty. For string types (String, StringVector),
// maxStringLengths must have numFeatures entries, each 0–65,535 (for a
// string vector, the maximum of every string of that feature's vector);
// for other types it must be empty. The slices are copied.
func NewSchema(version uint16, dt DataType, numFeatures int, vectorLengths, maxStringLengths []int) (*Schema, error) {
	if !dt.Valid() {
		return nil, fmt.Errorf("%w: %w: %d", ErrSchema, ErrDataType, dt)
	}
	if numFeatures < 0 {
		return nil, fmt.Errorf("%w: negative feature count %d", ErrSchema, numFeatures)
	}
	s := &Schema{version: version, dt: dt, n: numFeatures, elements: numFeatures}
	if dt.IsVector() {
		if len(vectorLengths) != numFeatures {
			return nil, fmt.Errorf("%w: %d vector lengths for %d features", ErrSchema, len(vectorLengths), numFeatures)
		}
		s.vecLens = append([]int(nil), vectorLengths...)
		s.vecOffs = make([]int, numFeatures+1)
		for i, l := range vectorLengths {
			if l < 0 || l > 1<<31-1 {
				return nil, fmt.Errorf("%w: vector length %d of feature %d", ErrSchema, l, i)
			}
			s.vecOffs[i+1] = s.vecOffs[i] + l
		}
		s.elements = s.vecOffs[numFeatures]
		s.vecLen = -1
		if numFeatures > 0 && s.elements == numFeatures*vectorLengths[0] && !slices.ContainsFunc(vectorLengths, func(l int) bool { return l != vectorLengths[0] }) {
			s.vecLen = vectorLengths[0]
		}
	} else if len(vectorLengths) != 0 {
		return nil, fmt.Errorf("%w: vector lengths given for scalar type %s", ErrSchema, dt)
	}
	if dt.IsString() {
		if len(maxStringLengths) != numFeatures {
			return nil, fmt.Errorf("%w: %d max string lengths for %d features", ErrSchema, len(maxStringLengths), numFeatures)
		}
		for i, l := range maxStringLengths {
			if l < 0 || l > maxStringLen {
				return nil, fmt.Errorf("%w: max string length %d of feature %d not in 0..%d", ErrSchema, l, i, maxStringLen)
			}
		}
		s.maxStr = append([]int(nil), maxStringLengths...)
	} else if len(maxStringLengths) != 0 {
		return nil, fmt.Errorf("%w: max string lengths given for non-string type %s", ErrSchema, dt)
	}
	return s, nil
}

// Version returns the schema version.
func (s *Schema) Version() uint16 { return s.version }

// DataType returns the feature group's data type.
func (s *Schema) DataType() DataType { return s.dt }

// NumFeatures returns the number of features.
func (s *Schema) NumFeatures() int { return s.n }

// Elements returns the number of stored values: the number of features
// for scalar types, the sum of the vector lengths for vector types.
func (s *Schema) Elements() int { return s.elements }

// VectorLength returns feature i's vector length (1 for scalar types) or
// an error wrapping ErrIndex.
func (s *Schema) VectorLength(i int) (int, error) {
	if i < 0 || i >= s.n {
		return 0, fmt.Errorf("%w: feature %d of %d", ErrIndex, i, s.n)
	}
	if s.vecLens == nil {
		return 1, nil
	}
	return s.vecLens[i], nil
}

// MaxStringLength returns feature i's booked maximum string length, or an
// error for a non-string schema or an index out of range.
func (s *Schema) MaxStringLength(i int) (int, error) {
	if i < 0 || i >= s.n {
		return 0, fmt.Errorf("%w: feature %d of %d", ErrIndex, i, s.n)
	}
	if s.maxStr == nil {
		return 0, fmt.Errorf("%w: %s has no string lengths", ErrTypeMismatch, s.dt)
	}
	return s.maxStr[i], nil
}

// Header returns a header for writing blocks of this schema with the
// given expiry.
func (s *Schema) Header(e Expiry) Header {
	return Header{SchemaVersion: s.version, Expiry: e, DataType: s.dt}
}

// span returns the flattened element range [start, start+n) of feature i.
func (s *Schema) span(i int) (start, n int, err error) {
	if i < 0 || i >= s.n {
		return 0, 0, fmt.Errorf("%w: feature %d of %d", ErrIndex, i, s.n)
	}
	if s.vecOffs == nil {
		return i, 1, nil
	}
	return s.vecOffs[i], s.vecLens[i], nil
}

// checkFor validates that s may be used to write or read type dt under
// header h.
func (s *Schema) checkFor(h Header, dt DataType) error {
	if s == nil {
		return fmt.Errorf("%w: %s needs a schema", ErrSchema, dt)
	}
	if s.dt != dt {
		return fmt.Errorf("%w: schema type %s, block type %s", ErrSchema, s.dt, dt)
	}
	if s.version != h.SchemaVersion {
		return fmt.Errorf("%w: schema version %d, header version %d", ErrSchema, s.version, h.SchemaVersion)
	}
	return nil
}
