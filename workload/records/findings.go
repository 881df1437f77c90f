package records

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/filecase"
)

// renderFindings opens the workload with the top performers of this run,
// the gap between the fastest read and its floor, and the seed's key
// findings checked against this run.
func renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := filecase.NewView(Name, run, cases)
	pts, rows := v.Points()
	if len(pts) == 0 {
		return nil, nil
	}
	var lines []string
	for _, r := range filecase.TopRules() {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		switch r.Name {
		case "Fastest write":
			lines = append(lines, fmt.Sprintf("Fastest write: **%s**, %s (%s).", p.Subject(), table.TimeText(rows[i].Write), filecase.Tradeoff(p)))
		case "Fastest read":
			line := fmt.Sprintf("Fastest read: **%s**, %s", p.Subject(), table.TimeText(rows[i].Read))
			if fl := rows[i].ReadBytes; fl != nil && fl.OK() {
				line += fmt.Sprintf(", %s the time of just reading the file's bytes", table.RatioText(rows[i].Read, results.UnitVsLimit, fl))
			}
			lines = append(lines, line+".")
		case "Smallest file":
			lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s MiB%s.", p.Subject(), table.MiB(p.FileB), filecase.SavedNote(p)))
		case "Best balance":
			lines = append(lines, fmt.Sprintf("Best balance of size and round-trip time: **%s** (%s).", p.Subject(), filecase.Tradeoff(p)))
		}
	}
	// The seed's key findings: MsgPack + Zstd best overall, MsgPack + XZ
	// the best compression.
	for _, claim := range []struct{ text, rule, codec string }{
		{"the best balance is MsgPack + Zstd", "Best balance", "zstd"},
		{"the best compression is MsgPack + XZ", "Smallest file", "xz"},
	} {
		for _, r := range filecase.TopRules() {
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
	return []report.Block{table.Findings(lines)}, nil
}
