package pgarrow_test

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/serbench/serbench/pgarrow"
)

// exec runs statements on conn, failing the test on error.
func exec(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// scalar returns the single int8 value of query.
func scalar(t *testing.T, conn *pgx.Conn, query string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestExecutesOnce checks that a statement runs exactly once whatever its
// column types — enums, domains and text-fallback types included — on a
// fresh Conn, through the package-level Query and on a warm Conn meeting a
// new SQL text, with a sequence and with INSERT … RETURNING.
func TestExecutesOnce(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn,
		"DROP TABLE IF EXISTS once_t", "DROP TYPE IF EXISTS once_mood", "DROP DOMAIN IF EXISTS once_pos",
		"CREATE TYPE once_mood AS ENUM ('sad', 'ok')",
		"CREATE DOMAIN once_pos AS int8 CHECK (VALUE > 0)",
		"CREATE TABLE once_t (id serial, m once_mood)")
	type run func(c *pgarrow.Conn, q string) (*pgarrow.RecordReader, error)
	runs := []struct {
		name string
		run  run
	}{
		{"fresh-conn", func(_ *pgarrow.Conn, q string) (*pgarrow.RecordReader, error) {
			c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
			if err != nil {
				return nil, err
			}
			return c.Query(ctx, q)
		}},
		{"package-query", func(_ *pgarrow.Conn, q string) (*pgarrow.RecordReader, error) {
			return pgarrow.Query(ctx, conn.PgConn(), q)
		}},
		{"warm-conn", func(c *pgarrow.Conn, q string) (*pgarrow.RecordReader, error) {
			return c.Query(ctx, q)
		}},
		{"copy", func(c *pgarrow.Conn, q string) (*pgarrow.RecordReader, error) {
			return c.Copy(ctx, q)
		}},
	}
	cases := []struct {
		name   string
		query  string // runs once: bumps the sequence once_s or inserts one row
		noCopy bool
	}{
		{"macaddr", "SELECT nextval('once_s'), '08:00:2b:01:02:03'::macaddr", true},
		{"enum", "SELECT nextval('once_s'), 'sad'::once_mood", false},
		{"domain", "SELECT nextval('once_s')::once_pos", false},
		{"enum-array", "SELECT nextval('once_s'), ARRAY['ok'::once_mood]", false},
		{"insert-returning", "INSERT INTO once_t(m) VALUES ('sad') RETURNING m", true},
		{"insert-returning-text-fallback", "INSERT INTO once_t(m) VALUES ('ok') RETURNING m, point(1,2)", true},
	}
	for _, r := range runs {
		warm, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Warm the Conn with other statements first.
		rd, err := warm.Query(ctx, "SELECT 1::int8, 'x'::text")
		if err != nil {
			t.Fatal(err)
		}
		rd.Release()
		for _, tc := range cases {
			t.Run(r.name+"/"+tc.name, func(t *testing.T) {
				if r.name == "copy" && tc.noCopy {
					t.Skip("COPY of an INSERT or a text-only type is not possible")
				}
				exec(t, conn, "DROP SEQUENCE IF EXISTS once_s", "CREATE SEQUENCE once_s", "TRUNCATE once_t")
				rd, err := r.run(warm, tc.query)
				if err != nil {
					t.Fatal(err)
				}
				rows, _, err := readAll(t, rd)
				if err != nil || rows != 1 {
					t.Fatalf("rows=%d err=%v, want 1 row", rows, err)
				}
				if strings.Contains(tc.query, "INSERT") {
					if n := scalar(t, conn, "SELECT count(*) FROM once_t"); n != 1 {
						t.Fatalf("%d rows inserted, want 1", n)
					}
				} else if n := scalar(t, conn, "SELECT last_value FROM once_s"); n != 1 {
					t.Fatalf("sequence at %d, want 1: the statement ran %d times", n, n)
				}
			})
		}
	}
}

// TestNotAQuery checks that a statement without a result is refused before
// it runs.
func TestNotAQuery(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn, "DROP TABLE IF EXISTS naq", "CREATE TABLE naq AS SELECT 1 AS a")
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	for _, m := range methods {
		r, err := m.run(c, ctx, "DELETE FROM naq")
		if err == nil {
			r.Release()
			t.Errorf("%s: DELETE without RETURNING accepted", m.name)
		} else if !strings.Contains(err.Error(), "not a query") {
			t.Errorf("%s: err = %v", m.name, err)
		}
		if n := scalar(t, conn, "SELECT count(*) FROM naq"); n != 1 {
			t.Fatalf("%s: the DELETE ran", m.name)
		}
	}
}

