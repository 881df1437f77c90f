package records

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/filecase"
)

// Sections implements workload.Workload: the seed's tables (combined,
// file size, write, read, compression by algorithm, trade-offs,
// recommendations), the size-vs-time scatter with its Pareto frontier, the
// limit rows, the harness-overhead check and the anomalies found in the data.
func (*Workload) Sections() []report.Section {
	out := []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Method", Render: renderMethod},
	}
	out = append(out, filecase.FileSections(Name)...)
	return append(out,
		report.Section{Workload: Name, Title: "Harness overhead: pipeline vs a bare loop", Render: renderBare},
		report.Section{Workload: Name, Title: "The seed's anomaly: an unbuffered write", Render: renderUnbuffered},
		filecase.AnomaliesSection(Name),
	)
}

func renderMethod(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := filecase.NewView(Name, run, cases)
	if len(v.Rows) == 0 {
		return nil, nil
	}
	info := filecase.Formats(run, Name)
	ft := &report.Table{Caption: "Formats", Header: []string{"format", "library", "kind", "outer codecs", "detail"}}
	for _, f := range table.Distinct(cases, filecase.LabelFormat) {
		d, ok := info[f]
		if !ok {
			continue
		}
		outer := "all"
		if !d.StreamOnly() {
			outer = "none only (compresses itself or needs random access)"
		}
		ft.Rows = append(ft.Rows, []string{f, d.Library(), strings.Join(d.Tags, ", "), outer, d.What})
	}
	ct := &report.Table{Caption: "Codecs (default level)", Header: []string{"codec", "library", "level", "detail"}}
	for _, name := range v.Codecs {
		d := run.Descriptor(Name, filecase.LabelCodec, name)
		if d == nil {
			ct.Rows = append(ct.Rows, []string{name, "–", "–", "–"})
			continue
		}
		level := d.Settings["level"]
		if level == "" {
			level = "–"
		}
		ct.Rows = append(ct.Rows, []string{name, filecase.OrDash(d.Library()), level, d.What})
	}
	counts := map[int]int{}
	for _, c := range cases {
		if c.OK() {
			counts[len(c.Samples)]++
		}
	}
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var cs []string
	for _, n := range ns {
		cs = append(cs, fmt.Sprintf("%d cases with n=%d", counts[n], n))
	}
	text := &report.Text{Body: fmt.Sprintf(
		"The %s records are generated once, before any timing, and held in memory in a packed table without pointers (16 bytes a record and one shared string of emails), so the collector does not mark them record by record during timed ops; each record is unpacked into a reused value as it is encoded. Each write streams them through the format's encoder, the codec and a %s buffer into a real file in the temp directory; "+
			"each read streams the file back (read → decompress → decode) and checks every record against the source records (that check is part of the timed read). "+
			"Before a write is timed, the pair round-trips its first %s records (all of them when fewer) through a scratch file; every timed read verifies every record of the full file, and a pair whose read fails is left out of every ranking. "+
			"Times are medians of n samples (one op per sample, a GC before each; a case's first run counts as its first sample, and no new sample starts once a case has spent %s sampling, so slow ops have n=1 or 2); "+
			"total = write + read. MB/s counts the format's encoded stream (its bytes before compression) for write, read and decompress, and the file's bytes for read-bytes. "+
			"Peak heap is the largest growth of the heap in use over its level at the start of the op, sampled on the op's own goroutine every %s records (every buffer for the limit rows) and at the end of each stage. "+
			"read-bytes (the file's bytes into a buffer, nothing else) and decompress (read + decompress, no decoding) are limit rows, the floors under each read. "+
			"Samples: %s.",
		table.Int(v.Records), table.Bytes(filebench.DefaultBufferSize), table.Int(filecase.VerifyRecords), table.Duration(float64(filecase.Budget)), table.Int(filebench.SampleEvery),
		strings.Join(cs, ", "))}
	return []report.Block{text, ft, ct}, nil
}

