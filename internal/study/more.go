package study

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/runner"
)

// Rounds added for claims. After the study's rounds, a claim whose
// rounds' spread is comparable to its effect (MoreRounds) gets more rounds
// of the series its verdict rests on, batch by batch, each batch as many
// as its spread asks for, until it is decided or its series have run the
// study's max_rounds. A batch runs as the study's rounds do: target by
// target, a group of points loading its data first, the picked series
// alternating within each round, round numbers continuing the group's.

// Series is one series of a study's runs: a target's workload (or its
// load, or its capacity search) at a point.
type Series struct {
	Target, Workload string
	Point            []KV
	Capacity         bool
}

// RoundsWanted is a claim left inconclusive because its rounds' spread is
// comparable to its effect: the series its verdict rests on (its sides',
// and the floor's when it has one) and the rounds beyond its sides' that
// the spread asks for.
type RoundsWanted struct {
	Says   string
	More   int
	Series []Series
}

// id identifies a series.
func (s Series) id() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%t", s.Target, s.Workload, pointID(s.Point), s.Capacity)
}

// batch is one batch of added rounds: how many rounds each series gets
// (by Series.id) and the claims they are added for.
type batch struct {
	add    map[string]int
	says   map[string][]string // the claims, by series
	series map[string]Series
	lines  []string // what it adds, a line per claim
}

// planBatch plans the next batch: each wanted claim's series get the
// rounds its spread asks for, up to bound rounds run of each (ran); a
// claim with a series given up (gaveUp) gets none. Nil when nothing is
// to be added.
func planBatch(wants []RoundsWanted, ran func(Series) int, bound int, gaveUp map[string]bool) *batch {
	b := &batch{add: map[string]int{}, says: map[string][]string{}, series: map[string]Series{}}
	for _, w := range wants {
		if slices.ContainsFunc(w.Series, func(s Series) bool { return gaveUp[s.id()] }) {
			continue
		}
		most := 0
		var names []Series
		for _, s := range w.Series {
			n := min(w.More, bound-ran(s))
			if n <= 0 {
				continue
			}
			id := s.id()
			b.add[id] = max(b.add[id], n)
			b.says[id] = appendOnce(b.says[id], w.Says)
			b.series[id] = s
			most = max(most, n)
			names = append(names, s)
		}
		if most > 0 {
			b.lines = append(b.lines, fmt.Sprintf("adding %d rounds of %s: %s — spread comparable to effect", most, seriesNames(names), w.Says))
		}
	}
	if len(b.add) == 0 {
		return nil
	}
	return b
}

// seriesNames says which series: "a and b at document.depth=1".
func seriesNames(ss []Series) string {
	var parts []string
	same := true
	for _, s := range ss {
		same = same && pointID(s.Point) == pointID(ss[0].Point)
	}
	for _, s := range ss {
		p := s.Target + " " + s.Workload
		if s.Capacity {
			p += " capacity"
		}
		if !same {
			p += " at " + pointID(s.Point)
		}
		parts = append(parts, p)
	}
	out := strings.Join(parts, " and ")
	if same && len(ss[0].Point) > 0 {
		out += " at " + pointID(ss[0].Point)
	}
	return out
}

// runs counts the workload runs the batch adds (the runs the progress
// line counts: loads and searches are not; a search comes with its run).
func (b *batch) runs() int {
	n := map[string]int{}
	for id, k := range b.add {
		if s := b.series[id]; s.Workload != loadWorkload {
			s.Capacity = false
			n[s.id()] = max(n[s.id()], k)
		}
	}
	total := 0
	for _, k := range n {
		total += k
	}
	return total
}

// inGroup reports whether series s belongs to target's group of points.
func inGroup(s Series, target string, points [][]KV) bool {
	return s.Target == target && slices.ContainsFunc(points, func(pt []KV) bool { return pointID(pt) == pointID(s.Point) })
}

// rounds is the most rounds the batch adds to a series of target's group.
func (b *batch) rounds(target string, points [][]KV) int {
	n := 0
	for id, k := range b.add {
		if inGroup(b.series[id], target, points) {
			n = max(n, k)
		}
	}
	return n
}

