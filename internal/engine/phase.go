// Package engine runs docbench's measurements: a phase (a load or a run
// of a workload) on a target — its table, the settling before a run, the
// runner, the server's own figures around the measured part, the result —
// and a capacity search's trials, the pure search (package capacity)
// deciding on figures read off each trial's result. load, run, capacity,
// studies and the quickstart all run through it.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/probe"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// Engine runs phases and capacity searches; load, run, capacity, studies
// and the quickstart all run through it.
type Engine struct {
	// Stderr takes notes, progress and a search's trial lines; nil: none.
	Stderr io.Writer
	// Progress shows the runner's live progress line (Stderr is a terminal).
	Progress bool
	// Tool is the docbench that measured, recorded on every result.
	Tool report.Tool
}

// Phase is one phase to run: a load or a run of a workload on a target.
type Phase struct {
	Kind   runner.Phase
	Target string
	Files  []string // the workload files its properties came from
	Props  *workload.Properties
	Opts   runner.Options // seed, warm-up, status, start, error limit; the rest comes from Props
	Quiet  bool           // no notes or progress (a study's or a search's phase)
	// Recreate drops and creates the table before a load (docbench's own
	// only: db.ErrNotOurs otherwise).
	Recreate bool
	By       string // the command marked on the table a load creates (db.Mark)
	// Force runs on a table whose load, as its mark records, did not
	// complete (a run refuses otherwise).
	Force  bool
	Shard  Shard
	HdrLog string // the --hdr-log path: every interval's histograms
	// Encode keeps each second's histograms in the result's series (a
	// capacity trial is decided on them); Settled skips the settling before
	// a run (done before an earlier trial).
	Encode  bool
	Settled bool
}

// Shard is the part of a phase one process runs and when it begins.
type Shard struct {
	Shard   workload.Shard
	StartAt time.Time
}

// Used reports whether the phase runs as a shard or at a set instant.
func (s Shard) Used() bool { return s.Shard.Count > 0 || !s.StartAt.IsZero() }

// Prepared is a phase's validated configuration, its workload and its
// document operations, made once before the target is touched.
type Prepared struct {
	Config   *workload.Config
	Workload *workload.Workload
	DocOps   *runner.DocOps
}

// BadInput is an error in what the user gave (a property, a target, a
// file): the command exits 2.
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }

func badInput(err error) error { return &BadInput{Err: err} }

// Config validates properties, with every backend's options and the
// document properties known.
func Config(props *workload.Properties) (*workload.Config, error) {
	keys, prefixes := db.Known()
	keys = append(keys, document.Keys()...)
	cfg, err := workload.ParseConfig(props, workload.Known{Keys: keys, Prefixes: prefixes})
	if err != nil {
		return nil, badInput(err)
	}
	return cfg, nil
}

// Build builds the workload, the document shape and the document
// operations of a configuration.
func Build(cfg *workload.Config, seed uint64) (*workload.Workload, *runner.DocOps, error) {
	wl, err := workload.New(cfg, seed)
	if err != nil {
		return nil, nil, badInput(err)
	}
	spec, err := document.ParseSpec(cfg.Props, wl.FieldLengths(), cfg.FieldCount, cfg.FieldNamePrefix)
	if err != nil {
		return nil, nil, badInput(err)
	}
	shape, err := document.New(spec, seed)
	if err != nil {
		return nil, nil, badInput(err)
	}
	docOps, err := runner.NewDocOps(wl, shape, seed)
	if err != nil {
		return nil, nil, badInput(err)
	}
	return wl, docOps, nil
}

// Prepare validates the phase's properties, applies its shard and builds
// its workload and document operations: once, before the target is
// touched (Open checks the target's own options).
func Prepare(p *Phase) (*Prepared, error) {
	cfg, err := Config(p.Props)
	if err != nil {
		return nil, err
	}
	cfg.ApplyShard(p.Shard.Shard) // this shard's operations and rate
	wl, docOps, err := Build(cfg, p.Opts.Seed)
	if err != nil {
		return nil, err
	}
	return &Prepared{Config: cfg, Workload: wl, DocOps: docOps}, nil
}

// Open opens a target for a validated configuration; existing says the
// phase needs loaded data (run, verify).
func (e *Engine) Open(ctx context.Context, target string, cfg *workload.Config, existing bool) (db.Store, error) {
	if err := db.Check(target, cfg.Props); err != nil {
		return nil, badInput(err)
	}
	logf := func(format string, args ...any) {
		if e.Stderr != nil {
			fmt.Fprintf(e.Stderr, format+"\n", args...)
		}
	}
	st, err := db.Open(ctx, db.OpenRequest{Target: target, Props: cfg.Props, Threads: int(cfg.ThreadCount), Log: logf, Existing: existing})
	return st, notOurs(err)
}

