package envelopefmt

import (
	"errors"
	"fmt"

	ds "github.com/serbench/serbench/dataset/envelope"

	"google.golang.org/protobuf/proto"

	"github.com/serbench/serbench/dataset/envelope/pb"
	"github.com/serbench/serbench/results"
)

// protoSubject encodes the envelope with google.golang.org/protobuf
// (proto.Marshal and proto.Unmarshal), as the seed did. Its flat layout,
// the seed's message, is the baseline every other subject is compared with.
func protoSubject(lay layout) Subject {
	header, headerStrings := protoHeaderRead(lay)
	d := description{
		library: "protobuf",
		module:  "google.golang.org/protobuf",
		what:    "Protocol Buffers, protoc-gen-go code on the reflective runtime (proto.Marshal, proto.Unmarshal)",
		layout:  lay,
		header:  header,
		settings: map[string]string{
			"codegen":        "protoc-gen-go (reflective runtime)",
			"unmarshal":      "fresh message",
			"marshal_reuse":  "proto.MarshalOptions.MarshalAppend",
			"validated":      "wire structure and UTF-8 of every string (proto.Unmarshal)",
			"header_strings": headerStrings,
		},
	}
	name := d.path()
	s := d.subject(func(e *ds.Envelope) (Prepared, error) {
		if e == nil {
			return nil, errors.New("envelope: protobuf: nil envelope")
		}
		if lay == flat {
			p := &protoFlat{name: name, src: e, msg: ToFlatPB(e)}
			var err error
			if p.enc, err = proto.Marshal(p.msg); err != nil {
				return nil, fmt.Errorf("%s: prepare: %w", p.name, err)
			}
			return p, nil
		}
		p := &protoWrapped{name: name, src: e, inner: ToInnerPB(e)}
		innerBytes, err := proto.Marshal(p.inner)
		if err != nil {
			return nil, fmt.Errorf("%s: prepare inner: %w", p.name, err)
		}
		p.msg = ToWrappedPB(e, innerBytes)
		if p.enc, err = proto.Marshal(p.msg); err != nil {
			return nil, fmt.Errorf("%s: prepare: %w", p.name, err)
		}
		return p, nil
	})
	if lay == flat {
		s.Desc.Role = results.RoleBaseline
	}
	return s
}

// protoHeaderRead describes the header-only read of a protobuf layout
// (protobuf and vtprotobuf read it the same way): how it works and whether
// its strings alias the input.
func protoHeaderRead(lay layout) (header, headerStrings string) {
	if lay == wrapped {
		return "unmarshal outer message only (inner stays bytes, copied)", "copied"
	}
	return "protowire scan of fields 1, 2, 9, 10 (payload skipped, header strings checked for UTF-8)", "alias input (unsafe.String)"
}

// protoFlat is protobuf/flat bound to one envelope.
type protoFlat struct {
	name string
	src  *ds.Envelope
	msg  *pb.Flat
	enc  []byte
	buf  []byte
	last *pb.Flat
}

func (p *protoFlat) Marshal() ([]byte, error) { return proto.Marshal(p.msg) }

func (p *protoFlat) MarshalReuse() ([]byte, error) {
	out, err := proto.MarshalOptions{}.MarshalAppend(p.buf[:0], p.msg)
	p.buf = out
	return out, err
}

func (p *protoFlat) Unmarshal(data []byte) error {
	m := &pb.Flat{}
	if err := proto.Unmarshal(data, m); err != nil {
		return fmt.Errorf("%s: unmarshal: %w", p.name, err)
	}
	p.last = m
	return nil
}

func (p *protoFlat) ReadHeader(data []byte) (ds.Header, error) { return ReadFlatHeaderPB(data) }

func (p *protoFlat) Encoded() []byte { return p.enc }

func (p *protoFlat) Verify() error {
	return verifyRoundTrip(p.name, p.src, p, func(data []byte) (*ds.Envelope, error) {
		if err := p.Unmarshal(data); err != nil {
			return nil, err
		}
		if !proto.Equal(p.last, p.msg) {
			return nil, errors.New("decoded message not proto.Equal to the source")
		}
		return FromFlatPB(p.last), nil
	})
}

// protoWrapped is protobuf/wrapped bound to one envelope.
type protoWrapped struct {
	name      string
	src       *ds.Envelope
	msg       *pb.Wrapped
	inner     *pb.Inner
	enc       []byte
	buf       []byte
	last      *pb.Wrapped
	lastInner *pb.Inner
}

func (p *protoWrapped) Marshal() ([]byte, error) { return proto.Marshal(p.msg) }

func (p *protoWrapped) MarshalReuse() ([]byte, error) {
	out, err := proto.MarshalOptions{}.MarshalAppend(p.buf[:0], p.msg)
	p.buf = out
	return out, err
}

func (p *protoWrapped) Unmarshal(data []byte) error {
	w := &pb.Wrapped{}
	if err := proto.Unmarshal(data, w); err != nil {
		return fmt.Errorf("%s: unmarshal: %w", p.name, err)
	}
	in := &pb.Inner{}
	if err := proto.Unmarshal(w.Inner, in); err != nil {
		return fmt.Errorf("%s: unmarshal inner: %w", p.name, err)
	}
	p.last, p.lastInner = w, in
	return nil
}

func (p *protoWrapped) ReadHeader(data []byte) (ds.Header, error) {
	w := &pb.Wrapped{}
	if err := proto.Unmarshal(data, w); err != nil {
		return ds.Header{}, fmt.Errorf("%s: read header: %w", p.name, err)
	}
	return wrappedHeaderPB(w), nil
}

// wrappedHeaderPB returns the header fields of a decoded outer message.
func wrappedHeaderPB(w *pb.Wrapped) ds.Header {
	return ds.Header{ID: w.Id, TopicID: w.TopicId, Geography: regionFromPB(w.Geography), Publisher: publisherFromPB(w.Publisher)}
}

func (p *protoWrapped) Encoded() []byte { return p.enc }

func (p *protoWrapped) Verify() error {
	return verifyRoundTrip(p.name, p.src, p, func(data []byte) (*ds.Envelope, error) {
		if err := p.Unmarshal(data); err != nil {
			return nil, err
		}
		if !proto.Equal(p.last, p.msg) {
			return nil, errors.New("decoded outer message not proto.Equal to the source")
		}
		if !proto.Equal(p.lastInner, p.inner) {
			return nil, errors.New("decoded inner message not proto.Equal to the source")
		}
		return FromWrappedPB(p.last, p.lastInner), nil
	})
}