// TestTrailingSemicolonComment checks that Copy accepts what Query does.
func TestTrailingSemicolonComment(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	for _, q := range []string{"SELECT 1 AS x;", "SELECT 1 AS x -- comment", "SELECT 1 AS x; -- comment\n", "SELECT 1 AS x /* c */ ;\n\n", "SELECT ';--' AS x;"} {
		for _, m := range methods {
			r, err := m.run(c, ctx, q)
			if err != nil {
				t.Errorf("%s %q: %v", m.name, q, err)
				continue
			}
			if rows, _, err := readAll(t, r); err != nil || rows != 1 {
				t.Errorf("%s %q: rows=%d err=%v", m.name, q, rows, err)
			}
		}
	}
}

// TestBusy checks that a second Query or Copy while a reader is open fails
// cleanly and that the connection works once the reader is released.
func TestBusy(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	const big = "SELECT i FROM generate_series(1, 1000000) i"
	for _, first := range methods {
		for _, second := range methods {
			t.Run(first.name+"/"+second.name, func(t *testing.T) {
				c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 100})
				r, err := first.run(c, ctx, big)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Next() {
					t.Fatal(r.Err())
				}
				if r2, err := second.run(c, ctx, "SELECT 1"); err == nil {
					r2.Release()
					t.Fatal("second reader opened while the first is open")
				} else if !errors.Is(err, pgarrow.ErrBusy) {
					t.Errorf("err = %v, want ErrBusy", err)
				}
				// Another Conn on the same PgConn is refused too.
				if r2, err := pgarrow.Query(ctx, conn.PgConn(), "SELECT 1"); !errors.Is(err, pgarrow.ErrBusy) {
					if err == nil {
						r2.Release()
					}
					t.Fatalf("package-level Query on a busy connection: err = %v", err)
				}
				if r2, err := pgarrow.Copy(ctx, conn.PgConn(), "SELECT 1"); !errors.Is(err, pgarrow.ErrBusy) {
					if err == nil {
						r2.Release()
					}
					t.Fatalf("package-level Copy on a busy connection: err = %v", err)
				}
				// The first reader is unharmed.
				if !r.Next() || r.RecordBatch().Column(0).(*array.Int32).Value(0) != 101 {
					t.Fatalf("first reader broken: %v", r.Err())
				}
				r.Release()
				r2, err := second.run(c, ctx, "SELECT 1")
				if err != nil {
					t.Fatalf("after Release: %v", err)
				}
				if rows, _, err := readAll(t, r2); err != nil || rows != 1 {
					t.Fatalf("after Release: rows=%d err=%v", rows, err)
				}
				// Read to the end, a reader frees the connection without Release.
				r3, err := first.run(c, ctx, "SELECT 1")
				if err != nil {
					t.Fatal(err)
				}
				for r3.Next() {
				}
				r4, err := second.run(c, ctx, "SELECT 2")
				if err != nil {
					t.Fatalf("after reading to the end: %v", err)
				}
				r4.Release()
				r3.Release()
			})
		}
	}
}

