package pgarrow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/serbench/serbench/pgarrow"
)

// pconns opens n connections wrapped in Conns.
func pconns(t *testing.T, n int, opts pgarrow.Options) []*pgarrow.Conn {
	t.Helper()
	cs := make([]*pgarrow.Conn, n)
	for i := range cs {
		c, err := pgarrow.NewConn(connect(t).PgConn(), opts)
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
	}
	return cs
}

// readIDs reads a ParallelReader whose first column is a nullable int8 and
// returns how often each id was seen, the NULL count and the batches per
// partition.
func readIDs(t *testing.T, p *pgarrow.ParallelReader) (seen map[int64]int, nulls int, perPart map[int]int) {
	t.Helper()
	defer p.Release()
	seen, perPart = map[int64]int{}, map[int]int{}
	for p.Next() {
		perPart[p.Partition()]++
		ids := p.RecordBatch().Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			if ids.IsNull(i) {
				nulls++
				continue
			}
			seen[ids.Value(i)]++
		}
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	return seen, nulls, perPart
}

func setupPartitioned(t *testing.T) {
	t.Helper()
	conn := connect(t)
	exec(t, conn, "DROP TABLE IF EXISTS par_t",
		"CREATE TABLE par_t (id int8, v text)",
		"INSERT INTO par_t SELECT CASE WHEN i % 100 = 0 THEN NULL ELSE i END, 'v' || i FROM generate_series(1, 20000) i",
		"ANALYZE par_t")
}

// TestParallelPartitions reads one table over several connections, split
// by key ranges and by block ranges: every row exactly once.
func TestParallelPartitions(t *testing.T) {
	setupPartitioned(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		parts int
		split func(c *pgarrow.Conn, n int) ([]string, error)
	}{
		{"key/4", 4, func(c *pgarrow.Conn, n int) ([]string, error) {
			return pgarrow.KeyRanges(ctx, c, "SELECT id, v FROM par_t;", "id", n)
		}},
		{"key/1", 1, func(c *pgarrow.Conn, n int) ([]string, error) {
			return pgarrow.KeyRanges(ctx, c, "SELECT id, v FROM par_t", "id", n)
		}},
		{"key-args/3", 3, func(c *pgarrow.Conn, n int) ([]string, error) {
			return pgarrow.KeyRanges(ctx, c, "SELECT id, v FROM par_t WHERE id IS NULL OR id > $1", "id", n, 0)
		}},
		{"blocks/3", 3, func(c *pgarrow.Conn, n int) ([]string, error) {
			return pgarrow.BlockRanges(ctx, c, "par_t", "id, v", "", n)
		}},
		{"blocks-where/2", 2, func(c *pgarrow.Conn, n int) ([]string, error) {
			return pgarrow.BlockRanges(ctx, c, "par_t", "id, v", "true -- comment", n)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := pconns(t, tc.parts, pgarrow.Options{BatchSize: 1000})
			qs, err := tc.split(cs[0], tc.parts)
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != tc.parts {
				t.Fatalf("%d queries, want %d: %q", len(qs), tc.parts, qs)
			}
			var args []any
			if strings.Contains(qs[0], "$1") {
				args = []any{0}
			}
			p, err := pgarrow.ParallelQuery(ctx, cs, qs, args...)
			if err != nil {
				t.Fatal(err)
			}
			seen, nulls, perPart := readIDs(t, p)
			if nulls != 200 || len(seen) != 19800 {
				t.Fatalf("%d ids and %d NULLs, want 19800 and 200", len(seen), nulls)
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("id %d read %d times", id, n)
				}
			}
			if len(perPart) != tc.parts {
				t.Errorf("batches per partition %v, want %d partitions", perPart, tc.parts)
			}
			// The connections are usable again.
			for _, c := range cs {
				r, err := c.Query(ctx, "SELECT 1")
				if err != nil {
					t.Fatal(err)
				}
				r.Release()
			}
		})
	}
}