// OpenAndRun opens the phase's target, runs the phase and returns its
// result; on failure after measuring began, the partial result comes back
// with the error.
func (e *Engine) OpenAndRun(ctx context.Context, p *Phase) (*report.Result, error) {
	// Everything is validated before the target is touched: a bad document
	// property must not leave a database file behind.
	pr, err := Prepare(p)
	if err != nil {
		return nil, err
	}
	store, err := e.Open(ctx, p.Target, pr.Config, p.Kind == runner.Run)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return e.Run(ctx, store, p, pr)
}

// Run runs one prepared phase against an opened store: the table (a
// load's), the settling before a run, the runner, the server's own figures
// around the measured part, and the result.
func (e *Engine) Run(ctx context.Context, store db.Store, p *Phase, pr *Prepared) (*report.Result, error) {
	cfg, wl, docOps := pr.Config, pr.Workload, pr.DocOps
	opts := p.Opts
	opts.Threads = int(cfg.ThreadCount)
	opts.Rate = cfg.Target
	opts.Duration = cfg.MaxExecutionTime
	opts.EncodeIntervals = p.Shard.Used() || p.Encode // merged second by second
	if !p.Quiet && e.Stderr != nil {
		opts.Stderr = e.Stderr
		opts.Progress = e.Progress
		for _, n := range cfg.Notes {
			fmt.Fprintf(e.Stderr, "note: %s\n", n)
		}
	}
	schema := markedSchema(docOps.Schema(), p.By, wl, cfg.Props)
	tracked, forced, err := table(ctx, store, p, schema)
	if err != nil {
		return nil, err
	}
	info, err := store.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", db.Redact(p.Target), err)
	}
	// The server's view starts where docbench's counting does: after the
	// warm-up, with no operation in flight.
	var before *probe.Reading
	opts.OnMeasure = func() { before = probe.Take(ctx, store) }
	if p.HdrLog != "" {
		f, err := os.Create(p.HdrLog)
		if err != nil {
			return nil, badInput(fmt.Errorf("--hdr-log: %w", err))
		}
		defer f.Close()
		opts.HdrLog = f
	}
	var settled []string
	if p.Kind == runner.Run && !p.Settled {
		settled = Settle(ctx, store, db.BeforeRun)
		if ctx.Err() != nil { // interrupted while settling: nothing was measured
			return nil, runner.ErrInterrupted
		}
	}
	out, runErr := runner.Execute(ctx, store, wl, docOps, opts)
	var marked string
	if tracked {
		marked = recordLoad(ctx, store, schema, out, runErr)
	}
	if out == nil {
		return nil, runErr
	}
	res := buildResult(out, info, p.Target)
	if opts.LatencyLimit > 0 {
		res.LatencyLimit = latencyLimit(out, opts.LatencyLimit)
	}
	res.Tool = e.Tool
	res.Environment = report.ReadEnvironment()
	res.Environment.GoMaxProcs = out.Procs
	res.Environment.IOMode = out.IOMode
	res.Workload = report.Workload{Files: p.Files, Properties: p.Props.Map()}
	res.Options = report.PhaseOptions{Threads: opts.Threads, TargetRate: opts.Rate, DurationS: opts.Duration.Seconds(),
		WarmupS: opts.Warmup.Seconds(), Seed: opts.Seed, BatchSize: out.Batch}
	switch {
	case opts.MaxErrorShare == 0:
		res.MaxErrorShare = runner.DefaultMaxErrorShare
	case opts.MaxErrorShare > math.SmallestNonzeroFloat64:
		res.MaxErrorShare = opts.MaxErrorShare
	}
	res.Notes = append(res.Notes, cfg.Notes...)
	res.Notes = append(res.Notes, settled...)
	for _, n := range []string{forced, marked} {
		if n != "" {
			res.Notes = append(res.Notes, n)
		}
	}
	res.EndedBy, res.Notes = endedBy(out, p.Kind, cfg, opts.Duration, res.Notes)
	if p.Shard.Used() {
		shardResult(res, out, p.Shard, wl)
	} else if p.Encode {
		encodeSeries(res, out)
	}
	if p.Kind == runner.Run {
		res.Notes = append(res.Notes, docOps.Notes...)
	}
	if out.Batch > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("loaded in batches of %d: INSERT-BATCH latency is per batch; operations and throughput count records", out.Batch))
	}
	if runErr != nil && !errors.Is(runErr, runner.ErrInterrupted) {
		res.Error = runErr.Error()
	}
	if out.Stopped == "failure streak" {
		// The database stopped answering: asking it for its figures
		// would only wait on it.
		res.Notes = append(res.Notes, "server-side figures absent: the database stopped answering during the phase")
		return res, runErr
	}
	if before == nil { // interrupted during the warm-up
		before = probe.Take(ctx, store)
	}
	res.Server = runner.ServerSide(ctx, store, before, out, wl, docOps)
	res.Audit = new(probe.Classify(res.Target.Backend, res.Target.Settings, res.Target.Layout, res.Options.Threads))
	if p.Kind == runner.Load && runErr == nil && out.Complete {
		res.Notes = append(res.Notes, Settle(ctx, store, db.AfterLoad)...)
		if ctx.Err() != nil { // interrupted while settling: the load is kept, the exit says so
			runErr = runner.ErrInterrupted
		}
	}
	return res, runErr
}

