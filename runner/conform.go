package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/digest"
)

// Problem is one way a runner departs from the protocol: the case (or
// "hello", "run") and what is wrong, in one line.
type Problem struct {
	Case string
	What string
	// Refused is set for an error line: the protocol's way for a subject
	// to say it cannot measure a case (a dataset its classes do not fit,
	// a codec it cannot apply). It is not a departure from the protocol,
	// and Conform lists such lines once per subject and message.
	Refused bool
}

func (p Problem) String() string { return p.Case + ": " + p.What }

// checkUnknownOp is the op of the case Conform sends to see that a
// runner refuses an op it does not know with an error line and goes on.
const checkUnknownOp = "serbench-check-unknown-op"

// Conform drives r through every message of the protocol on ds: its
// hello, then one run with, for every subject it announces, an encode and
// a decode without a codec and with each codec it names, a copy limit
// row, and one case of an op no runner knows (which must get an error
// line, not a crash). Work directories go under dir. It returns the hello
// (nil when there is none) and the problems, none when r conforms: a
// wrong digest names the first column that differs and, found by running
// the subject again on shorter prefixes of the rows, the first row.
func Conform(ctx context.Context, r *Runner, dir string, ds *Dataset) (*Hello, []Problem, error) {
	own := *r
	own.keep = true // every line is checked against the protocol's schema
	r = &own
	h, err := r.Hello(ctx)
	if err != nil {
		return nil, []Problem{{Case: "hello", What: err.Error()}}, nil
	}
	var probs []Problem
	add := func(c, format string, args ...any) {
		probs = append(probs, Problem{Case: c, What: fmt.Sprintf(format, args...)})
	}
	if h.Runner == "" || h.Language == "" {
		add("hello", "the hello line needs runner and language (got %q, %q)", h.Runner, h.Language)
	}
	if len(h.Subjects) == 0 {
		add("hello", "the hello line announces no subject")
	}
	schema, recs, err := ds.Build()
	if err != nil {
		return h, nil, fmt.Errorf("runner check dataset: %w", err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	want, err := digest.Batches(schema, recs...)
	if err != nil {
		return h, nil, err
	}
	var cases []Case
	seen := map[string]bool{}
	for _, s := range h.Subjects {
		if s.Name == "" || seen[s.Name] {
			add("hello", "a subject without a name, or two called %q", s.Name)
			continue
		}
		seen[s.Name] = true
		for _, op := range s.Ops {
			if !slices.Contains([]string{OpEncode, OpDecode, OpQuery, OpExport, OpImport}, op) {
				add("hello", "subject %s announces op %q (valid: encode, decode, query, export, import)", s.Name, op)
			}
		}
		for _, op := range []string{OpEncode, OpDecode} {
			if !slices.Contains(s.Ops, op) {
				continue
			}
			codecs := []string{"none"}
			for _, c := range s.Codecs {
				if c != "" && !slices.Contains(codecs, c) {
					codecs = append(codecs, c)
				}
			}
			for _, c := range codecs {
				id := fmt.Sprintf("check/%s/%s/%s", s.Name, op, c)
				cases = append(cases, Case{ID: id, Group: id, Subject: s.Name, Role: "subject", Op: op, Dataset: ds.Name,
					Size: ds.Rows, Codec: c, Count: 2, MinCount: 1, BudgetNs: int64(200 * time.Millisecond), PerRound: 1})
				if op == OpDecode && c == "none" {
					cases = append(cases, Case{ID: id + "/copy", Group: id, Subject: "copy", Role: "limit", Op: OpCopy, Dataset: ds.Name,
						Size: ds.Rows, Codec: c, Count: 2, MinCount: 1, BudgetNs: int64(200 * time.Millisecond), PerRound: 1, LimitOf: id})
				}
			}
		}
	}
	if len(h.Subjects) > 0 {
		s := h.Subjects[0].Name
		cases = append(cases, Case{ID: "check/unknown-op", Group: "check/unknown-op", Subject: s, Role: "subject", Op: checkUnknownOp,
			Dataset: ds.Name, Size: ds.Rows, Count: 1, MinCount: 1})
	}
	inv, err := r.conformRun(ctx, filepath.Join(dir, "work"), h, ds.Name, schema, recs, cases)
	if err != nil {
		return h, probs, err
	}
	for i, l := range inv.lines {
		if err := Validate("line", l); err != nil {
			add("run", "line %d %.80q %v", i+1, l, err)
		}
	}
	if inv.fatal != "" {
		add("run", "%s", inv.fatal)
	}
	if !inv.end && inv.fatal == "" {
		add("run", "%s", inv.failure())
	}
	if inv.exit != nil && inv.end {
		add("run", "exited with %v after its end line (want 0)", inv.exit)
	}
	refused := map[[2]string][]string{}
	var order [][2]string
	for _, c := range cases {
		msg, erred := inv.errs[c.ID]
		if k := [2]string{c.Subject, msg}; erred && c.Op != checkUnknownOp && refused[k] == nil {
			order = append(order, k)
		}
		v := inv.verify[c.ID]
		switch {
		case c.Op == checkUnknownOp:
			if !erred {
				add(c.ID, "an unknown op got no error line (want {\"type\":\"error\",\"case\":%q,\"phase\":\"setup\",…} and the next case)", c.ID)
			}
			continue
		case erred:
			refused[[2]string{c.Subject, msg}] = append(refused[[2]string{c.Subject, msg}], c.ID)
			continue
		case v == nil:
			if inv.end {
				add(c.ID, "no verify line")
			}
			continue
		case !*v.OK:
			add(c.ID, "verify ok:false: %s", v.Reason)
			continue
		}
		if c.Op != OpCopy {
			switch {
			case v.Digest == nil:
				add(c.ID, "verify line without a digest")
			default:
				if err := digest.Diff(want, *v.Digest); err != nil {
					add(c.ID, "wrong digest: %v%s", err, r.firstRow(ctx, dir, h, ds.Name, schema, recs, c, want))
				}
			}
			if v.EncodedBytes <= 0 {
				add(c.ID, "verify line without encoded_bytes > 0")
			}
		}
		n := len(inv.samples[c.ID])
		switch {
		case n < max(c.MinCount, 1):
			add(c.ID, "%d sample lines, want at least min_count %d", n, max(c.MinCount, 1))
		case n > c.Count:
			add(c.ID, "%d sample lines, want at most count %d", n, c.Count)
		}
	}
	for _, k := range order {
		ids := refused[k]
		what := "error line: " + k[1]
		if len(ids) > 1 {
			what = fmt.Sprintf("error line in %d cases: %s", len(ids), k[1])
		}
		probs = append(probs, Problem{Case: ids[0], What: what, Refused: true})
	}
	return h, probs, nil
}

// conformRun writes a work directory under work for cases on the rows
// recs and runs r there once.
func (r *Runner) conformRun(ctx context.Context, work string, h *Hello, name string, schema *arrow.Schema, recs []arrow.RecordBatch, cases []Case) (*invocation, error) {
	abs, err := filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, "tmp"), 0o755); err != nil {
		return nil, err
	}
	if err := WriteDataset(filepath.Join(abs, "datasets", name), schema, recs, h.WantsJSONL()); err != nil {
		return nil, err
	}
	settings := Settings{Protocol: Protocol, RunID: "check", BenchtimeNs: int64(time.Millisecond), MaxIters: 1 << 20, Count: 2, Seed: 1}
	if err := writeWork(abs, settings, cases); err != nil {
		return nil, err
	}
	return r.invoke(ctx, abs, []string{"run", "--protocol", strconv.Itoa(Protocol), "--work", abs}, nil)
}

