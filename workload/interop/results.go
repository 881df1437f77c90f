package interop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/serbench/serbench/results"
)

// CaseName is the name of the interop cases.
const CaseName = "Interop"

// MetricFileBytes is the metric holding the size of the writer's file.
const MetricFileBytes = "file-B"

// OpInterop is the op label of the interop cases.
const OpInterop = results.OpInterop

// LabelReads is the label saying whether the reader read the writer's file
// to the dataset's digest: ReadsYes, ReadsNo, or ReadsCannotHold when the
// writer or the reader cannot hold the data in the format.
const LabelReads = "reads"

// Values of LabelReads.
const (
	ReadsYes        = "yes"
	ReadsNo         = "no"
	ReadsCannotHold = "cannot-hold"
)

// Subject is the subject of every case of the matrix: the check itself
// (the writers and readers are labels of its cases).
const Subject = "interop"

// Descriptor describes the matrix's subject for a run of workload.
func Descriptor(workload string) results.Descriptor {
	return results.Descriptor{Workload: workload, Key: "subject", Name: Subject, Role: results.RoleSubject,
		What: "who reads whose files: each writer's file (Go's format or a runner subject's export) read by every reader of its format, each read checked against the digest of the rows"}
}

// Labels are a cell's labels as a case of the matrix: subject=interop,
// format, writer, reader, the two languages and op=interop.
func (c Cell) Labels() results.Labels {
	return results.Labels{
		{Key: "subject", Value: Subject},
		{Key: "format", Value: c.Format},
		{Key: "writer", Value: label(c.Writer)},
		{Key: "reader", Value: label(c.Reader)},
		{Key: "writer_language", Value: c.WriterLanguage},
		{Key: "reader_language", Value: c.ReaderLanguage},
		{Key: "op", Value: OpInterop},
	}
}

// Cases returns the matrix as results, one case per cell of workload, with
// the cell's Labels and LabelReads. A cell is a check, not a measurement:
// an ok cell's one sample is the reader's single cold read of the file by
// its own clock (its notes say so), a ✗ cell is a FAILED case whose error
// says why the reader could not read the file; both carry the writer's
// file size as metric file-B. A file one language cannot read is a
// finding of the run, not a failure of serbench: callers that turn FAILED
// cases into an exit status leave op=interop out.
func (m *Matrix) Cases(workload string) []results.Case {
	var out []results.Case
	now := time.Now().UTC()
	for _, c := range m.Cells {
		reads := ReadsNo
		switch {
		case c.Status == OK && c.ReadNs > 0:
			reads = ReadsYes
		case c.Status == CannotHold:
			reads = ReadsCannotHold
		}
		rc := results.Case{
			Kind: results.KindCase, Workload: workload, Name: CaseName,
			Labels: append(c.Labels(), results.Label{Key: LabelReads, Value: reads}),
			Role:   results.RoleSubject, Group: "interop/" + c.Format,
			Start: now, End: now,
		}
		if c.Bytes > 0 {
			rc.Metrics = map[string]float64{MetricFileBytes: float64(c.Bytes)}
			rc.BytesPerOp = c.Bytes
		}
		switch {
		case c.Status == CannotHold:
			rc.Status, rc.Error = results.StatusCannotHold, c.Reason
		case c.Status != OK:
			rc.Status, rc.Error = results.StatusFailed, c.Reason
		case c.ReadNs <= 0:
			rc.Status, rc.Error = results.StatusFailed, "the reader read the file to the dataset's digest but reported no time (elapsed_ns, protocol §10)"
		default:
			rc.Status = results.StatusOK
			rc.Samples = []results.Sample{{Iters: 1, NsPerOp: float64(c.ReadNs)}}
			rc.Elapsed = time.Duration(c.ReadNs)
			rc.Notes = []string{"interop: the reader read the writer's file to the dataset's digest; the time is one cold read by the reader's own clock, not a measurement"}
			if c.Note != "" {
				rc.Notes = append(rc.Notes, c.Note)
			}
			rc.Summarize()
		}
		out = append(out, rc)
	}
	return out
}

// label makes a party's name a label value (no '/', '=' or space).
func label(s string) string {
	return strings.NewReplacer("/", "-", "=", "-", " ", "_").Replace(s)
}

// Table renders the matrix as text: per format, writers down, readers
// across, ok or ✗ with a number into the list of reasons below it.
func (m *Matrix) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "interop matrix of %s (%d rows): %d cells, %d ok, %d cannot hold, %d runner invocations, %s\n",
		m.Dataset, m.Rows, len(m.Cells), m.count(OK), m.count(CannotHold), m.Invocations, m.Elapsed.Round(time.Millisecond))
	var formats []string
	for _, c := range m.Cells {
		if !slices.Contains(formats, c.Format) {
			formats = append(formats, c.Format)
		}
	}
	for _, f := range formats {
		var parties []string
		for _, p := range m.Parties[f] {
			parties = append(parties, p.Name)
		}
		fmt.Fprintf(&b, "\n%s (rows: writer, columns: reader)\n", f)
		if n := m.Notes[f]; n != "" {
			fmt.Fprintf(&b, "  (%s)\n", n)
		}
		w := len("writer \\ reader") - 2
		for _, p := range parties {
			w = max(w, len(p))
		}
		fmt.Fprintf(&b, "%-*s", w+2, "writer \\ reader")
		for i := range parties {
			fmt.Fprintf(&b, " %-5s", fmt.Sprintf("r%d", i+1))
		}
		b.WriteString("  file\n")
		var reasons []string
		for _, wp := range parties {
			fmt.Fprintf(&b, "%-*s", w+2, wp)
			var size int64
			for _, rp := range parties {
				c := m.cell(f, wp, rp)
				s := "?"
				if c != nil {
					size = max(size, c.Bytes)
					s = "ok"
					if c.Note != "" {
						reasons = append(reasons, fmt.Sprintf("%s → %s: ok, %s", wp, rp, c.Note))
						s = fmt.Sprintf("ok%d", len(reasons))
					}
					if c.Status != OK {
						reasons = append(reasons, fmt.Sprintf("%s → %s: %s", wp, rp, c.Reason))
						s = fmt.Sprintf("%s%d", c.Status, len(reasons))
					}
				}
				fmt.Fprintf(&b, " %-5s", s)
			}
			if size > 0 {
				fmt.Fprintf(&b, "  %d B", size)
			}
			b.WriteString("\n")
		}
		for i, p := range parties {
			fmt.Fprintf(&b, "  r%d = %s\n", i+1, p)
		}
		for i, r := range reasons {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, r)
		}
	}
	return b.String()
}

func (m *Matrix) count(status string) int {
	n := 0
	for _, c := range m.Cells {
		if c.Status == status {
			n++
		}
	}
	return n
}

// Cell returns the cell of writer w read by reader r in format f, or nil.
func (m *Matrix) cell(f, w, r string) *Cell {
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Format == f && c.Writer == w && c.Reader == r {
			return c
		}
	}
	return nil
}

// Cell returns the cell of writer w read by reader r in format f, or nil.
func (m *Matrix) Cell(f, w, r string) *Cell { return m.cell(f, w, r) }
