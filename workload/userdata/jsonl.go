package userdata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/serbench/serbench/internal/jsonv"
)

// lineReader reads lines of at most max bytes, counting them.
type lineReader struct {
	r    *bufio.Reader
	max  int
	line int64
	buf  []byte
}

// next returns the next line without its newline, or io.EOF. A line longer
// than max is an error; the rest of it is consumed.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(chunk) > l.max {
			l.line++
			for err == bufio.ErrBufferFull {
				_, err = l.r.ReadSlice('\n')
			}
			return nil, fmt.Errorf("line longer than %s, the limit", sizeText(int64(l.max)))
		}
		if err == bufio.ErrBufferFull {
			l.buf = append(l.buf, chunk...)
			continue
		}
		if err == io.EOF && len(chunk) == 0 && len(l.buf) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		l.line++
		var line []byte
		if len(l.buf) == 0 {
			line = chunk
		} else {
			l.buf = append(l.buf, chunk...)
			line = l.buf
		}
		if l.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // UTF-8 byte order mark
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, nil
	}
}

func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// jtype is the type inferred for one JSON field.
type jtype struct {
	kinds   map[jsonv.Kind]bool // non-null kinds seen
	ints    bool                // integers seen among the numbers
	floats  bool                // non-integers seen among the numbers
	bigInts bool                // integers beyond int64 seen
	fields  []string            // object fields in first-seen order
	byName  map[string]*jtype
	elem    *jtype // array elements
	// objects counts the objects merged (null excluded); seen counts the
	// objects of the enclosing type this member appeared in (as null too):
	// how often a key occurs is what tells a map from a record (mapRule).
	objects int64
	seen    int64
	// vals is set once an object type passes MaxFields distinct member
	// names: the union of every member's value (fields and byName are
	// dropped). Such a type can only be a map.
	vals *jtype
}

func newJType() *jtype { return &jtype{kinds: map[jsonv.Kind]bool{}} }

// MaxFields bounds the distinct field names inference tracks one by one in
// one object type. Past it the object can only be a map (a key per user,
// per timestamp…; see MapMinKeys): its values must share one kind, else the
// input is refused, as Arrow would need a column per field.
const MaxFields = 10000

// The rule that infers an object field as a map — stored as a list of
// {key, value} entries, list<struct<key: string, value: V>> — rather than
// as a struct of one column per key. The field must hold only objects
// whose member values share one JSON kind (V is their unified type), and
// its keys must vary from row to row. Over the objects of the inference
// sample, with n distinct keys and an object holding on average a share p
// of them (the mean over the keys of the share of objects a key is in):
//
//   - n > MapMinKeys and p < MapMaxPresence (many keys, most absent from
//     any one object), or
//   - n ≥ MapSparseMinKeys and p < MapSparsePresence (keys that seldom
//     repeat: code points, IDs, dates, tags), or
//   - n > MaxFields (nothing else can hold it).
//
// A record whose fields are present in most rows stays a struct however
// wide it is, and so does any object whose values mix kinds (a union of
// record types, such as event payloads).
const (
	// MapMinKeys is the distinct keys a field must pass to be a map when
	// an object holds under MapMaxPresence of them on average.
	MapMinKeys     = 32
	MapMaxPresence = 0.5
	// MapSparseMinKeys is the distinct keys a field must have at least to
	// be a map when an object holds under MapSparsePresence of them.
	MapSparseMinKeys  = 8
	MapSparsePresence = 0.25
)

// errTooManyFields is returned by merge when an object type passes
// MaxFields and cannot be a map.
type errTooManyFields struct {
	path  string
	kinds string // the kinds its values mix, if it could otherwise be a map
}

func (e errTooManyFields) Error() string {
	if e.path == "" {
		return fmt.Sprintf("the rows have more than %d distinct field names; Arrow needs one column per field", MaxFields)
	}
	return fmt.Sprintf("object %s has more than %d distinct field names and its values mix %s: "+
		"neither a record (Arrow needs one column per field) nor a map (one value type)", e.path, MaxFields, e.kinds)
}

