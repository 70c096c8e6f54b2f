package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3"

	"github.com/docbench/docbench/internal/measure"
	"github.com/docbench/docbench/internal/merge"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

// shards runs n shard processes of a phase in-process, concurrently, each
// with args plus --shard K/N and --out DIR/shard-K.json, and returns the
// result files.
func shards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	files := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]string, n)
	for k := range n {
		files[k] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		wg.Go(func() {
			a := append(append([]string(nil), args...), "--shard", fmt.Sprintf("%d/%d", k, n), "--out", files[k],
				"--status", "0", "--format", "json")
			if _, stderr, code := docbench(t, a...); code != 0 {
				errs[k] = fmt.Sprintf("shard %d/%d: exit %d: %s", k, n, code, stderr)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	return files
}

// storedDocs reads every key and document of the docbench table.
func storedDocs(t *testing.T, target string) map[string]string {
	t.Helper()
	ctx := context.Background()
	docs := map[string]string{}
	if path, ok := strings.CutPrefix(target, "sqlite:"); ok {
		dbh, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		defer dbh.Close()
		rows, err := dbh.QueryContext(ctx, "SELECT ycsb_key, json(data) FROM usertable")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, d string
			if err := rows.Scan(&k, &d); err != nil {
				t.Fatal(err)
			}
			docs[k] = d
		}
		return docs
	}
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT ycsb_key, data::text FROM docbench.usertable")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, d string
		if err := rows.Scan(&k, &d); err != nil {
			t.Fatal(err)
		}
		docs[k] = d
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// N shard loads store exactly the keys and documents one load stores, and
// their results merge into a complete load of all records.
func TestShardLoadsStoreWhatOneLoadStores(t *testing.T) {
	dir := t.TempDir()
	server := testutil.Postgres(t, "embedded")
	for _, tc := range []struct{ name, one, sharded string }{
		{"sqlite", "sqlite:" + filepath.Join(dir, "one.db"), "sqlite:" + filepath.Join(dir, "sharded.db")},
		{"postgres", testutil.FreshDatabase(t, server), testutil.FreshDatabase(t, server)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl := []string{"-P", "workloada", "-p", "recordcount=1500", "-p", "insertstart=100",
				"-p", "insertcount=1301", "-p", "document.shape=complex", "-p", "batchsize=50"}
			if _, stderr, code := docbench(t, append([]string{"load", "-t", tc.one, "--threads", "3", "--status", "0"}, wl...)...); code != 0 {
				t.Fatalf("load: %d %s", code, stderr)
			}
			// An empty table first (a load of recordcount=0 stores nothing),
			// then 3 shards at once.
			if _, stderr, code := docbench(t, append([]string{"load", "-t", tc.sharded, "--status", "0"}, append(wl, "-p", "recordcount=0", "-p", "insertcount=0")...)...); code != 0 {
				t.Fatalf("prepare: %d %s", code, stderr)
			}
			sub := t.TempDir()
			files := shards(t, sub, 3, append([]string{"load", "-t", tc.sharded, "--threads", "2", "--start-at", "+300ms"}, wl...)...)
			want, got := storedDocs(t, tc.one), storedDocs(t, tc.sharded)
			if len(want) != 1301 {
				t.Fatalf("one load stored %d documents", len(want))
			}
			if len(got) != len(want) {
				t.Fatalf("3 shards stored %d documents, one load %d", len(got), len(want))
			}
			for k, d := range want {
				if got[k] != d {
					t.Fatalf("key %s: shards stored %.80s…, one load %.80s…", k, got[k], d)
				}
			}
			out, stderr, code := docbench(t, "merge", files[0], files[1], files[2], "--format", "json")
			if code != 0 {
				t.Fatalf("merge: %d %s", code, stderr)
			}
			in, err := merge.Read([]byte(out), "merged")
			if err != nil {
				t.Fatal(err)
			}
			m := in[0].Result
			if !m.Complete || m.Operations != 1301 || len(m.Shards) != 3 {
				t.Fatalf("merged load: complete=%v operations=%d shards=%d", m.Complete, m.Operations, len(m.Shards))
			}
			var covered int64
			for _, f := range files {
				r := readResult(t, f)
				covered += *r.Shard.LoadCount
			}
			if covered != 1301 {
				t.Errorf("shard load ranges cover %d records", covered)
			}
		})
	}
}

func decodeOp(t *testing.T, r *report.Result, name, kind string) *hdr.Histogram {
	t.Helper()
	for _, op := range r.Ops {
		if op.Name == name {
			l := op.Service
			if kind == "response" {
				l = op.Response
			}
			if l == nil {
				t.Fatalf("%s has no %s latency", name, kind)
			}
			h, err := report.DecodeHistogram(l.Histogram)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
	}
	t.Fatalf("no %s in result", name)
	return nil
}

// The merged histograms are exactly the histograms of every value the
// shards recorded — service time, and under --rate response time from the
// intended start; counts add up; per-second series are summed.
func TestMergeIsExact(t *testing.T) {
	for name, extra := range map[string][]string{"closed": nil, "rate": {"--rate", "1500"}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files := shards(t, dir, 3, append([]string{"run", "-t", "null:", "-P", "workloada", "-p", "recordcount=1000",
				"-p", "operationcount=1500", "-p", "null.delay=300us", "--threads", "2", "--start-at", "+200ms"}, extra...)...)
			out := filepath.Join(dir, "merged.json")
			if _, stderr, code := docbench(t, append([]string{"merge", "--out", out, "--format", "text"}, files...)...); code != 0 {
				t.Fatalf("merge: %d %s", code, stderr)
			}
			m := readResult(t, out)
			if !m.Complete || m.Operations != 1500 || m.Options.Threads != 6 {
				t.Fatalf("merged: complete=%v operations=%d threads=%d", m.Complete, m.Operations, m.Options.Threads)
			}
			if extra != nil && m.Options.TargetRate != 1500 {
				t.Errorf("merged rate %v", m.Options.TargetRate)
			}
			for _, opName := range []string{"READ", "UPDATE"} {
				for _, kind := range []string{"service", "response"} {
					if kind == "response" && extra == nil {
						continue
					}
					want := measure.NewHistogram()
					for _, f := range files {
						r := readResult(t, f)
						want.Merge(decodeOp(t, r, opName, kind))
						if r.Shard == nil || r.Shard.Clock.Source == "" && r.Shard.Clock.Absent == "" {
							t.Errorf("%s: no shard clock: %+v", f, r.Shard)
						}
						if r.Shard.StartAt == nil || r.Shard.LateMS == nil || r.Shard.Began.Before(*r.Shard.StartAt) {
							t.Errorf("%s: began %v, start-at %v", f, r.Shard.Began, r.Shard.StartAt)
						}
					}
					got := decodeOp(t, m, opName, kind)
					if !got.Equals(want) || got.TotalCount() == 0 {
						t.Errorf("%s %s: merged histogram differs from the histogram of all shards' values", opName, kind)
					}
					if got.Min() < int64(300*time.Microsecond) {
						t.Errorf("%s %s: %d ns recorded under a delay of 300µs", opName, kind, got.Min())
					}
				}
				var op report.Op
				for _, o := range m.Ops {
					if o.Name == opName {
						op = o
					}
				}
				want := decodeOp(t, m, opName, "service")
				if op.Service.P99 != float64(want.ValueAtQuantile(99))/1e3 {
					t.Errorf("%s: p99 %v, want %v", opName, op.Service.P99, float64(want.ValueAtQuantile(99))/1e3)
				}
				var series int64
				for _, p := range m.Series {
					series += p.Ops[opName].Count
				}
				if series != op.Count {
					t.Errorf("%s: series counts sum to %d, not %d", opName, series, op.Count)
				}
			}
		})
	}
}

func TestMergeRefusesAndFlags(t *testing.T) {
	dir := t.TempDir()
	files := shards(t, dir, 3, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100",
		"-p", "operationcount=300", "--seed", "7")
	// Another workload.
	other := shards(t, t.TempDir(), 3, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100",
		"-p", "operationcount=600", "--seed", "7")
	_, stderr, code := docbench(t, "merge", files[0], files[1], other[2])
	if code != 2 || !strings.Contains(stderr, `workload property operationcount ("300" vs "600")`) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("different workloads: exit %d, %q", code, stderr)
	}
	// Another seed.
	seeded := shards(t, t.TempDir(), 3, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100",
		"-p", "operationcount=300", "--seed", "8")
	if _, stderr, code := docbench(t, "merge", files[0], seeded[1]); code != 2 || !strings.Contains(stderr, `seed ("7" vs "8")`) {
		t.Errorf("different seeds: exit %d, %q", code, stderr)
	}
	// The same shard twice.
	if _, stderr, code := docbench(t, "merge", files[0], files[0]); code != 2 || !strings.Contains(stderr, "shard 0/3 appears twice") {
		t.Errorf("duplicate: exit %d, %q", code, stderr)
	}
	// A missing shard: written, incomplete, exit 1.
	out := filepath.Join(dir, "partial.json")
	if _, stderr, code := docbench(t, "merge", files[0], files[2], "--out", out); code != 1 || !strings.Contains(stderr, "shard 1/3 missing") {
		t.Errorf("missing shard: exit %d, %q", code, stderr)
	}
	if r := readResult(t, out); r.Complete || !strings.Contains(r.Error, "shard 1/3 missing") || r.Operations != 200 {
		t.Errorf("partial merge: complete=%v error=%q operations=%d", r.Complete, r.Error, r.Operations)
	}
	// A log as kubectl prints it, with --prefix and other lines.
	var log strings.Builder
	for k, f := range files {
		r := readResult(t, f)
		var line strings.Builder
		if err := report.WriteJSONLine(&line, r); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&log, "[pod/docbench-%d-x/docbench] note: something\n[pod/docbench-%d-x/docbench] %s", k, k, line.String())
	}
	logFile := filepath.Join(dir, "pods.log")
	if err := os.WriteFile(logFile, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := docbench(t, "merge", logFile, "--format", "ycsb"); code != 0 || !strings.Contains(out, "[OVERALL], Operations") && !strings.Contains(out, "[READ], Operations") {
		t.Errorf("merge of a log: exit %d, %q %q", code, out, stderr)
	}
	// Not a shard result.
	plain := filepath.Join(dir, "plain.json")
	if _, stderr, code := docbench(t, "run", "-t", "null:", "-P", "workloada", "-p", "recordcount=100", "-p", "operationcount=10", "--out", plain, "--status", "0"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := docbench(t, "merge", plain); code != 2 || !strings.Contains(stderr, "not a shard result") {
		t.Errorf("plain result: exit %d, %q", code, stderr)
	}
}

func TestShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/3"}, "K must be 0 … 2"},
		{[]string{"--shard", "auto/3"}, "JOB_COMPLETION_INDEX is not set"},
		{[]string{"--start-at", "tomorrow"}, `--start-at "tomorrow": want an RFC 3339 instant`},
	} {
		args := append([]string{"run", "-t", "null:", "-P", "workloada", "-p", "recordcount=10", "-p", "operationcount=10"}, tc.args...)
		_, stderr, code := docbench(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, stderr)
		}
	}
}

