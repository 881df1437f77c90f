// Package envelopefmt binds the formats of the envelope workload (seed 002)
// to its dataset: the subjects that marshal an envelope.Envelope with
// protobuf, vtprotobuf, FlatBuffers and msgp, as one flat message or as an
// outer message wrapping the marshalled rest, unmarshal it, and read only
// its routing header; the conversions between the dataset's plain Go types
// and each format's generated types; and the header-only readers.
//
// The dataset package (dataset/envelope) is pure data: the Envelope types,
// the generator, the sizes and the generated schema code. Everything that
// encodes or decodes lives here, next to the workload.
package envelopefmt

import (
	"fmt"
	"maps"
	"strings"

	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
)

// Subject is one implementation being measured: a format library and a
// message layout (flat or wrapped). Its Desc is what the run records about
// it; its Name ("protobuf-flat") is the value of the subject label of its
// cases. Its Bind builds the subject's input for one envelope outside any
// timed region: the format's message, and for wrapped layouts the inner
// message marshalled once, as in the seed; and the encoded envelope.
type Subject = subject.Subject[*ds.Envelope, Prepared]

// Prepared is a subject bound to one envelope. Its operations are meant for
// tight benchmark loops: they allocate only what the library itself does. A
// Prepared is not safe for concurrent use.
type Prepared interface {
	// Marshal encodes the envelope into a newly allocated buffer (FlatBuffers:
	// a new Builder sized from the prepared encoding).
	Marshal() ([]byte, error)
	// MarshalReuse encodes the envelope into a buffer owned by the Prepared
	// and reused on every call (protobuf: MarshalAppend; vtprotobuf:
	// MarshalToSizedBufferVT; FlatBuffers: Builder.Reset; msgp: MarshalMsg
	// appending to the buffer). The result is valid until the next call.
	MarshalReuse() ([]byte, error)
	// Unmarshal fully decodes data into a fresh message (every subject
	// allocates a new message per call, as the seed did). For wrapped
	// layouts it decodes the outer message and then the inner one.
	Unmarshal(data []byte) error
	// ReadHeader returns the id, topic id, geography and publisher of the
	// encoded event in data without fully decoding it. How (wire scan, outer
	// message only, direct access) is the subject's HeaderRead; whether the
	// strings alias data is its "header_strings" setting.
	ReadHeader(data []byte) (ds.Header, error)
	// Encoded is the envelope encoded once during Bind: the input of the
	// Unmarshal and ReadHeader loops. Callers must not modify it.
	Encoded() []byte
	// Verify checks the round trip: Marshal and MarshalReuse, then Unmarshal
	// equals the source, and ReadHeader returns the source's header.
	Verify() error
}

// Subjects returns every subject of the envelope workload, in a stable order.
func Subjects() []Subject {
	return []Subject{
		protoSubject(flat),
		protoSubject(wrapped),
		vtSubject(flat),
		vtSubject(wrapped),
		fbSubject(),
		mpSubject(flat),
		mpSubject(wrapped),
	}
}

// Lookup returns the subject with the given name ("protobuf-flat").
func Lookup(name string) (Subject, error) {
	s, err := subject.Lookup(Subjects(), name)
	if err != nil {
		return Subject{}, fmt.Errorf("envelope: %w", err)
	}
	return s, nil
}

// headerReadPrefix introduces, in a subject's Desc.What, how its
// header-only read works; HeaderRead returns what follows it.
const headerReadPrefix = "; header-only read: "

// HeaderRead says how s reads the header without fully decoding the
// envelope (wire scan, outer message only, direct access): the last part
// of its Desc.What.
func HeaderRead(s Subject) string {
	_, read, _ := strings.Cut(s.Desc.What, headerReadPrefix)
	return read
}

// description is what a subject's descriptor is made of.
type description struct {
	// library is the first part of the subject's name ("protobuf").
	library string
	// module is the Go module measured; its version is the build's.
	module string
	// what says in a few words what the library does with the envelope.
	what string
	// layout is the message layout measured.
	layout layout
	// header says how the header-only read works.
	header string
	// settings are the fairness settings besides the layout: code
	// generation, buffer reuse, aliasing, validation.
	settings map[string]string
}

// path is "library/layout" ("protobuf/flat"), the prefix of the subject's
// errors.
func (d description) path() string { return d.library + "/" + d.layout.String() }

// subject returns the subject d describes, prepared by bind. Its Desc says
// what the library does, the layout and the header-only read; its settings
// are d's and the layout; its tags the layout and code generation, which
// every subject of the workload uses.
func (d description) subject(bind func(e *ds.Envelope) (Prepared, error)) Subject {
	what := d.what
	switch d.layout {
	case wrapped:
		what += "; wrapped: an outer message (id, topic_id, key, geography, publisher, committed) holding the rest marshalled once as bytes"
	default:
		what += "; flat: one message holding header and payload"
	}
	what += headerReadPrefix + d.header
	settings := maps.Clone(d.settings)
	settings["layout"] = d.layout.String()
	return Subject{
		Desc: results.Descriptor{
			// Every workload's subjects are the values of the label "subject".
			Key:      "subject",
			Name:     d.library + "-" + d.layout.String(),
			Role:     results.RoleSubject,
			What:     what,
			Module:   d.module,
			Version:  format.ModuleVersion(d.module, "unknown"),
			Settings: settings,
			Tags:     []string{d.layout.String(), "codegen"},
		},
		Bind: bind,
	}
}

// layout is a message layout: flat or wrapped.
type layout bool

const (
	flat    layout = false
	wrapped layout = true
)

func (l layout) String() string {
	if l == wrapped {
		return "wrapped"
	}
	return "flat"
}

// verifyRoundTrip runs the checks shared by every Prepared's Verify: each
// marshal variant's output decodes (via unmarshal, which returns the decoded
// Envelope) to src, and the header read from it equals src's header.
func verifyRoundTrip(name string, src *ds.Envelope, p Prepared, decode func([]byte) (*ds.Envelope, error)) error {
	check := func(op string, data []byte) error {
		got, err := decode(data)
		if err != nil {
			return fmt.Errorf("%s: unmarshal after %s: %w", name, op, err)
		}
		if err := src.Compare(got); err != nil {
			return fmt.Errorf("%s: unmarshal after %s differs from source: %w", name, op, err)
		}
		h, err := p.ReadHeader(data)
		if err != nil {
			return fmt.Errorf("%s: read header after %s: %w", name, op, err)
		}
		if err := src.Header().Compare(h); err != nil {
			return fmt.Errorf("%s: header after %s differs from source: %w", name, op, err)
		}
		return nil
	}
	data, err := p.Marshal()
	if err != nil {
		return fmt.Errorf("%s: marshal: %w", name, err)
	}
	if err := check("marshal", data); err != nil {
		return err
	}
	data, err = p.MarshalReuse()
	if err != nil {
		return fmt.Errorf("%s: marshal (reuse): %w", name, err)
	}
	if err := check("marshal (reuse)", data); err != nil {
		return err
	}
	// Twice, so that the reused buffer's second use is checked too.
	data, err = p.MarshalReuse()
	if err != nil {
		return fmt.Errorf("%s: marshal (reuse): %w", name, err)
	}
	if err := check("second marshal (reuse)", data); err != nil {
		return err
	}
	return check("prepare", p.Encoded())
}
