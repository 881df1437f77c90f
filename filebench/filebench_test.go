package filebench_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/workload/records/recordsfmt"
)

const n = 2000

type fixture struct {
	gen     *records.Generator
	formats *format.Registry[records.Record]
	codecs  *codec.Registry
}

func setup(t testing.TB) fixture {
	t.Helper()
	fs, err := recordsfmt.Formats()
	if err != nil {
		t.Fatal(err)
	}
	return fixture{gen: records.New(records.DefaultSeed), formats: fs, codecs: codec.Default()}
}

func (fx fixture) write(t testing.TB, dir string, f format.Format[records.Record], c codec.Codec, o filebench.Options) (string, filebench.WriteStats) {
	t.Helper()
	path := filepath.Join(dir, f.Descriptor().Name+"."+c.Info().Name)
	st, err := filebench.Write(context.Background(), path, f, c, fx.gen.Records(n), o)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return path, st
}

// combos returns every valid format × codec pair (codecs given by spec).
func (fx fixture) combos(specs ...string) []struct {
	f format.Format[records.Record]
	c codec.Codec
} {
	var out []struct {
		f format.Format[records.Record]
		c codec.Codec
	}
	for _, f := range fx.formats.All() {
		for _, s := range specs {
			c := fx.codecs.MustParse(s)
			if filebench.CheckCombination(f.Descriptor(), c) != nil {
				continue
			}
			out = append(out, struct {
				f format.Format[records.Record]
				c codec.Codec
			}{f, c})
		}
	}
	return out
}

// TestRoundTripMatrix writes and reads back every format × codec.
func TestRoundTripMatrix(t *testing.T) {
	fx := setup(t)
	dir := t.TempDir()
	for _, fc := range fx.combos(fx.codecs.Names()...) {
		name := fc.f.Descriptor().Name + "/" + fc.c.Info().Spec()
		t.Run(name, func(t *testing.T) {
			path, ws := fx.write(t, dir, fc.f, fc.c, filebench.Options{})
			defer os.Remove(path)
			if ws.Records != n || ws.FileBytes <= 0 || ws.EncodedBytes <= 0 {
				t.Fatalf("write stats %+v", ws)
			}
			if ws.Heap.Samples < 2 || ws.Heap.Peak < ws.Heap.Start {
				t.Fatalf("heap stats %+v", ws.Heap)
			}
			rs, err := filebench.Read(context.Background(), path, fc.f, fc.c, n, fx.gen.Verify(), filebench.Options{})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if rs.Records != n || rs.FileBytes != ws.FileBytes || rs.DecodedBytes != ws.EncodedBytes {
				t.Fatalf("read stats %+v, write stats %+v", rs, ws)
			}
			ds, err := filebench.Decompress(context.Background(), path, fc.c, filebench.Options{})
			if err != nil {
				t.Fatalf("Decompress: %v", err)
			}
			if ds.DecodedBytes != ws.EncodedBytes || ds.FileBytes != ws.FileBytes {
				t.Fatalf("decompress stats %+v, write stats %+v", ds, ws)
			}
			fs, err := filebench.ReadFile(context.Background(), path, filebench.Options{BufferSize: 4096})
			if err != nil || fs.FileBytes != ws.FileBytes {
				t.Fatalf("ReadFile: %+v, %v", fs, err)
			}
		})
	}
}

