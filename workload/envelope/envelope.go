// Package envelope is the envelope workload (seed 002, "Faster Protocol
// Buffer Serialization"): an event with a small routing header and a
// payload of 8 B to 5 MB, encoded as one flat message or as an outer
// message wrapping the marshalled rest, by protobuf, vtprotobuf,
// FlatBuffers and msgp. It measures marshal, full unmarshal and the
// header-only read, and reports where flat overtakes wrapped.
package envelope

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/envelope/envelopefmt"
)

// Name is the workload's CLI name.
const Name = "envelope"

// Seed makes the generated envelopes identical on every machine.
const Seed = 0x5eed002

// MetricSerialized is the per-case metric holding the length of the
// encoded envelope in bytes.
const MetricSerialized = "serialized-B"

// The measured operations (values of the "op" label).
const (
	// OpMarshal encodes into a newly allocated buffer.
	OpMarshal = "marshal"
	// OpMarshalReuse encodes into a buffer reused across calls.
	OpMarshalReuse = "marshal-reuse"
	// OpUnmarshal fully decodes into a fresh message (outer and inner
	// message for wrapped layouts).
	OpUnmarshal = "unmarshal"
	// OpHeader reads only id, topic_id, geography and publisher.
	OpHeader = "header"
)

// namedOps are measured at the seed's named sizes; sweepOps over the
// power-of-two sweep, where buffer reuse adds little and costs time.
var (
	namedOps = [...]string{OpMarshal, OpMarshalReuse, OpUnmarshal, OpHeader}
	sweepOps = [...]string{OpMarshal, OpUnmarshal, OpHeader}
)

// Workload is the envelope workload.
type Workload struct {
	reg *subject.Registry // nil: the built-in subjects
}

// New returns the envelope workload measuring its built-in subjects.
func New() *Workload { return &Workload{} }

// WithSubjects sets the registry whose envelope subjects the workload measures
// (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// Register adds the built-in subjects (envelopefmt.Subjects) to r.
func Register(r *subject.Registry) error { return subject.Add(r, Name, envelopefmt.Subjects()...) }

// subjects returns the subjects the workload measures.
func (w *Workload) subjects() ([]envelopefmt.Subject, error) {
	return subject.Of(w.reg, Name, envelopefmt.Subjects)
}

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "flat vs wrapped event envelope (seed 002): protobuf, vtprotobuf, FlatBuffers, msgp; marshal, unmarshal, header-only read, 8 B–5 MB payloads"
}

// Subjects implements workload.Workload: the dataset's subjects, named as
// in case labels ("protobuf-flat").
func (w *Workload) Subjects() []string {
	ss, _ := w.subjects()
	return subject.Names(ss)
}

// sizes are the payloads of one scale: the seed's named sizes and the
// power-of-two sweep.
type sizes struct{ named, sweep []ds.Size }

