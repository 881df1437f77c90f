package userdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/digest"
)

// TestMapsAsEntries: an Arrow file's map columns — nested in a map, a
// struct and a list, nulls included — are read as lists of key/value
// entries with a note, and their digest is the maps' (the digest walks a
// map as its entries).
func TestMapsAsEntries(t *testing.T) {
	inner := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, inner), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "tags", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	m := b.Field(1).(*array.MapBuilder)
	s := b.Field(2).(*array.StructBuilder)
	l := b.Field(3).(*array.ListBuilder)
	for i := range 5 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i == 3 {
			m.AppendNull()
			s.AppendNull()
			l.AppendNull()
			continue
		}
		m.Append(true)
		for j := range i {
			m.KeyBuilder().(*array.StringBuilder).Append(strings.Repeat("k", j+1))
			im := m.ItemBuilder().(*array.MapBuilder)
			im.Append(true)
			im.KeyBuilder().(*array.Int32Builder).Append(int32(j))
			im.ItemBuilder().(*array.BooleanBuilder).Append(j%2 == 0)
		}
		s.Append(true)
		tags := s.FieldBuilder(0).(*array.MapBuilder)
		tags.Append(true)
		tags.KeyBuilder().(*array.StringBuilder).Append("a")
		if i == 1 {
			tags.ItemBuilder().(*array.StringBuilder).AppendNull()
		} else {
			tags.ItemBuilder().(*array.StringBuilder).Append("x")
		}
		l.Append(true)
		lm := l.ValueBuilder().(*array.MapBuilder)
		lm.Append(true)
		lm.KeyBuilder().(*array.StringBuilder).Append("v")
		lm.ItemBuilder().(*array.Float64Builder).Append(float64(i) / 2)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	want, err := digest.Batches(schema, rec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "maps.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	d := readAll(t, path, Options{})
	for _, c := range []string{"m", "s", "l"} {
		i := d.Schema.FieldIndices(c)[0]
		if strings.Contains(d.Schema.Field(i).Type.String(), "map<") {
			t.Errorf("column %s is still a map: %s", c, d.Schema.Field(i).Type)
		}
	}
	if got := d.Schema.Field(1).Type.String(); got != "list<item: struct<key: utf8, value: list<item: struct<key: int32, value: bool nullable>> nullable>>" {
		t.Errorf("m read as %s", got)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "column m: its maps read as lists of key/value entries") {
		t.Errorf("no note: %q", d.Notes)
	}
	got, err := digest.Batches(d.Schema, d.Batches...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := digest.Diff(want, got); diff != nil {
		t.Errorf("the entries' digest differs from the maps': %v", diff)
	}
}
