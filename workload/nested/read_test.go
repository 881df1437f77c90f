package nested

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	dsn "github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/userevents"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/nested/nestedarrow"
)

// columnReaders are the sub-schema readers of a Parquet file.
func columnReaders[T any]() map[string]func(path string, cols []int, leaves []string, out []T) error {
	return map[string]func(string, []int, []string, []T) error{
		"parquet-arrow":     func(p string, c []int, l []string, o []T) error { return pqArrowRead(p, c, l, o, false) },
		"parquet-arrow-par": func(p string, c []int, l []string, o []T) error { return pqArrowRead(p, c, l, o, true) },
		"parquet-go":        func(p string, _ []int, l []string, o []T) error { return pqGoRead(p, l, o, false) },
		"parquet-go-par":    func(p string, _ []int, l []string, o []T) error { return pqGoRead(p, l, o, true) },
	}
}

// checkProjections reads every single leaf, random subsets and all leaves
// of recs written to Parquet with small row groups (several per file, so
// the parallel readers split them), and compares each record with
// nested.Project of the reference.
func checkProjections[T any](t *testing.T, recs []T, codecName string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.parquet")
	if _, err := writeParquet(path, recs, pqSettings{codec: codecName, rowGroup: 37}); err != nil {
		t.Fatal(err)
	}
	leaves := dsn.Leaves[T]()
	var queries [][]int
	for i := range leaves {
		queries = append(queries, []int{i})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{2, 3, 5, 8, len(leaves) - 1} {
		for range 3 {
			idx := rng.Perm(len(leaves))[:k]
			queries = append(queries, sortInts(idx))
		}
	}
	queries = append(queries, nil)
	out := make([]T, len(recs))
	for name, read := range columnReaders[T]() {
		for _, q := range queries {
			var ls []string
			for _, i := range q {
				ls = append(ls, leaves[i])
			}
			clear(out)
			if err := read(path, q, ls, out); err != nil {
				t.Fatalf("%s %v: %v", name, ls, err)
			}
			var p *dsn.Projector[T]
			if ls != nil {
				var err error
				if p, err = dsn.NewProjector[T](ls); err != nil {
					t.Fatal(err)
				}
			}
			for i := range recs {
				want := recs[i]
				if p != nil {
					want = p.Project(&recs[i])
				}
				if err := dsn.Diff(&out[i], &want); err != nil {
					t.Fatalf("%s %v: record %d: %v", name, ls, i, err)
				}
			}
		}
	}
}

func sortInts(s []int) []int {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestIPCProjections reads every single leaf, random subsets and all
// leaves of Arrow IPC files (both buffer compressions, batches of 37 rows)
// serially and in parallel, each record checked against the projection.
func TestIPCProjections(t *testing.T) {
	t.Run("media", func(t *testing.T) { checkIPCProjections(t, media.Generate(150)) })
	t.Run("userevents", func(t *testing.T) { checkIPCProjections(t, userevents.Generate(60)) })
}

func checkIPCProjections[T any](t *testing.T, recs []T) {
	am, err := nestedarrow.NewMapping[T]()
	if err != nil {
		t.Fatal(err)
	}
	leaves := dsn.Leaves[T]()
	var queries [][]string
	for _, l := range leaves {
		queries = append(queries, []string{l})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{2, 5, len(leaves) - 1} {
		var q []string
		for _, i := range sortInts(rng.Perm(len(leaves))[:k]) {
			q = append(q, leaves[i])
		}
		queries = append(queries, q)
	}
	queries = append(queries, nil)
	out := make([]T, len(recs))
	for _, c := range ipcCodecs() {
		af, err := arrowipc.New("arrow-ipc", am, arrowipc.File, c, 37)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "f.arrow")
		if _, err := writeFormat(path, af, recs); err != nil {
			t.Fatal(err)
		}
		for _, par := range []bool{false, true} {
			for _, q := range queries {
				clear(out)
				if err := ipcRead(path, 37, q, out, par); err != nil {
					t.Fatalf("%s par=%v %v: %v", c, par, q, err)
				}
				checkProjected(t, recs, out, q)
			}
		}
		// Projection structs of the reflection decoders.
		for _, q := range queries[:len(queries)-1] {
			ps, err := newProjStruct[T](q)
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				b, err := json.Marshal(&recs[i])
				if err != nil {
					t.Fatal(err)
				}
				pv := reflect.New(ps.typ)
				if err := json.Unmarshal(b, pv.Interface()); err != nil {
					t.Fatal(err)
				}
				var v T
				ps.copy(reflect.ValueOf(&v).Elem(), pv.Elem())
				out[i] = v
			}
			checkProjected(t, recs, out, q)
		}
	}
}

// checkProjected compares out with the projection of recs onto q.
func checkProjected[T any](t *testing.T, recs, out []T, q []string) {
	t.Helper()
	var p *dsn.Projector[T]
	if q != nil {
		var err error
		if p, err = dsn.NewProjector[T](q); err != nil {
			t.Fatal(err)
		}
	}
	for i := range recs {
		want := recs[i]
		if p != nil {
			want = p.Project(&recs[i])
		}
		if err := dsn.Diff(&out[i], &want); err != nil {
			t.Fatalf("%v: record %d: %v", q, i, err)
		}
	}
}

// TestProjections covers the assembler (every Go shape: strings plain and
// dictionary-encoded, enums, ints, floats, bools, optional leaves, repeated
// leaves, repeated groups nested three deep) and the parquet-go pruned
// schema, one query at a time.
func TestProjections(t *testing.T) {
	t.Run("media", func(t *testing.T) { checkProjections(t, media.Generate(150), "zstd") })
	t.Run("userevents", func(t *testing.T) { checkProjections(t, userevents.Generate(60), "snappy") })
}

// TestTruncatedFiles cuts every kind of file short: each reader must
// return an error, never a short or wrong result.
func TestTruncatedFiles(t *testing.T) {
	recs := media.Generate(500)
	dir := t.TempDir()
	codecs := codec.Default()
	type kind struct {
		name  string
		write func(path string) (int64, error)
		read  func(path string, out []media.Record) error
	}
	var kinds []kind
	for _, c := range parquetCodecNames() {
		s := pqSettings{codec: c, rowGroup: 100}
		for name, read := range columnReaders[media.Record]() {
			kinds = append(kinds, kind{"parquet-" + c + "/" + name,
				func(p string) (int64, error) { return writeParquet(p, recs, s) },
				func(p string, out []media.Record) error { return read(p, nil, nil, out) }})
		}
	}
	am, err := nestedarrow.NewMapping[media.Record]()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ipcCodecs() {
		af, err := arrowipc.New("arrow-ipc", am, arrowipc.File, c, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, par := range []bool{false, true} {
			kinds = append(kinds, kind{fmt.Sprintf("arrow-ipc-%s-par=%v", c, par),
				func(p string) (int64, error) { return writeFormat(p, af, recs) },
				func(p string, out []media.Record) error { return ipcRead(p, 64, nil, out, par) }})
		}
	}
	mds := Dataset{Name: "media", Type: reflect.TypeFor[media.Record](), Avro: media.AvroSchema()}
	for _, s := range builtinRows() {
		if s.Name() == "edn" {
			continue
		}
		rf := typedRows[media.Record](s, mds)
		for _, cn := range rowCodecs() {
			c := codecs.MustParse(cn)
			kinds = append(kinds,
				kind{rf.Name() + "-" + cn, func(p string) (int64, error) { return writeRows(p, rf, c, recs) },
					func(p string, out []media.Record) error { return readRows(p, rf, c, out, nil) }},
				kind{rf.Name() + "-par-" + cn, func(p string) (int64, error) { return writeRows(p, rf, c, recs) },
					func(p string, out []media.Record) error { return readRowsPar(p, rf, c, out, nil) }})
		}
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(k.name, "/", "_"))
			size, err := k.write(path)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]media.Record, len(recs))
			if err := k.read(path, out); err != nil {
				t.Fatalf("intact file: %v", err)
			}
			for _, cut := range []int64{size * 2 / 3, size - 1} {
				if err := os.Truncate(path, cut); err != nil {
					t.Fatal(err)
				}
				clear(out)
				if err := k.read(path, out); err == nil {
					t.Errorf("cut to %d of %d bytes: no error", cut, size)
				}
			}
		})
	}
}

