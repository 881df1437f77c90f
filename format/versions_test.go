package format_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFallbackVersions checks that the versions the format packages name
// for binaries without build information (test binaries) are the ones
// go.mod requires, so recorded results never carry a stale version.
func TestFallbackVersions(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`ModuleVersion\(("([^"]+)"|lib), "([^"]+)"\)`)
	libDecl := regexp.MustCompile(`lib\s*=\s*"([^"]+)"`)
	files, _ := filepath.Glob("*/*.go")
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			path := m[2]
			if m[1] == "lib" {
				d := libDecl.FindStringSubmatch(string(src))
				if d == nil {
					t.Fatalf("%s: ModuleVersion(lib, …) without a lib constant", f)
				}
				path = d[1]
			}
			n++
			if !strings.Contains(string(mod), path+" "+m[3]+"\n") {
				t.Errorf("%s: fallback %s %s is not what go.mod requires", f, path, m[3])
			}
		}
	}
	if n < 8 {
		t.Errorf("found %d ModuleVersion calls; the pattern no longer matches the sources", n)
	}
}
