package dynamic

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/format"
)

// frames is what the protobuf encoders share: each row of a batch of the
// format's schema becomes one uvarint-length-prefixed frame, buffered and
// written in chunks of flushAt bytes.
type frames struct {
	name   string
	schema *arrow.Schema
	w      io.Writer
	buf    []byte
	body   []byte
	rows   int64
}

// encode writes a frame per row of rec; row appends the encoding of row i
// to dst. bind, run once per batch before its rows, prepares row.
func (f *frames) encode(v *arrow.RecordBatch, bind func(rec arrow.RecordBatch) func(dst []byte, i int) ([]byte, error)) error {
	rec := *v
	if !rec.Schema().Equal(f.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", f.name, rec.Schema(), f.schema)
	}
	row := bind(rec)
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		var err error
		if f.body, err = row(f.body[:0], i); err != nil {
			return fmt.Errorf("%s: row %d: %w", f.name, f.rows+int64(i), err)
		}
		f.buf = format.AppendFrame(f.buf, f.body)
		if len(f.buf) >= flushAt {
			if _, err := f.w.Write(f.buf); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			f.buf = f.buf[:0]
		}
	}
	f.rows += int64(n)
	return nil
}

// close writes what is buffered.
func (f *frames) close() error {
	if len(f.buf) > 0 {
		if _, err := f.w.Write(f.buf); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		f.buf = f.buf[:0]
	}
	return nil
}
