package pgarrow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ParallelReader reads several RecordReaders concurrently, each on its own
// goroutine, and delivers their record batches as they arrive. It
// implements array.RecordReader.
//
// Ordering: the batches of one reader arrive in that reader's order; the
// batches of different readers interleave in no particular order.
// Partition says which reader the current batch came from.
//
// Each reader builds its next batch while the caller holds the current
// one, so reading the socket and decoding overlap with the caller's work:
// memory is up to two batches per reader.
type ParallelReader struct {
	refs    atomic.Int64
	schema  *arrow.Schema
	out     chan parallelMsg
	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
	live    int // readers that have not ended

	cur  arrow.RecordBatch
	part int
	err  error
	rows int64
}

var _ array.RecordReader = (*ParallelReader)(nil)

type parallelMsg struct {
	part int
	rec  arrow.RecordBatch // nil: the reader ended, with err
	err  error
}

// NewParallelReader reads readers concurrently; it takes ownership of
// them (they are released when read to the end or when the ParallelReader
// is released). Their schemas must be equal.
func NewParallelReader(readers ...*RecordReader) (*ParallelReader, error) {
	if len(readers) == 0 {
		return nil, errors.New("pgarrow: no readers")
	}
	for i, r := range readers[1:] {
		if !r.Schema().Equal(readers[0].Schema()) {
			for _, r := range readers {
				r.Release()
			}
			return nil, fmt.Errorf("pgarrow: reader %d has schema %s, reader 0 has %s", i+1, r.Schema(), readers[0].Schema())
		}
	}
	p := &ParallelReader{schema: readers[0].Schema(), out: make(chan parallelMsg), stop: make(chan struct{}), live: len(readers)}
	p.refs.Store(1)
	p.wg.Add(len(readers))
	for i, r := range readers {
		go p.produce(i, r)
	}
	return p, nil
}

// ReadAhead returns a reader that builds r's next batch on another
// goroutine while the caller works on the current one, so that the
// connection keeps being read (and the server keeps sending) meanwhile.
// It takes ownership of r.
func ReadAhead(r *RecordReader) *ParallelReader {
	p, _ := NewParallelReader(r) // one reader: no schema to disagree
	return p
}

// produce runs on its own goroutine and owns r.
func (p *ParallelReader) produce(part int, r *RecordReader) {
	defer p.wg.Done()
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		select {
		case p.out <- parallelMsg{part: part, rec: rec}:
		case <-p.stop:
			rec.Release()
			return
		}
	}
	select {
	case p.out <- parallelMsg{part: part, err: r.Err()}:
	case <-p.stop:
	}
}

// Schema returns the schema shared by the readers.
func (p *ParallelReader) Schema() *arrow.Schema { return p.schema }

// Next moves to the next batch of any reader. It returns false when every
// reader has ended, or on the first error (see Err), which stops the
// others.
func (p *ParallelReader) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	for p.live > 0 && p.err == nil {
		m := <-p.out
		if m.rec == nil {
			p.live--
			if m.err != nil {
				p.err = fmt.Errorf("pgarrow: partition %d: %w", m.part, m.err)
				p.shutdown()
			}
			continue
		}
		p.cur, p.part = m.rec, m.part
		p.rows += m.rec.NumRows()
		return true
	}
	return false
}

// RecordBatch returns the current batch, valid until the next call to Next
// or Release.
func (p *ParallelReader) RecordBatch() arrow.RecordBatch { return p.cur }

// Record returns the current batch.
//
// Deprecated: Use RecordBatch instead.
func (p *ParallelReader) Record() arrow.Record { return p.cur }

// Partition returns the index of the reader the current batch came from.
func (p *ParallelReader) Partition() int { return p.part }

// Err returns the error that ended the read, if any.
func (p *ParallelReader) Err() error { return p.err }

// Rows returns the number of rows delivered so far.
func (p *ParallelReader) Rows() int64 { return p.rows }

// Retain increases the reference count.
func (p *ParallelReader) Retain() { p.refs.Add(1) }

// Release decreases the reference count; at zero it stops the readers
// still running (each as RecordReader.Release does: cancelled outside a
// transaction, drained inside one), waits for them and releases the
// current batch. A reader busy building a batch finishes it first.
func (p *ParallelReader) Release() {
	if p.refs.Add(-1) != 0 {
		return
	}
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	p.shutdown()
}

