package nestedfmt_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/dataset/nested/userevents"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/format/avro"
	"github.com/serbench/serbench/format/cbor"
	"github.com/serbench/serbench/format/jsonl"
	"github.com/serbench/serbench/format/msgp"
	"github.com/serbench/serbench/format/msgpack"
	"github.com/serbench/serbench/format/parquet"
	"github.com/serbench/serbench/format/protobuf"
	"github.com/serbench/serbench/workload/nested/nestedarrow"
	"github.com/serbench/serbench/workload/nested/nestedfmt"
)

// tpchLines is how many line items TestMain generates through dbgen.
const tpchLines = 300

// tpchRecs are the first tpchLines line items, generated once per test
// binary by TestMain through the real path (a dbgen child process: this test
// binary re-executed); nil under -short.
var tpchRecs []tpch.LineItem

// TestMain lets the test binary serve as the dbgen child and generates the
// line items TestRoundTripTPCH needs (about 10 s, mostly dbgen's start-up).
func TestMain(m *testing.M) {
	tpch.RunChildIfRequested()
	flag.Parse()
	if !testing.Short() {
		recs, err := tpch.GenerateLineItems(context.Background(), tpchLines)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		tpchRecs = recs
	}
	os.Exit(m.Run())
}

// genericFormats returns the reflection-based formats of T: JSON lines (both
// libraries), MessagePack, CBOR, Avro datums and OCF (deflate) with
// avroSchema, Parquet (uncompressed and zstd, small row groups) and Arrow IPC
// (file with zstd, stream; small batches) through nestedarrow.
func genericFormats[T any](t testing.TB, avroSchema string) []format.Format[T] {
	t.Helper()
	datums, err := avro.NewDatums[T](avroSchema)
	if err != nil {
		t.Fatal(err)
	}
	ocf, err := avro.NewOCF[T](avroSchema, "deflate", 50)
	if err != nil {
		t.Fatal(err)
	}
	pq, err := parquet.New[T]("none", 100)
	if err != nil {
		t.Fatal(err)
	}
	pqz, err := parquet.New[T]("zstd", 0)
	if err != nil {
		t.Fatal(err)
	}
	am, err := nestedarrow.NewMapping[T]()
	if err != nil {
		t.Fatal(err)
	}
	af, err := arrowipc.New("arrow-file-zstd", am, arrowipc.File, "zstd", 64)
	if err != nil {
		t.Fatal(err)
	}
	as, err := arrowipc.New("arrow-stream", am, arrowipc.Stream, "none", 100)
	if err != nil {
		t.Fatal(err)
	}
	return []format.Format[T]{jsonl.New[T](jsonl.Std), jsonl.New[T](jsonl.Goccy), msgpack.New[T](), cbor.New[T](),
		datums, ocf, pq, pqz, af, as}
}

// roundTrip runs nestedfmt.RoundTrip of recs through each format as a
// subtest.
func roundTrip[T any](t *testing.T, recs []T, fs ...format.Format[T]) {
	t.Helper()
	for _, f := range fs {
		t.Run(f.Descriptor().Name, func(t *testing.T) {
			n, err := nestedfmt.RoundTrip(recs, f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d records, %d bytes", len(recs), n)
		})
	}
}

func TestRoundTripMedia(t *testing.T) {
	recs := media.Generate(300)
	fs := genericFormats[media.Record](t, media.AvroSchema())
	fs = append(fs, protobuf.New("protobuf", nestedfmt.MediaProtobuf()), msgp.New[media.Record]())
	roundTrip(t, recs, fs...)
}

func TestRoundTripUserEvents(t *testing.T) {
	recs := userevents.Generate(200)
	// An absent amount, an empty events list and a record without tags or
	// optional fields, to cover the edges.
	recs = append(recs, userevents.Record{ID: -1, Devices: []userevents.Device{{Family: "windows",
		Connections: []userevents.Connection{{Events: []userevents.Event{{Type: "Profile update"}}}}}}})
	fs := genericFormats[userevents.Record](t, userevents.AvroSchema())
	fs = append(fs, protobuf.New("protobuf", nestedfmt.UserEventsProtobuf()), msgp.New[userevents.Record]())
	roundTrip(t, recs, fs...)
}

func TestRoundTripTPCH(t *testing.T) {
	if tpchRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	fs := genericFormats[tpch.LineItem](t, tpch.AvroSchema())
	fs = append(fs, protobuf.New("protobuf", nestedfmt.TPCHProtobuf()), msgp.New[tpch.LineItem]())
	roundTrip(t, tpchRecs, fs...)
}
