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

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/subject"
)

// rowCodec is one goroutine's marshal and unmarshal of a row format. The
// functions may share state (a reused protobuf message), so each goroutine
// binds its own codec.
type rowCodec[T any] struct {
	// marshal appends the encoding of v to dst.
	marshal func(dst []byte, v *T) ([]byte, error)
	// unmarshal decodes b into v (v is zero).
	unmarshal func(b []byte, v *T) error
}

// rowFormat is one row format of the nested workload as a subject: its
// description, and a Bind returning a goroutine's codec. Text formats are
// written one record a line, binary formats each record behind its uvarint
// length (the seed's framing); the descriptor's framing setting says which.
type rowFormat[T any] = subject.Subject[struct{}, rowCodec[T]]

// isText reports whether rf writes one record a line.
func isText[T any](rf rowFormat[T]) bool { return rf.Desc.Settings[SettingFraming] == FramingLines }

// typedRows is s bound to ds as the workload's typed row format of T (ds's
// record type): its codec passes each *T to s's functions as an any.
func typedRows[T any](s Subject, ds Dataset) rowFormat[T] {
	return rowFormat[T]{
		Desc:  s.Describe(Name),
		Takes: s.Takes,
		Bind: func(struct{}) (rowCodec[T], error) {
			c, err := s.Bind(ds)
			if err != nil {
				return rowCodec[T]{}, err
			}
			if c.Marshal == nil || c.Unmarshal == nil {
				return rowCodec[T]{}, fmt.Errorf("%s: its RowCodec lacks Marshal or Unmarshal", s.Name())
			}
			return rowCodec[T]{
				marshal:   func(dst []byte, v *T) ([]byte, error) { return c.Marshal(dst, v) },
				unmarshal: func(b []byte, v *T) error { return c.Unmarshal(b, v) },
			}, nil
		},
	}
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
	rc, err := f.Bind(struct{}{})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f.Name(), err)
	}
	text := isText(f)
	var body, frame []byte
	for i := range recs {
		if body, err = rc.marshal(body[:0], &recs[i]); err != nil {
			return 0, fmt.Errorf("%s: record %d: %w", f.Name(), i, err)
		}
		if text {
			if bytes.IndexByte(body, '\n') >= 0 {
				return 0, fmt.Errorf("%s: record %d: encoding holds a newline", f.Name(), i)
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
	rc, err := f.Bind(struct{}{})
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	sp := newSplitter(r, isText(f))
	n := 0
	for {
		b, err := sp.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", f.Name(), n, err)
		}
		if n >= len(out) {
			return fmt.Errorf("%s: %w", f.Name(), errTooMany)
		}
		if err := safeUnmarshal(rc.unmarshal, b, &out[n]); err != nil {
			return fmt.Errorf("%s: record %d: %w", f.Name(), n, err)
		}
		if post != nil {
			post(&out[n])
		}
		n++
	}
	if n != len(out) {
		return fmt.Errorf("%s: read %d of %d: %w", f.Name(), n, len(out), errTooFew)
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
			rc, err := f.Bind(struct{}{})
			if err != nil {
				fail(fmt.Errorf("%s: %w", f.Name(), err))
			}
			for b := range work {
				if err != nil {
					free <- b
					continue
				}
				prev := 0
				for k, end := range b.ends {
					i := b.start + k
					if err := safeUnmarshal(rc.unmarshal, b.data[prev:end], &out[i]); err != nil {
						fail(fmt.Errorf("%s: record %d: %w", f.Name(), i, err))
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
	sp := newSplitter(r, isText(f))
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
			fail(fmt.Errorf("%s: record %d: %w", f.Name(), n, err))
			break
		}
		if n >= len(out) {
			fail(fmt.Errorf("%s: %w", f.Name(), errTooMany))
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
		return fmt.Errorf("%s: read %d of %d: %w", f.Name(), n, len(out), errTooFew)
	}
	return nil
}

// structDecoders decode a record into any value, for projection structs.
func structDecoders() map[string]func([]byte, any) error {
	return map[string]func([]byte, any) error{"json": json.Unmarshal, "json-goccy": gojson.Unmarshal, "cbor": cbor.Unmarshal}
}
