package envelope

import (
	"fmt"

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

// largestNamed selects the cases of the largest named size measured.
var largestNamed = []table.Match{table.Is("size", namedSizes...), table.Largest("bytes")}

// speedup is the Column of how many times faster a header read (op
// header, the row's subject) is than the unmarshal ref names: the
// unmarshal's median ns/op ÷ the header read's.
func speedup(head string, ref map[string]string) table.Column {
	return table.Column{Head: head, Show: "vs", Invert: true, Unit: results.UnitNsPerOp, At: map[string]string{"op": OpHeader}, Ref: ref}
}

// headerTarget sets each subject's header-only read at the largest named
// size against its own full unmarshal and the baseline's; the verdicts on
// the goal follow it (Derived "header-target").
var headerTarget = &table.Spec{
	Caption: "header-only read at {size} ({bytes:int} B payload) against full unmarshal",
	Where:   append([]table.Match{table.Is("op", OpHeader)}, largestNamed...),
	Split:   []string{"size", "bytes"}, Rows: []string{LabelSubject},
	Columns: []table.Column{{Head: "header", Show: "time"}, {Head: "B/op / allocs/op", Show: "mem"}},
	Extra: []table.Column{
		{Head: "own full unmarshal", Show: "time", At: map[string]string{"op": OpUnmarshal}},
		speedup("speed-up vs own unmarshal", map[string]string{"op": OpUnmarshal}),
		speedup("speed-up vs "+Baseline+" unmarshal", at(Baseline, OpUnmarshal)),
	},
	Notes: []string{fmt.Sprintf("Speed-up = full unmarshal ns/op ÷ header ns/op (medians, same run). Goal: at the largest named size, the header-only read at least %d× faster than the full unmarshal of the flat protobuf message, with 0–%d allocs/op.", targetSpeedup, targetAllocs),
		"Readers that scan the wire form (protowire, msgp.Skip) or access fields in place (FlatBuffers) skip the payload without copying it and return strings aliasing the input; the outer-only unmarshal of the wrapped protobuf layouts copies the inner bytes, so its cost grows with the payload."},
}

// summary is the command line's summary: at the largest named size, each
// subject's marshal, unmarshal and header-only times, the header read's
// speed-up over the baseline's unmarshal and its allocations.
var summary = &table.Spec{
	Caption: "envelope: {size} ({bytes:int} B payload)",
	Where:   largestNamed, Split: []string{"size", "bytes"}, Rows: []string{LabelSubject},
	Columns: []table.Column{
		{Head: OpMarshal, Show: "time", At: map[string]string{"op": OpMarshal}},
		{Head: OpUnmarshal, Show: "time", At: map[string]string{"op": OpUnmarshal}},
		{Head: OpHeader, Show: "time", At: map[string]string{"op": OpHeader}},
		speedup("header vs "+Baseline+" unmarshal", at(Baseline, OpUnmarshal)),
		{Head: "header allocs/op", Show: "median", Unit: results.UnitAllocsPerOp, Format: "count", At: map[string]string{"op": OpHeader}},
	},
}

// sweepPlot is op's time against payload size at every size measured.
func sweepPlot(op string) *table.PlotSpec {
	return &table.PlotSpec{
		File: "envelope-" + op + ".svg", Title: "envelope: " + op,
		Caption: "envelope: " + op + " — time per op against payload size, log-log; bars: the median's confidence interval",
		Where:   []table.Match{table.Is("op", op)}, X: "bytes", Series: LabelSubject, Unit: results.UnitNsPerOp,
		XLabel: "payload", YLabel: "time per op", LogX: true, LogY: true, XFormat: "bytes", YFormat: "duration", BinaryX: true,
	}
}

// unmarshalSweep is the unmarshal plot with the outer-only reads (the
// header reads of the wrapped protobuf layouts) as lines of their own
// beside every subject's full unmarshal.
func unmarshalSweep() *table.PlotSpec {
	p := sweepPlot(OpUnmarshal)
	p.More = &table.MoreSeries{Where: []table.Match{table.Is("op", OpHeader), table.Is("note", noteOuterOnly)}, Suffix: " (outer only)"}
	return p
}

// allocTable sets the unmarshal allocations of lib's wrapped layout
// against its flat one at the named sizes: its outer-only decode (when it
// has one) and its full decode, a row per size both layouts measured.
func allocTable(lib string, outerOnly bool) *table.Spec {
	flat, wrapped := lib+"-flat", lib+"-wrapped"
	allocs := func(head string, of map[string]string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: results.UnitAllocsPerOp, Format: "count", At: of}
	}
	change := func(of map[string]string) table.Column {
		return table.Column{Head: "change", Show: "diff", Unit: results.UnitAllocsPerOp, Format: "count", At: of, Ref: at(flat, OpUnmarshal)}
	}
	lead := []table.Column{allocs("flat", at(flat, OpUnmarshal))}
	if outerOnly {
		lead = append(lead, allocs("wrapped (outer only, as in the seed)", at(wrapped, OpHeader)), change(at(wrapped, OpHeader)))
	}
	return &table.Spec{
		Caption: "unmarshal allocations (allocs/op): " + wrapped + " against " + flat,
		Where:   []table.Match{table.Is(LabelSubject, wrapped), table.Is("op", OpUnmarshal), table.Is("size", namedSizes...)},
		Order:   map[string][]string{"size": namedSizes}, Rows: []string{"size"},
		Lead:    lead,
		Columns: []table.Column{allocs("wrapped (outer + inner)", nil), change(nil)},
	}
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
			{Table: headerTarget},
			{Derived: "header-target"},
		}},
		{Title: "Time against payload size", Blocks: []table.BlockSpec{
			{Plot: sweepPlot(OpMarshal)}, {Plot: unmarshalSweep()}, {Plot: sweepPlot(OpHeader)}, {Derived: "sweep"}}},
		{Title: "Where flat overtakes wrapped", Blocks: []table.BlockSpec{
			{Derived: "crossover"},
			{Table: allocTable("protobuf", true)}, {Table: allocTable("vtprotobuf", true)}, {Table: allocTable("msgp", false)},
			{Text: "Change = wrapped − flat allocs/op (medians). The seed saw 24 → 14 for the outer-only decode: the inner message's nested types are not decoded. msgp-wrapped has no outer-only decode (its header read is a map scan)."},
		}},
		{Title: "Serialized size", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "encoded envelope: bytes (+ bytes beyond the payload)",
			Where:   []table.Match{table.Is("size", namedSizes...), table.Is("op", OpMarshal)},
			Order:   map[string][]string{"size": namedSizes},
			Rows:    []string{"size", "bytes"}, RowHeads: []string{"size", "payload"}, RowFormat: map[string]string{"bytes": "int"},
			Cols: LabelSubject, Columns: []table.Column{{Head: "{col}", Show: "median", Unit: MetricSerialized, Format: "int", Beyond: "bytes"}},
			Notes: []string{"Wrapped sizes include the marshalled inner message as one bytes field of the outer message."},
		}}}},
		{Title: "Memory (B/op / allocs/op, lower is better)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{op}: B/op / allocs/op",
			Where:   []table.Match{table.Is("size", namedSizes...)},
			Split:   []string{"op"}, Order: map[string][]string{"size": namedSizes, "op": namedOps[:]},
			Rows: []string{"size"}, Cols: LabelSubject, Columns: []table.Column{{Head: "{col}", Show: "mem"}},
		}}}},
	}
}
