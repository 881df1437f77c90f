package table

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/results"
)

// Derived holds the blocks a workload computed from a run's results, by
// the names its sections declare (BlockSpec.Derived).
type Derived map[string][]Block

// BuildSection builds a declared section from cases (the run's cases of
// the section's workload): its tables and plots from the declarations,
// its derived blocks from derived. Blocks that come out empty are left
// out.
func BuildSection(run *results.Run, s Section, cases []*results.Case, derived Derived) ([]Block, error) {
	var out []Block
	// A section that declares tables or plots around fixed text says
	// nothing when none of them has anything to show: it is left out.
	data, shown := false, false
	for _, b := range s.Blocks {
		before := len(out)
		switch {
		case b.Text != "":
			if b.IfEnv != "" && (run == nil || run.Env.Extra[b.IfEnv] == "") {
				continue // a fact the run did not record
			}
			out = append(out, &Text{Body: fillEnv(b.Text, run)})
		case b.Table != nil:
			bs, err := b.Table.Blocks(run, cases)
			if err != nil {
				return nil, err
			}
			out = append(out, withPalette(bs, run)...)
		case b.Scatter != nil:
			ps, err := b.Scatter.Build(run, cases)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				out = append(out, p)
			}
		case b.Plot != nil:
			for _, p := range b.Plot.Build(cases) {
				out = append(out, withPalette([]Block{p}, run)...)
			}
		case b.Descriptors != nil:
			if d := b.Descriptors.Build(run, s.Workload); d != nil {
				out = append(out, d)
			}
		case b.Subjects != "":
			if t := SubjectsTable(run, s.Workload, b.Subjects, cases); t != nil {
				t.Notes = b.SubjectNotes
				out = append(out, t)
			}
		case b.Derived != "":
			for _, d := range derived[b.Derived] {
				if !isNil(d) {
					out = append(out, d)
				}
			}
		}
		if b.Text == "" {
			data = true
			shown = shown || len(out) > before
		}
	}
	if data && !shown {
		return nil, nil
	}
	return out, nil
}

// fillEnv replaces "{env:key}" in s with the run's recorded fact of that
// key (Env.Extra, "workload.key"), "not recorded" when the run has none:
// a fixed text quotes the settings its run recorded, not this build's.
func fillEnv(s string, run *results.Run) string {
	for {
		i := strings.Index(s, "{env:")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return s
		}
		key := s[i+5 : i+j]
		v := run.Env.Extra[key]
		if v == "" {
			v = "not recorded"
		}
		s = s[:i] + v + s[i+j+1:]
	}
}

// withPalette gives the line charts among blocks the run's palette, so a
// subject has one colour in every plot of the run.
func withPalette(blocks []Block, run *results.Run) []Block {
	for _, b := range blocks {
		if p, ok := b.(*Plot); ok {
			if lc, ok := p.Chart.(*LineChart); ok && lc.Palette == nil {
				lc.Palette = RunPalette(run)
			}
		}
	}
	return blocks
}

// isNil reports whether b is nil, a nil pointer of a block type or a
// table without rows: a derived block that came out empty.
func isNil(b Block) bool {
	switch b := b.(type) {
	case nil:
		return true
	case *Table:
		return b.Empty()
	case *Text:
		return b == nil
	case *Plot:
		return b == nil
	case *Code:
		return b == nil
	}
	return false
}

// selectCases returns the cases that match every m (a Max match keeps
// the largest value among the cases the others kept, a First match the
// first value).
func selectCases(run *results.Run, cases []*results.Case, ms []Match) []*results.Case {
	var out []*results.Case
outer:
	for _, c := range cases {
		for _, m := range ms {
			if !m.Max && !m.Min && !m.First && !m.matches(c) {
				continue outer
			}
			if v := c.Labels.Get(m.Key); m.Based != "" && BaseOf(run, c.Workload, m.Key, v, m.Based) == v {
				continue outer
			}
		}
		out = append(out, c)
	}
	for _, m := range ms {
		if m.First {
			seen := Distinct(out, m.Key)
			keep := append(slices.DeleteFunc(slices.Clone(m.Values), func(v string) bool { return !slices.Contains(seen, v) }), seen...)
			if len(keep) == 0 {
				return nil
			}
			out = selectCases(run, out, []Match{Is(m.Key, keep[0])})
		}
	}
	for _, m := range ms {
		if !m.Max && !m.Min {
			continue
		}
		best, found := math.Inf(-1), false
		if m.Min {
			best = math.Inf(1)
		}
		for _, c := range out {
			if c.Labels.Has(m.Key) {
				if v := Number(c.Labels.Get(m.Key)); (m.Max && v > best) || (m.Min && v < best) {
					best, found = v, true
				}
			}
		}
		if !found {
			return nil
		}
		for _, v := range m.Values {
			if slices.ContainsFunc(out, func(c *results.Case) bool { return c.Labels.Get(m.Key) == v }) {
				best = Number(v)
				break
			}
		}
		var keep []*results.Case
		for _, c := range out {
			if c.Labels.Has(m.Key) && Number(c.Labels.Get(m.Key)) == best {
				keep = append(keep, c)
			}
		}
		out = keep
	}
	return out
}

