package envelope

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// namedSizes are the seed's named payload sizes (dataset/envelope's
// NamedSizes), smallest first: the tables show these, the plots every size.
var namedSizes = []string{"Tiny", "XSmall", "Small", "Medium", "Large", "XLarge"}

// ratioRule explains the "÷" and "× baseline" cells.
const ratioRule = "Ratios are times: below 1× the subject is faster than the one it is divided by. Cases of the same size and op were sampled round-robin; their ratio is taken within each round (median ±interval over the rounds), so drift of the machine cancels out; results recorded without in-round ratios show the ratio of the medians."

// subjectNotes follow the subjects table.
var subjectNotes = []string{
	"Every subject encodes the same generated envelope (seeded; ULIDs, random payload) and must decode it back field for field, and read back its header, before it is timed.",
	"Wrapped layouts: the inner message (mimetype, type, encryption, compression, user_defined_id, data, created) is marshalled once outside the timed loop, as in the seed; marshal times the outer message only, unmarshal decodes the outer and then the inner message.",
	"The seed's \"WrappedUnmarshal\" decoded the outer message only. Here that is the header-only read of the wrapped protobuf layouts, shown as \"wrapped (outer only, as in the seed)\"; \"wrapped (outer + inner)\" is the full decode.",
	"The subjects of one payload size and op are sampled round-robin, one sample each per round, with the baseline; \"× baseline\" columns are the time ratio taken within each round (median and interval over the rounds).",
	"MB/s counts payload bytes per second.",
}

// at names the case of a column: subject and op.
func at(subject, op string) map[string]string {
	return map[string]string{LabelSubject: subject, "op": op}
}

// seedTable is one of the seed's own comparisons: flat and wrapped
// protobuf side by side at every named size, the columns naming their op.
func seedTable(caption string, cols []table.Column, notes ...string) *table.Spec {
	return &table.Spec{
		Caption: caption, Notes: notes,
		Where: []table.Match{table.Is(LabelSubject, Baseline, "protobuf-wrapped"), table.Is("size", namedSizes...)},
		Order: map[string][]string{"size": namedSizes},
		Rows:  []string{"size", "bytes"}, RowHeads: []string{"size", "payload"}, RowFormat: map[string]string{"bytes": "int"},
		Columns: cols,
	}
}

// timeTable is every subject's ns/op for op at the named sizes; extra adds
// columns of other cases (the outer-only reads).
func timeTable(op, caption string, extra []table.Column, notes ...string) *table.Spec {
	return &table.Spec{
		Caption: caption, Notes: notes,
		Where: []table.Match{table.Is("op", op), table.Is("size", namedSizes...)},
		Split: []string{"op"}, Order: map[string][]string{"size": namedSizes},
		Rows: []string{"size", "bytes"}, RowHeads: []string{"size", "payload"}, RowFormat: map[string]string{"bytes": "int"},
		Cols: LabelSubject, Columns: []table.Column{{Head: "{col}", Show: "time"}}, Extra: extra,
	}
}

// ratioTable is every subject's time for op as a multiple of the
// baseline's, taken within each sampling round.
func ratioTable(op string) *table.Spec {
	return &table.Spec{
		Caption: "{op}: time × " + Baseline + "'s", Notes: []string{ratioRule},
		Where: []table.Match{table.Is("op", op), table.Is("size", namedSizes...), table.IsNot(LabelSubject, Baseline)},
		Split: []string{"op"}, Order: map[string][]string{"size": namedSizes},
		Rows: []string{"size"}, Cols: LabelSubject,
		Columns: []table.Column{{Head: "{col}", Show: "ratio", Unit: results.UnitVsBaseline, Ref: map[string]string{LabelSubject: Baseline}}},
	}
}

// outerOnlyReads are the header reads of the subjects whose header read
// is the outer-only unmarshal, shown beside the full unmarshal.
var outerOnlyReads = []table.Column{
	{Head: "protobuf-wrapped (outer only)", Show: "time", At: at("protobuf-wrapped", OpHeader)},
	{Head: "vtprotobuf-wrapped (outer only)", Show: "time", At: at("vtprotobuf-wrapped", OpHeader)},
}

