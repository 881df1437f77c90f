package envelopefmt

import (
	"errors"
	"fmt"

	ds "github.com/serbench/serbench/dataset/envelope"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/serbench/serbench/dataset/envelope/fb"
)

// fbSubject encodes the flat envelope with FlatBuffers (flatc's Go code and
// object API).
func fbSubject() Subject {
	d := description{
		library: "flatbuffers",
		module:  "github.com/google/flatbuffers",
		what:    "FlatBuffers table, flatc's object API (Pack, UnPack)",
		layout:  flat,
		header:  "direct field access after bounds verification of the header fields",
		settings: map[string]string{
			"codegen":         "flatc --go --gen-object-api",
			"marshal":         "object API Pack into a new Builder sized from the prepared encoding",
			"marshal_reuse":   "object API Pack into a reused Builder (Reset)",
			"unmarshal":       "fresh message (object API UnPack after bounds verification)",
			"unmarshal_bytes": "alias input (UnPack shares byte vectors with the buffer)",
			"header_strings":  "alias input (unsafe.String)",
			"validated":       "every offset bounds-checked (VerifyFlat; header read: VerifyFlatHeader); strings not checked for UTF-8",
		},
	}
	name := d.path()
	return d.subject(func(e *ds.Envelope) (Prepared, error) {
		if e == nil {
			return nil, errors.New("envelope: flatbuffers: nil envelope")
		}
		p := &fbFlat{name: name, src: e, obj: ToFlatFB(e)}
		b := flatbuffers.NewBuilder(len(e.Data) + 1024)
		b.Finish(p.obj.Pack(b))
		p.enc = b.FinishedBytes()
		p.b = flatbuffers.NewBuilder(len(p.enc))
		return p, nil
	})
}

// uoffset returns the root offset of a FlatBuffer at least 4 bytes long.
func uoffset(buf []byte) flatbuffers.UOffsetT { return flatbuffers.GetUOffsetT(buf) }

// fbFlat is flatbuffers/flat bound to one envelope.
type fbFlat struct {
	name string
	src  *ds.Envelope
	obj  *fb.FlatT
	enc  []byte
	b    *flatbuffers.Builder
	last *fb.FlatT
}

func (p *fbFlat) Marshal() ([]byte, error) {
	// Slack, because the builder grows (doubling) when its free space is
	// short by even a few alignment bytes.
	b := flatbuffers.NewBuilder(len(p.enc) + 256)
	b.Finish(p.obj.Pack(b))
	return b.FinishedBytes(), nil
}

func (p *fbFlat) MarshalReuse() ([]byte, error) {
	p.b.Reset()
	p.b.Finish(p.obj.Pack(p.b))
	return p.b.FinishedBytes(), nil
}

// Unmarshal verifies every offset in data (the generated accessors would
// panic on corrupt input) and unpacks it into a new fb.FlatT.
func (p *fbFlat) Unmarshal(data []byte) error {
	if err := fb.VerifyFlat(data); err != nil {
		return fmt.Errorf("%s: unmarshal: %w", p.name, err)
	}
	var f fb.Flat
	f.Init(data, uoffset(data))
	p.last = f.UnPack()
	return nil
}

func (p *fbFlat) ReadHeader(data []byte) (ds.Header, error) { return ReadFlatHeaderFB(data) }

func (p *fbFlat) Encoded() []byte { return p.enc }

func (p *fbFlat) Verify() error {
	return verifyRoundTrip(p.name, p.src, p, func(data []byte) (*ds.Envelope, error) {
		if err := p.Unmarshal(data); err != nil {
			return nil, err
		}
		return FromFlatFB(p.last), nil
	})
}
