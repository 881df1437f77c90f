package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/serbench/serbench/runner"
)

// projectFile is the project file serbench reads from the working
// directory: the user's runners, so that every `serbench run` there has
// them without flags.
const projectFile = "serbench.toml"

// project is what serbench.toml holds.
type project struct {
	// Runners maps a runner's name to the command that starts it.
	Runners map[string]string `toml:"runners"`
}

// runnerName is what a user's runner may be called: it prefixes its
// subjects (name:subject) and names its language column.
var runnerName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// reservedNames are the names a user's runner cannot take: the built-in
// runners, their languages and the words --subject already gives a
// meaning.
var reservedNames = []string{"go", "interop", "jvm", "java", "python", "rust", "none", "limit", "copy"}

// userRunners are the runners the user adds: serbench.toml's [runners]
// in the working directory, then each --runner NAME=COMMAND (which
// replaces a project runner of the same name). A relative path in a
// command is resolved against the directory it was given in, since the
// runner starts in its work directory.
func userRunners(flags []string) ([]runner.Source, error) {
	type spec struct{ name, command, base string }
	var specs []spec
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	var p project
	md, err := toml.DecodeFile(projectFile, &p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, usagef("%s: %v", projectFile, err)
	default:
		if un := md.Undecoded(); len(un) > 0 {
			return nil, usagef("%s: unknown key %s (valid: [runners] NAME = \"COMMAND\")", projectFile, un[0])
		}
		names := make([]string, 0, len(p.Runners))
		for n := range p.Runners {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			specs = append(specs, spec{n, p.Runners[n], wd})
		}
	}
	for _, f := range flags {
		name, command, ok := strings.Cut(f, "=")
		if !ok {
			return nil, usagef("--runner %q: want NAME=COMMAND (e.g. --runner node='node runner.mjs')", f)
		}
		specs = slices.DeleteFunc(specs, func(s spec) bool { return s.name == name })
		specs = append(specs, spec{name, command, wd})
	}
	var out []runner.Source
	for _, s := range specs {
		if !runnerName.MatchString(s.name) || slices.Contains(reservedNames, s.name) {
			return nil, usagef("runner name %q: want lower-case letters, digits, - or _ (up to 32, a letter first), none of %s", s.name, strings.Join(reservedNames, ", "))
		}
		words, err := runner.SplitCommand(s.command)
		if err != nil {
			return nil, usagef("runner %s: %v", s.name, err)
		}
		if len(words) == 0 {
			return nil, usagef("runner %s: empty command", s.name)
		}
		src := runner.User(s.name, absWords(words, s.base))
		out = append(out, src)
	}
	return out, nil
}

// absWords makes each relative word of a command that names an existing
// file or directory under base absolute, and a relative program path
// ("./runner", "bin/runner") too: the runner's working directory is its
// work directory, not base.
func absWords(words []string, base string) []string {
	out := slices.Clone(words)
	for i, w := range out {
		if w == "" || filepath.IsAbs(w) || strings.HasPrefix(w, "-") {
			continue
		}
		p := filepath.Join(base, w)
		if _, err := os.Stat(p); err == nil && (i > 0 || strings.ContainsRune(w, filepath.Separator)) {
			out[i] = p
		}
	}
	return out
}
