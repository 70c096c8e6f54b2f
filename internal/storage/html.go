package storage

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
)

// WriteHTML writes an offline page: per target its figures and the size
// histogram with the TOAST threshold shaded; with d, a drawing of where
// each byte of the document goes in each format.
func WriteHTML(w io.Writer, r *Report, d *DocReport) error {
	var text strings.Builder
	if err := WriteText(&text, r); err != nil {
		return err
	}
	page := struct {
		Title, Text string
		Histogram   template.HTML
		Doc         []template.HTML
		DocText     string
	}{Title: "docbench storage: " + r.Source, Text: text.String()}
	if d == nil {
		svg, err := report.RenderChartSVG(histogramChart(r))
		if err != nil {
			return err
		}
		page.Histogram = svgOf(svg)
	} else {
		var dt strings.Builder
		WriteDocText(&dt, d)
		page.DocText = dt.String()
		for _, m := range d.Formats {
			page.Doc = append(page.Doc, byteMapSVG(m, d.Formats, d.Servers))
		}
	}
	return pageTemplate.Execute(w, page)
}

// svgOf is a rendered chart without its XML prolog, for inlining.
func svgOf(svg []byte) template.HTML {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s) // rendered by gonum/plot from our own figures
}

// histogramChart is the documents' count by size in each target's stored
// format, on a log axis, the sizes over the TOAST threshold shaded.
func histogramChart(r *Report) report.Chart {
	c := report.Chart{Title: "Documents by size in the stored format (uncompressed)", XLabel: "bytes (log scale)",
		YLabel: "documents", Kind: "line", XLog: true}
	top := 4096.0
	for _, t := range r.Targets {
		s := report.Series{Name: t.Target + " (" + t.Format + ")"}
		for _, b := range t.Histogram {
			x := math.Sqrt(float64(max(b.From, 1)) * float64(b.To))
			top = max(top, float64(b.To))
			s.Points = append(s.Points, report.ChartPoint{X: x, XLabel: fmt.Sprintf("%d-%d", b.From, b.To),
				Y: float64(b.Count), Min: float64(b.Count), Max: float64(b.Count)})
		}
		c.Series = append(c.Series, s)
	}
	c.Shades = []report.Shade{{Lo: toastThreshold, Hi: top, Label: "over PostgreSQL's TOAST threshold (a row over 2,032 B)"}}
	return c
}

// kindColors colour the byte map's kinds.
var kindColors = map[string]string{
	kindVarlena: "#7f7f7f", kindHeader: "#332288", kindJEntry: "#0072b2", kindKey: "#e69f00",
	kindString: "#009e73", kindNumber: "#cc79a7", kindPadding: "#d55e00", kindNode: "#56b4e9",
	kindLength: "#332288", kindType: "#56b4e9", kindEnd: "#7f7f7f", kindScalar: "#cc79a7",
}

// byteMapSVG draws one format's bytes as a bar, its width to the scale of
// the largest format, a box per segment coloured by kind (its offset,
// size and path on hover), byte offsets below; then a table of the bytes
// by kind, the legend.
func byteMapSVG(m *ByteMap, all []*ByteMap, servers []ServerSize) template.HTML {
	const width, height = 900.0, 28.0
	largest := 1
	for _, o := range all {
		largest = max(largest, o.Total)
	}
	scale := width / float64(largest)
	segs, binned := m.Segments, ""
	if len(segs) > int(width) {
		segs = mergeKinds(binKinds(segs, float64(m.Total)*width/float64(largest)))
		binned = `<p class="note">More segments than pixels: each pixel shows the kind most of its bytes are; the table counts every byte.</p>`
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %.0f %.0f" class="map" role="img"><title>%s: %d bytes</title><g transform="translate(10,0)">`,
		width+20, height+22, template.HTMLEscapeString(m.Format), m.Total)
	for _, s := range segs {
		stroke := "" // a white edge where a box is wide enough to show it
		if w := float64(s.Bytes) * scale; w >= 3 {
			stroke = ` stroke="#fff" stroke-width="0.5"`
		}
		fmt.Fprintf(&b, `<rect x="%.3f" y="0" width="%.3f" height="%.0f" fill="%s"%s><title>%s</title></rect>`,
			float64(s.Offset)*scale, math.Max(float64(s.Bytes)*scale, 0.3), height, kindColors[s.Kind], stroke,
			template.HTMLEscapeString(fmt.Sprintf("offset %d, %d bytes: %s %s %s", s.Offset, s.Bytes, s.Kind, s.Path, s.Note)))
	}
	step := tickStep(largest)
	for x := 0; x <= m.Total; x += step {
		fmt.Fprintf(&b, `<line x1="%.2f" x2="%.2f" y1="%.0f" y2="%.0f" stroke="#57606a"/><text x="%.2f" y="%.0f" font-size="10" text-anchor="middle" fill="#57606a">%s</text>`,
			float64(x)*scale, float64(x)*scale, height, height+4, float64(x)*scale+0.5, height+15, db.Thousands(int64(x)))
	}
	b.WriteString(`</g></svg>`)
	head := fmt.Sprintf("<h3>%s: %s bytes", template.HTMLEscapeString(m.Format), db.Thousands(int64(m.Total)))
	for _, sv := range servers {
		if sv.Format == m.Format {
			verdict := "equal"
			if sv.Bytes != int64(m.Total) {
				verdict = "different"
			}
			head += template.HTMLEscapeString(fmt.Sprintf(" (%s says %s: %s)", sv.Target, db.Thousands(sv.Bytes), verdict))
		}
	}
	return template.HTML(head + "</h3>" + b.String() + binned + kindTable(m))
}

