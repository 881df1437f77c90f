// Package recordsfmt binds the records dataset to every format subject of the
// records workload: the generic formats of package format instantiated for
// records.Record, plus the mapping code the schema-compiled and hand-mapped
// formats need (FlatBuffers, Protocol Buffers, Arrow, CSV).
package recordsfmt

import (
	"fmt"

	"github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/format/avro"
	"github.com/serbench/serbench/format/cbor"
	"github.com/serbench/serbench/format/csv"
	"github.com/serbench/serbench/format/flatbuf"
	"github.com/serbench/serbench/format/jsonl"
	"github.com/serbench/serbench/format/msgp"
	"github.com/serbench/serbench/format/msgpack"
	"github.com/serbench/serbench/format/parquet"
	"github.com/serbench/serbench/format/protobuf"
)

// Formats returns a fresh registry of every records format, the seed's three
// (jsonl, msgpack, flatbuffers) first.
func Formats() (*format.Registry[records.Record], error) {
	fs := []format.Format[records.Record]{
		jsonl.New[records.Record](jsonl.Std),
		msgpack.New[records.Record](),
		flatbuf.New("flatbuffers", FlatBuffers()),
		jsonl.New[records.Record](jsonl.Goccy),
		msgp.New[records.Record](),
		protobuf.New("protobuf", Protobuf()),
		cbor.New[records.Record](),
	}
	datums, err := avro.NewDatums[records.Record](records.AvroSchema())
	if err != nil {
		return nil, err
	}
	fs = append(fs, datums)
	for _, c := range avro.OCFCodecs() {
		f, err := avro.NewOCF[records.Record](records.AvroSchema(), c, 0)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	arrows := []struct {
		name        string
		layout      arrowipc.Layout
		compression string
	}{
		{"arrow-stream", arrowipc.Stream, "none"},
		{"arrow-file", arrowipc.File, "none"},
		{"arrow-file-lz4", arrowipc.File, "lz4"},
		{"arrow-file-zstd", arrowipc.File, "zstd"},
	}
	for _, a := range arrows {
		f, err := arrowipc.New(a.name, Arrow(), a.layout, a.compression, 0)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	for _, c := range []string{"none", "snappy", "zstd", "gzip"} {
		f, err := parquet.New[records.Record](c, 0)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	fs = append(fs, csv.New("csv", CSV()))
	r, err := format.NewRegistry(fs...)
	if err != nil {
		return nil, fmt.Errorf("recordsfmt: %w", err)
	}
	return r, nil
}
