package pgscan

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
)

// Method names: the values of the "subject" label.
const (
	MethodSelect        = "pgarrow-select"
	MethodCopy          = "pgarrow-copy"
	MethodScan          = "pgx-scan"
	MethodRaw           = "pgx-raw"
	MethodCeiling       = "copy-discard"
	MethodSelectCeiling = "select-discard"
	MethodADBC          = "adbc"
	MethodConnectorX    = "connectorx"
)

// Descriptor tags of the methods.
const (
	// TagArrow marks a method whose result is Arrow record batches.
	TagArrow = "arrow"
	// TagPeer marks the seed's peer (ADBC), the goal's yardstick.
	TagPeer = "peer"
	// TagPeer2 marks the second peer (ConnectorX).
	TagPeer2 = "peer2"
)

// Modules of the methods' libraries.
const (
	modulePgarrow = "github.com/serbench/serbench/pgarrow"
	modulePgx     = "github.com/jackc/pgx/v5"
)

// method is one way of reading the table. run reads it whole; with check
// it also verifies every row (outside the timed region).
type method struct {
	name  string
	note  string
	arrow bool
	// role is the method's role: pgarrow over SELECT is the baseline, the
	// server ceilings are limit rows.
	role string
	// module is the Go library the method measures ("" for the ADBC peer,
	// described from the Python runner, and for limit rows); settings
	// are the fairness facts.
	module   string
	settings map[string]string
	// peer is the Python runner's driver (driverADBC, driverConnectorX)
	// for the peers, "" for the Go methods.
	peer string
	// replay is set for the Go methods that also read the replayed
	// server (a client-only ceiling); parallel for those that also read
	// over several connections.
	replay, parallel bool
	run              func(ctx context.Context, s *Session, check bool) (rows int64, err error)
	// desc is the registered subject's descriptor (empty: built from the
	// fields above, base).
	desc results.Descriptor
}

// Method is what a pgscan subject binds to: how it reads the query's rows
// through a Session, and what the plan needs to know of it.
type Method struct {
	// Arrow says the result is Arrow record batches (the Arrow methods are
	// compared with each other).
	Arrow bool
	// Peer is the Python runner's driver for a method read by a Python
	// library ("" for a Go method): the plan starts that runner and
	// describes the peer's version.
	Peer string
	// Replay says the method also reads the replayed server (a
	// client-only ceiling); Parallel that it also reads over several
	// connections (pgarrow.ParallelQuery for a Go method).
	Replay, Parallel bool
	// Read reads the session's query whole and returns the rows read;
	// with check it also verifies every row (outside the timed region).
	Read func(ctx context.Context, s *Session, check bool) (rows int64, err error)
}

// Subject is the shape of a pgscan subject: bound to the query the run
// reads (the generated table when its SQL is empty), it returns its Method.
type Subject = subject.Subject[Query, Method]

// Register adds the built-in methods to r.
func Register(r *subject.Registry) error { return subject.Add(r, Name, builtin()...) }

// builtin returns the built-in methods as subjects: each binds to the
// table reader or, for a --query, to its reader of the user's query.
func builtin() []Subject {
	var ss []Subject
	for _, m := range methods() {
		ss = append(ss, Subject{Desc: m.base(), Bind: func(q Query) (Method, error) {
			read := m.run
			if q.SQL != "" {
				read = queryRun(m)
			}
			return Method{Arrow: m.arrow, Peer: m.peer, Replay: m.replay, Parallel: m.parallel, Read: read}, nil
		}})
	}
	return ss
}

// bound is the method s binds to for q.
func bound(s Subject, q Query) (method, error) {
	ops, err := s.Bind(q)
	if err != nil {
		return method{}, err
	}
	if ops.Read == nil {
		return method{}, fmt.Errorf("bound to no Read")
	}
	return method{name: s.Name(), role: s.Desc.Role, desc: s.Describe(Name), arrow: ops.Arrow, peer: ops.Peer,
		replay: ops.Replay, parallel: ops.Parallel, run: ops.Read}, nil
}

// Conn is the session's pgx connection.
func (s *Session) Conn() *pgx.Conn { return s.conn }

// Arrow is the session's pgarrow connection (on the same server
// connection as Conn).
func (s *Session) Arrow() *pgarrow.Conn { return s.pa }

// SQL is the query the session reads.
func (s *Session) SQL() string { return s.sql }

// Rows is how many rows the query returns.
func (s *Session) Rows() int64 { return s.rows }

