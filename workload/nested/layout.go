package nested

import (
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/interop"
)

// fullTable is dataset ds's full-schema reads, fastest first: the file's
// size and the read's speed relative to the extremes (the seed's axes),
// and the in-round ratio to the group's floor. Its scatter plot of the
// seed's axes follows (fullPlot).
func fullTable(ds string) *table.Spec {
	return &table.Spec{
		Caption: ds + ": full read of every record into each library's objects, fastest first",
		Where:   []table.Match{table.Is(LabelDataset, ds), table.Is(LabelOp, OpRead), table.Is(LabelQuery, QueryAll)},
		Rows:    []string{LabelSubject, LabelCodec}, Sort: "read",
		Columns: []table.Column{
			{Head: "file MiB", Show: "median", Unit: MetricFile, Format: "mib"},
			{Head: "read", Show: "time"},
			// The slowest read's time over this one's: this rate of
			// records over the smallest rate.
			{Head: "speed vs slowest", Show: "best", Unit: results.UnitNsPerOp, Per: MetricRecords},
			{Head: "size vs largest", Show: "best", Invert: true, Unit: MetricFile, Format: "pct"},
			// Without in-round ratios, the time over the JSON-gzip file's
			// decompression.
			{Head: "× floor", Show: "ratio", Unit: results.UnitVsLimit, Ref: map[string]string{LabelSubject: SubjectDecompress, LabelCodec: "gzip"}},
		},
	}
}

// decodeTable is dataset ds's full decodes by the runners for other
// languages, from memory (every value visited), and apart their
// zero-copy opens (no value visited): not Go's file reads, so not in
// fullTable's ranking.
func decodeTable(ds string) *table.Spec {
	t := func(head, op string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: results.UnitNsPerOp, Format: "duration", At: map[string]string{LabelOp: op}}
	}
	return &table.Spec{
		Caption: ds + ": other languages, in memory: full decode of every record (every value visited) and zero-copy open (no value visited)",
		Where:   []table.Match{table.Is(LabelDataset, ds), table.Is(LabelOp, results.OpDecode, results.OpOpen), table.Is(LabelQuery, QueryAll)},
		Rows:    []string{LabelSubject}, Sort: "decode",
		Columns: []table.Column{t("decode", results.OpDecode), t("open (no value visited)", results.OpOpen)},
		Notes:   []string{"decode = the encoded bytes in memory → every value visited in the library's natural objects; open = a lazy or zero-copy view over the bytes (an Arrow table over the buffer), no value visited: shown apart, never ranked with the decodes or with Go's file reads above."},
	}
}

// fullPlot is dataset ds's file size against full-read speed, each
// relative to the extremes (the seed's axes), from fullTable's columns.
func fullPlot(ds string) *table.ScatterSpec {
	return &table.ScatterSpec{Of: fullTable(ds), X: "speed vs slowest", Y: "size vs largest", Join: "·", File: "nested-" + ds + "-full.svg",
		Caption: ds + ": size vs read speed, relative to the slowest", Title: ds + ": file size vs full read speed (relative to the slowest)",
		XLabel: "read speed, × the slowest", YLabel: "file size, fraction of the largest", LogX: true}
}

// queryPlot is dataset ds's parquet-arrow read time (one point per query
// of the file the sub-schema queries read) against column x of the
// query's table.
func queryPlot(ds, x, file, caption, title, xLabel string, logX bool) *table.ScatterSpec {
	return &table.ScatterSpec{Of: &table.Spec{
		Where: []table.Match{table.Is(LabelDataset, ds), table.Is(LabelOp, OpRead), table.Is(LabelSubject, SubjectParquetArrow), table.Is(LabelCodec, pqSubsetCodec)},
		Rows:  []string{LabelQuery},
		Columns: []table.Column{{Head: "time", Show: "time"}, {Head: "leaves", Show: "median", Unit: MetricLeaves},
			{Head: "largest", Show: "median", Unit: MetricColMaxB}},
	}, X: x, Y: "time", File: "nested-" + ds + "-" + file + ".svg", Caption: ds + ": " + caption, Title: ds + ": " + title,
		XLabel: xLabel, YLabel: "read time", YFormat: "duration", LogX: logX}
}

