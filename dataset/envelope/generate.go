package envelope

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// Named payload sizes of the seed's benchmark, in bytes.
const (
	Tiny   = 1024
	XSmall = 4096
	Small  = 8192
	Medium = 32768
	Large  = 1468000
	XLarge = 5243000
)

// MaxPayload is the largest payload New accepts (1 GiB).
const MaxPayload = 1 << 30

// Size is a named payload size.
type Size struct {
	Name  string
	Bytes int
}

// NamedSizes returns the seed's six named payload sizes, Tiny to XLarge.
func NamedSizes() []Size {
	return []Size{
		{"Tiny", Tiny}, {"XSmall", XSmall}, {"Small", Small},
		{"Medium", Medium}, {"Large", Large}, {"XLarge", XLarge},
	}
}

// SweepSizes returns the seed's sweep of payload sizes: powers of two from
// 8 B to 4 MiB, named like "8B", "1KiB" and "4MiB".
func SweepSizes() []Size {
	var out []Size
	for shift := 3; shift <= 22; shift++ {
		n := 1 << shift
		out = append(out, Size{Name: sizeName(n), Bytes: n})
	}
	return out
}

// sizeName formats a power-of-two byte count with a binary unit.
func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	default:
		return strconv.Itoa(n) + "B"
	}
}

// ULIDTime is the time of every generated ULID (the seed report's date).
func ULIDTime() time.Time { return time.Date(2023, 5, 3, 15, 30, 16, 0, time.UTC) }

// CreatedTime is the created timestamp of every generated envelope.
func CreatedTime() time.Time { return time.Date(2023, 5, 3, 15, 30, 16, 123456789, time.UTC) }

// CommittedTime is the committed timestamp of every generated envelope.
func CommittedTime() time.Time { return time.Date(2023, 5, 3, 15, 30, 17, 987654321, time.UTC) }

// pcgStream is the second word of the PCG state; the seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

const (
	letters      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	alphanumeric = letters + "0123456789"
)

// New generates the envelope for seed with a payload of size bytes. The same
// seed and size give the same envelope on every machine (math/rand/v2 PCG).
func New(seed uint64, size int) (*Envelope, error) {
	if size < 0 || size > MaxPayload {
		return nil, fmt.Errorf("envelope: payload size %d out of range [0, %d]", size, MaxPayload)
	}
	g := generator{rng: rand.New(rand.NewPCG(seed, pcgStream))}
	country := g.text(2, letters)
	e := &Envelope{
		ID:       g.ulid(),
		TopicID:  g.ulid(),
		Mimetype: g.below(90),
		Type: Type{
			Name:         g.text(8, letters),
			MajorVersion: g.below(6),
			MinorVersion: g.below(44),
			PatchVersion: g.below(10),
		},
		Key:  g.bytes(20),
		Data: g.bytes(size),
		Encryption: Encryption{
			Algorithm:     g.below(11),
			KeyID:         g.text(32, letters),
			EncryptionKey: g.bytes(32),
			HMACSecret:    g.bytes(32),
			Signature:     g.bytes(128),
		},
		Compression: Compression{Algorithm: g.below(7)},
		Geography: Region{
			Region:  country + "-" + g.text(9, letters),
			Zone:    g.text(1, letters),
			Country: country,
		},
		Publisher: Publisher{
			PublisherID: g.ulid(),
			IPAddr:      g.ipv4(),
			ClientID:    g.text(12, letters),
			UserAgent:   g.text(9, letters),
		},
		UserDefinedID: g.text(14, alphanumeric),
		Created:       CreatedTime(),
		Committed:     CommittedTime(),
	}
	return e, nil
}

// generator draws the values of one envelope from a seeded RNG.
type generator struct {
	rng *rand.Rand
}

// below returns a uniform value in [0, n).
func (g generator) below(n uint32) uint32 { return g.rng.Uint32N(n) }

// text returns n characters drawn uniformly from chars.
func (g generator) text(n int, chars string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.rng.IntN(len(chars))]
	}
	return string(b)
}

// bytes returns n random bytes.
func (g generator) bytes(n int) []byte {
	b := make([]byte, n)
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], g.rng.Uint64())
	}
	if i < n {
		v := g.rng.Uint64()
		for ; i < n; i++ {
			b[i] = byte(v)
			v >>= 8
		}
	}
	return b
}

// ulid returns the text of a ULID with the fixed generation time and 80 bits
// of seeded entropy.
func (g generator) ulid() string {
	var entropy [10]byte
	binary.BigEndian.PutUint64(entropy[:8], g.rng.Uint64())
	binary.BigEndian.PutUint16(entropy[8:], uint16(g.rng.Uint32()))
	return NewULID(ULIDTime(), entropy).String()
}

// ipv4 returns a dotted-quad IPv4 address with octets in [1, 255].
func (g generator) ipv4() string {
	b := make([]byte, 0, 15)
	for i := 0; i < 4; i++ {
		if i > 0 {
			b = append(b, '.')
		}
		b = strconv.AppendUint(b, uint64(1+g.rng.IntN(255)), 10)
	}
	return string(b)
}
