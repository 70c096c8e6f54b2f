// Package study runs declarative studies: a matrix of targets, workloads and
// swept properties, several rounds each, written to a study directory with
// statistics (medians, spread, confidence intervals) and a report.
//
// A study file is YAML:
//
//	name: concurrency
//	title: Workloads A and C over 1…N clients
//	cites: author, title, venue, year, link — what it reproduces
//	reported: what that source reported
//	targets:                      # default: postgres:embedded and SQLite
//	  - {name: postgres, target: postgres:embedded, properties: {layout: column}}
//	  - {name: sqlite, target: "sqlite:study.sqlite"}   # relative: in the study directory
//	workloads:
//	  - {name: a, workload: workloada, properties: {recordcount: 10000}}
//	properties: {recordcount: 10000}   # for every workload and target
//	sweep:
//	  - {property: threads, values: [1, 2, 4, 8]}
//	rounds: 3
//	warmup: 2s
//	duration: 10s
//	protocol: warm                # or cold: restart managed servers, drop OS caches
//	charts:
//	  - {title: Throughput vs clients, x: threads, y: throughput, workload: a}
//	quick: {duration: 2s, rounds: 1, properties: {recordcount: 1000}}
//	scale:                        # --scale NAME: the source's own sizes
//	  source: {says: "1.2 million documents, as the source", properties: {recordcount: 1200000}}
//	with:                         # opt-in targets: --with mariadb, --with mongodb=URL
//	  mariadb: {target: "mariadb:local", properties: {secondaryindex: author}}
//	  mongodb: {properties: {secondaryindex: author}}   # no default: the URL is required
//	pg_versions: [13, 18]         # --pg-versions: postgres:embedded targets once per version (versions.go)
//
// Precedence of properties: workload file < study properties < workload
// properties < target properties < the point's swept values.
package study

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/workload"
	"github.com/docbench/docbench/studies"
)

// File is a parsed, validated study file.
type File struct {
	Name       string            `yaml:"name"`
	Title      string            `yaml:"title"`
	Cites      string            `yaml:"cites"`
	Reported   string            `yaml:"reported"`
	Targets    []TargetSpec      `yaml:"targets"`
	Workloads  []WorkloadSpec    `yaml:"workloads"`
	Properties map[string]string `yaml:"properties"`
	Sweep      []SweepSpec       `yaml:"sweep"`
	Rounds     int               `yaml:"rounds"`
	Warmup     Duration          `yaml:"warmup"`
	Duration   Duration          `yaml:"duration"`
	Threads    int               `yaml:"threads"`
	Protocol   string            `yaml:"protocol"`
	Charts     []ChartSpec       `yaml:"charts"`
	Quick      QuickSpec         `yaml:"quick"`
	// Scale holds named profiles (--scale NAME), such as "source": the
	// sizes the source measured at.
	Scale map[string]ScaleSpec `yaml:"scale"`
	// With holds the opt-in targets the study accepts (--with NAME[=URL]):
	// databases its sources compared that may not be at hand. A claim on
	// one that did not run is not measurable here, with the reason.
	With   map[string]TargetSpec `yaml:"with"`
	Claims []Claim               `yaml:"claims"` // the seed's claims, checked by the results (claims.go)
	Plans  []PlanCheck           `yaml:"plans"`  // the index each target's plan must use
	// Floor is the client's own floor under the study's latencies: the
	// round trip of its cheapest read, or a control run (claims.go).
	Floor *Floor `yaml:"floor"`
	// MaxRounds bounds the rounds a claim whose spread is comparable to
	// its effect may ask for (default defaultMaxRounds).
	MaxRounds int `yaml:"max_rounds"`
	// Thresholds are checked on every run's result (k6-style, see
	// report.ParseThreshold); targets and workloads may add their own.
	Thresholds []string `yaml:"thresholds"`
	// Capacity asks for each target's sustainable rate at an SLO
	// (capacity.go).
	Capacity *CapacitySpec `yaml:"capacity"`
	// PGVersions reruns the study on these PostgreSQL versions
	// (--pg-versions): each target whose server pg.version chooses
	// becomes one target per version (versions.go).
	PGVersions []string `yaml:"pg_versions"`
	// Storage has each load measured as `docbench storage` measures
	// documents; the summaries cite the figures (storagefigs.go).
	Storage bool `yaml:"storage"`
	// versions is what PGVersions made of the study (nil without it).
	versions *versionPlan

	// Source is the file name or built-in name it was read from.
	Source string `yaml:"-"`
	// Raw is the text as read, written into the study directory.
	Raw []byte `yaml:"-"`

	quickApplied bool
	// ScaleName is the --scale profile applied ("" for none).
	ScaleName string `yaml:"-"`
}

