package nested

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/fxamacker/cbor/v2"
	gojson "github.com/goccy/go-json"
	"github.com/hamba/avro/v2"
	"github.com/tinylib/msgp/msgp"
	"google.golang.org/protobuf/proto"
	"olympos.io/encoding/edn"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/protobuf"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload/nested/nestedfmt"
)

// Dataset is what a nested row format binds to: one of the workload's
// datasets (tpch, media, userevents). Its records reach the format as
// pointers to values of Type.
type Dataset struct {
	// Name is the dataset's name.
	Name string
	// Type is the Go type of one record (tpch.LineItem, media.Record,
	// userevents.Record).
	Type reflect.Type
	// Avro is the dataset's Avro schema (JSON), for formats that need one.
	Avro string
}

// RowCodec is one goroutine's marshal and unmarshal of a dataset's
// records. rec is always a pointer to a value of the dataset's Type
// (zeroed before Unmarshal). The functions may share state (a reused
// message), because the workload binds a codec per goroutine.
type RowCodec struct {
	// Marshal appends the encoding of rec to dst.
	Marshal func(dst []byte, rec any) ([]byte, error)
	// Unmarshal decodes one record's encoding b into rec.
	Unmarshal func(b []byte, rec any) error
}

// Subject is the shape of a nested row format: Bind returns a goroutine's
// codec for a dataset, or an error for a dataset the format cannot take
// (Takes may name the datasets it takes; empty: all). The descriptor's
// SettingFraming says how records are framed in the workload's files:
// FramingLines (text, one record a line) or, by default, FramingLength.
// Each subject is measured writing the files, reading them whole into the
// dataset's Go structs (serially and in parallel batches as NAME-par), and
// answering the sub-schema queries by decode and project.
type Subject = subject.Subject[Dataset, RowCodec]

// Framing settings of a row format's descriptor.
const (
	// SettingFraming is the descriptor setting naming a row format's framing.
	SettingFraming = "framing"
	// FramingLines frames one record a line; the encoding holds no newline.
	FramingLines = "newline-separated"
	// FramingLength frames each record behind its uvarint length.
	FramingLength = "uvarint length-prefixed"
)

// Register adds the built-in row formats to r: EDN, encoding/json,
// goccy/go-json, msgp, CBOR, protobuf and Avro, in report order. The
// columnar readers (Parquet by two libraries, Arrow IPC), the limit rows and
// the projecting variants of each row format are the workload's own: they
// are ways to read the workload's files, derived from the formats.
func Register(r *subject.Registry) error { return subject.Add(r, Name, builtinRows()...) }

// WithSubjects sets the registry whose nested row formats the workload
// measures (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// rows returns the row formats the workload measures.
func (w *Workload) rows() ([]Subject, error) {
	return subject.Of(w.reg, Name, builtinRows)
}

// newRowSubject describes a row format named name of module's library
// (version ver) whose codecs bind returns.
func newRowSubject(name string, text bool, module, ver, what string, bind func(Dataset) (RowCodec, error)) Subject {
	frame := FramingLength
	if text {
		frame = FramingLines
	}
	return Subject{
		Desc: results.Descriptor{Name: name, Module: module, Version: ver, What: what, Settings: map[string]string{SettingFraming: frame}},
		Bind: bind,
	}
}

// reflective is a row format of a library that encodes any Go value by
// reflection: marshal and unmarshal of the record pointer itself.
func reflective(name string, text bool, module, ver, what string, marshal func(any) ([]byte, error), unmarshal func([]byte, any) error) Subject {
	return newRowSubject(name, text, module, ver, what, func(Dataset) (RowCodec, error) {
		return RowCodec{
			Marshal: func(dst []byte, rec any) ([]byte, error) {
				b, err := marshal(rec)
				return append(dst, b...), err
			},
			Unmarshal: unmarshal,
		}, nil
	})
}

// builtinRows returns the built-in row formats in report order.
func builtinRows() []Subject {
	return []Subject{
		reflective("edn", true, "olympos.io/encoding/edn",
			format.ModuleVersion("olympos.io/encoding/edn", "v0.0.0-20201019073823-d3554ca0b0a3"),
			"EDN by reflection (olympos.io/encoding/edn; keys from the Go field names), one record a line — the seed's baseline format",
			edn.Marshal, edn.Unmarshal),
		reflective("json", true, "encoding/json", format.GoVersion(),
			"encoding/json by reflection, one record a line", json.Marshal, json.Unmarshal),
		reflective("json-goccy", true, "github.com/goccy/go-json",
			format.ModuleVersion("github.com/goccy/go-json", "v0.12.0"),
			"goccy/go-json (compiled reflection), one record a line", gojson.Marshal, gojson.Unmarshal),
		msgpRows(),
		reflective("cbor", false, "github.com/fxamacker/cbor/v2",
			format.ModuleVersion("github.com/fxamacker/cbor/v2", "v2.10.0"),
			"CBOR by reflection (fxamacker/cbor), length-prefixed", cbor.Marshal, cbor.Unmarshal),
		protobufRows(),
		avroRows(),
	}
}

