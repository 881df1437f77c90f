package bench

import "encoding/binary"

// memChaseBytes is the size of the memory probe's buffer: well beyond a
// core's L2 cache (1–4 MiB on current x86 and Arm server cores), so its
// loads are served by the shared last-level cache or DRAM — the part of
// the memory system that neighbours on a shared host contend for.
const memChaseBytes = 32 << 20

// memChaseLine is the stride of the chase: one load per cache line.
const memChaseLine = 64

// memChaseSteps is the length of one memory probe run: about a
// millisecond at DRAM latency.
const memChaseSteps = 1 << 13

// memChaseRuns is how many runs one memory probe times; it records the
// fastest, as the arithmetic probe does.
const memChaseRuns = 3

// A memChase is a buffer laid out as one random cycle through all of its
// cache lines: the first 4 bytes of line i hold the index of the line
// visited after i. Following the cycle is a chain of dependent loads the
// prefetchers cannot predict, so its time is the memory system's latency.
type memChase struct {
	buf   []byte
	free  func() error
	pos   uint32
	lines uint32
}

// newMemChase maps the buffer outside the Go heap (so that it does not
// change the garbage collector's pacing of the cases measured) and links
// its lines into one cycle with Sattolo's algorithm and a fixed seed. It
// returns nil where anonymous memory cannot be mapped.
func newMemChase() *memChase {
	buf, free, err := mapAnon(memChaseBytes)
	if err != nil {
		return nil
	}
	m := &memChase{buf: buf, free: free, lines: uint32(len(buf) / memChaseLine)}
	for i := uint32(0); i < m.lines; i++ {
		m.set(i, i)
	}
	x := uint64(0x9e3779b97f4a7c15)
	for i := m.lines - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := uint32(x % uint64(i)) // j < i: one cycle (Sattolo)
		a, b := m.next(i), m.next(j)
		m.set(i, b)
		m.set(j, a)
	}
	return m
}

func (m *memChase) next(i uint32) uint32 {
	o := int(i) * memChaseLine
	return binary.LittleEndian.Uint32(m.buf[o : o+4])
}

func (m *memChase) set(i, v uint32) {
	o := int(i) * memChaseLine
	binary.LittleEndian.PutUint32(m.buf[o:o+4], v)
}

// run follows n links from where the last run stopped.
func (m *memChase) run(n int) {
	p := m.pos
	for range n {
		p = m.next(p)
	}
	m.pos = p
}

// close unmaps the buffer.
func (m *memChase) close() error {
	if m == nil || m.free == nil {
		return nil
	}
	err := m.free()
	m.buf, m.free = nil, nil
	return err
}
