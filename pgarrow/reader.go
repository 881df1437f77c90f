package pgarrow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Conn reads query results from one PostgreSQL connection as Arrow record
// batches. It caches, per connection, what it learns about non-built-in
// types (enums, domains, arrays of them, types only readable as text).
//
// Like the underlying connection, a Conn is not safe for concurrent use, and
// only one RecordReader may be open on a connection at a time: Query and
// Copy fail with ErrBusy while one is (read it to the end or Release it
// first), whichever Conn on that PgConn opened it. The Conns of one PgConn
// share what they learn about types (it is kept in the PgConn's
// CustomData), so package-level Query and Copy look each type up once per
// connection too.
type Conn struct {
	pg      *pgconn.PgConn
	opts    Options
	typeMap *pgtype.Map
	eqb     pgx.ExtendedQueryBuilder
	types   map[uint32]pgType // non-built-in types seen on pg, shared by its Conns
	// fixedMem allocates the buffers values cannot be viewed through
	// (fixed-width columns); viewMem those of strings, binary and lists.
	fixedMem, viewMem memory.Allocator
	// maxBatchData bounds the variable-length bytes of one column in one
	// batch (Arrow's 32-bit offsets); settable by tests.
	maxBatchData int64
	// afterDescribe, if set (by tests), runs between describing and
	// executing a Query.
	afterDescribe func()
}

// NewConn returns a Conn reading from pg, e.g. (*pgx.Conn).PgConn().
func NewConn(pg *pgconn.PgConn, opts Options) (*Conn, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	// What pgarrow knows about the connection lives in its CustomData, so
	// that every Conn on it (and every package-level Query or Copy) shares
	// the types learnt and sees a reader open through another Conn.
	types, ok := pg.CustomData()[typesKey].(map[uint32]pgType)
	if !ok {
		types = map[uint32]pgType{}
		pg.CustomData()[typesKey] = types
	}
	c := &Conn{pg: pg, opts: o, typeMap: pgtype.NewMap(), types: types, maxBatchData: math.MaxInt32}
	switch {
	case o.Allocator != nil:
		c.fixedMem, c.viewMem = o.Allocator, o.Allocator
	case o.Recycle:
		r := newRecycler()
		c.fixedMem, c.viewMem = r, r
	default:
		c.fixedMem, c.viewMem = newRecycler(), memory.DefaultAllocator
	}
	return c, nil
}

// ErrBusy is returned by Query and Copy while a RecordReader is open on
// the connection.
var ErrBusy = errors.New("pgarrow: connection busy: a RecordReader is still open on it (read it to the end or Release it first)")

// Keys of pgarrow's entries in pgconn.PgConn.CustomData.
const (
	typesKey  = "github.com/serbench/serbench/pgarrow.types"  // map[uint32]pgType
	activeKey = "github.com/serbench/serbench/pgarrow.active" // bool: a RecordReader is reading
)

// setActive records whether a RecordReader is reading from the connection.
func (c *Conn) setActive(on bool) {
	if on {
		c.pg.CustomData()[activeKey] = true
	} else {
		delete(c.pg.CustomData(), activeKey)
	}
}

// checkIdle reports an error when the connection is in use.
func (c *Conn) checkIdle() error {
	if active, _ := c.pg.CustomData()[activeKey].(bool); active || c.pg.IsBusy() {
		return ErrBusy
	}
	if c.pg.IsClosed() {
		return errors.New("pgarrow: connection closed")
	}
	return nil
}

