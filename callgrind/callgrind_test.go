package callgrind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseFile reads a dump callgrind wrote for a counted region
// (testdata/region.out: a json round trip, 100 iterations, cache and
// branch simulation on).
func TestParseFile(t *testing.T) {
	c, err := ParseFile(filepath.Join("testdata", "region.out"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Ir == 0 || !c.CacheSim || c.Bc == 0 {
		t.Fatalf("counts %+v: want instructions, a cache and a branch simulation", c)
	}
	if got, want := c.EstimatedCycles(), c.L1Hits()+5*c.LLHits()+35*c.RAMHits(); got != want || got < c.Ir {
		t.Errorf("estimated cycles %d, want %d (≥ %d instructions)", got, want, c.Ir)
	}
}

// TestFormula checks the estimated cycles on hand-made counts: 100
// instructions, 50 reads, 20 writes; 10 L1 misses of which 2 miss LL.
func TestFormula(t *testing.T) {
	c := Counts{Ir: 100, Dr: 50, Dw: 20, I1mr: 4, D1mr: 5, D1mw: 1, ILmr: 1, DLmr: 1, CacheSim: true}
	if c.L1Hits() != 160 || c.LLHits() != 8 || c.RAMHits() != 2 {
		t.Fatalf("hits L1 %d, LL %d, RAM %d; want 160, 8, 2", c.L1Hits(), c.LLHits(), c.RAMHits())
	}
	if got := c.EstimatedCycles(); got != 160+5*8+35*2 {
		t.Errorf("estimated cycles %d, want 270", got)
	}
	if (Counts{Ir: 100}).EstimatedCycles() != 0 {
		t.Error("estimated cycles without a cache simulation")
	}
	if d := c.Minus(Counts{Ir: 10, Dr: 60}); d.Ir != 90 || d.Dr != 0 {
		t.Errorf("Minus: %+v", d)
	}
}

// TestParseBad: what is not a callgrind file is an error naming why.
func TestParseBad(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"empty", "", "not a callgrind output file"},
		{"no ir", "events: Dr\nsummary: 5\n", "no Ir event"},
		{"too many", "events: Ir\ntotals: 1 2\n", "2 totals for 1 events"},
		{"not a count", "events: Ir Dr\ntotals: 1 x\n", `"x" is not a count`},
		{"short totals", "events: Ir Dr Dw\ntotals: 7\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := ParseFile(p)
			if tt.want == "" {
				if err != nil || c.Ir != 7 {
					t.Fatalf("ParseFile = %+v, %v", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ParseFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file parsed")
	}
}

// TestNewCounterOutside: a process not started to count cannot.
func TestNewCounterOutside(t *testing.T) {
	t.Setenv(OutEnv, "")
	if _, err := NewCounter(); err == nil {
		t.Fatal("a counter outside Valgrind")
	}
	t.Setenv(OutEnv, filepath.Join(t.TempDir(), "cg.out"))
	if _, err := NewCounter(); err == nil || (Supported() && !strings.Contains(err.Error(), "does not run under Valgrind")) {
		t.Fatalf("error %v", err)
	}
	if OnValgrind() {
		t.Error("OnValgrind outside Valgrind")
	}
}