// limit reports whether m is a server-ceiling row.
func (m method) limit() bool { return m.role == results.RoleLimit }

// rawBinary reports whether m reads a --query's values in binary whatever
// their type (checked by decoding them with pgx's type map).
func (m method) rawBinary() bool {
	return m.name == MethodCeiling || m.name == MethodSelectCeiling
}

// pgarrowSettings are the options every pgarrow case uses; the batch-size
// sweep varies batch_rows (its cases carry the batch label).
func pgarrowSettings(protocol string) map[string]string {
	return map[string]string{
		"protocol":   protocol,
		"batch_rows": strconv.Itoa(pgarrow.DefaultBatchSize) + " (pgarrow.DefaultBatchSize; the sweep varies it, see the batch label)",
		"allocator":  "pgarrow's safe default: fixed-width buffers recycled, string and list values owned by the batch (they survive the next batch)",
		"output":     "Arrow record batches (id int64, score float64, active bool, name utf8, created_date date32)",
	}
}

func methods() []method {
	return []method{
		{name: MethodSelect, arrow: true, role: results.RoleBaseline, module: modulePgarrow, replay: true, parallel: true,
			note:     "pgarrow.Conn.Query: extended protocol, binary results, decoded straight into reused Arrow builders",
			settings: pgarrowSettings("extended query protocol, binary result format"), run: runSelect},
		{name: MethodCopy, arrow: true, role: results.RoleSubject, module: modulePgarrow, replay: true,
			note:     "pgarrow.Conn.Copy: COPY (SELECT …) TO STDOUT (FORMAT binary) parsed into the same builders",
			settings: pgarrowSettings("COPY (SELECT …) TO STDOUT (FORMAT binary)"), run: runCopy},
		{name: MethodScan, role: results.RoleSubject, module: modulePgx, replay: true,
			note:     "pgx rows.Scan into Go values (int64, float64, bool, string, time.Time): no Arrow",
			settings: map[string]string{"protocol": "extended query protocol, binary result format", "output": "Go values via rows.Scan (strings allocated per row)"},
			run:      runScan},
		{name: MethodRaw, role: results.RoleSubject, module: modulePgx, replay: true,
			note:     "pgx rows.RawValues decoded by hand (the seed's fastest non-Arrow path): no Arrow, no allocation per row",
			settings: map[string]string{"protocol": "extended query protocol, binary result format", "output": "rows.RawValues decoded by hand into one reused row (name aliases the read buffer)"},
			run:      runRaw},
		{name: MethodCeiling, role: results.RoleLimit,
			note:     "limit row: the server's own COPY BINARY output drained into io.Discard — one backend cannot produce rows faster",
			settings: map[string]string{"protocol": "COPY (SELECT …) TO STDOUT (FORMAT binary)", "client": "pgx's pgconn CopyTo into io.Discard, nothing decoded"},
			run:      runCeiling},
		{name: MethodSelectCeiling, role: results.RoleLimit,
			note:     "limit row: the same SELECT in binary format, every row received by pgconn and dropped undecoded — the protocol path without any decoding",
			settings: map[string]string{"protocol": "extended query protocol, binary result format", "client": "pgx's pgconn ExecParams, rows received and dropped undecoded"},
			run:      runSelectCeiling},
		{name: MethodADBC, arrow: true, role: results.RoleSubject, peer: driverADBC,
			note:     "peer: the ADBC PostgreSQL driver (C++, via Python adbc-driver-postgresql + pyarrow), the seed's comparison, reading Arrow batches in a helper process",
			settings: map[string]string{"protocol": "the driver's own: COPY (SELECT …) TO STDOUT (FORMAT binary)", "process": "a long-lived python3 runner; start-up and imports not timed; the connection string reaches it on stdin", "output": "Arrow record batches (pyarrow)"},
			run:      runADBC},
		{name: MethodConnectorX, arrow: true, role: results.RoleSubject, peer: driverConnectorX, parallel: true,
			note: "peer: ConnectorX (Rust, via Python connectorx + pyarrow), connectorx.read_sql(return_type=\"arrow\") in the same helper process as ADBC; with the partitions label, partition_on=\"id\" over that many connections",
			settings: map[string]string{"protocol": "ConnectorX's default for PostgreSQL: binary COPY (cxprotocol=binary), a new connection per read (connecting is timed, as ConnectorX always does it)",
				"process":    "a long-lived python3 runner (the ADBC runner's); start-up and imports not timed; the connection string reaches it on stdin",
				"partitions": "single stream in the method comparison; partition_on=\"id\", partition_num 2 and 4 in the partitions group (ConnectorX's own min/max and count queries timed)",
				"output":     "a pyarrow Table (Arrow record batches)"},
			run: runADBC},
	}
}

