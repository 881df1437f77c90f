package envelope

import (
	"slices"
	"strings"

	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/envelope/envelopefmt"
)

// LabelSubject is the label key that names a case's subject.
const LabelSubject = "subject"

// Baseline is the subject every other is compared with, the one envelopefmt
// gives the baseline role: the seed's flat protobuf message.
const Baseline = "protobuf-flat"

// SubjectLabel turns a subject name written library/layout
// ("protobuf/flat"), as Plan accepts it, into the subject's name and the
// value of its subject label ("protobuf-flat"): label values may not
// contain '/'.
func SubjectLabel(name string) string { return strings.ReplaceAll(name, "/", "-") }

// wantSubject reports whether cfg selects the subject named name, given
// either as its name ("protobuf-flat") or written library/layout
// ("protobuf/flat"); a config naming no subject selects every one.
func wantSubject(cfg workload.Config, name string) bool {
	return len(cfg.Subjects) == 0 || slices.ContainsFunc(cfg.Subjects, func(x string) bool { return SubjectLabel(x) == name })
}

// outerOnly reports whether s's header-only read unmarshals the outer
// message only: the seed's "WrappedUnmarshal".
func outerOnly(s envelopefmt.Subject) bool {
	return strings.Contains(envelopefmt.HeaderRead(s), "outer message only")
}
