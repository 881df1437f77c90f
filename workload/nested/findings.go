package nested

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// Derive implements workload.Workload: the blocks Layout names, and the summary,
// from the cases alone (a read's file is its codec label).
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	var lines, subLines []string
	out := table.Derived{}
	summary := &table.Table{Header: []string{"dataset", "fastest full read", "time", "smallest file", "size"}}
	claims := &table.Table{Header: []string{"the seed found", "this run", "verdict"}}
	tally := map[table.Claim]int{}
	claim := func(text string, v table.Claim, format string, args ...any) {
		tally[v]++
		claims.AddRow(table.Str(text), table.Str(fmt.Sprintf(format, args...)), table.Str(v.Word()))
	}
	for _, ds := range table.Distinct(cases, LabelDataset) {
		// reads are Go's file reads; decodes and opens the runners'
		// in-memory decodes (every value visited) and zero-copy opens (no
		// value visited). Each is ranked only with its own kind.
		reads := table.Where(cases, LabelDataset, ds, LabelOp, OpRead)
		decodes := table.Where(cases, LabelDataset, ds, LabelOp, results.OpDecode)
		opens := table.Where(cases, LabelDataset, ds, LabelOp, results.OpOpen)
		subjects, pts := subSchema(reads)
		pa := pts[SubjectParquetArrow]
		if v := fullReads(reads); len(v) > 0 {
			f, s, slow := v[0], slices.MinFunc(v, byFile), v[len(v)-1]
			summary.AddRow(table.Str(ds), table.Str(name(f)), table.Time(f), table.Str(fileOf(s)), table.StrV(table.MiB(size(s))+" MiB", size(s)))
			line := fmt.Sprintf("%s: the fastest full read is %s at %s (%s faster than the slowest, %s%s); the smallest file is %s at %s MiB.", ds, name(f), secs(f), table.Times(table.Ns(slow)/table.Ns(f)), name(slow), table.SamplesMark(slow), fileOf(s), table.MiB(size(s)))
			if dec := first(cases, LabelDataset, ds, LabelSubject, SubjectDecompress); dec != nil {
				line += fmt.Sprintf(" Decompressing the JSON-gzip file alone takes %s (%s of the fastest read).", secs(dec), table.Times(table.Ns(dec)/table.Ns(f)))
			}
			if lines = append(lines, line); ds == "tpch" && len(pa) > 0 {
				if a, g := fullRead(reads, SubjectParquetArrow, pa[0]), fullRead(reads, SubjectParquetGo, pa[0]); a != nil && g != nil {
					lines = append(lines, fmt.Sprintf("tpch, Parquet %s: parquet-go's GenericReader reads it in %s, pqarrow plus the column-wise assembler in %s (%s).", codecOf(a), secs(g), secs(a), table.Times(table.Ns(g)/table.Ns(a))))
				}
			}
			// The seed compared readers in one runtime: its claims are
			// checked among the Go readers (the JVM's below).
			if g := slices.DeleteFunc(slices.Clone(v), func(c *results.Case) bool { return table.Language(c) != "go" }); len(g) > 0 {
				s := slices.MinFunc(g, byFile)
				// A file's size is exact: decided. Times are judged by
				// their intervals: the fastest columnar read against
				// every row-format read.
				claim(ds+": the columnar file is the smallest", table.Decided(columnar(s)), "smallest: %s (%s MiB)", fileOf(s), table.MiB(size(s)))
				if col, row := split(g, columnar); len(col) > 0 && len(row) > 0 {
					v, rival := table.FastestOf(col[0], row)
					claim(ds+": the columnar full read is the fastest", v, "fastest columnar: %s (%s); fastest row format: %s (%s)%s",
						name(col[0]), secs(col[0]), name(row[0]), secs(row[0]), unsettled(v, col[0], rival))
				}
			}
			jvmClaims(decodes, claim)
		}
		if v := fullReads(decodes); len(v) > 0 {
			line := fmt.Sprintf("%s, other languages in memory: the fastest full decode (every value visited) is %s at %s.", ds, name(v[0]), secs(v[0]))
			if o := fullReads(opens); len(o) > 0 {
				line += fmt.Sprintf(" Zero-copy opens, which visit no value and are not decodes, are shown apart: %s at %s.", name(o[0]), secs(o[0]))
			}
			lines = append(lines, line)
		}
		out["sub-"+ds] = []table.Block{modelTable(ds, subjects, pts)}
		out["languages"] = append(out["languages"], table.Languages(run, Name, LabelSubject, fullReads(slices.Concat(reads, decodes, opens)), ds, "full read", "nested-"+ds+"-languages.svg", name)...)
		var parts []string
		if kept, r := ratios(reads, SubjectParquetArrow, TierColumns, true); len(r) > 0 {
			// The speedups are the inverse ratios, in reverse order.
			med, big := kept[len(kept)/2], slices.MaxFunc(kept, func(a, b *results.Case) int { return cmp.Compare(a.Metrics[MetricColMaxB], b.Metrics[MetricColMaxB]) })
			all := table.Ns(fullRead(reads, SubjectParquetArrow, med))
			parts = append(parts, fmt.Sprintf("parquet-arrow one-column queries are %s–%s faster than the full read (median %s over %d leaves); the largest column, %s, %s",
				table.Times(1/r[len(r)-1]), table.Times(1/r[0]), table.Times(1/r[(len(r)-1)/2]), len(r), strings.TrimPrefix(lab(big, LabelQuery), "k01-"), table.Times(all/table.Ns(big))))
			m := fmt.Sprintf("parquet-arrow: full %s, median single leaf %s: %s", table.Duration(all), table.Duration(table.Ns(med)), table.Times(all/table.Ns(med)))
			full := fullRead(reads, SubjectParquetArrow, med)
			r, _ := table.TimeRatio(full, med)
			v := table.Within(r, 10, math.Inf(1))
			why := table.Unsettled(v, r)
			if why != "" {
				why = "; " + why
			}
			claim(ds+": a one-column query is an order of magnitude faster than a full read", v, "%s, interval %s%s", m, r.Text(table.Times), why)
		}
		if parts = subFinding(reads, parts); len(parts) > 0 {
			subLines = append(subLines, ds+" sub-schema: "+strings.Join(parts, "; ")+".")
		}
		if fm, ft := models(pa); fm.ok && ft.ok {
			// A fit's R² is computed from the queries' medians, once: it
			// is decided on its figure, the threshold stated.
			claim(ds+": read time ≈ linear in (columns, largest column size)", table.Decided(fm.r2 >= 0.9), "R² = %.3f over %d queries (parquet-arrow; held at ≥ 0.9)", fm.r2, len(pa))
			claim(ds+": sub-schema time grows with the largest column, not the total", table.Decided(fm.r2 >= ft.r2), "R² with largest %.3f, with total %.3f", fm.r2, ft.r2)
		}
	}
	lines = append(lines, subLines...)
	if !claims.Empty() {
		lines = append(lines, fmt.Sprintf("Of the seed's findings checked here, %d of %d held in this run, %d not held, %d inconclusive (see the table below).",
			tally[table.Held], len(claims.Rows), tally[table.NotHeld], tally[table.Inconclusive]))
	}
	if fc := table.FailedCases(cases); len(fc) > 0 {
		var failed []string
		for _, c := range fc {
			if !slices.Contains(failed, name(c)) {
				failed = append(failed, name(c))
			}
		}
		lines = append(lines, fmt.Sprintf("%d subject × codec pairs FAILED verification and are left out of every ranking: %s (first: %s).", len(failed), strings.Join(failed, ", "), fc[0].Error))
	}
	out["findings"], out["claims"], out["summary"] = []table.Block{table.Findings(lines)}, []table.Block{claims}, []table.Block{summary}
	return out
}

