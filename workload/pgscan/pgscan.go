// Package pgscan is the pgscan workload (seed 003): reading a PostgreSQL
// table into Arrow with serbench's pgarrow (SELECT and COPY BINARY), next
// to pgx without Arrow, the ADBC PostgreSQL driver (the seed's peer), and
// the server's own COPY BINARY ceiling, on a throwaway local server unless
// --pg-dsn names one.
package pgscan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// Name is the workload's CLI name.
const Name = "pgscan"

// Metric units recorded per sample.
const (
	MetricRowsPerSec = "rows/s"
	MetricClientCPU  = "client-cpu-s"
	MetricServerCPU  = "server-cpu-s"
	MetricPeakRSS    = "peak-rss-B"
	MetricWireBytes  = "wire-B"
)

// Workload is the pgscan workload.
type Workload struct{}

// New returns the pgscan workload.
func New() *Workload { return &Workload{} }

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "PostgreSQL → Arrow (seed 003): pgarrow SELECT and COPY vs pgx vs ADBC vs the server's COPY ceiling, on a throwaway local server"
}

// Subjects implements workload.Workload.
func (*Workload) Subjects() []string {
	var out []string
	for _, m := range methods() {
		out = append(out, m.name)
	}
	return out
}

// LabelSubject is the label key that names a case's method.
const LabelSubject = "subject"

// groupRead and groupSweep name the comparison groups of a table size:
// every method's full read, and the batch-size sweep.
func groupRead(rows int64) string  { return "rows=" + strconv.FormatInt(rows, 10) }
func groupSweep(rows int64) string { return "rows=" + strconv.FormatInt(rows, 10) + "/batch-sweep" }

// scales is the workload's scale table: the table sizes in rows (the
// seed's 1M, 10M and 46M at full).
func scales() workload.ScaleTable[[]int64] {
	return workload.ScaleTable[[]int64]{
		Quick:   []int64{100_000},
		Default: []int64{1_000_000, 10_000_000},
		Full:    []int64{1_000_000, 10_000_000, 46_000_000},
		Describe: func(rows []int64) string {
			parts := make([]string, len(rows))
			for i, r := range rows {
				parts[i] = report.Compact(float64(r))
			}
			return strings.Join(parts, ", ") + " rows"
		},
	}
}

// Sizes returns the table sizes (rows) of a scale.
func Sizes(s workload.Scale) []int64 { return scales().At(s) }

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

// SweepBatches are the batch sizes of the batch-size sweep.
func SweepBatches() []int { return []int{10_000, 50_000, 100_000, 200_000, 500_000} }

// heapBytesPerRow bounds the table's on-disk size per row (tuple header,
// line pointer and the five columns; about 65 bytes measured, with room).
const heapBytesPerRow = 80

// minSharedBuffers is the smallest shared_buffers the server gets.
const minSharedBuffers = 1 << 30

// sharedBuffers returns the shared_buffers for tables of up to maxRows
// rows: four times the largest table, since a sequential scan of a table
// larger than a quarter of shared_buffers reads through a small ring
// buffer and the server would not hold the table between reads; at least
// 1 GiB, at most half the machine's memory (memTotal bytes, 0 if unknown).
// held reports whether the four-fold margin fits.
func sharedBuffers(maxRows int64, memTotal int64) (bytes int64, held bool) {
	want := 4 * heapBytesPerRow * maxRows
	bytes, held = max(want, minSharedBuffers), true
	if memTotal > 0 && bytes > memTotal/2 {
		bytes, held = max(memTotal/2, minSharedBuffers), false
	}
	// Whole megabytes.
	return (bytes + 1<<20 - 1) &^ (1<<20 - 1), held
}

// serverSettings make the throwaway server a fair, quiet data source:
// shared buffers that hold the largest table (see sharedBuffers), no JIT
// compilation in the measured queries, no checkpoints while the tables
// are built.
func serverSettings(sharedBufferBytes int64) map[string]string {
	return map[string]string{
		"shared_buffers":       strconv.FormatInt(sharedBufferBytes>>20, 10) + "MB",
		"max_wal_size":         "8GB",
		"checkpoint_timeout":   "1h",
		"maintenance_work_mem": "256MB",
		"jit":                  "off",
	}
}