func renderBare(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := filecase.NewView(Name, run, cases)
	if len(v.Bares) == 0 {
		return nil, nil
	}
	t := &report.Table{
		Caption: "Each sample runs the hand-written loop and the pipeline (format and codec interfaces, counting, heap sampling) once each, alternating which goes first, from a collected heap; the ratio is taken within each sample",
		Header:  []string{"write", "bare loop", "pipeline", "pipeline ÷ bare (median, interval)", "samples", "verdict"},
	}
	var lines []string
	for _, r := range v.Bares {
		c := r.Write
		if c == nil {
			continue
		}
		name := r.Format + " vs " + strings.TrimSuffix(r.Format, "-bare") + " + " + r.Codec
		if !c.OK() {
			t.Rows = append(t.Rows, []string{name, table.FailedText, "–", "–", "–", c.Error})
			continue
		}
		pipe, ok1 := c.Stat(filecase.MetricPipelineNs)
		x, ok2 := c.Stat(filecase.MetricPipelineRatio)
		if !ok1 || !ok2 {
			continue
		}
		verdict := "within the 10% target"
		switch {
		case x.Median > 1.10:
			verdict = "OVER the 10% target"
		case x.Hi > 1.10:
			verdict = "within the 10% target (median); the interval reaches past it"
		}
		t.Rows = append(t.Rows, []string{name, table.TimeText(c), table.Duration(pipe.Median),
			fmt.Sprintf("%s [%s … %s]", table.Times(x.Median), table.Times(x.Lo), table.Times(x.Hi)), strconv.Itoa(x.N), verdict})
		lines = append(lines, fmt.Sprintf("%s: the pipeline takes %s against the bare loop's time (median of %d paired samples; interval %s … %s at %s confidence).",
			name, table.SignedPct(x.Median-1), x.N, table.SignedPct(x.Lo-1), table.SignedPct(x.Hi-1), table.Pct(x.Confidence)))
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	t.Notes = []string{"The two loops are the slowest-per-byte kind of write measured here (text + compression) and the fastest (generated code, no compression), where a fixed cost per record would weigh most. The read path has the same layers (format and codec interfaces, counting, heap sampling)."}
	blocks := []report.Block{t}
	if len(lines) > 0 {
		blocks = append(blocks, &report.Text{Body: "- " + strings.Join(lines, "\n- ")})
	}
	return blocks, nil
}

func renderUnbuffered(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := filecase.NewView(Name, run, cases)
	u := v.Unbuffered
	if u == nil || u.Write == nil {
		return nil, nil
	}
	var buffered *filecase.Row
	var fastestComp *filecase.Row
	for _, r := range v.Rows {
		if r.Format != u.Format || r.Write == nil || !r.Write.OK() {
			continue
		}
		if r.Codec == u.Codec {
			buffered = r
		} else if fastestComp == nil || filecase.Median(r.Write) < filecase.Median(fastestComp.Write) {
			fastestComp = r
		}
	}
	t := &report.Table{Header: []string{"write", "records", "time", "records/s", "time per record vs buffered"}}
	base := math.NaN()
	add := func(name string, r *filecase.Row) {
		t.Rows = append(t.Rows, []string{name, table.Int(r.Records()), table.TimeText(r.Write), filecase.RecsPerSec(r.Write, r.Records()), table.Times(r.PerRecord(r.Write) / base)})
	}
	if buffered != nil {
		base = buffered.PerRecord(buffered.Write)
		add(buffered.Subject()+", buffered", buffered)
	}
	add(u.Subject(), u)
	if fastestComp != nil {
		add(fastestComp.Subject()+" (fastest compressed write)", fastestComp)
	}
	body := "The seed measured MsgPack Plain at 22 s to write and under a second with every compressor. " +
		"Its harness handed the encoder's output straight to the file: every small write the encoder makes (a key, a value) became a system call. " +
		"A compressor buffers internally, so the compressed variants hid the missing buffer. " +
		"Here the same write is run on purpose without any buffer (filebench's Unbuffered option) next to the standard buffered pipeline. " +
		"Its cost is one system call per encoder write, linear in the records, so it runs on the first records only and is compared per record."
	if buffered != nil && u.Write.OK() {
		body += fmt.Sprintf(" In this run the unbuffered write takes %s the buffered one per record", table.Times(u.PerRecord(u.Write)/base))
		if fastestComp != nil {
			body += fmt.Sprintf(" and %s the fastest compressed write (%s)", table.Times(u.PerRecord(u.Write)/fastestComp.PerRecord(fastestComp.Write)), fastestComp.Subject())
		}
		if u.Records() < buffered.Records() {
			body += fmt.Sprintf("; at the full %s records that would be about %s", table.Int(buffered.Records()), table.Duration(u.PerRecord(u.Write)*buffered.Records()))
		}
		body += "."
	}
	return []report.Block{&report.Text{Body: body}, t}, nil
}

// Summary implements workload.Workload: the fastest pairs by round trip
// with their size, then the use-case recommendations.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(run, cases))
}

func (*Workload) summary(run *results.Run, cases []*results.Case) *report.Table {
	return filecase.FileSummary(Name, run, cases)
}