// Settle brings a loaded table to the steady state a run expects
// (db.Settler), after the load's figures were taken or before a run's
// warm-up, and says so in a note.
func Settle(ctx context.Context, store db.Store, when db.SettleStage) []string {
	st, ok := store.(db.Settler)
	if !ok {
		return nil
	}
	stage, phase := "after the load", "the load's"
	if when == db.BeforeRun {
		stage, phase = "before the run", "the run's"
	}
	t0 := time.Now()
	what, err := st.Settle(ctx, when)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("%s: %v (the table is as autovacuum left it)", stage, err)}
	case what == "":
		return nil
	}
	return []string{fmt.Sprintf("%s: %s took %.2g s, outside %s figures", stage, what, time.Since(t0).Seconds(), phase)}
}

// table readies the phase's table: a load's is created (a shard's shared)
// and, unless sharded, tracked (its mark records the load's end); a run's
// must hold a load that completed: one that did not is refused in one
// line, or with Force noted (forced).
func table(ctx context.Context, store db.Store, p *Phase, schema db.Schema) (tracked bool, forced string, err error) {
	switch {
	case p.Kind == runner.Run && !p.Settled:
		why, err := unfinished(ctx, store, schema.Table)
		switch {
		case err != nil || why == "":
			return false, "", err
		case !p.Force:
			return false, "", badInput(errors.New(why + ": load again (or --force)"))
		}
		return false, "run with --force on an unfinished load: " + why, nil
	case p.Recreate && p.Shard.Shard.Sharded():
		// A sharded load's table is shared by loads none of which knows
		// the others' end.
		return false, "", notOurs(setupShared(ctx, store, schema))
	case p.Recreate:
		if err := store.Setup(ctx, schema, true); err != nil {
			return false, "", notOurs(err)
		}
		return p.Kind == runner.Load && startLoad(ctx, store, schema), "", nil
	}
	return false, "", nil
}

// unfinished says why the table's load did not complete, as the table's
// mark records it; "" when it did (a mark that does not say, of an older
// docbench or a sharded load, is taken for complete).
func unfinished(ctx context.Context, store db.Store, table string) (string, error) {
	r, ok := store.(db.Remarker)
	if !ok {
		return "", nil
	}
	m, ours, err := r.ReadMark(ctx, table)
	if err != nil {
		return "", fmt.Errorf("reading what the load recorded on %s: %w", table, err)
	}
	if !ours {
		return "", nil
	}
	return m.Unfinished(), nil
}

// startLoad records on the load's table that its load is running: until
// the load records its end, a run refuses. It returns false when the store
// cannot rewrite its mark (MySQL 8's test peer keeps a table's first
// comment): the load's end then goes unrecorded, as with an older docbench.
func startLoad(ctx context.Context, store db.Store, schema db.Schema) bool {
	r, ok := store.(db.Remarker)
	if !ok {
		return false
	}
	m := schema.Mark
	m.Load = db.LoadRunning
	if r.Remark(ctx, schema.Table, m) != nil {
		return false
	}
	got, ours, err := r.ReadMark(ctx, schema.Table)
	return err == nil && ours && got.Load == db.LoadRunning
}

