package study

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/storage"
	"github.com/docbench/docbench/internal/testutil"
	"github.com/docbench/docbench/internal/workload"
)

// A study with storage: true records, per target and point, the loaded
// documents as `docbench storage` measures them — the same figures it
// gives of the same documents — and its summaries cite them with the
// command that shows them.
func TestStudyCitesStorageFigures(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	f, err := Parse("storage.yaml", []byte(`name: st
title: storage figures
targets:
  - {name: pg, target: "`+url+`"}
  - {name: pg-main, target: "`+url+`", properties: {pg.storage: main}}
  - {name: lite, target: "sqlite:st.db"}
properties: {recordcount: 30, fieldcount: 10}
workloads:
  - {name: c, workload: workloadc}
sweep:
  - {property: document.size, values: [512, 4096]}
rounds: 1
duration: 100ms
storage: true
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	m, err := Conduct(context.Background(), f, RunOptions{Out: dir, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if err := WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	d, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range d.storageRows() {
		got[r[1]+" "+r[0]] = r[2:]
	}
	// 4 kB of random characters: out of line in 3 chunks by default, in
	// line under STORAGE MAIN; 512 B in line everywhere.
	for k, want := range map[string][2]string{"pg document.size=4096": {"100%", "3"}, "pg-main document.size=4096": {"0%", "0"},
		"pg document.size=512": {"0%", "0"}, "lite document.size=512": {"", ""}} {
		if c := got[k]; len(c) != 6 || c[4] != want[0] || c[5] != want[1] {
			t.Errorf("%s: %q, want compressed or out of line %q and %q chunks\n%s", k, c, want[0], want[1], log.String())
		}
	}
	if len(got) != 6 {
		t.Errorf("%d rows, want 6: %v", len(got), got)
	}
	// The same documents through docbench storage itself.
	docs := studyDocs(t, map[string]string{"recordcount": "30", "fieldcount": "10", "document.size": "4096"})
	own, err := storage.Measure(context.Background(), storage.Request{Target: url, DefaultOnly: true}, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range m.Runs {
		if run.Target != "pg" || run.Workload != loadWorkload || pointID(run.Point) != "document.size=4096" {
			continue
		}
		var st storage.Target
		if err := json.Unmarshal(d.Results[run.File].Storage, &st); err != nil {
			t.Fatal(err)
		}
		if *st.BytesFormat != *own.BytesFormat || *st.BytesStored != *own.BytesStored || *st.BytesText != *own.BytesText ||
			*st.ChunksPerDoc != *own.ChunksPerDoc {
			t.Errorf("the study's figures %+v %+v %+v differ from docbench storage's %+v %+v %+v",
				st.BytesText, st.BytesFormat, st.BytesStored, own.BytesText, own.BytesFormat, own.BytesStored)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	t.Logf("%s", md[strings.Index(string(md), "## How"):])
	txt, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
	cmd := "docbench storage -P workloadc -p document.size=N -p fieldcount=10 -p recordcount=30 -t sqlite:st.db"
	for name, s := range map[string]string{"summary.md": string(md), "summary.txt": string(txt)} {
		if !strings.Contains(s, "How the documents are stored") || !strings.Contains(s, cmd) {
			t.Errorf("%s lacks the storage figures or %q:\n%s", name, cmd, s)
		}
	}
}

// studyDocs are the documents a load with props inserts.
func studyDocs(t *testing.T, props map[string]string) *storage.Docs {
	p := workload.NewProperties()
	for k, v := range props {
		p.Set(k, v, "test")
	}
	cfg, err := engine.Config(p)
	if err != nil {
		t.Fatal(err)
	}
	wl, ops, err := engine.Build(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	docs := &storage.Docs{Source: "test"}
	th, r := wl.NewThread(0), document.NewRand()
	for k := range cfg.RecordCount {
		docs.Data = append(docs.Data, ops.Shape.AppendDoc(nil, th.AppendKey(nil, k), k, r))
	}
	return docs
}

// The command a summary names takes the properties as run, leaves out
// backend options and run-only ones, and names a swept property N.
func TestStorageCommand(t *testing.T) {
	f, err := Parse("c.yaml", []byte(`name: c
title: c
targets:
  - {name: pg, target: "postgres:embedded", properties: {pg.datadir: temp, pg.storage: main, fieldvalues: text}}
properties: {recordcount: 500, fieldcount: 10, operationcount: 9}
workloads:
  - {name: one, workload: workloadc, properties: {readfields: "1"}}
sweep:
  - {property: document.size, values: [512, 4096]}
quick: {properties: {recordcount: 40}}
scale:
  big: {says: more, properties: {recordcount: 9000}}
`))
	if err != nil {
		t.Fatal(err)
	}
	base := "docbench storage -P workloadc -p document.size=N -p fieldcount=10 -p fieldvalues=text -p recordcount="
	for m, want := range map[*Manifest]string{{}: base + "500", {Quick: true}: base + "40", {Scale: "big"}: base + "9000"} {
		if got := f.storageCommand(f.Targets[0], m); got != want+" -t postgres:embedded" {
			t.Errorf("quick %v scale %q:\n got %s\nwant %s -t postgres:embedded", m.Quick, m.Scale, got, want)
		}
	}
}
