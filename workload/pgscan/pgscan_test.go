package pgscan

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

// needServer skips when the PostgreSQL binaries are missing, except in CI
// where .ci/run installs them and a skip would hide a broken set-up.
func needServer(t *testing.T) {
	t.Helper()
	if _, err := pgserver.FindBinaries(""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must have PostgreSQL: %v", err)
		}
		t.Skip(err)
	}
}

func TestRowCheck(t *testing.T) {
	tests := []struct {
		name    string
		id      int64
		score   float64
		active  bool
		nameV   string
		days    int32
		wantErr string
	}{
		{"good even", 2, 1, true, "user_2", epoch2020 + 2, ""},
		{"good odd", 1001, 500.5, false, "user_1001", epoch2020 + 1, ""},
		{"bad score", 2, 1.5, true, "user_2", epoch2020 + 2, "score"},
		{"bad active", 2, 1, false, "user_2", epoch2020 + 2, "active"},
		{"bad name", 2, 1, true, "user_3", epoch2020 + 2, "name"},
		{"bad date", 2, 1, true, "user_2", epoch2020, "created_date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rc rowCheck
			err := rc.check(tt.id, tt.score, tt.active, []byte(tt.nameV), tt.days)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	var rc rowCheck
	for id := int64(1); id <= 3; id++ {
		if err := rc.check(id, float64(id)*0.5, id%2 == 0, []byte("user_"+string(rune('0'+id))), epoch2020+int32(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := rc.done(3); err != nil {
		t.Error(err)
	}
	if err := rc.done(4); err == nil {
		t.Error("short read accepted")
	}
}

// copyStream builds a binary COPY stream of rows 1..n as the server sends it.
func copyStream(n int64) []byte {
	b := append([]byte{}, copySignature...)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 0)
	for id := int64(1); id <= n; id++ {
		b = binary.BigEndian.AppendUint16(b, 5)
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(id))
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(float64(id)*0.5))
		b = binary.BigEndian.AppendUint32(b, 1)
		if id%2 == 0 {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		name := "user_" + itoa(id)
		b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
		b = append(b, name...)
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(epoch2020+int32(id%1000)-pgEpochDays))
	}
	return binary.BigEndian.AppendUint16(b, 0xffff)
}

func itoa(i int64) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// TestCopyCheckerChunking feeds the stream in every chunk size up to 40
// bytes: the parser must reassemble tuples split across writes.
func TestCopyCheckerChunking(t *testing.T) {
	stream := copyStream(50)
	for chunk := 1; chunk <= 40; chunk++ {
		var p copyChecker
		for i := 0; i < len(stream); i += chunk {
			if _, err := p.Write(stream[i:min(i+chunk, len(stream))]); err != nil {
				t.Fatalf("chunk %d: %v", chunk, err)
			}
		}
		if !p.end {
			t.Fatalf("chunk %d: no trailer seen", chunk)
		}
		if err := p.rc.done(50); err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
	}
	bad := copyStream(3)
	bad[len(bad)-5] ^= 1 // inside the last date
	var p copyChecker
	if _, err := p.Write(bad); err == nil {
		t.Error("corrupt date accepted")
	}
	var q copyChecker
	if _, err := q.Write([]byte("not a copy stream at all")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestADBCResultVerify(t *testing.T) {
	good := adbcResult{Rows: 3, SumID: 6, Active: 1, SumNameLen: 18, SumDays: 3*epoch2020 + 6}
	if err := good.verify(3); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []adbcResult{
		{Rows: 2, SumID: 6, Active: 1, SumNameLen: 18, SumDays: 3*epoch2020 + 6},
		{Rows: 3, SumID: 7, Active: 1, SumNameLen: 18, SumDays: 3*epoch2020 + 6},
		{Rows: 3, SumID: 6, Active: 1, SumNameLen: 18, SumDays: 3*epoch2020 + 6, BadScore: 1},
		{Rows: 3, SumID: 6, Active: 1, SumNameLen: 18, SumDays: 3*epoch2020 + 6, Nulls: 1},
	} {
		if bad.verify(3) == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// TestMethodsAgainstServer runs every method against a real throwaway
// server: each verifies every row of a small table, then is measured.
func TestMethodsAgainstServer(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db, env, err := openDatabase(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()}, "", 20_000)
	if err != nil {
		t.Fatal(err)
	}
	defer db.close()
	if env["server_version"] == "" {
		t.Error("no server version recorded")
	}
	const rows = 5000
	var got []results.Case
	for _, m := range methods() {
		c := newCase(db, m, rows, 0)
		switch m.peer {
		case driverADBC:
			if _, err := adbcAvailable(ctx, ""); err != nil {
				c.Skip = err.Error()
			}
		case driverConnectorX:
			if _, err := connectorxAvailable(ctx, ""); err != nil {
				c.Skip = err.Error()
			}
		}
		r, err := bench.Measure(ctx, c, bench.Options{Count: 2, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Skipped():
			t.Logf("%s skipped: %s", m.name, r.Error)
		case !r.OK():
			t.Errorf("%s failed: %s", m.name, r.Error)
		default:
			if v, _ := r.Median(MetricRowsPerSec); v <= 0 {
				t.Errorf("%s: rows/s %v", m.name, v)
			}
			if r.Metrics[MetricWireBytes] <= 0 {
				t.Errorf("%s: no wire size", m.name)
			}
		}
		got = append(got, r)
	}
	run := &results.Run{Cases: got}
	for _, m := range methods() {
		run.Descriptors = append(run.Descriptors, m.describe("", errors.New("not installed")))
	}
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"### Methods", "| pgarrow-select | baseline | github.com/serbench/serbench/pgarrow this build |",
		"### Method and peer comparison", "pgarrow-select reaches", "% of server ceiling", "| copy-discard | limit |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestVerifyCatchesWrongData alters the table under a method and checks
// that verification fails with a clear reason.
func TestVerifyCatchesWrongData(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	db := &database{srv: srv, dsn: srv.DSN(), tmp: t.TempDir(), tables: map[int64]*tableState{}}
	const rows = 1000
	if _, err := db.table(ctx, rows); err != nil {
		t.Fatal(err)
	}
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "UPDATE "+tableName(rows)+" SET name = 'mallory' WHERE id = 500"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	for _, m := range methods() {
		if m.peer != "" {
			continue // the peers' checksums catch it, without naming the row
		}
		r, err := bench.Measure(ctx, newCase(db, m, rows, 0), bench.Options{Count: 1, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if r.OK() || !strings.Contains(r.Error, `row id 500: name "mallory"`) {
			t.Errorf("%s: status %s, error %q; want a failed verification naming row 500", m.name, r.Status, r.Error)
		}
	}
}

func TestPlanWithoutBinariesIsUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := pgserver.FindBinaries(""); err == nil {
		t.Skip("binaries found outside PATH (/usr/lib/postgresql): cannot simulate their absence")
	}
	_, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if !errors.Is(err, workload.ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("err = %v; want ErrUnavailable saying how to install", err)
	}
}

func TestPlanQuick(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	p, err := New().Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
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
	}
	want := []string{
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=65536",
		"PGScan/subject=pgarrow-copy/rows=100000/source=server/batch=65536",
		"PGScan/subject=pgx-scan/rows=100000/source=server",
		"PGScan/subject=pgx-raw/rows=100000/source=server",
		"PGScan/subject=copy-discard/rows=100000/source=server",
		"PGScan/subject=select-discard/rows=100000/source=server",
		"PGScan/subject=adbc/rows=100000/source=server",
		"PGScan/subject=connectorx/rows=100000/source=server",
		"PGScan/subject=pgarrow-select/rows=100000/source=replay/batch=65536",
		"PGScan/subject=pgarrow-copy/rows=100000/source=replay/batch=65536",
		"PGScan/subject=pgx-scan/rows=100000/source=replay",
		"PGScan/subject=pgx-raw/rows=100000/source=replay",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=65536/partitions=1",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=65536/partitions=2",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=65536/partitions=4",
		"PGScan/subject=connectorx/rows=100000/source=server/partitions=2",
		"PGScan/subject=connectorx/rows=100000/source=server/partitions=4",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=10000/sweep=batch",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=50000/sweep=batch",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=100000/sweep=batch",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=200000/sweep=batch",
		"PGScan/subject=pgarrow-select/rows=100000/source=server/batch=500000/sweep=batch",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	_, adbcErr := adbcAvailable(ctx, "")
	if skip := p.Cases[6].Skip; (skip != "") != (adbcErr != nil) || (skip != "" && !strings.Contains(skip, "pip install adbc-driver-postgresql pyarrow")) {
		t.Errorf("ADBC skip %q with availability error %v", skip, adbcErr)
	}
	_, cxErr := connectorxAvailable(ctx, "")
	for _, i := range []int{7, 15, 16} {
		if skip := p.Cases[i].Skip; (skip != "") != (cxErr != nil) || (skip != "" && !strings.Contains(skip, "pip install connectorx pyarrow")) {
			t.Errorf("%s: skip %q with availability error %v", names[i], skip, cxErr)
		}
	}
	p2, err := New().Plan(ctx, workload.Config{Scale: workload.Quick, Subjects: []string{"psdb"}})
	if err != nil || len(p2.Cases) != 0 {
		t.Errorf("another workload's subject: %d cases, err %v", len(p2.Cases), err)
	}
}

// secretPassword is a password that must never show in argv, the
// environment, errors or results.
const secretPassword = "s3cret-Pw_42"

// TestADBCCommandKeepsPasswordOffArgv checks that the ADBC runner gets the
// connection string on stdin: neither its argv nor an environment the
// command sets carries the password (both are readable by other users of
// the machine through ps and /proc).
func TestADBCCommandKeepsPasswordOffArgv(t *testing.T) {
	dsn := "postgres://alice:" + secretPassword + "@db.example:5432/bench?sslmode=disable"
	cmd, start, err := adbcCommand("/tmp/peer_runner.py", adbcStart{DSN: dsn, SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if argv := strings.Join(cmd.Args, " "); strings.Contains(argv, secretPassword) || strings.Contains(argv, "db.example") {
		t.Errorf("argv %q carries the connection string", argv)
	}
	for _, e := range cmd.Env {
		if strings.Contains(e, secretPassword) {
			t.Errorf("environment entry %q carries the password", e)
		}
	}
	var got adbcStart
	if err := json.Unmarshal(start, &got); err != nil || got.DSN != dsn || got.SQL != "SELECT 1" || start[len(start)-1] != '\n' {
		t.Errorf("start line %q (%v): want the DSN and SQL as one JSON line", start, err)
	}
}

// TestADBCRunnerReadsDSNFromStdin starts the real runner script with a
// connection string carrying a password and checks, while it runs, that
// its command line and environment in /proc do not contain it, and that
// no error it reports does. Without the ADBC driver installed the runner
// reports that (after reading the start line); with it, it connects.
func TestADBCRunnerReadsDSNFromStdin(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip(err)
	}
	dsn := "postgres://alice:" + secretPassword + "@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"
	script := filepath.Join(t.TempDir(), "peer_runner.py")
	if err := os.WriteFile(script, adbcRunnerScript, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, start, err := adbcCommand(script, adbcStart{DSN: dsn, SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &adbcRunner{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout), secrets: passwordForms(results.DSNPassword(dsn))}
	defer r.close()
	for _, f := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), f))
		if err != nil {
			t.Logf("/proc/<pid>/%s: %v", f, err)
			continue
		}
		if strings.Contains(string(b), secretPassword) {
			t.Errorf("/proc/<pid>/%s of the runner carries the password", f)
		}
	}
	if _, err := stdin.Write(start); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = r.reply(ctx)
	if err == nil {
		t.Fatal("the runner connected to a closed port")
	}
	if !strings.Contains(err.Error(), "not installed") && !strings.Contains(err.Error(), "connect:") {
		t.Errorf("error %q: want a missing driver or a failed connection (the start line was read)", err)
	}
	if strings.Contains(err.Error(), secretPassword) {
		t.Errorf("error %q carries the password", err)
	}
}

func TestRedactHidesPassword(t *testing.T) {
	db := &database{dsn: "postgres://alice:" + secretPassword + "@db.example/bench"}
	inner := errors.New("dial failed")
	err := db.redact(fmt.Errorf("connect to %s (password=%s): %w", db.dsn, secretPassword, inner))
	if strings.Contains(err.Error(), secretPassword) || !strings.Contains(err.Error(), "alice:"+results.Redacted+"@db.example") {
		t.Errorf("redacted error %q", err)
	}
	if !errors.Is(err, inner) {
		t.Error("redaction hides the wrapped error from errors.Is")
	}
	if db.redact(nil) != nil || db.redact(inner) != inner {
		t.Error("redact changes errors without a secret")
	}
}

// TestPlanShape checks the shape every workload shares, against an
// "external" server (--pg-dsn) whose connection string carries a password
// (the throwaway server's own, or, on a server that trusts every local
// connection and ignores it, a made-up one):
// every case names its method under "subject" with its role and group,
// every method is described, and neither the plan's environment nor its
// descriptors carry the password.
func TestPlanShape(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	dsn, secret := srv.DSN(), results.DSNPassword(srv.DSN())
	if secret == "" {
		dsn, secret = strings.Replace(dsn, "@", ":"+secretPassword+"@", 1), secretPassword
	}
	var log strings.Builder
	p, err := New().WithLog(&log).WithDSN(dsn).Plan(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if strings.Contains(log.String(), secret) {
		t.Errorf("log %q carries the password", log.String())
	}
	for k, v := range p.Env {
		if strings.Contains(v, secret) {
			t.Errorf("Env[%s] = %q carries the password", k, v)
		}
	}
	descs := map[string]results.Descriptor{}
	for _, d := range p.Descriptors {
		if d.Workload != Name || d.Key != "subject" || d.What == "" || d.Version == "" && d.Role != results.RoleLimit {
			t.Errorf("descriptor %+v: workload, key, what or version missing", d)
		}
		if b, _ := json.Marshal(d); strings.Contains(string(b), secret) {
			t.Errorf("descriptor %s carries the password", d.Name)
		}
		descs[d.Name] = d
	}
	wantRoles := map[string]string{MethodSelect: results.RoleBaseline, MethodCopy: results.RoleSubject, MethodScan: results.RoleSubject,
		MethodRaw: results.RoleSubject, MethodCeiling: results.RoleLimit, MethodSelectCeiling: results.RoleLimit, MethodADBC: results.RoleSubject,
		MethodConnectorX: results.RoleSubject}
	for m, role := range wantRoles {
		if descs[m].Role != role {
			t.Errorf("%s: descriptor role %q, want %q", m, descs[m].Role, role)
		}
	}
	if s := descs[MethodSelect].Settings; !strings.Contains(s["batch_rows"], "65536") || !strings.Contains(s["allocator"], "safe default") {
		t.Errorf("pgarrow-select settings %v: want the batch size and the allocator", s)
	}
	if d := descs[MethodScan]; d.Module != "github.com/jackc/pgx/v5" {
		t.Errorf("pgx-scan module %q", d.Module)
	}
	for _, c := range p.Cases {
		s := c.Labels.Get("subject")
		if c.Labels.Has("method") || s == "" {
			t.Errorf("%s: want the method under the label key subject", c.FullName())
		}
		sweep := c.Labels.Get("sweep") != ""
		replayed := c.Labels.Get(LabelSource) == sourceReplay
		parts := c.Labels.Get(LabelPartitions)
		// The replay: pgarrow-select the baseline, the raw loop the
		// reference; the partitions: pgarrow-select over one connection
		// the baseline.
		replayRole := map[string]string{MethodSelect: results.RoleBaseline, MethodRaw: results.RoleLimit}[s]
		if replayRole == "" {
			replayRole = results.RoleSubject
		}
		partsRole := results.RoleSubject
		if s == MethodSelect && parts == "1" {
			partsRole = results.RoleBaseline
		}
		switch {
		case sweep && (c.Role != results.RoleSubject || c.Group != "rows=100000/batch-sweep"):
			t.Errorf("%s: role %q group %q", c.FullName(), c.Role, c.Group)
		case replayed && (c.Role != replayRole || c.Group != "rows=100000/replay"):
			t.Errorf("%s: role %q group %q", c.FullName(), c.Role, c.Group)
		case parts != "" && (c.Role != partsRole || c.Group != "rows=100000/partitions"):
			t.Errorf("%s: role %q group %q", c.FullName(), c.Role, c.Group)
		case !sweep && !replayed && parts == "" && (c.Role != wantRoles[s] || c.Group != "rows=100000"):
			t.Errorf("%s: role %q group %q", c.FullName(), c.Role, c.Group)
		}
	}
}

// TestReplayAndPartitionsAgainstServer reads a small table from the replay
// (every Go method) and over several connections (pgarrow, and ConnectorX
// when installed): each verifies every row, or the checksums, then is
// measured.
func TestReplayAndPartitionsAgainstServer(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db, _, err := openDatabase(ctx, workload.Config{Scale: workload.Quick, TempDir: t.TempDir()}, "", 20_000)
	if err != nil {
		t.Fatal(err)
	}
	defer db.close()
	const rows = 5000
	_, cxErr := connectorxAvailable(ctx, "")
	var cases []bench.Case
	for _, m := range methods() {
		if m.replay {
			cases = append(cases, newCaseSpec(db, m, spec{rows: rows, replay: true}))
		}
		if !m.parallel {
			continue
		}
		for _, p := range Partitions() {
			if m.peer != "" && (p == 1 || cxErr != nil) {
				continue
			}
			cases = append(cases, newCaseSpec(db, m, spec{rows: rows, partitions: p}))
		}
	}
	for _, c := range cases {
		r, err := bench.Measure(ctx, c, bench.Options{Count: 2, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Errorf("%s failed: %s", c.FullName(), r.Error)
			continue
		}
		if v, _ := r.Median(MetricClientCPU); v <= 0 {
			t.Errorf("%s: client CPU %v", c.FullName(), v)
		}
		if _, ok := r.Median(MetricServerCPU); ok == (c.Labels.Get(LabelSource) == sourceReplay) {
			t.Errorf("%s: server CPU recorded %v; want it for server reads only", c.FullName(), ok)
		}
	}
}

// TestSharedBuffers checks the server's cache sizing: four times the
// largest table, at least 1 GiB, capped at half the memory (and then
// saying the table is not held).
func TestSharedBuffers(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		rows, mem, want int64
		held            bool
	}{
		{100_000, 0, gib, true},
		{10_000_000, 64 * gib, 4 * heapBytesPerRow * 10_000_000, true},
		{46_000_000, 24 * gib, 12 * gib, false},
		{46_000_000, gib, gib, false},
	} {
		got, held := sharedBuffers(tc.rows, tc.mem)
		want := (tc.want + 1<<20 - 1) &^ (1<<20 - 1)
		if got != want || held != tc.held {
			t.Errorf("sharedBuffers(%d, %d) = %d, %v; want %d, %v", tc.rows, tc.mem, got, held, want, tc.held)
		}
	}
	if s := serverSettings(3 << 30)["shared_buffers"]; s != "3072MB" {
		t.Errorf("shared_buffers setting %q, want 3072MB", s)
	}
	if !replayFits(10_000_000, 0) || replayFits(10_000_000, gib) || !replayFits(1_000_000, 8*gib) {
		t.Error("replayFits: want a third of the available memory for the three recordings")
	}
}

// TestConnectorXStartKeepsPasswordOffArgv checks the ConnectorX runner's
// start: the connection string and the partitioning travel on stdin.
func TestConnectorXStartKeepsPasswordOffArgv(t *testing.T) {
	dsn := "postgres://alice:" + secretPassword + "@db.example:5432/bench?sslmode=disable"
	cmd, start, err := adbcCommand("/tmp/peer_runner.py", adbcStart{DSN: dsn, SQL: "SELECT 1", Driver: driverConnectorX, PartitionOn: "id", Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	if argv := strings.Join(cmd.Args, " "); strings.Contains(argv, secretPassword) || strings.Contains(argv, "db.example") {
		t.Errorf("argv %q carries the connection string", argv)
	}
	var got adbcStart
	if err := json.Unmarshal(start, &got); err != nil || got.DSN != dsn || got.Driver != "connectorx" || got.PartitionOn != "id" || got.Partitions != 4 {
		t.Errorf("start line %q (%v): want the DSN, driver and partitioning", start, err)
	}
}

// TestLargeReadsSampling: a read of a million rows and more takes at least
// three samples (not MinRounds) within the run's sampling time, its
// verification as its warm-up; ten million and more take exactly three.
func TestLargeReadsSampling(t *testing.T) {
	for _, tc := range []struct {
		rows            int64
		minCount, count int
		noWarmup        bool
	}{
		{100_000, 0, 0, false},
		{999_999, 0, 0, false},
		{1_000_000, 3, 0, true},
		{10_000_000, 3, 3, true},
	} {
		for _, m := range methods() {
			c := newCase(nil, m, tc.rows, 0)
			if c.MinCount != tc.minCount || c.Count != tc.count || c.NoWarmup != tc.noWarmup {
				t.Errorf("%s: MinCount %d, Count %d, NoWarmup %v; want %d, %d, %v",
					c.FullName(), c.MinCount, c.Count, c.NoWarmup, tc.minCount, tc.count, tc.noWarmup)
			}
		}
	}
}
