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
	"strings"

	ds "github.com/serbench/serbench/dataset/envelope"
)

// Subject is one implementation being measured: a format library and a
// message layout (flat or wrapped).
type Subject interface {
	// Name is the subject's stable name, e.g. "protobuf/flat".
	Name() string
	// Labels describe what makes the subject differ from others (library,
	// layout, code generation, buffer reuse, aliasing). It returns a new map.
	Labels() map[string]string
	// Prepare builds the subject's input for e outside any timed region:
	// the format's message, and for wrapped layouts the inner message
	// marshalled once, as in the seed; and the encoded envelope.
	Prepare(e *ds.Envelope) (Prepared, error)
}

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
	// message only, direct access) is in the subject's "header" label;
	// whether the strings alias data is in its "header_strings" label.
	ReadHeader(data []byte) (ds.Header, error)
	// Encoded is the envelope encoded once during Prepare: the input of the
	// Unmarshal and ReadHeader loops. Callers must not modify it.
	Encoded() []byte
	// Verify checks the round trip: Marshal and MarshalReuse, then Unmarshal
	// equals the source, and ReadHeader returns the source's header.
	Verify() error
}

// Subjects returns every subject of the envelope workload, in a stable order.
func Subjects() []Subject {
	return []Subject{
		protoSubject{layout: flat},
		protoSubject{layout: wrapped},
		vtSubject{layout: flat},
		vtSubject{layout: wrapped},
		fbSubject{},
		mpSubject{layout: flat},
		mpSubject{layout: wrapped},
	}
}

// Lookup returns the subject with the given name.
func Lookup(name string) (Subject, error) {
	var names []string
	for _, s := range Subjects() {
		if s.Name() == name {
			return s, nil
		}
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("envelope: unknown subject %q (valid: %s)", name, strings.Join(names, ", "))
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