// Shards of workload D insert disjoint keys and read only keys that exist:
// no errors, and the table holds the loaded records plus every insert.
func TestShardRunInsertsDisjoint(t *testing.T) {
	server := testutil.Postgres(t, "embedded")
	for name, target := range map[string]string{
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "d.db"),
		"postgres": testutil.FreshDatabase(t, server),
	} {
		t.Run(name, func(t *testing.T) {
			wl := []string{"-P", "workloadd", "-p", "recordcount=500"}
			if _, stderr, code := docbench(t, append([]string{"load", "-t", target, "--status", "0"}, wl...)...); code != 0 {
				t.Fatalf("load: %s", stderr)
			}
			files := shards(t, t.TempDir(), 3, append([]string{"run", "-t", target, "--threads", "2", "-p", "operationcount=1200"}, wl...)...)
			var in []merge.Input
			for _, f := range files {
				in = append(in, merge.Input{Source: f, Result: readResult(t, f)})
			}
			m, err := merge.Merge(in)
			if err != nil {
				t.Fatal(err)
			}
			var inserts int64
			for _, op := range m.Ops {
				if op.Errors != 0 {
					t.Errorf("%s: %d errors: %v", op.Name, op.Errors, op.Messages)
				}
				if op.Name == "INSERT" {
					inserts = op.Count
				}
			}
			if inserts == 0 || m.Operations != 1200 {
				t.Fatalf("inserts %d, operations %d", inserts, m.Operations)
			}
			if got := len(storedDocs(t, target)); int64(got) != 500+inserts {
				t.Errorf("table holds %d documents, want 500 + %d inserts", got, inserts)
			}
		})
	}
}