// TestReleaseInTransaction releases readers early and fails them inside a
// transaction, and looks types up inside one: the transaction must stay
// usable and commit everything.
func TestReleaseInTransaction(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn, "DROP TABLE IF EXISTS tx_t", "CREATE TABLE tx_t (i int)",
		"DROP TYPE IF EXISTS tx_mood", "CREATE TYPE tx_mood AS ENUM ('sad')")
	cases := []struct {
		name  string
		query string
		read  bool // read one batch, then release
	}{
		{"early-release", "SELECT i, repeat('x', 100) FROM generate_series(1, 300000) i", true},
		{"decode-error", "SELECT CASE WHEN i = 5000 THEN 'infinity'::date ELSE current_date END FROM generate_series(1, 10000) i", true},
		{"type-lookup", "SELECT 'sad'::tx_mood, i FROM generate_series(1, 3) i", true},
		{"text-fallback", "SELECT '08:00:2b:01:02:03'::macaddr, i FROM generate_series(1, 300000) i", true},
	}
	for _, tc := range cases {
		for _, m := range methods {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				if tc.name == "text-fallback" && m.name == "copy" {
					t.Skip("binary COPY cannot read macaddr")
				}
				exec(t, conn, "TRUNCATE tx_t", "BEGIN", "INSERT INTO tx_t VALUES (1)")
				c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 1000})
				r, err := m.run(c, ctx, tc.query)
				if err != nil {
					exec(t, conn, "ROLLBACK")
					t.Fatal(err)
				}
				for r.Next() {
					break
				}
				r.Release()
				if _, err := conn.Exec(ctx, "INSERT INTO tx_t VALUES (2)"); err != nil {
					exec(t, conn, "ROLLBACK")
					t.Fatalf("transaction unusable after Release: %v", err)
				}
				exec(t, conn, "COMMIT")
				if n := scalar(t, conn, "SELECT count(*) FROM tx_t"); n != 2 {
					t.Fatalf("%d rows committed, want 2", n)
				}
			})
		}
	}
}

// TestSchemaChange checks that a Conn follows ALTER TABLE between two
// executions of the same SQL text.
func TestSchemaChange(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn, "DROP TABLE IF EXISTS sc_t", "CREATE TABLE sc_t (a int, b point)", "INSERT INTO sc_t VALUES (1, '(1,2)')",
		"DROP TYPE IF EXISTS sc_mood", "CREATE TYPE sc_mood AS ENUM ('sad')")
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	steps := []struct {
		alter string
		cols  int
	}{
		{"", 2},
		{"ALTER TABLE sc_t ADD COLUMN c sc_mood DEFAULT 'sad'", 3},
		{"ALTER TABLE sc_t ADD COLUMN d macaddr", 4},
		{"ALTER TABLE sc_t DROP COLUMN b", 3},
		{"ALTER TABLE sc_t DROP COLUMN d", 2},
		{"ALTER TABLE sc_t ALTER COLUMN c TYPE text", 2},
	}
	for _, st := range steps {
		if st.alter != "" {
			exec(t, conn, st.alter)
		}
		r, err := c.Query(ctx, "SELECT * FROM sc_t")
		if err != nil {
			t.Fatalf("after %q: %v", st.alter, err)
		}
		if got := r.Schema().NumFields(); got != st.cols {
			t.Errorf("after %q: %d columns, want %d", st.alter, got, st.cols)
		}
		if rows, _, err := readAll(t, r); err != nil || rows != 1 {
			t.Fatalf("after %q: rows=%d err=%v", st.alter, rows, err)
		}
	}
}

// TestVectors reads the catalog's int2vector and oidvector columns as
// lists.
func TestVectors(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	for _, m := range methods {
		r, err := m.run(c, ctx, "SELECT '1 2 -3'::int2vector AS i, '23 4294967295'::oidvector AS o, ''::int2vector AS e")
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("%s: %v", m.name, r.Err())
		}
		rec := r.RecordBatch()
		for i, want := range []string{"{1,2,-3}", "{23,4294967295}", "{}"} {
			if got, _ := pgText(rec.Column(i), 0); got != want {
				t.Errorf("%s: column %d = %s, want %s", m.name, i, got, want)
			}
		}
		if got := rec.Schema().Field(0).Type.String(); got != "list<item: int16, nullable>" {
			t.Errorf("int2vector type %s", got)
		}
		r.Release()
	}
	queries := map[string]string{"select": "SELECT * FROM pg_index", "copy": "SELECT indexrelid, indkey, indcollation, indclass, indoption FROM pg_index"}
	for _, m := range methods {
		r, err := m.run(c, ctx, queries[m.name])
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		rows, _, err := readAll(t, r)
		if err != nil || rows == 0 {
			t.Fatalf("%s pg_index: rows=%d err=%v", m.name, rows, err)
		}
	}
}

