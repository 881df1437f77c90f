package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"testing"
)

// TestConfigIsShared (issue 23.5): workload.Config holds only what every
// workload shares. A field that the code of one workload alone reads is
// that workload's option (workload.Options), not a shared setting. A field
// read by package workload itself (Config's methods) or by a helper under
// workload/ serves several workloads. Readers are found by field name in
// selector expressions (x.Field) of the non-test files, which can only
// over-count: a field no workload reads fails too.
func TestConfigIsShared(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fields := configFields(t, filepath.Join(root, "workload", "workload.go"))
	if len(fields) == 0 {
		t.Fatal("no fields found in workload.Config")
	}
	readers := map[string]map[string]bool{} // field → workloadOf(reader); "" for shared code
	for _, pkg := range packages(t) {
		if !under(pkg, "workload") {
			continue
		}
		bp, err := importDir(root, pkg)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(fields, sel.Sel.Name) {
					if readers[sel.Sel.Name] == nil {
						readers[sel.Sel.Name] = map[string]bool{}
					}
					readers[sel.Sel.Name][workloadOf(pkg)] = true
				}
				return true
			})
		}
	}
	for _, f := range fields {
		r := readers[f]
		switch {
		case len(r) == 0:
			t.Errorf("workload.Config.%s is read by no workload", f)
		case len(r) == 1 && !r[""]:
			for w := range r {
				t.Errorf("workload.Config.%s is read by %s alone: make it that workload's option (workload.Options)", f, w)
			}
		}
	}
}

// configFields lists the field names of type Config declared in file.
func configFields(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Config" {
			return true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				for _, nm := range fl.Names {
					out = append(out, nm.Name)
				}
			}
		}
		return false
	})
	return out
}
