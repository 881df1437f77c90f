package pgarrow_test

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/serbench/serbench/pgarrow"
)

// benchRows is the size of the performance_test table (env
// PGARROW_BENCH_ROWS, default 1,000,000).
func benchRows(b *testing.B) int {
	if s := os.Getenv("PGARROW_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			b.Fatalf("bad PGARROW_BENCH_ROWS %q", s)
		}
		return n
	}
	return 1_000_000
}

const benchQuery = "SELECT id, score, active, name, created_date FROM performance_test"

// benchConn connects and makes sure performance_test has n rows (the seed's
// table: id bigint, score double precision, active boolean, name text,
// created_date date).
func benchConn(b *testing.B, n int) *pgx.Conn {
	conn := connect(b)
	ctx := context.Background()
	var have int
	err := conn.QueryRow(ctx, "SELECT count(*) FROM performance_test").Scan(&have)
	if err != nil || have != n {
		for _, q := range []string{
			"DROP TABLE IF EXISTS performance_test",
			"CREATE TABLE performance_test (id bigint PRIMARY KEY, score double precision NOT NULL, active boolean NOT NULL, name text NOT NULL, created_date date NOT NULL)",
			"INSERT INTO performance_test SELECT i, i * 1.5, i % 2 = 0, 'user_' || i, date '2020-01-01' + i % 1000 FROM generate_series(1, " + strconv.Itoa(n) + ") i",
			"VACUUM ANALYZE performance_test",
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Warm the buffer cache.
	if _, err := conn.Exec(ctx, "SELECT count(*) FROM performance_test"); err != nil {
		b.Fatal(err)
	}
	return conn
}

func report(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(0, "ns/op")
}

func benchArrow(b *testing.B, copyMode bool, opts pgarrow.Options) {
	n := benchRows(b)
	conn := benchConn(b, n)
	c, err := pgarrow.NewConn(conn.PgConn(), opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ms0 := memStats()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var r *pgarrow.RecordReader
		if copyMode {
			r, err = c.Copy(ctx, benchQuery)
		} else {
			r, err = c.Query(ctx, benchQuery)
		}
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Release()
		if rows != n {
			b.Fatalf("%d rows, want %d", rows, n)
		}
	}
	b.StopTimer()
	report(b, n)
	b.ReportMetric(float64(memStats()-ms0)/float64(b.N)/float64(max(n, 1)), "B/row")
}

// BenchmarkSelect reads performance_test with pgarrow over SELECT.
func BenchmarkSelect(b *testing.B) { benchArrow(b, false, pgarrow.Options{}) }

// BenchmarkCopy reads performance_test with pgarrow over binary COPY.
func BenchmarkCopy(b *testing.B) { benchArrow(b, true, pgarrow.Options{}) }

// BenchmarkSelectRecycle is BenchmarkSelect with Options.Recycle.
func BenchmarkSelectRecycle(b *testing.B) { benchArrow(b, false, pgarrow.Options{Recycle: true}) }

// BenchmarkCopyRecycle is BenchmarkCopy with Options.Recycle.
func BenchmarkCopyRecycle(b *testing.B) { benchArrow(b, true, pgarrow.Options{Recycle: true}) }

// BenchmarkSelectBatch200k uses the seed's batch size of 200,000 rows.
func BenchmarkSelectBatch200k(b *testing.B) {
	benchArrow(b, false, pgarrow.Options{BatchSize: 200_000})
}

// BenchmarkPgxRawLoop is the non-Arrow baseline: pgx rows in binary,
// touching every raw value, no decoding.
func BenchmarkPgxRawLoop(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rows, err := conn.Query(ctx, benchQuery, pgx.QueryResultFormats{pgx.BinaryFormatCode})
		if err != nil {
			b.Fatal(err)
		}
		cnt, bytes := 0, 0
		for rows.Next() {
			for _, v := range rows.RawValues() {
				bytes += len(v)
			}
			cnt++
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		if cnt != n || bytes == 0 {
			b.Fatalf("%d rows, want %d", cnt, n)
		}
	}
	b.StopTimer()
	report(b, n)
}

// BenchmarkPgxScan is pgx's usual Scan into Go values.
func BenchmarkPgxScan(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rows, err := conn.Query(ctx, benchQuery)
		if err != nil {
			b.Fatal(err)
		}
		var (
			id     int64
			score  float64
			active bool
			name   string
			date   pgtypeDate
		)
		cnt := 0
		for rows.Next() {
			if err := rows.Scan(&id, &score, &active, &name, &date); err != nil {
				b.Fatal(err)
			}
			cnt++
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		if cnt != n {
			b.Fatalf("%d rows, want %d", cnt, n)
		}
	}
	b.StopTimer()
	report(b, n)
}

// BenchmarkCopyDiscard is the ceiling of the wire: the binary COPY stream
// received and thrown away, nothing parsed.
func BenchmarkCopyDiscard(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := conn.PgConn().CopyTo(ctx, io.Discard, "COPY ("+benchQuery+") TO STDOUT (FORMAT binary)"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, n)
}

// BenchmarkServerCeiling measures how fast the backend alone produces the
// rows (evaluated and counted on the server, nothing sent).
func BenchmarkServerCeiling(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		var cnt int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT id, score, active, name, created_date, length(name) FROM performance_test OFFSET 0) s").Scan(&cnt); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, n)
}

type pgtypeDate = pgtype.Date

func memStats() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}