func lab(c *results.Case, key string) string { return c.Labels.Get(key) }
func codecOf(c *results.Case) string         { return lab(c, LabelCodec) }
func size(c *results.Case) float64           { return c.Metrics[MetricFile] }
func name(c *results.Case) string            { return lab(c, LabelSubject) + " " + codecOf(c) }
func secs(c *results.Case) string            { return table.Duration(table.Ns(c)) + table.SamplesMark(c) }

// byFile orders cases by the size of their file, reads without one (a
// runner's, decoding from memory) last.
func byFile(a, b *results.Case) int {
	return cmp.Compare(cmp.Or(size(a), math.Inf(1)), cmp.Or(size(b), math.Inf(1)))
}

// columnar reports whether c read a columnar file.
func columnar(c *results.Case) bool {
	return strings.HasPrefix(fileOf(c), "Parquet") || strings.HasPrefix(fileOf(c), "arrow")
}

// fileOf names the file c read (the Parquet readers share one).
func fileOf(c *results.Case) string {
	if strings.HasPrefix(lab(c, LabelSubject), "parquet") {
		return "Parquet " + codecOf(c)
	}
	return strings.TrimSuffix(lab(c, LabelSubject), ParSuffix) + " " + codecOf(c)
}

// first returns the first case with a time whose labels have pairs, or nil.
func first(cases []*results.Case, pairs ...string) *results.Case {
	return append(table.Timed(table.Where(cases, pairs...)), nil)[0]
}