// ScaleSpec is a named size of a study (--scale NAME): its properties
// (recordcount, document sizes…) and, optionally, rounds and durations.
type ScaleSpec struct {
	Says       string            `yaml:"says"` // what the profile is, e.g. the source's data set and size
	Rounds     int               `yaml:"rounds"`
	Warmup     Duration          `yaml:"warmup"`
	Duration   Duration          `yaml:"duration"`
	Properties map[string]string `yaml:"properties"`
	// Sweep replaces the values of swept properties (a property the
	// study sweeps cannot be set by Properties).
	Sweep []SweepSpec `yaml:"sweep"`
}

// TargetSpec is one target: a backend URL and the properties choosing its
// layout, indexes and settings.
type TargetSpec struct {
	Name       string            `yaml:"name"`
	Target     string            `yaml:"target"`
	Properties map[string]string `yaml:"properties"`
	Thresholds []string          `yaml:"thresholds"`
}

// WorkloadSpec is one workload run at every point: a YCSB workload (file or
// built-in name) and properties.
type WorkloadSpec struct {
	Name       string            `yaml:"name"`
	Workload   string            `yaml:"workload"`
	Properties map[string]string `yaml:"properties"`
	Thresholds []string          `yaml:"thresholds"`
	// Targets, when given, are the only targets that run it (a statement
	// in one dialect); the others record it as not applicable.
	Targets []string `yaml:"targets"`
}

// SweepSpec is one swept property (or "threads") and its values; several
// sweeps form their cartesian product.
type SweepSpec struct {
	Property string   `yaml:"property"`
	Values   []string `yaml:"values"`
}

// ChartSpec is a chart of the report: Y against the swept X, one series per
// target. Y is "throughput" (all operations), METRIC:OP with METRIC one of
// throughput, p50, p95, p99, p999, mean, max (OP a report name such as READ),
// or a server-side figure by name (wal_bytes_per_update, bytes_per_document,
// table_bytes, server_us_per_op, … as in the result's "server" section).
type ChartSpec struct {
	Title    string `yaml:"title"`
	X        string `yaml:"x"`
	Y        string `yaml:"y"`
	Workload string `yaml:"workload"`
	Kind     string `yaml:"kind"` // line (default) or bar
	XLog     bool   `yaml:"xlog"`
	YLog     bool   `yaml:"ylog"`
}

// QuickSpec shrinks a study for --quick.
type QuickSpec struct {
	Duration   Duration          `yaml:"duration"`
	Warmup     Duration          `yaml:"warmup"`
	Rounds     int               `yaml:"rounds"`
	Properties map[string]string `yaml:"properties"`
	// Values caps every sweep to at most this many values (first, …, last).
	Values int `yaml:"values"`
	// Sweep replaces the values of swept properties, as a scale profile's
	// does: the few a smoke run affords (two PostgreSQL versions).
	Sweep []SweepSpec `yaml:"sweep"`
}

// Duration is a time.Duration written as "10s" in YAML.
type Duration time.Duration

// UnmarshalYAML reads "10s", "1m30s" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if v, err := time.ParseDuration(n.Value); err == nil {
		*d = Duration(v)
		return nil
	}
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 {
		*d = Duration(time.Duration(f * float64(time.Second)))
		return nil
	}
	// A type error: the decoder goes on, and every problem is said at once.
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal !!%s `%s` into duration", n.Line, strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)}}
}

