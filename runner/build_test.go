package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildFailure: a failed build is one line — what was built, the
// command's error, the output line that says most, where the whole output
// is — and the whole output is kept there; a log that cannot be written is
// said in the same line.
func TestBuildFailure(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, out, want string
		log             string
	}{
		{"cargo", "   Compiling a v1\nerror[E0425]: cannot find value `x`\n  --> src/main.rs:1:1\nerror: could not compile `a`\n", "error[E0425]: cannot find value `x`", filepath.Join(dir, "a", "build.log")},
		{"maven", "[INFO] x\n[ERROR] Failed to execute goal on project runner\n[ERROR] more\n", "[ERROR] Failed to execute goal on project runner", filepath.Join(dir, "b.log")},
		{"pip", "Collecting x\nERROR: No matching distribution found for x==9\n", "ERROR: No matching distribution found for x==9", filepath.Join(dir, "c.log")},
		{"no error line: the last", "step 1\nstep 2\n\n", "step 2", filepath.Join(dir, "d.log")},
		{"log not writable", "boom\n", "its output not kept", filepath.Join(dir, "file", "sub", "build.log")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "log not writable" {
				if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := BuildFailure("building X", errors.New("exit status 1"), []byte(tc.out), tc.log)
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "building X failed: exit status 1") || !strings.Contains(msg, tc.want) {
				t.Errorf("got %q, want it to name %q", msg, tc.want)
			}
			if tc.name == "log not writable" {
				return
			}
			if !strings.Contains(msg, tc.log) {
				t.Errorf("%q does not say where the output is", msg)
			}
			if b, err := os.ReadFile(tc.log); err != nil || string(b) != tc.out {
				t.Errorf("log holds %q (%v), want the whole output", b, err)
			}
		})
	}
}
