package study

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docbench/docbench/internal/db"
)

// A study rerun across PostgreSQL versions (pg_versions:, --pg-versions
// 10,13,18) multiplies each target whose server pg.version chooses — a
// postgres:embedded target with no version of its own — into one target
// per version, NAME@VERSION, with pg.version set; the other targets run
// once. Every name of such a target in the study (a workload's targets:,
// the capacity search's, plan checks) becomes its versions' names, and a
// claim on it becomes one claim per version, judged on that version
// alone: its verdicts say which versions reproduce it. The study's floor
// is measured on every version, and a claim on a version stands on that
// version's floor (a claim on no version, on the newest's).

// versionPlan is what pg_versions made of a study.
type versionPlan struct {
	versions []string        // as given
	targets  []TargetSpec    // the study's targets before
	bases    []string        // the targets multiplied, in the study's order
	claims   []claimOrigin   // by claim, in f.Claims' order
	base     map[string]bool // the targets multiplied
	// floorBase is the floor's target before it was multiplied; "" when
	// the floor is not on one.
	floorBase string
}

// floorSide is where the floor under claim c is measured: the study's
// floor, on c's own version when pg_versions multiplied its target.
func (f *File) floorSide(c *Claim) Side {
	s := f.Floor.side()
	if f.versions == nil || f.versions.floorBase == "" {
		return s
	}
	for i, o := range f.versions.claims {
		if o.version != "" && i < len(f.Claims) && f.Claims[i].Says == c.Says {
			s.Target = versionName(f.versions.floorBase, o.version)
		}
	}
	return s
}

// claimOrigin is a claim of the study as run: the claim of the file it
// comes from (its index) and, for a claim on a multiplied target, the
// version it is judged on.
type claimOrigin struct {
	index   int
	says    string // the file's words
	version string
}

// versionName is the name of target base on version v: postgres@13.
func versionName(base, v string) string { return base + "@" + v }

// ForPGVersions is the study rerun on PostgreSQL versions (--pg-versions):
// the study file with pg_versions: set to versions, as the study directory
// keeps it. versions are as the user gave them (the caller checks that
// each is a version docbench knows).
func (f *File) ForPGVersions(versions []string) (*File, error) {
	if _, err := f.versionTargets(versions); err != nil {
		return nil, err
	}
	raw, err := setPGVersions(f.Raw, versions)
	if err != nil {
		return nil, err
	}
	return Parse(f.Source, raw)
}

// setPGVersions writes pg_versions: into a study file: appended to it,
// comments and all, or in place of the file's own.
func setPGVersions(raw []byte, versions []string) ([]byte, error) {
	var quoted []string
	for _, v := range versions {
		quoted = append(quoted, strconv.Quote(v))
	}
	list := "[" + strings.Join(quoted, ", ") + "]"
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil || len(root.Content) == 0 {
		return nil, fmt.Errorf("the study file does not read as YAML: %v", err)
	}
	m := root.Content[0]
	has := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		has = has || m.Content[i].Value == "pg_versions"
	}
	if !has && m.Style&yaml.FlowStyle == 0 {
		out := append([]byte(nil), bytes.TrimRight(raw, "\n")...)
		return append(out, "\npg_versions: "+list+" # --pg-versions\n"...), nil
	}
	var seq yaml.Node
	if err := yaml.Unmarshal([]byte(list), &seq); err != nil {
		return nil, err
	}
	m.Style = 0
	found := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "pg_versions" {
			m.Content[i+1], found = seq.Content[0], true
		}
	}
	if !found {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "pg_versions"}, seq.Content[0])
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// studyTargets are the study's targets, or the default ones, before
// pg_versions multiplied them.
func (f *File) studyTargets() []TargetSpec {
	if f.versions != nil {
		return f.versions.targets
	}
	if len(f.Targets) > 0 {
		return f.Targets
	}
	return DefaultTargets()
}

