package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// result is the result of a run of known measurements (the engine's
// TestResultFixtures builds it and keeps testdata/result-*.json in step):
// 1000 READs of 100..1099 µs, 100 UPDATEs of 2 ms and 3 failed ones of
// 5 ms over exactly 2 s; intended, under a target rate, with schedule lags
// of 1..100 µs.
func result(intended bool) *Result {
	name := "result-closed.json"
	if intended {
		name = "result-intended.json"
	}
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		panic(err)
	}
	r.Options = PhaseOptions{Threads: 4, Seed: 1}
	if intended {
		r.Options.TargetRate = 1000
	}
	return &r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestGoldenYCSB(t *testing.T) {
	for _, c := range []struct {
		name     string
		rate     bool
		interval string // measurement.interval
	}{
		{"ycsb.golden", false, ""},
		{"ycsb-rate.golden", true, ""}, // YCSB's default: no [Intended-*]
		{"ycsb-rate-both.golden", true, "both"},
		{"ycsb-rate-intended.golden", true, "intended"},
	} {
		r := result(c.rate)
		if c.interval != "" {
			r.Workload.Properties = map[string]string{"measurement.interval": c.interval}
		}
		var b bytes.Buffer
		if err := WriteYCSB(&b, r); err != nil {
			t.Fatal(err)
		}
		golden(t, c.name, b.Bytes())
	}
}

func TestGoldenText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, result(true)); err != nil {
		t.Fatal(err)
	}
	golden(t, "text.golden", b.Bytes())
}

func TestJSONRoundTrip(t *testing.T) {
	r := result(true)
	b, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != Schema || back.Ops[0].Response == nil || back.Ops[0].Service.P99 != r.Ops[0].Service.P99 {
		t.Fatalf("round trip lost data: %+v", back.Ops[0])
	}
	for _, key := range []string{`"schema"`, `"complete"`, `"throughput_ops_per_sec"`, `"p99_9_us"`, `"hdr"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "r.json")
	if err := WriteFileAtomic(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if string(b) != "two" || len(entries) != 1 {
		t.Fatalf("content %q, %d files (temporary files left?)", b, len(entries))
	}
}

// A query's operation says on the first screen how many rows a call
// returned and the most it may return.
func TestTextStatesQueryLimit(t *testing.T) {
	r := result(false)
	r.Ops = append(r.Ops, Op{Name: "QUERY-by-email", Count: 4, Query: &OpQuery{Kind: "field", Rows: 360, RowsPerCall: 90}},
		Op{Name: "QUERY-recent", Count: 2, Query: &OpQuery{Kind: "range", Limit: 10, Offset: 5, Rows: 20, RowsPerCall: 10}},
		Op{Name: "QUERY-per-city", Count: 1, Query: &OpQuery{Kind: "aggregate", Rows: 12, RowsPerCall: 12}})
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nQUERY-by-email: 90.0 rows per call, every match (no limit)\n",
		"\nQUERY-recent: 10.0 rows per call, at most 10 after the first 5 (limit, offset)\n",
		"\nQUERY-per-city: 12.0 rows per call, every group\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	out, err := Marshal(r)
	if err != nil || !strings.Contains(string(out), `"query": {
        "kind": "field",
        "limit": 0,
        "rows": 360,
        "rows_per_call": 90
      }`) {
		t.Errorf("JSON (%v):\n%s", err, out)
	}
}
