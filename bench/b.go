// Package bench is serbench's measurement engine. It calibrates the number
// of iterations per sample, warms up, takes N samples with a GC before
// each, and accounts ns/op, B/op and allocs/op the way testing.B does.
// Every case is verified before it is timed; a case that fails
// verification is recorded as failed, never timed.
package bench

import (
	"runtime"
	"time"

	"github.com/serbench/serbench/callgrind"
)

// B is handed to a case's Run function: run the operation B.N times. It
// mirrors the subset of testing.B that a serialization benchmark needs.
type B struct {
	// N is the number of iterations to run.
	N int

	timerOn   bool
	start     time.Time
	duration  time.Duration
	startAllc uint64
	startByte uint64
	netAllocs uint64
	netBytes  uint64
	metrics   map[string]float64
	bytes     int64
	ms        runtime.MemStats
	// counter, when set, counts instructions where the timer runs (Count).
	counter *callgrind.Counter
}

// SetBytes records the number of bytes processed by one op; reports
// derive MB/s from it, as with testing.B.SetBytes.
func (b *B) SetBytes(n int64) { b.bytes = n }

// StartTimer starts timing (and allocation accounting). It is called
// automatically before Run; use it after StopTimer.
func (b *B) StartTimer() {
	if b.timerOn {
		return
	}
	runtime.ReadMemStats(&b.ms)
	b.startAllc = b.ms.Mallocs
	b.startByte = b.ms.TotalAlloc
	b.start = time.Now()
	b.timerOn = true
	if b.counter != nil {
		b.counter.Resume()
	}
}

// StopTimer stops timing, e.g. around per-iteration cleanup that must not
// be measured.
func (b *B) StopTimer() {
	if !b.timerOn {
		return
	}
	if b.counter != nil {
		b.counter.Pause()
	}
	b.duration += time.Since(b.start)
	runtime.ReadMemStats(&b.ms)
	b.netAllocs += b.ms.Mallocs - b.startAllc
	b.netBytes += b.ms.TotalAlloc - b.startByte
	b.timerOn = false
}

// ResetTimer zeroes the elapsed time and allocation counters.
func (b *B) ResetTimer() {
	if b.counter != nil && b.timerOn {
		b.counter.Begin()
	}
	if b.timerOn {
		runtime.ReadMemStats(&b.ms)
		b.startAllc = b.ms.Mallocs
		b.startByte = b.ms.TotalAlloc
		b.start = time.Now()
	}
	b.duration = 0
	b.netAllocs = 0
	b.netBytes = 0
}

// ReportMetric records a per-op value for this sample under unit (for
// example "peak-heap-B" or "server-cpu-s"). Later reports of the same unit
// replace earlier ones.
func (b *B) ReportMetric(value float64, unit string) {
	if b.metrics == nil {
		b.metrics = map[string]float64{}
	}
	b.metrics[unit] = value
}

func (b *B) reset(n int) {
	*b = B{N: n, counter: b.counter}
}
