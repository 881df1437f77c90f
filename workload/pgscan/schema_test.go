package pgscan

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// userServer starts a throwaway server standing for the user's server of
// --pg-dsn, and returns it with a connection to it.
func userServer(t *testing.T) (*pgserver.Server, *pgx.Conn) {
	t.Helper()
	needServer(t)
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return srv, conn
}

// execAll runs statements on conn.
func execAll(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// serverState is what a run must leave as it found it on the user's
// server: the rows of the user's tables, the extensions, and every
// relation outside the system schemas with its OID and persistence (a
// table dropped and recreated, or made UNLOGGED, shows).
type serverState struct {
	rows       map[string]string
	extensions string
	relations  string
	schemas    string
}

func stateOf(t *testing.T, conn *pgx.Conn, tables ...string) serverState {
	t.Helper()
	ctx := context.Background()
	st := serverState{rows: map[string]string{}}
	for _, tb := range tables {
		var sum string
		if err := conn.QueryRow(ctx, "SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM "+tb+" AS t").Scan(&sum); err != nil {
			t.Fatalf("rows of %s: %v", tb, err)
		}
		st.rows[tb] = sum
	}
	queries := []struct {
		dst *string
		sql string
	}{
		{&st.extensions, "SELECT coalesce(string_agg(extname || ' ' || extversion, ', ' ORDER BY extname), '') FROM pg_extension"},
		{&st.relations, `SELECT coalesce(string_agg(n.nspname || '.' || c.relname || ' ' || c.relkind::text || c.relpersistence::text || ' ' || c.oid::text, ', ' ORDER BY n.nspname, c.relname), '')
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg\_%temp%'`},
		{&st.schemas, "SELECT string_agg(nspname || ' ' || coalesce(obj_description(oid, 'pg_namespace'), '-'), ', ' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%temp%'"},
	}
	for _, q := range queries {
		if err := conn.QueryRow(ctx, q.sql).Scan(q.dst); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	return st
}

func (a serverState) diff(t *testing.T, b serverState) {
	t.Helper()
	for k, v := range a.rows {
		if b.rows[k] != v {
			t.Errorf("the rows of %s changed: md5 %s, then %s", k, v, b.rows[k])
		}
	}
	if a.extensions != b.extensions {
		t.Errorf("extensions %q, then %q", a.extensions, b.extensions)
	}
	if a.relations != b.relations {
		t.Errorf("relations\n%s\nthen\n%s", a.relations, b.relations)
	}
	if a.schemas != b.schemas {
		t.Errorf("schemas %q, then %q", a.schemas, b.schemas)
	}
}

// userTables creates, in public, a table of each name serbench generates
// at quick scale, holding the user's own rows (the same columns, other
// values: a read of the wrong table would fail verification), and returns
// their names.
func userTables(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	var names []string
	for _, n := range Sizes(workload.Quick) {
		name := "public.performance_test_" + strconv.FormatInt(n, 10)
		execAll(t, conn, "CREATE TABLE "+name+" (id bigint PRIMARY KEY, score float8, active bool, name text, created_date date)",
			"INSERT INTO "+name+" SELECT i, i * 3.25, i % 3 = 0, 'customer_' || i, '1999-01-01'::date + i FROM generate_series(1, 1000) AS i")
		names = append(names, name)
	}
	return names
}

// schemaExists reports whether serbench's schema is on the server.
func schemaExists(t *testing.T, conn *pgx.Conn) bool {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", SchemaName).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// measureSome sets up, verifies and measures the plan's server reads of
// one table size: the full reads, and the partitioned read over two
// connections (key ranges).
func measureSome(t *testing.T, p *workload.Plan) {
	t.Helper()
	ran := 0
	for _, c := range p.Cases {
		if c.Labels.Get(LabelSource) != sourceServer || c.Labels.Get("sweep") != "" {
			continue
		}
		if parts := c.Labels.Get(LabelPartitions); parts != "" && parts != "2" {
			continue
		}
		r, err := bench.Measure(context.Background(), c, bench.Options{Count: 1, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Skipped():
			t.Logf("%s skipped: %s", c.FullName(), r.Error)
		case !r.OK():
			t.Errorf("%s failed: %s", c.FullName(), r.Error)
		default:
			ran++
		}
	}
	if ran == 0 {
		t.Fatal("no case ran")
	}
}

// TestPGDSNLeavesUserServerAsFound runs pgscan on a server (--pg-dsn)
// that holds the user's own tables named as serbench's: their rows stay
// untouched, serbench says what it creates and drops, works in its schema
// only, installs no extension, and leaves the server as it found it.
func TestPGDSNLeavesUserServerAsFound(t *testing.T) {
	srv, conn := userServer(t)
	ctx := context.Background()
	tables := userTables(t, conn)
	before := stateOf(t, conn, tables...)

	var log strings.Builder
	p, err := New().WithLog(&log).WithDSN(srv.DSN()).Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir(),
		Subjects: []string{MethodSelect, MethodCeiling, MethodADBC, MethodConnectorX}})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			p.Close()
		}
	}()
	for _, want := range []string{
		`serbench: pgscan: --pg-dsn: serbench will create schema serbench_pgscan in database "postgres"`,
		"holding the generated tables performance_test_100000 (100k rows, about",
		"and drop the schema with its tables when the run ends; it creates, changes and drops nothing outside that schema",
		`serbench: pgscan: --pg-dsn: pg_prewarm is not installed in database "postgres" and serbench installs no extension there`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if !strings.Contains(p.Env["schema"], "serbench_pgscan, created by serbench") ||
		!strings.Contains(p.Env["table_cache"], "pg_prewarm not installed on the server and serbench installs no extension there") {
		t.Errorf("env: schema %q, table_cache %q", p.Env["schema"], p.Env["table_cache"])
	}
	t.Logf("log:\n%s", log.String())
	measureSome(t, p)
	var rows int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM serbench_pgscan.performance_test_100000").Scan(&rows); err != nil || rows != 100_000 {
		t.Errorf("serbench's table: %d rows (%v)", rows, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
	if !strings.Contains(log.String(), `serbench: pgscan: --pg-dsn: dropped schema serbench_pgscan and its tables from database "postgres"`) {
		t.Errorf("log does not say the schema was dropped:\n%s", log.String())
	}
	if schemaExists(t, conn) {
		t.Error("the schema is left behind")
	}
	before.diff(t, stateOf(t, conn, tables...))
	if strings.Contains(log.String(), results.DSNPassword(srv.DSN())+"@") && results.DSNPassword(srv.DSN()) != "" {
		t.Error("the log carries the password")
	}
}

// TestPGDSNRefusesForeignSchema: a schema named as serbench's that does
// not carry its mark is the user's: the plan refuses in one line naming
// it and saying what to do, and touches nothing.
func TestPGDSNRefusesForeignSchema(t *testing.T) {
	srv, conn := userServer(t)
	ctx := context.Background()
	execAll(t, conn, "CREATE SCHEMA serbench_pgscan",
		"CREATE TABLE serbench_pgscan.performance_test_100000 (id bigint, note text)",
		"INSERT INTO serbench_pgscan.performance_test_100000 SELECT i, 'mine ' || i FROM generate_series(1, 100) AS i")
	for _, comment := range []string{"", "COMMENT ON SCHEMA serbench_pgscan IS 'the analytics team''s schema'"} {
		if comment != "" {
			execAll(t, conn, comment)
		}
		before := stateOf(t, conn, "serbench_pgscan.performance_test_100000")
		var log strings.Builder
		p, err := New().WithLog(&log).WithDSN(srv.DSN()).Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect}})
		if err == nil {
			p.Close()
			t.Fatal("the plan took a schema serbench did not create")
		}
		msg := err.Error()
		for _, want := range []string{`database "postgres" already has a schema serbench_pgscan that serbench did not create`, "rename that schema", "--pg-dsn"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q lacks %q", msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("error %q: want one line", msg)
		}
		if log.Len() != 0 {
			t.Errorf("log %q: nothing is created, nothing to say", log.String())
		}
		before.diff(t, stateOf(t, conn, "serbench_pgscan.performance_test_100000"))
	}
}

