package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/chromedp/chromedp"

	"github.com/serbench/serbench/results"
)

// browser finds a headless-capable Chromium; CI installs Debian's.
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium on PATH: .ci/run installs Debian's chromium for this test")
	}
	t.Skip("no Chromium on PATH (apt-get install chromium)")
	return ""
}

// TestReportInBrowser opens a generated report in headless Chromium and
// checks it as a reader would: no console errors, every plot present and
// drawn, clicking a column header sorts the table, the filter box hides
// rows. It saves screenshots (desktop and 800 px wide) under
// $SERBENCH_ARTIFACTS (default: the test's temp dir) for a person to look
// at.
func TestReportInBrowser(t *testing.T) {
	exe := browser(t)
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	runs := []*results.Run{readRun(t, "run-a.jsonl"), readRun(t, "run-b.jsonl")}
	layouts := map[string][]table.Section{"features": {
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}},
		{Title: "Speed", Blocks: []table.BlockSpec{{Derived: "speed"}}},
	}}
	speed := func(run *results.Run) []Block {
		cases := run.Filter("features", nil)
		{
			chart := table.LineChart{Title: "encode and decode", XLabel: "op", YLabel: "time", LogY: true, YFormat: table.Duration, Palette: table.RunPalette(run)}
			t := &table.Table{Header: []string{"subject", "op", "time"}}
			for _, op := range []string{"encode", "decode"} {
				for _, c := range table.Where(cases, "op", op) {
					st, _ := c.Stat(results.UnitNsPerOp)
					t.AddRow(table.Str(c.Labels.Get("subject")), table.Str(op), table.Time(c))
					x := 1.0
					if op == "decode" {
						x = 2
					}
					found := false
					for i := range chart.Series {
						if chart.Series[i].Name == c.Labels.Get("subject") {
							s := &chart.Series[i]
							s.X, s.Y, s.Lo, s.Hi = append(s.X, x), append(s.Y, st.Median), append(s.Lo, st.Lo), append(s.Hi, st.Hi)
							found = true
						}
					}
					if !found {
						chart.Series = append(chart.Series, table.Series{Name: c.Labels.Get("subject"), X: []float64{x}, Y: []float64{st.Median}, Lo: []float64{st.Lo}, Hi: []float64{st.Hi}, Limit: c.IsLimit()})
					}
				}
			}
			return []Block{t, &table.Plot{File: "speed.svg", Caption: "speed", Chart: &chart}}
		}
	}
	var derived []map[string]table.Derived
	for _, r := range runs {
		derived = append(derived, map[string]table.Derived{"features": {"speed": speed(r),
			"findings": {table.Findings([]string{"Fastest encode: **psdb**, 21.3 ns.", "Fastest decode: **psdb**, 56.5 ns.", "Input: generated int32 features."})}}})
	}
	doc, err := Build(Input{Runs: runs, Layouts: layouts, Derived: derived})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := doc.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	art := os.Getenv("SERBENCH_ARTIFACTS")
	if art == "" {
		art = dir
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	// Subscribe to the console before the page loads, read it in the
	// background, stop reading once the checks are done.
	cctx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(cctx)
	var (
		mu            sync.Mutex
		consoleErrors []string
		consoleDone   = make(chan struct{})
	)
	go func() {
		defer close(consoleDone)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				consoleErrors = append(consoleErrors, m.String())
				mu.Unlock()
			}
		}
	}()

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000), chromedp.Navigate("file://"+filepath.Join(dir, "report.html")), chromedp.WaitReady("main")))
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		must(err)
		return v
	}
	plots := eval(`String(document.querySelectorAll("figure svg").length)`)
	// The page opens collapsed: every section but the findings closed.
	openAtLoad := eval(`String(document.querySelectorAll("details[open]").length)`)
	height := eval(`String(document.documentElement.scrollHeight)`)
	// The answers open the page: every run's answer block lies within the
	// first screen of its run's part (here: the first run's within 900 px).
	glanceBottom := eval(`(() => { const g = document.querySelector("section.glance"); return g ? String(Math.round(g.getBoundingClientRect().bottom)) : "none" })()`)
	emptyPlots := eval(`String(Array.from(document.querySelectorAll("figure svg")).filter(s => s.getBoundingClientRect().width < 100 || s.querySelectorAll("path,line,polyline").length < 5).length)`)
	desktop, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	must(err)
	const table = `document.querySelectorAll("table.data")[2]`
	column := func() []string {
		return strings.Split(eval(`Array.from(`+table+`.tBodies[0].rows).map(r => r.cells[2].dataset.v).join("|")`), "|")
	}
	before := column()
	eval(table + `.tHead.rows[0].cells[2].click(); ""`)
	after := column()
	eval(table + `.tHead.rows[0].cells[2].click(); ""`)
	afterDesc := column()
	visible := eval(`(() => { const f = document.querySelector("input.filter"); f.value = "proto3-fixed"; f.dispatchEvent(new Event("input")); return String(Array.from(document.getElementById(f.dataset.table).tBodies[0].rows).filter(r => r.style.display !== "none").length) })()`)
	must(chromedp.Do(ctx, chromedp.EmulateViewport(800, 1000)))
	narrow, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	must(err)
	// 800 px wide, the navigation is one bar of workload links (the
	// sections are not listed) after the content, so the answers open the
	// page.
	narrowSections := eval(`String(Array.from(document.querySelectorAll("#side a.s")).filter(a => a.getClientRects().length > 0).length)`)
	narrowNav := eval(`String(Math.round(document.getElementById("side").getBoundingClientRect().height))`)
	narrowOrder := eval(`String(document.getElementById("side").getBoundingClientRect().top >= document.querySelector("section.glance").getBoundingClientRect().bottom)`)
	// A link to a collapsed section opens it.
	opened := eval(`(() => { const a = document.querySelector("#side a.s[href$='-speed']"); a.click(); return String(document.getElementById(a.getAttribute("href").slice(1)).closest("details").open) })()`)
	stopConsole()
	<-consoleDone

	for name, b := range map[string][]byte{"report-desktop.png": desktop, "report-800px.png": narrow} {
		if err := os.WriteFile(filepath.Join(art, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", art)
	mu.Lock()
	defer mu.Unlock()
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %q", consoleErrors)
	}
	if b, err := strconv.Atoi(glanceBottom); err != nil || b > 900 {
		t.Errorf("the answer block ends at %s px: not on the first screen (900 px)", glanceBottom)
	}
	if narrowSections != "0" {
		t.Errorf("800 px wide: %s section links shown in the navigation, want only the workloads'", narrowSections)
	}
	if h, err := strconv.Atoi(narrowNav); err != nil || h > 100 {
		t.Errorf("800 px wide: the navigation is %s px high, want a bar of at most 100", narrowNav)
	}
	if narrowOrder != "true" {
		t.Error("800 px wide: the navigation comes before the answers")
	}
	if openAtLoad != "0" {
		t.Errorf("%s sections open when the page loads, want every one but the findings collapsed", openAtLoad)
	}
	if h, err := strconv.Atoi(height); err != nil || h > 40000 {
		t.Errorf("the page is %s px tall collapsed, want ≤ 40,000", height)
	}
	if opened != "true" {
		t.Error("following a link to a collapsed section did not open it")
	}
	if plots != "2" || emptyPlots != "0" {
		t.Errorf("%s plots (want 2, one per run), %s of them empty", plots, emptyPlots)
	}
	keys := func(cells []string) []float64 {
		var out []float64
		for _, c := range cells {
			v, _ := strconv.ParseFloat(c, 64)
			out = append(out, v)
		}
		return out
	}
	asc, desc := keys(after), keys(afterDesc)
	for i := 1; i < len(asc); i++ {
		if asc[i] < asc[i-1] || desc[i] > desc[i-1] {
			t.Fatalf("clicking the header did not sort the column by value:\nbefore %q\nafter  %q\nagain  %q", before, after, afterDesc)
		}
	}
	if len(asc) < 4 || strings.Join(before, "|") == strings.Join(after, "|") && strings.Join(before, "|") == strings.Join(afterDesc, "|") {
		t.Errorf("sorting changed nothing: %q", before)
	}
	if visible != "2" {
		t.Errorf("filtering on proto3-fixed left %s rows visible, want 2 (encode and decode)", visible)
	}
}
