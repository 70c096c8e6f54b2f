package workload

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParseShard(t *testing.T) {
	env := func(v string, set bool) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k != JobIndexEnv {
				t.Fatalf("looked up %s", k)
			}
			return v, set
		}
	}
	for _, tc := range []struct {
		in   string
		env  func(string) (string, bool)
		want Shard
		err  string
	}{
		{in: "0/4", want: Shard{0, 4}},
		{in: "3/4", want: Shard{3, 4}},
		{in: "0/1", want: Shard{0, 1}},
		{in: "auto/3", env: env("2", true), want: Shard{2, 3}},
		{in: "auto/3", env: env("3", true), err: `--shard "auto/3" (JOB_COMPLETION_INDEX=3): K must be 0 … 2`},
		{in: "auto/3", env: env("", false), err: "JOB_COMPLETION_INDEX is not set"},
		{in: "4/4", err: "K must be 0 … 3 (shards are numbered from 0"},
		{in: "-1/4", err: "K must be 0 … 3"},
		{in: "1/0", err: "N must be a whole number of shards ≥ 1"},
		{in: "x/2", err: "K must be a whole number"},
		{in: "2", err: "want K/N"},
	} {
		if tc.env == nil {
			tc.env = env("", false)
		}
		got, err := ParseShard(tc.in, tc.env)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestShardSplitCoversExactly(t *testing.T) {
	for _, total := range []int64{0, 1, 7, 100, 1001} {
		for n := 1; n <= 9; n++ {
			next := int64(0)
			for k := range n {
				off, c := Shard{k, n}.Split(total)
				if off != next {
					t.Fatalf("total %d shard %d/%d starts at %d, want %d", total, k, n, off, next)
				}
				next += c
			}
			if next != total {
				t.Fatalf("total %d over %d shards covers %d", total, n, next)
			}
		}
	}
}

// shardWorkload builds shard s of the workload given by kv.
func shardWorkload(t *testing.T, s Shard, kv ...string) *Workload {
	t.Helper()
	p := NewProperties()
	if err := p.LoadFile("workloada"); err != nil {
		t.Fatal(err)
	}
	for _, x := range kv {
		if err := p.ParseOverride(x); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.ApplyShard(s)
	w, err := New(cfg, 42)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func loadKeys(w *Workload, threads int) []string {
	var mu sync.Mutex
	var keys []string
	var wg sync.WaitGroup
	for i := range threads {
		wg.Go(func() {
			th := w.NewThread(i)
			for {
				k, ok := th.NextLoadKeynum()
				if !ok {
					return
				}
				key := string(th.AppendKey(nil, k))
				mu.Lock()
				keys = append(keys, key)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(keys)
	return keys
}

// N shard loads together hand out exactly the key names one load does.
func TestShardLoadsEqualOneLoad(t *testing.T) {
	kv := []string{"recordcount=5000", "insertstart=1003", "insertcount=3001"}
	want := loadKeys(shardWorkload(t, Shard{}, kv...), 3)
	if len(want) != 3001 {
		t.Fatalf("one load: %d keys", len(want))
	}
	for _, n := range []int{2, 3, 7} {
		var got []string
		for k := range n {
			got = append(got, loadKeys(shardWorkload(t, Shard{k, n}, kv...), 2)...)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%d shards: %d keys, not the %d of one load", n, len(got), len(want))
		}
	}
}

func TestApplyShard(t *testing.T) {
	var sum int64
	var rate float64
	for k := range 3 {
		w := shardWorkload(t, Shard{k, 3}, "recordcount=100", "operationcount=1000", "target=900")
		sum += w.Config().OperationCount
		rate += w.Config().Target
		if w.Config().Target != 300 {
			t.Errorf("shard %d: target %g", k, w.Config().Target)
		}
	}
	if sum != 1000 || rate != 900 {
		t.Errorf("shares sum to %d operations, %g ops/s", sum, rate)
	}
	w := shardWorkload(t, Shard{1, 3}, "recordcount=100", "operationcount=0")
	if w.Config().OperationCount != 0 {
		t.Errorf("operationcount=0 (no limit) became %d", w.Config().OperationCount)
	}
	if s, n := w.Keyspace(); s != 0 || n != 100 {
		t.Errorf("keyspace of a shard: %d+%d", s, n)
	}
}

// Shards insert disjoint keys, draw different random streams, and read
// only the loaded records and their own acknowledged inserts.
func TestShardInsertsAndReads(t *testing.T) {
	const records, n = 1000, 3
	for _, dist := range []string{DistLatest, DistUniform, DistZipfian, DistExponential} {
		inserted := map[int64]int{}
		var firstOps [n][]Op
		for k := range n {
			w := shardWorkload(t, Shard{k, n}, "recordcount=1000", "operationcount=3000",
				"insertproportion=0.5", "readproportion=0.5", "updateproportion=0", "requestdistribution="+dist)
			th := w.NewThread(0)
			own := map[int64]bool{}
			for i := range 2000 {
				op := th.NextOp()
				if i < 20 {
					firstOps[k] = append(firstOps[k], op)
				}
				if op == OpInsert {
					key := th.NextInsertKeynum()
					if key < records || (key-records)%n != int64(k) {
						t.Fatalf("%s: shard %d inserted key number %d", dist, k, key)
					}
					if prev, dup := inserted[key]; dup {
						t.Fatalf("%s: key number %d inserted by shards %d and %d", dist, key, prev, k)
					}
					inserted[key] = k
					own[key] = true
					w.Acknowledge(key)
					continue
				}
				key := th.NextKeynum()
				if key >= records && !own[key] {
					t.Fatalf("%s: shard %d read key number %d, which it did not insert", dist, k, key)
				}
			}
		}
		if slices.Equal(firstOps[0], firstOps[1]) || slices.Equal(firstOps[1], firstOps[2]) {
			t.Errorf("%s: shards replay each other's operation choices", dist)
		}
		// Together the shards' inserts fill a contiguous range with few gaps
		// at the end (each shard inserts about the same number).
		var keys []int64
		for key := range inserted {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		if keys[0] != records {
			t.Errorf("%s: first inserted key number %d", dist, keys[0])
		}
	}
}

// An unsharded workload keeps its random stream (results stay comparable
// with those of earlier versions).
func TestUnshardedStreamUnchanged(t *testing.T) {
	a := shardWorkload(t, Shard{}, "recordcount=100").NewThread(3)
	b := shardWorkload(t, Shard{0, 1}, "recordcount=100").NewThread(3)
	for range 100 {
		if a.Rand().Uint64() != b.Rand().Uint64() {
			t.Fatal("0/1 draws another stream than no shard")
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "auto/3", "3/3", "x/y", "/", "-1/-1"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, s, idx string) {
		sh, err := ParseShard(s, func(string) (string, bool) { return idx, true })
		if err == nil && (sh.Index < 0 || sh.Index >= sh.Count || sh.Count < 1) {
			t.Fatalf("%q → %+v", s, sh)
		}
	})
}

// A shard's key choices and inserts stay allocation-free.
func BenchmarkShardThread(b *testing.B) {
	for _, dist := range []string{DistLatest, DistZipfian} {
		b.Run(dist, func(b *testing.B) {
			p := NewProperties()
			_ = p.LoadFile("workloadd")
			p.Set("requestdistribution", dist, "bench")
			p.Set("recordcount", "100000", "bench")
			cfg, err := ParseConfig(p, Known{})
			if err != nil {
				b.Fatal(err)
			}
			cfg.ApplyShard(Shard{Index: 2, Count: 4})
			w, err := New(cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			th := w.NewThread(0)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				k := th.NextInsertKeynum()
				w.Acknowledge(k)
				buf = th.AppendKey(buf[:0], th.NextKeynum())
			}
		})
	}
}