// fullRead returns subject's full read of the file c read, or nil.
func fullRead(reads []*results.Case, subject string, c *results.Case) *results.Case {
	return first(reads, LabelSubject, subject, LabelCodec, codecOf(c), LabelQuery, QueryAll)
}

// fullReads returns the full-schema reads that have a time, fastest first.
func fullReads(reads []*results.Case) []*results.Case {
	return table.ByTime(table.Where(reads, LabelQuery, QueryAll))
}

// subSchema returns the subjects of sub-schema queries, each at its first
// tier in tier order, with all its reads of the file those queries read.
func subSchema(reads []*results.Case) ([]string, map[string][]*results.Case) {
	var subjects []string
	pts := map[string][]*results.Case{}
	for _, tier := range []string{TierColumns, TierNative, TierDecodeProject} {
		for _, s := range table.Distinct(reads, LabelSubject) {
			at := table.Where(reads, LabelSubject, s, LabelTier, tier)
			if i := slices.IndexFunc(at, func(c *results.Case) bool { return lab(c, LabelQuery) != QueryAll }); i >= 0 && pts[s] == nil {
				subjects, pts[s] = append(subjects, s), slices.DeleteFunc(table.Where(reads, LabelSubject, s, LabelCodec, codecOf(at[i])), func(c *results.Case) bool { return !c.OK() })
			}
		}
	}
	return subjects, pts
}

// modelTable is the fitted models of a dataset's sub-schema reads; empty
// (left out of the report) when none fits.
func modelTable(ds string, subjects []string, pts map[string][]*results.Case) *table.Table {
	t := &table.Table{Caption: ds + ": fitted read time ≈ a + b·columns + c·(largest column MiB), over every query", Header: []string{"subject", "queries", "a", "b per column", "c per MiB of the largest", "R²", "R² with total size instead"}}
	dur := func(v float64) table.Cell { return table.StrV(strings.Replace(table.Duration(v), "-", "−", 1), v) }
	r2 := func(v float64) table.Cell { return table.StrV(fmt.Sprintf("%.3f", v), v) }
	for _, s := range subjects {
		if fm, ft := models(pts[s]); fm.ok && ft.ok {
			t.AddRow(table.Str(s), table.Num(float64(len(pts[s])), table.IntF), dur(fm.a), dur(fm.b), dur(fm.c*(1<<20)), r2(fm.r2), r2(ft.r2))
		}
	}
	return t
}

// fit is a least-squares fit of y ≈ a + b·x1 + c·x2 and its R².
type fit struct {
	a, b, c, r2 float64
	ok          bool
}