// firstRow finds, for a case whose digest differs, the first row whose
// value it gets wrong: the shortest prefix of the rows whose digest
// differs ends with it (a binary search over prefixes, one run of the
// case each). It returns "" when the runner cannot be run on a prefix.
func (r *Runner) firstRow(ctx context.Context, dir string, h *Hello, name string, schema *arrow.Schema, recs []arrow.RecordBatch, c Case, want digest.Result) string {
	rows := 0
	for _, rec := range recs {
		rows += int(rec.NumRows())
	}
	differs := func(n int) (bool, bool) {
		prefix := slicePrefix(recs, n)
		defer func() {
			for _, p := range prefix {
				p.Release()
			}
		}()
		w, err := digest.Batches(schema, prefix...)
		if err != nil {
			return false, false
		}
		one := c
		one.Count, one.MinCount, one.Size = 1, 1, n
		inv, err := r.conformRun(ctx, filepath.Join(dir, "prefix"), h, name, schema, prefix, []Case{one})
		if err != nil {
			return false, false
		}
		v := inv.verify[c.ID]
		if v == nil || v.Digest == nil || !*v.OK {
			return false, false
		}
		return digest.Diff(w, *v.Digest) != nil, true
	}
	lo, hi := 0, rows // the prefix of lo rows agrees, of hi differs
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		d, ok := differs(mid)
		if !ok {
			return ""
		}
		if d {
			hi = mid
		} else {
			lo = mid
		}
	}
	return fmt.Sprintf("; first differing row: %d (0-based, of %d)", hi-1, rows)
}

// slicePrefix is the first n rows of recs as record batches (retained
// slices: release them).
func slicePrefix(recs []arrow.RecordBatch, n int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for _, rec := range recs {
		if n <= 0 {
			break
		}
		k := min(n, int(rec.NumRows()))
		out = append(out, rec.NewSlice(0, int64(k)))
		n -= k
	}
	return out
}
