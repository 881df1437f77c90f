package nested

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/fxamacker/cbor/v2"
	gojson "github.com/goccy/go-json"
	"github.com/hamba/avro/v2"
	"github.com/tinylib/msgp/msgp"
	"google.golang.org/protobuf/proto"
	"olympos.io/encoding/edn"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/protobuf"
)

// rowFormat is one row format of the nested workload: how one record is
// marshalled and unmarshalled. Text formats are written one record a line,
// binary formats each record behind its uvarint length (the seed's
// framing). Marshal and unmarshal functions carry per-goroutine state, so
// each reader goroutine asks for its own.
type rowFormat[T any] struct {
	name   string
	text   bool
	module string
	ver    string
	what   string
	// marshal returns a function appending the encoding of v to dst.
	marshal func() func(dst []byte, v *T) ([]byte, error)
	// unmarshal returns a function decoding b into v (v is zero).
	unmarshal func() func(b []byte, v *T) error
}

func jsonStd[T any]() rowFormat[T] {
	return rowFormat[T]{name: "json", text: true, module: "encoding/json", ver: format.GoVersion(),
		what: "encoding/json by reflection, one record a line",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) {
				b, err := json.Marshal(v)
				return append(dst, b...), err
			}
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error { return json.Unmarshal(b, v) }
		}}
}

func jsonGoccy[T any]() rowFormat[T] {
	return rowFormat[T]{name: "json-goccy", text: true, module: "github.com/goccy/go-json",
		ver:  format.ModuleVersion("github.com/goccy/go-json", "v0.12.0"),
		what: "goccy/go-json (compiled reflection), one record a line",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) {
				b, err := gojson.Marshal(v)
				return append(dst, b...), err
			}
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error { return gojson.Unmarshal(b, v) }
		}}
}

func ednFormat[T any]() rowFormat[T] {
	return rowFormat[T]{name: "edn", text: true, module: "olympos.io/encoding/edn",
		ver:  format.ModuleVersion("olympos.io/encoding/edn", "v0.0.0-20201019073823-d3554ca0b0a3"),
		what: "EDN by reflection (olympos.io/encoding/edn; keys from the Go field names), one record a line — the seed's baseline format",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) {
				b, err := edn.Marshal(v)
				return append(dst, b...), err
			}
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error { return edn.Unmarshal(b, v) }
		}}
}

// msgpRecord is a record type with tinylib/msgp's generated methods.
type msgpRecord[T any] interface {
	*T
	msgp.Marshaler
	msgp.Unmarshaler
}

func msgpackMsgp[T any, P msgpRecord[T]]() rowFormat[T] {
	return rowFormat[T]{name: "msgpack", module: "github.com/tinylib/msgp",
		ver:  format.ModuleVersion("github.com/tinylib/msgp", "v1.6.5"),
		what: "MessagePack with tinylib/msgp generated code, length-prefixed",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) { return P(v).MarshalMsg(dst) }
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error {
				rest, err := P(v).UnmarshalMsg(b)
				if err == nil && len(rest) != 0 {
					err = fmt.Errorf("%d bytes after the record", len(rest))
				}
				return err
			}
		}}
}

func cborFormat[T any]() rowFormat[T] {
	return rowFormat[T]{name: "cbor", module: "github.com/fxamacker/cbor/v2",
		ver:  format.ModuleVersion("github.com/fxamacker/cbor/v2", "v2.10.0"),
		what: "CBOR by reflection (fxamacker/cbor), length-prefixed",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) {
				b, err := cbor.Marshal(v)
				return append(dst, b...), err
			}
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error { return cbor.Unmarshal(b, v) }
		}}
}

