package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/serbench/serbench/table"
)

const css = `*{box-sizing:border-box}
body{font:14px/1.45 "Liberation Sans",Arial,Helvetica,sans-serif;margin:0;color:#222;background:#fafafa}
#side{position:fixed;top:0;left:0;bottom:0;width:220px;overflow-y:auto;background:#fff;border-right:1px solid #ddd;padding:1em .8em;font-size:13px}
#side a{display:block;color:#0057a3;text-decoration:none;padding:1px 0}#side a:hover{text-decoration:underline}
#side .w{font-weight:bold;margin-top:.6em}#side .s{padding-left:.8em;color:#444}#side .r{color:#777;margin-top:.8em;font-size:12px}
main{margin-left:220px;padding:1em 2em 4em;max-width:1400px}
h1{margin-top:0}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1em}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;background:#fff}
th,td{border:1px solid #d6d6d6;padding:3px 8px;text-align:left;vertical-align:top}td{overflow-wrap:anywhere}
th{background:#f0f0f0;cursor:pointer;user-select:none;white-space:nowrap}th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.num{text-align:right;white-space:nowrap}
td.failed{color:#b00;font-weight:bold}td.noisy{color:#a60}
caption{text-align:left;font-weight:bold;padding:.3em 0}
input.filter{margin:.2em 0;padding:2px 6px;font:inherit;width:16em}
pre{background:#f3f3f3;padding:.8em;overflow-x:auto;font-size:12px}
figure{margin:1em 0}figure svg{max-width:100%;height:auto;background:#fff}figcaption{color:#555;font-size:13px}
p.note{color:#555;font-size:13px}p.notice{background:#fff4e5;border-left:4px solid #e69f00;padding:.6em .8em}
section.glance{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:.6em 1.2em;margin:.5em 0 1.5em}
section.glance div{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.4em .8em;font-size:13px}
section.glance a{color:#0057a3;text-decoration:none}section.glance ul{margin:.3em 0 0;padding-left:1.1em}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em 1em;margin:1em 0}
.card dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 1.2em;margin:0;font-size:13px}.card dt{color:#666}.card dd{margin:0;overflow-wrap:anywhere}
details.sec{margin:.4em 0}details.sec>summary{cursor:pointer;padding:.2em 0}details.sec>summary h2,details.sec>summary h3{display:inline;margin:0;border:0}
details.sec>summary .what{color:#666;font-size:13px;font-weight:normal;margin-left:.6em}details.sec[open]>summary{margin-bottom:.4em}
details.long>summary{cursor:pointer;color:#0057a3;font-size:13px;margin:.4em 0}
#tools{font-size:13px;margin:.2em 0 1em}#tools button{font:inherit;margin-right:.6em}#tools a{color:#0057a3}
@media (max-width:900px){#side{position:static;width:auto;border-right:0;border-top:1px solid #ddd;padding:.5em 1em}#side a,#side .w{display:inline-block;margin:0 1em 0 0}#side .s,#side .r{display:none}main{margin-left:0;padding:1em}}
@media (min-width:901px){#tools a.toc{display:none}}`

