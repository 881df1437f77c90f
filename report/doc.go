package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// Doc is a rendered report: for each run, its environment and the
// sections of each workload it contains.
type Doc struct {
	Title string
	// SideBySide, with two runs or more, puts the runs' cases next to each
	// other: one table per workload, a column per run, the ratio to the
	// first.
	SideBySide []*table.Table
	Runs       []RunDoc
}

// RunDoc is the part of a report that covers one results file.
type RunDoc struct {
	Run *results.Run
	// Notices are said at the top: an interrupted run, a cut file.
	Notices []string
	Env     *table.Table
	// Machine says how steady the machine was during the run (from its
	// probes): a paragraph and a plot; empty for runs without probes.
	Machine   []Block
	Workloads []WorkloadDoc
	// Glance is the answer block the report opens with: each workload's
	// first findings, so the first screen answers for every workload.
	Glance []Glance
}

// Glance is one workload's part of the answer block.
type Glance struct {
	Workload string
	Lines    []string
}

// glanceLines is how many of a workload's findings the answer block shows.
const glanceLines = 3

// glance takes the first findings of each workload: the bullets of the
// first text of its Findings section.
func glance(wds []WorkloadDoc) []Glance {
	var out []Glance
	for _, wd := range wds {
		for _, sd := range wd.Sections {
			if sd.Title != "Findings" {
				continue
			}
			for _, b := range sd.Blocks {
				t, ok := b.(*table.Text)
				if !ok {
					continue
				}
				// The lines that name a pick (in bold) answer; the others
				// (the input's description) fill up when there are fewer.
				var picks, rest []string
				for _, l := range strings.Split(t.Body, "\n") {
					if l, ok := strings.CutPrefix(l, "- "); ok {
						if strings.Contains(l, "**") {
							picks = append(picks, l)
						} else {
							rest = append(rest, l)
						}
					}
				}
				lines := append(picks, rest...)
				lines = lines[:min(len(lines), glanceLines)]
				if len(lines) > 0 {
					out = append(out, Glance{Workload: wd.Name, Lines: lines})
				}
				break
			}
		}
	}
	return out
}

// WorkloadDoc holds one workload's rendered sections.
type WorkloadDoc struct {
	Name     string
	Sections []SectionDoc
}

// SectionDoc is a section with its blocks.
type SectionDoc struct {
	Title  string
	Blocks []Block
}

// Input is what Build renders.
type Input struct {
	Runs []*results.Run
	// Derived holds, for each run (by index) and workload, the blocks the
	// workload computed from that run's results (its findings, rankings
	// by rule). The report builds nothing else from workload code.
	Derived []map[string]table.Derived
	// Layouts are the sections each workload declares in this build, for
	// results files whose run recorded none (schema 4 and older).
	Layouts map[string][]table.Section
}

// Build renders the input's runs. Every workload also gets the generic
// sections: failed cases, noisy cases and raw output. Plots are drawn and
// get file names unique across the document.
func Build(in Input) (*Doc, error) {
	runs := in.Runs
	d := &Doc{Title: "serbench report"}
	usedFiles := map[string]int{}
	for ri, run := range runs {
		rd := RunDoc{Run: run, Env: envTable(run), Notices: notices(run), Machine: machineBlocks(run)}
		for _, b := range rd.Machine {
			if p, ok := b.(*Plot); ok {
				if len(runs) > 1 {
					p.File = fmt.Sprintf("run%d-%s", ri+1, p.File)
				}
				usedFiles[p.File]++
			}
		}
		declared, err := declaredSections(run)
		if err != nil {
			return nil, err
		}
		var derived map[string]table.Derived
		if ri < len(in.Derived) {
			derived = in.Derived[ri]
		}
		for _, w := range run.Workloads() {
			cases := run.Filter(w, nil)
			wd := WorkloadDoc{Name: w}
			secs := declared[w]
			if len(secs) == 0 || (len(in.Layouts[w]) > 0 && unknownDerived(secs, derived[w])) {
				// No sections recorded (an older file), or sections naming
				// findings this build no longer computes (an older build's
				// names): this build's layout renders the run instead.
				secs = in.Layouts[w]
			}
			for _, s := range secs {
				blocks, err := table.BuildSection(run, s, cases, derived[w])
				if err != nil {
					return nil, fmt.Errorf("report: %s / %s: %w", w, s.Title, err)
				}
				if blocks, err = drawn(blocks); err != nil {
					return nil, fmt.Errorf("report: %s / %s: %w", w, s.Title, err)
				}
				if len(blocks) > 0 {
					onceEach(blocks)
					wd.Sections = append(wd.Sections, SectionDoc{Title: s.Title, Blocks: blocks})
				}
			}
			wd.Sections = append(wd.Sections, countSection(cases)...)
			wd.Sections = append(wd.Sections, genericSections(run, cases)...)
			for _, sd := range wd.Sections {
				for _, b := range sd.Blocks {
					if p, ok := b.(*Plot); ok {
						if len(runs) > 1 {
							p.File = fmt.Sprintf("run%d-%s", ri+1, p.File)
						}
						if n := usedFiles[p.File]; n > 0 {
							ext := filepath.Ext(p.File)
							p.File = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(p.File, ext), n+1, ext)
						}
						usedFiles[p.File]++
					}
				}
			}
			rd.Workloads = append(rd.Workloads, wd)
		}
		rd.Glance = glance(rd.Workloads)
		d.Runs = append(d.Runs, rd)
	}
	if len(runs) > 1 {
		d.SideBySide = sideBySide(runs)
	}
	return d, nil
}