// Plan implements workload.Workload. It starts the throwaway server (or
// checks --pg-dsn) now; tables are built lazily by the first case of each
// size.
func (w *Workload) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	var want []method
	for _, m := range methods() {
		if cfg.WantSubject(m.name) {
			want = append(want, m)
		}
	}
	if len(want) == 0 {
		return &workload.Plan{}, nil
	}
	var (
		db  *database
		env = map[string]string{}
		err error
	)
	if !cfg.DryRun {
		if db, env, err = openDatabase(ctx, cfg, slices.Max(Sizes(cfg.Scale))); err != nil {
			return nil, err
		}
	}
	adbcVersions, adbcErr := "", error(nil)
	if !cfg.DryRun {
		adbcVersions, adbcErr = adbcAvailable(ctx)
	}
	if adbcErr == nil {
		env["adbc"] = adbcVersions
	}
	descs := make([]results.Descriptor, 0, len(want))
	for _, m := range want {
		descs = append(descs, m.describe(adbcVersions, adbcErr))
	}

	var cases []bench.Case
	sizes := Sizes(cfg.Scale)
	for _, n := range sizes {
		for _, m := range want {
			c := newCase(db, m, n, 0)
			if m.name == MethodADBC && adbcErr != nil {
				c.Skip = adbcErr.Error()
			}
			cases = append(cases, c)
		}
	}
	// The batch-size sweep runs pgarrow over SELECT on the smallest table
	// of at least a million rows (quick: its only table).
	sweepRows := sizes[0]
	for _, m := range want {
		if m.name != MethodSelect {
			continue
		}
		for _, b := range SweepBatches() {
			if b == pgarrow.DefaultBatchSize {
				continue
			}
			cases = append(cases, newCase(db, m, sweepRows, b))
		}
	}
	p := &workload.Plan{Cases: cases, Env: env, Descriptors: descs}
	if db != nil {
		p.Close = db.close
	}
	return p, nil
}

// openDatabase starts the throwaway server, or connects to cfg.PGDSN, and
// returns facts worth recording with the results.
func openDatabase(ctx context.Context, cfg workload.Config, maxRows int64) (*database, map[string]string, error) {
	db := &database{dsn: cfg.PGDSN, tmp: cfg.TempDir, tables: map[int64]*tableState{}}
	env := map[string]string{}
	if db.dsn == "" {
		sb, held := sharedBuffers(maxRows, meminfo("MemTotal"))
		srv, err := pgserver.Start(ctx, pgserver.Options{Settings: serverSettings(sb)})
		if err != nil {
			if errors.Is(err, pgserver.ErrBinariesNotFound) {
				return nil, nil, fmt.Errorf("%w: %v", workload.ErrUnavailable, err)
			}
			return nil, nil, fmt.Errorf("pgscan: %w", err)
		}
		db.srv, db.dsn, db.holds = srv, srv.DSN(), held
		env["server"] = "throwaway local PostgreSQL (pgserver)"
		cache := fmt.Sprintf("shared_buffers = %s, four times the largest table's estimated heap (%d B/row), so that its sequential scans do not go through the ring buffer", report.Bytes(float64(sb)), heapBytesPerRow)
		if !held {
			cache = fmt.Sprintf("shared_buffers = %s, capped at half the machine's memory: less than four times the largest table, whose scans go through the ring buffer", report.Bytes(float64(sb)))
		}
		env["table_cache"] = cache + "; every table is loaded with pg_prewarm before its first read"
	} else {
		env["server"] = "external (--pg-dsn)"
	}
	conn, err := db.connect(ctx)
	if err != nil {
		db.close()
		return nil, nil, db.redact(err)
	}
	var version string
	err = conn.QueryRow(ctx, "SHOW server_version").Scan(&version)
	conn.Close(context.Background())
	if err != nil {
		db.close()
		return nil, nil, db.redact(fmt.Errorf("pgscan: %w", err))
	}
	env["server_version"] = version
	return db, env, nil
}