// TestValuesSurviveNext keeps strings and bytes taken from a batch after
// the next call to Next: with the default allocator they must not change.
func TestValuesSurviveNext(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: 10})
	for _, m := range methods {
		r, err := m.run(c, ctx, "SELECT 'value_'||i AS s, ('\\x0102'||lpad(to_hex(i), 4, '0'))::bytea AS b FROM generate_series(1, 100) i")
		if err != nil {
			t.Fatal(err)
		}
		var strs []string
		var bins [][]byte
		for r.Next() {
			rec := r.RecordBatch()
			s, b := rec.Column(0).(*array.String), rec.Column(1).(*array.Binary)
			for i := 0; i < s.Len(); i++ {
				strs = append(strs, s.Value(i))
				bins = append(bins, b.Value(i))
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Release()
		// Churn memory so that freed buffers would be reused.
		r, _ = m.run(c, ctx, "SELECT repeat('z', 20) FROM generate_series(1, 1000)")
		_, _, _ = readAll(t, r)
		for i, s := range strs {
			if want := "value_" + itoa(i+1); s != want {
				t.Fatalf("%s: string %d = %q after Next, want %q", m.name, i, s, want)
			}
			if bins[i][0] != 1 || bins[i][1] != 2 {
				t.Fatalf("%s: bytes %d = %x after Next", m.name, i, bins[i])
			}
		}
	}
}

// TestBatchDataLimit lowers the per-batch byte limit of variable-length
// columns (2 GiB, Arrow's 32-bit offsets) and checks that batches are cut
// before it, for strings, bytes, numeric text and lists, with every value
// intact.
func TestBatchDataLimit(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	cases := []struct {
		name, expr string
		limit      int64
	}{
		{"text", "repeat('x', 100) || i", 1000},
		{"bytea", "convert_to(repeat('y', 100) || i, 'UTF8')", 1000},
		{"numeric", "(i::numeric * 1e30)::numeric", 2000},
		{"text[]", "ARRAY[repeat('z', 50) || i, NULL, 'b']", 1000},
		{"int4[]", "ARRAY[i, i, i]", 30},
		{"single-value-over-limit", "repeat('w', 500) || i", 100},
	}
	for _, tc := range cases {
		for _, m := range methods {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
				pgarrow.SetMaxBatchData(c, tc.limit)
				q := "SELECT i, " + tc.expr + " AS v, " + tc.expr + "::text AS want FROM generate_series(1, 200) i"
				r, err := m.run(c, ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				rows, batches := 0, 0
				for r.Next() {
					rec := r.RecordBatch()
					batches++
					ids := rec.Column(0).(*array.Int32)
					for i := 0; i < int(rec.NumRows()); i++ {
						if int(ids.Value(i)) != rows+1 {
							t.Fatalf("row %d has id %d", rows+1, ids.Value(i))
						}
						rows++
					}
					checkDataLimit(t, rec.Column(1), tc.limit, rec.NumRows())
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if rows != 200 || batches < 3 {
					t.Fatalf("rows=%d batches=%d, want 200 rows in several batches", rows, batches)
				}
			})
		}
	}
}

// checkDataLimit fails when a variable-length column holds more than limit
// bytes (or list elements) in a batch of more than one row.
func checkDataLimit(t *testing.T, a arrow.Array, limit int64, rows int64) {
	t.Helper()
	var size int64
	switch a := a.(type) {
	case *array.String:
		o := a.ValueOffsets()
		size = int64(o[len(o)-1] - o[0])
	case *array.Binary:
		o := a.ValueOffsets()
		size = int64(o[len(o)-1] - o[0])
	case *array.List:
		o := a.Offsets()
		size = int64(o[len(o)-1] - o[0])
		if s, ok := a.ListValues().(*array.String); ok {
			so := s.ValueOffsets()
			size += int64(so[len(so)-1] - so[0])
		}
	default:
		return
	}
	if size > limit && rows > 1 {
		t.Fatalf("batch of %d rows holds %d bytes, over the limit %d", rows, size, limit)
	}
}

// TestOver2GiB reads a result with more than 2 GiB of text at the default
// batch size: the batch must be cut before Arrow's 32-bit offsets wrap.
// It needs about 8 GiB of memory and a minute, so it runs only with
// PGARROW_TEST_HUGE=1.
func TestOver2GiB(t *testing.T) {
	if testing.Short() || os.Getenv("PGARROW_TEST_HUGE") != "1" {
		t.Skip("set PGARROW_TEST_HUGE=1 to read 2.1 GiB (needs ~8 GiB of memory)")
	}
	conn := connect(t)
	ctx := context.Background()
	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
			r, err := m.run(c, ctx, "SELECT i, repeat('x', 1048576) AS v FROM generate_series(1, 2100) i")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			rows, batches := 0, 0
			for r.Next() {
				rec := r.RecordBatch()
				batches++
				s := rec.Column(1).(*array.String)
				o := s.ValueOffsets()
				if end := int64(o[len(o)-1]); end > math.MaxInt32 || end != int64(s.Len())<<20 {
					t.Fatalf("batch %d: data ends at %d for %d values", batches, end, s.Len())
				}
				for _, i := range []int{0, s.Len() - 1} {
					if v := s.Value(i); len(v) != 1<<20 || v[0] != 'x' || v[len(v)-1] != 'x' {
						t.Fatalf("batch %d value %d corrupt", batches, i)
					}
				}
				rows += s.Len()
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if rows != 2100 || batches < 2 {
				t.Fatalf("rows=%d batches=%d", rows, batches)
			}
		})
	}
}

