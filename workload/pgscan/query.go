package pgscan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/pgarrow"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// The user's query (--query, with --rows as a cap): every method reads its
// result instead of the generated table, and each method's values are
// compared with pgarrow-select's — row count and per-column checksums
// (checksum.go).
//
// The query runs as SELECT * FROM (query) AS serbench_query [LIMIT rows],
// which makes a data-modifying statement a syntax error rather than
// something run on every sample, and gives COPY and every driver the same
// statement. With --pg-dsn it runs on that server, where serbench creates
// nothing and its own connections' transactions are read-only
// (default_transaction_read_only); without, on the throwaway server after
// the workload has built the scale's tables (performance_test_<rows>, in
// the schema serbench_pgscan, which is on that server's search path), so
// that a query can read them.
//
// Planning validates the query (prepared: a syntax error or an unknown
// table fails here), then reads it once with pgarrow-select, which is the
// reference: the row count, the checksums, the column types, and the size
// of its binary COPY; a query that fails while running, returns no row or
// has a column pgarrow cannot read fails the plan too (exit status 2,
// before anything is measured). The query must be deterministic: a
// random() or now() in it makes every method's checksums differ.
//
// The partitioned reads are not planned for a query (they split on ranges
// of an integer key column, which an arbitrary query has not, and a
// LIMIT, aggregate or ORDER BY would change meaning per range): they are
// skipped with that reason. Nor is the batch-size sweep, a tuning of
// pgarrow rather than a comparison of methods.

// Query is the user's query of a --query run.
type Query struct {
	// SQL is the query as given.
	SQL string
	// Rows caps the rows read (0: all).
	Rows int64
}

// NewWith returns the pgscan workload reading the result of q instead of
// the generated tables (when q.SQL is set).
func NewWith(q Query) *Workload { return &Workload{query: q} }

// LabelQuery marks a case reading the user's query (query=user).
const LabelQuery = "query"

// queryUser is the value of the query label and the name of the query's
// descriptor (key "query").
const queryUser = "user"

// Settings of the query's descriptor.
const (
	QuerySettingSQL     = "sql"
	QuerySettingRun     = "executed"
	QuerySettingRows    = "rows"
	QuerySettingCap     = "rows-cap"
	QuerySettingColumns = "columns"
	QuerySettingServer  = "server"
	QuerySettingWire    = "copy-binary-bytes"
	QuerySettingCheck   = "verification"
)

// maxRecordedSQL caps the query text kept in the results.
const maxRecordedSQL = 4000

// CheckQuery validates the settings of a --query run without a server.
func CheckQuery(q Query) error {
	if q.Rows < 0 {
		return fmt.Errorf("--rows must not be negative, got %d", q.Rows)
	}
	if q.Rows > 0 && strings.TrimSpace(q.SQL) == "" {
		return errors.New("--rows caps the rows of --query: give --query 'SELECT …'")
	}
	if q.SQL != "" && trimQuery(q.SQL) == "" {
		return errors.New("--query is empty")
	}
	return nil
}

// trimQuery drops trailing whitespace and semicolons.
func trimQuery(s string) string { return strings.TrimRight(s, " \t\r\n\f;") }

// wrapQuery is the statement every method runs for q.
func wrapQuery(q Query) string {
	s := "SELECT * FROM (\n" + trimQuery(q.SQL) + "\n) AS serbench_query"
	if q.Rows > 0 {
		s += " LIMIT " + strconv.FormatInt(q.Rows, 10)
	}
	return s
}

// userQuery is the query as planned: its statement, its columns and the
// reference read's row count, checksums and binary COPY size.
type userQuery struct {
	given   Query
	sql     string
	names   []string
	pgTypes []string
	oids    []uint32
	types   []colType
	rows    int64
	ref     *checksums
	wireB   int64
}

// queryError is a bad --query: a usage error, on one line.
func queryError(db *database, format string, args ...any) error {
	err := db.redact(fmt.Errorf(format, args...))
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return &workload.UsageError{Err: errors.New(msg)}
}