func protobufFormat[T any, M proto.Message](m protobuf.Mapping[T, M]) rowFormat[T] {
	return rowFormat[T]{name: "protobuf", module: "google.golang.org/protobuf",
		ver:  format.ModuleVersion("google.golang.org/protobuf", "v1.36.12"),
		what: "Protocol Buffers (protoc-gen-go messages, converted to and from the Go struct), length-prefixed",
		marshal: func() func([]byte, *T) ([]byte, error) {
			msg := m.New()
			return func(dst []byte, v *T) ([]byte, error) {
				if err := m.ToMsg(v, msg); err != nil {
					return dst, err
				}
				return proto.MarshalOptions{}.MarshalAppend(dst, msg)
			}
		},
		unmarshal: func() func([]byte, *T) error {
			msg := m.New()
			return func(b []byte, v *T) error {
				if err := (proto.UnmarshalOptions{}).Unmarshal(b, msg); err != nil {
					return err
				}
				return m.FromMsg(msg, v)
			}
		}}
}

func avroFormat[T any](schema string) (rowFormat[T], error) {
	s, err := avro.Parse(schema)
	if err != nil {
		return rowFormat[T]{}, fmt.Errorf("avro schema: %w", err)
	}
	return rowFormat[T]{name: "avro", module: "github.com/hamba/avro/v2",
		ver:  format.ModuleVersion("github.com/hamba/avro/v2", "v2.31.0"),
		what: "Avro binary datums by reflection (hamba/avro), writer schema out of band, length-prefixed",
		marshal: func() func([]byte, *T) ([]byte, error) {
			return func(dst []byte, v *T) ([]byte, error) {
				b, err := avro.Marshal(s, v)
				return append(dst, b...), err
			}
		},
		unmarshal: func() func([]byte, *T) error {
			return func(b []byte, v *T) error { return avro.Unmarshal(s, b, v) }
		}}, nil
}

// writeRows writes recs to path with f, compressed with c; it returns the
// file size.
func writeRows[T any](path string, f rowFormat[T], c codec.Codec, recs []T) (int64, error) {
	out, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 256<<10)
	cw, err := c.NewWriter(bw)
	if err != nil {
		return 0, fmt.Errorf("%s writer: %w", c.Info().Name, err)
	}
	w := bufio.NewWriterSize(cw, 64<<10)
	marshal := f.marshal()
	var body, frame []byte
	for i := range recs {
		if body, err = marshal(body[:0], &recs[i]); err != nil {
			return 0, fmt.Errorf("%s: record %d: %w", f.name, i, err)
		}
		if f.text {
			if bytes.IndexByte(body, '\n') >= 0 {
				return 0, fmt.Errorf("%s: record %d: encoding holds a newline", f.name, i)
			}
			body = append(body, '\n')
			_, err = w.Write(body)
		} else {
			frame = format.AppendFrame(frame[:0], body)
			_, err = w.Write(frame)
		}
		if err != nil {
			return 0, fmt.Errorf("write: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("flush: %w", err)
	}
	if err := cw.Close(); err != nil {
		return 0, fmt.Errorf("%s close: %w", c.Info().Name, err)
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("flush: %w", err)
	}
	if err := out.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// splitter yields the records' encodings one by one from a decompressed
// stream: lines for text formats, frames for binary ones.
type splitter struct {
	lines *format.LineReader
	br    *bufio.Reader
	buf   []byte
}

func newSplitter(r io.Reader, text bool) *splitter {
	br := bufio.NewReaderSize(r, 256<<10)
	if text {
		return &splitter{lines: format.NewLineReader(br)}
	}
	return &splitter{br: br}
}

// next returns the next record's bytes (valid until the next call), io.EOF
// at the clean end.
func (s *splitter) next() ([]byte, error) {
	if s.lines != nil {
		return s.lines.Next()
	}
	var err error
	s.buf, err = format.ReadFrame(s.br, s.buf, format.MaxFrame)
	return s.buf, err
}

// openRows opens path decompressed with c.
func openRows(path string, c codec.Codec) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	cr, err := c.NewReader(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s reader: %w", c.Info().Name, format.Unexpected("header", err))
	}
	return cr, func() { cr.Close(); f.Close() }, nil
}

// errTooMany and errTooFew report a record count that differs from the
// one written: a truncated or corrupt file.
var (
	errTooMany = errors.New("more records than written")
	errTooFew  = errors.New("fewer records than written (truncated file?)")
)

// readRows decodes every record of path into out (zeroed by the caller),
// serially, then applies post (projection) to each when set.
func readRows[T any](path string, f rowFormat[T], c codec.Codec, out []T, post func(*T)) error {
	r, done, err := openRows(path, c)
	if err != nil {
		return err
	}
	defer done()
	sp := newSplitter(r, f.text)
	unmarshal := f.unmarshal()
	n := 0
	for {
		b, err := sp.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", f.name, n, err)
		}
		if n >= len(out) {
			return fmt.Errorf("%s: %w", f.name, errTooMany)
		}
		if err := safeUnmarshal(unmarshal, b, &out[n]); err != nil {
			return fmt.Errorf("%s: record %d: %w", f.name, n, err)
		}
		if post != nil {
			post(&out[n])
		}
		n++
	}
	if n != len(out) {
		return fmt.Errorf("%s: read %d of %d: %w", f.name, n, len(out), errTooFew)
	}
	return nil
}

