package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/serbench/serbench/callgrind"
	"github.com/serbench/serbench/results"
)

// work is an op of a known size: a loop over a slice, w passes, with an
// allocation per op so that the collector being off inside a region is
// exercised; the StopTimer section must not be counted.
func work(w int) func(b *B) error {
	data := make([]uint64, 4096)
	for i := range data {
		data[i] = uint64(i * 7)
	}
	sink := uint64(0)
	return func(b *B) error {
		for i := 0; i < b.N; i++ {
			for p := 0; p < w; p++ {
				for _, v := range data {
					sink += v ^ uint64(p)
				}
			}
			buf := make([]byte, 256)
			buf[0] = byte(sink)
			b.StopTimer()
			for j := 0; j < 50*w; j++ { // uncounted: cleanup outside the timer
				sink += uint64(j)
			}
			b.StartTimer()
		}
		if sink == 42 {
			return errors.New("unlikely")
		}
		return nil
	}
}

// TestCountUnderValgrind runs this test binary under callgrind: the child
// counts three cases (100 passes twice, 102 passes once), the parent checks
// that a case's counts repeat within 0.1%, that the two runs of the same
// op agree, that 2% more work reads as 2% more instructions, and that the
// StopTimer section is not counted.
func TestCountUnderValgrind(t *testing.T) {
	if out := os.Getenv(callgrind.OutEnv); out != "" {
		countChild(t, filepath.Join(filepath.Dir(out), "counts.json"))
		return
	}
	if testing.Short() {
		t.Skip("runs under Valgrind")
	}
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("no valgrind on the PATH (apt-get install valgrind)")
	}
	if !callgrind.Supported() {
		t.Skip("counting needs amd64")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cg.out")
	args := append(callgrind.Args(out), os.Args[0], "-test.run=^TestCountUnderValgrind$", "-test.v")
	cmd := exec.Command(vg, args...)
	cmd.Env = append(os.Environ(), callgrind.OutEnv+"="+out, "GODEBUG=asyncpreemptoff=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(dir, "counts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []results.Case
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d cases, want 3", len(got))
	}
	ins := make([]float64, 3)
	for i, c := range got {
		if !c.OK() || len(c.Counts) != 5 {
			t.Fatalf("case %d: %s %s, %d counts", i, c.Status, c.Error, len(c.Counts))
		}
		st := c.Summary[results.UnitInstructions]
		if st.RelWidth() > 0.001 {
			t.Errorf("case %d: counts %v vary by %.3f%%", i, c.Counts, 100*st.RelWidth())
		}
		if c.Summary[results.UnitEstCycles].Median < st.Median {
			t.Errorf("case %d: %v estimated cycles for %v instructions", i, c.Summary[results.UnitEstCycles].Median, st.Median)
		}
		ins[i] = st.Median
	}
	t.Logf("instructions/op: %v; est. cycles/op: %v", ins, got[0].Summary[results.UnitEstCycles].Median)
	// 100 passes over 4096 values: at least 2 instructions a value, and
	// the uncounted loop (5,000 additions) would add more than 1%.
	if ins[0] < 2*100*4096 || ins[0] > 10*100*4096 {
		t.Errorf("%v instructions per op for 409,600 values", ins[0])
	}
	if d := ins[1]/ins[0] - 1; d < -0.001 || d > 0.001 {
		t.Errorf("the same op counted %v and %v (%+.3f%%)", ins[0], ins[1], 100*d)
	}
	if d := ins[2]/ins[0] - 1; d < 0.015 || d > 0.025 {
		t.Errorf("2%% more work counted %+.2f%% more instructions", 100*d)
	}
}

func countChild(t *testing.T, path string) {
	k, err := callgrind.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	var out []results.Case
	for _, w := range []int{100, 100, 102} {
		c := Case{Workload: "w", Name: "Work", Labels: results.Labels{{Key: "subject", Value: "loop"}},
			Verify: func() error { return nil }, Run: work(w)}
		rc, err := Count(context.Background(), c, k, CountOptions{RegionInstructions: 1})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rc)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