// versionTargets are the targets versions multiply: those whose server
// pg.version chooses on every version (the backend says, db.Check) and
// that set no pg.version of their own. It says why when there are none,
// or the versions cannot be a study's.
func (f *File) versionTargets(versions []string) (map[string]bool, error) {
	if len(versions) == 0 {
		return nil, fmt.Errorf("give at least one version")
	}
	seen := map[string]bool{}
	for _, v := range versions {
		switch {
		case strings.TrimSpace(v) == "":
			return nil, fmt.Errorf("an empty version")
		case strings.ContainsAny(v, "@/ "):
			return nil, fmt.Errorf("%q: want a version such as 13 or 13.23.0", v)
		case seen[v]:
			return nil, fmt.Errorf("%s given twice", v)
		}
		seen[v] = true
	}
	for _, s := range f.Sweep {
		if s.Property == versionAxis {
			return nil, fmt.Errorf("study %s sweeps %s already: its versions are its sweep's values", f.Name, versionAxis)
		}
	}
	if v, ok := f.Properties[versionAxis]; ok {
		return nil, fmt.Errorf("study %s sets %s=%s for every target", f.Name, versionAxis, v)
	}
	out := map[string]bool{}
	names := map[string]bool{}
	var why string
	targets := f.studyTargets()
	for _, t := range targets {
		names[t.Name] = true
	}
	for _, t := range targets {
		if _, own := t.Properties[versionAxis]; own {
			continue
		}
		ok := true
		for _, v := range versions {
			if err := db.Check(t.Target, map[string]string{versionAxis: v}); err != nil {
				ok = false
				if why == "" && db.Check(t.Target, nil) == nil {
					why = oneLine(err)
				}
				break
			}
		}
		if !ok {
			continue
		}
		for _, v := range versions {
			if n := versionName(t.Name, v); names[n] {
				return nil, fmt.Errorf("target %s would be named %s, a name the study gives another target", t.Name, n)
			}
		}
		out[t.Name] = true
	}
	if len(out) == 0 {
		msg := fmt.Sprintf("study %s has no target whose PostgreSQL version docbench chooses (postgres:embedded with no version of its own)", f.Name)
		if why != "" {
			msg += ": " + why
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return out, nil
}

// multiplyVersions rewrites the study for its pg_versions (nothing
// without them): each multiplied target becomes its versions' targets,
// and every name of it in the study its versions' names.
func (f *File) multiplyVersions() error {
	if len(f.PGVersions) == 0 {
		return nil
	}
	base, err := f.versionTargets(f.PGVersions)
	if err != nil {
		return err
	}
	vs := f.PGVersions
	plan := &versionPlan{versions: vs, base: base, targets: f.studyTargets()}
	var targets []TargetSpec
	for _, t := range plan.targets {
		if !base[t.Name] {
			targets = append(targets, t)
			continue
		}
		plan.bases = append(plan.bases, t.Name)
		for _, v := range vs {
			c := t
			c.Name = versionName(t.Name, v)
			c.Properties = maps.Clone(t.Properties)
			if c.Properties == nil {
				c.Properties = map[string]string{}
			}
			c.Properties[versionAxis] = v
			targets = append(targets, c)
		}
	}
	f.Targets = targets
	names := func(list []string) []string {
		var out []string
		for _, n := range list {
			if !base[n] {
				out = append(out, n)
				continue
			}
			for _, v := range vs {
				out = append(out, versionName(n, v))
			}
		}
		return out
	}
	for i := range f.Workloads {
		f.Workloads[i].Targets = names(f.Workloads[i].Targets)
	}
	if f.Capacity != nil {
		f.Capacity.Targets = names(f.Capacity.Targets)
	}
	var plans []PlanCheck
	for _, p := range f.Plans {
		for _, n := range names([]string{p.Target}) {
			q := p
			q.Target = n
			plans = append(plans, q)
		}
	}
	f.Plans = plans
	if f.Floor != nil && base[f.Floor.Target] {
		plan.floorBase = f.Floor.Target
		fl := *f.Floor
		fl.Target = versionName(fl.Target, newestVersion(vs))
		f.Floor = &fl
	}
	var claims []Claim
	for i, c := range f.Claims {
		if !c.names(base) {
			claims = append(claims, c)
			plan.claims = append(plan.claims, claimOrigin{index: i, says: c.Says})
			continue
		}
		for _, v := range vs {
			claims = append(claims, c.onVersion(base, v))
			plan.claims = append(plan.claims, claimOrigin{index: i, says: c.Says, version: v})
		}
	}
	f.Claims = claims
	f.versions = plan
	return nil
}

// newestVersion is the highest of vs.
func newestVersion(vs []string) string {
	return slices.MaxFunc(vs, func(a, b string) int {
		switch {
		case versionLess(a, b):
			return -1
		case versionLess(b, a):
			return 1
		}
		return 0
	})
}

// names says whether the claim names one of the targets (on a side, as
// its default target, or as its control).
func (c *Claim) names(targets map[string]bool) bool {
	sides := append([]Side{c.A, c.B}, c.Order...)
	if c.Control != nil {
		sides = append(sides, *c.Control)
	}
	for _, s := range sides {
		if targets[c.resolve(s).Target] {
			return true
		}
	}
	return false
}

// onVersion is the claim on version v: each of the targets it names
// becomes the target of that version.
func (c Claim) onVersion(targets map[string]bool, v string) Claim {
	rename := func(s Side) Side {
		if targets[s.Target] {
			s.Target = versionName(s.Target, v)
		}
		return s
	}
	if targets[c.Target] {
		c.Target = versionName(c.Target, v)
	}
	c.A, c.B = rename(c.A), rename(c.B)
	c.Order = slices.Clone(c.Order)
	for i := range c.Order {
		c.Order[i] = rename(c.Order[i])
	}
	if c.Control != nil {
		ctl := rename(*c.Control)
		c.Control = &ctl
	}
	c.Says += " (PostgreSQL " + v + ")"
	c.ID += "@" + v
	return c
}

// targetVersionChanges are VersionChanges of a study rerun across
// versions: a line per pair of adjacent versions, the newest first, with
// each figure of each multiplied target from the older version's target
// to the newer's; then a line per claim whose verdict differs between
// versions.
func (d *Data) targetVersionChanges() []string {
	plan := d.File.versions
	versions := slices.Clone(plan.versions)
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	var pids []string
	for pid := range d.points {
		pids = append(pids, pid)
	}
	sort.Strings(pids)
	figs := d.versionFigures()
	var out []string
	for i := len(versions) - 1; i > 0; i-- {
		older, newer := versions[i-1], versions[i]
		var pairs []versionPair
		for _, fg := range figs {
			var bases []string
			for _, b := range plan.bases {
				if d.ranWorkload(versionName(b, older), fg.workload) || d.ranWorkload(versionName(b, newer), fg.workload) {
					bases = append(bases, b)
				}
			}
			for _, b := range bases {
				for _, pid := range pids {
					label := fg.workload + " " + figureWords(fg.op, fg.metric)
					if len(bases) > 1 {
						label += " on " + b
					}
					if pid != "default" {
						label += " at " + pid
					}
					pairs = append(pairs, versionPair{label,
						seriesKey{versionName(b, older), fg.workload, pid, fg.op, fg.metric},
						seriesKey{versionName(b, newer), fg.workload, pid, fg.op, fg.metric}})
				}
			}
		}
		if line := d.versionLine(older, newer, pairs); line != "" {
			out = append(out, line)
		}
	}
	return append(out, d.claimsAcrossVersions()...)
}

// ranWorkload says whether target has figures of workload wl.
func (d *Data) ranWorkload(target, wl string) bool {
	for _, r := range d.Rows {
		if r.Target == target && r.Workload == wl {
			return true
		}
	}
	return false
}

// claimsAcrossVersions is a line per claim of the file whose verdict
// differs between versions: "VERSION CHANGES THE VERDICT: says:
// reproduced on 18; not reproduced on 13" (or not measurable on 13: the
// version lacks what it needs, as the versions' line above says).
func (d *Data) claimsAcrossVersions() []string {
	plan := d.File.versions
	findings := d.Findings()
	if len(findings) != len(plan.claims) {
		return nil
	}
	type byVerdict struct {
		verdicts []string
		versions map[string][]string
	}
	var order []int
	claims := map[int]*byVerdict{}
	says := map[int]string{}
	for i, o := range plan.claims {
		if o.version == "" {
			continue
		}
		bv := claims[o.index]
		if bv == nil {
			bv = &byVerdict{versions: map[string][]string{}}
			claims[o.index] = bv
			order = append(order, o.index)
			says[o.index] = o.says
		}
		v := findings[i].Verdict
		if _, ok := bv.versions[v]; !ok {
			bv.verdicts = append(bv.verdicts, v)
		}
		bv.versions[v] = append(bv.versions[v], o.version)
	}
	var out []string
	for _, i := range order {
		bv := claims[i]
		if len(bv.verdicts) < 2 {
			continue
		}
		var parts []string
		for _, v := range bv.verdicts {
			vs := bv.versions[v]
			sort.Slice(vs, func(a, b int) bool { return versionLess(vs[b], vs[a]) })
			if v == NotMeasurable {
				v = "not measurable" // on these versions: "here" is every version
			}
			parts = append(parts, v+" on "+strings.Join(vs, ", "))
		}
		out = append(out, "VERSION CHANGES THE VERDICT: "+says[i]+": "+strings.Join(parts, "; "))
	}
	return out
}
