// Package nestedfmt binds the nested datasets (dataset/nested: tpch, media,
// userevents) to serbench's generic formats: the Protocol Buffers mapping
// of each dataset's generated messages (the conversions themselves are the
// dataset's pb package's, pure data), and RoundTrip, which checks that a
// format gives the records back. The Arrow mapping by reflection is package
// nestedarrow. The datasets import no format; the nested workload and the
// tests that round-trip the datasets bind them here.
package nestedfmt

import (
	"bytes"
	"fmt"
	"io"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/media"
	mediapb "github.com/serbench/serbench/dataset/nested/media/pb"
	"github.com/serbench/serbench/dataset/nested/tpch"
	tpchpb "github.com/serbench/serbench/dataset/nested/tpch/pb"
	"github.com/serbench/serbench/dataset/nested/userevents"
	uepb "github.com/serbench/serbench/dataset/nested/userevents/pb"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/protobuf"
)

// MediaProtobuf returns the conversions the protobuf format needs for the
// media dataset.
func MediaProtobuf() protobuf.Mapping[media.Record, *mediapb.Record] {
	return protobuf.Mapping[media.Record, *mediapb.Record]{
		New:     func() *mediapb.Record { return new(mediapb.Record) },
		ToMsg:   mediapb.FromRecord,
		FromMsg: mediapb.ToRecord,
	}
}

// TPCHProtobuf returns the conversions the protobuf format needs for the
// tpch dataset.
func TPCHProtobuf() protobuf.Mapping[tpch.LineItem, *tpchpb.LineItem] {
	return protobuf.Mapping[tpch.LineItem, *tpchpb.LineItem]{
		New:     func() *tpchpb.LineItem { return new(tpchpb.LineItem) },
		ToMsg:   tpchpb.FromLineItem,
		FromMsg: tpchpb.ToLineItem,
	}
}

// UserEventsProtobuf returns the conversions the protobuf format needs for
// the userevents dataset.
func UserEventsProtobuf() protobuf.Mapping[userevents.Record, *uepb.Record] {
	return protobuf.Mapping[userevents.Record, *uepb.Record]{
		New:     func() *uepb.Record { return new(uepb.Record) },
		ToMsg:   uepb.FromRecord,
		FromMsg: uepb.ToRecord,
	}
}

// RoundTrip encodes recs with f into memory, decodes them back and returns
// the encoded size, or an error at the first record that differs
// (nested.Diff) or when the count differs. Records are decoded into one
// reused value that RoundTrip zeroes before each Decode: format/avro does
// not (hamba/avro leaves a reused slice untouched when the datum's array is
// empty), although the format.Decoder contract says Decode overwrites every
// field.
func RoundTrip[T any](recs []T, f format.Format[T]) (int, error) {
	var buf bytes.Buffer
	enc, err := f.NewEncoder(&buf)
	if err != nil {
		return 0, fmt.Errorf("new encoder: %w", err)
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return 0, fmt.Errorf("encode record %d: %w", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		return 0, fmt.Errorf("close the encoder: %w", err)
	}
	dec, err := f.NewDecoder(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return 0, fmt.Errorf("new decoder: %w", err)
	}
	var v T
	n := 0
	for ; ; n++ {
		var zero T
		v = zero
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("decode record %d: %w", n, err)
		}
		if n >= len(recs) {
			return 0, fmt.Errorf("decoded more than the %d records written", len(recs))
		}
		if err := nested.Diff(&v, &recs[n]); err != nil {
			return 0, fmt.Errorf("record %d: %w", n, err)
		}
	}
	if n != len(recs) {
		return 0, fmt.Errorf("decoded %d records, want %d", n, len(recs))
	}
	return buf.Len(), nil
}
