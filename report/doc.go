package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/serbench/serbench/results"
)

// Doc is a rendered report: for each run, its environment and the
// sections of each workload it contains.
type Doc struct {
	Title string
	// SideBySide, with two runs or more, puts the runs' cases next to each
	// other: one table per workload, a column per run, the ratio to the
	// first.
	SideBySide []*Table
	Runs       []RunDoc
}

// RunDoc is the part of a report that covers one results file.
type RunDoc struct {
	Run *results.Run
	// Notices are said at the top: an interrupted run, a cut file.
	Notices []string
	Env     *Table
	// Machine says how steady the machine was during the run (from its
	// probes): a paragraph and a plot; empty for runs without probes.
	Machine   []Block
	Workloads []WorkloadDoc
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

// Build renders runs with the given workload sections. Every workload also
// gets the generic sections: failed cases, noisy cases and raw output.
// Plots get file names unique across the document.
func Build(runs []*results.Run, sections []Section) (*Doc, error) {
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
		for _, w := range run.Workloads() {
			cases := run.Filter(w, nil)
			wd := WorkloadDoc{Name: w}
			for _, s := range sections {
				if s.Workload != w {
					continue
				}
				blocks, err := s.Render(run, cases)
				if err != nil {
					return nil, fmt.Errorf("report: %s / %s: %w", w, s.Title, err)
				}
				blocks = slices.DeleteFunc(blocks, isNil)
				if len(blocks) > 0 {
					onceEach(blocks)
					wd.Sections = append(wd.Sections, SectionDoc{Title: s.Title, Blocks: blocks})
				}
			}
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
		d.Runs = append(d.Runs, rd)
	}
	if len(runs) > 1 {
		d.SideBySide = sideBySide(runs)
	}
	return d, nil
}

// sideBySide builds, per workload, a table of the cases measured in more
// than one run: the median time in each run (named by host and file) and
// each run's time as a multiple of the first run's.
func sideBySide(runs []*results.Run) []*Table {
	var workloads []string
	for _, r := range runs {
		for _, w := range r.Workloads() {
			if !slices.Contains(workloads, w) {
				workloads = append(workloads, w)
			}
		}
	}
	var out []*Table
	for _, w := range workloads {
		t := &Table{Caption: w + ": median time per op in each run", Header: []string{"case"}}
		for i, r := range runs {
			t.Header = append(t.Header, fmt.Sprintf("run %d (%s)", i+1, orDash(r.Env.Host)))
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
			row := []string{n}
			shared := 0
			for i := range runs {
				c := index[i][n]
				if c != nil {
					shared++
				}
				row = append(row, NsCell(c))
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
func ratioOfMedians(c, ref *results.Case) string {
	if c == nil || ref == nil || !c.OK() || !ref.OK() {
		return "–"
	}
	a, _ := c.Median(results.UnitNsPerOp)
	b, _ := ref.Median(results.UnitNsPerOp)
	if b == 0 {
		return "–"
	}
	return Times(a/b) + fewerMark(c, ref)
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

func envTable(run *results.Run) *Table {
	e := run.Env
	t := &Table{Header: []string{"", ""}}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []string{k, v})
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
		add("memory", Bytes(float64(e.MemTotal)))
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
	var failed, skipped, noisy [][]string
	once, twice := 0, 0
	// With probes, each noisy case also says how far the machine itself
	// moved while it was measured (probes up to 1.5 gaps outside it).
	drift, probed := results.DriftOf(run.Probes, results.NoiseThreshold)
	machineMoved, machineKnown := 0, 0
	memoryMoved, memoryKnown := 0, 0
	var noisyCPU, noisyMem []string // each noisy case's "meanwhile" cells
	meanwhile := func(loop results.ProbeLoop, c *results.Case, moved, known *int) string {
		w, n, ok := results.LoopDuring(run.Probes, loop, c.Start, c.End, drift.Gap*3/2)
		if !ok {
			return "–"
		}
		*known++
		if w > results.NoiseThreshold {
			*moved++
		}
		return fmt.Sprintf("±%.0f%% (%d probes)", w*100, n)
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
			skipped = append(skipped, []string{c.FullName(), c.Error})
		case !c.OK():
			failed = append(failed, []string{c.FullName(), c.Error})
		case c.Noisy:
			s, _ := c.Stat(results.UnitNsPerOp)
			row := []string{c.FullName(), Duration(s.Median), Duration(s.Lo) + " … " + Duration(s.Hi), fmt.Sprintf("±%.0f%%", s.RelWidth()*100)}
			if probed {
				noisyCPU = append(noisyCPU, meanwhile(results.CPULoop, c, &machineMoved, &machineKnown))
				noisyMem = append(noisyMem, meanwhile(results.MemoryLoop, c, &memoryMoved, &memoryKnown))
			}
			noisy = append(noisy, row)
		}
	}
	if len(failed) > 0 {
		out = append(out, SectionDoc{Title: "Failed cases", Blocks: []Block{&Table{
			Header: []string{"case", "reason"}, Rows: failed,
			Notes: []string{"A failed case did not survive setup or its round-trip check; it has no timings and is ranked nowhere."},
		}}})
	}
	if len(skipped) > 0 {
		out = append(out, SectionDoc{Title: "Cases not run here", Blocks: []Block{&Table{
			Header: []string{"case", "why, and how to run it"}, Rows: skipped,
		}}})
	}
	if len(noisy) > 0 || once > 0 || twice > 0 {
		notes := []string{fmt.Sprintf("Cases whose ns/op interval is wider than ±%.0f%% of the median; treat their comparisons with care, or re-run with a higher --count.", results.NoiseThreshold*100)}
		if once > 0 {
			what := "1 case was measured once (a slow op whose time budget allowed one sample): it has no interval, so it can"
			if once > 1 {
				what = Int(float64(once)) + " cases were measured once (slow ops whose time budget allowed one sample): they have no interval, so they can"
			}
			notes = append(notes, what+" be called neither noisy nor steady; tables mark them (n=1).")
		}
		if twice > 0 {
			what := "1 case was measured twice: its median is"
			if twice > 1 {
				what = Int(float64(twice)) + " cases were measured twice: their median is"
			}
			notes = append(notes, what+" the mean of two samples, one of which may be cold, and no test can tell a difference from two samples; tables mark them (n=2).")
		}
		header := []string{"case", "median", "interval", "width"}
		for _, col := range []struct {
			name  string
			cells []string
			known int
			note  string
		}{
			{"machine meanwhile", noisyCPU, machineKnown, fmt.Sprintf("Machine meanwhile: how far the fixed probe loop (see Machine speed) moved around its median over the probes taken while the case was measured and just before and after it. "+
				"%s of the %s noisy cases with probes were measured while the machine itself moved by more than ±%.0f%%: their width is at least partly the machine's.",
				Int(float64(machineMoved)), Int(float64(machineKnown)), results.NoiseThreshold*100)},
			{"memory meanwhile", noisyMem, memoryKnown, fmt.Sprintf("Memory meanwhile: the same for the memory chase. %s of the %s noisy cases with memory times were measured while the shared caches and memory moved by more than ±%.0f%%: "+
				"if their data does not fit in a core's own caches, their width is at least partly the memory system's.",
				Int(float64(memoryMoved)), Int(float64(memoryKnown)), results.NoiseThreshold*100)},
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
		blocks := []Block{&Table{Header: header, Rows: noisy, Notes: notes}}
		if len(noisy) == 0 {
			blocks = []Block{&Text{Body: strings.Join(notes[1:], " ")}}
		}
		out = append(out, SectionDoc{Title: "Noisy cases", Blocks: blocks})
	}
	var raw strings.Builder
	for _, c := range cases {
		if !c.OK() {
			fmt.Fprintf(&raw, "%s\t%s: %s\n", c.FullName(), strings.ToUpper(c.Status), c.Error)
			continue
		}
		fmt.Fprintf(&raw, "%s", c.FullName())
		for _, u := range c.Units() {
			v, _ := c.Median(u)
			fmt.Fprintf(&raw, "\t%s %s", Float(v), u)
		}
		if m := SamplesMark(c); m != "" {
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

// isNil reports whether b is nil or a nil *Table, *Text, *Plot or *Code,
// as a section returns when a builder such as SubjectsTable or
// Pivot.Table found nothing to show.
func isNil(b Block) bool {
	switch b := b.(type) {
	case *Table:
		return b == nil
	case *Text:
		return b == nil
	case *Plot:
		return b == nil
	case *Code:
		return b == nil
	}
	return b == nil
}

// onceEach keeps a footnote that several tables of one section carry only
// under the last of them, so a reader meets it once per section.
func onceEach(blocks []Block) {
	last := map[string]int{}
	for i, b := range blocks {
		if t, ok := b.(*Table); ok {
			for _, n := range t.Notes {
				last[n] = i
			}
		}
	}
	for i, b := range blocks {
		t, ok := b.(*Table)
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
