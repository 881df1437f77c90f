package arch

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docEntry is a path at the start of a line of docs/architecture.md's
// layout blocks: "workload/filecase/", "dataset/<name>/", "sources.go", or
// one of a comma-separated list ("runner/jvm, runner/python").
var docEntry = regexp.MustCompile(`^([a-z][a-z0-9_./<>-]*(?:, [a-z][a-z0-9_./<>-]*)*)\s{2,}\S`)

// layoutEntries returns the paths docs/architecture.md's fenced blocks
// describe, without a trailing slash.
func layoutEntries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			continue
		}
		m := docEntry.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, e := range strings.Split(m[1], ", ") {
			out = append(out, strings.TrimSuffix(e, "/"))
		}
	}
	if len(out) < 10 {
		t.Fatalf("docs/architecture.md: found only %d layout entries (%v)", len(out), out)
	}
	return out
}

// covers reports whether the entry e describes package pkg: e names it,
// a directory above it, or (a file name) the root package; "<name>"
// stands for any one path element.
func covers(e, pkg string) bool {
	if strings.HasSuffix(e, ".go") {
		return pkg == "."
	}
	ee, pp := strings.Split(e, "/"), strings.Split(pkg, "/")
	if len(pp) < len(ee) {
		return false
	}
	for i, s := range ee {
		if s != pp[i] && !(strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">")) {
			return false
		}
	}
	return true
}

// TestArchitectureListsPackages keeps docs/architecture.md's layout honest:
// every path it describes exists, every package of the module is described
// (by its own entry or a directory above it), and the packages the import
// rules treat specially (the workload helpers, the libraries) have an entry
// of their own.
func TestArchitectureListsPackages(t *testing.T) {
	entries := layoutEntries(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		glob := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(e, "*")
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil || len(m) == 0 {
			t.Errorf("docs/architecture.md describes %s, which does not exist", e)
		}
	}
	for _, pkg := range packages(t) {
		if !slices.ContainsFunc(entries, func(e string) bool { return covers(e, pkg) }) {
			t.Errorf("package %s is in no entry of docs/architecture.md's layout (add a line for it or for %s)", pkg, path.Dir(pkg))
		}
	}
	own := append(slices.Clone(workloadHelpers), "psdb", "pgarrow", "pgserver", "subject", "runnerkit", "internal/arch")
	for _, pkg := range own {
		if !slices.Contains(entries, pkg) {
			t.Errorf("docs/architecture.md has no line of its own for %s", pkg)
		}
	}
}