// fitLinear fits y ≈ a + b·x1 + c·x2 on the centred variables; fewer than
// four points, or x1 and x2 collinear, give no fit.
func fitLinear(x1, x2, y []float64) fit {
	n := float64(len(y))
	var m1, m2, my, s11, s12, s22, s1y, s2y, syy float64
	for i := range y {
		m1, m2, my = m1+x1[i]/n, m2+x2[i]/n, my+y[i]/n
	}
	for i := range y {
		d1, d2, dy := x1[i]-m1, x2[i]-m2, y[i]-my
		s11, s12, s22, s1y, s2y, syy = s11+d1*d1, s12+d1*d2, s22+d2*d2, s1y+d1*dy, s2y+d2*dy, syy+dy*dy
	}
	det := s11*s22 - s12*s12
	if n < 4 || !(det > 1e-12*s11*s22) {
		return fit{}
	}
	f := fit{b: (s1y*s22 - s2y*s12) / det, c: (s2y*s11 - s1y*s12) / det, ok: true}
	f.a = my - f.b*m1 - f.c*m2
	f.r2 = (f.b*s1y + f.c*s2y) / max(syy, math.SmallestNonzeroFloat64) // 0 when y is constant
	return f
}

// models fits the seed's model (columns, largest column) and (columns, total size).
func models(cs []*results.Case) (withMax, withTotal fit) {
	var x1, xm, xt, y []float64
	for _, c := range cs {
		x1, xm, xt, y = append(x1, c.Metrics[MetricLeaves]), append(xm, c.Metrics[MetricColMaxB]), append(xt, c.Metrics[MetricColsB]), append(y, table.Ns(c))
	}
	return fitLinear(x1, xm, y), fitLinear(x1, xt, y)
}

// ratios returns the sub-schema reads in tier of subject ("": of every
// subject but Arrow IPC, the row formats), of one column if one, and their
// times over their file's full read (a native reader's is its row format's
// parallel reader's), ascending.
func ratios(reads []*results.Case, subject, tier string, one bool) ([]*results.Case, []float64) {
	vs := func(c *results.Case) float64 {
		s := lab(c, LabelSubject)
		if tier == TierNative {
			s = strings.TrimSuffix(strings.Replace(s, SubjectAvroReaderPar, "avro", 1), StructParSuffix) + ParSuffix
		}
		return table.Ns(c) / table.Ns(fullRead(reads, s, c))
	}
	kept := slices.DeleteFunc(table.Where(reads, LabelTier, tier), func(c *results.Case) bool {
		s := lab(c, LabelSubject)
		return lab(c, LabelQuery) == QueryAll || subject != "" && s != subject || subject == "" && strings.HasPrefix(s, SubjectArrowIPC) || one && c.Metrics[MetricLeaves] != 1 || math.IsNaN(vs(c))
	})
	slices.SortStableFunc(kept, func(a, b *results.Case) int { return cmp.Compare(vs(a), vs(b)) })
	r := make([]float64, len(kept))
	for i, c := range kept {
		r[i] = vs(c)
	}
	return kept, r
}

// subFinding adds to parts Arrow IPC's and the row formats' sub-schema tiers.
func subFinding(reads []*results.Case, parts []string) []string {
	med := func(r []float64) float64 { return r[len(r)/2] }
	if _, r := ratios(reads, SubjectArrowIPC, TierColumns, true); len(r) > 0 {
		p := fmt.Sprintf("Arrow IPC (arrow-go's reader has no field selection): the uncompressed, memory-mapped file answers one-column queries %s faster than its full read (median; unqueried buffers are sliced, never read)", table.Times(1/r[(len(r)-1)/2]))
		if kept, z := ratios(reads, SubjectArrowIPC, TierDecodeProject, false); len(z) > 0 {
			p += fmt.Sprintf(", the %s file decompresses every buffer and its queries take %s of its full read (median)", codecOf(kept[0]), table.Pct(med(z)))
		}
		parts = append(parts, p)
	}
	if kept, r := ratios(reads, "", TierDecodeProject, false); len(r) > 0 {
		p := fmt.Sprintf("row formats (%s, parallel) decoding and projecting take %s–%s of their full read per query (median %s)", codecOf(kept[0]), table.Pct(r[0]), table.Pct(r[len(r)-1]), table.Pct(med(r)))
		if _, n := ratios(reads, "", TierNative, false); len(n) > 0 {
			p += fmt.Sprintf("; with native skipping (Avro's reader schema, projection structs for JSON and CBOR) %s–%s (median %s)", table.Pct(n[0]), table.Pct(n[len(n)-1]), table.Pct(med(n)))
		}
		parts = append(parts, p)
	}
	return parts
}

