package nestedarrow_test

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/workload/nested/nestedarrow"
	"github.com/serbench/serbench/workload/nested/nestedfmt"
)

type event struct {
	At     string   `json:"at"`
	Amount *float64 `json:"amount"`
}

type device struct {
	Mac    string   `json:"mac"`
	Events []event  `json:"events"`
	Names  []string `json:"names"`
}

type rec struct {
	ID      int64    `json:"id"`
	N       int32    `json:"n"`
	OK      bool     `json:"ok"`
	About   *string  `json:"about"`
	Devices []device `json:"devices"`
	hidden  int
}

func ptr[T any](v T) *T { return &v }

func TestRoundTrip(t *testing.T) {
	recs := []rec{
		{},
		{ID: 1, N: -2, OK: true, About: ptr(""), hidden: 5, Devices: []device{{}, {Mac: "m", Names: []string{"a", ""}}}},
		{ID: 2, Devices: []device{{Events: []event{{At: "t", Amount: ptr(1.5)}, {}}}, {Events: []event{}}}},
	}
	m, err := nestedarrow.NewMapping[rec]()
	if err != nil {
		t.Fatal(err)
	}
	want := "schema:\n  fields: 5\n    - id: type=int64\n    - n: type=int32\n    - ok: type=bool\n" +
		"    - about: type=utf8, nullable\n" +
		"    - devices: type=list<element: struct<mac: utf8, events: list<element: struct<at: utf8, amount: float64 nullable>>, names: list<element: utf8>>>"
	if got := m.Schema.String(); got != want {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
	for _, layout := range []arrowipc.Layout{arrowipc.File, arrowipc.Stream} {
		f, err := arrowipc.New("arrow", m, layout, "none", 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nestedfmt.RoundTrip(recs, f); err != nil {
			t.Errorf("layout %d: %v", layout, err)
		}
	}
}

func TestErrors(t *testing.T) {
	type bad struct {
		M map[string]int `json:"m"`
	}
	if _, err := nestedarrow.NewMapping[bad](); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Errorf("map field: err %v", err)
	}
	if _, err := nestedarrow.NewMapping[int](); err == nil {
		t.Error("non-struct: no error")
	}
	m, err := nestedarrow.NewMapping[rec]()
	if err != nil {
		t.Fatal(err)
	}
	other, err := nestedarrow.NewMapping[event]()
	if err != nil {
		t.Fatal(err)
	}
	b := emptyBatch(other.Schema)
	defer b.Release()
	if _, err := m.Bind(b); err == nil {
		t.Error("batch of another schema bound")
	}
}
