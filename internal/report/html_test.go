package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// fixedStudies is the report the golden and browser tests render: a line
// chart of throughput by clients on two targets, and a bar chart of storage
// per target with a second series.
func fixedStudies() []*StudyReport {
	gen := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	env := Environment{OS: "linux", Arch: "amd64", Kernel: "6.1.0-40-amd64", Hostname: "bench-1", CPUs: 16,
		CPUModel: "AMD EPYC 7B13", MemoryB: 64 << 30, GoVersion: "go1.26.8"}
	targets := []TargetInfo{
		{Name: "postgres", Target: "postgres:embedded", Backend: "postgres", Version: "18.1",
			Settings: map[string]string{"shared_buffers": "128MB", "synchronous_commit": "on", "wal_compression": "off"},
			Layout:   map[string]string{"layout": "document", "doctype": "jsonb", "index": "btree"}},
		{Name: "sqlite", Target: "sqlite:/tmp/db/bench.db", Backend: "sqlite", Version: "3.50.4",
			Settings: map[string]string{"synchronous": "FULL", "journal_mode": "wal"},
			Layout:   map[string]string{"layout": "document", "doctype": "jsonb", "index": "btree"}},
	}
	clients := []float64{1, 2, 4, 8, 16, 32}
	pg := []float64{4210, 8030, 15100, 26400, 33900, 35100}
	lite := []float64{9800, 11200, 11900, 12100, 11800, 11500}
	var pgPts, litePts []ChartPoint
	var rows []Row
	for i, c := range clients {
		pgPts = append(pgPts, ChartPoint{X: c, Y: pg[i], Min: pg[i] * 0.96, Max: pg[i] * 1.03, CILo: pg[i] * 0.97, CIHi: pg[i] * 1.02})
		litePts = append(litePts, ChartPoint{X: c, Y: lite[i], Min: lite[i] * 0.9, Max: lite[i] * 1.05, CILo: lite[i] * 0.93, CIHi: lite[i] * 1.04})
		for _, t := range []struct {
			name string
			v    float64
		}{{"postgres", pg[i]}, {"sqlite", lite[i]}} {
			rows = append(rows, Row{Target: t.name, Workload: "workloadc", Point: []KV{{"threads", formatNumber(c)}},
				Op: "READ", Metric: "throughput", Unit: "ops/s", Median: t.v, Min: t.v * 0.95, Max: t.v * 1.04,
				CILo: t.v * 0.97, CIHi: t.v * 1.02, N: 3})
		}
	}
	concurrency := &StudyReport{
		Name: "concurrency", Title: "Throughput and latency as clients are added",
		Cites:     "Seed 1: YCSB workload C (read only) on simple documents, 1 to 32 client threads",
		Reported:  "PostgreSQL jsonb scaled almost linearly to 16 clients and flattened after; MongoDB was ahead at one client only.",
		Generated: gen, Quick: true, Rounds: 3, Environment: env, Targets: targets,
		Audit: []string{
			"durability differs: postgres synchronous_commit=on (fsync per commit), sqlite synchronous=FULL",
			"memory: postgres shared_buffers=128MB; sqlite has no shared cache setting",
		},
		Charts: []Chart{{Title: "Workload C: throughput by clients", XLabel: "clients", YLabel: "throughput (ops/s)",
			Kind: "line", XLog: true,
			Series: []Series{{Name: "postgres", Points: pgPts}, {Name: "sqlite", Points: litePts}}}},
		Rows:      rows,
		Workloads: []KV{{"workloadc", "YCSB C: reads only"}, {"update", "YCSB C: reads only, changed by readproportion=0, updateproportion=1"}},
		Notes:     []string{"sqlite: one writer at a time; readers do not block."},
		Findings: []Finding{{ID: "concurrency#pg-scales-read-only", Says: "read throughput at 16 clients ≥ 1.5× that at 1", Threshold: "16 / 1 ≥ 1.5×", Source: "\"scale well on R/O workloads\"", Chart: "Workload C: throughput by clients",
			Verdict: "inconclusive", Measured: "postgres c threads=16 / postgres c threads=1 = 35,100 / 9,800 = 3.58×", Why: "one round: the medians agree with the claim, but one round is no evidence"}},
		PlanChecks: []string{"PLAN CONTRADICTS TARGET: sqlite c READ is meant to use usertable_pkey; its plan is SCAN usertable"},
		Headlines:  []string{"c at threads=16: postgres 35.1k ops/s, sqlite 21.0k (postgres 1.67× sqlite); highest p99: sqlite's READ 8.6 ms, max 1.3 s"},
		Caveats:    []string{"measured on 2 CPUs shared by docbench's client and postgres, sqlite: each figure is of client and server together, on this machine"},
	}
	storage := &StudyReport{
		Name: "containment", Title: "Key=value search & index sizes <GIN vs path ops>",
		Cites:     "Seed 5: containment @> on reviews",
		Reported:  "jsonb_path_ops indexes were about a third smaller than jsonb_ops.",
		Generated: gen.Add(10 * time.Minute), Rounds: 3, Environment: env, Targets: targets,
		Audit: []string{"durability differs: postgres synchronous_commit=on (fsync per commit), sqlite synchronous=FULL"},
		Charts: []Chart{{Title: "Storage per target", XLabel: "target", YLabel: "size (MiB)", Kind: "bar",
			Series: []Series{
				{Name: "table", Points: []ChartPoint{
					{XLabel: "postgres", Y: 412, Min: 410, Max: 415},
					{XLabel: "sqlite", Y: 530, Min: 530, Max: 531}}},
				{Name: "indexes", Points: []ChartPoint{
					{XLabel: "postgres", Y: 96.5, Min: 96, Max: 97},
					{XLabel: "sqlite", Y: 0}}},
			}}},
		Rows: []Row{
			{Target: "postgres", Workload: "reviews", Point: []KV{{"index", "gin"}}, Op: "-", Metric: "table_size", Unit: "MiB", Median: 412, Min: 410, Max: 415, N: 3},
			{Target: "postgres", Workload: "reviews", Point: []KV{{"index", "gin"}}, Op: "-", Metric: "index_size", Unit: "MiB", Median: 96.5, Min: 96, Max: 97, N: 3},
			{Target: "sqlite", Workload: "reviews", Op: "-", Metric: "table_size", Unit: "MiB", Median: 530, Min: 530, Max: 531, N: 3},
		},
		Notes: []string{"sqlite: GIN indexes are not applicable (no inverted index); the point ran without one."},
	}
	return []*StudyReport{concurrency, storage}
}

