package pgscan

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/workload"
)

// TestCappedQueryOnBigTable (issue 26): a query capped by --rows (a LIMIT
// without ORDER BY) on a table larger than a quarter of shared_buffers
// failed every method ("values differ from the reference's"): synchronized
// sequential scans start each read where the previous one stopped. Every
// session sets synchronize_seqscans = off, so that every read of the
// capped query returns the same rows: the methods agree with the
// reference, read after read — the Python peers too (ADBC and ConnectorX,
// when installed; ConnectorX takes the setting from the URL's options).
func TestCappedQueryOnBigTable(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{Settings: map[string]string{"shared_buffers": "16MB"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE big AS SELECT i AS id, md5(i::text) || md5((i * 7)::text) AS pad FROM generate_series(1, 100000) AS i"); err != nil {
		t.Fatal(err)
	}
	var tableB, buffersB int64
	err = conn.QueryRow(ctx, "SELECT pg_relation_size('big'), (SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers')").Scan(&tableB, &buffersB)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tableB <= buffersB/4 {
		t.Fatalf("table of %d B, shared_buffers %d B: not a synchronized scan's size", tableB, buffersB)
	}

	p, err := NewWith(Query{SQL: "SELECT * FROM big", Rows: 5000}).WithDSN(srv.DSN()).Plan(ctx,
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect, MethodScan, MethodCopy, MethodADBC, MethodConnectorX}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.Contains(p.Env["session"], "synchronize_seqscans = off") {
		t.Errorf("env session %q", p.Env["session"])
	}
	ran := 0
	for _, r := range measureQueryPlan(t, p) { // fails the test on a difference
		if r.OK() {
			ran++
		}
	}
	if ran < 2 {
		t.Errorf("%d methods read the query, want at least 2", ran)
	}

	// The Python peers' URL sets it too, as libpq (ADBC's driver) reads
	// it.
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("no psql to check the peers' URL with libpq")
	}
	cfg, err := pgx.ParseConfig(srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	pw := cfg.Password
	cfg.Password = "" // in the environment, off the command line
	cmd := exec.CommandContext(ctx, psql, "-X", "-At", "-d", configURL(&cfg.Config, nil), "-c", "SHOW synchronize_seqscans")
	cmd.Env = append(cmd.Environ(), "PGPASSWORD="+pw)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "off" {
		t.Errorf("libpq over the peers' URL: synchronize_seqscans %q (%v)", out, err)
	}
}

// TestCappedQueryHint: when the values of a capped query (--rows) differ,
// the error says why they may and what to do; an uncapped query's does
// not.
func TestCappedQueryHint(t *testing.T) {
	types := []colType{{kind: kindInt}}
	ref, got := newChecksums(types), newChecksums(types)
	if err := ref.addGo([]any{int64(1)}); err != nil {
		t.Fatal(err)
	}
	if err := got.addGo([]any{int64(2)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rows int64
		hint bool
	}{{0, false}, {5000, true}} {
		uq := &userQuery{given: Query{SQL: "SELECT id FROM t", Rows: tc.rows}, names: []string{"id"}, ref: ref}
		err := uq.verify(got, MethodScan)
		if err == nil || !strings.Contains(err.Error(), `column "id"`) {
			t.Fatalf("rows %d: err = %v, want the column named", tc.rows, err)
		}
		if hint := strings.Contains(err.Error(), "ORDER BY"); hint != tc.hint {
			t.Errorf("rows %d: err = %v; hint %v, want %v", tc.rows, err, hint, tc.hint)
		}
	}
	if err := (&userQuery{given: Query{Rows: 5}, names: []string{"id"}, ref: ref}).verify(ref, MethodScan); err != nil {
		t.Errorf("equal checksums: %v", err)
	}
}