// TestPGDSNLeftoverSchema: a schema with serbench's mark was left by a run
// that did not finish: it is dropped (said so first) and made anew. While
// a run owns it, a second run on the same database refuses. The server's
// pg_prewarm, installed already, is used. Close drops only what serbench
// made: a view of the user's on a generated table stops the drop, and
// stays.
func TestPGDSNLeftoverSchema(t *testing.T) {
	srv, conn := userServer(t)
	ctx := context.Background()
	execAll(t, conn, "CREATE EXTENSION pg_prewarm",
		"CREATE SCHEMA serbench_pgscan", "COMMENT ON SCHEMA serbench_pgscan IS '"+SchemaMark+"'",
		"CREATE TABLE serbench_pgscan.performance_test_7 AS SELECT 1 AS id")
	before := stateOf(t, conn)
	var log strings.Builder
	cfg := workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect}}
	p, err := New().WithLog(&log).WithDSN(srv.DSN()).Plan(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, want := range []string{
		`serbench: pgscan: --pg-dsn: schema serbench_pgscan in database "postgres" carries serbench's mark: a run that did not finish left it behind; dropping it with its tables performance_test_7`,
		`pg_prewarm is installed in database "postgres": serbench uses it (public.pg_prewarm)`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if !strings.Contains(p.Env["schema"], "left by an unfinished run was dropped first") || !strings.Contains(p.Env["table_cache"], "pg_prewarm (already installed") {
		t.Errorf("env: schema %q, table_cache %q", p.Env["schema"], p.Env["table_cache"])
	}
	_, err = New().WithLog(&log).WithDSN(srv.DSN()).Plan(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "another serbench run is using schema serbench_pgscan") {
		t.Errorf("a second run on the same database: err %v", err)
	}
	for _, c := range p.Cases {
		if c.Labels.Get(LabelSource) == sourceServer && c.Labels.Get(LabelPartitions) == "" && c.Labels.Get("sweep") == "" {
			r, err := bench.Measure(ctx, c, bench.Options{Count: 1, SampleTime: time.Millisecond})
			if err != nil || !r.OK() {
				t.Fatalf("%s: %v %s", c.FullName(), err, r.Error)
			}
		}
	}
	execAll(t, conn, "CREATE VIEW public.users_view AS SELECT id FROM serbench_pgscan.performance_test_100000")
	err = p.Close()
	if err == nil || !strings.Contains(err.Error(), "DROP SCHEMA serbench_pgscan CASCADE") || strings.Contains(err.Error(), "\n") {
		t.Errorf("close with a view of the user's on a generated table: err %v; want one line saying how to drop it", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM public.users_view").Scan(&n); err != nil || n != 100_000 {
		t.Errorf("the user's view: %d rows (%v)", n, err)
	}
	execAll(t, conn, "DROP VIEW public.users_view", "DROP SCHEMA serbench_pgscan CASCADE")
	if after := stateOf(t, conn); after.extensions != before.extensions {
		t.Errorf("extensions %q, then %q", before.extensions, after.extensions)
	}
}

// TestPGDSNQueryCreatesNothing: with --query, the --pg-dsn server gets no
// schema, table or extension, and the query runs read-only.
func TestPGDSNQueryCreatesNothing(t *testing.T) {
	srv, conn := userServer(t)
	ctx := context.Background()
	tables := userTables(t, conn)
	before := stateOf(t, conn, tables...)
	var log strings.Builder
	p, err := NewWith(Query{SQL: "SELECT * FROM performance_test_100000"}).WithLog(&log).WithDSN(srv.DSN()).Plan(ctx,
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect, MethodCeiling}})
	if err != nil {
		t.Fatal(err)
	}
	measureSome(t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 || !strings.Contains(p.Env["writes"], "read-only") {
		t.Errorf("log %q, env writes %q", log.String(), p.Env["writes"])
	}
	before.diff(t, stateOf(t, conn, tables...))
	execAll(t, conn, "CREATE SEQUENCE serbench_test_seq")
	_, err = NewWith(Query{SQL: "SELECT nextval('serbench_test_seq')"}).WithLog(&log).WithDSN(srv.DSN()).Plan(ctx,
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir(), Subjects: []string{MethodSelect}})
	if err == nil || !strings.Contains(err.Error(), "read-only transaction") {
		t.Errorf("a query that writes: err %v; want it refused by the read-only transaction", err)
	}
}