// database is the server a plan reads from and the tables built on it.
type database struct {
	srv *pgserver.Server
	dsn string
	tmp string
	// holds is set when shared_buffers was sized to hold every table
	// (the throwaway server, with memory enough).
	holds  bool
	mu     sync.Mutex
	tables map[int64]*tableState
}

type tableState struct {
	once      sync.Once
	err       error
	wireBytes int64
}

func (db *database) connect(ctx context.Context) (*pgx.Conn, error) {
	if db.srv != nil {
		return db.srv.Connect(ctx)
	}
	c, err := pgx.Connect(ctx, db.dsn)
	if err != nil {
		return nil, fmt.Errorf("pgscan: connect to --pg-dsn: %w", err)
	}
	return c, nil
}

// table builds the table of n rows once and measures its binary COPY size.
func (db *database) table(ctx context.Context, n int64) (*tableState, error) {
	db.mu.Lock()
	t, ok := db.tables[n]
	if !ok {
		t = &tableState{}
		db.tables[n] = t
	}
	db.mu.Unlock()
	t.once.Do(func() {
		conn, err := db.connect(ctx)
		if err != nil {
			t.err = err
			return
		}
		defer conn.Close(context.Background())
		if t.err = createTable(ctx, conn, n); t.err != nil {
			return
		}
		if t.err = prewarm(ctx, conn, n, db.holds); t.err != nil {
			return
		}
		var cw countingWriter
		if _, err := conn.PgConn().CopyTo(ctx, &cw, "COPY ("+selectSQL(n)+") TO STDOUT (FORMAT binary)"); err != nil {
			t.err = fmt.Errorf("pgscan: measure %s: %w", tableName(n), err)
			return
		}
		t.wireBytes = cw.n
	})
	return t, t.err
}

func (db *database) close() error {
	if db.srv != nil {
		return db.srv.Stop()
	}
	return nil
}

