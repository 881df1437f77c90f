package media_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/nestedtest"
)

// TestGolden pins the dataset: the canonical hash of the first 5,000 records
// and the first record in readable form.
func TestGolden(t *testing.T) {
	recs := media.Generate(5000)
	first, err := json.MarshalIndent(recs[0], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	nestedtest.CheckGolden(t, "golden.txt", nested.Hash(recs)+"\n"+string(first)+"\n")
}

func TestLeaves(t *testing.T) {
	ls := media.Leaves()
	want := []string{"id", "media.uri", "media.title", "media.format", "media.copyright", "media.width",
		"media.height", "media.duration", "media.size", "media.bitrate", "media.player", "media.persons",
		"images.uri", "images.title", "images.size", "images.width", "images.height"}
	if !slices.Equal(ls, want) {
		t.Fatalf("Leaves = %q, want %q", ls, want)
	}
	t.Logf("media: %d leaves", len(ls))
}

func TestDistribution(t *testing.T) {
	g := media.New(media.DefaultSeed)
	var persons, images [4]int
	for i, r := range g.All(20000) {
		m := r.Media
		if r.ID != int64(i) || !slices.Contains(media.Formats(), m.Format) ||
			m.Duration < 1 || m.Duration > 3600 || m.Size < 1 || m.Size > 100<<10 ||
			(m.Player != media.PlayerJava && m.Player != media.PlayerFlash) || len(m.Persons) > 3 ||
			len(r.Images) < 1 || len(r.Images) > 3 || m.URI == "" || m.Title == "" {
			t.Fatalf("record %d out of range: %+v", i, r)
		}
		for _, im := range r.Images {
			if im.Size != media.SizeSmall && im.Size != media.SizeLarge || im.Width <= 0 || im.Height <= 0 {
				t.Fatalf("record %d: bad image %+v", i, im)
			}
		}
		persons[len(m.Persons)]++
		images[len(r.Images)]++
	}
	for k := range 4 {
		if persons[k] < 4000 {
			t.Errorf("%d records with %d persons, want about 5000", persons[k], k)
		}
	}
	var a, b media.Record
	g.At(1234, &a)
	g.At(1234, &b)
	if !media.Equal(&a, &b) {
		t.Fatal("At is not deterministic")
	}
}

func TestProject(t *testing.T) {
	r := media.Record{ID: 3,
		Media: media.Media{URI: "u", Title: "t", Format: "MKV", Width: 3840, Player: "FLASH",
			Persons: []string{"Joshua Barnes", "Terry Sanders"}},
		Images: []media.Image{{URI: "a", Size: "SMALL", Width: 240}, {URI: "b", Size: "LARGE", Height: 60}}}
	tests := []struct {
		name   string
		leaves []string
		want   media.Record
	}{
		{"id", []string{"id"}, media.Record{ID: 3}},
		{"repeated leaf", []string{"media.persons"}, media.Record{Media: media.Media{Persons: []string{"Joshua Barnes", "Terry Sanders"}}}},
		{"under repetition", []string{"images.size"}, media.Record{Images: []media.Image{{Size: "SMALL"}, {Size: "LARGE"}}}},
		{"mixed", []string{"images.height", "media.width", "images.uri"},
			media.Record{Media: media.Media{Width: 3840}, Images: []media.Image{{URI: "a"}, {URI: "b", Height: 60}}}},
		{"all", media.Leaves(), r},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := media.Project(&r, tt.leaves)
			if err != nil {
				t.Fatal(err)
			}
			if err := media.Diff(&got, &tt.want); err != nil {
				t.Fatal(err)
			}
		})
	}
	noImages := media.Record{ID: 1}
	got, err := media.Project(&noImages, []string{"images.uri"})
	if err != nil || got.Images != nil {
		t.Fatalf("Project of a record without images = %+v, %v", got, err)
	}
}

func TestParquetColumns(t *testing.T) {
	nestedtest.CheckParquetColumns[media.Record](t)
}

func TestParquetSubsets(t *testing.T) {
	nestedtest.CheckParquetSubsets(t, media.Generate(200), 60)
}
