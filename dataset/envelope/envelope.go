// Package envelope is the dataset of serbench's envelope workload (seed 002,
// "Faster Protocol Buffer Serialization"): an event with a small routing header
// (id, topic id, geography, publisher) and a payload of a chosen size, encoded
// either as one flat message or as an outer message wrapping the marshalled
// rest of the event. It is pure data: the Envelope types, the seeded
// generator, the seed's payload sizes, ULIDs and Compare.
//
// Schemas and generated code live in the subpackages pb (Protocol Buffers),
// fb (FlatBuffers) and mp (MessagePack); the code that binds those formats
// to an Envelope (the subjects, conversions and header-only readers) lives
// with the workload, in workload/envelope/envelopefmt.
package envelope

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// Envelope is one event of the workload in plain Go types, independent of any
// format. Every subject encodes the same Envelope.
type Envelope struct {
	ID            string
	TopicID       string
	Mimetype      uint32
	Type          Type
	Key           []byte
	Data          []byte
	Encryption    Encryption
	Compression   Compression
	Geography     Region
	Publisher     Publisher
	UserDefinedID string
	Created       time.Time
	Committed     time.Time
}

// Type names the event type and its semantic version.
type Type struct {
	Name         string
	MajorVersion uint32
	MinorVersion uint32
	PatchVersion uint32
}

// Encryption describes how the payload is encrypted and signed.
type Encryption struct {
	Algorithm     uint32
	KeyID         string
	EncryptionKey []byte
	HMACSecret    []byte
	Signature     []byte
}

// Compression names the payload compression algorithm.
type Compression struct {
	Algorithm uint32
}

// Region is where the event is stored.
type Region struct {
	Region  string
	Zone    string
	Country string
}

// Publisher identifies the client that published the event.
type Publisher struct {
	PublisherID string
	IPAddr      string
	ClientID    string
	UserAgent   string
}

// Header is the part of an event a server needs to route it: what a
// header-only read returns.
type Header struct {
	ID        string
	TopicID   string
	Geography Region
	Publisher Publisher
}

// Header returns the routing header of e.
func (e *Envelope) Header() Header {
	return Header{ID: e.ID, TopicID: e.TopicID, Geography: e.Geography, Publisher: e.Publisher}
}

// Compare reports the first field in which got differs from e, or nil when
// they are equal. Nil and empty byte slices are equal; times are compared
// with time.Time.Equal.
func (e *Envelope) Compare(got *Envelope) error {
	if e == nil || got == nil {
		if e == got {
			return nil
		}
		return errors.New("envelope: one envelope is nil")
	}
	var errs []error
	str := func(name, want, got string) {
		if want != got {
			errs = append(errs, fmt.Errorf("%s: got %q, want %q", name, got, want))
		}
	}
	num := func(name string, want, got uint32) {
		if want != got {
			errs = append(errs, fmt.Errorf("%s: got %d, want %d", name, got, want))
		}
	}
	byt := func(name string, want, got []byte) {
		if !bytes.Equal(want, got) {
			errs = append(errs, fmt.Errorf("%s: got %d bytes, want %d bytes (contents differ)", name, len(got), len(want)))
		}
	}
	tim := func(name string, want, got time.Time) {
		if !want.Equal(got) {
			errs = append(errs, fmt.Errorf("%s: got %v, want %v", name, got, want))
		}
	}
	str("id", e.ID, got.ID)
	str("topic_id", e.TopicID, got.TopicID)
	num("mimetype", e.Mimetype, got.Mimetype)
	str("type.name", e.Type.Name, got.Type.Name)
	num("type.major_version", e.Type.MajorVersion, got.Type.MajorVersion)
	num("type.minor_version", e.Type.MinorVersion, got.Type.MinorVersion)
	num("type.patch_version", e.Type.PatchVersion, got.Type.PatchVersion)
	byt("key", e.Key, got.Key)
	byt("data", e.Data, got.Data)
	num("encryption.algorithm", e.Encryption.Algorithm, got.Encryption.Algorithm)
	str("encryption.key_id", e.Encryption.KeyID, got.Encryption.KeyID)
	byt("encryption.encryption_key", e.Encryption.EncryptionKey, got.Encryption.EncryptionKey)
	byt("encryption.hmac_secret", e.Encryption.HMACSecret, got.Encryption.HMACSecret)
	byt("encryption.signature", e.Encryption.Signature, got.Encryption.Signature)
	num("compression.algorithm", e.Compression.Algorithm, got.Compression.Algorithm)
	str("user_defined_id", e.UserDefinedID, got.UserDefinedID)
	tim("created", e.Created, got.Created)
	tim("committed", e.Committed, got.Committed)
	if err := e.Header().Compare(got.Header()); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Compare reports how got differs from h, or nil when they are equal.
func (h Header) Compare(got Header) error {
	if h == got {
		return nil
	}
	var errs []error
	str := func(name, want, got string) {
		if want != got {
			errs = append(errs, fmt.Errorf("%s: got %q, want %q", name, got, want))
		}
	}
	str("id", h.ID, got.ID)
	str("topic_id", h.TopicID, got.TopicID)
	str("geography.region", h.Geography.Region, got.Geography.Region)
	str("geography.zone", h.Geography.Zone, got.Geography.Zone)
	str("geography.country", h.Geography.Country, got.Geography.Country)
	str("publisher.publisher_id", h.Publisher.PublisherID, got.Publisher.PublisherID)
	str("publisher.ipaddr", h.Publisher.IPAddr, got.Publisher.IPAddr)
	str("publisher.client_id", h.Publisher.ClientID, got.Publisher.ClientID)
	str("publisher.user_agent", h.Publisher.UserAgent, got.Publisher.UserAgent)
	return errors.Join(errs...)
}