// TestTruncatedFile cuts the file's tail — by one byte, by a few, by half —
// and expects Read to fail for every format × codec none, zstd and gzip.
func TestTruncatedFile(t *testing.T) {
	fx := setup(t)
	dir := t.TempDir()
	for _, fc := range fx.combos("none", "zstd", "gzip", "snappy", "lz4") {
		name := fc.f.Descriptor().Name + "/" + fc.c.Info().Spec()
		t.Run(name, func(t *testing.T) {
			path, ws := fx.write(t, dir, fc.f, fc.c, filebench.Options{})
			full, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range []int64{1, 7, ws.FileBytes / 2} {
				if err := os.WriteFile(path, full[:ws.FileBytes-cut], 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := filebench.Read(context.Background(), path, fc.f, fc.c, n, fx.gen.Verify(), filebench.Options{})
				if err == nil {
					t.Errorf("file cut by %d of %d bytes read without error", cut, ws.FileBytes)
				}
			}
		})
	}
}

// TestTruncatedAtRecordBoundary drops exactly the last record of a row format
// without compression — undetectable by the format — and expects the record
// count check to catch it.
func TestTruncatedAtRecordBoundary(t *testing.T) {
	fx := setup(t)
	dir := t.TempDir()
	f, _ := fx.formats.Get("jsonl")
	c := fx.codecs.MustParse("none")
	path, _ := fx.write(t, dir, f, c, filebench.Options{})
	data, _ := os.ReadFile(path)
	last := strings.LastIndexByte(string(data[:len(data)-1]), '\n')
	if err := os.WriteFile(path, data[:last+1], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := filebench.Read(context.Background(), path, f, c, n, fx.gen.Verify(), filebench.Options{})
	if !errors.Is(err, filebench.ErrRecordCount) {
		t.Fatalf("err = %v, want ErrRecordCount", err)
	}
	// With the count unchecked the shorter file is accepted.
	st, err := filebench.Read(context.Background(), path, f, c, -1, fx.gen.Verify(), filebench.Options{})
	if err != nil || st.Records != n-1 {
		t.Fatalf("unchecked read: %+v, %v", st, err)
	}
}

// TestCorruptedFile corrupts files between write and read. Compressed
// streams (zstd, gzip) carry checksums, so flipping any byte in their middle
// must fail; so must it in formats that compress their own blocks. Uncompressed formats have bytes nobody checks (padding, map keys
// matched case-insensitively), so there the flip lands in a value — one
// character of a record's email — which verification must catch.
func TestCorruptedFile(t *testing.T) {
	fx := setup(t)
	dir := t.TempDir()
	var victim records.Record
	fx.gen.At(n/2, &victim)
	for _, fc := range fx.combos("none", "zstd", "gzip") {
		name := fc.f.Descriptor().Name + "/" + fc.c.Info().Spec()
		t.Run(name, func(t *testing.T) {
			path, ws := fx.write(t, dir, fc.f, fc.c, filebench.Options{})
			full, _ := os.ReadFile(path)
			positions := []int{int(ws.FileBytes / 2), int(ws.FileBytes/2 + 1), int(ws.FileBytes * 3 / 4)}
			if fc.c.Info().Name == "none" && !fc.f.Descriptor().Compresses {
				at := bytes.Index(full, []byte(victim.Email))
				if at < 0 {
					t.Fatalf("email of record %d not found in the file", n/2)
				}
				positions = []int{at + 3}
			}
			for _, at := range positions {
				bad := append([]byte(nil), full...)
				bad[at] ^= 0x01
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := filebench.Read(context.Background(), path, fc.f, fc.c, n, fx.gen.Verify(), filebench.Options{}); err == nil {
					t.Errorf("byte %d of %d flipped: read without error", at, ws.FileBytes)
				}
			}
		})
	}
}

func TestTrailingGarbage(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("protobuf")
	c := fx.codecs.MustParse("none")
	path, _ := fx.write(t, t.TempDir(), f, c, filebench.Options{})
	fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte{0x02, 'x'}) // a short, well-formed frame that is not a record
	fh.Close()
	if _, err := filebench.Read(context.Background(), path, f, c, n, fx.gen.Verify(), filebench.Options{}); err == nil {
		t.Fatal("trailing data read without error")
	}
}

func TestWriteErrors(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("jsonl")
	c := fx.codecs.MustParse("zstd")
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, nil, 0o644)
	tests := []struct {
		name string
		path string
	}{
		{"missing dir", filepath.Join(dir, "no", "such", "dir", "x")},
		{"parent is a file", filepath.Join(notDir, "x")},
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		tests = append(tests, struct{ name, path string }{"disk full", "/dev/full"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := filebench.Write(context.Background(), tt.path, f, c, fx.gen.Records(n), filebench.Options{})
			if err == nil {
				t.Fatal("Write succeeded")
			}
			if !strings.Contains(err.Error(), "jsonl/zstd") {
				t.Errorf("error does not name the case: %v", err)
			}
		})
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Log("/dev/full missing: disk-full case skipped")
	}
}

func TestReadErrors(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("jsonl")
	c := fx.codecs.MustParse("zstd")
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := filebench.Read(context.Background(), missing, f, c, n, nil, filebench.Options{}); err == nil {
		t.Error("Read of a missing file succeeded")
	}
	if _, err := filebench.ReadFile(context.Background(), missing, filebench.Options{}); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
	if _, err := filebench.Decompress(context.Background(), missing, c, filebench.Options{}); err == nil {
		t.Error("Decompress of a missing file succeeded")
	}
	// A file of the wrong codec.
	path, _ := fx.write(t, t.TempDir(), f, fx.codecs.MustParse("gzip"), filebench.Options{})
	if _, err := filebench.Read(context.Background(), path, f, c, n, nil, filebench.Options{}); err == nil {
		t.Error("gzip file read as zstd without error")
	}
}

func TestVerifyFailureStopsRead(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("msgpack")
	c := fx.codecs.MustParse("lz4")
	path, _ := fx.write(t, t.TempDir(), f, c, filebench.Options{})
	wantErr := errors.New("boom")
	st, err := filebench.Read(context.Background(), path, f, c, n, func(i int, _ *records.Record) error {
		if i == 5 {
			return wantErr
		}
		return nil
	}, filebench.Options{})
	if !errors.Is(err, wantErr) || st.Records != 5 {
		t.Fatalf("err = %v after %d records", err, st.Records)
	}
	// Records from another seed fail verification.
	other := records.New(7).Verify()
	if _, err := filebench.Read(context.Background(), path, f, c, n, other, filebench.Options{}); err == nil {
		t.Fatal("records of another seed verified")
	}
}