// safeUnmarshal turns a decoder's panic on corrupt input into an error.
func safeUnmarshal[T any](unmarshal func([]byte, *T) error, b []byte, v *T) (err error) {
	defer format.CatchPanic("decode", &err)
	return unmarshal(b, v)
}

// ParBatch is the number of records a parallel reader hands a worker at a
// time (the seed's chunked pmap).
const ParBatch = 256

// batch is a run of consecutive records' encodings.
type batch struct {
	start int
	data  []byte
	ends  []int
}

// readRowsPar is readRows with the decoding spread over GOMAXPROCS
// goroutines: this goroutine decompresses and splits the stream into
// batches of ParBatch records, the workers decode them into their places
// in out.
func readRowsPar[T any](path string, f rowFormat[T], c codec.Codec, out []T, post func(*T)) error {
	r, done, err := openRows(path, c)
	if err != nil {
		return err
	}
	defer done()
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, workers)
	free := make(chan *batch, 2*workers)
	for range 2 * workers {
		free <- &batch{}
	}
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		stop     = make(chan struct{})
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err; close(stop) })
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unmarshal := f.unmarshal()
			for b := range work {
				prev := 0
				for k, end := range b.ends {
					i := b.start + k
					if err := safeUnmarshal(unmarshal, b.data[prev:end], &out[i]); err != nil {
						fail(fmt.Errorf("%s: record %d: %w", f.name, i, err))
						break
					}
					if post != nil {
						post(&out[i])
					}
					prev = end
				}
				free <- b
			}
		}()
	}
	sp := newSplitter(r, f.text)
	n := 0
	var cur *batch
	send := func() bool {
		if cur == nil || len(cur.ends) == 0 {
			return true
		}
		select {
		case work <- cur:
			cur = nil
			return true
		case <-stop:
			return false
		}
	}
loop:
	for {
		b, err := sp.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(fmt.Errorf("%s: record %d: %w", f.name, n, err))
			break
		}
		if n >= len(out) {
			fail(fmt.Errorf("%s: %w", f.name, errTooMany))
			break
		}
		if cur == nil {
			select {
			case cur = <-free:
			case <-stop:
				break loop
			}
			cur.start, cur.data, cur.ends = n, cur.data[:0], cur.ends[:0]
		}
		cur.data = append(cur.data, b...)
		cur.ends = append(cur.ends, len(cur.data))
		n++
		if len(cur.ends) == ParBatch && !send() {
			break
		}
	}
	send()
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if n != len(out) {
		return fmt.Errorf("%s: read %d of %d: %w", f.name, n, len(out), errTooFew)
	}
	return nil
}

// structDecoders decode a record into any value, for projection structs.
func structDecoders() map[string]func([]byte, any) error {
	return map[string]func([]byte, any) error{"json": json.Unmarshal, "json-goccy": gojson.Unmarshal, "cbor": cbor.Unmarshal}
}