// planQuery validates q on the database and reads it once with pgarrow
// (the reference).
func planQuery(ctx context.Context, db *database, q Query) (*userQuery, error) {
	uq := &userQuery{given: q, sql: wrapQuery(q)}
	conn, err := db.connect(ctx)
	if err != nil {
		return nil, db.redact(err)
	}
	defer conn.Close(context.Background())
	sd, err := conn.Prepare(ctx, "", uq.sql)
	if err != nil {
		return nil, queryError(db, "pgscan: --query: %v", err)
	}
	if len(sd.Fields) == 0 {
		return nil, queryError(db, "pgscan: --query returns no columns")
	}
	for _, f := range sd.Fields {
		uq.names = append(uq.names, f.Name)
		uq.oids = append(uq.oids, f.DataTypeOID)
		uq.types = append(uq.types, typeOf(f.DataTypeOID))
		var name string
		if err := conn.QueryRow(ctx, "SELECT format_type($1::oid, $2::int)", f.DataTypeOID, f.TypeModifier).Scan(&name); err != nil {
			return nil, db.redact(fmt.Errorf("pgscan: type of column %q: %w", f.Name, err))
		}
		uq.pgTypes = append(uq.pgTypes, name)
	}
	pa, err := pgarrow.NewConn(conn.PgConn(), pgarrow.Options{})
	if err != nil {
		return nil, fmt.Errorf("pgscan: %w", err)
	}
	r, err := pa.Query(ctx, uq.sql)
	if err != nil {
		return nil, queryError(db, "pgscan: --query: %s: %v", MethodSelect, err)
	}
	uq.ref = newChecksums(uq.types)
	for r.Next() {
		if err := uq.ref.addArrow(r.RecordBatch()); err != nil {
			r.Release()
			return nil, queryError(db, "pgscan: --query: %s: %v", MethodSelect, err)
		}
	}
	err = r.Err()
	r.Release()
	if err != nil {
		return nil, queryError(db, "pgscan: --query: %v", err)
	}
	uq.rows = uq.ref.rows
	if uq.rows == 0 {
		return nil, queryError(db, "pgscan: --query returns no rows: nothing to measure")
	}
	var cw countingWriter
	if _, err := conn.PgConn().CopyTo(ctx, &cw, "COPY ("+uq.sql+") TO STDOUT (FORMAT binary)"); err != nil {
		return nil, queryError(db, "pgscan: --query: COPY: %v", err)
	}
	uq.wireB = cw.n
	return uq, nil
}

// columns describes the query's columns ("id bigint, amount numeric(12,2)").
func (uq *userQuery) columns() string {
	parts := make([]string, len(uq.names))
	for i := range uq.names {
		parts[i] = uq.names[i] + " " + uq.pgTypes[i]
	}
	return strings.Join(parts, ", ")
}

// textOnly lists the columns compared in text form only (a type without
// a canonical binary decoding): the raw-binary methods skip them.
func (uq *userQuery) textOnly() []string {
	var out []string
	for i, t := range uq.types {
		if t.kind == kindOther {
			out = append(out, fmt.Sprintf("%s (%s)", uq.names[i], uq.pgTypes[i]))
		}
	}
	return out
}

// describe is the query's descriptor.
func (uq *userQuery) describe(external bool) results.Descriptor {
	sql := trimQuery(uq.given.SQL)
	if len(sql) > maxRecordedSQL {
		sql = sql[:maxRecordedSQL] + fmt.Sprintf("… (%d more bytes)", len(sql)-maxRecordedSQL)
	}
	server := "the throwaway local server, after the workload built the scale's tables (performance_test_<rows>)"
	if external {
		server = "external (--pg-dsn)"
	}
	d := results.Descriptor{Workload: Name, Key: LabelQuery, Name: queryUser, What: "the user's query (--query): every method reads its result instead of the generated table",
		Settings: map[string]string{
			QuerySettingSQL:     sql,
			QuerySettingRows:    strconv.FormatInt(uq.rows, 10),
			QuerySettingColumns: uq.columns(),
			QuerySettingServer:  server,
			QuerySettingWire:    strconv.FormatInt(uq.wireB, 10),
			QuerySettingCheck:   "each method's result against pgarrow-select's: row count, and per column the NULL count and the sum of FNV-1a hashes of every value's canonical form (integers as int64, floats as float64 bits, numeric as decimal text without trailing zeros, dates as days and timestamps as microseconds since 1970 UTC, text and bytea as bytes, json re-encoded, arrays element by element): independent of row order",
		}}
	if len(uq.sql) <= maxRecordedSQL+200 {
		d.Settings[QuerySettingRun] = uq.sql
	}
	if uq.given.Rows > 0 {
		d.Settings[QuerySettingCap] = strconv.FormatInt(uq.given.Rows, 10)
	}
	return d
}