// Query runs sql with args and returns its rows as Arrow record batches.
// The statement is executed exactly once.
//
// Round trips: the statement is first described (Parse and Describe of the
// unnamed prepared statement, one round trip), so that the column types are
// known before anything runs; types pgarrow has not met on this connection
// (enums, domains, composite or extension types) are then looked up in
// pg_type, at most once per type and connection. The unnamed statement is
// then executed (Bind, Describe, Execute, Sync in one flight) asking for
// binary results, or text for the columns whose type pgarrow cannot decode
// from binary. A statement that returns no rows (INSERT without RETURNING,
// DDL, …) is refused before it runs. A query with no columns (SELECT FROM
// t) does return rows: its records have an empty schema and the query's
// number of rows.
//
// Arguments are encoded as pgx does in QueryExecModeExec: in text format,
// with their types inferred by the server from the query.
//
// ctx governs the whole read: when it is done, a CancelRequest stops the
// query on the server and Next fails. Inside a transaction that aborts the
// transaction, as any cancelled statement does; Release does not (see
// RecordReader.Release).
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (*RecordReader, error) {
	if err := c.checkIdle(); err != nil {
		return nil, err
	}
	if err := c.eqb.Build(c.typeMap, nil, args); err != nil {
		return nil, fmt.Errorf("pgarrow: encode arguments: %w", err)
	}
	for attempt := 0; ; attempt++ {
		fields, err := c.describe(ctx, sql)
		if err != nil {
			return nil, err
		}
		formats := resultFormats(fields, c.decodable)
		if c.afterDescribe != nil {
			c.afterDescribe()
		}
		w := watchCancel(ctx, c.pg, false)
		var rr *pgconn.ResultReader
		if attempt == 0 {
			rr = c.pg.ExecPrepared(ctx, "", c.eqb.ParamValues, c.eqb.ParamFormats, formats)
		} else {
			// Parse again in the same flight: the unnamed statement
			// vanished (a pooler such as PgBouncer moved the session to
			// another server connection) or went stale.
			rr = c.pg.ExecParams(ctx, sql, c.eqb.ParamValues, nil, c.eqb.ParamFormats, formats)
		}
		fds := rr.FieldDescriptions()
		if fds == nil {
			_, err := rr.Close()
			w.stop()
			if err != nil {
				if attempt == 0 && retryBind(err) && c.pg.TxStatus() == 'I' {
					continue // the error came from Bind: nothing ran
				}
				return nil, wrapQueryErr(ctx, err)
			}
			return nil, errors.New("pgarrow: statement returned no row description")
		}
		return c.startSelect(ctx, rr, w, fields, fds)
	}
}

// retryBind reports whether err, from executing the described unnamed
// statement, was raised by Bind, before anything ran, and calls for
// describing and executing again: the statement does not exist any more
// (26000), or its result type changed since it was described (0A000,
// "cached plan must not change result type"). Neither can happen inside a
// transaction block short of misuse (the described tables stay locked,
// poolers keep the session), where the error has aborted the transaction
// anyway: only errors outside one are retried.
func retryBind(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "26000" || pe.Code == "0A000")
}

// resultFormats returns the result format codes for fields: one binary
// code for all columns, or one code per column when some are read as text
// (which it marks in fields).
func resultFormats(fields []field, decodable func(pgType) bool) []int16 {
	anyText := false
	for i := range fields {
		if !decodable(fields[i].typ) {
			fields[i].text, anyText = true, true
		}
	}
	if !anyText {
		return []int16{pgx.BinaryFormatCode} // one code: applies to all columns
	}
	formats := make([]int16, len(fields))
	for i, f := range fields {
		formats[i] = pgx.BinaryFormatCode
		if f.text {
			formats[i] = pgx.TextFormatCode
		}
	}
	return formats
}

// startSelect checks the columns of an execution against its description
// and returns the reader of its rows.
func (c *Conn) startSelect(ctx context.Context, rr *pgconn.ResultReader, w *cancelWatch, fields []field, fds []pgconn.FieldDescription) (*RecordReader, error) {
	src := &selectSource{c: c, rr: rr, w: w}
	if len(fds) != len(fields) {
		src.abort()
		return nil, fmt.Errorf("pgarrow: statement has %d columns, described with %d", len(fds), len(fields))
	}
	for i, fd := range fds {
		if fd.DataTypeOID != fields[i].oid || (fd.Format == pgx.TextFormatCode) != fields[i].text {
			src.abort()
			return nil, fmt.Errorf("pgarrow: column %q changed type between describe and execute", fd.Name)
		}
	}
	r, err := c.newReader(ctx, fields, src)
	if err != nil {
		src.abort()
		return nil, err
	}
	return r, nil
}

// errNotAQuery is returned for a statement that returns no rows.
var errNotAQuery = errors.New("pgarrow: statement returns no rows (not a query); it was not executed")

