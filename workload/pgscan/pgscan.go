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
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/pflag"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
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
type Workload struct {
	// reg holds the subjects (nil: the built-in methods).
	reg *subject.Registry
	// dsn is an external PostgreSQL to use instead of a throwaway one
	// (--pg-dsn; empty: the throwaway server).
	dsn string
	// query, when its SQL is set, replaces the generated tables (--query).
	query Query
	// log receives what the workload creates and drops on a --pg-dsn
	// server, before it does (nil: os.Stderr: never silent).
	log io.Writer
}

// New returns the pgscan workload.
func New() *Workload { return &Workload{} }

// WithLog sets where the workload says what it creates and drops on a
// server named by --pg-dsn, before it does so (default: os.Stderr), and
// returns w.
func (w *Workload) WithLog(log io.Writer) *Workload {
	w.log = log
	return w
}

// WithDSN sets the external PostgreSQL the workload works on instead of a
// throwaway local server (--pg-dsn; empty: the throwaway server) and
// returns w.
func (w *Workload) WithDSN(dsn string) *Workload {
	w.dsn = dsn
	return w
}

// AddFlags implements workload.Options: --pg-dsn, --query and --rows.
func (w *Workload) AddFlags(fl *pflag.FlagSet) {
	fl.StringVar(&w.dsn, "pg-dsn", w.dsn, "PostgreSQL to use for pgscan instead of a throwaway local server (URL or key=value string); serbench works there only inside a schema serbench_pgscan it creates, says so first, drops at the end, and installs no extension; prefer PGPASSWORD or ~/.pgpass for the password: a password in --pg-dsn is visible to other users in ps")
	fl.StringVar(&w.query.SQL, "query", w.query.SQL, "pgscan workload: read the result of this query with every method instead of the generated table (with --pg-dsn, on that server; without, on the throwaway server, which holds the tables performance_test_<rows>)")
	fl.Int64Var(&w.query.Rows, "rows", w.query.Rows, "pgscan workload: read at most N rows of --query (SELECT * FROM (query) LIMIT N)")
}

// CheckFlags implements workload.Options: --query and --rows need the
// workload named (--pg-dsn does not: a run of every workload includes
// pgscan), and must make sense (CheckQuery).
func (w *Workload) CheckFlags(named, _ bool) error {
	if w.query.SQL == "" && w.query.Rows == 0 {
		return nil
	}
	if !named {
		return workload.Usagef("--query and --rows apply to the pgscan workload: name it (serbench run pgscan --query 'SELECT …')")
	}
	if err := CheckQuery(w.query); err != nil {
		return &workload.UsageError{Err: err}
	}
	return nil
}

// logw is the workload's log.
func (w *Workload) logw() io.Writer {
	if w.log == nil {
		return os.Stderr
	}
	return w.log
}

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "PostgreSQL → Arrow (seed 003): pgarrow SELECT and COPY vs pgx vs ADBC vs the server's COPY ceiling, on a throwaway local server"
}

// Subjects implements workload.Workload.
func (w *Workload) Subjects() []string {
	ss, _ := w.subjects()
	return subject.Names(ss)
}

// WithSubjects sets the registry whose pgscan subjects the workload
// measures (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// subjects returns the subjects the workload measures.
func (w *Workload) subjects() ([]Subject, error) { return subject.Of(w.reg, Name, builtin) }

// Label keys: the case's method, where its rows come from (source=server
// or source=replay) and, for a read over several connections, how many
// (partitions=N).
const (
	LabelSubject    = "subject"
	LabelSource     = "source"
	LabelPartitions = "partitions"
)

// groupRead and groupSweep name the comparison groups of a table size:
// every method's full read, and the batch-size sweep.
func groupRead(rows int64) string  { return "rows=" + strconv.FormatInt(rows, 10) }
func groupSweep(rows int64) string { return "rows=" + strconv.FormatInt(rows, 10) + "/batch-sweep" }

// groupReplay and groupParallel name the replay's group and the
// partitioned reads' group of a table size.
func groupReplay(rows int64) string   { return "rows=" + strconv.FormatInt(rows, 10) + "/replay" }
func groupParallel(rows int64) string { return "rows=" + strconv.FormatInt(rows, 10) + "/partitions" }