// script sorts a table by the column whose header is clicked (numbers by
// the data-v value each numeric cell carries), filters the rows of a
// table by the text typed above it, opens the collapsed sections holding
// the target of a link (or of the page's address) and expands or
// collapses every section at a button's press. Nothing is loaded from the
// network.
const script = `document.querySelectorAll("table.data").forEach(function(t){
var hs=t.querySelectorAll("thead th");
hs.forEach(function(h,i){h.addEventListener("click",function(){
var asc=h.getAttribute("aria-sort")!=="ascending";
hs.forEach(function(o){o.removeAttribute("aria-sort")});
h.setAttribute("aria-sort",asc?"ascending":"descending");
var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
rows.sort(function(x,y){var a=x.cells[i],c=y.cells[i];if(!a||!c)return 0;
var av=a.getAttribute("data-v"),cv=c.getAttribute("data-v"),r;
if(av!==null&&cv!==null){r=parseFloat(av)-parseFloat(cv)}else if(av!==null){r=-1}else if(cv!==null){r=1}else{r=a.textContent.localeCompare(c.textContent)}
return asc?r:-r});
rows.forEach(function(r){b.appendChild(r)})})})});
function reveal(id){var e=id&&document.getElementById(id);for(;e;e=e.parentElement){if(e.tagName==="DETAILS")e.open=true}}
reveal(decodeURIComponent(location.hash.slice(1)));
window.addEventListener("hashchange",function(){reveal(decodeURIComponent(location.hash.slice(1)))});
document.querySelectorAll("a[href^='#']").forEach(function(a){a.addEventListener("click",function(){reveal(decodeURIComponent(a.getAttribute("href").slice(1)))})});
document.querySelectorAll("button[data-details]").forEach(function(b){b.addEventListener("click",function(){var open=b.getAttribute("data-details")==="open";
document.querySelectorAll("details").forEach(function(d){d.open=open})})});
document.querySelectorAll("input.filter").forEach(function(f){
var t=document.getElementById(f.getAttribute("data-table"));
f.addEventListener("input",function(){var q=f.value.toLowerCase();
Array.prototype.forEach.call(t.tBodies[0].rows,function(r){r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?"":"none"})})});`

// WriteHTML renders the document as one self-contained HTML page. It
// opens with the answers: each run's notices and answer block, then each
// workload's findings; every other section is a collapsed <details> whose
// summary says what it holds (see openSection), so the page a reader
// opens is short and every table is one click away. The navigation (runs,
// workloads, sections) comes after the content: a sidebar on a wide
// screen, the foot of the page on a narrow one. Tables are sortable and
// filterable, the environment is a card and the plots are inlined.
func (d *Doc) WriteHTML(w *strings.Builder) {
	fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>%s</title><style>%s</style></head><body>\n<main>\n", html.EscapeString(d.Title), css)
	fmt.Fprintf(w, "<h1 id=\"top\">%s</h1>\n", html.EscapeString(d.Title))
	w.WriteString("<p id=\"tools\"><button type=\"button\" data-details=\"open\">expand all sections</button><button type=\"button\" data-details=\"close\">collapse all</button><a class=\"toc\" href=\"#side\">contents</a></p>\n")
	tables := 0
	if len(d.SideBySide) > 0 {
		rows := 0
		for _, t := range d.SideBySide {
			rows += len(t.Rows)
		}
		fmt.Fprintf(w, "<details class=\"sec\"><summary><h2 id=\"side-by-side\">Runs side by side</h2><span class=\"what\">%s</span></summary>\n", holds(len(d.SideBySide), rows, 0))
		for _, t := range d.SideBySide {
			htmlBlock(w, t, &tables)
		}
		w.WriteString("</details>\n")
	}
	for i, rd := range d.Runs {
		if len(d.Runs) > 1 {
			fmt.Fprintf(w, "<h2>Run %d: %s</h2>\n", i+1, html.EscapeString(runLabel(rd)))
		}
		for _, n := range rd.Notices {
			fmt.Fprintf(w, "<p class=\"notice\"><strong>Note:</strong> %s</p>\n", inline(n))
		}
		if len(rd.Glance) > 0 {
			w.WriteString("<section class=\"glance\">")
			for _, g := range rd.Glance {
				fmt.Fprintf(w, "<div><a href=\"#%s\"><b>%s</b></a><ul>", anchor(i, g.Workload, ""), html.EscapeString(g.Workload))
				for _, l := range g.Lines {
					fmt.Fprintf(w, "<li>%s</li>", inline(l))
				}
				w.WriteString("</ul></div>")
			}
			w.WriteString("</section>\n")
		}
		// The answers first (each workload opens with its findings), then
		// where and how they were measured.
		for _, wd := range rd.Workloads {
			fmt.Fprintf(w, "<h2 id=\"%s\">Workload <code>%s</code></h2>\n", anchor(i, wd.Name, ""), html.EscapeString(wd.Name))
			for j, sd := range wd.Sections {
				id := anchor(i, wd.Name, sd.Title)
				if openSection(wd, j) {
					fmt.Fprintf(w, "<h3 id=\"%s\">%s</h3>\n", id, html.EscapeString(sd.Title))
					for _, b := range sd.Blocks {
						htmlLongBlock(w, b, &tables)
					}
					continue
				}
				nt, rows, plots := counts(sd.Blocks)
				fmt.Fprintf(w, "<details class=\"sec\"><summary><h3 id=\"%s\">%s</h3><span class=\"what\">%s</span></summary>\n", id, html.EscapeString(sd.Title), holds(nt, rows, plots))
				for _, b := range sd.Blocks {
					htmlBlock(w, b, &tables)
				}
				w.WriteString("</details>\n")
			}
		}
		fmt.Fprintf(w, "<h2 id=\"%s\">Where and how this was measured</h2>\n", anchor(i, "environment", ""))
		w.WriteString("<div class=\"card\"><dl>")
		for _, r := range rd.Env.Rows {
			if len(r) == 2 {
				fmt.Fprintf(w, "<dt>%s</dt><dd>%s</dd>", html.EscapeString(r[0].String()), html.EscapeString(r[1].String()))
			}
		}
		w.WriteString("</dl></div>\n")
		if len(rd.Machine) > 0 {
			nt, rows, plots := counts(rd.Machine)
			fmt.Fprintf(w, "<details class=\"sec\"><summary><h3 id=\"%s\">Machine speed during the run</h3><span class=\"what\">%s</span></summary>\n", anchor(i, "machine", ""), holds(nt, rows, plots))
			for _, b := range rd.Machine {
				htmlBlock(w, b, &tables)
			}
			w.WriteString("</details>\n")
		}
	}
	w.WriteString("</main>\n")
	d.writeNav(w)
	fmt.Fprintf(w, "<script>%s</script>\n</body></html>\n", script)
}