func TestCombinationRejected(t *testing.T) {
	fx := setup(t)
	for _, tt := range []struct{ format, codec string }{{"parquet-zstd", "gzip"}, {"arrow-file", "zstd"}, {"avro-ocf-deflate", "lz4"}} {
		f, _ := fx.formats.Get(tt.format)
		c := fx.codecs.MustParse(tt.codec)
		path := filepath.Join(t.TempDir(), "x")
		if _, err := filebench.Write(context.Background(), path, f, c, fx.gen.Records(10), filebench.Options{}); err == nil {
			t.Errorf("%s × %s accepted", tt.format, tt.codec)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s × %s: file created", tt.format, tt.codec)
		}
	}
}

func TestContextCanceled(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("jsonl")
	c := fx.codecs.MustParse("none")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "x")
	if _, err := filebench.Write(ctx, path, f, c, fx.gen.Records(n), filebench.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write: err = %v", err)
	}
	path, _ = fx.write(t, t.TempDir(), f, c, filebench.Options{})
	if _, err := filebench.Read(ctx, path, f, c, n, nil, filebench.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read: err = %v", err)
	}
	if _, err := filebench.ReadFile(ctx, path, filebench.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFile: err = %v", err)
	}
}

// TestUnbufferedSameBytes checks that the unbuffered option changes only how
// the bytes are written, not which.
func TestUnbufferedSameBytes(t *testing.T) {
	fx := setup(t)
	dir := t.TempDir()
	for _, tt := range []struct{ format, codec string }{{"msgpack", "none"}, {"msgpack", "zstd"}, {"jsonl", "gzip"}} {
		f, _ := fx.formats.Get(tt.format)
		c := fx.codecs.MustParse(tt.codec)
		a := filepath.Join(dir, "buffered")
		b := filepath.Join(dir, "unbuffered")
		if _, err := filebench.Write(context.Background(), a, f, c, fx.gen.Records(n), filebench.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := filebench.Write(context.Background(), b, f, c, fx.gen.Records(n), filebench.Options{Unbuffered: true, Sync: true}); err != nil {
			t.Fatal(err)
		}
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if tt.codec == "none" && string(x) != string(y) {
			t.Errorf("%s/%s: unbuffered output differs", tt.format, tt.codec)
		}
		if _, err := filebench.Read(context.Background(), b, f, c, n, fx.gen.Verify(), filebench.Options{}); err != nil {
			t.Errorf("%s/%s: unbuffered file: %v", tt.format, tt.codec, err)
		}
	}
}

// TestBareLoopsMatchPipeline checks that each hand-written loop writes the
// same file as the pipeline with the same format and codec, byte for byte.
func TestBareLoopsMatchPipeline(t *testing.T) {
	fx := setup(t)
	for _, tt := range []struct {
		format, codec string
		bare          func(path string, src iter.Seq[*records.Record]) (int64, error)
	}{
		{"jsonl", "zstd", filebench.BareJSONLZstdWrite[records.Record]},
		{"msgpack-msgp", "none", filebench.BareMsgpWrite[records.Record]},
	} {
		dir := t.TempDir()
		f, _ := fx.formats.Get(tt.format)
		c := fx.codecs.MustParse(tt.codec)
		path, ws := fx.write(t, dir, f, c, filebench.Options{})
		bare := filepath.Join(dir, "bare")
		size, err := tt.bare(bare, fx.gen.Records(n))
		if err != nil {
			t.Fatalf("%s/%s: %v", tt.format, tt.codec, err)
		}
		if size != ws.FileBytes {
			t.Errorf("%s/%s: bare file %d bytes, pipeline %d", tt.format, tt.codec, size, ws.FileBytes)
		}
		x, _ := os.ReadFile(path)
		y, _ := os.ReadFile(bare)
		if !bytes.Equal(x, y) {
			t.Errorf("%s/%s: bare loop and pipeline wrote different bytes", tt.format, tt.codec)
		}
		if _, err := filebench.Read(context.Background(), bare, f, c, n, fx.gen.Verify(), filebench.Options{}); err != nil {
			t.Fatalf("%s/%s: pipeline read of bare file: %v", tt.format, tt.codec, err)
		}
	}
}

func TestHeapSamplingOff(t *testing.T) {
	fx := setup(t)
	f, _ := fx.formats.Get("csv")
	c := fx.codecs.MustParse("none")
	path := filepath.Join(t.TempDir(), "x")
	st, err := filebench.Write(context.Background(), path, f, c, fx.gen.Records(10), filebench.Options{NoHeapSampling: true})
	if err != nil || st.Heap.Samples != 0 {
		t.Fatalf("%+v, %v", st, err)
	}
}

func Example() {
	formats, _ := recordsfmt.Formats()
	f, _ := formats.Get("msgpack")
	c, _ := codec.Default().Parse("zstd:3")
	gen := records.New(records.DefaultSeed)
	dir, _ := os.MkdirTemp("", "filebench")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "records.msgpack.zst")

	ws, err := filebench.Write(context.Background(), path, f, c, gen.Records(1000), filebench.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rs, err := filebench.Read(context.Background(), path, f, c, 1000, gen.Verify(), filebench.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ws.Records, rs.Records, rs.DecodedBytes == ws.EncodedBytes)
	// Output: 1000 1000 true
}
