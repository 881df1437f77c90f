package cli

import (
	"os"
	"path/filepath"
)

// missingDirs returns dir and those of its ancestors that do not exist
// yet, innermost first: what a run would create.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !os.IsNotExist(err) {
			return out
		}
		out = append(out, d)
		if parent := filepath.Dir(d); parent == d {
			return out
		}
	}
}

// removeCreated removes the directories missingDirs listed, innermost
// first, when they are still empty: a run that failed before measuring
// (bad input, a bad query) leaves no empty --out behind.
func removeCreated(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}
