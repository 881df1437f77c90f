package userdata

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/hamba/avro/v2"

	"github.com/serbench/serbench/internal/jsonv"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Schema is a schema the user gives for a text input (an Avro .avsc, a
// Protocol Buffers message): the rows are read into it instead of a schema
// inferred from them, and a row that does not fit is an error naming its
// line and field. Make one with AvroSchema or ProtoSchema and pass it in
// Options.Schema.
type Schema struct {
	// Arrow is the schema the rows are read into.
	Arrow *arrow.Schema
	// Source says where it came from ("orders.avsc", "shop.proto message
	// shop.Order").
	Source string
	// Notes say how its types map to Arrow, for the schema's printout.
	Notes []string
	// entries are the paths of its maps, stored as lists of key/value
	// entries (a JSON object in the input); lenient those of the values
	// stored as their JSON text (an Avro union of several types).
	entries, lenient map[string]bool
	// quoted: numbers may be quoted in the input (protojson writes 64-bit
	// integers as strings).
	quoted bool
	// aliases are the other member names of fields, by path (a protobuf
	// field's JSON name).
	aliases map[string]string
	// defaults are the values of fields without presence (proto3 scalars,
	// enums, repeated fields and maps), by path: an absent or null member
	// is the field's default, as protojson reads it.
	defaults map[string]*jsonv.Value
	// enums are the value names of the enum fields, by path.
	enums map[string][]string
	// sortedMaps: map entries are sorted by key (a protobuf map has no
	// order; its wire order is the encoder's).
	sortedMaps bool
	// Message is the protobuf message the schema was mapped from
	// (ProtoSchema), nil for an Avro schema.
	Message protoreflect.MessageDescriptor
	// Avsc is the Avro record schema's JSON text (AvroSchema), nil for a
	// protobuf message.
	Avsc []byte
}

// enumOf is the names an enum field at path may hold, or nil.
func (g *Schema) enumOf(path string) []string { return g.enums[path] }

// defaultOf is the value an absent member at path stands for, or nil.
func (g *Schema) defaultOf(path string) *jsonv.Value { return g.defaults[path] }

// aliasOf is the other member name the field at path may come under.
func (g *Schema) aliasOf(path string) string { return g.aliases[path] }

// maxSchemaBytes bounds a schema file read whole.
const maxSchemaBytes = 16 << 20

// readSchemaFile reads a schema file of at most maxSchemaBytes.
func readSchemaFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a schema file", path)
	}
	if fi.Size() > maxSchemaBytes {
		return nil, fmt.Errorf("%s holds %d bytes, more than a schema's limit of %d", path, fi.Size(), maxSchemaBytes)
	}
	return os.ReadFile(path)
}

// AvroSchema reads the Avro schema (.avsc, JSON) at path: a record, whose
// fields are the columns. Types map as for an Avro input file: a union with
// null is a nullable field, other unions are stored as the value's JSON
// text, maps as lists of key/value entries, logical types as their Arrow
// counterparts (date, timestamps, decimal). In the input, values are plain
// JSON (not Avro's JSON encoding with union branches named): bytes and
// fixed as base64, dates as 2006-01-02, timestamps in RFC 3339, decimals as
// numbers or strings.
func AvroSchema(path string) (*Schema, error) {
	b, err := readSchemaFile(path)
	if err != nil {
		return nil, fmt.Errorf("userdata: --avsc: %w", err)
	}
	s, err := avro.ParseBytesWithCache(b, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("userdata: --avsc %s: not an Avro schema: %w", path, err)
	}
	rs, ok := s.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("userdata: --avsc %s: the schema is a %s; the rows' schema must be a record", path, s.Type())
	}
	if n := len(rs.Fields()); n > MaxColumns {
		return nil, fmt.Errorf("userdata: --avsc %s: %s fields, more than the limit of %s columns", path, thousands(int64(n)), thousands(MaxColumns))
	} else if n == 0 {
		return nil, fmt.Errorf("userdata: --avsc %s: the record %s has no fields", path, rs.FullName())
	}
	inf := &inference{lenient: map[string]bool{}, entries: map[string]bool{}}
	m := &avroMapper{in: inf, given: true}
	var fields []arrow.Field
	for _, f := range rs.Fields() {
		n, err := m.node(f.Type(), f.Name(), 0)
		if err != nil {
			return nil, fmt.Errorf("userdata: --avsc %s: %w", path, err)
		}
		fields = append(fields, arrow.Field{Name: f.Name(), Type: n.dt, Nullable: n.nullable})
	}
	return &Schema{Arrow: arrow.NewSchema(fields, nil), Source: filepath.Base(path) + " (record " + rs.FullName() + ")",
		Notes: inf.notes, entries: inf.entries, lenient: inf.lenient, Avsc: b}, nil
}