// describe parses sql as the unnamed prepared statement and returns its
// result columns, looking up the types not known yet. Nothing is executed.
//
// A statement described with NoData (INSERT without RETURNING, DDL, …)
// returns no rows at all and is an error. One described with a
// RowDescription returns rows, even with zero columns (SELECT FROM t):
// its fields are then empty. pgconn tells the two apart by Fields, nil
// after NoData and non-nil after any RowDescription.
func (c *Conn) describe(ctx context.Context, sql string) ([]field, error) {
	for attempt := 0; ; attempt++ {
		sd, err := c.pg.Prepare(ctx, "", sql, nil)
		if err != nil {
			return nil, wrapQueryErr(ctx, err)
		}
		if sd.Fields == nil {
			return nil, errNotAQuery
		}
		var unknown []uint32
		for _, fd := range sd.Fields {
			if _, ok := c.typeOf(fd.DataTypeOID); !ok {
				unknown = append(unknown, fd.DataTypeOID)
			}
		}
		if len(unknown) == 0 || attempt == 2 {
			fields := make([]field, len(sd.Fields))
			for i, fd := range sd.Fields {
				t, ok := c.typeOf(fd.DataTypeOID)
				if !ok {
					t = pgType{name: "oid " + strconv.FormatUint(uint64(fd.DataTypeOID), 10)}
				}
				fields[i] = field{name: fd.Name, oid: fd.DataTypeOID, typmod: fd.TypeModifier, typ: t}
			}
			return fields, nil
		}
		// The lookup replaces the unnamed statement: describe again.
		if err := c.lookupTypes(ctx, unknown); err != nil {
			return nil, err
		}
	}
}

// Copy reads the result of query with COPY (query) TO STDOUT (FORMAT
// binary). COPY takes no parameters, so query must be self-contained. A
// trailing semicolon and trailing comments are allowed, as in Query.
//
// The binary COPY stream carries no column types. Copy learns them by
// describing query first (Parse + Describe of the unnamed statement: one
// extra round trip per call, negligible next to a bulk read) rather than
// asking for a schema, so that it cannot disagree with the server. Binary
// COPY sends every column in binary, so a column whose type pgarrow cannot
// decode from binary is an error: cast it to text in query. As in Query, a
// statement that returns no rows is refused and a query without columns
// yields records with an empty schema.
//
// ctx governs the whole read: when it is done, a CancelRequest stops the
// COPY on the server and Next fails.
func (c *Conn) Copy(ctx context.Context, query string) (*RecordReader, error) {
	if err := c.checkIdle(); err != nil {
		return nil, err
	}
	query = trimStatement(query)
	fields, err := c.describe(ctx, query)
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !c.decodable(f.typ) {
			return nil, fmt.Errorf("pgarrow: column %q (%s): type cannot be read from binary COPY; cast it to text in the query or use Query", f.name, f.typ.name)
		}
	}
	// The newline ends a trailing line comment, if trimStatement kept one.
	src, err := startCopy(ctx, c.pg, "COPY ("+query+"\n) TO STDOUT (FORMAT binary)", len(fields))
	if err != nil {
		return nil, err
	}
	r, err := c.newReader(ctx, fields, src)
	if err != nil {
		src.abort()
		return nil, err
	}
	return r, nil
}

// typeOf returns what is known about a type OID.
func (c *Conn) typeOf(oid uint32) (pgType, bool) {
	if t, ok := builtinType(oid); ok {
		return t, true
	}
	t, ok := c.types[oid]
	return t, ok
}

// decodable reports whether values of t can be decoded from binary.
func (c *Conn) decodable(t pgType) bool {
	switch t.kind {
	case kUnknown:
		return false
	case kArray:
		et, ok := c.typeOf(t.elem)
		return ok && et.kind != kUnknown && et.kind != kArray
	}
	return true
}

// lookupTypes learns the types oids (and their element and base types) from
// pg_type.
func (c *Conn) lookupTypes(ctx context.Context, oids []uint32) error {
	return c.lookupTypesDepth(ctx, oids, 0)
}

