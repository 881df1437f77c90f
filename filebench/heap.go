package filebench

import "runtime/metrics"

// HeapStats is the heap in use (bytes of live and not-yet-swept objects,
// runtime/metrics "/memory/classes/heap/objects:bytes") sampled during an
// operation.
type HeapStats struct {
	// Start is the heap in use when the operation began.
	Start uint64
	// Peak is the largest sample, Start and the final sample included.
	Peak uint64
	// Samples is the number of samples taken (0 when sampling is off).
	Samples int
}

// PeakDelta is the growth of the heap over its starting level at the peak.
func (h HeapStats) PeakDelta() uint64 {
	if h.Peak < h.Start {
		return 0
	}
	return h.Peak - h.Start
}

const heapMetric = "/memory/classes/heap/objects:bytes"

// heapSampler samples the heap on the operation's own goroutine: the
// pipeline calls sample every SampleEvery records (every buffer for the
// limit operations) and after each stage. A sampler goroutine on a timer
// would have to be scheduled against the operation itself whenever the
// operation keeps every core busy (an encoder plus a concurrent
// compressor on two cores), and that cost showed up in the timings. Heap in
// use only grows between collections, so a sample every few hundred
// kilobytes of output misses little of a peak. A nil *heapSampler is off.
type heapSampler struct {
	s []metrics.Sample
	h HeapStats
}

// newHeapSampler returns a started sampler, or nil when off.
func newHeapSampler(off bool) *heapSampler {
	if off {
		return nil
	}
	hs := &heapSampler{s: []metrics.Sample{{Name: heapMetric}}}
	hs.h.Start = hs.read()
	hs.h.Peak = hs.h.Start
	hs.h.Samples = 1
	return hs
}

func (hs *heapSampler) read() uint64 {
	metrics.Read(hs.s)
	if hs.s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return hs.s[0].Value.Uint64()
}

// sample records the heap in use now.
func (hs *heapSampler) sample() {
	if hs == nil {
		return
	}
	hs.h.Peak = max(hs.h.Peak, hs.read())
	hs.h.Samples++
}

// stats takes a final sample and returns the statistics.
func (hs *heapSampler) stats() HeapStats {
	if hs == nil {
		return HeapStats{}
	}
	hs.sample()
	return hs.h
}
