package envelope

import (
	"strings"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/envelope/envelopefmt"
)

// LabelSubject is the label key that names a case's subject.
const LabelSubject = "subject"

// Baseline is the subject every other is compared with: the seed's flat
// protobuf message.
const Baseline = "protobuf-flat"

// SubjectLabel turns an envelopefmt subject name ("protobuf/flat") into the
// value of the subject label ("protobuf-flat"): label values may not
// contain '/'.
func SubjectLabel(name string) string { return strings.ReplaceAll(name, "/", "-") }

// roleOf is the role of the subject labelled name.
func roleOf(name string) string {
	if name == Baseline {
		return results.RoleBaseline
	}
	return results.RoleSubject
}

// outerOnly reports whether s's header-only read unmarshals the outer
// message only: the seed's "WrappedUnmarshal".
func outerOnly(s envelopefmt.Subject) bool {
	return strings.Contains(s.Labels()["header"], "outer message only")
}

// libraryWhat says in a few words what a library does with the envelope.
func libraryWhat(module string) string {
	switch module {
	case "google.golang.org/protobuf":
		return "Protocol Buffers, protoc-gen-go code on the reflective runtime (proto.Marshal, proto.Unmarshal)"
	case "github.com/planetscale/vtprotobuf":
		return "Protocol Buffers, vtprotobuf's generated MarshalVT/UnmarshalVT (same wire bytes as protobuf)"
	case "github.com/google/flatbuffers":
		return "FlatBuffers table, flatc's object API (Pack, UnPack)"
	case "github.com/tinylib/msgp":
		return "MessagePack map, tinylib/msgp's generated code"
	}
	return module
}

// describe is what the run records about s: its library and version, its
// role, what it does and the settings that matter for a fair comparison
// (layout, code generation, buffer reuse, aliasing, validation).
func describe(s envelopefmt.Subject) results.Descriptor {
	l := s.Labels()
	name := SubjectLabel(s.Name())
	lib := l["library"]
	what := libraryWhat(lib)
	switch l["layout"] {
	case "wrapped":
		what += "; wrapped: an outer message (id, topic_id, key, geography, publisher, committed) holding the rest marshalled once as bytes"
	default:
		what += "; flat: one message holding header and payload"
	}
	what += "; header-only read: " + l["header"]
	settings := map[string]string{}
	for k, v := range l {
		if k != "library" && k != "header" {
			settings[k] = v
		}
	}
	return results.Descriptor{
		Workload: Name,
		Key:      LabelSubject,
		Name:     name,
		Role:     roleOf(name),
		What:     what,
		Module:   lib,
		Version:  format.ModuleVersion(lib, "unknown"),
		Settings: settings,
		Tags:     []string{l["layout"], "codegen"},
	}
}
