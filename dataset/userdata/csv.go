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
			in.note("column %s: %s kept as text (the column is text)", c.name, strings.Join(ts, ", "))
		} else {
			in.note("column %s: %s read as null", c.name, strings.Join(ts, ", "))
			tok = true
		}
	}
	return kind, dt, tok
}

func (c *csvColumn) decideType(in *inference) (csvKind, arrow.DataType) {
	if !c.seen {
		in.note("column %s: empty in every sampled row; typed string", c.name)
		return ckString, arrow.BinaryTypes.String
	}
	switch {
	case c.ok[ckInt]:
		return ckInt, arrow.PrimitiveTypes.Int64
	case c.ok[ckFloat]:
		if c.ints && c.floats {
			in.note("column %s: integers in some rows, fractions in others; widened to float64", c.name)
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
		in.note("column %s: timestamps with and without a zone; kept as string", c.name)
	} else if c.subMicro {
		in.note("column %s: timestamps finer than a microsecond; kept as string", c.name)
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
	b       *array.RecordBuilder
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
		return 0, fmt.Errorf("record longer than %d bytes (MaxLineBytes; an unterminated quote?)", l.max)
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
	inf := &inference{lenient: map[string]bool{}}
	names := make([]string, len(header))
	used := map[string]bool{}
	for i, h := range header {
		n := strings.TrimSpace(h)
		if i == 0 {
			n = strings.TrimPrefix(n, "\ufeff")
		}
		if n == "" {
			n = fmt.Sprintf("column%d", i+1)
			inf.note("column %d: empty header; named %s", i+1, n)
		}
		if used[n] {
			base := n
			for k := 2; used[n]; k++ {
				n = fmt.Sprintf("%s_%d", base, k)
			}
			inf.note("column %d: duplicate header %q; renamed %s", i+1, base, n)
		}
		used[n] = true
		names[i] = n
	}
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
	if limit >= 0 && sampled == limit {
		inf.note("schema inferred from the first %d rows; a later row that does not fit is an error (InferRows -1 scans the whole file)", limit)
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
	return &csvSource{r: r, sch: sch, kinds: kinds, tok: tok, cr: cr, closeIn: closeIn,
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
			if err == nil && (zoned != (s.kinds[i] == ckTimestamp) || t.Nanosecond()%1000 != 0) {
				err = errors.New("timestamp of another form than the sample's")
			}
		}
		if err != nil {
			return fmt.Errorf("column %d (%s): %q does not fit inferred type %s (the schema was inferred from a sample: see Options.InferRows)",
				i+1, s.sch.Field(i).Name, v, s.sch.Field(i).Type)
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
				return nil, fmt.Errorf("userdata: %s: %w", location(s.r.path, int64(line)), cerr)
			}
		}
		if err != nil {
			if s.r.opts.SkipBad && isParseError(err) {
				*s.r.skipped++
				continue
			}
			return nil, s.r.csvError(s.cr, err)
		}
		s.append(rec)
		n++
		s.emitted++
	}
	if n == 0 {
		return nil, nil
	}
	return s.b.NewRecordBatch(), nil
}

func (s *csvSource) close() error {
	s.b.Release()
	return s.closeIn()
}
