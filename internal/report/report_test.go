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

// A query's rows per call is one line under the table, absent for a
// result without queries.
func TestTextRowsPerCall(t *testing.T) {
	r := result(false)
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil || strings.Contains(b.String(), "rows per call") {
		t.Fatalf("%v: rows per call without a query:\n%s", err, &b)
	}
	ninety := 90.0
	r.Ops = append(r.Ops, Op{Name: "QUERY-by-email", Count: 3, RowsPerCall: &ninety})
	b.Reset()
	if err := WriteText(&b, r); err != nil || !strings.Contains(b.String(), "\nrows per call: QUERY-by-email 90\n") {
		t.Fatalf("%v: want the query's rows per call:\n%s", err, &b)
	}
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