// unknownDerived reports whether secs name a derived block that derived
// does not hold.
func unknownDerived(secs []table.Section, derived table.Derived) bool {
	for _, s := range secs {
		for _, b := range s.Blocks {
			if b.Derived != "" {
				if _, ok := derived[b.Derived]; !ok {
					return true
				}
			}
		}
	}
	return false
}

// declaredSections decodes the sections a run recorded, by workload, and
// checks them: a results file is the user's input.
func declaredSections(run *results.Run) (map[string][]table.Section, error) {
	out := map[string][]table.Section{}
	for _, raw := range run.Sections {
		var s table.Section
		if err := json.Unmarshal(raw.JSON, &s); err != nil {
			return nil, fmt.Errorf("report: %s: section %q: %w", run.File, raw.Title, err)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("report: %s: %w", run.File, err)
		}
		out[s.Workload] = append(out[s.Workload], s)
	}
	return out, nil
}

// drawn replaces each plot's chart by its drawing (*Plot).
func drawn(blocks []Block) ([]Block, error) {
	out := make([]Block, 0, len(blocks))
	for _, b := range blocks {
		switch b := b.(type) {
		case *table.Plot:
			svg, err := drawChart(b.Chart)
			if err != nil {
				return nil, err
			}
			out = append(out, &Plot{File: b.File, Caption: plotCaption(b), SVG: svg})
		default:
			out = append(out, b)
		}
	}
	return out, nil
}

// plotCaption is a plot's caption followed by one sentence saying what
// the figure shows and how to read it.
func plotCaption(p *table.Plot) string {
	var read string
	switch c := p.Chart.(type) {
	case *table.LineChart:
		switch {
		case c.Categorical:
			read = fmt.Sprintf("Each dot is the %s of one legend entry in one %s category; dots side by side compare the entries within it.", orWords(c.YLabel, "value"), orWords(c.XLabel, "X"))
		case len(c.Series) == 1:
			read = fmt.Sprintf("The line shows how %s changes with %s.", orWords(c.YLabel, "the value"), orWords(c.XLabel, "X"))
		default:
			read = fmt.Sprintf("Each line is one legend entry, its %s at each %s; where lines cross, the order changes.", orWords(c.YLabel, "value"), orWords(c.XLabel, "X"))
		}
	case *table.ScatterChart:
		read = fmt.Sprintf("Each dot is one case, %s across and %s up (lower and further left is better)", orWords(c.XLabel, "X"), orWords(c.YLabel, "Y"))
		if c.Frontier {
			read += "; the dashed line joins the Pareto frontier, the cases no other beats on both"
		}
		read += "."
	}
	caption := strings.TrimSpace(p.Caption)
	switch {
	case caption == "":
		return read
	case read == "":
		return caption
	case !strings.HasSuffix(caption, "."):
		caption += "."
	}
	return caption + " " + read
}

