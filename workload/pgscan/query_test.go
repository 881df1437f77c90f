package pgscan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

// typesQuery exercises the canonical forms: NULLs, numeric with and
// without a typmod, floats, timestamptz, dates, text with non-ASCII
// characters, arrays with NULL elements, jsonb and uuid.
const typesQuery = `SELECT i AS id,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'näme ' || i END AS name,
  (i * 1.25)::numeric(12,2) AS amount,
  CASE WHEN i % 7 = 0 THEN NULL ELSE (i / 7.0) END AS ratio,
  i * 0.1::float8 AS score,
  (i * 0.5)::float4 AS half,
  (i % 3 = 0) AS flag,
  timestamptz '2024-01-01 00:00:00+00' + i * interval '61.5 seconds' AS at,
  date '2020-01-01' + i AS day,
  ARRAY[i, NULL, i * 2]::int8[] AS ints,
  CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY['a' || i, NULL]::text[] END AS tags,
  jsonb_build_object('k', i, 'a', 'x') AS doc,
  md5(i::text)::uuid AS uid
FROM generate_series(1, 3000) AS i;`

// peerUnsupported reports whether a peer's failure is its own lack of
// support for one of the query's types (skipped with that reason).
func peerUnsupported(m, msg string) bool {
	if m != MethodADBC && m != MethodConnectorX {
		return false
	}
	// ConnectorX reads an unconstrained numeric as decimal(38, 10): i/7.0
	// loses its digits past the tenth (a real difference, failed in a run).
	if m == MethodConnectorX && strings.Contains(msg, "delivers it as decimal(38, 10)") {
		return true
	}
	for _, s := range []string{"not supported", "Unsupported", "unsupported", "not implemented", "no canonical form", "NotImplemented"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func measureQueryPlan(t *testing.T, p *workload.Plan) []results.Case {
	t.Helper()
	ctx := context.Background()
	var got []results.Case
	for _, c := range p.Cases {
		r, err := bench.Measure(ctx, c, bench.Options{Count: 2, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		m := c.Labels.Get(LabelSubject)
		switch {
		case r.Skipped():
			t.Logf("%s skipped: %s", c.FullName(), r.Error)
		case !r.OK() && peerUnsupported(m, r.Error):
			t.Logf("%s: the peer cannot read this query (skipped): %s", c.FullName(), r.Error)
		case !r.OK():
			t.Errorf("%s failed: %s", c.FullName(), r.Error)
		}
		got = append(got, r)
	}
	return got
}

// TestQueryAgainstServer runs every method on a query of many types on
// the throwaway server: each verifies its checksums against pgarrow's.
func TestQueryAgainstServer(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	p, err := NewWith(Query{SQL: typesQuery}).Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.MeasuresRSS {
		t.Error("the plan reports this process's peak RSS but does not declare MeasuresRSS")
	}
	var names []string
	for _, c := range p.Cases {
		names = append(names, c.FullName())
		if c.Labels.Get(LabelQuery) != queryUser || c.Labels.Get("rows") != "3000" {
			t.Errorf("%s: want query=user and rows=3000", c.FullName())
		}
		if c.Labels.Get(LabelPartitions) != "" && !strings.Contains(c.Skip, "--query") {
			t.Errorf("%s: partitioned read planned (skip %q)", c.FullName(), c.Skip)
		}
	}
	if len(p.Cases) != 8+4+3+2 {
		t.Errorf("cases:\n%s", strings.Join(names, "\n"))
	}
	got := measureQueryPlan(t, p)
	run := &results.Run{Cases: got, Descriptors: p.Descriptors}
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"### Your query", "3,000 rows", "| amount | numeric(12,2) |", "md5(i::text)::uuid AS uid", "### Method and peer comparison"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "performance_test_<rows>` (id bigint") {
		t.Error("the report describes the generated table for a --query run")
	}
}

// TestQueryCapAndTable reads the generated table through --query with
// --rows as a cap.
func TestQueryCapAndTable(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	p, err := NewWith(Query{SQL: "SELECT * FROM performance_test_100000 WHERE id % 10 = 0 ORDER BY id", Rows: 2500}).Plan(ctx,
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect, MethodCopy, MethodScan, MethodCeiling}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Cases) == 0 || p.Cases[0].Labels.Get("rows") != "2500" {
		t.Fatalf("cases %v: want rows=2500", p.Cases)
	}
	measureQueryPlan(t, p)
}

// TestQueryCatchesDifference checks that a method whose values differ
// from the reference fails, naming the column.
func TestQueryCatchesDifference(t *testing.T) {
	types := []colType{{kind: kindInt}, {kind: kindNumeric}}
	ref, got := newChecksums(types), newChecksums(types)
	if err := ref.addGo([]any{int64(1), nil}); err != nil {
		t.Fatal(err)
	}
	if err := got.addGo([]any{int64(2), nil}); err != nil {
		t.Fatal(err)
	}
	err := ref.compare(got, []string{"id", "amount"}, MethodScan)
	if err == nil || !strings.Contains(err.Error(), `column "id"`) {
		t.Errorf("err = %v; want the column named", err)
	}
}

// TestBadQuery: a syntax error, an unknown table, a failure while the
// query runs and an empty result are usage errors on one line, before
// anything is measured.
func TestBadQuery(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	for _, q := range []string{"SELEC 1", "SELECT * FROM no_such_table", "SELECT 1 / (i - 5) FROM generate_series(1, 10) i", "SELECT 1 WHERE false", "DELETE FROM performance_test_100000"} {
		_, err := NewWith(Query{SQL: q}).Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect}})
		var ue *workload.UsageError
		if !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v; want a one-line usage error", q, err)
			continue
		}
		t.Logf("%q: %v", q, err)
	}
	if err := CheckQuery(Query{Rows: 5}); err == nil {
		t.Error("--rows without --query accepted")
	}
}

// TestQueryExternal reads a query on a server named by --pg-dsn: no table
// is built there, the replay is skipped, the methods verify.
func TestQueryExternal(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	p, err := NewWith(Query{SQL: "SELECT i AS n, repeat('x', i % 17) AS s FROM generate_series(1, 1000) AS i"}).WithDSN(srv.DSN()).Plan(ctx,
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect, MethodScan, MethodRaw, MethodADBC}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, c := range p.Cases {
		if c.Labels.Get(LabelSource) == sourceReplay && c.Skip == "" {
			t.Errorf("%s: replay planned against --pg-dsn", c.FullName())
		}
	}
	var server string
	for _, d := range p.Descriptors {
		if d.Key == LabelQuery {
			server = d.Settings[QuerySettingServer]
		}
	}
	if server != "external (--pg-dsn)" {
		t.Errorf("query descriptor's server %q", server)
	}
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'performance_test_%'").Scan(&tables); err != nil || tables != 0 {
		t.Errorf("%d generated tables on the external server (%v)", tables, err)
	}
	conn.Close(ctx)
	measureQueryPlan(t, p)
}
