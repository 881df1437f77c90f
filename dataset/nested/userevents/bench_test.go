package userevents_test

import (
	"testing"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/userevents"
)

func BenchmarkGenerate(b *testing.B) {
	g := userevents.New(userevents.DefaultSeed)
	var r userevents.Record
	for i := 0; b.Loop(); i++ {
		g.At(i%userevents.FullRecords, &r)
	}
}

func BenchmarkProject(b *testing.B) {
	recs := userevents.Generate(100)
	p, err := userevents.NewProjector([]string{"devices.connections.events.at", "personal.company", "tags.name"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		_ = p.Project(&recs[i%len(recs)])
	}
}

func BenchmarkDiff(b *testing.B) {
	recs, again := userevents.Generate(100), userevents.Generate(100)
	for i := 0; b.Loop(); i++ {
		if err := nested.Diff(&recs[i%100], &again[i%100]); err != nil {
			b.Fatal(err)
		}
	}
}
