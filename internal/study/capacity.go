package study

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/capacity"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
)

// CapacitySpec asks a study for each target's sustainable rate at an SLO
// (docbench capacity, docs/capacity.md), searched after the workload's run
// at the chosen point of every round. It becomes the metric capacity:ops
// (ops/s) of charts and claims.
//
//	capacity: {slo: "p99<5ms", workload: c, point: {threads: "4"}, trial: 5s}
type CapacitySpec struct {
	SLO           string            `yaml:"slo"`             // one SLO, e.g. "p99<5ms" or "READ.p99<2ms"
	Workload      string            `yaml:"workload"`        // default: the first workload
	Targets       []string          `yaml:"targets"`         // default: every target
	Point         map[string]string `yaml:"point"`           // swept values where it runs; default: the first point
	Trial         Duration          `yaml:"trial"`           // measured length of a trial; default 10s
	Precision     string            `yaml:"precision"`       // default 5%
	MaxTime       Duration          `yaml:"max_time"`        // bound of one search; default 5m
	MaxErrorShare string            `yaml:"max_error_share"` // default 0.1%
	// MaxErrorRate is max_error_share's old name, still read.
	MaxErrorRate string `yaml:"max_error_rate"`
	// minWindows lowers the windows a rate is decided on (--quick).
	minWindows int
}

// CapacityMetric is the metric (and operation) of a capacity search's
// sustainable rate in rows, charts and claims: y "capacity:ops".
const (
	CapacityMetric = "capacity"
	CapacityOp     = "ops"
)

// CapacityRun is one search the executor runs.
type CapacityRun struct {
	Config  capacity.Spec
	Trial   time.Duration
	Warmup  time.Duration
	MaxTime time.Duration
}

// capacityKeys are the keys of a study's capacity: mapping.
var capacityKeys = []string{"slo", "workload", "targets", "point", "trial", "precision", "max_time", "max_error_share", "max_error_rate"}

// validateCapacity checks the capacity: mapping and fills in its defaults.
func (f *File) validateCapacity(root *yaml.Node, fail func(int, string, ...any)) {
	c := f.Capacity
	if c == nil {
		return
	}
	line := func(key string) int { return lineIn(root, "capacity", key) }
	if _, err := f.capacityRun(); err != nil {
		fail(line("slo"), "capacity: %v", err)
	}
	if c.Workload == "" && len(f.Workloads) > 0 {
		c.Workload = f.Workloads[0].Name
	}
	found := false
	for _, w := range f.Workloads {
		found = found || w.Name == c.Workload
	}
	if !found && len(f.Workloads) > 0 {
		fail(line("workload"), "capacity: workload %q is not one of the study's workloads", c.Workload)
	}
	for _, t := range c.Targets {
		if !hasTarget(f.Targets, t) && len(f.Targets) > 0 {
			fail(line("targets"), "capacity: target %q is not one of the study's targets", t)
		}
	}
	for k := range c.Point {
		swept := false
		for _, s := range f.Sweep {
			swept = swept || s.Property == k
		}
		if !swept {
			fail(line("point"), "capacity: point: %q is not a swept property", k)
		}
	}
}

// capacityRun is the search the study's capacity: asks for.
func (f *File) capacityRun() (CapacityRun, error) {
	c := f.Capacity
	run := CapacityRun{Trial: c.Trial.D(), Warmup: f.Warmup.D(), MaxTime: c.MaxTime.D()}
	if run.Trial == 0 {
		run.Trial = 10 * time.Second
	}
	if run.MaxTime == 0 {
		run.MaxTime = 5 * time.Minute
	}
	s, err := engine.ParseSLO(c.SLO)
	if err != nil {
		return run, fmt.Errorf("slo: %v", strings.TrimPrefix(err.Error(), "--slo "))
	}
	run.Config.SLOs = []capacity.SLO{s}
	run.Config.Trial, run.Config.MinWindows = run.Trial, c.minWindows
	share := func(v, def string) (float64, error) {
		if v == "" {
			v = def
		}
		return capacity.ParseShare(v)
	}
	if run.Config.Precision, err = share(c.Precision, "5%"); err != nil {
		return run, fmt.Errorf("precision %v", err)
	}
	maxErr := cmp.Or(c.MaxErrorShare, c.MaxErrorRate)
	if run.Config.MaxErrorShare, err = share(maxErr, "0.1%"); err != nil {
		return run, fmt.Errorf("max_error_share %v", err)
	}
	return run, run.Config.Validate()
}

