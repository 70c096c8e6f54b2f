package report

import "time"

// StudyReport is everything report.html shows of one study directory. The
// study package builds it from the result files; the renderer only draws.
type StudyReport struct {
	Name      string // built-in or file name of the study ("document-size")
	Title     string // one line saying what the study measures
	Cites     string // the seed experiment it reproduces
	Reported  string // what the seed reported, for comparison
	Generated time.Time
	Quick     bool // run with --quick: a smoke run, not numbers to quote
	Rounds    int
	// Incomplete says why the study did not run to its end ("interrupted
	// after 3 of 12 runs"); "" for a finished study.
	Incomplete string

	Environment Environment
	Targets     []TargetInfo
	Audit       []string // the fairness audit, one finding per line
	Charts      []Chart
	// Workloads say what each workload runs (name → "YCSB A: 50% reads,
	// 50% updates"), shown in one line.
	Workloads  []KV
	Rows       []Row     // the table of results.csv
	Notes      []string  // points not applicable, warnings, …
	Findings   []Finding // the seed's claims and their verdicts
	PlanChecks []string  // targets whose plans contradict what they are named for
	// Headlines are what the study found, shown first with the findings:
	// a line per comparison of the targets on a workload (and point).
	Headlines []string
	// Caveats are what a reader must know before quoting the figures (one
	// round, CPUs shared by client and servers, targets without figures).
	Caveats []string
	// Void are the runs left out because their machine-speed control
	// moved beyond its bound, each with why.
	Void []string
}

// TargetInfo describes one target of a study.
type TargetInfo struct {
	Name     string // the study's name for it ("postgres-gin")
	Target   string // redacted target string
	Backend  string
	Version  string
	Settings map[string]string
	Layout   map[string]string
}

// Chart is one chart with its numbers; Kind is "line" (X numeric, one line
// per series) or "bar" (X categorical, grouped bars per series).
type Chart struct {
	Title  string
	XLabel string
	YLabel string
	Kind   string
	XLog   bool
	YLog   bool
	Series []Series
	// Missing says, per target absent from the chart, why (SQLite has no
	// WAL counter); shown beside the chart.
	Missing []string
	// Shades are ranges of x shaded behind a line chart's data (a
	// capacity band).
	Shades []Shade
}

// Shade is a range of x shaded on a line chart, named in its legend.
type Shade struct {
	Lo, Hi float64
	Label  string
}

// Series is one target (or variant) of a chart.
type Series struct {
	Name   string
	Points []ChartPoint
}

// ChartPoint is a median with its spread across rounds.
type ChartPoint struct {
	X      float64 // numeric x (line charts)
	XLabel string  // categorical x (bar charts) or the printed x value
	Y      float64 // median
	Min    float64
	Max    float64
	CILo   float64 // confidence interval of the median (0 when too few rounds)
	CIHi   float64
}

// Row is one line of results.csv: one metric of one operation at one point.
type Row struct {
	Target   string
	Workload string
	Point    []KV // the swept properties at this point, in sweep order
	Op       string
	Metric   string // throughput, p50, p99, wal_per_op, …
	Unit     string
	Median   float64
	Min      float64
	Max      float64
	CILo     float64
	CIHi     float64
	N        int // rounds
	// Caveat says in words what the figure rests on when a number alone
	// would mislead: a sustainable rate's band, confidence and
	// confirmation, round by round.
	Caveat string
}

// KV is one swept property and its value.
type KV struct{ Key, Value string }

// Finding is one of a study's claims with its verdict: reproduced, not
// reproduced, inconclusive or not measurable here, and why.
type Finding struct {
	// ID is the claim's stable id, STUDY#ID, and @VERSION for a claim on
	// one PostgreSQL version of a --pg-versions run.
	ID        string `json:"id,omitempty"`
	Says      string `json:"says"`                // the claim
	Threshold string `json:"threshold,omitempty"` // the comparison checked: "a / b ≥ 10×", "a < b < c by p50:READ"
	Source    string `json:"source,omitempty"`    // the source's own figure
	Chart     string `json:"chart,omitempty"`     // the chart that shows it
	Verdict   string `json:"verdict"`             // reproduced, not reproduced, inconclusive, not measurable here
	Measured  string `json:"measured,omitempty"`  // the figures measured here
	// Figures are the numbers the verdict rests on, as Measured prints
	// them: each side's median, then a ratio claim's ratio.
	Figures []string `json:"figures,omitempty"`
	Why     string   `json:"why,omitempty"` // the reason of an inconclusive or unmeasurable verdict
}