// values returns the distinct values of key among cases: those order
// lists first (when present), then the rest in order of first appearance.
func values(cases []*results.Case, key string, order []string) []string {
	seen := Distinct(cases, key)
	var out []string
	for _, v := range order {
		if slices.Contains(seen, v) {
			out = append(out, v)
		}
	}
	for _, v := range seen {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// combos returns the distinct combinations of keys' values among cases,
// ordered by each key's order in turn (the first key varies slowest).
func combos(cases []*results.Case, keys []string, order map[string][]string) [][]string {
	if len(keys) == 0 {
		return [][]string{nil}
	}
	ranks := make([]map[string]int, len(keys))
	for i, k := range keys {
		ranks[i] = map[string]int{}
		for j, v := range values(cases, k, order[k]) {
			ranks[i][v] = j
		}
	}
	seen := map[string]bool{}
	var out [][]string
	for _, c := range cases {
		vals := make([]string, len(keys))
		for i, k := range keys {
			if !c.Labels.Has(k) {
				vals = nil
				break
			}
			vals[i] = c.Labels.Get(k)
		}
		if vals == nil {
			continue
		}
		id := strings.Join(vals, "\x00")
		if !seen[id] {
			seen[id] = true
			out = append(out, vals)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		for i := range keys {
			if ra, rb := ranks[i][out[a][i]], ranks[i][out[b][i]]; ra != rb {
				return ra < rb
			}
		}
		return false
	})
	return out
}

// finder finds the case with given label values among a set of cases.
type finder struct {
	cases []*results.Case
	ix    map[string]*Index
	// run's descriptors resolve "@base:TAG" (nil: the value itself) for
	// the cases of workload.
	run      *results.Run
	workload string
}

func newFinder(cases []*results.Case) *finder {
	return &finder{cases: cases, ix: map[string]*Index{}}
}

// find returns the case whose labels have the values in want (the last
// such case), or nil.
func (f *finder) find(want map[string]string) *results.Case {
	var keys, absent []string
	for k, v := range want {
		if v == "-" {
			absent = append(absent, k)
		} else {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	sort.Strings(absent)
	id := strings.Join(keys, "\x00") + "\x01" + strings.Join(absent, "\x00")
	ix, ok := f.ix[id]
	if !ok {
		var has []*results.Case
		for _, c := range f.cases {
			all := true
			for _, k := range keys {
				if !c.Labels.Has(k) {
					all = false
					break
				}
			}
			for _, k := range absent {
				if c.Labels.Has(k) {
					all = false
					break
				}
			}
			if all {
				has = append(has, c)
			}
		}
		ix = NewIndex(has, keys...)
		f.ix[id] = ix
	}
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = want[k]
	}
	return ix.Get(vals...)
}

func with(base map[string]string, repl map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(repl))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range repl {
		out[k] = v
	}
	return out
}

// resolveRoles replaces "@role" values in a column's label replacements
// by the label's value on the cases with that role.
func resolveRoles(m map[string]string, cases []*results.Case) map[string]string {
	var out map[string]string
	for k, v := range m {
		if role, ok := strings.CutPrefix(v, "@"); ok && !strings.HasPrefix(v, "@base:") && !strings.HasPrefix(v, "@suffix:") {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = roleValue(cases, role, k)
		}
	}
	if out == nil {
		return m
	}
	return out
}

// roleValue is the value of label key on the first case with role.
func roleValue(cases []*results.Case, role, key string) string {
	for _, c := range cases {
		if c.Role == role && c.Labels.Has(key) {
			return c.Labels.Get(key)
		}
	}
	return ""
}

// fillRoles replaces "{@role}" in s with the subject of that role.
func fillRoles(s string, cases []*results.Case) string {
	for _, role := range []string{results.RoleLimit, results.RoleBaseline} {
		if strings.Contains(s, "{@"+role+"}") {
			s = strings.ReplaceAll(s, "{@"+role+"}", roleValue(cases, role, "subject"))
		}
	}
	return s
}

// fill replaces "{key}" in s with the values of keys, and "{key:int}"
// with the value written as an integer.
func fill(s string, keys, vals []string) string {
	for i, k := range keys {
		s = strings.ReplaceAll(s, "{"+k+"}", vals[i])
		s = strings.ReplaceAll(s, "{"+k+":int}", Int(Number(vals[i])))
	}
	return s
}

// Blocks makes the tables the spec declares from cases, each followed by
// its plot when the spec has one; its Empty text when it makes none.
func (s *Spec) Blocks(run *results.Run, cases []*results.Case) ([]Block, error) {
	var out []Block
	err := s.each(run, cases, func(t *Table, part []*results.Case, sv []string) {
		out = append(out, t)
		if s.Plot != nil {
			p := *s.Plot
			p.Where, p.Split = nil, nil
			for _, pl := range p.Build(part) {
				pl.File, pl.Caption = fill(pl.File, s.Split, sv), fill(pl.Caption, s.Split, sv)
				pl.Chart.(*LineChart).Title = fill(pl.Chart.(*LineChart).Title, s.Split, sv)
				out = append(out, pl)
			}
		}
	})
	if len(out) == 0 && s.Empty != "" && len(cases) > 0 {
		out = append(out, &Text{Body: s.Empty})
	}
	return out, err
}

// Build makes the tables the spec declares from cases: one per
// combination of the Split labels (none when no case matches).
func (s *Spec) Build(cases []*results.Case) ([]*Table, error) { return s.BuildRun(nil, cases) }

// First is the first table Build makes from cases, nil when it makes none
// (a workload's summary: its declared summary table).
func (s *Spec) First(cases []*results.Case) *Table {
	if ts, err := s.Build(cases); err == nil && len(ts) > 0 {
		return ts[0]
	}
	return nil
}

// BuildRun is Build with the run the cases are of: its descriptors
// resolve "@base:" and "@suffix:" values and Based matches.
func (s *Spec) BuildRun(run *results.Run, cases []*results.Case) ([]*Table, error) {
	var out []*Table
	err := s.each(run, cases, func(t *Table, _ []*results.Case, _ []string) { out = append(out, t) })
	return out, err
}

// Build makes the charts the spec declares: one per table of Of.
func (sc *ScatterSpec) Build(run *results.Run, cases []*results.Case) ([]*Plot, error) {
	var out []*Plot
	first := 0 // the first row label cell, after a rank
	if sc.Of.Rank {
		first = 1
	}
	err := sc.Of.each(run, cases, func(t *Table, part []*results.Case, sv []string) {
		x, y := slices.Index(t.Header, sc.X), slices.Index(t.Header, sc.Y)
		ch := &ScatterChart{Title: fillMax(fill(sc.Title, sc.Of.Split, sv), part), XLabel: sc.XLabel, YLabel: sc.YLabel, LogX: sc.LogX, LogY: sc.LogY,
			XFormat: tickFormat(sc.XFormat), YFormat: tickFormat(sc.YFormat), BinaryX: sc.BinaryX, Frontier: sc.Frontier}
		for _, r := range t.Rows {
			if x < 0 || y < 0 || !isValue(r[x]) || !isValue(r[y]) {
				continue
			}
			var names []string
			for _, c := range r[first : first+sc.Of.lead()] {
				names = append(names, c.String())
			}
			p := Point{X: r[x].V, Y: r[y].V}
			if sc.Join != "" {
				p.Label = strings.Join(names, sc.Join)
			}
			ch.Points = append(ch.Points, p)
		}
		if len(ch.Points) > 0 {
			out = append(out, &Plot{File: fill(sc.File, sc.Of.Split, sv), Caption: fillMax(fill(sc.Caption, sc.Of.Split, sv), part), Chart: ch})
		}
	})
	return out, err
}

// isValue reports whether c holds a number measured or computed (not a
// verdict in words).
func isValue(c Cell) bool { return c.Kind == Value || c.Kind == Stat }

func (s *Spec) each(run *results.Run, cases []*results.Case, emit func(t *Table, part []*results.Case, sv []string)) error {
	for _, c := range slices.Concat(s.Lead, s.Columns, s.Extra) {
		if err := c.validate(); err != nil {
			return fmt.Errorf("table %q column %q: %w", s.Caption, c.Head, err)
		}
	}
	sel := selectCases(run, cases, s.Where)
	if s.Unpivot != nil {
		sel = s.Unpivot.apply(sel)
	}
	inSel, inAll := newFinder(sel), newFinder(cases)
	inAll.run = run
	if len(cases) > 0 {
		inAll.workload = cases[0].Workload
	}
	var pivot []string
	if s.Cols != "" {
		pivot = values(sel, s.Cols, s.Order[s.Cols])
	}
	for _, sv := range combos(sel, s.Split, s.Order) {
		part := sel
		if len(s.Split) > 0 {
			var ms []Match
			for i, k := range s.Split {
				ms = append(ms, Is(k, sv[i]))
			}
			part = selectCases(nil, sel, ms)
		}
		cols := pivot
		if s.Cols != "" && s.SplitCols {
			cols = values(part, s.Cols, s.Order[s.Cols])
		}
		if t := s.buildOne(part, sv, cols, inSel, inAll); t != nil && len(t.Rows) > 0 {
			emit(t, part, sv)
		}
	}
	return nil
}

// column is a resolved column: its spec and, under a pivot, its value.
// Extra columns find their cases among all the cases, not only those the
// table's Where selects (a limit row's own time beside the ratios to it).
type column struct {
	Column
	pivot string
	extra bool
}

func (s *Spec) buildOne(part []*results.Case, sv, pivot []string, inSel, inAll *finder) *Table {
	var cols []column
	all := inAll.cases
	// resolve fills a column's role references for this run (the spec
	// itself is shared and stays as declared).
	resolve := func(c Column) Column {
		c.At, c.Ref, c.Plus, c.Head = resolveRoles(c.At, all), resolveRoles(c.Ref, all), resolveRoles(c.Plus, all), fillRoles(c.Head, all)
		return c
	}
	for _, c := range s.Lead {
		cols = append(cols, column{Column: resolve(c), extra: true})
	}
	if s.Cols != "" {
		for _, p := range pivot {
			for _, c := range s.Columns {
				rc := resolve(c)
				rc.Head = strings.ReplaceAll(rc.Head, "{col:int}", Int(Number(p)))
				cols = append(cols, column{Column: rc, pivot: p})
			}
		}
	} else {
		for _, c := range s.Columns {
			cols = append(cols, column{Column: resolve(c)})
		}
	}
	for _, c := range s.Extra {
		cols = append(cols, column{Column: resolve(c), extra: true})
	}
	t := &Table{Caption: fillMax(fillRoles(fill(s.Caption, s.Split, sv), all), part), Notes: s.Notes}
	heads, nr := s.RowHeads, s.lead()
	switch {
	case len(heads) == 0 && s.Join != "":
		heads = []string{strings.Join(s.Rows, s.Join)}
	case len(heads) == 0:
		heads = s.Rows
	case s.Join != "":
		heads = heads[:1]
	}
	t.Header = append(t.Header, heads...)
	for _, c := range cols {
		t.Header = append(t.Header, strings.ReplaceAll(c.Head, "{col}", c.pivot))
	}
	type row struct {
		cells       []Cell
		limit, rest bool
	}
	var rows []row
	met, goals := 0, 0
	// cellAt is column c's cell at the row's labels at, and its case.
	cellAt := func(c column, at map[string]string) (Cell, *results.Case) {
		f := inSel
		if c.extra {
			f = inAll
		}
		atC := inAll.resolveBase(with(at, c.At), at, c.Map)
		cs := f.find(atC)
		var ref, plus *results.Case
		if cs != nil && c.Ref != nil {
			ref = inAll.find(inAll.resolveBase(with(atC, c.Ref), atC, c.Map))
			if c.NotSelf && ref == cs {
				ref = nil
			}
		}
		if cs != nil && c.Plus != nil {
			plus = inAll.find(with(atC, c.Plus))
		}
		cell := c.cell(cs, ref, plus)
		if c.Show == "best" {
			cell.V = c.raw(cs) // made relative to the column's best below
		}
		return cell, cs
	}
	for _, rv := range combos(part, s.Rows, s.Order) {
		base := map[string]string{}
		for i, k := range s.Split {
			base[k] = sv[i]
		}
		for i, k := range s.Rows {
			base[k] = rv[i]
		}
		r := row{}
		for i, k := range s.Rows {
			r.cells = append(r.cells, rowCell(rv[i], s.RowFormat[k]))
		}
		if s.Join != "" {
			var names []string
			for _, c := range r.cells {
				names = append(names, c.String())
			}
			r.cells = []Cell{Str(strings.Join(names, s.Join))}
		}
		any, limit := false, false
		over := map[int]map[string]Cell{} // an Over column's cell by value
		for _, c := range cols {
			at := base
			if s.Cols != "" && c.pivot != "" {
				at = with(base, map[string]string{s.Cols: c.pivot})
			}
			if c.Show == "label" {
				v := at[c.Label]
				if c.Suffix != "" {
					v = inAll.suffix(c.Label, v, c.Suffix)
				}
				if m, ok := c.Map[v]; ok {
					v = m
				}
				r.cells = append(r.cells, Str(v))
				continue
			}
			if c.Over != "" {
				// Aggregated below, once every column has its cells.
				over[len(r.cells)] = map[string]Cell{}
				for _, v := range values(part, c.Over, nil) {
					over[len(r.cells)][v], _ = cellAt(c, with(at, map[string]string{c.Over: v}))
				}
				r.cells = append(r.cells, Dash())
				continue
			}
			cell, cs := cellAt(c, at)
			if c.Beyond != "" && isValue(cell) && cs.Labels.Has(c.Beyond) {
				d := cell.V - Number(cs.Labels.Get(c.Beyond))
				cell.Text = " (+" + cell.Format.Format(d) + ")"
				if d < 0 {
					cell.Text = " (−" + cell.Format.Format(-d) + ")"
				}
			}
			if g, ok := c.goal(); ok && isValue(cell) {
				goals++
				cell.Text = " ✗"
				if cell.V <= g {
					met++
					cell.Text = " ✓"
				}
			}
			if cell.Kind != Missing {
				any = true
			}
			if cs != nil && cs.IsLimit() {
				limit = true
			}
			r.cells = append(r.cells, cell)
		}
		for k, c := range cols {
			if c.Over != "" {
				i := nr + k
				r.cells[i] = c.aggregate(over[i], values(part, c.Over, nil), over, cols, nr)
				any = any || r.cells[i].Kind != Missing
			}
		}
		if any {
			r.limit = limit
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	relativeToBest(rows, cols, nr, func(r row) []Cell { return r.cells })
	ofTotal(rows, cols, nr, func(r row) []Cell { return r.cells })
	// Drop the extra columns no row has a value in (a comparison with a
	// subject this run did not measure).
	keep := make([]bool, len(t.Header))
	for i := range keep {
		keep[i] = i >= nr+len(s.Lead) && i < nr+len(cols)-len(s.Extra)
		keep[i] = keep[i] || i < nr
	}
	for _, r := range rows {
		for i, c := range r.cells {
			if c.Kind != Missing {
				keep[i] = true
			}
		}
	}
	if s.Sort != "" {
		desc := strings.HasPrefix(s.Sort, "-")
		head := strings.TrimPrefix(s.Sort, "-")
		if k := slices.Index(t.Header, head); k >= 0 {
			sort.SliceStable(rows, func(a, b int) bool {
				ca, cb := rows[a].cells[k], rows[b].cells[k]
				if ca.Num() != cb.Num() {
					return ca.Num()
				}
				if desc {
					return ca.V > cb.V
				}
				return ca.V < cb.V
			})
		}
	}
	if s.Limits == "last" {
		sort.SliceStable(rows, func(a, b int) bool { return !rows[a].limit && rows[b].limit })
	}
	if len(s.Front) == 2 {
		x, y := slices.Index(t.Header, s.Front[0]), slices.Index(t.Header, s.Front[1])
		pts := make([]Point, len(rows))
		for i, r := range rows {
			pts[i] = Point{X: math.NaN(), Y: math.NaN()}
			if x >= 0 && y >= 0 && isValue(r.cells[x]) && isValue(r.cells[y]) {
				pts[i] = Point{X: r.cells[x].V, Y: r.cells[y].V}
			}
		}
		var front []row
		for _, i := range ParetoFront(pts) {
			front = append(front, rows[i])
		}
		rows = front
	}
	if s.Top > 0 && len(rows) > s.Top {
		if s.Rest != "" {
			rest := row{cells: make([]Cell, len(rows[0].cells)), rest: true}
			for i := range rest.cells {
				rest.cells[i] = Str("")
				if i >= nr {
					rest.cells[i] = sumCells(rows[s.Top:], func(r row) Cell { return r.cells[i] })
				}
			}
			rest.cells[0] = Str(strings.ReplaceAll(s.Rest, "{n}", strconv.Itoa(len(rows)-s.Top)))
			rows = append(rows[:s.Top], rest)
		} else {
			rows = rows[:s.Top]
		}
	}
	if slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "{goals}") }) {
		t.Notes = nil
		for _, n := range s.Notes {
			t.Notes = append(t.Notes, strings.ReplaceAll(n, "{goals}", fmt.Sprintf("Met in %d of %d cells with a goal.", met, goals)))
		}
	}
	var header []string
	for i, h := range t.Header {
		if keep[i] {
			header = append(header, h)
		}
	}
	t.Header = header
	if s.Rank {
		t.Header = append([]string{""}, header...)
	}
	for k, r := range rows {
		var cells []Cell
		if s.Rank {
			cells = append(cells, Num(float64(k+1), IntF))
			if r.rest {
				cells[0] = Str("")
			}
		}
		for i, c := range r.cells {
			if keep[i] {
				cells = append(cells, c)
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// lead is the number of row label cells a row of the spec starts with
// (before its Rank): one with Join, else one a label.
func (s *Spec) lead() int {
	if s.Join != "" {
		return 1
	}
	return len(s.Rows)
}

// aggregate combines an Over column's cells, by value of its Over label
// in order vals, as its Agg says; over holds every Over column's cells by
// index (lead: the row label cells before the columns).
func (c column) aggregate(cells map[string]Cell, vals []string, over map[int]map[string]Cell, cols []column, lead int) Cell {
	col := func(head string) map[string]Cell {
		for k, o := range cols {
			if o.Head == head && o.Over == c.Over {
				return over[lead+k]
			}
		}
		return nil
	}
	var keep []string
	for _, v := range vals {
		if g := col(c.Gate); isValue(cells[v]) && (c.Gate == "" || isValue(g[v])) {
			keep = append(keep, v)
		}
	}
	// argmin is the value whose cell in m is smallest (the first of equals).
	argmin := func(m map[string]Cell) (string, bool) {
		best, found := "", false
		for _, v := range keep {
			if isValue(m[v]) && (!found || m[v].V < m[best].V) {
				best, found = v, true
			}
		}
		return best, found
	}
	if len(keep) == 0 {
		return Dash()
	}
	f := cells[keep[0]].Format
	switch c.Agg {
	case "count":
		return Num(float64(len(keep)), IntF)
	case "mean", "geomean":
		sum := 0.0
		for _, v := range keep {
			if c.Agg == "mean" {
				sum += cells[v].V
			} else {
				sum += math.Log(cells[v].V)
			}
		}
		if c.Agg == "mean" {
			return Num(sum/float64(len(keep)), f)
		}
		return Num(math.Exp(sum/float64(len(keep))), f)
	case "min":
		v, _ := argmin(cells)
		return cells[v]
	case "argmin":
		v, _ := argmin(cells)
		return Str(v)
	case "at":
		if v, ok := argmin(col(c.By)); ok {
			return cells[v]
		}
	}
	return Dash()
}

// goal is the column's goal: under its pivot value, else under "".
func (c column) goal() (float64, bool) {
	if g, ok := c.Goal[c.pivot]; ok {
		return g, true
	}
	g, ok := c.Goal[""]
	return g, ok
}

// sumCells is the sum of the values of the rows' cells, in the format of
// the first; "–" when any has no value.
func sumCells[R any](rows []R, cell func(R) Cell) Cell {
	sum, f := 0.0, Plain
	for i, r := range rows {
		c := cell(r)
		if !isValue(c) {
			return Dash()
		}
		if sum += c.V; i == 0 {
			f = c.Format
		}
	}
	return Num(sum, f)
}

// ofTotal turns each OfTotal column's values into their share of the
// column's total over rows.
func ofTotal[R any](rows []R, cols []column, lead int, cells func(R) []Cell) {
	for k, c := range cols {
		if !c.OfTotal {
			continue
		}
		total := 0.0
		for _, r := range rows {
			if cl := cells(r)[lead+k]; isValue(cl) {
				total += cl.V
			}
		}
		for _, r := range rows {
			if cl := &cells(r)[lead+k]; isValue(*cl) && total > 0 {
				cl.V, cl.Lo, cl.Hi = cl.V/total, cl.Lo/total, cl.Hi/total
			}
		}
	}
}

// resolveBase replaces the "@base:TAG" and "@suffix:KEY:TAG" values of m
// by the value the label's value in row stands on and by what row's value
// of KEY adds to its own (translated by tr), as Column.At says.
func (f *finder) resolveBase(m, row, tr map[string]string) map[string]string {
	for k, v := range m {
		if tag, ok := strings.CutPrefix(v, "@base:"); ok {
			m[k] = BaseOf(f.run, f.workload, k, row[k], tag)
		} else if kt, ok := strings.CutPrefix(v, "@suffix:"); ok {
			key, tag, _ := strings.Cut(kt, ":")
			m[k] = f.suffix(key, row[key], tag)
			if t, ok := tr[m[k]]; ok {
				m[k] = t
			}
		}
	}
	return m
}

// suffix is what value v of label key adds to the value it stands on
// (see BaseOf): parquet-zstd over parquet → zstd; "" for v itself.
func (f *finder) suffix(key, v, tag string) string {
	b := BaseOf(f.run, f.workload, key, v, tag)
	if b == v {
		return ""
	}
	return strings.TrimPrefix(v, strings.TrimSuffix(b, "-none")+"-")
}

// BaseOf is the value v of label key stands on, by the descriptors run
// recorded for workload and key: v itself unless its descriptor carries
// tag, else the nearest shorter name (v cut at a "-", or that with
// "-none") whose descriptor does not; v when there is none.
func BaseOf(run *results.Run, workload, key, v, tag string) string {
	tagged := func(n string) (has, ok bool) {
		if run == nil {
			return false, false
		}
		d := run.Descriptor(workload, key, n)
		if d == nil {
			return false, false
		}
		return slices.Contains(d.Tags, tag), true
	}
	if has, _ := tagged(v); !has {
		return v
	}
	for n := v; strings.Contains(n, "-"); {
		n = n[:strings.LastIndex(n, "-")]
		for _, cand := range []string{n, n + "-none"} {
			if has, ok := tagged(cand); ok && !has {
				return cand
			}
		}
	}
	return v
}

// fillMax replaces "{max:NAME}" in s with the largest value of the fixed
// metric NAME among cases, written as an integer.
func fillMax(s string, cases []*results.Case) string {
	for {
		i := strings.Index(s, "{max:")
		j := strings.IndexByte(s[max(i, 0):], '}')
		if i < 0 || j < 0 {
			return s
		}
		name, v := s[i+5:i+j], 0.0
		for _, c := range cases {
			v = max(v, c.Metrics[name])
		}
		s = s[:i] + Int(v) + s[i+j+1:]
	}
}

// apply makes a case of each metric of cases that u turns into a row.
func (u *Unpivot) apply(cases []*results.Case) []*results.Case {
	var out []*results.Case
	for _, c := range cases {
		var names []string
		for k := range c.Metrics {
			if strings.HasPrefix(k, u.Prefix) {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		for _, k := range names {
			o := *c
			o.Labels = c.Labels.With(u.Key, strings.TrimPrefix(k, u.Prefix))
			o.Metrics = maps.Clone(c.Metrics)
			o.Metrics[u.Unit] = c.Metrics[k]
			out = append(out, &o)
		}
	}
	return out
}

func rowCell(v, format string) Cell {
	if format == "" {
		return Str(v)
	}
	f, err := ParseFormat(format)
	if err != nil {
		return Str(v)
	}
	n := Number(v)
	return Cell{Kind: Words, Text: f.Format(n), V: n, HasV: true}
}

// relativeToBest turns each "best" column's raw values into their ratio
// to the column's best: the smallest (a time: the best is 1.00×, the
// others more), or with Invert the largest (a rate: the others are a
// share of it).
func relativeToBest[R any](rows []R, cols []column, lead int, cells func(R) []Cell) {
	for k, c := range cols {
		if c.Show != "best" {
			continue
		}
		best, found := 0.0, false
		for _, r := range rows {
			cl := cells(r)[lead+k]
			if cl.Kind == Value && cl.V > 0 && (!found || (c.Invert && cl.V > best) || (!c.Invert && cl.V < best)) {
				best, found = cl.V, true
			}
		}
		for _, r := range rows {
			cl := &cells(r)[lead+k]
			if cl.Kind != Value {
				continue
			}
			if !found || cl.V <= 0 {
				*cl = Dash()
				continue
			}
			cl.V /= best
		}
	}
}

// raw is the value a "best" column compares: the Unit median, or with
// Per the rate.
func (c column) raw(cs *results.Case) float64 {
	if cs == nil || !cs.OK() {
		return math.NaN()
	}
	if c.Per != "" {
		return rate(cs, c.Unit, c.Per, Plain).V * scaleOr1(c.Scale)
	}
	v, _ := cs.Median(c.Unit)
	return v
}

func scaleOr1(s float64) float64 {
	if s == 0 {
		return 1
	}
	return s
}

// cell computes the column's cell for case c (nil when the row has none),
// its reference ref and the case plus adds (Show "sum").
func (c column) cell(cs, ref, plus *results.Case) Cell {
	f, _ := ParseFormat(c.Format)
	var out Cell
	switch c.Show {
	case "time":
		if c.Format == "" {
			f = DurationF
		}
		out = StatOf(cs, results.UnitNsPerOp, f)
	case "stat":
		out = StatOf(cs, c.Unit, f)
	case "median":
		out = Median(cs, c.Unit, f)
	case "mem":
		out = Mem(cs)
	case "ratio":
		out = Ratio(cs, c.Unit, ref)
	case "faster":
		out = Faster(cs, ref)
	case "vs":
		out = vs(cs, ref, c.Unit, f, c.Invert)
	case "diff":
		out = diff(cs, ref, c.Unit, f)
	case "rate":
		out = rate(cs, c.Unit, c.Per, f)
	case "saved":
		out = vs(cs, ref, c.Unit, Plain, false)
		if out.Kind == Value {
			out.V, out.Format = 1-out.V, PctF
		}
	case "sum":
		out = sum(cs, plus, c.Unit, f)
	case "best":
		if f == Plain {
			f = TimesF
		}
		return Median(cs, c.Unit, f)
	case "role":
		if st, ok := status(cs); ok && cs == nil {
			return st
		}
		return Str(cs.Role)
	case "name":
		if cs == nil {
			return Dash()
		}
		var vs []string
		for _, k := range strings.Split(c.Label, ",") {
			v := cs.Labels.Get(k)
			if m, ok := c.Map[v]; ok {
				v = m
			}
			vs = append(vs, v)
		}
		return Str(strings.Join(vs, " + "))
	case "why":
		if cs == nil || cs.OK() || cs.Error == "" {
			return Dash()
		}
		return Str(cs.Error)
	}
	if out.Kind == Value || out.Kind == Stat {
		scale := c.Scale
		if scale == 0 {
			scale = 1
		}
		div := 1.0
		if c.Per != "" && c.Show != "rate" && cs != nil {
			div = perOf(cs, c.Per)
			if div == 0 {
				return Dash()
			}
		}
		out.V, out.Lo, out.Hi = out.V*scale/div, out.Lo*scale/div, out.Hi*scale/div
	}
	if c.Share != "" && (out.Kind == Value || out.Kind == Stat) {
		of := 0.0
		switch {
		case c.Ref != nil && ref != nil && ref.OK():
			of, _ = ref.Median(c.Unit)
			if c.Scale != 0 {
				of *= c.Scale
			}
		case c.ShareOf != "" && cs != nil:
			of = cs.Metrics[c.ShareOf]
		}
		if of > 0 {
			prec := 1
			if c.Share == "pct0" {
				prec = 0
			}
			out.Text += " (" + strconv.FormatFloat(100*out.V/of, 'f', prec, 64) + "%)"
		}
	}
	return out
}

// perOf is the case's fixed metric called per, else its numeric label of
// that name (rows), else 0.
func perOf(c *results.Case, per string) float64 {
	if v, ok := c.Metrics[per]; ok {
		return v
	}
	if c.Labels.Has(per) {
		return Number(c.Labels.Get(per))
	}
	return 0
}

// sum is c's median of unit plus plus's.
func sum(c, plus *results.Case, unit string, f Format) Cell {
	if st, ok := status(c); ok {
		return st
	}
	if st, ok := status(plus); ok {
		return st
	}
	a, ok1 := c.Median(unit)
	b, ok2 := plus.Median(unit)
	if !ok1 || !ok2 {
		return Dash()
	}
	return Num(a+b, f).With(fewerNoteOf(c, plus, unit))
}

// diff is c's median of unit − ref's, written with its sign.
func diff(c, ref *results.Case, unit string, f Format) Cell {
	if st, ok := status(c); ok {
		return st
	}
	if ref == nil || !ref.OK() {
		return Dash()
	}
	a, ok1 := c.Median(unit)
	b, ok2 := ref.Median(unit)
	if !ok1 || !ok2 {
		return Dash()
	}
	cell := Num(a-b, f)
	if a-b > 0 {
		cell = StrV("+"+f.Format(a-b), a-b)
	}
	return cell.With(fewerNoteOf(c, ref, unit))
}

// vs is c's median of unit ÷ ref's (ref's ÷ c's when invert).
func vs(c, ref *results.Case, unit string, f Format, invert bool) Cell {
	if st, ok := status(c); ok {
		return st
	}
	if ref == nil || !ref.OK() {
		return Dash()
	}
	a, ok1 := c.Median(unit)
	b, ok2 := ref.Median(unit)
	if invert {
		a, b = b, a
	}
	if !ok1 || !ok2 || b == 0 {
		return Dash()
	}
	if f == Plain {
		f = TimesF
	}
	return Num(a/b, f).With(fewerNoteOf(c, ref, unit))
}

// rate is per ÷ the median of unit: bytes_per_op (or a fixed metric) per
// ns, scaled by the column (1e3 for MB/s, 1e9 for a count per second).
func rate(c *results.Case, unit, per string, f Format) Cell {
	if st, ok := status(c); ok {
		return st
	}
	t, ok := c.Median(unit)
	if !ok || t == 0 {
		return Dash()
	}
	n := float64(c.BytesPerOp)
	if per != "bytes_per_op" {
		n = perOf(c, per)
	}
	if n == 0 {
		return Dash()
	}
	out := Num(n/t, f)
	if s, ok := c.Stat(unit); ok {
		out.Notes = []string{SamplesNote(s.N)}
	}
	if c.Noisy && unit == results.UnitNsPerOp {
		out.Notes = append(out.Notes, Noisy)
	}
	return out
}

// Build makes the charts the spec declares from cases: one per
// combination of the Split labels.
func (p *PlotSpec) Build(cases []*results.Case) []*Plot {
	sel := selectCases(nil, cases, p.Where)
	if p.More != nil {
		for _, c := range selectCases(nil, cases, p.More.Where) {
			o := *c
			o.Labels = c.Labels.With(p.Series, c.Labels.Get(p.Series)+p.More.Suffix)
			sel = append(sel, &o)
		}
	}
	var out []*Plot
	for _, sv := range combos(sel, p.Split, nil) {
		part := sel
		if len(p.Split) > 0 {
			var ms []Match
			for i, k := range p.Split {
				ms = append(ms, Is(k, sv[i]))
			}
			part = selectCases(nil, sel, ms)
		}
		ch := &LineChart{Title: fill(p.Title, p.Split, sv), XLabel: p.XLabel, YLabel: p.YLabel, LogX: p.LogX, LogY: p.LogY}
		ch.YFormat, ch.XFormat, ch.BinaryX = tickFormat(p.YFormat), tickFormat(p.XFormat), p.BinaryX
		for _, name := range Distinct(part, p.Series) {
			s := Series{Name: name}
			for _, c := range Where(part, p.Series, name) {
				st, ok := c.Stat(p.Unit)
				if !c.OK() || !ok {
					continue
				}
				s.Limit = s.Limit || c.IsLimit()
				s.X = append(s.X, Number(c.Labels.Get(p.X)))
				if p.Per != "" {
					// A rate: its interval's ends swap.
					n := perOf(c, p.Per) * scaleOr1(p.Scale)
					s.Y, s.Lo, s.Hi = append(s.Y, n/st.Median), append(s.Lo, n/st.Hi), append(s.Hi, n/st.Lo)
					continue
				}
				s.Y = append(s.Y, st.Median)
				s.Lo = append(s.Lo, st.Lo)
				s.Hi = append(s.Hi, st.Hi)
			}
			if len(s.X) > 0 && !allNaN(s.Y) {
				ch.Series = append(ch.Series, s)
			}
		}
		if len(ch.Series) == 0 || len(Distinct(part, p.X)) < max(p.MinX, 1) {
			continue
		}
		out = append(out, &Plot{File: fill(p.File, p.Split, sv), Caption: fill(p.Caption, p.Split, sv), Chart: ch})
	}
	return out
}

// tickFormat is the axis formatter a PlotSpec names (nil: compact).
func tickFormat(name string) func(float64) string {
	switch name {
	case "duration":
		return Duration
	case "bytes":
		return Bytes
	}
	return nil
}

func allNaN(v []float64) bool {
	for _, x := range v {
		if !math.IsNaN(x) {
			return false
		}
	}
	return true
}

// SubjectsTable lists what a run recorded about the values of label key
// (usually "subject") that the cases use: role, library and version,
// settings and what each does — from the run's descriptors, never from the
// build rendering the report. It returns nil when the run recorded no
// descriptors for key (a results file from before schema 2).
func SubjectsTable(run *results.Run, workload, key string, cases []*results.Case) *Table {
	t := &Table{Header: []string{key, "role", "library", "settings", "what it does"}}
	for _, n := range Distinct(cases, key) {
		d := run.Descriptor(workload, key, n)
		if d == nil {
			continue
		}
		t.AddRow(Str(n), Str(d.Role), Str(OrDash(d.Library())), Str(OrDash(d.SettingsString())), Str(d.What))
	}
	if len(t.Rows) == 0 {
		return nil
	}
	// Drop the role column for components (codecs) that have none.
	if key != "subject" {
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i][:1], t.Rows[i][2:]...)
		}
		t.Header = append(t.Header[:1:1], t.Header[2:]...)
	}
	return t
}

// Build lists the descriptors of workload that d declares: a table, a
// text with List, nil when the run recorded none.
func (d *DescTable) Build(run *results.Run, workload string) Block {
	ds := Descriptors(run, workload, d.Key)
	if len(ds) == 0 {
		return nil
	}
	if d.List != "" {
		var items []string
		for _, x := range ds {
			items = append(items, x.What)
		}
		return &Text{Body: d.List + "\n\n- " + strings.Join(items, "\n- ")}
	}
	if d.Each != "" {
		var paras []string
		for _, x := range ds {
			if c, ok := fact(x, d.Each); ok {
				paras = append(paras, c.String())
			}
		}
		if len(paras) == 0 {
			return nil
		}
		return &Text{Body: strings.Join(paras, "\n\n")}
	}
	t := &Table{Caption: d.Caption, Notes: d.Notes}
	if len(d.Facts) > 0 {
		t.Header = []string{"", ""}
		x, shown := ds[0], map[string]bool{}
		for _, f := range d.Facts {
			cell, ok := fact(x, f.Text)
			for _, m := range f.When {
				v := field(x, m.Key)
				ok = ok && m.holds(v, v != "")
			}
			if !ok && f.Else != "" {
				cell, _ = fact(x, f.Else)
				ok = true
			}
			if ok && !shown[f.Head] {
				shown[f.Head] = true
				t.AddRow(Str(f.Head), cell)
			}
		}
		return t
	}
	for _, c := range d.Columns {
		t.Header = append(t.Header, c.Head)
	}
	for _, x := range ds {
		var row []Cell
		for _, c := range d.Columns {
			v := field(x, c.Field)
			if m, ok := c.Map[v]; ok {
				v = m
			} else if c.Else != "" {
				v = c.Else
			}
			row = append(row, Str(v))
		}
		t.AddRow(row...)
	}
	return t
}

// field is descriptor x's field k: "name", "what" or a setting.
func field(x results.Descriptor, k string) string {
	switch k {
	case "name":
		return x.Name
	case "what":
		return x.What
	}
	return x.Settings[k]
}

// placeholder is a "{field}" or "{field:FORMAT}" of a DescFact's text.
var placeholder = regexp.MustCompile(`\{([^{}:]+)(?::([a-z-]+))?\}`)

// fact fills text's placeholders with descriptor x's fields (see
// DescFact); ok is false when a field was not recorded.
func fact(x results.Descriptor, text string) (cell Cell, ok bool) {
	ok = true
	var num Cell
	s := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		p := placeholder.FindStringSubmatch(m)
		v := field(x, p[1])
		ok = ok && v != ""
		if f, err := ParseFormat(p[2]); p[2] != "" && err == nil && v != "" {
			num = Num(Number(v), f)
			return num.String()
		}
		return v
	})
	switch {
	case s == "–":
		return Dash(), ok
	case num.Kind == Value && placeholder.FindString(text) == text:
		return num, ok
	}
	return Str(s), ok
}

// OrDash returns s, or "–" when it is blank.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}
