package envelopefmt

import (
	"time"

	ds "github.com/serbench/serbench/dataset/envelope"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/serbench/serbench/dataset/envelope/fb"
	"github.com/serbench/serbench/dataset/envelope/mp"
	"github.com/serbench/serbench/dataset/envelope/pb"
)

// Conversions between Envelope and the generated types of each format. They
// share the Envelope's byte slices instead of copying them.

// ToFlatPB returns e as a flat Protocol Buffers message.
func ToFlatPB(e *ds.Envelope) *pb.Flat {
	return &pb.Flat{
		Id:            e.ID,
		TopicId:       e.TopicID,
		Mimetype:      e.Mimetype,
		Type:          typeToPB(e.Type),
		Key:           e.Key,
		Data:          e.Data,
		Encryption:    encryptionToPB(e.Encryption),
		Compression:   &pb.Compression{Algorithm: e.Compression.Algorithm},
		Geography:     regionToPB(e.Geography),
		Publisher:     publisherToPB(e.Publisher),
		UserDefinedId: e.UserDefinedID,
		Created:       timestamppb.New(e.Created),
		Committed:     timestamppb.New(e.Committed),
	}
}

// ToInnerPB returns the Inner message of e's wrapped form.
func ToInnerPB(e *ds.Envelope) *pb.Inner {
	return &pb.Inner{
		Mimetype:      e.Mimetype,
		Type:          typeToPB(e.Type),
		Encryption:    encryptionToPB(e.Encryption),
		Compression:   &pb.Compression{Algorithm: e.Compression.Algorithm},
		UserDefinedId: e.UserDefinedID,
		Data:          e.Data,
		Created:       timestamppb.New(e.Created),
	}
}

// ToWrappedPB returns the outer message of e's wrapped form, carrying inner,
// the already marshalled Inner message.
func ToWrappedPB(e *ds.Envelope, inner []byte) *pb.Wrapped {
	return &pb.Wrapped{
		Id:        e.ID,
		TopicId:   e.TopicID,
		Geography: regionToPB(e.Geography),
		Publisher: publisherToPB(e.Publisher),
		Key:       e.Key,
		Inner:     inner,
		Committed: timestamppb.New(e.Committed),
	}
}

// FromFlatPB converts a flat Protocol Buffers message to an Envelope.
func FromFlatPB(m *pb.Flat) *ds.Envelope {
	return &ds.Envelope{
		ID:            m.GetId(),
		TopicID:       m.GetTopicId(),
		Mimetype:      m.GetMimetype(),
		Type:          typeFromPB(m.GetType()),
		Key:           m.GetKey(),
		Data:          m.GetData(),
		Encryption:    encryptionFromPB(m.GetEncryption()),
		Compression:   ds.Compression{Algorithm: m.GetCompression().GetAlgorithm()},
		Geography:     regionFromPB(m.GetGeography()),
		Publisher:     publisherFromPB(m.GetPublisher()),
		UserDefinedID: m.GetUserDefinedId(),
		Created:       timeFromPB(m.GetCreated()),
		Committed:     timeFromPB(m.GetCommitted()),
	}
}

// FromWrappedPB converts the outer and inner messages of a wrapped event to
// an Envelope.
func FromWrappedPB(w *pb.Wrapped, in *pb.Inner) *ds.Envelope {
	return &ds.Envelope{
		ID:            w.GetId(),
		TopicID:       w.GetTopicId(),
		Mimetype:      in.GetMimetype(),
		Type:          typeFromPB(in.GetType()),
		Key:           w.GetKey(),
		Data:          in.GetData(),
		Encryption:    encryptionFromPB(in.GetEncryption()),
		Compression:   ds.Compression{Algorithm: in.GetCompression().GetAlgorithm()},
		Geography:     regionFromPB(w.GetGeography()),
		Publisher:     publisherFromPB(w.GetPublisher()),
		UserDefinedID: in.GetUserDefinedId(),
		Created:       timeFromPB(in.GetCreated()),
		Committed:     timeFromPB(w.GetCommitted()),
	}
}

func typeToPB(t ds.Type) *pb.Type {
	return &pb.Type{Name: t.Name, MajorVersion: t.MajorVersion, MinorVersion: t.MinorVersion, PatchVersion: t.PatchVersion}
}

