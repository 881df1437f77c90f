package results

import "fmt"

// Units of instruction counts (serbench run --metric instructions).
const (
	// UnitInstructions is instructions executed per op, counted by
	// Valgrind's callgrind inside the measured region only.
	UnitInstructions = "instructions/op"
	// UnitEstCycles is estimated cycles per op from callgrind's cache
	// simulation: L1 hits + 5 × LL hits + 35 × RAM hits (iai-callgrind's
	// formula; docs/method.md).
	UnitEstCycles = "est-cycles/op"
)

// CountThreshold is the change in instructions per op that counts as a
// change. Counts of one build repeat within a process to a few hundredths
// of a percent; between processes the runtime's random seeds (map hashes,
// when its caches are rebuilt) move an allocating, interface-heavy op by
// up to about 1.5% (docs/method.md gives the A/A figures), so a compare
// flags 1.5% or more, beyond both runs' own range.
const CountThreshold = 0.015

// A Count is one counted run of a case's op under callgrind: Iters
// iterations in one region, its events per op (the region's own cost, an
// empty region's, subtracted).
type Count struct {
	Iters int `json:"iters"`
	// Instructions and EstCycles are per op (EstCycles 0 without a cache
	// simulation).
	Instructions float64 `json:"instructions_op"`
	EstCycles    float64 `json:"est_cycles_op,omitempty"`
	// L1Misses, LLMisses and BranchMisses are per op: first- and
	// last-level cache misses (instruction and data) and mispredicted
	// branches (conditional and indirect).
	L1Misses     float64 `json:"l1_misses_op,omitempty"`
	LLMisses     float64 `json:"ll_misses_op,omitempty"`
	BranchMisses float64 `json:"branch_misses_op,omitempty"`
	// GC says the collector was left on inside the region (an op whose
	// iterations allocate more than the counting child lets the heap
	// grow): its counts then include GC assists and vary more.
	GC bool `json:"gc,omitempty"`
}

func (s *Count) validate() error {
	switch {
	case s.Iters < 1:
		return fmt.Errorf("iters %d is not positive", s.Iters)
	case !finite(s.Instructions) || s.Instructions < 0:
		return fmt.Errorf("instructions/op %v is not a count", s.Instructions)
	}
	for _, v := range []float64{s.EstCycles, s.L1Misses, s.LLMisses, s.BranchMisses} {
		if !finite(v) || v < 0 {
			return fmt.Errorf("count %v is not a count", v)
		}
	}
	return nil
}

// summarizeCounts adds the counts' statistics to c.Summary.
func (c *Case) summarizeCounts() {
	if len(c.Counts) == 0 {
		return
	}
	var ins, cyc []float64
	for _, s := range c.Counts {
		ins = append(ins, s.Instructions)
		if s.EstCycles > 0 {
			cyc = append(cyc, s.EstCycles)
		}
	}
	if c.Summary == nil {
		c.Summary = map[string]Stat{}
	}
	c.Summary[UnitInstructions] = Summarize(ins)
	if len(cyc) == len(ins) {
		c.Summary[UnitEstCycles] = Summarize(cyc)
	}
}

// Counted reports whether the case has instruction counts.
func (c *Case) Counted() bool { return len(c.Counts) > 0 }
