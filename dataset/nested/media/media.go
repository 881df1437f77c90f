// Package media is the media-content dataset of the nested workload (seed
// 004): the jvm-serializers MediaContent schema with an id — a media item
// with a list of persons, and a list of images — 17 leaves, one level of
// repetition, about 401,000 records at full scale. Records are synthetic,
// drawn deterministically from a seed (package mock), so every machine
// generates identical records and any record can be generated on its own.
//
// The package also holds the record's schemas: the Avro schema in
// schema/media.avsc (AvroSchema) and the Protocol Buffers schema with its
// generated code and conversions in subpackage pb.
package media

import (
	"iter"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/mock"
)

// FullRecords is the number of records at full scale (the seed's ~401,000).
const FullRecords = 401_000

// DefaultSeed is the seed of the workload's dataset.
const DefaultSeed uint64 = 0x5e7b_0004_0002

// Player values.
const (
	PlayerJava  = "JAVA"
	PlayerFlash = "FLASH"
)

// Image size values.
const (
	SizeSmall = "SMALL"
	SizeLarge = "LARGE"
)

// Formats are the values of Media.Format.
func Formats() []string { return []string{"MP4", "MKV", "AVI", "MOV"} }

// Media is a media item. Player is PlayerJava or PlayerFlash.
type Media struct {
	URI       string   `json:"uri" msgpack:"uri" cbor:"uri" avro:"uri" parquet:"uri"`
	Title     string   `json:"title" msgpack:"title" cbor:"title" avro:"title" parquet:"title"`
	Format    string   `json:"format" msgpack:"format" cbor:"format" avro:"format" parquet:"format,dict"`
	Copyright string   `json:"copyright" msgpack:"copyright" cbor:"copyright" avro:"copyright" parquet:"copyright,dict"`
	Width     int32    `json:"width" msgpack:"width" cbor:"width" avro:"width" parquet:"width"`
	Height    int32    `json:"height" msgpack:"height" cbor:"height" avro:"height" parquet:"height"`
	Duration  int32    `json:"duration" msgpack:"duration" cbor:"duration" avro:"duration" parquet:"duration"`
	Size      int32    `json:"size" msgpack:"size" cbor:"size" avro:"size" parquet:"size"`
	Bitrate   int32    `json:"bitrate" msgpack:"bitrate" cbor:"bitrate" avro:"bitrate" parquet:"bitrate"`
	Player    string   `json:"player" msgpack:"player" cbor:"player" avro:"player" parquet:"player,enum"`
	Persons   []string `json:"persons" msgpack:"persons" cbor:"persons" avro:"persons" parquet:"persons"`
}

// Image is an image of a media item. Size is SizeSmall or SizeLarge.
type Image struct {
	URI    string `json:"uri" msgpack:"uri" cbor:"uri" avro:"uri" parquet:"uri"`
	Title  string `json:"title" msgpack:"title" cbor:"title" avro:"title" parquet:"title"`
	Size   string `json:"size" msgpack:"size" cbor:"size" avro:"size" parquet:"size,enum"`
	Width  int32  `json:"width" msgpack:"width" cbor:"width" avro:"width" parquet:"width"`
	Height int32  `json:"height" msgpack:"height" cbor:"height" avro:"height" parquet:"height"`
}

// Record is one media-content record.
type Record struct {
	ID     int64   `json:"id" msgpack:"id" cbor:"id" avro:"id" parquet:"id"`
	Media  Media   `json:"media" msgpack:"media" cbor:"media" avro:"media" parquet:"media"`
	Images []Image `json:"images" msgpack:"images" cbor:"images" avro:"images" parquet:"images"`
}

// Leaves returns the 17 leaf paths of Record in schema order, e.g.
// "media.persons", "images.uri".
func Leaves() []string { return nested.Leaves[Record]() }

// NewProjector returns a projector of records onto leaves (see
// nested.Projector); it fails on a path that is not a leaf.
func NewProjector(leaves []string) (*nested.Projector[Record], error) {
	return nested.NewProjector[Record](leaves)
}

// Project returns rec with only leaves set (see nested.Projector.Project). To
// project many records, build a projector once with NewProjector.
func Project(rec *Record, leaves []string) (Record, error) { return nested.Project(rec, leaves) }

// Equal reports whether a and b are equal, nil slices equal to empty ones.
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

// Common frame sizes the widths and heights are drawn from.
var (
	widths   = [...]int32{240, 320, 480, 640, 720, 1024, 1280, 1920, 2560, 3840}
	heights  = [...]int32{180, 240, 360, 480, 576, 720, 768, 1080, 1440, 2160}
	bitrates = [...]int32{128, 256, 400, 800, 1200, 2500, 5000, 8000}
	imgSides = [...]int32{32, 48, 60, 64, 100, 120, 150, 200, 240, 250, 300, 400, 480, 600, 800, 1024}
)

// At fills r with record i (0-based), whose ID is i.
func (g Generator) At(i int, r *Record) {
	var m mock.Rand
	m.Seed(g.seed, i)
	persons := make([]string, m.Between(0, 3))
	for k := range persons {
		persons[k] = m.FullName()
	}
	player := PlayerJava
	if m.Percent(50) {
		player = PlayerFlash
	}
	*r = Record{
		ID: int64(i),
		Media: Media{
			URI:       m.URL(4),
			Title:     m.Sentence(2, 6),
			Format:    mock.Pick(&m, Formats()),
			Copyright: m.Company(),
			Width:     mock.Pick(&m, widths[:]),
			Height:    mock.Pick(&m, heights[:]),
			Duration:  int32(m.Between(1, 3600)),
			Size:      int32(m.Between(1, 100<<10)),
			Bitrate:   mock.Pick(&m, bitrates[:]),
			Player:    player,
			Persons:   persons,
		},
	}
	r.Images = make([]Image, m.Between(1, 3))
	for k := range r.Images {
		size := SizeSmall
		if m.Percent(50) {
			size = SizeLarge
		}
		r.Images[k] = Image{
			URI: m.URL(7), Title: m.Sentence(2, 6), Size: size,
			Width: mock.Pick(&m, imgSides[:]), Height: mock.Pick(&m, imgSides[:]),
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