// quickCapacity bounds the search of a --quick run: 1 s trials, a rate
// decided on 2 windows (not the 10 a search needs against bursts), a
// coarse precision, 12 s in all: a sketch, as the run says it is.
func (f *File) quickCapacity() {
	if c := f.Capacity; c != nil {
		c.Trial, c.Precision, c.MaxTime, c.minWindows = Duration(time.Second), "25%", Duration(12*time.Second), 2
	}
}

// capacityAt reports whether the study searches capacity after workload i
// at point pt (never on a target the workload does not run on).
func (f *File) capacityAt(target string, pt []KV, i int) bool {
	c := f.Capacity
	if c == nil || f.Workloads[i].Name != c.Workload || len(c.Targets) > 0 && !slices.Contains(c.Targets, target) || !f.runsOn(i, target) {
		return false
	}
	if len(c.Point) == 0 {
		return pointID(pt) == pointID(f.points()[0])
	}
	for _, kv := range pt {
		if v, ok := c.Point[kv.Key]; ok && v != kv.Value {
			return false
		}
	}
	return true
}

// runCapacity searches the sustainable rate of workload i at point pt, if
// the study asks for it there, and records the result as a run.
func (g *group) runCapacity(ctx context.Context, round int, pt []KV, i int) error {
	f, t, w := g.f, g.t, &g.f.Workloads[i]
	if !f.capacityAt(t.Name, pt, i) || ctx.Err() != nil {
		return nil
	}
	run := Run{Target: t.Name, Workload: w.Name, Point: pt, Round: round, Capacity: true, AddedFor: g.addedFor}
	props, files, err := f.runProps(t, w, pt, f.Source)
	if err != nil {
		return err
	}
	cr, err := f.capacityRun()
	if err != nil {
		return err
	}
	g.logf("%s %s %s round %d: capacity at %s", t.Name, w.Name, pointID(pt), round, f.Capacity.SLO)
	props.Set("operationcount", "0", "capacity") // every trial runs for its length
	search := &engine.Search{Config: cr.Config, MaxTime: cr.MaxTime, Trial: cr.Trial,
		Phase: &engine.Phase{Kind: runner.Run, Target: t.Target, Files: files, Props: props, Encode: true, Quiet: true,
			Opts: runner.Options{Phase: runner.Run, Seed: 1, Warmup: cr.Warmup, MaxErrorShare: -1}}}
	var res *report.Result
	pr, err := engine.Prepare(search.Phase)
	if err == nil {
		res, err = g.eng.CapacityOn(ctx, g.store, search, pr)
	}
	if res != nil {
		run.File = filepath.Join("results", unsafeChars.ReplaceAllString(t.Name, "_"), pointID(pt), fmt.Sprintf("%s-capacity-r%d.json", w.Name, round))
		if werr := writeResult(g.opts, run.File, res); werr != nil {
			return werr
		}
		g.logf("%s %s: %s", t.Name, w.Name, report.CapacityLine(res.Capacity))
	}
	if err != nil {
		run.Error = oneLine(err)
		g.logf("%s %s %s capacity: %s", t.Name, w.Name, pointID(pt), run.Error)
	}
	g.m.Runs = append(g.m.Runs, run)
	return g.save()
}

// capacityRow adds a capacity result's sustainable rate to a study's
// figures; a search that found none adds nothing (never a zero).
func capacityRow(res *report.Result, add func(op, name, unit string, v float64)) {
	if c := res.Capacity; c != nil && c.Rate > 0 {
		add(CapacityOp, CapacityMetric, "ops/s", c.Rate)
	}
}

// capacityLabel is the axis title of capacity:ops.
func (f *File) capacityLabel() string {
	if f.Capacity == nil {
		return "sustainable rate (ops/s)"
	}
	return "sustainable rate at " + f.Capacity.SLO + " (ops/s)"
}
