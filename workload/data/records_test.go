package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/userdata"
)

// TestOneObjectInput: a .json input holding one top-level object (a
// TopoJSON map) is refused by Plan, before anything is measured, as a
// usage error (exit status 2) of one line naming --records and the member
// arrays; a bad --records path is refused by CheckSettings.
func TestOneObjectInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       Settings
		want    []string
		oneObj  bool
		records bool // the error is about --records
	}{
		{"no --records", Settings{Input: filepath.Join(testdata, "topo.json")},
			[]string{"topo.json: holds one JSON object, not records; name the member array that holds the records with --records PATH (arrays of objects: objects.countries.geometries (4), "}, true, false},
		{"--records names no member", Settings{Input: filepath.Join(testdata, "topo.json"), Records: "objects.nope"},
			[]string{"--records objects.nope: objects has no member \"nope\" (arrays of objects: objects.countries.geometries (4)"}, false, true},
		{"--records names an array of arrays", Settings{Input: filepath.Join(testdata, "topo.json"), Records: "arcs"},
			[]string{"element 1 of arcs is an array, not an object"}, false, true},
		{"--records on JSON Lines", Settings{Input: filepath.Join(testdata, "nested.jsonl"), Records: "a"},
			[]string{"--records selects a member array of a .json file"}, false, true},
		{"a bad path", Settings{Input: filepath.Join(testdata, "topo.json"), Records: "a..b"},
			[]string{"--records \"a..b\": an empty member name"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewWith(tc.s, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
			var ue *workload.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.ContainsAny(msg, "\n\r") || len(msg) > MaxErrorText {
				t.Errorf("not one line of at most %d bytes: %q", MaxErrorText, msg)
			}
			var oe *userdata.OneObjectError
			if errors.As(err, &oe) != tc.oneObj {
				t.Errorf("OneObjectError: %v, want %v", oe != nil, tc.oneObj)
			}
		})
	}
	if err := CheckSettings(Settings{Records: "/a~2"}); err == nil {
		t.Error("CheckSettings accepted --records /a~2")
	}
	if err := CheckSettings(Settings{Records: "/objects/v1.2/geometries"}); err != nil {
		t.Errorf("CheckSettings: %v", err)
	}
}

// TestRecordsRun: with --records the TopoJSON file's member array is the
// rows, and every format round-trips them verified (CSV cannot hold the
// nested columns); the inference note says where the rows came from.
func TestRecordsRun(t *testing.T) {
	for _, records := range []string{"objects.countries.geometries", "/objects/v1.2/geometries"} {
		t.Run(records, func(t *testing.T) {
			p := plan(t, Settings{Input: filepath.Join(testdata, "topo.json"), Records: records, Codecs: []string{"none", "zstd"}}, workload.Config{})
			note := false
			for _, d := range p.Descriptors {
				note = note || d.Key == KeyNote && strings.Contains(d.What, "member array "+records)
			}
			if !note {
				t.Error("no note naming the member array")
			}
			checkCases(t, p)
		})
	}
}

// TestVaryingKeysRun: an object field whose keys vary from row to row is
// one map column (a list of {key, value} entries), not a struct of a
// column per key, and every format round-trips it verified.
func TestVaryingKeysRun(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"name":"e%d","pos":{"x":%d,"y":2}`, i, i)
		if i%2 == 0 {
			fmt.Fprintf(&b, `,"skin_variations":{"1F%03X":{"unified":"u%d","sheet_x":%d},"1F%03X":{"unified":"v%d","sheet_x":null}}`, i, i, i, 1000+i, i)
		}
		b.WriteString("}\n")
	}
	path := filepath.Join(t.TempDir(), "emoji.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plan(t, Settings{Input: path, Codecs: []string{"none"}}, workload.Config{})
	cols := map[string]string{}
	for _, d := range p.Descriptors {
		if d.Key == KeyColumn {
			cols[d.Name] = d.What
		}
	}
	if got := cols["skin_variations"]; !strings.HasPrefix(got, "list<item: struct<key: utf8, value: struct<unified: utf8 nullable, sheet_x: int64 nullable> nullable>") {
		t.Errorf("skin_variations: %s", got)
	}
	if got := cols["pos"]; !strings.HasPrefix(got, "struct<x: int64") {
		t.Errorf("pos: %s", got)
	}
	if len(cols) > 12 {
		t.Errorf("%d columns and nested fields: %v", len(cols), cols)
	}
	checkCases(t, p)
}

// checkCases runs p and wants every case to pass but CSV's, which cannot
// hold nested data.
func checkCases(t *testing.T, p *workload.Plan) {
	t.Helper()
	r := runPlan(t, New(), p)
	for i := range r.Cases {
		c := &r.Cases[i]
		switch {
		case c.OK():
		case strings.Contains(c.Error, CannotHold) && c.Labels.Get("subject") == "csv":
		default:
			t.Errorf("%s: %s", c.FullName(), c.Error)
		}
	}
	if len(r.Cases) < 40 {
		t.Errorf("only %d cases", len(r.Cases))
	}
}
