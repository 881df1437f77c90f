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
const OpInterop = "interop"

// Cases returns the matrix as results, one case per cell of workload:
// labels format, writer, reader, writer_language, reader_language and
// op=interop; a ✗ cell is a FAILED case with its reason; an ok cell has
// one sample, the reader's single read of the file (its own clock: not a
// measurement, a note says so), and the file's size as metric file-B.
func (m *Matrix) Cases(workload string) []results.Case {
	var out []results.Case
	now := time.Now().UTC()
	for _, c := range m.Cells {
		rc := results.Case{
			Kind: results.KindCase, Workload: workload, Name: CaseName,
			Labels: results.Labels{
				{Key: "format", Value: c.Format},
				{Key: "writer", Value: label(c.Writer)},
				{Key: "reader", Value: label(c.Reader)},
				{Key: "writer_language", Value: c.WriterLanguage},
				{Key: "reader_language", Value: c.ReaderLanguage},
				{Key: "op", Value: OpInterop},
			},
			Role:  results.RoleSubject,
			Group: "interop/" + c.Format,
			Start: now, End: now,
		}
		if c.Bytes > 0 {
			rc.Metrics = map[string]float64{MetricFileBytes: float64(c.Bytes)}
			rc.BytesPerOp = c.Bytes
		}
		if c.Status == OK {
			rc.Status = results.StatusOK
			ns := float64(c.ReadNs)
			note := "interop: the reader read the writer's file to the dataset's digest; the time is one cold read by the reader's own clock, not a measurement"
			if ns <= 0 {
				ns = 1
				note = "interop: the reader read the writer's file to the dataset's digest; it reported no read time (the sample's 1 ns is a placeholder)"
			}
			rc.Samples = []results.Sample{{Iters: 1, NsPerOp: ns}}
			rc.Notes = []string{note}
			if c.Note != "" {
				rc.Notes = append(rc.Notes, c.Note)
			}
			rc.Elapsed = time.Duration(c.ReadNs)
			rc.Summarize()
		} else {
			rc.Status = results.StatusFailed
			rc.Error = c.Reason
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
	fmt.Fprintf(&b, "interop matrix of %s (%d rows): %d cells, %d ok, %d runner invocations, %s\n",
		m.Dataset, m.Rows, len(m.Cells), m.count(OK), m.Invocations, m.Elapsed.Round(time.Millisecond))
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
						s = fmt.Sprintf("✗%d", len(reasons))
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