func typeFromPB(t *pb.Type) ds.Type {
	return ds.Type{Name: t.GetName(), MajorVersion: t.GetMajorVersion(), MinorVersion: t.GetMinorVersion(), PatchVersion: t.GetPatchVersion()}
}

func encryptionToPB(x ds.Encryption) *pb.Encryption {
	return &pb.Encryption{Algorithm: x.Algorithm, KeyId: x.KeyID, EncryptionKey: x.EncryptionKey, HmacSecret: x.HMACSecret, Signature: x.Signature}
}

func encryptionFromPB(x *pb.Encryption) ds.Encryption {
	return ds.Encryption{Algorithm: x.GetAlgorithm(), KeyID: x.GetKeyId(), EncryptionKey: x.GetEncryptionKey(), HMACSecret: x.GetHmacSecret(), Signature: x.GetSignature()}
}

func regionToPB(r ds.Region) *pb.Region {
	return &pb.Region{Region: r.Region, Zone: r.Zone, Country: r.Country}
}

func regionFromPB(r *pb.Region) ds.Region {
	return ds.Region{Region: r.GetRegion(), Zone: r.GetZone(), Country: r.GetCountry()}
}

func publisherToPB(p ds.Publisher) *pb.Publisher {
	return &pb.Publisher{PublisherId: p.PublisherID, Ipaddr: p.IPAddr, ClientId: p.ClientID, UserAgent: p.UserAgent}
}

func publisherFromPB(p *pb.Publisher) ds.Publisher {
	return ds.Publisher{PublisherID: p.GetPublisherId(), IPAddr: p.GetIpaddr(), ClientID: p.GetClientId(), UserAgent: p.GetUserAgent()}
}

// timeFromPB converts a Timestamp to a UTC time; a missing one is the zero time.
func timeFromPB(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}

// ToFlatFB returns e in the FlatBuffers object API form.
func ToFlatFB(e *ds.Envelope) *fb.FlatT {
	return &fb.FlatT{
		Id:       e.ID,
		TopicId:  e.TopicID,
		Mimetype: e.Mimetype,
		Type:     &fb.TypeT{Name: e.Type.Name, MajorVersion: e.Type.MajorVersion, MinorVersion: e.Type.MinorVersion, PatchVersion: e.Type.PatchVersion},
		Key:      e.Key,
		Data:     e.Data,
		Encryption: &fb.EncryptionT{
			Algorithm: e.Encryption.Algorithm, KeyId: e.Encryption.KeyID,
			EncryptionKey: e.Encryption.EncryptionKey, HmacSecret: e.Encryption.HMACSecret, Signature: e.Encryption.Signature,
		},
		Compression:   &fb.CompressionT{Algorithm: e.Compression.Algorithm},
		Geography:     &fb.RegionT{Region: e.Geography.Region, Zone: e.Geography.Zone, Country: e.Geography.Country},
		Publisher:     &fb.PublisherT{PublisherId: e.Publisher.PublisherID, Ipaddr: e.Publisher.IPAddr, ClientId: e.Publisher.ClientID, UserAgent: e.Publisher.UserAgent},
		UserDefinedId: e.UserDefinedID,
		Created:       &fb.TimestampT{Seconds: e.Created.Unix(), Nanos: int32(e.Created.Nanosecond())},
		Committed:     &fb.TimestampT{Seconds: e.Committed.Unix(), Nanos: int32(e.Committed.Nanosecond())},
	}
}