// TestParallelEmpty splits an empty result.
func TestParallelEmpty(t *testing.T) {
	setupPartitioned(t)
	ctx := context.Background()
	cs := pconns(t, 1, pgarrow.Options{})
	qs, err := pgarrow.KeyRanges(ctx, cs[0], "SELECT id FROM par_t WHERE false", "id", 4)
	if err != nil || len(qs) != 1 {
		t.Fatalf("qs=%q err=%v", qs, err)
	}
	p, err := pgarrow.ParallelQuery(ctx, cs, qs)
	if err != nil {
		t.Fatal(err)
	}
	if seen, nulls, _ := readIDs(t, p); len(seen) != 0 || nulls != 0 {
		t.Fatalf("rows from an empty result")
	}
}

// TestParallelError fails one partition: the error is reported, the other
// partitions stop and every connection stays usable.
func TestParallelError(t *testing.T) {
	ctx := context.Background()
	cs := pconns(t, 3, pgarrow.Options{BatchSize: 100})
	qs := []string{
		"SELECT i::int8 AS v FROM generate_series(1, 10000000) i",
		"SELECT (1/(i-5000))::int8 AS v FROM generate_series(1, 10000) i",
		"SELECT i::int8 AS v FROM generate_series(1, 10000000) i",
	}
	p, err := pgarrow.ParallelQuery(ctx, cs, qs)
	if err != nil {
		t.Fatal(err)
	}
	for p.Next() {
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "partition 1") || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("err = %v, want partition 1's division by zero", err)
	}
	p.Release()
	for i, c := range cs {
		r, err := c.Query(ctx, "SELECT 1")
		if err != nil {
			t.Fatalf("connection %d after the error: %v", i, err)
		}
		r.Release()
	}
	// Mismatched schemas are refused.
	if _, err := pgarrow.ParallelQuery(ctx, cs[:2], []string{"SELECT 1::int8", "SELECT 'x'::text"}); err == nil {
		t.Fatal("mismatched schemas accepted")
	}
}

// TestReadAhead reads in order through ReadAhead, and releases early, also
// inside a transaction.
func TestReadAhead(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 1000})
	r, err := c.Query(ctx, "SELECT i::int8 FROM generate_series(1, 100000) i")
	if err != nil {
		t.Fatal(err)
	}
	p := pgarrow.ReadAhead(r)
	next := int64(1)
	for p.Next() {
		ids := p.RecordBatch().Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			if ids.Value(i) != next {
				t.Fatalf("got %d, want %d", ids.Value(i), next)
			}
			next++
		}
	}
	if err := p.Err(); err != nil || next != 100001 {
		t.Fatalf("next=%d err=%v", next, err)
	}
	p.Release()

	exec(t, conn, "DROP TABLE IF EXISTS ra_t", "CREATE TABLE ra_t (i int)")
	for _, inTx := range []bool{false, true} {
		if inTx {
			exec(t, conn, "BEGIN", "INSERT INTO ra_t VALUES (1)")
		}
		r, err := c.Query(ctx, "SELECT i::int8 FROM generate_series(1, 300000) i")
		if err != nil {
			t.Fatal(err)
		}
		p := pgarrow.ReadAhead(r)
		if !p.Next() {
			t.Fatal(p.Err())
		}
		p.Release()
		if inTx {
			exec(t, conn, "INSERT INTO ra_t VALUES (2)", "COMMIT")
			if n := scalar(t, conn, "SELECT count(*) FROM ra_t"); n != 2 {
				t.Fatalf("%d rows committed, want 2", n)
			}
		}
		if n := scalar(t, conn, "SELECT 7"); n != 7 {
			t.Fatal("connection unusable")
		}
	}
}

