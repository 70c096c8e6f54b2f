package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/testutil"
)

const optInStudy = `name: optin
targets:
  - {name: lite, target: "sqlite:lite.db"}
with:
  mariadb: {target: "mariadb:local"}
  mongodb: {}
properties: {recordcount: 300, batchsize: 100}
workloads:
  - {name: insert, workload: workloada, properties: {readproportion: 0, updateproportion: 0, insertproportion: 1}}
rounds: 2
duration: 200ms
claims:
  - {says: lite table smaller than mongodb, source: "1.3 GB vs 1.8 GB", y: table_bytes, workload: load, a: lite, b: mongodb, ratio: "<= 0.8"}
  - {says: mariadb loads far faster than sqlite, source: "none", y: throughput, workload: load, a: mariadb, b: lite, ratio: ">= 1000"}
`

// TestStudyWithOptInTargets: --with runs a study's opt-in targets for real:
// a MariaDB of the local install, and the MongoDB wire-protocol peer
// (plumbing only: it is no MongoDB and stores nothing on disk). Their
// claims get verdicts, or say why not: the peer's missing table size comes
// with the peer's own reason. Without --with, the claims are not
// measurable here and name the option.
func TestStudyWithOptInTargets(t *testing.T) {
	maria := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	mongo := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	dir := t.TempDir()
	file := filepath.Join(dir, "optin.yaml")
	os.WriteFile(file, []byte(optInStudy), 0o644)
	findings := func(out string) []report.Finding {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "findings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct{ Findings []report.Finding }
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		return f.Findings
	}

	out := filepath.Join(dir, "with")
	_, stderr, code := docbench(t, "study", file, "--out", out, "--with", "mariadb="+maria, "--with", "mongodb="+mongo)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	fds := findings(out)
	if fds[0].Verdict != "not measurable here" || !strings.Contains(fds[0].Why, "storageSize 0") {
		t.Errorf("table size against the peer: %v", fds[0])
	}
	if fds[1].Verdict == "not measurable here" {
		t.Errorf("load throughput on MariaDB: %v", fds[1])
	}

	out = filepath.Join(dir, "without")
	if _, stderr, code = docbench(t, "study", file, "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for i, opt := range []string{"--with mongodb=URL", "--with mariadb)"} {
		if fd := findings(out)[i]; fd.Verdict != "not measurable here" || !strings.Contains(fd.Why, "opt-in target and this run had none (add it with "+opt) {
			t.Errorf("without --with: %v", fd)
		}
	}
	if _, stderr, code = docbench(t, "study", file, "--out", filepath.Join(dir, "bad"), "--with", "oracle"); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.Contains(stderr, "--with oracle: study optin accepts no such opt-in target (it accepts: mariadb, mongodb)") {
		t.Errorf("--with oracle: exit %d: %q", code, stderr)
	}
}
