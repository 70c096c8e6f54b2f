package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// RenderHTML writes report.html for the given studies: one self-contained
// page (inline CSS, inline SVG charts, the chart font embedded; no script,
// nothing fetched) with the environment, the targets' versions, settings and
// layouts, the fairness audit, then per study what it reproduces, its charts
// each beside a table of its numbers, the full table of results and the notes.
func RenderHTML(w io.Writer, reports []*StudyReport) error {
	page, err := buildPage(reports)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// The view model of the page: everything formatted, so the template only
// places text.
type (
	htmlPage struct {
		Title     string
		Generated string
		ISO       string
		Quick     []string // names of quick-run studies
		// Incomplete: "name: why" of every study that did not finish.
		Incomplete []string
		Envs       []htmlEnv
		Targets    []TargetInfo
		Settings   htmlMatrix
		Layout     htmlMatrix
		Audit      []string
		Studies    []htmlStudy
		FontCSS    template.CSS
	}
	htmlEnv struct {
		Studies string // which studies ran here, when they differ
		Rows    [][2]string
	}
	htmlMatrix struct {
		Targets []string
		Rows    []htmlMatrixRow
	}
	htmlMatrixRow struct {
		Key     string
		Values  []string
		Differs bool
	}
	htmlStudy struct {
		ID, Name, Title, Cites, Reported string
		Generated, ISO                   string
		Rounds                           int
		Quick                            bool
		Charts                           []htmlChart
		Rows                             htmlRows
		Notes                            []string
		Findings                         []Finding
		PlanChecks                       []string
		Workloads                        []KV
		Headlines, Caveats               []string
	}
	htmlChart struct {
		ID, Title, XLabel, YLabel string
		SVG                       template.HTML
		Notes                     []string
		Error                     string
		CI                        bool
		Spread                    bool // several rounds: a min–max to show
		Series                    []htmlSeries
	}
	htmlSeries struct {
		Name, Color string
		Points      []htmlPoint
	}
	htmlPoint struct{ X, Median, Range, CI string }
	htmlRows  struct {
		Keys   []string // swept properties, one column each
		CI     bool
		Spread bool // several rounds: a min–max to show
		Rows   []htmlRow
	}
	htmlRow struct {
		Target, Workload, Op, Metric, Unit string
		Point                              []string
		Median, Range, CI                  string
		N                                  int
	}
)

func buildPage(reports []*StudyReport) (*htmlPage, error) {
	pg := &htmlPage{Title: "docbench report", FontCSS: chartFontCSS()}
	var names []string
	var latest time.Time
	for _, r := range reports {
		if r == nil {
			return nil, fmt.Errorf("report.html: nil study report")
		}
		names = append(names, r.Name)
		if r.Generated.After(latest) {
			latest = r.Generated
		}
		if r.Quick {
			pg.Quick = append(pg.Quick, r.Name)
		}
		if r.Incomplete != "" {
			pg.Incomplete = append(pg.Incomplete, r.Name+": "+r.Incomplete)
		}
	}
	if len(names) > 0 {
		pg.Title += ": " + strings.Join(names, ", ")
	}
	if !latest.IsZero() {
		pg.Generated, pg.ISO = formatTime(latest), latest.UTC().Format(time.RFC3339)
	}
	pg.Envs = environments(reports)
	pg.Targets = targets(reports)
	pg.Settings = matrix(pg.Targets, func(t TargetInfo) map[string]string { return t.Settings })
	pg.Layout = matrix(pg.Targets, func(t TargetInfo) map[string]string { return t.Layout })
	pg.Audit = audit(reports)
	ids := map[string]int{}
	chartN := 0
	for _, r := range reports {
		st := htmlStudy{ID: uniqueID(ids, "study-"+slug(r.Name)), Name: r.Name, Title: r.Title,
			Cites: r.Cites, Reported: r.Reported, Rounds: r.Rounds, Quick: r.Quick, Notes: r.Notes,
			Findings: r.Findings, PlanChecks: r.PlanChecks, Workloads: r.Workloads,
			Headlines: r.Headlines, Caveats: r.Caveats}
		if st.Title == "" {
			st.Title = r.Name
		}
		if !r.Generated.IsZero() {
			st.Generated, st.ISO = formatTime(r.Generated), r.Generated.UTC().Format(time.RFC3339)
		}
		for _, c := range r.Charts {
			chartN++
			hc := htmlChartOf(c, fmt.Sprintf("chart-%d", chartN))
			hc.Spread = r.Rounds > 1 // one round has no spread to show
			st.Charts = append(st.Charts, hc)
		}
		st.Rows = rowsOf(r.Rows)
		st.Rows.Spread = r.Rounds > 1
		pg.Studies = append(pg.Studies, st)
	}
	return pg, nil
}

func htmlChartOf(c Chart, id string) htmlChart {
	hc := htmlChart{ID: id, Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel}
	if hc.Title == "" {
		hc.Title = c.YLabel
	}
	if hc.XLabel == "" {
		hc.XLabel = "x"
	}
	if hc.YLabel == "" {
		hc.YLabel = "value"
	}
	svg, notes, err := renderChart(c, false)
	if err != nil {
		// One chart that cannot be drawn does not lose the report: its
		// numbers are still in the table beside it.
		hc.Error = err.Error()
	} else {
		hc.SVG = template.HTML(inlineSVG(svg, id, chartAlt(c)))
		hc.Notes = notes
	}
	hc.Notes = append(hc.Notes, c.Missing...)
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.CILo != 0 || p.CIHi != 0 {
				hc.CI = true
			}
		}
	}
	for i, s := range c.Series {
		hs := htmlSeries{Name: s.Name, Color: hexColor(i)}
		for _, p := range s.Points {
			x := p.XLabel
			if x == "" {
				x = formatNumber(p.X)
			}
			hs.Points = append(hs.Points, htmlPoint{X: x, Median: formatNumber(p.Y),
				Range: formatRange(p.Min, p.Max), CI: formatRange(p.CILo, p.CIHi)})
		}
		hc.Series = append(hc.Series, hs)
	}
	return hc
}

