// Package userevents is the user-events dataset of the nested workload (seed
// 004): large records (about 10 KB as JSON) of a user, their personal details
// and their devices, each device's connections and each connection's events —
// repetition nested three deep, optional fields, mostly high-cardinality
// strings; 34 leaves, 31,000 records at full scale. Records are synthetic,
// drawn deterministically from a seed (package mock), so every machine
// generates identical records and any record can be generated on its own.
//
// Optional fields are pointers, nil when absent (about 40% of the time). The
// package also holds the record's schemas: the Avro schema in
// schema/userevents.avsc (AvroSchema) and the Protocol Buffers schema with its
// generated code and conversions in subpackage pb.
package userevents

import (
	"iter"
	"strconv"
	"strings"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/mock"
)

// FullRecords is the number of records at full scale (the seed's ~31,000).
const FullRecords = 31_000

// DefaultSeed is the seed of the workload's dataset.
const DefaultSeed uint64 = 0x5e7b_0004_0003

// AbsentPercent is the share of optional fields left absent.
const AbsentPercent = 40

// Tags returns the values of Tag.Name.
func Tags() []string { return []string{"foo", "bar", "baz", "foobar"} }

// Families returns the values of Device.Family.
func Families() []string { return []string{"ios", "android", "windows"} }

// Referrers returns the values of Connection.Referrer.
func Referrers() []string {
	return []string{"https://www.google.com", "https://www.bing.com", "https://www.facebook.com",
		"https://twitter.com", "https://www.reddit.com", "https://news.ycombinator.com"}
}

// EventTypes returns the values of Event.Type.
func EventTypes() []string { return []string{"Listing", "Purchase", "Search", "Profile update"} }

// Tag is a tag of a user.
type Tag struct {
	Name string `json:"name" msgpack:"name" cbor:"name" avro:"name" parquet:"name,dict"`
}

// Address is a postal address.
type Address struct {
	Country string `json:"country" msgpack:"country" cbor:"country" avro:"country" parquet:"country"`
	Zip     string `json:"zip" msgpack:"zip" cbor:"zip" avro:"zip" parquet:"zip"`
	State   string `json:"state" msgpack:"state" cbor:"state" avro:"state" parquet:"state"`
	City    string `json:"city" msgpack:"city" cbor:"city" avro:"city" parquet:"city"`
	Street  string `json:"street" msgpack:"street" cbor:"street" avro:"street" parquet:"street"`
}

// Personal holds a user's personal details; the pointer fields are optional.
type Personal struct {
	Company   *string `json:"company" msgpack:"company" cbor:"company" avro:"company" parquet:"company,optional"`
	Gender    *string `json:"gender" msgpack:"gender" cbor:"gender" avro:"gender" parquet:"gender,optional"`
	Phone     *string `json:"phone" msgpack:"phone" cbor:"phone" avro:"phone" parquet:"phone,optional"`
	Picture   *string `json:"picture" msgpack:"picture" cbor:"picture" avro:"picture" parquet:"picture,optional"`
	EyeColor  *string `json:"eye_color" msgpack:"eye_color" cbor:"eye_color" avro:"eye_color" parquet:"eye_color,optional"`
	Email     string  `json:"email" msgpack:"email" cbor:"email" avro:"email" parquet:"email"`
	FirstName string  `json:"first_name" msgpack:"first_name" cbor:"first_name" avro:"first_name" parquet:"first_name"`
	LastName  string  `json:"last_name" msgpack:"last_name" cbor:"last_name" avro:"last_name" parquet:"last_name"`
	YOB       int32   `json:"yob" msgpack:"yob" cbor:"yob" avro:"yob" parquet:"yob"`
	Address   Address `json:"address" msgpack:"address" cbor:"address" avro:"address" parquet:"address"`
}

// Geo is a position in degrees.
type Geo struct {
	Lat  float64 `json:"lat" msgpack:"lat" cbor:"lat" avro:"lat" parquet:"lat"`
	Long float64 `json:"long" msgpack:"long" cbor:"long" avro:"long" parquet:"long"`
}

// Event is a user action during a connection. Amount is optional.
type Event struct {
	At     string   `json:"at" msgpack:"at" cbor:"at" avro:"at" parquet:"at"`
	Type   string   `json:"type" msgpack:"type" cbor:"type" avro:"type" parquet:"type,dict"`
	Amount *float64 `json:"amount" msgpack:"amount" cbor:"amount" avro:"amount" parquet:"amount,optional"`
}

