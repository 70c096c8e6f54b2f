package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/workload"
)

// quickFlags are quickstart's settings: small enough to finish within two
// minutes on two cores, large enough that the numbers mean something. The
// study itself is studies/quickstart.yaml; a flag given overrides it.
type quickFlags struct {
	out      string
	records  int
	threads  int
	duration time.Duration
	warmup   time.Duration
	quick    bool
	force    bool
	targets  []string
	props    []string
	sample   string
	replay   string
	mix      string
	keep     bool
	// mixQueries is the mix read from mix (nil without one); mixIndexes
	// says quickstart chose its secondary indexes (no -p secondaryindex).
	mixQueries *workload.Mix
	mixIndexes bool
}

func (a *app) quickstartCommand() *cobra.Command {
	f := &quickFlags{}
	cmd := &cobra.Command{
		Use:   "quickstart [--sample|--replay FILE.ndjson] [--mix FILE.yaml] [-p KEY=VALUE]... [-t [NAME=]TARGET]... [--keep] [--out DIR]",
		Short: "Load the same documents (yours with --sample or --replay) into managed PostgreSQL 18 and SQLite (and -t targets), run YCSB C, A (or your --mix) at a common rate and a short capacity search on each, answer first",
		Long: `quickstart runs the built-in study quickstart on postgres:embedded, SQLite and every -t
target, in about two minutes on two cores: the load, workload C (reads), workload A at
500 ops/s on every target (latency from the intended start), then a short capacity
search of workload A at p99<5ms (10 s trials, a band as wide as 25 %, at most 45 s per
target; docbench capacity searches longer). The search runs last on each target: no
workload runs on the table its updates grew.

The first screen answers: the documents measured; per target the sustainable rate with
its band and caveats, READ and UPDATE p50/p99 at the common rate, storage per document;
what the fairness audit flagged. The table and caveats follow; report.html has every
trial of the searches. --sample FILE.ndjson generates look-alikes of your documents,
--replay FILE.ndjson loads the file's documents themselves (each once, in order).

--mix FILE.yaml (-p querymix=FILE.yaml) measures your queries instead of workload A:
the mix closed loop after C (workload mix), then at 500 ops/s on every target and in the
capacity search (mix-rate); proportions adding to less than 1 leave the rest to reads by
key. The load creates the secondary indexes the queries need (-p secondaryindex=…
chooses them yourself); the first screen shows each query's p50/p99, rows per call and
plan, and any query left without its index, with the fix. --keep leaves the tables on
the targets (by default those docbench created are dropped).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.out == "" {
				f.out = filepath.Join("docbench-results", time.Now().UTC().Format("20060102-150405"))
			} else if err := checkOutParent(f.out); err != nil {
				return err
			}
			return a.quickstart(cmd.Context(), cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory (default ./docbench-results/<timestamp>/)")
	fl.IntVar(&f.records, "records", 10000, "records to load (recordcount)")
	fl.IntVar(&f.threads, "threads", 4, "client threads")
	fl.DurationVar(&f.duration, "duration", 6*time.Second, "measured time per workload")
	fl.DurationVar(&f.warmup, "warmup", time.Second, "discarded warm-up per workload (and capacity trial)")
	fl.BoolVar(&f.quick, "quick", false, quickUsage)
	fl.BoolVar(&f.force, "force", false, "write into a --out directory that is not empty")
	fl.StringArrayVarP(&f.targets, "target", "t", nil, "also run on this target (repeatable), e.g. mysql://… or mongodb://…; NAME=TARGET names it in the report, else it is named as written")
	fl.StringArrayVarP(&f.props, "property", "p", nil, "property key=value for every target and workload (repeatable), as run's -p")
	fl.StringVar(&f.sample, "sample", "", "NDJSON file of your documents: load look-alikes of them (document.sample)")
	fl.StringVar(&f.replay, "replay", "", "NDJSON file of your documents: load them themselves, each once, in order (document.replay)")
	fl.BoolVar(&f.keep, "keep", false, "keep the tables on the targets (by default each is dropped when quickstart is done with it; only tables docbench created are dropped)")
	fl.StringVar(&f.mix, "mix", "", "YAML file of your service's queries (querymix, docs/documents.md): measure them in place of workload A (closed loop, at the common rate, in the capacity search)")
	return cmd
}

// quickRow is one line of the side-by-side table.
type quickRow struct {
	workload, op string
	byTarget     map[string]report.Op
}

// quickProps applies --sample, --replay, --mix and -p to the study,
// checked as run checks them (the -p at fault named), before anything runs.
func quickProps(st *study.File, cmd *cobra.Command, f *quickFlags) error {
	fl := cmd.Flags()
	bad := func(err error) error { return &ExitError{Code: exitUsage, Err: err} }
	switch {
	case f.sample != "" && f.replay != "":
		return bad(errors.New("--sample and --replay: choose one (look-alikes of your documents, or the documents themselves)"))
	case f.replay != "" && fl.Changed("records"):
		return bad(fmt.Errorf("--replay %s loads the file's documents, each once: --records does not apply", f.replay))
	}
	given, err := propsFromFlags(nil, f.props)
	if err != nil {
		return err
	}
	for _, k := range []string{"document.sample", "document.replay", "recordcount"} {
		if _, ok := given.Get(k); ok && (f.sample != "" || f.replay != "") {
			return bad(fmt.Errorf("-p %s and --sample/--replay: give the documents once", k))
		}
	}
	if !f.quick || fl.Changed("records") {
		st.Properties["recordcount"] = strconv.Itoa(f.records)
	}
	switch {
	case f.sample != "":
		st.Properties["document.sample"] = f.sample
	case f.replay != "":
		n, err := countDocuments(f.replay)
		if err != nil {
			return bad(fmt.Errorf("--replay: %w", err))
		}
		st.Properties["document.replay"] = f.replay
		st.Properties["recordcount"] = strconv.Itoa(n)
	}
	via := "--mix"
	if v, ok := given.Get("querymix"); ok {
		if f.mix != "" && v != f.mix {
			return bad(fmt.Errorf("--mix %s and -p querymix=%s: give the query mix once", f.mix, v))
		}
		f.mix, via = v, "-p querymix"
	}
	for _, k := range given.Keys() {
		if k != "querymix" {
			v, _ := given.Get(k)
			st.Properties[k] = v
		}
	}
	if f.mix != "" {
		m, err := workload.ReadMix(f.mix)
		if err != nil {
			return bad(fmt.Errorf("%s: %w", via, err)) // alone: not also the mix workload's lack of operations
		}
		abs, err := filepath.Abs(f.mix)
		if err != nil {
			return bad(fmt.Errorf("%s %s: %w", via, f.mix, err))
		}
		if err := quickMix(st, m, abs); err != nil {
			return err
		}
		f.mixQueries = m
	}
	// As run checks its -P and -p: the workloads' files under them.
	for _, w := range st.Workloads {
		p := workload.NewProperties()
		if err := p.LoadFile(w.Workload); err != nil {
			return err
		}
		for k, v := range st.Properties {
			src := "quickstart"
			if _, ok := given.Get(k); ok {
				src = "-p"
			}
			p.Set(k, v, src)
		}
		for k, v := range w.Properties {
			src := "quickstart"
			if k == "querymix" {
				src = "--mix"
			}
			p.Set(k, v, src)
		}
		if err := engine.Validate(p); err != nil {
			return err
		}
	}
	if _, ok := given.Get("secondaryindex"); ok || f.mixQueries == nil {
		return nil
	}
	f.mixIndexes, err = mixIndexes(st, f.mixQueries)
	return err
}

// countDocuments counts the documents of an NDJSON file: its lines that
// are not blank (document.replay skips blank lines too).
func countDocuments(path string) (int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	r := bufio.NewReader(fh)
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no documents", path)
	}
	return n, nil
}

func (a *app) quickstart(ctx context.Context, cmd *cobra.Command, f *quickFlags) error {
	started := time.Now()
	st, err := study.Load("quickstart")
	if err != nil {
		return err
	}
	// --quick shrinks the study first; flags given explicitly still win.
	fl := cmd.Flags()
	if f.quick {
		st.ApplyQuick()
	}
	if err := quickProps(st, cmd, f); err != nil {
		return err
	}
	st.Threads = f.threads
	if !f.quick || fl.Changed("duration") {
		st.Duration = study.Duration(f.duration)
	}
	if !f.quick || fl.Changed("warmup") {
		st.Warmup = study.Duration(f.warmup)
	}
	if err := checkOutDir(f.out, f.force); err != nil {
		return err
	}
	if err := a.preflight(ctx, st, f.targets); err != nil {
		return err
	}
	docs, err := describeDocuments(st, f)
	if err != nil {
		return err
	}
	quick := ""
	if f.quick {
		quick = " (--quick: a smoke test, not figures to quote)"
	}
	var names []string
	for _, w := range st.Workloads {
		names = append(names, w.Name)
	}
	fmt.Fprintf(a.stderr, "docbench quickstart%s: %s records, workloads %s, %s each (+%s warm-up), %d threads, then %s; results in %s\n",
		quick, st.Properties["recordcount"], strings.Join(names, ", "), st.Duration.D(), st.Warmup.D(), st.Threads, shortSearch(st), f.out)
	progress := newStatusWriter(a.stderr)
	qa := &app{stdout: a.stdout, stderr: progress}
	m, runErr := study.Conduct(ctx, st, study.RunOptions{Out: f.out, Quick: f.quick, Keep: f.keep, ExtraTargets: f.targets, Log: progress, Engine: qa.engine()})
	progress.Done()
	if m == nil {
		return &ExitError{Code: 2, Err: runErr}
	}
	d, err := study.Read(f.out)
	if err != nil {
		return errors.Join(runErr, err)
	}
	results := map[string]map[string]*report.Result{}
	var ran []string
	for _, run := range m.Runs {
		res := d.Results[run.File]
		if res == nil || run.Capacity {
			continue
		}
		if results[run.Target] == nil {
			results[run.Target] = map[string]*report.Result{}
			ran = append(ran, run.Target)
		}
		results[run.Target][run.Workload] = res
	}
	if len(ran) == 0 {
		return errors.Join(runErr, fmt.Errorf("quickstart: no target could run"))
	}
	// The answer first, then what the study found, then the table, then
	// its caveats.
	var buf bytes.Buffer
	for _, l := range d.Markers() {
		buf.WriteString(l + "\n")
	}
	for _, l := range quickAnswer(d, st, f, docs, ran) {
		buf.WriteString(l + "\n")
	}
	buf.WriteString("\n")
	for _, l := range append(d.PlanChecks(), d.Comparisons()...) {
		buf.WriteString(l + "\n")
	}
	buf.WriteString("\n" + quickLegend(st, ran, results) + "\n")
	var skipped []string
	for _, s := range d.Skipped() {
		name, _, _ := strings.Cut(s, ": ")
		skipped = append(skipped, name)
	}
	if writeSideBySide(&buf, append(ran, skipped...), results, st.Workloads) {
		buf.WriteString("* an incomplete run (interrupted or failed): its figures cover only part of it\n")
	}
	if c := d.Caveats(); len(c) > 0 {
		buf.WriteString("\n" + strings.Join(c, "\n") + "\n")
	}
	if m.Incomplete != "" {
		fmt.Fprintf(&buf, "\nINCOMPLETE after %s (%s); results in %s\n", time.Since(started).Round(time.Second), m.Incomplete, f.out)
	} else {
		fmt.Fprintf(&buf, "\nfinished in %s; results in %s (every trial of the searches: report.html)\n", time.Since(started).Round(time.Second), f.out)
	}
	if err := report.WriteFileAtomic(filepath.Join(f.out, "summary.txt"), buf.Bytes()); err != nil {
		return err
	}
	if _, err := a.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, filepath.Join(f.out, "report.html"))
	return runErr
}

// describeDocuments says what documents the quickstart measures: how
// many, from where, their mean size as compact JSON and their depth.
func describeDocuments(st *study.File, f *quickFlags) (string, error) {
	p := workload.NewProperties()
	if err := p.LoadFile(st.Workloads[0].Workload); err != nil {
		return "", err
	}
	for k, v := range st.Properties {
		p.Set(k, v, "quickstart")
	}
	cfg, err := config(p)
	if err != nil {
		return "", err
	}
	_, docOps, err := buildDocOps(cfg, 1)
	if err != nil {
		return "", err
	}
	n := cfg.RecordCount
	what := report.FormatNumber(float64(n)) + " documents"
	switch {
	case f.replay != "":
		what += " (those of " + f.replay + ", each once)"
	case f.sample != "":
		what += " (look-alikes of those of " + f.sample + ")"
	default:
		shape, _ := p.Get("document.shape")
		if shape == "" {
			shape = "flat: YCSB's records"
		}
		what += " (generated, " + shape + ")"
	}
	// The mean size over up to 1,000 of them, spread over the keys.
	m := min(n, 1000)
	r := document.NewRand()
	var buf, key []byte
	total := 0
	for i := range m {
		k := i * max(n/m, 1)
		key = workload.AppendKey(key[:0], k, false, 0)
		buf = docOps.Shape.AppendDoc(buf[:0], key, k, r)
		total += len(buf)
	}
	depth := 0
	for _, pi := range docOps.Shape.Paths() {
		depth = max(depth, pi.Depth)
	}
	if m > 0 {
		what += fmt.Sprintf(", %s bytes each on average as JSON", report.FormatNumber(math.Round(float64(total)/float64(m))))
	}
	return what + fmt.Sprintf(", depth %d", depth), nil
}

// shortSearch says what the quickstart's capacity search gives up for
// its time.
func shortSearch(st *study.File) string {
	c := st.Capacity
	return fmt.Sprintf("a short capacity search of %s at %s (trials of %s, a band as wide as %s, at most %s per target, one round; docbench capacity searches longer)",
		c.Workload, c.SLO, c.Trial.D(), c.Precision, c.MaxTime.D())
}

// quickAnswer is the quickstart's first screen: the documents, then per
// target the sustainable rate with its band and caveats, latency at the
// rate every target ran (READ and UPDATE, or the mix's operations), the
// mix per query, storage per document; the mix's missing indexes; the
// fairness audit; what the search gave up, and how the state was kept
// comparable.
func quickAnswer(d *study.Data, st *study.File, f *quickFlags, docs string, targets []string) []string {
	out := []string{"documents: " + docs}
	if f.mixQueries != nil {
		switch ix := st.Properties["secondaryindex"]; {
		case f.mixIndexes:
			out = append(out, "indexes: secondaryindex="+ix+" on every target, for the mix's queries")
		case ix != "":
			out = append(out, "indexes: secondaryindex="+ix+" on every target (-p)")
		}
	}
	for _, t := range targets {
		line, holds, searched := capacityAnswer(d, st, t)
		out = append(out, line)
		if l := commonRateLine(d, st, f.mixQueries != nil, t, holds, searched); l != "" {
			out = append(out, l)
		}
		if f.mixQueries != nil {
			out = append(out, mixLines(d, t)...)
		}
		if b, why := d.Figure(t, "load", "SERVER", "bytes_per_document"); why == "" {
			l := "  storage: " + report.FormatNumber(math.Round(b.Median)) + " bytes per document after the load"
			if x, why := d.Figure(t, "load", "SERVER", "ratio_to_raw_json"); why == "" {
				l += fmt.Sprintf(" (%.1f× the JSON)", x.Median)
			}
			out = append(out, l)
		} else {
			out = append(out, "  storage per document: absent ("+why+")")
		}
	}
	if f.mixQueries != nil {
		if l := missingIndexes(f.mixQueries, st.Properties["secondaryindex"]); l != "" {
			out = append(out, l)
		}
	}
	var flagged []string
	for _, l := range d.Audit() {
		if !strings.HasPrefix(l, "equal: ") {
			flagged = append(flagged, l)
		}
	}
	switch {
	case len(targets) < 2:
	case len(flagged) == 0:
		out = append(out, "fairness audit: nothing flagged (durability, key index, indexes, compression, memory and clients alike)")
	default:
		for _, l := range flagged {
			out = append(out, "fairness audit: "+l)
		}
	}
	out = append(out, "what the time gave up: "+shortSearch(st))
	var order []string
	for _, w := range st.Workloads {
		order = append(order, w.Name)
	}
	end := "the table was then dropped: no workload ran on the table the search's updates grew"
	if f.keep {
		end = "the table was kept (--keep): no workload ran on it after the search's updates grew it"
	}
	ran := " ran on the table as loaded, the capacity search last; "
	if f.mixQueries != nil {
		ran = " ran in this order on the table loaded once (each on what the ones before it left), the capacity search last; "
	}
	return append(out, "comparable state: on each target "+strings.Join(order, ", then ")+ran+end)
}

// capacityAnswer is target t's line of its sustainable rate, the rate that
// held (0 for none) and whether a search ran.
func capacityAnswer(d *study.Data, st *study.File, t string) (line string, holds float64, searched bool) {
	line = t + ": "
	for _, run := range d.Manifest.Runs {
		if run.Target != t || !run.Capacity {
			continue
		}
		searched = true
		if res := d.Results[run.File]; res != nil && res.Capacity != nil {
			line += "sustainable rate (" + st.Capacity.Workload + "): " + report.CapacityLine(res.Capacity)
			holds = res.Capacity.Rate
		} else {
			line += "capacity search failed: " + run.Error
		}
	}
	if !searched {
		line += "no capacity search ran"
	}
	return line, holds, searched
}

// commonRateLine is target t's latency at the rate every target ran: READ
// and UPDATE, or with a mix each of its operations; "" when no workload
// ran at a common rate.
func commonRateLine(d *study.Data, st *study.File, mix bool, t string, holds float64, searched bool) string {
	rate, fixed := "", ""
	for _, w := range st.Workloads {
		if v := w.Properties["target"]; v != "" {
			rate, fixed = v, w.Name
		}
	}
	if fixed == "" {
		return ""
	}
	ops := []string{"READ", "UPDATE"}
	if mix {
		ops = opsOf(d, t, fixed)
	}
	var parts []string
	for _, op := range ops {
		parts = append(parts, op+" "+latencies(d, t, fixed, op))
	}
	if len(parts) == 0 {
		parts = []string{"not measured"}
	}
	l := fmt.Sprintf("  at %s ops/s (%s, the same rate on every target; latency from the intended start): %s", rate, fixed, strings.Join(parts, "; "))
	switch r, _ := strconv.ParseFloat(rate, 64); {
	case searched && holds == 0:
		l += " — its search found no rate that held: this may be an overloaded target's latency"
	case searched && holds < r:
		l += " — above the " + report.FormatNumber(holds) + " ops/s it holds: an overloaded target's latency"
	}
	return l
}

// writeSideBySide prints throughput and p50/p99 per operation, targets side
// by side, marking incomplete runs with "*"; it reports whether it did.
func writeSideBySide(w io.Writer, targets []string, results map[string]map[string]*report.Result, wls []study.WorkloadSpec) (marked bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\toperation\t")
	for _, t := range targets {
		fmt.Fprintf(tw, "%s ops/s\tp50 µs\tp99 µs\terrors\t", t)
	}
	fmt.Fprintln(tw)
	names := []string{"load"}
	for _, w := range wls {
		names = append(names, w.Name)
	}
	for _, wl := range names {
		rows := []*quickRow{{workload: wl, op: "[OVERALL]", byTarget: map[string]report.Op{}}}
		index := map[string]*quickRow{}
		for _, t := range targets {
			res := results[t][wl]
			if res == nil {
				continue
			}
			rows[0].byTarget[t] = report.Op{Count: res.Operations, Throughput: res.Throughput}
			for _, op := range res.Ops {
				r := index[op.Name]
				if r == nil {
					r = &quickRow{workload: wl, op: op.Name, byTarget: map[string]report.Op{}}
					index[op.Name] = r
					rows = append(rows, r)
				}
				r.byTarget[t] = op
			}
		}
		label := wl
		for _, t := range targets {
			if res := results[t][wl]; res != nil && !res.Complete {
				label, marked = wl+" *", true
			}
		}
		for _, r := range rows {
			name := r.op
			if name == "INSERT-BATCH" {
				name += " (" + batchSizes(targets, results, wl) + " docs)"
			}
			fmt.Fprintf(tw, "%s\t%s\t", label, name)
			for _, t := range targets {
				op, ok := r.byTarget[t]
				switch {
				case results[t] == nil && r.op == "[OVERALL]":
					fmt.Fprint(tw, "skipped\t\t\t\t") // the reason is under the table
				case !ok:
					fmt.Fprint(tw, "-\t-\t-\t-\t")
				case op.Service == nil:
					fmt.Fprintf(tw, "%.0f\t\t\t%s\t", op.Throughput, errCell(op, r.op))
				default:
					l := op.Service // at a target rate: from the intended start
					if op.Response != nil {
						l = op.Response
					}
					fmt.Fprintf(tw, "%.0f\t%.0f\t%.0f\t%d\t", op.Throughput, l.P50, l.P99, op.Errors)
				}
			}
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
	return marked
}

// quickLegend says in one line what the table's workloads are: YCSB A and
// C, and the load's batches.
func quickLegend(st *study.File, targets []string, results map[string]map[string]*report.Result) string {
	var parts []string
	for _, w := range st.Workloads {
		d := w.Name + " = " + study.Describe(st, w)
		if r := w.Properties["target"]; r != "" {
			d += " (" + r + " ops/s on every target: latency from the intended start)"
		}
		parts = append(parts, d)
	}
	if b := batchSizes(targets, results, "load"); b != "" {
		parts = append(parts, "load = batches of "+b+" documents (INSERT-BATCH counts batches, [OVERALL] documents)")
	}
	return strings.Join(parts, "; ")
}

// batchSizes is the load's batch size ("500"), or the targets' sizes when
// they differ ("postgres 500, mongodb 100"); "" without batches.
func batchSizes(targets []string, results map[string]map[string]*report.Result, wl string) string {
	var sizes []string
	seen := map[int]bool{}
	for _, t := range targets {
		if res := results[t][wl]; res != nil && res.Options.BatchSize > 0 {
			sizes = append(sizes, t+" "+strconv.Itoa(res.Options.BatchSize))
			seen[res.Options.BatchSize] = true
		}
	}
	if len(seen) == 1 {
		for n := range seen {
			return strconv.Itoa(n)
		}
	}
	return strings.Join(sizes, ", ")
}

func errCell(op report.Op, name string) string {
	if name == "[OVERALL]" {
		return ""
	}
	return strconv.FormatInt(op.Errors, 10)
}

// statusWriter passes a study's progress to stderr, but for the capacity
// trials' lines ("trial N …"): on a terminal they become one status line,
// rewritten in place; elsewhere they are left out (the study says when a
// search starts and what it found, and report.html has every trial).
type statusWriter struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	width   int
	partial []byte
	showing bool // a status line is on the terminal
}

func newStatusWriter(w io.Writer) *statusWriter {
	s := &statusWriter{w: w, width: 80}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		s.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 10 {
			s.width = cols
		}
	}
	return s
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, b...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if err := s.line(line); err != nil {
			return len(b), err
		}
	}
	return len(b), nil
}

func (s *statusWriter) line(l string) error {
	var err error
	switch trial := strings.HasPrefix(l, "trial "); {
	case trial && s.tty:
		if r := []rune(l); len(r) > s.width-1 {
			l = string(r[:s.width-2]) + "…"
		}
		_, err = fmt.Fprint(s.w, "\r\033[K"+l)
		s.showing = true
	case trial:
	default:
		if s.showing {
			fmt.Fprint(s.w, "\r\033[K")
			s.showing = false
		}
		_, err = fmt.Fprintln(s.w, l)
	}
	return err
}

// Done clears the status line.
func (s *statusWriter) Done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.showing {
		fmt.Fprint(s.w, "\r\033[K")
		s.showing = false
	}
}