// errGivenBinary refuses a given schema for an input that carries its own.
var errGivenBinary = errors.New("carries its own schema; a given schema (--avsc, --proto) applies to JSON Lines, JSON and CSV input")

// newGivenObjectSource reads r's input as rows of JSON objects of the
// given schema g: one pass, nothing inferred.
func newGivenObjectSource(r *Reader, open func(*Reader, io.Reader) (valueReader, error), g *Schema) (*jsonSource, error) {
	app, err := jsonv.NewRowAppenderWith(g.Arrow, jsonv.Options{
		Lenient: func(p string) bool { return g.lenient[p] }, Strict: true, QuotedNumbers: g.quoted, Alias: g.aliasOf, Default: g.defaultOf, Enum: g.enumOf})
	if err != nil {
		return nil, fmt.Errorf("userdata: %s: schema %s: %w", r.path, g.Source, err)
	}
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	vals, err := open(r, in)
	if err != nil {
		closeIn()
		return nil, err
	}
	r.notes = append(r.notes, "schema: given, "+g.Source+" (nothing inferred)")
	r.notes = append(r.notes, g.Notes...)
	return &jsonSource{r: r, sch: g.Arrow, app: app, closeIn: closeIn, vals: vals, given: g,
		reshape: newReshape(g.Arrow, g.entries, g.aliasOf, g.sortedMaps), b: array.NewRecordBuilder(r.opts.Allocator, g.Arrow)}, nil
}

// givenCSVSource reads a CSV or TSV input into a given schema: each record
// becomes a JSON object of its cells, typed by their fields (numbers,
// booleans, text), which the schema's row appender checks and appends. An
// empty cell is null, or "" in a string field that is not nullable.
type givenCSVSource struct {
	r       *Reader
	g       *Schema
	app     *jsonv.RowAppender
	cr      csvReader
	closeIn func() error
	// cols are the schema's field index of each header column.
	cols    []int
	rows    int64
	emitted int64
	b       *array.RecordBuilder
	v       jsonv.Value
	batchLines
}

func newGivenCSVSource(r *Reader, g *Schema) (*givenCSVSource, error) {
	app, err := jsonv.NewRowAppenderWith(g.Arrow, jsonv.Options{Lenient: func(p string) bool { return g.lenient[p] }, Strict: true, QuotedNumbers: true, Default: g.defaultOf, Enum: g.enumOf})
	if err != nil {
		return nil, fmt.Errorf("userdata: %s: schema %s: %w", r.path, g.Source, err)
	}
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
	s := &givenCSVSource{r: r, g: g, app: app, cr: cr, closeIn: closeIn, b: array.NewRecordBuilder(r.opts.Allocator, g.Arrow)}
	seen := map[int]bool{}
	for i, h := range header {
		idx := g.Arrow.FieldIndices(h)
		for j, f := range g.Arrow.Fields() {
			if len(idx) == 0 && g.aliasOf(f.Name) == h {
				idx = []int{j} // a protobuf field's JSON name
			}
		}
		if len(idx) == 0 {
			s.close()
			return nil, fmt.Errorf("userdata: %s: column %d (%s) is not a field of the given schema %s (its fields: %s)", r.path, i+1, shorten(h, 40), g.Source, fieldList(g.Arrow, 8))
		}
		if seen[idx[0]] {
			s.close()
			return nil, fmt.Errorf("userdata: %s: column %d (%s) repeats an earlier column's name", r.path, i+1, shorten(h, 40))
		}
		if f := g.Arrow.Field(idx[0]); !flatCSVType(f.Type) {
			s.close()
			return nil, fmt.Errorf("userdata: %s: column %d (%s) is the given schema's field %s of type %s: a CSV cell cannot hold nested data", r.path, i+1, shorten(h, 40), f.Name, shorten(f.Type.String(), 60))
		}
		seen[idx[0]] = true
		s.cols = append(s.cols, idx[0])
	}
	for i, f := range g.Arrow.Fields() {
		if !seen[i] && !f.Nullable && g.defaults[f.Name] == nil {
			s.close()
			return nil, fmt.Errorf("userdata: %s: the header has no column %s, a field of the given schema %s that is not nullable", r.path, f.Name, g.Source)
		}
	}
	r.notes = append(r.notes, "schema: given, "+g.Source+" (nothing inferred)")
	r.notes = append(r.notes, g.Notes...)
	r.notes = append(r.notes, "empty cells are null (\"\" in a string field that is not nullable)")
	return s, nil
}

