package pgarrow_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/pgserver"
)

// readAll reads r to the end and returns the number of rows and batches.
func readAll(t *testing.T, r *pgarrow.RecordReader) (rows, batches int, err error) {
	t.Helper()
	defer r.Release()
	for r.Next() {
		rows += int(r.RecordBatch().NumRows())
		batches++
	}
	return rows, batches, r.Err()
}

type method struct {
	name string
	run  func(c *pgarrow.Conn, ctx context.Context, q string) (*pgarrow.RecordReader, error)
}

var methods = []method{
	{"select", func(c *pgarrow.Conn, ctx context.Context, q string) (*pgarrow.RecordReader, error) {
		return c.Query(ctx, q)
	}},
	{"copy", func(c *pgarrow.Conn, ctx context.Context, q string) (*pgarrow.RecordReader, error) {
		return c.Copy(ctx, q)
	}},
}

func TestOutOfRange(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	cases := []struct {
		expr    string
		opts    pgarrow.Options
		wantErr string // empty: no error
		want    string // pgText of the value, "NULL" for null
	}{
		{"'infinity'::timestamptz AS created", pgarrow.Options{}, `pgarrow: column "created" (timestamptz): value infinity out of range`, ""},
		{"'-infinity'::timestamp AS ts", pgarrow.Options{}, `column "ts" (timestamp): value -infinity out of range`, ""},
		{"'294276-12-31 23:59:59'::timestamp AS ts", pgarrow.Options{}, `column "ts" (timestamp): value`, ""},
		{"'infinity'::date AS d", pgarrow.Options{}, `column "d" (date): value infinity out of range`, ""},
		{"'24:00:00'::time AS t", pgarrow.Options{}, `column "t" (time): value 24:00:00 out of range`, ""},
		{"'24:00:00'::time AS t", pgarrow.Options{OutOfRange: pgarrow.PolicyNull}, "", "NULL"},
		{"'24:00:00'::time AS t", pgarrow.Options{OutOfRange: pgarrow.PolicyClamp}, "", "23:59:59.999999"},
		{"'{24:00:00}'::time[] AS t", pgarrow.Options{}, `column "t" (_time): element 1: value 24:00:00 out of range`, ""},
		{"'infinity'::date AS d", pgarrow.Options{OutOfRange: pgarrow.PolicyNull}, "", "NULL"},
		{"'-infinity'::date AS d", pgarrow.Options{OutOfRange: pgarrow.PolicyClamp}, "", "5877642-06-23 BC"},
		{"'infinity'::timestamp AS ts", pgarrow.Options{OutOfRange: pgarrow.PolicyClamp}, "", "294247-01-10 04:00:54.775807"},
		{"'infinity'::timestamptz AS ts", pgarrow.Options{OutOfRange: pgarrow.PolicyNull}, "", "NULL"},
		{"'10000000 hours'::interval AS i", pgarrow.Options{}, `column "i" (interval): value`, ""},
		{"'10000000 hours'::interval AS i", pgarrow.Options{OutOfRange: pgarrow.PolicyNull}, "", "NULL"},
		{"'NaN'::numeric(10,2) AS n", pgarrow.Options{}, `column "n" (numeric): value NaN cannot be stored`, ""},
		{"'NaN'::numeric(10,2) AS n", pgarrow.Options{NumericNaN: pgarrow.PolicyNull}, "", "NULL"},
		{"'Infinity'::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 5, DecimalScale: 1}, `column "n" (numeric): value Infinity`, ""},
		{"'-Infinity'::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 5, DecimalScale: 1, OutOfRange: pgarrow.PolicyClamp}, "", "-9999.9"},
		{"123456::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 5, DecimalScale: 1}, `value 123456 (decimal128(5,1)) out of range`, ""},
		{"1.25::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 5, DecimalScale: 1}, `value 1.25 has more than 1 fractional digits`, ""},
		{"1.20::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 5, DecimalScale: 1}, "", "1.2"},
		{"1e-20::numeric AS n", pgarrow.Options{Numeric: pgarrow.NumericDecimal, DecimalPrecision: 38, DecimalScale: 20}, "", "0.00000000000000000001"},
		{"1.5::numeric(10,2) AS n", pgarrow.Options{Numeric: pgarrow.NumericString}, "", "1.50"},
		{"'NaN'::numeric AS n", pgarrow.Options{}, "", "NaN"},
		{"'{{1,2},{3,4}}'::int[] AS a", pgarrow.Options{}, `column "a" (_int4): 2-dimensional array not supported`, ""},
		{"'[2:3]={1,2}'::int[] AS a", pgarrow.Options{}, `column "a" (_int4): array lower bound 2 not supported`, ""},
		{"'{infinity}'::date[] AS a", pgarrow.Options{}, `column "a" (_date): element 1: value infinity out of range`, ""},
	}
	for _, tc := range cases {
		for _, m := range methods {
			t.Run(tc.expr+"/"+m.name, func(t *testing.T) {
				c, err := pgarrow.NewConn(conn.PgConn(), tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				r, err := m.run(c, ctx, "SELECT "+tc.expr)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				var got []string
				for r.Next() {
					col := r.RecordBatch().Column(0)
					for i := 0; i < col.Len(); i++ {
						s, ok := pgText(col, i)
						if !ok {
							s = "NULL"
						}
						got = append(got, s)
					}
				}
				err = r.Err()
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
					}
				} else if err != nil {
					t.Fatal(err)
				} else if len(got) != 1 || got[0] != tc.want {
					t.Fatalf("got %q, want [%q]", got, tc.want)
				}
				// The connection stays usable after an error.
				var one int
				if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
					t.Fatalf("connection unusable afterwards: %v", err)
				}
			})
		}
	}
}

// TestBatchBoundaries checks row counts around the batch size, with a
// checked allocator to catch leaks.
func TestBatchBoundaries(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	const bs = 100
	for _, n := range []int{0, 1, bs - 1, bs, bs + 1, 2 * bs, 2*bs + 1} {
		for _, m := range methods {
			t.Run(m.name+"/"+itoa(n), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: bs, Allocator: mem})
				if err != nil {
					t.Fatal(err)
				}
				r, err := m.run(c, ctx, "SELECT i::int8 AS id, 'user_'||i AS name, CASE WHEN i%3=0 THEN NULL ELSE i END::float8 AS score FROM generate_series(1,"+itoa(n)+") i")
				if err != nil {
					t.Fatal(err)
				}
				if r.Schema().NumFields() != 3 {
					t.Errorf("schema has %d fields", r.Schema().NumFields())
				}
				var sum, nulls int64
				rows, batches := 0, 0
				for r.Next() {
					rec := r.RecordBatch()
					if rec.NumRows() > bs {
						t.Errorf("batch of %d rows > %d", rec.NumRows(), bs)
					}
					ids := rec.Column(0).(*array.Int64)
					for i := 0; i < ids.Len(); i++ {
						sum += ids.Value(i)
					}
					nulls += int64(rec.Column(2).NullN())
					rows += int(rec.NumRows())
					batches++
				}
				r.Release()
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				wantBatches := (n + bs - 1) / bs
				if rows != n || batches != wantBatches || sum != int64(n)*int64(n+1)/2 || nulls != int64(n/3) {
					t.Errorf("rows=%d batches=%d sum=%d nulls=%d; want %d, %d, %d, %d", rows, batches, sum, nulls, n, wantBatches, int64(n)*int64(n+1)/2, n/3)
				}
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestQueryArgs(t *testing.T) {
	conn := connect(t)
	c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(context.Background(), "SELECT i FROM generate_series($1::int, $2::int) i WHERE i <> ALL($3::int[]) AND $4::text = 'x'", 1, 10, []int32{2, 3}, "x")
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := readAll(t, r)
	if err != nil || rows != 8 {
		t.Fatalf("rows=%d err=%v, want 8 rows", rows, err)
	}
}

// TestEarlyRelease releases readers before the end of big results: the
// query is cancelled and the connection is usable right away.
func TestEarlyRelease(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	for _, m := range methods {
		c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r, err := m.run(c, ctx, "SELECT i, repeat('x', 100) FROM (SELECT generate_series(1, 100000000) AS i) s")
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("%s: no first batch: %v", m.name, r.Err())
		}
		r.Release()
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: early release took %v", m.name, d)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("%s: connection unusable after early release: %v", m.name, err)
		}
	}
}

// TestCancel cancels the context during a long query and checks that the
// backend stopped running it (pg_stat_activity), for both methods, with
// pgx's default context handling (which only closes the connection).
func TestCancel(t *testing.T) {
	s := needServer(t)
	ctx := context.Background()
	watcher := connect(t)
	for _, m := range methods {
		for _, q := range []string{"SELECT 1 FROM pg_sleep(60)", "SELECT i FROM generate_series(1, 2000000000) i WHERE i < 0"} {
			t.Run(m.name+"/"+q, func(t *testing.T) {
				conn, err := pgxConnectDefault(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				pid := conn.PgConn().PID()
				c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
				qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
				defer cancel()
				start := time.Now()
				r, err := m.run(c, qctx, q)
				if err == nil {
					_, _, err = readAll(t, r)
				}
				if err == nil {
					t.Fatal("no error after cancellation")
				}
				if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "cancel") {
					t.Errorf("error %v does not report the cancellation", err)
				}
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("cancellation took %v", d)
				}
				// The backend must not be running the query any more.
				deadline := time.Now().Add(5 * time.Second)
				for {
					var n int
					if err := watcher.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", int32(pid)).Scan(&n); err != nil {
						t.Fatal(err)
					}
					if n == 0 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("backend %d still active after cancellation", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			})
		}
	}
}

// TestServerKilled kills a private server's postmaster and backends during
// a big read: the reader must fail promptly, not hang.
func TestServerKilled(t *testing.T) {
	needServer(t)
	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := pgserver.Start(ctx, pgserver.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			conn, err := s.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 1000})
			r, err := m.run(c, ctx, "SELECT i, 'user_'||i FROM (SELECT generate_series(1, 1000000000) AS i) s")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			if !r.Next() {
				t.Fatalf("no first batch: %v", r.Err())
			}
			// kill -9 the postmaster and its backends.
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				for r.Next() {
				}
				done <- r.Err()
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("no error after the server was killed")
				}
				t.Logf("error after kill: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("reader hangs after the server was killed")
			}
		})
	}
}

func TestCopyErrors(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	if _, err := c.Copy(ctx, "SELECT nosuchcolumn"); err == nil || !strings.Contains(err.Error(), "nosuchcolumn") {
		t.Errorf("Copy of a bad query: err = %v", err)
	}
	// A runtime error in the middle of the COPY is reported.
	r, err := c.Copy(ctx, "SELECT 1/(i-5000) FROM generate_series(1,10000) i")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := readAll(t, r); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("err = %v, want division by zero", err)
	}
	r, err = c.Query(ctx, "SELECT 1/(i-5000) FROM generate_series(1,10000) i")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := readAll(t, r); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("err = %v, want division by zero", err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("connection unusable: %v", err)
	}
}