// partitionSkip is why the partitioned reads are not planned for a query.
const partitionSkip = "with --query: the partitioned reads split a query on ranges of an integer key column (id), which an arbitrary query has not, and a LIMIT, aggregate or ORDER BY would change meaning per range"

// --- the methods on the query ---

// verifyQuery compares the checksums a method computed with the reference.
func (s *Session) verifyQuery(got *checksums) error {
	return s.q.verify(got, s.method)
}

// capHint says why a capped query's reads may differ.
const capHint = "--rows reads the query with a LIMIT, and a LIMIT without an ORDER BY (on a unique key) reads whatever rows the server returns first, which may differ between reads: add ORDER BY to the query or drop --rows"

// verify compares the checksums method computed with the reference; for
// a capped query (--rows) a difference carries capHint.
func (uq *userQuery) verify(got *checksums, method string) error {
	err := uq.ref.compare(got, uq.names, method)
	if err != nil && uq.given.Rows > 0 {
		return fmt.Errorf("%w (%s)", err, capHint)
	}
	return err
}

// drainQuery reads an Arrow result of the query, checksumming it with
// check.
func drainQuery(r arrowReader, s *Session, check bool) (int64, error) {
	defer r.Release()
	var n int64
	var sums *checksums
	if check {
		sums = newChecksums(s.q.types)
	}
	for r.Next() {
		rec := r.RecordBatch()
		n += rec.NumRows()
		if check {
			if err := sums.addArrow(rec); err != nil {
				return n, err
			}
		}
	}
	if err := r.Err(); err != nil {
		return n, err
	}
	if check {
		return n, s.verifyQuery(sums)
	}
	return n, nil
}

// scanQuery is pgx-scan on the query: rows.Values, pgx's own decoding of
// each column's type into Go values.
func scanQuery(ctx context.Context, s *Session, check bool) (int64, error) {
	rows, err := s.conn.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		n    int64
		sums *checksums
	)
	if check {
		sums = newChecksums(s.q.types)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return n, err
		}
		n++
		if check {
			if err := sums.addGo(vals); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if check {
		return n, s.verifyQuery(sums)
	}
	return n, nil
}

// decodeRaw decodes one row of raw values with the connection's type map,
// for the check only.
func decodeRaw(m *pgtype.Map, fds []pgconn.FieldDescription, raw [][]byte, vals []any) error {
	for i := range fds {
		fd := &fds[i]
		if raw[i] == nil {
			vals[i] = nil
			continue
		}
		if dt, ok := m.TypeForOID(fd.DataTypeOID); ok {
			v, err := dt.Codec.DecodeValue(m, fd.DataTypeOID, fd.Format, raw[i])
			if err != nil {
				return fmt.Errorf("column %q: %w", fd.Name, err)
			}
			vals[i] = v
			continue
		}
		if fd.Format == pgx.TextFormatCode {
			vals[i] = string(raw[i])
		} else {
			vals[i] = append([]byte(nil), raw[i]...)
		}
	}
	return nil
}

// rawQuery is pgx-raw on the query: rows.RawValues, each value's length
// summed (no decoding per type: the query's types are known only at run
// time); the check decodes them with pgx's type map.
func rawQuery(ctx context.Context, s *Session, check bool) (int64, error) {
	rows, err := s.conn.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		n, total int
		sums     *checksums
		vals     []any
	)
	if check {
		sums = newChecksums(s.q.types)
		vals = make([]any, len(s.q.types))
	}
	m := s.conn.TypeMap()
	for rows.Next() {
		raw := rows.RawValues()
		for _, v := range raw {
			total += len(v)
		}
		n++
		if check {
			if err := decodeRaw(m, rows.FieldDescriptions(), raw, vals); err != nil {
				return int64(n), err
			}
			if err := sums.addGo(vals); err != nil {
				return int64(n), err
			}
		}
	}
	if total < 0 { // keeps the loop's work observable
		return int64(n), errors.New("negative value length")
	}
	if err := rows.Err(); err != nil {
		return int64(n), err
	}
	if check {
		return int64(n), s.verifyQuery(sums)
	}
	return int64(n), nil
}