// TestChangeBetweenDescribeAndExecute disturbs a Query between its two
// round trips: the unnamed statement vanishes (as behind a transaction-
// pooling PgBouncer) or the result type changes under it. Either way the
// statement runs exactly once and the result is read.
func TestChangeBetweenDescribeAndExecute(t *testing.T) {
	conn := connect(t)
	other := connect(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		disturb string
		onOther bool
		want    string // Arrow type of column a
	}{
		{"statement-lost", "SELECT 1", false, "int32"},
		{"type-changed", "ALTER TABLE cbde_t ALTER COLUMN a TYPE text", true, "utf8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec(t, conn, "DROP TABLE IF EXISTS cbde_t", "CREATE TABLE cbde_t (a int)", "INSERT INTO cbde_t VALUES (1), (2)",
				"DROP SEQUENCE IF EXISTS cbde_s", "CREATE SEQUENCE cbde_s")
			c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
			runs := 0
			pgarrow.SetAfterDescribe(c, func() {
				runs++
				if runs > 1 {
					return
				}
				target := conn
				if tc.onOther {
					target = other
				}
				// The simple protocol drops the unnamed statement.
				if _, err := target.PgConn().Exec(ctx, tc.disturb).ReadAll(); err != nil {
					t.Error(err)
				}
			})
			r, err := c.Query(ctx, "SELECT a, nextval('cbde_s') AS n FROM cbde_t")
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Schema().Field(0).Type.String(); got != tc.want {
				t.Errorf("column a is %s, want %s", got, tc.want)
			}
			if rows, _, err := readAll(t, r); err != nil || rows != 2 {
				t.Fatalf("rows=%d err=%v", rows, err)
			}
			if runs != 2 {
				t.Errorf("described %d times, want 2 (the first execution must fail at Bind)", runs)
			}
			if n := scalar(t, conn, "SELECT last_value FROM cbde_s"); n != 2 {
				t.Fatalf("sequence at %d, want 2: the statement ran more than once", n)
			}
		})
	}
}

