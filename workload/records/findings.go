package records

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// renderFindings opens the workload with the top performers of this run,
// the gap between the fastest read and its floor, and the seed's key
// findings checked against this run.
func (s sections) renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	pts, rows := v.points()
	if len(pts) == 0 {
		return nil, nil
	}
	var lines []string
	for _, r := range topRules() {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		switch r.Name {
		case "Fastest write":
			lines = append(lines, fmt.Sprintf("Fastest write: **%s**, %s (%s).", p.Subject(), report.TimeCell(rows[i].write), tradeoff(p)))
		case "Fastest read":
			line := fmt.Sprintf("Fastest read: **%s**, %s", p.Subject(), report.TimeCell(rows[i].read))
			if fl := rows[i].readBytes; fl != nil && fl.OK() {
				line += fmt.Sprintf(", %s the time of just reading the file's bytes", report.RatioCell(rows[i].read, results.UnitVsLimit, fl))
			}
			lines = append(lines, line+".")
		case "Smallest file":
			lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s MiB%s.", p.Subject(), report.MiB(p.FileB), savedNote(p)))
		case "Best balance":
			lines = append(lines, fmt.Sprintf("Best balance of size and round-trip time: **%s** (%s).", p.Subject(), tradeoff(p)))
		}
	}
	// The seed's key findings: MsgPack + Zstd best overall, MsgPack + XZ
	// the best compression.
	for _, claim := range []struct{ text, rule, codec string }{
		{"the best balance is MsgPack + Zstd", "Best balance", "zstd"},
		{"the best compression is MsgPack + XZ", "Smallest file", "xz"},
	} {
		for _, r := range topRules() {
			if r.Name != claim.rule {
				continue
			}
			i := r.Pick(pts)
			if i < 0 {
				continue
			}
			// Any MessagePack implementation with that codec holds it.
			got := pts[i]
			verdict := "**not held**: here it is " + got.Subject()
			if strings.HasPrefix(got.Format, "msgpack") && got.Codec == claim.codec {
				verdict = "**held** (" + got.Subject() + ")"
			}
			lines = append(lines, fmt.Sprintf("Seed: %s — %s.", claim.text, verdict))
		}
	}
	return []report.Block{report.Findings(lines)}, nil
}

// A Pick is one top performer or use-case recommendation that records'
// rules chose from a file workload's run (see FileSections).
type Pick struct {
	// Name is the metric or use case ("Fastest write", "Data archival");
	// Rule states the criterion in words.
	Name, Rule string
	// Format and Codec name the pair; Subject is "format + codec".
	Format, Codec, Subject string
	// WriteNs and ReadNs are the median times of one write and one read;
	// FileB is the file size.
	WriteNs, ReadNs, FileB float64
	// Saved is the fraction saved against the same format uncompressed
	// (NaN when unknown).
	Saved float64
}

// Picks applies records' rules — the top performers, then the use cases —
// to the cases of the named file workload, among the pairs whose write and
// read both succeeded. A rule no pair qualifies for is left out.
func Picks(workloadName string, run *results.Run, cases []*results.Case) []Pick {
	v := newView(workloadName, run, cases)
	pts, _ := v.points()
	if len(pts) == 0 {
		return nil
	}
	var out []Pick
	for _, r := range append(topRules(), useCaseRules()...) {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		out = append(out, Pick{Name: r.Name, Rule: r.Rule, Format: p.Format, Codec: p.Codec, Subject: p.Subject(),
			WriteNs: p.WriteNs, ReadNs: p.ReadNs, FileB: p.FileB, Saved: p.Saved()})
	}
	return out
}