func (c *Conn) lookupTypesDepth(ctx context.Context, oids []uint32, depth int) error {
	if len(oids) == 0 {
		return nil
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for i, o := range oids {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatUint(uint64(o), 10))
	}
	sb.WriteByte('}')
	res := c.pg.ExecParams(ctx,
		"SELECT oid, typname, typtype, typcategory, typelem, typbasetype FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])",
		[][]byte{[]byte(sb.String())}, nil, nil, nil).Read()
	if res.Err != nil {
		return fmt.Errorf("pgarrow: look up types %s: %w", sb.String(), wrapQueryErr(ctx, res.Err))
	}
	type row struct {
		oid, elem, base uint32
		name            string
		typtype, cat    byte
	}
	var rows []row
	var deps []uint32
	for _, v := range res.Rows {
		if len(v) != 6 {
			continue
		}
		var r row
		o, _ := strconv.ParseUint(string(v[0]), 10, 32)
		e, _ := strconv.ParseUint(string(v[4]), 10, 32)
		b, _ := strconv.ParseUint(string(v[5]), 10, 32)
		r.oid, r.elem, r.base, r.name = uint32(o), uint32(e), uint32(b), string(v[1])
		if len(v[2]) > 0 {
			r.typtype = v[2][0]
		}
		if len(v[3]) > 0 {
			r.cat = v[3][0]
		}
		rows = append(rows, r)
		for _, d := range []uint32{r.elem, r.base} {
			if _, ok := c.typeOf(d); d != 0 && !ok {
				deps = append(deps, d)
			}
		}
	}
	// Resolve element and base types first (domains over domains nest).
	if depth < 8 {
		if err := c.lookupTypesDepth(ctx, deps, depth+1); err != nil {
			return err
		}
	}
	found := map[uint32]bool{}
	for _, r := range rows {
		found[r.oid] = true
		t := pgType{name: r.name, kind: kUnknown}
		switch {
		case r.typtype == 'e':
			t.kind = kText // enums are sent as their label, also in binary
		case r.typtype == 'd' && r.base != 0:
			if bt, ok := c.typeOf(r.base); ok {
				t.kind, t.elem, t.vector = bt.kind, bt.elem, bt.vector
			}
		case r.cat == 'A' && r.elem != 0:
			t.kind, t.elem = kArray, r.elem
		}
		c.types[r.oid] = t
	}
	for _, o := range oids {
		if !found[o] {
			c.types[o] = pgType{name: "oid " + strconv.FormatUint(uint64(o), 10), kind: kUnknown}
		}
	}
	return nil
}

// cancelOK reports whether an unwanted result may be stopped with a
// CancelRequest: only outside a transaction block, since a cancelled
// statement aborts the transaction it runs in. Inside one the rest of the
// result is read and discarded instead.
func cancelOK(pg *pgconn.PgConn) bool {
	return pg.TxStatus() == 'I'
}

// sendCancel asks the server to cancel the running statement.
func sendCancel(pg *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = pg.CancelRequest(ctx)
	cancel()
}

func (c *Conn) newReader(ctx context.Context, fields []field, src source) (*RecordReader, error) {
	r := &RecordReader{ctx: ctx, src: src, batchSize: c.opts.BatchSize, fields: fields, conn: c, maxData: c.maxBatchData}
	r.refs.Store(1)
	afields := make([]arrow.Field, len(fields))
	for i, f := range fields {
		mem := c.fixedMem
		if viewable(f, &c.opts) {
			mem = c.viewMem
		}
		af, col, err := newColumn(mem, f, &c.opts, c.typeOf)
		if err != nil {
			r.releaseBuilders()
			return nil, fmt.Errorf("pgarrow: column %q (%s): %w", f.name, f.typ.name, err)
		}
		afields[i] = af
		r.cols = append(r.cols, col)
		r.builders = append(r.builders, col.builder())
		if vc, ok := col.(varColumn); ok {
			r.varCols = append(r.varCols, varCol{idx: i, col: vc})
		}
	}
	r.schema = arrow.NewSchema(afields, nil)
	c.setActive(true)
	return r, nil
}

// viewable reports whether the Arrow column of f hands out views of its
// buffers through Value (strings, binary, fixed-size binary, lists).
func viewable(f field, opts *Options) bool {
	if f.text {
		return true
	}
	switch f.typ.kind {
	case kText, kUnknown, kChar, kJSONB, kInet, kBytea, kUUID, kArray:
		return true
	case kNumeric:
		_, _, decimal := decimalParams(f.typmod, opts)
		return !decimal
	}
	return false
}

// wrapQueryErr adds context, and the context's error if it is done.
func wrapQueryErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("pgarrow: %w (%w)", ctx.Err(), err)
	}
	return fmt.Errorf("pgarrow: %w", err)
}

// source yields the raw values of one row at a time.
type source interface {
	// next returns the next row's values (nil for NULL), valid until the
	// following call, or ok == false at the end or on error.
	next() (vals [][]byte, ok bool)
	// finish completes a fully read result and returns its error.
	finish() error
	// abort stops the query early and leaves the connection usable.
	abort()
}