// TestCorruptFileFails corrupts a file between the write and its read
// cases: every read case then fails with the reason, none passes.
func TestCorruptFileFails(t *testing.T) {
	for _, mode := range []string{"truncate", "flip"} {
		t.Run(mode, func(t *testing.T) {
			cfg := workload.Config{TempDir: t.TempDir(), Subjects: []string{SubjectParquetArrow, SubjectArrowIPC, "protobuf", "json"}}
			p, err := newPlan(context.Background(), sizes{Media: 300, Singles: 1, PerK: 0}, cfg, []string{"media"}, builtinRows())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var reads []bench.Case
			for _, c := range p.Cases {
				if c.Labels.Get(LabelOp) == OpRead && c.Labels.Get(LabelQuery) == QueryAll &&
					(c.Labels.Get(LabelCodec) == "zstd" || c.Labels.Get(LabelCodec) == "lz4") {
					reads = append(reads, c)
				}
			}
			if len(reads) < 3 {
				t.Fatalf("%d read cases, want at least 3", len(reads))
			}
			for _, c := range reads {
				c.Teardown = nil
				if err := c.Setup(); err != nil {
					t.Fatal(err)
				}
				c.Setup = nil
				files, _ := filepath.Glob(filepath.Join(cfg.TempDir, "*", "media-*"))
				for _, f := range files {
					corrupt(t, f, mode)
				}
				r, err := bench.Measure(context.Background(), c, bench.Options{Count: 1})
				if err != nil {
					t.Fatal(err)
				}
				if r.Status != results.StatusFailed || r.Error == "" {
					t.Errorf("%s: status %s after %s, want failed with a reason", c.FullName(), r.Status, mode)
				} else {
					t.Logf("%s: %s", c.Labels.Get(LabelSubject), r.Error)
				}
			}
		})
	}
}

// corrupt truncates a file to half or flips bytes in its middle third.
func corrupt(t *testing.T, path, mode string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 16 {
		return
	}
	if mode == "truncate" {
		if err := os.Truncate(path, int64(len(data)/2)); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i := len(data) / 3; i < 2*len(data)/3; i += 7 {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
