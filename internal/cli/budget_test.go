package cli

import (
	"testing"
	"time"

	"github.com/serbench/serbench/workload"
)

// TestParseBudget: auto gives the main job its budget and leaves runs that
// ask for other sampling alone; a duration is taken as given; nonsense is
// a usage error.
func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		v      string
		scale  workload.Scale
		count  int
		target float64
		want   time.Duration
		err    bool
	}{
		{"auto", workload.Default, defaultCount, defaultTarget, defaultBudget, false},
		{"auto", workload.Quick, defaultCount, defaultTarget, 0, false},
		{"auto", workload.Full, defaultCount, defaultTarget, 0, false},
		{"auto", workload.Default, 40, defaultTarget, 0, false},
		{"auto", workload.Default, defaultCount, 0, 0, false},
		{"0", workload.Default, defaultCount, defaultTarget, 0, false},
		{"off", workload.Default, defaultCount, defaultTarget, 0, false},
		{"5m", workload.Full, 40, 0, 5 * time.Minute, false},
		{"-1m", workload.Default, defaultCount, defaultTarget, 0, true},
		{"soon", workload.Default, defaultCount, defaultTarget, 0, true},
	} {
		got, err := parseBudget(tc.v, tc.scale, tc.count, tc.target)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseBudget(%q, %s, %d, %g) = %v, %v; want %v, error %v", tc.v, tc.scale, tc.count, tc.target, got, err, tc.want, tc.err)
		}
	}
}

// TestSampling: the timing history keeps a run apart only when it samples
// otherwise than the defaults at its scale. (The description names the
// values, so runs before and after a change of the defaults are apart
// too.)
func TestSampling(t *testing.T) {
	tests := []struct {
		name      string
		scale     workload.Scale
		count     int
		target    float64
		benchtime time.Duration
		budget    time.Duration
		apart     bool
	}{
		{"the main job", workload.Default, defaultCount, defaultTarget, defaultBenchtime, defaultBudget, false},
		{"quick with the defaults", workload.Quick, defaultCount, defaultTarget, defaultBenchtime, 0, false},
		{"default without a budget", workload.Default, defaultCount, defaultTarget, defaultBenchtime, 0, true},
		{"a reference run", workload.Default, 40, 0, defaultBenchtime, 0, true},
		{"longer samples", workload.Default, defaultCount, defaultTarget, 50 * time.Millisecond, defaultBudget, true},
	}
	for _, tt := range tests {
		auto, _ := parseBudget("auto", tt.scale, defaultCount, defaultTarget)
		defaults := sampling(tt.scale, defaultCount, defaultTarget, defaultBenchtime, auto)
		if got := sampling(tt.scale, tt.count, tt.target, tt.benchtime, tt.budget); (got != defaults) != tt.apart {
			t.Errorf("%s: sampling %q, want kept apart %v", tt.name, got, tt.apart)
		}
	}
}