func newCase(db *database, m method, rows int64, batch int) bench.Case {
	labels := results.Labels{{Key: LabelSubject, Value: m.name}, {Key: "rows", Value: strconv.FormatInt(rows, 10)}}
	if m.name == MethodSelect || m.name == MethodCopy {
		b := batch
		if b == 0 {
			b = pgarrow.DefaultBatchSize
		}
		labels = append(labels, results.Label{Key: "batch", Value: strconv.Itoa(b)})
	}
	if batch != 0 {
		labels = append(labels, results.Label{Key: "sweep", Value: "batch"})
	}
	c := bench.Case{
		Workload: Name,
		Name:     "PGScan",
		Labels:   labels,
		Role:     m.role,
		// Every method reading the table of one size is sampled
		// round-robin with the baseline and the ceilings.
		Group:   groupRead(rows),
		Metrics: map[string]float64{},
	}
	if batch != 0 {
		// The batch-size sweep compares pgarrow with itself: its cases
		// are subjects of a group of their own, interleaved.
		c.Role, c.Group = results.RoleSubject, groupSweep(rows)
	}
	if m.limit() {
		c.Notes = []string{"limit row"}
	}
	// Reads of ten million rows and more take seconds each: three samples,
	// and the verification pass is their warm-up.
	if rows >= 10_000_000 {
		c.Count = 3
		c.NoWarmup = true
	}
	// About 0.5 µs a row on a small machine, the server's ceiling.
	c.OpTime = time.Duration(rows) * 500 * time.Nanosecond
	ctx := context.Background()
	var (
		s     *session
		table *tableState
	)
	c.Setup = func() error {
		var err error
		if table, err = db.table(ctx, rows); err != nil {
			return err
		}
		conn, err := db.connect(ctx)
		if err != nil {
			return err
		}
		s = &session{conn: conn, rows: rows, sql: selectSQL(rows), batch: batch}
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&s.backendPID); err != nil {
			return fmt.Errorf("backend pid: %w", err)
		}
		if s.pa, err = pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: batch}); err != nil {
			return err
		}
		if m.name == MethodADBC {
			if s.adbc, err = startADBC(ctx, db.tmp, db.dsn, s.sql); err != nil {
				return err
			}
			// Server CPU is that of the backend serving the runner.
			s.backendPID = s.adbc.backendPID
		}
		c.Metrics[MetricWireBytes] = float64(table.wireBytes)
		return nil
	}
	c.Teardown = func() {
		if s == nil {
			return
		}
		if s.adbc != nil {
			s.adbc.close()
		}
		s.conn.Close(context.Background())
	}
	c.Verify = func() error {
		n, err := m.run(ctx, s, true)
		if err != nil {
			return err
		}
		if n != rows {
			return fmt.Errorf("read %d rows, want %d", n, rows)
		}
		return nil
	}
	c.Run = func(b *bench.B) error {
		b.SetBytes(table.wireBytes)
		// Peak RSS of the process that holds the data: this one, or the
		// ADBC runner.
		pid := "self"
		if s.adbc != nil {
			pid = strconv.Itoa(s.adbc.cmd.Process.Pid)
		}
		rss := resetPeakRSS(pid)
		cpu0 := clientCPU()
		srv0, srvErr := serverCPU(db, s)
		var childCPU float64
		t0 := time.Now()
		for i := 0; i < b.N; i++ {
			if m.name == MethodADBC {
				res, err := s.adbc.run(ctx, false)
				if err != nil {
					return err
				}
				childCPU += res.CPU
				if res.Rows != rows {
					return fmt.Errorf("adbc read %d rows, want %d", res.Rows, rows)
				}
				continue
			}
			n, err := m.run(ctx, s, false)
			if err != nil {
				return err
			}
			if n != rows {
				return fmt.Errorf("read %d rows, want %d", n, rows)
			}
		}
		el := time.Since(t0)
		b.StopTimer()
		N := float64(b.N)
		b.ReportMetric(float64(rows)*N/el.Seconds(), MetricRowsPerSec)
		b.ReportMetric((clientCPU()-cpu0+childCPU)/N, MetricClientCPU)
		if srvErr == nil {
			if srv1, err := serverCPU(db, s); err == nil {
				b.ReportMetric((srv1-srv0)/N, MetricServerCPU)
			}
		}
		if rss {
			b.ReportMetric(peakRSS(pid), MetricPeakRSS)
		}
		return nil
	}
	// No error a case records may carry the connection string's password.
	setup, verify, run := c.Setup, c.Verify, c.Run
	c.Setup = func() error { return db.redact(setup()) }
	c.Verify = func() error { return db.redact(verify()) }
	c.Run = func(b *bench.B) error { return db.redact(run(b)) }
	return c
}

// redactedError is an error whose text hides a password; errors.Is and
// errors.As still see the error it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact returns err with the password of the database's connection
// string (--pg-dsn) hidden from its text, or err itself when there is
// nothing to hide.
func (db *database) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if pw := results.DSNPassword(db.dsn); pw != "" {
		msg = strings.ReplaceAll(msg, pw, results.Redacted)
	}
	msg = results.Redact(msg)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// serverCPU returns the CPU seconds of the session's backend process, when
// it runs on this machine and /proc is readable.
func serverCPU(db *database, s *session) (float64, error) {
	if db.srv == nil && !isLocal(db.dsn) {
		return 0, errors.New("remote server")
	}
	return pgserver.ProcessCPUSeconds(s.backendPID)
}

func isLocal(dsn string) bool {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return false
	}
	h := cfg.Host
	if h == "localhost" || h == "127.0.0.1" || h == "::1" || (len(h) > 0 && h[0] == '/') {
		_, err := os.Stat("/proc/self/stat")
		return err == nil
	}
	return false
}