// orWords is s, or def when s is empty.
func orWords(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// drawChart draws a chart as SVG.
func drawChart(c table.Chart) ([]byte, error) {
	switch c := c.(type) {
	case *table.LineChart:
		return lineSVG(c)
	case *table.ScatterChart:
		return scatterSVG(c)
	}
	return nil, fmt.Errorf("report: plot without a chart")
}

// sideBySide builds, per workload, a table of the cases measured in more
// than one run: the median time in each run (named by host and file) and
// each run's time as a multiple of the first run's.
func sideBySide(runs []*results.Run) []*table.Table {
	var workloads []string
	for _, r := range runs {
		for _, w := range r.Workloads() {
			if !slices.Contains(workloads, w) {
				workloads = append(workloads, w)
			}
		}
	}
	var out []*table.Table
	for _, w := range workloads {
		t := &table.Table{Caption: w + ": median time per op in each run", Header: []string{"case"}}
		for i, r := range runs {
			t.Header = append(t.Header, fmt.Sprintf("run %d (%s)", i+1, table.OrDash(r.Env.Host)))
			if i > 0 {
				t.Header = append(t.Header, fmt.Sprintf("run %d ÷ run 1", i+1))
			}
		}
		index := make([]map[string]*results.Case, len(runs))
		var names []string
		for i, r := range runs {
			index[i] = map[string]*results.Case{}
			for _, c := range r.Filter(w, nil) {
				index[i][c.FullName()] = c
				if i == 0 || !slices.Contains(names, c.FullName()) {
					names = append(names, c.FullName())
				}
			}
		}
		for _, n := range names {
			row := []table.Cell{table.Str(n)}
			shared := 0
			for i := range runs {
				c := index[i][n]
				if c != nil {
					shared++
				}
				row = append(row, table.Time(c))
				if i > 0 {
					row = append(row, ratioOfMedians(c, index[0][n]))
				}
			}
			if shared > 1 {
				t.Rows = append(t.Rows, row)
			}
		}
		if len(t.Rows) > 0 {
			t.Notes = []string{"Machines and times of day differ between runs: compare ratios to each run's own limit rows (`serbench compare --normalize`) before you compare machines."}
			out = append(out, t)
		}
	}
	return out
}

// ratioOfMedians is c's median ns/op ÷ ref's, "–" when either is missing,
// marked "(n=1)" or "(n=2)" when either median is of so few samples.
func ratioOfMedians(c, ref *results.Case) table.Cell {
	if c == nil || ref == nil || !c.OK() || !ref.OK() {
		return table.Dash()
	}
	return table.Ratio(c, "", ref)
}

// notices says what a reader must know before reading a run's figures.
func notices(run *results.Run) []string {
	var out []string
	switch {
	case run.End == nil && run.Env.Schema >= 2:
		out = append(out, fmt.Sprintf("This run did not finish: its results file has no end line (the process was killed, or is still running). %d cases were recorded; the rest of the plan is missing.", len(run.Cases)))
	case run.End != nil && run.End.Interrupted:
		why := run.End.Error
		if why == "" {
			why = "interrupted"
		}
		out = append(out, fmt.Sprintf("This run was stopped before it finished (%s): %d of %d planned cases were measured. `serbench run --resume --out DIR` finishes it.", why, run.End.Done, run.End.Planned))
	}
	out = append(out, run.Warnings...)
	return out
}

func envTable(run *results.Run) *table.Table {
	e := run.Env
	t := &table.Table{Header: []string{"", ""}}
	add := func(k, v string) {
		if v != "" {
			t.AddRow(table.Str(k), table.Str(v))
		}
	}
	add("results file", run.File)
	add("started (UTC)", e.Start.UTC().Format("2006-01-02 15:04:05"))
	if run.End != nil {
		add("ended (UTC)", run.End.Time.UTC().Format("2006-01-02 15:04:05"))
	}
	if e.Schema > 0 {
		add("results schema", fmt.Sprint(e.Schema))
	}
	add("CPU", e.CPU)
	add("cores / GOMAXPROCS", fmt.Sprintf("%d / %d", e.Cores, e.GOMAXPROCS))
	add("OS/arch", e.GOOS+"/"+e.GOARCH)
	add("Go", e.GoVersion)
	rev := e.Revision
	if e.Modified {
		rev += " (modified)"
	}
	add("serbench", strings.TrimSpace(e.Version+" "+rev))
	add("scale", e.Scale)
	add("shard", e.Shard)
	add("run id", e.RunID)
	add("samples per case", fmt.Sprint(e.Count))
	if e.Benchtime > 0 {
		add("target time per sample", e.Benchtime.String())
	}
	add("kernel", e.Kernel)
	if e.MemTotal > 0 {
		add("memory", table.Bytes(float64(e.MemTotal)))
	}
	add("command", strings.Join(e.Command, " "))
	rt := make([]string, 0, len(e.GoRuntime))
	for k, v := range e.GoRuntime {
		rt = append(rt, k+"="+v)
	}
	sort.Strings(rt)
	add("Go runtime settings", strings.Join(rt, ", "))
	libs := make([]string, 0, len(e.Libraries))
	for l, v := range e.Libraries {
		libs = append(libs, l+" "+v)
	}
	sort.Strings(libs)
	add("libraries", strings.Join(libs, ", "))
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, e.Extra[k])
	}
	return t
}