// Connection is a session of a device.
type Connection struct {
	At       string  `json:"at" msgpack:"at" cbor:"at" avro:"at" parquet:"at"`
	IP       string  `json:"ip" msgpack:"ip" cbor:"ip" avro:"ip" parquet:"ip"`
	Referrer string  `json:"referrer" msgpack:"referrer" cbor:"referrer" avro:"referrer" parquet:"referrer,dict"`
	Geo      Geo     `json:"geo" msgpack:"geo" cbor:"geo" avro:"geo" parquet:"geo"`
	Events   []Event `json:"events" msgpack:"events" cbor:"events" avro:"events" parquet:"events"`
}

// Device is a device of a user.
type Device struct {
	Mac         string       `json:"mac" msgpack:"mac" cbor:"mac" avro:"mac" parquet:"mac"`
	Family      string       `json:"family" msgpack:"family" cbor:"family" avro:"family" parquet:"family,enum"`
	Connections []Connection `json:"connections" msgpack:"connections" cbor:"connections" avro:"connections" parquet:"connections"`
}

// Record is one user-events record. About is optional.
type Record struct {
	ID           int64    `json:"id" msgpack:"id" cbor:"id" avro:"id" parquet:"id"`
	GUID         string   `json:"guid" msgpack:"guid" cbor:"guid" avro:"guid" parquet:"guid"`
	About        *string  `json:"about" msgpack:"about" cbor:"about" avro:"about" parquet:"about,optional"`
	RegisteredAt string   `json:"registered_at" msgpack:"registered_at" cbor:"registered_at" avro:"registered_at" parquet:"registered_at"`
	Tagline      string   `json:"tagline" msgpack:"tagline" cbor:"tagline" avro:"tagline" parquet:"tagline"`
	Username     string   `json:"username" msgpack:"username" cbor:"username" avro:"username" parquet:"username"`
	Balance      float64  `json:"balance" msgpack:"balance" cbor:"balance" avro:"balance" parquet:"balance"`
	Language     string   `json:"language" msgpack:"language" cbor:"language" avro:"language" parquet:"language,dict"`
	IsActive     bool     `json:"is_active" msgpack:"is_active" cbor:"is_active" avro:"is_active" parquet:"is_active"`
	Tags         []Tag    `json:"tags" msgpack:"tags" cbor:"tags" avro:"tags" parquet:"tags"`
	Personal     Personal `json:"personal" msgpack:"personal" cbor:"personal" avro:"personal" parquet:"personal"`
	Devices      []Device `json:"devices" msgpack:"devices" cbor:"devices" avro:"devices" parquet:"devices"`
}

// Leaves returns the 34 leaf paths of Record in schema order, e.g.
// "personal.address.zip", "devices.connections.events.amount".
func Leaves() []string { return nested.Leaves[Record]() }

// NewProjector returns a projector of records onto leaves (see
// nested.Projector); it fails on a path that is not a leaf.
func NewProjector(leaves []string) (*nested.Projector[Record], error) {
	return nested.NewProjector[Record](leaves)
}

// Project returns rec with only leaves set (see nested.Projector.Project). To
// project many records, build a projector once with NewProjector.
func Project(rec *Record, leaves []string) (Record, error) { return nested.Project(rec, leaves) }

// Equal reports whether a and b are equal: nil slices equal empty ones, an
// absent optional field differs from a present zero, floats bit for bit.
func Equal(a, b *Record) bool { return nested.Equal(a, b) }

// Diff returns nil when got equals want, else an error naming the first
// differing leaf.
func Diff(got, want *Record) error { return nested.Diff(got, want) }

// Generator produces the records of one seed. Record i depends only on the
// seed and i. A Generator is immutable and safe for concurrent use.
type Generator struct {
	seed uint64
}

// New returns a generator for seed.
func New(seed uint64) Generator { return Generator{seed: seed} }

// Value ranges of the generator.
const (
	registeredFrom = 1_388_534_400 // 2014-01-01T00:00:00Z
	registeredTo   = 1_420_070_400 // 2015-01-01T00:00:00Z
	activityDays   = 365           // connections follow registration within a year
	maxDevices     = 3
	maxConnections = 20
	maxEvents      = 9
)