// TestZeroColumns reads queries with no columns (SELECT FROM t): they
// return rows, unlike statements described with NoData, and are read as
// records with an empty schema and the query's number of rows, in batches
// of BatchSize rows. Statements that return no rows are still refused
// before they run.
func TestZeroColumns(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	exec(t, conn, "DROP TABLE IF EXISTS zc_t", "CREATE TABLE zc_t ()",
		"INSERT INTO zc_t DEFAULT VALUES", "INSERT INTO zc_t DEFAULT VALUES", "INSERT INTO zc_t DEFAULT VALUES")
	cases := []struct {
		name      string
		query     string
		batchSize int
		want      []int64 // rows per batch
		wantErr   string  // refused: the statement must not run
	}{
		{"five", "SELECT FROM generate_series(1,5)", 0, []int64{5}, ""},
		{"none", "SELECT FROM generate_series(1,0)", 0, nil, ""},
		{"batches", "SELECT FROM generate_series(1,12)", 5, []int64{5, 5, 2}, ""},
		{"exact-batches", "SELECT FROM generate_series(1,10)", 5, []int64{5, 5}, ""},
		{"one-row-batches", "SELECT FROM generate_series(1,3)", 1, []int64{1, 1, 1}, ""},
		{"table", "SELECT * FROM zc_t", 2, []int64{2, 1}, ""},
		{"where-false", "SELECT FROM zc_t WHERE false", 0, nil, ""},
		{"semicolon", "SELECT FROM generate_series(1,4); -- comment", 0, []int64{4}, ""},
		{"nodata-delete", "DELETE FROM zc_t", 0, nil, "not a query"},
		{"nodata-insert", "INSERT INTO zc_t DEFAULT VALUES", 0, nil, "not a query"},
	}
	for _, m := range methods {
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				c, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: tc.batchSize, Allocator: mem})
				if err != nil {
					t.Fatal(err)
				}
				r, err := m.run(c, ctx, tc.query)
				if tc.wantErr != "" {
					if err == nil {
						r.Release()
						t.Fatalf("%q accepted", tc.query)
					}
					if !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("err = %v, want %q", err, tc.wantErr)
					}
					if n := scalar(t, conn, "SELECT count(*) FROM zc_t"); n != 3 {
						t.Fatalf("zc_t has %d rows, want 3: the statement ran", n)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				if n := r.Schema().NumFields(); n != 0 {
					t.Errorf("schema has %d fields, want 0", n)
				}
				var got []int64
				for r.Next() {
					rec := r.RecordBatch()
					if rec.NumCols() != 0 || !rec.Schema().Equal(r.Schema()) {
						t.Errorf("record has %d columns, schema %s", rec.NumCols(), rec.Schema())
					}
					got = append(got, rec.NumRows())
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("batches of %v rows, want %v", got, tc.want)
				}
				var total int64
				for _, n := range tc.want {
					total += n
				}
				if r.Rows() != total {
					t.Errorf("Rows() = %d, want %d", r.Rows(), total)
				}
				// The connection is free again.
				if n := scalar(t, conn, "SELECT 7"); n != 7 {
					t.Fatal("connection unusable")
				}
			})
		}
	}

	t.Run("select/args", func(t *testing.T) {
		r, err := pgarrow.Query(ctx, conn.PgConn(), "SELECT FROM generate_series(1, $1::int)", 7)
		if err != nil {
			t.Fatal(err)
		}
		if rows, batches, err := readAll(t, r); err != nil || rows != 7 || batches != 1 {
			t.Fatalf("rows=%d batches=%d err=%v, want 7 rows in 1 batch", rows, batches, err)
		}
	})
	t.Run("select/statement-lost", func(t *testing.T) {
		// Executing again after Bind fails keeps the zero columns.
		c, _ := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
		runs := 0
		pgarrow.SetAfterDescribe(c, func() {
			runs++
			if runs == 1 {
				// The simple protocol drops the unnamed statement.
				if _, err := conn.PgConn().Exec(ctx, "SELECT 1").ReadAll(); err != nil {
					t.Error(err)
				}
			}
		})
		r, err := c.Query(ctx, "SELECT FROM generate_series(1,5)")
		if err != nil {
			t.Fatal(err)
		}
		if rows, _, err := readAll(t, r); err != nil || rows != 5 {
			t.Fatalf("rows=%d err=%v, want 5", rows, err)
		}
		if runs != 2 {
			t.Errorf("described %d times, want 2", runs)
		}
	})
}
