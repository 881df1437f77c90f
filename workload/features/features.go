// Package features is the features workload (seed 000): feature-store
// blocks of N features of one data type, encoded and decoded by psdb,
// protobuf, Arrow IPC, FlatBuffers and a limit row per type (the least work
// any codec of that input and output must do).
package features

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
)

// Name is the workload's CLI name.
const Name = "features"

// Seed makes the generated values identical on every machine.
const Seed = 0x5eed000

// Metric names recorded per case.
const (
	MetricSerialized = "serialized-B"
	MetricRaw        = "raw-B"
)

// Workload is the features workload.
type Workload struct {
	reg *subject.Registry // nil: the built-in subjects
}

// New returns the features workload measuring its built-in subjects.
func New() *Workload { return &Workload{} }

// WithSubjects sets the registry whose features subjects the workload measures
// (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// Subject is the shape of a features subject: bound to one input's data,
// it returns the Serializer the workload times.
type Subject = subject.Subject[*ds.Data, Serializer]

// Register adds the built-in subjects to r.
func Register(r *subject.Registry) error { return subject.Add(r, Name, builtin()...) }

// subjects returns the subjects the workload measures.
func (w *Workload) subjects() ([]Subject, error) { return subject.Of(w.reg, Name, builtin) }

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "feature-store blocks (seed 000): psdb vs proto3 vs Arrow IPC vs FlatBuffers vs each type's limit row, every psdb type (int8–64, uint8–64, fp8, fp16, fp32, fp64, bool, string, and vectors of 8) × N features"
}

// Subjects implements workload.Workload.
func (w *Workload) Subjects() []string {
	ss, _ := w.subjects()
	return subject.Names(ss)
}

// maxVectorFeatures caps N for vector types (each feature holds 8 values,
// so N = 100,000 is already 800,000 values); the full scale's N = 1,000,000
// measures the scalar types only, keeping the plan's generated data in
// memory bounded.
const maxVectorFeatures = 100_000

// scaleEntry is what one scale measures: the feature counts N per block
// and the types (nil: every type).
type scaleEntry struct {
	sizes []int
	types []ds.Type
}

// quickTypes is the quick scale's representative subset (CI runs it): the
// seed's int32, a narrow float, bool, string and one vector type.
func quickTypes() []ds.Type {
	return []ds.Type{ds.Int32, ds.FP16, ds.Bool, ds.String, ds.Vector(ds.Float32)}
}

// defaultTypes are the seed's int32 and one type of each kind and width
// the encodings treat differently: signed integers of 1, 4 and 8 bytes
// (varints grow with them), an unsigned 8-byte one (no zigzag), the
// 8-bit, 16-bit, 32-bit and 64-bit floats (fixed-width in every format, the
// small ones widened by proto3), bool, string, and the vectors of an
// integer and a float. `full` measures every type and vector.
func defaultTypes() []ds.Type {
	return []ds.Type{ds.Int8, ds.Int32, ds.Int64, ds.Uint64, ds.FP8E4M3, ds.FP16, ds.Float32, ds.Float64, ds.Bool, ds.String,
		ds.Vector(ds.Int32), ds.Vector(ds.Float32)}
}

// scales is the workload's scale table: the feature counts N per block and
// the types measured.
func scales() workload.ScaleTable[scaleEntry] {
	return workload.ScaleTable[scaleEntry]{
		Quick:   scaleEntry{sizes: []int{100, 1_000, 100_000}, types: quickTypes()},
		Default: scaleEntry{sizes: []int{100, 1_000, 10_000, 100_000}, types: defaultTypes()},
		Full:    scaleEntry{sizes: []int{100, 1_000, 10_000, 100_000, 1_000_000}},
		Describe: func(e scaleEntry) string {
			types := fmt.Sprintf("all %d types (%d scalar, their vectors of %d)", len(ds.Types()), len(ds.Scalars()), ds.VecLen)
			if e.types != nil {
				names := make([]string, len(e.types))
				for i, t := range e.types {
					names[i] = string(t)
				}
				types = strings.Join(names, ", ")
			}
			desc := "N = " + joinInts(e.sizes) + "; " + types
			if e.sizes[len(e.sizes)-1] > maxVectorFeatures && (e.types == nil || slices.ContainsFunc(e.types, ds.Type.IsVector)) {
				desc += " (vectors up to N = " + table.Int(maxVectorFeatures) + ")"
			}
			return desc
		},
	}
}

// Sizes returns the feature counts of a scale.
func Sizes(s workload.Scale) []int { return scales().At(s).sizes }

