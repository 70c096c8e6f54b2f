package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// RunOptions control a study run.
type RunOptions struct {
	Out          string   // study directory
	Quick        bool     // shrink to a smoke run
	ExtraTargets []string // -t targets added to the study's
	// With names the study's opt-in targets to add (with:), each with its
	// URL, or "" for the study's default target.
	With map[string]string
	Log  io.Writer
	// Keep keeps the study's tables on its targets; by default each is
	// dropped when the study is done with it.
	Keep bool
	// Engine runs the phases and searches (nil: a silent one): its Stderr
	// takes a search's trial lines.
	Engine *engine.Engine
	// dropCaches replaces dropCaches in tests (which must not drop the
	// page cache of a shared machine); opened is told of each target
	// about to be opened; docBytes replaces engine.DocBytes (a size fixed for the
	// estimate's arithmetic).
	dropCaches func() string
	opened     func(target string)
	control    func(ctx context.Context, store db.Store) *report.Control // replaces takeControl
	docBytes   func(props map[string]string) (float64, error)
}

// Run is one entry of runs.json: a phase run and where its result is.
type Run struct {
	Target   string `json:"target"`
	Workload string `json:"workload"` // loadWorkload for the load phase
	Point    []KV   `json:"point"`
	Round    int    `json:"round"`
	File     string `json:"file,omitempty"` // relative to the study directory
	Error    string `json:"error,omitempty"`
	// NotApplicable says why a point could not run on a target.
	NotApplicable string `json:"not_applicable,omitempty"`
	// ThresholdsFailed lists the thresholds the run's result missed.
	ThresholdsFailed []string `json:"thresholds_failed,omitempty"`
	// Capacity marks a capacity search (the study's capacity:).
	Capacity bool `json:"capacity,omitempty"`
	// AddedFor names the claims a run beyond the study's rounds was added
	// for: their rounds' spread was comparable to their effect (more.go).
	AddedFor []string `json:"added_for,omitempty"`
	// Void says how the run's machine-speed control moved from the
	// study's controls before it: the run was void and ran again.
	Void string `json:"void,omitempty"`
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
	Scale    string            `json:"scale,omitempty"` // the --scale profile
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
	f.quickCapacity()
	for _, sw := range q.Sweep {
		for i := range f.Sweep {
			if f.Sweep[i].Property == sw.Property {
				f.Sweep[i].Values = sw.Values
			}
		}
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

// ApplyScale applies the scale profile name (--scale), or says in one line
// which profiles the study has.
func (f *File) ApplyScale(name string) error {
	sc, ok := f.Scale[name]
	if !ok {
		if len(f.Scale) == 0 {
			return fmt.Errorf("%s: --scale %s: the study has no scale profiles", f.Source, name)
		}
		return fmt.Errorf("%s: --scale %s: no such profile (the study has: %s)", f.Source, name, strings.Join(sortedNames(f.Scale), ", "))
	}
	f.ScaleName = name
	if sc.Rounds > 0 {
		f.Rounds = sc.Rounds
	}
	if sc.Duration > 0 {
		f.Duration = sc.Duration
	}
	if sc.Warmup > 0 {
		f.Warmup = sc.Warmup
	}
	if f.Properties == nil {
		f.Properties = map[string]string{}
	}
	for k, v := range sc.Properties {
		f.Properties[k] = v
	}
	for _, sw := range sc.Sweep {
		for i := range f.Sweep {
			if f.Sweep[i].Property == sw.Property {
				f.Sweep[i].Values = sw.Values
			}
		}
	}
	return nil
}

// WithTargets resolves --with NAME[=URL] against the study's opt-in
// targets; every problem is one line.
func (f *File) WithTargets(with map[string]string) ([]TargetSpec, error) {
	var out []TargetSpec
	var errs []error
	for _, key := range sortedNames(with) {
		t, ok := f.With[key]
		if !ok {
			accepts := "none"
			if len(f.With) > 0 {
				accepts = strings.Join(sortedNames(f.With), ", ")
			}
			errs = append(errs, fmt.Errorf("--with %s: study %s accepts no such opt-in target (it accepts: %s)", key, f.Name, accepts))
			continue
		}
		if u := with[key]; u != "" {
			t.Target = u
		}
		if t.Target == "" {
			errs = append(errs, fmt.Errorf("--with %s: give the server's URL (--with %s=URL): docbench cannot start one here", key, key))
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
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

// runOnly are properties that change how a phase runs, not the data loaded
// (with query.* and statement.*, isRunOnly): points differing only in them
// share one load.
var runOnly = map[string]bool{
	"threads": true, "threadcount": true, "operationcount": true, "maxexecutiontime": true, "target": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true, "scanproportion": true,
	"readmodifywriteproportion": true, "queryproportion": true, "statementproportion": true, "querymix": true,
	"requestdistribution": true, "readallfields": true, "readallfieldsbyname": true, "writeallfields": true,
	"readfields": true, "readpath": true, "updatemode": true, "updatefields": true, "updatepath": true, "querykind": true,
	"minscanlength": true, "maxscanlength": true, "scanlengthdistribution": true, "hotspotdatafraction": true,
	"hotspotopnfraction": true, "exponential.percentile": true, "exponential.frac": true, "dataintegrity": true,
}

// isRunOnly says whether property k is run-only: one of runOnly, or one of a
// query's or a statement's (query.*, statement.*).
func isRunOnly(k string) bool {
	return runOnly[k] || strings.HasPrefix(k, "query.") || strings.HasPrefix(k, "statement.")
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
	if !f.setsProperty("table", t, w, point) {
		p.Set("table", f.table(t), source+": (the study's own table)")
	}
	return p, files, nil
}

// table is the study's own table on target t, unless the study names one:
// never the table a `docbench load` filled (usertable), and one per target
// of the study, as two targets may share a server.
func (f *File) table(t TargetSpec) string {
	name := strings.Trim(unsafeTable.ReplaceAllString(strings.ToLower("study_"+f.Name+"_"+t.Name), "_"), "_")
	if len(name) > 40 { // PostgreSQL cuts identifiers at 63 bytes: room for index names
		h := fnv.New32a()
		h.Write([]byte(name))
		name = fmt.Sprintf("%s_%08x", name[:31], h.Sum32())
	}
	return name
}

var unsafeTable = regexp.MustCompile(`[^a-z0-9_]+`)

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

// runsOn reports whether workload i runs on target: a workload that names
// its targets runs on them only.
func (f *File) runsOn(i int, target string) bool {
	w := &f.Workloads[i]
	return len(w.Targets) == 0 || contains(w.Targets, target)
}

// workloadsOn counts the workloads that run on target.
func (f *File) workloadsOn(target string) int {
	n := 0
	for i := range f.Workloads {
		if f.runsOn(i, target) {
			n++
		}
	}
	return n
}

// loadProps are the properties target t loads its data with at point pt:
// those of the first workload t runs (of the first workload when it runs
// none), merged as a run's are. Its data set, its load and the estimate
// all take them.
func (f *File) loadProps(t TargetSpec, pt []KV) (*workload.Properties, []string, error) {
	return f.props(t, f.firstWorkload(t), pt, f.Source)
}

// firstWorkload is the first workload t runs (the first workload when it
// runs none): the one whose properties its data is loaded with.
func (f *File) firstWorkload(t TargetSpec) *WorkloadSpec {
	for i := range f.Workloads {
		if f.runsOn(i, t.Name) {
			return &f.Workloads[i]
		}
	}
	return &f.Workloads[0]
}

// planned counts the runs of the study's rounds: each workload a target
// runs, at every point, every round (loads and capacity searches aside).
// runs.json's planned_runs, the progress line and the estimate count
// these.
func (r *studyRun) planned() int {
	n := 0
	for _, t := range r.targets {
		n += r.f.workloadsOn(t.Name) * len(r.sweep) * r.f.Rounds
	}
	return n
}

// datasetKey identifies the data a point loads: the target and every
// property that is not run-only.
func datasetKey(target string, p *workload.Properties) string {
	var b strings.Builder
	b.WriteString(target)
	for _, k := range p.Keys() {
		if isRunOnly(k) {
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

// Conduct runs the study into opts.Out and writes its statistics and
// report. A point a target cannot run is recorded as not applicable and the
// rest goes on; cancellation stops at once with what was measured kept.
func Conduct(ctx context.Context, f *File, opts RunOptions) (*Manifest, error) {
	r, err := prepare(f, opts)
	if err != nil {
		return nil, err // before the study directory exists: nothing left behind
	}
	m := r.m
	r.total = r.planned()
	m.Planned = r.total
	est, err := r.estimate()
	if err != nil {
		return nil, err
	}
	if err := est.check(r); err != nil {
		return nil, err // refused before the study directory exists
	}
	if err := os.MkdirAll(filepath.Join(opts.Out, "results"), 0o755); err != nil {
		return nil, err
	}
	if err := report.WriteFileAtomic(filepath.Join(opts.Out, "study.yaml"), f.Raw); err != nil {
		return nil, err
	}
	r.started = time.Now()
	var runErr error
	for _, t := range r.targets {
		groups, err := r.groups(t)
		if err != nil {
			return m, err
		}
		if runErr = r.runGroups(ctx, t, groups); runErr != nil {
			break
		}
	}
	if runErr == nil {
		runErr = r.addRounds(ctx)
	}
	m.Finished = time.Now().UTC()
	if err := r.save(); err != nil {
		return m, err
	}
	if err := WriteOutputs(opts.Out); err != nil {
		return m, errors.Join(runErr, err)
	}
	if m.Incomplete != "" {
		r.logf("INCOMPLETE: %s; every artefact in %s says so", m.Incomplete, opts.Out)
	}
	return m, runErr
}

// Validate checks every phase the study would run (with opts's targets and
// quick mode), touching nothing: Conduct does it too, first.
func Validate(f *File, opts RunOptions) error {
	_, err := prepare(f, opts)
	return err
}

// CheckTables refuses, before anything is written, a study whose table on
// a server named by URL exists and is not docbench's (*db.ErrNotOurs): its
// load would stop there. Managed servers and database files are left to
// the run (opening a file would create it). A target that does not open is
// left to the run too, which says why.
func CheckTables(ctx context.Context, f *File, opts RunOptions) error {
	r, err := prepare(f, opts)
	if err != nil {
		return err
	}
	for _, t := range r.targets {
		if !strings.Contains(t.Target, "://") {
			continue
		}
		p, _, err := f.loadProps(t, r.sweep[0])
		if err != nil {
			return err
		}
		st, err := r.open(ctx, t.Target, p)
		if err != nil {
			continue
		}
		if o, ok := st.(db.TableOwner); ok {
			table, _ := p.Get("table")
			err = o.Owns(ctx, table)
		}
		st.Close()
		var notOurs *db.ErrNotOurs
		if errors.As(err, &notOurs) {
			return err
		}
	}
	return nil
}

// prepare applies quick mode, settles the targets and validates.
func prepare(f *File, opts RunOptions) (*studyRun, error) {
	if opts.Quick {
		f.ApplyQuick()
	}
	if opts.Engine == nil {
		opts.Engine = &engine.Engine{}
	}
	r := &studyRun{f: f, eng: opts.Engine, opts: opts}
	if err := r.begin(); err != nil {
		return nil, err
	}
	return r, r.validate()
}

// open opens target for validated properties.
func (r *studyRun) open(ctx context.Context, target string, props *workload.Properties) (db.Store, error) {
	cfg, err := engine.Config(props)
	if err != nil {
		return nil, err
	}
	if r.opts.opened != nil {
		r.opts.opened(target)
	}
	return r.eng.Open(ctx, target, cfg, false)
}

// studyRun is a study being executed: what it runs, its manifest and its
// progress.
type studyRun struct {
	f       *File
	eng     *engine.Engine
	opts    RunOptions
	targets []TargetSpec
	sweep   [][]KV // the points of the sweep, in order
	m       *Manifest
	done    int // runs done, or recorded as not applicable
	total   int // runs planned
	started time.Time
	// controls are the machine-speed controls taken so far.
	controls controlLog
}

func (r *studyRun) logf(format string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, format+"\n", args...)
	}
}

// save writes the manifest as it stands.
func (r *studyRun) save() error {
	b, err := json.MarshalIndent(r.m, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(r.opts.Out, "runs.json"), append(b, '\n'))
}

// begin settles the targets (the study's or the default ones, and those
// added with -t) and starts the manifest.
func (r *studyRun) begin() error {
	f, opts := r.f, r.opts
	with, err := f.WithTargets(opts.With)
	if err != nil {
		return err
	}
	targets := append([]TargetSpec(nil), f.Targets...)
	if len(targets) == 0 {
		targets = DefaultTargets()
	}
	targets = append(targets, with...)
	for i, t := range targets {
		// A relative database file lives in the study directory.
		targets[i].Target = db.TargetInDir(t.Target, opts.Out)
	}
	for _, arg := range opts.ExtraTargets {
		given, t := ExtraTarget(arg)
		name := given
		for i := 2; hasTarget(targets, name); i++ {
			name = fmt.Sprintf("%s-%d", given, i)
		}
		targets = append(targets, TargetSpec{Name: name, Target: t})
	}
	r.targets = targets
	r.m = &Manifest{Study: f.Name, Source: f.Source, Quick: opts.Quick, Scale: f.ScaleName, Rounds: f.Rounds, Started: time.Now().UTC(), Targets: map[string]string{}}
	for _, t := range targets {
		r.m.Targets[t.Name] = db.Redact(t.Target)
	}
	r.sweep = f.points()
	return nil
}

// validate checks every combination's properties before anything runs,
// and reports every problem at once.
func (r *studyRun) validate() error {
	f := r.f
	var problems []error
	seenProblem := map[string]bool{}
	for _, t := range r.targets {
		for _, pt := range r.sweep {
			for i := range f.Workloads {
				if !f.runsOn(i, t.Name) {
					continue
				}
				p, _, err := f.runProps(t, &f.Workloads[i], pt, f.Source)
				if err == nil {
					err = engine.Validate(p)
				}
				if err == nil {
					err = f.sameData(t, i, pt)
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
	return errors.Join(problems...)
}

// sameData checks that workload i runs on the data target t loads at pt:
// a target loads once per point, with its first workload's properties
// (loadProps), so a workload that shapes the data otherwise would run on
// data it did not ask for.
func (f *File) sameData(t TargetSpec, i int, pt []KV) error {
	load, _, err := f.loadProps(t, pt)
	if err != nil {
		return err
	}
	own, _, err := f.props(t, &f.Workloads[i], pt, f.Source)
	if err != nil {
		return err
	}
	keys := append(load.Keys(), own.Keys()...)
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if isRunOnly(k) {
			continue
		}
		a, _ := load.Get(k)
		b, _ := own.Get(k)
		if a != b {
			return fmt.Errorf("%s is %q here but %q in workload %s, whose properties the target loads its data with: "+
				"give this workload a target of its own, or the same %s", k, b, a, f.firstWorkload(t).Name, k)
		}
	}
	return nil
}

// groups groups t's points by the data they load, keeping sweep order.
func (r *studyRun) groups(t TargetSpec) ([][][]KV, error) {
	var groups [][][]KV
	index := map[string]int{}
	for _, pt := range r.sweep {
		p, _, err := r.f.loadProps(t, pt)
		if err != nil {
			return nil, err
		}
		k := datasetKey(t.Target, p)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], pt)
	}
	return groups, nil
}

// runGroups runs t's groups in turn; on cancellation or an error it says in
// the manifest how far the study got, and returns why it stopped.
func (r *studyRun) runGroups(ctx context.Context, t TargetSpec, groups [][][]KV) error {
	for _, points := range groups {
		err := r.runGroup(ctx, t, points)
		if ctx.Err() != nil {
			r.m.Incomplete = fmt.Sprintf("interrupted after %d of %d runs", r.done, r.total)
			return runner.ErrInterrupted
		}
		if err != nil {
			r.m.Incomplete = fmt.Sprintf("failed after %d of %d runs: %v", r.done, r.total, err)
			return err
		}
	}
	return nil
}

func hasTarget(ts []TargetSpec, name string) bool {
	for _, t := range ts {
		if t.Name == name {
			return true
		}
	}
	return false
}

// group is the points of one target that load the same data: loaded once,
// then every round of every point and workload runs on it.
type group struct {
	*studyRun
	t         TargetSpec
	points    [][]KV
	loadProps *workload.Properties // f.loadProps at the group's first point
	loadFiles []string
	store     db.Store
	dir       string // of the load results, relative to the study directory
	// Rounds start from the same data: a round after one that inserted
	// (inserts take keys from recordcount on), or on a throwaway server
	// after a cold restart, loads again. Within a round too, a workload
	// that inserts runs on data no earlier run inserted into: the keys it
	// inserts would collide.
	inserting []bool // by workload: it inserts
	inserts   bool   // some workload inserts
	inserted  bool   // since the last load
	throwaway bool   // the server loses its data on a restart
	loadRound int    // the round of the last load
	first     int    // the first round this group runs (after its load)
	// pick, for rounds added for claims, picks the series that run
	// (nil: all); addedFor are the claims the runs recorded are added for.
	pick     *batch
	addedFor []string
}

// phase runs one phase on the group's store, quietly, through the engine
// `docbench load` and `run` use.
func (g *group) phase(ctx context.Context, target string, files []string, props *workload.Properties,
	kind runner.Phase, warmup time.Duration) (*report.Result, error) {
	p := &engine.Phase{Kind: kind, Target: target, Files: files, Props: props, Quiet: true, Recreate: kind == runner.Load,
		By: "docbench study", Opts: runner.Options{Phase: kind, Seed: 1, Warmup: warmup}}
	pr, err := engine.Prepare(p)
	if err != nil {
		return nil, err
	}
	return g.eng.Run(ctx, g.store, p, pr)
}

// runGroup loads one data set on one target and runs every round of its
// points. Errors a target cannot help (unsupported options, a server that
// will not start) make the points not applicable; only output errors return.
func (r *studyRun) runGroup(ctx context.Context, t TargetSpec, points [][]KV) error {
	return r.runRounds(ctx, t, points, 1, r.f.Rounds, nil)
}

// runRounds is runGroup for rounds first to last; with pick, only the
// series it picks run (rounds added for claims, more.go).
func (r *studyRun) runRounds(ctx context.Context, t TargetSpec, points [][]KV, first, last int, pick *batch) error {
	f := r.f
	g := &group{studyRun: r, t: t, points: points, first: first, pick: pick}
	g.addedFor = pick.claims(t.Name, points)
	loadProps, loadFiles, err := f.loadProps(t, points[0])
	if err != nil {
		return err
	}
	g.loadProps, g.loadFiles = loadProps, loadFiles
	g.store, err = r.open(ctx, t.Target, loadProps)
	if err != nil {
		return skipped(g.notApplicable(oneLine(err)))
	}
	defer func() {
		if g.store == nil {
			return
		}
		if !r.opts.Keep {
			g.drop()
		}
		g.store.Close()
	}()
	g.dir = filepath.Join("results", unsafeChars.ReplaceAllString(t.Name, "_"), pointID(points[0]))
	if err := g.reload(ctx, first); err != nil {
		return skipped(err)
	}
	if err := g.findInserts(); err != nil {
		return err
	}
	g.throwaway = db.IsEphemeral(t.Target, loadProps.Map())
	for round := first; round <= last; round++ {
		if err := g.round(ctx, round); err != nil {
			return skipped(err)
		}
	}
	return nil
}

// drop drops the group's table, unless docbench did not create it (a
// table the study names, made by its user): the study cleans up after
// itself, and says when it cannot.
func (g *group) drop() {
	d, ok := g.store.(db.TableOwner)
	if !ok {
		return
	}
	table, _ := g.loadProps.Get("table")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // also after an interrupt
	defer cancel()
	var notOurs *db.ErrNotOurs
	if err := d.Drop(ctx, table); err != nil && !errors.As(err, &notOurs) {
		g.logf("%s: table %s not dropped: %s", g.t.Name, table, oneLine(err))
	}
}

// notApplicable records every point of the group as not applicable; it
// returns errSkip, or the manifest's write error.
func (g *group) notApplicable(reason string) error {
	if g.pick != nil {
		return g.addFailed(reason) // the planned rounds stand
	}
	for _, pt := range g.points {
		g.m.Runs = append(g.m.Runs, Run{Target: g.t.Name, Point: pt, NotApplicable: db.Redact(reason)})
	}
	g.logf("%s %s: not applicable: %s", g.t.Name, pointID(g.points[0]), reason)
	g.done += len(g.points) * g.f.Rounds * g.f.workloadsOn(g.t.Name)
	if err := g.save(); err != nil {
		return err
	}
	return errSkip
}

// load loads the group's data for round. A load that fails makes the group
// not applicable (errSkip); an interrupted one is recorded as it is.
func (g *group) load(ctx context.Context, round int) error {
	g.logf("%s %s: loading", g.t.Name, pointID(g.points[0]))
	res, err := g.phase(ctx, g.t.Target, g.loadFiles, g.loadProps, runner.Load, 0)
	run := Run{Target: g.t.Name, Workload: loadWorkload, Point: g.points[0], Round: round, AddedFor: g.addedFor}
	// A round's load figures are its first load's. A reload within the
	// round (after a workload that inserted) only restores the data: it is
	// not a second figure of the round, and its result is not kept.
	again := g.loadRound == round
	g.loadRound = round
	if res != nil && !again {
		if err == nil && g.f.Storage && round == g.first {
			res.Storage = g.storageFigures(ctx)
		}
		name := "load.json"
		if round > 1 {
			name = fmt.Sprintf("load-r%d.json", round)
		}
		run.File = filepath.Join(g.dir, name)
		if werr := writeResult(g.opts, run.File, res); werr != nil {
			return werr
		}
	}
	var notOurs *db.ErrNotOurs
	if errors.As(err, &notOurs) {
		return err // a table of the user's: the study stops, and touches nothing
	}
	if err != nil && ctx.Err() == nil {
		return g.notApplicable("load: " + oneLine(err))
	}
	if again {
		return nil
	}
	g.m.Runs = append(g.m.Runs, run)
	return g.save()
}

// reload is load that also ends the group (errSkip) once ctx is done.
func (g *group) reload(ctx context.Context, round int) error {
	if err := g.load(ctx, round); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errSkip
	}
	return nil
}

// findInserts notes which of the workloads the target runs insert.
func (g *group) findInserts() error {
	f := g.f
	g.inserting = make([]bool, len(f.Workloads))
	for i := range f.Workloads {
		if !f.runsOn(i, g.t.Name) {
			continue
		}
		p, _, err := f.props(g.t, &f.Workloads[i], g.points[0], f.Source)
		if err != nil {
			return err
		}
		v, _ := p.Get("insertproportion")
		if x, _ := strconv.ParseFloat(v, 64); x > 0 {
			g.inserts, g.inserting[i] = true, true
		}
	}
	return nil
}

// round runs one round of every point and workload; a non-nil error
// (errSkip included) ends the group.
func (g *group) round(ctx context.Context, round int) error {
	switch {
	case g.f.Protocol == "cold" && round > g.first:
		if err := g.coldRestart(ctx, round); err != nil {
			return err
		}
	case round > g.first && g.inserts:
		if err := g.reload(ctx, round); err != nil {
			return err
		}
		g.inserted = false
	}
	if g.pick.load(g.t.Name, g.points, round-g.first) && g.loadRound != round {
		if err := g.reload(ctx, round); err != nil { // a load's own series
			return err
		}
		g.inserted = false
	}
	for _, pt := range g.points {
		for i := range g.f.Workloads {
			if ctx.Err() != nil {
				return errSkip
			}
			run, search := g.pick.picks(g.t.Name, g.f.Workloads[i].Name, pt, round-g.first)
			if g.pick != nil {
				g.addedFor = g.pick.why(g.t.Name, g.f.Workloads[i].Name, pt)
			}
			if run {
				if err := g.runWorkload(ctx, round, pt, i); err != nil {
					return err
				}
			}
			if search {
				if err := g.runCapacity(ctx, round, pt, i); err != nil {
					return err
				}
			}
		}
	}
	g.addedFor = g.pick.claims(g.t.Name, g.points)
	return nil
}

// coldRestart reopens the target (restarting a managed server) with the
// OS caches dropped; a throwaway server loads its data again.
func (g *group) coldRestart(ctx context.Context, round int) error {
	g.store.Close()
	g.store = nil
	drop := dropCaches
	if g.opts.dropCaches != nil {
		drop = g.opts.dropCaches
	}
	if note := drop(); note != "" {
		g.logf("%s", note)
	}
	var err error
	if g.store, err = g.open(ctx, g.t.Target, g.loadProps); err != nil {
		return g.notApplicable("reopening for a cold round: " + oneLine(err))
	}
	if g.throwaway {
		g.logf("%s: a cold round on a throwaway server loads its data again", g.t.Name)
		return g.reload(ctx, round)
	}
	return nil
}

// runWorkload runs workload i at point pt and records the run.
func (g *group) runWorkload(ctx context.Context, round int, pt []KV, i int) error {
	f, t, w := g.f, g.t, &g.f.Workloads[i]
	if !f.runsOn(i, t.Name) { // recorded, not counted among the planned runs
		g.m.Runs = append(g.m.Runs, Run{Target: t.Name, Workload: w.Name, Point: pt, Round: round,
			NotApplicable: fmt.Sprintf("workload %s runs on %s only", w.Name, strings.Join(w.Targets, ", "))})
		return g.save()
	}
	props, files, err := f.runProps(t, w, pt, f.Source)
	if err != nil {
		return err
	}
	if g.inserting[i] && g.inserted {
		if err := g.reload(ctx, round); err != nil {
			return err
		}
	}
	g.inserted = g.inserted || g.inserting[i]
	g.done++
	g.logf("[%d/%d %s] %s %s %s round %d", g.done, g.total, eta(g.started, g.done, g.total), t.Name, w.Name, pointID(pt), round)
	return g.measure(ctx, round, pt, i, props, files, f.Protocol != "cold")
}

// measure takes the machine-speed control, runs workload i at point pt
// and records the run. With again, a run whose control moved beyond
// controlBound from the study's controls so far (controlLog.moved) is
// recorded void and run once more, on data loaded again if it inserts.
func (g *group) measure(ctx context.Context, round int, pt []KV, i int, props *workload.Properties, files []string, again bool) error {
	f, t, w := g.f, g.t, &g.f.Workloads[i]
	take := takeControl
	if g.opts.control != nil {
		take = g.opts.control
	}
	control := take(ctx, g.store)
	res, err := g.phase(ctx, t.Target, files, props, runner.Run, f.Warmup.D())
	run := Run{Target: t.Name, Workload: w.Name, Point: pt, Round: round, AddedFor: g.addedFor}
	if res != nil {
		res.Control = control
		if control != nil {
			if why := g.controls.moved(control); again && why != "" && err == nil && res.Complete {
				run.Void = why
			}
			g.controls.add(control)
		}
		report.CheckThresholds(res, f.ThresholdsFor(t, *w))
		for _, tr := range res.Thresholds {
			if !tr.Pass {
				run.ThresholdsFailed = append(run.ThresholdsFailed, fmt.Sprintf("%s (measured %s)", tr.Threshold, tr.Measured()))
			}
		}
		name := fmt.Sprintf("%s-r%d.json", w.Name, round)
		if run.Void != "" {
			name = fmt.Sprintf("%s-r%d-void.json", w.Name, round)
		}
		run.File = filepath.Join("results", unsafeChars.ReplaceAllString(t.Name, "_"), pointID(pt), name)
		if werr := writeResult(g.opts, run.File, res); werr != nil {
			return werr
		}
	}
	if err != nil {
		run.Error = oneLine(err)
		g.logf("%s %s %s: %s", t.Name, w.Name, pointID(pt), run.Error)
	}
	g.m.Runs = append(g.m.Runs, run)
	if err := g.save(); err != nil || run.Void == "" || ctx.Err() != nil {
		return err
	}
	g.logf("%s %s %s round %d: void, %s: running it again", t.Name, w.Name, pointID(pt), round, run.Void)
	if g.inserting[i] {
		if err := g.reload(ctx, round); err != nil {
			return err
		}
	}
	return g.measure(ctx, round, pt, i, props, files, false)
}

// loadWorkload names the load phase in runs.json and in the rows of a
// study: claims on a load's figures (its throughput, the sizes it left)
// name it as their workload.
const loadWorkload = "load"

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

func writeResult(opts RunOptions, rel string, res *report.Result) error {
	res.Quick = opts.Quick // every file of a quick study says so
	b, err := report.Marshal(res)
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(filepath.Join(opts.Out, rel), b)
}

// dropCaches asks the kernel to drop the page cache before a cold round, or
// says why it could not. It syncs first: the kernel drops clean pages only,
// and the pages a load just wrote would otherwise stay cached.
func dropCaches() string {
	syncDisks()
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
