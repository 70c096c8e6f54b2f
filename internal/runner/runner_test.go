package runner

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/workload"
)

func setup(t testing.TB, target string, props map[string]string) (db.Store, *workload.Workload, *DocOps) {
	t.Helper()
	return setupStore(t, target, props, true)
}

// setupNoRecreate opens a target whose table exists, keeping its data.
func setupNoRecreate(t testing.TB, target string, props map[string]string) (db.Store, *workload.Workload, *DocOps) {
	t.Helper()
	return setupStore(t, target, props, false)
}

func setupStore(t testing.TB, target string, props map[string]string, recreate bool) (db.Store, *workload.Workload, *DocOps) {
	t.Helper()
	wl, docOps := newDocOps(t, "workloada", props)
	store, err := db.Open(context.Background(), db.OpenRequest{Target: target, Props: wl.Config().Props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if recreate {
		if err := store.Setup(context.Background(), docOps.Schema(), true); err != nil {
			t.Fatal(err)
		}
	}
	return store, wl, docOps
}

func count(o *Outcome, name string) int64 {
	for i, n := range o.Names {
		if n == name {
			return o.Totals.Service[i].TotalCount() + o.Totals.Errors[i]
		}
	}
	return -1
}

// underWay is an Options.Stderr that closes c at the first status line
// counting operations done: the run's own word that it is under way, for
// a test that acts on a run in progress.
type underWay struct {
	once sync.Once
	c    chan struct{}
}

func newUnderWay() *underWay { return &underWay{c: make(chan struct{})} }

var opsDone = regexp.MustCompile(`: [1-9][0-9]* operations`)

func (w *underWay) Write(p []byte) (int, error) {
	if opsDone.Match(p) {
		w.once.Do(func() { close(w.c) })
	}
	return len(p), nil
}

func TestClosedLoopRunsOperationCount(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "10001"})
	out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Complete || out.Ops != 10001 {
		t.Fatalf("complete=%v ops=%d, want complete 10001", out.Complete, out.Ops)
	}
	if r, u := count(out, "READ"), count(out, "UPDATE"); r+u != 10001 || r < 4500 || u < 4500 {
		t.Fatalf("READ %d + UPDATE %d: want 10001 split about 50/50 (workload A)", r, u)
	}
	if len(out.Totals.Service) != int(workload.NumOps) {
		t.Fatalf("%d histograms", len(out.Totals.Service))
	}
}

// The load phase writes exactly the keys YCSB would load: user+FNV(k) for
// k in [insertstart, insertstart+insertcount), once each, whatever the
// number of threads or the batch size.
func TestLoadWritesExactlyYCSBKeys(t *testing.T) {
	for _, batch := range []string{"1", "7"} {
		t.Run("batchsize="+batch, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "l.db")
			store, wl, gen := setup(t, "sqlite:"+path, map[string]string{"recordcount": "1000", "insertstart": "100",
				"insertcount": "500", "batchsize": batch})
			out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Load, Threads: 3})
			if err != nil {
				t.Fatal(err)
			}
			if out.Ops != 500 || !out.Complete {
				t.Fatalf("loaded %d, complete %v", out.Ops, out.Complete)
			}
			s, _ := store.NewSession(context.Background())
			defer s.Close()
			th := wl.NewThread(0)
			var want []string
			for k := int64(100); k < 600; k++ {
				key := th.AppendKey(nil, k)
				want = append(want, string(key))
				if _, err := s.Read(context.Background(), key, nil, nil); err != nil {
					t.Fatalf("key %s (keynum %d): %v", key, k, err)
				}
			}
			n, err := s.Scan(context.Background(), []byte(""), 10000, nil)
			if err != nil || n != 500 {
				t.Fatalf("table holds %d records (%v), want 500", n, err)
			}
			sort.Strings(want)
			if want[0] == want[1] {
				t.Fatal("duplicate keys")
			}
		})
	}
}