// writeNav writes the navigation across runs, workloads and sections.
func (d *Doc) writeNav(w *strings.Builder) {
	w.WriteString("<nav id=\"side\" aria-label=\"contents\">")
	fmt.Fprintf(w, "<a href=\"#top\"><b>%s</b></a>", html.EscapeString(d.Title))
	if len(d.SideBySide) > 0 {
		w.WriteString("<a class=\"w\" href=\"#side-by-side\">runs side by side</a>")
	}
	for i, rd := range d.Runs {
		if len(d.Runs) > 1 {
			fmt.Fprintf(w, "<div class=\"r\">run %d: %s</div>", i+1, html.EscapeString(runLabel(rd)))
		}
		for _, wd := range rd.Workloads {
			fmt.Fprintf(w, "<a class=\"w\" href=\"#%s\">%s</a>", anchor(i, wd.Name, ""), html.EscapeString(wd.Name))
			for _, sd := range wd.Sections {
				fmt.Fprintf(w, "<a class=\"s\" href=\"#%s\">%s</a>", anchor(i, wd.Name, sd.Title), html.EscapeString(sd.Title))
			}
		}
		fmt.Fprintf(w, "<a class=\"w\" href=\"#%s\">environment</a>", anchor(i, "environment", ""))
		if len(rd.Machine) > 0 {
			fmt.Fprintf(w, "<a class=\"s\" href=\"#%s\">machine</a>", anchor(i, "machine", ""))
		}
	}
	w.WriteString("</nav>\n")
}

// openSection reports whether the j-th section of a workload is shown
// open: its findings (the section titled Findings, else its first
// section). Every other section starts collapsed.
func openSection(wd WorkloadDoc, j int) bool {
	for k, sd := range wd.Sections {
		if sd.Title == "Findings" {
			return k == j
		}
	}
	return j == 0
}

// htmlLongRows is the longest table an open section shows unfolded; a
// longer one is a collapsed <details> of its own.
const htmlLongRows = 25

