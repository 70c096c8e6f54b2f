package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// Executor opens targets and runs phases; the CLI provides it, so that a
// study runs exactly what `docbench load` and `docbench run` run.
type Executor interface {
	// Validate checks a phase's properties (workload, documents, operations)
	// without a database.
	Validate(props *workload.Properties) error
	// Open opens target for the validated properties.
	Open(ctx context.Context, target string, props *workload.Properties) (db.Store, error)
	// Phase runs one phase on an opened store and returns its result (also
	// when it failed after measuring began).
	Phase(ctx context.Context, store db.Store, target string, files []string, props *workload.Properties,
		phase runner.Phase, warmup time.Duration) (*report.Result, error)
}

// Options control a study run.
type Options struct {
	Out          string   // study directory
	Quick        bool     // shrink to a smoke run
	ExtraTargets []string // -t targets added to the study's
	Log          io.Writer
}

// Run is one entry of runs.json: a phase run and where its result is.
type Run struct {
	Target   string `json:"target"`
	Workload string `json:"workload"` // "load" for the load phase
	Point    []KV   `json:"point"`
	Round    int    `json:"round"`
	File     string `json:"file,omitempty"` // relative to the study directory
	Error    string `json:"error,omitempty"`
	// NotApplicable says why a point could not run on a target.
	NotApplicable string `json:"not_applicable,omitempty"`
	// ThresholdsFailed lists the thresholds the run's result missed.
	ThresholdsFailed []string `json:"thresholds_failed,omitempty"`
}

// ThresholdFailures counts the runs that missed a threshold.
func (m *Manifest) ThresholdFailures() int {
	n := 0
	for _, r := range m.Runs {
		if len(r.ThresholdsFailed) > 0 {
			n++
		}
	}
	return n
}

// KV is a swept property and its value.
type KV = report.KV

// Manifest is runs.json: what a study ran, in order.
type Manifest struct {
	Study    string            `json:"study"`
	Source   string            `json:"source"`
	Quick    bool              `json:"quick"`
	Rounds   int               `json:"rounds"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished,omitempty"`
	Targets  map[string]string `json:"targets"` // name → target (redacted)
	// Planned is the number of runs the study was to make.
	Planned int `json:"planned_runs,omitempty"`
	// Incomplete says why the study stopped before its end ("interrupted
	// after 3 of 12 runs", "failed after …: …"); absent when it finished.
	Incomplete string `json:"incomplete,omitempty"`
	Runs       []Run  `json:"runs"`
}

// DefaultTargets are the targets of a study that names none.
func DefaultTargets() []TargetSpec {
	return []TargetSpec{
		{Name: "postgres", Target: "postgres:embedded", Properties: map[string]string{"pg.datadir": "temp"}},
		{Name: "sqlite", Target: "sqlite:study.sqlite"}, // in the study directory
	}
}

// ApplyQuick shrinks the study for a smoke run of about a minute (once:
// settings changed afterwards stay).
func (f *File) ApplyQuick() {
	if f.quickApplied {
		return
	}
	f.quickApplied = true
	q := f.Quick
	f.Rounds = 1
	if q.Rounds > 0 {
		f.Rounds = q.Rounds
	}
	f.Duration = Duration(2 * time.Second)
	if q.Duration > 0 {
		f.Duration = q.Duration
	}
	f.Warmup = q.Warmup
	if f.Properties == nil {
		f.Properties = map[string]string{}
	}
	for k, v := range q.Properties {
		f.Properties[k] = v
	}
	limit := q.Values
	if limit == 0 {
		limit = 2
	}
	for i, s := range f.Sweep {
		if len(s.Values) > limit {
			keep := []string{s.Values[0]}
			for j := 1; j < limit-1; j++ {
				keep = append(keep, s.Values[j*(len(s.Values)-1)/(limit-1)])
			}
			f.Sweep[i].Values = append(keep, s.Values[len(s.Values)-1])
		}
	}
}