// chartAlt is the SVG's accessible name: the chart's title and what it plots.
func chartAlt(c Chart) string {
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Name)
	}
	kind := "Line chart"
	if c.Kind == "bar" {
		kind = "Bar chart"
	}
	alt := kind
	if c.Title != "" {
		alt += ": " + c.Title
	}
	if c.YLabel != "" || c.XLabel != "" {
		alt += fmt.Sprintf(" (%s by %s)", c.YLabel, c.XLabel)
	}
	if len(names) > 0 {
		alt += "; series " + strings.Join(names, ", ")
	}
	return alt + "." + altTableHint
}

// altTableHint ends a chart's accessible name in the page.
const altTableHint = " The numbers are in the table beside it."

// inlineSVG turns vgsvg's standalone document into an element of the page:
// no XML prolog, sized by CSS through its viewBox, named for assistive
// technology by a <title>.
func inlineSVG(svg []byte, id, alt string) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return ""
	}
	open := s[:end]
	for _, attr := range []string{"width", "height"} {
		if i := strings.Index(open, " "+attr+"=\""); i >= 0 {
			j := strings.IndexByte(open[i+len(attr)+3:], '"')
			open = open[:i] + open[i+len(attr)+3+j+1:]
		}
	}
	open = strings.Replace(open, "<svg", fmt.Sprintf(`<svg class="chart" role="img" aria-labelledby="%s-title"`, id), 1)
	return open + fmt.Sprintf(`><title id="%s-title">%s</title>`, id, template.HTMLEscapeString(alt)) + s[end+1:]
}

func rowsOf(rows []Row) htmlRows {
	var hr htmlRows
	for _, r := range rows {
		for _, kv := range r.Point {
			if !slices.Contains(hr.Keys, kv.Key) {
				hr.Keys = append(hr.Keys, kv.Key)
			}
		}
		if r.CILo != 0 || r.CIHi != 0 {
			hr.CI = true
		}
	}
	for _, r := range rows {
		row := htmlRow{Target: r.Target, Workload: r.Workload, Op: r.Op, Metric: r.Metric, Unit: r.Unit,
			Median: formatNumber(r.Median), Range: formatRange(r.Min, r.Max), CI: formatRange(r.CILo, r.CIHi), N: r.N}
		for _, k := range hr.Keys {
			v := "—"
			for _, kv := range r.Point {
				if kv.Key == k {
					v = kv.Value
				}
			}
			row.Point = append(row.Point, v)
		}
		hr.Rows = append(hr.Rows, row)
	}
	return hr
}

