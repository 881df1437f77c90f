package pgarrow_test

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/pgserver/replay"
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

func report(b *testing.B, rows int, cpu cpuMark) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(0, "ns/op")
	client, server := cpu.since()
	total := float64(rows) * float64(b.N)
	if total > 0 {
		b.ReportMetric(client/total*1e9, "client-ns/row")
		if server >= 0 {
			b.ReportMetric(server/total*1e9, "server-ns/row")
		}
	}
}

// cpuMark is the CPU time used so far by this process and by the server.
type cpuMark struct{ client, server float64 }

func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func startCPU(b *testing.B) cpuMark {
	srv, err := needServer(b).CPUSeconds()
	if err != nil {
		srv = -1
	}
	return cpuMark{client: processCPU(), server: srv}
}

// since returns the client and server CPU seconds since m (server < 0 when
// unknown).
func (m cpuMark) since() (client, srv float64) {
	client = processCPU() - m.client
	srv = -1
	if s, err := server.CPUSeconds(); err == nil && m.server >= 0 {
		srv = s - m.server
	}
	return client, srv
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
	cpu := startCPU(b)
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
	report(b, n, cpu)
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
	cpu := startCPU(b)
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
	report(b, n, cpu)
}

// BenchmarkPgxScan is pgx's usual Scan into Go values.
func BenchmarkPgxScan(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU(b)
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
	report(b, n, cpu)
}

