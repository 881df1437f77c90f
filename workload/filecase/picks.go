package filecase

import "github.com/serbench/serbench/results"

// A Pick is one top performer or use-case recommendation that the rules
// (TopRules, UseCaseRules) chose from a file workload's run (see FileSections).
type Pick struct {
	// Name is the metric or use case ("Fastest write", "Data archival");
	// Rule states the criterion in words.
	Name, Rule string
	// Format and Codec name the pair; Subject is "format + codec".
	Format, Codec, Subject string
	// WriteNs and ReadNs are the median times of one write and one read;
	// FileB is the file size.
	WriteNs, ReadNs, FileB float64
	// WriteN and ReadN are the samples behind WriteNs and ReadNs.
	WriteN, ReadN int
	// Saved is the fraction saved against the same format uncompressed
	// (NaN when unknown).
	Saved float64
}

// Picks applies the rules — the top performers, then the use cases —
// to the cases of the named file workload, among the pairs whose write and
// read both succeeded. A rule no pair qualifies for is left out.
func Picks(workloadName string, run *results.Run, cases []*results.Case) []Pick {
	v := NewView(workloadName, run, cases)
	pts, _ := v.Points()
	if len(pts) == 0 {
		return nil
	}
	var out []Pick
	for _, r := range append(TopRules(), UseCaseRules()...) {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		out = append(out, Pick{Name: r.Name, Rule: r.Rule, Format: p.Format, Codec: p.Codec, Subject: p.Subject(),
			WriteNs: p.WriteNs, ReadNs: p.ReadNs, FileB: p.FileB, Saved: p.Saved(), WriteN: p.WriteN, ReadN: p.ReadN})
	}
	return out
}