func genericSections(run *results.Run, cases []*results.Case) []SectionDoc {
	var out []SectionDoc
	var failed, skipped, noisy [][]table.Cell
	once, twice := 0, 0
	// With probes, each noisy case also says how far the machine itself
	// moved while it was measured (probes up to 1.5 gaps outside it).
	drift, probed := results.DriftOf(run.Probes, results.NoiseThreshold)
	machineMoved, machineKnown := 0, 0
	memoryMoved, memoryKnown := 0, 0
	var noisyCPU, noisyMem, noisyStop []table.Cell // each noisy case's "meanwhile" and "stopped" cells
	stops := 0
	meanwhile := func(loop results.ProbeLoop, c *results.Case, moved, known *int) table.Cell {
		w, n, ok := results.LoopDuring(run.Probes, loop, c.Start, c.End, drift.Gap*3/2)
		if !ok {
			return table.Dash()
		}
		*known++
		if w > results.NoiseThreshold {
			*moved++
		}
		return table.StrV(fmt.Sprintf("±%.0f%% (%d probes)", w*100, n), w)
	}
	for _, c := range cases {
		if s, ok := c.Stat(results.UnitNsPerOp); ok && c.OK() {
			switch s.N {
			case 1:
				once++
			case 2:
				twice++
			}
		}
		switch {
		case c.Skipped():
			skipped = append(skipped, []table.Cell{table.Str(c.FullName()), table.Str(c.Error)})
		case !c.OK():
			failed = append(failed, []table.Cell{table.Str(c.FullName()), table.Str(c.Error)})
		case c.Noisy:
			unit := c.NoiseUnit()
			s, _ := c.Stat(unit)
			f, lo, hi := table.Num(s.Median, table.DurationF), table.Duration(s.Lo), table.Duration(s.Hi)
			if unit != results.UnitNsPerOp {
				f, lo, hi = table.Num(s.Median, table.TimesF), table.Times(s.Lo), table.Times(s.Hi)
			}
			row := []table.Cell{table.Str(c.FullName()), table.Str(noiseUnitWords(unit)), f,
				table.StrV(lo+" … "+hi, s.Lo), table.StrV(fmt.Sprintf("±%.0f%%", s.RelWidth()*100), s.RelWidth())}
			noisyStop = append(noisyStop, table.Str(stopWords(c)))
			if c.Stop != "" {
				stops++
			}
			if probed {
				noisyCPU = append(noisyCPU, meanwhile(results.CPULoop, c, &machineMoved, &machineKnown))
				noisyMem = append(noisyMem, meanwhile(results.MemoryLoop, c, &memoryMoved, &memoryKnown))
			}
			noisy = append(noisy, row)
		}
	}
	if len(failed) > 0 {
		out = append(out, SectionDoc{Title: "Failed cases", Blocks: []Block{&table.Table{
			Header: []string{"case", "reason"}, Rows: failed,
			Notes: []string{"A failed case did not survive setup or its round-trip check; it has no timings and is ranked nowhere."},
		}}})
	}
	if len(skipped) > 0 {
		out = append(out, SectionDoc{Title: "Cases not run here", Blocks: []Block{&table.Table{
			Header: []string{"case", "why, and how to run it"}, Rows: skipped,
		}}})
	}
	if len(noisy) > 0 || once > 0 || twice > 0 {
		notes := []string{fmt.Sprintf("Cases whose interval of what the tables compare them by is wider than ±%.0f%% of the median: the in-round ratio to the group's limit row "+
			"(or baseline) for a case sampled in a group — the machine's drift between rounds cancels out of it —, ns/op for a case measured alone and for the limit row. "+
			"Treat their comparisons with care, or re-run with a higher --count.", results.NoiseThreshold*100)}
		if once > 0 {
			what := "1 case was measured once (a slow op whose time budget allowed one sample): it has no interval, so it can"
			if once > 1 {
				what = table.Int(float64(once)) + " cases were measured once (slow ops whose time budget allowed one sample): they have no interval, so they can"
			}
			notes = append(notes, what+" be called neither noisy nor steady; tables mark them (n=1).")
		}
		if twice > 0 {
			what := "1 case was measured twice: its median is"
			if twice > 1 {
				what = table.Int(float64(twice)) + " cases were measured twice: their median is"
			}
			notes = append(notes, what+" the mean of two samples, one of which may be cold, and no test can tell a difference from two samples; tables mark them (n=2).")
		}
		header := []string{"case", "judged by", "median", "interval", "width"}
		if stops > 0 {
			header = append(header, "sampling stopped")
			for i := range noisy {
				noisy[i] = append(noisy[i], noisyStop[i])
			}
			notes = append(notes, "Sampling stopped: at the sampling target (run --target: the intervals of the case's ratios to its group's baseline and limit row narrower than the target), at the --count cap (the target was not met: a close or noisy group), or when its samples used its time budget (a slow op).")
		}
		for _, col := range []struct {
			name  string
			cells []table.Cell
			known int
			note  string
		}{
			{"machine meanwhile", noisyCPU, machineKnown, fmt.Sprintf("Machine meanwhile: how far the fixed probe loop (see Machine speed) moved around its median over the probes taken while the case was measured and just before and after it. "+
				"%s of the %s noisy cases with probes were measured while the machine itself moved by more than ±%.0f%%: their width is at least partly the machine's.",
				table.Int(float64(machineMoved)), table.Int(float64(machineKnown)), results.NoiseThreshold*100)},
			{"memory meanwhile", noisyMem, memoryKnown, fmt.Sprintf("Memory meanwhile: the same for the memory chase. %s of the %s noisy cases with memory times were measured while the shared caches and memory moved by more than ±%.0f%%: "+
				"if their data does not fit in a core's own caches, their width is at least partly the memory system's.",
				table.Int(float64(memoryMoved)), table.Int(float64(memoryKnown)), results.NoiseThreshold*100)},
		} {
			if col.known == 0 {
				continue
			}
			header = append(header, col.name)
			for i := range noisy {
				noisy[i] = append(noisy[i], col.cells[i])
			}
			notes = append(notes, col.note)
		}
		blocks := []Block{&table.Table{Header: header, Rows: noisy, Notes: notes}}
		if len(noisy) == 0 {
			blocks = []Block{&Text{Body: strings.Join(notes[1:], " ")}}
		}
		out = append(out, SectionDoc{Title: "Noisy cases", Blocks: blocks})
	}
	var raw strings.Builder
	for _, c := range cases {
		if !c.OK() {
			st := strings.ToUpper(c.Status)
			if c.CannotHold() {
				st = "cannot hold"
			}
			fmt.Fprintf(&raw, "%s\t%s: %s\n", c.FullName(), st, c.Error)
			continue
		}
		fmt.Fprintf(&raw, "%s", c.FullName())
		for _, u := range c.Units() {
			v, _ := c.Median(u)
			fmt.Fprintf(&raw, "\t%s %s", table.Float(v), u)
		}
		if m := table.SamplesMark(c); m != "" {
			raw.WriteString("\t" + strings.TrimSpace(m))
		}
		raw.WriteByte('\n')
	}
	if raw.Len() > 0 {
		out = append(out, SectionDoc{Title: "Raw output (medians)", Blocks: []Block{
			&Text{Body: "One line per case: the median of every unit over its samples. Every sample is in results.jsonl and bench.txt (for benchstat)."},
			&Code{Body: raw.String()},
		}})
	}
	return out
}