// cancelWatch sends a CancelRequest when ctx is done while a query runs, so
// that the query stops on the server whatever the connection's own
// context-watcher handler does. With deadline set, it also bounds the wait
// for the server's answer with a read deadline on the connection.
type cancelWatch struct {
	once     sync.Once
	mu       sync.Mutex
	finished bool
	done     chan struct{}
	stopFn   func() bool
	pg       *pgconn.PgConn
	deadline bool
}

func watchCancel(ctx context.Context, pg *pgconn.PgConn, deadline bool) *cancelWatch {
	w := &cancelWatch{done: make(chan struct{}), pg: pg, deadline: deadline}
	w.stopFn = context.AfterFunc(ctx, func() {
		defer close(w.done)
		w.mu.Lock()
		fin := w.finished
		w.mu.Unlock()
		if fin {
			return
		}
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = pg.CancelRequest(cctx)
		cancel()
		if w.deadline {
			w.mu.Lock()
			if !w.finished {
				_ = pg.Conn().SetReadDeadline(time.Now().Add(5 * time.Second))
			}
			w.mu.Unlock()
		}
	})
	return w
}

// stop ends the watch; it waits for a cancel already under way. Calls
// after the first do nothing.
func (w *cancelWatch) stop() {
	w.once.Do(func() {
		w.mu.Lock()
		w.finished = true
		w.mu.Unlock()
		if !w.stopFn() {
			<-w.done // the cancel had started
		}
		if w.deadline && !w.pg.IsClosed() {
			_ = w.pg.Conn().SetReadDeadline(time.Time{})
		}
	})
}

type selectSource struct {
	c  *Conn
	rr *pgconn.ResultReader
	w  *cancelWatch
}

func (s *selectSource) next() ([][]byte, bool) {
	if s.rr.NextRow() {
		return s.rr.Values(), true
	}
	return nil, false
}

func (s *selectSource) finish() error {
	_, err := s.rr.Close()
	s.w.stop()
	return err
}

func (s *selectSource) abort() {
	if cancelOK(s.c.pg) {
		sendCancel(s.c.pg)
	}
	_, _ = s.rr.Close() // reads and discards the rest
	s.w.stop()
}

// RecordReader streams a query result as Arrow record batches. It
// implements array.RecordReader.
type RecordReader struct {
	refs      atomic.Int64
	schema    *arrow.Schema
	fields    []field
	cols      []column
	builders  []array.Builder
	src       source
	conn      *Conn
	batchSize int
	cur       arrow.RecordBatch
	err       error
	done      bool
	rows      int64
	ctx       context.Context
	lastRows  int   // rows in the previous batch
	lastData  []int // variable-length data bytes per column in it

	// Arrow's 32-bit offsets: a batch ends early when a variable-length
	// column would pass maxData bytes; the row that did not fit waits in
	// pending for the next batch.
	varCols []varCol
	maxData int64
	pending [][]byte
}

// varCol is a column with variable-length data and its bytes in the
// current batch.
type varCol struct {
	idx  int
	col  varColumn
	used int64
	add  int64
}

var _ array.RecordReader = (*RecordReader)(nil)

// Schema returns the schema of the records.
func (r *RecordReader) Schema() *arrow.Schema { return r.schema }