// Layout implements workload.Workload: findings, the subjects, the seed's
// two tables, every subject's marshal, unmarshal and header-only times,
// the payload sweep plots, where flat overtakes wrapped, sizes and memory.
func (*Workload) Layout() []table.Section {
	flat, wrapped := Baseline, "protobuf-wrapped"
	return []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: LabelSubject, SubjectNotes: subjectNotes}}},
		{Title: "The seed's tables: protobuf flat vs wrapped", Blocks: []table.BlockSpec{
			{Table: seedTable("marshal: ns/op (median ±interval), B/op / allocs/op", []table.Column{
				{Head: "flat", Show: "time", At: at(flat, OpMarshal)},
				{Head: "flat mem", Show: "mem", At: at(flat, OpMarshal)},
				{Head: "wrapped", Show: "time", At: at(wrapped, OpMarshal)},
				{Head: "wrapped mem", Show: "mem", At: at(wrapped, OpMarshal)},
				{Head: "wrapped ÷ flat", Show: "ratio", Unit: results.UnitVsBaseline, At: at(wrapped, OpMarshal), Ref: map[string]string{LabelSubject: flat}},
			}, ratioRule)},
			{Table: seedTable("unmarshal: ns/op (median ±interval), B/op / allocs/op", []table.Column{
				{Head: "flat", Show: "time", At: at(flat, OpUnmarshal)},
				{Head: "flat mem", Show: "mem", At: at(flat, OpUnmarshal)},
				{Head: "wrapped (outer only, as in the seed)", Show: "time", At: at(wrapped, OpHeader)},
				{Head: "mem", Show: "mem", At: at(wrapped, OpHeader)},
				{Head: "÷ flat", Show: "vs", Unit: results.UnitNsPerOp, At: at(wrapped, OpHeader), Ref: at(flat, OpUnmarshal)},
				{Head: "wrapped (outer + inner)", Show: "time", At: at(wrapped, OpUnmarshal)},
				{Head: "mem", Show: "mem", At: at(wrapped, OpUnmarshal)},
				{Head: "÷ flat", Show: "ratio", Unit: results.UnitVsBaseline, At: at(wrapped, OpUnmarshal), Ref: map[string]string{LabelSubject: flat}},
			}, ratioRule+" The outer-only read is a header case, measured in another group than flat's unmarshal: its ratio is that of the medians.",
				"Outer only: the outer message is decoded and the inner one stays bytes (copied), which is what the seed timed as WrappedUnmarshal. Outer + inner: what a consumer pays to read the whole event.")},
		}},
		{Title: "Marshal, every subject (lower is better)", Blocks: []table.BlockSpec{
			{Table: timeTable(OpMarshal, "marshal (ns/op, median ±interval)", nil)},
			{Table: ratioTable(OpMarshal)},
			{Table: timeTable(OpMarshalReuse, "marshal-reuse (ns/op, median ±interval)", nil,
				"Each subject encodes into a buffer (or Builder) it reuses from call to call; the result is valid until the next call.")},
			{Table: ratioTable(OpMarshalReuse)},
		}},
		{Title: "Unmarshal, every subject (lower is better)", Blocks: []table.BlockSpec{
			{Table: timeTable(OpUnmarshal, "unmarshal, outer + inner for wrapped layouts (ns/op, median ±interval)", outerOnlyReads,
				"\"(outer only)\" columns are the seed's WrappedUnmarshal: the outer message decoded, the inner left as bytes.")},
			{Table: ratioTable(OpUnmarshal)},
		}},
		{Title: "Header-only read (lower is better)", Blocks: []table.BlockSpec{
			{Table: timeTable(OpHeader, "header-only read: id, topic_id, geography, publisher (ns/op, median ±interval)", nil)},
			{Table: ratioTable(OpHeader)},
			{Derived: "header-target"},
		}},
		{Title: "Time against payload size", Blocks: []table.BlockSpec{{Derived: "sweep"}}},
		{Title: "Where flat overtakes wrapped", Blocks: []table.BlockSpec{{Derived: "crossover"}}},
		{Title: "Serialized size", Blocks: []table.BlockSpec{{Derived: "size"}}},
		{Title: "Memory (B/op / allocs/op, lower is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op}: B/op / allocs/op",
			Where:   []table.Match{table.Is("size", namedSizes...)},
			Split:   []string{"op"}, Order: map[string][]string{"size": namedSizes, "op": namedOps[:]},
			Rows: []string{"size"}, Cols: LabelSubject, Columns: []table.Column{{Head: "{col}", Show: "mem"}},
		}}}},
	}
}
