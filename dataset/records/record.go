// Package records is the dataset of the records workload (seed 001): flat
// 8-field records, deterministic from a seed so that every machine generates
// identical bytes, produced one at a time or in chunks so that a million records
// never need to be held in memory at once.
//
// The package also holds the record's schemas and the code generated from them:
// MessagePack (tinylib/msgp) methods on Record in this package, FlatBuffers in
// subpackage fb, Protocol Buffers in subpackage pb, and the Avro schema in
// schema/record.avsc.
package records

//go:generate msgp -file record.go -o record_msgp.go -tests=false
//go:generate gofmt -w record_msgp.go

import (
	"fmt"
	"math"
)

// Record is one row of the records workload: the seed's TestRecord with the
// field names and struct tags every format subject uses.
type Record struct {
	ID        int64   `json:"id" msgpack:"id" msg:"id" cbor:"id" avro:"id" parquet:"id"`
	Name      string  `json:"name" msgpack:"name" msg:"name" cbor:"name" avro:"name" parquet:"name"`
	Email     string  `json:"email" msgpack:"email" msg:"email" cbor:"email" avro:"email" parquet:"email"`
	Age       int     `json:"age" msgpack:"age" msg:"age" cbor:"age" avro:"age" parquet:"age"`
	Score     float64 `json:"score" msgpack:"score" msg:"score" cbor:"score" avro:"score" parquet:"score"`
	Active    bool    `json:"active" msgpack:"active" msg:"active" cbor:"active" avro:"active" parquet:"active"`
	Category  string  `json:"category" msgpack:"category" msg:"category" cbor:"category" avro:"category" parquet:"category"`
	Timestamp int64   `json:"timestamp" msgpack:"timestamp" msg:"timestamp" cbor:"timestamp" avro:"timestamp" parquet:"timestamp"`
}

// Equal reports whether a and b are identical, comparing Score bit for bit.
func Equal(a, b *Record) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Email == b.Email && a.Age == b.Age &&
		math.Float64bits(a.Score) == math.Float64bits(b.Score) && a.Active == b.Active &&
		a.Category == b.Category && a.Timestamp == b.Timestamp
}

// Diff describes the first field in which got differs from want, or returns ""
// when they are Equal.
func Diff(got, want *Record) string {
	switch {
	case got.ID != want.ID:
		return fmt.Sprintf("ID %d, want %d", got.ID, want.ID)
	case got.Name != want.Name:
		return fmt.Sprintf("Name %q, want %q", got.Name, want.Name)
	case got.Email != want.Email:
		return fmt.Sprintf("Email %q, want %q", got.Email, want.Email)
	case got.Age != want.Age:
		return fmt.Sprintf("Age %d, want %d", got.Age, want.Age)
	case math.Float64bits(got.Score) != math.Float64bits(want.Score):
		return fmt.Sprintf("Score %v (bits %#x), want %v (bits %#x)", got.Score,
			math.Float64bits(got.Score), want.Score, math.Float64bits(want.Score))
	case got.Active != want.Active:
		return fmt.Sprintf("Active %t, want %t", got.Active, want.Active)
	case got.Category != want.Category:
		return fmt.Sprintf("Category %q, want %q", got.Category, want.Category)
	case got.Timestamp != want.Timestamp:
		return fmt.Sprintf("Timestamp %d, want %d", got.Timestamp, want.Timestamp)
	}
	return ""
}
