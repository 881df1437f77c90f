package dynamic_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format/dynamic"
)

// TestFilebench runs every dynamic format through filebench's file pipeline
// with codecs none and zstd: Write takes the batches as records, Read checks
// each decoded batch with a Verifier (batch boundaries may differ, so the
// record count is not checked by filebench), then Done checks the row count.
func TestFilebench(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	r := rand.New(rand.NewPCG(1, 2))
	var batches []arrow.RecordBatch
	for k := 0; k < 3; k++ {
		b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
		for i := 0; i < 1000; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(k*1000 + i))
			if i%5 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append("name")
			}
			b.Field(2).(*array.Float64Builder).Append(r.NormFloat64())
			lb := b.Field(3).(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.StringBuilder).Append("t")
		}
		batches = append(batches, b.NewRecordBatch())
		b.Release()
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	fs, skipped := dynamic.All(s, dynamic.Options{BatchRows: 700})
	if len(skipped) != 1 { // csv: nested
		t.Fatal(skipped)
	}
	dir := t.TempDir()
	for _, f := range fs {
		for _, spec := range []string{"none", "zstd"} {
			c := codec.Default().MustParse(spec)
			if filebench.CheckCombination(f.Descriptor(), c) != nil {
				continue
			}
			name := f.Descriptor().Name + "." + spec
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(dir, name)
				src := func(yield func(*arrow.RecordBatch) bool) {
					for i := range batches {
						if !yield(&batches[i]) {
							return
						}
					}
				}
				ws, err := filebench.Write(context.Background(), path, f, c, src, filebench.Options{})
				if err != nil {
					t.Fatal(err)
				}
				v := dynamic.NewVerifier(batches)
				rs, err := filebench.Read(context.Background(), path, f, c, -1,
					func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := v.Done(); err != nil {
					t.Fatal(err)
				}
				if ws.Records != 3 || rs.FileBytes != ws.FileBytes {
					t.Errorf("write %+v read %+v", ws, rs)
				}
			})
		}
	}
}
