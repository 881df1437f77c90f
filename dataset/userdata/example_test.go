package userdata_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/dataset/userdata"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format/dynamic"
)

// Example shows the library half of `serbench run data --input FILE`: read
// the user's file into memory, then run every format that can hold its
// schema through filebench's file pipeline and verify the round trip.
func Example() {
	d, err := userdata.ReadAll("testdata/nested.jsonl", userdata.Options{Limit: 1_000_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	fmt.Printf("%d rows, %d columns, %d notes\n", d.Rows, d.Schema.NumFields(), len(d.Notes))

	formats, skipped := dynamic.All(d.Schema, dynamic.Options{})
	for _, err := range skipped {
		fmt.Println("skipped:", err)
	}
	dir, _ := os.MkdirTemp("", "serbench-example")
	defer os.RemoveAll(dir)
	c := codec.Default().MustParse("zstd")
	for _, f := range formats {
		if filebench.CheckCombination(f.Descriptor(), c) != nil {
			continue // Parquet: random access, codec none only
		}
		path := filepath.Join(dir, f.Descriptor().Name)
		if _, err := filebench.Write(context.Background(), path, f, c, d.Seq(), filebench.Options{}); err != nil {
			fmt.Println(err)
			return
		}
		v := dynamic.NewVerifier(d.Batches)
		_, err := filebench.Read(context.Background(), path, f, c, -1,
			func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
		if err == nil {
			err = v.Done()
		}
		fmt.Println(f.Descriptor().Name, err == nil)
	}
	// Output:
	// 5 rows, 7 columns, 4 notes
	// skipped: csv: cannot hold this data: column tags: nested type list<item: utf8, nullable> cannot be held by a flat format
	// arrow-stream true
	// avro-ocf true
	// msgpack true
	// cbor true
	// jsonl true
	// protobuf-dynamicpb true
	// protobuf-wire true
}
