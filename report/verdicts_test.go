package report

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// verdictCase is a group member with ns/op samples around ns and in-round
// ratios to the limit row around x.
func verdictCase(subject, role string, ns, x float64) results.Case {
	c := results.Case{Workload: "w", Name: "W", Labels: results.Labels{{Key: "subject", Value: subject}}, Role: role, Group: "g", Status: results.StatusOK}
	for i := range 8 {
		d := 1 + float64(i%4-2)/100
		s := results.Sample{Iters: 1, NsPerOp: ns * d, Round: i + 1}
		if x > 0 {
			s.VsLimit = x * d
		}
		c.Samples = append(c.Samples, s)
	}
	c.Summarize()
	return c
}

func TestCheckVerdicts(t *testing.T) {
	ref := &results.Run{Cases: []results.Case{
		verdictCase("a", results.RoleSubject, 100, 2), verdictCase("b", results.RoleSubject, 300, 6),
		verdictCase("c", results.RoleSubject, 101, 2.02), verdictCase("lim", results.RoleLimit, 50, 0),
	}}
	tests := []struct {
		name              string
		run               []results.Case
		pairs, kept, held bool
		inside            int
	}{
		{"same verdicts", ref.Cases, true, true, true, 3},
		{"a and b swapped", []results.Case{verdictCase("a", results.RoleSubject, 400, 2), verdictCase("b", results.RoleSubject, 300, 6),
			verdictCase("c", results.RoleSubject, 101, 2.02), verdictCase("lim", results.RoleLimit, 50, 0)}, true, false, false, 3},
		{"a's ratio moved", []results.Case{verdictCase("a", results.RoleSubject, 100, 3), verdictCase("b", results.RoleSubject, 300, 6),
			verdictCase("c", results.RoleSubject, 101, 2.02), verdictCase("lim", results.RoleLimit, 50, 0)}, true, true, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CheckVerdicts(ref, &results.Run{Cases: tt.run})
			// a–b, b–c, a–lim, b–lim, c–lim are disjoint; a–c overlap.
			if v.Pairs != 5 || (v.Kept == v.Pairs) != tt.kept || v.Ratios != 3 || v.Inside != tt.inside || v.Held() != tt.held {
				t.Errorf("verdicts %+v", v)
			}
			var out strings.Builder
			if err := v.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "do NOT hold") == tt.held {
				t.Errorf("text:\n%s", out.String())
			}
		})
	}
}
