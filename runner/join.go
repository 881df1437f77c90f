package runner

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
)

// Want is one comparison group a workload asks every runner to measure:
// the runner's subjects that can do Op with Codec (and Accept, when set)
// on Dataset, and a limit row copying the encoded bytes.
type Want struct {
	Dataset *Dataset
	Op      string
	// Codec is "none" or a protocol codec ("zstd:3").
	Codec string
	// Query is comma-separated leaf paths for OpQuery.
	Query string
	// Group is the workload's group name; each runner's cases form the
	// group Group + "/" + its language.
	Group string
	// Labels returns a case's labels for its subject name and what the
	// runner announced of it (nil for the limit row); the runner's
	// language is added.
	Labels func(subject string, s *Subject) results.Labels
	// Metrics are fixed per-case values (a record count).
	Metrics  map[string]float64
	Affinity string
	OpTime   time.Duration
	Count    int
	Budget   time.Duration
	MinCount int
	// Accept, when set, chooses the subjects that join.
	Accept func(s *Subject) bool
	// NoLimit leaves out the copy limit row (an encode's group, whose
	// floor copying the encoded bytes is not).
	NoLimit bool
}

// Join turns what a workload wants measured into the cases and
// descriptors of every ready runner. Subjects are named language:name
// ("java:jackson-json"), so they never collide with Go subjects, and the
// cases carry the label language. Dir holds the runners' datasets and
// work directories; SizeMetric names the metric the encoded size goes to.
func Join(workload, name, dir, sizeMetric string, ready []Ready, wants []Want) ([]bench.Case, []results.Descriptor) {
	var cases []bench.Case
	var descs []results.Descriptor
	described := map[string]bool{}
	for _, rd := range ready {
		h := rd.Hello
		g := &Group{Runner: rd.Runner, Dir: filepath.Join(dir, "runner-"+rd.Runner.Name), Datasets: map[string]*Dataset{}, Cases: map[string]Case{}, SizeMetric: sizeMetric, JSONL: rd.Hello.WantsJSONL()}
		describe := func(d results.Descriptor) {
			if !described[d.Name] {
				described[d.Name] = true
				d.Workload = workload
				descs = append(descs, d)
			}
		}
		for _, w := range wants {
			g.Datasets[w.Dataset.Name] = w.Dataset
			group := w.Group + "/" + h.Language
			var first string
			add := func(subject, role string, s *Subject, spec Case) {
				ls := append(slices.Clone(w.Labels(subject, s)), results.Label{Key: "language", Value: h.Language})
				if s != nil {
					ls = withOp(ls, Operation(w.Op, s))
				}
				c := bench.Case{Workload: workload, Name: name, Labels: ls, Role: role, Group: group, Affinity: w.Affinity,
					Metrics: copyMetrics(w.Metrics), OpTime: w.OpTime, Count: w.Count, Budget: w.Budget, MinCount: w.MinCount, Remote: g}
				spec.ID, spec.Group, spec.Role, spec.Dataset, spec.Size = c.FullName(), group, role, w.Dataset.Name, w.Dataset.Rows
				g.Cases[c.FullName()] = spec
				cases = append(cases, c)
			}
			for i := range h.Subjects {
				s := &h.Subjects[i]
				if !slices.Contains(s.Ops, w.Op) || !hasCodec(s.Codecs, w.Codec) || (w.Accept != nil && !w.Accept(s)) ||
					(w.Dataset.Nested && s.Labels[LabelNesting] == NestingFlat) || !givenFits(s, w.Dataset) {
					continue
				}
				subject := h.Language + ":" + s.Name
				add(subject, results.RoleSubject, s, Case{Subject: s.Name, Op: w.Op, Codec: w.Codec, Query: w.Query})
				describe(subjectDescriptor(h, s, subject))
				if first == "" {
					first = g.Cases[cases[len(cases)-1].FullName()].ID
				}
			}
			if first != "" && !w.NoLimit {
				limit := h.Language + ":copy"
				add(limit, results.RoleLimit, nil, Case{Subject: "copy", Op: OpCopy, Codec: w.Codec, LimitOf: first})
				describe(results.Descriptor{Key: "subject", Name: limit, Role: results.RoleLimit,
					What:     fmt.Sprintf("limit row: copies the encoded bytes of the group's first subject into a preallocated buffer in %s, the least work any decode of them does", runtimeOf(h)),
					Settings: map[string]string{"language": h.Language, "runtime": runtimeOf(h)}, Tags: []string{h.Language}})
			}
		}
	}
	return cases, descs
}