// Layout implements workload.Workload: the findings; the full-schema
// reads with their floors; the sub-schema reads (fitted models, plots and
// the projection tiers side by side); the seed's findings re-checked; the
// Parquet writer settings against the seed's file size; the subjects and
// codecs.
func (*Workload) Layout() []table.Section {
	est := "est. MB at " + table.Int(tpch.FullRecords)
	var full, sub []table.BlockSpec
	for _, ds := range datasetNames() {
		full = append(full, table.BlockSpec{Table: fullTable(ds)}, table.BlockSpec{Scatter: fullPlot(ds)}, table.BlockSpec{Table: decodeTable(ds)})
		sub = append(sub, table.BlockSpec{Derived: "sub-" + ds},
			table.BlockSpec{Scatter: queryPlot(ds, "leaves", "columns", "read time vs columns (parquet-arrow, one point per query)", "parquet-arrow read time vs number of columns", "leaf columns in the query", false)},
			table.BlockSpec{Scatter: queryPlot(ds, "largest", "maxcol", "read time vs the largest column's size (the seed's plot)", "parquet-arrow read time vs largest column", "largest queried column, compressed bytes", true)})
	}
	return []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Full schema: file size and read time", Blocks: append(full, []table.BlockSpec{
			{Table: &table.Spec{
				Caption: "The floors of a full read: the JSON-gzip file decompressed without decoding (the seed's red line) and read as bytes; for the runners of other languages, copying the encoded bytes in that runtime",
				Where:   []table.Match{table.Is("role", "limit"), table.Is(LabelQuery, QueryAll)},
				Rows:    []string{LabelDataset, LabelSubject, LabelCodec},
				Columns: []table.Column{{Head: "file MiB", Show: "median", Unit: MetricFile, Format: "mib"}, {Head: "read", Show: "time"}},
			}},
			{Table: &table.Spec{
				Caption: "Writing each file (the Parquet files by parquet-go; a parallel reader reads its sequential twin's file)",
				Where:   []table.Match{table.Is(LabelOp, OpWrite)},
				Rows:    []string{LabelDataset, LabelSubject}, RowHeads: []string{"dataset", "writer"}, Cols: LabelCodec,
				Columns: []table.Column{{Head: "{col}", Show: "time"}},
			}},
			{Text: "read: median time per full read (Go: the file's bytes → every record in the dataset's Go structs; every record verified in Verify, every 61st after each timed read, outside the timer. language:subject rows are measured by serbench's runners for other languages: the same rows encoded by that library, decoded from memory into its runtime's objects, verified once by a digest of every column against the Go side's)"},
			{Text: "speed vs slowest: the slowest subject's time over this one's (the seed's x axis); size vs largest: the file over the largest file (the seed's y axis)"},
			{Text: "× floor: in-round ratio to the group's limit row — for Go readers decompressing the JSON-gzip file without decoding (the seed's red line), for a runner's subjects copying the encoded bytes in that runtime"},
		}...)},
		{Title: "Sub-schema: read time against columns and the largest column", Blocks: append(sub, []table.BlockSpec{
			{Text: "every query is a set of leaf paths; the struct comes back with only those fields filled and is checked against the projected reference. Parquet subjects read the " + pqSubsetCodec + " file, Arrow IPC the uncompressed one (memory-mapped: unqueried buffers are never touched), the row formats their " + rowSubsetCodec + " files (one query per k: decode+project, Avro's reader schema native); column sizes are the Parquet file's"},
			{Text: "R² with total size: the same fit with the queried columns' total compressed size in place of the largest (the seed: the largest predicts better)"},
			{Table: &table.Spec{
				Caption: "{dataset}: the projection tiers on the same queries — decode and project (the zstd Arrow IPC file, whose every buffer is decompressed; row formats, " + rowSubsetCodec + ", parallel), native skipping (Avro's reader schema, projection structs) and, last, columns (parquet-arrow)",
				Where:   []table.Match{table.Is(LabelOp, OpRead), table.IsNot(LabelQuery, QueryAll), table.IsNot(LabelTier, TierColumns)},
				Split:   []string{LabelDataset}, Rows: []string{LabelQuery}, Cols: LabelSubject,
				Columns: []table.Column{{Head: "{col}", Show: "time"}},
				Extra:   []table.Column{{Head: "parquet-arrow (columns)", Show: "time", At: map[string]string{LabelSubject: SubjectParquetArrow, LabelTier: TierColumns}}},
			}},
		}...)},
		{Title: "The same format in different languages", Blocks: []table.BlockSpec{
			{Derived: "languages"},
			{Text: "Each cell is the fastest full read of that format by any library and codec of that language (Go readers read their file from the page cache; a runner decodes the same bytes from memory). The languages are measured in separate processes, each against its own floor, so compare a language's rows by their times and the floors in the first table."},
		}},
		{Title: "The seed's findings, re-checked", Blocks: []table.BlockSpec{
			{Derived: "claims"},
			{Text: "The seed's columnar format was its own (dendrite, JVM); here it is Parquet read two ways. EDN is read in Go with olympos.io/encoding/edn and in the JVM with Clojure's clojure.edn; the seed's JVM formats SMILE, Fressian, Kryo and protobuf are measured in the JVM by the JVM runner (when java and mvn are installed; rows marked JVM). Nippy is published only on Clojars, which serbench's registries do not reach: it is not measured."},
		}},
		{Title: "Parquet settings and the seed's 36.8 MB", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "TPC-H Parquet (parquet-go) file size by writer settings, extrapolated to the seed's " + table.Int(tpch.FullRecords) + " records; smallest first",
			Where:   []table.Match{table.Is(LabelOp, OpSize)},
			Rows:    []string{"settings"},
			Columns: []table.Column{
				{Head: "file MB here", Show: "median", Unit: MetricFile, Scale: 1e-6},
				{Head: est, Show: "median", Unit: MetricFullEstB, Scale: 1e-6},
				{Head: "× the seed's 36.8 MB", Show: "median", Unit: MetricFullEstB, Scale: 1 / 36.8e6, Format: "times"},
				{Head: "write", Show: "time"},
			},
			Sort: est,
			Notes: []string{"rg64k / rg1024k: most rows per row group; delta: DELTA_BINARY_PACKED integers and DELTA_LENGTH_BYTE_ARRAY strings where no dictionary is tagged; dictionaries as the dataset's struct tags ask (every low-cardinality string)",
				"each file was read back and every record verified before it counted"},
		}}}},
		{Title: "Who reads whose files (other languages)", Blocks: interop.Blocks(interop.Intro("each dataset's first "+table.Int(InteropRows)+" records"), LabelDataset)},
		{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: LabelSubject}, {Subjects: LabelCodec}}},
	}
}
