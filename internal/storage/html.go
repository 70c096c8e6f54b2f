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
			page.Doc = append(page.Doc, byteMapSVG(m, d.Formats))
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

// maxRects bounds a drawing: adjacent segments of one kind merge first.
const maxRects = 3000

// byteMapSVG draws one format's bytes as a bar, its width to the scale of
// the largest format, a box per segment coloured by kind.
func byteMapSVG(m *ByteMap, all []*ByteMap) template.HTML {
	const width, height = 900.0, 28.0
	largest := 1
	for _, o := range all {
		largest = max(largest, o.Total)
	}
	scale := width / float64(largest)
	segs := m.Segments
	if len(segs) > maxRects {
		segs = mergeKinds(segs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %.0f %.0f" class="map" role="img"><title>%s: %d bytes</title>`,
		width, height+40, template.HTMLEscapeString(m.Format), m.Total)
	seen := map[string]bool{}
	var legend []string
	for _, s := range segs {
		fmt.Fprintf(&b, `<rect x="%.3f" y="0" width="%.3f" height="%.0f" fill="%s"><title>%s</title></rect>`,
			float64(s.Offset)*scale, math.Max(float64(s.Bytes)*scale, 0.3), height, kindColors[s.Kind],
			template.HTMLEscapeString(fmt.Sprintf("offset %d, %d bytes: %s %s %s", s.Offset, s.Bytes, s.Kind, s.Path, s.Note)))
		if !seen[s.Kind] {
			seen[s.Kind] = true
			legend = append(legend, s.Kind)
		}
	}
	for i, k := range legend {
		x := float64(i) * 150
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f" font-size="12">%s</text>`,
			x, height+10, kindColors[k], x+16, height+21, template.HTMLEscapeString(k))
	}
	b.WriteString(`</svg>`)
	return template.HTML(fmt.Sprintf("<h3>%s: %s bytes</h3>", template.HTMLEscapeString(m.Format), db.Thousands(int64(m.Total))) + b.String())
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
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}svg{width:100%;height:auto}</style></head>
<body><h1>{{.Title}}</h1>
{{with .Histogram}}<figure>{{.}}</figure>{{end}}
{{range .Doc}}{{.}}{{end}}
{{with .DocText}}<pre>{{.}}</pre>{{end}}
<pre>{{.Text}}</pre>
<p>Every figure is the server's own; docbench storage --format json shows the queries behind them.</p>
</body></html>
`))