// WriteDir writes report.md, report.html and every plot's SVG into dir.
func (d *Doc) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	write := func(blocks []Block) error {
		for _, b := range blocks {
			if p, ok := b.(*Plot); ok {
				if err := os.WriteFile(filepath.Join(dir, p.File), p.SVG, 0o644); err != nil {
					return fmt.Errorf("report: %w", err)
				}
			}
		}
		return nil
	}
	for _, rd := range d.Runs {
		if err := write(rd.Machine); err != nil {
			return err
		}
		for _, wd := range rd.Workloads {
			for _, sd := range wd.Sections {
				if err := write(sd.Blocks); err != nil {
					return err
				}
			}
		}
	}
	js, err := d.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), js, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var md, html strings.Builder
	d.WriteMarkdown(&md)
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	d.WriteHTML(&html)
	if err := os.WriteFile(filepath.Join(dir, "report.html"), []byte(html.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// JSON renders the document's tables, texts and plots' files as JSON
// (report.json): every cell with its text and, for numbers, its value,
// interval and sample count, for scripts that read a report.
func (d *Doc) JSON() ([]byte, error) {
	type block struct {
		Kind    string       `json:"kind"`
		Table   *table.Table `json:"table,omitempty"`
		Text    string       `json:"text,omitempty"`
		File    string       `json:"file,omitempty"`
		Caption string       `json:"caption,omitempty"`
	}
	type section struct {
		Title  string  `json:"title"`
		Blocks []block `json:"blocks"`
	}
	type wl struct {
		Name     string    `json:"name"`
		Sections []section `json:"sections"`
	}
	type run struct {
		File      string       `json:"file"`
		Notices   []string     `json:"notices,omitempty"`
		Env       *table.Table `json:"environment"`
		Workloads []wl         `json:"workloads"`
	}
	out := struct {
		Title      string         `json:"title"`
		SideBySide []*table.Table `json:"side_by_side,omitempty"`
		Runs       []run          `json:"runs"`
	}{Title: d.Title, SideBySide: d.SideBySide}
	for _, rd := range d.Runs {
		r := run{File: rd.Run.File, Notices: rd.Notices, Env: rd.Env}
		for _, wd := range rd.Workloads {
			w := wl{Name: wd.Name}
			for _, sd := range wd.Sections {
				s := section{Title: sd.Title}
				for _, b := range sd.Blocks {
					switch b := b.(type) {
					case *table.Table:
						s.Blocks = append(s.Blocks, block{Kind: "table", Table: b})
					case *table.Text:
						s.Blocks = append(s.Blocks, block{Kind: "text", Text: b.Body})
					case *table.Code:
						s.Blocks = append(s.Blocks, block{Kind: "code", Text: b.Body})
					case *Plot:
						s.Blocks = append(s.Blocks, block{Kind: "plot", File: b.File, Caption: b.Caption})
					}
				}
				w.Sections = append(w.Sections, s)
			}
			r.Workloads = append(r.Workloads, w)
		}
		out.Runs = append(out.Runs, r)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return nil, fmt.Errorf("report: json: %w", err)
	}
	return append(b, '\n'), nil
}

// stopWords says why a case's sampling stopped.
func stopWords(c *results.Case) string {
	n := table.Int(float64(len(c.Samples)))
	switch c.Stop {
	case "target":
		return "target met (" + n + " samples)"
	case "count":
		return "count cap (" + n + " samples)"
	case "budget":
		return "time budget (" + n + " samples)"
	case "run":
		return "run's budget (" + n + " samples)"
	}
	return "–"
}

// onceEach keeps a footnote that several tables of one section carry only
// under the last of them, so a reader meets it once per section.
func onceEach(blocks []Block) {
	last := map[string]int{}
	for i, b := range blocks {
		if t, ok := b.(*table.Table); ok {
			for _, n := range t.Notes {
				last[n] = i
			}
		}
	}
	for i, b := range blocks {
		t, ok := b.(*table.Table)
		if !ok || len(t.Notes) == 0 {
			continue
		}
		var keep []string
		for _, n := range t.Notes {
			if last[n] == i {
				keep = append(keep, n)
			}
		}
		t.Notes = keep
	}
}

// noiseUnitWords names the unit a case's noise is judged by.
func noiseUnitWords(unit string) string {
	switch unit {
	case results.UnitVsLimit:
		return "ratio to the limit row"
	case results.UnitVsBaseline:
		return "ratio to the baseline"
	}
	return "ns/op"
}