// shutdown stops every producer and waits for them.
func (p *ParallelReader) shutdown() {
	p.stopped.Do(func() { close(p.stop) })
	p.wg.Wait()
	p.live = 0
}

// ParallelQuery runs queries[i] with args on conns[i], all at once, and
// reads their results as one stream of batches (see ParallelReader for the
// ordering). Every query must return the same columns; KeyRanges and
// BlockRanges build such queries from one. The connections must be
// distinct.
func ParallelQuery(ctx context.Context, conns []*Conn, queries []string, args ...any) (*ParallelReader, error) {
	if len(conns) != len(queries) {
		return nil, fmt.Errorf("pgarrow: %d connections for %d queries", len(conns), len(queries))
	}
	readers := make([]*RecordReader, 0, len(queries))
	for i, q := range queries {
		r, err := conns[i].Query(ctx, q, args...)
		if err != nil {
			for _, r := range readers {
				r.Release()
			}
			return nil, fmt.Errorf("pgarrow: partition %d: %w", i, err)
		}
		readers = append(readers, r)
	}
	return NewParallelReader(readers...)
}

// KeyRanges splits query into n queries over contiguous ranges of the
// integer column key, as ConnectorX's partition_on does: it asks the
// server (on c) for min(key) and max(key) of query's result and cuts that
// range into n equal parts, the first also taking the rows whose key is
// NULL. Together the queries return every row of query exactly once, as
// long as the data does not change in between (run them in one snapshot
// for that). key is inserted verbatim: quote it if needed. args are query's
// arguments, used for the min/max query; pass them to ParallelQuery too.
func KeyRanges(ctx context.Context, c *Conn, query, key string, n int, args ...any) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("pgarrow: %d partitions", n)
	}
	query = trimStatement(query)
	lo, hi, empty, err := c.minMax(ctx, "SELECT min("+key+")::int8, max("+key+")::int8 FROM ("+query+"\n) AS pgarrow_src", args)
	if err != nil {
		return nil, err
	}
	base := "SELECT * FROM (" + query + "\n) AS pgarrow_part WHERE "
	if empty {
		return []string{base + "true"}, nil
	}
	bounds := splitRange(lo, hi, n)
	qs := make([]string, 0, len(bounds)+1)
	for i := range bounds {
		var cond string
		switch {
		case len(bounds) == 1:
			cond = "true"
		case i == 0:
			cond = "(" + key + " < " + strconv.FormatInt(bounds[1], 10) + " OR " + key + " IS NULL)"
		case i == len(bounds)-1:
			cond = key + " >= " + strconv.FormatInt(bounds[i], 10)
		default:
			cond = key + " >= " + strconv.FormatInt(bounds[i], 10) + " AND " + key + " < " + strconv.FormatInt(bounds[i+1], 10)
		}
		qs = append(qs, base+cond)
	}
	return qs, nil
}

// BlockRanges splits a scan of table (its columns, e.g. "*", and an
// optional where clause, "" for none) into n queries over contiguous
// ranges of heap blocks (ctid ranges, read with PostgreSQL 14's TID range
// scans), using the table's current size in blocks. The last range is
// open-ended, so rows in blocks added later are read too. table and
// columns are inserted verbatim.
func BlockRanges(ctx context.Context, c *Conn, table, columns, where string, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("pgarrow: %d partitions", n)
	}
	_, blocks, _, err := c.minMax(ctx, "SELECT 0::int8, (pg_relation_size($1::regclass) / current_setting('block_size')::int8)::int8", []any{table})
	if err != nil {
		return nil, err
	}
	// Newlines end any line comment in the caller's text.
	base := "SELECT " + columns + "\nFROM " + table + "\nWHERE "
	if where != "" {
		base += "(" + where + "\n) AND "
	}
	bounds := splitRange(0, max(blocks, 1), n)
	qs := make([]string, 0, len(bounds))
	for i := range bounds {
		cond := "ctid >= '(" + strconv.FormatInt(bounds[i], 10) + ",0)'::tid"
		if i+1 < len(bounds) {
			cond += " AND ctid < '(" + strconv.FormatInt(bounds[i+1], 10) + ",0)'::tid"
		}
		qs = append(qs, base+cond)
	}
	return qs, nil
}