// TestSharedSnapshot checks that partitions read in a shared snapshot do
// not see rows committed meanwhile.
func TestSharedSnapshot(t *testing.T) {
	setupPartitioned(t)
	ctx := context.Background()
	writer := connect(t)
	var cs []*pgarrow.Conn
	var pgxs []*pgx.Conn
	for range 3 {
		conn := connect(t)
		c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		cs, pgxs = append(cs, c), append(pgxs, conn)
	}
	if err := pgarrow.SharedSnapshot(ctx, cs); err != nil {
		t.Fatal(err)
	}
	exec(t, writer, "INSERT INTO par_t SELECT i, 'late' FROM generate_series(100001, 100500) i")
	qs, err := pgarrow.KeyRanges(ctx, cs[0], "SELECT id, v FROM par_t", "id", 3)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pgarrow.ParallelQuery(ctx, cs, qs)
	if err != nil {
		t.Fatal(err)
	}
	seen, nulls, _ := readIDs(t, p)
	if len(seen) != 19800 || nulls != 200 {
		t.Fatalf("%d ids, %d NULLs: want the 19800 and 200 of the snapshot", len(seen), nulls)
	}
	for i, conn := range pgxs {
		if n := scalar(t, conn, "SELECT count(*) FROM par_t"); n != 20000 {
			t.Errorf("connection %d sees %d rows in its snapshot, want 20000", i, n)
		}
		exec(t, conn, "COMMIT")
	}
	if n := scalar(t, pgxs[0], "SELECT count(*) FROM par_t"); n != 20500 {
		t.Errorf("after COMMIT: %d rows, want 20500", n)
	}
}

// TestParallelZeroColumns reads queries with no columns through
// ParallelQuery (BlockRanges of a table without columns, and explicit
// queries) and ReadAhead: every row arrives, in batches with an empty
// schema.
func TestParallelZeroColumns(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn, "DROP TABLE IF EXISTS par_zc", "CREATE TABLE par_zc ()",
		"INSERT INTO par_zc SELECT FROM generate_series(1, 2000)", "ANALYZE par_zc")
	count := func(t *testing.T, p *pgarrow.ParallelReader) int64 {
		t.Helper()
		defer p.Release()
		if n := p.Schema().NumFields(); n != 0 {
			t.Errorf("schema has %d fields, want 0", n)
		}
		var rows int64
		for p.Next() {
			rec := p.RecordBatch()
			if rec.NumCols() != 0 || rec.NumRows() > 300 {
				t.Errorf("batch of %d columns, %d rows", rec.NumCols(), rec.NumRows())
			}
			rows += rec.NumRows()
		}
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		if rows != p.Rows() {
			t.Errorf("Rows() = %d, counted %d", p.Rows(), rows)
		}
		return rows
	}
	t.Run("block-ranges", func(t *testing.T) {
		cs := pconns(t, 3, pgarrow.Options{BatchSize: 300})
		qs, err := pgarrow.BlockRanges(ctx, cs[0], "par_zc", "", "", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) < 2 {
			t.Fatalf("%d block ranges, want several: %q", len(qs), qs)
		}
		p, err := pgarrow.ParallelQuery(ctx, cs[:len(qs)], qs)
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, p); n != 2000 {
			t.Fatalf("%d rows, want 2000", n)
		}
	})
	t.Run("queries", func(t *testing.T) {
		cs := pconns(t, 2, pgarrow.Options{BatchSize: 300})
		p, err := pgarrow.ParallelQuery(ctx, cs, []string{"SELECT FROM generate_series(1, 1000)", "SELECT FROM generate_series(1, 0)"})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, p); n != 1000 {
			t.Fatalf("%d rows, want 1000", n)
		}
	})
	t.Run("read-ahead", func(t *testing.T) {
		c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 300})
		r, err := c.Copy(ctx, "SELECT FROM par_zc")
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, pgarrow.ReadAhead(r)); n != 2000 {
			t.Fatalf("%d rows, want 2000", n)
		}
	})
}