// kindList names t's kinds, "number and string".
func (t *jtype) kindList() []string {
	var kinds []string
	for _, k := range []jsonv.Kind{jsonv.Bool, jsonv.Number, jsonv.String, jsonv.Array, jsonv.Object} {
		if t.kinds[k] {
			kinds = append(kinds, k.String())
		}
	}
	return kinds
}

// mapValuePath is the path of the values of the map at path: the value
// field of its entries, as the schema names it.
func mapValuePath(path string) string { return path + "[].value" }

func (t *jtype) merge(v *jsonv.Value, path string) error {
	if v.Kind == jsonv.Null {
		return nil
	}
	t.kinds[v.Kind] = true
	switch v.Kind {
	case jsonv.Number:
		if v.IsInt() {
			if _, err := parseInt(v.Text); err != nil {
				t.bigInts = true
			} else {
				t.ints = true
			}
		} else {
			t.floats = true
		}
	case jsonv.Object:
		t.objects++
		if t.vals != nil {
			return t.mergeValues(v.Items, path)
		}
		if t.byName == nil {
			t.byName = map[string]*jtype{}
		}
		for i, k := range v.Keys {
			c, ok := t.byName[k]
			if !ok {
				if len(t.fields) >= MaxFields {
					if path == "" { // the rows themselves: columns, never a map
						return errTooManyFields{path: path}
					}
					t.spill()
					return t.mergeValues(v.Items[i:], path)
				}
				c = newJType()
				t.byName[k] = c
				t.fields = append(t.fields, k)
			}
			c.seen++
			p := k
			if path != "" {
				p = path + "." + k
			}
			if err := c.merge(&v.Items[i], p); err != nil {
				return err
			}
		}
	case jsonv.Array:
		if t.elem == nil {
			t.elem = newJType()
		}
		for i := range v.Items {
			if err := t.elem.merge(&v.Items[i], path+"[]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeValues merges the member values items of an object of a spilled
// type (vals), which must keep to one kind.
func (t *jtype) mergeValues(items []jsonv.Value, path string) error {
	for i := range items {
		if err := t.vals.merge(&items[i], mapValuePath(path)); err != nil {
			return err
		}
	}
	if kinds := t.vals.kindList(); len(kinds) > 1 {
		return errTooManyFields{path: path, kinds: strings.Join(kinds, " and ")}
	}
	return nil
}

// spill turns t's member types into the one type of their values, vals:
// t has passed MaxFields distinct names.
func (t *jtype) spill() {
	u := newJType()
	for _, k := range t.fields {
		u.absorb(t.byName[k])
	}
	t.vals, t.fields, t.byName = u, nil, nil
}

// absorb merges the inferred type o into t, as if t had seen o's values.
func (t *jtype) absorb(o *jtype) {
	for k := range o.kinds {
		t.kinds[k] = true
	}
	t.ints, t.floats, t.bigInts = t.ints || o.ints, t.floats || o.floats, t.bigInts || o.bigInts
	t.objects += o.objects
	t.seen += o.seen
	if o.vals != nil && t.vals == nil {
		t.spill()
	}
	for i := 0; i < len(o.fields); i++ {
		oc := o.byName[o.fields[i]]
		if t.vals != nil {
			t.vals.absorb(oc)
			continue
		}
		c, ok := t.byName[o.fields[i]]
		if !ok {
			if len(t.fields) >= MaxFields {
				t.spill()
				i-- // absorb it into vals
				continue
			}
			if t.byName == nil {
				t.byName = map[string]*jtype{}
			}
			c = newJType()
			t.byName[o.fields[i]] = c
			t.fields = append(t.fields, o.fields[i])
		}
		c.absorb(oc)
	}
	if o.vals != nil {
		t.vals.absorb(o.vals)
	}
	if o.elem != nil {
		if t.elem == nil {
			t.elem = newJType()
		}
		t.elem.absorb(o.elem)
	}
}

// mapRule reports whether the object type t (of one kind, with fields) is
// to be a map by the counts of its keys (the value kinds are checked by the
// caller), and says why, for the note.
func (t *jtype) mapRule() (bool, string) {
	n := len(t.fields)
	if n < MapSparseMinKeys || t.objects == 0 {
		return false, ""
	}
	var held int64
	for _, k := range t.fields {
		held += t.byName[k].seen
	}
	p := float64(held) / float64(t.objects) / float64(n)
	why := fmt.Sprintf("%s distinct keys; an object holds %s of them on average, over %s objects", thousands(int64(n)), percent(p), thousands(t.objects))
	return n > MapMinKeys && p < MapMaxPresence || p < MapSparsePresence, why
}

// percent formats a fraction for notes: "4%", "0.3%".
func percent(f float64) string {
	if f < 0.01 {
		return strconv.FormatFloat(100*f, 'g', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*f, 'f', 0, 64) + "%"
}

// inference turns jtypes into Arrow types, collecting notes and the paths of
// string fields that hold a mix of kinds as JSON text.
type inference struct {
	notes   []string
	lenient map[string]bool
	// entries are the paths of the object fields inferred as maps, stored
	// as lists of {key, value} entries (mapRule).
	entries map[string]bool
	groups  map[string][]string // columns by the note they share
	order   []string            // the groups' notes in first-seen order
}

func (in *inference) note(format string, args ...any) {
	in.notes = append(in.notes, fmt.Sprintf(format, args...))
}

// group records that column name gets note msg: the columns that share a
// note are listed in one (flushGroups), so that 100,000 empty columns make
// one note, not 100,000.
func (in *inference) group(msg, name string) {
	if in.groups == nil {
		in.groups = map[string][]string{}
	}
	if _, ok := in.groups[msg]; !ok {
		in.order = append(in.order, msg)
	}
	in.groups[msg] = append(in.groups[msg], name)
}

// flushGroups adds the grouped notes.
func (in *inference) flushGroups() {
	for _, msg := range in.order {
		cols := in.groups[msg]
		if len(cols) == 1 {
			in.note("column %s: %s", cols[0], msg)
		} else {
			in.note("%s columns (%s): %s", thousands(int64(len(cols))), listSome(cols, 10), msg)
		}
	}
	in.groups, in.order = nil, nil
}

// noteList notes items under a singular or plural title.
func (in *inference) noteList(singular, plural string, items []string) {
	switch len(items) {
	case 0:
	case 1:
		in.note("%s: %s", singular, items[0])
	default:
		in.note("%s %s: %s", thousands(int64(len(items))), plural, listSome(items, 10))
	}
}

// listSome joins the first max items, saying how many more there are.
func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(" … and %s more", thousands(int64(len(items)-max)))
}

func (in *inference) arrow(t *jtype, path string) arrow.DataType {
	var kinds []string
	for _, k := range []jsonv.Kind{jsonv.Bool, jsonv.Number, jsonv.String, jsonv.Array, jsonv.Object} {
		if t.kinds[k] {
			kinds = append(kinds, k.String())
		}
	}
	switch {
	case len(kinds) == 0:
		in.note("field %s: only null or absent in the sample; typed string", path)
		return arrow.BinaryTypes.String
	case len(kinds) > 1:
		in.note("field %s: mixes %s across lines; stored as string (non-string values as their JSON text)",
			path, strings.Join(kinds, " and "))
		in.lenient[path] = true
		return arrow.BinaryTypes.String
	}
	switch {
	case t.kinds[jsonv.Bool]:
		return arrow.FixedWidthTypes.Boolean
	case t.kinds[jsonv.String]:
		return arrow.BinaryTypes.String
	case t.kinds[jsonv.Number]:
		switch {
		case t.bigInts && !t.floats && !t.ints:
			in.note("field %s: integers beyond the int64 range; stored as float64 (rounded)", path)
			return arrow.PrimitiveTypes.Float64
		case t.bigInts:
			in.note("field %s: integers beyond the int64 range among other numbers; widened to float64 (rounded)", path)
			return arrow.PrimitiveTypes.Float64
		case t.ints && t.floats:
			in.note("field %s: integers in some lines, fractions in others; widened to float64", path)
			return arrow.PrimitiveTypes.Float64
		case t.floats:
			return arrow.PrimitiveTypes.Float64
		}
		return arrow.PrimitiveTypes.Int64
	case t.kinds[jsonv.Array]:
		var elem arrow.DataType
		if t.elem == nil || len(t.elem.kinds) == 0 {
			in.note("field %s: arrays always empty or null in the sample; elements typed string", path)
			elem = arrow.BinaryTypes.String
		} else {
			elem = in.arrow(t.elem, path+"[]")
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: elem, Nullable: true})
	default: // object
		if t.vals != nil {
			return in.mapType(t.vals, path, "more than "+thousands(MaxFields)+" distinct keys")
		}
		if ok, why := t.mapRule(); ok {
			u := newJType()
			for _, k := range t.fields {
				u.absorb(t.byName[k])
			}
			if len(u.kindList()) == 1 {
				return in.mapType(u, path, why)
			}
		}
		if len(t.fields) == 0 {
			in.note("field %s: objects always empty in the sample; stored as string (JSON text)", path)
			in.lenient[path] = true
			return arrow.BinaryTypes.String
		}
		fs := make([]arrow.Field, len(t.fields))
		for i, k := range t.fields {
			fs[i] = arrow.Field{Name: k, Type: in.arrow(t.byName[k], path+"."+k), Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
}

// mapType returns the type of the map at path, a list of {key, value}
// entries whose values have the type vals, and notes it.
func (in *inference) mapType(vals *jtype, path, why string) arrow.DataType {
	in.note("field %s: an object whose keys vary from row to row (%s); stored as a map: a list of {key, value} entries, keys as strings, in the order of each object", path, why)
	if in.entries == nil {
		in.entries = map[string]bool{}
	}
	in.entries[path] = true
	var vt arrow.DataType
	if len(vals.kinds) == 0 {
		in.note("field %s: only null in the sample; typed string", mapValuePath(path))
		vt = arrow.BinaryTypes.String
	} else {
		vt = in.arrow(vals, mapValuePath(path))
	}
	return EntriesType(vt)
}

// EntriesType is the type of a JSON object inferred as a map with values
// of type value: list<item: struct<key: string not null, value: value>>,
// the layout of an Arrow map without the map type, which every
// schema-driven format, every runner and the digest hold as a list of
// structs.
func EntriesType(value arrow.DataType) arrow.DataType {
	return arrow.ListOfField(arrow.Field{Name: "item", Nullable: true, Type: arrow.StructOf(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "value", Type: value, Nullable: true},
	)})
}

// valueReader yields the JSON text of an input's rows, one value a row:
// the lines of JSON Lines or the elements of a top-level array.
type valueReader interface {
	// next returns the next value's text (valid until the next call), or
	// io.EOF at the end.
	next() ([]byte, error)
	// pos is the position of the last value returned or failed: its line
	// (JSON Lines) or its element number, from 1.
	pos() int64
	// where names position p for an error message: "path:12" or
	// "path: element 1,501".
	where(path string, p int64) string
	// unit names the values, plural: "lines" or "elements".
	unit() string
}

// lineValues reads JSON Lines, skipping blank lines.
type lineValues struct{ *lineReader }

func (l lineValues) next() ([]byte, error) {
	for blanks := 0; ; blanks++ {
		line, err := l.lineReader.next()
		if err != nil || !blank(line) {
			return line, err
		}
		if blanks+1 >= maxBlankRun {
			// A stream of nothing but newlines (a broken export, a
			// compressed file of zeros turned text) would otherwise be
			// read to its end before saying it holds no object.
			return nil, fmt.Errorf("%s blank lines in a row (lines %s to %s): not JSON Lines", thousands(maxBlankRun), thousands(l.line-maxBlankRun+1), thousands(l.line))
		}
	}
}

// maxBlankRun is how many blank lines in a row a JSON Lines input may
// hold: far more than any real file, few enough to stop in a second.
const maxBlankRun = 1_000_000

func (l lineValues) pos() int64                        { return l.line }
func (l lineValues) where(path string, p int64) string { return location(path, p) }
func (l lineValues) unit() string                      { return "lines" }

// jsonSource reads rows of JSON objects: JSON Lines, or a .json file's
// top-level array.
type jsonSource struct {
	r       *Reader
	sch     *arrow.Schema
	app     *jsonv.RowAppender
	vals    valueReader
	closeIn func() error
	rows    int64 // values seen (for sampling)
	emitted int64
	sampled int // rows the schema was inferred from
	// given is the user's schema the rows are read into (nil: inferred).
	given *Schema
	// reshape rewrites the objects of map columns as entry lists.
	reshape *reshape
	b       *array.RecordBuilder
	lineNos []int64 // the line of each row of the last batch
}

// posError names the file and the position p of vals of err.
func (r *Reader) posError(vals valueReader, p int64, err error) error {
	return fmt.Errorf("userdata: %s: %w", vals.where(r.path, p), err)
}

// openLines opens r's input as JSON Lines.
func openLines(r *Reader, in io.Reader) (valueReader, error) {
	return lineValues{&lineReader{r: bufio.NewReaderSize(in, 1<<20), max: r.opts.maxLine()}}, nil
}

func newJSONSource(r *Reader) (*jsonSource, error) {
	return newObjectSource(r, openLines)
}

// newObjectSource reads r's input as rows of JSON objects, the values open
// yields from the decompressed stream.
func newObjectSource(r *Reader, open func(*Reader, io.Reader) (valueReader, error)) (*jsonSource, error) {
	if g := r.opts.Schema; g != nil {
		return newGivenObjectSource(r, open, g)
	}
	// Pass 1: infer the schema from a sample.
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	vals, err := open(r, in)
	if err != nil {
		closeIn()
		return nil, err
	}
	root := newJType()
	root.kinds[jsonv.Object] = true
	limit := r.opts.inferRows()
	sampled := 0
	others := map[jsonv.Kind]bool{} // the kinds of the values that were not objects
	for limit < 0 || sampled < limit {
		text, err := vals.next()
		if err == io.EOF {
			break
		}
		var v jsonv.Value
		if err == nil {
			v, err = jsonv.Parse(text)
			if err == nil && v.Kind != jsonv.Object {
				if a, ok := vals.(*arrayValues); ok && a.pos() == 1 && !r.opts.SkipBad {
					closeIn()
					return nil, notObjects(r.path, a, v.Kind)
				}
				others[v.Kind] = true
				err = fmt.Errorf("expected a JSON object, got %s", v.Kind)
			}
		}
		if err != nil {
			if r.opts.SkipBad && !isIOError(err) {
				continue // counted in the main pass
			}
			closeIn()
			return nil, r.posError(vals, vals.pos(), badJSON(err))
		}
		if err := root.merge(&v, ""); err != nil {
			closeIn()
			return nil, r.posError(vals, vals.pos(), err)
		}
		sampled++
	}
	if err := closeIn(); err != nil {
		return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	inf := &inference{lenient: map[string]bool{}}
	fields := make([]arrow.Field, len(root.fields))
	for i, k := range root.fields {
		fields[i] = arrow.Field{Name: k, Type: inf.arrow(root.byName[k], k), Nullable: true}
	}
	if len(fields) == 0 {
		if a, ok := vals.(*arrayValues); ok && vals.pos() == 0 {
			return nil, fmt.Errorf("userdata: %s: %s is empty: no rows to measure", r.path, a.what())
		}
		if sampled == 0 && len(others) > 0 {
			var kinds []string
			for _, k := range []jsonv.Kind{jsonv.Null, jsonv.Bool, jsonv.Number, jsonv.String, jsonv.Array} {
				if others[k] {
					kinds = append(kinds, k.String())
				}
			}
			return nil, fmt.Errorf("userdata: %s: no JSON object among the %s read (%s): %s", r.path, vals.unit(), strings.Join(kinds, ", "), recordsAre)
		}
		return nil, fmt.Errorf("userdata: %s: no JSON object with any field in the first %d %s", r.path, sampled, vals.unit())
	}
	if limit >= 0 && sampled == limit {
		inf.note("%s", inferredNote(limit))
	}
	r.notes = append(r.notes, inf.notes...)
	sch := arrow.NewSchema(fields, nil)
	app, err := jsonv.NewRowAppender(sch, func(p string) bool { return inf.lenient[p] })
	if err != nil {
		return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	// Pass 2 streams from the start.
	in, closeIn, err = openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	if vals, err = open(r, in); err != nil {
		closeIn()
		return nil, err
	}
	return &jsonSource{
		r: r, sch: sch, app: app, closeIn: closeIn, sampled: sampled, vals: vals, reshape: newReshape(sch, inf.entries, nil, false),
		b: array.NewRecordBuilder(r.opts.Allocator, sch),
	}, nil
}

// recordsAre says what records a JSON input holds.
const recordsAre = "records are JSON objects, in an array ([{…}, …]) or one per line (JSON Lines)"

// notObjects is the error of an array (a's) whose first element is of kind
// k, not an object.
func notObjects(path string, a *arrayValues, k jsonv.Kind) error {
	what := "a " + k.String()
	switch k {
	case jsonv.Array:
		what = "an array"
	case jsonv.Null:
		what = "null"
	}
	if a.label != "" {
		return fmt.Errorf("userdata: %s: element 1 of %s is %s, not an object: --records names an array of objects, the records", path, a.label, what)
	}
	return fmt.Errorf("userdata: %s: element 1 of the top-level array is %s, not an object: %s", path, what, recordsAre)
}

// isIOError reports whether err came from reading the input rather than from
// its content.
func isIOError(err error) bool {
	var se *jsonv.SyntaxError
	var fe *jsonv.FieldError
	return !errors.As(err, &se) && !errors.As(err, &fe) && !strings.HasPrefix(err.Error(), "expected a JSON object") &&
		!strings.HasPrefix(err.Error(), "line longer") && !strings.HasPrefix(err.Error(), "element longer")
}

func badJSON(err error) error {
	var se *jsonv.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON: %w", err)
	}
	return err
}

func (s *jsonSource) schema() *arrow.Schema { return s.sch }

func (s *jsonSource) next() (arrow.RecordBatch, error) {
	n := 0
	batch := s.r.opts.batchSize()
	for n < batch && (s.r.opts.Limit <= 0 || s.emitted < s.r.opts.Limit) {
		text, err := s.vals.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			s.rows++
			if !s.r.opts.keep(s.rows - 1) {
				continue
			}
		}
		var v jsonv.Value
		if err == nil {
			v, err = jsonv.Parse(text)
			if err == nil {
				s.reshape.apply(&v)
				err = s.app.Check(&v)
			}
		}
		if err != nil {
			if s.r.opts.SkipBad && !isIOError(err) {
				*s.r.skipped++
				continue
			}
			var fe *jsonv.FieldError
			switch {
			case errors.As(err, &fe) && s.given != nil:
				err = fmt.Errorf("%w: the row does not fit the given schema %s", err, s.given.Source)
			case errors.As(err, &fe):
				err = fmt.Errorf("%w; the schema was inferred from the first %s: %s", err, rowsText(s.sampled), waysOut)
			}
			return nil, s.r.posError(s.vals, s.vals.pos(), badJSON(err))
		}
		if n == 0 {
			s.lineNos = s.lineNos[:0]
		}
		s.lineNos = append(s.lineNos, s.vals.pos())
		s.app.Append(s.b, &v)
		n++
		s.emitted++
	}
	if n == 0 {
		return nil, nil
	}
	return s.b.NewRecordBatch(), nil
}

// lineOf returns the line of row i of the last batch (JSON Lines only).
func (s *jsonSource) lineOf(i int) int64 {
	if _, ok := s.vals.(lineValues); ok && i < len(s.lineNos) {
		return s.lineNos[i]
	}
	return 0
}

func (s *jsonSource) close() error {
	s.b.Release()
	return s.closeIn()
}