// D returns the duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Load reads a study from a file or a built-in name and validates it.
func Load(nameOrPath string) (*File, error) {
	data, err := os.ReadFile(nameOrPath)
	source := nameOrPath
	if err != nil {
		b, ok := studies.Lookup(nameOrPath)
		if !ok {
			if errors.Is(err, os.ErrNotExist) {
				if near := workload.Nearest(nameOrPath, studies.Names()); near != "" {
					return nil, fmt.Errorf("study %q: no such file, and not a built-in study (did you mean %q?)", nameOrPath, near)
				}
				return nil, fmt.Errorf("study %q: no such file, and not a built-in study (%s)", nameOrPath, strings.Join(studies.Names(), ", "))
			}
			return nil, fmt.Errorf("study %s: %w", nameOrPath, err)
		}
		data, source = b, "studies/"+nameOrPath+".yaml"
	}
	return Parse(source, data)
}

// known lists the keys each mapping of a study file may have.
var known = map[string][]string{
	"":          {"name", "title", "cites", "reported", "targets", "workloads", "properties", "sweep", "rounds", "warmup", "duration", "threads", "protocol", "charts", "quick", "scale", "with", "claims", "plans", "thresholds", "capacity", "floor", "max_rounds", "pg_versions", "storage"},
	"capacity":  capacityKeys,
	"claims":    {"id", "says", "source", "seed", "chart", "y", "workload", "target", "a", "b", "ratio", "order", "effect", "control"},
	"floor":     {"says", "y", "target", "workload", "point"},
	"plans":     {"target", "workload", "op", "index"},
	"targets":   {"name", "target", "properties", "thresholds"},
	"workloads": {"name", "workload", "properties", "thresholds", "targets"},
	"sweep":     {"property", "values"},
	"charts":    {"title", "x", "y", "workload", "kind", "xlog", "ylog"},
	"quick":     {"duration", "warmup", "rounds", "properties", "values", "sweep"},
	"scale":     {"says", "rounds", "warmup", "duration", "properties", "sweep"},
	"with":      {"name", "target", "properties", "thresholds"},
}

// Parse reads and validates a study; every problem is reported at once,
// each with its file and line.
func Parse(source string, data []byte) (*File, error) {
	pos := newPositions(source, data)
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, pos.syntax(err)
	}
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", pos.at(line, 0), fmt.Sprintf(format, args...)))
	}
	failAt := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", pos.at(n.Line, n.Column), fmt.Sprintf(format, args...)))
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a study is a YAML mapping (name:, workloads:, …)", pos.at(1, 0))
	}
	checkKeys(root.Content[0], "", failAt)
	f := &File{Source: source, Raw: data}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, e := range te.Errors {
				msg := pos.typeError(&root, e)
				at, _, _ := strings.Cut(msg, ": ")
				if !slices.ContainsFunc(errs, func(e error) bool { return strings.HasPrefix(e.Error(), at+": ") }) {
					errs = append(errs, errors.New(msg)) // once per place: checkKeys may have said it
				}
			}
		} else {
			errs = append(errs, fmt.Errorf("%s: %v", source, err))
		}
		return nil, errors.Join(errs...)
	}
	f.validate(root.Content[0], fail)
	f.validateCapacity(root.Content[0], fail)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := f.multiplyVersions(); err != nil {
		return nil, fmt.Errorf("%s: pg_versions: %v", pos.at(lineOf(root.Content[0], "pg_versions", -1), 0), err)
	}
	return f, nil
}