// Next builds the next record batch of up to BatchSize rows. It returns
// false at the end of the result or on error (see Err). The previous record
// is released.
//
// A batch holds fewer rows than BatchSize, without error, when one more row
// would take a string, binary or list column past the 2 GiB that Arrow's
// 32-bit offsets address; the next batch starts with that row.
func (r *RecordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done && r.pending == nil {
		return false
	}
	ncols := len(r.cols)
	n := 0
	if r.lastRows > 0 {
		// Size this batch like the previous one: no regrowth, and small
		// results do not pay for BatchSize rows.
		for i, b := range r.builders {
			b.Reserve(r.lastRows)
			if bb, ok := b.(interface{ ReserveData(int) }); ok && r.lastData[i] > 0 {
				bb.ReserveData(r.lastData[i])
			}
		}
	}
	for i := range r.varCols {
		r.varCols[i].used = 0
	}
	for n < r.batchSize {
		vals := r.pending
		r.pending = nil
		if vals == nil {
			var ok bool
			vals, ok = r.src.next()
			if !ok {
				r.finish()
				if r.err != nil {
					r.discardBatch()
					return false
				}
				break
			}
		}
		if len(vals) != ncols {
			r.fail(fmt.Errorf("pgarrow: row has %d values, want %d", len(vals), ncols))
			return false
		}
		if len(r.varCols) > 0 && !r.fits(vals, n) {
			r.pending = vals
			break
		}
		for i, v := range vals {
			if v == nil {
				r.builders[i].AppendNull()
				continue
			}
			if err := r.cols[i].append(v); err != nil {
				f := r.fields[i]
				r.fail(fmt.Errorf("pgarrow: column %q (%s): %w", f.name, f.typ.name, err))
				return false
			}
		}
		n++
	}
	if n == 0 {
		return false
	}
	arrs := make([]arrow.Array, ncols)
	if r.lastData == nil {
		r.lastData = make([]int, ncols)
	}
	for i, b := range r.builders {
		if bb, ok := b.(interface{ DataLen() int }); ok {
			r.lastData[i] = bb.DataLen()
		}
		arrs[i] = b.NewArray()
	}
	r.lastRows = n
	r.cur = array.NewRecordBatch(r.schema, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	r.rows += int64(n)
	return true
}

// fits reports whether the row vals can join a batch already holding n
// rows without taking a variable-length column past maxData bytes, and if
// so accounts for it. The first row of a batch always fits: a single value
// is at most 1 GiB in PostgreSQL.
func (r *RecordReader) fits(vals [][]byte, n int) bool {
	over := false
	for i := range r.varCols {
		vc := &r.varCols[i]
		vc.add = 0
		if v := vals[vc.idx]; v != nil {
			vc.add = vc.col.dataSize(v)
		}
		if vc.used+vc.add > r.maxData {
			over = true
		}
	}
	if over && n > 0 {
		return false
	}
	for i := range r.varCols {
		r.varCols[i].used += r.varCols[i].add
	}
	return true
}

// finish completes a result read to the end.
func (r *RecordReader) finish() {
	r.done = true
	if err := r.src.finish(); err != nil {
		r.err = wrapQueryErr(r.ctx, err)
	}
	r.conn.setActive(false)
}

// fail records err and stops the query.
func (r *RecordReader) fail(err error) {
	r.err = err
	r.done = true
	r.pending = nil
	r.src.abort()
	r.conn.setActive(false)
	r.discardBatch()
}

// discardBatch drops the rows of a partial batch.
func (r *RecordReader) discardBatch() {
	for _, b := range r.builders {
		b.NewArray().Release()
	}
}

// RecordBatch returns the current record batch, valid until the next call
// to Next or Release.
func (r *RecordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current record batch.
//
// Deprecated: Use RecordBatch instead.
func (r *RecordReader) Record() arrow.Record { return r.cur }

// Err returns the error that ended the read, if any.
func (r *RecordReader) Err() error { return r.err }

// Rows returns the number of rows read so far.
func (r *RecordReader) Rows() int64 { return r.rows }

// Retain increases the reference count.
func (r *RecordReader) Retain() { r.refs.Add(1) }

// Release decreases the reference count; at zero, it releases the current
// record and the builders and, if the result was not read to the end,
// stops the statement, leaving the connection usable:
//
//   - outside a transaction block, a CancelRequest stops the statement on
//     the server and the rest of the result is discarded. The statement
//     was its own transaction, so the cancel rolls it back: releasing an
//     unfinished INSERT … RETURNING early undoes the insert.
//   - inside a transaction block (BEGIN …), cancelling would abort the
//     transaction, so the rest of the result is read and discarded
//     instead, which takes as long as the statement does; the transaction
//     stays usable. To stop a long statement early in a transaction, use
//     a LIMIT or cancel ctx (which aborts the transaction).
func (r *RecordReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.pending = nil
	if !r.done {
		r.done = true
		r.src.abort()
		r.conn.setActive(false)
	}
	r.releaseBuilders()
}

func (r *RecordReader) releaseBuilders() {
	for _, b := range r.builders {
		b.Release()
	}
	r.builders = nil
}

// Query runs sql with args on pg with default options; see Conn.Query. A
// Conn reused across queries caches what it learns about non-built-in types.
func Query(ctx context.Context, pg *pgconn.PgConn, sql string, args ...any) (*RecordReader, error) {
	c, err := NewConn(pg, Options{})
	if err != nil {
		return nil, err
	}
	return c.Query(ctx, sql, args...)
}

// Copy reads query with binary COPY on pg with default options; see
// Conn.Copy.
func Copy(ctx context.Context, pg *pgconn.PgConn, query string) (*RecordReader, error) {
	c, err := NewConn(pg, Options{})
	if err != nil {
		return nil, err
	}
	return c.Copy(ctx, query)
}
