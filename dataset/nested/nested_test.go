package nested

import (
	"math"
	"slices"
	"strings"
	"testing"
)

type event struct {
	At     string   `json:"at"`
	Amount *float64 `json:"amount"`
}

type conn struct {
	IP     string  `json:"ip"`
	Events []event `json:"events"`
}

type device struct {
	Mac   string `json:"mac"`
	Conns []conn `json:"connections"`
}

type geo struct {
	Lat float64 `json:"lat"`
}

type rec struct {
	ID      int64    `json:"id"`
	About   *string  `json:"about"`
	Tags    []string `json:"tags"`
	Devices []device `json:"devices"`
	Geo     *geo     `json:"geo"`
	skipped int
	Ignored int `json:"-"`
}

func ptr[T any](v T) *T { return &v }

func sample() rec {
	return rec{
		ID: 7, About: ptr("hi"), Tags: []string{"a", "b"},
		Devices: []device{
			{Mac: "m0", Conns: []conn{{IP: "1", Events: []event{{At: "t0", Amount: ptr(1.5)}, {At: "t1"}}}}},
			{Mac: "m1"},
			{Mac: "m2", Conns: []conn{{IP: "2"}, {IP: "3", Events: []event{{At: "t2", Amount: ptr(-2.0)}}}}},
		},
		Geo:     &geo{Lat: 1.25},
		skipped: 3, Ignored: 4,
	}
}

func TestLeaves(t *testing.T) {
	got := Leaves[rec]()
	want := []string{"id", "about", "tags", "devices.mac", "devices.connections.ip",
		"devices.connections.events.at", "devices.connections.events.amount", "geo.lat"}
	if !slices.Equal(got, want) {
		t.Fatalf("Leaves = %q, want %q", got, want)
	}
}

func TestProject(t *testing.T) {
	r := sample()
	tests := []struct {
		name   string
		leaves []string
		want   rec
	}{
		{"none", nil, rec{}},
		{"scalar", []string{"id"}, rec{ID: 7}},
		{"optional present", []string{"about"}, rec{About: ptr("hi")}},
		{"repeated leaf", []string{"tags"}, rec{Tags: []string{"a", "b"}}},
		{"under repetition", []string{"devices.mac"}, rec{Devices: []device{{Mac: "m0"}, {Mac: "m1"}, {Mac: "m2"}}}},
		{"deep under repetition", []string{"devices.connections.events.amount"}, rec{Devices: []device{
			{Conns: []conn{{Events: []event{{Amount: ptr(1.5)}, {}}}}},
			{},
			{Conns: []conn{{}, {Events: []event{{Amount: ptr(-2.0)}}}}},
		}}},
		{"two deep, duplicates", []string{"devices.connections.ip", "devices.connections.events.at", "devices.connections.ip"},
			rec{Devices: []device{
				{Conns: []conn{{IP: "1", Events: []event{{At: "t0"}, {At: "t1"}}}}},
				{},
				{Conns: []conn{{IP: "2"}, {IP: "3", Events: []event{{At: "t2"}}}}},
			}}},
		{"optional group", []string{"geo.lat"}, rec{Geo: &geo{Lat: 1.25}}},
		{"all", Leaves[rec](), func() rec { s := sample(); s.skipped, s.Ignored = 0, 0; return s }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Project(&r, tt.leaves)
			if err != nil {
				t.Fatal(err)
			}
			if err := Diff(&got, &tt.want); err != nil {
				t.Fatal(err)
			}
		})
	}

	// Absent optional fields stay absent; the result does not alias rec.
	r2 := rec{Devices: []device{{Mac: "x"}}}
	got, err := Project(&r2, []string{"about", "geo.lat", "devices.connections.events.at", "tags"})
	if err != nil {
		t.Fatal(err)
	}
	if err := Diff(&got, &rec{Devices: []device{{}}}); err != nil {
		t.Fatal(err)
	}
	got, _ = Project(&r, []string{"tags", "about"})
	got.Tags[0], *got.About = "changed", "changed"
	if r.Tags[0] != "a" || *r.About != "hi" {
		t.Fatal("projection aliases the record")
	}
}

func TestProjectErrors(t *testing.T) {
	for _, l := range []string{"", "nope", "devices", "devices.nope", "id.x", "geo", "skipped", "Ignored"} {
		if _, err := NewProjector[rec]([]string{l}); err == nil {
			t.Errorf("leaf %q: no error", l)
		}
	}
	if _, err := NewProjector[int](nil); err == nil {
		t.Error("non-struct: no error")
	}
}

func TestDiff(t *testing.T) {
	a, b := sample(), sample()
	if err := Diff(&a, &b); err != nil {
		t.Fatal(err)
	}
	a.Tags, b.Tags = nil, []string{}
	a.Devices[1].Conns = []conn{}
	if !Equal(&a, &b) {
		t.Fatal("nil and empty slices differ")
	}
	a.Ignored = 99
	if !Equal(&a, &b) {
		t.Fatal("ignored field compared")
	}
	cases := []struct {
		mut  func(r *rec)
		path string
	}{
		{func(r *rec) { r.About = nil }, "about: got absent"},
		{func(r *rec) { r.Devices[2].Conns[1].Events[0].Amount = nil }, "devices[2].connections[1].events[0].amount"},
		{func(r *rec) { *r.Devices[0].Conns[0].Events[0].Amount = 1.5000001 }, "devices[0].connections[0].events[0].amount"},
		{func(r *rec) { r.Devices = r.Devices[:2] }, "devices: got 2 elements, want 3"},
		{func(r *rec) { r.Geo.Lat = math.Copysign(0, -1); b.Geo.Lat = 0 }, "geo.lat"},
		{func(r *rec) { r.Devices[1].Mac = "zz" }, `devices[1].mac: got "zz", want "m1"`},
	}
	// One Differ reused across every case must answer as Diff does: its
	// remembered fields carry over from record to record.
	var df Differ[rec]
	for _, c := range cases {
		a, b = sample(), sample()
		c.mut(&a)
		err := Diff(&a, &b)
		if err == nil || !strings.Contains(err.Error(), c.path) {
			t.Errorf("Diff = %v, want mention of %q", err, c.path)
		}
		if errD := df.Diff(&a, &b); errD == nil || errD.Error() != err.Error() {
			t.Errorf("Differ.Diff = %v, Diff = %v", errD, err)
		}
		a = sample()
		if err := df.Diff(&a, &a); err != nil {
			t.Errorf("Differ.Diff of a record with itself: %v", err)
		}
	}
	a.Ignored = 7
	if err := df.Diff(&a, &b); err != nil {
		t.Errorf("Differ compared the ignored field: %v", err)
	}
	nan1, nan2 := sample(), sample()
	nan1.Geo.Lat, nan2.Geo.Lat = math.NaN(), math.NaN()
	if !Equal(&nan1, &nan2) {
		t.Error("identical NaNs differ")
	}
}

func TestHash(t *testing.T) {
	a, b := []rec{sample()}, []rec{sample()}
	b[0].Tags = append([]string(nil), b[0].Tags...)
	if Hash(a) != Hash(b) {
		t.Fatal("equal records hash differently")
	}
	b[0].About = nil
	if Hash(a) == Hash(b) {
		t.Fatal("absent field does not change the hash")
	}
	e1, e2 := []rec{{}}, []rec{{Tags: []string{}}}
	if Hash(e1) != Hash(e2) {
		t.Fatal("nil and empty slices hash differently")
	}
}
