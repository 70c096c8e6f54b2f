package report

import (
	"strings"
	"testing"
)

func TestParseThreshold(t *testing.T) {
	good := map[string]Threshold{
		"p99(READ)<5ms":         {Metric: "p99", Op: "READ", Cmp: "<", Value: 5000},
		"p99.9(update) <= 2":    {Metric: "p99.9", Op: "UPDATE", Cmp: "<=", Value: 2000},
		"mean<800us":            {Metric: "mean", Cmp: "<", Value: 800},
		"max(SCAN)<1.5s":        {Metric: "max", Op: "SCAN", Cmp: "<", Value: 1.5e6},
		"throughput>10000":      {Metric: "throughput", Cmp: ">", Value: 10000},
		"throughput(READ)>=5e3": {Metric: "throughput", Op: "READ", Cmp: ">=", Value: 5000},
		"errors<0.1%":           {Metric: "errors", Cmp: "<", Value: 0.001},
		"errors(UPDATE)==0":     {Metric: "errors", Op: "UPDATE", Cmp: "==", Value: 0},
	}
	for text, want := range good {
		got, err := ParseThreshold(text)
		want.Text = strings.TrimSpace(text)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", text, got, err, want)
		}
	}
	bad := []string{"", "p99", "p99(READ)", "p99(READ)<<5ms", "p42<5ms", "p99()<5ms", "p99(READ<5ms",
		"throughput>abc", "errors<150%", "errors<-1", "p99<5parsecs", "p99<-5ms", "p99(A(B))<1ms", "throughput!=3"}
	for _, text := range bad {
		if _, err := ParseThreshold(text); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: want a one-line error, got %v", text, err)
		}
	}
}

func TestEvaluateThresholds(t *testing.T) {
	r := result(true)
	cases := map[string]bool{
		"p99(READ)<2.2ms":   true, // response time (intended) under a target rate: 2.09 ms
		"p99(READ)<1.5ms":   false,
		"p50<2ms":           true,
		"max(UPDATE)>2.9ms": true,
		"throughput>=550":   true,
		"throughput>550":    false,
		"errors<1%":         true,
		"errors(UPDATE)<1%": false,
		"p99(SCAN)<1s":      false, // absent: no SCAN in this result
	}
	for text, pass := range cases {
		th, err := ParseThreshold(text)
		if err != nil {
			t.Fatal(err)
		}
		tr := th.Evaluate(r)
		if tr.Pass != pass {
			t.Errorf("%s: pass %v (measured %s), want %v", text, tr.Pass, tr.Measured(), pass)
		}
	}
	th, _ := ParseThreshold("p99(SCAN)<1s")
	if tr := th.Evaluate(r); tr.Absent == "" || !strings.Contains(tr.Measured(), "no SCAN") {
		t.Errorf("absent value: %+v", tr)
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p99(READ)<5ms", "throughput>10000", "errors<0.1%", "mean<=3", "p99.99(X)==1us", "(<)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("multi-line error for %q: %v", s, err)
			}
			return
		}
		if th.Value < 0 || th.Value != th.Value || th.Cmp == "" || th.Metric == "" {
			t.Fatalf("%q parsed to %+v", s, th)
		}
		// What parses evaluates without panicking.
		_ = th.Evaluate(result(false)).Measured()
	})
}