// kindTable is a byte map's legend: per kind its colour, bytes, share of
// the whole and segments.
func kindTable(m *ByteMap) string {
	bytes, count := map[string]int{}, map[string]int{}
	var kinds []string
	for _, s := range m.Segments {
		if count[s.Kind] == 0 {
			kinds = append(kinds, s.Kind)
		}
		bytes[s.Kind] += s.Bytes
		count[s.Kind]++
	}
	var b strings.Builder
	b.WriteString(`<table class="kinds"><thead><tr><th>what</th><th class="num">bytes</th><th class="num">share</th><th class="num">segments</th></tr></thead><tbody>`)
	for _, k := range kinds {
		fmt.Fprintf(&b, `<tr><td><span class="swatch" style="background:%s"></span>%s</td><td class="num">%s</td><td class="num">%.1f%%</td><td class="num">%s</td></tr>`,
			kindColors[k], template.HTMLEscapeString(k), db.Thousands(int64(bytes[k])), 100*float64(bytes[k])/float64(max(m.Total, 1)), db.Thousands(int64(count[k])))
	}
	b.WriteString(`</tbody></table>`)
	return b.String()
}

// tickStep is the distance of the byte offsets marked below a bar: 1, 2
// or 5 times a power of ten, about eight marks across total bytes.
func tickStep(total int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if total/(m*p) <= 8 {
				return m * p
			}
		}
	}
}

// binKinds draws a map of more segments than pixels: the bytes cut into
// cols equal columns, each one segment of the kind most of its bytes are.
func binKinds(segs []Segment, cols float64) []Segment {
	n := int(math.Ceil(cols))
	last := segs[len(segs)-1]
	total := last.Offset + last.Bytes
	per := float64(total) / cols
	out := make([]Segment, 0, n)
	j := 0
	for c := range n {
		lo, hi := int(float64(c)*per), min(int(float64(c+1)*per), total)
		if hi <= lo {
			continue
		}
		bytes := map[string]int{}
		best := ""
		for ; j < len(segs); j++ {
			s := segs[j]
			a, b := max(s.Offset, lo), min(s.Offset+s.Bytes, hi)
			if b > a {
				bytes[s.Kind] += b - a
				if best == "" || bytes[s.Kind] > bytes[best] {
					best = s.Kind
				}
			}
			if s.Offset+s.Bytes > hi {
				break // the segment goes on into the next column
			}
		}
		out = append(out, Segment{Offset: lo, Bytes: hi - lo, Kind: best, Path: "(several)", Note: "mostly " + best})
	}
	return out
}

// mergeKinds joins adjacent segments of one kind.
func mergeKinds(segs []Segment) []Segment {
	var out []Segment
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].Kind == s.Kind && out[n-1].Offset+out[n-1].Bytes == s.Offset {
			out[n-1].Bytes += s.Bytes
			out[n-1].Path, out[n-1].Note = "(several)", ""
			continue
		}
		out = append(out, s)
	}
	return out
}

var pageTemplate = template.Must(template.New("storage").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:Arial,Helvetica,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}svg{width:100%;height:auto}
table{border-collapse:collapse;font-size:13px;margin:6px 0 18px}th,td{border:1px solid #d0d7de;padding:2px 8px;text-align:left}
.num{text-align:right;font-variant-numeric:tabular-nums}.swatch{display:inline-block;width:11px;height:11px;margin-right:6px;vertical-align:-1px}</style></head>
<body><h1>{{.Title}}</h1>
{{with .Histogram}}<figure>{{.}}</figure>{{end}}
{{range .Doc}}{{.}}{{end}}
{{with .DocText}}<pre>{{.}}</pre>{{end}}
<pre>{{.Text}}</pre>
<p>Every figure is the server's own; docbench storage --format json shows the queries behind them.</p>
</body></html>
`))
