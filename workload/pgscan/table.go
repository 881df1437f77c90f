package pgscan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The seed's table, generated server-side with generate_series so that
// every row is a function of its id and can be checked without storing
// anything:
//
//	id           bigint            i
//	score        double precision  i * 0.5 (exact in binary floating point)
//	active       boolean           i % 2 = 0
//	name         text              'user_' || i
//	created_date date              '2020-01-01' + i % 1000
const columns = "id, score, active, name, created_date"

// tableName is the table of n rows, qualified with serbench's schema
// (SchemaName) so that nothing of the same name on the search_path is
// ever read or written.
func tableName(rows int64) string {
	return SchemaName + ".performance_test_" + strconv.FormatInt(rows, 10)
}

// selectSQL is the query every method runs.
func selectSQL(rows int64) string { return "SELECT " + columns + " FROM " + tableName(rows) }

// createTable (re)creates and vacuums the table of n rows in serbench's
// schema (which the caller has made sure of: see ensureSchema). VACUUM
// sets the visibility map and hint bits so that the first measured scan
// does not pay for writing them.
func createTable(ctx context.Context, conn *pgx.Conn, rows int64) error {
	t := tableName(rows)
	stmts := []string{
		"DROP TABLE IF EXISTS " + t,
		fmt.Sprintf(`CREATE UNLOGGED TABLE %s AS SELECT i::bigint AS id, i * 0.5::float8 AS score, (i %% 2 = 0) AS active,
			'user_' || i AS name, ('2020-01-01'::date + (i %% 1000)::int) AS created_date FROM generate_series(1, %d) AS i`, t, rows),
		"VACUUM (FREEZE, ANALYZE) " + t,
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("pgscan: create %s: %w", t, err)
		}
	}
	return nil
}

// prewarm loads the table of n rows into shared buffers with fn, the
// server's pg_prewarm function ("" when the server has none and serbench
// may not install it: the caller's full read of the table warms it
// instead), so that the measured reads find it there. With mustFit it
// also checks that the table fits in a quarter of shared_buffers: a
// sequential scan of a larger table reads through a small ring buffer and
// evicts its own pages.
func prewarm(ctx context.Context, conn *pgx.Conn, rows int64, fn string, mustFit bool) error {
	t := tableName(rows)
	if fn == "" {
		return nil
	}
	var blocks int64
	if err := conn.QueryRow(ctx, "SELECT "+fn+"($1::regclass)", t).Scan(&blocks); err != nil {
		return fmt.Errorf("pgscan: pg_prewarm %s: %w", t, err)
	}
	if !mustFit {
		return nil
	}
	var size, shared int64
	err := conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass),
		(SELECT setting::bigint * pg_size_bytes(coalesce(unit, '1')) FROM pg_settings WHERE name = 'shared_buffers')`, t).Scan(&size, &shared)
	if err != nil {
		return fmt.Errorf("pgscan: size of %s: %w", t, err)
	}
	if 4*size > shared {
		return fmt.Errorf("pgscan: %s (%d bytes) exceeds a quarter of shared_buffers (%d bytes): its scans would go through the ring buffer", t, size, shared)
	}
	return nil
}

// epoch2020 is 2020-01-01 in days since the Unix epoch.
const epoch2020 = 18262

// pgEpochDays is 2000-01-01 (PostgreSQL's date epoch) in Unix days.
const pgEpochDays = 10957

// expect checks one row against the generator's formulas.
type rowCheck struct {
	rows  int64
	sumID int64
}

func (c *rowCheck) check(id int64, score float64, active bool, name []byte, unixDays int32) error {
	if score != float64(id)*0.5 {
		return fmt.Errorf("row id %d: score %v, want %v", id, score, float64(id)*0.5)
	}
	if active != (id%2 == 0) {
		return fmt.Errorf("row id %d: active %v", id, active)
	}
	if want := "user_" + strconv.FormatInt(id, 10); string(name) != want {
		return fmt.Errorf("row id %d: name %q, want %q", id, name, want)
	}
	if want := epoch2020 + int32(id%1000); unixDays != want {
		return fmt.Errorf("row id %d: created_date day %d, want %d", id, unixDays, want)
	}
	c.rows++
	c.sumID += id
	return nil
}

// done checks the totals: n rows whose ids sum to n(n+1)/2.
func (c *rowCheck) done(n int64) error {
	if c.rows != n {
		return fmt.Errorf("read %d rows, want %d", c.rows, n)
	}
	if want := n * (n + 1) / 2; c.sumID != want {
		return fmt.Errorf("ids sum to %d, want %d", c.sumID, want)
	}
	return nil
}

// copyChecker parses a binary COPY stream of the table and checks every
// row: the independent verification of the server-ceiling row.
type copyChecker struct {
	buf  []byte
	rc   rowCheck
	head bool
	end  bool
	err  error
}

var copySignature = []byte("PGCOPY\n\xff\r\n\x00")

func (p *copyChecker) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	p.buf = append(p.buf, b...)
	p.err = p.parse()
	return len(b), p.err
}

func (p *copyChecker) parse() error {
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
	for len(b) >= 2 && !p.end {
		n := int16(binary.BigEndian.Uint16(b))
		if n == -1 {
			p.end = true
			b = b[2:]
			break
		}
		if n != 5 {
			return fmt.Errorf("pgscan: tuple with %d fields, want 5", n)
		}
		// Find the five fields; stop if the tuple is incomplete.
		off := 2
		var f [5][]byte
		for i := 0; i < 5; i++ {
			if len(b) < off+4 {
				p.buf = append(p.buf[:0], b...)
				return nil
			}
			l := int(int32(binary.BigEndian.Uint32(b[off:])))
			off += 4
			if l < 0 || len(b) < off+l {
				if l < 0 {
					return errors.New("pgscan: unexpected NULL")
				}
				p.buf = append(p.buf[:0], b...)
				return nil
			}
			f[i] = b[off : off+l]
			off += l
		}
		if len(f[0]) != 8 || len(f[1]) != 8 || len(f[2]) != 1 || len(f[4]) != 4 {
			return errors.New("pgscan: unexpected field width")
		}
		id := int64(binary.BigEndian.Uint64(f[0]))
		score := math.Float64frombits(binary.BigEndian.Uint64(f[1]))
		days := int32(binary.BigEndian.Uint32(f[4])) + pgEpochDays
		if err := p.rc.check(id, score, f[2][0] != 0, f[3], days); err != nil {
			return err
		}
		b = b[off:]
	}
	p.buf = append(p.buf[:0], b...)
	return nil
}

// countingWriter counts bytes and discards them.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(b []byte) (int, error) { w.n += int64(len(b)); return len(b), nil }

var _ io.Writer = (*countingWriter)(nil)
