package interop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// testSchema has nested lists, structs, nulls, timestamps (µs and ms),
// dates and floats.
func testSchema() *arrow.Schema {
	item := arrow.StructOf(
		arrow.Field{Name: "sku", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	)
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "seen_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "point", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		), Nullable: true},
		{Name: "items", Type: arrow.ListOf(item), Nullable: true},
		{Name: "matrix", Type: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), Nullable: true},
	}, nil)
}

// testDataset is n rows of testSchema in batches of at most 7 rows.
func testDataset(t testing.TB, n int) Dataset {
	t.Helper()
	s := testSchema()
	var rows []string
	for i := 0; i < n; i++ {
		null := i%7 == 3
		q := func(v string) string {
			if null {
				return "null"
			}
			return v
		}
		tags := fmt.Sprintf(`["t%d", null, ""]`, i)
		switch i % 5 {
		case 1:
			tags = "null"
		case 2:
			tags = "[]"
		}
		point := fmt.Sprintf(`{"x": %d, "y": %g}`, i, float64(i)/3)
		if i%6 == 0 {
			point = "null"
		} else if i%4 == 0 {
			point = fmt.Sprintf(`{"x": %d, "y": null}`, i)
		}
		items := fmt.Sprintf(`[{"sku": "s%d", "qty": %d, "at": "2024-05-17T12:30:45.%06dZ"}, null, {"sku": null, "qty": null, "at": null}]`, i, i*3-7, i*7919%1000000)
		if i%8 == 5 {
			items = "null"
		}
		rows = append(rows, fmt.Sprintf(`{"id": %d, "name": %s, "score": %s, "ts": %s, "seen_ms": %s, "day": %s, "tags": %s, "point": %s, "items": %s, "matrix": %s}`,
			int64(i)*1_000_003-25_000_000,
			q(fmt.Sprintf(`"name-%d ✓ é"`, i)),
			q(fmt.Sprintf("%g", float64(i)*0.25-3.5+1e-9*float64(i))),
			q(fmt.Sprintf(`"%d-%02d-17T%02d:30:45.%06dZ"`, 1990+i%40, 1+i%12, i%24, i*31337%1000000)),
			q(fmt.Sprintf(`"%d-%02d-03T04:05:06.%03dZ"`, 1965+i%60, 1+i%12, i*37%1000)),
			q(fmt.Sprintf(`"%d-%02d-%02d"`, 1950+i%80, 1+i%12, 1+i%28)),
			tags, point, items,
			fmt.Sprintf(`[[%d, %d], [], null, [%d]]`, i, -i, i*i)))
	}
	var batches []arrow.RecordBatch
	for start := 0; start < len(rows); start += 7 {
		end := min(start+7, len(rows))
		rec, _, err := array.RecordFromJSON(memory.NewGoAllocator(), s, strings.NewReader("["+strings.Join(rows[start:end], ",")+"]"))
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, rec)
	}
	return Dataset{Name: fmt.Sprintf("interop-%d", n), Schema: s, Batches: batches}
}
