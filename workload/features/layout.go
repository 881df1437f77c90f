package features

import (
	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// baseline is the subject every other is compared with, as in the seed.
const baseline = "psdb"

// A family is a group of types reported together.
type family struct{ key, title string }

// families lists the type families in report order.
func families() []family {
	return []family{
		{"signed", "signed integers (int8, int16, int32, int64)"},
		{"unsigned", "unsigned integers (uint8, uint16, uint32, uint64)"},
		{"float", "floats (fp8 e4m3/e5m2, fp16, float32, float64)"},
		{"bool", "bool"},
		{"string", "string"},
		{"vector", "vectors (N features × 8 values)"},
	}
}

// familyOf classifies a type label (its name says its family).
func familyOf(typ string) string {
	t := ds.Type(typ)
	switch {
	case t.IsVector():
		return "vector"
	case t == ds.Int8 || t == ds.Int16 || t == ds.Int32 || t == ds.Int64:
		return "signed"
	case t == ds.Uint8 || t == ds.Uint16 || t == ds.Uint32 || t == ds.Uint64:
		return "unsigned"
	case t == ds.FP8E4M3 || t == ds.FP8E5M2 || t == ds.FP16 || t == ds.Float32 || t == ds.Float64:
		return "float"
	}
	return typ
}

// typesOf lists the types of a family in report order ("" for all).
func typesOf(fam string) []string {
	var out []string
	for _, f := range families() {
		for _, t := range ds.Types() {
			if familyOf(string(t)) == f.key && (fam == "" || fam == f.key) {
				out = append(out, string(t))
			}
		}
	}
	return out
}

// familyMap names each type's family.
func familyMap() map[string]string {
	m := map[string]string{}
	for _, t := range typesOf("") {
		m[t] = familyOf(t)
	}
	return m
}

// goals are psdb's goals against its type's limit row, by N: within 3× at
// N = 100, within 2× at N = 1,000 and 100,000; other sizes have none.
var goals = map[string]float64{"100": 3, "1000": 2, "100000": 2}

// goalText states the goal.
const goalText = "Goal: psdb within 3× of its type's limit row at N = 100 and within 2× at N = 1,000 and 100,000 " +
	"(✓ met, ✗ not met: the median in-round ratio against the goal; other sizes have no goal)."

// order fixes the order of the labels' values in every table.
func order() map[string][]string {
	return map[string][]string{"type": typesOf(""), "op": ops[:]}
}

// onOp names the row's case of op.
func onOp(op string) map[string]string { return map[string]string{"op": op} }

// summary is, for the seed's type at the largest N, each subject's encode
// and decode time and its multiple of the limit row, and its size.
var summary = &table.Spec{
	Caption: "features: {type}, N = {n:int}",
	Where:   []table.Match{{Key: "type", Values: []string{string(ds.Int32)}, First: true}, table.Largest("n")},
	Split:   []string{"type", "n"}, Rows: []string{"subject"},
	Columns: []table.Column{
		{Head: "encode", Show: "time", At: onOp("encode")},
		{Head: "× {@limit}", Show: "ratio", Unit: results.UnitVsLimit, At: onOp("encode"), Ref: map[string]string{"subject": "@limit"}},
		{Head: "decode", Show: "time", At: onOp("decode")},
		{Head: "× {@limit}", Show: "ratio", Unit: results.UnitVsLimit, At: onOp("decode"), Ref: map[string]string{"subject": "@limit"}},
		{Head: "size", Show: "median", Unit: MetricSerialized, Format: "int", At: onOp("encode")},
	},
}

// Layout implements workload.Workload: findings, the subjects, psdb
// against each type's limit (with the goal), every subject against the
// limit, the speed tables and plots by type family, then size, memory and
// throughput.
func (*Workload) Layout() []table.Section {
	ratioNote := "1.0× would be as fast as the limit row of the type. Within a comparison group the ratio is taken in each sampling round (median and interval over the rounds), so machine drift cancels out; results without in-round ratios show the ratio of the two medians."
	secs := []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject", SubjectNotes: []string{"Every subject encodes the same generated values and must decode them back bit for bit before it is timed. " +
			"Decoders return values into reused slices; every subject copies strings except psdb, which returns zero-copy views of the block (its settings say so). int32/int64 values are uniform over the non-negative range, as the seed's protobuf sizes imply. " +
			"Raw size = the values packed at natural width (8/16-bit integers: 1/2 bytes, bool: 1 bit, fp8: 1 byte, fp16: 2 bytes, strings: their bytes; a vector type's N·8 values); MB/s is raw bytes per second."}}}},
		{Title: "psdb against its type's limit", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op}: psdb time as a multiple of its type's {@limit} row",
			Where:   []table.Match{table.Is("subject", baseline)},
			Split:   []string{"op"}, Rows: []string{"type"}, Cols: "n", Order: order(),
			Lead:    []table.Column{{Head: "family", Show: "label", Label: "type", Map: familyMap()}},
			Columns: []table.Column{{Head: "N = {col:int}", Show: "ratio", Unit: results.UnitVsLimit, Ref: map[string]string{"subject": "@limit"}, Goal: goals}},
			Notes:   []string{goalText + " {goals}"},
		}}, {Derived: "limit-note"}}},
		{Title: "Every subject against the limit", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op} at N = {n:int}: time as a multiple of the type's {@limit} row",
			Where:   []table.Match{table.Largest("n"), table.IsNot("role", results.RoleLimit)},
			Split:   []string{"op", "n"}, Rows: []string{"type"}, Cols: "subject", Order: order(),
			Columns: []table.Column{{Head: "{col}", Show: "ratio", Unit: results.UnitVsLimit, Ref: map[string]string{"subject": "@limit"}}},
			Extra:   []table.Column{{Head: "{@limit} (ns/op)", Show: "time", At: map[string]string{"subject": "@limit"}}},
			Notes:   []string{ratioNote},
		}}}},
	}
	var vs []table.Column
	for _, s := range []string{"proto3", "arrow", "flatbuffers"} {
		vs = append(vs, table.Column{Head: baseline + " vs " + s, Show: "faster", At: map[string]string{"subject": baseline}, Ref: map[string]string{"subject": s}})
	}
	for _, f := range families() {
		secs = append(secs, table.Section{Title: "Speed: " + f.title + " (lower is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op}, {type} (ns/op, median ±interval)",
			Where:   []table.Match{table.Is("type", typesOf(f.key)...)},
			Split:   []string{"op", "type"}, Rows: []string{"n"}, RowHeads: []string{"features"}, RowFormat: map[string]string{"n": "int"},
			Cols: "subject", Order: order(),
			Columns: []table.Column{{Head: "{col}", Show: "time"}},
			Extra:   vs,
			Notes:   []string{table.FasterRule},
			Plot: &table.PlotSpec{File: "features-{type}-{op}.svg", Title: "features: {type} {op}",
				Caption: "features: {type} {op} — ns/op against N, log-log; bars: the median's confidence interval; grey dashed: the limit row",
				X:       "n", Series: "subject", Unit: results.UnitNsPerOp, XLabel: "features per block (N)", YLabel: "time per op",
				LogX: true, LogY: true, YFormat: "duration"},
		}}}})
	}
	return append(secs,
		table.Section{Title: "Serialized size (lower is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{type}: bytes (and % of raw)",
			Where:   []table.Match{table.Is("op", "encode"), table.IsNot("role", results.RoleLimit)},
			Split:   []string{"type"}, Rows: []string{"n"}, RowHeads: []string{"features"}, RowFormat: map[string]string{"n": "int"},
			Cols: "subject", Order: order(),
			Lead:    []table.Column{{Head: "raw", Show: "median", Unit: MetricRaw, Format: "int", At: map[string]string{"subject": baseline}}},
			Columns: []table.Column{{Head: "{col}", Show: "median", Unit: MetricSerialized, Format: "int", Share: "pct", ShareOf: MetricRaw}},
		}}, {Text: "Sizes are exact properties of the formats: psdb int32 is 9 + 4·N bytes (409, 4,009, 40,009, 400,009), as in the seed. arrow-reuse's size is that of a full stream (schema + batch), like arrow's."}}},
		table.Section{Title: "Memory efficiency (lower is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op}, {type}: B/op / allocs/op",
			Split:   []string{"op", "type"}, Rows: []string{"n"}, RowHeads: []string{"features"}, RowFormat: map[string]string{"n": "int"},
			Cols: "subject", Order: order(),
			Columns: []table.Column{{Head: "{col}", Show: "mem"}},
		}}}},
		table.Section{Title: "Throughput (higher is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op} at N = {n:int}: MB/s of raw data (% of " + baseline + ")",
			Where:   []table.Match{{Key: "n", Values: []string{"1000"}, Max: true}},
			Split:   []string{"op", "n"}, Rows: []string{"type"}, Cols: "subject", Order: order(),
			Columns: []table.Column{{Head: "{col}", Show: "median", Unit: results.UnitMBPerS, Share: "pct0", Ref: map[string]string{"subject": baseline}}},
		}}}},
	)
}
