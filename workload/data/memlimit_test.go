package data

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/workload/userdata"
)

// TestLimitMemory: loading the input lowers the runtime's soft memory
// limit to the input's size plus the headroom, release restores it, and a
// limit the user set (GOMEMLIMIT) is left alone.
func TestLimitMemory(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	tests := []struct {
		name     string
		before   int64
		inMemory int64
		want     int64
	}{
		{"no limit set", math.MaxInt64, 100 << 20, 100<<20 + memoryHeadroom},
		{"GOMEMLIMIT set", 1 << 30, 100 << 20, 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(tt.before)
			restore := limitMemory(tt.inMemory)
			if got := debug.SetMemoryLimit(-1); got != tt.want {
				t.Errorf("limit while loaded %d, want %d", got, tt.want)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != tt.before {
				t.Errorf("limit after release %d, want %d", got, tt.before)
			}
		})
	}
}

func TestSizeInMemory(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range 1000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("0123456789")
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{1, 2, 3, 4}, nil)
	}
	rec := b.NewRecordBatch()
	d := &userdata.Data{Schema: schema, Batches: []arrow.RecordBatch{rec}, Rows: 1000}
	defer d.Release()
	// At least the values themselves: 8 + 10 + 4 (string offsets) + 4
	// (list offsets) + 16 (list values) bytes a row; the builders round
	// buffers up, so not much more than twice that.
	const least = 1000 * (8 + 10 + 4 + 4 + 16)
	if got := sizeInMemory(d); got < least || got > 3*least {
		t.Errorf("sizeInMemory = %d, want between %d and %d", got, least, 3*least)
	}
}
