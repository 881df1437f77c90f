// Package callgrind counts the instructions a region of a Go program
// executes when the program runs under Valgrind's callgrind tool, and reads
// callgrind's output files.
//
// Counting is driven by client requests (the instruction sequence Valgrind
// recognises, request_amd64.s): the program zeroes the counters, turns
// collection on for its own thread around the region, and asks for a dump,
// which callgrind writes before the request returns. A Go program under
// callgrind must run the region on a goroutine locked to its OS thread
// (runtime.LockOSThread): collection is a per-thread state, and a goroutine
// that moved to another thread mid-region would lose its counts.
//
// Estimated cycles follow the formula iai-callgrind uses (Itamar
// Turner-Trauring's, "consistent benchmarking in CI"): L1 hits + 5 × LL
// hits + 35 × RAM hits, from callgrind's cache simulation.
package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Client request codes (valgrind.h and callgrind.h).
const (
	reqRunningOnValgrind = 0x1001
	toolBase             = uintptr('C')<<24 | uintptr('T')<<16
	reqDumpStats         = toolBase + 0
	reqZeroStats         = toolBase + 1
	reqToggleCollect     = toolBase + 2
	reqStartInstr        = toolBase + 4
	reqStopInstr         = toolBase + 5
)

func request(r uintptr) uintptr {
	args := [6]uintptr{r}
	return clientRequest(&args, 0)
}

// OnValgrind reports whether the process runs under Valgrind (any tool).
func OnValgrind() bool { return supported && request(reqRunningOnValgrind) > 0 }

// Supported reports whether this architecture can count: the client
// requests are spelled out for amd64 only.
func Supported() bool { return supported }

// Counts are callgrind's events over a region, as its output names them.
// Without --cache-sim and --branch-sim only Ir is set.
type Counts struct {
	// Ir is instructions executed.
	Ir uint64 `json:"ir"`
	// Dr and Dw are data reads and writes.
	Dr uint64 `json:"dr,omitempty"`
	Dw uint64 `json:"dw,omitempty"`
	// I1mr, D1mr and D1mw are first-level cache misses (instruction read,
	// data read, data write); ILmr, DLmr and DLmw last-level ones.
	I1mr uint64 `json:"i1mr,omitempty"`
	D1mr uint64 `json:"d1mr,omitempty"`
	D1mw uint64 `json:"d1mw,omitempty"`
	ILmr uint64 `json:"ilmr,omitempty"`
	DLmr uint64 `json:"dlmr,omitempty"`
	DLmw uint64 `json:"dlmw,omitempty"`
	// Bc and Bcm are conditional branches and their mispredictions, Bi
	// and Bim indirect ones.
	Bc  uint64 `json:"bc,omitempty"`
	Bcm uint64 `json:"bcm,omitempty"`
	Bi  uint64 `json:"bi,omitempty"`
	Bim uint64 `json:"bim,omitempty"`
	// CacheSim says the cache events were simulated (the file named them).
	CacheSim bool `json:"cache_sim,omitempty"`
}

// L1Hits is accesses served by the first-level caches.
func (c Counts) L1Hits() uint64 { return sub(c.Ir+c.Dr+c.Dw, c.I1mr+c.D1mr+c.D1mw) }

// LLHits is accesses that missed L1 and hit the last-level cache.
func (c Counts) LLHits() uint64 { return sub(c.I1mr+c.D1mr+c.D1mw, c.RAMHits()) }

// RAMHits is accesses that missed every cache.
func (c Counts) RAMHits() uint64 { return c.ILmr + c.DLmr + c.DLmw }

// EstimatedCycles is L1 hits + 5 × LL hits + 35 × RAM hits, 0 without a
// cache simulation.
func (c Counts) EstimatedCycles() uint64 {
	if !c.CacheSim {
		return 0
	}
	return c.L1Hits() + 5*c.LLHits() + 35*c.RAMHits()
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// Minus is c − o, event by event (never below zero).
func (c Counts) Minus(o Counts) Counts {
	return Counts{Ir: sub(c.Ir, o.Ir), Dr: sub(c.Dr, o.Dr), Dw: sub(c.Dw, o.Dw),
		I1mr: sub(c.I1mr, o.I1mr), D1mr: sub(c.D1mr, o.D1mr), D1mw: sub(c.D1mw, o.D1mw),
		ILmr: sub(c.ILmr, o.ILmr), DLmr: sub(c.DLmr, o.DLmr), DLmw: sub(c.DLmw, o.DLmw),
		Bc: sub(c.Bc, o.Bc), Bcm: sub(c.Bcm, o.Bcm), Bi: sub(c.Bi, o.Bi), Bim: sub(c.Bim, o.Bim), CacheSim: c.CacheSim}
}

// ParseFile reads the totals of one callgrind output file.
func ParseFile(path string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, fmt.Errorf("callgrind: %w", err)
	}
	defer f.Close()
	var events, totals []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
		case strings.HasPrefix(line, "summary:") && totals == nil:
			totals = strings.Fields(strings.TrimPrefix(line, "summary:"))
		case strings.HasPrefix(line, "totals:"):
			totals = strings.Fields(strings.TrimPrefix(line, "totals:"))
		}
	}
	if err := sc.Err(); err != nil {
		return Counts{}, fmt.Errorf("callgrind: %s: %w", path, err)
	}
	if events == nil || totals == nil {
		return Counts{}, fmt.Errorf("callgrind: %s: no events or totals line (not a callgrind output file)", path)
	}
	return parseTotals(events, totals)
}