// scales is the workload's scale table: the table sizes in rows (the
// seed's 1M, 10M and 46M at full).
func scales() workload.ScaleTable[[]int64] {
	return workload.ScaleTable[[]int64]{
		Quick: []int64{100_000},
		// The seed's smallest table by default: loading 10M rows takes
		// longer than measuring them; full adds the seed's larger ones.
		Default: []int64{1_000_000},
		Full:    []int64{1_000_000, 10_000_000, 46_000_000},
		Describe: func(rows []int64) string {
			parts := make([]string, len(rows))
			for i, r := range rows {
				parts[i] = table.Compact(float64(r))
			}
			return strings.Join(parts, ", ") + " rows"
		},
	}
}

// Sizes returns the table sizes (rows) of a scale.
func Sizes(s workload.Scale) []int64 { return scales().At(s) }

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

// Partitions are the connection counts of the partitioned reads.
func Partitions() []int { return []int{1, 2, 4} }

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
// are built. The search path ends with serbench's schema, so that a
// --query on the throwaway server names the tables without it
// (performance_test_<rows>).
func serverSettings(sharedBufferBytes int64) map[string]string {
	return map[string]string{
		"shared_buffers":       strconv.FormatInt(sharedBufferBytes>>20, 10) + "MB",
		"max_wal_size":         "8GB",
		"checkpoint_timeout":   "1h",
		"maintenance_work_mem": "256MB",
		"jit":                  "off",
		"search_path":          `"$user", public, ` + SchemaName,
	}
}