// splitRange returns the lower bounds of at most n non-empty equal ranges
// covering [lo, hi].
func splitRange(lo, hi int64, n int) []int64 {
	span := uint64(hi) - uint64(lo) // hi - lo, without overflow
	var step uint64
	if span == 1<<64-1 {
		step = span / uint64(n)
	} else {
		size := span + 1
		if uint64(n) > size {
			n = int(size)
		}
		step = size / uint64(n)
	}
	bounds := make([]int64, n)
	for i := range bounds {
		bounds[i] = int64(uint64(lo) + step*uint64(i))
	}
	return bounds
}

// minMax runs a query returning two int8 values (NULL and NULL: empty).
func (c *Conn) minMax(ctx context.Context, sql string, args []any) (a, b int64, empty bool, err error) {
	if err := c.checkIdle(); err != nil {
		return 0, 0, false, err
	}
	if err := c.eqb.Build(c.typeMap, nil, args); err != nil {
		return 0, 0, false, fmt.Errorf("pgarrow: encode arguments: %w", err)
	}
	res := c.pg.ExecParams(ctx, sql, c.eqb.ParamValues, nil, c.eqb.ParamFormats, nil).Read()
	if res.Err != nil {
		return 0, 0, false, fmt.Errorf("pgarrow: partition bounds: %w", wrapQueryErr(ctx, res.Err))
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 2 {
		return 0, 0, false, errors.New("pgarrow: partition bounds: unexpected result")
	}
	row := res.Rows[0]
	if row[0] == nil || row[1] == nil {
		return 0, 0, true, nil
	}
	if a, err = strconv.ParseInt(string(row[0]), 10, 64); err == nil {
		b, err = strconv.ParseInt(string(row[1]), 10, 64)
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("pgarrow: partition bounds: %w", err)
	}
	return a, b, false, nil
}

// SharedSnapshot begins a REPEATABLE READ, READ ONLY transaction on every
// connection, all seeing the snapshot of the first one's, so that the
// partitions of a ParallelQuery (and KeyRanges' bounds, computed on
// conns[0]) read one consistent state of the database, as pg_dump's
// parallel workers do. End each connection's transaction (COMMIT or
// ROLLBACK) when done. On error, the transactions already begun are rolled
// back.
//
// Inside these transactions, releasing a reader early reads the rest of
// its result rather than cancelling it (see RecordReader.Release).
func SharedSnapshot(ctx context.Context, conns []*Conn) error {
	if len(conns) == 0 {
		return nil
	}
	const begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	rollback := func(cs []*Conn) {
		for _, c := range cs {
			_, _ = c.pg.Exec(context.Background(), "ROLLBACK").ReadAll()
		}
	}
	for _, c := range conns {
		if err := c.checkIdle(); err != nil {
			return err
		}
	}
	res, err := conns[0].pg.Exec(ctx, begin+"; SELECT pg_export_snapshot()").ReadAll()
	if err != nil {
		rollback(conns[:1])
		return fmt.Errorf("pgarrow: export snapshot: %w", wrapQueryErr(ctx, err))
	}
	if len(res) != 2 || len(res[1].Rows) != 1 || len(res[1].Rows[0]) != 1 {
		rollback(conns[:1])
		return errors.New("pgarrow: export snapshot: unexpected result")
	}
	id := string(res[1].Rows[0][0])
	for _, ch := range id {
		if !(ch >= '0' && ch <= '9' || ch >= 'A' && ch <= 'F' || ch == '-') {
			rollback(conns[:1])
			return fmt.Errorf("pgarrow: export snapshot: unexpected snapshot id %q", id)
		}
	}
	for i, c := range conns[1:] {
		if _, err := c.pg.Exec(ctx, begin+"; SET TRANSACTION SNAPSHOT '"+id+"'").ReadAll(); err != nil {
			rollback(conns[:i+2])
			return fmt.Errorf("pgarrow: import snapshot on connection %d: %w", i+1, wrapQueryErr(ctx, err))
		}
	}
	return nil
}
