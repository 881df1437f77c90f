package nestedparquet_test

import (
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/serbench/serbench/dataset/nested/nestedparquet"
	"github.com/serbench/serbench/dataset/nested/nestedtest"
)

type event struct {
	At     string   `json:"at" parquet:"at"`
	Amount *float64 `json:"amount" parquet:"amount,optional"`
}

type device struct {
	Mac    string   `json:"mac" parquet:"mac"`
	Events []event  `json:"events" parquet:"events"`
	Names  []string `json:"names" parquet:"names"`
}

type rec struct {
	ID      int64    `json:"id" parquet:"id"`
	About   *string  `json:"about" parquet:"about,optional"`
	Devices []device `json:"devices" parquet:"devices"`
}

func ptr[T any](v T) *T { return &v }

func TestSubsets(t *testing.T) {
	recs := []rec{
		{},
		{ID: 1, About: ptr(""), Devices: []device{{}, {Mac: "m", Names: []string{"a", ""}}}},
		{ID: 2, Devices: []device{{Events: []event{{At: "t", Amount: ptr(1.5)}, {}}}, {Mac: "x"}}},
	}
	nestedtest.CheckParquetSubsets(t, recs, 30)
}

func TestErrors(t *testing.T) {
	for _, leaves := range [][]string{nil, {"nope"}, {"devices"}, {"devices.events"}} {
		if _, err := nestedparquet.Schema[rec](leaves); err == nil {
			t.Errorf("Schema(%q): no error", leaves)
		}
	}
}

func TestAllLeavesIsTheFullSchema(t *testing.T) {
	s, err := nestedparquet.Schema[rec]([]string{"devices.names", "id", "about", "devices.mac",
		"devices.events.at", "devices.events.amount"})
	if err != nil {
		t.Fatal(err)
	}
	if !parquet.EqualNodes(s, parquet.SchemaOf(new(rec))) {
		t.Fatalf("all leaves: schema %v, want the full one", s)
	}
	s, err = nestedparquet.Schema[rec]([]string{"devices.names", "id"})
	if err != nil {
		t.Fatal(err)
	}
	if parquet.EqualNodes(s, parquet.SchemaOf(new(rec))) || len(s.Columns()) != 2 {
		t.Fatalf("two leaves: schema %v", s)
	}
}