func TestDurationStopsRun(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000000000"})
	t0 := time.Now()
	out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: 2, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > 30*time.Second { // a hang, not a slow machine
		t.Fatalf("took %s", el)
	}
	if !out.Complete || out.Stopped != "duration" || out.Ops == 0 {
		t.Fatalf("complete=%v stopped=%q ops=%d", out.Complete, out.Stopped, out.Ops)
	}
}

// TestEnoughEndsTheRunEarly: Options.Enough sees each second's interval,
// in the names' order with its histograms, and ends the phase, complete,
// when it has seen enough.
func TestEnoughEndsTheRunEarly(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000000000"})
	seen := 0
	enough := func(names []string, iv *measure.Interval) bool {
		seen++
		if len(names) != len(iv.Ops) || len(iv.Encoded) != len(iv.Ops) || iv.Count() == 0 {
			t.Errorf("interval %d: names %v, %d ops, %d encoded, %d operations", seen, names, len(iv.Ops), len(iv.Encoded), iv.Count())
		}
		return seen == 2
	}
	out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: 2, Rate: 500, Duration: time.Minute,
		EncodeIntervals: true, Enough: enough})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Complete || out.EndedBy != "enough" || seen != 2 || out.Elapsed() > 30*time.Second {
		t.Fatalf("complete=%v ended by %q after %d intervals, %s", out.Complete, out.EndedBy, seen, out.Elapsed())
	}
}

func TestCancelWritesPartialOutcome(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000000000"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := newUnderWay()
	go func() { <-ran.c; cancel() }()
	out, err := Execute(ctx, store, wl, gen, Options{Phase: Run, Threads: 2, Status: time.Second, Stderr: ran})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if out == nil || out.Complete || out.Stopped != "interrupted" || out.Ops == 0 {
		t.Fatalf("outcome %+v", out)
	}
}

func TestWarmupIsExcluded(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000000000"})
	t0 := time.Now()
	out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: 1,
		Warmup: 300 * time.Millisecond, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if out.Start.Sub(t0) < 300*time.Millisecond {
		t.Fatalf("measured part starts %s after the call: warm-up not excluded", out.Start.Sub(t0))
	}
	var measured int64
	for i := range out.Names {
		measured += out.Totals.Service[i].TotalCount()
	}
	// Operations in flight when the warm-up ended may land on either side.
	if d := measured - out.Ops; d < -2 || d > 2 {
		t.Fatalf("histograms hold %d operations, counter %d", measured, out.Ops)
	}
}

// stallSession wraps a session and stalls once, as a server pausing for a
// checkpoint would: the harness must charge the stall to every operation
// that was due during it (coordinated omission).
type stallSession struct {
	db.Session
	calls *atomic.Int64
	at    int64
	stall time.Duration
}

func (s stallSession) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	if s.calls.Add(1) == s.at {
		time.Sleep(s.stall)
	}
	return s.Session.Read(ctx, key, fields, dst)
}

func (s stallSession) Update(ctx context.Context, key []byte, u *db.Update) error {
	if s.calls.Add(1) == s.at {
		time.Sleep(s.stall)
	}
	return s.Session.Update(ctx, key, u)
}

type stallStore struct {
	db.Store
	calls atomic.Int64
}

func (s *stallStore) NewSession(ctx context.Context) (db.Session, error) {
	inner, err := s.Store.NewSession(ctx)
	return stallSession{Session: inner, calls: &s.calls, at: 200, stall: stall}, err
}

// stall is how long stallSession stalls.
const stall = 200 * time.Millisecond