// msgpRows is MessagePack through tinylib/msgp's generated methods, which
// every dataset's record type has.
func msgpRows() Subject {
	mt, ut := reflect.TypeFor[msgp.Marshaler](), reflect.TypeFor[msgp.Unmarshaler]()
	return newRowSubject("msgpack", false, "github.com/tinylib/msgp",
		format.ModuleVersion("github.com/tinylib/msgp", "v1.6.5"),
		"MessagePack with tinylib/msgp generated code, length-prefixed",
		func(ds Dataset) (RowCodec, error) {
			if p := reflect.PointerTo(ds.Type); !p.Implements(mt) || !p.Implements(ut) {
				return RowCodec{}, fmt.Errorf("msgpack: %s has no msgp generated methods", ds.Type)
			}
			return RowCodec{
				Marshal: func(dst []byte, rec any) ([]byte, error) { return rec.(msgp.Marshaler).MarshalMsg(dst) },
				Unmarshal: func(b []byte, rec any) error {
					rest, err := rec.(msgp.Unmarshaler).UnmarshalMsg(b)
					if err == nil && len(rest) != 0 {
						err = fmt.Errorf("%d bytes after the record", len(rest))
					}
					return err
				},
			}, nil
		})
}

// protobufMappings are the datasets' protoc-gen-go messages, by dataset.
func protobufMappings() map[string]func() RowCodec {
	return map[string]func() RowCodec{
		"tpch":       protobufCodec(nestedfmt.TPCHProtobuf()),
		"media":      protobufCodec(nestedfmt.MediaProtobuf()),
		"userevents": protobufCodec(nestedfmt.UserEventsProtobuf()),
	}
}

// protobufRows is Protocol Buffers through each dataset's generated
// message, converted to and from the Go struct.
func protobufRows() Subject {
	ms := protobufMappings()
	s := newRowSubject("protobuf", false, "google.golang.org/protobuf",
		format.ModuleVersion("google.golang.org/protobuf", "v1.36.12"),
		"Protocol Buffers (protoc-gen-go messages, converted to and from the Go struct), length-prefixed",
		func(ds Dataset) (RowCodec, error) {
			c, ok := ms[ds.Name]
			if !ok {
				return RowCodec{}, fmt.Errorf("protobuf: no message for dataset %s", ds.Name)
			}
			return c(), nil
		})
	for name := range ms {
		s.Takes = append(s.Takes, name)
	}
	slices.Sort(s.Takes)
	return s
}

// protobufCodec makes a goroutine's codec of m: one message, reused by its
// marshals and unmarshals.
func protobufCodec[T any, M proto.Message](m protobuf.Mapping[T, M]) func() RowCodec {
	return func() RowCodec {
		msg := m.New()
		return RowCodec{
			Marshal: func(dst []byte, rec any) ([]byte, error) {
				if err := m.ToMsg(rec.(*T), msg); err != nil {
					return dst, err
				}
				return proto.MarshalOptions{}.MarshalAppend(dst, msg)
			},
			Unmarshal: func(b []byte, rec any) error {
				if err := (proto.UnmarshalOptions{}).Unmarshal(b, msg); err != nil {
					return err
				}
				return m.FromMsg(msg, rec.(*T))
			},
		}
	}
}

// avroRows is Avro binary datums by reflection with the dataset's schema.
func avroRows() Subject {
	return newRowSubject("avro", false, "github.com/hamba/avro/v2",
		format.ModuleVersion("github.com/hamba/avro/v2", "v2.31.0"),
		"Avro binary datums by reflection (hamba/avro), writer schema out of band, length-prefixed",
		func(ds Dataset) (RowCodec, error) {
			s, err := avro.Parse(ds.Avro)
			if err != nil {
				return RowCodec{}, fmt.Errorf("avro schema of %s: %w", ds.Name, err)
			}
			return RowCodec{
				Marshal: func(dst []byte, rec any) ([]byte, error) {
					b, err := avro.Marshal(s, rec)
					return append(dst, b...), err
				},
				Unmarshal: func(b []byte, rec any) error { return avro.Unmarshal(s, b, rec) },
			}, nil
		})
}