// points is the cartesian product of the sweeps.
func (f *File) points() [][]KV {
	out := [][]KV{nil}
	for _, s := range f.Sweep {
		var next [][]KV
		for _, p := range out {
			for _, v := range s.Values {
				q := append(append([]KV(nil), p...), KV{Key: s.Property, Value: v})
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// runOnly are properties that change how a phase runs, not the data loaded:
// points differing only in them share one load.
var runOnly = map[string]bool{
	"threads": true, "threadcount": true, "operationcount": true, "maxexecutiontime": true, "target": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true, "scanproportion": true,
	"readmodifywriteproportion": true, "queryproportion": true, "requestdistribution": true,
	"readallfields": true, "readallfieldsbyname": true, "writeallfields": true, "readfields": true, "readpath": true,
	"updatemode": true, "updatefields": true, "updatepath": true, "querykind": true, "query.path": true,
	"query.limit": true, "query.offset": true, "query.aggpath": true, "query.func": true,
	"minscanlength": true, "maxscanlength": true, "scanlengthdistribution": true, "hotspotdatafraction": true,
	"hotspotopnfraction": true, "exponential.percentile": true, "exponential.frac": true, "dataintegrity": true,
}

// props builds the properties of a phase in precedence order.
func (f *File) props(t TargetSpec, w *WorkloadSpec, point []KV, source string) (*workload.Properties, []string, error) {
	p := workload.NewProperties()
	var files []string
	if w != nil {
		if err := p.LoadFile(w.Workload); err != nil {
			return nil, nil, err
		}
		files = append(files, w.Workload)
	}
	for k, v := range f.Properties {
		p.Set(k, v, source+": properties")
	}
	if w != nil {
		for k, v := range w.Properties {
			p.Set(k, v, source+": workloads."+w.Name)
		}
	}
	for k, v := range t.Properties {
		p.Set(k, v, source+": targets."+t.Name)
	}
	threads := f.Threads
	for _, kv := range point {
		if kv.Key == "threads" {
			n, err := strconv.Atoi(kv.Value)
			if err != nil || n < 1 {
				return nil, nil, fmt.Errorf("%s: sweep threads=%q: want a positive number", source, kv.Value)
			}
			threads = n
			continue
		}
		p.Set(kv.Key, kv.Value, source+": sweep")
	}
	if threads > 0 {
		p.Set("threadcount", strconv.Itoa(threads), source+": threads")
	}
	return p, files, nil
}

// runProps are the properties of a run phase: a study's runs last its
// duration, so the workload file's operationcount applies only when the
// study itself sets one (0 is YCSB's "until maxexecutiontime"; a huge count
// instead would stretch zipfian's key space over inserts that never come).
func (f *File) runProps(t TargetSpec, w *WorkloadSpec, point []KV, source string) (*workload.Properties, []string, error) {
	p, files, err := f.props(t, w, point, source)
	if err != nil {
		return nil, nil, err
	}
	if f.Duration > 0 {
		p.Set("maxexecutiontime", strconv.FormatFloat(f.Duration.D().Seconds(), 'f', -1, 64), source+": duration")
		if !f.setsProperty("operationcount", t, w, point) {
			p.Set("operationcount", "0", source+": (runs last the duration)")
		}
	}
	return p, files, nil
}

// setsProperty reports whether the study (not a workload file) sets key.
func (f *File) setsProperty(key string, t TargetSpec, w *WorkloadSpec, point []KV) bool {
	_, a := f.Properties[key]
	_, b := t.Properties[key]
	c := false
	if w != nil {
		_, c = w.Properties[key]
	}
	for _, kv := range point {
		c = c || kv.Key == key
	}
	return a || b || c
}

// datasetKey identifies the data a point loads: the target and every
// property that is not run-only.
func datasetKey(target string, p *workload.Properties) string {
	var b strings.Builder
	b.WriteString(target)
	for _, k := range p.Keys() {
		if runOnly[k] {
			continue
		}
		v, _ := p.Get(k)
		b.WriteString("\x00" + k + "=" + v)
	}
	return b.String()
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)

func pointID(point []KV) string {
	if len(point) == 0 {
		return "default"
	}
	var parts []string
	for _, kv := range point {
		parts = append(parts, kv.Key+"="+kv.Value)
	}
	return unsafeChars.ReplaceAllString(strings.Join(parts, ","), "_")
}

// Execute runs the study into opts.Out and writes its statistics and
// report. A point a target cannot run is recorded as not applicable and the
// rest goes on; cancellation stops at once with what was measured kept.
func Execute(ctx context.Context, f *File, ex Executor, opts Options) (*Manifest, error) {
	if opts.Quick {
		f.ApplyQuick()
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	if err := os.MkdirAll(filepath.Join(opts.Out, "results"), 0o755); err != nil {
		return nil, err
	}
	if err := report.WriteFileAtomic(filepath.Join(opts.Out, "study.yaml"), f.Raw); err != nil {
		return nil, err
	}
	targets := append([]TargetSpec(nil), f.Targets...)
	if len(targets) == 0 {
		targets = DefaultTargets()
	}
	for i, t := range targets {
		// A relative SQLite file lives in the study directory.
		if p, ok := strings.CutPrefix(t.Target, "sqlite:"); ok && !filepath.IsAbs(p) {
			targets[i].Target = "sqlite:" + filepath.Join(opts.Out, p)
		}
	}
	for _, t := range opts.ExtraTargets {
		name := defaultTargetName(t)
		for i := 2; hasTarget(targets, name); i++ {
			name = fmt.Sprintf("%s-%d", defaultTargetName(t), i)
		}
		targets = append(targets, TargetSpec{Name: name, Target: t})
	}
	m := &Manifest{Study: f.Name, Source: f.Source, Quick: opts.Quick, Rounds: f.Rounds, Started: time.Now().UTC(), Targets: map[string]string{}}
	for _, t := range targets {
		m.Targets[t.Name] = db.Redact(t.Target)
	}
	save := func() error {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		return report.WriteFileAtomic(filepath.Join(opts.Out, "runs.json"), append(b, '\n'))
	}
	points := f.points()
	// Every combination's properties are checked before anything runs, and
	// every problem is reported at once.
	var problems []error
	seenProblem := map[string]bool{}
	for _, t := range targets {
		for _, pt := range points {
			for i := range f.Workloads {
				p, _, err := f.runProps(t, &f.Workloads[i], pt, f.Source)
				if err == nil {
					err = ex.Validate(p)
				}
				if err != nil {
					for _, line := range strings.Split(err.Error(), "\n") {
						if !seenProblem[line] {
							seenProblem[line] = true
							problems = append(problems, fmt.Errorf("target %s, workload %s, %s: %s", t.Name, f.Workloads[i].Name, pointID(pt), line))
						}
					}
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	total := len(targets) * len(points) * f.Rounds * len(f.Workloads)
	m.Planned = total
	done := 0
	started := time.Now()
	var runErr error
	for _, t := range targets {
		// Group the points by the data they load, keeping sweep order.
		type group struct {
			key    string
			points [][]KV
		}
		var groups []*group
		byKey := map[string]*group{}
		for _, pt := range points {
			p, _, err := f.props(t, &f.Workloads[0], pt, f.Source)
			if err != nil {
				return m, err
			}
			k := datasetKey(t.Target, p)
			g := byKey[k]
			if g == nil {
				g = &group{key: k}
				byKey[k] = g
				groups = append(groups, g)
			}
			g.points = append(g.points, pt)
		}
		for _, g := range groups {
			err := f.runGroup(ctx, ex, t, g.points, opts, m, save, logf, &done, total, started)
			if ctx.Err() != nil {
				runErr = runner.ErrInterrupted
				m.Incomplete = fmt.Sprintf("interrupted after %d of %d runs", done, total)
				break
			}
			if err != nil {
				runErr = err
				m.Incomplete = fmt.Sprintf("failed after %d of %d runs: %v", done, total, err)
				break
			}
		}
		if runErr != nil {
			break
		}
	}
	m.Finished = time.Now().UTC()
	if err := save(); err != nil {
		return m, err
	}
	if err := WriteOutputs(opts.Out); err != nil {
		return m, errors.Join(runErr, err)
	}
	logFindings(opts.Log, opts.Out)
	if m.Incomplete != "" {
		logf("INCOMPLETE: %s; every artefact in %s says so", m.Incomplete, opts.Out)
	}
	return m, runErr
}

func hasTarget(ts []TargetSpec, name string) bool {
	for _, t := range ts {
		if t.Name == name {
			return true
		}
	}
	return false
}

// runGroup loads one data set on one target and runs every round of its
// points. Errors a target cannot help (unsupported options, a server that
// will not start) make the points not applicable; only output errors return.
func (f *File) runGroup(ctx context.Context, ex Executor, t TargetSpec, points [][]KV, opts Options, m *Manifest,
	save func() error, logf func(string, ...any), done *int, total int, started time.Time) error {
	notApplicable := func(reason string) error {
		for _, pt := range points {
			m.Runs = append(m.Runs, Run{Target: t.Name, Point: pt, NotApplicable: db.Redact(reason)})
		}
		logf("%s %s: not applicable: %s", t.Name, pointID(points[0]), reason)
		*done += len(points) * f.Rounds * len(f.Workloads)
		return save()
	}
	loadProps, _, err := f.props(t, &f.Workloads[0], points[0], f.Source)
	if err != nil {
		return err
	}
	store, err := ex.Open(ctx, t.Target, loadProps)
	if err != nil {
		return notApplicable(oneLine(err))
	}
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	dir := filepath.Join("results", unsafeChars.ReplaceAllString(t.Name, "_"), pointID(points[0]))
	load := func(round int) error {
		logf("%s %s: loading", t.Name, pointID(points[0]))
		res, err := ex.Phase(ctx, store, t.Target, []string{f.Workloads[0].Workload}, loadProps, runner.Load, 0)
		run := Run{Target: t.Name, Workload: "load", Point: points[0], Round: round}
		if res != nil {
			name := "load.json"
			if round > 1 {
				name = fmt.Sprintf("load-r%d.json", round)
			}
			run.File = filepath.Join(dir, name)
			if werr := writeResult(opts.Out, run.File, res); werr != nil {
				return werr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				m.Runs = append(m.Runs, run)
				return save()
			}
			if err := notApplicable("load: " + oneLine(err)); err != nil {
				return err
			}
			return errSkip
		}
		m.Runs = append(m.Runs, run)
		return save()
	}
	if err := load(1); err != nil || ctx.Err() != nil {
		return skipped(err)
	}
	// Rounds start from the same data: a round after one that inserted
	// (inserts take keys from recordcount on), or on a throwaway server
	// after a cold restart, loads again.
	// Within a round too, a workload that inserts runs on data no earlier
	// run inserted into: the keys it inserts would collide.
	inserts := false
	inserting := make([]bool, len(f.Workloads))
	for i := range f.Workloads {
		p, _, err := f.props(t, &f.Workloads[i], points[0], f.Source)
		if err != nil {
			return err
		}
		v, _ := p.Get("insertproportion")
		if x, _ := strconv.ParseFloat(v, 64); x > 0 {
			inserts, inserting[i] = true, true
		}
	}
	inserted := false // since the last load
	throwaway := db.IsEphemeral(t.Target, loadProps.Map())
	for round := 1; round <= f.Rounds; round++ {
		if f.Protocol == "cold" && round > 1 {
			store.Close()
			store = nil
			if note := dropCaches(); note != "" {
				logf("%s", note)
			}
			if store, err = ex.Open(ctx, t.Target, loadProps); err != nil {
				return notApplicable("reopening for a cold round: " + oneLine(err))
			}
			if throwaway {
				logf("%s: a cold round on a throwaway server loads its data again", t.Name)
				if err := load(round); err != nil || ctx.Err() != nil {
					return skipped(err)
				}
			}
		} else if round > 1 && inserts {
			if err := load(round); err != nil || ctx.Err() != nil {
				return skipped(err)
			}
			inserted = false
		}
		for _, pt := range points {
			for i := range f.Workloads {
				w := &f.Workloads[i]
				if ctx.Err() != nil {
					return nil
				}
				props, files, err := f.runProps(t, w, pt, f.Source)
				if err != nil {
					return err
				}
				if inserting[i] && inserted {
					if err := load(round); err != nil || ctx.Err() != nil {
						return skipped(err)
					}
				}
				inserted = inserted || inserting[i]
				*done++
				logf("[%d/%d %s] %s %s %s round %d", *done, total, eta(started, *done, total), t.Name, w.Name, pointID(pt), round)
				res, err := ex.Phase(ctx, store, t.Target, files, props, runner.Run, f.Warmup.D())
				run := Run{Target: t.Name, Workload: w.Name, Point: pt, Round: round}
				if res != nil {
					report.CheckThresholds(res, f.ThresholdsFor(t, *w))
					for _, tr := range res.Thresholds {
						if !tr.Pass {
							run.ThresholdsFailed = append(run.ThresholdsFailed, fmt.Sprintf("%s (measured %s)", tr.Threshold, tr.Measured()))
						}
					}
					run.File = filepath.Join("results", unsafeChars.ReplaceAllString(t.Name, "_"), pointID(pt), fmt.Sprintf("%s-r%d.json", w.Name, round))
					if werr := writeResult(opts.Out, run.File, res); werr != nil {
						return werr
					}
				}
				if err != nil {
					run.Error = oneLine(err)
					logf("%s %s %s: %s", t.Name, w.Name, pointID(pt), run.Error)
				}
				m.Runs = append(m.Runs, run)
				if err := save(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// errSkip ends a group whose points were recorded as not applicable.
var errSkip = errors.New("not applicable")

func skipped(err error) error {
	if errors.Is(err, errSkip) {
		return nil
	}
	return err
}

func eta(started time.Time, done, total int) string {
	if done <= 1 {
		return "ETA ?"
	}
	per := time.Since(started) / time.Duration(done-1)
	return "ETA " + (per * time.Duration(total-done+1)).Round(time.Second).String()
}

// oneLine flattens an error to one line, passwords redacted.
func oneLine(err error) string {
	return db.Redact(strings.Join(strings.Fields(err.Error()), " "))
}

func writeResult(out, rel string, res *report.Result) error {
	b, err := report.Marshal(res)
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(out, rel), b)
}

// dropCaches asks the kernel to drop the page cache before a cold round, or
// says why it could not.
func dropCaches() string {
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return "cold protocol: OS caches not dropped (" + oneLine(err) + "); managed servers were restarted"
	}
	return ""
}

// ReadManifest reads runs.json of a study directory.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "runs.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: not a study directory (no runs.json)", dir)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "runs.json"), err)
	}
	return &m, nil
}