// Summary implements workload.Workload: each dataset's fastest read and smallest file.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	if t, _ := w.Derive(run, cases)["summary"][0].(*table.Table); !t.Empty() {
		return t
	}
	return nil
}

// jvmClaims checks the seed's JVM findings in the JVM (the java runner's
// subjects): EDN reads slowest; SMILE and protobuf read faster than EDN,
// Avro and Fressian (the seed: the slow formats are bound by decoding,
// the fast ones approach protobuf).
func jvmClaims(reads []*results.Case, claim func(text string, v table.Claim, format string, args ...any)) {
	j := map[string]*results.Case{}
	var slowest *results.Case
	for _, c := range fullReads(reads) {
		if table.Language(c) != "java" {
			continue
		}
		j[strings.TrimPrefix(lab(c, LabelSubject), "java:")] = c
		slowest = c
	}
	if slowest == nil {
		return
	}
	ds := lab(slowest, LabelDataset)
	if e := j["edn"]; e != nil {
		// "EDN is the slowest": every other JVM format is faster than it.
		var parts []table.Claim
		for _, c := range j {
			if c != e {
				v, _ := table.FasterThan(c, e)
				parts = append(parts, v)
			}
		}
		v := table.All(parts...)
		claim(ds+" (JVM): EDN reads slowest of the JVM formats", v, "slowest by median: %s (%s); EDN %s%s", lab(slowest, LabelSubject), secs(slowest), secs(e), unsettled(v, e, slowest))
	}
	fmax := table.Least([]*results.Case{j["jackson-smile"], j["protobuf-java"]}, func(c *results.Case) float64 { return -table.Ns(c) })
	if smin := table.Fastest(j["edn"], j["avro-generic"], j["fressian"]); fmax != nil && smin != nil {
		var parts []table.Claim
		for _, f := range []*results.Case{j["jackson-smile"], j["protobuf-java"]} {
			for _, s := range []*results.Case{j["edn"], j["avro-generic"], j["fressian"]} {
				if f != nil && s != nil {
					v, _ := table.FasterThan(f, s)
					parts = append(parts, v)
				}
			}
		}
		v := table.All(parts...)
		claim(ds+" (JVM): SMILE and protobuf read faster than EDN, Avro and Fressian", v,
			"slower of SMILE/protobuf: %s (%s); faster of EDN/Avro/Fressian: %s (%s)%s", lab(fmax, LabelSubject), secs(fmax), lab(smin, LabelSubject), secs(smin), unsettled(v, fmax, smin))
	}
}

// split separates cases by keep, each part in the order of cases.
func split(cases []*results.Case, keep func(*results.Case) bool) (in, out []*results.Case) {
	for _, c := range cases {
		if keep(c) {
			in = append(in, c)
		} else {
			out = append(out, c)
		}
	}
	return in, out
}

// unsettled is "; " and why verdict v, judged on a's time over b's
// (table.TimeRatio, as FasterThan judges it), is inconclusive
// (table.Unsettled) with that ratio's interval; "" when v is decided or a
// case is missing.
func unsettled(v table.Claim, a, b *results.Case) string {
	if a == nil || b == nil {
		return ""
	}
	r, _ := table.TimeRatio(a, b)
	if why := table.Unsettled(v, r); why != "" {
		return fmt.Sprintf("; %s (%s over %s: %s)", why, name(a), name(b), r.Text(table.Times))
	}
	return ""
}
