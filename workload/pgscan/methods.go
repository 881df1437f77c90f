package pgscan

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"

	"github.com/serbench/serbench/pgarrow"
)

// Method names.
const (
	MethodSelect        = "pgarrow-select"
	MethodCopy          = "pgarrow-copy"
	MethodScan          = "pgx-scan"
	MethodRaw           = "pgx-raw"
	MethodCeiling       = "copy-discard"
	MethodSelectCeiling = "select-discard"
	MethodADBC          = "adbc"
)

// method is one way of reading the table. run reads it whole; with check
// it also verifies every row (outside the timed region).
type method struct {
	name  string
	note  string
	arrow bool
	// limit marks the server-ceiling row.
	limit bool
	run   func(ctx context.Context, s *session, check bool) (rows int64, err error)
}

func methods() []method {
	return []method{
		{name: MethodSelect, arrow: true, note: "pgarrow.Conn.Query: extended protocol, binary results, decoded straight into reused Arrow builders", run: runSelect},
		{name: MethodCopy, arrow: true, note: "pgarrow.Conn.Copy: COPY (SELECT …) TO STDOUT (FORMAT binary) parsed into the same builders", run: runCopy},
		{name: MethodScan, note: "pgx rows.Scan into Go values (int64, float64, bool, string, time.Time): no Arrow", run: runScan},
		{name: MethodRaw, note: "pgx rows.RawValues decoded by hand (the seed's fastest non-Arrow path): no Arrow, no allocation per row", run: runRaw},
		{name: MethodCeiling, limit: true, note: "limit row: the server's own COPY BINARY output drained into io.Discard — one backend cannot produce rows faster", run: runCeiling},
		{name: MethodSelectCeiling, limit: true, note: "limit row: the same SELECT in binary format, every row received by pgconn and dropped undecoded — the protocol path without any decoding", run: runSelectCeiling},
		{name: MethodADBC, arrow: true, note: "peer: the ADBC PostgreSQL driver (C++, via Python adbc-driver-postgresql + pyarrow), the seed's comparison, reading Arrow batches in a helper process", run: runADBC},
	}
}

// session is one connection and what the methods reuse on it.
type session struct {
	conn       *pgx.Conn
	pa         *pgarrow.Conn
	rows       int64
	sql        string
	batch      int
	adbc       *adbcRunner
	backendPID int
}

func runSelect(ctx context.Context, s *session, check bool) (int64, error) {
	r, err := s.pa.Query(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	return drainArrow(r, check, s.rows)
}

func runCopy(ctx context.Context, s *session, check bool) (int64, error) {
	r, err := s.pa.Copy(ctx, s.sql)
	if err != nil {
		return 0, err
	}
	return drainArrow(r, check, s.rows)
}

func drainArrow(r *pgarrow.RecordReader, check bool, want int64) (int64, error) {
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

func runScan(ctx context.Context, s *session, check bool) (int64, error) {
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

func runRaw(ctx context.Context, s *session, check bool) (int64, error) {
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

func runCeiling(ctx context.Context, s *session, check bool) (int64, error) {
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

func runSelectCeiling(ctx context.Context, s *session, check bool) (int64, error) {
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

func runADBC(ctx context.Context, s *session, check bool) (int64, error) {
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
