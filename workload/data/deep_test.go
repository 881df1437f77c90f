package data

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
)

// deepJSONL writes a JSON Lines file whose values are lists nested depth
// deep, one of them null.
func deepJSONL(t *testing.T, depth int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "deep.jsonl")
	var b strings.Builder
	for i := range 6 {
		v := fmt.Sprintf("%s%d, %d%s", strings.Repeat("[", depth), i, -i, strings.Repeat("]", depth))
		if i == 3 {
			v = "null"
		}
		fmt.Fprintf(&b, "{\"id\":%d,\"v\":%s}\n", i, v)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDeepJSONLRefused (issue 26): lists nested 200 deep (the run hung in
// protobuf-wire's binding, exponential in depth) are refused at once, in
// one line naming the limit that userdata applies to every input (64
// levels, Arrow's own recursion limit).
func TestDeepJSONLRefused(t *testing.T) {
	start := time.Now()
	_, err := NewWith(Settings{Input: deepJSONL(t, 200), Codecs: []string{"none"}}, nil).Plan(context.Background(),
		workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "deeper than 64 levels, the limit") || strings.Contains(err.Error(), "\n") || len(err.Error()) > 400 {
		t.Errorf("plan of a 200-deep input: %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("%v to refuse", el)
	}
}

// TestDeepJSONL (issue 26): lists nested as deep as inputs may be run
// through every format in seconds; each round-trips them but CSV (flat),
// which fails at once, with a short reason first.
func TestDeepJSONL(t *testing.T) {
	const depth = 60
	path := deepJSONL(t, depth)
	start := time.Now()
	p := plan(t, Settings{Input: path, Codecs: []string{"none"}}, workload.Config{})
	r := runPlan(t, New(), p)
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("%v to plan and run (about a second expected)", el)
	}
	refused := map[string]string{
		"csv": "csv: " + CannotHold + ": column v: nested type",
	}
	ok := map[string]bool{}
	for i := range r.Cases {
		c := &r.Cases[i]
		f := c.Labels.Get(filecase.LabelFormat)
		want, isRefused := refused[f]
		switch {
		case c.OK() && !isRefused:
			ok[f] = true
		case isRefused && !c.OK():
			if !strings.Contains(c.Error, want) || len(c.Error) > 512 {
				t.Errorf("%s: a %d-byte error %.600q, want a short one with %q", c.FullName(), len(c.Error), c.Error, want)
			}
		default:
			t.Errorf("%s: ok %v, error %.600q", c.FullName(), c.OK(), c.Error)
		}
	}
	if len(ok) != len(FormatNames())-len(refused) {
		t.Errorf("formats that round-tripped: %v", ok)
	}
}