// claims are the claims the batch adds rounds for in target's group (nil
// for the study's own rounds).
func (b *batch) claims(target string, points [][]KV) []string {
	if b == nil {
		return nil
	}
	var out []string
	for id, says := range b.says {
		if inGroup(b.series[id], target, points) {
			for _, s := range says {
				out = appendOnce(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// picks reports whether the j-th round of the batch runs workload w at
// pt, and its capacity search (every series when b is nil).
func (b *batch) picks(target, w string, pt []KV, j int) (run, search bool) {
	if b == nil {
		return true, true
	}
	search = b.add[Series{target, w, pt, true}.id()] > j
	return search || b.add[Series{target, w, pt, false}.id()] > j, search
}

// load reports whether the j-th round of the batch loads the group's
// data for a claim on the load itself.
func (b *batch) load(target string, points [][]KV, j int) bool {
	return b != nil && b.add[Series{target, loadWorkload, points[0], false}.id()] > j
}

// why are the claims workload w at pt (or its search) is added for.
func (b *batch) why(target, w string, pt []KV) []string {
	out := append([]string(nil), b.says[Series{target, w, pt, false}.id()]...)
	for _, s := range b.says[Series{target, w, pt, true}.id()] {
		out = appendOnce(out, s)
	}
	return out
}

// ranOf counts the rounds run of series s (an error counts: the round
// ran; a point not applicable does not).
func (m *Manifest) ranOf(s Series) int {
	n := 0
	for _, run := range m.Runs {
		if run.Target == s.Target && run.Workload == s.Workload && run.Capacity == s.Capacity && run.NotApplicable == "" &&
			pointID(run.Point) == pointID(s.Point) {
			n++
		}
	}
	return n
}

// lastRound is the last round any run of target's group recorded.
func (m *Manifest) lastRound(target string, points [][]KV) int {
	n := 0
	for _, run := range m.Runs {
		if inGroup(Series{Target: run.Target, Point: run.Point}, target, points) {
			n = max(n, run.Round)
		}
	}
	return n
}

// addRounds adds rounds for the claims the study's rounds left
// inconclusive for their spread, batch by batch (not in a quick run).
func (r *studyRun) addRounds(ctx context.Context) error {
	if r.opts.Quick || len(r.f.Claims) == 0 || ctx.Err() != nil {
		return nil
	}
	bound := r.f.maxRounds()
	gaveUp := map[string]bool{}
	for {
		if err := r.save(); err != nil {
			return err
		}
		d, err := Read(r.opts.Out)
		if err != nil {
			return err
		}
		b := planBatch(d.MoreRounds(), r.m.ranOf, bound, gaveUp)
		if b == nil {
			return nil
		}
		for _, l := range b.lines {
			r.logf("%s", l)
		}
		before := map[string]int{}
		for id, s := range b.series {
			before[id] = r.m.ranOf(s)
		}
		r.total += b.runs()
		if err := r.runBatch(ctx, b); err != nil {
			return err
		}
		// A series the batch could not run (its target did not open, its
		// load failed) is not tried again.
		for id, s := range b.series {
			if r.m.ranOf(s) == before[id] {
				gaveUp[id] = true
			}
		}
	}
}

// runBatch runs a batch target by target, group by group, as the study's
// rounds run; on cancellation or an error the manifest says how far it got.
func (r *studyRun) runBatch(ctx context.Context, b *batch) error {
	for _, t := range r.targets {
		groups, err := r.groups(t)
		if err != nil {
			return err
		}
		for _, points := range groups {
			n := b.rounds(t.Name, points)
			if n == 0 {
				continue
			}
			first := r.m.lastRound(t.Name, points) + 1
			err := r.runRounds(ctx, t, points, first, first+n-1, b)
			if ctx.Err() != nil {
				r.m.Incomplete = fmt.Sprintf("interrupted after %d of %d runs (in rounds added for claims)", r.done, r.total)
				return runner.ErrInterrupted
			}
			if err != nil {
				r.m.Incomplete = fmt.Sprintf("failed after %d of %d runs (in rounds added for claims): %v", r.done, r.total, err)
				return err
			}
		}
	}
	return nil
}

// addFailed records why a group's added rounds could not run (its target
// did not open, its load failed): the study's own rounds stand.
func (g *group) addFailed(reason string) error {
	g.m.Runs = append(g.m.Runs, Run{Target: g.t.Name, Workload: loadWorkload, Point: g.points[0], Round: g.first,
		Error: "rounds added for claims: " + reason, AddedFor: g.addedFor})
	g.logf("%s %s: rounds added for claims: %s", g.t.Name, pointID(g.points[0]), reason)
	if err := g.save(); err != nil {
		return err
	}
	return errSkip
}

// mayAskForRounds reports whether claim c's verdict can ask for rounds: an
// order, or a ratio stating a direction (an equivalence never does).
func (c *Claim) mayAskForRounds() bool {
	if len(c.Order) > 0 {
		return true
	}
	rr, ok := parseRatio(c.Ratio)
	return ok && (rr.Lo >= 1 && math.IsInf(rr.Hi, 1) || rr.Lo == 0 && rr.Hi <= 1)
}

// addedEstimate is the most the rounds added for claims can take: every
// series of a claim that may ask for rounds, run up to the study's bound,
// each added round of a group after a load of its data (batches of one
// round). load is how long a load of target t's data at point pt takes;
// search is a capacity search's bound.
func (r *studyRun) addedEstimate(load func(t TargetSpec, pt []KV) (time.Duration, error), search time.Duration) (time.Duration, error) {
	f := r.f
	extra := f.maxRounds() - f.Rounds
	if r.opts.Quick || extra <= 0 {
		return 0, nil
	}
	seen := map[string]bool{}
	var total time.Duration
	for i := range f.Claims {
		c := &f.Claims[i]
		if !c.mayAskForRounds() {
			continue
		}
		sides := append([]Side(nil), c.Order...)
		if len(sides) == 0 {
			sides = []Side{c.A, c.B}
		}
		if metric, _, _ := strings.Cut(c.Y, ":"); f.Floor != nil && contains(latencyMetrics, metric) {
			sides = append(sides, f.Floor.side())
		}
		for _, s := range sides {
			s = c.resolve(s)
			wl := s.Workload
			if wl == "" && len(f.Workloads) == 1 {
				wl = f.Workloads[0].Name
			}
			for _, t := range r.targets {
				if t.Name != s.Target || wl == "" {
					continue
				}
				groups, err := r.groups(t)
				if err != nil {
					return 0, err
				}
				for _, pts := range groups {
					for _, pt := range pts {
						id := Series{t.Name, wl, pt, false}.id()
						if !pointMatches(pt, s.Point) || seen[id] {
							continue
						}
						seen[id] = true
						if g := (Series{t.Name, loadWorkload, pts[0], true}).id(); !seen[g] { // the group's load
							seen[g] = true
							l, err := load(t, pts[0])
							if err != nil {
								return 0, err
							}
							total += l
						}
						if wl != loadWorkload {
							total += f.Warmup.D() + f.Duration.D()
						}
						if c.Y == CapacityMetric+":"+CapacityOp {
							total += search
						}
					}
				}
			}
		}
	}
	return time.Duration(extra) * total, nil
}