// selectCeilingQuery is select-discard on the query: every row received
// in binary and dropped; the check decodes them.
func selectCeilingQuery(ctx context.Context, s *Session, check bool) (int64, error) {
	formats := make([]int16, len(s.q.types))
	for i := range formats {
		formats[i] = pgx.BinaryFormatCode
	}
	rr := s.conn.PgConn().ExecParams(ctx, s.sql, nil, nil, nil, formats)
	var (
		n    int64
		sums *checksums
		vals []any
	)
	if check {
		sums = newChecksums(s.q.types)
		vals = make([]any, len(s.q.types))
	}
	m := s.conn.TypeMap()
	for rr.NextRow() {
		n++
		if !check {
			continue
		}
		err := decodeRaw(m, rr.FieldDescriptions(), rr.Values(), vals)
		if err == nil {
			err = sums.addGo(vals)
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
		return n, s.verifyQuery(sums)
	}
	return n, nil
}

// copyCeilingQuery is copy-discard on the query: the binary COPY drained
// (the count of rows is the reference's, as the table's ceiling does);
// the check parses the stream and decodes every field.
func copyCeilingQuery(ctx context.Context, s *Session, check bool) (int64, error) {
	q := "COPY (" + s.sql + ") TO STDOUT (FORMAT binary)"
	if !check {
		var cw countingWriter
		_, err := s.conn.PgConn().CopyTo(ctx, &cw, q)
		return s.rows, err
	}
	p := &queryCopyChecker{m: s.conn.TypeMap(), oids: s.q.oids, sums: newChecksums(s.q.types), vals: make([]any, len(s.q.oids))}
	if _, err := s.conn.PgConn().CopyTo(ctx, p, q); err != nil {
		return p.sums.rows, err
	}
	if !p.end {
		return p.sums.rows, errors.New("binary COPY stream has no trailer")
	}
	return p.sums.rows, s.verifyQuery(p.sums)
}

// queryCopyChecker parses a binary COPY stream of the query, decoding
// every field with pgx's type map into the checksums.
type queryCopyChecker struct {
	m    *pgtype.Map
	oids []uint32
	sums *checksums
	vals []any
	buf  []byte
	head bool
	end  bool
	err  error
}

func (p *queryCopyChecker) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	p.buf = append(p.buf, b...)
	p.err = p.parse()
	return len(b), p.err
}

func (p *queryCopyChecker) parse() error {
	b := p.buf
	if !p.head {
		if len(b) < 19 {
			return nil
		}
		if string(b[:11]) != string(copySignature) {
			return errors.New("pgscan: not a binary COPY stream")
		}
		ext := int(binary.BigEndian.Uint32(b[15:19]))
		if len(b) < 19+ext {
			return nil
		}
		b = b[19+ext:]
		p.head = true
	}
	raw := make([][]byte, len(p.oids))
	for len(b) >= 2 && !p.end {
		n := int16(binary.BigEndian.Uint16(b))
		if n == -1 {
			p.end = true
			b = b[2:]
			break
		}
		if int(n) != len(p.oids) {
			return fmt.Errorf("pgscan: tuple with %d fields, want %d", n, len(p.oids))
		}
		off := 2
		complete := true
		for i := range p.oids {
			if len(b) < off+4 {
				complete = false
				break
			}
			l := int(int32(binary.BigEndian.Uint32(b[off:])))
			off += 4
			if l < 0 {
				raw[i] = nil
				continue
			}
			if len(b) < off+l {
				complete = false
				break
			}
			raw[i] = b[off : off+l : off+l]
			off += l
		}
		if !complete {
			break
		}
		for i, oid := range p.oids {
			if raw[i] == nil {
				p.vals[i] = nil
				continue
			}
			if dt, ok := p.m.TypeForOID(oid); ok {
				v, err := dt.Codec.DecodeValue(p.m, oid, pgx.BinaryFormatCode, raw[i])
				if err != nil {
					return fmt.Errorf("pgscan: COPY field %d: %w", i+1, err)
				}
				p.vals[i] = v
			} else {
				p.vals[i] = append([]byte(nil), raw[i]...)
			}
		}
		if err := p.sums.addGo(p.vals); err != nil {
			return err
		}
		b = b[off:]
	}
	p.buf = append(p.buf[:0], b...)
	return nil
}

