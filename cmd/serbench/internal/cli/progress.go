package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
)

// progress shows how far a run is: a redrawn bar on a terminal, a line per
// tenth of the run otherwise. Failed cases are always printed.
type progress struct {
	w     io.Writer
	mode  string
	total int
	start time.Time
	last  int
}

var _ run.Progress = (*progress)(nil)

func newProgress(mode string, w io.Writer) (*progress, error) {
	switch mode {
	case "auto":
		mode = "lines"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				mode = "bar"
			}
		}
	case "bar", "lines", "none":
	default:
		return nil, fmt.Errorf("unknown --progress %q (valid: auto, bar, lines, none)", mode)
	}
	return &progress{w: w, mode: mode}, nil
}

// Begin implements run.Progress.
func (p *progress) Begin(total int) {
	p.total = total
	p.start = time.Now()
	if p.mode != "none" {
		fmt.Fprintf(p.w, "serbench: %d case runs to measure\n", total)
	}
}

// Start implements bench.Progress: it shows the case's full name, the
// string --filter matches.
func (p *progress) Start(done, _ int, c *bench.Case) {
	if p.mode == "bar" {
		p.draw(done, c.FullName())
	}
}

// Done implements bench.Progress.
func (p *progress) Done(n, _ int, r *results.Case) {
	switch {
	case r.Skipped():
		p.clear()
		fmt.Fprintf(p.w, "skipped %s: %s\n", r.FullName(), r.Error)
	case !r.OK():
		p.clear()
		fmt.Fprintf(p.w, "FAILED %s: %s\n", r.FullName(), r.Error)
	}
	switch p.mode {
	case "bar":
		p.draw(n, "")
	case "lines":
		if tenth := n * 10 / p.total; tenth > p.last || n == p.total {
			p.last = tenth
			fmt.Fprintf(p.w, "serbench: %d/%d case runs, %s elapsed%s\n", n, p.total, time.Since(p.start).Round(time.Second), p.eta(n))
		}
	}
}

func (p *progress) eta(n int) string {
	if n == 0 || n >= p.total {
		return ""
	}
	el := time.Since(p.start)
	rest := time.Duration(float64(el) / float64(n) * float64(p.total-n))
	return ", about " + rest.Round(time.Second).String() + " left"
}

func (p *progress) draw(n int, name string) {
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = n * width / p.total
	}
	bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
	if len(name) > 60 {
		name = "…" + name[len(name)-59:]
	}
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d %s%s  %s", bar, n, p.total, time.Since(p.start).Round(time.Second), p.eta(n), name)
}

func (p *progress) clear() {
	if p.mode == "bar" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// End implements run.Progress.
func (p *progress) End() {
	if p.mode == "bar" {
		p.clear()
	}
}