// describe is what the run records about m. adbcVersions is what
// adbcAvailable found ("adbc-driver-postgresql 1.x, pyarrow 2y"), or why
// the peer is not installed.
func (m method) describe(adbcVersions string, adbcErr error) results.Descriptor {
	d := m.desc
	if d.Name == "" {
		d = m.base()
	}
	d.Workload, d.Key = Name, LabelSubject
	d.Settings = maps.Clone(d.Settings)
	if d.Settings == nil {
		d.Settings = map[string]string{}
	}
	d.Tags = slices.Clone(d.Tags)
	var module, version string
	switch m.peer {
	case driverADBC:
		d.Tags = append(d.Tags, TagPeer)
		module, version = "adbc-driver-postgresql", adbcVersions
	case driverConnectorX:
		d.Tags = append(d.Tags, TagPeer2)
		module, version = "connectorx", adbcVersions
	default:
		return d
	}
	d.Module, d.Version = module+" (Python)", "not installed"
	if adbcErr == nil {
		d.Version = version
		v, ok := strings.CutPrefix(version, module+" ")
		if driver, pyarrow, found := strings.Cut(v, ", pyarrow "); ok && found {
			d.Version, d.Settings["pyarrow"] = driver, pyarrow
		}
	}
	return d
}

// base is what m's descriptor holds before the plan finds the peers'
// versions.
func (m method) base() results.Descriptor {
	d := results.Descriptor{Workload: Name, Key: LabelSubject, Name: m.name, Role: m.role, What: m.note, Settings: map[string]string{}}
	for k, v := range m.settings {
		d.Settings[k] = v
	}
	switch m.module {
	case modulePgarrow:
		d.Module, d.Version = m.module, "this build"
	case "":
	default:
		d.Module, d.Version = m.module, format.ModuleVersion(m.module, "unknown")
	}
	if m.arrow {
		d.Tags = append(d.Tags, TagArrow)
	}
	if m.replay {
		d.Settings["replay"] = "also read from the replay (label source=replay): the server's recorded answer played back at memory speed by an in-process fake server, the client's cost alone"
	}
	if m.name == MethodSelect {
		d.Settings["parallel"] = "also read over N = 1, 2, 4 connections (label partitions=N): pgarrow.KeyRanges on id, pgarrow.ParallelQuery"
	}
	return d
}

// session is one connection and what the methods reuse on it.
type Session struct {
	conn       *pgx.Conn
	pa         *pgarrow.Conn
	rows       int64
	sql        string
	batch      int
	adbc       *adbcRunner
	backendPID int
	// parts are the connections of a parallel read (partitions label),
	// queries their key ranges of sql, partPIDs their backends.
	parts    []*pgarrow.Conn
	partPGX  []*pgx.Conn
	queries  []string
	partPIDs []int
	// replay is set when the session reads the replay server; serverWide
	// when its server CPU is the whole server's (ConnectorX).
	replay, serverWide bool
	// q is the user's query (nil: the generated table), method the
	// method's name, tmp where the peers' checks write their results.
	q      *userQuery
	method string
	tmp    string
}

func runSelect(ctx context.Context, s *Session, check bool) (int64, error) {
	r, err := s.pa.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	return drainArrow(r, check, s.rows)
}