// Plan implements workload.Workload. It starts the throwaway server (or
// checks --pg-dsn) now; tables are built lazily by the first case of each
// size. On a --pg-dsn server it claims serbench's schema (see claimSchema)
// and says on its log what it creates and drops there; with --query it
// creates nothing there and reads in read-only transactions.
func (w *Workload) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	ss, err := w.subjects()
	if err != nil {
		return nil, fmt.Errorf("pgscan: %w", err)
	}
	var want []method
	for _, sub := range ss {
		if !cfg.WantSubject(sub.Name()) {
			continue
		}
		m, err := bound(sub, w.query)
		if err != nil {
			return nil, &workload.UsageError{Err: fmt.Errorf("pgscan: %s: %w", sub.Name(), err)}
		}
		want = append(want, m)
	}
	if len(want) == 0 {
		return &workload.Plan{}, nil
	}
	if err := CheckQuery(w.query); err != nil {
		return nil, &workload.UsageError{Err: err}
	}
	var (
		db  *database
		env = map[string]string{}
	)
	if !cfg.DryRun {
		if db, env, err = openDatabase(ctx, cfg, w.dsn, slices.Max(Sizes(cfg.Scale))); err != nil {
			return nil, err
		}
		db.log = w.logw()
		switch {
		case db.srv != nil:
			// The throwaway server is serbench's: its tables go to its schema (ensureSchema).
		case w.query.SQL != "":
			db.readOnly = true
			env["writes"] = "none: with --query serbench creates nothing on the --pg-dsn server, and the reference read and the Go methods run the query in read-only transactions (default_transaction_read_only = on)"
		default:
			if err := db.claimSchema(ctx, db.log, Sizes(cfg.Scale), env); err != nil {
				db.close()
				return nil, db.redact(err)
			}
		}
	}
	// The Python peers: their versions, or why they are not installed.
	peerVersions, peerErrs := map[string]string{}, map[string]error{}
	if !cfg.DryRun {
		py := peerPython(cfg.Runners.Get(ctx))
		if db != nil {
			db.python = py
		}
		peerVersions[driverADBC], peerErrs[driverADBC] = adbcAvailable(ctx, py)
		peerVersions[driverConnectorX], peerErrs[driverConnectorX] = connectorxAvailable(ctx, py)
		for _, d := range []string{driverADBC, driverConnectorX} {
			if peerErrs[d] == nil {
				env[d] = peerVersions[d]
			}
		}
	}
	descs := make([]results.Descriptor, 0, len(want))
	for _, m := range want {
		descs = append(descs, m.describe(peerVersions[m.peer], peerErrs[m.peer]))
	}
	replaySkip := ""
	if db != nil && db.srv == nil {
		replaySkip = "the replay needs the throwaway server (trust authentication), not --pg-dsn"
	}
	avail := meminfo("MemAvailable")
	if !cfg.DryRun {
		env["replay"] = "the server's answer to one read recorded through a proxy (pgserver/replay) and played back in a loop by an in-process fake server on loopback; its CPU counts as client CPU"
	}

	if w.query.SQL != "" {
		return w.queryPlan(ctx, cfg, db, env, want, descs, peerErrs, replaySkip, avail)
	}
	var cases []bench.Case
	sizes := Sizes(cfg.Scale)
	add := func(m method, sp spec) {
		c := newCaseSpec(db, m, sp)
		if err := peerErrs[m.peer]; m.peer != "" && err != nil {
			c.Skip = err.Error()
		}
		cases = append(cases, c)
	}
	for _, n := range sizes {
		for _, m := range want {
			add(m, spec{rows: n})
		}
		// The client-only ceiling: the Go methods against the replay.
		for _, m := range want {
			if !m.replay {
				continue
			}
			c := newCaseSpec(db, m, spec{rows: n, replay: true})
			switch {
			case replaySkip != "":
				c.Skip = replaySkip
			case !replayFits(n, avail):
				c.Skip = fmt.Sprintf("the replay's recordings of %d rows (about %s) do not fit in a third of the memory available", n, table.Bytes(float64(3*replayBytesPerRow*n)))
			}
			cases = append(cases, c)
		}
		// Partitioned reads: pgarrow over 1, 2 and 4 connections,
		// ConnectorX over 2 and 4.
		for _, m := range want {
			if !m.parallel {
				continue
			}
			for _, p := range Partitions() {
				if m.peer != "" && p == 1 {
					continue // the method comparison's single stream
				}
				add(m, spec{rows: n, partitions: p})
			}
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
	p := &workload.Plan{Cases: cases, Env: env, Descriptors: descs, MeasuresRSS: true}
	if db != nil {
		p.Close = db.close
	}
	return p, nil
}

// openDatabase starts the throwaway server, or connects to dsn when it is
// set, and returns facts worth recording with the results.
func openDatabase(ctx context.Context, cfg workload.Config, dsn string, maxRows int64) (*database, map[string]string, error) {
	db := &database{dsn: dsn, tmp: cfg.TempDir, tables: map[int64]*tableState{}}
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
		cache := fmt.Sprintf("shared_buffers = %s, four times the largest table's estimated heap (%d B/row), so that its sequential scans do not go through the ring buffer", table.Bytes(float64(sb)), heapBytesPerRow)
		if !held {
			cache = fmt.Sprintf("shared_buffers = %s, capped at half the machine's memory: less than four times the largest table, whose scans go through the ring buffer", table.Bytes(float64(sb)))
		}
		env["table_cache"] = cache + "; every table is loaded with pg_prewarm before its first read"
	} else {
		env["server"] = "external (--pg-dsn)"
		cfg, err := db.connConfig()
		if err != nil {
			return nil, nil, err
		}
		db.password = cfg.Password
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
	env["session"] = sessionNote
	return db, env, nil
}

// database is the server a plan reads from and the tables built on it.
type database struct {
	srv *pgserver.Server
	dsn string
	tmp string
	// cfg is dsn parsed, with the PG* environment and the password file
	// applied (an external server), once; password is its password,
	// wherever it came from, hidden from every error.
	cfgOnce  sync.Once
	cfg      *pgx.ConnConfig
	cfgErr   error
	password string
	// peer is the connection URL the Python peers get (peerURL), once.
	peerOnce sync.Once
	peer     string
	peerErr  error
	// python is the interpreter the Python peers run in (peerPython).
	python string
	// readOnly makes every transaction of the Go connections to the
	// server read-only (--query on a --pg-dsn server).
	readOnly bool
	// log receives what is created and dropped on an external server.
	log io.Writer
	// schemaOnce creates serbench's schema on the throwaway server.
	schemaOnce sync.Once
	schemaErr  error
	// claimed is set while this run owns serbench's schema on an external
	// server; owner is the session holding its advisory lock, info the
	// database and user the messages name.
	claimed bool
	owner   *pgx.Conn
	info    serverInfo
	// prewarmFn is the server's pg_prewarm function ("" when none: the
	// tables are warmed by a read).
	prewarmFn string
	// holds is set when shared_buffers was sized to hold every table
	// (the throwaway server, with memory enough).
	holds  bool
	mu     sync.Mutex
	tables map[int64]*tableState
	// replays are the replay servers by table size, started on first use.
	replays map[int64]*replayState
	// query is the user's query (--query) every case reads instead of
	// the tables; the replay records its answer.
	query *userQuery
}

type tableState struct {
	once      sync.Once
	err       error
	wireBytes int64
}

// sessionSettings are set on every session serbench reads with, as
// startup parameters of the Go connections and (peerOptions) in the Python
// peers' URL. synchronize_seqscans = off: a sequential scan of a table
// larger than a quarter of shared_buffers otherwise starts where the
// previous scan of it stopped, so that a query with a LIMIT (--rows) and
// no ORDER BY read other rows on every read, and every method's values
// differed from the reference's (issue 26).
var sessionSettings = map[string]string{"synchronize_seqscans": "off"}

// peerOptions is sessionSettings as the libpq "options" of the peers'
// URL, in the --name=value form of a server option: one word, without the
// space of "-c name=value", the one character a rewrite of the URL changes
// (form encoding makes it '+', which rust-postgres, ConnectorX's driver,
// does not decode). libpq (ADBC's driver, psql) and ConnectorX 0.4.6 apply
// it (TestCappedQueryOnBigTable).
const peerOptions = "--synchronize_seqscans=off"

// sessionNote records the session settings in the run's environment.
const sessionNote = "synchronize_seqscans = off on every connection (the Go methods' startup parameters, the Python peers' options): each read of a table starts at its first block, so that a LIMIT without ORDER BY (--rows) reads the same rows every time"

func (db *database) connect(ctx context.Context) (*pgx.Conn, error) {
	var cfg *pgx.ConnConfig
	if db.srv != nil {
		c, err := db.srv.ConnConfig()
		if err != nil {
			return nil, err
		}
		cfg = c
	} else {
		c, err := db.connConfig()
		if err != nil {
			return nil, err
		}
		cfg = c.Copy()
		if db.readOnly {
			cfg.RuntimeParams["default_transaction_read_only"] = "on"
		}
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	for k, v := range sessionSettings {
		cfg.RuntimeParams[k] = v
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		if db.srv != nil {
			return nil, db.redact(fmt.Errorf("pgscan: connect to the throwaway server: %w", err))
		}
		return nil, db.redact(fmt.Errorf("pgscan: connect to --pg-dsn: %w", err))
	}
	return c, nil
}

// connConfig returns the external server's connection string parsed as
// pgx (and libpq) read it: with PGPASSWORD, PGPASSFILE or ~/.pgpass, and
// the other PG* variables applied.
func (db *database) connConfig() (*pgx.ConnConfig, error) {
	db.cfgOnce.Do(func() {
		db.cfg, db.cfgErr = pgx.ParseConfig(db.dsn)
		if db.cfgErr != nil {
			db.cfgErr = db.redact(fmt.Errorf("pgscan: --pg-dsn: %w", db.cfgErr))
		}
	})
	return db.cfg, db.cfgErr
}

// peerDSN returns the connection URL the Python peers get on stdin.
func (db *database) peerDSN() (string, error) {
	db.peerOnce.Do(func() {
		db.peer, db.peerErr = peerURL(db.dsn)
		db.peerErr = db.redact(db.peerErr)
	})
	return db.peer, db.peerErr
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
		if t.err = db.ensureSchema(ctx, conn); t.err != nil {
			return
		}
		if t.err = createTable(ctx, conn, n); t.err != nil {
			return
		}
		if t.err = prewarm(ctx, conn, n, db.prewarmFn, db.holds); t.err != nil {
			return
		}
		// Without pg_prewarm, this full read is what warms the table.
		var cw countingWriter
		if _, err := conn.PgConn().CopyTo(ctx, &cw, "COPY ("+selectSQL(n)+") TO STDOUT (FORMAT binary)"); err != nil {
			t.err = fmt.Errorf("pgscan: measure %s: %w", tableName(n), err)
			return
		}
		t.wireBytes = cw.n
	})
	return t, t.err
}