// TestPGPasswordFromEnvironment: a connection string without a password
// connects with PGPASSWORD, or with a password file (PGPASSFILE), in URL
// and keyword form; the peers' URL carries that password.
func TestPGPasswordFromEnvironment(t *testing.T) {
	srv, _ := userServer(t)
	ctx := context.Background()
	pw := results.DSNPassword(srv.DSN())
	u, err := url.Parse(srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	user := u.User.Username()
	u.User = url.User(user)
	dsns := []string{u.String(), fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=postgres sslmode=disable", srv.Port(), user)}
	connects := func(t *testing.T, dsn string) error {
		t.Helper()
		db, env, err := openDatabase(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()}, dsn, 1000)
		if err != nil {
			return err
		}
		defer db.close()
		if env["server_version"] == "" {
			t.Error("no server version")
		}
		peer, err := db.peerDSN()
		if err != nil {
			t.Fatal(err)
		}
		if got := results.DSNPassword(peer); got != pw {
			t.Errorf("the peers' URL carries password %q, want %q", got, pw)
		}
		peersConnect(t, peer)
		return nil
	}
	t.Run("unix socket", func(t *testing.T) {
		isolatePGEnv(t)
		dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", srv.SocketDir(), srv.Port(), user)
		db := &database{dsn: dsn}
		c, err := db.connect(ctx)
		if err != nil {
			t.Skipf("the server's socket is not this user's to reach: %v", err)
		}
		c.Close(ctx)
		peer, err := db.peerDSN()
		if err != nil {
			t.Fatal(err)
		}
		peersConnect(t, peer)
	})
	for _, dsn := range dsns {
		t.Run("PGPASSWORD "+strings.Fields(dsn)[0], func(t *testing.T) {
			isolatePGEnv(t)
			t.Setenv("PGPASSWORD", pw)
			if err := connects(t, dsn); err != nil {
				t.Fatal(err)
			}
			if pw == "" {
				return // a server that needs no password
			}
			t.Setenv("PGPASSWORD", "wrong-"+pw)
			if err := connects(t, dsn); err == nil {
				t.Error("connected with a wrong password: the test proves nothing")
			} else if strings.Contains(err.Error(), pw) {
				t.Errorf("error %q carries the password", err)
			}
		})
		t.Run("PGPASSFILE "+strings.Fields(dsn)[0], func(t *testing.T) {
			isolatePGEnv(t)
			f := filepath.Join(t.TempDir(), "pgpass")
			if err := os.WriteFile(f, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:%s:%s\n", srv.Port(), user, pw)), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PGPASSFILE", f)
			if err := connects(t, dsn); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// peersConnect starts each Python peer that is installed with the URL
// peer, which must connect.
func peersConnect(t *testing.T, peer string) {
	t.Helper()
	ctx := context.Background()
	for _, d := range []string{driverADBC, driverConnectorX} {
		avail := adbcAvailable
		if d == driverConnectorX {
			avail = connectorxAvailable
		}
		if _, err := avail(ctx, ""); err != nil {
			t.Logf("%s: %v", d, err)
			continue
		}
		r, err := startADBC(ctx, t.TempDir(), adbcStart{DSN: peer, SQL: "SELECT 1 AS one", Driver: d})
		if err != nil {
			t.Errorf("%s does not connect with %s: %v", d, results.Redact(peer), err)
			continue
		}
		r.close()
	}
}
