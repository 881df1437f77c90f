package userdata

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func parseInt(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

// csvKind is a candidate type of a CSV column, from narrowest to widest.
type csvKind int

const (
	ckInt csvKind = iota
	ckFloat
	ckBool
	ckDate
	ckTimestamp   // with zone, stored as UTC
	ckTimestampNZ // without zone
	ckString
)

// parseTimestamp parses the timestamp layouts CSV inference recognises and
// reports whether s carries a zone.
func parseTimestamp(s string) (time.Time, bool, error) {
	for _, l := range [...]struct {
		layout string
		zoned  bool
	}{
		{time.RFC3339Nano, true},
		{"2006-01-02 15:04:05.999999999Z07:00", true},
		{"2006-01-02T15:04:05.999999999", false},
		{"2006-01-02 15:04:05.999999999", false},
	} {
		if t, err := time.Parse(l.layout, s); err == nil {
			return t, l.zoned, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("not a timestamp")
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("not a boolean")
}

// isFloat reports whether s is a decimal float literal (not hex, inf or nan,
// which would turn words into numbers).
func isFloat(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// isNullToken reports whether s is a cell text read as null in columns whose
// other cells are all numbers, booleans, dates or timestamps (in a text
// column such cells stay text).
func isNullToken(s string) bool {
	switch s {
	case "NA", "N/A", "n/a", "na", "null", "NULL", "Null", "None", "nan", "NaN":
		return true
	}
	return false
}

// csvColumn accumulates what the sample shows about one column.
type csvColumn struct {
	name                                  string
	ok                                    [ckString]bool // candidate still possible
	seen                                  bool           // a non-empty, non-token cell seen
	ints, floats, subMicro, zoned, nozone bool
	tokens                                map[string]bool // null tokens seen
}

func newCSVColumn(name string) *csvColumn {
	c := &csvColumn{name: name}
	for i := range c.ok {
		c.ok[i] = true
	}
	return c
}

func (c *csvColumn) observe(s string) {
	if s == "" {
		return
	}
	if isNullToken(s) {
		if c.tokens == nil {
			c.tokens = map[string]bool{}
		}
		c.tokens[s] = true
		return
	}
	c.seen = true
	if c.ok[ckInt] || c.ok[ckFloat] {
		if _, err := parseInt(s); err == nil {
			c.ints = true
		} else {
			c.ok[ckInt] = false
			if isFloat(s) {
				c.floats = true
			} else {
				c.ok[ckFloat] = false
			}
		}
	}
	if c.ok[ckBool] {
		if _, err := parseBool(s); err != nil {
			c.ok[ckBool] = false
		}
	}
	if c.ok[ckDate] {
		if _, err := time.Parse("2006-01-02", s); err != nil {
			c.ok[ckDate] = false
		}
	}
	if c.ok[ckTimestamp] || c.ok[ckTimestampNZ] {
		t, zoned, err := parseTimestamp(s)
		switch {
		case err != nil:
			c.ok[ckTimestamp], c.ok[ckTimestampNZ] = false, false
		case t.Nanosecond()%1000 != 0:
			c.subMicro = true
			c.ok[ckTimestamp], c.ok[ckTimestampNZ] = false, false
		case zoned:
			c.zoned = true
			c.ok[ckTimestampNZ] = false
		default:
			c.nozone = true
			c.ok[ckTimestamp] = false
		}
	}
}

// decide picks the column's type; tok reports whether null tokens are
// read as null.
func (c *csvColumn) decide(in *inference) (kind csvKind, dt arrow.DataType, tok bool) {
	kind, dt = c.decideType(in)
	if len(c.tokens) > 0 {
		var ts []string
		for t := range c.tokens {
			ts = append(ts, strconv.Quote(t))
		}
		sort.Strings(ts)
		if kind == ckString {
			in.group(fmt.Sprintf("%s kept as text (the column is text)", strings.Join(ts, ", ")), c.name)
		} else {
			in.group(fmt.Sprintf("%s read as null", strings.Join(ts, ", ")), c.name)
			tok = true
		}
	}
	return kind, dt, tok
}

func (c *csvColumn) decideType(in *inference) (csvKind, arrow.DataType) {
	if !c.seen {
		in.group("empty in every sampled row; typed string", c.name)
		return ckString, arrow.BinaryTypes.String
	}
	switch {
	case c.ok[ckInt]:
		return ckInt, arrow.PrimitiveTypes.Int64
	case c.ok[ckFloat]:
		if c.ints && c.floats {
			in.group("integers in some rows, fractions in others; widened to float64", c.name)
		}
		return ckFloat, arrow.PrimitiveTypes.Float64
	case c.ok[ckBool]:
		return ckBool, arrow.FixedWidthTypes.Boolean
	case c.ok[ckDate]:
		return ckDate, arrow.FixedWidthTypes.Date32
	case c.ok[ckTimestamp]:
		return ckTimestamp, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case c.ok[ckTimestampNZ]:
		return ckTimestampNZ, &arrow.TimestampType{Unit: arrow.Microsecond}
	}
	if c.zoned && c.nozone {
		in.group("timestamps with and without a zone; kept as string", c.name)
	} else if c.subMicro {
		in.group("timestamps finer than a microsecond; kept as string", c.name)
	}
	return ckString, arrow.BinaryTypes.String
}

// csvSource reads CSV or TSV with a header line.
type csvSource struct {
	r       *Reader
	sch     *arrow.Schema
	kinds   []csvKind
	tok     []bool // null tokens read as null, per column
	cr      csvReader
	closeIn func() error
	rows    int64
	emitted int64
	sampled int // rows the schema was inferred from
	b       *array.RecordBuilder
	batchLines
}

// recordLimiter fails reads once more than max bytes pass without a
// completed record (reset after each record), so an unterminated quote
// cannot make encoding/csv buffer the rest of a huge file.
type recordLimiter struct {
	r      io.Reader
	n, max int64
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.n > l.max {
		return 0, fmt.Errorf("record longer than %s, the limit (an unterminated quote?)", sizeText(l.max))
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}

// csvReader is an encoding/csv reader with a record-size bound.
type csvReader struct {
	*csv.Reader
	lim *recordLimiter
}

// Read reads one record and resets the size bound.
func (c csvReader) Read() ([]string, error) {
	rec, err := c.Reader.Read()
	c.lim.n = 0
	return rec, err
}

func (r *Reader) newCSVReader(in io.Reader) csvReader {
	lim := &recordLimiter{r: in, max: int64(r.opts.maxLine())}
	cr := csv.NewReader(lim)
	if r.kind == KindTSV {
		cr.Comma = '\t'
		cr.LazyQuotes = true
	}
	cr.ReuseRecord = true
	cr.FieldsPerRecord = 0
	return csvReader{cr, lim}
}

// csvError describes a csv.Reader error with file and line.
func (r *Reader) csvError(cr csvReader, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		what := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			what = fmt.Sprintf("wrong number of fields (the header has %d)", cr.FieldsPerRecord)
		}
		return fmt.Errorf("userdata: %s: column %d: %s", location(r.path, int64(pe.Line)), pe.Column, what)
	}
	line, _ := cr.FieldPos(0)
	return fmt.Errorf("userdata: %s: %w", location(r.path, int64(line)), err)
}

func isParseError(err error) bool {
	var pe *csv.ParseError
	return errors.As(err, &pe)
}

func newCSVSource(r *Reader) (*csvSource, error) {
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	cr := r.newCSVReader(in)
	header, err := cr.Read()
	if err != nil {
		closeIn()
		if err == io.EOF {
			return nil, fmt.Errorf("userdata: %s: empty file (a header line is needed)", r.path)
		}
		return nil, r.csvError(cr, err)
	}
	if len(header) > MaxColumns {
		closeIn()
		return nil, fmt.Errorf("userdata: %s: the header has %s columns, more than the limit of %s", r.path, thousands(int64(len(header))), thousands(MaxColumns))
	}
	inf := &inference{lenient: map[string]bool{}}
	names := make([]string, len(header))
	used := make(map[string]bool, len(header))
	next := map[string]int{} // the next suffix to try for a duplicated name
	var empty, dups []string
	for i, h := range header {
		n := strings.TrimSpace(h)
		if i == 0 {
			n = strings.TrimPrefix(n, "\ufeff")
		}
		if n == "" {
			n = fmt.Sprintf("column%d", i+1)
			empty = append(empty, n)
		}
		if used[n] {
			base := n
			k := max(next[base], 2)
			for n = fmt.Sprintf("%s_%d", base, k); used[n]; n = fmt.Sprintf("%s_%d", base, k) {
				k++
			}
			next[base] = k + 1
			dups = append(dups, fmt.Sprintf("%q → %s", base, n))
		}
		used[n] = true
		names[i] = n
	}
	inf.noteList("empty header named after the column's position", "empty headers named after the columns' positions", empty)
	inf.noteList("duplicate header renamed", "duplicate headers renamed", dups)
	cols := make([]*csvColumn, len(names))
	for i, n := range names {
		cols[i] = newCSVColumn(n)
	}
	limit := r.opts.inferRows()
	sampled := 0
	for limit < 0 || sampled < limit {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if r.opts.SkipBad && isParseError(err) {
				continue
			}
			closeIn()
			return nil, r.csvError(cr, err)
		}
		for i, s := range rec {
			cols[i].observe(s)
		}
		sampled++
	}
	if err := closeIn(); err != nil {
		return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	fields := make([]arrow.Field, len(cols))
	kinds := make([]csvKind, len(cols))
	tok := make([]bool, len(cols))
	for i, c := range cols {
		k, dt, t := c.decide(inf)
		kinds[i], tok[i] = k, t
		fields[i] = arrow.Field{Name: c.name, Type: dt, Nullable: true}
	}
	inf.flushGroups()
	if limit >= 0 && sampled == limit {
		inf.note("%s", inferredNote(limit))
	}
	inf.note("empty cells, quoted (\"\") or not, are null")
	r.notes = append(r.notes, inf.notes...)
	sch := arrow.NewSchema(fields, nil)

	in, closeIn, err = openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	cr = r.newCSVReader(in)
	if _, err := cr.Read(); err != nil {
		closeIn()
		return nil, r.csvError(cr, err)
	}
	return &csvSource{r: r, sch: sch, kinds: kinds, tok: tok, cr: cr, closeIn: closeIn, sampled: sampled,
		b: array.NewRecordBuilder(r.opts.Allocator, sch)}, nil
}

func (s *csvSource) schema() *arrow.Schema { return s.sch }

func (s *csvSource) isNull(col int, v string) bool {
	return v == "" || (s.tok[col] && isNullToken(v))
}

// check reports the first cell of rec that does not parse as its column's type.
func (s *csvSource) check(rec []string) error {
	for i, v := range rec {
		if s.isNull(i, v) {
			continue
		}
		var err error
		what := ""
		switch s.kinds[i] {
		case ckInt:
			_, err = parseInt(v)
		case ckFloat:
			if !isFloat(v) {
				err = errors.New("not a number")
			}
		case ckBool:
			_, err = parseBool(v)
		case ckDate:
			_, err = time.Parse("2006-01-02", v)
		case ckTimestamp, ckTimestampNZ:
			var t time.Time
			var zoned bool
			t, zoned, err = parseTimestamp(v)
			switch {
			case err != nil:
			case t.Nanosecond()%1000 != 0:
				err, what = errors.New("finer"), "a timestamp finer than a microsecond"
			case zoned && s.kinds[i] == ckTimestampNZ:
				err, what = errors.New("zoned"), "a timestamp with a zone"
			case !zoned && s.kinds[i] == ckTimestamp:
				err, what = errors.New("zoneless"), "a timestamp without a zone"
			}
		}
		if err != nil {
			if what == "" {
				what = cellKind(v)
			}
			return &mismatchError{col: i, what: what}
		}
	}
	return nil
}

func (s *csvSource) append(rec []string) {
	for i, v := range rec {
		fb := s.b.Field(i)
		if s.isNull(i, v) {
			fb.AppendNull()
			continue
		}
		switch s.kinds[i] {
		case ckInt:
			x, _ := parseInt(v)
			fb.(*array.Int64Builder).Append(x)
		case ckFloat:
			x, _ := strconv.ParseFloat(v, 64)
			fb.(*array.Float64Builder).Append(x)
		case ckBool:
			x, _ := parseBool(v)
			fb.(*array.BooleanBuilder).Append(x)
		case ckDate:
			t, _ := time.Parse("2006-01-02", v)
			fb.(*array.Date32Builder).Append(arrow.Date32FromTime(t))
		case ckTimestamp, ckTimestampNZ:
			t, _, _ := parseTimestamp(v)
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(t.UnixMicro()))
		default:
			fb.(*array.StringBuilder).Append(v)
		}
	}
}

func (s *csvSource) next() (arrow.RecordBatch, error) {
	n := 0
	batch := s.r.opts.batchSize()
	for n < batch && (s.r.opts.Limit <= 0 || s.emitted < s.r.opts.Limit) {
		rec, err := s.cr.Read()
		if err == io.EOF {
			break
		}
		if err == nil {
			s.rows++
			if !s.r.opts.keep(s.rows - 1) {
				continue
			}
			if cerr := s.check(rec); cerr != nil {
				if s.r.opts.SkipBad {
					*s.r.skipped++
					continue
				}
				line, _ := s.cr.FieldPos(0)
				return nil, s.mismatch(cerr, rec, int64(line))
			}
		}
		if err != nil {
			if s.r.opts.SkipBad && isParseError(err) {
				*s.r.skipped++
				continue
			}
			return nil, s.r.csvError(s.cr, err)
		}
		line, _ := s.cr.FieldPos(0)
		s.add(n, int64(line))
		s.append(rec)
		n++
		s.emitted++
	}
	if n == 0 {
		return nil, nil
	}
	return s.b.NewRecordBatch(), nil
}

// batchLines are the input lines of the rows of the batch being built, for
// errors found in a batch after it is made (invalid UTF-8).
type batchLines struct{ lines []int64 }

// add records the line of the batch's row n.
func (b *batchLines) add(n int, line int64) {
	if n == 0 {
		b.lines = b.lines[:0]
	}
	b.lines = append(b.lines, line)
}

// lineOf returns the line of row i of the last batch.
func (b *batchLines) lineOf(i int) int64 {
	if i < len(b.lines) {
		return b.lines[i]
	}
	return 0
}

// mismatchError is a cell that does not parse as its column's type.
type mismatchError struct {
	col  int
	what string // what the cell holds: "text", "a fraction"…
}

func (e *mismatchError) Error() string { return fmt.Sprintf("column %d: %s", e.col+1, e.what) }

// mismatch describes the cell of rec that check refused, with both ways out.
func (s *csvSource) mismatch(err error, rec []string, line int64) error {
	me, ok := err.(*mismatchError)
	if !ok {
		return fmt.Errorf("userdata: %s: %w", location(s.r.path, line), err)
	}
	f := s.sch.Field(me.col)
	return fmt.Errorf("userdata: %s: column %d (%s) was inferred as %s from the first %s; line %s has %s %q there: %s",
		location(s.r.path, line), me.col+1, f.Name, f.Type, rowsText(s.sampled), thousands(line), me.what,
		shorten(rec[me.col], 40), waysOut)
}

// waysOut is the advice for a row that does not fit the inferred schema.
const waysOut = "pass --infer-rows all (or a larger N) to infer the schema from more rows, or --skip-bad to skip such lines"

// inferredNote is the note of a schema inferred from a sample of limit rows.
func inferredNote(limit int) string {
	return fmt.Sprintf("schema inferred from the first %s; a later row that does not fit is an error (--infer-rows all infers from the whole file)", rowsText(limit))
}

// rowsText is "1 row", "1,000 rows".
func rowsText(n int) string {
	if n == 1 {
		return "1 row"
	}
	return thousands(int64(n)) + " rows"
}

// cellKind says what a CSV cell holds, for errors: "an integer", "text"….
func cellKind(v string) string {
	switch {
	case func() bool { _, err := parseInt(v); return err == nil }():
		return "an integer"
	case isFloat(v):
		return "a number with a fraction"
	case func() bool { _, err := parseBool(v); return err == nil }():
		return "a boolean"
	case func() bool { _, err := time.Parse("2006-01-02", v); return err == nil }():
		return "a date"
	case func() bool { _, _, err := parseTimestamp(v); return err == nil }():
		return "a timestamp"
	}
	return "text"
}

func (s *csvSource) close() error {
	s.b.Release()
	return s.closeIn()
}