// parseTotals maps a totals line onto the events line naming its columns
// (a totals line may stop before the last events, which are then zero).
func parseTotals(events, totals []string) (Counts, error) {
	if len(totals) > len(events) {
		return Counts{}, fmt.Errorf("callgrind: %d totals for %d events", len(totals), len(events))
	}
	var c Counts
	fields := map[string]*uint64{"Ir": &c.Ir, "Dr": &c.Dr, "Dw": &c.Dw, "I1mr": &c.I1mr, "D1mr": &c.D1mr, "D1mw": &c.D1mw,
		"ILmr": &c.ILmr, "DLmr": &c.DLmr, "DLmw": &c.DLmw, "Bc": &c.Bc, "Bcm": &c.Bcm, "Bi": &c.Bi, "Bim": &c.Bim}
	hasIr := false
	for i, ev := range events {
		p, ok := fields[ev]
		if ev == "Ir" {
			hasIr = true
		}
		if ev == "D1mr" {
			c.CacheSim = true
		}
		if !ok || i >= len(totals) {
			continue
		}
		v, err := strconv.ParseUint(totals[i], 10, 64)
		if err != nil {
			return Counts{}, fmt.Errorf("callgrind: event %s: %q is not a count", ev, totals[i])
		}
		*p = v
	}
	if !hasIr {
		return Counts{}, errors.New("callgrind: the file counts no instructions (no Ir event)")
	}
	return c, nil
}

// OutEnv names the environment variable through which the process that
// starts a child under callgrind tells it where callgrind writes: the
// file name given to --callgrind-out-file.
const OutEnv = "SERBENCH_CALLGRIND_OUT"

// Args are the Valgrind arguments a counting child runs under, writing
// its dumps to out (numbered out.1, out.2, … in the order of the dumps).
// Instrumentation starts off: the child turns it on around each case
// (Counter.Instrument), so that set-up runs several times faster.
// Valgrind's own messages go to LogFile(out), not to the terminal.
func Args(out string) []string {
	return []string{"--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
		"--cache-sim=yes", "--branch-sim=yes", "--dump-line=no", "--dump-instr=no", "--compress-strings=no",
		"--callgrind-out-file=" + out, "--log-file=" + LogFile(out), "--error-exitcode=0", "-q"}
}

// LogFile is where a child started with Args(out) has Valgrind write its
// own messages.
func LogFile(out string) string { return out + ".valgrind.log" }

// LogTail is the last lines of the Valgrind log of out, for an error
// message ("" when there is none).
func LogTail(out string, lines int) string {
	b, err := os.ReadFile(LogFile(out))
	if err != nil {
		return ""
	}
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, " | ")
}

// A Counter counts regions of the calling thread. Its zero value is not
// usable: NewCounter checks that the process runs under callgrind.
type Counter struct {
	out  string
	dump int
	on   bool
	keep bool
}

// KeepEnv names the environment variable that, set to a directory, has a
// counting run keep callgrind's dumps there (callgrind.out.N, one per
// counted region, in order) for callgrind_annotate: where a case's
// instructions go, function by function.
const KeepEnv = "SERBENCH_CALLGRIND_KEEP"

// NewCounter returns a counter for a process started with Args(out) and
// OutEnv=out, or an error saying why the process cannot count.
func NewCounter() (*Counter, error) {
	out := os.Getenv(OutEnv)
	switch {
	case !supported:
		return nil, errors.New("callgrind: instruction counts need amd64 (the client requests are spelled out for it only)")
	case out == "":
		return nil, fmt.Errorf("callgrind: %s is not set: the process was not started to count", OutEnv)
	case !OnValgrind():
		return nil, errors.New("callgrind: the process does not run under Valgrind")
	}
	return &Counter{out: out, keep: os.Getenv(KeepEnv) != ""}, nil
}

// Instrument turns callgrind's instrumentation on or off. Code runs
// several times faster uninstrumented, and nothing is counted there;
// turning it on flushes Valgrind's translations, so a region counted
// right after pays for retranslating the code it runs (warm it up first).
func (c *Counter) Instrument(on bool) {
	if on {
		request(reqStartInstr)
	} else {
		request(reqStopInstr)
	}
}

// Begin zeroes the counters and starts collecting on this thread.
func (c *Counter) Begin() {
	request(reqZeroStats)
	c.on = false
	c.Resume()
}

// Pause stops collecting on this thread (a case's StopTimer).
func (c *Counter) Pause() {
	if c.on {
		request(reqToggleCollect)
		c.on = false
	}
}

// Resume collects on this thread again (a case's StartTimer).
func (c *Counter) Resume() {
	if !c.on {
		request(reqToggleCollect)
		c.on = true
	}
}

// End stops collecting, has callgrind write what it collected since
// Begin, and reads it back.
func (c *Counter) End() (Counts, error) {
	c.Pause()
	request(reqDumpStats)
	c.dump++
	path := c.out + "." + strconv.Itoa(c.dump)
	counts, err := ParseFile(path)
	if err != nil {
		return Counts{}, err
	}
	if !c.keep {
		os.Remove(path)
	}
	return counts, nil
}

// Dir is the directory the counter's dumps go to.
func (c *Counter) Dir() string { return filepath.Dir(c.out) }
