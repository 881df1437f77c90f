package results

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// SchemaVersion is the version of the results format this build writes.
// Version 1 (files without a "schema" field) had no descriptors, roles,
// groups or end line; version 2 had no probe lines; version 3's probes had
// no memory time; version 4 had no section lines (the report's tables
// as the workloads declared them). Readers accept every version up to
// this one.
const SchemaVersion = 5

// Roles a subject plays in a comparison.
const (
	// RoleSubject is an implementation under test.
	RoleSubject = "subject"
	// RoleBaseline is the subject others are compared with (e.g. psdb in
	// features, the flat message in envelope).
	RoleBaseline = "baseline"
	// RoleLimit is a physical-limit row: memcpy, reading the file's bytes,
	// decompression only, the server's own ceiling. It is no format and is
	// never ranked with the subjects.
	RoleLimit = "limit"
)

// ValidRole reports whether r is one of the three roles.
func ValidRole(r string) bool {
	return r == RoleSubject || r == RoleBaseline || r == RoleLimit
}

// A Descriptor says what one label value of a run stands for: a subject,
// a format, a codec, a limit row. Reports print libraries, versions and
// settings from the descriptors a run recorded, never from the build that
// renders them.
type Descriptor struct {
	Kind     string `json:"kind"`
	Workload string `json:"workload"`
	// Key is the label key the descriptor describes ("subject", "codec").
	Key string `json:"key"`
	// Name is the label value ("psdb", "zstd").
	Name string `json:"name"`
	// Role is RoleSubject, RoleBaseline or RoleLimit for subjects; empty
	// for components such as codecs.
	Role string `json:"role,omitempty"`
	// What says in one line what it does.
	What string `json:"what"`
	// Module and Version name the library measured ("go" and the Go
	// version for the standard library; empty for limit rows).
	Module  string `json:"module,omitempty"`
	Version string `json:"version,omitempty"`
	// Settings are the fairness facts: level, buffer size, reuse,
	// zero-copy, validation, code generation or reflection.
	Settings map[string]string `json:"settings,omitempty"`
	// Tags are short labels ("codegen", "row", "columnar").
	Tags []string `json:"tags,omitempty"`
}

// Library returns "module version", or "" for a descriptor without one.
func (d *Descriptor) Library() string {
	return strings.TrimSpace(d.Module + " " + d.Version)
}

// SettingsString renders the settings as "k=v, k=v" in key order.
func (d *Descriptor) SettingsString() string {
	keys := make([]string, 0, len(d.Settings))
	for k := range d.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + d.Settings[k]
	}
	return strings.Join(parts, ", ")
}

func (d *Descriptor) validate() error {
	switch {
	case d.Workload == "" || d.Key == "" || d.Name == "":
		return fmt.Errorf("descriptor %q: workload, key and name are required", d.Name)
	case d.Role != "" && !ValidRole(d.Role):
		return fmt.Errorf("descriptor %s=%s: unknown role %q (valid: subject, baseline, limit)", d.Key, d.Name, d.Role)
	}
	return nil
}

// End closes a results file: when the run ended and whether it finished.
// A file without an end line was cut short (the process was killed).
type End struct {
	Kind string `json:"kind"`
	// Time is when the run ended.
	Time time.Time `json:"time"`
	// Interrupted is set when the run was stopped (Ctrl-C, SIGTERM)
	// before every planned case was measured.
	Interrupted bool `json:"interrupted,omitempty"`
	// Planned and Done count cases.
	Planned int `json:"planned"`
	Done    int `json:"done"`
	// Error is why the run stopped early, when it did.
	Error string `json:"error,omitempty"`
}

// validate checks that the end line's counts can be true.
func (e *End) validate() error {
	switch {
	case e.Planned < 0:
		return fmt.Errorf("planned %d is negative", e.Planned)
	case e.Done < 0:
		return fmt.Errorf("done %d is negative", e.Done)
	}
	return nil
}