// recordLoad records on the load's table how the load ended: complete, or
// stopped at the records it stored. Interrupted, it still records, within
// a bound. It returns a note when the mark could not be written.
func recordLoad(ctx context.Context, store db.Store, schema db.Schema, out *runner.Outcome, runErr error) string {
	r, ok := store.(db.Remarker)
	if !ok {
		return ""
	}
	m := schema.Mark
	m.Load = db.LoadStopped
	if out != nil {
		m.Loaded = out.Succeeded()
		if runErr == nil && out.Complete && out.EndedBy == "count" { // not a duration
			m.Load = db.LoadComplete
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := r.Remark(cctx, schema.Table, m); err != nil {
		return fmt.Sprintf("the load's end is not recorded on its table (%v): a run on it needs --force", err)
	}
	return ""
}

// endedBy names the limit that ended a phase and, when the user set both a
// count and a duration, says which one ended it first.
func endedBy(out *runner.Outcome, phase runner.Phase, cfg *workload.Config, limit time.Duration, notes []string) (string, []string) {
	count, n := "operationcount", cfg.OperationCount
	if phase == runner.Load {
		count, n = "insertcount", cfg.InsertCount
	}
	switch out.EndedBy {
	case "count":
		if limit > 0 {
			notes = append(notes, fmt.Sprintf("%s=%d ended the phase after %.3g s, before its duration of %s (-p %s=0 runs for the whole duration)",
				count, n, out.Elapsed().Seconds(), limit, count))
		}
		return count, notes
	case "duration":
		if n > 0 {
			notes = append(notes, fmt.Sprintf("the duration (%s) ended the phase before %s=%d: %d done", limit, count, n, out.Ops))
		}
	}
	return out.EndedBy, notes
}

// markedSchema is the schema of a load with the mark its table will carry:
// the command, the time, the records of the whole load and the properties
// that shape its data.
func markedSchema(schema db.Schema, by string, wl *workload.Workload, props map[string]string) db.Schema {
	if by == "" {
		by = "docbench load"
	}
	_, n := wl.Keyspace()
	m := db.Mark{By: by, Created: time.Now(), Records: n, Properties: map[string]string{}}
	for k, v := range props {
		if dataProps[k] || strings.HasPrefix(k, "document.") {
			m.Properties[k] = v
		}
	}
	schema.Mark = m
	return schema
}

// dataProps are the properties, besides document.*, that shape the data a
// load writes.
var dataProps = map[string]bool{
	"recordcount": true, "insertstart": true, "insertcount": true, "fieldcount": true, "fieldlength": true,
	"fieldlengthdistribution": true, "fieldnameprefix": true, "insertorder": true, "layout": true, "doctype": true,
	"index": true, "secondaryindex": true,
}

// notOurs makes a table docbench did not create, or a target that cannot
// be, bad input.
func notOurs(err error) error {
	var no *db.ErrNotOurs
	var bad *db.BadTarget
	if errors.As(err, &no) || errors.As(err, &bad) {
		return badInput(err)
	}
	return err
}

// setupShared creates the table of a shard's load without dropping it:
// another shard may already be writing into it. Shards that create it at
// the same moment can collide in the catalog; a few retries settle that.
func setupShared(ctx context.Context, store db.Store, schema db.Schema) error {
	var err error
	for attempt := range 4 {
		var notOurs *db.ErrNotOurs
		if err = store.Setup(ctx, schema, false); err == nil || errors.As(err, &notOurs) {
			return err
		}
		select {
		case <-time.After(time.Duration(100*(attempt+1)) * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

// shardResult records the shard, host, clock and real start on a result,
// and the per-second histograms a merge needs.
func shardResult(res *report.Result, out *runner.Outcome, s Shard, wl *workload.Workload) {
	sh := s.Shard
	if sh.Count == 0 {
		sh = workload.Shard{Index: 0, Count: 1}
	}
	info := &report.Shard{Index: sh.Index, Count: sh.Count, Host: res.Environment.Hostname,
		Began: out.Began.UTC(), Clock: report.ReadClock()}
	if !s.StartAt.IsZero() {
		at := s.StartAt.UTC()
		late := float64(out.Began.Sub(s.StartAt)) / 1e6
		info.StartAt, info.LateMS = &at, &late
		if late > 1000 {
			res.Notes = append(res.Notes, fmt.Sprintf("began %.1f s after --start-at %s: the instant had passed when the phase was ready",
				late/1e3, at.Format(time.RFC3339)))
		}
	}
	if out.Phase == runner.Load {
		start, n := wl.LoadRange()
		info.LoadStart, info.LoadCount = &start, &n
	}
	res.Shard = info
	encodeSeries(res, out)
}

// Validate checks a phase's properties — the workload, its documents and
// operations — without a target.
func Validate(props *workload.Properties) error {
	cfg, err := Config(props)
	if err != nil {
		return err
	}
	_, _, err = Build(cfg, 1)
	return err
}

// DocBytes is the mean size, in bytes of JSON, of the documents props
// generate (64 of them, spread over the key space): a study's disk
// estimate.
func DocBytes(props map[string]string) (float64, error) {
	p := workload.NewProperties()
	for k, v := range props {
		p.Set(k, v, "study")
	}
	cfg, err := Config(p)
	if err != nil {
		return 0, err
	}
	_, docOps, err := Build(cfg, 1)
	if err != nil {
		return 0, err
	}
	const n = 64
	r := document.NewRand()
	var buf, key []byte
	total := 0
	for i := range int64(n) {
		k := i * max(cfg.RecordCount/n, 1)
		key = workload.AppendKey(key[:0], k, false, 0)
		buf = docOps.Shape.AppendDoc(buf[:0], key, k, r)
		total += len(buf)
	}
	return float64(total) / n, nil
}
