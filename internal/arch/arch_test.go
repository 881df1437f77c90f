// Package arch holds the test that enforces the never-rules of serbench's
// design: which packages may import which.
package arch

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/serbench/serbench"

// deps lists the serbench packages pkg depends on (transitively), its
// own tests' imports included when tests is set. It reads the sources with
// go/build, so the test cache notices any change to them.
func deps(t *testing.T, pkg string, tests bool) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	var walk func(p string, withTests bool)
	walk = func(p string, withTests bool) {
		bp, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(p)), 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		imports := bp.Imports
		if withTests {
			imports = append(append(slices.Clone(imports), bp.TestImports...), bp.XTestImports...)
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			out = append(out, rel)
			walk(rel, false)
		}
	}
	walk(pkg, tests)
	return out
}

// TestNeverRules: the libraries import nothing of the tool (their tests
// included: pgarrow's tests may use the public pgserver helper, which
// imports nothing of serbench); report rendering imports no workload,
// dataset, format, codec, engine or pipeline; the engine and the results
// model import no report.
func TestNeverRules(t *testing.T) {
	tests := []struct {
		pkg     string
		tests   bool
		allowed []string // prefixes of serbench packages it may depend on
	}{
		{"psdb", true, []string{"psdb"}},
		{"pgarrow", true, []string{"pgarrow", "pgserver"}},
		{"pgserver", true, []string{"pgserver"}},
		{"results", false, []string{"results"}},
		{"report", false, []string{"report", "results"}},
		{"bench", false, []string{"bench", "results"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			for _, d := range deps(t, tt.pkg, tt.tests) {
				ok := false
				for _, a := range tt.allowed {
					if d == a || strings.HasPrefix(d, a+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s (allowed: %s)", tt.pkg, d, strings.Join(tt.allowed, ", "))
				}
			}
		})
	}
}