// scales is the workload's scale table: quick measures Tiny and Large and
// four sweep sizes; default and full every named size and the whole sweep.
func scales() workload.ScaleTable[sizes] {
	pick := func(all []ds.Size, keep func(ds.Size) bool) []ds.Size {
		var out []ds.Size
		for _, z := range all {
			if keep(z) {
				out = append(out, z)
			}
		}
		return out
	}
	quick := sizes{
		named: pick(ds.NamedSizes(), func(z ds.Size) bool { return z.Name == "Tiny" || z.Name == "Large" }),
		sweep: pick(ds.SweepSizes(), func(z ds.Size) bool {
			return z.Bytes == 8 || z.Bytes == 1<<10 || z.Bytes == 64<<10 || z.Bytes == 1<<20
		}),
	}
	all := sizes{named: ds.NamedSizes(), sweep: ds.SweepSizes()}
	return workload.ScaleTable[sizes]{Quick: quick, Default: all, Full: all,
		Describe: func(z sizes) string {
			var names []string
			for _, n := range z.named {
				names = append(names, n.Name)
			}
			return fmt.Sprintf("%s + %d sweep sizes", strings.Join(names, ", "), len(z.sweep))
		}}
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

// NamedSizes returns the seed's named payload sizes measured at scale s.
func NamedSizes(s workload.Scale) []ds.Size { return scales().At(s).named }

// SweepSizes returns the power-of-two payload sizes measured at scale s.
// Plan skips a sweep size equal to a named size of the same scale (1 KiB is
// Tiny, 4 KiB XSmall …): the named case stands for it.
func SweepSizes(s workload.Scale) []ds.Size { return scales().At(s).sweep }

// Plan implements workload.Workload. Cases are ordered by size, then op;
// the subjects of one size and op form a comparison group, sampled
// round-robin with the baseline (protobuf-flat). Each size's envelope is
// generated once, in the Setup of its first case. Subjects may be selected
// by name ("protobuf-flat") or written library/layout ("protobuf/flat");
// selecting none of this workload's yields no case.
func (w *Workload) Plan(_ context.Context, cfg workload.Config) (*workload.Plan, error) {
	var (
		subjects []envelopefmt.Subject
		descs    []results.Descriptor
	)
	all, err := w.subjects()
	if err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	for _, s := range all {
		if wantSubject(cfg, s.Name()) {
			subjects = append(subjects, s)
			descs = append(descs, s.Describe(Name))
		}
	}
	data := newDataCache()
	var cases []bench.Case
	named := map[int]bool{}
	for _, z := range NamedSizes(cfg.Scale) {
		named[z.Bytes] = true
		for _, op := range namedOps {
			for _, s := range subjects {
				cases = append(cases, newCase(data, s, z, op))
			}
		}
	}
	for _, z := range SweepSizes(cfg.Scale) {
		if named[z.Bytes] {
			continue
		}
		for _, op := range sweepOps {
			for _, s := range subjects {
				cases = append(cases, newCase(data, s, z, op))
			}
		}
	}
	// Envelope needs nothing but the scale and subjects and sets up in
	// milliseconds, so it forks cheaply. Four processes, as features: the
	// large messages' times move with where a process's heap placed their
	// buffers (two back-to-back default runs in one process each: the
	// wrapped header of 2 MiB +41% and +59%, every sample tight), which
	// only a comparison of processes can tell from a change.
	return &workload.Plan{Cases: cases, Descriptors: descs, Forks: 4}, nil
}

// dataCache generates the envelope of the payload size the current
// groups use; every subject reads the same envelope and none modifies it.
// Cases are planned size by size, so it keeps only the latest envelope:
// the live heap stays that of one size instead of growing with every
// size measured, and the GC before each sample costs the same throughout.
type dataCache struct {
	mu   sync.Mutex
	size int
	env  *ds.Envelope
}

func newDataCache() *dataCache { return &dataCache{} }

func (c *dataCache) get(size int) (*ds.Envelope, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.env != nil && c.size == size {
		return c.env, nil
	}
	c.env = nil // let the previous envelope go before generating
	e, err := ds.New(Seed, size)
	if err != nil {
		return nil, fmt.Errorf("generate %d-byte envelope: %w", size, err)
	}
	c.size, c.env = size, e
	return e, nil
}

// noteOuterOnly is attached to the header cases of the subjects whose
// header-only read unmarshals the outer message only; the report finds
// them by it.
const noteOuterOnly = "header = outer-only unmarshal (the seed's WrappedUnmarshal)"

func newCase(data *dataCache, s envelopefmt.Subject, z ds.Size, op string) bench.Case {
	var (
		src *ds.Envelope
		p   envelopefmt.Prepared
	)
	c := bench.Case{
		Workload: Name,
		Name:     "Envelope",
		Labels: results.Labels{
			{Key: LabelSubject, Value: s.Name()},
			{Key: "size", Value: z.Name},
			{Key: "bytes", Value: strconv.Itoa(z.Bytes)},
			{Key: "op", Value: op},
		},
		Role: s.Desc.Role,
		// The subjects of one payload size and op are the columns of one
		// table row: they are sampled round-robin with the baseline.
		Group:   z.Name + "/" + op,
		Bytes:   int64(z.Bytes),
		Metrics: map[string]float64{},
	}
	if op == OpHeader && outerOnly(s) {
		c.Notes = []string{noteOuterOnly}
	}
	c.Setup = func() error {
		var err error
		if src, err = data.get(z.Bytes); err != nil {
			return err
		}
		if p, err = s.Bind(src); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		return nil
	}
	// Teardown drops the prepared messages and buffers: a plan holds its
	// cases until the run ends, and at 5 MB each they add up.
	c.Teardown = func() { p, src = nil, nil }
	c.Verify = func() error {
		if err := p.Verify(); err != nil {
			return err
		}
		h, err := p.ReadHeader(p.Encoded())
		if err != nil {
			return fmt.Errorf("read header of the prepared encoding: %w", err)
		}
		if err := src.Header().Compare(h); err != nil {
			return fmt.Errorf("header of the prepared encoding differs from the source: %w", err)
		}
		c.Metrics[MetricSerialized] = float64(len(p.Encoded()))
		return nil
	}
	size := int64(z.Bytes)
	switch op {
	case OpMarshal:
		c.Run = func(b *bench.B) error {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				if _, err := p.Marshal(); err != nil {
					return err
				}
			}
			return nil
		}
	case OpMarshalReuse:
		c.Run = func(b *bench.B) error {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				if _, err := p.MarshalReuse(); err != nil {
					return err
				}
			}
			return nil
		}
	case OpUnmarshal:
		c.Run = func(b *bench.B) error {
			b.SetBytes(size)
			enc := p.Encoded()
			for i := 0; i < b.N; i++ {
				if err := p.Unmarshal(enc); err != nil {
					return err
				}
			}
			return nil
		}
	case OpHeader:
		c.Run = func(b *bench.B) error {
			b.SetBytes(size)
			enc := p.Encoded()
			var h ds.Header
			for i := 0; i < b.N; i++ {
				var err error
				if h, err = p.ReadHeader(enc); err != nil {
					return err
				}
			}
			if h.ID == "" {
				return errors.New("header read returned an empty id")
			}
			return nil
		}
	}
	return c
}
