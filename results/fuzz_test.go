package results

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are small hand-made results files at the edges of what Read
// accepts and refuses; FuzzRead starts from them and from every results
// file in testdata and report's testdata (among them fuzz-group.jsonl: a
// comparison group with a baseline and a limit row, forks, probes,
// descriptors, failed and skipped cases, a shard).
var fuzzSeeds = []string{
	"",
	"\n\n",
	`{"kind":"env"}`,
	`{"kind":"env","schema":null}` + "\n",
	`{"kind":"env","schema":0}` + "\n",
	`{"kind":"env","schema":-1}` + "\n",
	`{"kind":"env","schema":4,"cores":-1}` + "\n",
	// An old file: no schema, a subject under "format", a limit row by note.
	`{"kind":"env","cpu":"x","start":"2026-01-02T03:04:05Z"}` + "\n" +
		`{"kind":"case","workload":"f","name":"F","labels":[{"k":"format","v":"a"}],"status":"ok","samples":[{"iters":3,"ns_op":7},{"iters":3,"ns_op":8}]}` + "\n" +
		`{"kind":"case","workload":"f","name":"F","labels":[{"k":"format","v":"m"}],"status":"ok","notes":["limit row"],"samples":[{"iters":3,"ns_op":1}]}` + "\n",
	// A cut last line.
	`{"kind":"env","schema":2}` + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok","samples":[{"iters":1,"ns_op":1e1`,
	// The edges of the bounds.
	`{"kind":"env","schema":3}` + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok","bytes_per_op":9223372036854775807,"samples":[{"iters":1,"ns_op":1e15,"b_op":1.8e19,"allocs_op":1.8e19},{"iters":2,"ns_op":0.25}]}` + "\n",
	`{"kind":"env","schema":3}` + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok","samples":[{"iters":1,"ns_op":-5}]}` + "\n",
	`{"kind":"env","schema":3}` + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok","samples":[{"iters":1,"ns_op":1e308}]}` + "\n",
}

// seedFiles returns the fuzz seeds and the bytes of every results file in
// dirs.
func seedFiles(f *testing.F, dirs ...string) [][]byte {
	f.Helper()
	var files [][]byte
	for _, s := range fuzzSeeds {
		files = append(files, []byte(s))
	}
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			files = append(files, b)
		}
	}
	return files
}

// FuzzRead reads arbitrary bytes as a results file. Read must not panic
// or hang; what it accepts must keep the invariants the reports rely on,
// export to bench.txt and the dashboard JSON, merge as a shard, and —
// written back with a Writer — read back the same.
func FuzzRead(f *testing.F) {
	for _, b := range seedFiles(f, "testdata", filepath.Join("..", "report", "testdata")) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := Read(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			if run != nil {
				t.Fatalf("Read returned a run with its error %v", err)
			}
			return
		}
		checkRun(t, run)
		if err := WriteBenchfmt(io.Discard, run, run); err != nil {
			t.Errorf("bench.txt export of an accepted run: %v", err)
		}
		if err := WriteGitHubBenchmark(io.Discard, run, run); err != nil {
			t.Errorf("github-benchmark export of an accepted run: %v", err)
		}
		for _, m := range MergeShards([]*Run{run, run}) {
			for i := range m.Cases {
				if err := m.Cases[i].validate(); err != nil {
					t.Errorf("merged case: %v", err)
				}
			}
		}
		DriftOf(run.Probes, NoiseThreshold)
		LoopDrift(run.Probes, MemoryLoop, NoiseThreshold)
		for i := range run.Cases {
			c := &run.Cases[i]
			MachineDuring(run.Probes, c.Start, c.End, 0)
			LoopDuring(run.Probes, MemoryLoop, c.Start, c.End, 0)
		}

		// Write the run back and read it again: what Read accepts, the
		// Writer writes, and Read accepts that.
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if err := w.WriteEnv(run.Env); err != nil {
			t.Fatalf("WriteEnv: %v", err)
		}
		for _, d := range run.Descriptors {
			if err := w.WriteDescriptor(d); err != nil {
				t.Fatalf("WriteDescriptor: %v", err)
			}
		}
		for _, p := range run.Probes {
			if err := w.WriteProbe(p); err != nil {
				t.Fatalf("WriteProbe: %v", err)
			}
		}
		for _, c := range run.Cases {
			if err := w.WriteCase(c); err != nil {
				t.Fatalf("WriteCase: %v", err)
			}
		}
		if run.End != nil {
			if err := w.WriteEnd(*run.End); err != nil {
				t.Fatalf("WriteEnd: %v", err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf, "again.jsonl")
		if err != nil {
			t.Fatalf("an accepted run written back does not read: %v\n%s", err, buf.Bytes())
		}
		if len(again.Cases) != len(run.Cases) || len(again.Descriptors) != len(run.Descriptors) ||
			len(again.Probes) != len(run.Probes) || (again.End == nil) != (run.End == nil) {
			t.Fatalf("the run changed in the round trip: %d/%d cases, %d/%d descriptors, %d/%d probes",
				len(again.Cases), len(run.Cases), len(again.Descriptors), len(run.Descriptors), len(again.Probes), len(run.Probes))
		}
		for i := range run.Cases {
			a, b := &again.Cases[i], &run.Cases[i]
			if a.FullName() != b.FullName() || a.Status != b.Status || len(a.Samples) != len(b.Samples) {
				t.Fatalf("case %d changed in the round trip: %s %s %d, was %s %s %d", i, a.FullName(), a.Status, len(a.Samples), b.FullName(), b.Status, len(b.Samples))
			}
		}
	})
}

// checkRun checks the invariants of a run Read accepted.
func checkRun(t *testing.T, run *Run) {
	t.Helper()
	if run.Env.Schema < 1 || run.Env.Schema > SchemaVersion {
		t.Errorf("accepted schema %d", run.Env.Schema)
	}
	if err := run.Env.validate(); err != nil {
		t.Errorf("accepted environment: %v", err)
	}
	for i := range run.Cases {
		c := &run.Cases[i]
		if err := c.validate(); err != nil {
			t.Errorf("accepted case: %v", err)
		}
		if !c.OK() {
			continue
		}
		ns, ok := c.Stat(UnitNsPerOp)
		if !ok || ns.N != len(c.Samples) || !(ns.Median > 0) || ns.Lo > ns.Median || ns.Median > ns.Hi {
			t.Errorf("case %s: ns/op summary %+v of %d samples", c.FullName(), ns, len(c.Samples))
		}
		for u, s := range c.Summary {
			for _, v := range []float64{s.Median, s.Lo, s.Hi, s.Confidence} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("case %s: %s summary %+v is not finite", c.FullName(), u, s)
				}
			}
		}
	}
	for _, p := range run.Probes {
		if err := p.validate(); err != nil {
			t.Errorf("accepted probe: %v", err)
		}
	}
}
