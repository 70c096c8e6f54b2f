package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	m, err := ParseMix("mix.yaml", []byte(`queries:
  - {name: by-email, kind: field, path: contact.email, proportion: 0.4}
  - {name: tagged, kind: contains, path: tags.term, value: x, proportion: 0.2}
  - name: recent
    kind: range
    path: created
    limit: 5
    proportion: 0.2
  - {name: per-group, kind: aggregate, path: group, func: count, proportion: 0.1}
  - {name: email-only, kind: field, path: contact.email, fields: [name, contact.email], proportion: 0.05}
  - {name: set-status, kind: update, path: status, value: {a: [1, 2]}, proportion: 0.05}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Queries) != 6 {
		t.Fatalf("%d queries, want 6", len(m.Queries))
	}
	if q := m.Queries[2]; q.Name != "recent" || q.Limit != 5 || q.Source != "mix.yaml:4" {
		t.Errorf("recent = %+v", q)
	}
	if q := m.Queries[0]; q.Limit != 0 || q.LimitGiven {
		t.Errorf("by-email, a field query without limit: %+v; want every match (limit 0)", q)
	}
	if q := m.Queries[4]; len(q.Fields) != 2 || q.Fields[1] != "contact.email" {
		t.Errorf("email-only fields = %v", q.Fields)
	}
	if q := m.Queries[5]; q.Value != `{"a":[1,2]}` {
		t.Errorf("set-status value = %s", q.Value)
	}
}

// Every problem is one line naming the file and the line at fault.
func TestParseMixErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"queries: [", "mix.yaml:1: "},
		{"query: []", `mix.yaml:1: unknown key "query" (want queries)`},
		{"queries: []", "mix.yaml:1: queries: want a list of at least one query"},
		{"queries:\n  - {name: a, kind: fuzzy, path: p, proportion: 1}", `mix.yaml:2: kind "fuzzy": want field, contains, array, range, aggregate, descendant, update`},
		{"queries:\n  - {name: a, kind: field, path: p}", "mix.yaml:2: the query has no proportion"},
		{"queries:\n  - {name: a, kind: field, path: p, proportion: 2}", `mix.yaml:2: proportion "2": want a number more than 0 and at most 1`},
		{"queries:\n  - {name: a, kind: field, path: p, proportion: 0.5}\n  - {name: a, kind: field, path: q, proportion: 0.5}", "mix.yaml:3: name a is taken (mix.yaml:2)"},
		{"queries:\n  - {name: a, kind: range, path: p, value: 3, proportion: 1}", "mix.yaml:2: kind range takes no value"},
		{"queries:\n  - {name: a, kind: aggregate, path: p, proportion: 1}", "mix.yaml:2: an aggregate with func avg needs aggpath"},
		{"queries:\n  - {name: a, kind: aggregate, path: p, func: count, limit: 3, proportion: 1}", "mix.yaml:2: limit pages the documents a query returns; kind aggregate returns one row per group"},
		{"queries:\n  - name: a\n    kind: update\n    path: p\n    offset: 3\n    proportion: 1", "mix.yaml:5: offset pages the documents a query returns; kind update returns nothing"},
		{"queries:\n  - {name: a b, kind: field, path: p, proportion: 1}", `mix.yaml:2: name "a b"`},
		{"queries:\n  - name: a\n    kind: field\n    path: p\n    colour: red\n    proportion: 1", `mix.yaml:5: unknown key "colour"`},
		{"queries:\n  - {name: a, kind: update, path: p, fields: [x], proportion: 1}", "mix.yaml:2: fields project the documents a query returns; kind update returns none"},
	} {
		_, err := ParseMix("mix.yaml", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line starting %q", tc.in, err, tc.want)
		}
	}
}

// querymix sets QueryProp to the mix's sum, is found beside the workload
// file that names it, and excludes queryproportion.
func TestQueryMixProperty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mix.yaml"), []byte("queries:\n  - {name: a, kind: field, path: p, proportion: 0.25}\n  - {name: b, kind: update, path: p, proportion: 0.25}\n"), 0o644)
	wf := filepath.Join(dir, "wl")
	os.WriteFile(wf, []byte("readproportion=0.5\nupdateproportion=0\nquerymix=mix.yaml\n"), 0o644)
	p := NewProperties()
	if err := p.LoadFile(wf); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Doc.QueryMix == nil || cfg.Doc.QueryProp != 0.5 {
		t.Errorf("QueryMix %v, QueryProp %g; want the mix and 0.5", cfg.Doc.QueryMix, cfg.Doc.QueryProp)
	}
	p.Set("queryproportion", "0.1", "-p")
	p.Set("query.path", "p", "-p")
	if _, err := ParseConfig(p, Known{}); err == nil || !strings.Contains(err.Error(), "give querymix or queryproportion") {
		t.Errorf("querymix with queryproportion: %v", err)
	}
	p = NewProperties()
	p.Set("querymix", "nosuch.yaml", "-p")
	if _, err := ParseConfig(p, Known{}); err == nil || !strings.Contains(err.Error(), "querymix=nosuch.yaml: cannot read") {
		t.Errorf("a missing mix: %v", err)
	}
}

// Every query kind returns every match unless a limit is given, but a
// range its page of RangeLimit; limit: is allowed on every kind that returns
// documents.
func TestMixLimits(t *testing.T) {
	m, err := ParseMix("mix.yaml", []byte(`queries:
  - {name: f, kind: field, path: p, limit: 7, offset: 2, proportion: 0.2}
  - {name: c, kind: contains, path: p, limit: 0, proportion: 0.2}
  - {name: a, kind: array, path: p, proportion: 0.2}
  - {name: r, kind: range, path: p, proportion: 0.2}
  - {name: d, kind: descendant, path: p, limit: 3, proportion: 0.2}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		limit, offset int
		given         bool
	}{{7, 2, true}, {0, 0, true}, {0, 0, false}, {RangeLimit, 0, false}, {3, 0, true}}
	for i, w := range want {
		if q := m.Queries[i]; q.Limit != w.limit || q.Offset != w.offset || q.LimitGiven != w.given {
			t.Errorf("%s: limit %d offset %d given %v; want %+v", q.Name, q.Limit, q.Offset, q.LimitGiven, w)
		}
	}
}

