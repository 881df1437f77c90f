package report

import (
	"fmt"
	"html"
	"strings"
)

const css = `body{font:14px/1.45 system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}
td.failed{color:#b00;font-weight:bold}td.noisy{color:#a60}
caption{text-align:left;font-weight:bold;padding:.3em 0}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:12px}
figure{margin:1em 0}figure svg,figure img{max-width:100%;height:auto}
p.note{color:#555;font-size:13px}p.notice{background:#fff4e5;border-left:4px solid #e69f00;padding:.6em .8em}nav a{margin-right:1em}`

// WriteHTML renders the document as one self-contained HTML page with the
// plots inlined.
func (d *Doc) WriteHTML(w *strings.Builder) {
	fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head><body>\n", html.EscapeString(d.Title), css)
	fmt.Fprintf(w, "<h1>%s</h1>\n<nav>", html.EscapeString(d.Title))
	for i, rd := range d.Runs {
		for _, wd := range rd.Workloads {
			fmt.Fprintf(w, "<a href=\"#r%d-%s\">%s</a>", i, html.EscapeString(wd.Name), html.EscapeString(wd.Name))
		}
	}
	w.WriteString("</nav>\n")
	for i, rd := range d.Runs {
		if len(d.Runs) > 1 {
			fmt.Fprintf(w, "<h2>Run %d: %s</h2>\n", i+1, html.EscapeString(rd.Run.File))
		}
		for _, n := range rd.Notices {
			fmt.Fprintf(w, "<p class=\"notice\"><strong>Note:</strong> %s</p>\n", inline(n))
		}
		w.WriteString("<details><summary>Environment</summary>\n")
		htmlTable(w, rd.Env)
		w.WriteString("</details>\n")
		for _, wd := range rd.Workloads {
			fmt.Fprintf(w, "<h2 id=\"r%d-%s\">Workload <code>%s</code></h2>\n", i, html.EscapeString(wd.Name), html.EscapeString(wd.Name))
			for _, sd := range wd.Sections {
				fmt.Fprintf(w, "<h3>%s</h3>\n", html.EscapeString(sd.Title))
				for _, b := range sd.Blocks {
					htmlBlock(w, b)
				}
			}
		}
	}
	w.WriteString("</body></html>\n")
}

func htmlBlock(w *strings.Builder, b Block) {
	switch b := b.(type) {
	case *Table:
		htmlTable(w, b)
	case *Text:
		var list bool
		for _, line := range strings.Split(b.Body, "\n") {
			if strings.HasPrefix(line, "- ") {
				if !list {
					w.WriteString("<ul>")
					list = true
				}
				fmt.Fprintf(w, "<li>%s</li>", inline(line[2:]))
				continue
			}
			if list {
				w.WriteString("</ul>\n")
				list = false
			}
			if strings.TrimSpace(line) != "" {
				fmt.Fprintf(w, "<p>%s</p>\n", inline(line))
			}
		}
		if list {
			w.WriteString("</ul>\n")
		}
	case *Plot:
		svg := string(b.SVG)
		if i := strings.Index(svg, "<svg"); i >= 0 {
			svg = svg[i:]
		}
		fmt.Fprintf(w, "<figure>%s<figcaption>%s</figcaption></figure>\n", svg, html.EscapeString(b.Caption))
	case *Code:
		fmt.Fprintf(w, "<pre>%s</pre>\n", html.EscapeString(b.Body))
	}
}

// inline escapes text and renders **bold** and `code` spans.
func inline(s string) string {
	s = html.EscapeString(s)
	for _, m := range []struct{ mark, open, close string }{{"**", "<b>", "</b>"}, {"`", "<code>", "</code>"}} {
		parts := strings.Split(s, m.mark)
		if len(parts) < 3 {
			continue
		}
		var b strings.Builder
		for i, p := range parts {
			switch {
			case i%2 == 0:
				b.WriteString(p)
			case i == len(parts)-1: // unclosed mark: keep it literal
				b.WriteString(m.mark + p)
			default:
				b.WriteString(m.open + p + m.close)
			}
		}
		s = b.String()
	}
	return s
}

func htmlTable(w *strings.Builder, t *Table) {
	w.WriteString("<table>")
	if t.Caption != "" {
		fmt.Fprintf(w, "<caption>%s</caption>", html.EscapeString(t.Caption))
	}
	if len(t.Header) > 0 {
		w.WriteString("<tr>")
		for _, h := range t.Header {
			fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(h))
		}
		w.WriteString("</tr>")
	}
	for _, r := range t.Rows {
		w.WriteString("<tr>")
		for _, c := range r {
			class := ""
			switch {
			case c == Failed:
				class = ` class="failed"`
			case strings.HasSuffix(c, "(noisy)"):
				class = ` class="noisy"`
			}
			fmt.Fprintf(w, "<td%s>%s</td>", class, html.EscapeString(c))
		}
		w.WriteString("</tr>")
	}
	w.WriteString("</table>\n")
	for _, n := range t.Notes {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", inline(n))
	}
}