// checkKeys rejects unknown keys in the study's mappings, recursively.
func checkKeys(n *yaml.Node, section string, fail func(*yaml.Node, string, ...any)) {
	allowed := known[section]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			if s := workload.Nearest(k.Value, allowed); s != "" {
				fail(k, "unknown key %q in %s (did you mean %q?)", k.Value, sectionName(section), s)
			} else {
				fail(k, "unknown key %q in %s (known: %s)", k.Value, sectionName(section), strings.Join(allowed, ", "))
			}
			continue
		}
		if section != "" {
			continue // properties maps are free-form; deeper levels are values
		}
		switch k.Value {
		case "targets", "workloads", "sweep", "charts", "claims", "plans":
			if v.Kind != yaml.SequenceNode {
				fail(v, "%s: want a list", k.Value)
				continue
			}
			for _, item := range v.Content {
				if item.Kind != yaml.MappingNode {
					fail(item, "%s: each entry is a mapping", k.Value)
					continue
				}
				checkKeys(item, k.Value, fail)
			}
		case "quick", "capacity", "floor":
			if v.Kind == yaml.MappingNode {
				checkKeys(v, k.Value, fail)
			}
		case "scale", "with":
			if v.Kind != yaml.MappingNode {
				fail(v, "%s: want a mapping of names to profiles", k.Value)
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if item := v.Content[j+1]; item.Kind == yaml.MappingNode {
					checkKeys(item, k.Value, fail)
				} else {
					fail(item, "%s.%s: want a mapping", k.Value, v.Content[j].Value)
				}
			}
		}
	}
}

