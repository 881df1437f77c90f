package userevents_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/nestedtest"
	"github.com/serbench/serbench/dataset/nested/userevents"
)

// TestGolden pins the dataset: the canonical hash of the first 1,000 records
// and the first record's top-level fields in readable form.
func TestGolden(t *testing.T) {
	recs := userevents.Generate(1000)
	hash := nested.Hash(recs)
	// The first record with only its first device's first connection.
	head := recs[0]
	dev := head.Devices[0]
	dev.Connections = dev.Connections[:min(1, len(dev.Connections))]
	head.Devices = []userevents.Device{dev}
	first, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	nestedtest.CheckGolden(t, "golden.txt", hash+"\n"+string(first)+"\n")
}

func TestLeaves(t *testing.T) {
	ls := userevents.Leaves()
	if len(ls) != 34 {
		t.Fatalf("%d leaves, want 34: %q", len(ls), ls)
	}
	for _, l := range []string{"about", "tags.name", "personal.eye_color", "personal.address.street",
		"devices.mac", "devices.connections.geo.long", "devices.connections.events.at",
		"devices.connections.events.amount"} {
		if !slices.Contains(ls, l) {
			t.Errorf("no leaf %q", l)
		}
	}
	t.Logf("userevents: %d leaves", len(ls))
}

func TestDistribution(t *testing.T) {
	const n = 500
	var absent, optional, bytes int
	count := func(present bool) {
		optional++
		if !present {
			absent++
		}
	}
	for i, r := range userevents.New(userevents.DefaultSeed).All(n) {
		if r.ID != int64(i) || len(r.Tags) > 3 || len(r.Devices) < 1 || len(r.Devices) > 3 {
			t.Fatalf("record %d out of range", i)
		}
		for k, tag := range r.Tags {
			if !slices.Contains(userevents.Tags(), tag.Name) || slices.ContainsFunc(r.Tags[:k],
				func(o userevents.Tag) bool { return o == tag }) {
				t.Fatalf("record %d: bad or repeated tag %q", i, tag.Name)
			}
		}
		p := &r.Personal
		count(r.About != nil)
		for _, s := range []*string{p.Company, p.Gender, p.Phone, p.Picture, p.EyeColor} {
			count(s != nil)
		}
		for _, d := range r.Devices {
			if !slices.Contains(userevents.Families(), d.Family) || len(d.Connections) > 20 {
				t.Fatalf("record %d: bad device %q with %d connections", i, d.Family, len(d.Connections))
			}
			for _, c := range d.Connections {
				if !slices.Contains(userevents.Referrers(), c.Referrer) || c.Geo.Lat < -90 || c.Geo.Lat > 90 {
					t.Fatalf("record %d: bad connection %+v", i, c)
				}
				for _, e := range c.Events {
					if !slices.Contains(userevents.EventTypes(), e.Type) {
						t.Fatalf("record %d: bad event type %q", i, e.Type)
					}
					count(e.Amount != nil)
				}
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		bytes += len(b)
	}
	if pct := 100 * absent / optional; pct < 37 || pct > 43 {
		t.Errorf("%d%% of optional fields absent, want about %d%%", pct, userevents.AbsentPercent)
	}
	if avg := bytes / n; avg < 9000 || avg > 11000 {
		t.Errorf("records average %d bytes of JSON, want about 10 KB", avg)
	}
}

func ptr[T any](v T) *T { return &v }

func TestProject(t *testing.T) {
	r := userevents.Record{
		ID: 1, About: ptr("about"), Tags: []userevents.Tag{{Name: "foo"}, {Name: "bar"}},
		Personal: userevents.Personal{Company: ptr("Feedspan"), Email: "e", YOB: 1980,
			Address: userevents.Address{Zip: "12345"}},
		Devices: []userevents.Device{
			{Mac: "m0", Family: "ios", Connections: []userevents.Connection{
				{IP: "1.2.3.4", Geo: userevents.Geo{Lat: 1.5}, Events: []userevents.Event{
					{At: "t0", Type: "Search", Amount: ptr(2.5)}, {At: "t1", Type: "Listing"}}},
				{IP: "5.6.7.8"},
			}},
			{Mac: "m1", Family: "android"},
		},
	}
	tests := []struct {
		name   string
		leaves []string
		want   userevents.Record
	}{
		{"optional present", []string{"about"}, userevents.Record{About: ptr("about")}},
		{"optional absent", []string{"personal.gender", "personal.phone"}, userevents.Record{}},
		{"nested group", []string{"personal.address.zip", "personal.company"},
			userevents.Record{Personal: userevents.Personal{Company: ptr("Feedspan"), Address: userevents.Address{Zip: "12345"}}}},
		{"repeated group", []string{"tags.name"}, userevents.Record{Tags: r.Tags}},
		{"devices.mac keeps every device", []string{"devices.mac"},
			userevents.Record{Devices: []userevents.Device{{Mac: "m0"}, {Mac: "m1"}}}},
		{"three deep, optional amount", []string{"devices.connections.events.amount"},
			userevents.Record{Devices: []userevents.Device{
				{Connections: []userevents.Connection{{Events: []userevents.Event{{Amount: ptr(2.5)}, {}}}, {}}},
				{},
			}}},
		{"two deep and a group under repetition", []string{"devices.connections.geo.lat", "devices.family"},
			userevents.Record{Devices: []userevents.Device{
				{Family: "ios", Connections: []userevents.Connection{{Geo: userevents.Geo{Lat: 1.5}}, {}}},
				{Family: "android"},
			}}},
		{"all", userevents.Leaves(), r},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := userevents.Project(&r, tt.leaves)
			if err != nil {
				t.Fatal(err)
			}
			if err := userevents.Diff(&got, &tt.want); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A projected record differs from the original in exactly the dropped leaves.
	gen := userevents.Generate(1)[0]
	p, err := userevents.Project(&gen, []string{"devices.connections.events.at"})
	if err != nil {
		t.Fatal(err)
	}
	if userevents.Equal(&p, &gen) {
		t.Fatal("projection equals the full record")
	}
}

func TestParquetColumns(t *testing.T) {
	nestedtest.CheckParquetColumns[userevents.Record](t)
}

func TestParquetSubsets(t *testing.T) {
	nestedtest.CheckParquetSubsets(t, userevents.Generate(40), 60)
}
