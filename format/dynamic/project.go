package dynamic

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/serbench/serbench/format"
)

// Projector is implemented by the formats that read some of their
// columns (Parquet, Arrow IPC): a column-projection read, what an
// analytics query over a few columns does.
type Projector interface {
	// NewColumnDecoder returns a decoder of the top-level columns cols of
	// the format's schema (indices, in the order given, each with all its
	// leaves), reading from r as NewDecoder does. Its batches have the
	// schema ProjectSchema(schema, cols) returns; like NewDecoder's they
	// are the decoder's until the next Decode.
	NewColumnDecoder(r io.Reader, cols []int) (format.Decoder[arrow.RecordBatch], error)
	// Projection says what a projected read reads and decodes: only the
	// columns' data, or everything, the columns then picked.
	Projection() string
}

// ProjectSchema returns the schema of the top-level columns cols of s, in
// that order; a column out of range or named twice is an error.
func ProjectSchema(s *arrow.Schema, cols []int) (*arrow.Schema, error) {
	if len(cols) == 0 {
		return nil, errors.New("projection: no columns")
	}
	seen := make(map[int]bool, len(cols))
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		if c < 0 || c >= s.NumFields() {
			return nil, fmt.Errorf("projection: column %d of a schema of %d", c, s.NumFields())
		}
		if seen[c] {
			return nil, fmt.Errorf("projection: column %d (%s) named twice", c, s.Field(c).Name)
		}
		seen[c] = true
		fields[i] = s.Field(c)
	}
	return arrow.NewSchema(fields, nil), nil
}

// Project returns batches of the top-level columns cols of bs (see
// ProjectSchema), sharing their buffers: release them.
func Project(bs []arrow.RecordBatch, cols []int) ([]arrow.RecordBatch, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	s, err := ProjectSchema(bs[0].Schema(), cols)
	if err != nil {
		return nil, err
	}
	out := make([]arrow.RecordBatch, len(bs))
	for i, b := range bs {
		out[i] = pick(s, b, cols)
	}
	return out, nil
}

// pick returns the batch of columns cols of b with schema s (retained).
func pick(s *arrow.Schema, b arrow.RecordBatch, cols []int) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = b.Column(c)
	}
	return array.NewRecordBatch(s, arrs, b.NumRows())
}

// Projected returns f reading only the top-level columns cols (f must be
// a Projector): its decoder is f's NewColumnDecoder, so filebench.Read
// reads a projection as it reads a whole file; it writes nothing.
func Projected(f Format, cols []int) (Format, error) {
	p, ok := f.(Projector)
	if !ok {
		return nil, fmt.Errorf("%s: no column-projection read", f.Descriptor().Name)
	}
	return &projected{f: f, p: p, cols: cols}, nil
}

type projected struct {
	f    Format
	p    Projector
	cols []int
}

func (p *projected) Descriptor() format.Descriptor { return p.f.Descriptor() }

func (p *projected) NewEncoder(io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	return nil, fmt.Errorf("%s: a projection only reads", p.f.Descriptor().Name)
}

func (p *projected) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	return p.p.NewColumnDecoder(r, p.cols)
}

// pickDecoder decodes every column and picks cols: the projection of a
// format whose reader cannot skip columns.
type pickDecoder struct {
	dec    format.Decoder[arrow.RecordBatch]
	schema *arrow.Schema
	cols   []int
	cur    arrow.RecordBatch
}

func (d *pickDecoder) Decode(v *arrow.RecordBatch) error {
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	var b arrow.RecordBatch
	if err := d.dec.Decode(&b); err != nil {
		return err
	}
	d.cur = pick(d.schema, b, d.cols)
	*v = d.cur
	return nil
}