func renderFixed(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := RenderHTML(&b, fixedStudies()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fontData matches the embedded chart font, left out of the golden file.
var fontData = regexp.MustCompile(`base64,[A-Za-z0-9+/=]{1000,}`)

func TestGoldenHTML(t *testing.T) {
	page := renderFixed(t)
	if !bytes.Equal(page, renderFixed(t)) {
		t.Fatal("two renderings of the same report differ")
	}
	golden(t, "html/report.golden.html", fontData.ReplaceAll(page, []byte("base64,FONT")))
}

func TestGoldenChartSVG(t *testing.T) {
	for i, r := range fixedStudies() {
		svg, err := RenderChartSVG(r.Charts[0])
		if err != nil {
			t.Fatal(err)
		}
		golden(t, []string{"html/line.golden.svg", "html/bar.golden.svg"}[i], svg)
	}
}

func TestHTMLSelfContained(t *testing.T) {
	page := string(renderFixed(t))
	for _, bad := range []string{"<script", "<link", "http://", "https://", "src=\"", "@import"} {
		s := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
		s = strings.ReplaceAll(s, `xmlns:xlink="http://www.w3.org/1999/xlink"`, "")
		if strings.Contains(s, bad) {
			t.Errorf("report.html contains %q: it must open offline without scripts", bad)
		}
	}
	for _, want := range []string{
		"<h1>docbench report</h1>", "Quick run", "bench-1", "64 GiB", "AMD EPYC 7B13",
		"18.1", "synchronous_commit", `class="differs"`, "durability differs",
		"Key=value search &amp; index sizes &lt;GIN vs path ops&gt;", "Seed 5: containment @&gt; on reviews",
		"35,100", "33,900", "95% CI", "<details>", "All results (12 rows)",
		`role="img"`, "<title id=\"chart-1-title\">Line chart: Workload C",
		"@font-face", "Liberation Sans",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// The chart font is embedded whole, so the page renders offline.
	font := base64.StdEncoding.EncodeToString(liberationsansregular.TTF)
	if !strings.Contains(page, "src:url(data:font/ttf;base64,"+font+")") {
		t.Error("the chart font is not embedded")
	}
	if n := strings.Count(page, "<svg"); n != 2 {
		t.Errorf("%d charts, want 2", n)
	}
	// The sqlite "durability" line is in both studies: once, without names.
	if n := strings.Count(page, "durability differs"); n != 1 {
		t.Errorf("audit line shown %d times", n)
	}
	if !strings.Contains(page, "memory: postgres shared_buffers=128MB; sqlite has no shared cache setting (concurrency)") {
		t.Error("an audit line of one study does not name it")
	}
}

func TestChartSVGWellFormed(t *testing.T) {
	cases := map[string]Chart{
		"empty":        {Title: "empty", Kind: "line"},
		"no points":    {Title: "no points", Kind: "line", Series: []Series{{Name: "a"}}},
		"empty bar":    {Title: "empty bar", Kind: "bar", Series: []Series{{Name: "a"}}},
		"single point": {Title: "one", Kind: "line", XLog: true, YLog: true, Series: []Series{{Name: "a", Points: []ChartPoint{{X: 4, Y: 10, Min: 9, Max: 11}}}}},
		"zeros":        {Title: "zeros", Kind: "line", Series: []Series{{Name: "a", Points: []ChartPoint{{X: 0, Y: 0}, {X: 1, Y: 0}}}}},
		"log with zero": {Title: "log0", Kind: "line", XLog: true, YLog: true, Series: []Series{{Name: "a", Points: []ChartPoint{
			{X: 0, Y: 5}, {X: 1, Y: 0}, {X: 2, Y: 10, Min: 0, Max: 12}, {X: 8, Y: 100, Min: 90, Max: 110}}}}},
		"bars zero":  {Title: "bars", Kind: "bar", Series: []Series{{Name: "a", Points: []ChartPoint{{XLabel: "x", Y: 0}, {XLabel: "y", Y: 0}}}}},
		"bars log":   {Title: "bars log", Kind: "bar", YLog: true, Series: []Series{{Name: "a", Points: []ChartPoint{{XLabel: "x", Y: 0}, {XLabel: "y", Y: 3, Min: 2, Max: 4}}}}},
		"long names": {Title: "long", Kind: "bar", Series: []Series{{Name: "a series with a rather long name", Points: []ChartPoint{{XLabel: "postgres-gin-jsonb_path_ops", Y: 1}, {XLabel: "mariadb-generated-column", Y: 2}, {XLabel: "mongodb-id-index", Y: 3}, {XLabel: "sqlite-expression-index", Y: 4}}}}},
		"nan":        {Title: "nan", Kind: "line", Series: []Series{{Name: "a", Points: []ChartPoint{{X: 1, Y: 2}, {X: 2, Y: nan()}}}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			svg, err := RenderChartSVG(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := wellFormed(svg); err != nil {
				t.Fatalf("SVG not well-formed: %v", err)
			}
			if !bytes.Contains(svg, []byte("<title>")) {
				t.Error("SVG has no <title>")
			}
		})
	}
	svg, _ := RenderChartSVG(cases["log with zero"])
	if !bytes.Contains(svg, []byte("2 points ≤ 0")) {
		t.Error("points left off a log axis are not noted")
	}
	if _, err := RenderChartSVG(Chart{Kind: "pie"}); err == nil {
		t.Error("unknown chart kind accepted")
	}
}

func nan() float64 { var z float64; return z / z }

func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1: "1", 2.5: "2.5", 12.34: "12.3", 123.4: "123", 1234.5: "1,235", 35100: "35,100",
		1234567: "1,234,567", -4321: "-4,321", 0.01234: "0.01234", 0.5: "0.5", 0.0001234: "0.000123",
	} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// chromium finds Debian's Chromium; CI must have it (scripts/install-test-deps.sh).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found: CI must install it (scripts/install-test-deps.sh)")
	}
	t.Skip("chromium not found; install it with scripts/install-test-deps.sh to run the browser test")
	return ""
}

// runChromium runs headless Chromium on page with args and returns stdout.
func runChromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// TestHTMLInBrowser opens the report in headless Chromium: the DOM it
// builds must hold the charts and tables, and the page must paint.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, renderFixed(t), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	// DOCBENCH_KEEP_SCREENSHOT=FILE.png keeps the screenshot and the page
	// (FILE.png.html) to look at.
	if keep := os.Getenv("DOCBENCH_KEEP_SCREENSHOT"); keep != "" {
		shot = keep
		if err := os.WriteFile(keep+".html", renderFixed(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	dom := string(runChromium(t, bin, page, "--dump-dom"))
	for what, want := range map[string]int{"<svg": 2, "<table": 8, "<figure": 2, "<details": 3, "<h2": 4} {
		if n := strings.Count(dom, what); n != want {
			t.Errorf("DOM has %d %s, want %d", n, what, want)
		}
	}
	for _, bad := range []string{"could not be drawn", "error on line", "This page contains the following errors"} {
		if strings.Contains(dom, bad) {
			t.Errorf("DOM shows an error: %q", bad)
		}
	}
	for _, want := range []string{"Workload C: throughput by clients", "Storage per target", "35,100", "All results (12 rows)"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}

	runChromium(t, bin, page, "--screenshot="+shot, "--window-size=1280,2000")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v", b)
	}
	ink, colours := inked(img)
	// Text, tables and two charts cover far more than 2% of the page; the
	// series colours show that the SVG charts painted.
	if total := img.Bounds().Dx() * img.Bounds().Dy(); ink < total/50 {
		t.Errorf("screenshot nearly blank: %d of %d pixels not white", ink, total)
	}
	for i, n := range colours {
		if n < 300 {
			t.Errorf("only %d pixels in the colour of series %d: charts not painted?", n, i)
		}
	}
}

// inked counts the pixels that are not white, and those close to the first
// two series colours.
func inked(img image.Image) (ink int, colours [2]int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 245 || g < 245 || bl < 245 {
				ink++
			}
			for i := range 2 {
				c := seriesColor(i)
				if near(r, c.R) && near(g, c.G) && near(bl, c.B) {
					colours[i]++
				}
			}
		}
	}
	return ink, colours
}

func near(a uint32, b uint8) bool { d := int(a) - int(b); return d > -12 && d < 12 }

// TestPaletteDistinct: twelve series get twelve colours, each far enough
// from every other to tell apart (a distance in RGB of at least 60).
func TestPaletteDistinct(t *testing.T) {
	for i := range 12 {
		for j := range i {
			a, b := seriesColor(i), seriesColor(j)
			dr, dg, db := float64(a.R)-float64(b.R), float64(a.G)-float64(b.G), float64(a.B)-float64(b.B)
			if d := math.Sqrt(dr*dr + dg*dg + db*db); d < 60 {
				t.Errorf("series %d and %d: colours %v and %v only %.0f apart", i, j, a, b, d)
			}
		}
	}
}

// TestOneRoundShowsNoSpread: a study of one round shows its values, not a
// min–max of one value.
func TestOneRoundShowsNoSpread(t *testing.T) {
	studies := fixedStudies()
	for _, r := range studies {
		r.Rounds = 1
	}
	var b bytes.Buffer
	if err := RenderHTML(&b, studies); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, "Min–max") || !strings.Contains(page, ">Value<") || !strings.Contains(page, ", one round</caption>") {
		t.Error("a one-round report shows a min–max column, or no values")
	}
}