// FromFlatFB converts a FlatBuffers object API value to an Envelope. Absent
// tables become zero values.
func FromFlatFB(t *fb.FlatT) *ds.Envelope {
	e := &ds.Envelope{ID: t.Id, TopicID: t.TopicId, Mimetype: t.Mimetype, Key: t.Key, Data: t.Data, UserDefinedID: t.UserDefinedId}
	if x := t.Type; x != nil {
		e.Type = ds.Type{Name: x.Name, MajorVersion: x.MajorVersion, MinorVersion: x.MinorVersion, PatchVersion: x.PatchVersion}
	}
	if x := t.Encryption; x != nil {
		e.Encryption = ds.Encryption{Algorithm: x.Algorithm, KeyID: x.KeyId, EncryptionKey: x.EncryptionKey, HMACSecret: x.HmacSecret, Signature: x.Signature}
	}
	if x := t.Compression; x != nil {
		e.Compression = ds.Compression{Algorithm: x.Algorithm}
	}
	if x := t.Geography; x != nil {
		e.Geography = ds.Region{Region: x.Region, Zone: x.Zone, Country: x.Country}
	}
	if x := t.Publisher; x != nil {
		e.Publisher = ds.Publisher{PublisherID: x.PublisherId, IPAddr: x.Ipaddr, ClientID: x.ClientId, UserAgent: x.UserAgent}
	}
	if x := t.Created; x != nil {
		e.Created = time.Unix(x.Seconds, int64(x.Nanos)).UTC()
	}
	if x := t.Committed; x != nil {
		e.Committed = time.Unix(x.Seconds, int64(x.Nanos)).UTC()
	}
	return e
}

// ToFlatMP returns e as a flat MessagePack struct.
func ToFlatMP(e *ds.Envelope) *mp.Flat {
	return &mp.Flat{
		ID:            e.ID,
		TopicID:       e.TopicID,
		Mimetype:      e.Mimetype,
		Type:          mp.Type(e.Type),
		Key:           e.Key,
		Data:          e.Data,
		Encryption:    mp.Encryption(e.Encryption),
		Compression:   mp.Compression(e.Compression),
		Geography:     mp.Region(e.Geography),
		Publisher:     mp.Publisher(e.Publisher),
		UserDefinedID: e.UserDefinedID,
		Created:       e.Created,
		Committed:     e.Committed,
	}
}

// ToInnerMP returns the Inner struct of e's wrapped MessagePack form.
func ToInnerMP(e *ds.Envelope) *mp.Inner {
	return &mp.Inner{
		Mimetype:      e.Mimetype,
		Type:          mp.Type(e.Type),
		Encryption:    mp.Encryption(e.Encryption),
		Compression:   mp.Compression(e.Compression),
		UserDefinedID: e.UserDefinedID,
		Data:          e.Data,
		Created:       e.Created,
	}
}

// ToWrappedMP returns the outer struct of e's wrapped MessagePack form,
// carrying inner, the already encoded Inner.
func ToWrappedMP(e *ds.Envelope, inner []byte) *mp.Wrapped {
	return &mp.Wrapped{
		ID:        e.ID,
		TopicID:   e.TopicID,
		Geography: mp.Region(e.Geography),
		Publisher: mp.Publisher(e.Publisher),
		Key:       e.Key,
		Inner:     inner,
		Committed: e.Committed,
	}
}

// FromFlatMP converts a flat MessagePack struct to an Envelope.
func FromFlatMP(m *mp.Flat) *ds.Envelope {
	return &ds.Envelope{
		ID:            m.ID,
		TopicID:       m.TopicID,
		Mimetype:      m.Mimetype,
		Type:          ds.Type(m.Type),
		Key:           m.Key,
		Data:          m.Data,
		Encryption:    ds.Encryption(m.Encryption),
		Compression:   ds.Compression(m.Compression),
		Geography:     ds.Region(m.Geography),
		Publisher:     ds.Publisher(m.Publisher),
		UserDefinedID: m.UserDefinedID,
		Created:       m.Created,
		Committed:     m.Committed,
	}
}

// FromWrappedMP converts the outer and inner structs of a wrapped MessagePack
// event to an Envelope.
func FromWrappedMP(w *mp.Wrapped, in *mp.Inner) *ds.Envelope {
	return &ds.Envelope{
		ID:            w.ID,
		TopicID:       w.TopicID,
		Mimetype:      in.Mimetype,
		Type:          ds.Type(in.Type),
		Key:           w.Key,
		Data:          in.Data,
		Encryption:    ds.Encryption(in.Encryption),
		Compression:   ds.Compression(in.Compression),
		Geography:     ds.Region(w.Geography),
		Publisher:     ds.Publisher(w.Publisher),
		UserDefinedID: in.UserDefinedID,
		Created:       in.Created,
		Committed:     w.Committed,
	}
}
