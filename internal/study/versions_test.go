package study

import (
	"strings"
	"testing"
)

// versionsStudy names its postgres:embedded target everywhere a study can.
const versionsStudy = `name: v
targets:
  - {name: pg, target: "postgres:embedded", properties: {pg.datadir: temp}}
  - {name: pinned, target: "postgres:embedded@13"}
  - {name: lite, target: "sqlite:study.sqlite"}
workloads:
  - {name: c, workload: workloadc, targets: [pg, lite]}
  - {name: floor, workload: workloadc, targets: [pg]}
floor: {y: "p50:READ", target: pg, workload: floor}
plans:
  - {target: pg, op: READ, index: pkey}
claims:
  - {says: "pg at least as fast as lite", y: throughput, workload: c, a: pg, b: lite, ratio: ">= 1"}
  - {says: "lite against itself", y: throughput, workload: c, a: lite, b: lite, ratio: ">= 0.5 and <= 2"}
`

// TestPGVersions: pg_versions multiplies the target whose version docbench
// chooses into one per version, everywhere the study names it; a pinned
// target and SQLite run once; a claim on it is one claim per version.
func TestPGVersions(t *testing.T) {
	f, err := Parse("v.yaml", []byte(versionsStudy))
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.ForPGVersions([]string{"18", "13"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range g.Targets {
		names = append(names, tg.Name+"="+tg.Properties["pg.version"])
	}
	if got := strings.Join(names, " "); got != "pg@18=18 pg@13=13 pinned= lite=" {
		t.Errorf("targets %s", got)
	}
	if got := strings.Join(g.Workloads[0].Targets, " "); got != "pg@18 pg@13 lite" {
		t.Errorf("workload c runs on %s", got)
	}
	if len(g.Plans) != 2 || g.Plans[1].Target != "pg@13" || g.Floor.Target != "pg@18" {
		t.Errorf("plans %+v, floor %+v: want one plan per version, the floor on the newest", g.Plans, g.Floor)
	}
	var claims []string
	for _, c := range g.Claims {
		claims = append(claims, c.Says+": "+c.A.Target+"/"+c.B.Target)
	}
	want := "pg at least as fast as lite (PostgreSQL 18): pg@18/lite|pg at least as fast as lite (PostgreSQL 13): pg@13/lite|lite against itself: lite/lite"
	if got := strings.Join(claims, "|"); got != want {
		t.Errorf("claims\n%s\nwant\n%s", got, want)
	}
	// A claim on a version stands on that version's floor; one on no
	// version on the newest's.
	var floors []string
	for i := range g.Claims {
		floors = append(floors, g.floorSide(&g.Claims[i]).Target)
	}
	if got := strings.Join(floors, " "); got != "pg@18 pg@13 pg@18" {
		t.Errorf("the claims' floors are on %s, want pg@18 pg@13 pg@18", got)
	}
	if !strings.HasSuffix(string(g.Raw), "\npg_versions: [\"18\", \"13\"] # --pg-versions\n") {
		t.Errorf("the study as run does not end with its versions:\n%s", g.Raw)
	}
	// Again on the study as run: its own versions give way to the new ones.
	h, err := g.ForPGVersions([]string{"16"})
	if err != nil || len(h.Targets) != 3 || h.Targets[0].Name != "pg@16" {
		t.Errorf("versions replaced: %v, %+v", err, h)
	}

	// A flow-style study file takes them too.
	flow, err := Parse("flow.yaml", []byte(`{name: flow, workloads: [{workload: workloadc}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g, err := flow.ForPGVersions([]string{"13"}); err != nil || g.Targets[0].Name != "postgres@13" || g.Targets[1].Name != "sqlite" {
		t.Errorf("the default targets on 13: %v, %+v", err, g)
	}

	for _, tc := range []struct {
		study, want string
		versions    []string
	}{
		{"name: s\ntargets: [{target: \"sqlite:x.db\"}]\nworkloads: [{workload: workloadc}]\n", "study s has no target whose PostgreSQL version docbench chooses", []string{"13"}},
		{"name: s\nworkloads: [{workload: workloadc}]\nsweep: [{property: pg.version, values: [13, 18]}]\n", "study s sweeps pg.version already", []string{"13"}},
		{"name: s\nworkloads: [{workload: workloadc}]\n", "13 given twice", []string{"13", "13"}},
		{"name: s\nworkloads: [{workload: workloadc}]\npg_versions: [8]\n", "s.yaml:3:1: pg_versions: study s has no target", nil},
	} {
		f, err := Parse("s.yaml", []byte(tc.study))
		if err == nil {
			_, err = f.ForPGVersions(tc.versions)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q with %v: %v, want %q", tc.study, tc.versions, err, tc.want)
		}
	}
}
