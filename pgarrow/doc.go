// Package pgarrow reads PostgreSQL query results as Apache Arrow record
// batches.
//
// It talks to the server with pgx v5's pgconn in the binary protocol and
// decodes each raw binary value straight into Arrow builders: there is no
// pgx Scan, no per-row allocation, and memory stays bounded by about one
// batch whatever the size of the result. Two sources are supported:
//
//   - [Conn.Query]: any query with arguments, read with the extended query
//     protocol and binary result format.
//   - [Conn.Copy]: COPY (query) TO STDOUT (FORMAT binary), parsed
//     incrementally.
//
// Both describe the statement before running it, so it runs exactly once
// whatever its column types, and return a [*RecordReader], an
// array.RecordReader yielding records of Options.BatchSize rows (the last one
// may be shorter, and so may a batch whose string, binary or list column
// would pass the 2 GiB Arrow's 32-bit offsets address). As usual in Arrow,
// the record returned by Next is valid until the next call to Next; Retain it
// to keep it longer and Release the reader when done. Values taken from a
// record stay valid after it is released unless Options.Recycle is set.
//
// Only statements that return rows are read: one that returns none (INSERT
// without RETURNING, DDL, …) is refused before it runs. A query without
// columns (SELECT FROM t) does return rows: its records have an empty
// schema and NumRows counts its rows.
//
// # Parallel reads
//
// [ParallelQuery] reads one query split over several connections — by
// ranges of an integer key ([KeyRanges], as ConnectorX's partition_on) or
// by ranges of heap blocks ([BlockRanges], ctid ranges) — and delivers the
// batches of all partitions as they arrive, through a [ParallelReader].
// [SharedSnapshot] makes the partitions read one consistent snapshot.
// [ReadAhead] runs one reader on its own goroutine, so that the next batch
// is read and decoded while the caller works on the current one.
//
// # Type mapping
//
//	bool                          boolean
//	int2, int4, int8, oid         int16, int32, int64, uint32
//	float4, float8                float32, float64
//	numeric(p,s) with p ≤ 38      decimal128(p, s) (see NumericMode)
//	numeric otherwise             utf8, PostgreSQL text form
//	text, varchar, bpchar, name,
//	"char", json, jsonb, enums    utf8
//	bytea                         binary
//	date                          date32
//	time                          time64[µs]
//	timestamp                     timestamp[µs]
//	timestamptz                   timestamp[µs, tz=UTC]
//	interval                      month_day_nano_interval
//	uuid                          fixed_size_binary(16), tagged arrow.uuid
//	inet, cidr                    utf8, PostgreSQL text form
//	1-D arrays of the above       list<element type>
//	int2vector, oidvector         list<int16>, list<uint32>
//	anything else                 utf8, PostgreSQL text form
//
// Every field carries the PostgreSQL type name in its metadata under
// [MetaType] ("pg.type") and the type OID under [MetaOID] ("pg.oid"). Every
// column is nullable.
//
// Values an Arrow type cannot hold — ±infinity dates and timestamps, the
// time 24:00:00 (Arrow's times of day stop before midnight),
// timestamps past year 294246, intervals beyond ±292 years of
// microseconds-as-nanoseconds, numeric infinities or NaN in a decimal column —
// are never turned into a wrong value: by default they are an error naming
// the column, e.g.
//
//	pgarrow: column "created" (timestamptz): value infinity out of range
//
// Options.OutOfRange and Options.NumericNaN select null or clamping instead.
package pgarrow