// adbcQuery is a Python peer on the query: the timed read as on the
// table; the check has the runner write its batches to an Arrow IPC
// stream file, checksummed here like pgarrow's.
func adbcQuery(ctx context.Context, s *Session, check bool) (int64, error) {
	if s.adbc == nil {
		return 0, errors.New("python peer runner not started")
	}
	if !check {
		res, err := s.adbc.run(ctx, false)
		return res.Rows, err
	}
	dir, err := os.MkdirTemp(s.tmp, "peer-dump-")
	if err != nil {
		return 0, fmt.Errorf("python peer: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "result.arrows")
	res, err := s.adbc.dump(ctx, path)
	if err != nil {
		return 0, err
	}
	sums := newChecksums(s.q.types)
	if res.Rows > 0 {
		f, err := os.Open(path)
		if err != nil {
			return res.Rows, fmt.Errorf("python peer: %w", err)
		}
		defer f.Close()
		rd, err := ipc.NewReader(f)
		if err != nil {
			return res.Rows, fmt.Errorf("python peer: read its Arrow stream: %w", err)
		}
		defer rd.Release()
		for rd.Next() {
			if err := sums.addArrow(rd.RecordBatch()); err != nil {
				return res.Rows, err
			}
		}
		if err := rd.Err(); err != nil {
			return res.Rows, fmt.Errorf("python peer: read its Arrow stream: %w", err)
		}
	}
	return sums.rows, s.verifyQuery(sums)
}

// dump has the runner read the query and write its batches to path (an
// Arrow IPC stream).
func (r *adbcRunner) dump(ctx context.Context, path string) (adbcResult, error) {
	if strings.ContainsAny(path, "\n") {
		return adbcResult{}, errors.New("python peer: dump path with a newline")
	}
	if _, err := fmt.Fprintf(r.stdin, "dump %s\n", path); err != nil {
		return adbcResult{}, fmt.Errorf("python peer: %w", err)
	}
	return r.reply(ctx)
}

// queryRun returns method m's read of the query.
func queryRun(m method) func(ctx context.Context, s *Session, check bool) (int64, error) {
	switch m.name {
	case MethodSelect:
		return func(ctx context.Context, s *Session, check bool) (int64, error) {
			r, err := s.pa.Query(ctx, s.sql)
			if err != nil {
				return 0, err
			}
			return drainQuery(r, s, check)
		}
	case MethodCopy:
		return func(ctx context.Context, s *Session, check bool) (int64, error) {
			r, err := s.pa.Copy(ctx, s.sql)
			if err != nil {
				return 0, err
			}
			return drainQuery(r, s, check)
		}
	case MethodScan:
		return scanQuery
	case MethodRaw:
		return rawQuery
	case MethodCeiling:
		return copyCeilingQuery
	case MethodSelectCeiling:
		return selectCeilingQuery
	default:
		return adbcQuery
	}
}

// queryPlan plans the methods on the user's query: validated and read
// once by pgarrow-select (the reference) before anything is measured.
func (w *Workload) queryPlan(ctx context.Context, cfg workload.Config, db *database, env map[string]string, want []method,
	descs []results.Descriptor, peerErrs map[string]error, replaySkip string, avail int64) (*workload.Plan, error) {
	uq := &userQuery{given: w.query, sql: wrapQuery(w.query), rows: w.query.Rows}
	if db != nil {
		// Without --pg-dsn the query reads the throwaway server, where the
		// scale's tables are built first.
		if db.srv != nil {
			for _, n := range Sizes(cfg.Scale) {
				if _, err := db.table(ctx, n); err != nil {
					db.close()
					return nil, err
				}
			}
		}
		var err error
		if uq, err = planQuery(ctx, db, w.query); err != nil {
			db.close()
			return nil, err
		}
		db.query = uq
		env["query_rows"] = strconv.FormatInt(uq.rows, 10)
		env["query"] = w.query.SQL
		descs = append(descs, uq.describe(db.srv == nil))
	}
	var cases []bench.Case
	add := func(m method, sp spec, skip string) {
		c := newCaseSpec(db, m, sp)
		if err := peerErrs[m.peer]; m.peer != "" && err != nil {
			c.Skip = err.Error()
		}
		if skip != "" {
			c.Skip = skip
		}
		cases = append(cases, c)
	}
	for _, m := range want {
		add(m, spec{rows: uq.rows, q: uq}, "")
	}
	for _, m := range want {
		if !m.replay {
			continue
		}
		skip := replaySkip
		if skip == "" && avail > 0 && 3*uq.wireB > avail/3 {
			skip = fmt.Sprintf("the replay's recordings of the query's result (about %s) do not fit in a third of the memory available", table.Bytes(float64(3*uq.wireB)))
		}
		add(m, spec{rows: uq.rows, replay: true, q: uq}, skip)
	}
	for _, m := range want {
		if !m.parallel {
			continue
		}
		for _, p := range Partitions() {
			if m.peer != "" && p == 1 {
				continue
			}
			add(m, spec{rows: uq.rows, partitions: p, q: uq}, partitionSkip)
		}
	}
	p := &workload.Plan{Cases: cases, Env: env, Descriptors: descs, MeasuresRSS: true, Identity: []string{"query", "query_rows"}}
	if db != nil {
		p.Close = db.close
	}
	return p, nil
}

// queryDescriptor returns the user's query as the run recorded it, or nil
// for a run on the generated tables.
func queryDescriptor(r *results.Run) *results.Descriptor {
	if r == nil {
		return nil
	}
	return r.Descriptor(Name, LabelQuery, queryUser)
}

// maxShownSQL caps the query text the report shows.
const maxShownSQL = 1200

// queryBlocks shows the user's query, its row count and columns, from the
// results only (the query's descriptor); nil for a run on the generated
// tables.
func queryBlocks(r *results.Run) []table.Block {
	d := queryDescriptor(r)
	if d == nil {
		return nil
	}
	sql := d.Settings[QuerySettingSQL]
	if len(sql) > maxShownSQL {
		cut := strings.LastIndexAny(sql[:maxShownSQL], " \n\t")
		if cut < maxShownSQL/2 {
			cut = maxShownSQL
		}
		sql = sql[:cut] + fmt.Sprintf("\n… (%d more bytes: the full text is in the results, descriptor query/user)", len(sql)-cut)
	}
	line := "Every method read the result of this query: " + table.IntLabel(d.Settings[QuerySettingRows]) + " rows"
	if c := d.Settings[QuerySettingCap]; c != "" {
		line += " (capped by --rows " + table.IntLabel(c) + ")"
	}
	if w := table.Number(d.Settings[QuerySettingWire]); w > 0 {
		line += ", " + table.Bytes(w) + " as binary COPY"
	}
	line += ", on " + table.OrDash(d.Settings[QuerySettingServer]) + "."
	t := &table.Table{Header: []string{"column", "type"}}
	for _, c := range strings.Split(d.Settings[QuerySettingColumns], ", ") {
		name, typ, _ := strings.Cut(c, " ")
		t.AddRow(table.Str(name), table.Str(typ))
	}
	if ex := d.Settings[QuerySettingRun]; ex != "" {
		t.Notes = append(t.Notes, "Run as `"+strings.Join(strings.Fields(ex), " ")+"`, so that every method and COPY read the same statement.")
	}
	t.Notes = append(t.Notes, "Verification: "+d.Settings[QuerySettingCheck]+".")
	return []table.Block{&table.Text{Body: line}, &table.Code{Body: sql}, t}
}
