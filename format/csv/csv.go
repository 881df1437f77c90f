// Package csv implements CSV with a header row (encoding/csv), the baseline text
// format, for a Go type T through conversion functions the dataset supplies.
//
// Floats must be written with strconv.FormatFloat(f, 'g', -1, 64) to round-trip
// exactly. The decoder requires the final record to end with a newline, so a
// file cut inside its last line is reported as truncated.
package csv

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/serbench/serbench/format"
)

// Mapping converts T to and from one CSV row.
type Mapping[T any] struct {
	// Header names the columns.
	Header []string
	// Marshal appends v's fields as strings to row[:0] and returns it.
	Marshal func(v *T, row []string) ([]string, error)
	// Unmarshal fills v from row (len(row) == len(Header)).
	Unmarshal func(row []string, v *T) error
}

// Format is CSV of T.
type Format[T any] struct {
	name string
	m    Mapping[T]
}

// New returns CSV of T named name.
func New[T any](name string, m Mapping[T]) *Format[T] { return &Format[T]{name: name, m: m} }

// Descriptor implements format.Format.
func (f *Format[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    f.name,
		Library: "encoding/csv",
		Version: format.GoVersion(),
		Labels:  []string{format.LabelHandwritten, format.LabelText, format.LabelRow},
		Detail:  "header row, then one row per record; floats as strconv 'g' -1; final newline required",
	}
}

type encoder[T any] struct {
	w   *csv.Writer
	f   *Format[T]
	row []string
}

func (e *encoder[T]) Encode(v *T) error {
	var err error
	if e.row, err = e.f.m.Marshal(v, e.row[:0]); err != nil {
		return fmt.Errorf("csv: marshal: %w", err)
	}
	if err := e.w.Write(e.row); err != nil {
		return fmt.Errorf("csv: write: %w", err)
	}
	return nil
}

func (e *encoder[T]) Close() error {
	e.w.Flush()
	if err := e.w.Error(); err != nil {
		return fmt.Errorf("csv: flush: %w", err)
	}
	return nil
}

// NewEncoder implements format.Format. It writes the header immediately.
func (f *Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(f.m.Header); err != nil {
		return nil, fmt.Errorf("csv: header: %w", err)
	}
	return &encoder[T]{w: cw, f: f}, nil
}

// lastByte remembers the last byte read through it and reports a missing
// final newline as io.ErrUnexpectedEOF.
type lastByte struct {
	r    io.Reader
	last byte
	any  bool
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last, l.any = p[n-1], true
	}
	if err == io.EOF && l.any && l.last != '\n' {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

type decoder[T any] struct {
	r *csv.Reader
	f *Format[T]
}

func (d *decoder[T]) Decode(v *T) error {
	row, err := d.r.Read()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		line, _ := d.r.FieldPos(0)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("csv: after line %d: last line has no newline: %w", line, err)
		}
		return fmt.Errorf("csv: %w", err)
	}
	if err := d.f.m.Unmarshal(row, v); err != nil {
		line, _ := d.r.FieldPos(0)
		return fmt.Errorf("csv: line %d: %w", line, err)
	}
	return nil
}

// NewDecoder implements format.Format. It reads and checks the header.
func (f *Format[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	cr := csv.NewReader(bufio.NewReaderSize(&lastByte{r: r}, 64<<10))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = len(f.m.Header)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("csv: header: %w", format.Unexpected("header", err))
	}
	if !slices.Equal(head, f.m.Header) {
		return nil, fmt.Errorf("csv: header %q, want %q", head, f.m.Header)
	}
	return &decoder[T]{r: cr, f: f}, nil
}