var (
	languages = [...]string{"English", "French", "German", "Spanish", "Portuguese", "Chinese", "Japanese",
		"Russian", "Arabic", "Hindi", "Indonesian", "Polish"}
	genders   = [...]string{"Male", "Female"}
	eyeColors = [...]string{"blue", "brown", "green", "hazel", "grey", "amber"}
)

// maybe returns a pointer to the value of f, or nil AbsentPercent% of the time
// (f is called only when present).
func maybe[T any](m *mock.Rand, f func() T) *T {
	if m.Percent(AbsentPercent) {
		return nil
	}
	v := f()
	return &v
}

// At fills r with record i (0-based), whose ID is i.
func (g Generator) At(i int, r *Record) {
	var m mock.Rand
	m.Seed(g.seed, i)
	first, last := m.FirstName(), m.LastName()
	registered := m.Unix(registeredFrom, registeredTo)
	*r = Record{
		ID:           int64(i),
		GUID:         m.GUID(),
		About:        maybe(&m, func() string { return m.Paragraph(3, 8) }),
		RegisteredAt: mock.Timestamp(registered),
		Tagline:      m.Sentence(3, 10),
		Username:     strings.ToLower(first[:1]+last) + strconv.Itoa(m.Between(1, 9999)),
		Balance:      m.Fixed(0, 10000, 2),
		Language:     mock.Pick(&m, languages[:]),
		IsActive:     m.Percent(50),
	}
	tags := Tags()
	for k := range m.Between(0, 3) { // k distinct tags: a partial shuffle
		j := k + m.Below(len(tags)-k)
		tags[k], tags[j] = tags[j], tags[k]
		r.Tags = append(r.Tags, Tag{Name: tags[k]})
	}
	r.Personal = Personal{
		Company:   maybe(&m, m.Company),
		Gender:    maybe(&m, func() string { return mock.Pick(&m, genders[:]) }),
		Phone:     maybe(&m, m.Phone),
		Picture:   maybe(&m, func() string { return m.URL(3) }),
		EyeColor:  maybe(&m, func() string { return mock.Pick(&m, eyeColors[:]) }),
		Email:     strings.ToLower(first+"."+last) + strconv.Itoa(m.Between(1, 999)) + "@" + m.Domain(),
		FirstName: first,
		LastName:  last,
		YOB:       int32(m.Between(1940, 2000)),
	}
	a := m.Address()
	r.Personal.Address = Address{Country: a.Country, Zip: a.Zip, State: a.State, City: a.City, Street: a.Street}
	r.Devices = make([]Device, m.Between(1, maxDevices))
	for d := range r.Devices {
		dev := &r.Devices[d]
		dev.Mac = m.MAC()
		dev.Family = mock.Pick(&m, Families())
		if n := m.Between(0, maxConnections); n > 0 {
			dev.Connections = make([]Connection, n)
		}
		for c := range dev.Connections {
			conn := &dev.Connections[c]
			at := registered + m.Unix(0, activityDays*86400)
			conn.At = mock.Timestamp(at)
			conn.IP = m.IPv4()
			conn.Referrer = mock.Pick(&m, Referrers())
			conn.Geo = Geo{Lat: m.Fixed(-90, 90, 6), Long: m.Fixed(-180, 180, 6)}
			conn.Events = make([]Event, m.Between(1, maxEvents))
			for e := range conn.Events {
				at += m.Unix(1, 600)
				conn.Events[e] = Event{
					At:     mock.Timestamp(at),
					Type:   mock.Pick(&m, EventTypes()),
					Amount: maybe(&m, func() float64 { return m.Fixed(0.01, 500, 2) }),
				}
			}
		}
	}
}

// All yields records 0..n-1. Each yielded record is freshly allocated; the int
// is its index.
func (g Generator) All(n int) iter.Seq2[int, *Record] {
	return func(yield func(int, *Record) bool) {
		for i := range n {
			var r Record
			g.At(i, &r)
			if !yield(i, &r) {
				return
			}
		}
	}
}

// Slice returns records 0..n-1.
func (g Generator) Slice(n int) []Record {
	out := make([]Record, n)
	for i := range out {
		g.At(i, &out[i])
	}
	return out
}

// Generate returns the first n records of the workload's dataset (DefaultSeed).
func Generate(n int) []Record { return New(DefaultSeed).Slice(n) }
