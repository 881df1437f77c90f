package userdata

import (
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Data is an input read into memory: its batches, schema and the reader's
// notes. Release it when done.
type Data struct {
	// Path is the input file.
	Path string
	// Schema is every batch's schema.
	Schema *arrow.Schema
	// Batches hold the rows, each retained.
	Batches []arrow.RecordBatch
	// Rows is the total number of rows.
	Rows int64
	// Notes are the schema inference notes.
	Notes []string
	// Skipped is the number of bad lines skipped (Options.SkipBad).
	Skipped int64
}

// Release releases every batch.
func (d *Data) Release() {
	for _, b := range d.Batches {
		b.Release()
	}
	d.Batches = nil
}

// Seq yields the batches in order — the record source filebench.Write
// takes for the format/dynamic formats.
func (d *Data) Seq() iter.Seq[*arrow.RecordBatch] {
	return func(yield func(*arrow.RecordBatch) bool) {
		for i := range d.Batches {
			if !yield(&d.Batches[i]) {
				return
			}
		}
	}
}

// ReadAll reads the file at path into memory (at most opts.Limit rows).
func ReadAll(path string, opts Options) (*Data, error) {
	r, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d := &Data{Path: path, Schema: r.Schema()}
	for r.Next() {
		b := r.RecordBatch()
		b.Retain()
		d.Batches = append(d.Batches, b)
		d.Rows += b.NumRows()
	}
	if err := r.Err(); err != nil {
		d.Release()
		return nil, err
	}
	d.Notes = r.Notes()
	d.Skipped = r.Skipped()
	return d, nil
}

// Column describes one column (or nested field) for reports.
type Column struct {
	// Name is the dotted path of the field ("a.b", list elements "a[]").
	Name string
	// Type is the Arrow type.
	Type string
	// Nullable reports whether the field may be null.
	Nullable bool
	// Depth is the nesting depth (0 for top-level columns).
	Depth int
}

// Describe lists the schema's fields, nested fields included, depth first,
// down to MaxDepth levels (Open refuses deeper schemas). A type with more
// than a few hundred nested fields is printed cut short ("struct<a: int64,
// … 9,990 more fields>"): its fields have rows of their own.
func Describe(s *arrow.Schema) []Column {
	var out []Column
	var walk func(name string, f arrow.Field, depth int)
	walk = func(name string, f arrow.Field, depth int) {
		if depth > MaxDepth {
			return
		}
		out = append(out, Column{Name: name, Type: typeString(f.Type), Nullable: f.Nullable, Depth: depth})
		switch t := f.Type.(type) {
		case *arrow.StructType:
			for i := 0; i < t.NumFields(); i++ {
				c := t.Field(i)
				walk(name+"."+c.Name, c, depth+1)
			}
		case arrow.ListLikeType:
			walk(name+"[]", t.ElemField(), depth+1)
		}
	}
	for _, f := range s.Fields() {
		walk(f.Name, f, 0)
	}
	return out
}

// The most rows and notes FormatSchema prints, so that its output stays
// about one screen whatever the schema.
const (
	MaxSchemaRows  = 50
	MaxSchemaNotes = 20
	maxNameText    = 100
)

// FormatSchema renders the schema as a Markdown table (column, Arrow type,
// nullable) followed by the inference notes as a list, for reports: the
// first MaxSchemaRows columns (nested fields included) and MaxSchemaNotes
// notes, then how many more there are.
func FormatSchema(s *arrow.Schema, notes []string) string {
	var b strings.Builder
	b.WriteString("| column | Arrow type | nullable |\n|---|---|---|\n")
	cols := Describe(s)
	for i, c := range cols {
		if i == MaxSchemaRows {
			fmt.Fprintf(&b, "| … | %s more columns and nested fields (%s in all) | |\n",
				thousands(int64(len(cols)-i)), thousands(int64(len(cols))))
			break
		}
		null := "no"
		if c.Nullable {
			null = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", escapeCell(shorten(c.Name, maxNameText)), escapeCell(c.Type), null)
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for i, n := range notes {
			if i == MaxSchemaNotes {
				fmt.Fprintf(&b, "- … and %s more notes\n", thousands(int64(len(notes)-i)))
				break
			}
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
