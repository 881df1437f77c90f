package nestedarrow_test

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// emptyBatch returns a batch of schema with no rows.
func emptyBatch(schema *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	return b.NewRecordBatch()
}
