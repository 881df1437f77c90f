// Package arch holds the tests that enforce the never-rules of serbench's
// design: which packages may import which. A rule holds for what a package
// depends on through any chain of imports, and for its tests' own imports
// where the rule says so:
//
//   - TestNeverRules: the libraries (psdb, pgarrow, pgserver) import nothing
//     of the tool; report rendering, the engine, the results model and the
//     subject shape import no workload, dataset, format or codec, and the
//     engine no report.
//   - TestWorkloadsImportNoWorkload: no workload imports another workload
//     (tests included); what workloads share lives in a helper under
//     workload/ that is no workload (workloadHelpers).
//   - TestDatasetsImportNoFormat: datasets are pure data: no package under
//     dataset/ imports a format (tests included).
//   - TestNothingBelowRunImportsRun: only run's callers (cmd/..., internal/cli,
//     runnerkit) import run
//     (tests included).
//   - TestArchitectureListsPackages: docs/architecture.md's layout names
//     every package and nothing that does not exist.
package arch

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
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
	out, _ := depsVia(t, pkg, tests)
	return out
}

// depsVia is deps, with the package through which each dependency was
// first reached (pkg itself for a direct import).
func depsVia(t *testing.T, pkg string, tests bool) (out []string, parent map[string]string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	parent = map[string]string{}
	var walk func(p string, withTests bool)
	walk = func(p string, withTests bool) {
		bp, err := importDir(root, p)
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
			parent[rel] = p
			out = append(out, rel)
			walk(rel, false)
		}
	}
	walk(pkg, tests)
	return out, parent
}

// chain is how pkg reaches d: "pkg → … → d".
func chain(parent map[string]string, pkg, d string) string {
	path := []string{d}
	for p := d; p != pkg && parent[p] != ""; {
		p = parent[p]
		path = append(path, p)
	}
	slices.Reverse(path)
	return strings.Join(path, " → ")
}

// imported caches build.ImportDir by package: every rule walks the same
// packages.
var imported = map[string]*build.Package{}

func importDir(root, pkg string) (*build.Package, error) {
	if bp, ok := imported[pkg]; ok {
		return bp, nil
	}
	bp, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(pkg)), 0)
	if err != nil {
		return nil, err
	}
	imported[pkg] = bp
	return bp, nil
}

// packages lists serbench's packages (directories with Go files, testdata
// and hidden directories skipped) relative to the module root, the root
// package as ".".
func packages(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		// A directory with a go.mod of its own is another module (a
		// user's, as examples/go-subject shows): not serbench's packages.
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if _, err := importDir(root, rel); err != nil {
			var noGo *build.NoGoError
			if errors.As(err, &noGo) {
				return nil
			}
			return err
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found only %d packages under %s", len(out), root)
	}
	return out
}

// under reports whether pkg is dir or a package below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// TestNeverRules: the libraries import nothing of the tool (their tests
// included: pgarrow's tests may use the public pgserver helper, which
// imports nothing of serbench); report rendering imports no workload,
// dataset, format, codec, engine or pipeline, and the tables it writes
// only the results; the engine and the results model import no report.
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
		{"report", false, []string{"report", "results", "table"}},
		{"table", false, []string{"table", "results"}},
		{"bench", false, []string{"bench", "results", "callgrind"}},
		{"callgrind", true, []string{"callgrind"}},
		{"subject", false, []string{"subject", "results"}},
		{"corpus", true, []string{"corpus"}},
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

// workloadHelpers are the packages under workload/ that are no workload:
// workload itself (what a workload is, the settings and errors every
// workload shares), the workloads' test helpers, what the file workloads
// (records, data) share, the interop matrix (nested, data) and the reader
// of a user's files (data, and the matrix reading files back). A workload
// may import them; they import no workload.
var workloadHelpers = []string{"workload", "workload/workloadtest", "workload/filecase", "workload/interop", "workload/userdata"}

// workloadOf names the workload a package belongs to — "workload/X" for
// workload/X and every package below it (workload/records/recordsfmt is
// part of the records workload) — or "" for a helper or a package outside
// workload/.
func workloadOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "workload/")
	if !ok || slices.Contains(workloadHelpers, pkg) {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return "workload/" + name
}

// TestWorkloadsImportNoWorkload: no package under workload/ imports (or
// depends on, through any package, its tests' imports included) a package
// of another workload. A package of workload X may use X's own packages
// (workload/X/...) and the helpers of workloadHelpers; what two workloads
// share belongs in a helper, not in one of them.
func TestWorkloadsImportNoWorkload(t *testing.T) {
	for _, pkg := range packages(t) {
		if !under(pkg, "workload") {
			continue
		}
		own := workloadOf(pkg)
		ds, parent := depsVia(t, pkg, true)
		for _, d := range ds {
			if w := workloadOf(d); w != "" && w != own {
				if own == "" {
					t.Errorf("%s imports %s (%s): a workload helper (%s) imports no workload",
						pkg, d, chain(parent, pkg, d), strings.Join(workloadHelpers, ", "))
					continue
				}
				t.Errorf("%s imports %s (%s): a workload imports no other workload (only %s/... and %s); move what they share into a helper",
					pkg, d, chain(parent, pkg, d), own, strings.Join(workloadHelpers, ", "))
			}
		}
	}
}

// TestWorkloadsImportNoReport: a workload declares its tables
// (package table) and derives its findings from results; it never
// renders, so no package under workload/ depends on report (tests aside:
// the golden tests render through workloadtest, which is what it is for).
func TestWorkloadsImportNoReport(t *testing.T) {
	for _, pkg := range packages(t) {
		if !under(pkg, "workload") || pkg == "workload/workloadtest" {
			continue
		}
		ds, parent := depsVia(t, pkg, false)
		for _, d := range ds {
			if under(d, "report") {
				t.Errorf("%s imports %s (%s): a workload declares tables (package table) and never renders them",
					pkg, d, chain(parent, pkg, d))
			}
		}
	}
}

// TestDatasetsImportNoFormat: datasets are pure data — no package under
// dataset/ depends on a package under format/, its tests' imports
// included. Binding a dataset to a format (a format mapping, a round trip
// through the formats) is the job of the workload that measures them or of
// the format's own package.
func TestDatasetsImportNoFormat(t *testing.T) {
	for _, pkg := range packages(t) {
		if !under(pkg, "dataset") {
			continue
		}
		ds, parent := depsVia(t, pkg, true)
		for _, d := range ds {
			if under(d, "format") {
				t.Errorf("%s imports %s (%s): a dataset imports no format (bind them in the workload or next to the format)",
					pkg, d, chain(parent, pkg, d))
			}
		}
	}
}

// runCallers are the packages that may import run: the command line (run's
// caller) and run itself.
var runCallers = []string{"cmd", "run", "internal/cli", "runnerkit"} // and the packages below them

// TestNothingBelowRunImportsRun: run orchestrates workloads, the engine,
// results and reports; nothing it orchestrates and no library depends on
// it (their tests included) — only its callers under cmd/ do. A type that
// run and a workload both need (workload.UsageError) lives at the lowest
// level that needs it.
func TestNothingBelowRunImportsRun(t *testing.T) {
	for _, pkg := range packages(t) {
		if slices.ContainsFunc(runCallers, func(c string) bool { return under(pkg, c) }) {
			continue
		}
		ds, parent := depsVia(t, pkg, true)
		for _, d := range ds {
			if under(d, "run") {
				t.Errorf("%s imports %s (%s): nothing below run depends on it (only %s may)",
					pkg, d, chain(parent, pkg, d), strings.Join(runCallers, ", "))
			}
		}
	}
}