// htmlLongBlock writes a block of an open section: a table longer than
// htmlLongRows collapsed behind its caption and row count.
func htmlLongBlock(w *strings.Builder, b Block, tables *int) {
	t, ok := b.(*table.Table)
	if !ok || len(t.Rows) <= htmlLongRows {
		htmlBlock(w, b, tables)
		return
	}
	what := t.Caption
	if what == "" {
		what = "table"
	}
	fmt.Fprintf(w, "<details class=\"long\"><summary>%s: %s rows</summary>\n", html.EscapeString(what), table.Int(float64(len(t.Rows))))
	htmlBlock(w, b, tables)
	w.WriteString("</details>\n")
}

// counts returns the number of tables, their rows and the plots in blocks.
func counts(blocks []Block) (tables, rows, plots int) {
	for _, b := range blocks {
		switch b := b.(type) {
		case *table.Table:
			tables++
			rows += len(b.Rows)
		case *Plot:
			plots++
		}
	}
	return tables, rows, plots
}

// holds says what a collapsed section holds: "2 tables (40 rows), 1 plot".
func holds(tables, rows, plots int) string {
	var parts []string
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return table.Int(float64(n)) + " " + many
	}
	if tables > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", plural(tables, "table", "tables"), plural(rows, "row", "rows")))
	}
	if plots > 0 {
		parts = append(parts, plural(plots, "plot", "plots"))
	}
	if len(parts) == 0 {
		return "text"
	}
	return strings.Join(parts, ", ")
}

// runLabel names a run in a page of several: its host and file.
func runLabel(rd RunDoc) string {
	if h := rd.Run.Env.Host; h != "" {
		return h + " — " + rd.Run.File
	}
	return rd.Run.File
}

// anchor makes an id from run index, workload and section title.
func anchor(run int, workload, section string) string {
	id := fmt.Sprintf("r%d-%s", run, workload)
	if section != "" {
		id += "-" + section
	}
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		case r == ' ' || r == '_' || r == '/':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func htmlBlock(w *strings.Builder, b Block, tables *int) {
	switch b := b.(type) {
	case *table.Table:
		*tables++
		htmlTable(w, b, fmt.Sprintf("t%d", *tables))
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

// filterRows is the row count from which a table gets a filter box.
const filterRows = 8

func htmlTable(w *strings.Builder, t *table.Table, id string) {
	if len(t.Rows) >= filterRows {
		fmt.Fprintf(w, "<input class=\"filter\" type=\"search\" placeholder=\"filter rows…\" aria-label=\"filter rows\" data-table=\"%s\">", id)
	}
	fmt.Fprintf(w, "<div class=\"scroll\"><table class=\"data\" id=\"%s\">", id)
	if t.Caption != "" {
		fmt.Fprintf(w, "<caption>%s</caption>", html.EscapeString(t.Caption))
	}
	if len(t.Header) > 0 {
		w.WriteString("<thead><tr>")
		for _, h := range t.Header {
			fmt.Fprintf(w, "<th>%s</th>", html.EscapeString(h))
		}
		w.WriteString("</tr></thead>")
	}
	w.WriteString("<tbody>")
	for _, r := range t.Rows {
		w.WriteString("<tr>")
		for i, c := range r {
			text := c.String()
			var class []string
			attr := ""
			if c.Num() {
				if i > 0 {
					class = append(class, "num")
				}
				attr = fmt.Sprintf(" data-v=\"%g\"", c.V)
			}
			switch {
			case c.Kind == table.Failed:
				class = append(class, "failed")
			case c.IsNoisy(), strings.HasSuffix(text, "(noisy)"), strings.HasSuffix(text, ", noisy)"):
				class = append(class, "noisy")
			}
			if len(class) > 0 {
				attr = fmt.Sprintf(" class=\"%s\"", strings.Join(class, " ")) + attr
			}
			fmt.Fprintf(w, "<td%s>%s</td>", attr, inline(text))
		}
		w.WriteString("</tr>")
	}
	w.WriteString("</tbody></table></div>\n")
	for _, n := range t.Notes {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", inline(n))
	}
}
