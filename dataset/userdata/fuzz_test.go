package userdata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/format/dynamic"
)

// FuzzJSONL feeds arbitrary bytes to the JSON Lines reader: it must return
// data or an error, never panic, and whatever it reads must survive the
// dynamic JSON Lines format's round trip.
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n{\"a\":2.5}\n",
		"{\"a\":{\"b\":[1,null,3]}}\n{\"a\":null}\n",
		"{\"a\":\"x\"}\n{\"a\":[{}]}\n",
		"{\"a\":1}\n{\"a\":2,}\n",
		"[1]\n",
		"{\"a\":\"\\ud800\"}\n",
		"{\"a\":1e400}\n",
		"{\"a\":18446744073709551616}\n",
		"\n\n{}\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := Options{SkipBad: mode&1 != 0, InferRows: int(mode>>1) % 4, BatchSize: 1 + int(mode>>3)}
		d, err := ReadAll(p, opts)
		if err != nil {
			return
		}
		defer d.Release()
		jf, err := dynamic.NewJSONL(d.Schema, dynamic.Options{BatchRows: 3})
		if err != nil {
			t.Fatalf("schema %s: %v", d.Schema, err)
		}
		var buf sliceBuffer
		enc, err := jf.NewEncoder(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			if err := enc.Encode(&b); err != nil {
				// JSON input cannot hold NaN or infinities, and
				// strings come from JSON: nothing may fail here.
				t.Fatalf("encode: %v", err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		dec, err := jf.NewDecoder(newBytesReader(buf.b))
		if err != nil {
			t.Fatal(err)
		}
		v := dynamic.NewVerifier(d.Batches)
		for {
			var b arrow.RecordBatch
			if err := dec.Decode(&b); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("decode %q: %v", buf.b, err)
			}
			if err := v.Check(b); err != nil {
				t.Fatalf("round trip of %q: %v", buf.b, err)
			}
		}
		if err := v.Done(); err != nil {
			t.Fatal(err)
		}
	})
}

type sliceBuffer struct{ b []byte }

func (s *sliceBuffer) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