// query.limit is the limit of the mix's entries that set none; the other
// query.* properties, which a mix would ignore, are refused, as query.limit
// on an aggregate is.
func TestQueryPropsAMixOrKindWouldIgnore(t *testing.T) {
	dir := t.TempDir()
	mix := filepath.Join(dir, "mix.yaml")
	os.WriteFile(mix, []byte("queries:\n  - {name: a, kind: field, path: p, proportion: 0.25}\n  - {name: b, kind: field, path: p, limit: 5, proportion: 0.25}\n  - {name: c, kind: aggregate, path: p, func: count, proportion: 0.25}\n"), 0o644)
	p := NewProperties()
	p.Set("querymix", mix, "-p")
	p.Set("query.limit", "100", "-p")
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{100, 5, 0} {
		if got := cfg.Doc.QueryMix.Queries[i].Limit; got != want {
			t.Errorf("entry %d: limit %d, want %d", i, got, want)
		}
	}
	p.Set("query.path", "q", "-p")
	if _, err := ParseConfig(p, Known{}); err == nil || !strings.Contains(err.Error(), `-p: query.path="q": querymix=`+mix+` names its queries and would ignore it: set path: on the mix's entries`) {
		t.Errorf("query.path with querymix: %v", err)
	}
	for _, tc := range []struct{ props, want string }{
		{"querykind=aggregate query.path=p query.func=count query.limit=0", `-p: query.limit="0": querykind=aggregate returns one row per group, all of them: query.limit would be ignored`},
		{"querykind=field query.path=p query.func=count", `-p: query.func="count": is an aggregate's (querykind is field): it would be ignored`},
	} {
		p := NewProperties()
		p.Set("queryproportion", "1", "-p")
		for _, kv := range strings.Fields(tc.props) {
			k, v, _ := strings.Cut(kv, "=")
			p.Set(k, v, "-p")
		}
		if _, err := ParseConfig(p, Known{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.props, err, tc.want)
		}
	}
	// A mix at fault is the one line: not also "all operation proportions are 0".
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("queries:\n  - {name: g, kind: aggregate, path: p, func: count, limit: 5, proportion: 1}\n"), 0o644)
	p = NewProperties()
	p.Set("readproportion", "0", "-p")
	p.Set("updateproportion", "0", "-p")
	p.Set("querymix", bad, "-p")
	if _, err := ParseConfig(p, Known{}); err == nil || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "proportions") {
		t.Errorf("a mix at fault: %v; want its one line", err)
	}
	for kind, want := range map[string]int{"field": 0, "contains": 0, "range": RangeLimit} {
		p := NewProperties()
		p.Set("queryproportion", "1", "-p")
		p.Set("querykind", kind, "-p")
		p.Set("query.path", "p", "-p")
		cfg, err := ParseConfig(p, Known{})
		if err != nil || cfg.Doc.QueryLimit != want {
			t.Errorf("querykind=%s: query.limit %d (%v), want %d", kind, cfg.Doc.QueryLimit, err, want)
		}
	}
}

func TestMixPath(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.yaml")
	os.WriteFile(study, []byte("x"), 0o644)
	for _, tc := range []struct{ file, source, want string }{
		{"mix.yaml", "-p", "mix.yaml"},
		{"mix.yaml", study + ":3", filepath.Join(dir, "mix.yaml")},
		{"mix.yaml", study + ": properties", filepath.Join(dir, "mix.yaml")},
		{"mix.yaml", "workloads/workloada:4", "mix.yaml"}, // a built-in: the working directory
		{"/abs/mix.yaml", study + ":3", "/abs/mix.yaml"},
	} {
		if got := mixPath(tc.file, tc.source); got != tc.want {
			t.Errorf("mixPath(%q, %q) = %q, want %q", tc.file, tc.source, got, tc.want)
		}
	}
}
