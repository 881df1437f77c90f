package pgarrow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchSize is the number of rows per record batch when
// Options.BatchSize is zero. 65,536 rows keeps a batch of a typical narrow
// table at a few megabytes — large enough to amortise per-batch costs, small
// enough to stay in cache-friendly, bounded memory.
const DefaultBatchSize = 65536

// Field metadata keys set on every field of the schema.
const (
	// MetaType is the metadata key holding the PostgreSQL type name
	// (pg_type.typname, e.g. "int8", "timestamptz", "_text" for text[]).
	MetaType = "pg.type"
	// MetaOID is the metadata key holding the PostgreSQL type OID in decimal.
	MetaOID = "pg.oid"
)

// Policy says what to do with a value the Arrow column type cannot hold.
type Policy int

const (
	// PolicyError fails the read with an error naming the column (default).
	PolicyError Policy = iota
	// PolicyNull stores a null instead.
	PolicyNull
	// PolicyClamp stores the nearest representable value: ±infinity and
	// out-of-range dates/timestamps/intervals become the minimum or maximum
	// of the Arrow type, numeric ±Infinity and too-large numerics the largest
	// magnitude the decimal precision allows. NaN cannot be clamped;
	// PolicyClamp for Options.NumericNaN is treated as PolicyError.
	PolicyClamp
)

// String returns the policy's name: "error", "null" or "clamp".
func (p Policy) String() string {
	switch p {
	case PolicyError:
		return "error"
	case PolicyNull:
		return "null"
	case PolicyClamp:
		return "clamp"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// NumericMode selects the Arrow type of numeric columns.
type NumericMode int

const (
	// NumericAuto maps numeric(p,s) with p ≤ 38 to decimal128(p,s) and every
	// other numeric (no typmod, or p > 38) to its exact text form (default).
	NumericAuto NumericMode = iota
	// NumericString maps every numeric to its exact text form.
	NumericString
	// NumericDecimal maps every numeric to decimal128(DecimalPrecision,
	// DecimalScale). Values with more fractional digits than DecimalScale
	// or more digits than DecimalPrecision are out of range (see OutOfRange).
	NumericDecimal
)

// Options configure a Conn. The zero value is ready to use.
type Options struct {
	// BatchSize is the number of rows per record batch (default
	// DefaultBatchSize). Memory use is about one batch.
	BatchSize int
	// Allocator allocates all Arrow buffers when set; releasing a record
	// frees its buffers to it.
	//
	// By default (nil), values taken from a record stay valid after the
	// record is released, as a Go programmer expects: the columns whose
	// Value returns a view of the record's memory — strings, binary, uuid
	// and lists — are allocated from memory.DefaultAllocator and left to
	// the garbage collector, while the buffers of the other columns
	// (numbers, booleans, dates, times, decimals, intervals: Value returns
	// a copy) are recycled into the next batch by an allocator owned by
	// the Conn. Only raw buffer slices (Int64Values,
	// ValueOffsets, …) kept past Release see reused memory; that breaks
	// Arrow's rule anyway.
	Allocator memory.Allocator
	// Recycle, when Allocator is nil, recycles the buffers of every column,
	// strings and binary included, so a long read allocates about one batch
	// in all and the garbage collector has almost nothing to do. The price:
	// a string or []byte taken from a record (Value returns a view of the
	// record's buffers, without copying) changes once the record is
	// released — by the next call to Next unless it was Retained. Copy what
	// you keep (strings.Clone) or leave Recycle off.
	Recycle bool
	// OutOfRange handles ±infinity and values outside the range of the
	// Arrow type (default PolicyError).
	OutOfRange Policy
	// NumericNaN handles numeric NaN in decimal columns (default
	// PolicyError). In text-form numeric columns NaN is kept as "NaN",
	// which is exact.
	NumericNaN Policy
	// Numeric selects the Arrow type of numeric columns.
	Numeric NumericMode
	// DecimalPrecision and DecimalScale are the decimal128 parameters for
	// NumericDecimal (precision 1..38, 0 ≤ scale ≤ precision).
	DecimalPrecision, DecimalScale int32
}

func (o Options) normalize() (Options, error) {
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.OutOfRange < PolicyError || o.OutOfRange > PolicyClamp {
		return o, fmt.Errorf("pgarrow: invalid OutOfRange policy %v", o.OutOfRange)
	}
	if o.NumericNaN < PolicyError || o.NumericNaN > PolicyClamp {
		return o, fmt.Errorf("pgarrow: invalid NumericNaN policy %v", o.NumericNaN)
	}
	switch o.Numeric {
	case NumericAuto, NumericString:
	case NumericDecimal:
		if o.DecimalPrecision < 1 || o.DecimalPrecision > 38 || o.DecimalScale < 0 || o.DecimalScale > o.DecimalPrecision {
			return o, fmt.Errorf("pgarrow: invalid decimal precision/scale %d/%d (want 1 ≤ precision ≤ 38, 0 ≤ scale ≤ precision)", o.DecimalPrecision, o.DecimalScale)
		}
	default:
		return o, fmt.Errorf("pgarrow: invalid NumericMode %d", o.Numeric)
	}
	return o, nil
}
