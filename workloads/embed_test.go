package workloads

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// want lists the properties of YCSB 0.17.0's workloads/workload[a-f],
// exactly as shipped (read from git tag 0.17.0 of brianfrankcooper/YCSB).
var want = map[string]string{
	"workloada": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=0.5 updateproportion=0.5 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"workloadb": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=0.95 updateproportion=0.05 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"workloadc": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=1 updateproportion=0 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"workloadd": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=0.95 updateproportion=0 scanproportion=0 insertproportion=0.05 requestdistribution=latest",
	"workloade": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=0 updateproportion=0 scanproportion=0.95 insertproportion=0.05 requestdistribution=zipfian maxscanlength=100 scanlengthdistribution=uniform",
	"workloadf": "recordcount=1000 operationcount=1000 workload=site.ycsb.workloads.CoreWorkload readallfields=true readproportion=0.5 updateproportion=0 scanproportion=0 insertproportion=0 readmodifywriteproportion=0.5 requestdistribution=zipfian",
}

func TestBuiltins(t *testing.T) {
	names := Names()
	if got := strings.Join(names, " "); got != "workloada workloadb workloadc workloadd workloade workloadf" {
		t.Fatalf("Names() = %q", got)
	}
	for _, name := range names {
		b, ok := Lookup(name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", name)
		}
		var props []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == '#' {
				continue
			}
			props = append(props, line)
		}
		if got := strings.Join(props, " "); got != want[name] {
			t.Errorf("%s properties:\n got %s\nwant %s", name, got, want[name])
		}
	}
	for _, bad := range []string{"workloadg", "embed.go", "", "workload"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}