// TypesAt returns the types measured at a scale.
func TypesAt(s workload.Scale) []ds.Type {
	if t := scales().At(s).types; t != nil {
		return t
	}
	return ds.Types()
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = table.Int(float64(n))
	}
	return strings.Join(parts, ", ")
}

// Ops are the measured operations.
var ops = [...]string{"encode", "decode"}

// Plan implements workload.Workload.
func (w *Workload) Plan(_ context.Context, cfg workload.Config) (*workload.Plan, error) {
	data := newDataCache()
	var (
		cases []bench.Case
		descs []results.Descriptor
	)
	ss, err := w.subjects()
	if err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	for _, s := range ss {
		if cfg.WantSubject(s.Name()) {
			descs = append(descs, s.Describe(Name))
		}
	}
	for _, t := range TypesAt(cfg.Scale) {
		for _, n := range Sizes(cfg.Scale) {
			if t.IsVector() && n > maxVectorFeatures {
				continue
			}
			for _, s := range ss {
				if !s.Accepts(string(t)) || !cfg.WantSubject(s.Name()) {
					continue
				}
				for _, op := range ops {
					cases = append(cases, newCase(data, s, t, n, op))
				}
			}
		}
	}
	// Four processes of five samples each: on two back-to-back quick runs
	// compare --normalize marked 15 of 198 rows changed with four forks,
	// 52 of 198 with one process (allocating subjects and buffer
	// alignment moved cases by 15–30%, one by 4×, with the process).
	return &workload.Plan{Cases: cases, Descriptors: descs, Forks: 4}, nil
}

// dataCache generates the (type, N) input the current groups use. Groups
// run in plan order — a type and size's encode group, then its decode
// group — so it keeps only the latest input: the live heap stays that of
// one group rather than growing with every input the run has seen, and
// the GC before each sample (and every GC an allocating subject triggers
// inside a sample) costs the same early and late in the run.
type dataCache struct {
	mu   sync.Mutex
	key  string
	data *ds.Data
}

func newDataCache() *dataCache { return &dataCache{} }

func (c *dataCache) get(t ds.Type, n int) (*ds.Data, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := string(t) + "/" + strconv.Itoa(n)
	if c.data != nil && c.key == key {
		return c.data, nil
	}
	c.key, c.data = "", nil // let the previous input go before generating
	d, err := ds.Generate(t, n, Seed)
	if err != nil {
		return nil, err
	}
	c.key, c.data = key, d
	return d, nil
}

// newCase is subject s's case for op on the type t input of n features.
// Setup binds s to the input (outside timing); Verify round-trips it.
func newCase(data *dataCache, s subject.Subject[*ds.Data, Serializer], t ds.Type, n int, op string) bench.Case {
	var (
		d       *ds.Data
		cd      Serializer
		encoded []byte
	)
	c := bench.Case{
		Workload: Name,
		Name:     "Features",
		Labels: results.Labels{
			{Key: "subject", Value: s.Name()},
			{Key: "type", Value: string(t)},
			{Key: "n", Value: strconv.Itoa(n)},
			{Key: "op", Value: op},
		},
		Role: s.Desc.Role,
		// Every subject of one type, size and op is sampled round-robin
		// with the psdb baseline and the type's limit row.
		Group:   fmt.Sprintf("%s/%d/%s", t, n, op),
		Metrics: map[string]float64{},
	}
	c.Setup = func() error {
		var err error
		if d, err = data.get(t, n); err != nil {
			return err
		}
		if cd, err = s.Bind(d); err != nil {
			return err
		}
		return nil
	}
	// Teardown drops the case's codec, buffers and input once its group
	// is measured, so that they do not stay live for the rest of the run.
	c.Teardown = func() { d, cd, encoded = nil, nil, nil }
	// Verify encodes, decodes a private copy and compares every value
	// with the source; the decode case then times decoding that copy.
	c.Verify = func() error {
		b, err := cd.Encode()
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		encoded = pageAligned(len(b))
		copy(encoded, b)
		if err := cd.Decode(encoded); err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		if err := d.Check(cd.Out()); err != nil {
			return fmt.Errorf("round trip: %w", err)
		}
		c.Metrics[MetricSerialized] = float64(len(encoded))
		c.Metrics[MetricRaw] = float64(len(d.Raw))
		return nil
	}
	if op == "encode" {
		c.Run = func(b *bench.B) error {
			b.SetBytes(int64(len(d.Raw)))
			for i := 0; i < b.N; i++ {
				if _, err := cd.Encode(); err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		c.Run = func(b *bench.B) error {
			b.SetBytes(int64(len(d.Raw)))
			for i := 0; i < b.N; i++ {
				if err := cd.Decode(encoded); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return c
}