// Operation is what a runner's subject s measures for protocol op op, in
// the shared vocabulary (results.OpEncode, OpDecode, OpOpen): encode is
// encode; a decode or query is a decode when it visits every value and an
// open when the subject announces a zero-copy view (labels zero_copy=yes)
// without saying it visits every value (read=every value, as rkyv's
// validated access does). A runner decodes from memory, so its ops are
// never a file's write or read.
func Operation(op string, s *Subject) string {
	switch op {
	case OpEncode:
		return results.OpEncode
	case OpDecode, OpQuery:
		if s.Labels["zero_copy"] == "yes" && s.Labels["read"] != "every value" {
			return results.OpOpen
		}
		return results.OpDecode
	}
	return op
}

// withOp is ls with its op label set to op (added when it has none).
func withOp(ls results.Labels, op string) results.Labels {
	for i := range ls {
		if ls[i].Key == results.OpLabel {
			ls[i].Value = op
			return ls
		}
	}
	return append(ls, results.Label{Key: results.OpLabel, Value: op})
}

// LabelNesting is the subject label (hello's subjects[].labels) saying
// which schemas a subject holds; NestingFlat: only flat ones, whose
// columns are all scalar (a CSV library). Join does not send such a
// subject a Dataset marked Nested.
const (
	LabelNesting = "nesting"
	NestingFlat  = "flat"
)

// NestedSchema reports whether a schema has a list, struct or map column
// (a Dataset's Nested).
func NestedSchema(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		t := f.Type
		if e, ok := t.(arrow.ExtensionType); ok {
			t = e.StorageType()
		}
		if _, ok := t.(arrow.NestedType); ok {
			return true
		}
	}
	return false
}

// hasCodec reports whether a subject announcing codecs takes c: hello
// lists a codec by name or at example levels ("zstd:3"), and a runner
// parses any level of a codec it names.
func hasCodec(codecs []string, c string) bool {
	name := codecName(c)
	// "zstd:3" announces that level only; "zstd" any level of it.
	return slices.ContainsFunc(codecs, func(a string) bool { return a == c || !strings.Contains(a, ":") && a == name })
}

// codecName is a protocol codec's name without its level ("zstd:3" →
// "zstd"), as hello lists them.
func codecName(c string) string {
	if c == "" {
		return "none"
	}
	name, _, _ := strings.Cut(c, ":")
	return name
}

func runtimeOf(h *Hello) string { return strings.TrimSpace(h.Runtime + " " + h.RuntimeVersion) }

// subjectDescriptor says what a runner's subject is, from its hello: the
// library and version it resolved, the runtime and its flags, the
// fairness labels.
func subjectDescriptor(h *Hello, s *Subject, name string) results.Descriptor {
	settings := map[string]string{"language": h.Language, "runtime": runtimeOf(h), "allocations": h.Alloc}
	if len(h.VMFlags) > 0 {
		settings["vm_flags"] = strings.Join(h.VMFlags, " ")
	}
	if s.CodecLibrary != "" {
		settings["codec_library"] = s.CodecLibrary
	}
	for k, v := range s.Labels {
		settings[k] = v
	}
	// What each of its ops means, in the vocabulary every language shares.
	var ops []string
	for _, op := range []string{OpEncode, OpDecode} {
		if slices.Contains(s.Ops, op) {
			o := Operation(op, s)
			ops = append(ops, o+": "+results.OpMeaning(o))
		}
	}
	if len(ops) > 0 {
		settings["operations"] = strings.Join(ops, "; ")
	}
	return results.Descriptor{Key: "subject", Name: name, Role: results.RoleSubject,
		What:   fmt.Sprintf("%s through %s in %s (the %s runner)", s.Format, s.Library, runtimeOf(h), h.Runner),
		Module: s.Library, Version: s.Version, Settings: settings, Tags: []string{h.Language, s.Format}}
}

// givenFits reports whether a subject may be sent d: a subject labelled
// given=KIND (LabelGiven) only a dataset with a given schema of that kind,
// every other subject every dataset.
func givenFits(s *Subject, d *Dataset) bool {
	k := s.Labels[LabelGiven]
	return k == "" || (d.Given != nil && d.Given.Kind == k)
}