func TestOpenLoopMeasuresFromIntendedStart(t *testing.T) {
	store, wl, gen := setup(t, "null:", map[string]string{"recordcount": "1000", "operationcount": "1000"})
	out, err := Execute(context.Background(), &stallStore{Store: store}, wl, gen, Options{Phase: Run, Threads: 1, Rate: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if out.Totals.Response == nil {
		t.Fatal("no response-time histograms under a target rate")
	}
	all := func(hs []*hdr.Histogram) (h *hdr.Histogram) {
		h = measure.NewHistogram()
		for _, x := range hs {
			h.Merge(x)
		}
		return h
	}
	service, response := all(out.Totals.Service), all(out.Totals.Response)
	// One operation took 200 ms; about 200 operations were due during it.
	if service.ValueAtQuantile(90) >= int64(stall/4) {
		t.Fatalf("service p90 %v: only one operation stalled", time.Duration(service.ValueAtQuantile(90)))
	}
	if response.ValueAtQuantile(90) < int64(20*time.Millisecond) {
		t.Fatalf("response p90 %v: the operations queued behind the stall were not charged", time.Duration(response.ValueAtQuantile(90)))
	}
	// The last operation is due 999 ms in and never starts early; longer
	// than a generous bound is a hang, not a slow machine.
	if el := out.Elapsed(); el < 900*time.Millisecond || el > 30*time.Second {
		t.Fatalf("1000 ops at 1000/s took %s", el)
	}
	// The queue behind the stall is the target's doing: those operations
	// count as behind, and not as the harness's schedule lag.
	lag := out.ScheduleLag
	if lag == nil || lag.TotalCount() != 1000 {
		t.Fatalf("schedule lag %v, want one value per operation", lag)
	}
	if out.Behind < 150 {
		t.Fatalf("%d operations behind schedule, want at least the ~200 due during the 200 ms stall", out.Behind)
	}
	// Charged to the harness, the backlog would put the lag's p90 near the
	// response time's (tens of ms).
	if p90 := lag.ValueAtQuantile(90); p90 > response.ValueAtQuantile(90)/2 {
		t.Fatalf("schedule lag p90 %v against response p90 %v: the stall's backlog was charged to the harness",
			time.Duration(p90), time.Duration(response.ValueAtQuantile(90)))
	}
}

// BenchmarkStep measures the per-operation path against null: (workload A).
func BenchmarkStep(b *testing.B) {
	for _, name := range []string{"workloada", "workloadb", "workloade", "workloadf", "workloada+rate"} {
		// +rate: the open-loop path (schedule lag, latency from the intended start).
		wlName, paced := strings.CutSuffix(name, "+rate")
		b.Run(name, func(b *testing.B) {
			p := workload.NewProperties()
			if err := p.LoadFile(wlName); err != nil {
				b.Fatal(err)
			}
			p.Set("recordcount", "100000", "bench")
			cfg, err := workload.ParseConfig(p, workload.Known{})
			if err != nil {
				b.Fatal(err)
			}
			wl, _ := workload.New(cfg, 1)
			store, _ := db.Open(context.Background(), db.OpenRequest{Target: "null:"})
			sess, _ := store.NewSession(context.Background())
			shape, _ := document.New(document.Spec{FieldCount: 10, FieldNamePrefix: "field", FieldLengths: wl.FieldLengths()}, 1)
			docOps, err := NewDocOps(wl, shape, 1)
			if err != nil {
				b.Fatal(err)
			}
			reg := measure.NewRegistry(opNames(docOps, false), paced)
			w := &worker{sess: sess, wl: wl, th: wl.NewThread(0), docOps: docOps,
				rec: reg.NewRecorder(), drng: document.NewRand()}
			w.prepare()
			var intended time.Time
			if paced {
				w.lag = measure.NewPacked()
				intended = time.Now()
				w.from = intended
			}
			ctx := context.Background()
			r := w.th.Rand()
			b.ReportAllocs()
			for b.Loop() {
				w.step(ctx, cfg, r, intended)
			}
		})
	}
}

// BenchmarkHarness runs whole phases against null: on one thread and reports
// the operations per second the harness sustains.
func BenchmarkHarness(b *testing.B) {
	store, wl, gen := setup(b, "null:", map[string]string{"recordcount": "100000", "operationcount": strconv.Itoa(2_000_000)})
	var ops int64
	var el time.Duration
	for b.Loop() {
		out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		ops += out.Ops
		el += out.Elapsed()
	}
	b.ReportMetric(float64(ops)/el.Seconds(), "ops/s")
}