// environments lists the distinct machines the studies ran on; usually one.
func environments(reports []*StudyReport) []htmlEnv {
	var envs []Environment
	var studies [][]string
	for _, r := range reports {
		i := slices.Index(envs, r.Environment)
		if i < 0 {
			envs = append(envs, r.Environment)
			studies = append(studies, nil)
			i = len(envs) - 1
		}
		studies[i] = append(studies[i], r.Name)
	}
	var out []htmlEnv
	for i, e := range envs {
		he := htmlEnv{}
		if len(envs) > 1 {
			he.Studies = strings.Join(studies[i], ", ")
		}
		add := func(k, v string) {
			if v != "" {
				he.Rows = append(he.Rows, [2]string{k, v})
			}
		}
		add("Machine", e.Hostname)
		add("CPU", e.CPUModel)
		if e.CPUs > 0 {
			add("CPUs", strconv.Itoa(e.CPUs))
		}
		if e.MemoryB > 0 {
			add("Memory", formatBytes(e.MemoryB))
		}
		osName := strings.TrimSpace(e.OS + "/" + e.Arch)
		if e.Kernel != "" {
			osName += ", kernel " + e.Kernel
		}
		add("OS", strings.Trim(osName, "/"))
		goName := e.GoVersion
		if e.GoMaxProcs > 0 {
			goName += ", GOMAXPROCS " + strconv.Itoa(e.GoMaxProcs)
		}
		add("Go", goName)
		out = append(out, he)
	}
	return out
}

// targets lists the studies' targets once each, in order of appearance.
func targets(reports []*StudyReport) []TargetInfo {
	var out []TargetInfo
	for _, r := range reports {
		for _, t := range r.Targets {
			if !slices.ContainsFunc(out, func(o TargetInfo) bool {
				return o.Name == t.Name && o.Target == t.Target && o.Version == t.Version
			}) {
				out = append(out, t)
			}
		}
	}
	return out
}

// matrix puts one map of each target side by side, a row per key, marking
// the keys whose values differ between targets.
func matrix(ts []TargetInfo, m func(TargetInfo) map[string]string) htmlMatrix {
	var mx htmlMatrix
	var keys []string
	for _, t := range ts {
		mx.Targets = append(mx.Targets, t.Name)
		for k := range m(t) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		row := htmlMatrixRow{Key: k}
		for _, t := range ts {
			v, ok := m(t)[k]
			if !ok {
				v = "—"
			}
			if len(row.Values) > 0 && v != row.Values[0] {
				row.Differs = true
			}
			row.Values = append(row.Values, v)
		}
		mx.Rows = append(mx.Rows, row)
	}
	return mx
}

// audit merges the studies' fairness findings; a finding that holds for
// some studies only names them.
func audit(reports []*StudyReport) []string {
	var lines []string
	var in [][]string
	for _, r := range reports {
		for _, a := range r.Audit {
			i := slices.Index(lines, a)
			if i < 0 {
				lines = append(lines, a)
				in = append(in, nil)
				i = len(lines) - 1
			}
			if !slices.Contains(in[i], r.Name) {
				in[i] = append(in[i], r.Name)
			}
		}
	}
	for i := range lines {
		if len(reports) > 1 && len(in[i]) < len(reports) {
			lines[i] += " (" + strings.Join(in[i], ", ") + ")"
		}
	}
	return lines
}

// chartFontCSS embeds the face the charts were measured with, once per page.
func chartFontCSS() template.CSS {
	return template.CSS(`@font-face{font-family:"Liberation Sans";font-style:normal;font-weight:normal;` +
		`src:url(data:font/ttf;base64,` + base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + `) format("truetype")}`)
}

func hexColor(i int) string {
	c := seriesColor(i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "study"
	}
	return b.String()
}

