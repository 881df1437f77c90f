package userdata

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/format/dynamic"
)

var update = flag.Bool("update", false, "regenerate the binary and compressed files under testdata")

// TestGenerateTestdata regenerates, with -update, the files derived from
// testdata/nested.jsonl: compressed copies, Parquet, Arrow IPC file and
// stream, Avro OCF, and truncated variants for the error tests.
func TestGenerateTestdata(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata")
	}
	src, err := os.ReadFile("testdata/nested.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	reg := codec.Default()
	for name, spec := range map[string]string{"nested.jsonl.gz": "gzip:9", "nested.jsonl.zst": "zstd"} {
		var buf bytes.Buffer
		w, err := reg.MustParse(spec).NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(src)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		write(t, name, buf.Bytes())
		if name == "nested.jsonl.gz" {
			write(t, "truncated.jsonl.gz", buf.Bytes()[:buf.Len()-12])
		}
	}
	d, err := ReadAll("testdata/nested.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	for name, mk := range map[string]dynamic.Constructor{
		"nested.parquet": dynamic.NewParquet, "nested.arrows": dynamic.NewArrowStream, "nested.avro": dynamic.NewAvro,
	} {
		f, err := mk(d.Schema, dynamic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc, err := f.NewEncoder(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			if err := enc.Encode(&b); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		write(t, name, buf.Bytes())
		if name == "nested.parquet" {
			write(t, "truncated.parquet", buf.Bytes()[:buf.Len()/2])
		}
	}
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(d.Schema), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Batches {
		if err := fw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, "nested.arrow", buf.Bytes())
	write(t, "truncated.arrow", buf.Bytes()[:buf.Len()-40])
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("testdata", name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