// BenchmarkCopyDiscard is the ceiling of the wire: the binary COPY stream
// received and thrown away, nothing parsed.
func BenchmarkCopyDiscard(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ResetTimer()
	cpu := startCPU(b)
	for b.Loop() {
		if _, err := conn.PgConn().CopyTo(ctx, io.Discard, "COPY ("+benchQuery+") TO STDOUT (FORMAT binary)"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, n, cpu)
}

// BenchmarkServerCeiling measures how fast the backend alone produces the
// rows (evaluated and counted on the server, nothing sent).
func BenchmarkServerCeiling(b *testing.B) {
	n := benchRows(b)
	conn := benchConn(b, n)
	ctx := context.Background()
	b.ResetTimer()
	cpu := startCPU(b)
	for b.Loop() {
		var cnt int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT id, score, active, name, created_date, length(name) FROM performance_test OFFSET 0) s").Scan(&cnt); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, n, cpu)
}

type pgtypeDate = pgtype.Date

func memStats() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// benchReader reads performance_test through open, touching every value
// of the batches when touch is set (the caller's work that ReadAhead and
// ParallelQuery overlap with reading).
func benchReader(b *testing.B, touch bool, open func(ctx context.Context, n int) (array.RecordReader, error)) {
	n := benchRows(b)
	benchConn(b, n)
	ctx := context.Background()
	ms0 := memStats()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU(b)
	var sink int64
	for b.Loop() {
		r, err := open(ctx, n)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rec := r.RecordBatch()
			rows += int(rec.NumRows())
			if touch {
				ids := rec.Column(0).(*array.Int64)
				names := rec.Column(3).(*array.String)
				for i := 0; i < ids.Len(); i++ {
					sink += ids.Value(i) + int64(len(names.Value(i)))
				}
			}
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
	report(b, n, cpu)
	b.ReportMetric(float64(memStats()-ms0)/float64(b.N)/float64(max(n, 1)), "B/row")
	_ = sink
}

// openSelect returns an opener of Conn.Query on a new connection,
// optionally through ReadAhead.
func openSelect(b *testing.B, readAhead bool) func(ctx context.Context, n int) (array.RecordReader, error) {
	c, err := pgarrow.NewConn(connect(b).PgConn(), pgarrow.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context, n int) (array.RecordReader, error) {
		r, err := c.Query(ctx, benchQuery)
		if err != nil || !readAhead {
			return r, err
		}
		return pgarrow.ReadAhead(r), nil
	}
}

// openParallel returns an opener of ParallelQuery over parts connections,
// split by key (id) or block ranges.
func openParallel(b *testing.B, parts int, blocks bool) func(ctx context.Context, n int) (array.RecordReader, error) {
	cs := make([]*pgarrow.Conn, parts)
	for i := range cs {
		c, err := pgarrow.NewConn(connect(b).PgConn(), pgarrow.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cs[i] = c
	}
	return func(ctx context.Context, n int) (array.RecordReader, error) {
		var qs []string
		var err error
		if blocks {
			qs, err = pgarrow.BlockRanges(ctx, cs[0], "performance_test", "id, score, active, name, created_date", "", parts)
		} else {
			qs, err = pgarrow.KeyRanges(ctx, cs[0], benchQuery, "id", parts)
		}
		if err != nil {
			return nil, err
		}
		return pgarrow.ParallelQuery(ctx, cs, qs)
	}
}

// BenchmarkSelectTouch is BenchmarkSelect with the caller reading every
// id and name.
func BenchmarkSelectTouch(b *testing.B) { benchReader(b, true, openSelect(b, false)) }

// BenchmarkReadAhead is BenchmarkSelect through ReadAhead.
func BenchmarkReadAhead(b *testing.B) { benchReader(b, false, openSelect(b, true)) }

// BenchmarkReadAheadTouch is BenchmarkSelectTouch through ReadAhead.
func BenchmarkReadAheadTouch(b *testing.B) { benchReader(b, true, openSelect(b, true)) }

// BenchmarkParallelKeys2 reads performance_test over 2 connections split
// on id.
func BenchmarkParallelKeys2(b *testing.B) { benchReader(b, false, openParallel(b, 2, false)) }

// BenchmarkParallelBlocks2 reads performance_test over 2 connections split
// by ctid block ranges.
func BenchmarkParallelBlocks2(b *testing.B) { benchReader(b, false, openParallel(b, 2, true)) }

// replayServer records one read of performance_test by pgarrow (Query, or
// Copy with copyMode) from the real server and serves it in a loop from
// an in-process fake server, so that the benchmark measures the client
// alone: no backend competes for the CPU, the wire runs at memory speed.
func replayServer(b *testing.B, n int, copyMode bool) *replay.Server {
	s := needServer(b)
	benchConn(b, n)
	ctx := context.Background()
	rec, err := replay.Record(s.SocketPath())
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	pg, err := pgconn.Connect(ctx, rec.ConnString(s.Superuser(), "postgres"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := pgarrow.NewConn(pg, pgarrow.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var r *pgarrow.RecordReader
	if copyMode {
		r, err = c.Copy(ctx, benchQuery)
	} else {
		r, err = c.Query(ctx, benchQuery)
	}
	if err != nil {
		b.Fatal(err)
	}
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	r.Release()
	_ = pg.Close(ctx)
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	tr, err := rec.Transcript()
	if err != nil {
		b.Fatal(err)
	}
	srv, err := replay.Serve(tr, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	return srv
}

func benchReplay(b *testing.B, copyMode bool, opts pgarrow.Options) {
	benchReplayWith(b, copyMode, false, opts)
}

func benchReplayWith(b *testing.B, copyMode, readAhead bool, opts pgarrow.Options) {
	n := benchRows(b)
	srv := replayServer(b, n, copyMode)
	ctx := context.Background()
	pg, err := pgconn.Connect(ctx, srv.DSN())
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close(ctx)
	c, err := pgarrow.NewConn(pg, opts)
	if err != nil {
		b.Fatal(err)
	}
	ms0 := memStats()
	b.ReportAllocs()
	b.ResetTimer()
	client0 := processCPU()
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
		var rr array.RecordReader = r
		if readAhead {
			rr = pgarrow.ReadAhead(r)
		}
		rows := 0
		for rr.Next() {
			rows += int(rr.RecordBatch().NumRows())
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
		if rows != n {
			b.Fatalf("%d rows, want %d", rows, n)
		}
	}
	b.StopTimer()
	total := float64(n) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(0, "ns/op")
	// The fake server runs in this process: its (small) CPU is included.
	b.ReportMetric((processCPU()-client0)/total*1e9, "client-ns/row")
	b.ReportMetric(float64(memStats()-ms0)/total, "B/row")
}

// BenchmarkSelectReplay decodes a recorded SELECT of performance_test
// replayed at memory speed: pgarrow's decoding alone.
func BenchmarkSelectReplay(b *testing.B) { benchReplay(b, false, pgarrow.Options{}) }

// BenchmarkSelectReplayRecycle is BenchmarkSelectReplay with
// Options.Recycle.
func BenchmarkSelectReplayRecycle(b *testing.B) {
	benchReplay(b, false, pgarrow.Options{Recycle: true})
}

// BenchmarkReadAheadReplay is BenchmarkSelectReplay through ReadAhead.
func BenchmarkReadAheadReplay(b *testing.B) { benchReplayWith(b, false, true, pgarrow.Options{}) }

// BenchmarkCopyReplay decodes a recorded binary COPY of performance_test
// replayed at memory speed.
func BenchmarkCopyReplay(b *testing.B) { benchReplay(b, true, pgarrow.Options{}) }

// BenchmarkCopyReplayRecycle is BenchmarkCopyReplay with Options.Recycle.
func BenchmarkCopyReplayRecycle(b *testing.B) { benchReplay(b, true, pgarrow.Options{Recycle: true}) }

// BenchmarkSmallQuery measures the latency of a one-row query: the
// describe round trip that precedes every execution shows here.
func BenchmarkSmallQuery(b *testing.B) {
	conn := connect(b)
	c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Query(ctx, "SELECT 1::int8 AS one, 'x'::text AS s")
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
}
