package envelopefmt

import (
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"

	ds "github.com/serbench/serbench/dataset/envelope"

	"github.com/tinylib/msgp/msgp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/serbench/serbench/dataset/envelope/fb"
)

// Header-only readers. They return strings that alias the input (built with
// unsafe.String, no copy): the Header is valid only while data is neither
// modified nor reused. This is what makes them allocation-free.

// aliasString returns b as a string sharing b's memory.
func aliasString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Field numbers of the header fields of the flat Protocol Buffers message.
const (
	pbFlatID        protowire.Number = 1
	pbFlatTopicID   protowire.Number = 2
	pbFlatGeography protowire.Number = 9
	pbFlatPublisher protowire.Number = 10
)

// ReadFlatHeaderPB reads the header of a flat Protocol Buffers message (pb.Flat)
// from its wire form without decoding the rest: it reads fields 1, 2, 9 and 10
// and skips every other field, the payload (field 6) included, without
// copying it. Semantics follow proto.Unmarshal: the last occurrence of a string
// wins, repeated sub-messages merge, fields with an unexpected wire type are
// skipped as unknown, and strings must be valid UTF-8.
func ReadFlatHeaderPB(data []byte) (ds.Header, error) {
	var h ds.Header
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return ds.Header{}, fmt.Errorf("envelope: protobuf header: tag: %w", protowire.ParseError(n))
		}
		data = data[n:]
		if typ != protowire.BytesType || (num != pbFlatID && num != pbFlatTopicID && num != pbFlatGeography && num != pbFlatPublisher) {
			n = protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return ds.Header{}, fmt.Errorf("envelope: protobuf header: skip field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return ds.Header{}, fmt.Errorf("envelope: protobuf header: field %d: %w", num, protowire.ParseError(n))
		}
		data = data[n:]
		var err error
		switch num {
		case pbFlatID:
			h.ID, err = pbString(v)
		case pbFlatTopicID:
			h.TopicID, err = pbString(v)
		case pbFlatGeography:
			err = pbStrings(v, &h.Geography.Region, &h.Geography.Zone, &h.Geography.Country)
		case pbFlatPublisher:
			err = pbStrings(v, &h.Publisher.PublisherID, &h.Publisher.IPAddr, &h.Publisher.ClientID, &h.Publisher.UserAgent)
		}
		if err != nil {
			return ds.Header{}, fmt.Errorf("envelope: protobuf header: field %d: %w", num, err)
		}
	}
	return h, nil
}

// errInvalidUTF8 reports a string field that is not valid UTF-8.
var errInvalidUTF8 = errors.New("string field contains invalid UTF-8")

// pbString validates a proto3 string and returns it aliasing b.
func pbString(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", errInvalidUTF8
	}
	return aliasString(b), nil
}

// pbStrings decodes a message whose fields 1..len(dst) are strings (Region,
// Publisher) into dst, skipping other fields.
func pbStrings(data []byte, dst ...*string) error {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return fmt.Errorf("tag: %w", protowire.ParseError(n))
		}
		data = data[n:]
		if typ != protowire.BytesType || num < 1 || int(num) > len(dst) {
			n = protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return fmt.Errorf("skip field %d: %w", num, protowire.ParseError(n))
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		data = data[n:]
		s, err := pbString(v)
		if err != nil {
			return fmt.Errorf("field %d: %w", num, err)
		}
		*dst[num-1] = s
	}
	return nil
}

// ReadHeaderMP reads the header of a flat or wrapped MessagePack event (mp.Flat
// or mp.Wrapped) without decoding the rest: it walks the top-level map,
// reading the id, topic_id, geography and publisher entries and skipping every
// other value with msgp.Skip, which steps over the payload without copying it.
// Unknown keys are skipped, as msgp's generated decoder does; bytes after the
// map are an error.
func ReadHeaderMP(data []byte) (ds.Header, error) {
	var h ds.Header
	n, rest, err := msgp.ReadMapHeaderBytes(data)
	if err != nil {
		return ds.Header{}, fmt.Errorf("envelope: msgpack header: %w", err)
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		key, rest, err = msgp.ReadMapKeyZC(rest)
		if err != nil {
			return ds.Header{}, fmt.Errorf("envelope: msgpack header: key %d: %w", i, err)
		}
		switch string(key) {
		case "id":
			h.ID, rest, err = mpString(rest)
		case "topic_id":
			h.TopicID, rest, err = mpString(rest)
		case "geography":
			rest, err = mpStrings(rest, []string{"region", "zone", "country"},
				&h.Geography.Region, &h.Geography.Zone, &h.Geography.Country)
		case "publisher":
			rest, err = mpStrings(rest, []string{"publisher_id", "ipaddr", "client_id", "user_agent"},
				&h.Publisher.PublisherID, &h.Publisher.IPAddr, &h.Publisher.ClientID, &h.Publisher.UserAgent)
		default:
			rest, err = msgp.Skip(rest)
		}
		if err != nil {
			return ds.Header{}, fmt.Errorf("envelope: msgpack header: %q: %w", key, err)
		}
	}
	if len(rest) != 0 {
		return ds.Header{}, fmt.Errorf("envelope: msgpack header: %d trailing bytes", len(rest))
	}
	return h, nil
}

// mpString reads a MessagePack string aliasing b.
func mpString(b []byte) (string, []byte, error) {
	v, rest, err := msgp.ReadStringZC(b)
	if err != nil {
		return "", b, err
	}
	return aliasString(v), rest, nil
}

// mpStrings reads a map whose values under keys are strings into dst (in the
// same order), skipping other entries.
func mpStrings(b []byte, keys []string, dst ...*string) ([]byte, error) {
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, err
	}
	for i := uint32(0); i < n; i++ {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return b, fmt.Errorf("key %d: %w", i, err)
		}
		j := 0
		for j < len(keys) && keys[j] != string(key) {
			j++
		}
		if j == len(keys) {
			rest, err = msgp.Skip(rest)
		} else {
			*dst[j], rest, err = mpString(rest)
		}
		if err != nil {
			return b, fmt.Errorf("%q: %w", key, err)
		}
	}
	return rest, nil
}

// ReadFlatHeaderFB reads the header of a FlatBuffers Flat by direct field
// access, after checking with fb.VerifyFlatHeader that the fields it reads are
// in bounds.
func ReadFlatHeaderFB(data []byte) (ds.Header, error) {
	if err := fb.VerifyFlatHeader(data); err != nil {
		return ds.Header{}, fmt.Errorf("envelope: flatbuffers header: %w", err)
	}
	var f fb.Flat
	f.Init(data, uoffset(data))
	var h ds.Header
	h.ID = aliasString(f.Id())
	h.TopicID = aliasString(f.TopicId())
	var r fb.Region
	if f.Geography(&r) != nil {
		h.Geography = ds.Region{Region: aliasString(r.Region()), Zone: aliasString(r.Zone()), Country: aliasString(r.Country())}
	}
	var p fb.Publisher
	if f.Publisher(&p) != nil {
		h.Publisher = ds.Publisher{PublisherID: aliasString(p.PublisherId()), IPAddr: aliasString(p.Ipaddr()),
			ClientID: aliasString(p.ClientId()), UserAgent: aliasString(p.UserAgent())}
	}
	return h, nil
}