// flatCSVType reports whether a CSV cell holds values of type dt.
func flatCSVType(dt arrow.DataType) bool {
	switch dt.(type) {
	case *arrow.StructType, *arrow.ListType, *arrow.LargeListType, *arrow.MapType, *arrow.FixedSizeListType:
		return false
	}
	return true
}

// fieldList names up to max fields of s.
func fieldList(s *arrow.Schema, max int) string {
	var names []string
	for i, f := range s.Fields() {
		if i == max {
			names = append(names, fmt.Sprintf("… %d more", s.NumFields()-max))
			break
		}
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// object makes rec the object s.v: each cell a value of its field's kind.
func (s *givenCSVSource) object(rec []string) error {
	v := &s.v
	v.Kind, v.Keys, v.Items = jsonv.Object, v.Keys[:0], v.Items[:0]
	for i, cell := range rec {
		if i >= len(s.cols) {
			return fmt.Errorf("more fields than the header's %d", len(s.cols))
		}
		f := s.g.Arrow.Field(s.cols[i])
		item := jsonv.Value{Kind: jsonv.String, Text: cell}
		_, str := f.Type.(*arrow.StringType)
		switch {
		case cell == "" && (f.Nullable || !str):
			item = jsonv.Value{Kind: jsonv.Null}
		case str:
		case f.Type.ID() == arrow.BOOL:
			if b, err := parseBool(cell); err == nil {
				item = jsonv.Value{Kind: jsonv.Bool, Bool: b}
			}
		case f.Type.ID() == arrow.TIMESTAMP:
			if t, _, err := parseTimestamp(cell); err == nil {
				item.Text = t.UTC().Format(jsonv.TimestampLayout)
			}
		}
		v.Keys = append(v.Keys, f.Name)
		v.Items = append(v.Items, item)
	}
	return nil
}

func (s *givenCSVSource) schema() *arrow.Schema { return s.g.Arrow }

func (s *givenCSVSource) next() (arrow.RecordBatch, error) {
	n := 0
	batch := s.r.opts.batchSize()
	for n < batch && (s.r.opts.Limit <= 0 || s.emitted < s.r.opts.Limit) {
		rec, err := s.cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if s.r.opts.SkipBad && isParseError(err) {
				*s.r.skipped++
				continue
			}
			return nil, s.r.csvError(s.cr, err)
		}
		s.rows++
		if !s.r.opts.keep(s.rows - 1) {
			continue
		}
		line, _ := s.cr.FieldPos(0)
		err = s.object(rec)
		if err == nil {
			if err = s.app.Check(&s.v); err != nil {
				err = fmt.Errorf("%w: the row does not fit the given schema %s", err, s.g.Source)
			}
		}
		if err != nil {
			if s.r.opts.SkipBad {
				*s.r.skipped++
				continue
			}
			return nil, fmt.Errorf("userdata: %s: %w", location(s.r.path, int64(line)), err)
		}
		s.add(n, int64(line))
		s.app.Append(s.b, &s.v)
		n++
		s.emitted++
	}
	if n == 0 {
		return nil, nil
	}
	return s.b.NewRecordBatch(), nil
}

func (s *givenCSVSource) close() error {
	s.b.Release()
	return s.closeIn()
}
