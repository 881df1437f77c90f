package filebench

import (
	"runtime/metrics"
	"sync"
	"time"
)

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

func readHeap(s []metrics.Sample) uint64 {
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// startHeapSampler samples the heap every interval (0 = default, < 0 = off)
// on its own goroutine until the returned function is called. runtime/metrics
// reads do not stop the world, so sampling costs microseconds per sample.
func startHeapSampler(interval time.Duration) func() HeapStats {
	if interval < 0 {
		return func() HeapStats { return HeapStats{} }
	}
	if interval == 0 {
		interval = DefaultHeapSampleInterval
	}
	s := []metrics.Sample{{Name: heapMetric}}
	h := HeapStats{Start: readHeap(s), Samples: 1}
	h.Peak = h.Start
	var mu sync.Mutex
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		local := []metrics.Sample{{Name: heapMetric}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := readHeap(local)
				mu.Lock()
				h.Samples++
				h.Peak = max(h.Peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() HeapStats {
		close(done)
		<-finished
		v := readHeap(s)
		mu.Lock()
		defer mu.Unlock()
		h.Samples++
		h.Peak = max(h.Peak, v)
		return h
	}
}