func uniqueID(seen map[string]int, id string) string {
	seen[id]++
	if n := seen[id]; n > 1 {
		return fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// formatNumber prints v with three to four significant digits, grouping
// thousands: 12,345 · 123 · 12.3 · 1.23 · 0.0123.
func formatNumber(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == 0:
		return "0"
	case a >= 1e15 || a < 1e-3:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 1000:
		return group(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	case a >= 100:
		return trimZeros(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 10:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	case a >= 1:
		return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	default:
		return trimZeros(strconv.FormatFloat(v, 'f', 3-int(math.Floor(math.Log10(a))), 64))
	}
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// group inserts thousands separators into an integer.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// formatRange prints lo–hi, or "" when both are zero (not measured).
func formatRange(lo, hi float64) string {
	if lo == 0 && hi == 0 {
		return ""
	}
	return formatNumber(lo) + "–" + formatNumber(hi)
}

func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return trimZeros(strconv.FormatFloat(v, 'f', 1, 64)) + " " + string("KMGTP"[i]) + "iB"
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pair": func(title string, m htmlMatrix) any {
		return struct {
			Title string
			M     htmlMatrix
		}{title, m}
	},
	"differs": func(m htmlMatrix) bool {
		return slices.ContainsFunc(m.Rows, func(r htmlMatrixRow) bool { return r.Differs })
	},
}).Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="docbench">
<title>{{.Title}}</title>
<style>
{{.FontCSS}}
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--soft:#f6f8fa;--warn-bg:#fff8c5;--warn:#7d4e00;--diff:#fff1e5}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 "Liberation Sans",Arial,Helvetica,sans-serif;color:var(--fg);background:#fff}
header,main,footer{max-width:1360px;margin:0 auto;padding:0 24px}
header{padding-top:20px;border-bottom:1px solid var(--line)}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:21px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:17px;margin:20px 0 6px}
h4{font-size:15px;margin:14px 0 4px}
p{margin:6px 0}
.meta{color:var(--muted)}
.headlines{font-size:17px;margin:12px 0}
.caveat{color:var(--muted);margin:4px 0}
.warning{background:var(--warn-bg);color:var(--warn);border:1px solid #d4a72c;border-radius:6px;padding:8px 12px;margin:10px 0}
table{border-collapse:collapse;font-size:13.5px;margin:6px 0 12px}
caption{text-align:left;font-weight:bold;padding:4px 0}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.differs th,tr.differs td{background:var(--diff)}
.wide{overflow-x:auto;max-width:100%}
code,.target{font-family:"Liberation Mono",Menlo,Consolas,monospace;font-size:12.5px;word-break:break-all}
dl.cites{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:8px 0}
dl.cites dt{font-weight:bold}
dl.cites dd{margin:0}
ul.audit li,ul.notes li{margin:2px 0}
figure.chart{margin:8px 0 24px;display:grid;grid-template-columns:minmax(0,800px) max-content;justify-content:start;gap:20px;align-items:start}
figure.chart figcaption{grid-column:1/-1;font-weight:bold;font-size:17px}
svg.chart{width:100%;height:auto;display:block;border:1px solid var(--line);border-radius:4px}
.chart-error{color:#a40e26;border:1px solid #a40e26;border-radius:4px;padding:8px}
.chart-notes{font-size:13px;color:var(--muted)}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
tbody th[scope=rowgroup]{background:#fff;white-space:nowrap}
details{margin:8px 0 16px}
summary{cursor:pointer;font-weight:bold;padding:4px 0}
footer{color:var(--muted);font-size:13px;padding:24px;border-top:1px solid var(--line);margin-top:32px}
@media (max-width:1100px){figure.chart{grid-template-columns:1fr}}
@media print{details{display:block}summary{display:none}}
</style>
</head>
<body>
<header>
<h1>docbench report</h1>
<p class="meta">{{if .Generated}}Generated <time datetime="{{.ISO}}">{{.Generated}}</time> · {{end}}{{len .Studies}} {{if eq (len .Studies) 1}}study{{else}}studies{{end}}{{range $i, $s := .Studies}}{{if eq $i 0}}: {{else}}, {{end}}<a href="#{{$s.ID}}">{{$s.Name}}</a>{{end}}</p>
{{- range .Incomplete}}
<p class="warning" role="alert"><strong>INCOMPLETE:</strong> {{.}}. The figures below cover only the runs that finished; runs cut short are listed in the notes and left out of every figure.</p>
{{- end}}
{{- if .Quick}}
<p class="warning" role="note"><strong>Quick run:</strong> {{range $i, $q := .Quick}}{{if $i}}, {{end}}{{$q}}{{end}} ran with --quick, shrunk to finish in about a minute. Their numbers are a smoke test, not numbers to quote.</p>
{{- end}}
{{- $many := gt (len .Studies) 1}}
{{- range .Studies}}
{{- $s := .}}
{{- if .Headlines}}
<ul class="headlines" aria-label="What {{.Name}} found">
{{- range .Headlines}}
<li>{{if $many}}{{$s.Name}}: {{end}}{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- range .Caveats}}
<p class="caveat" role="note">{{.}}.</p>
{{- end}}
{{- end}}
</header>
<main>
<section id="audit" aria-labelledby="audit-h">
<h2 id="audit-h">Fairness audit</h2>
{{- if .Audit}}
<ul class="audit">
{{- range .Audit}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- else if gt (len .Targets) 1}}
<p>No differences between the targets were found.</p>
{{- else}}
<p>One target: nothing to compare.</p>
{{- end}}
</section>
{{- range .Studies}}
<section class="study" id="{{.ID}}" aria-labelledby="{{.ID}}-h">
<h2 id="{{.ID}}-h">{{.Title}}</h2>
<p class="meta">Study <code>{{.Name}}</code>{{if .Rounds}} · {{.Rounds}} {{if eq .Rounds 1}}round{{else}}rounds{{end}} per point{{end}}{{if .Generated}} · run <time datetime="{{.ISO}}">{{.Generated}}</time>{{end}}{{if .Quick}} · <strong>quick run</strong>{{end}}</p>
{{- if .Workloads}}
<p class="meta">Workloads: {{range $i, $w := .Workloads}}{{if $i}}; {{end}}<code>{{$w.Key}}</code> — {{$w.Value}}{{end}}.</p>
{{- end}}
{{- range .PlanChecks}}
<p class="warning" role="alert"><strong>{{.}}</strong></p>
{{- end}}
{{- if .Findings}}
<h3>Findings</h3>
<ul class="findings">
{{- range .Findings}}
<li><strong>{{.Verdict}}</strong>{{if .ID}} <code>{{.ID}}</code>{{end}}: {{.Says}}.{{if .Threshold}} Threshold: {{.Threshold}}{{if .Source}} (the source: {{.Source}}){{end}}.{{else if .Source}} The source: {{.Source}}.{{end}}{{if .Measured}} Measured: {{.Measured}}.{{end}}{{if .Why}} Why: {{.Why}}.{{end}}{{if .Chart}} Chart: “{{.Chart}}”.{{end}}</li>
{{- end}}
</ul>
{{- end}}
{{- if or .Cites .Reported}}
<dl class="cites">
{{- if .Cites}}<dt>Reproduces</dt><dd>{{.Cites}}</dd>{{end}}
{{- if .Reported}}<dt>The source reported</dt><dd>{{.Reported}}</dd>{{end}}
</dl>
{{- end}}
{{- range .Charts}}
<figure class="chart" id="{{.ID}}" aria-labelledby="{{.ID}}-caption">
<figcaption id="{{.ID}}-caption">{{.Title}}</figcaption>
<div class="chart-image">
{{- if .Error}}
<p class="chart-error" role="alert">This chart could not be drawn: {{.Error}}</p>
{{- else}}
{{.SVG}}
{{- end}}
{{- range .Notes}}
<p class="chart-notes">Note: {{.}}.</p>
{{- end}}
</div>
<div class="wide"><table class="chart-data">
<caption>Numbers: {{.YLabel}}{{if .Spread}}, median of the rounds{{else}}, one round{{end}}</caption>
<thead><tr><th scope="col">Series</th><th scope="col">{{.XLabel}}</th><th scope="col" class="num">{{if .Spread}}Median{{else}}Value{{end}}</th>{{if .Spread}}<th scope="col" class="num">Min–max</th>{{end}}{{if .CI}}<th scope="col" class="num">95% CI</th>{{end}}</tr></thead>
{{- $ci := .CI}}
{{- $spread := .Spread}}
{{- range .Series}}
<tbody>
{{- $s := .}}
{{- range $i, $p := .Points}}
<tr>{{if eq $i 0}}<th scope="rowgroup" rowspan="{{len $s.Points}}"><span class="swatch" style="background:{{$s.Color}}"></span>{{$s.Name}}</th>{{end}}<td>{{$p.X}}</td><td class="num">{{$p.Median}}</td>{{if $spread}}<td class="num">{{$p.Range}}</td>{{end}}{{if $ci}}<td class="num">{{$p.CI}}</td>{{end}}</tr>
{{- else}}
<tr><th scope="row"><span class="swatch" style="background:{{$s.Color}}"></span>{{$s.Name}}</th><td colspan="{{if $ci}}4{{else if $spread}}3{{else}}2{{end}}">no data</td></tr>
{{- end}}
</tbody>
{{- end}}
</table></div>
</figure>
{{- end}}
{{- if .Rows.Rows}}
<details>
<summary>All results ({{len .Rows.Rows}} rows)</summary>
<div class="wide"><table class="results">
<thead><tr><th scope="col">Target</th><th scope="col">Workload</th>{{range .Rows.Keys}}<th scope="col">{{.}}</th>{{end}}<th scope="col">Operation</th><th scope="col">Metric</th><th scope="col" class="num">{{if .Rows.Spread}}Median{{else}}Value{{end}}</th>{{if .Rows.Spread}}<th scope="col" class="num">Min–max</th>{{end}}{{if .Rows.CI}}<th scope="col" class="num">95% CI</th>{{end}}<th scope="col">Unit</th><th scope="col" class="num">Rounds</th></tr></thead>
<tbody>
{{- $ci := .Rows.CI}}
{{- $spread := .Rows.Spread}}
{{- range .Rows.Rows}}
<tr><td>{{.Target}}</td><td>{{.Workload}}</td>{{range .Point}}<td>{{.}}</td>{{end}}<td>{{.Op}}</td><td>{{.Metric}}</td><td class="num">{{.Median}}</td>{{if $spread}}<td class="num">{{.Range}}</td>{{end}}{{if $ci}}<td class="num">{{.CI}}</td>{{end}}<td>{{.Unit}}</td><td class="num">{{.N}}</td></tr>
{{- end}}
</tbody>
</table></div>
</details>
{{- end}}
{{- if .Notes}}
<h3>Notes</h3>
<ul class="notes">
{{- range .Notes}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
</section>
{{- end}}
<section id="environment" aria-labelledby="environment-h">
<h2 id="environment-h">Environment, settings and layout</h2>
<details>
<summary>The machine, the servers' versions and settings, and each target's layout</summary>
{{- range .Envs}}
<table class="env">
{{- if .Studies}}<caption>Studies {{.Studies}}</caption>{{end}}
<tbody>
{{- range .Rows}}
<tr><th scope="row">{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- if .Targets}}
<h3>Targets</h3>
<div class="wide"><table class="targets">
<thead><tr><th scope="col">Target</th><th scope="col">Backend</th><th scope="col">Version</th><th scope="col">Connection</th></tr></thead>
<tbody>
{{- range .Targets}}
<tr><th scope="row">{{.Name}}</th><td>{{.Backend}}</td><td>{{.Version}}</td><td class="target">{{.Target}}</td></tr>
{{- end}}
</tbody>
</table></div>
{{- template "matrix" (pair "Settings" .Settings)}}
{{- template "matrix" (pair "Layout" .Layout)}}
{{- end}}
</details>
</section>
</main>
<footer>Made by docbench. Charts drawn with gonum/plot; this file needs no network and no script.</footer>
</body>
</html>
{{define "matrix"}}{{$title := .Title}}{{with .M}}{{if .Rows}}
<h3>{{$title}}</h3>
{{- if differs .}}
<p class="meta">Highlighted rows differ between the targets.</p>
{{- end}}
<div class="wide"><table class="matrix">
<thead><tr><th scope="col">{{$title}}</th>{{range .Targets}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Differs}} class="differs"{{end}}><th scope="row"><code>{{.Key}}</code></th>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- end}}{{end}}{{end}}`