func sectionName(s string) string {
	if s == "" {
		return "the study"
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// lineOf finds the line of the i-th entry of a top-level list (for messages).
func lineOf(root *yaml.Node, key string, i int) int {
	for j := 0; j+1 < len(root.Content); j += 2 {
		if root.Content[j].Value == key {
			v := root.Content[j+1]
			if i < 0 {
				return root.Content[j].Line
			}
			if i < len(v.Content) {
				return v.Content[i].Line
			}
			return v.Line
		}
	}
	return root.Line
}

// lineIn returns the line of key inside the mapping section (or of the
// section when key is absent).
func lineIn(root *yaml.Node, section, key string) int {
	for j := 0; j+1 < len(root.Content); j += 2 {
		if root.Content[j].Value != section {
			continue
		}
		v := root.Content[j+1]
		for k := 0; k+1 < len(v.Content); k += 2 {
			if v.Content[k].Value == key {
				return v.Content[k].Line
			}
		}
		return root.Content[j].Line
	}
	return root.Line
}

// ThresholdsFor returns the thresholds of a run of workload w on target t:
// the study's, the target's and the workload's.
func (f *File) ThresholdsFor(t TargetSpec, w WorkloadSpec) []report.Threshold {
	var ts []report.Threshold
	for _, list := range [][]string{f.Thresholds, t.Thresholds, w.Thresholds} {
		for _, text := range list {
			if th, err := report.ParseThreshold(text); err == nil { // validated on parsing
				ts = append(ts, th)
			}
		}
	}
	return ts
}

// serverFigure matches the names of server-side figures.
var serverFigure = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// metrics a chart may draw.
var chartMetrics = []string{"throughput", "p50", "p95", "p99", "p999", "mean", "max", CapacityMetric}

func (f *File) validate(root *yaml.Node, fail func(int, string, ...any)) {
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(f.Source), filepath.Ext(f.Source))
	}
	if len(f.Workloads) == 0 {
		fail(lineOf(root, "workloads", -1), "workloads: at least one workload is needed")
	}
	names := map[string]bool{}
	for i, w := range f.Workloads {
		if w.Workload == "" {
			fail(lineOf(root, "workloads", i), "workloads[%d]: workload: is required (a file or workloada…workloadf)", i)
		}
		if w.Name == "" {
			f.Workloads[i].Name = strings.TrimSuffix(filepath.Base(w.Workload), filepath.Ext(w.Workload))
		}
		if f.Workloads[i].Name == loadWorkload {
			fail(lineOf(root, "workloads", i), "workloads[%d]: name %q names the load phase; choose another", i, loadWorkload)
		}
		if names[f.Workloads[i].Name] {
			fail(lineOf(root, "workloads", i), "workloads[%d]: name %q used twice", i, f.Workloads[i].Name)
		}
		names[f.Workloads[i].Name] = true
	}
	tnames := map[string]bool{}
	for i, t := range f.Targets {
		if t.Target == "" {
			fail(lineOf(root, "targets", i), "targets[%d]: target: is required (e.g. postgres:embedded)", i)
		}
		if t.Name == "" {
			f.Targets[i].Name = defaultTargetName(t.Target)
		}
		if tnames[f.Targets[i].Name] {
			fail(lineOf(root, "targets", i), "targets[%d]: name %q used twice; give each target a name", i, f.Targets[i].Name)
		}
		tnames[f.Targets[i].Name] = true
	}
	runs := map[string]bool{} // the targets a workload may name: the study's (or the default ones) and its opt-in ones
	for n := range tnames {
		runs[n] = true
	}
	if len(f.Targets) == 0 {
		for _, t := range DefaultTargets() {
			runs[t.Name] = true
		}
	}
	for key, w := range f.With {
		runs[key] = true
		if w.Name != "" {
			runs[w.Name] = true
		}
	}
	for i, w := range f.Workloads {
		for _, t := range w.Targets {
			if !runs[t] {
				fail(lineOf(root, "workloads", i), "workloads[%d]: targets: %q is not one of the study's targets", i, t)
			}
		}
	}
	swept := map[string]bool{}
	for i, s := range f.Sweep {
		if s.Property == "" || len(s.Values) == 0 {
			fail(lineOf(root, "sweep", i), "sweep[%d]: needs property: and values:", i)
		}
		if swept[s.Property] {
			fail(lineOf(root, "sweep", i), "sweep[%d]: %s swept twice", i, s.Property)
		}
		swept[s.Property] = true
	}
	checkThresholds := func(line int, where string, ts []string) {
		for _, text := range ts {
			if _, err := report.ParseThreshold(text); err != nil {
				fail(line, "%sthresholds: %v", where, err)
			}
		}
	}
	checkThresholds(lineOf(root, "thresholds", -1), "", f.Thresholds)
	for i, t := range f.Targets {
		checkThresholds(lineOf(root, "targets", i), fmt.Sprintf("targets[%d]: ", i), t.Thresholds)
	}
	for i, w := range f.Workloads {
		checkThresholds(lineOf(root, "workloads", i), fmt.Sprintf("workloads[%d]: ", i), w.Thresholds)
	}
	// Durations and counts are never negative (nor is a quick cap).
	negative := func(line int, key string, bad bool, v any) {
		if bad {
			fail(line, "%s: %v: must not be negative", key, v)
		}
	}
	negative(lineOf(root, "warmup", -1), "warmup", f.Warmup < 0, f.Warmup.D())
	negative(lineOf(root, "duration", -1), "duration", f.Duration < 0, f.Duration.D())
	negative(lineOf(root, "threads", -1), "threads", f.Threads < 0, f.Threads)
	negative(lineIn(root, "quick", "duration"), "quick.duration", f.Quick.Duration < 0, f.Quick.Duration.D())
	negative(lineIn(root, "quick", "warmup"), "quick.warmup", f.Quick.Warmup < 0, f.Quick.Warmup.D())
	negative(lineIn(root, "quick", "rounds"), "quick.rounds", f.Quick.Rounds < 0, f.Quick.Rounds)
	negative(lineIn(root, "quick", "values"), "quick.values", f.Quick.Values < 0, f.Quick.Values)
	for _, sw := range f.Quick.Sweep {
		if !swept[sw.Property] || len(sw.Values) == 0 {
			fail(lineIn(root, "quick", "sweep"), "quick.sweep: %q: give values of a property the study sweeps", sw.Property)
		}
	}
	for _, name := range sortedNames(f.Scale) {
		sc := f.Scale[name]
		line := lineIn(root, "scale", name)
		negative(line, "scale."+name+".rounds", sc.Rounds < 0, sc.Rounds)
		negative(line, "scale."+name+".duration", sc.Duration < 0, sc.Duration.D())
		negative(line, "scale."+name+".warmup", sc.Warmup < 0, sc.Warmup.D())
		for _, sw := range sc.Sweep {
			if !swept[sw.Property] || len(sw.Values) == 0 {
				fail(line, "scale.%s.sweep: %q: give values of a property the study sweeps", name, sw.Property)
			}
		}
		for k := range sc.Properties {
			if swept[k] {
				fail(line, "scale.%s.properties: %s is swept: give its values in scale.%s.sweep", name, k, name)
			}
		}
	}
	for _, name := range sortedNames(f.With) {
		w := f.With[name]
		if w.Name == "" {
			w.Name = name
		}
		if tnames[w.Name] {
			fail(lineIn(root, "with", name), "with.%s: name %q is also one of the study's targets", name, w.Name)
		}
		checkThresholds(lineIn(root, "with", name), "with."+name+": ", w.Thresholds)
		f.With[name] = w
	}
	if f.Quick.Values == 1 {
		fail(lineIn(root, "quick", "values"), "quick.values: 1: a sweep needs at least 2 values (first and last), or 0 to keep all")
	}
	if f.Rounds == 0 {
		f.Rounds = 3
	}
	if f.Rounds < 0 {
		fail(lineOf(root, "rounds", -1), "rounds: %d: must be at least 1", f.Rounds)
	}
	if f.Duration == 0 {
		f.Duration = Duration(10 * time.Second)
	}
	switch f.Protocol {
	case "":
		f.Protocol = "warm"
	case "warm", "cold":
	default:
		fail(lineOf(root, "protocol", -1), "protocol: %q: want warm or cold", f.Protocol)
	}
	for i, c := range f.Charts {
		line := lineOf(root, "charts", i)
		if c.X != "target" && c.X != "workload" && !swept[c.X] {
			fail(line, "charts[%d]: x: %q is not a swept property (nor target or workload)", i, c.X)
		}
		metric, op, _ := strings.Cut(c.Y, ":")
		if !contains(chartMetrics, metric) && (op != "" || !serverFigure.MatchString(metric)) {
			fail(line, "charts[%d]: y: %q: want METRIC or METRIC:OP with METRIC one of %s, or a server figure (wal_bytes_per_update, bytes_per_document, …)", i, c.Y, strings.Join(chartMetrics, ", "))
		}
		if c.Workload != "" && c.Workload != loadWorkload && !names[c.Workload] {
			fail(line, "charts[%d]: workload: %q is not one of the study's workloads (nor load, the load phase)", i, c.Workload)
		}
		switch c.Kind {
		case "":
			f.Charts[i].Kind = "line"
			if c.X == "target" || c.X == "workload" {
				f.Charts[i].Kind = "bar"
			}
		case "line", "bar":
		default:
			fail(line, "charts[%d]: kind: %q: want line or bar", i, c.Kind)
		}
	}
	f.validateClaims(root, fail)
}

// defaultTargetName names a target after its scheme ("postgres" for
// postgres:embedded, "sqlite" for sqlite:PATH).
func defaultTargetName(target string) string {
	scheme, _, _ := strings.Cut(target, ":")
	return scheme
}

// ExtraTarget splits a -t argument of a study: "NAME=TARGET" names the
// target; a bare target is named as the user wrote it (its password
// hidden, its query parameters dropped), so that the report shows their
// own server under the name they know it by.
func ExtraTarget(arg string) (name, target string) {
	if n, t, ok := strings.Cut(arg, "="); ok && targetNameRE.MatchString(n) && strings.Contains(t, ":") {
		return n, t
	}
	name, _, _ = strings.Cut(db.Redact(arg), "?")
	return name, arg
}

var targetNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

func sortedNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Names lists the built-in studies.
func Names() []string {
	n := studies.Names()
	sort.Strings(n)
	return n
}