// close releases the database: the throwaway server stopped, or on an
// external server serbench's schema dropped (releaseSchema).
func (db *database) close() error {
	db.closeReplays()
	if db.srv != nil {
		return db.srv.Stop()
	}
	return db.releaseSchema()
}

// logw is the database's log (os.Stderr when none is set).
func (db *database) logw() io.Writer {
	if db.log == nil {
		return os.Stderr
	}
	return db.log
}

// spec is what a case measures beyond its method: the table size, a
// non-default batch size (the sweep), a read over several connections
// (partitions > 0: the partitions group) or from the replay.
type spec struct {
	rows       int64
	batch      int
	partitions int
	replay     bool
	// q, when set, is the user's query read instead of the table.
	q *userQuery
}

func newCase(db *database, m method, rows int64, batch int) bench.Case {
	return newCaseSpec(db, m, spec{rows: rows, batch: batch})
}

// Label values of the source label.
const (
	sourceServer = "server"
	sourceReplay = "replay"
)

func newCaseSpec(db *database, m method, sp spec) bench.Case {
	rows, batch := sp.rows, sp.batch
	source := sourceServer
	if sp.replay {
		source = sourceReplay
	}
	labels := results.Labels{{Key: LabelSubject, Value: m.name}, {Key: "rows", Value: strconv.FormatInt(rows, 10)}, {Key: LabelSource, Value: source}}
	if sp.q != nil {
		labels = append(labels, results.Label{Key: LabelQuery, Value: queryUser})
	}
	if m.name == MethodSelect || m.name == MethodCopy {
		b := batch
		if b == 0 {
			b = pgarrow.DefaultBatchSize
		}
		labels = append(labels, results.Label{Key: "batch", Value: strconv.Itoa(b)})
	}
	if sp.partitions > 0 {
		labels = append(labels, results.Label{Key: LabelPartitions, Value: strconv.Itoa(sp.partitions)})
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
	switch {
	case batch != 0:
		// The batch-size sweep compares pgarrow with itself: its cases
		// are subjects of a group of their own, interleaved.
		c.Role, c.Group = results.RoleSubject, groupSweep(rows)
	case sp.replay:
		// The replay group: pgarrow over SELECT is the baseline, the raw
		// loop that decodes nothing the reference (its limit row).
		c.Group, c.Role = groupReplay(rows), results.RoleSubject
		switch m.name {
		case MethodSelect:
			c.Role = results.RoleBaseline
		case MethodRaw:
			c.Role = results.RoleLimit
		}
	case sp.partitions > 0:
		c.Group, c.Role = groupParallel(rows), results.RoleSubject
		if m.name == MethodSelect && sp.partitions == 1 {
			c.Role = results.RoleBaseline
		}
	}
	if sp.q != nil {
		c.Group = "query/" + c.Group
	}
	if m.limit() && !sp.replay {
		c.Notes = []string{"limit row"}
	}
	if sp.q != nil && m.rawBinary() {
		if cols := sp.q.textOnly(); len(cols) > 0 {
			c.Notes = append(c.Notes, "not compared (read in binary; pgarrow reads these types in text form): "+strings.Join(cols, ", "))
		}
	}
	// Reads of a million rows and more take tenths of a second each: at
	// least three samples within the run's sampling time (not MinRounds),
	// and the verification pass, which reads the same rows through the
	// same server, is their warm-up. Ten million and more take seconds
	// each: three samples.
	if rows >= 1_000_000 {
		c.MinCount = 3
		c.NoWarmup = true
	}
	if rows >= 10_000_000 {
		c.Count = 3
	}
	// About 0.5 µs a row on a small machine, the server's ceiling.
	c.OpTime = time.Duration(rows) * 500 * time.Nanosecond
	ctx := context.Background()
	var (
		s     *Session
		table *tableState
		// replayHeld is set while the case holds the replay servers of
		// its table size (released at teardown).
		replayHeld bool
	)
	run := m.run // bound to the run's query (Subject.Bind)
	sql := selectSQL(rows)
	if sp.q != nil {
		sql = sp.q.sql
	} else if sp.partitions > 0 && m.peer == "" {
		run = runParallel
	}
	c.Setup = func() error {
		var err error
		if sp.q != nil {
			table = &tableState{wireBytes: sp.q.wireB}
		} else if table, err = db.table(ctx, rows); err != nil {
			return err
		}
		c.Metrics[MetricWireBytes] = float64(table.wireBytes)
		if sp.replay {
			srv, err := db.replayServer(ctx, rows, replayKind(m.name))
			if err != nil {
				return err
			}
			replayHeld = true
			cfg, err := replayConfig(srv.DSN())
			if err != nil {
				return err
			}
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				return fmt.Errorf("pgscan: connect to the replay: %w", err)
			}
			s = &Session{conn: conn, rows: rows, sql: sql, replay: true, q: sp.q, method: m.name, tmp: db.tmp}
			if s.pa, err = pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: batch}); err != nil {
				return fmt.Errorf("pgscan: %w", err)
			}
			return nil
		}
		conn, err := db.connect(ctx)
		if err != nil {
			return err
		}
		s = &Session{conn: conn, rows: rows, sql: sql, batch: batch, q: sp.q, method: m.name, tmp: db.tmp}
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&s.backendPID); err != nil {
			return fmt.Errorf("pgscan: backend pid: %w", err)
		}
		if s.pa, err = pgarrow.NewConn(conn.PgConn(), pgarrow.Options{BatchSize: batch}); err != nil {
			return fmt.Errorf("pgscan: %w", err)
		}
		switch {
		case m.peer != "":
			dsn, err := db.peerDSN()
			if err != nil {
				return err
			}
			start := adbcStart{DSN: dsn, SQL: s.sql, Driver: m.peer, Python: db.python}
			if sp.partitions > 1 {
				start.PartitionOn, start.Partitions = "id", sp.partitions
			}
			if s.adbc, err = startADBC(ctx, db.tmp, start); err != nil {
				return err
			}
			// Server CPU is that of the backend serving the runner, or
			// (ConnectorX connects per read) the whole server's.
			s.backendPID = s.adbc.backendPID
			s.serverWide = s.backendPID == 0
		case sp.partitions > 0:
			if s.queries, err = pgarrow.KeyRanges(ctx, s.pa, s.sql, "id", sp.partitions); err != nil {
				return fmt.Errorf("pgscan: key ranges: %w", err)
			}
			for range s.queries {
				pc, err := db.connect(ctx)
				if err != nil {
					return err
				}
				s.partPGX = append(s.partPGX, pc)
				var pid int
				if err := pc.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
					return fmt.Errorf("pgscan: backend pid: %w", err)
				}
				s.partPIDs = append(s.partPIDs, pid)
				pa, err := pgarrow.NewConn(pc.PgConn(), pgarrow.Options{BatchSize: batch})
				if err != nil {
					return fmt.Errorf("pgscan: %w", err)
				}
				s.parts = append(s.parts, pa)
			}
		}
		return nil
	}
	c.Teardown = func() {
		if replayHeld {
			db.releaseReplay(rows)
			replayHeld = false
		}
		if s == nil {
			return
		}
		if s.adbc != nil {
			s.adbc.close()
		}
		for _, pc := range s.partPGX {
			pc.Close(context.Background())
		}
		s.conn.Close(context.Background())
	}
	c.Verify = func() error {
		if m.peer != "" && s.adbc == nil {
			return fmt.Errorf("pgscan: %s runner not started", m.name)
		}
		n, err := run(ctx, s, true)
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
		// Python runner.
		pid := "self"
		if s.adbc != nil {
			pid = strconv.Itoa(s.adbc.cmd.Process.Pid)
		} else {
			// Hand the heap left by earlier cases back to the OS, untimed,
			// so that the peak is this read's.
			b.StopTimer()
			debug.FreeOSMemory()
			b.StartTimer()
		}
		rss := resetPeakRSS(pid)
		cpu0 := clientCPU()
		srv0, srvErr := serverCPU(db, s)
		var childCPU float64
		t0 := time.Now()
		for i := 0; i < b.N; i++ {
			if s.adbc != nil {
				res, err := s.adbc.run(ctx, false)
				if err != nil {
					return err
				}
				childCPU += res.CPU
				if res.Rows != rows {
					return fmt.Errorf("%s read %d rows, want %d", m.name, res.Rows, rows)
				}
				continue
			}
			n, err := run(ctx, s, false)
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
	setup, verify, runB := c.Setup, c.Verify, c.Run
	c.Setup = func() error { return db.redact(setup()) }
	c.Verify = func() error { return db.redact(verify()) }
	c.Run = func(b *bench.B) error { return db.redact(runB(b)) }
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
	for _, pw := range []string{results.DSNPassword(db.dsn), db.password} {
		for _, s := range passwordForms(pw) {
			msg = strings.ReplaceAll(msg, s, results.Redacted)
		}
	}
	msg = results.Redact(msg)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// serverCPU returns the CPU seconds of the session's backend processes,
// when they run on this machine and /proc is readable: the backend's, the
// sum of a parallel read's, or (for ConnectorX, which connects per read)
// the whole throwaway server's, exited backends included. A replayed
// session has no server.
func serverCPU(db *database, s *Session) (float64, error) {
	switch {
	case s.replay:
		return 0, errors.New("replay: no server")
	case s.serverWide:
		if db.srv == nil {
			return 0, errors.New("server-wide CPU of an external server")
		}
		return db.srv.CPUSeconds()
	case db.srv == nil && !isLocal(db.dsn):
		return 0, errors.New("remote server")
	case len(s.partPIDs) > 0:
		total := 0.0
		for _, pid := range s.partPIDs {
			v, err := pgserver.ProcessCPUSeconds(pid)
			if err != nil {
				return 0, err
			}
			total += v
		}
		return total, nil
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