func runCopy(ctx context.Context, s *Session, check bool) (int64, error) {
	r, err := s.pa.Copy(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	return drainArrow(r, check, s.rows)
}

// runParallel reads the key ranges of the query over the session's
// connections at once (pgarrow.ParallelQuery).
func runParallel(ctx context.Context, s *Session, check bool) (int64, error) {
	r, err := pgarrow.ParallelQuery(ctx, s.parts, s.queries)
	if err != nil {
		return 0, err
	}
	return drainArrow(r, check, s.rows)
}

// arrowReader is what drainArrow reads: a pgarrow.RecordReader or a
// pgarrow.ParallelReader.
type arrowReader interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

func drainArrow(r arrowReader, check bool, want int64) (int64, error) {
	defer r.Release()
	var n int64
	var rc rowCheck
	for r.Next() {
		rec := r.RecordBatch()
		n += rec.NumRows()
		if !check {
			continue
		}
		id, ok1 := rec.Column(0).(*array.Int64)
		score, ok2 := rec.Column(1).(*array.Float64)
		active, ok3 := rec.Column(2).(*array.Boolean)
		name, ok4 := rec.Column(3).(*array.String)
		date, ok5 := rec.Column(4).(*array.Date32)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return n, fmt.Errorf("unexpected Arrow schema %s", rec.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if id.IsNull(i) || score.IsNull(i) || active.IsNull(i) || name.IsNull(i) || date.IsNull(i) {
				return n, fmt.Errorf("unexpected NULL in row %d", i)
			}
			if err := rc.check(id.Value(i), score.Value(i), active.Value(i), []byte(name.Value(i)), int32(date.Value(i))); err != nil {
				return n, err
			}
		}
	}
	if err := r.Err(); err != nil {
		return n, err
	}
	if check {
		return n, rc.done(want)
	}
	return n, nil
}

func runScan(ctx context.Context, s *Session, check bool) (int64, error) {
	rows, err := s.conn.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		n      int64
		id     int64
		score  float64
		active bool
		name   string
		date   time.Time
		rc     rowCheck
	)
	for rows.Next() {
		if err := rows.Scan(&id, &score, &active, &name, &date); err != nil {
			return n, err
		}
		n++
		if check {
			if err := rc.check(id, score, active, []byte(name), int32(date.Unix()/86400)); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if check {
		return n, rc.done(s.rows)
	}
	return n, nil
}

// rawRow is where the raw loop decodes into; a field of the session's
// caller would do as well — what matters is that the values are used.
type rawRow struct {
	id     int64
	score  float64
	active bool
	name   []byte
	days   int32
}

// decode reads one row of the table in the binary format.
func (r *rawRow) decode(v [][]byte) error {
	if len(v) != 5 || len(v[0]) != 8 || len(v[1]) != 8 || len(v[2]) != 1 || len(v[4]) != 4 {
		return fmt.Errorf("unexpected binary row shape")
	}
	r.id = int64(binary.BigEndian.Uint64(v[0]))
	r.score = math.Float64frombits(binary.BigEndian.Uint64(v[1]))
	r.active = v[2][0] != 0
	r.name = v[3]
	r.days = int32(binary.BigEndian.Uint32(v[4])) + pgEpochDays
	return nil
}

func runRaw(ctx context.Context, s *Session, check bool) (int64, error) {
	rows, err := s.conn.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		n  int64
		r  rawRow
		rc rowCheck
	)
	for rows.Next() {
		if err := r.decode(rows.RawValues()); err != nil {
			return n, err
		}
		n++
		if check {
			if err := rc.check(r.id, r.score, r.active, r.name, r.days); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if check {
		return n, rc.done(s.rows)
	}
	return n, nil
}

func runCeiling(ctx context.Context, s *Session, check bool) (int64, error) {
	q := "COPY (" + s.sql + ") TO STDOUT (FORMAT binary)"
	if !check {
		_, err := s.conn.PgConn().CopyTo(ctx, io.Discard, q)
		return s.rows, err
	}
	var p copyChecker
	if _, err := s.conn.PgConn().CopyTo(ctx, &p, q); err != nil {
		return 0, err
	}
	if !p.end {
		return p.rc.rows, fmt.Errorf("binary COPY stream has no trailer")
	}
	return p.rc.rows, p.rc.done(s.rows)
}

func runSelectCeiling(ctx context.Context, s *Session, check bool) (int64, error) {
	rr := s.conn.PgConn().ExecParams(ctx, s.sql, nil, nil, nil, []int16{1})
	var (
		n  int64
		r  rawRow
		rc rowCheck
	)
	for rr.NextRow() {
		n++
		if !check {
			continue
		}
		err := r.decode(rr.Values())
		if err == nil {
			err = rc.check(r.id, r.score, r.active, r.name, r.days)
		}
		if err != nil {
			rr.Close()
			return n, err
		}
	}
	if _, err := rr.Close(); err != nil {
		return n, err
	}
	if check {
		return n, rc.done(s.rows)
	}
	return n, nil
}

func runADBC(ctx context.Context, s *Session, check bool) (int64, error) {
	if s.adbc == nil {
		return 0, fmt.Errorf("ADBC runner not started")
	}
	res, err := s.adbc.run(ctx, check)
	if err != nil {
		return 0, err
	}
	if check {
		if err := res.verify(s.rows); err != nil {
			return res.Rows, err
		}
	}
	return res.Rows, nil
}
